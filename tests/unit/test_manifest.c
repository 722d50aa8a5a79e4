/* Pod manifests (YAML and JSON) and the node-matching rules of objects.c. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "objects.h"

static struct k8s_pod *read_ok(const char *doc)
{
	struct kerr err = KERR_INIT;
	struct k8s_pod *p = NULL;

	cr_assert_eq(manifest_read_pod(doc, strlen(doc), &p, &err), 0, "%s", err.message ? err.message : "");
	cr_assert_not_null(p);
	kerr_release(&err);
	return p;
}

static void read_fails(const char *doc, const char *want)
{
	struct kerr err = KERR_INIT;
	struct k8s_pod *p = NULL;

	cr_assert_lt(manifest_read_pod(doc, strlen(doc), &p, &err), 0);
	cr_assert_null(p);
	cr_assert_not_null(strstr(err.message, want), "%s", err.message);
	kerr_release(&err);
}

Test(manifest, deployment_yaml)
{
	struct k8s_pod *p = read_ok(
		"---\n# leading empty document\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
		"  namespace: ml\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n"
		"      nodeSelector:\n        pool: gpu\n      tolerations:\n      - key: dedicated\n"
		"        operator: Equal\n        value: training\n        effect: NoSchedule\n      - operator: Exists\n"
		"      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
		"            nodeSelectorTerms:\n            - matchExpressions:\n              - key: zone\n"
		"                operator: In\n                values: [a, b]\n      containers:\n      - name: main\n"
		"        resources:\n          limits:\n            aliyun.com/gpu-mem: 4\n      - name: side\n");

	cr_assert_str_eq(p->name, "web");
	cr_assert_str_eq(p->namespace, "ml");
	cr_assert_str_eq(kvlist_get(&p->labels, "app"), "web");
	cr_assert_str_eq(kvlist_get(&p->node_selector, "pool"), "gpu");
	cr_assert_eq(p->ntolerations, 2);
	cr_assert_str_eq(p->tolerations[0].value, "training");
	cr_assert_null(p->tolerations[1].key);
	cr_assert_eq(p->nnode_terms, 1);
	cr_assert_eq(p->node_terms[0].nreqs, 1);
	cr_assert_eq(p->node_terms[0].reqs[0].nvalues, 2);
	cr_assert_eq(p->ncontainers, 2);
	cr_assert_str_eq(kvlist_get(&p->containers[0].limits, "aliyun.com/gpu-mem"), "4");
	cr_assert(p->has_node_selector);
	k8s_pod_free(p);
}

Test(manifest, pod_json_with_numbers)
{
	struct k8s_pod *p = read_ok("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":"
				    "\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpumem\":3000,\"x\":1.5}}}]}}");

	cr_assert_str_eq(kvlist_get(&p->containers[0].limits, "nvidia.com/gpumem"), "3000");
	cr_assert_str_eq(kvlist_get(&p->containers[0].limits, "x"), "1.5");
	k8s_pod_free(p);
}

Test(manifest, cronjob_template)
{
	struct k8s_pod *p = read_ok("kind: CronJob\nmetadata: {name: nightly}\nspec:\n  jobTemplate:\n    spec:\n"
				    "      template:\n        spec:\n          containers: [{name: c}]\n");

	cr_assert_str_eq(p->name, "nightly");
	cr_assert_eq(p->ncontainers, 1);
	k8s_pod_free(p);
}

Test(manifest, errors)
{
	read_fails("kind: Service\nspec: {}\n", "no pod template");
	read_fails("metadata: {name: x}\n", "'Kind' is missing");
	read_fails("kind: Pod\nspec: [\n", "error parsing manifest");
	read_fails("{\"kind\": \"Pod\",}", "error parsing manifest");
	read_fails("", "no objects");
	read_fails("kind: Deployment\nspec: {}\n", "has no pod spec");
	read_fails("- a\n- b\n", "not an object");
}

Test(manifest, alias_expansion_is_capped)
{
	/* each level doubles the last: 2^40 nodes if expanded without a cap */
	char doc[4096];
	size_t n = (size_t)snprintf(doc, sizeof(doc), "a0: &a0 [x, x]\n");

	for (int i = 1; i < 40; i++)
		n += (size_t)snprintf(doc + n, sizeof(doc) - n, "a%d: &a%d [*a%d, *a%d]\n", i, i, i - 1, i - 1);
	read_fails(doc, "too large");
}

