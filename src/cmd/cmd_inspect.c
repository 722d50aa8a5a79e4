/* `kubectl inspect cgpu [NODE...]`: the default command.  The chosen nodes
 * and their pods are loaded (load.c) and printed as the published tables,
 * JSON or YAML, with the warnings, or with what found nothing. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fleet.h"
#include "inspect_watch.h"
#include "kube.h"
#include "load.h"
#include "model.h"
#include "model_group.h"
#include "nodesel.h"
#include "output.h"
#include "render.h"
#include "usage_source.h"

enum { F_DETAILS, F_OUTPUT, F_UNIT, F_NO_HEADERS, F_SORT_BY, F_BY, F_WATCH, F_USAGE, F_COUNT = F_USAGE + USAGE_SOURCE_NFLAGS };

const struct flag inspect_flags[] = {
	[F_DETAILS] = {"details", 'd', NULL, "show the pods on each GPU of each node", NULL},
	[F_OUTPUT] = {"output", 'o', "FORMAT",
		      "output format: wide, json, yaml, name, jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC "
		      "or custom-columns-file=FILE",
		      "wide json yaml name"},
	[F_UNIT] = {"unit", 0, "UNIT", "show GPU memory in GiB or MiB (default: as the nodes count it)", "GiB MiB"},
	[F_NO_HEADERS] = {"no-headers", 0, NULL, "leave out the column headers of the tables", NULL},
	[F_SORT_BY] = {"sort-by", 0, "KEY",
		       "order of the nodes: name, allocated, free or pending (the figures largest first)",
		       "name allocated free pending"},
	[F_BY] = {"by", 0, "GROUP", "add the allocation per namespace, pool, model, node or owner (controlling workload)",
		  "namespace pool model node owner"},
	[F_WATCH] = {"watch", 'w', NULL,
		     "after the table, print it again whenever what it shows changes (at most once a second), "
		     "until interrupted", NULL},
	USAGE_SOURCE_FLAGS,
	[F_COUNT] = {0},
};

static int parse_unit(const char *v, int *ret, struct kerr *err)
{
	if (!v)
		*ret = -1;
	else if (strcasecmp(v, "GiB") == 0)
		*ret = UNIT_GIB;
	else if (strcasecmp(v, "MiB") == 0)
		*ret = UNIT_MIB;
	else
		return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--unit\" flag: must be GiB or MiB", v);
	return 0;
}

/* What the command line asked for. */
struct inspect_opts {
	struct nodesel sel;
	enum output out;
	bool details;
	bool watch; /* -w: the table again whenever it changes */
	enum model_by by;
	struct render_table_opts table;
	struct usage_source usage;
	const char *namespace; /* -n, where it narrows the pods shown */
	const char *spec;      /* -o as given, for kubectl's forms */
};

/* The report of one cluster, with the roll-up when --by asks for one;
 * NULL when out of memory. */
