#include <criterion/criterion.h>
#include <string.h>

#include "cgpu_testobj.h"
#include "scheme_dra.h"
#include "scheme_test_util.h"
#include "usage.h"

#define MIB (1LL << 20)
#define GIB (1LL << 30)

/* A series of HAMi's vGPU monitor for a pod of the default namespace. */
#define HAMI_SERIES(node, gpu, pod, value)                                                                           \
	"{\"metric\":{\"node\":\"" node "\",\"gpu\":\"" gpu "\",\"podname\":\"" pod                                  \
	"\",\"podnamespace\":\"default\"},\"value\":[1,\"" value "\"]}"

static struct usage_labels labels;

static void setup(void)
{
	usage_labels_default(&labels);
}

static void teardown(void)
{
	usage_labels_release(&labels);
}

TestSuite(usage, .init = setup, .fini = teardown);

static void parse(struct usage_data *d, enum usage_query q, const char *result)
{
	struct kerr err = KERR_INIT;
	char *body = NULL;

	cr_assert_geq(asprintf(&body, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[%s]}}",
			       result),
		      0);
	cr_assert_eq(usage_parse_bytes(d, q, &labels, body, strlen(body), &err), 0, "%s",
		     err.message ? err.message : "");
	free(body);
}

static int parse_fails(const char *body, const char *want)
{
	struct usage_data d = {0};
	struct kerr err = KERR_INIT;
	int r = usage_parse_bytes(&d, UQ_GPU_USED, &labels, body, strlen(body), &err);

	if (r == 0)
		return 0;
	cr_assert(strstr(err.message, want), "%s", err.message);
	kerr_release(&err);
	usage_data_release(&d);
	return 1;
}

Test(usage, query_text)
{
	char *q = usage_query_text(UQ_GPU_USED, &labels, "5m");
	struct kerr err = KERR_INIT;

	cr_assert_str_eq(q, "max by (node, kubernetes_node, NodeName, node_name, nodename, Hostname, instance, gpu, "
			    "minor_number, deviceidx, UUID, uuid, deviceuuid, exported_namespace, NamespaceName, "
			    "pod_namespace, podnamespace, namespace, exported_pod, PodName, pod_name, podname, pod, "
			    "dra_claim_namespace, dra_claim_name, dra_pool_name, dra_device_name, dra_mig_profile, "
			    "GPU_I_ID, GPU_I_PROFILE) (max_over_time(DCGM_FI_DEV_FB_USED[5m]))");
	free(q);
	q = usage_query_text(UQ_GPU_FREE, &labels, "5m");
	cr_assert(strstr(q, "min by (") == q, "%s", q);
	cr_assert(strstr(q, "(min_over_time(DCGM_FI_DEV_FB_FREE[5m]))"), "%s", q);
	cr_assert_null(strstr(q, "pod"));
	free(q);
	q = usage_query_text(UQ_VGPU_USED, &labels, "10m");
	cr_assert(strstr(q, "sum by ("));
	cr_assert(strstr(q, "max_over_time(vGPU_device_memory_usage_in_bytes[10m])"));
	free(q);

	cr_assert_eq(usage_labels_override(&labels, "node=kubernetes_node,pod=my_pod", &err), 0);
	q = usage_query_text(UQ_GPU_UTIL, &labels, "1h30m");
	cr_assert_str_eq(q, "max by (kubernetes_node, gpu, minor_number, deviceidx, UUID, uuid, deviceuuid, "
			    "dra_claim_namespace, dra_claim_name, dra_pool_name, dra_device_name, dra_mig_profile, "
			    "GPU_I_ID, GPU_I_PROFILE) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[1h30m]))");
	free(q);
	for (const char *const *bad = (const char *const[]){"rack=x", "pod=a-b", "pod", NULL}; *bad; bad++) {
		cr_assert_eq(usage_labels_override(&labels, *bad, &err), -1, "%s", *bad);
		cr_assert_eq(err.kind, KERR_USAGE, "%s", *bad);
		kerr_release(&err);
	}

	cr_assert(usage_window_valid("5m"));
	cr_assert(usage_window_valid("1h30m"));
	cr_assert(usage_window_valid("500ms"));
	cr_assert_not(usage_window_valid("5"));
	cr_assert_not(usage_window_valid("5m]"));
	cr_assert_not(usage_window_valid(""));
	cr_assert_not(usage_window_valid("m"));
}

Test(usage, parse_answers)
{
	struct usage_data d = {0};

	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\",\"UUID\":\"GPU-1\"},\"value\":[1.5,\"3481.6\"]},"
	      "{\"metric\":{\"instance\":\"10.0.0.2:9400\",\"gpu\":\"1\",\"exported_pod\":\"p\",\"exported_namespace\":\"ns\","
	      "\"pod\":\"dcgm-exporter-x\",\"namespace\":\"gpu-operator\"},\"value\":[1.5,\"12\"]},"
	      "{\"metric\":{\"gpu\":\"0\"},\"value\":[1.5,\"NaN\"]},"
	      "{\"metric\":{\"gpu\":\"0\"},\"value\":[1.5,\"-1\"]},"
	      "{\"metric\":{\"gpu\":\"0\"},\"value\":[1.5,12]},"
	      "{\"value\":[1.5,\"1\"]}");
	cr_assert(d.answered[UQ_GPU_USED]);
	cr_assert_eq(d.n[UQ_GPU_USED], 2);
	cr_assert_str_eq(d.samples[UQ_GPU_USED][0].node[5], "n1");
	cr_assert_null(d.samples[UQ_GPU_USED][0].node[0]);
	cr_assert_str_eq(d.samples[UQ_GPU_USED][0].uuid, "GPU-1");
	cr_assert_eq(d.samples[UQ_GPU_USED][0].gpu, 0);
	cr_assert_float_eq(d.samples[UQ_GPU_USED][0].value, 3481.6 * MIB, 1);
	cr_assert_null(d.samples[UQ_GPU_USED][0].pod);
	/* the exporter's own pod labels lose to the workload's exported_* ones */
	cr_assert_str_eq(d.samples[UQ_GPU_USED][1].pod, "p");
	cr_assert_str_eq(d.samples[UQ_GPU_USED][1].namespace, "ns");
	cr_assert_str_eq(d.samples[UQ_GPU_USED][1].node[6], "10.0.0.2:9400");
	parse(&d, UQ_VGPU_USED, "{\"metric\":{\"deviceuuid\":\"GPU-1\"},\"value\":[1,\"1048576\"]}");
	cr_assert_float_eq(d.samples[UQ_VGPU_USED][0].value, 1048576.0, 0.5);
	parse(&d, UQ_GPU_UTIL, "{\"metric\":{\"gpu\":\"0\"},\"value\":[1,\"1e9\"]}");
	cr_assert_eq(d.n[UQ_GPU_UTIL], 0);
	usage_data_release(&d);

	cr_assert(parse_fails("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error at char 3\"}",
			      "the query failed: parse error at char 3"));
	cr_assert(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}",
			      "not an instant vector"));
	cr_assert(parse_fails("<html>", "not JSON"));
	cr_assert(parse_fails("[]", "not a Prometheus query result"));
	cr_assert(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\"}}", "no result list"));
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void assert_same(const struct usage_data *a, const struct usage_data *b, enum usage_query q, size_t split)
{
	cr_assert_eq(a->n[q], b->n[q], "split at %zu", split);
	for (size_t i = 0; i < a->n[q]; i++) {
		const struct usage_sample *x = &a->samples[q][i], *y = &b->samples[q][i];

		for (size_t k = 0; k < USAGE_LABEL_VARIANTS; k++)
			cr_assert(same_str(x->node[k], y->node[k]), "split at %zu", split);
		cr_assert(same_str(x->uuid, y->uuid) && same_str(x->namespace, y->namespace) &&
			  same_str(x->pod, y->pod) && x->gpu == y->gpu && x->value == y->value,
			  "split at %zu, series %zu", split, i);
	}
}

