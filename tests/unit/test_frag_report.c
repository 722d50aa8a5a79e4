/* The fragmentation report: per rule on small clusters made in the test
 * (a GPU freed by one move, one kept by a pod that may not move, by a
 * budget, by max-moves, by a pod with nowhere to go; nodes in slots and
 * without a per-GPU split; the bound), and on random small clusters (a
 * fixed seed): every GPU said freeable is freed by its moves applied to
 * the model, each checked by fit. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "frag_report.h"
#include "t_gpu_cluster.h"

static size_t pod_named(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->npods; i++)
		if (strcmp(m->pods[i].name, name) == 0)
			return i;
	cr_assert_fail("no pod %s", name);
	return 0;
}

static const char *freed_node(const struct model *m, const struct frag_group *g, size_t i)
{
	cr_assert_lt(i, g->nfreed);
	return m->nodes[g->freed[i].node].name;
}

/* free: node-0 GPU0 5 (p00 3) and GPU1 2 (p01 6), node-1 GPU0 4 (p02 4)
 * and GPU1 0 (p03 8) */
static const struct tpod_spec two_nodes[] = {{0, 0, 3}, {0, 1, 6}, {1, 0, 4}, {1, 1, 8}};

Test(frag_report, a_gpu_freed_by_one_move_and_two_with_nowhere_to_go)
{
	struct model m;
	struct defrag_rules rules = {.max_moves = 3};
	struct frag_report r;
	const struct frag_group *g;

	t_cluster_build(&m, 2, 8, NULL, two_nodes, 4);
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.ngroups, 1);
	g = &r.groups[0];
	cr_assert_null(g->pool);
	cr_assert_str_eq(g->scheme, "cgpu");
	cr_assert_eq((int)g->unit, (int)UNIT_GIB);
	cr_assert_eq(g->nodes, 2);
	cr_assert_eq(g->gpus, 4);
	cr_assert_eq(g->mem_free, 11);
	cr_assert_eq(g->held_gpus, 4);
	/* least memory first: node-0/GPU0 (3) to node-1/GPU0, node-1/GPU0 (4) to node-0/GPU0 */
	cr_assert_eq(g->nfreed, 2);
	cr_assert_str_eq(freed_node(&m, g, 0), "node-0");
	cr_assert_eq(g->freed[0].gpu, 0);
	cr_assert_eq(g->freed[0].held, 3);
	cr_assert_eq(g->freed[0].plan.nmoves, 1);
	cr_assert_str_eq(m.pods[g->freed[0].plan.moves[0].pod].name, "p00");
	cr_assert_str_eq(m.nodes[g->freed[0].plan.moves[0].to.node].name, "node-1");
	cr_assert_eq(g->freed[0].plan.moves[0].to.gpus[0], 0);
	cr_assert_str_eq(freed_node(&m, g, 1), "node-1");
	cr_assert_eq(g->freed[1].gpu, 0);
	/* 6 and 8 GiB pods find no GPU with that much free elsewhere */
	cr_assert_eq(g->blocked[FRAG_BLOCKED_NOWHERE], 2);
	cr_assert_eq(g->checks, 4);
	cr_assert_eq(g->unchecked, 0);
	frag_report_release(&r);
	/* the model is put back */
	cr_assert_eq(m.nodes[0].gpus[0].mem_allocated, 3);
	cr_assert_eq(m.nodes[1].gpus[0].mem_allocated, 4);
	model_release(&m);
}

