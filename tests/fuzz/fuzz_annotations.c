/* libFuzzer target for the cGPU annotation readers: the multi-GPU allocation
 * JSON, the GPU index, and a whole pod through the scheme and the model.
 *
 * Input: allocation annotation, '\n', core-percentage annotation, '\n',
 * ALIYUN_COM_GPU_MEM_IDX value (any part may be missing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "scheme_cgpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *part(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	const uint8_t *stop = nl ? nl : end;
	char *s = malloc((size_t)(stop - *p) + 1);

	if (!s)
		abort();
	memcpy(s, *p, (size_t)(stop - *p));
	s[stop - *p] = '\0';
	*p = nl ? nl + 1 : end;
	return s;
}

static void add(struct kvlist *l, const char *k, const char *v)
{
	if (kvlist_add(l, k, strlen(k), v, strlen(v)) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	char *alloc = part(&p, end), *core = part(&p, end), *idx = part(&p, end);
	struct cgpu_alloc *items = NULL;
	size_t n = 0;
	int i;
	struct k8s_node *node = calloc(1, sizeof(*node));
	struct k8s_pod *pod = calloc(1, sizeof(*pod));
	struct model m;
	struct model_options mo = {.keep_pods = true, .force_unit = -1};
	struct kerr err = KERR_INIT;

	if (cgpu_allocation_parse(alloc, &items, &n) == 0) {
		for (size_t k = 0; k < n; k++)
			if (items[k].gpu < 0 || items[k].gpu > CGPU_MAX_INDEX || items[k].amount < 0 ||
			    items[k].amount > CGPU_MAX_AMOUNT)
				abort();
		free(items);
	}
	if (cgpu_index_parse(idx, &i) == 0 && (i < 0 || i > CGPU_MAX_INDEX))
		abort();

	if (!node || !pod || !(node->name = strdup("n")) || !(pod->namespace = strdup("ns")) ||
	    !(pod->name = strdup("p")) || !(pod->node_name = strdup("n")))
		abort();
	add(&node->allocatable, "aliyun.com/gpu-mem", "30");
	add(&node->allocatable, "aliyun.com/gpu-count", "2");
	add(&pod->annotations, "scheduler.framework.gpushare.allocation", alloc);
	add(&pod->annotations, "gpushare.alibabacloud.com/core-percentage", core);
	add(&pod->annotations, "ALIYUN_COM_GPU_MEM_IDX", idx);
	pod->containers = calloc(2, sizeof(*pod->containers));
	if (!pod->containers)
		abort();
	pod->ncontainers = 2;
	pod->containers[0].name = strdup("a");
	pod->containers[1].name = strdup("b");
	add(&pod->containers[0].limits, "aliyun.com/gpu-mem", "3");
	add(&pod->containers[1].limits, "aliyun.com/gpu-core.percentage", "20");

	if (model_init(&m, &mo) == 0) {
		model_add_pod(&m, pod, &err);
		model_add_node(&m, node, &err);
		model_finish(&m, &err);
		model_release(&m);
	}
	kerr_release(&err);
	k8s_pod_free(pod);
	k8s_node_free(node);
	free(alloc);
	free(core);
	free(idx);
	return 0;
}
