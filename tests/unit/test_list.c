/* Paged lists (list.c) against the fake API server: pages, selectors and
 * headers, expired continue tokens, a connection reset mid-body, two lists
 * at once; and, with CGPU_BENCH=1, the time to list 20,000 pods. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeapi_test_util.h"

TestSuite(list, .fini = fake_stop_all);
TestSuite(bench, .fini = fake_stop_all);

Test(list, token_auth_tls_and_paging_with_selectors)
{
	struct fake_session s;
	struct kube_list l;
	json_t *log, *r;
	size_t i, pages = 0;

	session_open(&s, 3, 45, "admin-token");
	l = list_of("/api/v1/pods", OBJ_POD, &s.g);
	l.limit = 10;
	l.label_selector = "app=bench";
	l.field_selector = "status.phase!=Failed";
	session_run(&s, &l, 1);
	cr_assert_eq(s.g.pods, 45);
	cr_assert_eq(s.g.metas, 5);
	cr_assert_not_null(l.resource_version);
	log = requests(&s.f);
	json_array_foreach (log, i, r) {
		json_t *q = json_object_get(r, "query"), *h = json_object_get(r, "headers");
		const char *k;
		json_t *v;

		if (strcmp(json_string_value(json_object_get(r, "path")), "/api/v1/pods") != 0)
			continue;
		pages++;
		cr_assert_str_eq(json_string_value(json_object_get(q, "limit")), "10");
		cr_assert_str_eq(json_string_value(json_object_get(q, "labelSelector")), "app=bench");
		cr_assert_str_eq(json_string_value(json_object_get(q, "fieldSelector")), "status.phase!=Failed");
		cr_assert_eq(json_object_get(q, "continue") != NULL, pages > 1);
		json_object_foreach (q, k, v)
			cr_assert(json_is_string(v) && *json_string_value(v), "empty query parameter %s", k);
		cr_assert_str_eq(json_string_value(json_object_get(h, "accept")),
				 "application/vnd.kubernetes.protobuf, application/json");
		cr_assert(strstr(json_string_value(json_object_get(h, "accept-encoding")), "gzip"));
		cr_assert(strstr(json_string_value(json_object_get(h, "user-agent")), ") kubernetes/") != NULL);
		cr_assert_str_eq(json_string_value(json_object_get(r, "user")), "admin");
	}
	cr_assert_eq(pages, 5);
	json_decref(log);
	kube_list_release(&l);
	session_close(&s);
}

Test(list, client_certificate_auth_and_no_selectors_sent)
{
	struct fake_session s;
	json_t *log, *q;

	session_open(&s, 4, 0, "admin");
	session_list(&s, "/api/v1/nodes", OBJ_NODE, 0);
	cr_assert_eq(s.g.nodes, 4);
	log = requests(&s.f);
	cr_assert_eq(json_array_size(log), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(log, 0), "auth")), "certificate");
	q = json_object_get(json_array_get(log, 0), "query");
	cr_assert_eq(json_object_size(q), 1, "only limit is sent");
	cr_assert_str_eq(json_string_value(json_object_get(q, "limit")), "500");
	json_decref(log);
	session_close(&s);
}

Test(list, continue_expired_restarts_the_list)
{
	struct fake_session s;
	json_t *log;

	session_open(&s, 2, 30, "admin");
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\"},\"fault\":{\"type\":\"expire_continue\"},\"times\":1}");
	session_list(&s, "/api/v1/pods", OBJ_POD, 7);
	cr_assert_eq(s.g.resets, 1);
	cr_assert_eq(s.g.pods, 30, "got %zu pods", s.g.pods);
	/* 410 on the first continue, then 5 pages again */
	cr_assert_eq(session_count(&s, "GET", "/api/v1/pods"), 2 + 5);

	/* always expired: restart once, then one unpaginated list */
	got_reset(&s.g);
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\"},\"fault\":{\"type\":\"expire_continue\"},\"times\":5}");
	json_decref(control(&s.f, "DELETE", "/_fake/requests", NULL));
	session_list(&s, "/api/v1/pods", OBJ_POD, 7);
	cr_assert_eq(s.g.resets, 2);
	cr_assert_eq(s.g.pods, 30);
	log = requests(&s.f);
	cr_assert_eq(count_requests(log, "GET", "/api/v1/pods"), 5);
	cr_assert_null(json_object_get(json_object_get(json_array_get(log, 4), "query"), "limit"));
	json_decref(log);
	session_close(&s);
}

