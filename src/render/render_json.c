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
#include "render_doc.h"

static json_t *pod_obj(struct doc *d, const struct model *m, const struct model_pod *p)
{
	json_t *o = json_object(), *arr;
	const struct model_node *n = p->node ? model_find_node(m, p->node) : NULL;

	doc_set(d, o, "namespace", json_string(p->namespace));
	doc_set(d, o, "name", json_string(p->name));
	doc_set(d, o, "uid", doc_str_or_null(p->uid));
	doc_set(d, o, "phase", doc_str_or_null(p->phase));
	doc_set(d, o, "node", doc_str_or_null(p->node));
	doc_set(d, o, "scheme", doc_str_or_null(p->scheme ? p->scheme->name : NULL));
	doc_set(d, o, "assigned", json_boolean(p->assigned));
	doc_set(d, o, "unit", json_string(mem_unit_name(n ? n->unit : p->unit)));
	doc_set(d, o, "memory", doc_num(p->mem));
	doc_set(d, o, "core", doc_num(p->core));
	if (p->pending_reason)
		doc_set(d, o, "pendingReason", json_string(p->pending_reason));
	if (p->claim)
		doc_set(d, o, "waitsForClaim", json_string(p->claim));
	if (p->via)
		doc_set(d, o, "heldThrough", json_string(p->via));
	arr = json_array();
	for (size_t i = 0; i < p->ncontainers; i++) {
		json_t *c = json_object();

		doc_set(d, c, "name", json_string(p->container_names[i]));
		doc_set(d, c, "memory", doc_num(p->container_mem[i]));
		doc_set(d, c, "core", doc_num(p->container_core[i]));
		doc_append(d, arr, c);
	}
	doc_set(d, o, "containers", arr);
	arr = json_array();
	for (size_t i = 0; i < p->ngpus; i++) {
		json_t *g = json_object();

		doc_set(d, g, "index", p->gpus[i].gpu >= 0 ? doc_num(p->gpus[i].gpu) : json_null());
		doc_set(d, g, "pending", json_boolean(p->gpus[i].gpu < 0));
		doc_set(d, g, "deviceId", doc_str_or_null(p->gpus[i].device_id));
		doc_set(d, g, "memory", doc_num(p->gpus[i].mem));
		doc_set(d, g, "core", doc_num(p->gpus[i].core));
		doc_append(d, arr, g);
	}
	doc_set(d, o, "gpus", arr);
	if (m->usage.configured) {
		json_t *u = json_object();

		doc_set(d, u, "usedBytes", p->used_known ? doc_num(p->used_bytes) : json_null());
		doc_set(d, o, "usage", u);
	}
	return o;
}

/* A node's object: the columns of the report, in the document's order. */
static json_t *node_obj(struct doc *d, const struct model *m, const struct model_node *n)
{
	json_t *o = json_object();

	for (size_t i = 0; i < column_json_count; i++) {
		const struct column *c = &columns[column_json_order[i]];
		json_t *in = c->json_in == COL_NONE ? o : json_object_get(o, columns[c->json_in].json_key);

		if (column_in_json(c, m))
			doc_set(d, in, c->json_key, c->value(d, m, n));
	}
	return o;
}

static json_t *totals_obj(struct doc *d, const struct model_totals *t, bool with_unit)
{
	json_t *o = json_object(), *mem;

	if (with_unit)
		doc_set(d, o, "unit", json_string(mem_unit_name(t->unit)));
	doc_set(d, o, "nodes", json_integer((json_int_t)t->nodes));
	doc_set(d, o, "gpus", json_integer((json_int_t)t->gpus));
	doc_set(d, o, "pods", json_integer((json_int_t)t->pods));
	doc_set(d, o, "unscheduledPods", json_integer((json_int_t)t->unscheduled));
	mem = doc_memory(d, t->unit, t->mem_total, t->mem_allocated, t->mem_free);
	/* pending: what pods on no node ask for, so that allocated + pending
	 * is all the pods ask for; unassigned: the part of allocated held by
	 * pods whose GPU is not chosen yet (each node's memory.pending) */
	doc_set(d, mem, "pending", doc_num(t->mem_pending));
	doc_set(d, mem, "unassigned", doc_num(t->mem_unassigned));
	doc_set(d, mem, "unhealthy", doc_num(t->mem_unhealthy));
	doc_set(d, o, "memory", mem);
	doc_set(d, o, "core", doc_core(d, t->core_total, t->core_allocated));
	return o;
}

