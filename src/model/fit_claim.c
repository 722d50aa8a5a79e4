/* A claim of devices on one node (fit_claim.h). */
#include "fit_claim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel.h"

#define MIB (INT64_C(1) << 20)

/* One request of the claim, compiled: the class's selectors, then its own. */
struct req_check {
	const struct k8s_dra_request *req;
	struct cel_program **progs;
	size_t nclass, nprogs;
	bool class_found;
	bool all; /* allocationMode All: every device that matches */
	/* why the request is not judged, or NULL: the claim is then at best
	 * unknown, and cannot fit only where the other requests cannot */
	const char *unjudged;
};

struct fit_claim_check {
	const struct scheme *sc; /* the scheme with claims */
	const struct scheme_objects *objs;
	struct req_check *reqs;
	size_t nreqs;
};

static const struct scheme *claims_scheme(void)
{
	for (size_t i = 0; schemes[i]; i++)
		if (schemes[i]->node_devices && schemes[i]->device_class)
			return schemes[i];
	return NULL;
}

bool fit_claim_node(const struct model_node *n)
{
	return n->scheme && n->scheme->node_devices;
}

bool fit_claim_class_known(const struct model *m, const char *name)
{
	const struct scheme *sc = claims_scheme();
	const struct k8s_dra_selector *sel;
	size_t n;

	return sc && name && sc->device_class(m->opts.objects, name, &sel, &n) == 1;
}

static int compile_one(const char *expr, struct cel_program **ret)
{
	struct kerr err = {0};
	int rc = cel_compile(expr ? expr : "", expr ? strlen(expr) : 0, NULL, ret, &err);

	kerr_release(&err);
	return rc;
}

static int req_compile(const struct fit_claim_check *c, const struct k8s_dra_request *q, struct req_check *rc)
{
	const struct k8s_dra_selector *cls = NULL;
	size_t ncls = 0;

	rc->req = q;
	rc->all = q->allocation_mode && strcmp(q->allocation_mode, "All") == 0;
	/* a request without a class is one of firstAvailable (an exact request must name one) */
	rc->unjudged = !q->class_name	? "it takes the first of its sub-requests that can be allocated"
		       : q->admin_access ? "it asks for admin access"
					 : NULL;
	rc->class_found = c->sc && q->class_name && c->sc->device_class(c->objs, q->class_name, &cls, &ncls) == 1;
	rc->progs = calloc(ncls + q->nselectors + 1, sizeof(*rc->progs));
	if (!rc->progs)
		return -1;
	for (size_t i = 0; i < ncls + q->nselectors; i++) {
		const char *e = i < ncls ? cls[i].expression : q->selectors[i - ncls].expression;

		if (compile_one(e, &rc->progs[i]) < 0)
			return -1;
		rc->nprogs++;
	}
	rc->nclass = ncls;
	return 0;
}

int fit_claim_check_new(const struct model *m, const struct fit_request *r, struct fit_claim_check **ret)
{
	struct fit_claim_check *c = calloc(1, sizeof(*c));

	*ret = NULL;
	if (!c)
		return -1;
	c->sc = claims_scheme();
	c->objs = m->opts.objects;
	if (!(c->reqs = calloc(r->nclaim ? r->nclaim : 1, sizeof(*c->reqs)))) {
		free(c);
		return -1;
	}
	for (size_t i = 0; i < r->nclaim; i++) {
		c->nreqs++;
		if (req_compile(c, &r->claim[i], &c->reqs[i]) < 0) {
			fit_claim_check_free(c);
			return -1;
		}
	}
	*ret = c;
	return 0;
}

void fit_claim_check_free(struct fit_claim_check *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nreqs; i++) {
		for (size_t j = 0; j < c->reqs[i].nprogs; j++)
			cel_program_free(c->reqs[i].progs[j]);
		free(c->reqs[i].progs);
	}
	free(c->reqs);
	free(c);
}

/* --- a device against one request ------------------------------------------ */

/* What a device is to a request. */
enum dev_state {
	DEV_CLASS_FALSE, /* not of the class */
	DEV_SEL_FALSE,	 /* of the class, the request's selectors say no */
	DEV_TAINT,
	DEV_TAKEN,
	DEV_COUNTERS, /* what it consumes of a shared counter is held by others (a MIG device's slices) */
	DEV_CAPACITY,
	DEV_MAYBE, /* would serve, but a selector or capacity could not be judged */
	DEV_OK,
};

