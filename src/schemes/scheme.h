/* A GPU-sharing scheme: one decoder that reads what a sharing system writes
 * into node resources, labels and annotations and into pod limits and
 * annotations, and turns it into plain per-node, per-GPU figures.
 *
 * Adding a scheme means adding one scheme_*.c file with its const struct
 * scheme, listing it in schemes[] (scheme.c) and adding its fixtures.  The
 * model, the renderers and the live view only ever see these structs.
 *
 * Uses the client's object structs and quantities (kube.h) and warnings.h; no I/O.
 */
#ifndef SCHEME_H
#define SCHEME_H

#include <stdbool.h>
#include <stdint.h>

#include "kube.h"
#include "warnings.h"

/* The label that names a node's pool (ACK node pools): what --pool NAME means
 * and the pool the tables and groups show, unless told another key. */
#define POOL_LABEL "alibabacloud.com/nodepool-id"
/* Kubernetes' well-known label of a node's region. */
#define REGION_LABEL "topology.kubernetes.io/region"

/* How a node's figures are counted. */
enum mem_unit {
	UNIT_GIB,   /* memory in GiB (cGPU default) */
	UNIT_MIB,   /* memory in MiB */
	UNIT_SLOTS, /* no memory figure: whole GPUs or time-slicing replicas */
};

struct scheme_gpu {
	int index;
	char *id;   /* device UUID where the scheme names devices, else NULL */
	char *type; /* card model where known, else NULL */
	/* how the GPU is shared where the scheme says so per GPU (the MIG
	 * profiles and sharing strategies of what holds it), else NULL */
	char *sharing;
	int64_t mem_total;  /* in the node's unit; slots for UNIT_SLOTS */
	int64_t core_total; /* compute share in percent of one GPU (100), 0 if not shared */
	int64_t slots;	    /* vGPU / replica slots on this GPU, 0 if not counted */
	bool unhealthy, cordoned;
};

struct scheme_node {
	enum mem_unit unit;
	bool unit_from_label; /* unit decided from evidence (card-memory label), not guessed */
	bool per_gpu;	      /* per-GPU placement can be read from the API */
	int ngpus;
	struct scheme_gpu *gpus; /* ngpus entries (may be NULL if !per_gpu) */
	int64_t mem_total;	 /* allocatable, node's unit */
	int64_t mem_capacity;	 /* capacity; capacity - allocatable = withheld as unhealthy */
	int64_t core_total;	 /* percent, 0 if compute is not shared */
	char *mode;		 /* sharing mode as the labels say ("share", "cgpu", "core_mem", ...), or NULL */
	/* The mode in the words of the mode command (exclusive, share, isolate,
	 * core) where the scheme's labels set one; NULL: mode as it is. */
	const char *mode_word;
	bool exclusive;		 /* the labels say the GPUs are not shared: pods holding shares are left over */
	char *placement;	 /* "binpack", "spread", or NULL */
	bool spread;		 /* the placement puts a pod on the GPU with the most room */
	bool isolation;		 /* memory isolation is on */
	/* The card, from the node's labels whatever its scheme: its model, and
	 * its memory in MiB (0 when unknown). */
	char *card_model;
	int64_t card_mem_mib;
};

struct scheme_claim {
	int container;	       /* index into the pod's containers, -1 when per pod */
	int gpu;	       /* GPU index on the node; -1 = no GPU chosen yet (pending) */
	const char *device_id; /* the device named, or NULL; lives as long as the scheme_pod */
	int64_t mem, core;
};

/* How many GPUs a request may name: counts from outside are capped here. */
#define SCHEME_MAX_ASK_GPUS 64

/* What a pod asks of one node, as the placement rule reads it: memory (in
 * the scheme's own count) and compute share on each of gpus GPUs; a request
 * of whole GPUs names neither. */
struct scheme_ask {
	int64_t mem, core;
	int gpus; /* at least 1; 0 = not read */
};

