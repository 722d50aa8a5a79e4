"""The HTTP request handler: reading a request, authentication, impersonation, authorization, fault
injection and routing to the read, write and control handlers; also the service proxy."""

import http.server
import re
import ssl
import sys
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from apierrors import ApiError, check_resource_version, not_found, status_dict
from handle_control import ControlMixin
from handle_output import Abort, OutputMixin
from handle_read import ReadMixin
from handle_write import WriteMixin
import resource_versions
from kinds import KINDS, PB_TYPE, jdump
from state import rule_allows

VERSION_BODY = (b'{\n  "major": "1",\n  "minor": "26",\n  "gitVersion": "v1.26.1-rc.0+cf384344a742",\n'
	b'  "gitCommit": "cf384344a7422b8bc6b7624e08b3bc1196e8787b",\n  "gitTreeState": "archive",\n'
	b'  "buildDate": "2026-11-21T15:49:18Z",\n  "goVersion": "go1.19.8",\n  "compiler": "gc",\n'
	b'  "platform": "linux/amd64"\n}')

HTML_PAGE = ("<html>\r\n<head><title>{code} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>{code} Bad Gateway"
	"</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")

PROXY_RE = re.compile(r"^/api/v1/namespaces/([^/]+)/services/([^/]+)/proxy(/.*)?$")
ROUTE_RE = re.compile(r"^/(?:api/(v1)|apis/([^/]+)/([^/]+))(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?(?:/([^/]+))?/?$")
GROUP_RE = re.compile(r"^/apis/resource\.k8s\.io(?:/([^/]+))?/?$")


