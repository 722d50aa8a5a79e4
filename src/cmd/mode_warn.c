/* The warnings of `mode`: what a change of sharing mode leaves as it was on
 * the nodes, and the pods it concerns, grouped so that they fit on a screen.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mode.h"
#include "termsafe.h"

struct pod_scan {
	struct mode_run *r;
	size_t unpinned; /* GPU-memory pods without a nodeSelector */
	size_t shown;
	size_t base; /* warnings before the pod list began */
};


/* The pod's whole ask for a resource: the sum over its containers (the
 * device plugin gives each container its own share).  False when no
 * container asks for it. */
static bool pod_gpu_limit(const struct k8s_pod *p, const char *name, int64_t *ret)
{
	bool found = false;

	*ret = 0;
	for (size_t i = 0; i < p->ncontainers; i++) {
		const char *v = kvlist_get(&p->containers[i].limits, name);
		int64_t q;

		if (!v)
			continue;
		found = true;
		if (quantity_parse_int(v, &q) == 0 && q > 0 && *ret <= INT64_MAX - q)
			*ret += q;
	}
	return found;
}

static const struct np_plan *changing_plan(const struct mode_run *r, const char *node)
{
	for (size_t i = 0; node && i < r->chosen.len; i++)
		if (r->plans[i].nchanges && strcmp(r->plans[i].node, node) == 0)
			return &r->plans[i];
	return NULL;
}

#define MAX_UNPINNED_SHOWN 10

static int pod_seen(void *ud, struct k8s_pod *p, struct kerr *err)
{
	struct pod_scan *s = ud;
	const struct scheme_modes *sm = scheme_modes_find();
	int64_t memq, wholeq;
	bool mem = pod_gpu_limit(p, sm->share_resource, &memq);
	bool whole = pod_gpu_limit(p, sm->whole_resource, &wholeq);
	const struct np_plan *plan = changing_plan(s->r, p->node_name);
	char *object = NULL;

	/* only pods on the changing nodes, or not yet on any node (they may
	 * land on one), concern this change: the rest of a large cluster
	 * would bury what matters */
	if (!plan && p->node_name && *p->node_name) {
		k8s_pod_free(p);
		return 0;
	}

	if (asprintf(&object, "pod/%s/%s", p->namespace ? p->namespace : "", p->name ? p->name : "") < 0) {
		k8s_pod_free(p);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	/* only where the resource the pod holds is not the one the new mode
	 * offers: between the sharing modes the pod keeps what it holds */
	if (plan && ((mem && plan->after == NP_MODE_EXCLUSIVE) || (whole && plan->after != NP_MODE_EXCLUSIVE)))
		warnings_add(&s->r->warnings, "PodHoldsGPU", object,
			     "runs on node %s with %s=%lld of the old mode (%s); it keeps it until it ends: "
			     "let it finish or move it before relying on mode %s",
			     plan->node, mem ? sm->share_resource : sm->whole_resource, (long long)(mem ? memq : wholeq),
			     np_plan_before_name(plan), np_mode_name(plan->after));
	/* a selector on kubernetes.io/os or a zone does not keep a pod out of a
	 * pool in another mode: only the pool and mode labels do */
	if (mem && p->node_keys.len == 0) {
		if (s->shown < MAX_UNPINNED_SHOWN) {
			warnings_add(&s->r->warnings, "NoNodeSelector", object,
				     "asks for %s without a nodeSelector or required node affinity on a pool or "
				     "sharing-mode label: with pools in different modes its next pods may land in the "
				     "wrong pool",
				     sm->share_resource);
			s->shown++;
		}
		s->unpinned++;
	}
	free(object);
	k8s_pod_free(p);
	return 0;
}

static void pod_list_reset(void *ud, const char *rv, const char *cont)
{
	struct pod_scan *s = ud;
	struct warnings *w = &s->r->warnings;

	/* the list starts again after 410 Expired: forget what its pods said */
	if (rv || cont)
		return;
	for (size_t i = s->base; i < w->len; i++) {
		free(w->items[i].code);
		free(w->items[i].object);
		free(w->items[i].message);
	}
	w->len = s->base;
	s->unpinned = 0;
	s->shown = 0;
}

void mode_plan_warnings(struct mode_run *r)
{
	for (size_t i = 0; i < r->chosen.len; i++) {
		const struct np_plan *p = &r->plans[i];
		char *object = NULL;

		if (!p->nchanges || asprintf(&object, "node/%s", p->node) < 0)
			continue;
		if (p->isolation_stays)
			warnings_add(&r->warnings, "IsolationStays", object,
				     "leaving mode %s does not turn memory isolation off: uninstall the cGPU kernel "
				     "module on the node and reboot it",
				     np_mode_name(p->before));
		if (p->region_unsupported)
			warnings_add(&r->warnings, "RegionUnsupported", object,
				     "region %s is not one where cGPU memory isolation is offered", p->region);
		free(object);
	}
}

int mode_pod_warnings(struct mode_run *r, struct kerr *err)
{
	struct pod_scan s = { .r = r, .base = r->warnings.len };
	const struct decode_filter pod_filter = { .resource_names = scheme_modes_find()->pod_resources,
						  .node_keys = np_pin_label_keys() };
	struct kube_list l = {
		.path = "/api/v1/pods",
		.field_selector = CLUSTER_ACTIVE_PODS,
		.kind = OBJ_POD,
		.filter = &pod_filter,
		.sink = { .pod = pod_seen, .list_meta = pod_list_reset, .ud = &s },
	};
	int rc = kube_list_run(r->cluster.client, &l, 1, err);

	kube_list_release(&l);
	r->unpinned_unlisted = s.unpinned - s.shown;
	if (rc == 0 && s.unpinned > s.shown)
		warnings_add(&r->warnings, "NoNodeSelector", NULL,
			     "%zu more pods ask for %s without a nodeSelector", s.unpinned - s.shown,
			     scheme_modes_find()->share_resource);
	return rc;
}

/* Each kind of warning shows this many in full; the rest are counted and
 * a few named, so that the warnings fit on a screen (-o json has them all). */
#define WARN_FULL_PER_KIND 3
#define WARN_NAMED_MORE 3

static bool code_seen_before(const struct warnings *w, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(w->items[k].code, w->items[i].code) == 0)
			return true;
	return false;
}