static json_t *report_json(const struct cluster_load *l, const struct inspect_opts *o)
{
	struct model_groups g;
	json_t *doc = render_json_document(&l->model), *groups;

	if (!doc || o->by == BY_NONE)
		return doc;
	if (model_group(&l->model, o->by, &g) < 0) {
		json_decref(doc);
		return NULL;
	}
	groups = render_groups_json(&g);
	model_groups_release(&g);
	if (!groups || json_object_set_new(doc, "groups", groups) < 0) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* JSON and YAML: the report, with the roll-up when --by asks for one; or
 * one of kubectl's forms of it. */
static int print_document(struct cli_ctx *ctx, const struct cluster_load *l, const struct inspect_opts *o,
			  struct kerr *err)
{
	json_t *doc;
	int rc;

	if (o->by == BY_NONE && !output_is_kubectl_form(o->out))
		return output_report(ctx, &l->model, o->out, err);
	if (!(doc = report_json(l, o)))
		return kerr_set(err, KERR_OTHER, "cannot build the report");
	rc = output_is_kubectl_form(o->out) ? output_kubectl_form(ctx, doc, o->out, o->spec, o->table.no_headers, err)
					    : output_document(ctx, doc, o->out, err);
	json_decref(doc);
	return rc;
}

static int print_groups(struct cli_ctx *ctx, const struct model *m, enum model_by by, bool no_headers,
			struct kerr *err)
{
	struct model_groups g;
	int rc;

	if (model_group(m, by, &g) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	/* --no-headers: rows only, no blank line between the tables either */
	rc = !no_headers && fputc('\n', ctx->out) == EOF ? kerr_set(err, KERR_OTHER, "cannot write the table")
							 : render_groups(ctx->out, &g, no_headers, err);
	model_groups_release(&g);
	return rc;
}

/* How each edition of the scheme that shares by label shares a node. */
static void print_label_hint(FILE *f)
{
	const struct scheme_modes *sm = scheme_modes_find();

	fprintf(f, "To share the GPUs of a node, label it for sharing, e.g.:\n");
	for (size_t i = 0; sm && i < sm->neditions; i++) {
		const struct scheme_label *l = &sm->editions[i].sets[SCHEME_MODE_SHARE][0];
		char *kv = NULL;

		if (asprintf(&kv, "%s=%s", l->key, l->value) >= 0)
			fprintf(f, "  kubectl label node NODE %-30s(%s)\n", kv, sm->editions[i].hint);
		free(kv);
	}
}

/* What kubectl says for an empty result, and which filter left nothing. */
static void print_nothing_found(FILE *f, const struct nodesel *s, size_t nodes_seen)
{
	char sel[512] = "";

	if (s->selector && s->pool)
		snprintf(sel, sizeof(sel), "-l %s --pool %s", s->selector, s->pool);
	else if (s->selector || s->pool)
		snprintf(sel, sizeof(sel), "%s %s", s->selector ? "-l" : "--pool", s->selector ? s->selector : s->pool);
	fputs("No resources found\n", f);
	if (nodes_seen == 0 && *sel) {
		fprintf(f, "no node matches %s\n", sel);
	} else if (s->scheme) {
		fprintf(f, "no node%s%s is shared with scheme %s (%zu node%s looked at)\n", *sel ? " matching " : "", sel,
			s->scheme, nodes_seen, nodes_seen == 1 ? "" : "s");
	} else {
		fprintf(f, "no node matching %s offers shared GPU memory (%zu node%s looked at)\n", sel, nodes_seen,
			nodes_seen == 1 ? "" : "s");
		print_label_hint(f);
	}
}

/* The tables and the lines under them (-d: why pods wait). */
static int print_tables(struct cli_ctx *ctx, const struct model *m, const struct inspect_opts *o,
			const struct render_table_opts *table, struct kerr *err)
{
	int rc = o->details ? render_details_opts(ctx->out, m, table, err) : render_summary_opts(ctx->out, m, table, err);

	/* --no-headers: the rows alone, for scripts */
	if (rc == 0 && !table->no_headers)
		rc = render_unscheduled(ctx->out, m, err);
	if (rc == 0 && o->details && !table->no_headers)
		rc = render_pending_reasons(ctx->out, m, err);
	return rc;
}

/* The tables, or the document, then the warnings. */
static int print_report(struct cli_ctx *ctx, const struct cluster_load *l, const struct inspect_opts *o,
			struct kerr *err)
{
	const struct model *m = &l->model;
	size_t nodes_seen = l->nodes_seen;
	bool filtered = o->sel.selector || o->sel.pool || o->sel.scheme;
	int rc;

	/* a filter that left no node: kubectl prints no table, only that
	 * nothing was found, and nothing else on stdout (a document still
	 * goes to scripts) */
	if (m->nnodes == 0 && filtered && !output_is_document(o->out)) {
		print_nothing_found(ctx->errout, &o->sel, nodes_seen);
		return render_warnings(ctx->errout, m, err);
	}
	/* the pods of a namespace that holds none, as kubectl get pods -n says it */
	if (o->details && o->namespace && m->npods == 0) {
		fprintf(ctx->errout, "No resources found in %s namespace.\n", o->namespace);
		return render_warnings(ctx->errout, m, err);
	}
	if (output_is_document(o->out)) {
		rc = print_document(ctx, l, o, err);
	} else {
		rc = print_tables(ctx, m, o, &o->table, err);
		if (rc == 0 && o->by != BY_NONE)
			rc = print_groups(ctx, m, o->by, o->table.no_headers, err);
	}
	if (rc < 0)
		return -1;
	fflush(ctx->out);
	if (render_warnings(ctx->errout, m, err) < 0)
		return -1;
	if (m->nnodes == 0 && !output_is_document(o->out)) {
		fprintf(ctx->errout, "No node offers shared GPU memory (%s).\n",
			scheme_modes_find() ? scheme_modes_find()->share_resource : "?");
		print_label_hint(ctx->errout);
	}
	return 0;
}

/* The flags, into *o and the model's options. */
static int parse_args(struct cli_ctx *ctx, int argc, char **argv, struct inspect_opts *o, struct model_options *mo,
		      struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = {0};
	int npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);

	if (npos < 0)
		return -1;
	o->details = vals[F_DETAILS] != NULL;
	if (output_parse(vals[F_OUTPUT], true, &o->out, err) < 0 || parse_unit(vals[F_UNIT], &mo->force_unit, err) < 0)
		return -1;
	o->spec = vals[F_OUTPUT];
	if (o->details && o->out == OUTPUT_WIDE)
		return kerr_set(err, KERR_USAGE, "--details cannot be combined with -o wide");
	if (vals[F_SORT_BY] && !render_sort_key_valid(vals[F_SORT_BY]))
		return kerr_set(err, KERR_USAGE,
				"invalid argument \"%s\" for \"--sort-by\" flag: must be name, allocated, free or pending",
				vals[F_SORT_BY]);
	if (vals[F_BY] && model_by_parse(vals[F_BY], &o->by) < 0)
		return kerr_set(err, KERR_USAGE,
				"invalid argument \"%s\" for \"--by\" flag: must be namespace, pool, model, node or owner",
				vals[F_BY]);
	if (o->details && o->by != BY_NONE)
		return kerr_set(err, KERR_USAGE, "--by rolls up the summary: it cannot be combined with --details");
	o->watch = vals[F_WATCH] != NULL;
	if (o->watch && output_is_document(o->out))
		return kerr_set(err, KERR_USAGE, "--watch prints the tables again as they change: it cannot be combined "
				"with -o %s", o->spec);
	if (nodesel_parse(&o->sel, ctx->cmd, vals, argv, (size_t)npos, false, err) < 0 ||
	    usage_source_init(&o->usage, vals + F_USAGE, err) < 0)
		return -1;
	o->table = (struct render_table_opts){ .wide = o->out == OUTPUT_WIDE, .no_headers = vals[F_NO_HEADERS] != NULL,
					       .sort_by = vals[F_SORT_BY] };
	mo->scheme = o->sel.scheme;
	/* pods are kept where they are shown or grouped, and pending pods
	 * explained (taints, selectors) where pods are shown */
	mo->scheduling = o->details || output_is_document(o->out);
	mo->keep_pods = mo->scheduling || o->by == BY_NAMESPACE || o->by == BY_OWNER;
	mo->owners = o->by == BY_OWNER;
	/* -n narrows the pods listed (details, JSON, YAML); the sums always
	 * count every pod */
	if (mo->scheduling && !ctx->g.all_namespaces)
		o->namespace = mo->pod_namespace = ctx->g.ov.namespace;
	else if (ctx->g.ov.namespace && !ctx->g.all_namespaces)
		cli_namespace_unused(ctx, "the summary counts the pods of every namespace (-d, -o json and -o yaml "
					  "show one namespace's pods)");
	return 0;
}

/* One table of -w: the tables and the roll-up, as the summary prints them. */
struct watch_print {
	struct cli_ctx *ctx;
	const struct inspect_opts *o;
};

static int print_watched(FILE *out, const struct model *m, void *ud, struct kerr *err)
{
	const struct watch_print *wp = ud;
	struct cli_ctx c = *wp->ctx;
	int rc;

	c.out = out;
	rc = print_tables(&c, m, wp->o, &wp->o->table, err);
	if (rc == 0 && wp->o->by != BY_NONE)
		rc = print_groups(&c, m, wp->o->by, wp->o->table.no_headers, err);
	return rc;
}

/* -w on one cluster: the named nodes must exist, as before any list. */
static int inspect_watch(struct cli_ctx *ctx, const struct inspect_opts *o, struct cluster_load *l, struct kerr *err)
{
	struct watch_print wp = { .ctx = ctx, .o = o };
	struct inspect_watch_spec spec = { .cluster = &l->cluster, .sel = &o->sel, .mo = &l->mo, .refresh_ms = 1000,
					   .separate = !o->table.no_headers, .print = print_watched, .ud = &wp };

	if (o->usage.configured)
		return kerr_set(err, KERR_USAGE, "--watch follows the API server: it cannot be combined with --prometheus");
	if (cluster_connect(ctx, &l->cluster, err) < 0 || cluster_find_nodes(&l->cluster, &o->sel, err) < 0)
		return -1;
	l->mo.nodes = o->sel.nnames ? (const char *const *)o->sel.names : NULL;
	return inspect_watch_run(ctx, &spec, err);
}

/* A command name typed wrong reads as a node name: say which command was
 * probably meant, after the NotFound.  -1 when there is nothing to say. */
static int suggest_command(struct cli_ctx *ctx, const char *missing, struct kerr *err)
{
	const char *meant = missing ? cli_suggest_command(commands, missing) : NULL;

	if (!meant)
		return -1;
	kerr_print(ctx->errout, err);
	fprintf(ctx->errout, "No node is named \"%s\": did you mean \"%s\"? See '%s %s --help'.\n", missing, meant,
		ctx->prog, meant);
	kerr_release(err);
	return 1;
}

/* --by over a fleet: one table of every cluster's groups, a CLUSTER column first. */
static int print_fleet_groups(struct cli_ctx *ctx, const struct fleet *f, enum model_by by, struct kerr *err)
{
	struct model_groups *gs = calloc(f->n, sizeof(*gs));
	const char **names = calloc(f->n, sizeof(*names));
	size_t k = 0;
	int rc = 0;

	if (!gs || !names)
		rc = kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; rc == 0 && i < f->n; i++) {
		if (!f->loads[i].have_model)
			continue;
		if (model_group(&f->loads[i].model, by, &gs[k]) < 0)
			rc = kerr_set(err, KERR_OTHER, "out of memory");
		else
			names[k++] = f->names[i];
	}
	if (rc == 0 && fputc('\n', ctx->out) == EOF)
		rc = kerr_set(err, KERR_OTHER, "cannot write the table");
	if (rc == 0)
		rc = render_groups_fleet(ctx->out, names, gs, k, err);
	for (size_t i = 0; i < k; i++)
		model_groups_release(&gs[i]);
	free(gs);
	free(names);
	return rc;
}

