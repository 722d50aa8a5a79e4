"""Reads: get, list (pages, continue tokens, the hostile lists), watch, namespaces and discovery."""

import base64
import bisect
import copy
import gzip
import json
import socket
import time
import uuid

import kpb
import resource_versions
from apierrors import ApiError, bad_resource_version, check_resource_version, not_found, status_dict
from handle_output import GZIP_MIN
from kinds import KINDS, PB_TYPE, jdump
from selector import SelectorError, field_match, label_match, parse_field_selector, parse_label_selector
from store import Obj, obj_key

# Namespaces a real cluster makes for itself.
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")

CONTINUE_EXPIRED_MSG = ("The provided continue parameter is too old to display a consistent list result. "
	"You can start a new list without the continue parameter, or use the continue token in this response to "
	"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list "
	"- objects that were created, modified, or deleted between the time the first chunk was returned and now "
	"may show up in the list.")


def decode_token(cont):
	"""The JSON inside a continue token (unpadded URL-safe base64, as the real server writes it)."""
	return json.loads(base64.urlsafe_b64decode(cont + "=" * (-len(cont) % 4)))


class ReadMixin:
	"""Read requests for Handler."""

	# -- namespaces and discovery --------------------------------------------------------------------------

	def namespaces(self, method, name, sub, user, groups):
		"""Namespaces, read only: those the scenario's objects are in and the four every cluster has."""
		if sub is not None:
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		if method != "GET":
			raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})
		self.authorize(user, groups, "get" if name else "list", "namespaces", "", None, name)
		st = self.api.store
		with st.lock:
			names = set(SYSTEM_NAMESPACES)
			for res in KINDS:
				if KINDS[res]["namespaced"]:
					names.update(o.d["metadata"]["namespace"] for o in st.objs[res].values())
			rv = str(st.rv)

		def ns_item(n):
			return {"metadata": {"name": n, "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, "namespace/" + n)),
				"resourceVersion": rv, "creationTimestamp": "2026-11-21T16:12:40Z",
				"labels": {"kubernetes.io/metadata.name": n}},
				"spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
		if name:
			if name not in names:
				raise not_found("namespaces", name)
			d = dict({"kind": "Namespace", "apiVersion": "v1"}, **ns_item(name))
			self.respond(200, jdump(d) + b"\n", chunked=True)
			return
		d = {"kind": "NamespaceList", "apiVersion": "v1", "metadata": {"resourceVersion": rv},
			"items": [ns_item(n) for n in sorted(names)]}
		self.respond(200, jdump(d) + b"\n", chunked=True)

	def discovery(self, path):
		port = self.server.server_address[1]
		p = path.rstrip("/")
		if p in ("/healthz", "/readyz", "/livez"):
			self.respond(200, b"ok", [("Content-Type", "text/plain; charset=utf-8"),
				("X-Content-Type-Options", "nosniff")])
			return
		if p == "/api":
			d = {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
				{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:%d" % port}]}
		elif p == "/apis":
			d = {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{"name": "apps", "versions": [
				{"groupVersion": "apps/v1", "version": "v1"}], "preferredVersion": {"groupVersion": "apps/v1",
				"version": "v1"}}]}
			if self.api.settings.resource_versions:
				d["groups"].append(resource_versions.group_entry(self.api.settings.resource_versions))
		elif p == "/api/v1":
			d = {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
				{"name": "nodes", "singularName": "", "namespaced": False, "kind": "Node",
					"verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
					"shortNames": ["no"]},
				{"name": "pods", "singularName": "", "namespaced": True, "kind": "Pod",
					"verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
					"shortNames": ["po"], "categories": ["all"]},
				{"name": "pods/eviction", "singularName": "", "namespaced": True, "group": "policy", "version": "v1",
					"kind": "Eviction", "verbs": ["create"]}]}
		else:
			d = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apps/v1", "resources": [
				{"name": "daemonsets", "singularName": "", "namespaced": True, "kind": "DaemonSet",
					"verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
					"shortNames": ["ds"], "categories": ["all"]}]}
		self.respond(200, jdump(d) + b"\n")

	def resource_discovery(self, version):
		"""/apis/resource.k8s.io and /apis/resource.k8s.io/VERSION where the server serves them; False (and no
		answer) where it does not."""
		served = self.api.settings.resource_versions
		if not served or (version is not None and version not in served):
			return False
		if version is None:
			d = dict({"kind": "APIGroup", "apiVersion": "v1"}, **resource_versions.group_entry(served))
		else:
			d = resource_versions.resource_list(version, served)
		self.respond(200, jdump(d) + b"\n")
		return True

	# -- get -----------------------------------------------------------------------------------------------

	def get(self, resource, ns, name, query):
		check_resource_version(query)
		o = self.api.store.get(resource, "%s/%s" % (ns, name) if ns else name)
		if o is None:
			raise not_found(resource, name)
		o = o.at(self.api_version)
		if self.want_pb and kpb.encodable(KINDS[resource]["kind"]):
			self.respond(200, kpb.object_body(KINDS[resource]["kind"], o.d), self.base_headers(PB_TYPE))
			return
		self.respond(200, o.full() + b"\n", chunked=True)

	# -- list ----------------------------------------------------------------------------------------------

	def selectors(self, resource, query):
		ls = query.get("labelSelector")
		fs = query.get("fieldSelector")
		if isinstance(ls, list):
			ls = ",".join(ls)
		if isinstance(fs, list):
			fs = ",".join(fs)
		try:
			lreq = parse_label_selector(ls)
			freq = parse_field_selector(fs, resource)
		except SelectorError as e:
			raise ApiError(400, "BadRequest", str(e)) from None
		return ls or "", fs or "", lreq, freq

	def list(self, resource, ns, query):
		api = self.api
		st = api.store
		ls, fs, lreq, freq = self.selectors(resource, query)
		limit = query.get("limit")
		try:
			limit = int(limit) if limit not in (None, "") else 0
		except ValueError:
			raise ApiError(400, "BadRequest", 'strconv.ParseInt: parsing "%s": invalid syntax' % limit) from None
		cont = query.get("continue") or ""
		if ("repeat-continue" in api.hostile or "endless" in api.hostile):
			return self.hostile_page(resource, ns, lreq, freq, limit or 500, cont)
		if query.get("resourceVersion") == "0" and not cont:
			# served from the watch cache: the whole list, whatever the limit
			limit = 0
		fmt = "pb" if self.want_pb and kpb.encodable(KINDS[resource]["kind"]) else "json"
		start = ""
		token_rv = None
		if cont:
			# The real server's wording: "invalid continue token: " around storage.DecodeContinue's error.
			bad = "invalid continue token: continue key is not valid: "
			try:
				tok = decode_token(cont)
				if not isinstance(tok, dict):
					raise ValueError
			except (ValueError, TypeError):
				raise ApiError(400, "BadRequest", bad + "invalid character looking for beginning of value") from None
			if tok.get("v") != "meta.k8s.io/v1":
				raise ApiError(400, "BadRequest", bad + "server does not recognize this encoded version %s" %
					tok.get("v", ""))
			try:
				start = tok["start"]
				token_rv = int(tok["rv"])
				if token_rv <= 0 or not isinstance(start, str):
					raise ValueError
			except (ValueError, KeyError, TypeError):
				raise ApiError(400, "BadRequest", bad + "incorrect encoded start resourceVersion "
					"(version meta.k8s.io/v1)") from None
			expired = self.fault is not None and self.fault["type"] == "expire_continue"
			ttl = api.settings.continue_ttl
			issued = api.tokens_issued.get(cont)
			if ttl is not None and issued is not None and time.monotonic() - issued > ttl:
				expired = True
			if 0 <= token_rv < st.compacted:
				# A token from before the last reset or compaction cannot be served consistently.
				expired = True
			if expired:
				self.fault = None
				newtok = self.make_token(-1, start)
				raise ApiError(410, "Expired", CONTINUE_EXPIRED_MSG, metadata={"continue": newtok})
		key = (resource, ns, ls, fs, limit, cont, fmt, self.api_version)
		with st.lock:
			page = st.pages.get(key)
			if page is None:
				page = self.render_page(resource, ns, lreq, freq, bool(ls or fs), limit, start, token_rv, fmt,
					self.api_version)
				st.pages[key] = page
		body, next_tok, gz_cell = page
		if next_tok:
			api.tokens_issued.setdefault(next_tok, time.monotonic())
		gz = None
		if self.accept_gzip and len(body) > GZIP_MIN and not self.fault:
			with st.lock:
				if gz_cell[0] is None:
					gz_cell[0] = gzip.compress(body, 1)
				gz = gz_cell[0]
		self.respond(200, body, self.base_headers(PB_TYPE) if fmt == "pb" else None, chunked=True, gz=gz)

	def hostile_page(self, resource, ns, lreq, freq, limit, cont):
		"""A page of a list that never ends: the same token again (repeat-continue), or new objects under a
		new token each time (endless)."""
		st = self.api.store
		info = KINDS[resource]
		with st.lock:
			objs = [st.objs[resource][k] for k in st.keys(resource)]
			rv = st.rv
		objs = [o for o in objs if (not ns or o.d.get("metadata", {}).get("namespace") == ns) and
			(not lreq or label_match(lreq, o.d.get("metadata", {}).get("labels") or {})) and
			(not freq or field_match(freq, o.d))]
		objs = [o.at(self.api_version) for o in objs]
		if "repeat-continue" in self.api.hostile:
			items = [o.item() for o in objs[:limit]]
			token = "aG9zdGlsZS1yZXBlYXQ"
		else:
			n = int(cont[len("endless-"):]) if cont.startswith("endless-") and cont[8:].isdigit() else 0
			items = []
			for i in range(limit if objs else 0):
				o = objs[i % len(objs)]
				name = o.d.get("metadata", {}).get("name", "x")
				# the stored bytes with a new name: fast enough that the client's budget, not this server,
				# is what ends the list
				old = b'"name":' + jdump(name)
				items.append(o.item().replace(old, b'"name":' + jdump("%s-endless-%d" % (name, n + i)), 1))
			token = "endless-%d" % (n + limit)
		head = jdump({"kind": info["list"], "apiVersion": self.api_version or info["apiVersion"],
			"metadata": {"resourceVersion": str(rv), "continue": token}})
		body = head[:-1] + b',"items":[' + b",".join(items) + b"]}"
		self.respond(200, body, chunked=True)

	def make_token(self, rv, start):
		raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"))
		return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

	def render_page(self, resource, ns, lreq, freq, selected, limit, start, token_rv, fmt="json", api_version=None):
		"""Renders one list page in api_version (default: the kind's stored one); called with the store lock
		held."""
		st = self.api.store
		info = KINDS[resource]
		api_version = api_version or info["apiVersion"]
		keys = st.keys(resource)
		objs = st.objs[resource]
		if token_rv is not None and token_rv > 0 and st.history and st.history[-1][0] > token_rv:
			# A continued list shows the state at the token's resourceVersion, like etcd's MVCC read:
			# undo the later events (the token would have expired had they left the history).
			objs = dict(objs)
			for erv, etype, eres, o, prev in reversed(st.history):
				if erv <= token_rv:
					break
				if eres != resource:
					continue
				k = obj_key(resource, o.d)
				if etype == "ADDED":
					objs.pop(k, None)
				else:
					objs[k] = prev
			keys = sorted(objs)
		prefix = ns + "/" if ns else ""
		lo = bisect.bisect_left(keys, prefix + start) if (prefix or start) else 0
		hi = bisect.bisect_left(keys, ns + "0") if ns else len(keys)  # "0" sorts right after "/"
		items = []
		last = None
		more = False
		i = lo
		while i < hi:
			k = keys[i]
			o = objs[k]
			if (not lreq or label_match(lreq, o.d.get("metadata", {}).get("labels") or {})) and \
					(not freq or field_match(freq, o.d)):
				if limit and len(items) >= limit:
					more = True
					break
				o = o.at(api_version)
				items.append(o.pb() if fmt == "pb" else o.item())
				last = k
			i += 1
		list_rv = token_rv if token_rv is not None and token_rv > 0 else st.rv
		meta = {"resourceVersion": str(list_rv)}
		next_tok = None
		if more:
			rel = last[len(prefix):] if prefix else last
			next_tok = self.make_token(list_rv, rel + "\x00")
			meta["continue"] = next_tok
			if not selected:
				meta["remainingItemCount"] = hi - i
		if fmt == "pb":
			return kpb.list_body(api_version, info["list"], meta, items), next_tok, [None]
		head = jdump({"kind": info["list"], "apiVersion": api_version, "metadata": meta})
		body = head[:-1] + b',"items":[' + b",".join(items) + b"]}\n"
		return body, next_tok, [None]

	# -- watch ---------------------------------------------------------------------------------------------

	def watch(self, resource, ns, query):
		api = self.api
		st = api.store
		_ls, _fs, lreq, freq = self.selectors(resource, query)
		bookmarks = str(query.get("allowWatchBookmarks", "")).lower() in ("1", "true")
		try:
			timeout = float(query["timeoutSeconds"]) if query.get("timeoutSeconds") not in (None, "") else None
		except ValueError:
			raise ApiError(400, "BadRequest", "invalid timeoutSeconds") from None
		rv_param = query.get("resourceVersion") or ""
		info = KINDS[resource]

		def matches(o):
			if o is None:
				return False
			m = o.d.get("metadata", {})
			if ns and m.get("namespace") != ns:
				return False
			return (not lreq or label_match(lreq, m.get("labels") or {})) and (not freq or field_match(freq, o.d))

		pb = self.want_pb and kpb.encodable(info["kind"])
		api_version = self.api_version or info["apiVersion"]

		def ev(t, o):
			o = o.at(api_version)
			if pb:
				return kpb.watch_frame(t, info["kind"], o.d)
			return b'{"type":"' + t.encode() + b'","object":' + o.full() + b"}\n"

		gen, initial, pos, too_old, last_rv, compacted = self.watch_start(resource, rv_param, matches, ev)
		h = self.base_headers(PB_TYPE + ";stream=watch" if pb else "application/json")
		h.append(("Transfer-Encoding", "chunked"))
		self._head(200, h)

		def send(data):
			if self.fault and self.fault["type"] in ("truncate", "reset"):
				self.wfile.write(b"%x\r\n" % len(data) + data[:len(data) // 2])
				self._break(self.fault["type"])
			if self.fault and self.fault["type"] == "malformed":
				data = data[:len(data) // 2] + b"\n"
			self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")

		if too_old is not None:
			st410 = status_dict(410, "Expired", "too old resource version: %d (%d)" % (too_old, compacted))
			send(kpb.watch_frame("ERROR", None, st410) if pb else b'{"type":"ERROR","object":' + jdump(st410) + b"}\n")
			self.wfile.write(b"0\r\n\r\n")
			return
		for data in initial:
			send(data)
		if "watch-backwards" in api.hostile:
			stale = self.backwards_events(resource, matches)
			if stale:
				send(stale)
		deadline = time.monotonic() + timeout if timeout is not None else None
		interval = api.settings.bookmark_interval or 1.0
		next_bm = time.monotonic() + interval
		while True:
			out = []
			with st.lock:
				while True:
					if api.stopping or st.generation != gen:
						break
					if pos - st.hist_base < 0:
						pos = st.hist_base
					if pos - st.hist_base < len(st.history):
						break
					now = time.monotonic()
					wait = min(next_bm - now, 1.0) if bookmarks else 1.0
					if deadline is not None:
						wait = min(wait, deadline - now)
					if wait <= 0:
						break
					if self.client_gone():
						self.close_connection = True
						return
					st.cond.wait(wait)
				if api.stopping or st.generation != gen:
					break
				while pos - st.hist_base < len(st.history):
					erv, etype, eres, o, prev = st.history[pos - st.hist_base]
					pos += 1
					if eres != resource:
						continue
					last_rv = erv
					now_m, prev_m = matches(o), matches(prev)
					if etype == "ADDED" and now_m:
						out.append(ev("ADDED", o))
					elif etype == "DELETED" and prev_m:
						out.append(ev("DELETED", o))
					elif etype == "MODIFIED":
						if now_m and prev_m:
							out.append(ev("MODIFIED", o))
						elif now_m:
							out.append(ev("ADDED", o))
						elif prev_m:
							out.append(ev("DELETED", o))
				cur_rv = st.rv
			for data in out:
				send(data)
			now = time.monotonic()
			final = deadline is not None and now >= deadline
			if bookmarks and (now >= next_bm or final):
				bm = self.bookmark(info, max(cur_rv, last_rv), api_version)
				send(kpb.watch_frame("BOOKMARK", info["kind"], bm) if pb else
					b'{"type":"BOOKMARK","object":' + jdump(bm) + b"}\n")
				next_bm = now + interval
			if final:
				break
		self.wfile.write(b"0\r\n\r\n")

	def watch_start(self, resource, rv_param, matches, ev):
		"""Where a watch from rv_param starts: (store generation, the initial ADDED events of a watch from the
		start, position in the history, the resourceVersion too old to start from or None, the store's
		resourceVersion, the compaction's)."""
		st = self.api.store
		initial = []
		too_old = None
		with st.lock:
			if rv_param in ("", "0"):
				for k in st.keys(resource):
					o = st.objs[resource][k]
					if matches(o):
						initial.append(ev("ADDED", o))
				pos = st.hist_base + len(st.history)
			else:
				try:
					rv = int(rv_param)
				except ValueError:
					raise bad_resource_version(rv_param) from None
				if rv < st.compacted:
					too_old = rv
				pos = st.hist_base
				while pos - st.hist_base < len(st.history) and st.history[pos - st.hist_base][0] <= rv:
					pos += 1
			return st.generation, initial, pos, too_old, st.rv, st.compacted

	def backwards_events(self, resource, matches):
		"""Events older than any list the client can have seen: every object again at resourceVersion 1 with
		its GPU figures and labels changed, and a node that never existed since."""
		st = self.api.store
		out = []
		with st.lock:
			objs = [st.objs[resource][k] for k in st.keys(resource)]
		for o in objs:
			if not matches(o):
				continue
			d = copy.deepcopy(o.at(self.api_version).d)
			d["metadata"]["resourceVersion"] = "1"
			d["metadata"].setdefault("labels", {})["example.com/stale"] = "true"
			if resource == "nodes":
				for part in ("capacity", "allocatable"):
					res = (d.get("status") or {}).get(part) or {}
					if "aliyun.com/gpu-mem" in res:
						res["aliyun.com/gpu-mem"] = "999"
			out.append(b'{"type":"MODIFIED","object":' + jdump(d) + b"}\n")
		if resource == "nodes" and objs:
			d = copy.deepcopy(objs[0].d)
			d["metadata"]["name"] = "stale-ghost"
			d["metadata"]["uid"] = str(uuid.uuid4())
			d["metadata"]["resourceVersion"] = "1"
			if matches(Obj(d)):
				out.append(b'{"type":"ADDED","object":' + jdump(d) + b"}\n")
		return b"".join(out)

	def client_gone(self):
		"""True when the peer closed a watch (or sent anything, which a watching HTTP/1.1 client never does)."""
		try:
			socket.socket.recv(self.connection, 1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
		except (BlockingIOError, InterruptedError):
			return False
		except OSError:
			return True
		return True  # b"" is EOF; any bytes mean the client is done with this stream

	@staticmethod
	def bookmark(info, rv, api_version=None):
		"""The empty object a BOOKMARK event carries, with the fields Go writes even when empty."""
		meta = {"resourceVersion": str(rv), "creationTimestamp": None}
		d = {"kind": info["kind"], "apiVersion": api_version or info["apiVersion"], "metadata": meta}
		empty_spec = {"ResourceSlice": {"driver": "", "pool": {"name": "", "generation": 0, "resourceSliceCount": 0}},
			"ResourceClaim": {"devices": {}}, "DeviceClass": {},
			"ResourceClaimTemplate": {"metadata": {"creationTimestamp": None}, "spec": {"devices": {}}}}
		if info["kind"] in empty_spec:
			d["spec"] = empty_spec[info["kind"]]
			if info["kind"] == "ResourceClaim":
				d["status"] = {}
		elif info["kind"] == "Pod":
			d["spec"] = {"containers": None}
			d["status"] = {}
		elif info["kind"] == "Node":
			d["spec"] = {}
			d["status"] = {"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}, "nodeInfo": {"machineID": "",
				"systemUUID": "", "bootID": "", "kernelVersion": "", "osImage": "", "containerRuntimeVersion": "",
				"kubeletVersion": "", "kubeProxyVersion": "", "operatingSystem": "", "architecture": ""}}
		else:
			d["spec"] = {"selector": None, "template": {"metadata": {"creationTimestamp": None},
				"spec": {"containers": None}}, "updateStrategy": {}}
			d["status"] = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
				"numberReady": 0}
		return d
