"""The status agent: a stand-in for the scheduler and the kubelet where the tests need one (binding
DaemonSet pods, marking them Running and Ready, finishing graceful deletions).
Part of envtest (envtest.py is the module to import)."""

import hashlib
import http.client
import json
import queue
import socket
import threading
import time


class StatusAgent:
	"""Plays the kubelet for pods the DaemonSet controller creates: after `delay` seconds marks them Running
	and Ready (never on nodes in never_ready_nodes), and finishes the graceful deletion of any bound pod after
	`terminate_delay` seconds.  It watches pods from the current resourceVersion on, so the scenario's own
	pods are left as they were loaded."""

	RETRIES = 40  # a failed step is tried again every 0.25 s, for 10 s

	def __init__(self, cluster, delay, terminate_delay):
		self.cluster = cluster
		self.delay = delay
		self.terminate_delay = terminate_delay
		self.never_ready_nodes = set()
		self.thread = None
		self.stopping = threading.Event()
		self.sock = None
		self.marked = 0
		self.removed = 0
		self.timers = queue.Queue()

	def start(self):
		if self.thread is not None:
			return
		self.stopping.clear()
		self.thread = threading.Thread(target=self._run, name="envtest-agent", daemon=True)
		self.thread.start()
		self.worker = threading.Thread(target=self._work, name="envtest-agent-work", daemon=True)
		self.worker.start()

	def stop(self):
		if self.thread is None:
			return
		self.stopping.set()
		self.timers.put(None)
		s = self.sock
		if s is not None:
			try:
				s.shutdown(socket.SHUT_RDWR)
			except OSError:
				pass
		self.thread.join(5)
		self.worker.join(5)
		self.thread = None

	def _run(self):
		c = self.cluster
		rv = None
		while not self.stopping.is_set():
			try:
				if rv is None:
					_, _, out = c.call("GET", "/api/v1/pods?limit=1", ctx=c.ssl_agent)
					rv = out["metadata"]["resourceVersion"]
				rv = self._watch(rv)
			except Exception:  # the server is going away, or the watch broke: start again
				if self.stopping.wait(0.2):
					return
				rv = None

	def _watch(self, rv):
		c = self.cluster
		conn = http.client.HTTPSConnection("127.0.0.1", c.port, context=c.ssl_agent, timeout=None)
		try:
			conn.request("GET", "/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=" + rv,
				headers={"Accept": "application/json", "User-Agent": "envtest-agent/1.0"})
			self.sock = conn.sock
			r = conn.getresponse()
			if r.status != 200:
				return None
			while not self.stopping.is_set():
				line = r.readline()
				if not line:
					return rv
				ev = json.loads(line)
				if ev.get("type") == "ERROR":
					return None
				obj = ev.get("object", {})
				rv = obj.get("metadata", {}).get("resourceVersion", rv)
				if ev.get("type") in ("ADDED", "MODIFIED"):
					self._consider(obj)
			return rv
		finally:
			self.sock = None
			conn.close()

	def _consider(self, pod):
		md, spec = pod["metadata"], pod.get("spec", {})
		node = spec.get("nodeName")
		if not node:
			# The DaemonSet controller leaves binding to the scheduler, naming the node in an affinity term.
			target = affinity_node(pod)
			if target and not md.get("deletionTimestamp"):
				self.timers.put((time.monotonic(), "bind", pod, 0))
			return
		if md.get("deletionTimestamp"):
			self.timers.put((time.monotonic() + self.terminate_delay, "remove", pod, 0))
			return
		owned = any(r.get("kind") == "DaemonSet" and r.get("controller") for r in md.get("ownerReferences", []))
		# Only the controller's own pods: a scenario's pods keep the status they were loaded with.
		made = any(m.get("manager") == "kube-controller-manager" and m.get("operation") == "Update"
			for m in md.get("managedFields", []))
		if owned and made and pod.get("status", {}).get("phase", "Pending") == "Pending" and node not in self.never_ready_nodes:
			self.timers.put((time.monotonic() + self.delay, "ready", pod, 0))

	def _work(self):
		pending = []
		while True:
			timeout = max(0, min(p[0] for p in pending) - time.monotonic()) if pending else None
			try:
				item = self.timers.get(timeout=timeout)
				if item is None:
					return
				pending.append(item)
			except queue.Empty:
				pass
			now = time.monotonic()
			due = [p for p in pending if p[0] <= now]
			pending = [p for p in pending if p[0] > now]
			for _, what, pod, tries in due:
				# A kubelet and a scheduler try again: a conflict, a slow or refused request under load
				# must not leave a pod unbound, never Ready or terminating for ever.
				try:
					done = {"ready": self.mark_ready, "bind": self.bind, "remove": self.remove}[what](pod)
				except Exception:  # pylint: disable=broad-except
					done = False
				if not done and tries < self.RETRIES and not self.stopping.is_set():
					pending.append((now + 0.25, what, pod, tries + 1))

	def mark_ready(self, pod):
		"""True when done or nothing is left to do; False to try again."""
		md = pod["metadata"]
		if pod["spec"]["nodeName"] in self.never_ready_nodes:
			return True
		path = "/api/v1/namespaces/%s/pods/%s" % (md["namespace"], md["name"])
		status, _, cur = self.cluster.call("GET", path, ctx=self.cluster.ssl_agent)
		if status == 404:
			return True
		if status != 200:
			return False
		if cur["metadata"]["uid"] != md["uid"] or cur["metadata"].get("deletionTimestamp") \
				or cur.get("status", {}).get("phase", "Pending") != "Pending":
			return True
		patch = running_status(cur)
		patch["metadata"] = {"resourceVersion": cur["metadata"]["resourceVersion"]}
		status, _, _ = self.cluster.call("PATCH", path + "/status", patch, ctx=self.cluster.ssl_agent,
			content_type="application/merge-patch+json")
		if status == 200:
			self.marked += 1
		return status == 200

	def bind(self, pod):
		"""Binds a pod to the node its affinity names, as the scheduler would."""
		md = pod["metadata"]
		body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": md["name"], "uid": md["uid"]},
			"target": {"apiVersion": "v1", "kind": "Node", "name": affinity_node(pod)}}
		status, _, _ = self.cluster.call("POST", "/api/v1/namespaces/%s/pods/%s/binding" % (md["namespace"],
			md["name"]), body, ctx=self.cluster.ssl_agent)
		return status in (200, 201, 404, 409)  # bound now, gone, or bound already

	def remove(self, pod):
		md = pod["metadata"]
		body = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
			"preconditions": {"uid": md["uid"]}}
		status, _, _ = self.cluster.call("DELETE", "/api/v1/namespaces/%s/pods/%s" % (md["namespace"], md["name"]),
			body, ctx=self.cluster.ssl_agent)
		if status in (200, 202):
			self.removed += 1
		return status in (200, 202, 404, 409)  # removed, gone, or another pod of that name now


def affinity_node(pod):
	"""The one node a pod's required node affinity names by metadata.name (a DaemonSet pod's), or None."""
	terms = pod.get("spec", {}).get("affinity", {}).get("nodeAffinity", {}) \
		.get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", [])
	for t in terms:
		for f in t.get("matchFields", []):
			if f.get("key") == "metadata.name" and f.get("operator") == "In" and len(f.get("values", [])) == 1:
				return f["values"][0]
	return None


def _now():
	return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def running_status(pod):
	"""A merge patch for pod status the way a kubelet reports a started, Ready pod."""
	now = _now()
	conds = [{"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
		for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")]
	containers = [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": True, "started": True,
		"restartCount": 0, "state": {"running": {"startedAt": now}}} for c in pod["spec"].get("containers", [])]
	return {"status": {"phase": "Running", "conditions": conds, "containerStatuses": containers,
		"hostIP": "127.0.0.1", "podIP": "10.244.0.%d" % (1 + int(hashlib.sha1(pod["metadata"]["name"].encode())
			.hexdigest(), 16) % 250), "startTime": now}}
