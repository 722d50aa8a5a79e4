/* Fragmentation per pool and scheme (frag_report.h): the nodes grouped,
 * their figures summed, and per group the GPUs holding pods tried, least
 * memory held first, by defrag's check of a whole-GPU request. */
#include "frag_report.h"

#include <stdlib.h>
#include <string.h>

/* Tolerates every taint: a GPU is freed for whatever may run there. */
static char exists_op[] = "Exists";
static const struct k8s_toleration tolerate_all = {.op = exists_op};

/* A GPU to try. */
struct candidate {
	size_t node;
	int gpu;
	int64_t held, total;
	size_t npods;
};

static int cmp_pool(const char *a, const char *b)
{
	if (!a || !b)
		return (a == NULL) - (b == NULL); /* no pool last */
	return strcmp(a, b);
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct frag_group *a = pa, *b = pb;
	int c = cmp_pool(a->pool, b->pool);

	if (!c)
		c = strcmp(a->scheme, b->scheme);
	return c ? c : (a->unit > b->unit) - (a->unit < b->unit);
}

static int cmp_candidate(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *b = pb;

	if (a->held != b->held)
		return a->held < b->held ? -1 : 1;
	if (a->npods != b->npods)
		return a->npods < b->npods ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->gpu > b->gpu) - (a->gpu < b->gpu);
}

void frag_whole_gpu_request(const struct model *m, size_t node, int64_t mem_total, struct fit_request *r)
{
	const struct model_node *n = &m->nodes[node];

	*r = (struct fit_request){.scheme = n->scheme ? n->scheme->name : NULL, .mem_unit = FIT_MEM_MIB, .gpus = 1,
				  .tols = &tolerate_all, .ntols = 1};
	r->mem = n->unit == UNIT_GIB ? mem_total * 1024 : mem_total;
}

long frag_gpu_holders(const struct model *m, size_t node, int gpu, size_t *ret, size_t max)
{
	const struct model_node *n = &m->nodes[node];
	const struct model_gpu *g = NULL;
	int64_t mem = 0;
	size_t count = 0;

	for (int i = 0; i < n->ngpus && !g; i++)
		if (n->gpus[i].index == gpu)
			g = &n->gpus[i];
	if (!g)
		return -1;
	for (size_t i = 0; i < n->npods; i++) {
		const struct model_pod *p = &m->pods[n->pods[i]];
		bool holds = false;

		for (size_t k = 0; k < p->ngpus; k++)
			if (p->gpus[k].gpu == gpu) {
				holds = true;
				mem += p->gpus[k].mem;
			}
		if (holds && count < max)
			ret[count] = n->pods[i];
		count += holds;
	}
	return mem == g->mem_allocated && count == g->npods ? (long)count : -1;
}

static struct frag_group *group_of(struct frag_report *r, size_t *cap, const struct model_node *n)
{
	struct frag_group key = {.pool = n->pool, .scheme = n->scheme ? n->scheme->name : "", .unit = n->unit}, *g;

	for (size_t i = 0; i < r->ngroups; i++)
		if (!cmp_group(&r->groups[i], &key))
			return &r->groups[i];
	g = kube_array_grow(r->groups, cap, r->ngroups + 1, sizeof(*g), 8);
	if (!g)
		return NULL;
	r->groups = g;
	r->groups[r->ngroups] = key;
	return &r->groups[r->ngroups++];
}

/* A node's figures into its group. */
static void count_node(struct frag_group *g, const struct model_node *n)
{
	g->nodes++;
	g->gpus += (size_t)n->ngpus;
	g->mem_free += model_node_free(n);
	if (n->unit == UNIT_SLOTS)
		return;
	g->stranded += n->stranded;
	if (n->common_request > g->common_request)
		g->common_request = n->common_request;
	if (!n->info.per_gpu)
		g->unpublished_nodes++;
}

/* Is the GPU one to try: a held GPU of the group, each pod on it movable,
 * within max_moves and the budgets?  1 with *c filled, 0 when not tried
 * (counted where it goes), -1 when out of memory. */
static int classify(const struct model *m, const struct defrag_rules *rules, struct frag_group *g, size_t node,
		    const struct model_gpu *gpu, struct candidate *c)
{
	size_t pods[DEFRAG_MAX_MOVES];
	long n;

	if (!gpu->npods || !model_gpu_usable(gpu))
		return 0;
	n = frag_gpu_holders(m, node, gpu->index, pods, DEFRAG_MAX_MOVES);
	if (n < 0 || gpu->mem_total <= 0) {
		g->unknown_gpus++;
		return 0;
	}
	g->held_gpus++;
	for (long i = 0; rules->stay && i < n && i < DEFRAG_MAX_MOVES; i++)
		if (rules->stay[pods[i]] != DEFRAG_MOVABLE) {
			g->blocked[FRAG_BLOCKED_STAY]++;
			return 0;
		}
	if (n > rules->max_moves || n > DEFRAG_MAX_MOVES) {
		g->blocked[FRAG_BLOCKED_MOVES]++;
		return 0;
	}
	if (!defrag_budgets_allow(rules, pods, (size_t)n)) {
		g->blocked[FRAG_BLOCKED_BUDGET]++;
		return 0;
	}
	*c = (struct candidate){.node = node, .gpu = gpu->index, .held = gpu->mem_allocated,
				.total = gpu->mem_total, .npods = (size_t)n};
	return 1;
}

