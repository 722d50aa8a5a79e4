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

/* The summary table (`kubectl inspect cgpu`), in the published format;
 * wide adds the -o wide columns. */
int render_summary(FILE *out, const struct model *m, bool wide, struct kerr *err);
/* The per-node pod tables (`-d`), in the published format. */
int render_details(FILE *out, const struct model *m, struct kerr *err);
/* Lines that follow either table: pods asking for GPU memory that no node
 * holds yet.  Writes nothing when there are none. */
int render_unscheduled(FILE *out, const struct model *m, struct kerr *err);
/* One "Warning: ..." line per model warning. */
int render_warnings(FILE *out, const struct model *m, struct kerr *err);

/* `usage`: one row per GPU (allocated, used, total, utilisation), with
 * details one row per pod, then the findings grouped by kind. */
int render_usage(FILE *out, const struct model *m, bool details, struct kerr *err);
/* The findings alone (OverUse, Idle, Unaccounted), grouped; nothing when none. */
int render_findings(FILE *out, const struct model *m, struct kerr *err);

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
