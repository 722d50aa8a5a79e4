/* The protobuf decoder's state, shared by decode_pb.c (the fields kept
 * and what they mean) and decode_pb_wire.c (the wire format, read as bytes
 * arrive).
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_PB_H
#define DECODE_PB_H

#include <stdbool.h>
#include <stdint.h>

#include "decode_internal.h"

/* Messages the reader enters. */
enum pctx {
	P_NONE,
	P_UNKNOWN,	/* runtime.Unknown: 1 typeMeta, 2 raw */
	P_TYPEMETA,	/* 1 apiVersion, 2 kind */
	P_LIST,		/* NodeList/PodList: 1 metadata, 2 items */
	P_LIST_META,	/* ListMeta: 2 resourceVersion, 3 continue */
	P_OBJ,		/* Node/Pod: 1 metadata, 2 spec, 3 status */
	P_META,		/* ObjectMeta */
	P_TIME,		/* Time: 1 seconds */
	P_OWNER,	/* OwnerReference */
	P_ENTRY,	/* an entry of a map<string,string> or map<string,Quantity> */
	P_QUANTITY,	/* Quantity: 1 string */
	P_NODE_SPEC,
	P_NODE_STATUS,
	P_ADDRESS,
	P_CONDITION,
	P_POD_SPEC,
	P_AFFINITY,
	P_POD_STATUS,
	P_CONTAINER,
	P_RESOURCES,
	P_STATUS,	/* meta/v1 Status: 3 message, 4 reason, 6 code */
	P_EVENT,	/* WatchEvent: 1 type, 2 object */
	P_RAW_EXT,	/* RawExtension: 1 raw (magic + Unknown) */
	P_NODE_AFFINITY, /* 1 requiredDuringSchedulingIgnoredDuringExecution */
	P_REQUIRED,	/* NodeSelector: 1 nodeSelectorTerms */
	P_TERM,		/* NodeSelectorTerm: 1 matchExpressions */
	P_EXPR,		/* NodeSelectorRequirement: 1 key, 2 operator, 3 values */
	P_TAINT,	/* Taint: 1 key, 2 value, 3 effect */
	P_TOLERATION,	/* Toleration: 1 key, 2 operator, 3 value, 4 effect */
};

/* What a kept field is. */
enum pfield {
	F_NONE,
	F_TYPE_KIND, F_RAW,
	F_LIST_RV, F_LIST_CONTINUE,
	F_NAME, F_NAMESPACE, F_UID, F_RV, F_CREATED, F_DELETED,
	F_LABELS, F_ANNOTATIONS, F_OWNERS, F_SECONDS,
	F_KEY, F_VALUE, F_QUANTITY,
	F_OWNER_KIND, F_OWNER_NAME, F_OWNER_UID, F_CONTROLLER,
	F_UNSCHEDULABLE, F_CAPACITY, F_ALLOCATABLE, F_ADDRESSES, F_CONDITIONS,
	F_ADDR_TYPE, F_ADDR, F_COND_TYPE, F_COND_STATUS,
	F_CONTAINERS, F_NODE_SELECTOR, F_NODE_NAME, F_AFFINITY, F_SCHEDULER,
	F_NODE_AFFINITY, F_REQUIRED, F_TERMS, F_EXPRS, F_EXPR_KEY, F_EXPR_OP, F_EXPR_VALUE, F_PHASE, F_CT_NAME, F_RESOURCES, F_LIMITS,
	F_ST_MESSAGE, F_ST_REASON, F_ST_CODE,
	F_EV_TYPE, F_EV_OBJECT,
	F_META, F_SPEC, F_STATUS, F_ITEMS,
	F_TAINTS, F_TOLERATIONS, F_T_KEY, F_T_VALUE, F_T_EFFECT, F_T_OPERATOR,
};

/* How a kept field is read. */
enum how {
	H_MSG,		/* length-delimited, entered as child */
	H_STR,		/* length-delimited, copied */
	H_VARINT,
	H_PRESENT,	/* length-delimited, skipped; its presence is what counts */
};

/* Which maps an entry belongs to. */
enum pmap { M_LABELS, M_ANNOTATIONS, M_SELECTOR, M_CAPACITY, M_ALLOCATABLE, M_LIMITS };

struct pb_key {
	unsigned char num;
	unsigned char field; /* enum pfield */
	unsigned char how;   /* enum how */
	unsigned char child; /* H_MSG: enum pctx */
	unsigned char kinds; /* K_NODE, K_POD or both, and K_SCHED */
};

#define K_NODE 1
#define K_POD 2
#define K_ANY 3
#define K_SCHED 4 /* only when the filter asks for scheduling fields */

#define MAX_FRAMES 16

enum phase {
	PH_TAG,		/* a field's key (varint) */
	PH_LEN,		/* a length (varint) */
	PH_VARINT,	/* a varint value */
	PH_SKIP,	/* bytes to pass */
	PH_COPY,	/* bytes of a kept string */
	PH_MAGIC,	/* the "k8s\0" before an Unknown */
	PH_FRAME,	/* watch: a frame's 4-byte length */
	PH_FAILED,
};

struct pb_frame {
	uint64_t end;
	unsigned char ctx;
	unsigned char map;   /* P_ENTRY: enum pmap */
	unsigned char field; /* field of the parent this message is */
};

struct pb_decoder {
	struct decode_state base;
	struct kerr *err;

	enum phase phase;
	uint64_t pos;	   /* bytes consumed */
	uint64_t acc;	   /* varint being read */
	unsigned shift;
	uint64_t need;	   /* PH_SKIP, PH_COPY, PH_MAGIC, PH_FRAME: bytes still to come */
	const struct pb_key *key; /* the field being read */
	unsigned wire;

	struct pb_frame stack[MAX_FRAMES];
	int depth;

	char *buf;	/* PH_COPY, PH_MAGIC, PH_FRAME */
	size_t len, cap;

	/* the entry being read */
	char *ekey, *evalue;
	size_t ekeylen, evaluelen;
	bool has_key, has_value, key_unwanted;

	/* the envelope's kind is Status */
	bool is_status;
};

/* decode_pb.c */
const struct pb_key *pb_find_key(const struct pb_decoder *d, unsigned ctx, uint64_t num);
int pb_fail(struct pb_decoder *d, const char *msg);
int pb_oom(struct pb_decoder *d);
struct pb_frame *pb_top(struct pb_decoder *d);
bool pb_want_entry(const struct pb_decoder *d, unsigned map, const char *k, size_t len);
int pb_push(struct pb_decoder *d, unsigned ctx, uint64_t end, unsigned map, unsigned field);
int pb_leave(struct pb_decoder *d);
unsigned pb_child_of(struct pb_decoder *d, const struct pb_key *k, unsigned *map);
int pb_on_string(struct pb_decoder *d);
int pb_on_varint(struct pb_decoder *d, uint64_t v);

#endif
