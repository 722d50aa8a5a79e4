/* The node columns, as data: one table drives the summary table and -o wide
 * (header, cell), the node objects of the JSON/YAML report (key, value, in
 * the document's order), the sort orders, and the live view's node list
 * (short header, cell, tone, in the list's order).  Adding a column means
 * adding one entry, its functions, and its place in the orders below.
 *
 * Uses the model (model.h) and the document's pieces (render_doc.h); used
 * by the renderers and the live view.
 */
#ifndef COLUMNS_H
#define COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "model.h"
#include "render_doc.h"

enum column_id {
	COL_NONE = -1,
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
	COL_SHARING, /* -o wide, where a scheme says how each GPU is shared */
	COL_ISOLATION,
	COL_PLACEMENT,
	COL_POOL,
	COL_UNHEALTHY,
	COL_FREE,
	COL_STATUS,  /* Ready, NotReady, SchedulingDisabled, unhealthy or cordoned GPUs */
	COL_LARGEST, /* largest free on one usable GPU: what fragmentation leaves */
	COL_STRANDED, /* free memory its pool's most common request cannot use */
	/* in no table: the report and the live view */
	COL_SCHEME,
	COL_UNIT,
	COL_UNIT_SOURCE,
	COL_LABELS,
	COL_GPU_COUNT,
	COL_PENDING_PODS,
	COL_PODS,
	COL_PER_GPU,
	COL_SCHEDULABLE,
	COL_USE, /* allocated share, as the live view says it */
	COL_COUNT,
};

/* When the summary table shows a column. */
enum column_when {
	COLW_ALWAYS,
	COLW_PER_GPU,
	COLW_IF_PENDING,
	COLW_IF_CORE,
	COLW_WIDE,  /* -o wide */
	COLW_WIDE_IF_SHARING, /* -o wide, when some GPU says how it is shared */
	COLW_NEVER, /* not in the table */
};

/* How the live view shows a figure. */
enum column_live {
	LIVE_NO,     /* not in the live view's list */
	LIVE_FIGURE, /* right-aligned, takes its room from the bars */
	LIVE_WORDS,  /* left-aligned */
	LIVE_SPARE,  /* right-aligned, shown only where the bars keep their room */
	LIVE_SPARE_WORDS,
};

/* A figure's tone, which the live view gives a colour. */
enum column_tone { TONE_NORMAL, TONE_DIM, TONE_LOW, TONE_MID, TONE_HIGH };

struct column {
	enum column_id id;
	/* Table header; "%d" is replaced by the GPU index, "%s" by the unit.
	 * NULL: not in the table. */
	const char *header;
	enum column_when when;
	/* Only where a usage source is configured, in every view. */
	bool usage;
	/* Cell text for node n (gpu: the GPU index for COL_GPU); malloc'd, NULL on
	 * allocation failure. */
	char *(*cell)(const struct model *m, const struct model_node *n, int gpu);
	/* Key of this figure in a node object of the report, and in which
	 * column's object it sits (COL_NONE: the node's own). */
	const char *json_key;
	enum column_id json_in;
	/* Its value there (taken by the object it is set in). */
	json_t *(*value)(struct doc *d, const struct model *m, const struct model_node *n);
	/* Name accepted for sorting, NULL when the column does not sort; the
	 * order (ascending). */
	const char *sort_key;
	int (*compare)(const struct model_node *a, const struct model_node *b);
	/* The live view: how, its short header ("(%s)" is the unit, left out
	 * where every cell carries its unit), its cell (NULL: the table's) and
	 * its tone (NULL: normal). */
	enum column_live live;
	const char *live_header;
	char *(*live_cell)(const struct model *m, const struct model_node *n, bool unit_in_cell);
	enum column_tone (*tone)(const struct model_node *n);
};

/* Indexed by enum column_id. */
extern const struct column columns[COL_COUNT];
/* The columns of a node object of the report, in the document's order. */
extern const enum column_id column_json_order[];
extern const size_t column_json_count;
/* The columns right of the live view's bars, in the list's order. */
extern const enum column_id column_live_order[];
extern const size_t column_live_count;

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
/* Whether the column has a place in this model's report or live view. */
bool column_in_json(const struct column *c, const struct model *m);
bool column_in_live(const struct column *c, const struct model *m);
/* The live view's header of a column: its unit in it, or none where the
 * cells carry theirs.  malloc'd. */
char *column_live_header(const struct column *c, enum mem_unit unit, bool unit_in_cell);
/* The live view's cell of a column.  malloc'd. */
char *column_live_cell(const struct column *c, const struct model *m, const struct model_node *n, bool unit_in_cell);
/* The column sorted by this name, NULL if none. */
const struct column *column_by_sort_key(const char *key);

/* Shared number formatting: whole percent of part in total, truncated
 * (2/7 is 28), 0 when total is 0. */
long long column_percent(int64_t part, int64_t total);
/* column_percent as shown: "53%", or where something is allocated on a
 * total of 0 "over-allocated" ("over" when brief).  Writes into buf and
 * returns it. */
const char *column_use_text(char buf[32], int64_t part, int64_t total, bool brief);
/* The tone of allocated in total: low below a half, mid below nine
 * tenths, high above (and anything on a total of 0), dim for nothing. */
enum column_tone column_level(int64_t allocated, int64_t total);
/* A node's sharing mode in the words of the mode command where its scheme
 * says them; else as its labels say it; NULL when there is none. */
const char *column_mode_name(const struct model_node *n);

#endif
