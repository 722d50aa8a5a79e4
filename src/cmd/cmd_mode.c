/* kubectl inspect cgpu mode: put nodes into a GPU sharing mode.
 *
 * The seeds have administrators label node pools by hand, with a different
 * set of labels in each edition, and then delete the device-plugin pod on
 * each node.  This does the same in one step that shows its plan first, asks
 * before touching many nodes, writes each node's labels in a single patch
 * guarded by the resourceVersion it read (so no node is left half changed and
 * no concurrent edit is overwritten), and says what else must happen.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "mode.h"
#include "nodepool.h"
#include "render.h"
#include "restart.h"
#include "scheme.h"
#include "termsafe.h"
#include "warnings.h"

enum { F_PLACEMENT, F_EDITION, F_DRY_RUN, F_YES, F_RESTART, F_TIMEOUT, F_OUTPUT, F_NFLAGS };

const struct flag mode_flags[] = {
	[F_PLACEMENT] = { "placement", 0, "binpack|spread", "how GPUs are picked inside a node (pro edition, sharing modes)", "binpack spread" },
	[F_EDITION] = { "edition", 0, "pro|basic|opensource", "the sharing installation (default: detected from the cluster)", "pro basic opensource" },
	[F_DRY_RUN] = { "dry-run", 0, "none|client|server", "client: only print the plan; server: send the patches with dryRun=All", "none client server" },
	[F_YES] = { "yes", 'y', NULL, "do not ask before changing more than one node", NULL },
	[F_RESTART] = { "restart", 0, NULL, "restart the device plugin on the changed nodes afterwards", NULL },
	[F_TIMEOUT] = { "timeout", 0, "DURATION", "with --restart: how long to wait for each node's new plugin pod (default 5m)", NULL },
	[F_OUTPUT] = { "output", 'o', "FORMAT", "json or yaml: print the plan and the results as a document", "json yaml" },
	{ 0 },
};

/* --- evidence and plans ---------------------------------------------------------- */

/* Does the DaemonSet's pod template select the node?  Only its nodeSelector
 * is read, against the labels the node was read with; a key not among them
 * does not match, so such a DaemonSet is no evidence. */
static bool ds_selects(const json_t *ds, const struct np_node *n)
{
	const json_t *sel = json_object_get(
		json_object_get(json_object_get(json_object_get(ds, "spec"), "template"), "spec"), "nodeSelector");
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)sel, k, v) {
		const char *have = kvlist_get(&n->labels, k);

		if (!json_is_string(v) || !have || strcmp(have, json_string_value(v)) != 0)
			return false;
	}
	return true;
}

/* The evidence of some nodes: their labels and the DaemonSets that select
 * at least one of them. */
static void detect_add(struct np_detect *d, const struct np_nodes *nodes, const json_t *dss)
{
	const json_t *item;
	size_t i;

	for (i = 0; i < nodes->len; i++)
		np_detect_add_node(d, nodes->items[i].name, &nodes->items[i].labels);
	json_array_foreach(json_object_get(dss, "items"), i, item) {
		for (size_t k = 0; k < nodes->len; k++) {
			if (ds_selects(item, &nodes->items[k])) {
				np_detect_add_daemonset(d, json_string_value(json_object_get(json_object_get(item, "metadata"),
											     "name")));
				break;
			}
		}
	}
}

static bool detect_empty(const struct np_detect *d)
{
	for (int e = NP_EDITION_PRO; e < NP_NEDITIONS; e++)
		if (d->nodes[e] || d->ds_example[e])
			return false;
	return !d->plugin_ds;
}

/* The edition of the chosen nodes: their labels and the device-plugin
 * DaemonSets that select them.  Other nodes may belong to another edition
 * (a cluster moving from one to the other); only when the chosen nodes say
 * nothing at all does the rest of the cluster decide. */