/* The device in the shape the selectors read. */
struct cel_dev {
	struct cel_device d;
	struct cel_attr *attrs;
	struct cel_capacity *caps;
};

static int cel_dev_init(struct cel_dev *cd, const struct scheme_device *d)
{
	memset(cd, 0, sizeof(*cd));
	cd->attrs = calloc(d->nattrs + 1, sizeof(*cd->attrs));
	cd->caps = calloc(d->ncaps + 1, sizeof(*cd->caps));
	if (!cd->attrs || !cd->caps)
		return -1;
	for (size_t i = 0; i < d->nattrs; i++) {
		const struct scheme_attr *a = &d->attrs[i];
		static const enum cel_attr_type types[] = {
			[SCHEME_ATTR_INT] = CEL_ATTR_INT, [SCHEME_ATTR_BOOL] = CEL_ATTR_BOOL,
			[SCHEME_ATTR_STRING] = CEL_ATTR_STRING, [SCHEME_ATTR_VERSION] = CEL_ATTR_VERSION,
			[SCHEME_ATTR_NONE] = CEL_ATTR_NONE};

		cd->attrs[i] = (struct cel_attr){a->name, types[a->type], a->i, a->b, a->s};
	}
	for (size_t i = 0; i < d->ncaps; i++)
		cd->caps[i] = (struct cel_capacity){d->caps[i].name, d->caps[i].value};
	cd->d = (struct cel_device){d->driver, cd->attrs, d->nattrs, cd->caps, d->ncaps, d->allow_multiple};
	return 0;
}

static void cel_dev_release(struct cel_dev *cd)
{
	free(cd->attrs);
	free(cd->caps);
}

/* The selectors from..to-1 of rc on the device: all true, one false, or
 * else unknown (the first unknown's verdict in *why). */
static enum cel_result selectors_eval(const struct req_check *rc, size_t from, size_t to, const struct cel_device *d,
				      struct cel_verdict *why)
{
	enum cel_result res = CEL_TRUE;

	for (size_t i = from; i < to; i++) {
		struct cel_verdict v;

		cel_eval(rc->progs[i], d, &v);
		if (v.result == CEL_FALSE)
			return CEL_FALSE;
		if (v.result == CEL_UNKNOWN && res == CEL_TRUE) {
			res = CEL_UNKNOWN;
			*why = v;
		}
	}
	return res;
}

/* Whether a request's name ("memory" or "DOMAIN/memory") names capacity c. */
static bool cap_find_in(const struct scheme_capacity *c, const char *name)
{
	const char *slash = strrchr(name, '/');

	return c->name && (strcmp(c->name, name) == 0 || (slash && strcmp(c->name, slash + 1) == 0));
}

/* The capacity of the device a request names. */
static const struct scheme_capacity *cap_find(const struct scheme_device *d, const char *name)
{
	for (size_t i = 0; i < d->ncaps; i++)
		if (cap_find_in(&d->caps[i], name))
			return &d->caps[i];
	return NULL;
}

/* What the request asks of capacity c of the device, as a share its
 * request policy allows: 1 and *ret, 0 where the policy refuses it (over
 * max), -1 where it cannot be told (valid values listed). */
static int share_of(const struct k8s_dra_request *q, const struct scheme_capacity *c, int64_t *ret)
{
	const char *asked = NULL;
	int64_t v;

	for (size_t i = 0; i < q->capacity.len && !asked; i++)
		if (cap_find_in(c, q->capacity.items[i].key))
			asked = q->capacity.items[i].value;
	if (asked && quantity_parse_int(asked, &v) < 0)
		return 0;
	if (!c->has_policy) {
		/* without a policy a share takes what it asks, or all of it */
		*ret = asked ? v : c->amount;
		return 1;
	}
	if (c->policy_values)
		return -1;
	if (!asked)
		v = c->policy_default;
	if (v < c->policy_min)
		v = c->policy_min;
	if (c->policy_step > 0 && (v - c->policy_min) % c->policy_step)
		v = c->policy_min + ((v - c->policy_min) / c->policy_step + 1) * c->policy_step;
	if (c->policy_max > 0 && v > c->policy_max)
		return 0;
	*ret = v;
	return 1;
}

/* The capacity the request asks of the device: DEV_OK, DEV_CAPACITY
 * (first short one in *short_cap), or DEV_MAYBE where what is left or
 * what a share takes cannot be told. */
