/* dra_inventory_finish (scheme_dra.h): the pools resolved, and the
 * indexes the views read the inventory through: the claims by namespace
 * and name, the devices of the newest generations by driver, pool and
 * name (with their MIG parents and GPU ids, and the claims' results on
 * them), and the slices by the node they name.
 *
 * Every string a device is found by is kept once in the claims' arena
 * (dra_claim.h, and k8s_resource_slice_share): a result names its device by
 * the same three pointers the device is indexed under, so joining 20,000
 * results to their devices compares no text. */
#include "scheme_dra.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Strings kept once are equal when they are the same: the sorts compare
 * many without reading them. */
static int strcmp0(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a ? a : "", b ? b : "");
}

static bool same_pool(const struct k8s_resource_slice *a, const struct k8s_resource_slice *b)
{
	return str_eq(a->driver, b->driver) && str_eq(a->pool, b->pool);
}

/* Open addressing, 1 + an item's place in each slot (0: none): a power of
 * two at least half as long again as n. */
static uint32_t *slots_new(size_t n, size_t *cap)
{
	*cap = 16;
	while (*cap < n + n / 2)
		*cap *= 2;
	return n < UINT32_MAX ? calloc(*cap, sizeof(uint32_t)) : NULL;
}

static size_t text_hash(size_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL; /* "a" "bc" and "ab" "c" apart */
}

static size_t ptr_hash(size_t h, const void *p)
{
	h = (h ^ (uintptr_t)p) * 1099511628211ULL;
	return h ^ (h >> 29);
}

#define HASH_SEED 14695981039346656037ULL

/* --- pools ---------------------------------------------------------------------- */

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

static int pools_resolve(struct dra_inventory *inv, struct warnings *w)
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
	return 0;
}

/* --- claims ----------------------------------------------------------------------- */

static int claim_cmp(const void *x, const void *y)
{
	const struct dra_claim *a = *(const struct dra_claim *const *)x;
	const struct dra_claim *b = *(const struct dra_claim *const *)y;
	int c = strcmp0(a->namespace, b->namespace);

	return c ? c : strcmp0(a->name, b->name);
}

static size_t claim_hash(const char *ns, const char *name)
{
	return text_hash(text_hash(HASH_SEED, ns), name);
}

/* The claims by namespace and name (as the API server lists them, most
 * often already), and found by them. */
static int claims_index(struct dra_inventory *inv)
{
	bool sorted = true;

	for (size_t i = 1; i < inv->nclaims && sorted; i++)
		sorted = claim_cmp(&inv->claims[i - 1], &inv->claims[i]) <= 0;
	if (!sorted)
		qsort(inv->claims, inv->nclaims, sizeof(*inv->claims), claim_cmp);
	free(inv->claim_slots);
	if (!(inv->claim_slots = slots_new(inv->nclaims, &inv->cap_claim_slots)))
		return -1;
	for (size_t i = 0; i < inv->nclaims; i++) {
		size_t j = claim_hash(inv->claims[i]->namespace, inv->claims[i]->name) & (inv->cap_claim_slots - 1);

		while (inv->claim_slots[j])
			j = (j + 1) & (inv->cap_claim_slots - 1);
		inv->claim_slots[j] = (uint32_t)(i + 1);
	}
	return 0;
}

const struct dra_claim *dra_claim_find(const struct dra_inventory *inv, const char *ns, const char *name)
{
	size_t mask = inv->cap_claim_slots - 1;

	if (!inv->claim_slots || !name)
		return NULL;
	for (size_t j = claim_hash(ns, name) & mask; inv->claim_slots[j]; j = (j + 1) & mask) {
		const struct dra_claim *c = inv->claims[inv->claim_slots[j] - 1];

		if (strcmp0(c->namespace, ns) == 0 && strcmp0(c->name, name) == 0)
			return c;
	}
	return NULL;
}

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

/* --- devices ---------------------------------------------------------------------- */

/* driver, pool and name as kept once. */
static size_t device_hash(const char *driver, const char *pool, const char *name)
{
	return ptr_hash(ptr_hash(ptr_hash(HASH_SEED, driver), pool), name);
}

/* The device named by the strings kept once driver, pool and name; NULL
 * when none. */
static struct dra_index_entry *device_lookup(const struct dra_inventory *inv, const char *driver, const char *pool,
					     const char *name)
{
	size_t mask = inv->cap_device_slots - 1;

	if (!inv->device_slots || !driver || !pool || !name)
		return NULL;
	for (size_t j = device_hash(driver, pool, name) & mask; inv->device_slots[j]; j = (j + 1) & mask) {
		struct dra_index_entry *e = &inv->index[inv->device_slots[j] - 1];

		if (e->slice->driver == driver && e->slice->pool == pool && e->dev->name == name)
			return e;
	}
	return NULL;
}

const struct dra_index_entry *dra_device_find(const struct dra_inventory *inv, const char *driver, const char *pool,
					      const char *device)
{
	const struct dra_arena *a = &inv->claim_arena;

	return device_lookup(inv, dra_arena_find(a, driver), dra_arena_find(a, pool), dra_arena_find(a, device));
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
	/* the cheap tests first: a pool's devices are tried in pairs */
	if (!d->nconsumes || !pd->nconsumes || !str_eq(pd->consumes[0].name, d->consumes[0].name) ||
	    dra_attribute(ps, pd, DRA_ATTR_PARENT_UUID))
		return false;
	if ((dtype = dra_attribute(s, d, DRA_ATTR_TYPE)) && str_eq(dtype->str, DRA_TYPE_GPU))
		return false;
	if ((ptype = dra_attribute(ps, pd, DRA_ATTR_TYPE)))
		return str_eq(ptype->str, DRA_TYPE_GPU);
	return pd->consumes[0].ncounters > d->consumes[0].ncounters;
}

