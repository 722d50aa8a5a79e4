#!/usr/bin/env python3
"""Builds the fixture scenarios in fixtures/scenarios/ from compact descriptions.

    python3 tests/fakeapi/mkfixtures.py [--out fixtures/scenarios] [NAME...]

Every object gets what a real API server returns (uid, resourceVersion, creationTimestamp, managedFields,
node conditions/addresses/nodeInfo, pod conditions/containerStatuses/qosClass), and everything is
deterministic: UIDs are derived from the scenario and object names, so running it again gives the same files.
fakeapi.py also imports generate() from here for `--scenario gen:...` (large synthetic clusters).

This module holds the scenarios and writes their files; the object builders are in mkfixtures_objects.py,
the generator of large clusters in mkfixtures_gen.py, and both are named here too.
"""

import argparse
import json
import os
import sys

# The object builders and the generator of large clusters live beside this module; their names are its
# names too, for fakeapi.py, tests/e2e/mkschemes.py and tests/bench/bench.py.
from mkfixtures_gen import generate  # noqa: F401
from mkdra import SCENARIOS as DRA_SCENARIOS
from mkfixtures_objects import (V100, Ctx, container, daemonset, ds_pods, event, gpu_annotations, gpu_pod,
	gpushare_node, node, pod)


# ---------------------------------------------------------------------------------------------------------
# Scenarios


def s_seed002(c, empty=False):
	n = gpushare_node(c, "cn-hangzhou.192.168.2.167", "192.168.2.167", 15, 1,
		dict(V100, cgpu="true", **{"topology.kubernetes.io/region": "cn-hangzhou",
			"aliyun.accelerator/nvidia_count": "1"}))
	objs = [n]
	if not empty:
		for i in range(2):
			objs.append(gpu_pod(c, "app-3g-v1-%d" % i, "default", "cn-hangzhou.192.168.2.167", "192.168.2.167", 4, 0, 15,
				image="registry.cn-shanghai.aliyuncs.com/tensorflow-samples/cuda-malloc:3G",
				labels={"app": "app-3g-v1", "controller-revision-hash": "app-3g-v1-6f9c6b7d8",
					"statefulset.kubernetes.io/pod-name": "app-3g-v1-%d" % i}, container_name="app-3g-v1"))
	return objs, {}


def s_usage(c):
	"""Allocated beside used (fixtures/metrics/usage holds what the GPU exporters say): the guide's two 3-GiB
	pods sharing one card with isolation, its 6-GiB application asking for 4 GiB on a node without isolation,
	its 3.4-GB application holding a whole 16-GB card, and a two-GPU node with an idle pod and memory used on a
	GPU nothing was allocated on."""
	region = {"topology.kubernetes.io/region": "cn-hangzhou"}
	a = gpushare_node(c, "cn-hangzhou.192.168.2.167", "192.168.2.167", 15, 1, dict(V100, cgpu="true", **region))
	b = gpushare_node(c, "cn-hangzhou.192.168.2.168", "192.168.2.168", 15, 1, dict(V100, gpushare="true", **region))
	whole = node(c, "cn-hangzhou.192.168.2.169", "192.168.2.169", dict(region, **{
		"nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB", "nvidia.com/gpu.memory": "16160",
		"nvidia.com/gpu.count": "1", "nvidia.com/gpu.present": "true"}), {"nvidia.com/gpu": "1"})
	two = gpushare_node(c, "cn-hangzhou.192.168.2.170", "192.168.2.170", 30, 2, dict(V100, cgpu="true", **region))
	objs = [a, b, whole, two]
	for i in range(2):
		objs.append(gpu_pod(c, "app-3g-v1-%d" % i, "default", a["metadata"]["name"], "192.168.2.167", 4, 0, 15,
			image="registry.cn-shanghai.aliyuncs.com/tensorflow-samples/cuda-malloc:3G",
			labels={"app": "app-3g-v1", "statefulset.kubernetes.io/pod-name": "app-3g-v1-%d" % i},
			container_name="app-3g-v1"))
	objs.append(gpu_pod(c, "app-6g-v1-0", "default", b["metadata"]["name"], "192.168.2.168", 4, 0, 15,
		image="registry.cn-shanghai.aliyuncs.com/tensorflow-samples/cuda-malloc:6G",
		labels={"app": "app-6g-v1", "statefulset.kubernetes.io/pod-name": "app-6g-v1-0"}, container_name="app-6g-v1"))
	objs.append(pod(c, "app-3g-v1-0", "whole", whole["metadata"]["name"], [container("app-3g-v1",
		"registry.cn-shanghai.aliyuncs.com/tensorflow-samples/cuda-malloc:3G", {"nvidia.com/gpu": 1})],
		"192.168.2.169", labels={"app": "app-3g-v1"}))
	objs.append(gpu_pod(c, "notebook-0", "ml", two["metadata"]["name"], "192.168.2.170", 8, 0, 15,
		labels={"app": "notebook"}, container_name="notebook"))
	return objs, {}


