/* The live model settled: the nodes that events touched joined again (their
 * GPUs, figures, warnings, pods and derived figures), the totals moved by
 * each node's difference, the pods on no node settled, and the figures
 * over all nodes (flags, fragmentation, reasons, warnings) made again from
 * the nodes' own. */
#include "model_live_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_node_names(const void *a, const void *b)
{
	return strcmp(((const struct model_node *)a)->name, ((const struct model_node *)b)->name);
}

/* m.nodes in name order again, and the accumulators told where theirs are. */
static int sort_nodes(struct model_live *l)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	size_t *na = kube_array_grow(s->node_acc, &s->node_acc_cap, m->nnodes ? m->nnodes : 1, sizeof(*na), 64);

	if (!na)
		return -1;
	s->node_acc = na;
	if (m->nnodes > 1)
		qsort(m->nodes, m->nnodes, sizeof(*m->nodes), cmp_node_names);
	for (size_t i = 0; i < m->nnodes; i++) {
		long ai = model_names_find(&m->priv->acc_names, m->nodes[i].name);

		m->priv->accs[ai].node = i;
		na[i] = (size_t)ai;
	}
	for (size_t k = 0; k < s->nasks; k++)
		s->asks[k].judge_all = true;
	s->nodes_moved = false;
	return 0;
}

/* Totals made again from nothing: every node joined and every pod on no
 * node settled again (the cluster's unit changed, or a scheme's). */
static int recount_all(struct model_live *l)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;

	for (int u = 0; u <= UNIT_SLOTS; u++) {
		memset(&m->units[u].totals, 0, sizeof(m->units[u].totals));
		m->units[u].totals.unit = (enum mem_unit)u;
	}
	m->totals.mem_total = m->totals.mem_allocated = m->totals.mem_pending = 0;
	m->totals.mem_unassigned = m->totals.core_total = m->totals.core_allocated = 0;
	m->totals.mem_unhealthy = 0;
	m->totals.gpus = m->totals.pods = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		s->nodes[s->node_acc[i]].counted = false;
		if (live_touch(s, s->node_acc[i]) < 0)
			return -1;
	}
	for (size_t i = 0; i < m->nunscheduled; i++) {
		struct live_pod *r = &s->pods[s->shown_rec[m->unscheduled[i]]];

		r->counted = false;
		r->dirty = true;
	}
	s->pods_dirty = true;
	return 0;
}

/* The unit each scheme's pods on no node count in, after node changes:
 * where one changed, those pods are settled again. */
static int check_units(struct model_live *l)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	enum mem_unit unit = m->totals.unit;
	bool mixed = m->totals.mixed_units, moved = false;
	size_t nschemes = 0;

	model_decide_units(m);
	while (schemes[nschemes])
		nschemes++;
	if (!s->scheme_units && !(s->scheme_units = calloc(nschemes + 1, sizeof(*s->scheme_units))))
		return -1;
	for (size_t k = 0; k < nschemes; k++) {
		enum mem_unit u = model_scheme_unit(m, schemes[k]);

		moved |= u != s->scheme_units[k];
		s->scheme_units[k] = u;
	}
	s->nodes_changed = false;
	if (unit != m->totals.unit || mixed != m->totals.mixed_units || moved)
		return recount_all(l);
	return 0;
}

/* The usage source's figures of the GPUs of a node joined again, by index. */
static void keep_usage(struct model_node *n, const struct model_gpu *old, int nold)
{
	for (int i = 0; i < n->ngpus && i < nold; i++) {
		struct model_gpu *g = &n->gpus[i];

		if (old[i].index != g->index)
			continue;
		g->used_known = old[i].used_known;
		g->total_known = old[i].total_known;
		g->util_known = old[i].util_known;
		g->used_bytes = old[i].used_bytes;
		g->total_bytes = old[i].total_bytes;
		g->util = old[i].util;
	}
}

static int cmp_shown(const void *a, const void *b, void *ud)
{
	const struct model *m = ud;

	return cmp_pod_order(&m->pods[*(const size_t *)a], &m->pods[*(const size_t *)b]);
}

/* A kept pod's figures from its record (in the scheme's count), settled in
 * the unit shown. */
static void resettle(struct model *m, struct model_pod *mp, const struct live_pod *r, const struct model_node *n)
{
	mp->mem = r->mem;
	for (size_t g = 0; g < mp->ngpus && g < r->ngpus; g++) {
		mp->gpus[g].gpu = r->gpus[g].gpu;
		mp->gpus[g].mem = r->gpus[g].mem;
	}
	model_settle_pod(m, mp, n);
}

