#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_test_util.h"

extern const struct scheme scheme_cce;

Test(scheme_cce, node_totals)
{
	struct k8s_node *n = t_node("cce-gpu-1");
	struct scheme_node out;
	struct warnings w = {0};

	/* a 16160 MiB V100: 126 blocks of 128 MiB */
	t_kv(&n->capacity, "volcano.sh/gpu-mem.128Mi", "126");
	t_kv(&n->allocatable, "volcano.sh/gpu-mem.128Mi", "126");
	t_kv(&n->capacity, "volcano.sh/gpu-core.percentage", "100");
	t_kv(&n->allocatable, "volcano.sh/gpu-core.percentage", "100");
	cr_assert_eq(scheme_cce.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.unit, UNIT_MIB);
	cr_assert(out.unit_from_label);
	cr_assert_not(out.per_gpu);
	cr_assert_null(out.gpus);
	cr_assert_eq(out.ngpus, 0, "no count label: unknown");
	cr_assert_eq(out.mem_total, 16128);
	cr_assert_eq(out.mem_capacity, 16128);
	cr_assert_eq(out.core_total, 100);
	cr_assert_str_eq(out.mode, "memory+compute");
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_cce, gpu_count_from_labels_and_unhealthy)
{
	struct k8s_node *n = t_node("cce-gpu-2");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->labels, "nvidia.com/gpu.count", "2");
	t_kv(&n->capacity, "volcano.sh/gpu-mem.128Mi", "252");
	t_kv(&n->allocatable, "volcano.sh/gpu-mem.128Mi", "126");
	cr_assert_eq(scheme_cce.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_eq(out.mem_total, 16128);
	cr_assert_eq(out.mem_capacity, 32256);
	cr_assert_eq(out.core_total, 0);
	cr_assert_str_eq(out.mode, "memory");
	scheme_node_release(&out);
	k8s_node_free(n);

	n = t_node("cce-gpu-3");
	t_kv(&n->labels, "aliyun.accelerator/nvidia_count", "4");
	t_kv(&n->allocatable, "volcano.sh/gpu-mem.128Mi", "garbage");
	cr_assert_eq(scheme_cce.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 4);
	cr_assert_eq(out.mem_total, 0);
	cr_assert_eq(t_count(&w, "MalformedQuantity"), 1);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_cce, other_nodes)
{
	struct k8s_node *n = t_node("plain");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->allocatable, "nvidia.com/gpu", "1");
	t_kv(&n->allocatable, "volcano.sh/vgpu-memory", "1024");
	cr_assert_eq(scheme_cce.node_decode(n, &out, &w), 0);
	warnings_release(&w);
	k8s_node_free(n);
}

static struct k8s_pod *cpod(const char *mem, const char *core)
{
	struct k8s_pod *p = t_pod("default", "gpu-app", "cce-gpu-1", 1);
	p->scheduler_name = strdup("volcano");
	if (mem)
		t_limit(p, 0, "volcano.sh/gpu-mem.128Mi", mem);
	if (core)
		t_limit(p, 0, "volcano.sh/gpu-core.percentage", core);
	return p;
}

