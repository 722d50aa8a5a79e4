#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "scheme_test_util.h"

extern const struct scheme scheme_hami;

#define UUID_A "GPU-0e88a2b4-7c1f-4f55-9d0a-1b2c3d4e5f60"
#define UUID_B "GPU-37de1f7a-aa01-4c2e-8e55-77a1b2c3d4e5"

static const char json_register[] =
	"[{\"id\":\"" UUID_A "\",\"count\":10,\"devmem\":16384,\"devcore\":100,"
	"\"type\":\"NVIDIA-Tesla V100-SXM2-16GB\",\"mode\":\"hami-core\",\"health\":true},"
	"{\"id\":\"" UUID_B "\",\"index\":1,\"count\":10,\"devmem\":16384,\"devcore\":100,"
	"\"type\":\"NVIDIA-Tesla V100-SXM2-16GB\",\"numa\":1,\"mode\":\"hami-core\"}]";

static int hami_node(struct k8s_node *n, struct scheme_node *out, struct warnings *w)
{
	return scheme_hami.node_decode(n, out, w);
}

Test(scheme_hami, json_register_missing_health_is_unhealthy)
{
	struct k8s_node *n = t_node("hami-a");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->annotations, "hami.io/node-nvidia-register", json_register);
	cr_assert_eq(hami_node(n, &out, &w), 1);
	cr_assert_eq(out.unit, UNIT_MIB);
	cr_assert(out.per_gpu);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_eq(out.gpus[0].index, 0);
	cr_assert_str_eq(out.gpus[0].id, UUID_A);
	cr_assert_str_eq(out.gpus[0].type, "NVIDIA-Tesla V100-SXM2-16GB");
	cr_assert_eq(out.gpus[0].mem_total, 16384);
	cr_assert_eq(out.gpus[0].core_total, 100);
	cr_assert_eq(out.gpus[0].slots, 10);
	cr_assert_not(out.gpus[0].unhealthy);
	cr_assert_str_eq(out.gpus[1].id, UUID_B);
	cr_assert(out.gpus[1].unhealthy, "a device without health is unhealthy");
	cr_assert_eq(out.mem_total, 16384, "only healthy memory is allocatable");
	cr_assert_eq(out.mem_capacity, 32768);
	cr_assert_eq(out.core_total, 100);
	cr_assert_str_eq(out.mode, "hami-core");
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_hami, json_register_orders_by_index)
{
	struct k8s_node *n = t_node("hami-a");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->annotations, "hami.io/node-nvidia-register",
	     "[{\"id\":\"GPU-b\",\"index\":1,\"devmem\":100,\"health\":true},"
	     "{\"id\":\"GPU-a\",\"devmem\":200,\"health\":true}]");
	cr_assert_eq(hami_node(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_str_eq(out.gpus[0].id, "GPU-a");
	cr_assert_eq(out.gpus[0].mem_total, 200);
	cr_assert_str_eq(out.gpus[1].id, "GPU-b");
	cr_assert_null(out.mode);
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_hami, legacy_register_both_lengths)
{
	struct k8s_node *n = t_node("hami-old");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->annotations, "hami.io/node-nvidia-register",
	     UUID_A ",10,15360,100,NVIDIA-Tesla T4,0,true:" UUID_B ",10,15360,100,NVIDIA-Tesla T4,0,false,1,hami-core:");
	cr_assert_eq(hami_node(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 2);
	cr_assert_str_eq(out.gpus[0].id, UUID_A);
	cr_assert_str_eq(out.gpus[0].type, "NVIDIA-Tesla T4");
	cr_assert_eq(out.gpus[0].mem_total, 15360);
	cr_assert_not(out.gpus[0].unhealthy);
	cr_assert(out.gpus[1].unhealthy);
	cr_assert_eq(out.gpus[1].index, 1);
	cr_assert_eq(out.mem_total, 15360);
	cr_assert_eq(out.mem_capacity, 30720);
	cr_assert_eq(w.len, 0, "%s", w.len ? w.items[0].message : "");
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_hami, no_register_not_hami)
{
	struct k8s_node *n = t_node("plain");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->allocatable, "nvidia.com/gpu", "8");
	cr_assert_eq(hami_node(n, &out, &w), 0);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_hami, cordon_marks_devices)
{
	struct k8s_node *n = t_node("hami-a");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->annotations, "hami.io/node-nvidia-register", json_register);
	t_kv(&n->annotations, "hami.io/device-cordon", "GPU-unknown, " UUID_B);
	cr_assert_eq(hami_node(n, &out, &w), 1);
	cr_assert_not(out.gpus[0].cordoned);
	cr_assert(out.gpus[1].cordoned);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

