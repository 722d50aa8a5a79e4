/* The client and its transfers: libcurl's multi interface with kubectl's
 * manners.
 *
 * Every request is a struct xfer driven by the one multi handle of the
 * client, so blocking calls, paged lists and watches share connections
 * (HTTP/2 multiplexing where the server offers it) and wait in one place
 * (loop.c).  This file creates clients and transfers and starts them: TLS,
 * credentials, headers, logging of requests.
 */
#include "gunzip.h"
#include "kube.h"
#include "kube_internal.h"
#include "version.h"

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

const struct kube_config *kube_client_config(const struct kube_client *c)
{
	return c ? c->cfg : NULL;
}

/* klog's header, so that -v output reads like kubectl's */
void kube_log(struct kube_client *c, const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	fprintf(c->log, "I%02d%02d %02d:%02d:%02d.%06ld %7d kube.c] ", tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000, (int)getpid());
	va_start(ap, fmt);
	vfprintf(c->log, fmt, ap);
	va_end(ap);
	fputc('\n', c->log);
}

const char *http_status_text(long code)
{
	switch (code) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Entity";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "";
	}
}

static void warning_seen(struct kube_client *c, const char *msg)
{
	if (strset_add(&c->warnings_seen, msg) <= 0)
		return;
	fprintf(c->log, "Warning: %s\n", msg);
	fflush(c->log);
}

static int parse_server(struct kube_client *c, struct kerr *err)
{
	const struct kube_config *cfg = c->cfg;
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *defport = NULL;
	int r = -1;

	if (!u)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!cfg->server || curl_url_set(u, CURLUPART_URL, cfg->server, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		kerr_set(err, KERR_CONFIG, "invalid server address \"%s\"", cfg->server ? cfg->server : "");
		goto out;
	}
	if (strcasecmp(scheme, "https") != 0 && strcasecmp(scheme, "http") != 0) {
		kerr_set(err, KERR_CONFIG, "unsupported scheme \"%s\" in server address \"%s\"", scheme, cfg->server);
		goto out;
	}
	c->plain_http = strcasecmp(scheme, "http") == 0;
	c->loopback = strcasecmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 || strcmp(host, "[::1]") == 0;
	curl_url_get(u, CURLUPART_PORT, &port, 0);
	curl_url_get(u, CURLUPART_PORT, &defport, CURLU_DEFAULT_PORT);
	curl_url_get(u, CURLUPART_PATH, &path, 0);
	c->host_port = port ? xasprintf("%s:%s", host, port) : strdup(host);
	c->display_url = strdup(cfg->server);
	if (c->display_url) {
		size_t l = strlen(c->display_url);

		while (l > 0 && c->display_url[l - 1] == '/')
			c->display_url[--l] = '\0';
	}
	if (!c->plain_http && cfg->tls_server_name && *cfg->tls_server_name) {
		/* verify and send SNI for tls-server-name while connecting to the
		 * configured host: curl takes the name from the URL, and CONNECT_TO
		 * maps it back to the real address */
		char *map = xasprintf("%s:%s:%s:%s", cfg->tls_server_name, defport, host, defport);

		if (!map || !(c->connect_to = curl_slist_append(NULL, map))) {
			free(map);
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
		free(map);
		curl_url_set(u, CURLUPART_HOST, cfg->tls_server_name, 0);
		curl_url_set(u, CURLUPART_PORT, defport, 0);
	}
	{
		char *full = NULL;

		curl_url_set(u, CURLUPART_QUERY, NULL, 0);
		curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0);
		if (curl_url_get(u, CURLUPART_URL, &full, 0) == CURLUE_OK) {
			size_t l = strlen(full);

			while (l > 0 && full[l - 1] == '/')
				full[--l] = '\0';
			c->base_url = strdup(full);
			curl_free(full);
		}
	}
	if (!c->host_port || !c->display_url || !c->base_url) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	r = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(defport);
	curl_free(path);
	curl_url_cleanup(u);
	return r;
}

