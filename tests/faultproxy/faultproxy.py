"""A fault-injecting HTTPS proxy on loopback in front of an API server (the fake one or a real one), for the
end-to-end tests: what does a client do when the connection breaks before the server sees a request, or
after the server has acted on it but before its answer arrives, when the server answers 503 with
Retry-After, or when it never answers?  Python standard library and the openssl command only.

The client (kubectl, the plugin) reaches the proxy with the backend's own credentials.  The proxy ends TLS
with a certificate of its own for 127.0.0.1, made in memory at start (ca_pem is what a kubeconfig trusts),
and offers only HTTP/1.1.  For each client connection it opens its own TLS connection to the backend,
presenting the client certificate the client presented (it holds that user's certificate and key:
identities) or none; bearer tokens pass through in their header.  Responses are relayed as they arrive,
byte for byte, so lists and watches stream through and gzip reaches the client untouched.

    from faultproxy import FaultProxy

    with FaultProxy("https://127.0.0.1:6443", ca="ca.crt", identities=[("admin.crt", "admin.key")]) as proxy:
        proxy.url                       # https://127.0.0.1:PORT
        fault = proxy.arm("drop_after", methods="writes", path=r"^/api/v1/nodes/", nth=2)
        ...                             # the second write to a node is done, and its answer lost
        fault.fired                     # 1
        proxy.log()                     # [{"method", "path", "query", "status", "fault", "forwarded",
                                        #   "answered", "connection"}, ...]

The end-to-end tests put a backend behind it with harness.Proxied, which also writes a kubeconfig:

    with APIServer("seed002") as api, Proxied(api) as proxy:
        proxy.arm("hang", methods="writes")
        kubectl("--kubeconfig", proxy.kubeconfig, "label", "node", NODE, "a=b", "--request-timeout=1s")

arm(kind, methods=None, path=None, nth=1, times=1, **options) fires on the nth request that matches methods
("writes": POST, PUT, PATCH and DELETE, an Eviction included; a list of methods; None: any) and path (a
regular expression searched in the path, without its query), and on the times-1 matching requests after it.
Each fault counts, from its arming, every matching request, whether another fault fires on it or not; when
two would fire on one request, the first armed does.

    drop_before  the request is read, then the client's connection closed: the server never sees it
    drop_after   the request is forwarded and the server's answer read, then the client's connection is
                 closed without it: the write was done, its answer lost
    status       the proxy answers code (503) with Retry-After: retry_after (1; None: no header) itself,
                 nothing forwarded
    hang         the request is held unanswered (forward=True: forwarded, its answer held) until the client
                 closes the connection, or the fault is disarmed and the request goes on, late
    reset        forwarded; once after_bytes (1) bytes of the response body, as sent (chunk framing
                 included), have reached the client, its connection is reset (TCP RST)

fault.disarm() or proxy.disarm() ends faults and lets held requests go on; proxy.reset() also forgets them
and clears the log.  The same controls are on the proxy's own port for clients other than Python:
POST /_proxy/faults {"kind": ..., "nth": ...} arms a fault (answers its description, with an "id"), GET
lists the faults, DELETE disarms them all; GET /_proxy/log is the log, DELETE /_proxy/log clears it.  These
requests are neither forwarded, faulted nor logged.  Upgraded connections (exec, attach, port-forward) are
not carried: the proxy answers 501.

One client connection is served by a session (faultproxy_session.py); HTTP/1.1 framing is in
faultproxy_wire.py.
"""

import collections
import http
import itertools
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from faultproxy_session import Session  # noqa: E402  (found beside this file)

WRITES = ("POST", "PUT", "PATCH", "DELETE")
KINDS = ("drop_before", "drop_after", "status", "hang", "reset")
LOG_MAX = 10000  # entries kept; the oldest go first


