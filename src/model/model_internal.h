/* What the model's files share: the per-node accumulators that nodes and
 * pods are folded into as they arrive, joined by model_finish() (or, node by
 * node, by the live model), and the pieces of reading and joining. */
#ifndef MODEL_INTERNAL_H
#define MODEL_INTERNAL_H

#include "fit.h"
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
	/* how many pods here ask each memory of one GPU (in the scheme's
	 * unit), kept or not: the request sizes of the stranded figure */
	struct acc_size *sizes;
	size_t nsizes, sizes_cap;
};

struct acc_size {
	int64_t size;
	size_t count;
};

struct dev_claim {
	const char *id; /* the model_private's device_names: outlives the pod */
	int64_t mem, core; /* one pod's on that device */
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
	const char *model_pod_annotations[2];
	struct decode_filter model_pod_fields;
	bool finished;
	size_t *maybe; /* pods kept on a MAYBE of keep_pod_if, until it decides */
	size_t nmaybe, maybe_cap;
	/* Set by the live model: kept pods' namespace, phase and node are its
	 * strings, stored once, and their uid is its record's. */
	struct model_names *strings;
};

/* A pod as the model reads it. */
struct pod_reading {
	const struct scheme *sc; /* NULL: no scheme reads the pod, or it has finished */
	struct scheme_pod sp;	 /* device ids the model's own (device_names) */
	const char *node;	 /* where it holds its share (the scheme's word, else spec.nodeName); NULL: on no node */
	struct model_pod_gpu *gpus; /* sp's claims per GPU, containers on one GPU merged, in the scheme's count */
	size_t ngpus;
};

struct node_acc *model_acc_find(struct model_private *p, const char *name);
/* The accumulator of a node name, made when the name is new; NULL when out
 * of memory.  Accumulators are numbered as the names, and never removed. */
struct node_acc *model_acc_get(struct model_private *p, const char *name);
/* Add a claim to GPU gpu (-1 = pending) of a node, held by pods more pods
 * (negative: taken out); -1 when out of memory. */
int model_fold_claim(struct node_acc *a, int gpu, int64_t mem, int64_t core, int pods);
/* A pod's share added to its node's sums (sign 1), or taken out again
 * (sign -1, exactly what was added): per GPU as a pod_reading has it, and
 * the whole pod's; -1 when out of memory. */
int model_fold_pod(struct node_acc *a, const struct model_pod_gpu *gpus, size_t ngpus, int64_t mem, int64_t core,
		   int sign);
bool model_same_device(const char *x, const char *y);
/* The index of the GPU a scheme names by device id, or -1. */
int model_gpu_by_id(const struct scheme_node *info, const char *id);

/* model.c: a node as the model shows it, read by its scheme into *n: 1,
 * 0 when no scheme shares its GPUs (*n empty), -1 when out of memory.
 * Problems the scheme found go to w. */
int model_read_node(struct model *m, const struct k8s_node *node, struct model_node *n, struct warnings *w);
void model_node_free_fields(struct model_node *n);
/* Is the node among those the options name (or are none named)? */
bool model_node_selected(const struct model *m, const char *name);
/* Does the pod pass opts.pod_namespace? */
bool model_pod_in_namespace(const struct model *m, const struct k8s_pod *pod);

/* model_pod.c: the pod read by its scheme: 1, 0 when it holds nothing the
 * model counts (no scheme reads it, or it has finished), -1 when out of
 * memory.  Problems the scheme found go to w.  The reading points into pod. */
int model_read_pod(struct model *m, const struct k8s_pod *pod, struct pod_reading *r, struct warnings *w);
void model_pod_reading_release(struct pod_reading *r);
/* *mp filled with what a kept pod shows, in the scheme's count; -1 when out
 * of memory (*mp then empty). */
int model_fill_pod(struct model *m, struct model_pod *mp, const struct k8s_pod *pod, const struct pod_reading *r);
void model_pod_free_fields(struct model_pod *mp);
/* model_pod_free_fields for a pod of m, whose strings may be m's own. */
void model_pod_release(const struct model *m, struct model_pod *mp);
int model_copy_labels(struct kvlist *dst, const struct kvlist *src);

/* model_finish.c, the steps of a finish that the live model takes node by
 * node.  The cluster's unit, and each node's where --unit forces one. */
void model_decide_units(struct model *m);
/* The node's GPUs and figures from its accumulator (which stays as it is),
 * in the unit it is shown in; what is wrong with them goes to w.  -1 when
 * out of memory. */
int model_join_node(struct model *m, struct model_node *n, const struct node_acc *a, struct warnings *w);
/* "no longer offers shared GPU memory", for an accumulator whose node
 * stopped sharing while pods still hold shares on it. */
int model_acc_warning(const struct node_acc *a, struct warnings *w);
/* The unit a pod on no node counts in: the one the nodes of its scheme use
 * (GiB when they disagree, the ACK default), else the scheme's own. */
enum mem_unit model_scheme_unit(const struct model *m, const struct scheme *sc);
/* A kept pod's figures, still in its scheme's count, in the unit shown: its
 * node's (n), or for a pod on no node (n NULL) its scheme's. */
void model_settle_pod(struct model *m, struct model_pod *mp, const struct model_node *n);
/* The pods' shares of a node counted in MiB and shown in GiB, rounded so
 * that they add up to each GPU's; n->pods in namespace/name order. */
int model_round_node_pods(struct model *m, struct model_node *n);
/* A node's figures (n->pods_held pods) added to the totals and its unit's
 * (sign 1) or taken out (-1); and a pod on no node's. */
void model_count_node(struct model *m, const struct model_node *n, int sign);
void model_count_unscheduled(struct model *m, const struct model_pod *mp, int sign);
/* The flags and maxima a node raises (any_pending, any_core, max_gpus);
 * pods_core: a pod it lists holds a compute share (model_node_pods_core). */
void model_node_flags(struct model *m, const struct model_node *n, const struct node_acc *a, bool pods_core);
bool model_node_pods_core(const struct model *m, const struct model_node *n);
/* Warnings sorted by object, code and order of arrival, each once. */
int model_sort_warnings(struct warnings *w);
void model_append_warnings(struct warnings *dst, const struct warnings *src);

/* model_derive.c, per node and per pod.  The node's status, whether it takes
 * pods and the largest free memory on one of its GPUs. */
void model_derive_node(struct model_node *n);
/* m->frag, from the nodes' derived figures. */
void model_derive_frag(struct model *m);
/* Every node's common_request and stranded (model_strand.c). */
int64_t model_convert_mem(int64_t v, enum mem_unit from, enum mem_unit to);
void model_derive_stranded(struct model *m);
/* On no node, or on its node with no GPU chosen. */
bool model_pod_waits(const struct model_pod *p);
/* What a pod on no node asks, as fit reads it (r points into p, and for a
 * claim not allocated into m's objects); false when it asks nothing fit
 * can judge. */
bool model_pod_request(const struct model *m, const struct model_pod *p, struct fit_request *r);
/* The reason in one line, from fit's answer to the request; "on node X,
 * waiting for its GPU to be chosen".  malloc'd, NULL when out of memory. */
char *model_reason_text(const struct model *m, const struct fit_request *r, const struct fit_result *res);
/* A pod bound to a node without a GPU: fit's verdict on that node alone,
 * "on node X, waiting for its GPU to be chosen" only where a GPU there has
 * room for it. */
char *model_waiting_on_node(const struct model *m, const struct model_pod *p);

#endif