def pools_nodes(c, basic):
	nodes = []
	ips = ["192.168.7.157", "192.168.7.158", "192.168.7.159", "192.168.7.160"]
	for i, ip in enumerate(ips):
		iso = i < 2
		pool = "cgpu" if iso else "cgpu-no-isolation"
		labels = dict(V100, **{"aliyun.accelerator/nvidia_count": "1", "topology.kubernetes.io/region": "cn-shanghai",
			"topology.kubernetes.io/zone": "cn-shanghai-%s" % ("b" if i % 2 == 0 else "g"),
			"alibabacloud.com/nodepool-id": "np-" + pool})
		if basic:
			labels["cgpu"] = "true"
			labels["cgpu.disable.isolation"] = "false" if iso else "true"
		else:
			labels["ack.node.gpu.schedule"] = "cgpu" if iso else "share"
			labels["ack.node.gpu.placement"] = "binpack"
		nodes.append(gpushare_node(c, "cn-shanghai." + ip, ip, 15, 1, labels))
	return nodes


def pools_pods(c, nodes, basic):
	sel_iso = {"cgpu.disable.isolation": "false"} if basic else {"ack.node.gpu.schedule": "cgpu"}
	sel_share = {"cgpu.disable.isolation": "true"} if basic else {"ack.node.gpu.schedule": "share"}

	def ip(n):
		return n["status"]["addresses"][0]["address"]

	return [
		gpu_pod(c, "cgpu-test-0", "default", nodes[0]["metadata"]["name"], ip(nodes[0]), 3, 0, 15,
			labels={"app": "cgpu-test", "statefulset.kubernetes.io/pod-name": "cgpu-test-0"}, node_selector=sel_iso,
			container_name="cgpu-test"),
		gpu_pod(c, "cgpu-test-no-isolation-0", "default", nodes[2]["metadata"]["name"], ip(nodes[2]), 3, 0, 15,
			labels={"app": "cgpu-test-no-isolation", "statefulset.kubernetes.io/pod-name": "cgpu-test-no-isolation-0"},
			node_selector=sel_share, container_name="cgpu-test-no-isolation"),
		gpu_pod(c, "no-selector-job-0", "default", nodes[3]["metadata"]["name"], ip(nodes[3]), 2, 0, 15,
			labels={"job-name": "no-selector-job", "controller-uid": c.uid("job", "no-selector-job")},
			container_name="no-selector-job"),
	]


def s_pools_pro(c):
	nodes = pools_nodes(c, False)
	objs = nodes + pools_pods(c, nodes, False)
	lbl = {"app": "gpushare", "component": "gpushare-device-plugin"}
	for name, sel, cmd in [
			("gpushare-device-plugin-ds", {"ack.node.gpu.schedule": "share"}, None),
			("cgpu-installer", {"ack.node.gpu.schedule": "cgpu"}, ["/usr/bin/cgpu-installer"]),
			("gpushare-core-device-plugin-ds", {"ack.node.gpu.schedule": "core_mem"}, None),
			("gpushare-mps-device-plugin-ds", {"ack.node.gpu.schedule": "mps"}, None)]:
		on = [n for n in nodes if all(n["metadata"]["labels"].get(k) == v for k, v in sel.items())]
		ds = daemonset(c, name, "kube-system", dict(lbl, name=name), sel, command=cmd, nodes=len(on))
		objs.append(ds)
		objs.extend(ds_pods(c, ds, on))
	# In ACK Pro the isolated pool also runs the device plugin (cgpu mode); it is the same DaemonSet image.
	ds = daemonset(c, "gpushare-cgpu-device-plugin-ds", "kube-system", dict(lbl, name="gpushare-cgpu-device-plugin-ds"),
		{"ack.node.gpu.schedule": "cgpu"}, nodes=2)
	objs.append(ds)
	objs.extend(ds_pods(c, ds, nodes[:2]))
	return objs, {}


