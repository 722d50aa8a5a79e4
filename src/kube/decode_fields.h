/* The decoders' one table of kept fields.
 *
 * A row per field the client keeps: the message it is in, its key in JSON,
 * its number in protobuf, what it holds and where that goes in the plain
 * structs of objects.h (or in the decoder's own state, for what a response
 * holds beside its objects).  Both decoders read every field through this
 * table (decode_json.c, decode_pb.c) and store it with the same code
 * (decode_build.c); a field in no row is read past.
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_FIELDS_H
#define DECODE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode_sink.h"

/* The messages whose fields are kept.  The first ones frame a response;
 * then each kind's object and the messages inside it. */
enum decode_msg {
	M_NONE,
	M_LIST,	     /* NodeList, PodList: its metadata and items; in JSON a Status may stand here */
	M_LIST_META, /* ListMeta */
	M_EVENT,     /* WatchEvent */
	M_STATUS,    /* meta/v1 Status: a failure in place of what was asked for */
	M_UNKNOWN,   /* runtime.Unknown: protobuf's envelope */
	M_TYPE_META, /* TypeMeta: the kind of what protobuf's envelope holds */
	M_RAW,	     /* RawExtension: an object inside a protobuf message */
	M_NODE,
	M_NODE_META,
	M_NODE_SPEC,
	M_TAINT,
	M_NODE_STATUS,
	M_ADDRESS,
	M_CONDITION, /* a node's or a pod's */
	M_POD,
	M_POD_META,
	M_OWNER,
	M_POD_SPEC,
	M_CONTAINER,
	M_RESOURCES,
	M_TOLERATION,
	M_AFFINITY,
	M_NODE_AFFINITY,
	M_NODE_SELECTOR, /* the required node affinity */
	M_NODE_SELECTOR_TERM,
	M_NODE_SELECTOR_REQ,
	M_NODE_SELECTOR_FIELD, /* a matchFields entry: its key names a field, not a label */
	M_POD_STATUS,
	M_CONTAINER_CLAIM, /* resources.claims[] */
	M_POD_CLAIM,	   /* spec.resourceClaims[] */
	M_POD_CLAIM_STATUS,
	M_EXT_CLAIM_STATUS,
	M_EXT_REQUEST,
	/* resource.k8s.io: ResourceSlice */
	M_SLICE,
	M_SLICE_B1,
	M_SLICE_META,
	M_SLICE_SPEC,
	M_SLICE_SPEC_B1,
	M_POOL,
	M_SLICE_NODE_SELECTOR,
	M_DEVICE,    /* v1, v1beta2: the fields on the device */
	M_DEVICE_B1, /* v1beta1: name, and basic */
	M_BASIC,     /* v1beta1's BasicDevice */
	M_ATTRIBUTE,
	M_CAPACITY,  /* DeviceCapacity, and Counter: a value */
	M_DEVICE_CAPACITY, /* DeviceCapacity: a value and its request policy */
	M_POLICY,    /* DeviceCapacity's requestPolicy */
	M_POLICY_RANGE,
	M_COUNTERS,  /* DeviceCounterConsumption, CounterSet */
	/* ResourceClaim */
	M_CLAIM,
	M_CLAIM_B1,
	M_CLAIM_META,
	M_CLAIM_SPEC,
	M_CLAIM_SPEC_B1,
	M_DEVICE_CLAIM,
	M_DEVICE_CLAIM_B1,
	M_REQUEST,
	M_REQUEST_B1,
	M_EXACT,
	M_SELECTOR,
	M_CEL,
	M_CAPACITY_REQS,
	M_CLAIM_CONFIG, /* DeviceClaimConfiguration */
	M_DEVICE_CONFIG, /* DeviceConfiguration: inlined in JSON, a message in protobuf */
	M_OPAQUE,
	M_PARAMETERS,	/* the opaque parameters: JSON, in protobuf too */
	M_SHARING,
	M_TIME_SLICING,
	M_MPS,
	M_CLAIM_STATUS,
	M_ALLOCATION,
	M_ALLOC_DEVICES,
	M_RESULT,
	M_ALLOC_CONFIG,
	M_CONSUMER,
	/* DeviceClass */
	M_CLASS,
	M_CLASS_META,
	M_CLASS_SPEC,
	M_CLASS_CONFIG,
	M_PDB,		     /* PodDisruptionBudget (policy/v1) */
	M_PDB_META,
	M_PDB_SPEC,
	M_LABEL_SELECTOR,
	M_LABEL_SELECTOR_REQ,
	M_PDB_STATUS,
	M_COUNT
};

