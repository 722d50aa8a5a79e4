/* Choosing nodes, the same way for every command that works on nodes: by
 * name, by label selector (-l), by node pool (--pool), and where the
 * command filters by scheme, by sharing scheme (--scheme).
 *
 * Uses the command line (cli.h), the scheme table and the node-pool rules
 * (nodepool.h).
 */
#ifndef NODESEL_H
#define NODESEL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "kube.h"

/* The node-selection block of a command (struct command.flags[1]):
 * -l/--selector and --pool, and with nodesel_scheme_flags --scheme and
 * --dra-driver (what counts as a GPU goes with which scheme reads it) too. */
extern const struct flag nodesel_flags[], nodesel_scheme_flags[];
/* The most flags a block holds: a command's vals need room for them. */
#define NODESEL_MAX_FLAGS 5

/* What the command line chose; --node NAME adds to the names given as
 * arguments. */
struct nodesel {
	char **names; /* node names as given, without repeats (into argv), NULL-terminated; NULL for none */
	size_t nnames;
	const char *selector, *pool; /* -l and --pool as given, NULL when not given */
	char *label_selector;	     /* both as one label selector, or NULL for neither */
	const char *scheme;	     /* a name in the scheme table, or NULL */
	const char *node_flag;	     /* --node as given (comma-separated), or NULL */
	char *node_buf;		     /* the names of --node, split (names point into it) */
	/* --dra-driver's drivers, split (NULL-terminated, into dra_driver_buf), or NULL */
	char **dra_drivers;
	size_t ndra_drivers;
	char *dra_driver_buf;
};

/* The block's values (in vals, after cmd's own flags, as cli_parse_flags
 * left them) and the node names given (n of them, NULL for a command
 * whose positionals name no node).  --pool NAME means POOL_LABEL=NAME,
 * --pool KEY=VALUE is taken as it is, and a node must match -l and --pool
 * both.  Names and a selector do not go together; required: one of them
 * must be given (the commands that change nodes never act on every node).
 * Usage errors as kubectl words them; *s to release either way. */
int nodesel_parse(struct nodesel *s, const struct command *cmd, const char *const *vals, char **names, size_t n,
		  bool required, struct kerr *err);
void nodesel_release(struct nodesel *s);
/* The filter as given ("-l K=V --pool P", "--node a,b"), for "no node
 * matches ..."; "" for none; malloc'd, NULL when out of memory. */
char *nodesel_text(const struct nodesel *s);

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

/* Read every node (for edition detection) into *all, and the ones sel
 * chose into *chosen: by name, or by label selector.  A missing name is a
 * NotFound error; a selector matching nothing is an error too. */
int np_nodes_select(struct kube_client *c, const struct nodesel *sel, struct np_nodes *all, struct np_nodes *chosen,
		    struct kerr *err);

/* GET one node again (after a 409 Conflict). */
int np_node_get(struct kube_client *c, const char *name, struct np_node *ret, struct kerr *err);
void np_node_release(struct np_node *n);

#endif
