/* The protobuf decoder against bodies captured from a real API server (a
 * node, a NodeList and a PodList page, a watch stream, a Status), fed in
 * every split: each split must give the same objects as the whole body,
 * and those must hold the values the capture holds. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "decode_filters.h"
#include "t_read_file.h"
#include "t_text.h"

/* --- helpers ------------------------------------------------------------- */

#define S(x) ((x) ? (x) : "(none)")

static void out_map(struct text *t, const char *what, const struct kvlist *l)
{
	for (size_t i = 0; i < l->len; i++)
		out(t, "  %s %s=%s\n", what, l->items[i].key, l->items[i].value);
}

static void out_node(struct text *t, const struct k8s_node *n)
{
	out(t, "node %s uid=%s rv=%s ip=%s unschedulable=%d ready=%d\n", S(n->name), S(n->uid),
	    S(n->resource_version), S(n->internal_ip), n->unschedulable, n->ready);
	out_map(t, "label", &n->labels);
	out_map(t, "annotation", &n->annotations);
	out_map(t, "capacity", &n->capacity);
	out_map(t, "allocatable", &n->allocatable);
}

static void out_pod(struct text *t, const struct k8s_pod *p)
{
	out(t, "pod %s/%s uid=%s rv=%s node=%s phase=%s scheduler=%s deleting=%d ready=%d selector=%d\n",
	    S(p->namespace), S(p->name), S(p->uid), S(p->resource_version), S(p->node_name), S(p->phase), S(p->scheduler_name), p->deleting, p->ready, p->has_node_selector);
	out_map(t, "label", &p->labels);
	out_map(t, "annotation", &p->annotations);
	for (size_t i = 0; i < p->nowners; i++)
		out(t, "  owner %s/%s uid=%s controller=%d\n", S(p->owners[i].kind), S(p->owners[i].name),
		    S(p->owners[i].uid), p->owners[i].controller);
	for (size_t i = 0; i < p->ncontainers; i++) {
		out(t, "  container %s\n", S(p->containers[i].name));
		out_map(t, "limit", &p->containers[i].limits);
	}
	for (size_t i = 0; i < p->nnode_terms; i++) {
		out(t, "  term %zu\n", i);
		for (size_t k = 0; k < p->node_terms[i].nreqs; k++) {
			const struct k8s_node_requirement *r = &p->node_terms[i].reqs[k];

			out(t, "    %s %s", S(r->key), S(r->op));
			for (size_t v = 0; v < r->nvalues; v++)
				out(t, " %s", r->values[v]);
			out(t, "\n");
		}
	}
}

static int sink_node(void *ud, struct k8s_node *n, struct kerr *err)
{
	(void)err;
	out(ud, "item ");
	out_node(ud, n);
	k8s_node_free(n);
	return 0;
}

static int sink_pod(void *ud, struct k8s_pod *p, struct kerr *err)
{
	(void)err;
	out(ud, "item ");
	out_pod(ud, p);
	k8s_pod_free(p);
	return 0;
}

static void sink_meta(void *ud, const char *rv, const char *cont)
{
	out(ud, "list rv=%s continue=%s\n", S(rv), S(cont));
}

static const struct decode_filter *const filters[] = {&cgpu_filter, &all_filter, &none_filter, &sched_filter};

/* Feeds buf in pieces: chunk 0 = whole, 1 = byte by byte, else a split at
 * every offset when split != 0 (two pieces), or random sizes from seed chunk. */
static int feed_list(enum obj_kind kind, const struct decode_filter *f, const char *buf, size_t len,
		     unsigned chunk, size_t split, struct text *t, struct kerr *err)
{
	struct decode_sink sink = {.node = sink_node, .pod = sink_pod, .list_meta = sink_meta, .ud = t};
	struct list_decoder *d = list_decoder_new(kind, f, &sink);
	size_t off = 0;
	int r = 0;

	cr_assert_not_null(d);
	srand(chunk);
	while (off < len && r == 0) {
		size_t n = split ? (off ? len - off : split)
			 : chunk == 0 ? len : chunk == 1 ? 1 : 1 + (size_t)rand() % 700;

		if (n > len - off)
			n = len - off;
		r = list_decoder_feed(d, buf + off, n, err);
		off += n;
	}
	if (r == 0)
		r = list_decoder_finish(d, err);
	if (r == 0)
		cr_assert(list_decoder_is_protobuf(d));
	list_decoder_free(d);
	return r;
}

