/* The table of kept fields (decode_fields.h).
 *
 * Field numbers are those of the published generated.proto files of
 * k8s.io/api (core/v1) and k8s.io/apimachinery (meta/v1, runtime,
 * api/resource); JSON keys those of the same types.  A field whose key or
 * number is missing here is in one encoding only.
 */
#include "decode_fields.h"

#include <stddef.h>

/* A required node affinity is kept when the filter asks for scheduling
 * fields, bounded against hostile input: at most this many terms a pod,
 * expressions a term and values an expression; the rest is read past, and
 * a pod with more is checked against the part kept. */
#define MAX_TERMS 8
#define MAX_EXPRS 16
#define MAX_VALUES 32
/* A pod's claims, a container's, and the requests the scheduler mapped */
#define MAX_POD_CLAIMS 64

#define OMIT DECODE_OMIT_EMPTY
#define SCHED_ONLY DECODE_SCHED_ONLY
#define NODE_SELECTION DECODE_NODE_SELECTION

/* A row: the JSON key, the protobuf number, and where member m of struct T
 * (the struct being filled) takes the value. */
#define ROW(key, num, t) .json = key, .json_len = sizeof(key) - 1, .pb = num, .type = t
#define AT(T, m) .at = offsetof(T, m)

#define STR(key, num, T, m, fl) {ROW(key, num, D_STR), AT(T, m), .flags = fl}
#define MATCH(key, num, T, m, text) {ROW(key, num, D_MATCH), AT(T, m), .match = text, .match_len = sizeof(text) - 1}
#define BOOL(key, num, T, m) {ROW(key, num, D_BOOL), AT(T, m)}
#define INT(key, num, T, m) {ROW(key, num, D_INT), AT(T, m)}
#define PRESENT(key, num, T, m) {ROW(key, num, D_PRESENT), AT(T, m)}
#define STRS(key, num, T, m, n, cap, fl) \
	{ROW(key, num, D_STRS), AT(T, m), .count_at = offsetof(T, n), .max = cap, .flags = fl}
#define MAP(key, num, T, m, k, fl) {ROW(key, num, D_MAP), AT(T, m), .keep = k, .flags = fl}
#define QUANTITIES(key, num, T, m) {ROW(key, num, D_QUANTITIES), AT(T, m), .keep = KEEP_RESOURCES}
#define MSG(key, num, msg, fl) {ROW(key, num, D_MSG), .child = msg, .flags = fl}
#define LIST(key, num, msg, T, m, n, k, cap, fl)                                                        \
	{ROW(key, num, D_LIST), .child = msg, AT(T, m), .count_at = offsetof(T, n),                    \
	 .size = sizeof(*((T *)0)->m), .keep = k, .max = cap, .flags = fl}
#define PICK_FLAG(key, num, msg, T, m) {ROW(key, num, D_PICK_FLAG), .child = msg, AT(T, m)}
#define PICK_STR(key, num, msg, T, m) {ROW(key, num, D_PICK_STR), .child = msg, AT(T, m)}
#define ITEMS(key, num) {ROW(key, num, D_ITEMS)}
/* a scalar that also sets the bool member has when it arrives */
#define MARKED(key, num, t, T, m, has) {ROW(key, num, t), AT(T, m), .count_at = offsetof(T, has), .flags = DECODE_MARK}
#define QUANTITIES_ALL(key, num, T, m) {ROW(key, num, D_QUANTITIES), AT(T, m), .keep = KEEP_ALL}
#define QUANTITY(key, num, T, m) {ROW(key, num, D_QUANTITY), AT(T, m)}
#define ENTRIES(key, num, msg, T, m, n, k, cap)                                                         \
	{ROW(key, num, D_ENTRIES), .child = msg, AT(T, m), .count_at = offsetof(T, n),                 \
	 .size = sizeof(*((T *)0)->m), .keep = k, .max = cap}
#define RAW(key, num, msg) {ROW(key, num, D_RAW), .child = msg}
#define OBJECT(key, num) {ROW(key, num, D_OBJECT)}
#define BODY(num) {ROW("", num, D_BODY)}
#define END {.json = NULL}

#define ENV struct decode_envelope
#define PICK struct decode_pick

/* --- what frames a response -------------------------------------------------- */

