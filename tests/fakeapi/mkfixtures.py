#!/usr/bin/env python3
"""Builds the fixture scenarios in fixtures/scenarios/ from compact descriptions.

    python3 tests/fakeapi/mkfixtures.py [--out fixtures/scenarios] [NAME...]

Every object gets what a real API server returns (uid, resourceVersion, creationTimestamp, managedFields,
node conditions/addresses/nodeInfo, pod conditions/containerStatuses/qosClass), and everything is
deterministic: UIDs are derived from the scenario and object names, so running it again gives the same files.
fakeapi.py also imports generate() from here for `--scenario gen:...` (large synthetic clusters).
"""

import argparse
import copy
import gc
import hashlib
import json
import os
import random
import sys
import uuid

T0 = "2026-11-21T16:12:45Z"
T1 = "2026-11-21T16:12:47Z"
THB = "2026-11-21T16:28:37Z"
ASSUME_TIME = "1605000000000000000"
UID_NS = uuid.UUID("6f1d3b0e-59a1-4c1f-9d1e-2a8f8d1c0b7a")
V100 = {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB", "aliyun.accelerator/nvidia_mem": "16160MiB"}
PLUGIN_IMAGE = "registry.cn-hangzhou.aliyuncs.com/acs/k8s-gpushare-plugin:v2-1.11-aff8a23"


class Ctx:
	"""Per-scenario state: UIDs and resourceVersions."""

	def __init__(self, scenario, rv=190000):
		self.scenario = scenario
		self.rv = rv

	def uid(self, *parts):
		h = hashlib.sha1(UID_NS.bytes + "/".join((self.scenario,) + parts).encode()).hexdigest()
		return "%s-%s-5%s-%x%s-%s" % (h[:8], h[8:12], h[13:16], 8 | int(h[16], 16) & 3, h[17:20], h[20:32])

	def next_rv(self):
		self.rv += 7
		return str(self.rv)

	def hexid(self, n, *parts):
		return hashlib.sha256("/".join((self.scenario,) + parts).encode()).hexdigest()[:n]


def fields_of(d):
	"""The managedFields FieldsV1 set for a map of keys."""
	return {"f:" + k: {} for k in d}


def node(c, name, ip, labels=None, resources=None, allocatable=None, cpu="64", memory="263596872Ki", ready=True,
		taints=None, unschedulable=False):
	labels = dict(labels or {})
	base = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
	for k, v in base.items():
		labels.setdefault(k, v)
	labels = dict(sorted(labels.items()))
	cap = {"cpu": cpu, "ephemeral-storage": "123722704Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
		"memory": memory, "pods": "110"}
	cap.update(resources or {})
	cap = dict(sorted(cap.items()))
	alloc = dict(cap)
	alloc["ephemeral-storage"] = "114022843818"
	alloc.update(allocatable or {})
	alloc = dict(sorted(alloc.items()))
	mid = c.hexid(32, "node", name)
	sysuuid = "%s-%s-%s-%s-%s" % (mid[:8], mid[8:12], mid[12:16], mid[16:20], mid[20:32])
	status_fields = {
		"f:addresses": {".": {}, 'k:{"type":"Hostname"}': {".": {}, "f:address": {}, "f:type": {}},
			'k:{"type":"InternalIP"}': {".": {}, "f:address": {}, "f:type": {}}},
		"f:allocatable": dict({".": {}}, **fields_of(alloc)),
		"f:capacity": dict({".": {}}, **fields_of(cap)),
		"f:conditions": {".": {}},
		"f:daemonEndpoints": {"f:kubeletEndpoint": {"f:Port": {}}},
		"f:nodeInfo": {"f:architecture": {}, "f:bootID": {}, "f:containerRuntimeVersion": {}, "f:kernelVersion": {},
			"f:kubeProxyVersion": {}, "f:kubeletVersion": {}, "f:machineID": {}, "f:operatingSystem": {},
			"f:osImage": {}, "f:systemUUID": {}},
	}
	for t in ("DiskPressure", "MemoryPressure", "PIDPressure", "Ready"):
		status_fields["f:conditions"]['k:{"type":"%s"}' % t] = {".": {}, "f:lastHeartbeatTime": {},
			"f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}}
	spec = {"podCIDR": "10.%d.%d.0/24" % (int(mid[:2], 16) % 200, int(mid[2:4], 16)),
		"providerID": "alicloud://%s" % name}
	if unschedulable:
		spec["unschedulable"] = True
	if taints:
		spec["taints"] = taints
	d = {
		"kind": "Node", "apiVersion": "v1",
		"metadata": {
			"name": name, "uid": c.uid("node", name), "resourceVersion": c.next_rv(), "creationTimestamp": T0,
			"labels": labels,
			"annotations": {"node.alpha.kubernetes.io/ttl": "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true"},
			"managedFields": [
				{"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": T0, "fieldsType": "FieldsV1",
					"fieldsV1": {"f:metadata": {"f:annotations": {".": {},
						"f:volumes.kubernetes.io/controller-managed-attach-detach": {}},
						"f:labels": dict({".": {}}, **fields_of(labels))}, "f:spec": {"f:providerID": {}}}},
				{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": T0,
					"fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {
						"f:node.alpha.kubernetes.io/ttl": {}}}, "f:spec": {"f:podCIDR": {}, "f:podCIDRs": {".": {},
						'v:"%s"' % spec["podCIDR"]: {}}}}},
				{"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": THB, "fieldsType": "FieldsV1",
					"fieldsV1": {"f:status": status_fields}, "subresource": "status"},
			],
		},
		"spec": dict(spec, podCIDRs=[spec["podCIDR"]]),
		"status": {
			"capacity": cap,
			"allocatable": alloc,
			"conditions": [
				{"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": THB, "lastTransitionTime": T0,
					"reason": "KubeletHasSufficientMemory", "message": "kubelet has sufficient memory available"},
				{"type": "DiskPressure", "status": "False", "lastHeartbeatTime": THB, "lastTransitionTime": T0,
					"reason": "KubeletHasNoDiskPressure", "message": "kubelet has no disk pressure"},
				{"type": "PIDPressure", "status": "False", "lastHeartbeatTime": THB, "lastTransitionTime": T0,
					"reason": "KubeletHasSufficientPID", "message": "kubelet has sufficient PID available"},
				{"type": "Ready", "status": "True" if ready else "Unknown", "lastHeartbeatTime": THB,
					"lastTransitionTime": T0, "reason": "KubeletReady" if ready else "NodeStatusUnknown",
					"message": "kubelet is posting ready status" if ready else "Kubelet stopped posting node status."},
			],
			"addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
			"daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
			"nodeInfo": {"machineID": mid, "systemUUID": sysuuid, "bootID": c.uid("boot", name),
				"kernelVersion": "4.19.91-26.al7.x86_64", "osImage": "Alibaba Cloud Linux (Aliyun Linux) 2.1903 LTS (Hunting Beagle)",
				"containerRuntimeVersion": "containerd://1.6.20", "kubeletVersion": "v1.26.3-aliyun.1",
				"kubeProxyVersion": "v1.26.3-aliyun.1", "operatingSystem": "linux", "architecture": "amd64"},
		},
	}
	return d