static size_t handshake_warnings(const char *value, const char *now, const char *code)
{
	struct k8s_node *n = t_node("hami-a");
	struct scheme_node out;
	struct warnings w = {0};
	size_t r;

	setenv("CGPU_NOW", now, 1);
	t_kv(&n->annotations, "hami.io/node-nvidia-register", json_register);
	t_kv(&n->annotations, "hami.io/node-handshake", value);
	cr_assert_eq(hami_node(n, &out, &w), 1);
	r = t_count(&w, code);
	if (r)
		cr_assert_str_eq(t_warning(&w, code)->object, "node/hami-a");
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
	unsetenv("CGPU_NOW");
	return r;
}

Test(scheme_hami, handshake)
{
	/* 2026-11-21T17:00:00Z */
	cr_assert_eq(handshake_warnings("Requesting_2026-11-21 16:50:00", "1795280400", "HandshakeStuck"), 1);
	cr_assert_eq(handshake_warnings("Requesting_2026-11-21 16:57:00", "1795280400", "HandshakeStuck"), 0);
	cr_assert_eq(handshake_warnings("Requesting_2026.11.21 16:50:00", "2026-11-21T17:00:00Z", "HandshakeStuck"), 1);
	cr_assert_eq(handshake_warnings("Reported_2026-11-21 10:00:00", "1795280400", "HandshakeStuck"), 0);
	cr_assert_eq(handshake_warnings("Deleted_2026-11-21 16:59:00", "1795280400", "HandshakeDeleted"), 1);
	cr_assert_eq(handshake_warnings("Requesting_yesterday", "1795280400", "MalformedAnnotation"), 1);
	cr_assert_eq(handshake_warnings("Requesting_2026-13-21 16:50:00", "1795280400", "MalformedAnnotation"), 1);
}

/* Every malformed register still yields a node, the readable devices, and
 * one warning naming the node and the annotation. */
