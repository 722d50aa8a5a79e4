/* Response bodies marked gzip, as a server or anything between could send
 * them: inflated whole and in pieces (the first byte of the input picks
 * the size).  Both must come to the same end, a whole stream with the same
 * bytes or a failure (an error, or a stream that never ends, which the
 * transfer reports), and neither may read or write out of bounds.  (Two
 * failures may differ: a corrupt header is found whole, or cut.) */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gunzip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sum {
	uint64_t hash;
	size_t len;
};

static int take(void *ud, const char *p, size_t n)
{
	struct sum *s = ud;

	for (size_t i = 0; i < n; i++)
		s->hash = (s->hash ^ (unsigned char)p[i]) * 1099511628211ULL;
	s->len += n;
	return 0;
}

/* in fed in pieces of step: 0 or -1, and the sum of the output. */
static int run(const uint8_t *in, size_t n, size_t step, struct sum *s, bool *done, char *words, size_t room)
{
	struct gunzip *g = gunzip_new(take, s);
	struct kerr err = KERR_INIT;
	int rc = 0;

	if (!g)
		abort();
	for (size_t i = 0; i < n && rc == 0; i += step)
		rc = gunzip_feed(g, in + i, n - i < step ? n - i : step, &err);
	*done = gunzip_done(g);
	snprintf(words, room, "%s", err.message ? err.message : "");
	if ((rc < 0) != (err.kind != KERR_NONE))
		abort();
	kerr_release(&err);
	gunzip_free(g);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sum whole = {14695981039346656037ULL, 0}, pieces = whole;
	bool done1, done2;
	char e1[128], e2[128];
	size_t step;
	int r1, r2;

	if (size < 1)
		return 0;
	step = 1 + data[0] % 64;
	r1 = run(data + 1, size - 1, size, &whole, &done1, e1, sizeof(e1));
	r2 = run(data + 1, size - 1, step, &pieces, &done2, e2, sizeof(e2));
	if ((r1 < 0 && !*e1) || (r2 < 0 && !*e2))
		abort();
	/* an error may come after more output in one than in the other; a whole stream agrees in all */
	if ((r1 == 0 && done1) != (r2 == 0 && done2))
		abort();
	if (r1 == 0 && done1 && (whole.len != pieces.len || whole.hash != pieces.hash))
		abort();
	return 0;
}