/* Whether to speak HTTP/2 (and multiplex).  Before 8.1.0 libcurl stops
 * reading an HTTP/2 connection for a stream whose frame does not fit its
 * receive buffer; when that transfer then ends by its Content-Length, the
 * rest of what the connection brought (another list's last frame) stays in
 * curl's buffer, and its test for bytes left there compares the wrong way
 * round: the other transfer waits until the server writes again, for
 * minutes beside a watch with nothing to say.  Such a libcurl speaks
 * HTTP/1.1: a connection per transfer under way, each read by its own
 * transfer. */
static bool http2_safe(void)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

	return v && v->version_num >= 0x080100;
}

int kube_loop_new(struct kube_loop **ret, struct kerr *err)
{
	struct kube_loop *l = calloc(1, sizeof(*l));

	if (l && (l->multi = curl_multi_init())) {
		l->http2 = http2_safe();
		curl_multi_setopt(l->multi, CURLMOPT_PIPELINING,
				  (long)(l->http2 ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING));
		*ret = l;
		return 0;
	}
	free(l);
	return kerr_set(err, KERR_OTHER, "out of memory");
}

void kube_loop_free(struct kube_loop *l)
{
	if (!l)
		return;
	curl_multi_cleanup(l->multi);
	free(l->clients);
	free(l);
}

/* The client on loop (NULL: on a new loop of its own). */
static int loop_join(struct kube_client *c, struct kube_loop *loop)
{
	if (!loop) {
		if (kube_loop_new(&loop, &(struct kerr){ 0 }) < 0)
			return -1;
		c->own_loop = true;
	}
	c->loop = loop;
	c->multi = loop->multi;
	if (loop->nclients == loop->cap) {
		struct kube_client **cs = kube_array_grow(loop->clients, &loop->cap, loop->nclients + 1,
							  sizeof(*cs), 4);

		if (!cs)
			return -1;
		loop->clients = cs;
	}
	loop->clients[loop->nclients++] = c;
	return 0;
}

static void loop_leave(struct kube_client *c)
{
	struct kube_loop *l = c->loop;

	if (!l)
		return;
	for (size_t i = 0; i < l->nclients; i++)
		if (l->clients[i] == c) {
			memmove(&l->clients[i], &l->clients[i + 1], (l->nclients - i - 1) * sizeof(*l->clients));
			l->nclients--;
			break;
		}
	if (c->own_loop)
		kube_loop_free(l);
	c->loop = NULL;
	c->multi = NULL;
}

int kube_client_new(const struct kube_config *cfg, const struct kube_client_options *opt,
		    struct kube_client **ret, struct kerr *err)
{
	static bool global_done;
	struct kube_client *c;

