"""The scale benchmark (tests/bench/bench.py) at a tiny scale, so that the command keeps working: the lists
scenario, and the live view under churn on the fake API server.  Also the loader that fills the real API
server for it (tests/envtest/envtest_load.py), against a small HTTPS server that answers from a script."""

import http.server
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from harness import ROOT, plugin_path

import envtest  # noqa: E402  (found through harness's path)

BENCH = os.path.join(ROOT, "tests", "bench", "bench.py")
ROWS = ("download floor, JSON", "download floor, protobuf", "plugin summary", "plugin `-d`", "plugin `-o json`",
	"plugin `-o yaml`", "plugin `defrag` (fragmentation report)", "`kubectl get nodes,pods -A -o json`")
NUM = r"\d+\.\d+"


def table_row(text, label):
	"""The cells of the Markdown row that starts with label, or None."""
	line = next((l for l in text.splitlines() if l.startswith("| " + label)), None)
	return None if line is None else [c.strip() for c in line.strip().strip("|").split("|")]


@unittest.skipIf(plugin_path() is None, "the plugin is not built")
class BenchTest(unittest.TestCase):
	def bench(self, *args, timeout=240):
		with tempfile.TemporaryDirectory() as tmp:
			out = os.path.join(tmp, "tables.md")
			r = subprocess.run([sys.executable, BENCH, "--repeat", "1", "--plugin", plugin_path(),
				"--build", os.path.join(tmp, "build"), "--out", out] + list(args), capture_output=True, text=True,
				timeout=timeout)
			self.assertEqual(r.returncode, 0, r.stderr)
			with open(out) as f:
				written = f.read()
		return r.stdout, written

	def test_tiny(self):
		text, written = self.bench("--scales", "tiny")
		self.assertIn("### tiny: 5 nodes x 4 GPUs, 50 pods", text)
		for row in ROWS:
			cells = table_row(text, row)
			self.assertIsNotNone(cells, "no row for %s in:\n%s" % (row, text))
			self.assertEqual(len(cells), 7, cells)
			if row.startswith("`kubectl") and shutil.which("kubectl") is None:
				continue
			# wall, CPU and peak RSS are measured, the ratio to the floor computed
			for c in cells[1:4]:
				self.assertRegex(c, "^" + NUM + "$", cells)
			self.assertRegex(cells[4], "^" + NUM + "x$", cells)
			self.assertGreater(float(cells[3]), 0.5, "peak RSS of %s" % row)
		self.assertRegex(text, r"\| tiny \| 5 \| 50 \| %s \| %s \| %sx \| %s \| %s \|" % (NUM, NUM, NUM, NUM, NUM))
		self.assertIn("### Scaling of the summary", written)
		self.assert_servers_gone()

	def test_fleet_tiny(self):
		text, written = self.bench("--scenario", "fleet", "--scales", "tiny", "--clusters", "2")
		self.assertIn("Fleet: 2 clusters of 5 nodes / 50 pods each", written)
		for row in ("one cluster alone (median of the clusters)", "one cluster alone (slowest, largest)",
			    "the fleet (--all-contexts)"):
			cells = table_row(text, row)
			self.assertIsNotNone(cells, "no row for %s in:\n%s" % (row, text))
			for c in cells[1:4]:
				self.assertRegex(c, "^" + NUM + "$", cells)
			self.assertGreater(float(cells[3]), 0.5, "peak RSS of %s" % row)
		self.assertRegex(text, r"fleet wall / one cluster: %sx \(goal 1\.5x: (met|NOT met)\); fleet RSS / sum of "
			r"the clusters' %s MiB: %s \(goal 1: (met|NOT met)\)" % (NUM, NUM, NUM))
		self.assert_servers_gone()

	@unittest.skipIf(shutil.which("tmux") is None, "tmux is not installed")
	def test_dra_tiny(self):
		# (its exit status says whether the goal is met; at this size it says nothing)
		with tempfile.TemporaryDirectory() as tmp:
			r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "bench", "bench_dra.py"), "--repeat", "1",
				"--nodes", "4", "--pods", "40", "--latency", "0.2", "--plugin", plugin_path(), "--build", tmp],
				capture_output=True, text=True, timeout=240)
		self.assertIn(r.returncode, (0, 1), r.stderr)
		for row in ("gpushare annotations", "Dynamic Resource Allocation"):
			cells = table_row(r.stdout, row)
			self.assertIsNotNone(cells, r.stdout)
			for c in cells[1:4]:
				self.assertRegex(c, "^" + NUM + "$", cells)
			self.assertGreaterEqual(float(cells[1]), 0.2, "the lists were held 0.2 s: %s" % cells)
		self.assertRegex(r.stdout, r"within 1\.5x of the time \(wall\) and memory: (yes|no); CPU " + NUM + "x")

	def test_top_tiny(self):
		rate, seconds = 20, 3
		text, written = self.bench("--scenario", "top", "--scales", "tiny", "--churn-rate", str(rate),
			"--churn-seconds", str(seconds), "--starts", "2")
		self.assertIn("### tiny: 5 nodes x 4 GPUs, 50 pods: the live view under churn", written)
		m = re.search(r"sent at (%s) a second; (\d+) watch events per run \(median; ADDED (\d+), MODIFIED (\d+), "
			r"DELETED (\d+); kubectl printed (\d+|n/a) lines meanwhile\)" % NUM, text)
		self.assertIsNotNone(m, text)
		sent, events = float(m.group(1)), int(m.group(2))
		self.assertEqual(events, sum(int(m.group(i)) for i in (3, 4, 5)), text)
		# a steady rate, and an event for each change (and each probe pod's create and delete)
		self.assertGreater(sent, rate * 0.8, text)
		self.assertLess(sent, rate * 1.2, text)
		self.assertGreaterEqual(events, rate * seconds, text)
		self.assertLess(events, rate * seconds + 40, text)
		if m.group(6) != "n/a":
			self.assertEqual(int(m.group(6)), events, "kubectl printed a line per event:\n" + text)

		m = re.search(r"Starts: 2, each right after a summary run: top's first full screen after (%s) s \(median; "
			r"%s-%s\), the summary's wall time (%s) s \(median; %s-%s\), %sx; 0 of 2 stuck" % ((NUM,) * 7), text)
		self.assertIsNotNone(m, text)
		self.assertLess(float(m.group(1)), 10.0, "the first screen of 5 nodes")
		self.assertRegex(text, r"\| no start stuck before its first screen \| 0 of 2 \| yes \|")

		summary, top = table_row(text, "plugin summary"), table_row(text, "plugin `top`")
		self.assertIsNotNone(top, text)
		first, cpu, churn_cpu, per_k, rss = (float(c) for c in top[1:6])
		self.assertGreater(first, 0.0)
		self.assertLess(first, 10.0, "the first screen of 5 nodes")
		self.assertGreaterEqual(cpu, churn_cpu, "the whole run holds the churn")
		# the CPU under churn shown to 10 ms, per 1,000 events to 10 ms too
		self.assertGreaterEqual(per_k, max(0.0, churn_cpu - 0.005) * 1000 / events - 0.005)
		self.assertLessEqual(per_k, (churn_cpu + 0.005) * 1000 / events + 0.005)
		self.assertGreater(rss, 0.5)
		self.assertLess(rss, 200)
		self.assertRegex(summary[1], "^" + NUM + "$")
		kube = table_row(text, "`kubectl get pods -A -w -o name`")
		if shutil.which("kubectl"):
			self.assertIsNotNone(kube, text)
			for c in kube[1:6]:
				self.assertRegex(c, "^" + NUM + "$", kube)

		for probe in ("a new pod on screen", "a deleted pod off screen", "a key press answered"):
			cells = table_row(text, probe)
			self.assertIsNotNone(cells, text)
			n, median, slowest = int(cells[1]), float(cells[2]), float(cells[4])
			self.assertGreaterEqual(n, 1, probe)
			self.assertGreater(median, 0.0, probe)
			# the view redraws what changed within its 1 s refresh, and a key at once
			self.assertLess(slowest, 3.0 if probe != "a key press answered" else 1.0, probe)
		for goal in ("peak RSS under 64 MiB", "first screen within 1.5x of the summary",
				"every change on screen within a second", "a key press answered within a second"):
			self.assertRegex(text, r"\| %s \| [^|]+ \| (yes|no) \|" % re.escape(goal))
		self.assert_servers_gone()

	def assert_servers_gone(self):
		leftover = subprocess.run(["pgrep", "-f", "fakeapi.py --scenario gen:nodes=5,pods=50,"], capture_output=True,
			text=True)
		self.assertEqual(leftover.stdout.strip(), "", "a fake API server is still running")


