/* `inspect -w`: the summary printed once, then again whenever what it
 * shows changes, until a signal.  The nodes and pods are followed with the
 * live view's feeds (top_feed.c) into a live model (model_live.h); the
 * model is settled at most once a refresh interval while objects change,
 * and the table printed where it reads otherwise than the last one.
 *
 * Uses load.h (the connection), nodesel.h, the model and top_feed.h.
 */
#ifndef INSPECT_WATCH_H
#define INSPECT_WATCH_H

#include <stdio.h>

#include "cli.h"
#include "load.h"
#include "model.h"
#include "nodesel.h"

/* Prints one table of m to out. */
typedef int (*inspect_watch_print)(FILE *out, const struct model *m, void *ud, struct kerr *err);

struct inspect_watch_spec {
	struct cluster *cluster;	/* connected */
	const struct nodesel *sel;
	const struct model_options *mo; /* how to fold */
	long refresh_ms;		/* at most one table this often */
	bool separate;			/* a blank line between tables */
	inspect_watch_print print;
	void *ud;
};

/* Until SIGINT or SIGTERM (0), or an error retrying will not mend (-1):
 * a first list refused, or a list again that fails. */
int inspect_watch_run(struct cli_ctx *ctx, const struct inspect_watch_spec *spec, struct kerr *err);

#endif
