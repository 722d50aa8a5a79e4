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

/* The same from an object already decoded (a Pod read from the API). */
int manifest_pod_from_json(const json_t *obj, struct k8s_pod **ret, struct kerr *err);

#endif
