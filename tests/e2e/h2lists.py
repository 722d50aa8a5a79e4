"""An API server of two lists over HTTP/2 (TLS, ALPN h2) on loopback, which sends the ends of both in one
batch of frames where the client multiplexes them: for tests of how the client reads a shared connection.

It answers discovery with 404.  When the lists of nodes and pods are both asked for on one connection, the
pods list gets most of its body at once; half a second later one write carries the rest of it, the nodes
list whole (with its Content-Length, in DATA frames of `frame` bytes, more than the client's 16 KiB receive
buffer holds) and then the empty frame that ends the pods list.  Then the server says nothing on that
connection for `hold` seconds and closes it.  A list asked for on a connection of its own (or alone on one
for a fifth of a second) is answered whole at once, and so is every request of a client that speaks
HTTP/1.1.  `multiplexed` counts the connections that carried both lists, `http1` those that spoke HTTP/1.1.

Needs python3-h2 (Debian's, found in /usr/lib/python3/dist-packages when this Python lacks it) and openssl.
"""

import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

try:
	import h2.config
	import h2.connection
	import h2.events
except ImportError:
	sys.path.append("/usr/lib/python3/dist-packages")
	try:
		import h2.config
		import h2.connection
		import h2.events
	except ImportError:
		h2 = None

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: h2
  cluster: {server: "https://127.0.0.1:%d", certificate-authority: "%s"}
contexts:
- name: h2
  context: {cluster: h2, user: nobody}
current-context: h2
users:
- name: nobody
  user: {}
