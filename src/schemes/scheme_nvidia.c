/* Whole GPUs from the NVIDIA device plugin: nvidia.com/gpu, also when
 * time-slicing or MPS hands out several replicas per GPU (optionally
 * renamed nvidia.com/gpu.shared), and lightweight GPU instances whose one
 * small vGPU shows up as a whole nvidia.com/gpu (Alibaba vgn5i, with the
 * aliyun.accelerator/nvidia_* labels).
 *
 * Everything is counted in slots: one replica (or one whole GPU when there
 * are no replicas).  No annotation records which GPU a pod got, so the
 * figures are per node only (per_gpu = false, no gpus array, no claims);
 * with one replica per GPU a slot is a GPU, so the counts are exact GPUs.
 *
 * HAMi uses nvidia.com/gpu as well; its nodes carry the register annotation
 * and its pods HAMi's annotations or resources, and are left to it.
 */
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_hami.h"
#include "scheme_keys.h"
#include "scheme_place.h"
#include "scheme_util.h"

#define RES_SHARED "nvidia.com/gpu.shared"
#define LABEL_REPLICAS "nvidia.com/gpu.replicas"
#define LABEL_STRATEGY "nvidia.com/gpu.sharing-strategy"
#define LABEL_GKE_STRATEGY "cloud.google.com/gke-gpu-sharing-strategy"
#define LABEL_GKE_CLIENTS "cloud.google.com/gke-max-shared-clients-per-gpu"

static const char *const node_labels[] = {LABEL_NVIDIA_GPU_COUNT, LABEL_REPLICAS,     LABEL_STRATEGY,
					  LABEL_ALIYUN_GPU_COUNT, LABEL_GKE_STRATEGY, LABEL_GKE_CLIENTS,
					  NULL};
static const char *const node_annotations[] = {ANN_HAMI_REGISTER, NULL};
static const char *const node_resources[] = {RES_NVIDIA_GPU, RES_SHARED, NULL};
/* HAMi's, which mark its pods: they are left to it */
static const char *const pod_annotations[] = {ANN_HAMI_ALLOCATED, ANN_HAMI_TO_ALLOCATE, ANN_HAMI_NODE,
					      ANN_HAMI_BIND_PHASE, NULL};
static const char *const hami_resources[] = {RES_HAMI_MEM, RES_HAMI_CORES, RES_HAMI_MEM_PCT, NULL};
static const char *const pod_resources[] = {RES_NVIDIA_GPU, RES_SHARED,	      RES_HAMI_MEM,
					    RES_HAMI_CORES, RES_HAMI_MEM_PCT, NULL};

static int64_t label_int(const struct k8s_node *node, const char *key)
{
	int64_t v;

	if (sspan_int64(sspan_of(kvlist_get(&node->labels, key)), SCHEME_MAX_COUNT, &v) == 0)
		return v;
	return 0;
}

/* allocatable and capacity of nvidia.com/gpu plus nvidia.com/gpu.shared;
 * 1 when the node has either resource at all. */
static int slots(const struct k8s_node *node, int64_t *alloc, int64_t *cap, struct warnings *w)
{
	static const char *const names[] = {RES_NVIDIA_GPU, RES_SHARED};
	int found = 0;

	*alloc = *cap = 0;
	for (size_t i = 0; i < 2; i++) {
		int64_t a = 0, c = 0;

		if (!scheme_node_amounts(node, names[i], SCHEME_MAX_COUNT, &a, &c, w))
			continue;
		found = 1;
		*alloc += a;
		*cap += c;
	}
	return found;
}

