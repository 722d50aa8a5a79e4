/* The answer of `defrag` without a request: the fragmentation report
 * (frag_report.h) as a table per pool and scheme with the moves that free
 * each GPU found below it, or as one FragmentationReport document.  Reads
 * only the finished model and the report. */
#ifndef RENDER_FRAG_H
#define RENDER_FRAG_H

#include <stdio.h>

#include <jansson.h>

#include "frag_report.h"
#include "kube.h"
#include "model.h"

int render_frag_table(FILE *out, const struct model *m, const struct frag_report *r, struct kerr *err);
/* kind FragmentationReport; NULL on allocation failure. */
json_t *render_frag_document(const struct model *m, const struct frag_report *r);

#endif
