/* The allocation model: a hash of per-node accumulators keyed by node name,
 * filled in whatever order nodes and pods arrive, joined once at the end. */
#include "model.h"
#include "model_internal.h"

#include <stdlib.h>
#include <string.h>

struct node_acc *model_acc_find(struct model_private *p, const char *name)
{
	long i = model_names_find(&p->acc_names, name);

	return i < 0 ? NULL : &p->accs[i];
}

/* The accumulator of a node, made when the name is new: the names and the
 * accumulators are numbered alike. */
static struct node_acc *acc_get(struct model_private *p, const char *name)
{
	long i = model_names_add(&p->acc_names, name, strlen(name));
	struct node_acc *na;

	if (i < 0)
		return NULL;
	if ((size_t)i < p->naccs)
		return &p->accs[i];
	na = kube_array_grow(p->accs, &p->accs_cap, p->naccs + 1, sizeof(*na), 16);
	if (!na)
		return NULL;
	p->accs = na;
	memset(&p->accs[p->naccs], 0, sizeof(*na));
	p->accs[p->naccs].name = p->acc_names.v[i];
	return &p->accs[p->naccs++];
}

static void acc_clear_pods(struct node_acc *a)
{
	free(a->devs);
	a->devs = NULL;
	a->ndevs = a->devs_cap = 0;
	free(a->gpu_mem);
	free(a->gpu_core);
	free(a->gpu_pods);
	a->gpu_mem = a->gpu_core = NULL;
	a->gpu_pods = NULL;
	a->nslots = 0;
	a->beyond_mem = a->beyond_core = a->pending_mem = a->pending_core = a->mem = a->core = 0;
	a->beyond_pods = a->pending_pods = a->npods = 0;
}

static bool acc_slots(struct node_acc *a, size_t n)
{
	size_t ncap;
	int64_t *nm, *nc;
	size_t *np;

	if (n <= a->nslots)
		return true;
	ncap = a->nslots ? a->nslots : 8;
	while (ncap < n)
		ncap *= 2;
	nm = realloc(a->gpu_mem, ncap * sizeof(*nm));
	if (nm)
		a->gpu_mem = nm;
	nc = realloc(a->gpu_core, ncap * sizeof(*nc));
	if (nc)
		a->gpu_core = nc;
	np = realloc(a->gpu_pods, ncap * sizeof(*np));
	if (np)
		a->gpu_pods = np;
	if (!nm || !nc || !np)
		return false;
	for (size_t i = a->nslots; i < ncap; i++) {
		a->gpu_mem[i] = a->gpu_core[i] = 0;
		a->gpu_pods[i] = 0;
	}
	a->nslots = ncap;
	return true;
}

static bool name_selected(const struct model *m, const char *name)
{
	if (!m->opts.nodes)
		return true;
	for (size_t i = 0; m->opts.nodes[i]; i++)
		if (strcmp(m->opts.nodes[i], name) == 0)
			return true;
	return false;
}

int model_init(struct model *m, const struct model_options *opt)
{
	struct model_private *p;

	memset(m, 0, sizeof(*m));
	if (opt)
		m->opts = *opt;
	else
		m->opts.force_unit = -1;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->pool_label = m->opts.pool_label ? m->opts.pool_label : POOL_LABEL;
	p->model_node_labels[0] = p->pool_label;
	p->model_node_labels[1] = NULL;
	p->model_node_fields.label_keys = p->model_node_labels;
	p->model_pod_labels[0] = "pod-template-hash";
	p->model_pod_fields.label_keys = m->opts.owners ? p->model_pod_labels : NULL;
	/* a nodeSelector or node affinity may name any label */
	p->model_node_fields.all_labels = m->opts.scheduling;
	p->model_node_fields.scheduling = m->opts.scheduling;
	m->priv = p;
	return 0;
}

void model_pod_free_fields(struct model_pod *mp)
{
	free(mp->namespace);
	free(mp->name);
	free(mp->uid);
	free(mp->phase);
	free(mp->node);
	free(mp->gpus);
	if (mp->container_names)
		for (size_t i = 0; i < mp->ncontainers; i++)
			free(mp->container_names[i]);
	free(mp->container_names);
	free(mp->container_mem);
	free(mp->container_core);
	kvlist_release(&mp->node_selector);
	free(mp->owner);
	k8s_tolerations_free(mp->tolerations, mp->ntolerations);
	k8s_node_terms_free(mp->node_terms, mp->nnode_terms);
	free(mp->pending_reason);
	memset(mp, 0, sizeof(*mp));
}

