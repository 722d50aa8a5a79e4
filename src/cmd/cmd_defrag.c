/* `kubectl inspect cgpu defrag`: which pods to move so that a request fits.
 *
 * The request comes as for fit: flags, a manifest (-f, its first object
 * with a pod template), or a pending pod (NAMESPACE/NAME).  The nodes, their
 * pods and the PodDisruptionBudgets are listed concurrently into a model
 * that keeps every pod; each pod's rule (may it move, which budget selects
 * it) is decided here, and the pure planner (src/model/defrag.c) answers.
 * With --execute the plan's pods are evicted in order (policy/v1 Eviction),
 * asking first on a terminal, and the first refusal stops it.  Exit 0 with
 * a plan or when nothing needs moving, 3 when no plan exists within the
 * limits.
 *
 * Several contexts (--context a,b, --all-contexts) are loaded at once and
 * planned for one by one, the best cluster first; a plan is carried out in
 * one cluster only, so --execute takes one context. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "defrag.h"
#include "defrag_frag.h"
#include "fit.h"
#include "fit_files.h"
#include "fleet.h"
#include "frag_report.h"
#include "kube.h"
#include "load.h"
#include "model.h"
#include "nodesel.h"
#include "output.h"
#include "render.h"
#include "render_defrag.h"
#include "render_frag.h"
#include "termsafe.h"
#include "write_check.h"

#define EXIT_NO_PLAN 3
#define DEFRAG_WAIT_DEFAULT_MS (5 * 60 * 1000L)
#define DEFRAG_WAIT_POLL_MS 1000

enum {
	D_MEMORY, D_GPUS, D_CORE, D_FILENAME, D_PRIORITY, D_MAX_MOVES, D_EXECUTE, D_YES, D_DRY_RUN, D_WAIT, D_TIMEOUT, D_OUTPUT,
	D_COUNT
};

const struct flag defrag_flags[] = {
	[D_MEMORY] = {"memory", 0, "QUANTITY", "GPU memory on each GPU, as for fit (12, 12Gi, 512Mi)", NULL},
	[D_GPUS] = {"gpus", 0, "N", "number of GPUs (default 1)", NULL},
	[D_CORE] = {"core", 0, "PCT", "compute share of each GPU, in percent", NULL},
	[D_FILENAME] = {"filename", 'f', CLI_LIST_ARG("FILE"), "the pod of a manifest (its first object with a pod template)",
			NULL},
	[D_PRIORITY] = {"priority", 0, "N", "the request's priority: pods of a higher one are never moved (default 0)",
			NULL},
	[D_MAX_MOVES] = {"max-moves", 0, "N", "move at most this many pods (1 to 4, default 3)", NULL},
	[D_EXECUTE] = {"execute", 0, NULL, "carry the plan out: evict its pods, in order", NULL},
	[D_YES] = {"yes", 'y', NULL, "evict without asking", NULL},
	[D_DRY_RUN] = {"dry-run", 0, "STRATEGY", "with --execute: none, client (print only) or server", "none client server"},
	[D_WAIT] = {"wait", 0, CLI_OPTIONAL_ARG("DURATION"),
		    "with --execute: wait (this long, default 5m) until the evicted pods are gone, their replacements "
		    "scheduled and the request fits",
		    NULL},
	[D_TIMEOUT] = {"timeout", 0, "DURATION", "how long --wait waits (default 5m)", NULL},
	[D_OUTPUT] = {"output", 'o', "FORMAT", "output format: json or yaml", "json yaml"},
	[D_COUNT] = {0},
};

struct defrag_run {
	struct cli_ctx *ctx;
	struct nodesel sel;
	enum output out;
	const char *pod_name, *filename;
	bool execute, yes;
	bool report; /* no request: the fragmentation report */
	long wait_ms; /* --wait: 0 = do not wait */
	enum cli_dry_run dry;
	int max_moves;
	int64_t priority;
	struct cluster_load load;
	struct manifest_set set;
	struct k8s_pod *pod; /* the pending pod asked about */
	struct fit_request req;
	char *subject;
	enum defrag_stay *stay;
	int *budget, *allowed;
};