Test(frag_report, a_pod_that_may_not_move_or_a_budget_keeps_its_gpu)
{
	struct model m;
	enum defrag_stay stay[4] = {0};
	int budget[4] = {-1, -1, -1, -1}, allowed[1] = {0};
	struct defrag_rules rules = {.stay = stay, .budget = budget, .allowed = allowed, .nbudgets = 1, .max_moves = 3};
	struct frag_report r;

	t_cluster_build(&m, 2, 8, NULL, two_nodes, 4);
	stay[pod_named(&m, "p00")] = DEFRAG_NO_CONTROLLER;
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.groups[0].nfreed, 1);
	cr_assert_str_eq(freed_node(&m, &r.groups[0], 0), "node-1");
	cr_assert_eq(r.groups[0].blocked[FRAG_BLOCKED_STAY], 1);
	frag_report_release(&r);
	/* p02's budget allows no disruption: node-1/GPU0 stays too */
	budget[pod_named(&m, "p02")] = 0;
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.groups[0].nfreed, 0);
	cr_assert_eq(r.groups[0].blocked[FRAG_BLOCKED_BUDGET], 1);
	cr_assert_eq(r.groups[0].blocked[FRAG_BLOCKED_STAY], 1);
	frag_report_release(&r);
	allowed[0] = 1;
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.groups[0].nfreed, 1);
	cr_assert_eq(r.groups[0].blocked[FRAG_BLOCKED_BUDGET], 0);
	frag_report_release(&r);
	model_release(&m);
}

Test(frag_report, more_pods_than_max_moves)
{
	/* node-0/GPU0 holds three pods of 1; node-0/GPU1 and node-1/GPU1 are full */
	static const struct tpod_spec pods[] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 1, 8}, {1, 1, 8}};
	struct model m;
	enum defrag_stay stay[5] = {0};
	struct defrag_rules rules = {.stay = stay, .max_moves = 2};
	struct frag_report r;

	t_cluster_build(&m, 2, 8, NULL, pods, 5);
	stay[pod_named(&m, "p03")] = DEFRAG_DAEMONSET;
	stay[pod_named(&m, "p04")] = DEFRAG_STATIC;
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.groups[0].nfreed, 0);
	cr_assert_eq(r.groups[0].blocked[FRAG_BLOCKED_MOVES], 1);
	cr_assert_eq(r.groups[0].blocked[FRAG_BLOCKED_STAY], 2);
	frag_report_release(&r);
	rules.max_moves = 3;
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.groups[0].nfreed, 1);
	cr_assert_eq(r.groups[0].freed[0].plan.nmoves, 3);
	for (size_t i = 0; i < 3; i++)
		cr_assert_str_eq(m.nodes[r.groups[0].freed[0].plan.moves[i].to.node].name, "node-1");
	frag_report_release(&r);
	model_release(&m);
}

Test(frag_report, pools_and_the_stranded_sum)
{
	static const char *const pools[] = {"np-b", "np-a", NULL};
	static const struct tpod_spec pods[] = {{0, 0, 3}, {1, 0, 3}, {1, 1, 5}, {2, 0, 2}};
	struct model m;
	struct defrag_rules rules = {.max_moves = 3};
	struct frag_report r;

	t_cluster_build(&m, 3, 8, pools, pods, 4);
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.ngroups, 3);
	cr_assert_str_eq(r.groups[0].pool, "np-a");
	cr_assert_str_eq(r.groups[1].pool, "np-b");
	cr_assert_null(r.groups[2].pool);
	for (size_t i = 0; i < 3; i++) {
		const struct model_node *n = &m.nodes[i];
		const struct frag_group *g = n->pool ? &r.groups[strcmp(n->pool, "np-a") == 0 ? 0 : 1] : &r.groups[2];

		cr_assert_eq(g->nodes, 1);
		cr_assert_eq(g->stranded, n->stranded, "%s", n->name);
		cr_assert_eq(g->common_request, n->common_request, "%s", n->name);
	}
	/* np-a: sizes 3 and 5 tie, 3 wins; free 5 and 3 strand 2 and 0 */
	cr_assert_eq(r.groups[0].common_request, 3);
	cr_assert_eq(r.groups[0].stranded, 2);
	frag_report_release(&r);
	/* a scheme asked for that no node has: nothing */
	cr_assert_eq(frag_report_build(&m, &rules, "hami", &r), 0);
	cr_assert_eq(r.ngroups, 0);
	frag_report_release(&r);
	model_release(&m);
}

