/* The streaming decoders against captures from a real API server, fed in
 * every split, and checked field by field against what jansson reads from
 * the same bytes. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode.h"
#include "decode_test_util.h"

/* --- lists --------------------------------------------------------------- */

Test(decode, pods_page_every_split)
{
	check_list_all_splits(OBJ_POD, "pods-page1.json");
}

Test(decode, nodes_page_every_split)
{
	check_list_all_splits(OBJ_NODE, "nodes-page1.json");
}

Test(decode, daemonset_pods_owners)
{
	check_list_all_splits(OBJ_POD, "ds-pods-on-node.json");
}

Test(decode, required_node_affinity_kept_when_asked)
{
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	size_t len;
	char *buf = t_read_api_fixture("pods-affinity.json", &len);

	/* every operator, a term of matchFields only, preferred terms, a pod with none */
	check_list_all_splits(OBJ_POD, "pods-affinity.json");
	cr_assert_eq(feed_list(OBJ_POD, &sched_filter, buf, len, 0, &c, &err), 0);
	cr_assert_eq(c.pods[0]->nnode_terms, 3, "the preferred terms are not kept");
	cr_assert_str_eq(c.pods[0]->node_terms[1].reqs[1].op, "Gt");
	cr_assert_str_eq(c.pods[0]->node_terms[1].reqs[1].values[0], "3");
	cr_assert_eq(c.pods[0]->node_terms[2].nreqs, 0, "matchFields: a term no label set satisfies");
	cr_assert_eq(c.pods[1]->nnode_terms, 0);
	collect_release(&c);
	free(buf);
}

/* More terms, expressions and values than a pod keeps: the first ones are. */
Test(decode, required_node_affinity_is_bounded)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	const struct k8s_node_term *t;

	fputs("{\"items\":[{\"metadata\":{\"name\":\"x\"},\"spec\":{\"affinity\":{\"nodeAffinity\":{"
	      "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[", f);
	for (int i = 0; i < 20; i++) {
		fprintf(f, "%s{\"matchExpressions\":[", i ? "," : "");
		for (int k = 0; k < 40; k++) {
			fprintf(f, "%s{\"key\":\"k%d\",\"operator\":\"In\",\"values\":[", k ? "," : "", k);
			for (int v = 0; v < 100; v++)
				fprintf(f, "%s\"v%d\"", v ? "," : "", v);
			fputs("]}", f);
		}
		fputs("]}", f);
	}
	fputs("]}}}}}]}", f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(feed_list(OBJ_POD, &sched_filter, doc, len, 4242, &c, &err), 0, "%s", err.message);
	cr_assert_eq(c.npods, 1);
	cr_assert_eq(c.pods[0]->nnode_terms, 8);
	t = &c.pods[0]->node_terms[7];
	cr_assert_eq(t->nreqs, 16);
	cr_assert_str_eq(t->reqs[15].key, "k15");
	cr_assert_eq(t->reqs[15].nvalues, 32);
	cr_assert_str_eq(t->reqs[15].values[31], "v31");
	collect_release(&c);
	free(doc);
}

/* The node labels a pod's scheduling names (nodeSelector keys, required
 * node affinity keys) are recorded once each, as the filter's node_keys
 * allow, whether or not scheduling fields are kept, and past the caps. */
