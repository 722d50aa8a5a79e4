#include "kerr.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

/* Messages are printed on one line: fold any line break an outside source
 * put in them. */
static void one_line(char *s)
{
	for (; s && *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

void kerr_release(struct kerr *err)
{
	if (!err)
		return;
	free(err->reason);
	free(err->message);
	free(err->host);
	memset(err, 0, sizeof(*err));
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void kerr_copy(struct kerr *dst, const struct kerr *src)
{
	struct kerr c = { src->kind, src->code, dup_or_null(src->reason), dup_or_null(src->message),
			  dup_or_null(src->host), src->unanswered };

	kerr_release(dst);
	*dst = c;
}

int kerr_set(struct kerr *err, enum kerr_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	kerr_release(err);
	err->kind = kind;
	va_start(ap, fmt);
	err->message = vformat(fmt, ap);
	va_end(ap);
	one_line(err->message);
	return -1;
}

int kerr_set_status(struct kerr *err, long code, const char *reason, const char *message)
{
	if (!err)
		return -1;
	kerr_release(err);
	err->kind = KERR_STATUS;
	err->code = code;
	err->reason = reason && *reason ? strdup(reason) : NULL;
	err->message = strdup(message ? message : "");
	one_line(err->message);
	return -1;
}

void kerr_prefix(struct kerr *err, const char *fmt, ...)
{
	va_list ap;
	char *prefix, *joined = NULL;

	if (!err)
		return;
	va_start(ap, fmt);
	prefix = vformat(fmt, ap);
	va_end(ap);
	if (!prefix)
		return;
	if (asprintf(&joined, "%s: %s", prefix, err->message ? err->message : "") >= 0) {
		free(err->message);
		err->message = joined;
	}
	free(prefix);
}

/* client-go's apierrors turn a reason into the words kubectl prints in
 * "Error from server (...)"; the Status reason is already that word except
 * when the server left it empty. */
static const char *reason_for_code(long code)
{
	switch (code) {
	case 400: return "BadRequest";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "NotFound";
	case 405: return "MethodNotAllowed";
	case 409: return "Conflict";
	case 410: return "Expired";
	case 415: return "UnsupportedMediaType";
	case 422: return "Invalid";
	case 429: return "TooManyRequests";
	case 500: return "InternalError";
	case 503: return "ServiceUnavailable";
	case 504: return "Timeout";
	default: return "Unknown";
	}
}

void kerr_print(FILE *f, const struct kerr *err)
{
	const char *msg;

	if (!err || err->kind == KERR_NONE)
		return;
	msg = err->message ? err->message : "unknown error";
	switch (err->kind) {
	case KERR_STATUS: {
		const char *reason = err->reason ? err->reason : reason_for_code(err->code);

		if (strcmp(reason, "Unauthorized") == 0)
			fprintf(f, "error: You must be logged in to the server (%s)\n", msg);
		else
			fprintf(f, "Error from server (%s): %s\n", reason, msg);
		break;
	}
	case KERR_REFUSED:
		fprintf(f, "The connection to the server %s was refused - did you specify the right host or port?\n",
			err->host ? err->host : "localhost:8080");
		break;
	case KERR_TRANSPORT:
		fprintf(f, "Unable to connect to the server: %s\n", msg);
		break;
	case KERR_CREDENTIALS:
		/* kubectl reports a failed credential plugin as a connection failure */
		fprintf(f, "Unable to connect to the server: %s%s\n",
			strncmp(msg, "getting credentials: ", 21) == 0 ? "" : "getting credentials: ", msg);
		break;
	case KERR_CONFIG:
		if (err->reason && strcmp(err->reason, KERR_REASON_INVALID_CONFIGURATION) == 0)
			fprintf(f, "Error in configuration: %s\n", msg);
		else
			fprintf(f, "error: %s\n", msg);
		break;
	default:
		fprintf(f, "error: %s\n", msg);
		break;
	}
}

int kerr_exit_code(const struct kerr *err)
{
	if (!err || err->kind == KERR_NONE)
		return 0;
	return 1;
}
