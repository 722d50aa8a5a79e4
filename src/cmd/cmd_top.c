/* `kubectl inspect cgpu top`: the live view.
 *
 * Nodes and pods are listed once (concurrently), then followed with watch
 * streams from the lists' resourceVersions (top_feed.c); every object goes
 * into the live model as it arrives, which takes the old copy's share out
 * and puts the new one in.  The model is settled (the touched nodes joined
 * again, the figures over all nodes derived) and the screen laid out at
 * most once a quarter of the refresh interval while objects change, and
 * drawn only when it reads otherwise than the one on the terminal.  All
 * waiting happens in kube_client_poll(), which also wakes for the keyboard,
 * so a slow server never freezes the screen.  Signal handlers only set a
 * flag; the terminal is given back on every way out, and an error is
 * printed (by main) only after.
 */
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "fleet.h"
#include "kube.h"
#include "load.h"
#include "model_live.h"
#include "nodesel.h"
#include "top_dra.h"
#include "top_feed.h"
#include "tui_draw.h"
#include "tui_layout.h"
#include "tui_state.h"
#include "usage.h"
#include "usage_source.h"

enum { F_UNIT, F_REFRESH, F_ONCE, F_USAGE, F_COUNT = F_USAGE + USAGE_SOURCE_NFLAGS };

const struct flag top_flags[] = {
	[F_UNIT] = { "unit", 0, "UNIT", "show GPU memory in this unit (GiB or MiB)", "GiB MiB" },
	[F_REFRESH] = { "refresh", 'r', "DURATION",
			"redraw interval, e.g. 500ms, 2s (default 1s); changes show within a quarter of it", NULL },
	[F_ONCE] = { "once", 0, NULL, "print one frame as plain text and exit (also when stdout is not a terminal)", NULL },
	USAGE_SOURCE_FLAGS,
	[F_COUNT] = { 0 },
};

/* Memory in use is asked for again this often (exporters are scraped every
 * 15 to 60 seconds): each answer is a few queries over the whole cluster. */
#define USAGE_REFRESH_MS 15000
/* Changes are drawn at most this often, however fast they come. */
#define SETTLE_MIN_MS 50
/* Reads of what the server sent while changes waited, at most, before they
 * are settled: the rest waits for the next settle. */
#define DRAIN_MAX_ROUNDS 64

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

struct top {
	struct cluster cluster;
	struct nodesel sel;
	struct model_options mopts;
	struct model filter_model; /* for its decode filters */
	bool filter_model_set;
	struct decode_filter node_filter;
	bool node_filter_set;
	struct model_live live;
	bool live_set;
	struct top_feed feeds[2];
	bool feeds_started;
	/* Dynamic Resource Allocation's objects, where the server serves them:
	 * listed first, the nodes and pods after */
	struct top_dra dra;
	bool dra_on;
	long refresh_ms, settle_ms;
	bool once;	     /* --once, or no terminal on stdout: one frame as text */
	bool have_model;     /* settled once both lists were in */
	long long settled;   /* when */
	char *model_error;
	struct tui_screen shown; /* what the terminal shows */
	bool have_shown;
	/* memory in use: fetched on a thread of its own, never waited for */
	struct usage_source usage;
	struct usage_fetch *fetch;
	struct usage_data usage_data;
	char *usage_error;
	bool have_usage, usage_fresh;
	long long next_usage;
	struct cli_ctx ctx; /* the command's, quiet: logs would scribble over the screen */
	FILE *devnull;
};

static int feeds_start(struct top *t, struct kerr *err);

/* --- the model ------------------------------------------------------------------ */

static void set_model_error(struct top *t, const struct kerr *err)
{
	free(t->model_error);
	t->model_error = err ? strdup(err->message ? err->message : "cannot build the model") : NULL;
}

/* The live model built again from nothing (it ran out of memory): both
 * lists again. */
static void rebuild_live(struct top *t, long long now)
{
	struct kerr err = KERR_INIT;

	model_live_release(&t->live);
	t->live_set = model_live_init(&t->live, &t->mopts) == 0;
	t->live.m.usage.configured = t->usage.configured;
	t->usage_fresh = t->have_usage;
	for (int i = 0; i < 2; i++)
		top_feed_restart(&t->feeds[i], now);
	if (t->live_set && t->dra_on)
		model_live_set_object_warnings(&t->live, &t->dra.warnings);
	t->have_model = false;
	kerr_set(&err, KERR_OTHER, "out of memory: reading the cluster again");
	set_model_error(t, &err);
	kerr_release(&err);
}

/* Memory in use, applied to the settled model as the last answer says it. */
static void apply_usage(struct top *t)
{
	struct kerr err = KERR_INIT;

	model_live_forget_usage(&t->live);
	if (usage_apply(&t->live.m, &t->usage_data, NULL, t->usage_error, &err) < 0)
		set_model_error(t, &err);
	t->usage_fresh = false;
	kerr_release(&err);
}