Test(frag_report, slots_and_unpublished_nodes_are_never_freeable)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true, .scheduling = true, .movable = true};
	struct defrag_rules rules = {.max_moves = 3};
	struct model m;
	struct k8s_node *n;
	struct frag_report r;
	size_t slots = 0, cce = 0;

	cr_assert_eq(model_init(&m, &o), 0);
	n = ts_node("ts-0", "2", "4", "8");
	n->ready = true;
	tadd_node(&m, n);
	n = ts_node("ts-1", "2", "4", "8");
	n->ready = true;
	tadd_node(&m, n);
	n = cce_node("cce-0", "128");
	n->ready = true;
	tadd_node(&m, n);
	n = cce_node("cce-1", "128");
	n->ready = true;
	tadd_node(&m, n);
	tadd_pod(&m, limits_pod("ml", "ts-pod", "ts-0", "nvidia.com/gpu", "1", NULL));
	tadd_pod(&m, limits_pod("ml", "cce-pod", "cce-0", "volcano.sh/gpu-mem.128Mi", "8", NULL));
	tfinish(&m);
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.ngroups, 2);
	for (size_t i = 0; i < r.ngroups; i++) {
		const struct frag_group *g = &r.groups[i];

		cr_assert_eq(g->nfreed, 0);
		cr_assert_eq(g->held_gpus, 0);
		cr_assert_eq(g->checks, 0);
		if (g->unit == UNIT_SLOTS) {
			slots++;
			cr_assert_eq(g->nodes, 2);
			cr_assert_eq(g->stranded, 0);
			cr_assert_eq(g->mem_free, 15, "%lld", (long long)g->mem_free);
		} else {
			cce++;
			cr_assert_eq(g->unpublished_nodes, 2);
		}
	}
	cr_assert_eq(slots, 1);
	cr_assert_eq(cce, 1);
	frag_report_release(&r);
	model_release(&m);
}

Test(frag_report, the_search_stops_after_a_few_freed_gpus)
{
	/* six GPUs of 1 GiB each, all freeable onto the free room of the others */
	static const struct tpod_spec pods[] = {{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 0, 1}, {2, 1, 2}};
	struct model m;
	struct defrag_rules rules = {.max_moves = 3};
	struct frag_report r;

	t_cluster_build(&m, 3, 8, NULL, pods, 6);
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.groups[0].nfreed, FRAG_FREED_MAX);
	cr_assert_eq(r.groups[0].checks, FRAG_FREED_MAX);
	cr_assert_eq(r.groups[0].unchecked, 6 - FRAG_FREED_MAX);
	/* the 2 GiB GPU, the heaviest, is among those not tried */
	for (size_t i = 0; i < r.groups[0].nfreed; i++)
		cr_assert_eq(r.groups[0].freed[i].held, 1);
	frag_report_release(&r);
	model_release(&m);
}

/* Nodes counted in MiB (a GPU's total above 100 is read as MiB): the whole
 * GPU asked is its memory in MiB, not in GiB. */
