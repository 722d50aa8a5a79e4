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

/* Each document of a YAML stream, as a tree handed to one(); an empty
 * document between "---" lines is skipped, as kubectl does. */
static int each_yaml_document(const char *buf, size_t len, int (*one)(void *ud, json_t *doc, struct kerr *err),
			      void *ud, struct kerr *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	/* the tree built from a manifest is capped in nodes and depth */
	struct yaml_json c = {.doc = &doc, .budget = 200000, .skip_bad_keys = true, .scalar = text_scalar};
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return kerr_set(err, KERR_OTHER, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (rc == 0) {
		yaml_node_t *root;
		json_t *out;

		if (!yaml_parser_load(&parser, &doc)) {
			rc = kerr_set(err, KERR_OTHER, "error parsing manifest: %s at line %zu column %zu",
				      parser.problem ? parser.problem : "invalid YAML", parser.problem_mark.line + 1,
				      parser.problem_mark.column + 1);
			break;
		}
		root = yaml_document_get_root_node(&doc);
		if (!root) {
			/* the end of the stream */
			yaml_document_delete(&doc);
			break;
		}
		if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0) {
			yaml_document_delete(&doc);
			continue;
		}
		out = yaml_json_build(&c, root, 0);
		yaml_document_delete(&doc);
		if (!out)
			rc = kerr_set(err, KERR_OTHER, c.too_big ? "error parsing manifest: the document is too large or nested too deeply"
							       : "out of memory");
		else
			rc = one(ud, out, err);
		json_decref(out);
	}
	yaml_parser_delete(&parser);
	return rc;
}

static int keep_first(void *ud, json_t *doc, struct kerr *err)
{
	json_t **first = ud;

	(void)err;
	if (!*first)
		*first = json_incref(doc);
	return 0;
}

static json_t *parse_yaml(const char *buf, size_t len, struct kerr *err)
{
	json_t *first = NULL;

	if (each_yaml_document(buf, len, keep_first, &first, err) < 0) {
		json_decref(first);
		return NULL;
	}
	if (!first)
		kerr_set(err, KERR_OTHER, "error parsing manifest: no objects passed to read");
	return first;
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
static int read_pod_claim(void *item, const json_t *c)
{
	struct k8s_pod_claim *o = item;
	bool oom = false;

	o->name = field_text(c, "name", &oom);
	o->claim_name = field_text(c, "resourceClaimName", &oom);
	o->template_name = field_text(c, "resourceClaimTemplateName", &oom);
	return oom ? -1 : 0;
}

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
	if (json_is_integer(json_object_get(spec, "priority")))
		p->priority = json_integer_value(json_object_get(spec, "priority"));
	else if (json_is_string(json_object_get(spec, "priority")))
		p->priority = strtoll(json_string_value(json_object_get(spec, "priority")), NULL, 10);
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
	items = NULL;
	rc = read_objects(json_object_get(spec, "resourceClaims"), sizeof(*p->claims), &items, &p->nclaims,
			  read_pod_claim);
	p->claims = items;
	if (rc < 0)
		return -1;
	p->has_node_selector = p->node_selector.len > 0 || p->nnode_terms > 0;
	return 0;
}

/* The pod template of an object of this kind, or NULL when the kind has
 * none (*known false) or the object lacks it (*known true). */
static const json_t *template_of(const json_t *obj, const char *kind, bool *known)
{
	const json_t *spec = json_object_get(obj, "spec");
	static const char *const with_template[] = {"Deployment", "ReplicaSet", "StatefulSet", "Job", "DaemonSet"};

	*known = true;
	if (strcmp(kind, "Pod") == 0)
		return obj;
	for (size_t i = 0; i < sizeof(with_template) / sizeof(with_template[0]); i++)
		if (strcmp(kind, with_template[i]) == 0)
			return json_object_get(spec, "template");
	if (strcmp(kind, "CronJob") == 0)
		return json_object_get(json_object_get(json_object_get(spec, "jobTemplate"), "spec"), "template");
	*known = false;
	return NULL;
}