/* What changed since the last settle, derived; true when the model moved. */
static bool settle(struct top *t, long long now)
{
	struct kerr err = KERR_INIT;
	bool moved = model_live_pending(&t->live) || t->usage_fresh;

	if (model_live_settle(&t->live, &err) < 0) {
		set_model_error(t, &err);
		kerr_release(&err);
		rebuild_live(t, now);
		return false;
	}
	if (t->model_error && !t->feeds[0].broken && !t->feeds[1].broken)
		set_model_error(t, NULL);
	if (t->usage_fresh)
		apply_usage(t);
	t->have_model = true;
	t->settled = now;
	return moved;
}

/* --- setup ------------------------------------------------------------------------ */

static int parse_options(struct top *t, const char **vals, struct kerr *err)
{
	t->refresh_ms = 1000;
	if (vals[F_REFRESH]) {
		long ms;

		if (cli_parse_duration_ms(vals[F_REFRESH], &ms) < 0 || ms <= 0)
			return kerr_set(err, KERR_USAGE,
					"invalid argument \"%s\" for \"-r, --refresh\" flag: want a duration such as 500ms or 2s",
					vals[F_REFRESH]);
		t->refresh_ms = ms < 100 ? 100 : ms;
	}
	/* a burst of changes is drawn a few times a second, not once each */
	t->settle_ms = t->refresh_ms / 4 > SETTLE_MIN_MS ? t->refresh_ms / 4 : SETTLE_MIN_MS;
	t->mopts.force_unit = -1;
	if (vals[F_UNIT]) {
		if (strcasecmp(vals[F_UNIT], "GiB") == 0)
			t->mopts.force_unit = UNIT_GIB;
		else if (strcasecmp(vals[F_UNIT], "MiB") == 0)
			t->mopts.force_unit = UNIT_MIB;
		else
			return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--unit\" flag: must be GiB or MiB",
					vals[F_UNIT]);
	}
	return 0;
}