Test(decode, node_keys_recorded)
{
	static const char *const keys[] = {"zone", "gpu.*", NULL};
	const struct decode_filter f = {.node_keys = keys};
	char *doc = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&doc, &len);
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	const struct kvlist *k;

	fputs("{\"items\":[{\"metadata\":{\"name\":\"x\"},\"spec\":{\"nodeSelector\":{\"gpu.pool\":\"a\",\"os\":\"l\"},"
	      "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{"
	      "\"nodeSelectorTerms\":[", out);
	for (int i = 0; i < 10; i++)
		fprintf(out, "%s{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"Exists\"},"
			"{\"key\":\"gpu.k%d\",\"operator\":\"Exists\"}]}", i ? "," : "", i);
	fputs("]}}}}},{\"metadata\":{\"name\":\"y\"},\"spec\":{\"affinity\":{\"nodeAffinity\":{}}}}]}", out);
	cr_assert_eq(fclose(out), 0);
	cr_assert_eq(feed_list(OBJ_POD, &f, doc, len, 0, &c, &err), 0, "%s", err.message);
	cr_assert_eq(c.npods, 2);
	cr_assert(c.pods[0]->has_node_selector);
	cr_assert_eq(c.pods[0]->node_selector.len, 0, "values kept only for scheduling");
	cr_assert_eq(c.pods[0]->nnode_terms, 0, "terms kept only for scheduling");
	k = &c.pods[0]->node_keys;
	cr_assert_eq(k->len, 12);
	cr_assert_str_eq(k->items[0].key, "gpu.pool");
	cr_assert_str_eq(k->items[0].value, "");
	cr_assert_str_eq(k->items[1].key, "zone");
	cr_assert_str_eq(k->items[2].key, "gpu.k0");
	cr_assert_str_eq(k->items[11].key, "gpu.k9");
	cr_assert_not(c.pods[1]->has_node_selector, "an empty node affinity selects nothing");
	cr_assert_eq(c.pods[1]->node_keys.len, 0);
	collect_release(&c);
	free(doc);
}

Test(decode, pods_page_known_values)
{
	size_t len;
	char *buf = t_read_api_fixture("pods-page1.json", &len);
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	const struct k8s_pod *p;

	cr_assert_eq(feed_list(OBJ_POD, &cgpu_filter, buf, len, 1, &c, &err), 0);
	cr_assert_eq(c.npods, 2);
	p = c.pods[0];
	cr_assert_str_eq(p->name, "cgpu-test-0");
	cr_assert_str_eq(p->namespace, "default");
	cr_assert_str_eq(p->node_name, "cgpu-node-a");
	cr_assert_str_eq(p->phase, "Running");
	cr_assert(p->ready);
	cr_assert(p->has_node_selector);
	cr_assert_not(p->deleting);
	cr_assert_str_eq(kvlist_get(&p->annotations, "ALIYUN_COM_GPU_MEM_IDX"), "0");
	cr_assert_str_eq(kvlist_get(&p->annotations, "ALIYUN_COM_GPU_MEM_POD"), "3");
	cr_assert_eq(p->annotations.len, 5);
	cr_assert_eq(p->labels.len, 0);
	cr_assert_eq(p->ncontainers, 1);
	cr_assert_str_eq(p->containers[0].name, "cgpu-test");
	cr_assert_str_eq(kvlist_get(&p->containers[0].limits, "aliyun.com/gpu-mem"), "3");
	cr_assert_str_eq(c.rv, "248457");
	cr_assert_not_null(c.cont);
	collect_release(&c);
	free(buf);
}

Test(decode, nodes_page_known_values)
{
	size_t len;
	char *buf = t_read_api_fixture("nodes-page1.json", &len);
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	const struct k8s_node *n;

	cr_assert_eq(feed_list(OBJ_NODE, &cgpu_filter, buf, len, 3, &c, &err), 0);
	cr_assert_eq(c.nnodes, 2);
	n = c.nodes[1];
	cr_assert_str_eq(n->name, "cgpu-node-b");
	cr_assert_str_eq(n->internal_ip, "10.0.1.12");
	cr_assert_str_eq(kvlist_get(&n->labels, "ack.node.gpu.schedule"), "share");
	cr_assert_str_eq(kvlist_get(&n->labels, "aliyun.accelerator/nvidia_mem"), "16160MiB");
	cr_assert_null(kvlist_get(&n->labels, "kubernetes.io/os"));
	cr_assert_str_eq(kvlist_get(&n->capacity, "aliyun.com/gpu-mem"), "15");
	cr_assert_null(kvlist_get(&n->capacity, "cpu"));
	cr_assert_not(n->unschedulable);
	collect_release(&c);
	free(buf);
}