static const struct decode_field list_fields[] = {
	ITEMS("items", 2),
	MSG("metadata", 1, M_LIST_META, 0),
	/* protobuf says it in the envelope's TypeMeta */
	MATCH("kind", 0, ENV, is_status, "Status"),
	END,
};
static const struct decode_field list_meta_fields[] = {
	STR("resourceVersion", 2, ENV, list_rv, OMIT),
	STR("continue", 3, ENV, list_continue, OMIT),
	END,
};
static const struct decode_field event_fields[] = {
	STR("type", 1, ENV, ev_type, 0),
	OBJECT("object", 0),	/* JSON: the object itself */
	MSG("", 2, M_RAW, 0),	/* protobuf: the object in a RawExtension */
	END,
};
static const struct decode_field status_fields[] = {
	STR("message", 3, ENV, st_message, 0),
	STR("reason", 4, ENV, st_reason, 0),
	INT("code", 6, ENV, st_code),
	END,
};
static const struct decode_field unknown_fields[] = {
	MSG("", 1, M_TYPE_META, 0),
	BODY(2),
	END,
};
static const struct decode_field type_meta_fields[] = {
	MATCH("", 2, ENV, is_status, "Status"),
	END,
};
static const struct decode_field raw_fields[] = {
	MSG("", 1, M_UNKNOWN, 0), /* after the magic */
	END,
};

/* --- every kind ----------------------------------------------------------------- */

/* The ObjectMeta that every kind keeps, in its struct of type T. */
#define OBJECT_META(T)                                           \
	STR("name", 1, T, name, OMIT),                           \
	STR("uid", 5, T, uid, OMIT),                             \
	STR("resourceVersion", 6, T, resource_version, OMIT),    \
	MAP("labels", 11, T, labels, KEEP_LABELS, 0),            \
	MAP("annotations", 12, T, annotations, KEEP_ANNOTATIONS, 0)

/* Of status.conditions, the Ready one's status is the object's readiness. */
static const struct decode_field condition_fields[] = {
	MATCH("type", 1, PICK, selected, "Ready"),
	MATCH("status", 2, PICK, flag, "True"),
	END,
};

/* --- nodes ------------------------------------------------------------------------ */

static const struct decode_field node_fields[] = {
	MSG("metadata", 1, M_NODE_META, 0),
	MSG("spec", 2, M_NODE_SPEC, 0),
	MSG("status", 3, M_NODE_STATUS, 0),
	END,
};
static const struct decode_field node_meta_fields[] = {
	OBJECT_META(struct k8s_node),
	END,
};
static const struct decode_field node_spec_fields[] = {
	BOOL("unschedulable", 4, struct k8s_node, unschedulable),
	LIST("taints", 5, M_TAINT, struct k8s_node, taints, ntaints, KEEP_ALL, 0, SCHED_ONLY),
	END,
};
static const struct decode_field taint_fields[] = {
	STR("key", 1, struct k8s_taint, key, OMIT),
	STR("value", 2, struct k8s_taint, value, OMIT),
	STR("effect", 3, struct k8s_taint, effect, OMIT),
	END,
};
static const struct decode_field node_status_fields[] = {
	QUANTITIES("capacity", 1, struct k8s_node, capacity),
	QUANTITIES("allocatable", 2, struct k8s_node, allocatable),
	PICK_FLAG("conditions", 4, M_CONDITION, struct k8s_node, ready),
	PICK_STR("addresses", 5, M_ADDRESS, struct k8s_node, internal_ip),
	END,
};
/* Of status.addresses, the first InternalIP is the node's. */
static const struct decode_field address_fields[] = {
	MATCH("type", 1, PICK, selected, "InternalIP"),
	STR("address", 2, PICK, text, 0),
	END,
};

/* --- pods ---------------------------------------------------------------------------- */

