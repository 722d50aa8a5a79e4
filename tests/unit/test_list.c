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
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	json_t *log, *r;
	size_t i, pages = 0;

	fake_start(&f, 3, 45);
	client_open(&cl, &f, "admin-token");
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	l.limit = 10;
	l.label_selector = "app=bench";
	l.field_selector = "status.phase!=Failed";
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	cr_assert_eq(g.pods, 45);
	cr_assert_eq(g.metas, 5);
	cr_assert_not_null(l.resource_version);
	log = requests(&f);
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
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

Test(list, client_certificate_auth_and_no_selectors_sent)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	json_t *log, *q;

	fake_start(&f, 4, 0);
	client_open(&cl, &f, "admin");
	l = list_of("/api/v1/nodes", OBJ_NODE, &g);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	cr_assert_eq(g.nodes, 4);
	log = requests(&f);
	cr_assert_eq(json_array_size(log), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(log, 0), "auth")), "certificate");
	q = json_object_get(json_array_get(log, 0), "query");
	cr_assert_eq(json_object_size(q), 1, "only limit is sent");
	cr_assert_str_eq(json_string_value(json_object_get(q, "limit")), "500");
	json_decref(log);
	kube_list_release(&l);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

Test(list, continue_expired_restarts_the_list)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	json_t *log;

	fake_start(&f, 2, 30);
	client_open(&cl, &f, "admin");
	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\"},\"fault\":{\"type\":\"expire_continue\"},\"times\":1}");
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	l.limit = 7;
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	cr_assert_eq(g.resets, 1);
	cr_assert_eq(g.pods, 30, "got %zu pods", g.pods);
	log = requests(&f);
	/* 410 on the first continue, then 5 pages again */
	cr_assert_eq(count_requests(log, "GET", "/api/v1/pods"), 2 + 5);
	json_decref(log);
	kube_list_release(&l);
	free(g.last_rv);

	/* always expired: restart once, then one unpaginated list */
	memset(&g, 0, sizeof(g));
	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\"},\"fault\":{\"type\":\"expire_continue\"},\"times\":5}");
	json_decref(control(&f, "DELETE", "/_fake/requests", NULL));
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	l.limit = 7;
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	cr_assert_eq(g.resets, 2);
	cr_assert_eq(g.pods, 30);
	log = requests(&f);
	cr_assert_eq(count_requests(log, "GET", "/api/v1/pods"), 5);
	cr_assert_null(json_object_get(json_object_get(json_array_get(log, 4), "query"), "limit"));
	json_decref(log);
	kube_list_release(&l);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

Test(list, reset_mid_body_is_retried_for_lists)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	json_t *log;

	fake_start(&f, 2, 20);
	client_open(&cl, &f, "admin");
	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\",\"query_contains\":\"continue\"},"
		  "\"fault\":{\"type\":\"reset\"},\"times\":1}");
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	l.limit = 8;
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	cr_assert_eq(g.pods, 20);
	log = requests(&f);
	cr_assert_geq(count_requests(log, "GET", "/api/v1/pods"), 4);
	json_decref(log);
	kube_list_release(&l);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

Test(list, two_lists_at_once)
{
	struct fake f;
	struct client cl;
	struct got gn = {0}, gp = {0};
	struct kube_list l[2];
	struct kerr err = KERR_INIT;

	fake_start(&f, 25, 60);
	client_open(&cl, &f, "admin");
	l[0] = list_of("/api/v1/nodes", OBJ_NODE, &gn);
	l[0].limit = 4;
	l[1] = list_of("/api/v1/pods", OBJ_POD, &gp);
	l[1].limit = 9;
	cr_assert_eq(kube_list_run(cl.c, l, 2, &err), 0, "%s", err.message);
	cr_assert_eq(gn.nodes, 25);
	cr_assert_eq(gp.pods, 60);
	cr_assert_not_null(l[0].resource_version);
	cr_assert_not_null(l[1].resource_version);
	kube_list_release(&l[0]);
	kube_list_release(&l[1]);
	free(gn.last_rv);
	free(gp.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

/* --- measurement (CGPU_BENCH=1) ------------------------------------------------ */

/* The same pages fetched with bare libcurl and thrown away: the server's
 * share of the time, without any decoding. */
static double bare_paging(struct fake *f, const char *token)
{
	struct t_body b = {0};
	CURL *e = curl_easy_init();
	struct curl_slist *h = NULL;
	struct timespec t0, t1;
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
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(b.d);
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

Test(bench, list_20000_pods, .timeout = 300)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	struct timespec t0, t1;
	char cmd[1024];
	double ours, theirs, one;

	if (!getenv("CGPU_BENCH"))
		cr_skip_test("set CGPU_BENCH=1 to measure");
	fake_start_args(&f, 200, 20000, "--prerender");
	client_open_opts(&cl, &f, "admin-token",
			 (struct kube_client_options){.verbosity = getenv("CGPU_BENCH_V") ? atoi(getenv("CGPU_BENCH_V")) : 0});
	/* warm the server's caches once, as a user repeating a command would */
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	kube_list_release(&l);
	memset(&g, 0, sizeof(g));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ours = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_eq(g.pods, 20000);
	snprintf(cmd, sizeof(cmd),
		 "curl -s --compressed --cacert %s -H 'Authorization: Bearer %s' '%s/api/v1/pods' > /dev/null", f.ca,
		 cl.cfg.token, f.url);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(system(cmd), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	theirs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	kube_list_release(&l);
	memset(&g, 0, sizeof(g));
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	l.limit = 100000;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	one = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_eq(g.pods, 20000);
	fprintf(stderr,
		"bench: 20000 pods decoded: paged (limit 500) %.3f s, one page %.3f s; plain curl, one unpaged GET "
		"to /dev/null: %.3f s; bare libcurl over the same 40 pages, no decoding: %.3f s\n",
		ours, one, theirs, bare_paging(&f, cl.cfg.token));
	if (getenv("CGPU_BENCH_V"))
		fputs(client_log(&cl), stderr);
	kube_list_release(&l);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}
