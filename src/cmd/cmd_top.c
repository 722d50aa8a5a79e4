/* `kubectl inspect cgpu top`: the live view.
 *
 * Nodes and pods are listed once (concurrently), then followed with watch
 * streams from the lists' resourceVersions; every object is kept by uid in a
 * small hash, and the model is rebuilt from that store at most once per
 * refresh interval when something changed.  All waiting happens in
 * kube_client_poll(), which also wakes for the keyboard, so a slow server
 * never freezes the screen.  Signal handlers only set a flag; the terminal is
 * given back on every way out, and an error is printed (by main) only after.
 */
#include <langinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "termsafe.h"
#include "kube.h"
#include "load.h"
#include "model.h"
#include "nodesel.h"
#include "top_store.h"
#include "tui_draw.h"
#include "tui_layout.h"
#include "tui_state.h"
#include "usage_source.h"

enum { F_UNIT, F_REFRESH, F_USAGE, F_COUNT = F_USAGE + USAGE_SOURCE_NFLAGS };

const struct flag top_flags[] = {
	[F_UNIT] = { "unit", 0, "UNIT", "show GPU memory in this unit (GiB or MiB)", "GiB MiB" },
	[F_REFRESH] = { "refresh", 'r', "DURATION", "redraw interval, e.g. 500ms, 2s (default 1s)", NULL },
	USAGE_SOURCE_FLAGS,
	[F_COUNT] = { 0 },
};

/* Memory in use is asked for again this often (exporters are scraped every
 * 15 to 60 seconds): each answer is a few queries over the whole cluster. */
#define USAGE_REFRESH_MS 15000

/* Watches that fail this many times in a row give way to periodic lists. */
#define WATCH_MAX_FAILURES 3
/* A watch that ends sooner than this without an event counts as failed. */
#define WATCH_MIN_LIFE_MS 1000

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- lists and watches -------------------------------------------------------- */

struct top;

struct feed {
	struct top *t;
	enum obj_kind kind;
	struct store *live;
	const char *path, *label_selector, *field_selector;
	const struct decode_filter *filter;

	struct kube_list list;
	struct kube_async_list *alist;
	struct store fresh; /* what the running list has delivered */
	bool list_finished;
	struct kerr list_err;

	struct kube_watch *watch;
	long long watch_started;
	bool watch_ended, watch_events, expired;
	struct kerr watch_err;
	char *rv;
	int watch_failures;
	bool polling; /* the watch was refused or keeps failing: list every interval */

	long long next_list; /* when to list again; 0 = not scheduled */
	bool loaded;	     /* one list has completed */
	long long ok_since;  /* data known good at this time */
	char *error;	     /* last error, for the status line */
};

struct top {
	struct cluster cluster;
	struct nodesel sel;
	struct model_options mopts;
	struct model filter_model; /* for its decode filters */
	bool filter_model_set;
	struct decode_filter node_filter;
	bool node_filter_set;
	struct store nodes, pods;
	struct feed feeds[2];
	long refresh_ms;
	bool changed;
	struct model model;
	bool have_model;
	long long built;
	char *model_error;
	struct kerr fatal;
	/* memory in use: fetched on a thread of its own, never waited for */
	struct usage_source usage;
	struct usage_fetch *fetch;
	struct usage_data usage_data;
	char *usage_error;
	bool have_usage;
	long long next_usage;
	struct cli_ctx ctx; /* the command's, quiet: logs would scribble over the screen */
	FILE *devnull;
};

static void feed_set_error(struct feed *f, const struct kerr *err)
{
	/* the same words kubectl would print, on one line, in the visible form */
	char *text = cli_error_line(err);
	size_t len = text ? strlen(text) : 0;

	while (len && text[len - 1] == ' ')
		text[--len] = '\0';
	free(f->error);
	f->error = text;
}

static void feed_clear_error(struct feed *f)
{
	free(f->error);
	f->error = NULL;
}

/* The error an asynchronous list or watch ended with, kept for feed_step;
 * none when it ended well. */
static void keep_end_error(struct kerr *dst, const struct kerr *err)
{
	if (err && err->kind != KERR_NONE)
		kerr_copy(dst, err);
	else
		kerr_release(dst);
}

/* store_put, said as an error for the list or the watch to stop on. */
static int keep(struct store *s, void *obj, struct kerr *err)
{
	if (store_put(s, obj) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	return 0;
}

static int sink_node(void *ud, struct k8s_node *node, struct kerr *err)
{
	return keep(&((struct feed *)ud)->fresh, node, err);
}

static int sink_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	return keep(&((struct feed *)ud)->fresh, pod, err);
}