Test(decode, single_objects)
{
	size_t len;
	char *buf = t_read_api_fixture("node-get.json", &len);
	json_t *ref = json_loadb(buf, len, 0, NULL);
	struct k8s_node *n = NULL;
	struct k8s_pod *p = NULL;
	struct kerr err = KERR_INIT;

	cr_assert_eq(decode_node(buf, len, &all_filter, &n, &err), 0, "%s", err.message);
	check_node(n, ref, &all_filter);
	cr_assert_str_eq(n->name, "cgpu-node-a");
	k8s_node_free(n);
	json_decref(ref);
	free(buf);

	buf = t_read_api_fixture("pod-get.json", &len);
	ref = json_loadb(buf, len, 0, NULL);
	cr_assert_eq(decode_pod(buf, len, &cgpu_filter, &p, &err), 0, "%s", err.message);
	check_pod(p, ref, &cgpu_filter);
	cr_assert_str_eq(kvlist_get(&p->annotations, "ALIYUN_COM_GPU_MEM_POD"), "4");
	k8s_pod_free(p);
	json_decref(ref);
	free(buf);

	buf = t_read_api_fixture("delete-ok.json", &len);
	ref = json_loadb(buf, len, 0, NULL);
	cr_assert_eq(decode_pod(buf, len, &cgpu_filter, &p, &err), 0, "%s", err.message);
	check_pod(p, ref, &cgpu_filter);
	cr_assert(p->deleting);
	k8s_pod_free(p);
	json_decref(ref);
	free(buf);
}

Test(decode, single_object_errors_leave_result_alone)
{
	struct k8s_node *n = (struct k8s_node *)0x1;
	struct kerr err = KERR_INIT;
	const char *bad[] = {"", "   ", "{", "{\"metadata\":", "[]", "\"x\"", "42", "null", "{} {}", "{}x"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(decode_node(bad[i], strlen(bad[i]), &all_filter, &n, &err), -1, "%s", bad[i]);
		cr_assert_eq(err.kind, KERR_DECODE, "%s", bad[i]);
		cr_assert(strncmp(err.message, "invalid JSON in response: ", 26) == 0, "%s", err.message);
		cr_assert_eq(n, (struct k8s_node *)0x1);
		kerr_release(&err);
	}
}

Test(decode, list_meta_after_items_and_last_page)
{
	const char *doc = "{\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}}],"
			  "\"metadata\":{\"resourceVersion\":\"7\"},\"kind\":\"NodeList\"}";
	struct collect c = {0};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_list(OBJ_NODE, &none_filter, doc, strlen(doc), 0, &c, &err), 0);
	cr_assert_eq(c.nnodes, 2);
	cr_assert_eq(c.meta_calls, 1);
	cr_assert_eq(c.items_before_meta, 2);
	cr_assert_str_eq(c.rv, "7");
	cr_assert_null(c.cont);
	collect_release(&c);

	/* an empty continue token means the last page too */
	doc = "{\"metadata\":{\"continue\":\"\",\"resourceVersion\":\"8\"},\"items\":[]}";
	cr_assert_eq(feed_list(OBJ_POD, &none_filter, doc, strlen(doc), 1, &c, &err), 0);
	cr_assert_eq(c.meta_calls, 1);
	cr_assert_null(c.cont);
	cr_assert_str_eq(c.rv, "8");
	collect_release(&c);

	/* no metadata at all: still one call, at the end */
	doc = "{\"items\":null}";
	cr_assert_eq(feed_list(OBJ_POD, &none_filter, doc, strlen(doc), 0, &c, &err), 0);
	cr_assert_eq(c.meta_calls, 1);
	cr_assert_null(c.rv);
	collect_release(&c);
}

