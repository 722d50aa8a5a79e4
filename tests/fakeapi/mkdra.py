"""The Dynamic Resource Allocation scenarios (fixtures/scenarios/dra-*), shaped after NVIDIA's GPU DRA driver,
built with the object builders of mkfixtures_dra.py; mkfixtures.py writes them with the other scenarios.
fixtures/README.md says what each holds."""

import os
import sys

from mkfixtures_dra import (API, DRIVER, MIG_A100_40, claim, claim_template, device_class, dra_node, dra_pod,
	gpu_config, gpu_device, mig_counters, mig_device, request, resource_slice, result, share_id, suffix, unschedulable)
from mkfixtures_objects import T1, V100, event, gpu_pod, gpushare_node, node

ALL_VERSIONS = {"settings": {"resource_versions": ["v1", "v1beta2", "v1beta1"]}}
PENDING_MESSAGE = ("0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: 0/1 "
	"nodes are available: 1 Preemption is not helpful for scheduling.")
READ_DRA = {"dra-viewer": {"rules": [{"verbs": ["get", "list", "watch"], "resources": ["nodes", "pods",
	"resourceslices", "resourceclaims", "deviceclasses"]}]}}


def classes(c, extended=None):
	"""The driver's two DeviceClasses (the GPU one naming extended, the extended resource it serves)."""
	return [device_class(c, "gpu.nvidia.com", "gpu", extended), device_class(c, "mig.nvidia.com", "mig")]


def gpu_node(c, name, ip, model, count, taints=None, shared=None):
	"""A node and the one slice of its pool that publishes count GPUs (taints: {index: [taint]})."""
	n = dra_node(c, name, ip, model, count)
	devs = [gpu_device(c, name, i, model, (taints or {}).get(i), shared) for i in range(count)]
	return n, resource_slice(c, n, devs)


def ip_of(n):
	return n["status"]["addresses"][0]["address"]


def templated(c, pod_name, ns, node, template, requests, devices, ref="gpu", config=None, shares=None, **kw):
	"""A pod with one claim (ref) made from template and allocated devices (one per request, in order, on
	node's pool) reserved for it; shares: {device: (shareID, consumedCapacity)} for shared devices.
	Returns [pod, claim]."""
	nname = node["metadata"]["name"]
	uid = c.uid("pod", ns, pod_name)
	cname = "%s-%s-%s" % (pod_name, ref, suffix(c, "claim", ns, pod_name, ref))
	results = []
	for req, dev in devices:
		share, consumed = (shares or {}).get(dev, (None, None))
		results.append(result(req, nname, dev, share, consumed))
	cl = claim(c, cname, ns, requests, config=config, results=results, node=nname, reserved=[(pod_name, uid)],
		owner=(pod_name, uid), pod_claim=ref)
	p = dra_pod(c, pod_name, ns, nname, ip_of(node), [(ref, {"resourceClaimTemplateName": template}, cname)], **kw)
	return [p, cl]


def s_dra_whole(c):
	"""Whole GPUs, one claim per pod: two nodes of four A100s; ml/train-0 and -1 hold gpu-0 and gpu-1 of
	dra-a100-1, serving/infer-0 holds gpu-0 and gpu-1 of dra-a100-2 in one claim of two devices."""
	a, sa = gpu_node(c, "dra-a100-1", "10.20.0.11", "A100-80", 4)
	b, sb = gpu_node(c, "dra-a100-2", "10.20.0.12", "A100-80", 4)
	one, two = [request("gpu")], [request("gpu", count=2)]
	objs = [a, b, sa, sb] + classes(c)
	objs += [claim_template(c, "single-gpu", "ml", one), claim_template(c, "dual-gpu", "serving", two)]
	objs += templated(c, "train-0", "ml", a, "single-gpu", one, [("gpu", "gpu-0")])
	objs += templated(c, "train-1", "ml", a, "single-gpu", one, [("gpu", "gpu-1")])
	objs += templated(c, "infer-0", "serving", b, "dual-gpu", two, [("gpu", "gpu-0"), ("gpu", "gpu-1")])
	return objs, dict(ALL_VERSIONS, users=READ_DRA)


