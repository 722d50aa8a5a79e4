/* Loading a cluster: the connection as kubectl makes it, and the node and
 * pod lists that fill one model, run concurrently. */
#include "load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

/* --- connecting ------------------------------------------------------------ */

/* A budget from the environment (the tests shrink them), 0 = the default. */
static unsigned long long budget_env(const char *name)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	return errno || *end ? 0 : n;
}

/* KUBECTL_INSPECT_CGPU_PROTOBUF=false: ask the server for JSON only. */
static bool json_only(void)
{
	const char *v = getenv("KUBECTL_INSPECT_CGPU_PROTOBUF");

	return v && (!strcmp(v, "false") || !strcmp(v, "0"));
}

int cluster_connect(struct cli_ctx *ctx, struct cluster *c, struct kerr *err)
{
	char *ua = kube_user_agent("kubectl-inspect-cgpu", PLUGIN_VERSION, PLUGIN_COMMIT);
	struct kube_client_options opt = {
		.user_agent = ua,
		.request_timeout_ms = ctx->g.request_timeout_ms,
		.verbosity = ctx->g.verbosity,
		.log = ctx->errout,
		.list_max_objects = budget_env("CGPU_LIST_MAX_OBJECTS"),
		.list_max_bytes = budget_env("CGPU_LIST_MAX_BYTES"),
		.max_object_bytes = budget_env("CGPU_MAX_OBJECT_BYTES"),
		.consistent_reads = ctx->g.consistent_reads,
		.json_only = json_only(),
	};
	int rc = -1;

	if (!ua)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (kubeconfig_load(&ctx->g.ov, &c->cfg, err) == 0)
		rc = kube_client_new(&c->cfg, &opt, &c->client, err);
	free(ua);
	return rc;
}

void cluster_release(struct cluster *c)
{
	kube_client_free(c->client);
	kube_config_release(&c->cfg);
	memset(c, 0, sizeof(*c));
}

int cluster_find_nodes(struct cluster *c, const struct nodesel *sel, struct kerr *err)
{
	for (size_t i = 0; i < sel->nnames; i++) {
		char *path = kube_path("v1", NULL, "nodes", sel->names[i]);
		json_t *node = NULL;
		int rc;

		if (!path)
			return kerr_set(err, KERR_OTHER, "out of memory");
		rc = kube_get_json(c->client, path, NULL, &node, err);
		json_decref(node);
		free(path);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* --- listing ---------------------------------------------------------------- */

/* One attempt at the lists, folded into one model. */
struct attempt {
	struct cluster_load *l;
	struct model *m;
	bool *seen;	/* per named node: listed */
	bool multi;	/* several lists feed the model */
	bool restarted; /* a list started over: run everything again */
};

struct list_ud {
	struct attempt *a;
	enum obj_kind kind;
};

static int on_node(void *ud, struct k8s_node *node, struct kerr *err)
{
	struct attempt *a = ((struct list_ud *)ud)->a;
	const struct nodesel *sel = a->l->sel;
	int rc;

	for (size_t i = 0; sel && i < sel->nnames; i++)
		if (node->name && strcmp(node->name, sel->names[i]) == 0)
			a->seen[i] = true;
	a->l->nodes_seen++;
	rc = model_add_node(a->m, node, err);
	k8s_node_free(node);
	return rc;
}

static int on_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	struct attempt *a = ((struct list_ud *)ud)->a;
	int rc = model_add_pod(a->m, pod, err);

	k8s_pod_free(pod);
	return rc;
}

static void on_meta(void *ud, const char *resource_version, const char *continue_token)
{
	struct list_ud *u = ud;

	if (resource_version || continue_token)
		return;
	/* the list starts over after 410 Expired: forget what it delivered */
	if (u->a->multi)
		u->a->restarted = true;
	else if (u->kind == OBJ_NODE)
		model_reset_nodes(u->a->m);
	else
		model_reset_pods(u->a->m);
}

/* The lists of one attempt and the selectors they point to. */
struct plan {
	struct kube_list *lists;
	struct list_ud *uds;
	char **selectors;
	size_t n, nsel;
};

static void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		kube_list_release(&p->lists[i]);
	for (size_t i = 0; i < p->nsel; i++)
		free(p->selectors[i]);
	free(p->lists);
	free(p->uds);
	free(p->selectors);
	memset(p, 0, sizeof(*p));
}

static char *plan_keep(struct plan *p, char *s)
{
	if (s)
		p->selectors[p->nsel++] = s;
	return s;
}

