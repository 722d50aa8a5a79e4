"""Bad input of every kind, end to end: a broken kubeconfig, a server that cannot be reached or answers
badly, and objects holding nonsense.  Every failure must give one line on stderr as kubectl would print it
(Warning: lines aside) and exit 1 (usage errors too, with kubectl's hint), never a crash, a hang or a sanitizer report;
nonsense in the objects must still give a table and exit 0.

Each failing case runs the plain inspect, `-d` and `-o json`.  When CGPU_PLUGIN_ASAN names a build with
-Db_sanitize=address,undefined, every run is repeated with it too.  Where the real kubectl is installed, the
first line of its stderr for `kubectl get nodes` on the same kubeconfig is compared with ours: equal where
kubectl's wording is the contract; the cases that differ on purpose are listed in DIFFERENT below and
printed at the end (set BAD_INPUT_REPORT=1 to print the whole table of cases).

    meson test -C build --suite e2e test_bad_input
    cd tests/e2e && CGPU_PLUGIN=../../build/src/kubectl-inspect-cgpu \
        CGPU_PLUGIN_ASAN=../../build-asan/src/kubectl-inspect-cgpu BAD_INPUT_REPORT=1 python3 -m unittest -v test_bad_input
"""

import base64
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from harness import FakeAPI, ROOT, ClusterCase, free_port, plugin_path

BAD = os.path.join(ROOT, "fixtures", "kubeconfig", "bad")
ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}
TIMEOUT = 20
KUBECTL = shutil.which("kubectl")
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
	r"SUMMARY: |Segmentation fault|core dumped|Traceback|^\s*#\d+ 0x", re.M)

USAGE_HINT = re.compile(r"^See 'kubectl inspect cgpu( [a-z]+)? --help' for usage\.$")

# Where our first line differs from kubectl's on purpose: case -> why.
DIFFERENT = {
	"scalar-yaml": "kubectl quotes Go's json unmarshal error; we name the line and what was expected",
	"wrong-types": "kubectl quotes Go's json unmarshal error; we name the line and what was expected",
	"plain-http-server": "TLS library wording after 'Unable to connect to the server: '",
	"never-accepts": "timeout wording after 'Unable to connect to the server: '",
	"drip": "timeout wording after 'Unable to connect to the server: '",
	"token-control-chars": "kubectl refuses the header in Go's net/http with its own wording",
	"two-problems": "kubectl prints 'Error in configuration:' and one '* problem' line each; we keep one line",
	"token-newline": "kubectl fails in Go's net/http; we refuse the token before sending it, naming the user",
	"exec-missing": "client-go's 'not installed' hint is given for a missing absolute path too (kubectl: fork/exec)",
	"exec-garbage": "we name what is wrong with the plugin's output; kubectl quotes Go's json decoder",
	"exec-wrong-shape": "we name what is wrong with the plugin's output; kubectl quotes Go's decoder",
	"html-502": "the page's line breaks are folded into spaces (kubectl prints \\r\\n escapes)",
	"creds-plain-http": "we refuse to send a token over plain http; kubectl sends it and reports what the server does",
	"token-1mb": "kubectl sends the 1 MB header and reports the server's reset; we refuse it before sending",
	"ca-garbage": "kubectl: 'error: unable to load root certificates: ...'; we report it as a connection failure",
}

HOME = tempfile.mkdtemp(prefix="cgpu-bad-home-")	# kubectl keeps a cache under $HOME/.kube
RESULTS = []		# (case, variant, binary, ok, note) for the report
NOTES = {}		# case -> (ours, kubectl) first lines where they differ


def binaries():
	out = []
	p = plugin_path()
	if p:
		out.append(("plain", p))
	a = os.environ.get("CGPU_PLUGIN_ASAN")
	if a and os.path.exists(a):
		out.append(("asan", a))
	return out


