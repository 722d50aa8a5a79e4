/* -o: the formats a command prints in, read in one place, and the one
 * printer of JSON and YAML documents.
 *
 * Uses cli.h (the streams of a command) and the renderers.
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <jansson.h>
#include <stdbool.h>

#include "cli.h"

struct model;

enum output {
	OUTPUT_TEXT,
	OUTPUT_WIDE,
	OUTPUT_JSON,
	OUTPUT_YAML,
	/* kubectl's forms for scripts, on the report document */
	OUTPUT_NAME,
	OUTPUT_JSONPATH,      /* jsonpath=TEMPLATE or jsonpath-file=FILE */
	OUTPUT_CUSTOM_COLUMNS /* custom-columns=SPEC or custom-columns-file=FILE */
};

/* -o FORMAT as kubectl reads it: none (v NULL or empty) is the text,
 * json or yaml a document, in any case; wide, name, jsonpath and
 * custom-columns only where the command prints the report (report); any
 * other is kubectl's usage error for a printer it does not have.  A
 * template or a spec is read here, so that its error comes before any
 * request. */
int output_parse(const char *v, bool report, enum output *ret, struct kerr *err);

/* A document, or one of kubectl's forms of it: no tables. */
static inline bool output_is_document(enum output o)
{
	return o == OUTPUT_JSON || o == OUTPUT_YAML || o == OUTPUT_NAME || o == OUTPUT_JSONPATH ||
	       o == OUTPUT_CUSTOM_COLUMNS;
}

static inline bool output_is_kubectl_form(enum output o)
{
	return o == OUTPUT_NAME || o == OUTPUT_JSONPATH || o == OUTPUT_CUSTOM_COLUMNS;
}

/* doc in one of kubectl's forms: spec is the -o value it was parsed from,
 * no_headers leaves out the custom columns' headers. */
int output_kubectl_form(struct cli_ctx *ctx, const json_t *doc, enum output o, const char *spec, bool no_headers,
			struct kerr *err);

/* doc as JSON (two spaces, keys in the order set) or as YAML.  Documents
 * carry the exact values: they go to ctx->data_out, not through the
 * visible form, after what the command wrote to ctx->out. */
int output_document(struct cli_ctx *ctx, const json_t *doc, enum output o, struct kerr *err);

/* The model's report (GPUShareReport), written as it is rendered. */
int output_report(struct cli_ctx *ctx, const struct model *m, enum output o, struct kerr *err);

#endif
