/* Freeing the resource.k8s.io objects (objects_dra.h). */
#include "objects.h"

#include <stdlib.h>
#include <string.h>

static void values_free(struct k8s_dra_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].str);
		free(v[i].version);
		free(v[i].quantity);
	}
	free(v);
}

static void capacities_free(struct k8s_dra_capacity *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].quantity);
		free(c[i].policy_default);
		free(c[i].policy_min);
		free(c[i].policy_max);
		free(c[i].policy_step);
		for (size_t k = 0; k < c[i].npolicy_values; k++)
			free(c[i].policy_values[k]);
		free(c[i].policy_values);
	}
	free(c);
}

/* The array *items of n elements of size, cut to n (kept as it is when
 * realloc fails: it is only larger than it needs to be). */
static void array_fit(void *items, size_t n, size_t size)
{
	void *p, **at = items;

	if (*at && n && (p = realloc(*at, n * size)))
		*at = p;
}

void k8s_resource_slice_shrink(struct k8s_resource_slice *s)
{
	array_fit(&s->devices, s->ndevices, sizeof(*s->devices));
	for (size_t i = 0; i < s->ndevices; i++) {
		array_fit(&s->devices[i].attrs, s->devices[i].nattrs, sizeof(*s->devices[i].attrs));
		array_fit(&s->devices[i].capacity, s->devices[i].ncapacity, sizeof(*s->devices[i].capacity));
	}
}

static void counters_free(struct k8s_dra_counters *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		values_free(c[i].counters, c[i].ncounters);
	}
	free(c);
}

static void strs_free(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

static void selectors_free(struct k8s_dra_selector *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].expression);
	free(s);
}

static void configs_free(struct k8s_dra_config *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].source);
		strs_free(c[i].requests, c[i].nrequests);
		free(c[i].driver);
		free(c[i].api_version);
		free(c[i].kind);
		free(c[i].strategy);
		free(c[i].interval);
		free(c[i].mps_memory_limit);
	}
	free(c);
}

/* Each string slot of a device's name, attributes and capacities. */
static void device_slots(struct k8s_dra_device *d, void (*fn)(char **slot, void *ud), void *ud)
{
	fn(&d->name, ud);
	for (size_t i = 0; i < d->nattrs; i++) {
		fn(&d->attrs[i].name, ud);
		fn(&d->attrs[i].str, ud);
		fn(&d->attrs[i].version, ud);
		fn(&d->attrs[i].quantity, ud);
	}
	for (size_t i = 0; i < d->ncapacity; i++) {
		struct k8s_dra_capacity *c = &d->capacity[i];

		fn(&c->name, ud);
		fn(&c->quantity, ud);
		fn(&c->policy_default, ud);
		fn(&c->policy_min, ud);
		fn(&c->policy_max, ud);
		fn(&c->policy_step, ud);
		for (size_t k = 0; k < c->npolicy_values; k++)
			fn(&c->policy_values[k], ud);
	}
}

/* What sharing a slice's strings carries from slot to slot. */
struct share_walk {
	const char *(*keep)(void *ud, const char *str);
	void *ud;
	const char **kept;
	size_t n;
	bool failed;
};

static void slot_count(char **slot, void *ud)
{
	(void)slot;
	((struct share_walk *)ud)->n++;
}

static void slot_keep(char **slot, void *ud)
{
	struct share_walk *w = ud;
	const char *k = *slot ? w->keep(w->ud, *slot) : NULL;

	w->failed = w->failed || (*slot && !k);
	w->kept[w->n++] = k;
}

static void slot_swap(char **slot, void *ud)
{
	struct share_walk *w = ud;

	free(*slot);
	*slot = (char *)w->kept[w->n++];
}

/* Each string slot sharing keeps elsewhere: the pool's driver and name,
 * and every device's. */
static void slice_slots(struct k8s_resource_slice *s, void (*fn)(char **slot, void *ud), void *ud)
{
	fn(&s->driver, ud);
	fn(&s->pool, ud);
	for (size_t i = 0; i < s->ndevices; i++)
		device_slots(&s->devices[i], fn, ud);
}

int k8s_resource_slice_share(struct k8s_resource_slice *s, const char *(*keep)(void *ud, const char *str), void *ud)
{
	struct share_walk w = {.keep = keep, .ud = ud};

	if (s->shared_strings)
		return 0;
	slice_slots(s, slot_count, &w);
	if (!(w.kept = calloc(w.n, sizeof(*w.kept))))
		return -1;
	/* every string kept before any is swapped: a failure leaves the slice as it was */
	w.n = 0;
	slice_slots(s, slot_keep, &w);
	if (!w.failed) {
		w.n = 0;
		slice_slots(s, slot_swap, &w);
		s->shared_strings = true;
	}
	free(w.kept);
	return w.failed ? -1 : 0;
}

static void slot_forget(char **slot, void *ud)
{
	(void)ud;
	*slot = NULL;
}

static void device_release(struct k8s_dra_device *d)
{
	free(d->name);
	values_free(d->attrs, d->nattrs);
	capacities_free(d->capacity, d->ncapacity);
	counters_free(d->consumes, d->nconsumes);
	k8s_taints_free(d->taints, d->ntaints);
	free(d->node_name);
}

void k8s_resource_slice_free(struct k8s_resource_slice *s)
{
	if (!s)
		return;
	if (s->shared_strings)
		slice_slots(s, slot_forget, NULL);
	free(s->name);
	free(s->uid);
	free(s->resource_version);
	kvlist_release(&s->labels);
	kvlist_release(&s->annotations);
	free(s->driver);
	free(s->pool);
	free(s->node_name);
	k8s_node_terms_free(s->node_terms, s->nnode_terms);
	for (size_t i = 0; i < s->ndevices; i++)
		device_release(&s->devices[i]);
	free(s->devices);
	counters_free(s->counter_sets, s->ncounter_sets);
	free(s);
}

static void requests_free(struct k8s_dra_request *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].class_name);
		free(r[i].allocation_mode);
		selectors_free(r[i].selectors, r[i].nselectors);
		kvlist_release(&r[i].capacity);
		k8s_tolerations_free(r[i].tolerations, r[i].ntolerations);
	}
	free(r);
}

static void results_free(struct k8s_dra_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].request);
		free(r[i].driver);
		free(r[i].pool);
		free(r[i].device);
		kvlist_release(&r[i].consumed);
	}
	free(r);
}

void k8s_resource_claim_free(struct k8s_resource_claim *c)
{
	if (!c)
		return;
	free(c->namespace);
	free(c->name);
	free(c->resource_version);
	kvlist_release(&c->labels);
	kvlist_release(&c->annotations);
	requests_free(c->requests, c->nrequests);
	configs_free(c->configs, c->nconfigs);
	results_free(c->results, c->nresults);
	configs_free(c->alloc_configs, c->nalloc_configs);
	for (size_t i = 0; i < c->nreserved; i++)
		free(c->reserved[i].name);
	free(c->reserved);
	free(c);
}

void k8s_device_class_free(struct k8s_device_class *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->uid);
	free(c->resource_version);
	kvlist_release(&c->labels);
	kvlist_release(&c->annotations);
	selectors_free(c->selectors, c->nselectors);
	configs_free(c->configs, c->nconfigs);
	free(c->extended_resource);
	free(c);
}

const struct k8s_dra_capacity *k8s_dra_capacity_get(const struct k8s_dra_capacity *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].name && strcmp(c[i].name, name) == 0)
			return &c[i];
	return NULL;
}

const struct k8s_dra_value *k8s_dra_value_get(const struct k8s_dra_value *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].name && strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}