/* The group's GPUs to try, in the order they are tried. */
static int candidates(const struct model *m, const struct defrag_rules *rules, struct frag_group *g,
		      struct candidate **ret, size_t *nret)
{
	size_t cap = 0;

	*ret = NULL;
	*nret = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct model_node *n = &m->nodes[i];
		struct frag_group key = {.pool = n->pool, .scheme = n->scheme ? n->scheme->name : "", .unit = n->unit};

		if (cmp_group(&key, g) || n->unit == UNIT_SLOTS || !n->info.per_gpu || !n->schedulable)
			continue;
		for (int k = 0; k < n->ngpus; k++) {
			struct candidate c, *grown;
			int rc = classify(m, rules, g, i, &n->gpus[k], &c);

			if (rc <= 0)
				continue;
			if (!(grown = kube_array_grow(*ret, &cap, *nret + 1, sizeof(*grown), 16))) {
				free(*ret);
				*ret = NULL;
				return -1;
			}
			*ret = grown;
			(*ret)[(*nret)++] = c;
		}
	}
	if (*nret)
		qsort(*ret, *nret, sizeof(**ret), cmp_candidate);
	return 0;
}

/* Try the group's candidates in order, within the bounds (*checks_left:
 * for the whole report). */
static int search_group(struct model *m, const struct defrag_rules *rules, struct frag_group *g, size_t *checks_left)
{
	struct candidate *c;
	size_t nc, i;

	if (candidates(m, rules, g, &c, &nc) < 0)
		return -1;
	if (nc && !(g->freed = calloc(FRAG_FREED_MAX, sizeof(*g->freed)))) {
		free(c);
		return -1;
	}
	for (i = 0; i < nc && g->nfreed < FRAG_FREED_MAX && g->checks < FRAG_CHECKS_MAX && *checks_left; i++) {
		size_t pods[DEFRAG_MAX_MOVES];
		struct fit_request r;
		struct frag_freed *f = &g->freed[g->nfreed];
		int rc;

		frag_gpu_holders(m, c[i].node, c[i].gpu, pods, DEFRAG_MAX_MOVES);
		frag_whole_gpu_request(m, c[i].node, c[i].total, &r);
		memset(f, 0, sizeof(*f));
		rc = defrag_check_set(m, &r, rules, pods, c[i].npods, &f->plan);
		g->checks++;
		(*checks_left)--;
		if (rc < 0) {
			free(c);
			return -1;
		}
		if (rc == 1) {
			*f = (struct frag_freed){.node = c[i].node, .gpu = c[i].gpu, .held = c[i].held, .plan = f->plan};
			g->nfreed++;
		} else {
			g->blocked[FRAG_BLOCKED_NOWHERE]++;
		}
	}
	g->unchecked = nc - i;
	free(c);
	return 0;
}

int frag_report_build(struct model *m, const struct defrag_rules *rules, const char *scheme, struct frag_report *ret)
{
	size_t cap = 0, checks_left = FRAG_CHECKS_TOTAL;

	memset(ret, 0, sizeof(*ret));
	ret->max_moves = rules->max_moves;
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct model_node *n = &m->nodes[i];
		struct frag_group *g;

		if (!n->scheme || (scheme && strcmp(scheme, n->scheme->name) != 0))
			continue;
		if (!(g = group_of(ret, &cap, n))) {
			frag_report_release(ret);
			return -1;
		}
		count_node(g, n);
	}
	if (ret->ngroups)
		qsort(ret->groups, ret->ngroups, sizeof(*ret->groups), cmp_group);
	for (size_t i = 0; i < ret->ngroups; i++)
		if (ret->groups[i].unit != UNIT_SLOTS && search_group(m, rules, &ret->groups[i], &checks_left) < 0) {
			frag_report_release(ret);
			return -1;
		}
	return 0;
}

void frag_report_release(struct frag_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ngroups; i++) {
		for (size_t k = 0; k < r->groups[i].nfreed; k++)
			defrag_plan_release(&r->groups[i].freed[k].plan);
		free(r->groups[i].freed);
	}
	free(r->groups);
	r->groups = NULL;
	r->ngroups = 0;
}
