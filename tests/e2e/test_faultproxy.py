"""The fault-injecting proxy (tests/faultproxy) in front of the fake API server and, in the real tier, a real
kube-apiserver: each fault as the real kubectl meets it, the plugin's reads through the proxy, and the
proxy's own manners (credentials, keep-alive, concurrent connections, chunked bodies, 100-continue, gzip,
streamed watches, its control endpoints, and nothing left behind by stop())."""

import contextlib
import gzip
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
import unittest
import urllib.error
import urllib.request

from harness import ClusterCase, Proxied, ProxiedCase, plugin_path, reaped, run_plugin, wait_for

NODE = "cn-hangzhou.192.168.2.167"  # the one node of seed002
KUBECTL = shutil.which("kubectl")


class ProxyCase(ProxiedCase):
	"""seed002 on the backend, behind one proxy for the class; faults and the log cleared before each test."""

	scenario = "seed002"

	def kubectl(self, *args, kubeconfig=None, timeout=30):
		"""kubectl with args through the proxy (or kubeconfig); CompletedProcess with elapsed seconds."""
		if KUBECTL is None:
			self.skipTest("kubectl is not installed")
		t0 = time.monotonic()
		r = subprocess.run([KUBECTL, "--kubeconfig", kubeconfig or self.proxy.kubeconfig] + list(args),
			capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
			env=dict(os.environ, LC_ALL="C", HOME=os.environ.get("HOME", "/tmp")))
		r.seconds = time.monotonic() - t0
		return r

	def label(self, *extra, timeout=30):
		return self.kubectl("label", "node", NODE, "fault=seen", *extra, timeout=timeout)

	def labels(self):
		status, _, body = self.api.call("GET", "/api/v1/nodes/" + NODE)
		self.assertEqual(status, 200)
		return body["metadata"].get("labels", {})

	def server_patches(self):
		return [r for r in self.api.requests() if r["method"] == "PATCH"]

	def proxy_patches(self):
		return [e for e in self.proxy.log() if e["method"] == "PATCH"]

	def client_ctx(self, alpn=("http/1.1",)):
		"""TLS to the proxy as the admin user: the backend's client certificate, the proxy's CA."""
		ctx = ssl.create_default_context(cadata=self.proxy.ca_pem.decode())
		ctx.load_cert_chain(*self.api.client_cert)
		ctx.set_alpn_protocols(list(alpn))
		return ctx

	def connect(self):
		"""An HTTP/1.1 connection to the proxy as the admin user, for `with`."""
		return contextlib.closing(http.client.HTTPSConnection("127.0.0.1", self.proxy.port, context=self.client_ctx(),
			timeout=20))


