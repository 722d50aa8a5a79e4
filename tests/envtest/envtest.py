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
"""

import atexit
import base64
import concurrent.futures
import copy
import fcntl
import hashlib
import http.client
import json
import os
import queue
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def _shared_dirs():
	"""../shared/envtest beside the clone; for a linked git worktree, also beside the main clone."""
	dirs = [os.path.normpath(os.path.join(ROOT, "..", "shared", "envtest"))]
	try:
		with open(os.path.join(ROOT, ".git")) as f:
			gitdir = f.read().strip()
	except OSError:
		return dirs
	if gitdir.startswith("gitdir: "):
		common = os.path.normpath(os.path.join(gitdir[8:], "..", ".."))  # .../.git/worktrees/NAME -> .../.git
		dirs.append(os.path.normpath(os.path.join(common, "..", "..", "shared", "envtest")))
	return dirs


BINARIES = ("kube-apiserver", "kube-controller-manager")

# Users every cluster has, as in the fake API server's kubeconfig: a client certificate for cluster admin,
# and bearer tokens.  "badtoken" is a token the server does not know.
DEFAULT_USERS = {
	"admin-token": {"user": "admin", "groups": ["system:masters"]},
	"viewer": {"user": "viewer", "groups": [],
		"rules": [{"apiGroups": [""], "verbs": ["get", "list", "watch"], "resources": ["nodes", "pods"]}]},
	"nobody": {"user": "nobody", "groups": []},
}

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


class AssetsError(RuntimeError):
	pass


# ---- binaries ------------------------------------------------------------------------------------------

def _cache_dir():
	d = os.environ.get("ENVTEST_CACHE")
	if d:
		return d
	return os.path.join(tempfile.gettempdir(), "kubectl-inspect-cgpu-envtest-%d" % os.getuid())


def _sha256(path):
	h = hashlib.sha256()
	with open(path, "rb") as f:
		for block in iter(lambda: f.read(1 << 20), b""):
			h.update(block)
	return h.hexdigest()


def _decompress(shared, cache):
	"""Decompresses shared/*.xz into cache once; a stamp with the archives' digests says it is done."""
	os.makedirs(cache, exist_ok=True)
	with open(os.path.join(cache, ".lock"), "w") as lock:
		# Test processes start in parallel: one decompresses, the others wait for it.
		fcntl.flock(lock, fcntl.LOCK_EX)
		stamp = os.path.join(cache, ".stamp")
		want = "\n".join("%s %s" % (b, _sha256(os.path.join(shared, b + ".xz"))) for b in BINARIES)
		try:
			with open(stamp) as f:
				have = f.read()
		except OSError:
			have = None
		if have == want and all(os.access(os.path.join(cache, b), os.X_OK) for b in BINARIES):
			return cache
		for b in BINARIES:
			tmp = os.path.join(cache, b + ".tmp")
			with open(tmp, "wb") as out:
				r = subprocess.run(["xz", "-dc", os.path.join(shared, b + ".xz")], stdout=out, stderr=subprocess.PIPE)
			if r.returncode != 0:
				os.unlink(tmp)
				raise AssetsError("xz -dc %s.xz: %s" % (b, r.stderr.decode(errors="replace").strip()))
			os.chmod(tmp, 0o755)
			os.replace(tmp, os.path.join(cache, b))
		with open(stamp, "w") as f:
			f.write(want)
	return cache


def find_assets():
	"""(directory with kube-apiserver and kube-controller-manager, None) or (None, the reason there is none)."""
	for var in ("KUBE_ASSETS", "KUBEBUILDER_ASSETS"):
		d = os.environ.get(var)
		if d:
			missing = [b for b in BINARIES if not os.access(os.path.join(d, b), os.X_OK)]
			if missing:
				return None, "%s=%s has no %s" % (var, d, " or ".join(missing))
			return os.path.abspath(d), None
	candidates = _shared_dirs()
	shared = next((d for d in candidates if all(os.path.exists(os.path.join(d, b + ".xz")) for b in BINARIES)), None)
	if shared is None:
		return None, "no Kubernetes binaries: set KUBE_ASSETS to a directory with kube-apiserver and " \
			"kube-controller-manager (%s does not exist)" % candidates[0]
	if shutil.which("xz") is None:
		return None, "xz is not installed (needed to unpack %s)" % shared
	try:
		return _decompress(shared, _cache_dir()), None
	except (OSError, AssetsError) as e:
		return None, "cannot unpack %s: %s" % (shared, e)


def find_etcd(assets):
	p = os.path.join(assets, "etcd") if assets else None
	if p and os.access(p, os.X_OK):
		return p
	return shutil.which("etcd") or (os.access("/usr/bin/etcd", os.X_OK) and "/usr/bin/etcd") or None


def unavailable():
	"""None when a real cluster can be started here, else the reason it cannot."""
	assets, reason = find_assets()
	if assets is None:
		return reason
	if find_etcd(assets) is None:
		return "etcd is not installed (Debian: etcd-server) and %s has none" % assets
	if shutil.which("openssl") is None:
		return "openssl is not installed"
	return None


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


def _openssl(args):
	r = subprocess.run(["openssl"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
	if r.returncode != 0:
		raise RuntimeError("openssl %s: %s" % (args[0], r.stderr.decode(errors="replace").strip()))


def make_pki(d):
	"""CA, serving certificate for 127.0.0.1 and localhost, client certificates, service-account key."""
	ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2"]
	ca_key, ca_crt = os.path.join(d, "ca.key"), os.path.join(d, "ca.crt")
	_openssl(["req", "-x509"] + ec + ["-keyout", ca_key, "-out", ca_crt, "-subj", "/CN=envtest-ca",
		"-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
	leaf = ["req", "-x509", "-CA", ca_crt, "-CAkey", ca_key] + ec + ["-addext", "basicConstraints=critical,CA:FALSE"]

	def client(name, subj):
		return leaf + ["-keyout", os.path.join(d, name + ".key"), "-out", os.path.join(d, name + ".crt"),
			"-subj", subj, "-addext", "extendedKeyUsage=clientAuth"]
	jobs = [
		leaf + ["-keyout", os.path.join(d, "server.key"), "-out", os.path.join(d, "server.crt"), "-subj",
			"/CN=kube-apiserver", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
			"-addext", "extendedKeyUsage=serverAuth"],
		client("admin", "/O=system:masters/CN=admin"),
		client("controller-manager", "/O=system:masters/CN=system:kube-controller-manager"),
		client("agent", "/O=system:masters/CN=envtest:agent"),
		["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", os.path.join(d, "sa.key")],
	]
	with concurrent.futures.ThreadPoolExecutor(len(jobs)) as ex:
		for f in [ex.submit(_openssl, j) for j in jobs]:
			f.result()


def _b64file(p):
	with open(p, "rb") as f:
		return base64.b64encode(f.read()).decode()


class Cluster:
	"""etcd, kube-apiserver and kube-controller-manager for one test run.

	Attributes once started: url, port, dir, kubeconfig (contexts admin [client certificate, current],
	admin-token, viewer, nobody, badtoken and any extra token users), tokens {context: token},
	ca (CA file), audit_log (every API request, audit.k8s.io/v1 events, one JSON per line),
	agent (the status agent), startup_seconds."""

	def __init__(self, assets=None, users=None, controllers=True, agent_delay=0.5, terminate_delay=0.2,
			log_level=0, watch_cache_off=(), apiserver_args=()):
		"""users: extra token users {context: {"user": name, "groups": [...], "rules": [rbac rules]}};
		their rules become a ClusterRole bound to the user.  watch_cache_off: resources ("nodes") whose
		watches and lists go to etcd, not the API server's watch cache, so that compact() can expire them.
		apiserver_args: more kube-apiserver flags."""
		self.assets = assets
		self.users = copy.deepcopy(DEFAULT_USERS)
		self.users.update(copy.deepcopy(users or {}))
		self.controllers = controllers
		self.log_level = log_level
		self.watch_cache_off = tuple(watch_cache_off)
		self.apiserver_args = list(apiserver_args)
		self.procs = {}
		self.dir = None
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
				"--audit-policy-file", d + "/audit-policy.yaml", "--audit-log-path", self.audit_log,
				"--audit-log-format", "json", "--audit-log-mode", "blocking",
				"--profiling=false", "--v", str(self.log_level)]
				+ (["--watch-cache-sizes", ",".join(r + "#0" for r in self.watch_cache_off)] if self.watch_cache_off else [])
				+ self.apiserver_args)
			self.ssl = ssl.create_default_context(cafile=self.ca)
			self.ssl.load_cert_chain(d + "/admin.crt", d + "/admin.key")
			self.ssl_anon = ssl.create_default_context(cafile=self.ca)
			self.ssl_agent = ssl.create_default_context(cafile=self.ca)
			self.ssl_agent.load_cert_chain(d + "/agent.crt", d + "/agent.key")
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
			"--kubeconfig", cm, "--controllers", "daemonset,serviceaccount,garbagecollector",
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
		self.tokens = {}
		lines = []
		for ctx, u in self.users.items():
			tok = u.get("token") or base64.b32encode(os.urandom(20)).decode().lower()
			self.tokens[ctx] = tok
			groups = ",".join(u.get("groups", []))
			lines.append('%s,%s,%s,"%s"' % (tok, u.get("user", ctx), "uid-" + u.get("user", ctx), groups))
		self.tokens["badtoken"] = base64.b32encode(os.urandom(20)).decode().lower()
		with open(os.path.join(self.dir, "tokens.csv"), "w") as f:
			f.write("\n".join(lines) + "\n")

	def _kubeconfig_file(self, path, users, namespace="default"):
		lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: envtest", "  cluster:",
			"    server: %s" % self.url, "    certificate-authority-data: %s" % _b64file(self.ca), "contexts:"]
		for name, _ in users:
			lines += ["- name: %s" % name, "  context:", "    cluster: envtest", "    user: %s" % name,
				"    namespace: %s" % namespace]
		lines += ["current-context: %s" % users[0][0], "preferences: {}", "users:"]
		for name, fields in users:
			lines += ["- name: %s" % name, "  user:"]
			lines += ["    %s: %s" % kv for kv in fields.items()]
		tmp = path + ".tmp"
		with open(tmp, "w") as f:
			f.write("\n".join(lines) + "\n")
		os.chmod(tmp, 0o600)
		os.replace(tmp, path)

	def _write_kubeconfig(self):
		users = [("admin", {"client-certificate-data": _b64file(self.dir + "/admin.crt"),
			"client-key-data": _b64file(self.dir + "/admin.key")})]
		users += [(ctx, {"token": tok}) for ctx, tok in self.tokens.items()]
		self.kubeconfig = os.path.join(self.dir, "kubeconfig")
		self._kubeconfig_file(self.kubeconfig, users)

	def _grant_rbac(self):
		"""A ClusterRole and binding per token user with rules (apiGroups default to all)."""
		objs = []
		for ctx, u in self.users.items():
			if not u.get("rules"):
				continue
			name = "envtest:" + u.get("user", ctx)
			rules = [dict({"apiGroups": ["*"]}, **r) for r in u["rules"]]
			objs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
				"metadata": {"name": name}, "rules": rules})
			objs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
				"metadata": {"name": name},
				"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
				"subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": u.get("user", ctx)}]})
		self.create_many(objs, workers=1)

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

	def create_many(self, objects, workers=8, ignore_exists=False, headers=None):
		"""Creates objects (dicts with apiVersion and kind) in parallel; their status, when they have one
		that the create does not keep (pods, nodes), is then written through the status subresource.
		Returns the created objects in order."""
		def one(obj):
			path = object_path(obj, collection=True)
			body = strip_for_create(obj)
			status, _, out = self.call("POST", path, body, timeout=60, headers=headers)
			if status == 409 and ignore_exists:
				return None
			if status != 201:
				raise RuntimeError("POST %s %s: %d %s" % (path, obj["metadata"].get("name"), status, out))
			if obj.get("status") and obj.get("kind") in ("Pod", "Node"):
				out = self.must("PATCH", object_path(out) + "/status", {"status": obj["status"]},
					content_type="application/merge-patch+json", timeout=60, headers=headers)
			return out
		if workers <= 1 or len(objects) <= 1:
			return [one(o) for o in objects]
		with concurrent.futures.ThreadPoolExecutor(workers) as ex:
			return list(ex.map(one, objects))

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


API_PATHS = {
	("v1", "Namespace"): ("/api/v1", "namespaces", False),
	("v1", "Node"): ("/api/v1", "nodes", False),
	("v1", "Pod"): ("/api/v1", "pods", True),
	("v1", "ServiceAccount"): ("/api/v1", "serviceaccounts", True),
	("v1", "ConfigMap"): ("/api/v1", "configmaps", True),
	("v1", "Service"): ("/api/v1", "services", True),
	("apps/v1", "DaemonSet"): ("/apis/apps/v1", "daemonsets", True),
	("apps/v1", "Deployment"): ("/apis/apps/v1", "deployments", True),
	("rbac.authorization.k8s.io/v1", "ClusterRole"): ("/apis/rbac.authorization.k8s.io/v1", "clusterroles", False),
	("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"):
		("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", False),
	("rbac.authorization.k8s.io/v1", "Role"): ("/apis/rbac.authorization.k8s.io/v1", "roles", True),
	("rbac.authorization.k8s.io/v1", "RoleBinding"): ("/apis/rbac.authorization.k8s.io/v1", "rolebindings", True),
}


def object_path(obj, collection=False):
	key = (obj.get("apiVersion", "v1"), obj.get("kind"))
	if key not in API_PATHS:
		raise ValueError("envtest: no path for %s %s" % key)
	base, res, namespaced = API_PATHS[key]
	md = obj.get("metadata", {})
	p = base
	if namespaced:
		p += "/namespaces/" + md.get("namespace", "default")
	p += "/" + res
	return p if collection else p + "/" + md["name"]


SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink",
	"deletionTimestamp", "deletionGracePeriodSeconds")


def strip_for_create(obj):
	"""The object as a client would create it: without the fields the server sets."""
	o = {k: v for k, v in obj.items() if k != "status" or obj.get("kind") not in ("Pod", "Node")}
	o["metadata"] = {k: v for k, v in obj.get("metadata", {}).items() if k not in SERVER_FIELDS}
	return o


# ---- scenarios -----------------------------------------------------------------------------------------

def read_scenario(path):
	"""(objects, config) of a scenario directory, as the fake API server reads it."""
	objects, config = [], {}
	for root, dirs, files in os.walk(path):
		dirs.sort()
		for f in sorted(files):
			if not f.endswith(".json"):
				continue
			with open(os.path.join(root, f), encoding="utf-8") as fh:
				d = json.load(fh)
			if f == "scenario.json" and root == path:
				config = d
			elif d.get("kind", "").endswith("List"):
				for it in d.get("items", []):
					objects.append(dict({"kind": d["kind"][:-4], "apiVersion": d.get("apiVersion", "v1")}, **it))
			else:
				objects.append(d)
	return objects, config


def _pod_for_create(pod, owners=None):
	"""A fixture pod as the API server will take it: without owner references (to objects that do not
	exist yet or at all: the garbage collector would delete the pod; a DaemonSet adopts its pods)."""
	p = copy.deepcopy(pod)
	p["metadata"].pop("ownerReferences", None)
	spec = p.setdefault("spec", {})
	# Volumes of the service-account token the admission plugin added when the pod was captured are added
	# again by this server's admission plugin: keep the capture's out, or the names clash.
	vols = [v for v in spec.get("volumes", []) if not v.get("name", "").startswith("kube-api-access-")]
	if "volumes" in spec:
		spec["volumes"] = vols
	for c in spec.get("containers", []) + spec.get("initContainers", []):
		c["volumeMounts"] = [m for m in c.get("volumeMounts", []) if not m.get("name", "").startswith("kube-api-access-")]
		if not c["volumeMounts"]:
			del c["volumeMounts"]
	return p


def clear(cluster, namespaces=None):
	"""Removes every node, pod and DaemonSet (in namespaces, default all but the system ones' own)."""
	for ds in cluster.list("/apis/apps/v1/daemonsets"):
		md = ds["metadata"]
		# Background: gone at once; the pods are deleted below, and the garbage collector finds none left.
		cluster.must("DELETE", "/apis/apps/v1/namespaces/%s/daemonsets/%s" % (md["namespace"], md["name"]),
			{"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}, ok=(200, 202, 404))
	for ns in {p["metadata"]["namespace"] for p in cluster.list("/api/v1/pods")}:
		cluster.must("DELETE", "/api/v1/namespaces/%s/pods?gracePeriodSeconds=0" % ns, ok=(200,))
	cluster.must("DELETE", "/api/v1/nodes", ok=(200,))
	# Wait until the pods are gone and stay gone: the DaemonSet controller may not have seen its
	# DaemonSet's deletion yet and still make a pod for it.
	deadline = time.monotonic() + 10
	empty = 0
	while time.monotonic() < deadline:
		left = cluster.list("/api/v1/pods")
		empty = 0 if left else empty + 1
		if empty == 3:
			break
		for p in left:
			md = p["metadata"]
			cluster.call("DELETE", "/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=0" % (md["namespace"], md["name"]))
		time.sleep(0.1)


def _wait_adopted(cluster, wanted, timeout=30):
	"""Waits until each pod {(namespace, name): uid} is controlled by the DaemonSet of that uid."""
	deadline = time.monotonic() + timeout
	while wanted:
		have = {}
		for p in cluster.list("/api/v1/pods"):
			for ref in p["metadata"].get("ownerReferences", []):
				if ref.get("controller"):
					have[(p["metadata"]["namespace"], p["metadata"]["name"])] = ref.get("uid")
		missing = [k for k, uid in wanted.items() if have.get(k) != uid]
		if not missing:
			return
		if time.monotonic() > deadline:
			raise RuntimeError("the DaemonSet controller did not adopt %s" % ", ".join("/".join(k) for k in missing))
		time.sleep(0.1)


def load_scenario(cluster, scenario, workers=8, clean=True):
	"""Creates a scenario's objects through the API: namespaces, nodes (status through the status
	subresource, the not-ready taint removed as the node lifecycle controller would once the node is
	Ready), DaemonSets, then pods (bound by spec.nodeName, status through the subresource).
	scenario: a directory or (objects, config).  Returns the scenario's config (scenario.json)."""
	objects, config = read_scenario(scenario) if isinstance(scenario, str) else scenario
	if clean:
		clear(cluster)
	by_kind = {}
	for o in objects:
		by_kind.setdefault(o.get("kind"), []).append(o)
	namespaces = sorted({o["metadata"].get("namespace", "default") for o in objects
		if o.get("kind") in ("Pod", "DaemonSet")} | {"default"})
	existing = {n["metadata"]["name"] for n in cluster.list("/api/v1/namespaces")}
	cluster.create_many([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}
		for n in namespaces if n not in existing], workers, ignore_exists=True)
	# The ServiceAccount admission plugin wants each namespace's default account, which the controller
	# manager makes a moment after the namespace: make it here rather than wait.
	accounts = {(n, "default") for n in namespaces}
	for o in by_kind.get("Pod", []) + by_kind.get("DaemonSet", []):
		spec = o.get("spec", {})
		spec = spec.get("template", {}).get("spec", {}) if o["kind"] == "DaemonSet" else spec
		accounts.add((o["metadata"].get("namespace", "default"), spec.get("serviceAccountName") or "default"))
	cluster.create_many([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": a, "namespace": n}}
		for n, a in sorted(accounts)], workers, ignore_exists=True)
	nodes = []
	for n in by_kind.get("Node", []):
		n = copy.deepcopy(n)
		taints = [t for t in n.get("spec", {}).get("taints", []) if t.get("key") != "node.kubernetes.io/not-ready"]
		n.setdefault("spec", {})["taints"] = taints
		nodes.append(n)
	created = cluster.create_many(nodes, workers)
	# Admission added the not-ready taint on create; remove it where the fixture does not have it.
	for want, got in zip(nodes, created):
		if [t.get("key") for t in got.get("spec", {}).get("taints", [])] != [t.get("key") for t in want["spec"]["taints"]]:
			cluster.must("PATCH", object_path(got), {"spec": {"taints": want["spec"]["taints"] or None}},
				content_type="application/merge-patch+json")
	owners = {}
	daemonsets = []
	for ds in by_kind.get("DaemonSet", []):
		ds = copy.deepcopy(ds)
		# The fixture's pods carry no controller-revision-hash of this server's making: with OnDelete the
		# controller leaves them alone, and still replaces a deleted pod.
		ds.setdefault("spec", {})["updateStrategy"] = {"type": "OnDelete"}
		daemonsets.append(ds)
	# Pods first, without their DaemonSet owner: the controller, seeing a new DaemonSet, adopts the pods
	# that match its selector; were the DaemonSet first, it would make pods of its own on their nodes.
	pods = [_pod_for_create(p, owners) for p in by_kind.get("Pod", [])]
	cluster.create_many(pods, workers)
	if daemonsets:
		# The controller watches pods and DaemonSets separately: give its pod cache a moment to see the
		# pods, or it makes pods of its own for their nodes and then deletes the extra ones.
		time.sleep(0.5)
	wanted = {}
	for ds in cluster.create_many(daemonsets, workers):
		owners[(ds["metadata"]["namespace"], ds["metadata"]["name"])] = ds["metadata"]["uid"]
	for p in by_kind.get("Pod", []):
		md = p["metadata"]
		for ref in md.get("ownerReferences", []):
			uid = owners.get((md.get("namespace", "default"), ref.get("name")))
			if ref.get("kind") == "DaemonSet" and uid:
				wanted[(md.get("namespace", "default"), md["name"])] = uid
	if not cluster.controllers:
		# No controller to adopt them: set the owner as it would.
		for (ns, name), uid in wanted.items():
			ds = next(d for d in daemonsets if d["metadata"].get("namespace", "default") == ns
				and owners.get((ns, d["metadata"]["name"])) == uid)
			cluster.must("PATCH", "/api/v1/namespaces/%s/pods/%s" % (ns, name), {"metadata": {"ownerReferences": [
				{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"], "uid": uid,
					"controller": True, "blockOwnerDeletion": True}]}}, content_type="application/merge-patch+json")
		wanted = {}
	_wait_adopted(cluster, wanted)
	if wanted:
		time.sleep(0.3)
		have = {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in cluster.list("/api/v1/pods")
			if not p["metadata"].get("deletionTimestamp")}
		lost = [k for k in wanted if k not in have]
		if lost:
			if not clean or getattr(cluster, "_load_retry", False):
				raise RuntimeError("the DaemonSet controller replaced %s while loading" % ", ".join("/".join(k) for k in lost))
			cluster._load_retry = True
			try:
				return load_scenario(cluster, scenario, workers, clean)
			finally:
				cluster._load_retry = False
	others = [o for k, v in by_kind.items() if k not in ("Node", "Pod", "DaemonSet") for o in v]
	cluster.create_many(others, workers)
	return config


# ---- the status agent ----------------------------------------------------------------------------------

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
