/* Fit checks: one pass over the model's nodes, each node either a place
 * (with the GPUs its scheme would pick) or one reason, reasons grouped. */
#include "fit.h"
#include "fit_claim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct verdict {
	int reason; /* -1 = fits */
	const char *detail;
	char *owned; /* detail when formatted here */
	struct fit_place place;
};

static const char *const reason_names[FIT_REASON_COUNT] = {
	[FIT_REASON_SCHEME] = "OtherScheme",
	[FIT_REASON_NOT_READY] = "NotReady",
	[FIT_REASON_CORDONED] = "Cordoned",
	[FIT_REASON_TAINT] = "Taint",
	[FIT_REASON_SELECTOR] = "NodeSelector",
	[FIT_REASON_AFFINITY] = "NodeAffinity",
	[FIT_REASON_FEW_GPUS] = "TooFewGPUs",
	[FIT_REASON_NO_CORE] = "NoComputeShare",
	[FIT_REASON_MEMORY] = "InsufficientMemory",
	[FIT_REASON_CORE] = "InsufficientCompute",
	[FIT_REASON_SLOTS] = "NoFreeSlot",
	[FIT_REASON_CARD] = "LargerThanOneGPU",
	[FIT_REASON_NO_DEVICE] = "NoDeviceOfClass",
	[FIT_REASON_DEVICE_SELECTOR] = "SelectorFalse",
	[FIT_REASON_FEW_DEVICES] = "TooFewDevices",
	[FIT_REASON_DEVICE_TAKEN] = "DeviceTaken",
	[FIT_REASON_DEVICE_CAPACITY] = "InsufficientDeviceCapacity",
	[FIT_REASON_DEVICE_TAINT] = "DeviceTaint",
	[FIT_REASON_UNKNOWN] = "Unknown",
};

const char *fit_reason_name(enum fit_reason reason)
{
	return reason < FIT_REASON_COUNT ? reason_names[reason] : "Unknown";
}

/* A plain number ("12", "7.9", "1e3", "1000e-3") is whole when the digits
 * its exponent leaves after the point are all zeros.  false for anything
 * but such a number. */
static bool plain_whole(const char *v, bool *whole)
{
	const char *p = v, *dot = NULL, *digits_end;
	long exp = 0;
	size_t nfrac = 0, nzero_tail = 0;

	if (!(*p >= '0' && *p <= '9') && *p != '.')
		return false;
	for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
		if (*p == '.') {
			dot = p;
			continue;
		}
		nfrac += dot != NULL;
		nzero_tail = *p == '0' ? nzero_tail + 1 : 0;
	}
	digits_end = p;
	if (digits_end == v || (digits_end == v + 1 && dot))
		return false;
	if (*p == 'e' || *p == 'E') {
		char *end;

		exp = strtol(p + 1, &end, 10);
		if (end == p + 1 || *end)
			return false;
	} else if (*p) {
		return false;
	}
	/* the value is DIGITS x 10^(exp - nfrac): whole when that power is not
	 * negative, or when as many trailing digits are zeros */
	*whole = exp - (long)nfrac >= 0 || (long)nzero_tail >= (long)nfrac - exp;
	return true;
}

static int refuse(char **why, const char *text)
{
	*why = strdup(text);
	return -1;
}

int fit_parse_memory(const char *v, int64_t *ret_mem, enum fit_mem_unit *ret_unit, char **why)
{
	size_t len = strlen(v);
	bool whole = false;
	int64_t n;

	*why = NULL;
	if (*v == '-')
		return refuse(why, "must be above 0");
	if (plain_whole(v, &whole)) {
		if (!whole) {
			/* the count rounded up, or the same figure as a size */
			if (quantity_parse_int(v, &n) < 0 ||
			    asprintf(why, "GPU memory without a unit is a whole count in the nodes' unit: write %lld, "
					  "or a size such as %sGi",
				     (long long)n + 1, v) < 0)
				*why = NULL;
			return -1;
		}
		if (quantity_parse_int(v, &n) < 0 || n > (1 << 30))
			return refuse(why, "must be a quantity such as 12, 12Gi or 512Mi");
		if (n == 0)
			return refuse(why, "must be above 0 (leave --memory out to ask for whole GPUs)");
		*ret_mem = n;
		*ret_unit = FIT_MEM_NODE;
		return 0;
	}
	*ret_unit = FIT_MEM_MIB;
	/* "12GiB", as card labels write it: a size too */
	if (len > 3 && strcmp(v + len - 2, "iB") == 0) {
		if (memory_label_mib(v, &n) < 0)
			return refuse(why, "must be a quantity such as 12, 12Gi or 512Mi");
	} else {
		/* the decimal suffix m (thousandths) is not a size of memory */
		if (v[len ? len - 1 : 0] == 'm' || quantity_parse_int(v, &n) < 0)
			return refuse(why, "must be a quantity such as 12, 12Gi or 512Mi");
		n = n / (1024 * 1024) + (n % (1024 * 1024) != 0);
	}
	if (n <= 0)
		return refuse(why, "must be above 0");
	*ret_mem = n;
	return 0;
}

