"""Helpers for the end-to-end tests: start the fake API server and run the plugin against it.

    from harness import FakeAPI, run_plugin

    with FakeAPI("seed002") as api:
        r = run_plugin(["--kubeconfig", api.kubeconfig])
        api.requests()       # what the plugin sent

FakeAPI(scenario, **options): scenario is a name under fixtures/scenarios/, a path, or a generator spec
("gen:nodes=100,pods=2000"); options become fakeapi.py flags (continue_ttl=2 -> --continue-ttl 2,
prerender=True -> --prerender).

Tests whose behaviour must be the same against a real API server use the backend fixture instead:

    with APIServer("seed002") as api:     # FakeAPI, or RealAPI when CGPU_BACKEND=real
        ...
    @fake_only("fault injection")        # a test or class that needs the fake server's controls

RealAPI loads the scenario into one real control plane per test process (tests/envtest/envtest.py),
started on first use; requests() is read from its audit log.  The tier runs with CGPU_BACKEND=real
(meson test suite "real").

Either backend can be put behind the fault-injecting proxy (tests/faultproxy/faultproxy.py), which breaks
connections, answers 503 or holds requests, on both alike:

    with APIServer("pools-pro") as api, Proxied(api) as proxy:
        proxy.arm("drop_after", methods="writes", nth=3)   # the third write is done, its answer lost
        run_plugin(["mode", "isolate", "--pool", "np-cgpu", "--kubeconfig", proxy.kubeconfig])
        proxy.log()                                         # what the proxy saw, and what it broke
"""

import base64
import contextlib
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FAKEAPI = os.path.join(ROOT, "tests", "fakeapi", "fakeapi.py")
SCENARIOS = os.path.join(ROOT, "fixtures", "scenarios")
sys.path.insert(0, os.path.join(ROOT, "tests", "envtest"))
sys.path.insert(0, os.path.join(ROOT, "tests", "faultproxy"))

import envtest  # noqa: E402  (after the path it is found on)
import faultproxy  # noqa: E402


def plugin_path():
	"""The plugin under test (CGPU_PLUGIN), or None when it is not built."""
	p = os.environ.get("CGPU_PLUGIN")
	return p if p and os.path.exists(p) else None


def built_plugin():
	"""The plugin under test; in a setUpClass, skips the class when the plugin is not built."""
	p = plugin_path()
	if p is None:
		raise unittest.SkipTest("the plugin is not built")
	return p


@contextlib.contextmanager
def reaped(proc):
	"""proc (a subprocess.Popen) for the block, killed and waited for at its end if it still runs."""
	try:
		yield proc
	finally:
		if proc.poll() is None:
			proc.kill()
			proc.wait()


def wait_for(condition, timeout=10):
	"""Polls condition() until it is true or timeout seconds have passed; returns its last value."""
	deadline = time.monotonic() + timeout
	while True:
		ok = condition()
		if ok or time.monotonic() >= deadline:
			return ok
		time.sleep(0.05)


def meson_build_dir():
	"""The meson build directory the plugin was built in, to install from; in a setUpClass, skips the
	class without one (or without meson)."""
	build = os.path.dirname(os.path.dirname(os.path.abspath(built_plugin())))
	if shutil.which("meson") is None:
		raise unittest.SkipTest("meson is not installed")
	if not os.path.isdir(os.path.join(build, "meson-private")):
		raise unittest.SkipTest("%s is not a meson build directory" % build)
	return build


def run_plugin(args, env=None, timeout=60, input=None):
	"""Runs the plugin with args; returns subprocess.CompletedProcess with text stdout/stderr."""
	p = plugin_path()
	if p is None:
		raise RuntimeError("CGPU_PLUGIN is not set or does not exist")
	e = dict(os.environ, LC_ALL="C", TZ="UTC", NO_COLOR="1")
	e.update(env or {})
	return subprocess.run([p] + list(args), capture_output=True, text=True, env=e, timeout=timeout, input=input)


