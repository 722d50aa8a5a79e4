#!/usr/bin/env python3
"""Builds the fixture scenarios of the other sharing schemes (CCE xGPU, Volcano vGPU, HAMi, NVIDIA
time-slicing, and a mixed cluster) with the object builders of tests/fakeapi/mkfixtures.py.

    python3 tests/e2e/mkschemes.py [--out fixtures/scenarios] [NAME...]

The annotations follow what each project writes (see the scheme_*.c files). Output is deterministic.
The HAMi handshake times are absolute; tests pin "now" with CGPU_NOW=2026-11-21T17:00:00Z.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakeapi"))
import mkfixtures as mk  # noqa: E402

NOW = "2026-11-21T17:00:00Z"
CUDA = "nvcr.io/nvidia/cuda:12.2.0-base-ubuntu22.04"
A100 = "NVIDIA-A100-SXM4-40GB"
T4 = "NVIDIA-Tesla-T4"


def unschedulable(p, resource):
	"""mkfixtures words the scheduler's message for gpushare; name the resource the pod really lacks."""
	for cond in p["status"].get("conditions", []):
		if cond.get("reason") == "Unschedulable":
			cond["message"] = cond["message"].replace("aliyun.com/gpu-mem", resource)
	return p


def gpu_uuid(c, *parts):
	return "GPU-" + c.uid("gpu", *parts)


# --- Huawei CCE xGPU -------------------------------------------------------------------------------------

def cce_node(c, name, ip, gpus, blocks_per_gpu, core=True, unhealthy=0, labels=None):
	cap = {"nvidia.com/gpu": str(gpus), "volcano.sh/gpu-mem.128Mi": str(gpus * blocks_per_gpu)}
	alloc = {"nvidia.com/gpu": str(gpus - unhealthy),
		"volcano.sh/gpu-mem.128Mi": str((gpus - unhealthy) * blocks_per_gpu)}
	if core:
		cap["volcano.sh/gpu-core.percentage"] = str(100 * gpus)
		alloc["volcano.sh/gpu-core.percentage"] = str(100 * (gpus - unhealthy))
	lab = {"os.name": "EulerOS_2.0_SP9x86_64", "topology.kubernetes.io/region": "cn-north-4"}
	lab.update(labels or {})
	return mk.node(c, name, ip, lab, cap, alloc, cpu="32", memory="263596872Ki")


def cce_pod(c, name, node, ip, limits, ns="default", scheduler="volcano", phase="Running", containers=None):
	cts = containers or [mk.container("container-1", "swr.cn-north-4.myhuaweicloud.com/demo/cuda:11.4", limits)]
	app = name.rsplit("-", 2)[0]
	return unschedulable(mk.pod(c, name, ns, node, cts, ip, labels={"app": app}, scheduler=scheduler, phase=phase),
		"volcano.sh/gpu-mem.128Mi")


def s_cce_multi(c):
	objs = [
		cce_node(c, "192.168.0.91", "192.168.0.91", 2, 126,
			labels={"accelerator": "nvidia-v100", "node.kubernetes.io/instance-type": "p2s.4xlarge.8"}),
		cce_node(c, "192.168.0.92", "192.168.0.92", 2, 120, core=False, unhealthy=1,
			labels={"accelerator": "nvidia-t4", "node.kubernetes.io/instance-type": "pi2.4xlarge.4"}),
	]
	objs.append(cce_pod(c, "gpu-app-6d8f9b7c5d-x2k4q", "192.168.0.91", "192.168.0.91",
		{"volcano.sh/gpu-mem.128Mi": 40}))
	objs.append(cce_pod(c, "infer-5c7d9f8b6-k2m4n", "192.168.0.91", "192.168.0.91", None, ns="serving",
		containers=[
			mk.container("model", "swr.cn-north-4.myhuaweicloud.com/demo/triton:23.10",
				{"volcano.sh/gpu-mem.128Mi": 16, "volcano.sh/gpu-core.percentage": 25}),
			mk.container("sidecar", "swr.cn-north-4.myhuaweicloud.com/demo/envoy:1.28", {"cpu": "100m", "memory": "128Mi"}),
			mk.container("warmup", "swr.cn-north-4.myhuaweicloud.com/demo/triton:23.10",
				{"volcano.sh/gpu-mem.128Mi": 24, "volcano.sh/gpu-core.percentage": 25}),
		]))
	# a compute share CCE refuses (not a multiple of 5), and a pod left to the default scheduler
	objs.append(cce_pod(c, "odd-core-7f6d5c4b3-p9q8r", "192.168.0.91", "192.168.0.91",
		{"volcano.sh/gpu-mem.128Mi": 8, "volcano.sh/gpu-core.percentage": 33}))
	objs.append(cce_pod(c, "render-6b5c4d3e2-z7y6x", "192.168.0.92", "192.168.0.92",
		{"volcano.sh/gpu-mem.128Mi": 60}, scheduler="default-scheduler"))
	# unscheduled, and finished (must not count)
	objs.append(cce_pod(c, "big-5d4c3b2a1-w1v2u", None, None, {"volcano.sh/gpu-mem.128Mi": 200}, phase="Pending"))
	objs.append(cce_pod(c, "done-4c3b2a1f0-t5s4r", "192.168.0.92", "192.168.0.92",
		{"volcano.sh/gpu-mem.128Mi": 40}, phase="Succeeded"))
	return objs, {}