/* One cluster's part of the fleet's tables: its section (the published
 * summary and -d), or its rows under a CLUSTER column (-o wide). */
static int print_fleet_cluster(struct cli_ctx *ctx, const struct fleet *f, size_t i, bool first,
			       const struct inspect_opts *o, struct kerr *err)
{
	struct render_table_opts table = o->table;
	int rc;

	if (o->out != OUTPUT_WIDE)
		return fleet_heading(ctx, f, i, first, err) < 0 ? -1 : print_tables(ctx, &f->loads[i].model, o, &table, err);
	if (!first && fputc('\n', ctx->out) == EOF)
		return kerr_set(err, KERR_OTHER, "cannot write the table");
	if (!(table.cluster = fleet_cluster_cell(f, i)))
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = print_tables(ctx, &f->loads[i].model, o, &table, err);
	free((char *)table.cluster);
	return rc;
}

static json_t *fleet_report_json(const struct fleet *f, size_t i, void *ud)
{
	return report_json(&f->loads[i], ud);
}

/* Several clusters: the FleetReport, or each cluster's tables, then the
 * warnings and each failed cluster's error. */
static int print_fleet(struct cli_ctx *ctx, const struct fleet *f, const struct inspect_opts *o, struct kerr *err)
{
	int rc = 0;

	if (output_is_document(o->out)) {
		json_t *doc = fleet_document(f, FLEET_KIND_REPORT, NULL, fleet_report_json, (void *)o);

		if (!doc)
			rc = kerr_set(err, KERR_OTHER, "cannot build the report");
		else if (output_is_kubectl_form(o->out))
			rc = output_kubectl_form(ctx, doc, o->out, o->spec, o->table.no_headers, err);
		else
			rc = output_document(ctx, doc, o->out, err);
		json_decref(doc);
	} else {
		size_t shown = 0;

		for (size_t i = 0; rc == 0 && i < f->n; i++)
			if (f->loads[i].have_model)
				rc = print_fleet_cluster(ctx, f, i, shown++ == 0, o, err);
		if (rc == 0 && o->by != BY_NONE)
			rc = print_fleet_groups(ctx, f, o->by, err);
	}
	fflush(ctx->out);
	for (size_t i = 0; rc == 0 && i < f->n; i++)
		if (f->loads[i].have_model)
			rc = fleet_warnings(ctx, f, i, err);
	fleet_print_errors(ctx, f);
	return rc < 0 ? -1 : fleet_exit_code(ctx, f);
}