Test(objects, node_terms)
{
	struct kvlist labels = {0};
	char *in[] = {"a", "b"}, *num[] = {"4"}, *bad[] = {"x"};
	struct k8s_node_requirement r = {.key = "zone", .op = "In", .values = in, .nvalues = 2};
	struct k8s_node_term t = {.reqs = &r, .nreqs = 1};

	kvlist_add(&labels, "zone", 4, "b", 1);
	kvlist_add(&labels, "gpus", 4, "8", 1);
	cr_assert(k8s_node_term_match(&labels, &t));
	r.op = "NotIn";
	cr_assert_not(k8s_node_term_match(&labels, &t));
	r.op = "Exists";
	cr_assert(k8s_node_term_match(&labels, &t));
	r.op = "DoesNotExist";
	cr_assert_not(k8s_node_term_match(&labels, &t));
	r.key = "missing";
	cr_assert(k8s_node_term_match(&labels, &t));
	r.op = "NotIn";
	cr_assert(k8s_node_term_match(&labels, &t));
	r = (struct k8s_node_requirement){.key = "gpus", .op = "Gt", .values = num, .nvalues = 1};
	cr_assert(k8s_node_term_match(&labels, &t));
	r.op = "Lt";
	cr_assert_not(k8s_node_term_match(&labels, &t));
	r.values = bad;
	r.op = "Gt";
	cr_assert_not(k8s_node_term_match(&labels, &t));
	t.nreqs = 0;
	cr_assert_not(k8s_node_term_match(&labels, &t), "an empty term selects nothing");
	kvlist_release(&labels);
}

Test(objects, tolerations)
{
	struct k8s_taint t = {.key = "k", .value = "v", .effect = "NoSchedule"};
	struct k8s_toleration all = {.op = "Exists"}, eq = {.key = "k", .value = "v"},
			      other = {.key = "k", .value = "w"}, eff = {.key = "k", .op = "Exists", .effect = "NoExecute"};

	cr_assert(k8s_tolerates(&all, 1, &t));
	cr_assert(k8s_tolerates(&eq, 1, &t));
	cr_assert_not(k8s_tolerates(&other, 1, &t));
	cr_assert_not(k8s_tolerates(&eff, 1, &t));
	cr_assert_not(k8s_tolerates(NULL, 0, &t));
}

/* Every document, a List's items, the pods each workload makes, and the
 * kinds without a pod template counted. */
Test(manifest, every_object_as_kubectl_apply_reads_them)
{
	const char *doc =
		"kind: Service\nmetadata: {name: s}\n---\n---\n"
		"kind: Deployment\nmetadata: {name: d, namespace: ml}\nspec:\n  replicas: 10\n  template:\n"
		"    spec: {containers: [{name: m}]}\n---\n"
		"kind: List\nitems:\n- kind: Job\n  metadata: {name: j}\n  spec:\n    parallelism: 4\n    completions: 2\n"
		"    template: {spec: {containers: [{name: m}]}}\n"
		"- kind: ConfigMap\n  metadata: {name: c}\n- kind: Service\n  metadata: {name: t}\n"
		"- kind: DaemonSet\n  metadata: {name: ds}\n  spec: {template: {spec: {containers: [{name: m}]}}}\n"
		"- kind: StatefulSet\n  metadata: {name: z}\n  spec: {replicas: 0, template: {spec: {containers: []}}}\n"
		"- kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: m}]}\n";
	const char *json = "{\"kind\":\"Job\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"parallelism\":3,"
			   "\"template\":{\"spec\":{\"containers\":[]}}}}\n{\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"},"
			   "\"spec\":{\"containers\":[]}}";
	static const char *const kinds[] = {"Deployment", "Job", "DaemonSet", "StatefulSet", "Pod"};
	static const long pods[] = {10, 2, MANIFEST_PER_NODE, 0, 1};
	struct manifest_set set = {0};
	struct kerr err = KERR_INIT;

	cr_assert_eq(manifest_read_all(doc, strlen(doc), &set, &err), 0, "%s", err.message);
	cr_assert_eq(set.len, 5);
	for (size_t i = 0; i < 5; i++) {
		cr_assert_str_eq(set.items[i].kind, kinds[i]);
		cr_assert_eq(set.items[i].pods, pods[i], "%s: %ld", kinds[i], set.items[i].pods);
		cr_assert_not_null(set.items[i].pod);
	}
	cr_assert_str_eq(set.items[0].namespace, "ml");
	cr_assert_eq(set.nskipped, 2);
	cr_assert_str_eq(set.skipped[0].kind, "Service");
	cr_assert_eq(set.skipped[0].count, 2);
	cr_assert_str_eq(set.skipped[1].kind, "ConfigMap");
	manifest_set_release(&set);
	cr_assert_eq(manifest_read_all(json, strlen(json), &set, &err), 0, "%s", err.message);
	cr_assert_eq(set.len, 2);
	cr_assert_eq(set.items[0].pods, 3);
	cr_assert_str_eq(set.items[1].name, "b");
	manifest_set_release(&set);
	cr_assert_eq(manifest_read_all("kind: Deployment\nspec: {replicas: x, template: {spec: {}}}\n", 57, &set, &err), -1);
	manifest_set_release(&set);
	kerr_release(&err);
}
