/* The JSON decoder: yajl's events read through the field table.
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_JSON_H
#define DECODE_JSON_H

#include "decode_build.h"

extern const struct decode_reader decode_json_reader;

/* JSON text embedded in another encoding (a RawExtension's bytes in
 * protobuf) read into frame f, as its message's fields, with what s asks
 * for.  Text that is not such JSON reads as absent: -1 only when out of
 * memory. */
int decode_json_fragment(const struct decode_state *s, const struct decode_frame *f, const void *buf, size_t len,
			 struct kerr *err);

#endif
