"""The object builders of the fixture scenarios: nodes, pods, DaemonSets and their pods, events, each with
what a real API server returns (uid, resourceVersion, creationTimestamp, managedFields, status), derived
deterministically from the scenario and object names through a Ctx.
Part of mkfixtures (mkfixtures.py is the module to import)."""

import copy
import hashlib
import random
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


def trainer_container(limits):
	"""The container of the generated clusters' jobs: a trainer with the command and environment real jobs
	carry (its JOB_NAME is the job's)."""
	env = [{"name": "JOB_NAME", "value": "proto"}, {"name": "MODEL_PATH", "value": "/mnt/models/resnet50/v2"},
		{"name": "BATCH_SIZE", "value": "64"}, {"name": "NCCL_DEBUG", "value": "INFO"},
		{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
		{"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}]
	return container("worker", "registry.cn-shanghai.aliyuncs.com/ml/trainer:v2.4.1", limits,
		command=["python3", "/app/train.py", "--epochs=30"], env=env)


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
