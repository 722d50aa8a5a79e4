/* The answers of the Prometheus query API, read as they stream in.
 *
 * An answer is one JSON document, {"status":..., "data":{"resultType":
 * "vector", "result":[{"metric":{labels}, "value":[time, "figure"]}, ...]}}
 * of a few megabytes at tens of thousands of series.  Rather than building
 * it as a tree, the yajl events go through a small state machine that keeps,
 * per series, only the labels of the roles (node, GPU, UUID, namespace, pod,
 * the DRA claim and device, the MIG instance)
 * and the figure, and copies the kept label values into one string arena per
 * query.  Keys may come in any order (the status after the data), so the
 * series are staged and handed over only once the document has ended well.
 */
#include "usage.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

/* No Prometheus answer about GPUs comes near this; a body that does is
 * refused rather than held. */
#define ANSWER_MAX_BYTES (256ull << 20)
/* Containers nobody reads are counted through, to this depth. */
#define SKIP_MAX_DEPTH 512
#define ARENA_CHUNK 65536
#define NSLOTS (UR_COUNT * USAGE_LABEL_VARIANTS)

struct usage_chunk {
	struct usage_chunk *next;
	size_t used, cap;
	char data[];
};

/* Where the parser is: each state is a container it reads. */
enum where { W_START, W_TOP, W_DATA, W_RESULT, W_ITEM, W_METRIC, W_VALUE, W_END };

/* The key whose value comes next. */
enum key { K_OTHER, K_STATUS, K_ERROR, K_DATA, K_RESULT_TYPE, K_RESULT, K_METRIC, K_VALUE };

struct usage_stream {
	yajl_handle h;
	enum usage_query q;
	const struct usage_labels *l;
	size_t limit;
	unsigned long long bytes;
	struct kerr err; /* why a callback stopped yajl */
	bool failed;

	enum where where;
	enum key key;
	int skip;		/* > 0: inside a container nobody reads, this deep */
	uint64_t label_slots[(NSLOTS + 63) / 64]; /* the role slots the label whose value comes next fills */
	char *status, *error, *result_type;
	bool data_map, result_array;

	/* the series being read */
	bool metric_ok, value_ok, value_str;
	size_t value_n;
	char value[64];
	long slot_off[NSLOTS]; /* offsets into scratch, -1 = absent */
	char *scratch;
	size_t scratch_len, scratch_cap;

	/* staged series */
	struct usage_sample *samples;
	size_t n, cap, items;
	struct usage_chunk *strings;
};

/* --- the string arena ----------------------------------------------------- */

static void chunks_free(struct usage_chunk *c)
{
	while (c) {
		struct usage_chunk *next = c->next;

		free(c);
		c = next;
	}
}