static const struct decode_field pod_fields[] = {
	MSG("metadata", 1, M_POD_META, 0),
	MSG("spec", 2, M_POD_SPEC, 0),
	MSG("status", 3, M_POD_STATUS, 0),
	END,
};
static const struct decode_field pod_meta_fields[] = {
	OBJECT_META(struct k8s_pod),
	STR("namespace", 3, struct k8s_pod, namespace, OMIT),
	PRESENT("deletionTimestamp", 9, struct k8s_pod, deleting),
	LIST("ownerReferences", 13, M_OWNER, struct k8s_pod, owners, nowners, KEEP_ALL, 0, 0),
	END,
};
static const struct decode_field owner_fields[] = {
	STR("kind", 1, struct k8s_owner, kind, 0),
	STR("name", 3, struct k8s_owner, name, 0),
	STR("uid", 4, struct k8s_owner, uid, 0),
	BOOL("controller", 6, struct k8s_owner, controller),
	END,
};
static const struct decode_field pod_spec_fields[] = {
	LIST("containers", 2, M_CONTAINER, struct k8s_pod, containers, ncontainers, KEEP_ALL, 0, 0),
	MAP("nodeSelector", 7, struct k8s_pod, node_selector, KEEP_SCHEDULING, NODE_SELECTION),
	STR("nodeName", 10, struct k8s_pod, node_name, OMIT),
	LIST("initContainers", 20, M_CONTAINER, struct k8s_pod, init_containers, ninit_containers, KEEP_ALL, 0, 0),
	MSG("affinity", 18, M_AFFINITY, 0),
	STR("schedulerName", 19, struct k8s_pod, scheduler_name, OMIT),
	LIST("tolerations", 22, M_TOLERATION, struct k8s_pod, tolerations, ntolerations, KEEP_ALL, 0, SCHED_ONLY),
	INT("priority", 25, struct k8s_pod, priority),
	LIST("resourceClaims", 39, M_POD_CLAIM, struct k8s_pod, claims, nclaims, KEEP_ALL, MAX_POD_CLAIMS, 0),
	END,
};
static const struct decode_field pod_claim_fields[] = {
	STR("name", 1, struct k8s_pod_claim, name, 0),
	STR("resourceClaimName", 3, struct k8s_pod_claim, claim_name, 0),
	STR("resourceClaimTemplateName", 4, struct k8s_pod_claim, template_name, 0),
	END,
};
static const struct decode_field container_fields[] = {
	STR("name", 1, struct k8s_container, name, 0),
	MSG("resources", 8, M_RESOURCES, 0),
	MATCH("restartPolicy", 24, struct k8s_container, restart_always, "Always"),
	END,
};
static const struct decode_field resources_fields[] = {
	QUANTITIES("limits", 1, struct k8s_container, limits),
	LIST("claims", 3, M_CONTAINER_CLAIM, struct k8s_container, claims, nclaims, KEEP_ALL, MAX_POD_CLAIMS, 0),
	END,
};
static const struct decode_field container_claim_fields[] = {
	STR("name", 1, struct k8s_container_claim, name, 0),
	STR("request", 2, struct k8s_container_claim, request, OMIT),
	END,
};
/* tolerationSeconds (5) is not kept */
static const struct decode_field toleration_fields[] = {
	STR("key", 1, struct k8s_toleration, key, OMIT),
	STR("operator", 2, struct k8s_toleration, op, OMIT),
	STR("value", 3, struct k8s_toleration, value, OMIT),
	STR("effect", 4, struct k8s_toleration, effect, OMIT),
	END,
};
static const struct decode_field affinity_fields[] = {
	MSG("nodeAffinity", 1, M_NODE_AFFINITY, NODE_SELECTION),
	END,
};
static const struct decode_field node_affinity_fields[] = {
	MSG("requiredDuringSchedulingIgnoredDuringExecution", 1, M_NODE_SELECTOR, 0),
	END,
};
static const struct decode_field node_selector_fields[] = {
	LIST("nodeSelectorTerms", 1, M_NODE_SELECTOR_TERM, struct k8s_pod, node_terms, nnode_terms,
	     KEEP_SCHEDULING, MAX_TERMS, 0),
	END,
};
static const struct decode_field node_selector_term_fields[] = {
	LIST("matchExpressions", 1, M_NODE_SELECTOR_REQ, struct k8s_node_term, reqs, nreqs, KEEP_SCHEDULING,
	     MAX_EXPRS, 0),
	LIST("matchFields", 2, M_NODE_SELECTOR_FIELD, struct k8s_node_term, fields, nfields, KEEP_SCHEDULING,
	     MAX_EXPRS, 0),
	END,
};
static const struct decode_field node_selector_req_fields[] = {
	STR("key", 1, struct k8s_node_requirement, key, NODE_SELECTION),
	STR("operator", 2, struct k8s_node_requirement, op, SCHED_ONLY),
	STRS("values", 3, struct k8s_node_requirement, values, nvalues, MAX_VALUES, SCHED_ONLY),
	END,
};
static const struct decode_field node_selector_field_fields[] = {
	STR("key", 1, struct k8s_node_requirement, key, SCHED_ONLY),
	STR("operator", 2, struct k8s_node_requirement, op, SCHED_ONLY),
	STRS("values", 3, struct k8s_node_requirement, values, nvalues, MAX_VALUES, SCHED_ONLY),
	END,
};
static const struct decode_field pdb_fields[] = {
	MSG("metadata", 1, M_PDB_META, 0),
	MSG("spec", 2, M_PDB_SPEC, 0),
	MSG("status", 3, M_PDB_STATUS, 0),
	END,
};
static const struct decode_field pdb_meta_fields[] = {
	OBJECT_META(struct k8s_pdb),
	STR("namespace", 3, struct k8s_pdb, namespace, OMIT),
	END,
};
/* minAvailable (1) and maxUnavailable (3) are the server's to apply: the
 * status says what they leave */
