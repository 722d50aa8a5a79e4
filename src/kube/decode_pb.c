/* The protobuf decoder.
 *
 * A body is the magic "k8s\0" and a runtime.Unknown message whose field 2
 * holds the encoded object or list; a watch stream is a sequence of frames,
 * each a 4-byte big-endian length and a WatchEvent whose object is again
 * the magic and a runtime.Unknown.
 *
 * The reader is pushed bytes as they arrive and never holds a message: it
 * keeps a stack of the messages it has entered (each with the position
 * where it ends) and, per field, either enters it, copies it (only the
 * strings that are kept), or counts its bytes away.  Which fields are kept,
 * and where their values go, is the field table's (decode_fields.c,
 * through decode_build.c); this file knows how protobuf writes each kind
 * of value: a map as repeated entries, a quantity as a message.
 * Everything else, most of each object, is skipped without a copy.  The
 * objects built are the same as the JSON decoder's for the same object: a
 * string JSON would omit when empty is absent here too when empty.
 */
#include "decode_pb.h"

#include "decode_json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 16

/* Field numbers below this are looked up in the decoder's index of the
 * rows it reads, built once: a field is then found with one load. */
#define PB_INDEXED 32

/* The messages protobuf writes a table's value in, beside the table's own:
 * a map's entry (1 key, 2 value) and a Quantity (1 string).  Their
 * frame's row is the field the value is of. */
enum { PB_ENTRY = M_COUNT, PB_QUANTITY, PB_RAW };

/* The fields of those; a RawExtension's (1 raw) holds JSON. */
enum pb_part { PART_NONE, PART_KEY, PART_VALUE, PART_QUANTITY, PART_RAW };

enum phase {
	PH_TAG,	   /* a field's key (varint) */
	PH_LEN,	   /* a length (varint) */
	PH_VARINT, /* a varint value */
	PH_SKIP,   /* bytes to pass */
	PH_COPY,   /* bytes of a kept string */
	PH_MAGIC,  /* the "k8s\0" before an Unknown */
	PH_FRAME,  /* watch: a frame's 4-byte length */
	PH_FAILED,
};

struct pb_frame {
	struct decode_frame f;
	uint64_t end;
};

/* A string read whole, NUL-terminated: a buffer that keeps its memory. */
struct pb_text {
	char *s;
	size_t len, cap;
};

struct pb_decoder {
	struct decode_state base;
	struct kerr *err;

	enum phase phase;
	uint64_t pos;  /* bytes consumed */
	uint64_t acc;  /* varint being read */
	unsigned shift;
	uint64_t need; /* PH_SKIP, PH_COPY, PH_MAGIC, PH_FRAME: bytes still to come */
	/* the field being read: a row of the table, or a part of an entry,
	 * or a Quantity (neither: skipped) */
	const struct decode_field *row;
	unsigned char part;
	unsigned wire;

	struct pb_frame stack[MAX_FRAMES];
	int depth;

	/* per message and field number, 1 + the row's place in the message's
	 * rows, or 0 for a field not read */
	unsigned char index[M_COUNT][PB_INDEXED];

	char *buf; /* PH_COPY, PH_MAGIC, PH_FRAME */
	size_t len, cap;

	/* the entry being read */
	struct pb_text key, value;
	bool has_key, has_value, key_unwanted;
};

static int pb_fail(struct pb_decoder *d, const char *msg)
{
	d->phase = PH_FAILED;
	if (d->err && d->err->kind == KERR_NONE)
		kerr_set(d->err, KERR_DECODE, "invalid protobuf in response: %s", msg);
	return -1;
}

static int pb_oom(struct pb_decoder *d)
{
	d->phase = PH_FAILED;
	if (d->err)
		kerr_set(d->err, KERR_OTHER, "out of memory");
	return -1;
}

/* decode_build.c failed, with d->err set. */
static int failed(struct pb_decoder *d)
{
	d->phase = PH_FAILED;
	return -1;
}

static struct pb_frame *pb_top(struct pb_decoder *d)
{
	return d->depth ? &d->stack[d->depth - 1] : NULL;
}

static int pb_push(struct pb_decoder *d, const struct decode_frame *f, uint64_t end)
{
	if (d->depth == MAX_FRAMES)
		return pb_fail(d, "nested too deeply");
	d->stack[d->depth++] = (struct pb_frame){*f, end};
	return 0;
}

/* --- values ------------------------------------------------------------------ */

