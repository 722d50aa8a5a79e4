/* Why the pods on no node wait, kept as nodes change: pods that ask the same
 * (scheme, memory, compute, GPUs, nodeSelector, tolerations, node affinity)
 * share one request, which keeps fit's verdict on every node.  A settle
 * judges each request again on the nodes that events touched only, and
 * gathers the verdicts into fit's answer and its reason. */
#include "model_live_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One string of a request, its length first so that no text can run into
 * the next. */
static void key_str(FILE *f, const char *s)
{
	fprintf(f, "%zu:%s", s ? strlen(s) : (size_t)0, s ? s : "");
}

/* The request as text: equal requests, equal keys.  malloc'd, or NULL. */
static char *ask_key(const struct model_pod *p)
{
	char *key = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&key, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s|%lld|%lld|%d|", p->scheme->name, (long long)p->ask.mem, (long long)p->ask.core, p->ask.gpus);
	/* a claim is its pod's own: its requests are read where the claim is */
	key_str(f, p->claim ? p->namespace : NULL);
	key_str(f, p->claim);
	for (size_t i = 0; i < p->node_selector.len; i++) {
		key_str(f, p->node_selector.items[i].key);
		key_str(f, p->node_selector.items[i].value);
	}
	fputc('|', f);
	for (size_t i = 0; i < p->ntolerations; i++) {
		key_str(f, p->tolerations[i].key);
		key_str(f, p->tolerations[i].op);
		key_str(f, p->tolerations[i].value);
		key_str(f, p->tolerations[i].effect);
	}
	for (size_t t = 0; t < p->nnode_terms; t++) {
		fprintf(f, "|%zu", p->node_terms[t].nreqs);
		for (size_t i = 0; i < p->node_terms[t].nreqs; i++) {
			const struct k8s_node_requirement *q = &p->node_terms[t].reqs[i];

			key_str(f, q->key);
			key_str(f, q->op);
			fprintf(f, "%zu", q->nvalues);
			for (size_t v = 0; v < q->nvalues; v++)
				key_str(f, q->values[v]);
		}
	}
	if (fclose(f) != 0) {
		free(key);
		return NULL;
	}
	return key;
}

static void ask_verdicts_release(struct live_ask *a)
{
	for (size_t i = 0; i < a->nv; i++)
		fit_verdict_release(&a->v[i]);
	free(a->v);
	a->v = NULL;
	a->nv = 0;
}

static void ask_release(struct live_ask *a)
{
	ask_verdicts_release(a);
	model_pod_free_fields(&a->req);
	free(a->text);
	memset(a, 0, sizeof(*a));
}

/* The request's own copy of what a pod asks. */
static int ask_copy(struct live_ask *a, const struct model_pod *p)
{
	a->req.scheme = p->scheme;
	a->req.ask = p->ask;
	if (p->claim && (!(a->req.claim = strdup(p->claim)) || !(a->req.namespace = strdup(p->namespace))))
		return -1;
	if (model_copy_labels(&a->req.node_selector, &p->node_selector) < 0 ||
	    k8s_node_terms_copy(&a->req.node_terms, &a->req.nnode_terms, p->node_terms, p->nnode_terms) < 0 ||
	    k8s_tolerations_copy(&a->req.tolerations, &a->req.ntolerations, p->tolerations, p->ntolerations) < 0)
		return -1;
	return 0;
}

