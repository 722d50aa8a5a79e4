/* Small parsing helpers shared by the scheme decoders that read device
 * lists out of annotations (cce, volcano-vgpu, hami, nvidia).
 *
 * The small helpers are static inline so that they need no build entry of
 * their own; unused ones cost nothing.  The larger pieces shared by the
 * HAMi family, declared at the end, live in scheme_devices.c.
 *
 * Annotation values come from the API server and may hold anything
 * (truncated lists, huge numbers, bytes that are not UTF-8), so every
 * reader works on bounded spans, never on fixed-size buffers, and never
 * trusts a number before range-checking it.
 *
 * Uses the client's object structs (kube.h) and warnings.h.
 */
#ifndef SCHEME_UTIL_H
#define SCHEME_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include "kube.h"
#include "scheme.h"
#include "warnings.h"

/* Upper bounds for figures read from annotations: far above any real GPU,
 * low enough that sums over thousands of pods cannot overflow int64_t. */
#define SCHEME_MAX_MIB ((int64_t)1 << 32)   /* 4 PiB of GPU memory */
#define SCHEME_MAX_COUNT ((int64_t)1 << 20) /* slots, percent, devices */
#define SCHEME_MAX_DEVICES 4096		    /* devices in one register annotation */

/* A read-only view of part of a string. */
struct sspan {
	const char *p;
	size_t n;
};

static inline struct sspan sspan_of(const char *s)
{
	struct sspan r = {s, s ? strlen(s) : 0};
	return r;
}

/* Cut the next field, up to sep, off *rest.  Returns false once *rest is
 * used up.  "a:b:" yields "a", "b" and a final empty field, so callers can
 * tell a trailing separator from a missing one. */
static inline bool sspan_split(struct sspan *rest, char sep, struct sspan *field)
{
	const char *e;

	if (!rest->p)
		return false;
	e = memchr(rest->p, sep, rest->n);
	if (!e) {
		*field = *rest;
		rest->p = NULL;
		rest->n = 0;
		return true;
	}
	field->p = rest->p;
	field->n = (size_t)(e - rest->p);
	rest->n -= field->n + 1;
	rest->p = e + 1;
	return true;
}

static inline struct sspan sspan_trim(struct sspan s)
{
	while (s.n && (s.p[0] == ' ' || s.p[0] == '\t' || s.p[0] == '\n' || s.p[0] == '\r')) {
		s.p++;
		s.n--;
	}
	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\n' ||
		       s.p[s.n - 1] == '\r'))
		s.n--;
	return s;
}

static inline bool sspan_eq(struct sspan s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* Count the fields sep would cut s into. */
static inline size_t sspan_count(struct sspan s, char sep)
{
	size_t n = 1;
	for (size_t i = 0; i < s.n; i++)
		n += s.p[i] == sep;
	return n;
}

/* A non-negative decimal integer no larger than max; -1 otherwise. */
static inline int sspan_int64(struct sspan s, int64_t max, int64_t *ret)
{
	int64_t v = 0;

	s = sspan_trim(s);
	if (s.n == 0)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		v = v * 10 + (s.p[i] - '0');
		if (v > max)
			return -1;
	}
	*ret = v;
	return 0;
}

/* Device names and card models are plain ASCII; anything else (control
 * bytes, bytes that are not UTF-8) would end up in tables and JSON, so such
 * a field makes the annotation malformed rather than being copied. */
static inline bool sspan_printable(struct sspan s, bool allow_space)
{
	if (s.n == 0)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (c > 0x7e || c < 0x20 || (c == ' ' && !allow_space))
			return false;
	}
	return true;
}

/* NULL on allocation failure. */
static inline char *sspan_dup(struct sspan s)
{
	char *r = malloc(s.n + 1);
	if (!r)
		return NULL;
	memcpy(r, s.p, s.n);
	r[s.n] = '\0';
	return r;
}

static inline bool str_is_printable(const char *s, bool allow_space)
{
	return s && sspan_printable(sspan_of(s), allow_space);
}

/* "node/NAME" or "pod/NS/NAME", malloc'd; NULL on allocation failure. */
static inline char *scheme_object_name(const char *kind, const char *ns, const char *name)
{
	const char *n = name ? name : "";
	size_t len = strlen(kind) + 1 + (ns ? strlen(ns) + 1 : 0) + strlen(n) + 1;
	char *r = malloc(len);

	if (!r)
		return NULL;
	if (ns)
		snprintf(r, len, "%s/%s/%s", kind, ns, n);
	else
		snprintf(r, len, "%s/%s", kind, n);
	return r;
}

