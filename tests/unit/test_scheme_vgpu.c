#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_test_util.h"

extern const struct scheme scheme_vgpu;

#define UUID_A "GPU-5f3a0c1e-1111-4a2b-9c3d-0123456789ab"
#define UUID_B "GPU-5f3a0c1e-2222-4a2b-9c3d-0123456789ab"

Test(scheme_vgpu, register)
{
	struct k8s_node *n = t_node("volc-1");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->annotations, "volcano.sh/node-vgpu-register",
	     UUID_A ",10,32768,NVIDIA-Tesla V100-SXM2-32GB,true,hami-core:" UUID_B
		    ",10,32768,NVIDIA-Tesla V100-SXM2-32GB,false,hami-core:");
	t_kv(&n->capacity, "volcano.sh/vgpu-number", "20");
	cr_assert_eq(scheme_vgpu.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.unit, UNIT_MIB);
	cr_assert(out.per_gpu);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_str_eq(out.gpus[1].id, UUID_B);
	cr_assert_str_eq(out.gpus[1].type, "NVIDIA-Tesla V100-SXM2-32GB");
	cr_assert_eq(out.gpus[1].index, 1);
	cr_assert_eq(out.gpus[0].slots, 10);
	cr_assert_eq(out.gpus[0].core_total, 100);
	cr_assert(out.gpus[1].unhealthy);
	cr_assert_eq(out.mem_total, 32768);
	cr_assert_eq(out.mem_capacity, 65536);
	cr_assert_eq(out.core_total, 100);
	cr_assert_str_eq(out.mode, "hami-core");
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_vgpu, register_without_mode)
{
	struct k8s_node *n = t_node("volc-2");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->annotations, "volcano.sh/node-vgpu-register", UUID_A ",4,15360,NVIDIA-Tesla T4,true:");
	cr_assert_eq(scheme_vgpu.node_decode(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 1);
	cr_assert_eq(out.gpus[0].slots, 4);
	cr_assert_str_eq(out.mode, "vgpu");
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_vgpu, resources_before_register)
{
	struct k8s_node *n = t_node("volc-3");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->capacity, "volcano.sh/vgpu-number", "20");
	t_kv(&n->capacity, "volcano.sh/vgpu-memory", "65536");
	t_kv(&n->allocatable, "volcano.sh/vgpu-memory", "32768");
	cr_assert_eq(scheme_vgpu.node_decode(n, &out, &w), 1);
	cr_assert_not(out.per_gpu);
	cr_assert_eq(out.mem_total, 32768);
	cr_assert_eq(out.mem_capacity, 65536);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_vgpu, gpu_share_node)
{
	struct k8s_node *n = t_node("share-1");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->capacity, "volcano.sh/gpu-memory", "30720");
	t_kv(&n->allocatable, "volcano.sh/gpu-memory", "30720");
	t_kv(&n->capacity, "volcano.sh/gpu-number", "2");
	cr_assert_eq(scheme_vgpu.node_decode(n, &out, &w), 1);
	cr_assert(out.per_gpu);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_eq(out.gpus[1].mem_total, 15360);
	cr_assert_str_eq(out.mode, "gpu-share");
	cr_assert_not(out.isolation);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_vgpu, other_nodes_not_claimed)
{
	struct k8s_node *n = t_node("cce");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->capacity, "volcano.sh/gpu-mem.128Mi", "126");
	t_kv(&n->capacity, "nvidia.com/gpu", "1");
	cr_assert_eq(scheme_vgpu.node_decode(n, &out, &w), 0);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_vgpu, malformed_register)
{
	static const char *const bad[] = {
		UUID_A ",10,32768,T4,true,hami-core,extra:",
		UUID_A ",10,32768,T4:",
		UUID_A ",ten,32768,T4,true:",
		UUID_A ",10,3276800000000000000000000,T4,true:",
		UUID_A ",10,32768,T4,yes:",
		"GPU-\xc3\x28,10,32768,T4,true:",
		UUID_A ",10,32768,T\x7f" "4,true:",
		UUID_A ",10,327",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct k8s_node *n = t_node("volc-bad");
		struct scheme_node out;
		struct warnings w = {0};
		char *v;
		size_t len = strlen(bad[i]) + strlen(UUID_B ",10,1024,T4,true:") + 2;

		v = malloc(len);
		snprintf(v, len, "%s:%s", UUID_B ",10,1024,T4,true", bad[i]);
		t_kv(&n->annotations, "volcano.sh/node-vgpu-register", v);
		cr_assert_eq(scheme_vgpu.node_decode(n, &out, &w), 1, "%s", v);
		cr_assert_eq(out.ngpus, 1, "%s", v);
		cr_assert_str_eq(out.gpus[0].id, UUID_B);
		cr_assert_eq(t_count(&w, "MalformedAnnotation"), 1, "%s", v);
		cr_assert_str_eq(w.items[0].object, "node/volc-bad");
		cr_assert_not_null(strstr(w.items[0].message, "volcano.sh/node-vgpu-register"));
		free(v);
		scheme_node_release(&out);
		warnings_release(&w);
		k8s_node_free(n);
	}
}

