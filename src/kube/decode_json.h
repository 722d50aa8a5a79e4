/* The JSON decoder's state, shared by its two halves: decode_json.c (the
 * state machine fed by yajl's events) and decode_json_scan.c (the table of
 * keys kept, the input side and its prefilter).
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_JSON_H
#define DECODE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "decode_internal.h"

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
	C_TAINTS,	/* a node's taints or a pod's tolerations */
	C_TAINT,	/* a node's taint, or a pod's toleration */
	C_NODE_SELECTOR, /* a pod's nodeSelector, kept when the filter asks for scheduling */
	C_VALUES,	/* a matchExpressions entry's values, kept when the filter asks for scheduling */
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
	F_VALUES,
	F_ENTRY, /* a key of a filtered map that the filter keeps (in keybuf) */
};


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
	struct decode_state base;
	yajl_handle h;
	struct kerr *err; /* during a feed */
	bool failed;

	enum ctx stack[MAX_DEPTH];
	int depth;
	size_t skip; /* > 0: inside a subtree being skipped */
	enum field field;
	char *keybuf;
	size_t keylen, keycap;

	/* lists */
	bool list_is_status;

	struct prefilter pf;

	/* input held back while a long token is being read */
	size_t events, run;
	unsigned char *held;
	size_t held_len, held_cap;
};

#define KEY_IS(k, len, lit) ((len) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* decode_json.c */
int json_decoder_init(struct decoder *d, const struct decode_spec *spec);
void json_decoder_release(struct decoder *d);

static inline enum ctx json_top(const struct decoder *d)
{
	return d->depth > 0 ? d->stack[d->depth - 1] : C_NONE;
}

/* decode_json_scan.c: which field a key of an object in context c is */
enum field json_lookup_key(const struct decoder *d, enum ctx c, const unsigned char *k, size_t len);
/* decode_json_scan.c: the context an object or array opening now pushes,
 * or C_NONE to skip the value */
enum ctx json_child_map(const struct decoder *d);
enum ctx json_child_array(const struct decoder *d);

#endif