static struct text whole_list(enum obj_kind kind, const struct decode_filter *f, const char *file)
{
	size_t len;
	char *buf = t_read_api_fixture(file, &len);
	struct text t = {0};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_list(kind, f, buf, len, 0, 0, &t, &err), 0, "%s: %s", file, err.message);
	free(buf);
	return t;
}

static void check_every_split(enum obj_kind kind, const char *file)
{
	size_t len;
	char *buf = t_read_api_fixture(file, &len);

	for (size_t fi = 0; fi < sizeof(filters) / sizeof(filters[0]); fi++) {
		struct text want = whole_list(kind, filters[fi], file);
		unsigned chunks[] = {1, 2, 3, 17, 4242};

		for (size_t at = 1; at < len; at++) {
			struct text t = {0};
			struct kerr err = KERR_INIT;

			cr_assert_eq(feed_list(kind, filters[fi], buf, len, 0, at, &t, &err), 0, "%s split at %zu: %s",
				     file, at, err.message);
			cr_assert_str_eq(t.s, want.s, "%s split at %zu", file, at);
			free(t.s);
		}
		for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
			struct text t = {0};
			struct kerr err = KERR_INIT;

			cr_assert_eq(feed_list(kind, filters[fi], buf, len, chunks[i], 0, &t, &err), 0, "%s: %s",
				     file, err.message);
			cr_assert_str_eq(t.s, want.s, "%s in pieces from %u", file, chunks[i]);
			free(t.s);
		}
		free(want.s);
	}
	free(buf);
}

Test(decode_pb, splits)
{
	check_every_split(OBJ_POD, "protobuf-pods-page1.pb");
	check_every_split(OBJ_NODE, "protobuf-nodes-page1.pb");
}

static void assert_has(const struct text *t, const char *line)
{
	cr_assert(t->s && strstr(t->s, line), "missing \"%s\" in:\n%s", line, t->s ? t->s : "");
}

Test(decode_pb, pods_page_known_values)
{
	struct text t = whole_list(OBJ_POD, &cgpu_filter, "protobuf-pods-page1.pb");

	assert_has(&t, "list rv=60376 continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NjAzNzYsInN0YXJ0IjoiYXBwLTNnLXYxLTFcdTAwMDAifQ\n");
	assert_has(&t, "item pod default/app-3g-v1-0 uid=bab8d5f2-a5ad-45b6-8d9c-da82cb520e19 rv=202 "
		       "node=cn-hangzhou.192.168.2.167 phase=Running "
		       "scheduler=default-scheduler deleting=0 ready=1 selector=0\n"
		       "  annotation ALIYUN_COM_GPU_MEM_ASSIGNED=true\n");
	assert_has(&t, "  annotation ALIYUN_COM_GPU_MEM_POD=4\n  container app-3g-v1\n  limit aliyun.com/gpu-mem=4\n");
	assert_has(&t, "item pod default/app-3g-v1-1 ");
	/* the filter keeps no label of these pods */
	cr_assert_null(strstr(t.s, "label "));
	free(t.s);
}

Test(decode_pb, nodes_page_known_values)
{
	struct text t = whole_list(OBJ_NODE, &cgpu_filter, "protobuf-nodes-page1.pb");

	assert_has(&t, "item node cgpu-node-a uid=e7633d6b-5f0b-4b66-bbb6-89387bef6741 rv=60193 "
		       "ip=10.0.1.11 unschedulable=0 ready=1\n"
		       "  label ack.node.gpu.placement=binpack\n  label ack.node.gpu.schedule=cgpu\n"
		       "  label aliyun.accelerator/nvidia_count=1\n");
	assert_has(&t, "  capacity aliyun.com/gpu-count=1\n  capacity aliyun.com/gpu-mem=15\n"
		       "  allocatable aliyun.com/gpu-count=1\n  allocatable aliyun.com/gpu-mem=15\n");
	assert_has(&t, "item node cgpu-node-b ");
	cr_assert_null(strstr(t.s, "cpu="));
	free(t.s);
}

