"""Writes: patch (with managed fields), delete (graceful for pods) and eviction."""

import copy
import json

import resource_versions
from apierrors import ApiError, not_found, status_dict
from kinds import KINDS, jdump, now_rfc3339
from patch import PatchError, json_patch, merge_patch
from selector import label_problems


def selects(budget, ns, labels):
	"""Whether a PodDisruptionBudget selects a pod of namespace ns with these labels (policy/v1: an empty
	selector selects every pod of its namespace, none selects none)."""
	if budget["metadata"].get("namespace") != ns:
		return False
	sel = (budget.get("spec") or {}).get("selector")
	if sel is None:
		return False
	for k, v in (sel.get("matchLabels") or {}).items():
		if labels.get(k) != v:
			return False
	for e in sel.get("matchExpressions") or []:
		op, key, vals = e.get("operator"), e.get("key"), e.get("values") or []
		if (op == "In" and labels.get(key) not in vals) or (op == "NotIn" and key in labels and labels[key] in vals) or \
				(op == "Exists" and key not in labels) or (op == "DoesNotExist" and key in labels):
			return False
	return True


def decode_body(body, what):
	"""The JSON document of a request body, or the API server's 400 for one it cannot decode."""
	try:
		return json.loads(body.decode("utf-8"))
	except (ValueError, UnicodeDecodeError) as e:
		raise ApiError(400, "BadRequest", "error decoding %s: %s" % (what, e)) from None