def shared_claim_scenario(c, node_name, ip, model, ns, claim_name, config, pods):
	"""One node of two GPUs; claim_name (with config) allocated gpu-0 and reserved for every pod of pods."""
	n, sl = gpu_node(c, node_name, ip, model, 2)
	reserved = [(p, c.uid("pod", ns, p)) for p in pods]
	cl = claim(c, claim_name, ns, [request("gpu")], config=config, results=[result("gpu", node_name, "gpu-0")],
		node=node_name, reserved=reserved)
	objs = [n, sl] + classes(c) + [cl]
	for p in pods:
		objs.append(dra_pod(c, p, ns, node_name, ip, [("gpu", {"resourceClaimName": claim_name}, None)]))
	return objs, dict(ALL_VERSIONS)


def s_dra_timeslicing(c):
	"""research/shared-gpu (TimeSlicing, interval Long) on gpu-0 of dra-ts-1 (two H100s), used by
	notebook-0, -1 and -2."""
	return shared_claim_scenario(c, "dra-ts-1", "10.20.1.11", "H100", "research", "shared-gpu",
		gpu_config("TimeSlicing", interval="Long"), ["notebook-0", "notebook-1", "notebook-2"])


def s_dra_mps(c):
	"""inference/mps-gpu (MPS: 50 % of the threads, 10Gi pinned memory per client) on gpu-0 of dra-mps-1 (two
	H100s), used by server-0 and server-1."""
	return shared_claim_scenario(c, "dra-mps-1", "10.20.2.11", "H100", "inference", "mps-gpu",
		gpu_config("MPS", threads=50, pinned="10Gi"), ["server-0", "server-1"])


def s_dra_consumable(c):
	"""Consumable capacity: gpu-0 of dra-share-1 (one A100 80GB, allowMultipleAllocations, memory 80Gi with a
	request policy) shared by three claims consuming 20Gi, 10Gi and 30Gi of it (60Gi)."""
	policy = {"default": "8Gi", "validRange": {"min": "1Gi", "step": "1Gi"}}
	n, sl = gpu_node(c, "dra-share-1", "10.20.3.11", "A100-80", 1, shared=policy)
	objs = [n, sl] + classes(c)
	for ns, pod_name, gib in (("team-a", "llm-0", 20), ("team-a", "llm-1", 10), ("team-b", "embed-0", 30)):
		req = [request("gpu", capacity={"memory": "%dGi" % gib})]
		tmpl = "gpu-%dgi" % gib
		objs.append(claim_template(c, tmpl, ns, req))
		shares = {"gpu-0": (share_id(c, ns, pod_name), {"memory": "%dGi" % gib})}
		objs += templated(c, pod_name, ns, n, tmpl, req, [("gpu", "gpu-0")], shares=shares)
	return objs, dict(ALL_VERSIONS)


def s_dra_mig(c):
	"""Dynamic MIG on dra-mig-1 (one A100 40GB), its pool one slice as the driver publishes it for Kubernetes
	1.34: the counter set gpu-0-counter-set, gpu-0 and its ten possible MIG devices.  ml/mig-small-0 and -1 hold
	the 1g.5gb devices at memory slices 0 and 1, ml/mig-large-0 the 3g.20gb at slices 4-7: 70 of 98
	multiprocessors, 29696Mi of 40192Mi."""
	n = dra_node(c, "dra-mig-1", "10.20.4.11", "A100-40", 1, {"nvidia.com/mig.capable": "true"})
	full = mig_counters("7g.40gb", 0)
	counter_set = {"name": "gpu-0-counter-set", "counters": full}
	devs = [gpu_device(c, "dra-mig-1", 0, "A100-40", counters={"counterSet": "gpu-0-counter-set", "counters": full})]
	for profile in ("1g.5gb", "3g.20gb", "7g.40gb"):
		devs += [mig_device(c, "dra-mig-1", 0, profile, start) for start in MIG_A100_40[profile][-1]]
	objs = [n, resource_slice(c, n, devs, shared_counters=[counter_set])] + classes(c)

	def mig_request(profile):
		return [request("mig", "mig.nvidia.com", selector="device.attributes['%s'].profile == '%s'" % (DRIVER, profile))]
	objs += [claim_template(c, "mig-1g", "ml", mig_request("1g.5gb")), claim_template(c, "mig-3g", "ml", mig_request("3g.20gb"))]
	for pod_name, tmpl, profile, start in (("mig-small-0", "mig-1g", "1g.5gb", 0), ("mig-small-1", "mig-1g", "1g.5gb", 1),
			("mig-large-0", "mig-3g", "3g.20gb", 4)):
		dev = "gpu-0-mig-%s-%d-%d" % (profile.replace(".", ""), MIG_A100_40[profile][0], start)
		objs += templated(c, pod_name, "ml", n, tmpl, mig_request(profile), [("mig", dev)], ref="mig")
	return objs, dict(ALL_VERSIONS)


