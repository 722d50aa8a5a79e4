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

/* --- helpers ------------------------------------------------------------- */

struct collect {
	struct k8s_node **nodes;
	struct k8s_pod **pods;
	size_t nnodes, npods;
	int meta_calls;
	size_t items_before_meta;
	char *rv, *cont;
	int stop_after; /* > 0: the sink fails on that item */
};

static int sink_node(void *ud, struct k8s_node *n, struct kerr *err)
{
	struct collect *c = ud;

	c->nodes = realloc(c->nodes, (c->nnodes + 1) * sizeof(*c->nodes));
	c->nodes[c->nnodes++] = n;
	if (c->stop_after && (int)c->nnodes == c->stop_after)
		return kerr_set(err, KERR_OTHER, "enough nodes");
	return 0;
}

static int sink_pod(void *ud, struct k8s_pod *p, struct kerr *err)
{
	struct collect *c = ud;

	c->pods = realloc(c->pods, (c->npods + 1) * sizeof(*c->pods));
	c->pods[c->npods++] = p;
	if (c->stop_after && (int)c->npods == c->stop_after)
		return kerr_set(err, KERR_OTHER, "enough pods");
	return 0;
}

static void sink_meta(void *ud, const char *rv, const char *cont)
{
	struct collect *c = ud;

	c->meta_calls++;
	c->items_before_meta = c->nnodes + c->npods;
	free(c->rv);
	free(c->cont);
	c->rv = rv ? strdup(rv) : NULL;
	c->cont = cont ? strdup(cont) : NULL;
}

static void collect_release(struct collect *c)
{
	for (size_t i = 0; i < c->nnodes; i++)
		k8s_node_free(c->nodes[i]);
	for (size_t i = 0; i < c->npods; i++)
		k8s_pod_free(c->pods[i]);
	free(c->nodes);
	free(c->pods);
	free(c->rv);
	free(c->cont);
	memset(c, 0, sizeof(*c));
}

/* chunk: 0 = all at once, 1 = byte by byte, else random sizes from that seed */
static int feed_list(enum obj_kind kind, const struct decode_filter *f, const char *buf, size_t len,
		     unsigned chunk, struct collect *c, struct kerr *err)
{
	struct decode_sink sink = {sink_node, sink_pod, sink_meta, c};
	struct list_decoder *d = list_decoder_new(kind, f, &sink);
	size_t off = 0;
	int r = 0;

	cr_assert_not_null(d);
	srand(chunk);
	while (off < len && r == 0) {
		size_t n = chunk == 0 ? len : chunk == 1 ? 1 : 1 + (size_t)rand() % 700;

		if (n > len - off)
			n = len - off;
		r = list_decoder_feed(d, buf + off, n, err);
		off += n;
	}
	if (r == 0)
		r = list_decoder_finish(d, err);
	list_decoder_free(d);
	return r;
}


/* --- the reference: jansson ---------------------------------------------- */

static const char *jstr(json_t *o, const char *path)
{
	char key[256];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	o = json_object_get(o, path);
	return json_is_string(o) ? json_string_value(o) : NULL;
}

static void check_str(const char *got, const char *want, const char *what)
{
	if (!want)
		cr_assert_null(got, "%s: got \"%s\", want none", what, got);
	else
		cr_assert(got && strcmp(got, want) == 0, "%s: got \"%s\", want \"%s\"", what,
			  got ? got : "(null)", want);
}

static void check_map(const struct kvlist *got, json_t *obj, const char *const *patterns, bool all,
		      const char *what)
{
	const char *k;
	json_t *v;
	size_t want = 0;

	json_object_foreach(obj, k, v) {
		if (!json_is_string(v) || !(all || decode_filter_match(patterns, k, strlen(k))))
			continue;
		want++;
		check_str(kvlist_get(got, k), json_string_value(v), what);
	}
	cr_assert_eq(got->len, want, "%s: %zu keys, want %zu", what, got->len, want);
}

static bool ready_of(json_t *conds)
{
	size_t i;
	json_t *c;
	bool ready = false;

	json_array_foreach(conds, i, c) {
		const char *t = jstr(c, "type"), *s = jstr(c, "status");

		if (t && strcmp(t, "Ready") == 0)
			ready = s && strcmp(s, "True") == 0;
	}
	return ready;
}

