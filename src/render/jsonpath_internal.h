/* What a parsed template is made of: written by jsonpath_parse.c, read by
 * jsonpath.c. */
#ifndef JSONPATH_INTERNAL_H
#define JSONPATH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "jsonpath.h"

enum jp_step_kind {
	STEP_ROOT,	/* $: the document */
	STEP_FIELD,	/* .name; ['a','b'] (several names) */
	STEP_WILDCARD,	/* .* or [*]: every element or member */
	STEP_RECURSIVE, /* ..: the value and everything under it */
	STEP_INDEX,	/* [N] or [N,M]: negative from the end */
	STEP_SLICE,	/* [a:b:c] */
	STEP_FILTER,	/* [?(...)] */
};

enum jp_op { OP_EXISTS, OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE };

struct jp_path;

/* One side of a filter: a path from @ or $, or a literal. */
struct jp_operand {
	struct jp_path *path;
	json_t *literal;
};

struct jp_step {
	enum jp_step_kind kind;
	char **names; /* STEP_FIELD */
	size_t nnames;
	long *index; /* STEP_INDEX */
	size_t nindex;
	long slice[3]; /* STEP_SLICE: start, end, step */
	bool has[3];
	enum jp_op op; /* STEP_FILTER */
	struct jp_operand left, right;
};

struct jp_path {
	struct jp_step *steps;
	size_t n;
};

/* One piece of an action: a path or a quoted literal. */
struct jp_item {
	struct jp_path *path;
	char *literal;
};

enum jp_node_kind { NODE_TEXT, NODE_ACTION, NODE_RANGE, NODE_END };

struct jp_node {
	enum jp_node_kind kind;
	char *text; /* NODE_TEXT */
	struct jp_item *items; /* NODE_ACTION; NODE_RANGE: its path in items[0] */
	size_t nitems;
	size_t end; /* NODE_RANGE: the index of its end, or the number of nodes */
};

struct jsonpath {
	struct jp_node *nodes;
	size_t n;
};

#endif
