/* The single API calls on top of the transport: GET (one or several at
 * once), PATCH, DELETE and POST of small JSON documents.  Paged lists are in
 * list.c, watches in watch.c.
 */
#include "kube.h"
#include "kube_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sync_req {
	bool done;
	bool streamed; /* the 2xx body went to a data sink */
	int (*data)(void *ud, const char *p, size_t n, struct kerr *err);
	void *data_ud;
	struct kerr err;
	struct buf body;
	long code;
	char *resp_type;
};

static int sync_data(void *ud, const char *p, size_t n, struct kerr *err)
{
	struct sync_req *s = ud;

	return s->data(s->data_ud, p, n, err);
}

static void sync_done(void *ud, struct xfer *x, const struct kerr *err)
{
	struct sync_req *s = ud;

	s->done = true;
	s->code = x->code;
	if (err) {
		/* a copy: the caller of done releases its own */
		kerr_copy(&s->err, err);
	} else {
		s->body = x->body;
		memset(&x->body, 0, sizeof(x->body));
		s->resp_type = x->resp_type;
		x->resp_type = NULL;
	}
}

static char *query_for_write(struct kube_client *c, const struct kube_write_opts *w)
{
	char tbuf[32] = "";
	const char *kv[] = {
		"dryRun", w && w->dry_run ? "All" : NULL,
		"fieldManager", w && w->field_manager ? w->field_manager : NULL,
		"timeout", NULL,
	};

	if (c->timeout_ms > 0) {
		if (c->timeout_ms % 1000 == 0)
			snprintf(tbuf, sizeof(tbuf), "%lds", c->timeout_ms / 1000);
		else
			snprintf(tbuf, sizeof(tbuf), "%ldms", c->timeout_ms);
		kv[5] = tbuf;
	}
	return kube_query_build(kv, 3);
}

/* Join the caller's query with ours (timeout=). */
static char *join_query(const char *a, const char *b)
{
	if (a && *a && b && *b)
		return xasprintf("%s&%s", a, b);
	if (a && *a)
		return strdup(a);
	return strdup(b ? b : "");
}

static void sync_release(struct sync_req *s)
{
	kerr_release(&s->err);
	buf_release(&s->body);
	free(s->resp_type);
}

/* A finished request's outcome: the decoded 2xx body, or the error (a
 * Status body becomes the error kubectl would print).  Releases s. */
static int sync_finish(struct sync_req *s, const char *method, const char *path, json_t **ret, struct kerr *err)
{
	json_t *j;
	json_error_t jerr;
	int r = -1;

	if (s->err.kind != KERR_NONE) {
		kerr_move(err, &s->err);
		goto out;
	}
	if (s->streamed) {
		r = 0;
		goto out;
	}
	if (s->body.truncated) {
		kerr_set(err, KERR_DECODE, "the response to %s %s is too large", method, path);
		err->code = s->code;
		goto out;
	}
	if (s->body.len == 0) {
		if (ret)
			*ret = json_object();
		r = 0;
		goto out;
	}
	j = json_loadb(s->body.data, s->body.len, 0, &jerr);
	if (!j) {
		kerr_set(err, KERR_DECODE, "the server returned a response that is not JSON (%s %s): %.80s", method,
			 path, jerr.text);
		err->code = s->code;
		goto out;
	}
	if (kube_status_from_json(j, s->code, err) == 0) {
		json_decref(j);
		goto out;
	}
	if (ret)
		*ret = j;
	else
		json_decref(j);
	r = 0;
out:
	sync_release(s);
	return r;
}

static int request_json(struct kube_client *c, const char *method, const char *path, const char *query,
			const char *content_type, const json_t *body, json_t **ret, struct kerr *err)
{
	struct sync_req s = {0};
	struct xfer *x;

	if (!c || !path)
		return kerr_set(err, KERR_OTHER, "invalid request");
	x = xfer_new(c, method, path, query);
	if (!x)
		return kerr_set(err, KERR_OTHER, "out of memory");
	x->content_type = content_type;
	if (body) {
		x->req_body = json_dumps(body, JSON_COMPACT);
		if (!x->req_body) {
			xfer_free(x);
			return kerr_set(err, KERR_OTHER, "cannot encode the request body");
		}
		x->req_len = strlen(x->req_body);
	}
	x->done = sync_done;
	x->ud = &s;
	xfer_queue(x, 0);
	if (client_run_until(c, &s.done, err) < 0) {
		xfer_free(x);
		sync_release(&s);
		return -1;
	}
	xfer_free(x);
	return sync_finish(&s, method, path, ret, err);
}

