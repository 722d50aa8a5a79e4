/* kubectl inspect cgpu restart: restart the GPU device plugin on some nodes.
 *
 * The device plugin reads its node's labels only when it starts (seed 001),
 * so a label change takes effect after its pod is deleted and the DaemonSet
 * has made a new one.  kubectl rollout restart cannot target one node, so
 * this does it by hand, as the seeds describe, but safely: only pods the
 * DaemonSet controls, a uid precondition on the delete, and a wait for the
 * replacement to be Ready before the next node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "load.h"
#include "nodepool.h"
#include "output.h"
#include "render.h"
#include "restart.h"
#include "restart_plugin.h"
#include "termsafe.h"
#include "write_check.h"

/* --- time ---------------------------------------------------------------------------- */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void restart_format_duration(char *buf, size_t len, long ms)
{
	long h = ms / 3600000, m = ms / 60000 % 60, s = ms / 1000 % 60, rest = ms % 1000;
	size_t off = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (ms < 1000) {
		snprintf(buf, len, "%ldms", ms);
		return;
	}
	if (h)
		off += (size_t)snprintf(buf + off, len - off, "%ldh", h);
	if (m && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%ldm", m);
	if ((s || rest) && off < len) {
		if (rest)
			snprintf(buf + off, len - off, "%ld.%lds", s, rest / 100);
		else
			snprintf(buf + off, len - off, "%lds", s);
	}
}

/* --- the restart of one node ------------------------------------------------------------ */

enum node_state { NS_PENDING, NS_WAITING, NS_DONE };

struct node_job {
	const char *node;
	enum node_state state;
	long started;
	char *old_name;	     /* first deleted pod, for messages */
	char *new_name;	     /* replacement seen (maybe not Ready yet) */
	char **old_uids;     /* every deleted pod */
	size_t nold;
	bool *need;	     /* per DaemonSet: had a pod here and still picks the node */
	size_t nneed;	     /* how many DaemonSets had a pod here, then still pick it */
	bool failed;
	bool skipped;	     /* nothing to restart here: no plugin pod on the node */
	bool unknown;	     /* a delete's answer was lost, and reading again could not tell */
	bool answer_lost;    /* a delete's answer was lost (read again since) */
	char *error;	     /* what went wrong, as its line says it, for the document */
};

static void job_release(struct node_job *j)
{
	free(j->error);
	free(j->old_name);
	free(j->new_name);
	for (size_t i = 0; i < j->nold; i++)
		free(j->old_uids[i]);
	free(j->old_uids);
	free(j->need);
}

static bool job_is_old(const struct node_job *j, const char *uid)
{
	for (size_t i = 0; i < j->nold; i++)
		if (uid && strcmp(j->old_uids[i], uid) == 0)
			return true;
	return false;
}

static void clear_progress(const struct restart_opts *o, bool *shown)
{
	if (*shown) {
		/* errout shows control characters visibly: the terminal's own
		 * sequence goes to it straight, after what errout holds */
		fflush(o->errout);
		fputs("\r\033[K", stderr);
		*shown = false;
	}
}

static void node_error(const struct restart_opts *o, struct node_job *j, const struct kerr *err)
{
	fputs("node/", o->errout);
	termsafe_fputs(j->node, o->errout);
	fputs(": ", o->errout);
	{
		char *line = cli_error_line(err);

		fprintf(o->errout, "%s\n", line ? line : "error: out of memory");
		free(line);
	}
	free(j->error);
	j->error = write_error_line(err);
	j->failed = true;
	j->state = NS_DONE;
}

/* A delete that is not known to be done ends the node: failed, or of
 * unknown outcome when its answer was lost and reading again could not
 * tell.  said: what reading again found, or NULL when it was not read. */
static void job_not_deleted(const struct restart_opts *o, struct node_job *j, const struct k8s_pod *p,
			    enum write_result res, const struct kerr *err, const char *said)
{
	if (!j->old_name)
		j->old_name = strdup(p->name);
	if (!said) {
		node_error(o, j, err);
		return;
	}
	termsafe_printf(o->errout, "node/%s: delete of pod %s/%s: %s\n", j->node, p->namespace, p->name, said);
	free(j->error);
	j->error = strdup(said);
	j->answer_lost = true;
	j->unknown = res == WRITE_UNKNOWN;
	j->failed = !j->unknown;
	j->state = NS_DONE;
}

/* Of the DaemonSets that had a pod here, wait only for those whose
 * nodeSelector still picks the node as it is labelled now.  After a mode
 * change the old mode's DaemonSet brings nothing back, and the new mode's
 * may have started its pod before the old one was deleted (so both were):
 * waiting for the old one would never end. */
static int expect_selecting(struct kube_client *c, const struct plugin_ds *ds, size_t nds, struct node_job *j,
			    struct kerr *err)
{
	char *path = kube_path("v1", NULL, "nodes", j->node);
	json_t *node = NULL, *labels;

	if (!path)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (kube_get_json(c, path, NULL, &node, err) < 0) {
		free(path);
		return -1;
	}
	free(path);
	labels = json_object_get(json_object_get(node, "metadata"), "labels");
	for (size_t i = 0; i < nds; i++)
		if (j->need[i] && !plugin_ds_selects(&ds[i], labels)) {
			j->need[i] = false;
			j->nneed--;
		}
	json_decref(node);
	return 0;
}

/* Find the pods, delete them; leaves the job WAITING or DONE. */
static void job_start(struct kube_client *c, const struct plugin_ds *ds, size_t nds, struct node_job *j,
		      const struct restart_opts *o)
{
	struct kerr err = KERR_INIT;
	struct plugin_pods *pods = calloc(nds, sizeof(*pods));
	size_t total = 0;
	enum write_result res;
	char *said = NULL;

	j->need = calloc(nds, sizeof(*j->need));
	if (!pods || !j->need) {
		kerr_set(&err, KERR_OTHER, "out of memory");
		node_error(o, j, &err);
		goto out;
	}
	if (plugin_pods_list(c, ds, nds, j->node, pods, &err) < 0) {
		node_error(o, j, &err);
		goto out;
	}
	for (size_t i = 0; i < nds; i++)
		total += pods[i].len;
	if (total == 0) {
		termsafe_printf(o->errout, "node/%s: no device-plugin pod on this node%s; not restarted\n", j->node,
				o->daemonset ? " from that DaemonSet" : "");
		j->skipped = true;
		j->state = NS_DONE;
		goto out;
	}
	j->old_uids = calloc(total, sizeof(*j->old_uids));
	if (!j->old_uids) {
		kerr_set(&err, KERR_OTHER, "out of memory");
		node_error(o, j, &err);
		goto out;
	}
	j->started = now_ms();
	for (size_t i = 0; i < nds; i++) {
		for (size_t k = 0; k < pods[i].len; k++) {
			const struct k8s_pod *p = pods[i].items[k];

			if (o->dry_run) {
				termsafe_printf(o->out, "node/%s: would delete pod %s/%s of daemonset %s/%s (dry run)\n",
					j->node, p->namespace, p->name, ds[i].ns, ds[i].name);
				continue;
			}
			res = plugin_pod_delete(c, p, o->server_dry_run, &err, &said);
			if (!write_result_done(res)) {
				job_not_deleted(o, j, p, res, &err, said);
				goto out;
			}
			if (o->server_dry_run) {
				termsafe_printf(o->out, "node/%s: pod %s/%s deleted (server dry run)\n", j->node, p->namespace,
					p->name);
				continue;
			}
			if (!j->need[i])
				j->nneed++;
			j->need[i] = true;
			j->old_uids[j->nold] = strdup(p->uid ? p->uid : "");
			if (j->old_uids[j->nold])
				j->nold++;
			if (!j->old_name)
				j->old_name = strdup(p->name);
			j->answer_lost = j->answer_lost || res == WRITE_CONFIRMED;
			if (!o->tty)
				termsafe_printf(o->out, "node/%s: deleted pod %s/%s%s, waiting for a Ready replacement\n",
						j->node, p->namespace, p->name,
						res == WRITE_CONFIRMED ? " (confirmed after a lost answer)" : "");
			free(said);
			said = NULL;
		}
	}
	if (j->nneed && !o->dry_run && !o->server_dry_run && expect_selecting(c, ds, nds, j, &err) < 0) {
		node_error(o, j, &err);
		goto out;
	}
	j->state = (o->dry_run || o->server_dry_run) ? NS_DONE : NS_WAITING;
out:
	for (size_t i = 0; pods && i < nds; i++)
		plugin_pods_release(&pods[i]);
	free(pods);
	free(said);
	kerr_release(&err);
}

/* One look at the node: is every deleted pod replaced by a Ready one? */
static void job_poll(struct kube_client *c, const struct plugin_ds *ds, size_t nds, struct node_job *j,
		     const struct restart_opts *o)
{
	struct kerr err = KERR_INIT;
	struct plugin_pods *pods = calloc(nds, sizeof(*pods));
	size_t nready = 0, missing = 0;
	bool all;
	long elapsed;
	char dur[32];

	if (!pods) {
		kerr_set(&err, KERR_OTHER, "out of memory");
		node_error(o, j, &err);
		return;
	}
	if (plugin_pods_list(c, ds, nds, j->node, pods, &err) < 0) {
		node_error(o, j, &err);
		goto out;
	}
	/* A DaemonSet counts once it has a new Ready pod here.  Usually it is
	 * the one whose pod was deleted; but after a mode change in the pro
	 * edition the node may have moved to another mode's plugin, whose
	 * DaemonSet then brings the replacement while the old one stays away. */
	for (size_t i = 0; i < nds; i++) {
		bool ok = false;

		for (size_t k = 0; k < pods[i].len && !ok; k++) {
			const struct k8s_pod *p = pods[i].items[k];

			if (job_is_old(j, p->uid) || p->deleting)
				continue;
			if (!j->new_name)
				j->new_name = strdup(p->name);
			ok = p->ready && p->phase && strcmp(p->phase, "Running") == 0;
			if (ok) {
				free(j->new_name);
				j->new_name = strdup(p->name);
			}
		}
		nready += ok;
		if (j->need[i] && !ok)
			missing++;
	}
	/* every DaemonSet still picking the node is back, and some new pod is
	 * Ready: after a mode change it is the new mode's */
	all = missing == 0 && nready > 0;
	elapsed = now_ms() - j->started;
	if (all) {
		restart_format_duration(dur, sizeof(dur), elapsed < 100 ? 100 : elapsed);
		termsafe_printf(o->out, "node/%s: restarted %s in %s (new pod %s)\n", j->node,
			j->old_name ? j->old_name : "the device plugin", dur, j->new_name ? j->new_name : "?");
		j->state = NS_DONE;
	} else if (elapsed >= o->timeout_ms) {
		restart_format_duration(dur, sizeof(dur), o->timeout_ms);
		termsafe_printf(o->errout, "node/%s: timed out after %s waiting for a Ready device-plugin pod\n", j->node,
				dur);
		free(j->error);
		if (asprintf(&j->error, "timed out after %s waiting for a Ready device-plugin pod", dur) < 0)
			j->error = NULL;
		j->failed = true;
		j->state = NS_DONE;
	}
out:
	for (size_t i = 0; i < nds; i++)
		plugin_pods_release(&pods[i]);
	free(pods);
	kerr_release(&err);
}

/* At most this many nodes are named in the closing lines; a pool may have hundreds. */
#define SUMMARY_NAMES 10

/* One line naming the nodes a predicate picks, "and N more" past a few. */
static void summary_line(const struct restart_opts *o, const struct node_job *jobs, size_t n, const char *what,
			 bool (*pick)(const struct node_job *))
{
	size_t count = 0, shown = 0;

	for (size_t i = 0; i < n; i++)
		count += pick(&jobs[i]);
	if (!count)
		return;
	fprintf(o->errout, "%s (%zu):", what, count);
	for (size_t i = 0; i < n && shown < SUMMARY_NAMES; i++) {
		if (!pick(&jobs[i]))
			continue;
		fprintf(o->errout, " node/%s", jobs[i].node);
		shown++;
	}
	if (count > shown)
		fprintf(o->errout, " and %zu more", count - shown);
	fputc('\n', o->errout);
}

static bool job_failed(const struct node_job *j)
{
	return j->failed;
}

static bool job_skipped(const struct node_job *j)
{
	return j->skipped;
}

static bool job_unknown(const struct node_job *j)
{
	return j->unknown;
}

static bool job_not_tried(const struct node_job *j)
{
	return j->state == NS_PENDING;
}

/* What was not done, said once at the end: the per-node lines above may
 * have scrolled away on a large pool. */
static void restart_summary(const struct restart_opts *o, const struct node_job *jobs, size_t n)
{
	struct write_tally t = { 0 };
	bool any_unknown = false;

	for (size_t i = 0; i < n; i++) {
		const struct node_job *j = &jobs[i];

		write_tally_add(&t, j->state == NS_PENDING ? WRITE_NOT_ATTEMPTED
				    : j->unknown	   ? WRITE_UNKNOWN
				    : j->failed || j->skipped ? WRITE_FAILED
							     : WRITE_DONE);
		any_unknown = any_unknown || j->unknown;
	}
	if (o->report_summary) {
		json_object_set_new(o->report_summary, "done", json_integer((json_int_t)t.done));
		json_object_set_new(o->report_summary, "failed", json_integer((json_int_t)t.failed));
		json_object_set_new(o->report_summary, "unknown", json_integer((json_int_t)t.unknown));
		json_object_set_new(o->report_summary, "notAttempted", json_integer((json_int_t)t.not_attempted));
	}
	if (t.done == n)
		return;
	fprintf(o->errout, "The device plugin was %s on %zu of %zu node%s; the others were left as they were.\n",
		o->dry_run || o->server_dry_run ? "to be restarted" : "restarted", t.done, n, n == 1 ? "" : "s");
	summary_line(o, jobs, n, "Failed", job_failed);
	summary_line(o, jobs, n, "Unknown", job_unknown);
	summary_line(o, jobs, n, "No device-plugin pod", job_skipped);
	summary_line(o, jobs, n, "Not tried", job_not_tried);
	write_tally_print(o->errout, &t, "nodes");
	if (!t.not_attempted)
		return;
	if (any_unknown)
		fprintf(o->errout, "Stopped at a node whose outcome is unknown (--continue-on-error does not go past "
				   "one); run the command again once the server answers\n");
	else
		fprintf(o->errout, "Stopped after the first failure; add --continue-on-error to go on past "
				   "a failed node\n");
}

/* Each node's result in o->report, the nodes of a RestartResult. */
static void restart_report(const struct restart_opts *o, const struct node_job *jobs, size_t n)
{
	for (size_t i = 0; o->report && i < n; i++) {
		const struct node_job *j = &jobs[i];
		const char *result = j->state == NS_PENDING ? "notAttempted"
				     : j->unknown	   ? "unknown"
				     : j->skipped	   ? "noPlugin"
				     : j->failed	   ? "failed"
				     : o->dry_run || o->server_dry_run ? "planned"
								      : "restarted";
		json_t *node = json_pack("{s:s, s:s, s:s?, s:s?}", "name", j->node, "result", result, "oldPod",
					 j->old_name, "newPod", j->state == NS_DONE && !j->failed ? j->new_name : NULL);

		if (node && j->answer_lost)
			json_object_set_new(node, "answerLost", json_true());
		if (node && j->error)
			json_object_set_new(node, "error", json_string(j->error));
		json_array_append_new(o->report, node);
	}
}

int restart_nodes(struct kube_client *c, char *const *nodes, size_t n, const struct restart_opts *o,
		  struct kerr *err)
{
	struct plugin_ds *ds = NULL;
	size_t nds = 0, next = 0, active = 0, failed = 0;
	bool stop = false;
	struct node_job *jobs;
	bool shown = false;
	int maxp = o->max_parallel > 0 ? o->max_parallel : 1;

	if (n == 0)
		return 0;
	if (plugin_ds_find(c, o->daemonset, &ds, &nds, err) < 0)
		return -1;
	jobs = calloc(n, sizeof(*jobs));
	if (!jobs) {
		for (size_t i = 0; i < nds; i++)
			plugin_ds_release(&ds[i]);
		free(ds);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		jobs[i].node = nodes[i];
	for (;;) {
		/* start nodes while there is room */
		/* after a failure, start no more nodes (a broken plugin image
		 * would otherwise take down the whole pool); those started
		 * already are waited for */
		while (active < (size_t)maxp && next < n && !stop) {
			clear_progress(o, &shown);
			job_start(c, ds, nds, &jobs[next], o);
			if (jobs[next].state == NS_WAITING)
				active++;
			else
				failed += jobs[next].failed || jobs[next].skipped || jobs[next].unknown;
			/* an unknown outcome stops the run even with
			 * --continue-on-error: the server is not answering */
			stop = stop || (jobs[next].failed && !o->continue_on_error) || jobs[next].unknown;
			next++;
		}
		if (active == 0 && stop)
			break;
		if (active == 0 && next >= n)
			break;
		sleep_ms(500);
		for (size_t i = 0; i < next; i++) {
			if (jobs[i].state != NS_WAITING)
				continue;
			if (shown)
				clear_progress(o, &shown);
			job_poll(c, ds, nds, &jobs[i], o);
			if (jobs[i].state == NS_DONE) {
				active--;
				failed += jobs[i].failed;
				stop = stop || (jobs[i].failed && !o->continue_on_error);
			}
		}
		if (o->tty) {
			for (size_t i = 0; i < next; i++) {
				if (jobs[i].state != NS_WAITING)
					continue;
				fflush(o->errout);
				fputs("\r\033[K", stderr);
				termsafe_printf(o->errout, "node/%s: waiting for %s", jobs[i].node,
						jobs[i].new_name ? jobs[i].new_name
						: jobs[i].old_name ? jobs[i].old_name
								   : "a new pod");
				fprintf(o->errout, " (%lds)", (now_ms() - jobs[i].started) / 1000);
				fflush(o->errout);
				shown = true;
				break;
			}
		}
	}
	clear_progress(o, &shown);
	restart_summary(o, jobs, n);
	restart_report(o, jobs, n);
	failed += n - next; /* not tried */
	for (size_t i = 0; i < n; i++)
		job_release(&jobs[i]);
	free(jobs);
	for (size_t i = 0; i < nds; i++)
		plugin_ds_release(&ds[i]);
	free(ds);
	return (int)failed;
}

/* --- the command -------------------------------------------------------------------------- */

enum { F_DAEMONSET, F_MAX_PARALLEL, F_TIMEOUT, F_DRY_RUN, F_CONTINUE, F_OUTPUT, F_YES, F_NFLAGS };

const struct flag restart_flags[] = {
	[F_DAEMONSET] = { "daemonset", 0, "NS/NAME", "the device-plugin DaemonSet (default: found in kube-system)",
			  "daemonsets" },
	[F_MAX_PARALLEL] = { "max-parallel", 0, "N", "nodes restarted at the same time (default 1)", NULL },
	[F_TIMEOUT] = { "timeout", 0, "DURATION", "how long to wait for each node's new pod (default 5m)", NULL },
	[F_DRY_RUN] = { "dry-run", 0, "none|client|server", "client: list what would be deleted; server: send with dryRun=All", "none client server" },
	[F_CONTINUE] = { "continue-on-error", 0, NULL, "go on to the next nodes after a node failed (default: stop)", NULL },
	[F_OUTPUT] = { "output", 'o', "FORMAT", "json or yaml: print the results as a document", "json yaml" },
	[F_YES] = { "yes", 'y', NULL, "do not ask before restarting on more than one node", NULL },
	{ 0 },
};

/* kubectl accepts a bare --dry-run as --dry-run=client; the flag table only
 * knows flags with or without a value, so spell it out before parsing. */
void restart_fix_dry_run(int argc, char **argv)
{
	static char client[] = "--dry-run=client";

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--dry-run") == 0 &&
		    (i + 1 >= argc || (strcmp(argv[i + 1], "none") && strcmp(argv[i + 1], "client") &&
				       strcmp(argv[i + 1], "server"))))
			argv[i] = client;
	}
}

