/* Where the client waits (loop.c) against the fake API server: a refused
 * connection, retries after 429, the request deadline, and polling of
 * asynchronous lists together with a caller's descriptor. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakeapi_test_util.h"

TestSuite(loop, .fini = fake_stop_all);

Test(loop, refused_port)
{
	struct kube_config cfg = {0};
	struct kube_client *c;
	struct kerr err = KERR_INIT;
	json_t *j = NULL;
	char *s;
	int port;

	/* a port nobody listens on: bind one, close it */
	{
		struct fake f;

		fake_start(&f, 0, 0);
		port = f.port;
		fake_stop(&f);
	}
	cfg.server = malloc(64);
	snprintf(cfg.server, 64, "https://127.0.0.1:%d", port);
	cr_assert_eq(kube_client_new(&cfg, NULL, &c, &err), 0);
	cr_assert_eq(kube_get_json(c, "/api/v1/nodes", NULL, &j, &err), -1);
	cr_assert_eq(err.kind, KERR_REFUSED);
	s = t_printed(&err);
	{
		char want[160];

		snprintf(want, sizeof(want),
			 "The connection to the server 127.0.0.1:%d was refused - did you specify the right host or "
			 "port?\n",
			 port);
		cr_assert_str_eq(s, want);
	}
	free(s);
	kerr_release(&err);
	kube_client_free(c);
	free(cfg.server);
}

Test(loop, retry_after_429_then_success_and_500_without_is_final)
{
	struct fake_session s;
	json_t *j = NULL;
	struct timespec t0, t1;

	session_open(&s, 1, 0, "admin");
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"status\",\"code\":429,"
		    "\"retry_after\":1},\"times\":2}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), 0, "%s", s.err.message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_geq(t1.tv_sec - t0.tv_sec, 1, "Retry-After was not honoured");
	json_decref(j);
	cr_assert_eq(session_count(&s, "GET", "/api/v1/nodes"), 3);

	json_decref(control(&s.f, "DELETE", "/_fake/requests", NULL));
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"status\",\"code\":500},"
		    "\"times\":1}");
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), -1);
	t_assert_printed(&s.err, "Error from server (InternalError): Internal error occurred: injected fault\n");
	cr_assert_eq(session_count(&s, "GET", "/api/v1/nodes"), 1);
	session_close(&s);
}

static void on_done(void *ud, const struct kerr *e)
{
	*(int *)ud = e ? -1 : 1;
}

Test(loop, async_list_and_poll_with_fd)
{
	struct fake_session s;
	struct kube_list l;
	struct kube_async_list *a;
	int done = 0, fds[2];

	session_open(&s, 3, 33, "admin");
	l = list_of("/api/v1/pods", OBJ_POD, &s.g);
	l.limit = 10;
	cr_assert_eq(kube_list_start(s.cl.c, &l, on_done, &done, &a, &s.err), 0);
	session_poll_until(&s, done, 500);
	cr_assert_eq(done, 1);
	cr_assert_eq(s.g.pods, 33);
	kube_async_list_free(a);

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "x", 1), 1);
	cr_assert_eq(kube_client_poll(s.cl.c, fds[0], 2000, &s.err), 1);
	close(fds[0]);
	close(fds[1]);
	kube_list_release(&l);
	session_close(&s);
}

