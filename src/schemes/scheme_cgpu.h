/* Alibaba cGPU / gpushare: the annotation parsers, exposed for tests and
 * the fuzzer.  The scheme itself is `scheme_cgpu` in schemes[]. */
#ifndef SCHEME_CGPU_H
#define SCHEME_CGPU_H

#include <stddef.h>
#include <stdint.h>

#include "scheme.h"

extern const struct scheme scheme_cgpu;

/* One entry of a multi-GPU allocation annotation. */
struct cgpu_alloc {
	int container; /* container index as written by the scheduler */
	int gpu;       /* GPU index on the node */
	int64_t amount;
};

/* Largest GPU index and amount accepted from an annotation: anything
 * larger is treated as malformed, so no figure from outside can make us
 * allocate or overflow. */
#define CGPU_MAX_INDEX 4095
#define CGPU_MAX_AMOUNT ((int64_t)1 << 40)

/* Parse `{"<container>":{"<gpu>":amount,...},...}` (the value of
 * scheduler.framework.gpushare.allocation or of
 * gpushare.alibabacloud.com/core-percentage).  On success *ret is a malloc'd
 * array of *ret_n entries in text order (NULL and 0 for an empty map).
 * -1 when the text is not such a map; *ret is then untouched. */
int cgpu_allocation_parse(const char *text, struct cgpu_alloc **ret, size_t *ret_n);

/* A GPU index as in ALIYUN_COM_GPU_MEM_IDX: decimal digits only, at most
 * CGPU_MAX_INDEX.  -1 when missing or malformed. */
int cgpu_index_parse(const char *s, int *ret);

#endif
