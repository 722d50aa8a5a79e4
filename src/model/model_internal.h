/* What model.c and model_finish.c share: the per-node accumulators that
 * nodes and pods are folded into as they arrive, joined by model_finish(). */
#ifndef MODEL_INTERNAL_H
#define MODEL_INTERNAL_H

#include "model.h"
#include "model_names.h"

/* GPU indexes a pod may name before its node arrives; a larger index is
 * folded into one "beyond" sum, so annotations cannot make us allocate. */
#define MAX_GPU_SLOTS 4096

struct node_acc {
	const char *name; /* the model_private's acc_names */
	bool have_node; /* model_add_node saw it */
	bool shares;	/* ...and a scheme accepted it */
	size_t node;	/* index into m->nodes when shares */
	int64_t *gpu_mem, *gpu_core;
	size_t *gpu_pods;
	size_t nslots;
	int64_t beyond_mem, beyond_core; /* GPU index >= MAX_GPU_SLOTS */
	size_t beyond_pods;
	int64_t pending_mem, pending_core;
	size_t pending_pods;
	int64_t mem, core;
	size_t npods;
	/* claims naming a device (UUID) instead of an index: the node's GPU
	 * list, which may arrive later, maps them in join_node() */
	struct dev_claim *devs;
	size_t ndevs, devs_cap;
	size_t node_pods_cap; /* room in m->nodes[node].pods, filled by model_finish() */
};

struct dev_claim {
	const char *id; /* the model_private's device_names: outlives the pod */
	int64_t mem, core;
	bool first_on_gpu;
};

struct model_private {
	struct node_acc *accs; /* numbered as acc_names */
	size_t naccs, accs_cap;
	struct model_names acc_names, device_names;
	size_t nodes_cap, pods_cap, unscheduled_cap;
	struct warnings node_warnings, pod_warnings;
	struct decode_filter node_filter, pod_filter;
	bool filters_built;
	const char *pool_label;
	const char *model_node_labels[2];
	struct decode_filter model_node_fields;
	const char *model_pod_labels[2];
	struct decode_filter model_pod_fields;
	bool finished;
	size_t *maybe; /* pods kept on a MAYBE of keep_pod_if, until it decides */
	size_t nmaybe, maybe_cap;
};

struct node_acc *model_acc_find(struct model_private *p, const char *name);
/* Add a claim to GPU gpu (-1 = pending) of a node; -1 when out of memory. */
int model_fold_claim(struct node_acc *a, int gpu, int64_t mem, int64_t core, bool first_on_gpu);
bool model_same_device(const char *x, const char *y);
/* The index of the GPU a scheme names by device id, or -1. */
int model_gpu_by_id(const struct scheme_node *info, const char *id);
void model_pod_free_fields(struct model_pod *mp);

#endif
