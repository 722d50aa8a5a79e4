#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cgpu_testobj.h"
#include "render.h"

static json_t *document(struct model *m)
{
	json_t *d = render_json_document(m);

	cr_assert_not_null(d);
	return d;
}

static void build(struct model *m)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true};
	struct k8s_node *n = tnode("n2", "10.0.0.2", "30", "2");
	struct k8s_pod *p;

	cr_assert_eq(model_init(m, &o), 0);
	tkv(&n->labels, "ack.node.gpu.schedule", "cgpu");
	tkv(&n->labels, "alibabacloud.com/nodepool-id", "np-a");
	tadd_node(m, n);
	tadd_node(m, tnode("n1", NULL, "15", "1"));
	p = tpod("default", "multi", "n2", "Running", NULL, "1", "7", NULL);
	tkv(&p->annotations, "scheduler.framework.gpushare.allocation", "{\"0\":{\"1\":1},\"1\":{\"1\":7}}");
	tadd_pod(m, p);
	tadd_pod(m, tpod("default", "wait", "n2", "Pending", NULL, "3", NULL));
	tadd_pod(m, tpod("default", "nowhere", NULL, "Pending", NULL, "2", NULL));
	tfinish(m);
}

Test(render_json, document_shape)
{
	struct model m;
	json_t *d, *n2, *g1, *pod;

	build(&m);
	d = document(&m);
	cr_assert_str_eq(json_string_value(json_object_get(d, "apiVersion")), "inspect-cgpu.kubectl.io/v1");
	cr_assert_str_eq(json_string_value(json_object_get(d, "kind")), "GPUShareReport");
	cr_assert_str_eq(json_string_value(json_object_get(d, "unit")), "GiB");
	/* the CI expression .totals.memory.allocated / .totals.memory.total */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(d, "totals"), "memory"), "allocated")), 11);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(d, "totals"), "memory"), "total")), 45);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(d, "totals"), "unscheduledPods")), 1);
	cr_assert_eq(json_array_size(json_object_get(d, "nodes")), 2);
	n2 = json_array_get(json_object_get(d, "nodes"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(n2, "name")), "n2");
	cr_assert_str_eq(json_string_value(json_object_get(n2, "mode")), "cgpu");
	cr_assert(json_is_true(json_object_get(n2, "isolation")));
	cr_assert_str_eq(json_string_value(json_object_get(n2, "pool")), "np-a");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(n2, "labels"), "ack.node.gpu.schedule")), "cgpu");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(n2, "memory"), "pending")), 3);
	g1 = json_array_get(json_object_get(n2, "gpus"), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(g1, "memory"), "allocated")), 8);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(g1, "memory"), "free")), 7);
	cr_assert_eq(json_array_size(json_object_get(g1, "pods")), 1);
	cr_assert_eq(json_array_size(json_object_get(n2, "pendingPods")), 1);
	cr_assert(json_is_null(json_object_get(json_array_get(json_object_get(d, "nodes"), 0), "mode")));
	cr_assert_eq(json_array_size(json_object_get(d, "pods")), 2);
	pod = json_array_get(json_object_get(d, "pods"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(pod, "name")), "multi");
	cr_assert_eq(json_array_size(json_object_get(pod, "containers")), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(pod, "containers"), 1), "memory")), 7);
	cr_assert_eq(json_array_size(json_object_get(pod, "gpus")), 1);
	pod = json_array_get(json_object_get(d, "pods"), 1);
	cr_assert(json_is_null(json_object_get(json_array_get(json_object_get(pod, "gpus"), 0), "index")));
	cr_assert(json_is_true(json_object_get(json_array_get(json_object_get(pod, "gpus"), 0), "pending")));
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d, "unscheduledPods"), 0), "name")), "nowhere");
	cr_assert_eq(json_array_size(json_object_get(d, "warnings")), 0);
	json_decref(d);
	model_release(&m);
}

Test(render_json, key_order_is_stable)
{
	struct model m;
	char *buf;

	build(&m);
	buf = t_rendered(render_json, &m);
	cr_assert_eq(strncmp(buf, "{\n  \"apiVersion\": \"inspect-cgpu.kubectl.io/v1\",\n  \"kind\": \"GPUShareReport\",\n", 76), 0, "%s", buf);
	cr_assert(strstr(buf, "\"totals\"") < strstr(buf, "\"nodes\""));
	cr_assert(strstr(buf, "\"nodes\"") < strstr(buf, "\"unscheduledPods\""));
	cr_assert_eq(buf[strlen(buf) - 1], '\n');
	free(buf);
	model_release(&m);
}

Test(render_json, warnings_in_document)
{
	struct model m;
	json_t *d, *w;

	cr_assert_eq(model_init(&m, &(struct model_options){.force_unit = -1}), 0);
	tadd_node(&m, tnode("a", NULL, "15", "1"));
	tadd_pod(&m, tpod("d", "p", "a", "Running", "0", "20", NULL));
	tfinish(&m);
	d = document(&m);
	w = json_array_get(json_object_get(d, "warnings"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(w, "code")), "OverAllocated");
	cr_assert_str_eq(json_string_value(json_object_get(w, "object")), "node/a");
	json_decref(d);
	model_release(&m);
}

static char *yaml_of(json_t *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct kerr err = KERR_INIT;

	cr_assert_eq(render_yaml_value(f, v, &err), 0);
	fclose(f);
	return buf;
}