int manifest_pod_from_json(const json_t *obj, struct k8s_pod **ret, struct kerr *err)
{
	const json_t *kind_v = json_object_get(obj, "kind");
	const char *kind = json_is_string(kind_v) ? json_string_value(kind_v) : NULL;
	const json_t *meta = json_object_get(obj, "metadata");
	const json_t *tmpl;
	struct k8s_pod *p;
	bool known;

	*ret = NULL;
	if (!json_is_object(obj))
		return kerr_set(err, KERR_OTHER, "error parsing manifest: the document is not an object");
	if (!kind)
		return kerr_set(err, KERR_OTHER, "error parsing manifest: Object 'Kind' is missing");
	tmpl = template_of(obj, kind, &known);
	if (!known)
		return kerr_set(err, KERR_OTHER,
				"error parsing manifest: kind \"%s\" has no pod template (want a Pod, Deployment, "
				"ReplicaSet, StatefulSet, Job, CronJob or DaemonSet)",
				kind);
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

/* A count as a manifest writes it: a number, or its text (YAML scalars are
 * read as text); dflt when absent, -1 when not a count. */
static long count_of(const json_t *o, const char *key, long dflt)
{
	const json_t *v = json_object_get(o, key);
	char *end;
	long n;

	if (!v || json_is_null(v))
		return dflt;
	if (json_is_integer(v))
		return json_integer_value(v) >= 0 ? (long)json_integer_value(v) : -1;
	if (!json_is_string(v))
		return -1;
	n = strtol(json_string_value(v), &end, 10);
	return *json_string_value(v) && !*end && n >= 0 ? n : -1;
}

/* How many pods an object of this kind makes (manifest_workload.pods). */
static long pods_of(const json_t *obj, const char *kind)
{
	const json_t *spec = json_object_get(obj, "spec");
	long par, comp;

	if (strcmp(kind, "Pod") == 0)
		return 1;
	if (strcmp(kind, "DaemonSet") == 0)
		return MANIFEST_PER_NODE;
	if (strcmp(kind, "CronJob") == 0)
		spec = json_object_get(json_object_get(spec, "jobTemplate"), "spec");
	else if (strcmp(kind, "Job") != 0)
		return count_of(spec, "replicas", 1);
	par = count_of(spec, "parallelism", 1);
	comp = count_of(spec, "completions", -2);
	return comp >= 0 && par >= 0 && comp < par ? comp : par;
}

static int skip_kind(struct manifest_set *set, const char *kind)
{
	struct manifest_skipped *k;

	for (size_t i = 0; i < set->nskipped; i++)
		if (strcmp(set->skipped[i].kind, kind) == 0) {
			set->skipped[i].count++;
			return 0;
		}
	k = kube_array_grow(set->skipped, &set->skipped_cap, set->nskipped + 1, sizeof(*k), 4);
	if (!k)
		return -1;
	set->skipped = k;
	k = &set->skipped[set->nskipped];
	if (!(k->kind = strdup(kind)))
		return -1;
	k->count = 1;
	set->nskipped++;
	return 0;
}

static int add_workload(struct manifest_set *set, const json_t *obj, const char *kind, struct kerr *err)
{
	const json_t *meta = json_object_get(obj, "metadata");
	struct manifest_workload *w;
	bool oom = false;

	w = kube_array_grow(set->items, &set->cap, set->len + 1, sizeof(*w), 4);
	if (!w)
		return kerr_set(err, KERR_OTHER, "out of memory");
	set->items = w;
	w = &set->items[set->len];
	memset(w, 0, sizeof(*w));
	if (manifest_pod_from_json(obj, &w->pod, err) < 0)
		return -1;
	set->len++;
	w->kind = strdup(kind);
	w->name = field_text(meta, "name", &oom);
	w->namespace = field_text(meta, "namespace", &oom);
	if (!w->kind || oom)
		return kerr_set(err, KERR_OTHER, "out of memory");
	w->pods = pods_of(obj, kind);
	if (w->pods == -1 && strcmp(kind, "DaemonSet") != 0)
		return kerr_set(err, KERR_OTHER, "error parsing manifest: %s has a replica count that is not a whole number", kind);
	return 0;
}

/* One object: a List's items (one level down), a workload, or a skipped kind. */
static int add_object(struct manifest_set *set, const json_t *obj, int depth, struct kerr *err)
{
	const json_t *kind_v = json_object_get(obj, "kind");
	const char *kind = json_is_string(kind_v) ? json_string_value(kind_v) : NULL;
	bool known;

	if (!json_is_object(obj))
		return kerr_set(err, KERR_OTHER, "error parsing manifest: the document is not an object");
	if (!kind)
		return kerr_set(err, KERR_OTHER, "error parsing manifest: Object 'Kind' is missing");
	if (depth == 0 && strlen(kind) >= 4 && strcmp(kind + strlen(kind) - 4, "List") == 0) {
		const json_t *items = json_object_get(obj, "items");

		for (size_t i = 0; i < json_array_size(items); i++)
			if (add_object(set, json_array_get(items, i), depth + 1, err) < 0)
				return -1;
		return 0;
	}
	if (strcmp(kind, "ResourceClaim") == 0 || strcmp(kind, "ResourceClaimTemplate") == 0) {
		json_t **c = kube_array_grow(set->claims, &set->claims_cap, set->nclaims + 1, sizeof(*c), 4);

		if (!c)
			return kerr_set(err, KERR_OTHER, "out of memory");
		set->claims = c;
		set->claims[set->nclaims++] = json_incref((json_t *)obj);
		return 0;
	}
	template_of(obj, kind, &known);
	if (!known)
		return skip_kind(set, kind) < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
	return add_workload(set, obj, kind, err);
}

static int add_document(void *ud, json_t *doc, struct kerr *err)
{
	return add_object(ud, doc, 0, err);
}

int manifest_read_all(const char *buf, size_t len, struct manifest_set *set, struct kerr *err)
{
	size_t i = 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i >= len || buf[i] != '{')
		return each_yaml_document(buf, len, add_document, set, err);
	/* a JSON object, or several one after another */
	while (i < len) {
		json_error_t jerr;
		json_t *root = json_loadb(buf + i, len - i, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &jerr);
		int rc;

		if (!root)
			return kerr_set(err, KERR_OTHER, "error parsing manifest: %s at line %d column %d", jerr.text,
					jerr.line, jerr.column);
		rc = add_object(set, root, 0, err);
		json_decref(root);
		if (rc < 0)
			return -1;
		i += jerr.position;
		while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
			i++;
	}
	return 0;
}

void manifest_set_release(struct manifest_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->len; i++) {
		free(set->items[i].kind);
		free(set->items[i].name);
		free(set->items[i].namespace);
		k8s_pod_free(set->items[i].pod);
	}
	free(set->items);
	for (size_t i = 0; i < set->nskipped; i++)
		free(set->skipped[i].kind);
	free(set->skipped);
	for (size_t i = 0; i < set->nclaims; i++)
		json_decref(set->claims[i]);
	free(set->claims);
	memset(set, 0, sizeof(*set));
}