/* Feed body in two pieces cut at split (and the second byte by byte when
 * bytewise); returns what finish returned. */
static int parse_split(struct usage_data *d, enum usage_query q, const char *body, size_t split, bool bytewise,
		       struct kerr *err)
{
	struct usage_stream *s;
	size_t len = strlen(body);
	int r;

	cr_assert_eq(usage_stream_new(&s, q, &labels, 0, err), 0);
	r = usage_stream_feed(s, body, split, err);
	for (size_t i = split; r == 0 && i < len; i += bytewise ? 1 : len - split)
		r = usage_stream_feed(s, body + i, bytewise ? 1 : len - split, err);
	if (r == 0)
		r = usage_stream_finish(s, d, err);
	usage_stream_free(s);
	return r;
}

/* An answer cut anywhere reads as the whole one: the same series, the same
 * labels, the same figures, and the same failures. */
Test(usage, stream_split_anywhere)
{
	static const char *const bodies[] = {
		"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		"{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\",\"UUID\":\"GPU-1\",\"x\":{\"a\":[1,{}]}},\"value\":[1.5,\"3481.6\"]},"
		"{\"value\":[1.5,\"12\"],\"metric\":{\"instance\":\"10.0.0.2:9400\",\"gpu\":\"1\",\"exported_pod\":\"p\","
		"\"exported_namespace\":\"ns\",\"pod\":\"dcgm-exporter-x\",\"namespace\":\"gpu-operator\"}},"
		"{\"metric\":{\"gpu\":\"0\"},\"value\":[1.5,\"NaN\"]},[1,2],\"x\",null,"
		"{\"metric\":{\"gpu\":\"0\",\"pod\":\"\"},\"value\":[1.5,\"7\"]}]}}",
		/* the status last, and the error's text in an escaped string */
		"{\"data\":{\"result\":[{\"metric\":{\"node\":\"caf\\u00e9\",\"gpu\":\"2\"},\"value\":[1,\"1e3\"]}],"
		"\"resultType\":\"vector\"},\"warnings\":[\"w\"],\"status\":\"success\"}",
		"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error at char 3\"}",
		"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{}, \"value\":[1,\"1\"]}",
	};

	for (size_t b = 0; b < sizeof(bodies) / sizeof(bodies[0]); b++) {
		struct usage_data whole = {0};
		struct kerr werr = KERR_INIT;
		size_t len = strlen(bodies[b]);
		int wr = usage_parse_bytes(&whole, UQ_GPU_USED, &labels, bodies[b], len, &werr);

		cr_assert_eq(wr, b < 2 ? 0 : -1, "body %zu", b);
		cr_assert_eq(whole.n[UQ_GPU_USED], b == 0 ? 3 : b == 1 ? 1 : 0, "body %zu", b);
		if (b == 1)
			cr_assert_str_eq(whole.samples[UQ_GPU_USED][0].node[0], "caf\xc3\xa9");

		for (size_t split = 0; split <= len; split++)
			for (int bytewise = 0; bytewise < 2; bytewise++) {
				struct usage_data d = {0};
				struct kerr err = KERR_INIT;
				int r = parse_split(&d, UQ_GPU_USED, bodies[b], split, bytewise, &err);

				cr_assert_eq(r, wr, "body %zu split at %zu", b, split);
				if (r == 0)
					assert_same(&whole, &d, UQ_GPU_USED, split);
				else
					cr_assert_str_eq(err.message, werr.message, "body %zu split at %zu", b, split);
				kerr_release(&err);
				usage_data_release(&d);
			}
		kerr_release(&werr);
		usage_data_release(&whole);
	}
}

Test(usage, stream_bounds)
{
	struct usage_data d = {0};
	struct usage_stream *s;
	struct kerr err = KERR_INIT;
	const char *body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			   "{\"metric\":{\"gpu\":\"0\"},\"value\":[1,\"1\"]},{\"metric\":{\"gpu\":\"1\"},\"value\":[1,\"1\"]},"
			   "{\"metric\":{\"gpu\":\"2\"},\"value\":[1,\"1\"]}]}}";
	char deep[1200];

	/* more series than the limit: refused as soon as the one too many starts */
	cr_assert_eq(usage_stream_new(&s, UQ_GPU_USED, &labels, 2, &err), 0);
	cr_assert_eq(usage_stream_feed(s, body, strlen(body), &err), -1);
	cr_assert(strstr(err.message, "more than the 2 series expected"), "%s", err.message);
	kerr_release(&err);
	cr_assert_eq(usage_stream_finish(s, &d, &err), -1);
	kerr_release(&err);
	usage_stream_free(s);
	cr_assert_not(d.answered[UQ_GPU_USED]);
	/* nested past any answer's shape */
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "{\"x\":", 5);
	deep[sizeof(deep) - 1] = '\0';
	cr_assert(parse_fails(deep, "nested too deeply"));
	cr_assert(parse_fails("", "not a Prometheus query result"));
	cr_assert(parse_fails("\"x\"", "not a Prometheus query result"));
	cr_assert(parse_fails("{\"status\":\"success\"} x", "not JSON"));
	cr_assert(parse_fails("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":{}}}", "no result list"));
	cr_assert(parse_fails("{\"status\":\"success\",\"data\":[]}", "not an instant vector"));
}

