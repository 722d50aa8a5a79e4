/* The decoders of the resource.k8s.io kinds and of a pod's claims against
 * the round-trip fixtures of the Kubernetes API (every field set), read
 * from the reference data beside the repository: each fixture in JSON and
 * in protobuf, as a list's item, fed in every split, must give the values
 * jansson reads from its JSON.  Skipped when the reference data is absent. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "t_read_file.h"
#include "t_text.h"

#ifndef DRA_TESTDATA
#define DRA_TESTDATA "../shared/reference/dra/testdata"
#endif

/* --- text: what was decoded, and what the JSON holds ---------------------- */

#define S(x) ((x) ? (x) : "-")

static void out_kv(struct text *t, const char *what, const struct kvlist *l)
{
	for (size_t i = 0; i < l->len; i++)
		out(t, " %s %s=%s\n", what, l->items[i].key, l->items[i].value);
}

static void out_values(struct text *t, const char *what, const struct k8s_dra_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out(t, " %s %s", what, S(v[i].name));
		if (v[i].has_int)
			out(t, " int=%lld", (long long)v[i].i);
		if (v[i].has_bool)
			out(t, " bool=%d", v[i].b);
		if (v[i].has_str)
			out(t, " string=%s", S(v[i].str));
		if (v[i].has_version)
			out(t, " version=%s", S(v[i].version));
		if (v[i].quantity)
			out(t, " value=%s", v[i].quantity);
		out(t, "\n");
	}
}

static void out_capacities(struct text *t, const struct k8s_dra_capacity *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out(t, " capacity %s", S(c[i].name));
		if (c[i].quantity)
			out(t, " value=%s", c[i].quantity);
		if (c[i].policy_default || c[i].policy_min || c[i].policy_max || c[i].policy_step || c[i].npolicy_values)
			out(t, " policy default=%s min=%s max=%s step=%s values=%d", S(c[i].policy_default),
			    S(c[i].policy_min), S(c[i].policy_max), S(c[i].policy_step), c[i].npolicy_values > 0);
		out(t, "\n");
	}
}

static void out_counters(struct text *t, const char *what, const struct k8s_dra_counters *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out(t, " %s %s\n", what, S(c[i].name));
		out_values(t, "counter", c[i].counters, c[i].ncounters);
	}
}

static void out_reqs(struct text *t, size_t term, const char *what, const struct k8s_node_requirement *r, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		out(t, " %s %zu %s %s", what, term, S(r[j].key), S(r[j].op));
		for (size_t k = 0; k < r[j].nvalues; k++)
			out(t, " %s", r[j].values[k]);
		out(t, "\n");
	}
}

static void out_terms(struct text *t, const struct k8s_node_term *terms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out_reqs(t, i, "term", terms[i].reqs, terms[i].nreqs);
		out_reqs(t, i, "field", terms[i].fields, terms[i].nfields);
	}
}

static void out_slice(struct text *t, const struct k8s_resource_slice *s)
{
	out(t, "slice %s uid=%s rv=%s driver=%s pool=%s gen=%lld count=%lld node=%s all=%d perdevice=%d\n",
	    S(s->name), S(s->uid), S(s->resource_version), S(s->driver), S(s->pool), (long long)s->generation,
	    (long long)s->slice_count, S(s->node_name), s->all_nodes, s->per_device_nodes);
	out_kv(t, "label", &s->labels);
	out_terms(t, s->node_terms, s->nnode_terms);
	for (size_t i = 0; i < s->ndevices; i++) {
		const struct k8s_dra_device *d = &s->devices[i];

		out(t, " device %s multiple=%d node=%s all=%d\n", S(d->name), d->allow_multiple, S(d->node_name),
		    d->all_nodes);
		out_values(t, "attribute", d->attrs, d->nattrs);
		out_capacities(t, d->capacity, d->ncapacity);
		out_counters(t, "consumes", d->consumes, d->nconsumes);
		for (size_t j = 0; j < d->ntaints; j++)
			out(t, " taint %s=%s:%s\n", S(d->taints[j].key), S(d->taints[j].value), S(d->taints[j].effect));
	}
	out_counters(t, "counterset", s->counter_sets, s->ncounter_sets);
}

