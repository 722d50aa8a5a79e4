/* The visible form of outside text, and its width on a terminal. */
#include "termsafe.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One UTF-8 sequence at s: its length (1-4) with *cp set, 0 when s[0]
 * does not start a valid sequence, or -1 when the bytes end inside a
 * sequence that could still become valid. */
static int utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	uint32_t v, min;
	int n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((size_t)i >= len) {
			/* the bytes so far may already tell an overlong form, a
			 * surrogate or a code point beyond U+10FFFF: v is the top of
			 * a value still missing n - i continuation bytes */
			int shift = 6 * (n - i);

			if (i >= 2 && (v < (min >> shift) || (n == 3 && v >= 0x360 && v <= 0x37f) ||
				       (n == 4 && v > (0x10ffffu >> shift))))
				return 0;
			return -1;
		}
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* A growing output buffer. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	char *np;

	if (b->failed)
		return;
	np = n > SIZE_MAX - b->len - 1 ? NULL : kube_array_grow(b->p, &b->cap, b->len + n + 1, 1, 64);
	if (!np) {
		b->failed = true;
		return;
	}
	b->p = np;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static const char hex[] = "0123456789abcdef";

/* Escape s[0..len) into b.  With partial, a sequence cut by the end of the
 * bytes is left alone and its start returned; otherwise len. */
static size_t escape_into(struct sbuf *b, const unsigned char *s, size_t len, unsigned flags, bool partial)
{
	size_t i = 0, run = 0;

	while (i < len) {
		uint32_t cp = 0;
		int n = utf8_decode(s + i, len - i, &cp);
		char esc[8];

		if (n < 0 && partial)
			break;
		if (n > 0 && !(cp < 0x20 && !(cp == '\n' && (flags & TERMSAFE_KEEP_NEWLINE))) && cp != 0x7f &&
		    !(cp >= 0x80 && cp <= 0x9f)) {
			i += (size_t)n;
			continue;
		}
		sb_put(b, (const char *)s + run, i - run);
		if (n > 0 && cp >= 0x80) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[cp >> 4];
			esc[5] = hex[cp & 15];
			sb_put(b, esc, 6);
			i += (size_t)n;
		} else {
			/* a control byte, or one byte that is not valid UTF-8 */
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[s[i] >> 4];
			esc[3] = hex[s[i] & 15];
			sb_put(b, esc, 4);
			i++;
		}
		run = i;
	}
	sb_put(b, (const char *)s + run, i - run);
	return i;
}

char *termsafe_escape(const char *s, size_t len, unsigned flags, size_t *ret_len)
{
	struct sbuf b = {0};

	sb_put(&b, "", 0);
	if (s)
		escape_into(&b, (const unsigned char *)s, len, flags, false);
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	if (ret_len)
		*ret_len = b.len;
	return b.p;
}

char *termsafe_str(const char *s)
{
	return termsafe_escape(s ? s : "", s ? strlen(s) : 0, 0, NULL);
}

int termsafe_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int rc = 0;

	va_start(ap, fmt);
	for (const char *p = fmt; *p && rc == 0; p++) {
		if (*p != '%') {
			rc = fputc(*p, f) == EOF ? -1 : 0;
			continue;
		}
		p++;
		if (*p == 's')
			rc = termsafe_fputs(va_arg(ap, const char *), f);
		else if (*p == '%')
			rc = fputc('%', f) == EOF ? -1 : 0;
		else
			rc = -1; /* only %s: anything else is a mistake of the caller */
		if (!*p)
			break;
	}
	va_end(ap);
	return rc;
}

bool termsafe_needed(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int n = utf8_decode((const unsigned char *)s + i, len - i, &cp);

		if (n <= 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
			return true;
		i += (size_t)n;
	}
	return false;
}

int termsafe_fputs(const char *s, FILE *f)
{
	size_t len;
	char *e;
	int rc;

	if (!s)
		return 0;
	len = strlen(s);
	if (!termsafe_needed(s, len))
		return fwrite(s, 1, len, f) == len ? 0 : -1;
	e = termsafe_escape(s, len, 0, &len);
	if (!e)
		return -1;
	rc = fwrite(e, 1, len, f) == len ? 0 : -1;
	free(e);
	return rc;
}