def run_on_terminal(args, answer, before_answer=None, stdout_pipe=False):
	"""The plugin run with args on a pseudo-terminal (stdin, stdout and stderr; stdout a pipe instead with
	stdout_pipe, as in `| tee`): answers the first [y/N] question with answer (after calling before_answer,
	if given); (exit status, what it printed on the terminal, what it printed on the pipe)."""
	import pty
	import select
	master, slave = pty.openpty()
	env = dict(os.environ, LC_ALL="C", TZ="UTC", NO_COLOR="1", TERM="dumb")
	proc = subprocess.Popen([plugin_path()] + list(args), stdin=slave, stdout=subprocess.PIPE if stdout_pipe else slave,
		stderr=slave, env=env)
	os.close(slave)
	out = b""
	answered = False
	deadline = time.monotonic() + 30
	try:
		while time.monotonic() < deadline:
			ready, _, _ = select.select([master], [], [], 0.2)
			if ready:
				try:
					chunk = os.read(master, 4096)
				except OSError:
					break
				if not chunk:
					break
				out += chunk
			if not answered and b"[y/N]" in out:
				if before_answer is not None:
					before_answer()
				os.write(master, answer)
				answered = True
			if proc.poll() is not None and not ready:
				break
		proc.wait(timeout=10)
	finally:
		if proc.poll() is None:
			proc.kill()
			proc.wait()
		os.close(master)
	piped = proc.stdout.read().decode(errors="replace") if stdout_pipe else ""
	if stdout_pipe:
		proc.stdout.close()
	return proc.returncode, out.decode(errors="replace"), piped

class Started:
	"""A fixture for `with`: start() on entering the block, stop() on leaving it."""

	def __enter__(self):
		return self.start()

	def __exit__(self, *exc):
		self.stop()
		return False


def stop_process(proc, timeout):
	"""Ends proc: SIGTERM, and SIGKILL when it has not exited after timeout seconds."""
	if proc.poll() is None:
		proc.terminate()
		try:
			proc.wait(timeout)
		except subprocess.TimeoutExpired:
			proc.kill()
			proc.wait()


