/* Inside `mode`: the run that cmd_mode.c plans and applies, and the
 * warnings about it (mode_warn.c): what the change leaves as it was, and the
 * pods it concerns.
 */
#ifndef MODE_H
#define MODE_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "kube.h"
#include "load.h"
#include "nodepool.h"
#include "nodesel.h"
#include "output.h"
#include "warnings.h"
#include "write_check.h"

/* R_CONFIRMED, R_NOT_DONE, R_CHANGED and R_UNKNOWN: the patch was sent and
 * its answer lost, and reading the node again found it labelled, as
 * before, changed by someone else, or could not tell (write_check.h). */
enum node_result {
	R_PLANNED, R_UNCHANGED, R_LABELED, R_ERROR, R_CONFIRMED, R_NOT_DONE, R_CHANGED, R_UNKNOWN, R_NOT_ATTEMPTED,
};

struct mode_run {
	struct cli_ctx *ctx;
	/* the command line */
	struct nodesel sel;
	struct np_target target;
	enum np_edition edition_given; /* --edition, or NP_EDITION_UNKNOWN */
	enum cli_dry_run dry;
	enum output out; /* the plan as text, or a document */
	bool yes, restart;
	long timeout_ms; /* per node, with restart */
	/* the cluster, and what the change does to it */
	struct cluster cluster;
	struct np_nodes all, chosen;
	struct np_plan *plans;	     /* one per chosen node */
	enum node_result *results;
	char **errors;		     /* the error line per node, or NULL */
	struct write_tally tally;    /* the nodes' results, counted */
	struct warnings warnings;
	size_t unpinned_unlisted; /* NoNodeSelector pods counted but not kept */
	size_t nchanging;
};

/* Warnings about the changing nodes themselves: isolation that stays, a
 * region without cGPU isolation. */
void mode_plan_warnings(struct mode_run *r);

/* Warnings about the pods the change concerns: those holding GPUs of the
 * old mode on a changing node, and GPU-memory pods pinned to no pool.  Lists
 * every running pod once. */
int mode_pod_warnings(struct mode_run *r, struct kerr *err);

/* The warnings on r->ctx->errout, grouped by kind, the longer kinds cut
 * short (-o json has them all). */
void mode_print_warnings(const struct mode_run *r);

#endif