Test(decode_pb, single_node)
{
	size_t len;
	char *buf = t_read_api_fixture("protobuf-node-get.pb", &len);
	struct k8s_node *n = NULL;
	struct kerr err = KERR_INIT;
	struct text t = {0};

	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(decode_node(buf, len, filters[i], &n, &err), 0, "%s", err.message);
		cr_assert_not_null(n);
		out_node(&t, n);
		k8s_node_free(n);
	}
	assert_has(&t, "node cn-hangzhou.192.168.2.167 uid=0f23fda2-8559-41d2-947c-8c6770d7064f rv=59804 ");
	assert_has(&t, "  label kubernetes.io/os=linux\n");
	/* cut anywhere, it is an error, never a half object */
	for (size_t at = 0; at < len - 4; at++) {
		n = NULL;
		cr_assert_eq(decode_node(buf, at, &all_filter, &n, &err), -1, "cut at %zu", at);
		cr_assert_null(n);
		kerr_release(&err);
	}
	free(t.s);
	free(buf);
}

Test(decode_pb, lists_cut_anywhere_fail)
{
	const char *files[] = {"protobuf-pods-page1.pb", "protobuf-nodes-page1.pb"};

	for (size_t f = 0; f < 2; f++) {
		size_t len;
		char *buf = t_read_api_fixture(files[f], &len);

		/* (the last 4 bytes are the envelope's empty contentEncoding and
		 * contentType, after the list) */
		for (size_t at = 4; at < len - 4; at++) {
			struct text t = {0};
			struct kerr err = KERR_INIT;

			cr_assert_eq(feed_list(f ? OBJ_NODE : OBJ_POD, &cgpu_filter, buf, at, 0, 0, &t, &err), -1,
				     "%s cut at %zu", files[f], at);
			cr_assert_eq(err.kind, KERR_DECODE);
			kerr_release(&err);
			free(t.s);
		}
		free(buf);
	}
}

Test(decode_pb, status_in_protobuf)
{
	size_t len;
	char *buf = t_read_api_fixture("protobuf-notfound-404.pb", &len);
	char *reason, *message;
	long code;
	struct text t = {0};
	struct kerr err = KERR_INIT;

	cr_assert(decode_is_protobuf(buf, len));
	cr_assert_eq(decode_status_pb(buf, len, &code, &reason, &message), 0);
	cr_assert_eq(code, 404);
	cr_assert_str_eq(reason, "NotFound");
	cr_assert_str_eq(message, "nodes \"does-not-exist\" not found");
	free(reason);
	free(message);
	/* a Status where a list belongs is the Status's error */
	cr_assert_eq(feed_list(OBJ_NODE, &cgpu_filter, buf, len, 0, 0, &t, &err), -1);
	cr_assert_eq(err.kind, KERR_STATUS);
	cr_assert_eq(err.code, 404);
	kerr_release(&err);
	free(t.s);
	/* a list is no Status */
	free(buf);
	buf = t_read_api_fixture("protobuf-nodes-page1.pb", &len);
	cr_assert_eq(decode_status_pb(buf, len, &code, &reason, &message), -1);
	cr_assert_not(decode_is_protobuf("{\"kind\":1}", 10));
	free(buf);
}

Test(decode_pb, garbage)
{
	static const char *const bodies[] = {
		"k8s\0\x0a\x05\x0a\x03v1",     /* TypeMeta cut */
		"k8s\0\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", /* varint too long */
		"k8s\0\x00",		       /* field 0 */
		"k8s\0\x0f",		       /* wire type 7 */
		"k8s\0\x12\x04\x12\x08\x0a\x00", /* an item longer than its list */
		"k8s\0",		       /* no object */
	};
	static const size_t lens[] = {10, 16, 5, 5, 10, 4};

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		for (unsigned chunk = 0; chunk < 2; chunk++) {
			struct text t = {0};
			struct kerr err = KERR_INIT;

			cr_assert_eq(feed_list(OBJ_POD, &all_filter, bodies[i], lens[i], chunk, 0, &t, &err), -1,
				     "body %zu", i);
			cr_assert_eq(err.kind, KERR_DECODE, "body %zu: %s", i, err.message);
			kerr_release(&err);
			free(t.s);
		}
	}
}

/* --- watch streams --------------------------------------------------------- */