static const struct decode_field pdb_spec_fields[] = {
	MSG("selector", 2, M_LABEL_SELECTOR, 0),
	END,
};
static const struct decode_field label_selector_fields[] = {
	MAP("matchLabels", 1, struct k8s_pdb, match_labels, KEEP_ALL, 0),
	LIST("matchExpressions", 2, M_LABEL_SELECTOR_REQ, struct k8s_pdb, match_exprs, nmatch_exprs, KEEP_ALL,
	     MAX_EXPRS, 0),
	END,
};
static const struct decode_field label_selector_req_fields[] = {
	STR("key", 1, struct k8s_node_requirement, key, 0),
	STR("operator", 2, struct k8s_node_requirement, op, 0),
	STRS("values", 3, struct k8s_node_requirement, values, nvalues, MAX_VALUES, 0),
	END,
};
static const struct decode_field pdb_status_fields[] = {
	INT("disruptionsAllowed", 3, struct k8s_pdb, disruptions_allowed),
	END,
};
static const struct decode_field pod_status_fields[] = {
	STR("phase", 1, struct k8s_pod, phase, OMIT),
	PICK_FLAG("conditions", 2, M_CONDITION, struct k8s_pod, ready),
	LIST("resourceClaimStatuses", 15, M_POD_CLAIM_STATUS, struct k8s_pod, claim_statuses, nclaim_statuses,
	     KEEP_ALL, MAX_POD_CLAIMS, 0),
	MSG("extendedResourceClaimStatus", 18, M_EXT_CLAIM_STATUS, 0),
	END,
};
static const struct decode_field pod_claim_status_fields[] = {
	STR("name", 1, struct k8s_pod_claim, name, 0),
	STR("resourceClaimName", 2, struct k8s_pod_claim, claim_name, 0),
	END,
};
static const struct decode_field ext_claim_status_fields[] = {
	LIST("requestMappings", 1, M_EXT_REQUEST, struct k8s_pod, extended_requests, nextended_requests, KEEP_ALL,
	     MAX_POD_CLAIMS, 0),
	STR("resourceClaimName", 2, struct k8s_pod, extended_claim, OMIT),
	END,
};
static const struct decode_field ext_request_fields[] = {
	STR("containerName", 1, struct k8s_extended_request, container, 0),
	STR("resourceName", 2, struct k8s_extended_request, resource, 0),
	STR("requestName", 3, struct k8s_extended_request, request, 0),
	END,
};

/* --- resource.k8s.io: ResourceSlice ------------------------------------------------- */

/* A device's or a slice's maps and lists, bounded against hostile input
 * (the API allows 32 attributes and capacities a device, 8 counter sets). */
#define MAX_DEVICE_VALUES 64
#define MAX_COUNTER_SETS 32
#define MAX_SELECTORS 32
#define MAX_CONFIG_REQUESTS 32

#define SLICE struct k8s_resource_slice
#define DEVICE struct k8s_dra_device
#define VALUE struct k8s_dra_value
#define CLAIM struct k8s_resource_claim
#define REQUEST struct k8s_dra_request
#define CONFIG struct k8s_dra_config
#define CLASS struct k8s_device_class

static const struct decode_field slice_fields[] = {
	MSG("metadata", 1, M_SLICE_META, 0),
	MSG("spec", 2, M_SLICE_SPEC, 0),
	END,
};
static const struct decode_field slice_b1_fields[] = {
	MSG("metadata", 1, M_SLICE_META, 0),
	MSG("spec", 2, M_SLICE_SPEC_B1, 0),
	END,
};
static const struct decode_field slice_meta_fields[] = {
	OBJECT_META(SLICE),
	END,
};
/* The same in every version but for the device's message. */
#define SLICE_SPEC(device_msg)                                                                  \
	STR("driver", 1, SLICE, driver, 0),                                                     \
	MSG("pool", 2, M_POOL, 0),                                                              \
	STR("nodeName", 3, SLICE, node_name, OMIT),                                             \
	MSG("nodeSelector", 4, M_SLICE_NODE_SELECTOR, 0),                                       \
	BOOL("allNodes", 5, SLICE, all_nodes),                                                  \
	LIST("devices", 6, device_msg, SLICE, devices, ndevices, KEEP_ALL, 0, 0),               \
	BOOL("perDeviceNodeSelection", 7, SLICE, per_device_nodes),                             \
	LIST("sharedCounters", 8, M_COUNTERS, SLICE, counter_sets, ncounter_sets, KEEP_ALL, MAX_COUNTER_SETS, 0)