static void malformed_register(const char *value, int ngpus)
{
	struct k8s_node *n = t_node("bad");
	struct scheme_node out;
	struct warnings w = {0};
	const struct warning *wa;

	t_kv(&n->annotations, "hami.io/node-nvidia-register", value);
	cr_assert_eq(hami_node(n, &out, &w), 1, "%s", value);
	cr_assert_eq(out.ngpus, ngpus, "%s", value);
	wa = t_warning(&w, "MalformedAnnotation");
	cr_assert_not_null(wa, "no warning for %s", value);
	cr_assert_str_eq(wa->object, "node/bad");
	cr_assert_not_null(strstr(wa->message, "hami.io/node-nvidia-register"));
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

Test(scheme_hami, malformed_registers)
{
	malformed_register("[{\"id\":\"GPU-a\",\"devmem\":100", 0);				/* truncated JSON */
	malformed_register("[{\"id\":\"GPU-a\",\"devmem\":\"100\",\"health\":true}]", 0);	/* wrong type */
	malformed_register("[{\"devmem\":100,\"health\":true}]", 0);				/* no UUID */
	malformed_register("[{\"id\":\"GPU-a\",\"devmem\":99999999999999999999}]", 0);	/* huge */
	malformed_register("[{\"id\":\"GPU-a\",\"devmem\":-1}]", 0);
	malformed_register("[{\"id\":\"GPU-\\u0001\",\"health\":true}]", 0);			/* control byte */
	malformed_register("[1,{\"id\":\"GPU-a\",\"health\":true}]", 1);
	malformed_register("{\"id\":\"GPU-a\"}", 0);
	malformed_register("[\"\xff\xfe\"]", 0); /* not UTF-8 */
	malformed_register(UUID_A ",10,15360,100,T4,0:", 0);				/* too few fields */
	malformed_register(UUID_A ",10,15360,100,T4,0,true,0,m,x:", 0);			/* too many */
	malformed_register(UUID_A ",10,99999999999999999999999,100,T4,0,true:", 0);
	malformed_register(UUID_A ",10,15360,100,T4,0,maybe:", 0);
	malformed_register("GPU-\xff\xfe,10,15360,100,T4,0,true:" UUID_B ",10,1,100,T4,0,true:", 1);
	malformed_register(UUID_A ",10,15360,100,T4,0,true:" UUID_A ",10,153", 1);		/* truncated */
	malformed_register("[{\"id\":\"GPU-a\",\"index\":3,\"health\":true}]", 1);		/* sparse index */
}

Test(scheme_hami, empty_register_is_a_node_without_gpus)
{
	struct k8s_node *n = t_node("empty");
	struct scheme_node out;
	struct warnings w = {0};

	t_kv(&n->annotations, "hami.io/node-nvidia-register", "[]");
	cr_assert_eq(hami_node(n, &out, &w), 1);
	cr_assert_eq(out.ngpus, 0);
	cr_assert_eq(out.mem_total, 0);
	cr_assert_eq(w.len, 0);
	scheme_node_release(&out);
	warnings_release(&w);
	k8s_node_free(n);
}

/* --- pods ------------------------------------------------------------- */

static struct k8s_pod *hami_pod(const char *alloc, size_t ncontainers)
{
	struct k8s_pod *p = t_pod("ml", "infer-0", "hami-a", ncontainers);
	for (size_t i = 0; i < ncontainers; i++) {
		t_limit(p, i, "nvidia.com/gpu", "1");
		t_limit(p, i, "nvidia.com/gpumem", "3000");
	}
	if (alloc)
		t_kv(&p->annotations, "hami.io/vgpu-devices-allocated", alloc);
	t_kv(&p->annotations, "hami.io/vgpu-node", "hami-a");
	t_kv(&p->annotations, "hami.io/bind-phase", "success");
	return p;
}

Test(scheme_hami, allocated_two_devices_one_container)
{
	struct k8s_pod *p = hami_pod(UUID_A ",NVIDIA,3000,30:" UUID_B ",NVIDIA,3000,30:;", 1);
	struct scheme_pod out;
	struct warnings w = {0};

	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_str_eq(out.node, "hami-a");
	cr_assert(out.assigned);
	cr_assert_eq(out.mem, 6000);
	cr_assert_eq(out.core, 60);
	cr_assert_eq(out.container_mem[0], 6000);
	cr_assert_eq(out.container_core[0], 60);
	cr_assert_eq(out.nclaims, 2);
	cr_assert_eq(out.claims[0].gpu, -1, "the model maps the UUID to an index");
	cr_assert_str_eq(out.claims[0].device_id, UUID_A);
	cr_assert_str_eq(out.claims[1].device_id, UUID_B);
	cr_assert_eq(out.claims[1].mem, 3000);
	cr_assert_eq(out.claims[1].core, 30);
	cr_assert_eq(out.claims[1].container, 0);
	cr_assert_eq(w.len, 0);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_hami, empty_containers_are_kept)
{
	struct k8s_pod *p = hami_pod(";" UUID_B ",NVIDIA,2000,0:;;", 3);
	struct scheme_pod out;
	struct warnings w = {0};

	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 1);
	cr_assert_eq(out.claims[0].container, 1);
	cr_assert_eq(out.container_mem[0], 0);
	cr_assert_eq(out.container_mem[1], 2000);
	cr_assert_eq(out.container_mem[2], 0);
	cr_assert_eq(out.mem, 2000);
	cr_assert_eq(w.len, 0);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_hami, more_containers_in_annotation_than_pod)
{
	struct k8s_pod *p = hami_pod(UUID_A ",NVIDIA,1000,10:;" UUID_B ",NVIDIA,1000,10:;", 1);
	struct scheme_pod out;
	struct warnings w = {0};

	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 2);
	cr_assert_eq(out.claims[1].container, -1);
	cr_assert_eq(out.container_mem[0], 1000);
	cr_assert_eq(out.mem, 2000);
	cr_assert_eq(t_count(&w, "MalformedAnnotation"), 1);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_hami, pending_copy_is_not_assigned)
{
	struct k8s_pod *p = hami_pod(NULL, 1);
	struct scheme_pod out;
	struct warnings w = {0};

	t_kv(&p->annotations, "hami.io/vgpu-devices-to-allocate", UUID_A ",NVIDIA,3000,0:;");
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_not(out.assigned);
	cr_assert_eq(out.nclaims, 1);
	cr_assert_str_eq(out.claims[0].device_id, UUID_A);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_hami, bind_phases)
{
	static const char *const phases[] = {"allocating", "success", "failed"};

	for (size_t i = 0; i < 3; i++) {
		struct k8s_pod *p = t_pod("ml", "infer-1", NULL, 1);
		struct scheme_pod out;
		struct warnings w = {0};

		t_limit(p, 0, "nvidia.com/gpu", "1");
		t_limit(p, 0, "nvidia.com/gpumem", "3000");
		t_kv(&p->annotations, "hami.io/vgpu-devices-allocated", UUID_A ",NVIDIA,3000,0:;");
		t_kv(&p->annotations, "hami.io/vgpu-node", "hami-a");
		t_kv(&p->annotations, "hami.io/bind-phase", phases[i]);
		cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
		if (i < 2) {
			cr_assert_str_eq(out.node, "hami-a", "%s", phases[i]);
			cr_assert_eq(out.nclaims, 1, "%s", phases[i]);
			cr_assert_eq(out.assigned, i == 1);
			cr_assert_eq(w.len, 0);
		} else {
			cr_assert_null(out.node, "a failed bind holds no node");
			cr_assert_eq(out.nclaims, 0);
			cr_assert_eq(out.mem, 3000, "what it asks for is still shown");
			cr_assert_eq(t_count(&w, "BindFailed"), 1);
		}
		scheme_pod_release(&out);
		warnings_release(&w);
		k8s_pod_free(p);
	}
}

