/* What `mode` and `restart` share: choosing nodes, and restarting the GPU
 * device plugin on them.  Implemented in cmd_restart.c.
 *
 * Uses the client and the node-pool rules (nodepool.h).
 */
#ifndef RESTART_H
#define RESTART_H

#include <stdbool.h>
#include <stdio.h>

#include "kube.h"

/* A node as the administration commands need it. */
struct np_node {
	char *name, *resource_version;
	struct kvlist labels; /* the keys of np_node_label_keys[] only */
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

struct restart_opts {
	const char *daemonset; /* "NS/NAME", or NULL = the device-plugin DaemonSets in kube-system */
	int max_parallel;      /* nodes restarted at once (>= 1) */
	long timeout_ms;       /* per node */
	bool dry_run;	       /* list what would be deleted */
	bool server_dry_run;   /* send the deletes with dryRun=All, wait for nothing */
	bool tty;	       /* show a progress line */
	FILE *out, *errout;
};

/* Restart the device plugin on each node: delete its pod(s), wait for a
 * Ready replacement.  Prints one result line per node.  Returns the number
 * of nodes that failed, or -1 with *err when nothing could be tried (no
 * DaemonSet, or it could not be read). */
int restart_nodes(struct kube_client *c, char *const *nodes, size_t n, const struct restart_opts *o,
		  struct kerr *err);

/* kubectl takes a bare --dry-run as --dry-run=client; the flag table only
 * knows flags that always or never take a value, so this rewrites argv
 * (in place, before cli_parse_flags) to say it explicitly. */
void restart_fix_dry_run(int argc, char **argv);

/* "5m", "30s", "1m30s", "500ms": as short as it can be said. */
void restart_format_duration(char *buf, size_t len, long ms);

#endif