def gpushare_node(c, name, ip, mem, count, labels=None, extra=None, allocatable=None, **kw):
	res = {"aliyun.com/gpu-count": str(count), "aliyun.com/gpu-mem": str(mem)}
	res.update(extra or {})
	return node(c, name, ip, labels, res, allocatable, **kw)


def gpu_annotations(idx, dev, podmem, assigned=True):
	a = {"ALIYUN_COM_GPU_MEM_ASSIGNED": "true" if assigned else "false", "ALIYUN_COM_GPU_MEM_ASSUME_TIME": ASSUME_TIME,
		"ALIYUN_COM_GPU_MEM_DEV": str(dev)}
	if idx is not None:
		a["ALIYUN_COM_GPU_MEM_IDX"] = str(idx)
	a["ALIYUN_COM_GPU_MEM_POD"] = str(podmem)
	return a


def container(name, image, limits=None, command=None, env=None):
	ct = {"name": name, "image": image}
	if command:
		ct["command"] = command
	if env:
		ct["env"] = env
	limits = {k: str(v) for k, v in (limits or {}).items()}
	ct["resources"] = {"limits": limits, "requests": dict(limits)} if limits else {}
	return ct


def pod(c, name, ns, node_name, containers, node_ip=None, labels=None, annotations=None, phase="Running",
		init_containers=None, node_selector=None, owner=None, scheduler="default-scheduler", generate_name=None,
		affinity_node=False, tolerations=None, host_network=False, service_account="default", required_terms=None):
	labels = dict(sorted((labels or {}).items()))
	meta = {"name": name}
	if generate_name:
		meta["generateName"] = generate_name
	meta.update({"namespace": ns, "uid": c.uid("pod", ns, name), "resourceVersion": c.next_rv(), "creationTimestamp": T0})
	if labels:
		meta["labels"] = labels
	if annotations:
		meta["annotations"] = dict(annotations)
	if owner:
		meta["ownerReferences"] = [owner]
	vol = "kube-api-access-" + c.hexid(5, "vol", ns, name)
	mounts = [{"name": vol, "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]

	def full(ct):
		ct = copy.deepcopy(ct)
		ct["volumeMounts"] = mounts
		ct["terminationMessagePath"] = "/dev/termination-log"
		ct["terminationMessagePolicy"] = "File"
		ct["imagePullPolicy"] = "IfNotPresent"
		return ct

	spec = {"volumes": [{"name": vol, "projected": {"sources": [
		{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
		{"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
		{"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1",
			"fieldPath": "metadata.namespace"}}]}}], "defaultMode": 420}}]}
	if init_containers:
		spec["initContainers"] = [full(ct) for ct in init_containers]
	spec["containers"] = [full(ct) for ct in containers]
	spec["restartPolicy"] = "Never" if phase in ("Succeeded", "Failed") else "Always"
	spec["terminationGracePeriodSeconds"] = 30
	spec["dnsPolicy"] = "ClusterFirst"
	if node_selector:
		spec["nodeSelector"] = dict(node_selector)
	spec["serviceAccountName"] = service_account
	spec["serviceAccount"] = service_account
	if node_name:
		spec["nodeName"] = node_name
	if host_network:
		spec["hostNetwork"] = True
	spec["securityContext"] = {}
	if affinity_node and node_name:
		spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
			{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}}
	if required_terms:
		spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
			"nodeSelectorTerms": required_terms}}}
	spec["schedulerName"] = scheduler
	spec["tolerations"] = tolerations or [
		{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
		{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
	spec["priority"] = 0
	spec["enableServiceLinks"] = True
	spec["preemptionPolicy"] = "PreemptLowerPriority"

	pod_ip = node_ip if host_network else "10.193.%d.%d" % (int(c.hexid(2, "ip", ns, name), 16) % 250,
		int(c.hexid(4, "ip", ns, name)[2:], 16) % 250 + 2)
	lims = [ct.get("resources", {}).get("limits", {}) for ct in containers]
	if all("cpu" in lim and "memory" in lim for lim in lims):
		qos = "Guaranteed"
	elif any("cpu" in lim or "memory" in lim for lim in lims):
		qos = "Burstable"
	else:
		qos = "BestEffort"
	status = {"phase": phase}

	def cond(t, ok, reason=None, message=None):
		d = {"type": t, "status": "True" if ok else "False", "lastProbeTime": None, "lastTransitionTime": T1}
		if reason:
			d["reason"] = reason
		if message:
			d["message"] = message
		return d

	names = " ".join(ct["name"] for ct in containers)
	if not node_name:
		status["conditions"] = [cond("PodScheduled", False, "Unschedulable",
			"0/3 nodes are available: 3 Insufficient aliyun.com/gpu-mem. preemption: 0/3 nodes are available: "
			"3 No preemption victims found for incoming pod..")]
		status["qosClass"] = qos
		return {"kind": "Pod", "apiVersion": "v1", "metadata": meta, "spec": spec, "status": status}
	if phase == "Running":
		status["conditions"] = [cond("Initialized", True), cond("Ready", True), cond("ContainersReady", True),
			cond("PodScheduled", True)]
	elif phase == "Pending":
		status["conditions"] = [cond("Initialized", True),
			cond("Ready", False, "ContainersNotReady", "containers with unready status: [%s]" % names),
			cond("ContainersReady", False, "ContainersNotReady", "containers with unready status: [%s]" % names),
			cond("PodScheduled", True)]
	else:
		status["conditions"] = [cond("Initialized", True, "PodCompleted"), cond("Ready", False, "PodCompleted"),
			cond("ContainersReady", False, "PodCompleted"), cond("PodScheduled", True)]
	status["hostIP"] = node_ip
	if phase != "Pending":
		status["podIP"] = pod_ip
		status["podIPs"] = [{"ip": pod_ip}]
	status["startTime"] = T1

	def cstatus(ct, init=False):
		img = ct["image"]
		s = {"name": ct["name"], "state": {}, "lastState": {}, "ready": False, "restartCount": 0, "image": img,
			"imageID": "", "started": False}
		cid = "containerd://" + c.hexid(64, "ctr", ns, name, ct["name"])
		digest = "%s@sha256:%s" % (img.split(":")[0], c.hexid(64, "img", img))
		if phase == "Pending" and not init:
			s["state"] = {"waiting": {"reason": "ContainerCreating"}}
			return s
		s["imageID"] = digest
		s["containerID"] = cid
		if init or phase == "Succeeded":
			s["state"] = {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": T1, "finishedAt": T1,
				"containerID": cid}}
		elif phase == "Failed":
			s["state"] = {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": T1, "finishedAt": T1,
				"containerID": cid}}
		else:
			s["state"] = {"running": {"startedAt": T1}}
			s["ready"] = True
			s["started"] = True
		if init:
			s.pop("started", None)
		return s

	if init_containers:
		status["initContainerStatuses"] = [cstatus(ct, True) for ct in init_containers]
	status["containerStatuses"] = [cstatus(ct) for ct in containers]
	status["qosClass"] = qos
	meta["managedFields"] = [
		{"manager": "kube-controller-manager" if owner else "kubectl-create", "operation": "Update", "apiVersion": "v1",
			"time": T0, "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": dict(
				({"f:labels": dict({".": {}}, **fields_of(labels))} if labels else {}),
				**({"f:annotations": dict({".": {}}, **fields_of(annotations))} if annotations else {})),
				"f:spec": {"f:containers": {'k:{"name":"%s"}' % ct["name"]: {".": {}, "f:image": {}, "f:name": {},
					"f:resources": {}} for ct in containers}, "f:nodeName": {}}}},
		{"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": T1, "fieldsType": "FieldsV1",
			"fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {},
				"f:startTime": {}}}, "subresource": "status"},
	]
	return {"kind": "Pod", "apiVersion": "v1", "metadata": meta, "spec": spec, "status": status}


