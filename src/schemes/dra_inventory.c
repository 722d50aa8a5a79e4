/* The inventory of DRA objects: slices, claims and classes in, the pools
 * resolved and indexed, a node's devices out (scheme_dra.h). */
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
	free(inv->results);
	free(inv->classes);
	free(inv->stale);
	free(inv->incomplete);
	free(inv->index);
	free(inv->by_node);
	free(inv->elsewhere);
	memset(inv, 0, sizeof(*inv));
}

static bool str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static bool same_pool(const struct k8s_resource_slice *a, const struct k8s_resource_slice *b)
{
	return str_eq(a->driver, b->driver) && str_eq(a->pool, b->pool);
}

static int strcmp0(const char *a, const char *b);

/* Slices by driver, pool and generation: a pool's slices side by side,
 * its newest generation last. */
static int slice_cmp(const void *x, const void *y)
{
	const struct k8s_resource_slice *a = *(const struct k8s_resource_slice *const *)x;
	const struct k8s_resource_slice *b = *(const struct k8s_resource_slice *const *)y;
	int c = strcmp0(a->driver, b->driver);

	if (!c)
		c = strcmp0(a->pool, b->pool);
	if (!c)
		c = a->generation < b->generation ? -1 : a->generation > b->generation;
	return c ? c : strcmp0(a->name, b->name);
}

/* The pool of slices lo..hi-1 (its newest generation last): the older
 * generations are stale, the newest incomplete when slices of it are
 * missing (warned once). */
static void pool_mark(struct dra_inventory *inv, size_t lo, size_t hi, struct warnings *w)
{
	const struct k8s_resource_slice *s = inv->slices[hi - 1];
	int64_t count = 0;

	for (size_t i = lo; i < hi; i++) {
		inv->stale[i] = inv->slices[i]->generation < s->generation;
		count += !inv->stale[i];
	}
	for (size_t i = lo; i < hi; i++)
		inv->incomplete[i] = !inv->stale[i] && count < s->slice_count;
	if (count < s->slice_count)
		warnings_add(w, "IncompletePool", NULL,
			     "pool %s of driver %s: %lld of %lld slices of generation %lld are published",
			     s->pool ? s->pool : "", s->driver ? s->driver : "", (long long)count,
			     (long long)s->slice_count, (long long)s->generation);
}

static int index_build(struct dra_inventory *inv);

/* A claim allocated but reserved for no pod holds its devices for nobody:
 * the pod that used it is gone and whoever made it did not delete it. */
static void leaked_claims(const struct dra_inventory *inv, struct warnings *w)
{
	for (size_t i = 0; i < inv->nclaims; i++) {
		const struct dra_claim *c = inv->claims[i];
		char obj[512];

		if (!c->nresults || c->nreserved || c->deleting)
			continue;
		snprintf(obj, sizeof(obj), "resourceclaim/%s/%s", c->namespace ? c->namespace : "",
			 c->name ? c->name : "");
		warnings_add(w, "LeakedClaim", obj,
			     "claim %s/%s holds %zu device%s (first %s/%s) and is reserved for no pod",
			     c->namespace ? c->namespace : "", c->name ? c->name : "", c->nresults,
			     c->nresults == 1 ? "" : "s", c->results[0].pool ? c->results[0].pool : "",
			     c->results[0].device ? c->results[0].device : "");
	}
}

int dra_inventory_finish(struct dra_inventory *inv, struct warnings *w)
{
	size_t n = inv->nslices ? inv->nslices : 1;
	free(inv->stale);
	free(inv->incomplete);
	inv->stale = calloc(n, sizeof(bool));
	inv->incomplete = calloc(n, sizeof(bool));
	if (!inv->stale || !inv->incomplete)
		return -1;
	if (inv->nslices)
		qsort(inv->slices, inv->nslices, sizeof(*inv->slices), slice_cmp);
	for (size_t lo = 0, hi; lo < inv->nslices; lo = hi) {
		for (hi = lo + 1; hi < inv->nslices && same_pool(inv->slices[lo], inv->slices[hi]); hi++)
			;
		pool_mark(inv, lo, hi, w);
	}
	if (index_build(inv) < 0)
		return -1;
	leaked_claims(inv, w);
	return 0;
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

static int use_add(struct dra_device *d, const struct dra_claim *c, const struct dra_claim_result *r)
{
	size_t cap = d->nuses;
	struct dra_use *u = kube_array_grow(d->uses, &cap, d->nuses + 1, sizeof(*u), 1);

	if (!u)
		return -1;
	d->uses = u;
	u = &d->uses[d->nuses++];
	u->claim = c;
	u->result = r;
	u->config = dra_config_of(c, r);
	u->mem_bytes = d->dev->allow_multiple ? r->mem_consumed : 0;
	d->mem_allocated = d->dev->allow_multiple ? d->mem_allocated + u->mem_bytes : d->mem_bytes;
	return 0;
}

static size_t results_first(const struct dra_inventory *inv, const char *driver, const char *pool,
			    const char *device);
static bool result_is(const struct dra_claim_result *r, const char *driver, const char *pool, const char *device);

/* The claims' results on the devices found, from the index of results by
 * device (in the claims' order for one device). */
static int uses_join(const struct dra_inventory *inv, struct dra_device *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *driver = devs[i].slice->driver, *pool = devs[i].slice->pool, *name = devs[i].dev->name;

		if (!driver || !pool || !name)
			continue;
		for (size_t k = results_first(inv, driver, pool, name);
		     k < inv->nresults && result_is(inv->results[k].result, driver, pool, name); k++)
			if (use_add(&devs[i], inv->results[k].claim, inv->results[k].result) < 0)
				return -1;
	}
	return 0;
}