static const struct decode_field slice_spec_fields[] = {
	SLICE_SPEC(M_DEVICE),
	END,
};
static const struct decode_field slice_spec_b1_fields[] = {
	SLICE_SPEC(M_DEVICE_B1),
	END,
};
static const struct decode_field pool_fields[] = {
	STR("name", 1, SLICE, pool, 0),
	INT("generation", 2, SLICE, generation),
	INT("resourceSliceCount", 3, SLICE, slice_count),
	END,
};
/* Its terms' matchExpressions are those of a pod's node affinity. */
static const struct decode_field slice_node_selector_fields[] = {
	LIST("nodeSelectorTerms", 1, M_NODE_SELECTOR_TERM, SLICE, node_terms, nnode_terms, KEEP_SCHEDULING,
	     MAX_TERMS, 0),
	END,
};
/* A device's fields from number n on: v1 has them on the device from 2,
 * v1beta1 in its BasicDevice from 1. */
#define DEVICE_FIELDS(n)                                                                                  \
	ENTRIES("attributes", n, M_ATTRIBUTE, DEVICE, attrs, nattrs, KEEP_ATTRIBUTES, MAX_DEVICE_VALUES),  \
	ENTRIES("capacity", n + 1, M_DEVICE_CAPACITY, DEVICE, capacity, ncapacity, KEEP_ALL, MAX_DEVICE_VALUES),  \
	LIST("consumesCounters", n + 2, M_COUNTERS, DEVICE, consumes, nconsumes, KEEP_ALL, MAX_COUNTER_SETS, 0), \
	STR("nodeName", n + 3, DEVICE, node_name, OMIT),                                                   \
	BOOL("allNodes", n + 5, DEVICE, all_nodes),                                                        \
	LIST("taints", n + 6, M_TAINT, DEVICE, taints, ntaints, KEEP_ALL, MAX_DEVICE_VALUES, 0),           \
	BOOL("allowMultipleAllocations", n + 10, DEVICE, allow_multiple)
static const struct decode_field device_fields[] = {
	STR("name", 1, DEVICE, name, 0),
	DEVICE_FIELDS(2),
	END,
};
static const struct decode_field device_b1_fields[] = {
	STR("name", 1, DEVICE, name, 0),
	MSG("basic", 2, M_BASIC, 0),
	END,
};
static const struct decode_field basic_fields[] = {
	DEVICE_FIELDS(1),
	END,
};
static const struct decode_field attribute_fields[] = {
	MARKED("int", 2, D_INT, VALUE, i, has_int),
	MARKED("bool", 3, D_BOOL, VALUE, b, has_bool),
	MARKED("string", 4, D_STR, VALUE, str, has_str),
	MARKED("version", 5, D_STR, VALUE, version, has_version),
	END,
};
/* DeviceCapacity and Counter: a value, in the same place */
static const struct decode_field capacity_fields[] = {
	QUANTITY("value", 1, VALUE, quantity),
	END,
};
/* a device's capacity has a request policy beside its value */
#define CAPACITY struct k8s_dra_capacity
#define MAX_POLICY_VALUES 16
static const struct decode_field device_capacity_fields[] = {
	QUANTITY("value", 1, CAPACITY, quantity),
	MSG("requestPolicy", 2, M_POLICY, 0),
	END,
};
static const struct decode_field policy_fields[] = {
	QUANTITY("default", 1, CAPACITY, policy_default),
	STRS("validValues", 3, CAPACITY, policy_values, npolicy_values, MAX_POLICY_VALUES, 0),
	MSG("validRange", 4, M_POLICY_RANGE, 0),
	END,
};
static const struct decode_field policy_range_fields[] = {
	QUANTITY("min", 1, CAPACITY, policy_min),
	QUANTITY("max", 2, CAPACITY, policy_max),
	QUANTITY("step", 3, CAPACITY, policy_step),
	END,
};
/* DeviceCounterConsumption names its set "counterSet", CounterSet "name" */
static const struct decode_field counters_fields[] = {
	STR("counterSet", 1, struct k8s_dra_counters, name, 0),
	STR("name", 1, struct k8s_dra_counters, name, 0),
	ENTRIES("counters", 2, M_CAPACITY, struct k8s_dra_counters, counters, ncounters, KEEP_ALL, MAX_DEVICE_VALUES),
	END,
};

/* --- ResourceClaim --------------------------------------------------------------------- */