# --- Volcano vGPU -----------------------------------------------------------------------------------------

def vgpu_register(devs):
	return "".join("%s,%d,%d,%s,%s,%s:" % (u, n, mem, t, "true" if ok else "false", mode) for u, n, mem, t, ok, mode in devs)


def vgpu_node(c, name, ip, devs):
	ann = {"volcano.sh/node-vgpu-register": vgpu_register(devs)}
	n = mk.node(c, name, ip, {"volcano.sh/vgpu.enabled": "true", "nvidia.com/gpu.product": devs[0][3]},
		{"volcano.sh/vgpu-number": str(sum(d[1] for d in devs)),
			"volcano.sh/vgpu-memory": str(sum(d[2] for d in devs)),
			"volcano.sh/vgpu-cores": str(100 * len(devs))},
		{"volcano.sh/vgpu-number": str(sum(d[1] for d in devs if d[4])),
			"volcano.sh/vgpu-memory": str(sum(d[2] for d in devs if d[4])),
			"volcano.sh/vgpu-cores": str(100 * sum(1 for d in devs if d[4]))}, cpu="64")
	n["metadata"]["annotations"].update(ann)
	return n


def vgpu_pod(c, name, ns, node, ip, per_container, devices, phase_ann="success", key="volcano.sh/vgpu-ids-new",
		phase="Running"):
	"""per_container: list of (number, memory, cores); devices: per container list of (uuid, mem, cores)."""
	cts = []
	for i, (n, mem, cores) in enumerate(per_container):
		lim = {}
		if n:
			lim = {"volcano.sh/vgpu-number": n, "volcano.sh/vgpu-memory": mem, "volcano.sh/vgpu-cores": cores}
		cts.append(mk.container("worker" if i == 0 else "worker-%d" % i, CUDA, lim, command=["sleep", "infinity"]))
	ann = {}
	if devices is not None:
		ann[key] = ";".join("".join("%s,NVIDIA,%d,%d:" % d for d in ctr) for ctr in devices)
		ann["volcano.sh/vgpu-node"] = node
		ann["volcano.sh/vgpu-time"] = "1795279800"
		ann["volcano.sh/bind-phase"] = phase_ann
	return unschedulable(mk.pod(c, name, ns, node if phase_ann != "failed" else None, cts, ip,
		labels={"app": name.rsplit("-", 1)[0]}, annotations=ann or None, scheduler="volcano", phase=phase),
		"volcano.sh/vgpu-memory")


