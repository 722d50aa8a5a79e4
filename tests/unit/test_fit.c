/* The fit check, per rule and per scheme, on the fit scenario (decoded with
 * the model's own filters) and on requests made in the test. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "manifest.h"
#include "model.h"
#include "scheme_test_util.h"

static struct model m;

static void load(void)
{
	struct model_options o = {.force_unit = -1, .scheduling = true};
	struct t_objs nodes = {0}, pods = {0};
	struct kerr err = KERR_INIT;

	cr_assert_eq(model_init(&m, &o), 0);
	t_load_list(&nodes, "fit", "nodes.json", OBJ_NODE, model_node_filter(&m));
	t_load_list(&pods, "fit", "pods.json", OBJ_POD, model_pod_filter(&m));
	for (size_t i = 0; i < nodes.nnodes; i++) {
		cr_assert_eq(model_add_node(&m, nodes.nodes[i], &err), 0);
		k8s_node_free(nodes.nodes[i]);
	}
	for (size_t i = 0; i < pods.npods; i++) {
		cr_assert_eq(model_add_pod(&m, pods.pods[i], &err), 0);
		k8s_pod_free(pods.pods[i]);
	}
	cr_assert_eq(model_finish(&m, &err), 0);
	kerr_release(&err);
}

static void unload(void)
{
	model_release(&m);
}

TestSuite(fit, .init = load, .fini = unload);

static const struct fit_place *place_on(const struct fit_result *r, const char *node)
{
	for (size_t i = 0; i < r->nfits; i++)
		if (strcmp(m.nodes[r->fits[i].node].name, node) == 0)
			return &r->fits[i];
	return NULL;
}

static const struct fit_group *group(const struct fit_result *r, enum fit_reason reason)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (r->groups[i].reason == reason)
			return &r->groups[i];
	return NULL;
}

static void check(const struct fit_request *q, struct fit_result *r)
{
	cr_assert_eq(fit_check(&m, q, r), 0);
	cr_assert_eq(r->considered, m.nnodes);
	size_t sum = r->nfits;
	for (size_t i = 0; i < r->ngroups; i++)
		sum += r->groups[i].count;
	cr_assert_eq(sum, m.nnodes, "every node is either a place or one reason");
}

Test(fit, fragmented_memory_and_node_health)
{
	struct fit_request q = {.scheme = "cgpu", .mem = 12, .gpus = 1};
	struct fit_result r;
	const struct fit_group *g;
	char *text;

	check(&q, &r);
	/* 24 GiB free in the share pool, at most 11 on one GPU: only cgpu-a */
	cr_assert_eq(r.nfits, 1);
	cr_assert_str_eq(m.nodes[r.fits[0].node].name, "cgpu-a");
	/* spread placement: the GPU with the most room (GPU1, 15 free) */
	cr_assert_eq(r.fits[0].gpus[0], 1);
	cr_assert_eq(r.fits[0].free_after, 3);
	g = group(&r, FIT_REASON_MEMORY);
	cr_assert_not_null(g);
	cr_assert_eq(g->count, 2);
	cr_assert_eq(g->largest_free, 11);
	text = fit_group_text(g, &q);
	cr_assert_str_eq(text, "no GPU with 12 GiB free (largest free on one GPU: 11 GiB)");
	free(text);
	cr_assert_eq(group(&r, FIT_REASON_NOT_READY)->count, 1);
	cr_assert_eq(group(&r, FIT_REASON_CORDONED)->count, 1);
	cr_assert_str_eq(group(&r, FIT_REASON_TAINT)->detail, "dedicated=training:NoSchedule");
	cr_assert_eq(group(&r, FIT_REASON_SCHEME)->count, 4);
	cr_assert_not(r.unpublished);
	fit_result_release(&r);
}

Test(fit, binpack_takes_the_tightest_gpu_and_node)
{
	struct fit_request q = {.scheme = "cgpu", .mem = 4, .gpus = 1};
	struct fit_result r;

	check(&q, &r);
	cr_assert_eq(r.nfits, 3);
	/* binpack nodes first, least room left first: share-b GPU0 (4 free) */
	cr_assert_str_eq(m.nodes[r.fits[0].node].name, "share-b");
	cr_assert_eq(r.fits[0].gpus[0], 0);
	cr_assert_eq(r.fits[0].free_after, 0);
	cr_assert_str_eq(m.nodes[r.fits[1].node].name, "share-a");
	cr_assert_eq(r.fits[1].gpus[0], 0);
	/* spread nodes after */
	cr_assert_str_eq(m.nodes[r.fits[2].node].name, "cgpu-a");
	fit_result_release(&r);
}

