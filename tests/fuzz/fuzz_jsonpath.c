/* JSONPath templates and custom-columns specs from the command line, on a
 * document: whatever the text, parsing ends, evaluation stays within its
 * bounds, and nothing leaks.  The input is a template, then optionally a
 * NUL and a JSON document to evaluate it on (else a small report). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath.h"
#include "render_kubectl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char REPORT[] = "{\"nodes\":[{\"name\":\"a\",\"memory\":{\"free\":3},\"gpus\":[{\"index\":0},{\"index\":1}]},"
			     "{\"name\":\"b\",\"labels\":{\"k\":\"v\"},\"memory\":{\"free\":0.5},\"gpus\":[]}],\"n\":null}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	const char *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - (const char *)data) : size;
	char *t = strndup((const char *)data, tlen);
	json_t *doc = nul ? json_loadb(nul + 1, size - tlen - 1, JSON_DECODE_ANY, NULL) : NULL;
	struct kerr err = KERR_INIT;
	struct jsonpath *jp;
	struct custom_columns *cc;
	unsigned mode = size ? data[0] : 0;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!doc)
		doc = json_loads(REPORT, 0, NULL);
	if (!t || !doc || !sink)
		goto out;
	if ((jp = jsonpath_parse(t, &err))) {
		json_t *vals = NULL;

		if (jsonpath_execute(jp, doc, sink, &err) < 0)
			kerr_release(&err);
		if (jsonpath_select(jp, doc, &vals, &err) == 0) {
			for (size_t i = 0; i < json_array_size(vals); i++)
				free(jsonpath_go_text(json_array_get(vals, i)));
			json_decref(vals);
		} else {
			kerr_release(&err);
		}
		jsonpath_free(jp);
	} else {
		kerr_release(&err);
	}
	cc = (mode & 1) ? custom_columns_parse_file(t, &err) : custom_columns_parse(t, &err);
	if (cc) {
		if (render_custom_columns(sink, doc, cc, mode & 2, &err) < 0)
			kerr_release(&err);
		custom_columns_free(cc);
	} else {
		kerr_release(&err);
	}
out:
	free(t);
	json_decref(doc);
	return 0;
}