def s_pools_basic(c):
	nodes = pools_nodes(c, True)
	objs = nodes + pools_pods(c, nodes, True)
	lbl = {"app": "gpushare", "component": "gpushare-device-plugin"}
	ds = daemonset(c, "gpushare-device-plugin-ds", "kube-system", dict(lbl, name="gpushare-device-plugin-ds"),
		{"cgpu": "true"}, nodes=4)
	objs.append(ds)
	objs.extend(ds_pods(c, ds, nodes))
	rec = daemonset(c, "device-plugin-recover-ds", "kube-system", {"app": "gpushare", "name": "device-plugin-recover-ds",
		"component": "device-plugin-recover"}, {"cgpu": "false"}, command=["/usr/bin/recover"], nodes=0)
	objs.append(rec)
	return objs, {}


def s_opensource(c):
	nodes = [gpushare_node(c, "gpu-node-%d" % i, "10.0.2.%d" % (10 + i), 31, 2, {"gpushare": "true",
		"aliyun.accelerator/nvidia_name": "Tesla-T4", "aliyun.accelerator/nvidia_mem": "15109MiB",
		"aliyun.accelerator/nvidia_count": "2"}) for i in range(1, 3)]
	nodes.append(node(c, "cpu-node-1", "10.0.2.21", {"node-role": "cpu"}))
	objs = list(nodes)
	objs.append(gpu_pod(c, "binpack-1-0", "default", "gpu-node-1", "10.0.2.11", 2, 0, 15,
		labels={"app": "binpack-1"}, container_name="binpack-1"))
	objs.append(gpu_pod(c, "binpack-1-1", "default", "gpu-node-1", "10.0.2.11", 2, 1, 15,
		labels={"app": "binpack-1"}, container_name="binpack-1"))
	objs.append(gpu_pod(c, "tf-serving-0", "ml", "gpu-node-2", "10.0.2.12", 7, 0, 15,
		labels={"app": "tf-serving"}, container_name="serving"))
	ds = daemonset(c, "gpushare-device-plugin-ds", "kube-system", {"name": "gpushare-device-plugin-ds",
		"component": "gpushare-device-plugin", "app": "gpushare"}, {"gpushare": "true"}, nodes=2)
	objs.append(ds)
	objs.extend(ds_pods(c, ds, nodes[:2]))
	return objs, {}


def s_published_two_nodes(c):
	b = "cn-shanghai.i-uf61h64dz1tmlob9hmtb"
	cc = "cn-shanghai.i-uf61h64dz1tmlob9hmtc"
	objs = [gpushare_node(c, b, "192.168.0.71", 15, 1, {"cgpu": "true"}),
		gpushare_node(c, cc, "192.168.0.70", 15, 1, {"cgpu": "true"})]
	objs.append(gpu_pod(c, "binpack-1-0", "default", b, "192.168.0.71", 2, 0, 15, labels={"app": "binpack-1"},
		container_name="binpack-1"))
	objs.append(gpu_pod(c, "binpack-2-0", "default", b, "192.168.0.71", 4, 0, 15, labels={"app": "binpack-2"},
		container_name="binpack-2"))
	objs.append(gpu_pod(c, "binpack-3-0", "default", cc, "192.168.0.70", 3, 0, 15, labels={"app": "binpack-3"},
		container_name="binpack-3"))
	return objs, {}


def s_published_mib(c):
	objs = [gpushare_node(c, "master", "192.168.4.15", 44712, 4, {"gpushare": "true"}),
		gpushare_node(c, "node6", "192.168.4.16", 44712, 4, {"gpushare": "true"})]
	# Bound by the scheduler but not yet given a GPU index: shown in the PENDING column.
	objs.append(gpu_pod(c, "mib-job-0", "default", "master", "192.168.4.15", 9480, None, 11178, phase="Pending",
		assigned=False, labels={"app": "mib-job"}, container_name="mib-job"))
	objs.append(gpu_pod(c, "mib-job-1", "default", "master", "192.168.4.15", 9480, None, 11178, phase="Pending",
		assigned=False, labels={"app": "mib-job"}, container_name="mib-job"))
	return objs, {}


