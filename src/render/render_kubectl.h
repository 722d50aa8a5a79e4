/* kubectl's output forms where scripts expect them, on the report document
 * (the one -o json prints): -o name (node/NAME per node shown) and
 * -o custom-columns (a row per node); -o jsonpath is jsonpath.h.
 *
 * Uses jsonpath, the tabwriter and termsafe.
 */
#ifndef RENDER_KUBECTL_H
#define RENDER_KUBECTL_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "kube.h"

#define CUSTOM_COLUMNS_MAX 64

/* node/NAME for each of the document's nodes. */
int render_names(FILE *out, const json_t *doc, struct kerr *err);

struct custom_columns;

/* "HEADER:EXPR,HEADER:EXPR" as kubectl reads it; NULL with err (kubectl's
 * wording, KERR_USAGE). */
struct custom_columns *custom_columns_parse(const char *spec, struct kerr *err);
/* The file form: a line of headers, then a line of expressions, each
 * separated by white space. */
struct custom_columns *custom_columns_parse_file(const char *text, struct kerr *err);
void custom_columns_free(struct custom_columns *cc);

/* A row per node of the document (the document itself when it has no
 * nodes[]): the values each expression selects, joined by ',', <none>
 * where none; headers first unless no_headers. */
int render_custom_columns(FILE *out, const json_t *doc, const struct custom_columns *cc, bool no_headers,
			  struct kerr *err);

#endif
