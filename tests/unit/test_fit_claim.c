/* fit's check of a claim of DRA devices: each reason on the DRA scenarios
 * (fixtures/scenarios/dra-*) read as fit's load reads them, selectors
 * true, false and not evaluated, consumable capacity, several devices of
 * one node, MIG devices and their counters, taints, incomplete pools, the
 * reason a pod waiting for its claim gets; and, on small random nodes, the
 * check against an exhaustive search of every choice of devices. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "model.h"
#include "scheme_dra.h"
#include "scheme_test_util.h"

struct world {
	struct dra_inventory inv;
	struct scheme_objects objs;
	struct warnings w;
	struct model m;
};

static int take_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	(void)err;
	return dra_inventory_add_slice(ud, s);
}

static int take_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	(void)err;
	return dra_inventory_add_claim(ud, c);
}

static int take_class(void *ud, struct k8s_device_class *c, struct kerr *err)
{
	(void)err;
	return dra_inventory_add_class(ud, c);
}

/* A list document into the inventory, with the filters fit's load uses. */
static void feed(struct world *wd, const char *buf, size_t len, enum obj_kind kind)
{
	const struct decode_filter *f = kind == OBJ_RESOURCE_SLICE   ? &dra_slice_fields_full
					: kind == OBJ_RESOURCE_CLAIM ? &dra_claim_fields_full
								     : &dra_claim_fields;
	struct decode_sink sink = {.resource_slice = take_slice, .resource_claim = take_claim,
				   .device_class = take_class, .ud = &wd->inv};
	struct kerr err = KERR_INIT;
	struct list_decoder *d = list_decoder_new(kind, f, &sink);

	cr_assert_not_null(d);
	cr_assert_eq(list_decoder_feed(d, buf, len, &err), 0, "%s", err.message ? err.message : "?");
	cr_assert_eq(list_decoder_finish(d, &err), 0, "%s", err.message ? err.message : "?");
	list_decoder_free(d);
	kerr_release(&err);
}

static void feed_file(struct world *wd, const char *scenario, const char *file, enum obj_kind kind)
{
	char path[1024];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/scenarios/%s/%s", FIXTURES_DIR, scenario, file);
	buf = t_read_file(path, &len);
	feed(wd, buf, len, kind);
	free(buf);
}

/* The model over the inventory, which it reads until released. */
static void world_model(struct world *wd, struct t_objs *nodes, struct t_objs *pods)
{
	struct model_options o = {.force_unit = -1, .scheduling = true, .keep_pods = true};
	struct kerr err = KERR_INIT;

	cr_assert_eq(dra_inventory_finish(&wd->inv, &wd->w), 0);
	wd->objs.dra = &wd->inv;
	o.objects = &wd->objs;
	cr_assert_eq(model_init(&wd->m, &o), 0);
	for (size_t i = 0; i < nodes->nnodes; i++) {
		cr_assert_eq(model_add_node(&wd->m, nodes->nodes[i], &err), 0);
		k8s_node_free(nodes->nodes[i]);
	}
	for (size_t i = 0; pods && i < pods->npods; i++) {
		cr_assert_eq(model_add_pod(&wd->m, pods->pods[i], &err), 0);
		k8s_pod_free(pods->pods[i]);
	}
	cr_assert_eq(model_finish(&wd->m, &err), 0, "%s", err.message ? err.message : "?");
	kerr_release(&err);
}

static void world_scenario(struct world *wd, const char *scenario)
{
	struct t_objs nodes = {0}, pods = {0};

	memset(wd, 0, sizeof(*wd));
	feed_file(wd, scenario, "resourceslices.json", OBJ_RESOURCE_SLICE);
	feed_file(wd, scenario, "resourceclaims.json", OBJ_RESOURCE_CLAIM);
	feed_file(wd, scenario, "deviceclasses.json", OBJ_DEVICE_CLASS);
	/* the model's own filters, as the load asks for them */
	{
		struct model probe;
		struct model_options o = {.force_unit = -1, .scheduling = true, .keep_pods = true};

		cr_assert_eq(model_init(&probe, &o), 0);
		t_load_list(&nodes, scenario, "nodes.json", OBJ_NODE, model_node_filter(&probe));
		t_load_list(&pods, scenario, "pods.json", OBJ_POD, model_pod_filter(&probe));
		model_release(&probe);
	}
	world_model(wd, &nodes, &pods);
}

