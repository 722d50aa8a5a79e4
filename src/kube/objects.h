/* Plain C views of the Kubernetes objects the plugin reads.
 *
 * Only the fields some consumer needs are kept; maps (labels, annotations,
 * resource lists) keep only the keys a struct decode_filter asks for, so
 * memory follows what is shown, not the size of the API objects.
 * Every string is owned by the object and freed by its *_free().
 *
 * Uses nothing but libc.
 */
#ifndef OBJECTS_H
#define OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kv {
	char *key;
	char *value;
};

struct kvlist {
	struct kv *items;
	size_t len, cap;
};

/* Room in a growing array: items (elements of size bytes, room for *cap of
 * them) as it is when it holds need already, else reallocated to the first
 * of first, 2 * first, 4 * first... (doubling *cap when it is not 0) that
 * does, with *cap updated.  NULL when out of memory or when the size would
 * pass SIZE_MAX: items is then unchanged and still the caller's.  The one
 * growth rule of the program's arrays, for the client and its callers. */
void *kube_array_grow(void *items, size_t *cap, size_t need, size_t size, size_t first);

/* A timestamp to Unix seconds: "2024-05-01T10:00:00Z" as RFC 3339 and
 * metav1.Time write it, with an optional fraction of a second (dropped) and
 * "Z" or a "+hh:mm"/"-hh:mm" offset.  date_sep stands between year, month
 * and day and mid_sep between date and time, so that layouts such as
 * "2006.01.02 15:04:05" read the same way; a mid_sep of 'T' also takes 't'
 * and ' ', as RFC 3339 does.  With zone_optional a timestamp without a zone
 * is UTC.  -1 when s is not such a timestamp, with *ret unchanged. */
int kube_time_parse(const char *s, char date_sep, char mid_sep, bool zone_optional, long long *ret);

/* The len bytes at s (which may hold NULs) as a NUL-terminated string;
 * malloc'd, NULL when out of memory. */
char *kube_strdup_len(const char *s, size_t len);

/* A set of strings, in the order they were first added.  Linear: it holds
 * what a person reads (warnings, completion candidates). */
struct strset {
	char **v;
	size_t len, cap;
};

/* A copy of s added unless it is there already (or NULL): 1 added, 0 not,
 * -1 out of memory. */
int strset_add(struct strset *set, const char *s);
void strset_release(struct strset *set);

/* NULL when absent.  Linear: these maps hold a handful of filtered keys. */
const char *kvlist_get(const struct kvlist *l, const char *key);
int kvlist_add(struct kvlist *l, const char *key, size_t keylen, const char *value, size_t valuelen);
void kvlist_release(struct kvlist *l);

/* Which keys of an object's maps to keep.  Each list is NULL-terminated; an
 * entry ending in '*' matches any key with that prefix.  A NULL list keeps
 * nothing; the all_* flags keep everything. */
struct decode_filter {
	const char *const *label_keys;
	const char *const *annotation_keys;
	const char *const *resource_names; /* node capacity/allocatable, container limits */
	const char *const *node_keys;	   /* node label keys a pod's nodeSelector or required
					    * node affinity names (struct k8s_pod.node_keys) */
	/* the attributes of a ResourceSlice's devices (by name, unqualified or
	 * with the driver's domain) */
	const char *const *attribute_keys;
	bool all_labels, all_annotations, all_resources, all_attributes;
	bool scheduling; /* node taints; pod tolerations, nodeSelector and required node
			  * affinity terms (where a pod may go); a claim's selectors and
			  * configurations (what it asks) */
};

bool decode_filter_match(const char *const *patterns, const char *key, size_t keylen);
/* A filter that keeps what either keeps; patterns are shared, not copied.
 * Release with decode_filter_release(). */
int decode_filter_union(struct decode_filter *ret, const struct decode_filter *a,
			const struct decode_filter *b);
void decode_filter_release(struct decode_filter *f);

/* spec.taints[] of a node; effect "NoSchedule", "PreferNoSchedule" or "NoExecute". */
struct k8s_taint {
	char *key, *value, *effect;
};

/* spec.tolerations[] of a pod: operator "Exists" or "Equal" (NULL = Equal),
 * an empty key with Exists tolerates every taint, a NULL effect every effect. */
struct k8s_toleration {
	char *key, *op, *value, *effect;
};

/* One matchExpressions entry of a required node affinity term. */
struct k8s_node_requirement {
	char *key, *op; /* In, NotIn, Exists, DoesNotExist, Gt, Lt */
	char **values;
	size_t nvalues;
};

/* A nodeSelectorTerm: its requirements all hold (the terms are ORed).
 * fields are its matchFields: keys name node fields (metadata.name), the
 * operator In or NotIn. */
struct k8s_node_term {
	struct k8s_node_requirement *reqs;
	size_t nreqs;
	struct k8s_node_requirement *fields;
	size_t nfields;
};

struct k8s_node {
	char *name, *uid, *resource_version;
	char *internal_ip; /* status.addresses[type=InternalIP], or NULL */
	struct kvlist labels, annotations;
	struct kvlist capacity, allocatable; /* quantities as the API wrote them */
	bool unschedulable; /* spec.unschedulable */
	bool ready;	    /* condition Ready == True */
	struct k8s_taint *taints; /* kept when the filter asks for scheduling */
	size_t ntaints;
};

