/* model_finish(): the accumulators joined to their nodes, units decided,
 * pods sorted and attached, totals per unit and warnings in a stable order. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

static int oom(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "out of memory");
}

int64_t model_convert_mem(int64_t v, enum mem_unit from, enum mem_unit to)
{
	if (from == UNIT_GIB && to == UNIT_MIB)
		return v * 1024;
	if (from == UNIT_MIB && to == UNIT_GIB)
		return v / 1024;
	return v;
}

static int64_t convert(int64_t v, enum mem_unit from, enum mem_unit to)
{
	return model_convert_mem(v, from, to);
}

/* convert, remembering in the model when a part of a GiB was dropped */
static int64_t convert_m(struct model *m, int64_t v, enum mem_unit from, enum mem_unit to)
{
	if (from == UNIT_MIB && to == UNIT_GIB && v > 0 && v % 1024)
		m->rounded = true;
	return convert(v, from, to);
}

/* "1 pod holds", "2 pods hold": counts said in words, never "pod(s)" */
static const char *pods_verb(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
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
	return strcmp(x->code, y->code) == 0 && model_same_device(x->object, y->object) &&
	       strcmp(x->message, y->message) == 0;
}

int model_sort_warnings(struct warnings *w)
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

void model_append_warnings(struct warnings *dst, const struct warnings *src)
{
	for (size_t i = 0; i < src->len; i++)
		warnings_add(dst, src->items[i].code, src->items[i].object, "%s", src->items[i].message);
}

static void release_resolved(const struct node_acc *used, struct node_acc *tmp)
{
	if (used != tmp)
		return;
	free(tmp->gpu_mem);
	free(tmp->gpu_core);
	free(tmp->gpu_pods);
}

static void *dup_array(const void *p, size_t n, size_t size)
{
	void *d = n ? malloc(n * size) : NULL;

	if (d)
		memcpy(d, p, n * size);
	return d;
}

/* The node's sums with the claims that named a device rather than an index
 * folded into the GPU of that id, now that the node's GPUs are known: a
 * itself when there are none, else *tmp, a copy (freed by the caller with
 * release_resolved); the accumulator stays as the pods left it.  NULL when
 * out of memory. */
static const struct node_acc *resolve_devices(const struct model_node *n, const struct node_acc *a,
					      struct node_acc *tmp, struct warnings *w, const char *obj)
{
	if (!a->ndevs)
		return a;
	*tmp = *a;
	tmp->devs = NULL;
	tmp->ndevs = tmp->devs_cap = 0;
	tmp->gpu_mem = dup_array(a->gpu_mem, a->nslots, sizeof(*a->gpu_mem));
	tmp->gpu_core = dup_array(a->gpu_core, a->nslots, sizeof(*a->gpu_core));
	tmp->gpu_pods = dup_array(a->gpu_pods, a->nslots, sizeof(*a->gpu_pods));
	if (a->nslots && (!tmp->gpu_mem || !tmp->gpu_core || !tmp->gpu_pods))
		goto fail;
	for (size_t i = 0; i < a->ndevs; i++) {
		int gi = model_gpu_by_id(&n->info, a->devs[i].id);

		if (gi < 0)
			warnings_add(w, "UnknownDevice", obj,
				     "node %s: a pod holds %lld %s on device %s, which the node does not list", n->name,
				     (long long)convert(a->devs[i].mem, n->info.unit, n->unit), mem_unit_name(n->unit),
				     a->devs[i].id);
		if (model_fold_claim(tmp, gi, a->devs[i].mem, a->devs[i].core, 1) < 0)
			goto fail;
	}
	return tmp;
fail:
	release_resolved(tmp, tmp);
	return NULL;
}

/* The node's GPUs: what the scheme read of each and what the pods hold on
 * it, in the node's unit.  Returns the GPUs' memory in the scheme's unit. */
static int64_t join_gpus(struct model *m, struct model_node *n, const struct node_acc *a)
{
	enum mem_unit from = n->info.unit, to = n->unit;
	int64_t native = 0;

	for (int i = 0; i < n->ngpus; i++) {
		struct model_gpu *g = &n->gpus[i];
		const struct scheme_gpu *sg = n->info.gpus ? &n->info.gpus[i] : NULL;

		g->index = sg ? sg->index : i;
		if (sg) {
			*g = (struct model_gpu){.index = sg->index, .id = sg->id, .type = sg->type,
						.mem_total = convert_m(m, sg->mem_total, from, to),
						.core_total = sg->core_total, .slots = sg->slots,
						.unhealthy = sg->unhealthy, .cordoned = sg->cordoned};
			native += sg->mem_total;
		}
		if ((size_t)i < a->nslots) {
			g->mem_allocated = convert_m(m, a->gpu_mem[i], from, to);
			g->core_allocated = a->gpu_core[i];
			g->npods = a->gpu_pods[i];
			n->mem_allocated += g->mem_allocated;
			n->core_allocated += g->core_allocated;
		}
	}
	return native;
}