/* Grouped by kind, in the order each kind first appeared: at most
 * WARN_FULL_PER_KIND + 1 lines per kind. */
void mode_print_warnings(const struct mode_run *r)
{
	const struct warnings *w = &r->warnings;
	FILE *f = r->ctx->errout;

	for (size_t i = 0; i < w->len; i++) {
		const char *code = w->items[i].code;
		size_t total = 0, full = 0, named = 0;

		if (code_seen_before(w, i))
			continue;
		for (size_t k = i; k < w->len; k++) {
			const struct warning *x = &w->items[k];

			if (strcmp(x->code, code) != 0 || !x->object)
				continue;
			if (total++ < WARN_FULL_PER_KIND) {
				termsafe_printf(f, "Warning: %s: %s\n", x->object, x->message);
				full++;
			}
		}
		if (strcmp(code, "NoNodeSelector") == 0)
			total += r->unpinned_unlisted;
		if (total <= full)
			continue;
		fprintf(f, "Warning: %zu more %s:", total - full, code);
		for (size_t k = i, seen = 0; k < w->len && named < WARN_NAMED_MORE; k++) {
			const struct warning *x = &w->items[k];

			if (strcmp(x->code, code) != 0 || !x->object || seen++ < full)
				continue;
			termsafe_printf(f, "%s %s", named ? "," : "", x->object);
			named++;
		}
		fprintf(f, "%s (-o json has them all)\n", total > full + named ? " ..." : "");
	}
}