static int detect_edition(struct mode_run *r, struct kerr *err)
{
	struct np_detect d;
	json_t *j = NULL;
	int rc;

	if (r->edition_given != NP_EDITION_UNKNOWN) {
		r->target.edition = r->edition_given;
		return 0;
	}
	/* Someone allowed to label nodes may not read DaemonSets: the node
	 * labels may still be enough. */
	if (kube_get_json(r->cluster.client, "/apis/apps/v1/namespaces/kube-system/daemonsets", NULL, &j, err) < 0 &&
	    !cli_drop_status(err, 403, 404))
		return -1;
	np_detect_init(&d);
	detect_add(&d, &r->chosen, j);
	d.selected = true;
	if (detect_empty(&d)) {
		np_detect_release(&d);
		np_detect_init(&d);
		detect_add(&d, &r->all, j);
		/* a DaemonSet that selects no node still says what is installed */
		if (detect_empty(&d)) {
			const json_t *item;
			size_t i;

			json_array_foreach(json_object_get(j, "items"), i, item)
				np_detect_add_daemonset(&d, json_string_value(json_object_get(json_object_get(item, "metadata"),
											       "name")));
		}
	}
	json_decref(j);
	rc = np_detect_finish(&d, NP_EDITION_UNKNOWN, &r->target.edition, err);
	np_detect_release(&d);
	return rc;
}

static int make_plans(struct mode_run *r, struct kerr *err)
{
	r->plans = calloc(r->chosen.len, sizeof(*r->plans));
	r->results = calloc(r->chosen.len, sizeof(*r->results));
	r->errors = calloc(r->chosen.len, sizeof(*r->errors));
	if (!r->plans || !r->results || !r->errors)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < r->chosen.len; i++) {
		if (np_plan_node(&r->target, r->chosen.items[i].name, &r->chosen.items[i].labels, &r->plans[i], err) < 0)
			return -1;
		if (r->plans[i].nchanges)
			r->nchanging++;
	}
	return 0;
}

/* --- plan text ------------------------------------------------------------------------- */

static size_t restart_count(const struct mode_run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->chosen.len; i++)
		n += r->plans[i].nchanges && r->target.edition != NP_EDITION_OPENSOURCE;
	return n;
}

static void print_plan(const struct mode_run *r, bool will_restart)
{
	FILE *f = r->ctx->out;
	size_t nrestart = restart_count(r);

	fprintf(f, "Edition: %s (%s)%s\n", np_edition_name(r->target.edition), np_edition_title(r->target.edition),
		r->edition_given != NP_EDITION_UNKNOWN ? ", as given" : ", detected");
	fprintf(f, "Mode: %s%s%s\n", np_mode_name(r->target.mode), r->target.placement ? ", placement " : "",
		r->target.placement ? r->target.placement : "");
	for (size_t i = 0; i < r->chosen.len; i++) {
		const struct np_plan *p = &r->plans[i];
		/* names and label values from the cluster, in their visible form:
		 * a newline in them must not start a line of the plan */
		char *node = termsafe_str(p->node);

		if (!p->nchanges) {
			fprintf(f, "node/%s: already %s, nothing to change\n", node ? node : "", np_mode_name(p->after));
			free(node);
			continue;
		}
		fprintf(f, "node/%s: %s -> %s\n", node ? node : "", np_plan_before_name(p), np_mode_name(p->after));
		free(node);
		for (size_t k = 0; k < p->nchanges; k++) {
			const struct np_change *c = &p->changes[k];
			char *key = termsafe_str(c->key);
			char *before = c->before ? termsafe_str(c->before) : NULL;
			char *after = c->after ? termsafe_str(c->after) : NULL;

			fprintf(f, "    %s: %s -> %s\n", key ? key : "", before ? before : "(unset)",
				after ? after : "(removed)");
			free(key);
			free(before);
			free(after);
		}
	}
	if (nrestart)
		fprintf(f, "Then: the device plugin reads these labels only when it starts; %s\n",
			will_restart ? "it will be restarted on the changed nodes (--restart)"
				     : "restart it on the changed nodes (add --restart, or run the restart command)");
}

/* --- applying ---------------------------------------------------------------------------- */

#define CONFLICT_RETRIES 3

static void set_node_error(struct mode_run *r, size_t i, const struct kerr *e)
{
	r->errors[i] = write_error_line(e);
	r->results[i] = R_ERROR;
}

/* The patch was sent and its answer lost: read the node again to say what
 * it came to.  Never sent again; a rerun finishes what is left. */