/* Whether device pd of slice ps is the GPU of the MIG device d of slice
 * s: the device whose uuid is d's parentUUID, or, where d names none, the
 * device of the same counter set that is a GPU (its type attribute says
 * so, or without one it consumes more of the set: a GPU consumes all of
 * it, a partition a part). */
static bool is_parent(const struct k8s_resource_slice *ps, const struct k8s_dra_device *pd,
		      const struct k8s_resource_slice *s, const struct k8s_dra_device *d)
{
	const struct k8s_dra_value *p, *u, *ptype, *dtype;

	if (pd == d || !same_pool(ps, s))
		return false;
	if ((p = dra_attribute(s, d, DRA_ATTR_PARENT_UUID))) {
		u = dra_attribute(ps, pd, DRA_ATTR_UUID);
		return p->str && u && str_eq(u->str, p->str);
	}
	/* the cheap tests first: a node's devices are tried in pairs */
	if (!d->nconsumes || !pd->nconsumes || !str_eq(pd->consumes[0].name, d->consumes[0].name) ||
	    dra_attribute(ps, pd, DRA_ATTR_PARENT_UUID))
		return false;
	if ((dtype = dra_attribute(s, d, DRA_ATTR_TYPE)) && str_eq(dtype->str, DRA_TYPE_GPU))
		return false;
	if ((ptype = dra_attribute(ps, pd, DRA_ATTR_TYPE)))
		return str_eq(ptype->str, DRA_TYPE_GPU);
	return pd->consumes[0].ncounters > d->consumes[0].ncounters;
}

/* The MIG devices' GPUs among a node's devices: only a device with a
 * parentUUID or consuming counters has one. */
static void parents_find(struct dra_device *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!devs[i].dev->nconsumes && !dra_attribute(devs[i].slice, devs[i].dev, DRA_ATTR_PARENT_UUID))
			continue;
		for (size_t j = 0; j < n && !devs[i].parent; j++)
			if (is_parent(devs[j].slice, devs[j].dev, devs[i].slice, devs[i].dev))
				devs[i].parent = devs[j].dev->name;
	}
}

/* The first of the slices named for one node whose node is name or after. */
static size_t by_node_first(const struct dra_inventory *inv, const char *name)
{
	size_t lo = 0, hi = inv->nby_node;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp0(inv->by_node[mid].node, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dra_node_devices_only(const struct dra_inventory *inv, const char *name, const struct kvlist *labels,
			  struct dra_device **ret, size_t *ret_n)
{
	struct dra_device *devs = NULL;
	size_t n = 0, cap = 0, first = by_node_first(inv, name), named = 0;

	/* the slices named for the node, then those placed by selector or on all nodes */
	while (first + named < inv->nby_node && str_eq(inv->by_node[first + named].node, name))
		named++;
	for (size_t k = 0; k < named + inv->nelsewhere; k++) {
		size_t i = k < named ? inv->by_node[first + k].slice : inv->elsewhere[k - named];
		const struct k8s_resource_slice *s = inv->slices[i];

		if (k >= named && !slice_on_node(s, name, labels))
			continue;
		for (size_t j = 0; j < s->ndevices; j++) {
			struct dra_device *d;
			const struct k8s_dra_capacity *mem = k8s_dra_capacity_get(s->devices[j].capacity,
										   s->devices[j].ncapacity, DRA_CAPACITY_MEMORY);

			if (!(d = kube_array_grow(devs, &cap, n + 1, sizeof(*d), 8))) {
				dra_devices_free(devs, n);
				return -1;
			}
			devs = d;
			d = &devs[n++];
			memset(d, 0, sizeof(*d));
			d->slice = s;
			d->dev = &s->devices[j];
			d->incomplete = inv->incomplete && inv->incomplete[i];
			d->mem_bytes = mem ? dra_quantity_bytes(mem->quantity) : 0;
			d->gpu = mem || dra_gpu_driver(inv, s->driver);
		}
	}
	parents_find(devs, n);
	*ret = devs;
	*ret_n = n;
	return 0;
}

int dra_node_devices(const struct dra_inventory *inv, const char *name, const struct kvlist *labels,
		     struct dra_device **ret, size_t *ret_n)
{
	if (dra_node_devices_only(inv, name, labels, ret, ret_n) < 0)
		return -1;
	if (uses_join(inv, *ret, *ret_n) < 0) {
		dra_devices_free(*ret, *ret_n);
		return -1;
	}
	return 0;
}

void dra_devices_free(struct dra_device *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].uses);
	free(d);
}

