/* The live view's feeds: nodes or pods listed once, then followed with a
 * watch from the list's resourceVersion, every object handed to the live
 * model as it arrives and freed.  A 410 lists again (the live model
 * replaces in place), a refused or failing watch gives way to periodic
 * lists.  Nothing here waits: kube_client_poll() drives the transfers and
 * top_feed_step() moves a feed on after it ran.
 */
#ifndef TOP_FEED_H
#define TOP_FEED_H

#include <stdbool.h>

#include "kube.h"
#include "model_live.h"

struct top_feed {
	/* set by the caller before top_feed_start */
	struct kube_client *client;
	struct model_live *live;
	enum obj_kind kind;
	const char *path, *label_selector, *field_selector;
	const struct decode_filter *filter;
	long refresh_ms; /* lists again this long after a failure, or when polling */
	bool lists_must_succeed; /* a list that fails after the first is fatal too */

	struct kube_list list;
	struct kube_async_list *alist;
	bool list_finished;
	struct kerr list_err;

	struct kube_watch *watch;
	long long watch_started;
	bool watch_ended, watch_events, expired;
	struct kerr watch_err;
	char *rv;
	int watch_failures;
	bool polling; /* the watch was refused or keeps failing: list every interval */

	long long next_list; /* when to list again; 0 = not scheduled */
	bool loaded;	     /* one list has completed */
	unsigned long received; /* objects and events taken, ever */
	long long ok_since;  /* data known good at this time */
	char *error;	     /* last error, in the visible form, for the status line */
	bool broken;	     /* the live model ran out of memory: to be built again */
	struct kerr fatal;   /* why top_feed_step failed */
};

/* Milliseconds of the monotonic clock. */
long long top_now_ms(void);

/* The first list.  -1 when it cannot be started. */
int top_feed_start(struct top_feed *f, struct kerr *err);
/* Move the feed on after the client ran: lists finished, watches ended,
 * lists due.  -1 for an error that retrying will not mend while no list
 * has completed yet (f->fatal). */
int top_feed_step(struct top_feed *f, long long now);
/* Everything stopped, and listed again from nothing (the live model was
 * built again). */
void top_feed_restart(struct top_feed *f, long long now);
/* Listed again now into the same model (which reads again what it was
 * told to forget), then watched anew; what was loaded stays shown. */
void top_feed_relist(struct top_feed *f, long long now);
void top_feed_release(struct top_feed *f);

#endif
