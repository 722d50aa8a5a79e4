"""The objects of a test run's control plane: object paths, scenarios read from fixtures/scenarios and
created through the API (pods bound by spec.nodeName, status through the status subresource, DaemonSets
adopting their pods), and clearing them again.  Functions take an envtest.Cluster.
Part of envtest (envtest.py is the module to import)."""

import copy
import json
import os
import time

import envtest_dra


API_PATHS = {
	("v1", "Namespace"): ("/api/v1", "namespaces", False),
	("v1", "Node"): ("/api/v1", "nodes", False),
	("v1", "Pod"): ("/api/v1", "pods", True),
	("v1", "ServiceAccount"): ("/api/v1", "serviceaccounts", True),
	("v1", "ConfigMap"): ("/api/v1", "configmaps", True),
	("v1", "Service"): ("/api/v1", "services", True),
	("v1", "Event"): ("/api/v1", "events", True),
	("apps/v1", "DaemonSet"): ("/apis/apps/v1", "daemonsets", True),
	("apps/v1", "Deployment"): ("/apis/apps/v1", "deployments", True),
	("apps/v1", "ReplicaSet"): ("/apis/apps/v1", "replicasets", True),
	("policy/v1", "PodDisruptionBudget"): ("/apis/policy/v1", "poddisruptionbudgets", True),
	("rbac.authorization.k8s.io/v1", "ClusterRole"): ("/apis/rbac.authorization.k8s.io/v1", "clusterroles", False),
	("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"):
		("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", False),
	("rbac.authorization.k8s.io/v1", "Role"): ("/apis/rbac.authorization.k8s.io/v1", "roles", True),
	("rbac.authorization.k8s.io/v1", "RoleBinding"): ("/apis/rbac.authorization.k8s.io/v1", "rolebindings", True),
}


def object_path(obj, collection=False):
	key = (obj.get("apiVersion", "v1"), obj.get("kind"))
	if key not in API_PATHS:
		raise ValueError("envtest: no path for %s %s" % key)
	base, res, namespaced = API_PATHS[key]
	md = obj.get("metadata", {})
	p = base
	if namespaced:
		p += "/namespaces/" + md.get("namespace", "default")
	p += "/" + res
	return p if collection else p + "/" + md["name"]


SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink",
	"deletionTimestamp", "deletionGracePeriodSeconds")


def strip_for_create(obj):
	"""The object as a client would create it: without the fields the server sets."""
	o = {k: v for k, v in obj.items() if k != "status" or obj.get("kind") not in ("Pod", "Node")}
	o["metadata"] = {k: v for k, v in obj.get("metadata", {}).items() if k not in SERVER_FIELDS}
	return o


# ---- scenarios -----------------------------------------------------------------------------------------

def read_scenario(path):
	"""(objects, config) of a scenario directory, as the fake API server reads it."""
	objects, config = [], {}
	for root, dirs, files in os.walk(path):
		dirs.sort()
		for f in sorted(files):
			if not f.endswith(".json"):
				continue
			with open(os.path.join(root, f), encoding="utf-8") as fh:
				d = json.load(fh)
			if f == "scenario.json" and root == path:
				config = d
			elif d.get("kind", "").endswith("List"):
				for it in d.get("items", []):
					objects.append(dict({"kind": d["kind"][:-4], "apiVersion": d.get("apiVersion", "v1")}, **it))
			else:
				objects.append(d)
	return objects, config


def _pod_for_create(pod, owners=None):
	"""A fixture pod as the API server will take it: without owner references (to objects that do not
	exist yet or at all: the garbage collector would delete the pod; a DaemonSet adopts its pods)."""
	# Copies of only the parts that change: generated clusters share the rest between their pods, and a
	# deep copy of 20,000 pods costs more than their creation.
	p = dict(pod)
	p["metadata"] = {k: v for k, v in pod["metadata"].items() if k != "ownerReferences"}
	spec = p["spec"] = dict(pod.get("spec", {}))
	# Volumes of the service-account token the admission plugin added when the pod was captured are added
	# again by this server's admission plugin: keep the capture's out, or the names clash.
	if "volumes" in spec:
		spec["volumes"] = [v for v in spec["volumes"] if not v.get("name", "").startswith("kube-api-access-")]
	for key in ("containers", "initContainers"):
		if key not in spec:
			continue
		spec[key] = [dict(c) for c in spec[key]]
		for c in spec[key]:
			mounts = [m for m in c.get("volumeMounts", []) if not m.get("name", "").startswith("kube-api-access-")]
			if mounts:
				c["volumeMounts"] = mounts
			else:
				c.pop("volumeMounts", None)
	return p