static void node_free_fields(struct model_node *n)
{
	free(n->name);
	free(n->ip);
	scheme_node_release(&n->info);
	free(n->gpus);
	free(n->pool);
	kvlist_release(&n->labels);
	k8s_taints_free(n->taints, n->ntaints);
	free(n->pods);
	memset(n, 0, sizeof(*n));
}

void model_reset_nodes(struct model *m)
{
	struct model_private *p = m->priv;

	for (size_t i = 0; i < m->nnodes; i++)
		node_free_fields(&m->nodes[i]);
	free(m->nodes);
	m->nodes = NULL;
	m->nnodes = 0;
	if (!p)
		return;
	p->nodes_cap = 0;
	for (size_t i = 0; i < p->naccs; i++)
		p->accs[i].have_node = p->accs[i].shares = false;
	warnings_release(&p->node_warnings);
}

/* The pods kept on a MAYBE, forgotten. */
static void forget_maybes(struct model_private *p)
{
	free(p->maybe);
	p->maybe = NULL;
	p->nmaybe = p->maybe_cap = 0;
}

void model_reset_pods(struct model *m)
{
	struct model_private *p = m->priv;

	for (size_t i = 0; i < m->npods; i++)
		model_pod_free_fields(&m->pods[i]);
	free(m->pods);
	m->pods = NULL;
	m->npods = 0;
	if (!p)
		return;
	p->pods_cap = 0;
	forget_maybes(p);
	for (size_t i = 0; i < p->naccs; i++)
		acc_clear_pods(&p->accs[i]);
	warnings_release(&p->pod_warnings);
}

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int oom(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "out of memory");
}

static int copy_labels(struct kvlist *dst, const struct kvlist *src)
{
	for (size_t i = 0; i < src->len; i++)
		if (kvlist_add(dst, src->items[i].key, strlen(src->items[i].key), src->items[i].value,
			       strlen(src->items[i].value)) < 0)
			return -1;
	return 0;
}

int model_add_node(struct model *m, struct k8s_node *node, struct kerr *err)
{
	struct model_private *p = m->priv;
	struct scheme_node info;
	const struct scheme *sc = NULL;
	struct node_acc *a;
	struct model_node *n, *nn;
	const char *v;
	int rc = 0;

	if (!node || !node->name || !name_selected(m, node->name))
		return 0;
	a = acc_get(p, node->name);
	if (!a)
		return oom(err);
	if (a->have_node && a->shares) {
		/* the same node again (a list restarted): keep the newer copy */
		node_free_fields(&m->nodes[a->node]);
		memmove(&m->nodes[a->node], &m->nodes[a->node + 1], (m->nnodes - a->node - 1) * sizeof(*m->nodes));
		m->nnodes--;
		for (size_t i = 0; i < p->naccs; i++)
			if (p->accs[i].shares && p->accs[i].node > a->node)
				p->accs[i].node--;
	}
	a->have_node = true;
	a->shares = false;
	rc = scheme_detect_node(m->opts.scheme, node, &info, &p->node_warnings, &sc);
	if (rc < 0)
		return oom(err);
	if (!sc)
		return 0;
	nn = kube_array_grow(m->nodes, &p->nodes_cap, m->nnodes + 1, sizeof(*nn), 16);
	if (!nn) {
		scheme_node_release(&info);
		return oom(err);
	}
	m->nodes = nn;
	n = &m->nodes[m->nnodes];
	memset(n, 0, sizeof(*n));
	n->info = info;
	n->scheme = sc;
	n->unit = info.unit;
	n->name = strdup(node->name);
	n->ip = strdup(node->internal_ip ? node->internal_ip : "unknown");
	v = kvlist_get(&node->labels, p->pool_label);
	n->pool = xstrdup(v);
	n->gpu_model = n->info.card_model;
	n->card_mem_mib = n->info.card_mem_mib;
	n->ready = node->ready;
	n->unschedulable = node->unschedulable;
	m->nnodes++;
	a->shares = true;
	a->node = m->nnodes - 1;
	if (!n->name || !n->ip || copy_labels(&n->labels, &node->labels) < 0 ||
	    k8s_taints_copy(&n->taints, &n->ntaints, node->taints, node->ntaints) < 0)
		return oom(err);
	return 0;
}

