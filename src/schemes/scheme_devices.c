/* The HAMi family's pod decoder: see scheme_devices.h. */
#include "scheme_devices.h"

#include <stdlib.h>
#include <string.h>

#include "scheme_claims.h"
#include "scheme_util.h"

void scheme_devices_warn_register(const struct k8s_node *node, const char *key, int bad,
				  struct warnings *w)
{
	if (bad)
		scheme_warn_node(w, "MalformedAnnotation", node,
				 "annotation %s: %d device entr%s could not be read and %s left out",
				 key, bad, bad == 1 ? "y" : "ies", bad == 1 ? "is" : "are");
}

/* What the pod asks for, from its limits: per container, number of GPUs
 * times memory (and compute) per GPU; a container naming only memory or
 * compute gets one GPU.  HAMi's own default when the memory limit is left
 * out is the whole card, which only the node knows: read as 0. */
static void requested(const struct scheme_devices_desc *d, const struct k8s_pod *pod,
		      struct scheme_pod *out, struct warnings *w)
{
	for (size_t i = 0; i < pod->ncontainers; i++) {
		const struct kvlist *l = &pod->containers[i].limits;
		int64_t n = 0, mem = 0, core = 0;
		int rn = scheme_quantity(l, d->res_count, &n);
		int rm = scheme_quantity(l, d->res_mem, &mem);
		int rc = scheme_quantity(l, d->res_cores, &core);

		if (rn < 0 || rm < 0 || rc < 0 || n > SCHEME_MAX_COUNT || mem > SCHEME_MAX_MIB ||
		    core > SCHEME_MAX_COUNT) {
			scheme_warn_pod(w, "MalformedQuantity", pod,
					"container %s: a %s limit is not a usable quantity",
					pod->containers[i].name ? pod->containers[i].name : "?",
					d->limit_name);
			continue;
		}
		if (rn == 0 && rm == 0 && rc == 0)
			continue;
		if (rn == 0)
			n = 1;
		if (rc > 0 && core > 100)
			scheme_warn_pod(w, "CoreShareOver100", pod,
					"container %s asks for %lld%% of a GPU (at most 100)",
					pod->containers[i].name ? pod->containers[i].name : "?",
					(long long)core);
		out->container_mem[i] = n * mem;
		out->container_core[i] = n * core;
		out->mem += n * mem;
		out->core += n * core;
	}
}

/* The claims of a device list, with the warnings a broken list deserves. */
static int allocated(const struct scheme_devices_desc *d, const struct k8s_pod *pod,
		     const char *value, const char *key, struct scheme_pod *out,
		     struct claim_list *claims, struct warnings *w)
{
	size_t seen = 0;
	int64_t max_core = 0;
	int bad = scheme_parse_pod_devices(value, pod->ncontainers,
					   out->container_mem, out->container_core, claims, &seen,
					   &max_core);

	if (bad < 0)
		return -1;
	if (bad)
		scheme_warn_pod(w, "MalformedAnnotation", pod,
				"annotation %s: %d device entr%s could not be read", key, bad,
				bad == 1 ? "y" : "ies");
	if (seen > pod->ncontainers)
		scheme_warn_pod(w, "MalformedAnnotation", pod,
				"annotation %s lists %zu containers, the pod has %zu", key, seen,
				pod->ncontainers);
	if (max_core > 100)
		scheme_warn_pod(w, "CoreShareOver100", pod,
				"annotation %s gives %lld%% of one GPU (at most 100)", key,
				(long long)max_core);
	for (size_t i = 0; i < claims->n; i++) {
		out->mem += claims->v[i].mem;
		out->core += claims->v[i].core;
	}
	scheme_check_vgpus_per_device(claims, pod, key, w);
	return 0;
}

static int devices_decode(const struct scheme_devices_desc *d, const struct k8s_pod *pod, struct scheme_pod *out,
			  struct warnings *w)
{
	const char *alloc, *phase, *vnode;
	const char *key = d->allocated_key;
	bool confirmed = true; /* the list is the allocated one, not the pending copy */
	struct claim_list claims = {0};
	bool failed;

	phase = kvlist_get(&pod->annotations, d->bind_phase_key);
	failed = phase && strcmp(phase, "failed") == 0;
	vnode = scheme_pod_annotation(pod, d->node_key);
	if (vnode && !str_is_printable(vnode, false)) {
		scheme_warn_pod(w, "MalformedAnnotation", pod, "annotation %s: not a node name",
				d->node_key);
		vnode = NULL;
	}
	/* A failed bind leaves the scheduler's choice behind: it holds nothing. */
	out->node = pod->node_name ? pod->node_name : failed ? NULL : vnode;

	alloc = scheme_pod_annotation(pod, d->allocated_key);
	if (!alloc) {
		alloc = scheme_pod_annotation(pod, d->to_allocate_key);
		key = d->to_allocate_key;
		confirmed = false;
	}
	if (failed) {
		scheme_warn_pod(w, "BindFailed", pod,
				"%s could not bind the pod (%s is failed): its devices are not counted",
				d->display_name, d->bind_phase_key);
		alloc = NULL;
	}

	if (alloc) {
		if (allocated(d, pod, alloc, key, out, &claims, w) < 0)
			goto oom;
		out->assigned = confirmed && (!d->assigned_needs_bind_success ||
					      (phase && strcmp(phase, "success") == 0));
	} else {
		requested(d, pod, out, w);
		/* On a node but no device list yet: held there, GPU unknown. */
		if (out->node && claim_list_add_containers(&claims, out, pod->ncontainers) < 0)
			goto oom;
	}
	return claim_list_finish(&claims, out);
oom:
	claim_list_release(&claims);
	return -1;
}

void scheme_devices_ask(const struct scheme_devices_desc *d, const struct k8s_pod *pod, struct scheme_pod *out)
{
	out->ask = (struct scheme_ask){.gpus = 1};
	for (size_t i = 0; i < pod->ncontainers; i++) {
		int64_t n = scheme_container_count(&pod->containers[i], d->res_count);
		int64_t mem = out->container_mem ? out->container_mem[i] / n : 0;
		int64_t core = out->container_core ? out->container_core[i] / n : 0;

		if (!mem && !core && !kvlist_get(&pod->containers[i].limits, d->res_count))
			continue;
		if (n > out->ask.gpus)
			out->ask.gpus = (int)n;
		if (mem > out->ask.mem)
			out->ask.mem = mem;
		if (core > out->ask.core)
			out->ask.core = core;
	}
}

int scheme_devices_pod_decode(const struct scheme_devices_desc *d, const struct k8s_pod *pod,
			      struct scheme_pod *out, struct warnings *w)
{
	memset(out, 0, sizeof(*out));
	if (scheme_pod_alloc_containers(pod, out) < 0 || devices_decode(d, pod, out, w) < 0) {
		scheme_pod_release(out);
		return -1;
	}
	scheme_devices_ask(d, pod, out);
	return 1;
}
