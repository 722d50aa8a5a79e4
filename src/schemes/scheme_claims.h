/* Claims collected while an allocation annotation is read, then packed into
 * a scheme_pod; and the per-device lists of the HAMi family's annotations.
 *
 * Uses the client's object structs (kube.h), scheme.h and scheme_util.h.
 */
#ifndef SCHEME_CLAIMS_H
#define SCHEME_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube.h"
#include "scheme.h"
#include "scheme_util.h"

struct claim_tmp {
	int container, gpu;
	struct sspan device; /* n == 0: no device named */
	int64_t mem, core;
};

struct claim_list {
	struct claim_tmp *v;
	size_t n, cap;
};

/* 0, or -1 when out of memory. */
int claim_list_add(struct claim_list *l, int container, int gpu, struct sspan device, int64_t mem, int64_t core);
/* One claim per container of out that holds something, on no GPU yet:
 * held on the node, GPU unknown.  0, or -1 when out of memory. */
int claim_list_add_containers(struct claim_list *l, const struct scheme_pod *out, size_t ncontainers);
/* The claims as out->claims, in one allocation that also holds the device
 * names (so they live as long as the scheme_pod): 0, or -1 when out of memory. */
int claim_list_pack(struct claim_list *l, struct scheme_pod *out);
void claim_list_release(struct claim_list *l);
/* claim_list_pack, then claim_list_release either way. */
int claim_list_finish(struct claim_list *l, struct scheme_pod *out);

/* Per-device allocation lists in pod annotations, shared by HAMi and
 * Volcano vGPU: containers separated by ';', devices by ':', each device
 * "UUID,TYPE,mem,cores"; HAMi ends every container with ';', Volcano joins
 * them.  Every device becomes one claim with
 * gpu -1 and device = UUID: the node's register maps UUIDs to indexes,
 * and the model makes that join.  Container i's sums go to per_mem[i] and
 * per_core[i] (arrays of ncontainers entries, may be NULL).
 * Returns the number of malformed device entries (skipped), or -1 when out
 * of memory; *ncontainers_seen is how many containers the value lists. */
int scheme_parse_pod_devices(const char *value, size_t ncontainers, int64_t *per_mem, int64_t *per_core,
			     struct claim_list *claims, size_t *ncontainers_seen, int64_t *max_core);

/* A GPU is split into at most this many vGPUs (CCE documents 20; HAMi's
 * and Volcano's split counts default to 10).  One pod holding more slices
 * of one device than that is a broken annotation, whatever the node says;
 * the total over all pods is the model's to check against scheme_gpu.slots. */
#define SCHEME_MAX_VGPUS_PER_GPU 20

/* A TooManyVGPUs warning when the claims put more than that on one device
 * of the annotation key. */
void scheme_check_vgpus_per_device(const struct claim_list *claims, const struct k8s_pod *pod, const char *key,
				   struct warnings *w);

#endif
