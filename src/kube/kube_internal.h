/* Inside the client library: what its own files (protocol.c, transport.c,
 * loop.c, api.c, list.c, watch.c) share, and the pure rules of the protocol
 * exposed for the unit tests and the fuzz targets.  Nothing outside src/kube includes this.
 */
#ifndef KUBE_INTERNAL_H
#define KUBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "kerr.h"

/* Turn a failed response into the error kubectl would report: a metav1.Status
 * body gives KERR_STATUS with its reason and message; anything else (an HTML
 * page from a proxy, an empty body) gives client-go's generic wording for the
 * HTTP code, with a short, printable excerpt of a text body.  verb ("GET")
 * and path (without query) name the resource as kubectl does ("(get nodes)").
 * content_type may be NULL.  Always returns -1. */
int kube_status_error(long code, const char *content_type, const char *verb, const char *path,
		      const void *body, size_t len, struct kerr *err);

/* The texts of the code-299 warnings in one Warning header value
 * (`299 - "text"`, several separated by commas), in order.  Returns a
 * NULL-terminated array to free with strv_free() (kubeconfig.h), or NULL when
 * there are none or the value cannot be parsed. */
char **kube_warning_parse(const char *value, size_t len);

/* client-go's retry rule for a response: 429 or >= 500 with a Retry-After
 * header in whole seconds.  retry_after is the header value or NULL.
 * Returns the seconds to wait (>= 0), or -1 when the response is final. */
long kube_retry_after(long code, const char *retry_after);

/* A query string without the leading '?': key=value pairs sorted by key as
 * Go's url.Values.Encode() writes them, values percent-encoded, pairs whose
 * value is NULL left out (never an empty parameter the caller did not set).
 * kv holds n pairs (key, value, key, value, ...).  malloc'd; "" when none. */
char *kube_query_build(const char *const *kv, size_t n);

/* The resource a request path names, as client-go prints it in errors:
 * "nodes", "daemonsets.apps", with *name set to the object name when the
 * path names one (both malloc'd, *name may be NULL).  Returns -1 when the
 * path is not an API path. */
int kube_path_resource(const char *path, char **resource, char **name);

/* --- shared by the client's own files (transport.c, loop.c, the calls) ----- */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "kube.h"

/* Error bodies are read only for their Status; a proxy's error page can be
 * anything, so keep at most this much of it. */
#define ERROR_BODY_CAP (1024 * 1024)
/* kube_get_json and the write calls read small documents whole. */
#define JSON_BODY_CAP (256 * 1024 * 1024)
#define MAX_RETRIES 10
/* A server asking for a long Retry-After is not waited on for more than this. */
#define RETRY_AFTER_CAP_S 30
#define EASY_POOL_MAX 8
#define LOG_BODY_MAX 1024
/* Lists and watches of core objects: protobuf where the server has it (it
 * encodes it several times faster than JSON, and it is a third of the size),
 * JSON otherwise. */
#define ACCEPT_PROTOBUF "application/vnd.kubernetes.protobuf, application/json"
#define ACCEPT_PROTOBUF_WATCH "application/vnd.kubernetes.protobuf;stream=watch, application/json"


/* --- small helpers -------------------------------------------------------- */

struct buf {
	char *data;
	size_t len, cap;
	bool truncated;
};

