/* kubectl's JSONPath templates (-o jsonpath=TEMPLATE) and the expressions
 * of -o custom-columns, evaluated on a JSON document.
 *
 * The syntax is kubectl's: text with {actions}; an action is a path
 * ($ or @, .field, .*, [*], [N], [a:b:c], ['a','b'], [0,2], ..field,
 * [?(@.x OP value)] with ==, !=, <, >, <=, >=, or [?(@.x)]), a quoted
 * literal ("\n", "\t"), or range PATH ... end.  A field that is not there
 * gives nothing, as kubectl's --allow-missing-template-keys (its default).
 *
 * Bounded: a template of at most JSONPATH_MAX_TEMPLATE bytes and
 * JSONPATH_MAX_NODES pieces, ranges nested JSONPATH_MAX_DEPTH deep, at
 * most JSONPATH_MAX_VALUES values selected in one evaluation and
 * JSONPATH_MAX_OUTPUT values written in all.  Errors are kubectl's words.
 *
 * Uses jansson and termsafe; never prints but to the stream it is given.
 */
#ifndef JSONPATH_H
#define JSONPATH_H

#include <jansson.h>
#include <stdio.h>

#include "kube.h"

#define JSONPATH_MAX_TEMPLATE 65536
#define JSONPATH_MAX_NODES 1024
#define JSONPATH_MAX_DEPTH 16
#define JSONPATH_MAX_VALUES (1u << 20)
#define JSONPATH_MAX_OUTPUT (1u << 22)

struct jsonpath;

/* The template parsed, or NULL with err (KERR_USAGE, kubectl's "error
 * parsing jsonpath TEMPLATE, REASON"). */
struct jsonpath *jsonpath_parse(const char *text, struct kerr *err);
void jsonpath_free(struct jsonpath *jp);

/* Write what the template says of doc to out: outside text (the
 * document's strings) in its visible form, the template's own text as it
 * is.  0, or -1 with err. */
int jsonpath_execute(const struct jsonpath *jp, const json_t *doc, FILE *out, struct kerr *err);

/* One expression of custom-columns (".a.b", "a.b" or "{.a.b}"), parsed as
 * kubectl relaxes it; NULL with err. */
struct jsonpath *jsonpath_parse_relaxed(const char *expr, struct kerr *err);
/* The values the template's first path selects in obj, borrowed, in a new
 * array (*ret, to be json_decref'd).  0, or -1 with err. */
int jsonpath_select(const struct jsonpath *jp, const json_t *obj, json_t **ret, struct kerr *err);

/* A value as Go's %v prints what kubectl decoded: strings as they are,
 * numbers, true/false, <nil>, map[k:v ...] with keys sorted, [a b].
 * malloc'd, NULL on allocation failure. */
char *jsonpath_go_text(const json_t *v);

#endif
