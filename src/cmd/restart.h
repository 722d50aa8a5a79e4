/* What `mode` and `restart` share: restarting the GPU device plugin on
 * nodes.  Implemented in cmd_restart.c; choosing the nodes is nodesel.h.
 *
 * Uses the client and the node-pool rules (nodepool.h).
 */
#ifndef RESTART_H
#define RESTART_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "kube.h"
#include "nodesel.h"

struct restart_opts {
	const char *daemonset; /* "NS/NAME", or NULL = the device-plugin DaemonSets in kube-system */
	int max_parallel;      /* nodes restarted at once (>= 1) */
	long timeout_ms;       /* per node */
	bool dry_run;	       /* list what would be deleted */
	bool server_dry_run;   /* send the deletes with dryRun=All, wait for nothing */
	bool tty;	       /* show a progress line */
	bool continue_on_error; /* start more nodes after one failed */
	FILE *out, *errout;
	/* When not NULL: each node's result is appended to it, as an object of
	 * the RestartResult document, and report_summary gets the counts. */
	json_t *report;
	json_t *report_summary;
};

/* Restart the device plugin on each node: delete its pod(s), wait for a
 * Ready replacement.  Prints one result line per node, and at the end the
 * nodes left as they were.  Returns the number of nodes where the plugin
 * was not restarted (failed, or no plugin pod there), or -1 with *err when
 * nothing could be tried (no DaemonSet, or it could not be read). */
int restart_nodes(struct kube_client *c, char *const *nodes, size_t n, const struct restart_opts *o,
		  struct kerr *err);

/* kubectl takes a bare --dry-run as --dry-run=client; the flag table only
 * knows flags that always or never take a value, so this rewrites argv
 * (in place, before cli_parse_flags) to say it explicitly. */
void restart_fix_dry_run(int argc, char **argv);

/* "5m", "30s", "1m30s", "500ms": as short as it can be said. */
void restart_format_duration(char *buf, size_t len, long ms);

#endif
