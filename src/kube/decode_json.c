/* Streaming decoders: yajl events driven through a small state machine.
 *
 * The state is a stack of contexts, one per JSON object or array that holds
 * something we keep (a list, an item, its metadata, a container...).  Such
 * containers are at most a few levels deep, so the stack has a fixed size
 * that the input cannot change: any object or array we have no use for is
 * skipped by counting its depth, without a context, a copy or an
 * allocation.  That covers managedFields, volumes, containerStatuses and
 * anything hostile input nests, however deep.
 *
 * Strings are copied only for the fields kept, and only once, straight
 * from yajl's buffer into the object.
 */
#include "decode_json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Callbacks return 0 to stop yajl; the reason is then in d->err. */
static int fail(struct decoder *d, enum kerr_kind kind, const char *msg)
{
	d->failed = true;
	kerr_set(d->err, kind, "%s", msg);
	return 0;
}

static int oom(struct decoder *d)
{
	return fail(d, KERR_OTHER, "out of memory");
}

static int set_str(struct decoder *d, char **dst, const unsigned char *s, size_t len)
{
	char *p = kube_strdup_len((const char *)s, len);

	if (!p)
		return oom(d);
	free(*dst);
	*dst = p;
	return 1;
}

static enum ctx top(const struct decoder *d)
{
	return d->depth > 0 ? d->stack[d->depth - 1] : C_NONE;
}

static bool want_key(const struct decoder *d, enum ctx c, const unsigned char *k, size_t len)
{
	const struct decode_filter *f = d->base.spec.filter;

	switch (c) {
	case C_LABELS:
		return f->all_labels || decode_filter_match(f->label_keys, (const char *)k, len);
	case C_ANNOTATIONS:
		return f->all_annotations || decode_filter_match(f->annotation_keys, (const char *)k, len);
	default:
		return f->all_resources || decode_filter_match(f->resource_names, (const char *)k, len);
	}
}

/* --- entering and leaving containers ------------------------------------ */

static int enter(struct decoder *d, enum ctx c)
{
	switch (c) {
	case C_EVENT:
		decode_event_reset(&d->base);
		break;
	case C_OBJ:
		/* a second "object" in one event replaces the first */
		if (decode_object_new(&d->base) < 0)
			return oom(d);
		break;
	case C_OWNER:
		if (decode_array_add(&d->base, DECODE_OWNER) < 0)
			return oom(d);
		break;
	case C_CONTAINER:
		if (decode_array_add(&d->base, DECODE_CONTAINER) < 0)
			return oom(d);
		break;
	case C_TAINT:
		if (decode_array_add(&d->base, DECODE_TAINT) < 0)
			return oom(d);
		break;
	case C_TERM:
	case C_EXPR:
		if (decode_affinity_open(&d->base.room.aff, d->base.spec.filter, d->base.pod, c == C_TERM) < 0)
			return oom(d);
		break;
	case C_CONDITION:
		d->base.cond_ready = d->base.cond_true = false;
		break;
	case C_ADDRESS:
		free(d->base.addr);
		d->base.addr = NULL;
		d->base.addr_internal = false;
		break;
	default:
		break;
	}
	d->stack[d->depth++] = c;
	d->field = F_NONE;
	return 1;
}

/* A sink or the watch callback returned r: yajl goes on while it is 0 or
 * more. */
static int stopped_if(struct decoder *d, int r)
{
	if (r >= 0)
		return 1;
	d->failed = true;
	if (d->err && d->err->kind == KERR_NONE)
		kerr_set(d->err, KERR_OTHER, "decoding stopped");
	return 0;
}

static int emit_item(struct decoder *d)
{
	return stopped_if(d, decode_emit_item(&d->base, d->err));
}

static int emit_event(struct decoder *d)
{
	struct watch_event ev = {.kind = d->base.spec.kind};
	int r;

	if (!d->base.ev_type)
		return fail(d, KERR_DECODE, "invalid JSON in response: watch event without a type");
	if (decode_watch_type(d->base.ev_type, &ev.type) < 0)
		return fail(d, KERR_DECODE, "invalid JSON in response: unknown watch event type");
	if (ev.type == WATCH_ERROR) {
		ev.error_code = d->base.st_code;
		ev.error_reason = d->base.st_reason;
		ev.error_message = d->base.st_message;
		decode_object_clear(&d->base);
	} else {
		if (!d->base.node && !d->base.pod)
			return fail(d, KERR_DECODE, "invalid JSON in response: watch event without an object");
		if (decode_event_object(&ev, &d->base) < 0)
			return oom(d);
	}
	r = decode_event_send(&d->base, &ev, d->err);
	decode_object_clear(&d->base);
	return stopped_if(d, r);
}