Test(frag_report, a_gpu_counted_in_mib)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true, .scheduling = true, .movable = true};
	struct defrag_rules rules = {.max_moves = 3};
	struct model m;
	struct frag_report r;

	cr_assert_eq(model_init(&m, &o), 0);
	for (int i = 0; i < 2; i++) {
		struct k8s_node *n = tnode(i ? "mib-1" : "mib-0", "10.0.0.1", "32768", "2");

		n->ready = true;
		tadd_node(&m, n);
	}
	tadd_pod(&m, tpod("ml", "small", "mib-0", "Running", "0", "4096", NULL));
	tadd_pod(&m, tpod("ml", "full", "mib-0", "Running", "1", "16384", NULL));
	tadd_pod(&m, tpod("ml", "other", "mib-1", "Running", "0", "16384", NULL));
	tfinish(&m);
	cr_assert_eq((int)m.nodes[0].unit, (int)UNIT_MIB);
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.ngroups, 1);
	cr_assert_eq((int)r.groups[0].unit, (int)UNIT_MIB);
	/* small (4 GiB) and full (16 GiB) each go to mib-1's empty GPU; other finds 12 GiB free at most */
	cr_assert_eq(r.groups[0].nfreed, 2);
	cr_assert_str_eq(m.nodes[r.groups[0].freed[0].node].name, "mib-0");
	cr_assert_eq(r.groups[0].freed[0].gpu, 0);
	cr_assert_eq(r.groups[0].freed[0].held, 4096);
	cr_assert_eq(r.groups[0].freed[0].plan.moves[0].mem, 4096);
	cr_assert_str_eq(m.nodes[r.groups[0].freed[0].plan.moves[0].to.node].name, "mib-1");
	cr_assert_eq(r.groups[0].freed[1].gpu, 1);
	cr_assert_eq(r.groups[0].freed[1].held, 16384);
	cr_assert_eq(r.groups[0].freed[1].plan.moves[0].to.gpus[0], 1);
	cr_assert_eq(r.groups[0].blocked[FRAG_BLOCKED_NOWHERE], 1);
	frag_report_release(&r);
	model_release(&m);
}

Test(frag_report, the_whole_report_stops_after_its_checks)
{
	/* nine pools of 32 full nodes: no pod has anywhere to go, every GPU is tried until the checks run out */
	enum { POOLS = 9, PER_POOL = 32, NODES = POOLS * PER_POOL };
	static struct tpod_spec pods[NODES * 2];
	static char names[POOLS][8];
	static const char *pools[NODES];
	struct model m;
	struct defrag_rules rules = {.max_moves = 3};
	struct frag_report r;
	size_t checks = 0;

	for (int i = 0; i < NODES; i++) {
		snprintf(names[i / PER_POOL], sizeof(names[0]), "np-%d", i / PER_POOL);
		pools[i] = names[i / PER_POOL];
		pods[2 * i] = (struct tpod_spec){i, 0, 8};
		pods[2 * i + 1] = (struct tpod_spec){i, 1, 8};
	}
	t_cluster_build(&m, NODES, 8, pools, pods, NODES * 2);
	cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
	cr_assert_eq(r.ngroups, POOLS);
	for (size_t i = 0; i < r.ngroups; i++) {
		const struct frag_group *g = &r.groups[i];

		cr_assert_eq(g->held_gpus, 2 * PER_POOL);
		cr_assert_eq(g->checks + g->unchecked, 2 * PER_POOL);
		cr_assert_leq(g->checks, FRAG_CHECKS_MAX);
		checks += g->checks;
	}
	cr_assert_eq(checks, FRAG_CHECKS_TOTAL);
	cr_assert_eq(r.groups[POOLS - 1].checks, 0);
	cr_assert_eq(r.groups[POOLS - 1].unchecked, 2 * PER_POOL);
	frag_report_release(&r);
	model_release(&m);
}

/* --- every freed GPU is freed by its moves ------------------------------------ */

static struct model_gpu *gpu_at(struct model *m, size_t node, int index)
{
	for (int i = 0; i < m->nodes[node].ngpus; i++)
		if (m->nodes[node].gpus[i].index == index)
			return &m->nodes[node].gpus[i];
	cr_assert_fail("no GPU %d", index);
	return NULL;
}

/* The pod taken off its GPUs, as a deleted pod would be. */
static void lift(struct model *m, size_t pod)
{
	const struct model_pod *p = &m->pods[pod];
	size_t node = (size_t)(model_find_node(m, p->node) - m->nodes);

	for (size_t i = 0; i < p->ngpus; i++) {
		struct model_gpu *g = gpu_at(m, node, p->gpus[i].gpu);

		g->mem_allocated -= p->gpus[i].mem;
		g->npods--;
		m->nodes[node].mem_allocated -= p->gpus[i].mem;
	}
	model_node_derive(&m->nodes[node]);
}

