/* The defrag planner: per rule on small clusters made in the test, and
 * against an exhaustive search of every set of up to three pods on random
 * small clusters (a fixed seed). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "defrag.h"
#include "t_gpu_cluster.h"

static size_t pod_named(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->npods; i++)
		if (strcmp(m->pods[i].name, name) == 0)
			return i;
	cr_assert_fail("no pod %s", name);
	return 0;
}

static struct fit_request ask(int gib)
{
	return (struct fit_request){.scheme = "cgpu", .mem = gib, .gpus = 1};
}

Test(defrag, nothing_to_move_when_it_fits)
{
	static const struct tpod_spec pods[] = {{0, 0, 4}};
	struct model m;
	struct fit_request r = ask(4);
	struct defrag_rules rules = {.max_moves = 3};
	struct defrag_plan p;

	t_cluster_build(&m, 1, 8, NULL, pods, 1);
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert_not(p.needed);
	defrag_plan_release(&p);
	model_release(&m);
}

/* Two one-move plans: the one that moves less memory wins. */
Test(defrag, the_plan_moving_less_memory_wins)
{
	/* free: node-0 2 and 5, node-1 4 and 0; 7 fits nowhere */
	static const struct tpod_spec pods[] = {{0, 0, 6}, {0, 1, 3}, {1, 0, 4}, {1, 1, 8}};
	struct model m;
	struct fit_request r = ask(7);
	struct defrag_rules rules = {.max_moves = 3};
	struct defrag_plan p;

	t_cluster_build(&m, 2, 8, NULL, pods, 4);
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert(p.needed);
	cr_assert(p.found);
	cr_assert_eq(p.nmoves, 1);
	/* p01 (3) to node-1's 4 free, or p02 (4) to node-0's 5 free; p00 (6) has nowhere to go */
	cr_assert_str_eq(m.pods[p.moves[0].pod].name, "p01");
	cr_assert_eq(p.mem_moved_mib, 3 * 1024);
	cr_assert_str_eq(m.nodes[p.moves[0].to.node].name, "node-1");
	cr_assert_eq(p.moves[0].to.gpus[0], 0);
	cr_assert_eq(p.moves[0].from_gpus[0], 1);
	cr_assert_str_eq(m.nodes[p.target.node].name, "node-0");
	cr_assert_eq(p.target.gpus[0], 1);
	defrag_plan_release(&p);
	model_release(&m);
}

/* Pods that must stay, and a budget that allows no disruption. */
Test(defrag, pods_that_stay_and_budgets)
{
	/* free: node-0 5 and 4, node-1 0 and 4; 6 fits nowhere */
	static const struct tpod_spec pods[] = {{0, 0, 3}, {0, 1, 4}, {1, 0, 8}, {1, 1, 4}};
	struct model m;
	struct fit_request r = ask(6);
	enum defrag_stay stay[4] = {0};
	int budget[4] = {-1, -1, -1, -1}, allowed[1] = {0};
	struct defrag_rules rules = {.stay = stay, .budget = budget, .allowed = allowed, .nbudgets = 1, .max_moves = 3};
	struct defrag_plan p;

	t_cluster_build(&m, 2, 8, NULL, pods, 4);
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert_eq(p.nmoves, 1);
	cr_assert_str_eq(m.pods[p.moves[0].pod].name, "p00");
	defrag_plan_release(&p);
	/* p00 has no controller: p01 (4, node-0 first of two such plans) goes instead */
	stay[pod_named(&m, "p00")] = DEFRAG_NO_CONTROLLER;
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert_eq(p.nmoves, 1);
	cr_assert_str_eq(m.pods[p.moves[0].pod].name, "p01");
	defrag_plan_release(&p);
	/* p01's budget allows no disruption: p03 */
	budget[pod_named(&m, "p01")] = 0;
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert_eq(p.nmoves, 1);
	cr_assert_str_eq(m.pods[p.moves[0].pod].name, "p03");
	defrag_plan_release(&p);
	allowed[0] = 1;
	budget[pod_named(&m, "p03")] = 0;
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert_eq(p.nmoves, 1);
	defrag_plan_release(&p);
	/* p03 of higher priority (p01 a DaemonSet's): p02 (8) alone is left, with nowhere to go */
	budget[pod_named(&m, "p03")] = -1;
	stay[pod_named(&m, "p03")] = DEFRAG_PRIORITY;
	stay[pod_named(&m, "p01")] = DEFRAG_DAEMONSET;
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert(p.needed);
	cr_assert_not(p.found);
	defrag_plan_release(&p);
	model_release(&m);
}