/* The pods the answers name: what the command keeps pods for. */
Test(usage, names_pods)
{
	struct usage_data d = {0};

	cr_assert(usage_names_pod(&d, "default", "a")); /* not indexed yet: every pod */
	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"node\":\"n1\",\"gpu\":\"0\",\"exported_pod\":\"a\",\"exported_namespace\":\"default\"},\"value\":[1,\"1\"]},"
	      "{\"metric\":{\"node\":\"n1\",\"gpu\":\"0\"},\"value\":[1,\"1\"]}");
	parse(&d, UQ_VGPU_LIMIT,
	      "{\"metric\":{\"deviceuuid\":\"GPU-1\",\"podname\":\"c\",\"podnamespace\":\"ml\"},\"value\":[1,\"1\"]},"
	      "{\"metric\":{\"deviceuuid\":\"GPU-1\",\"podname\":\"b\"},\"value\":[1,\"1\"]}");
	cr_assert_eq(usage_data_index(&d), 0);
	cr_assert(usage_names_pod(&d, "default", "a"));
	cr_assert(usage_names_pod(&d, "ml", "c"));
	cr_assert_not(usage_names_pod(&d, "default", "b"));
	cr_assert_not(usage_names_pod(&d, "ml", "a"));
	cr_assert_not(usage_names_pod(&d, NULL, "a"));
	usage_data_release(&d);
}

/* n1: one 15 GiB GPU shared by a and b; n2: two GPUs, c on GPU 0, nothing on
 * GPU 1; n3: one GPU no exporter reports. */
static void build_with(struct model *m, const struct model_options *o)
{
	cr_assert_eq(model_init(m, o), 0);
	tadd_node(m, tnode("n1", "10.0.0.1", "15", "1"));
	tadd_node(m, tnode("n2", "10.0.0.2", "30", "2"));
	tadd_node(m, tnode("n3", "10.0.0.3", "15", "1"));
	tadd_pod(m, tpod("default", "a", "n1", "Running", "0", "4", NULL));
	tadd_pod(m, tpod("default", "b", "n1", "Running", "0", "4", NULL));
	tadd_pod(m, tpod("default", "c", "n2", "Running", "0", "4", NULL));
	tadd_pod(m, tpod("default", "d", "n3", "Running", "0", "8", NULL));
	tfinish(m);
}

static void build(struct model *m)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true};

	build_with(m, &o);
}

/* Join d with m, which succeeds whatever the answers say. */
static void apply(struct model *m, const struct usage_data *d, const struct usage_options *o)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(usage_apply(m, d, o, NULL, &err), 0, "%s", err.message ? err.message : "");
}

static const struct warning *finding(const struct model *m, const char *code, const char *object)
{
	for (size_t i = 0; i < m->usage.findings.len; i++)
		if (strcmp(m->usage.findings.items[i].code, code) == 0 &&
		    strcmp(m->usage.findings.items[i].object, object) == 0)
			return &m->usage.findings.items[i];
	return NULL;
}

static const struct model_pod *pod(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->npods; i++)
		if (strcmp(m->pods[i].name, name) == 0)
			return &m->pods[i];
	return NULL;
}

Test(usage, join_and_findings)
{
	struct usage_data d = {0};
	struct model m;
	const struct model_node *n1, *n2;

	build(&m);
	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\"},\"value\":[1,\"6386\"]},"
	      "{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\",\"exported_pod\":\"a\",\"exported_namespace\":\"default\"},\"value\":[1,\"3193\"]},"
	      "{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\",\"exported_pod\":\"b\",\"exported_namespace\":\"default\"},\"value\":[1,\"3193\"]},"
	      "{\"metric\":{\"instance\":\"10.0.0.2:9400\",\"gpu\":\"0\",\"pod\":\"c\",\"namespace\":\"default\"},\"value\":[1,\"6144\"]},"
	      "{\"metric\":{\"instance\":\"10.0.0.2:9400\",\"gpu\":\"1\"},\"value\":[1,\"1024\"]},"
	      "{\"metric\":{\"node\":\"elsewhere\",\"gpu\":\"0\"},\"value\":[1,\"1024\"]}");
	parse(&d, UQ_GPU_FREE,
	      "{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\"},\"value\":[1,\"9998\"]},"
	      "{\"metric\":{\"instance\":\"10.0.0.2:9400\",\"gpu\":\"0\"},\"value\":[1,\"10240\"]}");
	parse(&d, UQ_GPU_UTIL, "{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\"},\"value\":[1,\"35.5\"]}");
	apply(&m, &d, NULL);

	n1 = model_find_node(&m, "n1");
	n2 = model_find_node(&m, "n2");
	cr_assert(m.usage.configured);
	cr_assert(n1->gpus[0].used_known);
	cr_assert_eq(n1->gpus[0].used_bytes, 6386 * MIB);
	cr_assert_eq(n1->gpus[0].total_bytes, 16 * GIB);
	cr_assert_float_eq(n1->gpus[0].util, 35.5, 0.01);
	cr_assert_eq(n1->used_bytes, 6386 * MIB);
	cr_assert_eq(pod(&m, "a")->used_bytes, 3193 * MIB);
	cr_assert(pod(&m, "b")->used_known);
	cr_assert_eq(pod(&m, "c")->used_bytes, 6 * GIB);
	cr_assert_eq(n2->gpus[1].used_bytes, GIB);
	/* the card: the least free plus the most used, by a pod's series too */
	cr_assert(n2->gpus[0].total_known);
	cr_assert_eq(n2->gpus[0].total_bytes, 16 * GIB);
	cr_assert_not(n2->gpus[1].total_known);
	cr_assert_not(pod(&m, "d")->used_known);
	cr_assert_eq(m.usage.gpus_known, 3);
	cr_assert_eq(m.usage.gpus_unknown, 1);

	cr_assert(finding(&m, "OverUse", "pod/default/c"));
	cr_assert(strstr(finding(&m, "OverUse", "pod/default/c")->message, "uses 6.0 GiB of GPU memory, 4.0 GiB allocated"),
		  "%s", finding(&m, "OverUse", "pod/default/c")->message);
	cr_assert(finding(&m, "Unaccounted", "node/n2"));
	cr_assert_null(finding(&m, "Idle", "pod/default/a"));
	cr_assert_eq(m.usage.findings.len, 2);
	/* one warning for the GPU nobody reported */
	cr_assert_eq(m.warnings.len, 1);
	cr_assert_str_eq(m.warnings.items[0].code, "UsageIncomplete");
	cr_assert(strstr(m.warnings.items[0].message, "1 of 4 GPUs (node n3)"), "%s", m.warnings.items[0].message);
	usage_data_release(&d);
	model_release(&m);
}