static const struct decode_field claim_fields[] = {
	MSG("metadata", 1, M_CLAIM_META, 0),
	MSG("spec", 2, M_CLAIM_SPEC, 0),
	MSG("status", 3, M_CLAIM_STATUS, 0),
	END,
};
static const struct decode_field claim_b1_fields[] = {
	MSG("metadata", 1, M_CLAIM_META, 0),
	MSG("spec", 2, M_CLAIM_SPEC_B1, 0),
	MSG("status", 3, M_CLAIM_STATUS, 0),
	END,
};
static const struct decode_field claim_meta_fields[] = {
	/* a claim is found by its name; its resourceVersion tells the live
	 * view's relist which claims changed */
	STR("name", 1, CLAIM, name, OMIT),
	STR("namespace", 3, CLAIM, namespace, OMIT),
	STR("resourceVersion", 6, CLAIM, resource_version, OMIT),
	PRESENT("deletionTimestamp", 9, CLAIM, deleting),
	MAP("labels", 11, CLAIM, labels, KEEP_LABELS, 0),
	MAP("annotations", 12, CLAIM, annotations, KEEP_ANNOTATIONS, 0),
	END,
};
static const struct decode_field claim_spec_fields[] = {
	MSG("devices", 1, M_DEVICE_CLAIM, 0),
	END,
};
static const struct decode_field claim_spec_b1_fields[] = {
	MSG("devices", 1, M_DEVICE_CLAIM_B1, 0),
	END,
};
static const struct decode_field device_claim_fields[] = {
	LIST("requests", 1, M_REQUEST, CLAIM, requests, nrequests, KEEP_SCHEDULING, 0, SCHED_ONLY),
	LIST("config", 3, M_CLAIM_CONFIG, CLAIM, configs, nconfigs, KEEP_SCHEDULING, 0, SCHED_ONLY),
	END,
};
static const struct decode_field device_claim_b1_fields[] = {
	LIST("requests", 1, M_REQUEST_B1, CLAIM, requests, nrequests, KEEP_SCHEDULING, 0, SCHED_ONLY),
	LIST("config", 3, M_CLAIM_CONFIG, CLAIM, configs, nconfigs, KEEP_SCHEDULING, 0, SCHED_ONLY),
	END,
};
/* firstAvailable (the sub-requests to choose from) is not kept */
static const struct decode_field request_fields[] = {
	STR("name", 1, REQUEST, name, 0),
	MSG("exactly", 2, M_EXACT, 0),
	END,
};
/* An exact request from number n on: v1 in exactly from 1, v1beta1 flat from 2. */
#define EXACT_FIELDS(n)                                                                               \
	STR("deviceClassName", n, REQUEST, class_name, 0),                                             \
	LIST("selectors", n + 1, M_SELECTOR, REQUEST, selectors, nselectors, KEEP_SCHEDULING, MAX_SELECTORS, \
	     SCHED_ONLY),                                                                              \
	STR("allocationMode", n + 2, REQUEST, allocation_mode, OMIT),                                  \
	INT("count", n + 3, REQUEST, count),                                                           \
	BOOL("adminAccess", n + 4, REQUEST, admin_access)
/* a DeviceToleration has the numbers of a pod's toleration */
#define MAX_REQUEST_TOLERATIONS 16
static const struct decode_field exact_fields[] = {
	EXACT_FIELDS(1),
	LIST("tolerations", 6, M_TOLERATION, REQUEST, tolerations, ntolerations, KEEP_SCHEDULING,
	     MAX_REQUEST_TOLERATIONS, SCHED_ONLY),
	MSG("capacity", 7, M_CAPACITY_REQS, 0),
	END,
};
static const struct decode_field request_b1_fields[] = {
	STR("name", 1, REQUEST, name, 0),
	EXACT_FIELDS(2),
	LIST("tolerations", 8, M_TOLERATION, REQUEST, tolerations, ntolerations, KEEP_SCHEDULING,
	     MAX_REQUEST_TOLERATIONS, SCHED_ONLY),
	MSG("capacity", 9, M_CAPACITY_REQS, 0),
	END,
};
static const struct decode_field selector_fields[] = {
	MSG("cel", 1, M_CEL, 0),
	END,
};
static const struct decode_field cel_fields[] = {
	STR("expression", 1, struct k8s_dra_selector, expression, 0),
	END,
};
static const struct decode_field capacity_reqs_fields[] = {
	QUANTITIES_ALL("requests", 1, REQUEST, capacity),
	END,
};
/* The DeviceConfiguration in a claim's, an allocation's and a class's
 * configuration: JSON inlines it (opaque is their own key), protobuf
 * keeps it a message of its own. */
