#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_test_util.h"

extern const struct scheme scheme_nvidia;

Test(scheme_nvidia, lightweight_seed003)
{
	struct k8s_node *n = t_node("cn-beijing.192.168.0.10");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->labels, "aliyun.accelerator/nvidia_count", "1");
	t_kv(&n->labels, "aliyun.accelerator/nvidia_mem", "2048MiB");
	t_kv(&n->labels, "aliyun.accelerator/nvidia_name", "GRID-P4-2Q");
	t_kv(&n->capacity, "nvidia.com/gpu", "1");
	t_kv(&n->allocatable, "nvidia.com/gpu", "1");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.unit, UNIT_SLOTS);
	cr_assert_not(out.per_gpu);
	cr_assert_eq(out.ngpus, 1);
	cr_assert_eq(out.mem_total, 1);
	cr_assert_eq(out.mem_capacity, 1);
	cr_assert_eq(out.core_total, 0);
	cr_assert_null(out.mode);
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_nvidia, time_slicing_replicas)
{
	struct k8s_node *n = t_node("ts-1");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->labels, "nvidia.com/gpu.count", "8");
	t_kv(&n->labels, "nvidia.com/gpu.replicas", "10");
	t_kv(&n->labels, "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-SHARED");
	t_kv(&n->labels, "nvidia.com/gpu.memory", "40960");
	t_kv(&n->labels, "nvidia.com/gpu.sharing-strategy", "time-slicing");
	t_kv(&n->capacity, "nvidia.com/gpu", "80");
	t_kv(&n->allocatable, "nvidia.com/gpu", "80");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 8);
	cr_assert_eq(out.mem_total, 80, "8 GPUs x 10 replicas");
	cr_assert_str_eq(out.mode, "time-slicing");
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_nvidia, renamed_shared_and_no_labels)
{
	struct k8s_node *n = t_node("mps-1");
	struct scheme_node out;
	struct warnings w = {0};

	/* no count label: GPUs = slots / replicas */
	t_kv(&n->labels, "nvidia.com/gpu.replicas", "4");
	t_kv(&n->labels, "nvidia.com/gpu.sharing-strategy", "mps");
	t_kv(&n->capacity, "nvidia.com/gpu.shared", "8");
	t_kv(&n->allocatable, "nvidia.com/gpu.shared", "4");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_eq(out.mem_total, 4);
	cr_assert_eq(out.mem_capacity, 8);
	cr_assert_str_eq(out.mode, "mps");
	scheme_node_release(&out);
	k8s_node_free(n);

	/* GKE's labels */
	n = t_node("gke-1");
	t_kv(&n->labels, "cloud.google.com/gke-max-shared-clients-per-gpu", "3");
	t_kv(&n->labels, "cloud.google.com/gke-gpu-sharing-strategy", "time-sharing");
	t_kv(&n->allocatable, "nvidia.com/gpu", "6");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_str_eq(out.mode, "time-sharing");
	scheme_node_release(&out);
	k8s_node_free(n);

	/* replicas without a strategy label */
	n = t_node("ts-2");
	t_kv(&n->labels, "nvidia.com/gpu.replicas", "2");
	t_kv(&n->allocatable, "nvidia.com/gpu", "2");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 1);
	cr_assert_str_eq(out.mode, "time-slicing");
	scheme_node_release(&out);
	k8s_node_free(n);
	cr_assert_eq(w.len, 0);
	warnings_release(&w);
}

Test(scheme_nvidia, not_hami_nodes_nor_empty_ones)
{
	struct k8s_node *n = t_node("hami");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->allocatable, "nvidia.com/gpu", "20");
	t_kv(&n->annotations, "hami.io/node-nvidia-register", "[]");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 0);
	k8s_node_free(n);

	n = t_node("cpu");
	t_kv(&n->allocatable, "nvidia.com/gpu", "0");
	t_kv(&n->capacity, "nvidia.com/gpu", "0");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 0);
	k8s_node_free(n);

	n = t_node("cpu2");
	t_kv(&n->allocatable, "cpu", "8");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 0);
	k8s_node_free(n);
	cr_assert_eq(w.len, 0);
	warnings_release(&w);
}

