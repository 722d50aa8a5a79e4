/* The API client: libcurl's multi interface with kubectl's manners.
 *
 * Every request is a struct xfer driven by the one multi handle of the
 * client, so blocking calls, paged lists and watches share connections
 * (HTTP/2 multiplexing where the server offers it) and wait in one place.
 */
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

/* --- small helpers -------------------------------------------------------- */

struct buf {
	char *data;
	size_t len, cap;
	bool truncated;
};

/* Appends up to limit bytes in total; the rest is dropped and noted. */
static int buf_add(struct buf *b, const void *p, size_t n, size_t limit)
{
	if (b->len + n > limit) {
		b->truncated = true;
		n = limit > b->len ? limit - b->len : 0;
	}
	if (n == 0)
		return 0;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *d;

		while (cap < b->len + n + 1)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d)
			return -1;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

static void buf_release(struct buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Hand an error over, replacing whatever dst held. */
static void kerr_move(struct kerr *dst, struct kerr *src)
{
	if (!dst) {
		kerr_release(src);
		return;
	}
	kerr_release(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

/* RFC 3986 unreserved, independent of the locale */
static bool unreserved(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
	       ch == '_' || ch == '.' || ch == '~';
}

char *kube_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	char *out, *o;

	if (!s)
		return NULL;
	for (const char *p = s; *p; p++)
		n += unreserved((unsigned char)*p) ? 1 : 3;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (unreserved(*p)) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

struct qpair {
	const char *key, *value;
};

static int qpair_cmp(const void *a, const void *b)
{
	return strcmp(((const struct qpair *)a)->key, ((const struct qpair *)b)->key);
}

char *kube_query_build(const char *const *kv, size_t n)
{
	struct qpair *pairs = calloc(n ? n : 1, sizeof(*pairs));
	struct buf b = {0};
	size_t m = 0;

	if (!pairs)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (kv[2 * i] && kv[2 * i + 1])
			pairs[m++] = (struct qpair){kv[2 * i], kv[2 * i + 1]};
	/* stable enough: keys are distinct */
	qsort(pairs, m, sizeof(*pairs), qpair_cmp);
	if (buf_add(&b, "", 0, SIZE_MAX) < 0 || !b.data) {
		b.data = strdup("");
		if (!b.data)
			goto fail;
	}
	for (size_t i = 0; i < m; i++) {
		char *k = kube_escape(pairs[i].key), *v = kube_escape(pairs[i].value);
		int r = -1;

		if (k && v)
			r = (i ? buf_add(&b, "&", 1, SIZE_MAX) : 0) | buf_add(&b, k, strlen(k), SIZE_MAX) |
			    buf_add(&b, "=", 1, SIZE_MAX) | buf_add(&b, v, strlen(v), SIZE_MAX);
		free(k);
		free(v);
		if (r < 0)
			goto fail;
	}
	free(pairs);
	return b.data;
fail:
	free(pairs);
	buf_release(&b);
	return NULL;
}

char *kube_user_agent_default(void)
{
	struct utsname u;
	const char *os = "linux", *arch = "amd64";
	char osbuf[64];

	if (uname(&u) == 0) {
		size_t i;

		for (i = 0; u.sysname[i] && i + 1 < sizeof(osbuf); i++)
			osbuf[i] = (char)tolower((unsigned char)u.sysname[i]);
		osbuf[i] = '\0';
		os = osbuf;
		if (strcmp(u.machine, "x86_64") == 0)
			arch = "amd64";
		else if (strcmp(u.machine, "aarch64") == 0 || strcmp(u.machine, "arm64") == 0)
			arch = "arm64";
		else if (strncmp(u.machine, "armv", 4) == 0)
			arch = "arm";
		else if (strcmp(u.machine, "i686") == 0 || strcmp(u.machine, "i386") == 0)
			arch = "386";
		else
			arch = u.machine;
	}
	return xasprintf("kubectl-inspect-cgpu/%s (%s/%s) kubernetes/%s", PLUGIN_VERSION, os, arch, PLUGIN_COMMIT);
}

long kube_retry_after(long code, const char *retry_after)
{
	char *end;
	long s;

	if (code != 429 && code < 500)
		return -1;
	if (!retry_after)
		return -1;
	while (*retry_after == ' ' || *retry_after == '\t')
		retry_after++;
	if (!isdigit((unsigned char)*retry_after))
		return -1;
	errno = 0;
	s = strtol(retry_after, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (errno || *end)
		return -1;
	return s;
}

/* --- Warning headers ------------------------------------------------------ */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* RFC 7234 warning-value: code SP agent SP quoted-text [SP quoted-date] */
char **kube_warning_parse(const char *value, size_t len)
{
	const char *p = value, *end = value + len;
	char **out = NULL;
	size_t n = 0;

	if (!value)
		return NULL;
	while (p < end) {
		long code = 0;
		int digits = 0;
		struct buf text = {0};

		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p >= end)
			break;
		while (p < end && isdigit((unsigned char)*p) && digits < 3) {
			code = code * 10 + (*p++ - '0');
			digits++;
		}
		if (digits != 3 || p >= end || *p != ' ')
			goto bad;
		p = skip_ws(p, end);
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		p = skip_ws(p, end);
		if (p >= end || *p != '"')
			goto bad;
		p++;
		while (p < end && *p != '"') {
			if (*p == '\\' && p + 1 < end)
				p++;
			/* the text goes to a terminal: no control bytes from a server */
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				p++;
				continue;
			}
			if (buf_add(&text, p, 1, 64 * 1024) < 0) {
				buf_release(&text);
				goto bad;
			}
			p++;
		}
		if (p >= end) {
			buf_release(&text);
			goto bad;
		}
		p++;
		/* optional quoted date */
		p = skip_ws(p, end);
		if (p < end && *p == '"') {
			p++;
			while (p < end && *p != '"')
				p++;
			if (p < end)
				p++;
		}
		p = skip_ws(p, end);
		if (p < end && *p != ',') {
			buf_release(&text);
			goto bad;
		}
		if (code == 299 && text.len > 0) {
			char **o = realloc(out, (n + 2) * sizeof(*o));

			if (!o) {
				buf_release(&text);
				goto bad;
			}
			out = o;
			out[n++] = text.data;
			out[n] = NULL;
		} else {
			buf_release(&text);
		}
	}
	return out;
bad:
	for (size_t i = 0; i < n; i++)
		free(out[i]);
	free(out);
	return NULL;
}

/* --- errors from responses ---------------------------------------------- */

int kube_path_resource(const char *path, char **resource, char **name)
{
	char *copy, *segs[16], *save = NULL;
	size_t n = 0, i;
	const char *group = "";

	*resource = NULL;
	*name = NULL;
	if (!path)
		return -1;
	copy = strdup(path);
	if (!copy)
		return -1;
	for (char *t = strtok_r(copy, "/", &save); t && n < 16; t = strtok_r(NULL, "/", &save))
		segs[n++] = t;
	if (n >= 2 && strcmp(segs[0], "api") == 0) {
		i = 2;
	} else if (n >= 3 && strcmp(segs[0], "apis") == 0) {
		group = segs[1];
		i = 3;
	} else {
		free(copy);
		return -1;
	}
	if (i < n && strcmp(segs[i], "namespaces") == 0 && n - i >= 3)
		i += 2;
	if (i >= n) {
		free(copy);
		return -1;
	}
	*resource = *group ? xasprintf("%s.%s", segs[i], group) : strdup(segs[i]);
	if (i + 1 < n)
		*name = strdup(segs[i + 1]);
	free(copy);
	return *resource ? 0 : -1;
}

/* Go's %q of a short excerpt: whitespace folded, control bytes dropped. */
static char *excerpt_quoted(const char *body, size_t len)
{
	enum { MAX = 160 };
	struct buf b = {0};
	size_t shown = 0;
	bool space = false;

	buf_add(&b, "\"", 1, SIZE_MAX);
	while (len && isspace((unsigned char)*body)) {
		body++;
		len--;
	}
	while (len && isspace((unsigned char)body[len - 1]))
		len--;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)body[i];

		if (isspace(ch)) {
			space = true;
			continue;
		}
		if (ch < 0x20 || ch == 0x7f)
			continue;
		if (shown >= MAX) {
			buf_add(&b, "...", 3, SIZE_MAX);
			break;
		}
		if (space) {
			buf_add(&b, " ", 1, SIZE_MAX);
			shown++;
			space = false;
		}
		if (ch == '"' || ch == '\\')
			buf_add(&b, "\\", 1, SIZE_MAX);
		buf_add(&b, &body[i], 1, SIZE_MAX);
		shown++;
	}
	buf_add(&b, "\"", 1, SIZE_MAX);
	return b.data;
}