/* An exporter that copies the GPU's figure to every pod sharing it says
 * nothing about each pod; HAMi's per-container figures do. */
Test(usage, copies_and_hami)
{
	struct usage_data d = {0};
	struct usage_options o = {.idle_percent = 50, .unaccounted_bytes = USAGE_UNACCOUNTED_BYTES};
	struct model m;

	build(&m);
	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"node\":\"n1\",\"gpu\":\"0\",\"exported_pod\":\"a\",\"exported_namespace\":\"default\"},\"value\":[1,\"1000\"]},"
	      "{\"metric\":{\"node\":\"n1\",\"gpu\":\"0\",\"exported_pod\":\"b\",\"exported_namespace\":\"default\"},\"value\":[1,\"1000\"]}");
	parse(&d, UQ_VGPU_USED, HAMI_SERIES("n2", "0", "c", "1073741824"));
	parse(&d, UQ_HOST_USED, "{\"metric\":{\"node\":\"n3\",\"deviceidx\":\"0\"},\"value\":[1,\"2147483648\"]}");
	apply(&m, &d, &o);
	cr_assert_eq(model_find_node(&m, "n1")->gpus[0].used_bytes, 1000 * MIB);
	cr_assert_not(pod(&m, "a")->used_known);
	cr_assert_eq(pod(&m, "c")->used_bytes, GIB);
	cr_assert_eq(model_find_node(&m, "n3")->gpus[0].used_bytes, 2 * GIB);
	/* n1's pods are unknown one by one: the GPU as a whole is idle */
	cr_assert(finding(&m, "Idle", "node/n1"));
	cr_assert(finding(&m, "Idle", "pod/default/c"));
	cr_assert(finding(&m, "Idle", "node/n3"));
	cr_assert(strstr(m.warnings.items[0].message, "1 of 4 GPUs (node n2)"), "%s", m.warnings.items[0].message);
	usage_data_release(&d);
	model_release(&m);
}

/* A series labelled with one pod that cannot be the pod's figure is the
 * GPU's, and judged per GPU: the only series of a GPU two pods share, or
 * more than isolation lets the pod hold. */
Test(usage, pod_label_on_a_gpu_figure)
{
	struct usage_data d = {0};
	struct model m;

	build(&m);
	/* n1 GPU 0, shared by a and b: one series, labelled a, of 6 GiB */
	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"node\":\"n1\",\"gpu\":\"0\",\"exported_pod\":\"a\",\"exported_namespace\":\"default\"},\"value\":[1,\"6144\"]},"
	      "{\"metric\":{\"node\":\"n2\",\"gpu\":\"0\",\"exported_pod\":\"c\",\"exported_namespace\":\"default\"},\"value\":[1,\"7168\"]}");
	/* c's node caps each pod at its allocation (4 GiB): 7 GiB is the GPU's */
	((struct model_node *)model_find_node(&m, "n2"))->info.isolation = true;
	apply(&m, &d, NULL);
	cr_assert_not(pod(&m, "a")->used_known);
	cr_assert_null(finding(&m, "OverUse", "pod/default/a"));
	cr_assert_eq(model_find_node(&m, "n1")->gpus[0].used_bytes, 6 * GIB);
	cr_assert_not(pod(&m, "c")->used_known);
	cr_assert_null(finding(&m, "OverUse", "pod/default/c"));
	/* judged per GPU: 7 GiB on a GPU with 4 GiB allocated */
	cr_assert(finding(&m, "OverUse", "node/n2"));
	cr_assert(strstr(finding(&m, "OverUse", "node/n2")->message, "GPU 0: the pods use 7.0 GiB"), "%s",
		  finding(&m, "OverUse", "node/n2")->message);
	usage_data_release(&d);
	model_release(&m);
}

/* HAMi's per-container limit: a finding where it is not the allocation. */
Test(usage, hami_limit)
{
	struct usage_data d = {0};
	struct model m;
	const struct warning *w;

	build(&m);
	parse(&d, UQ_VGPU_LIMIT,
	      /* a: 6 GiB against 4 allocated; b: within the GiB rounding; c: two
	       * containers making up its 4 GiB */
	      HAMI_SERIES("n1", "0", "a", "6442450944") ","
	      HAMI_SERIES("n1", "0", "b", "4831838208") ","
	      HAMI_SERIES("n2", "0", "c", "2147483648") ","
	      "{\"metric\":{\"node\":\"n2\",\"gpu\":\"0\",\"podname\":\"c\",\"podnamespace\":\"default\",\"x\":\"1\"},\"value\":[1,\"2147483648\"]}");
	parse(&d, UQ_VGPU_USED, HAMI_SERIES("n1", "0", "a", "3221225472"));
	apply(&m, &d, NULL);
	w = finding(&m, "LimitMismatch", "pod/default/a");
	cr_assert(w);
	cr_assert_str_eq(w->message, "pod default/a on node n1: the device plugin limits it to 6.0 GiB of GPU memory, "
				     "4.0 GiB allocated");
	cr_assert_null(finding(&m, "LimitMismatch", "pod/default/b"));
	cr_assert_null(finding(&m, "LimitMismatch", "pod/default/c"));
	/* the limit changes nothing of what is measured */
	cr_assert_eq(pod(&m, "a")->used_bytes, 3 * GIB);
	cr_assert_not(pod(&m, "c")->used_known);
	usage_data_release(&d);
	model_release(&m);
}

