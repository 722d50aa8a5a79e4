/* `kubectl inspect cgpu [NODE...]`: the default command.  Nodes and pods are
 * listed concurrently (paged, filtered on the server), folded into the model
 * as they arrive, and printed as the published tables, JSON or YAML. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "kube.h"
#include "model.h"
#include "model_group.h"
#include "nodesel.h"
#include "output.h"
#include "render.h"
#include "usage_source.h"

#define ACTIVE_PODS "status.phase!=Succeeded,status.phase!=Failed"

enum { F_DETAILS, F_OUTPUT, F_UNIT, F_NO_HEADERS, F_SORT_BY, F_BY, F_USAGE, F_COUNT = F_USAGE + USAGE_SOURCE_NFLAGS };

const struct flag inspect_flags[] = {
	[F_DETAILS] = {"details", 'd', NULL, "show the pods on each GPU of each node", NULL},
	[F_OUTPUT] = {"output", 'o', "FORMAT", "output format: wide, json or yaml", "wide json yaml"},
	[F_UNIT] = {"unit", 0, "UNIT", "show GPU memory in GiB or MiB (default: as the nodes count it)", "GiB MiB"},
	[F_NO_HEADERS] = {"no-headers", 0, NULL, "leave out the column headers of the tables", NULL},
	[F_SORT_BY] = {"sort-by", 0, "KEY",
		       "order of the nodes: name, allocated, free or pending (the figures largest first)",
		       "name allocated free pending"},
	[F_BY] = {"by", 0, "GROUP", "add the allocation per namespace, pool, model, node or owner (controlling workload)",
		  "namespace pool model node owner"},
	USAGE_SOURCE_FLAGS,
	[F_COUNT] = {0},
};

struct inspect_run {
	struct model *m;
	char **names; /* positional node names, deduplicated */
	bool *seen;
	size_t nnames;
	size_t nodes_seen; /* nodes the server listed, shared or not */
	bool multi;	/* several lists feed the model */
	bool restarted; /* a list started over: run everything again */
};

struct list_ud {
	struct inspect_run *run;
	enum obj_kind kind;
};

static int on_node(void *ud, struct k8s_node *node, struct kerr *err)
{
	struct inspect_run *r = ((struct list_ud *)ud)->run;
	int rc;

	for (size_t i = 0; i < r->nnames; i++)
		if (node->name && strcmp(node->name, r->names[i]) == 0)
			r->seen[i] = true;
	r->nodes_seen++;
	rc = model_add_node(r->m, node, err);
	k8s_node_free(node);
	return rc;
}

static int on_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	struct inspect_run *r = ((struct list_ud *)ud)->run;
	int rc = model_add_pod(r->m, pod, err);

	k8s_pod_free(pod);
	return rc;
}

static void on_meta(void *ud, const char *resource_version, const char *continue_token)
{
	struct list_ud *l = ud;

	if (resource_version || continue_token)
		return;
	/* the list starts over after 410 Expired: forget what it delivered */
	if (l->run->multi)
		l->run->restarted = true;
	else if (l->kind == OBJ_NODE)
		model_reset_nodes(l->run->m);
	else
		model_reset_pods(l->run->m);
}

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

struct plan {
	struct kube_list *lists;
	struct list_ud *uds;
	char **selectors; /* owned strings the lists point to */
	size_t n, nsel;
};

static void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		kube_list_release(&p->lists[i]);
	for (size_t i = 0; i < p->nsel; i++)
		free(p->selectors[i]);
	free(p->lists);
	free(p->uds);
	free(p->selectors);
	memset(p, 0, sizeof(*p));
}

static char *plan_keep(struct plan *p, char *s)
{
	if (s)
		p->selectors[p->nsel++] = s;
	return s;
}