/* Room for n bytes and a NUL in d->buf. */
static int buf_room(struct pb_decoder *d, size_t n)
{
	char *b;

	if (n < d->cap)
		return 0;
	if (!(b = kube_array_grow(d->buf, &d->cap, n + 1, 1, 256)))
		return pb_oom(d);
	d->buf = b;
	return 0;
}

/* A map entry's key or value: the bytes copied into d->buf become *dst's,
 * without a copy (the two swap buffers, each keeping its memory). */
static int take_entry_str(struct pb_decoder *d, struct pb_text *dst)
{
	struct pb_text t;

	if (buf_room(d, d->len) < 0)
		return -1;
	t = (struct pb_text){d->buf, d->len, d->cap};
	t.s[t.len] = '\0';
	d->buf = dst->s;
	d->cap = dst->cap;
	*dst = t;
	return 0;
}

/* A kept string has been copied into d->buf. */
static int on_string(struct pb_decoder *d)
{
	struct pb_frame *f = pb_top(d);
	struct decode_frame inside;

	switch (d->part) {
	case PART_KEY:
		d->has_key = true;
		return take_entry_str(d, &d->key);
	case PART_RAW:
		inside = (struct decode_frame){f->f.row, f->f.target, f->f.row->child};
		return decode_json_fragment(&d->base, &inside, d->buf, d->len, d->err) < 0 ? failed(d) : 0;
	case PART_QUANTITY:
		/* a Quantity of its own, not a map's */
		if (f->f.row->type == D_QUANTITY)
			return decode_put_str(&d->base, &f->f, f->f.row, d->buf, d->len, false, d->err) < 0 ? failed(d)
													     : 0;
		/* fall through */
	case PART_VALUE:
		d->has_value = true;
		return take_entry_str(d, &d->value);
	default:
		if (decode_put_str(&d->base, &f->f, d->row, d->buf, d->len, true, d->err) < 0)
			return failed(d);
		return 0;
	}
}

static int on_varint(struct pb_decoder *d, uint64_t v)
{
	const struct pb_frame *f = pb_top(d);

	decode_put_bool(&f->f, d->row, v != 0);
	decode_put_int(&f->f, d->row, (int64_t)v);
	return 0;
}

/* A map's entry ends: added when the filter keeps its key; a pod's node
 * selection counts an entry and records its key whatever the filter keeps. */
static int entry_end(struct pb_decoder *d, const struct pb_frame *f)
{
	struct decode_frame elem;
	int r;

	decode_put_nonempty(&d->base, f->f.row);
	if (!d->has_key)
		return 0;
	/* an entry of messages without its value: the element with its key */
	if (f->f.row->type == D_ENTRIES)
		return d->has_value || !decode_entry_kept(&d->base, f->f.row, d->key.s, d->key.len) ||
				       decode_entry_open(&f->f, d->key.s, d->key.len, &elem, d->err) == 0
			       ? 0
			       : failed(d);
	r = decode_entry_key(&d->base, &f->f, d->key.s, d->key.len, d->err);
	if (r <= 0 || d->key_unwanted)
		return r < 0 ? failed(d) : 0;
	if (decode_entry_add(&f->f, d->key.s, d->key.len, d->has_value ? d->value.s : "",
			     d->has_value ? d->value.len : 0, d->err) < 0)
		return failed(d);
	return 0;
}

static int pb_leave(struct pb_decoder *d)
{
	struct pb_frame f = d->stack[--d->depth];

	switch (f.f.msg) {
	case PB_ENTRY:
		return entry_end(d, &f);
	case PB_QUANTITY:
	case PB_RAW:
		return 0;
	default:
		return decode_leave(&d->base, &f.f, d->err) < 0 ? failed(d) : 0;
	}
}

/* --- fields ---------------------------------------------------------------------- */

static int skip_bytes(struct pb_decoder *d, uint64_t n)
{
	d->phase = PH_SKIP;
	d->need = n;
	return 0;
}

/* A kept string of n bytes: the buffer grows as the bytes arrive, not by
 * the length announced, which may be a lie. */
static int copy_bytes(struct pb_decoder *d, uint64_t n)
{
	d->phase = PH_COPY;
	d->need = n;
	d->len = 0;
	return 0;
}

/* A message protobuf writes a value in (PB_*), for the field of row in f,
 * ending at end. */
static int open_value(struct pb_decoder *d, const struct pb_frame *f, const struct decode_field *row, unsigned msg,
		      uint64_t end)
{
	const struct decode_frame v = {row, f->f.target, (unsigned char)msg};

	d->phase = PH_TAG;
	return pb_push(d, &v, end);
}

