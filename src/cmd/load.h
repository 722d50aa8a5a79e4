/* Loading a cluster for a command: connect as kubectl would (kubeconfig,
 * credentials, the global flags), then list the chosen nodes and their pods
 * concurrently into a finished model.
 *
 * A struct cluster_load describes one cluster's load and holds what came of
 * it; connecting and listing are separate steps, so that a command can start
 * work of its own on the connection in between (the usage queries, reading
 * a pod), and so that the loads of several clusters can later share one
 * event loop.
 *
 * Uses cli.h (the global flags), nodesel.h, the model and the client.
 */
#ifndef LOAD_H
#define LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "kube.h"
#include "model.h"
#include "nodesel.h"
#include "scheme_dra.h"

/* The pods that may hold GPUs, as a field selector: those not ended. */
#define CLUSTER_ACTIVE_PODS "status.phase!=Succeeded,status.phase!=Failed"

/* A connection to one cluster. */
struct cluster {
	struct kube_config cfg;
	struct kube_client *client; /* NULL until connected */
};

/* The kubeconfig resolved with the global flags, and a client for it.
 * Either way *c is to be released (zeroed first). */
int cluster_connect(struct cli_ctx *ctx, struct cluster *c, struct kerr *err);
/* The line asks for several clusters (--context a,b or --all-contexts):
 * cluster_connect then refuses, and a command that takes a fleet loads
 * it with fleet_load. */
bool cluster_fleet_asked(const struct cli_ctx *ctx);
void cluster_release(struct cluster *c);

/* The versions of resource.k8s.io read, newest first, NULL-terminated. */
extern const char *const dra_versions[];

/* Each node sel names exists (read one by one, for a command that lists
 * nothing yet): else the server's NotFound. */
int cluster_find_nodes(struct cluster *c, const struct nodesel *sel, struct kerr *err);

/* One cluster's load. */
struct cluster_load {
	/* what to load */
	struct cluster cluster;
	const struct nodesel *sel; /* the names and the label selector; NULL = every node */
	struct model_options mo;   /* how to fold; its node names are sel's */
	bool from_cache;	   /* a view: the API server's watch cache will do */
	/* named nodes that do not exist are listed in missing_names rather
	 * than an error, as kubectl shows what exists and an error for each
	 * name that does not */
	bool partial;
	bool budgets;		   /* also list the PodDisruptionBudgets (policy/v1), beside the others */

	/* what came of it */
	struct model model; /* finished, when have_model */
	bool have_model;
	size_t nodes_seen;   /* nodes the server listed, shared or not */
	const char *missing; /* the named node that does not exist, or NULL */
	struct kerr err;     /* in a fleet: why this cluster gave no model */
	/* Dynamic Resource Allocation: the resource.k8s.io version the server
	 * serves (NULL: none, or not asked), its objects, which the model's
	 * options point to (mo.objects), and what reading them found */
	const char *dra_version;
	struct dra_inventory dra;
	struct scheme_objects objects;
	struct warnings dra_warnings;
	const char **missing_names; /* with partial: each one, in the order named (sel's strings) */
	size_t nmissing;
	struct k8s_pdb **pdbs; /* with budgets: every budget of the cluster */
	size_t npdbs, pdbs_cap;
};

/* List the nodes sel chose (those named, those its label selector matches,
 * or all) and their pods concurrently into l->model, and finish it.  A
 * named node that does not exist is a NotFound error (l->missing). */
int cluster_load_model(struct cluster_load *l, struct kerr *err);
/* The same for n clusters on one loop, all at once: each load's outcome in
 * its err (a load whose err is already set, or that has no client, is
 * skipped).  -1 only when the loop itself failed. */
int cluster_load_models(struct cluster_load *ls, size_t n, struct kerr *err);
/* The model, the error and the connection. */
void cluster_load_release(struct cluster_load *l);

/* Several clusters, one per kubeconfig context, loaded at once in one
 * event loop: every context's credentials (exec plugins in parallel), then
 * every cluster's lists together.  A cluster that fails has its error in
 * loads[i].err and holds back none of the others. */
struct fleet {
	char **names; /* the contexts, in the order asked (sorted for --all-contexts) */
	size_t n;
	struct kube_loop *loop;
	struct cluster_load *loads; /* one per context */
	size_t failed;		    /* loads with an error */
};

/* The contexts the line names, each loaded as tmpl says (its sel is
 * shared, its mo copied).  -1 for what fails the whole line: a usage
 * error, a kubeconfig without contexts, out of memory. */
int fleet_load(struct cli_ctx *ctx, struct fleet *f, const struct cluster_load *tmpl, struct kerr *err);
/* Its first half, for a command with work of its own to start on the
 * connections before the lists (each load's mo is its own copy then):
 * every cluster connected, credentials fetched; then cluster_load_models
 * over f->loads, and fleet_count_failed once every step is done. */
int fleet_connect(struct cli_ctx *ctx, struct fleet *f, const struct cluster_load *tmpl, struct kerr *err);
void fleet_count_failed(struct fleet *f);
void fleet_release(struct fleet *f);

#endif