/* The MIG parents within each pool (its entries are next to each other):
 * only a device with a parentUUID or consuming counters has one. */
static void index_parents(struct dra_inventory *inv)
{
	for (size_t i = 0; i < inv->nindex; i++) {
		struct dra_index_entry *e = &inv->index[i];
		size_t lo = i, hi = i;

		if (!e->dev->nconsumes && !dra_attribute(e->slice, e->dev, DRA_ATTR_PARENT_UUID))
			continue;
		while (lo > 0 && inv->index[lo - 1].slice->pool == e->slice->pool &&
		       inv->index[lo - 1].slice->driver == e->slice->driver)
			lo--;
		while (hi + 1 < inv->nindex && inv->index[hi + 1].slice->pool == e->slice->pool &&
		       inv->index[hi + 1].slice->driver == e->slice->driver)
			hi++;
		for (size_t j = lo; j <= hi && !e->parent; j++)
			if (is_parent(inv->index[j].slice, inv->index[j].dev, e->slice, e->dev))
				e->parent = inv->index[j].dev->name;
	}
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

/* An entry for every device of slice i. */
static void slice_entries(struct dra_inventory *inv, size_t i)
{
	const struct k8s_resource_slice *s = inv->slices[i];

	inv->slice_entry[i] = inv->nindex;
	for (size_t j = 0; j < s->ndevices; j++) {
		const struct k8s_dra_device *d = &s->devices[j];
		const struct k8s_dra_capacity *mem = k8s_dra_capacity_get(d->capacity, d->ncapacity, DRA_CAPACITY_MEMORY);

		inv->index[inv->nindex++] = (struct dra_index_entry){
			.slice = s, .dev = d, .incomplete = inv->incomplete[i], .has_memory = mem != NULL,
			.mem_bytes = mem ? dra_quantity_bytes(mem->quantity) : 0};
	}
}

/* The devices of the newest generations, in the slices' order (a pool's
 * side by side), and found by driver, pool and name. */
static int devices_index(struct dra_inventory *inv)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->nslices; i++)
		n += inv->stale[i] ? 0 : inv->slices[i]->ndevices;
	free(inv->index);
	free(inv->slice_entry);
	free(inv->device_slots);
	inv->nindex = 0;
	inv->index = calloc(n ? n : 1, sizeof(*inv->index));
	inv->slice_entry = malloc((inv->nslices ? inv->nslices : 1) * sizeof(size_t));
	inv->device_slots = slots_new(n, &inv->cap_device_slots);
	if (!inv->index || !inv->slice_entry || !inv->device_slots)
		return -1;
	for (size_t i = 0; i < inv->nslices; i++) {
		inv->slice_entry[i] = SIZE_MAX;
		if (!inv->stale[i])
			slice_entries(inv, i);
	}
	for (size_t i = 0; i < inv->nindex; i++) {
		const struct dra_index_entry *e = &inv->index[i];
		size_t j = device_hash(e->slice->driver, e->slice->pool, e->dev->name) & (inv->cap_device_slots - 1);

		while (inv->device_slots[j])
			j = (j + 1) & (inv->cap_device_slots - 1);
		inv->device_slots[j] = (uint32_t)(i + 1);
	}
	index_parents(inv);
	return index_gpu_ids(inv);
}

/* Every claim's results joined to the devices they name: each device's
 * in one run of inv->uses, in the claims' order. */
static int uses_index(struct dra_inventory *inv)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->nclaims; i++)
		for (size_t j = 0; j < inv->claims[i]->nresults; j++) {
			struct dra_claim_result *r = &inv->claims[i]->results[j];
			struct dra_index_entry *e = device_lookup(inv, r->driver, r->pool, r->device);

			r->entry = e;
			n += e != NULL;
			if (e)
				e->nuses++;
		}
	free(inv->uses);
	if (n >= UINT32_MAX || !(inv->uses = malloc((n ? n : 1) * sizeof(*inv->uses))))
		return -1;
	for (size_t i = 0, at = 0; i < inv->nindex; i++) {
		inv->index[i].first_use = (uint32_t)at;
		at += inv->index[i].nuses;
		inv->index[i].nuses = 0;
	}
	for (size_t i = 0; i < inv->nclaims; i++)
		for (size_t j = 0; j < inv->claims[i]->nresults; j++) {
			const struct dra_claim_result *r = &inv->claims[i]->results[j];
			struct dra_index_entry *e;

			if (!r->entry)
				continue;
			e = &inv->index[r->entry - inv->index];
			inv->uses[e->first_use + e->nuses++] = (struct dra_result_ref){inv->claims[i], r};
		}
	return 0;
}

/* --- nodes --------------------------------------------------------------------------- */

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

size_t dra_by_node_first(const struct dra_inventory *inv, const char *name)
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

int dra_inventory_finish(struct dra_inventory *inv, struct warnings *w)
{
	if (pools_resolve(inv, w) < 0 || claims_index(inv) < 0 || devices_index(inv) < 0 || uses_index(inv) < 0 ||
	    nodes_index(inv) < 0)
		return -1;
	leaked_claims(inv, w);
	return 0;
}
