/* What a write came to, said exactly: done, failed, or (when the request
 * left and its answer never came) found out by reading the object again.
 * One reading per kind of object: a node's labels, a pod that was deleted
 * or evicted.  The counts of a run's closing line, and the one line for a
 * write whose outcome stays unknown.
 *
 * Uses the client (kube.h), choosing nodes (nodesel.h) and the node-pool
 * rules (nodepool.h).
 */
#ifndef WRITE_CHECK_H
#define WRITE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kube.h"
#include "nodepool.h"

enum write_result {
	WRITE_DONE,	     /* answered 2xx */
	WRITE_CONFIRMED,     /* its answer was lost; read again, it is done */
	WRITE_NOT_DONE,	     /* its answer was lost; read again, the object is as before */
	WRITE_CHANGED,	     /* its answer was lost; read again, the object is neither as
			      * before nor as planned: someone else changed it */
	WRITE_FAILED,	     /* refused by the server, or never sent */
	WRITE_UNKNOWN,	     /* its answer was lost and nothing read since tells */
	WRITE_NOT_ATTEMPTED, /* not sent: an earlier write failed or is unknown */
};

/* A write's result from what the client returned: WRITE_UNKNOWN when the
 * request was sent and no answer came, for the caller to read again. */
enum write_result write_result_of(int rc, const struct kerr *err);

/* Done, whether at once or once read again. */
static inline bool write_result_done(enum write_result r)
{
	return r == WRITE_DONE || r == WRITE_CONFIRMED;
}

/* Read a node again after a lost answer to a change of its labels (from
 * each change's before to its after; NULL is an absent label): all as
 * planned is WRITE_CONFIRMED, all as before WRITE_NOT_DONE, anything else
 * WRITE_CHANGED.  -1 with err when the node cannot be read. */
int write_check_labels(struct kube_client *c, const char *node, const struct np_change *changes, size_t n,
		       enum write_result *ret, struct kerr *err);

/* Read a pod again after a lost answer to its deletion or eviction (the
 * pod ns/name of that uid): gone, replaced by another of the same name or
 * with a deletionTimestamp is WRITE_CONFIRMED; the same pod without one
 * WRITE_NOT_DONE.  -1 with err when it cannot be read. */
int write_check_pod_gone(struct kube_client *c, const char *ns, const char *name, const char *uid,
			 enum write_result *ret, struct kerr *err);

/* The counts of a run's closing line. */
struct write_tally {
	size_t done, failed, unknown, not_attempted;
};

/* NOT_DONE and CHANGED count as failed. */
void write_tally_add(struct write_tally *t, enum write_result r);
/* "Of 4 nodes: 2 done, 1 failed, 1 unknown, 0 not attempted", what being
 * the objects' noun in the plural. */
void write_tally_print(FILE *f, const struct write_tally *t, const char *what);

/* The error's one line as main prints it, worded (cli_word_error) but not
 * yet in its visible form: the documents carry it exactly.  malloc'd, NULL
 * when out of memory. */
char *write_error_line(const struct kerr *err);

/* What is said of a write whose answer was lost, without the object's
 * name: why (lost, the transport error) and what reading again found
 * (result; read, the error of the read, for WRITE_UNKNOWN), and for
 * WRITE_UNKNOWN the command check that tells.  what names the object's
 * state ("labels", "pod").  malloc'd, NULL when out of memory. */
char *write_lost_message(enum write_result result, const struct kerr *lost, const struct kerr *read,
			 const char *what, const char *check);

#endif