static struct k8s_pod *vpod(size_t ncontainers)
{
	struct k8s_pod *p = t_pod("team-a", "train-0", "volc-1", ncontainers);
	p->scheduler_name = strdup("volcano");
	for (size_t i = 0; i < ncontainers; i++) {
		t_limit(p, i, "volcano.sh/vgpu-number", "1");
		t_limit(p, i, "volcano.sh/vgpu-memory", "4096");
		t_limit(p, i, "volcano.sh/vgpu-cores", "25");
	}
	return p;
}

Test(scheme_vgpu, allocated_containers_joined)
{
	struct k8s_pod *p = vpod(3);
	struct scheme_pod out;
	struct warnings w = {0};

	/* Volcano joins containers with ';' and leaves no ';' at the end: the
	 * last container is empty here. */
	t_kv(&p->annotations, "volcano.sh/vgpu-ids-new",
	     UUID_A ",NVIDIA,4096,25:;" UUID_B ",NVIDIA,4096,25:" UUID_A ",NVIDIA,1024,5:;");
	t_kv(&p->annotations, "volcano.sh/bind-phase", "success");
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert(out.assigned);
	cr_assert_str_eq(out.node, "volc-1");
	cr_assert_eq(out.nclaims, 3);
	cr_assert_eq(out.claims[0].container, 0);
	cr_assert_eq(out.claims[1].container, 1);
	cr_assert_str_eq(out.claims[1].device_id, UUID_B);
	cr_assert_eq(out.claims[2].container, 1);
	cr_assert_eq(out.claims[2].gpu, -1);
	cr_assert_eq(out.container_mem[1], 5120);
	cr_assert_eq(out.container_core[1], 30);
	cr_assert_eq(out.container_mem[2], 0);
	cr_assert_eq(out.mem, 9216);
	cr_assert_eq(out.core, 55);
	cr_assert_eq(w.len, 0);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_vgpu, pending_copy_and_requests)
{
	struct k8s_pod *p = vpod(1);
	struct scheme_pod out;
	struct warnings w = {0};

	t_kv(&p->annotations, "volcano.sh/devices-to-allocate", UUID_A ",NVIDIA,4096,25:");
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert_not(out.assigned);
	cr_assert_eq(out.nclaims, 1);
	cr_assert_str_eq(out.claims[0].device_id, UUID_A);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = vpod(2);
	free(p->node_name);
	p->node_name = NULL;
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert_null(out.node);
	cr_assert_eq(out.nclaims, 0);
	cr_assert_eq(out.mem, 8192);
	cr_assert_eq(out.core, 50);
	/* per vGPU, on as many GPUs as the largest count asks */
	cr_assert_eq(out.ask.gpus, 1);
	cr_assert_eq(out.ask.mem, 4096);
	cr_assert_eq(out.ask.core, 25);
	scheme_pod_release(&out);

	t_kv(&p->annotations, "volcano.sh/vgpu-node", "volc-1");
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert_str_eq(out.node, "volc-1");
	cr_assert_eq(out.nclaims, 2);
	cr_assert_eq(out.claims[1].gpu, -1);
	cr_assert_null(out.claims[1].device_id);
	scheme_pod_release(&out);
	cr_assert_eq(w.len, 0);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_vgpu, failed_bind)
{
	struct k8s_pod *p = vpod(1);
	struct scheme_pod out;
	struct warnings w = {0};

	free(p->node_name);
	p->node_name = NULL;
	t_kv(&p->annotations, "volcano.sh/vgpu-ids-new", UUID_A ",NVIDIA,4096,25:");
	t_kv(&p->annotations, "volcano.sh/vgpu-node", "volc-1");
	t_kv(&p->annotations, "volcano.sh/bind-phase", "failed");
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert_null(out.node);
	cr_assert_eq(out.nclaims, 0);
	cr_assert_eq(t_count(&w, "BindFailed"), 1);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_vgpu, malformed_pod)
{
	static const char *const bad[] = {
		UUID_A ",NVIDIA,4096",
		UUID_A ",NVIDIA,4096,25,1:",
		UUID_A ",NVIDIA,409600000000000000000000,25:",
		"\x80\x81,NVIDIA,4096,25:",
		";;;",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct k8s_pod *p = vpod(1);
		struct scheme_pod out;
		struct warnings w = {0};
		const struct warning *wa;

		t_kv(&p->annotations, "volcano.sh/vgpu-ids-new", bad[i]);
		cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
		cr_assert_eq(out.nclaims, 0, "%s", bad[i]);
		wa = t_warning(&w, "MalformedAnnotation");
		cr_assert_not_null(wa, "%s", bad[i]);
		cr_assert_str_eq(wa->object, "pod/team-a/train-0");
		cr_assert_not_null(strstr(wa->message, "volcano.sh/vgpu-ids-new"));
		scheme_pod_release(&out);
		warnings_release(&w);
		k8s_pod_free(p);
	}
}

