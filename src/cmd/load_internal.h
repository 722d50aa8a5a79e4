/* What loading a cluster (load.c) shares with the part of it that reads
 * the DRA lists first (load_dra.c): the attempts at the lists, the lists
 * planned, one cluster's load under way.  Not for the commands: load.h is
 * theirs.
 */
#ifndef LOAD_INTERNAL_H
#define LOAD_INTERNAL_H

#include "load.h"

/* One attempt at the lists, folded into one model (or, for the DRA lists,
 * into the cluster's inventory). */
struct attempt {
	struct cluster_load *l;
	struct model *m;
	bool *seen;	/* per named node: listed */
	bool multi;	/* several lists feed the model */
	bool restarted; /* a list started over: run everything again */
	const bool *hold; /* the node and pod lists wait while it holds (the DRA inventory is read) */
};

struct list_ud {
	struct attempt *a;
	enum obj_kind kind;
};

/* The lists of one attempt and the selectors they point to. */
struct plan {
	struct kube_list *lists;
	struct list_ud *uds;
	char **selectors;
	size_t n, nsel;
};

/* One cluster's load under way: its attempt, the model it fills, its
 * lists, and the attempt at its DRA lists, which its node and pod lists
 * wait for (held) once asked for beside them. */
struct loading {
	struct attempt a;
	struct model m;
	struct plan p;
	bool active; /* has lists to run in the next round */
	struct attempt da;
	struct plan dp;
	bool held;
};

/* dst (released first) takes src's error; src is left empty. */
void err_take(struct kerr *dst, struct kerr *src);
/* A list's metadata: (NULL, NULL) when it starts over after 410 Expired. */
void on_meta(void *ud, const char *resource_version, const char *continue_token);
void plan_release(struct plan *p);
/* s (malloc'd) kept with the plan, to be freed with it; s itself. */
char *plan_keep(struct plan *p, char *s);

/* --- load_dra.c: Dynamic Resource Allocation, which the nodes and pods wait for --- */

/* Whether the cluster's nodes and pods may read DRA objects: unless its
 * load is for another scheme. */
bool dra_asked(const struct cluster_load *l);
/* Which version of the group each active cluster serves (l->dra_version),
 * asked of all at once; a cluster with none no longer holds its node and
 * pod lists, one whose answer failed is not loaded further. */
void dra_discover(struct loading *gs, size_t n);
/* The DRA lists of every cluster that serves the group, run to their end
 * (again after a restart, at most twice), each inventory finished. */
int dra_rounds(struct loading *gs, size_t n, struct kerr *err);
/* "resource.k8s.io/VERSION" of the version read, or NULL. */
const char *dra_group_version(const char *version);

#endif