class Faults(ProxyCase):
	"""Each fault, seen from kubectl, and the server's state after it."""

	def test_drop_after_the_write_is_done_and_its_answer_lost(self):
		fault = self.proxy.arm("drop_after", methods="writes")
		r = self.label()
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertIn("Unable to connect to the server", r.stderr)
		self.assertEqual(self.labels().get("fault"), "seen")  # although kubectl reported an error
		self.assertEqual(len(self.server_patches()), 1)
		[p] = self.proxy_patches()
		self.assertEqual((p["fault"], p["forwarded"], p["status"], p["answered"]), ("drop_after", True, 200, False))
		self.assertEqual(fault.fired, 1)

	def test_drop_before_the_server_never_sees_the_write(self):
		self.proxy.arm("drop_before", methods="writes")
		r = self.label()
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertIn("Unable to connect to the server", r.stderr)
		self.assertNotIn("fault", self.labels())
		self.assertEqual(self.server_patches(), [])
		[p] = self.proxy_patches()
		self.assertEqual((p["fault"], p["forwarded"], p["status"], p["answered"]), ("drop_before", False, None, False))

	def test_an_eviction_counts_as_a_write(self):
		self.proxy.arm("drop_after", methods="writes", path="/eviction$")
		pod = "/api/v1/namespaces/default/pods/app-3g-v1-0"
		eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "app-3g-v1-0",
			"namespace": "default"}}
		with self.connect() as c:
			c.request("POST", pod + "/eviction", body=json.dumps(eviction), headers={"Content-Type": "application/json"})
			with self.assertRaises(http.client.RemoteDisconnected):
				c.getresponse()
		status, _, body = self.api.call("GET", pod)  # evicted all the same: gone, or on its way
		self.assertTrue(status == 404 or body["metadata"].get("deletionTimestamp"), (status, body))
		[e] = [e for e in self.proxy.log() if e["method"] == "POST"]
		self.assertEqual((e["fault"], e["status"], e["answered"]), ("drop_after", 201, False))

	def test_503_with_retry_after_is_retried_as_client_go_does(self):
		self.proxy.arm("status", methods="writes", retry_after=1, times=2)
		r = self.label()
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertGreaterEqual(r.seconds, 2.0)  # waited Retry-After before each retry
		self.assertEqual([(p["status"], p["fault"]) for p in self.proxy_patches()],
			[(503, "status"), (503, "status"), (200, None)])
		self.assertEqual(len(self.server_patches()), 1)
		self.assertEqual(self.labels().get("fault"), "seen")

	def test_503_without_retry_after_is_not_retried(self):
		self.proxy.arm("status", methods="writes", retry_after=None)
		r = self.label()
		self.assertEqual(r.returncode, 1)
		self.assertIn("Error from server (ServiceUnavailable): the server is currently unable to handle the request",
			r.stderr)
		self.assertEqual(len(self.proxy_patches()), 1)
		self.assertNotIn("fault", self.labels())

	def test_hang_ends_with_the_request_timeout(self):
		for forward in (False, True):
			with self.subTest(forward=forward):
				self.api.reset()
				self.proxy.reset()
				self.proxy.arm("hang", methods="writes", forward=forward)
				r = self.label("--request-timeout=1s")
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertLess(r.seconds, 10)
				# held before the server saw it, or after it answered
				self.assertEqual(self.labels().get("fault"), "seen" if forward else None)
				[p] = self.proxy_patches()
				self.assertEqual((p["forwarded"], p["answered"]), (forward, False))

	def test_a_held_request_goes_on_once_disarmed(self):
		if KUBECTL is None:
			self.skipTest("kubectl is not installed")
		fault = self.proxy.arm("hang", methods="writes")
		cmd = [KUBECTL, "--kubeconfig", self.proxy.kubeconfig, "label", "node", NODE, "fault=late"]
		with reaped(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)) as p:
			self.assertTrue(wait_for(lambda: self.proxy_patches(), 20))
			time.sleep(0.3)
			self.assertIsNone(p.poll())  # still held
			self.assertNotIn("fault", self.labels())
			fault.disarm()
			out, err = p.communicate(timeout=20)
		self.assertEqual(p.returncode, 0, err)
		self.assertIn("labeled", out)
		self.assertEqual(self.labels().get("fault"), "late")

	def test_reset_in_the_middle_of_a_list(self):
		self.proxy.arm("reset", path="^/api/v1/pods$", after_bytes=100)
		r = self.kubectl("get", "--raw", "/api/v1/pods")
		self.assertEqual(r.returncode, 1)
		self.assertIn("connection reset by peer", r.stderr)
		again = self.kubectl("get", "--raw", "/api/v1/pods")  # the fault fired once
		self.assertEqual(again.returncode, 0, again.stderr)
		self.assertEqual(json.loads(again.stdout)["kind"], "PodList")
		# the body's first bytes (100 on the wire, chunk framing included), then nothing
		self.assertTrue(0 < len(r.stdout) <= 100 and again.stdout.startswith(r.stdout), r.stdout)

	def test_reset_in_the_middle_of_a_watch(self):
		with self.connect() as c:
			c.request("GET", "/api/v1/nodes")
			rv = json.loads(c.getresponse().read())["metadata"]["resourceVersion"]
			self.proxy.arm("reset", path="^/api/v1/nodes$", after_bytes=20)
			c.request("GET", "/api/v1/nodes?watch=1&resourceVersion=" + rv)
			r = c.getresponse()
			self.assertEqual(r.status, 200)
			self.api.call("PATCH", "/api/v1/nodes/" + NODE, {"metadata": {"labels": {"watched": "1"}}},
				headers={"Content-Type": "application/merge-patch+json"})
			got = bytearray()
			# Python's TLS reads a reset as the end of the stream: the body ends in the middle of a chunk.
			with self.assertRaises((ConnectionResetError, http.client.IncompleteRead)):
				while True:
					data = r.read1(4096)
					got += data
					self.assertTrue(data)
		# the first bytes of the first event (20 on the wire, chunk framing included), then nothing
		self.assertTrue(0 < len(got) < 20 and b'{"type":"MODIFIED"'.startswith(got), got)


