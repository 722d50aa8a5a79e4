"""Dynamic Resource Allocation on a real control plane: which resource.k8s.io versions the server serves
(discovery), the kube-apiserver flags that make a 1.32-1.35 server serve every version and keep the alpha
fields the scenarios hold, and the DRA objects of a scenario created through the API.

The shipped server (1.26) has no resource.k8s.io: loading a scenario with DRA objects then raises
DRAUnavailable, a unittest.SkipTest whose reason says so, before anything is cleared or created.  With
KUBE_ASSETS pointing at a newer server, the objects (stored in the fixtures as resource.k8s.io/v1) are
converted to the newest version it serves (tests/fakeapi/resource_versions.py), their references to nodes
and pods rewritten to the UIDs the server gave those, and a claim's status written through its status
subresource after the claim, as the scheduler writes it.
Part of envtest (envtest.py is the module to import)."""

import concurrent.futures
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakeapi"))

import resource_versions  # noqa: E402  (the fake API server's conversions, found beside it)

GROUP = resource_versions.GROUP
RESOURCES = {kind: (res, namespaced) for res, _singular, kind, namespaced in resource_versions.RESOURCES}
# created in this order: what a claim names (classes, the devices) before the claim
ORDER = ("DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim")
SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink",
	"deletionTimestamp", "deletionGracePeriodSeconds", "finalizers")


class DRAUnavailable(unittest.SkipTest):
	"""The server does not serve what a scenario's DRA objects need (a test that loads it is skipped)."""


def served_versions(cluster):
	"""The resource.k8s.io versions the server serves, newest first as discovery lists them; () without
	the group."""
	status, _, body = cluster.call("GET", "/apis/" + GROUP)
	if status == 404:
		return ()
	if status != 200 or not isinstance(body, dict):
		raise RuntimeError("GET /apis/%s: %d %s" % (GROUP, status, body))
	return tuple(v.get("version") for v in body.get("versions", []) if v.get("version") in resource_versions.VERSIONS)


def serves_v1(cluster):
	"""Whether the server serves resource.k8s.io/v1 (DRA is generally available: Kubernetes 1.34 and later)."""
	return "v1" in served_versions(cluster)


def unavailable(cluster, need="v1"):
	"""None when the server serves resource.k8s.io/need (need None: any version of it), else the reason a DRA
	test cannot run on it."""
	versions = served_versions(cluster)
	if need in versions or (need is None and versions):
		return None
	status, _, body = cluster.call("GET", "/version")
	release = body.get("gitVersion", "?") if status == 200 and isinstance(body, dict) else "?"
	have = ", ".join(versions) or "none"
	return ("the real API server (%s) does not serve %s%s (it serves: %s); set KUBE_ASSETS to the binaries of "
		"Kubernetes 1.34 or later to run the DRA tests on a real server" % (release, GROUP, "/" + need if need else "",
		have))


def apiserver_args_for(minor):
	"""kube-apiserver flags for release 1.minor: every resource.k8s.io version served, and the feature gates
	of the alpha fields the DRA scenarios hold (taints, counters, consumable capacity, extended resources),
	which a server leaves out of what it stores when they are off; none before 1.32 (no beta DRA)."""
	if minor < 32:
		return []
	if minor == 32:
		return ["--runtime-config=%s/v1beta1=true" % GROUP, "--feature-gates=DynamicResourceAllocation=true"]
	gates = ["DRADeviceTaints", "DRAPartitionableDevices"]
	runtime = "%s/v1beta1=true,%s/v1beta2=true" % (GROUP, GROUP)
	if minor == 33:
		gates.insert(0, "DynamicResourceAllocation")
	else:
		gates += ["DRAConsumableCapacity", "DRAExtendedResource"]
	return ["--runtime-config=" + runtime, "--feature-gates=" + ",".join("%s=true" % g for g in gates)]


def apiserver_minor(assets):
	"""The minor release of assets' kube-apiserver (kube-apiserver --version), or None."""
	try:
		out = subprocess.run([os.path.join(assets, "kube-apiserver"), "--version"], capture_output=True, text=True,
			timeout=30).stdout
	except (OSError, subprocess.SubprocessError):
		return None
	m = re.search(r"v1\.(\d+)", out)
	return int(m.group(1)) if m else None


def apiserver_args(assets):
	minor = apiserver_minor(assets)
	return apiserver_args_for(minor) if minor is not None else []


