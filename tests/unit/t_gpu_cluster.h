/* Small clusters for the planner's tests: nodes of 2 GPUs of the same
 * memory, pods given as node, GPU and GiB, and random ones from a fixed
 * seed for the property tests. */
#ifndef T_GPU_CLUSTER_H
#define T_GPU_CLUSTER_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "cgpu_testobj.h"

struct tpod_spec {
	int node, gpu, gib;
};

/* Nodes node-0.. of 2 GPUs of per_gpu GiB, node i in pool pools[i] (pools
 * or pools[i] NULL: no pool label), and the pods, into a finished model. */
static inline void t_cluster_build(struct model *m, int nnodes, int per_gpu, const char *const *pools,
				   const struct tpod_spec *pods, size_t npods)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true, .scheduling = true, .movable = true};
	char name[32], total[32], idx[32], mem[32], pname[32];

	cr_assert_eq(model_init(m, &o), 0);
	snprintf(total, sizeof(total), "%d", 2 * per_gpu);
	for (int i = 0; i < nnodes; i++) {
		struct k8s_node *n;

		snprintf(name, sizeof(name), "node-%d", i);
		n = tnode(name, "10.0.0.1", total, "2");
		n->ready = true;
		if (pools && pools[i])
			tkv(&n->labels, POOL_LABEL, pools[i]);
		tadd_node(m, n);
	}
	for (size_t i = 0; i < npods; i++) {
		snprintf(name, sizeof(name), "node-%d", pods[i].node);
		snprintf(idx, sizeof(idx), "%d", pods[i].gpu);
		snprintf(mem, sizeof(mem), "%d", pods[i].gib);
		snprintf(pname, sizeof(pname), "p%02zu", i);
		tadd_pod(m, tpod("ml", pname, name, "Running", idx, mem, NULL));
	}
	tfinish(m);
}

static unsigned long long t_rng_state;

/* 0 to n-1, from t_rng_state (set it to the test's seed). */
static inline unsigned t_rnd(unsigned n)
{
	t_rng_state = t_rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(t_rng_state >> 33) % n;
}

/* A random small cluster for t_cluster_build: 2 to 4 nodes of 2 GPUs of
 * 8 GiB, each GPU given up to three pods of 1 to 6 GiB that fit, each try
 * skipped one time in skip_one_in. */
static inline size_t t_random_cluster(struct tpod_spec *pods, int *nnodes, unsigned skip_one_in)
{
	size_t n = 0;

	*nnodes = 2 + (int)t_rnd(3);
	for (int node = 0; node < *nnodes; node++)
		for (int gpu = 0; gpu < 2; gpu++) {
			int used = 0;

			for (int tries = 0; tries < 3; tries++) {
				int gib = 1 + (int)t_rnd(6);

				if (used + gib > 8 || t_rnd(skip_one_in) == 0)
					continue;
				used += gib;
				pods[n++] = (struct tpod_spec){node, gpu, gib};
			}
		}
	return n;
}

#endif