bool fit_reason_is_room(enum fit_reason reason)
{
	return reason >= FIT_REASON_FEW_GPUS && reason < FIT_REASON_COUNT;
}

/* The request's memory in the unit a node is shown in. */
static int64_t need_in(const struct fit_request *r, enum mem_unit native, enum mem_unit shown)
{
	int64_t v = r->mem;
	enum mem_unit from = r->mem_unit == FIT_MEM_MIB ? UNIT_MIB : native;

	if (from == UNIT_MIB && shown == UNIT_GIB)
		return (v + 1023) / 1024;
	if (from == UNIT_GIB && shown == UNIT_MIB)
		return v * 1024;
	return v;
}

int64_t fit_need_in(const struct fit_request *r, enum mem_unit native, enum mem_unit shown)
{
	return need_in(r, native, shown);
}

/* The scheme a request names, resolved once per check: NULL with
 * any_scheme false when no scheme has that name. */
struct wanted {
	const struct scheme *sc;
	bool any_scheme;
};

static bool scheme_matches(const struct model_node *n, const struct fit_request *r, const struct wanted *want)
{
	if (r->nclaim)
		return fit_claim_node(n) && (want->any_scheme || n->scheme == want->sc);
	if (!want->any_scheme)
		return want->sc && n->scheme == want->sc;
	/* whole GPUs only: the nodes that count slots; else those that count memory */
	if (r->mem == 0 && r->core == 0)
		return n->info.unit == UNIT_SLOTS;
	return n->info.unit != UNIT_SLOTS;
}

static bool binpack(const struct model_node *n)
{
	return !n->info.spread;
}

static const enum fit_reason misfit_reasons[] = {
	[SCHEME_MISFIT_FEW_GPUS] = FIT_REASON_FEW_GPUS, [SCHEME_MISFIT_NO_CORE] = FIT_REASON_NO_CORE,
	[SCHEME_MISFIT_MEMORY] = FIT_REASON_MEMORY,	[SCHEME_MISFIT_CORE] = FIT_REASON_CORE,
	[SCHEME_MISFIT_SLOTS] = FIT_REASON_SLOTS,	[SCHEME_MISFIT_CARD] = FIT_REASON_CARD,
};

/* The node's scheme's rule, on the node's figures; gpus has room for the
 * node's GPUs. */
static int scheme_rule(const struct model_node *n, const struct fit_request *r, struct scheme_place_gpu *gpus,
		       struct verdict *v, bool *unpublished)
{
	struct scheme_place_node pn = {
		.unit = n->unit, .per_gpu = n->info.per_gpu, .spread = n->info.spread, .ngpus = n->ngpus,
		.gpus = gpus, .mem_total = n->mem_total, .mem_allocated = n->mem_allocated,
		.core_total = n->core_total, .core_allocated = n->core_allocated,
	};
	struct scheme_ask a = {.mem = need_in(r, n->info.unit, n->unit), .core = r->core, .gpus = r->gpus};
	struct scheme_placement pl;

