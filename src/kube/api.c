/* The API calls on top of the transport: single requests (GET, PATCH,
 * DELETE, POST), paged lists fed to the streaming decoders, and watches.
 */
#include "kube.h"
#include "kube_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

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
		s->err = *err;
		/* take the strings over: the caller of done releases its copy */
		s->err.reason = xstrdup(err->reason);
		s->err.message = xstrdup(err->message);
		s->err.host = xstrdup(err->host);
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

/* --- paged lists ---------------------------------------------------------- */

struct list_run;

struct page {
	struct list_run *run;
	struct xfer *x;
	struct list_decoder *dec;
	struct buf pending; /* bytes of a page that arrived before the one before it was done */
	bool is_head;
	bool transfer_done;
	bool meta_seen;
	bool has_next; /* its list_meta carried a continue token */
	bool continued; /* requested with a continue token */
	size_t items;	       /* objects it brought */
	uint64_t items_hash;   /* of their names, in order */
	unsigned long long since_item; /* bytes fed since the last object ended */
	struct kerr err;
};

struct list_run {
	struct kube_client *c;
	struct kube_list *l;
	struct page *head, *next;
	int restarts_410;
	int restarts_midbody;
	bool unpaginated;
	bool from_cache; /* resourceVersion=0: one response, no pages */
	bool finished;
	/* what makes every list end: the hashes of the continue tokens and of
	 * the pages' objects seen so far, the objects and bytes received */
	uint64_t *seen;
	size_t nseen, seen_cap;
	unsigned long long objects, bytes;
	struct kerr err;
	void (*on_done)(void *ud, const struct kerr *err);
	void *ud;
};

static void list_fail(struct list_run *r, const struct kerr *err);
static int page_start(struct list_run *r, const char *cont, struct kerr *err);

/* FNV-1a, 64 bits: tokens and pages are told apart by hash; a collision
 * would only end a list early, and needs 2^32 pages to be likely. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

#define FNV_BASIS 0xcbf29ce484222325ull

/* Remember h; true if it was already there. */
static bool seen_add(struct list_run *r, uint64_t h, bool *oom)
{
	for (size_t i = 0; i < r->nseen; i++)
		if (r->seen[i] == h)
			return true;
	if (r->nseen == r->seen_cap) {
		size_t cap = r->seen_cap ? r->seen_cap * 2 : 16;
		uint64_t *n = realloc(r->seen, cap * sizeof(*n));

		if (!n) {
			*oom = true;
			return false;
		}
		r->seen = n;
		r->seen_cap = cap;
	}
	r->seen[r->nseen++] = h;
	return false;
}

static int budget_error(struct kerr *err, const char *reason, long code, const char *path)
{
	kerr_set(err, KERR_BUDGET, "%s", path);
	err->code = code;
	err->reason = xstrdup(reason);
	return -1;
}

/* One more object of the page: within the list's object budget? */
static int count_object(struct page *p, const char *ns, const char *name, struct kerr *err)
{
	struct list_run *r = p->run;

	p->items++;
	p->items_hash = fnv(fnv(p->items_hash, ns), name);
	p->since_item = 0;
	if (++r->objects > r->c->list_max_objects)
		return budget_error(err, KERR_REASON_TOO_MANY_OBJECTS, (long)r->c->list_max_objects, r->l->path);
	return 0;
}

static void page_free(struct page *p)
{
	if (!p)
		return;
	if (p->x)
		xfer_free(p->x);
	list_decoder_free(p->dec);
	buf_release(&p->pending);
	kerr_release(&p->err);
	free(p);
}

static int sink_node(void *ud, struct k8s_node *n, struct kerr *err)
{
	struct page *p = ud;
	struct kube_list *l = p->run->l;

	if (count_object(p, NULL, n->name, err) < 0) {
		k8s_node_free(n);
		return -1;
	}
	if (!l->sink.node) {
		k8s_node_free(n);
		return 0;
	}
	return l->sink.node(l->sink.ud, n, err);
}

