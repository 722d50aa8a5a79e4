/* The defrag planner (defrag.h): sets of pods on one node tried in order of
 * size, then of memory, each checked by moving its pods in the model and
 * asking fit; the model is put back after every check. */
#include "defrag.h"

#include <stdlib.h>
#include <string.h>

/* A node's figures as they were before a check changed them. */
struct saved_node {
	size_t node;
	struct model_node fig;
	struct model_gpu *gpus;
};

struct undo {
	struct saved_node *items;
	size_t len, cap;
};

static int undo_save(struct undo *u, const struct model *m, size_t node)
{
	const struct model_node *n = &m->nodes[node];
	struct saved_node *s;

	for (size_t i = 0; i < u->len; i++)
		if (u->items[i].node == node)
			return 0;
	s = kube_array_grow(u->items, &u->cap, u->len + 1, sizeof(*s), 8);
	if (!s)
		return -1;
	u->items = s;
	s = &u->items[u->len];
	s->node = node;
	s->fig = *n;
	s->gpus = NULL;
	if (n->ngpus && !(s->gpus = malloc((size_t)n->ngpus * sizeof(*s->gpus))))
		return -1;
	if (n->ngpus)
		memcpy(s->gpus, n->gpus, (size_t)n->ngpus * sizeof(*s->gpus));
	u->len++;
	return 0;
}

/* Every saved node as it was; the log is emptied (its room kept). */
static void undo_restore(struct undo *u, struct model *m)
{
	while (u->len) {
		struct saved_node *s = &u->items[--u->len];
		struct model_node *n = &m->nodes[s->node];

		*n = s->fig;
		if (n->ngpus)
			memcpy(n->gpus, s->gpus, (size_t)n->ngpus * sizeof(*s->gpus));
		free(s->gpus);
	}
}

static size_t node_index(const struct model *m, const char *name)
{
	const struct model_node *n = name ? model_find_node(m, name) : NULL;

	return n ? (size_t)(n - m->nodes) : m->nnodes;
}

static struct model_gpu *gpu_by_index(struct model_node *n, int index)
{
	for (int i = 0; i < n->ngpus; i++)
		if (n->gpus[i].index == index)
			return &n->gpus[i];
	return NULL;
}

/* Does the pod hold a GPU (not only memory waiting for one)? */
static bool holds_gpu(const struct model_pod *p)
{
	for (size_t i = 0; i < p->ngpus; i++)
		if (p->gpus[i].gpu >= 0)
			return true;
	return false;
}

/* What the pod holds on its node's GPUs, taken off them. */
static void pod_lift(struct model_node *n, const struct model_pod *p)
{
	for (size_t i = 0; i < p->ngpus; i++) {
		struct model_gpu *g = p->gpus[i].gpu >= 0 ? gpu_by_index(n, p->gpus[i].gpu) : NULL;

		if (!g)
			continue;
		g->mem_allocated -= p->gpus[i].mem;
		g->core_allocated -= p->gpus[i].core;
		g->npods -= g->npods > 0;
		g->slots_used -= g->slots_used > 0;
		n->mem_allocated -= p->gpus[i].mem;
		n->core_allocated -= p->gpus[i].core;
	}
	model_node_derive(n);
}

int64_t defrag_pod_mib(const struct model *m, const struct model_pod *p)
{
	const struct model_node *n = p->node ? model_find_node(m, p->node) : NULL;
	int64_t mem = 0;

	for (size_t i = 0; i < p->ngpus; i++)
		if (p->gpus[i].gpu >= 0)
			mem += p->gpus[i].mem;
	return n && n->unit == UNIT_GIB ? mem * 1024 : mem;
}

void defrag_pod_request(const struct model_pod *p, struct fit_request *r)
{
	*r = (struct fit_request){.scheme = p->scheme ? p->scheme->name : NULL, .mem = p->ask.mem,
				  .core = p->ask.core, .gpus = p->ask.gpus, .node_selector = &p->node_selector,
				  .terms = p->node_terms, .nterms = p->nnode_terms, .tols = p->tolerations,
				  .ntols = p->ntolerations};
	/* without an ask from its scheme: what it holds, on as many GPUs */
	if (!r->gpus)
		for (size_t i = 0; i < p->ngpus; i++) {
			r->gpus++;
			r->mem = p->gpus[i].mem > r->mem ? p->gpus[i].mem : r->mem;
			r->core = p->gpus[i].core > r->core ? p->gpus[i].core : r->core;
		}
}

static bool may_move(const struct model *m, const struct defrag_rules *rules, size_t pod)
{
	return (!rules->stay || rules->stay[pod] == DEFRAG_MOVABLE) && m->pods[pod].scheme && holds_gpu(&m->pods[pod]);
}