static bool is_text_type(const char *ct)
{
	return ct && strncasecmp(ct, "text/", 5) == 0;
}

/* client-go's generic reasons and messages for bodies that are not a Status. */
static const struct {
	long code;
	const char *reason, *message;
} generic_reasons[] = {
	{ 409, "Conflict", "the server reported a conflict" },
	{ 404, "NotFound", "the server could not find the requested resource" },
	{ 400, "BadRequest", "the server rejected our request for an unknown reason" },
	{ 401, "Unauthorized", "the server has asked for the client to provide credentials" },
	{ 403, "Forbidden", "the server does not allow access to the requested resource" },
	{ 405, "MethodNotAllowed", "the server does not allow this method on the requested resource" },
	{ 415, "UnsupportedMediaType", "the server does not support the media type of the request" },
	{ 422, "Invalid", "the server rejected our request due to an error in our request" },
	{ 429, "TooManyRequests", "the server has received too many requests and has asked us to try again later" },
	{ 503, "ServiceUnavailable", "the server is currently unable to handle the request" },
	{ 504, "Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request" },
};

/* client-go's NewGenericServerResponse, for bodies that are not a Status. */
static int generic_error(long code, const char *content_type, const char *verb, const char *path,
			 const void *body, size_t len, struct kerr *err)
{
	const char *reason = NULL;
	char *message = NULL, *resource = NULL, *name = NULL, *server_msg;
	char lverb[16];
	size_t i;

	if (is_text_type(content_type) && len > 0)
		server_msg = excerpt_quoted(body, len);
	else
		server_msg = strdup("\"unknown\"");
	for (i = 0; i < sizeof(generic_reasons) / sizeof(generic_reasons[0]); i++)
		if (generic_reasons[i].code == code) {
			reason = generic_reasons[i].reason;
			message = strdup(generic_reasons[i].message);
		}
	if (code == 409 && verb && strcmp(verb, "POST") == 0)
		reason = "AlreadyExists";
	if (!reason && code >= 500) {
		reason = "InternalError";
		message = xasprintf("an error on the server (%s) has prevented the request from succeeding",
				    server_msg ? server_msg : "\"unknown\"");
	} else if (!reason) {
		reason = "Unknown";
		message = xasprintf("the server responded with the status code %ld but did not return "
				    "more information",
				    code);
	}
	for (i = 0; verb && verb[i] && i + 1 < sizeof(lverb); i++)
		lverb[i] = (char)tolower((unsigned char)verb[i]);
	lverb[i] = '\0';
	if (message && kube_path_resource(path, &resource, &name) == 0) {
		char *m = name ? xasprintf("%s (%s %s %s)", message, lverb, resource, name)
			       : xasprintf("%s (%s %s)", message, lverb, resource);

		if (m) {
			free(message);
			message = m;
		}
	}
	kerr_set_status(err, code, reason, message ? message : "unknown error");
	free(message);
	free(resource);
	free(name);
	free(server_msg);
	return -1;
}

