/* The live view's feeds: see top_feed.h. */
#include "top_feed.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* Watches that fail this many times in a row give way to periodic lists. */
#define WATCH_MAX_FAILURES 3
/* A watch that ends sooner than this without an event counts as failed. */
#define WATCH_MIN_LIFE_MS 1000

long long top_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_error(struct top_feed *f, const struct kerr *err)
{
	/* the same words kubectl would print, on one line, in the visible form */
	char *text = cli_error_line(err);
	size_t len = text ? strlen(text) : 0;

	while (len && text[len - 1] == ' ')
		text[--len] = '\0';
	free(f->error);
	f->error = text;
}

static void clear_error(struct top_feed *f)
{
	free(f->error);
	f->error = NULL;
}

/* The error an asynchronous list or watch ended with, kept for top_feed_step;
 * none when it ended well. */
static void keep_end_error(struct kerr *dst, const struct kerr *err)
{
	if (err && err->kind != KERR_NONE)
		kerr_copy(dst, err);
	else
		kerr_release(dst);
}

/* What the live model said of an object it could not take: the stream
 * stops, and the model is built again. */
static int taken(struct top_feed *f, int rc)
{
	if (rc < 0)
		f->broken = true;
	return rc;
}

static int sink_node(void *ud, struct k8s_node *node, struct kerr *err)
{
	struct top_feed *f = ud;
	int rc = taken(f, model_live_put_node(f->live, node, err));

	f->received++;
	k8s_node_free(node);
	return rc;
}

static int sink_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	struct top_feed *f = ud;
	int rc = taken(f, model_live_put_pod(f->live, pod, err));

	f->received++;
	k8s_pod_free(pod);
	return rc;
}

static void list_done(void *ud, const struct kerr *err)
{
	struct top_feed *f = ud;

	f->list_finished = true;
	keep_end_error(&f->list_err, err);
}

static int list_start(struct top_feed *f, struct kerr *err)
{
	kube_list_release(&f->list);
	memset(&f->list, 0, sizeof(f->list));
	f->list.path = f->path;
	f->list.label_selector = f->label_selector;
	f->list.field_selector = f->field_selector;
	f->list.kind = f->kind;
	f->list.from_cache = true; /* then watched from the list's resourceVersion */
	f->list.filter = f->filter;
	/* a list that starts over after 410 Expired delivers into the same
	 * model: what it delivered already is found in place */
	f->list.sink = (struct decode_sink){ .node = sink_node, .pod = sink_pod, .ud = f };
	f->list_finished = false;
	f->next_list = 0;
	model_live_list_begin(f->live, f->kind);
	return kube_list_start(f->client, &f->list, list_done, f, &f->alist, err);
}

static int watch_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	struct top_feed *f = ud;
	void *obj = f->kind == OBJ_NODE ? (void *)ev->node : (void *)ev->pod;
	/* taken first: the event's resourceVersion may point into the object */
	char *rv = ev->resource_version && *ev->resource_version ? strdup(ev->resource_version) : NULL;
	int rc = 0;

	ev->node = NULL;
	ev->pod = NULL;
	f->received++;
	if (ev->type == WATCH_ADDED || ev->type == WATCH_MODIFIED)
		rc = f->kind == OBJ_NODE ? model_live_put_node(f->live, obj, err) : model_live_put_pod(f->live, obj, err);
	else if (ev->type == WATCH_DELETED)
		rc = f->kind == OBJ_NODE ? model_live_delete_node(f->live, obj, err)
					 : model_live_delete_pod(f->live, obj, err);
	if (obj && f->kind == OBJ_NODE)
		k8s_node_free(obj);
	else if (obj)
		k8s_pod_free(obj);
	if (taken(f, rc) < 0 || ev->type == WATCH_ERROR) {
		free(rv);
		if (ev->type == WATCH_ERROR && ev->error_code == 410) {
			f->expired = true;
		} else if (ev->type == WATCH_ERROR) {
			struct kerr e = KERR_INIT;

			kerr_set_status(&e, ev->error_code, ev->error_reason, ev->error_message);
			set_error(f, &e);
			kerr_release(&e);
		}
		return rc;
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
	struct top_feed *f = ud;

	f->watch_ended = true;
	keep_end_error(&f->watch_err, err);
}

