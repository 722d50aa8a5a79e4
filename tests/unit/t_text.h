/* Text built up with printf-like calls, to compare two decodings (or a
 * decoding and what jansson reads) as one string. */
#ifndef T_TEXT_H
#define T_TEXT_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct text {
	char *s;
	size_t len;
};

static inline void out(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void out(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	t->s = realloc(t->s, t->len + (size_t)n + 1);
	cr_assert_not_null(t->s);
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

#endif
