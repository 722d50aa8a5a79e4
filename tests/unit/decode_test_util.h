/* The decoder tests' helpers: fixtures read whole, lists fed in chunks
 * into collecting sinks, the filters the tests decode with, and the
 * reference every decoded object is checked against (what jansson reads
 * from the same bytes). */
#ifndef DECODE_TEST_UTIL_H
#define DECODE_TEST_UTIL_H

#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "decode_filters.h"
#include "t_read_file.h"

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

/* Feeds buf to d through feed in reads of: chunk 0 = everything, 1 = one
 * byte, else random sizes up to most from seed chunk.  Stops at the first
 * failure and returns it. */
static inline int feed_in_chunks(int (*feed)(void *d, const void *buf, size_t n, struct kerr *err), void *d,
				 const char *buf, size_t len, unsigned chunk, size_t most, struct kerr *err)
{
	size_t off = 0;
	int r = 0;

	srand(chunk);
	while (off < len && r == 0) {
		size_t n = chunk == 0 ? len : chunk == 1 ? 1 : 1 + (size_t)rand() % most;

		if (n > len - off)
			n = len - off;
		r = feed(d, buf + off, n, err);
		off += n;
	}
	return r;
}

static int list_feed(void *d, const void *buf, size_t n, struct kerr *err)
{
	return list_decoder_feed(d, buf, n, err);
}

/* chunk: 0 = all at once, 1 = byte by byte, else random sizes from that seed */
static int feed_list(enum obj_kind kind, const struct decode_filter *f, const char *buf, size_t len,
		     unsigned chunk, struct collect *c, struct kerr *err)
{
	struct decode_sink sink = {.node = sink_node, .pod = sink_pod, .list_meta = sink_meta, .ud = c};
	struct list_decoder *d = list_decoder_new(kind, f, &sink);
	int r;

	cr_assert_not_null(d);
	r = feed_in_chunks(list_feed, d, buf, len, chunk, 700, err);
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

/* Required node affinity: every term and its matchExpressions when the
 * filter asks for scheduling fields (matchFields are not kept: such a term
 * has no expressions), nothing otherwise. */
static void check_terms(const struct k8s_pod *p, json_t *aff, const struct decode_filter *f)
{
	json_t *terms = json_object_get(json_object_get(aff, "requiredDuringSchedulingIgnoredDuringExecution"),
					"nodeSelectorTerms");
	json_t *t, *e, *v;
	size_t i, k, n;

	if (!f->scheduling) {
		cr_assert_eq(p->nnode_terms, 0);
		return;
	}
	cr_assert_eq(p->nnode_terms, json_array_size(terms));
	json_array_foreach(terms, i, t) {
		json_t *exprs = json_object_get(t, "matchExpressions");

		cr_assert_eq(p->node_terms[i].nreqs, json_array_size(exprs));
		json_array_foreach(exprs, k, e) {
			const struct k8s_node_requirement *r = &p->node_terms[i].reqs[k];

			check_str(r->key, jstr(e, "key"), "affinity key");
			check_str(r->op, jstr(e, "operator"), "affinity operator");
			cr_assert_eq(r->nvalues, json_array_size(json_object_get(e, "values")));
			json_array_foreach(json_object_get(e, "values"), n, v)
				check_str(r->values[n], json_string_value(v), "affinity value");
		}
	}
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
	check_str(p->node_name, jstr(j, "spec.nodeName"), "node name");
	check_str(p->scheduler_name, jstr(j, "spec.schedulerName"), "scheduler");
	check_str(p->phase, jstr(j, "status.phase"), "phase");
	cr_assert_eq(p->deleting, jstr(j, "metadata.deletionTimestamp") != NULL);
	cr_assert_eq(p->ready, ready_of(json_object_get(json_object_get(j, "status"), "conditions")));
	cr_assert_eq(p->has_node_selector, json_object_size(sel) > 0 || json_object_size(aff) > 0);
	check_terms(p, aff, f);
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
	char *buf = t_read_api_fixture(file, &len);
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
		check_list(kind, file, &sched_filter, chunkings[i]);
	}
}

#endif