"""


def available():
	return h2 is not None and shutil.which("openssl") is not None


def curl_version():
	"""The version of the libcurl the plugin links, as curl-config says it ((0,) when it cannot)."""
	try:
		out = subprocess.run(["curl-config", "--version"], capture_output=True, text=True, check=True).stdout
		return tuple(int(x) for x in out.split()[-1].split("."))
	except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
		return (0,)


def padded(doc, size):
	"""doc as JSON, padded with blanks before its last brace to size bytes."""
	b = json.dumps(doc)
	return (b[:-1] + " " * (size - len(b)) + "}").encode()


class H2Lists:
	def __init__(self, frame=8000, hold=4.0):
		self.frame, self.hold = frame, hold
		self.dir = tempfile.mkdtemp(prefix="h2lists-")
		self.cert, key = os.path.join(self.dir, "ca.crt"), os.path.join(self.dir, "ca.key")
		subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
			"-nodes", "-keyout", key, "-out", self.cert, "-days", "1", "-subj", "/CN=127.0.0.1",
			"-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
		self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		self.tls.load_cert_chain(self.cert, key)
		self.tls.set_alpn_protocols(["h2", "http/1.1"])
		self.sock = socket.socket()
		self.sock.bind(("127.0.0.1", 0))
		self.sock.listen(8)
		self.port = self.sock.getsockname()[1]
		self.kubeconfig = os.path.join(self.dir, "kubeconfig")
		with open(self.kubeconfig, "w") as f:
			f.write(KUBECONFIG % (self.port, self.cert))
		self.multiplexed = self.http1 = 0
		self.stopping = False
		threading.Thread(target=self.accept, daemon=True).start()

	def accept(self):
		while not self.stopping:
			try:
				c, _ = self.sock.accept()
				s = self.tls.wrap_socket(c, server_side=True)
			except OSError:
				continue
			threading.Thread(target=self.serve, args=(s,), daemon=True).start()

	def serve(self, conn):
		if conn.selected_alpn_protocol() != "h2":
			self.http1 += 1
			self.serve_http1(conn)
			return
		h = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
		h.initiate_connection()
		conn.sendall(h.data_to_send())
		streams = {}
		conn.settimeout(0.2)
		while len(streams) < 2:
			try:
				data = conn.recv(65536)
			except socket.timeout:
				if streams:
					break
				continue
			if not data:
				conn.close()
				return
			for ev in h.receive_data(data):
				if not isinstance(ev, h2.events.RequestReceived):
					continue
				path = dict(ev.headers)[":path"]
				if path.startswith("/api/v1/nodes") or path.startswith("/api/v1/pods"):
					streams[path[8:12]] = ev.stream_id
					continue
				body = b'{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}'
				h.send_headers(ev.stream_id, [(":status", "404"), ("content-type", "application/json"),
					("content-length", str(len(body)))])
				h.send_data(ev.stream_id, body, end_stream=True)
			conn.sendall(h.data_to_send())
		if len(streams) < 2:
			self.whole(conn, h, streams)
			return
		self.multiplexed += 1
		self.ends(conn, h, streams["node"], streams["pods"])

	def serve_http1(self, conn):
		"""HTTP/1.1: each request answered whole, with its Content-Length, until the client closes."""
		nodes, pods = self.bodies()
		f = conn.makefile("rb")
		while not self.stopping:
			line = f.readline()
			if not line:
				break
			path = line.split()[1].decode() if len(line.split()) > 1 else ""
			while f.readline() not in (b"\r\n", b"\n", b""):
				pass
			if path.startswith("/api/v1/nodes") or path.startswith("/api/v1/pods"):
				status, body = "200 OK", nodes if path.startswith("/api/v1/nodes") else pods
			else:
				status = "404 Not Found"
				body = b'{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}'
			conn.sendall(("HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (
				status, len(body))).encode() + body)
		conn.close()

	def bodies(self):
		meta = {"resourceVersion": "10"}
		items = [{"metadata": {"name": "node-%d" % i, "uid": "uid-node-%d" % i}} for i in range(3)]
		return (padded({"kind": "NodeList", "apiVersion": "v1", "metadata": meta, "items": items}, 20000),
			padded({"kind": "PodList", "apiVersion": "v1", "metadata": meta, "items": []}, 60000))

	def whole(self, conn, h, streams):
		"""The one list asked for on this connection, at once, then the connection open until the client
		closes it."""
		nodes, pods = self.bodies()
		for kind, sid in streams.items():
			body = nodes if kind == "node" else pods
			h.send_headers(sid, [(":status", "200"), ("content-type", "application/json"),
				("content-length", str(len(body)))])
			for i in range(0, len(body), 16000):
				h.send_data(sid, body[i:i + 16000], end_stream=i + 16000 >= len(body))
		conn.sendall(h.data_to_send())
		self.drain(conn, h, 30, True)

	def ends(self, conn, h, nodes_id, pods_id):
		nodes, pods = self.bodies()
		h.send_headers(pods_id, [(":status", "200"), ("content-type", "application/json")])
		for i in range(0, 48000, 16000):
			h.send_data(pods_id, pods[i:i + 16000])
		conn.sendall(h.data_to_send())
		time.sleep(0.5)
		h.send_data(pods_id, pods[48000:])
		h.send_headers(nodes_id, [(":status", "200"), ("content-type", "application/json"),
			("content-length", str(len(nodes)))])
		for i in range(0, len(nodes), self.frame):
			h.send_data(nodes_id, nodes[i:i + self.frame], end_stream=i + self.frame >= len(nodes))
		h.send_data(pods_id, b"", end_stream=True)
		conn.sendall(h.data_to_send())
		# nothing the client sends gets an answer now
		self.drain(conn, h, self.hold, False)

	def drain(self, conn, h, seconds, answer):
		"""Reads what the client sends for seconds (until it closes), answering only when answer is true;
		then closes the connection."""
		conn.settimeout(0.1)
		end = time.monotonic() + seconds
		while time.monotonic() < end and not self.stopping:
			try:
				data = conn.recv(65536)
			except socket.timeout:
				continue
			except OSError:
				break
			if not data:
				break
			h.receive_data(data)
			if answer:
				conn.sendall(h.data_to_send())
		conn.close()

	def stop(self):
		self.stopping = True
		self.sock.close()
		shutil.rmtree(self.dir, ignore_errors=True)

	def __enter__(self):
		return self

	def __exit__(self, *exc):
		self.stop()
