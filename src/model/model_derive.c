/* The figures every renderer reads, derived once from a model whose nodes,
 * GPUs and pods are in place: each node's status and largest free memory on
 * one GPU, fragmentation per unit, and why each waiting pod waits (by the
 * same checks as fit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "model.h"
#include "model_internal.h"

int64_t model_gpu_free(const struct model_gpu *g)
{
	int64_t f = g->mem_total - g->mem_allocated;

	return f > 0 ? f : 0;
}

int64_t model_node_free(const struct model_node *n)
{
	int64_t f = n->mem_total - n->mem_allocated, rest = n->mem_total;

	if (!n->info.per_gpu || !n->ngpus)
		return f > 0 ? f : 0;
	f = 0;
	for (int i = 0; i < n->ngpus; i++) {
		f += model_gpu_free(&n->gpus[i]);
		rest -= n->gpus[i].mem_total;
	}
	return f + (rest > 0 ? rest : 0);
}

static int64_t largest_free(const struct model_node *n)
{
	int64_t best = -1;

	if (!n->info.per_gpu || !n->ngpus) {
		int64_t f = n->mem_total - n->mem_allocated;

		/* no per-GPU split: the node's free, but never more than one card */
		if (n->info.unit != UNIT_SLOTS && n->ngpus > 0 && f > n->mem_total / n->ngpus)
			f = n->mem_total / n->ngpus;
		return f > 0 ? f : 0;
	}
	for (int i = 0; i < n->ngpus; i++)
		if (model_gpu_usable(&n->gpus[i]) && model_gpu_free(&n->gpus[i]) > best)
			best = model_gpu_free(&n->gpus[i]);
	return best;
}

void model_derive_node(struct model_node *n)
{
	size_t unhealthy = 0, cordoned = 0;
	int len;

	for (int i = 0; i < n->ngpus; i++) {
		unhealthy += n->gpus[i].unhealthy;
		cordoned += n->gpus[i].cordoned && !n->gpus[i].unhealthy;
	}
	len = snprintf(n->status, sizeof(n->status), "%s%s", n->ready ? "Ready" : "NotReady",
		       n->unschedulable ? ",SchedulingDisabled" : "");
	if (unhealthy && len >= 0 && (size_t)len < sizeof(n->status))
		len += snprintf(n->status + len, sizeof(n->status) - (size_t)len, ",%zu GPU unhealthy", unhealthy);
	if (cordoned && len >= 0 && (size_t)len < sizeof(n->status))
		snprintf(n->status + len, sizeof(n->status) - (size_t)len, ",%zu GPU cordoned", cordoned);
	n->schedulable = n->ready && !n->unschedulable;
	n->largest_free = largest_free(n);
}

static void fragmentation(const struct model *m, enum mem_unit unit, struct model_frag *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->largest = -1;
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct model_node *n = &m->nodes[i];

		if (n->unit != unit)
			continue;
		if (!n->schedulable) {
			ret->unschedulable_nodes++;
			ret->free_unschedulable += model_node_free(n);
			continue;
		}
		if (n->largest_free < 0)
			continue;
		if (n->largest_free > ret->largest) {
			ret->largest = n->largest_free;
			ret->gpus = 0;
		}
		if (!n->info.per_gpu || !n->ngpus) {
			ret->gpus += n->largest_free == ret->largest;
			continue;
		}
		for (int g = 0; g < n->ngpus; g++)
			if (model_gpu_usable(&n->gpus[g]) && model_gpu_free(&n->gpus[g]) == ret->largest)
				ret->gpus++;
	}
	if (ret->largest < 0)
		ret->largest = 0;
}

bool model_pod_waits(const struct model_pod *p)
{
	if (!p->node)
		return true;
	for (size_t i = 0; i < p->ngpus; i++)
		if (p->gpus[i].gpu < 0)
			return true;
	return false;
}

/* fit's answer for what the pod asks: where it fits now, or the reasons
 * that concern its own scheme, most nodes first. */
static void write_reasons(FILE *f, const struct model *m, const struct fit_request *r, const struct fit_result *res)
{
	size_t shown = 0;

	if (r->nclaim) {
		fprintf(f, "claim %s not allocated: ", r->claim_name ? r->claim_name : "");
		if (res->nsure) {
			fprintf(f, "%zu node%s could hold it (first %s)", res->nsure, res->nsure == 1 ? "" : "s",
				m->nodes[res->fits[0].node].name);
			return;
		}
	} else if (res->nsure) {
		fprintf(f, "fits now on %zu node%s (first %s): waiting for the scheduler", res->nsure,
			res->nsure == 1 ? "" : "s", m->nodes[res->fits[0].node].name);
		return;
	}
	if (res->nfits)
		fprintf(f, "may fit on %zu node%s whose scheme does not publish its per-GPU rule (first %s); ",
			res->nfits, res->nfits == 1 ? "" : "s", m->nodes[res->fits[0].node].name);
	for (size_t i = 0; i < res->ngroups; i++) {
		char *t;

		if (res->groups[i].reason == FIT_REASON_SCHEME || !(t = fit_group_text(&res->groups[i], r)))
			continue;
		fprintf(f, "%s%zu node%s: %s", shown ? "; " : "", res->groups[i].count,
			res->groups[i].count == 1 ? "" : "s", t);
		free(t);
		shown++;
	}
	if (!shown && r->nclaim)
		fprintf(f, "no node publishes devices");
	else if (!shown)
		fprintf(f, "no %s node", r->scheme);
}

