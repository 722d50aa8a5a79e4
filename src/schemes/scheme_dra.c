/* Dynamic Resource Allocation devices, the scheme: a node's GPUs and a
 * pod's claims, read through the inventory (scheme_dra.h, dra_inventory.c). */
#include "scheme_dra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_place.h"

static bool str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

#define MIB (INT64_C(1) << 20)

/* A taint that keeps new claims off the device. */
static bool device_tainted(const struct k8s_dra_device *d)
{
	for (size_t i = 0; i < d->ntaints; i++)
		if (str_eq(d->taints[i].effect, "NoSchedule") || str_eq(d->taints[i].effect, "NoExecute"))
			return true;
	return false;
}

/* How a device is shared, in buf (empty when the configuration and the
 * device say nothing): the strategy configuration k sets, else the MIG
 * profile of a MIG device. */
static void sharing_text(char *buf, size_t size, const struct dra_sharing *k, const struct k8s_dra_value *profile)
{
	buf[0] = 0;
	if (k && str_eq(k->strategy, "MPS"))
		snprintf(buf, size, "MPS%s%lld%s%s%s", k->has_mps_threads ? " " : "",
			 (long long)(k->has_mps_threads ? k->mps_threads : 0), k->has_mps_threads ? "%" : "",
			 k->mps_memory_limit ? " " : "", k->mps_memory_limit ? k->mps_memory_limit : "");
	else if (k && k->strategy)
		snprintf(buf, size, "%s%s%s", k->strategy, k->interval ? " " : "", k->interval ? k->interval : "");
	else if (profile && profile->str)
		snprintf(buf, size, "MIG %s", profile->str);
}

/* "NAME (how it is shared)" of a claim a pod holds a device through,
 * appended to *via (", " between claims): the strategy its configuration
 * sets, the MIG profile of the device, or the extended resource the claim
 * stands for.  -1 when out of memory. */
static int via_add(char **via, const struct dra_claim *c, const struct dra_sharing *k,
		   const struct dra_index_entry *e, const char *resource)
{
	const struct k8s_dra_value *profile = e && e->parent ? dra_attribute(e->slice, e->dev, DRA_ATTR_PROFILE) : NULL;
	char word[150];
	const char *how = word, *parts[5] = {NULL, c->name ? c->name : "", NULL, NULL, NULL};
	size_t at = *via ? strlen(*via) : 0, len = at;
	char *s;

	sharing_text(word, sizeof(word), k, profile);
	if (!*word) /* made by the scheduler for an extended resource, or nothing said */
		how = resource ? resource : "";
	parts[0] = at ? ", " : "";
	if (*how) {
		parts[2] = " (";
		parts[3] = how;
		parts[4] = ")";
	}
	for (size_t i = 0; i < 5; i++)
		len += parts[i] ? strlen(parts[i]) : 0;
	if (!(s = realloc(*via, len + 1)))
		return -1;
	for (size_t i = 0; i < 5; i++)
		if (parts[i]) {
			memcpy(s + at, parts[i], strlen(parts[i]));
			at += strlen(parts[i]);
		}
	s[at] = '\0';
	*via = s;
	return 0;
}

/* word appended to *list unless it is there already (", " between words). */
static int word_add(char **list, const char *word)
{
	const char *p = *list;
	size_t len = strlen(word), was = *list ? strlen(*list) : 0;
	char *s;

	if (!*word)
		return 0;
	for (; p && (p = strstr(p, word)); p += len)
		if ((p == *list || (p >= *list + 2 && p[-2] == ',')) && (!p[len] || p[len] == ','))
			return 0;
	if (!(s = realloc(*list, was + (was ? 2 : 0) + len + 1)))
		return -1;
	if (was)
		memcpy(s + was, ", ", 2);
	memcpy(s + was + (was ? 2 : 0), word, len + 1);
	*list = s;
	return 0;
}

/* How GPU devs[g] is shared now: each way its allocations and its MIG
 * devices' allocations are shared, once ("capacity" for shares of a device
 * that takes several allocations).  NULL in *ret when nothing holds it. */
