/* The join of the answers with a finished model: each series to its GPU
 * and pod, and the figures (the findings are usage_findings.c's) (usage.h). */
#include "usage.h"
#include "usage_findings.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct key_ref {
	const char *key;
	size_t node;
	int gpu; /* position in node.gpus, -1 for node keys */
};

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct key_ref *)a)->key, ((const struct key_ref *)b)->key);
}

static const struct key_ref *key_find(const struct key_ref *keys, size_t n, const char *k)
{
	struct key_ref probe = {.key = k};

	return n ? bsearch(&probe, keys, n, sizeof(*keys), key_cmp) : NULL;
}

struct pod_ref {
	const char *ns, *name;
	size_t idx;
};

static int pod_ref_cmp(const void *a, const void *b)
{
	const struct pod_ref *x = a, *y = b;
	int c = strcmp(x->ns, y->ns);

	return c ? c : strcmp(x->name, y->name);
}

/* The highest or the lowest figure of a GPU's series so far. */
struct extreme {
	double v;
	bool known; /* a series gave a figure */
};

static void extreme_max(struct extreme *e, double v)
{
	if (!e->known || v > e->v)
		e->v = v;
	e->known = true;
}

static void extreme_min(struct extreme *e, double v)
{
	if (!e->known || v < e->v)
		e->v = v;
	e->known = true;
}

/* Per-GPU sums while reading the answers. */
struct gpu_acc {
	struct extreme level; /* highest series with no pod label */
	size_t pod_series;
	size_t claim_series; /* series naming a DRA claim and no pod */
	double pod_sum;
	struct extreme pod_min, pod_max;
	double vgpu_sum;
	size_t vgpu_series;
	struct extreme free_min, util, host_used, host_util;
};

struct join {
	struct model *m;
	struct key_ref *nodes, *uuids;
	size_t nnodes, nuuids;
	struct pod_ref *pods;
	size_t npods;
	size_t *gpu_base; /* flat index of node i's first GPU */
	size_t ngpus;
	struct gpu_acc *acc;
	struct usage_pod_fig *pod;
};

static void join_release(struct join *j)
{
	free(j->nodes);
	free(j->uuids);
	free(j->pods);
	free(j->gpu_base);
	free(j->acc);
	free(j->pod);
}

static int join_init(struct join *j, struct model *m)
{
	size_t nk = 0, nu = 0;

	memset(j, 0, sizeof(*j));
	j->m = m;
	j->gpu_base = calloc(m->nnodes + 1, sizeof(size_t));
	j->nodes = calloc(2 * m->nnodes + 1, sizeof(*j->nodes));
	j->pods = calloc(m->npods + 1, sizeof(*j->pods));
	j->pod = calloc(m->npods + 1, sizeof(*j->pod));
	if (!j->gpu_base || !j->nodes || !j->pods || !j->pod)
		return -1;
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct model_node *n = &m->nodes[i];

		j->gpu_base[i] = j->ngpus;
		j->ngpus += n->ngpus > 0 ? (size_t)n->ngpus : 0;
		if (n->name)
			j->nodes[nk++] = (struct key_ref){n->name, i, -1};
		if (n->ip && strcmp(n->ip, "unknown") != 0)
			j->nodes[nk++] = (struct key_ref){n->ip, i, -1};
	}
	j->gpu_base[m->nnodes] = j->ngpus;
	j->nnodes = nk;
	qsort(j->nodes, nk, sizeof(*j->nodes), key_cmp);
	j->acc = calloc(j->ngpus + 1, sizeof(*j->acc));
	j->uuids = calloc(j->ngpus + 1, sizeof(*j->uuids));
	if (!j->acc || !j->uuids)
		return -1;
	for (size_t i = 0; i < m->nnodes; i++)
		for (int g = 0; g < m->nodes[i].ngpus; g++)
			if (m->nodes[i].gpus[g].id && *m->nodes[i].gpus[g].id)
				j->uuids[nu++] = (struct key_ref){m->nodes[i].gpus[g].id, i, g};
	j->nuuids = nu;
	qsort(j->uuids, nu, sizeof(*j->uuids), key_cmp);
	for (size_t i = 0; i < m->npods; i++) {
		if (!m->pods[i].namespace || !m->pods[i].name)
			continue;
		j->pods[j->npods++] = (struct pod_ref){m->pods[i].namespace, m->pods[i].name, i};
	}
	qsort(j->pods, j->npods, sizeof(*j->pods), pod_ref_cmp);
	return 0;
}

