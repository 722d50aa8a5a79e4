/* The allocation model: a hash of per-node accumulators keyed by node name,
 * filled in whatever order nodes and pods arrive, joined once at the end. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_POOL_LABEL "alibabacloud.com/nodepool-id"
/* GPU indexes a pod may name before its node arrives; a larger index is
 * folded into one "beyond" sum, so annotations cannot make us allocate. */
#define MAX_GPU_SLOTS 4096

struct node_acc {
	char *name;
	bool have_node; /* model_add_node saw it */
	bool shares;	/* ...and a scheme accepted it */
	size_t node;	/* index into m->nodes when shares */
	int64_t *gpu_mem, *gpu_core;
	size_t *gpu_pods;
	size_t nslots;
	int64_t beyond_mem, beyond_core; /* GPU index >= MAX_GPU_SLOTS */
	size_t beyond_pods;
	int64_t pending_mem, pending_core;
	size_t pending_pods;
	int64_t mem, core;
	size_t npods;
	/* claims naming a device (UUID) instead of an index: the node's GPU
	 * list, which may arrive later, maps them in join_node() */
	struct dev_claim *devs;
	size_t ndevs, devs_cap;
};

struct dev_claim {
	const char *id; /* interned by the scheme decoders: outlives the pod */
	int64_t mem, core;
	bool first_on_gpu;
};

struct model_private {
	struct node_acc *accs;
	size_t naccs, accs_cap;
	size_t *table; /* open addressing; entries are acc index + 1, 0 = empty */
	size_t table_size;
	size_t nodes_cap, pods_cap;
	struct warnings node_warnings, pod_warnings;
	struct decode_filter node_filter, pod_filter;
	bool filters_built;
	const char *pool_label;
	const char *model_node_labels[6];
	struct decode_filter model_node_fields;
	bool finished;
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static bool table_grow(struct model_private *p)
{
	size_t nsize = p->table_size ? p->table_size * 2 : 64;
	size_t *nt = calloc(nsize, sizeof(*nt));

	if (!nt)
		return false;
	for (size_t i = 0; i < p->naccs; i++) {
		size_t j = hash_name(p->accs[i].name) & (nsize - 1);

		while (nt[j])
			j = (j + 1) & (nsize - 1);
		nt[j] = i + 1;
	}
	free(p->table);
	p->table = nt;
	p->table_size = nsize;
	return true;
}

static struct node_acc *acc_find(struct model_private *p, const char *name)
{
	if (!p->table_size)
		return NULL;
	for (size_t j = hash_name(name) & (p->table_size - 1); p->table[j]; j = (j + 1) & (p->table_size - 1))
		if (strcmp(p->accs[p->table[j] - 1].name, name) == 0)
			return &p->accs[p->table[j] - 1];
	return NULL;
}

static struct node_acc *acc_get(struct model_private *p, const char *name)
{
	struct node_acc *a = acc_find(p, name);
	size_t j;

	if (a)
		return a;
	if ((p->naccs + 1) * 2 > p->table_size && !table_grow(p))
		return NULL;
	if (p->naccs == p->accs_cap) {
		size_t ncap = p->accs_cap ? p->accs_cap * 2 : 16;
		struct node_acc *na = realloc(p->accs, ncap * sizeof(*na));

		if (!na)
			return NULL;
		p->accs = na;
		p->accs_cap = ncap;
	}
	a = &p->accs[p->naccs];
	memset(a, 0, sizeof(*a));
	if (!(a->name = strdup(name)))
		return NULL;
	for (j = hash_name(name) & (p->table_size - 1); p->table[j]; j = (j + 1) & (p->table_size - 1))
		;
	p->table[j] = ++p->naccs;
	return a;
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
	p->pool_label = m->opts.pool_label ? m->opts.pool_label : DEFAULT_POOL_LABEL;
	p->model_node_labels[0] = p->pool_label;
	p->model_node_labels[1] = "aliyun.accelerator/*";
	p->model_node_labels[2] = "nvidia.com/gpu.memory";
	p->model_node_labels[3] = "nvidia.com/gpu.product";
	p->model_node_labels[4] = NULL;
	p->model_node_fields.label_keys = p->model_node_labels;
	m->priv = p;
	return 0;
}

static void pod_free_fields(struct model_pod *mp)
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
	memset(mp, 0, sizeof(*mp));
}