def clean_env(extra=None, home=None):
	e = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_") and k != "KUBECONFIG"}
	e.update(ENV)
	e["HOME"] = home or HOME
	e["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:exitcode=99"
	e["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=99"
	e.update(extra or {})
	return e


def run(binary, args, env=None, timeout=TIMEOUT):
	"""(returncode or None on timeout, stdout, stderr, seconds)"""
	t0 = time.monotonic()
	try:
		r = subprocess.run([binary] + list(args), capture_output=True, env=env, timeout=timeout,
			stdin=subprocess.DEVNULL)
	except subprocess.TimeoutExpired as e:
		return None, (e.stdout or b"").decode("utf-8", "replace"), (e.stderr or b"").decode("utf-8", "replace"), \
			time.monotonic() - t0
	return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"), \
		time.monotonic() - t0


def error_lines(stderr, passthrough=None):
	"""stderr without Warning: lines, kubectl's usage hint, and the lines a credential plugin wrote itself
	(kubectl passes those through as well)."""
	return [l for l in stderr.splitlines() if not l.startswith("Warning: ") and not USAGE_HINT.match(l)
		and not (passthrough and l == passthrough)]


def kubectl_first_line(kargs, env, passthrough=None):
	if not KUBECTL:
		return None
	try:
		r = subprocess.run([KUBECTL] + kargs, capture_output=True, env=env, timeout=30, stdin=subprocess.DEVNULL)
	except subprocess.TimeoutExpired:
		return "(kubectl timed out)"
	lines = [l for l in r.stderr.decode("utf-8", "replace").splitlines() if l and not l.startswith(("Warning: ", "E1", "I1", "W1"))
		and l != passthrough]
	return lines[0] if lines else ""


def listen_no_accept():
	"""A socket that listens and never accepts: the handshake completes in the kernel, then silence."""
	s = socket.socket()
	s.bind(("127.0.0.1", 0))
	s.listen(1)
	return s


class _Plain(http.server.BaseHTTPRequestHandler):
	def do_GET(self):
		body = b'{"kind":"NodeList","apiVersion":"v1","items":[]}'
		self.send_response(200)
		self.send_header("Content-Type", "application/json")
		self.send_header("Content-Length", str(len(body)))
		self.end_headers()
		self.wfile.write(body)

	def log_message(self, *a):
		pass


class _QuietServer(http.server.ThreadingHTTPServer):
	def handle_error(self, request, client_address):
		pass	# the plugin hangs up on purpose (TLS failures, refused bodies): not news


class _Canned:
	"""An HTTPS server answering every request with one status and body (the fake server's certificate)."""

	def __init__(self, state_dir, body, code=200):
		import ssl
		outer = self

		class H(http.server.BaseHTTPRequestHandler):
			protocol_version = "HTTP/1.1"

			def do_GET(self):
				self.send_response(outer.code)
				self.send_header("Content-Type", "application/json")
				self.send_header("Content-Length", str(len(outer.body)))
				self.end_headers()
				self.wfile.write(outer.body)

			def log_message(self, *a):
				pass

		self.body, self.code = body, code
		self.srv = _QuietServer(("127.0.0.1", 0), H)
		self.srv.daemon_threads = True
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		ctx.load_cert_chain(os.path.join(state_dir, "server.crt"), os.path.join(state_dir, "server.key"))
		self.srv.socket = ctx.wrap_socket(self.srv.socket, server_side=True)
		self.port = self.srv.server_port

	def __enter__(self):
		self.t = threading.Thread(target=self.srv.serve_forever, daemon=True)
		self.t.start()
		return self

	def __exit__(self, *exc):
		self.srv.shutdown()
		self.srv.server_close()
		return False


def kubeconfig_text(server, cluster_extra="", user="    token: abc\n", current="c"):
	return ("apiVersion: v1\nkind: Config\ncurrent-context: %s\nclusters:\n- name: c\n  cluster:\n"
		"    server: %s\n%scontexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user:\n%s"
		% (current, server, cluster_extra, user))


@unittest.skipUnless(plugin_path(), "plugin not built")
class BadInput(ClusterCase):
	@classmethod
	def setUpClass(cls):
		cls.api = FakeAPI("seed002").start()
		cls.dir = tempfile.mkdtemp(prefix="cgpu-bad-")
		with open(cls.api.ca, "rb") as f:
			cls.ca_data = base64.b64encode(f.read()).decode()

	# -- helpers -------------------------------------------------------------------------------------------

	def arm(self, match, fault, times):
		def f():
			self.api.reset()
			self.api.fault(match, fault, times)
		return f

	def write(self, name, text, mode="w"):
		p = os.path.join(self.dir, name)
		with open(p, mode) as f:
			f.write(text)
		return p

	def token_kubeconfig(self, name, token_yaml, server=None):
		return self.write(name, kubeconfig_text(server or self.api.url,
			"    certificate-authority-data: %s\n" % self.ca_data, token_yaml))

	def expect_error(self, case, args, line=None, pattern=None, code=1, env=None, variants=True, kubectl=None,
			max_seconds=None, prefix=None, passthrough=None, arm=None, usage=False):
		"""Runs args (and with -d, -o json) on every binary: exit code, one error line, no crash or hang.
		line: the exact line; pattern: a regular expression it must match; prefix: its start.
		kubectl: the arguments for kubectl (then compared; equal unless the case is in DIFFERENT).
		arm: called before each run (faults are counted, so each run gets its own)."""
		env = clean_env(env)
		first = None
		vs = [[], ["-d"], ["-o", "json"]] if variants else [[]]
		for bname, binary in binaries():
			for v in vs:
				label = " ".join(v) or "inspect"
				with self.subTest(case=case, variant=label, binary=bname):
					if arm:
						arm()
					rc, out, err, secs = run(binary, v + list(args), env)
					ok = False
					try:
						self.assertIsNotNone(rc, "hung: no exit after %d s; stderr %r" % (TIMEOUT, err[-500:]))
						self.assertFalse(SANITIZER.search(err), "crash or sanitizer report:\n" + err[-3000:])
						self.assertTrue(0 <= rc < 128, "killed by a signal or crashed: %d\n%s" % (rc, err[-2000:]))
						self.assertEqual(rc, code, "exit code; stderr %r" % err[-1000:])
						lines = error_lines(err, passthrough)
						if not usage:
							self.assertFalse(any(USAGE_HINT.match(l) for l in err.splitlines()),
								"a usage hint after an error that is not a usage error")
						self.assertEqual(len(lines), 1, "want one error line, got %r" % lines[:10])
						got = lines[0]
						self.assertLess(len(got), 4096, "the error line is %d bytes long" % len(got))
						if line is not None:
							self.assertEqual(got, line)
						if pattern is not None:
							self.assertRegex(got, pattern)
						if prefix is not None:
							self.assertTrue(got.startswith(prefix), "%r does not start with %r" % (got, prefix))
						if max_seconds is not None:
							self.assertLess(secs, max_seconds, "took %.1f s" % secs)
						self.assertEqual(out, "", "stdout on failure")
						if first is None:
							first = got
						ok = True
					finally:
						RESULTS.append((case, label, bname, ok, (lines[0][:160] if ok else "")))
		if kubectl is not None and KUBECTL and first is not None:
			if arm:
				arm()
			theirs = kubectl_first_line(kubectl, env, passthrough)
			if case in DIFFERENT:
				if theirs != first:
					NOTES[case] = (first, theirs)
			else:
				with self.subTest(case=case, compare="kubectl"):
					self.assertEqual(first, theirs, "our first line differs from kubectl's")
		return first

	def expect_ok(self, case, args, env=None, want_stdout=None, variants=True, arm=None, after=None):
		"""Runs args on every binary: exit 0, output, only Warning: lines on stderr, no sanitizer report."""
		env = clean_env(env)
		vs = [[], ["-d"], ["-o", "json"]] if variants else [[]]
		outs = []
		for bname, binary in binaries():
			for v in vs:
				label = " ".join(v) or "inspect"
				with self.subTest(case=case, variant=label, binary=bname):
					ok = False
					try:
						if arm:
							arm()
						rc, out, err, secs = run(binary, v + list(args), env)
						self.assertIsNotNone(rc, "hung: no exit after %d s" % TIMEOUT)
						self.assertFalse(SANITIZER.search(err), "crash or sanitizer report:\n" + err[-3000:])
						self.assertEqual(rc, 0, "exit code; stderr %r" % err[-2000:])
						self.assertEqual(error_lines(err), [], "stderr besides warnings")
						self.assertNotEqual(out.strip(), "", "no output")
						if v == ["-o", "json"]:
							json.loads(out)
						if want_stdout and not v:
							self.assertRegex(out, want_stdout)
						outs.append((v, out, err))
						if after:
							after()
						ok = True
					finally:
						warn = err.splitlines()[:1] if ok else []
						RESULTS.append((case, label, bname, ok, "%d warning(s)%s" % (len(err.splitlines()),
							(", first: " + warn[0][:160]) if warn else "") if ok else ""))
		return outs

	# -- usage ---------------------------------------------------------------------------------------------

	def test_usage(self):
		k = ["--kubeconfig", self.api.kubeconfig]
		for case, args in [("unknown-flag", ["--no-such-flag"]), ("bad-output", ["-o", "xml"]),
				("bad-unit", ["--unit", "TiB"]), ("bad-timeout", ["--request-timeout", "soon"]),
				("missing-value", ["-l"])]:
			self.expect_error(case, k + args, variants=False, prefix="error: ", usage=True)

	# -- kubeconfig ----------------------------------------------------------------------------------------

	def test_kubeconfig_missing_file(self):
		p = os.path.join(self.dir, "nope.yaml")
		self.expect_error("missing-file", ["--kubeconfig", p], line="error: stat %s: no such file or directory" % p,
			kubectl=["--kubeconfig", p, "get", "nodes"])

	def test_kubeconfig_static(self):
		for case, name, pattern in [
				("not-yaml", "not-yaml.yaml", r'^error: error loading config file ".*not-yaml.yaml": yaml: line 3: '),
				("wrong-types", "wrong-types.yaml", r'^error: error loading config file ".*wrong-types.yaml": '),
				("scalar-yaml", "scalar.yaml", r'^error: error loading config file ".*scalar.yaml": '),
				("binary-yaml", "binary.yaml", r'^error: error loading config file ".*binary.yaml": yaml: '),
				("cert-without-key", "cert-without-key.yaml",
					r"^error: client-key-data or client-key must be specified for u to use the clientCert"),
				("ca-missing", "ca-missing.yaml", r"^error: unable to read certificate-authority .*no-such-ca.pem"),
				("two-problems", "two-problems.yaml", r"^error: invalid configuration: \[client-key-data or client-key "
					r"must be specified for u .*, unable to read certificate-authority .*no-such-ca.pem .*\]$"),
				("insecure-with-ca", "insecure-with-ca.yaml",
					r"^error: specifying a root certificates file with the insecure flag is not allowed$")]:
			p = os.path.join(BAD, name)
			self.expect_error(case, ["--kubeconfig", p], pattern=pattern, kubectl=["--kubeconfig", p, "get", "nodes"])

	def test_kubeconfig_unknown_names(self):
		k = self.api.kubeconfig
		self.expect_error("context-nope", ["--kubeconfig", k, "--context", "nope"],
			pattern=r'nope', kubectl=["--kubeconfig", k, "--context", "nope", "get", "nodes"])
		self.expect_error("cluster-nope", ["--kubeconfig", k, "--cluster", "nope"],
			line='error: no server found for cluster "nope"',
			kubectl=["--kubeconfig", k, "--cluster", "nope", "get", "nodes"])
		self.expect_error("user-nope", ["--kubeconfig", k, "--user", "nope"],
			line='error: auth info "nope" does not exist',
			kubectl=["--kubeconfig", k, "--user", "nope", "get", "nodes"])

	def test_credentials_over_plain_http(self):
		# The fake server speaks plain HTTP on the same port too (its control endpoints); the API answers
		# there without the TLS identity.  What matters: one line or a table, and no crash.
		p = self.write("plain-http.yaml", kubeconfig_text("http://127.0.0.1:%d" % free_port(), "",
			"    token: secret-token-xyz\n"))
		first = self.expect_error("creds-plain-http", ["--kubeconfig", p],
			pattern=r"^error: refusing to send credentials over plain http to 127\.0\.0\.1:\d+",
			kubectl=["--kubeconfig", p, "get", "nodes"])
		self.assertNotIn("secret-token-xyz", first or "")

	def test_token_odd_bytes(self):
		k = self.token_kubeconfig
		p = k("tok-ctl.yaml", '    token: "abc\\x01\\x1b[31mdef"\n')
		self.expect_error("token-control-chars", ["--kubeconfig", p], prefix="",
			kubectl=["--kubeconfig", p, "get", "nodes"])
		p = self.write("tok-utf8.yaml", kubeconfig_text(self.api.url,
			"    certificate-authority-data: %s\n" % self.ca_data, "    token: abc\xff\xfedef\n").encode("latin-1"), "wb")
		self.expect_error("token-non-utf8", ["--kubeconfig", p], prefix="error: error loading config file",
			kubectl=["--kubeconfig", p, "get", "nodes"])
		p = k("tok-1mb.yaml", "    token: %s\n" % ("A" * (1 << 20)))
		first = self.expect_error("token-1mb", ["--kubeconfig", p],
			line='error: the token for user "u" is too long for an HTTP header (1048576 bytes)',
			kubectl=["--kubeconfig", p, "get", "nodes"])
		self.assertNotIn("A" * 64, first or "", "the token leaks into the error line")
		tf = self.write("token-1mb.txt", "B" * (1 << 20) + "\n")
		p = k("tokfile-1mb.yaml", "    tokenFile: %s\n" % tf)
		first = self.expect_error("token-file-1mb", ["--kubeconfig", p],
			line='error: the token for user "u" is too long for an HTTP header (1048576 bytes)')
		self.assertNotIn("B" * 64, first or "", "the token leaks into the error line")
		p = k("tok-newline.yaml", '    token: "abc\\ndef"\n')
		first = self.expect_error("token-newline", ["--kubeconfig", p], prefix="",
			kubectl=["--kubeconfig", p, "get", "nodes"])

	def test_exec_plugins(self):
		def exec_kc(name, command):
			return self.token_kubeconfig(name, "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
				"      command: %s\n      interactiveMode: Never\n" % command)
		env = {"KUBE_EXEC_TIMEOUT": "2"}
		p = exec_kc("exec-missing.yaml", "/nonexistent/credential-helper")
		self.expect_error("exec-missing", ["--kubeconfig", p], env=env, prefix="Unable to connect to the server: getting credentials: ",
			pattern=r"/nonexistent/credential-helper", kubectl=["--kubeconfig", p, "get", "nodes"])
		for case, script in [("exec-exit-1", "exec-fail.sh"), ("exec-garbage", "exec-garbage.sh"),
				("exec-wrong-shape", "exec-wrong-shape.sh")]:
			p = exec_kc(case + ".yaml", os.path.join(BAD, script))
			self.expect_error(case, ["--kubeconfig", p], env=env, prefix="Unable to connect to the server: getting credentials: ",
				passthrough="plugin: login expired, run the login command again", kubectl=["--kubeconfig", p, "get", "nodes"])
		p = exec_kc("exec-hang.yaml", os.path.join(BAD, "exec-hang.sh"))
		self.expect_error("exec-hang", ["--kubeconfig", p], env=env, prefix="Unable to connect to the server: getting credentials: ",
			variants=False, max_seconds=8)

	# -- transport -----------------------------------------------------------------------------------------

	def test_refused(self):
		port = free_port()
		p = self.token_kubeconfig("refused.yaml", "    token: abc\n", "https://127.0.0.1:%d" % port)
		self.expect_error("refused", ["--kubeconfig", p],
			line="The connection to the server 127.0.0.1:%d was refused - did you specify the right host or port?" % port,
			kubectl=["--kubeconfig", p, "get", "nodes"])

	def test_never_accepts(self):
		s = listen_no_accept()
		try:
			p = self.token_kubeconfig("silent.yaml", "    token: abc\n", "https://127.0.0.1:%d" % s.getsockname()[1])
			self.expect_error("never-accepts", ["--kubeconfig", p, "--request-timeout=2s"], variants=False, max_seconds=4,
				prefix="Unable to connect to the server: ",
				kubectl=["--kubeconfig", p, "--request-timeout=2s", "get", "nodes"])
		finally:
			s.close()

	def test_no_tls_answer_without_request_timeout(self):
		# --request-timeout=0 is no limit, as kubectl's; the TLS handshake still has kubectl's 10 s
		s = listen_no_accept()
		try:
			p = self.token_kubeconfig("no-tls.yaml", "    token: abc\n", "https://127.0.0.1:%d" % s.getsockname()[1])
			# one request (the node read by mode), so that one handshake's time is measured
			rc, out, err, secs = run(plugin_path(), ["--kubeconfig", p, "--request-timeout=0", "mode", "exclusive",
				"node-a", "--dry-run=client"], clean_env(None))
			self.assertEqual(rc, 1, err)
			self.assertEqual(err.splitlines()[-1], "Unable to connect to the server: net/http: TLS handshake timeout")
			self.assertGreater(secs, 9.5)
			self.assertLess(secs, 16)
		finally:
			s.close()

	def test_untrusted_ca(self):
		# A real CA, but not the one that signed the server's certificate.
		key, crt = os.path.join(self.dir, "other-ca.key"), os.path.join(self.dir, "other-ca.crt")
		subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
			"-keyout", key, "-out", crt, "-days", "2", "-subj", "/CN=other-ca"], check=True, capture_output=True)
		p = self.write("untrusted.yaml", kubeconfig_text(self.api.url, "    certificate-authority: %s\n" % crt))
		self.expect_error("untrusted-ca", ["--kubeconfig", p],
			line="Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by "
				"unknown authority", kubectl=["--kubeconfig", p, "get", "nodes"])
		# A CA file that is not a certificate at all.
		p = self.write("garbage-ca.yaml", kubeconfig_text(self.api.url,
			"    certificate-authority: %s\n" % os.path.join(ROOT, "fixtures", "kubeconfig", "certs", "ca.pem")))
		self.expect_error("ca-garbage", ["--kubeconfig", p], prefix="", kubectl=["--kubeconfig", p, "get", "nodes"])

	def test_plain_http_server(self):
		srv = _QuietServer(("127.0.0.1", 0), _Plain)
		t = threading.Thread(target=srv.serve_forever, daemon=True)
		t.start()
		try:
			p = self.token_kubeconfig("plainsrv.yaml", "    token: abc\n", "https://127.0.0.1:%d" % srv.server_port)
			self.expect_error("plain-http-server", ["--kubeconfig", p, "--request-timeout=5s"], prefix="Unable to connect to the server: ",
				kubectl=["--kubeconfig", p, "--request-timeout=5s", "get", "nodes"])
		finally:
			srv.shutdown()
			srv.server_close()

	def test_reset_mid_body(self):
		self.expect_error("reset-mid-body", ["--kubeconfig", self.api.kubeconfig], prefix="",
			arm=self.arm({"path_prefix": "/api/v1/nodes"}, {"type": "reset"}, 20))

	def test_truncated_transport(self):
		self.expect_error("truncate", ["--kubeconfig", self.api.kubeconfig], prefix="",
			arm=self.arm({"path_prefix": "/api/v1/pods"}, {"type": "truncate"}, 20))

	def test_gzip_streams_cut_or_corrupt(self):
		# Bodies over 128 KiB come gzipped: a list of 800 pods is one.
		big = FakeAPI("gen:nodes=20,pods=800").start()

		def arm(ftype):
			def f():
				big.reset()
				big.fault({"path_prefix": "/api/v1/pods"}, {"type": ftype}, 0)
			return f
		try:
			self.expect_error("gzip-cut", ["--kubeconfig", big.kubeconfig],
				line="Unable to connect to the server: unexpected EOF", arm=arm("gzip_cut"))
			# A protobuf body that cannot be read is asked for again in JSON, corrupt again here; what
			# is inflated goes on to the decoder as it comes, so the garbage may stop it first.
			self.expect_error("gzip-corrupt", ["--kubeconfig", big.kubeconfig],
				pattern=r"^error: (flate: corrupt input|gzip: invalid checksum|invalid JSON in response: .+)$",
				arm=arm("gzip_corrupt"))
			gz = [r for r in big.requests() if r["path"] == "/api/v1/pods"]
			self.assertTrue(gz, "the pod list was never asked for")
		finally:
			big.stop()

	def test_drip(self):
		self.api.fault({"path_prefix": "/api/v1/nodes"}, {"type": "drip", "bytes_per_second": 20}, times=0)
		self.expect_error("drip", ["--kubeconfig", self.api.kubeconfig, "--request-timeout=2s"], variants=False,
			max_seconds=5, prefix="Unable to connect to the server: ",
			kubectl=["--kubeconfig", self.api.kubeconfig, "--request-timeout=2s", "get", "nodes"])

	# -- server replies ------------------------------------------------------------------------------------

	def test_unauthorized(self):
		k = self.api.kubeconfig
		self.expect_error("401", ["--kubeconfig", k, "--context", "badtoken"],
			line="error: You must be logged in to the server (Unauthorized)",
			kubectl=["--kubeconfig", k, "--context", "badtoken", "get", "nodes"])

	def test_forbidden(self):
		k = self.api.kubeconfig
		self.expect_error("403", ["--kubeconfig", k, "--context", "nobody"],
			line='Error from server (Forbidden): nodes is forbidden: User "nobody" cannot list resource "nodes" '
				'in API group "" at the cluster scope',
			kubectl=["--kubeconfig", k, "--context", "nobody", "get", "nodes"])

	def test_not_found(self):
		k = self.api.kubeconfig
		self.expect_error("404-node", ["--kubeconfig", k, "x"], line='Error from server (NotFound): nodes "x" not found',
			kubectl=["--kubeconfig", k, "get", "nodes", "x"])

	def test_500(self):
		self.api.fault({"path_prefix": "/api/v1/nodes"}, {"type": "status", "code": 500}, times=0)
		self.expect_error("500", ["--kubeconfig", self.api.kubeconfig], prefix="Error from server",
			kubectl=["--kubeconfig", self.api.kubeconfig, "get", "nodes"])

	def test_retry_after_then_success(self):
		for code in (429, 503):
			def after():
				st = [r["status"] for r in self.api.requests() if r["path"] == "/api/v1/nodes"]
				self.assertEqual(st[:2], [code, code], "the faults were not met")
				self.assertEqual(st[-1], 200)
			self.expect_ok("%d-then-ok" % code, ["--kubeconfig", self.api.kubeconfig], variants=False,
				want_stdout=r"cn-hangzhou\.192\.168\.2\.167", after=after,
				arm=self.arm({"path_prefix": "/api/v1/nodes"}, {"type": "status", "code": code, "retry_after": 1}, 2))

	def test_html_502(self):
		self.api.fault({"path_prefix": "/api/v1/nodes"}, {"type": "html", "code": 502}, times=0)
		first = self.expect_error("html-502", ["--kubeconfig", self.api.kubeconfig], prefix="", pattern=r"502|Bad Gateway",
			kubectl=["--kubeconfig", self.api.kubeconfig, "get", "nodes"])
		self.assertNotIn("\r", first or "")

	def test_malformed_json(self):
		for path in ("/api/v1/nodes", "/api/v1/pods"):
			self.api.reset()
			self.api.fault({"path_prefix": path}, {"type": "malformed"}, times=0)
			self.expect_error("malformed" + path.replace("/", "-"), ["--kubeconfig", self.api.kubeconfig], prefix="")

	def test_wrong_shape(self):
		# A 200 with a body that is not a list of the kind asked for, served over HTTPS with the fake
		# server's own certificate so that only the body is wrong.
		cases = [
			("empty-body", b"", None),
			("array", b"[]", None),
			("truncated-json", b'{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a', None),
			("trailing-garbage", b'{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[]} <html>', None),
			("string", b'"NodeList"', None),
			("deep", b"[" * 100000 + b"]" * 100000, None),
			("nul", b'{"kind":"NodeList","items":[{"metadata":{"name":"a\x00b"}}]}', None),
			("empty-404", b"", 404),
			("json-500", b'{"error":"boom"}', 500),
		]
		for case, body, code in cases:
			with _Canned(self.api.state_dir, body, code or 200) as srv:
				p = self.token_kubeconfig("canned-%s.yaml" % case, "    token: abc\n", "https://127.0.0.1:%d" % srv.port)
				first = self.expect_error("shape-" + case, ["--kubeconfig", p], prefix="")
				self.assertNotIn("\x00", first or "")

	def test_wrong_shape_object(self):
		# A JSON object, but not a list: kubectl's decoder refuses these ("cannot unmarshal number into
		# Go struct field NodeList.items", a Status in a 200 becomes an error); showing an empty cluster
		# and exiting 0 would hide a broken proxy or a wrong server address.
		cases = [
			("status-200", b'{"kind":"Status","apiVersion":"v1","status":"Failure","message":"odd","code":200}'),
			("items-5", b'{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":5}'),
			("items-strings", b'{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":["a",1,null]}'),
		]
		for case, body in cases:
			with _Canned(self.api.state_dir, body) as srv:
				p = self.token_kubeconfig("canned-%s.yaml" % case, "    token: abc\n", "https://127.0.0.1:%d" % srv.port)
				self.expect_error("shape-" + case, ["--kubeconfig", p], prefix="")

	def test_expired_continue(self):
		# Enough pods that the pod list takes more than one page.
		def arm():
			self.api.reset()
			for i in range(600):
				self.api.put_object({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "filler-%d" % i,
					"namespace": "default"}, "spec": {"nodeName": "cn-hangzhou.192.168.2.167",
					"containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Running"}})
			self.api.fault({"path_prefix": "/api/v1/pods"}, {"type": "expire_continue"}, times=1)

		def after():
			pods = [r for r in self.api.requests() if r["path"] == "/api/v1/pods"]
			self.assertIn(410, [r["status"] for r in pods], "the pod list was never paged, so no 410 was met")
			self.assertEqual(pods[-1]["status"], 200)
		# (paged reads are the quorum reads; the default views read the watch cache in one piece)
		outs = self.expect_ok("410-continue", ["--kubeconfig", self.api.kubeconfig, "--consistent-read"], variants=False,
			want_stdout=r"cn-hangzhou\.192\.168\.2\.167", arm=arm, after=after)
		for v, out, err in outs:
			self.assertRegex(out, r"8/15", "the two GPU pods were lost or counted twice after the restart")

