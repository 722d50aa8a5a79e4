/* Who holds the GPUs: the model's allocation rolled up per namespace, node
 * pool, GPU model, node or owning workload (--by).  Pure, from a finished
 * model; memory is never added across units, so there is a row per group
 * and unit. */
#ifndef MODEL_GROUP_H
#define MODEL_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum model_by {
	BY_NONE,
	BY_NAMESPACE, /* pods' namespaces (the model must keep pods) */
	BY_POOL,      /* nodes' pools */
	BY_MODEL,     /* nodes' GPU models */
	BY_NODE,
	BY_OWNER, /* pods' controlling workloads (opts.owners) */
};

struct model_group_row {
	char *key; /* "<none>" when the pod or node has none */
	enum mem_unit unit;
	size_t nodes, pods;
	int64_t mem_allocated, mem_total; /* mem_total only for node groupings */
	int64_t core_allocated;
};

struct model_groups {
	enum model_by by;
	bool per_node; /* rows are sums of nodes (totals known) */
	struct model_group_row *rows; /* by key, then unit */
	size_t n;
};

/* 0, or -1 when out of memory. */
int model_group(const struct model *m, enum model_by by, struct model_groups *ret);
void model_groups_release(struct model_groups *g);
/* "namespace", "pool", "model", "node", "owner"; parse returns -1 on another word. */
const char *model_by_name(enum model_by by);
int model_by_parse(const char *s, enum model_by *ret);

#endif
