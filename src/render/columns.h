/* The node columns, as data: one table drives the summary table's headers
 * and cells, the JSON keys of the node fields they show, the live view's
 * headers and the sort keys.  Adding a column means adding one entry.
 *
 * Uses the model (model.h); used by the renderers and the live view.
 */
#ifndef COLUMNS_H
#define COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum column_id {
	COL_NAME,
	COL_IP,
	COL_GPU,     /* one per GPU index, up to model.max_gpus */
	COL_PENDING, /* only when some pod holds memory without a GPU index */
	COL_MEMORY,
	COL_USED, /* memory in use, when a usage source is configured */
	COL_CORE, /* only when the cluster shares compute */
	COL_MODEL,
	COL_CARD_MEM,
	COL_MODE,
	COL_ISOLATION,
	COL_PLACEMENT,
	COL_POOL,
	COL_UNHEALTHY,
	COL_FREE,
	COL_STATUS,  /* Ready, NotReady, SchedulingDisabled, unhealthy or cordoned GPUs */
	COL_LARGEST, /* largest free on one usable GPU: what fragmentation leaves */
	COL_COUNT,
};

enum column_when {
	COLW_ALWAYS,
	COLW_PER_GPU,
	COLW_IF_PENDING,
	COLW_IF_CORE,
	COLW_WIDE, /* -o wide */
	COLW_WIDE_USAGE, /* -o wide with a usage source */
	COLW_NEVER, /* not in the table (JSON, live view and sorting only) */
};

struct column {
	enum column_id id;
	/* Table header; "%d" is replaced by the GPU index, "%s" by the unit. */
	const char *header;
	/* Short header for the live view. */
	const char *live_header;
	/* Key of this figure in a node object of the JSON/YAML report. */
	const char *json_key;
	/* Name accepted for sorting, NULL when the column does not sort. */
	const char *sort_key;
	enum column_when when;
	/* Cell text for node n (gpu: the GPU index for COL_GPU); malloc'd, NULL on
	 * allocation failure. */
	char *(*cell)(const struct model *m, const struct model_node *n, int gpu);
	/* Order for sorting (ascending), NULL when the column does not sort. */
	int (*compare)(const struct model_node *a, const struct model_node *b);
};

/* Indexed by enum column_id. */
extern const struct column columns[COL_COUNT];

/* One column as shown: which column, and for COL_GPU which GPU. */
struct column_ref {
	enum column_id id;
	int gpu;
};

/* The columns the summary table shows for this model, in order.  Returns a
 * malloc'd array of *ret_n entries, NULL on allocation failure. */
struct column_ref *columns_select(const struct model *m, bool wide, size_t *ret_n);
/* The header of a shown column; malloc'd. */
char *column_header(const struct model *m, const struct column_ref *ref);
/* The column sorted by this name, NULL if none. */
const struct column *column_by_sort_key(const char *key);

/* Shared number formatting: whole percent of part in total, truncated
 * (2/7 is 28), 0 when total is 0. */
long long column_percent(int64_t part, int64_t total);
/* A node's sharing mode in the words of the mode command (exclusive,
 * share, isolate, core) where its labels are the cGPU editions'; any other
 * scheme's mode as that scheme says it; NULL when there is none. */
const char *column_mode_name(const struct model_node *n);

/* column_percent as shown in parentheses: "53%", or "over-allocated" when
 * something is allocated on a total of 0.  Writes into buf and returns it. */
const char *column_use_text(char buf[32], int64_t part, int64_t total);
/* "GiB", "MiB" or "slots". */
const char *column_unit_name(enum mem_unit u);

#endif
