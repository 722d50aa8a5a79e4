/* What the client's tests against the fake API server (tests/fakeapi/
 * fakeapi.py) share: a server started on a scenario of its own, requests to
 * its control endpoints, a client on its kubeconfig, and list sinks that
 * count what they are given; a session (struct fake_session) holds one of
 * each, so that a test opens and closes them in one line each.  Each test
 * file declares its suites with .fini = fake_stop_all, so that a failed
 * assertion leaves no server behind. */
#ifndef FAKEAPI_TEST_UTIL_H
#define FAKEAPI_TEST_UTIL_H

#include <criterion/criterion.h>

#include <curl/curl.h>
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

#include "kerr_test_util.h"
#include "kube.h"
#include "kubeconfig.h"

/* --- child processes ----------------------------------------------------------- */

/* Runs argv (NULL-terminated) in a child whose first line on stdout is
 * "port N" once it listens, and returns N.  The child dies with the test:
 * a failed assertion ends it without any stop. */
static inline int t_spawn_port(const char *const argv[], const char *what, pid_t *pid)
{
	int pipefd[2], port;
	char line[64];
	FILE *out;

	cr_assert_eq(pipe(pipefd), 0);
	*pid = fork();
	cr_assert_geq(*pid, 0);
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execvp(argv[0], (char **)argv);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	cr_assert_not_null(fgets(line, sizeof(line), out), "%s did not start", what);
	fclose(out);
	cr_assert_eq(sscanf(line, "port %d", &port), 1, "unexpected: %s", line);
	return port;
}

static inline void t_child_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* --- the fake API server ------------------------------------------------------- */

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
static struct fake fake_live[4]; /* copies: the test's own frame is gone by then */

static inline void fake_stop(struct fake *f);

static inline void fake_stop_all(void)
{
	for (size_t i = 0; i < sizeof(fake_live) / sizeof(fake_live[0]); i++)
		if (fake_live[i].pid > 0) {
			struct fake f = fake_live[i];

			fake_stop(&f);
		}
}

static inline int fake_rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* A scenario of nnodes nodes and npods pods, spread over the nodes. */
static inline void fake_make_scenario(const char *dir, int nnodes, int npods)
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

/* A server on nnodes nodes and npods pods; extra: more options for
 * fakeapi.py, separated by spaces, or NULL. */
