/* The single API calls (api.c) against the fake API server: errors as
 * kubectl prints them, short errors for bad bodies, PATCH, DELETE and POST,
 * and several GETs at once. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "fakeapi_test_util.h"

TestSuite(api, .fini = fake_stop_all);

Test(api, errors_401_403_404_as_kubectl_prints_them)
{
	struct fake_session s;
	json_t *j = NULL;

	session_open(&s, 1, 0, "badtoken");
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), -1);
	t_assert_printed(&s.err, "error: You must be logged in to the server (Unauthorized)\n");
	client_close(&s.cl);

	client_open(&s.cl, &s.f, "nobody");
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), -1);
	t_assert_printed(&s.err, "Error from server (Forbidden): nodes is forbidden: User \"nobody\" cannot list resource "
				 "\"nodes\" in API group \"\" at the cluster scope\n");
	client_close(&s.cl);

	client_open(&s.cl, &s.f, "viewer");
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes/no-such-node", NULL, &j, &s.err), -1);
	t_assert_printed(&s.err, "Error from server (NotFound): nodes \"no-such-node\" not found\n");
	session_close(&s);
}

Test(api, truncated_malformed_html_bodies_give_short_errors)
{
	struct fake_session s;
	struct kube_list l;
	json_t *j = NULL, *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "a", "b");
	char *printed;

	session_open(&s, 2, 0, "admin");

	/* a write is never retried after a transport failure */
	fault(&s.f, "{\"match\":{\"method\":\"PATCH\"},\"fault\":{\"type\":\"truncate\"},\"times\":1}");
	cr_assert_eq(kube_patch(s.cl.c, "/api/v1/nodes/node-0000", PATCH_MERGE, patch, NULL, &j, &s.err), -1);
	cr_assert_eq(s.err.kind, KERR_TRANSPORT, "%d %s", s.err.kind, s.err.message);
	cr_assert_lt(strlen(s.err.message), 200);

	/* a protobuf body that does not decode is asked for again as JSON: it
	 * takes two bad bodies to fail */
	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"malformed\"},\"times\":2}");
	l = list_of("/api/v1/nodes", OBJ_NODE, &s.g);
	cr_assert_eq(kube_list_run(s.cl.c, &l, 1, &s.err), -1);
	cr_assert_eq(s.err.kind, KERR_DECODE, "%d %s", s.err.kind, s.err.message);
	cr_assert_lt(strlen(s.err.message), 300, "%s", s.err.message);
	kube_list_release(&l);

	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"malformed\"},\"times\":1}");
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes/node-0001", NULL, &j, &s.err), -1);
	cr_assert_eq(s.err.kind, KERR_DECODE);
	cr_assert_lt(strlen(s.err.message), 300, "%s", s.err.message);

	fault(&s.f, "{\"match\":{\"path_prefix\":\"/api/v1/nodes\"},\"fault\":{\"type\":\"html\",\"code\":502},\"times\":1}");
	cr_assert_eq(kube_get_json(s.cl.c, "/api/v1/nodes", NULL, &j, &s.err), -1);
	printed = t_printed(&s.err);
	cr_assert(strncmp(printed,
			  "Error from server (InternalError): an error on the server (\"<html> <head><title>502 Bad "
			  "Gateway",
			  86) == 0,
		  "%s", printed);
	cr_assert(strstr(printed, "has prevented the request from succeeding (get nodes)\n") != NULL, "%s", printed);
	free(printed);
	json_decref(patch);
	session_close(&s);
}

/* The one request in the server's log at index i: its method, and its
 * content type where one is given. */
static json_t *logged_request(json_t *log, size_t i, const char *method, const char *content_type)
{
	json_t *r = json_array_get(log, i);

	cr_assert_str_eq(json_string_value(json_object_get(r, "method")), method);
	if (content_type)
		cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "headers"), "content-type")),
				 content_type);
	return r;
}