	if (!cfg)
		return kerr_set(err, KERR_CONFIG, "no configuration");
	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return kerr_set(err, KERR_OTHER, "cannot initialise libcurl");
		global_done = true;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return kerr_set(err, KERR_OTHER, "out of memory");
	c->cfg = cfg;
	c->timeout_ms = opt ? opt->request_timeout_ms : 0;
	c->verbosity = opt ? opt->verbosity : 0;
	c->consistent_reads = opt && opt->consistent_reads;
	/* -v=9 shows bodies: JSON, which a person can read */
	c->protobuf_off = (opt && opt->json_only) || c->verbosity >= 9;
	c->log = opt && opt->log ? opt->log : stderr;
	c->list_max_objects = opt && opt->list_max_objects ? opt->list_max_objects : KUBE_LIST_MAX_OBJECTS;
	c->list_max_bytes = opt && opt->list_max_bytes ? opt->list_max_bytes : KUBE_LIST_MAX_BYTES;
	c->max_object_bytes = opt && opt->max_object_bytes ? opt->max_object_bytes : KUBE_MAX_OBJECT_BYTES;
	c->user_agent = opt && opt->user_agent ? strdup(opt->user_agent)
						 : kube_user_agent(program_invocation_short_name, PLUGIN_VERSION, PLUGIN_COMMIT);
	c->creds = cred_cache_new();
	/* an exec plugin's stderr goes where -v output and Warning: lines go */
	cred_cache_set_log(c->creds, c->log);
	if (!c->user_agent || !c->creds || loop_join(c, opt ? opt->loop : NULL) < 0) {
		kube_client_free(c);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (parse_server(c, err) < 0) {
		kube_client_free(c);
		return -1;
	}
	if (c->plain_http && (cfg->token || cfg->token_file || cfg->username || cfg->password ||
			      cfg->client_cert.len || cfg->client_key.len || cfg->exec)) {
		kerr_set(err, KERR_CONFIG,
			 "refusing to send credentials over plain http to %s: use an https server address",
			 c->host_port);
		kube_client_free(c);
		return -1;
	}
	if ((c->tls_sessions = curl_share_init()))
		curl_share_setopt(c->tls_sessions, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	*ret = c;
	return 0;
}


void kube_client_free(struct kube_client *c)
{
	if (!c)
		return;
	while (c->xfers)
		xfer_free(c->xfers);
	for (size_t i = 0; i < c->npool; i++)
		curl_easy_cleanup(c->pool[i]);
	curl_share_cleanup(c->tls_sessions);
	loop_leave(c);
	cred_cache_free(c->creds);
	curl_slist_free_all(c->connect_to);
	strset_release(&c->warnings_seen);
	free(c->user_agent);
	free(c->base_url);
	free(c->display_url);
	free(c->host_port);
	free(c);
}

/* --- transfers ------------------------------------------------------------- */

static void xfer_reset_response(struct xfer *x)
{
	x->code = 0;
	free(x->resp_type);
	x->resp_type = NULL;
	free(x->retry_after);
	x->retry_after = NULL;
	buf_release(&x->body);
	buf_release(&x->log_hdrs);
	buf_release(&x->log_body);
	x->gzipped = false;
	x->paused = false;
	gunzip_free(x->gz);
	x->gz = NULL;
	x->errbuf[0] = '\0';
}

void xfer_detach(struct xfer *x)
{
	struct kube_client *c = x->c;

	if (x->easy) {
		if (x->state == XF_RUNNING)
			curl_multi_remove_handle(c->multi, x->easy);
		if (c->npool < EASY_POOL_MAX) {
			curl_easy_reset(x->easy);
			c->pool[c->npool++] = x->easy;
		} else {
			curl_easy_cleanup(x->easy);
		}
		x->easy = NULL;
	}
	x->state = XF_QUEUED;
	curl_slist_free_all(x->headers);
	x->headers = NULL;
}

void xfer_free(struct xfer *x)
{
	if (!x)
		return;
	if (x->c->loop->in_curl && x->state == XF_RUNNING) {
		/* freed from a callback of a running transfer: libcurl cannot let go
		 * of the handle now, so the transfer is aborted and freed later */
		x->orphan = true;
		x->data = NULL;
		x->done = NULL;
		x->ud = NULL;
		return;
	}
	xfer_detach(x);
	if (x->prev)
		x->prev->next = x->next;
	else
		x->c->xfers = x->next;
	if (x->next)
		x->next->prev = x->prev;
	xfer_reset_response(x);
	kerr_release(&x->sink_err);
	free(x->path);
	free(x->query);
	free(x->req_body);
	free(x);
}

struct xfer *xfer_new(struct kube_client *c, const char *method, const char *path, const char *query)
{
	struct xfer *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->c = c;
	x->method = method;
	x->idempotent = strcmp(method, "GET") == 0;
	x->path = strdup(path);
	x->query = query && *query ? strdup(query) : NULL;
	if (!x->path || (query && *query && !x->query)) {
		free(x->path);
		free(x->query);
		free(x);
		return NULL;
	}
	x->started = now_ms();
	if (c->timeout_ms > 0)
		x->deadline = x->started + c->timeout_ms;
	x->next = c->xfers;
	if (c->xfers)
		c->xfers->prev = x;
	c->xfers = x;
	return x;
}

/* Queued transfers are handed to curl by the driving loop, never from inside
 * a curl callback (libcurl refuses that). */
void xfer_queue(struct xfer *x, long long wake_at)
{
	x->state = XF_QUEUED;
	x->wake_at = wake_at;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb, klen;
	const char *colon, *v, *end = p + n;

	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		/* a new response: a proxy's CONNECT answer or 1xx came first */
		const char *sp = memchr(p, ' ', n);

		xfer_reset_response(x);
		x->code = sp ? strtol(sp + 1, NULL, 10) : 0;
		return n;
	}
	while (end > p && (end[-1] == '\r' || end[-1] == '\n'))
		end--;
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon)
		return n;
	klen = (size_t)(colon - p);
	v = http_skip_ws(colon + 1, end);
	if (x->c->verbosity >= 8) {
		bool secret = (klen == 10 && strncasecmp(p, "set-cookie", 10) == 0);

		buf_add(&x->log_hdrs, p, klen + 1, SIZE_MAX);
		buf_add(&x->log_hdrs, " ", 1, SIZE_MAX);
		if (secret)
			buf_add(&x->log_hdrs, "<masked>", 8, SIZE_MAX);
		else
			buf_add(&x->log_hdrs, v, (size_t)(end - v), SIZE_MAX);
		buf_add(&x->log_hdrs, "\n", 1, SIZE_MAX);
	}
	if (klen == 7 && strncasecmp(p, "warning", 7) == 0) {
		char **w = kube_warning_parse(v, (size_t)(end - v));

		for (size_t i = 0; w && w[i]; i++)
			warning_seen(x->c, w[i]);
		strv_free(w);
	} else if (klen == 11 && strncasecmp(p, "retry-after", 11) == 0) {
		free(x->retry_after);
		x->retry_after = strndup(v, (size_t)(end - v));
	} else if (klen == 12 && strncasecmp(p, "content-type", 12) == 0) {
		free(x->resp_type);
		x->resp_type = strndup(v, (size_t)(end - v));
	} else if (klen == 16 && strncasecmp(p, "content-encoding", 16) == 0) {
		/* gzip is the one encoding asked for; identity is none */
		if ((size_t)(end - v) == 4 && strncasecmp(v, "gzip", 4) == 0) {
			x->gzipped = true;
		} else if (!((size_t)(end - v) == 8 && strncasecmp(v, "identity", 8) == 0)) {
			kerr_set(&x->sink_err, KERR_DECODE, "the server sent a body in an encoding not asked for (%.*s)",
				 (int)((end - v) > 32 ? 32 : (end - v)), v);
			x->sink_failed = true;
			return 0;
		}
	}
	return n;
}