/* A node named by a label value: the node's name or address, or an
 * "address:port" scrape target. */
static const struct key_ref *node_by_value(const struct join *j, const char *v)
{
	const struct key_ref *k = key_find(j->nodes, j->nnodes, v);
	const char *colon;
	char host[256];
	size_t len;

	if (k)
		return k;
	colon = strrchr(v, ':');
	if (!colon)
		return NULL;
	len = (size_t)(colon - v);
	if (len >= 2 && v[0] == '[' && v[len - 1] == ']') {
		v++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof(host))
		return NULL;
	memcpy(host, v, len);
	host[len] = '\0';
	return key_find(j->nodes, j->nnodes, host);
}

/* Whether GPU g of node n is the DRA device pool/device: the scheme names
 * a GPU of the node's own pool (named after the node) by its device name,
 * and one of any other pool POOL/DEVICE, so that two pools on one node
 * holding devices of one name, or a pool several nodes reach, are told
 * apart.  A series without a pool matches by the device's name. */
static bool dra_gpu_is(const struct model_node *n, const struct model_gpu *g, const char *pool, const char *device)
{
	size_t len;

	if (!g->id)
		return false;
	if ((!pool || (n->name && strcmp(pool, n->name) == 0)) && strcmp(g->id, device) == 0)
		return true;
	if (!pool)
		return false;
	len = strlen(pool);
	return strncmp(g->id, pool, len) == 0 && g->id[len] == '/' && strcmp(g->id + len + 1, device) == 0;
}

static long dra_gpu_on(const struct join *j, size_t node, const struct usage_sample *s)
{
	const struct model_node *n = &j->m->nodes[node];

	for (int g = 0; g < n->ngpus; g++)
		if (dra_gpu_is(n, &n->gpus[g], s->dra_pool, s->dra_device))
			return (long)(j->gpu_base[node] + (size_t)g);
	return -1;
}

/* The flat GPU index of a DRA device named by pool and device: on the node
 * the series names, else the node the pool is named after (a GPU driver
 * publishes one pool per node, named for it), else the first node a pool
 * named after none reaches.  The DRA scheme names its GPUs by device; the
 * others' ids are UUIDs, which no device name equals.  -1 when none. */
static long dra_gpu_of(const struct join *j, const struct usage_sample *s)
{
	bool pool_is_node = false;
	long g;

	for (size_t i = 0; i <= USAGE_LABEL_VARIANTS; i++) {
		const char *v = i < USAGE_LABEL_VARIANTS ? s->node[i] : s->dra_pool;
		const struct key_ref *nk = v ? node_by_value(j, v) : NULL;

		pool_is_node |= nk && i == USAGE_LABEL_VARIANTS;
		if (nk && (g = dra_gpu_on(j, nk->node, s)) >= 0)
			return g;
	}
	for (size_t k = 0; s->dra_pool && !pool_is_node && k < j->m->nnodes; k++)
		if ((g = dra_gpu_on(j, k, s)) >= 0)
			return g;
	return -1;
}

/* The flat GPU index a series is about, or -1.  A series of a DRA claim
 * on a MIG device names the MIG device, which is no GPU of the model: its
 * GPU is the one the exporter's index names, on the node the series or
 * the pool names. */
static long gpu_of(const struct join *j, const struct usage_sample *s)
{
	const struct key_ref *k;
	long dg;

	if (s->dra_device && ((dg = dra_gpu_of(j, s)) >= 0 || !s->dra_mig_profile))
		return dg;
	k = s->uuid ? key_find(j->uuids, j->nuuids, s->uuid) : NULL;
	if (k)
		return (long)(j->gpu_base[k->node] + (size_t)k->gpu);
	if (s->gpu < 0)
		return -1;
	for (size_t i = 0; i <= USAGE_LABEL_VARIANTS; i++) {
		const char *v = i < USAGE_LABEL_VARIANTS ? s->node[i] : s->dra_pool;
		const struct key_ref *nk = v ? node_by_value(j, v) : NULL;
		const struct model_node *n;

		if (!nk)
			continue;
		n = &j->m->nodes[nk->node];
		for (int g = 0; g < n->ngpus; g++)
			if (n->gpus[g].index == s->gpu)
				return (long)(j->gpu_base[nk->node] + (size_t)g);
		return -1;
	}
	return -1;
}