/* A Status with status Failure, as client-go recognises one; 0 if it is one. */
static int status_from_json(json_t *j, long code, struct kerr *err)
{
	const char *kind, *status, *reason, *message;

	if (!json_is_object(j))
		return 1;
	kind = json_string_value(json_object_get(j, "kind"));
	status = json_string_value(json_object_get(j, "status"));
	if (!kind || strcmp(kind, "Status") != 0 || !status || !*status || strcmp(status, "Success") == 0)
		return 1;
	reason = json_string_value(json_object_get(j, "reason"));
	message = json_string_value(json_object_get(j, "message"));
	if (code == 0)
		code = (long)json_integer_value(json_object_get(j, "code"));
	kerr_set_status(err, code, reason, message ? message : "");
	return 0;
}

int kube_status_error(long code, const char *content_type, const char *verb, const char *path,
		      const void *body, size_t len, struct kerr *err)
{
	json_t *j = NULL;

	if (body && len > 0 && !is_text_type(content_type))
		j = json_loadb(body, len, JSON_DECODE_ANY, NULL);
	if (j && status_from_json(j, code, err) == 0) {
		json_decref(j);
		return -1;
	}
	json_decref(j);
	return generic_error(code, content_type, verb, path, body, len, err);
}

/* --- the client ------------------------------------------------------------ */

struct xfer;

