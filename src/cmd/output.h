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

enum output { OUTPUT_TEXT, OUTPUT_WIDE, OUTPUT_JSON, OUTPUT_YAML };

/* -o FORMAT as kubectl reads it: none (v NULL or empty) is the text,
 * json or yaml a document, wide only where the command offers it (wide);
 * any other is kubectl's usage error for a printer it does not have. */
int output_parse(const char *v, bool wide, enum output *ret, struct kerr *err);

static inline bool output_is_document(enum output o)
{
	return o == OUTPUT_JSON || o == OUTPUT_YAML;
}

/* doc as JSON (two spaces, keys in the order set) or as YAML.  Documents
 * carry the exact values: they go to ctx->data_out, not through the
 * visible form, after what the command wrote to ctx->out. */
int output_document(struct cli_ctx *ctx, const json_t *doc, enum output o, struct kerr *err);

/* The model's report (GPUShareReport), written as it is rendered. */
int output_report(struct cli_ctx *ctx, const struct model *m, enum output o, struct kerr *err);

#endif
