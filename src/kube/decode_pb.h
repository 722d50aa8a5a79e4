/* The protobuf decoder: the API server's protobuf encoding read through
 * the field table.
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_PB_H
#define DECODE_PB_H

#include "decode_build.h"

extern const struct decode_reader decode_pb_reader;

#endif
