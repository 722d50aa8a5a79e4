"""The test control endpoints (/_fake/...) and the status faults they inject."""

import copy
import json

from apierrors import ApiError
import resource_versions
from kinds import KIND_TO_RESOURCE, KINDS, now_rfc3339
from store import new_uid, obj_key


class ControlMixin:
	"""Control endpoints and status faults for Handler."""

	# -- faults --------------------------------------------------------------------------------------------

	def fault_status(self, fault):
		code = int(fault.get("code", 500))
		ra = fault.get("retry_after")
		extra = [("Retry-After", str(ra))] if ra is not None else []
		if code == 429:
			details = {"retryAfterSeconds": int(ra)} if ra is not None else {}
			e = ApiError(429, "TooManyRequests", "Too many requests, please try again later.", details, headers=extra)
		elif code == 503:
			e = ApiError(503, "ServiceUnavailable", "the server is currently unable to handle the request",
				{"retryAfterSeconds": int(ra)} if ra is not None else {}, headers=extra)
		elif code == 504:
			e = ApiError(504, "Timeout", "the server was unable to return a response in the time allotted, but may "
				"still be processing the request", {}, headers=extra)
		else:
			e = ApiError(code, "InternalError", "Internal error occurred: injected fault",
				{"causes": [{"message": "injected fault"}]}, headers=extra)
		self.respond_error(e)

	# -- control endpoints ----------------------------------------------------------------------------------

	def control(self, path, query, body):
		api = self.api
		method = self.command
		try:
			data = json.loads(body.decode("utf-8")) if body else None
		except (ValueError, UnicodeDecodeError) as e:
			self.respond_control(400, {"error": "invalid JSON: %s" % e})
			return
		try:
			if path == "/_fake/requests" and method == "GET":
				with api.log_lock:
					out = list(api.log)
				self.respond_control(200, out)
			elif path == "/_fake/requests" and method == "DELETE":
				with api.log_lock:
					api.log = []
				self.respond_control(200, {})
			elif path == "/_fake/services" and method == "POST":
				key = "%s/%s:%s" % (data["namespace"], data["name"], data["port"])
				if data.get("url"):
					api.services[key] = data["url"]
				else:
					api.services.pop(key, None)
				self.respond_control(200, api.services)
			elif path == "/_fake/stats" and method == "GET":
				with api.store.lock:
					stats = {"open_watches": api.open_watches, "resourceVersion": str(api.store.rv),
						"objects": {res: len(api.store.objs[res]) for res in KINDS}}
				self.respond_control(200, stats)
			elif path == "/_fake/reset" and method == "POST":
				api.reset()
				self.respond_control(200, {"resourceVersion": str(api.store.rv)})
			elif path == "/_fake/faults" and method == "POST":
				fid = api.add_fault(data)
				self.respond_control(201, {"id": fid})
			elif path == "/_fake/faults" and method == "GET":
				with api.fault_lock:
					self.respond_control(200, list(api.faults))
			elif path == "/_fake/faults" and method == "DELETE":
				with api.fault_lock:
					api.faults = []
				self.respond_control(200, {})
			elif path == "/_fake/settings" and method in ("GET", "POST"):
				if method == "POST":
					api.settings.update(data or {})
				self.respond_control(200, api.settings.as_dict())
			elif path == "/_fake/objects" and method == "POST":
				self.control_put(data)
			elif path == "/_fake/objects" and method == "GET":
				with api.store.lock:
					out = [o.d for res in KINDS for o in api.store.objs[res].values()]
				self.respond_control(200, out)
			elif path.startswith("/_fake/objects/") and method == "DELETE":
				parts = path[len("/_fake/objects/"):].strip("/").split("/")
				res = parts[0]
				if res not in KINDS or len(parts) != (3 if KINDS[res]["namespaced"] else 2):
					self.respond_control(400, {"error": "use /_fake/objects/RESOURCE/[NAMESPACE/]NAME"})
					return
				o = api.store.remove(res, "/".join(parts[1:]))
				if o is None:
					self.respond_control(404, {"error": "not found"})
				else:
					self.respond_control(200, o.d)
			else:
				self.respond_control(404, {"error": "unknown control endpoint %s %s" % (method, path)})
		except ValueError as e:
			self.respond_control(400, {"error": str(e)})

	def control_put(self, d):
		api = self.api
		if not isinstance(d, dict) or d.get("kind") not in KIND_TO_RESOURCE:
			raise ValueError("the object needs the kind of a resource the server holds")
		res = KIND_TO_RESOURCE[d["kind"]]
		d = copy.deepcopy(d)
		if KINDS[res]["group"] == resource_versions.GROUP:
			# kept in the stored version, whichever the object was written in
			d = resource_versions.to_storage(d)
		d["apiVersion"] = KINDS[res]["apiVersion"]
		m = d.setdefault("metadata", {})
		if not m.get("name"):
			raise ValueError("the object needs metadata.name")
		if KINDS[res]["namespaced"]:
			m.setdefault("namespace", "default")
		with api.store.lock:
			prev = api.store.objs[res].get(obj_key(res, d))
			if "uid" not in m:
				m["uid"] = prev.d["metadata"]["uid"] if prev else new_uid()
			if "creationTimestamp" not in m:
				m["creationTimestamp"] = prev.d["metadata"].get("creationTimestamp") if prev else now_rfc3339()
			ordered = {"kind": d.pop("kind"), "apiVersion": d.pop("apiVersion")}
			ordered.update(d)
			o = api.store.put(res, ordered)
		self.respond_control(201 if prev is None else 200, o.d)
