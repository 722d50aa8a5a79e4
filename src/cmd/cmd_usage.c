/* `kubectl inspect cgpu usage [NODE...]`: GPU memory allocated beside GPU
 * memory in use, per GPU (and with -d per pod), with the findings: pods
 * using more than they were allocated, pods holding memory they hardly use,
 * memory used on GPUs nothing was allocated on.  The Prometheus queries run
 * while the nodes and pods are listed. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fleet.h"
#include "kube.h"
#include "load.h"
#include "model.h"
#include "nodesel.h"
#include "output.h"
#include "render.h"
#include "usage_source.h"

enum { F_DETAILS, F_OUTPUT, F_IDLE, F_UNIT, F_SORT_BY, F_NO_HEADERS, F_USAGE, F_COUNT = F_USAGE + USAGE_SOURCE_NFLAGS };

const struct flag usage_flags[] = {
	[F_DETAILS] = {"details", 'd', NULL, "also show each pod's allocated and used GPU memory", NULL},
	[F_OUTPUT] = {"output", 'o', "FORMAT", "output format: json or yaml", "json yaml"},
	[F_IDLE] = {"idle-below", 0, "PERCENT",
		    "report as Idle what uses less than this share of its allocation (default 25)", NULL},
	[F_UNIT] = {"unit", 0, "UNIT", "show GPU memory in GiB or MiB (default: as the nodes count it)", "GiB MiB"},
	[F_SORT_BY] = {"sort-by", 0, "KEY",
		       "order of the nodes: name, allocated, free or pending (the figures largest first)",
		       "name allocated free pending"},
	[F_NO_HEADERS] = {"no-headers", 0, NULL, "the rows alone: no column headers, no findings under them", NULL},
	USAGE_SOURCE_FLAGS,
	[F_COUNT] = {0},
};

static int parse_percent(const char *v, double *ret, struct kerr *err)
{
	char *end;
	double d;

	if (!v) {
		*ret = USAGE_IDLE_PERCENT;
		return 0;
	}
	d = strtod(v, &end);
	if (end == v || (*end && strcmp(end, "%") != 0) || !(d >= 0 && d <= 100))
		return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--idle-below\" flag: want a percentage from 0 to 100",
				v);
	*ret = d;
	return 0;
}

/* What the command line asked for. */
struct usage_args {
	struct nodesel sel;
	enum output out;
	bool details;
	int force_unit; /* --unit: enum mem_unit, -1 = as the nodes count */
	struct render_table_opts table;
	struct usage_options uo;
	struct usage_source src;
};

static int parse_args(struct cli_ctx *ctx, int argc, char **argv, struct usage_args *a, struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = {0};
	int npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);

	if (npos < 0 || output_parse(vals[F_OUTPUT], false, &a->out, err) < 0 ||
	    parse_percent(vals[F_IDLE], &a->uo.idle_percent, err) < 0 ||
	    nodesel_parse(&a->sel, ctx->cmd, vals, argv, (size_t)npos, false, err) < 0 ||
	    usage_source_init(&a->src, vals + F_USAGE, err) < 0)
		return -1;
	if (!a->src.configured)
		return kerr_set(err, KERR_USAGE,
				"no usage source: give --prometheus NAMESPACE/SERVICE[:PORT] or --prometheus-url URL "
				"(or set CGPU_PROMETHEUS or CGPU_PROMETHEUS_URL)");
	a->details = vals[F_DETAILS] != NULL;
	a->uo.unaccounted_bytes = USAGE_UNACCOUNTED_BYTES;
	a->force_unit = -1;
	if (vals[F_UNIT] && strcasecmp(vals[F_UNIT], "GiB") == 0)
		a->force_unit = UNIT_GIB;
	else if (vals[F_UNIT] && strcasecmp(vals[F_UNIT], "MiB") == 0)
		a->force_unit = UNIT_MIB;
	else if (vals[F_UNIT])
		return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--unit\" flag: must be GiB or MiB",
				vals[F_UNIT]);
	if (vals[F_SORT_BY] && !render_sort_key_valid(vals[F_SORT_BY]))
		return kerr_set(err, KERR_USAGE,
				"invalid argument \"%s\" for \"--sort-by\" flag: must be name, allocated, free or pending",
				vals[F_SORT_BY]);
	a->table = (struct render_table_opts){ .no_headers = vals[F_NO_HEADERS] != NULL, .sort_by = vals[F_SORT_BY] };
	return 0;
}

/* The report, then the warnings; 1 when no figure at all came (where
 * there are GPUs to measure): the allocation is shown all the same. */
static int print_report(struct cli_ctx *ctx, const struct model *m, const struct usage_args *a, struct kerr *err)
{
	int rc = output_is_document(a->out) ? output_report(ctx, m, a->out, err)
					    : render_usage_opts(ctx->out, m, a->details, &a->table, err);

	if (rc < 0)
		return -1;
	fflush(ctx->out);
	if (render_warnings(ctx->errout, m, err) < 0)
		return -1;
	return m->usage.gpus_known == 0 && m->usage.gpus_unknown > 0 ? 1 : 0;
}

/* --- several clusters ------------------------------------------------------- */

/* Each cluster's queries started on its own connection (through its API
 * server's service proxy), so that they run while every cluster lists. */
static void fleet_fetch_start(struct cli_ctx *ctx, struct fleet *f, const struct usage_args *a,
			      struct usage_fetch **fs)
{
	bool prune = !a->details && !output_is_document(a->out);