struct scheme_pod {
	const char *node; /* node that holds the allocation (usually spec.nodeName); may be NULL */
	int64_t mem;	  /* whole pod, node's unit */
	int64_t core;	  /* whole pod, percent */
	int64_t *container_mem, *container_core; /* per container (pod->ncontainers entries) */
	struct scheme_claim *claims;		 /* where it sits; nclaims == 0 = not placed */
	size_t nclaims;
	bool assigned;	      /* the device plugin confirmed the allocation */
	struct scheme_ask ask; /* what it asks of a node it is not on yet */
	/* What the pod holds its devices through, as the views name it beside
	 * the pod (DRA: its claims, with how each is shared), or NULL; owned. */
	char *via;
	/* The name of a claim of the pod's that is not allocated yet (it
	 * waits for it), or NULL; lives as long as the objects read. */
	const char *claim_waiting;
};

/* One GPU as a placement rule sees it, in its node's unit. */
struct scheme_place_gpu {
	int index;
	int64_t mem_total, mem_allocated;
	int64_t core_total, core_allocated;
	int64_t slots; /* vGPU slots, 0 = not counted */
	size_t npods;  /* pods holding part of it */
	bool usable;   /* healthy and not cordoned */
};

/* A node as a placement rule sees it: its figures in the unit it is shown in. */
struct scheme_place_node {
	enum mem_unit unit;
	bool per_gpu, spread; /* as scheme_node says */
	int ngpus;
	const struct scheme_place_gpu *gpus; /* ngpus entries, NULL where the split is not published */
	int64_t mem_total, mem_allocated;
	int64_t core_total, core_allocated;
};

/* Why a request does not fit on a node the scheduler would otherwise take. */
enum scheme_misfit {
	SCHEME_FITS,
	SCHEME_MISFIT_FEW_GPUS, /* fewer usable GPUs than asked for */
	SCHEME_MISFIT_NO_CORE,	/* compute share asked, the node does not share compute */
	SCHEME_MISFIT_MEMORY,	/* no GPU (or not enough GPUs) with the memory free */
	SCHEME_MISFIT_CORE,	/* memory yes, compute share no */
	SCHEME_MISFIT_SLOTS,	/* no free vGPU slot, or whole GPU */
	SCHEME_MISFIT_CARD,	/* more than one GPU's memory */
};

/* Where a rule puts a request on one node. */
struct scheme_placement {
	enum scheme_misfit misfit;
	int *gpus; /* the GPU indexes chosen, in order (malloc'd); NULL for per-node rules */
	int ngpus;
	int64_t free_after;  /* free on the chosen GPUs, or on the node, once placed */
	bool unpublished;    /* the node's totals stood in for a per-GPU rule nobody publishes */
};

/* The sharing modes a scheme's node labels set, in the mode command's words. */
enum scheme_mode {
	SCHEME_MODE_UNKNOWN,
	SCHEME_MODE_EXCLUSIVE, /* whole GPUs, not shared */
	SCHEME_MODE_SHARE,     /* shared memory, no isolation */
	SCHEME_MODE_ISOLATE,   /* shared memory, isolated */
	SCHEME_MODE_CORE,      /* memory and compute isolated */
	SCHEME_NMODES,
};

/* One label a mode sets.  value NULL: the label is removed; absent: what
 * no label means to the device plugin, where that is a value. */
struct scheme_label {
	const char *key, *value, *absent;
};

/* One installation of a scheme's device plugin, with labels of its own. */
struct scheme_edition {
	const char *name, *title;    /* "pro", "ACK Pro (ack-ai-installer)" */
	const char *const *aliases;  /* other names it is asked for by, or NULL */
	const char *const *marks;    /* labels only its nodes carry; the first names it in messages */
	const char *placement_label; /* the label of binpack or spread, or NULL: no placement */
	/* The labels each mode sets, in order (key NULL ends them); a mode
	 * that sets none is not offered. */
	struct scheme_label sets[SCHEME_NMODES][2];
	/* The values of the first label are names of the modes too. */
	bool values_name_modes;
	/* What its share mode's labels mean, beside them in "how to share a
	 * node" hints: "ACK basic, ack-cgpu". */
	const char *hint;
	/* The mode the node's labels put it in; SCHEME_MODE_UNKNOWN when they
	 * are missing or say something the mode command does not manage. */
	enum scheme_mode (*mode_of)(const struct kvlist *labels);
};