	for (int i = 0; i < n->ngpus; i++) {
		const struct model_gpu *g = &n->gpus[i];

		gpus[i] = (struct scheme_place_gpu){g->index, g->mem_total, g->mem_allocated, g->core_total,
						    g->core_allocated, g->slots, g->npods, model_gpu_usable(g)};
	}
	if (n->scheme->place(&pn, &a, &pl) < 0)
		return -1;
	*unpublished |= pl.unpublished;
	if (pl.misfit != SCHEME_FITS)
		v->reason = (int)misfit_reasons[pl.misfit];
	v->place.gpus = pl.gpus;
	v->place.ngpus = pl.ngpus;
	v->place.unsure = pl.unpublished;
	v->place.free_after = pl.free_after;
	return 0;
}

static const char *first_taint(const struct model_node *n, const struct fit_request *r, char **owned)
{
	for (size_t i = 0; i < n->ntaints; i++) {
		const struct k8s_taint *t = &n->taints[i];

		if (!t->effect || (strcmp(t->effect, "NoSchedule") != 0 && strcmp(t->effect, "NoExecute") != 0))
			continue;
		if (k8s_tolerates(r->tols, r->ntols, t))
			continue;
		if (asprintf(owned, "%s%s%s:%s", t->key ? t->key : "", t->value && *t->value ? "=" : "",
			     t->value ? t->value : "", t->effect) < 0)
			*owned = NULL;
		return *owned ? *owned : "";
	}
	return NULL;
}

static const char *first_selector_miss(const struct model_node *n, const struct fit_request *r, char **owned)
{
	for (size_t i = 0; r->node_selector && i < r->node_selector->len; i++) {
		const struct kv *e = &r->node_selector->items[i];
		const char *v = kvlist_get(&n->labels, e->key);

		if (v && strcmp(v, e->value) == 0)
			continue;
		if (asprintf(owned, "%s=%s", e->key, e->value) < 0)
			*owned = NULL;
		return *owned ? *owned : "";
	}
	return NULL;
}

static bool affinity_matches(const struct model_node *n, const struct fit_request *r)
{
	if (!r->nterms)
		return true;
	for (size_t i = 0; i < r->nterms; i++)
		if (k8s_node_term_match(&n->labels, &r->terms[i]))
			return true;
	return false;
}

/* One check of every node: the request, its scheme, and room for one node's GPUs. */
struct check {
	const struct fit_request *r;
	struct wanted want;
	struct scheme_place_gpu *gpus;
	struct fit_claim_check *claim; /* a claim of devices, compiled once */
};

/* The rule of the node: the claim's on its devices, else its scheme's. */
static int node_rule(const struct model_node *n, const struct check *c, struct verdict *v, bool *unpublished)
{
	if (!c->claim)
		return scheme_rule(n, c->r, c->gpus, v, unpublished);
	if (fit_claim_judge(c->claim, n, &v->reason, &v->owned, &v->place) < 0)
		return -1;
	v->detail = v->owned;
	return 0;
}

static int judge(const struct model_node *n, const struct check *c, struct verdict *v, bool *unpublished)
{
	const struct fit_request *r = c->r;

	memset(v, 0, sizeof(*v));
	v->reason = -1;
	v->place.largest_free = n->largest_free;
	if (!scheme_matches(n, r, &c->want)) {
		v->reason = FIT_REASON_SCHEME;
	} else if (r->node) {
		return node_rule(n, c, v, unpublished);
	} else if (!n->ready) {
		v->reason = FIT_REASON_NOT_READY;
	} else if (n->unschedulable) {
		v->reason = FIT_REASON_CORDONED;
	} else if ((v->detail = first_taint(n, r, &v->owned))) {
		v->reason = FIT_REASON_TAINT;
	} else if ((v->detail = first_selector_miss(n, r, &v->owned))) {
		v->reason = FIT_REASON_SELECTOR;
	} else if (!affinity_matches(n, r)) {
		v->reason = FIT_REASON_AFFINITY;
	} else {
		return node_rule(n, c, v, unpublished);
	}
	return 0;
}

