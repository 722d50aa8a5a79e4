/* The live model, objects in: each pod's share taken out of its node's sums
 * and the new one put in, each node read again in its place; what they
 * change is derived at the next settle (model_live_settle.c). */
#include "model_live_internal.h"

#include <stdlib.h>
#include <string.h>

static int oom(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "out of memory");
}

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static bool same_string(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

int model_live_init(struct model_live *l, const struct model_options *opt)
{
	struct model_options o = {.force_unit = -1};

	memset(l, 0, sizeof(*l));
	if (opt)
		o = *opt;
	/* what a pod shows in the live view: no containers, every pod kept */
	o.no_containers = true;
	o.keep_pod_if = NULL;
	if (model_init(&l->m, &o) < 0)
		return -1;
	if (!(l->s = calloc(1, sizeof(*l->s)))) {
		model_release(&l->m);
		return -1;
	}
	l->m.priv->strings = &l->s->strings;
	model_decide_units(&l->m);
	return 0;
}

void model_live_release(struct model_live *l)
{
	struct live_state *s = l->s;

	/* the model's pods borrow the state's strings: released first */
	model_release(&l->m);
	if (!s)
		return;
	for (size_t i = 0; i < s->npods; i++)
		if (s->pods[i].key)
			live_pod_remove(s, i);
	for (size_t i = 0; i < s->nnodes; i++) {
		free(s->nodes[i].recs);
		free(s->nodes[i].uid);
		free(s->nodes[i].rv);
		warnings_release(&s->nodes[i].read_w);
		warnings_release(&s->nodes[i].join_w);
	}
	live_asks_release(s);
	warnings_release(&s->objects_w);
	model_names_release(&s->strings);
	free(s->scheme_units);
	free(s->pods);
	free(s->free_pods);
	free(s->table);
	free(s->shown_rec);
	free(s->nodes);
	free(s->touched);
	free(s->node_acc);
	free(s);
	memset(l, 0, sizeof(*l));
}

/* --- pods --------------------------------------------------------------------- */

static void node_recs_remove(struct live_node *ln, size_t rec)
{
	for (size_t i = 0; i < ln->nrecs; i++) {
		if (ln->recs[i] == rec) {
			ln->recs[i] = ln->recs[--ln->nrecs];
			return;
		}
	}
}

static int node_recs_add(struct live_node *ln, size_t rec)
{
	size_t *nr = kube_array_grow(ln->recs, &ln->recs_cap, ln->nrecs + 1, sizeof(*nr), 8);

	if (!nr)
		return -1;
	ln->recs = nr;
	ln->recs[ln->nrecs++] = rec;
	return 0;
}

/* What the record put into the model taken out: its share of its node's
 * sums, the pod it shows, its request.  The record stays (empty). */
static void take_out(struct model_live *l, size_t ri)
{
	struct live_state *s = l->s;
	struct live_pod *r = &s->pods[ri];

	if (r->ask != LIVE_NONE)
		live_ask_drop(l, r);
	if (r->shown != LIVE_NONE) {
		if (r->counted)
			model_count_unscheduled(&l->m, &l->m.pods[r->shown], -1);
		r->counted = r->dirty = false;
		live_shown_remove(l, r->shown);
	}
	if (r->acc != LIVE_NONE) {
		model_fold_pod(&l->m.priv->accs[r->acc], r->gpus, r->ngpus, r->mem, r->core, -1);
		node_recs_remove(&s->nodes[r->acc], ri);
		/* cannot fail: the node was touched when the pod was put on it,
		 * or joined since with its live node made */
		live_touch(s, r->acc);
		r->acc = LIVE_NONE;
	}
	free(r->gpus);
	r->gpus = NULL;
	r->ngpus = 0;
	if (r->warnings) {
		warnings_release(r->warnings);
		free(r->warnings);
		r->warnings = NULL;
		s->warnings_dirty = true;
	}
	s->pending = true;
}

/* The pod the record shows, kept among m.pods; on no node it is listed
 * among the unscheduled and the waiting at once, and settled later. */
static int show_pod(struct model_live *l, size_t ri, const struct k8s_pod *pod, const struct pod_reading *rd)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	struct live_pod *r = &s->pods[ri];
	struct model_pod *np;
	size_t *ns, i = m->npods;

	np = kube_array_grow(m->pods, &m->priv->pods_cap, m->npods + 1, sizeof(*np), 256);
	if (!np)
		return -1;
	m->pods = np;
	ns = kube_array_grow(s->shown_rec, &s->shown_cap, m->npods + 1, sizeof(*ns), 256);
	if (!ns || model_fill_pod(m, &m->pods[i], pod, rd) < 0)
		return -1;
	s->shown_rec = ns;
	m->pods[i].uid = pod->uid && *pod->uid ? r->key : NULL;
	s->shown_rec[i] = ri;
	r->shown = i;
	m->npods++;
	if (rd->node)
		return 0;
	r->dirty = true;
	s->pods_dirty = true;
	if (live_list_insert(m, &m->unscheduled, &m->nunscheduled, &m->priv->unscheduled_cap, i) < 0)
		return -1;
	if (live_list_insert(m, &m->waiting, &m->nwaiting, &s->waiting_cap, i) < 0)
		return -1;
	r->waiting = true;
	return live_ask_take(l, r);
}

