/* The inventory of DRA objects: slices, claims and classes in, a node's
 * devices out (scheme_dra.h); dra_index.c resolves the pools and indexes
 * them in between. */
#include "scheme_dra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"

static const char *const read_attributes[] = {DRA_ATTR_UUID, DRA_ATTR_PARENT_UUID, DRA_ATTR_PRODUCT, DRA_ATTR_PROFILE,
					       DRA_ATTR_TYPE, NULL};
const struct decode_filter dra_slice_fields = {.attribute_keys = read_attributes, .scheduling = true};
const struct decode_filter dra_slice_fields_full = {.all_attributes = true, .scheduling = true};
const struct decode_filter dra_claim_fields = {0};
const struct decode_filter dra_claim_fields_full = {.scheduling = true};

static int add_ptr(void ***items, size_t *n, size_t *cap, void *p)
{
	void **v = kube_array_grow(*items, cap, *n + 1, sizeof(*v), 16);

	if (!v)
		return -1;
	*items = v;
	v[(*n)++] = p;
	return 0;
}

static const char *slice_string_keep(void *ud, const char *str)
{
	bool oom = false;

	return dra_arena_intern(ud, str, &oom);
}

/* A slice's device strings (attribute names, models, capacities and their
 * policies repeat device after device) are kept once, in the claims' arena. */
int dra_inventory_add_slice(struct dra_inventory *inv, struct k8s_resource_slice *s)
{
	k8s_resource_slice_shrink(s);
	if (k8s_resource_slice_share(s, slice_string_keep, &inv->claim_arena) == 0 &&
	    add_ptr((void ***)&inv->slices, &inv->nslices, &inv->cap_slices, s) == 0)
		return 0;
	k8s_resource_slice_free(s);
	return -1;
}

/* Folded on arrival: the list's objects are freed as they come, and what
 * stays is the little the views read. */
int dra_inventory_add_claim(struct dra_inventory *inv, struct k8s_resource_claim *c)
{
	struct dra_claim *lean = dra_claim_fold(&inv->claim_arena, c);

	/* a claim not allocated is kept whole: what it asks tells why its pods wait */
	if (lean && !c->nresults && c->nrequests && !c->deleting) {
		if (add_ptr((void ***)&inv->waiting, &inv->nwaiting, &inv->cap_waiting, c) < 0) {
			k8s_resource_claim_free(c);
			return -1;
		}
		lean->waiting = c;
		c = NULL;
	}
	k8s_resource_claim_free(c);
	return lean ? add_ptr((void ***)&inv->claims, &inv->nclaims, &inv->cap_claims, lean) : -1;
}

int dra_inventory_add_class(struct dra_inventory *inv, struct k8s_device_class *c)
{
	if (add_ptr((void ***)&inv->classes, &inv->nclasses, &inv->cap_classes, c) == 0)
		return 0;
	k8s_device_class_free(c);
	return -1;
}

void dra_inventory_release(struct dra_inventory *inv)
{
	for (size_t i = 0; i < inv->nslices; i++)
		k8s_resource_slice_free(inv->slices[i]);
	for (size_t i = 0; i < inv->nclasses; i++)
		k8s_device_class_free(inv->classes[i]);
	for (size_t i = 0; i < inv->nwaiting; i++)
		k8s_resource_claim_free(inv->waiting[i]);
	free(inv->waiting);
	free(inv->slices);
	free(inv->claims);
	dra_arena_release(&inv->claim_arena);
	free(inv->classes);
	free(inv->stale);
	free(inv->incomplete);
	free(inv->claim_slots);
	free(inv->index);
	free(inv->slice_entry);
	free(inv->device_slots);
	free(inv->uses);
	free(inv->by_node);
	free(inv->elsewhere);
	memset(inv, 0, sizeof(*inv));
}

static bool str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Whether slice s places its devices on the node. */
static bool slice_on_node(const struct k8s_resource_slice *s, const char *name, const struct kvlist *labels)
{
	if (s->node_name)
		return str_eq(s->node_name, name);
	if (s->all_nodes)
		return true;
	for (size_t i = 0; i < s->nnode_terms; i++)
		if (k8s_node_term_match_node(name, labels, &s->node_terms[i]))
			return true;
	return false;
}

const struct k8s_dra_value *dra_attribute(const struct k8s_resource_slice *s, const struct k8s_dra_device *d,
					  const char *name)
{
	size_t dl = s->driver ? strlen(s->driver) : 0;

	for (size_t i = 0; i < d->nattrs; i++) {
		const char *k = d->attrs[i].name;

		if (!k)
			continue;
		/* a name without a domain is in the driver's */
		if (dl && strncmp(k, s->driver, dl) == 0 && k[dl] == '/')
			k += dl + 1;
		if (strcmp(k, name) == 0)
			return &d->attrs[i];
	}
	return NULL;
}

