/* Plain C views of the resource.k8s.io kinds (Dynamic Resource
 * Allocation): ResourceSlice, ResourceClaim and DeviceClass, in the shape
 * of v1 whichever version they were read in (v1beta1 keeps a device's
 * fields under "basic" and a request's without "exactly"; the decoders
 * fold both into these structs).
 *
 * Included by objects.h, after the types these build on; every string is
 * owned by the object and freed by its *_free().
 */
#ifndef OBJECTS_DRA_H
#define OBJECTS_DRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A named value: a device attribute (one of int, bool, string, version,
 * has_* telling which), or a capacity or a counter (quantity, as the API
 * wrote it).  name is the map's key and must stay the first member: the
 * decoders put a map entry's key there. */
struct k8s_dra_value {
	char *name;
	char *str, *version, *quantity;
	int64_t i;
	bool b;
	bool has_int, has_bool, has_str, has_version;
};

/* A device's capacity: its value, and its requestPolicy (the default
 * share, the valid range, quantities as written, and how many validValues
 * it lists: only the count is read, in protobuf each is a Quantity
 * message).  name must stay the first member, as in k8s_dra_value. */
struct k8s_dra_capacity {
	char *name;
	char *quantity;
	char *policy_default, *policy_min, *policy_max, *policy_step;
	char **policy_values;
	size_t npolicy_values;
};

/* consumesCounters[] of a device, and sharedCounters[] of a slice. */
struct k8s_dra_counters {
	char *name; /* the counter set's name */
	struct k8s_dra_value *counters;
	size_t ncounters;
};

struct k8s_dra_device {
	char *name;
	struct k8s_dra_value *attrs;
	size_t nattrs;
	struct k8s_dra_capacity *capacity;
	size_t ncapacity;
	struct k8s_dra_counters *consumes;
	size_t nconsumes;
	struct k8s_taint *taints;
	size_t ntaints;
	bool allow_multiple; /* allowMultipleAllocations: shared by capacity */
	char *node_name;     /* with the slice's perDeviceNodeSelection */
	bool all_nodes;
};

struct k8s_resource_slice {
	char *name, *uid, *resource_version;
	struct kvlist labels, annotations;
	char *driver, *pool;
	int64_t generation, slice_count; /* pool.generation, pool.resourceSliceCount */
	char *node_name;
	bool all_nodes, per_device_nodes;
	struct k8s_node_term *node_terms; /* spec.nodeSelector's terms (matchExpressions, matchFields) */
	size_t nnode_terms;
	struct k8s_dra_device *devices;
	size_t ndevices;
	struct k8s_dra_counters *counter_sets;
	size_t ncounter_sets;
	bool shared_strings; /* its pool's and devices' strings are kept elsewhere: k8s_resource_slice_share */
};

/* A CEL device selector. */
struct k8s_dra_selector {
	char *expression;
};

/* A request of a claim: v1's exactly, or v1beta1's flat request. */
struct k8s_dra_request {
	char *name, *class_name, *allocation_mode;
	int64_t count;
	bool admin_access;
	struct k8s_dra_selector *selectors;
	size_t nselectors;
	struct kvlist capacity; /* capacity.requests: quantities as written */
	struct k8s_toleration *tolerations; /* of device taints, the fields of a pod's */
	size_t ntolerations;
};

/* An opaque configuration (a claim's, an allocation's or a class's), with
 * the type of its parameters and what they say of sharing, where they
 * carry sharing.strategy, a time-slicing interval, an MPS thread
 * percentage and pinned memory limit. */
struct k8s_dra_config {
	char *source; /* an allocation's: "FromClass" or "FromClaim" */
	char **requests;
	size_t nrequests;
	char *driver;
	char *api_version, *kind;
	char *strategy, *interval, *mps_memory_limit;
	int64_t mps_threads;
	bool has_mps_threads;
};

/* status.allocation.devices.results[] */
struct k8s_dra_result {
	char *request, *driver, *pool, *device;
	struct kvlist consumed; /* consumedCapacity */
};

/* status.reservedFor[]: the pods, in the claim's namespace */
struct k8s_dra_consumer {
	char *name;
};

/* What is kept of a claim is what the views need of each of a cluster's
 * claims (as many as the pods that hold devices); what it asks in detail
 * (the requests' selectors, its own configuration) is kept when the filter
 * asks for scheduling fields. */
struct k8s_resource_claim {
	char *namespace, *name;
	char *resource_version;
	struct kvlist labels, annotations;
	bool deleting;
	struct k8s_dra_request *requests; /* with scheduling fields */
	size_t nrequests;
	struct k8s_dra_config *configs; /* spec.devices.config */
	size_t nconfigs;
	struct k8s_dra_result *results;
	size_t nresults;
	struct k8s_dra_config *alloc_configs;
	size_t nalloc_configs;
	struct k8s_dra_consumer *reserved;
	size_t nreserved;
};

struct k8s_device_class {
	char *name, *uid, *resource_version;
	struct kvlist labels, annotations;
	struct k8s_dra_selector *selectors;
	size_t nselectors;
	struct k8s_dra_config *configs;
	size_t nconfigs;
	char *extended_resource; /* extendedResourceName */
};

void k8s_resource_slice_free(struct k8s_resource_slice *s);
/* The arrays of a decoded slice's devices (grown by doubling as they were
 * read) cut to their lengths: a slice that is kept takes no room it does
 * not use.  Nothing is added to them afterwards. */
void k8s_resource_slice_shrink(struct k8s_resource_slice *s);
/* The strings of a slice's pool (driver and name) and of its devices
 * (names, attributes, capacities and their policies) replaced by what keep
 * returns for each, which must outlive the slice: slices repeat them
 * device after device.  Freeing the
 * slice then leaves them to keep's owner.  -1 when keep fails (NULL, out
 * of memory): the slice is then left as it was. */
int k8s_resource_slice_share(struct k8s_resource_slice *s, const char *(*keep)(void *ud, const char *str), void *ud);
void k8s_resource_claim_free(struct k8s_resource_claim *c);
void k8s_device_class_free(struct k8s_device_class *c);
/* The value named name in a list of them; NULL when absent. */
const struct k8s_dra_value *k8s_dra_value_get(const struct k8s_dra_value *v, size_t n, const char *name);
const struct k8s_dra_capacity *k8s_dra_capacity_get(const struct k8s_dra_capacity *c, size_t n, const char *name);

#endif
