/* The JSON decoder: yajl events driven through a small state machine.
 *
 * The state is a stack of frames, one per JSON object or array that holds
 * something we keep (a list, an item, its metadata, a container...).  Such
 * containers are at most a few levels deep, so the stack has a fixed size
 * that the input cannot change: any object or array we have no use for is
 * skipped by counting its depth, without a frame, a copy or an allocation.
 * That covers managedFields, volumes, containerStatuses and anything
 * hostile input nests, however deep.
 *
 * Which keys are kept, and where their values go, is the field table's
 * (decode_fields.c, through decode_build.c); this file knows how JSON
 * writes each kind of value.  Strings are copied only for the fields kept,
 * and only once, straight from yajl's buffer into the object.
 */
#include "decode_json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "decode_prefilter.h"

#define MAX_DEPTH 16

/* What a frame's JSON container is. */
enum jkind {
	J_OBJECT, /* a message: its keys are fields of the table */
	J_MAP,	  /* a D_MAP or D_QUANTITIES: its keys are the map's */
	J_ARRAY,  /* a repeated field: its elements are its values */
};

struct jframe {
	struct decode_frame f; /* J_MAP, J_ARRAY: the field's row, and the struct holding it */
	unsigned char kind;    /* enum jkind */
	bool status_too;       /* a Status may stand here (a list, an event's object): its fields are read too */
};

struct json_decoder {
	struct decode_state base;
	yajl_handle h;
	struct kerr *err; /* during a feed */
	bool failed;

	struct jframe stack[MAX_DEPTH];
	int depth;
	size_t skip; /* > 0: inside a subtree being skipped */
	/* the key just read: its row, and the frame its value goes to (the
	 * top's, or the Status's); or a map's entry that is kept (in keybuf) */
	const struct decode_field *field;
	const struct decode_frame *field_in;
	bool entry;
	struct decode_frame status;
	char *keybuf;
	size_t keylen, keycap;

	struct prefilter pf;
	bool pf_on;
	/* a fragment (decode_json_fragment): the message its top object is */
	struct decode_frame fragment;

	/* input held back while a long token is being read */
	size_t events, run;
	unsigned char *held;
	size_t held_len, held_cap;
};

/* Callbacks return 0 to stop yajl; the reason is then in d->err. */
static int fail(struct json_decoder *d, enum kerr_kind kind, const char *msg)
{
	d->failed = true;
	kerr_set(d->err, kind, "%s", msg);
	return 0;
}

/* decode_build.c failed, with d->err set. */
static int failed(struct json_decoder *d)
{
	d->failed = true;
	return 0;
}

static struct jframe *top(struct json_decoder *d)
{
	return d->depth > 0 ? &d->stack[d->depth - 1] : NULL;
}

/* Deeper down a value of the wrong type reads as absent, but a list whose
 * items are not a list of objects is not the answer to the request (a
 * proxy's idea of JSON, a wrong server): showing an empty cluster would
 * hide that. */
static int bad_items(struct json_decoder *d, bool in_items)
{
	if (in_items)
		return fail(d, KERR_DECODE, "invalid JSON in response: a list item is not an object");
	return fail(d, KERR_DECODE, "invalid JSON in response: the list's items are not an array");
}

static int not_an_object(struct json_decoder *d)
{
	return fail(d, KERR_DECODE, "invalid JSON in response: expected an object");
}

/* --- containers --------------------------------------------------------------- */

static int skip(struct json_decoder *d)
{
	d->skip = 1;
	return 1;
}

static int push(struct json_decoder *d, const struct decode_frame *f, enum jkind kind, bool status_too)
{
	d->stack[d->depth++] = (struct jframe){*f, (unsigned char)kind, status_too};
	d->field = NULL;
	d->entry = false;
	return 1;
}

static bool full(const struct json_decoder *d)
{
	return d->depth == MAX_DEPTH;
}

static int too_deep(struct json_decoder *d)
{
	return fail(d, KERR_DECODE, "invalid JSON in response: nested too deeply");
}

