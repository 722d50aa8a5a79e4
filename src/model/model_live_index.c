/* The live model's records: pods by key in an open-addressing table over
 * reusable slots, a live node per accumulator, and the index lists of the
 * model kept in namespace/name order as pods come and go. */
#include "model_live_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

char *live_pod_key(const char *ns, const char *name, const char *uid)
{
	char *key = NULL;

	if (uid && *uid)
		return strdup(uid);
	if (asprintf(&key, "%s/%s", ns ? ns : "", name ? name : "") < 0)
		return NULL;
	return key;
}

/* The table's slot of key: where it is, or the empty one where it would go. */
static size_t table_slot(const struct live_state *s, const char *key)
{
	size_t mask = s->table_size - 1, j = hash_key(key) & mask;

	while (s->table[j] && strcmp(s->pods[s->table[j] - 1].key, key) != 0)
		j = (j + 1) & mask;
	return j;
}

static int table_grow(struct live_state *s)
{
	size_t size = s->table_size ? s->table_size * 2 : 256, *old = s->table, old_size = s->table_size;

	s->table = calloc(size, sizeof(*s->table));
	if (!s->table) {
		s->table = old;
		return -1;
	}
	s->table_size = size;
	for (size_t i = 0; i < old_size; i++)
		if (old[i])
			s->table[table_slot(s, s->pods[old[i] - 1].key)] = old[i];
	free(old);
	return 0;
}

struct live_pod *live_pod_find(struct live_state *s, const char *key, size_t *ret_index)
{
	size_t j;

	if (!s->table_size)
		return NULL;
	j = table_slot(s, key);
	if (!s->table[j])
		return NULL;
	*ret_index = s->table[j] - 1;
	return &s->pods[*ret_index];
}

struct live_pod *live_pod_add(struct live_state *s, const char *key, size_t *ret_index)
{
	struct live_pod *np;
	size_t i;

	if ((s->table_used + 1) * 2 > s->table_size && table_grow(s) < 0)
		return NULL;
	if (s->nfree) {
		i = s->free_pods[s->nfree - 1];
	} else {
		np = kube_array_grow(s->pods, &s->pods_cap, s->npods + 1, sizeof(*np), 256);
		if (!np)
			return NULL;
		s->pods = np;
		i = s->npods;
	}
	memset(&s->pods[i], 0, sizeof(s->pods[i]));
	if (!(s->pods[i].key = strdup(key)))
		return NULL;
	if (s->nfree)
		s->nfree--;
	else
		s->npods++;
	s->pods[i].acc = s->pods[i].shown = s->pods[i].ask = LIVE_NONE;
	s->table[table_slot(s, key)] = i + 1;
	s->table_used++;
	*ret_index = i;
	return &s->pods[i];
}

/* Linear probing: the entries after a removed one that would no longer be
 * found are moved back into the gap. */
static void table_delete(struct live_state *s, size_t j)
{
	size_t mask = s->table_size - 1, k = j;

	s->table[j] = 0;
	for (;;) {
		size_t home;

		k = (k + 1) & mask;
		if (!s->table[k])
			break;
		home = hash_key(s->pods[s->table[k] - 1].key) & mask;
		/* the entry at k stays where it is when its home lies in (j, k] */
		if (j <= k ? (home > j && home <= k) : (home > j || home <= k))
			continue;
		s->table[j] = s->table[k];
		s->table[k] = 0;
		j = k;
	}
	s->table_used--;
}

void live_pod_remove(struct live_state *s, size_t index)
{
	struct live_pod *r = &s->pods[index];
	size_t *nf;

	table_delete(s, table_slot(s, r->key));
	free(r->key);
	free(r->rv);
	free(r->gpus);
	if (r->warnings) {
		warnings_release(r->warnings);
		free(r->warnings);
	}
	memset(r, 0, sizeof(*r));
	nf = kube_array_grow(s->free_pods, &s->free_cap, s->nfree + 1, sizeof(*nf), 64);
	if (nf) {
		s->free_pods = nf;
		s->free_pods[s->nfree++] = index;
	}
	/* else the slot is not reused: a few bytes lost, nothing wrong */
}

struct live_node *live_node_get(struct live_state *s, size_t acc)
{
	if (acc >= s->nnodes) {
		struct live_node *nn = kube_array_grow(s->nodes, &s->nodes_cap, acc + 1, sizeof(*nn), 64);

		if (!nn)
			return NULL;
		s->nodes = nn;
		memset(&s->nodes[s->nnodes], 0, (acc + 1 - s->nnodes) * sizeof(*nn));
		s->nnodes = acc + 1;
	}
	return &s->nodes[acc];
}