/* --- the indexes of dra_inventory_finish ------------------------------------ */

/* Strings kept once (dra_arena_intern) are equal when they are the same:
 * the sorts compare many, without reading them. */
static int strcmp0(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a ? a : "", b ? b : "");
}

static int claim_cmp(const void *x, const void *y)
{
	const struct dra_claim *a = *(const struct dra_claim *const *)x;
	const struct dra_claim *b = *(const struct dra_claim *const *)y;
	int c = strcmp0(a->namespace, b->namespace);

	return c ? c : strcmp0(a->name, b->name);
}

static int entry_key_cmp(const char *driver, const char *pool, const char *device, const struct dra_index_entry *e)
{
	int c = strcmp0(driver, e->slice->driver);

	if (!c)
		c = strcmp0(pool, e->slice->pool);
	return c ? c : strcmp0(device, e->dev->name);
}

static int entry_cmp(const void *x, const void *y)
{
	const struct dra_index_entry *a = x, *b = y;

	return entry_key_cmp(a->slice->driver, a->slice->pool, a->dev->name, b);
}

const struct dra_claim *dra_claim_find(const struct dra_inventory *inv, const char *ns, const char *name)
{
	struct dra_claim key = {.namespace = ns, .name = name}, *kp = &key;
	struct dra_claim **hit;

	if (!inv->nclaims)
		return NULL;
	hit = bsearch(&kp, inv->claims, inv->nclaims, sizeof(*inv->claims), claim_cmp);
	return hit ? *hit : NULL;
}