/* The response's top object: the list, a watch event or the object. */
static int open_root(struct json_decoder *d)
{
	enum dec_mode mode = d->base.spec.mode;
	unsigned msg = mode == DEC_LIST ? M_LIST : mode == DEC_WATCH ? M_EVENT : d->base.kind->root;
	struct decode_frame f;

	if (d->fragment.msg)
		return push(d, &d->fragment, J_OBJECT, false);
	if (decode_enter_root(&d->base, msg, &f, d->err) < 0)
		return failed(d);
	return push(d, &f, J_OBJECT, msg == M_LIST);
}

/* The message of row opens in frame in (the value of a key, or an element). */
static int open_message(struct json_decoder *d, const struct decode_frame *in, const struct decode_field *row)
{
	struct decode_frame f;

	if (full(d))
		return too_deep(d);
	if (decode_enter(&d->base, in, row, &f, d->err) < 0)
		return failed(d);
	return push(d, &f, J_OBJECT, row->type == D_OBJECT);
}

/* The value of a kept entry of a D_ENTRIES map opens: a message that
 * fills a new element, whose first member is the key. */
static int open_entry(struct json_decoder *d, const struct jframe *t)
{
	struct decode_frame f;

	if (full(d))
		return too_deep(d);
	if (decode_entry_open(&t->f, d->keybuf, d->keylen, &f, d->err) < 0)
		return failed(d);
	return push(d, &f, J_OBJECT, false);
}

/* The JSON container a field's value is: an object (a message, J_OBJECT,
 * or a map, J_MAP), an array (a repeated field), or -1 for a scalar. */
static int json_shape(const struct decode_field *row)
{
	switch (row->type) {
	case D_MSG:
	case D_OBJECT:
	case D_RAW:
		return J_OBJECT;
	case D_MAP:
	case D_QUANTITIES:
	case D_ENTRIES:
		return J_MAP;
	case D_LIST:
	case D_PICK_FLAG:
	case D_PICK_STR:
	case D_ITEMS:
	case D_STRS:
		return J_ARRAY;
	default:
		return -1;
	}
}

/* An object (obj) or an array opens as the value of the key just read: a
 * value of another shape than the field's reads as absent. */
static int open_field(struct json_decoder *d, bool obj)
{
	const struct decode_field *row = d->field;
	int shape = row ? json_shape(row) : -1;
	struct decode_frame f;

	if (row && row->type == D_ITEMS && obj)
		return bad_items(d, false);
	if (shape < 0 || (shape == J_ARRAY) == obj)
		return skip(d);
	if (shape == J_OBJECT)
		return open_message(d, d->field_in, row);
	if (full(d))
		return too_deep(d);
	f = (struct decode_frame){row, d->field_in->target, M_NONE};
	return push(d, &f, (enum jkind)shape, false);
}

/* Every callback counts itself: a feed() that produced none was spent
 * inside one token (see feed_raw()). */
static struct json_decoder *seen(void *ctx)
{
	struct json_decoder *d = ctx;

	d->events++;
	return d;
}

/* An object (obj) or an array opens. */
static int on_start(struct json_decoder *d, bool obj)
{
	struct jframe *t;

	if (d->skip) {
		d->skip++;
		return 1;
	}
	t = top(d);
	if (!t)
		return obj ? open_root(d) : not_an_object(d);
	if (t->kind == J_OBJECT)
		return open_field(d, obj);
	if (t->kind == J_MAP)
		return obj && d->entry && t->f.row->type == D_ENTRIES ? open_entry(d, t) : skip(d);
	if (t->f.row->type == D_ITEMS && !obj)
		return bad_items(d, true);
	return obj && t->f.row->type != D_STRS ? open_message(d, &t->f, t->f.row) : skip(d);
}

static int cb_start_map(void *ctx)
{
	return on_start(seen(ctx), true);
}

static int cb_start_array(void *ctx)
{
	return on_start(seen(ctx), false);
}

static int cb_end(void *ctx)
{
	struct json_decoder *d = seen(ctx);
	struct jframe f;

	if (d->skip) {
		d->skip--;
		return 1;
	}
	f = d->stack[--d->depth];
	d->field = NULL;
	d->entry = false;
	if (f.kind == J_OBJECT && decode_leave(&d->base, &f.f, d->err) < 0)
		return failed(d);
	return 1;
}