static int parse_request(const char *const *vals, struct defrag_run *r, struct kerr *err)
{
	char *why = NULL;
	long v;

	r->req.gpus = 1;
	if (vals[D_MEMORY] && fit_parse_memory(vals[D_MEMORY], &r->req.mem, &r->req.mem_unit, &why) < 0) {
		cli_flag_error(err, "memory", vals[D_MEMORY], why ? why : "out of memory");
		free(why);
		return -1;
	}
	if (vals[D_GPUS]) {
		if (cli_parse_whole(vals[D_GPUS], "gpus", 1, 64, &v, err) < 0)
			return -1;
		r->req.gpus = (int)v;
	}
	if (vals[D_CORE]) {
		if (cli_parse_whole(vals[D_CORE], "core", 1, 100, &v, err) < 0)
			return -1;
		r->req.core = v;
	}
	if (vals[D_PRIORITY]) {
		if (cli_parse_whole(vals[D_PRIORITY], "priority", -2147483648L, 2147483647L, &v, err) < 0)
			return -1;
		r->priority = v;
	}
	r->max_moves = DEFRAG_DEFAULT_MOVES;
	if (vals[D_MAX_MOVES]) {
		if (cli_parse_whole(vals[D_MAX_MOVES], "max-moves", 1, DEFRAG_MAX_MOVES, &v, err) < 0)
			return -1;
		r->max_moves = (int)v;
	}
	return 0;
}

static int parse_args(struct cli_ctx *ctx, int argc, char **argv, struct defrag_run *r, struct kerr *err)
{
	const char *vals[D_COUNT + NODESEL_MAX_FLAGS + 1] = {0};
	int npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);
	bool flags_given = vals[D_MEMORY] || vals[D_GPUS] || vals[D_CORE];

	if (npos < 0 || output_parse(vals[D_OUTPUT], false, &r->out, err) < 0 ||
	    cli_parse_dry_run(vals[D_DRY_RUN], &r->dry, err) < 0)
		return -1;
	if (npos > 1)
		return kerr_set(err, KERR_USAGE, "defrag takes at most one pod (NAMESPACE/NAME)");
	if ((npos > 0) + (vals[D_FILENAME] != NULL) + flags_given > 1)
		return kerr_set(err, KERR_USAGE, "give at most one of: a pending pod (NAMESPACE/NAME), -f FILE, or "
						 "--memory/--gpus/--core");
	r->report = !npos && !vals[D_FILENAME] && !flags_given;
	if (r->report && vals[D_EXECUTE])
		return kerr_set(err, KERR_USAGE, "--execute needs a request: a pending pod (NAMESPACE/NAME), -f FILE, or "
						 "--memory/--gpus/--core");
	if (parse_request(vals, r, err) < 0 || nodesel_parse(&r->sel, ctx->cmd, vals, NULL, 0, false, err) < 0)
		return -1;
	r->req.scheme = r->sel.scheme;
	r->filename = vals[D_FILENAME];
	r->pod_name = npos > 0 ? argv[0] : NULL;
	r->execute = vals[D_EXECUTE] != NULL;
	r->yes = vals[D_YES] != NULL;
	if (vals[D_WAIT] && !strcmp(vals[D_WAIT], "false"))
		vals[D_WAIT] = NULL;
	if (r->dry != CLI_DRY_NONE && !r->execute)
		return kerr_set(err, KERR_USAGE, "--dry-run goes with --execute");
	if (vals[D_WAIT] && (!r->execute || r->dry != CLI_DRY_NONE))
		return kerr_set(err, KERR_USAGE, "--wait goes with --execute, without --dry-run");
	if (vals[D_TIMEOUT] && !vals[D_WAIT])
		return kerr_set(err, KERR_USAGE, "--timeout goes with --wait");
	if (vals[D_WAIT]) {
		/* --wait alone, or --wait=DURATION (and --timeout, as before) */
		const char *length = strcmp(vals[D_WAIT], "true") ? vals[D_WAIT] : vals[D_TIMEOUT];

		if (length == vals[D_WAIT] && vals[D_TIMEOUT])
			return kerr_set(err, KERR_USAGE, "give the wait's length once: --wait=DURATION or --timeout");
		r->wait_ms = DEFRAG_WAIT_DEFAULT_MS;
		if (cli_parse_timeout(length, &r->wait_ms, err) < 0) {
			if (length != vals[D_WAIT])
				return -1;
			kerr_release(err); /* named as the flag it was given with */
			return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--wait\" flag: want a duration "
					"above zero, such as 30s or 5m", length);
		}
	}
	return 0;
}