static int sink_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	struct page *p = ud;
	struct kube_list *l = p->run->l;

	if (count_object(p, pod->namespace, pod->name, err) < 0) {
		k8s_pod_free(pod);
		return -1;
	}
	if (!l->sink.pod) {
		k8s_pod_free(pod);
		return 0;
	}
	return l->sink.pod(l->sink.ud, pod, err);
}

/* The page's metadata has been read: ask for the next page right away, so it
 * downloads while this one is decoded. */
static void sink_meta(void *ud, const char *rv, const char *cont)
{
	struct page *p = ud;
	struct list_run *r = p->run;
	struct kube_list *l = r->l;

	if (p->meta_seen)
		return;
	p->meta_seen = true;
	free(l->resource_version);
	l->resource_version = xstrdup(rv);
	if (cont && *cont && !r->unpaginated) {
		bool oom = false;

		/* a token that comes back would page in a circle for ever */
		if (seen_add(r, fnv(FNV_BASIS ^ 1, cont), &oom)) {
			budget_error(&p->err, KERR_REASON_REPEATED_CONTINUE, (long)r->nseen, l->path);
			return;
		}
		if (oom) {
			kerr_set(&p->err, KERR_OTHER, "out of memory");
			return;
		}
		p->has_next = true;
		if (!r->next && page_start(r, cont, &p->err) < 0)
			p->has_next = false; /* reported when the page completes */
	}
	if (l->sink.list_meta)
		l->sink.list_meta(l->sink.ud, rv, cont && *cont ? cont : NULL);
}

/* Feed the decoder, in pieces small enough that one object larger than its
 * budget is caught before it is all in memory. */
static int page_feed(struct page *p, const char *buf, size_t n, struct kerr *err)
{
	unsigned long long max = p->run->c->max_object_bytes;

	while (n) {
		size_t take = n < 65536 ? n : 65536;

		p->since_item += take;
		if (p->since_item > max + 65536)
			return budget_error(err, KERR_REASON_OBJECT_TOO_LARGE, (long)max, p->run->l->path);
		if (list_decoder_feed(p->dec, buf, take, err) < 0)
			return -1;
		buf += take;
		n -= take;
	}
	return 0;
}

static int page_data(void *ud, const char *buf, size_t n, struct kerr *err)
{
	struct page *p = ud;
	struct list_run *r = p->run;

	/* a failure found in the list's metadata stops the transfer now */
	if (p->err.kind == KERR_BUDGET) {
		kerr_move(err, &p->err);
		return -1;
	}
	r->bytes += n;
	if (r->bytes > r->c->list_max_bytes)
		return budget_error(err, KERR_REASON_TOO_MANY_BYTES, (long)r->c->list_max_bytes, r->l->path);
	if (!p->is_head) {
		if (buf_add(&p->pending, buf, n, SIZE_MAX) < 0)
			return kerr_set(err, KERR_OTHER, "out of memory");
		return 0;
	}
	return page_feed(p, buf, n, err);
}

static void list_complete(struct list_run *r)
{
	page_free(r->head);
	page_free(r->next);
	r->head = r->next = NULL;
	r->finished = true;
	r->c->activity++;
	if (r->on_done)
		r->on_done(r->ud, NULL);
}

/* Throw away what this list has received and start it again. */
static void list_restart(struct list_run *r)
{
	struct kerr e = KERR_INIT;
	struct kube_list *l = r->l;

	page_free(r->head);
	page_free(r->next);
	r->head = r->next = NULL;
	r->nseen = 0;
	r->objects = r->bytes = 0;
	if (l->sink.list_meta)
		l->sink.list_meta(l->sink.ud, NULL, NULL);
	if (page_start(r, NULL, &e) < 0)
		list_fail(r, &e);
	kerr_release(&e);
}

/* A protobuf body that does not decode: the client asks for JSON from now on
 * and the list starts again (its consumer drops what it received).  True
 * when that is what happens to err. */
