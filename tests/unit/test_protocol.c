/* The protocol's pure rules (protocol.c): path escaping, query strings as Go
 * writes them, Warning headers, Retry-After, the User-Agent, the resource a
 * path names, and failed responses in kubectl's wording. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "kerr_test_util.h"
#include "kube.h"
#include "kube_internal.h"
#include "kubeconfig.h"

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

/* path names resource, and the object name (NULL: none). */
static void assert_path_resource(const char *path, const char *resource, const char *name)
{
	char *r, *n;

	cr_assert_eq(kube_path_resource(path, &r, &n), 0, "%s", path);
	cr_assert_str_eq(r, resource);
	if (name)
		cr_assert_str_eq(n, name);
	else
		cr_assert_null(n);
	free(r);
	free(n);
}

Test(path_resource, names_like_client_go)
{
	char *r, *n;

	assert_path_resource("/api/v1/nodes", "nodes", NULL);
	assert_path_resource("/api/v1/namespaces/default/pods/p1/eviction", "pods", "p1");
	assert_path_resource("/apis/apps/v1/namespaces/kube-system/daemonsets", "daemonsets.apps", NULL);
	assert_path_resource("/api/v1/namespaces/kube-system", "namespaces", "kube-system");
	cr_assert_eq(kube_path_resource("/version", &r, &n), -1);
}

/* A GET of /api/v1/nodes answered with code and body is a Status error
 * that kubectl prints as want. */
static void assert_status_printed(long code, const char *content_type, const char *body, const char *want)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(kube_status_error(code, content_type, "GET", "/api/v1/nodes", body, strlen(body), &err), -1);
	cr_assert_eq(err.kind, KERR_STATUS);
	cr_assert_eq(err.code, code);
	t_assert_printed(&err, want);
	kerr_release(&err);
}

Test(status, forbidden_body_as_kubectl_prints_it)
{
	assert_status_printed(403, "application/json",
			      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
			      "\"message\":\"nodes is forbidden: User \\\"viewer\\\" cannot list resource \\\"nodes\\\" "
			      "in API group \\\"\\\" at the cluster scope\",\"reason\":\"Forbidden\",\"details\":"
			      "{\"kind\":\"nodes\"},\"code\":403}",
			      "Error from server (Forbidden): nodes is forbidden: User \"viewer\" cannot list resource "
			      "\"nodes\" in API group \"\" at the cluster scope\n");
}

Test(status, unauthorized)
{
	assert_status_printed(401, "application/json",
			      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
			      "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}",
			      "error: You must be logged in to the server (Unauthorized)\n");
}

Test(status, html_from_a_proxy_is_cut_and_cleaned)
{
	assert_status_printed(502, "text/html",
			      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
			      "Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
			      "Error from server (InternalError): an error on the server (\"<html> <head><title>502 Bad "
			      "Gateway</title></head> <body> <center><h1>502 Bad Gateway</h1></center> <hr><center>nginx"
			      "</center> </body> </html>\") has prevented the request from succeeding (get nodes)\n");
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