static void sink_meta(void *ud, const char *rv, const char *cont)
{
	struct feed *f = ud;

	/* (NULL, NULL): the list starts over after 410 Expired */
	if (!rv && !cont)
		store_release(&f->fresh);
}

static void list_done(void *ud, const struct kerr *err)
{
	struct feed *f = ud;

	f->list_finished = true;
	keep_end_error(&f->list_err, err);
}

static int list_start(struct feed *f, struct kerr *err)
{
	kube_list_release(&f->list);
	memset(&f->list, 0, sizeof(f->list));
	f->list.path = f->path;
	f->list.label_selector = f->label_selector;
	f->list.field_selector = f->field_selector;
	f->list.kind = f->kind;
	f->list.from_cache = true; /* then watched from the list's resourceVersion */
	f->list.filter = f->filter;
	f->list.sink = (struct decode_sink){
		.node = sink_node, .pod = sink_pod, .list_meta = sink_meta, .ud = f,
	};
	store_release(&f->fresh);
	f->list_finished = false;
	f->next_list = 0;
	return kube_list_start(f->t->cluster.client, &f->list, list_done, f, &f->alist, err);
}

static int watch_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	struct feed *f = ud;
	void *obj = f->kind == OBJ_NODE ? (void *)ev->node : (void *)ev->pod;
	/* taken first: the event's resourceVersion may point into the object */
	char *rv = ev->resource_version && *ev->resource_version ? strdup(ev->resource_version) : NULL;

	ev->node = NULL;
	ev->pod = NULL;
	switch (ev->type) {
	case WATCH_ADDED:
	case WATCH_MODIFIED:
		if (obj && keep(f->live, obj, err) < 0) {
			free(rv);
			return -1;
		}
		f->t->changed = true;
		break;
	case WATCH_DELETED:
		if (obj)
			store_del(f->live, obj);
		f->t->changed = true;
		break;
	case WATCH_BOOKMARK:
		break;
	case WATCH_ERROR:
		free(rv);
		if (obj)
			top_obj_free(f->kind, obj);
		if (ev->error_code == 410) {
			f->expired = true;
		} else {
			struct kerr e = KERR_INIT;

			kerr_set_status(&e, ev->error_code, ev->error_reason, ev->error_message);
			feed_set_error(f, &e);
			kerr_release(&e);
		}
		return 0;
	}
	if (rv) {
		free(f->rv);
		f->rv = rv;
	}
	f->watch_events = true;
	f->watch_failures = 0;
	return 0;
}

static void watch_end(void *ud, const struct kerr *err)
{
	struct feed *f = ud;

	f->watch_ended = true;
	keep_end_error(&f->watch_err, err);
}

static int watch_start(struct feed *f, struct kerr *err)
{
	struct kube_watch_spec spec = {
		.path = f->path,
		.label_selector = f->label_selector,
		.field_selector = f->field_selector,
		.kind = f->kind,
		.filter = f->filter,
		.resource_version = f->rv,
		.on_event = watch_event,
		.ud = f,
		.on_end = watch_end,
	};

	f->watch_ended = f->watch_events = f->expired = false;
	f->watch_started = now_ms();
	return kube_watch_start(f->t->cluster.client, &spec, &f->watch, err);
}

/* Errors that retrying will not mend: stop at once when no data came yet. */
static bool fatal_error(const struct kerr *err)
{
	if (err->kind == KERR_CONFIG || err->kind == KERR_CREDENTIALS || err->kind == KERR_USAGE)
		return true;
	return err->kind == KERR_STATUS && (err->code == 401 || err->code == 403 || err->code == 404);
}

/* Show the error (when there is one) and list again after an interval. */
static void retry_later(struct feed *f, const struct kerr *err, long long now)
{
	if (err)
		feed_set_error(f, err);
	f->next_list = now + f->t->refresh_ms;
}