static void settle_lost(struct mode_run *r, size_t i, const struct kerr *lost)
{
	static const enum node_result of[] = {
		[WRITE_CONFIRMED] = R_CONFIRMED, [WRITE_NOT_DONE] = R_NOT_DONE, [WRITE_CHANGED] = R_CHANGED,
	};
	const struct np_plan *p = &r->plans[i];
	enum write_result found = WRITE_UNKNOWN;
	struct kerr rerr = KERR_INIT;
	char *check = NULL;

	if (write_check_labels(r->cluster.client, p->node, p->changes, p->nchanges, &found, &rerr) < 0)
		found = WRITE_UNKNOWN;
	if (found == WRITE_UNKNOWN && asprintf(&check, "kubectl get node %s --show-labels", p->node) < 0)
		check = NULL;
	r->errors[i] = write_lost_message(found, lost, &rerr, "labels", check);
	r->results[i] = found == WRITE_UNKNOWN ? R_UNKNOWN : of[found];
	free(check);
	kerr_release(&rerr);
}

/* Patch one node, reading it again and re-planning after a 409 Conflict. */
static void apply_node(struct mode_run *r, size_t i)
{
	struct np_node *node = &r->chosen.items[i];
	struct kube_write_opts w = { .dry_run = r->dry == CLI_DRY_SERVER, .field_manager = "kubectl-inspect-cgpu" };
	struct kerr err = KERR_INIT;
	char *path = kube_path("v1", NULL, "nodes", node->name);

	if (!path) {
		kerr_set(&err, KERR_OTHER, "out of memory");
		goto fail;
	}
	for (int attempt = 0;; attempt++) {
		json_t *body;
		int rc;

		if (r->plans[i].nchanges == 0) {
			r->results[i] = R_UNCHANGED;
			goto out;
		}
		body = np_plan_patch(&r->plans[i], node->resource_version);
		if (!body) {
			kerr_set(&err, KERR_OTHER, "out of memory");
			goto fail;
		}
		rc = kube_patch(r->cluster.client, path, PATCH_MERGE, body, &w, NULL, &err);
		json_decref(body);
		if (rc == 0) {
			r->results[i] = R_LABELED;
			goto out;
		}
		if (write_result_of(rc, &err) == WRITE_UNKNOWN) {
			settle_lost(r, i, &err);
			goto out;
		}
		if (err.kind != KERR_STATUS || err.code != 409 || attempt >= CONFLICT_RETRIES)
			goto fail;
		/* someone changed the node since it was read: read it again, plan again */
		kerr_release(&err);
		{
			struct np_node fresh;
			struct np_plan plan;

			if (np_node_get(r->cluster.client, node->name, &fresh, &err) < 0)
				goto fail;
			np_node_release(node);
			*node = fresh;
			if (np_plan_node(&r->target, node->name, &node->labels, &plan, &err) < 0)
				goto fail;
			np_plan_release(&r->plans[i]);
			r->plans[i] = plan;
		}
	}
fail:
	set_node_error(r, i, &err);
out:
	kerr_release(&err);
	free(path);
}

/* "node/NAME: error" on one line, both in their visible form. */
static void print_node_error(const struct mode_run *r, size_t i)
{
	char *node = termsafe_str(r->plans[i].node);
	char *msg = termsafe_str(r->errors[i] ? r->errors[i] : "error");

	fprintf(r->ctx->errout, "node/%s: %s\n", node ? node : "", msg ? msg : "error");
	free(node);
	free(msg);
}

/* A node whose labels are not, or not known to be, as planned. */
static bool result_failed(enum node_result res)
{
	return res == R_ERROR || res == R_NOT_DONE || res == R_CHANGED || res == R_UNKNOWN;
}

