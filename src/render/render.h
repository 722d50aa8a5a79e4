/* Renderers: the model as the published tables, as JSON and as YAML.
 *
 * Each writes one complete document to a stream and returns 0, or -1 with
 * err filled (allocation or write failure).  None reads anything but the
 * finished model.
 *
 * Uses the model, the columns and the tabwriter; writes only to the stream it is given.
 */
#ifndef RENDER_H
#define RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "kube.h"
#include "model.h"
#include "model_group.h"

/* How the tables are printed beyond the published format. */
struct render_table_opts {
	bool wide;	 /* the -o wide columns (summary only) */
	bool no_headers; /* leave out the column headers (kubectl's --no-headers) */
	const char *sort_by; /* node order: NULL or "name", "allocated" (share, fullest
			      * first), "free" (most first), "pending" (most first) */
	/* Several clusters (summary only): a CLUSTER column first, this cell
	 * (in its visible form, padded by the caller so that the clusters'
	 * tables line up) in every node row; NULL = none. */
	const char *cluster;
};

/* Is this a --sort-by the tables know? */
bool render_sort_key_valid(const char *key);
/* Shallow copies of the model's nodes in the order sort_by asks (NULL:
 * the model's), for a renderer's view; malloc'd, NULL when out of memory. */
struct model_node *render_nodes_in_order(const struct model *m, const char *sort_by);

/* The summary table (`kubectl inspect cgpu`), in the published format;
 * wide adds the -o wide columns. */
int render_summary(FILE *out, const struct model *m, bool wide, struct kerr *err);
int render_summary_opts(FILE *out, const struct model *m, const struct render_table_opts *o, struct kerr *err);
/* The per-node pod tables (`-d`), in the published format. */
int render_details(FILE *out, const struct model *m, struct kerr *err);
int render_details_opts(FILE *out, const struct model *m, const struct render_table_opts *o, struct kerr *err);
/* Lines that follow either table: pods asking for GPU memory that no node
 * holds yet.  Writes nothing when there are none. */
int render_unscheduled(FILE *out, const struct model *m, struct kerr *err);
/* --by: the allocation per group, one row per group and unit; no_headers
 * leaves out the header line. */
int render_groups(FILE *out, const struct model_groups *g, bool no_headers, struct kerr *err);
/* The same for several clusters: one table, a CLUSTER column first;
 * names[i] (any text: shown in its visible form) heads g[i]'s rows. */
int render_groups_fleet(FILE *out, const char *const *names, const struct model_groups *g, size_t n,
			struct kerr *err);
/* The same as a JSON object {by, rows[]}; NULL on allocation failure. */
json_t *render_groups_json(const struct model_groups *g);
/* With -d: one line per pod that waits (on no node, or without a GPU on
 * its node) and why, as fit finds it.  Nothing when none waits. */
int render_pending_reasons(FILE *out, const struct model *m, struct kerr *err);

/* `usage`: one row per GPU (allocated, used, total, utilisation), with
 * details one row per pod, then the findings grouped by kind. */
int render_usage(FILE *out, const struct model *m, bool details, struct kerr *err);
/* The same with the table options usage takes: sort_by, and no_headers
 * (the rows alone: no header lines, no findings under them). */
int render_usage_opts(FILE *out, const struct model *m, bool details, const struct render_table_opts *o,
		      struct kerr *err);
/* The same with a CLUSTER column first, cluster (in its visible form,
 * padded by the caller) in every row: one cluster of a fleet. */
int render_usage_cluster(FILE *out, const struct model *m, bool details, const char *cluster, struct kerr *err);
/* The findings alone (OverUse, Idle, Unaccounted), grouped; nothing when none. */
int render_findings(FILE *out, const struct model *m, struct kerr *err);
/* The model's warnings, as render_warning_list() prints them. */
int render_warnings(FILE *out, const struct model *m, struct kerr *err);

/* Up to this many warnings of one code are printed one per line; more
 * become one line with the count, the first one's message and the next
 * RENDER_OBJECTS_SHOWN objects by name ("and N more").  The JSON document
 * keeps every item. */
#define RENDER_WARNINGS_EACH 3
#define RENDER_OBJECTS_SHOWN 5
/* "Warning: ..." lines for a list of warnings, grouped by code as above,
 * in the order each kind was first found, outside text in its visible form.
 * With max_lines > 0, at most that many lines, the last one then saying
 * how many warnings were left out. */
int render_warning_list(FILE *out, const struct warnings *w, size_t max_lines, struct kerr *err);
/* "a, b, c and 7 more" (or "a, b"): the first shown of n items, in their visible
 * form.  0, or -1 on a write failure. */
int render_list_cut(FILE *out, const char *const *items, size_t n, size_t shown);

/* The report document (apiVersion inspect-cgpu.kubectl.io/v1, kind
 * GPUShareReport); NULL on allocation failure.  Described in man/inspect-json.md. */
json_t *render_json_document(const struct model *m);
#define RENDER_API_VERSION "inspect-cgpu.kubectl.io/v1"
#define RENDER_KIND "GPUShareReport"
/* The same document as indented JSON, or as YAML (libyaml's emitter). */
int render_json(FILE *out, const struct model *m, struct kerr *err);
int render_yaml(FILE *out, const struct model *m, struct kerr *err);
/* Any JSON value as a YAML document (exposed for tests). */
int render_yaml_value(FILE *out, const json_t *v, struct kerr *err);

#endif
