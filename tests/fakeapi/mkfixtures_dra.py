"""The object builders of Dynamic Resource Allocation scenarios, shaped after NVIDIA's GPU DRA driver
(driver gpu.nvidia.com): GPU and MIG devices published in ResourceSlices, the DeviceClasses its chart
installs, ResourceClaims with their allocation, and pods that use them.  Objects are in the stored
(resource.k8s.io/v1) shape, with what a real server returns (uid, resourceVersion, managedFields), maps with
their keys sorted as Go writes them, quantities in canonical form, derived deterministically through a Ctx.
Part of mkfixtures (mkfixtures.py is the module to import)."""

import copy

from mkfixtures_objects import T0, T1, container, node, pod

DRIVER = "gpu.nvidia.com"
API = "resource.k8s.io/v1"
# The driver's device attributes as its release of September 2025 (v25.8) publishes them: semantic versions
# (580.82.07 is 580.82.7), the PCI root as the standard attribute.
DRIVER_VERSION = "580.82.7"
CUDA_DRIVER_VERSION = "13.0.0"
# productName, architecture, cudaComputeCapability, memory (bytes as the driver writes them: BinarySI)
GPUS = {
	"A100-40": ("NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", "40Gi"),
	"A100-80": ("NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0", "80Gi"),
	"H100": ("NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "81559Mi"),
	"L4": ("NVIDIA L4", "Ada Lovelace", "8.9.0", "23034Mi"),
}
# A100-SXM4-40GB MIG profiles: name, GPU instance profile id, multiprocessors, copy engines, decoders,
# jpeg engines, ofa engines, memory, memory slices (of 8); and the placements (first slice) each may take.
MIG_A100_40 = {
	"1g.5gb": (19, 14, 1, 0, 0, 0, "4864Mi", 1, (0, 1, 2, 3, 4, 5, 6)),
	"3g.20gb": (9, 42, 3, 2, 0, 0, "19968Mi", 4, (0, 4)),
	"7g.40gb": (0, 98, 7, 5, 1, 1, "40192Mi", 8, (0,)),
}
CLAIM_FINALIZER = "resource.kubernetes.io/delete-protection"
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
HELM = {"app.kubernetes.io/managed-by": "Helm"}
HELM_ANNOTATIONS = {"meta.helm.sh/release-name": "nvidia-dra-driver-gpu",
	"meta.helm.sh/release-namespace": "nvidia-dra-driver-gpu"}


def suffix(c, *parts):
	"""A generateName suffix (five characters of Kubernetes' alphabet) derived from parts."""
	h = c.hexid(10, "suffix", *parts)
	return "".join(SUFFIX_ALPHABET[int(h[i:i + 2], 16) % len(SUFFIX_ALPHABET)] for i in range(0, 10, 2))


def share_id(c, *parts):
	"""A shareID: a UID, as the scheduler makes one for each share of a device."""
	return c.uid("share", *parts)


def gpu_uuid(c, node, index):
	return "GPU-" + c.uid("gpu", node, str(index))


def _fields(d):
	return {"f:" + k: {} for k in d}


def _meta(c, kind, name, ns=None, **extra):
	m = {"name": name}
	if extra.get("generateName"):
		m["generateName"] = extra.pop("generateName")
	if ns:
		m["namespace"] = ns
	m.update({"uid": c.uid(kind, ns or "", name), "resourceVersion": c.next_rv()})
	if kind in ("slice", "class"):
		m["generation"] = 1
	m["creationTimestamp"] = T0
	for k in ("labels", "annotations", "ownerReferences", "finalizers"):
		if extra.get(k):
			m[k] = extra[k]
	return m


def _mf(manager, fields, time=T0, subresource=None):
	e = {"manager": manager, "operation": "Update", "apiVersion": API, "time": time, "fieldsType": "FieldsV1",
		"fieldsV1": fields}
	if subresource:
		e["subresource"] = subresource
	return e


# ---------------------------------------------------------------------------------------------------------
# Devices and slices


def gpu_device(c, node, index, model, taints=None, shared=None, counters=None):
	"""GPU index of node: gpu-INDEX with the driver's attributes and its memory capacity; shared: a
	requestPolicy for the memory, making the device allocatable to several claims at once; counters: what the
	whole GPU consumes of its counter set (dynamic MIG)."""
	product, arch, cc, mem = GPUS[model]
	attrs = {"architecture": {"string": arch}, "brand": {"string": "Nvidia"}, "cudaComputeCapability": {"version": cc},
		"cudaDriverVersion": {"version": CUDA_DRIVER_VERSION}, "driverVersion": {"version": DRIVER_VERSION},
		"index": {"int": index}, "minor": {"int": index}, "pcieBusID": {"string": "0000:%02x:00.0" % (0x18 + 0x10 * index)},
		"productName": {"string": product}, "resource.kubernetes.io/pcieRoot": {"string": "pci0000:%02x" % (0x10 * (index // 2))},
		"type": {"string": "gpu"}, "uuid": {"string": gpu_uuid(c, node, index)}}
	capacity = {"value": mem}
	if shared:
		capacity["requestPolicy"] = shared
	d = {"name": "gpu-%d" % index, "attributes": attrs, "capacity": {"memory": capacity}}
	if counters:
		d["consumesCounters"] = [counters]
	if taints:
		d["taints"] = taints
	if shared:
		d["allowMultipleAllocations"] = True
	return d


def mig_counters(profile, start):
	"""The counters a MIG device of profile at start consumes, with its memory slices."""
	_pid, sm, ce, dec, jpg, ofa, mem, size, _starts = MIG_A100_40[profile]
	out = {"copy-engines": {"value": str(ce)}, "decoders": {"value": str(dec)}, "encoders": {"value": "0"},
		"jpeg-engines": {"value": str(jpg)}, "memory": {"value": mem}, "multiprocessors": {"value": str(sm)},
		"ofa-engines": {"value": str(ofa)}}
	for i in range(start, start + size):
		out["memory-slice-%d" % i] = {"value": "1"}
	return dict(sorted(out.items()))


def mig_device(c, node, parent, profile, start):
	"""A MIG device the driver may create on GPU parent of node (dynamic MIG): it consumes its share of the
	parent's counter set."""
	pid, sm, ce, dec, jpg, ofa, mem, _size, _starts = MIG_A100_40[profile]
	product, arch, cc, _ = GPUS["A100-40"]
	attrs = {"architecture": {"string": arch}, "brand": {"string": "Nvidia"}, "cudaComputeCapability": {"version": cc},
		"cudaDriverVersion": {"version": CUDA_DRIVER_VERSION}, "driverVersion": {"version": DRIVER_VERSION},
		"parentUUID": {"string": gpu_uuid(c, node, parent)}, "productName": {"string": product},
		"profile": {"string": profile}, "type": {"string": "mig"}}
	cap = {"copyEngines": str(ce), "decoders": str(dec), "encoders": "0", "jpegEngines": str(jpg), "memory": mem,
		"multiprocessors": str(sm), "ofaEngines": str(ofa)}
	return {"name": "gpu-%d-mig-%s-%d-%d" % (parent, profile.replace(".", ""), pid, start), "attributes": attrs,
		"capacity": {k: {"value": v} for k, v in cap.items()},
		"consumesCounters": [{"counterSet": "gpu-%d-counter-set" % parent, "counters": mig_counters(profile, start)}]}


def dra_node(c, name, ip, model, count, labels=None):
	"""A node whose GPUs the DRA driver publishes: the GPU operator's labels, no GPU resource in its status."""
	product, _arch, _cc, mem = GPUS[model]
	mib = int(mem[:-2]) * (1024 if mem.endswith("Gi") else 1)
	lab = {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": product.replace(" ", "-"),
		"nvidia.com/gpu.count": str(count), "nvidia.com/gpu.memory": str(mib)}
	lab.update(labels or {})
	return node(c, name, ip, lab, cpu="96", memory="1056276172Ki")


def resource_slice(c, node, devices, generation=1, count=1, shared_counters=None, seq=0, driver=DRIVER, pool=None,
		selector=None):
	"""One ResourceSlice of the driver's pool for node (the pool is named after the node), as the kubelet
	plugin publishes it: owned by the node, generated name, seq telling apart a pool's slices.  With selector
	(a nodeSelector) the slice is the pool's of that name, placed by the selector rather than on node, and
	owned by no node."""
	nname = node["metadata"]["name"] if node else None
	pname = pool or nname
	gen_name = "%s-%s-" % (pname, driver)
	name = gen_name + suffix(c, "slice", pname, str(generation), str(seq))
	owner = None if selector else {"apiVersion": "v1", "kind": "Node", "name": nname, "uid": node["metadata"]["uid"],
		"controller": True}
	spec = {"driver": driver, "pool": {"name": pname, "generation": generation, "resourceSliceCount": count}}
	if selector:
		spec["nodeSelector"] = selector
	else:
		spec["nodeName"] = nname
	if devices:
		spec["devices"] = devices
	if shared_counters:
		spec["sharedCounters"] = shared_counters
	meta = _meta(c, "slice", name, generateName=gen_name, ownerReferences=[owner] if owner else None)
	owned = {"f:ownerReferences": {".": {}, 'k:{"uid":"%s"}' % owner["uid"]: {}}} if owner else {}
	meta["managedFields"] = [_mf("gpu-kubelet-plugin" if owner else "%s-controller" % driver.split(".")[0],
		{"f:metadata": dict({"f:generateName": {}}, **owned), "f:spec": dict({"f:pool": {".": {}, "f:generation": {},
		"f:name": {}, "f:resourceSliceCount": {}}}, **_fields(k for k in spec if k != "pool"))})]
	return {"kind": "ResourceSlice", "apiVersion": API, "metadata": meta, "spec": spec}


# ---------------------------------------------------------------------------------------------------------
# Classes, claims, pods


def device_class(c, name, device_type, extended_resource=None, config=None):
	"""A DeviceClass as the driver's chart installs it: the driver's devices of one type."""
	spec = {"selectors": [{"cel": {"expression": "device.driver == '%s' && device.attributes['%s'].type == '%s'" % (
		DRIVER, DRIVER, device_type)}}]}
	if config:
		spec["config"] = [{"opaque": {"driver": DRIVER, "parameters": config}}]
	if extended_resource:
		spec["extendedResourceName"] = extended_resource
	meta = _meta(c, "class", name, labels=dict(HELM), annotations=dict(HELM_ANNOTATIONS))
	meta["managedFields"] = [_mf("helm", {"f:metadata": {"f:annotations": dict({".": {}}, **_fields(HELM_ANNOTATIONS)),
		"f:labels": {".": {}, "f:app.kubernetes.io/managed-by": {}}}, "f:spec": _fields(spec)})]
	return {"kind": "DeviceClass", "apiVersion": API, "metadata": meta, "spec": spec}


def gpu_config(strategy=None, interval=None, threads=None, pinned=None):
	"""The driver's opaque GpuConfig: TimeSlicing with an interval, or MPS with its limits."""
	sharing = {"strategy": strategy}
	if strategy == "TimeSlicing":
		sharing["timeSlicingConfig"] = {"interval": interval or "Default"}
	elif strategy == "MPS":
		mps = {}
		if threads is not None:
			mps["defaultActiveThreadPercentage"] = threads
		if pinned is not None:
			mps["defaultPinnedDeviceMemoryLimit"] = pinned
		sharing["mpsConfig"] = mps
	return {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig", "sharing": sharing}


def request(name, device_class_name=DRIVER, count=1, capacity=None, tolerations=None, selector=None):
	"""A device request of a claim (v1: under "exactly")."""
	ex = {"deviceClassName": device_class_name}
	if selector:
		ex["selectors"] = [{"cel": {"expression": selector}}]
	ex.update({"allocationMode": "ExactCount", "count": count})
	if tolerations:
		ex["tolerations"] = tolerations
	if capacity:
		ex["capacity"] = {"requests": dict(capacity)}
	return {"name": name, "exactly": ex}


def result(req, pool, device, share=None, consumed=None, tolerations=None, driver=DRIVER):
	"""One allocated device of a claim's status."""
	r = {"request": req, "driver": driver, "pool": pool, "device": device}
	if tolerations:
		r["tolerations"] = tolerations
	if share:
		r["shareID"] = share
	if consumed:
		r["consumedCapacity"] = dict(sorted(consumed.items()))
	return r


def node_selector(node_name):
	return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def claim(c, name, ns, requests, config=None, class_config=None, results=None, node=None, reserved=(),
		owner=None, pod_claim=None, annotations=None):
	"""A ResourceClaim: requests (request()), its opaque config (for every request), and when results are
	given its allocation on node (config copied into it, the class's first) reserved for the pods reserved
	((name, uid) pairs).  owner: the pod (name, uid) a claim made from a template or by the scheduler belongs to;
	pod_claim: the pod's name for the claim (annotation), for a claim made from a template."""
	spec = {"devices": {"requests": requests}}
	req_names = [r["name"] for r in requests]
	if config:
		spec["devices"]["config"] = [{"requests": req_names, "opaque": {"driver": DRIVER, "parameters": config}}]
	ann = dict(annotations or {})
	if pod_claim:
		ann["resource.kubernetes.io/pod-claim-name"] = pod_claim
	owners = [{"apiVersion": "v1", "kind": "Pod", "name": owner[0], "uid": owner[1], "controller": True,
		"blockOwnerDeletion": True}] if owner else None
	meta = _meta(c, "claim", name, ns, generateName=(owner[0] + "-" + (pod_claim or "extended-resources") + "-")
		if owner else None, annotations=dict(sorted(ann.items())), ownerReferences=owners,
		finalizers=[CLAIM_FINALIZER] if results else None)
	creator = "kube-controller-manager" if pod_claim else ("kube-scheduler" if owner else "kubectl-client-side-apply")
	meta["managedFields"] = [_mf(creator, {"f:metadata": _fields(k for k in ("annotations", "generateName",
		"ownerReferences") if k in meta), "f:spec": {"f:devices": {"f:requests": {}}}})]
	status = {}
	if results is not None:
		cfg = []
		if class_config:
			cfg.append({"source": "FromClass", "requests": req_names, "opaque": {"driver": DRIVER, "parameters": class_config}})
		if config:
			cfg.append({"source": "FromClaim", "requests": req_names, "opaque": {"driver": DRIVER, "parameters": config}})
		devices = {"results": results}
		if cfg:
			devices["config"] = cfg
		status["allocation"] = {"devices": devices, "nodeSelector": node_selector(node), "allocationTimestamp": T1}
		if reserved:
			status["reservedFor"] = [{"resource": "pods", "name": n, "uid": u} for n, u in reserved]
		meta["managedFields"].append(_mf("kube-scheduler", {"f:status": _fields(status)}, T1, "status"))
	return {"kind": "ResourceClaim", "apiVersion": API, "metadata": meta, "spec": spec, "status": status}


def claim_template(c, name, ns, requests, config=None):
	spec = {"devices": {"requests": requests}}
	if config:
		spec["devices"]["config"] = [{"requests": [r["name"] for r in requests], "opaque": {"driver": DRIVER,
			"parameters": config}}]
	meta = _meta(c, "template", name, ns)
	meta["managedFields"] = [_mf("kubectl-client-side-apply", {"f:spec": {"f:spec": {"f:devices": {"f:requests": {}}}}})]
	return {"kind": "ResourceClaimTemplate", "apiVersion": API, "metadata": meta,
		"spec": {"metadata": {"creationTimestamp": None}, "spec": spec}}


def dra_pod(c, name, ns, node, ip, claims, image="nvcr.io/nvidia/cuda:12.9.1-base-ubuntu24.04", phase="Running",
		limits=None, **kw):
	"""A pod whose one container uses claims: (name in the pod, {"resourceClaimName": N} or
	{"resourceClaimTemplateName": T}, the claim made from the template or None)."""
	ct = container("cuda", image, limits, command=["bash", "-c", "nvidia-smi -L; trap 'exit 0' TERM; sleep 9999 & wait"])
	p = pod(c, name, ns, node, [ct], ip, labels={"app": name.rsplit("-", 1)[0]}, phase=phase, **kw)
	if claims:
		p["spec"]["resourceClaims"] = [dict({"name": ref}, **src) for ref, src, _made in claims]
		for ctr in p["spec"]["containers"]:
			ctr.setdefault("resources", {})["claims"] = [{"name": ref} for ref, _src, _made in claims]
		made = [{"name": ref, "resourceClaimName": m} for ref, _src, m in claims if m]
		if made:
			p["status"]["resourceClaimStatuses"] = made
	return p


def unschedulable(p, message):
	"""p pending for the scheduler's message (its PodScheduled condition says it)."""
	p = copy.deepcopy(p)
	for cond in p["status"].get("conditions", []):
		if cond.get("type") == "PodScheduled":
			cond.update({"status": "False", "reason": "Unschedulable", "message": message})
	return p
