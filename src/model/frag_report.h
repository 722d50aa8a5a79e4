/* Fragmentation per pool and scheme: the free memory, the stranded part of
 * it (model_node.stranded, summed), and the whole GPUs that could be freed
 * by moving every pod they hold elsewhere, with the moves.
 *
 * A GPU counts as freeable only when defrag's own check (defrag.h:
 * defrag_check_set) accepts the set of pods it holds as a plan for "one
 * whole GPU of this node's memory": the pods lifted, the request fitting
 * on the node, each pod placed by fit on another node under its own
 * constraints, within the rules (pods that may not move, budgets,
 * max_moves).  Each freed GPU's moves stand alone: two freed GPUs of a pool
 * are not claimed to be freeable together.
 *
 * Bounded: per group the GPUs are tried least memory held first, and the
 * search stops after FRAG_FREED_MAX freed or FRAG_CHECKS_MAX checks, and
 * the whole report after FRAG_CHECKS_TOTAL checks; the GPUs left untried
 * are counted.  Nodes counted in slots, nodes that do not
 * publish which GPU a pod holds and GPUs whose memory is not known are
 * counted apart and never as freeable.  Pure: the model is changed while
 * searching and put back.
 */
#ifndef FRAG_REPORT_H
#define FRAG_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "defrag.h"
#include "model.h"

#define FRAG_FREED_MAX 3
#define FRAG_CHECKS_MAX 64
#define FRAG_CHECKS_TOTAL 512

/* Why a GPU holding pods was not found freeable. */
enum frag_blocked {
	FRAG_BLOCKED_STAY,	  /* a pod on it may not move (defrag_stay) */
	FRAG_BLOCKED_BUDGET,	  /* its pods' budgets allow fewer disruptions */
	FRAG_BLOCKED_MOVES,	  /* more pods than max_moves */
	FRAG_BLOCKED_NOWHERE,	  /* checked: a pod finds no place elsewhere */
	FRAG_BLOCKED_COUNT
};

/* One GPU that could be freed, and how. */
struct frag_freed {
	size_t node; /* index into model.nodes */
	int gpu;     /* its index */
	int64_t held; /* the memory it holds now, in the node's unit */
	struct defrag_plan plan;
};

/* One row: the nodes of one pool, scheme and unit. */
struct frag_group {
	const char *pool;   /* NULL: no pool label */
	const char *scheme; /* the scheme's name */
	enum mem_unit unit;
	size_t nodes, gpus;
	int64_t mem_free;	/* the nodes' model_node_free (in slots where the unit is) */
	int64_t common_request; /* 0: no pod of the pool asks memory */
	int64_t stranded;	/* the nodes' model_node.stranded */
	size_t unpublished_nodes; /* nodes without a per-GPU split: no GPU of theirs tried */
	size_t unknown_gpus;	  /* GPUs whose memory is not known, or not all of whose holders are known */
	size_t held_gpus;	  /* usable GPUs of schedulable nodes holding pods (those tried) */
	size_t blocked[FRAG_BLOCKED_COUNT];
	size_t unchecked; /* held GPUs not tried: the search stopped */
	struct frag_freed *freed;
	size_t nfreed;
	size_t checks;
};

struct frag_report {
	struct frag_group *groups; /* by pool (no pool last), scheme, unit */
	size_t ngroups;
	int max_moves;
};

/* The report over every node of m (of the scheme named, when not NULL).
 * 0, or -1 when out of memory (the model is put back either way). */
int frag_report_build(struct model *m, const struct defrag_rules *rules, const char *scheme, struct frag_report *ret);
void frag_report_release(struct frag_report *r);

/* The request one whole GPU of node `node` makes: its memory in MiB, on
 * one GPU, tolerating every taint (the pods now there are tolerated). */
void frag_whole_gpu_request(const struct model *m, size_t node, int64_t mem_total, struct fit_request *ret);

/* The pods holding GPU `gpu` of node `node` (indexes into model.pods),
 * at most max: how many there are, or -1 when not every holder is a pod
 * of the model (the GPU's figures count more than its pods). */
long frag_gpu_holders(const struct model *m, size_t node, int gpu, size_t *ret, size_t max);

#endif
