"""One client connection of the fault-injecting proxy (faultproxy.py): its requests read one after the
other (keep-alive), each answered by the proxy's control endpoints, by a fault, or by the backend over a
connection of the session's own, whose response is relayed as it arrives."""

import fcntl
import http
import json
import select
import socket
import ssl
import struct
import termios
import threading
import time
import urllib.parse

from faultproxy_wire import (Closed, Conn, Head, WireError, read_head, read_request_body, relay_body, request_line,
	response_framing, response_status)

HOLD_POLL = 0.05  # how often a held request looks for its release, its client's departure, the proxy's stop
DRAIN_MAX = 64 * 1024 * 1024  # what drop_after reads of an answer it throws away
CONNECT_TIMEOUT = 10
RESET_WAIT = 2  # seconds a reset waits for the bytes before it to be acknowledged

# A real kube-apiserver's reason and message for the codes a status fault answers.
STATUS_TEXT = {
	429: ("TooManyRequests", "Too many requests, please try again later."),
	500: ("InternalError", "an error on the server has prevented the request from succeeding"),
	503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
	504: ("Timeout", "the server was unable to return a response in the time allotted"),
}


class _Reset(Exception):
	"""A reset fault's byte count was reached."""


class _Enough(Exception):
	"""drop_after has read as much of an answer as it will."""


def _shutdown(sock):
	"""Shuts a socket down for both directions, leaving any TLS state alone (a thread may be reading)."""
	if sock is not None:
		try:
			socket.socket.shutdown(sock, socket.SHUT_RDWR)
		except OSError:
			pass


def _unacknowledged(sock):
	"""Bytes sent on a TCP socket that the peer has not acknowledged yet (Linux's SIOCOUTQ)."""
	try:
		return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, struct.pack("i", 0)))[0]
	except OSError:
		return 0


def _is_watch(query):
	return urllib.parse.parse_qs(query).get("watch", [""])[-1] in ("1", "true")


def _json_response(status, obj, extra=()):
	body = json.dumps(obj, separators=(",", ":")).encode() + b"\n"
	fields = [("Content-Type", "application/json"), ("Cache-Control", "no-cache, private")] + list(extra)
	fields.append(("Content-Length", str(len(body))))
	return Head("HTTP/1.1 %d %s" % (status, http.HTTPStatus(status).phrase), fields).encode() + body