class Handler(OutputMixin, ReadMixin, WriteMixin, ControlMixin, http.server.BaseHTTPRequestHandler):
	"""One connection: its requests, one after the other (HTTP/1.1 keep-alive)."""

	protocol_version = "HTTP/1.1"
	server_version = "fakeapi"
	sys_version = ""

	def log_message(self, fmt, *args):
		pass

	def setup(self):
		super().setup()
		self.plain = not isinstance(self.request, ssl.SSLSocket)

	def finish(self):
		try:
			super().finish()
		except (OSError, ValueError):
			pass

	@property
	def api(self):
		return self.server.api

	# -- request handling --------------------------------------------------------------------------------

	def read_body(self):
		te = self.headers.get("Transfer-Encoding", "")
		if "chunked" in te.lower():
			parts = []
			while True:
				line = self.rfile.readline(65537)
				size = int(line.split(b";")[0].strip() or b"0", 16)
				if size == 0:
					while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
						pass
					break
				parts.append(self.rfile.read(size))
				self.rfile.readline(65537)
			return b"".join(parts)
		n = int(self.headers.get("Content-Length") or 0)
		return self.rfile.read(n) if n > 0 else b""

	def do_GET(self):
		self.dispatch()

	def do_POST(self):
		self.dispatch()

	def do_PATCH(self):
		self.dispatch()

	def do_DELETE(self):
		self.dispatch()

	def do_PUT(self):
		self.dispatch()

	def dispatch(self):
		self.user = None
		self.fault = None
		self.api_version = None
		self.resp_code = None
		self.accept_gzip = False
		body = self.read_body()
		parsed = urllib.parse.urlsplit(self.path)
		path = parsed.path
		raw_query = parsed.query
		self.raw_query = raw_query
		query = {}
		for k, v in urllib.parse.parse_qsl(raw_query, keep_blank_values=True):
			if k in query:
				query[k] = query[k] + [v] if isinstance(query[k], list) else [query[k], v]
			else:
				query[k] = v
		try:
			if path.startswith("/_fake/"):
				return self.control(path, query, body)
			if self.plain:
				self.respond(400, b"Client sent an HTTP request to an HTTPS server.\n",
					[("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")])
				self.close_connection = True
				return
			entry = {"method": self.command, "path": path, "query": query, "headers": self.header_dict(),
				"body": body.decode("utf-8", "replace") if body else None, "user": None, "groups": None,
				"time": time.time()}
			self.entry = entry
			try:
				self.serve_api(path, query, raw_query, body, entry)
			finally:
				entry["status"] = self.resp_code
				self.api.record(entry)
		except Abort:
			pass
		except (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError):
			self.close_connection = True
		except Exception:  # a bug here must show, not look like a network fault to the client under test
			traceback.print_exc(file=sys.stderr)
			self.close_connection = True
			if self.resp_code is None:
				try:
					self.respond(500, jdump(status_dict(500, "InternalError", "fakeapi: internal error")) + b"\n",
						[("Content-Type", "application/json")])
				except OSError:
					pass

	def header_dict(self):
		out = {}
		for k, v in self.headers.items():
			k = k.lower()
			if k in out:
				out[k] = out[k] + [v] if isinstance(out[k], list) else [out[k], v]
			else:
				out[k] = v
		return out

	def authenticate(self, entry):
		"""Returns (user, groups); raises ApiError 401 for unknown credentials."""
		api = self.api
		if not self.plain:
			try:
				cert = self.connection.getpeercert()
			except (ValueError, AttributeError):
				cert = None
			if cert:
				cn, groups = None, []
				for rdn in cert.get("subject", ()):
					for k, v in rdn:
						if k == "commonName":
							cn = v
						elif k == "organizationName":
							groups.append(v)
				if cn:
					entry["auth"] = "certificate"
					return cn, groups + ["system:authenticated"]
		authz = self.headers.get("Authorization")
		if authz:
			entry["auth"] = "token"
			parts = authz.split(None, 1)
			if len(parts) == 2 and parts[0].lower() == "bearer" and parts[1].strip() in api.tokens:
				name = api.tokens[parts[1].strip()]
				return name, list(api.users.get(name, {}).get("groups", ["system:authenticated"]))
			raise ApiError(401, "Unauthorized", "Unauthorized")
		entry["auth"] = "none"
		return "system:anonymous", ["system:unauthenticated"]

	def allowed(self, user, groups, verb, resource, ns):
		if "system:masters" in groups:
			return True
		u = self.api.users.get(user)
		if u is None:
			return False
		return any(rule_allows(r, verb, resource, ns) for r in u.get("rules", []))

	def authorize(self, user, groups, verb, resource, group, ns, name):
		if self.allowed(user, groups, verb, resource, ns):
			return
		base = resource.split("/")[0]
		subject = '%s "%s"' % (base, name) if name else base
		scope = 'in the namespace "%s"' % ns if ns else "at the cluster scope"
		msg = '%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s' % (
			subject, user, verb, resource, group, scope)
		details = {"name": name, "kind": base} if name else {"kind": base}
		if group:
			details["group"] = group
		raise ApiError(403, "Forbidden", msg, details)

	def serve_api(self, path, query, raw_query, body, entry):
		api = self.api
		# Like the API server: protobuf for the core kinds (and their errors) when the client
		# lists it in Accept.  The hostile modes are built on the JSON documents, so a hostile
		# server answers in JSON, which a client asking for protobuf must take too.
		self.want_pb = PB_TYPE in (self.headers.get("Accept") or "") and not api.hostile
		try:
			user, groups = self.authenticate(entry)
			entry["user"], entry["groups"] = user, groups
			self.user = user
			imp_user = self.headers.get("Impersonate-User")
			imp_groups = self.headers.get_all("Impersonate-Group") or []
			if imp_user or imp_groups:
				if not self.allowed(user, groups, "impersonate", "users", None):
					raise ApiError(403, "Forbidden", 'users "%s" is forbidden: User "%s" cannot impersonate resource '
						'"users" in API group "" at the cluster scope' % (imp_user or "", user),
						{"name": imp_user or "", "kind": "users"})
				entry["impersonated_user"] = imp_user
				entry["impersonated_groups"] = imp_groups
				user = imp_user or user
				groups = list(imp_groups) + ["system:authenticated"]
				if user in api.users and not imp_groups:
					groups = list(api.users[user].get("groups", [])) + groups
				entry["effective_user"] = user
			self.accept_gzip = "gzip" in (self.headers.get("Accept-Encoding") or "").lower()
			fault = api.take_fault(self.command, path, raw_query, "continue" in query)
			if fault:
				entry["fault"] = fault["type"]
				ftype = fault["type"]
				if ftype == "delay":
					time.sleep(float(fault.get("seconds", 1)))
				elif ftype == "status":
					self.fault_status(fault)
					return
				elif ftype == "html":
					code = int(fault.get("code", 502))
					page = HTML_PAGE.format(code=code).encode()
					self.respond(code, page, [("Content-Type", "text/html"), ("Connection", "close")])
					self.close_connection = True
					return
				else:
					self.fault = fault
			self.route(path, query, body, user, groups, entry)
		except ApiError as e:
			self.respond_error(e)

	def route(self, path, query, body, user, groups, entry):
		method = self.command
		if path == "/version" or path == "/version/":
			if method != "GET":
				raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
					{})
			self.respond(200, resource_versions.version_body(self.api.settings.resource_versions) or VERSION_BODY)
			return
		if path in ("/api", "/api/", "/apis", "/apis/", "/api/v1", "/apis/apps/v1", "/healthz", "/readyz", "/livez"):
			self.discovery(path)
			return
		m = GROUP_RE.match(path)
		if m and self.resource_discovery(m.group(1)):
			return
		m = PROXY_RE.match(path)
		if m:
			self.service_proxy(m.group(1), m.group(2), m.group(3) or "/", body, user, groups)
			return
		m = ROUTE_RE.match(path)
		if not m:
			if user == "system:anonymous":
				raise ApiError(403, "Forbidden", 'forbidden: User "system:anonymous" cannot %s path "%s"' % (
					method.lower(), path), {})
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		core, group, version, ns, resource, name, sub = m.groups()
		# path segments arrive percent-encoded, as the API server reads them
		ns = urllib.parse.unquote(ns) if ns is not None else None
		name = urllib.parse.unquote(name) if name is not None else None
		if core and resource == "namespaces" and ns is None:
			self.namespaces(method, name, sub, user, groups)
			return
		group = group or ""
		info = KINDS.get(resource)
		if info is None or info["group"] != group or not self.serves(group, version or core) or \
				(ns is not None and not info["namespaced"]):
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		self.api_version = "%s/%s" % (group, version) if group else core
		if sub is not None and not (resource == "pods" and sub == "eviction") and \
				not (resource == "resourceclaims" and sub == "status" and method == "GET"):
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		if name is None:
			if method != "GET":
				raise ApiError(405, "MethodNotAllowed",
					"the server does not allow this method on the requested resource", {})
			watch = str(query.get("watch", "")).lower() in ("1", "true")
			verb = "watch" if watch else "list"
			self.authorize(user, groups, verb, resource, group, ns, None)
			check_resource_version(query)
			if watch:
				with self.api.store.lock:
					self.api.open_watches += 1
				try:
					self.watch(resource, ns, query)
				finally:
					with self.api.store.lock:
						self.api.open_watches -= 1
			else:
				self.list(resource, ns, query)
			return
		if sub == "eviction":
			if method != "POST":
				raise ApiError(405, "MethodNotAllowed",
					"the server does not allow this method on the requested resource", {})
			self.authorize(user, groups, "create", "pods/eviction", group, ns, name)
			self.evict(ns, name, body, query)
			return
		if method == "GET":
			self.authorize(user, groups, "get", resource, group, ns, name)
			self.get(resource, ns, name, query)
		elif method == "PATCH":
			self.authorize(user, groups, "patch", resource, group, ns, name)
			self.patch(resource, ns, name, query, body)
		elif method == "DELETE":
			self.authorize(user, groups, "delete", resource, group, ns, name)
			self.delete(resource, ns, name, query, body)
		else:
			raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
				{})

	def serves(self, group, version):
		"""Whether this server serves group/version (the DRA group in the scenario's versions)."""
		if group == resource_versions.GROUP:
			return version in self.api.settings.resource_versions
		return version == "v1" and group in ("", "apps", "policy")

	def service_proxy(self, ns, svc, sub, body, user, groups):
		"""The API server's service proxy: /api/v1/namespaces/NS/services/[SCHEME:]NAME[:PORT]/proxy/PATH,
		forwarded to the upstream registered for that service (POST /_fake/services), without the caller's
		credentials, as kube-apiserver does."""
		parts = svc.split(":")
		if len(parts) == 3:
			parts = parts[1:]
		name = parts[0]
		verb = {"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(
			self.command, "get")
		self.authorize(user, groups, verb, "services/proxy", "", ns, name)
		upstream = self.api.services.get("%s/%s" % (ns, ":".join(parts)))
		if upstream is None and len(parts) == 1:
			upstream = next((u for k, u in self.api.services.items() if k.startswith("%s/%s:" % (ns, name))), None)
		if upstream is None:
			raise not_found("services", name)
		url = upstream.rstrip("/") + sub + ("?" + self.raw_query if self.raw_query else "")
		req = urllib.request.Request(url, data=body if self.command != "GET" else None, method=self.command,
			headers={"Accept": self.headers.get("Accept") or "*/*"})
		try:
			# loopback upstreams only: never through an environment proxy
			with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=60) as r:
				code, ctype, payload = r.status, r.headers.get("Content-Type"), r.read()
		except urllib.error.HTTPError as e:
			code, ctype, payload = e.code, e.headers.get("Content-Type"), e.read()
		except (OSError, urllib.error.URLError) as e:
			reason = getattr(e, "reason", e)
			raise ApiError(503, "ServiceUnavailable", "error trying to reach service: %s" % reason, {}) from None
		self.respond(code, payload, [("Content-Type", ctype or "application/octet-stream")])