static int gpu_sharing(const struct dra_device *devs, size_t n, size_t g, char **ret)
{
	*ret = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct k8s_dra_value *profile =
			devs[i].parent ? dra_attribute(devs[i].slice, devs[i].dev, DRA_ATTR_PROFILE) : NULL;

		if (i != g && !str_eq(devs[i].parent, devs[g].dev->name))
			continue;
		for (size_t u = 0; u < devs[i].nuses; u++) {
			char word[150];

			sharing_text(word, sizeof(word), devs[i].uses[u].config, profile);
			if (!*word && devs[i].dev->allow_multiple)
				strcpy(word, "capacity");
			if (word_add(ret, word) < 0)
				return -1;
		}
	}
	return 0;
}

static int gpus_fill(struct scheme_node *out, const struct dra_device *devs, size_t n)
{
	int k = 0;

	for (size_t i = 0; i < n; i++)
		out->ngpus += devs[i].gpu && !devs[i].parent;
	if (!(out->gpus = calloc((size_t)out->ngpus, sizeof(*out->gpus))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct k8s_dra_value *model = dra_attribute(devs[i].slice, devs[i].dev, DRA_ATTR_PRODUCT);
		struct scheme_gpu *g = &out->gpus[k];

		if (!devs[i].gpu || devs[i].parent)
			continue;
		g->index = k++;
		g->id = dra_gpu_id(devs[i].slice, devs[i].dev->name);
		g->type = model && model->str ? strdup(model->str) : NULL;
		g->mem_total = out->unit == UNIT_MIB ? devs[i].mem_bytes / MIB : 1;
		g->cordoned = device_tainted(devs[i].dev);
		out->mem_total += g->mem_total;
		if (!g->id || (model && model->str && !g->type) || gpu_sharing(devs, n, i, &g->sharing) < 0)
			return -1;
	}
	return 0;
}

static int dra_node_decode(const struct scheme_objects *objs, const struct k8s_node *node, struct scheme_node *out,
			   struct warnings *w)
{
	struct dra_device *devs = NULL;
	size_t n = 0, ngpus = 0;
	bool memory = false, incomplete = false;
	int rc;

	if (!objs || !objs->dra || !node->name)
		return 0;
	if (dra_node_devices(objs->dra, node->name, &node->labels, &devs, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		ngpus += devs[i].gpu && !devs[i].parent;
		memory |= devs[i].gpu && devs[i].mem_bytes > 0;
		incomplete |= devs[i].incomplete;
	}
	if (!ngpus) {
		dra_devices_free(devs, n);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->unit = memory ? UNIT_MIB : UNIT_SLOTS;
	out->unit_from_label = true;
	out->per_gpu = true;
	rc = gpus_fill(out, devs, n);
	out->mem_capacity = out->mem_total;
	/* the mark of a pool that lacks slices: its devices may be more */
	if (rc == 0 && !(out->mode = strdup(incomplete ? "dra,incomplete-pool" : "dra")))
		rc = -1;
	dra_devices_free(devs, n);
	if (rc < 0) {
		scheme_node_release(out);
		return -1;
	}
	return 1;
}

/* A result of claim c on a GPU, as the pod holds it: the device (a MIG
 * device's GPU), and the memory (its share where shared by capacity, the
 * whole device else), counted for the first pod the claim is reserved for
 * only (by name: the claim's pods are in its namespace): a claim several
 * pods share is held once. */
static int claim_result_add(const struct dra_claim *c, const struct k8s_pod *pod,
			    const struct dra_index_entry *e, const struct dra_claim_result *r, struct scheme_pod *out)
{
	struct scheme_claim *sc;
	bool first = !c->nreserved || str_eq(c->reserved[0].name, pod->name);
	int64_t m = 0;

	if (first && e->dev->allow_multiple)
		m = r->mem_consumed / MIB;
	else if (first)
		m = e->has_memory ? e->mem_bytes / MIB : 1;
	if (!(sc = realloc(out->claims, (out->nclaims + 1) * sizeof(*sc))))
		return -1;
	out->claims = sc;
	out->claims[out->nclaims++] = (struct scheme_claim){-1, -1, e->gpu_id, m, 0};
	out->mem += m;
	return 0;
}

/* The pod's status names the claim made for its claim ref. */
static bool status_named(const struct k8s_pod *pod, const char *ref)
{
	for (size_t i = 0; i < pod->nclaim_statuses; i++)
		if (str_eq(pod->claim_statuses[i].name, ref) && pod->claim_statuses[i].claim_name)
			return true;
	return false;
}

/* The claims of the pod: by the names its statuses give them, as it names
 * them itself, and the one the scheduler made for an extended resource. */
static int pod_claims(const struct dra_inventory *inv, const struct k8s_pod *pod, struct scheme_pod *out, bool *any)
{
	size_t n = pod->nclaim_statuses + pod->nclaims + 1;

	for (size_t i = 0; i < n; i++) {
		const char *name = i < pod->nclaim_statuses ? pod->claim_statuses[i].claim_name
				   : i + 1 < n		? pod->claims[i - pod->nclaim_statuses].claim_name
							: pod->extended_claim;
		const struct dra_claim *c = name ? dra_claim_find(inv, pod->namespace, name) : NULL;
		bool said = false; /* a claim of several devices is named once */
		const char *resource = i + 1 == n && pod->nextended_requests ? pod->extended_requests[0].resource : NULL;

		/* a claim allocated devices of no GPU says nothing; one not made
		 * or not allocated yet may still be the pod's GPU */
		if (!(c && c->nresults) &&
		    (name || (i + 1 < n && i >= pod->nclaim_statuses &&
			      !status_named(pod, pod->claims[i - pod->nclaim_statuses].name))))
			*any = true;
		for (size_t j = 0; c && j < c->nresults; j++) {
			const struct dra_claim_result *r = &c->results[j];
			const struct dra_index_entry *e = r->entry;

			if (!e || !(e->parent || e->has_memory || dra_gpu_driver(inv, r->driver)))
				continue;
			if (claim_result_add(c, pod, e, r, out) < 0 ||
			    (!said && via_add(&out->via, c, dra_config_of(c, r), e, resource) < 0))
				return -1;
			said = true;
		}
		if (c)
			out->ask.gpus += c->ask_gpus < SCHEME_MAX_ASK_GPUS ? c->ask_gpus : SCHEME_MAX_ASK_GPUS;
		if (c && c->waiting && !out->claim_waiting)
			out->claim_waiting = c->name;
	}
	return 0;
}

static int dra_pod_decode(const struct scheme_objects *objs, const struct k8s_pod *pod, struct scheme_pod *out,
			  struct warnings *w)
{
	bool any = false;

	if (!objs || !objs->dra || !(pod->nclaims || pod->nclaim_statuses || pod->extended_claim))
		return 0;
	memset(out, 0, sizeof(*out));
	if (pod_claims(objs->dra, pod, out, &any) < 0) {
		scheme_pod_release(out);
		return -1;
	}
	/* a pod whose claims hold no GPU is not this scheme's */
	if (!out->nclaims && !any) {
		scheme_pod_release(out);
		return 0;
	}
	out->node = pod->node_name;
	out->assigned = out->nclaims > 0;
	if (out->ask.gpus < 1)
		out->ask.gpus = 1;
	if (out->ask.gpus > SCHEME_MAX_ASK_GPUS)
		out->ask.gpus = SCHEME_MAX_ASK_GPUS;
	return 1;
}

const struct scheme scheme_dra = {
	.name = "dra",
	.title = "Dynamic Resource Allocation (ResourceSlices and ResourceClaims)",
	.help = "devices published in ResourceSlices and held through ResourceClaims, per device",
	.pod_unit = UNIT_MIB,
	.node_decode_in = dra_node_decode,
	.pod_decode_in = dra_pod_decode,
	.place = scheme_place_shares,
	.node_devices = dra_fit_node_devices,
	.node_devices_release = dra_fit_devices_release,
	.device_class = dra_fit_device_class,
	.claim_requests = dra_fit_claim_requests,
	.whole_card_by_default = true,
};
