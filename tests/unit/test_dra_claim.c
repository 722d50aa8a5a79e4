/* ResourceClaims folded into records: what is kept of a claim, the strings
 * many claims repeat kept once, and the arena that holds them. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "dra_claim.h"

/* A claim as the decoder gives it, allocated a share of gpu-0 of pool
 * node, with an MPS configuration, reserved for one pod. */
static struct k8s_resource_claim *claim_new(const char *name, const char *node)
{
	struct k8s_resource_claim *c = calloc(1, sizeof(*c));

	cr_assert_not_null(c);
	c->namespace = strdup("ml");
	c->name = strdup(name);
	c->results = calloc(1, sizeof(*c->results));
	c->nresults = 1;
	c->results[0] = (struct k8s_dra_result){strdup("gpu"), strdup("gpu.nvidia.com"), strdup(node), strdup("gpu-0"),
						{0}};
	cr_assert_eq(kvlist_add(&c->results[0].consumed, "memory", 6, "10Gi", 4), 0);
	c->alloc_configs = calloc(1, sizeof(*c->alloc_configs));
	c->nalloc_configs = 1;
	c->alloc_configs[0].source = strdup("FromClaim");
	c->alloc_configs[0].strategy = strdup("MPS");
	c->alloc_configs[0].mps_threads = 50;
	c->alloc_configs[0].has_mps_threads = true;
	c->reserved = calloc(1, sizeof(*c->reserved));
	c->nreserved = 1;
	c->reserved[0] = (struct k8s_dra_consumer){strdup("trainer-0")};
	c->requests = calloc(2, sizeof(*c->requests));
	c->nrequests = 2;
	c->requests[0].count = 2;
	return c;
}

Test(dra_claim, keeps_what_the_scheme_reads)
{
	struct dra_arena a = {0};
	struct k8s_resource_claim *c = claim_new("train-a", "node-1");
	const struct dra_claim *f = dra_claim_fold(&a, c);

	k8s_resource_claim_free(c);
	cr_assert_not_null(f);
	cr_assert_str_eq(f->namespace, "ml");
	cr_assert_str_eq(f->name, "train-a");
	cr_assert_eq(f->nresults, 1);
	cr_assert_str_eq(f->results[0].driver, "gpu.nvidia.com");
	cr_assert_str_eq(f->results[0].pool, "node-1");
	cr_assert_str_eq(f->results[0].device, "gpu-0");
	cr_assert_str_eq(f->results[0].request, "gpu");
	cr_assert_eq(f->results[0].mem_consumed, 10LL << 30);
	cr_assert_eq(f->nconfigs, 1);
	cr_assert(f->configs[0].from_claim);
	cr_assert_str_eq(f->configs[0].strategy, "MPS");
	cr_assert_eq(f->configs[0].mps_threads, 50);
	cr_assert(f->configs[0].has_mps_threads);
	cr_assert_eq(f->nreserved, 1);
	cr_assert_str_eq(f->reserved[0].name, "trainer-0");
	/* two of the first request's count, one of the second's (none given) */
	cr_assert_eq(f->ask_gpus, 3);
	dra_arena_release(&a);
}

Test(dra_claim, repeated_strings_are_kept_once)
{
	struct dra_arena a = {0};
	struct k8s_resource_claim *c1 = claim_new("train-a", "node-1");
	struct k8s_resource_claim *c2 = claim_new("train-b", "node-1");
	const struct dra_claim *f1 = dra_claim_fold(&a, c1), *f2 = dra_claim_fold(&a, c2);
	bool oom = false;

	cr_assert(f1 && f2);
	cr_assert_eq(f1->namespace, f2->namespace);
	cr_assert_eq(f1->results[0].pool, f2->results[0].pool);
	cr_assert_eq(f1->results[0].device, f2->results[0].device);
	cr_assert_eq(f1->configs[0].strategy, f2->configs[0].strategy);
	cr_assert_neq(f1->name, f2->name);
	cr_assert_str_eq(f2->name, "train-b");
	cr_assert_eq(dra_arena_intern(&a, "node-1", &oom), f1->results[0].pool);
	cr_assert_neq(dra_arena_intern(&a, "node-2", &oom), f1->results[0].pool);
	cr_assert_null(dra_arena_intern(&a, NULL, &oom));
	cr_assert(!oom);
	k8s_resource_claim_free(c1);
	k8s_resource_claim_free(c2);
	dra_arena_release(&a);
}

/* Many claims: the table of strings grows and keeps finding them, and the
 * records take a few hundred bytes a claim, not the kilobyte of the decoded
 * claim. */
Test(dra_claim, many_claims_stay_small)
{
	struct dra_arena a = {0};
	const struct dra_claim **f = calloc(2000, sizeof(*f));
	char name[64], node[64];

	for (int i = 0; i < 2000; i++) {
		struct k8s_resource_claim *c;

		snprintf(name, sizeof(name), "job-%d-gpu-abcde", i);
		snprintf(node, sizeof(node), "node-%d", i / 8);
		c = claim_new(name, node);
		cr_assert_not_null(f[i] = dra_claim_fold(&a, c));
		k8s_resource_claim_free(c);
	}
	for (int i = 0; i < 2000; i++) {
		bool oom = false;

		snprintf(node, sizeof(node), "node-%d", i / 8);
		cr_assert_eq(dra_arena_intern(&a, node, &oom), f[i]->results[0].pool);
		cr_assert_eq(f[i]->results[0].device, f[0]->results[0].device);
	}
	cr_assert_leq(a.bytes / 2000, 400, "%zu bytes a claim", a.bytes / 2000);
	free(f);
	dra_arena_release(&a);
	cr_assert_null(a.blocks);
}
