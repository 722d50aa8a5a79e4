/* The shared placement rules: see scheme_place.h. */
#include "scheme_place.h"

#include <stdlib.h>
#include <string.h>

struct cand {
	int gpu;
	int64_t free;
};

static int cmp_cand_asc(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->free != y->free)
		return x->free < y->free ? -1 : 1;
	return x->gpu - y->gpu;
}

static int cmp_cand_desc(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->free != y->free)
		return x->free > y->free ? -1 : 1;
	return x->gpu - y->gpu;
}

static int64_t gpu_free(const struct scheme_place_gpu *g)
{
	int64_t f = g->mem_total - g->mem_allocated;

	return f > 0 ? f : 0;
}

/* Counts of the GPUs that passed each test in turn, for the reason. */
struct passed {
	int usable, by_slot, by_mem, nc;
};

/* The memory a vGPU ask needs on g, or -1 when g cannot take it at all. */
static int64_t vgpu_want(const struct scheme_place_gpu *g, const struct scheme_ask *a, struct passed *p)
{
	if (g->slots > 0 && g->npods >= (size_t)g->slots)
		return -1;
	/* a compute share of the whole GPU, or a GPU held whole, is exclusive */
	if ((a->core >= 100 && g->npods) || (g->core_total > 0 && g->core_allocated >= g->core_total))
		return -1;
	p->by_slot++;
	if (a->mem)
		return a->mem;
	/* no memory limit: the whole card */
	return g->npods || g->mem_allocated ? -1 : g->mem_total;
}

static enum scheme_misfit misfit(const struct passed *p, const struct scheme_ask *a, bool vgpu)
{
	if (p->usable < a->gpus)
		return SCHEME_MISFIT_FEW_GPUS;
	if (vgpu && p->by_slot < a->gpus)
		return SCHEME_MISFIT_SLOTS;
	if (p->by_mem < a->gpus)
		return SCHEME_MISFIT_MEMORY;
	if (p->nc < a->gpus)
		return SCHEME_MISFIT_CORE;
	return SCHEME_FITS;
}

/* Pick a->gpus GPUs that pass, in the node's order. */
static int per_gpu(const struct scheme_place_node *n, const struct scheme_ask *a, bool vgpu,
		   struct scheme_placement *ret)
{
	struct passed p = {0};
	struct cand *c;

	if (a->core > 0 && !vgpu && n->core_total <= 0) {
		ret->misfit = SCHEME_MISFIT_NO_CORE;
		return 0;
	}
	if (!(c = calloc((size_t)n->ngpus + 1, sizeof(*c))))
		return -1;
	for (int i = 0; i < n->ngpus; i++) {
		const struct scheme_place_gpu *g = &n->gpus[i];
		int64_t f = gpu_free(g), want = a->mem;

		if (!g->usable)
			continue;
		p.usable++;
		if (vgpu && (want = vgpu_want(g, a, &p)) < 0)
			continue;
		/* a share without memory (--core alone) still needs a GPU whose
		 * memory is not all given out */
		if (f < want || (!vgpu && want == 0 && f == 0))
			continue;
		p.by_mem++;
		if (a->core > 0 && g->core_total > 0 && g->core_total - g->core_allocated < a->core)
			continue;
		c[p.nc++] = (struct cand){g->index, f - want};
	}
	ret->misfit = misfit(&p, a, vgpu);
	if (ret->misfit == SCHEME_FITS) {
		qsort(c, (size_t)p.nc, sizeof(*c), n->spread ? cmp_cand_desc : cmp_cand_asc);
		if (!(ret->gpus = calloc((size_t)a->gpus, sizeof(int)))) {
			free(c);
			return -1;
		}
		for (int i = 0; i < a->gpus; i++) {
			ret->gpus[i] = c[i].gpu;
			ret->free_after += c[i].free;
		}
		ret->ngpus = a->gpus;
	}
	free(c);
	return 0;
}

/* Without a per-GPU split: free slots, or the node's memory, never more
 * than one card of it for one GPU. */
static void per_node(const struct scheme_place_node *n, const struct scheme_ask *a, struct scheme_placement *ret)
{
	int64_t free_mem = n->mem_total - n->mem_allocated, free_core = n->core_total - n->core_allocated;
	int64_t need = a->mem * a->gpus, card = n->ngpus > 0 ? n->mem_total / n->ngpus : n->mem_total;

	if (n->unit == UNIT_SLOTS) {
		if (free_mem < a->gpus)
			ret->misfit = SCHEME_MISFIT_SLOTS;
		ret->free_after = free_mem - a->gpus;
		return;
	}
	ret->unpublished = true;
	if (a->core > 0 && n->core_total <= 0)
		ret->misfit = SCHEME_MISFIT_NO_CORE;
	else if (a->mem > card)
		ret->misfit = SCHEME_MISFIT_CARD;
	else if (free_mem < need)
		ret->misfit = SCHEME_MISFIT_MEMORY;
	else if (a->core > 0 && free_core < a->core * a->gpus)
		ret->misfit = SCHEME_MISFIT_CORE;
	ret->free_after = free_mem - need;
}

static int place(const struct scheme_place_node *n, const struct scheme_ask *a, bool vgpu,
		 struct scheme_placement *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (n->per_gpu && n->ngpus > 0 && n->unit != UNIT_SLOTS)
		return per_gpu(n, a, vgpu, ret);
	per_node(n, a, ret);
	return 0;
}

int scheme_place_shares(const struct scheme_place_node *n, const struct scheme_ask *a, struct scheme_placement *ret)
{
	return place(n, a, false, ret);
}

int scheme_place_vgpus(const struct scheme_place_node *n, const struct scheme_ask *a, struct scheme_placement *ret)
{
	return place(n, a, true, ret);
}
