/* A response body sent with Content-Encoding: gzip, inflated as it arrives.
 *
 * The client asks for gzip itself and inflates here rather than in
 * libcurl: with ISA-L's igzip (libisal) where the build has it, which
 * inflates the API server's lists about 2.5 times as fast as zlib, else
 * with zlib.  Each piece of output goes to a callback as soon as it is
 * made; what is held is the inflater's window and one output buffer.
 */
#ifndef GUNZIP_H
#define GUNZIP_H

#include <stdbool.h>
#include <stddef.h>

#include "kerr.h"

struct gunzip;

/* Output goes to out(ud, bytes, n); out returns -1 to stop (with its own error set). */
typedef int (*gunzip_out)(void *ud, const char *p, size_t n);

struct gunzip *gunzip_new(gunzip_out out, void *ud);
/* Inflate the next len bytes of the stream.  -1 when out stopped, or with
 * err set (KERR_DECODE) when the bytes are not gzip or follow its end. */
int gunzip_feed(struct gunzip *g, const void *p, size_t len, struct kerr *err);
/* Whether the stream has ended, its trailer checked. */
bool gunzip_done(const struct gunzip *g);
void gunzip_free(struct gunzip *g);
/* "isa-l" or "zlib": what this build inflates with. */
const char *gunzip_backend(void);

#endif
