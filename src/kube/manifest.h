/* Pod manifests: the pod a YAML or JSON manifest describes, as a struct
 * k8s_pod with everything that decides where it may run (container limits,
 * labels and annotations, nodeSelector, required node affinity,
 * tolerations).  Read with libyaml (YAML) and jansson (JSON), never by hand.
 */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <stddef.h>

#include <jansson.h>

#include "kerr.h"
#include "objects.h"

/* The first document of buf: a Pod, or the pod template of a Deployment,
 * ReplicaSet, StatefulSet, Job, CronJob or DaemonSet.  Every map is kept
 * whole (no filter).  Errors are KERR_USAGE with kubectl's wording. */
int manifest_read_pod(const char *buf, size_t len, struct k8s_pod **ret, struct kerr *err);

/* An object of a manifest that carries a pod template, and how many pods
 * it makes: a Deployment's, ReplicaSet's or StatefulSet's replicas
 * (default 1), a Job's (or a CronJob's job template's) parallelism, or its
 * completions when fewer (default 1), 1 for a Pod, and
 * MANIFEST_PER_NODE for a DaemonSet (one pod per matching node). */
#define MANIFEST_PER_NODE (-1L)

struct manifest_workload {
	char *kind, *name, *namespace; /* as the object says (name, namespace may be NULL) */
	struct k8s_pod *pod;	       /* the template as a pod */
	long pods;
};

/* A kind that was skipped (no pod template), with how many of it. */
struct manifest_skipped {
	char *kind;
	size_t count;
};

/* What a set of manifests holds, in the order read. */
struct manifest_set {
	struct manifest_workload *items;
	size_t len, cap;
	/* ResourceClaims and ResourceClaimTemplates as read (their own
	 * references), which the pods' spec.resourceClaims may name */
	json_t **claims;
	size_t nclaims, claims_cap;
	struct manifest_skipped *skipped;
	size_t nskipped, skipped_cap;
};

/* Every object of buf, as kubectl apply -f reads a file: several YAML
 * documents (empty ones skipped), a JSON object or a YAML document of
 * kind List (its items, one level), each object with a pod template added
 * to set, every other kind counted in set->skipped.  Errors are KERR_OTHER
 * with kubectl's wording. */
int manifest_read_all(const char *buf, size_t len, struct manifest_set *set, struct kerr *err);
void manifest_set_release(struct manifest_set *set);

/* The same from an object already decoded (a Pod read from the API). */
int manifest_pod_from_json(const json_t *obj, struct k8s_pod **ret, struct kerr *err);

#endif
