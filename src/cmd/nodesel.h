/* Choosing nodes: by name, or by label selector (-l, --pool), for every
 * command that works on nodes.
 *
 * Uses the client and the node-pool rules (nodepool.h).
 */
#ifndef NODESEL_H
#define NODESEL_H

#include <stdbool.h>
#include <stddef.h>

#include "kube.h"

/* The label selector that -l SELECTOR and --pool NAME ask for together
 * (a node must match both), or NULL in *ret for neither.  --pool NAME means
 * POOL_LABEL=NAME; --pool KEY=VALUE is taken as it is.
 * A malformed pool is a usage error. */
int nodesel_selector(const char *selector, const char *pool, char **ret, struct kerr *err);

/* Names and a selector do not go together; required: one of them must be
 * given (the commands that change nodes never act on every node). */
int nodesel_check(size_t nnames, const char *selector, bool required, struct kerr *err);

/* A node as the administration commands need it. */
struct np_node {
	char *name, *resource_version;
	struct kvlist labels; /* the keys of np_node_label_keys() only */
};

struct np_nodes {
	struct np_node *items;
	size_t len, cap;
};

void np_nodes_release(struct np_nodes *l);

/* Read every node (for edition detection) into *all, and the chosen ones
 * into *chosen: by name (names, n > 0), or by label selector.  Exactly one of
 * the two ways must be used.  A missing name is a NotFound error; a selector
 * matching nothing is an error too. */
int np_nodes_select(struct kube_client *c, char *const *names, size_t n, const char *selector,
		    struct np_nodes *all, struct np_nodes *chosen, struct kerr *err);

/* GET one node again (after a 409 Conflict). */
int np_node_get(struct kube_client *c, const char *name, struct np_node *ret, struct kerr *err);
void np_node_release(struct np_node *n);

#endif