# ---- the loader ------------------------------------------------------------------------------------------

class ScriptedAPI:
	"""HTTPS on loopback, HTTP/1.1 keep-alive.  script maps (method, path) to the answers of its requests in
	turn, each (status, headers, body) or "drop" (the connection is closed unanswered); past the script a
	request is answered 201 (POST) or 200 with {"metadata": {}}.  Records the requests, the connections and
	the most requests in progress at once."""

	def __init__(self, pki, script=None, delay=0.0):
		self.script = {k: list(v) for k, v in (script or {}).items()}
		self.delay = delay
		self.log, self.connections, self.busy, self.most_busy = [], 0, 0, 0
		self.lock = threading.Lock()
		api = self

		class Handler(http.server.BaseHTTPRequestHandler):
			protocol_version = "HTTP/1.1"

			def log_message(self, *_a):
				pass

			def setup(self):
				super().setup()
				with api.lock:
					api.connections += 1

			def answer(self):
				n = int(self.headers.get("Content-Length") or 0)
				body = self.rfile.read(n) if n else b""
				status, headers, payload = api.begin(self.command, self.path, body)
				try:
					time.sleep(api.delay)
					if status == "drop":
						self.close_connection = True
						return
					self.send_response(status)
					for k, v in headers.items():
						self.send_header(k, v)
					self.send_header("Content-Type", "application/json")
					self.send_header("Content-Length", str(len(payload)))
					self.end_headers()
					self.wfile.write(payload)
				finally:
					with api.lock:
						api.busy -= 1

			do_GET = do_POST = do_PATCH = do_DELETE = answer

		self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		ctx.load_cert_chain(os.path.join(pki, "server.crt"), os.path.join(pki, "server.key"))
		self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
		self.port = self.server.server_address[1]
		self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
		self.thread.start()

	def begin(self, method, path, body):
		with self.lock:
			self.log.append((method, path, body, time.monotonic()))
			self.busy += 1
			self.most_busy = max(self.most_busy, self.busy)
			todo = self.script.get((method, path))
			if todo:
				a = todo.pop(0)
				return ("drop", {}, b"") if a == "drop" else (a[0], a[1], json.dumps(a[2]).encode())
		return (201 if method == "POST" else 200), {}, json.dumps({"metadata": {"path": path}}).encode()

	def requests(self, method=None):
		return [(m, p) for m, p, _b, _t in self.log if method in (None, m)]

	def close(self):
		self.server.shutdown()
		self.server.server_close()