const struct dra_index_entry *dra_device_find(const struct dra_inventory *inv, const char *driver, const char *pool,
					      const char *device)
{
	size_t lo = 0, hi = inv->nindex;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = entry_key_cmp(driver, pool, device, &inv->index[mid]);

		if (!c)
			return &inv->index[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The MIG parents within each pool (its entries are next to each other). */
static void index_parents(struct dra_inventory *inv)
{
	for (size_t i = 0; i < inv->nindex; i++) {
		struct dra_index_entry *e = &inv->index[i];
		size_t lo = i, hi = i;

		if (!e->dev->nconsumes && !dra_attribute(e->slice, e->dev, DRA_ATTR_PARENT_UUID))
			continue;
		while (lo > 0 && same_pool(inv->index[lo - 1].slice, e->slice))
			lo--;
		while (hi + 1 < inv->nindex && same_pool(inv->index[hi + 1].slice, e->slice))
			hi++;
		for (size_t j = lo; j <= hi && !e->parent; j++)
			if (is_parent(inv->index[j].slice, inv->index[j].dev, e->slice, e->dev))
				e->parent = inv->index[j].dev->name;
	}
}

/* By node, and in the slices' order for one node. */
static int by_node_cmp(const void *x, const void *y)
{
	const struct dra_node_slice *a = x, *b = y;
	int c = strcmp0(a->node, b->node);

	return c ? c : (a->slice > b->slice) - (a->slice < b->slice);
}

/* The newest slices by the node they name, and the others. */
static int nodes_index(struct dra_inventory *inv)
{
	size_t n = inv->nslices ? inv->nslices : 1;

	free(inv->by_node);
	free(inv->elsewhere);
	inv->nby_node = inv->nelsewhere = 0;
	inv->by_node = malloc(n * sizeof(*inv->by_node));
	inv->elsewhere = malloc(n * sizeof(size_t));
	if (!inv->by_node || !inv->elsewhere)
		return -1;
	for (size_t i = 0; i < inv->nslices; i++) {
		if (inv->stale[i])
			continue;
		if (inv->slices[i]->node_name)
			inv->by_node[inv->nby_node++] = (struct dra_node_slice){inv->slices[i]->node_name, i};
		else
			inv->elsewhere[inv->nelsewhere++] = i;
	}
	qsort(inv->by_node, inv->nby_node, sizeof(*inv->by_node), by_node_cmp);
	return 0;
}

static bool result_is(const struct dra_claim_result *r, const char *driver, const char *pool, const char *device)
{
	return str_eq(r->driver, driver) && str_eq(r->pool, pool) && str_eq(r->device, device);
}

static int result_key_cmp(const char *driver, const char *pool, const char *device, const struct dra_claim_result *r)
{
	int c = strcmp0(driver, r->driver);

	if (!c)
		c = strcmp0(pool, r->pool);
	return c ? c : strcmp0(device, r->device);
}

/* By device, and in the claims' order (namespace, name) for one device. */
static int result_ref_cmp(const void *x, const void *y)
{
	const struct dra_result_ref *a = x, *b = y;
	int c = result_key_cmp(a->result->driver, a->result->pool, a->result->device, b->result);

	if (!c)
		c = claim_cmp(&a->claim, &b->claim);
	/* a claim's own results on one device in its order */
	return c ? c : (a->result > b->result) - (a->result < b->result);
}

/* The first result on driver/pool/device or after it. */
static size_t results_first(const struct dra_inventory *inv, const char *driver, const char *pool, const char *device)
{
	size_t lo = 0, hi = inv->nresults;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (result_key_cmp(driver, pool, device, inv->results[mid].result) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every claim's results, by the device they name. */
static int results_index(struct dra_inventory *inv)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->nclaims; i++)
		n += inv->claims[i]->nresults;
	free(inv->results);
	inv->nresults = 0;
	if (!(inv->results = malloc((n ? n : 1) * sizeof(*inv->results))))
		return -1;
	for (size_t i = 0; i < inv->nclaims; i++)
		for (size_t j = 0; j < inv->claims[i]->nresults; j++)
			inv->results[inv->nresults++] = (struct dra_result_ref){inv->claims[i], &inv->claims[i]->results[j]};
	if (inv->nresults)
		qsort(inv->results, inv->nresults, sizeof(*inv->results), result_ref_cmp);
	return 0;
}

char *dra_gpu_id(const struct k8s_resource_slice *s, const char *name)
{
	char *id = NULL;

	if (s->node_name && str_eq(s->pool, s->node_name))
		return strdup(name ? name : "");
	return asprintf(&id, "%s/%s", s->pool ? s->pool : "", name ? name : "") < 0 ? NULL : id;
}

/* The GPU ids the claims name, kept once each with the claims' strings. */
static int index_gpu_ids(struct dra_inventory *inv)
{
	bool oom = false;

	for (size_t i = 0; i < inv->nindex && !oom; i++) {
		struct dra_index_entry *e = &inv->index[i];
		const char *name = e->parent ? e->parent : e->dev->name;
		char *id;

		if (e->slice->node_name && str_eq(e->slice->pool, e->slice->node_name)) {
			e->gpu_id = name;
			continue;
		}
		if (!(id = dra_gpu_id(e->slice, name)))
			return -1;
		e->gpu_id = dra_arena_intern(&inv->claim_arena, id, &oom);
		free(id);
	}
	return oom ? -1 : 0;
}

static int index_build(struct dra_inventory *inv)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->nslices; i++)
		n += inv->stale[i] ? 0 : inv->slices[i]->ndevices;
	free(inv->index);
	inv->nindex = 0;
	if (!(inv->index = calloc(n ? n : 1, sizeof(*inv->index))))
		return -1;
	for (size_t i = 0; i < inv->nslices; i++)
		for (size_t j = 0; !inv->stale[i] && j < inv->slices[i]->ndevices; j++)
			inv->index[inv->nindex++] = (struct dra_index_entry){
				inv->slices[i], &inv->slices[i]->devices[j], NULL, inv->incomplete[i], NULL};
	qsort(inv->index, inv->nindex, sizeof(*inv->index), entry_cmp);
	index_parents(inv);
	if (index_gpu_ids(inv) < 0 || nodes_index(inv) < 0)
		return -1;
	if (inv->nclaims)
		qsort(inv->claims, inv->nclaims, sizeof(*inv->claims), claim_cmp);
	return results_index(inv);
}
