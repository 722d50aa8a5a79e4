/* Pieces of the report document: jansson values built with one failure
 * flag per document, and the objects more than one part of it shows
 * (memory and compute figures, a node's GPUs and the pods waiting on it).
 *
 * Uses jansson and the model; writes nothing.
 */
#ifndef RENDER_DOC_H
#define RENDER_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "model.h"

/* jansson's *_set_new steal a reference even on failure; a NULL value makes
 * them fail, which is remembered here and checked once per document. */
struct doc {
	bool failed;
};

void doc_set(struct doc *d, json_t *obj, const char *key, json_t *v);
void doc_append(struct doc *d, json_t *arr, json_t *v);
json_t *doc_str_or_null(const char *s);
json_t *doc_num(int64_t v);

/* {unit, total, allocated, free} */
/* free_: the model's, by its one rule (model_node_free) */
json_t *doc_memory(struct doc *d, enum mem_unit u, int64_t total, int64_t allocated, int64_t free_);
/* {unit: "percent", total, allocated, free} */
json_t *doc_core(struct doc *d, int64_t total, int64_t allocated);
/* The node's GPUs, each with its figures and the pods on it. */
json_t *doc_node_gpus(struct doc *d, const struct model *m, const struct model_node *n);
/* The pods on the node that hold memory without a GPU index. */
json_t *doc_pending_pods(struct doc *d, const struct model *m, const struct model_node *n);

#endif
