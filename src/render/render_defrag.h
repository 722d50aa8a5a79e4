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
/* "node/GPU0,GPU1" (the node's name made safe for a terminal), or "node"
 * where the scheme has no per-GPU split; malloc'd, NULL when out of memory. */
char *render_defrag_where(const struct model *m, size_t node, const int *gpus, int n);
/* A plan's moves as the DefragPlan's moves[]; NULL when out of memory. */
json_t *render_defrag_moves_json(const struct model *m, const struct defrag_plan *p);
/* The reason a pod stays, as JSON and the table name it. */
const char *defrag_stay_name(enum defrag_stay s);

#endif