static long pod_of(const struct join *j, const struct usage_sample *s)
{
	struct pod_ref probe, *p;

	if (!s->pod || !s->namespace || !j->npods)
		return -1;
	probe = (struct pod_ref){s->namespace, s->pod, 0};
	p = bsearch(&probe, j->pods, j->npods, sizeof(*j->pods), pod_ref_cmp);
	return p ? (long)p->idx : -1;
}

/* Every pod on the GPU carries the same figure, the GPU's own where there is
 * one: an exporter copying the GPU's figure to each pod sharing it. */
static bool copies(const struct gpu_acc *a)
{
	return a->pod_series > 1 && a->pod_min.v == a->pod_max.v && (!a->level.known || a->pod_max.v == a->level.v);
}

static const struct model_node *node_of_gpu(const struct join *j, long g, const struct model_gpu **gp);

/* Whether the pod's claims (its via: "NAME (how), NAME2") include name. */
static bool via_names(const char *via, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = via; p && *p;) {
		if (strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == ' ' || p[n] == ','))
			return true;
		p = strstr(p, ", ");
		p = p ? p + 2 : NULL;
	}
	return false;
}

/* The one pod a DRA claim on the GPU is reserved for; -1 when the series
 * names no claim or the claim is no pod's, -2 when it is several pods' (a
 * shared claim's figure is the GPU's: it is not split among them). */
static long dra_claim_pod(const struct join *j, const struct usage_sample *s, long g)
{
	const struct model_gpu *gp = NULL;
	const struct model_node *n;
	long found = -1;

	if (!s->dra_claim || !s->dra_namespace || !(n = node_of_gpu(j, g, &gp)))
		return -1;
	for (size_t k = 0; k < n->npods; k++) {
		const struct model_pod *p = &j->m->pods[n->pods[k]];
		bool holds = false;

		for (size_t x = 0; x < p->ngpus && !holds; x++)
			holds = p->gpus[x].gpu == gp->index;
		if (!holds || !p->namespace || strcmp(p->namespace, s->dra_namespace) != 0 || !via_names(p->via, s->dra_claim))
			continue;
		if (found >= 0)
			return -2;
		found = (long)n->pods[k];
	}
	return found;
}

static void pod_add(struct join *j, long pod, double v)
{
	if (pod < 0)
		return;
	j->pod[pod].used += v;
	j->pod[pod].used_known = true;
}


/* The node and the GPU of a flat GPU index. */
static const struct model_node *node_of_gpu(const struct join *j, long g, const struct model_gpu **gp)
{
	for (size_t i = 0; i < j->m->nnodes; i++) {
		const struct model_node *n = &j->m->nodes[i];

		if ((size_t)g >= j->gpu_base[i] && (size_t)g < j->gpu_base[i] + (size_t)n->ngpus) {
			*gp = &n->gpus[(size_t)g - j->gpu_base[i]];
			return n;
		}
	}
	return NULL;
}

/* A series labelled with one pod that cannot be the pod's own figure, and
 * so is the GPU's: the only such series of a GPU several pods share (an
 * exporter naming the first pod it finds), or more than the pod can hold
 * where memory isolation caps it at its allocation (one unit of rounding
 * allowed). */
static bool gpu_figure_in_pod_series(const struct join *j, const struct gpu_acc *a, long g, long pod, double v)
{
	const struct model_gpu *gp = NULL;
	const struct model_node *n = node_of_gpu(j, g, &gp);
	const struct model_pod *p = &j->m->pods[pod];
	int64_t cap = 0;

	if (!n)
		return false;
	if (a->pod_series == 1 && gp->npods > 1)
		return true;
	if (!n->info.isolation || n->unit == UNIT_SLOTS)
		return false;
	for (size_t x = 0; x < p->ngpus; x++)
		if (p->gpus[x].gpu == gp->index)
			cap += p->gpus[x].mem;
	return cap > 0 && usage_bytes_round(v) > usage_unit_bytes(cap + 1, n->unit);
}