static bool list_protobuf_failed(struct list_run *r, struct page *p, const struct kerr *err)
{
	if (err->kind != KERR_DECODE || r->c->protobuf_off || !list_decoder_is_protobuf(p->dec))
		return false;
	r->c->protobuf_off = true;
	if (r->c->verbosity >= 6)
		kube_log(r->c, "GET %s: %s; asking for JSON instead", r->l->path, err->message ? err->message : "");
	list_restart(r);
	return true;
}

static int page_finish_decode(struct page *p, struct kerr *err)
{
	if (p->err.kind != KERR_NONE) {
		kerr_move(err, &p->err);
		return -1;
	}
	if (list_decoder_finish(p->dec, err) < 0)
		return -1;
	return 0;
}

/* The head page has all its bytes: finish it, promote the next one. */
static void list_advance(struct list_run *r)
{
	while (r->head && r->head->transfer_done) {
		struct page *p = r->head;
		struct kerr e = KERR_INIT;

		if (page_finish_decode(p, &e) < 0) {
			if (list_protobuf_failed(r, p, &e)) {
				kerr_release(&e);
				return;
			}
			if (e.kind == KERR_DECODE || e.kind == KERR_NONE)
				kerr_prefix(&e, "decoding the response to GET %s", r->l->path);
			list_fail(r, &e);
			kerr_release(&e);
			return;
		}
		if (!p->has_next) {
			list_complete(r);
			return;
		}
		/* a page that promises more but brings nothing, or nothing but
		 * what an earlier page brought, is a list that does not advance */
		{
			bool oom = false;

			if (!p->items || seen_add(r, fnv(p->items_hash, "items") ^ p->items, &oom)) {
				budget_error(&e, KERR_REASON_NO_NEW_OBJECTS, (long)p->items, r->l->path);
				list_fail(r, &e);
				kerr_release(&e);
				return;
			}
		}
		r->head = r->next;
		r->next = NULL;
		page_free(p);
		if (!r->head) {
			/* the next page could not be started */
			kerr_set(&e, KERR_OTHER, "cannot request the next page of %s", r->l->path);
			list_fail(r, &e);
			kerr_release(&e);
			return;
		}
		r->head->is_head = true;
		if (r->head->pending.len) {
			struct buf pend = r->head->pending;

			memset(&r->head->pending, 0, sizeof(pend));
			if (page_feed(r->head, pend.data, pend.len, &e) < 0) {
				buf_release(&pend);
				if (list_protobuf_failed(r, r->head, &e)) {
					kerr_release(&e);
					return;
				}
				list_fail(r, &e);
				kerr_release(&e);
				return;
			}
			buf_release(&pend);
		}
	}
}

static void list_fail(struct list_run *r, const struct kerr *err)
{
	page_free(r->head);
	page_free(r->next);
	r->head = r->next = NULL;
	r->finished = true;
	kerr_release(&r->err);
	r->err = *err;
	r->err.reason = xstrdup(err->reason);
	r->err.message = xstrdup(err->message);
	r->err.host = xstrdup(err->host);
	r->c->activity++;
	if (r->on_done)
		r->on_done(r->ud, &r->err);
}

static char *list_query(struct list_run *r, const char *cont)
{
	char limit[32], tbuf[32];
	const char *kv[12];
	size_t n = 0;

	snprintf(limit, sizeof(limit), "%u", r->l->limit ? r->l->limit : 500);
	kv[n++] = "labelSelector";
	kv[n++] = r->l->label_selector && *r->l->label_selector ? r->l->label_selector : NULL;
	kv[n++] = "fieldSelector";
	kv[n++] = r->l->field_selector && *r->l->field_selector ? r->l->field_selector : NULL;
	/* the watch cache serves the whole list and ignores a limit */
	kv[n++] = "limit";
	kv[n++] = r->unpaginated || r->from_cache ? NULL : limit;
	kv[n++] = "continue";
	kv[n++] = cont;
	kv[n++] = "resourceVersion";
	kv[n++] = r->from_cache && !cont ? "0" : NULL;
	kv[n++] = "timeout";
	kv[n++] = NULL;
	if (r->c->timeout_ms > 0) {
		if (r->c->timeout_ms % 1000 == 0)
			snprintf(tbuf, sizeof(tbuf), "%lds", r->c->timeout_ms / 1000);
		else
			snprintf(tbuf, sizeof(tbuf), "%ldms", r->c->timeout_ms);
		kv[n - 1] = tbuf;
	}
	return kube_query_build(kv, n / 2);
}

