/* A claim of devices judged on one node (fit.c's rule for
 * fit_request.claim): the DeviceClass's and the request's CEL selectors
 * evaluated on each device the node's scheme publishes (scheme.h:
 * node_devices), then an exhaustive search, bounded, for distinct devices
 * that serve every request with their capacity and shared counters. */
#ifndef FIT_CLAIM_H
#define FIT_CLAIM_H

#include "fit.h"
#include "model.h"

/* How many device choices the search tries on one node before it says
 * the answer is unknown. */
#define FIT_CLAIM_MAX_STEPS 200000

struct fit_claim_check;

/* The claim of r compiled once for every node of m (the classes found
 * through the first scheme with claims, the selectors compiled).  0, or
 * -1 when out of memory. */
int fit_claim_check_new(const struct model *m, const struct fit_request *r, struct fit_claim_check **ret);
void fit_claim_check_free(struct fit_claim_check *c);

/* Whether node n is one of a scheme that publishes devices. */
bool fit_claim_node(const struct model_node *n);

/* The verdict on node n: *reason -1 and *place (gpus malloc'd) where it
 * fits for certain, else an enum fit_reason and *detail, the reason in
 * words (malloc'd).  0, or -1 when out of memory. */
int fit_claim_judge(const struct fit_claim_check *c, const struct model_node *n, int *reason, char **detail,
		    struct fit_place *place);

#endif