def s_two_gpu(c):
	return [gpushare_node(c, "cn-beijing.192.168.3.20", "192.168.3.20", 14, 2, {"cgpu": "true",
		"aliyun.accelerator/nvidia_count": "2", "aliyun.accelerator/nvidia_name": "Tesla-P4",
		"aliyun.accelerator/nvidia_mem": "7611MiB"})], {}


def s_unlabelled(c):
	"""A node that offers shared GPU memory without any edition's mode label, beside one labelled cgpu=true."""
	return [gpushare_node(c, "gpu-unlabelled", "10.0.5.1", 15, 1, {}),
		gpushare_node(c, "gpu-labelled", "10.0.5.2", 15, 1, {"cgpu": "true"})], {}


def s_multi_gpu(c):
	n2 = gpushare_node(c, "gpu-2x", "10.0.3.2", 30, 2, {"cgpu": "true", "aliyun.accelerator/nvidia_count": "2"})
	n4 = gpushare_node(c, "gpu-4x", "10.0.3.4", 64, 4, {"cgpu": "true", "aliyun.accelerator/nvidia_count": "4"},
		allocatable={"aliyun.com/gpu-mem": "60"})
	n8 = gpushare_node(c, "gpu-8x", "10.0.3.8", 128, 8, {"ack.node.gpu.schedule": "core_mem",
		"aliyun.accelerator/nvidia_count": "8"}, extra={"aliyun.com/gpu-core.percentage": "800"})
	nz = gpushare_node(c, "gpu-zero", "10.0.3.9", 16, 1, {"cgpu": "true"}, allocatable={"aliyun.com/gpu-mem": "0"})
	objs = [n2, n4, n8, nz]
	img = "cheyang/gpu-player:v2"

	# Two containers on GPU 1 of gpu-2x through the gpushare 2.0 allocation annotation.
	p = pod(c, "multi-ctr-0", "default", "gpu-2x", [container("small", img, {"aliyun.com/gpu-mem": 1}),
		container("large", img, {"aliyun.com/gpu-mem": 7})], "10.0.3.2", labels={"app": "multi-ctr"},
		annotations=dict(gpu_annotations(1, 15, 8), **{
			"scheduler.framework.gpushare.allocation": '{"0":{"1":1},"1":{"1":7}}'}))
	objs.append(p)
	# Init container memory must not count: the pod uses 2 on GPU 0.
	objs.append(pod(c, "init-gpu-0", "default", "gpu-2x", [container("main", img, {"aliyun.com/gpu-mem": 2})],
		"10.0.3.2", labels={"app": "init-gpu"}, annotations=gpu_annotations(0, 15, 2),
		init_containers=[container("warmup", img, {"aliyun.com/gpu-mem": 5})]))
	objs.append(gpu_pod(c, "done-job-0", "default", "gpu-2x", "10.0.3.2", 3, 1, 15, phase="Succeeded",
		labels={"job-name": "done-job"}, container_name="done-job"))
	objs.append(gpu_pod(c, "failed-job-0", "default", "gpu-2x", "10.0.3.2", 3, 0, 15, phase="Failed",
		labels={"job-name": "failed-job"}, container_name="failed-job"))
	# A pod spread over two GPUs of gpu-4x (pod label aliyun.com/gpu-count).
	objs.append(gpu_pod(c, "spread-2gpu-0", "ml", "gpu-4x", "10.0.3.4", 8, 0, 15,
		labels={"app": "spread-2gpu", "aliyun.com/gpu-count": "2"}, container_name="trainer",
		extra_annotations={"scheduler.framework.gpushare.allocation": '{"0":{"0":4,"1":4}}'}))
	objs.append(gpu_pod(c, "assumed-0", "ml", "gpu-4x", "10.0.3.4", 6, 2, 15, phase="Pending", assigned=False,
		labels={"app": "assumed"}, container_name="assumed"))
	objs.append(gpu_pod(c, "no-index-0", "ml", "gpu-4x", "10.0.3.4", 5, None, 15, labels={"app": "no-index"},
		container_name="no-index"))
	objs.append(gpu_pod(c, "unscheduled-0", "ml", None, None, 4, None, 15, phase="Pending",
		labels={"app": "unscheduled"}, container_name="unscheduled"))
	# GPU 3 of gpu-8x is over-allocated: 10 + 10 on a 16 GiB card.
	objs.append(gpu_pod(c, "overalloc-a-0", "default", "gpu-8x", "10.0.3.8", 10, 3, 16, labels={"app": "overalloc-a"},
		container_name="overalloc-a"))
	objs.append(gpu_pod(c, "overalloc-b-0", "default", "gpu-8x", "10.0.3.8", 10, 3, 16, labels={"app": "overalloc-b"},
		container_name="overalloc-b"))
	# Memory and compute shares (core_mem mode).
	core = pod(c, "core-share-0", "default", "gpu-8x", [container("core-share", img, {"aliyun.com/gpu-mem": 8,
		"aliyun.com/gpu-core.percentage": 30})], "10.0.3.8", labels={"app": "core-share"},
		annotations=dict(gpu_annotations(0, 16, 8), **{"scheduler.framework.gpushare.allocation": '{"0":{"0":8}}',
			"gpushare.alibabacloud.com/core-percentage": '{"0":{"0":30}}'}))
	objs.append(core)
	objs.append(pod(c, "two-ctr-0", "default", "gpu-8x", [container("a", img, {"aliyun.com/gpu-mem": 2}),
		container("b", img, {"aliyun.com/gpu-mem": 3})], "10.0.3.8", labels={"app": "two-ctr"},
		annotations=gpu_annotations(1, 16, 5)))
	objs.append(gpu_pod(c, "zero-node-0", "default", "gpu-zero", "10.0.3.9", 2, 0, 16, labels={"app": "zero-node"},
		container_name="zero-node"))
	objs.append(pod(c, "cpu-only-0", "default", "gpu-2x", [container("web", "nginx:1.25", {"cpu": "500m",
		"memory": "256Mi"})], "10.0.3.2", labels={"app": "cpu-only"}))
	return objs, {}


