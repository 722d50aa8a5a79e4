/* Paged lists fed to the streaming decoders, and what makes every list
 * end: the budgets of objects and bytes, repeated continue tokens and pages
 * that bring nothing new.
 */
#include "kube.h"
#include "kube_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	uint64_t *n;

	for (size_t i = 0; i < r->nseen; i++)
		if (r->seen[i] == h)
			return true;
	n = kube_array_grow(r->seen, &r->seen_cap, r->nseen + 1, sizeof(*n), 16);
	if (!n) {
		*oom = true;
		return false;
	}
	r->seen = n;
	r->seen[r->nseen++] = h;
	return false;
}

int kube_budget_error(struct kerr *err, const char *reason, long code, const char *path)
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
		return kube_budget_error(err, KERR_REASON_TOO_MANY_OBJECTS, (long)r->c->list_max_objects, r->l->path);
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

/* One object of the page (a node or a pod): counted against the list's
 * budget, then handed to the caller's sink, or freed when the budget is
 * broken or the caller takes none of its kind. */
static int sink_object(struct page *p, struct k8s_node *n, struct k8s_pod *pod, struct kerr *err)
{
	const struct decode_sink *s = &p->run->l->sink;
	int r = count_object(p, pod ? pod->namespace : NULL, pod ? pod->name : n->name, err);

	if (r == 0 && n && s->node)
		return s->node(s->ud, n, err);
	if (r == 0 && pod && s->pod)
		return s->pod(s->ud, pod, err);
	k8s_node_free(n);
	k8s_pod_free(pod);
	return r;
}

static int sink_node(void *ud, struct k8s_node *n, struct kerr *err)
{
	return sink_object(ud, n, NULL, err);
}

static int sink_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	return sink_object(ud, NULL, pod, err);
}

/* The resource.k8s.io kinds, the same way. */
static int sink_resource_slice(void *ud, struct k8s_resource_slice *o, struct kerr *err)
{
	struct page *p = ud;
	const struct decode_sink *s = &p->run->l->sink;
	int r = count_object(p, NULL, o->name, err);

	if (r == 0 && s->resource_slice)
		return s->resource_slice(s->ud, o, err);
	k8s_resource_slice_free(o);
	return r;
}

static int sink_resource_claim(void *ud, struct k8s_resource_claim *o, struct kerr *err)
{
	struct page *p = ud;
	const struct decode_sink *s = &p->run->l->sink;
	int r = count_object(p, o->namespace, o->name, err);

	if (r == 0 && s->resource_claim)
		return s->resource_claim(s->ud, o, err);
	k8s_resource_claim_free(o);
	return r;
}

static int sink_device_class(void *ud, struct k8s_device_class *o, struct kerr *err)
{
	struct page *p = ud;
	const struct decode_sink *s = &p->run->l->sink;
	int r = count_object(p, NULL, o->name, err);

	if (r == 0 && s->device_class)
		return s->device_class(s->ud, o, err);
	k8s_device_class_free(o);
	return r;
}

