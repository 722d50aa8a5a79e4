/* Alibaba cGPU / gpushare: node resources aliyun.com/gpu-mem and
 * gpu-count, the ACK sharing labels of both editions, and the annotations
 * the scheduler extender writes on bind. */
#include "scheme_cgpu.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scheme_keys.h"
#include "scheme_place.h"
#include "scheme_util.h"

#define RES_MEM "aliyun.com/gpu-mem"
#define RES_COUNT "aliyun.com/gpu-count" /* also a pod label: spread the memory over that many GPUs */
#define RES_CORE "aliyun.com/gpu-core.percentage"

#define LABEL_SCHEDULE "ack.node.gpu.schedule"
#define LABEL_PLACEMENT "ack.node.gpu.placement"
#define LABEL_CGPU "cgpu"
#define LABEL_NO_ISOLATION "cgpu.disable.isolation"
#define LABEL_GPUSHARE "gpushare"

#define ANN_ALLOCATION "scheduler.framework.gpushare.allocation"
#define ANN_CORE_ALLOCATION "gpushare.alibabacloud.com/core-percentage"
#define ANN_IDX "ALIYUN_COM_GPU_MEM_IDX"
#define ANN_ASSIGNED "ALIYUN_COM_GPU_MEM_ASSIGNED"
#define ANN_ASSIGNED_NEW "gpushare.alibabacloud.com/assigned"
#define ANN_ALIYUN_ALL "ALIYUN_COM_GPU_MEM_*"
#define ANN_GPUSHARE_ALL "gpushare.alibabacloud.com/*"

static const char *const node_labels[] = {
	LABEL_SCHEDULE, LABEL_PLACEMENT, LABEL_CGPU, LABEL_NO_ISOLATION, LABEL_GPUSHARE,
	LABEL_ALIYUN_ACCELERATOR, POOL_LABEL, NULL,
};
static const char *const node_resources[] = {RES_MEM, RES_COUNT, RES_CORE, NULL};
static const char *const pod_labels[] = {RES_COUNT, NULL};
static const char *const pod_annotations[] = {ANN_ALIYUN_ALL, ANN_ALLOCATION, ANN_GPUSHARE_ALL, NULL};
static const char *const pod_resources[] = {RES_MEM, RES_CORE, NULL};

static bool digits_only(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Decimal digits only, at most maxlen of them and at most max: 0 and *ret, else -1. */
static int digits_value(const char *s, size_t maxlen, int64_t max, int64_t *ret)
{
	long long v;

	if (!digits_only(s) || strlen(s) > maxlen)
		return -1;
	v = strtoll(s, NULL, 10);
	if (v > max)
		return -1;
	*ret = (int64_t)v;
	return 0;
}

int cgpu_index_parse(const char *s, int *ret)
{
	int64_t v;

	if (digits_value(s, 9, CGPU_MAX_INDEX, &v) < 0)
		return -1;
	*ret = (int)v;
	return 0;
}

static int amount_of(json_t *v, int64_t *ret)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0 || i > CGPU_MAX_AMOUNT)
			return -1;
		*ret = (int64_t)i;
		return 0;
	}
	if (json_is_string(v))
		return digits_value(json_string_value(v), 15, CGPU_MAX_AMOUNT, ret);
	return -1;
}

int cgpu_allocation_parse(const char *text, struct cgpu_alloc **ret, size_t *ret_n)
{
	json_t *root, *inner, *v;
	const char *ckey, *gkey;
	struct cgpu_alloc *items = NULL;
	size_t n = 0, cap = 0;
	json_error_t jerr;
	struct cgpu_alloc *ni;

	if (!text)
		return -1;
	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(root))
		goto fail;
	json_object_foreach(root, ckey, inner) {
		int c;

		if (cgpu_index_parse(ckey, &c) < 0 || !json_is_object(inner))
			goto fail;
		json_object_foreach(inner, gkey, v) {
			int g;
			int64_t amount;

			if (cgpu_index_parse(gkey, &g) < 0 || amount_of(v, &amount) < 0)
				goto fail;
			ni = kube_array_grow(items, &cap, n + 1, sizeof(*ni), 4);
			if (!ni)
				goto fail;
			items = ni;
			items[n++] = (struct cgpu_alloc){c, g, amount};
		}
	}
	json_decref(root);
	*ret = items;
	*ret_n = n;
	return 0;
