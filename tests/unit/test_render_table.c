#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cgpu_testobj.h"
#include "columns.h"
#include "render.h"

static char *summary(struct model *m, bool wide)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct kerr err = KERR_INIT;

	cr_assert_eq(render_summary(f, m, wide, &err), 0);
	cr_assert_eq(render_unscheduled(f, m, &err), 0);
	fclose(f);
	return buf;
}

static char *details(struct model *m)
{
	return t_rendered(render_details, m);
}

static void golden(const char *got, const char *name)
{
	char *want = tslurp(name);

	cr_assert_str_eq(got, want, "got:\n%s\nwant:\n%s", got, want);
	free(want);
}

static void init(struct model *m, bool keep)
{
	struct model_options o = {.force_unit = -1, .keep_pods = keep};

	cr_assert_eq(model_init(m, &o), 0);
}

Test(render_table, published_two_nodes)
{
	struct model m;
	char *out;

	init(&m, false);
	build_published_two_nodes(&m);
	tfinish(&m);
	out = summary(&m, false);
	golden(out, GOLDEN_DIR "published-two-nodes.txt");
	free(out);
	model_release(&m);
}

Test(render_table, published_mib_with_pending)
{
	struct model m;
	char *out;

	init(&m, false);
	build_published_mib(&m);
	tfinish(&m);
	out = summary(&m, false);
	golden(out, GOLDEN_DIR "published-mib.txt");
	free(out);
	model_release(&m);
}

Test(render_table, seed002_empty_node)
{
	struct model m;
	char *out;

	init(&m, false);
	build_seed002(&m, false);
	tfinish(&m);
	out = summary(&m, false);
	golden(out, GOLDEN_DIR "seed002-empty.txt");
	free(out);
	model_release(&m);
}

Test(render_table, seed002_details)
{
	struct model m;
	char *out;

	init(&m, true);
	build_seed002(&m, true);
	tfinish(&m);
	out = details(&m);
	golden(out, GOLDEN_DIR "seed002-details.txt");
	free(out);
	model_release(&m);
}

Test(render_table, two_gpu_node)
{
	struct model m;
	char *out;

	init(&m, false);
	tadd_node(&m, tnode("n1", "10.0.0.1", "14", "2"));
	tfinish(&m);
	out = summary(&m, false);
	cr_assert(strstr(out, "n1    10.0.0.1   0/7                    0/7                    0/14\n"), "%s", out);
	free(out);
	model_release(&m);
}

Test(render_table, fewer_gpus_show_zero_and_truncated_percent)
{
	struct model m;
	char *out;

	init(&m, false);
	tadd_node(&m, tnode("a", NULL, "14", "2"));
	tadd_node(&m, tnode("b", "10.0.0.2", "7", "1"));
	tadd_pod(&m, tpod("x", "p", "a", "Running", "1", "2", NULL));
	tadd_pod(&m, tpod("x", "q", "b", "Running", "0", "4", NULL));
	tfinish(&m);
	out = summary(&m, false);
	/* 6/21 = 28.57%: truncated */
	cr_assert_str_eq(out,
			 "NAME  IPADDRESS  GPU0(Allocated/Total)  GPU1(Allocated/Total)  GPU Memory(GiB)\n"
			 "a     unknown    0/7                    2/7                    2/14\n"
			 "b     10.0.0.2   4/7                    0/0                    4/7\n"
			 "-------------------------------------------\n"
			 "Allocated/Total GPU Memory In Cluster:\n"
			 "6/21 (28%)\n");
	free(out);
	model_release(&m);
}