static void print_result(const struct mode_run *r, size_t i)
{
	const char *suffix = r->dry == CLI_DRY_CLIENT ? " (dry run)" : r->dry == CLI_DRY_SERVER ? " (server dry run)" : "";
	char *node = termsafe_str(r->plans[i].node);

	switch (r->results[i]) {
	case R_LABELED:
	case R_PLANNED:
		fprintf(r->ctx->out, "node/%s labeled%s\n", node ? node : "", suffix);
		break;
	case R_CONFIRMED:
		fprintf(r->ctx->out, "node/%s labeled%s (confirmed after a lost answer)\n", node ? node : "", suffix);
		break;
	case R_UNCHANGED:
		fprintf(r->ctx->out, "node/%s unchanged%s\n", node ? node : "", suffix);
		break;
	case R_NOT_ATTEMPTED:
		fprintf(r->ctx->errout, "node/%s: not attempted\n", node ? node : "");
		break;
	case R_ERROR:
	case R_NOT_DONE:
	case R_CHANGED:
	case R_UNKNOWN:
		print_node_error(r, i);
		break;
	}
	free(node);
}

/* Before changing several nodes: ask on a terminal, refuse elsewhere. */
static int confirm(struct mode_run *r, bool yes, struct kerr *err)
{
	if (r->dry != CLI_DRY_NONE || r->nchanging <= 1 || yes)
		return 0;
	return cli_confirm(r->ctx, r->nchanging, "nodes", "Apply to", "change", err);
}

/* --- JSON ---------------------------------------------------------------------------------- */

static json_t *labels_json(const struct np_plan *p, bool after)
{
	json_t *o = json_object();

	for (size_t k = 0; o && k < p->nchanges; k++) {
		const char *v = after ? p->changes[k].after : p->changes[k].before;

		json_object_set_new(o, p->changes[k].key, v ? json_string(v) : json_null());
	}
	return o;
}

/* The plan and the results as one ModeChange document. */
static int print_document(const struct mode_run *r, struct kerr *err)
{
	static const char *const results[] = {
		"planned", "unchanged", "labeled", "error", "labeled", "notDone", "changed", "unknown", "notAttempted",
	};
	static const char *const dry[] = { "none", "client", "server" };
	json_t *root = json_object(), *nodes = json_array(), *warns = json_array();
	int rc = -1;

	if (!root || !nodes || !warns) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->chosen.len; i++) {
		const struct np_plan *p = &r->plans[i];
		json_t *n = json_pack("{s:s, s:s, s:s, s:o, s:o, s:b, s:s}", "name", p->node, "modeBefore",
				      np_plan_before_name(p), "modeAfter", np_mode_name(p->after), "labelsBefore",
				      labels_json(p, false), "labelsAfter", labels_json(p, true), "restartNeeded",
				      p->nchanges > 0 && r->target.edition != NP_EDITION_OPENSOURCE, "result",
				      results[r->results[i]]);

		if (n && r->errors[i] && r->results[i] != R_CONFIRMED)
			json_object_set_new(n, "error", json_string(r->errors[i]));
		if (n && r->results[i] >= R_CONFIRMED && r->results[i] <= R_UNKNOWN)
			json_object_set_new(n, "answerLost", json_true());
		json_array_append_new(nodes, n);
	}
	for (size_t i = 0; i < r->warnings.len; i++) {
		const struct warning *w = &r->warnings.items[i];

		json_array_append_new(warns, json_pack("{s:s, s:s?, s:s}", "code", w->code, "object", w->object,
						       "message", w->message));
	}
	/* a document of the same family as inspect's report */
	json_object_set_new(root, "apiVersion", json_string(RENDER_API_VERSION));
	json_object_set_new(root, "kind", json_string("ModeChange"));
	json_object_set_new(root, "edition", json_string(np_edition_name(r->target.edition)));
	json_object_set_new(root, "mode", json_string(np_mode_name(r->target.mode)));
	if (r->target.placement)
		json_object_set_new(root, "placement", json_string(r->target.placement));
	json_object_set_new(root, "dryRun", json_string(dry[r->dry]));
	json_object_set(root, "nodes", nodes);
	json_object_set_new(root, "summary", json_pack("{s:I, s:I, s:I, s:I}", "done", (json_int_t)r->tally.done,
							"failed", (json_int_t)r->tally.failed, "unknown",
							(json_int_t)r->tally.unknown, "notAttempted",
							(json_int_t)r->tally.not_attempted));
	json_object_set(root, "warnings", warns);
	rc = output_document(r->ctx, root, r->out, err);
