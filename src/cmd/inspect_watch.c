/* `inspect -w`: see inspect_watch.h. */
#include "inspect_watch.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "model_live.h"
#include "render.h"
#include "top_feed.h"

/* Long waits are cut to this, so that a signal is seen soon. */
#define WAIT_MAX_MS 250

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

struct watching {
	const struct inspect_watch_spec *spec;
	struct cli_ctx *ctx;
	struct model filter_model; /* for its decode filters */
	bool filter_model_set;
	struct model_live live;
	bool live_set;
	struct top_feed feeds[2];
	bool have_model;
	long long settled;
	char *shown; /* the last table printed */
};

static int feeds_start(struct watching *w, struct kerr *err)
{
	const struct inspect_watch_spec *sp = w->spec;

	if (model_init(&w->filter_model, sp->mo) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	w->filter_model_set = true;
	for (int i = 0; i < 2; i++) {
		struct top_feed *f = &w->feeds[i];

		f->client = sp->cluster->client;
		f->live = &w->live;
		f->refresh_ms = sp->refresh_ms;
		/* a server that is gone ends the watch, as kubectl get -w ends */
		f->lists_must_succeed = true;
		f->kind = i == 0 ? OBJ_NODE : OBJ_POD;
		f->path = i == 0 ? "/api/v1/nodes" : "/api/v1/pods";
		f->label_selector = i == 0 ? sp->sel->label_selector : NULL;
		f->field_selector = i == 0 ? NULL : CLUSTER_ACTIVE_PODS;
		f->filter = i == 0 ? model_node_filter(&w->filter_model) : model_pod_filter(&w->filter_model);
		if (top_feed_start(f, err) < 0)
			return -1;
	}
	return 0;
}

/* The live model built again from nothing (it ran out of memory). */
static int rebuild(struct watching *w, long long now, struct kerr *err)
{
	model_live_release(&w->live);
	w->live_set = false;
	if (model_live_init(&w->live, w->spec->mo) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	w->live_set = true;
	for (int i = 0; i < 2; i++)
		top_feed_restart(&w->feeds[i], now);
	w->have_model = false;
	return 0;
}

/* The table of the settled model, printed where it reads otherwise than
 * the last one (the first with the warnings under it). */
static int print_changed(struct watching *w, struct kerr *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	FILE *out = w->ctx->out;
	int rc;

	if (!mem)
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = w->spec->print(mem, &w->live.m, w->spec->ud, err);
	if (fclose(mem) != 0 && rc == 0)
		rc = kerr_set(err, KERR_OTHER, "out of memory");
	if (rc < 0 || (w->shown && strcmp(text, w->shown) == 0)) {
		free(text);
		return rc;
	}
	/* out may write through stdout (the visible form): both flushed, so
	 * that a pipe has the table now */
	if ((w->shown && w->spec->separate && fputc('\n', out) == EOF) || fputs(text, out) == EOF ||
	    fflush(out) == EOF || fflush(stdout) == EOF) {
		free(text);
		return kerr_set(err, KERR_OTHER, "cannot write the table");
	}
	if (!w->shown && render_warnings(w->ctx->errout, &w->live.m, err) < 0) {
		free(text);
		return -1;
	}
	free(w->shown);
	w->shown = text;
	return 0;
}

/* The feeds moved on, and the model settled and printed where changes are
 * due: the first as soon as both lists are in, then at most once a
 * refresh interval. */
static int step(struct watching *w, long long now, struct kerr *err)
{
	struct kerr e = KERR_INIT;

	for (int i = 0; i < 2; i++) {
		if (top_feed_step(&w->feeds[i], now) < 0) {
			*err = w->feeds[i].fatal;
			memset(&w->feeds[i].fatal, 0, sizeof(w->feeds[i].fatal));
			return -1;
		}
	}
	if (w->feeds[0].broken || w->feeds[1].broken)
		return rebuild(w, now, err);
	if (!w->feeds[0].loaded || !w->feeds[1].loaded)
		return 0;
	if (w->have_model && (!model_live_pending(&w->live) || now - w->settled < w->spec->refresh_ms))
		return 0;
	if (model_live_settle(&w->live, &e) < 0) {
		kerr_release(&e);
		return rebuild(w, now, err);
	}
	w->have_model = true;
	w->settled = now;
	return print_changed(w, err);
}

/* How long to wait: until a settle is due, and never long. */
static int wait_ms(const struct watching *w, long long now)
{
	long long wait = WAIT_MAX_MS;

	if (w->have_model && model_live_pending(&w->live) && w->settled + w->spec->refresh_ms - now < wait)
		wait = w->settled + w->spec->refresh_ms - now;
	for (int i = 0; i < 2; i++)
		if (w->feeds[i].next_list && w->feeds[i].next_list - now < wait)
			wait = w->feeds[i].next_list - now;
	return wait < 1 ? 1 : (int)wait;
}

static int loop(struct watching *w, struct kerr *err)
{
	while (!got_signal) {
		long long now = top_now_ms();

		if (step(w, now, err) < 0)
			return -1;
		if (got_signal)
			break;
		if (kube_client_poll(w->spec->cluster->client, -1, wait_ms(w, now), err) < 0)
			return -1;
	}
	return 0;
}

int inspect_watch_run(struct cli_ctx *ctx, const struct inspect_watch_spec *spec, struct kerr *err)
{
	struct watching w = { .spec = spec, .ctx = ctx };
	struct sigaction sa, old_int, old_term;
	int rc = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (model_live_init(&w.live, spec->mo) < 0)
		kerr_set(err, KERR_OTHER, "out of memory");
	else if ((w.live_set = true) && feeds_start(&w, err) == 0)
		rc = loop(&w, err);
	/* interrupted, as kubectl get -w is: the end of the watch, not a failure */
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	got_signal = 0;
	top_feed_release(&w.feeds[0]);
	top_feed_release(&w.feeds[1]);
	if (w.live_set)
		model_live_release(&w.live);
	if (w.filter_model_set)
		model_release(&w.filter_model);
	free(w.shown);
	return rc;
}
