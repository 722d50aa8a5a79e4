/* The API client: the pure helpers directly, then every behaviour against
 * the fake API server (tests/fakeapi/fakeapi.py) and, for response headers
 * the fake server does not send, a small stand-in written here. */
#include <criterion/criterion.h>

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kube.h"
#include "kube_internal.h"
#include "kerr_test_util.h"
#include "kubeconfig.h"

/* --- pure helpers ------------------------------------------------------------ */

Test(escape, unreserved_kept_rest_encoded)
{
	char *s = kube_escape("spec.nodeName=a b,status.phase!=Failed/~_-");

	cr_assert_str_eq(s, "spec.nodeName%3Da%20b%2Cstatus.phase%21%3DFailed%2F~_-");
	free(s);
	cr_assert_null(kube_escape(NULL));
}

Test(escape, resource_paths)
{
	static const struct {
		const char *gv, *ns, *resource, *name, *want;
	} cases[] = {
		{ "v1", NULL, "nodes", "gpu-node-1", "/api/v1/nodes/gpu-node-1" },
		{ "v1", NULL, "nodes", NULL, "/api/v1/nodes" },
		{ "v1", "ml", "pods", "train-0", "/api/v1/namespaces/ml/pods/train-0" },
		{ "v1", "ml", "events", NULL, "/api/v1/namespaces/ml/events" },
		{ "apps/v1", "kube-system", "daemonsets", "ds", "/apis/apps/v1/namespaces/kube-system/daemonsets/ds" },
		/* names from the command line cannot leave their segment */
		{ "v1", "a/../b", "pods", "x y?z", "/api/v1/namespaces/a%2F..%2Fb/pods/x%20y%3Fz" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = kube_path(cases[i].gv, cases[i].ns, cases[i].resource, cases[i].name);

		cr_assert_str_eq(p, cases[i].want);
		free(p);
	}
}

Test(query, sorted_like_go_and_null_values_dropped)
{
	const char *kv[] = {"limit", "500", "labelSelector", NULL, "fieldSelector", "spec.nodeName=n1", "continue", "a=b"};
	char *q = kube_query_build(kv, 4);

	cr_assert_str_eq(q, "continue=a%3Db&fieldSelector=spec.nodeName%3Dn1&limit=500");
	free(q);
	q = kube_query_build(kv, 0);
	cr_assert_str_eq(q, "");
	free(q);
}

Test(warning, parse_one_and_many)
{
	const char *v = "299 - \"flowschema is deprecated\"";
	char **w = kube_warning_parse(v, strlen(v));

	cr_assert_not_null(w);
	cr_assert_str_eq(w[0], "flowschema is deprecated");
	cr_assert_null(w[1]);
	strv_free(w);

	v = "299 kube-apiserver \"a \\\"quoted\\\" word\" \"Sat, 21 Nov 2026 16:29:54 GMT\", 199 - \"misc\", 299 - \"second\"";
	w = kube_warning_parse(v, strlen(v));
	cr_assert_not_null(w);
	cr_assert_str_eq(w[0], "a \"quoted\" word");
	cr_assert_str_eq(w[1], "second");
	cr_assert_null(w[2]);
	strv_free(w);

	v = "299 - no quotes";
	cr_assert_null(kube_warning_parse(v, strlen(v)));
	v = "299 - \"unterminated";
	cr_assert_null(kube_warning_parse(v, strlen(v)));
	v = "199 - \"not shown\"";
	cr_assert_null(kube_warning_parse(v, strlen(v)));
}

Test(retry, only_429_and_5xx_with_retry_after)
{
	cr_assert_eq(kube_retry_after(429, "1"), 1);
	cr_assert_eq(kube_retry_after(503, " 7 "), 7);
	cr_assert_eq(kube_retry_after(500, "0"), 0);
	cr_assert_eq(kube_retry_after(500, NULL), -1);
	cr_assert_eq(kube_retry_after(404, "1"), -1);
	cr_assert_eq(kube_retry_after(409, "1"), -1);
	cr_assert_eq(kube_retry_after(429, "Wed, 21 Oct 2015 07:28:00 GMT"), -1);
	cr_assert_eq(kube_retry_after(429, "-3"), -1);
}

Test(user_agent, kubectl_shape)
{
	char *ua = kube_user_agent("kubectl-inspect-cgpu", "v1.2.3", "0123456789ab");

	cr_assert_not_null(ua);
	cr_assert(strncmp(ua, "kubectl-inspect-cgpu/v", 22) == 0, "%s", ua);
	cr_assert(strstr(ua, " (linux/") != NULL, "%s", ua);
	cr_assert(strstr(ua, ") kubernetes/0123456789ab") != NULL, "%s", ua);
#if defined(__x86_64__)
	cr_assert(strstr(ua, "(linux/amd64)") != NULL, "%s", ua);
#elif defined(__aarch64__)
	cr_assert(strstr(ua, "(linux/arm64)") != NULL, "%s", ua);
#endif
	free(ua);
}

Test(path_resource, names_like_client_go)
{
	char *r, *n;

	cr_assert_eq(kube_path_resource("/api/v1/nodes", &r, &n), 0);
	cr_assert_str_eq(r, "nodes");
	cr_assert_null(n);
	free(r);
	cr_assert_eq(kube_path_resource("/api/v1/namespaces/default/pods/p1/eviction", &r, &n), 0);
	cr_assert_str_eq(r, "pods");
	cr_assert_str_eq(n, "p1");
	free(r);
	free(n);
	cr_assert_eq(kube_path_resource("/apis/apps/v1/namespaces/kube-system/daemonsets", &r, &n), 0);
	cr_assert_str_eq(r, "daemonsets.apps");
	cr_assert_null(n);
	free(r);
	cr_assert_eq(kube_path_resource("/api/v1/namespaces/kube-system", &r, &n), 0);
	cr_assert_str_eq(r, "namespaces");
	cr_assert_str_eq(n, "kube-system");
	free(r);
	free(n);
	cr_assert_eq(kube_path_resource("/version", &r, &n), -1);
}

Test(status, forbidden_body_as_kubectl_prints_it)
{
	const char *body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
			   "\"nodes is forbidden: User \\\"viewer\\\" cannot list resource \\\"nodes\\\" in API group "
			   "\\\"\\\" at the cluster scope\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"nodes\"},"
			   "\"code\":403}";
	struct kerr err = KERR_INIT;

	cr_assert_eq(kube_status_error(403, "application/json", "GET", "/api/v1/nodes", body, strlen(body), &err), -1);
	cr_assert_eq(err.kind, KERR_STATUS);
	cr_assert_eq(err.code, 403);
	t_assert_printed(&err, "Error from server (Forbidden): nodes is forbidden: User \"viewer\" cannot list resource "
			       "\"nodes\" in API group \"\" at the cluster scope\n");
	kerr_release(&err);
}

Test(status, unauthorized)
{
	const char *body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
			   "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";
	struct kerr err = KERR_INIT;

	kube_status_error(401, "application/json", "GET", "/api/v1/nodes", body, strlen(body), &err);
	t_assert_printed(&err, "error: You must be logged in to the server (Unauthorized)\n");
	kerr_release(&err);
}

Test(status, html_from_a_proxy_is_cut_and_cleaned)
{
	const char *body = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
			   "Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
	struct kerr err = KERR_INIT;

	kube_status_error(502, "text/html", "GET", "/api/v1/nodes", body, strlen(body), &err);
	cr_assert_eq(err.kind, KERR_STATUS);
	t_assert_printed(&err, "Error from server (InternalError): an error on the server (\"<html> <head><title>502 Bad "
			       "Gateway</title></head> <body> <center><h1>502 Bad Gateway</h1></center> <hr><center>nginx"
			       "</center> </body> </html>\") has prevented the request from succeeding (get nodes)\n");
	kerr_release(&err);
}

Test(status, long_binary_text_is_bounded)
{
	char body[5000];
	struct kerr err = KERR_INIT;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (char)(i % 7 == 0 ? 1 : 'x');
	kube_status_error(500, "text/plain", "GET", "/api/v1/pods", body, sizeof(body), &err);
	cr_assert_lt(strlen(err.message), 300);
	cr_assert(strstr(err.message, "\x01") == NULL);
	cr_assert(strstr(err.message, "...\")") != NULL, "%s", err.message);
	kerr_release(&err);
}

Test(status, empty_and_non_status_bodies)
{
	struct kerr err = KERR_INIT;

	kube_status_error(503, NULL, "GET", "/api/v1/nodes", "", 0, &err);
	cr_assert_str_eq(err.reason, "ServiceUnavailable");
	cr_assert_str_eq(err.message, "the server is currently unable to handle the request (get nodes)");
	kube_status_error(502, "application/json", "GET", "/api/v1/nodes/n1", "{\"a\":1}", 7, &err);
	cr_assert_str_eq(err.reason, "InternalError");
	cr_assert_str_eq(err.message,
			 "an error on the server (\"unknown\") has prevented the request from succeeding (get nodes n1)");
	kube_status_error(409, "application/json", "POST", "/api/v1/namespaces/d/pods", "nope", 4, &err);
	cr_assert_str_eq(err.reason, "AlreadyExists");
	kerr_release(&err);
}

/* --- the fake API server ------------------------------------------------------ */

struct fake {
	pid_t pid;
	int port;
	char dir[64];
	char kubeconfig[128];
	char ca[128];
	char url[64];
};

/* Servers still running when a test ends: a failed assertion skips the
 * test's own fake_stop(), the suite's fini does it then. */
static struct fake live[4]; /* copies: the test's own frame is gone by then */

static void fake_stop(struct fake *f);

static void stop_live(void)
{
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i].pid > 0) {
			struct fake f = live[i];

			fake_stop(&f);
		}
}

