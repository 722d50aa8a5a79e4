/* What usage.c and usage_findings.c share: what the answers say of each
 * pod, and the findings drawn from the figures once they are in the model.
 * Private to src/usage/. */
#ifndef USAGE_FINDINGS_H
#define USAGE_FINDINGS_H

#include <stdint.h>

#include "model.h"
#include "usage.h"

/* What the answers say of one pod: memory in use, and the limit HAMi's
 * device plugin enforces on its containers. */
struct usage_pod_fig {
	double used, limit;
	bool used_known, limit_known;
};

/* A figure of the answers (bytes, a double) as a whole number of bytes. */
int64_t usage_bytes_round(double v);

/* The findings of a model whose figures usage_apply filled, as warnings in
 * m->usage.findings: pods[i] is what the answers said of m->pods[i]. */
void usage_findings(struct model *m, const struct usage_pod_fig *pods, const struct usage_options *o);

#endif