static void read_answers(struct join *j, const struct usage_data *d)
{
	for (int q = 0; q < UQ_COUNT; q++)
		for (size_t i = 0; i < d->n[q]; i++) {
			const struct usage_sample *s = &d->samples[q][i];
			long g = gpu_of(j, s);
			struct gpu_acc *a;

			/* a MIG instance's figures are its own, never its GPU's */
			if (g < 0 || s->mig_instance)
				continue;
			a = &j->acc[g];
			switch ((enum usage_query)q) {
			case UQ_GPU_USED:
				/* a claim's series on a MIG device is its GPU's */
				if (!s->pod || s->dra_mig_profile) {
					a->claim_series += s->dra_claim != NULL && !s->dra_mig_profile;
					extreme_max(&a->level, s->value);
					break;
				}
				extreme_min(&a->pod_min, s->value);
				extreme_max(&a->pod_max, s->value);
				a->pod_series++;
				a->pod_sum += s->value;
				break;
			case UQ_GPU_FREE:
				extreme_min(&a->free_min, s->value);
				break;
			case UQ_GPU_UTIL:
				extreme_max(&a->util, s->value);
				break;
			case UQ_VGPU_USED:
				a->vgpu_sum += s->value;
				a->vgpu_series++;
				break;
			case UQ_HOST_USED:
				extreme_max(&a->host_used, s->value);
				break;
			case UQ_HOST_UTIL:
				extreme_max(&a->host_util, s->value);
				break;
			default:
				break;
			}
		}
	/* Pods: HAMi's per-container figures first; else a DCGM series labelled
	 * with the pod, unless every pod on that GPU carries the same figure
	 * (an exporter copying the GPU's figure to each pod sharing it). */
	for (size_t i = 0; i < d->n[UQ_VGPU_USED]; i++)
		pod_add(j, pod_of(j, &d->samples[UQ_VGPU_USED][i]), d->samples[UQ_VGPU_USED][i].value);
	/* a pod's limit: the sum over its containers and GPUs, as its use */
	for (size_t i = 0; i < d->n[UQ_VGPU_LIMIT]; i++) {
		long pod = pod_of(j, &d->samples[UQ_VGPU_LIMIT][i]);

		if (pod < 0)
			continue;
		j->pod[pod].limit += d->samples[UQ_VGPU_LIMIT][i].value;
		j->pod[pod].limit_known = true;
	}
	for (size_t i = 0; i < d->n[UQ_GPU_USED]; i++) {
		const struct usage_sample *s = &d->samples[UQ_GPU_USED][i];
		long g, pod;
		const struct gpu_acc *a;

		long claim_pod = -1;

		/* a MIG device's: its instance's series (mig_claims) */
		if (s->dra_mig_profile || s->mig_instance)
			continue;
		/* a DRA claim's series: the pod's where the claim is one pod's,
		 * never a pod's where several share it */
		if (s->dra_claim && (g = gpu_of(j, s)) >= 0)
			claim_pod = dra_claim_pod(j, s, g);
		if (claim_pod == -2)
			continue;
		/* the exporter measures the device: where several claims share it
		 * (consumable capacity) each claim's series is the device's */
		if (!s->pod && claim_pod >= 0 && !j->acc[g].pod_series && j->acc[g].claim_series == 1) {
			pod_add(j, claim_pod, s->value);
			continue;
		}
		if (!s->pod || (pod = pod_of(j, s)) < 0 || (g = gpu_of(j, s)) < 0)
			continue;
		a = &j->acc[g];
		if (a->vgpu_series)
			continue;
		if (copies(a) || gpu_figure_in_pod_series(j, a, g, pod, s->value))
			continue;
		pod_add(j, pod, s->value);
	}
}

/* A series of a MIG instance, or of a DRA claim on a MIG device of its
 * GPU, by GPU and profile. */
