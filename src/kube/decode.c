/* The decoders' public side: one list, object or watch decoder per
 * response, JSON or protobuf as the body says.
 *
 * A protobuf body starts with the magic "k8s\0" and a protobuf watch stream
 * with a frame length, whose first byte is 0 for any frame under 16 MiB;
 * JSON starts with '{' or blanks (an HTML error page with '<').  So the
 * first bytes decide, and the caller feeds bytes without knowing which
 * encoding the server chose.
 */
#include "decode_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum fmt { FMT_UNKNOWN, FMT_JSON, FMT_PB };

struct sniff {
	struct decode_spec spec;
	enum fmt fmt;
	struct decoder *json;
	struct pb_decoder *pb;
	unsigned char head[4];
	size_t headlen;
};

struct list_decoder {
	struct sniff s;
};

struct watch_decoder {
	struct sniff s;
};

void decode_state_init(struct decode_state *s, const struct decode_spec *spec)
{
	static const struct decode_filter none;

	memset(s, 0, sizeof(*s));
	s->spec = *spec;
	if (!s->spec.filter)
		s->spec.filter = &none;
}

void decode_state_release(struct decode_state *s)
{
	decode_object_clear(s);
	free(s->addr);
	free(s->list_rv);
	free(s->list_continue);
	free(s->st_reason);
	free(s->st_message);
	free(s->ev_type);
}

void decode_object_clear(struct decode_state *s)
{
	k8s_node_free(s->node);
	k8s_pod_free(s->pod);
	s->node = NULL;
	s->pod = NULL;
	memset(&s->room, 0, sizeof(s->room));
}

int decode_object_new(struct decode_state *s)
{
	decode_object_clear(s);
	if (s->spec.kind == OBJ_POD)
		s->pod = calloc(1, sizeof(*s->pod));
	else
		s->node = calloc(1, sizeof(*s->node));
	return s->pod || s->node ? 0 : -1;
}

/* items grown by one zeroed element of size bytes, *n counting it; NULL
 * when out of memory, items then unchanged. */
static void *append_zeroed(void *items, size_t *n, size_t *cap, size_t size)
{
	char *v = kube_array_grow(items, cap, *n + 1, size, 2);

	if (v)
		memset(v + (*n)++ * size, 0, size);
	return v;
}

int decode_array_add(struct decode_state *s, enum decode_array a)
{
	struct k8s_node *node = s->node;
	struct k8s_pod *pod = s->pod;
	struct decode_room *room = &s->room;
	void *v = NULL;

	switch (a) {
	case DECODE_OWNER:
		if (!pod)
			return 0;
		if ((v = append_zeroed(pod->owners, &pod->nowners, &room->owners, sizeof(*pod->owners))))
			pod->owners = v;
		break;
	case DECODE_CONTAINER:
		if (!pod)
			return 0;
		if ((v = append_zeroed(pod->containers, &pod->ncontainers, &room->containers, sizeof(*pod->containers))))
			pod->containers = v;
		break;
	case DECODE_TAINT:
		if (node) {
			if ((v = append_zeroed(node->taints, &node->ntaints, &room->taints, sizeof(*node->taints))))
				node->taints = v;
		} else if (pod) {
			if ((v = append_zeroed(pod->tolerations, &pod->ntolerations, &room->taints,
					       sizeof(*pod->tolerations))))
				pod->tolerations = v;
		} else {
			return 0;
		}
		break;
	}
	return v ? 0 : -1;
}

void decode_list_meta_send(struct decode_state *s)
{
	if (s->meta_sent)
		return;
	s->meta_sent = true;
	if (s->spec.sink.list_meta)
		s->spec.sink.list_meta(s->spec.sink.ud, s->list_rv,
				       s->list_continue && *s->list_continue ? s->list_continue : NULL);
}

