"""The fake server's state: users and their permissions, settings, faults, the request log, and the
controllers that act on their own (graceful deletion, the DaemonSet controller)."""

import copy
import random
import secrets
import threading
import urllib.parse

import resource_versions
from hostile import HOSTILE_BAD_UTF8, HOSTILE_MODES, HOSTILE_TEXT, HUGE_BYTES, HUGE_PLACEHOLDER, hostile_objects
from kinds import now_rfc3339
from store import Store, load_scenario, new_uid

# A DaemonSet pod suffix uses the same alphabet as Kubernetes' generateName.
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def random_suffix(n=5):
	return "".join(random.choice(SUFFIX_ALPHABET) for _ in range(n))


# ---------------------------------------------------------------------------------------------------------
# Users and permissions


DEFAULT_USERS = {
	"admin": {"groups": ["system:masters", "system:authenticated"], "rules": [{"verbs": ["*"], "resources": ["*"]}]},
	"viewer": {"groups": ["system:authenticated"],
		"rules": [{"verbs": ["get", "list", "watch"], "resources": ["nodes", "pods"]}]},
	"nobody": {"groups": ["system:authenticated"], "rules": []},
}


def rule_allows(rule, verb, resource, ns):
	verbs = rule.get("verbs", [])
	res = rule.get("resources", [])
	if "*" not in verbs and verb not in verbs:
		return False
	if "*" not in res and resource not in res:
		return False
	namespaces = rule.get("namespaces")
	if namespaces is not None and (ns is None or ns not in namespaces):
		return False
	return True


# ---------------------------------------------------------------------------------------------------------
# Settings and the cluster's state


class Settings:
	def __init__(self, args):
		self.ds_ready_delay = args.ds_ready_delay
		self.never_ready_nodes = set()
		self.eviction_blocked = set()
		self.continue_ttl = args.continue_ttl
		self.delete_grace = args.delete_grace
		self.bookmark_interval = args.bookmark_interval
		# the resource.k8s.io versions served, newest first: none unless the scenario or --resource-versions
		# says so (the default server is a 1.26 one)
		self.resource_versions = ()

	def update(self, d):
		for k, v in d.items():
			if k in ("never_ready_nodes", "eviction_blocked"):
				setattr(self, k, set(v or ()))
			elif k == "resource_versions":
				self.resource_versions = resource_versions.served(v or ())
			elif k in ("ds_ready_delay", "continue_ttl", "delete_grace", "bookmark_interval"):
				setattr(self, k, None if v is None else float(v))
			else:
				raise ValueError("unknown setting %s" % k)

	def as_dict(self):
		return {"ds_ready_delay": self.ds_ready_delay, "never_ready_nodes": sorted(self.never_ready_nodes),
			"eviction_blocked": sorted(self.eviction_blocked), "continue_ttl": self.continue_ttl,
			"delete_grace": self.delete_grace, "bookmark_interval": self.bookmark_interval,
			"resource_versions": list(self.resource_versions)}