static void world_release(struct world *wd)
{
	model_release(&wd->m);
	dra_inventory_release(&wd->inv);
	warnings_release(&wd->w);
}

/* A request of count devices of class cls, with a selector and a capacity (or NULL). */
struct ask {
	struct k8s_dra_request q;
	struct k8s_dra_selector sel;
};

static const struct fit_request *ask_init(struct ask *a, struct fit_request *r, const char *cls, long count,
					  const char *sel, const char *cap, const char *qty)
{
	memset(a, 0, sizeof(*a));
	memset(r, 0, sizeof(*r));
	a->q.name = (char *)"r";
	a->q.class_name = (char *)cls;
	a->q.count = count;
	if (sel) {
		a->sel.expression = (char *)sel;
		a->q.selectors = &a->sel;
		a->q.nselectors = 1;
	}
	if (cap)
		t_kv(&a->q.capacity, cap, qty);
	r->claim = &a->q;
	r->nclaim = 1;
	r->gpus = 1;
	return r;
}

static void ask_release(struct ask *a)
{
	kvlist_release(&a->q.capacity);
}

/* The check of one request: fits with at least one place, or one group. */
static void check(struct world *wd, struct fit_result *res, const char *cls, long count, const char *sel,
		  const char *cap, const char *qty)
{
	struct ask a;
	struct fit_request r;

	ask_init(&a, &r, cls, count, sel, cap, qty);
	cr_assert_eq(fit_check(&wd->m, &r, res), 0);
	ask_release(&a);
}

static const struct fit_group *only_group(const struct fit_result *res, enum fit_reason reason)
{
	cr_assert_eq(res->nsure, 0, "fits on %zu nodes", res->nsure);
	cr_assert_geq(res->ngroups, 1);
	cr_assert_eq(res->groups[0].reason, reason, "reason %s: %s", fit_reason_name(res->groups[0].reason),
		     res->groups[0].detail ? res->groups[0].detail : "");
	return &res->groups[0];
}

#define GPU "gpu.nvidia.com"
#define MIG "mig.nvidia.com"
#define ATTR(name) "device.attributes['gpu.nvidia.com']." name

Test(fit_claim, several_devices_of_one_node)
{
	struct world wd;
	struct fit_result res;

	world_scenario(&wd, "dra-whole");
	/* gpu-0 and gpu-1 of each node are held: two devices fit on each, three nowhere */
	check(&wd, &res, GPU, 2, NULL, NULL, NULL);
	cr_assert_eq(res.nsure, 2);
	cr_assert_eq(res.fits[0].ngpus, 2);
	cr_assert_eq(res.fits[0].gpus[0], 2);
	cr_assert_eq(res.fits[0].gpus[1], 3);
	cr_assert_str_eq(res.fits[0].devices, "gpu-2,gpu-3");
	fit_result_release(&res);
	check(&wd, &res, GPU, 3, NULL, NULL, NULL);
	cr_assert_eq(only_group(&res, FIT_REASON_FEW_DEVICES)->count, 2);
	cr_assert_str_eq(res.groups[0].detail, "3 devices of class gpu.nvidia.com asked, 2 free that match");
	fit_result_release(&res);
	world_release(&wd);
}