Test(api, patch_conflict_and_delete_precondition)
{
	struct fake_session s;
	json_t *j = NULL, *log, *r;
	json_t *patch = json_pack("{s:{s:s,s:{s:s}}}", "metadata", "resourceVersion", "1", "labels", "a", "b");
	json_t *opts = json_pack("{s:s,s:s,s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1", "preconditions",
				 "uid", "not-the-uid");
	struct kube_write_opts w = {.dry_run = true, .field_manager = "kubectl-label"};
	char *printed;

	session_open(&s, 1, 1, "admin");
	cr_assert_eq(kube_patch(s.cl.c, "/api/v1/nodes/node-0000", PATCH_MERGE, patch, &w, &j, &s.err), -1);
	cr_assert_eq(s.err.code, 409);
	printed = t_printed(&s.err);
	cr_assert(strncmp(printed, "Error from server (Conflict): ", 30) == 0, "%s", printed);
	free(printed);
	cr_assert_eq(kube_delete(s.cl.c, "/api/v1/namespaces/default/pods/pod-00000", opts, NULL, &j, &s.err), -1);
	cr_assert_eq(s.err.code, 409);
	cr_assert_str_eq(s.err.reason, "Conflict");
	log = requests(&s.f);
	r = logged_request(log, 0, "PATCH", "application/merge-patch+json");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "query"), "dryRun")), "All");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "query"), "fieldManager")),
			 "kubectl-label");
	r = logged_request(log, 1, "DELETE", NULL);
	cr_assert_eq(json_object_size(json_object_get(r, "query")), 0);
	cr_assert(strstr(json_string_value(json_object_get(r, "body")), "not-the-uid") != NULL);
	json_decref(log);

	/* a successful patch returns the object */
	json_object_del(json_object_get(patch, "metadata"), "resourceVersion");
	cr_assert_eq(kube_patch(s.cl.c, "/api/v1/nodes/node-0000", PATCH_STRATEGIC, patch, NULL, &j, &s.err), 0,
		     "%s", s.err.message);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(j, "metadata"), "labels"),
							   "a")),
			 "b");
	json_decref(j);
	json_decref(patch);
	json_decref(opts);
	session_close(&s);
}

Test(api, post_eviction)
{
	struct fake_session s;
	json_t *j = NULL, *log;
	json_t *ev = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion", "policy/v1", "kind", "Eviction", "metadata",
			       "name", "pod-00000", "namespace", "default");

	session_open(&s, 1, 1, "admin");
	cr_assert_eq(kube_post(s.cl.c, "/api/v1/namespaces/default/pods/pod-00000/eviction", ev, NULL, &j, &s.err), 0,
		     "%s", s.err.message);
	cr_assert_str_eq(json_string_value(json_object_get(j, "status")), "Success");
	json_decref(j);
	log = requests(&s.f);
	cr_assert_eq(json_object_size(json_object_get(logged_request(log, 0, "POST", "application/json"), "query")), 0);
	json_decref(log);
	json_decref(ev);
	session_close(&s);
}

/* Several GETs at once: each gets its own body or its own error. */
Test(api, get_json_all_each_its_own_outcome)
{
	struct fake_session s;
	struct kube_get reqs[3] = {
		{.path = "/api/v1/nodes/node-0000"},
		{.path = "/api/v1/nodes/absent"},
		{.path = "/api/v1/nodes", .query = "limit=1"},
	};

	session_open(&s, 2, 0, "admin-token");
	cr_assert_eq(kube_get_json_all(s.cl.c, reqs, 3, &s.err), 0, "%s", s.err.message);
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
	session_close(&s);
}

/* A server for writes whose answers go missing: /done answers 200, /refused
 * 422, /lost reads the whole request and closes the connection without a
 * word, /hang reads it and waits; GET /lost-count says how many requests
 * /lost received. */
static const char lossy_server[] =
	"import http.server, json, socketserver, time\n"
	"lost = [0]\n"
	"class H(http.server.BaseHTTPRequestHandler):\n"
	"    protocol_version = 'HTTP/1.1'\n"
	"    def log_message(self, *a): pass\n"
	"    def answer(self, code, doc):\n"
	"        b = json.dumps(doc).encode()\n"
	"        self.send_response(code)\n"
	"        self.send_header('Content-Type', 'application/json')\n"
	"        self.send_header('Content-Length', str(len(b)))\n"
	"        self.end_headers()\n"
	"        self.wfile.write(b)\n"
	"    def do_GET(self):\n"
	"        if self.path.startswith('/lost-count'):\n"
	"            return self.answer(200, {'n': lost[0]})\n"
	"        self.answer(200, {'kind': 'NodeList', 'apiVersion': 'v1', 'items': []})\n"
	"    def do_PATCH(self):\n"
	"        self.rfile.read(int(self.headers.get('Content-Length', '0')))\n"
	"        name = self.path.split('?')[0].rsplit('/', 1)[-1]\n"
	"        if name == 'done':\n"
	"            return self.answer(200, {'kind': 'Node', 'metadata': {'name': 'done'}})\n"
	"        if name == 'refused':\n"
	"            return self.answer(422, {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',\n"
	"                'message': 'refused', 'reason': 'Invalid', 'code': 422})\n"
	"        if name == 'hang':\n"
	"            time.sleep(5)\n"
	"        lost[0] += 1\n"
	"        self.close_connection = True\n"
	"class S(socketserver.ThreadingMixIn, http.server.HTTPServer):\n"
	"    daemon_threads = True\n"
	"s = S(('127.0.0.1', 0), H)\n"
	"print('port %d' % s.server_address[1], flush=True)\n"
	"s.serve_forever()\n";

static enum kube_write_outcome patch_outcome(struct kube_client *c, const char *name, struct kerr *err)
{
	json_t *body = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "a", "b");
	char path[64];
	int rc;

	snprintf(path, sizeof(path), "/api/v1/nodes/%s", name);
	rc = kube_patch(c, path, PATCH_MERGE, body, NULL, NULL, err);
	json_decref(body);
	return kube_write_outcome(rc, err);
}