/* Move one feed on after the client ran.  -1 only for a fatal error. */
static int feed_step(struct feed *f, long long now)
{
	struct top *t = f->t;
	struct kerr err = KERR_INIT;

	if (f->alist && f->list_finished) {
		kube_async_list_free(f->alist);
		f->alist = NULL;
		if (f->list_err.kind != KERR_NONE) {
			if (!f->loaded && fatal_error(&f->list_err)) {
				kerr_copy(&t->fatal, &f->list_err);
				return -1;
			}
			retry_later(f, &f->list_err, now);
		} else {
			/* the new list replaces the old store in one go, so the
			 * screen never shows half a list */
			store_release(f->live);
			*f->live = f->fresh;
			store_init(&f->fresh, f->kind);
			free(f->rv);
			f->rv = f->list.resource_version ? strdup(f->list.resource_version) : NULL;
			f->loaded = true;
			f->ok_since = now;
			t->changed = true;
			feed_clear_error(f);
			if (f->polling) {
				retry_later(f, NULL, now);
			} else if (watch_start(f, &err) < 0) {
				f->polling = true;
				retry_later(f, &err, now);
			}
		}
	}
	if (f->watch && f->expired) {
		/* 410: the resourceVersion is too old; list again, then watch anew */
		kube_watch_free(f->watch);
		f->watch = NULL;
		f->next_list = now;
	} else if (f->watch && f->watch_ended) {
		bool failed = f->watch_err.kind != KERR_NONE ||
			      (!f->watch_events && now - f->watch_started < WATCH_MIN_LIFE_MS);

		kube_watch_free(f->watch);
		f->watch = NULL;
		if (f->watch_err.kind == KERR_STATUS && f->watch_err.code == 410) {
			/* the same as an ERROR event 410, said with the HTTP status */
			f->next_list = now;
		} else if (f->watch_err.kind == KERR_STATUS && (f->watch_err.code == 403 || f->watch_err.code == 405)) {
			f->polling = true;
			retry_later(f, &f->watch_err, now);
		} else if (failed) {
			if (++f->watch_failures >= WATCH_MAX_FAILURES)
				f->polling = true;
			retry_later(f, f->watch_err.kind != KERR_NONE ? &f->watch_err : NULL, now);
		} else if (watch_start(f, &err) < 0) {
			/* a stream that ended in time (timeoutSeconds): go on from where it was */
			retry_later(f, &err, now);
		}
	}
	if (f->watch && !f->watch_ended)
		f->ok_since = now;
	if (!f->alist && !f->watch && f->next_list && now >= f->next_list) {
		if (list_start(f, &err) < 0)
			retry_later(f, &err, now);
	}
	kerr_release(&err);
	return 0;
}

static void feed_release(struct feed *f)
{
	kube_async_list_free(f->alist);
	kube_watch_free(f->watch);
	kube_list_release(&f->list);
	store_release(&f->fresh);
	kerr_release(&f->list_err);
	kerr_release(&f->watch_err);
	free(f->rv);
	free(f->error);
}

/* --- the model ------------------------------------------------------------------ */

static void rebuild(struct top *t, long long now)
{
	struct model m;
	struct kerr err = KERR_INIT;
	int rc;

	t->changed = false;
	t->built = now;
	if (model_init(&m, &t->mopts) < 0)
		return;
	rc = 0;
	for (size_t i = 0; rc == 0 && i < t->nodes.nb; i++)
		for (struct entry *e = t->nodes.b[i]; rc == 0 && e; e = e->next)
			rc = model_add_node(&m, e->obj, &err);
	for (size_t i = 0; rc == 0 && i < t->pods.nb; i++)
		for (struct entry *e = t->pods.b[i]; rc == 0 && e; e = e->next)
			rc = model_add_pod(&m, e->obj, &err);
	if (rc == 0)
		rc = model_finish(&m, &err);
	if (rc == 0 && t->usage.configured) {
		if (t->have_usage)
			rc = usage_apply(&m, &t->usage_data, NULL, t->usage_error, &err);
		else
			m.usage.configured = true; /* "unknown" until the first answer */
	}
	free(t->model_error);
	t->model_error = NULL;
	if (rc < 0) {
		/* keep the last good model on screen */
		t->model_error = strdup(err.message ? err.message : "cannot build the model");
		model_release(&m);
		kerr_release(&err);
		return;
	}
	if (t->have_model)
		model_release(&t->model);
	t->model = m;
	t->have_model = true;
	kerr_release(&err);
}

/* --- setup ------------------------------------------------------------------------ */

static int parse_options(struct top *t, const char **vals, struct kerr *err)
{
	t->refresh_ms = 1000;
	if (vals[F_REFRESH]) {
		long ms;

		if (cli_parse_duration_ms(vals[F_REFRESH], &ms) < 0 || ms <= 0)
			return kerr_set(err, KERR_USAGE, "invalid refresh interval \"%s\": want a duration such as 500ms or 2s",
					vals[F_REFRESH]);
		t->refresh_ms = ms < 100 ? 100 : ms;
	}
	t->mopts.force_unit = -1;
	if (vals[F_UNIT]) {
		if (strcasecmp(vals[F_UNIT], "GiB") == 0)
			t->mopts.force_unit = UNIT_GIB;
		else if (strcasecmp(vals[F_UNIT], "MiB") == 0)
			t->mopts.force_unit = UNIT_MIB;
		else
			return kerr_set(err, KERR_USAGE, "invalid unit \"%s\": want GiB or MiB", vals[F_UNIT]);
	}
	return 0;
}