__attribute__((format(printf, 4, 0))) static inline void scheme_vwarn(struct warnings *w, const char *code, const char *object,
				const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *msg;

	if (!w)
		return;
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	msg = malloc((size_t)n + 1);
	if (!msg)
		return;
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	warnings_add(w, code, object, "%s", msg);
	free(msg);
}

__attribute__((format(printf, 4, 5))) static inline void
scheme_warn_node(struct warnings *w, const char *code, const struct k8s_node *node, const char *fmt,
		 ...)
{
	va_list ap;
	char *obj = scheme_object_name("node", NULL, node->name);

	va_start(ap, fmt);
	scheme_vwarn(w, code, obj, fmt, ap);
	va_end(ap);
	free(obj);
}

__attribute__((format(printf, 4, 5))) static inline void
scheme_warn_pod(struct warnings *w, const char *code, const struct k8s_pod *pod, const char *fmt, ...)
{
	va_list ap;
	char *obj = scheme_object_name("pod", pod->namespace ? pod->namespace : "", pod->name);

	va_start(ap, fmt);
	scheme_vwarn(w, code, obj, fmt, ap);
	va_end(ap);
	free(obj);
}

/* A resource quantity from a node's or container's list.  1 and *ret set
 * when present and readable, 0 when absent, -1 when malformed or negative. */
static inline int scheme_quantity(const struct kvlist *l, const char *name, int64_t *ret)
{
	const char *v = kvlist_get(l, name);
	int64_t q;

	if (!v)
		return 0;
	if (quantity_parse_int(v, &q) < 0 || q < 0)
		return -1;
	*ret = q;
	return 1;
}

/* Whether the node lists the resource (allocatable or capacity). */
static inline bool scheme_node_has(const struct k8s_node *node, const char *res)
{
	return kvlist_get(&node->allocatable, res) || kvlist_get(&node->capacity, res);
}

/* Allocatable and capacity of one resource of a node, each at most max: a
 * side that is missing, malformed or larger takes the other's value (0 when
 * neither is usable), and a bad side raises one MalformedQuantity warning.
 * Returns whether the node lists the resource at all. */
static inline bool scheme_node_amounts(const struct k8s_node *node, const char *res, int64_t max,
				       int64_t *alloc, int64_t *cap, struct warnings *w)
{
	int ra = scheme_quantity(&node->allocatable, res, alloc);
	int rc = scheme_quantity(&node->capacity, res, cap);
	bool listed = ra != 0 || rc != 0;

	if (ra > 0 && *alloc > max)
		ra = -1;
	if (rc > 0 && *cap > max)
		rc = -1;
	if (ra < 0 || rc < 0)
		scheme_warn_node(w, "MalformedQuantity", node, "resource %s is not a usable quantity",
				 res);
	if (ra <= 0)
		*alloc = rc > 0 ? *cap : 0;
	if (rc <= 0)
		*cap = *alloc;
	return listed;
}

/* Whether a quantity names a whole number.  quantity_parse_int rounds
 * down, so "40.5" and "500m" would otherwise pass silently as 40 and 0. */
static inline bool scheme_quantity_whole(const char *s)
{
	const char *dot, *p;

	if (!s)
		return true;
	dot = strchr(s, '.');
	if (dot) {
		for (p = dot + 1; *p >= '0' && *p <= '9'; p++)
			if (*p != '0')
				return false;
	}
	p = s + strlen(s);
	if (p > s && (p[-1] == 'm' || p[-1] == 'u' || p[-1] == 'n')) {
		/* "2000m" is whole; "500m" is not.  Decimal milli/micro/nano
		 * suffixes are the only ones that shrink a value. */
		int64_t scale = p[-1] == 'm' ? 1000 : p[-1] == 'u' ? 1000000 : 1000000000;
		int64_t v = 0;
		if (dot)
			return false;
		for (const char *q = s; q < p - 1; q++) {
			if (*q < '0' || *q > '9')
				return true; /* not a plain number: leave it to the parser */
			if (v > INT64_MAX / 10 - 10)
				return true;
			v = v * 10 + (*q - '0');
		}
		return v % scale == 0;
	}
	return true;
}

