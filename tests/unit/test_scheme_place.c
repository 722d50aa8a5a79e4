/* The placement rules the schemes share, on nodes made in the test: no
 * model, only what a rule is handed. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "scheme.h"
#include "scheme_place.h"

/* A node of n GPUs of 15 (in its unit) with these allocated. */
static struct scheme_place_node node_of(struct scheme_place_gpu *g, int n, const int64_t *alloc, bool spread)
{
	struct scheme_place_node pn = {.unit = UNIT_GIB, .per_gpu = true, .spread = spread, .ngpus = n, .gpus = g};

	for (int i = 0; i < n; i++) {
		g[i] = (struct scheme_place_gpu){.index = i, .mem_total = 15, .mem_allocated = alloc[i], .usable = true};
		pn.mem_total += 15;
		pn.mem_allocated += alloc[i];
	}
	return pn;
}

Test(scheme_place, binpack_takes_the_least_room_spread_the_most)
{
	static const int64_t alloc[] = {11, 4, 0};
	struct scheme_place_gpu g[3];
	struct scheme_place_node pn = node_of(g, 3, alloc, false);
	struct scheme_ask a = {.mem = 4, .gpus = 1};
	struct scheme_placement pl;

	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_FITS);
	cr_assert_eq(pl.ngpus, 1);
	cr_assert_eq(pl.gpus[0], 0);
	cr_assert_eq(pl.free_after, 0);
	free(pl.gpus);
	pn.spread = true;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.gpus[0], 2);
	cr_assert_eq(pl.free_after, 11);
	free(pl.gpus);
	a.mem = 12;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.gpus[0], 2);
	free(pl.gpus);
	a.gpus = 2;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_MEMORY);
	cr_assert_null(pl.gpus);
	a.gpus = 4;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_FEW_GPUS);
}

Test(scheme_place, compute_share_needs_shared_compute)
{
	static const int64_t alloc[] = {0};
	struct scheme_place_gpu g[1];
	struct scheme_place_node pn = node_of(g, 1, alloc, false);
	struct scheme_ask a = {.mem = 4, .core = 30, .gpus = 1};
	struct scheme_placement pl;

	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_NO_CORE);
	pn.core_total = g[0].core_total = 100;
	g[0].core_allocated = pn.core_allocated = 80;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_CORE);
}

Test(scheme_place, vgpus_need_a_slot_and_a_whole_card_without_memory)
{
	static const int64_t alloc[] = {4, 0};
	struct scheme_place_gpu g[2];
	struct scheme_place_node pn = node_of(g, 2, alloc, false);
	struct scheme_ask a = {.gpus = 1};
	struct scheme_placement pl;

	g[0].npods = 1;
	g[0].slots = g[1].slots = 1;
	/* no memory: the whole of the unused card */
	cr_assert_eq(scheme_place_vgpus(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_FITS);
	cr_assert_eq(pl.gpus[0], 1);
	cr_assert_eq(pl.free_after, 0);
	free(pl.gpus);
	/* the same under the shared rule takes no memory at all */
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.gpus[0], 0);
	free(pl.gpus);
	g[1].npods = 1;
	a.mem = 2;
	cr_assert_eq(scheme_place_vgpus(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_SLOTS);
}

Test(scheme_place, without_the_split_the_node_and_one_card)
{
	struct scheme_place_node pn = {.unit = UNIT_MIB, .ngpus = 2, .mem_total = 32000, .mem_allocated = 10000};
	struct scheme_ask a = {.mem = 17000, .gpus = 1};
	struct scheme_placement pl;

	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_CARD);
	cr_assert(pl.unpublished);
	a.mem = 12000;
	a.gpus = 2;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_MEMORY);
	a.gpus = 1;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_FITS);
	cr_assert_eq(pl.free_after, 10000);

	/* slots: whole GPUs or replicas free on the node */
	pn = (struct scheme_place_node){.unit = UNIT_SLOTS, .mem_total = 4, .mem_allocated = 3};
	a = (struct scheme_ask){.gpus = 2};
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_SLOTS);
	cr_assert_not(pl.unpublished);
}

Test(scheme_place, compute_alone_skips_a_gpu_with_no_memory_free)
{
	/* GPU 0 over-allocated, GPU 1 full, GPU 2 with room */
	static const int64_t alloc[] = {17, 15, 3};
	struct scheme_place_gpu g[3];
	struct scheme_place_node pn = node_of(g, 3, alloc, false);
	struct scheme_ask a = {.core = 30, .gpus = 1};
	struct scheme_placement pl;

	pn.core_total = 300;
	for (int i = 0; i < 3; i++)
		g[i].core_total = 100;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_FITS);
	cr_assert_eq(pl.gpus[0], 2);
	cr_assert_eq(pl.free_after, 12);
	free(pl.gpus);
	g[2].mem_allocated = 15;
	cr_assert_eq(scheme_place_shares(&pn, &a, &pl), 0);
	cr_assert_eq(pl.misfit, SCHEME_MISFIT_MEMORY);
}