static char *query_with_timeout(struct kube_client *c, const char *query)
{
	char *t = query_for_write(c, NULL), *q;

	if (!t)
		return NULL;
	q = join_query(query, t);
	free(t);
	return q;
}

int kube_get_json(struct kube_client *c, const char *path, const char *query, json_t **ret, struct kerr *err)
{
	char *q;
	int r;

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	q = query_with_timeout(c, query);
	if (!q)
		return kerr_set(err, KERR_OTHER, "out of memory");
	r = request_json(c, "GET", path, q, NULL, NULL, ret, err);
	free(q);
	return r;
}

/* Whether the group document lists version v. */
static bool group_serves(json_t *group, const char *v)
{
	size_t i;
	json_t *gv;

	json_array_foreach(json_object_get(group, "versions"), i, gv) {
		const char *s = json_string_value(json_object_get(gv, "version"));

		if (s && strcmp(s, v) == 0)
			return true;
	}
	return false;
}

/* The version of one answered group document (NULL when the server has
 * none of versions, or no such group: a 404).  Releases s. */
static int group_answer(struct sync_req *s, const char *path, const char *const *versions, const char **ret,
			struct kerr *err)
{
	json_t *doc = NULL;

	*ret = NULL;
	if (sync_finish(s, "GET", path, &doc, err) < 0) {
		if (err->kind != KERR_STATUS || err->code != 404)
			return -1;
		kerr_release(err);
		return 0;
	}
	for (size_t i = 0; versions[i] && !*ret; i++)
		if (group_serves(doc, versions[i]))
			*ret = versions[i];
	json_decref(doc);
	return 0;
}

int kube_group_versions(struct kube_client *const *cs, size_t n, const char *group, const char *const *versions,
			const char **rets, struct kerr *errs)
{
	struct sync_req *s = calloc(n + 1, sizeof(*s));
	struct xfer **x = calloc(n + 1, sizeof(*x));
	char *path = xasprintf("/apis/%s", group);
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		char *q = s && x && path && cs[i] ? query_with_timeout(cs[i], NULL) : NULL;
		struct xfer *xi = q ? xfer_new(cs[i], "GET", path, q) : NULL;

		free(q);
		rets[i] = NULL;
		if (x)
			x[i] = xi;
		if (!xi) {
			r = cs[i] ? kerr_set(&errs[i], KERR_OTHER, "out of memory") : r;
			continue;
		}
		x[i]->done = sync_done;
		x[i]->ud = &s[i];
		xfer_queue(x[i], 0);
	}
	/* all are queued: clients on one loop answer together */
	for (size_t i = 0; x && i < n; i++) {
		if (!x[i])
			continue;
		if (client_run_until(cs[i], &s[i].done, &errs[i]) < 0) {
			sync_release(&s[i]);
			r = -1;
		} else if (group_answer(&s[i], path, versions, &rets[i], &errs[i]) < 0) {
			r = -1;
		}
		xfer_free(x[i]);
	}
	free(path);
	free(s);
	free(x);
	return r;
}

int kube_group_version(struct kube_client *c, const char *group, const char *const *versions, const char **ret,
		       struct kerr *err)
{
	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	return kube_group_versions(&c, 1, group, versions, ret, err);
}

