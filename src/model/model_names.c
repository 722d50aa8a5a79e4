/* Strings stored once: an open-addressing table of FNV-1a hashes over an
 * array that keeps the order strings were added in. */
#include "model_names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube.h"

static uint64_t hash(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static bool same(const char *s, const char *p, size_t n)
{
	return strncmp(s, p, n) == 0 && s[n] == '\0';
}

static int grow(struct model_names *t)
{
	size_t nsize = t->size ? t->size * 2 : 64;
	size_t *nt = calloc(nsize, sizeof(*nt));

	if (!nt)
		return -1;
	for (size_t i = 0; i < t->len; i++) {
		size_t j = hash(t->v[i], strlen(t->v[i])) & (nsize - 1);

		while (nt[j])
			j = (j + 1) & (nsize - 1);
		nt[j] = i + 1;
	}
	free(t->table);
	t->table = nt;
	t->size = nsize;
	return 0;
}

/* The slot of p[0..n): where it is, or the empty one where it would go. */
static size_t slot(const struct model_names *t, const char *p, size_t n)
{
	size_t j = hash(p, n) & (t->size - 1);

	while (t->table[j] && !same(t->v[t->table[j] - 1], p, n))
		j = (j + 1) & (t->size - 1);
	return j;
}

long model_names_add(struct model_names *t, const char *p, size_t n)
{
	char **nv, *copy;
	size_t j;

	if ((t->len + 1) * 2 > t->size && grow(t) < 0)
		return -1;
	j = slot(t, p, n);
	if (t->table[j])
		return (long)t->table[j] - 1;
	nv = kube_array_grow(t->v, &t->cap, t->len + 1, sizeof(*nv), 16);
	if (!nv)
		return -1;
	t->v = nv;
	if (!(copy = malloc(n + 1)))
		return -1;
	memcpy(copy, p, n);
	copy[n] = '\0';
	t->v[t->len] = copy;
	t->table[j] = ++t->len;
	return (long)t->len - 1;
}

long model_names_find(const struct model_names *t, const char *s)
{
	size_t j;

	if (!t->size)
		return -1;
	j = slot(t, s, strlen(s));
	return t->table[j] ? (long)t->table[j] - 1 : -1;
}

void model_names_release(struct model_names *t)
{
	for (size_t i = 0; i < t->len; i++)
		free(t->v[i]);
	free(t->v);
	free(t->table);
	memset(t, 0, sizeof(*t));
}
