/* One pod as the model reads it: its scheme's reading (what it holds, on
 * which GPUs, and where it sits), and the record a kept pod shows.  The
 * model folds the reading into its node's sums (model.c); the live model
 * keeps the reading to take it out again when the pod changes. */
#include "model.h"
#include "model_internal.h"

#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A string the kept pod shows: the model's one copy where it interns them
 * (the live model), else its own.  NULL for NULL, or when out of memory. */
static char *pod_string(struct model_private *p, const char *s)
{
	long k;

	if (!s || !p->strings)
		return xstrdup(s);
	k = model_names_add(p->strings, s, strlen(s));
	return k < 0 ? NULL : p->strings->v[k];
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
	kvlist_release(&mp->labels);
	free(mp->controller_kind);
	free(mp->owner);
	free(mp->via);
	free(mp->claim);
	k8s_tolerations_free(mp->tolerations, mp->ntolerations);
	k8s_node_terms_free(mp->node_terms, mp->nnode_terms);
	free(mp->pending_reason);
	memset(mp, 0, sizeof(*mp));
}

void model_pod_release(const struct model *m, struct model_pod *mp)
{
	if (m->priv && m->priv->strings) {
		/* interned, or the live record's: not the pod's to free */
		mp->namespace = mp->phase = mp->node = mp->uid = NULL;
	}
	model_pod_free_fields(mp);
}

bool model_same_device(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
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

int model_read_pod(struct model *m, const struct k8s_pod *pod, struct pod_reading *r, struct warnings *w)
{
	int rc;

	memset(r, 0, sizeof(*r));
	/* as the original: every pod except the finished ones holds its share */
	if (!pod || (pod->phase && (strcmp(pod->phase, "Succeeded") == 0 || strcmp(pod->phase, "Failed") == 0)))
		return 0;
	rc = scheme_detect_pod(m->opts.scheme, m->opts.objects, pod, &r->sp, w, &r->sc);
	if (rc <= 0 || !r->sc) {
		r->sc = NULL;
		return rc < 0 ? -1 : 0;
	}
	r->node = r->sp.node ? r->sp.node : pod->node_name;
	if (keep_device_names(m->priv, &r->sp) < 0 || pod_gpus(&r->sp, &r->gpus, &r->ngpus) < 0) {
		model_pod_reading_release(r);
		return -1;
	}
	return 1;
}

void model_pod_reading_release(struct pod_reading *r)
{
	if (r->sc)
		scheme_pod_release(&r->sp);
	free(r->gpus);
	memset(r, 0, sizeof(*r));
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

int model_copy_labels(struct kvlist *dst, const struct kvlist *src)
{
	for (size_t i = 0; i < src->len; i++)
		if (kvlist_add(dst, src->items[i].key, strlen(src->items[i].key), src->items[i].value,
			       strlen(src->items[i].value)) < 0)
			return -1;
	return 0;
}

/* What an unscheduled pod asks of a node, as its scheme read it, and where
 * it may go. */
static int keep_ask(struct model_pod *mp, const struct k8s_pod *pod, const struct scheme_pod *sp)
{
	mp->ask = sp->ask;
	if (model_copy_labels(&mp->node_selector, &pod->node_selector) < 0 ||
	    k8s_node_terms_copy(&mp->node_terms, &mp->nnode_terms, pod->node_terms, pod->nnode_terms) < 0 ||
	    k8s_tolerations_copy(&mp->tolerations, &mp->ntolerations, pod->tolerations, pod->ntolerations) < 0)
		return -1;
	return 0;
}

/* What decides whether a pod may move (defrag): labels, priority,
 * controller, mirror. */
static int keep_movable(struct model_pod *mp, const struct k8s_pod *pod)
{
	mp->priority = pod->priority;
	mp->mirror = kvlist_get(&pod->annotations, MODEL_MIRROR_ANNOTATION) != NULL;
	for (size_t i = 0; i < pod->nowners; i++)
		if (pod->owners[i].controller && pod->owners[i].kind && !mp->controller_kind &&
		    !(mp->controller_kind = strdup(pod->owners[i].kind)))
			return -1;
	return model_copy_labels(&mp->labels, &pod->labels);
}

/* Each container's name and share, for -d and the documents. */
static int keep_containers(struct model_pod *mp, const struct k8s_pod *pod, const struct scheme_pod *sp)
{
	if (!pod->ncontainers)
		return 0;
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
	return 0;
}

int model_fill_pod(struct model *m, struct model_pod *mp, const struct k8s_pod *pod, const struct pod_reading *r)
{
	struct model_private *p = m->priv;
	const struct scheme_pod *sp = &r->sp;

	memset(mp, 0, sizeof(*mp));
	mp->namespace = pod_string(p, pod->namespace ? pod->namespace : "");
	mp->name = strdup(pod->name ? pod->name : "");
	/* the live model lends the pod its record's uid */
	mp->uid = p->strings ? NULL : xstrdup(pod->uid);
	mp->phase = pod_string(p, pod->phase);
	mp->node = pod_string(p, r->node);
	mp->scheme = r->sc;
	mp->mem = sp->mem;
	mp->core = sp->core;
	mp->assigned = sp->assigned;
	mp->via = xstrdup(sp->via);
	mp->claim = !r->node && m->opts.scheduling ? xstrdup(sp->claim_waiting) : NULL;
	/* a pod bound to a node keeps its ask: whether a GPU there can hold it */
	mp->ask = sp->ask;
	if (r->ngpus && (mp->gpus = malloc(r->ngpus * sizeof(*mp->gpus)))) {
		memcpy(mp->gpus, r->gpus, r->ngpus * sizeof(*mp->gpus));
		mp->ngpus = r->ngpus;
	}
	if (!mp->namespace || !mp->name || (pod->uid && !p->strings && !mp->uid) || (pod->phase && !mp->phase) ||
	    (r->node && !mp->node) || (r->ngpus && !mp->gpus) || (sp->via && !mp->via) || (mp->claim != NULL) != (!r->node && m->opts.scheduling && sp->claim_waiting) ||
	    ((!r->node || m->opts.movable) && m->opts.scheduling && keep_ask(mp, pod, sp) < 0) ||
	    (m->opts.owners && pod_owner(pod, &mp->owner) < 0) ||
	    (m->opts.movable && keep_movable(mp, pod) < 0) ||
	    (!m->opts.no_containers && keep_containers(mp, pod, sp) < 0)) {
		model_pod_release(m, mp);
		return -1;
	}
	return 0;
}