def s_empty(c):
	objs = [node(c, "worker-1", "10.0.4.1"), node(c, "worker-2", "10.0.4.2")]
	objs.append(pod(c, "web-0", "default", "worker-1", [container("web", "nginx:1.25", {"cpu": "100m"})], "10.0.4.1",
		labels={"app": "web"}))
	return objs, {}


def s_lightweight(c):
	labels = {"aliyun.accelerator/nvidia_count": "1", "aliyun.accelerator/nvidia_mem": "2048MiB",
		"aliyun.accelerator/nvidia_name": "GRID-P4-2Q", "node.kubernetes.io/instance-type": "ecs.vgn5i-m1.large"}
	objs = [node(c, "cn-hangzhou.192.168.0.%d" % i, "192.168.0.%d" % i, labels, {"nvidia.com/gpu": "1"}, cpu="2",
		memory="7910136Ki") for i in (201, 202)]
	objs.append(pod(c, "cuda-sample-79f9fc9cc5-hlpp5", "default", "cn-hangzhou.192.168.0.201",
		[container("cuda-sample", "nvidia/cuda:9.0-cudnn7-devel-ubuntu16.04", {"nvidia.com/gpu": 1},
			command=["tail", "-f", "/dev/null"])], "192.168.0.201",
		labels={"app": "cuda-sample", "pod-template-hash": "79f9fc9cc5"}, generate_name="cuda-sample-79f9fc9cc5-",
		node_selector={"aliyun.accelerator/nvidia_mem": "2048MiB"}))
	return objs, {}


def s_cce(c):
	n = node(c, "192.168.0.88", "192.168.0.88", {"accelerator": "nvidia-v100", "os.name": "EulerOS_2.0_SP9x86_64",
		"node.kubernetes.io/instance-type": "p2s.2xlarge.8", "topology.kubernetes.io/region": "cn-north-4"},
		{"nvidia.com/gpu": "1", "volcano.sh/gpu-mem.128Mi": "126", "volcano.sh/gpu-core.percentage": "100"}, cpu="8",
		memory="65655932Ki")
	objs = [n]
	objs.append(pod(c, "gpu-app-6d8f9b7c5d-x2k4q", "default", "192.168.0.88",
		[container("container-1", "swr.cn-north-4.myhuaweicloud.com/demo/cuda:11.4", {"volcano.sh/gpu-mem.128Mi": 40})],
		"192.168.0.88", labels={"app": "gpu-app", "pod-template-hash": "6d8f9b7c5d"}, scheduler="volcano",
		generate_name="gpu-app-6d8f9b7c5d-"))
	objs.append(pod(c, "gpu-app-core-7b9c8d6f4-m8n2p", "default", "192.168.0.88",
		[container("container-1", "swr.cn-north-4.myhuaweicloud.com/demo/cuda:11.4", {"volcano.sh/gpu-mem.128Mi": 40,
			"volcano.sh/gpu-core.percentage": 25})], "192.168.0.88",
		labels={"app": "gpu-app-core", "pod-template-hash": "7b9c8d6f4"}, scheduler="volcano",
		generate_name="gpu-app-core-7b9c8d6f4-"))
	return objs, {}


