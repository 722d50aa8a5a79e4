/* The findings: pods and GPUs that use more memory than they were
 * allocated, hardly any of it, or memory nothing holds; and the units the
 * figures are shown in (usage.h, usage_findings.h). */
#include "usage_findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t usage_unit_bytes(int64_t v, enum mem_unit unit)
{
	switch (unit) {
	case UNIT_GIB:
		return v > INT64_MAX >> 30 ? INT64_MAX : v << 30;
	case UNIT_MIB:
		return v > INT64_MAX >> 20 ? INT64_MAX : v << 20;
	default:
		return 0;
	}
}

const char *usage_format(char *buf, size_t size, int64_t bytes, enum mem_unit unit)
{
	if (unit == UNIT_MIB)
		snprintf(buf, size, "%lld", (long long)((bytes + (1 << 19)) >> 20));
	else
		snprintf(buf, size, "%.1f", (double)bytes / 1073741824.0);
	return buf;
}

const char *usage_unit_word(enum mem_unit unit)
{
	return unit == UNIT_MIB ? "MiB" : "GiB";
}

int64_t usage_bytes_round(double v)
{
	return v >= 9.0e18 ? INT64_MAX : (int64_t)(v + 0.5);
}

/* One card's memory on a node, in bytes: the card-memory label, else the
 * largest card the exporter reported there; -1 when unknown. */
static int64_t card_bytes(const struct model_node *n)
{
	int64_t best = -1;

	if (n->card_mem_mib > 0)
		return n->card_mem_mib << 20;
	for (int i = 0; i < n->ngpus; i++)
		if (n->gpus[i].total_known && n->gpus[i].total_bytes > best)
			best = n->gpus[i].total_bytes;
	return best;
}

/* What a pod holds, in bytes; -1 when unknown.  A pod counted in slots holds
 * whole cards only where a slot is a whole GPU (no time-slicing replicas). */
static int64_t pod_allocated_bytes(const struct model_pod *p, const struct model_node *n)
{
	int64_t card;

	if (p->unit != UNIT_SLOTS)
		return usage_unit_bytes(p->mem, p->unit);
	if (!n || n->mem_total != n->ngpus || (card = card_bytes(n)) <= 0)
		return -1;
	return p->mem * card;
}

/* What the pods hold on one GPU, in bytes; -1 when the scheme does not
 * say which GPU a pod holds (then only a node with nothing allocated
 * counts as 0). */
static int64_t gpu_allocated_bytes(const struct model_node *n, const struct model_gpu *g)
{
	if (!n->info.per_gpu)
		return n->mem_allocated == 0 && n->mem_pending == 0 ? 0 : -1;
	if (n->unit != UNIT_SLOTS)
		return usage_unit_bytes(g->mem_allocated, n->unit);
	if (!g->slots_used && !g->mem_allocated)
		return 0;
	if (g->total_known)
		return g->total_bytes;
	return n->card_mem_mib > 0 ? n->card_mem_mib << 20 : -1;
}

static const char *isolation_note(const struct model_node *n)
{
	if (!n)
		return "";
	return n->info.isolation
		       ? "; memory isolation is on: its allocations beyond the limit fail (CUDA out of memory)"
		       : "; memory isolation is off: it takes memory promised to the other pods on the GPU";
}

/* The limit and the allocation differ by a unit shown or more (the
 * allocation in GiB is rounded down per GPU). */
static bool limit_disagrees(int64_t alloc, int64_t limit, enum mem_unit unit)
{
	int64_t step = usage_unit_bytes(1, unit);

	return limit <= alloc - step || limit >= alloc + step;
}

/* Memory held but hardly used: less than the idle share of what was
 * allocated. */
static bool idle(int64_t used, int64_t alloc, const struct usage_options *o)
{
	return (double)used * 100.0 < o->idle_percent * (double)alloc;
}

/* A pod using more than it was allocated, less than the idle share of it,
 * or limited by its device plugin to something else. */
