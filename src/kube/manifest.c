/* Pod manifests.  YAML goes through libyaml's document loader into a jansson
 * tree (JSON text straight through jansson), and one walker reads the pod
 * from that tree, so both spellings of a manifest mean the same thing. */
#include "manifest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "yaml_json.h"

/* Plain null spellings are absent values; everything else stays text,
 * which is how the fields read here are typed anyway. */
static json_t *text_scalar(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;
	size_t len = n->data.scalar.length;

	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (len == 0 || (len == 1 && v[0] == '~') || (len == 4 && memcmp(v, "null", 4) == 0)))
		return json_null();
	return json_stringn_nocheck(v, len);
}

static json_t *parse_yaml(const char *buf, size_t len, struct kerr *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	/* the tree built from a manifest is capped in nodes and depth */
	struct yaml_json c = {.doc = &doc, .budget = 200000, .skip_bad_keys = true, .scalar = text_scalar};
	json_t *out = NULL;

	if (!yaml_parser_initialize(&parser)) {
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	for (;;) {
		yaml_node_t *root;

		if (!yaml_parser_load(&parser, &doc)) {
			kerr_set(err, KERR_OTHER, "error parsing manifest: %s at line %zu column %zu",
				 parser.problem ? parser.problem : "invalid YAML", parser.problem_mark.line + 1,
				 parser.problem_mark.column + 1);
			break;
		}
		root = yaml_document_get_root_node(&doc);
		if (!root) {
			/* the end of the stream: no document held anything */
			yaml_document_delete(&doc);
			kerr_set(err, KERR_OTHER, "error parsing manifest: no objects passed to read");
			break;
		}
		/* an empty document between "---" lines is skipped, as kubectl does */
		if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0) {
			yaml_document_delete(&doc);
			continue;
		}
		out = yaml_json_build(&c, root, 0);
		yaml_document_delete(&doc);
		if (!out)
			kerr_set(err, KERR_OTHER, c.too_big ? "error parsing manifest: the document is too large or nested too deeply"
							    : "out of memory");
		break;
	}
	yaml_parser_delete(&parser);
	return out;
}

/* A scalar as text: strings as they are, numbers and booleans as JSON
 * writes them (a limit written as a bare number is common). */
static char *scalar_text(const json_t *v)
{
	char *s = NULL;

	if (json_is_string(v))
		return strndup(json_string_value(v), json_string_length(v));
	if (json_is_integer(v)) {
		if (asprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0)
			return NULL;
		return s;
	}
	if (json_is_real(v)) {
		if (asprintf(&s, "%.17g", json_real_value(v)) < 0)
			return NULL;
		return s;
	}
	if (json_is_boolean(v))
		return strdup(json_is_true(v) ? "true" : "false");
	return NULL;
}

/* Text of o[key], or NULL when absent or not a scalar; *oom set on failure. */
static char *field_text(const json_t *o, const char *key, bool *oom)
{
	const json_t *v = json_object_get(o, key);
	char *s;

	if (!v || json_is_null(v) || json_is_object(v) || json_is_array(v))
		return NULL;
	s = scalar_text(v);
	if (!s)
		*oom = true;
	return s;
}

