/* The claims of `fit -f`: see fit_claims.h. */
#include "fit_claims.h"

#include <stdlib.h>
#include <string.h>

#include "scheme_dra.h"

#define DRA_GROUP "resource.k8s.io"

static int take_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	struct k8s_resource_claim **slot = ud;

	(void)err;
	if (*slot) {
		k8s_resource_claim_free(c);
		return 0;
	}
	*slot = c;
	return 0;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* YAML manifests are read with every scalar as text: a request's count
 * ("2") is a number again and its adminAccess ("true") a boolean, as the
 * API server would take them. */
static void typed_scalars(json_t *o, int depth)
{
	const char *key;
	json_t *v;
	size_t i;

	if (depth > 16)
		return;
	if (json_is_array(o))
		json_array_foreach(o, i, v)
			typed_scalars(v, depth + 1);
	if (!json_is_object(o))
		return;
	json_object_foreach(o, key, v) {
		const char *s = json_string_value(v);

		if (s && strcmp(key, "count") == 0 && *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 10)
			json_object_set_new(o, key, json_integer(strtol(s, NULL, 10)));
		else if (s && strcmp(key, "adminAccess") == 0 && (!strcmp(s, "true") || !strcmp(s, "false")))
			json_object_set_new(o, key, json_boolean(*s == 't'));
		else
			typed_scalars(v, depth + 1);
	}
}

/* A claim or a template as the claim decoder reads one (a template's spec.spec is its claim's). */
static int decode(const json_t *obj, struct k8s_resource_claim **ret, struct kerr *err)
{
	const char *kind = str(obj, "kind");
	bool tmpl = kind && strcmp(kind, "ResourceClaimTemplate") == 0;
	json_t *claim = json_pack("{s:O?, s:O?}", "metadata", json_object_get(obj, "metadata"), "spec",
				  tmpl ? json_object_get(json_object_get(obj, "spec"), "spec") : json_object_get(obj, "spec"));
	json_t *list, *spec = claim ? json_deep_copy(json_object_get(claim, "spec")) : NULL;
	char *text;

	if (spec) {
		typed_scalars(spec, 0);
		json_object_set_new(claim, "spec", spec);
	}
	list = claim ? json_pack("{s:[o]}", "items", claim) : NULL;
	text = list ? json_dumps(list, JSON_COMPACT) : NULL;
	struct decode_sink sink = {.resource_claim = take_claim, .ud = ret};
	struct list_decoder *d = text ? list_decoder_new(OBJ_RESOURCE_CLAIM, &dra_claim_fields_full, &sink) : NULL;
	int rc = -1;

	*ret = NULL;
	if (!d)
		kerr_set(err, KERR_OTHER, "out of memory");
	else if (list_decoder_feed(d, text, strlen(text), err) == 0 && list_decoder_finish(d, err) == 0)
		rc = *ret ? 0 : kerr_set(err, KERR_OTHER, "error parsing manifest: %s has no spec", kind ? kind : "claim");
	list_decoder_free(d);
	free(text);
	json_decref(list);
	if (rc < 0) {
		k8s_resource_claim_free(*ret);
		*ret = NULL;
	}
	return rc;
}

static int keep(struct fit_claims *fc, struct k8s_resource_claim *c, struct kerr *err)
{
	struct k8s_resource_claim **o = realloc(fc->owned, (fc->nowned + 1) * sizeof(*o));
	struct k8s_dra_request *q = o ? realloc(fc->reqs, (fc->nreqs + c->nrequests + 1) * sizeof(*q)) : NULL;
	char *names = NULL;

	if (o)
		fc->owned = o;
	if (q)
		fc->reqs = q;
	if (!o || !q || asprintf(&names, "%s%s%s", fc->names ? fc->names : "", fc->names ? ", " : "",
				 c->name ? c->name : "") < 0) {
		k8s_resource_claim_free(c);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	free(fc->names);
	fc->names = names;
	fc->owned[fc->nowned++] = c;
	memcpy(fc->reqs + fc->nreqs, c->requests, c->nrequests * sizeof(*q));
	fc->nreqs += c->nrequests;
	return 0;
}

int fit_claims_of(struct fit_claims *fc, const json_t *obj, struct kerr *err)
{
	struct k8s_resource_claim *c;

	if (decode(obj, &c, err) < 0)
		return -1;
	if (!c->nrequests) {
		k8s_resource_claim_free(c);
		return kerr_set(err, KERR_OTHER, "error parsing manifest: %s %s requests no device", str(obj, "kind"),
				str(json_object_get(obj, "metadata"), "name") ? str(json_object_get(obj, "metadata"), "name")
									      : "");
	}
	return keep(fc, c, err);
}

/* The object of kind and name in ns among the manifests' claims, or NULL. */
static const json_t *in_manifests(const struct manifest_set *set, const char *kind, const char *name, const char *ns)
{
	for (size_t i = 0; i < set->nclaims; i++) {
		const json_t *meta = json_object_get(set->claims[i], "metadata");
		const char *k = str(set->claims[i], "kind"), *n = str(meta, "name"), *s = str(meta, "namespace");

		if (k && n && strcmp(k, kind) == 0 && strcmp(n, name) == 0 && strcmp(s ? s : ns, ns) == 0)
			return set->claims[i];
	}
	return NULL;
}

/* The claim or template name, from the manifests or the server. */
static int resolve(struct fit_claims *fc, const struct manifest_set *set, struct kube_client *c, const char *version,
		   bool tmpl, const char *name, const char *ns, struct kerr *err)
{
	const char *kind = tmpl ? "ResourceClaimTemplate" : "ResourceClaim";
	const json_t *obj = in_manifests(set, kind, name, ns);
	char gv[64], *path;
	json_t *got = NULL;
	int rc;

	if (obj)
		return fit_claims_of(fc, obj, err);
	if (!c || !version)
		return kerr_set(err, KERR_OTHER, "%s %s/%s is not in the manifests and the server does not serve %s", kind,
				ns, name, DRA_GROUP);
	snprintf(gv, sizeof(gv), "%s/%s", DRA_GROUP, version);
	if (!(path = kube_path(gv, ns, tmpl ? "resourceclaimtemplates" : "resourceclaims", name)))
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = kube_get_json(c, path, NULL, &got, err);
	free(path);
	if (rc == 0) {
		/* the server leaves kind out of a single object of a typed client: say it */
		json_object_set_new(got, "kind", json_string(kind));
		rc = fit_claims_of(fc, got, err);
	}
	json_decref(got);
	return rc;
}

int fit_claims_for_pod(struct fit_claims *fc, const struct manifest_set *set, struct kube_client *c,
		       const char *version, const struct k8s_pod *pod, const char *ns, struct kerr *err)
{
	for (size_t i = 0; i < pod->nclaims; i++) {
		const struct k8s_pod_claim *pc = &pod->claims[i];
		const char *name = pc->claim_name ? pc->claim_name : pc->template_name;

		if (!name)
			continue;
		if (resolve(fc, set, c, version, !pc->claim_name, name, ns, err) < 0)
			return -1;
	}
	return fc->nreqs > 0;
}

void fit_claims_release(struct fit_claims *fc)
{
	for (size_t i = 0; i < fc->nowned; i++)
		k8s_resource_claim_free(fc->owned[i]);
	free(fc->owned);
	free(fc->reqs);
	free(fc->names);
	memset(fc, 0, sizeof(*fc));
}
