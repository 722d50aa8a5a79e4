/* The allocation model: per node, per GPU, which pods hold how much.
 *
 * Pure: no I/O.  Nodes and pods are added in any order, as the list decoders
 * deliver them (pods may arrive before their node); model_finish() joins,
 * sorts (nodes by name, pods by namespace then name) and computes totals and
 * warnings.  In summary mode pods are folded into per-GPU sums and dropped, so
 * memory follows nodes and GPUs, not pods.  The tables, JSON/YAML and the
 * live view all draw from this one model.
 *
 * Uses the client's object structs (kube.h) and the schemes (scheme.h); never I/O.
 */
#ifndef MODEL_H
#define MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube.h"
#include "scheme.h"
#include "warnings.h"

enum model_keep { MODEL_KEEP_MAYBE, MODEL_KEEP_YES, MODEL_KEEP_NO };

/* The annotation the kubelet puts on the mirror of a static pod. */
#define MODEL_MIRROR_ANNOTATION "kubernetes.io/config.mirror"

struct model_options {
	bool keep_pods;		    /* details, JSON, live view: remember each pod */
	const char *pod_namespace;  /* keep only this namespace's pods for display (NULL = all) */
	const char *const *nodes;   /* only these node names (NULL-terminated), NULL = all */
	const char *scheme;	    /* only this scheme (NULL = detect per node) */
	int force_unit;		    /* -1 = decide per node, else an enum mem_unit (GiB/MiB) */
	const char *pool_label;	    /* label key naming a node's pool (default POOL_LABEL) */
	bool scheduling;	    /* keep every node label and the taints (for fit checks) */
	bool owners;		    /* remember each kept pod's controlling workload (--by owner) */
	bool no_containers;	    /* kept pods without each container's name and share (the live view) */
	/* what the load gathered beside nodes and pods (Dynamic Resource
	 * Allocation), for the schemes that read it; NULL = nothing */
	const struct scheme_objects *objects;
	/* Drivers whose DRA devices are GPUs beside gpu.nvidia.com and those
	 * with a memory capacity (NULL-terminated), or NULL: given to the DRA
	 * inventory objects holds when it is built */
	const char *const *dra_drivers;
	bool movable;		    /* with scheduling, keep every pod's constraints (nodeSelector, affinity,
				     * tolerations), not only those of pods on no node (defrag) */
	/* With keep_pods, which pods on a node to keep (NULL = all); the
	 * others count in the per-GPU figures all the same.  MAYBE keeps a pod
	 * for now: at the first YES or NO, the pods kept on a MAYBE are asked
	 * again and those it now refuses are dropped. */
	enum model_keep (*keep_pod_if)(void *ud, const char *namespace, const char *name);
	void *keep_pod_ud;
};

struct model_pod_gpu {
	int gpu; /* -1 = pending (no GPU chosen) */
	const char *device_id;
	int64_t mem, core;
};

struct model_pod {
	char *namespace, *name, *uid, *phase, *node; /* node NULL = not scheduled */
	const struct scheme *scheme;
	int64_t mem, core; /* whole pod, in its node's unit */
	struct model_pod_gpu *gpus;
	size_t ngpus;
	char **container_names;
	int64_t *container_mem, *container_core;
	size_t ncontainers;
	bool assigned;
	enum mem_unit unit; /* of mem, gpus[].mem and container_mem: its node's, or its scheme's */
	char *owner; /* "Deployment/web", "Job/x", NULL = none (opts.owners) */
	char *via;   /* what it holds its devices through (scheme_pod.via), or NULL */
	/* Pods on no node, with opts.scheduling: the name of a claim of its
	 * (in its namespace) not allocated yet, whose requests fit judges for
	 * the reason it waits (Dynamic Resource Allocation), or NULL. */
	char *claim;
	/* Pods on no node, with opts.scheduling: what the pod asks of one node
	 * (memory in its scheme's own count, per GPU) and where it may go, for
	 * the reason it is pending (pending_reason). */
	struct scheme_ask ask; /* gpus 0 = not read */
	struct kvlist node_selector;
	struct k8s_toleration *tolerations;
	size_t ntolerations;
	struct k8s_node_term *node_terms; /* required node affinity */
	size_t nnode_terms;
	/* With opts.movable, what decides whether the pod may be moved
	 * (defrag): its labels (disruption budgets select by them), priority,
	 * the kind of its controlling owner (NULL: none), and whether it is a
	 * static pod's mirror. */
	struct kvlist labels;
	int64_t priority;
	char *controller_kind;
	bool mirror;
	/* GPU memory in use over the usage window (src/usage), when known */
	bool used_known;
	int64_t used_bytes;
	/* Derived: why it waits, in one line, for a pod on no node or without
	 * a GPU on its node (NULL when there is nothing to say). */
	char *pending_reason;
};