Test(decode, items_with_kind_and_api_version)
{
	const char *doc = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":["
			  "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"},"
			  "\"spec\":{\"initContainers\":[{\"name\":\"init\"}],\"containers\":[{\"name\":\"c1\"},"
			  "{\"name\":\"c2\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":1,\"cpu\":\"2\"}}}],"
			  "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{}}}}}]}";
	static const char *const res[] = {"nvidia.com/*", NULL};
	const struct decode_filter f = {.resource_names = res};
	struct collect c = {0};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_list(OBJ_POD, &f, doc, strlen(doc), 1, &c, &err), 0);
	cr_assert_eq(c.npods, 1);
	cr_assert_str_eq(c.pods[0]->name, "p");
	cr_assert_eq(c.pods[0]->ncontainers, 2);
	cr_assert_str_eq(c.pods[0]->containers[0].name, "c1");
	cr_assert_eq(c.pods[0]->containers[0].limits.len, 0);
	cr_assert_str_eq(kvlist_get(&c.pods[0]->containers[1].limits, "nvidia.com/gpu"), "1");
	cr_assert_null(kvlist_get(&c.pods[0]->containers[1].limits, "cpu"));
	cr_assert(c.pods[0]->has_node_selector);
	collect_release(&c);
}

Test(decode, wrong_types_are_absent)
{
	const char *doc = "{\"metadata\":[1,2],\"items\":[null,"
			  "{\"metadata\":{\"name\":5,\"namespace\":null,\"labels\":\"x\",\"annotations\":[\"a\"],"
			  "\"ownerReferences\":{\"kind\":\"x\"},\"deletionTimestamp\":null,\"uid\":{\"a\":[]}},"
			  "\"spec\":{\"containers\":{\"name\":\"x\"},\"nodeName\":[],\"nodeSelector\":\"x\","
			  "\"affinity\":{\"nodeAffinity\":null}},\"status\":{\"conditions\":{\"type\":\"Ready\"},"
			  "\"phase\":7}},"
			  "{\"metadata\":{\"ownerReferences\":[7,{\"controller\":\"yes\",\"kind\":1}],"
			  "\"annotations\":{\"ALIYUN_COM_GPU_MEM_IDX\":{\"deep\":[[[[]]]]},\"ALIYUN_COM_GPU_MEM_POD\":\"2\"}},"
			  "\"spec\":{\"containers\":[null,{\"resources\":{\"limits\":[\"aliyun.com/gpu-mem\"]}},"
			  "{\"resources\":null}]},\"status\":\"Running\"}]}";
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	const struct k8s_pod *p;

	for (unsigned chunk = 0; chunk < 3; chunk++) {
		cr_assert_eq(feed_list(OBJ_POD, &cgpu_filter, doc, strlen(doc), chunk, &c, &err), 0, "%s",
			     err.message);
		cr_assert_eq(c.npods, 2);
		p = c.pods[0];
		cr_assert_null(p->name);
		cr_assert_null(p->namespace);
		cr_assert_null(p->uid);
		cr_assert_null(p->node_name);
		cr_assert_null(p->phase);
		cr_assert_eq(p->labels.len + p->annotations.len + p->nowners + p->ncontainers, 0);
		cr_assert_not(p->has_node_selector);
		cr_assert_not(p->deleting);
		cr_assert_not(p->ready);
		p = c.pods[1];
		cr_assert_eq(p->nowners, 1);
		cr_assert_null(p->owners[0].kind);
		cr_assert_not(p->owners[0].controller);
		cr_assert_eq(p->annotations.len, 1);
		cr_assert_str_eq(kvlist_get(&p->annotations, "ALIYUN_COM_GPU_MEM_POD"), "2");
		cr_assert_eq(p->ncontainers, 2);
		cr_assert_eq(p->containers[0].limits.len, 0);
		collect_release(&c);
	}
}

/* The list itself must have the right shape: an empty cluster shown for a
 * broken answer would hide the problem. */