/* Bytes of the body as sent, inflated where they were sent gzipped: to the
 * data sink (2xx), else kept for the caller. */
static int body_bytes(void *ud, const char *p, size_t n)
{
	struct xfer *x = ud;

	if (x->c->verbosity >= 9)
		buf_add(&x->log_body, p, n, LOG_BODY_MAX);
	if (x->code >= 200 && x->code < 300 && x->data) {
		x->delivered = true;
		return x->data(x->ud, p, n, &x->sink_err);
	}
	if (buf_add(&x->body, p, n, x->code >= 200 && x->code < 300 ? JSON_BODY_CAP : ERROR_BODY_CAP) < 0)
		return kerr_set(&x->sink_err, KERR_OTHER, "out of memory");
	return 0;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	int r;

	if (x->orphan)
		return 0;
	if (x->hold && *x->hold) {
		/* libcurl keeps these bytes and hands them over again when resumed */
		x->paused = true;
		return CURL_WRITEFUNC_PAUSE;
	}
	if (x->gzipped && !x->gz && !(x->gz = gunzip_new(body_bytes, x)))
		r = kerr_set(&x->sink_err, KERR_OTHER, "out of memory");
	else
		r = x->gz ? gunzip_feed(x->gz, p, n, &x->sink_err) : body_bytes(x, p, n);
	if (r < 0) {
		x->sink_failed = true;
		return 0;
	}
	return n;
}

