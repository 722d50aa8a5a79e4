/* A fleet's answer: one section or a CLUSTER column per cluster, the
 * document of each cluster in one FleetReport, each failed cluster's one
 * error line, and the exit status.
 *
 * Uses load.h (struct fleet), output.h and the renderers.
 */
#ifndef FLEET_H
#define FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "load.h"

#define FLEET_KIND_REPORT "FleetReport"
#define FLEET_KIND_FIT "FleetFitAnswer"
#define FLEET_KIND_DEFRAG "FleetDefragPlan"
#define FLEET_KIND_FRAG "FleetFragmentationReport"

/* "Cluster: NAME", the line that heads cluster i's section, after a blank
 * line unless it is the first section shown; NAME in its visible form. */
int fleet_heading(struct cli_ctx *ctx, const struct fleet *f, size_t i, bool first, struct kerr *err);

/* The CLUSTER cell of cluster i: its name in its visible form, padded to
 * the widest name of the fleet (and to the header); malloc'd. */
char *fleet_cluster_cell(const struct fleet *f, size_t i);

/* Cluster i's warnings on ctx->errout, each line naming the context. */
int fleet_warnings(struct cli_ctx *ctx, const struct fleet *f, size_t i, struct kerr *err);

/* Every failed cluster's one line, kubectl's wording after its context's
 * name: `error: context "NAME": ...`. */
void fleet_print_errors(struct cli_ctx *ctx, const struct fleet *f);

/* 0 when every cluster answered, or with --ignore-unreachable when one
 * did; else 1. */
int fleet_exit_code(const struct cli_ctx *ctx, const struct fleet *f);

/* {apiVersion, kind, clusters: [{context, report, error}]}: report is what
 * doc makes of cluster i when it answered (the document one context gives),
 * null for one that failed, whose error is {message, reason, code}; the
 * clusters in the order of order[] (NULL: as asked).  NULL when out of
 * memory. */
json_t *fleet_document(const struct fleet *f, const char *kind, const size_t *order,
		       json_t *(*doc)(const struct fleet *f, size_t i, void *ud), void *ud);

#endif
