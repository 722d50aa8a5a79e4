/* Volcano vGPU (Project-HAMi/volcano-vgpu-device-plugin), and the older
 * Volcano gpu-share (volcano-sh/devices) that it replaced.
 *
 * vGPU nodes register their GPUs in the annotation
 * volcano.sh/node-vgpu-register as "UUID,count,devmem,type,health,mode:"
 * repeated (older plugins leave out mode); devmem is in MiB.  Pods carry
 * volcano.sh/vgpu-ids-new once the device plugin allocated them, and
 * volcano.sh/devices-to-allocate while the chosen devices wait for it: per
 * container "UUID,NVIDIA,mem,cores:" devices, containers joined by ';'.
 * Devices are named by UUID only, so every claim has gpu = -1 and
 * device_id = the UUID; the model finds the index by matching the UUID with
 * scheme_gpu.id of the node's GPUs.  A pod bound to a node without a
 * device list gets one claim per container with gpu = -1 and no device_id.
 *
 * gpu-share nodes publish only volcano.sh/gpu-memory (MiB, whole node) and
 * volcano.sh/gpu-number; the GPUs are taken to be the same size.  Its pods
 * ask for volcano.sh/gpu-memory and get the GPU index in the annotation
 * volcano.sh/gpu-index, so their claims carry the index directly.
 */
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_claims.h"
#include "scheme_devices.h"
#include "scheme_place.h"
#include "scheme_util.h"

#define ANN_VGPU_REGISTER "volcano.sh/node-vgpu-register"
#define ANN_VGPU_IDS "volcano.sh/vgpu-ids-new"
#define ANN_VGPU_TO_ALLOCATE "volcano.sh/devices-to-allocate"
#define ANN_VGPU_NODE "volcano.sh/vgpu-node"
#define ANN_VGPU_BIND_PHASE "volcano.sh/bind-phase"
#define ANN_SHARE_INDEX "volcano.sh/gpu-index"
#define ANN_SHARE_ASSIGNED "volcano.sh/gpu-assigned"

#define RES_VGPU_NUMBER "volcano.sh/vgpu-number"
#define RES_VGPU_MEMORY "volcano.sh/vgpu-memory"
#define RES_VGPU_MEM_PCT "volcano.sh/vgpu-memory-percentage"
#define RES_VGPU_CORES "volcano.sh/vgpu-cores"
#define RES_SHARE_MEMORY "volcano.sh/gpu-memory"
#define RES_SHARE_NUMBER "volcano.sh/gpu-number"

static const char *const node_annotations[] = {ANN_VGPU_REGISTER, NULL};
static const char *const node_resources[] = {RES_VGPU_NUMBER, RES_VGPU_MEMORY, RES_VGPU_CORES,
					     RES_SHARE_MEMORY, RES_SHARE_NUMBER, NULL};
static const char *const pod_annotations[] = {ANN_VGPU_IDS,	       ANN_VGPU_TO_ALLOCATE, ANN_VGPU_NODE,
					      ANN_VGPU_BIND_PHASE, ANN_SHARE_INDEX,	 ANN_SHARE_ASSIGNED,
					      NULL};
static const char *const pod_resources[] = {RES_VGPU_NUMBER, RES_VGPU_MEMORY, RES_VGPU_MEM_PCT,
					    RES_VGPU_CORES, RES_SHARE_MEMORY, NULL};

struct vdev {
	struct sspan id, type, mode;
	int64_t count, devmem;
	bool healthy;
};

static int decode_register(const struct k8s_node *node, const char *reg, struct scheme_node *out,
			   struct warnings *w)
{
	struct sspan rest = sspan_of(reg), ent;
	struct vdev *devs;
	size_t n = 0, max = sspan_count(rest, ':');
	int bad = 0;
	bool same_mode = true;

