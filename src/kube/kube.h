/* The Kubernetes API client, the one header the rest of the program
 * includes: kubeconfig and credentials (kubeconfig.h), errors worded as
 * kubectl words them (kerr.h), plain object structs and the filters that
 * decide what of them is kept (objects.h), the streaming decoders
 * (decode.h), quantities (quantity.h), pod manifests (manifest.h), and the
 * HTTP client below.
 *
 * The library knows nothing of what the program does with the objects
 * and never prints or exits.  It may
 * use libcurl, jansson, yajl and libyaml; nothing of the rest of src/.
 * A new credential type goes in credentials.c, a new API call in api.c
 * (lists in list.c, watches in watch.c), a new decoded field is a row of
 * the field table in decode_fields.c and the member it fills in objects.h.
 *
 * The HTTP client: libcurl with kubectl's manners.
 *
 * One client per run, holding a curl multi handle (HTTP/2 and connection
 * reuse), the resolved config and the credential cache.  Lists are paged
 * (limit/continue, restart on 410 Expired) and decoded as they arrive; several
 * lists run concurrently.  Errors come back as struct kerr, never printed here.
 */
#ifndef KUBE_H
#define KUBE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "decode.h"
#include "kerr.h"
#include "kubeconfig.h"
#include "manifest.h"
#include "objects.h"
#include "quantity.h"

struct kube_client;

/* An event loop several clients share: the requests of all of them run at
 * the same time and are waited on together (a fleet of clusters).  Free it
 * after the clients on it. */
struct kube_loop;
int kube_loop_new(struct kube_loop **ret, struct kerr *err);
void kube_loop_free(struct kube_loop *l);

struct kube_client_options {
	struct kube_loop *loop;	 /* NULL = a loop of the client's own */
	long request_timeout_ms; /* 0 = none; also sent as ?timeout= */
	int verbosity;		 /* -v=N: 6 method/URL/status/latency, 8 headers (secrets redacted) */
	const char *user_agent;	 /* NULL = kube_user_agent() of the program's name and this build */
	FILE *log;		 /* where -v output and Warning: lines go; NULL = stderr */
	/* Budgets of one list (all its pages) and of one object of a list or
	 * a watch; 0 = the KUBE_* defaults below.  Breaking one fails the list
	 * (or ends the watch) with a KERR_BUDGET error. */
	unsigned long long list_max_objects, list_max_bytes, max_object_bytes;
	/* Lists marked from_cache are read from etcd all the same (a quorum
	 * read, paged), for a user who needs what was last written. */
	bool consistent_reads;
	/* Ask for JSON only: no protobuf even where the server offers it. */
	bool json_only;
};

/* More than any real cluster lists (the API server stores objects of at
 * most 1.5 MiB), small enough that a server that never ends a list is
 * stopped within seconds to minutes rather than when memory runs out. */
#define KUBE_LIST_MAX_OBJECTS 500000ull
#define KUBE_LIST_MAX_BYTES (4ull << 30)   /* uncompressed */
#define KUBE_MAX_OBJECT_BYTES (16ull << 20)

int kube_client_new(const struct kube_config *cfg, const struct kube_client_options *opt,
		    struct kube_client **ret, struct kerr *err);
/* "PROGRAM/VERSION (os/arch) kubernetes/COMMIT", the shape of kubectl's
 * User-Agent; malloc'd. */
char *kube_user_agent(const char *program, const char *version, const char *commit);
void kube_client_free(struct kube_client *c);
const struct kube_config *kube_client_config(const struct kube_client *c);

/* --- lists ---------------------------------------------------------------- */

struct kube_list {
	/* request */
	const char *path;	    /* "/api/v1/pods", "/api/v1/namespaces/NS/pods", "/api/v1/nodes" */
	const char *label_selector; /* NULL = not sent */
	const char *field_selector; /* NULL = not sent */
	unsigned limit;		    /* page size; 0 = 500 */
	/* The caller only shows what it reads: the list may come whole from the
	 * API server's watch cache (resourceVersion=0, as client-go's informers
	 * start), which is slightly behind etcd but far cheaper to serve than
	 * pages read from etcd.  Ignored with consistent_reads. */
	bool from_cache;
	enum obj_kind kind;
	const struct decode_filter *filter;
	struct decode_sink sink; /* items are delivered here, page after page */
	/* While *hold, the list is asked for but its items wait, unread, in
	 * their connection (HTTP/1.1, one of their own): a list whose items
	 * need another list's (DRA claims for pods) asks for them beside it.
	 * A server that does not answer times out as for any request; once it
	 * has, the time held does not count.  NULL = never held. */
	const bool *hold;
	/* on restart after 410 Expired, sink.list_meta is called with (NULL, NULL)
	 * first: the consumer must drop what it received from this list. */

