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
#define TIME(key, num, T, m) {ROW(key, num, D_TIME), AT(T, m)}
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
	TIME("creationTimestamp", 8, T, creation_timestamp),     \
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
	MSG("affinity", 18, M_AFFINITY, 0),
	STR("schedulerName", 19, struct k8s_pod, scheduler_name, OMIT),
	LIST("tolerations", 22, M_TOLERATION, struct k8s_pod, tolerations, ntolerations, KEEP_ALL, 0, SCHED_ONLY),
	END,
};
static const struct decode_field container_fields[] = {
	STR("name", 1, struct k8s_container, name, 0),
	MSG("resources", 8, M_RESOURCES, 0),
	END,
};
static const struct decode_field resources_fields[] = {
	QUANTITIES("limits", 1, struct k8s_container, limits),
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
	END,
};
static const struct decode_field node_selector_req_fields[] = {
	STR("key", 1, struct k8s_node_requirement, key, NODE_SELECTION),
	STR("operator", 2, struct k8s_node_requirement, op, SCHED_ONLY),
	STRS("values", 3, struct k8s_node_requirement, values, nvalues, MAX_VALUES, SCHED_ONLY),
	END,
};
static const struct decode_field pod_status_fields[] = {
	STR("phase", 1, struct k8s_pod, phase, OMIT),
	PICK_FLAG("conditions", 2, M_CONDITION, struct k8s_pod, ready),
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
	[M_POD_STATUS] = pod_status_fields,
};

/* --- kinds ------------------------------------------------------------------------- */

static void node_free(void *obj)
{
	k8s_node_free(obj);
}

static int node_to_sink(const struct decode_sink *sink, void *obj, struct kerr *err)
{
	if (sink->node)
		return sink->node(sink->ud, obj, err);
	k8s_node_free(obj);
	return 0;
}

static void node_to_event(struct watch_event *ev, void *obj)
{
	ev->node = obj;
}

static void pod_free(void *obj)
{
	k8s_pod_free(obj);
}

static int pod_to_sink(const struct decode_sink *sink, void *obj, struct kerr *err)
{
	if (sink->pod)
		return sink->pod(sink->ud, obj, err);
	k8s_pod_free(obj);
	return 0;
}

static void pod_to_event(struct watch_event *ev, void *obj)
{
	ev->pod = obj;
}

static const struct decode_kind kinds[] = {
	[OBJ_NODE] = {M_NODE, sizeof(struct k8s_node), offsetof(struct k8s_node, resource_version), node_free,
		      node_to_sink, node_to_event},
	[OBJ_POD] = {M_POD, sizeof(struct k8s_pod), offsetof(struct k8s_pod, resource_version), pod_free,
		     pod_to_sink, pod_to_event},
};

const struct decode_kind *decode_kind_of(enum obj_kind kind)
{
	return &kinds[kind];
}
