/* Stranded memory: per node, the free GPU memory that cannot host the most
 * common request size of its pool (the most common per-GPU memory of the
 * pods on the pool's nodes, in the node's unit).  One figure per node,
 * summed per pool by whoever shows pools, so that the summary, -o wide,
 * JSON and the live view read the same number. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

struct strand_key {
	const char *pool; /* NULL = nodes without a pool label */
	int unit;
	int64_t size;
	size_t count; /* pods asking it */
};

static int cmp_pool(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_group(const struct strand_key *a, const struct strand_key *b)
{
	int c = cmp_pool(a->pool, b->pool);

	return c ? c : (a->unit > b->unit) - (a->unit < b->unit);
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct strand_key *a = pa, *b = pb;
	int c = cmp_group(a, b);

	return c ? c : (a->size > b->size) - (a->size < b->size);
}

/* The most common size of each (pool, unit) run of sorted keys, written
 * over the run's first key; ties go to the smaller size (keys are sorted
 * by size within a run).  Returns the number of runs. */
static size_t common_sizes(struct strand_key *k, size_t n)
{
	size_t nruns = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i, best = 0;
		int64_t best_size = 0;

		while (j < n && !cmp_group(&k[i], &k[j])) {
			size_t e = j, count = 0;

			while (e < n && !cmp_key(&k[j], &k[e]))
				count += k[e++].count;
			if (count > best) {
				best = count;
				best_size = k[j].size;
			}
			j = e;
		}
		k[nruns] = k[i];
		k[nruns++].size = best_size;
		i = j;
	}
	return nruns;
}

static int64_t node_stranded(const struct model_node *n, int64_t size)
{
	int64_t sum = 0, all = 0;

	if (size <= 0)
		return 0;
	if (!n->schedulable)
		return model_node_free(n);
	if (!n->info.per_gpu || !n->ngpus)
		return model_node_free(n) % size;
	for (int g = 0; g < n->ngpus; g++) {
		int64_t f = model_gpu_free(&n->gpus[g]);

		all += f;
		sum += model_gpu_usable(&n->gpus[g]) ? f % size : f;
	}
	/* what no GPU accounts for is free on no GPU a request can take */
	return sum + (model_node_free(n) - all);
}

/* Every node's request sizes, in its shown unit, as keys; NULL when there
 * are none (a model put together by hand has no pods folded) or out of
 * memory. */
static struct strand_key *size_keys(struct model *m, size_t *ret_n)
{
	struct strand_key *k;
	size_t n = 0;

	*ret_n = 0;
	if (!m->priv)
		return NULL;
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct node_acc *a = model_acc_find(m->priv, m->nodes[i].name);

		n += a ? a->nsizes : 0;
	}
	if (!n || !(k = malloc(n * sizeof(*k))))
		return NULL;
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct model_node *nd = &m->nodes[i];
		const struct node_acc *a = model_acc_find(m->priv, nd->name);

		/* a slot is a whole share: no part of one is left over */
		if (nd->unit == UNIT_SLOTS)
			continue;
		for (size_t j = 0; a && j < a->nsizes; j++) {
			int64_t s = model_convert_mem(a->sizes[j].size, nd->info.unit, nd->unit);

			if (s > 0)
				k[(*ret_n)++] = (struct strand_key){nd->pool, (int)nd->unit, s, a->sizes[j].count};
		}
	}
	return k;
}

void model_derive_stranded(struct model *m)
{
	struct strand_key *k;
	size_t n, nruns;

	for (int u = 0; u < UNIT_SLOTS; u++)
		m->frag[u].stranded = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		m->nodes[i].common_request = 0;
		m->nodes[i].stranded = 0;
	}
	if (!(k = size_keys(m, &n)))
		return;
	qsort(k, n, sizeof(*k), cmp_key);
	nruns = common_sizes(k, n);
	for (size_t i = 0; i < m->nnodes; i++) {
		struct model_node *nd = &m->nodes[i];
		struct strand_key want = {nd->pool, (int)nd->unit, 0, 0};
		const struct strand_key *hit = bsearch(&want, k, nruns, sizeof(*k),
						       (int (*)(const void *, const void *))cmp_group);

		if (!hit)
			continue;
		nd->common_request = hit->size;
		nd->stranded = node_stranded(nd, hit->size);
		if (nd->unit < UNIT_SLOTS)
			m->frag[nd->unit].stranded += nd->stranded;
	}
	free(k);
}