static int inspect_fleet(struct cli_ctx *ctx, const struct inspect_opts *o, const struct cluster_load *tmpl,
			 struct kerr *err)
{
	struct fleet f = { 0 };
	int rc = -1;

	if (o->usage.configured)
		kerr_set(err, KERR_USAGE, "--prometheus asks one cluster: it cannot be combined with several contexts");
	else if (fleet_load(ctx, &f, tmpl, err) == 0)
		rc = print_fleet(ctx, &f, o, err);
	fleet_release(&f);
	return rc;
}

/* kubectl get's manners for names that do not exist: what exists was
 * shown, then an error for each name that does not, and exit 1.  Where no
 * name exists, the first may be a command typed wrong. */
static int report_missing(struct cli_ctx *ctx, const struct cluster_load *l, struct kerr *err)
{
	for (size_t i = 0; i < l->nmissing; i++) {
		struct kerr e = {0};
		char *msg = NULL;

		if (asprintf(&msg, "nodes \"%s\" not found", l->missing_names[i]) < 0)
			return kerr_set(err, KERR_OTHER, "out of memory");
		kerr_set_status(&e, 404, "NotFound", msg);
		free(msg);
		/* the rest of the line is then that command's arguments */
		if (i == 0 && l->nmissing == l->sel->nnames && suggest_command(ctx, l->missing_names[i], &e) == 1)
			return 1;
		kerr_print(ctx->errout, &e);
		kerr_release(&e);
	}
	return 1;
}