int live_touch(struct live_state *s, size_t acc)
{
	struct live_node *ln = live_node_get(s, acc);
	size_t *nt;

	if (!ln)
		return -1;
	s->pending = true;
	if (ln->touched)
		return 0;
	nt = kube_array_grow(s->touched, &s->touched_cap, s->ntouched + 1, sizeof(*nt), 64);
	if (!nt)
		return -1;
	s->touched = nt;
	s->touched[s->ntouched++] = acc;
	ln->touched = true;
	return 0;
}

int cmp_pod_order(const struct model_pod *x, const struct model_pod *y)
{
	int c = strcmp(x->namespace, y->namespace);

	if (!c)
		c = strcmp(x->name, y->name);
	/* two pods of one name (one deleted, its successor created): by uid */
	if (!c && x->uid && y->uid)
		c = strcmp(x->uid, y->uid);
	return c;
}

/* The first position of list whose pod does not sort before m.pods[pod]. */
static size_t list_bound(const struct model *m, const size_t *list, size_t n, size_t pod)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_pod_order(&m->pods[list[mid]], &m->pods[pod]) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int live_list_insert(const struct model *m, size_t **list, size_t *n, size_t *cap, size_t pod)
{
	size_t *nl = kube_array_grow(*list, cap, *n + 1, sizeof(*nl), 16), at;

	if (!nl)
		return -1;
	*list = nl;
	at = list_bound(m, nl, *n, pod);
	memmove(&nl[at + 1], &nl[at], (*n - at) * sizeof(*nl));
	nl[at] = pod;
	(*n)++;
	return 0;
}

/* The position of pod in an ordered list, or n. */
static size_t list_find(const struct model *m, const size_t *list, size_t n, size_t pod)
{
	for (size_t at = list_bound(m, list, n, pod); at < n; at++) {
		if (list[at] == pod)
			return at;
		if (cmp_pod_order(&m->pods[list[at]], &m->pods[pod]) != 0)
			break;
	}
	return n;
}

void live_list_remove(const struct model *m, size_t *list, size_t *n, size_t pod)
{
	size_t at = list_find(m, list, *n, pod);

	if (at == *n)
		return;
	memmove(&list[at], &list[at + 1], (*n - at - 1) * sizeof(*list));
	(*n)--;
}

/* The node whose pod list may hold a record's pod, or NULL. */
static struct model_node *listing_node(struct model_live *l, const struct live_pod *r)
{
	const struct node_acc *a;

	if (r->acc == LIVE_NONE)
		return NULL;
	a = &l->m.priv->accs[r->acc];
	return a->shares ? &l->m.nodes[a->node] : NULL;
}

/* A pod's index in the lists that hold it, changed to another. */
static void relist(struct model_live *l, const struct live_pod *r, size_t from, size_t to)
{
	struct model *m = &l->m;
	struct model_node *n = listing_node(l, r);
	size_t at;

	if (r->acc == LIVE_NONE && (at = list_find(m, m->unscheduled, m->nunscheduled, from)) < m->nunscheduled)
		m->unscheduled[at] = to;
	if (r->waiting && (at = list_find(m, m->waiting, m->nwaiting, from)) < m->nwaiting)
		m->waiting[at] = to;
	for (size_t i = 0; n && i < n->npods; i++)
		if (n->pods[i] == from)
			n->pods[i] = to;
}

void live_shown_remove(struct model_live *l, size_t shown)
{
	struct live_state *s = l->s;
	struct model *m = &l->m;
	struct live_pod *r = &s->pods[s->shown_rec[shown]];
	struct model_node *n = listing_node(l, r);
	size_t last = m->npods - 1;

	if (r->acc == LIVE_NONE)
		live_list_remove(m, m->unscheduled, &m->nunscheduled, shown);
	if (r->waiting)
		live_list_remove(m, m->waiting, &m->nwaiting, shown);
	for (size_t i = 0; n && i < n->npods; i++) {
		if (n->pods[i] == shown) {
			memmove(&n->pods[i], &n->pods[i + 1], (n->npods - i - 1) * sizeof(*n->pods));
			n->npods--;
			break;
		}
	}
	r->waiting = false;
	r->shown = LIVE_NONE;
	model_pod_release(m, &m->pods[shown]);
	if (shown != last) {
		struct live_pod *moved = &s->pods[s->shown_rec[last]];

		/* found in the lists by its old index while it is still there */
		relist(l, moved, last, shown);
		m->pods[shown] = m->pods[last];
		s->shown_rec[shown] = s->shown_rec[last];
		moved->shown = shown;
	}
	m->npods--;
}