/* The reading put into the model under the record: its share folded into
 * its node's sums, and the pod shown where the options keep it. */
static int put_in(struct model_live *l, size_t ri, const struct k8s_pod *pod, struct pod_reading *rd)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	struct live_pod *r = &s->pods[ri];
	bool ns_ok = model_pod_in_namespace(m, pod);

	if (!rd->node && !ns_ok)
		return 0; /* on no node, in another namespace: not counted */
	/* the record owns the reading's GPUs; the pod shown gets a copy */
	r->gpus = rd->gpus;
	r->ngpus = rd->ngpus;
	r->mem = rd->sp.mem;
	r->core = rd->sp.core;
	if (rd->node) {
		struct node_acc *a = model_acc_get(m->priv, rd->node);
		struct live_node *ln;

		if (!a)
			goto fail;
		r->acc = (size_t)(a - m->priv->accs);
		if (!(ln = live_node_get(s, r->acc)) || live_touch(s, r->acc) < 0 ||
		    model_fold_pod(a, r->gpus, r->ngpus, r->mem, r->core, 1) < 0) {
			r->acc = LIVE_NONE;
			goto fail;
		}
		if (node_recs_add(ln, ri) < 0)
			goto fail;
	}
	if (ns_ok && (!rd->node || m->opts.keep_pods) && show_pod(l, ri, pod, rd) < 0)
		goto fail;
	rd->gpus = NULL;
	return 0;
fail:
	rd->gpus = NULL;
	return -1;
}

/* What the scheme said reading the pod, kept with its record. */
static int keep_warnings(struct live_state *s, struct live_pod *r, struct warnings *w)
{
	if (!w->len)
		return 0;
	if (!(r->warnings = malloc(sizeof(*r->warnings)))) {
		warnings_release(w);
		return -1;
	}
	*r->warnings = *w;
	memset(w, 0, sizeof(*w));
	s->warnings_dirty = true;
	return 0;
}

int model_live_put_pod(struct model_live *l, const struct k8s_pod *pod, struct kerr *err)
{
	struct live_state *s = l->s;
	struct warnings w = {0};
	struct pod_reading rd = {0};
	struct live_pod *r;
	size_t ri;
	char *key;
	int rc = 0;

	if (!pod || !(key = live_pod_key(pod->namespace, pod->name, pod->uid)))
		return pod ? oom(err) : 0;
	r = live_pod_find(s, key, &ri);
	if (r && same_string(r->rv, pod->resource_version)) {
		/* a list after 410 delivering what is held already */
		r->gen = s->gen[OBJ_POD];
		free(key);
		return 0;
	}
	if (!(pod->node_name && !model_node_selected(&l->m, pod->node_name)))
		rc = model_read_pod(&l->m, pod, &rd, &w);
	if (r)
		take_out(l, ri);
	if (rc < 0 || (rc == 0 && !w.len)) {
		/* not a pod the model counts (or no memory to read it) */
		if (r)
			live_pod_remove(s, ri);
		goto out;
	}
	if (!r && !(r = live_pod_add(s, key, &ri))) {
		rc = -1;
		goto out;
	}
	free(r->rv);
	r->rv = xstrdup(pod->resource_version);
	r->gen = s->gen[OBJ_POD];
	s->pending = true;
	if ((pod->resource_version && !r->rv) || keep_warnings(s, r, &w) < 0 || (rc > 0 && put_in(l, ri, pod, &rd) < 0))
		rc = -1;
out:
	warnings_release(&w);
	model_pod_reading_release(&rd);
	free(key);
	return rc < 0 ? oom(err) : 0;
}