static int add_group(struct fit_result *res, size_t *cap, const struct model_node *n, const struct verdict *v)
{
	struct fit_group *g, *ng;

	for (size_t i = 0; i < res->ngroups; i++) {
		g = &res->groups[i];
		/* figures in a reason's text are in one unit */
		bool by_unit = g->reason == FIT_REASON_MEMORY || g->reason == FIT_REASON_CARD ||
			       g->reason == FIT_REASON_SLOTS;

		if (g->reason != (enum fit_reason)v->reason || (by_unit && g->unit != n->unit) ||
		    strcmp(g->detail ? g->detail : "", v->detail ? v->detail : "") != 0)
			continue;
		g->count++;
		if (v->place.largest_free > g->largest_free)
			g->largest_free = v->place.largest_free;
		return 0;
	}
	ng = kube_array_grow(res->groups, cap, res->ngroups + 1, sizeof(*ng), 8);
	if (!ng)
		return -1;
	res->groups = ng;
	g = &res->groups[res->ngroups];
	memset(g, 0, sizeof(*g));
	g->reason = (enum fit_reason)v->reason;
	g->unit = n->unit;
	g->count = 1;
	g->largest_free = v->place.largest_free;
	g->first = n->name;
	if (v->detail && !(g->detail = strdup(v->detail)))
		return -1;
	res->ngroups++;
	return 0;
}

/* Best first: binpack nodes by least room left, spread nodes by most, in MiB
 * so that GiB and MiB nodes compare; then by name (the model's order). */
struct ranked {
	struct fit_place p;
	bool spread;
	int64_t key;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->p.unsure != y->p.unsure)
		return x->p.unsure ? 1 : -1;
	if (x->spread != y->spread)
		return x->spread ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->p.node < y->p.node ? -1 : x->p.node > y->p.node;
}

static int rank_places(const struct model *m, struct fit_result *res)
{
	struct ranked *r;

	if (res->nfits < 2)
		return 0;
	r = calloc(res->nfits, sizeof(*r));
	if (!r)
		return -1;
	for (size_t i = 0; i < res->nfits; i++) {
		const struct model_node *n = &m->nodes[res->fits[i].node];
		int64_t v = n->unit == UNIT_GIB ? res->fits[i].free_after * 1024 : res->fits[i].free_after;

		r[i] = (struct ranked){res->fits[i], !binpack(n), binpack(n) ? v : -v};
	}
	qsort(r, res->nfits, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < res->nfits; i++)
		res->fits[i] = r[i].p;
	free(r);
	return 0;
}

static int cmp_groups(const void *a, const void *b)
{
	const struct fit_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	return strcmp(x->first, y->first);
}

/* A check of nodes of m for req (whose GPU count is at least 1 in *r):
 * room for the GPUs of the largest node. */
static void check_release(struct check *c)
{
	free(c->gpus);
	fit_claim_check_free(c->claim);
	c->gpus = NULL;
	c->claim = NULL;
}

static int check_init(struct check *c, const struct model *m, struct fit_request *r, const struct fit_request *req,
		      int maxg)
{
	*r = *req;
	if (r->gpus < 1)
		r->gpus = 1;
	*c = (struct check){.r = r, .want = {scheme_find(r->scheme), !r->scheme}};
	c->gpus = calloc((size_t)(maxg > 1 ? maxg : 1), sizeof(*c->gpus));
	if (c->gpus && (!r->nclaim || fit_claim_check_new(m, r, &c->claim) == 0))
		return 0;
	check_release(c);
	return -1;
}

/* The verdict as fit_verdict says it: detail always its own. */
static int judge_node(const struct model_node *n, size_t i, struct check *c, struct fit_verdict *ret)
{
	struct verdict v;

	memset(ret, 0, sizeof(*ret));
	if (judge(n, c, &v, &ret->unpublished) < 0)
		return -1;
	ret->reason = v.reason;
	ret->place = v.place;
	ret->place.node = i;
	if (v.detail && !(ret->detail = v.owned ? v.owned : strdup(v.detail))) {
		free(v.place.gpus);
		free(v.place.devices);
		return -1;
	}
	if (v.reason >= 0) {
		free(ret->place.gpus);
		free(ret->place.devices);
		ret->place.gpus = NULL;
		ret->place.devices = NULL;
		ret->place.ngpus = 0;
	}
	return 0;
}

int fit_judge(const struct model *m, size_t node, const struct fit_request *req, struct fit_verdict *ret)
{
	struct fit_request r;
	struct check c;
	int rc;

	memset(ret, 0, sizeof(*ret));
	if (check_init(&c, m, &r, req, m->nodes[node].ngpus) < 0)
		return -1;
	rc = judge_node(&m->nodes[node], node, &c, ret);
	check_release(&c);
	return rc;
}