out:
	json_decref(root);
	json_decref(nodes);
	json_decref(warns);
	return rc;
}

/* --- the command ----------------------------------------------------------------------------- */

static void mode_run_release(struct mode_run *r)
{
	cluster_release(&r->cluster);
	nodesel_release(&r->sel);
	for (size_t i = 0; r->plans && i < r->chosen.len; i++)
		np_plan_release(&r->plans[i]);
	for (size_t i = 0; r->errors && i < r->chosen.len; i++)
		free(r->errors[i]);
	free(r->plans);
	free(r->results);
	free(r->errors);
	np_nodes_release(&r->all);
	np_nodes_release(&r->chosen);
	warnings_release(&r->warnings);
}

/* The mode, the flags and the nodes; what needs no cluster to be wrong is
 * refused before it is asked. */
static int parse_args(int argc, char **argv, struct mode_run *r, struct kerr *err)
{
	const char *vals[F_NFLAGS + NODESEL_MAX_FLAGS + 1] = { 0 };
	int npos;

	restart_fix_dry_run(argc, argv);
	npos = cli_parse_flags(r->ctx->cmd, argc, argv, vals, err);
	if (npos < 0)
		return -1;
	r->restart = vals[F_RESTART] && strcmp(vals[F_RESTART], "true") == 0;
	r->yes = vals[F_YES] && strcmp(vals[F_YES], "true") == 0;
	if (npos < 1)
		return kerr_set(err, KERR_USAGE, "which mode? exclusive, share, isolate or core");
	if (np_mode_parse(argv[0], &r->target.mode, err) < 0)
		return -1;
	r->target.placement = vals[F_PLACEMENT];
	if (r->target.placement && strcasecmp(r->target.placement, "binpack") == 0)
		r->target.placement = "binpack";
	else if (r->target.placement && strcasecmp(r->target.placement, "spread") == 0)
		r->target.placement = "spread";
	else if (r->target.placement)
		return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--placement\" flag: must be binpack or spread",
				r->target.placement);
	if (r->target.placement && r->target.mode == NP_MODE_EXCLUSIVE)
		return kerr_set(err, KERR_USAGE, "--placement applies only to the sharing modes, not to exclusive");
	if (vals[F_EDITION] && np_edition_parse(vals[F_EDITION], &r->edition_given, err) < 0)
		return -1;
	r->timeout_ms = 5 * 60 * 1000;
	if (cli_parse_dry_run(vals[F_DRY_RUN], &r->dry, err) < 0 || output_parse(vals[F_OUTPUT], false, &r->out, err) < 0 ||
	    cli_parse_timeout(vals[F_TIMEOUT], &r->timeout_ms, err) < 0)
		return -1;
	/* with an edition given, a wrong mode or placement is refused before any request */
	if (r->edition_given != NP_EDITION_UNKNOWN) {
		r->target.edition = r->edition_given;
		if (np_target_check(&r->target, err) < 0)
			return -1;
	}
	return nodesel_parse(&r->sel, r->ctx->cmd, vals, argv + 1, (size_t)(npos - 1), true, err);
}

/* Read the chosen nodes, decide the edition, plan each node's labels and
 * gather the warnings; print the plan and the warnings, and ask: 1 when
 * the answer was no. */
static int plan(struct mode_run *r, struct kerr *err)
{
	if (np_nodes_select(r->cluster.client, &r->sel, &r->all, &r->chosen, err) < 0 || detect_edition(r, err) < 0 ||
	    np_target_check(&r->target, err) < 0 || make_plans(r, err) < 0)
		return -1;
	mode_plan_warnings(r);
	if (r->nchanging && mode_pod_warnings(r, err) < 0)
		return -1;
	if (!output_is_document(r->out))
		print_plan(r, r->restart);
	fflush(r->ctx->out);
	/* the plan, then what to mind, then the question; that a restart is
	 * needed is said once, in the plan */
	if (!output_is_document(r->out))
		mode_print_warnings(r);
	return confirm(r, r->yes, err);
}

/* Label each node (or, with --dry-run=client, only say what would be).
 * After the first node that failed or whose outcome is unknown no other
 * node is written: the rest are not attempted (a node already in the mode
 * needs no write and stays unchanged).  How many were not labelled. */
