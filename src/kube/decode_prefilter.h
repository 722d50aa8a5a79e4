/* The JSON decoder's prefilter: in a list, the values that no row of the
 * field table reads are replaced by null before yajl lexes them.
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_PREFILTER_H
#define DECODE_PREFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "decode_build.h"
#include "kerr.h"

#define PF_LEVELS 8
#define PF_KEY_MAX 32

/* Where the bytes that pass go; 0, or -1 with err set. */
typedef int (*prefilter_out)(void *ud, const unsigned char *p, size_t len, struct kerr *err);

struct prefilter {
	const struct decode_state *st; /* what is asked for: which rows are read */
	prefilter_out out;
	void *ud;
	bool in_str, esc;
	bool capture;	/* the string being read is a key of an object whose keys are looked up */
	bool drop_next; /* an object or array value starting now is dropped */
	size_t depth;	/* open objects and arrays */
	size_t drop;	/* > 0: inside a dropped value, its nesting */
	unsigned char level[PF_LEVELS]; /* per open container (depth - 1), when depth <= PF_LEVELS */
	unsigned char msg[PF_LEVELS];	/* the message of its fields, or of its elements' */
	bool want_key[PF_LEVELS];
	unsigned char child[PF_LEVELS], child_msg[PF_LEVELS]; /* for a value opening under the last key */
	char key[PF_KEY_MAX];
	size_t keylen;
	bool key_bad; /* escaped or too long: never dropped */
};

/* f filters a list read as st asks, handing what passes to out. */
void prefilter_init(struct prefilter *f, const struct decode_state *st, prefilter_out out, void *ud);
/* The next len bytes of the body. */
int prefilter_feed(struct prefilter *f, const unsigned char *p, size_t len, struct kerr *err);

#endif
