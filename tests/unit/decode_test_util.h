/* What the decoder tests share: captured bodies read from fixtures/, and
 * the decode filters they decode them with.
 */
#ifndef DECODE_TEST_UTIL_H
#define DECODE_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "decode.h"

/* The whole file, NUL-terminated; its length in *len. */
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

/* A body captured from an API server: fixtures/api/NAME. */
static inline char *t_read_capture(const char *name, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/api/%s", FIXTURES_DIR, name);
	return t_read_file(path, len);
}

/* The cgpu scheme's filter, everything, and nothing. */
static const char *const cgpu_annotations[] = {"ALIYUN_COM_GPU_MEM_*", NULL};
static const char *const cgpu_resources[] = {"aliyun.com/gpu-mem", "aliyun.com/gpu-count", NULL};
static const char *const cgpu_labels[] = {"ack.node.gpu.*", "aliyun.accelerator/*", NULL};
static const struct decode_filter cgpu_filter = {
	.label_keys = cgpu_labels,
	.annotation_keys = cgpu_annotations,
	.resource_names = cgpu_resources,
};
static const struct decode_filter all_filter = {
	.all_labels = true,
	.all_annotations = true,
	.all_resources = true,
};
static const struct decode_filter none_filter = {0};

#endif