/* How a scheme's nodes change sharing mode by label (the mode command). */
struct scheme_modes {
	const struct scheme_edition *editions;
	size_t neditions;
	const char *const *node_labels; /* every label the commands read of a node, NULL-terminated */
	const char *const *pin_labels;	/* labels a pod's selector pins it to a pool or mode with */
	const char *share_resource;	/* what pods ask for shared GPU memory with */
	const char *whole_resource;	/* what pods ask for whole GPUs with, in exclusive mode */
	const char *const *pod_resources; /* every resource of the modes' pods, NULL-terminated */
	/* A node whose labels set no mode at all: the word both the MODE
	 * column and the mode command's plan say for it. */
	bool (*labelled)(const struct kvlist *labels);
	const char *unlabelled;
};

/* What a load gathered beside nodes and pods, for the schemes whose devices
 * and allocations live in objects of their own: Dynamic Resource
 * Allocation's slices, claims and classes (scheme_dra.h), or NULL. */
struct dra_inventory;
struct scheme_objects {
	const struct dra_inventory *dra;
};

/* A device as a claim's selectors and requests see it (Dynamic Resource
 * Allocation), from a scheme whose devices are published in objects of
 * their own.  The strings and taints live as long as the objects the
 * scheme read them from. */
enum scheme_attr_type {
	SCHEME_ATTR_INT,
	SCHEME_ATTR_BOOL,
	SCHEME_ATTR_STRING,
	SCHEME_ATTR_VERSION,
	SCHEME_ATTR_NONE,
};

struct scheme_attr {
	const char *name; /* "DOMAIN/NAME", or "NAME" in the driver's domain */
	enum scheme_attr_type type;
	int64_t i;
	bool b;
	const char *s;
};

struct scheme_capacity {
	const char *name, *value; /* as published ("memory", "80Gi") */
	int64_t amount;		  /* value as a whole number (bytes for memory) */
	int64_t left;		  /* what allocations leave of it (a device that takes several) */
	bool left_known;	  /* false: allocations consume it by a measure not kept */
	/* Its requestPolicy, for a device that takes several allocations: a
	 * share is the request (or the default), raised to min and rounded up
	 * to a step from it, at most max (0: none); listed valid values are
	 * not read (policy_values). */
	bool has_policy, policy_values;
	int64_t policy_default, policy_min, policy_max, policy_step;
};

/* A part of a shared counter (a GPU's memory slices, multiprocessors) a device consumes. */
struct scheme_counter_use {
	size_t counter; /* index into scheme_devices.counters_left */
	int64_t amount;
};

struct scheme_device {
	const char *driver, *pool, *name;
	const char *gpu; /* the GPU it counts under (itself, a MIG device's parent), or NULL */
	struct scheme_attr *attrs;
	size_t nattrs;
	struct scheme_capacity *caps;
	size_t ncaps;
	struct scheme_counter_use *consumes;
	size_t nconsumes;
	const struct k8s_taint *taints;
	size_t ntaints;
	bool allow_multiple; /* takes several allocations, each a share of its capacity */
	bool in_use;	     /* allocated now */
	bool incomplete;     /* its pool lacks slices: more devices may exist */
	int64_t mem_mib;     /* its memory in MiB, 0 when none */
};

/* A node's devices, with what its shared counters have left. */
struct scheme_devices {
	struct scheme_device *devs;
	size_t n;
	int64_t *counters_left;
	size_t ncounters;
};

