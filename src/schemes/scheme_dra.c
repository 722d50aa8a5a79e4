/* Dynamic Resource Allocation devices (scheme_dra.h). */
#include "scheme_dra.h"

#include <stdlib.h>
#include <string.h>

/* NVIDIA's GPU DRA driver, and the names it gives its devices' attributes */
#define DRA_GPU_DRIVER "gpu.nvidia.com"
#define DRA_ATTR_UUID "uuid"
#define DRA_ATTR_PARENT_UUID "parentUUID"
#define DRA_CAPACITY_MEMORY "memory"

static int add_ptr(void ***items, size_t *n, size_t *cap, void *p)
{
	void **v = kube_array_grow(*items, cap, *n + 1, sizeof(*v), 16);

	if (!v)
		return -1;
	*items = v;
	v[(*n)++] = p;
	return 0;
}

int dra_inventory_add_slice(struct dra_inventory *inv, struct k8s_resource_slice *s)
{
	if (add_ptr((void ***)&inv->slices, &inv->nslices, &inv->cap_slices, s) == 0)
		return 0;
	k8s_resource_slice_free(s);
	return -1;
}

int dra_inventory_add_claim(struct dra_inventory *inv, struct k8s_resource_claim *c)
{
	if (add_ptr((void ***)&inv->claims, &inv->nclaims, &inv->cap_claims, c) == 0)
		return 0;
	k8s_resource_claim_free(c);
	return -1;
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
	for (size_t i = 0; i < inv->nclaims; i++)
		k8s_resource_claim_free(inv->claims[i]);
	for (size_t i = 0; i < inv->nclasses; i++)
		k8s_device_class_free(inv->classes[i]);
	free(inv->slices);
	free(inv->claims);
	free(inv->classes);
	free(inv->stale);
	free(inv->incomplete);
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

/* Slice i's pool: its newest generation, and how many slices of it are there. */
static void pool_of(const struct dra_inventory *inv, size_t i, int64_t *gen, int64_t *count, int64_t *want)
{
	*gen = inv->slices[i]->generation;
	for (size_t j = 0; j < inv->nslices; j++)
		if (same_pool(inv->slices[i], inv->slices[j]) && inv->slices[j]->generation > *gen)
			*gen = inv->slices[j]->generation;
	*count = *want = 0;
	for (size_t j = 0; j < inv->nslices; j++)
		if (same_pool(inv->slices[i], inv->slices[j]) && inv->slices[j]->generation == *gen) {
			(*count)++;
			*want = inv->slices[j]->slice_count;
		}
}

/* Whether an earlier slice is of the same pool (its warning said once). */
static bool pool_seen(const struct dra_inventory *inv, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_pool(inv->slices[i], inv->slices[j]))
			return true;
	return false;
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
	/* quadratic in the slices: a thousand slices are a million cheap
	 * comparisons, against the minutes of the lists themselves */
	for (size_t i = 0; i < inv->nslices; i++) {
		const struct k8s_resource_slice *s = inv->slices[i];
		int64_t gen, count, want;

		pool_of(inv, i, &gen, &count, &want);
		inv->stale[i] = s->generation < gen;
		inv->incomplete[i] = count < want;
		if (inv->incomplete[i] && !pool_seen(inv, i))
			warnings_add(w, "IncompletePool", NULL,
				     "pool %s of driver %s: %lld of %lld slices of generation %lld are published",
				     s->pool ? s->pool : "", s->driver ? s->driver : "", (long long)count,
				     (long long)want, (long long)gen);
	}
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
		if (labels && k8s_node_term_match(labels, &s->node_terms[i]))
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

static int64_t quantity_bytes(const char *q)
{
	int64_t v;

	return q && quantity_parse_int(q, &v) == 0 ? v : 0;
}

static bool gpu_driver(const struct dra_inventory *inv, const char *driver)
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
static const struct k8s_dra_config *config_of(const struct k8s_resource_claim *c, const struct k8s_dra_result *r)
{
	const struct k8s_dra_config *best = NULL;

	for (size_t i = 0; i < c->nalloc_configs; i++) {
		const struct k8s_dra_config *k = &c->alloc_configs[i];
		bool applies = k->nrequests == 0;

		for (size_t j = 0; j < k->nrequests && !applies; j++)
			applies = str_eq(k->requests[j], r->request);
		if (!applies || (k->driver && !str_eq(k->driver, r->driver)))
			continue;
		if (!best || str_eq(k->source, "FromClaim"))
			best = k;
	}
	return best;
}

static int use_add(struct dra_device *d, const struct k8s_resource_claim *c, const struct k8s_dra_result *r)
{
	size_t cap = d->nuses;
	struct dra_use *u = kube_array_grow(d->uses, &cap, d->nuses + 1, sizeof(*u), 1);

	if (!u)
		return -1;
	d->uses = u;
	u = &d->uses[d->nuses++];
	u->claim = c;
	u->result = r;
	u->config = config_of(c, r);
	u->mem_bytes = d->dev->allow_multiple ? quantity_bytes(kvlist_get(&r->consumed, DRA_CAPACITY_MEMORY)) : 0;
	d->mem_allocated = d->dev->allow_multiple ? d->mem_allocated + u->mem_bytes : d->mem_bytes;
	return 0;
}

/* The claims' results on the devices found. */
static int uses_join(const struct dra_inventory *inv, struct dra_device *devs, size_t n)
{
	for (size_t c = 0; c < inv->nclaims; c++) {
		const struct k8s_resource_claim *cl = inv->claims[c];

		for (size_t r = 0; r < cl->nresults; r++) {
			const struct k8s_dra_result *res = &cl->results[r];

			for (size_t i = 0; i < n; i++)
				if (str_eq(devs[i].dev->name, res->device) && str_eq(devs[i].slice->pool, res->pool) &&
				    str_eq(devs[i].slice->driver, res->driver) && use_add(&devs[i], cl, res) < 0)
					return -1;
		}
	}
	return 0;
}

/* A MIG device's GPU: the device whose uuid is its parentUUID, else the
 * GPU consuming the same counter set. */
static void parents_find(struct dra_device *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct k8s_dra_value *p = dra_attribute(devs[i].slice, devs[i].dev, DRA_ATTR_PARENT_UUID);

		for (size_t j = 0; j < n && p && p->str && !devs[i].parent; j++) {
			const struct k8s_dra_value *u = dra_attribute(devs[j].slice, devs[j].dev, DRA_ATTR_UUID);

			if (j != i && u && str_eq(u->str, p->str))
				devs[i].parent = devs[j].dev->name;
		}
		for (size_t j = 0; j < n && !p && !devs[i].parent && devs[i].dev->nconsumes; j++)
			if (j != i && devs[j].dev->nconsumes && devs[j].gpu &&
			    !dra_attribute(devs[j].slice, devs[j].dev, DRA_ATTR_PARENT_UUID) &&
			    str_eq(devs[j].dev->consumes[0].name, devs[i].dev->consumes[0].name) &&
			    devs[j].dev->consumes[0].ncounters > devs[i].dev->consumes[0].ncounters)
				devs[i].parent = devs[j].dev->name;
	}
}

int dra_node_devices(const struct dra_inventory *inv, const char *name, const struct kvlist *labels,
		     struct dra_device **ret, size_t *ret_n)
{
	struct dra_device *devs = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < inv->nslices; i++) {
		const struct k8s_resource_slice *s = inv->slices[i];

		if ((inv->stale && inv->stale[i]) || !slice_on_node(s, name, labels))
			continue;
		for (size_t j = 0; j < s->ndevices; j++) {
			struct dra_device *d;
			const struct k8s_dra_value *mem = k8s_dra_value_get(s->devices[j].capacity,
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
			d->mem_bytes = mem ? quantity_bytes(mem->quantity) : 0;
			d->gpu = mem || gpu_driver(inv, s->driver);
		}
	}
	parents_find(devs, n);
	if (uses_join(inv, devs, n) < 0) {
		dra_devices_free(devs, n);
		return -1;
	}
	*ret = devs;
	*ret_n = n;
	return 0;
}

void dra_devices_free(struct dra_device *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].uses);
	free(d);
}