TestSuite(fake, .fini = stop_live);
TestSuite(bench, .fini = stop_live);

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* A scenario of nnodes nodes and npods pods, spread over the nodes. */
static void make_scenario(const char *dir, int nnodes, int npods)
{
	json_t *nodes = json_array(), *pods = json_array(), *list;
	char path[256];

	mkdir(dir, 0700);
	for (int i = 0; i < nnodes; i++) {
		char name[32];

		snprintf(name, sizeof(name), "node-%04d", i);
		json_array_append_new(
			nodes, json_pack("{s:{s:s,s:{s:s,s:s}},s:{s:{s:s,s:s},s:{s:s,s:s},s:[{s:s,s:s}]}}", "metadata",
					 "name", name, "labels", "gpushare", "true", "kubernetes.io/hostname", name,
					 "status", "capacity", "aliyun.com/gpu-mem", "32", "nvidia.com/gpu", "2",
					 "allocatable", "aliyun.com/gpu-mem", "32", "nvidia.com/gpu", "2", "conditions",
					 "type", "Ready", "status", "True"));
	}
	for (int i = 0; i < npods; i++) {
		char name[32], node[32];

		snprintf(name, sizeof(name), "pod-%05d", i);
		snprintf(node, sizeof(node), "node-%04d", nnodes ? i % nnodes : 0);
		json_array_append_new(
			pods, json_pack("{s:{s:s,s:s,s:{s:s},s:{s:s,s:s}},s:{s:s,s:[{s:s,s:s,s:{s:{s:s}}}]},s:{s:s}}",
					"metadata", "name", name, "namespace", i % 2 ? "team-a" : "default", "labels",
					"app", "bench", "annotations", "ALIYUN_COM_GPU_MEM_IDX", "0",
					"ALIYUN_COM_GPU_MEM_POD", "4", "spec", "nodeName", node, "containers", "name",
					"main", "image", "busybox", "resources", "limits", "aliyun.com/gpu-mem", "4",
					"status", "phase", "Running"));
	}
	snprintf(path, sizeof(path), "%s/nodes.json", dir);
	list = json_pack("{s:s,s:s,s:o}", "kind", "NodeList", "apiVersion", "v1", "items", nodes);
	cr_assert_eq(json_dump_file(list, path, JSON_COMPACT), 0);
	json_decref(list);
	snprintf(path, sizeof(path), "%s/pods.json", dir);
	list = json_pack("{s:s,s:s,s:o}", "kind", "PodList", "apiVersion", "v1", "items", pods);
	cr_assert_eq(json_dump_file(list, path, JSON_COMPACT), 0);
	json_decref(list);
}