def gpu_pod(c, name, ns, node_name, node_ip, mem, idx, dev, image="cheyang/gpu-player:v2", labels=None, phase="Running",
		assigned=True, extra_annotations=None, **kw):
	ann = gpu_annotations(idx, dev, mem, assigned) if node_name else {}
	ann.update(extra_annotations or {})
	cname = kw.pop("container_name", name.rsplit("-", 1)[0] if name[-1].isdigit() else name)
	return pod(c, name, ns, node_name, [container(cname, image, {"aliyun.com/gpu-mem": mem})], node_ip,
		labels=labels, annotations=ann or None, phase=phase, **kw)


def daemonset(c, name, ns, labels, node_selector=None, image=PLUGIN_IMAGE, command=None, nodes=0):
	tmpl_spec = {
		"volumes": [{"name": "device-plugin", "hostPath": {"path": "/var/lib/kubelet/device-plugins", "type": ""}}],
		"containers": [{"name": "gpushare", "image": image,
			"command": command or ["gpushare-device-plugin-v2", "-logtostderr", "--v=5", "--memory-unit=GiB"],
			"env": [{"name": "KUBECONFIG", "value": "/etc/kubernetes/kubelet.conf"},
				{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}],
			"resources": {"limits": {"cpu": "100m", "memory": "300Mi"}},
			"volumeMounts": [{"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"}],
			"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
			"imagePullPolicy": "IfNotPresent",
			"securityContext": {"capabilities": {"drop": ["ALL"]}, "allowPrivilegeEscalation": False}}],
		"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
	}
	if node_selector:
		tmpl_spec["nodeSelector"] = dict(node_selector)
	tmpl_spec.update({"serviceAccountName": "gpushare-device-plugin", "serviceAccount": "gpushare-device-plugin",
		"hostNetwork": True, "securityContext": {}, "schedulerName": "default-scheduler",
		"tolerations": [{"operator": "Exists"}]})
	sel = {"name": labels["name"]}
	return {
		"kind": "DaemonSet", "apiVersion": "apps/v1",
		"metadata": {"name": name, "namespace": ns, "uid": c.uid("ds", ns, name), "resourceVersion": c.next_rv(),
			"generation": 1, "creationTimestamp": T0, "labels": dict(sorted(labels.items())),
			"annotations": {"deprecated.daemonset.template.generation": "1"},
			"managedFields": [{"manager": "helm", "operation": "Update", "apiVersion": "apps/v1", "time": T0,
				"fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": dict({".": {}}, **fields_of(labels))},
				"f:spec": {"f:selector": {}, "f:template": {"f:metadata": {"f:labels": {}}, "f:spec": {}}}}},
				{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1", "time": T1,
					"fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:currentNumberScheduled": {},
					"f:desiredNumberScheduled": {}, "f:numberAvailable": {}, "f:numberReady": {},
					"f:observedGeneration": {}, "f:updatedNumberScheduled": {}}}, "subresource": "status"}]},
		"spec": {"selector": {"matchLabels": sel}, "template": {"metadata": {"creationTimestamp": None,
			"labels": dict(sorted(labels.items()))}, "spec": tmpl_spec},
			"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
			"revisionHistoryLimit": 10},
		"status": {"currentNumberScheduled": nodes, "numberMisscheduled": 0, "desiredNumberScheduled": nodes,
			"numberReady": nodes, "observedGeneration": 1, "updatedNumberScheduled": nodes, "numberAvailable": nodes},
	}