/* --- keys and values ------------------------------------------------------------ */

/* A key of a map: kept in keybuf when the filter keeps its entry. */
static int map_key(struct json_decoder *d, const struct jframe *t, const unsigned char *k, size_t len)
{
	int r = decode_entry_key(&d->base, &t->f, k, len, d->err);

	if (r <= 0)
		return r < 0 ? failed(d) : 1;
	if (len + 1 > d->keycap) {
		char *p = realloc(d->keybuf, len + 1);

		if (!p)
			return fail(d, KERR_OTHER, "out of memory");
		d->keybuf = p;
		d->keycap = len + 1;
	}
	memcpy(d->keybuf, k, len);
	d->keylen = len;
	d->entry = true;
	return 1;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t len)
{
	struct json_decoder *d = seen(ctx);
	struct jframe *t;

	if (d->skip)
		return 1;
	t = top(d);
	d->field = NULL;
	d->entry = false;
	if (t->kind == J_MAP)
		return map_key(d, t, k, len);
	/* a message of a pod's node selection with a key in it is not empty */
	if (t->f.row && (t->f.row->flags & DECODE_NODE_SELECTION))
		decode_put_nonempty(&d->base, t->f.row);
	d->field = decode_find_json(&d->base, t->f.msg, k, len);
	d->field_in = &t->f;
	if (!d->field && t->status_too) {
		d->field = decode_find_json(&d->base, M_STATUS, k, len);
		d->field_in = &d->status;
	}
	return 1;
}

/* The value of the map entry kept: strings, and numbers as written (the
 * API writes quantities as strings, but a number is still readable). */
static int entry_value(struct json_decoder *d, const struct jframe *t, const void *s, size_t len)
{
	d->entry = false;
	if (t->f.row->type == D_ENTRIES) /* a message was due */
		return 1;
	if (decode_entry_add(&t->f, d->keybuf, d->keylen, s, len, d->err) < 0)
		return failed(d);
	return 1;
}

enum scalar { SCALAR_STRING, SCALAR_NUMBER, SCALAR_BOOL };

/* A scalar in an array: a string of a D_STRS is one of its values; in the
 * items, no scalar but null belongs. */
static int element_scalar(struct json_decoder *d, const struct jframe *t, enum scalar kind, const void *s,
			  size_t len)
{
	if (t->f.row->type == D_ITEMS)
		return bad_items(d, true);
	if (kind == SCALAR_STRING && t->f.row->type == D_STRS &&
	    decode_put_str(&d->base, &t->f, t->f.row, s, len, false, d->err) < 0)
		return failed(d);
	return 1;
}

/* A scalar (s, len: a string or a number as written) arrives: the row of
 * the field it is the value of; NULL when it is none, *ret then what the
 * callback returns. */
static const struct decode_field *scalar_field(struct json_decoder *d, enum scalar kind, const void *s, size_t len,
					       int *ret)
{
	struct jframe *t;

	*ret = 1;
	if (d->skip)
		return NULL;
	t = top(d);
	if (!t)
		*ret = not_an_object(d);
	else if (d->entry && kind != SCALAR_BOOL)
		*ret = entry_value(d, t, s, len);
	else if (t->kind == J_ARRAY)
		*ret = element_scalar(d, t, kind, s, len);
	else if (t->kind == J_OBJECT && d->field && d->field->type == D_ITEMS)
		*ret = bad_items(d, false);
	else if (t->kind == J_OBJECT)
		return d->field;
	return NULL;
}

static bool is_string_field(const struct decode_field *row)
{
	return row->type == D_STR || row->type == D_MATCH || row->type == D_PRESENT ||
	       row->type == D_QUANTITY;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct json_decoder *d = seen(ctx);
	int r;
	const struct decode_field *row = scalar_field(d, SCALAR_STRING, s, len, &r);

	if (row && is_string_field(row) && decode_put_str(&d->base, d->field_in, row, s, len, false, d->err) < 0)
		return failed(d);
	return r;
}

