/* The JSON decoder's prefilter (decode_prefilter.h).
 *
 * Most of a real pod or node is never read: managedFields, volumes,
 * container statuses, env, a node's images and nodeInfo.  yajl lexes every
 * byte of it all the same, and that is most of the time spent on a list.
 * So in lists, an object or array that is the value of a key no row reads,
 * in an item, the messages it holds and the elements of their lists of
 * messages, is replaced by null before yajl sees it: finding its end needs
 * only brackets and quotes.  The list's own fields pass untouched, so
 * that a Status sent in its place reaches yajl whole.  The rest reaches
 * yajl untouched too, so anything malformed outside a dropped value is
 * still reported by yajl, and the decoder would have skipped a dropped
 * value anyway.
 */
#include "decode_prefilter.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* What the prefilter knows of an open object or array. */
enum pf_level {
	PL_OTHER,  /* nothing to drop inside */
	PL_ROOT,   /* the list */
	PL_ARRAY,  /* the items, or a list of messages: each element's fields are looked up */
	PL_FIELDS, /* an object whose keys are looked up: the fields of msg[] */
};

static const char pf_null[] = "null";

/* The bytes that end a run inside a string, and inside a dropped value outside its strings. */
static const bool pf_string_stop[256] = {['"'] = true, ['\\'] = true};
static const bool pf_drop_stop[256] = {['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true};

/* Eight bytes at a time, whether any is zero (exact, no false positives). */
#define PF_ONES UINT64_C(0x0101010101010101)
#define PF_HIGH UINT64_C(0x8080808080808080)
#define PF_ZERO(v) (((v) - PF_ONES) & ~(v) & PF_HIGH)

/* Where the run of a string's plain bytes from i ends. */
static size_t pf_scan_string(const unsigned char *p, size_t i, size_t len)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');

	for (; i + 16 <= len; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)));

		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#else
	for (; i + 8 <= len; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		if (PF_ZERO(v ^ (PF_ONES * '"')) | PF_ZERO(v ^ (PF_ONES * '\\')))
			break;
	}
#endif
	while (i < len && !pf_string_stop[p[i]])
		i++;
	return i;
}

/* Where the run of bytes without quotes or brackets from i ends ('[' and
 * '{', ']' and '}' differ only in bit 0x20). */
static size_t pf_scan_drop(const unsigned char *p, size_t i, size_t len)
{
	for (; i + 8 <= len; i += 8) {
		uint64_t v, w;

		memcpy(&v, p + i, 8);
		w = v | (PF_ONES * 0x20);
		if (PF_ZERO(v ^ (PF_ONES * '"')) | PF_ZERO(w ^ (PF_ONES * '{')) | PF_ZERO(w ^ (PF_ONES * '}')))
			break;
	}
	while (i < len && !pf_drop_stop[p[i]])
		i++;
	return i;
}

/* The key of an object whose keys are looked up has been read: what its
 * value is to the prefilter. */
static void pf_key_done(struct prefilter *f)
{
	size_t i = f->depth - 1;
	const struct decode_field *row;

	f->child[i] = PL_OTHER;
	f->child_msg[i] = M_NONE;
	if (f->key_bad)
		return;
	row = decode_find_json(f->st, f->msg[i], f->key, f->keylen);
	if (f->level[i] == PL_ROOT) {
		if (row && row->type == D_ITEMS) {
			f->child[i] = PL_ARRAY;
			f->child_msg[i] = f->st->kind->root;
		}
		return;
	}
	if (!row) {
		f->drop_next = true;
		return;
	}
	/* looked into where the bulk is: the messages the object holds itself,
	 * and the elements of lists of messages in them; the lists of which
	 * one element counts and the messages deeper down are small */
	if (row->type == D_MSG && f->msg[i] == f->st->kind->root) {
		f->child[i] = PL_FIELDS;
		f->child_msg[i] = row->child;
	} else if (row->type == D_LIST) {
		f->child[i] = PL_ARRAY;
		f->child_msg[i] = row->child;
	}
}

static void pf_open(struct prefilter *f, bool obj)
{
	size_t i = f->depth;
	unsigned char lv = PL_OTHER, msg = M_NONE;

	if (i == 0) {
		lv = PL_ROOT;
		msg = M_LIST;
	} else if (i <= PF_LEVELS) {
		switch (f->level[i - 1]) {
		case PL_ROOT:
		case PL_FIELDS:
			lv = f->child[i - 1];
			msg = f->child_msg[i - 1];
			break;
		case PL_ARRAY:
			lv = PL_FIELDS;
			msg = f->msg[i - 1];
			break;
		default:
			break;
		}
	}
	/* a level must be the container it was meant for */
	if (obj != (lv != PL_ARRAY))
		lv = PL_OTHER;
	f->depth++;
	if (i < PF_LEVELS) {
		f->level[i] = lv;
		f->msg[i] = msg;
		f->want_key[i] = obj;
		f->child[i] = PL_OTHER;
		f->child_msg[i] = M_NONE;
	}
}

#ifdef __SSE2__
static int pf_count16(unsigned x)
{
	x = x - ((x >> 1) & 0x5555);
	x = (x & 0x3333) + ((x >> 2) & 0x3333);
	x = (x + (x >> 4)) & 0x0f0f;
	return (int)((x + (x >> 8)) & 0x1f);
}