def clear(cluster, namespaces=None):
	"""Removes every node, pod, DaemonSet, ReplicaSet and PodDisruptionBudget (in namespaces, default all but
	the system ones' own), and every resource.k8s.io object."""
	envtest_dra.clear(cluster)
	for ds in cluster.list("/apis/apps/v1/daemonsets"):
		md = ds["metadata"]
		# Background: gone at once; the pods are deleted below, and the garbage collector finds none left.
		cluster.must("DELETE", "/apis/apps/v1/namespaces/%s/daemonsets/%s" % (md["namespace"], md["name"]),
			{"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}, ok=(200, 202, 404))
	# A test's budgets and ReplicaSets go with the scenario they were made for.
	for path in ("/apis/policy/v1/poddisruptionbudgets", "/apis/apps/v1/replicasets"):
		for ns in {o["metadata"]["namespace"] for o in cluster.list(path)}:
			cluster.must("DELETE", path.replace("/v1/", "/v1/namespaces/%s/" % ns), ok=(200,))
	for ns in {p["metadata"]["namespace"] for p in cluster.list("/api/v1/pods")}:
		cluster.must("DELETE", "/api/v1/namespaces/%s/pods?gracePeriodSeconds=0" % ns, ok=(200,))
	cluster.must("DELETE", "/api/v1/nodes", ok=(200,))
	# Wait until the pods are gone and stay gone: the DaemonSet controller may not have seen its
	# DaemonSet's deletion yet and still make a pod for it.
	deadline = time.monotonic() + 10
	empty = 0
	while time.monotonic() < deadline:
		left = cluster.list("/api/v1/pods")
		empty = 0 if left else empty + 1
		if empty == 3:
			break
		for p in left:
			md = p["metadata"]
			cluster.call("DELETE", "/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=0" % (md["namespace"], md["name"]))
		time.sleep(0.1)


def _wait_adopted(cluster, wanted, timeout=30):
	"""Waits until each pod {(namespace, name): uid} is controlled by the DaemonSet of that uid."""
	deadline = time.monotonic() + timeout
	while wanted:
		have = {}
		for p in cluster.list("/api/v1/pods"):
			for ref in p["metadata"].get("ownerReferences", []):
				if ref.get("controller"):
					have[(p["metadata"]["namespace"], p["metadata"]["name"])] = ref.get("uid")
		missing = [k for k, uid in wanted.items() if have.get(k) != uid]
		if not missing:
			return
		if time.monotonic() > deadline:
			raise RuntimeError("the DaemonSet controller did not adopt %s" % ", ".join("/".join(k) for k in missing))
		time.sleep(0.1)


def load_scenario(cluster, scenario, workers=8, clean=True):
	"""Creates a scenario's objects through the API: namespaces, nodes (status through the status
	subresource, the not-ready taint removed as the node lifecycle controller would once the node is
	Ready), DaemonSets, then pods (bound by spec.nodeName, status through the subresource).
	scenario: a directory or (objects, config).  Returns the scenario's config (scenario.json)."""
	objects, config = read_scenario(scenario) if isinstance(scenario, str) else scenario
	# Dynamic Resource Allocation objects: a server without the group is found out before anything changes
	dra, objects = envtest_dra.split(objects)
	dra_version = envtest_dra.newest(cluster) if dra else None
	if clean:
		clear(cluster)
	by_kind = {}
	for o in objects:
		by_kind.setdefault(o.get("kind"), []).append(o)
	namespaces = sorted({o["metadata"].get("namespace", "default") for o in objects + dra
		if o.get("kind") in ("Pod", "DaemonSet") or o["metadata"].get("namespace")} | {"default"})
	existing = {n["metadata"]["name"] for n in cluster.list("/api/v1/namespaces")}
	cluster.create_many([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}
		for n in namespaces if n not in existing], workers, ignore_exists=True)
	# The ServiceAccount admission plugin wants each namespace's default account, which the controller
	# manager makes a moment after the namespace: make it here rather than wait.
	accounts = {(n, "default") for n in namespaces}
	for o in by_kind.get("Pod", []) + by_kind.get("DaemonSet", []):
		spec = o.get("spec", {})
		spec = spec.get("template", {}).get("spec", {}) if o["kind"] == "DaemonSet" else spec
		accounts.add((o["metadata"].get("namespace", "default"), spec.get("serviceAccountName") or "default"))
	cluster.create_many([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": a, "namespace": n}}
		for n, a in sorted(accounts)], workers, ignore_exists=True)
	nodes = []
	for n in by_kind.get("Node", []):
		n = copy.deepcopy(n)
		taints = [t for t in n.get("spec", {}).get("taints", []) if t.get("key") != "node.kubernetes.io/not-ready"]
		n.setdefault("spec", {})["taints"] = taints
		nodes.append(n)
	created = cluster.create_many(nodes, workers)
	# Admission added the not-ready taint on create; remove it where the fixture does not have it.
	for want, got in zip(nodes, created):
		if [t.get("key") for t in got.get("spec", {}).get("taints", [])] != [t.get("key") for t in want["spec"]["taints"]]:
			cluster.must("PATCH", object_path(got), {"spec": {"taints": want["spec"]["taints"] or None}},
				content_type="application/merge-patch+json")
	owners = {}
	daemonsets = []
	for ds in by_kind.get("DaemonSet", []):
		ds = copy.deepcopy(ds)
		# The fixture's pods carry no controller-revision-hash of this server's making: with OnDelete the
		# controller leaves them alone, and still replaces a deleted pod.
		ds.setdefault("spec", {})["updateStrategy"] = {"type": "OnDelete"}
		daemonsets.append(ds)
	# Pods first, without their DaemonSet owner: the controller, seeing a new DaemonSet, adopts the pods
	# that match its selector; were the DaemonSet first, it would make pods of its own on their nodes.
	pods = [_pod_for_create(p, owners) for p in by_kind.get("Pod", [])]
	cluster.create_many(pods, workers, keep=False)
	if daemonsets:
		# The controller watches pods and DaemonSets separately: give its pod cache a moment to see the
		# pods, or it makes pods of its own for their nodes and then deletes the extra ones.
		time.sleep(0.5)
	wanted = {}
	for ds in cluster.create_many(daemonsets, workers):
		owners[(ds["metadata"]["namespace"], ds["metadata"]["name"])] = ds["metadata"]["uid"]
	for p in by_kind.get("Pod", []):
		md = p["metadata"]
		for ref in md.get("ownerReferences", []):
			uid = owners.get((md.get("namespace", "default"), ref.get("name")))
			if ref.get("kind") == "DaemonSet" and uid:
				wanted[(md.get("namespace", "default"), md["name"])] = uid
	if not cluster.controllers:
		# No controller to adopt them: set the owner as it would.
		for (ns, name), uid in wanted.items():
			ds = next(d for d in daemonsets if d["metadata"].get("namespace", "default") == ns
				and owners.get((ns, d["metadata"]["name"])) == uid)
			cluster.must("PATCH", "/api/v1/namespaces/%s/pods/%s" % (ns, name), {"metadata": {"ownerReferences": [
				{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"], "uid": uid,
					"controller": True, "blockOwnerDeletion": True}]}}, content_type="application/merge-patch+json")
		wanted = {}
	_wait_adopted(cluster, wanted)
	if wanted:
		time.sleep(0.3)
		have = {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in cluster.list("/api/v1/pods")
			if not p["metadata"].get("deletionTimestamp")}
		lost = [k for k in wanted if k not in have]
		if lost:
			if not clean or getattr(cluster, "_load_retry", False):
				raise RuntimeError("the DaemonSet controller replaced %s while loading" % ", ".join("/".join(k) for k in lost))
			cluster._load_retry = True
			try:
				return load_scenario(cluster, scenario, workers, clean)
			finally:
				cluster._load_retry = False
	others = [o for k, v in by_kind.items() if k not in ("Node", "Pod", "DaemonSet") for o in v]
	cluster.create_many(others, workers)
	if dra:
		envtest_dra.load(cluster, dra, dra_version, workers)
	return config