static void status_of(struct top *t, long long now, struct tui_status *st, char *mode, size_t modelen)
{
	long long ok = now;
	bool polling = false, watching = true;

	st->error = NULL;
	for (int i = 0; i < 2; i++) {
		struct feed *f = &t->feeds[i];

		if (!st->error && f->error)
			st->error = f->error;
		if (f->ok_since < ok)
			ok = f->ok_since;
		polling = polling || f->polling;
		watching = watching && f->watch && !f->watch_ended;
	}
	if (!st->error)
		st->error = t->model_error;
	st->loading = !t->have_model;
	st->age_s = t->have_model ? (now - ok) / 1000 : -1;
	if (polling)
		snprintf(mode, modelen, "polling every %.3gs", (double)t->refresh_ms / 1000);
	else
		snprintf(mode, modelen, "%s", watching ? "watching" : "reconnecting");
	st->mode = t->have_model ? mode : NULL;
}

static void sync_rows(struct top *t, struct tui_state *s)
{
	const char **names = NULL;
	long n = t->have_model ? tui_layout_rows(&t->model, s, &names) : 0;
	struct tui_event ev = { .type = TUI_EV_ROWS };

	if (n < 0)
		return;
	ev.rows = names;
	ev.nrows = (size_t)n;
	tui_reduce(s, &ev);
	free(names);
}

static void draw(struct top *t, struct tui_state *s, const char *context, long long now)
{
	const char *codeset = nl_langinfo(CODESET);
	struct tui_status st = { .context = context, .utf8 = codeset && strcmp(codeset, "UTF-8") == 0 };
	struct tui_screen scr;
	struct tui_event ev = { .type = TUI_EV_SCROLL };
	char mode[64];

	status_of(t, now, &st, mode, sizeof(mode));
	if (tui_layout_screen(&scr, s, t->have_model ? &t->model : NULL, &st) < 0)
		return;
	tui_draw_screen(&scr);
	ev.top = scr.top;
	ev.detail_top = scr.detail_top;
	tui_reduce(s, &ev);
	tui_state_set_page(s, scr.page);
	s->dirty = false;
	tui_screen_release(&scr);
}

static int loop(struct top *t, struct tui_state *s, const char *context, struct kerr *err)
{
	long long last_tick = 0;

	for (;;) {
		struct tui_event ev;
		long long now, wait;
		int r;

		if (got_signal)
			return 0;
		while (tui_draw_read(&ev)) {
			tui_reduce(s, &ev);
			if (s->quit)
				return 0;
		}
		now = now_ms();
		if (t->usage.configured && !t->fetch && now >= t->next_usage &&
		    usage_fetch_start(&t->usage, &t->cluster.cfg, &t->ctx, true, &t->fetch, err) < 0)
			return -1;
		if (t->fetch && usage_fetch_done(t->fetch)) {
			usage_data_release(&t->usage_data);
			free(t->usage_error);
			usage_fetch_finish(t->fetch, &t->usage_data, &t->usage_error);
			t->fetch = NULL;
			t->have_usage = true;
			t->changed = true;
			t->next_usage = now + (t->refresh_ms > USAGE_REFRESH_MS ? t->refresh_ms : USAGE_REFRESH_MS);
		}
		for (int i = 0; i < 2; i++) {
			if (feed_step(&t->feeds[i], now) < 0) {
				*err = t->fatal;
				memset(&t->fatal, 0, sizeof(t->fatal));
				return -1;
			}
		}
		if (t->changed && t->feeds[0].loaded && t->feeds[1].loaded &&
		    (!t->have_model || now - t->built >= t->refresh_ms)) {
			rebuild(t, now);
			ev = (struct tui_event){ .type = TUI_EV_DATA };
			tui_reduce(s, &ev);
		}
		if (now - last_tick >= t->refresh_ms) {
			ev = (struct tui_event){ .type = TUI_EV_TICK };
			tui_reduce(s, &ev);
			last_tick = now;
		}
		if (s->relayout)
			sync_rows(t, s);
		if (s->dirty)
			draw(t, s, context, now);

		wait = last_tick + t->refresh_ms - now;
		if (t->changed && t->have_model && t->built + t->refresh_ms - now < wait)
			wait = t->built + t->refresh_ms - now;
		for (int i = 0; i < 2; i++)
			if (t->feeds[i].next_list && t->feeds[i].next_list - now < wait)
				wait = t->feeds[i].next_list - now;
		/* a signal may land between the check above and the wait: keep the
		 * wait short enough that it is seen soon anyway */
		if (wait > 250)
			wait = 250;
		if (wait < 1)
			wait = 1;
		r = kube_client_poll(t->cluster.client, STDIN_FILENO, (int)wait, err);
		if (r < 0)
			return -1;
	}
}

