/* The report as one document: built with jansson, written as JSON or, through
 * libyaml's emitter, as YAML.  Keys are inserted in a fixed order, which
 * jansson keeps, so the output is stable. */
#include "render.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "columns.h"

/* jansson's *_set_new steal a reference even on failure; a NULL value makes
 * them fail, which is remembered here and checked once per document. */
struct doc {
	bool failed;
};

static void set(struct doc *d, json_t *obj, const char *key, json_t *v)
{
	if (!obj || !v || json_object_set_new(obj, key, v) < 0)
		d->failed = true;
}

static void append(struct doc *d, json_t *arr, json_t *v)
{
	if (!arr || !v || json_array_append_new(arr, v) < 0)
		d->failed = true;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *num(int64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *memory_obj(struct doc *d, enum mem_unit u, int64_t total, int64_t allocated)
{
	json_t *o = json_object();
	int64_t free_ = total - allocated;

	set(d, o, "unit", json_string(column_unit_name(u)));
	set(d, o, "total", num(total));
	set(d, o, "allocated", num(allocated));
	set(d, o, "free", num(free_ > 0 ? free_ : 0));
	return o;
}

static json_t *core_obj(struct doc *d, int64_t total, int64_t allocated)
{
	json_t *o = json_object();
	int64_t free_ = total - allocated;

	set(d, o, "unit", json_string("percent"));
	set(d, o, "total", num(total));
	set(d, o, "allocated", num(allocated));
	set(d, o, "free", num(free_ > 0 ? free_ : 0));
	return o;
}

static json_t *pod_ref(struct doc *d, const struct model_pod *p, int64_t mem, int64_t core)
{
	json_t *o = json_object();

	set(d, o, "namespace", json_string(p->namespace));
	set(d, o, "name", json_string(p->name));
	set(d, o, "memory", num(mem));
	set(d, o, "core", num(core));
	return o;
}

static json_t *pod_obj(struct doc *d, const struct model *m, const struct model_pod *p)
{
	json_t *o = json_object(), *arr;
	const struct model_node *n = p->node ? model_find_node(m, p->node) : NULL;

	set(d, o, "namespace", json_string(p->namespace));
	set(d, o, "name", json_string(p->name));
	set(d, o, "uid", str_or_null(p->uid));
	set(d, o, "phase", str_or_null(p->phase));
	set(d, o, "node", str_or_null(p->node));
	set(d, o, "scheme", str_or_null(p->scheme ? p->scheme->name : NULL));
	set(d, o, "assigned", json_boolean(p->assigned));
	set(d, o, "unit", json_string(column_unit_name(n ? n->unit : p->unit)));
	set(d, o, "memory", num(p->mem));
	set(d, o, "core", num(p->core));
	if (p->pending_reason)
		set(d, o, "pendingReason", json_string(p->pending_reason));
	arr = json_array();
	for (size_t i = 0; i < p->ncontainers; i++) {
		json_t *c = json_object();

		set(d, c, "name", json_string(p->container_names[i]));
		set(d, c, "memory", num(p->container_mem[i]));
		set(d, c, "core", num(p->container_core[i]));
		append(d, arr, c);
	}
	set(d, o, "containers", arr);
	arr = json_array();
	for (size_t i = 0; i < p->ngpus; i++) {
		json_t *g = json_object();

		set(d, g, "index", p->gpus[i].gpu >= 0 ? num(p->gpus[i].gpu) : json_null());
		set(d, g, "pending", json_boolean(p->gpus[i].gpu < 0));
		set(d, g, "deviceId", str_or_null(p->gpus[i].device_id));
		set(d, g, "memory", num(p->gpus[i].mem));
		set(d, g, "core", num(p->gpus[i].core));
		append(d, arr, g);
	}
	set(d, o, "gpus", arr);
	if (m->usage.configured) {
		json_t *u = json_object();

		set(d, u, "usedBytes", p->used_known ? num(p->used_bytes) : json_null());
		set(d, o, "usage", u);
	}
	return o;
}

/* What the usage source measured for one GPU: null where unknown. */
static json_t *gpu_usage_obj(struct doc *d, const struct model_gpu *g)
{
	json_t *u = json_object();

	set(d, u, "usedBytes", g->used_known ? num(g->used_bytes) : json_null());
	set(d, u, "totalBytes", g->total_known ? num(g->total_bytes) : json_null());
	set(d, u, "utilizationPercent", g->util_known ? json_real(g->util) : json_null());
	return u;
}

static const char *unit_source(const struct model *m, const struct model_node *n)
{
	if ((m->opts.force_unit == UNIT_GIB || m->opts.force_unit == UNIT_MIB) && n->unit != UNIT_SLOTS)
		return "forced";
	if (n->unit != n->info.unit)
		return "converted";
	return n->info.unit_from_label ? "label" : "guess";
}

static json_t *node_obj(struct doc *d, const struct model *m, const struct model_node *n)
{
	json_t *o = json_object(), *labels = json_object(), *gpus = json_array(), *pending = json_array();
	json_t *mem;

	set(d, o, columns[COL_NAME].json_key, json_string(n->name));
	set(d, o, columns[COL_IP].json_key, json_string(n->ip));
	set(d, o, "scheme", json_string(n->scheme->name));
	set(d, o, columns[COL_MODE].json_key, str_or_null(n->info.mode));
	set(d, o, columns[COL_ISOLATION].json_key, json_boolean(n->info.isolation));
	set(d, o, columns[COL_PLACEMENT].json_key, str_or_null(n->info.placement));
	set(d, o, columns[COL_POOL].json_key, str_or_null(n->pool));
	set(d, o, columns[COL_MODEL].json_key, str_or_null(n->gpu_model));
	set(d, o, columns[COL_CARD_MEM].json_key, n->card_mem_mib > 0 ? num(n->card_mem_mib) : json_null());
	set(d, o, "unit", json_string(column_unit_name(n->unit)));
	set(d, o, "unitSource", json_string(unit_source(m, n)));
	for (size_t i = 0; i < n->labels.len; i++)
		set(d, labels, n->labels.items[i].key, json_string(n->labels.items[i].value));
	set(d, o, "labels", labels);
	mem = memory_obj(d, n->unit, n->mem_total, n->mem_allocated);
	set(d, mem, columns[COL_PENDING].json_key, num(n->mem_pending));
	set(d, mem, columns[COL_UNHEALTHY].json_key, num(n->mem_unhealthy));
	set(d, o, columns[COL_MEMORY].json_key, mem);
	set(d, o, columns[COL_CORE].json_key, core_obj(d, n->core_total, n->core_allocated));
	set(d, o, "gpuCount", json_integer(n->ngpus));
	for (int g = 0; g < n->ngpus; g++) {
		const struct model_gpu *mg = &n->gpus[g];
		json_t *go = json_object(), *pods = json_array();

		set(d, go, "index", json_integer(mg->index));
		set(d, go, "id", str_or_null(mg->id));
		set(d, go, "model", str_or_null(mg->type));
		set(d, go, "memory", memory_obj(d, n->unit, mg->mem_total, mg->mem_allocated));
		set(d, go, "core", core_obj(d, mg->core_total, mg->core_allocated));
		set(d, go, "podCount", json_integer((json_int_t)mg->npods));
		for (size_t i = 0; i < n->npods; i++) {
			const struct model_pod *p = &m->pods[n->pods[i]];

			for (size_t k = 0; k < p->ngpus; k++)
				if (p->gpus[k].gpu == g)
					append(d, pods, pod_ref(d, p, p->gpus[k].mem, p->gpus[k].core));
		}
		set(d, go, "pods", pods);
		set(d, go, "slots", num(mg->slots));
		set(d, go, "unhealthy", json_boolean(mg->unhealthy));
		set(d, go, "cordoned", json_boolean(mg->cordoned));
		if (m->usage.configured)
			set(d, go, "usage", gpu_usage_obj(d, mg));
		append(d, gpus, go);
	}
	set(d, o, columns[COL_GPU].json_key, gpus);
	for (size_t i = 0; i < n->npods; i++) {
		const struct model_pod *p = &m->pods[n->pods[i]];

		for (size_t k = 0; k < p->ngpus; k++)
			if (p->gpus[k].gpu < 0)
				append(d, pending, pod_ref(d, p, p->gpus[k].mem, p->gpus[k].core));
	}
	set(d, o, "pendingPods", pending);
	set(d, o, "podCount", json_integer((json_int_t)n->npods));
	set(d, o, "perGpu", json_boolean(n->info.per_gpu));
	set(d, o, columns[COL_STATUS].json_key, json_string(n->status));
	set(d, o, "schedulable", json_boolean(n->schedulable));
	set(d, o, columns[COL_LARGEST].json_key, n->largest_free >= 0 ? num(n->largest_free) : json_null());
	if (m->usage.configured) {
		json_t *u = json_object();

		set(d, u, "usedBytes", n->gpus_used_known ? num(n->used_bytes) : json_null());
		set(d, u, "gpusKnown", json_integer(n->gpus_used_known));
		set(d, o, "usage", u);
	}
	return o;
}

static json_t *totals_obj(struct doc *d, const struct model_totals *t, bool with_unit)
{
	json_t *o = json_object(), *mem;

	if (with_unit)
		set(d, o, "unit", json_string(column_unit_name(t->unit)));
	set(d, o, "nodes", json_integer((json_int_t)t->nodes));
	set(d, o, "gpus", json_integer((json_int_t)t->gpus));
	set(d, o, "pods", json_integer((json_int_t)t->pods));
	set(d, o, "unscheduledPods", json_integer((json_int_t)t->unscheduled));
	mem = memory_obj(d, t->unit, t->mem_total, t->mem_allocated);
	/* pending: what pods on no node ask for, so that allocated + pending
	 * is all the pods ask for; unassigned: the part of allocated held by
	 * pods whose GPU is not chosen yet (each node's memory.pending) */
	set(d, mem, "pending", num(t->mem_pending));
	set(d, mem, "unassigned", num(t->mem_unassigned));
	set(d, mem, "unhealthy", num(t->mem_unhealthy));
	set(d, o, "memory", mem);
	set(d, o, "core", core_obj(d, t->core_total, t->core_allocated));
	return o;
}

static json_t *fragmentation_obj(struct doc *d, const struct model *m, enum mem_unit u)
{
	json_t *o = json_object();
	const struct model_frag *f = &m->frag[u];

	set(d, o, "unit", json_string(column_unit_name(u)));
	set(d, o, "largestFreeOnOneGPU", num(f->largest));
	set(d, o, "gpusWithLargestFree", json_integer((json_int_t)f->gpus));
	set(d, o, "freeOnUnschedulableNodes", num(f->free_unschedulable));
	set(d, o, "unschedulableNodes", json_integer((json_int_t)f->unschedulable_nodes));
	return o;
}

/* The document is produced member by member, and its big arrays element by
 * element, to one of three writers: a tree (render_json_document), indented
 * JSON or YAML.  The two streams write each element as soon as it is built
 * and free it, so what is held at once is one node's or one pod's part of
 * the document, not the whole of it; the bytes are the same as dumping the
 * whole tree. */
struct doc_writer {
	struct doc d;
	int (*member)(struct doc_writer *w, const char *key, json_t *v); /* takes v */
	int (*array_start)(struct doc_writer *w, const char *key);
	int (*element)(struct doc_writer *w, json_t *v); /* takes v */
	int (*array_end)(struct doc_writer *w);
};

static int walk_document(const struct model *m, struct doc_writer *w)
{
	struct doc *d = &w->d;
	json_t *totals, *arr;

	if (w->member(w, "apiVersion", json_string(RENDER_API_VERSION)) < 0 ||
	    w->member(w, "kind", json_string(RENDER_KIND)) < 0 ||
	    w->member(w, "unit", json_string(column_unit_name(m->totals.unit))) < 0 ||
	    w->member(w, "mixedUnits", json_boolean(m->totals.mixed_units)) < 0)
		return -1;

	totals = totals_obj(d, &m->totals, false);
	/* per unit the nodes are shown in, never added across units */
	arr = json_array();
	for (int u = 0; u <= UNIT_SLOTS; u++) {
		const struct model_totals *t = &m->units[u].totals;

		if (t->nodes || t->unscheduled)
			append(d, arr, totals_obj(d, t, true));
	}
	set(d, totals, "byUnit", arr);
	arr = json_array();
	for (int u = 0; u < UNIT_SLOTS; u++)
		if (m->units[u].totals.nodes)
			append(d, arr, fragmentation_obj(d, m, (enum mem_unit)u));
	if (w->member(w, "fragmentation", arr) < 0 || w->member(w, "totals", totals) < 0)
		return -1;

	if (w->array_start(w, "nodes") < 0)
		return -1;
	for (size_t i = 0; i < m->nnodes; i++)
		if (w->element(w, node_obj(d, m, &m->nodes[i])) < 0)
			return -1;
	if (w->array_end(w) < 0 || w->array_start(w, "pods") < 0)
		return -1;
	for (size_t i = 0; i < m->npods; i++)
		if (m->pods[i].node && w->element(w, pod_obj(d, m, &m->pods[i])) < 0)
			return -1;
	if (w->array_end(w) < 0 || w->array_start(w, "unscheduledPods") < 0)
		return -1;
	for (size_t i = 0; i < m->nunscheduled; i++)
		if (w->element(w, pod_obj(d, m, &m->pods[m->unscheduled[i]])) < 0)
			return -1;
	if (w->array_end(w) < 0 || w->array_start(w, "warnings") < 0)
		return -1;
	for (size_t i = 0; i < m->warnings.len; i++) {
		const struct warning *wn = &m->warnings.items[i];
		json_t *o = json_object();

		set(d, o, "code", json_string(wn->code));
		set(d, o, "object", str_or_null(wn->object));
		set(d, o, "message", json_string(wn->message));
		if (w->element(w, o) < 0)
			return -1;
	}
	if (w->array_end(w) < 0)
		return -1;

	if (m->usage.configured) {
		json_t *u = json_object();

		set(d, u, "gpusKnown", json_integer((json_int_t)m->usage.gpus_known));
		set(d, u, "gpusUnknown", json_integer((json_int_t)m->usage.gpus_unknown));
		arr = json_array();
		for (size_t i = 0; i < m->usage.findings.len; i++) {
			const struct warning *wn = &m->usage.findings.items[i];
			json_t *o = json_object();

			set(d, o, "code", json_string(wn->code));
			set(d, o, "object", str_or_null(wn->object));
			set(d, o, "message", json_string(wn->message));
			append(d, arr, o);
		}
		set(d, u, "findings", arr);
		if (w->member(w, "usage", u) < 0)
			return -1;
	}
	return 0;
}

/* --- the tree ---------------------------------------------------------------- */

struct tree_writer {
	struct doc_writer w;
	json_t *root, *arr;
};

static int tree_member(struct doc_writer *w, const char *key, json_t *v)
{
	set(&w->d, ((struct tree_writer *)w)->root, key, v);
	return 0;
}

static int tree_array_start(struct doc_writer *w, const char *key)
{
	struct tree_writer *t = (struct tree_writer *)w;

	t->arr = json_array();
	set(&w->d, t->root, key, t->arr);
	return 0;
}

static int tree_element(struct doc_writer *w, json_t *v)
{
	append(&w->d, ((struct tree_writer *)w)->arr, v);
	return 0;
}

static int tree_array_end(struct doc_writer *w)
{
	((struct tree_writer *)w)->arr = NULL;
	return 0;
}

json_t *render_json_document(const struct model *m)
{
	struct tree_writer t = {{{false}, tree_member, tree_array_start, tree_element, tree_array_end}, json_object(),
				NULL};

	walk_document(m, &t.w);
	if (t.w.d.failed) {
		json_decref(t.root);
		return NULL;
	}
	return t.root;
}

/* --- indented JSON --------------------------------------------------------------- */

struct json_writer {
	struct doc_writer w;
	FILE *out;
	size_t members, elements;
	bool io_failed;
};

/* v as json_dumpf() writes it at that depth: every line after the first
 * indented by indent more spaces (strings hold no raw newline).  Takes v. */
static int json_put(struct json_writer *j, json_t *v, int indent)
{
	char *s;

	if (!v || j->w.d.failed) {
		json_decref(v);
		j->w.d.failed = true;
		return -1;
	}
	s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(v);
	if (!s) {
		j->w.d.failed = true;
		return -1;
	}
	for (char *p = s, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			if (fputs(p, j->out) == EOF)
				j->io_failed = true;
			break;
		}
		if (fwrite(p, 1, (size_t)(nl - p) + 1, j->out) != (size_t)(nl - p) + 1 ||
		    fprintf(j->out, "%*s", indent, "") < 0)
			j->io_failed = true;
	}
	free(s);
	return j->io_failed ? -1 : 0;
}

static int json_key(struct json_writer *j, const char *key)
{
	if (fprintf(j->out, "%s\n  \"%s\": ", j->members++ ? "," : "{", key) < 0)
		j->io_failed = true;
	return j->io_failed ? -1 : 0;
}

static int json_member(struct doc_writer *w, const char *key, json_t *v)
{
	struct json_writer *j = (struct json_writer *)w;

	if (json_key(j, key) < 0) {
		json_decref(v);
		return -1;
	}
	return json_put(j, v, 2);
}

static int json_array_start(struct doc_writer *w, const char *key)
{
	struct json_writer *j = (struct json_writer *)w;

	j->elements = 0;
	return json_key(j, key) < 0 || fputc('[', j->out) == EOF ? -1 : 0;
}

static int json_element(struct doc_writer *w, json_t *v)
{
	struct json_writer *j = (struct json_writer *)w;

	if (fprintf(j->out, "%s\n    ", j->elements++ ? "," : "") < 0) {
		json_decref(v);
		return -1;
	}
	return json_put(j, v, 4);
}

static int json_array_end(struct doc_writer *w)
{
	struct json_writer *j = (struct json_writer *)w;

	return fputs(j->elements ? "\n  ]" : "]", j->out) == EOF ? -1 : 0;
}

int render_json(FILE *out, const struct model *m, struct kerr *err)
{
	struct json_writer j = {{{false}, json_member, json_array_start, json_element, json_array_end}, out, 0, 0,
				false};
	int rc = walk_document(m, &j.w);

	if (rc == 0 && (fputs("\n}\n", out) == EOF || fflush(out) == EOF))
		rc = -1;
	if (j.w.d.failed && !j.io_failed)
		return kerr_set(err, KERR_OTHER, "cannot build the report");
	if (rc < 0)
		return kerr_set(err, KERR_OTHER, "cannot write the report");
	return 0;
}

/* A string YAML would read back as something else (null, a boolean, a
 * number) or that is empty must be quoted. */
static bool needs_quotes(const char *s)
{
	static const char *const words[] = {
		"null", "~", "true", "false", "yes", "no", "on", "off", "y", "n", NULL,
	};
	char *end;

	if (!*s)
		return true;
	for (size_t i = 0; words[i]; i++)
		if (strcasecmp(s, words[i]) == 0)
			return true;
	strtod(s, &end);
	if (*end == '\0')
		return true;
	/* 0x1F, 0o17, .inf, .nan, 1_000 and friends */
	if (s[0] == '.' || ((s[0] == '-' || s[0] == '+') && s[1] == '.') || isdigit((unsigned char)s[0]))
		return true;
	return false;
}

static int yaml_write_handler(void *data, unsigned char *buffer, size_t size)
{
	return fwrite(buffer, 1, size, data) == size;
}

static int emit_scalar(yaml_emitter_t *em, const char *text, bool quote)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1,
					  quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE))
		return -1;
	return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int emit_value(yaml_emitter_t *em, const json_t *v, int depth)
{
	yaml_event_t ev;
	char buf[64];

	if (depth > 64)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *val;

		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
		    !yaml_emitter_emit(em, &ev))
			return -1;
		json_object_foreach((json_t *)v, key, val) {
			if (emit_scalar(em, key, needs_quotes(key)) < 0 || emit_value(em, val, depth + 1) < 0)
				return -1;
		}
		if (!yaml_mapping_end_event_initialize(&ev) || !yaml_emitter_emit(em, &ev))
			return -1;
		return 0;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *val;

		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
		    !yaml_emitter_emit(em, &ev))
			return -1;
		json_array_foreach(v, i, val) {
			if (emit_value(em, val, depth + 1) < 0)
				return -1;
		}
		if (!yaml_sequence_end_event_initialize(&ev) || !yaml_emitter_emit(em, &ev))
			return -1;
		return 0;
	}
	case JSON_STRING:
		return emit_scalar(em, json_string_value(v), needs_quotes(json_string_value(v)));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return emit_scalar(em, buf, false);
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
		return emit_scalar(em, buf, false);
	case JSON_TRUE:
		return emit_scalar(em, "true", false);
	case JSON_FALSE:
		return emit_scalar(em, "false", false);
	case JSON_NULL:
		return emit_scalar(em, "null", false);
	}
	return -1;
}