def ds_pods(c, ds, nodes):
	"""One pod of the DaemonSet on each node, owned by it, as the DaemonSet controller creates them."""
	m = ds["metadata"]
	out = []
	rnd = random.Random(m["uid"])
	for n in nodes:
		nname = n["metadata"]["name"]
		ip = n["status"]["addresses"][0]["address"]
		suffix = "".join(rnd.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
		labels = dict(ds["spec"]["template"]["metadata"]["labels"])
		labels["controller-revision-hash"] = c.hexid(10, "rev", m["name"])
		labels["pod-template-generation"] = "1"
		tmpl = ds["spec"]["template"]["spec"]
		ct = tmpl["containers"][0]
		cont = container(ct["name"], ct["image"], command=ct["command"], env=ct["env"])
		cont["resources"] = {"limits": dict(ct["resources"]["limits"]), "requests": dict(ct["resources"]["limits"])}
		p = pod(c, "%s-%s" % (m["name"], suffix), m["namespace"], nname, [cont], ip, labels=labels,
			owner={"apiVersion": "apps/v1", "kind": "DaemonSet", "name": m["name"], "uid": m["uid"], "controller": True,
				"blockOwnerDeletion": True}, generate_name=m["name"] + "-", affinity_node=True,
			tolerations=[{"operator": "Exists"}, {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
				"effect": "NoExecute"}, {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
				"effect": "NoExecute"}], host_network=True, service_account="gpushare-device-plugin")
		p["status"]["qosClass"] = "Burstable"
		out.append(p)
	return out


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
	"empty": s_empty,
	"lightweight": s_lightweight,
	"cce": s_cce,
	"selectors": s_selectors,
}


