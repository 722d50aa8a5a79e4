/* Where GPU memory in use comes from, and fetching it beside the API lists.
 *
 * A Prometheus-compatible query API, reached through the API server's
 * service proxy with the kubeconfig's credentials (--prometheus
 * NAMESPACE/SERVICE[:PORT]) or directly (--prometheus-url, with an optional
 * bearer token file and CA).  Either way the requests go through the API
 * client library: the same TLS checks, timeouts and retries.  The queries run
 * on a thread of their own, so the lists never wait for them; the command
 * collects the answers when its lists are done.
 */
#ifndef USAGE_SOURCE_H
#define USAGE_SOURCE_H

#include <stdbool.h>

#include "cli.h"
#include "load.h"
#include "usage.h"

/* The flags every command that can show usage accepts, in this order. */
#define USAGE_SOURCE_FLAGS                                                                                         \
	{"prometheus", 0, "NS/SERVICE[:PORT]",                                                             \
	 "read GPU memory in use from this Prometheus service, through the API server", NULL},                     \
	{"prometheus-url", 0, "URL", "read GPU memory in use from the Prometheus at this URL", NULL},              \
	{"prometheus-token-file", 0, "FILE", "bearer token file for --prometheus-url", NULL},                     \
	{"prometheus-ca", 0, "FILE", "CA certificates that verify --prometheus-url", NULL},                       \
	{"prometheus-labels", 0, "ROLE=LABEL",                                                                \
	 "label names of the GPU metrics (roles: node, gpu, uuid, namespace, pod)", NULL},                        \
	{"window", 0, "DURATION", "how far back GPU memory in use is looked at (default 5m)", NULL}
#define USAGE_SOURCE_NFLAGS 6

/* The strings but service_path are the command line's or the environment's
 * (nothing in the plugin changes its environment), which outlive it. */
struct usage_source {
	char *service_path;  /* /api/v1/namespaces/NS/services/NAME[:PORT]/proxy, or NULL */
	const char *url;     /* direct, or NULL */
	const char *token_file, *ca_file;
	const char *window;
	struct usage_labels labels;
	bool configured;
};

/* From the flag values (USAGE_SOURCE_NFLAGS of them, NULL = not given) and
 * else the environment: CGPU_PROMETHEUS, CGPU_PROMETHEUS_URL,
 * CGPU_PROMETHEUS_TOKEN_FILE, CGPU_PROMETHEUS_CA, CGPU_PROMETHEUS_LABELS,
 * CGPU_USAGE_WINDOW.  Not configured is not an error. */
int usage_source_init(struct usage_source *s, const char *const *vals, struct kerr *err);
void usage_source_release(struct usage_source *s);

struct usage_fetch;

/* Start the queries.  cfg (the API server's) must outlive the fetch.  all:
 * every query (the usage command); else only those that give memory in use
 * (a USED column needs neither card sizes nor utilisation). */
int usage_fetch_start(const struct usage_source *s, const struct kube_config *cfg, const struct cli_ctx *ctx,
		      bool all, struct usage_fetch **ret, struct kerr *err);
/* True once every answer is in (never blocks). */
bool usage_fetch_done(struct usage_fetch *f);
/* Whether a pod may have a figure of its own: maybe until every answer is
 * in, then yes only for the pods some answer names (never blocks; for the
 * model's keep_pod_if, f as its ud). */
enum model_keep usage_fetch_names_pod(void *f, const char *ns, const char *name);
/* Wait for the answers and hand them over; *source_error (malloc'd) is set
 * when the source could not be used at all.  Frees f. */
void usage_fetch_finish(struct usage_fetch *f, struct usage_data *d, char **source_error);
/* Wait for the answers and join them with the finished model m
 * (usage_apply with o).  Frees f. */
int usage_fetch_apply(struct usage_fetch *f, struct model *m, const struct usage_options *o, struct kerr *err);
/* Wait for the answers and drop them, on a way out that does not use them.
 * Frees f; NULL is fine. */
void usage_fetch_free(struct usage_fetch *f);

/* Load l (cluster_load_model, on a connected l) with memory in use from s
 * beside it: the queries run while the nodes and pods are listed, and are
 * joined with the finished model (usage_apply with uo).  all: as for
 * usage_fetch_start; prune: keep only the pods the answers name. */
int usage_load(struct cli_ctx *ctx, const struct usage_source *s, struct cluster_load *l, bool all, bool prune,
	       const struct usage_options *uo, struct kerr *err);

#endif