static int yaml_start(yaml_emitter_t *em, FILE *out)
{
	yaml_event_t ev;

	if (!yaml_emitter_initialize(em))
		return -1;
	yaml_emitter_set_output(em, yaml_write_handler, out);
	yaml_emitter_set_unicode(em, 1);
	yaml_emitter_set_width(em, -1);
	if (yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(em, &ev) &&
	    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(em, &ev))
		return 0;
	return -1;
}

static int yaml_finish(yaml_emitter_t *em)
{
	yaml_event_t ev;

	if (yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(em, &ev) &&
	    yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev) && yaml_emitter_flush(em))
		return 0;
	return -1;
}

int render_yaml_value(FILE *out, const json_t *v, struct kerr *err)
{
	yaml_emitter_t em;
	int rc = -1;

	if (yaml_start(&em, out) == 0 && emit_value(&em, v, 0) == 0 && yaml_finish(&em) == 0)
		rc = 0;
	yaml_emitter_delete(&em);
	if (rc < 0)
		return kerr_set(err, KERR_OTHER, "cannot write the report");
	return 0;
}

/* The document streamed as YAML events: the same emitter calls as for the
 * whole tree, made as each part is built. */
struct yaml_writer {
	struct doc_writer w;
	yaml_emitter_t em;
};