/* A HAMi pod whose allocation annotations are not written (yet): the
 * scheme gives it no memory, the device plugin's limit is what it was
 * given, and its use is judged against that. */
Test(usage, hami_limit_as_allocation)
{
	struct usage_data d = {0};
	struct model_options o = {.force_unit = -1, .keep_pods = true};
	struct model m;
	const struct warning *w;

	cr_assert_eq(model_init(&m, &o), 0);
	tadd_node(&m, tnode("n2", "10.0.0.2", "30", "2"));
	{
		struct k8s_pod *z = tpod("default", "z", "n2", "Running", NULL, "", NULL);

		z->scheduler_name = strdup("hami-scheduler");
		tkv(&z->containers[0].limits, "nvidia.com/gpu", "1");
		tadd_pod(&m, z);
	}
	tfinish(&m);
	cr_assert(pod(&m, "z"), "a pod asking no memory is in the model");
	parse(&d, UQ_VGPU_LIMIT, HAMI_SERIES("n2", "1", "z", "4294967296"));
	parse(&d, UQ_VGPU_USED, HAMI_SERIES("n2", "1", "z", "536870912"));
	apply(&m, &d, NULL);
	w = finding(&m, "Idle", "pod/default/z");
	cr_assert(w);
	cr_assert(strstr(w->message, "uses at most 0.5 of its 4.0 GiB"), "%s", w->message);
	cr_assert_null(finding(&m, "LimitMismatch", "pod/default/z"));
	usage_data_release(&d);
	model_release(&m);
}

static enum model_keep named(void *ud, const char *ns, const char *name)
{
	const struct usage_data *d = ud;

	if (!d->indexed)
		return MODEL_KEEP_MAYBE;
	return usage_names_pod(d, ns, name) ? MODEL_KEEP_YES : MODEL_KEEP_NO;
}

/* Without -d only the pods the answers name are kept: the per-GPU figures
 * still count every pod, and the named pod still gets its finding. */
Test(usage, keeps_named_pods_only)
{
	struct usage_data d = {0};
	struct model_options o = {.force_unit = -1, .keep_pods = true, .keep_pod_if = named, .keep_pod_ud = &d};
	struct model m;
	const struct model_node *n1;

	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"node\":\"n1\",\"gpu\":\"0\"},\"value\":[1,\"6000\"]},"
	      "{\"metric\":{\"node\":\"n2\",\"gpu\":\"0\",\"pod\":\"c\",\"namespace\":\"default\"},\"value\":[1,\"5000\"]}");
	cr_assert_eq(usage_data_index(&d), 0);
	build_with(&m, &o);
	cr_assert_eq(m.npods, 1);
	cr_assert_str_eq(m.pods[0].name, "c");
	n1 = model_find_node(&m, "n1");
	cr_assert_eq(n1->gpus[0].npods, 2);
	cr_assert_eq(n1->mem_allocated, 8);
	apply(&m, &d, NULL);
	cr_assert_eq(pod(&m, "c")->used_bytes, 5000 * MIB);
	cr_assert(finding(&m, "OverUse", "pod/default/c"));
	/* n1's pods are not kept, and none has a figure: the GPU speaks for them */
	cr_assert_eq(n1->gpus[0].used_bytes, 6000 * MIB);
	cr_assert_null(finding(&m, "OverUse", "node/n1"));
	cr_assert(finding(&m, "Idle", "node/n1") == NULL);
	usage_data_release(&d);
	model_release(&m);
}

/* The answers arrive while the pods are listed: the pods kept until then
 * are dropped once the answers say they are not named. */
Test(usage, answers_mid_list)
{
	struct usage_data d = {0};
	struct model_options o = {.force_unit = -1, .keep_pods = true, .keep_pod_if = named, .keep_pod_ud = &d};
	struct model m;

	cr_assert_eq(model_init(&m, &o), 0);
	tadd_node(&m, tnode("n1", "10.0.0.1", "15", "1"));
	tadd_node(&m, tnode("n2", "10.0.0.2", "30", "2"));
	tadd_pod(&m, tpod("default", "a", "n1", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("default", "b", "n1", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("default", "p", NULL, "Pending", NULL, "4", NULL));
	parse(&d, UQ_VGPU_USED,
	      HAMI_SERIES("n1", "0", "b", "1") ","
	      HAMI_SERIES("n2", "0", "d", "1"));
	cr_assert_eq(usage_data_index(&d), 0);
	tadd_pod(&m, tpod("default", "c", "n2", "Running", "0", "4", NULL));
	tadd_pod(&m, tpod("default", "d", "n2", "Running", "1", "4", NULL));
	tfinish(&m);
	/* b and d are named; the unscheduled p is not the predicate's to drop */
	cr_assert_eq(m.npods, 3);
	cr_assert(pod(&m, "b") && pod(&m, "d") && pod(&m, "p"));
	cr_assert_eq(model_find_node(&m, "n1")->gpus[0].npods, 2);
	cr_assert_eq(model_find_node(&m, "n2")->mem_allocated, 8);
	usage_data_release(&d);
	model_release(&m);
}

Test(usage, source_down)
{
	struct kerr err = KERR_INIT;
	struct model m;

	build(&m);
	cr_assert_eq(usage_apply(&m, NULL, NULL, "connection refused", &err), 0);
	cr_assert_eq(m.usage.gpus_known, 0);
	cr_assert_eq(m.usage.findings.len, 0);
	cr_assert_eq(m.warnings.len, 1);
	cr_assert_str_eq(m.warnings.items[0].code, "UsageUnavailable");
	cr_assert_str_eq(m.warnings.items[0].message, "GPU memory in use is unknown: connection refused");
	cr_assert_not(model_find_node(&m, "n1")->gpus[0].used_known);
	model_release(&m);
}

Test(usage, format)
{
	char b[32];

	cr_assert_str_eq(usage_format(b, sizeof(b), 3481 * MIB, UNIT_GIB), "3.4");
	cr_assert_str_eq(usage_format(b, sizeof(b), 3481 * MIB, UNIT_MIB), "3481");
	cr_assert_eq(usage_unit_bytes(4, UNIT_GIB), 4 * GIB);
	cr_assert_eq(usage_unit_bytes(4, UNIT_MIB), 4 * MIB);
}

/* --- DRA devices and claims ------------------------------------------------- */

static int dra_take_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	(void)err;
	return dra_inventory_add_slice(ud, s);
}

static int dra_take_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	(void)err;
	return dra_inventory_add_claim(ud, c);
}