	for (size_t i = 0; i < f->n; i++) {
		struct cluster_load *l = &f->loads[i];

		if (l->err.kind != KERR_NONE || usage_fetch_start(&a->src, &l->cluster.cfg, ctx, true, &fs[i], &l->err) < 0)
			continue;
		if (prune) {
			l->mo.keep_pod_if = usage_fetch_names_pod;
			l->mo.keep_pod_ud = fs[i];
		}
	}
}

/* The answers joined with each cluster's model; a cluster whose join
 * fails has no model. */
static void fleet_fetch_apply(struct fleet *f, const struct usage_args *a, struct usage_fetch **fs)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cluster_load *l = &f->loads[i];

		if (!fs[i])
			continue;
		if (!l->have_model) {
			usage_fetch_free(fs[i]);
			continue;
		}
		if (usage_fetch_apply(fs[i], &l->model, &a->uo, &l->err) < 0) {
			model_release(&l->model);
			l->have_model = false;
		}
	}
}

static json_t *fleet_report(const struct fleet *f, size_t i, void *ud)
{
	return render_json_document(&f->loads[i].model);
}

/* The tables, a CLUSTER column first (or the FleetReport), the warnings,
 * the errors; 1 when a cluster failed or one gave no figure at all. */
static int fleet_print(struct cli_ctx *ctx, const struct fleet *f, const struct usage_args *a, struct kerr *err)
{
	bool no_figure = false;
	int rc = 0;

	if (output_is_document(a->out)) {
		json_t *doc = fleet_document(f, FLEET_KIND_REPORT, NULL, fleet_report, NULL);

		rc = doc ? output_document(ctx, doc, a->out, err) : kerr_set(err, KERR_OTHER, "cannot build the report");
		json_decref(doc);
	}
	for (size_t i = 0, shown = 0; rc == 0 && !output_is_document(a->out) && i < f->n; i++) {
		char *cell;

		if (!f->loads[i].have_model)
			continue;
		if (shown++ && fputc('\n', ctx->out) == EOF)
			return kerr_set(err, KERR_OTHER, "cannot write the table");
		if (!(cell = fleet_cluster_cell(f, i)))
			return kerr_set(err, KERR_OTHER, "out of memory");
		rc = render_usage_cluster(ctx->out, &f->loads[i].model, a->details, cell, err);
		free(cell);
	}
	fflush(ctx->out);
	for (size_t i = 0; rc == 0 && i < f->n; i++) {
		const struct model *m = &f->loads[i].model;

		if (!f->loads[i].have_model)
			continue;
		rc = fleet_warnings(ctx, f, i, err);
		no_figure = no_figure || (m->usage.gpus_known == 0 && m->usage.gpus_unknown > 0);
	}
	fleet_print_errors(ctx, f);
	if (rc < 0)
		return -1;
	return fleet_exit_code(ctx, f) ? 1 : no_figure ? 1 : 0;
}

static int usage_fleet(struct cli_ctx *ctx, const struct usage_args *a, const struct cluster_load *tmpl,
		       struct kerr *err)
{
	struct fleet f = { 0 };
	struct usage_fetch **fs = NULL;
	int rc = -1;

	if (a->src.url) {
		kerr_set(err, KERR_USAGE, "--prometheus-url names one Prometheus: with several contexts give "
					  "--prometheus NAMESPACE/SERVICE[:PORT], read through each cluster's API server");
		goto out;
	}
	if (fleet_connect(ctx, &f, tmpl, err) < 0)
		goto out;
	if (!(fs = calloc(f.n, sizeof(*fs)))) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	fleet_fetch_start(ctx, &f, a, fs);
	if (cluster_load_models(f.loads, f.n, err) < 0) {
		for (size_t i = 0; i < f.n; i++)
			usage_fetch_free(fs[i]);
		goto out;
	}
	for (size_t i = 0; i < f.n; i++) {
		f.loads[i].mo.keep_pod_if = NULL;
		f.loads[i].mo.keep_pod_ud = NULL;
	}
	fleet_fetch_apply(&f, a, fs);
	fleet_count_failed(&f);
	rc = fleet_print(ctx, &f, a, err);
out:
	free(fs);
	fleet_release(&f);
	return rc;
}

int usage_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct usage_args a = {0};
	struct cluster_load l = {.sel = &a.sel, .from_cache = true, .mo = {.force_unit = -1, .keep_pods = true}};
	int rc = -1;

	if (parse_args(ctx, argc, argv, &a, err) < 0)
		goto out;
	/* -n narrows the pods listed; the GPU figures always count every pod */
	if (!ctx->g.all_namespaces)
		l.mo.pod_namespace = ctx->g.ov.namespace;
	l.mo.scheme = a.sel.scheme;
	l.mo.force_unit = a.force_unit;
	/* The table without -d names pods only in findings, and only a pod
	 * with a figure of its own can have one: the others are not kept once
	 * the answers say which pods they name.  -d and documents show all. */
	if (cluster_fleet_asked(ctx)) {
		rc = usage_fleet(ctx, &a, &l, err);
		goto out;
	}
	if (cluster_connect(ctx, &l.cluster, err) == 0 &&
	    usage_load(ctx, &a.src, &l, true, !a.details && !output_is_document(a.out), &a.uo, err) == 0)
		rc = print_report(ctx, &l.model, &a, err);
out:
	cluster_load_release(&l);
	usage_source_release(&a.src);
	nodesel_release(&a.sel);
	return rc;
}