NODE = "cn-hangzhou.192.168.2.167"


@unittest.skipUnless(plugin_path(), "plugin not built")
class BadData(unittest.TestCase):
	"""Nonsense inside the objects: a table (perhaps with warnings), exit 0, never a crash."""

	@classmethod
	def setUpClass(cls):
		cls.api = FakeAPI("seed002").start()
		objs = cls.api.objects()
		items = objs if isinstance(objs, list) else [o for v in objs.values() for o in (v if isinstance(v, list) else [])]
		cls.node = next(o for o in items if o.get("kind") == "Node")
		cls.pod = next(o for o in items if o.get("kind") == "Pod" and o["metadata"]["name"] == "app-3g-v1-0")

	@classmethod
	def tearDownClass(cls):
		cls.api.stop()

	def setUp(self):
		self.api.reset()

	run_ok = BadInput.expect_ok

	def put_pod(self, name, annotations, mem="4", node=NODE):
		pod = json.loads(json.dumps(self.pod))
		pod["metadata"]["name"] = name
		pod["metadata"].pop("uid", None)
		pod["metadata"].pop("resourceVersion", None)
		pod["metadata"]["annotations"] = annotations
		pod["spec"]["nodeName"] = node
		for c in pod["spec"]["containers"]:
			c.setdefault("resources", {})["limits"] = {"aliyun.com/gpu-mem": mem}
		self.api.put_object(pod)

	def put_node(self, name, capacity):
		node = json.loads(json.dumps(self.node))
		node["metadata"]["name"] = name
		node["metadata"].pop("uid", None)
		node["metadata"].pop("resourceVersion", None)
		node["metadata"]["labels"]["kubernetes.io/hostname"] = name
		node["status"]["capacity"].update(capacity)
		node["status"]["allocatable"].update(capacity)
		self.api.put_object(node)

	def check(self, case, want=NODE):
		outs = self.run_ok(case, ["--kubeconfig", self.api.kubeconfig], want_stdout=re.escape(want))
		for v, out, err in outs:
			for l in err.splitlines():
				self.assertLess(len(l), 4096, "a %d-byte warning" % len(l))
		return outs

	def test_huge_annotation(self):
		self.put_pod("huge-ann-0", {"ALIYUN_COM_GPU_MEM_IDX": "0", "ALIYUN_COM_GPU_MEM_ASSIGNED": "true",
			"ALIYUN_COM_GPU_MEM_POD": "4", "junk": "x" * (10 << 20)})
		self.check("annotation-10mb")

	def test_garbage_index(self):
		for i, idx in enumerate(["x", "-1", "999999999999999999999", "", "0x1", "1e3", " 0", "0,1"]):
			self.put_pod("bad-idx-%d" % i, {"ALIYUN_COM_GPU_MEM_IDX": idx, "ALIYUN_COM_GPU_MEM_ASSIGNED": "true",
				"ALIYUN_COM_GPU_MEM_POD": "4"})
		self.check("garbage-index")

	def test_garbage_allocation(self):
		key = "scheduler.framework.gpushare.allocation"
		values = ["not json", "{", "[]", "5", "null", '{"0":"x"}', '{"0":{"1":"x"}}', '{"x":{"y":1}}',
			'{"0":{"1":1e400}}', '{"0":{"1":-7}}', '{"99999999999999999999":{"1":1}}', '{"0":{"1":123456789012345678901234567890}}',
			"[" * 20000 + "]" * 20000, '{"a":' * 5000 + "1" + "}" * 5000, '{"0":{"1":1},"0":{"1":2}}']
		for i, v in enumerate(values):
			self.put_pod("bad-alloc-%d" % i, {key: v, "ALIYUN_COM_GPU_MEM_ASSIGNED": "true", "ALIYUN_COM_GPU_MEM_POD": "4"})
		self.check("garbage-allocation")

	def test_absurd_quantities(self):
		qs = ["1e30", "-5", "abc", "", "9999999999999999999999999Ei", "1.5", "0.0000001m", "NaN"]
		for i, q in enumerate(qs):
			self.put_node("absurd-%d" % i, {"aliyun.com/gpu-mem": q})
		outs = self.check("absurd-quantities")
		# A node whose GPU memory cannot be read is either shown or named in a warning, never dropped
		# without a word (it would look like a node that does not share its GPUs).
		for v, out, err in outs:
			if v != ["-o", "json"]:
				continue
			shown = {n["name"] for n in json.loads(out)["nodes"]}
			for i, q in enumerate(qs):
				if q == "0.0000001m":
					continue	# a real quantity, just about zero: a node without GPU memory
				name = "absurd-%d" % i
				with self.subTest(quantity=q):
					self.assertTrue(name in shown or re.search(r"^Warning: .*\b%s\b" % name, err, re.M),
						"node %s with gpu-mem %r is neither shown nor warned about; stderr %r" % (name, q, err))

	def test_count_zero_mem_positive(self):
		self.put_node("zero-count", {"aliyun.com/gpu-mem": "15", "aliyun.com/gpu-count": "0"})
		self.put_node("neg-count", {"aliyun.com/gpu-mem": "15", "aliyun.com/gpu-count": "-3"})
		self.put_node("huge-count", {"aliyun.com/gpu-mem": "15", "aliyun.com/gpu-count": "99999999999"})
		outs = self.check("count-zero-mem-positive", "zero-count")
		for v, out, err in outs:
			# a count that cannot be right is named, not quietly replaced
			for name in ("neg-count", "huge-count"):
				with self.subTest(variant=v, node=name):
					self.assertRegex(err, r"(?m)^Warning: .*\b%s\b.*gpu-count" % name)

	def test_thousand_gpus(self):
		self.put_node("kgpu", {"aliyun.com/gpu-mem": "16000", "aliyun.com/gpu-count": "1000"})
		self.put_pod("kgpu-pod", {"ALIYUN_COM_GPU_MEM_IDX": "999", "ALIYUN_COM_GPU_MEM_ASSIGNED": "true",
			"ALIYUN_COM_GPU_MEM_POD": "4"}, node="kgpu")
		outs = self.check("thousand-gpus", "kgpu")
		self.assertRegex(outs[1][1], r"999", "GPU 999 of 1000 is not in the details")


def tearDownModule():
	shutil.rmtree(HOME, ignore_errors=True)
	if NOTES:
		print("\nwhere our first line differs from kubectl's on purpose:")
		for case, (ours, theirs) in sorted(NOTES.items()):
			print("  %s (%s)\n    ours:    %s\n    kubectl: %s" % (case, DIFFERENT[case], ours, theirs))
	if os.environ.get("BAD_INPUT_REPORT") == "1":
		print("\ncase\tvariant\tbinary\tresult")
		for case, variant, b, ok, note in RESULTS:
			print("%s\t%s\t%s\t%s\t%s" % (case, variant, b, "pass" if ok else "FAIL", note))


if __name__ == "__main__":
	unittest.main()