static const struct decode_field claim_config_fields[] = {
	STRS("requests", 1, CONFIG, requests, nrequests, MAX_CONFIG_REQUESTS, 0),
	MSG("", 2, M_DEVICE_CONFIG, 0),
	MSG("opaque", 0, M_OPAQUE, 0),
	END,
};
static const struct decode_field device_config_fields[] = {
	MSG("", 1, M_OPAQUE, 0),
	END,
};
static const struct decode_field opaque_fields[] = {
	STR("driver", 1, CONFIG, driver, 0),
	RAW("parameters", 2, M_PARAMETERS),
	END,
};
/* The parameters, JSON in either encoding: their type and the sharing
 * settings a driver's configuration may carry. */
static const struct decode_field parameters_fields[] = {
	STR("apiVersion", 0, CONFIG, api_version, 0),
	STR("kind", 0, CONFIG, kind, 0),
	MSG("sharing", 0, M_SHARING, 0),
	END,
};
static const struct decode_field sharing_fields[] = {
	STR("strategy", 0, CONFIG, strategy, 0),
	MSG("timeSlicingConfig", 0, M_TIME_SLICING, 0),
	MSG("mpsConfig", 0, M_MPS, 0),
	END,
};
static const struct decode_field time_slicing_fields[] = {
	STR("interval", 0, CONFIG, interval, 0),
	END,
};
static const struct decode_field mps_fields[] = {
	MARKED("defaultActiveThreadPercentage", 0, D_INT, CONFIG, mps_threads, has_mps_threads),
	STR("defaultPinnedDeviceMemoryLimit", 0, CONFIG, mps_memory_limit, 0),
	END,
};
static const struct decode_field claim_status_fields[] = {
	MSG("allocation", 1, M_ALLOCATION, 0),
	LIST("reservedFor", 2, M_CONSUMER, CLAIM, reserved, nreserved, KEEP_ALL, 0, 0),
	END,
};
static const struct decode_field allocation_fields[] = {
	MSG("devices", 1, M_ALLOC_DEVICES, 0),
	END,
};
static const struct decode_field alloc_devices_fields[] = {
	LIST("results", 1, M_RESULT, CLAIM, results, nresults, KEEP_ALL, 0, 0),
	LIST("config", 2, M_ALLOC_CONFIG, CLAIM, alloc_configs, nalloc_configs, KEEP_ALL, 0, 0),
	END,
};
static const struct decode_field result_fields[] = {
	STR("request", 1, struct k8s_dra_result, request, 0),
	STR("driver", 2, struct k8s_dra_result, driver, 0),
	STR("pool", 3, struct k8s_dra_result, pool, 0),
	STR("device", 4, struct k8s_dra_result, device, 0),
	QUANTITIES_ALL("consumedCapacity", 10, struct k8s_dra_result, consumed),
	END,
};
static const struct decode_field alloc_config_fields[] = {
	STR("source", 1, CONFIG, source, 0),
	STRS("requests", 2, CONFIG, requests, nrequests, MAX_CONFIG_REQUESTS, 0),
	MSG("", 3, M_DEVICE_CONFIG, 0),
	MSG("opaque", 0, M_OPAQUE, 0),
	END,
};
static const struct decode_field consumer_fields[] = {
	/* resource (3) is "pods"; a pod is told by its name in the claim's namespace */
	STR("name", 4, struct k8s_dra_consumer, name, 0),
	END,
};

/* --- DeviceClass ---------------------------------------------------------------------- */

static const struct decode_field class_fields[] = {
	MSG("metadata", 1, M_CLASS_META, 0),
	MSG("spec", 2, M_CLASS_SPEC, 0),
	END,
};
static const struct decode_field class_meta_fields[] = {
	OBJECT_META(CLASS),
	END,
};
static const struct decode_field class_spec_fields[] = {
	LIST("selectors", 1, M_SELECTOR, CLASS, selectors, nselectors, KEEP_ALL, MAX_SELECTORS, 0),
	LIST("config", 2, M_CLASS_CONFIG, CLASS, configs, nconfigs, KEEP_ALL, 0, 0),
	STR("extendedResourceName", 4, CLASS, extended_resource, OMIT),
	END,
};
static const struct decode_field class_config_fields[] = {
	MSG("", 1, M_DEVICE_CONFIG, 0),
	MSG("opaque", 0, M_OPAQUE, 0),
	END,
};