int decode_emit_item(struct decode_state *s, struct kerr *err)
{
	const struct decode_sink *sink = &s->spec.sink;
	struct k8s_node *n = s->node;
	struct k8s_pod *p = s->pod;
	int r = 0;

	s->node = NULL;
	s->pod = NULL;
	memset(&s->room, 0, sizeof(s->room));
	if (n) {
		if (sink->node)
			r = sink->node(sink->ud, n, err);
		else
			k8s_node_free(n);
	} else if (p) {
		if (sink->pod)
			r = sink->pod(sink->ud, p, err);
		else
			k8s_pod_free(p);
	}
	return r;
}

int decode_event_object(struct watch_event *ev, struct decode_state *s)
{
	const char *rv = s->node ? s->node->resource_version : s->pod->resource_version;

	if (rv && !(ev->resource_version = strdup(rv)))
		return -1;
	if (ev->type != WATCH_BOOKMARK) {
		ev->node = s->node;
		ev->pod = s->pod;
		s->node = NULL;
		s->pod = NULL;
	}
	return 0;
}

int decode_event_send(const struct decode_state *s, struct watch_event *ev, struct kerr *err)
{
	watch_cb cb = s->spec.cb;
	int r = cb ? cb(s->spec.ud, ev, err) : 0;

	if (!cb) {
		k8s_node_free(ev->node);
		k8s_pod_free(ev->pod);
	}
	free(ev->resource_version);
	return r;
}

void decode_event_reset(struct decode_state *s)
{
	decode_object_clear(s);
	free(s->ev_type);
	free(s->st_reason);
	free(s->st_message);
	s->ev_type = s->st_reason = s->st_message = NULL;
	s->st_code = 0;
}

int decode_watch_type(const char *s, enum watch_type *ret)
{
	static const char *const names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum watch_type)i;
			return 0;
		}
	return -1;
}

static void sniff_init(struct sniff *s, const struct decode_spec *spec)
{
	memset(s, 0, sizeof(*s));
	s->spec = *spec;
}

/* Which encoding, from the first bytes (head[0..n)); FMT_UNKNOWN while they
 * could still be either. */
static enum fmt sniff_fmt(const struct sniff *s, const unsigned char *p, size_t n)
{
	static const unsigned char magic[4] = {'k', '8', 's', 0};

	if (s->spec.mode == DEC_WATCH)
		return p[0] == 0 ? FMT_PB : FMT_JSON;
	if (memcmp(p, magic, n < 4 ? n : 4) != 0)
		return FMT_JSON;
	return n < 4 ? FMT_UNKNOWN : FMT_PB;
}

static int sniff_start(struct sniff *s, enum fmt fmt, struct kerr *err)
{
	s->fmt = fmt;
	if (fmt == FMT_PB)
		s->pb = pb_decoder_new(&s->spec);
	else
		s->json = json_decoder_new(&s->spec);
	if (!s->pb && !s->json)
		return kerr_set(err, KERR_OTHER, "out of memory");
	return 0;
}

static int sniff_pass(struct sniff *s, const void *buf, size_t len, struct kerr *err)
{
	if (s->fmt == FMT_PB)
		return pb_decoder_feed(s->pb, buf, len, err);
	return json_decoder_feed(s->json, buf, len, err);
}

static int sniff_feed(struct sniff *s, const void *buf, size_t len, struct kerr *err)
{
	const unsigned char *p = buf;
	enum fmt fmt;
	size_t n;

	if (s->fmt != FMT_UNKNOWN)
		return sniff_pass(s, buf, len, err);
	if (!len)
		return 0;
	n = sizeof(s->head) - s->headlen < len ? sizeof(s->head) - s->headlen : len;
	memcpy(s->head + s->headlen, p, n);
	s->headlen += n;
	fmt = sniff_fmt(s, s->head, s->headlen);
	if (fmt == FMT_UNKNOWN)
		return 0;
	if (sniff_start(s, fmt, err) < 0)
		return -1;
	/* what was held back, then the rest of this chunk */
	if (sniff_pass(s, s->head, s->headlen, err) < 0)
		return -1;
	return len > n ? sniff_pass(s, p + n, len - n, err) : 0;
}

