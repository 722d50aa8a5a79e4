/* Inflating a gzip body as it arrives (gunzip.h).  Like Go's reader, a
 * body of several gzip members, one after the other, is their contents in
 * turn. */
#include "gunzip.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

/* What one call to the inflater may make before it is handed on. */
#define OUT_SIZE (16 * 1024)

struct gunzip {
	gunzip_out out;
	void *ud;
	bool done;    /* a member ended and nothing followed yet */
	bool started; /* a member was started */
#if HAVE_ISAL
	struct inflate_state st;
#else
	z_stream z;
#endif
	char buf[OUT_SIZE];
};

/* What went wrong, in the words of Go's readers (kubectl's). */
enum fault { BAD_HEADER, BAD_CHECKSUM, BAD_DATA };

static int corrupt(enum fault f, struct kerr *err)
{
	static const char *const words[] = {"gzip: invalid header", "gzip: invalid checksum", "flate: corrupt input"};

	return kerr_set(err, KERR_DECODE, "%s", words[f]);
}

/* Each inflater: a member started, the input handed over, what is left
 * of it, and one call filling g->buf (*made bytes): 1 when the member
 * ended, 0 when it goes on, -1 with err. */
#if HAVE_ISAL

const char *gunzip_backend(void)
{
	return "isa-l";
}

static int member_start(struct gunzip *g)
{
	isal_inflate_init(&g->st);
	g->st.crc_flag = ISAL_GZIP;
	g->started = true;
	return 0;
}

static void input_set(struct gunzip *g, const void *p, uint32_t n)
{
	g->st.next_in = (uint8_t *)p;
	g->st.avail_in = n;
}

static uint32_t input_left(const struct gunzip *g)
{
	return g->st.avail_in;
}

static int inflate_once(struct gunzip *g, size_t *made, struct kerr *err)
{
	g->st.next_out = (uint8_t *)g->buf;
	g->st.avail_out = OUT_SIZE;
	switch (isal_inflate(&g->st)) {
	case ISAL_DECOMP_OK:
		break;
	case ISAL_INVALID_WRAPPER:
	case ISAL_UNSUPPORTED_METHOD:
		return corrupt(BAD_HEADER, err);
	case ISAL_INCORRECT_CHECKSUM:
		return corrupt(BAD_CHECKSUM, err);
	default:
		return corrupt(BAD_DATA, err);
	}
	*made = OUT_SIZE - g->st.avail_out;
	return g->st.block_state == ISAL_BLOCK_FINISH;
}

#else

const char *gunzip_backend(void)
{
	return "zlib";
}

static int member_start(struct gunzip *g)
{
	if (g->started)
		return inflateReset(&g->z) == Z_OK ? 0 : -1;
	g->started = inflateInit2(&g->z, 16 + MAX_WBITS) == Z_OK;
	return g->started ? 0 : -1;
}

static void input_set(struct gunzip *g, const void *p, uint32_t n)
{
	g->z.next_in = (Bytef *)p;
	g->z.avail_in = n;
}

static uint32_t input_left(const struct gunzip *g)
{
	return g->z.avail_in;
}

static int inflate_once(struct gunzip *g, size_t *made, struct kerr *err)
{
	int r;

	g->z.next_out = (Bytef *)g->buf;
	g->z.avail_out = OUT_SIZE;
	r = inflate(&g->z, Z_NO_FLUSH);
	if (r == Z_MEM_ERROR)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
		return corrupt(!g->z.msg ? BAD_DATA
			       : strstr(g->z.msg, "header") || strstr(g->z.msg, "method") ? BAD_HEADER
			       : strstr(g->z.msg, "check")				   ? BAD_CHECKSUM
											   : BAD_DATA,
			       err);
	*made = OUT_SIZE - g->z.avail_out;
	return r == Z_STREAM_END;
}

#endif

/* Inflate the input handed over: 1 when the member ended, 0 when more
 * input is needed, -1 on corrupt data (err) or when out stopped. */
static int inflate_some(struct gunzip *g, struct kerr *err)
{
	for (;;) {
		size_t made = 0;
		int r = inflate_once(g, &made, err);

		if (r < 0 || (made && g->out(g->ud, g->buf, made) < 0))
			return -1;
		if (r == 1)
			return 1;
		if (made < OUT_SIZE && !input_left(g))
			return 0;
	}
}

int gunzip_feed(struct gunzip *g, const void *p, size_t len, struct kerr *err)
{
	const char *in = p;

	while (len) {
		uint32_t n = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
		int r;

		if ((g->done || !g->started) && member_start(g) < 0)
			return kerr_set(err, KERR_OTHER, "out of memory");
		g->done = false;
		input_set(g, in, n);
		if ((r = inflate_some(g, err)) < 0)
			return -1;
		g->done = r == 1;
		in += n - input_left(g);
		len -= n - input_left(g);
	}
	return 0;
}

struct gunzip *gunzip_new(gunzip_out out, void *ud)
{
	struct gunzip *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->out = out;
	g->ud = ud;
	return g;
}

bool gunzip_done(const struct gunzip *g)
{
	return g->done;
}

void gunzip_free(struct gunzip *g)
{
	if (!g)
		return;
#if !HAVE_ISAL
	if (g->started)
		inflateEnd(&g->z);
#endif
	free(g);
}