int inspect_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct inspect_opts o = {0};
	struct cluster_load l = {.sel = &o.sel, .from_cache = true, .mo = {.force_unit = -1, .pool_label = POOL_LABEL}};
	int rc = -1;

	if (parse_args(ctx, argc, argv, &o, &l.mo, err) < 0)
		goto out;
	if (o.watch && cluster_fleet_asked(ctx)) {
		kerr_set(err, KERR_USAGE, "--watch follows one cluster: it cannot be combined with several contexts");
		goto out;
	}
	if (o.watch) {
		rc = inspect_watch(ctx, &o, &l, err);
		goto out;
	}
	if (cluster_fleet_asked(ctx)) {
		rc = inspect_fleet(ctx, &o, &l, err);
		goto out;
	}
	/* one cluster: kubectl get's manners for names that do not exist */
	l.partial = true;
	if (cluster_connect(ctx, &l.cluster, err) < 0)
		goto out;
	/* memory in use, for -o wide and the documents, is asked for while the
	 * cluster is listed */
	if (o.usage.configured && o.out != OUTPUT_TEXT)
		rc = usage_load(ctx, &o.usage, &l, o.out != OUTPUT_WIDE, false, NULL, err);
	else
		rc = cluster_load_model(&l, err);
	if (rc == 0 && l.nmissing == o.sel.nnames && l.nmissing)
		rc = report_missing(ctx, &l, err);
	else if (rc == 0)
		rc = print_report(ctx, &l, &o, err);
	else
		rc = suggest_command(ctx, l.missing, err);
	if (rc == 0 && l.nmissing) {
		fflush(ctx->out);
		rc = report_missing(ctx, &l, err);
	}
out:
	cluster_load_release(&l);
	usage_source_release(&o.usage);
	nodesel_release(&o.sel);
	return rc;
}