Test(fit_claim, selectors_true_false_and_not_evaluated)
{
	struct world wd;
	struct fit_result res;

	world_scenario(&wd, "dra-whole");
	check(&wd, &res, GPU, 1, ATTR("index") " >= 3 && device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0",
	      NULL, NULL);
	cr_assert_eq(res.nsure, 2);
	cr_assert_eq(res.fits[0].gpus[0], 3);
	fit_result_release(&res);
	/* false on every device of the class */
	check(&wd, &res, GPU, 1, ATTR("index") " > 7", NULL, NULL);
	cr_assert_str_eq(only_group(&res, FIT_REASON_DEVICE_SELECTOR)->detail,
			 "no device of class gpu.nvidia.com matches the selector");
	fit_result_release(&res);
	/* outside the subset: unknown, never a fit */
	check(&wd, &res, GPU, 1, ATTR("productName") ".matches('A100')", NULL, NULL);
	cr_assert_eq(only_group(&res, FIT_REASON_UNKNOWN)->count, 2);
	cr_assert_eq(res.nunknown, 2);
	cr_assert(strstr(res.groups[0].detail, "selector not evaluated (outside the evaluated subset"), "%s",
		  res.groups[0].detail);
	fit_result_release(&res);
	/* an attribute no device has: an error in CEL, unknown too */
	check(&wd, &res, GPU, 1, ATTR("nosuch") " == 1", NULL, NULL);
	cr_assert_eq(only_group(&res, FIT_REASON_UNKNOWN)->count, 2);
	fit_result_release(&res);
	/* false absorbs what cannot be evaluated */
	check(&wd, &res, GPU, 1, ATTR("index") " > 7 && " ATTR("productName") ".matches('A100')", NULL, NULL);
	only_group(&res, FIT_REASON_DEVICE_SELECTOR);
	fit_result_release(&res);
	world_release(&wd);
}

/* A request choosing among sub-requests (firstAvailable: no class of its
 * own) or asking for admin access is not judged: the claim is unknown
 * where its other requests fit, and does not fit where they do not. */
Test(fit_claim, sub_requests_and_admin_access_are_unknown)
{
	struct world wd;
	struct fit_result res;
	struct ask a[2];
	struct fit_request r, r2;
	struct k8s_dra_request both[2];

	world_scenario(&wd, "dra-whole");
	ask_init(&a[0], &r, NULL, 1, NULL, NULL, NULL);
	cr_assert_eq(fit_check(&wd.m, &r, &res), 0);
	cr_assert_eq(only_group(&res, FIT_REASON_UNKNOWN)->count, 2);
	cr_assert_str_eq(res.groups[0].detail,
			 "request r not evaluated (it takes the first of its sub-requests that can be allocated)");
	fit_result_release(&res);
	/* admin access, even of more devices than a node has */
	ask_init(&a[0], &r, GPU, 9, NULL, NULL, NULL);
	a[0].q.admin_access = true;
	cr_assert_eq(fit_check(&wd.m, &r, &res), 0);
	cr_assert_eq(only_group(&res, FIT_REASON_UNKNOWN)->count, 2);
	cr_assert_str_eq(res.groups[0].detail, "request r not evaluated (it asks for admin access)");
	fit_result_release(&res);
	/* beside an exact request: unknown where two devices are free, no fit where three are asked */
	ask_init(&a[0], &r, NULL, 1, NULL, NULL, NULL);
	for (long count = 2; count <= 3; count++) {
		ask_init(&a[1], &r2, GPU, count, NULL, NULL, NULL);
		both[0] = a[1].q;
		both[1] = a[0].q;
		r2.claim = both;
		r2.nclaim = 2;
		cr_assert_eq(fit_check(&wd.m, &r2, &res), 0);
		only_group(&res, count == 2 ? FIT_REASON_UNKNOWN : FIT_REASON_FEW_DEVICES);
		fit_result_release(&res);
	}
	world_release(&wd);
}

Test(fit_claim, no_device_of_the_class)
{
	struct world wd;
	struct fit_result res;

	world_scenario(&wd, "dra-whole");
	/* the MIG class selects MIG devices: there are none */
	check(&wd, &res, MIG, 1, NULL, NULL, NULL);
	cr_assert_str_eq(only_group(&res, FIT_REASON_NO_DEVICE)->detail, "no device of class mig.nvidia.com");
	fit_result_release(&res);
	cr_assert(fit_claim_class_known(&wd.m, GPU));
	cr_assert_not(fit_claim_class_known(&wd.m, "nosuch.example.com"));
	check(&wd, &res, "nosuch.example.com", 1, NULL, NULL, NULL);
	cr_assert_str_eq(only_group(&res, FIT_REASON_NO_DEVICE)->detail, "no DeviceClass nosuch.example.com");
	fit_result_release(&res);
	world_release(&wd);
}

