#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cgpu_testobj.h"
#include "model.h"

static void init(struct model *m, bool keep)
{
	struct model_options o = {.force_unit = -1, .keep_pods = keep};

	cr_assert_eq(model_init(m, &o), 0);
}

static bool has_warning(const struct model *m, const char *code)
{
	for (size_t i = 0; i < m->warnings.len; i++)
		if (strcmp(m->warnings.items[i].code, code) == 0)
			return true;
	return false;
}

/* The same cluster added in two orders gives the same figures. */
static void check_join(bool pods_first)
{
	struct model m;
	const struct model_node *a, *b;

	init(&m, true);
	if (!pods_first) {
		tadd_node(&m, tnode("b", "10.0.0.2", "30", "2"));
		tadd_node(&m, tnode("a", "10.0.0.1", "15", "1"));
	}
	tadd_pod(&m, tpod("ns2", "p", "b", "Running", "1", "5", NULL));
	tadd_pod(&m, tpod("ns1", "z", "b", "Running", "0", "2", NULL));
	tadd_pod(&m, tpod("ns1", "y", "b", "Pending", NULL, "3", NULL));
	tadd_pod(&m, tpod("ns1", "x", "a", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("ns1", "done", "a", "Succeeded", "0", "9", NULL));
	tadd_pod(&m, tpod("ns1", "failed", "b", "Failed", "1", "9", NULL));
	if (pods_first) {
		tadd_node(&m, tnode("a", "10.0.0.1", "15", "1"));
		tadd_node(&m, tnode("b", "10.0.0.2", "30", "2"));
	}
	tfinish(&m);
	cr_assert_eq(m.nnodes, 2);
	cr_assert_str_eq(m.nodes[0].name, "a");
	cr_assert_str_eq(m.nodes[1].name, "b");
	a = model_find_node(&m, "a");
	b = model_find_node(&m, "b");
	cr_assert_eq(a, &m.nodes[0]);
	cr_assert_null(model_find_node(&m, "c"));
	cr_assert_eq(a->mem_allocated, 4);
	cr_assert_eq(a->gpus[0].mem_allocated, 4);
	cr_assert_eq(b->gpus[0].mem_allocated, 2);
	cr_assert_eq(b->gpus[1].mem_allocated, 5);
	cr_assert_eq(b->gpus[1].npods, 1);
	cr_assert_eq(b->mem_pending, 3);
	cr_assert_eq(b->mem_allocated, 10);
	cr_assert_eq(m.totals.mem_total, 45);
	cr_assert_eq(m.totals.mem_allocated, 14);
	cr_assert_eq(m.totals.mem_unassigned, 3, "held on b without a GPU index, part of allocated");
	cr_assert_eq(m.totals.mem_pending, 0, "no pod on no node asks for memory");
	cr_assert_eq(m.totals.gpus, 3);
	cr_assert_eq(m.totals.pods, 4);
	cr_assert_eq(m.max_gpus, 2);
	cr_assert(m.any_pending);
	cr_assert_not(m.any_core);
	/* pods sorted namespace then name, per node too */
	cr_assert_eq(m.npods, 4);
	cr_assert_str_eq(m.pods[0].name, "x");
	cr_assert_str_eq(m.pods[1].name, "y");
	cr_assert_str_eq(m.pods[2].name, "z");
	cr_assert_str_eq(m.pods[3].namespace, "ns2");
	cr_assert_eq(b->npods, 3);
	cr_assert_str_eq(m.pods[b->pods[0]].name, "y");
	cr_assert_str_eq(m.pods[b->pods[2]].name, "p");
	cr_assert_eq(m.warnings.len, 0);
	model_release(&m);
}

Test(model, joins_nodes_first)
{
	check_join(false);
}

Test(model, joins_pods_first)
{
	check_join(true);
}

Test(model, summary_mode_keeps_no_pods)
{
	struct model m;

	init(&m, false);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	for (int i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		tadd_pod(&m, tpod("ns", name, "a", "Running", "0", "1", NULL));
	}
	tadd_pod(&m, tpod("ns", "waiting", NULL, "Pending", NULL, "2", NULL));
	cr_assert_eq(m.npods, 1); /* only the unscheduled one, for the line under the table */
	tfinish(&m);
	cr_assert_eq(m.nodes[0].mem_allocated, 100);
	cr_assert_eq(m.nodes[0].npods, 0);
	cr_assert_eq(m.totals.pods, 100);
	cr_assert_eq(m.nunscheduled, 1);
	cr_assert_str_eq(m.pods[m.unscheduled[0]].name, "waiting");
	model_release(&m);
}

Test(model, unscheduled_pods)
{
	struct model m;

	init(&m, true);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_pod(&m, tpod("d", "y", NULL, "Pending", NULL, "4", NULL));
	tadd_pod(&m, tpod("d", "x", NULL, "Pending", NULL, "3", NULL));
	tadd_pod(&m, tpod("d", "nogpu", NULL, "Pending", NULL, "", NULL));
	tfinish(&m);
	cr_assert_eq(m.nunscheduled, 2);
	cr_assert_str_eq(m.pods[m.unscheduled[0]].name, "x");
	cr_assert_null(m.pods[m.unscheduled[0]].node);
	cr_assert_eq(m.totals.unscheduled, 2);
	cr_assert_eq(m.totals.mem_pending, 7);
	cr_assert_eq(m.totals.mem_allocated, 0);
	model_release(&m);
}

Test(model, pods_on_unknown_nodes_are_dropped)
{
	struct model m;
	const char *const only[] = {"a", NULL};
	struct model_options o = {.force_unit = -1, .keep_pods = true, .nodes = only};

	cr_assert_eq(model_init(&m, &o), 0);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_node(&m, tnode("b", NULL, "15", "1"));
	tadd_pod(&m, tpod("d", "p", "b", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("d", "q", "c", "Running", "0", "4", NULL));
	tfinish(&m);
	cr_assert_eq(m.nnodes, 1);
	cr_assert_eq(m.npods, 0);
	cr_assert_eq(m.totals.mem_allocated, 0);
	cr_assert_eq(m.warnings.len, 0);
	model_release(&m);
}

Test(model, namespace_filter_hides_pods_not_sums)
{
	struct model m;
	struct model_options o = {.force_unit = -1, .keep_pods = true, .pod_namespace = "mine"};

	cr_assert_eq(model_init(&m, &o), 0);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_pod(&m, tpod("mine", "p", "a", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("theirs", "q", "a", "Running", "0", "5", NULL));
	tfinish(&m);
	cr_assert_eq(m.npods, 1);
	cr_assert_str_eq(m.pods[0].namespace, "mine");
	cr_assert_eq(m.nodes[0].mem_allocated, 9);
	model_release(&m);
}

Test(model, mixed_units_keep_their_own_unit)
{
	struct model m;

	init(&m, true);
	tadd_node(&m, tnode("gib", NULL, "15", "1"));
	tadd_node(&m, tnode("mib", NULL, "11178", "1"));
	tadd_pod(&m, tpod("d", "p", "gib", "Running", "0", "2", NULL));
	tfinish(&m);
	cr_assert(m.totals.mixed_units);
	/* nodes are not converted; the cluster totals are, to MiB */
	cr_assert_eq(m.nodes[0].unit, UNIT_GIB);
	cr_assert_eq(m.nodes[0].mem_total, 15);
	cr_assert_eq(m.nodes[0].gpus[0].mem_allocated, 2);
	cr_assert_eq(m.pods[0].mem, 2);
	cr_assert_eq(m.pods[0].unit, UNIT_GIB);
	cr_assert_eq(m.nodes[1].unit, UNIT_MIB);
	cr_assert_eq(m.totals.unit, UNIT_MIB);
	cr_assert_eq(m.totals.mem_total, 15 * 1024 + 11178);
	cr_assert_eq(m.totals.mem_allocated, 2048);
	cr_assert_eq(m.units[UNIT_GIB].totals.nodes, 1);
	cr_assert_eq(m.units[UNIT_GIB].totals.mem_total, 15);
	cr_assert_eq(m.units[UNIT_GIB].totals.mem_allocated, 2);
	cr_assert_eq(m.units[UNIT_MIB].totals.nodes, 1);
	cr_assert_eq(m.units[UNIT_MIB].totals.mem_total, 11178);
	cr_assert_eq(m.units[UNIT_SLOTS].totals.nodes, 0);
	cr_assert_not(has_warning(&m, "MixedUnits"));
	model_release(&m);
}

Test(model, nodes_without_per_gpu_placement_count_per_node)
{
	struct model m;
	const struct model_node *cce, *ts;

	init(&m, true);
	tadd_node(&m, cce_node("cce-1", "126"));
	tadd_node(&m, ts_node("ts-1", "2", "4", "8"));
	tadd_node(&m, tnode("cgpu-1", NULL, "15", "1"));
	tadd_pod(&m, limits_pod("d", "app", "cce-1", "volcano.sh/gpu-mem.128Mi", "40",
				"volcano.sh/gpu-core.percentage", "25", NULL));
	tadd_pod(&m, limits_pod("d", "big", NULL, "volcano.sh/gpu-mem.128Mi", "8", NULL));
	tadd_pod(&m, limits_pod("r", "nb", "ts-1", "nvidia.com/gpu", "3", NULL));
	tadd_pod(&m, limits_pod("r", "waiting", NULL, "nvidia.com/gpu", "2", NULL));
	tfinish(&m);
	cce = model_find_node(&m, "cce-1");
	ts = model_find_node(&m, "ts-1");
	cr_assert_not_null(cce);
	cr_assert_not_null(ts);
	cr_assert_eq(cce->unit, UNIT_MIB);
	cr_assert_eq(cce->mem_allocated, 5120);
	cr_assert_eq(cce->mem_total, 126 * 128);
	cr_assert_eq(cce->core_allocated, 25);
	cr_assert_eq(cce->mem_pending, 0);
	cr_assert_eq(ts->unit, UNIT_SLOTS);
	cr_assert_eq(ts->mem_allocated, 3);
	cr_assert_eq(ts->mem_total, 8);
	/* each unit apart; slots never in the memory totals */
	cr_assert(m.totals.mixed_units);
	cr_assert_eq(m.units[UNIT_MIB].totals.mem_allocated, 5120);
	cr_assert_eq(m.units[UNIT_MIB].totals.mem_pending, 1024, "the unscheduled cce pod, in MiB");
	cr_assert_eq(m.units[UNIT_MIB].totals.unscheduled, 1);
	cr_assert(m.units[UNIT_MIB].any_core);
	cr_assert_eq(m.units[UNIT_MIB].max_gpus, 0, "no per-GPU columns for cce");
	cr_assert_eq(m.units[UNIT_SLOTS].totals.mem_allocated, 3);
	cr_assert_eq(m.units[UNIT_SLOTS].totals.mem_pending, 2);
	cr_assert_eq(m.units[UNIT_SLOTS].totals.unscheduled, 1);
	cr_assert_eq(m.units[UNIT_GIB].totals.nodes, 1);
	cr_assert_eq(m.units[UNIT_GIB].max_gpus, 1);
	cr_assert_eq(m.totals.mem_total, 15 * 1024 + 126 * 128);
	cr_assert_eq(m.totals.mem_pending, 1024);
	cr_assert_eq(m.nunscheduled, 2);
	for (size_t i = 0; i < m.nunscheduled; i++) {
		const struct model_pod *p = &m.pods[m.unscheduled[i]];

		if (strcmp(p->name, "big") == 0)
			cr_assert(p->unit == UNIT_MIB && p->mem == 1024);
		else
			cr_assert(p->unit == UNIT_SLOTS && p->mem == 2);
	}
	model_release(&m);
}

static struct k8s_node *withheld_node(void)
{
	struct k8s_node *n = tnode("n", NULL, NULL, "1");

	tkv(&n->capacity, "aliyun.com/gpu-mem", "16");
	tkv(&n->allocatable, "aliyun.com/gpu-mem", "0");
	return n;
}

Test(model, same_warning_once)
{
	struct model m;

	init(&m, false);
	/* the node read twice (a list that started over) says the same twice */
	tadd_node(&m, withheld_node());
	tadd_node(&m, withheld_node());
	tadd_pod(&m, tpod("d", "q", "n", "Running", "3", "1", NULL));
	tfinish(&m);
	cr_assert_eq(m.warnings.len, 2, "the node's warning and IndexBeyondCount, once each");
	cr_assert(has_warning(&m, "IndexBeyondCount"));
	model_release(&m);
}

Test(model, forced_unit)
{
	struct model m;
	struct model_options o = {.force_unit = UNIT_GIB};

	cr_assert_eq(model_init(&m, &o), 0);
	tadd_node(&m, tnode("mib", NULL, "44712", "4"));
	tadd_pod(&m, tpod("d", "p", "mib", "Running", "0", "2048", NULL));
	tfinish(&m);
	cr_assert_eq(m.totals.unit, UNIT_GIB);
	/* four GPUs of 11178 MiB are 10 GiB each, and the node is their sum */
	cr_assert_eq(m.nodes[0].mem_total, 40);
	cr_assert_eq(m.nodes[0].gpus[0].mem_total, 10);
	cr_assert_eq(m.nodes[0].gpus[0].mem_allocated, 2);
	cr_assert_eq(m.totals.mem_total, 40);
	cr_assert(m.rounded, "11178 MiB is not a whole number of GiB");
	cr_assert_not(has_warning(&m, "MixedUnits"));
	model_release(&m);
}

Test(model, warnings_over_allocation_and_index)
{
	struct model m;

	init(&m, false);
	tadd_pod(&m, tpod("d", "big", "a", "Running", "0", "10", NULL));
	tadd_pod(&m, tpod("d", "big2", "a", "Running", "0", "10", NULL));
	tadd_pod(&m, tpod("d", "far", "a", "Running", "3", "1", NULL));
	tadd_pod(&m, tpod("d", "very-far", "a", "Running", "4000", "1", NULL));
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tfinish(&m);
	cr_assert(has_warning(&m, "OverAllocated"));
	cr_assert(has_warning(&m, "IndexBeyondCount"));
	cr_assert_eq(m.nodes[0].mem_allocated, 22);
	cr_assert_str_eq(m.warnings.items[0].object, "node/a");
	model_release(&m);
}

static const char *warning_text(const struct model *m, const char *code, size_t nth)
{
	for (size_t i = 0; i < m->warnings.len; i++)
		if (strcmp(m->warnings.items[i].code, code) == 0 && nth-- == 0)
			return m->warnings.items[i].message;
	return "";
}

Test(model, warnings_count_in_words_not_pod_s)
{
	struct model m;

	init(&m, false);
	tadd_pod(&m, tpod("d", "far", "a", "Running", "3", "1", NULL));
	tadd_pod(&m, tpod("d", "two", "b", "Running", "2", "1", NULL));
	tadd_pod(&m, tpod("d", "two2", "b", "Running", "2", "1", NULL));
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_node(&m, tnode("b", NULL, "30", "2"));
	tfinish(&m);
	cr_assert_str_eq(warning_text(&m, "IndexBeyondCount", 0),
			 "node a: 1 pod holds 1 GiB on GPU3, but the node has 1 GPU");
	cr_assert_str_eq(warning_text(&m, "IndexBeyondCount", 1),
			 "node b: 2 pods hold 2 GiB on GPU2, but the node has 2 GPUs");
	for (size_t i = 0; i < m.warnings.len; i++)
		cr_assert_null(strstr(m.warnings.items[i].message, "(s)"), "%s", m.warnings.items[i].message);
	model_release(&m);
}

Test(model, mode_mismatch)
{
	struct model m;
	struct k8s_node *n;

	init(&m, false);
	/* node that no longer offers gpu-mem, with pods holding some */
	tadd_node(&m, tnode("gone", NULL, NULL, "1"));
	tadd_pod(&m, tpod("d", "p", "gone", "Running", "0", "4", NULL));
	/* node in exclusive mode that still lists gpu-mem */
	n = tnode("excl", NULL, "15", "1");
	tkv(&n->labels, "ack.node.gpu.schedule", "default");
	tadd_node(&m, n);
	tadd_pod(&m, tpod("d", "q", "excl", "Running", "0", "4", NULL));
	tfinish(&m);
	cr_assert_eq(m.nnodes, 1);
	cr_assert_eq(m.warnings.len, 2);
	cr_assert_str_eq(m.warnings.items[0].code, "ModeMismatch");
	cr_assert_str_eq(m.warnings.items[0].object, "node/excl");
	cr_assert_str_eq(m.warnings.items[1].object, "node/gone");
	model_release(&m);
}

Test(model, core_shares)
{
	struct model m;
	struct k8s_node *n = tnode("a", NULL, "30", "2");
	struct k8s_pod *p = tpod("d", "p", "a", "Running", "1", "4", NULL);

	tkv(&n->allocatable, "aliyun.com/gpu-core.percentage", "200");
	tkv(&p->containers[0].limits, "aliyun.com/gpu-core.percentage", "30");
	init(&m, true);
	tadd_node(&m, n);
	tadd_pod(&m, p);
	tfinish(&m);
	cr_assert(m.any_core);
	cr_assert_eq(m.nodes[0].core_total, 200);
	cr_assert_eq(m.nodes[0].gpus[1].core_total, 100);
	cr_assert_eq(m.nodes[0].gpus[1].core_allocated, 30);
	cr_assert_eq(m.totals.core_allocated, 30);
	model_release(&m);
}

Test(model, reset_pods_and_nodes)
{
	struct model m;

	init(&m, true);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_pod(&m, tpod("d", "p", "a", "Running", "0", "4", NULL));
	model_reset_pods(&m);
	model_reset_nodes(&m);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_node(&m, tnode("a", NULL, "20", "1")); /* the same node again: the newer copy wins */
	tadd_pod(&m, tpod("d", "q", "a", "Running", "0", "1", NULL));
	tfinish(&m);
	cr_assert_eq(m.nnodes, 1);
	cr_assert_eq(m.nodes[0].mem_total, 20);
	cr_assert_eq(m.nodes[0].mem_allocated, 1);
	cr_assert_eq(m.npods, 1);
	model_release(&m);
}

Test(model, labels_pool_and_card)
{
	struct model m;
	struct k8s_node *n = tnode("a", NULL, "15", "1");

	tkv(&n->labels, "alibabacloud.com/nodepool-id", "np1");
	tkv(&n->labels, "aliyun.accelerator/nvidia_name", "Tesla-T4");
	tkv(&n->labels, "aliyun.accelerator/nvidia_mem", "15109MiB");
	init(&m, false);
	tadd_node(&m, n);
	tfinish(&m);
	cr_assert_str_eq(m.nodes[0].pool, "np1");
	cr_assert_str_eq(m.nodes[0].gpu_model, "Tesla-T4");
	cr_assert_eq(m.nodes[0].card_mem_mib, 15109);
	cr_assert_str_eq(m.nodes[0].ip, "unknown");
	cr_assert_str_eq(kvlist_get(&m.nodes[0].labels, "alibabacloud.com/nodepool-id"), "np1");
	model_release(&m);
}

Test(model, filters_union_schemes_and_model)
{
	struct model m;
	const struct decode_filter *nf, *pf;

	init(&m, false);
	nf = model_node_filter(&m);
	pf = model_pod_filter(&m);
	cr_assert_not_null(nf);
	cr_assert_not_null(pf);
	cr_assert(decode_filter_match(nf->resource_names, "aliyun.com/gpu-mem", 18));
	cr_assert(decode_filter_match(nf->label_keys, "alibabacloud.com/nodepool-id", 28));
	cr_assert(decode_filter_match(nf->label_keys, "aliyun.accelerator/nvidia_mem", 29));
	cr_assert_not(decode_filter_match(nf->label_keys, "kubernetes.io/hostname", 22));
	cr_assert(decode_filter_match(pf->annotation_keys, "ALIYUN_COM_GPU_MEM_IDX", 22));
	cr_assert(decode_filter_match(pf->resource_names, "aliyun.com/gpu-mem", 18));
	model_release(&m);
}

Test(model, empty)
{
	struct model m;

	init(&m, true);
	tfinish(&m);
	cr_assert_eq(m.nnodes, 0);
	cr_assert_eq(m.totals.mem_total, 0);
	cr_assert_eq(m.max_gpus, 0);
	model_release(&m);
	model_release(&m);
}

Test(model, unscheduled_pods_follow_the_forced_unit)
{
	struct model m;
	struct model_options o = {.force_unit = UNIT_MIB, .keep_pods = true};

	cr_assert_eq(model_init(&m, &o), 0);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_pod(&m, tpod("d", "x", NULL, "Pending", NULL, "4", NULL));
	tfinish(&m);
	cr_assert_eq(m.pods[m.unscheduled[0]].mem, 4096);
	cr_assert_eq(m.totals.mem_pending, 4096);
	model_release(&m);
}

static struct k8s_node *pool_node(const char *name, const char *pool, const char *mem, const char *count)
{
	struct k8s_node *n = tnode(name, "10.0.0.1", mem, count);

	n->ready = true;
	if (pool)
		tkv(&n->labels, "alibabacloud.com/nodepool-id", pool);
	return n;
}

/* Stranded memory: per GPU, what is left beyond whole requests of the
 * pool's most common size; a pool's size is its own, ties go to the
 * smaller size, a pool with no pods strands nothing, and a node that takes
 * no pods strands all it has free. */
static void check_stranded(bool keep)
{
	struct model m;
	struct k8s_node *cordoned = pool_node("e", "np1", "15", "1");
	const struct model_node *a, *b, *c, *d, *e;

	cordoned->unschedulable = true;
	init(&m, keep);
	tadd_node(&m, pool_node("a", "np1", "30", "2"));
	tadd_node(&m, pool_node("b", "np1", "15", "1"));
	tadd_node(&m, pool_node("c", "np2", "15", "1"));
	tadd_node(&m, pool_node("d", NULL, "15", "1"));
	tadd_node(&m, cordoned);
	tadd_pod(&m, tpod("ml", "a1", "a", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("ml", "a2", "a", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("ml", "a3", "a", "Running", "1", "3", NULL));
	tadd_pod(&m, tpod("ml", "b1", "b", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("ml", "c1", "c", "Running", "0", "6", NULL));
	tadd_pod(&m, tpod("ml", "c2", "c", "Running", "0", "2", NULL));
	tfinish(&m);
	a = model_find_node(&m, "a");
	b = model_find_node(&m, "b");
	c = model_find_node(&m, "c");
	d = model_find_node(&m, "d");
	e = model_find_node(&m, "e");
	cr_assert_eq(a->common_request, 4, "three pods of 4 against one of 3");
	cr_assert_eq(a->stranded, 3, "GPU 0 has 7 free: one of 4 and 3 left; GPU 1 has 12: three of 4");
	cr_assert_eq(b->stranded, 3, "11 free: two of 4 and 3 left");
	cr_assert_eq(c->common_request, 2, "one pod of 6 and one of 2: the smaller");
	cr_assert_eq(c->stranded, 1, "7 free: three of 2 and 1 left");
	cr_assert_eq(d->common_request, 0);
	cr_assert_eq(d->stranded, 0, "no pod asks for memory in its pool");
	cr_assert_eq(e->common_request, 4, "its pool's size though it holds no pod");
	cr_assert_eq(e->stranded, 15, "cordoned: nothing it has free hosts a request");
	model_release(&m);
}

Test(model, stranded_per_pool_common_request)
{
	check_stranded(true);
}

/* The summary keeps no pods: the sizes are those of every pod all the same. */
Test(model, stranded_without_kept_pods)
{
	check_stranded(false);
}