/* Before restarting on several nodes: name them, then ask on a terminal
 * (refuse elsewhere) unless --yes or a dry run; 1 when the answer was no. */
static int confirm(struct cli_ctx *ctx, const struct np_nodes *chosen, enum cli_dry_run dry, bool yes,
		   struct kerr *err)
{
	if (dry != CLI_DRY_NONE || chosen->len <= 1 || yes)
		return 0;
	if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		fputs("The device plugin will be restarted on:\n", ctx->errout);
		for (size_t i = 0; i < chosen->len; i++)
			termsafe_printf(ctx->errout, "  node/%s\n", chosen->items[i].name);
	}
	return cli_confirm(ctx, chosen->len, "nodes", "Restart the device plugin on", "restart the device plugin on",
			   err);
}

/* The nodes' results as one RestartResult document. */
static int print_restart_document(struct cli_ctx *ctx, const struct restart_opts *o, enum cli_dry_run dry,
				  enum output out, struct kerr *err)
{
	static const char *const dry_names[] = { "none", "client", "server" };
	json_t *doc = json_pack("{s:s, s:s, s:s, s:O, s:O}", "apiVersion", RENDER_API_VERSION, "kind", "RestartResult",
				"dryRun", dry_names[dry], "nodes", o->report, "summary", o->report_summary);
	int rc;

