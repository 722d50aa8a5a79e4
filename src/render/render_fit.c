/* The answer of `fit`: where the pod would go, best first, and why not
 * elsewhere, as a table or as one JSON/YAML document. */
#include "render_fit.h"

#include <stdlib.h>
#include <string.h>

#include "tabwriter.h"

#define PADDING 3

/* Text from the cluster or a manifest, made safe for a terminal: control
 * characters (escape sequences, newlines, tabs that would break columns)
 * become '?'. */
static char *safe(const char *s)
{
	char *out = strdup(s ? s : "");

	for (char *p = out; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return out;
}

static char *gpu_list(const struct fit_place *p)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	if (!p->ngpus)
		return strdup("-");
	f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	for (int i = 0; i < p->ngpus; i++)
		fprintf(f, "%sGPU%d", i ? "," : "", p->gpus[i]);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int fail(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "cannot write the answer");
}

/* The grouped reasons of a check, one line each: those that say no, or
 * (unknown) those that cannot tell. */
static bool put_groups(struct tabwriter *tw, const struct fit_request *r, const struct fit_result *res, bool unknown)
{
	bool ok = true;

	for (size_t i = 0; ok && i < res->ngroups; i++) {
		char *t, *st;

		if ((res->groups[i].reason == FIT_REASON_UNKNOWN) != unknown)
			continue;
		t = fit_group_text(&res->groups[i], r);
		st = t ? safe(t) : NULL;

		ok = st && tabwriter_printf(tw, "  %zu node%s: %s\n", res->groups[i].count,
					    res->groups[i].count == 1 ? "" : "s", st) >= 0;
		free(t);
		free(st);
	}
	return ok;
}

/* "Placed one after another: 3 of 10 pods fit (a GPU0, b GPU1, ...)" and
 * why the next found no place. */
static bool put_sequence(struct tabwriter *tw, const struct model *m, const struct fit_request *r,
			 const struct fit_sequence *s)
{
	bool ok;

	if (!s->asked)
		return tabwriter_puts(tw, "\nNo pod to place: the workload asks for 0 pods.\n") >= 0;
	ok = tabwriter_printf(tw, "\nPlaced one after another: %zu of %zu pod%s fit", s->placed, s->asked,
			      s->asked == 1 ? "" : "s") >= 0;

	for (size_t i = 0; ok && i < s->placed; i++) {
		char *name = safe(m->nodes[s->places[i].node].name), *gpus = gpu_list(&s->places[i]);

		ok = name && gpus &&
		     tabwriter_printf(tw, "%s%s %s", i ? ", " : " (", name, gpus) >= 0;
		free(name);
		free(gpus);
	}
	ok = ok && tabwriter_printf(tw, "%s.\n", s->placed ? ")" : "") >= 0;
	if (ok && s->placed < s->asked)
		ok = tabwriter_printf(tw, "Pod %zu of %zu fits nowhere once those are placed:\n", s->placed + 1, s->asked) >= 0 &&
		     put_groups(tw, r, &s->rest, false) && put_groups(tw, r, &s->rest, true);
	return ok;
}

