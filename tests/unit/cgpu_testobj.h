/* Builders of Kubernetes objects and models for the cGPU unit tests. */
#ifndef CGPU_TESTOBJ_H
#define CGPU_TESTOBJ_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "model.h"
#include "objects.h"

static inline void tkv(struct kvlist *l, const char *k, const char *v)
{
	cr_assert_eq(kvlist_add(l, k, strlen(k), v, strlen(v)), 0);
}

/* A cGPU node: gpu-mem and gpu-count in allocatable and capacity. */
static inline struct k8s_node *tnode(const char *name, const char *ip, const char *mem, const char *count)
{
	struct k8s_node *n = calloc(1, sizeof(*n));

	n->name = strdup(name);
	n->internal_ip = ip ? strdup(ip) : NULL;
	if (mem) {
		tkv(&n->allocatable, "aliyun.com/gpu-mem", mem);
		tkv(&n->capacity, "aliyun.com/gpu-mem", mem);
	}
	if (count) {
		tkv(&n->allocatable, "aliyun.com/gpu-count", count);
		tkv(&n->capacity, "aliyun.com/gpu-count", count);
	}
	return n;
}

/* A pod with one container per memory figure given (NULL-terminated list
 * of quantities); idx is ALIYUN_COM_GPU_MEM_IDX or NULL (a pod with an index
 * is one the device plugin has assigned, as on a settled cluster). */
static inline struct k8s_pod *tpod(const char *ns, const char *name, const char *node, const char *phase,
				   const char *idx, ...)
{
	struct k8s_pod *p = calloc(1, sizeof(*p));
	va_list ap;
	const char *mem;

	p->namespace = strdup(ns);
	p->name = strdup(name);
	p->uid = strdup(name);
	p->node_name = node ? strdup(node) : NULL;
	p->phase = phase ? strdup(phase) : NULL;
	if (idx) {
		tkv(&p->annotations, "ALIYUN_COM_GPU_MEM_IDX", idx);
		tkv(&p->annotations, "ALIYUN_COM_GPU_MEM_ASSIGNED", "true");
	}
	va_start(ap, idx);
	while ((mem = va_arg(ap, const char *))) {
		char cname[32];

		p->containers = realloc(p->containers, (p->ncontainers + 1) * sizeof(*p->containers));
		memset(&p->containers[p->ncontainers], 0, sizeof(*p->containers));
		snprintf(cname, sizeof(cname), "c%zu", p->ncontainers);
		p->containers[p->ncontainers].name = strdup(cname);
		if (*mem)
			tkv(&p->containers[p->ncontainers].limits, "aliyun.com/gpu-mem", mem);
		p->ncontainers++;
	}
	va_end(ap);
	return p;
}

static inline void tadd_node(struct model *m, struct k8s_node *n)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(model_add_node(m, n, &err), 0, "%s", err.message ? err.message : "");
	k8s_node_free(n);
}

static inline void tadd_pod(struct model *m, struct k8s_pod *p)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(model_add_pod(m, p, &err), 0, "%s", err.message ? err.message : "");
	k8s_pod_free(p);
}

static inline void tfinish(struct model *m)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(model_finish(m, &err), 0, "%s", err.message ? err.message : "");
}

static inline char *tslurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	FILE *o;
	int c;

	cr_assert_not_null(f, "cannot open %s", path);
	o = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, o);
	fclose(o);
	fclose(f);
	return buf;
}

/* What one of the renderers that take the whole model (render_json,
 * render_yaml, render_details, render_warnings) writes for m; malloc'd. */
static inline char *t_rendered(int (*render)(FILE *, const struct model *, struct kerr *), const struct model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct kerr err = KERR_INIT;

	cr_assert_not_null(f);
	cr_assert_eq(render(f, m, &err), 0, "%s", err.message ? err.message : "");
	fclose(f);
	return buf;
}

#define GOLDEN_DIR FIXTURES_DIR "/../tests/e2e/golden/inspect/"

/* Published examples as model inputs. */
static inline void build_published_two_nodes(struct model *m)
{
	tadd_pod(m, tpod("default", "a", "cn-shanghai.i-uf61h64dz1tmlob9hmtb", "Running", "0", "6", NULL));
	tadd_node(m, tnode("cn-shanghai.i-uf61h64dz1tmlob9hmtc", "192.168.0.70", "15", "1"));
	tadd_node(m, tnode("cn-shanghai.i-uf61h64dz1tmlob9hmtb", "192.168.0.71", "15", "1"));
	tadd_pod(m, tpod("default", "b", "cn-shanghai.i-uf61h64dz1tmlob9hmtc", "Running", "0", "3", NULL));
}

static inline void build_published_mib(struct model *m)
{
	tadd_node(m, tnode("node6", "192.168.4.16", "44712", "4"));
	tadd_node(m, tnode("master", "192.168.4.15", "44712", "4"));
	/* no GPU index yet: pending */
	tadd_pod(m, tpod("default", "big", "master", "Pending", NULL, "18960", NULL));
}

static inline void build_seed002(struct model *m, bool pods)
{
	tadd_node(m, tnode("cn-hangzhou.192.168.2.167", "192.168.2.167", "15", "1"));
	if (!pods)
		return;
	tadd_pod(m, tpod("default", "app-3g-v1-1", "cn-hangzhou.192.168.2.167", "Running", "0", "4", NULL));
	tadd_pod(m, tpod("default", "app-3g-v1-0", "cn-hangzhou.192.168.2.167", "Running", "0", "4", NULL));
}

/* Nodes and pods of the other schemes: a CCE node of 128 MiB blocks, a
 * time-sliced NVIDIA node, and a one-container pod with the given limits. */
static inline struct k8s_node *cce_node(const char *name, const char *blocks)
{
	struct k8s_node *n = tnode(name, "10.1.0.1", NULL, NULL);

	tkv(&n->capacity, "volcano.sh/gpu-mem.128Mi", blocks);
	tkv(&n->allocatable, "volcano.sh/gpu-mem.128Mi", blocks);
	tkv(&n->allocatable, "volcano.sh/gpu-core.percentage", "100");
	return n;
}

static inline struct k8s_node *ts_node(const char *name, const char *gpus, const char *replicas, const char *total)
{
	struct k8s_node *n = tnode(name, "10.1.0.2", NULL, NULL);

	tkv(&n->labels, "nvidia.com/gpu.count", gpus);
	tkv(&n->labels, "nvidia.com/gpu.replicas", replicas);
	tkv(&n->labels, "nvidia.com/gpu.sharing-strategy", "time-slicing");
	tkv(&n->capacity, "nvidia.com/gpu", total);
	tkv(&n->allocatable, "nvidia.com/gpu", total);
	return n;
}

/* A pod of one container with these limits (key, value, ..., NULL). */
static inline struct k8s_pod *limits_pod(const char *ns, const char *name, const char *node, ...)
{
	struct k8s_pod *p = tpod(ns, name, node, node ? "Running" : "Pending", NULL, "0", NULL);
	const char *k, *v;
	va_list ap;

	kvlist_release(&p->containers[0].limits);
	va_start(ap, node);
	while ((k = va_arg(ap, const char *)) && (v = va_arg(ap, const char *)))
		tkv(&p->containers[0].limits, k, v);
	va_end(ap);
	p->scheduler_name = strdup("volcano");
	return p;
}

#endif