Test(decode, list_shape_errors)
{
	static const struct {
		const char *doc, *msg;
	} cases[] = {
		{"{\"kind\":\"NodeList\",\"metadata\":{},\"items\":5}",
		 "invalid JSON in response: the list's items are not an array"},
		{"{\"items\":\"x\"}", "invalid JSON in response: the list's items are not an array"},
		{"{\"items\":true}", "invalid JSON in response: the list's items are not an array"},
		{"{\"items\":{\"metadata\":{}}}", "invalid JSON in response: the list's items are not an array"},
		{"{\"items\":[\"a\",1,null]}", "invalid JSON in response: a list item is not an object"},
		{"{\"items\":[{},7]}", "invalid JSON in response: a list item is not an object"},
		{"{\"items\":[{},[]]}", "invalid JSON in response: a list item is not an object"},
		{"{\"items\":[false]}", "invalid JSON in response: a list item is not an object"},
	};
	const char *status = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
			     "\"message\":\"odd\",\"reason\":\"InternalError\",\"code\":200}";
	struct collect c = {0};
	struct kerr err = KERR_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(feed_list(OBJ_NODE, &all_filter, cases[i].doc, strlen(cases[i].doc), 1, &c, &err), -1,
			     "%s", cases[i].doc);
		cr_assert_eq(err.kind, KERR_DECODE);
		cr_assert_str_eq(err.message, cases[i].msg);
		kerr_release(&err);
		collect_release(&c);
	}
	/* null items: an empty list, as the API server's own decoder reads it */
	cr_assert_eq(feed_list(OBJ_NODE, &all_filter, "{\"items\":[null]}", 16, 0, &c, &err), 0);
	cr_assert_eq(c.nnodes, 0);
	collect_release(&c);

	cr_assert_eq(feed_list(OBJ_NODE, &all_filter, status, strlen(status), 3, &c, &err), -1);
	cr_assert_eq(err.kind, KERR_STATUS);
	cr_assert_eq(err.code, 200);
	cr_assert_str_eq(err.reason, "InternalError");
	cr_assert_str_eq(err.message, "odd");
	cr_assert_eq(c.meta_calls, 0);
	kerr_release(&err);
	collect_release(&c);
}

/* A Status code is an HTTP status: one of six digits or more, a sign or a
 * fraction is none, read as 0 (as the protobuf decoder reads it). */
Test(decode, status_code_out_of_range_is_zero)
{
	static const char *const codes[] = {"100000", "123456", "9999999999999", "-1", "4.5", "4e2"};
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	char doc[160];

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(doc, sizeof(doc), "{\"kind\":\"Status\",\"reason\":\"Odd\",\"code\":%s}", codes[i]);
		cr_assert_eq(feed_list(OBJ_NODE, &all_filter, doc, strlen(doc), 0, &c, &err), -1, "%s", doc);
		cr_assert_eq(err.kind, KERR_STATUS, "%s", doc);
		cr_assert_eq(err.code, 0, "%s: code %ld", doc, err.code);
		kerr_release(&err);
		collect_release(&c);
	}
	snprintf(doc, sizeof(doc), "{\"kind\":\"Status\",\"reason\":\"Odd\",\"code\":99999}");
	cr_assert_eq(feed_list(OBJ_NODE, &all_filter, doc, strlen(doc), 0, &c, &err), -1);
	cr_assert_eq(err.code, 99999);
	kerr_release(&err);
	collect_release(&c);
}

Test(decode, deep_nesting_is_skipped)
{
	size_t depth = 200000, len = 0;
	const char *head = "{\"items\":[{\"metadata\":{\"name\":\"n\"},\"spec\":{\"x\":";
	const char *tail = "}}]}";
	char *doc = malloc(strlen(head) + 2 * depth + strlen(tail) + 1);
	struct collect c = {0};
	struct kerr err = KERR_INIT;

	cr_assert_not_null(doc);
	len += (size_t)sprintf(doc, "%s", head);
	memset(doc + len, '[', depth);
	memset(doc + len + depth, ']', depth);
	len += 2 * depth;
	len += (size_t)sprintf(doc + len, "%s", tail);
	cr_assert_eq(feed_list(OBJ_NODE, &none_filter, doc, len, 0, &c, &err), 0, "%s", err.message);
	cr_assert_eq(c.nnodes, 1);
	cr_assert_str_eq(c.nodes[0]->name, "n");
	collect_release(&c);
	free(doc);
}

Test(decode, truncated_at_every_byte)
{
	size_t len;
	char *buf = t_read_api_fixture("pods-page1.json", &len);

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	for (size_t cut = 0; cut < len; cut++) {
		struct collect c = {0};
		struct kerr err = KERR_INIT;

		cr_assert_eq(feed_list(OBJ_POD, &cgpu_filter, buf, cut, 0, &c, &err), -1, "cut at %zu", cut);
		cr_assert_eq(err.kind, KERR_DECODE);
		cr_assert_lt(strlen(err.message), 120);
		kerr_release(&err);
		collect_release(&c);
	}
	free(buf);
}