static int sniff_finish(struct sniff *s, struct kerr *err)
{
	if (s->fmt == FMT_UNKNOWN) {
		/* fewer than four bytes, all of them a start of the magic */
		if (sniff_start(s, FMT_JSON, err) < 0 || sniff_pass(s, s->head, s->headlen, err) < 0)
			return -1;
	}
	if (s->fmt == FMT_PB)
		return pb_decoder_finish(s->pb, err);
	return json_decoder_finish(s->json, err);
}

static void sniff_release(struct sniff *s)
{
	json_decoder_free(s->json);
	pb_decoder_free(s->pb);
}

/* --- lists --------------------------------------------------------------- */

struct list_decoder *list_decoder_new(enum obj_kind kind, const struct decode_filter *filter,
				      const struct decode_sink *sink)
{
	struct list_decoder *ld = malloc(sizeof(*ld));
	struct decode_spec spec = {.mode = DEC_LIST, .kind = kind, .filter = filter};

	if (sink)
		spec.sink = *sink;
	if (ld)
		sniff_init(&ld->s, &spec);
	return ld;
}

int list_decoder_feed(struct list_decoder *d, const void *buf, size_t len, struct kerr *err)
{
	if (!d)
		return kerr_set(err, KERR_OTHER, "no decoder");
	return sniff_feed(&d->s, buf, len, err);
}

int list_decoder_finish(struct list_decoder *d, struct kerr *err)
{
	if (!d)
		return kerr_set(err, KERR_OTHER, "no decoder");
	return sniff_finish(&d->s, err);
}

bool list_decoder_is_protobuf(const struct list_decoder *d)
{
	return d && d->s.fmt == FMT_PB;
}

void list_decoder_free(struct list_decoder *d)
{
	if (!d)
		return;
	sniff_release(&d->s);
	free(d);
}

static int decode_single(enum obj_kind kind, const void *buf, size_t len, const struct decode_filter *filter,
			 struct k8s_node **node, struct k8s_pod **pod, struct kerr *err)
{
	const struct decode_spec spec = {.mode = DEC_SINGLE, .kind = kind, .filter = filter};
	struct decode_state *st;
	struct sniff s;
	int r;

	sniff_init(&s, &spec);
	r = sniff_feed(&s, buf, len, err) < 0 || sniff_finish(&s, err) < 0 ? -1 : 0;
	if (r == 0) {
		/* the object built is the caller's, no longer the decoder's to free */
		st = s.pb ? pb_decoder_state(s.pb) : json_decoder_state(s.json);
		if (node) {
			*node = st->node;
			st->node = NULL;
		}
		if (pod) {
			*pod = st->pod;
			st->pod = NULL;
		}
	}
	sniff_release(&s);
	return r;
}

int decode_node(const void *buf, size_t len, const struct decode_filter *filter,
		struct k8s_node **ret, struct kerr *err)
{
	return decode_single(OBJ_NODE, buf, len, filter, ret, NULL, err);
}

int decode_pod(const void *buf, size_t len, const struct decode_filter *filter,
	       struct k8s_pod **ret, struct kerr *err)
{
	return decode_single(OBJ_POD, buf, len, filter, NULL, ret, err);
}

/* --- watch streams ------------------------------------------------------- */

struct watch_decoder *watch_decoder_new(enum obj_kind kind, const struct decode_filter *filter,
					watch_cb cb, void *ud)
{
	struct watch_decoder *wd = malloc(sizeof(*wd));
	const struct decode_spec spec = {.mode = DEC_WATCH, .kind = kind, .filter = filter, .cb = cb, .ud = ud};

	if (wd)
		sniff_init(&wd->s, &spec);
	return wd;
}

int watch_decoder_feed(struct watch_decoder *d, const void *buf, size_t len, struct kerr *err)
{
	if (!d)
		return kerr_set(err, KERR_OTHER, "no decoder");
	return sniff_feed(&d->s, buf, len, err);
}

void watch_decoder_free(struct watch_decoder *d)
{
	if (!d)
		return;
	sniff_release(&d->s);
	free(d);
}
