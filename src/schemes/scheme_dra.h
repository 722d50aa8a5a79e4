/* Dynamic Resource Allocation: the devices of a node as its ResourceSlices
 * publish them, and what the ResourceClaims allocated on each.
 *
 * Unlike the other schemes, a node's devices come from objects other than
 * the node: an inventory takes the slices, claims and classes as they are
 * listed, resolves the pools once (dra_inventory_finish), and then answers,
 * per node, which devices it has (dra_node_devices): driver, typed
 * attributes and capacities as published, whether it is a GPU, a MIG
 * device's parent, its taints, and the claims allocated on it with the
 * pods they are reserved for, the sharing strategy their configuration
 * sets, and the memory they consume.
 *
 * Uses the client's object structs and quantities (kube.h) and warnings.h; no I/O.
 */
#ifndef SCHEME_DRA_H
#define SCHEME_DRA_H

#include <stdbool.h>
#include <stdint.h>

#include "dra_claim.h"
#include "kube.h"
#include "scheme.h"
#include "warnings.h"

/* NVIDIA's GPU DRA driver, and the names it gives its devices' attributes */
#define DRA_GPU_DRIVER "gpu.nvidia.com"
#define DRA_ATTR_UUID "uuid"
#define DRA_ATTR_PARENT_UUID "parentUUID"
#define DRA_CAPACITY_MEMORY "memory"
#define DRA_ATTR_PRODUCT "productName"
#define DRA_ATTR_PROFILE "profile"
#define DRA_ATTR_TYPE "type" /* "gpu", "mig" */
#define DRA_TYPE_GPU "gpu"

/* One allocation of a device: a claim's result, and the configuration
 * that applies to it (FromClaim before FromClass), or NULL. */
struct dra_use {
	const struct dra_claim *claim;
	const struct dra_claim_result *result;
	const struct dra_sharing *config;
	int64_t mem_bytes; /* consumedCapacity memory where shared by capacity, else 0 */
};

/* A claim's result, in the inventory's index of results by device. */
struct dra_result_ref {
	const struct dra_claim *claim;
	const struct dra_claim_result *result;
};

/* A device of the newest generation of its pool, as dra_inventory_finish
 * indexes it: its MIG parent's name where it has one, and the claims'
 * results on it, in the claims' order.  Its slice's driver and pool are
 * kept once, as the claims' results name them. */
struct dra_index_entry {
	const struct k8s_resource_slice *slice;
	const struct k8s_dra_device *dev;
	const char *parent;
	const char *gpu_id; /* the GPU a claim on it holds, as dra_gpu_id names it (its MIG parent's) */
	int64_t mem_bytes;  /* its memory capacity, where has_memory */
	uint32_t first_use, nuses; /* its results: inventory's uses[first_use...] */
	bool incomplete, has_memory;
};

/* A slice named for one node, by the node's name. */
struct dra_node_slice {
	const char *node;
	size_t slice;
};

struct dra_device {
	const struct k8s_resource_slice *slice; /* driver, pool */
	const struct k8s_dra_device *dev;	/* name, attributes, capacity, taints */
	bool gpu;				/* of a GPU driver, or with a memory capacity */
	bool incomplete;			/* its pool lacks slices of its generation */
	const char *parent;			/* a MIG device's GPU (device name), or NULL */
	int64_t mem_bytes;			/* its memory capacity, 0 when none */
	const struct dra_use *uses;
	size_t nuses;
};

struct dra_inventory {
	struct k8s_resource_slice **slices;
	size_t nslices, cap_slices;
	/* the claims, folded as they arrive into records in claim_arena */
	struct dra_claim **claims;
	size_t nclaims, cap_claims;
	struct dra_arena claim_arena;
	struct k8s_device_class **classes;
	size_t nclasses, cap_classes;
	const char *const *gpu_drivers; /* more drivers whose devices are GPUs (--dra-driver), or NULL */
	/* per slice, after dra_inventory_finish: an older generation of its
	 * pool (ignored), or of a pool missing slices */
	bool *stale, *incomplete;
	/* after dra_inventory_finish: the claims sorted by namespace and name
	 * and found by them (claim_slots: open addressing, 1 + a claim's place,
	 * 0 for none), the devices of the newest generations (per slice, the
	 * place of its first device in index, SIZE_MAX for a stale slice) found
	 * by driver, pool and name (device_slots, likewise), and every claim's
	 * results on them (uses, each device's in one run) */
	uint32_t *claim_slots;
	size_t cap_claim_slots;
	struct dra_index_entry *index;
	size_t nindex;
	size_t *slice_entry;
	uint32_t *device_slots;
	size_t cap_device_slots;
	struct dra_result_ref *uses;
	/* the slices of the newest generations: those named for one node,
	 * by node name, and those placed by selector or on all nodes */
	struct dra_node_slice *by_node;
	size_t *elsewhere;
	size_t nby_node, nelsewhere;
	/* the claims not allocated yet, as listed (a dra_claim's waiting) */
	struct k8s_resource_claim **waiting;
	size_t nwaiting, cap_waiting;
};