fail:
	json_decref(root);
	free(items);
	return -1;
}

static int64_t resource_of(const struct kvlist *l, const char *name)
{
	const char *s = kvlist_get(l, name);
	int64_t v;

	if (!s || quantity_parse_int(s, &v) < 0 || v < 0)
		return 0;
	return v;
}

/* A quantity that is there but cannot be read would make the node look like
 * one that does not share its GPUs: say so rather than drop it quietly.  The
 * value itself is left out: it comes from outside and may be anything. */
static bool check_quantity(const struct k8s_node *node, const struct kvlist *l, const char *list, const char *name,
			   struct warnings *w, const char *object)
{
	const char *s = kvlist_get(l, name);
	int64_t v;

	if (!s || (quantity_parse_int(s, &v) == 0 && v >= 0))
		return false;
	warnings_add(w, "BadQuantity", object, "node %s: %s %s is not a quantity that can be used", node->name, list,
		     name);
	return true;
}

static bool label_is(const struct kvlist *labels, const char *key, const char *value)
{
	const char *v = kvlist_get(labels, key);

	return v && strcmp(v, value) == 0;
}

static void check_labels(const struct k8s_node *node, struct warnings *w, const char *object)
{
	const char *sched = kvlist_get(&node->labels, LABEL_SCHEDULE);
	const char *cgpu = kvlist_get(&node->labels, LABEL_CGPU);
	const char *noiso = kvlist_get(&node->labels, LABEL_NO_ISOLATION);
	bool sched_shares = sched && strcmp(sched, "default") != 0 && strcmp(sched, "topology") != 0;

	if (cgpu && strcmp(cgpu, "false") == 0 && sched_shares)
		warnings_add(w, "ContradictoryLabels", object, "node %s: labels cgpu=false and %s=%s contradict each other",
			     node->name, LABEL_SCHEDULE, sched);
	if (cgpu && strcmp(cgpu, "true") == 0 && sched && !sched_shares)
		warnings_add(w, "ContradictoryLabels", object, "node %s: labels cgpu=true and %s=%s contradict each other",
			     node->name, LABEL_SCHEDULE, sched);
	if (label_is(&node->labels, LABEL_GPUSHARE, "true") && sched && !sched_shares)
		warnings_add(w, "ContradictoryLabels", object,
			     "node %s: labels gpushare=true and %s=%s contradict each other", node->name,
			     LABEL_SCHEDULE, sched);
	if (noiso && strcmp(noiso, "true") == 0 && sched && strcmp(sched, "cgpu") == 0)
		warnings_add(w, "ContradictoryLabels", object,
			     "node %s: labels %s=true and %s=cgpu contradict each other", node->name,
			     LABEL_NO_ISOLATION, LABEL_SCHEDULE);
}

/* The values of ack.node.gpu.schedule for each mode, which the other
 * editions' labels are read as too. */
#define SCHEDULE_EXCLUSIVE "default"
#define SCHEDULE_SHARE "share"
#define SCHEDULE_ISOLATE "cgpu"
#define SCHEDULE_CORE "core_mem"

static enum scheme_mode schedule_mode(const char *value)
{
	static const char *const values[SCHEME_NMODES] = {
		[SCHEME_MODE_EXCLUSIVE] = SCHEDULE_EXCLUSIVE, [SCHEME_MODE_SHARE] = SCHEDULE_SHARE,
		[SCHEME_MODE_ISOLATE] = SCHEDULE_ISOLATE, [SCHEME_MODE_CORE] = SCHEDULE_CORE,
	};

	for (int m = SCHEME_MODE_EXCLUSIVE; value && m < SCHEME_NMODES; m++)
		if (strcmp(value, values[m]) == 0)
			return (enum scheme_mode)m;
	return SCHEME_MODE_UNKNOWN;
}

/* The mode command's word for a mode read from the labels, or NULL. */
static const char *mode_word(const char *mode, bool isolation)
{
	/* ack-cgpu's cgpu=true shares without isolation when told to */
	if (strcmp(mode, SCHEDULE_ISOLATE) == 0 && !isolation)
		return scheme_mode_name(SCHEME_MODE_SHARE);
	if (schedule_mode(mode) == SCHEME_MODE_UNKNOWN)
		return NULL;
	return scheme_mode_name(schedule_mode(mode));
}

