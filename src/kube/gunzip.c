/* Inflating a gzip body as it arrives (gunzip.h).  Like Go's reader, a
 * body of several gzip members, one after the other, is their contents in
 * turn. */
#include "gunzip.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

/* A gzip member's header (RFC 1952 2.3), read a byte at a time: ISA-L's
 * own reading of it checks the header CRC differently depending on where
 * the input is split, so it inflates only what follows. */
enum field { F_FIXED, F_XLEN, F_EXTRA, F_NAME, F_COMMENT, F_HCRC, F_BODY };
struct header {
	enum field field;
	uint32_t count; /* bytes of the field read */
	uint32_t xlen;
	uint32_t crc; /* of the header so far */
	uint8_t flags;
};
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
	struct header hdr; /* the member's header, read here (see header_byte) */
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

enum { FHCRC = 0x02, FEXTRA = 0x04, FNAME = 0x08, FCOMMENT = 0x10, FRESERVED = 0xe0 };

/* The field after f that this header has. */
static enum field field_next(const struct header *h, enum field f)
{
	static const uint8_t flag[] = {[F_XLEN] = FEXTRA, [F_EXTRA] = FEXTRA, [F_NAME] = FNAME,
				       [F_COMMENT] = FCOMMENT, [F_HCRC] = FHCRC};

	while (++f < F_BODY && (!(h->flags & flag[f]) || (f == F_EXTRA && !h->xlen)))
		;
	return f;
}

/* Take the header's next byte: -1 when it is not a gzip header (reserved
 * flags are refused, as zlib does). */
static int header_byte(struct header *h, uint8_t c)
{
	static const uint8_t magic[] = {0x1f, 0x8b, 8};
	bool last;

	switch (h->field) {
	case F_FIXED:
		if ((h->count < 3 && c != magic[h->count]) || (h->count == 3 && (c & FRESERVED)))
			return -1;
		if (h->count == 3)
			h->flags = c;
		last = h->count == 9;
		break;
	case F_XLEN:
		h->xlen |= (uint32_t)c << (8 * h->count);
		last = h->count == 1;
		break;
	case F_EXTRA:
		last = h->count + 1 == h->xlen;
		break;
	case F_NAME:
	case F_COMMENT:
		last = c == 0;
		break;
	default: /* F_HCRC: the low 16 bits of the CRC of what came before */
		if (c != (uint8_t)(h->crc >> (8 * h->count)))
			return -1;
		last = h->count == 1;
	}
	if (h->field != F_HCRC)
		h->crc = crc32_gzip_refl(h->crc, &c, 1);
	h->count = last ? 0 : h->count + 1;
	if (last)
		h->field = field_next(h, h->field);
	return 0;
}

static int member_start(struct gunzip *g)
{
	isal_inflate_init(&g->st);
	g->st.crc_flag = ISAL_GZIP_NO_HDR_VER;
	g->hdr = (struct header){.field = F_FIXED};
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
	for (; g->hdr.field != F_BODY && g->st.avail_in; g->st.avail_in--)
		if (header_byte(&g->hdr, *g->st.next_in++) < 0)
			return corrupt(BAD_HEADER, err);
	if (g->hdr.field != F_BODY)
		return 0;
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