	if (max > SCHEME_MAX_DEVICES) {
		scheme_warn_node(w, "MalformedAnnotation", node,
				 "annotation %s: more than %d devices, ignored", ANN_VGPU_REGISTER,
				 SCHEME_MAX_DEVICES);
		return 0;
	}
	devs = calloc(max, sizeof(*devs));
	if (!devs)
		return -1;
	while (sspan_split(&rest, ':', &ent)) {
		struct sspan f[7], fld, e = sspan_trim(ent);
		struct vdev d = {0};
		int nf = 0;

		if (e.n == 0)
			continue;
		while (nf < 7 && sspan_split(&e, ',', &fld))
			f[nf++] = sspan_trim(fld);
		if (nf < 5 || nf > 6 || !sspan_printable(f[0], false) ||
		    sspan_int64(f[1], SCHEME_MAX_COUNT, &d.count) < 0 ||
		    sspan_int64(f[2], SCHEME_MAX_MIB, &d.devmem) < 0 ||
		    (f[3].n && !sspan_printable(f[3], true)) ||
		    !(sspan_eq(f[4], "true") || sspan_eq(f[4], "false")) ||
		    (nf == 6 && f[5].n && !sspan_printable(f[5], false))) {
			bad++;
			continue;
		}
		d.id = f[0];
		d.type = f[3];
		d.mode = nf == 6 ? f[5] : (struct sspan){NULL, 0};
		d.healthy = sspan_eq(f[4], "true");
		devs[n++] = d;
	}
	scheme_devices_warn_register(node, ANN_VGPU_REGISTER, bad, w);
	if (n) {
		out->gpus = calloc(n, sizeof(*out->gpus));
		if (!out->gpus)
			goto oom;
	}
	out->ngpus = (int)n;
	for (size_t i = 0; i < n; i++) {
		struct scheme_gpu *g = &out->gpus[i];

		g->index = (int)i;
		g->id = sspan_dup(devs[i].id);
		g->type = devs[i].type.n ? sspan_dup(devs[i].type) : NULL;
		if (!g->id || (devs[i].type.n && !g->type))
			goto oom;
		g->mem_total = devs[i].devmem;
		g->core_total = 100;
		g->slots = devs[i].count;
		g->unhealthy = !devs[i].healthy;
		out->mem_capacity += devs[i].devmem;
		if (devs[i].healthy) {
			out->mem_total += devs[i].devmem;
			out->core_total += 100;
		}
		if (i > 0 && (devs[i].mode.n != devs[0].mode.n ||
			      memcmp(devs[i].mode.p ? devs[i].mode.p : "", devs[0].mode.p ? devs[0].mode.p : "",
				     devs[i].mode.n) != 0))
			same_mode = false;
	}
	if (n && devs[0].mode.n && same_mode) {
		out->mode = sspan_dup(devs[0].mode);
		if (!out->mode)
			goto oom;
	} else {
		out->mode = strdup("vgpu");
		if (!out->mode)
			goto oom;
	}
	free(devs);
	return 0;
oom:
	free(devs);
	return -1;
}

static int vgpu_node_decode(const struct k8s_node *node, struct scheme_node *out, struct warnings *w)
{
	const char *reg = kvlist_get(&node->annotations, ANN_VGPU_REGISTER);

	if (!reg && !scheme_node_has(node, RES_VGPU_NUMBER) && !scheme_node_has(node, RES_VGPU_MEMORY) &&
	    !scheme_node_has(node, RES_SHARE_MEMORY))
		return 0;
	memset(out, 0, sizeof(*out));
	out->unit = UNIT_MIB;
	out->unit_from_label = true;
	out->isolation = true;

	if (reg) {
		out->per_gpu = true;
		if (decode_register(node, reg, out, w) < 0)
			goto oom;
		return 1;
	}
	if (scheme_node_has(node, RES_VGPU_NUMBER) || scheme_node_has(node, RES_VGPU_MEMORY)) {
		/* The plugin has not registered its devices yet: node totals only. */
		int64_t cores = 0, cores_cap = 0;
		scheme_node_amounts(node, RES_VGPU_MEMORY, SCHEME_MAX_MIB, &out->mem_total, &out->mem_capacity,
				    w);
		scheme_node_amounts(node, RES_VGPU_CORES, SCHEME_MAX_MIB, &cores, &cores_cap, w);
		out->core_total = cores;
		out->mode = strdup("vgpu");
		if (!out->mode)
			goto oom;
		return 1;
	}

	/* gpu-share: GPUs of equal size, memory and count from the resources. */
	{
		int64_t count = 0, count_cap = 0;
		scheme_node_amounts(node, RES_SHARE_MEMORY, SCHEME_MAX_MIB, &out->mem_total, &out->mem_capacity,
				    w);
		scheme_node_amounts(node, RES_SHARE_NUMBER, SCHEME_MAX_MIB, &count, &count_cap, w);
		if (count_cap > count)
			count = count_cap;
		if (count > SCHEME_MAX_DEVICES) {
			scheme_warn_node(w, "MalformedQuantity", node, "resource %s: %lld GPUs",
					 RES_SHARE_NUMBER, (long long)count);
			count = 0;
		}
		out->mode = strdup("gpu-share");
		if (!out->mode)
			goto oom;
		out->isolation = false;
		if (count > 0) {
			out->per_gpu = true;
			out->gpus = calloc((size_t)count, sizeof(*out->gpus));
			if (!out->gpus)
				goto oom;
			out->ngpus = (int)count;
			for (int i = 0; i < out->ngpus; i++) {
				out->gpus[i].index = i;
				out->gpus[i].mem_total = out->mem_capacity / count;
			}
		}
		return 1;
	}
oom:
	scheme_node_release(out);
	return -1;
}

static bool has_any_limit(const struct k8s_pod *pod, const char *const *names)
{
	for (size_t i = 0; i < pod->ncontainers; i++)
		for (const char *const *n = names; *n; n++)
			if (kvlist_get(&pod->containers[i].limits, *n))
				return true;
	return false;
}