static void out_configs(struct text *t, const char *what, const struct k8s_dra_config *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out(t, " %s source=%s driver=%s api=%s kind=%s strategy=%s interval=%s mem=%s", what, S(c[i].source),
		    S(c[i].driver), S(c[i].api_version), S(c[i].kind), S(c[i].strategy), S(c[i].interval),
		    S(c[i].mps_memory_limit));
		if (c[i].has_mps_threads)
			out(t, " threads=%lld", (long long)c[i].mps_threads);
		for (size_t j = 0; j < c[i].nrequests; j++)
			out(t, " request=%s", c[i].requests[j]);
		out(t, "\n");
	}
}

static void out_selectors(struct text *t, const struct k8s_dra_selector *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out(t, " selector %s\n", S(s[i].expression));
}

static void out_claim(struct text *t, const struct k8s_resource_claim *c)
{
	out(t, "claim %s/%s rv=%s deleting=%d\n", S(c->namespace), S(c->name), S(c->resource_version), c->deleting);
	out_kv(t, "annotation", &c->annotations);
	for (size_t i = 0; i < c->nrequests; i++) {
		const struct k8s_dra_request *r = &c->requests[i];

		out(t, " request %s class=%s mode=%s count=%lld admin=%d\n", S(r->name), S(r->class_name),
		    S(r->allocation_mode), (long long)r->count, r->admin_access);
		out_selectors(t, r->selectors, r->nselectors);
		out_kv(t, "wants", &r->capacity);
		for (size_t k = 0; k < r->ntolerations; k++)
			out(t, " tolerates %s %s %s:%s\n", S(r->tolerations[k].key), S(r->tolerations[k].op),
			    S(r->tolerations[k].value), S(r->tolerations[k].effect));
	}
	out_configs(t, "config", c->configs, c->nconfigs);
	for (size_t i = 0; i < c->nresults; i++) {
		const struct k8s_dra_result *r = &c->results[i];

		out(t, " result %s %s/%s/%s\n", S(r->request), S(r->driver), S(r->pool), S(r->device));
		out_kv(t, "consumed", &r->consumed);
	}
	out_configs(t, "allocconfig", c->alloc_configs, c->nalloc_configs);
	for (size_t i = 0; i < c->nreserved; i++)
		out(t, " reserved %s\n", S(c->reserved[i].name));
}

static void out_class(struct text *t, const struct k8s_device_class *c)
{
	out(t, "class %s uid=%s rv=%s extended=%s\n", S(c->name), S(c->uid), S(c->resource_version),
	    S(c->extended_resource));
	out_selectors(t, c->selectors, c->nselectors);
	out_configs(t, "config", c->configs, c->nconfigs);
}

static void out_pod(struct text *t, const struct k8s_pod *p)
{
	out(t, "pod %s/%s extended=%s\n", S(p->namespace), S(p->name), S(p->extended_claim));
	for (size_t i = 0; i < p->nclaims; i++)
		out(t, " claim %s %s %s\n", S(p->claims[i].name), S(p->claims[i].claim_name),
		    S(p->claims[i].template_name));
	for (size_t i = 0; i < p->nclaim_statuses; i++)
		out(t, " status %s %s\n", S(p->claim_statuses[i].name), S(p->claim_statuses[i].claim_name));
	for (size_t i = 0; i < p->nextended_requests; i++)
		out(t, " mapping %s %s %s\n", S(p->extended_requests[i].container), S(p->extended_requests[i].resource),
		    S(p->extended_requests[i].request));
	for (size_t i = 0; i < p->ncontainers; i++)
		for (size_t j = 0; j < p->containers[i].nclaims; j++)
			out(t, " container %s claim %s %s\n", S(p->containers[i].name),
			    S(p->containers[i].claims[j].name), S(p->containers[i].claims[j].request));
}

/* --- the reference: the JSON read with jansson ---------------------------- */

