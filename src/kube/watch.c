/* Watches: one long GET whose events go through the streaming decoder to
 * the caller, oldest resourceVersions dropped, one event's size capped.
 */
#include "kube.h"
#include "kube_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

struct kube_watch {
	struct kube_client *c;
	struct xfer *x;
	struct watch_decoder *dec;
	bool in_feed, free_pending;
	void (*on_end)(void *ud, const struct kerr *err);
	watch_cb on_event;
	void *ud;
	/* the newest resourceVersion seen, when the watch started from one
	 * that is a number (etcd's are; the API calls them opaque) */
	bool rv_known;
	unsigned long long last_rv;
	unsigned long long since_event; /* bytes fed since the last event ended */
};

/* A resourceVersion as a number; false when it is not one. */
static bool rv_number(const char *s, unsigned long long *ret)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (ULLONG_MAX - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*ret = v;
	return true;
}

static int watch_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	struct kube_watch *w = ud;

	if (w->free_pending) {
		k8s_node_free(ev->node);
		k8s_pod_free(ev->pod);
		ev->node = NULL;
		ev->pod = NULL;
		return kerr_set(err, KERR_OTHER, "watch stopped");
	}
	w->since_event = 0;
	if (w->rv_known && ev->type != WATCH_ERROR) {
		unsigned long long rv;

		if (rv_number(ev->resource_version, &rv)) {
			/* events of one watch only move forward: an older one
			 * would show what the list already replaced */
			if (rv <= w->last_rv && ev->type != WATCH_BOOKMARK) {
				k8s_node_free(ev->node);
				k8s_pod_free(ev->pod);
				ev->node = NULL;
				ev->pod = NULL;
				return 0;
			}
			if (rv > w->last_rv)
				w->last_rv = rv;
		}
	}
	w->c->activity++;
	return w->on_event ? w->on_event(w->ud, ev, err) : 0;
}

static int watch_data(void *ud, const char *buf, size_t n, struct kerr *err)
{
	struct kube_watch *w = ud;
	int r;

	w->in_feed = true;
	r = 0;
	/* in pieces, so that one event larger than an object may be is
	 * caught before it is all in memory */
	while (n && r == 0 && !w->free_pending) {
		size_t take = n < 65536 ? n : 65536;

		w->since_event += take;
		if (w->since_event > w->c->max_object_bytes + 65536) {
			kube_budget_error(err, KERR_REASON_OBJECT_TOO_LARGE, (long)w->c->max_object_bytes,
				     w->x && w->x->path ? w->x->path : "watch");
			r = -1;
			break;
		}
		r = watch_decoder_feed(w->dec, buf, take, err);
		buf += take;
		n -= take;
	}
	w->in_feed = false;
	/* the stream ends with this error; what follows (a list, a new watch)
	 * asks for JSON */
	if (r < 0 && err && err->kind == KERR_DECODE)
		w->c->protobuf_off = true;
	if (w->free_pending) {
		/* freed by its own event callback: the decoder could only go now */
		xfer_free(w->x);
		watch_decoder_free(w->dec);
		free(w);
		return kerr_set(err, KERR_OTHER, "watch stopped");
	}
	return r;
}

static void watch_done(void *ud, struct xfer *x, const struct kerr *err)
{
	struct kube_watch *w = ud;

	w->x = NULL;
	xfer_free(x);
	/* last: the callback may free the watch */
	if (w->on_end)
		w->on_end(w->ud, err);
}

int kube_watch_start(struct kube_client *c, const struct kube_watch_spec *spec, struct kube_watch **ret,
		     struct kerr *err)
{
	struct kube_watch *w;
	char tsec[32];
	char *q;

	if (!c || !spec || !spec->path)
		return kerr_set(err, KERR_OTHER, "invalid watch");
	w = calloc(1, sizeof(*w));
	if (!w)
		return kerr_set(err, KERR_OTHER, "out of memory");
	w->c = c;
	w->on_end = spec->on_end;
	w->on_event = spec->on_event;
	w->ud = spec->ud;
	w->rv_known = rv_number(spec->resource_version, &w->last_rv) && w->last_rv > 0;
	/* client-go's reflector picks 5 to 10 minutes so that watches of many
	 * clients do not all end together */
	snprintf(tsec, sizeof(tsec), "%d", 300 + (int)(now_ms() % 300));
	{
		const char *kv[] = {
			"watch", "1",
			"resourceVersion", spec->resource_version && *spec->resource_version ? spec->resource_version : NULL,
			"allowWatchBookmarks", "true",
			"timeoutSeconds", tsec,
			"labelSelector", spec->label_selector && *spec->label_selector ? spec->label_selector : NULL,
			"fieldSelector", spec->field_selector && *spec->field_selector ? spec->field_selector : NULL,
		};

		q = kube_query_build(kv, 6);
	}
	w->dec = watch_decoder_new(spec->kind, spec->filter, watch_event, w);
	if (!q || !w->dec || !(w->x = xfer_new(c, "GET", spec->path, q))) {
		free(q);
		kube_watch_free(w);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (!c->protobuf_off)
		w->x->accept = ACCEPT_PROTOBUF_WATCH;
	free(q);
	w->x->no_deadline = true;
	/* not the connection a list just finished on: watches on those took
	 * twice the CPU per event and showed changes seconds late */
	w->x->fresh_connection = true;
	w->x->deadline = 0;
	w->x->data = watch_data;
	w->x->done = watch_done;
	w->x->ud = w;
	xfer_queue(w->x, 0);
	*ret = w;
	return 0;
}

void kube_watch_free(struct kube_watch *w)
{
	if (!w)
		return;
	if (w->in_feed) {
		w->free_pending = true;
		return;
	}
	if (w->x)
		xfer_free(w->x);
	watch_decoder_free(w->dec);
	free(w);
}