/* The pending pod asked about: NAMESPACE/NAME. */
static int read_pod(struct defrag_run *r, struct kerr *err)
{
	const char *slash = strchr(r->pod_name, '/');
	char *ns = slash ? strndup(r->pod_name, (size_t)(slash - r->pod_name)) : NULL, *path = NULL;
	json_t *j = NULL;
	int rc = -1;

	if (!slash || !ns || !*ns || !slash[1] || strchr(slash + 1, '/'))
		kerr_set(err, KERR_USAGE, "a pod is named NAMESPACE/NAME, not \"%s\"", r->pod_name);
	else if (!(path = kube_path("v1", ns, "pods", slash + 1)))
		kerr_set(err, KERR_OTHER, "out of memory");
	else if (kube_get_json(r->load.cluster.client, path, NULL, &j, err) == 0)
		rc = manifest_pod_from_json(j, &r->pod, err);
	free(ns);
	free(path);
	json_decref(j);
	return rc;
}

/* The request from the pod (pending, or a manifest's), or the flags, in words. */
static int set_request(struct defrag_run *r, struct warnings *w, struct kerr *err)
{
	const struct k8s_pod *p = r->pod ? r->pod : r->set.len ? r->set.items[0].pod : NULL;
	const struct scheme *sc;
	int found;

	if (!p) {
		if (asprintf(&r->subject, "request%s%s: %lld %s on each of %d GPU%s", r->req.scheme ? " of " : "",
			     r->req.scheme ? r->req.scheme : "", (long long)r->req.mem,
			     r->req.mem_unit == FIT_MEM_MIB ? "MiB" : "(in each node's unit)", r->req.gpus,
			     r->req.gpus > 1 ? "s" : "") < 0)
			r->subject = NULL;
		return r->subject ? 0 : kerr_set(err, KERR_OTHER, "out of memory");
	}
	found = fit_request_from_pod(p, r->sel.scheme, &r->req, &sc, w);
	if (found <= 0)
		return kerr_set(err, KERR_OTHER, found < 0 ? "out of memory" : "the pod asks for no GPU resource a scheme reads");
	r->priority = p->priority;
	if (asprintf(&r->subject, "pod %s%s%s (%s): %lld of GPU memory on each of %d GPU%s", p->namespace ? p->namespace : "",
		     p->namespace ? "/" : "", p->name ? p->name : "", sc->name, (long long)r->req.mem, r->req.gpus,
		     r->req.gpus > 1 ? "s" : "") < 0)
		r->subject = NULL;
	return r->subject ? 0 : kerr_set(err, KERR_OTHER, "out of memory");
}

/* Why a pod may not move, or the budget that selects it. */
static enum defrag_stay pod_rule(const struct defrag_run *r, const struct model_pod *p, int *budget)
{
	size_t nb = 0;

	*budget = -1;
	if (p->mirror || (p->controller_kind && strcmp(p->controller_kind, "Node") == 0))
		return DEFRAG_STATIC;
	if (!p->controller_kind)
		return DEFRAG_NO_CONTROLLER;
	if (strcmp(p->controller_kind, "DaemonSet") == 0)
		return DEFRAG_DAEMONSET;
	if (p->priority > r->priority)
		return DEFRAG_PRIORITY;
	for (size_t i = 0; i < r->load.npdbs; i++)
		if (k8s_pdb_selects(r->load.pdbs[i], p->namespace, &p->labels)) {
			*budget = (int)i;
			nb++;
		}
	return nb > 1 ? DEFRAG_BUDGETS : DEFRAG_MOVABLE;
}