static int yaml_put(struct yaml_writer *y, json_t *v)
{
	int rc = !v || y->w.d.failed ? -1 : emit_value(&y->em, v, 1);

	json_decref(v);
	return rc;
}

static int yaml_member(struct doc_writer *w, const char *key, json_t *v)
{
	struct yaml_writer *y = (struct yaml_writer *)w;

	if (emit_scalar(&y->em, key, needs_quotes(key)) < 0) {
		json_decref(v);
		return -1;
	}
	return yaml_put(y, v);
}

static int yaml_array_start(struct doc_writer *w, const char *key)
{
	struct yaml_writer *y = (struct yaml_writer *)w;
	yaml_event_t ev;

	if (emit_scalar(&y->em, key, needs_quotes(key)) < 0 ||
	    !yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
	    !yaml_emitter_emit(&y->em, &ev))
		return -1;
	return 0;
}

static int yaml_element(struct doc_writer *w, json_t *v)
{
	return yaml_put((struct yaml_writer *)w, v);
}

static int yaml_array_end(struct doc_writer *w)
{
	yaml_event_t ev;

	if (!yaml_sequence_end_event_initialize(&ev) || !yaml_emitter_emit(&((struct yaml_writer *)w)->em, &ev))
		return -1;
	return 0;
}

int render_yaml(FILE *out, const struct model *m, struct kerr *err)
{
	struct yaml_writer y = {{{false}, yaml_member, yaml_array_start, yaml_element, yaml_array_end}, {0}};
	yaml_event_t ev;
	int rc = -1;

	if (yaml_start(&y.em, out) == 0 &&
	    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) &&
	    yaml_emitter_emit(&y.em, &ev) && walk_document(m, &y.w) == 0 && yaml_mapping_end_event_initialize(&ev) &&
	    yaml_emitter_emit(&y.em, &ev) && yaml_finish(&y.em) == 0)
		rc = 0;
	yaml_emitter_delete(&y.em);
	if (rc < 0)
		return kerr_set(err, KERR_OTHER, y.w.d.failed ? "cannot build the report" : "cannot write the report");
	return 0;
}

json_t *render_groups_json(const struct model_groups *g)
{
	struct doc d = {false};
	json_t *o = json_object(), *rows = json_array();

	set(&d, o, "by", json_string(model_by_name(g->by)));
	for (size_t i = 0; i < g->n; i++) {
		const struct model_group_row *r = &g->rows[i];
		json_t *row = json_object();

		set(&d, row, "name", json_string(r->key));
		set(&d, row, "unit", json_string(column_unit_name(r->unit)));
		set(&d, row, "nodes", g->per_node ? json_integer((json_int_t)r->nodes) : json_null());
		set(&d, row, "pods", json_integer((json_int_t)r->pods));
		set(&d, row, "allocated", num(r->mem_allocated));
		set(&d, row, "total", g->per_node ? num(r->mem_total) : json_null());
		set(&d, row, "coreAllocated", num(r->core_allocated));
		append(&d, rows, row);
	}
	set(&d, o, "rows", rows);
	if (d.failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}