/* resources.claims[] of a container: a pod claim's name and one of its requests. */
struct k8s_container_claim {
	char *name, *request;
};

struct k8s_container {
	char *name;
	struct kvlist limits; /* resources.limits */
	struct k8s_container_claim *claims;
	size_t nclaims;
	bool restart_always;  /* an init container with restartPolicy Always: a sidecar */
};

/* spec.resourceClaims[] of a pod: its name in the pod and the claim it
 * names, or the template a claim is made from. */
struct k8s_pod_claim {
	char *name, *claim_name, *template_name;
};

/* status.extendedResourceClaimStatus.requestMappings[]. */
struct k8s_extended_request {
	char *container, *resource, *request;
};

struct k8s_owner {
	char *kind, *name, *uid;
	bool controller;
};

struct k8s_pod {
	char *namespace, *name, *uid, *resource_version;
	char *node_name; /* spec.nodeName, NULL when not scheduled */
	char *phase;	 /* status.phase, NULL when absent */
	char *scheduler_name;
	bool deleting;		/* metadata.deletionTimestamp set */
	bool ready;		/* condition Ready == True */
	bool has_node_selector; /* spec.nodeSelector or spec.affinity.nodeAffinity present */
	struct kvlist labels, annotations;
	/* node label keys the pod needs to schedule (spec.nodeSelector, and the
	 * matchExpressions of required node affinity), as the filter's
	 * node_keys allow; values are "" */
	struct kvlist node_keys;
	struct k8s_container *containers; /* regular containers only, not init containers */
	size_t ncontainers;
	struct k8s_container *init_containers; /* spec.initContainers, in order */
	size_t ninit_containers;
	struct k8s_owner *owners;
	size_t nowners;
	/* Where the pod may go: filled by manifest_read_pod(); the list decoders
	 * keep them when the filter asks for scheduling, the node affinity
	 * terms up to the caps of decode_fields.c (8 terms, 16 expressions
	 * a term, 32 values an expression). */
	struct kvlist node_selector;
	struct k8s_toleration *tolerations;
	size_t ntolerations;
	struct k8s_node_term *node_terms; /* requiredDuringSchedulingIgnoredDuringExecution */
	size_t nnode_terms;
	/* Dynamic Resource Allocation: spec.resourceClaims, the claims made
	 * for them (status.resourceClaimStatuses) and the claim the scheduler
	 * made for extended resources a DeviceClass serves
	 * (status.extendedResourceClaimStatus). */
	struct k8s_pod_claim *claims;
	size_t nclaims;
	struct k8s_pod_claim *claim_statuses; /* name and the claim made (template_name unused) */
	size_t nclaim_statuses;
	char *extended_claim; /* extendedResourceClaimStatus.resourceClaimName */
	struct k8s_extended_request *extended_requests;
	size_t nextended_requests;
	int64_t priority; /* spec.priority (0 when absent) */
};

/* A PodDisruptionBudget (policy/v1): whom it selects, and how many of
 * them may be disrupted now. */
struct k8s_pdb {
	char *namespace, *name, *uid, *resource_version;
	struct kvlist labels, annotations;
	/* spec.selector: {} selects every pod of the namespace; so does a
	 * budget without one here (it selects none on the server), which
	 * only ever counts a pod under more budgets, never fewer */
	struct kvlist match_labels; /* spec.selector.matchLabels */
	struct k8s_node_requirement *match_exprs; /* spec.selector.matchExpressions */
	size_t nmatch_exprs;
	int64_t disruptions_allowed; /* status.disruptionsAllowed */
};

void k8s_pdb_free(struct k8s_pdb *b);
/* Does the budget select a pod of this namespace with these labels? */
bool k8s_pdb_selects(const struct k8s_pdb *b, const char *namespace, const struct kvlist *labels);

#include "objects_dra.h"

void k8s_node_free(struct k8s_node *n);
void k8s_pod_free(struct k8s_pod *p);
/* Required node affinity terms: a deep copy (0, or -1 when out of memory,
 * nothing then kept), and their release. */
int k8s_node_terms_copy(struct k8s_node_term **ret, size_t *ret_n, const struct k8s_node_term *terms, size_t n);
void k8s_node_terms_free(struct k8s_node_term *terms, size_t n);
/* Taints and tolerations: the same deep copy and release. */
int k8s_taints_copy(struct k8s_taint **ret, size_t *ret_n, const struct k8s_taint *t, size_t n);
void k8s_taints_free(struct k8s_taint *t, size_t n);
int k8s_tolerations_copy(struct k8s_toleration **ret, size_t *ret_n, const struct k8s_toleration *t, size_t n);
void k8s_tolerations_free(struct k8s_toleration *t, size_t n);
/* Does the node's label set satisfy the selector / the term?  Gt and Lt
 * compare integers as the scheduler does; a bad number never matches. */
bool k8s_node_selector_match(const struct kvlist *labels, const struct kvlist *selector);
bool k8s_node_term_match(const struct kvlist *labels, const struct k8s_node_term *t);
/* The same with the term's matchFields too, against the node named name
 * (NULL: no field holds): a term of matchFields alone selects by name. */
bool k8s_node_term_match_node(const char *name, const struct kvlist *labels, const struct k8s_node_term *t);
/* Does some toleration tolerate the taint? */
bool k8s_tolerates(const struct k8s_toleration *tols, size_t ntols, const struct k8s_taint *t);

#endif
