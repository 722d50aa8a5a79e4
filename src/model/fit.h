/* Would a pod fit now, where, and if not why: the scheduler's node checks
 * and each node's scheme's placement rule (scheme.h: `place`), applied to a
 * finished model.  Pure: a model and a request in, an answer out.
 *
 * Node checks, in the scheduler's order: Ready, not cordoned, every
 * NoSchedule/NoExecute taint tolerated, nodeSelector, required node
 * affinity.  Then the scheme's rule, handed the node's figures and the
 * request in the node's unit.
 */
#ifndef FIT_H
#define FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube.h"
#include "model.h"

/* What the memory figure of a request counts. */
enum fit_mem_unit {
	FIT_MEM_NODE, /* in each node's own unit (GiB or MiB), as a limit is written */
	FIT_MEM_MIB,  /* MiB, converted to each node's unit (rounded up) */
};

struct fit_request {
	const char *scheme; /* only nodes of the scheme of this name; NULL = every node that counts memory
			     * (or, for a request of whole GPUs only, every slot node) */
	int64_t mem;	    /* on each GPU; 0 = none (whole card for hami/volcano-vgpu) */
	enum fit_mem_unit mem_unit;
	int64_t core; /* percent of each GPU; 0 = none */
	int gpus;     /* GPUs (or slots) wanted, at least 1 */
	const struct kvlist *node_selector;
	const struct k8s_node_term *terms;
	size_t nterms;
	const struct k8s_toleration *tols;
	size_t ntols;
	/* A claim of devices (Dynamic Resource Allocation) instead of memory:
	 * its requests, each of a DeviceClass, a count, CEL selectors and
	 * capacity requests, judged on the nodes of a scheme that publishes
	 * devices (scheme.h: node_devices).  nclaim 0 = not a claim. */
	const struct k8s_dra_request *claim;
	size_t nclaim;
	const char *claim_name; /* the claim's name, for words, or NULL */
	/* A pod already bound to this node, waiting for its GPU: only this
	 * node, and only its scheme's rule (the scheduler's checks are behind
	 * it).  NULL = every node. */
	const char *node;
};

enum fit_reason {
	FIT_REASON_SCHEME,	/* the node does not share GPUs the pod's way */
	FIT_REASON_NOT_READY,
	FIT_REASON_CORDONED,
	FIT_REASON_TAINT,	/* detail: the first taint not tolerated */
	FIT_REASON_SELECTOR,	/* detail: the first nodeSelector entry not matched */
	FIT_REASON_AFFINITY,
	FIT_REASON_FEW_GPUS,	/* fewer healthy GPUs than asked for */
	FIT_REASON_NO_CORE,	/* compute share asked, the node does not share compute */
	FIT_REASON_MEMORY,	/* no GPU (or not enough GPUs) with the memory free */
	FIT_REASON_CORE,	/* memory yes, compute share no */
	FIT_REASON_SLOTS,	/* no free vGPU slot / whole GPU */
	FIT_REASON_CARD,	/* more than one GPU's memory (cce) */
	/* a claim of devices; detail: the reason in words */
	FIT_REASON_NO_DEVICE,	    /* no device of the class */
	FIT_REASON_DEVICE_SELECTOR, /* devices of the class, none the request's selectors match */
	FIT_REASON_FEW_DEVICES,	    /* fewer free devices that match than asked for */
	FIT_REASON_DEVICE_TAKEN,    /* those that match are allocated and not shareable */
	FIT_REASON_DEVICE_CAPACITY, /* not enough capacity left on those that match */
	FIT_REASON_DEVICE_TAINT,    /* those that match are tainted NoSchedule/NoExecute */
	FIT_REASON_UNKNOWN,	    /* a selector not evaluated, a pool incomplete: may fit, never counted so */
	FIT_REASON_COUNT
};

struct fit_place {
	size_t node;	    /* index into model.nodes */
	int *gpus;	    /* GPU indexes chosen, in order; NULL for per-node schemes */
	int ngpus;
	int64_t free_after; /* on the chosen GPUs (or the node), node's unit */
	int64_t largest_free; /* largest free on one usable GPU before placing */
	bool unsure;	      /* the node's scheme does not publish its per-GPU rule: it may fit */
	char *devices;	      /* a claim's: the devices chosen ("gpu-2,gpu-3"), malloc'd; else NULL */
};

struct fit_group {
	enum fit_reason reason;
	char *detail;	/* taint or selector entry, or NULL */
	enum mem_unit unit;
	size_t count;
	int64_t largest_free; /* FIT_REASON_MEMORY: largest free on one GPU of these nodes */
	const char *first;    /* the first node (by name) for this reason */
};