/* Apply the freed GPU's moves to a model built again from the same pods:
 * every move's place checked by fit as it is made, the GPU empty at the end
 * and a whole GPU's request fitting on its node. */
static void check_freed(const struct tpod_spec *pods, size_t npods, int nnodes, const struct frag_freed *f)
{
	struct model m;
	struct fit_request whole;
	struct fit_place place = {0};
	int reason;

	t_cluster_build(&m, nnodes, 8, NULL, pods, npods);
	for (size_t i = 0; i < f->plan.nmoves; i++)
		lift(&m, f->plan.moves[i].pod);
	for (size_t i = 0; i < f->plan.nmoves; i++) {
		const struct defrag_move *mv = &f->plan.moves[i];
		struct fit_request q;

		cr_assert_neq(mv->to.node, f->node);
		defrag_pod_request(&m.pods[mv->pod], &q);
		cr_assert_eq(fit_node(&m, &q, mv->to.node, &place, &reason), 1, "move %zu does not fit", i);
		free(place.gpus);
		fit_take(&m, &q, &mv->to);
	}
	cr_assert_eq(gpu_at(&m, f->node, f->gpu)->mem_allocated, 0);
	cr_assert_eq(gpu_at(&m, f->node, f->gpu)->npods, 0);
	frag_whole_gpu_request(&m, f->node, 8, &whole);
	cr_assert_eq(fit_node(&m, &whole, f->node, &place, &reason), 1);
	free(place.gpus);
	model_release(&m);
}

Test(frag_report, every_freed_gpu_is_freed_by_its_moves_on_random_clusters, .timeout = 60)
{
	size_t freed = 0, blocked = 0;

	t_rng_state = 20261125;
	for (int round = 0; round < 300; round++) {
		struct tpod_spec pods[32];
		int nnodes, allowed[2] = {(int)t_rnd(3), (int)t_rnd(2)};
		size_t npods = t_random_cluster(pods, &nnodes, 3);
		enum defrag_stay stay[32];
		int budget[32];
		struct model m;
		struct defrag_rules rules = {.stay = stay, .budget = budget, .allowed = allowed, .nbudgets = 2,
					     .max_moves = 1 + (int)t_rnd(3)};
		struct frag_report r;

		for (size_t i = 0; i < npods; i++) {
			stay[i] = t_rnd(8) == 0 ? DEFRAG_NO_CONTROLLER : DEFRAG_MOVABLE;
			budget[i] = t_rnd(4) == 0 ? (int)t_rnd(2) : -1;
		}
		t_cluster_build(&m, nnodes, 8, NULL, pods, npods);
		cr_assert_eq(frag_report_build(&m, &rules, NULL, &r), 0);
		for (size_t i = 0; i < r.ngroups; i++) {
			const struct frag_group *g = &r.groups[i];

			for (size_t k = 0; k < g->nfreed; k++) {
				cr_assert_leq(g->freed[k].plan.nmoves, (size_t)rules.max_moves);
				check_freed(pods, npods, nnodes, &g->freed[k]);
			}
			freed += g->nfreed;
			for (int b = 0; b < FRAG_BLOCKED_COUNT; b++)
				blocked += g->blocked[b];
			cr_assert_eq(g->nfreed + g->unchecked + g->blocked[FRAG_BLOCKED_STAY] + g->blocked[FRAG_BLOCKED_BUDGET] +
					     g->blocked[FRAG_BLOCKED_MOVES] + g->blocked[FRAG_BLOCKED_NOWHERE],
				     g->held_gpus, "round %d", round);
		}
		frag_report_release(&r);
		model_release(&m);
	}
	cr_assert_gt(freed, 100, "%zu", freed);
	cr_assert_gt(blocked, 100, "%zu", blocked);
}