static void node_free_fields(struct model_node *n)
{
	free(n->name);
	free(n->ip);
	scheme_node_release(&n->info);
	if (n->gpus)
		for (int i = 0; i < n->ngpus; i++) {
			free(n->gpus[i].id);
			free(n->gpus[i].type);
		}
	free(n->gpus);
	free(n->pool);
	free(n->gpu_model);
	kvlist_release(&n->labels);
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

void model_reset_pods(struct model *m)
{
	struct model_private *p = m->priv;

	for (size_t i = 0; i < m->npods; i++)
		pod_free_fields(&m->pods[i]);
	free(m->pods);
	m->pods = NULL;
	m->npods = 0;
	if (!p)
		return;
	p->pods_cap = 0;
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
	struct model_node *n;
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
	for (size_t i = 0; schemes[i]; i++) {
		if (m->opts.scheme && strcmp(m->opts.scheme, schemes[i]->name) != 0)
			continue;
		rc = schemes[i]->node_decode(node, &info, &p->node_warnings);
		if (rc < 0)
			return oom(err);
		if (rc > 0) {
			sc = schemes[i];
			break;
		}
	}
	if (!sc)
		return 0;
	if (m->nnodes == p->nodes_cap) {
		size_t ncap = p->nodes_cap ? p->nodes_cap * 2 : 16;
		struct model_node *nn = realloc(m->nodes, ncap * sizeof(*nn));

		if (!nn) {
			scheme_node_release(&info);
			return oom(err);
		}
		m->nodes = nn;
		p->nodes_cap = ncap;
	}
	n = &m->nodes[m->nnodes];
	memset(n, 0, sizeof(*n));
	n->info = info;
	n->scheme = sc;
	n->unit = info.unit;
	n->name = strdup(node->name);
	n->ip = strdup(node->internal_ip ? node->internal_ip : "unknown");
	v = kvlist_get(&node->labels, p->pool_label);
	n->pool = xstrdup(v);
	v = kvlist_get(&node->labels, "aliyun.accelerator/nvidia_name");
	if (!v)
		v = kvlist_get(&node->labels, "nvidia.com/gpu.product");
	n->gpu_model = xstrdup(v);
	v = kvlist_get(&node->labels, "aliyun.accelerator/nvidia_mem");
	if (!v || memory_label_mib(v, &n->card_mem_mib) < 0) {
		n->card_mem_mib = 0;
		v = kvlist_get(&node->labels, "nvidia.com/gpu.memory");
		if (v && memory_label_mib(v, &n->card_mem_mib) < 0)
			n->card_mem_mib = 0;
	}
	m->nnodes++;
	a->shares = true;
	a->node = m->nnodes - 1;
	if (!n->name || !n->ip || copy_labels(&n->labels, &node->labels) < 0)
		return oom(err);
	return 0;
}

static int fold_claim(struct node_acc *a, int gpu, int64_t mem, int64_t core, bool first_on_gpu)
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

static bool same_device(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

static bool same_gpu(const struct scheme_claim *x, const struct scheme_claim *y)
{
	return x->gpu == y->gpu && same_device(x->device_id, y->device_id);
}

static int add_dev_claim(struct node_acc *a, const struct scheme_claim *c, bool first)
{
	if (a->ndevs == a->devs_cap) {
		size_t ncap = a->devs_cap ? a->devs_cap * 2 : 8;
		struct dev_claim *nd = realloc(a->devs, ncap * sizeof(*nd));

		if (!nd)
			return -1;
		a->devs = nd;
		a->devs_cap = ncap;
	}
	a->devs[a->ndevs++] = (struct dev_claim){c->device_id, c->mem, c->core, first};
	return 0;
}

/* The index of the GPU a scheme names by device id, or -1. */
static int gpu_by_id(const struct scheme_node *info, const char *id)
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
			if (g[j].gpu == sp->claims[i].gpu && same_device(g[j].device_id, sp->claims[i].device_id))
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

static int keep_pod(struct model *m, const struct k8s_pod *pod, const struct scheme *sc,
		    const struct scheme_pod *sp, const char *node)
{
	struct model_private *p = m->priv;
	struct model_pod *mp;

	if (m->npods == p->pods_cap) {
		size_t ncap = p->pods_cap ? p->pods_cap * 2 : 16;
		struct model_pod *np = realloc(m->pods, ncap * sizeof(*np));

		if (!np)
			return -1;
		m->pods = np;
		p->pods_cap = ncap;
	}
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
	for (size_t i = 0; schemes[i]; i++) {
		if (m->opts.scheme && strcmp(m->opts.scheme, schemes[i]->name) != 0)
			continue;
		rc = schemes[i]->pod_decode(pod, &sp, &p->pod_warnings);
		if (rc < 0)
			return oom(err);
		if (rc > 0) {
			sc = schemes[i];
			break;
		}
	}
	if (!sc)
		return 0;
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
		} else if (fold_claim(a, sp.claims[i].gpu, sp.claims[i].mem, sp.claims[i].core, first) < 0)
			goto fail;
	}
	a->mem += sp.mem;
	a->core += sp.core;
	a->npods++;
	if (m->opts.keep_pods && (!m->opts.pod_namespace || (pod->namespace &&
							      strcmp(m->opts.pod_namespace, pod->namespace) == 0)) &&
	    keep_pod(m, pod, sc, &sp, node) < 0)
		goto fail;
	scheme_pod_release(&sp);
	return 0;
fail:
	scheme_pod_release(&sp);
	return oom(err);
}