/* The flags, the connection, and the named nodes: a name that is not
 * there is an error, said as kubectl says it, before the screen opens
 * rather than an empty screen after. */
static int top_setup(struct top *t, struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = { 0 };
	int nargs = cli_parse_flags(ctx->cmd, argc, argv, vals, err);

	if (nargs < 0 || parse_options(t, vals, err) < 0 ||
	    nodesel_parse(&t->sel, ctx->cmd, vals, argv, (size_t)nargs, false, err) < 0 ||
	    usage_source_init(&t->usage, vals + F_USAGE, err) < 0)
		return -1;
	t->mopts.scheme = t->sel.scheme;
	t->mopts.keep_pods = true;
	t->mopts.nodes = (const char *const *)t->sel.names;
	t->mopts.pod_namespace = ctx->g.ov.namespace;
	/* the pending pods' reasons need what each asks of a node and where it
	 * may go, as -d's "Why pending" */
	t->mopts.scheduling = true;
	/* -v logs and server warnings would scribble over the screen */
	t->devnull = fopen("/dev/null", "w");
	t->ctx = *ctx;
	if (t->devnull)
		t->ctx.errout = t->devnull;
	if (cluster_connect(&t->ctx, &t->cluster, err) < 0)
		return -1;
	return cluster_find_nodes(&t->cluster, &t->sel, err);
}

/* List nodes and pods; the watches follow as the lists end. */
static int feeds_start(struct top *t, struct kerr *err)
{
	struct decode_filter all_labels = { .all_labels = true };

	if (model_init(&t->filter_model, &t->mopts) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	t->filter_model_set = true;
	/* every label, so that / can filter on any of them */
	if (decode_filter_union(&t->node_filter, model_node_filter(&t->filter_model), &all_labels) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	t->node_filter_set = true;
	for (int i = 0; i < 2; i++) {
		struct feed *f = &t->feeds[i];

		f->t = t;
		f->kind = i == 0 ? OBJ_NODE : OBJ_POD;
		f->live = i == 0 ? &t->nodes : &t->pods;
		store_init(&f->fresh, f->kind);
		f->path = i == 0 ? "/api/v1/nodes" : "/api/v1/pods";
		f->label_selector = i == 0 ? t->sel.label_selector : NULL;
		f->field_selector = i == 0 ? NULL : CLUSTER_ACTIVE_PODS;
		f->filter = i == 0 ? &t->node_filter : model_pod_filter(&t->filter_model);
		if (list_start(f, err) < 0)
			return -1;
	}
	return 0;
}

/* The screen until q, a signal or a fatal error; the terminal is given
 * back either way.  A signal ends the view normally: the exit status says
 * which, as the shell would have reported it had we not caught it. */
static int show(struct top *t, struct kerr *err)
{
	struct sigaction sa, old_int, old_term, old_hup;
	struct tui_state s;
	int rc = -1;

	tui_state_init(&s, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if (tui_draw_start(err) == 0) {
		tui_draw_size(&s.cols, &s.lines);
		rc = loop(t, &s, t->cluster.cfg.context_name, err);
		tui_draw_stop();
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (rc == 0 && got_signal)
		rc = 128 + got_signal;
	got_signal = 0;
	tui_state_release(&s);
	return rc;
}

static void top_release(struct top *t)
{
	usage_fetch_free(t->fetch);
	usage_data_release(&t->usage_data);
	free(t->usage_error);
	feed_release(&t->feeds[0]);
	feed_release(&t->feeds[1]);
	if (t->have_model)
		model_release(&t->model);
	free(t->model_error);
	kerr_release(&t->fatal);
	store_release(&t->nodes);
	store_release(&t->pods);
	if (t->node_filter_set)
		decode_filter_release(&t->node_filter);
	if (t->filter_model_set)
		model_release(&t->filter_model);
	cluster_release(&t->cluster);
	usage_source_release(&t->usage);
	if (t->devnull)
		fclose(t->devnull);
	nodesel_release(&t->sel);
}

int top_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct top t;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	store_init(&t.nodes, OBJ_NODE);
	store_init(&t.pods, OBJ_POD);
	if (top_setup(&t, ctx, argc, argv, err) == 0 && feeds_start(&t, err) == 0)
		rc = show(&t, err);
	top_release(&t);
	return rc;
}