	/* result */
	char *resource_version; /* of the last page, for a watch to start from; owned */
};

/* Run the lists concurrently, each to its last page.  Fails with the first error.
 *
 * Every list ends: a continue token that comes back, a page with a continue
 * token that brings no object or only the objects of an earlier page, more
 * objects or bytes than the client's budgets, or one object larger than its
 * budget fail it with KERR_BUDGET (message: the list's path). */
int kube_list_run(struct kube_client *c, struct kube_list *lists, size_t n, struct kerr *err);
void kube_list_release(struct kube_list *l);

/* The lists of several clients on one loop, run at the same time; each set
 * ends with its own outcome in err (the first failed list of the set, in
 * its order), and a set that failed stops its other lists.  Returns 0 when
 * every set finished, -1 with *err set when the loop itself failed. */
struct kube_list_set {
	struct kube_client *client;
	struct kube_list *lists;
	size_t n;
	struct kerr err; /* release with kerr_release */
};
int kube_list_run_sets(struct kube_list_set *sets, size_t n, struct kerr *err);
/* The same in two steps: the sets' lists started (their transfers go on
 * whenever the loop runs, for another call as well), then run to their end
 * (*r freed).  sets must outlive the wait. */
struct kube_list_sets;
int kube_list_sets_start(struct kube_list_set *sets, size_t n, struct kube_list_sets **ret, struct kerr *err);
int kube_list_sets_wait(struct kube_list_sets *r, struct kerr *err);

/* Each client's credential fetched at once, exec plugins in parallel (each
 * under its own time limit), into the clients' caches; errs[i] gets client
 * i's failure.  Clients that need no plugin are left alone. */
void kube_clients_prefetch_credentials(struct kube_client **cs, size_t n, struct kerr *errs);

/* --- single requests (small bodies, jansson) ------------------------------ */

/* GET path[?query]; *ret gets the decoded body on 2xx. */
int kube_get_json(struct kube_client *c, const char *path, const char *query, json_t **ret,
		  struct kerr *err);

/* API discovery: the first of versions (newest first, NULL-terminated) that
 * GET /apis/GROUP says the server serves, *ret pointing into versions; NULL
 * when the server has no such group (404) or serves none of them, which is
 * not an error. */
int kube_group_version(struct kube_client *c, const char *group, const char *const *versions, const char **ret,
		       struct kerr *err);
/* The same of several clients at once (a fleet on one loop answers as fast
 * as its slowest server): rets[i] and errs[i] for cs[i] (NULL clients are
 * skipped).  0 when every client answered, -1 when one or more failed. */
int kube_group_versions(struct kube_client *const *cs, size_t n, const char *group, const char *const *versions,
			const char **rets, struct kerr *errs);

/* Several GETs at once: each request's result is its decoded 2xx body, or
 * NULL with err set.  They run concurrently on the client's connections
 * (one HTTP/2 connection where the server offers it), each with the
 * client's timeout and retry rules. */
struct kube_get {
	const char *path, *query; /* request; query may be NULL */
	/* Optional: a 2xx body goes here piece by piece as it arrives instead
	 * of being decoded (result stays NULL); a sink that fails fails the
	 * request with its error.  A request that fails after some bytes went
	 * to the sink is not retried: the sink's consumer drops what it got. */
	int (*data)(void *ud, const char *p, size_t n, struct kerr *err);
	void *ud;
	json_t *result;		  /* owned by the caller after the call */
	struct kerr err;	  /* release with kerr_release */
};

/* Returns 0 when every request finished (each with its own outcome), -1
 * with err set when the client itself failed. */
int kube_get_json_all(struct kube_client *c, struct kube_get *reqs, size_t n, struct kerr *err);