Test(loop, request_timeout_is_a_deadline_and_a_query_parameter)
{
	struct fake_session s;
	json_t *j = NULL, *log, *q;
	struct timespec t0, t1;

	session_open_opts(&s, 2, 0, NULL, "admin", (struct kube_client_options){.request_timeout_ms = 1000});
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), 0, "%s", s.err.message);
	json_decref(j);
	session_list(&s, "/api/v1/nodes", OBJ_NODE, 0);
	log = requests(&s.f);
	q = json_object_get(json_array_get(log, 0), "query");
	cr_assert_str_eq(json_string_value(json_object_get(q, "timeout")), "1s");
	q = json_object_get(json_array_get(log, 1), "query");
	cr_assert_str_eq(json_string_value(json_object_get(q, "timeout")), "1s");
	cr_assert_str_eq(json_string_value(json_object_get(q, "limit")), "500");
	json_decref(log);

	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"delay\",\"seconds\":3},"
		    "\"times\":1}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_lt(t1.tv_sec - t0.tv_sec, 3, "the deadline was not kept");
	cr_assert_eq(s.err.kind, KERR_TRANSPORT);
	t_assert_printed(&s.err, "Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded "
				 "while awaiting headers)\n");
	session_close(&s);
}

/* Two servers and a refused port on one loop: the lists of all three run at
 * once (two answers held back 1 s each take about 1 s, not 2), and each set
 * ends with its own outcome. */
Test(loop, list_sets_of_several_clients_run_at_once)
{
	struct fake a, b;
	struct client ca, cb, cdead;
	struct kube_loop *loop;
	struct kerr err = KERR_INIT;
	struct got ga = {0}, gb = {0}, gd = {0};
	struct kube_list la, lb, ld;
	struct kube_list_set sets[3];
	struct timespec t0, t1;
	double took;
	int port;

	fake_start(&a, 3, 0);
	fake_start(&b, 5, 0);
	{
		struct fake f;

		fake_start(&f, 0, 0);
		port = f.port;
		fake_stop(&f);
	}
	cr_assert_eq(kube_loop_new(&loop, &err), 0);
	client_open_opts(&ca, &a, NULL, (struct kube_client_options){.loop = loop});
	client_open_opts(&cb, &b, NULL, (struct kube_client_options){.loop = loop});
	client_open_opts(&cdead, &a, NULL, (struct kube_client_options){.loop = loop});
	/* the same configuration, pointed at nobody */
	kube_client_free(cdead.c);
	free(cdead.cfg.server);
	cr_assert_geq(asprintf(&cdead.cfg.server, "https://127.0.0.1:%d", port), 0);
	cr_assert_eq(kube_client_new(&cdead.cfg, &(struct kube_client_options){.loop = loop, .log = cdead.logf},
				     &cdead.c, &err), 0);
	fault(&a, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"delay\",\"seconds\":1},\"times\":1}");
	fault(&b, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"delay\",\"seconds\":1},\"times\":1}");
	la = list_of("/api/v1/nodes", OBJ_NODE, &ga);
	lb = list_of("/api/v1/nodes", OBJ_NODE, &gb);
	ld = list_of("/api/v1/nodes", OBJ_NODE, &gd);
	sets[0] = (struct kube_list_set){.client = ca.c, .lists = &la, .n = 1};
	sets[1] = (struct kube_list_set){.client = cdead.c, .lists = &ld, .n = 1};
	sets[2] = (struct kube_list_set){.client = cb.c, .lists = &lb, .n = 1};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(kube_list_run_sets(sets, 3, &err), 0, "%s", err.message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_eq(sets[0].err.kind, KERR_NONE, "%s", sets[0].err.message);
	cr_assert_eq(sets[2].err.kind, KERR_NONE, "%s", sets[2].err.message);
	cr_assert_eq(sets[1].err.kind, KERR_REFUSED);
	cr_assert_eq(ga.nodes, 3);
	cr_assert_eq(gb.nodes, 5);
	cr_assert_geq(took, 0.9);
	cr_assert_lt(took, 1.8, "the servers were asked one after the other (%.2f s)", took);
	for (int i = 0; i < 3; i++)
		kerr_release(&sets[i].err);
	kube_list_release(&la);
	kube_list_release(&lb);
	kube_list_release(&ld);
	got_reset(&ga);
	got_reset(&gb);
	got_reset(&gd);
	client_close(&ca);
	client_close(&cb);
	client_close(&cdead);
	kube_loop_free(loop);
	fake_stop(&a);
	fake_stop(&b);
}