static void fake_start_args(struct fake *f, int nnodes, int npods, const char *extra)
{
	int pipefd[2];
	char scen[128], line[64];
	FILE *out;

	memset(f, 0, sizeof(*f));
	strcpy(f->dir, "/tmp/test_kube.XXXXXX");
	cr_assert_not_null(mkdtemp(f->dir));
	snprintf(scen, sizeof(scen), "%s/scenario", f->dir);
	make_scenario(scen, nnodes, npods);
	cr_assert_eq(pipe(pipefd), 0);
	f->pid = fork();
	cr_assert_geq(f->pid, 0);
	if (f->pid == 0) {
		char state[128];
		const char *argv[16] = {"python3", FAKEAPI, "--scenario", scen, "--state-dir", state, "--port", "0"};
		int n = 8;

		snprintf(state, sizeof(state), "%s/state", f->dir);
		/* a failed assertion ends the test without fake_stop() */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		if (extra) {
			static char buf[256];
			char *save = NULL;

			snprintf(buf, sizeof(buf), "%s", extra);
			for (char *t = strtok_r(buf, " ", &save); t && n < 15; t = strtok_r(NULL, " ", &save))
				argv[n++] = t;
		}
		argv[n] = NULL;
		execvp("python3", (char **)argv);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	cr_assert_not_null(fgets(line, sizeof(line), out), "the fake API server did not start");
	fclose(out);
	cr_assert_eq(sscanf(line, "port %d", &f->port), 1, "unexpected: %s", line);
	snprintf(f->kubeconfig, sizeof(f->kubeconfig), "%s/state/kubeconfig", f->dir);
	snprintf(f->ca, sizeof(f->ca), "%s/state/ca.crt", f->dir);
	snprintf(f->url, sizeof(f->url), "https://127.0.0.1:%d", f->port);
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i].pid == 0) {
			live[i] = *f;
			break;
		}
}

static void fake_start(struct fake *f, int nnodes, int npods)
{
	fake_start_args(f, nnodes, npods, NULL);
}

static void fake_stop(struct fake *f)
{
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (f->pid > 0 && live[i].pid == f->pid)
			memset(&live[i], 0, sizeof(live[i]));
	if (f->pid > 0) {
		kill(f->pid, SIGTERM);
		waitpid(f->pid, NULL, 0);
		f->pid = 0;
	}
	if (f->dir[0])
		nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	f->dir[0] = '\0';
}

static size_t grow(char *p, size_t size, size_t n, void *ud)
{
	struct {
		char *d;
		size_t len;
	} *b = ud;
	char *d = realloc(b->d, b->len + size * n + 1);

	memcpy(d + b->len, p, size * n);
	b->len += size * n;
	d[b->len] = '\0';
	b->d = d;
	return size * n;
}

/* A request to a control endpoint of the fake server. */
static json_t *control(struct fake *f, const char *method, const char *path, const char *body)
{
	struct {
		char *d;
		size_t len;
	} b = {0};
	CURL *e = curl_easy_init();
	char url[256];
	json_t *j;

	snprintf(url, sizeof(url), "%s%s", f->url, path);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_CAINFO, f->ca);
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	if (body)
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, grow);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
	cr_assert_eq(curl_easy_perform(e), CURLE_OK);
	curl_easy_cleanup(e);
	j = json_loads(b.d ? b.d : "null", JSON_DECODE_ANY, NULL);
	free(b.d);
	return j;
}

static void fault(struct fake *f, const char *json)
{
	json_decref(control(f, "POST", "/_fake/faults", json));
}

static json_t *requests(struct fake *f)
{
	json_t *j = control(f, "GET", "/_fake/requests", NULL);

	cr_assert(json_is_array(j));
	return j;
}

/* Requests to the API (not to /_fake) whose path is path. */
static size_t count_requests(json_t *log, const char *method, const char *path)
{
	size_t i, n = 0;
	json_t *r;

	json_array_foreach (log, i, r)
		if (strcmp(json_string_value(json_object_get(r, "method")), method) == 0 &&
		    strcmp(json_string_value(json_object_get(r, "path")), path) == 0)
			n++;
	return n;
}

struct client {
	struct kube_config cfg;
	struct kube_client *c;
	char *log;
	size_t loglen;
	FILE *logf;
};

static void client_open_opts(struct client *cl, struct fake *f, const char *context,
			     struct kube_client_options opt)
{
	struct kube_overrides ov = {.kubeconfig = f->kubeconfig, .context = context};
	struct kerr err = KERR_INIT;

	memset(cl, 0, sizeof(*cl));
	cr_assert_eq(kubeconfig_load(&ov, &cl->cfg, &err), 0, "%s", err.message);
	cl->logf = open_memstream(&cl->log, &cl->loglen);
	opt.log = cl->logf;
	cr_assert_eq(kube_client_new(&cl->cfg, &opt, &cl->c, &err), 0, "%s", err.message);
}

static void client_open(struct client *cl, struct fake *f, const char *context)
{
	client_open_opts(cl, f, context, (struct kube_client_options){0});
}

static const char *client_log(struct client *cl)
{
	fflush(cl->logf);
	return cl->log ? cl->log : "";
}

