/* Pieces of the report document: see render_doc.h. */
#include "render_doc.h"

void doc_set(struct doc *d, json_t *obj, const char *key, json_t *v)
{
	if (!obj || !v || json_object_set_new(obj, key, v) < 0)
		d->failed = true;
}

void doc_append(struct doc *d, json_t *arr, json_t *v)
{
	if (!arr || !v || json_array_append_new(arr, v) < 0)
		d->failed = true;
}

json_t *doc_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *doc_num(int64_t v)
{
	return json_integer((json_int_t)v);
}

/* unit, total, allocated and free, in that order */
static json_t *figures(struct doc *d, const char *unit, int64_t total, int64_t allocated, int64_t free_)
{
	json_t *o = json_object();

	doc_set(d, o, "unit", json_string(unit));
	doc_set(d, o, "total", doc_num(total));
	doc_set(d, o, "allocated", doc_num(allocated));
	doc_set(d, o, "free", doc_num(free_));
	return o;
}

json_t *doc_memory(struct doc *d, enum mem_unit u, int64_t total, int64_t allocated, int64_t free_)
{
	return figures(d, mem_unit_name(u), total, allocated, free_);
}

json_t *doc_core(struct doc *d, int64_t total, int64_t allocated)
{
	int64_t free_ = total - allocated;

	return figures(d, "percent", total, allocated, free_ > 0 ? free_ : 0);
}

static json_t *pod_ref(struct doc *d, const struct model_pod *p, int64_t mem, int64_t core)
{
	json_t *o = json_object();

	doc_set(d, o, "namespace", json_string(p->namespace));
	doc_set(d, o, "name", json_string(p->name));
	doc_set(d, o, "memory", doc_num(mem));
	doc_set(d, o, "core", doc_num(core));
	return o;
}

/* The pods of the node on GPU gpu (-1: those without one). */
static json_t *pods_on(struct doc *d, const struct model *m, const struct model_node *n, int gpu)
{
	json_t *pods = json_array();

	for (size_t i = 0; i < n->npods; i++) {
		const struct model_pod *p = &m->pods[n->pods[i]];

		for (size_t k = 0; k < p->ngpus; k++)
			if (gpu >= 0 ? p->gpus[k].gpu == gpu : p->gpus[k].gpu < 0)
				doc_append(d, pods, pod_ref(d, p, p->gpus[k].mem, p->gpus[k].core));
	}
	return pods;
}

/* What the usage source measured for one GPU: null where unknown. */
static json_t *gpu_usage(struct doc *d, const struct model_gpu *g)
{
	json_t *u = json_object();

	doc_set(d, u, "usedBytes", g->used_known ? doc_num(g->used_bytes) : json_null());
	doc_set(d, u, "totalBytes", g->total_known ? doc_num(g->total_bytes) : json_null());
	doc_set(d, u, "utilizationPercent", g->util_known ? json_real(g->util) : json_null());
	return u;
}

json_t *doc_node_gpus(struct doc *d, const struct model *m, const struct model_node *n)
{
	json_t *gpus = json_array();

	for (int g = 0; g < n->ngpus; g++) {
		const struct model_gpu *mg = &n->gpus[g];
		json_t *go = json_object();

		doc_set(d, go, "index", json_integer(mg->index));
		doc_set(d, go, "id", doc_str_or_null(mg->id));
		doc_set(d, go, "model", doc_str_or_null(mg->type));
		doc_set(d, go, "memory", doc_memory(d, n->unit, mg->mem_total, mg->mem_allocated, model_gpu_free(mg)));
		doc_set(d, go, "core", doc_core(d, mg->core_total, mg->core_allocated));
		doc_set(d, go, "podCount", json_integer((json_int_t)mg->npods));
		doc_set(d, go, "pods", pods_on(d, m, n, g));
		doc_set(d, go, "slots", doc_num(mg->slots));
		doc_set(d, go, "unhealthy", json_boolean(mg->unhealthy));
		doc_set(d, go, "cordoned", json_boolean(mg->cordoned));
		if (m->usage.configured)
			doc_set(d, go, "usage", gpu_usage(d, mg));
		doc_append(d, gpus, go);
	}
	return gpus;
}

json_t *doc_pending_pods(struct doc *d, const struct model *m, const struct model_node *n)
{
	return pods_on(d, m, n, -1);
}