class ThroughTheProxy(ProxyCase):
	"""Nothing faulted: the same answers as direct, for the same users."""

	def test_kubectl_gets_the_same_answers_as_each_user(self):
		direct = self.kubectl("get", "nodes", "-o", "name", kubeconfig=self.api.kubeconfig)
		self.assertEqual(direct.returncode, 0, direct.stderr)
		for context, ok in (("admin", True), ("admin-token", True), ("viewer", True), ("nobody", False)):
			with self.subTest(context=context):
				self.api.clear_requests()
				r = self.kubectl("--context", context, "get", "nodes", "-o", "name")
				d = self.kubectl("--context", context, "get", "nodes", "-o", "name", kubeconfig=self.api.kubeconfig)
				self.assertEqual((r.returncode, r.stdout, r.stderr), (d.returncode, d.stdout, d.stderr))
				self.assertEqual(r.returncode == 0, ok)
				if ok:
					self.assertEqual(r.stdout, direct.stdout)
				# the server saw the user the client presented: certificate or token
				users = {q["user"] for q in self.api.requests() if q["path"] == "/api/v1/nodes"}
				self.assertEqual(users, {"admin" if context.startswith("admin") else context})

	def test_plugin_summary_and_detail_are_the_same_as_direct(self):
		if plugin_path() is None:
			self.skipTest("the plugin is not built")
		for args in ([], ["-d"]):
			with self.subTest(args=args):
				self.proxy.reset()
				direct = run_plugin(args + ["--kubeconfig", self.api.kubeconfig])
				proxied = run_plugin(args + ["--kubeconfig", self.proxy.kubeconfig])
				self.assertEqual(direct.returncode, 0, direct.stderr)
				self.assertEqual((proxied.returncode, proxied.stdout, proxied.stderr),
					(direct.returncode, direct.stdout, direct.stderr))
				seen = {(e["method"], e["path"], e["status"], e["fault"]) for e in self.proxy.log()}
				self.assertIn(("GET", "/api/v1/nodes", 200, None), seen)
				self.assertIn(("GET", "/api/v1/pods", 200, None), seen)

	def test_plugin_retries_a_503_list_with_retry_after(self):
		if plugin_path() is None:
			self.skipTest("the plugin is not built")
		direct = run_plugin(["--kubeconfig", self.api.kubeconfig])
		self.proxy.arm("status", methods=["GET"], path="^/api/v1/nodes$")
		proxied = run_plugin(["--kubeconfig", self.proxy.kubeconfig])
		self.assertEqual((proxied.returncode, proxied.stdout), (0, direct.stdout), proxied.stderr)
		nodes = [(e["status"], e["fault"]) for e in self.proxy.log() if e["path"] == "/api/v1/nodes"]
		self.assertEqual(nodes, [(503, "status"), (200, None)])

	def test_only_http11_is_offered(self):
		with socket.create_connection(("127.0.0.1", self.proxy.port), timeout=10) as raw:
			with self.client_ctx(alpn=("h2", "http/1.1")).wrap_socket(raw, server_hostname="127.0.0.1") as s:
				self.assertEqual(s.selected_alpn_protocol(), "http/1.1")

	def test_watch_events_stream_through(self):
		with self.connect() as c:
			c.request("GET", "/api/v1/nodes")
			rv = json.loads(c.getresponse().read())["metadata"]["resourceVersion"]
			c.request("GET", "/api/v1/nodes?watch=1&allowWatchBookmarks=false&resourceVersion=" + rv)
			r = c.getresponse()
			self.assertEqual(r.status, 200)
			self.api.call("PATCH", "/api/v1/nodes/" + NODE, {"metadata": {"labels": {"watched": "1"}}},
				headers={"Content-Type": "application/merge-patch+json"})
			# the event arrives while the response goes on: nothing waits for its end
			event = json.loads(r.readline())
			self.assertEqual(event["type"], "MODIFIED")
			self.assertEqual(event["object"]["metadata"]["labels"]["watched"], "1")

	def test_a_client_leaving_a_watch_ends_it(self):
		self.assertTrue(wait_for(lambda: self.proxy.open_connections() == 0, 10))
		with self.connect() as c:
			c.request("GET", "/api/v1/nodes?watch=1")
			r = c.getresponse()
			self.assertEqual(json.loads(r.readline())["type"], "ADDED")
			self.assertEqual(self.proxy.open_connections(), 1)
		# the proxy, waiting for the server's next event, sees the client go and ends both connections
		self.assertTrue(wait_for(lambda: self.proxy.open_connections() == 0, 5))

	def test_keep_alive_and_concurrent_connections(self):
		before = self.proxy.connections
		results, errors = [], []

		def client():
			try:
				with self.connect() as c:
					for _ in range(5):
						c.request("GET", "/api/v1/nodes/" + NODE)
						r = c.getresponse()
						results.append((r.status, json.loads(r.read())["metadata"]["name"]))
			except Exception as e:  # pylint: disable=broad-except
				errors.append(e)
		threads = [threading.Thread(target=client) for _ in range(8)]
		for t in threads:
			t.start()
		for t in threads:
			t.join(60)
		self.assertEqual(errors, [])
		self.assertEqual(results, [(200, NODE)] * 40)
		self.assertEqual(self.proxy.connections - before, 8)  # five requests on each connection
		conns = {e["connection"] for e in self.proxy.log()}
		self.assertEqual(len(conns), 8)

	def test_chunked_request_body(self):
		body = json.dumps({"metadata": {"labels": {"chunked": "yes"}}}).encode()
		with self.connect() as c:
			c.request("PATCH", "/api/v1/nodes/" + NODE, body=iter([body[:10], body[10:]]), encode_chunked=True,
				headers={"Content-Type": "application/merge-patch+json", "Accept": "application/json"})
			r = c.getresponse()
			self.assertEqual(r.status, 200, r.read())
			r.read()
		self.assertEqual(self.labels().get("chunked"), "yes")

	def test_expect_100_continue(self):
		body = json.dumps({"metadata": {"labels": {"expect": "yes"}}}).encode()
		head = ("PATCH /api/v1/nodes/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/merge-patch+json\r\n"
			"Content-Length: %d\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n" % (NODE, len(body))).encode()
		with socket.create_connection(("127.0.0.1", self.proxy.port), timeout=20) as raw:
			with self.client_ctx().wrap_socket(raw, server_hostname="127.0.0.1") as s:
				s.sendall(head)
				f = s.makefile("rb")
				self.assertEqual(f.readline(), b"HTTP/1.1 100 Continue\r\n")  # asked for the body
				self.assertEqual(f.readline(), b"\r\n")
				s.sendall(body)
				self.assertTrue(f.readline().startswith(b"HTTP/1.1 200 "))
				f.close()
		self.assertEqual(self.labels().get("expect"), "yes")

	def test_gzip_passes_untouched(self):
		big = "x" * (150 * 1024)  # a response over 128 KiB, which both servers compress
		status, _, node = self.api.call("GET", "/api/v1/nodes/" + NODE)
		node["metadata"].setdefault("annotations", {})["test/big"] = big
		self.api.put_object(node)
		with self.connect() as c:
			c.request("GET", "/api/v1/nodes/" + NODE, headers={"Accept-Encoding": "gzip", "Accept": "application/json"})
			r = c.getresponse()
			data = r.read()
		self.assertEqual((r.status, r.getheader("Content-Encoding")), (200, "gzip"))
		self.assertEqual(data[:2], b"\x1f\x8b")
		self.assertEqual(json.loads(gzip.decompress(data))["metadata"]["annotations"]["test/big"], big)