class Fault:
	"""One armed fault; the proxy's arm() makes them.  matched and fired count requests."""

	def __init__(self, kind, methods=None, path=None, nth=1, times=1, code=503, retry_after=1, forward=False,
			after_bytes=1):
		if kind not in KINDS:
			raise ValueError("unknown fault kind %r (one of %s)" % (kind, ", ".join(KINDS)))
		if isinstance(methods, str):
			methods = WRITES if methods == "writes" else (methods,)
		if not (isinstance(nth, int) and nth >= 1 and isinstance(times, int) and times >= 1):
			raise ValueError("nth and times are counts from 1")
		if not (isinstance(after_bytes, int) and after_bytes >= 1):
			raise ValueError("after_bytes is a count from 1")
		if retry_after is not None and not (isinstance(retry_after, int) and retry_after >= 0):
			raise ValueError("retry_after is a number of seconds")
		if code not in {int(c) for c in http.HTTPStatus} or code < 400:
			raise ValueError("code %r is not an HTTP error status" % code)
		self.kind = kind
		self.methods = None if methods is None else frozenset(m.upper() for m in methods)
		self.path = path
		self._path_re = re.compile(path) if path else None
		self.nth, self.times = nth, times
		self.code, self.retry_after = code, retry_after
		self.forward, self.after_bytes = bool(forward), after_bytes
		self.id = None
		self.matched = self.fired = 0
		self.armed = True
		self.released = threading.Event()

	def matches(self, method, path):
		return (self.armed and (self.methods is None or method in self.methods)
			and (self._path_re is None or self._path_re.search(path) is not None))

	def due(self):
		"""Whether the request just counted is one this fault fires on."""
		return self.nth <= self.matched < self.nth + self.times

	def disarm(self):
		"""No more firing; requests it holds go on."""
		self.armed = False
		self.released.set()

	def describe(self):
		return {"id": self.id, "kind": self.kind, "methods": sorted(self.methods) if self.methods else None,
			"path": self.path, "nth": self.nth, "times": self.times, "code": self.code,
			"retry_after": self.retry_after, "forward": self.forward, "after_bytes": self.after_bytes,
			"matched": self.matched, "fired": self.fired, "armed": self.armed}


def make_certificate():
	"""A self-signed certificate for 127.0.0.1 and its key, as PEM bytes, never written to a file."""
	r = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
		"-nodes", "-days", "2", "-keyout", "-", "-out", "-", "-subj", "/CN=faultproxy",
		"-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-addext", "basicConstraints=critical,CA:TRUE",
		"-addext", "keyUsage=critical,digitalSignature,keyCertSign", "-addext", "extendedKeyUsage=serverAuth"],
		stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
	if r.returncode != 0:
		raise RuntimeError("openssl req: %s" % r.stderr.decode(errors="replace").strip())
	cert = re.search(rb"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----\n", r.stdout, re.S)
	key = re.search(rb"-----BEGIN PRIVATE KEY-----.*?-----END PRIVATE KEY-----\n", r.stdout, re.S)
	if not cert or not key:
		raise RuntimeError("openssl req wrote no certificate and key")
	return cert.group(0), key.group(0)


def server_context(cert_pem, key_pem, client_ca):
	"""TLS for the clients: the proxy's certificate, HTTP/1.1 only, client certificates asked for and checked
	against the backend's CA (as the backend would)."""
	ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
	ctx.minimum_version = ssl.TLSVersion.TLSv1_2
	# ssl loads a key only from a path: an anonymous in-memory file keeps it off the disk.
	fd = os.memfd_create("faultproxy", os.MFD_CLOEXEC)
	try:
		os.write(fd, cert_pem + key_pem)
		ctx.load_cert_chain("/proc/self/fd/%d" % fd)
	finally:
		os.close(fd)
	ctx.load_verify_locations(client_ca)
	ctx.verify_mode = ssl.CERT_OPTIONAL
	ctx.set_alpn_protocols(["http/1.1"])
	return ctx


def upstream_context(ca, cert=None, key=None):
	ctx = ssl.create_default_context(cafile=ca)
	ctx.set_alpn_protocols(["http/1.1"])
	if cert:
		ctx.load_cert_chain(cert, key)
	return ctx


