/* A DaemonSet's spec.selector (from the cluster) turned into a labelSelector
 * query value. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nodepool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *sel = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	struct kerr err = KERR_INIT;
	char *out = (char *)"untouched";

	if (!sel)
		return 0;
	if (np_selector_from_json(sel, &out, &err) == 0) {
		/* a selector that matches something, made of label syntax only:
		 * nothing that would end the query value or break a line */
		if (!out || !*out || err.kind != KERR_NONE)
			abort();
		for (const char *p = out; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == '&' || *p == '#' || (unsigned char)*p >= 0x7f)
				abort();
		free(out);
	} else {
		if (strcmp(out, "untouched") != 0 || err.kind == KERR_NONE || !err.message)
			abort();
	}
	kerr_release(&err);
	json_decref(sel);
	return 0;
}
