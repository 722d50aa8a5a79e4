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
#include "decode.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum ctx {
	C_NONE,
	C_BAD_ITEMS,	/* not pushed: "items" or an item of the wrong type */
	C_LIST,		/* top of a NodeList/PodList */
	C_LIST_META,
	C_ITEMS,
	C_EVENT,	/* top of a watch event */
	C_OBJ,		/* a node or pod (or, in a watch ERROR event, a Status) */
	C_META,
	C_LABELS,
	C_ANNOTATIONS,
	C_OWNERS,
	C_OWNER,
	C_NODE_SPEC,
	C_NODE_STATUS,
	C_CAPACITY,
	C_ALLOCATABLE,
	C_ADDRESSES,
	C_ADDRESS,
	C_CONDITIONS,
	C_CONDITION,
	C_POD_SPEC,
	C_POD_STATUS,
	C_AFFINITY,
	C_SELECTOR,	/* nodeSelector: any key in it counts */
	C_NODE_AFFINITY,
	C_REQUIRED,	/* requiredDuringSchedulingIgnoredDuringExecution */
	C_TERMS,	/* nodeSelectorTerms */
	C_TERM,
	C_EXPRS,	/* matchExpressions */
	C_EXPR,
	C_CONTAINERS,
	C_CONTAINER,
	C_RESOURCES,
	C_LIMITS,
	C_TAINTS,
	C_TAINT,	/* a node's taint, or a pod's toleration */
	C_NODE_SELECTOR, /* a pod's nodeSelector, kept when the filter asks for scheduling */
};

/* The key just read, in the object on top of the stack. */
enum field {
	F_NONE,
	F_METADATA,
	F_ITEMS,
	F_SPEC,
	F_STATUS,
	F_RESOURCE_VERSION,
	F_CONTINUE,
	F_NAME,
	F_NAMESPACE,
	F_UID,
	F_CREATED,
	F_DELETED,
	F_LABELS,
	F_ANNOTATIONS,
	F_OWNERS,
	F_KIND,
	F_CONTROLLER,
	F_UNSCHEDULABLE,
	F_CAPACITY,
	F_ALLOCATABLE,
	F_ADDRESSES,
	F_CONDITIONS,
	F_TYPE,
	F_ADDRESS,
	F_NODE_NAME,
	F_SCHEDULER,
	F_NODE_SELECTOR,
	F_AFFINITY,
	F_NODE_AFFINITY,
	F_REQUIRED,
	F_TERMS,
	F_EXPRS,
	F_KEY,
	F_CONTAINERS,
	F_RESOURCES,
	F_LIMITS,
	F_PHASE,
	F_CODE,
	F_REASON,
	F_MESSAGE,
	F_OBJECT,
	F_TAINTS,
	F_VALUE,
	F_EFFECT,
	F_OPERATOR,
	F_TOLERATIONS,
	F_ENTRY, /* a key of a filtered map that the filter keeps (in keybuf) */
};

enum mode { MODE_LIST, MODE_SINGLE, MODE_WATCH };

#define MAX_DEPTH 16

/* What the prefilter (below) knows of an open object or array. */
enum pf_level {
	PL_OTHER,	/* nothing to drop inside */
	PL_ROOT,	/* the list */
	PL_ITEMS,
	PL_ITEM,
	PL_FIELDS,	/* an object whose keys lookup_key() reads: metadata, spec, status, a container */
	PL_CONTAINERS,
};

#define PF_LEVELS 8
#define PF_KEY_MAX 32

struct prefilter {
	bool on;
	bool in_str, esc;
	bool capture;	/* the string being read is a key of a PL_ROOT/PL_ITEM/PL_FIELDS object */
	bool drop_next; /* an object or array value starting now is dropped */
	size_t depth;	/* open objects and arrays */
	size_t drop;	/* > 0: inside a dropped value, its nesting */
	unsigned char level[PF_LEVELS];	/* per open container (depth - 1), when depth <= PF_LEVELS */
	unsigned char ctx[PF_LEVELS];	/* PL_FIELDS: the decoder context its keys belong to */
	bool want_key[PF_LEVELS];
	unsigned char child[PF_LEVELS], child_ctx[PF_LEVELS]; /* for a value opening under the last key */
	char key[PF_KEY_MAX];
	size_t keylen;
	bool key_bad;	/* escaped or too long: never dropped */
};