Test(render_json, yaml_quotes_what_would_change_type)
{
	json_t *v = json_pack("{s:s,s:s,s:s,s:s,s:i,s:b,s:n,s:[s,s],s:{}}", "name", "plain", "num", "15", "bool", "true",
			      "empty", "", "n", 4, "b", 1, "z", "list", "a", "on", "obj");
	char *y = yaml_of(v);

	cr_assert_str_eq(y, "name: plain\n"
			    "num: \"15\"\n"
			    "bool: \"true\"\n"
			    "empty: \"\"\n"
			    "\"n\": 4\n"
			    "b: true\n"
			    "z: null\n"
			    "list:\n"
			    "- a\n"
			    "- \"on\"\n"
			    "obj: {}\n",
			 "%s", y);
	free(y);
	json_decref(v);
}

Test(render_json, yaml_report_has_same_keys)
{
	struct model m;
	char *buf;

	build(&m);
	buf = t_rendered(render_yaml, &m);
	cr_assert(strstr(buf, "apiVersion: inspect-cgpu.kubectl.io/v1\nkind: GPUShareReport\n"), "%s", buf);
	cr_assert(strstr(buf, "unscheduledPods:\n"));
	cr_assert(strstr(buf, "ack.node.gpu.schedule: cgpu\n"));
	free(buf);
	model_release(&m);
}

/* A GiB cGPU node and a time-sliced node counting slots, one pod each, and a
 * whole-GPU pod on no node. */
static void build_mixed(struct model *m)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true};
	struct k8s_node *ts = tnode("ts", NULL, NULL, NULL);
	struct k8s_pod *p;

	cr_assert_eq(model_init(m, &o), 0);
	tkv(&ts->labels, "nvidia.com/gpu.count", "1");
	tkv(&ts->labels, "nvidia.com/gpu.replicas", "4");
	tkv(&ts->labels, "nvidia.com/gpu.sharing-strategy", "time-slicing");
	tkv(&ts->allocatable, "nvidia.com/gpu", "4");
	tkv(&ts->capacity, "nvidia.com/gpu", "4");
	tadd_node(m, ts);
	tadd_node(m, tnode("cg", NULL, "15", "1"));
	tadd_pod(m, tpod("d", "a", "cg", "Running", "0", "4", NULL));
	p = tpod("d", "w", NULL, "Pending", NULL, "0", NULL);
	kvlist_release(&p->containers[0].limits);
	tkv(&p->containers[0].limits, "nvidia.com/gpu", "2");
	tadd_pod(m, p);
	tfinish(m);
}

Test(render_json, units_per_node_pod_and_group)
{
	struct model m;
	json_t *d, *by, *cg, *ts, *g;

	build_mixed(&m);
	d = document(&m);
	cr_assert(json_is_true(json_object_get(d, "mixedUnits")));
	cr_assert_str_eq(json_string_value(json_object_get(d, "unit")), "GiB");
	cg = json_array_get(json_object_get(d, "nodes"), 0);
	ts = json_array_get(json_object_get(d, "nodes"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(cg, "unit")), "GiB");
	cr_assert_str_eq(json_string_value(json_object_get(ts, "unit")), "slots");
	cr_assert_str_eq(json_string_value(json_object_get(ts, "scheme")), "nvidia");
	cr_assert(json_is_true(json_object_get(cg, "perGpu")));
	cr_assert(json_is_false(json_object_get(ts, "perGpu")));
	g = json_array_get(json_object_get(cg, "gpus"), 0);
	cr_assert(json_is_false(json_object_get(g, "unhealthy")));
	cr_assert(json_is_false(json_object_get(g, "cordoned")));
	cr_assert_eq(json_integer_value(json_object_get(g, "slots")), 0);
	/* slots stay out of the memory totals and have their own group */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(d, "totals"), "memory"), "total")), 15);
	by = json_object_get(json_object_get(d, "totals"), "byUnit");
	cr_assert_eq(json_array_size(by), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(by, 0), "unit")), "GiB");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(by, 1), "unit")), "slots");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_array_get(by, 1), "memory"), "total")), 4);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_array_get(by, 1), "memory"), "pending")), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(by, 1), "unscheduledPods")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d, "unscheduledPods"), 0), "unit")), "slots");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d, "unscheduledPods"), 0), "scheme")), "nvidia");
	json_decref(d);
	model_release(&m);
}

/* -o json and -o yaml are written part by part; the bytes must be those of
 * the whole document dumped at once. */
static char *streamed(struct model *m, bool yaml)
{
	return t_rendered(yaml ? render_yaml : render_json, m);
}

static char *whole(struct model *m, bool yaml)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *d = document(m);
	struct kerr err = KERR_INIT;

	cr_assert_not_null(f);
	if (yaml) {
		cr_assert_eq(render_yaml_value(f, d, &err), 0);
	} else {
		cr_assert_eq(json_dumpf(d, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER), 0);
		fputc('\n', f);
	}
	fclose(f);
	json_decref(d);
	return buf;
}

Test(render_json, streamed_output_is_the_whole_document)
{
	struct model m, empty;
	struct model_options o = {.force_unit = -1, .keep_pods = true};

	build(&m);
	cr_assert_eq(model_init(&empty, &o), 0);
	tfinish(&empty);
	for (int yaml = 0; yaml < 2; yaml++) {
		struct model *ms[] = {&m, &empty};

		for (size_t i = 0; i < 2; i++) {
			char *a = streamed(ms[i], yaml), *b = whole(ms[i], yaml);

			cr_assert_str_eq(a, b, "%s, model %zu", yaml ? "YAML" : "JSON", i);
			free(a);
			free(b);
		}
	}
	model_release(&m);
	model_release(&empty);
}