struct kube_client {
	const struct kube_config *cfg;
	CURLM *multi;
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
	struct xfer *xfers; /* every unfinished transfer */
	char **warnings_seen;
	size_t nwarnings;
	unsigned long activity; /* bumped whenever a caller's callback ran */
	bool in_curl;		/* inside curl_multi_perform: handles cannot be removed now */
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
	bool idempotent;
	bool no_deadline; /* watches run until the server ends them */
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

const struct kube_config *kube_client_config(const struct kube_client *c)
{
	return c ? c->cfg : NULL;
}

static void logf_(struct kube_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* klog's header, so that -v output reads like kubectl's */
static void logf_(struct kube_client *c, const char *fmt, ...)
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

static const char *status_text(long code)
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
	char **w;

	for (size_t i = 0; i < c->nwarnings; i++)
		if (strcmp(c->warnings_seen[i], msg) == 0)
			return;
	w = realloc(c->warnings_seen, (c->nwarnings + 1) * sizeof(*w));
	if (!w)
		return;
	c->warnings_seen = w;
	w[c->nwarnings] = strdup(msg);
	if (!w[c->nwarnings])
		return;
	c->nwarnings++;
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
	c->log = opt && opt->log ? opt->log : stderr;
	c->user_agent = opt && opt->user_agent ? strdup(opt->user_agent) : kube_user_agent_default();
	c->multi = curl_multi_init();
	c->creds = cred_cache_new();
	if (!c->user_agent || !c->multi || !c->creds) {
		kube_client_free(c);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	curl_multi_setopt(c->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
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
	*ret = c;
	return 0;
}

static void xfer_free(struct xfer *x);

void kube_client_free(struct kube_client *c)
{
	if (!c)
		return;
	while (c->xfers)
		xfer_free(c->xfers);
	for (size_t i = 0; i < c->npool; i++)
		curl_easy_cleanup(c->pool[i]);
	if (c->multi)
		curl_multi_cleanup(c->multi);
	cred_cache_free(c->creds);
	curl_slist_free_all(c->connect_to);
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings_seen[i]);
	free(c->warnings_seen);
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
	x->errbuf[0] = '\0';
}

static void xfer_detach(struct xfer *x)
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

static void xfer_free(struct xfer *x)
{
	if (!x)
		return;
	if (x->c->in_curl && x->state == XF_RUNNING) {
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

static struct xfer *xfer_new(struct kube_client *c, const char *method, const char *path, const char *query)
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
static void xfer_queue(struct xfer *x, long long wake_at)
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
	v = skip_ws(colon + 1, end);
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
	}
	return n;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;

	if (x->orphan)
		return 0;
	if (x->c->verbosity >= 9)
		buf_add(&x->log_body, p, n, LOG_BODY_MAX);
	if (x->code >= 200 && x->code < 300 && x->data) {
		x->delivered = true;
		if (x->data(x->ud, p, n, &x->sink_err) < 0) {
			x->sink_failed = true;
			return 0;
		}
		return n;
	}
	if (buf_add(&x->body, p, n, x->code >= 200 && x->code < 300 ? JSON_BODY_CAP : ERROR_BODY_CAP) < 0)
		return 0;
	return n;
}

static bool header_secret(const char *h, size_t klen)
{
	return (klen == 13 && strncasecmp(h, "authorization", 13) == 0) ||
	       (klen == 6 && strncasecmp(h, "cookie", 6) == 0);
}

static void log_request(struct xfer *x, const char *url)
{
	struct kube_client *c = x->c;

	logf_(c, "%s %s", x->method, url);
	logf_(c, "Request Headers:");
	for (struct curl_slist *h = x->headers; h; h = h->next) {
		const char *colon = strchr(h->data, ':');
		size_t klen = colon ? (size_t)(colon - h->data) : strlen(h->data);

		if (!colon || !colon[1])
			continue;
		if (header_secret(h->data, klen)) {
			const char *v = colon + 1;

			while (*v == ' ')
				v++;
			logf_(c, "    %.*s: %s", (int)klen, h->data,
			      strncasecmp(v, "bearer ", 7) == 0  ? "Bearer <masked>"
			      : strncasecmp(v, "basic ", 6) == 0 ? "Basic <masked>"
								 : "<masked>");
		} else {
			logf_(c, "    %s", h->data);
		}
	}
	if (!c->cfg->disable_compression)
		logf_(c, "    Accept-Encoding: gzip");
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
	r |= add_header(&h, "Accept: application/json");
	r |= add_header(&h, "User-Agent: %s", x->c->user_agent);
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
static int xfer_start(struct xfer *x, struct kerr *err)
{
	struct kube_client *c = x->c;
	const struct kube_config *cfg = c->cfg;
	struct kube_credential cred = {0};
	char *url;
	CURL *e;
	int r = -1;

	if (kube_credential_get(cfg, c->creds, x->force_cred, &cred, err) < 0)
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
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(e, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
	if (!cfg->disable_compression)
		curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "gzip");
	if (c->connect_to)
		curl_easy_setopt(e, CURLOPT_CONNECT_TO, c->connect_to);
	if (cfg->proxy_url && *cfg->proxy_url)
		curl_easy_setopt(e, CURLOPT_PROXY, cfg->proxy_url);
	else if (c->loopback)
		curl_easy_setopt(e, CURLOPT_PROXY, "");
	if (cfg->insecure_skip_tls_verify) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (cfg->ca.len) {
		struct curl_blob b = {cfg->ca.data, cfg->ca.len, CURL_BLOB_COPY};

		curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b);
	}
	{
		const struct kblob *cert = cred.client_cert.len ? &cred.client_cert : &cfg->client_cert;
		const struct kblob *key = cred.client_cert.len ? &cred.client_key : &cfg->client_key;

		if (cert->len && key->len) {
			struct curl_blob cb = {cert->data, cert->len, CURL_BLOB_COPY};
			struct curl_blob kb = {key->data, key->len, CURL_BLOB_COPY};

			curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cb);
			curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
			curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &kb);
			curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
		}
	}
	if (strcmp(x->method, "GET") != 0) {
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, x->method);
		if (x->req_body || strcmp(x->method, "DELETE") != 0) {
			curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->req_len);
			curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->req_body ? x->req_body : "");
		}
	}
	if (x->deadline && !x->no_deadline) {
		long long left = x->deadline - now_ms();

		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(left > 1 ? left : 1));
	}
	if (c->verbosity >= 7) {
		char *shown = x->query ? xasprintf("%s%s?%s", c->display_url, x->path, x->query)
				       : xasprintf("%s%s", c->display_url, x->path);

		log_request(x, shown ? shown : url);
		free(shown);
		if (c->verbosity >= 8 && x->req_body)
			logf_(c, "Request Body: %.*s", (int)(x->req_len > LOG_BODY_MAX ? LOG_BODY_MAX : x->req_len),
			      x->req_body);
	}
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

