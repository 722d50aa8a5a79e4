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

Test(api, truncated_malformed_html_bodies_give_short_errors)
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

Test(api, patch_conflict_and_delete_precondition)
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

Test(api, post_eviction)
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

/* Several GETs at once: each gets its own body or its own error. */
Test(api, get_json_all_each_its_own_outcome)
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