struct decoder {
	yajl_handle h;
	enum mode mode;
	enum obj_kind kind;
	const struct decode_filter *filter;
	struct kerr *err; /* during a feed */
	bool failed, started;

	enum ctx stack[MAX_DEPTH];
	int depth;
	size_t skip; /* > 0: inside a subtree being skipped */
	enum field field;
	char *keybuf;
	size_t keylen, keycap;

	/* the object being read */
	struct k8s_node *node;
	struct k8s_pod *pod;
	size_t containers_cap, owners_cap, taints_cap;
	bool cond_ready, cond_true, addr_internal;
	char *addr;

	/* lists */
	struct decode_sink sink;
	char *list_rv, *list_continue;
	bool meta_sent, root_done, list_is_status;

	struct prefilter pf;

	/* input held back while a long token is being read */
	size_t events, run;
	unsigned char *held;
	size_t held_len, held_cap;

	/* watch */
	watch_cb cb;
	void *ud;
	char *ev_type;
	char *st_reason, *st_message;
	long st_code;
};

struct list_decoder {
	struct decoder d;
};

struct watch_decoder {
	struct decoder d;
};

#define KEY_IS(k, len, lit) ((len) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

static char *copy_str(const unsigned char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

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
	char *p = copy_str(s, len);

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

static void object_clear(struct decoder *d)
{
	k8s_node_free(d->node);
	k8s_pod_free(d->pod);
	d->node = NULL;
	d->pod = NULL;
	d->containers_cap = d->owners_cap = d->taints_cap = 0;
}

static struct k8s_container *cur_container(struct decoder *d)
{
	return d->pod && d->pod->ncontainers ? &d->pod->containers[d->pod->ncontainers - 1] : NULL;
}

static struct k8s_owner *cur_owner(struct decoder *d)
{
	return d->pod && d->pod->nowners ? &d->pod->owners[d->pod->nowners - 1] : NULL;
}

static bool want_key(const struct decoder *d, enum ctx c, const unsigned char *k, size_t len)
{
	const struct decode_filter *f = d->filter;

	switch (c) {
	case C_LABELS:
		return f->all_labels || decode_filter_match(f->label_keys, (const char *)k, len);
	case C_ANNOTATIONS:
		return f->all_annotations || decode_filter_match(f->annotation_keys, (const char *)k, len);
	default:
		return f->all_resources || decode_filter_match(f->resource_names, (const char *)k, len);
	}
}

static enum field lookup_key(const struct decoder *d, enum ctx c, const unsigned char *k, size_t len)
{
	bool pod = d->kind == OBJ_POD;

	switch (c) {
	case C_LIST:
		if (KEY_IS(k, len, "items"))
			return F_ITEMS;
		if (KEY_IS(k, len, "metadata"))
			return F_METADATA;
		if (KEY_IS(k, len, "kind"))
			return F_KIND;
		if (KEY_IS(k, len, "code"))
			return F_CODE;
		if (KEY_IS(k, len, "reason"))
			return F_REASON;
		if (KEY_IS(k, len, "message"))
			return F_MESSAGE;
		break;
	case C_LIST_META:
		if (KEY_IS(k, len, "resourceVersion"))
			return F_RESOURCE_VERSION;
		if (KEY_IS(k, len, "continue"))
			return F_CONTINUE;
		break;
	case C_EVENT:
		if (KEY_IS(k, len, "type"))
			return F_TYPE;
		if (KEY_IS(k, len, "object"))
			return F_OBJECT;
		break;
	case C_OBJ:
		if (KEY_IS(k, len, "metadata"))
			return F_METADATA;
		if (KEY_IS(k, len, "spec"))
			return F_SPEC;
		if (KEY_IS(k, len, "status"))
			return F_STATUS;
		if (d->mode == MODE_WATCH) {
			if (KEY_IS(k, len, "code"))
				return F_CODE;
			if (KEY_IS(k, len, "reason"))
				return F_REASON;
			if (KEY_IS(k, len, "message"))
				return F_MESSAGE;
		}
		break;
	case C_META:
		if (KEY_IS(k, len, "name"))
			return F_NAME;
		if (KEY_IS(k, len, "uid"))
			return F_UID;
		if (KEY_IS(k, len, "resourceVersion"))
			return F_RESOURCE_VERSION;
		if (KEY_IS(k, len, "creationTimestamp"))
			return F_CREATED;
		if (KEY_IS(k, len, "labels"))
			return F_LABELS;
		if (KEY_IS(k, len, "annotations"))
			return F_ANNOTATIONS;
		if (pod && KEY_IS(k, len, "namespace"))
			return F_NAMESPACE;
		if (pod && KEY_IS(k, len, "deletionTimestamp"))
			return F_DELETED;
		if (pod && KEY_IS(k, len, "ownerReferences"))
			return F_OWNERS;
		break;
	case C_OWNER:
		if (KEY_IS(k, len, "kind"))
			return F_KIND;
		if (KEY_IS(k, len, "name"))
			return F_NAME;
		if (KEY_IS(k, len, "uid"))
			return F_UID;
		if (KEY_IS(k, len, "controller"))
			return F_CONTROLLER;
		break;
	case C_NODE_SPEC:
		if (KEY_IS(k, len, "unschedulable"))
			return F_UNSCHEDULABLE;
		if (d->filter->scheduling && KEY_IS(k, len, "taints"))
			return F_TAINTS;
		break;
	case C_TAINT:
		if (KEY_IS(k, len, "key"))
			return F_KEY;
		if (KEY_IS(k, len, "value"))
			return F_VALUE;
		if (KEY_IS(k, len, "effect"))
			return F_EFFECT;
		if (pod && KEY_IS(k, len, "operator"))
			return F_OPERATOR;
		break;
	case C_NODE_STATUS:
		if (KEY_IS(k, len, "capacity"))
			return F_CAPACITY;
		if (KEY_IS(k, len, "allocatable"))
			return F_ALLOCATABLE;
		if (KEY_IS(k, len, "addresses"))
			return F_ADDRESSES;
		if (KEY_IS(k, len, "conditions"))
			return F_CONDITIONS;
		break;
	case C_ADDRESS:
		if (KEY_IS(k, len, "type"))
			return F_TYPE;
		if (KEY_IS(k, len, "address"))
			return F_ADDRESS;
		break;
	case C_CONDITION:
		if (KEY_IS(k, len, "type"))
			return F_TYPE;
		if (KEY_IS(k, len, "status"))
			return F_STATUS;
		break;
	case C_POD_SPEC:
		if (KEY_IS(k, len, "containers"))
			return F_CONTAINERS;
		if (KEY_IS(k, len, "nodeName"))
			return F_NODE_NAME;
		if (KEY_IS(k, len, "schedulerName"))
			return F_SCHEDULER;
		if (KEY_IS(k, len, "nodeSelector"))
			return F_NODE_SELECTOR;
		if (KEY_IS(k, len, "affinity"))
			return F_AFFINITY;
		if (d->filter->scheduling && KEY_IS(k, len, "tolerations"))
			return F_TOLERATIONS;
		break;
	case C_AFFINITY:
		if (KEY_IS(k, len, "nodeAffinity"))
			return F_NODE_AFFINITY;
		break;
	case C_NODE_AFFINITY:
		if (KEY_IS(k, len, "requiredDuringSchedulingIgnoredDuringExecution"))
			return F_REQUIRED;
		break;
	case C_REQUIRED:
		if (KEY_IS(k, len, "nodeSelectorTerms"))
			return F_TERMS;
		break;
	case C_TERM:
		if (KEY_IS(k, len, "matchExpressions"))
			return F_EXPRS;
		break;
	case C_EXPR:
		if (KEY_IS(k, len, "key"))
			return F_KEY;
		break;
	case C_POD_STATUS:
		if (KEY_IS(k, len, "phase"))
			return F_PHASE;
		if (KEY_IS(k, len, "conditions"))
			return F_CONDITIONS;
		break;
	case C_CONTAINER:
		if (KEY_IS(k, len, "name"))
			return F_NAME;
		if (KEY_IS(k, len, "resources"))
			return F_RESOURCES;
		break;
	case C_RESOURCES:
		if (KEY_IS(k, len, "limits"))
			return F_LIMITS;
		break;
	default:
		break;
	}
	return F_NONE;
}

/* --- entering and leaving containers ------------------------------------ */

/* Room for one more element in an array of len elements; returns the
 * (possibly moved) array, or NULL when out of memory. */
static void *grow(void *items, size_t *cap, size_t len, size_t size)
{
	size_t ncap;
	void *p;

	if (len < *cap)
		return items;
	ncap = *cap ? *cap * 2 : 2;
	if (ncap > SIZE_MAX / size)
		return NULL;
	p = realloc(items, ncap * size);
	if (p)
		*cap = ncap;
	return p;
}

/* Does something when an object or array opens as the value of the current
 * key (or as an element of the array on top); returns the context to push,
 * or C_NONE to skip the value. */
static enum ctx child_map(struct decoder *d)
{
	enum ctx c = top(d);
	bool pod = d->kind == OBJ_POD;

	switch (c) {
	case C_NONE:
		return d->mode == MODE_LIST ? C_LIST : d->mode == MODE_WATCH ? C_EVENT : C_OBJ;
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
			return d->filter->scheduling ? C_NODE_SELECTOR : C_SELECTOR;
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

static enum ctx child_array(struct decoder *d)
{
	switch (top(d)) {
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
	default:
		return C_NONE;
	}
}

static int enter(struct decoder *d, enum ctx c)
{
	switch (c) {
	case C_EVENT:
		free(d->ev_type);
		free(d->st_reason);
		free(d->st_message);
		d->ev_type = d->st_reason = d->st_message = NULL;
		d->st_code = 0;
		object_clear(d);
		break;
	case C_OBJ:
		/* a second "object" in one event replaces the first */
		object_clear(d);
		if (d->kind == OBJ_POD)
			d->pod = calloc(1, sizeof(*d->pod));
		else
			d->node = calloc(1, sizeof(*d->node));
		if (!d->pod && !d->node)
			return oom(d);
		break;
	case C_OWNER: {
		struct k8s_owner *o = grow(d->pod->owners, &d->owners_cap, d->pod->nowners, sizeof(*o));

		if (!o)
			return oom(d);
		d->pod->owners = o;
		memset(&o[d->pod->nowners++], 0, sizeof(*o));
		break;
	}
	case C_CONTAINER: {
		struct k8s_container *ct = grow(d->pod->containers, &d->containers_cap, d->pod->ncontainers,
						sizeof(*ct));

		if (!ct)
			return oom(d);
		d->pod->containers = ct;
		memset(&ct[d->pod->ncontainers++], 0, sizeof(*ct));
		break;
	}
	case C_TAINT:
		if (d->node) {
			struct k8s_taint *t = grow(d->node->taints, &d->taints_cap, d->node->ntaints, sizeof(*t));

			if (!t)
				return oom(d);
			d->node->taints = t;
			memset(&t[d->node->ntaints++], 0, sizeof(*t));
		} else {
			struct k8s_toleration *t = grow(d->pod->tolerations, &d->taints_cap, d->pod->ntolerations,
							sizeof(*t));

			if (!t)
				return oom(d);
			d->pod->tolerations = t;
			memset(&t[d->pod->ntolerations++], 0, sizeof(*t));
		}
		break;
	case C_CONDITION:
		d->cond_ready = d->cond_true = false;
		break;
	case C_ADDRESS:
		free(d->addr);
		d->addr = NULL;
		d->addr_internal = false;
		break;
	default:
		break;
	}
	d->stack[d->depth++] = c;
	d->field = F_NONE;
	return 1;
}

static void send_list_meta(struct decoder *d)
{
	if (d->meta_sent)
		return;
	d->meta_sent = true;
	if (d->sink.list_meta)
		d->sink.list_meta(d->sink.ud, d->list_rv,
				  d->list_continue && *d->list_continue ? d->list_continue : NULL);
}

static int emit_item(struct decoder *d)
{
	int r = 0;

	if (d->node) {
		struct k8s_node *n = d->node;

		d->node = NULL;
		if (d->sink.node)
			r = d->sink.node(d->sink.ud, n, d->err);
		else
			k8s_node_free(n);
	} else if (d->pod) {
		struct k8s_pod *p = d->pod;

		d->pod = NULL;
		if (d->sink.pod)
			r = d->sink.pod(d->sink.ud, p, d->err);
		else
			k8s_pod_free(p);
	}
	if (r < 0) {
		d->failed = true;
		if (d->err && d->err->kind == KERR_NONE)
			kerr_set(d->err, KERR_OTHER, "decoding stopped");
		return 0;
	}
	return 1;
}

static int watch_type(const char *s, enum watch_type *ret)
{
	static const char *const names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum watch_type)i;
			return 0;
		}
	return -1;
}

static int emit_event(struct decoder *d)
{
	struct watch_event ev = {.kind = d->kind};
	const char *rv;
	int r;

	if (!d->ev_type)
		return fail(d, KERR_DECODE, "invalid JSON in response: watch event without a type");
	if (watch_type(d->ev_type, &ev.type) < 0)
		return fail(d, KERR_DECODE, "invalid JSON in response: unknown watch event type");
	if (ev.type == WATCH_ERROR) {
		ev.error_code = d->st_code;
		ev.error_reason = d->st_reason;
		ev.error_message = d->st_message;
		object_clear(d);
	} else {
		if (!d->node && !d->pod)
			return fail(d, KERR_DECODE, "invalid JSON in response: watch event without an object");
		/* a copy: the receiver may free the object before it is done
		 * with the event */
		rv = d->node ? d->node->resource_version : d->pod->resource_version;
		if (rv && !(ev.resource_version = strdup(rv)))
			return oom(d);
		if (ev.type != WATCH_BOOKMARK) {
			ev.node = d->node;
			ev.pod = d->pod;
			d->node = NULL;
			d->pod = NULL;
		}
	}
	r = d->cb ? d->cb(d->ud, &ev, d->err) : 0;
	if (!d->cb) {
		k8s_node_free(ev.node);
		k8s_pod_free(ev.pod);
	}
	free(ev.resource_version);
	object_clear(d);
	if (r < 0) {
		d->failed = true;
		if (d->err && d->err->kind == KERR_NONE)
			kerr_set(d->err, KERR_OTHER, "decoding stopped");
		return 0;
	}
	return 1;
}

static int leave(struct decoder *d)
{
	enum ctx c = d->stack[--d->depth];
	enum ctx parent = top(d);

	d->field = F_NONE;
	switch (c) {
	case C_LIST_META:
		send_list_meta(d);
		break;
	case C_LIST:
		if (d->list_is_status) {
			/* a failure the server (or something in between)
			 * sent with a success code */
			d->failed = true;
			kerr_set_status(d->err, d->st_code, d->st_reason,
					d->st_message && *d->st_message ? d->st_message
									: "the server sent a Status instead of a list");
			return 0;
		}
		send_list_meta(d);
		d->root_done = true;
		break;
	case C_OBJ:
		if (parent == C_ITEMS)
			return emit_item(d);
		if (parent == C_NONE)
			d->root_done = true;
		break;
	case C_EVENT:
		return emit_event(d);
	case C_CONDITION:
		if (d->cond_ready) {
			if (d->node)
				d->node->ready = d->cond_true;
			else if (d->pod)
				d->pod->ready = d->cond_true;
		}
		break;
	case C_ADDRESS:
		if (d->addr_internal && d->addr && d->node && !d->node->internal_ip) {
			d->node->internal_ip = d->addr;
			d->addr = NULL;
		}
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

	return on_start(d, d->skip ? C_NONE : child_map(d));
}

static int cb_start_array(void *ctx)
{
	struct decoder *d = seen(ctx);

	return on_start(d, d->skip ? C_NONE : child_array(d));
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
	struct kvlist *l = &d->pod->node_keys;

	if (!decode_filter_match(d->filter->node_keys, (const char *)k, len))
		return 0;
	for (size_t i = 0; i < l->len; i++)
		if (strlen(l->items[i].key) == len && memcmp(l->items[i].key, k, len) == 0)
			return 0;
	return kvlist_add(&d->pod->node_keys, (const char *)k, len, "", 0);
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
		if (c == C_NODE_SELECTOR && d->pod) {
			d->pod->has_node_selector = true;
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
		if (d->pod) {
			d->pod->has_node_selector = true;
			if (add_node_key(d, k, len) < 0)
				return oom(d);
		}
		d->field = F_NONE;
		return 1;
	case C_NODE_AFFINITY:
		if (d->pod)
			d->pod->has_node_selector = true;
		d->field = lookup_key(d, c, k, len);
		return 1;
	default:
		d->field = lookup_key(d, c, k, len);
		return 1;
	}
}

static struct kvlist *entry_list(struct decoder *d)
{
	struct k8s_container *ct;

	switch (top(d)) {
	case C_LABELS:
		return d->node ? &d->node->labels : d->pod ? &d->pod->labels : NULL;
	case C_ANNOTATIONS:
		return d->node ? &d->node->annotations : d->pod ? &d->pod->annotations : NULL;
	case C_CAPACITY:
		return d->node ? &d->node->capacity : NULL;
	case C_ALLOCATABLE:
		return d->node ? &d->node->allocatable : NULL;
	case C_LIMITS:
		ct = cur_container(d);
		return ct ? &ct->limits : NULL;
	case C_NODE_SELECTOR:
		return d->pod ? &d->pod->node_selector : NULL;
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
		if (d->field == F_KIND)
			d->list_is_status = KEY_IS(s, len, "Status");
		else if (d->field == F_REASON)
			return set_str(d, &d->st_reason, s, len);
		else if (d->field == F_MESSAGE)
			return set_str(d, &d->st_message, s, len);
		break;
	case C_LIST_META:
		if (d->field == F_RESOURCE_VERSION)
			return set_str(d, &d->list_rv, s, len);
		if (d->field == F_CONTINUE)
			return set_str(d, &d->list_continue, s, len);
		break;
	case C_EVENT:
		if (d->field == F_TYPE)
			return set_str(d, &d->ev_type, s, len);
		break;
	case C_OBJ:
		if (d->field == F_REASON)
			return set_str(d, &d->st_reason, s, len);
		if (d->field == F_MESSAGE)
			return set_str(d, &d->st_message, s, len);
		break;
	case C_META:
		if (d->node) {
			switch (d->field) {
			case F_NAME:
				return set_str(d, &d->node->name, s, len);
			case F_UID:
				return set_str(d, &d->node->uid, s, len);
			case F_RESOURCE_VERSION:
				return set_str(d, &d->node->resource_version, s, len);
			case F_CREATED:
				return set_str(d, &d->node->creation_timestamp, s, len);
			default:
				break;
			}
		} else if (d->pod) {
			switch (d->field) {
			case F_NAME:
				return set_str(d, &d->pod->name, s, len);
			case F_NAMESPACE:
				return set_str(d, &d->pod->namespace, s, len);
			case F_UID:
				return set_str(d, &d->pod->uid, s, len);
			case F_RESOURCE_VERSION:
				return set_str(d, &d->pod->resource_version, s, len);
			case F_CREATED:
				return set_str(d, &d->pod->creation_timestamp, s, len);
			case F_DELETED:
				d->pod->deleting = true;
				break;
			default:
				break;
			}
		}
		break;
	case C_OWNER:
		o = cur_owner(d);
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
			d->addr_internal = KEY_IS(s, len, "InternalIP");
		else if (d->field == F_ADDRESS)
			return set_str(d, &d->addr, s, len);
		break;
	case C_TAINT:
		if (d->pod && d->pod->ntolerations) {
			struct k8s_toleration *t = &d->pod->tolerations[d->pod->ntolerations - 1];

			if (d->field == F_KEY)
				return set_str(d, &t->key, s, len);
			if (d->field == F_VALUE)
				return set_str(d, &t->value, s, len);
			if (d->field == F_EFFECT)
				return set_str(d, &t->effect, s, len);
			if (d->field == F_OPERATOR)
				return set_str(d, &t->op, s, len);
		}
		if (d->node && d->node->ntaints) {
			struct k8s_taint *t = &d->node->taints[d->node->ntaints - 1];

			if (d->field == F_KEY)
				return set_str(d, &t->key, s, len);
			if (d->field == F_VALUE)
				return set_str(d, &t->value, s, len);
			if (d->field == F_EFFECT)
				return set_str(d, &t->effect, s, len);
		}
		break;
	case C_CONDITION:
		if (d->field == F_TYPE)
			d->cond_ready = KEY_IS(s, len, "Ready");
		else if (d->field == F_STATUS)
			d->cond_true = KEY_IS(s, len, "True");
		break;
	case C_POD_SPEC:
		if (d->field == F_NODE_NAME)
			return set_str(d, &d->pod->node_name, s, len);
		if (d->field == F_SCHEDULER)
			return set_str(d, &d->pod->scheduler_name, s, len);
		break;
	case C_POD_STATUS:
		if (d->field == F_PHASE)
			return set_str(d, &d->pod->phase, s, len);
		break;
	case C_CONTAINER:
		ct = cur_container(d);
		if (ct && d->field == F_NAME)
			return set_str(d, &ct->name, s, len);
		break;
	case C_EXPR:
		if (d->pod && d->field == F_KEY && add_node_key(d, s, len) < 0)
			return oom(d);
		break;
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
		d->st_code = i == len ? code : 0;
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
		if (d->field == F_UNSCHEDULABLE && d->node)
			d->node->unschedulable = value;
		break;
	case C_OWNER:
		o = cur_owner(d);
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

static int decoder_init(struct decoder *d, enum mode mode, enum obj_kind kind,
			const struct decode_filter *filter)
{
	static const struct decode_filter none;

	memset(d, 0, sizeof(*d));
	d->mode = mode;
	d->kind = kind;
	d->filter = filter ? filter : &none;
	d->h = yajl_alloc(&callbacks, NULL, d);
	if (!d->h)
		return -1;
	if (mode == MODE_WATCH)
		yajl_config(d->h, yajl_allow_multiple_values, 1);
	return 0;
}

static void decoder_release(struct decoder *d)
{
	if (d->h)
		yajl_free(d->h);
	object_clear(d);
	free(d->keybuf);
	free(d->held);
	free(d->addr);
	free(d->list_rv);
	free(d->list_continue);
	free(d->ev_type);
	free(d->st_reason);
	free(d->st_message);
}

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
		text = d->started ? "unexpected end of data" : "empty body";
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
		size_t cap = d->held_cap ? d->held_cap : 4096;
		unsigned char *q;

		while (cap < d->held_len + len)
			cap *= 2;
		q = realloc(d->held, cap);
		if (!q) {
			d->failed = true;
			return kerr_set(err, KERR_OTHER, "out of memory");
		}
		d->held = q;
		d->held_cap = cap;
	}
	memcpy(d->held + d->held_len, p, len);
	d->held_len += len;
	if (d->held_len >= d->run ||
	    (d->mode == MODE_WATCH && (p[len - 1] == '}' || memchr(p, '\n', len))))
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
			f->child_ctx[i] = d->kind == OBJ_POD ? C_POD_SPEC : C_NODE_SPEC;
		else if (KEY_IS(f->key, f->keylen, "status"))
			f->child_ctx[i] = d->kind == OBJ_POD ? C_POD_STATUS : C_NODE_STATUS;
		else
			f->child[i] = PL_OTHER;
		break;
	case PL_FIELDS:
		fld = lookup_key(d, (enum ctx)f->ctx[i], (const unsigned char *)f->key, f->keylen);
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
	if (!d->started) {
		size_t i = 0;

		while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
			i++;
		if (i < len) {
			d->started = true;
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
	if (!d->root_done) {
		d->failed = true;
		return kerr_set(err, KERR_DECODE, "invalid JSON in response: empty body");
	}
	return 0;
}

/* --- lists --------------------------------------------------------------- */

struct list_decoder *list_decoder_new(enum obj_kind kind, const struct decode_filter *filter,
				      const struct decode_sink *sink)
{
	struct list_decoder *ld = malloc(sizeof(*ld));

	if (!ld)
		return NULL;
	if (decoder_init(&ld->d, MODE_LIST, kind, filter) < 0) {
		free(ld);
		return NULL;
	}
	if (sink)
		ld->d.sink = *sink;
	ld->d.pf.on = true;
	return ld;
}

int list_decoder_feed(struct list_decoder *d, const void *buf, size_t len, struct kerr *err)
{
	if (!d)
		return kerr_set(err, KERR_OTHER, "no decoder");
	return decoder_feed(&d->d, buf, len, err);
}

int list_decoder_finish(struct list_decoder *d, struct kerr *err)
{
	if (!d)
		return kerr_set(err, KERR_OTHER, "no decoder");
	return decoder_finish(&d->d, err);
}

void list_decoder_free(struct list_decoder *d)
{
	if (!d)
		return;
	decoder_release(&d->d);
	free(d);
}

static int decode_single(enum obj_kind kind, const void *buf, size_t len,
			 const struct decode_filter *filter, struct decoder *d, struct kerr *err)
{
	if (decoder_init(d, MODE_SINGLE, kind, filter) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (decoder_feed(d, buf, len, err) < 0 || decoder_finish(d, err) < 0)
		return -1;
	return 0;
}

int decode_node(const void *buf, size_t len, const struct decode_filter *filter,
		struct k8s_node **ret, struct kerr *err)
{
	struct decoder d;
	int r = decode_single(OBJ_NODE, buf, len, filter, &d, err);

	if (r == 0 && ret) {
		*ret = d.node;
		d.node = NULL;
	}
	decoder_release(&d);
	return r;
}

int decode_pod(const void *buf, size_t len, const struct decode_filter *filter,
	       struct k8s_pod **ret, struct kerr *err)
{
	struct decoder d;
	int r = decode_single(OBJ_POD, buf, len, filter, &d, err);

	if (r == 0 && ret) {
		*ret = d.pod;
		d.pod = NULL;
	}
	decoder_release(&d);
	return r;
}

/* --- watch streams ------------------------------------------------------- */

struct watch_decoder *watch_decoder_new(enum obj_kind kind, const struct decode_filter *filter,
					watch_cb cb, void *ud)
{
	struct watch_decoder *wd = malloc(sizeof(*wd));

	if (!wd)
		return NULL;
	if (decoder_init(&wd->d, MODE_WATCH, kind, filter) < 0) {
		free(wd);
		return NULL;
	}
	wd->d.cb = cb;
	wd->d.ud = ud;
	return wd;
}

int watch_decoder_feed(struct watch_decoder *d, const void *buf, size_t len, struct kerr *err)
{
	if (!d)
		return kerr_set(err, KERR_OTHER, "no decoder");
	return decoder_feed(&d->d, buf, len, err);
}

void watch_decoder_free(struct watch_decoder *d)
{
	if (!d)
		return;
	decoder_release(&d->d);
	free(d);
}