/* What the pods hold on GPUs that cannot take it. */
static void gpu_warnings(struct warnings *w, const struct model_node *n, const char *obj)
{
	for (int i = 0; i < n->ngpus; i++) {
		const struct model_gpu *g = &n->gpus[i];

		if (g->npods && g->unhealthy)
			warnings_add(w, "AllocatedOnUnhealthy", obj, "node %s: %zu %s GPU%d, which is unhealthy",
				     n->name, g->npods, pods_verb(g->npods, "pod holds", "pods hold"), g->index);
		if (g->npods && g->cordoned)
			warnings_add(w, "AllocatedOnCordoned", obj,
				     "node %s: %zu %s GPU%d, which is cordoned (no new pods)", n->name, g->npods,
				     pods_verb(g->npods, "pod holds", "pods hold"), g->index);
		if (g->slots > 0 && g->npods > (size_t)g->slots)
			warnings_add(w, "TooManyVGPUs", obj,
				     "node %s: %zu pods share GPU%d, which offers %lld vGPU slots", n->name, g->npods,
				     g->index, (long long)g->slots);
		if (g->mem_total > 0 && g->mem_allocated > g->mem_total)
			warnings_add(w, "OverAllocated", obj,
				     "node %s: GPU%d has %lld/%lld %s allocated, more than it offers", n->name, i,
				     (long long)g->mem_allocated, (long long)g->mem_total, mem_unit_name(n->unit));
	}
}

/* Pods that name a GPU index the node does not have: said, and added to
 * *mem and *core (in the scheme's unit). */
static void beyond_warnings(struct warnings *w, const struct model_node *n, const struct node_acc *a,
			    const char *obj, int64_t *mem, int64_t *core)
{
	for (size_t i = (size_t)n->ngpus; i < a->nslots; i++) {
		if (!a->gpu_pods[i])
			continue;
		*mem += a->gpu_mem[i];
		*core += a->gpu_core[i];
		warnings_add(w, "IndexBeyondCount", obj,
			     "node %s: %zu %s %lld %s on GPU%zu, but the node has %d GPU%s", n->name, a->gpu_pods[i],
			     pods_verb(a->gpu_pods[i], "pod holds", "pods hold"),
			     (long long)convert(a->gpu_mem[i], n->info.unit, n->unit), mem_unit_name(n->unit), i, n->ngpus,
			     n->ngpus == 1 ? "" : "s");
	}
	if (a->beyond_pods)
		warnings_add(w, "IndexBeyondCount", obj, "node %s: %zu %s a GPU index beyond %d", n->name,
			     a->beyond_pods, pods_verb(a->beyond_pods, "pod names", "pods name"), MAX_GPU_SLOTS - 1);
}

/* The node's memory and compute, from its GPUs, what no GPU accounts for
 * (held without a GPU, or beyond the node's GPUs) and the scheme's totals. */
static void node_figures(struct model *m, struct model_node *n, const struct node_acc *a, int64_t gpu_native,
			 int64_t beyond_mem, int64_t beyond_core)
{
	enum mem_unit from = n->info.unit, to = n->unit;

	n->mem_allocated += convert_m(m, beyond_mem, from, to);
	n->core_allocated += beyond_core;
	n->mem_pending = convert_m(m, a->pending_mem, from, to);
	n->mem_allocated += n->mem_pending;
	n->core_allocated += a->pending_core;
	if (!n->info.per_gpu) {
		/* no placement is visible: what the node's pods hold, per node */
		n->mem_allocated = convert_m(m, a->mem, from, to);
		n->core_allocated = a->core;
		n->mem_pending = 0;
	}
	if (n->info.per_gpu && n->info.gpus && n->ngpus && gpu_native <= n->info.mem_total) {
		/* the node is its GPUs (each rounded on its own where it is
		 * converted) plus what no GPU accounts for */
		n->mem_total = convert_m(m, n->info.mem_total - gpu_native, from, to);
		for (int i = 0; i < n->ngpus; i++)
			n->mem_total += n->gpus[i].mem_total;
	} else {
		n->mem_total = convert_m(m, n->info.mem_total, from, to);
	}
	n->mem_unhealthy = convert_m(m, n->info.mem_capacity - n->info.mem_total, from, to);
	if (n->mem_unhealthy < 0)
		n->mem_unhealthy = 0;
	n->core_total = n->info.core_total;
}