static int on_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	static const char *const types[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

	(void)err;
	out(ud, "event %s rv=%s code=%ld reason=%s\n", types[ev->type], S(ev->resource_version), ev->error_code,
	    S(ev->error_reason));
	if (ev->pod)
		out_pod(ud, ev->pod);
	k8s_pod_free(ev->pod);
	k8s_node_free(ev->node);
	return 0;
}

static int feed_watch(const char *buf, size_t len, size_t split, unsigned chunk, struct text *t, struct kerr *err)
{
	struct watch_decoder *d = watch_decoder_new(OBJ_POD, &cgpu_filter, on_event, t);
	size_t off = 0;
	int r = 0;

	cr_assert_not_null(d);
	while (off < len && r == 0) {
		size_t n = split ? (off ? len - off : split) : chunk ? chunk : len;

		if (n > len - off)
			n = len - off;
		r = watch_decoder_feed(d, buf + off, n, err);
		off += n;
	}
	watch_decoder_free(d);
	return r;
}

Test(decode_pb, watch_every_split)
{
	size_t len;
	char *buf = t_read_api_fixture("protobuf-watch-pods.pb", &len);
	struct text want = {0};
	struct kerr err = KERR_INIT;

	cr_assert_eq(feed_watch(buf, len, 0, 0, &want, &err), 0, "%s", err.message);
	assert_has(&want, "event ADDED rv=202 code=0 reason=(none)\npod default/app-3g-v1-0 ");
	assert_has(&want, "event ADDED rv=203 code=0 reason=(none)\npod default/app-3g-v1-1 ");
	for (size_t at = 1; at < len; at++) {
		struct text t = {0};

		cr_assert_eq(feed_watch(buf, len, at, 0, &t, &err), 0, "split at %zu: %s", at, err.message);
		cr_assert_str_eq(t.s, want.s, "split at %zu", at);
		free(t.s);
	}
	for (unsigned chunk = 1; chunk < 4; chunk++) {
		struct text t = {0};

		cr_assert_eq(feed_watch(buf, len, 0, chunk, &t, &err), 0);
		cr_assert_str_eq(t.s, want.s);
		free(t.s);
	}
	free(want.s);
	free(buf);
}

static size_t put_varint(unsigned char *p, size_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		p[n++] = (unsigned char)(v | 0x80);
	p[n++] = (unsigned char)v;
	return n;
}

Test(decode_pb, watch_error_event)
{
	/* an ERROR event whose object is a 410 Status, built from the
	 * captured 404 Status with its code changed */
	size_t len;
	char *st = t_read_api_fixture("protobuf-notfound-404.pb", &len);
	unsigned char raw[512], ev[600], frame[700];
	size_t nraw = 0, nev = 0, n = 0;
	char *p;
	struct text t = {0};
	struct kerr err = KERR_INIT;

	/* the code: field 6, varint 404 = 0x94 0x03 -> 410 = 0x9a 0x03 */
	p = memmem(st, len, "\x30\x94\x03", 3);
	cr_assert_not_null(p);
	p[1] = (char)0x9a;
	cr_assert_lt(len, 400);
	raw[nraw++] = 0x0a; /* RawExtension.raw */
	nraw += put_varint(raw + nraw, len);
	memcpy(raw + nraw, st, len), nraw += len;
	memcpy(ev, "\x0a\x05" "ERROR", 7), nev = 7;
	ev[nev++] = 0x12; /* WatchEvent.object */
	nev += put_varint(ev + nev, nraw);
	memcpy(ev + nev, raw, nraw), nev += nraw;
	frame[n++] = 0, frame[n++] = 0, frame[n++] = (unsigned char)(nev >> 8), frame[n++] = (unsigned char)nev;
	memcpy(frame + n, ev, nev), n += nev;
	cr_assert_eq(feed_watch((const char *)frame, n, 0, 0, &t, &err), 0, "%s", err.message);
	cr_assert_str_eq(t.s, "event ERROR rv=(none) code=410 reason=NotFound\n");
	free(t.s);
	free(st);
}

/* A length-delimited field: tag, length, bytes. */
static size_t put_field(unsigned char *p, unsigned num, const void *v, size_t len)
{
	size_t n = put_varint(p, (size_t)num << 3 | 2);

	n += put_varint(p + n, len);
	memcpy(p + n, v, len);
	return n + len;
}

#define PUT_STR(p, num, s) put_field((p), (num), (s), strlen(s))