static void dra_list(struct dra_inventory *inv, const char *scenario, const char *file, enum obj_kind kind)
{
	const struct decode_filter *filter = kind == OBJ_RESOURCE_SLICE ? &dra_slice_fields : &dra_claim_fields;
	struct decode_sink sink = {.resource_slice = dra_take_slice, .resource_claim = dra_take_claim, .ud = inv};
	struct kerr err = KERR_INIT;
	struct list_decoder *d = list_decoder_new(kind, filter, &sink);
	char path[1024];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/scenarios/%s/%s", FIXTURES_DIR, scenario, file);
	buf = t_read_file(path, &len);
	cr_assert_eq(list_decoder_feed(d, buf, len, &err), 0, "%s", err.message);
	cr_assert_eq(list_decoder_finish(d, &err), 0, "%s", err.message);
	list_decoder_free(d);
	free(buf);
}

/* The model of a DRA scenario, its devices and claims read as the load reads them. */
static void dra_build(struct model *m, const char *scenario)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true};
	struct dra_inventory inv = {0};
	struct scheme_objects objs = {.dra = &inv};
	struct t_objs nodes = {0}, pods = {0};
	struct warnings w = {0};
	struct kerr err = KERR_INIT;

	dra_list(&inv, scenario, "resourceslices.json", OBJ_RESOURCE_SLICE);
	dra_list(&inv, scenario, "resourceclaims.json", OBJ_RESOURCE_CLAIM);
	cr_assert_eq(dra_inventory_finish(&inv, &w), 0);
	o.objects = &objs;
	cr_assert_eq(model_init(m, &o), 0);
	t_load_list(&nodes, scenario, "nodes.json", OBJ_NODE, model_node_filter(m));
	t_load_list(&pods, scenario, "pods.json", OBJ_POD, model_pod_filter(m));
	for (size_t i = 0; i < nodes.nnodes; i++) {
		cr_assert_eq(model_add_node(m, nodes.nodes[i], &err), 0);
		k8s_node_free(nodes.nodes[i]);
	}
	for (size_t i = 0; i < pods.npods; i++) {
		cr_assert_eq(model_add_pod(m, pods.pods[i], &err), 0);
		k8s_pod_free(pods.pods[i]);
	}
	m->opts.objects = NULL;
	dra_inventory_release(&inv);
	warnings_release(&w);
	tfinish(m);
}

/* A DCGM series of a claimed DRA device, without pod labels. */
#define DRA_SERIES(node, gpu, ns, claim, device, value)                                                              \
	"{\"metric\":{\"Hostname\":\"" node "\",\"gpu\":\"" gpu "\",\"UUID\":\"GPU-x" gpu "\",\"dra_claim_namespace\":\"" ns \
	"\",\"dra_claim_name\":\"" claim "\",\"dra_pool_name\":\"" node "\",\"dra_device_name\":\"" device           \
	"\"},\"value\":[1,\"" value "\"]}"

static const struct model_gpu *gpu_named(const struct model *m, const char *node, const char *id)
{
	const struct model_node *n = model_find_node(m, node);

	for (int g = 0; n && g < n->ngpus; g++)
		if (n->gpus[g].id && strcmp(n->gpus[g].id, id) == 0)
			return &n->gpus[g];
	cr_assert_fail("no GPU %s on %s", id, node);
	return NULL;
}

Test(usage, dra_labels_parsed)
{
	struct usage_data d = {0};

	parse(&d, UQ_GPU_USED, DRA_SERIES("n1", "3", "ml", "c", "gpu-1", "100"));
	cr_assert_eq(d.n[UQ_GPU_USED], 1);
	cr_assert_str_eq(d.samples[UQ_GPU_USED][0].dra_namespace, "ml");
	cr_assert_str_eq(d.samples[UQ_GPU_USED][0].dra_claim, "c");
	cr_assert_str_eq(d.samples[UQ_GPU_USED][0].dra_pool, "n1");
	cr_assert_str_eq(d.samples[UQ_GPU_USED][0].dra_device, "gpu-1");
	/* a claim and no pod: which pods are named is known in the join only */
	cr_assert_eq(usage_data_index(&d), 0);
	cr_assert(usage_names_pod(&d, "other", "pod"));
	usage_data_release(&d);
}

Test(usage, dra_device_by_name_and_claim_of_one_pod)
{
	struct model m;
	struct usage_data d = {0};

	dra_build(&m, "dra-whole");
	/* the exporter's index 3 and UUID name nothing: the device name does;
	 * the pool names the node where no node label does */
	parse(&d, UQ_GPU_USED,
	      DRA_SERIES("dra-a100-1", "3", "ml", "train-1-gpu-d448c", "gpu-1", "10000") ","
	      "{\"metric\":{\"gpu\":\"0\",\"dra_claim_namespace\":\"serving\",\"dra_claim_name\":\"infer-0-gpu-tjx98\","
	      "\"dra_pool_name\":\"dra-a100-2\",\"dra_device_name\":\"gpu-1\"},\"value\":[1,\"70000\"]}");
	apply(&m, &d, NULL);
	cr_assert(gpu_named(&m, "dra-a100-1", "gpu-1")->used_known);
	cr_assert_eq(gpu_named(&m, "dra-a100-1", "gpu-1")->used_bytes, 10000 * MIB);
	cr_assert_not(gpu_named(&m, "dra-a100-1", "gpu-3")->used_known);
	cr_assert_eq(gpu_named(&m, "dra-a100-2", "gpu-1")->used_bytes, 70000 * MIB);
	cr_assert(pod(&m, "train-1")->used_known);
	cr_assert_eq(pod(&m, "train-1")->used_bytes, 10000 * MIB);
	cr_assert_eq(pod(&m, "infer-0")->used_bytes, 70000 * MIB);
	cr_assert_not(pod(&m, "train-0")->used_known);
	cr_assert_not_null(finding(&m, "Idle", "pod/ml/train-1"));
	usage_data_release(&d);
	model_release(&m);
}

