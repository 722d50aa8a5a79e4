/* The live view's Dynamic Resource Allocation objects: ResourceSlices,
 * ResourceClaims and DeviceClasses listed together (from the watch cache,
 * in the version discovery found) when the view starts, and again every
 * refresh interval (at most once a second).  A relist, not watches: the
 * inventory resolves pools and indexes over all its objects at once, so
 * each relist builds a new one, and comparing resourceVersions with the
 * one held says which nodes the change touches (scheme_dra_changes.h); a
 * relist that changes nothing costs the model nothing.  Each list is
 * bounded by the client's budgets.
 *
 * The inventory held is reached through `objects`, which the live model's
 * options point to: it is replaced in place.  Nothing here waits:
 * kube_client_poll() drives the lists and top_dra_step() moves on.
 */
#ifndef TOP_DRA_H
#define TOP_DRA_H

#include <stdbool.h>

#include "kube.h"
#include "scheme_dra.h"
#include "scheme_dra_changes.h"
#include "warnings.h"

struct top_dra {
	/* set by the caller before top_dra_start */
	struct kube_client *client;
	const char *version; /* "v1", "v1beta2" or "v1beta1" */
	long refresh_ms;
	const char *const *gpu_drivers; /* given to each inventory (model_options.dra_drivers) */

	struct scheme_objects objects; /* .dra: the inventory held, or NULL before the first */
	struct warnings warnings;      /* what finishing it said */
	bool loaded;		       /* one relist has completed */
	bool tried;		       /* one relist has ended, well or not */
	bool off;		       /* forbidden: shown without, not listed again */
	/* set by top_dra_step when a relist changed something: the nodes it
	 * touched; the caller takes them (top_dra_changes_taken) */
	bool changed;
	struct dra_changes changes;
	long long ok_since;
	char *error; /* the last relist's error, in the visible form */

	char *paths[3];
	struct kube_list lists[3];
	struct kube_async_list *alists[3];
	bool done[3];
	struct kerr errs[3];
	struct dra_inventory *next; /* being filled */
	long long next_list;	    /* when to relist; 0 = under way */
};

/* The first relist.  -1 when it cannot be started. */
int top_dra_start(struct top_dra *d, struct kerr *err);
/* Move on after the client ran: a relist finished (held, compared), or
 * due.  -1 when out of memory. */
int top_dra_step(struct top_dra *d, long long now, struct kerr *err);
void top_dra_changes_taken(struct top_dra *d);
void top_dra_release(struct top_dra *d);

#endif