int render_fit_table(FILE *out, const struct model *m, const struct fit_request *r, const struct fit_result *res,
		     const struct fit_report *rep, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	size_t not_fit = res->considered - res->nfits - res->nunknown;
	size_t unsure = res->nfits - res->nsure;
	char *subject = safe(rep->subject);
	bool ok = tw && subject;

	ok = ok && tabwriter_printf(tw, "%s\n", subject) >= 0;
	if (ok && res->nfits) {
		ok = tabwriter_puts(tw, r->nclaim ? "NODE\tGPUS\tDEVICES\tFREE AFTER\tSCHEME\tPOOL\n"
						  : "NODE\tGPUS\tFREE AFTER\tSCHEME\tPOOL\n") >= 0;
		for (size_t i = 0; ok && i < res->nfits; i++) {
			const struct fit_place *p = &res->fits[i];
			const struct model_node *n = &m->nodes[p->node];
			char *name = safe(n->name), *pool = safe(n->pool ? n->pool : "-"), *gpus = gpu_list(p);
			char *devs = r->nclaim ? safe(p->devices ? p->devices : "-") : NULL;

			ok = name && pool && gpus && (!r->nclaim || devs) &&
			     tabwriter_printf(tw, "%s%s\t%s\t%s%s%lld %s\t%s\t%s\n", name, p->unsure ? " ?" : "", gpus,
					      devs ? devs : "", devs ? "\t" : "", (long long)p->free_after,
					      mem_unit_name(n->unit), n->scheme ? n->scheme->name : "-", pool) >= 0;
			free(name);
			free(pool);
			free(gpus);
			free(devs);
		}
	}
	if (ok)
		ok = tabwriter_printf(tw, "Fits on %zu of %zu node%s.\n", res->nsure, res->considered,
				      res->considered == 1 ? "" : "s") >= 0;
	if (ok && unsure)
		ok = tabwriter_printf(tw, "May fit on %zu node%s (marked ?), not counted: the scheme does not publish how "
					  "it places a pod on a GPU.\n",
				      unsure, unsure == 1 ? "" : "s") >= 0;
	if (ok && not_fit)
		ok = tabwriter_printf(tw, "\nDoes not fit on %zu node%s:\n", not_fit, not_fit == 1 ? "" : "s") >= 0;
	ok = ok && put_groups(tw, r, res, false);
	if (ok && res->nunknown)
		ok = tabwriter_printf(tw, "\nUnknown on %zu node%s, never counted as fits:\n", res->nunknown,
				      res->nunknown == 1 ? "" : "s") >= 0;
	ok = ok && put_groups(tw, r, res, true);
	if (ok && rep->seq)
		ok = put_sequence(tw, m, r, rep->seq);
	if (ok && res->unpublished)
		ok = tabwriter_puts(tw, "\nNote: CCE xGPU does not publish how it places a pod on a GPU: its nodes are "
					"checked against their totals and one GPU's memory.\n") >= 0;
	if (ok && rep->nevents)
		ok = tabwriter_puts(tw, "\nLatest FailedScheduling events:\n") >= 0;
	for (size_t i = 0; ok && i < rep->nevents; i++) {
		char *e = safe(rep->events[i]);

		ok = e && tabwriter_printf(tw, "  %s\n", e) >= 0;
		free(e);
	}
	free(subject);
	if (!ok) {
		tabwriter_free(tw);
		return fail(err);
	}
	if (tabwriter_flush_to(tw, out) < 0) {
		tabwriter_free(tw);
		return fail(err);
	}
	tabwriter_free(tw);
	return 0;
}

/* The rows of one cluster's places, each after its CLUSTER cell. */
static bool fleet_rows(struct tabwriter *tw, const struct fit_fleet_part *p)
{
	char *cluster = safe(p->name);
	bool ok = cluster != NULL;

	for (size_t i = 0; ok && i < p->res->nfits; i++) {
		const struct fit_place *f = &p->res->fits[i];
		const struct model_node *n = &p->m->nodes[f->node];
		char *name = safe(n->name), *pool = safe(n->pool ? n->pool : "-"), *gpus = gpu_list(f);

		ok = name && pool && gpus &&
		     tabwriter_printf(tw, "%s\t%s%s\t%s\t%lld %s\t%s\t%s\n", cluster, name, f->unsure ? " ?" : "", gpus,
				      (long long)f->free_after,
				      mem_unit_name(n->unit), n->scheme ? n->scheme->name : "-", pool) >= 0;
		free(name);
		free(pool);
		free(gpus);
	}
	free(cluster);
	return ok;
}

/* Why it does not fit on the other nodes of one cluster. */
static bool fleet_groups(struct tabwriter *tw, const struct fit_fleet_part *p, const struct fit_request *r)
{
	char *cluster = safe(p->name);
	bool ok = cluster != NULL;

	for (size_t i = 0; ok && i < p->res->ngroups; i++) {
		char *t = fit_group_text(&p->res->groups[i], r), *st = t ? safe(t) : NULL;

		ok = st && tabwriter_printf(tw, "  %s: %zu node%s: %s\n", cluster, p->res->groups[i].count,
					    p->res->groups[i].count == 1 ? "" : "s", st) >= 0;
		free(t);
		free(st);
	}
	free(cluster);
	return ok;
}