static json_t *jget(json_t *o, const char *path)
{
	char key[256];
	const char *dot;

	while (o && (dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return o ? json_object_get(o, path) : NULL;
}

static const char *js(json_t *o, const char *path)
{
	json_t *v = jget(o, path);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static long long ji(json_t *o, const char *path)
{
	return (long long)json_integer_value(jget(o, path));
}

static int jb(json_t *o, const char *path)
{
	return json_is_true(jget(o, path));
}

static void ref_kv(struct text *t, const char *what, json_t *obj)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v)
		out(t, " %s %s=%s\n", what, k, json_string_value(v));
}

static void ref_values(struct text *t, const char *what, json_t *obj)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v) {
		out(t, " %s %s", what, k);
		if (jget(v, "int"))
			out(t, " int=%lld", ji(v, "int"));
		if (jget(v, "bool"))
			out(t, " bool=%d", jb(v, "bool"));
		if (js(v, "string"))
			out(t, " string=%s", js(v, "string"));
		if (js(v, "version"))
			out(t, " version=%s", js(v, "version"));
		if (js(v, "value"))
			out(t, " value=%s", js(v, "value"));
		if (jget(v, "requestPolicy"))
			out(t, " policy default=%s min=%s max=%s step=%s values=%d", S(js(v, "requestPolicy.default")),
			    S(js(v, "requestPolicy.validRange.min")), S(js(v, "requestPolicy.validRange.max")),
			    S(js(v, "requestPolicy.validRange.step")), jget(v, "requestPolicy.validValues") != NULL);
		out(t, "\n");
	}
}

static void ref_counters(struct text *t, const char *what, json_t *arr, const char *name_key)
{
	size_t i;
	json_t *c;

	json_array_foreach(arr, i, c) {
		out(t, " %s %s\n", what, S(js(c, name_key)));
		ref_values(t, "counter", jget(c, "counters"));
	}
}

static void ref_reqs(struct text *t, size_t term, const char *what, json_t *arr)
{
	size_t j, k;
	json_t *r, *v;

	json_array_foreach(arr, j, r) {
		out(t, " %s %zu %s %s", what, term, S(js(r, "key")), S(js(r, "operator")));
		json_array_foreach(jget(r, "values"), k, v)
			out(t, " %s", json_string_value(v));
		out(t, "\n");
	}
}

static void ref_terms(struct text *t, json_t *sel)
{
	size_t i;
	json_t *term;

	json_array_foreach(jget(sel, "nodeSelectorTerms"), i, term) {
		ref_reqs(t, i, "term", jget(term, "matchExpressions"));
		ref_reqs(t, i, "field", jget(term, "matchFields"));
	}
}

static void ref_slice(struct text *t, json_t *j)
{
	json_t *spec = jget(j, "spec"), *dev;
	size_t i, k;

	out(t, "slice %s uid=%s rv=%s driver=%s pool=%s gen=%lld count=%lld node=%s all=%d perdevice=%d\n",
	    S(js(j, "metadata.name")), S(js(j, "metadata.uid")), S(js(j, "metadata.resourceVersion")),
	    S(js(spec, "driver")), S(js(spec, "pool.name")), ji(spec, "pool.generation"),
	    ji(spec, "pool.resourceSliceCount"), S(js(spec, "nodeName")), jb(spec, "allNodes"),
	    jb(spec, "perDeviceNodeSelection"));
	ref_kv(t, "label", jget(j, "metadata.labels"));
	ref_terms(t, jget(spec, "nodeSelector"));
	json_array_foreach(jget(spec, "devices"), i, dev) {
		/* v1beta1 keeps the fields under basic */
		json_t *d = jget(dev, "basic") ? jget(dev, "basic") : dev, *taint;

		out(t, " device %s multiple=%d node=%s all=%d\n", S(js(dev, "name")), jb(d, "allowMultipleAllocations"),
		    S(js(d, "nodeName")), jb(d, "allNodes"));
		ref_values(t, "attribute", jget(d, "attributes"));
		ref_values(t, "capacity", jget(d, "capacity"));
		ref_counters(t, "consumes", jget(d, "consumesCounters"), "counterSet");
		json_array_foreach(jget(d, "taints"), k, taint)
			out(t, " taint %s=%s:%s\n", S(js(taint, "key")), S(js(taint, "value")), S(js(taint, "effect")));
	}
	ref_counters(t, "counterset", jget(spec, "sharedCounters"), "name");
}