Test(render_table, details_pending_column_and_namespace_filter)
{
	struct model m;
	struct model_options o = {.force_unit = -1, .keep_pods = true, .pod_namespace = "team"};
	char *out;

	cr_assert_eq(model_init(&m, &o), 0);
	tadd_node(&m, tnode("n", "10.0.0.1", "30", "2"));
	tadd_pod(&m, tpod("team", "p1", "n", "Running", "1", "3", NULL));
	tadd_pod(&m, tpod("team", "p0", "n", "Pending", NULL, "2", NULL));
	tadd_pod(&m, tpod("other", "hidden", "n", "Running", "0", "5", NULL));
	tfinish(&m);
	out = details(&m);
	cr_assert_str_eq(out,
			 "NAME:       n\n"
			 "IPADDRESS:  10.0.0.1\n"
			 "\n"
			 "NAME         NAMESPACE  GPU0(Allocated)  GPU1(Allocated)  Pending(Allocated)\n"
			 "p0*          team       0                0                2\n"
			 "p1           team       0                3                0\n"
			 "Allocated :  10 (33%)\n"
			 "Total :      30\n"
			 "-----------------------------------------\n"
			 "\n"
			 "Allocated/Total GPU Memory In Cluster:  10/30 (33%)\n"
			 "* GPU not yet assigned to the pod by the device plugin\n");
	free(out);
	model_release(&m);
}

Test(render_table, unscheduled_line)
{
	struct model m;
	char *out;

	init(&m, false);
	build_seed002(&m, false);
	tadd_pod(&m, tpod("default", "y", NULL, "Pending", NULL, "4", NULL));
	tadd_pod(&m, tpod("default", "x", NULL, "Pending", NULL, "3", NULL));
	tfinish(&m);
	out = summary(&m, false);
	cr_assert(strstr(out, "0/15 (0%)\nNot scheduled yet: 2 pods asking for 7 GiB: default/x, default/y\n"),
		  "%s", out);
	free(out);
	model_release(&m);
}

Test(render_table, wide_columns)
{
	struct model m;
	struct k8s_node *n = tnode("n", "10.0.0.1", "15", "1");
	char *out;

	tkv(&n->labels, "ack.node.gpu.schedule", "cgpu");
	tkv(&n->labels, "ack.node.gpu.placement", "binpack");
	tkv(&n->labels, "alibabacloud.com/nodepool-id", "np-1");
	tkv(&n->labels, "aliyun.accelerator/nvidia_name", "Tesla-V100");
	tkv(&n->labels, "aliyun.accelerator/nvidia_mem", "16160MiB");
	n->capacity.items[0].value[0] = '2'; /* capacity 25: 10 GiB withheld */
	n->ready = true;
	init(&m, false);
	tadd_node(&m, n);
	tfinish(&m);
	out = summary(&m, true);
	cr_assert(strstr(out, "NAME  IPADDRESS  GPU0(Allocated/Total)  GPU Memory(GiB)  MODEL       CARD MEMORY(MiB)  "
			      "MODE     ISOLATION  PLACEMENT  POOL  UNHEALTHY(GiB)  STATUS  MAX FREE/GPU(GiB)  STRANDED(GiB)\n"
			      "n     10.0.0.1   0/15                   0/15             Tesla-V100  16160             "
			      "isolate  on         binpack    np-1  10              Ready   15                 -\n"),
		  "%s", out);
	free(out);
	model_release(&m);
}

Test(render_table, empty_cluster)
{
	struct model m;
	char *out;

	init(&m, false);
	tfinish(&m);
	out = summary(&m, false);
	cr_assert_str_eq(out, "NAME  IPADDRESS  GPU Memory(GiB)\n\nAllocated/Total GPU Memory In Cluster:\n0/0 (0%)\n");
	free(out);
	out = details(&m);
	cr_assert_str_eq(out, "Allocated/Total GPU Memory In Cluster:  0/0 (0%)\n");
	free(out);
	model_release(&m);
}

Test(render_table, warnings_lines)
{
	struct model m;
	char *buf;

	init(&m, false);
	tadd_node(&m, tnode("n", "10.0.0.1", "15", "1"));
	tadd_pod(&m, tpod("d", "p", "n", "Running", "0", "16", NULL));
	tfinish(&m);
	buf = t_rendered(render_warnings, &m);
	cr_assert_str_eq(buf, "Warning: node n: GPU0 has 16/15 GiB allocated, more than it offers\n");
	free(buf);
	model_release(&m);
}