static void status_of(struct top *t, long long now, struct tui_status *st, char *mode, size_t modelen)
{
	long long ok = now;
	bool polling = false, watching = true;

	st->error = t->dra_on ? t->dra.error : NULL;
	if (t->dra_on && t->dra.loaded && !t->dra.off && t->dra.ok_since < ok)
		ok = t->dra.ok_since;
	for (int i = 0; i < 2; i++) {
		struct top_feed *f = &t->feeds[i];

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

static const struct model *shown_model(const struct top *t)
{
	return t->have_model ? &t->live.m : NULL;
}

static void sync_rows(struct top *t, struct tui_state *s)
{
	const char **names = NULL;
	long n = t->have_model ? tui_layout_rows(&t->live.m, s, &names) : 0;
	struct tui_event ev = { .type = TUI_EV_ROWS };

	if (n < 0)
		return;
	ev.rows = names;
	ev.nrows = (size_t)n;
	tui_reduce(s, &ev);
	free(names);
}

/* A laid-out screen scrolled to and drawn where it reads otherwise than
 * what the terminal shows, which it then is. */
static void screen_show(struct tui_state *s, struct tui_screen *scr, struct tui_screen *shown, bool *have_shown)
{
	struct tui_event ev = { .type = TUI_EV_SCROLL, .top = scr->top, .detail_top = scr->detail_top };

	tui_reduce(s, &ev);
	tui_state_set_page(s, scr->page);
	s->dirty = false;
	if (*have_shown && tui_screen_same(scr, shown)) {
		tui_screen_release(scr);
		return;
	}
	tui_draw_screen(scr);
	if (*have_shown)
		tui_screen_release(shown);
	*shown = *scr;
	*have_shown = true;
}

/* The screen laid out, and drawn where it reads otherwise than the one the
 * terminal shows. */
static void draw(struct top *t, struct tui_state *s, const char *context, long long now)
{
	const char *codeset = nl_langinfo(CODESET);
	struct tui_status st = { .context = context, .utf8 = codeset && strcmp(codeset, "UTF-8") == 0 };
	struct tui_screen scr;
	char mode[64];

	status_of(t, now, &st, mode, sizeof(mode));
	if (tui_layout_screen(&scr, s, shown_model(t), &st) < 0)
		return;
	screen_show(s, &scr, &t->shown, &t->have_shown);
}

/* Memory in use asked for when due, and taken when it came. */
static int usage_step(struct top *t, long long now, struct kerr *err)
{
	if (!t->usage.configured)
		return 0;
	if (!t->fetch && now >= t->next_usage &&
	    usage_fetch_start(&t->usage, &t->cluster.cfg, &t->ctx, true, &t->fetch, err) < 0)
		return -1;
	if (t->fetch && usage_fetch_done(t->fetch)) {
		usage_data_release(&t->usage_data);
		free(t->usage_error);
		usage_fetch_finish(t->fetch, &t->usage_data, &t->usage_error);
		t->fetch = NULL;
		t->have_usage = t->usage_fresh = true;
		t->next_usage = now + (t->refresh_ms > USAGE_REFRESH_MS ? t->refresh_ms : USAGE_REFRESH_MS);
	}
	return 0;
}

/* Changes wait for their settle while both feeds watch: the server's
 * events are left to gather meanwhile, and read in one go when the settle
 * is due, instead of a wakeup for each (a busy cluster sends a hundred a
 * second).  Lists are read as they come, and keys at once either way. */
static bool holding(const struct top *t, long long now)
{
	for (int i = 0; i < 2; i++)
		if (!t->feeds[i].watch || t->feeds[i].watch_ended || t->feeds[i].alist)
			return false;
	return t->have_model && model_live_pending(&t->live) && now - t->settled < t->settle_ms;
}

/* What the server sent while changes waited, read before they are settled:
 * round after round while rounds bring objects. */
static int drain(struct top *t, struct kerr *err)
{
	for (int k = 0; k < DRAIN_MAX_ROUNDS; k++) {
		unsigned long before = t->feeds[0].received + t->feeds[1].received;

		if (kube_client_poll(t->cluster.client, -1, 0, err) < 0)
			return -1;
		if (t->feeds[0].received + t->feeds[1].received == before)
			break;
	}
	return 0;
}

/* The DRA objects moved on; nodes and pods listed once they are in (a
 * first relist that fails lets them go without); a change told to the
 * live model, which reads the nodes it touches and their pods again as
 * the lists deliver them. */
static int dra_step(struct top *t, long long now, struct kerr *err)
{
	bool first = !t->feeds_started;

	if (t->dra_on && top_dra_step(&t->dra, now, err) < 0)
		return -1;
	if (first && t->dra_on && !t->dra.tried)
		return 0;
	if (first && feeds_start(t, err) < 0)
		return -1;
	if (!t->dra_on || !t->dra.changed)
		return 0;
	model_live_set_object_warnings(&t->live, &t->dra.warnings);
	if (!first) {
		if (t->dra.changes.all)
			model_live_forget_node(&t->live, NULL);
		for (size_t i = 0; !t->dra.changes.all && i < t->dra.changes.n; i++)
			model_live_forget_node(&t->live, t->dra.changes.nodes[i]);
		for (int i = 0; i < 2; i++)
			top_feed_relist(&t->feeds[i], now);
	}
	top_dra_changes_taken(&t->dra);
	return 0;
}

/* The feeds moved on; the model built again where it ran out of memory,
 * settled where changes are due.  -1 for a fatal error (*err). */
static int data_step(struct top *t, struct tui_state *s, long long now, struct kerr *err)
{
	struct tui_event ev = { .type = TUI_EV_DATA };

	if (dra_step(t, now, err) < 0)
		return -1;
	if (!t->feeds_started)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (top_feed_step(&t->feeds[i], now) < 0) {
			*err = t->feeds[i].fatal;
			memset(&t->feeds[i].fatal, 0, sizeof(t->feeds[i].fatal));
			return -1;
		}
	}
	if (t->feeds[0].broken || t->feeds[1].broken || !t->live_set) {
		rebuild_live(t, now);
		return 0;
	}
	if (!t->feeds[0].loaded || !t->feeds[1].loaded)
		return 0;
	if ((model_live_pending(&t->live) || t->usage_fresh) &&
	    (!t->have_model || now - t->settled >= t->settle_ms)) {
		if (t->have_model && drain(t, err) < 0)
			return -1;
		if (settle(t, now))
			tui_reduce(s, &ev);
	}
	return 0;
}

/* How long the loop may wait: until the clock's redraw, a settle or a list
 * is due, and never long, so that a signal is seen soon. */
static long long wait_ms(const struct top *t, long long now, long long last_tick)
{
	long long wait = last_tick + t->refresh_ms - now;

	if (t->have_model && (model_live_pending(&t->live) || t->usage_fresh) &&
	    t->settled + t->settle_ms - now < wait)
		wait = t->settled + t->settle_ms - now;
	for (int i = 0; i < 2; i++)
		if (t->feeds[i].next_list && t->feeds[i].next_list - now < wait)
			wait = t->feeds[i].next_list - now;
	if (t->dra_on && t->dra.next_list && t->dra.next_list - now < wait)
		wait = t->dra.next_list - now;
	/* a signal may land between the check and the wait */
	if (wait > 250)
		wait = 250;
	return wait < 1 ? 1 : wait;
}

static int loop(struct top *t, struct tui_state *s, const char *context, struct kerr *err)
{
	long long last_tick = 0;

	for (;;) {
		struct tui_event ev;
		long long now;

		if (got_signal)
			return 0;
		while (tui_draw_read(&ev)) {
			tui_reduce(s, &ev);
			if (s->quit)
				return 0;
		}
		now = top_now_ms();
		if (usage_step(t, now, err) < 0 || data_step(t, s, now, err) < 0)
			return -1;
		if (now - last_tick >= t->refresh_ms) {
			ev = (struct tui_event){ .type = TUI_EV_TICK };
			tui_reduce(s, &ev);
			last_tick = now;
		}
		if (s->relayout)
			sync_rows(t, s);
		if (s->dirty)
			draw(t, s, context, now);
		if (holding(t, now)) {
			struct pollfd keys = { .fd = STDIN_FILENO, .events = POLLIN };

			poll(&keys, 1, (int)wait_ms(t, now, last_tick));
		} else if (kube_client_poll(t->cluster.client, STDIN_FILENO, (int)wait_ms(t, now, last_tick), err) < 0) {
			return -1;
		}
	}
}

/* Whether the view reads Dynamic Resource Allocation at all: not when it
 * is of another scheme. */
static bool dra_wanted(const struct top *t)
{
	return !t->mopts.scheme || strcmp(t->mopts.scheme, scheme_dra.name) == 0;
}

/* The view of a cluster that serves DRA in version (NULL: it does not):
 * the live model reads the DRA objects top_dra keeps. */
static void dra_use(struct top *t, const char *version)
{
	if (!version)
		return;
	t->dra_on = true;
	t->dra.client = t->cluster.client;
	t->dra.version = version;
	/* every claim of the cluster each time: no more than once a second */
	t->dra.refresh_ms = t->refresh_ms < 1000 ? 1000 : t->refresh_ms;
	t->dra.gpu_drivers = t->mopts.dra_drivers;
	t->mopts.objects = &t->dra.objects;
	t->live.m.opts.objects = &t->dra.objects;
}

static int dra_discover(struct top *t, struct kerr *err)
{
	const char *version = NULL;

	if (!dra_wanted(t))
		return 0;
	if (kube_group_version(t->cluster.client, "resource.k8s.io", dra_versions, &version, err) < 0)
		return -1;
	dra_use(t, version);
	return 0;
}

/* The flags, and the live model they ask for; no connection yet. */
static int top_parse(struct top *t, struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = { 0 };
	int nargs = cli_parse_flags(ctx->cmd, argc, argv, vals, err);

	if (nargs < 0 || parse_options(t, vals, err) < 0 ||
	    nodesel_parse(&t->sel, ctx->cmd, vals, argv, (size_t)nargs, false, err) < 0 ||
	    usage_source_init(&t->usage, vals + F_USAGE, err) < 0)
		return -1;
	t->once = vals[F_ONCE] != NULL || !isatty(STDOUT_FILENO);
	t->mopts.scheme = t->sel.scheme;
	t->mopts.keep_pods = true;
	t->mopts.nodes = (const char *const *)t->sel.names;
	t->mopts.dra_drivers = (const char *const *)t->sel.dra_drivers;
	t->mopts.pod_namespace = ctx->g.ov.namespace;
	/* the pending pods' reasons need what each asks of a node and where it
	 * may go, as -d's "Why pending" */
	t->mopts.scheduling = true;
	if (model_live_init(&t->live, &t->mopts) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	t->live_set = true;
	/* "unknown" until the first answer */
	t->live.m.usage.configured = t->usage.configured;
	/* -v logs and server warnings would scribble over the screen */
	t->devnull = fopen("/dev/null", "w");
	t->ctx = *ctx;
	if (t->devnull)
		t->ctx.errout = t->devnull;
	return 0;
}

/* On the connected cluster, the named nodes: a name that is not there is
 * an error, said as kubectl says it, before the screen opens rather than
 * an empty screen after.  Then whether it serves DRA. */
static int top_attach(struct top *t, struct kerr *err)
{
	if (cluster_find_nodes(&t->cluster, &t->sel, err) < 0)
		return -1;
	return dra_discover(t, err);
}

static int top_setup(struct top *t, struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	if (top_parse(t, ctx, argc, argv, err) < 0 || cluster_connect(&t->ctx, &t->cluster, err) < 0)
		return -1;
	return top_attach(t, err);
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
		struct top_feed *f = &t->feeds[i];

		f->client = t->cluster.client;
		f->live = &t->live;
		f->refresh_ms = t->refresh_ms;
		f->kind = i == 0 ? OBJ_NODE : OBJ_POD;
		f->path = i == 0 ? "/api/v1/nodes" : "/api/v1/pods";
		f->label_selector = i == 0 ? t->sel.label_selector : NULL;
		f->field_selector = i == 0 ? NULL : CLUSTER_ACTIVE_PODS;
		f->filter = i == 0 ? &t->node_filter : model_pod_filter(&t->filter_model);
		if (top_feed_start(f, err) < 0)
			return -1;
	}
	t->feeds_started = true;
	return 0;
}

/* The DRA objects first where the server serves them, nodes and pods
 * after (data_step); else nodes and pods at once. */
static int lists_start(struct top *t, struct kerr *err)
{
	return t->dra_on ? top_dra_start(&t->dra, err) : feeds_start(t, err);
}

/* The screen until q, a signal or a fatal error, run calling ud's loop;
 * the terminal is given back either way.  A signal ends the view normally:
 * the exit status says which, as the shell would have reported it had we
 * not caught it. */
static int show_with(int (*run)(void *ud, struct tui_state *s, struct kerr *err), void *ud, bool by_cluster,
		     struct kerr *err)
{
	struct sigaction sa, old_int, old_term, old_hup;
	struct tui_state s;
	int rc = -1;

	tui_state_init(&s, 0, 0);
	s.group_clusters = by_cluster;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if (tui_draw_start(err) == 0) {
		tui_draw_size(&s.cols, &s.lines);
		rc = run(ud, &s, err);
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

static int run_one(void *ud, struct tui_state *s, struct kerr *err)
{
	struct top *t = ud;

	return loop(t, s, t->cluster.cfg.context_name, err);
}

static int show(struct top *t, struct kerr *err)
{
	return show_with(run_one, t, false, err);
}

static void top_release(struct top *t)
{
	usage_fetch_free(t->fetch);
	usage_data_release(&t->usage_data);
	free(t->usage_error);
	top_feed_release(&t->feeds[0]);
	top_feed_release(&t->feeds[1]);
	top_dra_release(&t->dra);
	if (t->live_set)
		model_live_release(&t->live);
	if (t->have_shown)
		tui_screen_release(&t->shown);
	free(t->model_error);
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

/* The frame's lines as plain text: up to the last one with text, without
 * trailing blanks, and one blank line where the screen has several. */
static int print_frame(FILE *out, const struct tui_screen *scr, struct kerr *err)
{
	int last = -1, rc = 0;

	for (int y = 0; y < scr->lines; y++) {
		char *line = tui_screen_line_text(scr, y);
		size_t len = line ? strlen(line) : 0;

		while (len && line[len - 1] == ' ')
			len--;
		if (len)
			last = y;
		free(line);
	}
	for (int y = 0, blank = 0; y <= last && rc == 0; y++) {
		char *line = tui_screen_line_text(scr, y);
		size_t len = line ? strlen(line) : 0;

		while (len && line[len - 1] == ' ')
			len--;
		blank = len ? 0 : blank + 1;
		if (!line || (blank < 2 && fprintf(out, "%.*s\n", (int)len, line) < 0))
			rc = kerr_set(err, KERR_OTHER, "cannot write the frame");
		free(line);
	}
	return rc;
}

/* The frame's width: $COLUMNS, 80 by default. */
static int once_cols(void)
{
	const char *env = getenv("COLUMNS");

	return env && atoi(env) >= 40 ? atoi(env) : 80;
}

/* The data moved on, for a frame not yet shown. */
static int once_step(struct top *t, struct kerr *err)
{
	long long now = top_now_ms();
	struct tui_state s;
	int rc;

	tui_state_init(&s, 80, 24);
	rc = usage_step(t, now, err) < 0 || data_step(t, &s, now, err) < 0 ? -1 : 0;
	tui_state_release(&s);
	return rc;
}

/* The lists are in, and the usage when it was asked for. */
static bool once_ready(const struct top *t)
{
	return t->have_model && !t->fetch && (!t->usage.configured || t->have_usage);
}

/* The first frame as plain text, as tall as the nodes need. */
static int print_once(struct top *t, int cols, struct kerr *err)
{
	const char *codeset = nl_langinfo(CODESET);
	struct tui_status st = { .context = t->cluster.cfg.context_name,
				 .utf8 = codeset && strcmp(codeset, "UTF-8") == 0 };
	struct tui_state s;
	struct tui_screen scr;
	char mode[64];
	int rc;

	if (t->usage_fresh)
		settle(t, top_now_ms());
	tui_state_init(&s, cols, (int)t->live.m.nnodes + 24);
	sync_rows(t, &s);
	status_of(t, top_now_ms(), &st, mode, sizeof(mode));
	/* one frame, not a feed: no watching said */
	st.mode = "one frame";
	if (tui_layout_screen(&scr, &s, shown_model(t), &st) < 0) {
		tui_state_release(&s);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	rc = print_frame(t->ctx.out, &scr, err);
	tui_screen_release(&scr);
	tui_state_release(&s);
	return rc;
}

/* --once, or no terminal on stdout: the first frame, once the lists (and
 * the usage, when asked) are in, as wide as $COLUMNS (80 by default) and as
 * tall as the nodes need, for logs and CI. */
static int show_once(struct top *t, struct kerr *err)
{
	for (;;) {
		if (once_step(t, err) < 0)
			return -1;
		if (once_ready(t))
			break;
		if (kube_client_poll(t->cluster.client, -1, 250, err) < 0)
			return -1;
	}
	return print_once(t, once_cols(), err);
}

/* --- several clusters ------------------------------------------------------------ */

/* Each cluster's view as one cluster's, all fed on the fleet's one loop. */
struct top_fleet {
	struct fleet f; /* the contexts, and each one's error */
	struct top *tops;
	/* the live view */
	struct tui_cluster *view; /* each cluster as the screen shows it */
	char **lines;		  /* a failed cluster's error, in kubectl's words */
	struct tui_screen shown;  /* what the terminal shows */
	bool have_shown;
};

/* top_parse on a copy of the arguments: the flags' parser moves them, and
 * each cluster's view reads them afresh. */
static int parse_copy(struct top *t, struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int rc;

	if (!copy)
		return kerr_set(err, KERR_OTHER, "out of memory");
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	rc = top_parse(t, ctx, argc, copy, err);
	free(copy);
	return rc;
}

static void fleet_fail(struct top_fleet *tf, size_t i, struct kerr *e)
{
	kerr_release(&tf->f.loads[i].err);
	tf->f.loads[i].err = *e;
	memset(e, 0, sizeof(*e));
}

static bool fleet_failed(const struct top_fleet *tf, size_t i)
{
	return tf->f.loads[i].err.kind != KERR_NONE;
}

/* Whether each cluster serves DRA, asked of all at once: a slow one holds
 * back none of the others. */
static int fleet_dra_discover(struct top_fleet *tf, struct kerr *err)
{
	struct kube_client **cs = calloc(tf->f.n, sizeof(*cs));
	const char **vs = calloc(tf->f.n, sizeof(*vs));
	struct kerr *errs = calloc(tf->f.n, sizeof(*errs));

	if (!cs || !vs || !errs) {
		free(cs);
		free(vs);
		free(errs);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (size_t i = 0; i < tf->f.n; i++)
		if (!fleet_failed(tf, i) && dra_wanted(&tf->tops[i]))
			cs[i] = tf->tops[i].cluster.client;
	kube_group_versions(cs, tf->f.n, "resource.k8s.io", dra_versions, vs, errs);
	for (size_t i = 0; i < tf->f.n; i++) {
		if (errs[i].kind != KERR_NONE)
			fleet_fail(tf, i, &errs[i]);
		else if (cs[i])
			dra_use(&tf->tops[i], vs[i]);
	}
	free(cs);
	free(vs);
	free(errs);
	return 0;
}

/* Each cluster that connected: its own view set up on its connection
 * (borrowed from the fleet's load, whose config the client points to, and
 * released with it), its lists started. */
static int fleet_tops_start(struct top_fleet *tf, struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	tf->tops = calloc(tf->f.n, sizeof(*tf->tops));
	tf->view = calloc(tf->f.n, sizeof(*tf->view));
	tf->lines = calloc(tf->f.n, sizeof(*tf->lines));
	if (!tf->tops || !tf->view || !tf->lines)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < tf->f.n; i++) {
		struct top *t = &tf->tops[i];
		struct kerr e = KERR_INIT;

		if (parse_copy(t, ctx, argc, argv, err) < 0)
			return -1;
		if (fleet_failed(tf, i))
			continue;
		t->cluster = tf->f.loads[i].cluster;
		if (cluster_find_nodes(&t->cluster, &t->sel, &e) < 0)
			fleet_fail(tf, i, &e);
	}
	if (fleet_dra_discover(tf, err) < 0)
		return -1;
	for (size_t i = 0; i < tf->f.n; i++) {
		struct kerr e = KERR_INIT;

		if (!fleet_failed(tf, i) && lists_start(&tf->tops[i], &e) < 0)
			fleet_fail(tf, i, &e);
	}
	return 0;
}

/* Every cluster moved on until each has its frame or its error; one
 * cluster's wait holds back none of the others. */
static int fleet_once_wait(struct top_fleet *tf, struct kerr *err)
{
	for (;;) {
		struct kube_client *pending = NULL;

		for (size_t i = 0; i < tf->f.n; i++) {
			struct top *t = &tf->tops[i];
			struct kerr e = KERR_INIT;

			if (fleet_failed(tf, i) || once_ready(t))
				continue;
			if (once_step(t, &e) < 0)
				fleet_fail(tf, i, &e);
			else if (!once_ready(t))
				pending = t->cluster.client;
		}
		if (!pending)
			return 0;
		/* one client's poll drives every client of the loop */
		if (kube_client_poll(pending, -1, 250, err) < 0)
			return -1;
	}
}

/* The live view of a fleet ------------------------------------------------------ */

/* Each cluster as the screen shows it: its settled model, and its error
 * (why it failed, or the last one of its feeds, as its status would say). */
static void fleet_view(struct top_fleet *tf, long long now)
{
	for (size_t i = 0; i < tf->f.n; i++) {
		struct top *t = &tf->tops[i];
		struct tui_status st = { 0 };
		char mode[64];

		if (fleet_failed(tf, i) && !tf->lines[i]) {
			char *line = cli_error_line(&tf->f.loads[i].err);

			/* the header says "error: " itself */
			if (line && strncmp(line, "error: ", 7) == 0)
				memmove(line, line + 7, strlen(line + 7) + 1);
			tf->lines[i] = line;
		}
		if (!fleet_failed(tf, i))
			status_of(t, now, &st, mode, sizeof(mode));
		tf->view[i] = (struct tui_cluster){ .name = tf->f.names[i],
						    .m = fleet_failed(tf, i) ? NULL : shown_model(t),
						    .error = fleet_failed(tf, i) ? tf->lines[i] : st.error };
	}
}

/* The status line of the fleet: the oldest data, the first cluster's way
 * of following (they all follow alike), and no error of its own: each
 * cluster's is on its line of the header. */
static void fleet_status(struct top_fleet *tf, long long now, struct tui_status *st, char *mode, size_t modelen)
{
	bool first = true;
	char other[64];

	st->loading = true;
	for (size_t i = 0; i < tf->f.n; i++) {
		struct tui_status one = { 0 };

		if (fleet_failed(tf, i))
			continue;
		status_of(&tf->tops[i], now, &one, first ? mode : other, first ? modelen : sizeof(other));
		if (one.loading)
			continue;
		st->mode = first ? one.mode : st->mode;
		st->loading = false;
		st->age_s = first || one.age_s > st->age_s ? one.age_s : st->age_s;
		first = false;
	}
	st->error = NULL;
}

static void fleet_sync_rows(struct top_fleet *tf, struct tui_state *s)
{
	const struct tui_fleet fl = { .c = tf->view, .n = tf->f.n };
	struct tui_event ev = { .type = TUI_EV_ROWS };
	char **keys = NULL;
	long n = tui_fleet_rows(&fl, s, &keys);

	if (n < 0)
		return;
	ev.rows = (const char *const *)keys;
	ev.nrows = (size_t)n;
	tui_reduce(s, &ev);
	for (long i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

static void fleet_draw(struct top_fleet *tf, struct tui_state *s, long long now)
{
	const char *codeset = nl_langinfo(CODESET);
	const struct tui_fleet fl = { .c = tf->view, .n = tf->f.n };
	struct tui_status st = { .utf8 = codeset && strcmp(codeset, "UTF-8") == 0 };
	struct tui_screen scr;
	char mode[64];

	fleet_status(tf, now, &st, mode, sizeof(mode));
	if (tui_layout_fleet_screen(&scr, s, &fl, &st) < 0)
		return;
	screen_show(s, &scr, &tf->shown, &tf->have_shown);
}

/* Every cluster moved on; one that fails keeps its error on its line and
 * stops, the others go on.  The client to wait on (NULL: none is left)
 * and how long. */
static struct kube_client *fleet_step(struct top_fleet *tf, struct tui_state *s, long long now, long long last_tick,
				      long long *wait)
{
	struct kube_client *c = NULL;

	*wait = 250;
	for (size_t i = 0; i < tf->f.n; i++) {
		struct top *t = &tf->tops[i];
		struct kerr e = KERR_INIT;
		long long w;

		if (fleet_failed(tf, i))
			continue;
		if (usage_step(t, now, &e) < 0 || data_step(t, s, now, &e) < 0) {
			fleet_fail(tf, i, &e);
			s->relayout = s->dirty = true;
			continue;
		}
		c = c ? c : t->cluster.client;
		if ((w = wait_ms(t, now, last_tick)) < *wait)
			*wait = w;
	}
	return c;
}

static int fleet_loop(void *ud, struct tui_state *s, struct kerr *err)
{
	struct top_fleet *tf = ud;
	long long last_tick = 0;

	for (;;) {
		struct kube_client *c;
		struct tui_event ev;
		long long now, wait;

		if (got_signal)
			return 0;
		while (tui_draw_read(&ev)) {
			tui_reduce(s, &ev);
			if (s->quit)
				return 0;
		}
		now = top_now_ms();
		c = fleet_step(tf, s, now, last_tick, &wait);
		fleet_view(tf, now);
		if (now - last_tick >= tf->tops[0].refresh_ms) {
			ev = (struct tui_event){ .type = TUI_EV_TICK };
			tui_reduce(s, &ev);
			last_tick = now;
		}
		if (s->relayout)
			fleet_sync_rows(tf, s);
		if (s->dirty)
			fleet_draw(tf, s, now);
		/* one client's poll drives every client of the loop */
		if (c && kube_client_poll(c, STDIN_FILENO, (int)wait, err) < 0)
			return -1;
		if (!c) {
			struct pollfd keys = { .fd = STDIN_FILENO, .events = POLLIN };

			poll(&keys, 1, (int)wait);
		}
	}
}

/* --once: the fleet's screen as one frame of text, once every cluster has
 * its data or its error, as tall as the nodes and clusters need. */
static int fleet_print_once(struct top_fleet *tf, FILE *out, struct kerr *err)
{
	const char *codeset = nl_langinfo(CODESET);
	const struct tui_fleet fl = { .c = tf->view, .n = tf->f.n };
	struct tui_status st = { .utf8 = codeset && strcmp(codeset, "UTF-8") == 0 };
	struct tui_state s;
	struct tui_screen scr;
	size_t nodes = 0;
	char mode[64];
	int rc;

	for (size_t i = 0; i < tf->f.n; i++)
		if (!fleet_failed(tf, i) && tf->tops[i].usage_fresh)
			settle(&tf->tops[i], top_now_ms());
	fleet_view(tf, top_now_ms());
	for (size_t i = 0; i < tf->f.n; i++)
		nodes += tf->view[i].m ? tf->view[i].m->nnodes : 0;
	tui_state_init(&s, once_cols(), (int)(nodes + tf->f.n) + 24);
	s.group_clusters = true;
	fleet_sync_rows(tf, &s);
	fleet_status(tf, top_now_ms(), &st, mode, sizeof(mode));
	st.mode = "one frame";
	if (tui_layout_fleet_screen(&scr, &s, &fl, &st) < 0) {
		tui_state_release(&s);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	rc = print_frame(out, &scr, err);
	tui_screen_release(&scr);
	tui_state_release(&s);
	return rc;
}

/* Several contexts: the live view of all, or with --once its first frame;
 * then each failed cluster's line. */
static int top_fleet_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct top_fleet tf = { 0 };
	struct top probe;
	const struct cluster_load tmpl = { 0 };
	/* -v logs and server warnings would scribble over the screen */
	FILE *devnull = fopen("/dev/null", "w");
	struct cli_ctx quiet = *ctx;
	bool probe_once = false;
	int rc = -1;

	memset(&probe, 0, sizeof(probe));
	if (parse_copy(&probe, ctx, argc, argv, err) < 0)
		rc = -1;
	else if (probe.usage.url)
		kerr_set(err, KERR_USAGE, "--prometheus-url names one Prometheus: with several contexts give "
					  "--prometheus NAMESPACE/SERVICE[:PORT], read through each cluster's API server");
	else
		rc = 0;
	probe_once = probe.once;
	top_release(&probe);
	if (devnull)
		quiet.errout = devnull;
	if (rc < 0 || fleet_connect(&quiet, &tf.f, &tmpl, err) < 0 || fleet_tops_start(&tf, ctx, argc, argv, err) < 0) {
		rc = -1;
		goto out;
	}
	if (probe_once)
		rc = fleet_once_wait(&tf, err) < 0 ? -1 : fleet_print_once(&tf, ctx->out, err);
	else
		rc = show_with(fleet_loop, &tf, true, err);
	/* what failed is said after the frame, or once the screen is given back */
	if (rc == 0) {
		fleet_count_failed(&tf.f);
		fleet_print_errors(ctx, &tf.f);
		rc = fleet_exit_code(ctx, &tf.f);
	}
out:
	for (size_t i = 0; tf.tops && i < tf.f.n; i++) {
		memset(&tf.tops[i].cluster, 0, sizeof(tf.tops[i].cluster)); /* the fleet's */
		top_release(&tf.tops[i]);
	}
	for (size_t i = 0; tf.lines && i < tf.f.n; i++)
		free(tf.lines[i]);
	free(tf.lines);
	free(tf.view);
	if (tf.have_shown)
		tui_screen_release(&tf.shown);
	free(tf.tops);
	fleet_release(&tf.f);
	if (devnull)
		fclose(devnull);
	return rc;
}

int top_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct top t;
	int rc = -1;

	if (cluster_fleet_asked(ctx))
		return top_fleet_run(ctx, argc, argv, err);
	memset(&t, 0, sizeof(t));
	if (top_setup(&t, ctx, argc, argv, err) == 0 && lists_start(&t, err) == 0)
		rc = t.once ? show_once(&t, err) : show(&t, err);
	top_release(&t);
	return rc;
}
