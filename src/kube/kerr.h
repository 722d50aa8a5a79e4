/* Errors as values.
 *
 * Library code never prints and never exits: it fills a struct kerr and
 * returns -1.  Only main() turns an error into the one line kubectl would
 * print, and picks the exit code.
 *
 * Uses nothing; everything else uses it.
 */
#ifndef KERR_H
#define KERR_H

#include <stdbool.h>
#include <stdio.h>

enum kerr_kind {
	KERR_NONE = 0,
	KERR_USAGE,	/* bad command line: kubectl's hint follows the line */
	KERR_CONFIG,	/* kubeconfig or flag values that cannot be used */
	KERR_REFUSED,	/* TCP connection refused: kubectl's special wording */
	KERR_TRANSPORT, /* any other failure to reach the server (DNS, TLS, reset, timeout) */
	KERR_STATUS,	/* the server answered with a metav1.Status failure */
	KERR_DECODE,	/* the server answered something we cannot read */
	KERR_CREDENTIALS, /* exec plugin, token file: "getting credentials: ..." */
	KERR_OTHER,
	KERR_BUDGET,	/* a list would not end or broke a budget: reason says which
			 * (KERR_REASON_*), message names the list; the caller words it */
};

struct kerr {
	enum kerr_kind kind;
	long code;	/* HTTP status for KERR_STATUS / KERR_DECODE, else 0 */
	char *reason;	/* Status.reason ("Forbidden", "NotFound", ...), or for KERR_CONFIG
			 * KERR_REASON_INVALID_CONFIGURATION, or NULL */
	char *message;	/* human text, one line, no trailing newline */
	char *host;	/* "host:port" for KERR_REFUSED */
	/* The request was written whole and no answer came (the connection
	 * closed or reset, a timeout, a stream reset): a write may or may not
	 * have been done.  False when it never fully left, or was answered. */
	bool unanswered;
};

#define KERR_INIT {0}

/* A kubeconfig problem kubectl prints as "Error in configuration: ..."
 * rather than "error: ..." (an unknown context). */
#define KERR_REASON_INVALID_CONFIGURATION "InvalidConfiguration"

/* KERR_BUDGET reasons.  code carries the figure that was exceeded or
 * repeated (pages, objects, bytes). */
#define KERR_REASON_REPEATED_CONTINUE "RepeatedContinue" /* a continue token came back: code = page */
#define KERR_REASON_NO_NEW_OBJECTS "NoNewObjects"	   /* a page with a continue token brought nothing new */
#define KERR_REASON_TOO_MANY_OBJECTS "TooManyObjects"	   /* code = the object budget */
#define KERR_REASON_TOO_MANY_BYTES "TooManyBytes"	   /* code = the byte budget */
#define KERR_REASON_OBJECT_TOO_LARGE "ObjectTooLarge"	   /* code = the per-object budget */

/* Set an error (printf-style message).  Replaces any earlier error.  Always returns -1
 * so callers can write `return kerr_set(err, KERR_CONFIG, "...")`. */
int kerr_set(struct kerr *err, enum kerr_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Same, for a server Status: reason may be NULL. */
int kerr_set_status(struct kerr *err, long code, const char *reason, const char *message);
/* Prefix the existing message: "context: old message". */
void kerr_prefix(struct kerr *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kerr_release(struct kerr *err);
/* dst (released first) becomes a copy of src with strings of its own; a
 * string that cannot be copied for want of memory is left out. */
void kerr_copy(struct kerr *dst, const struct kerr *src);

/* The single line kubectl prints for this error, newline-terminated, e.g.
 *   Error from server (Forbidden): nodes is forbidden: ...
 *   error: You must be logged in to the server (Unauthorized)
 *   The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?
 *   Unable to connect to the server: ...
 *   error: ...
 */
void kerr_print(FILE *f, const struct kerr *err);
/* 1 for every error, usage errors too (as kubectl), 0 for KERR_NONE. */
int kerr_exit_code(const struct kerr *err);

#endif