struct fit_result {
	struct fit_place *fits; /* best first, those it may fit on (unsure) last */
	size_t nfits;
	size_t nsure; /* the first nsure of fits: where it fits for certain (the verdict) */
	struct fit_group *groups; /* most nodes first */
	size_t ngroups;
	size_t considered; /* nodes looked at */
	bool unpublished;  /* a node's scheme does not publish its per-GPU rule (cce) */
	size_t nunknown;   /* nodes of FIT_REASON_UNKNOWN: neither a place nor a no */
};

/* A claim's DeviceClass is known to the model's objects (a claim of an
 * unknown class is refused before it is checked). */
bool fit_claim_class_known(const struct model *m, const char *name);

/* --memory as kubectl reads a quantity: with a binary or decimal suffix
 * (12Gi, 512Mi, 16G) a size, in MiB rounded up (FIT_MEM_MIB); a plain
 * number (12, 1e3) a whole count in each node's unit (FIT_MEM_NODE).  A
 * fraction without a unit, zero, a negative or malformed value is refused:
 * -1 with *why saying how to write it (malloc'd, NULL when out of memory). */
int fit_parse_memory(const char *v, int64_t *ret_mem, enum fit_mem_unit *ret_unit, char **why);

/* Check every node of the model.  Returns 0, or -1 when out of memory. */
int fit_check(const struct model *m, const struct fit_request *r, struct fit_result *ret);
void fit_result_release(struct fit_result *r);

/* The two halves of fit_check, for a caller that keeps each node's verdict
 * and judges again only the nodes that changed (the live view's reasons). */
/* The verdict on a node a check leaves out (fit_request.node names another). */
#define FIT_VERDICT_SKIP (-2)

struct fit_verdict {
	int reason;		/* an enum fit_reason, -1: the pod fits, or FIT_VERDICT_SKIP */
	char *detail;		/* the taint or nodeSelector entry not matched, or NULL */
	struct fit_place place; /* where, when it fits */
	bool unpublished;	/* the node's scheme does not publish its per-GPU rule */
};

/* Node `node` of m judged for the request.  0, or -1 when out of memory. */
int fit_judge(const struct model *m, size_t node, const struct fit_request *r, struct fit_verdict *ret);
void fit_verdict_release(struct fit_verdict *v);
/* fit_check's answer from verdicts[i], the verdict on node i of m, for
 * every node; the verdicts stay the caller's.  0, or -1 when out of memory. */
int fit_gather(const struct model *m, const struct fit_verdict *verdicts, struct fit_result *ret);

/* One node's verdict on r, by the same checks: 1 with *ret (gpus
 * malloc'd) where it fits for certain, 0 where not (*reason: -1 for a
 * place it only may fit), -1 when out of memory. */
int fit_node(const struct model *m, const struct fit_request *r, size_t node, struct fit_place *ret, int *reason);

/* What a pod of r placed at p takes of its node in m, as a pod already
 * there holds it (its GPUs' memory, compute and slots, the node's totals),
 * and the node's derived figures after it. */
void fit_take(struct model *m, const struct fit_request *r, const struct fit_place *p);

/* Pods placed one after another, each taking its place before the next. */
struct fit_sequence {
	size_t asked;		  /* pods to place */
	size_t placed;		  /* the first `placed` found a place */
	struct fit_place *places; /* where, in order (placed entries) */
	struct fit_result rest;	  /* the check that found no place for the next, when placed < asked */
};

/* Place n pods of r in m, each where fit_check puts it first; n < 0 is
 * one pod on each node that passes the node checks (a DaemonSet's).  m
 * changes: each placed pod is taken.  0, or -1 when out of memory. */
int fit_sequence(struct model *m, const struct fit_request *r, long n, struct fit_sequence *ret);
void fit_sequence_release(struct fit_sequence *s);

/* Is the reason one of room on the node (its GPUs, memory, compute,
 * slots), not of the node checks before it? */
bool fit_reason_is_room(enum fit_reason reason);
/* The request's memory in the unit a node is shown in (native: the unit
 * its scheme counts in). */
int64_t fit_need_in(const struct fit_request *r, enum mem_unit native, enum mem_unit shown);

/* "no GPU with 12 GiB free (largest free on one GPU: 9 GiB)", "cordoned",
 * ...: one line for a group, malloc'd. */
char *fit_group_text(const struct fit_group *g, const struct fit_request *r);
/* The reason's short name for JSON ("NotReady", "Cordoned", ...). */
const char *fit_reason_name(enum fit_reason reason);

/* The request a pod makes (its limits read by the first scheme that knows
 * them, or only by `only`), with its nodeSelector, affinity and
 * tolerations; r points into pod.  1 and *ret_sc set, 0 when no scheme
 * reads the pod's limits, -1 when out of memory. */
int fit_request_from_pod(const struct k8s_pod *pod, const char *only, struct fit_request *r,
			 const struct scheme **ret_sc, struct warnings *w);

#endif