static enum dev_state capacity_state(const struct k8s_dra_request *q, const struct scheme_device *d,
				     const char **short_cap)
{
	enum dev_state st = DEV_OK;

	/* every capacity asked must be one the device has, and no more */
	for (size_t i = 0; i < q->capacity.len; i++) {
		const struct scheme_capacity *c = cap_find(d, q->capacity.items[i].key);
		int64_t need;

		if (quantity_parse_int(q->capacity.items[i].value, &need) < 0)
			need = INT64_MAX;
		if (!c || need > c->amount) {
			*short_cap = q->capacity.items[i].key;
			return DEV_CAPACITY;
		}
	}
	/* a device shared by capacity: each of its capacities gives a share */
	for (size_t i = 0; d->allow_multiple && i < d->ncaps; i++) {
		const struct scheme_capacity *c = &d->caps[i];
		int64_t need;
		int got = share_of(q, c, &need);

		if (got == 0 || (got == 1 && c->left_known && need > c->left)) {
			*short_cap = c->name;
			return DEV_CAPACITY;
		}
		if (got < 0 || !c->left_known)
			st = DEV_MAYBE;
	}
	return st;
}

static bool counters_fit(const struct scheme_devices *ds, const int64_t *left, const struct scheme_device *d)
{
	for (size_t i = 0; i < d->nconsumes; i++)
		if (d->consumes[i].counter >= ds->ncounters || left[d->consumes[i].counter] < d->consumes[i].amount)
			return false;
	return true;
}

/* The first NoSchedule or NoExecute taint of the device the request does not tolerate. */
static const struct k8s_taint *device_taint(const struct scheme_device *d, const struct k8s_dra_request *q)
{
	for (size_t i = 0; i < d->ntaints; i++) {
		const char *e = d->taints[i].effect;

		if (e && (strcmp(e, "NoSchedule") == 0 || strcmp(e, "NoExecute") == 0) &&
		    !k8s_tolerates(q->tolerations, q->ntolerations, &d->taints[i]))
			return &d->taints[i];
	}
	return NULL;
}

/* What device i is to request rc: the stages in the scheduler's order. */
static enum dev_state device_state(const struct req_check *rc, const struct scheme_devices *ds, size_t i,
				   const struct cel_device *cd, struct cel_verdict *why, const char **short_cap)
{
	const struct scheme_device *d = &ds->devs[i];
	enum cel_result cls = selectors_eval(rc, 0, rc->nclass, cd, why), own;
	enum dev_state cap;

	if (!rc->class_found || cls == CEL_FALSE)
		return DEV_CLASS_FALSE;
	own = selectors_eval(rc, rc->nclass, rc->nprogs, cd, why);
	if (own == CEL_FALSE)
		return DEV_SEL_FALSE;
	if (device_taint(d, rc->req))
		return DEV_TAINT;
	if (d->in_use && !d->allow_multiple)
		return DEV_TAKEN;
	if (!counters_fit(ds, ds->counters_left, d))
		return DEV_COUNTERS;
	cap = capacity_state(rc->req, d, short_cap);
	if (cap == DEV_CAPACITY)
		return DEV_CAPACITY;
	return cls == CEL_UNKNOWN || own == CEL_UNKNOWN || cap == DEV_MAYBE ? DEV_MAYBE : DEV_OK;
}

/* --- the search -------------------------------------------------------------- */

struct search {
	const struct scheme_devices *ds;
	const enum dev_state *states; /* per request, per device */
	const size_t *need;	      /* devices per request */
	size_t nreqs;
	enum dev_state worst; /* DEV_OK: certain devices only; DEV_MAYBE: those too */
	int64_t *left;	      /* the counters as the devices chosen leave them */
	bool *used;
	size_t *chosen; /* device per slot, requests in order */
	size_t nchosen, steps;
};

static bool serves(const struct search *s, size_t r, size_t i)
{
	enum dev_state st = s->states[r * s->ds->n + i];

	return st == DEV_OK || (s->worst == DEV_MAYBE && st == DEV_MAYBE);
}

static void take(struct search *s, size_t i, int sign)
{
	const struct scheme_device *d = &s->ds->devs[i];

	for (size_t k = 0; k < d->nconsumes; k++)
		s->left[d->consumes[k].counter] -= sign * d->consumes[k].amount;
	s->used[i] = sign > 0;
}

/* Slot k of request r from device `from` on: 1 when every request is
 * served, 0 when no choice serves them, -1 over the bound of steps.
 * Devices of one request in increasing order: each set is tried once. */