int render_fit_fleet_table(FILE *out, const struct fit_fleet_part *parts, size_t n, const struct fit_request *r,
			   const char *subject, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	size_t fits = 0, places = 0, considered = 0, clusters = 0;
	char *s = safe(subject);
	bool ok = tw && s && tabwriter_printf(tw, "%s\n", s) >= 0;

	for (size_t i = 0; i < n; i++) {
		/* a place only maybe (marked ?) is listed, never counted */
		fits += parts[i].res->nsure;
		places += parts[i].res->nfits;
		considered += parts[i].res->considered;
		clusters += parts[i].res->nsure > 0;
	}
	if (ok && places)
		ok = tabwriter_puts(tw, "CLUSTER\tNODE\tGPUS\tFREE AFTER\tSCHEME\tPOOL\n") >= 0;
	for (size_t i = 0; ok && i < n; i++)
		ok = fleet_rows(tw, &parts[i]);
	if (ok)
		ok = tabwriter_printf(tw, "Fits on %zu of %zu node%s, in %zu of %zu cluster%s.\n", fits, considered,
				      considered == 1 ? "" : "s", clusters, n, n == 1 ? "" : "s") >= 0;
	if (ok && considered > places)
		ok = tabwriter_printf(tw, "\nDoes not fit on %zu node%s:\n", considered - places,
				      considered - places == 1 ? "" : "s") >= 0;
	for (size_t i = 0; ok && i < n; i++)
		ok = fleet_groups(tw, &parts[i], r);
	free(s);
	if (!ok || tabwriter_flush_to(tw, out) < 0) {
		tabwriter_free(tw);
		return fail(err);
	}
	tabwriter_free(tw);
	return 0;
}

static int set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

