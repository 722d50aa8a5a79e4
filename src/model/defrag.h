/* Which pods to move so that a request fits: the smallest set of moves
 * (fewest pods, then least GPU memory moved) after which the request fits
 * on a node, each moved pod itself fitting on another node under its own
 * constraints.  Pure: a finished model (kept pods, with opts.movable) and
 * the rules that say which pods may move; the model is changed while the
 * plan is searched for and put back before it returns.
 *
 * A plan makes room on one node, the one the request then goes to: the
 * pods it moves are on that node, and each goes, in turn (the most memory
 * first), where fit would put it now on another node, taking its place
 * there before the next is placed.  The same check as fit decides every
 * step (fit.h).
 */
#ifndef DEFRAG_H
#define DEFRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fit.h"
#include "model.h"

#define DEFRAG_DEFAULT_MOVES 3
#define DEFRAG_MAX_MOVES 4

/* Why a pod stays where it is. */
enum defrag_stay {
	DEFRAG_MOVABLE,
	DEFRAG_NO_CONTROLLER, /* nothing would create it again */
	DEFRAG_DAEMONSET,     /* it would come back on the same node */
	DEFRAG_STATIC,	      /* a static (mirror) pod, or one a Node owns */
	DEFRAG_PRIORITY,      /* of higher priority than the request */
	DEFRAG_BUDGETS,	      /* more than one disruption budget selects it: evictions are refused */
};

/* What the command knows of the pods beyond the model. */
struct defrag_rules {
	const enum defrag_stay *stay; /* per model pod; NULL = every pod may move */
	const int *budget;	      /* per model pod: the budget that selects it, -1 = none; NULL = none */
	const int *allowed;	      /* per budget: its status.disruptionsAllowed */
	size_t nbudgets;
	int max_moves; /* 1 to DEFRAG_MAX_MOVES */
};

struct defrag_move {
	size_t pod;		/* index into model.pods */
	size_t from;		/* its node */
	int from_gpus[8];	/* the GPUs it holds there (at most 8 shown) */
	int nfrom_gpus;
	struct fit_place to;	/* where fit puts it after the moves before it (gpus malloc'd) */
	int64_t mem;		/* GPU memory it holds, in its node's unit */
	enum mem_unit unit;
};

struct defrag_plan {
	bool needed;	       /* false: the request fits now, nothing to move */
	bool found;	       /* a plan within the rules and max_moves */
	struct defrag_move *moves;
	size_t nmoves;
	int64_t mem_moved_mib; /* the memory the moves carry, in MiB */
	struct fit_place target; /* where the request goes once they are done (gpus malloc'd) */
	size_t plans_checked;	 /* sets of moves tried */
};

/* The plan for r.  0, or -1 when out of memory (the model is put back
 * either way). */
int defrag_plan(struct model *m, const struct fit_request *r, const struct defrag_rules *rules,
		struct defrag_plan *ret);
void defrag_plan_release(struct defrag_plan *p);

/* Is this set of pods (indexes into model.pods, all on one node) a plan
 * for r under the rules?  The definition defrag_plan searches by, for a
 * check by exhaustive search: 1 (and, when ret is not NULL, the moves and
 * the target filled), 0, or -1 when out of memory.  The model is put back. */
int defrag_check_set(struct model *m, const struct fit_request *r, const struct defrag_rules *rules,
		     const size_t *pods, size_t n, struct defrag_plan *ret);

/* The request a pod on a node makes of another: its ask and constraints. */
void defrag_pod_request(const struct model_pod *p, struct fit_request *ret);

/* Do the budgets allow moving these pods together (no budget selecting
 * more of them than its disruptionsAllowed)? */
bool defrag_budgets_allow(const struct defrag_rules *rules, const size_t *pods, size_t n);

/* The GPU memory a pod holds on its GPUs, in MiB. */
int64_t defrag_pod_mib(const struct model *m, const struct model_pod *p);

#endif
