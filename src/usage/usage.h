/* GPU memory in use, from a Prometheus-compatible query API, beside the
 * allocation.
 *
 * Pure: this module writes the queries, reads their answers and joins them
 * with the finished allocation model; fetching is the command's business
 * (through the API client).  The queries aggregate on the Prometheus side, so
 * their number is fixed and each answer holds one series per GPU or per pod,
 * whatever the cluster's size.
 *
 * Two exporter families are read: NVIDIA's DCGM exporter (also what Alibaba
 * Cloud's GPU exporter exposes): DCGM_FI_DEV_FB_USED and _FB_FREE in MiB and
 * DCGM_FI_DEV_GPU_UTIL in percent, per GPU, with the pod holding the GPU in
 * pod/namespace labels when the exporter maps them; and HAMi's device plugin
 * monitor: vGPU_device_memory_usage_in_bytes and _limit_in_bytes per
 * container, HostGPUMemoryUsage and HostCoreUtilization per GPU.  Label names
 * differ between deployments: each role (node, GPU index, UUID, namespace,
 * pod) has a list of names tried in order, and can be overridden.
 */
#ifndef USAGE_H
#define USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube.h"
#include "model.h"

/* The DRA roles: the claim a GPU is allocated through and the device, as
 * the DCGM exporter labels them on a cluster using Dynamic Resource
 * Allocation (set only for GPUs a claim holds; on a MIG device's GPU with
 * its profile too).  The MIG roles: the GPU instance a series of a MIG
 * instance is about, and its profile. */
enum usage_role {
	UR_NODE,
	UR_GPU,
	UR_UUID,
	UR_NAMESPACE,
	UR_POD,
	UR_DRA_NAMESPACE,
	UR_DRA_CLAIM,
	UR_DRA_POOL,
	UR_DRA_DEVICE,
	UR_DRA_MIG_PROFILE,
	UR_MIG_INSTANCE,
	UR_MIG_PROFILE,
	UR_COUNT
};

#define USAGE_LABEL_VARIANTS 8

/* Label names per role, tried in order (NULL-terminated). */
struct usage_labels {
	const char *names[UR_COUNT][USAGE_LABEL_VARIANTS + 1];
	char *owned[UR_COUNT]; /* overrides */
};

void usage_labels_default(struct usage_labels *l);
/* "node=kubernetes_node,pod=exported_pod": each named role then reads only
 * that label.  Roles: node, gpu, uuid, namespace, pod. */
int usage_labels_override(struct usage_labels *l, const char *spec, struct kerr *err);
void usage_labels_release(struct usage_labels *l);

enum usage_query {
	UQ_GPU_USED,	 /* DCGM: memory used per GPU, and per pod where labelled */
	UQ_GPU_FREE,	 /* DCGM: the least memory free per GPU (with the most used: the card) */
	UQ_GPU_UTIL,	 /* DCGM: utilisation per GPU */
	UQ_VGPU_USED,	 /* HAMi: memory used per pod and GPU */
	UQ_VGPU_LIMIT,	 /* HAMi: memory limit per pod and GPU */
	UQ_HOST_USED,	 /* HAMi: memory used per GPU */
	UQ_HOST_UTIL,	 /* HAMi: utilisation per GPU */
	UQ_COUNT,
};

/* The query's series may carry pod labels (and so name pods). */
bool usage_query_names_pods(enum usage_query q);
/* The PromQL text of one query over the window ("5m"); malloc'd. */
char *usage_query_text(enum usage_query q, const struct usage_labels *l, const char *window);
/* A duration Prometheus accepts in a range selector: digits and a unit
 * (ms, s, m, h, d, w, y), possibly several ("1h30m"). */
bool usage_window_valid(const char *window);

/* One series of an answer.  The strings live in the answer's arena and go
 * with usage_data_release(). */