/* [{"node": ..., "gpus": [...]}] in the order placed; NULL when out of memory. */
static json_t *sequence_places(const struct model *m, const struct fit_sequence *s)
{
	json_t *a = json_array();
	int rc = a ? 0 : -1;

	for (size_t i = 0; !rc && i < s->placed; i++) {
		json_t *o = json_object(), *g = json_array();

		for (int j = 0; g && j < s->places[i].ngpus; j++)
			rc |= json_array_append_new(g, json_integer(s->places[i].gpus[j]));
		rc |= set(o ? o : (json_t *)NULL, "node", json_string(m->nodes[s->places[i].node].name));
		rc |= o && g ? json_object_set_new(o, "gpus", g) : (json_decref(g), -1);
		rc |= o ? json_array_append_new(a, o) : -1;
	}
	if (rc) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* "gpu-2,gpu-3" as ["gpu-2", "gpu-3"]. */
static json_t *devices_json(const char *list)
{
	json_t *a = json_array();
	const char *p = list;

	while (a && p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (json_array_append_new(a, json_stringn(p, n)) < 0) {
			json_decref(a);
			return NULL;
		}
		p = end ? end + 1 : p + n;
	}
	return a;
}

/* A claim's requests as asked: class, count, allocation mode, selectors, capacity, and what is not judged. */
static json_t *claim_requests(const struct fit_request *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->nclaim; i++) {
		const struct k8s_dra_request *q = &r->claim[i];
		json_t *o = json_object(), *sel = json_array(), *cap = json_object();
		int rc = !o || !sel || !cap;

		for (size_t k = 0; !rc && k < q->nselectors; k++)
			rc |= json_array_append_new(sel, json_string(q->selectors[k].expression ? q->selectors[k].expression : ""));
		for (size_t k = 0; !rc && k < q->capacity.len; k++)
			rc |= set(cap, q->capacity.items[k].key, json_string(q->capacity.items[k].value));
		if (!rc) {
			rc |= set(o, "name", q->name ? json_string(q->name) : json_null());
			rc |= set(o, "deviceClassName", json_string(q->class_name ? q->class_name : ""));
			rc |= set(o, "allocationMode", json_string(q->allocation_mode ? q->allocation_mode : "ExactCount"));
			rc |= set(o, "count", json_integer(q->count > 0 ? q->count : 1));
			/* a request without a class takes the first of its sub-requests: not judged, as admin access */
			rc |= set(o, "firstAvailable", json_boolean(!q->class_name));
			rc |= set(o, "adminAccess", json_boolean(q->admin_access));
			rc |= json_object_set_new(o, "selectors", sel);
			sel = NULL;
			rc |= json_object_set_new(o, "capacity", cap);
			cap = NULL;
		}
		json_decref(sel);
		json_decref(cap);
		if (rc)
			json_decref(o);
		if (rc || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *render_fit_document(const struct model *m, const struct fit_request *r, const struct fit_result *res,
			    const struct fit_report *rep)
{
	json_t *doc = json_object(), *req = json_object(), *fits = json_array(), *reasons = json_array(),
	       *events = json_array();
	int rc = 0;

	if (!doc || !req || !fits || !reasons || !events)
		goto fail;
	rc |= set(doc, "apiVersion", json_string(RENDER_API_VERSION));
	rc |= set(doc, "kind", json_string("FitAnswer"));
	rc |= set(req, "subject", json_string(rep->subject ? rep->subject : ""));
	rc |= set(req, "scheme", r->scheme ? json_string(r->scheme) : json_null());
	rc |= set(req, "memoryPerGPU", json_integer(r->mem));
	rc |= set(req, "memoryUnit", json_string(r->mem_unit == FIT_MEM_MIB ? "MiB" : "node"));
	rc |= set(req, "corePerGPU", json_integer(r->core));
	rc |= set(req, "gpus", json_integer(r->gpus > 1 ? r->gpus : 1));
	if (r->nclaim)
		rc |= set(req, "deviceRequests", claim_requests(r));
	rc |= json_object_set_new(doc, "request", req);
	req = NULL;
	rc |= set(doc, "fits", json_boolean(rep->seq ? rep->seq->placed == rep->seq->asked : res->nsure > 0));
	rc |= set(doc, "pods", json_integer(rep->seq ? (json_int_t)rep->seq->asked : 1));
	rc |= set(doc, "podsFit", json_integer(rep->seq ? (json_int_t)rep->seq->placed : res->nsure > 0));
	if (rep->seq)
		rc |= set(doc, "placedInOrder", sequence_places(m, rep->seq));
	rc |= set(doc, "nodesConsidered", json_integer((json_int_t)res->considered));
	if (r->nclaim)
		rc |= set(doc, "nodesUnknown", json_integer((json_int_t)res->nunknown));
	for (size_t i = 0; !rc && i < res->nfits; i++) {
		const struct fit_place *p = &res->fits[i];
		const struct model_node *n = &m->nodes[p->node];
		json_t *o = json_object(), *g = json_array();

		if (!o || !g) {
			json_decref(o);
			json_decref(g);
			goto fail;
		}
		for (int j = 0; j < p->ngpus; j++)
			rc |= json_array_append_new(g, json_integer(p->gpus[j]));
		rc |= set(o, "node", json_string(n->name));
		rc |= set(o, "scheme", json_string(n->scheme ? n->scheme->name : ""));
		rc |= set(o, "pool", n->pool ? json_string(n->pool) : json_null());
		rc |= set(o, "unit", json_string(mem_unit_name(n->unit)));
		rc |= json_object_set_new(o, "gpus", g);
		rc |= set(o, "freeAfter", json_integer(p->free_after));
		rc |= set(o, "unsure", json_boolean(p->unsure));
		if (r->nclaim)
			rc |= set(o, "devices", devices_json(p->devices));
		rc |= json_array_append_new(fits, o);
	}
	for (size_t i = 0; !rc && i < res->ngroups; i++) {
		const struct fit_group *gr = &res->groups[i];
		char *t = fit_group_text(gr, r);
		json_t *o = json_object();

		if (!t || !o) {
			free(t);
			json_decref(o);
			goto fail;
		}
		rc |= set(o, "reason", json_string(fit_reason_name(gr->reason)));
		rc |= set(o, "nodes", json_integer((json_int_t)gr->count));
		rc |= set(o, "message", json_string(t));
		rc |= set(o, "detail", gr->detail ? json_string(gr->detail) : json_null());
		if (gr->reason == FIT_REASON_MEMORY) {
			rc |= set(o, "largestFreeOnOneGPU", json_integer(gr->largest_free > 0 ? gr->largest_free : 0));
			rc |= set(o, "unit", json_string(mem_unit_name(gr->unit)));
		}
		rc |= set(o, "example", json_string(gr->first));
		rc |= json_array_append_new(reasons, o);
		free(t);
	}
	for (size_t i = 0; !rc && i < rep->nevents; i++)
		rc |= json_array_append_new(events, json_string(rep->events[i]));
	rc |= json_object_set_new(doc, "places", fits);
	rc |= json_object_set_new(doc, "reasons", reasons);
	rc |= json_object_set_new(doc, "perGPURuleUnpublished", json_boolean(res->unpublished));
	rc |= json_object_set_new(doc, "failedSchedulingEvents", events);
	if (rc)
		goto fail_doc;
	return doc;
fail:
	json_decref(req);
	json_decref(fits);
	json_decref(reasons);
	json_decref(events);
fail_doc:
	json_decref(doc);
	return NULL;
}