Test(fit, gpu_count_needs_every_gpu)
{
	struct fit_request q = {.scheme = "cgpu", .mem = 7, .gpus = 2};
	struct fit_result r;

	check(&q, &r);
	cr_assert_eq(r.nfits, 1);
	cr_assert_str_eq(m.nodes[r.fits[0].node].name, "cgpu-a");
	cr_assert_eq(r.fits[0].ngpus, 2);
	cr_assert_eq(group(&r, FIT_REASON_MEMORY)->count, 2);
	fit_result_release(&r);
	q.gpus = 3;
	check(&q, &r);
	cr_assert_eq(r.nfits, 0);
	cr_assert_eq(group(&r, FIT_REASON_FEW_GPUS)->count, 3);
	fit_result_release(&r);
}

Test(fit, compute_share_needs_core_mode)
{
	struct fit_request q = {.scheme = "cgpu", .mem = 2, .core = 30, .gpus = 1};
	struct fit_result r;

	check(&q, &r);
	cr_assert_eq(r.nfits, 0);
	cr_assert_eq(group(&r, FIT_REASON_NO_CORE)->count, 3);
	fit_result_release(&r);
}

Test(fit, tolerations)
{
	struct k8s_toleration tol = {.key = "dedicated", .op = "Equal", .value = "training", .effect = "NoSchedule"};
	struct fit_request q = {.scheme = "cgpu", .mem = 12, .gpus = 1, .tols = &tol, .ntols = 1};
	struct fit_result r;

	check(&q, &r);
	cr_assert_not_null(place_on(&r, "share-tainted"));
	cr_assert_null(group(&r, FIT_REASON_TAINT));
	fit_result_release(&r);
	/* a value that differs does not tolerate; Exists does; another effect does not */
	tol.value = "serving";
	check(&q, &r);
	cr_assert_null(place_on(&r, "share-tainted"));
	fit_result_release(&r);
	tol.op = "Exists";
	tol.value = NULL;
	check(&q, &r);
	cr_assert_not_null(place_on(&r, "share-tainted"));
	fit_result_release(&r);
	tol.effect = "NoExecute";
	check(&q, &r);
	cr_assert_null(place_on(&r, "share-tainted"));
	fit_result_release(&r);
}

Test(fit, node_selector_and_affinity)
{
	struct kvlist sel = {0};
	char *values[] = {"np-cgpu"};
	struct k8s_node_requirement req = {.key = "alibabacloud.com/nodepool-id", .op = "NotIn", .values = values,
					   .nvalues = 1};
	struct k8s_node_term term = {.reqs = &req, .nreqs = 1};
	struct fit_request q = {.scheme = "cgpu", .mem = 4, .gpus = 1, .node_selector = &sel};
	struct fit_result r;
	const struct fit_group *g;
	char *text;

	t_kv(&sel, "alibabacloud.com/nodepool-id", "np-share");
	check(&q, &r);
	cr_assert_eq(r.nfits, 2);
	cr_assert_null(place_on(&r, "cgpu-a"));
	g = group(&r, FIT_REASON_SELECTOR);
	cr_assert_eq(g->count, 1);
	text = fit_group_text(g, &q);
	cr_assert_str_eq(text, "outside nodeSelector alibabacloud.com/nodepool-id=np-share");
	free(text);
	fit_result_release(&r);
	kvlist_release(&sel);

	q.node_selector = NULL;
	q.terms = &term;
	q.nterms = 1;
	check(&q, &r);
	cr_assert_null(place_on(&r, "cgpu-a"));
	cr_assert_eq(group(&r, FIT_REASON_AFFINITY)->count, 1);
	fit_result_release(&r);
}