/* Go's wording for what went wrong on the wire, as kubectl shows it. */
static int transport_error(struct xfer *x, CURLcode rc, struct kerr *err)
{
	struct kube_client *c = x->c;
	long oserr = 0, verify = 0;

	curl_easy_getinfo(x->easy, CURLINFO_OS_ERRNO, &oserr);
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
		if (oserr == ECONNREFUSED || strstr(x->errbuf, "refused")) {
			kerr_set(err, KERR_REFUSED, "connection refused");
			free(err->host);
			err->host = strdup(c->host_port);
			return -1;
		}
		return kerr_set(err, KERR_TRANSPORT, "dial tcp %s: %s", c->host_port,
				oserr ? strerror((int)oserr) : "connect failed");
	case CURLE_COULDNT_RESOLVE_HOST:
		return kerr_set(err, KERR_TRANSPORT, "dial tcp: lookup %s: no such host", c->host_port);
	case CURLE_COULDNT_RESOLVE_PROXY:
		return kerr_set(err, KERR_TRANSPORT, "proxyconnect tcp: lookup failed: no such host");
	case CURLE_OPERATION_TIMEDOUT:
		if (x->code == 0)
			return kerr_set(err, KERR_TRANSPORT,
					"net/http: request canceled (Client.Timeout exceeded while awaiting headers)");
		return kerr_set(err, KERR_TRANSPORT,
				"context deadline exceeded (Client.Timeout or context cancellation while reading body)");
	case CURLE_PEER_FAILED_VERIFICATION:
		curl_easy_getinfo(x->easy, CURLINFO_SSL_VERIFYRESULT, &verify);
		/* OpenSSL's X509_V_ERR_* codes */
		switch (verify) {
		case 2: case 18: case 19: case 20: case 21:
			return kerr_set(err, KERR_TRANSPORT,
					"tls: failed to verify certificate: x509: certificate signed by unknown authority");
		case 9: case 10:
			return kerr_set(err, KERR_TRANSPORT,
					"tls: failed to verify certificate: x509: certificate has expired or is not yet valid");
		case 62:
			break;
		default:
			if (!strstr(x->errbuf, "subject name") && !strstr(x->errbuf, "does not match"))
				return kerr_set(err, KERR_TRANSPORT,
						"tls: failed to verify certificate: x509: certificate verify failed (%ld)",
						verify);
		}
		return kerr_set(err, KERR_TRANSPORT,
				"tls: failed to verify certificate: x509: certificate is not valid for %s",
				c->cfg->tls_server_name && *c->cfg->tls_server_name ? c->cfg->tls_server_name
										     : c->host_port);
	case CURLE_SSL_CACERT_BADFILE:
		return kerr_set(err, KERR_TRANSPORT, "x509: the certificate authority data could not be read");
	case CURLE_SSL_CERTPROBLEM:
		return kerr_set(err, KERR_TRANSPORT, "tls: the client certificate could not be used");
	case CURLE_SSL_CONNECT_ERROR:
		if (strstr(x->errbuf, "certificate required") || strstr(x->errbuf, "alert bad certificate") ||
		    strstr(x->errbuf, "alert unknown ca"))
			return kerr_set(err, KERR_TRANSPORT, "remote error: tls: bad certificate");
		return kerr_set(err, KERR_TRANSPORT, "tls: handshake failure");
	case CURLE_GOT_NOTHING:
		return kerr_set(err, KERR_TRANSPORT, "EOF");
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
		if (oserr == ECONNRESET || strstr(x->errbuf, "reset"))
			return kerr_set(err, KERR_TRANSPORT, "read tcp %s: connection reset by peer", c->host_port);
		return kerr_set(err, KERR_TRANSPORT, "unexpected EOF");
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return kerr_set(err, KERR_TRANSPORT, "unexpected EOF");
	case CURLE_BAD_CONTENT_ENCODING:
		return kerr_set(err, KERR_DECODE, "the server sent a body that could not be decompressed");
	default:
		/* curl's own words; they never hold a header value or key material */
		return kerr_set(err, KERR_TRANSPORT, "%s", x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
	}
}