def s_volcano_vgpu(c):
	a = [gpu_uuid(c, "volc-gpu-1", str(i)) for i in range(2)]
	b = [gpu_uuid(c, "volc-gpu-2", str(i)) for i in range(2)]
	objs = [
		vgpu_node(c, "volc-gpu-1", "10.2.0.11", [(u, 10, 40960, A100, True, "hami-core") for u in a]),
		vgpu_node(c, "volc-gpu-2", "10.2.0.12", [(b[0], 10, 15360, T4, True, "hami-core"),
			(b[1], 10, 15360, T4, False, "hami-core")]),
	]
	objs.append(vgpu_pod(c, "train-0", "team-a", "volc-gpu-1", "10.2.0.11", [(1, 8192, 50)], [[(a[0], 8192, 50)]]))
	objs.append(vgpu_pod(c, "train-1", "team-a", "volc-gpu-1", "10.2.0.11", [(1, 4096, 25), (2, 10240, 20)],
		[[(a[0], 4096, 25)], [(a[0], 10240, 20), (a[1], 10240, 20)]]))
	objs.append(vgpu_pod(c, "infer-0", "team-b", "volc-gpu-2", "10.2.0.12", [(1, 2048, 10)], [[(b[0], 2048, 10)]],
		key="volcano.sh/devices-to-allocate", phase_ann="allocating", phase="Pending"))
	objs.append(vgpu_pod(c, "queued-0", "team-b", None, None, [(1, 20000, 100)], None, phase="Pending"))
	# legacy Volcano gpu-share
	share = mk.node(c, "share-gpu-1", "10.2.0.21", {"nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB"},
		{"volcano.sh/gpu-memory": "32320", "volcano.sh/gpu-number": "2"}, cpu="32")
	objs.append(share)
	objs.append(mk.pod(c, "share-app-0", "default", "share-gpu-1",
		[mk.container("app", CUDA, {"volcano.sh/gpu-memory": 4096})], "10.2.0.21",
		annotations={"volcano.sh/gpu-index": "1", "volcano.sh/predicate-time": "1795279800"}, scheduler="volcano"))
	return objs, {}


# --- HAMi --------------------------------------------------------------------------------------------------

def hami_node(c, name, ip, register, handshake, gpus, split=10, cordon=None, product=A100):
	n = mk.node(c, name, ip, {"gpu": "on", "nvidia.com/gpu.product": product, "nvidia.com/gpu.count": str(gpus)},
		{"nvidia.com/gpu": str(gpus * split)}, cpu="96")
	ann = {"hami.io/node-nvidia-register": register, "hami.io/node-handshake": handshake,
		"hami.io/mutex.lock": "", "hami.io/node-lock-nvidia": ""}
	if cordon:
		ann["hami.io/device-cordon"] = cordon
	n["metadata"]["annotations"].update(ann)
	return n


def hami_json_register(devs):
	out = []
	for i, (u, count, mem, core, typ, healthy, numa) in enumerate(devs):
		d = {"id": u}
		if i:
			d["index"] = i  # omitempty: index 0 is left out
		d.update({"count": count, "devmem": mem, "devcore": core, "type": typ})
		if numa:
			d["numa"] = numa
		d["mode"] = "hami-core"
		if healthy:
			d["health"] = True  # omitempty: false is left out
		out.append(d)
	return json.dumps(out, separators=(",", ":"))


def hami_legacy_register(devs, with_index):
	s = ""
	for i, (u, count, mem, core, typ, healthy, numa) in enumerate(devs):
		s += "%s,%d,%d,%d,%s,%d,%s" % (u, count, mem, core, typ, numa, "true" if healthy else "false")
		if with_index:
			s += ",%d,hami-core" % i
		s += ":"
	return s


def hami_pod(c, name, ns, node, ip, limits, devices=None, phase_ann="success", phase="Running", node_ann=None,
		raw=None):
	"""limits: per container dict; devices: per container list of (uuid, mem, cores)."""
	cts = [mk.container("main" if i == 0 else "aux-%d" % i, CUDA, lim, command=["python3", "serve.py"])
		for i, lim in enumerate(limits)]
	ann = {}
	if devices is not None or raw is not None:
		val = raw if raw is not None else "".join("".join("%s,NVIDIA,%d,%d:" % d for d in ctr) + ";" for ctr in devices)
		ann["hami.io/vgpu-devices-allocated"] = val
		ann["hami.io/vgpu-devices-to-allocate"] = ";" * len(limits) if phase_ann == "success" else val
		ann["hami.io/vgpu-node"] = node_ann or node
		ann["hami.io/vgpu-time"] = "1795279800"
		ann["hami.io/bind-time"] = "1795279801"
		ann["hami.io/bind-phase"] = phase_ann
	return unschedulable(mk.pod(c, name, ns, node, cts, ip, labels={"app": name.rsplit("-", 1)[0]},
		annotations=ann or None, scheduler="hami-scheduler", phase=phase), "nvidia.com/gpumem")