/* More moves than allowed: no plan. */
Test(defrag, max_moves)
{
	static const struct tpod_spec pods[] = {{0, 0, 2}, {0, 0, 2}, {0, 0, 2}, {0, 1, 8}, {1, 0, 2}, {1, 1, 8}};
	struct model m;
	struct fit_request r = ask(7);
	enum defrag_stay stay[6] = {0, 0, 0, 0, DEFRAG_STATIC, DEFRAG_STATIC};
	struct defrag_rules rules = {.stay = stay, .max_moves = 2};
	struct defrag_plan p;

	t_cluster_build(&m, 2, 8, NULL, pods, 6);
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert(p.needed);
	cr_assert_not(p.found);
	defrag_plan_release(&p);
	rules.max_moves = 3;
	cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
	cr_assert(p.found);
	cr_assert_eq(p.nmoves, 3);
	for (size_t i = 0; i < 3; i++)
		cr_assert_str_eq(m.nodes[p.moves[i].to.node].name, "node-1");
	defrag_plan_release(&p);
	model_release(&m);
}

/* --- the property test ------------------------------------------------------ */

struct best {
	int found;
	size_t n;
	int64_t mib;
};

static void try_set(struct model *m, const struct fit_request *r, const struct defrag_rules *rules, const size_t *set,
		    size_t k, struct best *b)
{
	int64_t mib = 0;
	int rc;

	for (size_t i = 0; i < k; i++)
		mib += defrag_pod_mib(m, &m->pods[set[i]]);
	rc = defrag_check_set(m, r, rules, set, k, NULL);
	cr_assert_geq(rc, 0);
	if (rc == 1 && (!b->found || k < b->n || (k == b->n && mib < b->mib)))
		*b = (struct best){1, k, mib};
}

/* The best plan by trying every set of up to three pods, on any nodes. */
static struct best exhaustive(struct model *m, const struct fit_request *r, const struct defrag_rules *rules)
{
	struct best b = {0};
	size_t n = m->npods, set[3];

	for (set[0] = 0; set[0] < n; set[0]++) {
		try_set(m, r, rules, set, 1, &b);
		for (set[1] = set[0] + 1; set[1] < n; set[1]++) {
			try_set(m, r, rules, set, 2, &b);
			for (set[2] = set[1] + 1; set[2] < n; set[2]++)
				try_set(m, r, rules, set, 3, &b);
		}
	}
	return b;
}

static void allocated(const struct model *m, int64_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < m->nnodes; i++)
		for (int g = 0; g < m->nodes[i].ngpus; g++)
			out[k++] = m->nodes[i].gpus[g].mem_allocated;
}

Test(defrag, no_better_plan_than_the_planner_s_on_random_clusters, .timeout = 60)
{
	size_t with_plan = 0, without = 0;

	t_rng_state = 20261125;
	for (int round = 0; round < 400; round++) {
		struct tpod_spec pods[32];
		int nnodes, allowed[2];
		size_t npods = t_random_cluster(pods, &nnodes, 4);
		struct best best;
		int64_t before[16], after[16];
		enum defrag_stay stay[32];
		int budget[32];
		struct model m;
		struct fit_request r = ask(3 + (int)t_rnd(6));
		struct defrag_rules rules = {.stay = stay, .budget = budget, .allowed = allowed, .nbudgets = 2, .max_moves = 3};
		struct defrag_plan p;

		t_cluster_build(&m, nnodes, 8, NULL, pods, npods);
		cr_assert_eq(m.npods, npods);
		allowed[0] = (int)t_rnd(3);
		allowed[1] = (int)t_rnd(2);
		for (size_t i = 0; i < npods; i++) {
			stay[i] = t_rnd(6) == 0 ? DEFRAG_NO_CONTROLLER : DEFRAG_MOVABLE;
			budget[i] = t_rnd(3) == 0 ? (int)t_rnd(2) : -1;
		}
		allocated(&m, before);
		cr_assert_eq(defrag_plan(&m, &r, &rules, &p), 0);
		allocated(&m, after);
		cr_assert_arr_eq(before, after, (size_t)nnodes * 2 * sizeof(int64_t), "round %d: the model was not put back", round);
		if (!p.needed) {
			defrag_plan_release(&p);
			model_release(&m);
			continue;
		}
		best = exhaustive(&m, &r, &rules);
		cr_assert_eq(p.found, best.found, "round %d: planner %d, exhaustive %d", round, p.found, best.found);
		if (best.found) {
			size_t set[3];

			with_plan++;
			cr_assert_eq(p.nmoves, best.n, "round %d: %zu moves, exhaustive %zu", round, p.nmoves, best.n);
			cr_assert_eq(p.mem_moved_mib, best.mib, "round %d", round);
			for (size_t i = 0; i < p.nmoves; i++) {
				set[i] = p.moves[i].pod;
				cr_assert_neq(p.moves[i].to.node, p.moves[i].from);
			}
			cr_assert_eq(defrag_check_set(&m, &r, &rules, set, p.nmoves, NULL), 1, "round %d", round);
		} else {
			without++;
		}
		defrag_plan_release(&p);
		model_release(&m);
	}
	/* the cases cover both answers */
	cr_assert_gt(with_plan, 50, "%zu", with_plan);
	cr_assert_gt(without, 20, "%zu", without);
}
