/* ResourceClaims folded into small records (dra_claim.h). */
#include "dra_claim.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE (64 * 1024)
/* the records hold pointers, sizes and 64-bit integers: nothing needs more */
#define ARENA_ALIGN 8
_Static_assert(_Alignof(struct dra_claim) <= ARENA_ALIGN && _Alignof(struct dra_sharing) <= ARENA_ALIGN,
	       "arena alignment");
#define CAPACITY_MEMORY "memory"
#define ASK_MAX 65536

struct dra_arena_block {
	struct dra_arena_block *next;
	size_t size;
	uint64_t data[];
};

/* n bytes from the newest block, or from a new one; NULL when out of memory. */
static void *arena_alloc(struct dra_arena *a, size_t n)
{
	struct dra_arena_block *b;
	bool own = n > BLOCK_SIZE / 4;
	size_t size;

	n = (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
	if (a->blocks && a->blocks->size - a->used >= n) {
		a->used += n;
		return (char *)a->blocks->data + a->used - n;
	}
	size = own ? n : BLOCK_SIZE;
	if (!(b = malloc(sizeof(*b) + size)))
		return NULL;
	b->size = size;
	a->bytes += size;
	/* a large record gets a block of its own, behind the one being filled */
	if (own && a->blocks) {
		b->next = a->blocks->next;
		a->blocks->next = b;
		return b->data;
	}
	b->next = a->blocks;
	a->blocks = b;
	a->used = n;
	return b->data;
}

static void *arena_calloc(struct dra_arena *a, size_t n, size_t size, bool *oom)
{
	void *p;

	if (!n)
		return NULL;
	if (size && n > SIZE_MAX / size) {
		*oom = true;
		return NULL;
	}
	if ((p = arena_alloc(a, n * size)))
		memset(p, 0, n * size);
	else
		*oom = true;
	return p;
}

static const char *arena_strdup(struct dra_arena *a, const char *s, bool *oom)
{
	size_t n;
	char *p;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	if (!(p = arena_alloc(a, n))) {
		*oom = true;
		return NULL;
	}
	return memcpy(p, s, n);
}

static size_t str_hash(const char *s)
{
	size_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The table twice as long, its strings placed again. */
static int strings_grow(struct dra_arena *a)
{
	size_t cap = a->cap_strings ? a->cap_strings * 2 : 256;
	const char **t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < a->cap_strings; i++) {
		size_t j;

		if (!a->strings[i])
			continue;
		for (j = str_hash(a->strings[i]) & (cap - 1); t[j]; j = (j + 1) & (cap - 1))
			;
		t[j] = a->strings[i];
	}
	free(a->strings);
	a->strings = t;
	a->cap_strings = cap;
	return 0;
}

const char *dra_arena_intern(struct dra_arena *a, const char *s, bool *oom)
{
	size_t j;

	if (!s)
		return NULL;
	/* at most half full: probes stay short */
	if (2 * (a->nstrings + 1) > a->cap_strings && strings_grow(a) < 0) {
		*oom = true;
		return NULL;
	}
	for (j = str_hash(s) & (a->cap_strings - 1); a->strings[j]; j = (j + 1) & (a->cap_strings - 1))
		if (strcmp(a->strings[j], s) == 0)
			return a->strings[j];
	if (!(a->strings[j] = arena_strdup(a, s, oom)))
		return NULL;
	a->nstrings++;
	return a->strings[j];
}

const char *dra_arena_find(const struct dra_arena *a, const char *s)
{
	if (!s || !a->cap_strings)
		return NULL;
	for (size_t j = str_hash(s) & (a->cap_strings - 1); a->strings[j]; j = (j + 1) & (a->cap_strings - 1))
		if (strcmp(a->strings[j], s) == 0)
			return a->strings[j];
	return NULL;
}

void dra_arena_release(struct dra_arena *a)
{
	while (a->blocks) {
		struct dra_arena_block *b = a->blocks;

		a->blocks = b->next;
		free(b);
	}
	free(a->strings);
	memset(a, 0, sizeof(*a));
}

static int64_t memory_bytes(const struct kvlist *consumed)
{
	const char *q = kvlist_get(consumed, CAPACITY_MEMORY);
	int64_t v;

	return q && quantity_parse_int(q, &v) == 0 ? v : 0;
}

static void results_fold(struct dra_arena *a, struct dra_claim *out, const struct k8s_resource_claim *c, bool *oom)
{
	if (!(out->results = arena_calloc(a, c->nresults, sizeof(*out->results), oom)))
		return;
	out->nresults = c->nresults;
	for (size_t i = 0; i < c->nresults; i++) {
		const struct k8s_dra_result *r = &c->results[i];
		struct dra_claim_result *o = &out->results[i];

		o->request = dra_arena_intern(a, r->request, oom);
		o->driver = dra_arena_intern(a, r->driver, oom);
		o->pool = dra_arena_intern(a, r->pool, oom);
		o->device = dra_arena_intern(a, r->device, oom);
		o->mem_consumed = memory_bytes(&r->consumed);
	}
}

/* The allocation's configurations: what they say of sharing, and whom they apply to. */
static void configs_fold(struct dra_arena *a, struct dra_claim *out, const struct k8s_resource_claim *c, bool *oom)
{
	if (!(out->configs = arena_calloc(a, c->nalloc_configs, sizeof(*out->configs), oom)))
		return;
	out->nconfigs = c->nalloc_configs;
	for (size_t i = 0; i < c->nalloc_configs; i++) {
		const struct k8s_dra_config *k = &c->alloc_configs[i];
		struct dra_sharing *o = &out->configs[i];

		o->from_claim = k->source && strcmp(k->source, "FromClaim") == 0;
		if ((o->requests = arena_calloc(a, k->nrequests, sizeof(*o->requests), oom)))
			o->nrequests = k->nrequests;
		for (size_t j = 0; j < o->nrequests; j++)
			o->requests[j] = dra_arena_intern(a, k->requests[j], oom);
		o->driver = dra_arena_intern(a, k->driver, oom);
		o->strategy = dra_arena_intern(a, k->strategy, oom);
		o->interval = dra_arena_intern(a, k->interval, oom);
		o->mps_memory_limit = dra_arena_intern(a, k->mps_memory_limit, oom);
		o->mps_threads = k->mps_threads;
		o->has_mps_threads = k->has_mps_threads;
	}
}

struct dra_claim *dra_claim_fold(struct dra_arena *a, const struct k8s_resource_claim *c)
{
	bool oom = false;
	struct dra_claim *out = arena_calloc(a, 1, sizeof(*out), &oom);

	if (!out)
		return NULL;
	out->namespace = dra_arena_intern(a, c->namespace, &oom);
	out->name = arena_strdup(a, c->name, &oom);
	out->resource_version = arena_strdup(a, c->resource_version, &oom);
	out->deleting = c->deleting;
	/* a request without a count asks one device; the sum saturates (the scheme bounds it further) */
	for (size_t i = 0; i < c->nrequests; i++) {
		int64_t n = c->requests[i].count > 0 ? c->requests[i].count : 1;

		out->ask_gpus = n > ASK_MAX - out->ask_gpus ? ASK_MAX : out->ask_gpus + (int)n;
	}
	results_fold(a, out, c, &oom);
	configs_fold(a, out, c, &oom);
	if ((out->reserved = arena_calloc(a, c->nreserved, sizeof(*out->reserved), &oom)))
		out->nreserved = c->nreserved;
	for (size_t i = 0; i < out->nreserved; i++)
		out->reserved[i].name = arena_strdup(a, c->reserved[i].name, &oom);
	/* what was cut from the arena stays there until it is released */
	return oom ? NULL : out;
}
