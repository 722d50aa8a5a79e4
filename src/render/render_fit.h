/* The answer of `fit` (where a pod would go, and why not elsewhere) as a
 * table, or as one document for JSON and YAML.  Reads only the finished
 * model and the fit result. */
#ifndef RENDER_FIT_H
#define RENDER_FIT_H

#include <stdio.h>

#include <jansson.h>

#include "fit.h"
#include "kube.h"
#include "model.h"
#include "render.h"

/* What the command knows beside the model: what was asked about, and for an
 * existing pod the scheduler's latest FailedScheduling messages. */
struct fit_report {
	const char *subject; /* "pod ml/train-0 (cgpu): 12 GiB on each of 1 GPU" */
	const char *const *events;
	size_t nevents;
	/* A workload's pods placed one after another, or NULL for one pod. */
	const struct fit_sequence *seq;
};

int render_fit_table(FILE *out, const struct model *m, const struct fit_request *r, const struct fit_result *res,
		     const struct fit_report *rep, struct kerr *err);
/* kind FitAnswer; NULL on allocation failure. */
json_t *render_fit_document(const struct model *m, const struct fit_request *r, const struct fit_result *res,
			    const struct fit_report *rep);

/* One cluster's answer in a fleet: its context's name, its model and what
 * fit found there. */
struct fit_fleet_part {
	const char *name;
	const struct model *m;
	const struct fit_result *res;
};

/* The answer of several clusters as one table, a CLUSTER column first, the
 * clusters in the order given (the best first), then why it does not fit
 * elsewhere, per cluster. */
int render_fit_fleet_table(FILE *out, const struct fit_fleet_part *parts, size_t n, const struct fit_request *r,
			   const char *subject, struct kerr *err);

#endif