static const struct scheme_modes cgpu_modes;

/* Some edition's labels set a mode: those read_mode reads. */
static bool mode_labelled(const struct kvlist *labels)
{
	return kvlist_get(labels, LABEL_SCHEDULE) || kvlist_get(labels, LABEL_CGPU) ||
	       label_is(labels, LABEL_GPUSHARE, "true");
}

/* Mode and isolation from whichever edition's labels the node carries:
 * ACK Pro's ack.node.gpu.schedule wins, then ACK basic's cgpu /
 * cgpu.disable.isolation, then open source gpushare=true. */
static int read_mode(const struct k8s_node *node, struct scheme_node *out)
{
	const char *sched = kvlist_get(&node->labels, LABEL_SCHEDULE);
	const char *cgpu = kvlist_get(&node->labels, LABEL_CGPU);
	const char *placement = kvlist_get(&node->labels, LABEL_PLACEMENT);
	const char *mode = NULL;

	if (sched) {
		mode = sched;
		out->isolation = schedule_mode(sched) == SCHEME_MODE_ISOLATE || schedule_mode(sched) == SCHEME_MODE_CORE;
	} else if (cgpu) {
		mode = strcmp(cgpu, "true") == 0 ? SCHEDULE_ISOLATE : SCHEDULE_EXCLUSIVE;
		out->isolation = strcmp(cgpu, "true") == 0 && !label_is(&node->labels, LABEL_NO_ISOLATION, "true");
	} else if (label_is(&node->labels, LABEL_GPUSHARE, "true")) {
		mode = SCHEDULE_SHARE;
		out->isolation = false;
	}
	if (mode && !(out->mode = strdup(mode)))
		return -1;
	if (!mode)
		out->mode_word = cgpu_modes.unlabelled;
	if (mode) {
		out->mode_word = mode_word(mode, out->isolation);
		out->exclusive = schedule_mode(mode) == SCHEME_MODE_EXCLUSIVE;
	}
	if (placement && !(out->placement = strdup(placement)))
		return -1;
	out->spread = placement && strcmp(placement, "spread") == 0;
	return 0;
}

/* GiB or MiB: the card-memory label is evidence (a 16 GiB card shows as 15
 * or 16 in GiB and as ~16000 in MiB); without it, the original guess. */
static void decide_unit(const struct k8s_node *node, int64_t per_gpu, struct scheme_node *out)
{
	const char *card = kvlist_get(&node->labels, LABEL_ALIYUN_GPU_MEM);
	int64_t mib;

	out->unit = per_gpu > 100 ? UNIT_MIB : UNIT_GIB;
	out->unit_from_label = false;
	if (!card || memory_label_mib(card, &mib) < 0 || mib <= 0 || per_gpu <= 0)
		return;
	/* per_gpu * 1024 close to the card (GiB), or per_gpu itself close to it (MiB) */
	if (per_gpu * 1024 >= mib / 2 && per_gpu * 1024 <= mib * 2) {
		out->unit = UNIT_GIB;
		out->unit_from_label = true;
	} else if (per_gpu >= mib / 2 && per_gpu <= mib * 2) {
		out->unit = UNIT_MIB;
		out->unit_from_label = true;
	}
}