/* Whether a body sent gzipped stopped before the end of its stream. */
bool xfer_body_cut(const struct xfer *x)
{
	return x->gz && !gunzip_done(x->gz);
}

static bool header_secret(const char *h, size_t klen)
{
	return (klen == 13 && strncasecmp(h, "authorization", 13) == 0) ||
	       (klen == 6 && strncasecmp(h, "cookie", 6) == 0);
}

static void log_request(struct xfer *x, const char *url)
{
	struct kube_client *c = x->c;

	kube_log(c, "%s %s", x->method, url);
	kube_log(c, "Request Headers:");
	for (struct curl_slist *h = x->headers; h; h = h->next) {
		const char *colon = strchr(h->data, ':');
		size_t klen = colon ? (size_t)(colon - h->data) : strlen(h->data);

		if (!colon || !colon[1])
			continue;
		if (header_secret(h->data, klen)) {
			const char *v = colon + 1;

			while (*v == ' ')
				v++;
			kube_log(c, "    %.*s: %s", (int)klen, h->data,
			      strncasecmp(v, "bearer ", 7) == 0  ? "Bearer <masked>"
			      : strncasecmp(v, "basic ", 6) == 0 ? "Basic <masked>"
								 : "<masked>");
		} else {
			kube_log(c, "    %s", h->data);
		}
	}
}