/* The pods a node lists, from its records, settled and in order. */
static int list_node_pods(struct model_live *l, struct model_node *n, const struct live_node *ln)
{
	struct model *m = &l->m;
	size_t *pods = ln->nrecs ? malloc(ln->nrecs * sizeof(*pods)) : NULL, k = 0;

	if (ln->nrecs && !pods)
		return -1;
	for (size_t i = 0; i < ln->nrecs; i++) {
		const struct live_pod *r = &l->s->pods[ln->recs[i]];

		if (r->shown == LIVE_NONE)
			continue;
		resettle(m, &m->pods[r->shown], r, n);
		pods[k++] = r->shown;
	}
	if (k > 1)
		qsort_r(pods, k, sizeof(*pods), cmp_shown, m);
	free(n->pods);
	n->pods = pods;
	n->npods = k;
	if (n->info.unit == UNIT_MIB && n->unit == UNIT_GIB)
		return model_round_node_pods(m, n);
	return 0;
}

/* Which of a node's pods wait, and why: on the node with no GPU chosen. */
static int node_waiting(struct model_live *l, const struct model_node *n)
{
	struct model *m = &l->m;

	for (size_t i = 0; i < n->npods; i++) {
		struct model_pod *mp = &m->pods[n->pods[i]];
		struct live_pod *r = &l->s->pods[l->s->shown_rec[n->pods[i]]];
		bool waits = model_pod_waits(mp);

		if (waits && !r->waiting &&
		    live_list_insert(m, &m->waiting, &m->nwaiting, &l->s->waiting_cap, n->pods[i]) < 0)
			return -1;
		if (!waits && r->waiting)
			live_list_remove(m, m->waiting, &m->nwaiting, n->pods[i]);
		r->waiting = waits;
		free(mp->pending_reason);
		mp->pending_reason = NULL;
		/* again as the node changes: fit's verdict on it (NULL when out
		 * of memory: left out, as a warning would be) */
		if (waits)
			mp->pending_reason = model_waiting_on_node(m, mp);
	}
	return 0;
}

static bool same_warnings(const struct warnings *a, const struct warnings *b)
{
	if (a->len != b->len)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (strcmp(a->items[i].code, b->items[i].code) != 0 ||
		    !model_same_device(a->items[i].object, b->items[i].object) ||
		    strcmp(a->items[i].message, b->items[i].message) != 0)
			return false;
	return true;
}

/* The warnings joining a node said, kept where they changed. */
static void keep_join_warnings(struct live_state *s, struct live_node *ln, struct warnings *w)
{
	if (same_warnings(&ln->join_w, w)) {
		warnings_release(w);
		return;
	}
	warnings_release(&ln->join_w);
	ln->join_w = *w;
	s->warnings_dirty = true;
}

/* One touched node joined again: its figures out of the totals, joined
 * from its accumulator, its pods settled and listed, its derived figures,
 * its figures back into the totals. */
static int settle_node(struct model_live *l, size_t ai)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	struct node_acc *a = &m->priv->accs[ai];
	struct live_node *ln = &s->nodes[ai];
	struct warnings w = {0};
	struct model_node *n;
	struct model_gpu *old;
	int nold, rc;
	bool rounded = m->rounded;

	if (!a->shares) {
		rc = model_acc_warning(a, &w);
		keep_join_warnings(s, ln, &w);
		return rc;
	}
	n = &m->nodes[a->node];
	if (ln->counted)
		model_count_node(m, n, -1);
	ln->counted = false;
	old = n->gpus;
	nold = n->ngpus;
	n->gpus = NULL;
	m->rounded = false;
	rc = model_join_node(m, n, a, &w);
	if (rc == 0) {
		keep_usage(n, old, nold);
		rc = list_node_pods(l, n, ln);
	}
	free(old);
	ln->rounded = m->rounded;
	m->rounded = rounded;
	keep_join_warnings(s, ln, &w);
	if (rc < 0)
		return -1;
	n->pods_held = a->npods;
	ln->pods_core = model_node_pods_core(m, n);
	model_derive_node(n);
	/* after the node's figures: a waiting pod's reason is fit's verdict on them */
	if (node_waiting(l, n) < 0)
		return -1;
	model_count_node(m, n, 1);
	ln->counted = true;
	return 0;
}