int model_join_node(struct model *m, struct model_node *n, const struct node_acc *acc, struct warnings *w)
{
	struct node_acc tmp;
	const struct node_acc *a;
	int64_t beyond_mem, beyond_core, gpu_native;
	char *obj;

	if (asprintf(&obj, "node/%s", n->name) < 0)
		return -1;
	n->ngpus = n->info.ngpus > 0 ? n->info.ngpus : 0;
	n->mem_allocated = n->core_allocated = 0;
	if ((n->ngpus && !(n->gpus = calloc((size_t)n->ngpus, sizeof(*n->gpus)))) ||
	    !(a = resolve_devices(n, acc, &tmp, w, obj))) {
		free(obj);
		return -1;
	}
	beyond_mem = a->beyond_mem;
	beyond_core = a->beyond_core;
	gpu_native = join_gpus(m, n, a);
	gpu_warnings(w, n, obj);
	beyond_warnings(w, n, a, obj, &beyond_mem, &beyond_core);
	node_figures(m, n, a, gpu_native, beyond_mem, beyond_core);
	if (a->npods && n->info.exclusive)
		warnings_add(w, "ModeMismatch", obj,
			     "node %s: %zu %s GPU memory but the node's mode is default (exclusive GPUs)", n->name,
			     a->npods, pods_verb(a->npods, "pod holds", "pods hold"));
	release_resolved(a, &tmp);
	free(obj);
	return 0;
}

int model_acc_warning(const struct node_acc *a, struct warnings *w)
{
	char *obj;

	if (!a->have_node || a->shares || !a->npods)
		return 0;
	if (asprintf(&obj, "node/%s", a->name) < 0)
		return -1;
	warnings_add(w, "ModeMismatch", obj, "node %s: %zu %s GPU memory, but the node no longer offers shared GPU memory",
		     a->name, a->npods, pods_verb(a->npods, "pod holds", "pods hold"));
	free(obj);
	return 0;
}

enum mem_unit model_scheme_unit(const struct model *m, const struct scheme *sc)
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
	if (slots)
		return UNIT_SLOTS;
	return sc ? sc->pod_unit : UNIT_GIB;
}

/* A node's figures added to a set of totals (sign 1), or taken out (-1). */
static void add_node_totals(struct model_totals *t, const struct model_node *n, int sign)
{
	t->mem_total += sign * convert(n->mem_total, n->unit, t->unit);
	t->mem_allocated += sign * convert(n->mem_allocated, n->unit, t->unit);
	t->mem_free += sign * convert(model_node_free(n), n->unit, t->unit);
	t->mem_unassigned += sign * convert(n->mem_pending, n->unit, t->unit);
	t->mem_unhealthy += sign * convert(n->mem_unhealthy, n->unit, t->unit);
	t->core_total += sign * n->core_total;
	t->core_allocated += sign * n->core_allocated;
	t->gpus += (size_t)(sign * n->ngpus);
	t->pods += (size_t)sign * n->pods_held;
	t->nodes += (size_t)sign;
}

void model_count_node(struct model *m, const struct model_node *n, int sign)
{
	add_node_totals(&m->units[n->unit].totals, n, sign);
	if (n->unit != UNIT_SLOTS) {
		add_node_totals(&m->totals, n, sign);
	} else {
		/* slots are not memory: they stay out of the memory totals */
		struct model_totals t = {.unit = UNIT_SLOTS};

		add_node_totals(&t, n, sign);
		m->totals.core_total += t.core_total;
		m->totals.core_allocated += t.core_allocated;
		m->totals.gpus += t.gpus;
		m->totals.pods += t.pods;
	}
}

void model_count_unscheduled(struct model *m, const struct model_pod *mp, int sign)
{
	struct model_totals *ut = &m->units[mp->unit].totals;

	if (mp->unit != UNIT_SLOTS)
		m->totals.mem_pending += sign * convert(mp->mem, mp->unit, m->totals.unit);
	ut->mem_pending += sign * mp->mem;
	ut->unscheduled += (size_t)sign;
}