static void ref_configs(struct text *t, const char *what, json_t *arr)
{
	size_t i, k;
	json_t *c, *r;

	json_array_foreach(arr, i, c) {
		json_t *p = jget(c, "opaque.parameters");

		out(t, " %s source=%s driver=%s api=%s kind=%s strategy=%s interval=%s mem=%s", what,
		    S(js(c, "source")), S(js(c, "opaque.driver")), S(js(p, "apiVersion")), S(js(p, "kind")),
		    S(js(p, "sharing.strategy")), S(js(p, "sharing.timeSlicingConfig.interval")),
		    S(js(p, "sharing.mpsConfig.defaultPinnedDeviceMemoryLimit")));
		if (jget(p, "sharing.mpsConfig.defaultActiveThreadPercentage"))
			out(t, " threads=%lld", ji(p, "sharing.mpsConfig.defaultActiveThreadPercentage"));
		json_array_foreach(jget(c, "requests"), k, r)
			out(t, " request=%s", json_string_value(r));
		out(t, "\n");
	}
}

static void ref_selectors(struct text *t, json_t *arr)
{
	size_t i;
	json_t *s;

	json_array_foreach(arr, i, s)
		out(t, " selector %s\n", S(js(s, "cel.expression")));
}

static void ref_claim(struct text *t, json_t *j)
{
	json_t *st = jget(j, "status"), *x, *y;
	size_t i, k;

	out(t, "claim %s/%s rv=%s deleting=%d\n", S(js(j, "metadata.namespace")), S(js(j, "metadata.name")),
	    S(js(j, "metadata.resourceVersion")), jget(j, "metadata.deletionTimestamp") != NULL);
	ref_kv(t, "annotation", jget(j, "metadata.annotations"));
	json_array_foreach(jget(j, "spec.devices.requests"), i, x) {
		/* v1 and v1beta2 put an exact request under exactly */
		json_t *r = jget(x, "exactly") ? jget(x, "exactly") : x;

		out(t, " request %s class=%s mode=%s count=%lld admin=%d\n", S(js(x, "name")),
		    S(js(r, "deviceClassName")), S(js(r, "allocationMode")), ji(r, "count"), jb(r, "adminAccess"));
		ref_selectors(t, jget(r, "selectors"));
		ref_kv(t, "wants", jget(r, "capacity.requests"));
		json_array_foreach(jget(r, "tolerations"), k, y)
			out(t, " tolerates %s %s %s:%s\n", S(js(y, "key")), S(js(y, "operator")), S(js(y, "value")),
			    S(js(y, "effect")));
	}
	ref_configs(t, "config", jget(j, "spec.devices.config"));
	json_array_foreach(jget(st, "allocation.devices.results"), i, x) {
		out(t, " result %s %s/%s/%s\n", S(js(x, "request")), S(js(x, "driver")), S(js(x, "pool")),
		    S(js(x, "device")));
		ref_kv(t, "consumed", jget(x, "consumedCapacity"));
	}
	ref_configs(t, "allocconfig", jget(st, "allocation.devices.config"));
	json_array_foreach(jget(st, "reservedFor"), i, x)
		out(t, " reserved %s\n", S(js(x, "name")));
}

static void ref_class(struct text *t, json_t *j)
{
	out(t, "class %s uid=%s rv=%s extended=%s\n", S(js(j, "metadata.name")), S(js(j, "metadata.uid")),
	    S(js(j, "metadata.resourceVersion")), S(js(j, "spec.extendedResourceName")));
	ref_selectors(t, jget(j, "spec.selectors"));
	ref_configs(t, "config", jget(j, "spec.config"));
}

