/* The JSON decoder: yajl's events read through the field table.
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_JSON_H
#define DECODE_JSON_H

#include "decode_build.h"

extern const struct decode_reader decode_json_reader;

#endif
