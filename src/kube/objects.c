#include "objects.h"

#include <stdlib.h>
#include <string.h>

static char *copy_bytes(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Searched from the end: a JSON map with a key written twice keeps the last
 * value, as the API server's own decoder does, without a quadratic check on
 * every insertion. */
const char *kvlist_get(const struct kvlist *l, const char *key)
{
	if (!l || !key)
		return NULL;
	for (size_t i = l->len; i-- > 0;)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].value;
	return NULL;
}

int kvlist_add(struct kvlist *l, const char *key, size_t keylen, const char *value, size_t valuelen)
{
	struct kv kv;

	if (!l || !key)
		return -1;
	if (l->len == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		struct kv *items;

		if (cap > SIZE_MAX / sizeof(*items))
			return -1;
		items = realloc(l->items, cap * sizeof(*items));
		if (!items)
			return -1;
		l->items = items;
		l->cap = cap;
	}
	kv.key = copy_bytes(key, keylen);
	kv.value = copy_bytes(value ? value : "", value ? valuelen : 0);
	if (!kv.key || !kv.value) {
		free(kv.key);
		free(kv.value);
		return -1;
	}
	l->items[l->len++] = kv;
	return 0;
}

void kvlist_release(struct kvlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->len; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

bool decode_filter_match(const char *const *patterns, const char *key, size_t keylen)
{
	if (!patterns || !key)
		return false;
	for (; *patterns; patterns++) {
		const char *p = *patterns;
		size_t plen = strlen(p);

		if (plen && p[plen - 1] == '*') {
			plen--;
			if (keylen >= plen && memcmp(key, p, plen) == 0)
				return true;
		} else if (keylen == plen && memcmp(key, p, plen) == 0) {
			return true;
		}
	}
	return false;
}

static size_t count_patterns(const char *const *p)
{
	size_t n = 0;

	while (p && p[n])
		n++;
	return n;
}

/* NULL stays NULL (keep nothing) unless one side has patterns; the result is
 * always a fresh array so that decode_filter_release() can free it. */
static int union_patterns(const char *const **ret, const char *const *a, const char *const *b)
{
	size_t na = count_patterns(a), nb = count_patterns(b);
	const char **out;

	*ret = NULL;
	if (!a && !b)
		return 0;
	out = calloc(na + nb + 1, sizeof(*out));
	if (!out)
		return -1;
	for (size_t i = 0; i < na; i++)
		out[i] = a[i];
	for (size_t i = 0; i < nb; i++)
		out[na + i] = b[i];
	*ret = out;
	return 0;
}

int decode_filter_union(struct decode_filter *ret, const struct decode_filter *a,
			const struct decode_filter *b)
{
	static const struct decode_filter none;
	struct decode_filter f = {0};

	if (!ret)
		return -1;
	if (!a)
		a = &none;
	if (!b)
		b = &none;
	if (union_patterns(&f.label_keys, a->label_keys, b->label_keys) < 0 ||
	    union_patterns(&f.annotation_keys, a->annotation_keys, b->annotation_keys) < 0 ||
	    union_patterns(&f.resource_names, a->resource_names, b->resource_names) < 0 ||
	    union_patterns(&f.node_keys, a->node_keys, b->node_keys) < 0) {
		decode_filter_release(&f);
		return -1;
	}
	f.all_labels = a->all_labels || b->all_labels;
	f.all_annotations = a->all_annotations || b->all_annotations;
	f.all_resources = a->all_resources || b->all_resources;
	*ret = f;
	return 0;
}

void decode_filter_release(struct decode_filter *f)
{
	if (!f)
		return;
	/* The arrays were allocated by decode_filter_union(); the strings in
	 * them belong to the filters it was given. */
	free((void *)f->label_keys);
	free((void *)f->annotation_keys);
	free((void *)f->resource_names);
	free((void *)f->node_keys);
	memset(f, 0, sizeof(*f));
}

void k8s_node_free(struct k8s_node *n)
{
	if (!n)
		return;
	free(n->name);
	free(n->uid);
	free(n->resource_version);
	free(n->creation_timestamp);
	free(n->internal_ip);
	kvlist_release(&n->labels);
	kvlist_release(&n->annotations);
	kvlist_release(&n->capacity);
	kvlist_release(&n->allocatable);
	free(n);
}

void k8s_pod_free(struct k8s_pod *p)
{
	if (!p)
		return;
	free(p->namespace);
	free(p->name);
	free(p->uid);
	free(p->resource_version);
	free(p->creation_timestamp);
	free(p->node_name);
	free(p->phase);
	free(p->scheduler_name);
	kvlist_release(&p->labels);
	kvlist_release(&p->node_keys);
	kvlist_release(&p->annotations);
	for (size_t i = 0; i < p->ncontainers; i++) {
		free(p->containers[i].name);
		kvlist_release(&p->containers[i].limits);
	}
	free(p->containers);
	for (size_t i = 0; i < p->nowners; i++) {
		free(p->owners[i].kind);
		free(p->owners[i].name);
		free(p->owners[i].uid);
	}
	free(p->owners);
	free(p);
}
