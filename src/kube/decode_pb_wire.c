/* The protobuf decoder's wire side: tags, varints and lengths read a byte
 * at a time as they arrive, kept strings copied, everything else counted
 * away, and the messages entered left again where their length says.
 */
#include "decode_pb.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A length-delimited field of n bytes starts. */
static int field_start(struct pb_decoder *d, uint64_t n)
{
	const struct pb_key *k = d->key;
	const struct decode_filter *filter = d->base.spec.filter;
	struct pb_frame *f = pb_top(d);
	unsigned map, child;

	if (n > f->end - d->pos)
		return pb_fail(d, "a field runs past its message");
	if (!k) {
		d->phase = PH_SKIP;
		d->need = n;
		return 0;
	}
	switch (k->how) {
	case H_MSG:
		child = pb_child_of(d, k, &map);
		if (child == P_ENTRY && f->ctx == P_META &&
		    !(k->field == F_LABELS ? filter->all_labels || filter->label_keys
					   : filter->all_annotations || filter->annotation_keys)) {
			d->phase = PH_SKIP;
			d->need = n;
			return 0;
		}
		/* JSON counts a node affinity with any key in it */
		if (k->field == F_NODE_AFFINITY && n && d->base.pod)
			d->base.pod->has_node_selector = true;
		if (pb_push(d, child, d->pos + n, map, k->field) < 0)
			return -1;
		/* inside RawExtension, the object starts with the magic */
		d->phase = f->ctx == P_RAW_EXT ? PH_MAGIC : PH_TAG;
		d->need = 4;
		d->len = 0;
		if (d->phase == PH_MAGIC && n < 4)
			return pb_fail(d, "an embedded object without the k8s magic");
		return 0;
	case H_STR:
		/* an entry's value: a string in string maps, a Quantity message in resource maps */
		if (k->field == F_VALUE) {
			if (d->has_key && !pb_want_entry(d, f->map, d->ekey, d->ekeylen)) {
				d->key_unwanted = true;
				d->phase = PH_SKIP;
				d->need = n;
				return 0;
			}
			if (f->map >= M_CAPACITY) {
				if (pb_push(d, P_QUANTITY, d->pos + n, 0, k->field) < 0)
					return -1;
				d->phase = PH_TAG;
				return 0;
			}
		}
		/* the buffer grows as the bytes arrive, not by the length
		 * announced, which may be a lie */
		d->phase = PH_COPY;
		d->need = n;
		d->len = 0;
		return 0;
	case H_PRESENT:
		if (k->field == F_DELETED && d->base.pod)
			d->base.pod->deleting = true;
		d->phase = PH_SKIP;
		d->need = n;
		return 0;
	default:
		d->phase = PH_SKIP;
		d->need = n;
		return 0;
	}
}