/* Sum of one resource over a pod's containers, and each container's value
 * in per[] (when per is not NULL).  Returns how many containers name the
 * resource; malformed values count as present, read as 0, and are warned
 * about once per container. */
static inline size_t scheme_pod_sum(const struct k8s_pod *pod, const char *name, int64_t *per,
				    int64_t *sum, struct warnings *w)
{
	size_t found = 0;

	*sum = 0;
	for (size_t i = 0; i < pod->ncontainers; i++) {
		int64_t v = 0;
		int r = scheme_quantity(&pod->containers[i].limits, name, &v);

		if (r == 0)
			continue;
		found++;
		if (r < 0 || v > SCHEME_MAX_MIB) {
			scheme_warn_pod(w, "MalformedQuantity", pod,
					"container %s: limit %s is not a usable quantity",
					pod->containers[i].name ? pod->containers[i].name : "?", name);
			v = 0;
		}
		if (per)
			per[i] = v;
		*sum += v;
	}
	return found;
}

/* A UTC time in the client's timestamp layouts; times before 1970 are
 * taken for garbage, as no cluster wrote them. */
static inline int scheme_parse_utc(const char *s, char date_sep, char mid_sep, time_t *ret)
{
	long long t;

	if (kube_time_parse(s, date_sep, mid_sep, true, &t) < 0 || t < 0)
		return -1;
	*ret = (time_t)t;
	return 0;
}

/* The current time, for ages such as HAMi's handshake.  The environment
 * variable CGPU_NOW (seconds since the epoch, or "YYYY-MM-DDTHH:MM:SSZ")
 * pins it, so that tests and golden files do not depend on the clock. */
static inline time_t scheme_now(void)
{
	const char *s = getenv("CGPU_NOW");
	time_t t;

	if (s && *s) {
		int64_t v;
		if (sspan_int64(sspan_of(s), INT64_C(253402300799), &v) == 0)
			return (time_t)v;
		if (scheme_parse_utc(s, '-', 'T', &t) == 0)
			return t;
	}
	return time(NULL);
}

/* Device names (GPU UUIDs) handed out as scheme_claim.device_id are
 * interned: each distinct name is stored once and stays valid until the
 * process exits, so the model and the renderers may keep the pointer after
 * the pod and the scheme_pod are gone.  The set is bounded by the GPUs the
 * cluster names, not by the number of pods.  One table per scheme file;
 * freed at exit. */
struct scheme_intern_table {
	char **slots;
	size_t cap, len;
};

static inline struct scheme_intern_table *scheme_intern_table_get(void)
{
	static struct scheme_intern_table t;
	return &t;
}

static inline void scheme_intern_free(void)
{
	struct scheme_intern_table *t = scheme_intern_table_get();

	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i]);
	free(t->slots);
	t->slots = NULL;
	t->cap = t->len = 0;
}

static inline uint64_t scheme_intern_hash(const char *p, size_t n)
{
	uint64_t h = UINT64_C(1469598103934665603);
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * UINT64_C(1099511628211);
	return h;
}

static inline int scheme_intern_grow(struct scheme_intern_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64;
	char **ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i])
			continue;
		size_t j = scheme_intern_hash(t->slots[i], strlen(t->slots[i])) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

/* The interned copy of s; NULL when out of memory. */
static inline const char *scheme_intern(struct sspan s)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static bool registered;
	struct scheme_intern_table *t = scheme_intern_table_get();
	const char *ret = NULL;
	size_t j;

	pthread_mutex_lock(&lock);
	if (!registered)
		registered = atexit(scheme_intern_free) == 0;
	if ((t->len + 1) * 4 > t->cap * 3 && scheme_intern_grow(t) < 0)
		goto out;
	j = scheme_intern_hash(s.p, s.n) & (t->cap - 1);
	while (t->slots[j]) {
		if (strncmp(t->slots[j], s.p, s.n) == 0 && t->slots[j][s.n] == '\0') {
			ret = t->slots[j];
			goto out;
		}
		j = (j + 1) & (t->cap - 1);
	}
	t->slots[j] = sspan_dup(s);
	if (t->slots[j]) {
		t->len++;
		ret = t->slots[j];
	}
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

