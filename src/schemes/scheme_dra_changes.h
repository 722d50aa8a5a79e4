/* Which nodes a change of the Dynamic Resource Allocation inventory
 * touches: given the inventory read before and the one read now (both
 * finished), the names of the nodes whose devices or whose pods' claims
 * read otherwise, or "every node" where a change is not bound to one
 * (a class, a slice placed by selector or on all nodes, a device not
 * found, more nodes than are worth naming).
 *
 * A claim is compared by its resourceVersion, a slice and a class by
 * theirs; a changed slice touches every node of its pool (a generation
 * replaces the pool's older slices).  Pure; uses scheme_dra.h.
 */
#ifndef SCHEME_DRA_CHANGES_H
#define SCHEME_DRA_CHANGES_H

#include <stdbool.h>
#include <stddef.h>

#include "scheme_dra.h"

/* Named nodes beyond this many count as every node. */
#define DRA_CHANGES_MAX_NODES 256

struct dra_changes {
	char **nodes; /* each once, malloc'd */
	size_t n, cap;
	bool all;
};

/* The nodes the change from old (NULL: nothing read before) to now
 * touches, into *ret (zeroed first).  -1 when out of memory. */
int dra_changes_find(const struct dra_inventory *old, const struct dra_inventory *now, struct dra_changes *ret);
/* Nothing changed. */
bool dra_changes_none(const struct dra_changes *c);
void dra_changes_release(struct dra_changes *c);

#endif