struct usage_sample {
	const char *node[USAGE_LABEL_VARIANTS]; /* node role values, in variant order; NULL = absent */
	const char *uuid;
	int gpu; /* -1 = no index label */
	const char *namespace, *pod;
	/* the DRA claim (namespace, name) and device (pool, name), or NULL */
	const char *dra_namespace, *dra_claim, *dra_pool, *dra_device;
	/* the profile of the MIG device dra_device names (the series is then
	 * its GPU's), or NULL */
	const char *dra_mig_profile;
	/* a MIG instance's series: its GPU instance and profile, or NULL */
	const char *mig_instance, *mig_profile;
	double value; /* bytes for memory, percent for utilisation */
};

struct usage_chunk;

struct usage_data {
	struct usage_sample *samples[UQ_COUNT];
	size_t n[UQ_COUNT];
	struct usage_chunk *strings[UQ_COUNT]; /* the samples' strings */
	bool answered[UQ_COUNT]; /* a well-formed answer arrived (possibly empty) */
	char *problem[UQ_COUNT]; /* why not: malloc'd, for the grouped warning */
	/* the series naming a pod, by namespace and name (usage_data_index) */
	const struct usage_sample **pod_index;
	size_t npod_index;
	bool indexed;
	/* some series names a DRA claim and no pod: the claim's pods are known
	 * only in the join, so every pod counts as named */
	bool claims_unnamed;
};

/* Reading one answer (the JSON document of /api/v1/query) as it arrives:
 * feed the body in pieces of any size, then finish, which hands the series
 * to d (replacing that query's earlier ones).  Each returns 0, or -1 with
 * err set: not JSON, not a vector result, the query failed, more than
 * `limit` series (0 = no limit).  Series with values that are not finite
 * numbers, or without labels or value, are skipped.  After a failure the
 * stream only wants freeing; d is left as it was. */
struct usage_stream;
int usage_stream_new(struct usage_stream **ret, enum usage_query q, const struct usage_labels *l, size_t limit,
		     struct kerr *err);
int usage_stream_feed(struct usage_stream *s, const char *p, size_t n, struct kerr *err);
int usage_stream_finish(struct usage_stream *s, struct usage_data *d, struct kerr *err);
void usage_stream_free(struct usage_stream *s);
/* The document has ended (what follows can only be whitespace or an
 * error): the answer can be finished before its transfer is. */
bool usage_stream_ended(const struct usage_stream *s);
/* The same for a whole body at once. */
int usage_parse_bytes(struct usage_data *d, enum usage_query q, const struct usage_labels *l, const char *body,
		      size_t len, struct kerr *err);
void usage_data_release(struct usage_data *d);

/* Index the pods the answers name (-1: out of memory), from the queries
 * that can name pods (usage_query_names_pods) alone: the others' answers
 * may still be written meanwhile.  Until then every pod counts as named. */
int usage_data_index(struct usage_data *d);
/* Whether some answer has a figure for this pod of its own: only such a pod
 * can have a per-pod figure or finding (every pod, where a series names a
 * DRA claim and no pod). */
bool usage_names_pod(const struct usage_data *d, const char *ns, const char *name);

struct usage_options {
	double idle_percent;	     /* Idle: below this share of the allocation (default 25) */
	int64_t unaccounted_bytes;   /* Unaccounted: above this on a GPU with nothing allocated */
};

#define USAGE_IDLE_PERCENT 25.0
#define USAGE_UNACCOUNTED_BYTES (256LL << 20)

/* Join the answers with a finished model: fills the used/total/util figures
 * of GPUs, nodes and pods, m->usage, the findings, and one grouped warning in
 * m->warnings when figures are missing.  source_error (may be NULL) is what
 * stopped the fetch as a whole. */
int usage_apply(struct model *m, const struct usage_data *d, const struct usage_options *o,
		const char *source_error, struct kerr *err);

/* Bytes as the node's unit shows them: "6.0" (GiB, one decimal), "6144" (MiB).
 * Writes into buf. */
const char *usage_format(char *buf, size_t size, int64_t bytes, enum mem_unit unit);
/* The unit usage_format's figures are in: "MiB", else "GiB". */
const char *usage_unit_word(enum mem_unit unit);
/* A model figure (in unit) in bytes. */
int64_t usage_unit_bytes(int64_t v, enum mem_unit unit);

#endif
