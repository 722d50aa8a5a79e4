/* Which nodes a change of the DRA inventory touches: see scheme_dra_changes.h. */
#include "scheme_dra_changes.h"

#include <stdlib.h>
#include <string.h>

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int strcmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* A node touched (NULL: every node). */
static int touch(struct dra_changes *c, const char *node)
{
	char **nn;

	if (c->all)
		return 0;
	if (!node || c->n >= DRA_CHANGES_MAX_NODES) {
		c->all = true;
		return 0;
	}
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->nodes[i], node) == 0)
			return 0;
	if (!(nn = kube_array_grow(c->nodes, &c->cap, c->n + 1, sizeof(*nn), 16)))
		return -1;
	c->nodes = nn;
	if (!(c->nodes[c->n] = strdup(node)))
		return -1;
	c->n++;
	return 0;
}

/* The node of the slice that publishes a device (NULL: every node). */
static const char *slice_node(const struct k8s_resource_slice *s)
{
	return s && !s->all_nodes && !s->per_device_nodes ? s->node_name : NULL;
}

/* The nodes of the devices a claim holds, as inv places them. */
static int touch_claim(struct dra_changes *c, const struct dra_inventory *inv, const struct dra_claim *cl)
{
	for (size_t i = 0; cl && i < cl->nresults; i++) {
		const struct dra_claim_result *r = &cl->results[i];
		const struct dra_index_entry *e = inv ? dra_device_find(inv, r->driver, r->pool, r->device) : NULL;

		if (touch(c, e ? slice_node(e->slice) : NULL) < 0)
			return -1;
	}
	return 0;
}

static int claims_changed(struct dra_changes *c, const struct dra_inventory *old, const struct dra_inventory *now)
{
	for (size_t i = 0; i < now->nclaims && !c->all; i++) {
		const struct dra_claim *cl = now->claims[i];
		const struct dra_claim *was = dra_claim_find(old, cl->namespace, cl->name);

		if (was && same(was->resource_version, cl->resource_version))
			continue;
		if (touch_claim(c, old, was) < 0 || touch_claim(c, now, cl) < 0)
			return -1;
	}
	for (size_t i = 0; i < old->nclaims && !c->all; i++)
		if (!dra_claim_find(now, old->claims[i]->namespace, old->claims[i]->name) &&
		    touch_claim(c, old, old->claims[i]) < 0)
			return -1;
	return 0;
}

/* The slice of that name in inv, or NULL (slices are few: one per pool
 * and node at most, so a scan is cheap beside the claims). */
static const struct k8s_resource_slice *slice_named(const struct dra_inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->nslices; i++)
		if (same(inv->slices[i]->name, name))
			return inv->slices[i];
	return NULL;
}

/* Every node of the pool of slice s, in inv. */
static int touch_pool(struct dra_changes *c, const struct dra_inventory *inv, const struct k8s_resource_slice *s)
{
	for (size_t i = 0; i < inv->nslices && !c->all; i++) {
		const struct k8s_resource_slice *o = inv->slices[i];

		if (strcmp0(o->driver, s->driver) == 0 && strcmp0(o->pool, s->pool) == 0 && touch(c, slice_node(o)) < 0)
			return -1;
	}
	return 0;
}

/* A slice of a that b lacks or holds in another version. */
static int slices_changed(struct dra_changes *c, const struct dra_inventory *a, const struct dra_inventory *b)
{
	for (size_t i = 0; i < a->nslices && !c->all; i++) {
		const struct k8s_resource_slice *s = a->slices[i], *o = slice_named(b, s->name);

		if (o && same(o->resource_version, s->resource_version))
			continue;
		if (touch_pool(c, a, s) < 0 || touch_pool(c, b, s) < 0)
			return -1;
	}
	return 0;
}

static bool classes_same(const struct dra_inventory *a, const struct dra_inventory *b)
{
	if (a->nclasses != b->nclasses)
		return false;
	for (size_t i = 0; i < a->nclasses; i++) {
		bool found = false;

		for (size_t j = 0; j < b->nclasses && !found; j++)
			found = same(a->classes[i]->name, b->classes[j]->name) &&
				same(a->classes[i]->resource_version, b->classes[j]->resource_version);
		if (!found)
			return false;
	}
	return true;
}

int dra_changes_find(const struct dra_inventory *old, const struct dra_inventory *now, struct dra_changes *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!old || !classes_same(old, now)) {
		ret->all = true;
		return 0;
	}
	if (slices_changed(ret, old, now) < 0 || slices_changed(ret, now, old) < 0 || claims_changed(ret, old, now) < 0) {
		dra_changes_release(ret);
		return -1;
	}
	return 0;
}

bool dra_changes_none(const struct dra_changes *c)
{
	return !c->all && !c->n;
}

void dra_changes_release(struct dra_changes *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->nodes[i]);
	free(c->nodes);
	memset(c, 0, sizeof(*c));
}
