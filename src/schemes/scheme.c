/* The table of sharing schemes, detection, the card labels every scheme's
 * nodes are read for, and the lifetimes of what the schemes decode. */
#include "scheme.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scheme_keys.h"
#include "warnings.h"

/* Each scheme lives in its own scheme_*.c file. */
extern const struct scheme scheme_cgpu;
extern const struct scheme scheme_cce, scheme_vgpu, scheme_hami, scheme_nvidia, scheme_dra;

/* Detection order: the first scheme whose node_decode accepts a node owns
 * it.  cGPU comes first because its resources are the most specific; DRA
 * before the whole-GPU scheme, whose nvidia.com/gpu a DeviceClass may
 * serve through a claim. */
const struct scheme *const schemes[] = {
	&scheme_cgpu,
	&scheme_cce,
	&scheme_vgpu,
	&scheme_hami,
	&scheme_dra,
	&scheme_nvidia,
	NULL,
};

const struct scheme *scheme_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; schemes[i]; i++)
		if (strcasecmp(schemes[i]->name, name) == 0) /* as --unit: HAMI is hami */
			return schemes[i];
	return NULL;
}

char *scheme_names_text(void)
{
	size_t n = 0, len = 1;
	char *s;

	for (n = 0; schemes[n]; n++)
		len += strlen(schemes[n]->name) + 4;
	if (!(s = malloc(len)))
		return NULL;
	*s = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, i + 1 == n ? " or " : ", ");
		strcat(s, schemes[i]->name);
	}
	return s;
}

const struct scheme_modes *scheme_modes_find(void)
{
	for (size_t i = 0; schemes[i]; i++)
		if (schemes[i]->modes)
			return schemes[i]->modes;
	return NULL;
}

/* One walk for both detections: node is NULL when a pod is decoded. */
static int scheme_detect(const char *only, const struct scheme_objects *objs, const struct k8s_node *node,
			 const struct k8s_pod *pod, void *out, struct warnings *w, const struct scheme **ret_sc)
{
	*ret_sc = NULL;
	for (size_t i = 0; schemes[i]; i++) {
		const struct scheme *sc = schemes[i];
		int rc;

		if (only && strcmp(only, sc->name) != 0)
			continue;
		if (node)
			rc = sc->node_decode ? sc->node_decode(node, out, w) : sc->node_decode_in(objs, node, out, w);
		else
			rc = sc->pod_decode ? sc->pod_decode(pod, out, w) : sc->pod_decode_in(objs, pod, out, w);
		if (rc > 0)
			*ret_sc = sc;
		if (rc != 0)
			return rc;
	}
	return 0;
}

static const char *const card_labels[] = {
	LABEL_ALIYUN_ACCELERATOR, LABEL_NVIDIA_GPU_PRODUCT, LABEL_NVIDIA_GPU_MEMORY, NULL,
};

const struct decode_filter scheme_card_fields = {.label_keys = card_labels};

/* Alibaba Cloud's label first, then GPU feature discovery's. */
const char *const scheme_card_model_labels[] = {LABEL_ALIYUN_GPU_NAME, LABEL_NVIDIA_GPU_PRODUCT, NULL};

/* The card's model and memory, Alibaba Cloud's labels first.  0, or -1
 * when out of memory. */
static int read_card(const struct k8s_node *node, struct scheme_node *out)
{
	const char *v = NULL;

	for (size_t i = 0; !v && scheme_card_model_labels[i]; i++)
		v = kvlist_get(&node->labels, scheme_card_model_labels[i]);
	if (v && !(out->card_model = strdup(v)))
		return -1;
	v = kvlist_get(&node->labels, LABEL_ALIYUN_GPU_MEM);
	if (!v || memory_label_mib(v, &out->card_mem_mib) < 0) {
		out->card_mem_mib = 0;
		v = kvlist_get(&node->labels, LABEL_NVIDIA_GPU_MEMORY);
		if (v && memory_label_mib(v, &out->card_mem_mib) < 0)
			out->card_mem_mib = 0;
	}
	return 0;
}

int scheme_detect_node(const char *only, const struct scheme_objects *objs, const struct k8s_node *node,
		       struct scheme_node *out, struct warnings *w, const struct scheme **ret_sc)
{
	int rc = scheme_detect(only, objs, node, NULL, out, w, ret_sc);