struct scheme {
	const char *name;  /* "cgpu", "cce", "hami", "volcano-vgpu", "nvidia" */
	const char *title; /* "Alibaba cGPU / gpushare" */
	const char *help;  /* one line: what the scheme's nodes and pods carry */
	/* What the decoders below read: the list decoders keep only these keys. */
	struct decode_filter node_fields, pod_fields;
	/* The unit of a pod on no node, when no node of the scheme says one. */
	enum mem_unit pod_unit;
	/* 1 and *out filled when the node offers this scheme, 0 when not, -1 on error.
	 * Problems that do not stop decoding go to w. */
	int (*node_decode)(const struct k8s_node *node, struct scheme_node *out, struct warnings *w);
	/* 1 and *out filled (the ask too) when the pod asks for this scheme's
	 * resources, else 0. */
	int (*pod_decode)(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w);
	/* A scheme whose devices are published in other objects than the node
	 * and whose allocations in other objects than the pod has these instead
	 * of node_decode and pod_decode: the same, reading those objects too
	 * (objs may be NULL: a cluster without them, where they answer 0). */
	int (*node_decode_in)(const struct scheme_objects *objs, const struct k8s_node *node, struct scheme_node *out,
			      struct warnings *w);
	int (*pod_decode_in)(const struct scheme_objects *objs, const struct k8s_pod *pod, struct scheme_pod *out,
			     struct warnings *w);
	/* The placement rule: where the ask (memory converted to the node's
	 * unit) goes on a node of this scheme, or why it cannot.  0, or -1
	 * when out of memory.  The rules the schemes share are in scheme_place.h. */
	int (*place)(const struct scheme_place_node *n, const struct scheme_ask *a, struct scheme_placement *ret);
	/* Claims of devices (Dynamic Resource Allocation), or NULL: a node's
	 * devices (0, or -1 when out of memory), released by
	 * node_devices_release; a DeviceClass's selectors (1 found, 0 not);
	 * the requests of a claim not allocated yet (1 found, 0 not). */
	int (*node_devices)(const struct scheme_objects *objs, const char *node, const struct kvlist *labels,
			    struct scheme_devices *ret);
	void (*node_devices_release)(struct scheme_devices *d);
	int (*device_class)(const struct scheme_objects *objs, const char *name,
			    const struct k8s_dra_selector **ret, size_t *ret_n);
	int (*claim_requests)(const struct scheme_objects *objs, const char *ns, const char *name,
			      const struct k8s_dra_request **ret, size_t *ret_n);
	/* An ask that names no memory takes a whole, unused GPU (not a slot). */
	bool whole_card_by_default;
	/* How the scheme's labels set sharing modes, or NULL when they do not. */
	const struct scheme_modes *modes;
};

/* What every scheme's nodes are read for beside their own fields: the card
 * labels behind scheme_node's card_model and card_mem_mib. */
extern const struct decode_filter scheme_card_fields;
/* The labels that name a node's card model, NULL-terminated. */
extern const char *const scheme_card_model_labels[];

/* All schemes, in detection order, NULL-terminated. */
extern const struct scheme *const schemes[];
const struct scheme *scheme_find(const char *name);
/* "cgpu, cce, volcano-vgpu, hami or nvidia": the table's names, for
 * messages.  malloc'd; NULL when out of memory. */
char *scheme_names_text(void);
/* The modes of the first scheme that sets modes by label, or NULL. */
const struct scheme_modes *scheme_modes_find(void);

/* Detection: the first scheme in schemes[] (only the one named only, when
 * only is not NULL) whose decoder accepts the node or pod fills *out and is
 * *ret_sc.  1 when one did, 0 when none did (*ret_sc NULL), -1 on error.
 * objs: what the load gathered beside nodes and pods, or NULL. */
int scheme_detect_node(const char *only, const struct scheme_objects *objs, const struct k8s_node *node,
		       struct scheme_node *out, struct warnings *w, const struct scheme **ret_sc);
int scheme_detect_pod(const char *only, const struct scheme_objects *objs, const struct k8s_pod *pod,
		      struct scheme_pod *out, struct warnings *w, const struct scheme **ret_sc);

void scheme_node_release(struct scheme_node *n);
void scheme_pod_release(struct scheme_pod *p);

/* "GiB", "MiB" or "slots". */
const char *mem_unit_name(enum mem_unit u);
/* "exclusive", "share", "isolate", "core", or "unknown". */
const char *scheme_mode_name(enum scheme_mode m);


#endif