Test(scheme_vgpu, gpu_share_pods)
{
	struct k8s_pod *p = t_pod("default", "share-0", "share-1", 2);
	struct scheme_pod out;
	struct warnings w = {0};

	t_limit(p, 0, "volcano.sh/gpu-memory", "1024");
	t_limit(p, 1, "volcano.sh/gpu-memory", "2048");
	t_kv(&p->annotations, "volcano.sh/gpu-index", "1");
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.mem, 3072);
	cr_assert_eq(out.nclaims, 2);
	cr_assert_eq(out.claims[0].gpu, 1);
	cr_assert_eq(out.claims[1].gpu, 1);
	cr_assert_eq(out.claims[1].mem, 2048);
	cr_assert(out.assigned);
	/* no vGPU count: the largest container's memory, on one GPU */
	cr_assert_eq(out.ask.gpus, 1);
	cr_assert_eq(out.ask.mem, 2048);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = t_pod("default", "share-1", "share-1", 1);
	t_limit(p, 0, "volcano.sh/gpu-memory", "3001");
	t_kv(&p->annotations, "volcano.sh/gpu-index", "0,1");
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 2);
	cr_assert_eq(out.claims[0].gpu, 0);
	cr_assert_eq(out.claims[0].mem + out.claims[1].mem, 3001);
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = t_pod("default", "share-2", "share-1", 1);
	t_limit(p, 0, "volcano.sh/gpu-memory", "1000");
	t_kv(&p->annotations, "volcano.sh/gpu-index", "zero");
	cr_assert_eq(scheme_vgpu.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 1);
	cr_assert_eq(out.claims[0].gpu, -1, "unreadable index: pending");
	cr_assert_eq(t_count(&w, "MalformedAnnotation"), 1);
	scheme_pod_release(&out);
	k8s_pod_free(p);
	warnings_release(&w);
}

Test(scheme_vgpu, scenario)
{
	struct t_objs o = {0};
	struct scheme_node n1, n2, share;
	struct scheme_pod sp;
	struct warnings w = {0};

	t_load_list(&o, "volcano-vgpu", "nodes.json", OBJ_NODE, &scheme_vgpu.node_fields);
	t_load_list(&o, "volcano-vgpu", "pods.json", OBJ_POD, &scheme_vgpu.pod_fields);
	cr_assert_eq(scheme_vgpu.node_decode(t_find_node(&o, "volc-gpu-1"), &n1, &w), 1);
	cr_assert_eq(scheme_vgpu.node_decode(t_find_node(&o, "volc-gpu-2"), &n2, &w), 1);
	cr_assert_eq(scheme_vgpu.node_decode(t_find_node(&o, "share-gpu-1"), &share, &w), 1);
	cr_assert_eq(n1.ngpus, 2);
	cr_assert_eq(n1.mem_total, 81920);
	cr_assert_eq(n2.mem_total, 15360);
	cr_assert(n2.gpus[1].unhealthy);
	cr_assert_str_eq(share.mode, "gpu-share");
	cr_assert_eq(share.gpus[1].mem_total, 16160);

	cr_assert_eq(scheme_vgpu.pod_decode(t_find_pod(&o, "train-1"), &sp, &w), 1);
	cr_assert_eq(sp.nclaims, 3);
	cr_assert_str_eq(sp.claims[2].device_id, n1.gpus[1].id);
	cr_assert_eq(sp.container_mem[1], 20480);
	cr_assert(sp.assigned);
	scheme_pod_release(&sp);
	cr_assert_eq(scheme_vgpu.pod_decode(t_find_pod(&o, "infer-0"), &sp, &w), 1);
	cr_assert_not(sp.assigned);
	cr_assert_str_eq(sp.claims[0].device_id, n2.gpus[0].id);
	scheme_pod_release(&sp);
	cr_assert_eq(scheme_vgpu.pod_decode(t_find_pod(&o, "share-app-0"), &sp, &w), 1);
	cr_assert_eq(sp.claims[0].gpu, 1);
	cr_assert_eq(sp.mem, 4096);
	scheme_pod_release(&sp);
	cr_assert_eq(w.len, 0, "%s", w.len ? w.items[0].message : "");
	scheme_node_release(&n1);
	scheme_node_release(&n2);
	scheme_node_release(&share);
	warnings_release(&w);
	t_objs_release(&o);
}