class FakeAPI:
	def __init__(self, args):
		self.args = args
		self.store = Store(args.watch_window)
		self.log = []
		self.log_lock = threading.Lock()
		self.faults = []
		self.fault_lock = threading.RLock()
		self.fault_seq = 0
		self.tokens_issued = {}
		self.stopping = False
		self.open_watches = 0
		self.objects, self.config = load_scenario(args.scenario)
		self.hostile = set(m for m in (args.hostile or "").split(",") if m)
		for m in self.hostile:
			if m not in HOSTILE_MODES:
				raise SystemExit("fakeapi: unknown hostile mode %s (one of %s)" % (m, ", ".join(HOSTILE_MODES)))
		if "text" in self.hostile:
			self.objects = hostile_objects(self.objects, HOSTILE_TEXT)
		if "badutf8" in self.hostile:
			self.objects = hostile_objects(self.objects, HOSTILE_BAD_UTF8)
		if "huge" in self.hostile:
			nodes = [d for d in self.objects if d.get("kind") == "Node"]
			if nodes:
				big = copy.deepcopy(nodes[0])
				big["metadata"].setdefault("annotations", {})["example.com/huge"] = HUGE_PLACEHOLDER
				self.objects = [big if d is nodes[0] else d for d in self.objects]
		self.users = copy.deepcopy(DEFAULT_USERS)
		self.services = {}  # "NS/NAME:PORT" -> upstream base URL, for the service proxy
		for name, u in self.config.get("users", {}).items():
			self.users[name] = dict({"groups": ["system:authenticated"], "rules": []}, **u)
		self.tokens = {}
		self.reset()

	def reset(self):
		self.settings = Settings(self.args)
		self.settings.update(self.config.get("settings", {}))
		if self.args.resource_versions is not None:
			# the command line serves the scenario's cluster in other versions (or without the group)
			self.settings.update({"resource_versions": self.args.resource_versions})
		self.store.clear(1)
		# Stored objects are never changed in place (every change stores a new dict), so the loaded
		# dicts can be shared between resets.
		self.store.load(self.objects)
		if "huge" in self.hostile:
			for o in self.store.objs["nodes"].values():
				if HUGE_PLACEHOLDER in ((o.d.get("metadata") or {}).get("annotations") or {}).values():
					o._item = o.item().replace(HUGE_PLACEHOLDER.encode(), b"h" * HUGE_BYTES)
		with self.log_lock:
			self.log = []
		with self.fault_lock:
			self.faults = []
			for f in self.config.get("faults", []):
				self.add_fault(f)
		self.tokens_issued = {}

	def add_fault(self, f):
		if not isinstance(f, dict) or not isinstance(f.get("fault"), dict) or "type" not in f["fault"]:
			raise ValueError("a fault needs {\"fault\":{\"type\":...}}")
		if f["fault"]["type"] not in ("status", "reset", "truncate", "malformed", "html", "delay", "drip",
				"expire_continue", "warning", "gzip_cut", "gzip_corrupt"):
			raise ValueError("unknown fault type %s" % f["fault"]["type"])
		with self.fault_lock:
			self.fault_seq += 1
			times = f.get("times", 1)
			self.faults.append({"id": self.fault_seq, "match": f.get("match") or {}, "fault": f["fault"],
				"remaining": None if times is None or times <= 0 else int(times)})
			return self.fault_seq

	def take_fault(self, method, path, raw_query, has_continue):
		with self.fault_lock:
			for f in self.faults:
				m = f["match"]
				if m.get("method") and m["method"].upper() != method:
					continue
				if m.get("path_prefix") and not path.startswith(m["path_prefix"]):
					continue
				qc = m.get("query_contains")
				if qc and qc not in raw_query and qc not in urllib.parse.unquote_plus(raw_query):
					continue
				if f["fault"]["type"] == "expire_continue" and not has_continue:
					continue
				if f["remaining"] is not None:
					f["remaining"] -= 1
					if f["remaining"] <= 0:
						self.faults.remove(f)
				return f["fault"]
		return None

	def record(self, entry):
		with self.log_lock:
			self.log.append(entry)

	# -- deferred work (graceful deletion, the DaemonSet controller) -------------------------------------

	def later(self, delay, fn, *a):
		gen = self.store.generation

		def run():
			if self.stopping or self.store.generation != gen:
				return
			fn(*a)
		t = threading.Timer(max(0.0, delay), run)
		t.daemon = True
		t.start()

	def finish_delete(self, key, uid):
		st = self.store
		with st.lock:
			cur = st.objs["pods"].get(key)
			if cur is None or cur.d["metadata"].get("uid") != uid:
				return
			gone = st.remove("pods", key)
			self.ds_replace(gone.d)

	def ds_replace(self, old):
		"""The DaemonSet controller: a deleted pod owned by a DaemonSet comes back on the same node while the
		DaemonSet still selects the node; otherwise the DaemonSets that select it now get their pods there."""
		st = self.store
		m = old.get("metadata", {})
		ctl = next((r for r in m.get("ownerReferences", []) if r.get("controller") and r.get("kind") == "DaemonSet"),
			None)
		node = old.get("spec", {}).get("nodeName")
		if ctl is None or not node:
			return
		ns = m.get("namespace", "default")
		ds = st.objs["daemonsets"].get("%s/%s" % (ns, ctl.get("name")))
		if ds is None or ds.d["metadata"].get("uid") != ctl.get("uid"):
			return
		if not self.ds_selects(ds, node):
			# After a node's labels changed (a mode change): the old mode's DaemonSet leaves it, the new
			# mode's places its pod, as the real controller does when it sees the node change.
			self.ds_fill(node, old.get("status", {}))
			return
		ts = now_rfc3339()
		d = copy.deepcopy(old)
		if d.get("spec", {}).get("hostname") == m.get("name"):
			d["spec"].pop("hostname", None)
		self.ds_place(d, ts, ns, ctl["name"], node, old.get("status", {}))

	def ds_selects(self, ds, node):
		"""Whether a DaemonSet places a pod on node: the template's nodeSelector against the node's labels
		(node affinity is not looked at)."""
		template = ((ds.d.get("spec") or {}).get("template") or {}).get("spec") or {}
		selector = template.get("nodeSelector") or {}
		node_obj = self.store.objs["nodes"].get(node)
		labels = (node_obj.d["metadata"].get("labels") or {}) if node_obj is not None else {}
		return all(labels.get(k) == v for k, v in selector.items())

	def ds_fill(self, node, old_status):
		"""Places a pod, made from its template, for every DaemonSet that selects node and has none there."""
		st = self.store
		owners = set()
		for o in st.objs["pods"].values():
			if (o.d.get("spec") or {}).get("nodeName") == node:
				owners.update(r.get("uid") for r in o.d["metadata"].get("ownerReferences") or [])
		for key in sorted(st.objs["daemonsets"]):
			ds = st.objs["daemonsets"][key]
			dm = ds.d["metadata"]
			if dm.get("uid") in owners or not self.ds_selects(ds, node):
				continue
			template = (ds.d.get("spec") or {}).get("template") or {}
			ts = now_rfc3339()
			d = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": None, "generateName": None,
				"namespace": dm["namespace"], "uid": None, "creationTimestamp": ts,
				"labels": copy.deepcopy((template.get("metadata") or {}).get("labels") or {}),
				"ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": dm["name"],
					"uid": dm.get("uid"), "controller": True, "blockOwnerDeletion": True}]},
				"spec": dict(copy.deepcopy(template.get("spec") or {}), nodeName=node)}
			self.ds_place(d, ts, dm["namespace"], dm["name"], node, old_status)

	def ds_place(self, d, ts, ns, ds_name, node, old_status):
		"""Stores d as a new Pending pod of DaemonSet ds_name on node, to become Ready after the delay."""
		st = self.store
		nm = d["metadata"]
		while True:
			name = "%s-%s" % (ds_name, random_suffix())
			if "%s/%s" % (ns, name) not in st.objs["pods"]:
				break
		nm["name"] = name
		nm["generateName"] = ds_name + "-"
		nm["uid"] = new_uid()
		nm["creationTimestamp"] = ts
		nm.pop("deletionTimestamp", None)
		nm.pop("deletionGracePeriodSeconds", None)
		for mf in nm.get("managedFields", []):
			mf["time"] = ts
		containers = [c.get("name") for c in d.get("spec", {}).get("containers", [])]
		d["status"] = {
			"phase": "Pending",
			"conditions": [
				{"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": ts},
				{"type": "Ready", "status": "False", "lastProbeTime": None, "lastTransitionTime": ts,
					"reason": "ContainersNotReady", "message": "containers with unready status: [%s]" % " ".join(containers)},
				{"type": "ContainersReady", "status": "False", "lastProbeTime": None, "lastTransitionTime": ts,
					"reason": "ContainersNotReady", "message": "containers with unready status: [%s]" % " ".join(containers)},
				{"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": ts},
			],
			"hostIP": old_status.get("hostIP", ""),
			"startTime": ts,
			"containerStatuses": [{"name": c.get("name"), "state": {"waiting": {"reason": "ContainerCreating"}},
				"lastState": {}, "ready": False, "restartCount": 0, "image": c.get("image", ""), "imageID": "",
				"started": False} for c in d.get("spec", {}).get("containers", [])],
			"qosClass": old_status.get("qosClass", "BestEffort"),
		}
		if not d["status"]["hostIP"]:
			del d["status"]["hostIP"]
		st.put("pods", d)
		if node not in self.settings.never_ready_nodes:
			self.later(self.settings.ds_ready_delay, self.make_ready, "%s/%s" % (ns, name), nm["uid"],
				old_status.get("podIP") or old_status.get("hostIP"))

	def make_ready(self, key, uid, ip):
		st = self.store
		with st.lock:
			cur = st.objs["pods"].get(key)
			if cur is None or cur.d["metadata"].get("uid") != uid:
				return
			if cur.d.get("spec", {}).get("nodeName") in self.settings.never_ready_nodes:
				return
			d = copy.deepcopy(cur.d)
			ts = now_rfc3339()
			s = d["status"]
			s["phase"] = "Running"
			for c in s.get("conditions", []):
				c["status"] = "True"
				c["lastTransitionTime"] = ts
				c.pop("reason", None)
				c.pop("message", None)
			if ip:
				s["podIP"] = ip
				s["podIPs"] = [{"ip": ip}]
			for cs in s.get("containerStatuses", []):
				cs["state"] = {"running": {"startedAt": ts}}
				cs["ready"] = True
				cs["started"] = True
				cs["containerID"] = "containerd://" + secrets.token_hex(32)
			st.put("pods", d)