Test(list, reset_mid_body_is_retried_for_lists)
{
	struct fake_session s;

	session_open(&s, 2, 20, "admin");
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\",\"query_contains\":\"continue\"},"
		    "\"fault\":{\"type\":\"reset\"},\"times\":1}");
	session_list(&s, "/api/v1/pods", OBJ_POD, 8);
	cr_assert_eq(s.g.pods, 20);
	cr_assert_geq(session_count(&s, "GET", "/api/v1/pods"), 4);
	session_close(&s);
}

Test(list, two_lists_at_once)
{
	struct fake_session s;
	struct got gp = {0};
	struct kube_list l[2];

	session_open(&s, 25, 60, "admin");
	l[0] = list_of("/api/v1/nodes", OBJ_NODE, &s.g);
	l[0].limit = 4;
	l[1] = list_of("/api/v1/pods", OBJ_POD, &gp);
	l[1].limit = 9;
	session_run(&s, l, 2);
	cr_assert_eq(s.g.nodes, 25);
	cr_assert_eq(gp.pods, 60);
	cr_assert_not_null(l[0].resource_version);
	cr_assert_not_null(l[1].resource_version);
	kube_list_release(&l[0]);
	kube_list_release(&l[1]);
	free(gp.last_rv);
	session_close(&s);
}

/* Seconds since t0. */
static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A pod list held by *hold, started in a set of its own. */
struct held {
	struct got g;
	struct kube_list l;
	struct kube_list_set set;
	struct kube_list_sets *run;
};

static void held_start(struct fake_session *s, struct held *h, const bool *hold)
{
	memset(h, 0, sizeof(*h));
	h->l = list_of("/api/v1/pods", OBJ_POD, &h->g);
	h->l.limit = 1000;
	h->l.hold = hold;
	h->set = (struct kube_list_set){.client = s->cl.c, .lists = &h->l, .n = 1};
	cr_assert_eq(kube_list_sets_start(&h->set, 1, &h->run, &s->err), 0);
}

/* Run to the end; the list's own outcome in h->set.err. */
static void held_finish(struct fake_session *s, struct held *h)
{
	cr_assert_eq(kube_list_sets_wait(h->run, &s->err), 0, "%s", s->err.message);
}

static void held_release(struct held *h)
{
	kerr_release(&h->set.err);
	kube_list_release(&h->l);
	free(h->g.last_rv);
}

/* A held list is asked for at once, while another list runs, and nothing
 * of it is read until it is let go; then it comes whole. */
Test(list, a_held_list_is_asked_for_and_read_when_let_go)
{
	struct fake_session s;
	struct held h;
	struct kube_list other;
	bool hold = true;

	/* 800 pods: a body of several of libcurl's reads, sent gzipped */
	session_open(&s, 3, 800, "admin");
	held_start(&s, &h, &hold);
	other = list_of("/api/v1/nodes", OBJ_NODE, &s.g);
	session_run(&s, &other, 1);
	cr_assert_eq(s.g.nodes, 3);
	/* time enough for the pods to have come, were they read */
	for (int i = 0; i < 5; i++)
		cr_assert_geq(kube_client_poll(s.cl.c, -1, 100, &s.err), 0, "%s", s.err.message);
	/* the pods were asked for while the nodes were read, and none taken */
	cr_assert_eq(session_count(&s, "GET", "/api/v1/pods"), 1);
	cr_assert_eq(h.g.pods, 0, "%zu pods read while held", h.g.pods);
	hold = false;
	held_finish(&s, &h);
	cr_assert_eq(h.set.err.kind, KERR_NONE, "%s", h.set.err.message);
	cr_assert_eq(h.g.pods, 800);
	cr_assert_eq(session_count(&s, "GET", "/api/v1/pods"), 1, "asked for once");
	held_release(&h);
	kube_list_release(&other);
	session_close(&s);
}

/* --request-timeout counts from when a held list is let go, not from
 * when it was asked for. */
Test(list, a_held_lists_deadline_starts_when_let_go)
{
	struct fake_session s;
	struct held h;
	struct timespec t0;
	bool hold = true;

	session_open_opts(&s, 2, 800, NULL, "admin", (struct kube_client_options){.request_timeout_ms = 1000});
	held_start(&s, &h, &hold);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seconds_since(&t0) < 2.5)
		cr_assert_geq(kube_client_poll(s.cl.c, -1, 200, &s.err), 0, "%s", s.err.message);
	cr_assert_eq(h.g.pods, 0);
	hold = false;
	held_finish(&s, &h);
	cr_assert_eq(h.set.err.kind, KERR_NONE, "held 2.5 s with a 1 s timeout: %s", h.set.err.message);
	cr_assert_eq(h.g.pods, 800);
	held_release(&h);
	session_close(&s);
}