static void client_close(struct client *cl)
{
	kube_client_free(cl->c);
	kube_config_release(&cl->cfg);
	fclose(cl->logf);
	free(cl->log);
}

struct got {
	size_t nodes, pods, metas, resets;
	char *last_rv;
};

static int got_node(void *ud, struct k8s_node *n, struct kerr *err)
{
	struct got *g = ud;

	(void)err;
	g->nodes++;
	k8s_node_free(n);
	return 0;
}

static int got_pod(void *ud, struct k8s_pod *p, struct kerr *err)
{
	struct got *g = ud;

	(void)err;
	g->pods++;
	k8s_pod_free(p);
	return 0;
}

static void got_meta(void *ud, const char *rv, const char *cont)
{
	struct got *g = ud;

	(void)cont;
	if (!rv && !cont) {
		g->resets++;
		g->nodes = g->pods = 0;
		return;
	}
	g->metas++;
	free(g->last_rv);
	g->last_rv = rv ? strdup(rv) : NULL;
}

static struct kube_list list_of(const char *path, enum obj_kind kind, struct got *g)
{
	struct kube_list l = {.path = path, .kind = kind};

	l.sink = (struct decode_sink){got_node, got_pod, got_meta, g};
	return l;
}

Test(fake, token_auth_tls_and_paging_with_selectors)
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

Test(fake, client_certificate_auth_and_no_selectors_sent)
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

Test(fake, unknown_ca_is_a_certificate_error)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL;

	fake_start(&f, 1, 0);
	client_open(&cl, &f, "admin-token");
	/* the system trust store does not know the per-run CA */
	free(cl.cfg.ca.data);
	cl.cfg.ca.data = NULL;
	cl.cfg.ca.len = 0;
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), -1);
	cr_assert_eq(err.kind, KERR_TRANSPORT);
	t_assert_printed(&err, "Unable to connect to the server: tls: failed to verify certificate: x509: certificate "
			       "signed by unknown authority\n");
	kerr_release(&err);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, insecure_skip_verify_and_tls_server_name)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL;

	fake_start(&f, 1, 0);
	client_open(&cl, &f, "admin-token");
	free(cl.cfg.ca.data);
	cl.cfg.ca.data = NULL;
	cl.cfg.ca.len = 0;
	cl.cfg.insecure_skip_tls_verify = true;
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes/node-0000", NULL, &j, &err), 0, "%s", err.message);
	json_decref(j);
	client_close(&cl);

	/* the certificate names localhost and 127.0.0.1; the server is reached by address */
	client_open(&cl, &f, "admin-token");
	kube_client_free(cl.c);
	cl.cfg.tls_server_name = strdup("localhost");
	cr_assert_eq(kube_client_new(&cl.cfg, &(struct kube_client_options){.log = cl.logf}, &cl.c, &err), 0);
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes/node-0000", NULL, &j, &err), 0, "%s", err.message);
	json_decref(j);
	kube_client_free(cl.c);
	free(cl.cfg.tls_server_name);
	cl.cfg.tls_server_name = strdup("wrong.example");
	cr_assert_eq(kube_client_new(&cl.cfg, &(struct kube_client_options){.log = cl.logf}, &cl.c, &err), 0);
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes/node-0000", NULL, &j, &err), -1);
	cr_assert_eq(err.kind, KERR_TRANSPORT);
	cr_assert(strstr(err.message, "certificate") != NULL, "%s", err.message);
	kerr_release(&err);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, errors_401_403_404_as_kubectl_prints_them)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL;

	fake_start(&f, 1, 0);
	client_open(&cl, &f, "badtoken");
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), -1);
	t_assert_printed(&err, "error: You must be logged in to the server (Unauthorized)\n");
	client_close(&cl);

	client_open(&cl, &f, "nobody");
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), -1);
	t_assert_printed(&err, "Error from server (Forbidden): nodes is forbidden: User \"nobody\" cannot list resource "
			       "\"nodes\" in API group \"\" at the cluster scope\n");
	client_close(&cl);

	client_open(&cl, &f, "viewer");
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes/no-such-node", NULL, &j, &err), -1);
	t_assert_printed(&err, "Error from server (NotFound): nodes \"no-such-node\" not found\n");
	kerr_release(&err);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, refused_port)
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

Test(fake, credentials_never_over_plain_http)
{
	struct kube_config cfg = {0};
	struct kube_client *c = NULL;
	struct kerr err = KERR_INIT;

	cfg.server = strdup("http://127.0.0.1:1");
	cfg.token = strdup("secret-token-value");
	cr_assert_eq(kube_client_new(&cfg, NULL, &c, &err), -1);
	cr_assert_eq(err.kind, KERR_CONFIG);
	cr_assert(strstr(err.message, "http") != NULL);
	cr_assert(strstr(err.message, "secret-token-value") == NULL);
	kerr_release(&err);
	free(cfg.server);
	free(cfg.token);
}

Test(fake, continue_expired_restarts_the_list)
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

Test(fake, retry_after_429_then_success_and_500_without_is_final)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL, *log;
	struct timespec t0, t1;

	fake_start(&f, 1, 0);
	client_open(&cl, &f, "admin");
	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"status\",\"code\":429,"
		  "\"retry_after\":1},\"times\":2}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), 0, "%s", err.message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_geq(t1.tv_sec - t0.tv_sec, 1, "Retry-After was not honoured");
	json_decref(j);
	log = requests(&f);
	cr_assert_eq(count_requests(log, "GET", "/api/v1/nodes"), 3);
	json_decref(log);

	json_decref(control(&f, "DELETE", "/_fake/requests", NULL));
	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"status\",\"code\":500},"
		  "\"times\":1}");
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), -1);
	t_assert_printed(&err, "Error from server (InternalError): Internal error occurred: injected fault\n");
	log = requests(&f);
	cr_assert_eq(count_requests(log, "GET", "/api/v1/nodes"), 1);
	json_decref(log);
	kerr_release(&err);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, reset_mid_body_is_retried_for_lists)
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

