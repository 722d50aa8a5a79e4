/* The devices of Dynamic Resource Allocation nodes, from the slices and
 * claims of the DRA scenarios (fixtures/scenarios/dra-*): pools at their
 * newest generation, incomplete pools, MIG devices under their GPU, shares
 * of consumable memory, and the strategy a claim's configuration sets. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheme_dra.h"
#include "t_read_file.h"

static int take_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	return dra_inventory_add_slice(ud, s);
}

static int take_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	return dra_inventory_add_claim(ud, c);
}

static void load_list(struct dra_inventory *inv, const char *scenario, const char *file, enum obj_kind kind)
{
	/* what the load keeps for the views */
	const struct decode_filter *filter = kind == OBJ_RESOURCE_SLICE ? &dra_slice_fields : &dra_claim_fields;
	struct decode_sink sink = {.resource_slice = take_slice, .resource_claim = take_claim, .ud = inv};
	struct kerr err = {0};
	struct list_decoder *d = list_decoder_new(kind, filter, &sink);
	char path[4096];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/scenarios/%s/%s", FIXTURES_DIR, scenario, file);
	buf = t_read_file(path, &len);
	cr_assert_eq(list_decoder_feed(d, buf, len, &err), 0, "%s", err.message);
	cr_assert_eq(list_decoder_finish(d, &err), 0, "%s", err.message);
	list_decoder_free(d);
	free(buf);
}

static void load(struct dra_inventory *inv, struct warnings *w, const char *scenario)
{
	memset(inv, 0, sizeof(*inv));
	load_list(inv, scenario, "resourceslices.json", OBJ_RESOURCE_SLICE);
	load_list(inv, scenario, "resourceclaims.json", OBJ_RESOURCE_CLAIM);
	cr_assert_eq(dra_inventory_finish(inv, w), 0);
}

static const struct dra_device *find(const struct dra_device *d, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].dev->name, name) == 0)
			return &d[i];
	cr_assert_fail("no device %s", name);
	return NULL;
}