int kube_get_json_all(struct kube_client *c, struct kube_get *reqs, size_t n, struct kerr *err)
{
	struct sync_req *s;
	struct xfer **x;
	int r = 0;

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	s = calloc(n + 1, sizeof(*s));
	x = calloc(n + 1, sizeof(*x));
	if (!s || !x) {
		free(s);
		free(x);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		char *q = query_with_timeout(c, reqs[i].query);

		reqs[i].result = NULL;
		x[i] = q && reqs[i].path ? xfer_new(c, "GET", reqs[i].path, q) : NULL;
		free(q);
		if (!x[i]) {
			r = kerr_set(err, KERR_OTHER, "out of memory");
			break;
		}
		x[i]->done = sync_done;
		x[i]->ud = &s[i];
		if (reqs[i].data) {
			s[i].streamed = true;
			s[i].data = reqs[i].data;
			s[i].data_ud = reqs[i].ud;
			x[i]->data = sync_data;
		}
		xfer_queue(x[i], 0);
	}
	/* all are queued: waiting for one drives them all */
	for (size_t i = 0; r == 0 && i < n; i++)
		r = client_run_until(c, &s[i].done, err);
	for (size_t i = 0; i < n; i++) {
		if (x[i])
			xfer_free(x[i]);
		if (r == 0)
			sync_finish(&s[i], "GET", reqs[i].path, &reqs[i].result, &reqs[i].err);
		else
			sync_release(&s[i]);
	}
	free(s);
	free(x);
	return r;
}

int kube_patch(struct kube_client *c, const char *path, enum kube_patch_type type, const json_t *body,
	       const struct kube_write_opts *w, json_t **ret, struct kerr *err)
{
	static const char *const types[] = {
		[PATCH_MERGE] = "application/merge-patch+json",
		[PATCH_STRATEGIC] = "application/strategic-merge-patch+json",
		[PATCH_JSON] = "application/json-patch+json",
	};
	char *q;
	int r;

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	if ((unsigned)type > PATCH_JSON || !body)
		return kerr_set(err, KERR_OTHER, "invalid patch");
	q = query_for_write(c, w);
	if (!q)
		return kerr_set(err, KERR_OTHER, "out of memory");
	r = request_json(c, "PATCH", path, q, types[type], body, ret, err);
	free(q);
	return r;
}

int kube_delete(struct kube_client *c, const char *path, const json_t *delete_options,
		const struct kube_write_opts *w, json_t **ret, struct kerr *err)
{
	json_t *body = NULL;
	char *q;
	int r;

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	/* The API server reads a DELETE's options from its body when it has one,
	 * and then ignores the query: dryRun must be in the body too, or a
	 * server dry run deletes for real. */
	if (delete_options && w && w->dry_run) {
		body = json_deep_copy(delete_options);
		if (!body || json_object_set_new(body, "dryRun", json_pack("[s]", "All")) < 0) {
			json_decref(body);
			return kerr_set(err, KERR_OTHER, "out of memory");
		}
	}
	q = query_for_write(c, w);
	if (!q) {
		json_decref(body);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	r = request_json(c, "DELETE", path, q, delete_options ? "application/json" : NULL,
			 body ? body : delete_options, ret, err);
	free(q);
	json_decref(body);
	return r;
}

int kube_post(struct kube_client *c, const char *path, const json_t *body, const struct kube_write_opts *w,
	      json_t **ret, struct kerr *err)
{
	char *q;
	int r;

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	if (!body)
		return kerr_set(err, KERR_OTHER, "invalid request body");
	q = query_for_write(c, w);
	if (!q)
		return kerr_set(err, KERR_OTHER, "out of memory");
	r = request_json(c, "POST", path, q, "application/json", body, ret, err);
	free(q);
	return r;
}


enum kube_write_outcome kube_write_outcome(int rc, const struct kerr *err)
{
	if (rc == 0)
		return KUBE_WRITE_DONE;
	if (!err)
		return KUBE_WRITE_NOT_SENT;
	if (err->unanswered)
		return KUBE_WRITE_UNKNOWN;
	/* an answer with a code came: a refusal (a 2xx body that could not be
	 * read was an answer all the same, and the write done) */
	if (err->code >= 200 && err->code < 300)
		return KUBE_WRITE_DONE;
	if (err->kind == KERR_STATUS || err->kind == KERR_DECODE)
		return KUBE_WRITE_REFUSED;
	return KUBE_WRITE_NOT_SENT;
}
