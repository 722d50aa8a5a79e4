/* What a write came to (write_check.h): the result the client gives, the
 * reading again per kind of object after a lost answer, and the lines that
 * say it.  A write is never sent again here: where its answer was lost,
 * what the server holds now is what is reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodesel.h"
#include "termsafe.h"
#include "write_check.h"

enum write_result write_result_of(int rc, const struct kerr *err)
{
	switch (kube_write_outcome(rc, err)) {
	case KUBE_WRITE_DONE:
		return WRITE_DONE;
	case KUBE_WRITE_UNKNOWN:
		return WRITE_UNKNOWN;
	case KUBE_WRITE_REFUSED:
	case KUBE_WRITE_NOT_SENT:
		break;
	}
	return WRITE_FAILED;
}

static bool same_value(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

int write_check_labels(struct kube_client *c, const char *node, const struct np_change *changes, size_t n,
		       enum write_result *ret, struct kerr *err)
{
	struct np_node now;
	size_t as_after = 0, as_before = 0;

	if (np_node_get(c, node, &now, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *v = kvlist_get(&now.labels, changes[i].key);

		as_after += same_value(v, changes[i].after);
		as_before += same_value(v, changes[i].before);
	}
	np_node_release(&now);
	*ret = as_after == n ? WRITE_CONFIRMED : as_before == n ? WRITE_NOT_DONE : WRITE_CHANGED;
	return 0;
}

int write_check_pod_gone(struct kube_client *c, const char *ns, const char *name, const char *uid,
			 enum write_result *ret, struct kerr *err)
{
	char *path = kube_path("v1", ns, "pods", name);
	json_t *pod = NULL, *meta;
	int rc;

	if (!path)
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = kube_get_json(c, path, NULL, &pod, err);
	free(path);
	if (rc < 0) {
		if (!cli_drop_status(err, 404, 404))
			return -1;
		*ret = WRITE_CONFIRMED;
		return 0;
	}
	meta = json_object_get(pod, "metadata");
	*ret = !same_value(json_string_value(json_object_get(meta, "uid")), uid) ||
			       json_is_string(json_object_get(meta, "deletionTimestamp"))
		       ? WRITE_CONFIRMED
		       : WRITE_NOT_DONE;
	json_decref(pod);
	return 0;
}

void write_tally_add(struct write_tally *t, enum write_result r)
{
	switch (r) {
	case WRITE_DONE:
	case WRITE_CONFIRMED:
		t->done++;
		break;
	case WRITE_NOT_DONE:
	case WRITE_CHANGED:
	case WRITE_FAILED:
		t->failed++;
		break;
	case WRITE_UNKNOWN:
		t->unknown++;
		break;
	case WRITE_NOT_ATTEMPTED:
		t->not_attempted++;
		break;
	}
}

void write_tally_print(FILE *f, const struct write_tally *t, const char *what)
{
	fprintf(f, "Of %zu %s: %zu done, %zu failed, %zu unknown, %zu not attempted\n",
		t->done + t->failed + t->unknown + t->not_attempted, what, t->done, t->failed, t->unknown,
		t->not_attempted);
}

char *write_error_line(const struct kerr *err)
{
	struct kerr worded = KERR_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	kerr_copy(&worded, err);
	cli_word_error(&worded);
	kerr_print(m, &worded);
	kerr_release(&worded);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

char *write_lost_message(enum write_result result, const struct kerr *lost, const struct kerr *read,
			 const char *what, const char *check)
{
	char *l = write_error_line(lost), *r = NULL, *msg = NULL;
	int n = -1;

	switch (result) {
	case WRITE_CONFIRMED:
		n = asprintf(&msg, "done (confirmed after a lost answer: %s)", l ? l : "");
		break;
	case WRITE_NOT_DONE:
		n = asprintf(&msg, "not done: the request was sent and its answer lost (%s); read again, the %s %s as before",
			     l ? l : "", what, strcmp(what, "labels") == 0 ? "are" : "is");
		break;
	case WRITE_CHANGED:
		n = asprintf(&msg, "changed by someone else: the request was sent and its answer lost (%s); read again, "
				   "the %s %s neither as before nor as planned",
			     l ? l : "", what, strcmp(what, "labels") == 0 ? "are" : "is");
		break;
	default:
		r = read ? write_error_line(read) : NULL;
		n = asprintf(&msg, "outcome unknown: the request was sent and its answer lost (%s); reading it again "
				   "failed (%s); check with: %s",
			     l ? l : "", r ? r : "", check ? check : "");
		break;
	}
	free(l);
	free(r);
	return n < 0 ? NULL : msg;
}