/* The value of an entry of a D_ENTRIES map in f, a message of n bytes,
 * opens: it fills a new element named by the key read before it. */
static int open_entry(struct pb_decoder *d, const struct pb_frame *f, uint64_t n)
{
	struct decode_frame child;

	d->has_value = true;
	if (decode_entry_open(&f->f, d->has_key ? d->key.s : "", d->has_key ? d->key.len : 0, &child, d->err) < 0)
		return failed(d);
	d->phase = PH_TAG;
	return pb_push(d, &child, d->pos + n);
}

/* A part of an entry or a Quantity, of n bytes, starts. */
static int part_start(struct pb_decoder *d, const struct pb_frame *f, uint64_t n)
{
	switch (d->part) {
	case PART_KEY:
	case PART_QUANTITY:
	case PART_RAW:
		return copy_bytes(d, n);
	case PART_VALUE:
		if (d->has_key && !decode_entry_kept(&d->base, f->f.row, d->key.s, d->key.len)) {
			d->key_unwanted = true;
			return skip_bytes(d, n);
		}
		if (f->f.row->type == D_ENTRIES)
			return open_entry(d, f, n);
		/* a string in string maps, a Quantity message in resource maps */
		if (f->f.row->type == D_QUANTITIES)
			return open_value(d, f, f->f.row, PB_QUANTITY, d->pos + n);
		return copy_bytes(d, n);
	default:
		return skip_bytes(d, n);
	}
}

/* A message of the table, the field row of n bytes, opens in f. */
static int open_message(struct pb_decoder *d, const struct pb_frame *f, const struct decode_field *row, uint64_t n)
{
	struct decode_frame child;

	if (d->depth == MAX_FRAMES)
		return pb_fail(d, "nested too deeply");
	/* JSON counts a node affinity with any key in it */
	if (n)
		decode_put_nonempty(&d->base, row);
	if (decode_enter(&d->base, &f->f, row, &child, d->err) < 0)
		return failed(d);
	if (pb_push(d, &child, d->pos + n) < 0)
		return -1;
	/* inside RawExtension, the object starts with the magic */
	d->phase = f->f.msg == M_RAW ? PH_MAGIC : PH_TAG;
	d->need = 4;
	d->len = 0;
	if (d->phase == PH_MAGIC && n < 4)
		return pb_fail(d, "an embedded object without the k8s magic");
	return 0;
}

/* A length-delimited field of n bytes starts. */
static int field_start(struct pb_decoder *d, uint64_t n)
{
	const struct decode_field *row = d->row;
	struct pb_frame *f = pb_top(d);

	if (n > f->end - d->pos)
		return pb_fail(d, "a field runs past its message");
	if (d->part)
		return part_start(d, f, n);
	if (!row)
		return skip_bytes(d, n);
	switch (row->type) {
	case D_STR:
	case D_MATCH:
	case D_STRS:
		return copy_bytes(d, n);
	case D_PRESENT:
		decode_put_present(&f->f, row);
		return skip_bytes(d, n);
	case D_QUANTITY:
		return open_value(d, f, row, PB_QUANTITY, d->pos + n);
	case D_RAW:
		return open_value(d, f, row, PB_RAW, d->pos + n);
	case D_MAP:
	case D_QUANTITIES:
	case D_ENTRIES:
		d->has_key = d->has_value = d->key_unwanted = false;
		d->key.len = d->value.len = 0;
		return open_value(d, f, row, PB_ENTRY, d->pos + n);
	case D_MSG:
	case D_LIST:
	case D_PICK_FLAG:
	case D_PICK_STR:
	case D_ITEMS:
	case D_BODY:
		return open_message(d, f, row, n);
	default:
		return skip_bytes(d, n);
	}
}

/* Leave every message that ends here. */
static int leave_ended(struct pb_decoder *d)
{
	while (d->depth && d->stack[d->depth - 1].end == d->pos) {
		bool event = d->stack[d->depth - 1].f.msg == M_EVENT;

		if (pb_leave(d) < 0)
			return -1;
		if (event) {
			d->phase = PH_FRAME;
			d->need = 4;
			d->len = 0;
		}
	}
	return 0;
}

/* After a field: the next tag, unless the message it was in ends here. */
static inline int field_done(struct pb_decoder *d)
{
	d->phase = PH_TAG;
	if (d->depth && d->stack[d->depth - 1].end == d->pos)
		return leave_ended(d);
	return 0;
}