static void pod_findings(struct model *m, const struct usage_pod_fig *fig, const struct usage_options *o, size_t i,
			 const struct model_node *n)
{
	struct model_pod *p = &m->pods[i];
	enum mem_unit unit = n->unit == UNIT_SLOTS ? UNIT_GIB : n->unit;
	int64_t alloc = pod_allocated_bytes(p, n);
	char a[32], b[32], *obj = NULL;

	if (asprintf(&obj, "pod/%s/%s", p->namespace, p->name) < 0)
		return;
	if (alloc > 0 && fig->limit_known && limit_disagrees(alloc, usage_bytes_round(fig->limit), unit))
		warnings_add(&m->usage.findings, "LimitMismatch", obj,
			     "pod %s/%s on node %s: the device plugin limits it to %s %s of GPU memory, %s %s allocated",
			     p->namespace, p->name, n->name, usage_format(a, sizeof(a), usage_bytes_round(fig->limit), unit),
			     usage_unit_word(unit), usage_format(b, sizeof(b), alloc, unit), usage_unit_word(unit));
	/* no allocation the scheme can say: the device's own limit is one */
	if (alloc <= 0 && fig->limit_known && fig->limit >= 1)
		alloc = usage_bytes_round(fig->limit);
	if (!p->used_known || alloc <= 0) {
		free(obj);
		return;
	}
	if (p->used_bytes > alloc)
		warnings_add(&m->usage.findings, "OverUse", obj,
			     "pod %s/%s on node %s uses %s %s of GPU memory, %s %s allocated%s", p->namespace, p->name,
			     n->name, usage_format(a, sizeof(a), p->used_bytes, unit), usage_unit_word(unit),
			     usage_format(b, sizeof(b), alloc, unit), usage_unit_word(unit), isolation_note(n));
	else if (idle(p->used_bytes, alloc, o))
		warnings_add(&m->usage.findings, "Idle", obj,
			     "pod %s/%s on node %s uses at most %s of its %s %s of GPU memory (below %g%%)", p->namespace,
			     p->name, n->name, usage_format(a, sizeof(a), p->used_bytes, unit),
			     usage_format(b, sizeof(b), alloc, unit), usage_unit_word(unit), o->idle_percent);
	free(obj);
}

/* Whether a pod on the GPU has a figure of its own: then it is judged per pod. */
static bool gpu_pods_known(const struct model *m, const struct model_node *n, const struct model_gpu *gp)
{
	for (size_t k = 0; k < n->npods; k++) {
		const struct model_pod *p = &m->pods[n->pods[k]];

		for (size_t x = 0; x < p->ngpus; x++)
			if (p->gpus[x].gpu == gp->index && p->used_known)
				return true;
	}
	return false;
}

/* Memory in use on a GPU nothing holds, or the pods of a GPU judged as one
 * where no pod has a figure of its own. */
static void gpu_findings(struct model *m, const struct usage_options *o, const struct model_node *n,
			 const struct model_gpu *gp, const char *obj)
{
	enum mem_unit unit = n->unit == UNIT_SLOTS ? UNIT_GIB : n->unit;
	int64_t alloc = gpu_allocated_bytes(n, gp);
	char a[32], b[32];

	if (!gp->used_known || alloc < 0)
		return;
	if (alloc == 0 && gp->npods == 0) {
		if (gp->used_bytes > o->unaccounted_bytes)
			warnings_add(&m->usage.findings, "Unaccounted", obj,
				     "node %s GPU %d: %s %s of GPU memory in use with nothing allocated to pods (a process outside Kubernetes?)",
				     n->name, gp->index, usage_format(a, sizeof(a), gp->used_bytes, unit),
				     usage_unit_word(unit));
		return;
	}
	if (alloc == 0 || gpu_pods_known(m, n, gp))
		return; /* said per pod */
	if (gp->used_bytes > alloc)
		warnings_add(&m->usage.findings, "OverUse", obj,
			     "node %s GPU %d: the pods use %s %s of GPU memory, %s %s allocated%s", n->name, gp->index,
			     usage_format(a, sizeof(a), gp->used_bytes, unit), usage_unit_word(unit),
			     usage_format(b, sizeof(b), alloc, unit), usage_unit_word(unit), isolation_note(n));
	else if (idle(gp->used_bytes, alloc, o))
		warnings_add(&m->usage.findings, "Idle", obj,
			     "node %s GPU %d: the pods use at most %s of the %s %s allocated (below %g%%)", n->name,
			     gp->index, usage_format(a, sizeof(a), gp->used_bytes, unit),
			     usage_format(b, sizeof(b), alloc, unit), usage_unit_word(unit), o->idle_percent);
}

void usage_findings(struct model *m, const struct usage_pod_fig *pods, const struct usage_options *o)
{
	for (size_t i = 0; i < m->npods; i++) {
		const struct model_node *n = m->pods[i].node ? model_find_node(m, m->pods[i].node) : NULL;

		if (n)
			pod_findings(m, &pods[i], o, i, n);
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct model_node *n = &m->nodes[i];
		char *obj = NULL;

		if (asprintf(&obj, "node/%s", n->name) < 0)
			continue;
		for (int g = 0; g < n->ngpus; g++)
			gpu_findings(m, o, n, &n->gpus[g], obj);
		free(obj);
	}
}