def s_selectors(c):
	objs = []
	zones = ["cn-shanghai-b", "cn-shanghai-g", "cn-shanghai-l"]
	pools = [("np-cgpu", {"ack.node.gpu.schedule": "cgpu", "ack.node.gpu.placement": "binpack"}),
		("np-share", {"ack.node.gpu.schedule": "share", "ack.node.gpu.placement": "spread"}),
		("np-exclusive", {"ack.node.gpu.schedule": "default"}),
		("np-cpu", {})]
	for i in range(12):
		pool, extra = pools[i % 4]
		labels = dict(extra, **{"alibabacloud.com/nodepool-id": pool, "topology.kubernetes.io/region": "cn-shanghai",
			"topology.kubernetes.io/zone": zones[i % 3], "tier": ["gold", "silver", "bronze"][i % 3]})
		if i % 5 == 0:
			labels["maintenance"] = "true"
		name = "node-%02d" % i
		ip = "10.1.0.%d" % (10 + i)
		if pool == "np-cpu":
			objs.append(node(c, name, ip, labels, unschedulable=(i == 7)))
		else:
			labels.update(V100)
			objs.append(gpushare_node(c, name, ip, 15, 1, labels, unschedulable=(i == 5)))
	phases = ["Running", "Running", "Pending", "Succeeded", "Failed"]
	for i in range(15):
		nname = "node-%02d" % (i % 12)
		ns = ["default", "ml", "kube-system"][i % 3]
		ph = phases[i % 5]
		ip = "10.1.0.%d" % (10 + i % 12)
		if i % 4 == 3:
			objs.append(pod(c, "web-%d" % i, ns, nname, [container("web", "nginx:1.25", {"cpu": "100m"})], ip,
				labels={"app": "web", "tier": ["gold", "silver"][i % 2]}, phase=ph))
		else:
			objs.append(gpu_pod(c, "train-%d" % i, ns, nname, ip, 1 + i % 4, None if ph == "Pending" else 0, 15,
				labels={"app": "train", "team": ["a", "b", "c"][i % 3]}, phase=ph, assigned=ph != "Pending",
				container_name="train"))
	return objs, {}


def s_demo(c):
	"""The bundled demo cluster: the two node pools of the ACK Pro guide beside
	multi-GPU nodes with pending, unscheduled and over-allocated pods."""
	pools, _ = s_pools_pro(c)
	multi, _ = s_multi_gpu(c)
	return pools + multi, {}


SCENARIOS = {
	"demo": s_demo,
	"seed002": s_seed002,
	"seed002-empty": lambda c: s_seed002(c, empty=True),
	"usage": s_usage,
	"pools-pro": s_pools_pro,
	"pools-basic": s_pools_basic,
	"opensource": s_opensource,
	"published-two-nodes": s_published_two_nodes,
	"published-mib": s_published_mib,
	"two-gpu": s_two_gpu,
	"multi-gpu": s_multi_gpu,
	"unlabelled": s_unlabelled,
	"empty": s_empty,
	"lightweight": s_lightweight,
	"cce": s_cce,
	"selectors": s_selectors,
}