/* The magic and a runtime.Unknown of the kind around an encoded object. */
static size_t wrap_object(unsigned char *out, const char *kind, const unsigned char *obj, size_t len)
{
	unsigned char tm[64];
	size_t ntm = PUT_STR(tm, 2, kind), n = 4;

	memcpy(out, "k8s\0", 4);
	n += put_field(out + n, 1, tm, ntm);
	return n + put_field(out + n, 2, obj, len);
}

Test(decode_pb, scheduling_fields)
{
	unsigned char meta[64], taint[128], spec[512], obj[1024], body[1200], entry[64], tol[256];
	size_t nmeta, ntaint = 0, nspec = 0, nobj = 0, nbody, nentry = 0, ntol = 0;
	struct decode_filter sched = {.scheduling = true}, plain = {0};
	struct kerr err = KERR_INIT;
	struct k8s_node *n = NULL;
	struct k8s_pod *p = NULL;

	/* a node with one taint (timeAdded, 4, is not kept) */
	nmeta = PUT_STR(meta, 1, "gpu-1");
	ntaint += PUT_STR(taint + ntaint, 1, "dedicated");
	ntaint += PUT_STR(taint + ntaint, 2, "training");
	ntaint += PUT_STR(taint + ntaint, 3, "NoSchedule");
	nspec += put_field(spec + nspec, 5, taint, ntaint);
	nobj += put_field(obj + nobj, 1, meta, nmeta);
	nobj += put_field(obj + nobj, 2, spec, nspec);
	nbody = wrap_object(body, "Node", obj, nobj);
	cr_assert_eq(decode_node(body, nbody, &sched, &n, &err), 0, "%s", err.message);
	cr_assert_eq(n->ntaints, 1);
	cr_assert_str_eq(n->taints[0].key, "dedicated");
	cr_assert_str_eq(n->taints[0].value, "training");
	cr_assert_str_eq(n->taints[0].effect, "NoSchedule");
	k8s_node_free(n);
	n = NULL;
	cr_assert_eq(decode_node(body, nbody, &plain, &n, &err), 0, "%s", err.message);
	cr_assert_eq(n->ntaints, 0);
	k8s_node_free(n);

	/* a pod with a nodeSelector and one toleration (tolerationSeconds not kept) */
	nmeta = PUT_STR(meta, 1, "job-0");
	nentry += PUT_STR(entry + nentry, 1, "zone");
	nentry += PUT_STR(entry + nentry, 2, "a");
	ntol += PUT_STR(tol + ntol, 1, "dedicated");
	ntol += PUT_STR(tol + ntol, 2, "Equal");
	ntol += PUT_STR(tol + ntol, 3, "training");
	ntol += PUT_STR(tol + ntol, 4, "NoSchedule");
	tol[ntol++] = 5 << 3, tol[ntol++] = 30;
	nspec = nobj = 0;
	nspec += put_field(spec + nspec, 7, entry, nentry);
	nspec += put_field(spec + nspec, 22, tol, ntol);
	nobj += put_field(obj + nobj, 1, meta, nmeta);
	nobj += put_field(obj + nobj, 2, spec, nspec);
	nbody = wrap_object(body, "Pod", obj, nobj);
	cr_assert_eq(decode_pod(body, nbody, &sched, &p, &err), 0, "%s", err.message);
	cr_assert(p->has_node_selector);
	cr_assert_eq(p->node_selector.len, 1);
	cr_assert_str_eq(p->node_selector.items[0].key, "zone");
	cr_assert_str_eq(p->node_selector.items[0].value, "a");
	cr_assert_eq(p->ntolerations, 1);
	cr_assert_str_eq(p->tolerations[0].key, "dedicated");
	cr_assert_str_eq(p->tolerations[0].op, "Equal");
	cr_assert_str_eq(p->tolerations[0].value, "training");
	cr_assert_str_eq(p->tolerations[0].effect, "NoSchedule");
	k8s_pod_free(p);
	p = NULL;
	cr_assert_eq(decode_pod(body, nbody, &plain, &p, &err), 0, "%s", err.message);
	cr_assert(p->has_node_selector);
	cr_assert_eq(p->node_selector.len, 0);
	cr_assert_eq(p->ntolerations, 0);
	k8s_pod_free(p);
}

