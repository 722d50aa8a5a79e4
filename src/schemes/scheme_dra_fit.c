/* What a claim of devices is judged against (scheme.h: node_devices,
 * device_class, claim_requests): a node's devices as selectors see them,
 * with the capacity and shared counters their allocations leave. */
#include "scheme_dra.h"

#include <stdlib.h>
#include <string.h>

#define CAPACITY_MEMORY "memory"
#define MIB (INT64_C(1) << 20)

static bool str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int64_t amount_of(const char *q)
{
	int64_t v;

	return q && quantity_parse_int(q, &v) == 0 ? v : 0;
}

static void attr_fill(struct scheme_attr *a, const struct k8s_dra_value *v)
{
	*a = (struct scheme_attr){.name = v->name, .type = SCHEME_ATTR_NONE};
	if (v->has_int)
		a->type = SCHEME_ATTR_INT, a->i = v->i;
	else if (v->has_bool)
		a->type = SCHEME_ATTR_BOOL, a->b = v->b;
	else if (v->has_str)
		a->type = SCHEME_ATTR_STRING, a->s = v->str;
	else if (v->has_version)
		a->type = SCHEME_ATTR_VERSION, a->s = v->version;
}

static void policy_fill(struct scheme_capacity *c, const struct k8s_dra_capacity *v)
{
	c->has_policy = v->policy_default || v->policy_min || v->policy_max || v->policy_step || v->npolicy_values;
	c->policy_values = v->npolicy_values > 0;
	/* a policy without a default takes the whole capacity */
	c->policy_default = v->policy_default ? amount_of(v->policy_default) : c->amount;
	c->policy_min = amount_of(v->policy_min);
	c->policy_max = amount_of(v->policy_max);
	c->policy_step = amount_of(v->policy_step);
}

/* The capacities of d, each less what its allocations consumed where it
 * takes several (memory is the one consumption a folded claim keeps). */
static int caps_fill(struct scheme_device *out, const struct dra_device *d)
{
	const struct k8s_dra_device *k = d->dev;

	if (!k->ncapacity)
		return 0;
	if (!(out->caps = calloc(k->ncapacity, sizeof(*out->caps))))
		return -1;
	out->ncaps = k->ncapacity;
	for (size_t i = 0; i < k->ncapacity; i++) {
		struct scheme_capacity *c = &out->caps[i];
		bool memory = str_eq(k->capacity[i].name, CAPACITY_MEMORY);

		c->name = k->capacity[i].name;
		c->value = k->capacity[i].quantity;
		c->amount = c->left = amount_of(c->value);
		c->left_known = true;
		policy_fill(c, &k->capacity[i]);
		if (!k->allow_multiple || !d->nuses)
			continue;
		if (memory)
			for (size_t u = 0; u < d->nuses; u++)
				c->left -= d->uses[u].mem_bytes;
		else
			c->left_known = false;
	}
	return 0;
}

/* The counter sets of the slices of the node's devices, in one list of
 * counters: their index in *names (set and counter), their totals. */
struct counters {
	const char **set, **name;
	int64_t *left;
	size_t n, cap;
};

static long counter_find(const struct counters *c, const char *set, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (str_eq(c->set[i], set) && str_eq(c->name[i], name))
			return (long)i;
	return -1;
}

static int counter_add(struct counters *c, const char *set, const char *name, int64_t total)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		const char **s = realloc(c->set, cap * sizeof(*s)), **n;
		int64_t *l;

		if (s)
			c->set = s;
		n = s ? realloc(c->name, cap * sizeof(*n)) : NULL;
		if (n)
			c->name = n;
		l = n ? realloc(c->left, cap * sizeof(*l)) : NULL;
		if (!l)
			return -1;
		c->left = l;
		c->cap = cap;
	}
	c->set[c->n] = set;
	c->name[c->n] = name;
	c->left[c->n++] = total;
	return 0;
}

/* The shared counters of every slice the devices come from, once each. */
static int counters_collect(struct counters *c, const struct dra_device *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct k8s_resource_slice *s = devs[i].slice;

		if (i && s == devs[i - 1].slice)
			continue;
		for (size_t k = 0; k < s->ncounter_sets; k++)
			for (size_t j = 0; j < s->counter_sets[k].ncounters; j++) {
				const struct k8s_dra_value *v = &s->counter_sets[k].counters[j];

				if (counter_find(c, s->counter_sets[k].name, v->name) < 0 &&
				    counter_add(c, s->counter_sets[k].name, v->name, amount_of(v->quantity)) < 0)
					return -1;
			}
	}
	return 0;
}