/* Claims collected while an annotation is read, then copied into the
 * scheme_pod in one allocation. */
struct claim_tmp {
	int container, gpu;
	struct sspan device; /* n == 0: no device named */
	int64_t mem, core;
};

struct claim_list {
	struct claim_tmp *v;
	size_t n, cap;
};

static inline int claim_list_add(struct claim_list *l, int container, int gpu, struct sspan device,
				 int64_t mem, int64_t core)
{
	struct claim_tmp *v = kube_array_grow(l->v, &l->cap, l->n + 1, sizeof(*v), 8);

	if (!v)
		return -1;
	l->v = v;
	l->v[l->n].container = container;
	l->v[l->n].gpu = gpu;
	l->v[l->n].device = device;
	l->v[l->n].mem = mem;
	l->v[l->n].core = core;
	l->n++;
	return 0;
}

static inline int claim_list_pack(struct claim_list *l, struct scheme_pod *out)
{
	struct scheme_claim *c;

	out->claims = NULL;
	out->nclaims = 0;
	if (l->n == 0)
		return 0;
	c = calloc(l->n, sizeof(*c));
	if (!c)
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		c[i].container = l->v[i].container;
		c[i].gpu = l->v[i].gpu;
		c[i].mem = l->v[i].mem;
		c[i].core = l->v[i].core;
		c[i].device_id = NULL;
		if (l->v[i].device.n) {
			c[i].device_id = scheme_intern(l->v[i].device);
			if (!c[i].device_id) {
				free(c);
				return -1;
			}
		}
	}
	out->claims = c;
	out->nclaims = l->n;
	return 0;
}

static inline void claim_list_release(struct claim_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* Per-container arrays for a scheme_pod, zeroed; NULL (and success) when
 * the pod has no containers. */
static inline int scheme_pod_alloc_containers(const struct k8s_pod *pod, struct scheme_pod *out)
{
	out->container_mem = NULL;
	out->container_core = NULL;
	if (pod->ncontainers == 0)
		return 0;
	out->container_mem = calloc(pod->ncontainers, sizeof(int64_t));
	out->container_core = calloc(pod->ncontainers, sizeof(int64_t));
	if (!out->container_mem || !out->container_core) {
		free(out->container_mem);
		free(out->container_core);
		out->container_mem = out->container_core = NULL;
		return -1;
	}
	return 0;
}

/* Whether a pod names this annotation with a non-empty value. */
static inline const char *scheme_pod_annotation(const struct k8s_pod *pod, const char *key)
{
	const char *v = kvlist_get(&pod->annotations, key);
	return v && *v ? v : NULL;
}

/* Per-device allocation lists in pod annotations, shared by HAMi and
 * Volcano vGPU: containers separated by ';', devices by ':', each device
 * "UUID,TYPE,mem,cores".  HAMi ends every container with ';' (terminated),
 * Volcano joins them (no final ';').  Every device becomes one claim with
 * gpu -1 and device_id = UUID: the node's register maps UUIDs to indexes,
 * and the model makes that join.  Container i's sums go to per_mem[i] and
 * per_core[i] (arrays of ncontainers entries, may be NULL).
 * Returns the number of malformed device entries (skipped), or -1 when out
 * of memory; *ncontainers_seen is how many containers the value lists. */
static inline int scheme_parse_pod_devices(const char *value, bool terminated, size_t ncontainers,
					   int64_t *per_mem, int64_t *per_core,
					   struct claim_list *claims, size_t *ncontainers_seen,
					   int64_t *max_core)
{
	struct sspan rest = sspan_of(value), ctr;
	size_t ci = 0, nctr;
	int bad = 0;

	*max_core = 0;
	nctr = sspan_count(rest, ';');
	if (terminated && rest.n && rest.p[rest.n - 1] == ';')
		nctr--;
	else if (!terminated && rest.n && rest.p[rest.n - 1] == ';')
		nctr--; /* tolerate a final ';' in the joined form too */
	*ncontainers_seen = nctr;
	while (ci < nctr && sspan_split(&rest, ';', &ctr)) {
		struct sspan dev;
		while (sspan_split(&ctr, ':', &dev)) {
			struct sspan f[5];
			int nf = 0;
			int64_t mem, core;
			struct sspan d = sspan_trim(dev), fld;

			if (d.n == 0)
				continue;
			while (nf < 5 && sspan_split(&d, ',', &fld))
				f[nf++] = sspan_trim(fld);
			if (nf != 4 || d.p || !sspan_printable(f[0], false) ||
			    !sspan_printable(f[1], true) ||
			    sspan_int64(f[2], SCHEME_MAX_MIB, &mem) < 0 ||
			    sspan_int64(f[3], SCHEME_MAX_COUNT, &core) < 0) {
				bad++;
				continue;
			}
			if (claim_list_add(claims, ci < ncontainers ? (int)ci : -1, -1, f[0], mem,
					   core) < 0)
				return -1;
			if (ci < ncontainers) {
				if (per_mem)
					per_mem[ci] += mem;
				if (per_core)
					per_core[ci] += core;
			}
			if (core > *max_core)
				*max_core = core;
		}
		ci++;
	}
	return bad;
}

/* A GPU is split into at most this many vGPUs (CCE documents 20; HAMi's
 * and Volcano's split counts default to 10).  One pod holding more slices
 * of one device than that is a broken annotation, whatever the node says;
 * the total over all pods is the model's to check against scheme_gpu.slots. */
#define SCHEME_MAX_VGPUS_PER_GPU 20

static inline int scheme_cmp_span(const void *a, const void *b)
{
	const struct sspan *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Sorted, so that an annotation of thousands of entries stays cheap. */
static inline void scheme_check_vgpus_per_device(const struct claim_list *claims,
						 const struct k8s_pod *pod, const char *key,
						 struct warnings *w)
{
	struct sspan *ids;
	size_t n = 0, run = 1;

	if (claims->n <= SCHEME_MAX_VGPUS_PER_GPU)
		return;
	ids = malloc(claims->n * sizeof(*ids));
	if (!ids)
		return;
	for (size_t i = 0; i < claims->n; i++)
		if (claims->v[i].device.n)
			ids[n++] = claims->v[i].device;
	if (n > 1)
		qsort(ids, n, sizeof(*ids), scheme_cmp_span);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && scheme_cmp_span(&ids[i], &ids[i - 1]) == 0) {
			run++;
			continue;
		}
		if (run > SCHEME_MAX_VGPUS_PER_GPU) {
			scheme_warn_pod(w, "TooManyVGPUs", pod,
					"annotation %s puts %zu vGPUs on one GPU (at most %d)", key, run,
					SCHEME_MAX_VGPUS_PER_GPU);
			break;
		}
		run = 1;
	}
	free(ids);
}