static int nvidia_node_decode(const struct k8s_node *node, struct scheme_node *out, struct warnings *w)
{
	int64_t alloc, cap, count, replicas;
	const char *strategy;

	if (kvlist_get(&node->annotations, ANN_HAMI_REGISTER))
		return 0;
	if (!slots(node, &alloc, &cap, NULL))
		return 0;
	count = label_int(node, LABEL_NVIDIA_GPU_COUNT);
	if (!count)
		count = label_int(node, LABEL_ALIYUN_GPU_COUNT);
	/* A device plugin on a machine without GPUs advertises 0: not a GPU node. */
	if (cap == 0 && count == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	slots(node, &alloc, &cap, w);
	out->unit = UNIT_SLOTS;
	out->unit_from_label = true;
	out->per_gpu = false;
	out->mem_total = alloc;
	out->mem_capacity = cap;

	replicas = label_int(node, LABEL_REPLICAS);
	if (!replicas)
		replicas = label_int(node, LABEL_GKE_CLIENTS);
	if (!replicas)
		replicas = 1;
	if (!count)
		count = cap / replicas;
	out->ngpus = count > SCHEME_MAX_DEVICES ? 0 : (int)count;

	strategy = kvlist_get(&node->labels, LABEL_STRATEGY);
	if (!strategy)
		strategy = kvlist_get(&node->labels, LABEL_GKE_STRATEGY);
	if (strategy && !str_is_printable(strategy, false))
		strategy = NULL;
	if (!strategy && replicas > 1)
		strategy = "time-slicing";
	if (strategy) {
		out->mode = strdup(strategy);
		if (!out->mode) {
			scheme_node_release(out);
			return -1;
		}
	}
	return 1;
}

static bool pod_is_hami(const struct k8s_pod *pod)
{
	for (const char *const *k = pod_annotations; *k; k++)
		if (kvlist_get(&pod->annotations, *k))
			return true;
	if (pod->scheduler_name && strcmp(pod->scheduler_name, HAMI_SCHEDULER) == 0)
		return true;
	for (size_t i = 0; i < pod->ncontainers; i++)
		for (const char *const *r = hami_resources; *r; r++)
			if (kvlist_get(&pod->containers[i].limits, *r))
				return true;
	return false;
}

static int nvidia_pod_decode(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w)
{
	bool any = false;

	for (size_t i = 0; i < pod->ncontainers && !any; i++)
		any = kvlist_get(&pod->containers[i].limits, RES_NVIDIA_GPU) ||
		      kvlist_get(&pod->containers[i].limits, RES_SHARED);
	if (!any || pod_is_hami(pod))
		return 0;
	memset(out, 0, sizeof(*out));
	if (scheme_pod_alloc_containers(pod, out) < 0)
		return -1;
	for (size_t i = 0; i < pod->ncontainers; i++) {
		int64_t a = 0, b = 0;
		int ra = scheme_quantity(&pod->containers[i].limits, RES_NVIDIA_GPU, &a);
		int rb = scheme_quantity(&pod->containers[i].limits, RES_SHARED, &b);

		if (ra < 0 || rb < 0 || a > SCHEME_MAX_COUNT || b > SCHEME_MAX_COUNT) {
			scheme_warn_pod(w, "MalformedQuantity", pod,
					"container %s: a nvidia.com/gpu limit is not a usable quantity",
					pod->containers[i].name ? pod->containers[i].name : "?");
			continue;
		}
		out->container_mem[i] = a + b;
		out->mem += a + b;
	}
	out->node = pod->node_name;
	out->assigned = pod->node_name && pod->phase &&
			(strcmp(pod->phase, "Running") == 0 || strcmp(pod->phase, "Succeeded") == 0);
	/* whole GPUs (or replicas): the count is the request */
	out->ask.gpus = out->mem > 0 ? (int)(out->mem > SCHEME_MAX_ASK_GPUS ? SCHEME_MAX_ASK_GPUS : out->mem) : 1;
	return 1;
}

const struct scheme scheme_nvidia = {
	.name = "nvidia", .title = "NVIDIA whole GPUs / time-slicing", .pod_unit = UNIT_SLOTS,
	.help = "whole GPUs, or time-slicing and MPS replicas of them, counted in slots per node",
	.node_fields = {.label_keys = node_labels, .annotation_keys = node_annotations, .resource_names = node_resources},
	.pod_fields = {.annotation_keys = pod_annotations, .resource_names = pod_resources},
	.node_decode = nvidia_node_decode, .pod_decode = nvidia_pod_decode, .place = scheme_place_shares,
};