def pod(name, status=True):
	p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": "u-" + name,
		"resourceVersion": "7"}, "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}]}}
	if status:
		p["status"] = {"phase": "Running"}
	return p


PODS = "/api/v1/namespaces/default/pods"


@unittest.skipIf(shutil.which("openssl") is None, "openssl is not installed")
class LoaderTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		cls.pki = tempfile.mkdtemp(prefix="loader-pki-")
		envtest.make_pki(cls.pki)

	@classmethod
	def tearDownClass(cls):
		shutil.rmtree(cls.pki, ignore_errors=True)

	def serve(self, script=None, delay=0.0, attempts=10):
		api = ScriptedAPI(self.pki, script, delay)
		self.addCleanup(api.close)
		ctx = ssl.create_default_context(cafile=os.path.join(self.pki, "ca.crt"))
		pool = envtest.Pool("127.0.0.1", api.port, ctx, attempts=attempts)
		self.addCleanup(pool.close)
		return api, pool

	def test_create_then_status_through_the_subresource(self):
		api, pool = self.serve()
		out = pool.run([envtest.create_job(pod("a")), envtest.create_job(pod("b", status=False), keep=False)])
		self.assertEqual(out[0], {"metadata": {"path": PODS + "/a/status"}}, "the last answer, parsed")
		self.assertIsNone(out[1])
		self.assertEqual(sorted(api.requests()), [("PATCH", PODS + "/a/status"), ("POST", PODS), ("POST", PODS)])
		body = json.loads(next(b for m, _p, b, _t in api.log if m == "PATCH"))
		self.assertEqual(body, {"status": {"phase": "Running"}})
		created = [json.loads(b) for m, _p, b, _t in api.log if m == "POST"]
		for c in created:
			self.assertNotIn("status", c)
			self.assertNotIn("uid", c["metadata"])
			self.assertNotIn("resourceVersion", c["metadata"])

	def test_retry_after_is_honoured(self):
		busy = {"kind": "Status", "code": 429, "reason": "TooManyRequests"}
		api, pool = self.serve({("POST", PODS): [(429, {"Retry-After": "1"}, busy)]})
		t0 = time.monotonic()
		pool.run([envtest.create_job(pod("a"), keep=False)])
		posts = [t for m, _p, _b, t in api.log if m == "POST"]
		self.assertEqual(len(posts), 2)
		self.assertGreaterEqual(posts[1] - posts[0], 0.95, "sent again after the Retry-After")
		self.assertLess(time.monotonic() - t0, 5)
		self.assertEqual(pool.stats["retries"], 1)
		self.assertIn(("PATCH", PODS + "/a/status"), api.requests())

	def test_server_errors_are_retried_then_given_up(self):
		down = {"kind": "Status", "code": 503}
		api, pool = self.serve({("POST", PODS): [(503, {}, down)] * 2}, attempts=5)
		pool.run([envtest.create_job(pod("a", status=False), keep=False)])
		self.assertEqual(len(api.requests("POST")), 3, "two 503s, then created")
		api, pool = self.serve({("POST", PODS): [(503, {}, down)] * 5}, attempts=3)
		with self.assertRaisesRegex(envtest.LoadError, r"503 .*gave up after 3 tries"):
			pool.run([envtest.create_job(pod("a", status=False), keep=False)])
		self.assertEqual(len(api.requests("POST")), 3)

	def test_a_client_error_is_not_retried(self):
		bad = {"kind": "Status", "code": 422, "reason": "Invalid", "message": "Pod \"a\" is invalid"}
		api, pool = self.serve({("POST", PODS): [(422, {}, bad)]})
		with self.assertRaisesRegex(envtest.LoadError, r"POST %s: 422 .*is invalid" % PODS):
			pool.run([envtest.create_job(pod("a"), keep=False)])
		self.assertEqual(api.requests(), [("POST", PODS)])

	def test_a_create_whose_answer_was_lost(self):
		exists = {"kind": "Status", "code": 409, "reason": "AlreadyExists"}
		# the connection breaks after the server made the pod: the create sent again finds it there
		api, pool = self.serve({("POST", PODS): ["drop", (409, {}, exists)]})
		out = pool.run([envtest.create_job(pod("a", status=False))])
		self.assertEqual(api.requests(), [("POST", PODS), ("POST", PODS), ("GET", PODS + "/a")])
		self.assertEqual(out, [{"metadata": {"path": PODS + "/a"}}], "read back, as its answer was lost")
		# a pod that was there before: refused, unless told to let it be
		api, pool = self.serve({("POST", PODS): [(409, {}, exists), (409, {}, exists)]})
		with self.assertRaisesRegex(envtest.LoadError, "409"):
			pool.run([envtest.create_job(pod("a"))])
		self.assertEqual(pool.run([envtest.create_job(pod("a"), ignore_exists=True)]), [None])
		self.assertEqual(api.requests(), [("POST", PODS), ("POST", PODS)], "no status for a pod left alone")

	def test_bounded_and_kept_alive(self):
		api, pool = self.serve(delay=0.02)
		pool.run([envtest.create_job(pod("p%d" % i, status=False), keep=False) for i in range(40)], workers=4)
		self.assertEqual(len(api.requests("POST")), 40)
		self.assertLessEqual(api.most_busy, 4)
		self.assertGreater(api.most_busy, 1, "concurrently")
		self.assertLessEqual(api.connections, 4, "one keep-alive connection per worker")
		pool.run([envtest.create_job(pod("q%d" % i, status=False), keep=False) for i in range(8)], workers=4)
		self.assertLessEqual(api.connections, 4, "kept for the next run")


if __name__ == "__main__":
	unittest.main()