def s_dra_taint(c):
	"""Tainted devices in use on dra-taint-1 (three A100 80GB): gpu-0 (gpu.nvidia.com/xid=48:NoSchedule) held by
	ml/trainer-0, gpu-1 (gpu.nvidia.com/xid=79:NoExecute) held by ml/trainer-1, whose claim does not tolerate
	it; gpu-2 untainted and free."""
	taints = {0: [{"key": DRIVER + "/xid", "value": "48", "effect": "NoSchedule", "timeAdded": T1}],
		1: [{"key": DRIVER + "/xid", "value": "79", "effect": "NoExecute", "timeAdded": T1}]}
	n, sl = gpu_node(c, "dra-taint-1", "10.20.5.11", "A100-80", 3, taints=taints)
	one = [request("gpu")]
	objs = [n, sl] + classes(c) + [claim_template(c, "single-gpu", "ml", one)]
	objs += templated(c, "trainer-0", "ml", n, "single-gpu", one, [("gpu", "gpu-0")])
	objs += templated(c, "trainer-1", "ml", n, "single-gpu", one, [("gpu", "gpu-1")])
	return objs, dict(ALL_VERSIONS)


def s_dra_incomplete(c):
	"""dra-pool-1's pool at generation 2 says two slices and one is there (gpu-0, gpu-1; ml/partial-0 holds
	gpu-0), beside the pool's generation-1 slice of four GPUs that must be ignored; dra-pool-2's pool is complete
	(one slice, gpu-0 and gpu-1; ml/steady-0 holds gpu-0)."""
	a = dra_node(c, "dra-pool-1", "10.20.6.11", "A100-80", 4)
	b, sb = gpu_node(c, "dra-pool-2", "10.20.6.12", "A100-80", 2)
	old = resource_slice(c, a, [gpu_device(c, "dra-pool-1", i, "A100-80") for i in range(4)], generation=1)
	cur = resource_slice(c, a, [gpu_device(c, "dra-pool-1", i, "A100-80") for i in range(2)], generation=2, count=2)
	one = [request("gpu")]
	objs = [a, b, old, cur, sb] + classes(c) + [claim_template(c, "single-gpu", "ml", one)]
	objs += templated(c, "partial-0", "ml", a, "single-gpu", one, [("gpu", "gpu-0")])
	objs += templated(c, "steady-0", "ml", b, "single-gpu", one, [("gpu", "gpu-0")])
	return objs, dict(ALL_VERSIONS)


def s_dra_bridged(c):
	"""A pod asking for plain nvidia.com/gpu served by DRA: the class gpu.nvidia.com names nvidia.com/gpu as its
	extended resource; default/legacy-app-0 (limits nvidia.com/gpu: 1) holds gpu-0 of dra-bridge-1 (two L4s)
	through the claim the scheduler made for it (status.extendedResourceClaimStatus); default/dra-app-0 holds
	gpu-1 through a claim of its own."""
	n, sl = gpu_node(c, "dra-bridge-1", "10.20.7.11", "L4", 2)
	objs = [n, sl] + classes(c, extended="nvidia.com/gpu")
	one = [request("gpu")]
	objs += [claim_template(c, "single-gpu", "default", one)]
	objs += templated(c, "dra-app-0", "default", n, "single-gpu", one, [("gpu", "gpu-1")])
	uid = c.uid("pod", "default", "legacy-app-0")
	cname = "legacy-app-0-extended-resources-" + suffix(c, "claim", "default", "legacy-app-0")
	req = "container-0-request-0"
	objs.append(claim(c, cname, "default", [request(req)], results=[result(req, "dra-bridge-1", "gpu-0")],
		node="dra-bridge-1", reserved=[("legacy-app-0", uid)], owner=("legacy-app-0", uid),
		annotations={"resource.kubernetes.io/extended-resource-claim": "true"}))
	p = dra_pod(c, "legacy-app-0", "default", "dra-bridge-1", "10.20.7.11", None, limits={"nvidia.com/gpu": 1})
	p["status"]["extendedResourceClaimStatus"] = {"requestMappings": [{"containerName": "cuda",
		"resourceName": "nvidia.com/gpu", "requestName": req}], "resourceClaimName": cname}
	objs.append(p)
	return objs, dict(ALL_VERSIONS)


