/* The client and its requests (transport.c) against the fake API server:
 * TLS and its settings, credentials (never over plain HTTP, asked again
 * after a 401), impersonation, the -v=8 log, gzip, a proxy, and, from a
 * small stand-in server, Warning headers shown once. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fakeapi_test_util.h"

TestSuite(transport, .fini = fake_stop_all);

/* A session whose client verifies the server with the system trust store
 * alone, which does not know the fake server's per-run CA. */
static void session_open_without_ca(struct fake_session *s)
{
	session_open(s, 1, 0, "admin-token");
	free(s->cl.cfg.ca.data);
	s->cl.cfg.ca.data = NULL;
	s->cl.cfg.ca.len = 0;
}

Test(transport, unknown_ca_is_a_certificate_error)
{
	struct fake_session s;
	json_t *j = NULL;

	session_open_without_ca(&s);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), -1);
	cr_assert_eq(s.err.kind, KERR_TRANSPORT);
	t_assert_printed(&s.err, "Unable to connect to the server: tls: failed to verify certificate: x509: "
				 "certificate signed by unknown authority\n");
	session_close(&s);
}

Test(transport, insecure_skip_verify_and_tls_server_name)
{
	struct fake_session s;
	json_t *j = NULL;

	session_open_without_ca(&s);
	s.cl.cfg.insecure_skip_tls_verify = true;
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes/node-0000", NULL, &j, &s.err), 0, "%s", s.err.message);
	json_decref(j);
	client_close(&s.cl);

	/* the certificate names localhost and 127.0.0.1; the server is reached by address */
	client_open(&s.cl, &s.f, "admin-token");
	s.cl.cfg.tls_server_name = strdup("localhost");
	session_renew_client(&s);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes/node-0000", NULL, &j, &s.err), 0, "%s", s.err.message);
	json_decref(j);
	free(s.cl.cfg.tls_server_name);
	s.cl.cfg.tls_server_name = strdup("wrong.example");
	session_renew_client(&s);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes/node-0000", NULL, &j, &s.err), -1);
	cr_assert_eq(s.err.kind, KERR_TRANSPORT);
	cr_assert(strstr(s.err.message, "certificate") != NULL, "%s", s.err.message);
	session_close(&s);
}

Test(transport, credentials_never_over_plain_http)
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

Test(transport, verbose_8_redacts_the_token)
{
	struct fake_session s;
	json_t *j = NULL;
	const char *log;

	session_open_opts(&s, 1, 0, NULL, "admin-token", (struct kube_client_options){.verbosity = 8});
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", "labelSelector=gpushare%3Dtrue", &j, &s.err), 0);
	json_decref(j);
	log = client_log(&s.cl);
	cr_assert(strstr(log, "GET https://127.0.0.1:") != NULL, "%s", log);
	cr_assert(strstr(log, "/api/v1/nodes?labelSelector=gpushare%3Dtrue 200 OK in ") != NULL, "%s", log);
	cr_assert(strstr(log, " milliseconds\n") != NULL);
	cr_assert(strstr(log, "Request Headers:") != NULL);
	cr_assert(strstr(log, "Authorization: Bearer <masked>") != NULL, "%s", log);
	cr_assert(strstr(log, "Response Headers:") != NULL);
	cr_assert(strstr(log, s.cl.cfg.token) == NULL, "the token leaked into the log");
	session_close(&s);
}

Test(transport, gzip_is_used_for_large_bodies)
{
	struct fake_session s;
	const char *log;

	/* (JSON: these small pods in protobuf stay under the server's gzip threshold) */
	session_open_opts(&s, 1, 600, NULL, "admin", (struct kube_client_options){.verbosity = 8, .json_only = true});
	session_list(&s, "/api/v1/pods", OBJ_POD, 0);
	cr_assert_eq(s.g.pods, 600);
	log = client_log(&s.cl);
	cr_assert(strstr(log, "Content-Encoding: gzip") != NULL, "no gzip response: %s", log);
	cr_assert(strstr(log, "Accept: application/json\n") != NULL, "%s", log);
	session_close(&s);
}