def hami_objects(c, legacy):
	tag = "hami-old" if legacy else "hami-gpu"
	a = [gpu_uuid(c, tag + "-1", str(i)) for i in range(2)]
	b = [gpu_uuid(c, tag + "-2", str(i)) for i in range(4)]
	devs_a = [(u, 10, 40960, 100, A100, True, 0) for u in a]
	devs_b = [(u, 10, 15360, 100, T4, i != 3, i // 2) for i, u in enumerate(b)]
	if legacy:
		reg_a = hami_legacy_register(devs_a, False)
		reg_b = hami_legacy_register(devs_b, True)
	else:
		reg_a = hami_json_register(devs_a)
		reg_b = hami_json_register(devs_b)
	objs = [
		hami_node(c, tag + "-1", "10.3.0.11", reg_a, "Reported_2026-11-21 16:59:30", 2, cordon=a[1]),
		# the device plugin stopped answering 20 minutes ago
		hami_node(c, tag + "-2", "10.3.0.12", reg_b, "Requesting_2026-11-21 16:40:00", 4, product=T4),
	]
	n1, ip1, n2, ip2 = tag + "-1", "10.3.0.11", tag + "-2", "10.3.0.12"
	objs.append(hami_pod(c, "llm-infer-0", "ml", n1, ip1,
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 10000, "nvidia.com/gpucores": 30}], [[(a[0], 10000, 30)]]))
	objs.append(hami_pod(c, "trainer-0", "ml", n1, ip1,
		[{"nvidia.com/gpu": 2, "nvidia.com/gpumem": 20000, "nvidia.com/gpucores": 50}, {"cpu": "1"}],
		[[(a[0], 20000, 50), (a[1], 20000, 50)], []]))
	objs.append(hami_pod(c, "notebook-0", "dev", n2, ip2,
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 4000}], [[(b[0], 4000, 0)]], phase_ann="allocating",
		phase="Pending"))
	objs.append(hami_pod(c, "batch-0", "dev", n2, ip2,
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 6000, "nvidia.com/gpucores": 20}], [[(b[3], 6000, 20)]]))
	objs.append(hami_pod(c, "retry-0", "dev", None, None,
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 3000}], [[(b[1], 3000, 0)]], phase_ann="failed",
		phase="Pending", node_ann=n2))
	objs.append(hami_pod(c, "waiting-0", "dev", None, None,
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 8000, "nvidia.com/gpucores": 25}], phase="Pending"))
	objs.append(hami_pod(c, "garbled-0", "dev", n2, ip2,
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 2000}], raw="%s,NVIDIA,2000:;" % b[2]))
	return objs


def s_hami(c):
	return hami_objects(c, False), {}


def s_hami_legacy(c):
	return hami_objects(c, True), {}


# --- NVIDIA device plugin: whole GPUs, time-slicing, MPS -------------------------------------------------

def gfd_labels(product, mem, count, replicas=1, strategy="none"):
	return {"nvidia.com/gpu.product": product + ("-SHARED" if replicas > 1 else ""),
		"nvidia.com/gpu.memory": str(mem), "nvidia.com/gpu.count": str(count),
		"nvidia.com/gpu.replicas": str(replicas), "nvidia.com/gpu.sharing-strategy": strategy,
		"nvidia.com/gpu.family": "ampere", "nvidia.com/cuda.driver.major": "535", "nvidia.com/mig.capable": "true",
		"nvidia.com/gpu.present": "true"}


def nv_pod(c, name, ns, node, ip, n, res="nvidia.com/gpu", phase="Running"):
	return unschedulable(mk.pod(c, name, ns, node, [mk.container("cuda", CUDA, {res: n}, command=["sleep", "infinity"])],
		ip, labels={"app": name.rsplit("-", 1)[0]}, phase=phase), res)