def s_fit(c):
	"""Where would a pod fit: fragmented GPUs, cordoned, NotReady and tainted nodes, pools with selectors, and a
	node of every other scheme (built with tests/e2e/mkschemes.py's builders)."""
	sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
	import mkschemes as ms
	share = dict(V100, **{"ack.node.gpu.schedule": "share", "alibabacloud.com/nodepool-id": "np-share",
		"aliyun.accelerator/nvidia_count": "2"})
	iso = dict(V100, **{"ack.node.gpu.schedule": "cgpu", "alibabacloud.com/nodepool-id": "np-cgpu",
		"aliyun.accelerator/nvidia_count": "2", "ack.node.gpu.placement": "spread"})
	taint = [{"key": "dedicated", "value": "training", "effect": "NoSchedule"}]
	objs = [
		gpushare_node(c, "share-a", "10.6.0.1", 30, 2, share),
		gpushare_node(c, "share-b", "10.6.0.2", 30, 2, share),
		gpushare_node(c, "share-cordoned", "10.6.0.3", 30, 2, share, unschedulable=True),
		gpushare_node(c, "share-notready", "10.6.0.4", 30, 2, share, ready=False),
		gpushare_node(c, "share-tainted", "10.6.0.5", 30, 2, dict(share, **{"alibabacloud.com/nodepool-id": "np-train"}),
			taints=taint),
		gpushare_node(c, "cgpu-a", "10.6.0.6", 30, 2, iso),
	]
	# Fragmented: 15 GiB cards with 9 and 8 GiB used on share-a, 11 and 4 on share-b: 24 GiB free in the pool
	# but at most 11 on one GPU.
	for name, on, ip, mem, idx in (("train-a", "share-a", "10.6.0.1", 9, 0), ("train-b", "share-a", "10.6.0.1", 8, 1),
			("infer-a", "share-b", "10.6.0.2", 11, 0), ("infer-b", "share-b", "10.6.0.2", 4, 1),
			("tune-a", "cgpu-a", "10.6.0.6", 6, 0)):
		# train-*: a Deployment's pods (through its ReplicaSet); infer-*: a StatefulSet's; tune-a: a bare pod
		owner, labels = None, {"app": name}
		if name.startswith("train"):
			labels["pod-template-hash"] = "5d8c7b9f4"
			owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "train-5d8c7b9f4",
				"uid": c.uid("rs", "ml", "train-5d8c7b9f4"), "controller": True, "blockOwnerDeletion": True}
		elif name.startswith("infer"):
			owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "infer",
				"uid": c.uid("sts", "ml", "infer"), "controller": True, "blockOwnerDeletion": True}
		objs.append(gpu_pod(c, name + "-0", "ml", on, ip, mem, idx, 15, labels=labels, container_name=name,
			owner=owner))
	# A Deployment's pod asking 12 GiB in the share pool: Pending, with the scheduler's word for it.
	dep = pod(c, "bigmodel-7c9d8f6b5-x7k2p", "ml", None, [container("bigmodel", "cheyang/gpu-player:v2",
		{"aliyun.com/gpu-mem": 12})], labels={"app": "bigmodel", "pod-template-hash": "7c9d8f6b5"},
		node_selector={"alibabacloud.com/nodepool-id": "np-share"}, phase="Pending",
		generate_name="bigmodel-7c9d8f6b5-",
		owner={"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "bigmodel-7c9d8f6b5",
			"uid": c.uid("rs", "ml", "bigmodel-7c9d8f6b5"), "controller": True, "blockOwnerDeletion": True})
	objs.append(dep)
	objs.append(event(c, "bigmodel-7c9d8f6b5-x7k2p.1801", "ml", dep["metadata"]["name"],
		"0/10 nodes are available: 1 node(s) had untolerated taint {dedicated: training}, 1 node(s) had "
		"untolerated taint {node.kubernetes.io/unreachable: }, 1 node(s) were unschedulable, 3 node(s) didn't "
		"match Pod's node affinity/selector, 4 Insufficient aliyun.com/gpu-mem.", "2026-11-21T16:20:00Z", 4))
	objs.append(event(c, "bigmodel-7c9d8f6b5-x7k2p.1800", "ml", dep["metadata"]["name"],
		"0/10 nodes are available: 10 Insufficient aliyun.com/gpu-mem.", "2026-11-21T16:13:00Z"))
	# every other scheme: HAMi (one device cordoned), Volcano vGPU, CCE, whole GPUs
	h = [ms.gpu_uuid(c, "fit-hami", str(i)) for i in range(2)]
	objs.append(ms.hami_node(c, "hami-1", "10.6.1.1", ms.hami_json_register([(u, 4, 40960, 100, ms.A100, True, 0)
		for u in h]), "Reported_2026-11-21 16:59:30", 2, split=4, cordon=h[1]))
	objs.append(ms.hami_pod(c, "llm-0", "ml", "hami-1", "10.6.1.1",
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 30000, "nvidia.com/gpucores": 60}], [[(h[0], 30000, 60)]]))
	v = [ms.gpu_uuid(c, "fit-volc", str(i)) for i in range(2)]
	objs.append(ms.vgpu_node(c, "volc-1", "10.6.2.1", [(u, 2, 16384, ms.T4, True, "hami-core") for u in v]))
	objs.append(ms.vgpu_pod(c, "vjob-0", "ml", "volc-1", "10.6.2.1", [(1, 8000, 50)], [[(v[0], 8000, 50)]]))
	objs.append(ms.vgpu_pod(c, "vjob-1", "ml", "volc-1", "10.6.2.1", [(1, 4000, 20)], [[(v[0], 4000, 20)]]))
	objs.append(ms.cce_node(c, "cce-1", "10.6.3.1", 2, 128))
	objs.append(ms.cce_pod(c, "cce-app-0", "cce-1", "10.6.3.1", {"volcano.sh/gpu-mem.128Mi": 100,
		"volcano.sh/gpu-core.percentage": 50}))
	objs.append(node(c, "whole-1", "10.6.4.1", ms.gfd_labels(ms.T4, 15360, 4), {"nvidia.com/gpu": "4"}))
	objs.append(ms.nv_pod(c, "render-0", "vision", "whole-1", "10.6.4.1", 3))
	# Pending for its required node affinity alone: 4 GiB would fit on three GPUs, but no node is in its zone
	# (or has the eight cards its second term asks for).
	objs.append(pod(c, "zonal-0", "ml", None, [container("zonal", "cheyang/gpu-player:v2", {"aliyun.com/gpu-mem": 4})],
		labels={"app": "zonal"}, phase="Pending", required_terms=[
			{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
				"values": ["cn-hangzhou-k", "cn-hangzhou-j"]}]},
			{"matchExpressions": [{"key": "aliyun.accelerator/nvidia_count", "operator": "Gt", "values": ["7"]},
				{"key": "ack.node.gpu.schedule", "operator": "Exists"}]}]))
	return objs, {}