static char *base64(const unsigned char *in, size_t len)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16;

		if (i + 1 < len)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		*o++ = tbl[(v >> 18) & 63];
		*o++ = tbl[(v >> 12) & 63];
		*o++ = i + 1 < len ? tbl[(v >> 6) & 63] : '=';
		*o++ = i + 2 < len ? tbl[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int add_header(struct curl_slist **l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_header(struct curl_slist **l, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	struct curl_slist *n;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	n = curl_slist_append(*l, s);
	/* the header may carry a secret: do not leave a copy behind */
	explicit_bzero(s, strlen(s));
	free(s);
	if (!n)
		return -1;
	*l = n;
	return 0;
}

/* libcurl builds no request over 1 MiB and then fails with a misleading
 * "out of memory"; API servers take about 1 MB of headers (Go's default). */
#define TOKEN_HEADER_MAX 1000000

static int build_headers(struct xfer *x, const struct kube_credential *cred, struct kerr *err)
{
	const struct kube_config *cfg = x->c->cfg;
	struct curl_slist *h = NULL;
	int r = 0;

	if (cred->token && strlen(cred->token) > TOKEN_HEADER_MAX)
		return kerr_set(err, KERR_CONFIG, "the token for user \"%s\" is too long for an HTTP header (%zu bytes)",
				cfg->user_name ? cfg->user_name : "", strlen(cred->token));
	r |= add_header(&h, "Accept: %s", x->accept ? x->accept : "application/json");
	r |= add_header(&h, "User-Agent: %s", x->c->user_agent);
	/* inflated here (gunzip.h), not by libcurl */
	if (!cfg->disable_compression)
		r |= add_header(&h, "Accept-Encoding: gzip");
	if (cred->token && *cred->token) {
		r |= add_header(&h, "Authorization: Bearer %s", cred->token);
	} else if (cfg->username || cfg->password) {
		char *pair = xasprintf("%s:%s", cfg->username ? cfg->username : "", cfg->password ? cfg->password : "");
		char *b = pair ? base64((unsigned char *)pair, strlen(pair)) : NULL;

		r |= b ? add_header(&h, "Authorization: Basic %s", b) : -1;
		if (pair)
			explicit_bzero(pair, strlen(pair));
		if (b)
			explicit_bzero(b, strlen(b));
		free(pair);
		free(b);
	}
	if (cfg->impersonate_user)
		r |= add_header(&h, "Impersonate-User: %s", cfg->impersonate_user);
	for (size_t i = 0; cfg->impersonate_groups && cfg->impersonate_groups[i]; i++)
		r |= add_header(&h, "Impersonate-Group: %s", cfg->impersonate_groups[i]);
	if (cfg->impersonate_uid)
		r |= add_header(&h, "Impersonate-Uid: %s", cfg->impersonate_uid);
	for (size_t i = 0; i < cfg->impersonate_extra.len; i++) {
		char *k = kube_escape(cfg->impersonate_extra.items[i].key);

		r |= k ? add_header(&h, "Impersonate-Extra-%s: %s", k, cfg->impersonate_extra.items[i].value) : -1;
		free(k);
	}
	if (x->content_type)
		r |= add_header(&h, "Content-Type: %s", x->content_type);
	/* no 100-continue round trip for request bodies */
	r |= add_header(&h, "Expect:");
	if (r) {
		curl_slist_free_all(h);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	x->headers = h;
	return 0;
}

/* Prepare the easy handle for one attempt and hand it to the multi handle. */
/* Go's transport gives a TLS handshake 10 s once the connection is made,
 * whatever --request-timeout says (0 included); curl counts the dial and
 * the handshake as one, so the handshake is timed here, from the first
 * call that finds the peer's address known (the TCP connection made). */
#define TLS_HANDSHAKE_TIMEOUT_MS 10000
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = ud;
	curl_off_t handshaken = 0;
	char *scheme = NULL, *ip = NULL;

	/* A held transfer's deadline runs until the server answers, stops
	 * while its first bytes wait, and runs again, whole, when it is let go. */
	if (x->hold && !x->paused && x->deadline && !x->no_deadline && now_ms() >= x->deadline) {
		x->timed_out = true;
		return 1;
	}

	if (curl_easy_getinfo(x->easy, CURLINFO_APPCONNECT_TIME_T, &handshaken) != CURLE_OK || handshaken > 0 ||
	    curl_easy_getinfo(x->easy, CURLINFO_SCHEME, &scheme) != CURLE_OK || !scheme ||
	    strcasecmp(scheme, "https") != 0 || curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip) != CURLE_OK ||
	    !ip || !*ip)
		return 0;
	if (!x->connected_at)
		x->connected_at = now_ms();
	if (now_ms() - x->connected_at < TLS_HANDSHAKE_TIMEOUT_MS)
		return 0;
	x->tls_timeout = true;
	return 1;
}

/* The options every request of the client shares: where it goes, its
 * headers and callbacks, HTTP/2 (kube_loop_new says when) over TLS 1.2
 * or later, compression and the proxy. */
static void easy_set_common(struct xfer *x, CURL *e, const char *url)
{
	const struct kube_client *c = x->c;
	const struct kube_config *cfg = c->cfg;

	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	/* a held response waits in its own connection's socket, not in a shared
	 * HTTP/2 connection's buffers */
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
			 (long)(c->loop->http2 && !x->hold ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1));
	/* wait for a connection that may multiplex rather than open another */
	curl_easy_setopt(e, CURLOPT_PIPEWAIT, c->loop->http2 && !x->hold ? 1L : 0L);
	curl_easy_setopt(e, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 30000L + TLS_HANDSHAKE_TIMEOUT_MS);
	x->connected_at = 0;
	x->tls_timeout = false;
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
	if (c->connect_to)
		curl_easy_setopt(e, CURLOPT_CONNECT_TO, c->connect_to);
	if (c->tls_sessions)
		curl_easy_setopt(e, CURLOPT_SHARE, c->tls_sessions);
	if (x->fresh_connection)
		curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
	if (cfg->proxy_url && *cfg->proxy_url)
		curl_easy_setopt(e, CURLOPT_PROXY, cfg->proxy_url);
	else if (c->loopback)
		curl_easy_setopt(e, CURLOPT_PROXY, "");
}

