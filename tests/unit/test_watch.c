/* Watches (watch.c) against the fake API server: events split across
 * chunks, bookmarks, an expired resourceVersion, and a watch freed from its
 * own event. */
#include <criterion/criterion.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeapi_test_util.h"

TestSuite(watch, .fini = fake_stop_all);

struct wstate {
	int added, modified, deleted, bookmarks, errors;
	long error_code;
	bool ended;
	struct kerr end_err;
};

static int on_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	struct wstate *s = ud;

	(void)err;
	switch (ev->type) {
	case WATCH_ADDED: s->added++; break;
	case WATCH_MODIFIED: s->modified++; break;
	case WATCH_DELETED: s->deleted++; break;
	case WATCH_BOOKMARK: s->bookmarks++; break;
	case WATCH_ERROR:
		s->errors++;
		s->error_code = ev->error_code;
		break;
	}
	k8s_pod_free(ev->pod);
	k8s_node_free(ev->node);
	return 0;
}

static void on_end(void *ud, const struct kerr *err)
{
	struct wstate *s = ud;

	s->ended = true;
	if (err)
		kerr_set(&s->end_err, err->kind, "%s", err->message);
}

Test(watch, watch_events_split_across_chunks_and_bookmarks)
{
	struct fake_session s;
	struct kube_list l;
	struct wstate ws = {0};
	struct kube_watch *w;
	struct kube_watch_spec spec = {.path = "/api/v1/pods", .kind = OBJ_POD, .on_event = on_event,
				       .on_end = on_end, .ud = &ws};
	json_t *pod;

	session_open_opts(&s, 1, 2, "--bookmark-interval 0.3", "admin", (struct kube_client_options){0});
	l = list_of("/api/v1/pods", OBJ_POD, &s.g);
	session_run(&s, &l, 1);
	spec.resource_version = l.resource_version;
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\",\"query_contains\":\"watch\"},"
		  "\"fault\":{\"type\":\"drip\",\"bytes_per_second\":400},\"times\":1}");
	cr_assert_eq(kube_watch_start(s.cl.c, &spec, &w, &s.err), 0);
	pod = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s,s:[{s:s}]}}", "kind", "Pod", "apiVersion", "v1", "metadata",
			"name", "new-pod", "namespace", "default", "spec", "nodeName", "node-0000", "containers",
			"name", "c");
	{
		char *body = json_dumps(pod, JSON_COMPACT);

		json_decref(control(&s.f, "POST", "/_fake/objects", body));
		free(body);
	}
	json_decref(control(&s.f, "DELETE", "/_fake/objects/pods/default/pod-00000", NULL));
	session_poll_until(&s, ws.added >= 1 && ws.deleted >= 1 && ws.bookmarks >= 1, 200);
	cr_assert_eq(ws.added, 1);
	cr_assert_geq(ws.deleted, 1);
	cr_assert_geq(ws.bookmarks, 1);
	cr_assert(!ws.ended);
	kube_watch_free(w);
	json_decref(pod);

	/* too old a resourceVersion: an ERROR event with 410 */
	memset(&ws, 0, sizeof(ws));
	spec.resource_version = "1";
	json_decref(control(&s.f, "POST", "/_fake/reset", NULL));
	cr_assert_eq(kube_watch_start(s.cl.c, &spec, &w, &s.err), 0);
	session_poll_until(&s, ws.ended, 200);
	cr_assert_eq(ws.errors, 1);
	cr_assert_eq(ws.error_code, 410);
	cr_assert(ws.ended, "the stream should end after the ERROR event");
	cr_assert_eq(ws.end_err.kind, KERR_NONE, "%s", ws.end_err.message);
	kube_watch_free(w);
	kube_list_release(&l);
	session_close(&s);
}

struct stopper {
	struct kube_watch *w;
	int events;
};

static int stop_on_first(void *ud, struct watch_event *ev, struct kerr *err)
{
	struct stopper *s = ud;

	(void)err;
	s->events++;
	k8s_pod_free(ev->pod);
	k8s_node_free(ev->node);
	kube_watch_free(s->w);
	s->w = NULL;
	return 0;
}

Test(watch, watch_freed_from_its_own_event)
{
	struct fake_session s;
	struct stopper st = {0};
	struct kube_watch_spec spec = {.path = "/api/v1/pods", .kind = OBJ_POD, .on_event = stop_on_first,
				       .ud = &st};

	session_open(&s, 1, 5, "admin");
	/* no resourceVersion: the server starts with ADDED for every pod, in one read */
	cr_assert_eq(kube_watch_start(s.cl.c, &spec, &st.w, &s.err), 0);
	session_poll_until(&s, !st.w, 200);
	cr_assert_null(st.w);
	for (int i = 0; i < 3; i++)
		cr_assert_geq(kube_client_poll(s.cl.c, -1, 100, &s.err), 0);
	cr_assert_eq(st.events, 1);
	session_close(&s);
}