Test(scheme_hami, requested_only)
{
	struct k8s_pod *p = t_pod("ml", "wait", NULL, 2);
	struct scheme_pod out;
	struct warnings w = {0};

	t_limit(p, 0, "nvidia.com/gpu", "2");
	t_limit(p, 0, "nvidia.com/gpumem", "4000");
	t_limit(p, 0, "nvidia.com/gpucores", "25");
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_null(out.node);
	cr_assert_eq(out.nclaims, 0, "unscheduled: not placed");
	cr_assert_eq(out.mem, 8000);
	cr_assert_eq(out.core, 50);
	cr_assert_eq(out.container_mem[1], 0);
	scheme_pod_release(&out);

	/* Once the scheduler picked a node but before devices are listed:
	 * held there, GPU unknown. */
	t_kv(&p->annotations, "hami.io/vgpu-node", "hami-a");
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_str_eq(out.node, "hami-a");
	cr_assert_eq(out.nclaims, 1);
	cr_assert_eq(out.claims[0].gpu, -1);
	cr_assert_null(out.claims[0].device_id);
	cr_assert_eq(out.claims[0].mem, 8000);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_hami, which_pods_are_hami)
{
	struct k8s_pod *p = t_pod("default", "cuda", "n1", 1);
	struct scheme_pod out;
	struct warnings w = {0};

	t_limit(p, 0, "nvidia.com/gpu", "1");
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 0, "a whole-GPU pod is not hami's");
	p->scheduler_name = strdup("hami-scheduler");
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 0, "no memory asked: nothing to hold per GPU");
	scheme_pod_release(&out);
	k8s_pod_free(p);

	p = t_pod("default", "cpu", "n1", 1);
	t_limit(p, 0, "cpu", "1");
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 0);
	k8s_pod_free(p);
	warnings_release(&w);
}