class FaultProxy:
	"""The proxy: upstream is the backend's https URL, ca the file of the CA that signed its certificate
	(and its clients'), identities [(certificate file, key file)] the client certificates it can present."""

	def __init__(self, upstream, ca, identities=()):
		u = urllib.parse.urlsplit(upstream)
		if u.scheme != "https" or not u.hostname:
			raise ValueError("upstream must be an https URL: %r" % upstream)
		self.upstream = (u.hostname, u.port or 443)
		self.upstream_ca = ca
		self.identities = list(identities)
		self.stopping = False
		self.connections = 0  # client connections accepted
		self._lock = threading.Lock()
		self._faults = []
		self._fault_ids = itertools.count(1)
		self._log = collections.deque(maxlen=LOG_MAX)
		self._sessions = set()
		self._listener = None
		self._accepting = None

	def __enter__(self):
		return self.start()

	def __exit__(self, *exc):
		self.stop()
		return False

	def start(self):
		cert, key = make_certificate()
		self.ca_pem = cert
		self.server_ctx = server_context(cert, key, self.upstream_ca)
		self.upstream_ctx = {None: upstream_context(self.upstream_ca)}
		for crt, k in self.identities:
			with open(crt, encoding="ascii") as f:
				der = ssl.PEM_cert_to_DER_cert(f.read())
			self.upstream_ctx[der] = upstream_context(self.upstream_ca, crt, k)
		self._listener = socket.create_server(("127.0.0.1", 0), backlog=128)
		self.port = self._listener.getsockname()[1]
		self.url = "https://127.0.0.1:%d" % self.port
		self._accepting = threading.Thread(target=self._accept, name="faultproxy-accept", daemon=True)
		self._accepting.start()
		return self

	def _accept(self):
		while True:
			try:
				sock, _ = self._listener.accept()
			except OSError:
				return  # the listener was shut down: stop()
			with self._lock:
				if self.stopping:
					sock.close()
					return
				self.connections += 1
				s = Session(self, sock, self.connections)
				self._sessions.add(s)
			s.thread.start()

	def open_connections(self):
		"""The client connections the proxy serves now."""
		with self._lock:
			return len(self._sessions)

	def session_ended(self, session):
		with self._lock:
			self._sessions.discard(session)

	def stop(self):
		"""Closes every connection and ends every thread of the proxy."""
		if self._listener is None:
			return
		with self._lock:
			self.stopping = True
		try:
			self._listener.shutdown(socket.SHUT_RDWR)  # wakes accept()
		except OSError:
			pass
		self._accepting.join()
		self._listener.close()
		self._listener = None
		with self._lock:
			sessions = list(self._sessions)
		for s in sessions:
			s.abort()
		for s in sessions:
			s.thread.join(10)

	# -- faults and the log ------------------------------------------------------------------------------

	def arm(self, kind, **options):
		"""Arms a fault (see the module's documentation); returns it."""
		f = Fault(kind, **options)
		with self._lock:
			f.id = next(self._fault_ids)
			self._faults.append(f)
		return f

	def disarm(self):
		"""Disarms every fault; held requests go on."""
		with self._lock:
			faults = list(self._faults)
		for f in faults:
			f.disarm()

	def reset(self):
		"""Disarms and forgets every fault, and clears the log."""
		self.disarm()
		with self._lock:
			self._faults = []
			self._log.clear()

	def faults(self):
		with self._lock:
			return [f.describe() for f in self._faults]

	def log(self):
		"""The requests seen, oldest first: method, path, query (as sent), status (the server's, or the proxy's
		own for a status fault; None when there was none), fault (the kind that fired, or None), forwarded
		(the server was sent it), answered (the client was sent the response's head), connection (the number
		of the client connection, from 1)."""
		with self._lock:
			return [dict(e) for e in self._log]

	def clear_log(self):
		with self._lock:
			self._log.clear()

	def receive(self, method, path, query, connection):
		"""A request arrived: logs it and picks the fault that fires on it.  Returns (entry, fault or None)."""
		entry = {"method": method, "path": path, "query": query, "status": None, "fault": None,
			"forwarded": False, "answered": False, "connection": connection}
		chosen = None
		with self._lock:
			for f in self._faults:
				if f.matches(method, path):
					f.matched += 1
					if chosen is None and f.due():
						chosen = f
						f.fired += 1
			if chosen is not None:
				entry["fault"] = chosen.kind
			self._log.append(entry)
		return entry, chosen

	def note(self, entry, **fields):
		"""Records what became of a logged request."""
		with self._lock:
			entry.update(fields)

	def control(self, method, path, body):
		"""The control endpoints: returns (status, JSON-able answer)."""
		if path == "/_proxy/faults":
			if method == "GET":
				return 200, self.faults()
			if method == "DELETE":
				self.disarm()
				return 200, self.faults()
			if method == "POST":
				if not isinstance(body, dict) or "kind" not in body:
					raise ValueError("a fault is a JSON object with a kind")
				options = {k: v for k, v in body.items() if k != "kind"}
				return 201, self.arm(body["kind"], **options).describe()
		elif path == "/_proxy/log":
			if method == "GET":
				return 200, self.log()
			if method == "DELETE":
				self.clear_log()
				return 200, []
		else:
			return 404, {"error": "no control endpoint %s" % path}
		return 405, {"error": "%s is not allowed on %s" % (method, path)}
