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

struct node_acc *model_acc_get(struct model_private *p, const char *name)
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
	free(a->sizes);
	a->sizes = NULL;
	a->nsizes = a->sizes_cap = 0;
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
	/* defrag: budgets select pods by any label; a mirror pod says so */
	p->model_pod_annotations[0] = MODEL_MIRROR_ANNOTATION;
	if (m->opts.movable) {
		p->model_pod_fields.all_labels = true;
		p->model_pod_fields.annotation_keys = p->model_pod_annotations;
	}
	/* a nodeSelector or node affinity may name any label */
	p->model_node_fields.all_labels = m->opts.scheduling;
	p->model_node_fields.scheduling = m->opts.scheduling;
	m->priv = p;
	return 0;
}

void model_node_free_fields(struct model_node *n)
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
		model_node_free_fields(&m->nodes[i]);
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
		model_pod_release(m, &m->pods[i]);
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

int model_read_node(struct model *m, const struct k8s_node *node, struct model_node *n, struct warnings *w)
{
	struct model_private *p = m->priv;
	const struct scheme *sc = NULL;

	memset(n, 0, sizeof(*n));
	if (scheme_detect_node(m->opts.scheme, m->opts.objects, node, &n->info, w, &sc) < 0)
		return -1;
	if (!sc)
		return 0;
	n->scheme = sc;
	n->unit = n->info.unit;
	n->name = strdup(node->name);
	n->ip = strdup(node->internal_ip ? node->internal_ip : "unknown");
	n->pool = xstrdup(kvlist_get(&node->labels, p->pool_label));
	n->gpu_model = n->info.card_model;
	n->card_mem_mib = n->info.card_mem_mib;
	n->ready = node->ready;
	n->unschedulable = node->unschedulable;
	if (!n->name || !n->ip || (kvlist_get(&node->labels, p->pool_label) && !n->pool) ||
	    model_copy_labels(&n->labels, &node->labels) < 0 ||
	    k8s_taints_copy(&n->taints, &n->ntaints, node->taints, node->ntaints) < 0) {
		model_node_free_fields(n);
		return -1;
	}
	return 1;
}

bool model_node_selected(const struct model *m, const char *name)
{
	return name_selected(m, name);
}

int model_add_node(struct model *m, struct k8s_node *node, struct kerr *err)
{
	struct model_private *p = m->priv;
	struct node_acc *a;
	struct model_node n, *nn;
	int rc;

	if (!node || !node->name || !name_selected(m, node->name))
		return 0;
	a = model_acc_get(p, node->name);
	if (!a)
		return oom(err);
	if (a->have_node && a->shares) {
		/* the same node again (a list restarted): keep the newer copy */
		model_node_free_fields(&m->nodes[a->node]);
		memmove(&m->nodes[a->node], &m->nodes[a->node + 1], (m->nnodes - a->node - 1) * sizeof(*m->nodes));
		m->nnodes--;
		for (size_t i = 0; i < p->naccs; i++)
			if (p->accs[i].shares && p->accs[i].node > a->node)
				p->accs[i].node--;
	}
	a->have_node = true;
	a->shares = false;
	rc = model_read_node(m, node, &n, &p->node_warnings);
	if (rc <= 0)
		return rc < 0 ? oom(err) : 0;
	nn = kube_array_grow(m->nodes, &p->nodes_cap, m->nnodes + 1, sizeof(*nn), 16);
	if (!nn) {
		model_node_free_fields(&n);
		return oom(err);
	}
	m->nodes = nn;
	m->nodes[m->nnodes++] = n;
	a->shares = true;
	a->node = m->nnodes - 1;
	return 0;
}

int model_fold_claim(struct node_acc *a, int gpu, int64_t mem, int64_t core, int pods)
{
	if (gpu < 0) {
		a->pending_mem += mem;
		a->pending_core += core;
		a->pending_pods += (size_t)pods;
	} else if (gpu >= MAX_GPU_SLOTS) {
		a->beyond_mem += mem;
		a->beyond_core += core;
		a->beyond_pods += (size_t)pods;
	} else {
		if (!acc_slots(a, (size_t)gpu + 1))
			return -1;
		a->gpu_mem[gpu] += mem;
		a->gpu_core[gpu] += core;
		a->gpu_pods[gpu] += (size_t)pods;
	}
	return 0;
}

static int add_dev_claim(struct node_acc *a, const struct model_pod_gpu *g)
{
	struct dev_claim *nd;

	nd = kube_array_grow(a->devs, &a->devs_cap, a->ndevs + 1, sizeof(*nd), 8);
	if (!nd)
		return -1;
	a->devs = nd;
	a->devs[a->ndevs++] = (struct dev_claim){g->device_id, g->mem, g->core};
	return 0;
}

/* One claim of the same device and figures, taken out again (a pod that
 * changed or went); the order of the others does not matter. */