static int make_rules(struct defrag_run *r, struct defrag_rules *rules, struct defrag_report *rep, struct kerr *err)
{
	const struct model *m = &r->load.model;

	r->stay = calloc(m->npods + 1, sizeof(*r->stay));
	r->budget = calloc(m->npods + 1, sizeof(*r->budget));
	r->allowed = calloc(r->load.npdbs + 1, sizeof(*r->allowed));
	if (!r->stay || !r->budget || !r->allowed)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < r->load.npdbs; i++)
		r->allowed[i] = (int)r->load.pdbs[i]->disruptions_allowed;
	for (size_t i = 0; i < m->npods; i++) {
		r->stay[i] = m->pods[i].node ? pod_rule(r, &m->pods[i], &r->budget[i]) : DEFRAG_MOVABLE;
		if (m->pods[i].node)
			rep->stay[r->stay[i]]++;
		if (m->pods[i].node && r->stay[i] == DEFRAG_MOVABLE && r->budget[i] >= 0 && r->allowed[r->budget[i]] < 1)
			rep->no_disruption++;
	}
	*rules = (struct defrag_rules){.stay = r->stay, .budget = r->budget, .allowed = r->allowed,
				       .nbudgets = r->load.npdbs, .max_moves = r->max_moves};
	return 0;
}

/* Before more than one eviction: ask on a terminal, refuse elsewhere; 1
 * when the answer was no. */
static int confirm(struct defrag_run *r, size_t n, struct kerr *err)
{
	if (r->dry != CLI_DRY_NONE || n <= 1 || r->yes)
		return 0;
	return cli_confirm(r->ctx, n, "pods", "Evict", "evict", err);
}

/* One eviction (policy/v1), as kubectl drain asks for it, with the uid
 * read as a precondition: a pod of the same name made since (a
 * StatefulSet's) is not the one planned and is left alone. */
static int evict(struct defrag_run *r, const struct model_pod *p, struct kerr *err)
{
	char *path = kube_path("v1", p->namespace, "pods", p->name), *full = NULL;
	json_t *body = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:{s:s}}}", "apiVersion", "policy/v1", "kind", "Eviction",
				 "metadata", "name", p->name, "namespace", p->namespace, "deleteOptions",
				 "preconditions", "uid", p->uid ? p->uid : "");
	struct kube_write_opts w = {.dry_run = r->dry == CLI_DRY_SERVER};
	int rc;

	if (!path || !body || asprintf(&full, "%s/eviction", path) < 0) {
		full = NULL;
		rc = kerr_set(err, KERR_OTHER, "out of memory");
	} else {
		rc = kube_post(r->load.cluster.client, full, body, &w, NULL, err);
	}
	free(path);
	free(full);
	json_decref(body);
	return rc;
}

/* An eviction whose answer was lost: the pod read again, never evicted
 * twice.  Done (0) when it is gone or being deleted; else -1 with what
 * was found in *err. */
static int settle_lost_eviction(struct defrag_run *r, const struct model_pod *pod, struct kerr *err)
{
	enum write_result found = WRITE_UNKNOWN;
	struct kerr rerr = KERR_INIT;
	char *msg, *check = NULL;

	if (write_check_pod_gone(r->load.cluster.client, pod->namespace, pod->name, pod->uid, &found, &rerr) < 0)
		found = WRITE_UNKNOWN;
	if (write_result_done(found)) {
		kerr_release(err);
		kerr_release(&rerr);
		return 0;
	}
	if (found == WRITE_UNKNOWN && asprintf(&check, "kubectl get pod %s -n %s", pod->name, pod->namespace) < 0)
		check = NULL;
	msg = write_lost_message(found, err, &rerr, "pod", check);
	kerr_release(&rerr);
	free(check);
	if (!msg)
		return kerr_set(err, KERR_OTHER, "out of memory");
	kerr_set(err, KERR_OTHER, "%s", msg);
	free(msg);
	return -1;
}

/* The plan's evictions in order, each said as done; the first refused
 * (or whose answer was lost and stays unknown) stops the rest (a budget's
 * 429 named as such).  1 when the question was answered no. */