static bool transport_retryable(CURLcode rc)
{
	switch (rc) {
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

static void log_response(struct xfer *x, const char *url_shown, CURLcode rc)
{
	struct kube_client *c = x->c;
	long long ms = now_ms() - x->started;

	if (rc == CURLE_OK && x->code)
		logf_(c, "%s %s %ld %s in %lld milliseconds", x->method, url_shown, x->code, status_text(x->code), ms);
	else
		logf_(c, "%s %s  in %lld milliseconds", x->method, url_shown, ms);
	if (c->verbosity >= 8 && x->log_hdrs.len) {
		char *save = NULL;

		logf_(c, "Response Headers:");
		for (char *l = strtok_r(x->log_hdrs.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			logf_(c, "    %s", l);
	}
	if (c->verbosity >= 9) {
		const struct buf *b = x->log_body.len ? &x->log_body : &x->body;
		size_t n = b->len > LOG_BODY_MAX ? LOG_BODY_MAX : b->len;

		if (n)
			logf_(c, "Response Body: %.*s%s", (int)n, b->data,
			      b->len > LOG_BODY_MAX || x->log_body.truncated ? " [truncated]" : "");
	}
	fflush(c->log);
}

/* A transfer finished (or failed) on curl's side: decide between retrying it
 * and reporting to its owner.  The owner's done callback frees nothing; x is
 * freed here afterwards unless the owner took it over (retry by owner). */
static void xfer_finished(struct xfer *x, CURLcode rc)
{
	struct kube_client *c = x->c;
	struct kerr err = KERR_INIT;
	long wait = -1;

	if (x->orphan) {
		x->orphan = false;
		x->state = XF_RUNNING;
		xfer_free(x);
		return;
	}

	if (c->verbosity >= 6) {
		char *shown = x->query ? xasprintf("%s%s?%s", c->display_url, x->path, x->query)
				       : xasprintf("%s%s", c->display_url, x->path);

		log_response(x, shown ? shown : x->path, rc);
		free(shown);
	}
	if (x->sink_failed) {
		err = x->sink_err;
		memset(&x->sink_err, 0, sizeof(x->sink_err));
		if (err.kind == KERR_NONE)
			kerr_set(&err, KERR_OTHER, "the response could not be processed");
		goto report;
	}
	if (rc != CURLE_OK) {
		bool expired = x->deadline && now_ms() >= x->deadline && !x->no_deadline;

		if (x->idempotent && !expired && transport_retryable(rc) && x->retries < MAX_RETRIES) {
			if (!x->delivered) {
				long backoff = 50L << (x->retries < 5 ? x->retries : 5);

				x->retries++;
				xfer_detach(x);
				xfer_queue(x, now_ms() + (backoff > 1000 ? 1000 : backoff));
				return;
			}
			x->midbody_failure = true;
		}
		transport_error(x, rc, &err);
		goto report;
	}
	if (x->code == 401 && !x->auth_retried && (c->cfg->exec || c->cfg->token_file)) {
		/* an exec plugin's token may have been revoked: ask it again, once */
		x->auth_retried = true;
		x->force_cred = true;
		xfer_detach(x);
		xfer_queue(x, 0);
		return;
	}
	wait = kube_retry_after(x->code, x->retry_after);
	if (wait >= 0 && x->retries < MAX_RETRIES) {
		long long at = now_ms() + (wait > RETRY_AFTER_CAP_S ? RETRY_AFTER_CAP_S : wait) * 1000LL;

		if (!x->deadline || at < x->deadline) {
			x->retries++;
			xfer_detach(x);
			xfer_queue(x, at);
			return;
		}
	}
	if (x->code < 200 || x->code >= 300) {
		kube_status_error(x->code, x->resp_type, x->method, x->path, x->body.data, x->body.len, &err);
		goto report;
	}
report:
	xfer_detach(x);
	c->activity++;
	x->finished = true;
	x->done(x->ud, x, err.kind == KERR_NONE ? NULL : &err);
	kerr_release(&err);
}

/* One round: hand queued transfers to curl, let curl work, dispatch what
 * finished.  Returns -1 only when curl itself fails. */
static int client_perform(struct kube_client *c, struct kerr *err)
{
	CURLMsg *m;
	CURLMcode mc;
	int running, left;
	long long now = now_ms();

	for (struct xfer *x = c->xfers, *next; x; x = next) {
		next = x->next;
		if (x->state == XF_QUEUED && x->wake_at <= now && x->done && !x->finished) {
			struct kerr e = KERR_INIT;

			if (xfer_start(x, &e) < 0) {
				/* cannot start: report like any failure; the list may change under us */
				c->activity++;
				x->finished = true;
				x->done(x->ud, x, &e);
				kerr_release(&e);
				next = c->xfers; /* restart the walk: done may have freed others */
				now = now_ms();
			}
		}
	}
	c->in_curl = true;
	mc = curl_multi_perform(c->multi, &running);
	c->in_curl = false;
	if (mc != CURLM_OK)
		return kerr_set(err, KERR_OTHER, "curl_multi_perform failed");
	while ((m = curl_multi_info_read(c->multi, &left))) {
		struct xfer *x = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (x)
			xfer_finished(x, m->data.result);
	}
	return 0;
}

/* How long the loop may sleep before a queued transfer is due. */
static long next_wake(struct kube_client *c, long timeout_ms)
{
	long long now = now_ms();

	for (struct xfer *x = c->xfers; x; x = x->next) {
		if (x->state == XF_QUEUED && x->done && !x->finished) {
			long long d = x->wake_at - now;

			if (d < 0)
				d = 0;
			if (timeout_ms < 0 || d < timeout_ms)
				timeout_ms = (long)d;
		}
	}
	return timeout_ms;
}

static int client_wait(struct kube_client *c, int fd, long timeout_ms, bool *fd_ready, struct kerr *err)
{
	struct curl_waitfd wfd = {.fd = fd, .events = CURL_WAIT_POLLIN};
	int numfds = 0;
	long t = next_wake(c, timeout_ms);

	if (t < 0 || t > 1000)
		t = 1000;
	if (curl_multi_poll(c->multi, fd >= 0 ? &wfd : NULL, fd >= 0 ? 1 : 0, (int)t, &numfds) != CURLM_OK)
		return kerr_set(err, KERR_OTHER, "curl_multi_poll failed");
	if (fd >= 0 && (wfd.revents & (CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI)))
		*fd_ready = true;
	return 0;
}

int kube_client_poll(struct kube_client *c, int fd, int timeout_ms, struct kerr *err)
{
	long long end = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	unsigned long activity = c->activity;
	bool ready = false;

	for (;;) {
		long left;

		if (client_perform(c, err) < 0)
			return -1;
		left = (long)(end - now_ms());
		if (ready || c->activity != activity || left <= 0)
			break;
		if (client_wait(c, fd, left, &ready, err) < 0)
			return -1;
	}
	return ready ? 1 : 0;
}

/* Drive the client until *flag becomes true. */
static int client_run_until(struct kube_client *c, const bool *flag, struct kerr *err)
{
	bool ready = false;

	for (;;) {
		if (client_perform(c, err) < 0)
			return -1;
		if (*flag)
			return 0;
		if (client_wait(c, -1, 1000, &ready, err) < 0)
			return -1;
	}
}

/* --- single requests ------------------------------------------------------ */

struct sync_req {
	bool done;
	struct kerr err;
	struct buf body;
	long code;
	char *resp_type;
};

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

static int request_json(struct kube_client *c, const char *method, const char *path, const char *query,
			const char *content_type, const json_t *body, json_t **ret, struct kerr *err)
{
	struct sync_req s = {0};
	struct xfer *x;
	json_t *j;
	json_error_t jerr;
	int r = -1;

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
		goto out;
	}
	xfer_free(x);
	if (s.err.kind != KERR_NONE) {
		kerr_move(err, &s.err);
		goto out;
	}
	if (s.body.truncated) {
		kerr_set(err, KERR_DECODE, "the response to %s %s is too large", method, path);
		goto out;
	}
	if (s.body.len == 0) {
		if (ret)
			*ret = json_object();
		r = 0;
		goto out;
	}
	j = json_loadb(s.body.data, s.body.len, 0, &jerr);
	if (!j) {
		kerr_set(err, KERR_DECODE, "the server returned a response that is not JSON (%s %s): %.80s", method,
			 path, jerr.text);
		goto out;
	}
	if (status_from_json(j, s.code, err) == 0) {
		json_decref(j);
		goto out;
	}
	if (ret)
		*ret = j;
	else
		json_decref(j);
	r = 0;
out:
	kerr_release(&s.err);
	buf_release(&s.body);
	free(s.resp_type);
	return r;
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
	char *q;
	int r;

	if (!c)
		return kerr_set(err, KERR_OTHER, "no client");
	q = query_for_write(c, w);
	if (!q)
		return kerr_set(err, KERR_OTHER, "out of memory");
	r = request_json(c, "DELETE", path, q, delete_options ? "application/json" : NULL, delete_options, ret,
			 err);
	free(q);
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
	struct kerr err;
};

struct list_run {
	struct kube_client *c;
	struct kube_list *l;
	struct page *head, *next;
	int restarts_410;
	int restarts_midbody;
	bool unpaginated;
	bool finished;
	struct kerr err;
	void (*on_done)(void *ud, const struct kerr *err);
	void *ud;
};

static void list_fail(struct list_run *r, const struct kerr *err);
static int page_start(struct list_run *r, const char *cont, struct kerr *err);

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
		p->has_next = true;
		if (!r->next && page_start(r, cont, &p->err) < 0)
			p->has_next = false; /* reported when the page completes */
	}
	if (l->sink.list_meta)
		l->sink.list_meta(l->sink.ud, rv, cont && *cont ? cont : NULL);
}

static int page_data(void *ud, const char *buf, size_t n, struct kerr *err)
{
	struct page *p = ud;

	if (!p->is_head) {
		if (buf_add(&p->pending, buf, n, SIZE_MAX) < 0)
			return kerr_set(err, KERR_OTHER, "out of memory");
		return 0;
	}
	return list_decoder_feed(p->dec, buf, n, err);
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
	if (l->sink.list_meta)
		l->sink.list_meta(l->sink.ud, NULL, NULL);
	if (page_start(r, NULL, &e) < 0)
		list_fail(r, &e);
	kerr_release(&e);
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
			if (list_decoder_feed(r->head->dec, pend.data, pend.len, &e) < 0) {
				buf_release(&pend);
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
	const char *kv[10];
	size_t n = 0;

	snprintf(limit, sizeof(limit), "%u", r->l->limit ? r->l->limit : 500);
	kv[n++] = "labelSelector";
	kv[n++] = r->l->label_selector && *r->l->label_selector ? r->l->label_selector : NULL;
	kv[n++] = "fieldSelector";
	kv[n++] = r->l->field_selector && *r->l->field_selector ? r->l->field_selector : NULL;
	kv[n++] = "limit";
	kv[n++] = r->unpaginated ? NULL : limit;
	kv[n++] = "continue";
	kv[n++] = cont;
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

static void page_done(void *ud, struct xfer *x, const struct kerr *err)
{
	struct page *p = ud;
	struct list_run *r = p->run;
	bool midbody = x->midbody_failure;
	bool continued = p->continued;

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
	return r;
}

static void list_run_free(struct list_run *r)
{
	if (!r)
		return;
	page_free(r->head);
	page_free(r->next);
	kerr_release(&r->err);
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
};

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
	w->c->activity++;
	return w->on_event ? w->on_event(w->ud, ev, err) : 0;
}

static int watch_data(void *ud, const char *buf, size_t n, struct kerr *err)
{
	struct kube_watch *w = ud;
	int r;

	w->in_feed = true;
	r = watch_decoder_feed(w->dec, buf, n, err);
	w->in_feed = false;
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