Test(decode, not_json)
{
	const char *html = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
	const char *bad[] = {"hello", "{\"items\":[}", "{\"a\" 1}", "{'a':1}", "[1,2]", "\"items\"",
			     "{\"items\":[]}garbage", "{\"a\":\"\\x\"}"};
	struct collect c = {0};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_list(OBJ_NODE, &all_filter, html, strlen(html), 0, &c, &err), -1);
	cr_assert_eq(err.kind, KERR_DECODE);
	cr_assert_str_eq(err.message, "invalid JSON in response: got an HTML page");
	kerr_release(&err);
	cr_assert_eq(feed_list(OBJ_NODE, &all_filter, html, strlen(html), 1, &c, &err), -1);
	cr_assert_eq(err.kind, KERR_DECODE);
	kerr_release(&err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(feed_list(OBJ_NODE, &all_filter, bad[i], strlen(bad[i]), 0, &c, &err), -1, "%s",
			     bad[i]);
		cr_assert_eq(err.kind, KERR_DECODE, "%s", bad[i]);
		cr_assert(strncmp(err.message, "invalid JSON in response: ", 26) == 0, "%s", err.message);
		cr_assert_null(strchr(err.message, '\n'));
		kerr_release(&err);
		collect_release(&c);
	}
}

Test(decode, short_messages)
{
	static const struct {
		const char *doc, *msg;
	} cases[] = {
		{"", "invalid JSON in response: empty body"},
		{" \n", "invalid JSON in response: empty body"},
		{"{\"items\":[{\"metadata\":{", "invalid JSON in response: unexpected end of data"},
		{"[]", "invalid JSON in response: expected an object"},
		{"{}{}", "invalid JSON in response: trailing garbage"},
		{"\n  <!DOCTYPE html>", "invalid JSON in response: got an HTML page"},
	};
	struct collect c = {0};
	struct kerr err = KERR_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(feed_list(OBJ_POD, &none_filter, cases[i].doc, strlen(cases[i].doc), 1, &c, &err), -1);
		cr_assert_eq(err.kind, KERR_DECODE);
		cr_assert_str_eq(err.message, cases[i].msg);
		kerr_release(&err);
		collect_release(&c);
	}
}

Test(decode, sink_can_stop)
{
	size_t len;
	char *buf = t_read_api_fixture("pods-page1.json", &len);
	struct collect c = {.stop_after = 1};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_list(OBJ_POD, &cgpu_filter, buf, len, 0, &c, &err), -1);
	cr_assert_eq(err.kind, KERR_OTHER);
	cr_assert_str_eq(err.message, "enough pods");
	cr_assert_eq(c.npods, 1);
	kerr_release(&err);
	collect_release(&c);
	free(buf);
}

static char *huge_annotation_doc(size_t size, size_t *len)
{
	const char *head = "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{\"metadata\":{\"name\":\"p\","
			   "\"annotations\":{\"big\":\"";
	const char *tail = "\",\"small\":\"s\"}}}]}";
	char *doc = malloc(strlen(head) + size + strlen(tail) + 1);
	size_t n;

	cr_assert_not_null(doc);
	n = (size_t)sprintf(doc, "%s", head);

	for (size_t i = 0; i < size; i++)
		doc[n + i] = (char)('a' + i % 26);
	n += size;
	n += (size_t)sprintf(doc + n, "%s", tail);
	*len = n;
	return doc;
}