enum kube_patch_type { PATCH_MERGE, PATCH_STRATEGIC, PATCH_JSON };

struct kube_write_opts {
	bool dry_run;		  /* ?dryRun=All */
	const char *field_manager; /* ?fieldManager=, NULL = not sent */
};

/* PATCH path with body; *ret (may be NULL) gets the object as the server returned it. */
int kube_patch(struct kube_client *c, const char *path, enum kube_patch_type type, const json_t *body,
	       const struct kube_write_opts *w, json_t **ret, struct kerr *err);
/* DELETE path with a DeleteOptions body (may be NULL). */
int kube_delete(struct kube_client *c, const char *path, const json_t *delete_options,
		const struct kube_write_opts *w, json_t **ret, struct kerr *err);
/* POST path with body (e.g. an Eviction). */
int kube_post(struct kube_client *c, const char *path, const json_t *body, const struct kube_write_opts *w,
	      json_t **ret, struct kerr *err);

/* What became of a write (kube_patch, kube_delete, kube_post), from its
 * return value and error.  None of them is sent twice after a transport
 * error (client-go's rule); a 429 or 5xx with Retry-After is sent again,
 * up to 10 times, as client-go does, since the server did not act on it. */
enum kube_write_outcome {
	KUBE_WRITE_DONE,     /* the server answered 2xx */
	KUBE_WRITE_REFUSED,  /* the server answered with an error: err holds its answer */
	KUBE_WRITE_NOT_SENT, /* the request never fully left (refused, TLS, reset while
			      * writing, or the client failed): nothing was done */
	KUBE_WRITE_UNKNOWN,  /* sent whole, and its answer never came (connection lost,
			      * timeout): done or not, only a read can tell */
};

enum kube_write_outcome kube_write_outcome(int rc, const struct kerr *err);

/* --- watches (asynchronous, for the live view) ---------------------------- */

struct kube_watch;

struct kube_watch_spec {
	const char *path; /* collection path, as for lists */
	const char *label_selector, *field_selector;
	enum obj_kind kind;
	const struct decode_filter *filter;
	const char *resource_version; /* start point (from a list) */
	watch_cb on_event;	      /* WATCH_ERROR 410 means: list again, then restart */
	void *ud;
	/* Events are passed on in order; once the watch started from a
	 * resource_version, an event whose object's resourceVersion is not
	 * newer than the newest one seen (the start included) is dropped: a
	 * server cannot take the view back in time.  An event larger than
	 * the per-object budget ends the watch with KERR_BUDGET.
	 * called when the stream ends or fails; the watch is then finished and
	 * must be freed (or restarted with a new resource_version). */
	void (*on_end)(void *ud, const struct kerr *err);
};

int kube_watch_start(struct kube_client *c, const struct kube_watch_spec *spec, struct kube_watch **ret,
		     struct kerr *err);
void kube_watch_free(struct kube_watch *w);

/* Start a list without waiting for it: the same paging as kube_list_run, driven
 * by kube_client_poll.  on_done gets NULL on success. */
struct kube_async_list;
int kube_list_start(struct kube_client *c, struct kube_list *list,
		    void (*on_done)(void *ud, const struct kerr *err), void *ud, struct kube_async_list **ret,
		    struct kerr *err);
void kube_async_list_free(struct kube_async_list *l);

/* Drive all transfers for at most timeout_ms, also waking when fd (e.g. stdin;
 * -1 = none) becomes readable.  The single place where the live view waits.
 * Returns 1 if fd is readable, 0 otherwise, -1 on a client failure. */
int kube_client_poll(struct kube_client *c, int fd, int timeout_ms, struct kerr *err);

/* --- helpers ---------------------------------------------------------------- */

/* Percent-encode a path segment or query value. Returns malloc'd string. */
char *kube_escape(const char *s);
/* The path of a resource: group_version "v1" (the core group, under /api)
 * or "apps/v1" (under /apis); ns NULL for a cluster-scoped resource or for
 * every namespace; name NULL for the collection.  The namespace and name are
 * escaped.  Returns a malloc'd string, NULL when out of memory. */
char *kube_path(const char *group_version, const char *ns, const char *resource, const char *name);

#endif