Test(fit_claim, consumable_capacity)
{
	struct world wd;
	struct fit_result res;

	/* gpu-0: 80Gi, 60Gi of it consumed by three shares */
	world_scenario(&wd, "dra-consumable");
	check(&wd, &res, GPU, 1, NULL, "memory", "20Gi");
	cr_assert_eq(res.nsure, 1);
	cr_assert_eq(res.fits[0].free_after, 0);
	fit_result_release(&res);
	check(&wd, &res, GPU, 1, NULL, "memory", "21Gi");
	cr_assert_str_eq(only_group(&res, FIT_REASON_DEVICE_CAPACITY)->detail,
			 "not enough memory left on a device of class gpu.nvidia.com that matches (21Gi asked)");
	fit_result_release(&res);
	/* the request policy: 8Gi by default, from 1Gi in steps of 1Gi */
	check(&wd, &res, GPU, 1, NULL, NULL, NULL);
	cr_assert_eq(res.nsure, 1);
	cr_assert_eq(res.fits[0].free_after, 12 * 1024);
	fit_result_release(&res);
	check(&wd, &res, GPU, 1, NULL, "memory", "3500Mi");
	cr_assert_eq(res.nsure, 1);
	cr_assert_eq(res.fits[0].free_after, 16 * 1024, "3500Mi is a share of 4Gi");
	fit_result_release(&res);
	check(&wd, &res, GPU, 1, NULL, "memory", "20481Mi");
	cr_assert_str_eq(only_group(&res, FIT_REASON_DEVICE_CAPACITY)->detail,
			 "not enough memory left on a device of class gpu.nvidia.com that matches (20481Mi asked)");
	fit_result_release(&res);
	world_release(&wd);
}

Test(fit_claim, mig_devices_and_their_counters)
{
	struct world wd;
	struct fit_result res;

	/* 1g.5gb at memory slices 0 and 1 and 3g.20gb at 4-7 are held */
	world_scenario(&wd, "dra-mig");
	check(&wd, &res, MIG, 2, ATTR("profile") " == '1g.5gb'", NULL, NULL);
	cr_assert_eq(res.nsure, 1);
	cr_assert_eq(res.fits[0].ngpus, 1, "both under GPU 0");
	fit_result_release(&res);
	check(&wd, &res, MIG, 3, ATTR("profile") " == '1g.5gb'", NULL, NULL);
	cr_assert_str_eq(only_group(&res, FIT_REASON_FEW_DEVICES)->detail,
			 "3 devices of class mig.nvidia.com asked, 2 free that match");
	fit_result_release(&res);
	/* the other 3g.20gb overlaps the slices held; the whole GPU consumes every counter */
	check(&wd, &res, MIG, 1, ATTR("profile") " == '3g.20gb'", NULL, NULL);
	cr_assert(strstr(only_group(&res, FIT_REASON_DEVICE_TAKEN)->detail, "need counters of their GPU that devices in use hold"),
		  "%s", res.groups[0].detail);
	fit_result_release(&res);
	check(&wd, &res, GPU, 1, NULL, NULL, NULL);
	only_group(&res, FIT_REASON_DEVICE_TAKEN);
	fit_result_release(&res);
	world_release(&wd);
}

Test(fit_claim, tainted_devices)
{
	struct world wd;
	struct fit_result res;

	/* gpu-0 (NoSchedule) and gpu-1 (NoExecute) tainted, gpu-2 free */
	world_scenario(&wd, "dra-taint");
	check(&wd, &res, GPU, 1, NULL, NULL, NULL);
	cr_assert_eq(res.nsure, 1);
	cr_assert_eq(res.fits[0].gpus[0], 2);
	fit_result_release(&res);
	check(&wd, &res, GPU, 1, ATTR("index") " < 2", NULL, NULL);
	cr_assert_str_eq(only_group(&res, FIT_REASON_DEVICE_TAINT)->detail,
			 "device taint gpu.nvidia.com/xid=48:NoSchedule not tolerated");
	fit_result_release(&res);
	/* a request that tolerates the taints finds the devices held */
	{
		struct k8s_toleration tol = {.key = (char *)"gpu.nvidia.com/xid", .op = (char *)"Exists"};
		struct ask a;
		struct fit_request r;

		ask_init(&a, &r, GPU, 1, ATTR("index") " < 2", NULL, NULL);
		a.q.tolerations = &tol;
		a.q.ntolerations = 1;
		cr_assert_eq(fit_check(&wd.m, &r, &res), 0);
		only_group(&res, FIT_REASON_DEVICE_TAKEN);
		fit_result_release(&res);
		/* NoSchedule tolerated, NoExecute not */
		tol.effect = (char *)"NoSchedule";
		cr_assert_eq(fit_check(&wd.m, &r, &res), 0);
		cr_assert_str_eq(only_group(&res, FIT_REASON_DEVICE_TAINT)->detail,
				 "device taint gpu.nvidia.com/xid=79:NoExecute not tolerated");
		fit_result_release(&res);
		ask_release(&a);
	}
	world_release(&wd);
}