class FakeAPI(Started):
	backend = "fake"

	def __init__(self, scenario, **options):
		if not scenario.startswith("gen:") and not os.path.isdir(scenario):
			scenario = os.path.join(SCENARIOS, scenario)
		self.scenario = scenario
		self.options = options
		self.proc = None
		self.state_dir = None

	def start(self, timeout=10):
		self.state_dir = tempfile.mkdtemp(prefix="fakeapi-")
		# -S: the server needs only the standard library, and site-packages hooks slow the start.
		cmd = [sys.executable, "-S", FAKEAPI, "--scenario", self.scenario, "--state-dir", self.state_dir, "--port", "0"]
		for k, v in self.options.items():
			flag = "--" + k.replace("_", "-")
			if v is True:
				cmd.append(flag)
			elif v is not False and v is not None:
				cmd += [flag, str(v)]
		self.t_start = time.monotonic()
		self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
		line = self.proc.stdout.readline()
		self.startup_seconds = time.monotonic() - self.t_start
		if not line.startswith("port "):
			err = self.proc.stderr.read() if self.proc.poll() is not None else ""
			self.stop()
			raise RuntimeError("fakeapi did not start: %r %s" % (line, err))
		self.port = int(line.split()[1])
		self.url = "https://127.0.0.1:%d" % self.port
		self.kubeconfig = os.path.join(self.state_dir, "kubeconfig")
		self.ca = os.path.join(self.state_dir, "ca.crt")
		self.ssl = ssl.create_default_context(cafile=self.ca)
		self.ssl.load_cert_chain(os.path.join(self.state_dir, "admin.crt"), os.path.join(self.state_dir, "admin.key"))
		self.ssl_anon = ssl.create_default_context(cafile=self.ca)
		self.client_cert = (os.path.join(self.state_dir, "admin.crt"), os.path.join(self.state_dir, "admin.key"))
		self.tokens = self._read_tokens()
		with open(os.path.join(self.state_dir, "startup.json")) as f:
			self.ready_seconds = json.load(f)["seconds"]
		return self

	def _read_tokens(self):
		tokens = {}
		cur = None
		with open(self.kubeconfig) as f:
			in_users = False
			for line in f:
				if line.startswith("users:"):
					in_users = True
				elif in_users and line.startswith("- name: "):
					cur = line.split(": ", 1)[1].strip()
				elif in_users and line.strip().startswith("token: ") and cur:
					tokens[cur] = line.split(": ", 1)[1].strip()
		return tokens

	def stop(self):
		if self.proc is not None:
			stop_process(self.proc, 5)
			self.returncode = self.proc.returncode
			self.stderr = self.proc.stderr.read() if self.proc.stderr else ""
			for f in (self.proc.stdout, self.proc.stderr):
				if f:
					f.close()
			self.proc = None
		if self.state_dir:
			shutil.rmtree(self.state_dir, ignore_errors=True)
			self.state_dir = None

	# -- control endpoints ---------------------------------------------------------------------------------

	def control(self, method, path, body=None):
		data = json.dumps(body).encode() if body is not None else None
		req = urllib.request.Request(self.url + path, data=data, method=method,
			headers={"Content-Type": "application/json"})
		try:
			with urllib.request.urlopen(req, context=self.ssl_anon, timeout=30) as r:
				return json.loads(r.read() or b"null")
		except urllib.error.HTTPError as e:
			raise RuntimeError("fakeapi control %s %s: %d %s" % (method, path, e.code, e.read().decode())) from None

	def requests(self):
		"""The request log: dicts with method, path, query, headers, body, user, groups, status."""
		return self.control("GET", "/_fake/requests")

	def clear_requests(self):
		self.control("DELETE", "/_fake/requests")

	def put_object(self, obj):
		return self.control("POST", "/_fake/objects", obj)

	def delete_object(self, kind, ns, name):
		path = "/_fake/objects/%s/%s%s" % (kind, ns + "/" if ns else "", name)
		return self.control("DELETE", path)

	def objects(self):
		return self.control("GET", "/_fake/objects")

	def fault(self, match, fault, times=1):
		return self.control("POST", "/_fake/faults", {"match": match or {}, "fault": fault, "times": times})

	def settings(self, **kw):
		return self.control("POST", "/_fake/settings", kw)

	def stats(self):
		"""{"open_watches": N, "resourceVersion": RV, "objects": {"nodes": N, ...}}"""
		return self.control("GET", "/_fake/stats")

	def reset(self):
		return self.control("POST", "/_fake/reset")

	# -- a small Kubernetes client for tests ---------------------------------------------------------------

	def call(self, method, path, body=None, headers=None, token=None, cert=True, raw=False):
		"""Sends an API request; returns (status, headers, body bytes or parsed JSON)."""
		h = {"Accept": "application/json", "User-Agent": "fakeapi-test/1.0"}
		if token is not None:
			h["Authorization"] = "Bearer " + token
		h.update(headers or {})
		data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
		req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
		ctx = self.ssl if cert and token is None else self.ssl_anon
		try:
			with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
				status, hdrs, payload = r.status, r.headers, r.read()
		except urllib.error.HTTPError as e:
			status, hdrs, payload = e.code, e.headers, e.read()
		if raw:
			return status, hdrs, payload
		try:
			return status, hdrs, json.loads(payload)
		except ValueError:
			return status, hdrs, payload


# ---- the backend fixture: the fake API server or a real one -----------------------------------------------

def backend():
	"""The API server the e2e tests run against: "fake" (default) or "real" (CGPU_BACKEND)."""
	return os.environ.get("CGPU_BACKEND", "fake")