static int execute(struct defrag_run *r, const struct defrag_plan *p, struct kerr *err)
{
	const struct model *m = &r->load.model;
	const char *how = r->dry == CLI_DRY_SERVER ? " (server dry run)" : r->dry == CLI_DRY_CLIENT ? " (dry run)" : "";

	int asked = confirm(r, p->nmoves, err);

	if (asked != 0)
		return asked;
	for (size_t i = 0; i < p->nmoves; i++) {
		const struct model_pod *pod = &m->pods[p->moves[i].pod];
		int rc = r->dry == CLI_DRY_CLIENT ? 0 : evict(r, pod, err);

		/* sent whole and unanswered: read again, not sent again */
		if (rc < 0 && r->dry == CLI_DRY_NONE && write_result_of(rc, err) == WRITE_UNKNOWN)
			rc = settle_lost_eviction(r, pod, err);
		if (rc < 0) {
			if (err->kind == KERR_STATUS && err->code == 429)
				kerr_prefix(err, "pod %s/%s: a disruption budget refused the eviction (%zu of %zu done)",
					    pod->namespace, pod->name, i, p->nmoves);
			else
				kerr_prefix(err, "pod %s/%s: eviction failed (%zu of %zu done)", pod->namespace, pod->name, i,
					    p->nmoves);
			return -1;
		}
		termsafe_printf(r->ctx->out, "pod/%s evicted%s\n", pod->name, how);
	}
	return 0;
}

/* What the wait looks for: the evicted pods (by uid) and their owners. */
struct evicted {
	char **uids, **owners;
	size_t n;
};

static void evicted_release(struct evicted *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->uids[i]);
		free(e->owners[i]);
	}
	free(e->uids);
	free(e->owners);
}

/* Is the wait over on this model: every evicted pod gone, no pod of their
 * owners waiting for a node, and the request fitting? */
static int wait_over(const struct defrag_run *r, const struct evicted *e, bool *over)
{
	const struct model *m = &r->load.model;
	struct fit_result res;

	*over = false;
	for (size_t i = 0; i < m->npods; i++)
		for (size_t k = 0; k < e->n; k++) {
			if (m->pods[i].uid && e->uids[k] && strcmp(m->pods[i].uid, e->uids[k]) == 0)
				return 0;
			if (!m->pods[i].node && m->pods[i].owner && e->owners[k] && strcmp(m->pods[i].owner, e->owners[k]) == 0)
				return 0;
		}
	if (fit_check(m, &r->req, &res) < 0)
		return -1;
	*over = res.nsure > 0;
	fit_result_release(&res);
	return 0;
}