def event(c, name, ns, pod_name, message, last, count=1, reason="FailedScheduling"):
	"""An event about a pod, as the scheduler writes it (core/v1 Event)."""
	return {"kind": "Event", "apiVersion": "v1",
		"metadata": {"name": name, "namespace": ns, "uid": c.uid("event", ns, name), "resourceVersion": c.next_rv(),
			"creationTimestamp": T0},
		"involvedObject": {"kind": "Pod", "namespace": ns, "name": pod_name, "uid": c.uid("pod", ns, pod_name),
			"apiVersion": "v1"},
		"reason": reason, "message": message, "source": {"component": "default-scheduler"},
		"firstTimestamp": T0, "lastTimestamp": last, "count": count, "type": "Warning",
		"eventTime": None, "reportingComponent": "default-scheduler", "reportingInstance": ""}


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


def as_lists(objs):
	"""Splits objects into the NodeList/PodList/DaemonSetList files a real server would return."""
	kinds = [("Node", "NodeList", "v1", "nodes.json"), ("Pod", "PodList", "v1", "pods.json"),
		("DaemonSet", "DaemonSetList", "apps/v1", "daemonsets.json"), ("Event", "EventList", "v1", "events.json")]
	rv = max(int(o["metadata"]["resourceVersion"]) for o in objs) + 1 if objs else 1
	out = {}
	for kind, lkind, api, fname in kinds:
		items = []
		for o in objs:
			if o["kind"] == kind:
				items.append({k: v for k, v in o.items() if k not in ("kind", "apiVersion")})
		if kind == "Node":
			items.sort(key=lambda o: o["metadata"]["name"])
		else:
			items.sort(key=lambda o: (o["metadata"]["namespace"], o["metadata"]["name"]))
		if items or kind not in ("DaemonSet", "Event"):
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