/* The pods on no node whose figures or unit changed, settled and counted. */
static void settle_unscheduled(struct model_live *l)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	bool rounded = m->rounded;

	for (size_t i = 0; i < m->nunscheduled; i++) {
		struct model_pod *mp = &m->pods[m->unscheduled[i]];
		struct live_pod *r = &s->pods[s->shown_rec[m->unscheduled[i]]];

		if (!r->dirty)
			continue;
		if (r->counted)
			model_count_unscheduled(m, mp, -1);
		m->rounded = false;
		resettle(m, mp, r, NULL);
		r->rounded = m->rounded;
		model_count_unscheduled(m, mp, 1);
		r->counted = true;
		r->dirty = false;
		/* the request's reason as it stands; the pods get it again where
		 * the request is judged again and reads otherwise */
		if (r->ask != LIVE_NONE && s->asks[r->ask].text) {
			free(mp->pending_reason);
			mp->pending_reason = strdup(s->asks[r->ask].text);
		}
	}
	m->rounded = rounded;
	s->pods_dirty = false;
}

/* The flags over all nodes, and whether anything was rounded. */
static void gather_flags(struct model_live *l)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;

	m->any_pending = m->any_core = false;
	m->max_gpus = 0;
	m->rounded = false;
	for (int u = 0; u <= UNIT_SLOTS; u++) {
		m->units[u].any_pending = m->units[u].any_core = false;
		m->units[u].max_gpus = 0;
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct live_node *ln = &s->nodes[s->node_acc[i]];

		model_node_flags(m, &m->nodes[i], &m->priv->accs[s->node_acc[i]], ln->pods_core);
		m->rounded |= ln->rounded;
	}
	for (size_t i = 0; i < m->nunscheduled; i++)
		m->rounded |= s->pods[s->shown_rec[m->unscheduled[i]]].rounded;
	m->totals.nodes = m->nnodes;
	m->totals.unscheduled = m->nunscheduled;
}

/* m.warnings put together again as a finish puts them: the nodes' joins,
 * then what the schemes said of nodes and of pods, sorted; what usage
 * added after the last settle's stays after them. */
static int gather_warnings(struct model_live *l)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	struct warnings tail = {0}, all = {0};

	for (size_t i = s->settled_warnings; i < m->warnings.len; i++)
		warnings_add(&tail, m->warnings.items[i].code, m->warnings.items[i].object, "%s",
			     m->warnings.items[i].message);
	for (size_t i = 0; i < m->nnodes; i++)
		model_append_warnings(&all, &s->nodes[s->node_acc[i]].join_w);
	for (size_t i = 0; i < s->nnodes; i++)
		if (!m->priv->accs[i].shares)
			model_append_warnings(&all, &s->nodes[i].join_w);
	for (size_t i = 0; i < s->nnodes; i++)
		model_append_warnings(&all, &s->nodes[i].read_w);
	for (size_t i = 0; i < s->npods; i++)
		if (s->pods[i].key && s->pods[i].warnings)
			model_append_warnings(&all, s->pods[i].warnings);
	if (model_sort_warnings(&all) < 0) {
		warnings_release(&tail);
		warnings_release(&all);
		return -1;
	}
	model_append_warnings(&all, &s->objects_w);
	s->settled_warnings = all.len;
	model_append_warnings(&all, &tail);
	warnings_release(&tail);
	warnings_release(&m->warnings);
	m->warnings = all;
	s->warnings_dirty = false;
	return 0;
}

int model_live_settle(struct model_live *l, struct kerr *err)
{
	struct live_state *s = l->s;
	int rc = 0;

	if (!s->pending)
		return 0;
	if ((s->nodes_moved && sort_nodes(l) < 0) || (s->nodes_changed && check_units(l) < 0))
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; rc == 0 && i < s->ntouched; i++)
		rc = settle_node(l, s->touched[i]);
	if (rc == 0 && s->pods_dirty)
		settle_unscheduled(l);
	gather_flags(l);
	model_derive_frag(&l->m);
	model_derive_stranded(&l->m); /* a pool's common request follows every pod of it */
	if (rc == 0)
		rc = live_asks_settle(l);
	for (size_t i = 0; i < s->ntouched; i++)
		s->nodes[s->touched[i]].touched = false;
	s->ntouched = 0;
	if (rc == 0 && s->warnings_dirty)
		rc = gather_warnings(l);
	s->pending = rc < 0;
	return rc < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
}

void model_live_forget_usage(struct model_live *l)
{
	struct model *m = &l->m;

	m->usage.gpus_known = m->usage.gpus_unknown = 0;
	warnings_release(&m->usage.findings);
	for (size_t i = l->s->settled_warnings; i < m->warnings.len; i++) {
		free(m->warnings.items[i].code);
		free(m->warnings.items[i].object);
		free(m->warnings.items[i].message);
	}
	if (m->warnings.len > l->s->settled_warnings)
		m->warnings.len = l->s->settled_warnings;
}