char *termsafe_kerr_line(const struct kerr *err)
{
	char *line = NULL, *safe;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return NULL;
	kerr_print(m, err);
	if (fclose(m) != 0) {
		free(line);
		return NULL;
	}
	if (len && line[len - 1] == '\n')
		len--;
	safe = termsafe_escape(line, len, 0, NULL);
	free(line);
	return safe;
}

int termsafe_kerr_print(FILE *f, const struct kerr *err)
{
	char *line;
	int rc;

	if (!err || err->kind == KERR_NONE)
		return 0;
	line = termsafe_kerr_line(err);
	if (!line)
		return -1;
	rc = fprintf(f, "%s\n", line) < 0 ? -1 : 0;
	free(line);
	return rc;
}

struct range {
	uint32_t first, last;
};

static const struct range zero_width[] = {
	{0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x05bf, 0x05bf}, {0x05c1, 0x05c2},
	{0x05c4, 0x05c5}, {0x05c7, 0x05c7}, {0x0610, 0x061a}, {0x064b, 0x065f}, {0x0670, 0x0670},
	{0x06d6, 0x06dc}, {0x06df, 0x06e4}, {0x06e7, 0x06e8}, {0x06ea, 0x06ed}, {0x0e31, 0x0e31},
	{0x0e34, 0x0e3a}, {0x0e47, 0x0e4e}, {0x1160, 0x11ff}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff},
	{0x200b, 0x200f}, {0x2028, 0x202e}, {0x2060, 0x2064}, {0x20d0, 0x20ff}, {0x302a, 0x302d},
	{0x3099, 0x309a}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}, {0xfeff, 0xfeff}, {0xe0001, 0xe0001},
	{0xe0020, 0xe007f}, {0xe0100, 0xe01ef},
};

static const struct range wide[] = {
	{0x1100, 0x115f},   {0x231a, 0x231b},	{0x2329, 0x232a},   {0x23e9, 0x23ec},	{0x23f0, 0x23f0},
	{0x23f3, 0x23f3},   {0x25fd, 0x25fe},	{0x2614, 0x2615},   {0x2648, 0x2653},	{0x267f, 0x267f},
	{0x2693, 0x2693},   {0x26a1, 0x26a1},	{0x26aa, 0x26ab},   {0x26bd, 0x26be},	{0x26c4, 0x26c5},
	{0x26ce, 0x26ce},   {0x26d4, 0x26d4},	{0x26ea, 0x26ea},   {0x26f2, 0x26f3},	{0x26f5, 0x26f5},
	{0x26fa, 0x26fa},   {0x26fd, 0x26fd},	{0x2705, 0x2705},   {0x270a, 0x270b},	{0x2728, 0x2728},
	{0x274c, 0x274c},   {0x274e, 0x274e},	{0x2753, 0x2755},   {0x2757, 0x2757},	{0x2795, 0x2797},
	{0x27b0, 0x27b0},   {0x27bf, 0x27bf},	{0x2b1b, 0x2b1c},   {0x2b50, 0x2b50},	{0x2b55, 0x2b55},
	{0x2e80, 0x303e},   {0x3041, 0x33ff},	{0x3400, 0x4dbf},   {0x4e00, 0x9fff},	{0xa000, 0xa4cf},
	{0xa960, 0xa97f},   {0xac00, 0xd7a3},	{0xf900, 0xfaff},   {0xfe10, 0xfe19},	{0xfe30, 0xfe6f},
	{0xff00, 0xff60},   {0xffe0, 0xffe6},	{0x16fe0, 0x16fe4}, {0x17000, 0x18cff}, {0x1b000, 0x1b2ff},
	{0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e}, {0x1f191, 0x1f19a}, {0x1f200, 0x1f202},
	{0x1f210, 0x1f23b}, {0x1f240, 0x1f248}, {0x1f250, 0x1f251}, {0x1f260, 0x1f265}, {0x1f300, 0x1f320},
	{0x1f32d, 0x1f335}, {0x1f337, 0x1f37c}, {0x1f37e, 0x1f393}, {0x1f3a0, 0x1f3ca}, {0x1f3cf, 0x1f3d3},
	{0x1f3e0, 0x1f3f0}, {0x1f3f4, 0x1f3f4}, {0x1f3f8, 0x1f43e}, {0x1f440, 0x1f440}, {0x1f442, 0x1f4fc},
	{0x1f4ff, 0x1f53d}, {0x1f54b, 0x1f54e}, {0x1f550, 0x1f567}, {0x1f57a, 0x1f57a}, {0x1f595, 0x1f596},
	{0x1f5a4, 0x1f5a4}, {0x1f5fb, 0x1f64f}, {0x1f680, 0x1f6c5}, {0x1f6cc, 0x1f6cc}, {0x1f6d0, 0x1f6d2},
	{0x1f6d5, 0x1f6d7}, {0x1f6eb, 0x1f6ec}, {0x1f6f4, 0x1f6fc}, {0x1f7e0, 0x1f7eb}, {0x1f90c, 0x1f93a},
	{0x1f93c, 0x1f945}, {0x1f947, 0x1f9ff}, {0x1fa70, 0x1faff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
};

static bool in_ranges(uint32_t cp, const struct range *r, size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp < r[mid].first)
			hi = mid;
		else if (cp > r[mid].last)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

int termsafe_codepoint_width(uint32_t cp)
{
	if (cp < 0x300)
		return 1;
	if (in_ranges(cp, zero_width, sizeof(zero_width) / sizeof(zero_width[0])))
		return 0;
	if (in_ranges(cp, wide, sizeof(wide) / sizeof(wide[0])))
		return 2;
	return 1;
}

size_t termsafe_width(const char *s, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int n = utf8_decode((const unsigned char *)s + i, len - i, &cp);

		/* not safe text after all: a byte counts as its escape would */
		if (n <= 0) {
			w += 4;
			i++;
			continue;
		}
		w += (size_t)termsafe_codepoint_width(cp);
		i += (size_t)n;
	}
	return w;
}