static int64_t convert(int64_t v, enum mem_unit from, enum mem_unit to)
{
	if (from == UNIT_GIB && to == UNIT_MIB)
		return v * 1024;
	if (from == UNIT_MIB && to == UNIT_GIB)
		return v / 1024;
	return v;
}

static const char *unit_name(enum mem_unit u)
{
	return u == UNIT_GIB ? "GiB" : u == UNIT_MIB ? "MiB" : "slots";
}

static int cmp_nodes(const void *a, const void *b)
{
	return strcmp(((const struct model_node *)a)->name, ((const struct model_node *)b)->name);
}

static int cmp_pod_values(const struct model_pod *x, const struct model_pod *y)
{
	int c = strcmp(x->namespace, y->namespace);

	return c ? c : strcmp(x->name, y->name);
}

static int cmp_pods(const void *a, const void *b)
{
	return cmp_pod_values(a, b);
}

struct sortable_warning {
	struct warning w;
	size_t seq;
};

static int cmp_warnings(const void *a, const void *b)
{
	const struct sortable_warning *x = a, *y = b;
	int c;

	if (!x->w.object != !y->w.object)
		return x->w.object ? 1 : -1;
	if (x->w.object && (c = strcmp(x->w.object, y->w.object)))
		return c;
	if ((c = strcmp(x->w.code, y->w.code)))
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool same_warning(const struct warning *x, const struct warning *y)
{
	return strcmp(x->code, y->code) == 0 && same_device(x->object, y->object) &&
	       strcmp(x->message, y->message) == 0;
}

/* Warnings in a stable order, whatever order the objects came in, each once
 * (an object read twice, a list that started over, says the same again). */
static int sort_warnings(struct warnings *w)
{
	struct sortable_warning *s;
	size_t n = 0;

	if (w->len < 2)
		return 0;
	s = calloc(w->len, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < w->len; i++)
		s[i] = (struct sortable_warning){w->items[i], i};
	qsort(s, w->len, sizeof(*s), cmp_warnings);
	for (size_t i = 0; i < w->len; i++) {
		if (n > 0 && same_warning(&w->items[n - 1], &s[i].w)) {
			free(s[i].w.code);
			free(s[i].w.object);
			free(s[i].w.message);
			continue;
		}
		w->items[n++] = s[i].w;
	}
	w->len = n;
	free(s);
	return 0;
}

static void append_warnings(struct warnings *dst, const struct warnings *src)
{
	for (size_t i = 0; i < src->len; i++)
		warnings_add(dst, src->items[i].code, src->items[i].object, "%s", src->items[i].message);
}

static int join_node(struct model *m, struct model_node *n, struct node_acc *a)
{
	enum mem_unit from = n->info.unit, to = n->unit;
	int64_t beyond_mem = a->beyond_mem, beyond_core = a->beyond_core;
	char *obj;

	if (asprintf(&obj, "node/%s", n->name) < 0)
		return -1;
	n->ngpus = n->info.ngpus > 0 ? n->info.ngpus : 0;
	if (n->ngpus && !(n->gpus = calloc((size_t)n->ngpus, sizeof(*n->gpus)))) {
		free(obj);
		return -1;
	}
	for (size_t i = 0; i < a->ndevs; i++) {
		int gi = gpu_by_id(&n->info, a->devs[i].id);

		if (gi < 0)
			warnings_add(&m->warnings, "UnknownDevice", obj,
				     "node %s: a pod holds %lld %s on device %s, which the node does not list",
				     n->name, (long long)convert(a->devs[i].mem, from, to), unit_name(to),
				     a->devs[i].id);
		if (fold_claim(a, gi, a->devs[i].mem, a->devs[i].core, a->devs[i].first_on_gpu) < 0) {
			free(obj);
			return -1;
		}
	}
	for (int i = 0; i < n->ngpus; i++) {
		struct model_gpu *g = &n->gpus[i];
		const struct scheme_gpu *sg = n->info.gpus ? &n->info.gpus[i] : NULL;

		g->index = i;
		if (sg) {
			g->index = sg->index;
			g->id = xstrdup(sg->id);
			g->type = xstrdup(sg->type);
			if ((sg->id && !g->id) || (sg->type && !g->type)) {
				free(obj);
				return -1;
			}
			g->mem_total = convert(sg->mem_total, from, to);
			g->core_total = sg->core_total;
			g->slots = sg->slots;
			g->unhealthy = sg->unhealthy;
			g->cordoned = sg->cordoned;
		}
		if ((size_t)i < a->nslots) {
			g->mem_allocated = convert(a->gpu_mem[i], from, to);
			g->core_allocated = a->gpu_core[i];
			g->npods = a->gpu_pods[i];
			n->mem_allocated += g->mem_allocated;
			n->core_allocated += g->core_allocated;
		}
		if (g->npods && g->unhealthy)
			warnings_add(&m->warnings, "AllocatedOnUnhealthy", obj,
				     "node %s: %zu pod(s) hold GPU%d, which is unhealthy", n->name, g->npods, g->index);
		if (g->npods && g->cordoned)
			warnings_add(&m->warnings, "AllocatedOnCordoned", obj,
				     "node %s: %zu pod(s) hold GPU%d, which is cordoned (no new pods)", n->name,
				     g->npods, g->index);
		if (g->slots > 0 && g->npods > (size_t)g->slots)
			warnings_add(&m->warnings, "TooManyVGPUs", obj,
				     "node %s: %zu pods share GPU%d, which offers %lld vGPU slots", n->name, g->npods,
				     g->index, (long long)g->slots);
		if (g->mem_total > 0 && g->mem_allocated > g->mem_total)
			warnings_add(&m->warnings, "OverAllocated", obj,
				     "node %s: GPU%d has %lld/%lld %s allocated, more than it offers", n->name, i,
				     (long long)g->mem_allocated, (long long)g->mem_total, unit_name(to));
	}
	for (size_t i = (size_t)n->ngpus; i < a->nslots; i++) {
		if (!a->gpu_pods[i])
			continue;
		beyond_mem += a->gpu_mem[i];
		beyond_core += a->gpu_core[i];
		warnings_add(&m->warnings, "IndexBeyondCount", obj,
			     "node %s: %zu pod(s) hold %lld %s on GPU%zu, but the node has %d GPU(s)", n->name,
			     a->gpu_pods[i], (long long)convert(a->gpu_mem[i], from, to), unit_name(to), i,
			     n->ngpus);
	}
	if (a->beyond_pods)
		warnings_add(&m->warnings, "IndexBeyondCount", obj,
			     "node %s: %zu pod(s) name a GPU index beyond %d", n->name, a->beyond_pods,
			     MAX_GPU_SLOTS - 1);
	n->mem_allocated += convert(beyond_mem, from, to);
	n->core_allocated += beyond_core;
	n->mem_pending = convert(a->pending_mem, from, to);
	n->mem_allocated += n->mem_pending;
	n->core_allocated += a->pending_core;
	if (!n->info.per_gpu) {
		/* no placement is visible: what the node's pods hold, per node */
		n->mem_allocated = convert(a->mem, from, to);
		n->core_allocated = a->core;
		n->mem_pending = 0;
	}
	n->mem_total = convert(n->info.mem_total, from, to);
	n->mem_unhealthy = convert(n->info.mem_capacity - n->info.mem_total, from, to);
	if (n->mem_unhealthy < 0)
		n->mem_unhealthy = 0;
	n->core_total = n->info.core_total;
	if (a->npods && n->info.mode && strcmp(n->info.mode, "default") == 0)
		warnings_add(&m->warnings, "ModeMismatch", obj,
			     "node %s: %zu pod(s) hold GPU memory but the node's mode is default (exclusive GPUs)",
			     n->name, a->npods);
	free(obj);
	return 0;
}

/* The unit a pod on no node counts in: the one the nodes of its scheme use
 * (GiB when they disagree, the ACK default), else the scheme's own (whole
 * GPUs count slots; cGPU, GiB; the others, MiB). */
static enum mem_unit scheme_unit(const struct model *m, const struct scheme *sc)
{
	bool gib = false, mib = false, slots = false;

	for (size_t i = 0; i < m->nnodes; i++) {
		if (m->nodes[i].scheme != sc)
			continue;
		gib |= m->nodes[i].info.unit == UNIT_GIB;
		mib |= m->nodes[i].info.unit == UNIT_MIB;
		slots |= m->nodes[i].info.unit == UNIT_SLOTS;
	}
	if (gib || mib)
		return mib && !gib ? UNIT_MIB : UNIT_GIB;
	if (slots || (sc && strcmp(sc->name, "nvidia") == 0))
		return UNIT_SLOTS;
	return !sc || strcmp(sc->name, "cgpu") == 0 ? UNIT_GIB : UNIT_MIB;
}

static void add_node_totals(struct model_totals *t, const struct model_node *n, const struct node_acc *a)
{
	t->mem_total += convert(n->mem_total, n->unit, t->unit);
	t->mem_allocated += convert(n->mem_allocated, n->unit, t->unit);
	t->mem_pending += convert(n->mem_pending, n->unit, t->unit);
	t->mem_unhealthy += convert(n->mem_unhealthy, n->unit, t->unit);
	t->core_total += n->core_total;
	t->core_allocated += n->core_allocated;
	t->gpus += (size_t)n->ngpus;
	t->pods += a->npods;
	t->nodes++;
}

int model_finish(struct model *m, struct kerr *err)
{
	struct model_private *p = m->priv;
	bool have_gib = false, have_mib = false, have_slots = false;
	enum mem_unit natural, from, to;
	size_t kept;

	if (p->finished)
		return kerr_set(err, KERR_OTHER, "model finished twice");
	p->finished = true;

	/* each node keeps the unit it counts in (or the one forced); the cluster
	 * totals take the unit every memory node agrees on, MiB where GiB and MiB
	 * meet.  The tables print one block per unit rather than convert. */
	for (size_t i = 0; i < m->nnodes; i++) {
		have_gib |= m->nodes[i].info.unit == UNIT_GIB;
		have_mib |= m->nodes[i].info.unit == UNIT_MIB;
		have_slots |= m->nodes[i].info.unit == UNIT_SLOTS;
	}
	natural = have_mib && !have_gib ? UNIT_MIB : UNIT_GIB;
	m->totals.unit = have_gib && have_mib ? UNIT_MIB : natural;
	if (m->opts.force_unit == UNIT_GIB || m->opts.force_unit == UNIT_MIB) {
		m->totals.unit = (enum mem_unit)m->opts.force_unit;
		for (size_t i = 0; i < m->nnodes; i++)
			if (m->nodes[i].info.unit != UNIT_SLOTS)
				m->nodes[i].unit = m->totals.unit;
		m->totals.mixed_units = (have_gib || have_mib) && have_slots;
	} else {
		m->totals.mixed_units = have_gib + have_mib + have_slots > 1;
	}
	for (int u = 0; u <= UNIT_SLOTS; u++)
		m->units[u].totals.unit = (enum mem_unit)u;

	if (m->nnodes > 1)
		qsort(m->nodes, m->nnodes, sizeof(*m->nodes), cmp_nodes);
	for (size_t i = 0; i < m->nnodes; i++) {
		struct node_acc *a = acc_find(p, m->nodes[i].name);

		a->node = i;
		if (join_node(m, &m->nodes[i], a) < 0)
			return oom(err);
	}
	for (size_t i = 0; i < p->naccs; i++) {
		struct node_acc *a = &p->accs[i];
		char *obj;

		if (!a->have_node || a->shares || !a->npods)
			continue;
		if (asprintf(&obj, "node/%s", a->name) < 0)
			return oom(err);
		warnings_add(&m->warnings, "ModeMismatch", obj,
			     "node %s: %zu pod(s) hold GPU memory, but the node no longer offers shared GPU memory",
			     a->name, a->npods);
		free(obj);
	}

	/* pods: keep those on shown nodes, plus the unscheduled ones */
	kept = 0;
	for (size_t i = 0; i < m->npods; i++) {
		struct model_pod *mp = &m->pods[i];
		struct node_acc *a = mp->node ? acc_find(p, mp->node) : NULL;

		if (mp->node && !(a && a->shares)) {
			pod_free_fields(mp);
			continue;
		}
		if (a) {
			from = m->nodes[a->node].info.unit;
			to = m->nodes[a->node].unit;
		} else {
			from = to = scheme_unit(m, mp->scheme);
			if (from != UNIT_SLOTS && (m->opts.force_unit == UNIT_GIB || m->opts.force_unit == UNIT_MIB))
				to = (enum mem_unit)m->opts.force_unit;
		}
		mp->unit = to;
		for (size_t g = 0; a && g < mp->ngpus; g++)
			if (mp->gpus[g].gpu < 0 && mp->gpus[g].device_id)
				mp->gpus[g].gpu = gpu_by_id(&m->nodes[a->node].info, mp->gpus[g].device_id);
		mp->mem = convert(mp->mem, from, to);
		for (size_t g = 0; g < mp->ngpus; g++)
			mp->gpus[g].mem = convert(mp->gpus[g].mem, from, to);
		for (size_t c = 0; c < mp->ncontainers; c++)
			mp->container_mem[c] = convert(mp->container_mem[c], from, to);
		if (kept != i)
			m->pods[kept] = *mp;
		kept++;
	}
	m->npods = kept;
	if (m->npods > 1)
		qsort(m->pods, m->npods, sizeof(*m->pods), cmp_pods);

	for (size_t i = 0; i < m->npods; i++) {
		struct model_pod *mp = &m->pods[i];
		struct model_node *n;
		size_t *np;

		if (!mp->node) {
			struct model_totals *ut = &m->units[mp->unit].totals;

			np = realloc(m->unscheduled, (m->nunscheduled + 1) * sizeof(*np));
			if (!np)
				return oom(err);
			m->unscheduled = np;
			m->unscheduled[m->nunscheduled++] = i;
			if (mp->unit != UNIT_SLOTS)
				m->totals.mem_pending += convert(mp->mem, mp->unit, m->totals.unit);
			ut->mem_pending += mp->mem;
			ut->unscheduled++;
			continue;
		}
		n = &m->nodes[acc_find(p, mp->node)->node];
		np = realloc(n->pods, (n->npods + 1) * sizeof(*np));
		if (!np)
			return oom(err);
		n->pods = np;
		n->pods[n->npods++] = i;
		if (mp->core) {
			m->any_core = true;
			m->units[n->unit].any_core = true;
		}
	}

	for (size_t i = 0; i < m->nnodes; i++) {
		struct model_node *n = &m->nodes[i];
		const struct node_acc *a = acc_find(p, n->name);
		struct model_unit_group *ug = &m->units[n->unit];

		add_node_totals(&ug->totals, n, a);
		if (n->unit != UNIT_SLOTS) {
			add_node_totals(&m->totals, n, a);
		} else {
			/* slots are not memory: they stay out of the memory totals */
			struct model_totals t = {.unit = UNIT_SLOTS};

			add_node_totals(&t, n, a);
			m->totals.core_total += t.core_total;
			m->totals.core_allocated += t.core_allocated;
			m->totals.gpus += t.gpus;
			m->totals.pods += t.pods;
		}
		if (a->pending_pods)
			m->any_pending = ug->any_pending = true;
		if (n->core_total > 0 || n->core_allocated > 0)
			m->any_core = ug->any_core = true;
		if (n->ngpus > m->max_gpus)
			m->max_gpus = n->ngpus;
		/* a unit's table has per-GPU columns only for nodes that publish the split */
		if (n->info.per_gpu && n->ngpus > ug->max_gpus)
			ug->max_gpus = n->ngpus;
	}
	m->totals.nodes = m->nnodes;
	m->totals.unscheduled = m->nunscheduled;

	append_warnings(&m->warnings, &p->node_warnings);
	append_warnings(&m->warnings, &p->pod_warnings);
	if (sort_warnings(&m->warnings) < 0)
		return oom(err);
	return 0;
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
		for (size_t i = 0; i < p->naccs; i++) {
			acc_clear_pods(&p->accs[i]);
			free(p->accs[i].name);
		}
		free(p->accs);
		free(p->table);
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

	if (decode_filter_union(&acc_n, &p->model_node_fields, &(struct decode_filter){0}) < 0)
		return -1;
	if (decode_filter_union(&acc_p, &(struct decode_filter){0}, &(struct decode_filter){0}) < 0) {
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
