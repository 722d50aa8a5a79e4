/* The JSON decoder's input side: which keys are kept (a table per object),
 * feeding yajl while holding back long tokens, and the prefilter that drops
 * the values no one reads before yajl lexes them.
 */
#include "decode_json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* --- the keys kept --------------------------------------------------------- */

/* Only for pods (the item is a Pod), only in watch events. */
#define ONLY_POD 1
#define ONLY_WATCH 2
/* Only when the filter asks for scheduling fields. */
#define ONLY_SCHED 4
/* Only for pods, and only when the filter asks for scheduling fields. */
#define ONLY_POD_SCHED (ONLY_POD | ONLY_SCHED)

struct json_key {
	unsigned char len;
	unsigned char field; /* enum field */
	unsigned char only;
	const char *name;
};

#define K(name, field) {sizeof(name) - 1, field, 0, name}
#define K_ONLY(name, field, only) {sizeof(name) - 1, field, only, name}
#define K_END {0, F_NONE, 0, NULL}

static const struct json_key list_keys[] = {
	K("items", F_ITEMS), K("metadata", F_METADATA), K("kind", F_KIND),
	K("code", F_CODE), K("reason", F_REASON), K("message", F_MESSAGE), K_END,
};
static const struct json_key list_meta_keys[] = {
	K("resourceVersion", F_RESOURCE_VERSION), K("continue", F_CONTINUE), K_END,
};
static const struct json_key event_keys[] = {K("type", F_TYPE), K("object", F_OBJECT), K_END};
static const struct json_key obj_keys[] = {
	K("metadata", F_METADATA), K("spec", F_SPEC), K("status", F_STATUS),
	K_ONLY("code", F_CODE, ONLY_WATCH), K_ONLY("reason", F_REASON, ONLY_WATCH),
	K_ONLY("message", F_MESSAGE, ONLY_WATCH), K_END,
};
static const struct json_key meta_keys[] = {
	K("name", F_NAME), K("uid", F_UID), K("resourceVersion", F_RESOURCE_VERSION),
	K("creationTimestamp", F_CREATED), K("labels", F_LABELS), K("annotations", F_ANNOTATIONS),
	K_ONLY("namespace", F_NAMESPACE, ONLY_POD), K_ONLY("deletionTimestamp", F_DELETED, ONLY_POD),
	K_ONLY("ownerReferences", F_OWNERS, ONLY_POD), K_END,
};
static const struct json_key owner_keys[] = {
	K("kind", F_KIND), K("name", F_NAME), K("uid", F_UID), K("controller", F_CONTROLLER), K_END,
};
static const struct json_key node_spec_keys[] = {
	K("unschedulable", F_UNSCHEDULABLE), K_ONLY("taints", F_TAINTS, ONLY_SCHED), K_END,
};
/* a node's taint or a pod's toleration (tolerationSeconds is not kept) */
static const struct json_key taint_keys[] = {
	K("key", F_KEY), K("value", F_VALUE), K("effect", F_EFFECT), K_ONLY("operator", F_OPERATOR, ONLY_POD), K_END,
};
static const struct json_key node_status_keys[] = {
	K("capacity", F_CAPACITY), K("allocatable", F_ALLOCATABLE), K("addresses", F_ADDRESSES),
	K("conditions", F_CONDITIONS), K_END,
};
static const struct json_key address_keys[] = {K("type", F_TYPE), K("address", F_ADDRESS), K_END};
static const struct json_key condition_keys[] = {K("type", F_TYPE), K("status", F_STATUS), K_END};
static const struct json_key pod_spec_keys[] = {
	K("containers", F_CONTAINERS), K("nodeName", F_NODE_NAME), K("schedulerName", F_SCHEDULER),
	K("nodeSelector", F_NODE_SELECTOR), K("affinity", F_AFFINITY),
	K_ONLY("tolerations", F_TOLERATIONS, ONLY_POD_SCHED), K_END,
};
static const struct json_key affinity_keys[] = {K("nodeAffinity", F_NODE_AFFINITY), K_END};
static const struct json_key node_affinity_keys[] = {
	K("requiredDuringSchedulingIgnoredDuringExecution", F_REQUIRED), K_END,
};
static const struct json_key required_keys[] = {K("nodeSelectorTerms", F_TERMS), K_END};
static const struct json_key term_keys[] = {K("matchExpressions", F_EXPRS), K_END};
static const struct json_key expr_keys[] = {
	K("key", F_KEY), K_ONLY("operator", F_OPERATOR, ONLY_SCHED), K_ONLY("values", F_VALUES, ONLY_SCHED), K_END,
};
static const struct json_key pod_status_keys[] = {K("phase", F_PHASE), K("conditions", F_CONDITIONS), K_END};
static const struct json_key container_keys[] = {K("name", F_NAME), K("resources", F_RESOURCES), K_END};
static const struct json_key resources_keys[] = {K("limits", F_LIMITS), K_END};