size_t termsafe_fit(const char *s, size_t len, size_t cols)
{
	size_t w = 0, i = 0;

	while (i < len) {
		uint32_t cp;
		int n = utf8_decode((const unsigned char *)s + i, len - i, &cp);
		size_t cw = n <= 0 ? 4 : (size_t)termsafe_codepoint_width(cp);

		if (n <= 0)
			n = 1;
		if (w + cw > cols)
			break;
		w += cw;
		i += (size_t)n;
	}
	return i;
}

/* --- the filtering stream ------------------------------------------------ */

struct tstream {
	FILE *under;
	unsigned char held[4]; /* the start of a character cut by a write */
	size_t nheld;
};

static ssize_t tstream_write(void *cookie, const char *buf, size_t size)
{
	struct tstream *t = cookie;
	struct sbuf b = {0};
	unsigned char *all;
	size_t n = t->nheld + size, done;

	all = malloc(n ? n : 1);
	if (!all)
		return -1;
	memcpy(all, t->held, t->nheld);
	memcpy(all + t->nheld, buf, size);
	done = escape_into(&b, all, n, TERMSAFE_KEEP_NEWLINE, true);
	/* what is left is at most three bytes of one unfinished character */
	t->nheld = n - done;
	memcpy(t->held, all + done, t->nheld);
	free(all);
	if (b.failed) {
		free(b.p);
		return -1;
	}
	if (b.len && fwrite(b.p, 1, b.len, t->under) != b.len) {
		free(b.p);
		return -1;
	}
	free(b.p);
	return (ssize_t)size;
}

static int tstream_close(void *cookie)
{
	struct tstream *t = cookie;
	int rc = 0;

	if (t->nheld) {
		struct sbuf b = {0};

		escape_into(&b, t->held, t->nheld, TERMSAFE_KEEP_NEWLINE, false);
		if (b.failed || fwrite(b.p, 1, b.len, t->under) != b.len)
			rc = -1;
		free(b.p);
	}
	if (fflush(t->under) != 0)
		rc = -1;
	free(t);
	return rc;
}

FILE *termsafe_stream(FILE *under)
{
	cookie_io_functions_t io = {.write = tstream_write, .close = tstream_close};
	struct tstream *t = calloc(1, sizeof(*t));
	FILE *f;

	if (!t)
		return NULL;
	t->under = under;
	f = fopencookie(t, "w", io);
	if (!f) {
		free(t);
		return NULL;
	}
	/* line by line, so that what is written here and straight to under
	 * (a prompt, a progress line) keeps its order */
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