bool defrag_budgets_allow(const struct defrag_rules *rules, const size_t *pods, size_t n)
{
	for (size_t i = 0; rules->budget && i < n; i++) {
		int b = rules->budget[pods[i]], used = 0;

		if (b < 0)
			continue;
		if ((size_t)b >= rules->nbudgets)
			return false;
		for (size_t j = 0; j < n; j++)
			used += rules->budget[pods[j]] == b;
		if (used > rules->allowed[b])
			return false;
	}
	return true;
}

/* The moved pods in the order they are placed: most memory first, then
 * by index. */
static void order_pods(const struct model *m, size_t *pods, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			int64_t a = defrag_pod_mib(m, &m->pods[pods[j - 1]]), b = defrag_pod_mib(m, &m->pods[pods[j]]);

			if (a > b || (a == b && pods[j - 1] < pods[j]))
				break;
			size_t t = pods[j];
			pods[j] = pods[j - 1];
			pods[j - 1] = t;
		}
}

/* Where fit puts the pod now, on another node than `from`: 1 and *ret,
 * 0 when nowhere, -1 when out of memory. */
static int place_elsewhere(const struct model *m, const struct fit_request *q, size_t from, struct fit_place *ret)
{
	struct fit_result res;
	int found = 0;

	if (fit_check(m, q, &res) < 0)
		return -1;
	for (size_t i = 0; !found && i < res.nsure; i++)
		if (res.fits[i].node != from) {
			*ret = res.fits[i];
			res.fits[i].gpus = NULL;
			found = 1;
		}
	fit_result_release(&res);
	return found;
}

static int record_move(struct defrag_plan *ret, const struct model *m, size_t pod, size_t from,
		       struct fit_place *to)
{
	struct defrag_move *mv = &ret->moves[ret->nmoves++];
	const struct model_pod *p = &m->pods[pod];

	memset(mv, 0, sizeof(*mv));
	mv->pod = pod;
	mv->from = from;
	mv->to = *to;
	to->gpus = NULL;
	mv->unit = m->nodes[from].unit;
	for (size_t i = 0; i < p->ngpus; i++)
		if (p->gpus[i].gpu >= 0) {
			mv->mem += p->gpus[i].mem;
			if (mv->nfrom_gpus < 8)
				mv->from_gpus[mv->nfrom_gpus++] = p->gpus[i].gpu;
		}
	ret->mem_moved_mib += defrag_pod_mib(m, p);
	return 0;
}

/* The moved pods placed in turn (the model changes); 1 when each finds a
 * place, 0 when one does not, -1 when out of memory. */
static int place_moved(struct model *m, struct undo *u, const size_t *order, size_t n, size_t from,
		       struct defrag_plan *ret)
{
	for (size_t i = 0; i < n; i++) {
		struct fit_request q;
		struct fit_place to = {0};
		int rc;

		defrag_pod_request(&m->pods[order[i]], &q);
		rc = place_elsewhere(m, &q, from, &to);
		if (rc <= 0)
			return rc;
		if (undo_save(u, m, to.node) < 0) {
			free(to.gpus);
			return -1;
		}
		fit_take(m, &q, &to);
		if (ret)
			record_move(ret, m, order[i], from, &to);
		free(to.gpus);
	}
	return 1;
}