Test(scheme_cce, pods_from_seed)
{
	struct k8s_pod *p = cpod("40", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	cr_assert_eq(scheme_cce.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.mem, 5120);
	cr_assert_eq(out.core, 0);
	cr_assert_eq(out.container_mem[0], 5120);
	cr_assert_eq(out.nclaims, 0, "cce publishes no placement");
	cr_assert_str_eq(out.node, "cce-gpu-1");
	cr_assert(out.assigned);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = cpod("40", "25");
	cr_assert_eq(scheme_cce.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.mem, 5120);
	cr_assert_eq(out.core, 25);
	cr_assert_eq(out.container_core[0], 25);
	scheme_pod_release(&out);
	k8s_pod_free(p);
	cr_assert_eq(w.len, 0);
	warnings_release(&w);
}

Test(scheme_cce, several_containers)
{
	struct k8s_pod *p = t_pod("default", "two", NULL, 3);
	struct scheme_pod out;
	struct warnings w = {0};

	p->scheduler_name = strdup("volcano");
	t_limit(p, 0, "volcano.sh/gpu-mem.128Mi", "8");
	t_limit(p, 2, "volcano.sh/gpu-mem.128Mi", "16");
	t_limit(p, 2, "volcano.sh/gpu-core.percentage", "50");
	cr_assert_eq(scheme_cce.pod_decode(p, &out, &w), 1);
	cr_assert_null(out.node);
	cr_assert_not(out.assigned);
	cr_assert_eq(out.mem, 3072);
	cr_assert_eq(out.container_mem[1], 0);
	cr_assert_eq(out.container_mem[2], 2048);
	cr_assert_eq(out.core, 50);
	/* the split over GPUs is not published: the whole pod, on one GPU */
	cr_assert_eq(out.ask.gpus, 1);
	cr_assert_eq(out.ask.mem, 3072);
	cr_assert_eq(out.ask.core, 50);
	cr_assert_eq(w.len, 0);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

static void pod_warns(const char *mem, const char *core, const char *code, int64_t want_mem)
{
	struct k8s_pod *p = cpod(mem, core);
	struct scheme_pod out;
	struct warnings w = {0};
	const struct warning *wa;

	cr_assert_eq(scheme_cce.pod_decode(p, &out, &w), 1);
	wa = t_warning(&w, code);
	cr_assert_not_null(wa, "%s/%s: no %s", mem, core, code);
	cr_assert_str_eq(wa->object, "pod/default/gpu-app");
	cr_assert_eq(out.mem, want_mem, "%s", mem);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_cce, validation)
{
	pod_warns("40.5", NULL, "MemoryNotMultipleOf128Mi", 5120);
	pod_warns("40500m", NULL, "MemoryNotMultipleOf128Mi", 5120);
	pod_warns("lots", NULL, "MalformedQuantity", 0);
	pod_warns("99999999999999999999", NULL, "MalformedQuantity", 0);
	pod_warns("-4", NULL, "MalformedQuantity", 0);
	pod_warns("40", "33", "CoreShareNotMultipleOf5", 5120);
	pod_warns("40", "105", "CoreShareOver100", 5120);
	pod_warns(NULL, "25", "CoreWithoutMemory", 0);
	pod_warns("40", "\xff", "MalformedQuantity", 5120);
}

Test(scheme_cce, whole_quantities_pass)
{
	static const char *const ok[] = {"40", "40.0", "40000m", "+40"};

	for (size_t i = 0; i < 4; i++) {
		struct k8s_pod *p = cpod(ok[i], "100");
		struct scheme_pod out;
		struct warnings w = {0};

		cr_assert_eq(scheme_cce.pod_decode(p, &out, &w), 1);
		cr_assert_eq(out.mem, 5120, "%s", ok[i]);
		cr_assert_eq(w.len, 0, "%s: %s", ok[i], w.len ? w.items[0].message : "");
		scheme_pod_release(&out);
		warnings_release(&w);
		k8s_pod_free(p);
	}
}

Test(scheme_cce, scheduler_must_be_volcano)
{
	struct k8s_pod *p = cpod("40", NULL);
	struct scheme_pod out;
	struct warnings w = {0};

	free(p->scheduler_name);
	p->scheduler_name = strdup("default-scheduler");
	cr_assert_eq(scheme_cce.pod_decode(p, &out, &w), 1);
	cr_assert_eq(t_count(&w, "SchedulerNotVolcano"), 1);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_cce, other_pods)
{
	struct k8s_pod *p = t_pod("default", "x", NULL, 1);
	struct scheme_pod out;
	struct warnings w = {0};

	t_limit(p, 0, "volcano.sh/vgpu-memory", "1024");
	t_limit(p, 0, "nvidia.com/gpu", "1");
	cr_assert_eq(scheme_cce.pod_decode(p, &out, &w), 0);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_cce, scenarios)
{
	struct t_objs o = {0};
	struct scheme_node n;
	struct scheme_pod sp;
	struct warnings w = {0};

	t_load_list(&o, "cce", "nodes.json", OBJ_NODE, &scheme_cce.node_fields);
	t_load_list(&o, "cce", "pods.json", OBJ_POD, &scheme_cce.pod_fields);
	cr_assert_eq(scheme_cce.node_decode(t_find_node(&o, "192.168.0.88"), &n, &w), 1);
	cr_assert_eq(n.mem_total, 126 * 128);
	cr_assert_eq(n.core_total, 100);
	cr_assert_eq(n.ngpus, 1, "from nvidia.com/gpu");
	scheme_node_release(&n);
	for (size_t i = 0; i < o.npods; i++) {
		cr_assert_eq(scheme_cce.pod_decode(o.pods[i], &sp, &w), 1);
		cr_assert_eq(sp.mem, 5120);
		scheme_pod_release(&sp);
	}
	cr_assert_eq(w.len, 0);
	t_objs_release(&o);

	t_load_list(&o, "cce-multi", "nodes.json", OBJ_NODE, &scheme_cce.node_fields);
	t_load_list(&o, "cce-multi", "pods.json", OBJ_POD, &scheme_cce.pod_fields);
	cr_assert_eq(scheme_cce.node_decode(t_find_node(&o, "192.168.0.92"), &n, &w), 1);
	cr_assert_eq(n.ngpus, 2);
	cr_assert_eq(n.mem_total, 120 * 128);
	cr_assert_eq(n.mem_capacity, 240 * 128);
	cr_assert_eq(n.core_total, 0);
	scheme_node_release(&n);
	cr_assert_eq(scheme_cce.pod_decode(t_find_pod(&o, "infer-5c7d9f8b6-k2m4n"), &sp, &w), 1);
	cr_assert_eq(sp.mem, 40 * 128);
	cr_assert_eq(sp.core, 50);
	cr_assert_eq(sp.container_mem[1], 0);
	scheme_pod_release(&sp);
	cr_assert_eq(scheme_cce.pod_decode(t_find_pod(&o, "odd-core-7f6d5c4b3-p9q8r"), &sp, &w), 1);
	scheme_pod_release(&sp);
	cr_assert_eq(scheme_cce.pod_decode(t_find_pod(&o, "render-6b5c4d3e2-z7y6x"), &sp, &w), 1);
	scheme_pod_release(&sp);
	cr_assert_eq(t_count(&w, "CoreShareNotMultipleOf5"), 1);
	cr_assert_eq(t_count(&w, "SchedulerNotVolcano"), 1);
	warnings_release(&w);
	t_objs_release(&o);
}
