/* Streaming decoder for the API server's protobuf encoding.
 *
 * A body is the magic "k8s\0" and a runtime.Unknown message whose field 2
 * holds the encoded object or list; a watch stream is a sequence of frames,
 * each a 4-byte big-endian length and a WatchEvent whose object is again
 * the magic and a runtime.Unknown.  Field numbers are those of the
 * published generated.proto files of k8s.io/api (core/v1) and
 * k8s.io/apimachinery (meta/v1, runtime, api/resource).
 *
 * The reader is pushed bytes as they arrive and never holds a message: it
 * keeps a stack of the messages it has entered (each with the position
 * where it ends) and, per field, either enters it, copies it (only the
 * strings that are kept), or counts its bytes away.  Which fields are kept
 * in which message is the table below; everything else, most of each
 * object, is skipped without a copy.  The objects built are the same as the
 * JSON decoder's for the same object: a string JSON would omit when empty
 * is absent here too when empty.
 */
#include "decode_pb.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define K_NODE 1
#define K_POD 2
#define K_ANY 3

#define PK(num, field, how, child, kinds) {num, field, how, child, kinds}
#define PK_END {0, F_NONE, 0, 0, 0}

/* The fields kept, per message; every other field is skipped. */
static const struct pb_key unknown_keys[] = {
	PK(1, F_NONE, H_MSG, P_TYPEMETA, K_ANY),
	PK(2, F_RAW, H_MSG, P_NONE, K_ANY), /* child decided by the kind */
	PK_END,
};
static const struct pb_key typemeta_keys[] = {
	PK(2, F_TYPE_KIND, H_STR, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key list_keys[] = {
	PK(1, F_META, H_MSG, P_LIST_META, K_ANY),
	PK(2, F_ITEMS, H_MSG, P_OBJ, K_ANY),
	PK_END,
};
static const struct pb_key list_meta_keys[] = {
	PK(2, F_LIST_RV, H_STR, P_NONE, K_ANY),
	PK(3, F_LIST_CONTINUE, H_STR, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key obj_keys[] = {
	PK(1, F_META, H_MSG, P_META, K_ANY),
	PK(2, F_SPEC, H_MSG, P_NODE_SPEC, K_NODE),
	PK(2, F_SPEC, H_MSG, P_POD_SPEC, K_POD),
	PK(3, F_STATUS, H_MSG, P_NODE_STATUS, K_NODE),
	PK(3, F_STATUS, H_MSG, P_POD_STATUS, K_POD),
	PK_END,
};
static const struct pb_key meta_keys[] = {
	PK(1, F_NAME, H_STR, P_NONE, K_ANY),
	PK(3, F_NAMESPACE, H_STR, P_NONE, K_POD),
	PK(5, F_UID, H_STR, P_NONE, K_ANY),
	PK(6, F_RV, H_STR, P_NONE, K_ANY),
	PK(8, F_CREATED, H_MSG, P_TIME, K_ANY),
	PK(9, F_DELETED, H_PRESENT, P_NONE, K_POD),
	PK(11, F_LABELS, H_MSG, P_ENTRY, K_ANY),
	PK(12, F_ANNOTATIONS, H_MSG, P_ENTRY, K_ANY),
	PK(13, F_OWNERS, H_MSG, P_OWNER, K_POD),
	PK_END,
};
static const struct pb_key time_keys[] = {
	PK(1, F_SECONDS, H_VARINT, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key owner_keys[] = {
	PK(1, F_OWNER_KIND, H_STR, P_NONE, K_ANY),
	PK(3, F_OWNER_NAME, H_STR, P_NONE, K_ANY),
	PK(4, F_OWNER_UID, H_STR, P_NONE, K_ANY),
	PK(6, F_CONTROLLER, H_VARINT, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key entry_keys[] = {
	PK(1, F_KEY, H_STR, P_NONE, K_ANY),
	PK(2, F_VALUE, H_STR, P_NONE, K_ANY), /* a message for quantities: see field_start() */
	PK_END,
};
static const struct pb_key quantity_keys[] = {
	PK(1, F_QUANTITY, H_STR, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key node_spec_keys[] = {
	PK(4, F_UNSCHEDULABLE, H_VARINT, P_NONE, K_ANY),
	PK(5, F_TAINTS, H_MSG, P_TAINT, K_ANY | K_SCHED),
	PK_END,
};
static const struct pb_key taint_keys[] = {
	PK(1, F_T_KEY, H_STR, P_NONE, K_ANY),
	PK(2, F_T_VALUE, H_STR, P_NONE, K_ANY),
	PK(3, F_T_EFFECT, H_STR, P_NONE, K_ANY),
	PK_END,
};
/* tolerationSeconds (5) is not kept */
static const struct pb_key toleration_keys[] = {
	PK(1, F_T_KEY, H_STR, P_NONE, K_ANY),
	PK(2, F_T_OPERATOR, H_STR, P_NONE, K_ANY),
	PK(3, F_T_VALUE, H_STR, P_NONE, K_ANY),
	PK(4, F_T_EFFECT, H_STR, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key node_status_keys[] = {
	PK(1, F_CAPACITY, H_MSG, P_ENTRY, K_ANY),
	PK(2, F_ALLOCATABLE, H_MSG, P_ENTRY, K_ANY),
	PK(4, F_CONDITIONS, H_MSG, P_CONDITION, K_ANY),
	PK(5, F_ADDRESSES, H_MSG, P_ADDRESS, K_ANY),
	PK_END,
};
static const struct pb_key address_keys[] = {
	PK(1, F_ADDR_TYPE, H_STR, P_NONE, K_ANY),
	PK(2, F_ADDR, H_STR, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key condition_keys[] = {
	PK(1, F_COND_TYPE, H_STR, P_NONE, K_ANY),
	PK(2, F_COND_STATUS, H_STR, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key pod_spec_keys[] = {
	PK(2, F_CONTAINERS, H_MSG, P_CONTAINER, K_ANY),
	PK(7, F_NODE_SELECTOR, H_MSG, P_ENTRY, K_ANY),
	PK(10, F_NODE_NAME, H_STR, P_NONE, K_ANY),
	PK(18, F_AFFINITY, H_MSG, P_AFFINITY, K_ANY),
	PK(19, F_SCHEDULER, H_STR, P_NONE, K_ANY),
	PK(22, F_TOLERATIONS, H_MSG, P_TOLERATION, K_ANY | K_SCHED),
	PK_END,
};
static const struct pb_key affinity_keys[] = {
	PK(1, F_NODE_AFFINITY, H_MSG, P_NODE_AFFINITY, K_ANY),
	PK_END,
};
static const struct pb_key pod_status_keys[] = {
	PK(1, F_PHASE, H_STR, P_NONE, K_ANY),
	PK(2, F_CONDITIONS, H_MSG, P_CONDITION, K_ANY),
	PK_END,
};
static const struct pb_key container_keys[] = {
	PK(1, F_CT_NAME, H_STR, P_NONE, K_ANY),
	PK(8, F_RESOURCES, H_MSG, P_RESOURCES, K_ANY),
	PK_END,
};
static const struct pb_key resources_keys[] = {
	PK(1, F_LIMITS, H_MSG, P_ENTRY, K_ANY),
	PK_END,
};
static const struct pb_key status_keys[] = {
	PK(3, F_ST_MESSAGE, H_STR, P_NONE, K_ANY),
	PK(4, F_ST_REASON, H_STR, P_NONE, K_ANY),
	PK(6, F_ST_CODE, H_VARINT, P_NONE, K_ANY),
	PK_END,
};
static const struct pb_key event_keys[] = {
	PK(1, F_EV_TYPE, H_STR, P_NONE, K_ANY),
	PK(2, F_EV_OBJECT, H_MSG, P_RAW_EXT, K_ANY),
	PK_END,
};
static const struct pb_key raw_ext_keys[] = {
	PK(1, F_RAW, H_MSG, P_UNKNOWN, K_ANY), /* after the magic */
	PK_END,
};

static const struct pb_key node_affinity_keys[] = {
	PK(1, F_REQUIRED, H_MSG, P_REQUIRED, K_ANY),
	PK_END,
};
static const struct pb_key required_keys[] = {
	PK(1, F_TERMS, H_MSG, P_TERM, K_ANY),
	PK_END,
};
static const struct pb_key term_keys[] = {
	PK(1, F_EXPRS, H_MSG, P_EXPR, K_ANY),
	PK_END,
};
static const struct pb_key expr_keys[] = {
	PK(1, F_EXPR_KEY, H_STR, P_NONE, K_ANY),
	PK(2, F_EXPR_OP, H_STR, P_NONE, K_ANY | K_SCHED),
	PK(3, F_EXPR_VALUE, H_STR, P_NONE, K_ANY | K_SCHED),
	PK_END,
};

static const struct pb_key *const keys_by_ctx[] = {
	[P_UNKNOWN] = unknown_keys,
	[P_TYPEMETA] = typemeta_keys,
	[P_LIST] = list_keys,
	[P_LIST_META] = list_meta_keys,
	[P_OBJ] = obj_keys,
	[P_META] = meta_keys,
	[P_TIME] = time_keys,
	[P_OWNER] = owner_keys,
	[P_ENTRY] = entry_keys,
	[P_QUANTITY] = quantity_keys,
	[P_NODE_SPEC] = node_spec_keys,
	[P_NODE_STATUS] = node_status_keys,
	[P_ADDRESS] = address_keys,
	[P_CONDITION] = condition_keys,
	[P_POD_SPEC] = pod_spec_keys,
	[P_AFFINITY] = affinity_keys,
	[P_POD_STATUS] = pod_status_keys,
	[P_CONTAINER] = container_keys,
	[P_RESOURCES] = resources_keys,
	[P_STATUS] = status_keys,
	[P_EVENT] = event_keys,
	[P_RAW_EXT] = raw_ext_keys,
	[P_NODE_AFFINITY] = node_affinity_keys,
	[P_REQUIRED] = required_keys,
	[P_TERM] = term_keys,
	[P_EXPR] = expr_keys,
	[P_TAINT] = taint_keys,
	[P_TOLERATION] = toleration_keys,
};

/* A node label key the pod's scheduling needs, kept when the filter asks
 * (as the JSON decoder keeps it: once, value ""). */
static int add_node_key(struct pb_decoder *d, const char *k, size_t len)
{
	struct kvlist *l;

	if (!d->base.pod || !decode_filter_match(d->base.spec.filter->node_keys, k, len))
		return 0;
	l = &d->base.pod->node_keys;
	for (size_t i = 0; i < l->len; i++)
		if (strlen(l->items[i].key) == len && memcmp(l->items[i].key, k, len) == 0)
			return 0;
	return kvlist_add(l, k, len, "", 0) < 0 ? pb_oom(d) : 0;
}

const struct pb_key *pb_find_key(const struct pb_decoder *d, unsigned ctx, uint64_t num)
{
	unsigned kind = d->base.spec.kind == OBJ_POD ? K_POD : K_NODE;
	const struct pb_key *k = ctx < sizeof(keys_by_ctx) / sizeof(keys_by_ctx[0]) ? keys_by_ctx[ctx] : NULL;

	for (; k && k->num; k++)
		if (k->num == num && (k->kinds & kind) && (!(k->kinds & K_SCHED) || d->base.spec.filter->scheduling))
			return k;
	return NULL;
}

int pb_fail(struct pb_decoder *d, const char *msg)
{
	d->phase = PH_FAILED;
	if (d->err && d->err->kind == KERR_NONE)
		kerr_set(d->err, KERR_DECODE, "invalid protobuf in response: %s", msg);
	return -1;
}

int pb_oom(struct pb_decoder *d)
{
	d->phase = PH_FAILED;
	if (d->err)
		kerr_set(d->err, KERR_OTHER, "out of memory");
	return -1;
}

struct pb_frame *pb_top(struct pb_decoder *d)
{
	return d->depth ? &d->stack[d->depth - 1] : NULL;
}

/* Takes d->buf (len bytes) as a new string; empty strings are NULL when
 * omit_empty (what JSON leaves out). */
static int take_str(struct pb_decoder *d, char **dst, bool omit_empty)
{
	char *p;

	if (!d->len && omit_empty) {
		free(*dst);
		*dst = NULL;
		return 0;
	}
	p = malloc(d->len + 1);
	if (!p)
		return pb_oom(d);
	if (d->len)
		memcpy(p, d->buf, d->len);
	p[d->len] = '\0';
	free(*dst);
	*dst = p;
	return 0;
}

static bool buf_is(const struct pb_decoder *d, const char *lit)
{
	size_t n = strlen(lit);

	return d->len == n && memcmp(d->buf, lit, n) == 0;
}

bool pb_want_entry(const struct pb_decoder *d, unsigned map, const char *k, size_t len)
{
	const struct decode_filter *f = d->base.spec.filter;

	switch (map) {
	case M_LABELS:
		return f->all_labels || decode_filter_match(f->label_keys, k, len);
	case M_ANNOTATIONS:
		return f->all_annotations || decode_filter_match(f->annotation_keys, k, len);
	case M_SELECTOR: /* the values are kept for scheduling, the keys always (pb_leave) */
		return f->scheduling;
	default:
		return f->all_resources || decode_filter_match(f->resource_names, k, len);
	}
}

static struct kvlist *entry_list(struct pb_decoder *d, unsigned map)
{
	struct k8s_container *ct;

	switch (map) {
	case M_LABELS:
		return d->base.node ? &d->base.node->labels : d->base.pod ? &d->base.pod->labels : NULL;
	case M_ANNOTATIONS:
		return d->base.node ? &d->base.node->annotations : d->base.pod ? &d->base.pod->annotations : NULL;
	case M_CAPACITY:
		return d->base.node ? &d->base.node->capacity : NULL;
	case M_ALLOCATABLE:
		return d->base.node ? &d->base.node->allocatable : NULL;
	case M_LIMITS:
		ct = decode_last_container(&d->base);
		return ct ? &ct->limits : NULL;
	default:
		return NULL;
	}
}

/* --- sinks ---------------------------------------------------------------- */

static int stopped(struct pb_decoder *d)
{
	d->phase = PH_FAILED;
	if (d->err && d->err->kind == KERR_NONE)
		kerr_set(d->err, KERR_OTHER, "decoding stopped");
	return -1;
}

static int emit_item(struct pb_decoder *d)
{
	return decode_emit_item(&d->base, d->err) < 0 ? stopped(d) : 0;
}

static int emit_event(struct pb_decoder *d)
{
	struct watch_event ev = {.kind = d->base.spec.kind};
	int r;

	if (!d->base.ev_type)
		return pb_fail(d, "watch event without a type");
	if (decode_watch_type(d->base.ev_type, &ev.type) < 0)
		return pb_fail(d, "unknown watch event type");
	if (ev.type == WATCH_ERROR) {
		ev.error_code = d->base.st_code;
		ev.error_reason = d->base.st_reason;
		ev.error_message = d->base.st_message;
		decode_object_clear(&d->base);
	} else {
		if (!d->base.node && !d->base.pod)
			return pb_fail(d, "watch event without an object");
		if (decode_event_object(&ev, &d->base) < 0)
			return pb_oom(d);
	}
	r = decode_event_send(&d->base, &ev, d->err);
	decode_event_reset(&d->base);
	d->is_status = false;
	return r < 0 ? stopped(d) : 0;
}

/* --- entering and leaving messages --------------------------------------- */

int pb_push(struct pb_decoder *d, unsigned ctx, uint64_t end, unsigned map, unsigned field)
{
	struct pb_frame *f;

	if (d->depth == MAX_FRAMES)
		return pb_fail(d, "nested too deeply");
	f = &d->stack[d->depth++];
	f->ctx = (unsigned char)ctx;
	f->end = end;
	f->map = (unsigned char)map;
	f->field = (unsigned char)field;
	switch (ctx) {
	case P_OBJ:
		if (decode_object_new(&d->base) < 0)
			return pb_oom(d);
		break;
	case P_OWNER:
		if (decode_array_add(&d->base, DECODE_OWNER) < 0)
			return pb_oom(d);
		break;
	case P_CONTAINER:
		if (decode_array_add(&d->base, DECODE_CONTAINER) < 0)
			return pb_oom(d);
		break;
	case P_TERM:
	case P_EXPR:
		if (decode_affinity_open(&d->base.room.aff, d->base.spec.filter, d->base.pod, ctx == P_TERM) < 0)
			return pb_oom(d);
		break;
	case P_TAINT: /* a node's: only a node decoder reads a NodeSpec */
	case P_TOLERATION: /* a pod's */
		if (decode_array_add(&d->base, DECODE_TAINT) < 0)
			return pb_oom(d);
		break;
	case P_ENTRY:
		d->has_key = d->has_value = d->key_unwanted = false;
		d->ekeylen = d->evaluelen = 0;
		break;
	case P_CONDITION:
		d->base.cond_ready = d->base.cond_true = false;
		break;
	case P_ADDRESS:
		free(d->base.addr);
		d->base.addr = NULL;
		d->base.addr_internal = false;
		break;
	default:
		break;
	}
	return 0;
}

int pb_leave(struct pb_decoder *d)
{
	struct pb_frame f = d->stack[--d->depth];
	struct pb_frame *parent = pb_top(d);
	struct kvlist *l;

	switch (f.ctx) {
	case P_LIST_META:
		decode_list_meta_send(&d->base);
		break;
	case P_LIST:
		decode_list_meta_send(&d->base);
		d->base.root_done = true;
		break;
	case P_STATUS:
		if (d->base.spec.mode != DEC_WATCH) {
			/* a failure sent with a success code */
			d->phase = PH_FAILED;
			kerr_set_status(d->err, d->base.st_code, d->base.st_reason,
					d->base.st_message && *d->base.st_message ? d->base.st_message
									: "the server sent a Status instead of a list");
			return -1;
		}
		break;
	case P_OBJ:
		if (parent && parent->ctx == P_LIST)
			return emit_item(d);
		if (d->base.spec.mode == DEC_SINGLE)
			d->base.root_done = true;
		break;
	case P_EVENT:
		return emit_event(d);
	case P_ENTRY:
		if (f.map == M_SELECTOR) {
			if (d->base.pod)
				d->base.pod->has_node_selector = true;
			if (!d->has_key)
				return 0;
			if (d->base.pod && d->base.spec.filter->scheduling &&
			    kvlist_add(&d->base.pod->node_selector, d->ekey, d->ekeylen, d->has_value ? d->evalue : "",
				       d->has_value ? d->evaluelen : 0) < 0)
				return pb_oom(d);
			return add_node_key(d, d->ekey, d->ekeylen);
		}
		if (!d->has_key || d->key_unwanted || !pb_want_entry(d, f.map, d->ekey, d->ekeylen))
			break;
		l = entry_list(d, f.map);
		if (l && kvlist_add(l, d->ekey, d->ekeylen, d->has_value ? d->evalue : "",
				    d->has_value ? d->evaluelen : 0) < 0)
			return pb_oom(d);
		break;
	case P_CONDITION:
		decode_condition_end(&d->base);
		break;
	case P_ADDRESS:
		decode_address_end(&d->base);
		break;
	default:
		break;
	}
	return 0;
}

/* The child message a length-delimited kept field opens. */
unsigned pb_child_of(struct pb_decoder *d, const struct pb_key *k, unsigned *map)
{
	*map = 0;
	switch (k->field) {
	case F_RAW:
		if (pb_top(d)->ctx == P_RAW_EXT)
			return P_UNKNOWN;
		if (d->is_status)
			return P_STATUS;
		return d->base.spec.mode == DEC_LIST ? P_LIST : P_OBJ;
	case F_LABELS:
		*map = M_LABELS;
		break;
	case F_ANNOTATIONS:
		*map = M_ANNOTATIONS;
		break;
	case F_CAPACITY:
		*map = M_CAPACITY;
		break;
	case F_ALLOCATABLE:
		*map = M_ALLOCATABLE;
		break;
	case F_LIMITS:
		*map = M_LIMITS;
		break;
	case F_NODE_SELECTOR:
		*map = M_SELECTOR;
		break;
	default:
		break;
	}
	return k->child;
}

/* A string of a node's taint or a pod's toleration; empty is absent, as
 * JSON omits it. */
static int taint_string(struct pb_decoder *d)
{
	char **key, **value, **effect, **op = NULL;
	unsigned ctx = pb_top(d)->ctx;

	if (ctx == P_TOLERATION && d->base.pod && d->base.pod->ntolerations) {
		struct k8s_toleration *t = &d->base.pod->tolerations[d->base.pod->ntolerations - 1];

		key = &t->key, value = &t->value, effect = &t->effect, op = &t->op;
	} else if (ctx == P_TAINT && d->base.node && d->base.node->ntaints) {
		struct k8s_taint *t = &d->base.node->taints[d->base.node->ntaints - 1];

		key = &t->key, value = &t->value, effect = &t->effect;
	} else {
		return 0;
	}
	switch (d->key->field) {
	case F_T_KEY:
		return take_str(d, key, true);
	case F_T_VALUE:
		return take_str(d, value, true);
	case F_T_EFFECT:
		return take_str(d, effect, true);
	default:
		return op ? take_str(d, op, true) : 0;
	}
}

/* A kept string has been copied into d->buf. */
/* A map entry's key or value: d->buf copied over *dst, which keeps its
 * memory from entry to entry; its length in *len. */
static int take_entry_str(struct pb_decoder *d, char **dst, size_t *len)
{
	char *v = realloc(*dst, d->len + 1);

	if (!v)
		return pb_oom(d);
	if (d->len) /* an empty string has no bytes behind it */
		memcpy(v, d->buf, d->len);
	v[d->len] = '\0';
	*dst = v;
	*len = d->len;
	return 0;
}

int pb_on_string(struct pb_decoder *d)
{
	struct pb_frame *f = pb_top(d);
	struct k8s_owner *o;
	struct k8s_container *ct;
	struct k8s_node *n = d->base.node;
	struct k8s_pod *p = d->base.pod;

	switch (d->key->field) {
	case F_TYPE_KIND:
		d->is_status = buf_is(d, "Status");
		return 0;
	case F_LIST_RV:
		return take_str(d, &d->base.list_rv, true);
	case F_LIST_CONTINUE:
		return take_str(d, &d->base.list_continue, true);
	case F_NAME:
		return take_str(d, n ? &n->name : &p->name, true);
	case F_NAMESPACE:
		return p ? take_str(d, &p->namespace, true) : 0;
	case F_UID:
		return take_str(d, n ? &n->uid : &p->uid, true);
	case F_RV:
		return take_str(d, n ? &n->resource_version : &p->resource_version, true);
	case F_EXPR_KEY:
		if (add_node_key(d, d->buf, d->len) < 0)
			return -1;
		/* fall through */
	case F_EXPR_OP:
	case F_EXPR_VALUE:
		if (decode_affinity_string(&d->base.room.aff, d->key->field == F_EXPR_KEY ? AFF_KEY
					   : d->key->field == F_EXPR_OP ? AFF_OPERATOR : AFF_VALUE, d->buf, d->len) < 0)
			return pb_oom(d);
		return 0;
	case F_KEY:
		d->has_key = true;
		return take_entry_str(d, &d->ekey, &d->ekeylen);
	case F_VALUE:
	case F_QUANTITY:
		d->has_value = true;
		return take_entry_str(d, &d->evalue, &d->evaluelen);
	case F_T_KEY:
	case F_T_VALUE:
	case F_T_EFFECT:
	case F_T_OPERATOR:
		return taint_string(d);
	case F_OWNER_KIND:
	case F_OWNER_NAME:
	case F_OWNER_UID:
		o = decode_last_owner(&d->base);
		if (!o)
			return 0;
		return take_str(d, d->key->field == F_OWNER_KIND ? &o->kind
				   : d->key->field == F_OWNER_NAME ? &o->name : &o->uid, false);
	case F_ADDR_TYPE:
		d->base.addr_internal = buf_is(d, "InternalIP");
		return 0;
	case F_ADDR:
		return take_str(d, &d->base.addr, false);
	case F_COND_TYPE:
		d->base.cond_ready = buf_is(d, "Ready");
		return 0;
	case F_COND_STATUS:
		d->base.cond_true = buf_is(d, "True");
		return 0;
	case F_NODE_NAME:
		return take_str(d, &p->node_name, true);
	case F_SCHEDULER:
		return take_str(d, &p->scheduler_name, true);
	case F_PHASE:
		return take_str(d, &p->phase, true);
	case F_CT_NAME:
		ct = decode_last_container(&d->base);
		return ct ? take_str(d, &ct->name, false) : 0;
	case F_ST_MESSAGE:
		return take_str(d, &d->base.st_message, false);
	case F_ST_REASON:
		return take_str(d, &d->base.st_reason, false);
	case F_EV_TYPE:
		return take_str(d, &d->base.ev_type, false);
	default:
		(void)f;
		return 0;
	}
}

/* metav1.Time as JSON writes it (RFC 3339, UTC, whole seconds); the zero
 * time is null there, absent here. */
static int on_seconds(struct pb_decoder *d, int64_t secs)
{
	char tmp[64];
	struct tm tm;
	time_t t = (time_t)secs;
	char **dst = d->base.node ? &d->base.node->creation_timestamp : &d->base.pod->creation_timestamp;

	if (secs == INT64_C(-62135596800) || !gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999 ||
	    tm.tm_year + 1900 < 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec);
	free(*dst);
	*dst = strdup(tmp);
	return *dst ? 0 : pb_oom(d);
}

int pb_on_varint(struct pb_decoder *d, uint64_t v)
{
	struct k8s_owner *o;

	switch (d->key->field) {
	case F_SECONDS:
		if (pb_top(d)->field == F_CREATED && (d->base.node || d->base.pod))
			return on_seconds(d, (int64_t)v);
		return 0;
	case F_CONTROLLER:
		o = decode_last_owner(&d->base);
		if (o)
			o->controller = v != 0;
		return 0;
	case F_UNSCHEDULABLE:
		if (d->base.node)
			d->base.node->unschedulable = v != 0;
		return 0;
	case F_ST_CODE:
		d->base.st_code = v < 100000 ? (long)v : 0;
		return 0;
	default:
		return 0;
	}
}