Test(fake, truncated_malformed_html_bodies_give_short_errors)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	json_t *j = NULL, *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "a", "b");
	char *s;

	fake_start(&f, 2, 0);
	client_open(&cl, &f, "admin");

	/* a write is never retried after a transport failure */
	fault(&f, "{\"match\":{\"method\":\"PATCH\"},\"fault\":{\"type\":\"truncate\"},\"times\":1}");
	cr_assert_eq(kube_patch(cl.c, "/api/v1/nodes/node-0000", PATCH_MERGE, patch, NULL, &j, &err), -1);
	cr_assert_eq(err.kind, KERR_TRANSPORT, "%d %s", err.kind, err.message);
	cr_assert_lt(strlen(err.message), 200);

	/* a protobuf body that does not decode is asked for again as JSON: it
	 * takes two bad bodies to fail */
	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"malformed\"},\"times\":2}");
	l = list_of("/api/v1/nodes", OBJ_NODE, &g);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), -1);
	cr_assert_eq(err.kind, KERR_DECODE, "%d %s", err.kind, err.message);
	cr_assert_lt(strlen(err.message), 300, "%s", err.message);
	kube_list_release(&l);

	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"malformed\"},\"times\":1}");
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes/node-0001", NULL, &j, &err), -1);
	cr_assert_eq(err.kind, KERR_DECODE);
	cr_assert_lt(strlen(err.message), 300, "%s", err.message);

	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"html\",\"code\":502},\"times\":1}");
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), -1);
	s = t_printed(&err);
	cr_assert(strncmp(s, "Error from server (InternalError): an error on the server (\"<html> <head><title>502 Bad "
			     "Gateway",
			  86) == 0,
		  "%s", s);
	cr_assert(strstr(s, "has prevented the request from succeeding (get nodes)\n") != NULL, "%s", s);
	free(s);
	kerr_release(&err);
	json_decref(patch);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, verbose_8_redacts_the_token)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL;
	const char *log;

	fake_start(&f, 1, 0);
	client_open_opts(&cl, &f, "admin-token", (struct kube_client_options){.verbosity = 8});
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", "labelSelector=gpushare%3Dtrue", &j, &err), 0);
	json_decref(j);
	log = client_log(&cl);
	cr_assert(strstr(log, "GET https://127.0.0.1:") != NULL, "%s", log);
	cr_assert(strstr(log, "/api/v1/nodes?labelSelector=gpushare%3Dtrue 200 OK in ") != NULL, "%s", log);
	cr_assert(strstr(log, " milliseconds\n") != NULL);
	cr_assert(strstr(log, "Request Headers:") != NULL);
	cr_assert(strstr(log, "Authorization: Bearer <masked>") != NULL, "%s", log);
	cr_assert(strstr(log, "Response Headers:") != NULL);
	cr_assert(strstr(log, cl.cfg.token) == NULL, "the token leaked into the log");
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, patch_conflict_and_delete_precondition)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL, *log, *r;
	json_t *patch = json_pack("{s:{s:s,s:{s:s}}}", "metadata", "resourceVersion", "1", "labels", "a", "b");
	json_t *opts = json_pack("{s:s,s:s,s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1", "preconditions",
				 "uid", "not-the-uid");
	struct kube_write_opts w = {.dry_run = true, .field_manager = "kubectl-label"};
	char *s;

	fake_start(&f, 1, 1);
	client_open(&cl, &f, "admin");
	cr_assert_eq(kube_patch(cl.c, "/api/v1/nodes/node-0000", PATCH_MERGE, patch, &w, &j, &err), -1);
	cr_assert_eq(err.code, 409);
	s = t_printed(&err);
	cr_assert(strncmp(s, "Error from server (Conflict): ", 30) == 0, "%s", s);
	free(s);
	cr_assert_eq(kube_delete(cl.c, "/api/v1/namespaces/default/pods/pod-00000", opts, NULL, &j, &err), -1);
	cr_assert_eq(err.code, 409);
	cr_assert_str_eq(err.reason, "Conflict");
	log = requests(&f);
	r = json_array_get(log, 0);
	cr_assert_str_eq(json_string_value(json_object_get(r, "method")), "PATCH");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "headers"), "content-type")),
			 "application/merge-patch+json");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "query"), "dryRun")), "All");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "query"), "fieldManager")),
			 "kubectl-label");
	r = json_array_get(log, 1);
	cr_assert_str_eq(json_string_value(json_object_get(r, "method")), "DELETE");
	cr_assert_eq(json_object_size(json_object_get(r, "query")), 0);
	cr_assert(strstr(json_string_value(json_object_get(r, "body")), "not-the-uid") != NULL);
	json_decref(log);

	/* a successful patch returns the object */
	json_object_del(json_object_get(patch, "metadata"), "resourceVersion");
	cr_assert_eq(kube_patch(cl.c, "/api/v1/nodes/node-0000", PATCH_STRATEGIC, patch, NULL, &j, &err), 0,
		     "%s", err.message);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(j, "metadata"), "labels"),
							   "a")),
			 "b");
	json_decref(j);
	kerr_release(&err);
	json_decref(patch);
	json_decref(opts);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, two_lists_at_once)
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

Test(fake, gzip_is_used_for_large_bodies)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	const char *log;

	fake_start(&f, 1, 600);
	/* (JSON: these small pods in protobuf stay under the server's gzip threshold) */
	client_open_opts(&cl, &f, "admin", (struct kube_client_options){.verbosity = 8, .json_only = true});
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	cr_assert_eq(g.pods, 600);
	log = client_log(&cl);
	cr_assert(strstr(log, "Content-Encoding: gzip") != NULL, "no gzip response: %s", log);
	cr_assert(strstr(log, "Accept: application/json\n") != NULL, "%s", log);
	kube_list_release(&l);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

