/* --pool NAME / KEY=VALUE and the label key and value checks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodepool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *sel = (char *)"untouched";
	struct kerr err = KERR_INIT;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* valid keys and values are plain ASCII label syntax */
	if (np_label_key_valid(s) || np_label_value_valid(s))
		for (const char *p = s; *p; p++)
			if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f || *p == ',' || *p == '=')
				abort();
	if (np_pool_selector(s, &sel, &err) == 0) {
		const char *eq = strchr(sel, '=');

		/* one requirement, key=value, both valid */
		if (!eq || strchr(eq + 1, '=') || !np_label_value_valid(eq + 1) || err.kind != KERR_NONE)
			abort();
		if (!strchr(s, '=') && strcmp(eq + 1, s) != 0)
			abort();
		free(sel);
	} else if (strcmp(sel, "untouched") != 0 || err.kind == KERR_NONE) {
		abort();
	}
	kerr_release(&err);
	free(s);
	return 0;
}