def split(objects):
	"""(the scenario's resource.k8s.io objects, the others)."""
	dra, rest = [], []
	for o in objects:
		(dra if (o.get("apiVersion") or "").startswith(GROUP + "/") else rest).append(o)
	return dra, rest


def api_path(kind, version, ns=None, name=None):
	res, namespaced = RESOURCES[kind]
	p = "/apis/%s/%s" % (GROUP, version)
	if namespaced:
		p += "/namespaces/" + (ns or "default")
	p += "/" + res
	return p + "/" + name if name else p


def rewrite_uids(obj, nodes, pods):
	"""obj with its owner references (nodes, pods) and a claim's reservations naming the UIDs the server
	gave the node or pod of that name (nodes: {name: uid}; pods: {(namespace, name): uid})."""
	md = obj["metadata"]
	ns = md.get("namespace", "default")

	def uid_of(kind, name):
		return nodes.get(name) if kind == "Node" else pods.get((ns, name))
	refs = [dict(r, uid=uid_of(r.get("kind"), r.get("name"))) for r in md.get("ownerReferences", [])]
	refs = [r for r in refs if r["uid"]]
	obj = dict(obj, metadata=dict(md, ownerReferences=refs) if refs else {k: v for k, v in md.items()
		if k != "ownerReferences"})
	status = obj.get("status")
	if isinstance(status, dict) and status.get("reservedFor"):
		reserved = [dict(r, uid=pods.get((ns, r.get("name")), r.get("uid"))) for r in status["reservedFor"]]
		obj["status"] = dict(status, reservedFor=reserved)
	return obj


def body_for_create(obj):
	"""obj as a client creates it: without what the server sets, without its status, and without finalizers
	(no controller here would remove them)."""
	o = {k: v for k, v in obj.items() if k != "status"}
	o["metadata"] = {k: v for k, v in obj["metadata"].items() if k not in SERVER_FIELDS}
	return o


def requests_for(objects, version, nodes, pods):
	"""The requests that load objects (resource.k8s.io, any version) into a server serving version:
	[(method, path, body, then)], then: None, or the status to PUT through the status subresource of what
	the request created."""
	out = []
	for kind in ORDER:
		for o in objects:
			if o.get("kind") != kind:
				continue
			o = rewrite_uids(resource_versions.convert(o, version), nodes, pods)
			md = o["metadata"]
			status = o.get("status") if kind == "ResourceClaim" and o.get("status") else None
			out.append(("POST", api_path(kind, version, md.get("namespace")), body_for_create(o), status))
	return out


def load(cluster, objects, version=None, workers=8):
	"""Creates a scenario's DRA objects in a cluster whose nodes and pods are loaded already; version: the
	resource.k8s.io version to use (default: the newest served).  Raises DRAUnavailable when none is."""
	version = version or newest(cluster)
	nodes = {n["metadata"]["name"]: n["metadata"]["uid"] for n in cluster.list("/api/v1/nodes")}
	pods = {(p["metadata"]["namespace"], p["metadata"]["name"]): p["metadata"]["uid"]
		for p in cluster.list("/api/v1/pods")}
	reqs = requests_for(objects, version, nodes, pods)

	def one(req):
		method, path, body, status = req
		created = cluster.must(method, path, body, ok=(201,))
		if status is not None:
			cluster.must("PUT", path + "/" + created["metadata"]["name"] + "/status", dict(created, status=status))
	for kind in ORDER:
		batch = [r for r in reqs if r[2]["kind"] == kind]
		if workers <= 1 or len(batch) <= 1:
			for r in batch:
				one(r)
		else:
			with concurrent.futures.ThreadPoolExecutor(workers) as ex:
				list(ex.map(one, batch))


def newest(cluster):
	"""The newest resource.k8s.io version the server serves; DRAUnavailable when it serves none."""
	versions = served_versions(cluster)
	if not versions:
		raise DRAUnavailable(unavailable(cluster, None))
	return versions[0]


def clear(cluster):
	"""Removes every resource.k8s.io object (a server without the group has none)."""
	versions = served_versions(cluster)
	if not versions:
		return
	v = versions[0]
	for kind in ORDER:
		res, namespaced = RESOURCES[kind]
		if not namespaced:
			cluster.must("DELETE", "/apis/%s/%s/%s" % (GROUP, v, res), ok=(200,))
			continue
		for o in cluster.list("/apis/%s/%s/%s" % (GROUP, v, res)):
			md = o["metadata"]
			cluster.call("DELETE", api_path(kind, v, md["namespace"], md["name"]))
