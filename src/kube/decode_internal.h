/* What the decoders behind decode.h share: the JSON decoder (yajl events,
 * decode_json*.c) and the protobuf decoder (decode_pb.c).  decode.c picks
 * one per response from its first bytes and hands it the same sinks, so
 * nothing above the decoders knows which encoding the server chose.
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_INTERNAL_H
#define DECODE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "decode.h"

enum dec_mode { DEC_LIST, DEC_SINGLE, DEC_WATCH };

/* What a decoder is asked for, the same for both encodings: decode.c fills
 * one per response and hands it to whichever decoder the first bytes pick. */
struct decode_spec {
	enum dec_mode mode;
	enum obj_kind kind;
	const struct decode_filter *filter; /* NULL: nothing optional kept */
	struct decode_sink sink;	    /* DEC_LIST: where items and list metadata go */
	watch_cb cb;			    /* DEC_WATCH: where events go, and its data */
	void *ud;
};

/* "ADDED" ... "ERROR"; -1 for anything else. */
int decode_watch_type(const char *s, enum watch_type *ret);

/* --- the object being decoded, the same in both decoders ----------------- */

/* A pod's required node affinity (nodeSelectorTerms and their
 * matchExpressions), kept by both decoders when the filter asks for
 * scheduling fields.  Bounded against hostile input: at most
 * DECODE_MAX_TERMS terms a pod, DECODE_MAX_EXPRS expressions a term and
 * DECODE_MAX_VALUES values an expression are kept; the rest is read past.
 * A pod with more is checked against the part kept. */
#define DECODE_MAX_TERMS 8
#define DECODE_MAX_EXPRS 16
#define DECODE_MAX_VALUES 32

/* Where the strings of the expression being read go; NULL = not kept. */
struct decode_affinity {
	struct k8s_node_term *term;
	struct k8s_node_requirement *req;
};

/* What the decoders track of the object being built: the room of its arrays,
 * and the affinity term and expression being read. */
struct decode_room {
	size_t containers, owners, taints; /* taints: a node's, or a pod's tolerations */
	struct decode_affinity aff;
};

/* What both decoders keep while reading, beside the state of their own
 * encoding: what they were asked for, the object being built and what
 * surrounds it. */
struct decode_state {
	struct decode_spec spec; /* filter never NULL */

	/* the object being built: one of node and pod, as spec.kind says */
	struct k8s_node *node;
	struct k8s_pod *pod;
	struct decode_room room;
	/* a condition or an address being read */
	bool cond_ready, cond_true, addr_internal;
	char *addr;

	/* the list: its metadata, until handed to the sink */
	char *list_rv, *list_continue;
	/* a Status: the failure a list or an object was answered with, or a
	 * watch ERROR event's object */
	char *st_reason, *st_message;
	long st_code;
	/* the watch event being read: its type */
	char *ev_type;
	bool started;	/* the body has begun */
	bool root_done; /* the list or the single object is complete */
	bool meta_sent; /* the list's metadata went to the sink */
};

/* s asked for what spec says, with nothing read yet. */
void decode_state_init(struct decode_state *s, const struct decode_spec *spec);
/* Free the object being built and the strings kept. */
void decode_state_release(struct decode_state *s);

/* The end of one of status.conditions: a Ready condition's status is the
 * node's or the pod's readiness. */
static inline void decode_condition_end(struct decode_state *s)
{
	if (!s->cond_ready)
		return;
	if (s->node)
		s->node->ready = s->cond_true;
	else if (s->pod)
		s->pod->ready = s->cond_true;
}

/* The end of one of a node's status.addresses: the first InternalIP is the
 * node's, s->addr handed over to it. */
static inline void decode_address_end(struct decode_state *s)
{
	if (s->addr_internal && s->addr && s->node && !s->node->internal_ip) {
		s->node->internal_ip = s->addr;
		s->addr = NULL;
	}
}

/* The pod's last owner or container so far, the one being read; NULL when
 * there is none. */
static inline struct k8s_owner *decode_last_owner(const struct decode_state *s)
{
	return s->pod && s->pod->nowners ? &s->pod->owners[s->pod->nowners - 1] : NULL;
}

static inline struct k8s_container *decode_last_container(const struct decode_state *s)
{
	return s->pod && s->pod->ncontainers ? &s->pod->containers[s->pod->ncontainers - 1] : NULL;
}

enum decode_array { DECODE_OWNER, DECODE_CONTAINER, DECODE_TAINT };

/* Free the object being decoded (s->node or s->pod) and forget its room. */
void decode_object_clear(struct decode_state *s);

/* Start a new object of s->spec.kind in place of the one being decoded.
 * -1 when out of memory. */
int decode_object_new(struct decode_state *s);

/* One more zeroed element at the end of one of the object's arrays, for the
 * fields that follow to fill: its owners, its containers, or its taints (a
 * node's) or tolerations (a pod's).  Nothing when there is no object to
 * take it.  -1 when out of memory. */
int decode_array_add(struct decode_state *s, enum decode_array a);

/* Give the list's resourceVersion and continue token (NULL when empty) to
 * the sink, once. */
void decode_list_meta_send(struct decode_state *s);

/* Hand the finished object of a list over to the sink, or free it when the
 * sink takes none of its kind; s->node and s->pod are NULL after.  Returns
 * what the sink returned. */
int decode_emit_item(struct decode_state *s, struct kerr *err);

/* The object of a watch event other than an ERROR: its resourceVersion
 * copied (the receiver may free the object before it is done with the
 * event), the object itself moved into ev unless the event is a bookmark.
 * -1 when out of memory. */
int decode_event_object(struct watch_event *ev, struct decode_state *s);

/* Give ev to the spec's watch callback, or free its object when there is
 * none; ev's copy of the resourceVersion is freed after.  Returns what the
 * callback returned. */
int decode_event_send(const struct decode_state *s, struct watch_event *ev, struct kerr *err);

/* Forget the watch event read: its object, its type and its Status. */
void decode_event_reset(struct decode_state *s);

enum affinity_field { AFF_KEY, AFF_OPERATOR, AFF_VALUE };

/* A term (term true) or an expression of the current term opens in pod p
 * (NULL: none being read).  0, or -1 when out of memory; nothing is kept
 * unless the filter asks for scheduling fields, nor past a cap. */
int decode_affinity_open(struct decode_affinity *a, const struct decode_filter *f, struct k8s_pod *p, bool term);
/* The key, the operator or one more value of the current expression. */
int decode_affinity_string(struct decode_affinity *a, enum affinity_field f, const void *s, size_t len);

/* Both decoders: a list (sink), a single object (taken out of their state
 * after finish) or a watch stream (cb). */
struct decoder;
struct decoder *json_decoder_new(const struct decode_spec *spec);
int json_decoder_feed(struct decoder *d, const void *buf, size_t len, struct kerr *err);
int json_decoder_finish(struct decoder *d, struct kerr *err);
struct decode_state *json_decoder_state(struct decoder *d);
void json_decoder_free(struct decoder *d);

struct pb_decoder;
struct pb_decoder *pb_decoder_new(const struct decode_spec *spec);
int pb_decoder_feed(struct pb_decoder *d, const void *buf, size_t len, struct kerr *err);
int pb_decoder_finish(struct pb_decoder *d, struct kerr *err);
struct decode_state *pb_decoder_state(struct pb_decoder *d);
void pb_decoder_free(struct pb_decoder *d);

#endif
