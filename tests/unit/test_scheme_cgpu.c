#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cgpu_testobj.h"
#include "scheme.h"
#include "scheme_cgpu.h"

Test(scheme_cgpu, table_has_cgpu_first)
{
	cr_assert_eq(schemes[0], &scheme_cgpu);
	cr_assert_eq(scheme_find("cgpu"), &scheme_cgpu);
	cr_assert_null(scheme_find("no-such-scheme"));
	cr_assert_null(scheme_find(NULL));
	{
		char *names = scheme_names_text();

		cr_assert_str_eq(names, "cgpu, cce, volcano-vgpu, hami, dra or nvidia");
		free(names);
	}
}

Test(scheme_cgpu, allocation_parse)
{
	struct cgpu_alloc *a = NULL;
	size_t n = 0;

	cr_assert_eq(cgpu_allocation_parse("{\"0\":{\"1\":1},\"1\":{\"1\":7}}", &a, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(a[0].container, 0);
	cr_assert_eq(a[0].gpu, 1);
	cr_assert_eq(a[0].amount, 1);
	cr_assert_eq(a[1].container, 1);
	cr_assert_eq(a[1].gpu, 1);
	cr_assert_eq(a[1].amount, 7);
	free(a);

	cr_assert_eq(cgpu_allocation_parse("{\"0\":{\"0\":\"3\",\"2\":4}}", &a, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(a[0].amount, 3);
	cr_assert_eq(a[1].gpu, 2);
	free(a);

	a = (void *)1;
	cr_assert_eq(cgpu_allocation_parse("{}", &a, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_null(a);
}

Test(scheme_cgpu, allocation_parse_rejects)
{
	static const char *const bad[] = {
		"", "null", "[]", "{\"0\":1}", "{\"x\":{\"0\":1}}", "{\"0\":{\"-1\":1}}", "{\"0\":{\"0\":-1}}",
		"{\"0\":{\"0\":1.5}}", "{\"0\":{\"99999\":1}}", "{\"0\":{\"0\":1099511627777}}",
		"{\"0\":{\"0\":1}", "{\"0\":{\"0\":1},\"0\":{\"1\":1}}", "{\"0\":{\"0\":\"1x\"}}", NULL,
	};
	struct cgpu_alloc *a = NULL;
	size_t n = 0;

	for (size_t i = 0; bad[i]; i++)
		cr_assert_eq(cgpu_allocation_parse(bad[i], &a, &n), -1, "accepted %s", bad[i]);
	cr_assert_eq(cgpu_allocation_parse(NULL, &a, &n), -1);
	cr_assert_null(a);
}

Test(scheme_cgpu, index_parse)
{
	int i = -7;

	cr_assert_eq(cgpu_index_parse("0", &i), 0);
	cr_assert_eq(i, 0);
	cr_assert_eq(cgpu_index_parse("3", &i), 0);
	cr_assert_eq(i, 3);
	cr_assert_eq(cgpu_index_parse("-1", &i), -1);
	cr_assert_eq(cgpu_index_parse("", &i), -1);
	cr_assert_eq(cgpu_index_parse(NULL, &i), -1);
	cr_assert_eq(cgpu_index_parse("1a", &i), -1);
	cr_assert_eq(cgpu_index_parse("99999999999", &i), -1);
	cr_assert_eq(cgpu_index_parse("4096", &i), -1);
}

static int cgpu_decode_node(struct k8s_node *n, struct scheme_node *out, struct warnings *w)
{
	int rc = scheme_cgpu.node_decode(n, out, w);

	k8s_node_free(n);
	return rc;
}

Test(scheme_cgpu, node_without_gpu_mem_is_not_cgpu)
{
	struct scheme_node out;
	struct warnings w = {0};

	cr_assert_eq(cgpu_decode_node(tnode("n", "1.2.3.4", NULL, "1"), &out, &w), 0);
	cr_assert_eq(cgpu_decode_node(tnode("n", "1.2.3.4", "0", "1"), &out, &w), 0);
	warnings_release(&w);
}

Test(scheme_cgpu, node_basic_figures)
{
	struct scheme_node out;
	struct warnings w = {0};

	cr_assert_eq(cgpu_decode_node(tnode("n", NULL, "30", "2"), &out, &w), 1);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_eq(out.mem_total, 30);
	cr_assert_eq(out.gpus[1].mem_total, 15);
	cr_assert_eq(out.gpus[1].index, 1);
	cr_assert_eq(out.unit, UNIT_GIB);
	cr_assert_not(out.unit_from_label);
	cr_assert_null(out.mode);
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	scheme_node_release(NULL);

	/* no gpu-count: one GPU */
	cr_assert_eq(cgpu_decode_node(tnode("n", NULL, "15", NULL), &out, &w), 1);
	cr_assert_eq(out.ngpus, 1);
	scheme_node_release(&out);
	warnings_release(&w);
}

Test(scheme_cgpu, unit_guess_and_label_evidence)
{
	struct scheme_node out;
	struct warnings w = {0};
	struct k8s_node *n;

	/* the original's guess: per-GPU total above 100 is MiB */
	cr_assert_eq(cgpu_decode_node(tnode("n", NULL, "44712", "4"), &out, &w), 1);
	cr_assert_eq(out.unit, UNIT_MIB);
	cr_assert_not(out.unit_from_label);
	scheme_node_release(&out);

	/* a small card counted in MiB is not mistaken for GiB */
	n = tnode("n", NULL, "96", "1");
	tkv(&n->labels, "aliyun.accelerator/nvidia_mem", "96MiB");
	cr_assert_eq(cgpu_decode_node(n, &out, &w), 1);
	cr_assert_eq(out.unit, UNIT_MIB);
	cr_assert(out.unit_from_label);
	scheme_node_release(&out);

	/* 15 GiB of a 16160 MiB card */
	n = tnode("n", NULL, "15", "1");
	tkv(&n->labels, "aliyun.accelerator/nvidia_mem", "16160MiB");
	cr_assert_eq(cgpu_decode_node(n, &out, &w), 1);
	cr_assert_eq(out.unit, UNIT_GIB);
	cr_assert(out.unit_from_label);
	scheme_node_release(&out);
	warnings_release(&w);
}

Test(scheme_cgpu, modes_of_each_edition)
{
	/* the mode as the labels say it, and in the mode command's words */
	static const struct {
		const char *k1, *v1, *k2, *v2, *mode, *word;
		bool isolation, exclusive;
	} cases[] = {
		{"ack.node.gpu.schedule", "cgpu", NULL, NULL, "cgpu", "isolate", true, false},
		{"ack.node.gpu.schedule", "share", NULL, NULL, "share", "share", false, false},
		{"ack.node.gpu.schedule", "core_mem", NULL, NULL, "core_mem", "core", true, false},
		{"ack.node.gpu.schedule", "default", NULL, NULL, "default", "exclusive", false, true},
		{"ack.node.gpu.schedule", "mps", NULL, NULL, "mps", NULL, false, false},
		{"cgpu", "true", "cgpu.disable.isolation", "false", "cgpu", "isolate", true, false},
		{"cgpu", "true", "cgpu.disable.isolation", "true", "cgpu", "share", false, false},
		{"cgpu", "false", NULL, NULL, "default", "exclusive", false, true},
		{"gpushare", "true", NULL, NULL, "share", "share", false, false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scheme_node out;
		struct warnings w = {0};
		struct k8s_node *n = tnode("n", NULL, "15", "1");

		tkv(&n->labels, cases[i].k1, cases[i].v1);
		if (cases[i].k2)
			tkv(&n->labels, cases[i].k2, cases[i].v2);
		cr_assert_eq(cgpu_decode_node(n, &out, &w), 1);
		cr_assert_str_eq(out.mode, cases[i].mode, "case %zu", i);
		cr_assert_eq(out.isolation, cases[i].isolation, "case %zu", i);
		if (cases[i].word)
			cr_assert_str_eq(out.mode_word, cases[i].word, "case %zu", i);
		else
			cr_assert_null(out.mode_word, "case %zu", i);
		cr_assert_eq(out.exclusive, cases[i].exclusive, "case %zu", i);
		cr_assert_eq(w.len, 0, "case %zu", i);
		scheme_node_release(&out);
		warnings_release(&w);
	}
}

/* No edition's label: no mode as the labels say it, and the word the mode
 * command says for such a node. */
Test(scheme_cgpu, unlabelled_node_has_the_mode_commands_word)
{
	struct scheme_node out;
	struct warnings w = {0};
	struct k8s_node *n = tnode("n", NULL, "15", "1");

	tkv(&n->labels, "gpushare", "false");
	cr_assert_eq(cgpu_decode_node(n, &out, &w), 1);
	cr_assert_null(out.mode);
	cr_assert_str_eq(out.mode_word, "unlabelled");
	cr_assert_not(out.exclusive);
	scheme_node_release(&out);
	warnings_release(&w);
}

Test(scheme_cgpu, contradicting_labels_warn)
{
	struct scheme_node out;
	struct warnings w = {0};
	struct k8s_node *n = tnode("n", NULL, "15", "1");

	tkv(&n->labels, "cgpu", "false");
	tkv(&n->labels, "ack.node.gpu.schedule", "cgpu");
	tkv(&n->labels, "ack.node.gpu.placement", "spread");
	cr_assert_eq(cgpu_decode_node(n, &out, &w), 1);
	cr_assert_str_eq(out.placement, "spread");
	cr_assert(out.spread);
	cr_assert_eq(w.len, 1);
	cr_assert_str_eq(w.items[0].code, "ContradictoryLabels");
	cr_assert_str_eq(w.items[0].object, "node/n");
	cr_assert(strstr(w.items[0].message, "cgpu=false"));
	scheme_node_release(&out);
	warnings_release(&w);
}

static int cgpu_decode_pod(struct k8s_pod *p, struct scheme_pod *out, struct warnings *w)
{
	return scheme_cgpu.pod_decode(p, out, w);
}

Test(scheme_cgpu, pod_single_index)
{
	struct k8s_pod *p = tpod("d", "p", "n", "Running", "2", "3", "", "4", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	tkv(&p->annotations, "ALIYUN_COM_GPU_MEM_ASSIGNED", "true");
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.mem, 7);
	cr_assert_eq(out.container_mem[0], 3);
	cr_assert_eq(out.container_mem[1], 0);
	cr_assert_eq(out.container_mem[2], 4);
	cr_assert_eq(out.nclaims, 1);
	cr_assert_eq(out.claims[0].gpu, 2);
	cr_assert_eq(out.claims[0].mem, 7);
	cr_assert(out.assigned);
	cr_assert_str_eq(out.node, "n");
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_cgpu, pod_without_index_is_pending)
{
	struct k8s_pod *p = tpod("d", "p", "n", "Pending", NULL, "5", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 1);
	cr_assert_eq(out.claims[0].gpu, -1);
	cr_assert_eq(out.claims[0].mem, 5);
	cr_assert_not(out.assigned);
	cr_assert_eq(w.len, 0);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	/* non-numeric index: pending too, and said so */
	p = tpod("d", "p", "n", "Running", "x", "5", NULL);
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.claims[0].gpu, -1);
	cr_assert_eq(w.len, 1);
	cr_assert_str_eq(w.items[0].code, "BadAnnotation");
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_cgpu, pod_multi_gpu_allocation_wins)
{
	struct k8s_pod *p = tpod("d", "p", "n", "Running", "0", "1", "7", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	tkv(&p->annotations, "scheduler.framework.gpushare.allocation", "{\"0\":{\"1\":1},\"1\":{\"1\":3,\"2\":4}}");
	tkv(&p->annotations, "gpushare.alibabacloud.com/core-percentage", "{\"1\":{\"2\":30}}");
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.mem, 8);
	cr_assert_eq(out.nclaims, 3);
	cr_assert_eq(out.claims[0].container, 0);
	cr_assert_eq(out.claims[0].gpu, 1);
	cr_assert_eq(out.claims[0].mem, 1);
	cr_assert_eq(out.claims[1].container, 1);
	cr_assert_eq(out.claims[1].gpu, 1);
	cr_assert_eq(out.claims[1].mem, 3);
	cr_assert_eq(out.claims[2].gpu, 2);
	cr_assert_eq(out.claims[2].mem, 4);
	cr_assert_eq(out.claims[2].core, 30);
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_cgpu, pod_empty_or_bad_allocation_falls_back_to_index)
{
	struct k8s_pod *p = tpod("d", "p", "n", "Running", "1", "4", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	tkv(&p->annotations, "scheduler.framework.gpushare.allocation", "{}");
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 1);
	cr_assert_eq(out.claims[0].gpu, 1);
	cr_assert_eq(w.len, 0);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = tpod("d", "p", "n", "Running", "1", "4", NULL);
	tkv(&p->annotations, "scheduler.framework.gpushare.allocation", "{broken");
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.claims[0].gpu, 1);
	cr_assert_eq(w.len, 1);
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_cgpu, pod_without_gpu_memory_is_not_cgpu)
{
	struct k8s_pod *p = tpod("d", "p", "n", "Running", "0", "", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 0);
	k8s_pod_free(p);
	p = tpod("d", "p", "n", "Running", NULL, NULL);
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 0);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_cgpu, pod_core_share)
{
	struct k8s_pod *p = tpod("d", "p", "n", "Running", "0", "4", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	tkv(&p->containers[0].limits, "aliyun.com/gpu-core.percentage", "30");
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.core, 30);
	cr_assert_eq(out.container_core[0], 30);
	cr_assert_eq(out.claims[0].core, 30);
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_cgpu, pod_ask_spreads_over_the_gpu_count_label)
{
	struct k8s_pod *p = tpod("d", "p", NULL, "Pending", NULL, "10", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	tkv(&p->containers[0].limits, "aliyun.com/gpu-core.percentage", "50");
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.ask.gpus, 1);
	cr_assert_eq(out.ask.mem, 10);
	cr_assert_eq(out.ask.core, 50);
	scheme_pod_release(&out);
	tkv(&p->labels, "aliyun.com/gpu-count", "3");
	cr_assert_eq(cgpu_decode_pod(p, &out, &w), 1);
	cr_assert_eq(out.ask.gpus, 3);
	cr_assert_eq(out.ask.mem, 4, "rounded up: no GPU holds less than its part");
	cr_assert_eq(out.ask.core, 17);
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}