static int leave(struct decoder *d)
{
	enum ctx c = d->stack[--d->depth];
	enum ctx parent = top(d);

	d->field = F_NONE;
	switch (c) {
	case C_LIST_META:
		decode_list_meta_send(&d->base);
		break;
	case C_LIST:
		if (d->list_is_status) {
			/* a failure the server (or something in between)
			 * sent with a success code */
			d->failed = true;
			kerr_set_status(d->err, d->base.st_code, d->base.st_reason,
					d->base.st_message && *d->base.st_message ? d->base.st_message
									: "the server sent a Status instead of a list");
			return 0;
		}
		decode_list_meta_send(&d->base);
		d->base.root_done = true;
		break;
	case C_OBJ:
		if (parent == C_ITEMS)
			return emit_item(d);
		if (parent == C_NONE)
			d->base.root_done = true;
		break;
	case C_EVENT:
		return emit_event(d);
	case C_CONDITION:
		decode_condition_end(&d->base);
		break;
	case C_ADDRESS:
		decode_address_end(&d->base);
		break;
	default:
		break;
	}
	return 1;
}

/* --- yajl callbacks ------------------------------------------------------ */

/* Every callback counts itself: a feed() that produced none was spent
 * inside one token (see decoder_feed()). */
static struct decoder *seen(void *ctx)
{
	struct decoder *d = ctx;

	d->events++;
	return d;
}

/* Deeper down a value of the wrong type reads as absent, but a list whose
 * items are not a list of objects is not the answer to the request (a
 * proxy's idea of JSON, a wrong server): showing an empty cluster would
 * hide that. */
static int bad_items(struct decoder *d)
{
	if (top(d) == C_ITEMS)
		return fail(d, KERR_DECODE, "invalid JSON in response: a list item is not an object");
	return fail(d, KERR_DECODE, "invalid JSON in response: the list's items are not an array");
}

/* A scalar where the list's items or an item belong (null is no items). */
static bool scalar_in_items(const struct decoder *d)
{
	return top(d) == C_ITEMS || (top(d) == C_LIST && d->field == F_ITEMS);
}

static int on_start(struct decoder *d, enum ctx c)
{
	if (d->skip) {
		d->skip++;
		return 1;
	}
	if (c == C_NONE) {
		if (top(d) == C_NONE)
			return fail(d, KERR_DECODE, "invalid JSON in response: expected an object");
		d->skip = 1;
		return 1;
	}
	if (c == C_BAD_ITEMS)
		return bad_items(d);
	if (d->depth == MAX_DEPTH)
		return fail(d, KERR_DECODE, "invalid JSON in response: nested too deeply");
	return enter(d, c);
}

static int cb_start_map(void *ctx)
{
	struct decoder *d = seen(ctx);

	return on_start(d, d->skip ? C_NONE : json_child_map(d));
}

static int cb_start_array(void *ctx)
{
	struct decoder *d = seen(ctx);

	return on_start(d, d->skip ? C_NONE : json_child_array(d));
}

static int cb_end(void *ctx)
{
	struct decoder *d = seen(ctx);

	if (d->skip) {
		d->skip--;
		return 1;
	}
	return leave(d);
}

/* A node label key the pod's scheduling needs, kept when the filter asks. */
static int add_node_key(struct decoder *d, const unsigned char *k, size_t len)
{
	struct kvlist *l = &d->base.pod->node_keys;

	if (!decode_filter_match(d->base.spec.filter->node_keys, (const char *)k, len))
		return 0;
	for (size_t i = 0; i < l->len; i++)
		if (strlen(l->items[i].key) == len && memcmp(l->items[i].key, k, len) == 0)
			return 0;
	return kvlist_add(&d->base.pod->node_keys, (const char *)k, len, "", 0);
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t len)
{
	struct decoder *d = seen(ctx);
	enum ctx c;

	if (d->skip)
		return 1;
	c = top(d);
	switch (c) {
	case C_LABELS:
	case C_ANNOTATIONS:
	case C_CAPACITY:
	case C_ALLOCATABLE:
	case C_LIMITS:
	case C_NODE_SELECTOR:
		d->field = F_NONE;
		if (c == C_NODE_SELECTOR && d->base.pod) {
			d->base.pod->has_node_selector = true;
			if (add_node_key(d, k, len) < 0)
				return oom(d);
		}
		if (c != C_NODE_SELECTOR && !want_key(d, c, k, len))
			return 1;
		if (len + 1 > d->keycap) {
			char *p = realloc(d->keybuf, len + 1);

			if (!p)
				return oom(d);
			d->keybuf = p;
			d->keycap = len + 1;
		}
		memcpy(d->keybuf, k, len);
		d->keylen = len;
		d->field = F_ENTRY;
		return 1;
	case C_SELECTOR:
		if (d->base.pod) {
			d->base.pod->has_node_selector = true;
			if (add_node_key(d, k, len) < 0)
				return oom(d);
		}
		d->field = F_NONE;
		return 1;
	case C_NODE_AFFINITY:
		if (d->base.pod)
			d->base.pod->has_node_selector = true;
		d->field = json_lookup_key(d, c, k, len);
		return 1;
	default:
		d->field = json_lookup_key(d, c, k, len);
		return 1;
	}
}