/* What a field holds, and so how each encoding writes it and where it goes. */
enum decode_type {
	D_STR,	       /* a string: char * */
	D_MATCH,       /* whether a string is the row's match: bool */
	D_BOOL,	       /* bool */
	D_INT,	       /* an integer: int64_t */
	D_PRESENT,     /* whether the field is there: bool */
	D_STRS,	       /* repeated string: char ** and a size_t count */
	D_MAP,	       /* map<string,string>: a struct kvlist of the keys the filter keeps */
	D_QUANTITIES,  /* map<string,Quantity>: the same, each quantity as written */
	D_MSG,	       /* a message whose fields go into the same struct */
	D_LIST,	       /* repeated message: an array of structs and a size_t count */
	D_PICK_FLAG,   /* repeated message of which one element counts, the last whose D_MATCH */
	D_PICK_STR,    /*   selector holds: its flag (bool) or, of the first, its text (char *) */
	D_ITEMS,       /* a list's items: objects of the kind asked for */
	D_OBJECT,      /* an object of the kind asked for: a watch event's, in JSON */
	D_BODY,	       /* what protobuf's envelope holds: a Status, or the list or object asked for */
	D_ENTRIES,     /* map<string,message>: an array of structs whose first member (char *) is
			* the key, the rest filled by the value's message */
	D_QUANTITY,    /* a Quantity: a string in JSON, a message in protobuf; char * */
	D_RAW,	       /* a RawExtension holding JSON: an object in JSON, its text in protobuf;
			* its fields those of the child message */
};

/* Which part of the filter decides what of a map (each key) or of a list
 * (all or nothing) is kept. */
enum decode_keep {
	KEEP_ALL,
	KEEP_LABELS,
	KEEP_ANNOTATIONS,
	KEEP_RESOURCES,
	KEEP_SCHEDULING,
	KEEP_ATTRIBUTES,
	KEEP_COUNT
};

/* Protobuf has no empty string: JSON leaves such a field out (omitempty). */
#define DECODE_OMIT_EMPTY 1
/* Read only when the filter asks for scheduling fields. */
#define DECODE_SCHED_ONLY 2
/* A part of a pod's node selection: when it is not empty the pod has a node
 * selector; a map's keys, or a string, name node labels the pod needs
 * (struct k8s_pod.has_node_selector and node_keys). */
#define DECODE_NODE_SELECTION 4
/* A scalar whose arrival is recorded: count_at is where a bool says so. */
#define DECODE_MARK 8

struct decode_field {
	const char *json; /* its key in JSON ("" where JSON has none); NULL ends a message */
	unsigned char json_len;
	unsigned char pb;	/* its field number in protobuf (0 where protobuf has none) */
	unsigned char type;	/* enum decode_type */
	unsigned char child;	/* D_MSG, D_LIST, D_PICK_*: the message it holds */
	unsigned char keep;	/* D_MAP, D_QUANTITIES, D_LIST: enum decode_keep */
	unsigned char flags;	/* DECODE_* */
	unsigned char max;	/* D_LIST, D_STRS: at most so many elements kept (0: no cap) */
	unsigned char match_len;
	uint16_t at;		/* where the value goes: its offset in the struct filled */
	uint16_t count_at;	/* D_LIST, D_STRS: where the number of elements goes */
	uint16_t size;		/* D_LIST: the size of an element */
	const char *match;	/* D_MATCH: the text that makes the flag true */
};

/* What a response holds beside its objects: the struct that the fields of
 * the messages framing it fill. */
struct decode_envelope {
	char *list_rv, *list_continue;
	char *st_reason, *st_message;
	int64_t st_code;
	char *ev_type;
	bool is_status; /* what came is a Status */
};

/* The element of a D_PICK_* list being read, until it ends: whether its
 * selector matched, and what it holds. */
struct decode_pick {
	bool selected, flag;
	char *text;
	void *into; /* where the row says the element's value goes */
};

/* A kind of object: the message it starts with, its struct, where that
 * keeps metadata.resourceVersion, and how an object is freed, given to a
 * list's sink (what the sink's callback returns; the object freed when the
 * sink takes none of the kind) or put in a watch event. */
struct decode_kind {
	unsigned char root;
	size_t size;
	size_t rv_at;
	void (*free)(void *obj);
	int (*to_sink)(const struct decode_sink *sink, void *obj, struct kerr *err);
	void (*to_event)(struct watch_event *ev, void *obj);
};

const struct decode_kind *decode_kind_of(enum obj_kind kind);

/* Per message, its rows, ended by one whose json is NULL (none for M_NONE). */
extern const struct decode_field *const decode_messages[M_COUNT];

#endif