Test(fit, hami_devices)
{
	struct fit_request q = {.scheme = "hami", .mem = 12000, .gpus = 1};
	struct fit_result r;
	const struct fit_place *p;

	/* GPU0 has 10960 MiB free; GPU1 is cordoned */
	check(&q, &r);
	cr_assert_eq(r.nfits, 0);
	cr_assert_eq(group(&r, FIT_REASON_MEMORY)->count, 1);
	fit_result_release(&r);
	q.mem = 8000;
	check(&q, &r);
	p = place_on(&r, "hami-1");
	cr_assert_not_null(p);
	cr_assert_eq(p->gpus[0], 0);
	fit_result_release(&r);
	/* no memory limit: a whole, unused card; none is */
	q.mem = 0;
	q.core = 10;
	check(&q, &r);
	cr_assert_eq(r.nfits, 0);
	fit_result_release(&r);
	/* all of a GPU's compute: exclusive */
	q.mem = 1000;
	q.core = 100;
	check(&q, &r);
	cr_assert_eq(r.nfits, 0);
	fit_result_release(&r);
}

Test(fit, volcano_vgpu_slots)
{
	struct fit_request q = {.scheme = "volcano-vgpu", .mem = 4000, .gpus = 1};
	struct fit_result r;
	const struct fit_place *p;

	/* GPU0's two slots are taken (8000 and 4000 MiB); GPU1 is empty */
	check(&q, &r);
	p = place_on(&r, "volc-1");
	cr_assert_not_null(p);
	cr_assert_eq(p->gpus[0], 1);
	fit_result_release(&r);
	q.gpus = 2;
	check(&q, &r);
	cr_assert_eq(r.nfits, 0);
	cr_assert_eq(group(&r, FIT_REASON_SLOTS)->count, 1);
	fit_result_release(&r);
}

Test(fit, cce_per_node_with_card_limit)
{
	struct fit_request q = {.scheme = "cce", .mem = 10000, .gpus = 1};
	struct fit_result r;

	check(&q, &r);
	cr_assert_not_null(place_on(&r, "cce-1"));
	cr_assert(r.unpublished);
	/* a rule nobody publishes: it may fit, never counted as fits */
	cr_assert(place_on(&r, "cce-1")->unsure);
	cr_assert_eq(r.nsure, 0);
	fit_result_release(&r);
	q.mem = 20000; /* more than one 16 GiB card */
	check(&q, &r);
	cr_assert_eq(group(&r, FIT_REASON_CARD)->count, 1);
	fit_result_release(&r);
}

Test(fit, whole_gpus)
{
	struct fit_request q = {.gpus = 1};
	struct fit_result r;

	check(&q, &r);
	cr_assert_eq(r.nfits, 1);
	cr_assert_str_eq(m.nodes[r.fits[0].node].name, "whole-1");
	fit_result_release(&r);
	q.gpus = 2;
	check(&q, &r);
	cr_assert_eq(group(&r, FIT_REASON_SLOTS)->count, 1);
	fit_result_release(&r);
}

Test(fit, mib_request_on_gib_nodes)
{
	struct fit_request q = {.scheme = "cgpu", .mem = 11 * 1024 + 1, .mem_unit = FIT_MEM_MIB, .gpus = 1};
	struct fit_result r;

	/* rounded up to 12 GiB: share-b's 11 free is not enough */
	check(&q, &r);
	cr_assert_null(place_on(&r, "share-b"));
	fit_result_release(&r);
}

Test(fit, pending_pod_from_the_cluster)
{
	struct fit_request q = {0};
	const struct scheme *sc;
	struct warnings w = {0};
	struct fit_result r;
	struct k8s_pod *pod;
	struct kerr err = KERR_INIT;
	const char *doc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bigmodel\n  namespace: ml\nspec:\n"
			  "  nodeSelector:\n    alibabacloud.com/nodepool-id: np-share\n  containers:\n"
			  "  - name: main\n    resources:\n      limits:\n        aliyun.com/gpu-mem: 12\n";

	cr_assert_eq(manifest_read_pod(doc, strlen(doc), &pod, &err), 0);
	cr_assert_eq(fit_request_from_pod(pod, NULL, &q, &sc, &w), 1);
	cr_assert_str_eq(sc->name, "cgpu");
	cr_assert_eq(q.mem, 12);
	check(&q, &r);
	cr_assert_eq(r.nfits, 0);
	cr_assert_eq(group(&r, FIT_REASON_SELECTOR)->count, 1);
	cr_assert_eq(group(&r, FIT_REASON_MEMORY)->count, 2);
	fit_result_release(&r);
	k8s_pod_free(pod);
	warnings_release(&w);
}

