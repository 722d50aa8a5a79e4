"""Helpers for the end-to-end tests: start the fake API server and run the plugin against it.

    from harness import FakeAPI, run_plugin

    with FakeAPI("seed002") as api:
        r = run_plugin(["--kubeconfig", api.kubeconfig])
        api.requests()       # what the plugin sent

FakeAPI(scenario, **options): scenario is a name under fixtures/scenarios/, a path, or a generator spec
("gen:nodes=100,pods=2000"); options become fakeapi.py flags (continue_ttl=2 -> --continue-ttl 2,
prerender=True -> --prerender).
"""

import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FAKEAPI = os.path.join(ROOT, "tests", "fakeapi", "fakeapi.py")
SCENARIOS = os.path.join(ROOT, "fixtures", "scenarios")


def plugin_path():
	"""The plugin under test (CGPU_PLUGIN), or None when it is not built."""
	p = os.environ.get("CGPU_PLUGIN")
	return p if p and os.path.exists(p) else None


def run_plugin(args, env=None, timeout=60, input=None):
	"""Runs the plugin with args; returns subprocess.CompletedProcess with text stdout/stderr."""
	p = plugin_path()
	if p is None:
		raise RuntimeError("CGPU_PLUGIN is not set or does not exist")
	e = dict(os.environ, LC_ALL="C", TZ="UTC", NO_COLOR="1")
	e.update(env or {})
	return subprocess.run([p] + list(args), capture_output=True, text=True, env=e, timeout=timeout, input=input)


class FakeAPI:
	def __init__(self, scenario, **options):
		if not scenario.startswith("gen:") and not os.path.isdir(scenario):
			scenario = os.path.join(SCENARIOS, scenario)
		self.scenario = scenario
		self.options = options
		self.proc = None
		self.state_dir = None

	def __enter__(self):
		return self.start()

	def __exit__(self, *exc):
		self.stop()
		return False

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
			if self.proc.poll() is None:
				self.proc.send_signal(signal.SIGTERM)
				try:
					self.proc.wait(5)
				except subprocess.TimeoutExpired:
					self.proc.kill()
					self.proc.wait()
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