static void ref_pod(struct text *t, json_t *j)
{
	json_t *x, *c;
	size_t i, k;

	out(t, "pod %s/%s extended=%s\n", S(js(j, "metadata.namespace")), S(js(j, "metadata.name")),
	    S(js(j, "status.extendedResourceClaimStatus.resourceClaimName")));
	json_array_foreach(jget(j, "spec.resourceClaims"), i, x)
		out(t, " claim %s %s %s\n", S(js(x, "name")), S(js(x, "resourceClaimName")),
		    S(js(x, "resourceClaimTemplateName")));
	json_array_foreach(jget(j, "status.resourceClaimStatuses"), i, x)
		out(t, " status %s %s\n", S(js(x, "name")), S(js(x, "resourceClaimName")));
	json_array_foreach(jget(j, "status.extendedResourceClaimStatus.requestMappings"), i, x)
		out(t, " mapping %s %s %s\n", S(js(x, "containerName")), S(js(x, "resourceName")), S(js(x, "requestName")));
	json_array_foreach(jget(j, "spec.containers"), i, c)
		json_array_foreach(jget(c, "resources.claims"), k, x)
			out(t, " container %s claim %s %s\n", S(js(c, "name")), S(js(x, "name")), S(js(x, "request")));
}

/* --- feeding a fixture as a list's one item ------------------------------- */

static const struct decode_filter dra_filter = {
	.all_labels = true, .all_annotations = true, .all_attributes = true, .scheduling = true};

static int got_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	out_slice(ud, s);
	k8s_resource_slice_free(s);
	return 0;
}

static int got_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	out_claim(ud, c);
	k8s_resource_claim_free(c);
	return 0;
}

static int got_class(void *ud, struct k8s_device_class *c, struct kerr *err)
{
	out_class(ud, c);
	k8s_device_class_free(c);
	return 0;
}

static int got_pod(void *ud, struct k8s_pod *p, struct kerr *err)
{
	out_pod(ud, p);
	k8s_pod_free(p);
	return 0;
}

static char *fixture(const char *name, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", DRA_TESTDATA, name);
	if (access(path, R_OK) != 0)
		cr_skip_test("the reference data is not there (%s)", path);
	return t_read_file(path, len);
}

/* The JSON object as the one item of a list. */
static char *json_list_of(const char *obj, size_t *len)
{
	static const char head[] = "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[";
	char *s = malloc(strlen(head) + strlen(obj) + 3);

	cr_assert_not_null(s);
	sprintf(s, "%s%s]}", head, obj);
	*len = strlen(s);
	return s;
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static uint64_t get_varint(const unsigned char *p, size_t *i)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (p[*i] & 0x80) {
		v |= (uint64_t)(p[(*i)++] & 0x7f) << shift;
		shift += 7;
	}
	return v | (uint64_t)p[(*i)++] << shift;
}

/* The protobuf body of one object (the magic and an Unknown whose field 2
 * is the object) made the body of a list holding it. */
static char *pb_list_of(const unsigned char *body, size_t blen, size_t *len)
{
	const unsigned char *type_meta = NULL, *obj = NULL;
	size_t i = 4, tlen = 0, olen = 0, n = 0, list_len;
	unsigned char *out_buf = malloc(blen + 64), *list = malloc(blen + 32);

	cr_assert(blen > 4 && memcmp(body, "k8s", 4) == 0, "not a protobuf body");
	while (i < blen) {
		uint64_t tag = get_varint(body, &i), l = get_varint(body, &i);

		cr_assert_eq(tag & 7, 2u);
		if (tag >> 3 == 1) {
			type_meta = body + i;
			tlen = l;
		} else if (tag >> 3 == 2) {
			obj = body + i;
			olen = l;
		}
		i += l;
	}
	cr_assert(type_meta && obj);
	list_len = 0;
	list[list_len++] = 0x0a; /* 1: ListMeta, empty */
	list[list_len++] = 0;
	list[list_len++] = 0x12; /* 2: the item */
	list_len += put_varint(list + list_len, olen);
	memcpy(list + list_len, obj, olen);
	list_len += olen;
	memcpy(out_buf, "k8s", 4);
	n = 4;
	out_buf[n++] = 0x0a;
	n += put_varint(out_buf + n, tlen);
	memcpy(out_buf + n, type_meta, tlen);
	n += tlen;
	out_buf[n++] = 0x12;
	n += put_varint(out_buf + n, list_len);
	memcpy(out_buf + n, list, list_len);
	n += list_len;
	free(list);
	*len = n;
	return (char *)out_buf;
}

