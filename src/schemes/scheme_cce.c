/* Huawei CCE xGPU: GPU memory in blocks of 128 MiB and compute in percent
 * of one GPU, both as extended resources scheduled by Volcano.
 *
 * Nodes publish volcano.sh/gpu-mem.128Mi and volcano.sh/gpu-core.percentage
 * in capacity and allocatable; pods ask for the same names in their limits.
 * CCE writes no annotation that says which GPU a pod was given, so this
 * scheme has per-node figures only (per_gpu = false, no gpus array, no
 * claims).  The GPU count comes from a count label when one is present,
 * else from the nvidia.com/gpu capacity CCE GPU nodes also publish.
 */
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_keys.h"
#include "scheme_place.h"
#include "scheme_util.h"

#define RES_MEM "volcano.sh/gpu-mem.128Mi"
#define RES_CORE "volcano.sh/gpu-core.percentage"
#define BLOCK_MIB 128

static const char *const node_labels[] = {LABEL_NVIDIA_GPU_COUNT, LABEL_ALIYUN_GPU_COUNT, NULL};
static const char *const node_resources[] = {RES_MEM, RES_CORE, RES_NVIDIA_GPU, NULL};
static const char *const pod_resources[] = {RES_MEM, RES_CORE, NULL};

static int gpu_count(const struct k8s_node *node)
{
	int64_t v;

	for (const char *const *k = node_labels; *k; k++) {
		if (sspan_int64(sspan_of(kvlist_get(&node->labels, *k)), SCHEME_MAX_DEVICES, &v) == 0 &&
		    v > 0)
			return (int)v;
	}
	if (sspan_int64(sspan_of(kvlist_get(&node->capacity, RES_NVIDIA_GPU)), SCHEME_MAX_DEVICES, &v) == 0)
		return (int)v;
	return 0;
}

static int cce_node_decode(const struct k8s_node *node, struct scheme_node *out, struct warnings *w)
{
	int64_t alloc = 0, cap = 0, core = 0, core_cap = 0;

	if (!scheme_node_has(node, RES_MEM))
		return 0;
	memset(out, 0, sizeof(*out));
	out->unit = UNIT_MIB;
	out->unit_from_label = true; /* the resource name carries the unit */
	out->per_gpu = false;
	out->isolation = true;
	scheme_node_amounts(node, RES_MEM, SCHEME_MAX_MIB / BLOCK_MIB, &alloc, &cap, w);
	out->mem_total = alloc * BLOCK_MIB;
	out->mem_capacity = cap * BLOCK_MIB;
	if (scheme_node_has(node, RES_CORE))
		scheme_node_amounts(node, RES_CORE, SCHEME_MAX_MIB / BLOCK_MIB, &core, &core_cap, w);
	out->core_total = core;
	out->ngpus = gpu_count(node);
	out->mode = strdup(core_cap > 0 ? "memory+compute" : "memory");
	if (!out->mode) {
		scheme_node_release(out);
		return -1;
	}
	return 1;
}

static const char *cname(const struct k8s_pod *pod, size_t i)
{
	return pod->containers[i].name ? pod->containers[i].name : "?";
}

static int cce_pod_decode(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w)
{
	bool any = false;

	for (size_t i = 0; i < pod->ncontainers && !any; i++)
		any = kvlist_get(&pod->containers[i].limits, RES_MEM) ||
		      kvlist_get(&pod->containers[i].limits, RES_CORE);
	if (!any)
		return 0;
	memset(out, 0, sizeof(*out));
	if (scheme_pod_alloc_containers(pod, out) < 0)
		return -1;
	out->node = pod->node_name;
	out->assigned = pod->node_name && pod->phase &&
			(strcmp(pod->phase, "Running") == 0 || strcmp(pod->phase, "Succeeded") == 0);

	for (size_t i = 0; i < pod->ncontainers; i++) {
		const struct kvlist *l = &pod->containers[i].limits;
		const char *ms = kvlist_get(l, RES_MEM);
		int64_t blocks = 0, core = 0;
		int rm = scheme_quantity(l, RES_MEM, &blocks);
		int rc = scheme_quantity(l, RES_CORE, &core);

		if (rm < 0 || (rm > 0 && blocks > SCHEME_MAX_MIB / BLOCK_MIB)) {
			scheme_warn_pod(w, "MalformedQuantity", pod,
					"container %s: limit %s is not a usable quantity", cname(pod, i),
					RES_MEM);
			rm = -1;
			blocks = 0;
		} else if (rm > 0 && !scheme_quantity_whole(ms)) {
			scheme_warn_pod(w, "MemoryNotMultipleOf128Mi", pod,
					"container %s: limit %s=%s is not a whole number of 128 MiB blocks",
					cname(pod, i), RES_MEM,
					str_is_printable(ms, false) ? ms : "?");
		}
		if (rc < 0 || (rc > 0 && core > SCHEME_MAX_COUNT)) {
			scheme_warn_pod(w, "MalformedQuantity", pod,
					"container %s: limit %s is not a usable quantity", cname(pod, i),
					RES_CORE);
			rc = -1;
			core = 0;
		}
		if (rc > 0) {
			if (core % 5 != 0)
				scheme_warn_pod(w, "CoreShareNotMultipleOf5", pod,
						"container %s asks for %lld%% of a GPU: cce takes multiples of 5",
						cname(pod, i), (long long)core);
			if (core > 100)
				scheme_warn_pod(w, "CoreShareOver100", pod,
						"container %s asks for %lld%% of a GPU (at most 100)",
						cname(pod, i), (long long)core);
			if (rm == 0)
				scheme_warn_pod(w, "CoreWithoutMemory", pod,
						"container %s asks for %s without %s: cce cannot schedule it",
						cname(pod, i), RES_CORE, RES_MEM);
		}
		out->container_mem[i] = blocks * BLOCK_MIB;
		out->container_core[i] = core;
		out->mem += blocks * BLOCK_MIB;
		out->core += core;
	}
	if (pod->scheduler_name && strcmp(pod->scheduler_name, "volcano") != 0)
		scheme_warn_pod(w, "SchedulerNotVolcano", pod,
				"the pod asks for cce vgpu resources but its scheduler is %s, not volcano",
				str_is_printable(pod->scheduler_name, false) ? pod->scheduler_name : "?");
	/* the split over GPUs is not published: the pod's whole ask, on one GPU */
	out->ask = (struct scheme_ask){.mem = out->mem, .core = out->core, .gpus = 1};
	return 1;
}

const struct scheme scheme_cce = {
	.name = "cce", .title = "Huawei CCE xGPU", .pod_unit = UNIT_MIB,
	.help = "GPU memory in 128 MiB blocks and compute shares, per node, scheduled by Volcano",
	.node_fields = {.label_keys = node_labels, .resource_names = node_resources},
	.pod_fields = {.resource_names = pod_resources},
	.node_decode = cce_node_decode, .pod_decode = cce_pod_decode, .place = scheme_place_shares,
};