/* What d consumes of the counters, and, when it is in use, taken from them. */
static int consumes_fill(struct scheme_device *out, const struct dra_device *d, struct counters *c)
{
	const struct k8s_dra_device *k = d->dev;
	size_t n = 0;

	for (size_t i = 0; i < k->nconsumes; i++)
		n += k->consumes[i].ncounters;
	if (!n)
		return 0;
	if (!(out->consumes = calloc(n, sizeof(*out->consumes))))
		return -1;
	for (size_t i = 0; i < k->nconsumes; i++)
		for (size_t j = 0; j < k->consumes[i].ncounters; j++) {
			const struct k8s_dra_value *v = &k->consumes[i].counters[j];
			long at = counter_find(c, k->consumes[i].name, v->name);

			/* a counter no slice shares cannot be consumed: none left */
			if (at < 0) {
				if (counter_add(c, k->consumes[i].name, v->name, 0) < 0)
					return -1;
				at = (long)c->n - 1;
			}
			out->consumes[out->nconsumes++] = (struct scheme_counter_use){(size_t)at, amount_of(v->quantity)};
		}
	return 0;
}

static int device_fill(struct scheme_device *out, const struct dra_device *d, struct counters *c)
{
	const struct k8s_dra_device *k = d->dev;

	out->driver = d->slice->driver;
	out->pool = d->slice->pool;
	out->name = k->name;
	out->gpu = d->gpu ? (d->parent ? d->parent : k->name) : NULL;
	out->taints = k->taints;
	out->ntaints = k->ntaints;
	out->allow_multiple = k->allow_multiple;
	out->in_use = d->nuses > 0;
	out->incomplete = d->incomplete;
	out->mem_mib = d->mem_bytes / MIB;
	if (k->nattrs && !(out->attrs = calloc(k->nattrs, sizeof(*out->attrs))))
		return -1;
	out->nattrs = k->nattrs;
	for (size_t i = 0; i < k->nattrs; i++)
		attr_fill(&out->attrs[i], &k->attrs[i]);
	return caps_fill(out, d) < 0 || consumes_fill(out, d, c) < 0 ? -1 : 0;
}

void dra_fit_devices_release(struct scheme_devices *d)
{
	for (size_t i = 0; d->devs && i < d->n; i++) {
		free(d->devs[i].attrs);
		free(d->devs[i].caps);
		free(d->devs[i].consumes);
	}
	free(d->devs);
	free(d->counters_left);
	memset(d, 0, sizeof(*d));
}

int dra_fit_node_devices(const struct scheme_objects *objs, const char *node, const struct kvlist *labels,
			 struct scheme_devices *ret)
{
	struct dra_device *devs = NULL;
	struct counters c = {0};
	size_t n = 0;
	int rc = -1;

	memset(ret, 0, sizeof(*ret));
	if (!objs || !objs->dra || !node)
		return 0;
	if (dra_node_devices(objs->dra, node, labels, &devs, &n) < 0)
		return -1;
	if (n && !(ret->devs = calloc(n, sizeof(*ret->devs))))
		goto out;
	if (counters_collect(&c, devs, n) < 0)
		goto out;
	for (ret->n = 0; ret->n < n; ret->n++)
		if (device_fill(&ret->devs[ret->n], &devs[ret->n], &c) < 0) {
			ret->n++;
			goto out;
		}
	/* what the devices in use consume is gone from their counters */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; ret->devs[i].in_use && j < ret->devs[i].nconsumes; j++)
			c.left[ret->devs[i].consumes[j].counter] -= ret->devs[i].consumes[j].amount;
	ret->counters_left = c.left;
	ret->ncounters = c.n;
	c.left = NULL;
	rc = 0;
out:
	free(c.set);
	free(c.name);
	free(c.left);
	dra_devices_free(devs, n);
	if (rc < 0)
		dra_fit_devices_release(ret);
	return rc;
}

int dra_fit_device_class(const struct scheme_objects *objs, const char *name, const struct k8s_dra_selector **ret,
			 size_t *ret_n)
{
	const struct dra_inventory *inv = objs ? objs->dra : NULL;

	*ret = NULL;
	*ret_n = 0;
	for (size_t i = 0; inv && i < inv->nclasses; i++)
		if (str_eq(inv->classes[i]->name, name)) {
			*ret = inv->classes[i]->selectors;
			*ret_n = inv->classes[i]->nselectors;
			return 1;
		}
	return 0;
}

int dra_fit_claim_requests(const struct scheme_objects *objs, const char *ns, const char *name,
			   const struct k8s_dra_request **ret, size_t *ret_n)
{
	const struct dra_claim *c = objs && objs->dra ? dra_claim_find(objs->dra, ns, name) : NULL;

	*ret = NULL;
	*ret_n = 0;
	if (!c || !c->waiting)
		return 0;
	*ret = c->waiting->requests;
	*ret_n = c->waiting->nrequests;
	return 1;
}