def s_dra_leaked(c):
	"""ml/orphan-gpu, a claim of its own (not from a template), allocated gpu-1 of dra-leak-1 (two A100 80GB) and
	reserved for no pod; ml/worker-0 holds gpu-0."""
	n, sl = gpu_node(c, "dra-leak-1", "10.20.8.11", "A100-80", 2)
	one = [request("gpu")]
	objs = [n, sl] + classes(c) + [claim_template(c, "single-gpu", "ml", one)]
	objs.append(claim(c, "orphan-gpu", "ml", one, results=[result("gpu", "dra-leak-1", "gpu-1")], node="dra-leak-1"))
	objs += templated(c, "worker-0", "ml", n, "single-gpu", one, [("gpu", "gpu-0")])
	return objs, dict(ALL_VERSIONS)


def s_dra_pending(c):
	"""ml/waiting-0 is pending: its claim (from the template single-gpu) is not allocated, as dra-full-1's only
	GPU is held by ml/busy-0; the scheduler's FailedScheduling event says why."""
	n, sl = gpu_node(c, "dra-full-1", "10.20.9.11", "A100-80", 1)
	one = [request("gpu")]
	objs = [n, sl] + classes(c) + [claim_template(c, "single-gpu", "ml", one)]
	objs += templated(c, "busy-0", "ml", n, "single-gpu", one, [("gpu", "gpu-0")])
	uid = c.uid("pod", "ml", "waiting-0")
	cname = "waiting-0-gpu-" + suffix(c, "claim", "ml", "waiting-0", "gpu")
	objs.append(claim(c, cname, "ml", one, owner=("waiting-0", uid), pod_claim="gpu"))
	p = dra_pod(c, "waiting-0", "ml", None, None, [("gpu", {"resourceClaimTemplateName": "single-gpu"}, cname)],
		phase="Pending")
	objs.append(unschedulable(p, PENDING_MESSAGE))
	objs.append(event(c, "waiting-0.1872a3f4c5d6e7f8", "ml", "waiting-0", PENDING_MESSAGE, "2026-11-21T16:20:00Z", 3))
	return objs, dict(ALL_VERSIONS)


def s_dra_mixed(c):
	"""DRA beside the other schemes: dra-a100-1 (four A100 80GB, ml/train-0 holds gpu-0), a cGPU node
	cgpu-v100-1 (default/cgpu-app-0 holds 4 of 15 GiB) and a HAMi node hami-a100-1 (ml/llm-infer-0 holds 10000
	MiB of its second GPU)."""
	sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
	import mkschemes as ms
	a, sa = gpu_node(c, "dra-a100-1", "10.20.10.11", "A100-80", 4)
	one = [request("gpu")]
	objs = [a, sa] + classes(c) + [claim_template(c, "single-gpu", "ml", one)]
	objs += templated(c, "train-0", "ml", a, "single-gpu", one, [("gpu", "gpu-0")])
	objs.append(gpushare_node(c, "cgpu-v100-1", "10.20.10.12", 15, 1, dict(V100, **{"ack.node.gpu.schedule": "cgpu",
		"aliyun.accelerator/nvidia_count": "1"})))
	objs.append(gpu_pod(c, "cgpu-app-0", "default", "cgpu-v100-1", "10.20.10.12", 4, 0, 15))
	h = [ms.gpu_uuid(c, "hami-a100-1", str(i)) for i in range(2)]
	objs.append(ms.hami_node(c, "hami-a100-1", "10.20.10.13",
		ms.hami_json_register([(u, 10, 40960, 100, ms.A100, True, 0) for u in h]), "Reported_2026-11-21 16:59:30", 2))
	objs.append(ms.hami_pod(c, "llm-infer-0", "ml", "hami-a100-1", "10.20.10.13",
		[{"nvidia.com/gpu": 1, "nvidia.com/gpumem": 10000, "nvidia.com/gpucores": 30}], [[(h[1], 10000, 30)]]))
	return objs, dict(ALL_VERSIONS)


GAUDI_DRIVER = "gaudi.intel.com"