/* --wait: the cluster loaded again every second until the wait is over. */
static int wait_for(struct defrag_run *r, const struct defrag_plan *p, struct kerr *err)
{
	struct evicted e = {.uids = calloc(p->nmoves + 1, sizeof(char *)), .owners = calloc(p->nmoves + 1, sizeof(char *))};
	long waited = 0;
	bool over = false;
	int rc = 0;

	if (!e.uids || !e.owners) {
		evicted_release(&e);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (; e.n < p->nmoves; e.n++) {
		const struct model_pod *pod = &r->load.model.pods[p->moves[e.n].pod];

		e.uids[e.n] = pod->uid ? strdup(pod->uid) : NULL;
		e.owners[e.n] = pod->owner ? strdup(pod->owner) : NULL;
	}
	while (rc == 0) {
		usleep(DEFRAG_WAIT_POLL_MS * 1000);
		waited += DEFRAG_WAIT_POLL_MS;
		if (r->load.have_model)
			model_release(&r->load.model);
		r->load.have_model = false;
		if ((rc = cluster_load_model(&r->load, err)) < 0 || (rc = wait_over(r, &e, &over)) < 0)
			break;
		if (over)
			break;
		if (waited >= r->wait_ms)
			rc = kerr_set(err, KERR_OTHER, "timed out after %lds waiting for the evicted pods' replacements to be "
						       "scheduled and the request to fit",
				      r->wait_ms / 1000);
	}
	evicted_release(&e);
	if (rc == 0)
		fprintf(r->ctx->out, "The evicted pods are gone, their replacements scheduled, and the request fits now.\n");
	return rc;
}

static int answer(struct defrag_run *r, struct kerr *err)
{
	struct defrag_rules rules;
	struct defrag_report rep = {.subject = r->subject, .max_moves = r->max_moves};
	struct defrag_plan plan = {0};
	struct fit_result now = {0};
	int rc = -1;

	if (make_rules(r, &rules, &rep, err) < 0)
		return -1;
	if (defrag_plan(&r->load.model, &r->req, &rules, &plan) < 0 || fit_check(&r->load.model, &r->req, &now) < 0) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	rep.now = &now;
	if (output_is_document(r->out)) {
		json_t *doc = render_defrag_document(&r->load.model, &r->req, &plan, &rep);

		rc = doc ? output_document(r->ctx, doc, r->out, err) : kerr_set(err, KERR_OTHER, "cannot build the answer");
		json_decref(doc);
	} else {
		rc = render_defrag_table(r->ctx->out, &r->load.model, &r->req, &plan, &rep, err);
	}
	fflush(r->ctx->out);
	if (rc == 0 && r->execute && plan.found && plan.nmoves) {
		rc = execute(r, &plan, err);
		if (rc == 1) { /* declined: nothing evicted, nothing to wait for */
			rc = 0;
			goto out;
		}
	}
	if (rc == 0 && r->wait_ms && plan.found && plan.nmoves)
		rc = wait_for(r, &plan, err);
	if (rc == 0)
		rc = plan.needed && !plan.found ? EXIT_NO_PLAN : 0;
out:
	fit_result_release(&now);
	defrag_plan_release(&plan);
	return rc;
}

/* Without a request: how fragmented each pool is (defrag_frag.c). */
static int frag_answer(struct defrag_run *r, struct kerr *err)
{
	struct defrag_rules rules;
	struct defrag_report counts = {0};

	if (make_rules(r, &rules, &counts, err) < 0)
		return -1;
	return defrag_frag_answer(r->ctx, &r->load.model, &rules, r->sel.scheme, r->out, err);
}

/* --- several clusters ---------------------------------------------------- */

/* What defrag found in one cluster of a fleet. */
struct defrag_answer {
	struct defrag_plan plan;
	struct fit_result now;
	struct defrag_report rep;
};

struct defrag_fleet {
	const struct defrag_run *r;
	struct fleet f;
	struct defrag_answer *ans; /* one per cluster */
	size_t *order;		   /* the best first */
};

/* A cluster of the fleet is planned for as one: its load is lent to r
 * while the rules are drawn from it (make_rules reads r->load), and given
 * back with the rules' arrays freed. */
static void load_give_back(struct defrag_run *r, struct cluster_load *l)
{
	*l = r->load;
	memset(&r->load, 0, sizeof(r->load));
	free(r->stay);
	free(r->budget);
	free(r->allowed);
	r->stay = NULL;
	r->budget = NULL;
	r->allowed = NULL;
}

/* The plan for one cluster, made as for one. */
static int plan_cluster(struct defrag_run *r, struct cluster_load *l, struct defrag_answer *a, struct kerr *err)
{
	struct defrag_rules rules;
	int rc;

	a->rep = (struct defrag_report){.subject = r->subject, .max_moves = r->max_moves, .now = &a->now};
	r->load = *l;
	rc = make_rules(r, &rules, &a->rep, err);
	if (rc == 0 && (defrag_plan(&r->load.model, &r->req, &rules, &a->plan) < 0 ||
			fit_check(&r->load.model, &r->req, &a->now) < 0))
		rc = kerr_set(err, KERR_OTHER, "out of memory");
	load_give_back(r, l);
	return rc;
}

/* 0: it fits without moves, 1: a plan, 2: no plan, 3: the cluster failed. */
static int answer_rank(const struct defrag_fleet *df, size_t i)
{
	const struct defrag_plan *p = &df->ans[i].plan;

	if (!df->f.loads[i].have_model)
		return 3;
	return !p->needed ? 0 : p->found ? 1 : 2;
}

/* Fits without moves, then the fewest moves, then the least memory moved;
 * then by name. */
static int cmp_answers(const void *a, const void *b, void *ud)
{
	const struct defrag_fleet *df = ud;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct defrag_plan *pi = &df->ans[i].plan, *pj = &df->ans[j].plan;
	int ri = answer_rank(df, i), rj = answer_rank(df, j);

	if (ri != rj)
		return ri < rj ? -1 : 1;
	if (ri == 1 && pi->nmoves != pj->nmoves)
		return pi->nmoves < pj->nmoves ? -1 : 1;
	if (ri == 1 && pi->mem_moved_mib != pj->mem_moved_mib)
		return pi->mem_moved_mib < pj->mem_moved_mib ? -1 : 1;
	return strcmp(df->f.names[i], df->f.names[j]);
}

static json_t *cluster_json(const struct fleet *f, size_t i, void *ud)
{
	const struct defrag_fleet *df = ud;
	const struct defrag_answer *a = &df->ans[i];

	return render_defrag_document(&f->loads[i].model, &df->r->req, &a->plan, &a->rep);
}

/* One section per cluster that answered, the best first, each what that
 * context alone prints (or the FleetDefragPlan); then the errors.  0 when
 * a cluster fits the request or has a plan, EXIT_NO_PLAN when none, 1 when
 * a cluster failed. */
static int print_fleet(struct defrag_run *r, struct defrag_fleet *df, struct kerr *err)
{
	size_t shown = 0, room = 0;
	int rc = 0;

	for (size_t i = 0; i < df->f.n; i++)
		room += answer_rank(df, i) < 2;
	if (output_is_document(r->out)) {
		json_t *doc = fleet_document(&df->f, FLEET_KIND_DEFRAG, df->order, cluster_json, df);

		rc = doc ? output_document(r->ctx, doc, r->out, err) : kerr_set(err, KERR_OTHER, "cannot build the answer");
		json_decref(doc);
	}
	for (size_t k = 0; !output_is_document(r->out) && rc == 0 && k < df->f.n; k++) {
		size_t i = df->order[k];
		const struct defrag_answer *a = &df->ans[i];

		if (!df->f.loads[i].have_model)
			continue;
		rc = fleet_heading(r->ctx, &df->f, i, shown++ == 0, err);
		if (rc == 0)
			rc = render_defrag_table(r->ctx->out, &df->f.loads[i].model, &r->req, &a->plan, &a->rep, err);
	}
	fflush(r->ctx->out);
	fleet_print_errors(r->ctx, &df->f);
	if (rc < 0)
		return -1;
	rc = fleet_exit_code(r->ctx, &df->f);
	return rc ? rc : room ? 0 : EXIT_NO_PLAN;
}

/* Without a request: each cluster's fragmentation report, as one cluster
 * gives it, in the order asked. */
struct frag_fleet {
	struct fleet f;
	struct frag_report *reps; /* one per cluster */
};

static json_t *frag_cluster_json(const struct fleet *f, size_t i, void *ud)
{
	const struct frag_fleet *ff = ud;

	return render_frag_document(&f->loads[i].model, &ff->reps[i]);
}

static int frag_print_fleet(struct defrag_run *r, struct frag_fleet *ff, struct kerr *err)
{
	size_t shown = 0;
	int rc = 0;

	if (output_is_document(r->out)) {
		json_t *doc = fleet_document(&ff->f, FLEET_KIND_FRAG, NULL, frag_cluster_json, ff);

		rc = doc ? output_document(r->ctx, doc, r->out, err) : kerr_set(err, KERR_OTHER, "cannot build the answer");
		json_decref(doc);
	}
	for (size_t i = 0; !output_is_document(r->out) && rc == 0 && i < ff->f.n; i++)
		if (ff->f.loads[i].have_model && (rc = fleet_heading(r->ctx, &ff->f, i, shown++ == 0, err)) == 0)
			rc = render_frag_table(r->ctx->out, &ff->f.loads[i].model, &ff->reps[i], err);
	fflush(r->ctx->out);
	fleet_print_errors(r->ctx, &ff->f);
	return rc < 0 ? -1 : fleet_exit_code(r->ctx, &ff->f);
}

static int frag_fleet_run(struct defrag_run *r, struct kerr *err)
{
	struct frag_fleet ff = {0};
	int rc = -1;

	if (fleet_load(r->ctx, &ff.f, &r->load, err) < 0)
		goto out;
	if (!(ff.reps = calloc(ff.f.n, sizeof(*ff.reps)))) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ff.f.n; i++) {
		struct defrag_rules rules;
		struct defrag_report counts = {0};

		if (!ff.f.loads[i].have_model)
			continue;
		r->load = ff.f.loads[i];
		rc = make_rules(r, &rules, &counts, err);
		if (rc == 0 && frag_report_build(&r->load.model, &rules, r->sel.scheme, &ff.reps[i]) < 0)
			rc = kerr_set(err, KERR_OTHER, "out of memory");
		load_give_back(r, &ff.f.loads[i]);
		if (rc < 0)
			goto out;
	}
	rc = frag_print_fleet(r, &ff, err);
out:
	for (size_t i = 0; ff.reps && i < ff.f.n; i++)
		frag_report_release(&ff.reps[i]);
	free(ff.reps);
	fleet_release(&ff.f);
	return rc;
}