/* After a field: leave every message that ends here. */
static int field_done(struct pb_decoder *d)
{
	d->phase = PH_TAG;
	while (d->depth && d->stack[d->depth - 1].end == d->pos) {
		bool event = d->stack[d->depth - 1].ctx == P_EVENT;

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

static int read_tag(struct pb_decoder *d, uint64_t tag)
{
	uint64_t num = tag >> 3;
	struct pb_frame *f = pb_top(d);

	if (!f)
		return pb_fail(d, "data after the end of the object");
	d->wire = (unsigned)(tag & 7);
	if (num == 0)
		return pb_fail(d, "field number 0");
	d->key = num < 256 ? pb_find_key(d, f->ctx, num) : NULL;
	switch (d->wire) {
	case 0:
		d->phase = PH_VARINT;
		break;
	case 1:
	case 5:
		d->key = NULL;
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
	if (d->key && ((d->key->how == H_VARINT) != (d->wire == 0) || (d->wire != 0 && d->wire != 2)))
		d->key = NULL;
	d->acc = 0;
	d->shift = 0;
	return 0;
}

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
		if (d->key && pb_on_varint(d, v) < 0)
			return -1;
		return field_done(d);
	}
}

static int pb_feed_bytes(struct pb_decoder *d, const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		switch (d->phase) {
		case PH_TAG:
		case PH_LEN:
		case PH_VARINT: {
			unsigned char c = p[i++];

			d->pos++;
			if (d->depth && d->pos > d->stack[d->depth - 1].end)
				return pb_fail(d, "a field runs past its message");
			if (d->shift >= 64)
				return pb_fail(d, "varint too long");
			d->acc |= (uint64_t)(c & 0x7f) << d->shift;
			d->shift += 7;
			if (c & 0x80)
				break;
			if (varint_done(d) < 0)
				return -1;
			if (d->phase == PH_SKIP && d->need == 0 && field_done(d) < 0)
				return -1;
			else if (d->phase == PH_COPY && d->need == 0) {
				if (pb_on_string(d) < 0 || field_done(d) < 0)
					return -1;
			} else if (d->phase == PH_TAG && d->depth && d->stack[d->depth - 1].end == d->pos &&
				   field_done(d) < 0) {
				return -1; /* an empty message just entered */
			}
			break;
		}
		case PH_SKIP:
		case PH_COPY: {
			size_t n = len - i < d->need ? len - i : (size_t)d->need;

			if (d->phase == PH_COPY) {
				if (d->len + n > d->cap) {
					char *b = kube_array_grow(d->buf, &d->cap, d->len + n, 1, 256);

					if (!b)
						return pb_oom(d);
					d->buf = b;
				}
				memcpy(d->buf + d->len, p + i, n);
				d->len += n;
			}
			i += n;
			d->pos += n;
			d->need -= n;
			if (d->need)
				break;
			if (d->phase == PH_COPY && pb_on_string(d) < 0)
				return -1;
			if (field_done(d) < 0)
				return -1;
			break;
		}
		case PH_MAGIC:
		case PH_FRAME: {
			unsigned char c = p[i++];

			d->pos++;
			d->acc = d->len ? d->acc : 0;
			d->acc = (d->acc << 8) | c;
			d->len++;
			if (d->len < 4)
				break;
			d->len = 0;
			if (d->phase == PH_MAGIC) {
				if (d->acc != UINT64_C(0x6b387300))
					return pb_fail(d, "an embedded object without the k8s magic");
			} else if (pb_push(d, P_EVENT, d->pos + d->acc, 0, 0) < 0) {
				return -1;
			}
			/* the fields follow, unless the message ends here */
			d->acc = 0;
			d->shift = 0;
			if (field_done(d) < 0)
				return -1;
			break;
		}
		case PH_FAILED:
			return -1;
		}
	}
	return 0;
}

/* --- the decoder ----------------------------------------------------------- */

struct pb_decoder *pb_decoder_new(const struct decode_spec *spec)
{
	struct pb_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	decode_state_init(&d->base, spec);
	if (spec->mode == DEC_WATCH) {
		d->phase = PH_FRAME;
	} else {
		/* the envelope: the magic, then an Unknown to the end */
		d->stack[0] = (struct pb_frame){UINT64_MAX, P_UNKNOWN, 0, 0};
		d->depth = 1;
		d->phase = PH_MAGIC;
	}
	return d;
}

int pb_decoder_feed(struct pb_decoder *d, const void *buf, size_t len, struct kerr *err)
{
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

int pb_decoder_finish(struct pb_decoder *d, struct kerr *err)
{
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

struct decode_state *pb_decoder_state(struct pb_decoder *d)
{
	return &d->base;
}

void pb_decoder_free(struct pb_decoder *d)
{
	if (!d)
		return;
	decode_state_release(&d->base);
	free(d->buf);
	free(d->ekey);
	free(d->evalue);
	free(d);
}

bool decode_is_protobuf(const void *buf, size_t len)
{
	return len >= 4 && memcmp(buf, "k8s", 4) == 0;
}

int decode_status_pb(const void *buf, size_t len, long *code, char **reason, char **message)
{
	const struct decode_spec spec = {.mode = DEC_LIST, .kind = OBJ_NODE};
	struct pb_decoder *d;
	struct kerr e = KERR_INIT;
	int r = -1;

	*reason = *message = NULL;
	*code = 0;
	d = pb_decoder_new(&spec);
	if (!d)
		return -1;
	/* a Status ends the list decoder with the Status as its error */
	if (pb_decoder_feed(d, buf, len, &e) < 0 && e.kind == KERR_STATUS && d->is_status) {
		*code = d->base.st_code;
		*reason = d->base.st_reason;
		*message = d->base.st_message;
		d->base.st_reason = d->base.st_message = NULL;
		r = 0;
	}
	kerr_release(&e);
	pb_decoder_free(d);
	return r;
}