static void page_done(void *ud, struct xfer *x, const struct kerr *err);

static int page_start(struct list_run *r, const char *cont, struct kerr *err)
{
	struct page *p = calloc(1, sizeof(*p));
	struct decode_sink sink = {sink_node, sink_pod, sink_meta, NULL};
	char *q;

	if (!p)
		return kerr_set(err, KERR_OTHER, "out of memory");
	p->run = r;
	p->continued = cont != NULL;
	sink.ud = p;
	p->dec = list_decoder_new(r->l->kind, r->l->filter, &sink);
	q = list_query(r, cont);
	if (!p->dec || !q) {
		free(q);
		page_free(p);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	p->x = xfer_new(r->c, "GET", r->l->path, q);
	free(q);
	if (!p->x) {
		page_free(p);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (!r->c->protobuf_off)
		p->x->accept = ACCEPT_PROTOBUF;
	p->x->data = page_data;
	p->x->done = page_done;
	p->x->ud = p;
	xfer_queue(p->x, 0);
	if (!r->head) {
		p->is_head = true;
		r->head = p;
	} else {
		r->next = p;
	}
	return 0;
}

/* As list_protobuf_failed(), for a page whose transfer ended with the error. */
static bool list_protobuf_failed_early(struct list_run *r, struct page *p, struct xfer *x, const struct kerr *err)
{
	if (err->kind != KERR_DECODE || r->c->protobuf_off || !list_decoder_is_protobuf(p->dec))
		return false;
	p->x = NULL;
	xfer_free(x);
	return list_protobuf_failed(r, p, err);
}

static void page_done(void *ud, struct xfer *x, const struct kerr *err)
{
	struct page *p = ud;
	struct list_run *r = p->run;
	bool midbody = x->midbody_failure;
	bool continued = p->continued;

	if (err && list_protobuf_failed_early(r, p, x, err))
		return;
	if (err && midbody && r->restarts_midbody < MAX_RETRIES) {
		/* the connection broke after items were handed over: the consumer drops
		 * them and the list starts again */
		p->x = NULL;
		xfer_free(x);
		r->restarts_midbody++;
		list_restart(r);
		return;
	}
	if (err && err->kind == KERR_STATUS && err->code == 410 && continued && !r->unpaginated) {
		p->x = NULL;
		xfer_free(x);
		if (r->restarts_410 == 0)
			r->restarts_410++;
		else
			r->unpaginated = true;
		list_restart(r);
		return;
	}
	p->x = NULL;
	xfer_free(x);
	if (err) {
		list_fail(r, err);
		return;
	}
	p->transfer_done = true;
	list_advance(r);
}

static struct list_run *list_run_new(struct kube_client *c, struct kube_list *l)
{
	struct list_run *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->c = c;
	r->l = l;
	r->from_cache = l->from_cache && !c->consistent_reads;
	return r;
}

static void list_run_free(struct list_run *r)
{
	if (!r)
		return;
	page_free(r->head);
	page_free(r->next);
	kerr_release(&r->err);
	free(r->seen);
	free(r);
}

int kube_list_run(struct kube_client *c, struct kube_list *lists, size_t n, struct kerr *err)
{
	struct list_run **runs;
	int rc = 0;
	bool ready = false;

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	runs = calloc(n ? n : 1, sizeof(*runs));
	if (!runs)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < n; i++) {
		runs[i] = list_run_new(c, &lists[i]);
		if (!runs[i] || page_start(runs[i], NULL, err) < 0) {
			if (!runs[i])
				kerr_set(err, KERR_OTHER, "out of memory");
			rc = -1;
			goto out;
		}
	}
	for (;;) {
		bool all = true;

		if (client_perform(c, err) < 0) {
			rc = -1;
			goto out;
		}
		/* Report the failure of the first list in the caller's order, not
		 * whichever failed first on the wire, so that the same cluster
		 * always gives the same message. */
		for (size_t i = 0; i < n; i++) {
			if (!runs[i]->finished) {
				all = false;
				break;
			}
			if (runs[i]->err.kind != KERR_NONE) {
				kerr_move(err, &runs[i]->err);
				rc = -1;
				goto out;
			}
		}
		if (all)
			break;
		if (client_wait(c, -1, 1000, &ready, err) < 0) {
			rc = -1;
			goto out;
		}
	}
out:
	for (size_t i = 0; i < n; i++)
		list_run_free(runs[i]);
	free(runs);
	return rc;
}

void kube_list_release(struct kube_list *l)
{
	if (!l)
		return;
	free(l->resource_version);
	l->resource_version = NULL;
}

struct kube_async_list {
	struct list_run *run;
};

int kube_list_start(struct kube_client *c, struct kube_list *list,
		    void (*on_done)(void *ud, const struct kerr *err), void *ud, struct kube_async_list **ret,
		    struct kerr *err)
{
	struct kube_async_list *a;

	if (!c || !list)
		return kerr_set(err, KERR_OTHER, "invalid list");
	a = calloc(1, sizeof(*a));
	if (!a)
		return kerr_set(err, KERR_OTHER, "out of memory");
	a->run = list_run_new(c, list);
	if (!a->run) {
		free(a);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	a->run->on_done = on_done;
	a->run->ud = ud;
	if (page_start(a->run, NULL, err) < 0) {
		kube_async_list_free(a);
		return -1;
	}
	*ret = a;
	return 0;
}

void kube_async_list_free(struct kube_async_list *l)
{
	if (!l)
		return;
	list_run_free(l->run);
	free(l);
}

/* --- watches -------------------------------------------------------------- */

struct kube_watch {
	struct kube_client *c;
	struct xfer *x;
	struct watch_decoder *dec;
	bool in_feed, free_pending;
	void (*on_end)(void *ud, const struct kerr *err);
	watch_cb on_event;
	void *ud;
	/* the newest resourceVersion seen, when the watch started from one
	 * that is a number (etcd's are; the API calls them opaque) */
	bool rv_known;
	unsigned long long last_rv;
	unsigned long long since_event; /* bytes fed since the last event ended */
};

/* A resourceVersion as a number; false when it is not one. */
static bool rv_number(const char *s, unsigned long long *ret)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (ULLONG_MAX - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*ret = v;
	return true;
}

static int watch_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	struct kube_watch *w = ud;

	if (w->free_pending) {
		k8s_node_free(ev->node);
		k8s_pod_free(ev->pod);
		ev->node = NULL;
		ev->pod = NULL;
		return kerr_set(err, KERR_OTHER, "watch stopped");
	}
	w->since_event = 0;
	if (w->rv_known && ev->type != WATCH_ERROR) {
		unsigned long long rv;

		if (rv_number(ev->resource_version, &rv)) {
			/* events of one watch only move forward: an older one
			 * would show what the list already replaced */
			if (rv <= w->last_rv && ev->type != WATCH_BOOKMARK) {
				k8s_node_free(ev->node);
				k8s_pod_free(ev->pod);
				ev->node = NULL;
				ev->pod = NULL;
				return 0;
			}
			if (rv > w->last_rv)
				w->last_rv = rv;
		}
	}
	w->c->activity++;
	return w->on_event ? w->on_event(w->ud, ev, err) : 0;
}

static int watch_data(void *ud, const char *buf, size_t n, struct kerr *err)
{
	struct kube_watch *w = ud;
	int r;

	w->in_feed = true;
	r = 0;
	/* in pieces, so that one event larger than an object may be is
	 * caught before it is all in memory */
	while (n && r == 0 && !w->free_pending) {
		size_t take = n < 65536 ? n : 65536;

		w->since_event += take;
		if (w->since_event > w->c->max_object_bytes + 65536) {
			budget_error(err, KERR_REASON_OBJECT_TOO_LARGE, (long)w->c->max_object_bytes,
				     w->x && w->x->path ? w->x->path : "watch");
			r = -1;
			break;
		}
		r = watch_decoder_feed(w->dec, buf, take, err);
		buf += take;
		n -= take;
	}
	w->in_feed = false;
	/* the stream ends with this error; what follows (a list, a new watch)
	 * asks for JSON */
	if (r < 0 && err && err->kind == KERR_DECODE)
		w->c->protobuf_off = true;
	if (w->free_pending) {
		/* freed by its own event callback: the decoder could only go now */
		xfer_free(w->x);
		watch_decoder_free(w->dec);
		free(w);
		return kerr_set(err, KERR_OTHER, "watch stopped");
	}
	return r;
}

static void watch_done(void *ud, struct xfer *x, const struct kerr *err)
{
	struct kube_watch *w = ud;

	w->x = NULL;
	xfer_free(x);
	/* last: the callback may free the watch */
	if (w->on_end)
		w->on_end(w->ud, err);
}

int kube_watch_start(struct kube_client *c, const struct kube_watch_spec *spec, struct kube_watch **ret,
		     struct kerr *err)
{
	struct kube_watch *w;
	char tsec[32];
	char *q;

	if (!c || !spec || !spec->path)
		return kerr_set(err, KERR_OTHER, "invalid watch");
	w = calloc(1, sizeof(*w));
	if (!w)
		return kerr_set(err, KERR_OTHER, "out of memory");
	w->c = c;
	w->on_end = spec->on_end;
	w->on_event = spec->on_event;
	w->ud = spec->ud;
	w->rv_known = rv_number(spec->resource_version, &w->last_rv) && w->last_rv > 0;
	/* client-go's reflector picks 5 to 10 minutes so that watches of many
	 * clients do not all end together */
	snprintf(tsec, sizeof(tsec), "%d", 300 + (int)(now_ms() % 300));
	{
		const char *kv[] = {
			"watch", "1",
			"resourceVersion", spec->resource_version && *spec->resource_version ? spec->resource_version : NULL,
			"allowWatchBookmarks", "true",
			"timeoutSeconds", tsec,
			"labelSelector", spec->label_selector && *spec->label_selector ? spec->label_selector : NULL,
			"fieldSelector", spec->field_selector && *spec->field_selector ? spec->field_selector : NULL,
		};

		q = kube_query_build(kv, 6);
	}
	w->dec = watch_decoder_new(spec->kind, spec->filter, watch_event, w);
	if (!q || !w->dec || !(w->x = xfer_new(c, "GET", spec->path, q))) {
		free(q);
		kube_watch_free(w);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (!c->protobuf_off)
		w->x->accept = ACCEPT_PROTOBUF_WATCH;
	free(q);
	w->x->no_deadline = true;
	w->x->deadline = 0;
	w->x->data = watch_data;
	w->x->done = watch_done;
	w->x->ud = w;
	xfer_queue(w->x, 0);
	*ret = w;
	return 0;
}

void kube_watch_free(struct kube_watch *w)
{
	if (!w)
		return;
	if (w->in_feed) {
		w->free_pending = true;
		return;
	}
	if (w->x)
		xfer_free(w->x);
	watch_decoder_free(w->dec);
	free(w);
}