/* As in JSON: node selection keys recorded once, as node_keys allow,
 * without scheduling fields; an empty node affinity selects nothing. */
Test(decode_pb, node_keys_recorded)
{
	static const char *const keys[] = {"zone", "gpu.*", NULL};
	const struct decode_filter f = {.node_keys = keys};
	unsigned char a[256], b[256];
	size_t na = 0, nb = 0;
	struct kerr err = KERR_INIT;
	struct k8s_pod *p = NULL;

	na += PUT_STR(a, 1, "zone");
	na += PUT_STR(a + na, 2, "Exists");
	nb += put_field(b, 1, a, na);	/* NodeSelectorTerm.matchExpressions */
	na = PUT_STR(a, 1, "gpu.model");
	nb += put_field(b + nb, 1, a, na);
	na = put_field(a, 1, b, nb);	/* NodeSelector.nodeSelectorTerms */
	nb = put_field(b, 1, a, na);	/* NodeAffinity.requiredDuringScheduling... */
	na = put_field(a, 1, b, nb);	/* Affinity.nodeAffinity */
	nb = put_field(b, 18, a, na);	/* PodSpec.affinity */
	na = PUT_STR(a, 1, "gpu.pool");
	na += PUT_STR(a + na, 2, "b");
	nb += put_field(b + nb, 7, a, na); /* PodSpec.nodeSelector */
	na = put_field(a, 2, b, nb);	/* Pod.spec */
	nb = wrap_object(b, "Pod", a, na);
	cr_assert_eq(decode_pod(b, nb, &f, &p, &err), 0, "%s", err.message);
	cr_assert(p->has_node_selector);
	cr_assert_eq(p->node_selector.len, 0);
	cr_assert_eq(p->nnode_terms, 0);
	cr_assert_eq(p->node_keys.len, 3);
	cr_assert_str_eq(p->node_keys.items[0].key, "zone");
	cr_assert_str_eq(p->node_keys.items[1].key, "gpu.model");
	cr_assert_str_eq(p->node_keys.items[2].key, "gpu.pool");
	k8s_pod_free(p);
	p = NULL;

	nb = put_field(b, 1, a, 0);	/* Affinity.nodeAffinity, empty */
	na = put_field(a, 18, b, nb);
	nb = put_field(b, 2, a, na);
	na = wrap_object(a, "Pod", b, nb);
	cr_assert_eq(decode_pod(a, na, &f, &p, &err), 0, "%s", err.message);
	cr_assert_not(p->has_node_selector);
	k8s_pod_free(p);
}

/* kpb.py's encoding of api/pods-affinity.json: every operator, a term of
 * matchFields only (no expression kept), preferred terms (not kept). */
Test(decode_pb, required_node_affinity)
{
	struct text t = whole_list(OBJ_POD, &sched_filter, "protobuf-pods-affinity.pb");

	check_every_split(OBJ_POD, "protobuf-pods-affinity.pb");
	assert_has(&t, "item pod ml/a uid=uid-a rv=5 node=(none) phase=Pending "
		       "scheduler=default-scheduler deleting=0 ready=0 selector=1\n"
		       "  container main\n"
		       "  term 0\n    gpu.model In A10 T4\n    zone NotIn b\n    pool Exists\n"
		       "  term 1\n    spot DoesNotExist\n    cards Gt 3\n    cards Lt 9\n"
		       "  term 2\nitem pod ml/b ");
	free(t.s);
	t = whole_list(OBJ_POD, &cgpu_filter, "protobuf-pods-affinity.pb");
	cr_assert_null(strstr(t.s, "term "), "kept only when asked: %s", t.s);
	free(t.s);
}