Test(usage, dra_claim_of_several_pods_is_the_gpus)
{
	struct model m;
	struct usage_data d = {0};

	dra_build(&m, "dra-timeslicing");
	parse(&d, UQ_GPU_USED,
	      DRA_SERIES("dra-ts-1", "0", "research", "shared-gpu", "gpu-0", "90000") ","
	      /* a claim of that name in another namespace is another claim */
	      DRA_SERIES("dra-ts-1", "0", "other", "shared-gpu", "gpu-1", "5"));
	apply(&m, &d, NULL);
	cr_assert_eq(gpu_named(&m, "dra-ts-1", "gpu-0")->used_bytes, 90000 * MIB);
	for (const char *const *n = (const char *const[]){"notebook-0", "notebook-1", "notebook-2", NULL}; *n; n++)
		cr_assert_not(pod(&m, *n)->used_known, "%s", *n);
	/* never split among the pods: the GPU is judged as one */
	cr_assert_not_null(finding(&m, "OverUse", "node/dra-ts-1"));
	cr_assert_null(finding(&m, "OverUse", "pod/research/notebook-0"));
	usage_data_release(&d);
	model_release(&m);
}

/* A DCGM series of a DRA device of pool, on node (no node label when NULL). */
#define DRA_POOL_SERIES(host, pool, claim, device, value)                                                          \
	"{\"metric\":{" host "\"dra_claim_namespace\":\"ml\",\"dra_claim_name\":\"" claim "\",\"dra_pool_name\":\"" \
	pool "\",\"dra_device_name\":\"" device "\"},\"value\":[1,\"" value "\"]}"
#define HOST(n) "\"Hostname\":\"" n "\","

/* Two pools on one node, each with a gpu-0: the node's own and a pool its
 * selector places there.  The pool tells them apart, with the node label
 * or without (then the pool, named after no node, is found where it is). */
Test(usage, dra_device_by_pool_and_name)
{
	struct model m;
	struct usage_data d = {0};

	dra_build(&m, "dra-pools");
	parse(&d, UQ_GPU_USED,
	      DRA_POOL_SERIES(HOST("dra-a100-3"), "dra-a100-3", "train-a-gpu-d5f29", "gpu-0", "20000") ","
	      DRA_POOL_SERIES(HOST("dra-a100-3"), "dra-rack-1", "train-b-gpu-68fmq", "gpu-0", "50000"));
	apply(&m, &d, NULL);
	cr_assert_eq(gpu_named(&m, "dra-a100-3", "gpu-0")->used_bytes, 20000 * MIB);
	cr_assert_eq(gpu_named(&m, "dra-a100-3", "dra-rack-1/gpu-0")->used_bytes, 50000 * MIB);
	cr_assert_not(gpu_named(&m, "dra-a100-3", "gpu-1")->used_known);
	cr_assert_eq(pod(&m, "train-a")->used_bytes, 20000 * MIB);
	cr_assert_eq(pod(&m, "train-b")->used_bytes, 50000 * MIB);
	usage_data_release(&d);
	model_release(&m);

	dra_build(&m, "dra-pools");
	parse(&d, UQ_GPU_USED, DRA_POOL_SERIES("", "dra-rack-1", "train-b-gpu-68fmq", "gpu-0", "30000"));
	apply(&m, &d, NULL);
	cr_assert_eq(gpu_named(&m, "dra-a100-3", "dra-rack-1/gpu-0")->used_bytes, 30000 * MIB);
	cr_assert_not(gpu_named(&m, "dra-a100-3", "gpu-0")->used_known);
	cr_assert_eq(pod(&m, "train-b")->used_bytes, 30000 * MIB);
	usage_data_release(&d);
	model_release(&m);
}

/* dra-mig's GPU as the DCGM exporter labels it with MIG on: the GPU's
 * series copied for each claim on a MIG device of it (the MIG device and
 * its profile, the claim's pod), and a series per GPU instance (profile
 * and id, no claim). */
#define MIG_COPY(pod, claim, device, profile, value)                                                                \
	"{\"metric\":{\"Hostname\":\"dra-mig-1\",\"gpu\":\"0\",\"UUID\":\"GPU-ecbb2393\",\"dra_claim_namespace\":\"ml\","    \
	"\"dra_claim_name\":\"" claim "\",\"dra_pool_name\":\"dra-mig-1\",\"dra_device_name\":\"" device "\","              \
	"\"dra_mig_profile\":\"" profile "\",\"namespace\":\"ml\",\"pod\":\"" pod "\"},\"value\":[1,\"" value "\"]}"
#define MIG_INSTANCE(profile, id, value)                                                                              \
	"{\"metric\":{\"Hostname\":\"dra-mig-1\",\"gpu\":\"0\",\"UUID\":\"GPU-ecbb2393\",\"GPU_I_PROFILE\":\"" profile      \
	"\",\"GPU_I_ID\":\"" id "\"},\"value\":[1,\"" value "\"]}"
#define MIG_LARGE(value) MIG_COPY("mig-large-0", "mig-large-0-mig-hx6vd", "gpu-0-mig-3g20gb-9-4", "3g.20gb", value)
#define MIG_SMALL0(value) MIG_COPY("mig-small-0", "mig-small-0-mig-gg6k6", "gpu-0-mig-1g5gb-19-0", "1g.5gb", value)
#define MIG_SMALL1(value) MIG_COPY("mig-small-1", "mig-small-1-mig-dt7r6", "gpu-0-mig-1g5gb-19-1", "1g.5gb", value)

Test(usage, dra_mig_labels_parsed)
{
	struct usage_data d = {0};

	parse(&d, UQ_GPU_USED, MIG_LARGE("20000") "," MIG_INSTANCE("1g.5gb", "9", "100"));
	cr_assert_str_eq(d.samples[UQ_GPU_USED][0].dra_mig_profile, "3g.20gb");
	cr_assert_null(d.samples[UQ_GPU_USED][0].mig_instance);
	cr_assert_str_eq(d.samples[UQ_GPU_USED][1].mig_instance, "9");
	cr_assert_str_eq(d.samples[UQ_GPU_USED][1].mig_profile, "1g.5gb");
	cr_assert_null(d.samples[UQ_GPU_USED][1].dra_mig_profile);
	usage_data_release(&d);
}

/* A claim's series on a MIG device is its GPU's figure, never the pod's;
 * the instances' series never the GPU's (their free memory is the
 * instance's).  An instance of a profile that one claim holds on the GPU
 * is that claim's pod's; two of one profile are nobody's, as the exporter
 * does not say which instance is which device. */