class WriteMixin:
	"""Write requests for Handler."""

	# -- patch ---------------------------------------------------------------------------------------------

	def patch(self, resource, ns, name, query, body):
		api = self.api
		st = api.store
		info = KINDS[resource]
		ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
		if ctype not in ("application/merge-patch+json", "application/strategic-merge-patch+json",
				"application/json-patch+json"):
			raise ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {})
		dry = query.get("dryRun")
		if dry not in (None, "All"):
			raise ApiError(400, "BadRequest", 'Invalid dry run value: "%s"' % dry)
		manager = query.get("fieldManager") or (self.headers.get("User-Agent") or "unknown").split("/")[0]
		patch = decode_body(body, "patch") if body else None
		key = "%s/%s" % (ns, name) if ns else name
		api_version = self.api_version or info["apiVersion"]
		with st.lock:
			cur = st.objs[resource].get(key)
			if cur is None:
				raise not_found(resource, name)
			# a patch speaks of the object in the version it was sent to
			cur = cur.at(api_version)
			try:
				if ctype == "application/json-patch+json":
					new = json_patch(cur.d, patch)
				else:
					if not isinstance(patch, dict):
						raise PatchError(400, "BadRequest", "json: cannot unmarshal %s into Go value of type "
							"map[string]interface {}" % type(patch).__name__)
					new = merge_patch(cur.d, patch)
			except PatchError as e:
				raise ApiError(e.code, e.reason, str(e), e.details) from None
			if not isinstance(new, dict) or not isinstance(new.get("metadata"), dict):
				raise ApiError(422, "Invalid", '%s "%s" is invalid: metadata: Required value' % (info["kind"], name))
			new = copy.deepcopy(new)
			meta = new["metadata"]
			want_rv = meta.get("resourceVersion")
			if want_rv is not None and str(want_rv) != cur.d["metadata"]["resourceVersion"]:
				raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the object has been '
					'modified; please apply your changes to the latest version and try again' % (resource, name),
					{"name": name, "kind": resource})
			for fld in ("labels", "annotations"):
				v = meta.get(fld)
				if v is not None and (not isinstance(v, dict) or any(not isinstance(x, str) for x in v.values())):
					raise ApiError(400, "BadRequest", "json: cannot unmarshal into Go struct field ObjectMeta.metadata."
						"%s of type string" % fld)
				if v == {}:
					del meta[fld]
			problems = label_problems(meta.get("labels"))
			if problems:
				msgs = ["metadata.labels: " + p for p in problems]
				text = msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"
				causes = []
				for p in problems:
					# A real API server reports each label problem four times (object and update validation).
					causes.extend([{"reason": "FieldValueInvalid", "message": p, "field": "metadata.labels"}] * 4)
				raise ApiError(422, "Invalid", '%s "%s" is invalid: %s' % (info["kind"], name, text),
					{"name": name, "kind": info["kind"], "causes": causes})
			for fixed in ("name", "namespace", "uid", "creationTimestamp"):
				if fixed in cur.d["metadata"]:
					meta[fixed] = cur.d["metadata"][fixed]
			meta["resourceVersion"] = cur.d["metadata"]["resourceVersion"]
			new["kind"], new["apiVersion"] = info["kind"], api_version
			if self.strip_mf(new) == self.strip_mf(cur.d):
				self.respond(200, cur.full() + b"\n", chunked=True)
				return
			self.update_managed_fields(cur.d, new, manager, api_version)
			if api_version != info["apiVersion"]:
				new = resource_versions.to_storage(new)
			o = st.put(resource, new, dry_run=(dry == "All"))
			self.respond(200, o.at(api_version).full() + b"\n", chunked=True)

	@staticmethod
	def strip_mf(d):
		m = dict(d.get("metadata", {}))
		m.pop("managedFields", None)
		m.pop("resourceVersion", None)
		return dict(d, metadata=m)

	@staticmethod
	def update_managed_fields(old, new, manager, api_version):
		"""Moves ownership of changed labels and annotations to manager, as server-side tracking does."""
		om, nm = old.get("metadata", {}), new["metadata"]
		mine = {}
		lost = {}
		for fld in ("labels", "annotations"):
			a = om.get(fld) or {}
			b = nm.get(fld) or {}
			mine[fld] = [k for k in b if a.get(k) != b[k]]
			lost[fld] = [k for k in a if k not in b] + mine[fld]
		entries = copy.deepcopy(nm.get("managedFields") or [])
		for e in entries:
			fm = e.get("fieldsV1", {}).get("f:metadata", {})
			for fld in ("labels", "annotations"):
				sub = fm.get("f:" + fld)
				if not isinstance(sub, dict):
					continue
				for k in lost[fld]:
					sub.pop("f:" + k, None)
				if not [x for x in sub if x != "."]:
					fm.pop("f:" + fld, None)
			if "f:metadata" in e.get("fieldsV1", {}) and not e["fieldsV1"]["f:metadata"]:
				del e["fieldsV1"]["f:metadata"]
		entries = [e for e in entries if e.get("fieldsV1")]
		if mine["labels"] or mine["annotations"]:
			ent = next((e for e in entries if e.get("manager") == manager and e.get("operation") == "Update" and
				"subresource" not in e), None)
			if ent is None:
				ent = {"manager": manager, "operation": "Update", "apiVersion": api_version, "time": "",
					"fieldsType": "FieldsV1", "fieldsV1": {}}
				entries.append(ent)
			ent["time"] = now_rfc3339()
			fm = ent["fieldsV1"].setdefault("f:metadata", {})
			for fld in ("labels", "annotations"):
				for k in mine[fld]:
					fm.setdefault("f:" + fld, {})["f:" + k] = {}
		if entries:
			nm["managedFields"] = entries
		else:
			nm.pop("managedFields", None)

	# -- delete and eviction -----------------------------------------------------------------------------

	def parse_delete_options(self, body, query):
		opts = {}
		if body:
			opts = decode_body(body, "DeleteOptions")
			if not isinstance(opts, dict):
				raise ApiError(400, "BadRequest", "error decoding DeleteOptions")
			# As the real server does: options come from the body when there is one, and the query's
			# (dryRun, gracePeriodSeconds) are then ignored.
			return opts
		if "gracePeriodSeconds" in query:
			try:
				opts["gracePeriodSeconds"] = int(query["gracePeriodSeconds"])
			except ValueError:
				raise ApiError(400, "BadRequest", "invalid gracePeriodSeconds") from None
		if query.get("dryRun") == "All":
			opts["dryRun"] = ["All"]
		return opts

	def delete(self, resource, ns, name, query, body):
		opts = self.parse_delete_options(body, query)
		o = self.do_delete(resource, ns, name, opts)
		self.respond(200, o.at(self.api_version).full() + b"\n", chunked=True)

	def do_delete(self, resource, ns, name, opts):
		api = self.api
		st = api.store
		info = KINDS[resource]
		key = "%s/%s" % (ns, name) if ns else name
		with st.lock:
			cur = st.objs[resource].get(key)
			if cur is None:
				raise not_found(resource, name)
			pre = opts.get("preconditions") or {}
			cm = cur.d["metadata"]
			if pre.get("uid") is not None and pre["uid"] != cm.get("uid"):
				raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the UID in the precondition '
					'(%s) does not match the UID in record (%s). The object might have been deleted and then recreated'
					% (info["kind"], name, pre["uid"], cm.get("uid")), {"name": name, "kind": info["kind"]})
			if pre.get("resourceVersion") is not None and str(pre["resourceVersion"]) != cm.get("resourceVersion"):
				raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the ResourceVersion in the '
					'precondition (%s) does not match the ResourceVersion in record (%s). The object might have been '
					'modified' % (info["kind"], name, pre["resourceVersion"], cm.get("resourceVersion")),
					{"name": name, "kind": info["kind"]})
			dry = "All" in (opts.get("dryRun") or [])
			if resource != "pods":
				if dry:
					return cur
				return st.remove(resource, key)
			if "deletionTimestamp" in cm:
				return cur
			grace = opts.get("gracePeriodSeconds")
			if grace is None:
				grace = cur.d.get("spec", {}).get("terminationGracePeriodSeconds", 30)
			d = copy.deepcopy(cur.d)
			m = d["metadata"]
			newmeta = {}
			for k, v in m.items():
				newmeta[k] = v
				if k == "creationTimestamp":
					newmeta["deletionTimestamp"] = now_rfc3339(int(grace))
					newmeta["deletionGracePeriodSeconds"] = int(grace)
			d["metadata"] = newmeta
			o = st.put("pods", d, dry_run=dry)
			if not dry:
				api.later(api.settings.delete_grace if grace else 0, api.finish_delete, key, m.get("uid"))
			return o

	def evict_by_budgets(self, ns, name, dry_run):
		"""The disruption budgets that select the pod, as the eviction subresource applies them: more than
		one is a 500, one with no disruption allowed a 429, else its allowance goes down by one."""
		store = self.api.store
		pod = store.get("pods", "%s/%s" % (ns, name)).d
		labels = (pod.get("metadata") or {}).get("labels") or {}
		budgets = [store.get("poddisruptionbudgets", k).d for k in store.keys("poddisruptionbudgets")]
		budgets = [b for b in budgets if selects(b, ns, labels)]
		if len(budgets) > 1:
			raise ApiError(500, "InternalError", "This pod has more than one PodDisruptionBudget, which the eviction "
				"subresource does not support.", {})
		if not budgets:
			return
		b = copy.deepcopy(budgets[0])
		status = b.setdefault("status", {})
		if int(status.get("disruptionsAllowed", 0)) < 1:
			raise ApiError(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.",
				{"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget %s needs %d healthy pods "
					"and has %d currently" % (b["metadata"]["name"], int(status.get("desiredHealthy", 1)),
					int(status.get("currentHealthy", 1)))}]})
		status["disruptionsAllowed"] = int(status["disruptionsAllowed"]) - 1
		if not dry_run:
			store.put("poddisruptionbudgets", b)

	def evict(self, ns, name, body, query=None):
		api = self.api
		opts = {}
		if body:
			ev = decode_body(body, "Eviction")
			if isinstance(ev, dict):
				opts = dict(ev.get("deleteOptions") or {})
		# ?dryRun=All on the subresource, as the API server takes it beside the body's
		if query and query.get("dryRun") == "All":
			opts["dryRun"] = ["All"]
		with api.store.lock:
			if api.store.get("pods", "%s/%s" % (ns, name)) is None:
				raise not_found("pods", name)
			self.evict_by_budgets(ns, name, "All" in (opts.get("dryRun") or []))
			if "%s/%s" % (ns, name) in api.settings.eviction_blocked or name in api.settings.eviction_blocked:
				raise ApiError(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.",
					{"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget %s-pdb needs 1 healthy "
						"pods and has 1 currently" % name.rsplit("-", 1)[0]}]})
			self.do_delete("pods", ns, name, opts)
		self.respond(201, jdump(status_dict(201, None, None, status="Success")) + b"\n")