/* The server's certificate authority (or none checked), and the client
 * certificate: the credential's, else the configuration's. */
static void easy_set_tls(CURL *e, const struct kube_config *cfg, const struct kube_credential *cred)
{
	const struct kblob *cert = cred->client_cert.len ? &cred->client_cert : &cfg->client_cert;
	const struct kblob *key = cred->client_cert.len ? &cred->client_key : &cfg->client_key;

	if (cfg->insecure_skip_tls_verify) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (cfg->ca.len) {
		struct curl_blob b = {cfg->ca.data, cfg->ca.len, CURL_BLOB_COPY};

		curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b);
	}
	if (cert->len && key->len) {
		struct curl_blob cb = {cert->data, cert->len, CURL_BLOB_COPY};
		struct curl_blob kb = {key->data, key->len, CURL_BLOB_COPY};

		curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cb);
		curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &kb);
		curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
	}
}

/* The method, the body, and the time left before the request's deadline. */
static void easy_set_request(const struct xfer *x, CURL *e)
{
	if (strcmp(x->method, "GET") != 0) {
		/* libcurl sends a request again by itself when a reused
		 * connection closes before any answer: for a write that is a blind
		 * resend of what the server may have done already.  A connection
		 * of its own is never a reused one. */
		curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, x->method);
		if (x->req_body || strcmp(x->method, "DELETE") != 0) {
			curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->req_len);
			curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->req_body ? x->req_body : "");
		}
	}
	/* (a held transfer's deadline is kept by on_progress) */
	if (x->deadline && !x->no_deadline && !x->hold) {
		long long left = x->deadline - now_ms();

		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(left > 1 ? left : 1));
	}
}

/* -v=7 and up: the request as kubectl logs it, at the address shown to
 * the user; -v=8 its body too. */
static void xfer_log_start(struct xfer *x, const char *url)
{
	struct kube_client *c = x->c;
	char *shown;

	if (c->verbosity < 7)
		return;
	shown = x->query ? xasprintf("%s%s?%s", c->display_url, x->path, x->query)
			 : xasprintf("%s%s", c->display_url, x->path);
	log_request(x, shown ? shown : url);
	free(shown);
	if (c->verbosity >= 8 && x->req_body)
		kube_log(c, "Request Body: %.*s", (int)(x->req_len > LOG_BODY_MAX ? LOG_BODY_MAX : x->req_len),
			 x->req_body);
}

int xfer_start(struct xfer *x, struct kerr *err)
{
	struct kube_client *c = x->c;
	struct kube_credential cred = {0};
	char *url;
	CURL *e;
	int r = -1;

	if (kube_credential_get(c->cfg, c->creds, x->force_cred, &cred, err) < 0)
		return -1;
	x->force_cred = false;
	if (c->plain_http && (cred.token || cred.client_cert.len)) {
		kube_credential_release(&cred);
		return kerr_set(err, KERR_CONFIG,
				"refusing to send credentials over plain http to %s: use an https server address",
				c->host_port);
	}
	url = x->query ? xasprintf("%s%s?%s", c->base_url, x->path, x->query) : xasprintf("%s%s", c->base_url, x->path);
	if (!url) {
		kube_credential_release(&cred);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (build_headers(x, &cred, err) < 0)
		goto out;
	e = c->npool ? c->pool[--c->npool] : curl_easy_init();
	if (!e) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	x->easy = e;
	xfer_reset_response(x);
	x->delivered = false;
	easy_set_common(x, e, url);
	easy_set_tls(e, c->cfg, &cred);
	easy_set_request(x, e);
	xfer_log_start(x, url);
	if (curl_multi_add_handle(c->multi, e) != CURLM_OK) {
		kerr_set(err, KERR_OTHER, "cannot start the request");
		xfer_detach(x);
		goto out;
	}
	x->state = XF_RUNNING;
	x->started = now_ms();
	r = 0;
out:
	kube_credential_release(&cred);
	free(url);
	return r;
}