	if (rc > 0 && read_card(node, out) < 0) {
		scheme_node_release(out);
		*ret_sc = NULL;
		return -1;
	}
	return rc;
}

/* Which of two asks takes more of a node: memory over all its GPUs, then
 * GPUs, then compute. */
static bool ask_larger(const struct scheme_ask *a, const struct scheme_ask *b)
{
	int64_t ma = a->mem * (a->gpus > 0 ? a->gpus : 1), mb = b->mem * (b->gpus > 0 ? b->gpus : 1);

	if (ma != mb)
		return ma > mb;
	if (a->gpus != b->gpus)
		return a->gpus > b->gpus;
	return a->core > b->core;
}

/* The scheduler counts the larger of the largest init container and the
 * sum of the containers, with the sidecars (init containers that keep
 * running) in the sum.  out is what the containers and sidecars hold; its
 * ask becomes an init container's where that one alone asks more. */
static int init_containers_ask(const struct scheme *sc, const struct k8s_pod *pod, struct scheme_pod *out)
{
	struct k8s_pod view = *pod;

	/* a scheme that reads other objects (claims) than the pod's limits */
	if (!sc->pod_decode)
		return 0;
	for (size_t i = 0; i < pod->ninit_containers; i++) {
		struct scheme_pod ip = {0};
		struct warnings iw = {0};
		int rc;

		if (pod->init_containers[i].restart_always)
			continue;
		view.containers = &pod->init_containers[i];
		view.ncontainers = 1;
		rc = sc->pod_decode(&view, &ip, &iw);
		warnings_release(&iw);
		if (rc > 0 && ask_larger(&ip.ask, &out->ask))
			out->ask = ip.ask;
		scheme_pod_release(&ip);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int scheme_detect_pod(const char *only, const struct scheme_objects *objs, const struct k8s_pod *pod,
		      struct scheme_pod *out, struct warnings *w, const struct scheme **ret_sc)
{
	struct k8s_pod view = *pod;
	struct k8s_container *all;
	int rc;

	if (!pod->ninit_containers)
		return scheme_detect(only, objs, NULL, pod, out, w, ret_sc);
	/* the containers first (the per-container figures stay in their
	 * order), then the sidecars */
	if (!(all = calloc(pod->ncontainers + pod->ninit_containers, sizeof(*all))))
		return -1;
	view.containers = all;
	view.ncontainers = pod->ncontainers;
	if (pod->ncontainers)
		memcpy(all, pod->containers, pod->ncontainers * sizeof(*all));
	for (size_t i = 0; i < pod->ninit_containers; i++)
		if (pod->init_containers[i].restart_always)
			all[view.ncontainers++] = pod->init_containers[i];
	rc = scheme_detect(only, objs, NULL, &view, out, w, ret_sc);
	if (rc > 0 && init_containers_ask(*ret_sc, pod, out) < 0) {
		scheme_pod_release(out);
		*ret_sc = NULL;
		rc = -1;
	}
	free(all);
	return rc;
}

void scheme_node_release(struct scheme_node *n)
{
	if (!n)
		return;
	if (n->gpus)
		for (int i = 0; i < n->ngpus; i++) {
			free(n->gpus[i].id);
			free(n->gpus[i].type);
			free(n->gpus[i].sharing);
		}
	free(n->gpus);
	free(n->mode);
	free(n->placement);
	free(n->card_model);
	memset(n, 0, sizeof(*n));
}

void scheme_pod_release(struct scheme_pod *p)
{
	if (!p)
		return;
	free(p->container_mem);
	free(p->container_core);
	free(p->claims);
	free(p->via);
	memset(p, 0, sizeof(*p));
}

const char *mem_unit_name(enum mem_unit u)
{
	return u == UNIT_GIB ? "GiB" : u == UNIT_MIB ? "MiB" : "slots";
}

const char *scheme_mode_name(enum scheme_mode m)
{
	static const char *const names[SCHEME_NMODES] = {
		[SCHEME_MODE_UNKNOWN] = "unknown", [SCHEME_MODE_EXCLUSIVE] = "exclusive", [SCHEME_MODE_SHARE] = "share",
		[SCHEME_MODE_ISOLATE] = "isolate", [SCHEME_MODE_CORE] = "core",
	};

	return (unsigned)m < SCHEME_NMODES ? names[m] : "unknown";
}