Test(fit_claim, incomplete_pool_is_unknown)
{
	struct world wd;
	struct fit_result res;

	/* dra-pool-1 publishes 1 of 2 slices (gpu-0 held, gpu-1 free); dra-pool-2 is complete, the same */
	world_scenario(&wd, "dra-incomplete");
	check(&wd, &res, GPU, 2, NULL, NULL, NULL);
	cr_assert_eq(res.nsure, 0);
	cr_assert_eq(res.ngroups, 2);
	cr_assert_eq(res.nunknown, 1);
	for (size_t i = 0; i < res.ngroups; i++) {
		if (res.groups[i].reason == FIT_REASON_UNKNOWN) {
			cr_assert_str_eq(res.groups[i].first, "dra-pool-1");
			cr_assert(strstr(res.groups[i].detail, "incomplete"));
		} else {
			cr_assert_eq(res.groups[i].reason, FIT_REASON_FEW_DEVICES);
			cr_assert_str_eq(res.groups[i].first, "dra-pool-2");
		}
	}
	fit_result_release(&res);
	/* what is seen fits for certain */
	check(&wd, &res, GPU, 1, NULL, NULL, NULL);
	cr_assert_eq(res.nsure, 2);
	fit_result_release(&res);
	world_release(&wd);
}

Test(fit_claim, a_pod_waiting_for_its_claim_gets_the_claims_reason)
{
	struct world wd;
	const struct model_pod *p = NULL;

	world_scenario(&wd, "dra-pending");
	for (size_t i = 0; i < wd.m.npods; i++)
		if (strcmp(wd.m.pods[i].name, "waiting-0") == 0)
			p = &wd.m.pods[i];
	cr_assert_not_null(p);
	cr_assert_not_null(p->claim);
	cr_assert(strncmp(p->claim, "waiting-0-gpu-", 14) == 0, "%s", p->claim);
	cr_assert_not_null(p->pending_reason);
	cr_assert(strstr(p->pending_reason, " not allocated: 1 node: every device of class gpu.nvidia.com that matches "
					   "is taken (not shareable)"),
		  "%s", p->pending_reason);
	cr_assert(strncmp(p->pending_reason, "claim waiting-0-gpu-", 20) == 0, "%s", p->pending_reason);
	world_release(&wd);
}

/* --- against an exhaustive search ---------------------------------------------- */

#define RAND_NODES 40
#define RAND_DEVS 6

struct rdev {
	int gib, consumed_gib, slots;
	int min_gib, step_gib; /* the request policy of a device shared by capacity (step 0: none) */
	bool multi, in_use, tainted, model_a;
};

struct rnode {
	struct rdev d[RAND_DEVS];
	int n, slots_total;
};

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static void rnode_make(struct rnode *n, unsigned *seed)
{
	n->n = 1 + (int)(rnd(seed) % RAND_DEVS);
	n->slots_total = 2 + (int)(rnd(seed) % 6);
	for (int i = 0; i < n->n; i++) {
		struct rdev *d = &n->d[i];

		d->gib = 10 + 10 * (int)(rnd(seed) % 8);
		d->multi = rnd(seed) % 3 == 0;
		d->in_use = rnd(seed) % 3 == 0;
		d->consumed_gib = d->multi && d->in_use ? (int)(rnd(seed) % (unsigned)d->gib) : 0;
		d->tainted = rnd(seed) % 6 == 0;
		d->model_a = rnd(seed) % 2 == 0;
		d->slots = (int)(rnd(seed) % 4);
		d->step_gib = d->multi && rnd(seed) % 2 ? 5 * (1 + (int)(rnd(seed) % 2)) : 0;
		d->min_gib = d->step_gib ? 5 * (int)(rnd(seed) % 3) : 0;
	}
}