/* --- watches ---------------------------------------------------------------- */

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

Test(fake, watch_events_split_across_chunks_and_bookmarks)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	struct wstate ws = {0};
	struct kube_watch *w;
	struct kube_watch_spec spec = {.path = "/api/v1/pods", .kind = OBJ_POD, .on_event = on_event,
				       .on_end = on_end, .ud = &ws};
	json_t *pod;
	time_t start;

	fake_start_args(&f, 1, 2, "--bookmark-interval 0.3");
	client_open(&cl, &f, "admin");
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0);
	spec.resource_version = l.resource_version;
	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/pods\",\"query_contains\":\"watch\"},"
		  "\"fault\":{\"type\":\"drip\",\"bytes_per_second\":400},\"times\":1}");
	cr_assert_eq(kube_watch_start(cl.c, &spec, &w, &err), 0);
	pod = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s,s:[{s:s}]}}", "kind", "Pod", "apiVersion", "v1", "metadata",
			"name", "new-pod", "namespace", "default", "spec", "nodeName", "node-0000", "containers",
			"name", "c");
	{
		char *body = json_dumps(pod, JSON_COMPACT);

		json_decref(control(&f, "POST", "/_fake/objects", body));
		free(body);
	}
	json_decref(control(&f, "DELETE", "/_fake/objects/pods/default/pod-00000", NULL));
	start = time(NULL);
	while ((ws.added < 1 || ws.deleted < 1 || ws.bookmarks < 1) && time(NULL) - start < 10)
		cr_assert_geq(kube_client_poll(cl.c, -1, 200, &err), 0);
	cr_assert_eq(ws.added, 1);
	cr_assert_geq(ws.deleted, 1);
	cr_assert_geq(ws.bookmarks, 1);
	cr_assert(!ws.ended);
	kube_watch_free(w);
	json_decref(pod);

	/* too old a resourceVersion: an ERROR event with 410 */
	memset(&ws, 0, sizeof(ws));
	spec.resource_version = "1";
	json_decref(control(&f, "POST", "/_fake/reset", NULL));
	cr_assert_eq(kube_watch_start(cl.c, &spec, &w, &err), 0);
	start = time(NULL);
	while (!ws.ended && time(NULL) - start < 10)
		cr_assert_geq(kube_client_poll(cl.c, -1, 200, &err), 0);
	cr_assert_eq(ws.errors, 1);
	cr_assert_eq(ws.error_code, 410);
	cr_assert(ws.ended, "the stream should end after the ERROR event");
	cr_assert_eq(ws.end_err.kind, KERR_NONE, "%s", ws.end_err.message);
	kube_watch_free(w);
	kube_list_release(&l);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
}

static void on_done(void *ud, const struct kerr *e)
{
	*(int *)ud = e ? -1 : 1;
}

Test(fake, async_list_and_poll_with_fd)
{
	struct fake f;
	struct client cl;
	struct got g = {0};
	struct kube_list l;
	struct kerr err = KERR_INIT;
	struct kube_async_list *a;
	int done = 0, fds[2];
	time_t start;

	fake_start(&f, 3, 33);
	client_open(&cl, &f, "admin");
	l = list_of("/api/v1/pods", OBJ_POD, &g);
	l.limit = 10;
	cr_assert_eq(kube_list_start(cl.c, &l, on_done, &done, &a, &err), 0);
	start = time(NULL);
	while (!done && time(NULL) - start < 10)
		cr_assert_geq(kube_client_poll(cl.c, -1, 500, &err), 0);
	cr_assert_eq(done, 1);
	cr_assert_eq(g.pods, 33);
	kube_async_list_free(a);

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "x", 1), 1);
	cr_assert_eq(kube_client_poll(cl.c, fds[0], 2000, &err), 1);
	close(fds[0]);
	close(fds[1]);
	kube_list_release(&l);
	free(g.last_rv);
	client_close(&cl);
	fake_stop(&f);
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