/* Inside a dropped value: passes whole 16-byte blocks that cannot close it,
 * with the quotes in a block paired by a prefix xor (a block holding a
 * backslash is left to the byte loop).  Returns where the byte loop goes on;
 * f->in_str is updated for the blocks passed. */
static size_t pf_skip_blocks(struct prefilter *f, const unsigned char *p, size_t i, size_t len)
{
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), x20 = _mm_set1_epi8(0x20);
	const __m128i op = _mm_set1_epi8('{'), cl = _mm_set1_epi8('}');

	while (i + 16 <= len) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i w = _mm_or_si128(v, x20);
		unsigned mq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q));
		unsigned mb = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, b));
		unsigned mo = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, op));
		unsigned mc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, cl));
		unsigned in = mq;
		int nc;

		if (mb || f->esc)
			break;
		in ^= in << 1;
		in ^= in << 2;
		in ^= in << 4;
		in ^= in << 8;
		if (f->in_str)
			in = ~in;
		in &= 0xffff;
		mo &= ~in;
		mc &= ~in;
		nc = pf_count16(mc);
		if ((size_t)nc >= f->drop)
			break; /* it may close here: the byte loop finds where */
		f->drop = f->drop - (size_t)nc + (size_t)pf_count16(mo);
		f->in_str = (in >> 15) & 1;
		i += 16;
	}
	return i;
}
#endif

/* Inside a string from p[i]: where the bytes read end, the key captured
 * when it is one. */
static size_t pf_in_string(struct prefilter *f, const unsigned char *p, size_t i, size_t len)
{
	size_t e;

	if (f->esc) {
		f->esc = false;
		f->key_bad = true;
		return i + 1;
	}
	e = pf_scan_string(p, i, len);
	if (f->capture) {
		if (e - i <= PF_KEY_MAX - f->keylen) {
			memcpy(f->key + f->keylen, p + i, e - i);
			f->keylen += e - i;
		} else {
			f->key_bad = true;
		}
	}
	if (e == len)
		return e;
	if (p[e] == '"')
		f->in_str = false;
	else
		f->esc = true;
	return e + 1;
}

/* Inside a dropped value from p[i]: where the bytes read end; *start is
 * where what passes begins again once the value closes. */
static size_t pf_in_drop(struct prefilter *f, const unsigned char *p, size_t i, size_t len, size_t *start)
{
	unsigned char c;

#ifdef __SSE2__
	i = pf_skip_blocks(f, p, i, len);
	if (f->in_str || i == len)
		return i;
#endif
	i = pf_scan_drop(p, i, len);
	if (i == len)
		return i;
	c = p[i++];
	if (c == '"') {
		f->in_str = true;
		f->capture = false;
	} else if (c == '{' || c == '[') {
		f->drop++;
	} else if (--f->drop == 0) {
		*start = i;
	}
	return i;
}

/* Whether the open container on top takes keys the table looks up. */
static bool pf_top_wants_key(const struct prefilter *f)
{
	return f->depth && f->depth <= PF_LEVELS && f->want_key[f->depth - 1];
}

/* A byte p[i] outside strings and dropped values.  A value dropped from
 * here: what passed before it goes out, then null in its place. */
static int pf_structure(struct prefilter *f, const unsigned char *p, size_t i, size_t *start, struct kerr *err)
{
	unsigned char c = p[i];

	switch (c) {
	case ' ':
	case '\t':
	case '\r':
	case '\n':
		return 0;
	case '"':
		f->in_str = true;
		f->drop_next = false;
		f->capture = pf_top_wants_key(f) && f->level[f->depth - 1] != PL_OTHER;
		f->keylen = 0;
		f->key_bad = false;
		return 0;
	case ':':
		if (pf_top_wants_key(f)) {
			f->want_key[f->depth - 1] = false;
			if (f->level[f->depth - 1] != PL_OTHER)
				pf_key_done(f);
		}
		return 0;
	case ',':
		f->drop_next = false;
		if (f->depth && f->depth <= PF_LEVELS && f->level[f->depth - 1] != PL_ARRAY)
			f->want_key[f->depth - 1] = true;
		return 0;
	case '{':
	case '[':
		if (!f->drop_next) {
			pf_open(f, c == '{');
			return 0;
		}
		f->drop_next = false;
		if (i > *start && f->out(f->ud, p + *start, i - *start, err) < 0)
			return -1;
		f->drop = 1;
		return f->out(f->ud, (const unsigned char *)pf_null, sizeof(pf_null) - 1, err);
	case '}':
	case ']':
		f->drop_next = false;
		if (f->depth)
			f->depth--;
		return 0;
	default:
		f->drop_next = false;
		return 0;
	}
}

void prefilter_init(struct prefilter *f, const struct decode_state *st, prefilter_out out, void *ud)
{
	memset(f, 0, sizeof(*f));
	f->st = st;
	f->out = out;
	f->ud = ud;
}

int prefilter_feed(struct prefilter *f, const unsigned char *p, size_t len, struct kerr *err)
{
	size_t start = 0, i = 0;

	while (i < len) {
		if (f->in_str) {
			i = pf_in_string(f, p, i, len);
		} else if (f->drop) {
			i = pf_in_drop(f, p, i, len, &start);
		} else {
			if (pf_structure(f, p, i, &start, err) < 0)
				return -1;
			i++;
		}
	}
	if (!f->drop && len > start)
		return f->out(f->ud, p + start, len - start, err);
	return 0;
}
