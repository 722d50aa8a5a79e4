/* The table of sharing schemes and the lifetimes of what they decode. */
#include "scheme.h"

#include <stdlib.h>
#include <string.h>

/* Each scheme lives in its own scheme_*.c file. */
extern const struct scheme scheme_cgpu;
extern const struct scheme scheme_cce, scheme_vgpu, scheme_hami, scheme_nvidia;

/* Detection order: the first scheme whose node_decode accepts a node owns
 * it.  cGPU comes first because its resources are the most specific. */
const struct scheme *const schemes[] = {
	&scheme_cgpu,
	&scheme_cce,
	&scheme_vgpu,
	&scheme_hami,
	&scheme_nvidia,
	NULL,
};

const struct scheme *scheme_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; schemes[i]; i++)
		if (strcmp(schemes[i]->name, name) == 0)
			return schemes[i];
	return NULL;
}

void scheme_node_release(struct scheme_node *n)
{
	if (!n)
		return;
	if (n->gpus)
		for (int i = 0; i < n->ngpus; i++) {
			free(n->gpus[i].id);
			free(n->gpus[i].type);
		}
	free(n->gpus);
	free(n->mode);
	free(n->placement);
	memset(n, 0, sizeof(*n));
}

void scheme_pod_release(struct scheme_pod *p)
{
	if (!p)
		return;
	free(p->container_mem);
	free(p->container_core);
	free(p->claims);
	memset(p, 0, sizeof(*p));
}
