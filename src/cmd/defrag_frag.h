/* `defrag` without a request: the fragmentation report (frag_report.h) of
 * the model the command loaded, under the rules it decided, printed as a
 * table or a FragmentationReport document. */
#ifndef DEFRAG_FRAG_H
#define DEFRAG_FRAG_H

#include "cli.h"
#include "defrag.h"
#include "model.h"
#include "output.h"

/* The report over the nodes of m (of the scheme named, when not NULL).
 * 0, or -1 with *err. */
int defrag_frag_answer(struct cli_ctx *ctx, struct model *m, const struct defrag_rules *rules, const char *scheme,
		       enum output out, struct kerr *err);

#endif