struct mig_ref {
	long g;
	const char *profile;
	const struct usage_sample *s;
};

static int mig_ref_cmp(const void *x, const void *y)
{
	const struct mig_ref *a = x, *b = y;

	if (a->g != b->g)
		return a->g < b->g ? -1 : 1;
	return strcmp(a->profile, b->profile);
}

static bool same_claim(const struct usage_sample *a, const struct usage_sample *b)
{
	return strcmp(a->dra_claim, b->dra_claim) == 0 && strcmp(a->dra_namespace, b->dra_namespace) == 0;
}

/* One profile on one GPU: the instance series and the claims of that
 * profile there.  Only one of each pairs them (the exporter labels no
 * instance with its device): its pod, where the claim is one pod's, gets
 * the instance's figure. */
static void mig_group(struct join *j, const struct mig_ref *r, size_t n)
{
	const struct usage_sample *inst = NULL, *claim = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct usage_sample *s = r[i].s;

		if (s->mig_instance) {
			if (inst && strcmp(inst->mig_instance, s->mig_instance) != 0)
				return;
			inst = s;
		} else {
			if (claim && !same_claim(claim, s))
				return;
			claim = s;
		}
	}
	if (inst && claim)
		pod_add(j, dra_claim_pod(j, claim, r[0].g), inst->value);
}

/* The MIG devices' figures: the memory each MIG instance uses, given to
 * the pod whose claim holds the MIG device of its profile.  -1 when out
 * of memory. */
static int mig_claims(struct join *j, const struct usage_data *d)
{
	struct mig_ref *r = malloc((d->n[UQ_GPU_USED] ? d->n[UQ_GPU_USED] : 1) * sizeof(*r));
	size_t n = 0;

	if (!r)
		return -1;
	for (size_t i = 0; i < d->n[UQ_GPU_USED]; i++) {
		const struct usage_sample *s = &d->samples[UQ_GPU_USED][i];
		bool inst = s->mig_instance && s->mig_profile;
		long g;

		if (!inst && !(s->dra_mig_profile && s->dra_claim && s->dra_namespace))
			continue;
		if ((g = gpu_of(j, s)) >= 0)
			r[n++] = (struct mig_ref){g, inst ? s->mig_profile : s->dra_mig_profile, s};
	}
	if (n)
		qsort(r, n, sizeof(*r), mig_ref_cmp);
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo + 1; hi < n && mig_ref_cmp(&r[lo], &r[hi]) == 0; hi++)
			;
		mig_group(j, r + lo, hi - lo);
	}
	free(r);
	return 0;
}

/* The most memory any series of the GPU reported in use. */
static double most_used(const struct gpu_acc *a)
{
	if (a->level.known && (!a->pod_max.known || a->level.v > a->pod_max.v))
		return a->level.v;
	return a->pod_max.known ? a->pod_max.v : 0;
}

/* One GPU's figures from what the answers said of it: the exporter's
 * level first, then the pods' series, then HAMi's. */
static void gpu_figures(struct model_gpu *gp, const struct gpu_acc *a)
{
	gp->used_known = true;
	if (a->level.known)
		gp->used_bytes = usage_bytes_round(a->level.v);
	else if (copies(a))
		gp->used_bytes = usage_bytes_round(a->pod_max.v);
	else if (a->pod_series)
		gp->used_bytes = usage_bytes_round(a->pod_sum);
	else if (a->host_used.known)
		gp->used_bytes = usage_bytes_round(a->host_used.v);
	else if (a->vgpu_series)
		gp->used_bytes = usage_bytes_round(a->vgpu_sum);
	else
		gp->used_known = false;
	gp->total_known = a->free_min.known && (a->level.known || a->pod_series);
	gp->total_bytes = usage_bytes_round(a->free_min.v + most_used(a));
	gp->util_known = a->util.known || a->host_util.known;
	gp->util = a->util.known ? a->util.v : a->host_util.v;
}

/* Every GPU's and node's figures; the first few nodes with a GPU no
 * answer reported are named in *names (malloc'd), all counted. */