static void check_node(const struct k8s_node *n, json_t *j, const struct decode_filter *f)
{
	json_t *meta = json_object_get(j, "metadata"), *status = json_object_get(j, "status");
	const char *ip = NULL;
	size_t i;
	json_t *a;

	check_str(n->name, jstr(j, "metadata.name"), "node name");
	check_str(n->uid, jstr(j, "metadata.uid"), "node uid");
	check_str(n->resource_version, jstr(j, "metadata.resourceVersion"), "node rv");
	check_str(n->creation_timestamp, jstr(j, "metadata.creationTimestamp"), "node created");
	check_map(&n->labels, json_object_get(meta, "labels"), f->label_keys, f->all_labels, "labels");
	check_map(&n->annotations, json_object_get(meta, "annotations"), f->annotation_keys,
		  f->all_annotations, "annotations");
	check_map(&n->capacity, json_object_get(status, "capacity"), f->resource_names, f->all_resources,
		  "capacity");
	check_map(&n->allocatable, json_object_get(status, "allocatable"), f->resource_names,
		  f->all_resources, "allocatable");
	json_array_foreach(json_object_get(status, "addresses"), i, a) {
		const char *t = jstr(a, "type");

		if (!ip && t && strcmp(t, "InternalIP") == 0)
			ip = jstr(a, "address");
	}
	check_str(n->internal_ip, ip, "internal ip");
	cr_assert_eq(n->unschedulable, json_is_true(json_object_get(json_object_get(j, "spec"), "unschedulable")));
	cr_assert_eq(n->ready, ready_of(json_object_get(status, "conditions")));
}

static void check_pod(const struct k8s_pod *p, json_t *j, const struct decode_filter *f)
{
	json_t *meta = json_object_get(j, "metadata"), *spec = json_object_get(j, "spec");
	json_t *owners = json_object_get(meta, "ownerReferences"), *containers = json_object_get(spec, "containers");
	json_t *sel = json_object_get(spec, "nodeSelector");
	json_t *aff = json_object_get(json_object_get(spec, "affinity"), "nodeAffinity");
	size_t i;
	json_t *o;

	check_str(p->name, jstr(j, "metadata.name"), "pod name");
	check_str(p->namespace, jstr(j, "metadata.namespace"), "pod namespace");
	check_str(p->uid, jstr(j, "metadata.uid"), "pod uid");
	check_str(p->resource_version, jstr(j, "metadata.resourceVersion"), "pod rv");
	check_str(p->creation_timestamp, jstr(j, "metadata.creationTimestamp"), "pod created");
	check_str(p->node_name, jstr(j, "spec.nodeName"), "node name");
	check_str(p->scheduler_name, jstr(j, "spec.schedulerName"), "scheduler");
	check_str(p->phase, jstr(j, "status.phase"), "phase");
	cr_assert_eq(p->deleting, jstr(j, "metadata.deletionTimestamp") != NULL);
	cr_assert_eq(p->ready, ready_of(json_object_get(json_object_get(j, "status"), "conditions")));
	cr_assert_eq(p->has_node_selector, json_object_size(sel) > 0 || json_object_size(aff) > 0);
	check_map(&p->labels, json_object_get(meta, "labels"), f->label_keys, f->all_labels, "labels");
	check_map(&p->annotations, json_object_get(meta, "annotations"), f->annotation_keys,
		  f->all_annotations, "annotations");
	cr_assert_eq(p->nowners, json_array_size(owners));
	json_array_foreach(owners, i, o) {
		check_str(p->owners[i].kind, jstr(o, "kind"), "owner kind");
		check_str(p->owners[i].name, jstr(o, "name"), "owner name");
		check_str(p->owners[i].uid, jstr(o, "uid"), "owner uid");
		cr_assert_eq(p->owners[i].controller, json_is_true(json_object_get(o, "controller")));
	}
	cr_assert_eq(p->ncontainers, json_array_size(containers));
	json_array_foreach(containers, i, o) {
		check_str(p->containers[i].name, jstr(o, "name"), "container name");
		check_map(&p->containers[i].limits, json_object_get(json_object_get(o, "resources"), "limits"),
			  f->resource_names, f->all_resources, "limits");
	}
}