static void malformed_pod(const char *alloc, size_t nclaims)
{
	struct k8s_pod *p = hami_pod(alloc, 2);
	struct scheme_pod out;
	struct warnings w = {0};
	const struct warning *wa;

	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1, "%s", alloc);
	cr_assert_eq(out.nclaims, nclaims, "%s", alloc);
	wa = t_warning(&w, "MalformedAnnotation");
	cr_assert_not_null(wa, "no warning for %s", alloc);
	cr_assert_str_eq(wa->object, "pod/ml/infer-0");
	cr_assert_not_null(strstr(wa->message, "hami.io/vgpu-devices-allocated"));
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_hami, malformed_pod_annotations)
{
	malformed_pod(UUID_A ",NVIDIA,3000", 0);			/* truncated */
	malformed_pod(UUID_A ",NVIDIA,3000,30,7:;", 0);		/* five fields */
	malformed_pod(UUID_A ",NVIDIA,3000,30:" UUID_B ",NV", 1);	/* truncated second */
	malformed_pod(UUID_A ",NVIDIA,300000000000000000000000,30:;", 0);
	malformed_pod(UUID_A ",NVIDIA,-5,30:;", 0);
	malformed_pod("\xff\xfe\xfd,NVIDIA,3000,30:;", 0);		/* not UTF-8 */
	malformed_pod(UUID_A ",NVI\x01DIA,3000,30:;", 0);
	malformed_pod(",NVIDIA,3000,30:;", 0);
	malformed_pod(";;;;", 0); /* four containers, the pod has two */
}

Test(scheme_hami, huge_limits_are_warned)
{
	struct k8s_pod *p = t_pod("ml", "big", NULL, 1);
	struct scheme_pod out;
	struct warnings w = {0};

	t_limit(p, 0, "nvidia.com/gpumem", "1e30");
	t_limit(p, 0, "nvidia.com/gpucores", "120");
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.mem, 0);
	cr_assert_eq(t_count(&w, "MalformedQuantity"), 1);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

Test(scheme_hami, over_100_percent_warned)
{
	struct k8s_pod *p = hami_pod(UUID_A ",NVIDIA,3000,130:;;", 2);
	struct scheme_pod out;
	struct warnings w = {0};

	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_eq(t_count(&w, "CoreShareOver100"), 1);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
}

/* --- fixture scenarios, decoded with the scheme's own filter ----------- */

struct decoded {
	struct t_objs o;
	struct scheme_node nodes[2];
	struct warnings w;
};

static void decode_scenario(const char *scenario, const char *prefix, struct decoded *d)
{
	char name[64];

	memset(d, 0, sizeof(*d));
	t_load_list(&d->o, scenario, "nodes.json", OBJ_NODE, &scheme_hami.node_fields);
	t_load_list(&d->o, scenario, "pods.json", OBJ_POD, &scheme_hami.pod_fields);
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s-%d", prefix, i + 1);
		cr_assert_eq(scheme_hami.node_decode(t_find_node(&d->o, name), &d->nodes[i], &d->w), 1, "%s", name);
	}
}

static void release_decoded(struct decoded *d)
{
	for (int i = 0; i < 2; i++)
		scheme_node_release(&d->nodes[i]);
	warnings_release(&d->w);
	t_objs_release(&d->o);
}