void fit_verdict_release(struct fit_verdict *v)
{
	if (!v)
		return;
	free(v->detail);
	free(v->place.gpus);
	free(v->place.devices);
	memset(v, 0, sizeof(*v));
}

int fit_gather(const struct model *m, const struct fit_verdict *verdicts, struct fit_result *res)
{
	size_t gcap = 0;

	memset(res, 0, sizeof(*res));
	if (m->nnodes && !(res->fits = calloc(m->nnodes, sizeof(*res->fits))))
		return -1;
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct fit_verdict *fv = &verdicts[i];
		struct verdict v = {.reason = fv->reason, .detail = fv->detail, .place = fv->place};
		struct fit_place *p;

		if (fv->reason == FIT_VERDICT_SKIP)
			continue;
		res->considered++;
		res->unpublished |= fv->unpublished;
		if (fv->reason >= 0) {
			if (add_group(res, &gcap, &m->nodes[i], &v) < 0)
				goto fail;
			res->nunknown += fv->reason == FIT_REASON_UNKNOWN;
			continue;
		}
		p = &res->fits[res->nfits++];
		*p = fv->place;
		p->node = i;
		p->gpus = NULL;
		p->devices = NULL;
		if ((fv->place.ngpus && !(p->gpus = malloc((size_t)fv->place.ngpus * sizeof(*p->gpus)))) ||
		    (fv->place.devices && !(p->devices = strdup(fv->place.devices))))
			goto fail;
		if (p->gpus)
			memcpy(p->gpus, fv->place.gpus, (size_t)fv->place.ngpus * sizeof(*p->gpus));
	}
	if (rank_places(m, res) < 0)
		goto fail;
	while (res->nsure < res->nfits && !res->fits[res->nsure].unsure)
		res->nsure++;
	if (res->ngroups > 1)
		qsort(res->groups, res->ngroups, sizeof(*res->groups), cmp_groups);
	return 0;
fail:
	fit_result_release(res);
	return -1;
}

int fit_check(const struct model *m, const struct fit_request *req, struct fit_result *res)
{
	struct fit_request r;
	struct fit_verdict *v;
	struct check c;
	int maxg = 1, rc = -1;

	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < m->nnodes; i++)
		maxg = m->nodes[i].ngpus > maxg ? m->nodes[i].ngpus : maxg;
	if (check_init(&c, m, &r, req, maxg) < 0)
		return -1;
	v = calloc(m->nnodes ? m->nnodes : 1, sizeof(*v));
	for (size_t i = 0; v && i < m->nnodes; i++) {
		/* a pod bound to a node: that node only */
		if (req->node && strcmp(m->nodes[i].name, req->node) != 0) {
			v[i].reason = FIT_VERDICT_SKIP;
			continue;
		}
		if (judge_node(&m->nodes[i], i, &c, &v[i]) < 0)
			goto out;
	}
	if (v)
		rc = fit_gather(m, v, res);
out:
	for (size_t i = 0; v && i < m->nnodes; i++)
		fit_verdict_release(&v[i]);
	free(v);
	check_release(&c);
	return rc;
}

int fit_node(const struct model *m, const struct fit_request *req, size_t node, struct fit_place *ret, int *reason)
{
	struct fit_verdict v;

	if (fit_judge(m, node, req, &v) < 0)
		return -1;
	if (v.reason >= 0 || v.place.unsure) {
		*reason = v.reason >= 0 ? v.reason : -1;
		fit_verdict_release(&v);
		return 0;
	}
	*ret = v.place;
	v.place.gpus = NULL;
	v.place.devices = NULL;
	fit_verdict_release(&v);
	*reason = -1;
	return 1;
}

void fit_result_release(struct fit_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfits; i++) {
		free(r->fits[i].gpus);
		free(r->fits[i].devices);
	}
	free(r->fits);
	for (size_t i = 0; i < r->ngroups; i++)
		free(r->groups[i].detail);
	free(r->groups);
	memset(r, 0, sizeof(*r));
}

