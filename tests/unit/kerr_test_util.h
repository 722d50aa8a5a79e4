/* What the client's tests share: an error as kubectl would print it. */
#ifndef KERR_TEST_UTIL_H
#define KERR_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "kerr.h"

/* What kerr_print() writes for e; malloc'd. */
static inline char *t_printed(const struct kerr *e)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	cr_assert_not_null(f);
	kerr_print(f, e);
	fclose(f);
	return s;
}

/* kerr_print() writes exactly want for e. */
static inline void t_assert_printed(const struct kerr *e, const char *want)
{
	char *s = t_printed(e);

	cr_assert_str_eq(s, want);
	free(s);
}

#endif
