/* Streaming decoders for API server responses.
 *
 * Large lists (NodeList, PodList) and watch streams are decoded as bytes
 * arrive, in JSON (with yajl's event parser) or in the API server's
 * protobuf encoding, whichever the body is: nothing but the fields the
 * consumer asked for (struct decode_filter) is ever copied, and each item is
 * handed over as soon as its last byte is read.  Small JSON documents
 * (Status, DaemonSets, ExecCredential) are read with jansson elsewhere; a
 * protobuf Status is read here (decode_status_pb).
 *
 * The objects, sinks and events are those of decode_sink.h.  Uses yajl and
 * the object structs (objects.h); nothing outside the client.
 */
#ifndef DECODE_H
#define DECODE_H

#include <stdbool.h>
#include <stddef.h>

#include "decode_sink.h"
#include "kerr.h"
#include "objects.h"

/* --- lists --------------------------------------------------------------- */

struct list_decoder;

/* kind says what the items are.  The filter must outlive the decoder. */
struct list_decoder *list_decoder_new(enum obj_kind kind, const struct decode_filter *filter,
				      const struct decode_sink *sink);
int list_decoder_feed(struct list_decoder *d, const void *buf, size_t len, struct kerr *err);
/* After the last byte: fails on a truncated document. */
int list_decoder_finish(struct list_decoder *d, struct kerr *err);
void list_decoder_free(struct list_decoder *d);
/* Whether the body turned out to be protobuf (known after the first bytes). */
bool list_decoder_is_protobuf(const struct list_decoder *d);

/* A single object (GET /api/v1/nodes/NAME) through the same code path. */
int decode_node(const void *buf, size_t len, const struct decode_filter *filter,
		struct k8s_node **ret, struct kerr *err);
int decode_pod(const void *buf, size_t len, const struct decode_filter *filter,
	       struct k8s_pod **ret, struct kerr *err);

/* --- watch streams ------------------------------------------------------- */

struct watch_decoder;

/* Newline-separated JSON events, split anywhere across feed() calls. */
struct watch_decoder *watch_decoder_new(enum obj_kind kind, const struct decode_filter *filter,
					watch_cb cb, void *ud);
int watch_decoder_feed(struct watch_decoder *d, const void *buf, size_t len, struct kerr *err);
void watch_decoder_free(struct watch_decoder *d);

/* --- protobuf error bodies ------------------------------------------------- */

/* Whether a body is in the protobuf encoding ("k8s\0" magic). */
bool decode_is_protobuf(const void *buf, size_t len);
/* The fields of a meta/v1 Status sent as protobuf; reason and message are
 * the caller's to free.  -1 when the body is not such a Status. */
int decode_status_pb(const void *buf, size_t len, long *code, char **reason, char **message);

#endif