struct model_gpu {
	int index;
	const char *id, *type; /* the scheme's (the node's info.gpus), or NULL */
	int64_t mem_total, mem_allocated;
	int64_t core_total, core_allocated;
	int64_t slots, slots_used;
	bool unhealthy, cordoned;
	size_t npods; /* pods holding part of this GPU */
	/* What the usage source measured (src/usage), each when known: memory
	 * in use (highest over the window), the card's memory, utilisation in
	 * percent (average over the window). */
	bool used_known, total_known, util_known;
	int64_t used_bytes, total_bytes;
	double util;
};

/* Room for the longest status: NotReady,SchedulingDisabled and both GPU counts. */
#define MODEL_STATUS_MAX 72

struct model_node {
	char *name, *ip; /* ip "unknown" when the node has no InternalIP */
	const struct scheme *scheme;
	struct scheme_node info; /* what the scheme read (unit, mode, totals, ...) */
	enum mem_unit unit;	 /* unit shown (after --unit) */
	struct model_gpu *gpus;
	int ngpus;
	int64_t mem_total, mem_allocated, mem_pending; /* pending = held without a GPU index */
	int64_t mem_unhealthy;
	int64_t core_total, core_allocated;
	char *pool;
	const char *gpu_model; /* info.card_model */
	int64_t card_mem_mib;  /* info.card_mem_mib: 0 if unknown */
	struct kvlist labels; /* the node's labels as kept by the filter (for -o wide and the live view) */
	bool ready, unschedulable; /* condition Ready; spec.unschedulable (cordoned) */
	struct k8s_taint *taints;  /* with opts.scheduling */
	size_t ntaints;
	size_t *pods;	      /* indices into model.pods, sorted namespace/name */
	size_t npods;
	size_t pods_held;     /* pods holding GPU resources here, kept or not */
	int64_t used_bytes; /* sum over the GPUs whose use is known */
	int gpus_used_known;
	/* Derived: "Ready", "NotReady", "Ready,SchedulingDisabled", with
	 * ",1 GPU unhealthy" or ",2 GPU cordoned" where the scheme says so;
	 * whether it takes new pods (Ready and not cordoned); the largest free
	 * memory on one usable GPU (of the node, never more than a card, where
	 * the split is not published), -1 when no GPU is usable. */
	char status[MODEL_STATUS_MAX];
	bool schedulable;
	int64_t largest_free;
	/* Derived: the most common memory a pod of its pool (on nodes of its
	 * unit, kept or not) asks of one GPU, 0 when none asks any or the node
	 * counts slots, and the free memory here that cannot host it: all of
	 * it on a node that takes no pods or a GPU that takes none, else what
	 * each GPU has beyond a whole number of such requests. */
	int64_t common_request;
	int64_t stranded;
};

struct model_totals {
	enum mem_unit unit; /* the one unit of mem_* below */
	bool mixed_units;   /* nodes are shown in more than one unit; where GiB and MiB meet,
			     * these cluster totals are in MiB (nodes keep their own unit) */
	int64_t mem_total, mem_allocated;
	int64_t mem_free;	/* the sum of the nodes' model_node_free */
	int64_t mem_pending;	/* asked for by pods on no node (not in mem_allocated) */
	int64_t mem_unassigned; /* held on nodes by pods without a GPU index (in mem_allocated) */
	int64_t core_total, core_allocated;
	size_t nodes, gpus, pods, unscheduled;
	int64_t mem_unhealthy;
};

/* Derived: what fragmentation leaves of the nodes shown in one unit of
 * memory: the largest request that fits on one GPU of a node that takes
 * pods now (0 when none has room), on how many GPUs (or nodes, where the
 * split is not published), and the free memory of the nodes that cannot
 * take pods, which no request gets. */