int model_live_delete_pod(struct model_live *l, const struct k8s_pod *pod, struct kerr *err)
{
	char *key;
	size_t ri;

	if (!pod)
		return 0;
	if (!(key = live_pod_key(pod->namespace, pod->name, pod->uid)))
		return oom(err);
	if (live_pod_find(l->s, key, &ri)) {
		take_out(l, ri);
		live_pod_remove(l->s, ri);
	}
	free(key);
	return 0;
}

/* --- nodes --------------------------------------------------------------------- */

/* The pods a node listed: no longer listed, nor waiting (the node is gone,
 * or no longer shares its GPUs). */
static void unlist_node_pods(struct model_live *l, struct model_node *n)
{
	struct model *m = &l->m;

	for (size_t i = 0; i < n->npods; i++) {
		struct live_pod *r = &l->s->pods[l->s->shown_rec[n->pods[i]]];

		if (r->waiting) {
			live_list_remove(m, m->waiting, &m->nwaiting, n->pods[i]);
			r->waiting = false;
		}
		free(m->pods[n->pods[i]].pending_reason);
		m->pods[n->pods[i]].pending_reason = NULL;
	}
	n->npods = 0;
}

/* The node of accumulator ai taken out of m.nodes. */
static void remove_node(struct model_live *l, size_t ai)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	struct node_acc *a = &m->priv->accs[ai];
	size_t at = a->node;

	if (s->nodes[ai].counted)
		model_count_node(m, &m->nodes[at], -1);
	s->nodes[ai].counted = false;
	unlist_node_pods(l, &m->nodes[at]);
	model_node_free_fields(&m->nodes[at]);
	memmove(&m->nodes[at], &m->nodes[at + 1], (m->nnodes - at - 1) * sizeof(*m->nodes));
	m->nnodes--;
	for (size_t i = 0; i < m->priv->naccs; i++)
		if (m->priv->accs[i].shares && m->priv->accs[i].node > at)
			m->priv->accs[i].node--;
	a->shares = false;
	/* positions moved: every request is judged again */
	s->nodes_moved = true;
}

/* A node read again that still shares: the new reading in the old one's
 * place (its position, its GPUs' figures of memory in use until joined). */
static void replace_node(struct model_live *l, size_t ai, struct model_node *fresh)
{
	struct model *m = &l->m;
	struct model_node *n = &m->nodes[m->priv->accs[ai].node];

	if (l->s->nodes[ai].counted)
		model_count_node(m, n, -1);
	l->s->nodes[ai].counted = false;
	fresh->gpus = n->gpus;
	fresh->ngpus = n->ngpus;
	fresh->pods = n->pods;
	fresh->npods = n->npods;
	fresh->used_bytes = n->used_bytes;
	fresh->gpus_used_known = n->gpus_used_known;
	n->gpus = NULL;
	n->pods = NULL;
	model_node_free_fields(n);
	*n = *fresh;
}

static int append_node(struct model_live *l, size_t ai, struct model_node *fresh)
{
	struct model *m = &l->m;
	struct model_node *nn = kube_array_grow(m->nodes, &m->priv->nodes_cap, m->nnodes + 1, sizeof(*nn), 64);

	if (!nn)
		return -1;
	m->nodes = nn;
	m->nodes[m->nnodes] = *fresh;
	m->priv->accs[ai].node = m->nnodes++;
	m->priv->accs[ai].shares = true;
	/* sorted by name at the next settle */
	l->s->nodes_moved = true;
	return 0;
}

/* The node object of accumulator ai replaced by node (NULL: gone). */
static int node_change(struct model_live *l, size_t ai, const struct k8s_node *node)
{
	struct live_state *s = l->s;
	struct live_node *ln = &s->nodes[ai];
	struct node_acc *a = &l->m.priv->accs[ai];
	struct model_node fresh;
	struct warnings w = {0};
	int rc = 0;

	if (node && (rc = model_read_node(&l->m, node, &fresh, &w)) < 0) {
		warnings_release(&w);
		return -1;
	}
	warnings_release(&ln->read_w);
	ln->read_w = w;
	if (a->shares && rc > 0)
		replace_node(l, ai, &fresh);
	else if (a->shares)
		remove_node(l, ai);
	else if (rc > 0 && append_node(l, ai, &fresh) < 0) {
		model_node_free_fields(&fresh);
		return -1;
	}
	a->have_node = node != NULL;
	free(ln->uid);
	free(ln->rv);
	ln->uid = node ? xstrdup(node->uid) : NULL;
	ln->rv = node ? xstrdup(node->resource_version) : NULL;
	ln->gen = s->gen[OBJ_NODE];
	s->nodes_changed = s->warnings_dirty = true;
	return live_touch(s, ai);
}