Test(decode, huge_annotation_kept_or_skipped)
{
	size_t size = 10 * 1024 * 1024, len;
	char *doc = huge_annotation_doc(size, &len);
	static const char *const keep_big[] = {"big", NULL};
	static const char *const keep_small[] = {"small", NULL};
	const struct decode_filter fbig = {.annotation_keys = keep_big};
	const struct decode_filter fsmall = {.annotation_keys = keep_small};
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	clock_t t0 = clock();

	/* 4 KiB chunks, as a socket would deliver them: must stay linear */
	cr_assert_eq(feed_list(OBJ_POD, &fbig, doc, len, 4242, &c, &err), 0);
	cr_assert_eq(c.npods, 1);
	cr_assert_eq(strlen(kvlist_get(&c.pods[0]->annotations, "big")), size);
	cr_assert_eq(c.pods[0]->annotations.len, 1);
	collect_release(&c);

	cr_assert_eq(feed_list(OBJ_POD, &fsmall, doc, len, 4242, &c, &err), 0);
	cr_assert_eq(c.pods[0]->annotations.len, 1);
	cr_assert_str_eq(kvlist_get(&c.pods[0]->annotations, "small"), "s");
	collect_release(&c);
	cr_assert_lt((double)(clock() - t0) / CLOCKS_PER_SEC, 10.0, "quadratic on a big value?");
	free(doc);
}

/* --- watch --------------------------------------------------------------- */

struct events {
	int n;
	enum watch_type types[64];
	char *rvs[64];
	struct k8s_pod *pods[64];
	long code;
	char *reason, *message;
	int stop_at;
};

static int on_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	struct events *e = ud;

	cr_assert_lt(e->n, 64);
	e->types[e->n] = ev->type;
	e->rvs[e->n] = ev->resource_version ? strdup(ev->resource_version) : NULL;
	e->pods[e->n] = ev->pod;
	cr_assert_null(ev->node);
	if (ev->type == WATCH_ERROR) {
		e->code = ev->error_code;
		e->reason = ev->error_reason ? strdup(ev->error_reason) : NULL;
		e->message = ev->error_message ? strdup(ev->error_message) : NULL;
	}
	e->n++;
	if (e->stop_at && e->n == e->stop_at)
		return kerr_set(err, KERR_OTHER, "stop");
	return 0;
}

static void events_release(struct events *e)
{
	for (int i = 0; i < e->n; i++) {
		free(e->rvs[i]);
		k8s_pod_free(e->pods[i]);
	}
	free(e->reason);
	free(e->message);
	memset(e, 0, sizeof(*e));
}

static int watch_feed(void *d, const void *buf, size_t n, struct kerr *err)
{
	return watch_decoder_feed(d, buf, n, err);
}

static int feed_watch(const char *buf, size_t len, unsigned chunk, struct events *e, struct kerr *err)
{
	struct watch_decoder *d = watch_decoder_new(OBJ_POD, &cgpu_filter, on_event, e);
	int r;

	cr_assert_not_null(d);
	r = feed_in_chunks(watch_feed, d, buf, len, chunk, 300, err);
	watch_decoder_free(d);
	return r;
}

Test(decode, watch_pods_every_split)
{
	size_t len;
	char *buf = t_read_api_fixture("watch-pods.jsonl", &len);
	static const enum watch_type want[] = {WATCH_ADDED, WATCH_MODIFIED, WATCH_MODIFIED, WATCH_MODIFIED,
					       WATCH_MODIFIED, WATCH_DELETED, WATCH_BOOKMARK, WATCH_BOOKMARK};
	static const char *const rvs[] = {"248598", "248618", "248628", "248669",
					  "248670", "248671", "248671", "248671"};

	for (size_t k = 0; k < sizeof(chunkings) / sizeof(chunkings[0]); k++) {
		struct events e = {0};
		struct kerr err = KERR_INIT;
		char *line = buf;

		cr_assert_eq(feed_watch(buf, len, chunkings[k], &e, &err), 0, "%s", err.message);
		cr_assert_eq(e.n, 8);
		for (int i = 0; i < e.n; i++) {
			char *nl = strchr(line, '\n');
			json_t *ev = json_loadb(line, (size_t)(nl - line), 0, NULL);

			cr_assert_not_null(ev);
			cr_assert_eq(e.types[i], want[i], "event %d", i);
			cr_assert_str_eq(e.rvs[i], rvs[i]);
			if (want[i] == WATCH_BOOKMARK) {
				cr_assert_null(e.pods[i]);
			} else {
				cr_assert_not_null(e.pods[i]);
				check_pod(e.pods[i], json_object_get(ev, "object"), &cgpu_filter);
				cr_assert_str_eq(e.pods[i]->name, "cap-watch");
			}
			json_decref(ev);
			line = nl + 1;
		}
		events_release(&e);
	}
	free(buf);
}

