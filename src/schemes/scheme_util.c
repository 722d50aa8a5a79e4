/* The scheme decoders' shared readers: see scheme_util.h. */
#include "scheme_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool sspan_split(struct sspan *rest, char sep, struct sspan *field)
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

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct sspan sspan_trim(struct sspan s)
{
	while (s.n && is_space(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && is_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

bool sspan_eq(struct sspan s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && memcmp(s.p, lit, n) == 0;
}

size_t sspan_count(struct sspan s, char sep)
{
	size_t n = 1;

	for (size_t i = 0; i < s.n; i++)
		n += s.p[i] == sep;
	return n;
}

int sspan_int64(struct sspan s, int64_t max, int64_t *ret)
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

bool sspan_printable(struct sspan s, bool allow_space)
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

char *sspan_dup(struct sspan s)
{
	char *r = malloc(s.n + 1);

	if (!r)
		return NULL;
	memcpy(r, s.p, s.n);
	r[s.n] = '\0';
	return r;
}

bool str_is_printable(const char *s, bool allow_space)
{
	return s && sspan_printable(sspan_of(s), allow_space);
}

/* A warning whose object is kind/ns/name (no ns for nodes); a warning that
 * cannot be formatted for lack of memory is dropped, as warnings_add does. */
__attribute__((format(printf, 5, 0))) static void vwarn(struct warnings *w, const char *code, const char *object_kind,
						     const char *ns, const char *name, const char *fmt, va_list ap)
{
	char *object = NULL, *msg = NULL;

	if (!w)
		return;
	if ((ns ? asprintf(&object, "%s/%s/%s", object_kind, ns, name ? name : "")
		: asprintf(&object, "%s/%s", object_kind, name ? name : "")) < 0)
		return;
	if (vasprintf(&msg, fmt, ap) >= 0) {
		warnings_add(w, code, object, "%s", msg);
		free(msg);
	}
	free(object);
}

void scheme_warn_node(struct warnings *w, const char *code, const struct k8s_node *node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(w, code, "node", NULL, node->name, fmt, ap);
	va_end(ap);
}

void scheme_warn_pod(struct warnings *w, const char *code, const struct k8s_pod *pod, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(w, code, "pod", pod->namespace ? pod->namespace : "", pod->name, fmt, ap);
	va_end(ap);
}

int scheme_quantity(const struct kvlist *l, const char *name, int64_t *ret)
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

bool scheme_node_has(const struct k8s_node *node, const char *res)
{
	return kvlist_get(&node->allocatable, res) || kvlist_get(&node->capacity, res);
}

bool scheme_node_amounts(const struct k8s_node *node, const char *res, int64_t max, int64_t *alloc, int64_t *cap,
			 struct warnings *w)
{
	int ra = scheme_quantity(&node->allocatable, res, alloc);
	int rc = scheme_quantity(&node->capacity, res, cap);
	bool listed = ra != 0 || rc != 0;

	if (ra > 0 && *alloc > max)
		ra = -1;
	if (rc > 0 && *cap > max)
		rc = -1;
	if (ra < 0 || rc < 0)
		scheme_warn_node(w, "MalformedQuantity", node, "resource %s is not a usable quantity", res);
	if (ra <= 0)
		*alloc = rc > 0 ? *cap : 0;
	if (rc <= 0)
		*cap = *alloc;
	return listed;
}

/* "2000m" is whole, "500m" is not: the decimal milli/micro/nano suffixes
 * are the only ones that shrink a value.  p is the end of s. */
static bool small_suffix_whole(const char *s, const char *p)
{
	int64_t scale = p[-1] == 'm' ? 1000 : p[-1] == 'u' ? 1000000 : 1000000000;
	int64_t v = 0;

	for (const char *q = s; q < p - 1; q++) {
		if (*q < '0' || *q > '9')
			return true; /* not a plain number: leave it to the parser */
		if (v > INT64_MAX / 10 - 10)
			return true;
		v = v * 10 + (*q - '0');
	}
	return v % scale == 0;
}

bool scheme_quantity_whole(const char *s)
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
	if (p > s && (p[-1] == 'm' || p[-1] == 'u' || p[-1] == 'n'))
		return !dot && small_suffix_whole(s, p);
	return true;
}

size_t scheme_pod_sum(const struct k8s_pod *pod, const char *name, int64_t *per, int64_t *sum, struct warnings *w)
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
			scheme_warn_pod(w, "MalformedQuantity", pod, "container %s: limit %s is not a usable quantity",
					pod->containers[i].name ? pod->containers[i].name : "?", name);
			v = 0;
		}
		if (per)
			per[i] = v;
		*sum += v;
	}
	return found;
}

int scheme_pod_alloc_containers(const struct k8s_pod *pod, struct scheme_pod *out)
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

const char *scheme_pod_annotation(const struct k8s_pod *pod, const char *key)
{
	const char *v = kvlist_get(&pod->annotations, key);

	return v && *v ? v : NULL;
}

int64_t scheme_container_count(const struct k8s_container *c, const char *res)
{
	const char *v = kvlist_get(&c->limits, res);
	int64_t n = 0;

	if (!v || quantity_parse_int(v, &n) < 0 || n < 1)
		return 1;
	return n > SCHEME_MAX_ASK_GPUS ? SCHEME_MAX_ASK_GPUS : n;
}

int scheme_parse_utc(const char *s, char date_sep, char mid_sep, time_t *ret)
{
	long long t;

	if (kube_time_parse(s, date_sep, mid_sep, true, &t) < 0 || t < 0)
		return -1;
	*ret = (time_t)t;
	return 0;
}

time_t scheme_now(void)
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