# ---------------------------------------------------------------------------------------------------------
# Synthetic clusters for benchmarks: gen:nodes=N,pods=M,gpus=G,mem=GIB,seed=S


def generate(spec):
	"""A synthetic cluster: gen:nodes=N,pods=M,gpus=G,mem=GIB,seed=S,ds=0|1,ns=K,done=PCT,cpu=PCT.

	Objects are shaped like real ones (managedFields, env, volumes, conditions, container statuses: about 4.5 KB
	of JSON per pod, 5 KB per node). Pods are spread at random over the nodes and K namespaces; a pod asks for
	GPU memory only if it fits on one of its node's GPUs (so the cluster is full, never over-allocated), else
	it becomes a CPU pod; cpu=PCT makes that share CPU pods from the start, done=PCT that share Succeeded or
	Failed (which the plugin's field selector leaves out).
	"""
	opts = {"nodes": 100, "pods": 1000, "gpus": 4, "mem": 15, "seed": 1, "ds": 1, "ns": 20, "done": 0, "cpu": 0}
	for part in filter(None, spec.split(",")):
		k, _, v = part.partition("=")
		if k not in opts:
			raise SystemExit("fakeapi: generator: unknown option %s (known: %s)" % (k, ", ".join(sorted(opts))))
		opts[k] = int(v)
	# Millions of new objects would set off the cyclic collector again and again, each time walking all of
	# them (half of the time spent here); they live as long as the server, so they are frozen out of it.
	enabled = gc.isenabled()
	gc.disable()
	try:
		objs = _generate(opts)
	finally:
		if enabled:
			gc.enable()
	gc.freeze()
	return objs, {}