int model_fold_claim(struct node_acc *a, int gpu, int64_t mem, int64_t core, bool first_on_gpu)
{
	if (gpu < 0) {
		a->pending_mem += mem;
		a->pending_core += core;
		a->pending_pods += first_on_gpu;
	} else if (gpu >= MAX_GPU_SLOTS) {
		a->beyond_mem += mem;
		a->beyond_core += core;
		a->beyond_pods += first_on_gpu;
	} else {
		if (!acc_slots(a, (size_t)gpu + 1))
			return -1;
		a->gpu_mem[gpu] += mem;
		a->gpu_core[gpu] += core;
		a->gpu_pods[gpu] += first_on_gpu;
	}
	return 0;
}

bool model_same_device(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

static bool same_gpu(const struct scheme_claim *x, const struct scheme_claim *y)
{
	return x->gpu == y->gpu && model_same_device(x->device_id, y->device_id);
}

static int add_dev_claim(struct node_acc *a, const struct scheme_claim *c, bool first)
{
	struct dev_claim *nd;

	nd = kube_array_grow(a->devs, &a->devs_cap, a->ndevs + 1, sizeof(*nd), 8);
	if (!nd)
		return -1;
	a->devs = nd;
	a->devs[a->ndevs++] = (struct dev_claim){c->device_id, c->mem, c->core, first};
	return 0;
}

/* The index of the GPU a scheme names by device id, or -1. */
int model_gpu_by_id(const struct scheme_node *info, const char *id)
{
	for (int i = 0; info->gpus && i < info->ngpus; i++)
		if (info->gpus[i].id && strcmp(info->gpus[i].id, id) == 0)
			return info->gpus[i].index;
	return -1;
}

/* Per-GPU view of a pod's claims: containers on the same GPU merged. */
static int pod_gpus(const struct scheme_pod *sp, struct model_pod_gpu **ret, size_t *ret_n)
{
	struct model_pod_gpu *g = NULL;
	size_t n = 0;

	if (sp->nclaims && !(g = calloc(sp->nclaims, sizeof(*g))))
		return -1;
	for (size_t i = 0; i < sp->nclaims; i++) {
		size_t j;

		for (j = 0; j < n; j++)
			if (g[j].gpu == sp->claims[i].gpu && model_same_device(g[j].device_id, sp->claims[i].device_id))
				break;
		if (j == n) {
			g[n].gpu = sp->claims[i].gpu;
			g[n].device_id = sp->claims[i].device_id;
			n++;
		}
		g[j].mem += sp->claims[i].mem;
		g[j].core += sp->claims[i].core;
	}
	*ret = g;
	*ret_n = n;
	return 0;
}

/* The workload that controls a pod: its controller owner, a ReplicaSet
 * folded into its Deployment.  A Deployment's ReplicaSet is named after it
 * plus "-<pod-template-hash>", the label its pods carry, so no extra read
 * is needed; a ReplicaSet without that suffix stays itself. */
static int pod_owner(const struct k8s_pod *pod, char **ret)
{
	const struct k8s_owner *o = NULL;
	const char *hash = kvlist_get(&pod->labels, "pod-template-hash");

	*ret = NULL;
	for (size_t i = 0; i < pod->nowners; i++)
		if (pod->owners[i].controller && pod->owners[i].kind && pod->owners[i].name)
			o = &pod->owners[i];
	if (!o)
		return 0;
	if (strcmp(o->kind, "ReplicaSet") == 0 && hash && *hash) {
		size_t nl = strlen(o->name), hl = strlen(hash);

		if (nl > hl + 1 && o->name[nl - hl - 1] == '-' && strcmp(o->name + nl - hl, hash) == 0)
			return asprintf(ret, "Deployment/%.*s", (int)(nl - hl - 1), o->name) < 0 ? -1 : 0;
	}
	return asprintf(ret, "%s/%s", o->kind, o->name) < 0 ? -1 : 0;
}

/* What an unscheduled pod asks of a node, as its scheme read it, and where
 * it may go. */
static int keep_ask(struct model_pod *mp, const struct k8s_pod *pod, const struct scheme_pod *sp)
{
	mp->ask = sp->ask;
	if (copy_labels(&mp->node_selector, &pod->node_selector) < 0 ||
	    k8s_node_terms_copy(&mp->node_terms, &mp->nnode_terms, pod->node_terms, pod->nnode_terms) < 0 ||
	    k8s_tolerations_copy(&mp->tolerations, &mp->ntolerations, pod->tolerations, pod->ntolerations) < 0)
		return -1;
	return 0;
}

static int keep_pod(struct model *m, const struct k8s_pod *pod, const struct scheme *sc,
		    const struct scheme_pod *sp, const char *node)
{
	struct model_private *p = m->priv;
	struct model_pod *mp, *np;

	np = kube_array_grow(m->pods, &p->pods_cap, m->npods + 1, sizeof(*np), 16);
	if (!np)
		return -1;
	m->pods = np;
	mp = &m->pods[m->npods++];
	memset(mp, 0, sizeof(*mp));
	mp->namespace = strdup(pod->namespace ? pod->namespace : "");
	mp->name = strdup(pod->name ? pod->name : "");
	mp->uid = xstrdup(pod->uid);
	mp->phase = xstrdup(pod->phase);
	mp->node = xstrdup(node);
	mp->scheme = sc;
	mp->mem = sp->mem;
	mp->core = sp->core;
	mp->assigned = sp->assigned;
	if (!mp->namespace || !mp->name || (pod->uid && !mp->uid) || (pod->phase && !mp->phase) ||
	    (node && !mp->node))
		return -1;
	if (pod_gpus(sp, &mp->gpus, &mp->ngpus) < 0)
		return -1;
	if (!node && m->opts.scheduling && keep_ask(mp, pod, sp) < 0)
		return -1;
	if (m->opts.owners && pod_owner(pod, &mp->owner) < 0)
		return -1;
	if (pod->ncontainers) {
		mp->container_names = calloc(pod->ncontainers, sizeof(char *));
		mp->container_mem = calloc(pod->ncontainers, sizeof(int64_t));
		mp->container_core = calloc(pod->ncontainers, sizeof(int64_t));
		if (!mp->container_names || !mp->container_mem || !mp->container_core)
			return -1;
		mp->ncontainers = pod->ncontainers;
		for (size_t i = 0; i < pod->ncontainers; i++) {
			mp->container_names[i] = strdup(pod->containers[i].name ? pod->containers[i].name : "");
			if (!mp->container_names[i])
				return -1;
			mp->container_mem[i] = sp->container_mem ? sp->container_mem[i] : 0;
			mp->container_core[i] = sp->container_core ? sp->container_core[i] : 0;
		}
	}
	return 0;
}

/* keep_pod_if has decided: drop the pods it kept on a MAYBE and now refuses
 * (nothing refers to a pod by index before model_finish). */
static void drop_maybes(struct model *m)
{
	struct model_private *p = m->priv;
	size_t out = 0, k = 0;

	for (size_t i = 0; i < m->npods; i++) {
		bool maybe = k < p->nmaybe && p->maybe[k] == i;

		k += maybe;
		if (maybe && m->opts.keep_pod_if(m->opts.keep_pod_ud, m->pods[i].namespace, m->pods[i].name) ==
				     MODEL_KEEP_NO) {
			model_pod_free_fields(&m->pods[i]);
			continue;
		}
		m->pods[out++] = m->pods[i];
	}
	m->npods = out;
	forget_maybes(p);
}

static int keep_pod_on_node(struct model *m, const struct k8s_pod *pod, const struct scheme *sc,
			    const struct scheme_pod *sp, const char *node)
{
	struct model_private *p = m->priv;
	enum model_keep k;

	if (!m->opts.keep_pod_if)
		return keep_pod(m, pod, sc, sp, node);
	k = m->opts.keep_pod_if(m->opts.keep_pod_ud, pod->namespace, pod->name);
	if (k != MODEL_KEEP_MAYBE && p->nmaybe)
		drop_maybes(m);
	if (k == MODEL_KEEP_NO)
		return 0;
	if (k == MODEL_KEEP_MAYBE) {
		size_t *t = kube_array_grow(p->maybe, &p->maybe_cap, p->nmaybe + 1, sizeof(*t), 64);

		if (!t)
			return -1;
		p->maybe = t;
		p->maybe[p->nmaybe++] = m->npods;
	}
	return keep_pod(m, pod, sc, sp, node);
}

/* The claims' device names, exchanged for the model's own copies: the
 * model keeps them after the pod is gone, each name once. */
static int keep_device_names(struct model_private *p, struct scheme_pod *sp)
{
	for (size_t i = 0; i < sp->nclaims; i++) {
		const char *id = sp->claims[i].device_id;
		long k = id ? model_names_add(&p->device_names, id, strlen(id)) : 0;

		if (k < 0)
			return -1;
		if (id)
			sp->claims[i].device_id = p->device_names.v[k];
	}
	return 0;
}

int model_add_pod(struct model *m, struct k8s_pod *pod, struct kerr *err)
{
	struct model_private *p = m->priv;
	struct scheme_pod sp;
	const struct scheme *sc = NULL;
	const char *node;
	int rc;

	if (!pod)
		return 0;
	/* as the original: every pod except the finished ones holds its share */
	if (pod->phase && (strcmp(pod->phase, "Succeeded") == 0 || strcmp(pod->phase, "Failed") == 0))
		return 0;
	if (pod->node_name && !name_selected(m, pod->node_name))
		return 0;
	rc = scheme_detect_pod(m->opts.scheme, pod, &sp, &p->pod_warnings, &sc);
	if (rc < 0)
		return oom(err);
	if (!sc)
		return 0;
	if (keep_device_names(p, &sp) < 0)
		goto fail;
	node = sp.node ? sp.node : pod->node_name;
	if (!node) {
		if (m->opts.pod_namespace &&
		    !(pod->namespace && strcmp(m->opts.pod_namespace, pod->namespace) == 0)) {
			scheme_pod_release(&sp);
			return 0;
		}
		rc = keep_pod(m, pod, sc, &sp, NULL);
		scheme_pod_release(&sp);
		return rc < 0 ? oom(err) : 0;
	}
	struct node_acc *a = acc_get(p, node);

	if (!a)
		goto fail;
	for (size_t i = 0; i < sp.nclaims; i++) {
		bool first = true;

		for (size_t j = 0; j < i; j++)
			if (same_gpu(&sp.claims[j], &sp.claims[i]))
				first = false;
		if (sp.claims[i].gpu < 0 && sp.claims[i].device_id) {
			if (add_dev_claim(a, &sp.claims[i], first) < 0)
				goto fail;
		} else if (model_fold_claim(a, sp.claims[i].gpu, sp.claims[i].mem, sp.claims[i].core, first) < 0)
			goto fail;
	}
	a->mem += sp.mem;
	a->core += sp.core;
	a->npods++;
	if (m->opts.keep_pods && (!m->opts.pod_namespace || (pod->namespace &&
							      strcmp(m->opts.pod_namespace, pod->namespace) == 0)) &&
	    keep_pod_on_node(m, pod, sc, &sp, node) < 0)
		goto fail;
	scheme_pod_release(&sp);
	return 0;
fail:
	scheme_pod_release(&sp);
	return oom(err);
}

void model_release(struct model *m)
{
	struct model_private *p;

	if (!m)
		return;
	p = m->priv;
	model_reset_nodes(m);
	model_reset_pods(m);
	free(m->unscheduled);
	warnings_release(&m->warnings);
	warnings_release(&m->usage.findings);
	if (p) {
		for (size_t i = 0; i < p->naccs; i++)
			acc_clear_pods(&p->accs[i]);
		free(p->accs);
		model_names_release(&p->acc_names);
		model_names_release(&p->device_names);
		if (p->filters_built) {
			decode_filter_release(&p->node_filter);
			decode_filter_release(&p->pod_filter);
		}
		free(p);
	}
	memset(m, 0, sizeof(*m));
}

static int build_filters(struct model_private *p)
{
	struct decode_filter acc_n = {0}, acc_p = {0}, tmp;

	if (decode_filter_union(&acc_n, &p->model_node_fields, &scheme_card_fields) < 0)
		return -1;
	if (decode_filter_union(&acc_p, &p->model_pod_fields, &(struct decode_filter){0}) < 0) {
		decode_filter_release(&acc_n);
		return -1;
	}
	for (size_t i = 0; schemes[i]; i++) {
		if (decode_filter_union(&tmp, &acc_n, &schemes[i]->node_fields) < 0)
			goto fail;
		decode_filter_release(&acc_n);
		acc_n = tmp;
		if (decode_filter_union(&tmp, &acc_p, &schemes[i]->pod_fields) < 0)
			goto fail;
		decode_filter_release(&acc_p);
		acc_p = tmp;
	}
	p->node_filter = acc_n;
	p->pod_filter = acc_p;
	/* tolerations and nodeSelector, for the reason a pod is pending */
	p->pod_filter.scheduling = p->model_node_fields.scheduling;
	p->filters_built = true;
	return 0;
fail:
	decode_filter_release(&acc_n);
	decode_filter_release(&acc_p);
	return -1;
}

const struct decode_filter *model_node_filter(const struct model *m)
{
	struct model_private *p = m->priv;

	if (!p->filters_built && build_filters(p) < 0)
		return NULL;
	return &p->node_filter;
}

const struct decode_filter *model_pod_filter(const struct model *m)
{
	struct model_private *p = m->priv;

	if (!p->filters_built && build_filters(p) < 0)
		return NULL;
	return &p->pod_filter;
}

const struct model_node *model_find_node(const struct model *m, const char *name)
{
	size_t lo = 0, hi = m->nnodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(m->nodes[mid].name, name);

		if (c == 0)
			return &m->nodes[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
