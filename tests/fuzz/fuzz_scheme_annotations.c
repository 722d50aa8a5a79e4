/* libFuzzer target for the annotation and quantity readers of the cce,
 * volcano-vgpu, hami and nvidia schemes.
 *
 * The input is split at 0x00 bytes into up to eight values that fill the
 * annotations, labels and resources those schemes read, on one node and
 * one pod; every scheme's node and pod decoder then runs over both.  The
 * first byte picks which value goes where, so the corpus can explore
 * combinations (a register with a matching pod allocation, a cordon list
 * for the same UUIDs, ...). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "objects.h"
#include "scheme.h"
#include "warnings.h"

extern const struct scheme scheme_cce, scheme_vgpu, scheme_hami, scheme_nvidia;

enum where { W_NODE_ANN, W_NODE_LABEL, W_NODE_ALLOC, W_NODE_CAP, W_POD_ANN, W_POD_LIMIT };

struct slot {
	enum where where;
	const char *key;
};

/* Keys grouped by what reads them; the selector byte rotates through. */
static const struct slot slots[] = {
	{W_NODE_ANN, "hami.io/node-nvidia-register"},
	{W_POD_ANN, "hami.io/vgpu-devices-allocated"},
	{W_NODE_ANN, "hami.io/device-cordon"},
	{W_NODE_ANN, "hami.io/node-handshake"},
	{W_POD_ANN, "hami.io/bind-phase"},
	{W_POD_ANN, "hami.io/vgpu-devices-to-allocate"},
	{W_POD_ANN, "hami.io/vgpu-node"},
	{W_POD_LIMIT, "nvidia.com/gpumem"},
	{W_NODE_ANN, "volcano.sh/node-vgpu-register"},
	{W_POD_ANN, "volcano.sh/vgpu-ids-new"},
	{W_POD_ANN, "volcano.sh/devices-to-allocate"},
	{W_POD_ANN, "volcano.sh/bind-phase"},
	{W_POD_ANN, "volcano.sh/gpu-index"},
	{W_POD_LIMIT, "volcano.sh/gpu-memory"},
	{W_NODE_CAP, "volcano.sh/gpu-memory"},
	{W_NODE_CAP, "volcano.sh/gpu-number"},
	{W_POD_LIMIT, "volcano.sh/vgpu-number"},
	{W_POD_LIMIT, "volcano.sh/vgpu-memory"},
	{W_POD_LIMIT, "volcano.sh/vgpu-cores"},
	{W_NODE_ALLOC, "volcano.sh/vgpu-memory"},
	{W_NODE_ALLOC, "volcano.sh/gpu-mem.128Mi"},
	{W_NODE_CAP, "volcano.sh/gpu-core.percentage"},
	{W_POD_LIMIT, "volcano.sh/gpu-mem.128Mi"},
	{W_POD_LIMIT, "volcano.sh/gpu-core.percentage"},
	{W_NODE_ALLOC, "nvidia.com/gpu"},
	{W_NODE_CAP, "nvidia.com/gpu.shared"},
	{W_NODE_LABEL, "nvidia.com/gpu.count"},
	{W_NODE_LABEL, "nvidia.com/gpu.replicas"},
	{W_NODE_LABEL, "nvidia.com/gpu.sharing-strategy"},
	{W_NODE_LABEL, "aliyun.accelerator/nvidia_count"},
	{W_POD_LIMIT, "nvidia.com/gpu"},
	{W_POD_LIMIT, "nvidia.com/gpucores"},
};
#define NSLOTS (sizeof(slots) / sizeof(*slots))

static void put(struct k8s_node *n, struct k8s_pod *p, const struct slot *s, const char *v, size_t len)
{
	struct kvlist *l = NULL;
	size_t c = len % 2; /* spread limits over both containers */

	switch (s->where) {
	case W_NODE_ANN:
		l = &n->annotations;
		break;
	case W_NODE_LABEL:
		l = &n->labels;
		break;
	case W_NODE_ALLOC:
		l = &n->allocatable;
		break;
	case W_NODE_CAP:
		l = &n->capacity;
		break;
	case W_POD_ANN:
		l = &p->annotations;
		break;
	case W_POD_LIMIT:
		l = &p->containers[c].limits;
		break;
	}
	if (!kvlist_get(l, s->key))
		kvlist_add(l, s->key, strlen(s->key), v, len);
}

static void run(const struct scheme *sc, const struct k8s_node *n, const struct k8s_pod *p)
{
	struct scheme_node sn;
	struct scheme_pod sp;
	struct warnings w = {0};

	/* a scheme that reads objects of its own has its own target */
	if (!sc->node_decode || !sc->pod_decode)
		return;
	if (sc->node_decode(n, &sn, &w) > 0) {
		/* what the model relies on */
		if (sn.ngpus < 0 || (sn.per_gpu && sn.ngpus && !sn.gpus))
			abort();
		for (int i = 0; sn.gpus && i < sn.ngpus; i++)
			if (sn.gpus[i].index != i || sn.gpus[i].mem_total < 0)
				abort();
		scheme_node_release(&sn);
	}
	if (sc->pod_decode(p, &sp, &w) > 0) {
		if (sp.mem < 0 || sp.core < 0)
			abort();
		for (size_t i = 0; i < sp.nclaims; i++) {
			if (sp.claims[i].container >= (int)p->ncontainers ||
			    (sp.claims[i].device_id && !*sp.claims[i].device_id))
				abort();
			if (sp.claims[i].device_id)
				for (const char *c = sp.claims[i].device_id; *c; c++)
					if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
						abort();
		}
		scheme_pod_release(&sp);
	}
	warnings_release(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct k8s_node *n = calloc(1, sizeof(*n));
	struct k8s_pod *p = calloc(1, sizeof(*p));
	size_t sel, start, part = 0;

	if (!n || !p || size == 0)
		goto out;
	n->name = strdup("fuzz-node");
	p->namespace = strdup("fuzz");
	p->name = strdup("fuzz-pod");
	p->node_name = strdup("fuzz-node");
	p->phase = strdup("Running");
	p->containers = calloc(2, sizeof(*p->containers));
	if (!n->name || !p->namespace || !p->name || !p->node_name || !p->phase || !p->containers)
		goto out;
	p->ncontainers = 2;
	p->containers[0].name = strdup("a");
	p->containers[1].name = strdup("b");

	sel = data[0];
	start = 1;
	for (size_t i = 1; i <= size && part < 8; i++) {
		if (i == size || data[i] == 0) {
			const struct slot *s = &slots[(sel * 7 + part * 5 + (sel >> 5) * part) % NSLOTS];
			put(n, p, s, (const char *)data + start, i - start);
			start = i + 1;
			part++;
		}
	}
	run(&scheme_cce, n, p);
	run(&scheme_vgpu, n, p);
	run(&scheme_hami, n, p);
	run(&scheme_nvidia, n, p);
out:
	k8s_node_free(n);
	k8s_pod_free(p);
	return 0;
}