int64_t dra_quantity_bytes(const char *q)
{
	int64_t v;

	return q && quantity_parse_int(q, &v) == 0 ? v : 0;
}

bool dra_gpu_driver(const struct dra_inventory *inv, const char *driver)
{
	if (str_eq(driver, DRA_GPU_DRIVER))
		return true;
	for (size_t i = 0; inv->gpu_drivers && inv->gpu_drivers[i]; i++)
		if (str_eq(driver, inv->gpu_drivers[i]))
			return true;
	return false;
}

/* The configuration of the claim that applies to result r: FromClaim
 * before FromClass, the result's request named or none. */
const struct dra_sharing *dra_config_of(const struct dra_claim *c, const struct dra_claim_result *r)
{
	const struct dra_sharing *best = NULL;

	for (size_t i = 0; i < c->nconfigs; i++) {
		const struct dra_sharing *k = &c->configs[i];
		bool applies = k->nrequests == 0;

		for (size_t j = 0; j < k->nrequests && !applies; j++)
			applies = str_eq(k->requests[j], r->request);
		if (!applies || (k->driver && !str_eq(k->driver, r->driver)))
			continue;
		if (!best || k->from_claim)
			best = k;
	}
	return best;
}

/* The slices that place devices on node name, in *on (malloc'd): those
 * named for it, then those placed by selector or on all nodes. */
static int node_slices(const struct dra_inventory *inv, const char *name, const struct kvlist *labels, size_t **on,
		       size_t *n)
{
	size_t first = dra_by_node_first(inv, name), named = 0;

	while (first + named < inv->nby_node && str_eq(inv->by_node[first + named].node, name))
		named++;
	*n = 0;
	if (!(*on = malloc((named + inv->nelsewhere + 1) * sizeof(**on))))
		return -1;
	for (size_t k = 0; k < named; k++)
		(*on)[(*n)++] = inv->by_node[first + k].slice;
	for (size_t k = 0; k < inv->nelsewhere; k++)
		if (slice_on_node(inv->slices[inv->elsewhere[k]], name, labels))
			(*on)[(*n)++] = inv->elsewhere[k];
	return 0;
}

/* The node's devices from their index entries, and each one's uses, in one block. */
static struct dra_device *devices_of(const struct dra_inventory *inv, const size_t *on, size_t non, size_t *ret_n)
{
	size_t ndev = 0, nuse = 0, n = 0;
	struct dra_device *devs;
	struct dra_use *uses;

	for (size_t k = 0; k < non; k++) {
		const struct dra_index_entry *e = &inv->index[inv->slice_entry[on[k]]];

		ndev += inv->slices[on[k]]->ndevices;
		for (size_t j = 0; j < inv->slices[on[k]]->ndevices; j++)
			nuse += e[j].nuses;
	}
	if (!(devs = malloc(ndev * sizeof(*devs) + nuse * sizeof(*uses) + 1)))
		return NULL;
	uses = (struct dra_use *)(void *)(devs + ndev);
	for (size_t k = 0; k < non; k++) {
		const struct k8s_resource_slice *s = inv->slices[on[k]];
		const struct dra_index_entry *e = &inv->index[inv->slice_entry[on[k]]];

		for (size_t j = 0; j < s->ndevices; j++, e++, n++) {
			devs[n] = (struct dra_device){.slice = s, .dev = e->dev,
						      .gpu = e->has_memory || dra_gpu_driver(inv, s->driver),
						      .incomplete = e->incomplete, .parent = e->parent,
						      .mem_bytes = e->mem_bytes, .uses = uses, .nuses = e->nuses};
			for (size_t u = 0; u < e->nuses; u++) {
				const struct dra_result_ref *r = &inv->uses[e->first_use + u];

				*uses++ = (struct dra_use){r->claim, r->result, dra_config_of(r->claim, r->result),
							   e->dev->allow_multiple ? r->result->mem_consumed : 0};
			}
		}
	}
	*ret_n = n;
	return devs;
}

int dra_node_devices(const struct dra_inventory *inv, const char *name, const struct kvlist *labels,
		     struct dra_device **ret, size_t *ret_n)
{
	size_t *on, non;

	if (node_slices(inv, name, labels, &on, &non) < 0)
		return -1;
	*ret = devices_of(inv, on, non, ret_n);
	free(on);
	return *ret ? 0 : -1;
}

void dra_devices_free(struct dra_device *d, size_t n)
{
	(void)n;
	free(d);
}