Test(usage, dra_mig_instances_to_their_claims)
{
	struct model m;
	struct usage_data d = {0};
	const struct model_gpu *g;

	dra_build(&m, "dra-mig");
	parse(&d, UQ_GPU_USED, MIG_LARGE("20000") "," MIG_SMALL0("20000") "," MIG_SMALL1("20000"));
	parse(&d, UQ_GPU_FREE, MIG_LARGE("20960") "," MIG_INSTANCE("1g.5gb", "9", "864"));
	apply(&m, &d, NULL);
	g = gpu_named(&m, "dra-mig-1", "gpu-0");
	cr_assert_eq(g->used_bytes, 20000 * MIB);
	cr_assert_eq(g->total_bytes, 40960 * MIB);
	cr_assert_not(pod(&m, "mig-large-0")->used_known);
	cr_assert_not(pod(&m, "mig-small-0")->used_known);
	usage_data_release(&d);
	model_release(&m);

	dra_build(&m, "dra-mig");
	parse(&d, UQ_GPU_USED,
	      MIG_LARGE("20000") "," MIG_SMALL0("20000") "," MIG_SMALL1("20000") "," MIG_INSTANCE("3g.20gb", "2", "2000") ","
	      MIG_INSTANCE("1g.5gb", "9", "1000") "," MIG_INSTANCE("1g.5gb", "10", "4000"));
	apply(&m, &d, NULL);
	cr_assert_eq(gpu_named(&m, "dra-mig-1", "gpu-0")->used_bytes, 20000 * MIB);
	cr_assert_eq(pod(&m, "mig-large-0")->used_bytes, 2000 * MIB);
	/* judged against the MIG device it was allocated: 2000 of 19968 MiB */
	cr_assert_not_null(finding(&m, "Idle", "pod/ml/mig-large-0"));
	cr_assert_not(pod(&m, "mig-small-0")->used_known);
	cr_assert_not(pod(&m, "mig-small-1")->used_known);
	usage_data_release(&d);
	model_release(&m);

	/* without the pod's labels the claim still names it: the GPU's figure stays the GPU's */
	dra_build(&m, "dra-mig");
	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"Hostname\":\"dra-mig-1\",\"gpu\":\"0\",\"dra_claim_namespace\":\"ml\","
	      "\"dra_claim_name\":\"mig-small-1-mig-dt7r6\",\"dra_pool_name\":\"dra-mig-1\","
	      "\"dra_device_name\":\"gpu-0-mig-1g5gb-19-1\",\"dra_mig_profile\":\"1g.5gb\"},\"value\":[1,\"9000\"]}");
	apply(&m, &d, NULL);
	cr_assert_eq(gpu_named(&m, "dra-mig-1", "gpu-0")->used_bytes, 9000 * MIB);
	cr_assert_not(pod(&m, "mig-small-1")->used_known);
	usage_data_release(&d);
	model_release(&m);

	/* one 1g.5gb device held: its one instance is its own */
	dra_build(&m, "dra-mig");
	parse(&d, UQ_GPU_USED, MIG_SMALL1("9000") "," MIG_INSTANCE("1g.5gb", "10", "4000"));
	apply(&m, &d, NULL);
	cr_assert_eq(pod(&m, "mig-small-1")->used_bytes, 4000 * MIB);
	cr_assert_not(pod(&m, "mig-small-0")->used_known);
	usage_data_release(&d);
	model_release(&m);
}

/* The exporter labels the pods of a shared claim too (from the kubelet's pod
 * resources), each series with the GPU's figure at its own scrape: still
 * the GPU's, not each pod's. */
Test(usage, dra_shared_claim_with_pod_labels)
{
	struct model m;
	struct usage_data d = {0};

	dra_build(&m, "dra-timeslicing");
	parse(&d, UQ_GPU_USED,
	      "{\"metric\":{\"Hostname\":\"dra-ts-1\",\"dra_claim_namespace\":\"research\",\"dra_claim_name\":\"shared-gpu\","
	      "\"dra_pool_name\":\"dra-ts-1\",\"dra_device_name\":\"gpu-0\",\"namespace\":\"research\",\"pod\":\"notebook-0\"},"
	      "\"value\":[1,\"5000\"]},"
	      "{\"metric\":{\"Hostname\":\"dra-ts-1\",\"dra_claim_namespace\":\"research\",\"dra_claim_name\":\"shared-gpu\","
	      "\"dra_pool_name\":\"dra-ts-1\",\"dra_device_name\":\"gpu-0\",\"namespace\":\"research\",\"pod\":\"notebook-1\"},"
	      "\"value\":[1,\"7000\"]}");
	apply(&m, &d, NULL);
	cr_assert(gpu_named(&m, "dra-ts-1", "gpu-0")->used_known);
	cr_assert_not(pod(&m, "notebook-0")->used_known);
	cr_assert_not(pod(&m, "notebook-1")->used_known);
	usage_data_release(&d);
	model_release(&m);
}

/* Claims sharing one device by consumable memory: the exporter measures the
 * device, so each claim's series is the device's figure, judged against all
 * the shares together. */
Test(usage, dra_claims_sharing_a_device_by_capacity)
{
	struct model m;
	struct usage_data d = {0};

	dra_build(&m, "dra-consumable");
	parse(&d, UQ_GPU_USED,
	      DRA_SERIES("dra-share-1", "0", "team-a", "llm-0-gpu-gtvfb", "gpu-0", "70000") ","
	      DRA_SERIES("dra-share-1", "0", "team-a", "llm-1-gpu-8j8nt", "gpu-0", "70000") ","
	      DRA_SERIES("dra-share-1", "0", "team-b", "embed-0-gpu-zgm56", "gpu-0", "70000"));
	apply(&m, &d, NULL);
	cr_assert_eq(gpu_named(&m, "dra-share-1", "gpu-0")->used_bytes, 70000 * MIB);
	cr_assert_not(pod(&m, "llm-0")->used_known);
	cr_assert_not(pod(&m, "embed-0")->used_known);
	/* 70000 MiB against the 60 GiB the three claims consumed */
	cr_assert_not_null(finding(&m, "OverUse", "node/dra-share-1"));
	cr_assert_null(finding(&m, "OverUse", "pod/team-a/llm-0"));
	usage_data_release(&d);
	model_release(&m);
}