/* Field num of the message in f: a part of one of protobuf's own, or a row
 * of the table (NULL: not kept). */
static void find_field(struct pb_decoder *d, const struct pb_frame *f, uint64_t num)
{
	static const unsigned char parts[][3] = {
		[PB_ENTRY - M_COUNT] = {PART_NONE, PART_KEY, PART_VALUE},
		[PB_QUANTITY - M_COUNT] = {PART_NONE, PART_QUANTITY, PART_NONE},
		[PB_RAW - M_COUNT] = {PART_NONE, PART_RAW, PART_NONE},
	};

	unsigned i;

	d->row = NULL;
	d->part = PART_NONE;
	if (f->f.msg >= M_COUNT) {
		d->part = num < 3 ? parts[f->f.msg - M_COUNT][num] : PART_NONE;
	} else if (num < PB_INDEXED) {
		i = d->index[f->f.msg][num];
		d->row = i ? &decode_messages[f->f.msg][i - 1] : NULL;
	} else if (num < 256) {
		d->row = decode_find_pb(&d->base, f->f.msg, num);
	}
}

static int read_tag(struct pb_decoder *d, uint64_t tag)
{
	uint64_t num = tag >> 3;
	struct pb_frame *f = pb_top(d);
	bool varint;

	if (!f)
		return pb_fail(d, "data after the end of the object");
	d->wire = (unsigned)(tag & 7);
	if (num == 0)
		return pb_fail(d, "field number 0");
	find_field(d, f, num);
	switch (d->wire) {
	case 0:
		d->phase = PH_VARINT;
		break;
	case 1:
	case 5:
		d->row = NULL;
		d->part = PART_NONE;
		d->phase = PH_SKIP;
		d->need = d->wire == 1 ? 8 : 4;
		if (d->need > f->end - d->pos)
			return pb_fail(d, "a field runs past its message");
		break;
	case 2:
		d->phase = PH_LEN;
		break;
	default:
		return pb_fail(d, "unsupported wire type");
	}
	/* a kept field of the wrong type is not one */
	varint = !d->part && d->row && (d->row->type == D_BOOL || d->row->type == D_INT);
	if ((d->row || d->part) && (varint != (d->wire == 0) || (d->wire != 0 && d->wire != 2))) {
		d->row = NULL;
		d->part = PART_NONE;
	}
	d->acc = 0;
	d->shift = 0;
	return 0;
}

/* --- bytes ---------------------------------------------------------------------------- */

static int varint_done(struct pb_decoder *d)
{
	uint64_t v = d->acc;

	d->acc = 0;
	d->shift = 0;
	switch (d->phase) {
	case PH_TAG:
		return read_tag(d, v);
	case PH_LEN:
		return field_start(d, v);
	default:
		if ((d->row || d->part) && on_varint(d, v) < 0)
			return -1;
		return field_done(d);
	}
}

/* One byte of a tag, a length or a varint value; the field it completes
 * may end at once (nothing to skip or copy, or an empty message). */
static int varint_byte(struct pb_decoder *d, unsigned char c)
{
	d->pos++;
	if (d->depth && d->pos > d->stack[d->depth - 1].end)
		return pb_fail(d, "a field runs past its message");
	if (d->shift >= 64)
		return pb_fail(d, "varint too long");
	d->acc |= (uint64_t)(c & 0x7f) << d->shift;
	d->shift += 7;
	if (c & 0x80)
		return 0;
	if (varint_done(d) < 0)
		return -1;
	if (d->phase == PH_SKIP && d->need == 0)
		return field_done(d);
	if (d->phase == PH_COPY && d->need == 0)
		return on_string(d) < 0 ? -1 : field_done(d);
	if (d->phase == PH_TAG && d->depth && d->stack[d->depth - 1].end == d->pos)
		return field_done(d); /* an empty message just entered */
	return 0;
}

/* Bytes to skip or to copy, from p[*i] on: the field ends with the last. */
static int take_bytes(struct pb_decoder *d, const unsigned char *p, size_t len, size_t *i)
{
	size_t n = len - *i < d->need ? len - *i : (size_t)d->need;

	if (d->phase == PH_COPY) {
		if (buf_room(d, d->len + n) < 0)
			return -1;
		memcpy(d->buf + d->len, p + *i, n);
		d->len += n;
	}
	*i += n;
	d->pos += n;
	d->need -= n;
	if (d->need)
		return 0;
	if (d->phase == PH_COPY && on_string(d) < 0)
		return -1;
	return field_done(d);
}