static const char *arena_dup(struct usage_chunk **head, const char *s, size_t len)
{
	struct usage_chunk *c = *head;
	char *p;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = *head;
		c->used = 0;
		c->cap = cap;
		*head = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

void usage_data_release(struct usage_data *d)
{
	if (!d)
		return;
	for (int q = 0; q < UQ_COUNT; q++) {
		free(d->samples[q]);
		chunks_free(d->strings[q]);
		free(d->problem[q]);
	}
	free(d->pod_index);
	memset(d, 0, sizeof(*d));
}

/* --- one series ----------------------------------------------------------- */

/* What one unit of the query's values is worth in bytes (0: not memory). */
static double query_scale(enum usage_query q)
{
	switch (q) {
	case UQ_GPU_USED:
	case UQ_GPU_FREE:
		return 1048576.0; /* the DCGM exporter counts MiB */
	case UQ_VGPU_USED:
	case UQ_VGPU_LIMIT:
	case UQ_HOST_USED:
		return 1.0;
	default:
		return 0;
	}
}

/* The figure of a series, or false when it is not one worth keeping:
 * not a finite number, negative, beyond any card, a share over 1000 %. */
static bool figure(enum usage_query q, const char *vs, double *ret)
{
	double scale = query_scale(q), v;
	char *end;

	v = strtod(vs, &end);
	if (end == vs || *end || !isfinite(v) || v < 0)
		return false;
	if (scale > 0) {
		v *= scale;
		if (v >= 9.0e18) /* beyond int64 bytes: not a real card */
			return false;
	} else if (v > 1000) {
		return false; /* utilisation is a percentage */
	}
	*ret = v;
	return true;
}

static const char *slot_value(const struct usage_stream *s, int role, size_t variant)
{
	long off = s->slot_off[role * USAGE_LABEL_VARIANTS + (int)variant];

	return off < 0 ? NULL : s->scratch + off;
}

static const char *first_slot(const struct usage_stream *s, int role)
{
	for (size_t i = 0; i < USAGE_LABEL_VARIANTS && s->l->names[role][i]; i++) {
		const char *v = slot_value(s, role, i);

		if (v)
			return v;
	}
	return NULL;
}

static int oom(struct usage_stream *s)
{
	kerr_set(&s->err, KERR_OTHER, "out of memory");
	s->failed = true;
	return 0;
}

static const char *keep(struct usage_stream *s, const char *v, bool *oom_seen)
{
	const char *p;

	if (!v)
		return NULL;
	p = arena_dup(&s->strings, v, strlen(v));
	if (!p)
		*oom_seen = true;
	return p;
}

/* The end of one series: staged when it has labels and a figure. */
static int series_end(struct usage_stream *s)
{
	struct usage_sample *o;
	const char *gi;
	bool bad = false;
	double v;

	if (!s->metric_ok || !s->value_ok || s->value_n != 2 || !s->value_str || !figure(s->q, s->value, &v))
		return 1;
	o = kube_array_grow(s->samples, &s->cap, s->n + 1, sizeof(*o), 64);
	if (!o)
		return oom(s);
	s->samples = o;
	o = &s->samples[s->n];
	memset(o, 0, sizeof(*o));
	o->value = v;
	for (size_t i = 0; i < USAGE_LABEL_VARIANTS && s->l->names[UR_NODE][i]; i++)
		o->node[i] = keep(s, slot_value(s, UR_NODE, i), &bad);
	o->uuid = keep(s, first_slot(s, UR_UUID), &bad);
	o->namespace = keep(s, first_slot(s, UR_NAMESPACE), &bad);
	o->pod = keep(s, first_slot(s, UR_POD), &bad);
	o->dra_namespace = keep(s, first_slot(s, UR_DRA_NAMESPACE), &bad);
	o->dra_claim = keep(s, first_slot(s, UR_DRA_CLAIM), &bad);
	o->dra_pool = keep(s, first_slot(s, UR_DRA_POOL), &bad);
	o->dra_device = keep(s, first_slot(s, UR_DRA_DEVICE), &bad);
	o->dra_mig_profile = keep(s, first_slot(s, UR_DRA_MIG_PROFILE), &bad);
	o->mig_instance = keep(s, first_slot(s, UR_MIG_INSTANCE), &bad);
	o->mig_profile = keep(s, first_slot(s, UR_MIG_PROFILE), &bad);
	o->gpu = -1;
	gi = first_slot(s, UR_GPU);
	if (gi) {
		char *end;
		long g = strtol(gi, &end, 10);

		if (end != gi && !*end && g >= 0 && g < 4096)
			o->gpu = (int)g;
	}
	if (bad)
		return oom(s);
	s->n++;
	return 1;
}

/* No label of the series read yet. */
static void labels_clear(struct usage_stream *s)
{
	s->scratch_len = 0;
	for (size_t i = 0; i < NSLOTS; i++)
		s->slot_off[i] = -1;
}

static bool slot_set(const struct usage_stream *s, size_t i)
{
	return (s->label_slots[i / 64] >> (i % 64)) & 1u;
}

/* The slots of the label whose value comes next stay empty unless that
 * value is a string to keep. */
static void label_forget(struct usage_stream *s)
{
	for (size_t i = 0; i < NSLOTS; i++)
		if (slot_set(s, i))
			s->slot_off[i] = -1;
}

static void series_start(struct usage_stream *s)
{
	s->metric_ok = s->value_ok = s->value_str = false;
	s->value_n = 0;
	labels_clear(s);
}

/* --- yajl callbacks ------------------------------------------------------- */

static int fail(struct usage_stream *s, const char *msg)
{
	kerr_set(&s->err, KERR_DECODE, "%s", msg);
	s->failed = true;
	return 0;
}

/* One more item of the result list (series or not), within the limit. */
static int count_series(struct usage_stream *s)
{
	if (s->limit && ++s->items > s->limit) {
		kerr_set(&s->err, KERR_DECODE, "the answer has more than the %zu series expected", s->limit);
		s->failed = true;
		return 0;
	}
	return 1;
}

static int skip_one(struct usage_stream *s)
{
	if (++s->skip > SKIP_MAX_DEPTH)
		return fail(s, "the answer is nested too deeply");
	return 1;
}

static void set_str(char **dst, const unsigned char *v, size_t len, bool *oom_seen)
{
	free(*dst);
	*dst = v ? strndup((const char *)v, len) : NULL;
	if (v && !*dst)
		*oom_seen = true;
}

/* A scalar (v NULL: not a string) where the state expects a value. */
static int on_scalar(struct usage_stream *s, const unsigned char *v, size_t len)
{
	bool bad = false;

	if (s->skip)
		return 1;
	switch (s->where) {
	case W_START:
		return fail(s, "the answer is not a Prometheus query result");
	case W_TOP:
		if (s->key == K_STATUS)
			set_str(&s->status, v, len, &bad);
		else if (s->key == K_ERROR)
			set_str(&s->error, v, len, &bad);
		else if (s->key == K_DATA)
			s->data_map = false;
		break;
	case W_DATA:
		if (s->key == K_RESULT_TYPE)
			set_str(&s->result_type, v, len, &bad);
		else if (s->key == K_RESULT) {
			s->result_array = false;
			s->n = s->items = 0;
		}
		break;
	case W_RESULT:
		return count_series(s);
	case W_ITEM:
		if (s->key == K_METRIC)
			s->metric_ok = false;
		else if (s->key == K_VALUE)
			s->value_ok = false;
		break;
	case W_METRIC:
		label_forget(s);
		for (size_t i = 0; v && len && i < NSLOTS; i++) {
			if (!slot_set(s, i))
				continue;
			char *t = kube_array_grow(s->scratch, &s->scratch_cap, s->scratch_len + len + 1, 1, 256);

			if (!t)
				return oom(s);
			s->scratch = t;
			memcpy(s->scratch + s->scratch_len, v, len);
			s->scratch[s->scratch_len + len] = '\0';
			s->slot_off[i] = (long)s->scratch_len;
			s->scratch_len += len + 1;
		}
		break;
	case W_VALUE:
		if (++s->value_n == 2) {
			s->value_str = v && len < sizeof(s->value);
			if (s->value_str) {
				memcpy(s->value, v, len);
				s->value[len] = '\0';
			}
		}
		break;
	default:
		break;
	}
	return bad ? oom(s) : 1;
}

static int on_start(struct usage_stream *s, bool map)
{
	if (s->skip)
		return skip_one(s);
	switch (s->where) {
	case W_START:
		if (!map)
			return fail(s, "the answer is not a Prometheus query result");
		s->where = W_TOP;
		return 1;
	case W_TOP:
		if (s->key == K_DATA) {
			s->data_map = map;
			s->result_array = false;
			free(s->result_type);
			s->result_type = NULL;
			s->n = s->items = 0;
			if (map) {
				s->where = W_DATA;
				return 1;
			}
		}
		return skip_one(s);
	case W_DATA:
		if (s->key == K_RESULT) {
			s->result_array = !map;
			s->n = s->items = 0;
			if (!map) {
				s->where = W_RESULT;
				return 1;
			}
		}
		return skip_one(s);
	case W_RESULT:
		if (!count_series(s))
			return 0;
		if (!map)
			return skip_one(s);
		series_start(s);
		s->where = W_ITEM;
		return 1;
	case W_ITEM:
		if (s->key == K_METRIC && map) {
			s->metric_ok = true;
			labels_clear(s);
			s->where = W_METRIC;
			return 1;
		}
		if (s->key == K_VALUE && !map) {
			s->value_ok = true;
			s->value_n = 0;
			s->value_str = false;
			s->where = W_VALUE;
			return 1;
		}
		if (s->key == K_METRIC)
			s->metric_ok = false;
		else if (s->key == K_VALUE)
			s->value_ok = false;
		return skip_one(s);
	case W_METRIC:
		label_forget(s);
		return skip_one(s);
	case W_VALUE:
		if (++s->value_n == 2)
			s->value_str = false;
		return skip_one(s);
	default:
		return skip_one(s);
	}
}

static int on_end(struct usage_stream *s)
{
	if (s->skip) {
		s->skip--;
		return 1;
	}
	switch (s->where) {
	case W_TOP:
		s->where = W_END;
		break;
	case W_DATA:
		s->where = W_TOP;
		break;
	case W_RESULT:
		s->where = W_DATA;
		break;
	case W_ITEM:
		s->where = W_RESULT;
		return series_end(s);
	case W_METRIC:
	case W_VALUE:
		s->where = W_ITEM;
		break;
	default:
		break;
	}
	return 1;
}

static bool key_is(const unsigned char *k, size_t len, const char *name)
{
	return strlen(name) == len && memcmp(k, name, len) == 0;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t len)
{
	struct usage_stream *s = ctx;

	if (s->skip)
		return 1;
	s->key = K_OTHER;
	switch (s->where) {
	case W_TOP:
		s->key = key_is(k, len, "status") ? K_STATUS
			 : key_is(k, len, "error") ? K_ERROR
			 : key_is(k, len, "data")  ? K_DATA
						   : K_OTHER;
		break;
	case W_DATA:
		s->key = key_is(k, len, "resultType") ? K_RESULT_TYPE : key_is(k, len, "result") ? K_RESULT : K_OTHER;
		break;
	case W_ITEM:
		s->key = key_is(k, len, "metric") ? K_METRIC : key_is(k, len, "value") ? K_VALUE : K_OTHER;
		break;
	case W_METRIC:
		memset(s->label_slots, 0, sizeof(s->label_slots));
		for (int r = 0; r < UR_COUNT; r++)
			for (size_t i = 0; i < USAGE_LABEL_VARIANTS && s->l->names[r][i]; i++)
				if (key_is(k, len, s->l->names[r][i])) {
					size_t b = (size_t)r * USAGE_LABEL_VARIANTS + i;

					s->label_slots[b / 64] |= 1ull << (b % 64);
				}
		break;
	default:
		break;
	}
	return 1;
}

static int cb_null(void *ctx)
{
	return on_scalar(ctx, NULL, 0);
}

static int cb_boolean(void *ctx, int b)
{
	(void)b;
	return on_scalar(ctx, NULL, 0);
}

static int cb_number(void *ctx, const char *n, size_t len)
{
	(void)n;
	(void)len;
	return on_scalar(ctx, NULL, 0);
}

static int cb_string(void *ctx, const unsigned char *v, size_t len)
{
	return on_scalar(ctx, v, len);
}

static int cb_start_map(void *ctx)
{
	return on_start(ctx, true);
}

static int cb_start_array(void *ctx)
{
	return on_start(ctx, false);
}

static int cb_end(void *ctx)
{
	return on_end(ctx);
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_boolean,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_map_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

/* --- driving it ----------------------------------------------------------- */

int usage_stream_new(struct usage_stream **ret, enum usage_query q, const struct usage_labels *l, size_t limit,
		     struct kerr *err)
{
	struct usage_stream *s;

	*ret = NULL;
	if ((unsigned)q >= UQ_COUNT || !l)
		return kerr_set(err, KERR_OTHER, "unknown query");
	s = calloc(1, sizeof(*s));
	if (!s)
		return kerr_set(err, KERR_OTHER, "out of memory");
	s->q = q;
	s->l = l;
	s->limit = limit;
	s->err = (struct kerr)KERR_INIT;
	s->h = yajl_alloc(&callbacks, NULL, s);
	if (!s->h) {
		free(s);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	*ret = s;
	return 0;
}

void usage_stream_free(struct usage_stream *s)
{
	if (!s)
		return;
	yajl_free(s->h);
	kerr_release(&s->err);
	free(s->status);
	free(s->error);
	free(s->result_type);
	free(s->scratch);
	free(s->samples);
	chunks_free(s->strings);
	free(s);
}

/* yajl's complaint, or the callbacks' reason for stopping. */
static int stream_error(struct usage_stream *s, yajl_status st, const char *p, size_t n, struct kerr *err)
{
	unsigned char *msg;

	if (st == yajl_status_client_canceled || s->failed) {
		return kerr_set(err, s->err.kind ? s->err.kind : KERR_DECODE, "%s",
				s->err.message ? s->err.message : "the answer could not be read");
	}
	msg = yajl_get_error(s->h, 0, (const unsigned char *)p, n);
	kerr_set(err, KERR_DECODE, "the answer is not JSON: %.80s", msg ? (const char *)msg : "parse error");
	if (msg)
		yajl_free_error(s->h, msg);
	s->failed = true;
	return -1;
}

int usage_stream_feed(struct usage_stream *s, const char *p, size_t n, struct kerr *err)
{
	yajl_status st;

	if (s->failed)
		return kerr_set(err, KERR_DECODE, "the answer could not be read");
	s->bytes += n;
	if (s->bytes > ANSWER_MAX_BYTES) {
		s->failed = true;
		return kerr_set(err, KERR_DECODE, "the answer is larger than %llu MiB", ANSWER_MAX_BYTES >> 20);
	}
	st = yajl_parse(s->h, (const unsigned char *)p, n);
	if (st != yajl_status_ok)
		return stream_error(s, st, p, n, err);
	return 0;
}

bool usage_stream_ended(const struct usage_stream *s)
{
	return s->where == W_END && !s->failed;
}

int usage_stream_finish(struct usage_stream *s, struct usage_data *d, struct kerr *err)
{
	yajl_status st;
	enum usage_query q = s->q;

	if (s->failed)
		return kerr_set(err, KERR_DECODE, "the answer could not be read");
	if (s->bytes == 0)
		return kerr_set(err, KERR_DECODE, "the answer is not a Prometheus query result");
	st = yajl_complete_parse(s->h);
	if (st != yajl_status_ok)
		return stream_error(s, st, NULL, 0, err);
	if (!s->status)
		return kerr_set(err, KERR_DECODE, "the answer is not a Prometheus query result");
	if (strcmp(s->status, "success") != 0)
		return kerr_set(err, KERR_DECODE, "the query failed: %.200s", s->error ? s->error : s->status);
	if (!s->data_map || !s->result_type || strcmp(s->result_type, "vector") != 0)
		return kerr_set(err, KERR_DECODE, "the answer is not an instant vector");
	if (!s->result_array)
		return kerr_set(err, KERR_DECODE, "the answer has no result list");
	free(d->samples[q]);
	chunks_free(d->strings[q]);
	d->samples[q] = s->samples;
	d->n[q] = s->n;
	d->strings[q] = s->strings;
	d->answered[q] = true;
	s->samples = NULL;
	s->strings = NULL;
	s->n = s->cap = 0;
	return 0;
}

int usage_parse_bytes(struct usage_data *d, enum usage_query q, const struct usage_labels *l, const char *body,
		      size_t len, struct kerr *err)
{
	struct usage_stream *s;
	int r;

	if (usage_stream_new(&s, q, l, 0, err) < 0)
		return -1;
	r = usage_stream_feed(s, body, len, err);
	if (r == 0)
		r = usage_stream_finish(s, d, err);
	usage_stream_free(s);
	return r;
}

/* --- the pods the answers name -------------------------------------------- */

static int sample_pod_cmp(const void *a, const void *b)
{
	const struct usage_sample *x = *(const struct usage_sample *const *)a;
	const struct usage_sample *y = *(const struct usage_sample *const *)b;
	int c = strcmp(x->namespace, y->namespace);

	return c ? c : strcmp(x->pod, y->pod);
}

int usage_data_index(struct usage_data *d)
{
	size_t n = 0;

	free(d->pod_index);
	d->pod_index = NULL;
	d->npod_index = 0;
	d->claims_unnamed = false;
	for (int q = 0; q < UQ_COUNT; q++)
		n += usage_query_names_pods(q) ? d->n[q] : 0;
	d->pod_index = calloc(n + 1, sizeof(*d->pod_index));
	if (!d->pod_index)
		return -1;
	for (int q = 0; q < UQ_COUNT; q++)
		for (size_t i = 0; usage_query_names_pods(q) && i < d->n[q]; i++)
			if (d->samples[q][i].pod && d->samples[q][i].namespace)
				d->pod_index[d->npod_index++] = &d->samples[q][i];
			else if (d->samples[q][i].dra_claim)
				d->claims_unnamed = true;
	qsort(d->pod_index, d->npod_index, sizeof(*d->pod_index), sample_pod_cmp);
	d->indexed = true;
	return 0;
}

bool usage_names_pod(const struct usage_data *d, const char *ns, const char *name)
{
	struct usage_sample probe = {.namespace = ns, .pod = name};
	const struct usage_sample *pp = &probe;

	if (!d->indexed || d->claims_unnamed)
		return true;
	if (!ns || !name)
		return false;
	return bsearch(&pp, d->pod_index, d->npod_index, sizeof(*d->pod_index), sample_pod_cmp) != NULL;
}