static void slice_json(FILE *f, int k, const struct rnode *n)
{
	fprintf(f, "%s{\"metadata\":{\"name\":\"s%d\"},\"spec\":{\"driver\":\"gpu.nvidia.com\",\"pool\":{\"name\":\"p%d\","
		   "\"generation\":1,\"resourceSliceCount\":1},\"nodeName\":\"n%d\",\"sharedCounters\":[{\"name\":\"cs\","
		   "\"counters\":{\"slots\":{\"value\":\"%d\"}}}],\"devices\":[",
		k ? "," : "", k, k, k, n->slots_total);
	for (int i = 0; i < n->n; i++) {
		const struct rdev *d = &n->d[i];

		char policy[128] = "";

		if (d->step_gib)
			snprintf(policy, sizeof(policy), ",\"requestPolicy\":{\"validRange\":{\"min\":\"%dGi\",\"step\":\"%dGi\"}}",
				 d->min_gib, d->step_gib);
		fprintf(f, "%s{\"name\":\"d%d\",\"attributes\":{\"index\":{\"int\":%d},\"model\":{\"string\":\"%s\"}},"
			   "\"capacity\":{\"memory\":{\"value\":\"%dGi\"%s}},\"allowMultipleAllocations\":%s,"
			   "\"consumesCounters\":[{\"counterSet\":\"cs\",\"counters\":{\"slots\":{\"value\":\"%d\"}}}]%s}",
			i ? "," : "", i, i, d->model_a ? "a" : "b", d->gib, policy, d->multi ? "true" : "false", d->slots,
			d->tainted ? ",\"taints\":[{\"key\":\"bad\",\"value\":\"x\",\"effect\":\"NoSchedule\"}]" : "");
	}
	fputs("]}}", f);
}

static void claims_json(FILE *f, int k, const struct rnode *n, bool *first)
{
	for (int i = 0; i < n->n; i++) {
		const struct rdev *d = &n->d[i];

		if (!d->in_use)
			continue;
		fprintf(f, "%s{\"metadata\":{\"name\":\"c%d-%d\",\"namespace\":\"ns\"},\"spec\":{\"devices\":{\"requests\":"
			   "[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu.nvidia.com\"}}]}},\"status\":{\"allocation\":"
			   "{\"devices\":{\"results\":[{\"request\":\"r\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"p%d\","
			   "\"device\":\"d%d\"%s",
			*first ? "" : ",", k, i, k, i, d->multi ? ",\"shareID\":\"00000000-0000-0000-0000-000000000001\"" : "");
		if (d->multi)
			fprintf(f, ",\"consumedCapacity\":{\"memory\":\"%dGi\"}", d->consumed_gib);
		fprintf(f, "}]}},\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"p%d-%d\",\"uid\":\"u%d-%d\"}]}}", k, i, k, i);
		*first = false;
	}
}

/* The random nodes' world: slices, the claims that hold their devices, the class. */
static void world_random(struct world *wd, const struct rnode *nodes, int n)
{
	static const char cls[] = "{\"items\":[{\"metadata\":{\"name\":\"gpu.nvidia.com\"},\"spec\":{\"selectors\":"
				  "[{\"cel\":{\"expression\":\"device.driver == 'gpu.nvidia.com'\"}}]}}]}";
	struct t_objs tn = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	memset(wd, 0, sizeof(*wd));
	fputs("{\"items\":[", f);
	for (int k = 0; k < n; k++)
		slice_json(f, k, &nodes[k]);
	fputs("]}", f);
	fclose(f);
	feed(wd, buf, len, OBJ_RESOURCE_SLICE);
	free(buf);
	f = open_memstream(&buf, &len);
	fputs("{\"items\":[", f);
	for (int k = 0; k < n; k++)
		claims_json(f, k, &nodes[k], &first);
	fputs("]}", f);
	fclose(f);
	feed(wd, buf, len, OBJ_RESOURCE_CLAIM);
	free(buf);
	feed(wd, cls, sizeof(cls) - 1, OBJ_DEVICE_CLASS);
	for (int k = 0; k < n; k++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", k);
		tn.nodes[tn.nnodes++] = t_node(name);
	}
	world_model(wd, &tn, NULL);
}