static const char *const vgpu_limits[] = {RES_VGPU_NUMBER, RES_VGPU_MEMORY, RES_VGPU_MEM_PCT,
					  RES_VGPU_CORES, NULL};
static const char *const share_limits[] = {RES_SHARE_MEMORY, NULL};

/* The vGPU pod side is the same as HAMi's (scheme_devices.c). */
static const struct scheme_devices_desc vgpu_devices = {
	.node_key = ANN_VGPU_NODE, .allocated_key = ANN_VGPU_IDS, .to_allocate_key = ANN_VGPU_TO_ALLOCATE,
	.bind_phase_key = ANN_VGPU_BIND_PHASE, .display_name = "volcano", .limit_name = "volcano vgpu",
	.res_count = RES_VGPU_NUMBER, .res_mem = RES_VGPU_MEMORY, .res_cores = RES_VGPU_CORES,
	.assigned_needs_bind_success = false,
};

/* gpu-share: memory per container from the limits, the GPU from
 * volcano.sh/gpu-index ("0", or "0,1" for a pod spread over GPUs, whose
 * memory is then split evenly). */
static int share_pod(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w)
{
	const char *idx = scheme_pod_annotation(pod, ANN_SHARE_INDEX);
	const char *assigned = kvlist_get(&pod->annotations, ANN_SHARE_ASSIGNED);
	struct claim_list claims = {0};
	int64_t sum = 0;

	out->node = pod->node_name;
	scheme_pod_sum(pod, RES_SHARE_MEMORY, out->container_mem, &sum, w);
	out->mem = sum;
	if (idx) {
		struct sspan all = sspan_of(idx), rest = all, f;
		size_t n = sspan_count(all, ','), i = 0;
		int64_t v;
		bool ok = n <= SCHEME_MAX_DEVICES;

		while (ok && sspan_split(&rest, ',', &f))
			ok = sspan_int64(f, SCHEME_MAX_DEVICES - 1, &v) == 0;
		if (!ok) {
			scheme_warn_pod(w, "MalformedAnnotation", pod,
					"annotation %s: not a list of GPU indexes", ANN_SHARE_INDEX);
			idx = NULL;
		}
		rest = all;
		while (idx && sspan_split(&rest, ',', &f)) {
			sspan_int64(f, SCHEME_MAX_DEVICES - 1, &v);
			if (n == 1) {
				for (size_t c = 0; c < pod->ncontainers; c++)
					if (out->container_mem[c] &&
					    claim_list_add(&claims, (int)c, (int)v, (struct sspan){NULL, 0},
							   out->container_mem[c], 0) < 0)
						goto oom;
			} else {
				int64_t part = sum / (int64_t)n + (i == 0 ? sum % (int64_t)n : 0);
				if (claim_list_add(&claims, -1, (int)v, (struct sspan){NULL, 0}, part, 0) < 0)
					goto oom;
			}
			i++;
		}
	}
	if (!idx && out->node && claim_list_add_containers(&claims, out, pod->ncontainers) < 0)
		goto oom;
	out->assigned = idx && (assigned ? strcmp(assigned, "true") == 0 : true);
	return claim_list_finish(&claims, out) < 0 ? -1 : 1;
oom:
	claim_list_release(&claims);
	return -1;
}

static int vgpu_pod_decode(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w)
{
	bool vgpu = kvlist_get(&pod->annotations, ANN_VGPU_IDS) || kvlist_get(&pod->annotations, ANN_VGPU_TO_ALLOCATE) ||
		    kvlist_get(&pod->annotations, ANN_VGPU_NODE) || has_any_limit(pod, vgpu_limits);
	bool share = kvlist_get(&pod->annotations, ANN_SHARE_INDEX) || has_any_limit(pod, share_limits);

	if (vgpu)
		return scheme_devices_pod_decode(&vgpu_devices, pod, out, w);
	if (!share)
		return 0;
	memset(out, 0, sizeof(*out));
	if (scheme_pod_alloc_containers(pod, out) < 0 || share_pod(pod, out, w) < 0) {
		scheme_pod_release(out);
		return -1;
	}
	/* gpu-share pods name no vGPU count: their memory, on one GPU */
	scheme_devices_ask(&vgpu_devices, pod, out);
	return 1;
}

const struct scheme scheme_vgpu = {
	.name = "volcano-vgpu", .title = "Volcano vGPU", .pod_unit = UNIT_MIB, .whole_card_by_default = true,
	.help = "vGPUs of memory and compute from Volcano's device plugin (and its older gpu-share), by device UUID",
	.node_fields = {.annotation_keys = node_annotations, .resource_names = node_resources},
	.pod_fields = {.annotation_keys = pod_annotations, .resource_names = pod_resources},
	.node_decode = vgpu_node_decode, .pod_decode = vgpu_pod_decode, .place = scheme_place_vgpus,
};