Test(render_table, columns_table_is_consistent)
{
	bool in_json[COL_COUNT] = {false}, in_live[COL_COUNT] = {false};

	for (size_t i = 0; i < column_json_count; i++) {
		const struct column *c = &columns[column_json_order[i]];

		cr_assert_not(in_json[c->id], "column %d twice in the document", c->id);
		in_json[c->id] = true;
		if (c->json_in != COL_NONE)
			cr_assert(in_json[c->json_in], "column %d before the object it sits in", c->id);
	}
	for (size_t i = 0; i < column_live_count; i++) {
		cr_assert_not(in_live[column_live_order[i]]);
		in_live[column_live_order[i]] = true;
	}
	for (size_t i = 0; i < COL_COUNT; i++) {
		const struct column *c = &columns[i];

		cr_assert_eq(c->id, (enum column_id)i, "column %zu out of place", i);
		/* a table column has its header and cell */
		cr_assert_eq(c->when != COLW_NEVER, c->header && c->cell, "column %zu", i);
		/* a report column has its key and value, and its place in the order */
		cr_assert_eq(c->json_key != NULL, c->value != NULL, "column %zu", i);
		cr_assert_eq(c->json_key != NULL, in_json[i], "column %zu", i);
		/* a live column has its short header and a cell, and its place */
		cr_assert_eq(c->live != LIVE_NO && i != COL_NAME, in_live[i], "column %zu", i);
		if (c->live != LIVE_NO)
			cr_assert(c->live_header && (c->live_cell || c->cell), "column %zu", i);
		cr_assert_eq(c->sort_key != NULL, c->compare != NULL, "column %zu", i);
		if (c->sort_key)
			cr_assert_eq(column_by_sort_key(c->sort_key), c);
		for (size_t j = 0; j < i && c->json_key; j++)
			if (columns[j].json_key && columns[j].json_in == c->json_in)
				cr_assert_str_neq(c->json_key, columns[j].json_key);
	}
	cr_assert_not_null(columns[COL_NAME].live_header, "the live view names its nodes' column");
	cr_assert_null(column_by_sort_key("no-such-key"));
	cr_assert_eq(column_percent(2, 7), 28);
	cr_assert_eq(column_percent(29, 100), 29);
	cr_assert_eq(column_percent(5, 0), 0);
}

Test(render_table, sort_orders)
{
	struct model m;
	const struct column *c;

	init(&m, false);
	tadd_node(&m, tnode("full", NULL, "10", "1"));
	tadd_node(&m, tnode("empty", NULL, "30", "1"));
	tadd_pod(&m, tpod("d", "p", "full", "Running", "0", "9", NULL));
	tfinish(&m);
	c = column_by_sort_key("memory");
	cr_assert_gt(c->compare(model_find_node(&m, "full"), model_find_node(&m, "empty")), 0);
	c = column_by_sort_key("free");
	cr_assert_lt(c->compare(model_find_node(&m, "full"), model_find_node(&m, "empty")), 0);
	c = column_by_sort_key("name");
	cr_assert_lt(c->compare(model_find_node(&m, "empty"), model_find_node(&m, "full")), 0);
	model_release(&m);
}

/* cGPU (GiB), CCE (MiB, no per-GPU split) and time-slicing (slots). */
static void mixed_cluster(struct model *m)
{
	init(m, true);
	tadd_node(m, cce_node("cce-1", "126"));
	tadd_node(m, ts_node("ts-1", "2", "4", "8"));
	tadd_node(m, tnode("cgpu-1", "10.1.0.3", "15", "1"));
	tadd_pod(m, tpod("d", "c", "cgpu-1", "Running", "0", "4", NULL));
	tadd_pod(m, limits_pod("d", "app", "cce-1", "volcano.sh/gpu-mem.128Mi", "40",
			       "volcano.sh/gpu-core.percentage", "25", NULL));
	tadd_pod(m, limits_pod("d", "big", NULL, "volcano.sh/gpu-mem.128Mi", "8", NULL));
	tadd_pod(m, limits_pod("r", "nb", "ts-1", "nvidia.com/gpu", "3", NULL));
	tadd_pod(m, limits_pod("r", "waiting", NULL, "nvidia.com/gpu", "1", NULL));
	tfinish(m);
}

