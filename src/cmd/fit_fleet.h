/* `fit` asked of several clusters: one load per context, the fit check in
 * each cluster's model, and one answer with the clusters best first (where
 * the best place leaves the least free), as a table or a FleetFitAnswer.
 *
 * Uses load.c and fleet.c below it; cmd_fit.c calls it. */
#ifndef FIT_FLEET_H
#define FIT_FLEET_H

#include "cli.h"
#include "fit.h"
#include "kube.h"
#include "load.h"
#include "output.h"

/* What `fit` exits with when the pod fits nowhere. */
#define FIT_EXIT_DOES_NOT_FIT 3

/* Load every cluster the context flags name as load describes, check req
 * (worded as subject) in each, and print the answer in form out.  0 when
 * it fits in a cluster, FIT_EXIT_DOES_NOT_FIT when in none, 1 when a
 * cluster failed; -1 with err filled when the fleet cannot be answered. */
int fit_fleet_run(struct cli_ctx *ctx, struct cluster_load *load, const struct fit_request *req, const char *subject,
		  enum output out, struct kerr *err);

#endif