static int search_from(struct search *s, size_t r, size_t k, size_t from)
{
	if (r == s->nreqs)
		return 1;
	if (k == s->need[r])
		return search_from(s, r + 1, 0, 0);
	for (size_t i = from; i < s->ds->n; i++) {
		int rc;

		if (s->used[i] || !serves(s, r, i))
			continue;
		if (++s->steps > FIT_CLAIM_MAX_STEPS)
			return -1;
		if (!counters_fit(s->ds, s->left, &s->ds->devs[i]))
			continue;
		take(s, i, 1);
		s->chosen[s->nchosen++] = i;
		rc = search_from(s, r, k + 1, i + 1);
		if (rc != 0)
			return rc;
		s->nchosen--;
		take(s, i, -1);
	}
	return 0;
}

static int search_run(struct search *s, enum dev_state worst)
{
	size_t total = 0;

	for (size_t r = 0; r < s->nreqs; r++)
		total += s->need[r];
	if (total > s->ds->n)
		return 0;
	s->worst = worst;
	s->nchosen = s->steps = 0;
	memset(s->used, 0, s->ds->n * sizeof(*s->used));
	if (s->ds->ncounters)
		memcpy(s->left, s->ds->counters_left, s->ds->ncounters * sizeof(*s->left));
	return search_from(s, 0, 0, 0);
}

/* --- the verdict --------------------------------------------------------------- */

/* How the devices of a node stand to one request. */
struct tally {
	size_t of_class, matched, taint, taken, counters, capacity, maybe, ok;
	const char *short_cap;
	const struct k8s_taint *first_taint;
};

struct judging {
	const struct fit_claim_check *c;
	const struct scheme_devices *ds;
	enum dev_state *states;
	size_t *need;
	struct tally *tallies;
	struct cel_verdict why; /* the first selector not evaluated */
	bool have_why, incomplete;
};

static void tally_add(struct tally *t, enum dev_state st, const struct scheme_device *d,
		      const struct k8s_dra_request *q)
{
	t->of_class += st != DEV_CLASS_FALSE;
	t->matched += st != DEV_CLASS_FALSE && st != DEV_SEL_FALSE;
	t->taint += st == DEV_TAINT;
	t->taken += st == DEV_TAKEN;
	t->counters += st == DEV_COUNTERS;
	t->capacity += st == DEV_CAPACITY;
	t->maybe += st == DEV_MAYBE;
	t->ok += st == DEV_OK;
	if (st == DEV_TAINT && !t->first_taint)
		t->first_taint = device_taint(d, q);
}

/* Every device against every request. */
static int states_fill(struct judging *j)
{
	const struct scheme_devices *ds = j->ds;

	for (size_t i = 0; i < ds->n; i++) {
		struct cel_dev cd;

		if (cel_dev_init(&cd, &ds->devs[i]) < 0) {
			cel_dev_release(&cd);
			return -1;
		}
		j->incomplete |= ds->devs[i].incomplete;
		for (size_t r = 0; r < j->c->nreqs; r++) {
			struct cel_verdict why = {0};
			const char *short_cap = NULL;
			enum dev_state st = j->c->reqs[r].unjudged ? DEV_CLASS_FALSE
								    : device_state(&j->c->reqs[r], ds, i, &cd.d, &why, &short_cap);

			j->states[r * ds->n + i] = st;
			tally_add(&j->tallies[r], st, &ds->devs[i], j->c->reqs[r].req);
			if (short_cap && !j->tallies[r].short_cap)
				j->tallies[r].short_cap = short_cap;
			if (st == DEV_MAYBE && why.result == CEL_UNKNOWN && !j->have_why) {
				j->why = why;
				j->have_why = true;
			}
		}
		cel_dev_release(&cd);
	}
	for (size_t r = 0; r < j->c->nreqs; r++) {
		const struct k8s_dra_request *q = j->c->reqs[r].req;

		if (j->c->reqs[r].unjudged)
			continue; /* need 0: the search is of the others */
		j->need[r] = j->c->reqs[r].all ? j->tallies[r].matched : (size_t)(q->count > 0 ? q->count : 1);
		if (j->c->reqs[r].all && !j->need[r])
			j->need[r] = 1;
	}
	return 0;
}

static const char *class_of(const struct req_check *rc)
{
	return rc->req->class_name ? rc->req->class_name : "";
}

/* The quantity a request asks of capacity name. */
static const char *asked(const struct k8s_dra_request *q, const char *name)
{
	const char *v = name ? kvlist_get(&q->capacity, name) : NULL;

	return v ? v : "?";
}