class Session:
	def __init__(self, proxy, sock, number):
		self.proxy = proxy
		self.number = number
		self.raw = sock
		self.client = None
		self.up = None
		self.up_ctx = None
		self.thread = threading.Thread(target=self.run, name="faultproxy-%d" % number, daemon=True)

	def run(self):
		try:
			self._handshake()
			while not self.proxy.stopping and self._exchange():
				pass
		except (OSError, Closed, WireError):
			pass  # the client or the backend went away, or sent what is not HTTP/1.1: the connection ends
		finally:
			self._close_upstream()
			for s in (self.raw, self.client and self.client.sock):
				if s is not None:
					s.close()
			self.proxy.session_ended(self)

	def abort(self):
		"""From another thread: wakes the session's blocked reads so that it ends."""
		for s in (self.raw, self.client and self.client.sock, self.up and self.up.sock):
			_shutdown(s)

	def _handshake(self):
		# Each piece of a stream goes out as it comes, not held for the peer's acknowledgement of the last.
		self.raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
		self.raw.settimeout(CONNECT_TIMEOUT)
		s = self.proxy.server_ctx.wrap_socket(self.raw, server_side=True, do_handshake_on_connect=False)
		self.client = Conn(s)  # before the handshake, so that abort() reaches it
		if self.proxy.stopping:
			raise Closed()
		s.do_handshake()
		s.settimeout(None)
		# The backend connection presents the certificate the client presented; a client certificate the
		# proxy has no key for is answered 502 (up_ctx None).
		self.up_ctx = self.proxy.upstream_ctx.get(s.getpeercert(binary_form=True))

	def _exchange(self):
		"""One request and its answer; returns whether the client connection stays open."""
		c = self.client
		head = read_head(c, first_may_close=True)
		if head is None:
			return False
		method, target, version = request_line(head)
		path, _, query = target.partition("?")
		if "100-continue" in head.tokens("Expect"):
			# The proxy reads the whole body before it forwards anything: it asks for it itself.
			c.send(b"HTTP/1.1 100 Continue\r\n\r\n")
			head = head.without("Expect")
		body = read_request_body(c, head)
		keep = version == "HTTP/1.1" and "close" not in head.tokens("Connection")
		if path.startswith("/_proxy/"):
			c.send(self._control(method, path, body))
			return keep
		entry, fault = self.proxy.receive(method, path, query, self.number)
		refused = None
		if self.up_ctx is None:
			refused = 502, "the proxy holds no key for the client certificate presented"
		elif head.get("Upgrade") is not None:
			refused = 501, "the proxy does not carry upgraded connections (exec, attach, port-forward)"
		if refused:
			c.send(_json_response(refused[0], {"error": refused[1]}))
			self.proxy.note(entry, status=refused[0], answered=True)
			return keep
		return self._forward(head, body, method, query, entry, fault) and keep

	def _control(self, method, path, body):
		try:
			status, out = self.proxy.control(method, path, json.loads(body) if body else None)
		except (ValueError, TypeError) as e:
			status, out = 400, {"error": str(e)}
		return _json_response(status, out)

	def _forward(self, head, body, method, query, entry, fault):
		"""Applies the fault, if any, to the request and its answer; returns whether the connection stays."""
		kind = fault.kind if fault else None
		if kind == "drop_before":
			return False
		if kind == "status":
			self._answer_status(fault, entry)
			return True
		if kind == "hang" and not fault.forward and not self._hold(fault):
			return False
		try:
			up = self._upstream()
		except OSError as e:
			self.client.send(_json_response(502, {"error": "the proxy cannot reach the server: %s" % e}))
			self.proxy.note(entry, status=502, answered=True)
			return True
		up.send(head.encode() + body)
		self.proxy.note(entry, forwarded=True)
		resp = read_head(up)
		while 100 <= response_status(resp) < 200:
			resp = read_head(up)  # interim answers (no Expect is forwarded): the final one is what counts
		status = response_status(resp)
		self.proxy.note(entry, status=status)
		framing = response_framing(method, status, resp)
		if kind == "drop_after":
			if not _is_watch(query):  # an endless stream: its head says the server answered
				self._drain(up, framing, resp)
			return False
		if kind == "hang" and fault.forward and not self._hold(fault):
			return False
		self.client.send(resp.encode())
		self.proxy.note(entry, answered=True)
		if not self._relay(up, framing, resp, fault if kind == "reset" else None):
			return False
		if framing == "close" or "close" in resp.tokens("Connection"):
			self._close_upstream()
			return False
		return True

	def _relay(self, up, framing, resp, reset):
		"""The response body to the client as it arrives, watching the client meanwhile (a client that leaves
		a watch ends it).  With a reset fault, the client's connection is reset after its byte count: False."""
		sink = self.client.send
		if reset is not None:
			left = [reset.after_bytes]

			def sink(data):
				if len(data) >= left[0]:
					self.client.send(data[:left[0]])
					raise _Reset()
				left[0] -= len(data)
				self.client.send(data)
		up.before_wait = self._wait_upstream
		try:
			relay_body(up, framing, resp, sink)
		except _Reset:
			self._reset_client()
			return False
		finally:
			up.before_wait = None
		return True

	def _drain(self, up, framing, resp):
		n = [0]

		def sink(data):
			n[0] += len(data)
			if n[0] > DRAIN_MAX:
				raise _Enough()
		try:
			relay_body(up, framing, resp, sink)
		except _Enough:
			pass

	def _answer_status(self, fault, entry):
		reason, message = STATUS_TEXT.get(fault.code, ("InternalError", http.HTTPStatus(fault.code).phrase))
		status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
			"reason": reason, "code": fault.code}
		extra = []
		if fault.retry_after is not None:
			status["details"] = {"retryAfterSeconds": fault.retry_after}
			extra.append(("Retry-After", str(fault.retry_after)))
		self.client.send(_json_response(fault.code, status, extra))
		self.proxy.note(entry, status=fault.code, answered=True)

	# -- waiting -----------------------------------------------------------------------------------------

	def _poll_client(self):
		"""Reads what the client has sent, without blocking (a pipelined request stays buffered); Closed
		when it has closed the connection."""
		s = self.client.sock
		s.settimeout(0)
		try:
			self.client.fill()
		except (ssl.SSLWantReadError, BlockingIOError):
			pass  # a TLS record without data for the application
		finally:
			s.settimeout(None)

	def _wait_upstream(self):
		"""Before a read from the backend that may block: returns once it can be read, Closed when the
		client leaves meanwhile."""
		while True:
			socks = [self.up.sock] if self.client.has_data() else [self.up.sock, self.client.sock]
			readable, _, _ = select.select(socks, [], [])
			if self.up.sock in readable:
				return
			self._poll_client()

	def _hold(self, fault):
		"""Holds a request until its fault is disarmed (True), or its client leaves or the proxy stops (False)."""
		while not fault.released.wait(HOLD_POLL):
			if self.proxy.stopping:
				return False
			if not self.client.has_data() and select.select([self.client.sock], [], [], 0)[0]:
				try:
					self._poll_client()
				except (Closed, OSError):
					return False
		return not self.proxy.stopping

	# -- connections -------------------------------------------------------------------------------------

	def _upstream(self):
		"""The backend connection, opened now or kept from the previous request if the backend still holds it."""
		if self.up is not None and self.up.idle_closed():
			self._close_upstream()
		if self.up is None:
			raw = socket.create_connection(self.proxy.upstream, timeout=CONNECT_TIMEOUT)
			raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
			s = self.up_ctx.wrap_socket(raw, server_hostname=self.proxy.upstream[0], do_handshake_on_connect=False)
			self.up = Conn(s)
			if self.proxy.stopping:
				raise Closed()
			s.do_handshake()
			s.settimeout(None)
		return self.up

	def _close_upstream(self):
		up, self.up = self.up, None
		if up is not None:
			up.sock.close()

	def _reset_client(self):
		"""Ends the client connection with a TCP RST, as a peer or middlebox that fails does, once the bytes
		sent before it have reached the client (a reset discards what is still unacknowledged)."""
		s = self.client.sock
		deadline = time.monotonic() + RESET_WAIT
		while _unacknowledged(s) > 0 and time.monotonic() < deadline:
			time.sleep(0.005)
		try:
			s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
		except OSError:
			pass
		self._close_upstream()
		s.close()