static int defrag_fleet_run(struct defrag_run *r, struct warnings *w, struct kerr *err)
{
	struct defrag_fleet df = {.r = r};
	int rc = -1;

	if (r->report)
		return frag_fleet_run(r, err);
	if (r->pod_name)
		return kerr_set(err, KERR_USAGE, "a pod is read from one cluster: with several contexts, give -f FILE or --memory");
	if (r->execute)
		return kerr_set(err, KERR_USAGE, "--execute evicts in one cluster: a plan is made for each, so give one "
						 "--context to carry it out");
	if (set_request(r, w, err) < 0 || fleet_load(r->ctx, &df.f, &r->load, err) < 0)
		goto out;
	df.ans = calloc(df.f.n, sizeof(*df.ans));
	df.order = calloc(df.f.n, sizeof(*df.order));
	if (!df.ans || !df.order) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < df.f.n; i++) {
		df.order[i] = i;
		if (df.f.loads[i].have_model && plan_cluster(r, &df.f.loads[i], &df.ans[i], err) < 0)
			goto out;
	}
	qsort_r(df.order, df.f.n, sizeof(*df.order), cmp_answers, &df);
	rc = print_fleet(r, &df, err);
out:
	for (size_t i = 0; df.ans && i < df.f.n; i++) {
		fit_result_release(&df.ans[i].now);
		defrag_plan_release(&df.ans[i].plan);
	}
	free(df.ans);
	free(df.order);
	fleet_release(&df.f);
	return rc;
}

