/* Loading a cluster: the connection as kubectl makes it, and the node and
 * pod lists that fill one model, run concurrently, beside the discovery and
 * the lists of Dynamic Resource Allocation they are read after. */
#include "load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load_internal.h"
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

/* A connection with these overrides, its client on loop (NULL: its own). */
static int connect_with(struct cli_ctx *ctx, const struct kube_overrides *ov, struct kube_loop *loop,
			struct cluster *c, struct kerr *err)
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
		.loop = loop,
	};
	int rc = -1;

	if (!ua)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (kubeconfig_load(ov, &c->cfg, err) == 0)
		rc = kube_client_new(&c->cfg, &opt, &c->client, err);
	free(ua);
	return rc;
}

bool cluster_fleet_asked(const struct cli_ctx *ctx)
{
	return ctx->g.all_contexts || (ctx->g.ov.context && strchr(ctx->g.ov.context, ','));
}

int cluster_connect(struct cli_ctx *ctx, struct cluster *c, struct kerr *err)
{
	if (cluster_fleet_asked(ctx))
		return kerr_set(err, KERR_USAGE,
				"%s acts on one cluster: --context takes one name here, and --all-contexts is not "
				"accepted",
				ctx->cmd && ctx->cmd->name ? ctx->cmd->name : "this command");
	return connect_with(ctx, &ctx->g.ov, NULL, c, err);
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

void err_take(struct kerr *dst, struct kerr *src)
{
	kerr_release(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

/* --- listing ---------------------------------------------------------------- */

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

static void drop_budgets(struct cluster_load *l)
{
	for (size_t i = 0; i < l->npdbs; i++)
		k8s_pdb_free(l->pdbs[i]);
	l->npdbs = 0;
}

static int on_pdb(void *ud, struct k8s_pdb *b, struct kerr *err)
{
	struct cluster_load *l = ((struct list_ud *)ud)->a->l;
	struct k8s_pdb **nb = kube_array_grow(l->pdbs, &l->pdbs_cap, l->npdbs + 1, sizeof(*nb), 16);

	if (!nb) {
		k8s_pdb_free(b);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	l->pdbs = nb;
	l->pdbs[l->npdbs++] = b;
	return 0;
}

void on_meta(void *ud, const char *resource_version, const char *continue_token)
{
	struct list_ud *u = ud;

	if (resource_version || continue_token)
		return;
	/* the list starts over after 410 Expired: forget what it delivered */
	if (u->a->multi || u->kind == OBJ_PDB)
		u->a->restarted = true;
	else if (u->kind == OBJ_NODE)
		model_reset_nodes(u->a->m);
	else
		model_reset_pods(u->a->m);
}

void plan_release(struct plan *p)
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

char *plan_keep(struct plan *p, char *s)
{
	if (s)
		p->selectors[p->nsel++] = s;
	return s;
}

/* Of a budget, its selector and status only. */
static const struct decode_filter pdb_filter = {0};

static void plan_list(struct plan *p, struct attempt *a, enum obj_kind kind, const char *label_selector,
		      const char *field_selector)
{
	struct kube_list *l = &p->lists[p->n];
	struct list_ud *ud = &p->uds[p->n];

	ud->a = a;
	ud->kind = kind;
	memset(l, 0, sizeof(*l));
	l->path = kind == OBJ_NODE ? "/api/v1/nodes" : kind == OBJ_POD ? "/api/v1/pods" : "/apis/policy/v1/poddisruptionbudgets";
	l->label_selector = label_selector;
	l->field_selector = field_selector;
	l->kind = kind;
	l->from_cache = a->l->from_cache;
	l->hold = kind == OBJ_PDB ? NULL : a->hold;
	l->filter = kind == OBJ_NODE ? model_node_filter(a->m) : kind == OBJ_POD ? model_pod_filter(a->m) : &pdb_filter;
	l->sink = (struct decode_sink){ .node = on_node, .pod = on_pod, .pdb = on_pdb, .list_meta = on_meta, .ud = ud };
	p->n++;
}

/* Named nodes: one node list and one pod list per name (field selectors, so
 * only those nodes' pods travel); else one list of each for the cluster. */
static int plan_lists(struct plan *p, struct attempt *a, struct kerr *err)
{
	const struct nodesel *sel = a->l->sel;
	size_t nnames = sel ? sel->nnames : 0;
	size_t n = (nnames ? 2 * nnames : 2) + 1;

	p->lists = calloc(n, sizeof(*p->lists));
	p->uds = calloc(n, sizeof(*p->uds));
	p->selectors = calloc(n, sizeof(*p->selectors));
	if (!p->lists || !p->uds || !p->selectors)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!model_node_filter(a->m) || !model_pod_filter(a->m))
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (a->l->budgets)
		plan_list(p, a, OBJ_PDB, NULL, NULL);
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

/* The first named node no list brought, as the server says NotFound; with
 * partial, every one of them, in l->missing_names. */
static int check_missing(struct attempt *a, struct kerr *err)
{
	const struct nodesel *sel = a->l->sel;

	for (size_t i = 0; sel && i < sel->nnames; i++) {
		char *msg = NULL;

		if (a->seen[i])
			continue;
		if (a->l->partial) {
			if (!a->l->missing_names && !(a->l->missing_names = calloc(sel->nnames, sizeof(char *))))
				return kerr_set(err, KERR_OTHER, "out of memory");
			a->l->missing_names[a->l->nmissing++] = sel->names[i];
			continue;
		}
		if (asprintf(&msg, "nodes \"%s\" not found", sel->names[i]) < 0)
			msg = NULL;
		kerr_set_status(err, 404, "NotFound", msg ? msg : "node not found");
		free(msg);
		a->l->missing = sel->names[i];
		return -1;
	}
	return 0;
}

/* A new attempt's model and lists; -1 with the cluster's error. */
static int loading_prepare(struct loading *g, struct kerr *err)
{
	size_t nnames = g->a.l->sel ? g->a.l->sel->nnames : 0;

	g->a.m = NULL;
	if (model_init(&g->m, &g->a.l->mo) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	g->a.m = &g->m;
	g->a.multi = nnames > 0;
	g->a.restarted = false;
	drop_budgets(g->a.l);
	g->a.l->nodes_seen = 0;
	for (size_t i = 0; i < nnames; i++)
		g->a.seen[i] = false;
	return plan_lists(&g->p, &g->a, err);
}

/* The end of a round for one cluster: failed, to run again (a list started
 * over, at most twice more), or its model finished. */
static void loading_settle(struct loading *g, struct kerr *set_err, int round)
{
	struct cluster_load *l = g->a.l;

	plan_release(&g->p);
	if (set_err->kind == KERR_NONE && g->a.restarted && round < 2) {
		model_release(&g->m);
		g->a.m = NULL;
		return;
	}
	g->active = false;
	/* every node and pod has been read from the inventory and the model
	 * keeps its own copies: its memory goes to finishing and drawing */
	if (!l->mo.scheduling) {
		/* fit's checks and the pending reasons read the devices: kept
		 * with scheduling, until the load is released */
		g->m.opts.objects = NULL;
		l->mo.objects = NULL;
		dra_inventory_release(&l->dra);
	}
	if (set_err->kind == KERR_NONE && check_missing(&g->a, set_err) == 0 && model_finish(&g->m, set_err) == 0) {
		l->model = g->m;
		l->have_model = true;
		g->a.m = NULL;
		l->model.dra_api_version = dra_group_version(l->dra_version);
		for (size_t i = 0; i < l->dra_warnings.len; i++)
			warnings_add(&l->model.warnings, l->dra_warnings.items[i].code, l->dra_warnings.items[i].object, "%s",
				     l->dra_warnings.items[i].message);
		return;
	}
	err_take(&l->err, set_err);
	if (g->a.m)
		model_release(g->a.m);
	g->a.m = NULL;
}

/* A round of lists under way: the sets of the clusters still loading. */
struct round {
	struct kube_list_set *sets;
	size_t *of, k; /* sets[j] is cluster of[j]'s */
	struct kube_list_sets *run;
};

/* The lists of every cluster still loading, asked for at once. */
static int round_start(struct loading *gs, size_t n, int round, struct round *r, struct kerr *err)
{
	memset(r, 0, sizeof(*r));
	r->sets = calloc(n ? n : 1, sizeof(*r->sets));
	r->of = calloc(n ? n : 1, sizeof(*r->of));
	if (!r->sets || !r->of)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct kerr e = KERR_INIT;

		if (!gs[i].active)
			continue;
		if (loading_prepare(&gs[i], &e) < 0) {
			loading_settle(&gs[i], &e, round);
			continue;
		}
		r->sets[r->k] = (struct kube_list_set){.client = gs[i].a.l->cluster.client, .lists = gs[i].p.lists,
						       .n = gs[i].p.n};
		r->of[r->k++] = i;
	}
	if (r->k && kube_list_sets_start(r->sets, r->k, &r->run, err) < 0) {
		for (size_t j = 0; j < r->k; j++)
			kerr_set(&r->sets[j].err, KERR_OTHER, "out of memory");
		return -1;
	}
	return 0;
}

/* The round run to its end, each cluster's outcome settled; a cluster
 * that failed before its lists could be read (its DRA lists) keeps that
 * failure. */
static int round_finish(struct loading *gs, int round, struct round *r, struct kerr *err)
{
	int rc = r->run && kube_list_sets_wait(r->run, err) < 0 ? -1 : 0;

	for (size_t j = 0; j < r->k; j++) {
		struct loading *g = &gs[r->of[j]];

		if (g->a.l->err.kind == KERR_NONE) {
			loading_settle(g, &r->sets[j].err, round);
		} else {
			plan_release(&g->p);
			model_release(&g->m);
			g->a.m = NULL;
			g->active = false;
		}
		kerr_release(&r->sets[j].err);
	}
	free(r->sets);
	free(r->of);
	memset(r, 0, sizeof(*r));
	return rc;
}

int cluster_load_models(struct cluster_load *ls, size_t n, struct kerr *err)
{
	struct loading *gs = calloc(n ? n : 1, sizeof(*gs));
	struct round first;
	bool any = true;
	int rc;

	if (!gs)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct cluster_load *l = &ls[i];
		size_t nnames = l->sel ? l->sel->nnames : 0;

		gs[i].a.l = l;
		gs[i].a.hold = &gs[i].held;
		if (l->err.kind != KERR_NONE || !l->cluster.client)
			continue;
		l->mo.nodes = nnames ? (const char *const *)l->sel->names : NULL;
		if (l->sel)
			l->mo.dra_drivers = (const char *const *)l->sel->dra_drivers;
		if (nnames && !(gs[i].a.seen = calloc(nnames, sizeof(bool)))) {
			kerr_set(&l->err, KERR_OTHER, "out of memory");
			continue;
		}
		gs[i].active = true;
		gs[i].held = dra_asked(l);
	}
	/* The nodes and pods are asked for at once, beside the discovery of
	 * DRA and its lists, and read once the inventory is in: a node's
	 * devices and a pod's share are then read as each arrives, as the
	 * other schemes read theirs, while the server's time for the lists
	 * is spent on all of them together. */
	rc = round_start(gs, n, 0, &first, err);
	if (rc == 0) {
		dra_discover(gs, n);
		rc = dra_rounds(gs, n, err);
	}
	for (size_t i = 0; i < n; i++)
		gs[i].held = false;
	if (round_finish(gs, 0, &first, err) < 0)
		rc = -1;
	for (int round = 1; any && rc == 0; round++) {
		struct round r;

		any = false;
		for (size_t i = 0; i < n; i++)
			any = any || gs[i].active;
		if (any && (round_start(gs, n, round, &r, err) < 0 || round_finish(gs, round, &r, err) < 0))
			rc = -1;
	}
	for (size_t i = 0; i < n; i++) {
		plan_release(&gs[i].p);
		plan_release(&gs[i].dp);
		if (gs[i].a.m)
			model_release(gs[i].a.m);
		free(gs[i].a.seen);
	}
	free(gs);
	return rc;
}

int cluster_load_model(struct cluster_load *l, struct kerr *err)
{
	if (cluster_load_models(l, 1, err) < 0)
		return -1;
	if (l->err.kind == KERR_NONE)
		return 0;
	err_take(err, &l->err);
	return -1;
}

void cluster_load_release(struct cluster_load *l)
{
	if (l->have_model)
		model_release(&l->model);
	l->have_model = false;
	kerr_release(&l->err);
	dra_inventory_release(&l->dra);
	warnings_release(&l->dra_warnings);
	free(l->missing_names);
	l->missing_names = NULL;
	l->nmissing = 0;
	drop_budgets(l);
	free(l->pdbs);
	l->pdbs = NULL;
	l->pdbs_cap = 0;
	cluster_release(&l->cluster);
}

/* --- several clusters at once: the fleet ------------------------------------ */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The pieces of --context a,b,c, in order, empty pieces and repeats left out. */
static int split_contexts(const char *list, struct fleet *f, struct kerr *err)
{
	size_t cap = 1;
	char *copy = strdup(list), *save = NULL;

	for (const char *p = list; *p; p++)
		cap += *p == ',';
	f->names = calloc(cap + 1, sizeof(*f->names));
	if (!copy || !f->names) {
		free(copy);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool again = false;

		for (size_t i = 0; i < f->n; i++)
			again = again || strcmp(f->names[i], t) == 0;
		if (!again && !(f->names[f->n++] = strdup(t))) {
			free(copy);
			return kerr_set(err, KERR_OTHER, "out of memory");
		}
	}
	free(copy);
	if (f->n == 0)
		return kerr_set(err, KERR_USAGE, "--context \"%s\" names no context", list);
	return 0;
}

static int fleet_names(struct cli_ctx *ctx, struct fleet *f, struct kerr *err)
{
	if (ctx->g.all_contexts && ctx->g.ov.context)
		return kerr_set(err, KERR_USAGE, "--context and --all-contexts cannot be combined");
	if (!ctx->g.all_contexts)
		return split_contexts(ctx->g.ov.context, f, err);
	f->names = kubeconfig_context_names(&ctx->g.ov, err);
	if (!f->names)
		return err->kind != KERR_NONE ? -1 : kerr_set(err, KERR_CONFIG, "the kubeconfig defines no context");
	while (f->names[f->n])
		f->n++;
	if (f->n == 0)
		return kerr_set(err, KERR_CONFIG, "the kubeconfig defines no context");
	/* as kubectl config get-contexts lists them */
	qsort(f->names, f->n, sizeof(*f->names), name_cmp);
	return 0;
}

/* Every cluster connected on the one loop, each to its own context; the
 * credentials of all fetched at once. */
static int fleet_connect_all(struct cli_ctx *ctx, struct fleet *f, struct kerr *err)
{
	struct kube_client **cs = calloc(f->n, sizeof(*cs));
	struct kerr *errs = calloc(f->n, sizeof(*errs));

	if (!cs || !errs) {
		free(cs);
		free(errs);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (size_t i = 0; i < f->n; i++) {
		struct kube_overrides ov = ctx->g.ov;

		ov.context = f->names[i];
		if (connect_with(ctx, &ov, f->loop, &f->loads[i].cluster, &f->loads[i].err) == 0)
			cs[i] = f->loads[i].cluster.client;
	}
	kube_clients_prefetch_credentials(cs, f->n, errs);
	for (size_t i = 0; i < f->n; i++) {
		if (errs[i].kind != KERR_NONE)
			err_take(&f->loads[i].err, &errs[i]);
		kerr_release(&errs[i]);
	}
	free(cs);
	free(errs);
	return 0;
}

int fleet_connect(struct cli_ctx *ctx, struct fleet *f, const struct cluster_load *tmpl, struct kerr *err)
{
	if (fleet_names(ctx, f, err) < 0 || kube_loop_new(&f->loop, err) < 0)
		return -1;
	f->loads = calloc(f->n, sizeof(*f->loads));
	if (!f->loads)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < f->n; i++) {
		f->loads[i].sel = tmpl->sel;
		f->loads[i].mo = tmpl->mo;
		f->loads[i].from_cache = tmpl->from_cache;
		f->loads[i].budgets = tmpl->budgets;
	}
	return fleet_connect_all(ctx, f, err);
}

void fleet_count_failed(struct fleet *f)
{
	f->failed = 0;
	for (size_t i = 0; i < f->n; i++)
		f->failed += f->loads[i].err.kind != KERR_NONE;
}

int fleet_load(struct cli_ctx *ctx, struct fleet *f, const struct cluster_load *tmpl, struct kerr *err)
{
	if (fleet_connect(ctx, f, tmpl, err) < 0 || cluster_load_models(f->loads, f->n, err) < 0)
		return -1;
	fleet_count_failed(f);
	return 0;
}

void fleet_release(struct fleet *f)
{
	for (size_t i = 0; f->loads && i < f->n; i++)
		cluster_load_release(&f->loads[i]);
	kube_loop_free(f->loop);
	for (size_t i = 0; f->names && f->names[i]; i++)
		free(f->names[i]);
	free(f->names);
	free(f->loads);
	memset(f, 0, sizeof(*f));
}