static int read_map(struct kvlist *dst, const json_t *map)
{
	const char *k;
	json_t *v;

	if (!json_is_object(map))
		return 0;
	json_object_foreach((json_t *)map, k, v) {
		char *s = scalar_text(v);
		int rc;

		if (!s) {
			if (json_is_object(v) || json_is_array(v) || json_is_null(v))
				continue;
			return -1;
		}
		rc = kvlist_add(dst, k, strlen(k), s, strlen(s));
		free(s);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Each object of the JSON array arr, read by one() into the next of the
 * zeroed size-byte elements of *items (allocated here for every entry);
 * *len counts the objects read.  On failure what was read stays in *items
 * for the owner's free. */
static int read_objects(const json_t *arr, size_t size, void **items, size_t *len,
			int (*one)(void *item, const json_t *obj))
{
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
	char *v;

	if (!n)
		return 0;
	v = calloc(n, size);
	if (!v)
		return -1;
	*items = v;
	for (size_t i = 0; i < n; i++) {
		const json_t *o = json_array_get(arr, i);

		if (!json_is_object(o))
			continue;
		/* counted first, so that a half-read element is freed with the rest */
		(*len)++;
		if (one(v + (*len - 1) * size, o) < 0)
			return -1;
	}
	return 0;
}

static int read_container(void *item, const json_t *c)
{
	struct k8s_container *ct = item;
	bool oom = false;

	ct->name = field_text(c, "name", &oom);
	ct->restart_always = json_is_string(json_object_get(c, "restartPolicy")) &&
			     strcmp(json_string_value(json_object_get(c, "restartPolicy")), "Always") == 0;
	if (oom || read_map(&ct->limits, json_object_get(json_object_get(c, "resources"), "limits")) < 0)
		return -1;
	return 0;
}

static int read_toleration(void *item, const json_t *t)
{
	struct k8s_toleration *o = item;
	bool oom = false;

	o->key = field_text(t, "key", &oom);
	o->op = field_text(t, "operator", &oom);
	o->value = field_text(t, "value", &oom);
	o->effect = field_text(t, "effect", &oom);
	return oom ? -1 : 0;
}

static int read_requirement(void *item, const json_t *e)
{
	struct k8s_node_requirement *r = item;
	const json_t *vals = json_object_get(e, "values");
	size_t n = json_is_array(vals) ? json_array_size(vals) : 0;
	bool oom = false;

	r->key = field_text(e, "key", &oom);
	r->op = field_text(e, "operator", &oom);
	if (oom)
		return -1;
	if (!n)
		return 0;
	r->values = calloc(n, sizeof(*r->values));
	if (!r->values)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char *s = scalar_text(json_array_get(vals, i));

		if (s)
			r->values[r->nvalues++] = s;
		else if (json_is_string(json_array_get(vals, i)))
			return -1;
	}
	return 0;
}

/* spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution:
 * matchExpressions only (matchFields names node fields, not labels, and is
 * read as a term no label set satisfies). */
static int read_node_terms(struct k8s_pod *p, const json_t *spec)
{
	const json_t *req = json_object_get(json_object_get(json_object_get(spec, "affinity"), "nodeAffinity"),
					    "requiredDuringSchedulingIgnoredDuringExecution");
	const json_t *terms = json_object_get(req, "nodeSelectorTerms");
	size_t n = json_is_array(terms) ? json_array_size(terms) : 0;

	if (!n)
		return 0;
	p->node_terms = calloc(n, sizeof(*p->node_terms));
	if (!p->node_terms)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const json_t *exprs = json_object_get(json_array_get(terms, i), "matchExpressions");
		struct k8s_node_term *t = &p->node_terms[p->nnode_terms++];
		void *reqs = NULL;
		int rc = read_objects(exprs, sizeof(*t->reqs), &reqs, &t->nreqs, read_requirement);

		t->reqs = reqs;
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The pod object: metadata and spec of a Pod, or of a workload's template. */
static int read_pod(struct k8s_pod *p, const json_t *meta, const json_t *spec, const json_t *owner_meta)
{
	void *items = NULL;
	bool oom = false;
	int rc;

	/* a template's labels and annotations are the pod's; its name is the workload's */
	p->name = field_text(meta, "name", &oom);
	p->namespace = field_text(meta, "namespace", &oom);
	p->uid = field_text(meta, "uid", &oom);
	if (!p->name)
		p->name = field_text(owner_meta, "name", &oom);
	if (!p->namespace)
		p->namespace = field_text(owner_meta, "namespace", &oom);
	p->node_name = field_text(spec, "nodeName", &oom);
	p->scheduler_name = field_text(spec, "schedulerName", &oom);
	if (oom)
		return -1;
	if (read_map(&p->labels, json_object_get(meta, "labels")) < 0 ||
	    read_map(&p->annotations, json_object_get(meta, "annotations")) < 0 ||
	    read_map(&p->node_selector, json_object_get(spec, "nodeSelector")) < 0)
		return -1;
	rc = read_objects(json_object_get(spec, "containers"), sizeof(*p->containers), &items, &p->ncontainers,
			  read_container);
	p->containers = items;
	if (rc < 0)
		return -1;
	items = NULL;
	rc = read_objects(json_object_get(spec, "initContainers"), sizeof(*p->init_containers), &items,
			  &p->ninit_containers, read_container);
	p->init_containers = items;
	if (rc < 0)
		return -1;
	items = NULL;
	rc = read_objects(json_object_get(spec, "tolerations"), sizeof(*p->tolerations), &items, &p->ntolerations,
			  read_toleration);
	p->tolerations = items;
	if (rc < 0 || read_node_terms(p, spec) < 0)
		return -1;
	p->has_node_selector = p->node_selector.len > 0 || p->nnode_terms > 0;
	return 0;
}

int manifest_pod_from_json(const json_t *obj, struct k8s_pod **ret, struct kerr *err)
{
	const json_t *kind_v = json_object_get(obj, "kind");
	const char *kind = json_is_string(kind_v) ? json_string_value(kind_v) : NULL;
	const json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
	const json_t *tmpl;
	struct k8s_pod *p;

	*ret = NULL;
	if (!json_is_object(obj))
		return kerr_set(err, KERR_OTHER, "error parsing manifest: the document is not an object");
	if (!kind)
		return kerr_set(err, KERR_OTHER, "error parsing manifest: Object 'Kind' is missing");
	if (strcmp(kind, "Pod") == 0) {
		tmpl = obj;
	} else if (strcmp(kind, "Deployment") == 0 || strcmp(kind, "ReplicaSet") == 0 ||
		   strcmp(kind, "StatefulSet") == 0 || strcmp(kind, "Job") == 0 ||
		   strcmp(kind, "DaemonSet") == 0) {
		tmpl = json_object_get(spec, "template");
	} else if (strcmp(kind, "CronJob") == 0) {
		tmpl = json_object_get(json_object_get(json_object_get(spec, "jobTemplate"), "spec"), "template");
	} else {
		return kerr_set(err, KERR_OTHER,
				"error parsing manifest: kind \"%s\" has no pod template (want a Pod, Deployment, "
				"ReplicaSet, StatefulSet, Job, CronJob or DaemonSet)",
				kind);
	}
	if (!json_is_object(json_object_get(tmpl, "spec")))
		return kerr_set(err, KERR_OTHER, "error parsing manifest: %s has no pod spec", kind);
	p = calloc(1, sizeof(*p));
	if (!p)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (read_pod(p, json_object_get(tmpl, "metadata"), json_object_get(tmpl, "spec"), meta) < 0) {
		k8s_pod_free(p);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	*ret = p;
	return 0;
}

int manifest_read_pod(const char *buf, size_t len, struct k8s_pod **ret, struct kerr *err)
{
	json_t *root;
	size_t i = 0;
	int rc;

	*ret = NULL;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i < len && buf[i] == '{') {
		json_error_t jerr;

		root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &jerr);
		if (!root)
			return kerr_set(err, KERR_OTHER, "error parsing manifest: %s at line %d column %d", jerr.text,
					jerr.line, jerr.column);
	} else {
		root = parse_yaml(buf, len, err);
		if (!root)
			return -1;
	}
	rc = manifest_pod_from_json(root, ret, err);
	json_decref(root);
	return rc;
}
