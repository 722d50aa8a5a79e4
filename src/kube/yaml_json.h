/* A libyaml document as a jansson tree, for the two places the client reads
 * YAML it does not know the shape of: manifests and the exec plugin's
 * cluster config.  Nothing outside src/kube includes this. */
#ifndef YAML_JSON_H
#define YAML_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>
#include <yaml.h>

/* Anchors and aliases can make a small document expand without bound (one
 * alias repeated in a chain doubles it at each step): the walk builds at most
 * budget nodes, YAML_JSON_MAX_DEPTH deep. */
#define YAML_JSON_MAX_DEPTH 64

struct yaml_json {
	yaml_document_t *doc;
	size_t budget;	    /* nodes still to build */
	bool too_big;	    /* set when the budget or the depth ran out */
	bool skip_bad_keys; /* leave out a pair whose key is not a scalar (else the walk fails) */
	/* The JSON value of a scalar; NULL fails the walk. */
	json_t *(*scalar)(const yaml_node_t *n);
};

/* The tree under n (new reference), or NULL when out of memory, too big,
 * or refused by the rules above. */
json_t *yaml_json_build(struct yaml_json *c, yaml_node_t *n, int depth);

#endif