/* One byte of the magic or of a watch frame's length. */
static int magic_byte(struct pb_decoder *d, unsigned char c)
{
	struct decode_frame ev;

	d->pos++;
	d->acc = d->len ? d->acc : 0;
	d->acc = (d->acc << 8) | c;
	if (++d->len < 4)
		return 0;
	d->len = 0;
	if (d->phase == PH_MAGIC) {
		if (d->acc != UINT64_C(0x6b387300))
			return pb_fail(d, "an embedded object without the k8s magic");
	} else if (decode_enter_root(&d->base, M_EVENT, &ev, d->err) < 0) {
		return failed(d);
	} else if (pb_push(d, &ev, d->pos + d->acc) < 0) {
		return -1;
	}
	/* the fields follow, unless the message ends here */
	d->acc = 0;
	d->shift = 0;
	return field_done(d);
}

static int pb_feed_bytes(struct pb_decoder *d, const unsigned char *p, size_t len)
{
	size_t i = 0;
	int r;

	while (i < len) {
		switch (d->phase) {
		case PH_SKIP:
		case PH_COPY:
			r = take_bytes(d, p, len, &i);
			break;
		case PH_MAGIC:
		case PH_FRAME:
			r = magic_byte(d, p[i++]);
			break;
		case PH_FAILED:
			return -1;
		default:
			r = varint_byte(d, p[i++]);
			break;
		}
		if (r < 0)
			return -1;
	}
	return 0;
}

/* --- the decoder ------------------------------------------------------------------------- */

static void index_build(struct pb_decoder *d)
{
	const struct decode_field *row;

	for (unsigned m = 1; m < M_COUNT; m++)
		for (unsigned num = 1; num < PB_INDEXED; num++) {
			row = decode_find_pb(&d->base, m, num);
			d->index[m][num] = row ? (unsigned char)(row - decode_messages[m] + 1) : 0;
		}
}

static void *pb_create(const struct decode_spec *spec)
{
	struct pb_decoder *d = calloc(1, sizeof(*d));
	struct decode_frame envelope;

	if (!d)
		return NULL;
	decode_state_init(&d->base, spec, "protobuf");
	index_build(d);
	if (spec->mode == DEC_WATCH) {
		d->phase = PH_FRAME;
	} else {
		/* the envelope: the magic, then an Unknown to the end */
		decode_enter_root(&d->base, M_UNKNOWN, &envelope, NULL);
		d->stack[0] = (struct pb_frame){envelope, UINT64_MAX};
		d->depth = 1;
		d->phase = PH_MAGIC;
	}
	return d;
}

static int pb_feed(void *dec, const void *buf, size_t len, struct kerr *err)
{
	struct pb_decoder *d = dec;
	int r;

	if (d->phase == PH_FAILED)
		return kerr_set(err, KERR_DECODE, "invalid protobuf in response: decoding already failed");
	if (len)
		d->base.started = true;
	d->err = err;
	r = pb_feed_bytes(d, buf, len);
	d->err = NULL;
	return r;
}

static int pb_finish(void *dec, struct kerr *err)
{
	struct pb_decoder *d = dec;
	if (d->phase == PH_FAILED)
		return kerr_set(err, KERR_DECODE, "invalid protobuf in response: decoding already failed");
	if (!d->base.started)
		return kerr_set(err, KERR_DECODE, "invalid protobuf in response: empty body");
	if (d->base.spec.mode == DEC_WATCH) {
		if (d->phase != PH_FRAME || d->len)
			return kerr_set(err, KERR_DECODE, "invalid protobuf in response: unexpected end of data");
		return 0;
	}
	if (d->phase != PH_TAG || d->shift || d->depth != 1)
		return kerr_set(err, KERR_DECODE, "invalid protobuf in response: unexpected end of data");
	if (!d->base.root_done)
		return kerr_set(err, KERR_DECODE, "invalid protobuf in response: no object in the envelope");
	return 0;
}

static struct decode_state *pb_state(void *dec)
{
	struct pb_decoder *d = dec;

	return &d->base;
}

static void pb_destroy(void *dec)
{
	struct pb_decoder *d = dec;

	if (!d)
		return;
	decode_state_release(&d->base);
	free(d->buf);
	free(d->key.s);
	free(d->value.s);
	free(d);
}

const struct decode_reader decode_pb_reader = {pb_create, pb_feed, pb_finish, pb_state, pb_destroy};
