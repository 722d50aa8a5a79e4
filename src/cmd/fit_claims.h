/* The claims of `fit -f`: ResourceClaims and ResourceClaimTemplates of the
 * manifests, and those a pod's spec.resourceClaims names, found in the
 * manifests first (same namespace), else read from the server in the
 * resource.k8s.io version the load found; each decoded as the lists
 * decode claims, a template as the claim it makes.
 *
 * Uses the client (kube.h) and the DRA scheme's claim filter. */
#ifndef FIT_CLAIMS_H
#define FIT_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "kube.h"

struct fit_claims {
	struct k8s_resource_claim **owned; /* decoded, freed by fit_claims_release */
	size_t nowned;
	struct k8s_dra_request *reqs; /* the requests of the claims asked about (shallow copies) */
	size_t nreqs;
	char *names; /* "gpu-claim, other" for words, or NULL */
};

/* The requests of one ResourceClaim or ResourceClaimTemplate object.  0, or -1 with *err. */
int fit_claims_of(struct fit_claims *fc, const json_t *obj, struct kerr *err);
/* The requests of every claim pod names (ns: its namespace); 1 when it
 * names any, 0 when none.  c and version may be NULL: the server is not
 * asked then, and a claim not in set is an error. */
int fit_claims_for_pod(struct fit_claims *fc, const struct manifest_set *set, struct kube_client *c,
		       const char *version, const struct k8s_pod *pod, const char *ns, struct kerr *err);
void fit_claims_release(struct fit_claims *fc);

#endif