Test(fit_request, per_scheme_counts)
{
	const struct scheme *sc;
	struct warnings w = {0};
	struct kerr err = KERR_INIT;
	struct k8s_pod *pod;
	struct fit_request q = {0};
	const char *cgpu = "kind: Deployment\nspec:\n  template:\n    metadata:\n      labels:\n"
			   "        aliyun.com/gpu-count: \"2\"\n    spec:\n      containers:\n      - name: a\n"
			   "        resources:\n          limits:\n            aliyun.com/gpu-mem: 14\n";
	const char *hami = "{\"kind\":\"StatefulSet\",\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\","
			   "\"resources\":{\"limits\":{\"nvidia.com/gpu\":2,\"nvidia.com/gpumem\":8000,"
			   "\"nvidia.com/gpucores\":30}}}]}}}}";
	const char *whole = "kind: Job\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n"
			    "        resources:\n          limits:\n            nvidia.com/gpu: 3\n";

	cr_assert_eq(manifest_read_pod(cgpu, strlen(cgpu), &pod, &err), 0);
	cr_assert_eq(fit_request_from_pod(pod, NULL, &q, &sc, &w), 1);
	cr_assert_eq(q.gpus, 2);
	cr_assert_eq(q.mem, 7);
	k8s_pod_free(pod);

	memset(&q, 0, sizeof(q));
	cr_assert_eq(manifest_read_pod(hami, strlen(hami), &pod, &err), 0);
	cr_assert_eq(fit_request_from_pod(pod, NULL, &q, &sc, &w), 1);
	cr_assert_str_eq(sc->name, "hami");
	cr_assert_eq(q.gpus, 2);
	cr_assert_eq(q.mem, 8000);
	cr_assert_eq(q.core, 30);
	k8s_pod_free(pod);

	memset(&q, 0, sizeof(q));
	cr_assert_eq(manifest_read_pod(whole, strlen(whole), &pod, &err), 0);
	cr_assert_eq(fit_request_from_pod(pod, NULL, &q, &sc, &w), 1);
	cr_assert_str_eq(sc->name, "nvidia");
	cr_assert_eq(q.gpus, 3);
	cr_assert_eq(q.mem, 0);
	k8s_pod_free(pod);
	/* only another scheme asked: none reads it */
	cr_assert_eq(manifest_read_pod(whole, strlen(whole), &pod, &err), 0);
	cr_assert_eq(fit_request_from_pod(pod, "cgpu", &q, &sc, &w), 0);
	k8s_pod_free(pod);
	warnings_release(&w);
	kerr_release(&err);
}

static const struct model_node *node_named(const char *name)
{
	const struct model_node *n = model_find_node(&m, name);

	cr_assert_not_null(n, "%s", name);
	return n;
}

static const struct model_pod *pod_named(const char *ns, const char *name)
{
	for (size_t i = 0; i < m.npods; i++)
		if (strcmp(m.pods[i].namespace, ns) == 0 && strcmp(m.pods[i].name, name) == 0)
			return &m.pods[i];
	cr_assert_fail("pod %s/%s", ns, name);
	return NULL;
}

Test(fit, derived_figures_are_there_once_the_model_is_finished)
{
	const struct model_pod *p = pod_named("ml", "bigmodel-7c9d8f6b5-x7k2p");

	cr_assert_str_eq(node_named("share-cordoned")->status, "Ready,SchedulingDisabled");
	cr_assert_not(node_named("share-cordoned")->schedulable);
	cr_assert_str_eq(node_named("share-notready")->status, "NotReady");
	cr_assert(node_named("share-a")->schedulable);
	cr_assert_eq(node_named("share-a")->largest_free, 7);
	cr_assert_eq(node_named("share-b")->largest_free, 11);
	cr_assert_eq(m.frag[UNIT_GIB].largest, 15);
	cr_assert_eq(m.frag[UNIT_GIB].gpus, 3);
	cr_assert_eq(m.frag[UNIT_GIB].free_unschedulable, 60);
	cr_assert_eq(m.frag[UNIT_GIB].unschedulable_nodes, 2);
	cr_assert_not_null(p->pending_reason);
	cr_assert(strncmp(p->pending_reason, "2 nodes: no GPU with 12 GiB free (largest free on one GPU: 11 GiB)",
			  66) == 0, "%s", p->pending_reason);
}