class Control(ProxyCase):
	"""The proxy's control endpoints, for clients other than Python."""

	def control(self, method, path, body=None):
		req = urllib.request.Request(self.proxy.url + path, method=method,
			data=json.dumps(body).encode() if body is not None else None, headers={"Content-Type": "application/json"})
		ctx = ssl.create_default_context(cadata=self.proxy.ca_pem.decode())
		try:
			with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
				return r.status, json.loads(r.read())
		except urllib.error.HTTPError as e:
			return e.code, json.loads(e.read())

	def test_arm_list_disarm_and_log(self):
		status, fault = self.control("POST", "/_proxy/faults", {"kind": "status", "code": 429, "retry_after": None,
			"methods": ["GET"], "path": "^/api/v1/nodes$"})
		self.assertEqual((status, fault["kind"], fault["code"], fault["armed"]), (201, "status", 429, True))
		with self.connect() as c:
			c.request("GET", "/api/v1/nodes")
			r = c.getresponse()
			body = json.loads(r.read())
			self.assertEqual((r.status, r.getheader("Retry-After")), (429, None))
			self.assertEqual((body["kind"], body["reason"], body["code"]), ("Status", "TooManyRequests", 429))
			c.request("GET", "/api/v1/nodes")  # the fault fired once
			self.assertEqual(c.getresponse().status, 200)
		status, log = self.control("GET", "/_proxy/log")
		self.assertEqual([(e["path"], e["status"], e["fault"]) for e in log],
			[("/api/v1/nodes", 429, "status"), ("/api/v1/nodes", 200, None)])
		status, faults = self.control("DELETE", "/_proxy/faults")
		self.assertEqual([(f["id"], f["matched"], f["fired"], f["armed"]) for f in faults],
			[(fault["id"], 2, 1, False)])
		self.assertEqual(self.control("DELETE", "/_proxy/log"), (200, []))
		self.assertEqual(self.control("GET", "/_proxy/log"), (200, []))

	def test_bad_requests(self):
		self.assertEqual(self.control("POST", "/_proxy/faults", {"kind": "explode"})[0], 400)
		self.assertEqual(self.control("POST", "/_proxy/faults", {"kind": "hang", "nth": 0})[0], 400)
		self.assertEqual(self.control("POST", "/_proxy/faults", {"kind": "hang", "colour": "red"})[0], 400)
		self.assertEqual(self.control("POST", "/_proxy/faults", {"kind": "status", "code": 200})[0], 400)
		self.assertEqual(self.control("GET", "/_proxy/nothing")[0], 404)
		with self.connect() as c:  # an upgrade (exec, port-forward) is refused, not half carried
			c.request("GET", "/api/v1/nodes", headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1"})
			self.assertEqual(c.getresponse().status, 501)
		self.assertEqual(self.control("PUT", "/_proxy/log", {})[0], 405)
		self.assertEqual(self.proxy.faults(), [])


def open_fds():
	return len(os.listdir("/proc/self/fd"))


class Stop(ClusterCase):
	scenario = "seed002"

	def test_stop_leaves_no_thread_or_socket(self):
		threads, fds = threading.active_count(), open_fds()
		proxy = Proxied(self.api).start()
		kubeconfig = proxy.kubeconfig
		ctx = ssl.create_default_context(cadata=proxy.ca_pem.decode())
		ctx.load_cert_chain(*self.api.client_cert)
		conns = [http.client.HTTPSConnection("127.0.0.1", proxy.port, context=ctx, timeout=20) for _ in range(3)]
		try:
			conns[0].request("GET", "/api/v1/nodes/" + NODE)  # kept alive, idle
			conns[0].getresponse().read()
			conns[1].request("GET", "/api/v1/nodes?watch=1")  # an open watch
			conns[1].getresponse().readline()
			proxy.arm("hang", methods="writes")
			conns[2].request("PATCH", "/api/v1/nodes/" + NODE, body=b"{}",  # a held request
				headers={"Content-Type": "application/merge-patch+json"})
			self.assertTrue(wait_for(lambda: len(proxy.log()) == 3, 10))
			self.assertGreaterEqual(threading.active_count(), threads + 4)
			proxy.stop()
			self.assertEqual(threading.active_count(), threads)
			with self.assertRaises(ConnectionRefusedError):
				socket.create_connection(("127.0.0.1", proxy.port), timeout=5).close()
			with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
				conns[2].getresponse()  # the held request ends with the connection
		finally:
			proxy.stop()
			for c in conns:
				c.close()
		self.assertEqual(open_fds(), fds)
		self.assertFalse(os.path.exists(kubeconfig))


if __name__ == "__main__":
	unittest.main()