/* Take an object as a list delivers it (owned from then on; a claim is
 * folded into a dra_claim and freed).  -1 when out of memory. */
int dra_inventory_add_slice(struct dra_inventory *inv, struct k8s_resource_slice *s);
int dra_inventory_add_claim(struct dra_inventory *inv, struct k8s_resource_claim *c);
int dra_inventory_add_class(struct dra_inventory *inv, struct k8s_device_class *c);
/* Every object has arrived: the pools' completeness, with a warning
 * (IncompletePool) per pool that lacks slices of its newest generation. */
int dra_inventory_finish(struct dra_inventory *inv, struct warnings *w);
void dra_inventory_release(struct dra_inventory *inv);

/* The devices of node name with labels (for slices placed by a node
 * selector): those of the newest generation of each pool its slices
 * place there (nodeName, nodeSelector or allNodes), each with its uses.
 * *ret (malloc'd, with the uses) for dra_devices_free. */
int dra_node_devices(const struct dra_inventory *inv, const char *name, const struct kvlist *labels,
		     struct dra_device **ret, size_t *ret_n);
void dra_devices_free(struct dra_device *d, size_t n);

/* Whether driver's devices are GPUs: NVIDIA's GPU driver, or one of
 * inv->gpu_drivers. */
bool dra_gpu_driver(const struct dra_inventory *inv, const char *driver);
/* The configuration of claim c that applies to its result r: FromClaim
 * before FromClass, the result's request named or none; NULL when none. */
const struct dra_sharing *dra_config_of(const struct dra_claim *c, const struct dra_claim_result *r);
/* Quantity q in bytes (its integer value); 0 when absent or unreadable. */
int64_t dra_quantity_bytes(const char *q);

/* What the lists of slices and claims keep: for the views, the attributes
 * the scheme reads and the slices' node selectors; for fit (full), every
 * attribute and what each claim asks in detail. */
extern const struct decode_filter dra_slice_fields, dra_slice_fields_full;
extern const struct decode_filter dra_claim_fields, dra_claim_fields_full;

/* The hooks of claims of devices (scheme.h): a node's devices with what
 * is left of them, a class's selectors, a waiting claim's requests. */
int dra_fit_node_devices(const struct scheme_objects *objs, const char *node, const struct kvlist *labels,
			 struct scheme_devices *ret);
void dra_fit_devices_release(struct scheme_devices *d);
int dra_fit_device_class(const struct scheme_objects *objs, const char *name, const struct k8s_dra_selector **ret,
			 size_t *ret_n);
int dra_fit_claim_requests(const struct scheme_objects *objs, const char *ns, const char *name,
			   const struct k8s_dra_request **ret, size_t *ret_n);

/* The scheme's row (scheme.c lists it). */
extern const struct scheme scheme_dra;

/* The first of the slices named for one node (by_node) whose node is name
 * or after. */
size_t dra_by_node_first(const struct dra_inventory *inv, const char *name);

/* The claim namespace/name, and the device a result names; NULL when absent. */
const struct dra_claim *dra_claim_find(const struct dra_inventory *inv, const char *ns, const char *name);
const struct dra_index_entry *dra_device_find(const struct dra_inventory *inv, const char *driver, const char *pool,
					      const char *device);

/* What the views name a GPU device of slice s by: its name where its pool
 * is its node's own (placed by nodeName on the node the pool is named
 * after, as NVIDIA's driver publishes one pool per node), else POOL/NAME,
 * so that devices of one name in two pools on a node, or in a pool several
 * nodes reach, are told apart.  malloc'd; NULL when out of memory. */
char *dra_gpu_id(const struct k8s_resource_slice *s, const char *name);

/* An attribute of a device by its name, with or without the driver's domain
 * ("uuid" or "gpu.nvidia.com/uuid"); NULL when absent. */
const struct k8s_dra_value *dra_attribute(const struct k8s_resource_slice *s, const struct k8s_dra_device *d,
					  const char *name);

#endif