/* More terms, expressions and values than a pod keeps: the first ones are. */
Test(decode_pb, required_node_affinity_is_bounded)
{
	unsigned char *a = malloc(1 << 20), *b = malloc(1 << 20);
	size_t na = 0, nb = 0;
	struct kerr err = KERR_INIT;
	struct k8s_pod *p = NULL;
	char v[16];

	cr_assert(a && b);
	/* an expression with 40 values, a term of 20 of them, 10 terms */
	na += PUT_STR(a, 1, "k");
	na += PUT_STR(a + na, 2, "In");
	for (int i = 0; i < 40; i++) {
		snprintf(v, sizeof(v), "v%d", i);
		na += PUT_STR(a + na, 3, v);
	}
	for (int i = 0; i < 20; i++)
		nb += put_field(b + nb, 1, a, na);
	na = 0;
	for (int i = 0; i < 10; i++)
		na += put_field(a + na, 1, b, nb);
	nb = put_field(b, 1, a, na);	/* NodeAffinity.requiredDuringScheduling... */
	na = put_field(a, 1, b, nb);	/* Affinity.nodeAffinity */
	nb = put_field(b, 18, a, na);	/* PodSpec.affinity */
	na = put_field(a, 2, b, nb);	/* Pod.spec */
	nb = wrap_object(b, "Pod", a, na);
	cr_assert_eq(decode_pod(b, nb, &sched_filter, &p, &err), 0, "%s", err.message);
	cr_assert_eq(p->nnode_terms, 8);
	cr_assert_eq(p->node_terms[7].nreqs, 16);
	cr_assert_eq(p->node_terms[7].reqs[15].nvalues, 32);
	cr_assert_str_eq(p->node_terms[7].reqs[15].values[31], "v31");
	cr_assert_str_eq(p->node_terms[7].reqs[15].op, "In");
	k8s_pod_free(p);
	free(a);
	free(b);
}

/* Init containers, with their limits and whether they keep running
 * (sidecars), in both encodings. */
