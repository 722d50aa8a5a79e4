"""Writing responses: headers, gzip, chunking, and the faults that break a body on its way out."""

import email.utils
import gzip
import http.server
import json
import os
import socket
import struct
import time
import uuid

import kpb
from apierrors import ApiError
from hostile import HOSTILE_BAD_UTF8, HOSTILE_HEADER_TEXT, HOSTILE_TEXT
from kinds import PB_TYPE, jdump

GZIP_MIN = 128 * 1024
GO_CHUNKING_MIN = 2048
CHUNK = 256 * 1024
FLOWSCHEMA_UID = "cc5c514f-dbb6-424a-b075-9cff40569ab5"
PRIORITYLEVEL_UID = "3f5c46c6-740c-4ccb-9f30-c375f8e6d4a7"


class Abort(Exception):
	"""The connection was deliberately broken (reset or truncate fault)."""


class OutputMixin:
	"""Response writing for Handler."""

	def _head(self, code, headers):
		reason = http.server.BaseHTTPRequestHandler.responses.get(code, ("Unknown",))[0]
		lines = ["HTTP/1.1 %d %s" % (code, reason)]
		for k, v in headers:
			lines.append("%s: %s" % (k, v))
		lines.append("Date: " + email.utils.formatdate(usegmt=True))
		self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
		self.resp_code = code

	def _break(self, how):
		"""Ends the connection abruptly: "reset" sends a TCP RST, "truncate" a FIN without TLS close_notify."""
		sock = self.connection
		try:
			if how == "reset":
				# close() would wait for the buffered reader and writer; closing the descriptor with a zero
				# linger sends the RST now.
				sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
				os.close(sock.detach())
			else:
				socket.socket.shutdown(sock, socket.SHUT_RDWR)
		except OSError:
			pass
		self.close_connection = True
		raise Abort()

	def base_headers(self, ctype="application/json"):
		h = [("Audit-Id", str(uuid.uuid4())), ("Cache-Control", "no-cache, private"), ("Content-Type", ctype)]
		if self.fault and self.fault["type"] == "warning":
			msgs = self.fault.get("messages") or [self.fault.get("message", "this is a test warning")]
			for m in msgs:
				h.append(("Warning", '299 - "%s"' % m.replace("\\", "\\\\").replace('"', '\\"')))
		hostile = self.api.hostile
		if "text" in hostile or "badutf8" in hostile:
			h.append(("Warning", '299 - "hostile warning %s"' % HOSTILE_HEADER_TEXT))
		if self.user is not None:
			h.append(("X-Kubernetes-Pf-Flowschema-Uid", FLOWSCHEMA_UID))
			h.append(("X-Kubernetes-Pf-Prioritylevel-Uid", PRIORITYLEVEL_UID))
		return h

	def respond(self, code, body, headers=None, chunked=False, gz=None, extra=()):
		"""Sends a complete response, applying gzip and the body faults (truncate, reset, malformed, drip)."""
		h = list(headers) if headers is not None else self.base_headers()
		h.extend(extra)
		fault = self.fault
		if fault and fault["type"] == "malformed":
			body = body[:len(body) // 2] + b",,}"
			gz = None
		if self.accept_gzip and len(body) > GZIP_MIN:
			body = gz if gz is not None else gzip.compress(body, 1)
			h.append(("Content-Encoding", "gzip"))
			h.append(("Vary", "Accept-Encoding"))
			if fault and fault["type"] == "gzip_cut":
				body = body[:len(body) * 3 // 4]
			elif fault and fault["type"] == "gzip_corrupt":
				mid = len(body) // 2
				body = body[:mid] + bytes(b ^ 0xff for b in body[mid:mid + 64]) + body[mid + 64:]
		if chunked and len(body) < GO_CHUNKING_MIN:
			# Go's HTTP server sets Content-Length on a body the handler wrote whole in fewer bytes than
			# its buffer: a small object or list comes with a length, a larger one chunked.
			chunked = False
		if chunked:
			h.append(("Transfer-Encoding", "chunked"))
		else:
			h.append(("Content-Length", str(len(body))))
		self._head(code, h)
		ftype = fault["type"] if fault else None
		if ftype in ("truncate", "reset"):
			cut = body[:len(body) // 2]
			if chunked:
				self.wfile.write(b"%x\r\n" % len(body) + cut)
			else:
				self.wfile.write(cut)
			self._break(ftype)
		if ftype == "drip":
			bps = max(1, int(fault.get("bytes_per_second", 1024)))
			step = max(1, bps // 10)
			for i in range(0, len(body), step):
				piece = body[i:i + step]
				self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
				time.sleep(len(piece) / bps)
			if chunked:
				self.wfile.write(b"0\r\n\r\n")
			return
		if chunked:
			for i in range(0, len(body), CHUNK):
				piece = body[i:i + CHUNK]
				self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
			self.wfile.write(b"0\r\n\r\n")
		else:
			self.wfile.write(body)

	def respond_error(self, e):
		if "text" in self.api.hostile or "badutf8" in self.api.hostile:
			bad = HOSTILE_TEXT if "text" in self.api.hostile else HOSTILE_BAD_UTF8
			reason = None if e.reason is None else e.reason + bad
			e = ApiError(e.code, reason, e.message + bad, e.details, e.metadata, e.headers)
		if getattr(self, "want_pb", False):
			h = self.base_headers(PB_TYPE)
			if e.code == 403:
				h.append(("X-Content-Type-Options", "nosniff"))
			h.extend(e.headers)
			self.respond(e.code, kpb.status_body(json.loads(e.body)), h)
			return
		h = self.base_headers()
		if e.code == 403:
			h.append(("X-Content-Type-Options", "nosniff"))
		h.extend(e.headers)
		self.respond(e.code, e.body, h)

	def respond_control(self, code, obj):
		body = jdump(obj)
		self.fault = None
		self.accept_gzip = False
		self.respond(code, body, [("Content-Type", "application/json"), ("Cache-Control", "no-cache")])