static void check_list(enum obj_kind kind, const char *file, const struct decode_filter *f, unsigned chunk)
{
	size_t len;
	char *buf = t_read_capture(file, &len);
	json_t *ref = json_loadb(buf, len, 0, NULL), *items = json_object_get(ref, "items"), *it;
	struct collect c = {0};
	struct kerr err = KERR_INIT;
	size_t i;

	cr_assert_not_null(ref);
	cr_assert_eq(feed_list(kind, f, buf, len, chunk, &c, &err), 0, "%s: %s", file, err.message);
	cr_assert_eq(kind == OBJ_NODE ? c.nnodes : c.npods, json_array_size(items));
	cr_assert_eq(kind == OBJ_NODE ? c.npods : c.nnodes, 0);
	json_array_foreach(items, i, it) {
		if (kind == OBJ_NODE)
			check_node(c.nodes[i], it, f);
		else
			check_pod(c.pods[i], it, f);
	}
	cr_assert_eq(c.meta_calls, 1);
	cr_assert_eq(c.items_before_meta, 0, "list metadata must come before the first item");
	check_str(c.rv, jstr(ref, "metadata.resourceVersion"), "list rv");
	check_str(c.cont, jstr(ref, "metadata.continue"), "continue");
	collect_release(&c);
	json_decref(ref);
	free(buf);
}

static const unsigned chunkings[] = {0, 1, 2, 3, 17, 4242};

static void check_list_all_splits(enum obj_kind kind, const char *file)
{
	for (size_t i = 0; i < sizeof(chunkings) / sizeof(chunkings[0]); i++) {
		check_list(kind, file, &cgpu_filter, chunkings[i]);
		check_list(kind, file, &all_filter, chunkings[i]);
		check_list(kind, file, &none_filter, chunkings[i]);
	}
}

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

Test(decode, pods_page_known_values)
{
	size_t len;
	char *buf = t_read_capture("pods-page1.json", &len);
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
	char *buf = t_read_capture("nodes-page1.json", &len);
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
	char *buf = t_read_capture("node-get.json", &len);
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

	buf = t_read_capture("pod-get.json", &len);
	ref = json_loadb(buf, len, 0, NULL);
	cr_assert_eq(decode_pod(buf, len, &cgpu_filter, &p, &err), 0, "%s", err.message);
	check_pod(p, ref, &cgpu_filter);
	cr_assert_str_eq(kvlist_get(&p->annotations, "ALIYUN_COM_GPU_MEM_POD"), "4");
	k8s_pod_free(p);
	json_decref(ref);
	free(buf);

	buf = t_read_capture("delete-ok.json", &len);
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
	char *buf = t_read_capture("pods-page1.json", &len);

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
	char *buf = t_read_capture("pods-page1.json", &len);
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

static int feed_watch(const char *buf, size_t len, unsigned chunk, struct events *e, struct kerr *err)
{
	struct watch_decoder *d = watch_decoder_new(OBJ_POD, &cgpu_filter, on_event, e);
	size_t off = 0;
	int r = 0;

	cr_assert_not_null(d);
	srand(chunk);
	while (off < len && r == 0) {
		size_t n = chunk == 0 ? len : chunk == 1 ? 1 : 1 + (size_t)rand() % 300;

		if (n > len - off)
			n = len - off;
		r = watch_decoder_feed(d, buf + off, n, err);
		off += n;
	}
	watch_decoder_free(d);
	return r;
}

Test(decode, watch_pods_every_split)
{
	size_t len;
	char *buf = t_read_capture("watch-pods.jsonl", &len);
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
	char *buf = t_read_capture("watch-too-old.jsonl", &len);

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
	char *buf = t_read_capture("watch-pods.jsonl", &len);
	struct events e = {.stop_at = 2};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_watch(buf, len, 0, &e, &err), -1);
	cr_assert_str_eq(err.message, "stop");
	cr_assert_eq(e.n, 2);
	kerr_release(&err);
	events_release(&e);
	free(buf);
}