Test(decode_pb, init_containers)
{
	static const char json[] =
		"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":["
		"{\"name\":\"fetch\",\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"20\"}}},"
		"{\"name\":\"proxy\",\"restartPolicy\":\"Always\"}],\"containers\":[{\"name\":\"main\"}]}}";
	unsigned char q[32], entry[64], res[96], init[160], side[64], main_c[32], spec[400], meta[16], obj[512],
		body[600];
	size_t nq, nentry, nres, ninit = 0, nside = 0, nmain, nspec = 0, nmeta, nobj = 0, nbody;
	struct kerr err = KERR_INIT;
	struct k8s_pod *p = NULL;

	nq = PUT_STR(q, 1, "20");
	nentry = PUT_STR(entry, 1, "aliyun.com/gpu-mem");
	nentry += put_field(entry + nentry, 2, q, nq);
	nres = put_field(res, 1, entry, nentry);
	ninit += PUT_STR(init + ninit, 1, "fetch");
	ninit += put_field(init + ninit, 8, res, nres);
	nside += PUT_STR(side + nside, 1, "proxy");
	nside += PUT_STR(side + nside, 24, "Always");
	nmain = PUT_STR(main_c, 1, "main");
	nspec += put_field(spec + nspec, 2, main_c, nmain);
	nspec += put_field(spec + nspec, 20, init, ninit);
	nspec += put_field(spec + nspec, 20, side, nside);
	nmeta = PUT_STR(meta, 1, "p");
	nobj += put_field(obj + nobj, 1, meta, nmeta);
	nobj += put_field(obj + nobj, 2, spec, nspec);
	nbody = wrap_object(body, "Pod", obj, nobj);
	for (int enc = 0; enc < 2; enc++) {
		const void *buf = enc ? (const void *)body : json;
		size_t len = enc ? nbody : sizeof(json) - 1;

		cr_assert_eq(decode_pod(buf, len, &all_filter, &p, &err), 0, "%s", err.message);
		cr_assert_eq(p->ncontainers, 1);
		cr_assert_eq(p->ninit_containers, 2, "encoding %d", enc);
		cr_assert_str_eq(p->init_containers[0].name, "fetch");
		cr_assert_str_eq(kvlist_get(&p->init_containers[0].limits, "aliyun.com/gpu-mem"), "20");
		cr_assert_not(p->init_containers[0].restart_always);
		cr_assert(p->init_containers[1].restart_always, "encoding %d", enc);
		k8s_pod_free(p);
		p = NULL;
	}
}

static int keep_pdb(void *ud, struct k8s_pdb *b, struct kerr *err)
{
	struct k8s_pdb **ret = ud;

	(void)err;
	k8s_pdb_free(*ret);
	*ret = b;
	return 0;
}

/* A PodDisruptionBudgetList (policy/v1) as the API server writes it, in
 * both encodings: the selector, and how many disruptions it allows. */
Test(decode_pb, disruption_budgets)
{
	static const char json[] =
		"{\"kind\":\"PodDisruptionBudgetList\",\"apiVersion\":\"policy/v1\",\"metadata\":{\"resourceVersion\":\"9\"},"
		"\"items\":[{\"metadata\":{\"name\":\"web-pdb\",\"namespace\":\"ml\"},\"spec\":{\"minAvailable\":1,"
		"\"selector\":{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\","
		"\"values\":[\"a\",\"b\"]}]}},\"status\":{\"disruptionsAllowed\":2,\"currentHealthy\":3}}]}";
	unsigned char meta[64], entry[32], expr[64], sel[128], spec[160], status[16], obj[400], list[420], tm[64],
		body[600];
	size_t nmeta = 0, nentry = 0, nexpr = 0, nsel = 0, nspec = 0, nstatus = 0, nobj = 0, nlist = 0, ntm, nbody = 4;
	struct k8s_pdb *b = NULL;
	struct kerr err = KERR_INIT;
	struct kvlist labels = {0};

	nmeta += PUT_STR(meta + nmeta, 1, "web-pdb");
	nmeta += PUT_STR(meta + nmeta, 3, "ml");
	nentry += PUT_STR(entry + nentry, 1, "app");
	nentry += PUT_STR(entry + nentry, 2, "web");
	nexpr += PUT_STR(expr + nexpr, 1, "tier");
	nexpr += PUT_STR(expr + nexpr, 2, "In");
	nexpr += PUT_STR(expr + nexpr, 3, "a");
	nexpr += PUT_STR(expr + nexpr, 3, "b");
	nsel += put_field(sel + nsel, 1, entry, nentry);
	nsel += put_field(sel + nsel, 2, expr, nexpr);
	spec[nspec++] = 1 << 3 | 2, spec[nspec++] = 2, spec[nspec++] = 0x08, spec[nspec++] = 1; /* minAvailable: 1 */
	nspec += put_field(spec + nspec, 2, sel, nsel);
	status[nstatus++] = 3 << 3, status[nstatus++] = 2; /* disruptionsAllowed */
	status[nstatus++] = 4 << 3, status[nstatus++] = 3; /* currentHealthy */
	nobj += put_field(obj + nobj, 1, meta, nmeta);
	nobj += put_field(obj + nobj, 2, spec, nspec);
	nobj += put_field(obj + nobj, 3, status, nstatus);
	nlist += put_field(list + nlist, 2, obj, nobj);
	ntm = PUT_STR(tm, 2, "PodDisruptionBudgetList");
	memcpy(body, "k8s\0", 4);
	nbody += put_field(body + nbody, 1, tm, ntm);
	nbody += put_field(body + nbody, 2, list, nlist);
	cr_assert_eq(kvlist_add(&labels, "app", 3, "web", 3), 0);
	cr_assert_eq(kvlist_add(&labels, "tier", 4, "b", 1), 0);
	for (int enc = 0; enc < 2; enc++) {
		struct decode_sink sink = {.pdb = keep_pdb, .ud = &b};
		struct list_decoder *d = list_decoder_new(OBJ_PDB, &none_filter, &sink);
		const void *buf = enc ? (const void *)body : json;
		size_t len = enc ? nbody : sizeof(json) - 1;

		cr_assert_not_null(d);
		cr_assert_eq(list_decoder_feed(d, buf, len, &err), 0, "encoding %d: %s", enc, err.message);
		cr_assert_eq(list_decoder_finish(d, &err), 0, "encoding %d: %s", enc, err.message);
		cr_assert_eq(list_decoder_is_protobuf(d), enc == 1);
		list_decoder_free(d);
		cr_assert_not_null(b, "encoding %d", enc);
		cr_assert_str_eq(b->name, "web-pdb");
		cr_assert_str_eq(b->namespace, "ml");
		cr_assert_eq(b->disruptions_allowed, 2, "encoding %d", enc);
		cr_assert_str_eq(kvlist_get(&b->match_labels, "app"), "web");
		cr_assert_eq(b->nmatch_exprs, 1);
		cr_assert_eq(b->match_exprs[0].nvalues, 2);
		cr_assert(k8s_pdb_selects(b, "ml", &labels));
		cr_assert_not(k8s_pdb_selects(b, "other", &labels));
		k8s_pdb_free(b);
		b = NULL;
	}
	kvlist_release(&labels);
}
