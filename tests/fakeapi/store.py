"""The object store (objects, resourceVersions, the watch history, cached list pages) and scenario loading."""

import copy
import json
import os
import threading
import uuid

import kpb
import resource_versions
from kinds import KIND_TO_RESOURCE, KINDS, jdump


class Obj:
	"""A stored object (never changed in place) with its serialised forms cached."""

	__slots__ = ("d", "_item", "_full", "_pb", "_views")

	def __init__(self, d):
		self.d = d
		self._item = None
		self._full = None
		self._pb = None
		self._views = None

	def at(self, api_version):
		"""The object as served in api_version: itself, or (a resource.k8s.io object asked for in another
		version) its conversion, made once and kept with its own serialised forms."""
		if api_version is None or self.d.get("apiVersion") == api_version or \
				not api_version.startswith(resource_versions.GROUP + "/"):
			return self
		if self._views is None:
			self._views = {}
		view = self._views.get(api_version)
		if view is None:
			view = self._views[api_version] = Obj(resource_versions.convert(self.d, api_version.rsplit("/", 1)[-1]))
		return view

	def pb(self):
		"""The object's own protobuf message (a list item)."""
		if self._pb is None:
			self._pb = kpb.item(self.d.get("kind"), self.d)
		return self._pb

	def item(self):
		if self._item is None:
			self._item = jdump({k: v for k, v in self.d.items() if k not in ("kind", "apiVersion")})
		return self._item

	def full(self):
		if self._full is None:
			d = self.d
			head = jdump({"kind": d.get("kind"), "apiVersion": d.get("apiVersion")})
			item = self.item()
			self._full = head[:-1] + (b"," + item[1:] if len(item) > 2 else b"}")
		return self._full


def obj_key(resource, d):
	m = d.get("metadata", {})
	if KINDS[resource]["namespaced"]:
		return "%s/%s" % (m.get("namespace", "default"), m.get("name"))
	return m.get("name")


def new_uid():
	return str(uuid.uuid4())



class Store:
	def __init__(self, window=10000):
		self.lock = threading.RLock()
		self.cond = threading.Condition(self.lock)
		self.window = window
		self.generation = 0
		self.clear(1)

	def clear(self, rv):
		with self.lock:
			self.objs = {k: {} for k in KINDS}
			self.sorted = {k: None for k in KINDS}
			self.rv = rv
			self.compacted = rv
			self.history = []   # (rv, type, resource, Obj, prev Obj or None)
			self.hist_base = 0  # absolute index of history[0]
			self.pages = {}
			self.generation += 1
			self.cond.notify_all()

	def load(self, objects):
		"""Loads objects keeping their resourceVersions; the watch window starts after them."""
		with self.lock:
			top = 0
			for d in objects:
				res = KIND_TO_RESOURCE.get(d.get("kind"))
				if res is None:
					continue
				if d.get("apiVersion") != KINDS[res]["apiVersion"] and KINDS[res]["group"] == resource_versions.GROUP:
					d = resource_versions.to_storage(d)
				m = d.setdefault("metadata", {})
				if KINDS[res]["namespaced"]:
					m.setdefault("namespace", "default")
				m.setdefault("uid", new_uid())
				if "resourceVersion" not in m:
					top += 1
					m["resourceVersion"] = None
				self.objs[res][obj_key(res, d)] = Obj(d)
			for res in KINDS:
				for o in self.objs[res].values():
					rv = o.d["metadata"]["resourceVersion"]
					if rv is not None:
						top = max(top, int(rv))
			self.rv = max(self.rv, top + 1)
			for res in KINDS:
				for o in self.objs[res].values():
					if o.d["metadata"]["resourceVersion"] is None:
						o.d["metadata"]["resourceVersion"] = str(self.next_rv())
			self.compacted = self.rv
			self.sorted = {k: None for k in KINDS}
			self.pages = {}

	def next_rv(self):
		self.rv += 1
		return self.rv

	def keys(self, res):
		if self.sorted[res] is None:
			self.sorted[res] = sorted(self.objs[res])
		return self.sorted[res]

	def get(self, res, key):
		with self.lock:
			return self.objs[res].get(key)

	def put(self, res, d, dry_run=False):
		"""Stores d (a new dict) with a new resourceVersion; emits ADDED or MODIFIED."""
		with self.lock:
			key = obj_key(res, d)
			prev = self.objs[res].get(key)
			if dry_run:
				return Obj(d)
			d["metadata"]["resourceVersion"] = str(self.next_rv())
			o = Obj(d)
			self.objs[res][key] = o
			if prev is None:
				self.sorted[res] = None
			self._event("ADDED" if prev is None else "MODIFIED", res, o, prev)
			return o

	def remove(self, res, key):
		with self.lock:
			prev = self.objs[res].pop(key, None)
			if prev is None:
				return None
			self.sorted[res] = None
			d = copy.deepcopy(prev.d)
			d["metadata"]["resourceVersion"] = str(self.next_rv())
			o = Obj(d)
			self._event("DELETED", res, o, prev)
			return o

	def _event(self, etype, res, o, prev):
		self.pages = {}
		self.history.append((self.rv, etype, res, o, prev))
		if len(self.history) > self.window:
			drop = len(self.history) - self.window
			self.compacted = self.history[drop - 1][0]
			del self.history[:drop]
			self.hist_base += drop
		self.cond.notify_all()


# ---------------------------------------------------------------------------------------------------------
# Scenario loading (a directory, or a generator spec "gen:key=value,...")


def load_scenario(spec):
	"""Returns (objects, config) for a scenario directory or a generator spec."""
	if spec.startswith("gen:"):
		import mkfixtures
		return mkfixtures.generate(spec[4:])
	objects = []
	config = {}
	if not os.path.isdir(spec):
		raise SystemExit("fakeapi: scenario %s: not a directory" % spec)
	for root, dirs, files in os.walk(spec):
		dirs.sort()
		for f in sorted(files):
			if not f.endswith(".json"):
				continue
			p = os.path.join(root, f)
			with open(p, encoding="utf-8") as fh:
				d = json.load(fh)
			if f == "scenario.json" and root == spec:
				config = d
				continue
			kind = d.get("kind", "")
			if kind.endswith("List"):
				item_kind = kind[:-4]
				api = d.get("apiVersion", "v1")
				for it in d.get("items", []):
					objects.append(dict({"kind": item_kind, "apiVersion": api}, **it))
			else:
				objects.append(d)
	return objects, config