static void plan_list(struct plan *p, struct inspect_run *r, enum obj_kind kind, const char *label_selector,
		      const char *field_selector)
{
	struct kube_list *l = &p->lists[p->n];
	struct list_ud *ud = &p->uds[p->n];

	ud->run = r;
	ud->kind = kind;
	memset(l, 0, sizeof(*l));
	l->path = kind == OBJ_NODE ? "/api/v1/nodes" : "/api/v1/pods";
	l->label_selector = label_selector;
	l->field_selector = field_selector;
	l->kind = kind;
	l->from_cache = true; /* a view: the API server's cache will do */
	l->filter = kind == OBJ_NODE ? model_node_filter(r->m) : model_pod_filter(r->m);
	l->sink = (struct decode_sink){.node = on_node, .pod = on_pod, .list_meta = on_meta, .ud = ud};
	p->n++;
}

/* Named nodes: one node list and one pod list per name (field selectors, so
 * only those nodes' pods travel); else one list of each for the cluster. */
static int plan_lists(struct plan *p, struct inspect_run *r, const char *label_selector, struct kerr *err)
{
	size_t n = r->nnames ? 2 * r->nnames : 2;

	p->lists = calloc(n, sizeof(*p->lists));
	p->uds = calloc(n, sizeof(*p->uds));
	p->selectors = calloc(n, sizeof(*p->selectors));
	if (!p->lists || !p->uds || !p->selectors)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!model_node_filter(r->m) || !model_pod_filter(r->m))
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!r->nnames) {
		plan_list(p, r, OBJ_NODE, label_selector, NULL);
		plan_list(p, r, OBJ_POD, NULL, ACTIVE_PODS);
		return 0;
	}
	for (size_t i = 0; i < r->nnames; i++) {
		char *nodes = NULL, *pods = NULL;

		if (asprintf(&nodes, "metadata.name=%s", r->names[i]) < 0)
			nodes = NULL;
		plan_keep(p, nodes);
		if (asprintf(&pods, "spec.nodeName=%s," ACTIVE_PODS, r->names[i]) < 0)
			pods = NULL;
		plan_keep(p, pods);
		if (!nodes || !pods)
			return kerr_set(err, KERR_OTHER, "out of memory");
		plan_list(p, r, OBJ_NODE, NULL, nodes);
		plan_list(p, r, OBJ_POD, NULL, pods);
	}
	return 0;
}