/* Appends up to limit bytes in total; the rest is dropped and noted. */
static inline int buf_add(struct buf *b, const void *p, size_t n, size_t limit)
{
	if (b->len + n > limit) {
		b->truncated = true;
		n = limit > b->len ? limit - b->len : 0;
	}
	if (n == 0)
		return 0;
	if (b->len + n + 1 > b->cap) {
		char *d = kube_array_grow(b->data, &b->cap, b->len + n + 1, 1, 256);

		if (!d)
			return -1;
		b->data = d;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

static inline void buf_release(struct buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Hand an error over, replacing whatever dst held. */
static inline void kerr_move(struct kerr *dst, struct kerr *src)
{
	if (!dst) {
		kerr_release(src);
		return;
	}
	kerr_release(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

static inline char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}


/* --- the client ------------------------------------------------------------ */

struct xfer;

/* The event loop: one multi handle that the transfers of every client on
 * it run on, so that several clusters are asked at the same time and
 * waited on in one place.  A client made without one has a loop of its own. */
struct kube_loop {
	CURLM *multi;
	struct kube_client **clients;
	size_t nclients, cap;
	bool in_curl; /* inside curl_multi_perform: handles cannot be removed now */
	bool http2; /* HTTP/2 where the server offers it, transfers multiplexed (kube_loop_new) */
};

struct kube_client {
	const struct kube_config *cfg;
	struct kube_loop *loop;
	bool own_loop;
	CURLM *multi; /* the loop's */
	struct cred_cache *creds;
	long timeout_ms;
	int verbosity;
	FILE *log;
	char *user_agent;
	char *base_url;	   /* what curl connects to: server, host swapped for tls-server-name */
	char *display_url; /* the server as configured, for logs */
	char *host_port;   /* as written in the server URL, for the refused message */
	struct curl_slist *connect_to;
	bool plain_http;
	bool loopback; /* Go never sends loopback traffic through an environment proxy */
	CURL *pool[EASY_POOL_MAX];
	size_t npool;
	CURLSH *tls_sessions; /* its connections resume each other's TLS sessions */
	struct xfer *xfers; /* every unfinished transfer */
	struct strset warnings_seen;
	unsigned long activity; /* bumped whenever a caller's callback ran */
	unsigned long long list_max_objects, list_max_bytes, max_object_bytes;
	bool consistent_reads;
	bool protobuf_off; /* asked for, or a protobuf body failed to decode: JSON from then on */
};

enum xfer_state { XF_QUEUED, XF_RUNNING };

struct xfer {
	struct kube_client *c;
	struct xfer *prev, *next;
	enum xfer_state state;
	long long wake_at; /* XF_QUEUED: not before this (ms, monotonic) */
	CURL *easy;
	struct curl_slist *headers;
	const char *method;
	char *path, *query; /* query without '?', may be NULL */
	char *req_body;
	size_t req_len;
	const char *content_type;
	const char *accept; /* NULL = application/json */
	bool idempotent;
	bool no_deadline; /* watches run until the server ends them */
	/* While *hold, the response is read no further than its headers (on a
	 * connection of its own: HTTP/1.1), and once they are in its deadline
	 * waits; NULL = never. */
	const bool *hold;
	bool paused;	/* held at its first bytes */
	bool timed_out; /* its deadline passed after it was held */
	bool fresh_connection; /* a connection of its own, never one a finished transfer left */
	bool tls_timeout; /* connected, but the TLS handshake did not end in time */
	long long connected_at; /* when the TCP connection was first seen made (ms), 0 = not yet */
	long long deadline; /* 0 = none */
	long long started;
	int retries;
	bool auth_retried, force_cred;

	/* the response of the current attempt */
	long code;
	char *resp_type;
	char *retry_after;
	struct buf body;     /* error bodies, or whole bodies without a data sink */
	struct buf log_hdrs; /* -v=8 */
	struct buf log_body; /* -v=9 */
	bool gzipped;	     /* sent with Content-Encoding: gzip */
	struct gunzip *gz;   /* inflating it, from its first byte */
	bool delivered;	     /* some 2xx bytes went to the data sink */
	bool sink_failed;
	struct kerr sink_err;
	char errbuf[CURL_ERROR_SIZE];

	int (*data)(void *ud, const char *p, size_t n, struct kerr *err);
	/* err NULL on success; x is freed by the caller after done returns */
	void (*done)(void *ud, struct xfer *x, const struct kerr *err);
	void *ud;
	bool midbody_failure; /* a GET failed after delivering bytes: only the owner can retry */
	bool finished;	      /* done has been called */
	bool orphan;	      /* its owner is gone: abort, then free silently */
};


/* Shared between the client's files; see each definition. */
bool xfer_body_cut(const struct xfer *x);
int kube_status_from_json(json_t *j, long code, struct kerr *err);
const char *http_skip_ws(const char *p, const char *end);
void xfer_queue(struct xfer *x, long long wake_at);
struct xfer *xfer_new(struct kube_client *c, const char *method, const char *path, const char *query);
void xfer_free(struct xfer *x);
void kube_log(struct kube_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *http_status_text(long code);
void xfer_detach(struct xfer *x);
int xfer_start(struct xfer *x, struct kerr *err);
int client_run_until(struct kube_client *c, const bool *flag, struct kerr *err);
int client_perform(struct kube_client *c, struct kerr *err);
int client_wait(struct kube_client *c, int fd, long timeout_ms, bool *fd_ready, struct kerr *err);
/* A list or watch went over one of the client's budgets: KERR_BUDGET with
 * reason (KERR_REASON_...), the limit as code, path as message.  Returns -1. */
int kube_budget_error(struct kerr *err, const char *reason, long code, const char *path);

#endif