Test(fake, watch_freed_from_its_own_event)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	struct stopper st = {0};
	struct kube_watch_spec spec = {.path = "/api/v1/pods", .kind = OBJ_POD, .on_event = stop_on_first,
				       .ud = &st};
	time_t start;

	fake_start(&f, 1, 5);
	client_open(&cl, &f, "admin");
	/* no resourceVersion: the server starts with ADDED for every pod, in one read */
	cr_assert_eq(kube_watch_start(cl.c, &spec, &st.w, &err), 0);
	start = time(NULL);
	while (st.w && time(NULL) - start < 10)
		cr_assert_geq(kube_client_poll(cl.c, -1, 200, &err), 0);
	cr_assert_null(st.w);
	for (int i = 0; i < 3; i++)
		cr_assert_geq(kube_client_poll(cl.c, -1, 100, &err), 0);
	cr_assert_eq(st.events, 1);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, impersonation_headers)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL, *log, *h;
	char *groups[] = {"team-a", "team-b", NULL};

	fake_start(&f, 1, 0);
	client_open(&cl, &f, "admin");
	cl.cfg.impersonate_user = strdup("viewer");
	cl.cfg.impersonate_uid = strdup("1234");
	cl.cfg.impersonate_groups = groups;
	kvlist_add(&cl.cfg.impersonate_extra, "scopes", 6, "view", 4);
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), 0, "%s", err.message);
	json_decref(j);
	log = requests(&f);
	h = json_object_get(json_array_get(log, 0), "headers");
	cr_assert_str_eq(json_string_value(json_object_get(h, "impersonate-user")), "viewer");
	cr_assert_str_eq(json_string_value(json_object_get(h, "impersonate-uid")), "1234");
	cr_assert_str_eq(json_string_value(json_object_get(h, "impersonate-extra-scopes")), "view");
	cr_assert(json_is_array(json_object_get(h, "impersonate-group")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(h, "impersonate-group"), 1)), "team-b");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(log, 0), "impersonated_user")), "viewer");
	json_decref(log);
	cl.cfg.impersonate_groups = NULL;
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, request_timeout_is_a_deadline_and_a_query_parameter)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL, *log, *q;
	struct timespec t0, t1;
	struct got g = {0};
	struct kube_list l;

	fake_start(&f, 2, 0);
	client_open_opts(&cl, &f, "admin", (struct kube_client_options){.request_timeout_ms = 1000});
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), 0, "%s", err.message);
	json_decref(j);
	l = list_of("/api/v1/nodes", OBJ_NODE, &g);
	cr_assert_eq(kube_list_run(cl.c, &l, 1, &err), 0, "%s", err.message);
	kube_list_release(&l);
	free(g.last_rv);
	log = requests(&f);
	q = json_object_get(json_array_get(log, 0), "query");
	cr_assert_str_eq(json_string_value(json_object_get(q, "timeout")), "1s");
	q = json_object_get(json_array_get(log, 1), "query");
	cr_assert_str_eq(json_string_value(json_object_get(q, "timeout")), "1s");
	cr_assert_str_eq(json_string_value(json_object_get(q, "limit")), "500");
	json_decref(log);

	fault(&f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"delay\",\"seconds\":3},"
		  "\"times\":1}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_lt(t1.tv_sec - t0.tv_sec, 3, "the deadline was not kept");
	cr_assert_eq(err.kind, KERR_TRANSPORT);
	t_assert_printed(&err, "Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded "
			       "while awaiting headers)\n");
	kerr_release(&err);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, post_eviction)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL, *log, *r;
	json_t *ev = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion", "policy/v1", "kind", "Eviction", "metadata",
			       "name", "pod-00000", "namespace", "default");

	fake_start(&f, 1, 1);
	client_open(&cl, &f, "admin");
	cr_assert_eq(kube_post(cl.c, "/api/v1/namespaces/default/pods/pod-00000/eviction", ev, NULL, &j, &err), 0,
		     "%s", err.message);
	cr_assert_str_eq(json_string_value(json_object_get(j, "status")), "Success");
	json_decref(j);
	log = requests(&f);
	r = json_array_get(log, 0);
	cr_assert_str_eq(json_string_value(json_object_get(r, "method")), "POST");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "headers"), "content-type")),
			 "application/json");
	cr_assert_eq(json_object_size(json_object_get(r, "query")), 0);
	json_decref(log);
	json_decref(ev);
	client_close(&cl);
	fake_stop(&f);
}

Test(fake, exec_plugin_asked_again_after_401)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL, *log;
	char path[256], text[2048], *token;
	FILE *fh;

	fake_start(&f, 1, 0);
	client_open(&cl, &f, "admin-token");
	token = strdup(cl.cfg.token);
	client_close(&cl);

	/* the plugin hands out a revoked token first, a good one after */
	snprintf(path, sizeof(path), "%s/plugin.sh", f.dir);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "n=$(cat %s/count 2>/dev/null || echo 0)\n"
		 "echo $((n + 1)) > %s/count\n"
		 "if [ \"$n\" = 0 ]; then t=revoked; else t=%s; fi\n"
		 "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
		 "\"status\":{\"token\":\"%%s\"}}' \"$t\"\n",
		 f.dir, f.dir, token);
	fh = fopen(path, "w");
	fputs(text, fh);
	fclose(fh);
	chmod(path, 0700);
	snprintf(path, sizeof(path), "%s/exec-kubeconfig", f.dir);
	snprintf(text, sizeof(text),
		 "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: %s\n"
		 "    certificate-authority: %s\ncontexts:\n- name: exec\n  context:\n    cluster: fake\n"
		 "    user: exec\ncurrent-context: exec\nusers:\n- name: exec\n  user:\n    exec:\n"
		 "      apiVersion: client.authentication.k8s.io/v1\n      command: %s/plugin.sh\n"
		 "      interactiveMode: Never\n",
		 f.url, f.ca, f.dir);
	fh = fopen(path, "w");
	fputs(text, fh);
	fclose(fh);
	strcpy(f.kubeconfig, path);

	client_open(&cl, &f, NULL);
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), 0, "%s", err.message);
	json_decref(j);
	log = requests(&f);
	cr_assert_eq(count_requests(log, "GET", "/api/v1/nodes"), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(log, 0), "status")), 401);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(log, 1), "user")), "admin");
	json_decref(log);
	free(token);
	client_close(&cl);
	fake_stop(&f);
}

/* --- response headers the fake server does not send --------------------------- */

static const char stand_in[] =
	"import http.server, sys\n"
	"class H(http.server.BaseHTTPRequestHandler):\n"
	"    protocol_version = 'HTTP/1.1'\n"
	"    def log_message(self, *a): pass\n"
	"    def do_GET(self):\n"
	"        body = b'{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[]}'\n"
	"        self.send_response(200)\n"
	"        self.send_header('Content-Type', 'application/json')\n"
	"        self.send_header('Warning', '299 - \"v1beta1 is deprecated\"')\n"
	"        self.send_header('Warning', '299 - \"second warning\", 299 - \"v1beta1 is deprecated\"')\n"
	"        self.send_header('Content-Length', str(len(body)))\n"
	"        self.end_headers()\n"
	"        self.wfile.write(body)\n"
	"s = http.server.HTTPServer(('127.0.0.1', 0), H)\n"
	"print('port %d' % s.server_address[1], flush=True)\n"
	"s.serve_forever()\n";