static struct kvlist *entry_list(struct decoder *d)
{
	struct k8s_container *ct;

	switch (top(d)) {
	case C_LABELS:
		return d->base.node ? &d->base.node->labels : d->base.pod ? &d->base.pod->labels : NULL;
	case C_ANNOTATIONS:
		return d->base.node ? &d->base.node->annotations : d->base.pod ? &d->base.pod->annotations : NULL;
	case C_CAPACITY:
		return d->base.node ? &d->base.node->capacity : NULL;
	case C_ALLOCATABLE:
		return d->base.node ? &d->base.node->allocatable : NULL;
	case C_LIMITS:
		ct = decode_last_container(&d->base);
		return ct ? &ct->limits : NULL;
	case C_NODE_SELECTOR:
		return d->base.pod ? &d->base.pod->node_selector : NULL;
	default:
		return NULL;
	}
}

static int on_entry(struct decoder *d, const unsigned char *s, size_t len)
{
	struct kvlist *l = entry_list(d);

	d->field = F_NONE;
	if (l && kvlist_add(l, d->keybuf, d->keylen, (const char *)s, len) < 0)
		return oom(d);
	return 1;
}

/* A string in a node's taint or a pod's toleration. */
static int taint_string(struct decoder *d, const unsigned char *s, size_t len)
{
	char **key, **value, **effect, **op = NULL;

	if (d->base.pod && d->base.pod->ntolerations) {
		struct k8s_toleration *t = &d->base.pod->tolerations[d->base.pod->ntolerations - 1];

		key = &t->key, value = &t->value, effect = &t->effect, op = &t->op;
	} else if (d->base.node && d->base.node->ntaints) {
		struct k8s_taint *t = &d->base.node->taints[d->base.node->ntaints - 1];

		key = &t->key, value = &t->value, effect = &t->effect;
	} else {
		return 1;
	}
	switch (d->field) {
	case F_KEY:
		return set_str(d, key, s, len);
	case F_VALUE:
		return set_str(d, value, s, len);
	case F_EFFECT:
		return set_str(d, effect, s, len);
	case F_OPERATOR:
		return op ? set_str(d, op, s, len) : 1;
	default:
		return 1;
	}
}

/* A string of a required node affinity expression the pod keeps. */
static int affinity_string(struct decoder *d, enum affinity_field f, const unsigned char *s, size_t len)
{
	return decode_affinity_string(&d->base.room.aff, f, s, len) < 0 ? oom(d) : 1;
}