	if (!doc)
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = output_document(ctx, doc, out, err);
	json_decref(doc);
	return rc;
}

int restart_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[F_NFLAGS + NODESEL_MAX_FLAGS + 1] = { 0 };
	struct nodesel sel = { 0 };
	struct restart_opts o = { .max_parallel = 1, .timeout_ms = 5 * 60 * 1000, .out = ctx->out,
				  .errout = ctx->errout };
	struct cluster cl = { 0 };
	struct np_nodes all = { 0 }, chosen = { 0 };
	char **names = NULL;
	enum cli_dry_run dry;
	enum output out;
	int npos, rc = -1;

	restart_fix_dry_run(argc, argv);
	npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);
	if (npos < 0)
		return -1;
	if (vals[F_MAX_PARALLEL]) {
		char *end;
		long v = strtol(vals[F_MAX_PARALLEL], &end, 10);

		if (*end || v < 1 || v > 1000)
			return kerr_set(err, KERR_USAGE,
					"invalid argument \"%s\" for \"--max-parallel\" flag: must be a number from 1 to 1000",
					vals[F_MAX_PARALLEL]);
		o.max_parallel = (int)v;
	}
	if (cli_parse_timeout(vals[F_TIMEOUT], &o.timeout_ms, err) < 0 || cli_parse_dry_run(vals[F_DRY_RUN], &dry, err) < 0 ||
	    output_parse(vals[F_OUTPUT], false, &out, err) < 0)
		return -1;
	o.dry_run = dry == CLI_DRY_CLIENT;
	o.server_dry_run = dry == CLI_DRY_SERVER;
	o.daemonset = vals[F_DAEMONSET];
	o.continue_on_error = vals[F_CONTINUE] && strcmp(vals[F_CONTINUE], "true") == 0;
	/* its spelling is checked here, before the cluster is asked anything */
	if (o.daemonset) {
		const char *slash = strchr(o.daemonset, '/');

		if (!slash || slash == o.daemonset || !slash[1] || strchr(slash + 1, '/'))
			return kerr_set(err, KERR_USAGE, "--daemonset must be NAMESPACE/NAME, not \"%s\"", o.daemonset);
	}
	o.tty = isatty(STDERR_FILENO) && isatty(STDOUT_FILENO) && !output_is_document(out);
	if (output_is_document(out)) {
		/* the document is the output; the lines go with the errors */
		o.out = ctx->errout;
		o.report = json_array();
		o.report_summary = json_object();
		if (!o.report || !o.report_summary) {
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
	}
	if (nodesel_parse(&sel, ctx->cmd, vals, argv, (size_t)npos, true, err) < 0)
		goto out;
	/* the device plugin's namespace comes from --daemonset or its labels */
	if (ctx->g.ov.namespace)
		cli_namespace_unused(ctx, "nodes belong to no namespace (--daemonset NAMESPACE/NAME names the "
					  "device plugin's)");
	if (cluster_connect(ctx, &cl, err) < 0)
		goto out;
	if (np_nodes_select(cl.client, &sel, &all, &chosen, err) < 0)
		goto out;
	names = calloc(chosen.len + 1, sizeof(*names));
	if (!names) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < chosen.len; i++)
		names[i] = chosen.items[i].name;
	rc = confirm(ctx, &chosen, dry, vals[F_YES] && strcmp(vals[F_YES], "true") == 0, err);
	if (rc != 0) { /* refused (-1), or declined (1): nothing done, not a failure */
		rc = rc > 0 ? 0 : -1;
		goto out;
	}
	rc = restart_nodes(cl.client, names, chosen.len, &o, err);
	if (rc >= 0 && o.report && print_restart_document(ctx, &o, dry, out, err) < 0)
		rc = -1;
	if (rc > 0)
		rc = 1;
out:
	json_decref(o.report);
	json_decref(o.report_summary);
	free(names);
	nodesel_release(&sel);
	np_nodes_release(&all);
	np_nodes_release(&chosen);
	cluster_release(&cl);
	return rc;
}