Test(render_table, mixed_units_one_table_each)
{
	struct model m;
	char *out;

	mixed_cluster(&m);
	out = summary(&m, false);
	cr_assert_str_eq(out,
				 "NAME    IPADDRESS  GPU0(Allocated/Total)  GPU Memory(GiB)\n"
				 "cgpu-1  10.1.0.3   4/15                   4/15\n"
				 "----------------------------------------------\n"
				 "Allocated/Total GPU Memory In Cluster:\n"
				 "4/15 (26%)\n"
				 "\n"
				 "NAME   IPADDRESS  GPU Memory(MiB)  GPU Core(%)\n"
				 "cce-1  10.1.0.1   5120/16128       25/100\n"
				 "-----------------------------------------------------\n"
				 "Allocated/Total GPU Memory In Cluster:\n"
				 "5120/16128 (31%)\n"
				 "Allocated/Total GPU Core(%) In Cluster:\n"
				 "25/100 (25%)\n"
				 "Per-GPU split not published by cce nodes: figures are per node.\n"
				 "\n"
				 "NAME  IPADDRESS  GPUs(slots)\n"
				 "ts-1  10.1.0.2   3/8\n"
				 "--------------------------------------\n"
				 "Allocated/Total GPU Slots In Cluster:\n"
				 "3/8 (37%)\n"
				 "Per-GPU split not published by nvidia nodes: figures are per node.\n"
				 "Not scheduled yet: 2 pods asking for 1024 MiB and 1 slot: d/big, r/waiting\n",
				 "%s", out);
	free(out);
	out = details(&m);
	cr_assert_str_eq(out,
				 "NAME:       cgpu-1\n"
				 "IPADDRESS:  10.1.0.3\n"
				 "\n"
				 "NAME         NAMESPACE  GPU0(Allocated GiB)\n"
				 "c            d          4\n"
				 "Allocated :  4 (26%)\n"
				 "Total :      15\n"
				 "-----------------\n"
				 "\n"
				 "NAME:       cce-1\n"
				 "IPADDRESS:  10.1.0.1\n"
				 "\n"
				 "NAME         NAMESPACE   NODE(Allocated MiB)  GPU Core(%)\n"
				 "app          d           5120                 25\n"
				 "Allocated :  5120 (31%)\n"
				 "Total :      16128\n"
				 "-----------------\n"
				 "\n"
				 "NAME:       ts-1\n"
				 "IPADDRESS:  10.1.0.2\n"
				 "\n"
				 "NAME         NAMESPACE  NODE(Allocated slots)\n"
				 "nb           r          3\n"
				 "Allocated :  3 (37%)\n"
				 "Total :      8\n"
				 "-----------------\n"
				 "\n"
				 "Allocated/Total GPU Memory(GiB) In Cluster:  4/15 (26%)\n"
				 "Allocated/Total GPU Memory(MiB) In Cluster:  5120/16128 (31%)\n"
				 "Allocated/Total GPU Slots In Cluster:        3/8 (37%)\n",
				 "%s", out);
	free(out);
	model_release(&m);
}

Test(render_table, warnings_name_the_object)
{
	struct model m = {0};
	char *buf;

	warnings_add(&m.warnings, "MalformedAnnotation", "pod/ns/p", "annotation a: cannot be read");
	warnings_add(&m.warnings, "X", "node/n", "node n: says its name");
	warnings_add(&m.warnings, "Y", NULL, "about nothing");
	buf = t_rendered(render_warnings, &m);
	cr_assert_str_eq(buf, "Warning: pod ns/p: annotation a: cannot be read\n"
			      "Warning: node n: says its name\n"
			      "Warning: about nothing\n");
	free(buf);
	warnings_release(&m.warnings);
}

static char *warning_text(const struct warnings *w, size_t max_lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct kerr err = KERR_INIT;

	cr_assert_not_null(f);
	cr_assert_eq(render_warning_list(f, w, max_lines, &err), 0);
	fclose(f);
	return buf;
}