static size_t node_figures(struct join *j, char **names)
{
	struct model *m = j->m;
	size_t unknown_nodes = 0, names_len = 0;

	for (size_t i = 0; i < m->nnodes; i++) {
		struct model_node *n = &m->nodes[i];
		bool node_unknown = false;

		n->used_bytes = 0;
		n->gpus_used_known = 0;
		for (int g = 0; g < n->ngpus; g++) {
			struct model_gpu *gp = &n->gpus[g];

			gpu_figures(gp, &j->acc[j->gpu_base[i] + (size_t)g]);
			if (gp->used_known) {
				n->used_bytes += gp->used_bytes;
				n->gpus_used_known++;
				m->usage.gpus_known++;
			} else {
				m->usage.gpus_unknown++;
				node_unknown = true;
			}
		}
		if (node_unknown && unknown_nodes++ < 3) {
			size_t add = strlen(n->name) + 3;
			char *s = realloc(*names, names_len + add);

			if (s) {
				*names = s;
				names_len += (size_t)sprintf(*names + names_len, "%s%s", names_len ? ", " : "", n->name);
			}
		}
	}
	return unknown_nodes;
}

/* One warning for everything the source did not say. */
static void missing_warning(struct model *m, const struct usage_data *d, const char *source_error,
			    size_t unknown_nodes, const char *names)
{
	size_t problems = 0;

	for (int q = 0; d && q < UQ_COUNT; q++)
		problems += d->problem[q] != NULL;
	if (source_error)
		warnings_add(&m->warnings, "UsageUnavailable", NULL, "GPU memory in use is unknown: %s", source_error);
	else if (m->usage.gpus_unknown && m->usage.gpus_known == 0 && problems)
		warnings_add(&m->warnings, "UsageUnavailable", NULL, "GPU memory in use is unknown: %s",
			     d->problem[UQ_GPU_USED] ? d->problem[UQ_GPU_USED] : d->problem[UQ_HOST_USED] ? d->problem[UQ_HOST_USED] : "the queries failed");
	else if (m->usage.gpus_unknown)
		warnings_add(&m->warnings, "UsageIncomplete", NULL,
			     "GPU memory in use is unknown for %zu of %zu GPUs (node%s %s%s): no DCGM_FI_DEV_FB_USED or HostGPUMemoryUsage series for them%s",
			     m->usage.gpus_unknown, m->usage.gpus_unknown + m->usage.gpus_known,
			     unknown_nodes > 1 ? "s" : "", names ? names : "", unknown_nodes > 3 ? ", ..." : "",
			     problems ? " (some queries failed)" : "");
	else if (problems)
		warnings_add(&m->warnings, "UsageIncomplete", NULL, "some usage figures are unknown: %s",
			     d->problem[UQ_GPU_FREE]	? d->problem[UQ_GPU_FREE]
			     : d->problem[UQ_GPU_UTIL]	? d->problem[UQ_GPU_UTIL]
			     : d->problem[UQ_VGPU_USED] ? d->problem[UQ_VGPU_USED]
							: "a query failed");
}

int usage_apply(struct model *m, const struct usage_data *d, const struct usage_options *opt,
		const char *source_error, struct kerr *err)
{
	struct usage_options o = {USAGE_IDLE_PERCENT, USAGE_UNACCOUNTED_BYTES};
	struct join j;
	size_t unknown_nodes;
	char *names = NULL;

	if (opt)
		o = *opt;
	m->usage.configured = true;
	if (join_init(&j, m) < 0) {
		join_release(&j);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (d && !source_error) {
		read_answers(&j, d);
		if (mig_claims(&j, d) < 0) {
			join_release(&j);
			return kerr_set(err, KERR_OTHER, "out of memory");
		}
	}
	unknown_nodes = node_figures(&j, &names);
	for (size_t i = 0; i < m->npods; i++) {
		m->pods[i].used_known = j.pod[i].used_known;
		m->pods[i].used_bytes = j.pod[i].used_known ? usage_bytes_round(j.pod[i].used) : 0;
	}
	usage_findings(j.m, j.pod, &o);
	missing_warning(m, d, source_error, unknown_nodes, names);
	free(names);
	join_release(&j);
	return 0;
}
