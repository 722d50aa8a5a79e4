/* A whole file read into memory for a test, NUL-terminated; the test fails
 * when it cannot be read. */
#ifndef T_READ_FILE_H
#define T_READ_FILE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static inline char *t_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* fixtures/api/NAME */
static inline char *t_read_api_fixture(const char *name, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/api/%s", FIXTURES_DIR, name);
	return t_read_file(path, len);
}

#endif
