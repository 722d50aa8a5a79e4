/* The decoders' public side: one list, object or watch decoder per
 * response, JSON or protobuf as the body says.
 *
 * A protobuf body starts with the magic "k8s\0" and a protobuf watch stream
 * with a frame length, whose first byte is 0 for any frame under 16 MiB;
 * JSON starts with '{' or blanks (an HTML error page with '<').  So the
 * first bytes decide, and the caller feeds bytes without knowing which
 * encoding the server chose.
 */
#include "decode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode_json.h"
#include "decode_pb.h"

struct sniff {
	struct decode_spec spec;
	const struct decode_reader *reader; /* NULL until the first bytes tell */
	void *dec;
	unsigned char head[4];
	size_t headlen;
};

struct list_decoder {
	struct sniff s;
};

struct watch_decoder {
	struct sniff s;
};

static void sniff_init(struct sniff *s, const struct decode_spec *spec)
{
	memset(s, 0, sizeof(*s));
	s->spec = *spec;
}

/* Which encoding, from the first bytes (p[0..n)); NULL while they could
 * still be either. */
static const struct decode_reader *sniff_reader(const struct sniff *s, const unsigned char *p, size_t n)
{
	static const unsigned char magic[4] = {'k', '8', 's', 0};

	if (s->spec.mode == DEC_WATCH)
		return p[0] == 0 ? &decode_pb_reader : &decode_json_reader;
	if (memcmp(p, magic, n < 4 ? n : 4) != 0)
		return &decode_json_reader;
	return n < 4 ? NULL : &decode_pb_reader;
}

/* The decoder of reader starts, and is fed what was held back. */
static int sniff_start(struct sniff *s, const struct decode_reader *reader, struct kerr *err)
{
	s->reader = reader;
	s->dec = reader->create(&s->spec);
	if (!s->dec)
		return kerr_set(err, KERR_OTHER, "out of memory");
	return reader->feed(s->dec, s->head, s->headlen, err);
}

static int sniff_feed(struct sniff *s, const void *buf, size_t len, struct kerr *err)
{
	const unsigned char *p = buf;
	const struct decode_reader *reader;
	size_t n;

	if (!s)
		return kerr_set(err, KERR_OTHER, "no decoder");
	if (s->reader)
		return s->reader->feed(s->dec, buf, len, err);
	if (!len)
		return 0;
	n = sizeof(s->head) - s->headlen < len ? sizeof(s->head) - s->headlen : len;
	memcpy(s->head + s->headlen, p, n);
	s->headlen += n;
	reader = sniff_reader(s, s->head, s->headlen);
	if (!reader)
		return 0;
	/* what was held back, then the rest of this chunk */
	if (sniff_start(s, reader, err) < 0)
		return -1;
	return len > n ? reader->feed(s->dec, p + n, len - n, err) : 0;
}

static int sniff_finish(struct sniff *s, struct kerr *err)
{
	if (!s)
		return kerr_set(err, KERR_OTHER, "no decoder");
	/* fewer than four bytes, all of them a start of the magic */
	if (!s->reader && sniff_start(s, &decode_json_reader, err) < 0)
		return -1;
	return s->reader->finish(s->dec, err);
}

static void sniff_release(struct sniff *s)
{
	if (s->reader && s->dec)
		s->reader->destroy(s->dec);
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
	return sniff_feed(d ? &d->s : NULL, buf, len, err);
}

int list_decoder_finish(struct list_decoder *d, struct kerr *err)
{
	return sniff_finish(d ? &d->s : NULL, err);
}

bool list_decoder_is_protobuf(const struct list_decoder *d)
{
	return d && d->s.reader == &decode_pb_reader;
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
		st = s.reader->state(s.dec);
		if (node)
			*node = st->obj;
		if (pod)
			*pod = st->obj;
		st->obj = NULL;
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
	return sniff_feed(d ? &d->s : NULL, buf, len, err);
}

void watch_decoder_free(struct watch_decoder *d)
{
	if (!d)
		return;
	sniff_release(&d->s);
	free(d);
}

/* --- protobuf error bodies ------------------------------------------------- */

bool decode_is_protobuf(const void *buf, size_t len)
{
	return len >= 4 && memcmp(buf, "k8s", 4) == 0;
}

int decode_status_pb(const void *buf, size_t len, long *code, char **reason, char **message)
{
	const struct decode_spec spec = {.mode = DEC_LIST, .kind = OBJ_NODE};
	const struct decode_reader *pb = &decode_pb_reader;
	void *d = pb->create(&spec);
	struct decode_state *st;
	struct kerr e = KERR_INIT;
	int r = -1;

	*reason = *message = NULL;
	*code = 0;
	if (!d)
		return -1;
	st = pb->state(d);
	/* a Status ends the list decoder with the Status as its error */
	if (pb->feed(d, buf, len, &e) < 0 && e.kind == KERR_STATUS && st->env.is_status) {
		*code = decode_status_code(st);
		*reason = st->env.st_reason;
		*message = st->env.st_message;
		st->env.st_reason = st->env.st_message = NULL;
		r = 0;
	}
	kerr_release(&e);
	pb->destroy(d);
	return r;
}
