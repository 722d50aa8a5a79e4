/* Quantities and card-memory labels on arbitrary strings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int64_t v = -7, w = -7;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* Results are whole, non-negative counts; failure leaves *ret alone. */
	if (quantity_parse_int(s, &v) == 0) {
		if (v < 0)
			abort();
	} else if (v != -7) {
		abort();
	}
	if (memory_label_mib(s, &w) == 0) {
		if (w < 0)
			abort();
	} else if (w != -7) {
		abort();
	}
	/* A plain number of MiB means the same to both. */
	if (size && size < 19 && strspn(s, "0123456789") == size) {
		if (quantity_parse_int(s, &v) != 0 || memory_label_mib(s, &w) != 0 || v != w)
			abort();
	}
	free(s);
	return 0;
}