Test(scheme_nvidia, malformed_quantities)
{
	struct k8s_node *n = t_node("bad");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->labels, "nvidia.com/gpu.count", "2");
	t_kv(&n->allocatable, "nvidia.com/gpu", "two");
	t_kv(&n->capacity, "nvidia.com/gpu", "2");
	cr_assert_eq(scheme_nvidia.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.mem_capacity, 2);
	cr_assert_eq(out.mem_total, 2);
	cr_assert_eq(t_count(&w, "MalformedQuantity"), 1);
	cr_assert_str_eq(t_warning(&w, "MalformedQuantity")->object, "node/bad");
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_nvidia, pods)
{
	struct k8s_pod *p = t_pod("default", "cuda-sample-79f9fc9cc5-hlpp5", "n1", 2);
	struct scheme_pod out;
	struct warnings w = {0};

	t_limit(p, 0, "nvidia.com/gpu", "1");
	t_limit(p, 1, "nvidia.com/gpu.shared", "2");
	cr_assert_eq(scheme_nvidia.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.mem, 3);
	cr_assert_eq(out.container_mem[0], 1);
	cr_assert_eq(out.container_mem[1], 2);
	cr_assert_eq(out.core, 0);
	cr_assert_eq(out.nclaims, 0);
	cr_assert_str_eq(out.node, "n1");
	cr_assert(out.assigned);
	/* whole GPUs: the count is the ask, capped */
	cr_assert_eq(out.ask.gpus, 3);
	cr_assert_eq(out.ask.mem, 0);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = t_pod("default", "many", NULL, 1);
	t_limit(p, 0, "nvidia.com/gpu", "1000");
	cr_assert_eq(scheme_nvidia.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.ask.gpus, SCHEME_MAX_ASK_GPUS);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = t_pod("default", "bad", NULL, 1);
	t_limit(p, 0, "nvidia.com/gpu", "x");
	cr_assert_eq(scheme_nvidia.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.mem, 0);
	cr_assert_null(out.node);
	cr_assert_not(out.assigned);
	cr_assert_eq(t_count(&w, "MalformedQuantity"), 1);
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_nvidia, hami_pods_are_left_alone)
{
	static const char *const keys[] = {"hami.io/vgpu-devices-allocated", "hami.io/vgpu-node",
					   "hami.io/bind-phase"};
	struct scheme_pod out;
	struct warnings w = {0};

	for (size_t i = 0; i < 3; i++) {
		struct k8s_pod *p = t_pod("ml", "h", "n1", 1);
		t_limit(p, 0, "nvidia.com/gpu", "1");
		t_kv(&p->annotations, keys[i], "x");
		cr_assert_eq(scheme_nvidia.pod_decode(p, &out, &w), 0, "%s", keys[i]);
		k8s_pod_free(p);
	}
	struct k8s_pod *p = t_pod("ml", "h", "n1", 1);
	t_limit(p, 0, "nvidia.com/gpu", "1");
	t_limit(p, 0, "nvidia.com/gpumem", "1000");
	cr_assert_eq(scheme_nvidia.pod_decode(p, &out, &w), 0);
	k8s_pod_free(p);

	p = t_pod("ml", "h", "n1", 1);
	t_limit(p, 0, "nvidia.com/gpu", "1");
	p->scheduler_name = strdup("hami-scheduler");
	cr_assert_eq(scheme_nvidia.pod_decode(p, &out, &w), 0);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_nvidia, scenarios)
{
	struct t_objs o = {0};
	struct scheme_node n;
	struct scheme_pod sp;
	struct warnings w = {0};

	t_load_list(&o, "lightweight", "nodes.json", OBJ_NODE, &scheme_nvidia.node_fields);
	t_load_list(&o, "lightweight", "pods.json", OBJ_POD, &scheme_nvidia.pod_fields);
	for (size_t i = 0; i < o.nnodes; i++) {
		cr_assert_eq(scheme_nvidia.node_decode(o.nodes[i], &n, &w), 1);
		cr_assert_eq(n.ngpus, 1);
		cr_assert_eq(n.mem_total, 1);
		scheme_node_release(&n);
	}
	cr_assert_eq(scheme_nvidia.pod_decode(o.pods[0], &sp, &w), 1);
	cr_assert_eq(sp.mem, 1);
	scheme_pod_release(&sp);
	t_objs_release(&o);

	t_load_list(&o, "nvidia-timeslicing", "nodes.json", OBJ_NODE, &scheme_nvidia.node_fields);
	t_load_list(&o, "nvidia-timeslicing", "pods.json", OBJ_POD, &scheme_nvidia.pod_fields);
	cr_assert_eq(scheme_nvidia.node_decode(t_find_node(&o, "ts-a100-1"), &n, &w), 1);
	cr_assert_eq(n.ngpus, 8);
	cr_assert_eq(n.mem_total, 80);
	cr_assert_str_eq(n.mode, "time-slicing");
	scheme_node_release(&n);
	cr_assert_eq(scheme_nvidia.node_decode(t_find_node(&o, "mps-a100-1"), &n, &w), 1);
	cr_assert_eq(n.ngpus, 2);
	cr_assert_eq(n.mem_total, 8);
	cr_assert_str_eq(n.mode, "mps");
	scheme_node_release(&n);
	cr_assert_eq(scheme_nvidia.node_decode(t_find_node(&o, "whole-t4-1"), &n, &w), 1);
	cr_assert_eq(n.ngpus, 4);
	cr_assert_eq(n.mem_total, 3);
	cr_assert_eq(n.mem_capacity, 4);
	cr_assert_str_eq(n.mode, "none");
	scheme_node_release(&n);
	cr_assert_eq(scheme_nvidia.pod_decode(t_find_pod(&o, "sweep-0"), &sp, &w), 1);
	cr_assert_eq(sp.mem, 4);
	scheme_pod_release(&sp);
	cr_assert_eq(w.len, 0);
	warnings_release(&w);
	t_objs_release(&o);

	/* the HAMi scenario's nodes and pods are not whole-GPU ones */
	t_load_list(&o, "hami", "nodes.json", OBJ_NODE, &scheme_nvidia.node_fields);
	t_load_list(&o, "hami", "pods.json", OBJ_POD, &scheme_nvidia.pod_fields);
	for (size_t i = 0; i < o.nnodes; i++)
		cr_assert_eq(scheme_nvidia.node_decode(o.nodes[i], &n, &w), 0);
	for (size_t i = 0; i < o.npods; i++)
		cr_assert_eq(scheme_nvidia.pod_decode(o.pods[i], &sp, &w), 0, "%s", o.pods[i]->name);
	warnings_release(&w);
	t_objs_release(&o);
}