/* --memory as kubectl reads a quantity, or refused with how to write it. */
Test(fit_memory, quantities_as_kubectl_reads_them)
{
	static const struct {
		const char *v;
		int64_t mem;
		enum fit_mem_unit unit;
	} ok[] = {
		{"12", 12, FIT_MEM_NODE},      {"1e3", 1000, FIT_MEM_NODE},  {"1000e-3", 1, FIT_MEM_NODE},
		{"8.0", 8, FIT_MEM_NODE},      {"12Gi", 12288, FIT_MEM_MIB}, {"7.9Gi", 8090, FIT_MEM_MIB},
		{"512Mi", 512, FIT_MEM_MIB},   {"1Ki", 1, FIT_MEM_MIB},      {"16G", 15259, FIT_MEM_MIB},
		{"12GiB", 12288, FIT_MEM_MIB},
	};
	static const char *const bad[] = {"7.9", "1.5", "2.5", "0", "0Gi", "-1", "-2Gi", "1e-3", "x", "", "12Q",
					  "500m", "."};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t mem = -1;
		enum fit_mem_unit unit = FIT_MEM_NODE;
		char *why = NULL;

		cr_assert_eq(fit_parse_memory(ok[i].v, &mem, &unit, &why), 0, "%s: %s", ok[i].v, why);
		cr_assert_eq(mem, ok[i].mem, "%s: %lld", ok[i].v, (long long)mem);
		cr_assert_eq(unit, ok[i].unit, "%s", ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t mem = -1;
		enum fit_mem_unit unit;
		char *why = NULL;

		cr_assert_eq(fit_parse_memory(bad[i], &mem, &unit, &why), -1, "%s read as %lld", bad[i], (long long)mem);
		cr_assert_not_null(why);
		free(why);
	}
}

Test(fit_memory, a_fraction_is_refused_with_how_to_write_it)
{
	int64_t mem;
	enum fit_mem_unit unit;
	char *why = NULL;

	cr_assert_eq(fit_parse_memory("7.9", &mem, &unit, &why), -1);
	cr_assert_str_eq(why, "GPU memory without a unit is a whole count in the nodes' unit: write 8, or a size such as 7.9Gi");
	free(why);
}

/* The scheduler counts the larger of the largest init container and the
 * sum of the containers, sidecars in the sum. */
Test(fit_request, init_containers_count_as_the_scheduler_counts_them)
{
	static const struct {
		const char *init;
		int64_t mem;
	} cases[] = {
		{"  - name: warm\n    resources: {limits: {aliyun.com/gpu-mem: 20}}\n", 20},
		{"  - name: small\n    resources: {limits: {aliyun.com/gpu-mem: 1}}\n", 2},
		{"  - name: side\n    restartPolicy: Always\n    resources: {limits: {aliyun.com/gpu-mem: 3}}\n"
		 "  - name: warm\n    resources: {limits: {aliyun.com/gpu-mem: 4}}\n", 5},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct scheme *sc;
		struct warnings w = {0};
		struct kerr err = KERR_INIT;
		struct k8s_pod *pod;
		struct fit_request q = {0};
		char *doc = NULL;

		cr_assert(asprintf(&doc, "kind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n%s  containers:\n"
					 "  - name: main\n    resources: {limits: {aliyun.com/gpu-mem: 2}}\n",
				   cases[i].init) > 0);
		cr_assert_eq(manifest_read_pod(doc, strlen(doc), &pod, &err), 0, "%s", err.message);
		cr_assert_eq(fit_request_from_pod(pod, NULL, &q, &sc, &w), 1);
		cr_assert_eq(q.mem, cases[i].mem, "case %zu: %lld", i, (long long)q.mem);
		k8s_pod_free(pod);
		warnings_release(&w);
		free(doc);
	}
}