Test(scheme_dra, incomplete_pool_newest_generation)
{
	struct dra_inventory inv;
	struct warnings w = {0};
	struct dra_device *d;
	size_t n;

	load(&inv, &w, "dra-incomplete");
	cr_assert_eq(w.len, 1);
	cr_assert_str_eq(w.items[0].code, "IncompletePool");
	cr_assert(strstr(w.items[0].message, "pool dra-pool-1 of driver gpu.nvidia.com: 1 of 2 slices of generation 2"),
		  "%s", w.items[0].message);
	/* generation 1 (gpu-0..3) is ignored; the slice of generation 2 is marked */
	cr_assert_eq(dra_node_devices(&inv, "dra-pool-1", NULL, &d, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert(d[0].incomplete && d[1].incomplete && d[0].gpu);
	cr_assert_eq(find(d, n, "gpu-0")->nuses, 1);
	cr_assert_eq(find(d, n, "gpu-1")->nuses, 0);
	dra_devices_free(d, n);
	cr_assert_eq(dra_node_devices(&inv, "dra-pool-2", NULL, &d, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert(!d[0].incomplete);
	cr_assert_eq(find(d, n, "gpu-0")->nuses, 1);
	dra_devices_free(d, n);
	cr_assert_eq(dra_node_devices(&inv, "elsewhere", NULL, &d, &n), 0);
	cr_assert_eq(n, 0);
	dra_devices_free(d, n);
	warnings_release(&w);
	dra_inventory_release(&inv);
}

Test(scheme_dra, mig_devices_under_their_gpu)
{
	struct dra_inventory inv;
	struct warnings w = {0};
	struct dra_device *d;
	const struct dra_device *mig;
	size_t n, under = 0, used = 0;

	load(&inv, &w, "dra-mig");
	cr_assert_eq(w.len, 0);
	cr_assert_eq(dra_node_devices(&inv, "dra-mig-1", NULL, &d, &n), 0);
	cr_assert_eq(n, 11);
	cr_assert_null(find(d, n, "gpu-0")->parent);
	for (size_t i = 0; i < n; i++) {
		under += d[i].parent && strcmp(d[i].parent, "gpu-0") == 0;
		used += d[i].nuses;
	}
	cr_assert_eq(under, 10);
	cr_assert_eq(used, 3);
	mig = find(d, n, "gpu-0-mig-3g20gb-9-4");
	cr_assert_eq(mig->nuses, 1);
	cr_assert_str_eq(mig->uses[0].claim->namespace, "ml");
	cr_assert_eq(mig->uses[0].claim->nreserved, 1);
	cr_assert_str_eq(mig->uses[0].claim->reserved[0].name, "mig-large-0");
	dra_devices_free(d, n);
	dra_inventory_release(&inv);
}

Test(scheme_dra, consumable_memory_shares)
{
	struct dra_inventory inv;
	struct warnings w = {0};
	struct dra_device *d;
	size_t n;
	int64_t held = 0;

	load(&inv, &w, "dra-consumable");
	cr_assert_eq(dra_node_devices(&inv, "dra-share-1", NULL, &d, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert(d[0].dev->allow_multiple);
	cr_assert_eq(d[0].nuses, 3);
	cr_assert_eq(d[0].mem_bytes, 80LL << 30);
	for (size_t i = 0; i < 3; i++) {
		cr_assert(d[0].uses[i].mem_bytes >= 10LL << 30 && d[0].uses[i].result->mem_consumed == d[0].uses[i].mem_bytes);
		held += d[0].uses[i].mem_bytes;
	}
	cr_assert_eq(held, 60LL << 30);
	dra_devices_free(d, n);
	dra_inventory_release(&inv);
}

Test(scheme_dra, strategy_from_the_claims_config)
{
	struct dra_inventory inv;
	struct warnings w = {0};
	struct dra_device *d;
	const struct dra_device *g;
	size_t n;

	load(&inv, &w, "dra-mps");
	cr_assert_eq(dra_node_devices(&inv, "dra-mps-1", NULL, &d, &n), 0);
	g = find(d, n, "gpu-0");
	cr_assert_eq(g->nuses, 1);
	cr_assert_not_null(g->uses[0].config);
	cr_assert_str_eq(g->uses[0].config->strategy, "MPS");
	cr_assert_eq(g->uses[0].config->mps_threads, 50);
	cr_assert_eq(g->uses[0].claim->nreserved, 2);
	cr_assert_eq(find(d, n, "gpu-1")->nuses, 0);
	dra_devices_free(d, n);
	dra_inventory_release(&inv);
}

Test(scheme_dra, leaked_claim_is_a_finding)
{
	struct dra_inventory inv;
	struct warnings w = {0};

	load(&inv, &w, "dra-leaked");
	cr_assert_eq(w.len, 1);
	cr_assert_str_eq(w.items[0].code, "LeakedClaim");
	cr_assert_str_eq(w.items[0].object, "resourceclaim/ml/orphan-gpu");
	cr_assert_str_eq(w.items[0].message, "claim ml/orphan-gpu holds 1 device (first dra-leak-1/gpu-1) and is reserved "
					     "for no pod");
	warnings_release(&w);
	dra_inventory_release(&inv);
}

/* Without parentUUID, a MIG device's GPU is the device that consumes more
 * of the same counter set: the driver's devices on Kubernetes 1.34. */
Test(scheme_dra, mig_parent_by_counter_set)
{
	struct dra_inventory inv = {0};
	struct warnings w = {0};
	struct dra_device *d;
	size_t n, under = 0;

	load_list(&inv, "dra-mig", "resourceslices.json", OBJ_RESOURCE_SLICE);
	load_list(&inv, "dra-mig", "resourceclaims.json", OBJ_RESOURCE_CLAIM);
	for (size_t i = 0; i < inv.nslices; i++)
		for (size_t j = 0; j < inv.slices[i]->ndevices; j++)
			for (size_t k = 0; k < inv.slices[i]->devices[j].nattrs; k++)
				if (strcmp(inv.slices[i]->devices[j].attrs[k].name, "parentUUID") == 0)
					inv.slices[i]->devices[j].attrs[k].name[0] = 'X';
	cr_assert_eq(dra_inventory_finish(&inv, &w), 0);
	cr_assert_eq(dra_node_devices(&inv, "dra-mig-1", NULL, &d, &n), 0);
	for (size_t i = 0; i < n; i++)
		under += d[i].parent && strcmp(d[i].parent, "gpu-0") == 0;
	cr_assert_eq(under, 10);
	cr_assert_null(find(d, n, "gpu-0")->parent);
	cr_assert_str_eq(dra_device_find(&inv, "gpu.nvidia.com", "dra-mig-1", "gpu-0-mig-3g20gb-9-4")->parent, "gpu-0");
	cr_assert_null(dra_device_find(&inv, "gpu.nvidia.com", "dra-mig-1", "gpu-0")->parent);
	dra_devices_free(d, n);
	dra_inventory_release(&inv);
}

/* How each GPU of a node is shared, as the node's -o wide says it. */
static char *sharing_of(const char *scenario, const char *node, int gpu)
{
	struct dra_inventory inv;
	struct warnings w = {0};
	struct scheme_objects objs = {.dra = &inv};
	struct k8s_node k = {.name = (char *)node};
	struct scheme_node out;
	char *s;

	load(&inv, &w, scenario);
	cr_assert_eq(scheme_dra.node_decode_in(&objs, &k, &out, &w), 1);
	cr_assert_lt(gpu, out.ngpus);
	s = out.gpus[gpu].sharing ? strdup(out.gpus[gpu].sharing) : NULL;
	scheme_node_release(&out);
	dra_inventory_release(&inv);
	return s;
}

Test(scheme_dra, sharing_per_gpu)
{
	const struct {
		const char *scenario, *node;
		int gpu;
		const char *want;
	} cases[] = {
		{"dra-mps", "dra-mps-1", 0, "MPS 50% 10Gi"},
		{"dra-mps", "dra-mps-1", 1, NULL},
		{"dra-timeslicing", "dra-ts-1", 0, "TimeSlicing Long"},
		{"dra-mig", "dra-mig-1", 0, "MIG 1g.5gb, MIG 3g.20gb"},
		{"dra-consumable", "dra-share-1", 0, "capacity"},
		{"dra-whole", "dra-a100-1", 0, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = sharing_of(cases[i].scenario, cases[i].node, cases[i].gpu);

		if (cases[i].want)
			cr_assert(s && strcmp(s, cases[i].want) == 0, "%s: %s", cases[i].scenario, s ? s : "(null)");
		else
			cr_assert_null(s, "%s: %s", cases[i].scenario, s);
		free(s);
	}
}

/* A driver whose devices have no memory capacity has GPUs only when named
 * (--dra-driver); a pod holding one of them is then this scheme's, and
 * before that it is no GPU pod at all. */
Test(scheme_dra, other_drivers_only_when_named)
{
	static const char *const gaudi[] = {"gaudi.intel.com", NULL};
	struct scheme_objects objs = {0};
	struct dra_inventory inv;
	struct warnings w = {0};
	struct scheme_node node = {0};
	struct k8s_node k = {.name = "dra-gaudi-1"};
	/* the pod as its claim's template made it: the claim named in its status */
	struct k8s_pod_claim ref = {.name = "accel", .template_name = "single-gaudi"}, made = {.name = "accel"};
	struct k8s_pod pod = {.name = "gaudi-0", .namespace = "ml", .node_name = "dra-gaudi-1", .claims = &ref,
			      .nclaims = 1, .claim_statuses = &made, .nclaim_statuses = 1};
	struct scheme_pod sp = {0};
	struct dra_device *d;
	size_t n;

	load(&inv, &w, "dra-pools");
	objs.dra = &inv;
	for (size_t i = 0; i < inv.nclaims; i++)
		if (strncmp(inv.claims[i]->name, "gaudi-0-accel-", 14) == 0)
			made.claim_name = (char *)inv.claims[i]->name;
	cr_assert_not_null(made.claim_name);
	cr_assert_eq(dra_node_devices(&inv, "dra-gaudi-1", NULL, &d, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_not(d[0].gpu || d[1].gpu);
	cr_assert_eq(find(d, n, "accel-0")->nuses, 1);
	dra_devices_free(d, n);
	cr_assert_eq(scheme_dra.node_decode_in(&objs, &k, &node, &w), 0);
	cr_assert_eq(scheme_dra.pod_decode_in(&objs, &pod, &sp, &w), 0);

	inv.gpu_drivers = gaudi;
	cr_assert_eq(dra_node_devices(&inv, "dra-gaudi-1", NULL, &d, &n), 0);
	cr_assert(d[0].gpu && d[1].gpu);
	dra_devices_free(d, n);
	cr_assert_eq(scheme_dra.node_decode_in(&objs, &k, &node, &w), 1);
	cr_assert_eq(node.ngpus, 2);
	cr_assert_eq(node.unit, UNIT_SLOTS);
	cr_assert_str_eq(node.gpus[0].id, "accel-0");
	scheme_node_release(&node);
	cr_assert_eq(scheme_dra.pod_decode_in(&objs, &pod, &sp, &w), 1);
	cr_assert_eq(sp.nclaims, 1);
	cr_assert_str_eq(sp.claims[0].device_id, "accel-0");
	cr_assert_eq(sp.mem, 1);
	scheme_pod_release(&sp);
	cr_assert_eq(w.len, 0);
	warnings_release(&w);
	dra_inventory_release(&inv);
}

/* A slice placed by a nodeSelector of matchFields reaches the node it
 * names (with or without its labels) and no other; its pool is not the
 * node's own, so its GPUs are named POOL/DEVICE, apart from the node's
 * device of the same name, and the claims on each find their own. */
Test(scheme_dra, pool_by_match_fields_told_apart)
{
	struct dra_inventory inv;
	struct warnings w = {0};
	struct dra_device *d;
	size_t n, rack = 0;

	load(&inv, &w, "dra-pools");
	cr_assert_eq(dra_node_devices(&inv, "dra-a100-3", NULL, &d, &n), 0);
	cr_assert_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		char *id = dra_gpu_id(d[i].slice, d[i].dev->name);

		cr_assert(d[i].gpu);
		cr_assert_eq(d[i].nuses, strcmp(d[i].dev->name, "gpu-0") == 0);
		if (strcmp(d[i].slice->pool, "dra-rack-1") == 0) {
			rack++;
			cr_assert_str_eq(id, "dra-rack-1/gpu-0");
			cr_assert(strstr(d[i].uses[0].claim->name, "train-b-"), "%s", d[i].uses[0].claim->name);
		} else {
			cr_assert_str_eq(id, d[i].dev->name);
		}
		free(id);
	}
	cr_assert_eq(rack, 1);
	dra_devices_free(d, n);
	cr_assert_str_eq(dra_device_find(&inv, "gpu.nvidia.com", "dra-rack-1", "gpu-0")->gpu_id, "dra-rack-1/gpu-0");
	cr_assert_str_eq(dra_device_find(&inv, "gpu.nvidia.com", "dra-a100-3", "gpu-0")->gpu_id, "gpu-0");
	/* the rack's selector names dra-a100-3 only */
	cr_assert_eq(dra_node_devices(&inv, "dra-gaudi-1", NULL, &d, &n), 0);
	cr_assert_eq(n, 2);
	dra_devices_free(d, n);
	warnings_release(&w);
	dra_inventory_release(&inv);
}