static int cgpu_node_decode(const struct k8s_node *node, struct scheme_node *out, struct warnings *w)
{
	char *object = NULL;
	int64_t alloc, cap, count, core, per_gpu, per_core;
	const char *card_name;

	memset(out, 0, sizeof(*out));
	if (asprintf(&object, "node/%s", node->name ? node->name : "") < 0)
		return -1;
	check_labels(node, w, object);
	if (!check_quantity(node, &node->allocatable, "allocatable", RES_MEM, w, object))
		check_quantity(node, &node->capacity, "capacity", RES_MEM, w, object);
	if (!check_quantity(node, &node->allocatable, "allocatable", RES_COUNT, w, object))
		check_quantity(node, &node->capacity, "capacity", RES_COUNT, w, object);

	alloc = resource_of(&node->allocatable, RES_MEM);
	cap = resource_of(&node->capacity, RES_MEM);
	if (alloc <= 0 && cap <= 0) {
		free(object);
		return 0;
	}
	/* the original hid such nodes; show them, and say why nothing fits */
	if (alloc <= 0)
		warnings_add(w, "NoAllocatable", object,
			     "node %s: no allocatable %s (capacity %lld): its GPU memory is withheld as unhealthy",
			     node->name, RES_MEM, (long long)cap);
	count = resource_of(&node->allocatable, RES_COUNT);
	if (count <= 0)
		count = resource_of(&node->capacity, RES_COUNT);
	if (count <= 0) {
		const char *c = kvlist_get(&node->labels, LABEL_ALIYUN_GPU_COUNT);
		int v;

		count = c && cgpu_index_parse(c, &v) == 0 && v > 0 ? v : 1;
	}
	if (count > CGPU_MAX_INDEX + 1) {
		warnings_add(w, "BadQuantity", object, "node %s: %s %lld is more GPUs than a node holds: showing %d",
			     node->name, RES_COUNT, (long long)count, CGPU_MAX_INDEX + 1);
		count = CGPU_MAX_INDEX + 1;
	}
	free(object);
	core = resource_of(&node->allocatable, RES_CORE);

	out->mem_total = alloc;
	out->mem_capacity = cap > alloc ? cap : alloc;
	out->core_total = core;
	out->ngpus = (int)count;
	out->per_gpu = true;
	per_gpu = alloc / count;
	per_core = core / count;
	decide_unit(node, (alloc > 0 ? alloc : cap) / count, out);
	if (read_mode(node, out) < 0)
		goto oom;
	out->gpus = calloc((size_t)count, sizeof(*out->gpus));
	if (!out->gpus)
		goto oom;
	card_name = kvlist_get(&node->labels, LABEL_ALIYUN_GPU_NAME);
	for (int i = 0; i < out->ngpus; i++) {
		out->gpus[i].index = i;
		out->gpus[i].mem_total = per_gpu;
		out->gpus[i].core_total = per_core;
		if (card_name && !(out->gpus[i].type = strdup(card_name)))
			goto oom;
	}
	return 1;
oom:
	scheme_node_release(out);
	return -1;
}

static struct scheme_claim *claim_at(struct scheme_pod *out, size_t *cap, int container, int gpu)
{
	struct scheme_claim *nc;

	for (size_t i = 0; i < out->nclaims; i++)
		if (out->claims[i].container == container && out->claims[i].gpu == gpu)
			return &out->claims[i];
	nc = kube_array_grow(out->claims, cap, out->nclaims + 1, sizeof(*nc), 4);
	if (!nc)
		return NULL;
	out->claims = nc;
	out->claims[out->nclaims] = (struct scheme_claim){.container = container, .gpu = gpu};
	return &out->claims[out->nclaims++];
}

static void bad_annotation(const struct k8s_pod *pod, struct warnings *w, const char *key)
{
	warnings_add(w, "BadAnnotation", NULL, "pod %s/%s: annotation %s cannot be read", pod->namespace,
		     pod->name, key);
}

/* What the pod asks of a node: its memory and compute share on one GPU, or
 * spread evenly over the GPUs its aliyun.com/gpu-count label names. */
static void read_ask(const struct k8s_pod *pod, struct scheme_pod *out)
{
	const char *v = kvlist_get(&pod->labels, RES_COUNT);
	int64_t n = 0;

	out->ask = (struct scheme_ask){.mem = out->mem, .core = out->core, .gpus = 1};
	if (v && quantity_parse_int(v, &n) == 0 && n > 1) {
		out->ask.gpus = (int)(n > SCHEME_MAX_ASK_GPUS ? SCHEME_MAX_ASK_GPUS : n);
		out->ask.mem = (out->mem + out->ask.gpus - 1) / out->ask.gpus;
		out->ask.core = (out->core + out->ask.gpus - 1) / out->ask.gpus;
	}
}

/* The pod's limits, per container and in all; 0 when it asks for none. */
static int read_limits(const struct k8s_pod *pod, struct scheme_pod *out)
{
	if (scheme_pod_alloc_containers(pod, out) < 0)
		return -1;
	for (size_t i = 0; i < pod->ncontainers; i++) {
		out->container_mem[i] = resource_of(&pod->containers[i].limits, RES_MEM);
		out->container_core[i] = resource_of(&pod->containers[i].limits, RES_CORE);
		if (out->container_mem[i] > CGPU_MAX_AMOUNT)
			out->container_mem[i] = CGPU_MAX_AMOUNT;
		if (out->container_core[i] > CGPU_MAX_AMOUNT)
			out->container_core[i] = CGPU_MAX_AMOUNT;
		out->mem += out->container_mem[i];
		out->core += out->container_core[i];
	}
	return out->mem > 0 || out->core > 0;
}