Test(headers, warning_printed_once_per_message)
{
	int pipefd[2], port;
	pid_t pid;
	char line[64];
	FILE *out;
	struct kube_config cfg = {0};
	struct kube_client *c;
	struct kerr err = KERR_INIT;
	char *log = NULL;
	size_t loglen = 0;
	FILE *logf = open_memstream(&log, &loglen);

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(pipefd[1], 1);
		execlp("python3", "python3", "-c", stand_in, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	cr_assert_not_null(fgets(line, sizeof(line), out));
	fclose(out);
	cr_assert_eq(sscanf(line, "port %d", &port), 1);
	cfg.server = malloc(64);
	snprintf(cfg.server, 64, "http://127.0.0.1:%d", port);
	cr_assert_eq(kube_client_new(&cfg, &(struct kube_client_options){.log = logf}, &c, &err), 0);
	for (int i = 0; i < 3; i++) {
		json_t *j = NULL;

		cr_assert_eq(kube_get_json(c, "/apis/example/v1beta1/things", NULL, &j, &err), 0, "%s", err.message);
		json_decref(j);
	}
	fflush(logf);
	cr_assert_str_eq(log, "Warning: v1beta1 is deprecated\nWarning: second warning\n");
	kube_client_free(c);
	fclose(logf);
	free(log);
	free(cfg.server);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* A CONNECT proxy that counts the tunnels it opened in a file. */
static const char connect_proxy[] =
	"import socket, sys, threading\n"
	"count = sys.argv[1]\n"
	"def pipe(a, b):\n"
	"    try:\n"
	"        while True:\n"
	"            d = a.recv(65536)\n"
	"            if not d: break\n"
	"            b.sendall(d)\n"
	"    except OSError: pass\n"
	"    finally:\n"
	"        for s in (a, b):\n"
	"            try: s.shutdown(socket.SHUT_RDWR)\n"
	"            except OSError: pass\n"
	"def serve(c):\n"
	"    req = b''\n"
	"    while b'\\r\\n\\r\\n' not in req:\n"
	"        d = c.recv(4096)\n"
	"        if not d: return\n"
	"        req += d\n"
	"    line = req.split(b'\\r\\n')[0].decode()\n"
	"    method, target = line.split()[:2]\n"
	"    if method != 'CONNECT':\n"
	"        c.sendall(b'HTTP/1.1 405 Method Not Allowed\\r\\n\\r\\n'); c.close(); return\n"
	"    host, port = target.rsplit(':', 1)\n"
	"    u = socket.create_connection((host, int(port)))\n"
	"    with open(count, 'a') as f: f.write(target + '\\n')\n"
	"    c.sendall(b'HTTP/1.1 200 Connection established\\r\\n\\r\\n')\n"
	"    threading.Thread(target=pipe, args=(u, c), daemon=True).start()\n"
	"    pipe(c, u)\n"
	"l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
	"l.bind(('127.0.0.1', 0)); l.listen(16)\n"
	"print('port %d' % l.getsockname()[1], flush=True)\n"
	"while True:\n"
	"    c, _ = l.accept()\n"
	"    threading.Thread(target=serve, args=(c,), daemon=True).start()\n";

Test(fake, proxy_url_is_used)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	json_t *j = NULL;
	int pipefd[2], port;
	pid_t pid;
	char line[64], count[160], got[128] = "", want[64];
	FILE *out;

	fake_start(&f, 1, 0);
	snprintf(count, sizeof(count), "%s/tunnels", f.dir);
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(pipefd[1], 1);
		execlp("python3", "python3", "-c", connect_proxy, count, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	cr_assert_not_null(fgets(line, sizeof(line), out));
	fclose(out);
	cr_assert_eq(sscanf(line, "port %d", &port), 1);

	client_open(&cl, &f, "admin-token");
	kube_client_free(cl.c);
	cl.cfg.proxy_url = malloc(64);
	snprintf(cl.cfg.proxy_url, 64, "http://127.0.0.1:%d", port);
	cr_assert_eq(kube_client_new(&cl.cfg, &(struct kube_client_options){.log = cl.logf}, &cl.c, &err), 0);
	cr_assert_eq(kube_get_json(cl.c, "/api/v1/nodes", NULL, &j, &err), 0, "%s", err.message);
	json_decref(j);
	out = fopen(count, "r");
	cr_assert_not_null(out, "the request did not go through the proxy");
	cr_assert_not_null(fgets(got, sizeof(got), out));
	fclose(out);
	snprintf(want, sizeof(want), "127.0.0.1:%d\n", f.port);
	cr_assert_str_eq(got, want);
	client_close(&cl);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	fake_stop(&f);
}

/* --- measurement (CGPU_BENCH=1) ------------------------------------------------ */

/* The same pages fetched with bare libcurl and thrown away: the server's
 * share of the time, without any decoding. */
static double bare_paging(struct fake *f, const char *token)
{
	struct {
		char *d;
		size_t len;
	} b = {0};
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
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, grow);
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

/* Several GETs at once: each gets its own body or its own error. */
Test(fake, get_json_all_each_its_own_outcome)
{
	struct fake f;
	struct client cl;
	struct kerr err = KERR_INIT;
	struct kube_get reqs[3] = {
		{.path = "/api/v1/nodes/node-0000"},
		{.path = "/api/v1/nodes/absent"},
		{.path = "/api/v1/nodes", .query = "limit=1"},
	};

	fake_start(&f, 2, 0);
	client_open(&cl, &f, "admin-token");
	cr_assert_eq(kube_get_json_all(cl.c, reqs, 3, &err), 0, "%s", err.message);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(reqs[0].result, "metadata"), "name")),
			 "node-0000");
	cr_assert_eq(reqs[0].err.kind, KERR_NONE);
	cr_assert_null(reqs[1].result);
	cr_assert_eq(reqs[1].err.kind, KERR_STATUS);
	cr_assert_eq(reqs[1].err.code, 404);
	cr_assert_eq(json_array_size(json_object_get(reqs[2].result, "items")), 1);
	for (int i = 0; i < 3; i++) {
		json_decref(reqs[i].result);
		kerr_release(&reqs[i].err);
	}
	client_close(&cl);
	fake_stop(&f);
}