Test(scheme_hami, both_encodings_read_alike)
{
	struct decoded j, l;

	setenv("CGPU_NOW", "2026-11-21T17:00:00Z", 1);
	decode_scenario("hami", "hami-gpu", &j);
	decode_scenario("hami-legacy", "hami-old", &l);
	unsetenv("CGPU_NOW");
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(j.nodes[i].ngpus, l.nodes[i].ngpus);
		cr_assert_eq(j.nodes[i].mem_total, l.nodes[i].mem_total);
		cr_assert_eq(j.nodes[i].mem_capacity, l.nodes[i].mem_capacity);
		cr_assert_eq(j.nodes[i].core_total, l.nodes[i].core_total);
		for (int g = 0; g < j.nodes[i].ngpus; g++) {
			cr_assert_eq(j.nodes[i].gpus[g].mem_total, l.nodes[i].gpus[g].mem_total);
			cr_assert_eq(j.nodes[i].gpus[g].unhealthy, l.nodes[i].gpus[g].unhealthy);
			cr_assert_eq(j.nodes[i].gpus[g].cordoned, l.nodes[i].gpus[g].cordoned);
			cr_assert_str_eq(j.nodes[i].gpus[g].type, l.nodes[i].gpus[g].type);
		}
	}
	/* hami-gpu-1: two A100s, the second cordoned */
	cr_assert_eq(j.nodes[0].ngpus, 2);
	cr_assert_eq(j.nodes[0].mem_total, 81920);
	cr_assert_not(j.nodes[0].gpus[0].cordoned);
	cr_assert(j.nodes[0].gpus[1].cordoned);
	/* hami-gpu-2: four T4s, the last without health, handshake stuck */
	cr_assert_eq(j.nodes[1].ngpus, 4);
	cr_assert(j.nodes[1].gpus[3].unhealthy);
	cr_assert_eq(j.nodes[1].mem_total, 3 * 15360);
	cr_assert_eq(j.nodes[1].mem_capacity, 4 * 15360);
	cr_assert_eq(t_count(&j.w, "HandshakeStuck"), 1);
	cr_assert_eq(t_count(&l.w, "HandshakeStuck"), 1);
	cr_assert_eq(j.w.len, 1);
	release_decoded(&j);
	release_decoded(&l);
}

Test(scheme_hami, scenario_pods)
{
	struct decoded d;
	struct scheme_pod sp;
	struct k8s_pod *p;

	decode_scenario("hami", "hami-gpu", &d);
	p = t_find_pod(&d.o, "trainer-0");
	cr_assert_eq(scheme_hami.pod_decode(p, &sp, &d.w), 1);
	cr_assert_str_eq(sp.node, "hami-gpu-1");
	cr_assert_eq(sp.nclaims, 2);
	cr_assert_str_eq(sp.claims[0].device_id, d.nodes[0].gpus[0].id);
	cr_assert_str_eq(sp.claims[1].device_id, d.nodes[0].gpus[1].id);
	cr_assert_eq(sp.container_mem[0], 40000);
	cr_assert_eq(sp.container_mem[1], 0);
	cr_assert(sp.assigned);
	scheme_pod_release(&sp);

	p = t_find_pod(&d.o, "notebook-0");
	cr_assert_eq(scheme_hami.pod_decode(p, &sp, &d.w), 1);
	cr_assert_not(sp.assigned, "bind-phase allocating");
	cr_assert_eq(sp.nclaims, 1);
	scheme_pod_release(&sp);

	p = t_find_pod(&d.o, "garbled-0");
	cr_assert_eq(scheme_hami.pod_decode(p, &sp, &d.w), 1);
	cr_assert_eq(sp.nclaims, 0);
	cr_assert_not_null(t_warning(&d.w, "MalformedAnnotation"));
	cr_assert_str_eq(t_warning(&d.w, "MalformedAnnotation")->object, "pod/dev/garbled-0");
	scheme_pod_release(&sp);

	p = t_find_pod(&d.o, "waiting-0");
	cr_assert_eq(scheme_hami.pod_decode(p, &sp, &d.w), 1);
	cr_assert_null(sp.node);
	cr_assert_eq(sp.mem, 8000);
	cr_assert_eq(sp.core, 25);
	scheme_pod_release(&sp);
	release_decoded(&d);
}

Test(scheme_hami, more_than_20_vgpus_on_one_gpu)
{
	char *alloc = calloc(22, sizeof(UUID_A ",NVIDIA,100,1:") + 1);
	struct k8s_pod *p;
	struct scheme_pod out;
	struct warnings w = {0};

	for (int i = 0; i < 21; i++)
		strcat(alloc, UUID_A ",NVIDIA,100,1:");
	strcat(alloc, ";");
	p = hami_pod(alloc, 1);
	cr_assert_eq(scheme_hami.pod_decode(p, &out, &w), 1);
	cr_assert_eq(out.nclaims, 21);
	cr_assert_eq(t_count(&w, "TooManyVGPUs"), 1);
	scheme_pod_release(&out);
	warnings_release(&w);
	k8s_pod_free(p);
	free(alloc);
}