int defrag_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct defrag_run r = {.ctx = ctx};
	struct warnings w = {0};
	int rc = -1;

	r.load = (struct cluster_load){.sel = &r.sel, .budgets = true,
				       .mo = {.force_unit = -1, .pool_label = POOL_LABEL, .scheduling = true,
					      .keep_pods = true, .movable = true, .owners = true}};
	if (parse_args(ctx, argc, argv, &r, err) < 0 || (r.filename && fit_files_read(r.filename, false, &r.set, err) < 0))
		goto out;
	if (r.filename && !r.set.len) {
		kerr_set(err, KERR_OTHER, "no object in the manifests carries a pod template");
		goto out;
	}
	/* a plan only shown may come from the watch cache, as the summary does;
	 * one carried out is planned on what etcd holds */
	r.load.from_cache = !r.execute;
	if (cluster_fleet_asked(ctx)) {
		rc = defrag_fleet_run(&r, &w, err);
		goto out;
	}
	if (cluster_connect(ctx, &r.load.cluster, err) < 0 || (r.pod_name && read_pod(&r, err) < 0))
		goto out;
	if ((!r.report && set_request(&r, &w, err) < 0) || cluster_load_model(&r.load, err) < 0)
		goto out;
	rc = r.report ? frag_answer(&r, err) : answer(&r, err);
out:
	cluster_load_release(&r.load);
	nodesel_release(&r.sel);
	manifest_set_release(&r.set);
	k8s_pod_free(r.pod);
	free(r.subject);
	free(r.stay);
	free(r.budget);
	free(r.allowed);
	warnings_release(&w);
	return rc;
}
