"""A real Kubernetes control plane for tests: etcd, kube-apiserver and kube-controller-manager on loopback.

Python standard library and the openssl command only, in the spirit of controller-runtime's envtest.

    import envtest

    assets, reason = envtest.find_assets()      # (None, "why not") when no binaries can be found
    with envtest.Cluster(assets) as c:           # PKI, etcd, API server, controller manager; /readyz
        envtest.load_scenario(c, "fixtures/scenarios/opensource")
        status, headers, body = c.call("GET", "/api/v1/nodes")
        c.create_many(objects)                   # bulk creation over keep-alive connections
        c.kubeconfig                             # contexts admin, admin-token, viewer, nobody, badtoken
        c.agent.delay = 0.5                      # DaemonSet pods become Running and Ready after this

Binaries: $KUBE_ASSETS (a directory with kube-apiserver and kube-controller-manager, and optionally
etcd; a Kubernetes server release's kubernetes/server/bin or setup-envtest's directory), else
$KUBEBUILDER_ASSETS, else the xz-compressed ones in ../shared/envtest beside the repository, decompressed
once into $ENVTEST_CACHE (the build directory sets it) or a directory under the system's temporary one.
etcd comes from the assets directory when it holds one, else from PATH (Debian: etcd-server).

There is no kubelet and no scheduler.  The harness plays their part where the tests need it: scenario
pods are bound by spec.nodeName, node and pod status are written through the status subresource, and the
status agent (Cluster.agent) binds the pods the DaemonSet controller creates to the node their affinity
names, marks them Running and Ready after a delay (agent.delay; never on agent.never_ready_nodes), and
removes pods whose graceful deletion has begun, as a kubelet does once their containers have stopped.

Everything lives in one temporary directory that stop() removes; the processes are ended on stop(), at
interpreter exit and on SIGTERM/SIGINT/SIGHUP, also when a test fails.

This module holds the Cluster (processes and requests) and names the rest, which lives beside it:
envtest_assets.py (finding and unpacking the binaries), envtest_pki.py (CA, certificates, tokens, RBAC,
kubeconfigs), envtest_scenario.py (object paths, loading and clearing scenarios), envtest_load.py (writing
many objects concurrently, with retries), envtest_dra.py (the resource.k8s.io versions a server serves,
and a scenario's DRA objects) and envtest_agent.py (the status agent).
"""

import atexit
import base64
import copy
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

# The parts, each for one concern (binaries, credentials, scenario objects, bulk writes, the status agent):
# their names are this module's too, for the tests that import envtest.
import envtest_dra
from envtest_agent import StatusAgent
from envtest_assets import ROOT, AssetsError, find_assets, find_etcd, unavailable  # noqa: F401
from envtest_load import LoadError, Pool, create_job  # noqa: F401
from envtest_pki import DEFAULT_USERS, admin_user, make_pki, rbac_objects, write_kubeconfig, write_tokens
from envtest_scenario import (_pod_for_create, load_scenario, object_path, read_scenario,  # noqa: F401
	strip_for_create)


AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:apiserver", "system:kube-controller-manager", "envtest:agent"]
- level: None
  nonResourceURLs: ["/readyz*", "/livez*", "/healthz*"]