Test(transport, impersonation_headers)
{
	struct fake_session s;
	json_t *j = NULL, *log, *h;
	char *groups[] = {"team-a", "team-b", NULL};

	session_open(&s, 1, 0, "admin");
	s.cl.cfg.impersonate_user = strdup("viewer");
	s.cl.cfg.impersonate_uid = strdup("1234");
	s.cl.cfg.impersonate_groups = groups;
	kvlist_add(&s.cl.cfg.impersonate_extra, "scopes", 6, "view", 4);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), 0, "%s", s.err.message);
	json_decref(j);
	log = requests(&s.f);
	h = json_object_get(json_array_get(log, 0), "headers");
	cr_assert_str_eq(json_string_value(json_object_get(h, "impersonate-user")), "viewer");
	cr_assert_str_eq(json_string_value(json_object_get(h, "impersonate-uid")), "1234");
	cr_assert_str_eq(json_string_value(json_object_get(h, "impersonate-extra-scopes")), "view");
	cr_assert(json_is_array(json_object_get(h, "impersonate-group")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(h, "impersonate-group"), 1)), "team-b");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(log, 0), "impersonated_user")), "viewer");
	json_decref(log);
	s.cl.cfg.impersonate_groups = NULL;
	session_close(&s);
}

/* Writes the file name in dir from fmt, with mode; path receives its path. */
static void write_file(char path[256], const char *dir, const char *name, mode_t mode, const char *fmt, ...)
{
	va_list ap;
	FILE *fh;

	snprintf(path, 256, "%s/%s", dir, name);
	fh = fopen(path, "w");
	cr_assert_not_null(fh, "%s", path);
	va_start(ap, fmt);
	vfprintf(fh, fmt, ap);
	va_end(ap);
	fclose(fh);
	chmod(path, mode);
}

Test(transport, exec_plugin_asked_again_after_401)
{
	struct fake_session s;
	json_t *j = NULL, *log;
	char path[256], *token;

	session_open(&s, 1, 0, "admin-token");
	token = strdup(s.cl.cfg.token);
	client_close(&s.cl);

	/* the plugin hands out a revoked token first, a good one after */
	write_file(path, s.f.dir, "plugin.sh", 0700,
		   "#!/bin/sh\n"
		   "n=$(cat %s/count 2>/dev/null || echo 0)\n"
		   "echo $((n + 1)) > %s/count\n"
		   "if [ \"$n\" = 0 ]; then t=revoked; else t=%s; fi\n"
		   "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
		   "\"status\":{\"token\":\"%%s\"}}' \"$t\"\n",
		   s.f.dir, s.f.dir, token);
	write_file(path, s.f.dir, "exec-kubeconfig", 0600,
		   "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: %s\n"
		   "    certificate-authority: %s\ncontexts:\n- name: exec\n  context:\n    cluster: fake\n"
		   "    user: exec\ncurrent-context: exec\nusers:\n- name: exec\n  user:\n    exec:\n"
		   "      apiVersion: client.authentication.k8s.io/v1\n      command: %s/plugin.sh\n"
		   "      interactiveMode: Never\n",
		   s.f.url, s.f.ca, s.f.dir);
	strcpy(s.f.kubeconfig, path);

	client_open(&s.cl, &s.f, NULL);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), 0, "%s", s.err.message);
	json_decref(j);
	log = requests(&s.f);
	cr_assert_eq(count_requests(log, "GET", "/api/v1/nodes"), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(log, 0), "status")), 401);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(log, 1), "user")), "admin");
	json_decref(log);
	free(token);
	session_close(&s);
}

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

Test(transport, warning_printed_once_per_message)
{
	const char *argv[] = {"python3", "-c", stand_in, NULL};
	int port;
	pid_t pid;
	struct kube_config cfg = {0};
	struct kube_client *c;
	struct kerr err = KERR_INIT;
	char *log = NULL;
	size_t loglen = 0;
	FILE *logf = open_memstream(&log, &loglen);

	port = t_spawn_port(argv, "the stand-in server", &pid);
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
	t_child_stop(pid);
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

Test(transport, proxy_url_is_used)
{
	struct fake_session s;
	json_t *j = NULL;
	int port;
	pid_t pid;
	char count[160], got[128] = "", want[64];
	const char *argv[] = {"python3", "-c", connect_proxy, count, NULL};
	FILE *out;

	session_open(&s, 1, 0, "admin-token");
	snprintf(count, sizeof(count), "%s/tunnels", s.f.dir);
	port = t_spawn_port(argv, "the proxy", &pid);

	s.cl.cfg.proxy_url = malloc(64);
	snprintf(s.cl.cfg.proxy_url, 64, "http://127.0.0.1:%d", port);
	session_renew_client(&s);
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), 0, "%s", s.err.message);
	json_decref(j);
	out = fopen(count, "r");
	cr_assert_not_null(out, "the request did not go through the proxy");
	cr_assert_not_null(fgets(got, sizeof(got), out));
	fclose(out);
	snprintf(want, sizeof(want), "127.0.0.1:%d\n", s.f.port);
	cr_assert_str_eq(got, want);
	t_child_stop(pid);
	session_close(&s);
}