/* The accumulator and live node of a node name; -1 when out of memory. */
static long node_index(struct model_live *l, const char *name)
{
	struct node_acc *a = model_acc_get(l->m.priv, name);
	long ai = a ? (long)(a - l->m.priv->accs) : -1;

	return ai >= 0 && live_node_get(l->s, (size_t)ai) ? ai : -1;
}

int model_live_put_node(struct model_live *l, const struct k8s_node *node, struct kerr *err)
{
	struct live_node *ln;
	long ai;

	if (!node || !node->name || !model_node_selected(&l->m, node->name))
		return 0;
	if ((ai = node_index(l, node->name)) < 0)
		return oom(err);
	ln = &l->s->nodes[ai];
	if (l->m.priv->accs[ai].have_node && same_string(ln->rv, node->resource_version) &&
	    (same_string(ln->uid, node->uid) || (!ln->uid && !node->uid))) {
		ln->gen = l->s->gen[OBJ_NODE];
		return 0;
	}
	return node_change(l, (size_t)ai, node) < 0 ? oom(err) : 0;
}

int model_live_delete_node(struct model_live *l, const struct k8s_node *node, struct kerr *err)
{
	long i;

	if (!node || !node->name || (i = model_names_find(&l->m.priv->acc_names, node->name)) < 0 ||
	    !l->m.priv->accs[i].have_node || (size_t)i >= l->s->nnodes)
		return 0;
	return node_change(l, (size_t)i, NULL) < 0 ? oom(err) : 0;
}

/* --- lists ----------------------------------------------------------------------- */

void model_live_list_begin(struct model_live *l, enum obj_kind kind)
{
	l->s->gen[kind == OBJ_NODE ? OBJ_NODE : OBJ_POD]++;
}

int model_live_list_end(struct model_live *l, enum obj_kind kind, struct kerr *err)
{
	struct live_state *s = l->s;

	if (kind == OBJ_NODE) {
		for (size_t i = 0; i < s->nnodes && i < l->m.priv->naccs; i++)
			if (l->m.priv->accs[i].have_node && s->nodes[i].gen != s->gen[OBJ_NODE] &&
			    node_change(l, i, NULL) < 0)
				return oom(err);
		return 0;
	}
	for (size_t i = 0; i < s->npods; i++) {
		if (s->pods[i].key && s->pods[i].gen != s->gen[OBJ_POD]) {
			take_out(l, i);
			live_pod_remove(s, i);
		}
	}
	return 0;
}

/* --- the objects beside nodes and pods ------------------------------------------ */

static void forget_rv(char **rv)
{
	free(*rv);
	*rv = NULL;
}

void model_live_forget_node(struct model_live *l, const char *name)
{
	struct live_state *s = l->s;
	long at = name ? model_names_find(&l->m.priv->acc_names, name) : -1;

	for (size_t i = 0; i < s->nnodes; i++) {
		if (name && (long)i != at)
			continue;
		forget_rv(&s->nodes[i].rv);
		for (size_t k = 0; k < s->nodes[i].nrecs; k++)
			forget_rv(&s->pods[s->nodes[i].recs[k]].rv);
	}
	/* a pending pod's claims may be the ones that changed */
	for (size_t i = 0; i < s->npods; i++)
		if (s->pods[i].key && s->pods[i].acc == LIVE_NONE)
			forget_rv(&s->pods[i].rv);
}

void model_live_set_object_warnings(struct model_live *l, const struct warnings *w)
{
	struct live_state *s = l->s;

	warnings_release(&s->objects_w);
	if (w)
		model_append_warnings(&s->objects_w, w);
	s->warnings_dirty = s->pending = true;
}

bool model_live_pending(const struct model_live *l)
{
	return l->s->pending;
}