/* The HAMi family (HAMi and Volcano vGPU) writes the same pod annotations
 * under different names; this says which, and where the two really differ.
 * Used by scheme_devices.c. */
struct scheme_devices_desc {
	const char *node_key;	     /* node the scheduler chose ("hami.io/vgpu-node") */
	const char *allocated_key;   /* the allocated device list */
	const char *to_allocate_key; /* the scheduler's pending copy of that list */
	const char *bind_phase_key;  /* "allocating", "success" or "failed" */
	const char *display_name;    /* who binds, in "%s could not bind the pod" */
	const char *limit_name;	     /* in "a %s limit is not a usable quantity" */
	const char *res_count;	     /* limit: number of vGPUs */
	const char *res_mem;	     /* limit: MiB per vGPU */
	const char *res_cores;	     /* limit: percent of one GPU per vGPU */
	bool terminated;	     /* device list ends every container with ';' */
	/* HAMi takes its allocated list as confirmed only once the bind phase
	 * says success; Volcano's list is written by the device plugin at
	 * allocation, which is confirmation enough. */
	bool assigned_needs_bind_success;
};

/* Fill *out (zeroed, with scheme_pod_alloc_containers done) from a pod of
 * scheme d: the node it is on or was chosen for, its claims from the
 * allocated list (falling back to the pending copy, then to its limits),
 * with warnings to w.  0 on success; -1 when out of memory, and the caller
 * releases *out. */
int scheme_devices_pod_decode(const struct scheme_devices_desc *d, const struct k8s_pod *pod,
			      struct scheme_pod *out, struct warnings *w);

/* Warn that bad (when > 0) device entries of the node's register
 * annotation key were left out. */
void scheme_devices_warn_register(const struct k8s_node *node, const char *key, int bad,
				  struct warnings *w);

#endif