def fake_only(reason):
	"""Skips a test or class on the real backend: it needs what only the fake server does (reason)."""
	return unittest.skipIf(backend() != "fake", "fake API server only: " + reason)


def real_only(reason):
	"""Skips a test or class on the fake backend: it needs a real API server (reason)."""
	return unittest.skipIf(backend() != "real", "real API server only: " + reason)


def APIServer(scenario, **options):
	"""The backend fixture: a FakeAPI, or with CGPU_BACKEND=real a RealAPI, for scenario.  Both are context
	managers with start()/stop(), kubeconfig, url, tokens, call(), requests(), clear_requests(), reset(),
	put_object(), delete_object() and settings(ds_ready_delay=..., never_ready_nodes=[...])."""
	if backend() == "real":
		return RealAPI(scenario, **options)
	return FakeAPI(scenario, **options)


class ClusterCase(unittest.TestCase):
	"""Tests that share one API server: scenario (with options) started once for the class by server
	(the backend fixture, or FakeAPI for tests of the fake server itself) and reset before each test.
	A class whose setUpClass makes a directory of its own in dir has it removed after its tests."""

	scenario = "empty"
	options = {}
	server = staticmethod(APIServer)
	dir = None

	@classmethod
	def setUpClass(cls):
		cls.api = cls.server(cls.scenario, **cls.options).start()

	@classmethod
	def tearDownClass(cls):
		cls.api.stop()
		if cls.dir:
			shutil.rmtree(cls.dir, ignore_errors=True)

	def setUp(self):
		self.api.reset()

	def run_command(self, *args, context=None, timeout=60):
		"""The plugin run with args against the class's server (as context, when given)."""
		a = list(args) + ["--kubeconfig", self.api.kubeconfig]
		if context:
			a += ["--context", context]
		return run_plugin(a, timeout=timeout)


def query_of(r):
	"""The query parameters of a recorded request, as a dict."""
	q = r.get("query")
	if isinstance(q, dict):
		return q
	return dict(urllib.parse.parse_qsl(q or ""))


def body_of(r):
	"""The body of a recorded request, decoded when it is JSON text."""
	b = r.get("body")
	return json.loads(b) if isinstance(b, str) and b else b


_cluster = None


def real_cluster(**options):
	"""The process's one real control plane, started on first use (with envtest.Cluster options) and
	stopped at exit."""
	global _cluster
	if _cluster is None:
		why = envtest.unavailable()
		if why:
			raise unittest.SkipTest(why)
		_cluster = envtest.Cluster(**options).start()
	return _cluster


VERB_METHOD = {"get": "GET", "list": "GET", "watch": "GET", "create": "POST", "update": "PUT", "patch": "PATCH",
	"delete": "DELETE", "deletecollection": "DELETE"}