/* Per context, the keys read in its objects (none: every value is skipped). */
static const struct json_key *const keys_by_ctx[] = {
	[C_LIST] = list_keys,
	[C_LIST_META] = list_meta_keys,
	[C_EVENT] = event_keys,
	[C_OBJ] = obj_keys,
	[C_META] = meta_keys,
	[C_OWNER] = owner_keys,
	[C_NODE_SPEC] = node_spec_keys,
	[C_NODE_STATUS] = node_status_keys,
	[C_ADDRESS] = address_keys,
	[C_CONDITION] = condition_keys,
	[C_POD_SPEC] = pod_spec_keys,
	[C_AFFINITY] = affinity_keys,
	[C_NODE_AFFINITY] = node_affinity_keys,
	[C_REQUIRED] = required_keys,
	[C_TERM] = term_keys,
	[C_EXPR] = expr_keys,
	[C_POD_STATUS] = pod_status_keys,
	[C_CONTAINER] = container_keys,
	[C_RESOURCES] = resources_keys,
	[C_LIMITS] = NULL,
	[C_TAINT] = taint_keys,
};

enum field json_lookup_key(const struct decoder *d, enum ctx c, const unsigned char *k, size_t len)
{
	const struct json_key *e = (size_t)c < sizeof(keys_by_ctx) / sizeof(keys_by_ctx[0]) ? keys_by_ctx[c] : NULL;

	if (!e || !len)
		return F_NONE;
	for (; e->name; e++) {
		if (e->len != len || e->name[0] != k[0] || memcmp(e->name, k, len) != 0)
			continue;
		if (((e->only & ONLY_POD) && d->base.spec.kind != OBJ_POD) ||
		    ((e->only & ONLY_WATCH) && d->base.spec.mode != DEC_WATCH) ||
		    ((e->only & ONLY_SCHED) && !d->base.spec.filter->scheduling))
			return F_NONE;
		return (enum field)e->field;
	}
	return F_NONE;
}

/* --- the objects entered ------------------------------------------------------ */

/* When an object or array opens as the value of the current key (or as an
 * element of the array on top): the context to push, or C_NONE to skip the
 * value. */
enum ctx json_child_map(const struct decoder *d)
{
	enum ctx c = json_top(d);
	bool pod = d->base.spec.kind == OBJ_POD;

	switch (c) {
	case C_NONE:
		return d->base.spec.mode == DEC_LIST ? C_LIST : d->base.spec.mode == DEC_WATCH ? C_EVENT : C_OBJ;
	case C_LIST:
		if (d->field == F_ITEMS)
			return C_BAD_ITEMS;
		return d->field == F_METADATA ? C_LIST_META : C_NONE;
	case C_ITEMS:
		return C_OBJ;
	case C_EVENT:
		return d->field == F_OBJECT ? C_OBJ : C_NONE;
	case C_OBJ:
		switch (d->field) {
		case F_METADATA:
			return C_META;
		case F_SPEC:
			return pod ? C_POD_SPEC : C_NODE_SPEC;
		case F_STATUS:
			return pod ? C_POD_STATUS : C_NODE_STATUS;
		default:
			return C_NONE;
		}
	case C_META:
		return d->field == F_LABELS ? C_LABELS : d->field == F_ANNOTATIONS ? C_ANNOTATIONS : C_NONE;
	case C_OWNERS:
		return C_OWNER;
	case C_NODE_STATUS:
		return d->field == F_CAPACITY ? C_CAPACITY : d->field == F_ALLOCATABLE ? C_ALLOCATABLE : C_NONE;
	case C_ADDRESSES:
		return C_ADDRESS;
	case C_CONDITIONS:
		return C_CONDITION;
	case C_POD_SPEC:
		if (d->field == F_NODE_SELECTOR)
			return d->base.spec.filter->scheduling ? C_NODE_SELECTOR : C_SELECTOR;
		return d->field == F_AFFINITY ? C_AFFINITY : C_NONE;
	case C_AFFINITY:
		return d->field == F_NODE_AFFINITY ? C_NODE_AFFINITY : C_NONE;
	case C_NODE_AFFINITY:
		return d->field == F_REQUIRED ? C_REQUIRED : C_NONE;
	case C_TERMS:
		return C_TERM;
	case C_EXPRS:
		return C_EXPR;
	case C_CONTAINERS:
		return C_CONTAINER;
	case C_TAINTS:
		return C_TAINT;
	case C_CONTAINER:
		return d->field == F_RESOURCES ? C_RESOURCES : C_NONE;
	case C_RESOURCES:
		return d->field == F_LIMITS ? C_LIMITS : C_NONE;
	default:
		return C_NONE;
	}
}