/* Done, refused with the server's answer, never sent, or sent and its
 * answer lost: the last is neither a failure nor sent again. */
Test(api, write_outcomes_tell_unsent_from_unanswered)
{
	const char *argv[] = {"python3", "-c", lossy_server, NULL};
	struct kube_config cfg = {0};
	struct kube_client *c;
	struct kerr err = KERR_INIT;
	json_t *j = NULL;
	pid_t pid;
	int port = t_spawn_port(argv, "the lossy server", &pid);

	cfg.server = malloc(64);
	snprintf(cfg.server, 64, "http://127.0.0.1:%d", port);
	cr_assert_eq(kube_client_new(&cfg, &(struct kube_client_options){.request_timeout_ms = 1000}, &c, &err), 0);
	/* a kept-alive connection, which the lost write then finds open */
	cr_assert_eq(kube_get_json(c, "/api/v1/nodes", NULL, &j, &err), 0, "%s", err.message);
	json_decref(j);
	cr_assert_eq(patch_outcome(c, "done", &err), KUBE_WRITE_DONE);
	cr_assert_eq(patch_outcome(c, "refused", &err), KUBE_WRITE_REFUSED);
	cr_assert_eq(err.code, 422);
	cr_assert_not(err.unanswered);
	cr_assert_eq(patch_outcome(c, "lost", &err), KUBE_WRITE_UNKNOWN, "%s", err.message);
	cr_assert_eq(err.kind, KERR_TRANSPORT);
	cr_assert_eq(kube_get_json(c, "/lost-count", NULL, &j, &err), 0, "%s", err.message);
	cr_assert_eq(json_integer_value(json_object_get(j, "n")), 1, "the lost write was sent again");
	json_decref(j);
	cr_assert_eq(patch_outcome(c, "hang", &err), KUBE_WRITE_UNKNOWN, "%s", err.message);
	cr_assert(strstr(err.message, "Client.Timeout") != NULL, "%s", err.message);
	kube_client_free(c);

	/* TLS spoken to a server that does not: the request never left */
	snprintf(cfg.server, 64, "https://127.0.0.1:%d", port);
	cfg.insecure_skip_tls_verify = true;
	cr_assert_eq(kube_client_new(&cfg, NULL, &c, &err), 0);
	cr_assert_eq(patch_outcome(c, "done", &err), KUBE_WRITE_NOT_SENT, "%s", err.message);
	cr_assert_eq(err.kind, KERR_TRANSPORT);
	kube_client_free(c);
	t_child_stop(pid);

	/* nobody listens there any more: refused, not sent */
	snprintf(cfg.server, 64, "http://127.0.0.1:%d", port);
	cr_assert_eq(kube_client_new(&cfg, NULL, &c, &err), 0);
	cr_assert_eq(patch_outcome(c, "done", &err), KUBE_WRITE_NOT_SENT, "%s", err.message);
	cr_assert_eq(err.kind, KERR_REFUSED);
	cr_assert_eq(kube_write_outcome(-1, NULL), KUBE_WRITE_NOT_SENT);
	kerr_release(&err);
	kube_client_free(c);
	free(cfg.server);
}

/* Discovery picks the newest version of a group the server serves; a
 * server without the group is no error. */
Test(api, group_version_newest_served)
{
	static const char *const dra[] = {"v1", "v1beta2", "v1beta1", NULL};
	struct fake_session s;
	const char *v = "unset";

	session_open_opts(&s, 1, 0, "--resource-versions v1beta2,v1beta1", "admin",
			  (struct kube_client_options){0});
	cr_assert_eq(kube_group_version(s.cl.c, "resource.k8s.io", dra, &v, &s.err), 0, "%s", s.err.message);
	cr_assert_str_eq(v, "v1beta2");
	session_close(&s);

	session_open_opts(&s, 1, 0, "--resource-versions v1,v1beta2,v1beta1", "admin",
			  (struct kube_client_options){0});
	cr_assert_eq(kube_group_version(s.cl.c, "resource.k8s.io", dra, &v, &s.err), 0, "%s", s.err.message);
	cr_assert_str_eq(v, "v1");
	session_close(&s);

	session_open(&s, 1, 0, "admin");
	cr_assert_eq(kube_group_version(s.cl.c, "resource.k8s.io", dra, &v, &s.err), 0, "%s", s.err.message);
	cr_assert_null(v);
	cr_assert_eq(s.err.kind, KERR_NONE);
	/* a refusal is an error */
	client_close(&s.cl);
	client_open(&s.cl, &s.f, "badtoken");
	cr_assert_eq(kube_group_version(s.cl.c, "resource.k8s.io", dra, &v, &s.err), -1);
	session_close(&s);
}