Test(render_table, warnings_of_one_kind_grouped)
{
	struct warnings w = {0};
	char *out;

	for (int i = 0; i < 9; i++) {
		char obj[32];

		snprintf(obj, sizeof(obj), "pod/ns/p%d", i);
		warnings_add(&w, "NoNodeSelector", obj, "asks for GPU memory without a nodeSelector");
		if (i == 1)
			warnings_add(&w, "OverAllocated", "node/n\x1b[2J", "GPU0 has 20/16 GiB allocated");
	}
	warnings_add(&w, "Few", "node/a", "one");
	warnings_add(&w, "Few", "node/b", "two");
	out = warning_text(&w, 0);
	cr_assert_str_eq(out,
			 "Warning: NoNodeSelector on 9 objects: pod ns/p0: asks for GPU memory without a nodeSelector; "
			 "also pod ns/p1, pod ns/p2, pod ns/p3, pod ns/p4, pod ns/p5 and 3 more\n"
			 "Warning: node n\\x1b[2J: GPU0 has 20/16 GiB allocated\n"
			 "Warning: node a: one\n"
			 "Warning: node b: two\n");
	free(out);
	/* a screenful at most: the last line counts what is left out */
	out = warning_text(&w, 2);
	cr_assert_str_eq(out,
			 "Warning: NoNodeSelector on 9 objects: pod ns/p0: asks for GPU memory without a nodeSelector; "
			 "also pod ns/p1, pod ns/p2, pod ns/p3, pod ns/p4, pod ns/p5 and 3 more\n"
			 "Warning: 3 more warnings not shown\n");
	free(out);
	warnings_release(&w);
}

/* A fleet's -o wide: a CLUSTER column first, the cell as the caller padded
 * it in every node row, the header padded as wide. */
Test(render_table, wide_cluster_column)
{
	struct model m;
	struct k8s_node *n = tnode("n", "10.0.0.1", "15", "1");
	struct render_table_opts o = {.wide = true, .cluster = "train    "};
	struct kerr err = KERR_INIT;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	n->ready = true;
	init(&m, false);
	tadd_node(&m, n);
	tfinish(&m);
	cr_assert_eq(render_summary_opts(f, &m, &o, &err), 0);
	fclose(f);
	cr_assert(strncmp(out, "CLUSTER    NAME  IPADDRESS  ", 28) == 0, "%s", out);
	cr_assert(strstr(out, "\ntrain      n     10.0.0.1   0/15 "), "%s", out);
	free(out);
	model_release(&m);
}

/* --by over a fleet: one table, each group's rows after its cluster's
 * name, in its visible form. */
Test(render_table, groups_of_a_fleet)
{
	struct model_group_row ra = {.key = "ml", .unit = UNIT_GIB, .nodes = 1, .pods = 2, .mem_allocated = 8,
				     .mem_total = 16},
			       rb = {.key = "web", .unit = UNIT_GIB, .nodes = 3, .pods = 1, .mem_allocated = 1,
				     .mem_total = 45};
	struct model_groups g[2] = {{.by = BY_NAMESPACE, .rows = &ra, .n = 1, .per_node = true},
				    {.by = BY_NAMESPACE, .rows = &rb, .n = 1, .per_node = true}};
	const char *names[2] = {"east", "we\x1bst"};
	struct kerr err = KERR_INIT;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_eq(render_groups_fleet(f, names, g, 2, &err), 0);
	fclose(f);
	cr_assert_str_eq(out, "CLUSTER   NAMESPACE  UNIT  NODES  PODS  ALLOCATED  TOTAL  USE%  CORE(%)\n"
			      "east      ml         GiB   1      2     8          16     50%   0\n"
			      "we\\x1bst  web        GiB   3      1     1          45     2%    0\n");
	free(out);
}

Test(render_table, wide_sharing_column_only_where_a_gpu_says)
{
	struct model m;
	char *out;

	init(&m, false);
	tadd_node(&m, tnode("n", "10.0.0.1", "30", "2"));
	tfinish(&m);
	out = summary(&m, true);
	cr_assert_null(strstr(out, "SHARING"), "%s", out);
	free(out);
	cr_assert_eq(m.nodes[0].info.ngpus, 2);
	m.nodes[0].info.gpus[0].sharing = strdup("MPS 50%");
	out = summary(&m, true);
	cr_assert(strstr(out, "  SHARING  ") && strstr(out, "  GPU0 MPS 50%; GPU1 -  "), "%s", out);
	free(out);
	out = summary(&m, false);
	cr_assert_null(strstr(out, "SHARING"), "%s", out);
	free(out);
	m.nodes[0].info.gpus[1].sharing = strdup("MPS 50%");
	out = summary(&m, true);
	cr_assert(strstr(out, "  MPS 50%  ") && !strstr(out, "GPU0 MPS"), "%s", out);
	free(out);
	model_release(&m);
}