static int check_set(struct model *m, const struct fit_request *r, const struct defrag_rules *rules, const size_t *pods,
		     size_t n, struct defrag_plan *ret, struct undo *u)
{
	size_t from = n ? node_index(m, m->pods[pods[0]].node) : m->nnodes, order[DEFRAG_MAX_MOVES];
	struct fit_place target = {0};
	int reason, rc;

	if (!n || n > DEFRAG_MAX_MOVES || from >= m->nnodes || !defrag_budgets_allow(rules, pods, n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!may_move(m, rules, pods[i]) || node_index(m, m->pods[pods[i]].node) != from)
			return 0;
		for (size_t j = 0; j < i; j++)
			if (pods[j] == pods[i])
				return 0;
		order[i] = pods[i];
	}
	if (undo_save(u, m, from) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		pod_lift(&m->nodes[from], &m->pods[pods[i]]);
	/* the request first: the moved pods go to other nodes */
	if ((rc = fit_node(m, r, from, &target, &reason)) <= 0)
		return rc;
	order_pods(m, order, n);
	if (ret && !(ret->moves = calloc(n, sizeof(*ret->moves)))) {
		free(target.gpus);
		return -1;
	}
	rc = place_moved(m, u, order, n, from, ret);
	if (rc == 1 && ret) {
		ret->target = target;
		target.gpus = NULL;
	}
	free(target.gpus);
	return rc;
}

int defrag_check_set(struct model *m, const struct fit_request *r, const struct defrag_rules *rules,
		     const size_t *pods, size_t n, struct defrag_plan *ret)
{
	struct undo u = {0};
	int rc = check_set(m, r, rules, pods, n, ret, &u);

	undo_restore(&u, m);
	free(u.items);
	if (ret && rc != 1) {
		defrag_plan_release(ret);
	} else if (ret) {
		ret->needed = true;
		ret->found = true;
	}
	return rc;
}

/* The search's state: the best set so far. */
struct search {
	struct model *m;
	const struct fit_request *r;
	const struct defrag_rules *rules;
	struct undo u;
	size_t best[DEFRAG_MAX_MOVES];
	size_t nbest;
	int64_t best_mib;
	size_t checked;
};

/* Every k-set of the movable pods of one node, lightest first found kept
 * when lighter than the best so far. */
static int search_node(struct search *s, const size_t *cands, size_t nc, size_t k)
{
	size_t idx[DEFRAG_MAX_MOVES], set[DEFRAG_MAX_MOVES];

	if (nc < k)
		return 0;
	for (size_t i = 0; i < k; i++)
		idx[i] = i;
	for (;;) {
		int64_t mib = 0;

		for (size_t i = 0; i < k; i++) {
			set[i] = cands[idx[i]];
			mib += defrag_pod_mib(s->m, &s->m->pods[set[i]]);
		}
		if (!s->nbest || mib < s->best_mib) {
			int rc = check_set(s->m, s->r, s->rules, set, k, NULL, &s->u);

			undo_restore(&s->u, s->m);
			s->checked++;
			if (rc < 0)
				return -1;
			if (rc == 1) {
				memcpy(s->best, set, k * sizeof(*set));
				s->nbest = k;
				s->best_mib = mib;
			}
		}
		/* the next combination */
		size_t i = k;

		while (i > 0 && idx[i - 1] == nc - k + i - 1)
			i--;
		if (i == 0)
			return 0;
		idx[i - 1]++;
		for (size_t j = i; j < k; j++)
			idx[j] = idx[j - 1] + 1;
	}
}

/* The nodes the request could go to but for room, and their movable pods. */
static int search_size(struct search *s, size_t k, size_t *cands)
{
	for (size_t t = 0; t < s->m->nnodes; t++) {
		const struct model_node *n = &s->m->nodes[t];
		struct fit_place p = {0};
		size_t nc = 0;
		int reason, rc = fit_node(s->m, s->r, t, &p, &reason);

		free(p.gpus);
		if (rc < 0)
			return -1;
		if (rc == 1 || reason < 0 || !fit_reason_is_room((enum fit_reason)reason))
			continue;
		for (size_t i = 0; i < n->npods; i++)
			if (may_move(s->m, s->rules, n->pods[i]))
				cands[nc++] = n->pods[i];
		if (search_node(s, cands, nc, k) < 0)
			return -1;
	}
	return 0;
}

int defrag_plan(struct model *m, const struct fit_request *r, const struct defrag_rules *rules,
		struct defrag_plan *ret)
{
	struct search s = {.m = m, .r = r, .rules = rules};
	struct fit_result now;
	size_t most = 0, *cands;
	int max = rules->max_moves > DEFRAG_MAX_MOVES ? DEFRAG_MAX_MOVES : rules->max_moves, rc = 0;

	memset(ret, 0, sizeof(*ret));
	if (fit_check(m, r, &now) < 0)
		return -1;
	ret->needed = now.nsure == 0;
	fit_result_release(&now);
	if (!ret->needed)
		return 0;
	for (size_t i = 0; i < m->nnodes; i++)
		most = m->nodes[i].npods > most ? m->nodes[i].npods : most;
	if (!(cands = calloc(most + 1, sizeof(*cands))))
		return -1;
	for (int k = 1; rc == 0 && k <= max && !s.nbest; k++)
		rc = search_size(&s, (size_t)k, cands);
	free(cands);
	free(s.u.items);
	if (rc == 0 && s.nbest) {
		size_t checked = s.checked;

		rc = defrag_check_set(m, r, rules, s.best, s.nbest, ret) < 0 ? -1 : 0;
		ret->plans_checked = checked;
	} else {
		ret->plans_checked = s.checked;
	}
	return rc;
}

void defrag_plan_release(struct defrag_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nmoves; i++)
		free(p->moves[i].to.gpus);
	free(p->moves);
	free(p->target.gpus);
	p->moves = NULL;
	p->nmoves = 0;
	p->target.gpus = NULL;
	p->found = false;
	p->mem_moved_mib = 0;
}