static bool any_common_request(const struct model *m, enum mem_unit u)
{
	for (size_t i = 0; i < m->nnodes; i++)
		if (m->nodes[i].unit == u && m->nodes[i].common_request > 0)
			return true;
	return false;
}

static json_t *fragmentation_obj(struct doc *d, const struct model *m, enum mem_unit u)
{
	json_t *o = json_object();
	const struct model_frag *f = &m->frag[u];

	doc_set(d, o, "unit", json_string(mem_unit_name(u)));
	doc_set(d, o, "largestFreeOnOneGPU", doc_num(f->largest));
	doc_set(d, o, "gpusWithLargestFree", json_integer((json_int_t)f->gpus));
	doc_set(d, o, "freeOnUnschedulableNodes", doc_num(f->free_unschedulable));
	doc_set(d, o, "unschedulableNodes", json_integer((json_int_t)f->unschedulable_nodes));
	/* the nodes' strandedFree summed, null where none has a common request */
	doc_set(d, o, "strandedFree", any_common_request(m, u) ? doc_num(f->stranded) : json_null());
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
	    w->member(w, "unit", json_string(mem_unit_name(m->totals.unit))) < 0 ||
	    w->member(w, "mixedUnits", json_boolean(m->totals.mixed_units)) < 0)
		return -1;

	totals = totals_obj(d, &m->totals, false);
	/* per unit the nodes are shown in, never added across units */
	arr = json_array();
	for (int u = 0; u <= UNIT_SLOTS; u++) {
		const struct model_totals *t = &m->units[u].totals;

		if (t->nodes || t->unscheduled)
			doc_append(d, arr, totals_obj(d, t, true));
	}
	doc_set(d, totals, "byUnit", arr);
	arr = json_array();
	for (int u = 0; u < UNIT_SLOTS; u++)
		if (m->units[u].totals.nodes)
			doc_append(d, arr, fragmentation_obj(d, m, (enum mem_unit)u));
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

		doc_set(d, o, "code", json_string(wn->code));
		doc_set(d, o, "object", doc_str_or_null(wn->object));
		doc_set(d, o, "message", json_string(wn->message));
		if (w->element(w, o) < 0)
			return -1;
	}
	if (w->array_end(w) < 0)
		return -1;

	if (m->usage.configured) {
		json_t *u = json_object();

		doc_set(d, u, "gpusKnown", json_integer((json_int_t)m->usage.gpus_known));
		doc_set(d, u, "gpusUnknown", json_integer((json_int_t)m->usage.gpus_unknown));
		arr = json_array();
		for (size_t i = 0; i < m->usage.findings.len; i++) {
			const struct warning *wn = &m->usage.findings.items[i];
			json_t *o = json_object();

			doc_set(d, o, "code", json_string(wn->code));
			doc_set(d, o, "object", doc_str_or_null(wn->object));
			doc_set(d, o, "message", json_string(wn->message));
			doc_append(d, arr, o);
		}
		doc_set(d, u, "findings", arr);
		if (w->member(w, "usage", u) < 0)
			return -1;
	}
	if (m->dra_api_version) {
		json_t *o = json_object();

		doc_set(d, o, "apiVersion", json_string(m->dra_api_version));
		if (w->member(w, "dynamicResourceAllocation", o) < 0)
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
	doc_set(&w->d, ((struct tree_writer *)w)->root, key, v);
	return 0;
}

static int tree_array_start(struct doc_writer *w, const char *key)
{
	struct tree_writer *t = (struct tree_writer *)w;

	t->arr = json_array();
	doc_set(&w->d, t->root, key, t->arr);
	return 0;
}

static int tree_element(struct doc_writer *w, json_t *v)
{
	doc_append(&w->d, ((struct tree_writer *)w)->arr, v);
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

	doc_set(&d, o, "by", json_string(model_by_name(g->by)));
	for (size_t i = 0; i < g->n; i++) {
		const struct model_group_row *r = &g->rows[i];
		json_t *row = json_object();

		doc_set(&d, row, "name", json_string(r->key));
		doc_set(&d, row, "unit", json_string(mem_unit_name(r->unit)));
		doc_set(&d, row, "nodes", g->per_node ? json_integer((json_int_t)r->nodes) : json_null());
		doc_set(&d, row, "pods", json_integer((json_int_t)r->pods));
		doc_set(&d, row, "allocated", doc_num(r->mem_allocated));
		doc_set(&d, row, "total", g->per_node ? doc_num(r->mem_total) : json_null());
		doc_set(&d, row, "coreAllocated", doc_num(r->core_allocated));
		doc_append(&d, rows, row);
	}
	doc_set(&d, o, "rows", rows);
	if (d.failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}