SCENARIOS["fit"] = s_fit
# Dynamic Resource Allocation (mkdra.py)
SCENARIOS.update(DRA_SCENARIOS)


# ---------------------------------------------------------------------------------------------------------
# Files


def as_lists(objs):
	"""Splits objects into the NodeList/PodList/DaemonSetList files a real server would return."""
	kinds = [("Node", "NodeList", "v1", "nodes.json"), ("Pod", "PodList", "v1", "pods.json"),
		("DaemonSet", "DaemonSetList", "apps/v1", "daemonsets.json"), ("Event", "EventList", "v1", "events.json")]
	kinds += [(k, k + "List", "resource.k8s.io/v1", f) for k, f in (("ResourceSlice", "resourceslices.json"),
		("ResourceClaim", "resourceclaims.json"), ("ResourceClaimTemplate", "resourceclaimtemplates.json"),
		("DeviceClass", "deviceclasses.json"))]
	rv = max(int(o["metadata"]["resourceVersion"]) for o in objs) + 1 if objs else 1
	out = {}
	for kind, lkind, api, fname in kinds:
		items = []
		for o in objs:
			if o["kind"] == kind:
				items.append({k: v for k, v in o.items() if k not in ("kind", "apiVersion")})
		items.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
		if items or kind in ("Node", "Pod"):
			out[fname] = {"kind": lkind, "apiVersion": api, "metadata": {"resourceVersion": str(rv)}, "items": items}
	return out


def write_scenario(outdir, name):
	c = Ctx(name)
	objs, config = SCENARIOS[name](c)
	d = os.path.join(outdir, name)
	os.makedirs(d, exist_ok=True)
	for f in os.listdir(d):
		if f.endswith(".json"):
			os.remove(os.path.join(d, f))
	for fname, lst in as_lists(objs).items():
		with open(os.path.join(d, fname), "w", encoding="utf-8") as fh:
			json.dump(lst, fh, indent=1, ensure_ascii=False)
			fh.write("\n")
	if config:
		with open(os.path.join(d, "scenario.json"), "w", encoding="utf-8") as fh:
			json.dump(config, fh, indent=1)
			fh.write("\n")


def main():
	here = os.path.dirname(os.path.abspath(__file__))
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument("--out", default=os.path.join(here, "..", "..", "fixtures", "scenarios"))
	ap.add_argument("names", nargs="*")
	a = ap.parse_args()
	names = a.names or sorted(SCENARIOS)
	for n in names:
		if n not in SCENARIOS:
			print("mkfixtures: unknown scenario %s" % n, file=sys.stderr)
			return 1
		write_scenario(os.path.normpath(a.out), n)
	return 0


if __name__ == "__main__":
	sys.exit(main())