/* The entries of an allocation annotation (key), parsed; *n 0 when it has
 * none or cannot be read, which is said. */
static void read_allocation(const struct k8s_pod *pod, const char *key, struct cgpu_alloc **ret, size_t *n,
			    struct warnings *w)
{
	const char *s = kvlist_get(&pod->annotations, key);

	*ret = NULL;
	*n = 0;
	if (s && *s && cgpu_allocation_parse(s, ret, n) < 0) {
		bad_annotation(pod, w, key);
		*n = 0;
	}
}

/* The entries added to the claims: memory, or compute share. */
static int add_claims(const struct k8s_pod *pod, struct scheme_pod *out, size_t *cap, const struct cgpu_alloc *a,
		      size_t n, bool core)
{
	for (size_t i = 0; i < n; i++) {
		int c = a[i].container < (int)pod->ncontainers ? a[i].container : -1;
		struct scheme_claim *cl = claim_at(out, cap, c, a[i].gpu);

		if (!cl)
			return -1;
		*(core ? &cl->core : &cl->mem) += a[i].amount;
	}
	return 0;
}

/* GPU memory: the multi-GPU allocation when it names any GPU, else the
 * single index, else pending (as the original inspect decides); the
 * compute share from its own allocation, else with the memory. */
static int read_claims(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w)
{
	struct cgpu_alloc *mem_alloc, *core_alloc;
	size_t nmem, ncore, cap = 0;
	int rc = 0;

	read_allocation(pod, ANN_ALLOCATION, &mem_alloc, &nmem, w);
	read_allocation(pod, ANN_CORE_ALLOCATION, &core_alloc, &ncore, w);
	if (nmem > 0) {
		rc = add_claims(pod, out, &cap, mem_alloc, nmem, false);
	} else {
		const char *s = kvlist_get(&pod->annotations, ANN_IDX);
		int idx;

		if (cgpu_index_parse(s, &idx) < 0)
			idx = -1;
		if (s && idx < 0)
			bad_annotation(pod, w, ANN_IDX);
		if (!claim_at(out, &cap, -1, idx))
			rc = -1;
		else
			out->claims[0].mem = out->mem;
	}
	if (rc == 0 && ncore > 0)
		rc = add_claims(pod, out, &cap, core_alloc, ncore, true);
	else if (rc == 0 && out->core > 0)
		out->claims[0].core = out->core;
	free(mem_alloc);
	free(core_alloc);
	return rc;
}

static int cgpu_pod_decode(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w)
{
	const char *s;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = read_limits(pod, out)) <= 0) {
		scheme_pod_release(out);
		return rc;
	}
	out->node = pod->node_name;
	s = kvlist_get(&pod->annotations, ANN_ASSIGNED);
	if (!s)
		s = kvlist_get(&pod->annotations, ANN_ASSIGNED_NEW);
	out->assigned = s && strcmp(s, "true") == 0;
	if (read_claims(pod, out, w) < 0) {
		scheme_pod_release(out);
		return -1;
	}
	read_ask(pod, out);
	return 1;
}

/* --- the editions' labels, for the mode command --------------------------- */

static enum scheme_mode pro_mode_of(const struct kvlist *labels)
{
	return schedule_mode(kvlist_get(labels, LABEL_SCHEDULE));
}

static enum scheme_mode basic_mode_of(const struct kvlist *labels)
{
	if (label_is(labels, LABEL_CGPU, "false"))
		return SCHEME_MODE_EXCLUSIVE;
	if (!label_is(labels, LABEL_CGPU, "true"))
		return SCHEME_MODE_UNKNOWN;
	/* ack-cgpu isolates unless told not to */
	return label_is(labels, LABEL_NO_ISOLATION, "true") ? SCHEME_MODE_SHARE : SCHEME_MODE_ISOLATE;
}

static enum scheme_mode opensource_mode_of(const struct kvlist *labels)
{
	return label_is(labels, LABEL_GPUSHARE, "true") ? SCHEME_MODE_SHARE : SCHEME_MODE_EXCLUSIVE;
}

