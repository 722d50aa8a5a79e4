/* Builders for the scheme decoder tests: nodes and pods made in the test,
 * or decoded from fixture scenarios with the scheme's own field filter, so
 * that a field a scheme forgets to declare shows up as a failing test. */
#ifndef SCHEME_TEST_UTIL_H
#define SCHEME_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "decode_test_util.h"
#include "kerr.h"
#include "objects.h"
#include "scheme.h"
#include "warnings.h"

static inline void t_kv(struct kvlist *l, const char *k, const char *v)
{
	cr_assert_eq(kvlist_add(l, k, strlen(k), v, strlen(v)), 0);
}

static inline struct k8s_node *t_node(const char *name)
{
	struct k8s_node *n = calloc(1, sizeof(*n));
	cr_assert_not_null(n);
	n->name = strdup(name);
	n->ready = true;
	return n;
}

/* A pod with ncontainers containers named c0, c1, ...; node may be NULL. */
static inline struct k8s_pod *t_pod(const char *ns, const char *name, const char *node,
				    size_t ncontainers)
{
	struct k8s_pod *p = calloc(1, sizeof(*p));
	cr_assert_not_null(p);
	p->namespace = strdup(ns);
	p->name = strdup(name);
	p->node_name = node ? strdup(node) : NULL;
	p->phase = strdup(node ? "Running" : "Pending");
	p->containers = calloc(ncontainers ? ncontainers : 1, sizeof(*p->containers));
	p->ncontainers = ncontainers;
	for (size_t i = 0; i < ncontainers; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "c%zu", i);
		p->containers[i].name = strdup(buf);
	}
	return p;
}

static inline void t_limit(struct k8s_pod *p, size_t c, const char *k, const char *v)
{
	t_kv(&p->containers[c].limits, k, v);
}

static inline size_t t_count(const struct warnings *w, const char *code)
{
	size_t n = 0;
	for (size_t i = 0; i < w->len; i++)
		n += strcmp(w->items[i].code, code) == 0;
	return n;
}

/* The warning of this code, or NULL. */
static inline const struct warning *t_warning(const struct warnings *w, const char *code)
{
	for (size_t i = 0; i < w->len; i++)
		if (strcmp(w->items[i].code, code) == 0)
			return &w->items[i];
	return NULL;
}

/* Items of a List document in a scenario file, one object at a time,
 * through the streaming list decoder with the scheme's filter. */
struct t_objs {
	struct k8s_node *nodes[64];
	struct k8s_pod *pods[64];
	size_t nnodes, npods;
};

static inline int t_sink_node(void *ud, struct k8s_node *node, struct kerr *err)
{
	struct t_objs *o = ud;
	(void)err;
	cr_assert_lt(o->nnodes, 64);
	o->nodes[o->nnodes++] = node;
	return 0;
}

static inline int t_sink_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	struct t_objs *o = ud;
	(void)err;
	cr_assert_lt(o->npods, 64);
	o->pods[o->npods++] = pod;
	return 0;
}

static inline void t_load_list(struct t_objs *o, const char *scenario, const char *file,
			       enum obj_kind kind, const struct decode_filter *filter)
{
	char path[1024];
	size_t len;
	char *buf;
	struct kerr err = KERR_INIT;
	struct decode_sink sink = {.node = t_sink_node, .pod = t_sink_pod, .ud = o};
	struct list_decoder *d;

	snprintf(path, sizeof(path), "%s/scenarios/%s/%s", FIXTURES_DIR, scenario, file);
	buf = t_read_file(path, &len);
	d = list_decoder_new(kind, filter, &sink);
	cr_assert_not_null(d);
	cr_assert_eq(list_decoder_feed(d, buf, len, &err), 0, "%s: %s", path,
		     err.message ? err.message : "?");
	cr_assert_eq(list_decoder_finish(d, &err), 0, "%s: %s", path, err.message ? err.message : "?");
	list_decoder_free(d);
	kerr_release(&err);
	free(buf);
}

static inline struct k8s_node *t_find_node(struct t_objs *o, const char *name)
{
	for (size_t i = 0; i < o->nnodes; i++)
		if (strcmp(o->nodes[i]->name, name) == 0)
			return o->nodes[i];
	cr_assert_fail("node %s not in the scenario", name);
	return NULL;
}

static inline struct k8s_pod *t_find_pod(struct t_objs *o, const char *name)
{
	for (size_t i = 0; i < o->npods; i++)
		if (strcmp(o->pods[i]->name, name) == 0)
			return o->pods[i];
	cr_assert_fail("pod %s not in the scenario", name);
	return NULL;
}

static inline void t_objs_release(struct t_objs *o)
{
	for (size_t i = 0; i < o->nnodes; i++)
		k8s_node_free(o->nodes[i]);
	for (size_t i = 0; i < o->npods; i++)
		k8s_pod_free(o->pods[i]);
	o->nnodes = o->npods = 0;
}

#endif
