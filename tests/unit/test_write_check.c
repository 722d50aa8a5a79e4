/* What a write came to (src/cmd/write_check.c): the result of what the
 * client returned, reading a node's labels and a pod again against the
 * fake API server, the counts of a closing line and the words for a lost
 * answer. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeapi_test_util.h"
#include "write_check.h"

TestSuite(write_check, .fini = fake_stop_all);

Test(write_check, result_of_what_the_client_returned)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(write_result_of(0, NULL), WRITE_DONE);
	kerr_set_status(&err, 422, "Invalid", "refused");
	cr_assert_eq(write_result_of(-1, &err), WRITE_FAILED);
	kerr_set(&err, KERR_REFUSED, "connection refused");
	cr_assert_eq(write_result_of(-1, &err), WRITE_FAILED);
	kerr_set(&err, KERR_TRANSPORT, "EOF");
	err.unanswered = true;
	cr_assert_eq(write_result_of(-1, &err), WRITE_UNKNOWN);
	kerr_release(&err);
	cr_assert(write_result_done(WRITE_CONFIRMED));
	cr_assert_not(write_result_done(WRITE_NOT_DONE));
}

Test(write_check, a_nodes_labels_read_again)
{
	struct fake_session s;
	enum write_result r = WRITE_UNKNOWN;
	/* node-0000 has gpushare=true */
	struct np_change labelled = {"gpushare", NULL, "true"};
	struct np_change as_before = {"gpushare", "true", NULL};
	struct np_change neither = {"gpushare", "false", "shared"};

	session_open(&s, 1, 0, "admin");
	cr_assert_eq(write_check_labels(s.cl.c, "node-0000", &labelled, 1, &r, &s.err), 0, "%s", s.err.message);
	cr_assert_eq(r, WRITE_CONFIRMED);
	cr_assert_eq(write_check_labels(s.cl.c, "node-0000", &as_before, 1, &r, &s.err), 0);
	cr_assert_eq(r, WRITE_NOT_DONE);
	cr_assert_eq(write_check_labels(s.cl.c, "node-0000", &neither, 1, &r, &s.err), 0);
	cr_assert_eq(r, WRITE_CHANGED);
	/* no read, no answer */
	r = WRITE_UNKNOWN;
	cr_assert_eq(write_check_labels(s.cl.c, "absent", &labelled, 1, &r, &s.err), -1);
	cr_assert_eq(s.err.code, 404);
	cr_assert_eq(r, WRITE_UNKNOWN);
	session_close(&s);
}

Test(write_check, a_pod_read_again)
{
	struct fake_session s;
	enum write_result r = WRITE_UNKNOWN;
	json_t *pod = NULL;
	const char *path = "/api/v1/namespaces/default/pods/pod-00000";
	char *uid;

	session_open(&s, 1, 1, "admin");
	cr_assert_eq(kube_get_json(s.cl.c, path, NULL, &pod, &s.err), 0, "%s", s.err.message);
	uid = strdup(json_string_value(json_object_get(json_object_get(pod, "metadata"), "uid")));
	json_decref(pod);
	cr_assert_eq(write_check_pod_gone(s.cl.c, "default", "pod-00000", uid, &r, &s.err), 0, "%s", s.err.message);
	cr_assert_eq(r, WRITE_NOT_DONE);
	/* another pod of that name: the one deleted is gone */
	cr_assert_eq(write_check_pod_gone(s.cl.c, "default", "pod-00000", "another-uid", &r, &s.err), 0);
	cr_assert_eq(r, WRITE_CONFIRMED);
	cr_assert_eq(write_check_pod_gone(s.cl.c, "default", "absent", uid, &r, &s.err), 0);
	cr_assert_eq(r, WRITE_CONFIRMED);
	client_close(&s.cl);

	/* a read that is refused tells nothing */
	client_open(&s.cl, &s.f, "nobody");
	r = WRITE_UNKNOWN;
	cr_assert_eq(write_check_pod_gone(s.cl.c, "default", "pod-00000", uid, &r, &s.err), -1);
	cr_assert_eq(s.err.code, 403);
	cr_assert_eq(r, WRITE_UNKNOWN);
	free(uid);
	session_close(&s);
}

Test(write_check, counts_and_words)
{
	struct write_tally t = {0};
	enum write_result all[] = {WRITE_DONE,	  WRITE_CONFIRMED, WRITE_NOT_DONE,	WRITE_CHANGED,
				   WRITE_FAILED, WRITE_UNKNOWN,	  WRITE_NOT_ATTEMPTED, WRITE_NOT_ATTEMPTED};
	struct kerr lost = KERR_INIT, read = KERR_INIT;
	char *out = NULL, *m;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		write_tally_add(&t, all[i]);
	write_tally_print(f, &t, "nodes");
	fclose(f);
	cr_assert_str_eq(out, "Of 8 nodes: 2 done, 3 failed, 1 unknown, 2 not attempted\n");
	free(out);

	kerr_set(&lost, KERR_TRANSPORT, "EOF");
	kerr_set_status(&read, 500, "InternalError", "down");
	m = write_lost_message(WRITE_UNKNOWN, &lost, &read, "labels", "kubectl get node n --show-labels");
	cr_assert_str_eq(m, "outcome unknown: the request was sent and its answer lost (Unable to connect to the server: "
			    "EOF); reading it again failed (Error from server (InternalError): down); check with: "
			    "kubectl get node n --show-labels");
	free(m);
	m = write_lost_message(WRITE_NOT_DONE, &lost, NULL, "pod", NULL);
	cr_assert_str_eq(m, "not done: the request was sent and its answer lost (Unable to connect to the server: EOF); "
			    "read again, the pod is as before");
	free(m);
	m = write_lost_message(WRITE_CHANGED, &lost, NULL, "labels", NULL);
	cr_assert(strstr(m, "changed by someone else: ") == m && strstr(m, "the labels are neither as before nor as "
									 "planned"),
		  "%s", m);
	free(m);
	m = write_lost_message(WRITE_CONFIRMED, &lost, NULL, "labels", NULL);
	cr_assert_str_eq(m, "done (confirmed after a lost answer: Unable to connect to the server: EOF)");
	free(m);
	kerr_release(&lost);
	kerr_release(&read);
}