/* The reason and message of a Status, in place of a list or of an object. */
static int status_str(struct decoder *d, const unsigned char *s, size_t len)
{
	if (d->field == F_REASON)
		return set_str(d, &d->base.st_reason, s, len);
	if (d->field == F_MESSAGE)
		return set_str(d, &d->base.st_message, s, len);
	return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct decoder *d = seen(ctx);
	enum ctx c;
	struct k8s_owner *o;
	struct k8s_container *ct;

	if (d->skip)
		return 1;
	c = top(d);
	if (c == C_NONE)
		return fail(d, KERR_DECODE, "invalid JSON in response: expected an object");
	if (d->field == F_ENTRY)
		return on_entry(d, s, len);
	if (scalar_in_items(d))
		return bad_items(d);
	switch (c) {
	case C_LIST:
		if (d->field == F_KIND) {
			d->list_is_status = KEY_IS(s, len, "Status");
			break;
		}
		return status_str(d, s, len);
	case C_LIST_META:
		if (d->field == F_RESOURCE_VERSION)
			return set_str(d, &d->base.list_rv, s, len);
		if (d->field == F_CONTINUE)
			return set_str(d, &d->base.list_continue, s, len);
		break;
	case C_EVENT:
		if (d->field == F_TYPE)
			return set_str(d, &d->base.ev_type, s, len);
		break;
	case C_OBJ:
		return status_str(d, s, len);
	case C_META: {
		struct k8s_node *n = d->base.node;
		struct k8s_pod *p = d->base.pod;

		if (!n && !p)
			break;
		switch (d->field) {
		case F_NAME:
			return set_str(d, n ? &n->name : &p->name, s, len);
		case F_NAMESPACE:
			return p ? set_str(d, &p->namespace, s, len) : 1;
		case F_UID:
			return set_str(d, n ? &n->uid : &p->uid, s, len);
		case F_RESOURCE_VERSION:
			return set_str(d, n ? &n->resource_version : &p->resource_version, s, len);
		case F_CREATED:
			return set_str(d, n ? &n->creation_timestamp : &p->creation_timestamp, s, len);
		case F_DELETED:
			if (p)
				p->deleting = true;
			break;
		default:
			break;
		}
		break;
	}
	case C_OWNER:
		o = decode_last_owner(&d->base);
		if (!o)
			break;
		if (d->field == F_KIND)
			return set_str(d, &o->kind, s, len);
		if (d->field == F_NAME)
			return set_str(d, &o->name, s, len);
		if (d->field == F_UID)
			return set_str(d, &o->uid, s, len);
		break;
	case C_ADDRESS:
		if (d->field == F_TYPE)
			d->base.addr_internal = KEY_IS(s, len, "InternalIP");
		else if (d->field == F_ADDRESS)
			return set_str(d, &d->base.addr, s, len);
		break;
	case C_TAINT:
		return taint_string(d, s, len);
	case C_CONDITION:
		if (d->field == F_TYPE)
			d->base.cond_ready = KEY_IS(s, len, "Ready");
		else if (d->field == F_STATUS)
			d->base.cond_true = KEY_IS(s, len, "True");
		break;
	case C_POD_SPEC:
		if (d->field == F_NODE_NAME)
			return set_str(d, &d->base.pod->node_name, s, len);
		if (d->field == F_SCHEDULER)
			return set_str(d, &d->base.pod->scheduler_name, s, len);
		break;
	case C_POD_STATUS:
		if (d->field == F_PHASE)
			return set_str(d, &d->base.pod->phase, s, len);
		break;
	case C_CONTAINER:
		ct = decode_last_container(&d->base);
		if (ct && d->field == F_NAME)
			return set_str(d, &ct->name, s, len);
		break;
	case C_EXPR:
		if (d->base.pod && d->field == F_KEY && add_node_key(d, s, len) < 0)
			return oom(d);
		if (d->field == F_KEY || d->field == F_OPERATOR)
			return affinity_string(d, d->field == F_KEY ? AFF_KEY : AFF_OPERATOR, s, len);
		break;
	case C_VALUES:
		return affinity_string(d, AFF_VALUE, s, len);
	default:
		break;
	}
	return 1;
}

static int cb_number(void *ctx, const char *s, size_t len)
{
	struct decoder *d = seen(ctx);

	if (d->skip)
		return 1;
	if (top(d) == C_NONE)
		return fail(d, KERR_DECODE, "invalid JSON in response: expected an object");
	/* Resource maps hold strings, but a number there is still readable. */
	if (d->field == F_ENTRY)
		return on_entry(d, (const unsigned char *)s, len);
	if (scalar_in_items(d))
		return bad_items(d);
	if ((top(d) == C_OBJ || top(d) == C_LIST) && d->field == F_CODE) {
		long code = 0;
		size_t i = 0;

		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (code < 100000)
				code = code * 10 + (s[i] - '0');
		d->base.st_code = i == len && code < 100000 ? code : 0;
	}
	return 1;
}

static int cb_boolean(void *ctx, int value)
{
	struct decoder *d = seen(ctx);
	struct k8s_owner *o;

	if (d->skip)
		return 1;
	if (scalar_in_items(d))
		return bad_items(d);
	switch (top(d)) {
	case C_NONE:
		return fail(d, KERR_DECODE, "invalid JSON in response: expected an object");
	case C_NODE_SPEC:
		if (d->field == F_UNSCHEDULABLE && d->base.node)
			d->base.node->unschedulable = value;
		break;
	case C_OWNER:
		o = decode_last_owner(&d->base);
		if (o && d->field == F_CONTROLLER)
			o->controller = value;
		break;
	default:
		break;
	}
	return 1;
}

static int cb_null(void *ctx)
{
	struct decoder *d = seen(ctx);

	if (!d->skip && top(d) == C_NONE)
		return fail(d, KERR_DECODE, "invalid JSON in response: expected an object");
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

/* --- driving yajl -------------------------------------------------------- */

int json_decoder_init(struct decoder *d, const struct decode_spec *spec)
{
	memset(d, 0, sizeof(*d));
	decode_state_init(&d->base, spec);
	d->h = yajl_alloc(&callbacks, NULL, d);
	if (!d->h)
		return -1;
	if (spec->mode == DEC_WATCH)
		yajl_config(d->h, yajl_allow_multiple_values, 1);
	return 0;
}

void json_decoder_release(struct decoder *d)
{
	if (d->h)
		yajl_free(d->h);
	decode_state_release(&d->base);
	free(d->keybuf);
	free(d->held);
}