static void drop_dev_claim(struct node_acc *a, const struct model_pod_gpu *g)
{
	for (size_t i = 0; i < a->ndevs; i++) {
		if (a->devs[i].id == g->device_id && a->devs[i].mem == g->mem && a->devs[i].core == g->core) {
			a->devs[i] = a->devs[--a->ndevs];
			return;
		}
	}
}

/* The index of the GPU a scheme names by device id, or -1. */
int model_gpu_by_id(const struct scheme_node *info, const char *id)
{
	for (int i = 0; info->gpus && i < info->ngpus; i++)
		if (info->gpus[i].id && strcmp(info->gpus[i].id, id) == 0)
			return info->gpus[i].index;
	return -1;
}

/* What one pod asks of each GPU it holds (of the node where the split is
 * not published): 0 when it holds no memory. */
static int64_t pod_size(const struct model_pod_gpu *gpus, size_t ngpus, int64_t mem)
{
	for (size_t i = 0; i < ngpus; i++)
		if (gpus[i].mem > 0)
			return gpus[i].mem;
	return ngpus ? 0 : mem;
}

static int fold_size(struct node_acc *a, int64_t size, int sign)
{
	size_t i = 0;

	if (size <= 0)
		return 0;
	while (i < a->nsizes && a->sizes[i].size != size)
		i++;
	if (i == a->nsizes) {
		struct acc_size *ns;

		if (sign < 0)
			return 0;
		ns = kube_array_grow(a->sizes, &a->sizes_cap, a->nsizes + 1, sizeof(*ns), 4);
		if (!ns)
			return -1;
		a->sizes = ns;
		a->sizes[a->nsizes++] = (struct acc_size){size, 0};
	}
	a->sizes[i].count += (size_t)sign;
	if (!a->sizes[i].count)
		a->sizes[i] = a->sizes[--a->nsizes];
	return 0;
}

int model_fold_pod(struct node_acc *a, const struct model_pod_gpu *gpus, size_t ngpus, int64_t mem, int64_t core,
		   int sign)
{
	for (size_t i = 0; i < ngpus; i++) {
		const struct model_pod_gpu *g = &gpus[i];

		if (g->gpu < 0 && g->device_id) {
			/* by device: placed on the node's GPU of that id when joined */
			if (sign < 0)
				drop_dev_claim(a, g);
			else if (add_dev_claim(a, g) < 0)
				return -1;
		} else if (model_fold_claim(a, g->gpu, sign * g->mem, sign * g->core, sign) < 0) {
			return -1;
		}
	}
	if (fold_size(a, pod_size(gpus, ngpus, mem), sign) < 0)
		return -1;
	a->mem += sign * mem;
	a->core += sign * core;
	a->npods += (size_t)sign;
	return 0;
}

static int keep_pod(struct model *m, const struct k8s_pod *pod, const struct pod_reading *r)
{
	struct model_private *p = m->priv;
	struct model_pod *np;

	np = kube_array_grow(m->pods, &p->pods_cap, m->npods + 1, sizeof(*np), 16);
	if (!np)
		return -1;
	m->pods = np;
	if (model_fill_pod(m, &m->pods[m->npods], pod, r) < 0)
		return -1;
	m->npods++;
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
			model_pod_release(m, &m->pods[i]);
			continue;
		}
		m->pods[out++] = m->pods[i];
	}
	m->npods = out;
	forget_maybes(p);
}

static int keep_pod_on_node(struct model *m, const struct k8s_pod *pod, const struct pod_reading *r)
{
	struct model_private *p = m->priv;
	enum model_keep k;

	if (!m->opts.keep_pod_if)
		return keep_pod(m, pod, r);
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
	return keep_pod(m, pod, r);
}

bool model_pod_in_namespace(const struct model *m, const struct k8s_pod *pod)
{
	return !m->opts.pod_namespace || (pod->namespace && strcmp(m->opts.pod_namespace, pod->namespace) == 0);
}

int model_add_pod(struct model *m, struct k8s_pod *pod, struct kerr *err)
{
	struct model_private *p = m->priv;
	struct pod_reading r;
	struct node_acc *a;
	int rc;

	if (!pod || (pod->node_name && !name_selected(m, pod->node_name)))
		return 0;
	rc = model_read_pod(m, pod, &r, &p->pod_warnings);
	if (rc <= 0)
		return rc < 0 ? oom(err) : 0;
	if (!r.node) {
		/* on no node: kept whatever keep_pods says, for "not scheduled yet" */
		rc = model_pod_in_namespace(m, pod) ? keep_pod(m, pod, &r) : 0;
	} else if (!(a = model_acc_get(p, r.node)) || model_fold_pod(a, r.gpus, r.ngpus, r.sp.mem, r.sp.core, 1) < 0) {
		rc = -1;
	} else if (m->opts.keep_pods && model_pod_in_namespace(m, pod)) {
		rc = keep_pod_on_node(m, pod, &r);
	}
	model_pod_reading_release(&r);
	return rc < 0 ? oom(err) : 0;
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
	free(m->waiting);
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