bool model_node_pods_core(const struct model *m, const struct model_node *n)
{
	for (size_t i = 0; i < n->npods; i++)
		if (m->pods[n->pods[i]].core)
			return true;
	return false;
}

void model_node_flags(struct model *m, const struct model_node *n, const struct node_acc *a, bool pods_core)
{
	struct model_unit_group *ug = &m->units[n->unit];

	if (a->pending_pods)
		m->any_pending = ug->any_pending = true;
	if (n->core_total > 0 || n->core_allocated > 0)
		m->any_core = ug->any_core = true;
	if (n->ngpus > m->max_gpus)
		m->max_gpus = n->ngpus;
	/* a unit's table has per-GPU columns only for nodes that publish the split */
	if (n->info.per_gpu && n->ngpus > ug->max_gpus)
		ug->max_gpus = n->ngpus;
	if (pods_core)
		m->any_core = ug->any_core = true;
}

struct pod_share {
	struct model_pod_gpu *g;
	int64_t native; /* MiB */
	size_t order;
};

static int cmp_shares(const void *x, const void *y)
{
	const struct pod_share *a = x, *b = y;

	if (a->g->gpu != b->g->gpu)
		return a->g->gpu < b->g->gpu ? -1 : 1;
	if (a->native % 1024 != b->native % 1024)
		return a->native % 1024 > b->native % 1024 ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The pods' MiB shares of each GPU of a node shown in GiB: each rounded down,
 * then the GiB the rounding lost given back one by one to the largest
 * remainders, so that the pods on a GPU add up to the GPU's (rounded-down)
 * sum, and a pod is the sum of its shares. */
int model_round_node_pods(struct model *m, struct model_node *n)
{
	struct pod_share *s;
	size_t ns = 0, k = 0;

	for (size_t i = 0; i < n->npods; i++)
		ns += m->pods[n->pods[i]].ngpus;
	if (!ns)
		return 0;
	if (!(s = calloc(ns, sizeof(*s))))
		return -1;
	for (size_t i = 0; i < n->npods; i++) {
		struct model_pod *mp = &m->pods[n->pods[i]];

		for (size_t g = 0; g < mp->ngpus; g++, k++)
			s[k] = (struct pod_share){ &mp->gpus[g], mp->gpus[g].mem, k };
	}
	qsort(s, ns, sizeof(*s), cmp_shares);
	for (size_t first = 0; first < ns;) {
		size_t end = first;
		int64_t sum = 0, floors = 0, extra;

		while (end < ns && s[end].g->gpu == s[first].g->gpu) {
			sum += s[end].native;
			floors += s[end].native / 1024;
			end++;
		}
		extra = sum / 1024 - floors;
		for (size_t i = first; i < end; i++) {
			s[i].g->mem = convert_m(m, s[i].native, UNIT_MIB, UNIT_GIB) + (extra > 0);
			extra -= extra > 0;
		}
		first = end;
	}
	free(s);
	for (size_t i = 0; i < n->npods; i++) {
		struct model_pod *mp = &m->pods[n->pods[i]];

		if (!mp->ngpus)
			continue;
		mp->mem = 0;
		for (size_t g = 0; g < mp->ngpus; g++)
			mp->mem += mp->gpus[g].mem;
	}
	return 0;
}

/* Each node keeps the unit it counts in (or the one forced); the cluster
 * totals take the unit every memory node agrees on, MiB where GiB and MiB
 * meet.  The tables print one block per unit rather than convert. */
void model_decide_units(struct model *m)
{
	bool have_gib = false, have_mib = false, have_slots = false;
	enum mem_unit natural;

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
}

/* The nodes in name order, each joined with what its pods hold; pods left
 * on nodes that no longer share their GPUs are said. */
static int join_nodes(struct model *m)
{
	struct model_private *p = m->priv;

	if (m->nnodes > 1)
		qsort(m->nodes, m->nnodes, sizeof(*m->nodes), cmp_nodes);
	for (size_t i = 0; i < m->nnodes; i++) {
		struct node_acc *a = model_acc_find(p, m->nodes[i].name);

		a->node = i;
		if (model_join_node(m, &m->nodes[i], a, &m->warnings) < 0)
			return -1;
	}
	for (size_t i = 0; i < p->naccs; i++)
		if (model_acc_warning(&p->accs[i], &m->warnings) < 0)
			return -1;
	return 0;
}

void model_settle_pod(struct model *m, struct model_pod *mp, const struct model_node *n)
{
	enum mem_unit from, to;

	if (n) {
		from = n->info.unit;
		to = n->unit;
	} else {
		from = to = model_scheme_unit(m, mp->scheme);
		if (from != UNIT_SLOTS && (m->opts.force_unit == UNIT_GIB || m->opts.force_unit == UNIT_MIB))
			to = (enum mem_unit)m->opts.force_unit;
	}
	mp->unit = to;
	for (size_t g = 0; n && g < mp->ngpus; g++)
		if (mp->gpus[g].gpu < 0 && mp->gpus[g].device_id)
			mp->gpus[g].gpu = model_gpu_by_id(&n->info, mp->gpus[g].device_id);
	mp->mem = convert_m(m, mp->mem, from, to);
	/* a pod's share of a GPU is rounded with the other pods on that
	 * GPU (model_round_node_pods), so that they add up to the GPU */
	for (size_t g = 0; !(n && from == UNIT_MIB && to == UNIT_GIB) && g < mp->ngpus; g++)
		mp->gpus[g].mem = convert_m(m, mp->gpus[g].mem, from, to);
	for (size_t c = 0; c < mp->ncontainers; c++)
		mp->container_mem[c] = convert_m(m, mp->container_mem[c], from, to);
}

/* The pods on shown nodes and the unscheduled ones, settled and sorted. */
static void settle_pods(struct model *m)
{
	struct model_private *p = m->priv;
	size_t kept = 0;

	for (size_t i = 0; i < m->npods; i++) {
		struct model_pod *mp = &m->pods[i];
		struct node_acc *a = mp->node ? model_acc_find(p, mp->node) : NULL;

		if (mp->node && !(a && a->shares)) {
			model_pod_release(m, mp);
			continue;
		}
		model_settle_pod(m, mp, a ? &m->nodes[a->node] : NULL);
		if (kept != i)
			m->pods[kept] = *mp;
		kept++;
	}
	m->npods = kept;
	if (m->npods > 1)
		qsort(m->pods, m->npods, sizeof(*m->pods), cmp_pods);
}

/* Each pod listed on its node, or among the unscheduled with what it asks. */
static int attach_pods(struct model *m)
{
	struct model_private *p = m->priv;

	for (size_t i = 0; i < m->npods; i++) {
		struct model_pod *mp = &m->pods[i];
		struct model_node *n;
		struct node_acc *a;
		size_t *np;

		if (!mp->node) {
			np = kube_array_grow(m->unscheduled, &p->unscheduled_cap, m->nunscheduled + 1, sizeof(*np), 8);
			if (!np)
				return -1;
			m->unscheduled = np;
			m->unscheduled[m->nunscheduled++] = i;
			model_count_unscheduled(m, mp, 1);
			continue;
		}
		a = model_acc_find(p, mp->node);
		n = &m->nodes[a->node];
		np = kube_array_grow(n->pods, &a->node_pods_cap, n->npods + 1, sizeof(*np), 8);
		if (!np)
			return -1;
		n->pods = np;
		n->pods[n->npods++] = i;
	}
	return 0;
}

/* The cluster's totals, and each unit's. */
static void add_totals(struct model *m)
{
	struct model_private *p = m->priv;

	for (size_t i = 0; i < m->nnodes; i++) {
		struct model_node *n = &m->nodes[i];
		const struct node_acc *a = model_acc_find(p, n->name);

		n->pods_held = a->npods;
		model_count_node(m, n, 1);
		model_node_flags(m, n, a, model_node_pods_core(m, n));
	}
	m->totals.nodes = m->nnodes;
	m->totals.unscheduled = m->nunscheduled;
}

int model_finish(struct model *m, struct kerr *err)
{
	struct model_private *p = m->priv;

	if (p->finished)
		return kerr_set(err, KERR_OTHER, "model finished twice");
	p->finished = true;
	model_decide_units(m);
	if (join_nodes(m) < 0)
		return oom(err);
	settle_pods(m);
	if (attach_pods(m) < 0)
		return oom(err);
	for (size_t i = 0; i < m->nnodes; i++)
		if (m->nodes[i].info.unit == UNIT_MIB && m->nodes[i].unit == UNIT_GIB &&
		    model_round_node_pods(m, &m->nodes[i]) < 0)
			return oom(err);
	add_totals(m);
	model_append_warnings(&m->warnings, &p->node_warnings);
	model_append_warnings(&m->warnings, &p->pod_warnings);
	if (model_sort_warnings(&m->warnings) < 0)
		return oom(err);
	model_derive(m);
	return 0;
}