static int watch_start(struct top_feed *f, struct kerr *err)
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
	f->watch_started = top_now_ms();
	return kube_watch_start(f->client, &spec, &f->watch, err);
}

/* Show the error (when there is one) and list again after an interval. */
static void retry_later(struct top_feed *f, const struct kerr *err, long long now)
{
	if (err)
		set_error(f, err);
	f->next_list = now + f->refresh_ms;
}

/* A list that finished: its end taken (what it did not deliver goes), the
 * watch started from its resourceVersion.  -1 when fatal. */
static int list_finished(struct top_feed *f, long long now)
{
	struct kerr err = KERR_INIT;

	kube_async_list_free(f->alist);
	f->alist = NULL;
	if (f->list_err.kind != KERR_NONE) {
		/* a first list refused, whatever the reason, ends the view
		 * with its error, as the other commands end */
		if (!f->loaded || f->lists_must_succeed) {
			kerr_copy(&f->fatal, &f->list_err);
			return -1;
		}
		retry_later(f, &f->list_err, now);
		return 0;
	}
	if (taken(f, model_live_list_end(f->live, f->kind, &err)) < 0) {
		kerr_release(&err);
		return 0;
	}
	free(f->rv);
	f->rv = f->list.resource_version ? strdup(f->list.resource_version) : NULL;
	f->loaded = true;
	f->ok_since = now;
	clear_error(f);
	if (f->polling) {
		retry_later(f, NULL, now);
	} else if (watch_start(f, &err) < 0) {
		f->polling = true;
		retry_later(f, &err, now);
	}
	kerr_release(&err);
	return 0;
}

/* A watch that ended: 410 lists again, a refusal polls, a failure retries
 * (and polls after a few), an end in time watches on. */
static void watch_ended(struct top_feed *f, long long now)
{
	struct kerr err = KERR_INIT;
	bool failed = f->watch_err.kind != KERR_NONE || (!f->watch_events && now - f->watch_started < WATCH_MIN_LIFE_MS);

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
	kerr_release(&err);
}

int top_feed_step(struct top_feed *f, long long now)
{
	struct kerr err = KERR_INIT;

	if (f->alist && f->list_finished && list_finished(f, now) < 0)
		return -1;
	if (f->watch && f->expired) {
		/* 410: the resourceVersion is too old; list again, then watch anew */
		kube_watch_free(f->watch);
		f->watch = NULL;
		f->next_list = now;
	} else if (f->watch && f->watch_ended) {
		watch_ended(f, now);
	}
	if (f->watch && !f->watch_ended)
		f->ok_since = now;
	if (!f->alist && !f->watch && f->next_list && now >= f->next_list && list_start(f, &err) < 0)
		retry_later(f, &err, now);
	kerr_release(&err);
	return 0;
}

int top_feed_start(struct top_feed *f, struct kerr *err)
{
	return list_start(f, err);
}

void top_feed_restart(struct top_feed *f, long long now)
{
	kube_async_list_free(f->alist);
	kube_watch_free(f->watch);
	f->alist = NULL;
	f->watch = NULL;
	f->broken = f->loaded = false;
	f->next_list = now;
}

void top_feed_relist(struct top_feed *f, long long now)
{
	/* a list under way delivered some objects read before the change:
	 * it starts over too */
	kube_async_list_free(f->alist);
	kube_watch_free(f->watch);
	f->alist = NULL;
	f->watch = NULL;
	f->next_list = now;
}

void top_feed_release(struct top_feed *f)
{
	kube_async_list_free(f->alist);
	kube_watch_free(f->watch);
	kube_list_release(&f->list);
	kerr_release(&f->list_err);
	kerr_release(&f->watch_err);
	kerr_release(&f->fatal);
	free(f->rv);
	free(f->error);
}