static const char *const pro_marks[] = {LABEL_SCHEDULE, NULL};
static const char *const basic_marks[] = {LABEL_CGPU, LABEL_NO_ISOLATION, NULL};
static const char *const opensource_marks[] = {LABEL_GPUSHARE, NULL};
static const char *const opensource_aliases[] = {"open-source", "gpushare", NULL};

/* On ACK, removing a label does not bring a node back to exclusive mode, so
 * exclusive is written as a value; the open-source device plugin's
 * DaemonSet selects gpushare=true, so there the label goes. */
static const struct scheme_edition editions[] = {
	{
		.name = "pro",
		.title = "ACK Pro (ack-ai-installer)",
		.marks = pro_marks,
		.placement_label = LABEL_PLACEMENT,
		.sets = {
			[SCHEME_MODE_EXCLUSIVE] = {{LABEL_SCHEDULE, SCHEDULE_EXCLUSIVE, NULL}},
			[SCHEME_MODE_SHARE] = {{LABEL_SCHEDULE, SCHEDULE_SHARE, NULL}},
			[SCHEME_MODE_ISOLATE] = {{LABEL_SCHEDULE, SCHEDULE_ISOLATE, NULL}},
			[SCHEME_MODE_CORE] = {{LABEL_SCHEDULE, SCHEDULE_CORE, NULL}},
		},
		.values_name_modes = true,
		.hint = "ACK Pro; =cgpu adds memory isolation",
		.mode_of = pro_mode_of,
	},
	{
		.name = "basic",
		.title = "ACK basic, ack-cgpu",
		.marks = basic_marks,
		.sets = {
			[SCHEME_MODE_EXCLUSIVE] = {{LABEL_CGPU, "false", NULL}},
			[SCHEME_MODE_SHARE] = {{LABEL_CGPU, "true", NULL}, {LABEL_NO_ISOLATION, "true", "false"}},
			[SCHEME_MODE_ISOLATE] = {{LABEL_CGPU, "true", NULL}, {LABEL_NO_ISOLATION, "false", "false"}},
		},
		.hint = "ACK basic, ack-cgpu",
		.mode_of = basic_mode_of,
	},
	{
		.name = "opensource",
		.title = "open-source gpushare",
		.aliases = opensource_aliases,
		.marks = opensource_marks,
		.sets = {
			[SCHEME_MODE_EXCLUSIVE] = {{LABEL_GPUSHARE, NULL, NULL}},
			[SCHEME_MODE_SHARE] = {{LABEL_GPUSHARE, "true", NULL}},
		},
		.hint = "open source gpushare device plugin",
		.mode_of = opensource_mode_of,
	},
};

static const char *const mode_node_labels[] = {
	LABEL_SCHEDULE, LABEL_PLACEMENT, LABEL_CGPU, LABEL_NO_ISOLATION, LABEL_GPUSHARE, POOL_LABEL, REGION_LABEL, NULL,
};
static const char *const mode_pin_labels[] = {
	LABEL_SCHEDULE, LABEL_CGPU, LABEL_NO_ISOLATION, LABEL_GPUSHARE, POOL_LABEL, NULL,
};

static const char *const mode_pod_resources[] = {RES_MEM, RES_NVIDIA_GPU, RES_CORE, NULL};

static const struct scheme_modes cgpu_modes = {
	.editions = editions,
	.neditions = sizeof(editions) / sizeof(editions[0]),
	.node_labels = mode_node_labels,
	.pin_labels = mode_pin_labels,
	.share_resource = RES_MEM,
	.whole_resource = RES_NVIDIA_GPU,
	.pod_resources = mode_pod_resources,
	.labelled = mode_labelled,
	.unlabelled = "unlabelled",
};

const struct scheme scheme_cgpu = {
	.name = "cgpu", .title = "Alibaba cGPU / gpushare", .pod_unit = UNIT_GIB, .modes = &cgpu_modes,
	.help = "GPU memory (GiB or MiB) and compute shares per GPU, from ACK's cGPU and the open-source gpushare",
	.node_fields = {.label_keys = node_labels, .resource_names = node_resources},
	.pod_fields = {.label_keys = pod_labels, .annotation_keys = pod_annotations, .resource_names = pod_resources},
	.node_decode = cgpu_node_decode, .pod_decode = cgpu_pod_decode, .place = scheme_place_shares,
};