int inspect_load_model(struct kube_client *client, const struct model_options *mo, char **names, size_t nnames,
		       const char *label_selector, struct model *ret, struct inspect_loaded *info, struct kerr *err)
{
	struct inspect_run r = {.names = names, .nnames = nnames};
	struct model m;
	bool have_model = false;
	int rc = -1;

	if (nnames && !(r.seen = calloc(nnames, sizeof(bool))))
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (int attempt = 0;; attempt++) {
		struct plan p = {0};
		int lrc;

		if (model_init(&m, mo) < 0) {
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
		have_model = true;
		r.m = &m;
		r.multi = r.nnames > 0;
		r.restarted = false;
		r.nodes_seen = 0;
		for (size_t i = 0; i < r.nnames; i++)
			r.seen[i] = false;
		if (plan_lists(&p, &r, label_selector, err) < 0) {
			plan_release(&p);
			goto out;
		}
		lrc = kube_list_run(client, p.lists, p.n, err);
		plan_release(&p);
		if (lrc < 0)
			goto out;
		if (!r.restarted || attempt >= 2)
			break;
		model_release(&m);
		have_model = false;
	}
	for (size_t i = 0; i < r.nnames; i++)
		if (!r.seen[i]) {
			char *msg = NULL;

			if (asprintf(&msg, "nodes \"%s\" not found", r.names[i]) < 0)
				msg = NULL;
			kerr_set_status(err, 404, "NotFound", msg ? msg : "node not found");
			free(msg);
			if (info)
				info->missing = r.names[i];
			goto out;
		}
	if (model_finish(&m, err) < 0)
		goto out;
	*ret = m;
	have_model = false;
	rc = 0;
out:
	if (info)
		info->nodes_seen = r.nodes_seen;
	if (have_model)
		model_release(&m);
	free(r.seen);
	return rc;
}

/* JSON and YAML: the report, with the roll-up when --by asks for one. */
static int print_document(struct cli_ctx *ctx, const struct model *m, enum output out, enum model_by by,
			  struct kerr *err)
{
	struct model_groups g;
	json_t *doc, *groups;
	int rc;

	if (by == BY_NONE)
		return output_report(ctx, m, out, err);
	doc = render_json_document(m);
	if (!doc || model_group(m, by, &g) < 0) {
		json_decref(doc);
		return kerr_set(err, KERR_OTHER, "cannot build the report");
	}
	groups = render_groups_json(&g);
	model_groups_release(&g);
	if (!groups || json_object_set_new(doc, "groups", groups) < 0) {
		json_decref(doc);
		return kerr_set(err, KERR_OTHER, "cannot build the report");
	}
	rc = output_document(ctx, doc, out, err);
	json_decref(doc);
	return rc;
}

static int print_groups(struct cli_ctx *ctx, const struct model *m, enum model_by by, struct kerr *err)
{
	struct model_groups g;
	int rc;

	if (model_group(m, by, &g) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = fputc('\n', ctx->out) == EOF ? kerr_set(err, KERR_OTHER, "cannot write the table")
					   : render_groups(ctx->out, &g, err);
	model_groups_release(&g);
	return rc;
}

/* The filters of the command line, for the message of an empty result. */
struct filters {
	const char *selector, *pool, *scheme;
	size_t nodes_seen;
};

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
static void print_nothing_found(FILE *f, const struct filters *fl)
{
	char sel[512] = "";

	if (fl->selector && fl->pool)
		snprintf(sel, sizeof(sel), "-l %s --pool %s", fl->selector, fl->pool);
	else if (fl->selector || fl->pool)
		snprintf(sel, sizeof(sel), "%s %s", fl->selector ? "-l" : "--pool", fl->selector ? fl->selector : fl->pool);
	fputs("No resources found\n", f);
	if (fl->nodes_seen == 0 && *sel) {
		fprintf(f, "no node matches %s\n", sel);
	} else if (fl->scheme) {
		fprintf(f, "no node%s%s is shared with scheme %s (%zu node%s looked at)\n", *sel ? " matching " : "", sel,
			fl->scheme, fl->nodes_seen, fl->nodes_seen == 1 ? "" : "s");
	} else {
		fprintf(f, "no node matching %s offers shared GPU memory (%zu node%s looked at)\n", sel, fl->nodes_seen,
			fl->nodes_seen == 1 ? "" : "s");
		print_label_hint(f);
	}
}

static int print_report(struct cli_ctx *ctx, const struct model *m, enum output out, bool details,
			enum model_by by, const struct filters *fl, const struct render_table_opts *to, struct kerr *err)
{
	bool filtered = fl->selector || fl->pool || fl->scheme;
	int rc;

	/* a filter that left no node: kubectl prints no table, only that
	 * nothing was found (a document still goes to scripts) */
	if (m->nnodes == 0 && filtered && !output_is_document(out)) {
		if (render_unscheduled(ctx->out, m, err) < 0)
			return -1;
		fflush(ctx->out);
		print_nothing_found(ctx->errout, fl);
		return render_warnings(ctx->errout, m, err);
	}
	if (output_is_document(out)) {
		rc = print_document(ctx, m, out, by, err);
	} else {
		rc = details ? render_details_opts(ctx->out, m, to, err) : render_summary_opts(ctx->out, m, to, err);
		if (rc == 0)
			rc = render_unscheduled(ctx->out, m, err);
		if (rc == 0 && details)
			rc = render_pending_reasons(ctx->out, m, err);
		if (rc == 0 && by != BY_NONE)
			rc = print_groups(ctx, m, by, err);
	}
	if (rc < 0)
		return -1;
	fflush(ctx->out);
	if (render_warnings(ctx->errout, m, err) < 0)
		return -1;
	if (m->nnodes == 0 && !output_is_document(out)) {
		fprintf(ctx->errout, "No node offers shared GPU memory (%s).\n",
			scheme_modes_find() ? scheme_modes_find()->share_resource : "?");
		print_label_hint(ctx->errout);
	}
	return 0;
}

int inspect_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = {0};
	struct nodesel sel = {0};
	struct kube_config cfg = {0};
	struct kube_client *client = NULL;
	struct model m;
	struct model_options mo = {.force_unit = -1, .pool_label = POOL_LABEL};
	enum output out = OUTPUT_TEXT;
	enum model_by by = BY_NONE;
	bool details, have_model = false, connected = false;
	struct usage_source usage = {0};
	struct usage_fetch *fetch = NULL;
	struct inspect_loaded loaded = {0};
	int npos, rc = -1;

	npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);
	if (npos < 0)
		return -1;
	details = vals[F_DETAILS] != NULL;
	if (output_parse(vals[F_OUTPUT], true, &out, err) < 0 || parse_unit(vals[F_UNIT], &mo.force_unit, err) < 0)
		return -1;
	if (details && out == OUTPUT_WIDE)
		return kerr_set(err, KERR_USAGE, "--details cannot be combined with -o wide");
	if (vals[F_SORT_BY] && !render_sort_key_valid(vals[F_SORT_BY]))
		return kerr_set(err, KERR_USAGE,
				"invalid argument \"%s\" for \"--sort-by\" flag: must be name, allocated, free or pending",
				vals[F_SORT_BY]);
	if (vals[F_BY] && model_by_parse(vals[F_BY], &by) < 0)
		return kerr_set(err, KERR_USAGE,
				"invalid argument \"%s\" for \"--by\" flag: must be namespace, pool, model, node or owner",
				vals[F_BY]);
	if (details && by != BY_NONE)
		return kerr_set(err, KERR_USAGE, "--by rolls up the summary: it cannot be combined with --details");
	if (nodesel_parse(&sel, ctx->cmd, vals, argv, (size_t)npos, false, err) < 0)
		goto out;
	mo.scheme = sel.scheme;
	if (usage_source_init(&usage, vals + F_USAGE, err) < 0)
		goto out;

	mo.keep_pods = details || output_is_document(out) || by == BY_NAMESPACE || by == BY_OWNER;
	mo.owners = by == BY_OWNER;
	/* pending pods are explained (taints, selectors) where pods are shown */
	mo.scheduling = details || output_is_document(out);
	/* -n narrows the pods listed (details, JSON, YAML); the sums always
	 * count every pod */
	if ((details || output_is_document(out)) && !ctx->g.all_namespaces)
		mo.pod_namespace = ctx->g.ov.namespace;
	mo.nodes = (const char *const *)sel.names;

	if (cli_connect(ctx, &cfg, &client, err) < 0)
		goto out;
	connected = true;
	if (usage.configured && out != OUTPUT_TEXT && usage_fetch_start(&usage, &cfg, ctx, out != OUTPUT_WIDE, &fetch, err) < 0)
		goto out;
	if (inspect_load_model(client, &mo, sel.names, sel.nnames, sel.label_selector, &m, &loaded, err) < 0) {
		/* a command name typed wrong reads as a node name: say which
		 * command was probably meant */
		const char *meant = loaded.missing ? cli_suggest_command(commands, loaded.missing) : NULL;

		if (meant) {
			kerr_print(ctx->errout, err);
			fprintf(ctx->errout, "No node is named \"%s\": did you mean \"%s\"? See '%s %s --help'.\n",
				loaded.missing, meant, ctx->prog, meant);
			kerr_release(err);
			rc = 1;
		}
		goto out;
	}
	have_model = true;
	if (fetch) {
		rc = usage_fetch_apply(fetch, &m, NULL, err);
		fetch = NULL;
		if (rc < 0)
			goto out;
	}
	rc = print_report(ctx, &m, out, details, by,
			  &(struct filters){ sel.selector, sel.pool, sel.scheme, loaded.nodes_seen },
			  &(struct render_table_opts){ .wide = out == OUTPUT_WIDE,
						       .no_headers = vals[F_NO_HEADERS] != NULL,
						       .sort_by = vals[F_SORT_BY] },
			  err);
out:
	usage_fetch_free(fetch);
	usage_source_release(&usage);
	if (have_model)
		model_release(&m);
	if (connected) {
		kube_client_free(client);
		kube_config_release(&cfg);
	}
	nodesel_release(&sel);
	return rc;
}