static void plan_list(struct plan *p, struct attempt *a, enum obj_kind kind, const char *label_selector,
		      const char *field_selector)
{
	struct kube_list *l = &p->lists[p->n];
	struct list_ud *ud = &p->uds[p->n];

	ud->a = a;
	ud->kind = kind;
	memset(l, 0, sizeof(*l));
	l->path = kind == OBJ_NODE ? "/api/v1/nodes" : "/api/v1/pods";
	l->label_selector = label_selector;
	l->field_selector = field_selector;
	l->kind = kind;
	l->from_cache = a->l->from_cache;
	l->filter = kind == OBJ_NODE ? model_node_filter(a->m) : model_pod_filter(a->m);
	l->sink = (struct decode_sink){ .node = on_node, .pod = on_pod, .list_meta = on_meta, .ud = ud };
	p->n++;
}

/* Named nodes: one node list and one pod list per name (field selectors, so
 * only those nodes' pods travel); else one list of each for the cluster. */
static int plan_lists(struct plan *p, struct attempt *a, struct kerr *err)
{
	const struct nodesel *sel = a->l->sel;
	size_t nnames = sel ? sel->nnames : 0;
	size_t n = nnames ? 2 * nnames : 2;

	p->lists = calloc(n, sizeof(*p->lists));
	p->uds = calloc(n, sizeof(*p->uds));
	p->selectors = calloc(n, sizeof(*p->selectors));
	if (!p->lists || !p->uds || !p->selectors)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!model_node_filter(a->m) || !model_pod_filter(a->m))
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!nnames) {
		plan_list(p, a, OBJ_NODE, sel ? sel->label_selector : NULL, NULL);
		plan_list(p, a, OBJ_POD, NULL, CLUSTER_ACTIVE_PODS);
		return 0;
	}
	for (size_t i = 0; i < nnames; i++) {
		char *nodes = NULL, *pods = NULL;

		if (asprintf(&nodes, "metadata.name=%s", sel->names[i]) < 0)
			nodes = NULL;
		plan_keep(p, nodes);
		if (asprintf(&pods, "spec.nodeName=%s," CLUSTER_ACTIVE_PODS, sel->names[i]) < 0)
			pods = NULL;
		plan_keep(p, pods);
		if (!nodes || !pods)
			return kerr_set(err, KERR_OTHER, "out of memory");
		plan_list(p, a, OBJ_NODE, NULL, nodes);
		plan_list(p, a, OBJ_POD, NULL, pods);
	}
	return 0;
}

/* One run of the lists into a new model *m (a->m once it is to release). */
static int load_attempt(struct attempt *a, struct model *m, struct kerr *err)
{
	struct plan p = { 0 };
	size_t nnames = a->l->sel ? a->l->sel->nnames : 0;
	int rc;

	a->m = NULL;
	if (model_init(m, &a->l->mo) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	a->m = m;
	a->multi = nnames > 0;
	a->restarted = false;
	a->l->nodes_seen = 0;
	for (size_t i = 0; i < nnames; i++)
		a->seen[i] = false;
	rc = plan_lists(&p, a, err);
	if (rc == 0)
		rc = kube_list_run(a->l->cluster.client, p.lists, p.n, err);
	plan_release(&p);
	return rc;
}

/* The first named node no list brought, as the server says NotFound. */
static int check_missing(struct attempt *a, struct kerr *err)
{
	const struct nodesel *sel = a->l->sel;

	for (size_t i = 0; sel && i < sel->nnames; i++) {
		char *msg = NULL;

		if (a->seen[i])
			continue;
		if (asprintf(&msg, "nodes \"%s\" not found", sel->names[i]) < 0)
			msg = NULL;
		kerr_set_status(err, 404, "NotFound", msg ? msg : "node not found");
		free(msg);
		a->l->missing = sel->names[i];
		return -1;
	}
	return 0;
}

int cluster_load_model(struct cluster_load *l, struct kerr *err)
{
	size_t nnames = l->sel ? l->sel->nnames : 0;
	struct attempt a = { .l = l };
	struct model m;
	int rc = -1;

	l->mo.nodes = nnames ? (const char *const *)l->sel->names : NULL;
	if (nnames && !(a.seen = calloc(nnames, sizeof(bool))))
		return kerr_set(err, KERR_OTHER, "out of memory");
	/* several lists restart as one: at most twice more */
	for (int attempt = 0;; attempt++) {
		if (load_attempt(&a, &m, err) < 0)
			goto fail;
		if (!a.restarted || attempt >= 2)
			break;
		model_release(&m);
		a.m = NULL;
	}
	if (check_missing(&a, err) < 0 || model_finish(&m, err) < 0)
		goto fail;
	l->model = m;
	l->have_model = true;
	rc = 0;
	goto out;
fail:
	if (a.m)
		model_release(a.m);
out:
	free(a.seen);
	return rc;
}

void cluster_load_release(struct cluster_load *l)
{
	if (l->have_model)
		model_release(&l->model);
	l->have_model = false;
	cluster_release(&l->cluster);
}