enum ctx json_child_array(const struct decoder *d)
{
	switch (json_top(d)) {
	case C_LIST:
		return d->field == F_ITEMS ? C_ITEMS : C_NONE;
	case C_ITEMS:
		return C_BAD_ITEMS;
	case C_META:
		return d->field == F_OWNERS ? C_OWNERS : C_NONE;
	case C_NODE_SPEC:
		return d->field == F_TAINTS ? C_TAINTS : C_NONE;
	case C_NODE_STATUS:
		return d->field == F_ADDRESSES ? C_ADDRESSES : d->field == F_CONDITIONS ? C_CONDITIONS : C_NONE;
	case C_POD_STATUS:
		return d->field == F_CONDITIONS ? C_CONDITIONS : C_NONE;
	case C_POD_SPEC:
		if (d->field == F_TOLERATIONS)
			return C_TAINTS;
		return d->field == F_CONTAINERS ? C_CONTAINERS : C_NONE;
	case C_REQUIRED:
		return d->field == F_TERMS ? C_TERMS : C_NONE;
	case C_TERM:
		return d->field == F_EXPRS ? C_EXPRS : C_NONE;
	case C_EXPR:
		return d->field == F_VALUES ? C_VALUES : C_NONE;
	default:
		return C_NONE;
	}
}

/* --- driving yajl ------------------------------------------------------------ */

static int parse_error(struct decoder *d, struct kerr *err, const unsigned char *buf, size_t len)
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

static int parse(struct decoder *d, const unsigned char *p, size_t len, struct kerr *err)
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