class RealAPI(Started):
	"""A scenario loaded into a real kube-apiserver, with the fake server's test-facing interface where the
	real server can give it.  Fault injection and the fake server's statistics are not there."""

	backend = "real"

	def __init__(self, scenario, **options):
		if not scenario.startswith("gen:") and not os.path.isdir(scenario):
			scenario = os.path.join(SCENARIOS, scenario)
		if scenario.startswith("gen:"):
			raise unittest.SkipTest("generated scenarios are loaded into the fake API server only")
		self.scenario = scenario
		self.options = options
		self.cluster = None

	def start(self):
		c = self.cluster = real_cluster()
		self.url, self.port, self.ca, self.kubeconfig = c.url, c.port, c.ca, c.kubeconfig
		self.ssl, self.ssl_anon = c.ssl, c.ssl_anon
		self.client_cert = (os.path.join(c.dir, "admin.crt"), os.path.join(c.dir, "admin.key"))
		self.tokens = {k: v for k, v in c.tokens.items()}
		self.tokens["admin"] = c.tokens["admin-token"]
		t0 = time.monotonic()
		self.reset()
		self.startup_seconds = self.ready_seconds = time.monotonic() - t0
		return self

	def stop(self):
		# The control plane is shared by the process's test classes; the next load clears it.
		self.returncode, self.stderr = 0, ""

	def reset(self):
		"""Loads the scenario again (everything else removed), restores the agent's settings, clears the log."""
		c = self.cluster
		c.agent.never_ready_nodes = set()
		c.agent.delay = float(self.options.get("ds_ready_delay", 0.5))
		loaded = getattr(c, "loaded", None)
		if loaded and loaded[0] == self.scenario and not self._written_since(loaded[1]):
			# Nothing was written since this scenario was loaded: it is still as loaded.
			self.config = loaded[2]
		else:
			c.loaded = None
			self.config = envtest.load_scenario(c, self.scenario)
			self._grant(self.config.get("users", {}))
		self.settings(**self.config.get("settings", {}))
		self.clear_requests()
		c.loaded = (self.scenario, self.audit_offset, self.config)

	def _written_since(self, offset):
		time.sleep(0.1)
		events, _ = self.cluster.audit_events(offset)
		return any(ev["verb"] not in ("get", "list", "watch") for ev in events)

	def _grant(self, users):
		"""Scenario users as RBAC: their rules as a ClusterRole, or a Role per listed namespace."""
		objs = []
		rbac = "rbac.authorization.k8s.io/v1"
		for name, u in sorted(users.items()):
			for i, r in enumerate(u.get("rules", [])):
				rule = {"apiGroups": ["*"], "verbs": r["verbs"], "resources": r["resources"]}
				for ns in r.get("namespaces") or [None]:
					kind = "Role" if ns else "ClusterRole"
					md = {"name": "scenario:%s:%d" % (name, i)}
					if ns:
						md["namespace"] = ns
					objs.append({"apiVersion": rbac, "kind": kind, "metadata": dict(md), "rules": [rule]})
					objs.append({"apiVersion": rbac, "kind": kind + "Binding", "metadata": dict(md),
						"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": md["name"]},
						"subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}]})
		self.cluster.create_many(objs, ignore_exists=True)

	# -- the fake server's controls, where a real server has them ------------------------------------------

	def settings(self, **kw):
		a = self.cluster.agent
		for k, v in kw.items():
			if k == "ds_ready_delay":
				a.delay = float(v)
			elif k == "never_ready_nodes":
				a.never_ready_nodes = set(v or ())
			else:
				raise unittest.SkipTest("setting %s: fake API server only" % k)
		return {"ds_ready_delay": a.delay, "never_ready_nodes": sorted(a.never_ready_nodes)}

	def fault(self, *_args, **_kw):
		raise unittest.SkipTest("fault injection: fake API server only")

	def stats(self):
		raise unittest.SkipTest("server statistics: fake API server only")

	def clear_requests(self):
		time.sleep(0.1)
		_, self.audit_offset = self.cluster.audit_events(0)

	def requests(self):
		"""The requests since the last clear, from the audit log, in the fake server's log format (without
		request headers but User-Agent: the audit log does not keep them)."""
		# The audit event of a request is written as its response completes: give the last one a moment.
		time.sleep(0.2)
		events, _ = self.cluster.audit_events(self.audit_offset)
		order, last = [], {}
		for ev in events:
			if ev["auditID"] not in last:
				order.append(ev["auditID"])
			last[ev["auditID"]] = ev
		out = []
		for aid in order:
			ev = last[aid]
			if ev.get("userAgent", "").startswith("envtest/"):
				continue
			u = urllib.parse.urlsplit(ev["requestURI"])
			query = {}
			for k, v in urllib.parse.parse_qsl(u.query, keep_blank_values=True):
				query[k] = query[k] + [v] if isinstance(query.get(k), list) else ([query[k], v] if k in query else v)
			body = ev.get("requestObject")
			out.append({"method": VERB_METHOD.get(ev["verb"], ev["verb"].upper()), "path": u.path, "query": query,
				"headers": {"User-Agent": ev.get("userAgent", "")},
				"body": json.dumps(body) if body is not None else None,
				"user": ev["user"].get("username"), "groups": ev["user"].get("groups", []),
				"status": ev.get("responseStatus", {}).get("code")})
		return out

	def put_object(self, obj):
		"""Creates or replaces an object (status through the status subresource)."""
		c = self.cluster
		obj = json.loads(json.dumps(obj))
		if obj.get("kind") == "Pod":
			refs = obj["metadata"].get("ownerReferences")
			obj = envtest._pod_for_create(obj)
			if refs:  # a test's pod keeps the owners it names
				obj["metadata"]["ownerReferences"] = refs
		if obj.get("kind") in ("Pod", "DaemonSet"):
			# The fake server takes objects in any namespace; a real one wants the namespace first.
			ns = obj["metadata"].setdefault("namespace", "default")
			spec = obj.get("spec", {})
			spec = spec.get("template", {}).get("spec", {}) if obj["kind"] == "DaemonSet" else spec
			c.ensure_namespace(ns, {"default", spec.get("serviceAccountName") or "default"})
		status, _, cur = c.call("GET", envtest.object_path(obj))
		if status == 404:
			return c.create_many([obj])[0]
		body = envtest.strip_for_create(obj)
		body["metadata"]["resourceVersion"] = cur["metadata"]["resourceVersion"]
		out = c.must("PUT", envtest.object_path(obj), body)
		if obj.get("status") and obj.get("kind") in ("Pod", "Node"):
			out = c.must("PUT", envtest.object_path(obj) + "/status",
				dict(out, status=obj["status"]))
		return out

	def delete_object(self, kind, ns, name):
		kinds = {"pods": ("v1", "Pod"), "nodes": ("v1", "Node"), "daemonsets": ("apps/v1", "DaemonSet")}
		api, k = kinds[kind]
		md = {"name": name}
		if ns:
			md["namespace"] = ns
		path = envtest.object_path({"apiVersion": api, "kind": k, "metadata": md})
		status, _, out = self.cluster.call("DELETE", path + ("?gracePeriodSeconds=0" if kind == "pods" else ""))
		if status not in (200, 202):
			raise RuntimeError("delete %s: %d %s" % (path, status, out))
		return out

	def call(self, method, path, body=None, headers=None, token=None, cert=True, raw=False):
		# The harness's own requests (loading, put_object) say envtest/1.0 and are left out of requests().
		h = dict({"User-Agent": "e2e-test/1.0"}, **(headers or {}))
		return self.cluster.call(method, path, body, headers=h, token=token, cert=cert, raw=raw,
			content_type=(headers or {}).get("Content-Type", "application/json"))


# ---- the fault-injecting proxy in front of either backend ----------------------------------------------

def proxied_kubeconfig(src, dst, url, ca_pem):
	"""Writes to dst the kubeconfig src (one cluster, as both backends write it) with the server url and the
	CA ca_pem: the same users, credentials and contexts."""
	out, replaced = [], []
	with open(src, encoding="utf-8") as f:
		for line in f:
			key, sep, _ = line.strip().partition(":")
			indent = line[:len(line) - len(line.lstrip())]
			if sep and key == "server":
				line = "%sserver: %s\n" % (indent, url)
			elif sep and key == "certificate-authority-data":
				line = "%scertificate-authority-data: %s\n" % (indent, base64.b64encode(ca_pem).decode())
			else:
				out.append(line)
				continue
			replaced.append(key)
			out.append(line)
	if sorted(replaced) != ["certificate-authority-data", "server"]:
		raise RuntimeError("%s: not one cluster with its CA inline (%s)" % (src, replaced))
	tmp = dst + ".tmp"
	with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as f:
		f.writelines(out)
	os.replace(tmp, dst)


class Proxied(faultproxy.FaultProxy):
	"""A started backend (FakeAPI or RealAPI) behind the fault-injecting proxy, for `with`: kubeconfig is the
	backend's, with the proxy's URL and certificate; the proxy presents the backend's client certificate for
	the users that present it and passes tokens through.  arm(), disarm(), reset() and log() are the proxy's
	(tests/faultproxy/faultproxy.py)."""

	def __init__(self, api):
		super().__init__(api.url, api.ca, identities=[api.client_cert])
		self.api = api
		self.kubeconfig = None

	def start(self):
		super().start()
		try:
			# beside the backend's own, in the directory removed with it
			self.kubeconfig = os.path.join(os.path.dirname(self.api.kubeconfig), "kubeconfig-proxy-%d" % self.port)
			proxied_kubeconfig(self.api.kubeconfig, self.kubeconfig, self.url, self.ca_pem)
		except BaseException:
			self.stop()
			raise
		return self

	def stop(self):
		super().stop()
		if self.kubeconfig:
			with contextlib.suppress(FileNotFoundError):
				os.unlink(self.kubeconfig)
			self.kubeconfig = None



class ProxiedCase(ClusterCase):
	"""ClusterCase with the class's server behind one fault-injecting proxy (self.proxy), its faults and
	log cleared before each test."""

	@classmethod
	def setUpClass(cls):
		super().setUpClass()
		try:
			cls.proxy = Proxied(cls.api).start()
		except BaseException:
			cls.api.stop()
			raise

	@classmethod
	def tearDownClass(cls):
		cls.proxy.stop()
		super().tearDownClass()

	def setUp(self):
		super().setUp()
		self.proxy.reset()


# -- a real Prometheus scraping exporter fixtures ----------------------------------------------------------

METRICS = os.path.join(ROOT, "fixtures", "metrics")
PROMETHEUS = os.environ.get("CGPU_PROMETHEUS_BIN") or shutil.which("prometheus") or "/usr/bin/prometheus"


def prometheus_available():
	return os.access(PROMETHEUS, os.X_OK)


def free_port():
	"""A loopback port nobody listens on (at the time of asking)."""
	import socket
	s = socket.socket()
	s.bind(("127.0.0.1", 0))
	port = s.getsockname()[1]
	s.close()
	return port


class Exporters:
	"""Serves exposition files on loopback, one path per file: /metrics/<name> for <name>.prom, the way one
	exporter per node would.  A file's first line may be `# target-labels: k=v,...`: labels the scrape adds,
	as Kubernetes service discovery would.  set(name, text) replaces or (text None) removes one exporter."""

	def __init__(self, fixture_dirs):
		import http.server
		import threading
		self.files = {}
		for d in fixture_dirs:
			d = d if os.path.isdir(d) else os.path.join(METRICS, d)
			for f in sorted(os.listdir(d)):
				if f.endswith(".prom"):
					with open(os.path.join(d, f), encoding="utf-8") as fh:
						self.files[f[:-5]] = fh.read()
		files = self.files

		class H(http.server.BaseHTTPRequestHandler):
			def log_message(self, *a):
				pass

			def do_GET(self):
				name = self.path.split("?")[0].rsplit("/", 1)[-1]
				text = files.get(name)
				if text is None:
					self.send_error(404)
					return
				body = text.encode()
				self.send_response(200)
				self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
				self.send_header("Content-Length", str(len(body)))
				self.end_headers()
				self.wfile.write(body)

		class S(http.server.ThreadingHTTPServer):
			def handle_error(self, request, client_address):
				pass  # a scrape given up by Prometheus (its timeout) is not a failure of the test

		self.server = S(("127.0.0.1", 0), H)
		self.server.daemon_threads = True
		self.port = self.server.server_address[1]
		self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
		self.thread.start()

	def set(self, name, text):
		if text is None:
			self.files.pop(name, None)
		else:
			self.files[name] = text

	@staticmethod
	def target_labels(text):
		first = text.split("\n", 1)[0]
		if not first.startswith("# target-labels:"):
			return {}
		return dict(kv.split("=", 1) for kv in first.split(":", 1)[1].strip().split(",") if kv)

	def close(self):
		self.server.shutdown()
		self.server.server_close()


class Prometheus(Started):
	"""A real Prometheus on loopback scraping Exporters every 200 ms.

	    with Prometheus(["usage"]) as prom:
	        prom.url      # http://127.0.0.1:PORT
	        prom.query("up")

	start() returns once every exporter has been scraped and its samples can be queried."""

	def __init__(self, fixture_dirs, scrape_interval="200ms", extra_args=()):
		self.fixture_dirs = fixture_dirs
		self.scrape_interval = scrape_interval
		self.extra_args = list(extra_args)
		self.proc = None
		self.exporters = None
		self.dir = None

	def config(self):
		lines = ["global:", "  scrape_interval: %s" % self.scrape_interval, "  scrape_timeout: %s" % self.scrape_interval,
			"  evaluation_interval: 10s", "scrape_configs:"]
		for name, text in sorted(self.exporters.files.items()):
			lines += ["- job_name: %s" % json.dumps(name), "  metrics_path: %s" % json.dumps("/metrics/" + name),
				"  static_configs:", "  - targets: [%s]" % json.dumps("127.0.0.1:%d" % self.exporters.port)]
			labels = self.exporters.target_labels(text)
			if labels:
				lines.append("    labels: %s" % json.dumps(labels))
		return "\n".join(lines) + "\n"

	def start(self, timeout=30):
		self.dir = tempfile.mkdtemp(prefix="prometheus-")
		self.exporters = Exporters(self.fixture_dirs)
		cfg = os.path.join(self.dir, "prometheus.yml")
		with open(cfg, "w", encoding="utf-8") as f:
			f.write(self.config())
		self.port = free_port()
		self.url = "http://127.0.0.1:%d" % self.port
		self.log = open(os.path.join(self.dir, "log"), "w+")
		self.proc = subprocess.Popen([PROMETHEUS, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
			"--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn", "--web.enable-lifecycle"] + self.extra_args,
			stdout=self.log, stderr=subprocess.STDOUT)
		deadline = time.monotonic() + timeout
		want = len(self.exporters.files)
		while True:
			if self.proc.poll() is not None:
				self.log.seek(0)
				raise RuntimeError("prometheus exited: %s" % self.log.read()[-2000:])
			try:
				# every target up, and its samples in the head block
				up = self.query("count(up == 1)")
				got = int(float(up[0]["value"][1])) if up else 0
				if got >= want and self.query("count(scrape_samples_scraped > 0)"):
					ready = self.query("count(scrape_samples_scraped > 0)")
					if int(float(ready[0]["value"][1])) >= want:
						break
			except (OSError, ValueError, KeyError):
				pass
			if time.monotonic() > deadline:
				self.stop()
				raise RuntimeError("prometheus did not scrape the exporters in %ds" % timeout)
			time.sleep(0.1)
		return self

	def query(self, q):
		url = self.url + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
		opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
		with opener.open(url, timeout=10) as r:
			d = json.loads(r.read())
		return d["data"]["result"]

	def wait_scraped(self, timeout=10):
		"""Waits for two more scrapes of every exporter (after Exporters.set)."""
		time.sleep(3 * float(self.scrape_interval.rstrip("ms")) / (1000 if self.scrape_interval.endswith("ms") else 1))

	def stop(self):
		if self.proc is not None:
			stop_process(self.proc, 10)
			self.proc = None
		if self.exporters:
			self.exporters.close()
			self.exporters = None
		if self.dir:
			self.log.close()
			shutil.rmtree(self.dir, ignore_errors=True)
			self.dir = None
