/* Inflating gzip bodies as they arrive: whole, split at every size, in
 * several members, and cut, corrupt or not gzip at all, with whichever
 * inflater this build has (gunzip_backend). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gunzip.h"

struct out {
	char *s;
	size_t len, cap;
	size_t stop_at; /* out fails once this much has come (0: never) */
};

static int take(void *ud, const char *p, size_t n)
{
	struct out *o = ud;

	if (o->stop_at && o->len + n >= o->stop_at)
		return -1;
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2;
		o->s = realloc(o->s, o->cap);
		cr_assert_not_null(o->s);
	}
	memcpy(o->s + o->len, p, n);
	o->len += n;
	return 0;
}

/* n bytes of text that compresses as API server lists do: a few kinds of
 * line, numbered. */
static char *text(size_t n)
{
	char *s = malloc(n + 64);
	size_t at = 0;

	cr_assert_not_null(s);
	for (unsigned i = 0; at < n; i++)
		at += (size_t)sprintf(s + at, "{\"name\":\"pod-%u\",\"node\":\"node-%u\",\"gpu\":%u}\n", i, i % 97,
				      (i * 7919) % 8);
	return s;
}

static unsigned char *gz(const void *p, size_t n, size_t *ret_n)
{
	z_stream z = {0};
	size_t cap = compressBound((uLong)n) + 64;
	unsigned char *out = malloc(cap);

	cr_assert_not_null(out);
	cr_assert_eq(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*ret_n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* in fed in pieces of step bytes: 0 with the whole stream taken, -1 with err. */
static int feed(const unsigned char *in, size_t n, size_t step, struct out *o, bool *done, struct kerr *err)
{
	struct gunzip *g = gunzip_new(take, o);
	int rc = 0;

	cr_assert_not_null(g);
	for (size_t i = 0; i < n && rc == 0; i += step)
		rc = gunzip_feed(g, in + i, n - i < step ? n - i : step, err);
	*done = gunzip_done(g);
	gunzip_free(g);
	return rc;
}

/* z (zn bytes) fed step bytes at a time gives the n bytes of t, whole. */
static void inflates_to(const unsigned char *z, size_t zn, size_t step, const char *t, size_t n)
{
	struct out o = {0};
	struct kerr err = KERR_INIT;
	bool done;

	cr_assert_eq(feed(z, zn, step, &o, &done, &err), 0, "step %zu: %s", step, err.message);
	cr_assert(done, "step %zu", step);
	cr_assert_eq(o.len, n, "step %zu: %zu bytes", step, o.len);
	cr_assert_eq(memcmp(o.s, t, n), 0, "step %zu", step);
	free(o.s);
}

Test(gunzip, whole_and_split_at_every_size)
{
	size_t n = 300 * 1000, zn;
	char *t = text(n);
	unsigned char *z = gz(t, n, &zn);
	const size_t steps[] = {1, 2, 3, 7, 64, 1000, 4096, 16384, 65536, zn};

	cr_log_info("inflating with %s", gunzip_backend());
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		inflates_to(z, zn, steps[i], t, n);
	free(z);
	free(t);
}

Test(gunzip, members_one_after_another)
{
	size_t n1 = 5000, n2 = 200000, z1n, z2n;
	char *t = text(n1 + n2);
	unsigned char *z1 = gz(t, n1, &z1n), *z2 = gz(t + n1, n2, &z2n), *both = malloc(z1n + z2n);
	const size_t steps[] = {1, 13, 4096, z1n + z2n};

	memcpy(both, z1, z1n);
	memcpy(both + z1n, z2, z2n);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		inflates_to(both, z1n + z2n, steps[i], t, n1 + n2);
	free(both);
	free(z1);
	free(z2);
	free(t);
}

Test(gunzip, cut_anywhere_is_not_done)
{
	size_t n = 50000, zn;
	char *t = text(n);
	unsigned char *z = gz(t, n, &zn);

	for (size_t cut = 0; cut < zn; cut += cut < 32 ? 1 : 97) {
		struct out o = {0};
		struct kerr err = KERR_INIT;
		bool done;

		/* what came is inflated as it came; the end is what is missing */
		cr_assert_eq(feed(z, cut, 4096, &o, &done, &err), 0, "cut at %zu: %s", cut, err.message);
		cr_assert(!done, "cut at %zu of %zu said done", cut, zn);
		cr_assert_leq(o.len, n);
		cr_assert_eq(memcmp(o.s ? o.s : "", t, o.len), 0);
		free(o.s);
	}
	free(z);
	free(t);
}

Test(gunzip, corrupt_data_and_trailer)
{
	size_t n = 50000, zn;
	char *t = text(n);
	unsigned char *z = gz(t, n, &zn);
	struct {
		size_t at;
		const char *words;
	} cases[] = {
		{0, "gzip: invalid header"},		 /* the magic */
		{zn - 6, "gzip: invalid checksum"}, /* the CRC-32 */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct out o = {0};
		struct kerr err = KERR_INIT;
		bool done;

		z[cases[i].at] ^= 0x55;
		cr_assert_eq(feed(z, zn, 1000, &o, &done, &err), -1, "byte %zu changed", cases[i].at);
		cr_assert_eq(err.kind, KERR_DECODE);
		cr_assert_str_eq(err.message, cases[i].words);
		z[cases[i].at] ^= 0x55;
		kerr_release(&err);
		free(o.s);
	}
	/* a byte of the data changed: an invalid code or, at the end, the checksum */
	for (size_t at = 10; at + 8 < zn; at += 311) {
		struct out o = {0};
		struct kerr err = KERR_INIT;
		bool done = false;

		z[at] ^= 0xff;
		if (feed(z, zn, 1000, &o, &done, &err) == 0)
			cr_assert(!done || o.len != n || memcmp(o.s, t, n) != 0, "byte %zu changed unnoticed", at);
		else
			cr_assert_eq(err.kind, KERR_DECODE);
		z[at] ^= 0xff;
		kerr_release(&err);
		free(o.s);
	}
	free(z);
	free(t);
}

/* z's 10-byte header replaced by one with every optional field (RFC 1952
 * 2.3), its header CRC changed by hcrc_xor and its flags or'ed with more. */
static unsigned char *with_fields(const unsigned char *z, size_t zn, unsigned hcrc_xor, unsigned char more, size_t *ret_n)
{
	static const unsigned char fields[] = {2, 0, 'x', 'y', 'n', 'a', 'm', 'e', 0, 'n', 'o', 't', 'e', 0};
	unsigned char *h = malloc(zn + sizeof(fields) + 2);
	size_t at = 10 + sizeof(fields);
	unsigned long crc;

	cr_assert_not_null(h);
	memcpy(h, z, 10);
	h[3] = 0x02 | 0x04 | 0x08 | 0x10 | more; /* FHCRC FEXTRA FNAME FCOMMENT */
	memcpy(h + 10, fields, sizeof(fields));
	crc = crc32(0, h, (uInt)at) ^ hcrc_xor;
	h[at++] = (unsigned char)crc;
	h[at++] = (unsigned char)(crc >> 8);
	memcpy(h + at, z + 10, zn - 10);
	*ret_n = at + zn - 10;
	return h;
}

Test(gunzip, header_fields_split_anywhere)
{
	size_t n = 3000, zn, hn;
	char *t = text(n);
	unsigned char *z = gz(t, n, &zn), *h = with_fields(z, zn, 0, 0, &hn);
	struct {
		unsigned hcrc_xor;
		unsigned char more;
	} bad[] = {{1, 0}, {0x100, 0}, {0, 0x20}, {0, 0x80}};

	for (size_t step = 1; step <= 40; step++)
		inflates_to(h, hn, step, t, n);
	free(h);
	/* a wrong header CRC or a reserved flag is refused wherever the input is split */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h = with_fields(z, zn, bad[i].hcrc_xor, bad[i].more, &hn);
		for (size_t step = 1; step <= 40; step++) {
			struct out o = {0};
			struct kerr err = KERR_INIT;
			bool done;

			cr_assert_eq(feed(h, hn, step, &o, &done, &err), -1, "case %zu step %zu", i, step);
			cr_assert_str_eq(err.message, "gzip: invalid header", "case %zu step %zu", i, step);
			cr_assert_eq(o.len, 0);
			kerr_release(&err);
			free(o.s);
		}
		free(h);
	}
	free(z);
	free(t);
}

Test(gunzip, not_gzip_at_all)
{
	const char *plain = "{\"kind\":\"Status\",\"code\":500}";
	struct out o = {0};
	struct kerr err = KERR_INIT;
	bool done;

	cr_assert_eq(feed((const unsigned char *)plain, strlen(plain), 4096, &o, &done, &err), -1);
	cr_assert_str_eq(err.message, "gzip: invalid header");
	cr_assert(!done);
	kerr_release(&err);
	free(o.s);
}

Test(gunzip, a_receiver_that_stops_stops_it)
{
	size_t n = 300000, zn;
	char *t = text(n);
	unsigned char *z = gz(t, n, &zn);
	struct out o = {.stop_at = 100000};
	struct kerr err = KERR_INIT;
	bool done;

	cr_assert_eq(feed(z, zn, zn, &o, &done, &err), -1);
	cr_assert_eq(err.kind, KERR_NONE, "the receiver's own error stands");
	cr_assert_lt(o.len, 100000);
	free(o.s);
	free(z);
	free(t);
}
