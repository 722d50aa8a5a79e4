/* The rules of the protocol that need no connection: query strings and path
 * escaping as Go writes them, the User-Agent, Retry-After, Warning headers,
 * and failed responses turned into kubectl's error wording.
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

char *kube_path(const char *group_version, const char *ns, const char *resource, const char *name)
{
	char *ens = ns ? kube_escape(ns) : NULL, *ename = name ? kube_escape(name) : NULL, *path = NULL;
	bool core = !strchr(group_version, '/');

	if ((!ns || ens) && (!name || ename) &&
	    asprintf(&path, "/%s/%s%s%s/%s%s%s", core ? "api" : "apis", group_version, ns ? "/namespaces/" : "",
		     ns ? ens : "", resource, name ? "/" : "", name ? ename : "") < 0)
		path = NULL;
	free(ens);
	free(ename);
	return path;
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

char *kube_user_agent(const char *program, const char *version, const char *commit)
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
	return xasprintf("%s/%s (%s/%s) kubernetes/%s", program, version, os, arch, commit);
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

const char *http_skip_ws(const char *p, const char *end)
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

		p = http_skip_ws(p, end);
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
		p = http_skip_ws(p, end);
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		p = http_skip_ws(p, end);
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
		p = http_skip_ws(p, end);
		if (p < end && *p == '"') {
			p++;
			while (p < end && *p != '"')
				p++;
			if (p < end)
				p++;
		}
		p = http_skip_ws(p, end);
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
int kube_status_from_json(json_t *j, long code, struct kerr *err)
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

	if (body && len > 0 && decode_is_protobuf(body, len)) {
		char *reason, *message;
		long scode;

		if (decode_status_pb(body, len, &scode, &reason, &message) == 0) {
			kerr_set_status(err, code ? code : scode, reason, message ? message : "");
			free(reason);
			free(message);
			return -1;
		}
	}
	if (body && len > 0 && !is_text_type(content_type))
		j = json_loadb(body, len, JSON_DECODE_ANY, NULL);
	if (j && kube_status_from_json(j, code, err) == 0) {
		json_decref(j);
		return -1;
	}
	json_decref(j);
	return generic_error(code, content_type, verb, path, body, len, err);
}