static int flush_held(struct decoder *d, struct kerr *err)
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
static int feed_raw(struct decoder *d, const unsigned char *p, size_t len, struct kerr *err)
{
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

/* Most of a real pod or node is never read: managedFields, volumes,
 * tolerations, container statuses, env, a node's images and nodeInfo.  yajl
 * lexes every byte of it all the same, and that is most of the time spent
 * on a list.  So in lists, an object or array that is the value of a key
 * lookup_key() does not know, in the objects whose keys it reads (an item's
 * metadata, spec and status, a pod's containers), is replaced by null
 * before yajl sees it: finding its end needs only brackets and quotes.
 * The rest reaches yajl untouched, so anything malformed outside a dropped
 * value is still reported by yajl, and the decoder would have skipped a
 * dropped value anyway. */

static const char pf_null[] = "null";

/* The bytes that end a run inside a string, and inside a dropped value outside its strings. */
static const bool pf_in_string[256] = {['"'] = true, ['\\'] = true};
static const bool pf_in_drop[256] = {['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true};

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
	while (i < len && !pf_in_string[p[i]])
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
	while (i < len && !pf_in_drop[p[i]])
		i++;
	return i;
}

static void pf_key_done(struct decoder *d)
{
	struct prefilter *f = &d->pf;
	size_t i = f->depth - 1;
	enum field fld;

	f->child[i] = PL_OTHER;
	f->child_ctx[i] = C_NONE;
	if (f->key_bad)
		return;
	switch (f->level[i]) {
	case PL_ROOT:
		if (KEY_IS(f->key, f->keylen, "items"))
			f->child[i] = PL_ITEMS;
		break;
	case PL_ITEM:
		f->child[i] = PL_FIELDS;
		if (KEY_IS(f->key, f->keylen, "metadata"))
			f->child_ctx[i] = C_META;
		else if (KEY_IS(f->key, f->keylen, "spec"))
			f->child_ctx[i] = d->base.spec.kind == OBJ_POD ? C_POD_SPEC : C_NODE_SPEC;
		else if (KEY_IS(f->key, f->keylen, "status"))
			f->child_ctx[i] = d->base.spec.kind == OBJ_POD ? C_POD_STATUS : C_NODE_STATUS;
		else
			f->child[i] = PL_OTHER;
		break;
	case PL_FIELDS:
		fld = json_lookup_key(d, (enum ctx)f->ctx[i], (const unsigned char *)f->key, f->keylen);
		if (fld == F_NONE)
			f->drop_next = true;
		else if (fld == F_CONTAINERS && f->ctx[i] == C_POD_SPEC)
			f->child[i] = PL_CONTAINERS;
		break;
	default:
		break;
	}
}

static void pf_open(struct prefilter *f, bool obj)
{
	size_t i = f->depth;
	unsigned char lv = PL_OTHER, cx = C_NONE;

	if (i == 0) {
		lv = PL_ROOT;
	} else if (i <= PF_LEVELS) {
		switch (f->level[i - 1]) {
		case PL_ROOT:
		case PL_ITEM:
		case PL_FIELDS:
			lv = f->child[i - 1];
			cx = f->child_ctx[i - 1];
			break;
		case PL_ITEMS:
			lv = PL_ITEM;
			break;
		case PL_CONTAINERS:
			lv = PL_FIELDS;
			cx = C_CONTAINER;
			break;
		default:
			break;
		}
	}
	/* a level must be the container it was meant for */
	if (obj != (lv != PL_ITEMS && lv != PL_CONTAINERS))
		lv = PL_OTHER;
	f->depth++;
	if (i < PF_LEVELS) {
		f->level[i] = lv;
		f->ctx[i] = cx;
		f->want_key[i] = obj;
		f->child[i] = PL_OTHER;
		f->child_ctx[i] = C_NONE;
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

static int prefilter_feed(struct decoder *d, const unsigned char *p, size_t len, struct kerr *err)
{
	struct prefilter *f = &d->pf;
	size_t start = 0, i = 0;

	while (i < len) {
		unsigned char c;

		if (f->in_str) {
			if (f->esc) {
				f->esc = false;
				f->key_bad = true;
				i++;
				continue;
			}
			if (f->capture) {
				size_t e = pf_scan_string(p, i, len);

				if (e - i <= PF_KEY_MAX - f->keylen) {
					memcpy(f->key + f->keylen, p + i, e - i);
					f->keylen += e - i;
				} else {
					f->key_bad = true;
				}
				i = e;
			} else {
				i = pf_scan_string(p, i, len);
			}
			if (i == len)
				break;
			if (p[i] == '"')
				f->in_str = false;
			else
				f->esc = true;
			i++;
			continue;
		}
		if (f->drop) {
#ifdef __SSE2__
			i = pf_skip_blocks(f, p, i, len);
			if (f->in_str || i == len)
				continue;
#endif
			i = pf_scan_drop(p, i, len);
			if (i == len)
				break;
			c = p[i++];
			if (c == '"') {
				f->in_str = true;
				f->capture = false;
			} else if (c == '{' || c == '[') {
				f->drop++;
			} else if (--f->drop == 0) {
				start = i;
			}
			continue;
		}
		c = p[i];
		switch (c) {
		case ' ':
		case '\t':
		case '\r':
		case '\n':
			break;
		case '"':
			f->in_str = true;
			f->capture = false;
			f->drop_next = false;
			if (f->depth && f->depth <= PF_LEVELS && f->want_key[f->depth - 1] &&
			    f->level[f->depth - 1] != PL_OTHER) {
				f->capture = true;
				f->keylen = 0;
				f->key_bad = false;
			}
			break;
		case ':':
			if (f->depth && f->depth <= PF_LEVELS && f->want_key[f->depth - 1]) {
				f->want_key[f->depth - 1] = false;
				if (f->level[f->depth - 1] != PL_OTHER)
					pf_key_done(d);
			}
			break;
		case ',':
			f->drop_next = false;
			if (f->depth && f->depth <= PF_LEVELS && f->level[f->depth - 1] != PL_ITEMS &&
			    f->level[f->depth - 1] != PL_CONTAINERS)
				f->want_key[f->depth - 1] = true;
			break;
		case '{':
		case '[':
			if (f->drop_next) {
				f->drop_next = false;
				if (i > start && feed_raw(d, p + start, i - start, err) < 0)
					return -1;
				if (feed_raw(d, (const unsigned char *)pf_null, sizeof(pf_null) - 1, err) < 0)
					return -1;
				f->drop = 1;
				break;
			}
			pf_open(f, c == '{');
			break;
		case '}':
		case ']':
			f->drop_next = false;
			if (f->depth)
				f->depth--;
			break;
		default:
			f->drop_next = false;
			break;
		}
		i++;
	}
	if (!f->drop && len > start)
		return feed_raw(d, p + start, len - start, err);
	return 0;
}

static int decoder_feed(struct decoder *d, const void *buf, size_t len, struct kerr *err)
{
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
	if (d->pf.on)
		return prefilter_feed(d, p, len, err);
	return feed_raw(d, p, len, err);
}

static int decoder_finish(struct decoder *d, struct kerr *err)
{
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

/* --- the decoder --------------------------------------------------------------- */

struct decoder *json_decoder_new(const struct decode_spec *spec)
{
	struct decoder *d = malloc(sizeof(*d));

	if (!d)
		return NULL;
	if (json_decoder_init(d, spec) < 0) {
		json_decoder_release(d);
		free(d);
		return NULL;
	}
	d->pf.on = spec->mode == DEC_LIST;
	return d;
}

int json_decoder_feed(struct decoder *d, const void *buf, size_t len, struct kerr *err)
{
	return decoder_feed(d, buf, len, err);
}

int json_decoder_finish(struct decoder *d, struct kerr *err)
{
	return decoder_finish(d, err);
}

struct decode_state *json_decoder_state(struct decoder *d)
{
	return &d->base;
}

void json_decoder_free(struct decoder *d)
{
	if (!d)
		return;
	json_decoder_release(d);
	free(d);
}