/* A held list whose server does not answer times out all the same. */
Test(list, a_held_list_whose_server_does_not_answer_times_out)
{
	struct fake_session s;
	struct held h;
	struct timespec t0;
	bool hold = true;

	session_open_opts(&s, 2, 20, NULL, "admin", (struct kube_client_options){.request_timeout_ms = 1000});
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\"},\"fault\":{\"type\":\"delay\",\"seconds\":4},\"times\":0}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	held_start(&s, &h, &hold);
	held_finish(&s, &h);
	cr_assert_lt(seconds_since(&t0), 3.0, "held %.1f s", seconds_since(&t0));
	cr_assert_eq(h.set.err.kind, KERR_TRANSPORT, "%s", h.set.err.message);
	cr_assert(strstr(h.set.err.message, "awaiting headers"), "%s", h.set.err.message);
	held_release(&h);
	session_close(&s);
}

/* --- measurement (CGPU_BENCH=1) ------------------------------------------------ */

/* The same pages fetched with bare libcurl and thrown away: the server's
 * share of the time, without any decoding. */
static double bare_paging(struct fake *f, const char *token)
{
	struct t_body b = {0};
	CURL *e = curl_easy_init();
	struct curl_slist *h = NULL;
	struct timespec t0;
	char auth[256], url[1024], cont[512] = "";

	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	h = curl_slist_append(h, auth);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_CAINFO, f->ca);
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "gzip");
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, t_body_grow);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		const char *c;

		snprintf(url, sizeof(url), "%s/api/v1/pods?%s%s%slimit=500", f->url, *cont ? "continue=" : "", cont,
			 *cont ? "&" : "");
		curl_easy_setopt(e, CURLOPT_URL, url);
		b.len = 0;
		cr_assert_eq(curl_easy_perform(e), CURLE_OK);
		c = b.d ? strstr(b.d, "\"continue\":\"") : NULL;
		cont[0] = '\0';
		if (c) {
			c += 12;
			snprintf(cont, sizeof(cont), "%.*s", (int)(strchr(c, '"') - c), c);
		}
	} while (*cont);
	free(b.d);
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
	return seconds_since(&t0);
}

/* Seconds to list every pod in pages of limit (0: the client's own). */
static double timed_list(struct fake_session *s, unsigned limit)
{
	struct timespec t0;
	double t;

	got_reset(&s->g);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	session_list(s, "/api/v1/pods", OBJ_POD, limit);
	t = seconds_since(&t0);
	cr_assert_eq(s->g.pods, 20000);
	return t;
}

Test(bench, list_20000_pods, .timeout = 300)
{
	struct fake_session s;
	struct timespec t0;
	char cmd[1024];
	double ours, theirs, one;

	if (!getenv("CGPU_BENCH"))
		cr_skip_test("set CGPU_BENCH=1 to measure");
	session_open_opts(&s, 200, 20000, "--prerender", "admin-token",
			  (struct kube_client_options){.verbosity = getenv("CGPU_BENCH_V") ? atoi(getenv("CGPU_BENCH_V")) : 0});
	/* warm the server's caches once, as a user repeating a command would */
	timed_list(&s, 0);
	ours = timed_list(&s, 0);
	snprintf(cmd, sizeof(cmd),
		 "curl -s --compressed --cacert %s -H 'Authorization: Bearer %s' '%s/api/v1/pods' > /dev/null", s.f.ca,
		 s.cl.cfg.token, s.f.url);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(system(cmd), 0);
	theirs = seconds_since(&t0);
	one = timed_list(&s, 100000);
	fprintf(stderr,
		"bench: 20000 pods decoded: paged (limit 500) %.3f s, one page %.3f s; plain curl, one unpaged GET "
		"to /dev/null: %.3f s; bare libcurl over the same 40 pages, no decoding: %.3f s\n",
		ours, one, theirs, bare_paging(&s.f, s.cl.cfg.token));
	if (getenv("CGPU_BENCH_V"))
		fputs(client_log(&s.cl), stderr);
	session_close(&s);
}