/* buf decoded as a list of kind, fed in reads of: chunk 0 everything, 1
 * one byte, else random sizes from that seed; what it held as text. */
static char *decode_text_with(const struct decode_filter *filter, enum obj_kind kind, const char *buf, size_t len,
			      unsigned chunk)
{
	struct text t = {0};
	struct decode_sink sink = {.pod = got_pod,
				   .resource_slice = got_slice,
				   .resource_claim = got_claim,
				   .device_class = got_class,
				   .ud = &t};
	struct list_decoder *d = list_decoder_new(kind, filter, &sink);
	struct kerr err = {0};
	size_t off = 0;
	int r = 0;

	srand(chunk);
	while (off < len && r == 0) {
		size_t n = chunk == 0 ? len : chunk == 1 ? 1 : 1 + (size_t)rand() % 97;

		if (n > len - off)
			n = len - off;
		r = list_decoder_feed(d, buf + off, n, &err);
		off += n;
	}
	if (r == 0)
		r = list_decoder_finish(d, &err);
	cr_assert_eq(r, 0, "decoding failed (split %u): %s", chunk, err.message ? err.message : "?");
	list_decoder_free(d);
	out(&t, "%s", "");
	return t.s;
}

static char *decode_text(enum obj_kind kind, const char *buf, size_t len, unsigned chunk)
{
	return decode_text_with(&dra_filter, kind, buf, len, chunk);
}

/* The fixture NAME.json and NAME.pb, each in every split, hold what
 * reference() reads from the JSON. */
static void check_fixture(const char *name, enum obj_kind kind, void (*reference)(struct text *, json_t *))
{
	char path[512];
	size_t jlen, plen, llen;
	char *json, *pb, *list;
	struct text want = {0};
	json_error_t jerr;
	json_t *j;

	snprintf(path, sizeof(path), "%s.json", name);
	json = fixture(path, &jlen);
	snprintf(path, sizeof(path), "%s.pb", name);
	pb = fixture(path, &plen);
	j = json_loads(json, 0, &jerr);
	cr_assert_not_null(j, "%s: %s", name, jerr.text);
	reference(&want, j);
	cr_assert(want.len > 200, "%s: the reference holds too little", name);
	for (int enc = 0; enc < 2; enc++) {
		list = enc == 0 ? json_list_of(json, &llen) : pb_list_of((unsigned char *)pb, plen, &llen);
		for (unsigned chunk = 0; chunk < 12; chunk++) {
			char *got = decode_text(kind, list, llen, chunk);

			cr_assert_str_eq(got, want.s, "%s in %s, split %u:\n%s\nwant:\n%s", name,
					 enc ? "protobuf" : "JSON", chunk, got, want.s);
			free(got);
		}
		free(list);
	}
	free(want.s);
	json_decref(j);
	free(json);
	free(pb);
}

Test(decode_dra, resource_slices)
{
	check_fixture("resource.k8s.io.v1.ResourceSlice", OBJ_RESOURCE_SLICE, ref_slice);
	check_fixture("resource.k8s.io.v1beta2.ResourceSlice", OBJ_RESOURCE_SLICE, ref_slice);
	check_fixture("resource.k8s.io.v1beta1.ResourceSlice", OBJ_RESOURCE_SLICE_V1BETA1, ref_slice);
}

Test(decode_dra, resource_claims)
{
	check_fixture("resource.k8s.io.v1.ResourceClaim", OBJ_RESOURCE_CLAIM, ref_claim);
	check_fixture("resource.k8s.io.v1beta2.ResourceClaim", OBJ_RESOURCE_CLAIM, ref_claim);
	check_fixture("resource.k8s.io.v1beta1.ResourceClaim", OBJ_RESOURCE_CLAIM_V1BETA1, ref_claim);
}