/* Why request r alone cannot be served: the reason and its words, or
 * -1 when it could be alone. */
static int request_reason(const struct judging *j, size_t r, char **detail)
{
	const struct tally *t = &j->tallies[r];
	const struct req_check *rc = &j->c->reqs[r];
	const char *cls = class_of(rc);
	size_t usable = t->ok + t->maybe;
	int rc_ = -1;

	if (rc->unjudged)
		return -1;
	if (!rc->class_found)
		rc_ = asprintf(detail, "no DeviceClass %s", cls) < 0 ? -2 : FIT_REASON_NO_DEVICE;
	else if (!t->of_class)
		rc_ = asprintf(detail, "no device of class %s", cls) < 0 ? -2 : FIT_REASON_NO_DEVICE;
	else if (!t->matched)
		rc_ = asprintf(detail, "no device of class %s matches the selector", cls) < 0 ? -2
										: FIT_REASON_DEVICE_SELECTOR;
	else if (usable >= j->need[r])
		return -1;
	else if (usable)
		rc_ = asprintf(detail, "%zu device%s of class %s asked, %zu free that match%s", j->need[r],
			       j->need[r] == 1 ? "" : "s", cls, usable, usable == 1 ? "es" : "") < 0
			      ? -2
			      : FIT_REASON_FEW_DEVICES;
	else if (t->capacity)
		rc_ = asprintf(detail, "not enough %s left on a device of class %s that matches (%s asked)",
			       t->short_cap ? t->short_cap : "capacity", cls, asked(rc->req, t->short_cap)) < 0
			      ? -2
			      : FIT_REASON_DEVICE_CAPACITY;
	else if (t->taint && t->first_taint && (t->taint >= t->taken))
		rc_ = asprintf(detail, "device taint %s%s%s:%s not tolerated", t->first_taint->key ? t->first_taint->key : "",
			       t->first_taint->value && *t->first_taint->value ? "=" : "",
			       t->first_taint->value ? t->first_taint->value : "", t->first_taint->effect) < 0
			      ? -2
			      : FIT_REASON_DEVICE_TAINT;
	else if (!t->counters)
		rc_ = asprintf(detail, "every device of class %s that matches is taken (not shareable)", cls) < 0
			      ? -2
			      : FIT_REASON_DEVICE_TAKEN;
	else
		rc_ = asprintf(detail, "the devices of class %s that match are taken or need counters of their GPU that "
				       "devices in use hold (MIG memory slices, multiprocessors)",
			       cls) < 0
			      ? -2
			      : FIT_REASON_DEVICE_TAKEN;
	return rc_;
}

/* "gpu-2,gpu-3": the devices chosen, in the requests' order. */
static int devices_text(const struct judging *j, const struct search *s, char **ret)
{
	size_t len = 1;

	for (size_t k = 0; k < s->nchosen; k++)
		len += strlen(j->ds->devs[s->chosen[k]].name ? j->ds->devs[s->chosen[k]].name : "") + 1;
	if (!(*ret = malloc(len)))
		return -1;
	**ret = 0;
	for (size_t k = 0; k < s->nchosen; k++) {
		if (k)
			strcat(*ret, ",");
		strcat(*ret, j->ds->devs[s->chosen[k]].name ? j->ds->devs[s->chosen[k]].name : "");
	}
	return 0;
}

/* Where the devices chosen sit: their GPUs in the model (by the name the
 * node's GPU carries), and what is left free on them once taken. */
static int place_fill(const struct judging *j, const struct search *s, const struct model_node *n,
		      struct fit_place *p)
{
	int64_t take_mib = 0, free_mib = 0;

	p->gpus = calloc(s->nchosen + 1, sizeof(*p->gpus));
	if (!p->gpus)
		return -1;
	p->ngpus = 0;
	for (size_t k = 0, r = 0, slot = 0; k < s->nchosen; k++, slot++) {
		const struct scheme_device *d = &j->ds->devs[s->chosen[k]];
		const struct k8s_dra_request *q;
		int64_t need = 0;

		while (r < s->nreqs && slot >= s->need[r])
			r++, slot = 0;
		q = j->c->reqs[r < s->nreqs ? r : s->nreqs - 1].req;
		if (d->allow_multiple && cap_find(d, "memory") && share_of(q, cap_find(d, "memory"), &need) == 1)
			need = (need + MIB - 1) / MIB;
		else
			need = 0;
		take_mib += d->allow_multiple && need ? need : d->mem_mib;
		for (int g = 0; d->gpu && g < n->ngpus; g++) {
			bool seen = false;

			if (!n->gpus[g].id || strcmp(n->gpus[g].id, d->gpu) != 0)
				continue;
			for (int e = 0; e < p->ngpus; e++)
				seen |= p->gpus[e] == g;
			if (!seen) {
				p->gpus[p->ngpus++] = g;
				free_mib += model_gpu_free(&n->gpus[g]);
			}
		}
	}
	p->free_after = n->unit == UNIT_MIB ? (free_mib > take_mib ? free_mib - take_mib : 0) : 0;
	if (devices_text(j, s, &p->devices) < 0)
		return -1;
	if (!p->ngpus) {
		free(p->gpus);
		p->gpus = NULL;
	}
	return 0;
}

