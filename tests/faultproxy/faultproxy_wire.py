"""HTTP/1.1 on a socket, for the fault-injecting proxy: a buffered connection, message heads, request
bodies read whole, and response bodies relayed as they arrive, byte for byte in their own framing (chunks,
gzip and all), so that what the client receives is what the server sent."""

import select
import ssl

MAX_LINE = 64 * 1024
MAX_HEADERS = 256
MAX_REQUEST_BODY = 64 * 1024 * 1024
READ_SIZE = 64 * 1024


class WireError(Exception):
	"""A message that is not HTTP/1.1 as the proxy reads it."""


class Closed(Exception):
	"""The peer closed its side of the connection."""


class Conn:
	"""A socket (TLS or not) with a read buffer."""

	def __init__(self, sock):
		self.sock = sock
		self.buf = bytearray()
		# Called before a read that may block: the proxy watches the other side of an exchange meanwhile.
		self.before_wait = None

	def has_data(self):
		"""Whether a read would return at once: bytes in the buffer or decrypted in the TLS layer."""
		return bool(self.buf) or (isinstance(self.sock, ssl.SSLSocket) and self.sock.pending() > 0)

	def fill(self):
		if self.before_wait is not None and not self.has_data():
			self.before_wait()
		data = self.sock.recv(READ_SIZE)
		if not data:
			raise Closed()
		self.buf += data

	def read_line(self):
		"""One line with its CRLF (or LF)."""
		start = 0
		while True:
			i = self.buf.find(b"\n", start)
			if i >= 0:
				line = bytes(self.buf[:i + 1])
				del self.buf[:i + 1]
				return line
			if len(self.buf) > MAX_LINE:
				raise WireError("line longer than %d bytes" % MAX_LINE)
			start = len(self.buf)
			self.fill()

	def read_some(self, n):
		"""Up to n bytes, at least one: what is buffered, else what one read brings."""
		if not self.buf:
			self.fill()
		data = bytes(self.buf[:n])
		del self.buf[:n]
		return data

	def read_exact(self, n):
		while len(self.buf) < n:
			self.fill()
		data = bytes(self.buf[:n])
		del self.buf[:n]
		return data

	def send(self, data):
		self.sock.sendall(data)

	def idle_closed(self):
		"""For a kept-alive connection between requests: true when the peer has closed it (or sent what no
		request was asked for)."""
		if self.has_data():
			return True
		readable, _, _ = select.select([self.sock], [], [], 0)
		return bool(readable)


class Head:
	"""The start line and header fields of a message, kept as received."""

	def __init__(self, start, fields):
		self.start = start
		self.fields = fields

	def get(self, name):
		"""The last value of a field (case-insensitive name), or None."""
		name = name.lower()
		found = None
		for k, v in self.fields:
			if k.lower() == name:
				found = v
		return found

	def tokens(self, name):
		"""The comma-separated tokens of every field of that name, lowercase."""
		name = name.lower()
		out = []
		for k, v in self.fields:
			if k.lower() == name:
				out += [t.strip().lower() for t in v.split(",") if t.strip()]
		return out

	def without(self, *names):
		drop = {n.lower() for n in names}
		return Head(self.start, [(k, v) for k, v in self.fields if k.lower() not in drop])

	def encode(self):
		lines = [self.start] + ["%s: %s" % kv for kv in self.fields]
		return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def read_head(conn, first_may_close=False):
	"""Reads a start line and header fields.  With first_may_close, a peer that closes before the first byte
	(a client done with a kept-alive connection) gives None."""
	try:
		line = conn.read_line()
	except Closed:
		if first_may_close and not conn.buf:
			return None
		raise
	start = line.rstrip(b"\r\n").decode("latin-1")
	if not start:
		raise WireError("empty start line")
	fields = []
	while True:
		line = conn.read_line().rstrip(b"\r\n")
		if not line:
			return Head(start, fields)
		if len(fields) >= MAX_HEADERS:
			raise WireError("more than %d header fields" % MAX_HEADERS)
		name, sep, value = line.decode("latin-1").partition(":")
		if not sep or not name or name != name.strip():
			raise WireError("malformed header field %r" % line[:80])
		fields.append((name, value.strip()))


def request_line(head):
	"""(method, target, version) of a request head."""
	parts = head.start.split(" ")
	if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
		raise WireError("malformed request line %r" % head.start[:80])
	return parts[0], parts[1], parts[2]


def response_status(head):
	"""The status code of a response head."""
	parts = head.start.split(" ", 2)
	if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
		raise WireError("malformed status line %r" % head.start[:80])
	return int(parts[1])


def _content_length(head):
	v = head.get("Content-Length")
	if v is None:
		return None
	if not v.isdigit():
		raise WireError("bad Content-Length %r" % v)
	return int(v)


def _relay_chunked(conn, sink, limit=None):
	"""Passes a chunked body to sink as it arrives, its chunk framing and trailer included."""
	total = 0
	while True:
		line = conn.read_line()
		sink(line)
		size_text = line.split(b";", 1)[0].strip()
		try:
			size = int(size_text, 16)
		except ValueError:
			raise WireError("bad chunk size %r" % size_text[:20]) from None
		total += size
		if limit is not None and total > limit:
			raise WireError("body longer than %d bytes" % limit)
		if size == 0:
			while True:  # the trailer, up to its empty line
				line = conn.read_line()
				sink(line)
				if not line.rstrip(b"\r\n"):
					return
		left = size + 2  # the chunk's data and its CRLF
		while left:
			data = conn.read_some(left)
			sink(data)
			left -= len(data)


def _relay_length(conn, n, sink):
	while n:
		data = conn.read_some(min(n, READ_SIZE))
		sink(data)
		n -= len(data)


def read_request_body(conn, head):
	"""The body of a request in its wire form (a chunked body stays chunked)."""
	if "chunked" in head.tokens("Transfer-Encoding"):
		parts = []
		_relay_chunked(conn, parts.append, MAX_REQUEST_BODY)
		return b"".join(parts)
	n = _content_length(head) or 0
	if n > MAX_REQUEST_BODY:
		raise WireError("request body of %d bytes" % n)
	return conn.read_exact(n)


def response_framing(method, status, head):
	"""How a response's body ends: "none", "chunked", "length" or "close" (at the end of the connection)."""
	if method == "HEAD" or 100 <= status < 200 or status in (204, 304):
		return "none"
	if "chunked" in head.tokens("Transfer-Encoding"):
		return "chunked"
	if _content_length(head) is not None:
		return "length"
	return "close"


def relay_body(conn, framing, head, sink):
	"""Passes a response body to sink(bytes) as it arrives, in its own framing."""
	if framing == "chunked":
		_relay_chunked(conn, sink)
	elif framing == "length":
		_relay_length(conn, _content_length(head), sink)
	elif framing == "close":
		while True:
			try:
				sink(conn.read_some(READ_SIZE))
			except Closed:
				return