Test(decode_dra, device_classes)
{
	check_fixture("resource.k8s.io.v1.DeviceClass", OBJ_DEVICE_CLASS, ref_class);
	check_fixture("resource.k8s.io.v1beta2.DeviceClass", OBJ_DEVICE_CLASS, ref_class);
	check_fixture("resource.k8s.io.v1beta1.DeviceClass", OBJ_DEVICE_CLASS, ref_class);
}

Test(decode_dra, pod_claims)
{
	check_fixture("core.v1.Pod", OBJ_POD, ref_pod);
}

static char *t_slurp(const char *path, size_t *len)
{
	FILE *f;
	char *buf;
	long n;

	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The sharing settings of NVIDIA's GpuConfig, from the claims of the
 * repository's MPS and time-slicing scenarios. */
static char *scenario_claims(const char *scenario, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/scenarios/%s/resourceclaims.json", FIXTURES_DIR, scenario);
	return t_slurp(path, len);
}

Test(decode_dra, gpu_config_sharing)
{
	size_t len;
	char *buf = scenario_claims("dra-mps", &len), *got;

	for (unsigned chunk = 0; chunk < 4; chunk++) {
		got = decode_text(OBJ_RESOURCE_CLAIM, buf, len, chunk);
		cr_assert(strstr(got, "allocconfig source=FromClaim driver=gpu.nvidia.com api=resource.nvidia.com/v1beta1 "
				      "kind=GpuConfig strategy=MPS interval=- mem=10Gi threads=50 request=gpu"),
			  "%s", got);
		free(got);
	}
	free(buf);
	buf = scenario_claims("dra-timeslicing", &len);
	got = decode_text(OBJ_RESOURCE_CLAIM, buf, len, 1);
	cr_assert(strstr(got, "kind=GpuConfig strategy=TimeSlicing interval=Long mem=-"), "%s", got);
	free(got);
	free(buf);
}

/* What a claim asks in detail is kept for scheduling only, and of a
 * device's attributes those the filter names: a cluster's claims are as
 * many as its pods, and its devices' attributes many. */
Test(decode_dra, filter_keeps_what_is_asked)
{
	static const char *const attrs[] = {"uuid", "productName", NULL};
	static const struct decode_filter lean = {.attribute_keys = attrs};
	size_t len, plen, llen;
	char *buf = scenario_claims("dra-mps", &len), *got, *pb, *list;
	char path[4096];

	got = decode_text_with(&lean, OBJ_RESOURCE_CLAIM, buf, len, 0);
	cr_assert(strstr(got, "allocconfig source=FromClaim"), "%s", got);
	cr_assert_null(strstr(got, " request "), "%s", got);
	cr_assert_null(strstr(got, " config source"), "%s", got);
	free(got);
	free(buf);
	snprintf(path, sizeof(path), "%s/scenarios/dra-whole/resourceslices.json", FIXTURES_DIR);
	buf = t_slurp(path, &len);
	got = decode_text_with(&lean, OBJ_RESOURCE_SLICE, buf, len, 1);
	cr_assert(strstr(got, " attribute uuid string=GPU-"), "%s", got);
	cr_assert(strstr(got, " attribute productName string=NVIDIA A100-SXM4-80GB"), "%s", got);
	cr_assert_null(strstr(got, " attribute index"), "%s", got);
	cr_assert(strstr(got, " capacity memory value=80Gi"), "%s", got);
	free(got);
	free(buf);
	/* the same of protobuf: the upstream slice's one attribute is not asked for */
	pb = fixture("resource.k8s.io.v1.ResourceSlice.pb", &plen);
	list = pb_list_of((unsigned char *)pb, plen, &llen);
	for (unsigned chunk = 0; chunk < 6; chunk++) {
		got = decode_text_with(&lean, OBJ_RESOURCE_SLICE, list, llen, chunk);
		cr_assert_null(strstr(got, " attribute "), "%s", got);
		cr_assert(strstr(got, " capacity capacityKey value=0"), "%s", got);
		free(got);
	}
	free(list);
	free(pb);
}