static size_t apply(struct mode_run *r, struct write_tally *tally)
{
	static const enum write_result as_write[] = {
		[R_PLANNED] = WRITE_DONE, [R_UNCHANGED] = WRITE_DONE, [R_LABELED] = WRITE_DONE,
		[R_ERROR] = WRITE_FAILED, [R_CONFIRMED] = WRITE_CONFIRMED, [R_NOT_DONE] = WRITE_NOT_DONE,
		[R_CHANGED] = WRITE_CHANGED, [R_UNKNOWN] = WRITE_UNKNOWN, [R_NOT_ATTEMPTED] = WRITE_NOT_ATTEMPTED,
	};
	bool stopped = false;

	for (size_t i = 0; i < r->chosen.len; i++) {
		if (r->dry == CLI_DRY_CLIENT || (stopped && r->plans[i].nchanges == 0))
			r->results[i] = r->plans[i].nchanges ? R_PLANNED : R_UNCHANGED;
		else if (stopped)
			r->results[i] = R_NOT_ATTEMPTED;
		else
			apply_node(r, i);
		if (!output_is_document(r->out))
			print_result(r, i);
		else if (result_failed(r->results[i]))
			print_node_error(r, i);
		stopped = stopped || result_failed(r->results[i]);
		write_tally_add(tally, as_write[r->results[i]]);
	}
	fflush(r->ctx->out);
	return tally->failed + tally->unknown + tally->not_attempted;
}

/* --restart: the device plugin on the nodes that were labelled.  The
 * nodes where it was not restarted, or -1 when none could be tried. */
static int restart_changed(struct mode_run *r, struct kerr *err)
{
	bool doc = output_is_document(r->out);
	struct restart_opts o = {
		.max_parallel = 1, .timeout_ms = r->timeout_ms, .dry_run = r->dry == CLI_DRY_CLIENT,
		.server_dry_run = r->dry == CLI_DRY_SERVER, .tty = isatty(STDERR_FILENO) && isatty(STDOUT_FILENO) && !doc,
		.out = doc ? r->ctx->errout : r->ctx->out, .errout = r->ctx->errout,
	};
	char **changed = calloc(r->chosen.len + 1, sizeof(*changed));
	size_t n = 0;
	int rc;

	if (!changed)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < r->chosen.len; i++)
		if (r->results[i] == R_LABELED || r->results[i] == R_PLANNED || r->results[i] == R_CONFIRMED)
			changed[n++] = r->plans[i].node;
	rc = n ? restart_nodes(r->cluster.client, changed, n, &o, err) : 0;
	free(changed);
	return rc;
}

int mode_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct mode_run r = { .ctx = ctx };
	int nfailed, rc = -1;

	if (parse_args(argc, argv, &r, err) < 0)
		goto out;
	if (ctx->g.ov.namespace)
		cli_namespace_unused(ctx, "nodes belong to no namespace");
	if (cluster_connect(ctx, &r.cluster, err) < 0 || (rc = plan(&r, err)) < 0)
		goto out;
	if (rc == 1) { /* declined: nothing to do, not a failure */
		rc = 0;
		goto out;
	}
	rc = -1;
	nfailed = (int)apply(&r, &r.tally);
	if (nfailed && r.dry != CLI_DRY_CLIENT) {
		write_tally_print(ctx->errout, &r.tally, "nodes");
		if (r.tally.not_attempted)
			fprintf(ctx->errout, "Stopped at the first node that failed or whose outcome is unknown; run the "
					     "command again to change the rest: nodes already in the mode get no request\n");
	}
	if (r.restart) {
		int f = restart_changed(&r, err);

		if (f < 0) {
			/* the document still says what was labelled; the error
			 * that stopped the restart is the one told */
			if (output_is_document(r.out)) {
				struct kerr ignored = KERR_INIT;

				print_document(&r, &ignored);
				kerr_release(&ignored);
			}
			goto out;
		}
		nfailed += f;
	}
	if (output_is_document(r.out) && print_document(&r, err) < 0)
		goto out;
	rc = nfailed ? 1 : 0;
out:
	mode_run_release(&r);
	return rc;
}