/* Pods placed one after another each take their GPU before the next: 8 on
 * the untainted cgpu nodes fits on GPUs with 9, 15 and 11 free, and the
 * GPU with 15 takes only one of them. */
Test(fit, sequence_takes_each_place_before_the_next)
{
	struct fit_request q = {.scheme = "cgpu", .mem = 8, .gpus = 1};
	struct fit_sequence s;
	const struct model_node *a = model_find_node(&m, "cgpu-a");
	int64_t before = a->mem_allocated;

	cr_assert_eq(fit_sequence(&m, &q, 10, &s), 0);
	cr_assert_eq(s.asked, 10);
	cr_assert_eq(s.placed, 3);
	cr_assert_eq(s.rest.nfits, 0);
	cr_assert_not_null(group(&s.rest, FIT_REASON_MEMORY));
	cr_assert_eq(a->mem_allocated, before + 16);
	cr_assert_eq(a->largest_free, 7);
	fit_sequence_release(&s);
}

Test(fit, sequence_of_a_daemonset_is_one_pod_per_node)
{
	struct fit_request q = {.scheme = "cgpu", .mem = 8, .gpus = 1};
	struct fit_sequence s;

	/* cgpu-a, share-a and share-b take pods; share-a has 6 and 7 free */
	cr_assert_eq(fit_sequence(&m, &q, -1, &s), 0);
	cr_assert_eq(s.asked, 3);
	cr_assert_eq(s.placed, 2);
	fit_sequence_release(&s);
}

/* The fit scenario with pods bound to share-a (6 and 7 GiB free) that wait
 * for their GPU: said to wait for the GPU only where one there has room,
 * else fit's reason for that node. */
Test(fit_pending, a_bound_pod_waits_for_its_gpu_only_where_one_has_room)
{
	static const char *const pods[] = {"small", "big"};
	static const int mem[] = {5, 12};
	struct model b;
	struct model_options o = {.force_unit = -1, .scheduling = true, .keep_pods = true};
	struct t_objs nodes = {0}, listed = {0};
	struct kerr err = KERR_INIT;
	int found = 0;

	cr_assert_eq(model_init(&b, &o), 0);
	t_load_list(&nodes, "fit", "nodes.json", OBJ_NODE, model_node_filter(&b));
	t_load_list(&listed, "fit", "pods.json", OBJ_POD, model_pod_filter(&b));
	for (size_t i = 0; i < nodes.nnodes; i++) {
		cr_assert_eq(model_add_node(&b, nodes.nodes[i], &err), 0);
		k8s_node_free(nodes.nodes[i]);
	}
	for (size_t i = 0; i < listed.npods; i++) {
		cr_assert_eq(model_add_pod(&b, listed.pods[i], &err), 0);
		k8s_pod_free(listed.pods[i]);
	}
	for (size_t i = 0; i < 2; i++) {
		struct k8s_pod *p;
		char *doc = NULL;

		cr_assert(asprintf(&doc, "kind: Pod\nmetadata: {name: %s, namespace: ml}\nspec:\n  nodeName: share-a\n"
					 "  containers:\n  - name: m\n    resources: {limits: {aliyun.com/gpu-mem: %d}}\n",
				   pods[i], mem[i]) > 0);
		cr_assert_eq(manifest_read_pod(doc, strlen(doc), &p, &err), 0, "%s", err.message);
		cr_assert_eq(model_add_pod(&b, p, &err), 0);
		k8s_pod_free(p);
		free(doc);
	}
	cr_assert_eq(model_finish(&b, &err), 0);
	for (size_t i = 0; i < b.npods; i++) {
		const struct model_pod *p = &b.pods[i];

		if (strcmp(p->name, "small") == 0) {
			cr_assert_str_eq(p->pending_reason, "on node share-a, waiting for its GPU to be chosen");
			found++;
		} else if (strcmp(p->name, "big") == 0) {
			cr_assert_str_eq(p->pending_reason, "on node share-a, where no GPU can hold it now: no GPU with 12 GiB "
							    "free (largest free on one GPU: 7 GiB)");
			found++;
		}
	}
	cr_assert_eq(found, 2);
	model_release(&b);
	kerr_release(&err);
}
