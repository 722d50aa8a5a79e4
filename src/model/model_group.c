/* Roll-ups for --by: one entry per node or pod, sorted by group and unit,
 * then merged; sorting keeps 5,000 nodes grouped by node cheap. */
#include "model_group.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NONE "<none>"

static const char *const by_names[] = {
	[BY_NONE] = "", [BY_NAMESPACE] = "namespace", [BY_POOL] = "pool", [BY_MODEL] = "model",
	[BY_NODE] = "node", [BY_OWNER] = "owner",
};

const char *model_by_name(enum model_by by)
{
	return by <= BY_OWNER ? by_names[by] : "";
}

int model_by_parse(const char *s, enum model_by *ret)
{
	for (int i = BY_NAMESPACE; i <= BY_OWNER; i++)
		if (strcasecmp(s, by_names[i]) == 0) {
			*ret = (enum model_by)i;
			return 0;
		}
	return -1;
}

struct entry {
	const char *key;
	struct model_group_row v;
};

static int cmp_entries(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return (int)x->v.unit - (int)y->v.unit;
}

static const char *node_key(const struct model_node *n, enum model_by by)
{
	const char *k = by == BY_POOL ? n->pool : by == BY_MODEL ? n->gpu_model : n->name;

	return k && *k ? k : NONE;
}

int model_group(const struct model *m, enum model_by by, struct model_groups *ret)
{
	bool per_node = by == BY_POOL || by == BY_MODEL || by == BY_NODE;
	size_t cap = per_node ? m->nnodes : m->npods, n = 0;
	struct entry *e;

	memset(ret, 0, sizeof(*ret));
	ret->by = by;
	ret->per_node = per_node;
	if (!cap)
		return 0;
	e = calloc(cap, sizeof(*e));
	if (!e)
		return -1;
	if (per_node) {
		for (size_t i = 0; i < m->nnodes; i++) {
			const struct model_node *nd = &m->nodes[i];

			e[n++] = (struct entry){node_key(nd, by),
						{.unit = nd->unit, .nodes = 1, .pods = nd->pods_held,
						 .mem_allocated = nd->mem_allocated, .mem_total = nd->mem_total,
						 .core_allocated = nd->core_allocated}};
		}
	} else {
		for (size_t i = 0; i < m->npods; i++) {
			const struct model_pod *p = &m->pods[i];
			const char *k = by == BY_NAMESPACE ? p->namespace : p->owner;

			/* what pods hold on shown nodes; pending pods hold nothing yet */
			if (!p->node)
				continue;
			e[n++] = (struct entry){k && *k ? k : NONE,
						{.unit = p->unit, .pods = 1, .mem_allocated = p->mem,
						 .core_allocated = p->core}};
		}
	}
	qsort(e, n, sizeof(*e), cmp_entries);
	ret->rows = calloc(n ? n : 1, sizeof(*ret->rows));
	if (!ret->rows) {
		free(e);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct model_group_row *r = ret->n ? &ret->rows[ret->n - 1] : NULL;

		if (!r || strcmp(r->key, e[i].key) != 0 || r->unit != e[i].v.unit) {
			r = &ret->rows[ret->n];
			*r = e[i].v;
			if (!(r->key = strdup(e[i].key))) {
				free(e);
				model_groups_release(ret);
				return -1;
			}
			ret->n++;
			continue;
		}
		r->nodes += e[i].v.nodes;
		r->pods += e[i].v.pods;
		r->mem_allocated += e[i].v.mem_allocated;
		r->mem_total += e[i].v.mem_total;
		r->core_allocated += e[i].v.core_allocated;
	}
	free(e);
	return 0;
}

void model_groups_release(struct model_groups *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->rows[i].key);
	free(g->rows);
	memset(g, 0, sizeof(*g));
}