/* The first request not judged, or NULL. */
static const struct req_check *unjudged(const struct fit_claim_check *c)
{
	for (size_t r = 0; r < c->nreqs; r++)
		if (c->reqs[r].unjudged)
			return &c->reqs[r];
	return NULL;
}

/* The verdict once states and tallies are known. */
static int verdict(struct judging *j, const struct model_node *n, int *reason, char **detail, struct fit_place *p)
{
	size_t nd = j->ds->n, total = 0;
	struct search s = {.ds = j->ds, .states = j->states, .need = j->need, .nreqs = j->c->nreqs};
	const struct req_check *u = unjudged(j->c);
	int found = 0, rc = -1;

	for (size_t r = 0; r < s.nreqs; r++)
		total += j->need[r];
	s.left = calloc(j->ds->ncounters + 1, sizeof(*s.left));
	s.used = calloc(nd + 1, sizeof(*s.used));
	s.chosen = calloc(total < nd ? total + 1 : nd + 1, sizeof(*s.chosen));
	if (!s.left || !s.used || !s.chosen)
		goto out;
	found = search_run(&s, DEV_OK);
	if (found == 1 && !u) {
		*reason = -1;
		rc = place_fill(j, &s, n, p);
		goto out;
	}
	if (found == 0)
		found = search_run(&s, DEV_MAYBE);
	rc = 0;
	if (found == -1)
		rc = asprintf(detail, "too many ways to place the claim to try them all");
	else if (found == 1 && u)
		rc = asprintf(detail, "request %s not evaluated (%s)", u->req->name ? u->req->name : "", u->unjudged);
	else if (found == 1 && j->have_why)
		rc = asprintf(detail, "selector not evaluated (%s: %s)", cel_why_text(j->why.why), j->why.reason);
	else if (found == 1)
		rc = asprintf(detail, "capacity left on a shared device not known (what its shares consume, or the "
				      "valid values of its request policy, are not read)");
	else if (j->incomplete)
		rc = asprintf(detail, "a pool of the node is incomplete: more devices may be published");
	else
		goto no;
	*reason = FIT_REASON_UNKNOWN;
	rc = rc < 0 ? -1 : 0;
	goto out;
no:
	for (size_t r = 0; r < s.nreqs; r++) {
		int why = request_reason(j, r, detail);

		if (why == -2) {
			rc = -1;
			goto out;
		}
		if (why >= 0) {
			*reason = why;
			goto out;
		}
	}
	*reason = FIT_REASON_DEVICE_TAKEN;
	rc = asprintf(detail, "the devices that match share counters or are taken: not enough of them together") < 0
		     ? -1
		     : 0;
out:
	free(s.left);
	free(s.used);
	free(s.chosen);
	return rc;
}

int fit_claim_judge(const struct fit_claim_check *c, const struct model_node *n, int *reason, char **detail,
		    struct fit_place *place)
{
	struct scheme_devices ds = {0};
	struct judging j = {.c = c, .ds = &ds};
	int rc = -1;

	*reason = FIT_REASON_SCHEME;
	*detail = NULL;
	if (!c->sc || !fit_claim_node(n))
		return 0;
	if (n->scheme->node_devices(c->objs, n->name, &n->labels, &ds) < 0)
		return -1;
	j.states = calloc(c->nreqs * ds.n + 1, sizeof(*j.states));
	j.need = calloc(c->nreqs + 1, sizeof(*j.need));
	j.tallies = calloc(c->nreqs + 1, sizeof(*j.tallies));
	if (j.states && j.need && j.tallies && states_fill(&j) == 0)
		rc = verdict(&j, n, reason, detail, place);
	free(j.states);
	free(j.need);
	free(j.tallies);
	n->scheme->node_devices_release(&ds);
	return rc;
}