def gaudi_node(c, name, ip, count):
	"""A node of count Intel Gaudi2 accelerators published by their DRA driver: attributes, no capacity."""
	n = node(c, name, ip, {"node.kubernetes.io/instance-type": "dl1.24xlarge"}, cpu="96", memory="790273944Ki")
	devs = [{"name": "accel-%d" % i, "attributes": {"model": {"string": "Gaudi2"},
		"pciRoot": {"string": "%02x" % (0x10 + i)}, "serial": {"string": "AN%08d" % (4412000 + i)}}}
		for i in range(count)]
	return n, resource_slice(c, n, devs, driver=GAUDI_DRIVER)


def s_dra_pools(c):
	"""Devices of pools that are not one node's own, and of a driver that is not a GPU driver.  dra-a100-3
	(two A100 80GB in its own pool) is also reached by the pool dra-rack-1, placed by a nodeSelector of
	matchFields (metadata.name In [dra-a100-3]), whose one A100 80GB is named gpu-0 too: ml/train-a holds the
	node's gpu-0, ml/train-b the rack's.  dra-gaudi-1 has two Gaudi2 accelerators of gaudi.intel.com (no memory
	capacity: GPUs only when --dra-driver names the driver); ml/gaudi-0 holds accel-0."""
	a, sa = gpu_node(c, "dra-a100-3", "10.20.12.11", "A100-80", 2)
	rack = resource_slice(c, a, [gpu_device(c, "dra-rack-1", 0, "A100-80")], pool="dra-rack-1",
		selector={"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
			"values": ["dra-a100-3"]}]}]})
	g, sg = gaudi_node(c, "dra-gaudi-1", "10.20.12.12", 2)
	gaudi_class = {"kind": "DeviceClass", "apiVersion": API, "metadata": dict(device_class(c, "gaudi.intel.com",
		"gpu")["metadata"]), "spec": {"selectors": [{"cel": {"expression": "device.driver == '%s'" % GAUDI_DRIVER}}]}}
	one, accel = [request("gpu")], [request("accel", device_class_name=GAUDI_DRIVER)]
	objs = [a, sa, rack, g, sg] + classes(c) + [gaudi_class, claim_template(c, "single-gpu", "ml", one),
		claim_template(c, "single-gaudi", "ml", accel)]
	objs += templated(c, "train-a", "ml", a, "single-gpu", one, [("gpu", "gpu-0")])
	for pod_name, node_obj, tmpl, req, pool, dev, driver in (
			("train-b", a, "single-gpu", one, "dra-rack-1", "gpu-0", DRIVER),
			("gaudi-0", g, "single-gaudi", accel, "dra-gaudi-1", "accel-0", GAUDI_DRIVER)):
		nname, ref = node_obj["metadata"]["name"], req[0]["name"]
		uid = c.uid("pod", "ml", pod_name)
		cname = "%s-%s-%s" % (pod_name, ref, suffix(c, "claim", "ml", pod_name, ref))
		objs.append(claim(c, cname, "ml", req, results=[result(ref, pool, dev, driver=driver)], node=nname,
			reserved=[(pod_name, uid)], owner=(pod_name, uid), pod_claim=ref))
		objs.append(dra_pod(c, pod_name, "ml", nname, ip_of(node_obj), [(ref, {"resourceClaimTemplateName": tmpl},
			cname)]))
	return objs, dict(ALL_VERSIONS)


def versions_of(served):
	"""dra-whole's cluster (the same objects) served in other resource.k8s.io versions, or without the group."""
	def scenario(c):
		c.scenario = "dra-whole"
		objs, config = s_dra_whole(c)
		return objs, dict(config, settings={"resource_versions": list(served)})
	return scenario


SCENARIOS = {
	"dra-whole": s_dra_whole,
	"dra-timeslicing": s_dra_timeslicing,
	"dra-mps": s_dra_mps,
	"dra-consumable": s_dra_consumable,
	"dra-mig": s_dra_mig,
	"dra-taint": s_dra_taint,
	"dra-incomplete": s_dra_incomplete,
	"dra-bridged": s_dra_bridged,
	"dra-leaked": s_dra_leaked,
	"dra-pending": s_dra_pending,
	"dra-mixed": s_dra_mixed,
	"dra-pools": s_dra_pools,
	"dra-versions-v1beta1": versions_of(["v1beta1"]),
	"dra-versions-v1beta2": versions_of(["v1beta2", "v1beta1"]),
	"dra-versions-none": versions_of([]),
}