def _generate(opts):
	c = Ctx("gen-%d" % opts["seed"], rv=1000)
	rnd = random.Random(opts["seed"])
	gpus, per = opts["gpus"], opts["mem"]
	nsn = max(1, opts["ns"])
	objs = []
	# Copies come from JSON text: json.loads is many times faster than copy.deepcopy for 100,000 pods.
	proto_node = json.dumps(gpushare_node(c, "proto", "10.0.0.1", per * gpus, gpus, dict(V100, cgpu="true")))
	names = []
	for i in range(opts["nodes"]):
		n = json.loads(proto_node)
		name = "cn-shanghai.10.%d.%d.%d" % (i // 65536 % 256, i // 256 % 256, i % 256)
		ip = name.split(".", 1)[1]
		m = n["metadata"]
		m["name"] = name
		m["uid"] = c.uid("node", name)
		m["resourceVersion"] = c.next_rv()
		m["labels"]["kubernetes.io/hostname"] = name
		m["labels"]["alibabacloud.com/nodepool-id"] = "np-%d" % (i % 4)
		n["spec"]["providerID"] = "alicloud://cn-shanghai.i-%s" % c.hexid(20, "ecs", name)
		n["status"]["addresses"] = [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}]
		n["status"]["nodeInfo"]["machineID"] = c.hexid(32, "node", name)
		n["status"]["nodeInfo"]["bootID"] = c.uid("boot", name)
		objs.append(n)
		names.append((name, ip))
	env = [{"name": "JOB_NAME", "value": "proto"}, {"name": "MODEL_PATH", "value": "/mnt/models/resnet50/v2"},
		{"name": "BATCH_SIZE", "value": "64"}, {"name": "NCCL_DEBUG", "value": "INFO"},
		{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
		{"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}]
	ct = container("worker", "registry.cn-shanghai.aliyuncs.com/ml/trainer:v2.4.1", {"aliyun.com/gpu-mem": 1},
		command=["python3", "/app/train.py", "--epochs=30"], env=env)
	owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "proto", "uid": c.uid("job", "proto"),
		"controller": True, "blockOwnerDeletion": True}
	proto = pod(c, "proto-0", "default", "proto", [ct], "10.0.0.1", labels={"app": "proto", "job-name": "proto",
		"controller-uid": owner["uid"]}, annotations=gpu_annotations(0, per, 1), owner=owner, generate_name="proto-")
	proto["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:containers"]['k:{"name":"worker"}'].update(
		{"f:command": {}, "f:env": {".": {}, 'k:{"name":"JOB_NAME"}': {".": {}, "f:name": {}, "f:value": {}},
			'k:{"name":"MODEL_PATH"}': {".": {}, "f:name": {}, "f:value": {}}}})
	# Pods share every part they do not change (the server copies an object before it changes it): building
	# 100,000 pods this way takes seconds, and the server holds far fewer Python objects.
	pm, ps, pst = proto["metadata"], proto["spec"], proto["status"]
	mf_gpu = pm["managedFields"]
	mf_cpu = json.loads(json.dumps(mf_gpu))
	del mf_cpu[0]["fieldsV1"]["f:metadata"]["f:annotations"]
	pctr, pcs = ps["containers"][0], pst["containerStatuses"][0]
	done_status = {ph: pod(c, "proto-0", "default", "proto", [ct], "10.0.0.1", phase=ph)["status"]
		for ph in ("Succeeded", "Failed")}
	cpu_res = {"limits": {"cpu": "2", "memory": "4Gi"}, "requests": {"cpu": "1", "memory": "2Gi"}}
	used = {}
	for j in range(opts["pods"]):
		if not names:
			break
		nname, ip = names[rnd.randrange(len(names))]
		ns = "team-%d" % (j % nsn)
		job = "job-%d" % j
		name = "%s-%s" % (job, c.hexid(5, "pod", ns, job))
		juid = c.uid("job", ns, job)
		m = dict(pm, name=name, namespace=ns, generateName=job + "-", uid=c.uid("pod", ns, name),
			resourceVersion=c.next_rv(), labels={"app": job, "controller-uid": juid, "job-name": job},
			ownerReferences=[dict(pm["ownerReferences"][0], name=job, uid=juid)])
		ctr = dict(pctr, env=[dict(pctr["env"][0], value=job)] + pctr["env"][1:])
		spec = dict(ps, nodeName=nname, containers=[ctr])
		pip = "10.%d.%d.%d" % (128 + j // 65536 % 64, j // 256 % 256, j % 256)
		status = dict(pst, hostIP=ip, podIP=pip, podIPs=[{"ip": pip}],
			containerStatuses=[dict(pcs, containerID="containerd://" + c.hexid(64, "ctr", ns, name))])
		mem = rnd.choice((1, 1, 2, 2, 3, 4, 6, 8))
		idx = min(range(gpus), key=lambda g, nn=nname: used.get((nn, g), 0)) if gpus else None
		if idx is None or rnd.randrange(100) < opts["cpu"] or used.get((nname, idx), 0) + mem > per:
			del m["annotations"]
			m["managedFields"] = mf_cpu
			ctr["resources"] = cpu_res
			status["qosClass"] = "Burstable"
		else:
			used[(nname, idx)] = used.get((nname, idx), 0) + mem
			m["annotations"] = gpu_annotations(idx, per, mem)
			ctr["resources"] = {"limits": {"aliyun.com/gpu-mem": str(mem)}, "requests": {"aliyun.com/gpu-mem": str(mem)}}
		if rnd.randrange(100) < opts["done"]:
			status = dict(done_status["Failed" if j % 5 == 0 else "Succeeded"], hostIP=ip)
			spec["restartPolicy"] = "Never"
		objs.append({"kind": "Pod", "apiVersion": "v1", "metadata": m, "spec": spec, "status": status})
	if opts["ds"]:
		ds = daemonset(c, "gpushare-device-plugin-ds", "kube-system", {"name": "gpushare-device-plugin-ds",
			"component": "gpushare-device-plugin", "app": "gpushare"}, {"cgpu": "true"}, nodes=len(names))
		objs.append(ds)
	return objs


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