/* A budget: counted, and handed over as it is. */
static int sink_pdb(void *ud, struct k8s_pdb *b, struct kerr *err)
{
	struct page *p = ud;
	const struct decode_sink *s = &p->run->l->sink;
	int r = count_object(p, b->namespace, b->name, err);

	if (r == 0 && s->pdb)
		return s->pdb(s->ud, b, err);
	k8s_pdb_free(b);
	return r;
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
			kube_budget_error(&p->err, KERR_REASON_REPEATED_CONTINUE, (long)r->nseen, l->path);
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
			return kube_budget_error(err, KERR_REASON_OBJECT_TOO_LARGE, (long)max, p->run->l->path);
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
		return kube_budget_error(err, KERR_REASON_TOO_MANY_BYTES, (long)r->c->list_max_bytes, r->l->path);
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
				kube_budget_error(&e, KERR_REASON_NO_NEW_OBJECTS, (long)p->items, r->l->path);
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
	kerr_copy(&r->err, err);
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
	struct decode_sink sink = {.node = sink_node,
				   .pod = sink_pod,
				   .resource_slice = sink_resource_slice,
				   .resource_claim = sink_resource_claim,
				   .device_class = sink_device_class,
				   .list_meta = sink_meta,
				   .pdb = sink_pdb};
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
	p->x->hold = r->l->hold;
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

/* The lists of one set, running. */
struct set_run {
	struct kube_list_set *set;
	struct list_run **runs;
	bool done;
};

static void set_run_stop(struct set_run *r)
{
	for (size_t i = 0; r->runs && i < r->set->n; i++)
		list_run_free(r->runs[i]);
	free(r->runs);
	r->runs = NULL;
	r->done = true;
}

static int set_run_start(struct set_run *r, struct kube_list_set *set)
{
	r->set = set;
	r->runs = calloc(set->n ? set->n : 1, sizeof(*r->runs));
	if (!r->runs)
		return kerr_set(&set->err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < set->n; i++) {
		r->runs[i] = list_run_new(set->client, &set->lists[i]);
		if (!r->runs[i])
			return kerr_set(&set->err, KERR_OTHER, "out of memory");
		if (page_start(r->runs[i], NULL, &set->err) < 0)
			return -1;
	}
	return 0;
}

/* Whether the set has its outcome: every list finished, or the first one in
 * the caller's order that failed (not whichever failed first on the wire, so
 * that the same cluster always gives the same message). */
static bool set_run_check(struct set_run *r)
{
	for (size_t i = 0; i < r->set->n; i++) {
		if (!r->runs[i]->finished)
			return false;
		if (r->runs[i]->err.kind != KERR_NONE) {
			kerr_move(&r->set->err, &r->runs[i]->err);
			return true;
		}
	}
	return true;
}

struct kube_list_sets {
	struct set_run *runs;
	size_t n, left;
	struct kube_client *c;
};

int kube_list_sets_start(struct kube_list_set *sets, size_t n, struct kube_list_sets **ret, struct kerr *err)
{
	struct kube_list_sets *r = calloc(1, sizeof(*r));

	if (!r || !(r->runs = calloc(n ? n : 1, sizeof(*r->runs)))) {
		free(r);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	r->n = n;
	for (size_t i = 0; i < n; i++) {
		if (!r->c)
			r->c = sets[i].client;
		if (!sets[i].client) {
			kerr_set(&sets[i].err, KERR_OTHER, "no client");
			r->runs[i].done = true;
		} else if (r->c && sets[i].client->loop != r->c->loop) {
			kerr_set(&sets[i].err, KERR_OTHER, "the clients of the lists are on different loops");
			r->runs[i].done = true;
		} else if (set_run_start(&r->runs[i], &sets[i]) < 0) {
			set_run_stop(&r->runs[i]);
		} else {
			r->left++;
		}
	}
	*ret = r;
	return 0;
}

int kube_list_sets_wait(struct kube_list_sets *r, struct kerr *err)
{
	int rc = 0;
	bool ready = false;

	while (r->left > 0) {
		if (client_perform(r->c, err) < 0) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < r->n; i++)
			if (!r->runs[i].done && set_run_check(&r->runs[i])) {
				set_run_stop(&r->runs[i]);
				r->left--;
			}
		if (r->left > 0 && client_wait(r->c, -1, 1000, &ready, err) < 0) {
			rc = -1;
			break;
		}
	}
	for (size_t i = 0; i < r->n; i++)
		set_run_stop(&r->runs[i]);
	free(r->runs);
	free(r);
	return rc;
}

int kube_list_run_sets(struct kube_list_set *sets, size_t n, struct kerr *err)
{
	struct kube_list_sets *r;

	if (kube_list_sets_start(sets, n, &r, err) < 0)
		return -1;
	return kube_list_sets_wait(r, err);
}

int kube_list_run(struct kube_client *c, struct kube_list *lists, size_t n, struct kerr *err)
{
	struct kube_list_set set = { .client = c, .lists = lists, .n = n };

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	if (kube_list_run_sets(&set, 1, err) < 0) {
		kerr_release(&set.err);
		return -1;
	}
	if (set.err.kind == KERR_NONE)
		return 0;
	kerr_move(err, &set.err);
	return -1;
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