static inline void fake_start_args(struct fake *f, int nnodes, int npods, const char *extra)
{
	char scen[128], state[128], opts[256];
	const char *argv[16] = {"python3", FAKEAPI, "--scenario", scen, "--state-dir", state, "--port", "0"};
	char *save = NULL;
	int n = 8;

	memset(f, 0, sizeof(*f));
	strcpy(f->dir, "/tmp/test_fakeapi.XXXXXX");
	cr_assert_not_null(mkdtemp(f->dir));
	snprintf(scen, sizeof(scen), "%s/scenario", f->dir);
	fake_make_scenario(scen, nnodes, npods);
	snprintf(state, sizeof(state), "%s/state", f->dir);
	snprintf(opts, sizeof(opts), "%s", extra ? extra : "");
	for (char *t = strtok_r(opts, " ", &save); t && n < 15; t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	argv[n] = NULL;
	f->port = t_spawn_port(argv, "the fake API server", &f->pid);
	snprintf(f->kubeconfig, sizeof(f->kubeconfig), "%s/state/kubeconfig", f->dir);
	snprintf(f->ca, sizeof(f->ca), "%s/state/ca.crt", f->dir);
	snprintf(f->url, sizeof(f->url), "https://127.0.0.1:%d", f->port);
	for (size_t i = 0; i < sizeof(fake_live) / sizeof(fake_live[0]); i++)
		if (fake_live[i].pid == 0) {
			fake_live[i] = *f;
			break;
		}
}

static inline void fake_start(struct fake *f, int nnodes, int npods)
{
	fake_start_args(f, nnodes, npods, NULL);
}

static inline void fake_stop(struct fake *f)
{
	for (size_t i = 0; i < sizeof(fake_live) / sizeof(fake_live[0]); i++)
		if (f->pid > 0 && fake_live[i].pid == f->pid)
			memset(&fake_live[i], 0, sizeof(fake_live[i]));
	if (f->pid > 0) {
		t_child_stop(f->pid);
		f->pid = 0;
	}
	if (f->dir[0])
		nftw(f->dir, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	f->dir[0] = '\0';
}

/* --- requests outside the client ------------------------------------------------ */

/* A response body growing in memory, for CURLOPT_WRITEFUNCTION. */
struct t_body {
	char *d;
	size_t len;
};

static inline size_t t_body_grow(char *p, size_t size, size_t n, void *ud)
{
	struct t_body *b = ud;
	char *d = realloc(b->d, b->len + size * n + 1);

	memcpy(d + b->len, p, size * n);
	b->len += size * n;
	d[b->len] = '\0';
	b->d = d;
	return size * n;
}

/* A request to a control endpoint of the fake server. */
static inline json_t *control(struct fake *f, const char *method, const char *path, const char *body)
{
	struct t_body b = {0};
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
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, t_body_grow);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
	cr_assert_eq(curl_easy_perform(e), CURLE_OK);
	curl_easy_cleanup(e);
	j = json_loads(b.d ? b.d : "null", JSON_DECODE_ANY, NULL);
	free(b.d);
	return j;
}

static inline void fault(struct fake *f, const char *json)
{
	json_decref(control(f, "POST", "/_fake/faults", json));
}

static inline json_t *requests(struct fake *f)
{
	json_t *j = control(f, "GET", "/_fake/requests", NULL);

	cr_assert(json_is_array(j));
	return j;
}

/* Requests to the API (not to /_fake) whose path is path. */
static inline size_t count_requests(json_t *log, const char *method, const char *path)
{
	size_t i, n = 0;
	json_t *r;

	json_array_foreach (log, i, r)
		if (strcmp(json_string_value(json_object_get(r, "method")), method) == 0 &&
		    strcmp(json_string_value(json_object_get(r, "path")), path) == 0)
			n++;
	return n;
}

/* --- a client of the fake server ------------------------------------------------ */

struct client {
	struct kube_config cfg;
	struct kube_client *c;
	char *log;
	size_t loglen;
	FILE *logf;
};

/* A client on the server's kubeconfig, in context (NULL: the current one);
 * its log goes to memory (client_log()). */
static inline void client_open_opts(struct client *cl, struct fake *f, const char *context,
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

static inline void client_open(struct client *cl, struct fake *f, const char *context)
{
	client_open_opts(cl, f, context, (struct kube_client_options){0});
}

static inline const char *client_log(struct client *cl)
{
	fflush(cl->logf);
	return cl->log ? cl->log : "";
}

static inline void client_close(struct client *cl)
{
	kube_client_free(cl->c);
	kube_config_release(&cl->cfg);
	fclose(cl->logf);
	free(cl->log);
}

/* --- lists counted -------------------------------------------------------------- */

/* What a list's sink was given; a reset (the list restarted) forgets the
 * objects counted so far. */
struct got {
	size_t nodes, pods, metas, resets;
	char *last_rv;
};

/* One sink per kind: counts the object and frees it. */
#define GOT_COUNTER(name, type, field, free_fn)                                                                     \
	static inline int name(void *ud, struct type *o, struct kerr *err)                                          \
	{                                                                                                           \
		(void)err;                                                                                          \
		((struct got *)ud)->field++;                                                                        \
		free_fn(o);                                                                                         \
		return 0;                                                                                           \
	}

GOT_COUNTER(got_node, k8s_node, nodes, k8s_node_free)
GOT_COUNTER(got_pod, k8s_pod, pods, k8s_pod_free)

static inline void got_meta(void *ud, const char *rv, const char *cont)
{
	struct got *g = ud;

	if (!rv && !cont) {
		g->resets++;
		g->nodes = g->pods = 0;
		return;
	}
	g->metas++;
	free(g->last_rv);
	g->last_rv = rv ? strdup(rv) : NULL;
}

static inline struct kube_list list_of(const char *path, enum obj_kind kind, struct got *g)
{
	struct kube_list l = {.path = path, .kind = kind};

	l.sink = (struct decode_sink){.node = got_node, .pod = got_pod, .list_meta = got_meta, .ud = g};
	return l;
}

/* Forgets what was counted, for a list run again. */
static inline void got_reset(struct got *g)
{
	free(g->last_rv);
	memset(g, 0, sizeof(*g));
}

/* --- a session: a server, a client of it, a sink, an error --------------------- */

struct fake_session {
	struct fake f;
	struct client cl;
	struct got g;
	struct kerr err;
};

/* A server on nnodes nodes and npods pods (extra: as for fake_start_args()),
 * and a client on it in context with opt. */
static inline void session_open_opts(struct fake_session *s, int nnodes, int npods, const char *extra,
				     const char *context, struct kube_client_options opt)
{
	memset(s, 0, sizeof(*s));
	fake_start_args(&s->f, nnodes, npods, extra);
	client_open_opts(&s->cl, &s->f, context, opt);
}

static inline void session_open(struct fake_session *s, int nnodes, int npods, const char *context)
{
	session_open_opts(s, nnodes, npods, NULL, context, (struct kube_client_options){0});
}

static inline void session_close(struct fake_session *s)
{
	kerr_release(&s->err);
	free(s->g.last_rv);
	client_close(&s->cl);
	fake_stop(&s->f);
}

/* Runs n lists to their end, which must succeed. */
static inline void session_run(struct fake_session *s, struct kube_list *l, size_t n)
{
	cr_assert_eq(kube_list_run(s->cl.c, l, n, &s->err), 0, "%s", s->err.message);
}

/* Lists path into the session's sink, pages of limit (0: the client's own). */
static inline void session_list(struct fake_session *s, const char *path, enum obj_kind kind, unsigned limit)
{
	struct kube_list l = list_of(path, kind, &s->g);

	l.limit = limit;
	session_run(s, &l, 1);
	kube_list_release(&l);
}

/* How many requests of method to path the server has logged. */
static inline size_t session_count(struct fake_session *s, const char *method, const char *path)
{
	json_t *log = requests(&s->f);
	size_t n = count_requests(log, method, path);

	json_decref(log);
	return n;
}

/* The client made again on its (changed) configuration, with the same log. */
static inline void session_renew_client(struct fake_session *s)
{
	kube_client_free(s->cl.c);
	cr_assert_eq(kube_client_new(&s->cl.cfg, &(struct kube_client_options){.log = s->cl.logf}, &s->cl.c, &s->err),
		     0, "%s", s->err.message);
}

/* Polls the session's client until cond holds, for ten seconds at most. */
#define session_poll_until(s, cond, ms)                                                                             \
	do {                                                                                                        \
		time_t poll_start_ = time(NULL);                                                                    \
		while (!(cond) && time(NULL) - poll_start_ < 10)                                                    \
			cr_assert_geq(kube_client_poll((s)->cl.c, -1, (ms), &(s)->err), 0);                         \
	} while (0)

#endif