char *fit_group_text(const struct fit_group *g, const struct fit_request *r)
{
	int gpus = r->gpus > 1 ? r->gpus : 1;
	long long need = (long long)need_in(r, g->unit, g->unit);
	const char *u = mem_unit_name(g->unit);
	char *s = NULL;
	int rc = -1;

	switch (g->reason) {
	case FIT_REASON_SCHEME:
		rc = asprintf(&s, "GPUs shared by another scheme%s%s", r->scheme ? " than " : "", r->scheme ? r->scheme : "");
		break;
	case FIT_REASON_NOT_READY:
		rc = asprintf(&s, "NotReady");
		break;
	case FIT_REASON_CORDONED:
		rc = asprintf(&s, "cordoned (SchedulingDisabled)");
		break;
	case FIT_REASON_TAINT:
		rc = asprintf(&s, "taint %s not tolerated", g->detail ? g->detail : "?");
		break;
	case FIT_REASON_SELECTOR:
		rc = asprintf(&s, "outside nodeSelector %s", g->detail ? g->detail : "?");
		break;
	case FIT_REASON_AFFINITY:
		rc = asprintf(&s, "outside the required node affinity");
		break;
	case FIT_REASON_FEW_GPUS:
		rc = asprintf(&s, "fewer than %d healthy GPU%s", gpus, gpus > 1 ? "s" : "");
		break;
	case FIT_REASON_NO_CORE:
		rc = asprintf(&s, "GPU compute is not shared on these nodes (no gpu-core.percentage)");
		break;
	case FIT_REASON_MEMORY:
		if (g->unit == UNIT_SLOTS)
			rc = asprintf(&s, "fewer than %d free GPU slots", gpus);
		else if (need == 0)
			rc = asprintf(&s, "no unused GPU (the pod takes a whole card)");
		else if (gpus > 1)
			rc = asprintf(&s, "fewer than %d GPUs with %lld %s free (largest free on one GPU: %lld %s)", gpus,
				      need, u, (long long)(g->largest_free > 0 ? g->largest_free : 0), u);
		else
			rc = asprintf(&s, "no GPU with %lld %s free (largest free on one GPU: %lld %s)", need, u,
				      (long long)(g->largest_free > 0 ? g->largest_free : 0), u);
		break;
	case FIT_REASON_CORE:
		rc = asprintf(&s, "no GPU with %lld%% compute free beside the memory", (long long)r->core);
		break;
	case FIT_REASON_SLOTS:
		if (g->unit == UNIT_SLOTS)
			rc = asprintf(&s, "fewer than %d free GPU%s (whole or replica slots)", gpus, gpus > 1 ? "s" : "");
		else
			rc = asprintf(&s, "no free vGPU slot on a GPU with room");
		break;
	case FIT_REASON_CARD:
		rc = asprintf(&s, "%lld %s is more than one GPU holds", need, u);
		break;
	case FIT_REASON_NO_DEVICE:
	case FIT_REASON_DEVICE_SELECTOR:
	case FIT_REASON_FEW_DEVICES:
	case FIT_REASON_DEVICE_TAKEN:
	case FIT_REASON_DEVICE_CAPACITY:
	case FIT_REASON_DEVICE_TAINT:
	case FIT_REASON_UNKNOWN:
		rc = asprintf(&s, "%s", g->detail ? g->detail : "?");
		break;
	default:
		rc = asprintf(&s, "does not fit");
		break;
	}
	return rc < 0 ? NULL : s;
}

int fit_request_from_pod(const struct k8s_pod *pod, const char *only, struct fit_request *r,
			 const struct scheme **ret_sc, struct warnings *w)
{
	struct scheme_pod sp;
	int rc = scheme_detect_pod(only, NULL, pod, &sp, w, ret_sc);

	if (rc <= 0)
		return rc;
	r->scheme = (*ret_sc)->name;
	r->mem_unit = FIT_MEM_NODE;
	r->mem = sp.ask.mem;
	r->core = sp.ask.core;
	r->gpus = sp.ask.gpus;
	r->node_selector = &pod->node_selector;
	r->terms = pod->node_terms;
	r->nterms = pod->nnode_terms;
	r->tols = pod->tolerations;
	r->ntols = pod->ntolerations;
	scheme_pod_release(&sp);
	return 1;
}