Test(decode, watch_error_event)
{
	size_t len;
	char *buf = t_read_api_fixture("watch-too-old.jsonl", &len);

	for (unsigned chunk = 0; chunk < 3; chunk++) {
		struct events e = {0};
		struct kerr err = KERR_INIT;

		cr_assert_eq(feed_watch(buf, len, chunk, &e, &err), 0);
		cr_assert_eq(e.n, 1);
		cr_assert_eq(e.types[0], WATCH_ERROR);
		cr_assert_null(e.pods[0]);
		cr_assert_eq(e.code, 410);
		cr_assert_str_eq(e.reason, "Expired");
		cr_assert_str_eq(e.message, "too old resource version: 1 (243763)");
		events_release(&e);
	}
	free(buf);
}

Test(decode, watch_bad_streams)
{
	const char *bad[] = {
		"{\"type\":\"EXPLODED\",\"object\":{}}\n",
		"{\"object\":{\"metadata\":{}}}\n",
		"{\"type\":\"ADDED\"}\n",
		"{\"type\":\"ADDED\",\"object\":{}}\n]\n",
		"<html>\n",
		"[]\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct events e = {0};
		struct kerr err = KERR_INIT;

		cr_assert_eq(feed_watch(bad[i], strlen(bad[i]), 0, &e, &err), -1, "%s", bad[i]);
		cr_assert_eq(err.kind, KERR_DECODE, "%s", bad[i]);
		kerr_release(&err);
		events_release(&e);
	}
}

/* A big event read in small pieces is handed over when its line ends, not
 * held back until more input comes. */
Test(decode, watch_big_event_not_delayed)
{
	size_t size = 1 << 20, len = 0, off;
	const char *head = "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"big\","
			   "\"resourceVersion\":\"9\",\"annotations\":{\"ALIYUN_COM_GPU_MEM_X\":\"";
	const char *tail = "\"}}}}\n{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"10\"}}}\n";
	char *doc = malloc(strlen(head) + size + strlen(tail) + 1);
	struct watch_decoder *d;
	struct events e = {0};
	struct kerr err = KERR_INIT;
	size_t first_end;

	cr_assert_not_null(doc);
	len = (size_t)sprintf(doc, "%s", head);
	memset(doc + len, 'x', size);
	len += size;
	first_end = len + 5; /* through the newline after the first event */
	len += (size_t)sprintf(doc + len, "%s", tail);
	d = watch_decoder_new(OBJ_POD, &cgpu_filter, on_event, &e);
	for (off = 0; off < first_end; off += 1000) {
		size_t n = first_end - off < 1000 ? first_end - off : 1000;

		cr_assert_eq(watch_decoder_feed(d, doc + off, n, &err), 0);
	}
	cr_assert_eq(e.n, 1, "the first event must be out once its line is complete");
	cr_assert_eq(e.types[0], WATCH_MODIFIED);
	cr_assert_eq(strlen(kvlist_get(&e.pods[0]->annotations, "ALIYUN_COM_GPU_MEM_X")), size);
	cr_assert_eq(watch_decoder_feed(d, doc + first_end, len - first_end, &err), 0);
	cr_assert_eq(e.n, 2);
	cr_assert_str_eq(e.rvs[1], "10");
	watch_decoder_free(d);
	events_release(&e);
	free(doc);
}

Test(decode, watch_callback_can_stop)
{
	size_t len;
	char *buf = t_read_api_fixture("watch-pods.jsonl", &len);
	struct events e = {.stop_at = 2};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_watch(buf, len, 0, &e, &err), -1);
	cr_assert_str_eq(err.message, "stop");
	cr_assert_eq(e.n, 2);
	kerr_release(&err);
	events_release(&e);
	free(buf);
}
