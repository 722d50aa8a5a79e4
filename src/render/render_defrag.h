/* The answer of `defrag`: the moves that make room for a request, what they
 * free, or why no plan exists, as a table or as one DefragPlan document.
 * Reads only the finished model, the plan and fit's check of the request. */
#ifndef RENDER_DEFRAG_H
#define RENDER_DEFRAG_H

#include <stdio.h>

#include <jansson.h>

#include "defrag.h"
#include "kube.h"
#include "model.h"

/* What the command knows beside the plan. */
struct defrag_report {
	const char *subject;		 /* "request (cgpu): 7 GiB ..." */
	int max_moves;
	const struct fit_result *now;	 /* fit's check of the request as things are */
	size_t stay[DEFRAG_BUDGETS + 1]; /* pods on the nodes checked that may not move, per reason */
	size_t no_disruption;		 /* movable pods whose budget allows no disruption now */
};

int render_defrag_table(FILE *out, const struct model *m, const struct fit_request *r, const struct defrag_plan *p,
			const struct defrag_report *rep, struct kerr *err);
/* kind DefragPlan; NULL on allocation failure. */
json_t *render_defrag_document(const struct model *m, const struct fit_request *r, const struct defrag_plan *p,
			       const struct defrag_report *rep);
/* The reason a pod stays, as JSON and the table name it. */
const char *defrag_stay_name(enum defrag_stay s);

#endif