/* An integer as JSON writes it; anything else (a fraction, an exponent)
 * reads as 0.  Past the range of int64_t it stays at its end. */
static int64_t json_int(const char *s, size_t len)
{
	bool neg = len && s[0] == '-';
	int64_t v = 0;

	for (size_t i = neg; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v <= (INT64_MAX - 9) / 10)
			v = v * 10 + (s[i] - '0');
		else
			v = INT64_MAX;
	}
	return neg ? -v : v;
}

static int cb_number(void *ctx, const char *s, size_t len)
{
	struct json_decoder *d = seen(ctx);
	int r;
	const struct decode_field *row = scalar_field(d, SCALAR_NUMBER, s, len, &r);

	if (row)
		decode_put_int(d->field_in, row, json_int(s, len));
	return r;
}

static int cb_boolean(void *ctx, int value)
{
	struct json_decoder *d = seen(ctx);
	int r;
	const struct decode_field *row = scalar_field(d, SCALAR_BOOL, NULL, 0, &r);

	if (row)
		decode_put_bool(d->field_in, row, value);
	return r;
}

static int cb_null(void *ctx)
{
	struct json_decoder *d = seen(ctx);

	if (!d->skip && !top(d))
		return not_an_object(d);
	return 1;
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

/* --- driving yajl ----------------------------------------------------------------- */

static int parse_error(struct json_decoder *d, struct kerr *err, const unsigned char *buf, size_t len)
{
	unsigned char *msg;
	const char *text;
	size_t n;

	d->failed = true;
	msg = yajl_get_error(d->h, 0, buf, len);
	text = msg ? (const char *)msg : "parse error";
	/* "parse error: trailing garbage\n" -> "trailing garbage" */
	if (strncmp(text, "parse error: ", 13) == 0)
		text += 13;
	else if (strncmp(text, "lexical error: ", 15) == 0)
		text += 15;
	if (strncmp(text, "premature EOF", 13) == 0)
		text = d->base.started ? "unexpected end of data" : "empty body";
	n = strcspn(text, "\n");
	while (n && (text[n - 1] == ' ' || text[n - 1] == '.'))
		n--;
	kerr_set(err, KERR_DECODE, "invalid JSON in response: %.*s", (int)n, text);
	if (msg)
		yajl_free_error(d->h, msg);
	return -1;
}

static int parse(struct json_decoder *d, const unsigned char *p, size_t len, struct kerr *err)
{
	size_t events = d->events;
	yajl_status st;

	d->err = err;
	st = yajl_parse(d->h, p, len);
	d->err = NULL;
	d->run = d->events == events ? d->run + len : 0;
	if (st == yajl_status_ok)
		return 0;
	if (d->failed) /* stopped by a callback, which set err */
		return -1;
	return parse_error(d, err, p, len);
}

static int flush_held(struct json_decoder *d, struct kerr *err)
{
	size_t n = d->held_len;

	if (!n)
		return 0;
	d->held_len = 0;
	return parse(d, d->held, n, err);
}

/* yajl keeps a token that spans chunks in a buffer and lexes it again from
 * its start with every new chunk, so a 10 MB annotation arriving in 16 KiB
 * reads would cost gigabytes of scanning.  Once a whole chunk went by
 * without completing anything, input is held back until it at least
 * doubles what that token has taken so far: each rescan is then paid for by
 * as many new bytes, and the total stays linear.  A newline ends every
 * watch event (JSON strings cannot hold a raw one), so holding never delays
 * an event that is complete. */
#define HOLD_AFTER 4096

/* Hands bytes to yajl, holding them back as explained above. */
static int feed_raw(void *ud, const unsigned char *p, size_t len, struct kerr *err)
{
	struct json_decoder *d = ud;

	if (!len)
		return 0;
	if (d->run < HOLD_AFTER && !d->held_len)
		return parse(d, p, len, err);
	if (d->held_len + len > d->held_cap) {
		unsigned char *q = kube_array_grow(d->held, &d->held_cap, d->held_len + len, 1, 4096);

		if (!q) {
			d->failed = true;
			return kerr_set(err, KERR_OTHER, "out of memory");
		}
		d->held = q;
	}
	memcpy(d->held + d->held_len, p, len);
	d->held_len += len;
	if (d->held_len >= d->run ||
	    (d->base.spec.mode == DEC_WATCH && (p[len - 1] == '}' || memchr(p, '\n', len))))
		return flush_held(d, err);
	return 0;
}

/* --- the decoder ---------------------------------------------------------------------- */

static void json_destroy(void *dec)
{
	struct json_decoder *d = dec;

	if (!d)
		return;
	if (d->h)
		yajl_free(d->h);
	decode_state_release(&d->base);
	free(d->keybuf);
	free(d->held);
	free(d);
}

static void *json_create(const struct decode_spec *spec)
{
	struct json_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	decode_state_init(&d->base, spec, "JSON");
	d->status = (struct decode_frame){NULL, &d->base.env, M_STATUS};
	d->h = yajl_alloc(&callbacks, NULL, d);
	if (!d->h) {
		json_destroy(d);
		return NULL;
	}
	if (spec->mode == DEC_WATCH)
		yajl_config(d->h, yajl_allow_multiple_values, 1);
	d->pf_on = spec->mode == DEC_LIST;
	if (d->pf_on)
		prefilter_init(&d->pf, &d->base, feed_raw, d);
	return d;
}

static int json_feed(void *dec, const void *buf, size_t len, struct kerr *err)
{
	struct json_decoder *d = dec;
	const unsigned char *p = buf;

	if (d->failed)
		return kerr_set(err, KERR_DECODE, "invalid JSON in response: decoding already failed");
	if (!d->base.started) {
		size_t i = 0;

		while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
			i++;
		if (i < len) {
			d->base.started = true;
			/* An error page from a proxy or load balancer. */
			if (p[i] == '<') {
				d->failed = true;
				return kerr_set(err, KERR_DECODE, "invalid JSON in response: got an HTML page");
			}
		}
	}
	if (d->pf_on)
		return prefilter_feed(&d->pf, p, len, err);
	return feed_raw(d, p, len, err);
}

static int json_finish(void *dec, struct kerr *err)
{
	struct json_decoder *d = dec;
	yajl_status st;

	if (d->failed)
		return kerr_set(err, KERR_DECODE, "invalid JSON in response: decoding already failed");
	if (flush_held(d, err) < 0)
		return -1;
	d->err = err;
	st = yajl_complete_parse(d->h);
	d->err = NULL;
	if (st != yajl_status_ok) {
		if (d->failed)
			return -1;
		return parse_error(d, err, NULL, 0);
	}
	if (!d->base.root_done) {
		d->failed = true;
		return kerr_set(err, KERR_DECODE, "invalid JSON in response: empty body");
	}
	return 0;
}

static struct decode_state *json_state(void *dec)
{
	struct json_decoder *d = dec;

	return &d->base;
}

const struct decode_reader decode_json_reader = {json_create, json_feed, json_finish, json_state, json_destroy};

int decode_json_fragment(const struct decode_state *s, const struct decode_frame *f, const void *buf, size_t len,
			 struct kerr *err)
{
	struct decode_spec spec = s->spec;
	struct kerr mine = {0};
	struct json_decoder *d;
	int r = 0;

	/* the text is whole: no prefilter, nothing held back */
	spec.mode = DEC_SINGLE;
	if (!(d = json_create(&spec)))
		return kerr_set(err, KERR_OTHER, "out of memory");
	d->pf_on = false;
	d->fragment = *f;
	d->err = &mine;
	if (yajl_parse(d->h, buf, len) == yajl_status_ok)
		yajl_complete_parse(d->h);
	d->err = NULL;
	/* what is not JSON reads as absent; running out of memory stops */
	if (d->failed && mine.kind == KERR_OTHER) {
		kerr_copy(err, &mine);
		r = -1;
	}
	kerr_release(&mine);
	json_destroy(d);
	return r;
}