char *model_reason_text(const struct model *m, const struct fit_request *r, const struct fit_result *res)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	write_reasons(f, m, r, res);
	if (fclose(f) != 0) {
		free(s);
		s = NULL;
	}
	return s;
}

bool model_pod_request(const struct model *m, const struct model_pod *p, struct fit_request *r)
{
	if (!p->ask.gpus || !p->scheme)
		return false;
	*r = (struct fit_request){.scheme = p->scheme->name, .mem = p->ask.mem, .core = p->ask.core,
				  .gpus = p->ask.gpus, .node_selector = &p->node_selector, .terms = p->node_terms,
				  .nterms = p->nnode_terms, .tols = p->tolerations, .ntols = p->ntolerations};
	/* a claim not allocated: what it asks of devices, where its scheme still has it */
	if (p->claim && p->scheme->claim_requests &&
	    p->scheme->claim_requests(m->opts.objects, p->namespace, p->claim, &r->claim, &r->nclaim) != 1)
		r->nclaim = 0;
	if (!r->nclaim)
		r->claim = NULL;
	else
		r->claim_name = p->claim;
	return true;
}

/* fit's answer for a pod bound to a node, on that node alone: a GPU there
 * has room (the device plugin has yet to choose it), or why none has. */
static void write_node_reason(FILE *f, const struct model_pod *p, const struct fit_request *r,
			      const struct fit_result *res)
{
	char *t;

	if (res->nsure) {
		fprintf(f, "on node %s, waiting for its GPU to be chosen", p->node);
		return;
	}
	if (res->nfits) {
		fprintf(f, "on node %s, which may hold it: its scheme does not publish its per-GPU rule", p->node);
		return;
	}
	if (!res->considered) {
		fprintf(f, "on node %s, which is not among the nodes shown: not checked", p->node);
		return;
	}
	t = res->ngroups ? fit_group_text(&res->groups[0], r) : NULL;
	fprintf(f, "on node %s, where no GPU can hold it now: %s", p->node, t ? t : "does not fit");
	free(t);
}

char *model_waiting_on_node(const struct model *m, const struct model_pod *p)
{
	struct fit_request r = {.node = p->node, .mem = p->ask.mem, .core = p->ask.core, .gpus = p->ask.gpus,
				.scheme = p->scheme ? p->scheme->name : NULL};
	struct fit_result res;
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	/* a pod whose scheme gave no ask asks what it holds without a GPU */
	for (size_t i = 0; !p->ask.gpus && i < p->ngpus; i++)
		if (p->gpus[i].gpu < 0) {
			r.gpus++;
			r.mem = p->gpus[i].mem > r.mem ? p->gpus[i].mem : r.mem;
			r.core = p->gpus[i].core > r.core ? p->gpus[i].core : r.core;
		}
	if (!r.gpus || !p->scheme)
		return asprintf(&s, "on node %s, waiting for a GPU: what it asks could not be read", p->node) < 0 ? NULL : s;
	if (fit_check(m, &r, &res) < 0)
		return NULL;
	if ((f = open_memstream(&s, &len))) {
		write_node_reason(f, p, &r, &res);
		if (fclose(f) != 0) {
			free(s);
			s = NULL;
		}
	}
	fit_result_release(&res);
	return s;
}

/* Why a pod waits, in one line, from fit's check of what it asks: for a
 * pod on no node, fit's reasons over every node with its nodeSelector,
 * required node affinity and tolerations (kept with opts.scheduling); for
 * a pod bound to a node without a GPU, fit's verdict on that node.  NULL
 * when there is nothing to say or out of memory. */
static char *pending_reason(const struct model *m, const struct model_pod *p)
{
	struct fit_request r;
	struct fit_result res;
	char *s;

	if (p->node)
		return model_waiting_on_node(m, p);
	if (!model_pod_request(m, p, &r) || fit_check(m, &r, &res) < 0)
		return NULL;
	s = model_reason_text(m, &r, &res);
	fit_result_release(&res);
	return s;
}

void model_derive_frag(struct model *m)
{
	for (int u = 0; u < UNIT_SLOTS; u++)
		fragmentation(m, (enum mem_unit)u, &m->frag[u]);
}

/* The pods that wait, in the model's (namespace/name) order; none when out
 * of memory. */
static void list_waiting(struct model *m)
{
	size_t n = 0;

	free(m->waiting);
	m->waiting = NULL;
	m->nwaiting = 0;
	for (size_t i = 0; i < m->npods; i++)
		n += model_pod_waits(&m->pods[i]);
	if (!n || !(m->waiting = malloc(n * sizeof(*m->waiting))))
		return;
	for (size_t i = 0; i < m->npods; i++)
		if (model_pod_waits(&m->pods[i]))
			m->waiting[m->nwaiting++] = i;
}

void model_node_derive(struct model_node *n)
{
	model_derive_node(n);
}

void model_derive(struct model *m)
{
	for (size_t i = 0; i < m->nnodes; i++)
		model_derive_node(&m->nodes[i]);
	model_derive_frag(m);
	model_derive_stranded(m);
	for (size_t i = 0; i < m->npods; i++) {
		struct model_pod *p = &m->pods[i];

		free(p->pending_reason);
		p->pending_reason = model_pod_waits(p) ? pending_reason(m, p) : NULL;
	}
	list_waiting(m);
}

void model_derived_release(struct model *m)
{
	for (size_t i = 0; i < m->npods; i++) {
		free(m->pods[i].pending_reason);
		m->pods[i].pending_reason = NULL;
	}
	free(m->waiting);
	m->waiting = NULL;
	m->nwaiting = 0;
}