int live_ask_take(struct model_live *l, struct live_pod *r)
{
	struct live_state *s = l->s;
	const struct model_pod *p = &l->m.pods[r->shown];
	struct fit_request fr;
	struct live_ask *a;
	char *key;
	long k;

	if (!model_pod_request(&l->m, p, &fr))
		return 0; /* nothing fit can judge: no reason, as a finished model has none */
	if (!(key = ask_key(p)))
		return -1;
	k = model_names_add(&s->ask_keys, key, strlen(key));
	free(key);
	if (k < 0)
		return -1;
	if ((size_t)k >= s->nasks) {
		a = kube_array_grow(s->asks, &s->asks_cap, (size_t)k + 1, sizeof(*a), 8);
		if (!a)
			return -1;
		s->asks = a;
		memset(&s->asks[s->nasks], 0, ((size_t)k + 1 - s->nasks) * sizeof(*a));
		s->nasks = (size_t)k + 1;
	}
	a = &s->asks[k];
	if (!a->refs) {
		if (ask_copy(a, p) < 0) {
			ask_release(a);
			return -1;
		}
		a->judge_all = true;
	}
	a->refs++;
	r->ask = (size_t)k;
	return 0;
}

void live_ask_drop(struct model_live *l, struct live_pod *r)
{
	struct live_ask *a = &l->s->asks[r->ask];

	if (!--a->refs)
		ask_release(a);
	r->ask = LIVE_NONE;
}

void live_asks_release(struct live_state *s)
{
	for (size_t k = 0; k < s->nasks; k++)
		ask_release(&s->asks[k]);
	free(s->asks);
	model_names_release(&s->ask_keys);
}

/* The request judged on the nodes that need it: every node, or those
 * touched since the last settle. */
static int ask_judge(struct model_live *l, struct live_ask *a, const struct fit_request *r)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;

	if (a->judge_all || a->nv != m->nnodes) {
		ask_verdicts_release(a);
		if (m->nnodes && !(a->v = calloc(m->nnodes, sizeof(*a->v))))
			return -1;
		a->nv = m->nnodes;
		for (size_t i = 0; i < m->nnodes; i++)
			if (fit_judge(m, i, r, &a->v[i]) < 0)
				return -1;
		a->judge_all = false;
		return 0;
	}
	for (size_t t = 0; t < s->ntouched; t++) {
		const struct node_acc *acc = &m->priv->accs[s->touched[t]];

		if (!acc->shares)
			continue;
		fit_verdict_release(&a->v[acc->node]);
		if (fit_judge(m, acc->node, r, &a->v[acc->node]) < 0)
			return -1;
	}
	return 0;
}

/* The request's reason again; text_changed where it reads otherwise. */
static int ask_settle(struct model_live *l, struct live_ask *a)
{
	struct fit_request r;
	struct fit_result res;
	char *text;

	if (!a->judge_all && !l->s->ntouched && a->text)
		return 0;
	model_pod_request(&l->m, &a->req, &r);
	if (ask_judge(l, a, &r) < 0) {
		/* judged again from nothing next time */
		a->judge_all = true;
		return -1;
	}
	if (fit_gather(&l->m, a->v, &res) < 0)
		return -1;
	text = model_reason_text(&l->m, &r, &res);
	fit_result_release(&res);
	if (!text)
		return -1;
	if (a->text && strcmp(a->text, text) == 0) {
		free(text);
		return 0;
	}
	free(a->text);
	a->text = text;
	a->text_changed = true;
	return 0;
}

int live_asks_settle(struct model_live *l)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	bool changed = false;

	for (size_t k = 0; k < s->nasks; k++) {
		if (s->asks[k].refs && ask_settle(l, &s->asks[k]) < 0)
			return -1;
		changed |= s->asks[k].text_changed;
	}
	if (!changed)
		return 0;
	for (size_t i = 0; i < m->nunscheduled; i++) {
		struct model_pod *mp = &m->pods[m->unscheduled[i]];
		const struct live_pod *r = &s->pods[s->shown_rec[m->unscheduled[i]]];
		char *t;

		if (r->ask == LIVE_NONE || !s->asks[r->ask].text_changed)
			continue;
		if (!(t = strdup(s->asks[r->ask].text)))
			return -1;
		free(mp->pending_reason);
		mp->pending_reason = t;
	}
	for (size_t k = 0; k < s->nasks; k++)
		s->asks[k].text_changed = false;
	return 0;
}