struct model_frag {
	int64_t largest;
	size_t gpus;
	int64_t free_unschedulable;
	size_t unschedulable_nodes;
	int64_t stranded; /* the nodes' model_node.stranded, summed */
};

/* The nodes shown in one unit, and the unscheduled pods asking in it: the
 * tables print one block per unit so that a column never mixes units. */
struct model_unit_group {
	struct model_totals totals; /* totals.unit is the group's unit; totals.nodes 0 = no such nodes */
	int max_gpus;
	bool any_pending, any_core;
};

struct model {
	struct model_options opts;
	struct model_node *nodes; /* sorted by name after model_finish */
	size_t nnodes;
	struct model_pod *pods;
	size_t npods;
	size_t *unscheduled; /* pods asking for GPU resources with no node yet */
	size_t nunscheduled;
	/* Derived: the pods that wait, on no node or on their node with no
	 * GPU chosen yet, in namespace/name order (indices into pods). */
	size_t *waiting;
	size_t nwaiting;
	struct model_totals totals;
	int max_gpus; /* largest GPU count of any node: number of GPU columns */
	bool any_pending, any_core;
	/* some figure counted in MiB is shown in GiB and lost a part of a GiB:
	 * each GPU is rounded down (as the device plugin counts GiB), every
	 * sum is the sum of the rounded parts */
	bool rounded;
	struct warnings warnings;
	/* Filled by usage_apply() (src/usage) when a usage source is configured:
	 * the renderers then show memory in use beside the allocation. */
	struct {
		bool configured;
		size_t gpus_known, gpus_unknown;
		struct warnings findings; /* OverUse, Idle, Unaccounted */
	} usage;
	/* the API version Dynamic Resource Allocation was read in
	 * ("resource.k8s.io/v1"), or NULL when it was not; static */
	const char *dra_api_version;
	struct model_private *priv;
	struct model_unit_group units[UNIT_SLOTS + 1]; /* indexed by enum mem_unit */
	struct model_frag frag[UNIT_SLOTS];	       /* derived, per unit of memory */
};

int model_init(struct model *m, const struct model_options *opt);
/* Neither takes ownership: the model copies what it keeps, so the live view
 * can rebuild a model from its own store of objects. */
int model_add_node(struct model *m, struct k8s_node *node, struct kerr *err);
int model_add_pod(struct model *m, struct k8s_pod *pod, struct kerr *err);
/* Drop everything added so far (a list restarted after 410 Expired). */
void model_reset_nodes(struct model *m);
void model_reset_pods(struct model *m);
/* Join, sort and total what was added, then derive the figures every
 * renderer reads (model_derive). */
int model_finish(struct model *m, struct kerr *err);
void model_release(struct model *m);

/* The derived figures (node status, whether a node takes pods, the largest
 * free on one GPU, fragmentation per unit, why each waiting pod waits),
 * computed once from the nodes, GPUs and pods, before any renderer reads
 * them.  model_finish ends with it; a model put together by hand calls it,
 * and model_derived_release frees what it made.  A reason that cannot be
 * made for lack of memory is left out, as a warning would be. */
void model_derive(struct model *m);
/* One node's derived figures again, after what its GPUs hold changed (a
 * pod placed by fit's sequence or a move of defrag's plan). */
void model_node_derive(struct model_node *n);
void model_derived_release(struct model *m);

/* Free memory, by one rule everywhere: a GPU's is max(0, total - allocated),
 * so that one allocated beyond its total takes nothing from the others; a
 * node's is the sum of its GPUs' (plus any of its total no GPU accounts
 * for), or max(0, total - allocated) where the split is not published;
 * memory held without a GPU index is taken from no GPU's. */
int64_t model_gpu_free(const struct model_gpu *g);
int64_t model_node_free(const struct model_node *n);

/* Is the GPU one a pod can be placed on? */
static inline bool model_gpu_usable(const struct model_gpu *g)
{
	return !g->unhealthy && !g->cordoned;
}

/* The filter the list decoders should use for nodes and pods: the union of
 * every scheme's fields plus what the model itself reads. */
const struct decode_filter *model_node_filter(const struct model *m);
const struct decode_filter *model_pod_filter(const struct model *m);

/* Lookup after model_finish: NULL when absent. */
const struct model_node *model_find_node(const struct model *m, const char *name);

#endif