const struct decode_field *const decode_messages[M_COUNT] = {
	[M_LIST] = list_fields,
	[M_LIST_META] = list_meta_fields,
	[M_EVENT] = event_fields,
	[M_STATUS] = status_fields,
	[M_UNKNOWN] = unknown_fields,
	[M_TYPE_META] = type_meta_fields,
	[M_RAW] = raw_fields,
	[M_NODE] = node_fields,
	[M_NODE_META] = node_meta_fields,
	[M_NODE_SPEC] = node_spec_fields,
	[M_TAINT] = taint_fields,
	[M_NODE_STATUS] = node_status_fields,
	[M_ADDRESS] = address_fields,
	[M_CONDITION] = condition_fields,
	[M_POD] = pod_fields,
	[M_POD_META] = pod_meta_fields,
	[M_OWNER] = owner_fields,
	[M_POD_SPEC] = pod_spec_fields,
	[M_CONTAINER] = container_fields,
	[M_RESOURCES] = resources_fields,
	[M_TOLERATION] = toleration_fields,
	[M_AFFINITY] = affinity_fields,
	[M_NODE_AFFINITY] = node_affinity_fields,
	[M_NODE_SELECTOR] = node_selector_fields,
	[M_NODE_SELECTOR_TERM] = node_selector_term_fields,
	[M_NODE_SELECTOR_REQ] = node_selector_req_fields,
	[M_NODE_SELECTOR_FIELD] = node_selector_field_fields,
	[M_POD_STATUS] = pod_status_fields,
	[M_CONTAINER_CLAIM] = container_claim_fields,
	[M_POD_CLAIM] = pod_claim_fields,
	[M_POD_CLAIM_STATUS] = pod_claim_status_fields,
	[M_EXT_CLAIM_STATUS] = ext_claim_status_fields,
	[M_EXT_REQUEST] = ext_request_fields,
	[M_SLICE] = slice_fields,
	[M_SLICE_B1] = slice_b1_fields,
	[M_SLICE_META] = slice_meta_fields,
	[M_SLICE_SPEC] = slice_spec_fields,
	[M_SLICE_SPEC_B1] = slice_spec_b1_fields,
	[M_POOL] = pool_fields,
	[M_SLICE_NODE_SELECTOR] = slice_node_selector_fields,
	[M_DEVICE] = device_fields,
	[M_DEVICE_B1] = device_b1_fields,
	[M_BASIC] = basic_fields,
	[M_ATTRIBUTE] = attribute_fields,
	[M_CAPACITY] = capacity_fields,
	[M_DEVICE_CAPACITY] = device_capacity_fields,
	[M_POLICY] = policy_fields,
	[M_POLICY_RANGE] = policy_range_fields,
	[M_COUNTERS] = counters_fields,
	[M_CLAIM] = claim_fields,
	[M_CLAIM_B1] = claim_b1_fields,
	[M_CLAIM_META] = claim_meta_fields,
	[M_CLAIM_SPEC] = claim_spec_fields,
	[M_CLAIM_SPEC_B1] = claim_spec_b1_fields,
	[M_DEVICE_CLAIM] = device_claim_fields,
	[M_DEVICE_CLAIM_B1] = device_claim_b1_fields,
	[M_REQUEST] = request_fields,
	[M_REQUEST_B1] = request_b1_fields,
	[M_EXACT] = exact_fields,
	[M_SELECTOR] = selector_fields,
	[M_CEL] = cel_fields,
	[M_CAPACITY_REQS] = capacity_reqs_fields,
	[M_CLAIM_CONFIG] = claim_config_fields,
	[M_DEVICE_CONFIG] = device_config_fields,
	[M_OPAQUE] = opaque_fields,
	[M_PARAMETERS] = parameters_fields,
	[M_SHARING] = sharing_fields,
	[M_TIME_SLICING] = time_slicing_fields,
	[M_MPS] = mps_fields,
	[M_CLAIM_STATUS] = claim_status_fields,
	[M_ALLOCATION] = allocation_fields,
	[M_ALLOC_DEVICES] = alloc_devices_fields,
	[M_RESULT] = result_fields,
	[M_ALLOC_CONFIG] = alloc_config_fields,
	[M_CONSUMER] = consumer_fields,
	[M_CLASS] = class_fields,
	[M_CLASS_META] = class_meta_fields,
	[M_CLASS_SPEC] = class_spec_fields,
	[M_CLASS_CONFIG] = class_config_fields,
	[M_PDB] = pdb_fields,
	[M_PDB_META] = pdb_meta_fields,
	[M_PDB_SPEC] = pdb_spec_fields,
	[M_LABEL_SELECTOR] = label_selector_fields,
	[M_LABEL_SELECTOR_REQ] = label_selector_req_fields,
	[M_PDB_STATUS] = pdb_status_fields,
};