/* Whether a device serves the request by itself, as the API's allocator rules say. */
static bool serves_alone(const struct rdev *d, int gib, bool only_a, bool policy)
{
	int share = gib;

	if (d->tainted || (only_a && !d->model_a) || (d->in_use && !d->multi) || gib > d->gib)
		return false;
	/* a share is raised to the policy's min and rounded up to a step from it */
	if (policy && d->step_gib) {
		share = share < d->min_gib ? d->min_gib : share;
		share = d->min_gib + (share - d->min_gib + d->step_gib - 1) / d->step_gib * d->step_gib;
	}
	return d->multi ? share <= d->gib - d->consumed_gib : gib <= d->gib;
}

/* Every choice of count distinct devices: one that serves, with the slots counter shared. */
static bool exhaustive(const struct rnode *n, int count, int gib, bool only_a, bool policy)
{
	int used = 0;

	for (int i = 0; i < n->n; i++)
		used += n->d[i].in_use ? n->d[i].slots : 0;
	for (unsigned set = 0; set < (1u << n->n); set++) {
		int k = 0, slots = used;
		bool ok = true;

		for (int i = 0; i < n->n; i++) {
			if (!(set & (1u << i)))
				continue;
			k++;
			slots += n->d[i].slots;
			ok &= serves_alone(&n->d[i], gib, only_a, policy);
		}
		if (ok && k == count && slots <= n->slots_total)
			return true;
	}
	return false;
}

Test(fit_claim, never_fits_where_no_choice_of_devices_does, .timeout = 30)
{
	struct rnode nodes[RAND_NODES];
	unsigned seed = 20261125;
	size_t checked = 0, fits = 0, by_policy = 0;

	for (int round = 0; round < 6; round++) {
		struct world wd;

		for (int k = 0; k < RAND_NODES; k++)
			rnode_make(&nodes[k], &seed);
		world_random(&wd, nodes, RAND_NODES);
		cr_assert_eq(wd.m.nnodes, RAND_NODES);
		for (int q = 0; q < 8; q++) {
			int count = 1 + (int)(rnd(&seed) % 3), gib = 3 * (1 + (int)(rnd(&seed) % 20));
			bool only_a = rnd(&seed) % 2;
			char qty[16];
			struct ask a;
			struct fit_request r;
			struct fit_result res;

			snprintf(qty, sizeof(qty), "%dGi", gib);
			ask_init(&a, &r, GPU, count, only_a ? ATTR("model") " == 'a'" : NULL, "memory", qty);
			cr_assert_eq(fit_check(&wd.m, &r, &res), 0);
			cr_assert_eq(res.nunknown, 0);
			for (size_t i = 0; i < wd.m.nnodes; i++) {
				int k = atoi(wd.m.nodes[i].name + 1);
				bool model_fits = false, truth = exhaustive(&nodes[k], count, gib, only_a, true);

				by_policy += truth != exhaustive(&nodes[k], count, gib, only_a, false);

				for (size_t j = 0; j < res.nsure; j++)
					model_fits |= res.fits[j].node == i;
				cr_assert_eq(model_fits, truth, "node n%d, %d x %s%s: fit says %d, every choice says %d", k,
					     count, qty, only_a ? " model a" : "", model_fits, truth);
				checked++;
				fits += truth;
			}
			fit_result_release(&res);
			ask_release(&a);
		}
		world_release(&wd);
	}
	/* both answers were met often, and request policies changed some */
	cr_assert_gt(by_policy, 0);
	cr_assert_gt(fits, checked / 10);
	cr_assert_lt(fits, checked - checked / 10);
}