def nvidia_objects(c):
	objs = [
		mk.node(c, "ts-a100-1", "10.4.0.11", gfd_labels(A100, 40960, 8, 10, "time-slicing"),
			{"nvidia.com/gpu": "80"}, cpu="128"),
		mk.node(c, "mps-a100-1", "10.4.0.12", gfd_labels(A100, 40960, 2, 4, "mps"),
			{"nvidia.com/gpu.shared": "8"}, cpu="64"),
		mk.node(c, "whole-t4-1", "10.4.0.13", gfd_labels(T4, 15360, 4), {"nvidia.com/gpu": "4"},
			{"nvidia.com/gpu": "3"}, cpu="32"),
	]
	objs += [nv_pod(c, "jupyter-%d" % i, "research", "ts-a100-1", "10.4.0.11", 1) for i in range(3)]
	objs.append(nv_pod(c, "sweep-0", "research", "ts-a100-1", "10.4.0.11", 4))
	objs.append(nv_pod(c, "mps-client-0", "research", "mps-a100-1", "10.4.0.12", 1, "nvidia.com/gpu.shared"))
	objs.append(nv_pod(c, "resnet-0", "vision", "whole-t4-1", "10.4.0.13", 2))
	objs.append(nv_pod(c, "resnet-1", "vision", None, None, 2, phase="Pending"))
	return objs


def s_nvidia_timeslicing(c):
	return nvidia_objects(c), {}


# --- a cluster with every scheme -------------------------------------------------------------------------

def s_mixed(c):
	objs = []
	# Alibaba cGPU
	objs.append(mk.gpushare_node(c, "cgpu-v100-1", "10.9.0.11", 15, 1, dict(mk.V100, **{
		"ack.node.gpu.schedule": "cgpu", "aliyun.accelerator/nvidia_count": "1",
		"alibabacloud.com/nodepool-id": "np-cgpu"})))
	objs.append(mk.gpu_pod(c, "cgpu-app-0", "default", "cgpu-v100-1", "10.9.0.11", 4, 0, 15))
	# Huawei CCE
	objs.append(cce_node(c, "cce-v100-1", "10.9.0.12", 1, 126, labels={"accelerator": "nvidia-v100"}))
	objs.append(cce_pod(c, "gpu-app-6d8f9b7c5d-x2k4q", "cce-v100-1", "10.9.0.12",
		{"volcano.sh/gpu-mem.128Mi": 40, "volcano.sh/gpu-core.percentage": 25}))
	# HAMi
	h = [gpu_uuid(c, "hami-a100-1", str(i)) for i in range(2)]
	objs.append(hami_node(c, "hami-a100-1", "10.9.0.13",
		hami_json_register([(u, 10, 40960, 100, A100, True, 0) for u in h]), "Reported_2026-11-21 16:59:30", 2))
	objs.append(hami_pod(c, "llm-infer-0", "ml", "hami-a100-1", "10.9.0.13",
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 10000, "nvidia.com/gpucores": 30}], [[(h[1], 10000, 30)]]))
	# NVIDIA time-slicing
	objs.append(mk.node(c, "ts-t4-1", "10.9.0.14", gfd_labels(T4, 15360, 1, 4, "time-slicing"),
		{"nvidia.com/gpu": "4"}, cpu="16"))
	objs.append(nv_pod(c, "jupyter-0", "research", "ts-t4-1", "10.9.0.14", 1))
	# a CPU node: not shown
	objs.append(mk.node(c, "cpu-1", "10.9.0.15", {"node-role": "cpu"}, cpu="16"))
	return objs, {}


SCENARIOS = {
	"cce-multi": s_cce_multi,
	"volcano-vgpu": s_volcano_vgpu,
	"hami": s_hami,
	"hami-legacy": s_hami_legacy,
	"nvidia-timeslicing": s_nvidia_timeslicing,
	"mixed": s_mixed,
}


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "fixtures", "scenarios"))
	ap.add_argument("names", nargs="*")
	a = ap.parse_args()
	for n in a.names or sorted(SCENARIOS):
		if n not in SCENARIOS:
			print("mkschemes: unknown scenario %s" % n, file=sys.stderr)
			return 1
		mk.SCENARIOS[n] = SCENARIOS[n]
		mk.write_scenario(os.path.normpath(a.out), n)
	return 0


if __name__ == "__main__":
	sys.exit(main())
