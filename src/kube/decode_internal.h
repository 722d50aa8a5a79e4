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

/* "ADDED" ... "ERROR"; -1 for anything else. */
int decode_watch_type(const char *s, enum watch_type *ret);

/* Both decoders: a list (sink), a single object (taken after finish) or a
 * watch stream (cb). */
struct decoder;
struct decoder *json_decoder_new(enum dec_mode mode, enum obj_kind kind, const struct decode_filter *filter,
				 const struct decode_sink *sink, watch_cb cb, void *ud);
int json_decoder_feed(struct decoder *d, const void *buf, size_t len, struct kerr *err);
int json_decoder_finish(struct decoder *d, struct kerr *err);
struct k8s_node *json_decoder_take_node(struct decoder *d);
struct k8s_pod *json_decoder_take_pod(struct decoder *d);
void json_decoder_free(struct decoder *d);

struct pb_decoder;
struct pb_decoder *pb_decoder_new(enum dec_mode mode, enum obj_kind kind, const struct decode_filter *filter,
				  const struct decode_sink *sink, watch_cb cb, void *ud);
int pb_decoder_feed(struct pb_decoder *d, const void *buf, size_t len, struct kerr *err);
int pb_decoder_finish(struct pb_decoder *d, struct kerr *err);
struct k8s_node *pb_decoder_take_node(struct pb_decoder *d);
struct k8s_pod *pb_decoder_take_pod(struct pb_decoder *d);
void pb_decoder_free(struct pb_decoder *d);

#endif