- level: Request
"""


# ---- processes -----------------------------------------------------------------------------------------

_live = set()
_live_lock = threading.Lock()


def _stop_all():
	with _live_lock:
		clusters = list(_live)
	for c in clusters:
		c.stop()


def _on_signal(sig, _frame):
	_stop_all()
	signal.signal(sig, signal.SIG_DFL)
	os.kill(os.getpid(), sig)


_handlers_installed = False


def _install_handlers():
	global _handlers_installed
	if _handlers_installed:
		return
	_handlers_installed = True
	atexit.register(_stop_all)
	if threading.current_thread() is threading.main_thread():
		for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
			if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
				signal.signal(sig, _on_signal)


def free_port():
	with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
		s.bind(("127.0.0.1", 0))
		return s.getsockname()[1]


class Cluster:
	"""etcd, kube-apiserver and kube-controller-manager for one test run.

	Attributes once started: url, port, dir, kubeconfig (contexts admin [client certificate, current],
	admin-token, viewer, nobody, badtoken and any extra token users), tokens {context: token},
	ca (CA file), audit_log (every API request, audit.k8s.io/v1 events, one JSON per line),
	agent (the status agent), startup_seconds."""

	def __init__(self, assets=None, users=None, controllers=True, agent_delay=0.5, terminate_delay=0.2,
			log_level=0, watch_cache_off=(), apiserver_args=(), audit=True):
		"""users: extra token users {context: {"user": name, "groups": [...], "rules": [rbac rules]}};
		their rules become a ClusterRole bound to the user.  watch_cache_off: resources ("nodes") whose
		watches and lists go to etcd, not the API server's watch cache, so that compact() can expire them.
		apiserver_args: more kube-apiserver flags.  audit=False: no audit log (a benchmark, which reads
		none, spares the server writing every request body)."""
		self.assets = assets
		self.users = copy.deepcopy(DEFAULT_USERS)
		self.users.update(copy.deepcopy(users or {}))
		self.controllers = controllers
		self.log_level = log_level
		self.watch_cache_off = tuple(watch_cache_off)
		self.apiserver_args = list(apiserver_args)
		self.audit = audit
		self.procs = {}
		self.dir = None
		self.pool = None
		self.agent = StatusAgent(self, agent_delay, terminate_delay)
		self._local = threading.local()

	def __enter__(self):
		return self.start()

	def __exit__(self, *exc):
		self.stop()
		return False

	# -- start and stop ------------------------------------------------------------------------------------

	def start(self, timeout=60):
		if self.assets is None:
			self.assets, reason = find_assets()
			if self.assets is None:
				raise AssetsError(reason)
		etcd = find_etcd(self.assets)
		if etcd is None:
			raise AssetsError("etcd is not installed")
		_install_handlers()
		t0 = time.monotonic()
		self.dir = tempfile.mkdtemp(prefix="envtest-")
		with _live_lock:
			_live.add(self)
		try:
			make_pki(self.dir)
			self._write_tokens()
			with open(os.path.join(self.dir, "audit-policy.yaml"), "w") as f:
				f.write(AUDIT_POLICY)
			self.audit_log = os.path.join(self.dir, "audit.log")
			open(self.audit_log, "w").close()
			etcd_port, peer_port = free_port(), free_port()
			self.etcd_url = "http://127.0.0.1:%d" % etcd_port
			self.port = free_port()
			self.url = "https://127.0.0.1:%d" % self.port
			self.ca = os.path.join(self.dir, "ca.crt")
			self._spawn("etcd", [etcd, "--data-dir", os.path.join(self.dir, "etcd"), "--name", "envtest",
				"--listen-client-urls", "http://127.0.0.1:%d" % etcd_port,
				"--advertise-client-urls", "http://127.0.0.1:%d" % etcd_port,
				"--listen-peer-urls", "http://127.0.0.1:%d" % peer_port,
				"--initial-advertise-peer-urls", "http://127.0.0.1:%d" % peer_port,
				"--initial-cluster", "envtest=http://127.0.0.1:%d" % peer_port,
				"--unsafe-no-fsync", "--log-level", "warn"])
			d = self.dir
			self._spawn("kube-apiserver", [os.path.join(self.assets, "kube-apiserver"),
				"--etcd-servers", "http://127.0.0.1:%d" % etcd_port,
				"--secure-port", str(self.port), "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
				"--tls-cert-file", d + "/server.crt", "--tls-private-key-file", d + "/server.key",
				"--client-ca-file", d + "/ca.crt", "--token-auth-file", d + "/tokens.csv",
				"--authorization-mode", "RBAC",
				"--service-account-key-file", d + "/sa.key", "--service-account-signing-key-file", d + "/sa.key",
				"--service-account-issuer", "https://kubernetes.default.svc",
				"--service-cluster-ip-range", "10.0.0.0/24", "--endpoint-reconciler-type", "none",
				"--profiling=false", "--v", str(self.log_level)]
				+ (["--audit-policy-file", d + "/audit-policy.yaml", "--audit-log-path", self.audit_log,
					"--audit-log-format", "json", "--audit-log-mode", "blocking"] if self.audit else [])
				+ (["--watch-cache-sizes", ",".join(r + "#0" for r in self.watch_cache_off)] if self.watch_cache_off else [])
				# a server new enough for Dynamic Resource Allocation serves all its versions and fields
				+ envtest_dra.apiserver_args(self.assets) + self.apiserver_args)
			self.ssl = ssl.create_default_context(cafile=self.ca)
			self.ssl.load_cert_chain(d + "/admin.crt", d + "/admin.key")
			self.ssl_anon = ssl.create_default_context(cafile=self.ca)
			self.ssl_agent = ssl.create_default_context(cafile=self.ca)
			self.ssl_agent.load_cert_chain(d + "/agent.crt", d + "/agent.key")
			self.pool = Pool("127.0.0.1", self.port, self.ssl)
			self._write_kubeconfig()
			self._wait_ready(t0 + timeout)
			# Started once the API server is ready: it gives up when the server is not healthy for 20 s.
			if self.controllers:
				self._start_controller_manager()
			self._grant_rbac()
			self.startup_seconds = time.monotonic() - t0
			if self.controllers:
				self.agent.start()
		except BaseException:
			self.stop()
			raise
		return self

	def _spawn(self, name, cmd):
		log = open(os.path.join(self.dir, name + ".log"), "wb")
		# Own process group: a terminal's ^C reaches the test, which stops the control plane in order.
		self.procs[name] = (subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
			start_new_session=True), log)

	def _start_controller_manager(self):
		d = self.dir
		cm = os.path.join(d, "controller-manager.kubeconfig")
		self._kubeconfig_file(cm, [("controller-manager", {"client-certificate": d + "/controller-manager.crt",
			"client-key": d + "/controller-manager.key"})])
		self._spawn("kube-controller-manager", [os.path.join(self.assets, "kube-controller-manager"),
			"--kubeconfig", cm, "--controllers", "daemonset,serviceaccount,garbagecollector,disruption",
			"--service-account-private-key-file", d + "/sa.key", "--root-ca-file", d + "/ca.crt",
			"--use-service-account-credentials=false", "--leader-elect=false",
			"--bind-address", "127.0.0.1", "--secure-port", str(free_port()),
			"--v", str(self.log_level)])

	def log(self, name):
		"""The output of one component so far (for failure messages)."""
		try:
			with open(os.path.join(self.dir, name + ".log"), errors="replace") as f:
				return f.read()
		except (OSError, TypeError):
			return ""

	def _wait_ready(self, deadline):
		last = None
		while time.monotonic() < deadline:
			for name, (p, _) in self.procs.items():
				if p.poll() is not None:
					raise RuntimeError("%s exited with %d:\n%s" % (name, p.returncode, self.log(name)[-3000:]))
			try:
				status, _, body = self.call("GET", "/readyz", raw=True, timeout=2)
				if status == 200:
					return
				last = "%d %s" % (status, body[-500:].decode(errors="replace"))
			except OSError as e:
				last = str(e)
			time.sleep(0.1)
		raise RuntimeError("kube-apiserver not ready: %s\n%s" % (last, self.log("kube-apiserver")[-3000:]))

	def stop(self):
		self.agent.stop()
		if self.pool is not None:
			self.pool.close()
			self.pool = None
		for name in ("kube-controller-manager", "kube-apiserver", "etcd"):
			p, log = self.procs.pop(name, (None, None))
			if p is None:
				continue
			if p.poll() is None:
				p.terminate()
				try:
					p.wait(10)
				except subprocess.TimeoutExpired:
					p.kill()
					p.wait()
			log.close()
		with _live_lock:
			_live.discard(self)
		if self.dir:
			shutil.rmtree(self.dir, ignore_errors=True)
			self.dir = None

	# -- credentials ---------------------------------------------------------------------------------------

	def _write_tokens(self):
		self.tokens = write_tokens(self.dir, self.users)

	def _kubeconfig_file(self, path, users, namespace="default"):
		write_kubeconfig(path, self.url, self.ca, users, namespace)

	def _write_kubeconfig(self):
		users = [admin_user(self.dir)] + [(ctx, {"token": tok}) for ctx, tok in self.tokens.items()]
		self.kubeconfig = os.path.join(self.dir, "kubeconfig")
		self._kubeconfig_file(self.kubeconfig, users)

	def _grant_rbac(self):
		"""A ClusterRole and binding per token user with rules (apiGroups default to all)."""
		self.create_many(rbac_objects(self.users), workers=1)

	# -- requests ------------------------------------------------------------------------------------------

	def _conn(self, ctx, timeout):
		"""A keep-alive connection per thread and credential."""
		conns = getattr(self._local, "conns", None)
		if conns is None:
			conns = self._local.conns = {}
		c = conns.get(id(ctx))
		if c is None:
			c = conns[id(ctx)] = http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx, timeout=timeout)
		c.timeout = timeout
		if c.sock is not None:
			c.sock.settimeout(timeout)
		return c

	def _drop(self, ctx):
		c = getattr(self._local, "conns", {}).pop(id(ctx), None)
		if c is not None:
			c.close()

	def call(self, method, path, body=None, headers=None, token=None, cert=True, raw=False, timeout=30,
			content_type="application/json", ctx=None):
		"""Sends one API request as admin (client certificate), as a token's user, or anonymously (cert=False).
		Returns (status, headers, body): body parsed from JSON unless raw or not JSON."""
		h = {"Accept": "application/json", "User-Agent": "envtest/1.0"}
		if token is not None:
			h["Authorization"] = "Bearer " + token
		if body is not None:
			h["Content-Type"] = content_type
		h.update(headers or {})
		data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
		if ctx is None:
			ctx = self.ssl if cert and token is None else self.ssl_anon
		for attempt in (0, 1):
			c = self._conn(ctx, timeout)
			try:
				c.request(method, path, body=data, headers=h)
				r = c.getresponse()
				payload = r.read()
				break
			except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError,
					http.client.CannotSendRequest, http.client.ResponseNotReady):
				# a kept-alive connection the server has closed meanwhile: once more on a new one
				self._drop(ctx)
				if attempt:
					raise
			except BaseException:
				self._drop(ctx)
				raise
		if r.getheader("Connection", "").lower() == "close":
			self._drop(ctx)
		if raw:
			return r.status, r.headers, payload
		try:
			return r.status, r.headers, json.loads(payload)
		except ValueError:
			return r.status, r.headers, payload

	def must(self, method, path, body=None, ok=(200, 201), **kw):
		status, _, out = self.call(method, path, body, **kw)
		if status not in ok:
			raise RuntimeError("%s %s: %d %s" % (method, path, status, out))
		return out

	def create_many(self, objects, workers=8, ignore_exists=False, headers=None, keep=True):
		"""Creates objects (dicts with apiVersion and kind) concurrently over up to `workers` keep-alive
		connections; their status, when they have one that the create does not keep (pods, nodes), is then
		written through the status subresource.  Busy or failing answers (429, 5xx) are retried after their
		Retry-After.  Returns the created objects in order (None for each when not keep)."""
		pool = self.pool if headers is None else Pool("127.0.0.1", self.port, self.ssl, headers=headers)
		try:
			return pool.run([create_job(o, ignore_exists, keep) for o in objects], workers)
		finally:
			if pool is not self.pool:
				pool.close()

	def ensure_namespace(self, ns, accounts=("default",)):
		"""Creates a namespace and its service accounts unless they exist (pods need their account)."""
		self.create_many([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}], ignore_exists=True)
		self.create_many([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": a, "namespace": ns}}
			for a in accounts], ignore_exists=True)

	def list(self, resource_path, **query):
		"""Every item of a list, following continue tokens."""
		items = []
		q = dict(query)
		while True:
			out = self.must("GET", resource_path + ("?" + urllib.parse.urlencode(q) if q else ""))
			items += out.get("items", [])
			cont = out.get("metadata", {}).get("continue")
			if not cont:
				return items
			q["continue"] = cont

	def compact(self):
		"""Compacts etcd up to its current revision (as the API server does every few minutes): a watch
		from an older resourceVersion of a resource in watch_cache_off then ends in 410 Expired."""
		req = urllib.request.Request(self.etcd_url + "/v3/kv/compaction", method="POST",
			data=json.dumps({"revision": int(self.etcd_revision()), "physical": True}).encode())
		with urllib.request.urlopen(req, timeout=30) as r:
			return json.loads(r.read())

	def etcd_revision(self):
		req = urllib.request.Request(self.etcd_url + "/v3/kv/range", method="POST",
			data=json.dumps({"key": base64.b64encode(b"/registry/health-check").decode()}).encode())
		with urllib.request.urlopen(req, timeout=30) as r:
			return json.loads(r.read())["header"]["revision"]

	def audit_events(self, offset=0):
		"""(events, new offset): the audit events written since offset, one per request (the last stage)."""
		with open(self.audit_log, "rb") as f:
			f.seek(offset)
			data = f.read()
		end = data.rfind(b"\n") + 1
		events = [json.loads(line) for line in data[:end].splitlines() if line.strip()]
		return events, offset + end

if __name__ == "__main__":
	# python3 envtest.py [SCENARIO]: starts a cluster, loads SCENARIO, prints the kubeconfig path, waits.
	assets, why = find_assets()
	if assets is None:
		sys.exit("envtest: " + why)
	with Cluster(assets) as cl:
		if len(sys.argv) > 1:
			s = sys.argv[1] if os.path.isdir(sys.argv[1]) else os.path.join(ROOT, "fixtures", "scenarios", sys.argv[1])
			load_scenario(cl, s)
		print("ready in %.1fs; KUBECONFIG=%s (Ctrl-C stops)" % (cl.startup_seconds, cl.kubeconfig), flush=True)
		try:
			while True:
				time.sleep(3600)
		except KeyboardInterrupt:
			pass
