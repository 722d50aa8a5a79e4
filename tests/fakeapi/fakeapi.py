#!/usr/bin/env python3
"""A fake Kubernetes API server for the plugin's tests (Python 3 standard library only).

It speaks the subset of the Kubernetes REST protocol the plugin uses, over HTTPS with a CA made per run,
and answers the way a real kube-apiserver v1.26 does: compact JSON, the same Status bodies and messages,
list items without kind/apiVersion, chunked object and list bodies, gzip above 128 KiB.

    python3 fakeapi.py --scenario fixtures/scenarios/seed002 --state-dir DIR [--port 0] [options]

prints `port N` once it is ready and writes DIR/kubeconfig. SIGTERM or SIGINT stop it.
See fixtures/README.md for the scenario format, the control endpoints and the fault types.
"""

import argparse
import base64
import bisect
import copy
import email.utils
import gc
import gzip
import http.server
import json
import os
import random
import re
import secrets
import signal
import socket
import socketserver
import ssl
import struct
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone

import kpb

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

GZIP_MIN = 128 * 1024
# Namespaces a real cluster makes for itself.
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")
GO_CHUNKING_MIN = 2048
CHUNK = 256 * 1024
FLOWSCHEMA_UID = "cc5c514f-dbb6-424a-b075-9cff40569ab5"
PRIORITYLEVEL_UID = "3f5c46c6-740c-4ccb-9f30-c375f8e6d4a7"

KINDS = {
	"nodes": {"kind": "Node", "list": "NodeList", "group": "", "apiVersion": "v1", "namespaced": False},
	"pods": {"kind": "Pod", "list": "PodList", "group": "", "apiVersion": "v1", "namespaced": True},
	"daemonsets": {"kind": "DaemonSet", "list": "DaemonSetList", "group": "apps", "apiVersion": "apps/v1",
		"namespaced": True},
	"events": {"kind": "Event", "list": "EventList", "group": "", "apiVersion": "v1", "namespaced": True},
}
KIND_TO_RESOURCE = {v["kind"]: k for k, v in KINDS.items()}
PB_TYPE = "application/vnd.kubernetes.protobuf"

FIELD_LABELS = {
	"nodes": {"metadata.name", "spec.unschedulable"},
	"pods": {"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
		"spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"},
	"daemonsets": {"metadata.name", "metadata.namespace"},
	"events": {"metadata.name", "metadata.namespace", "involvedObject.kind", "involvedObject.name",
		"involvedObject.namespace", "involvedObject.uid", "reason", "type"},
}

VERSION_BODY = (b'{\n  "major": "1",\n  "minor": "26",\n  "gitVersion": "v1.26.1-rc.0+cf384344a742",\n'
	b'  "gitCommit": "cf384344a7422b8bc6b7624e08b3bc1196e8787b",\n  "gitTreeState": "archive",\n'
	b'  "buildDate": "2026-11-21T15:49:18Z",\n  "goVersion": "go1.19.8",\n  "compiler": "gc",\n'
	b'  "platform": "linux/amd64"\n}')

CONTINUE_EXPIRED_MSG = ("The provided continue parameter is too old to display a consistent list result. "
	"You can start a new list without the continue parameter, or use the continue token in this response to "
	"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list "
	"- objects that were created, modified, or deleted between the time the first chunk was returned and now "
	"may show up in the list.")

LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
	"and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
	"regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
NAME_PART_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
	"with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
	"is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
PREFIX_MSG = ("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
	"'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
	"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
DNS1123_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

HTML_PAGE = ("<html>\r\n<head><title>{code} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>{code} Bad Gateway"
	"</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")

# A DaemonSet pod suffix uses the same alphabet as Kubernetes' generateName.
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

# --hostile: a server (or whoever can create objects) that means harm.  Each mode is one class of input:
#   text             control characters in every string the plugin prints (names, namespaces, addresses, label
#                    values, annotations, Status messages, Warning headers): an OSC title change ended by a bell,
#                    a screen clear, a colour change, a C1 CSI, DEL, a tab and a newline, and CJK text two columns
#                    wide; every error answer carries them in its message and reason
#   badutf8          the same places get bytes that are not UTF-8 (in JSON strings and in Warning headers)
#   repeat-continue  every page of a paged list answers with the same continue token (and the same objects)
#   endless          every page of a paged list brings new objects and a new continue token, without end
#   huge             one node carries a 100 MB annotation
#   watch-backwards  watches first replay every object with resourceVersion 1 and changed content, and add a
#                    node "stale-ghost" at resourceVersion 1: events older than what the list already showed
HOSTILE_MODES = ("text", "badutf8", "repeat-continue", "endless", "huge", "watch-backwards")
HOSTILE_TEXT = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\u009b1m\x7f\t\nX\u4e2d\u6587"
HOSTILE_BAD_UTF8 = "\udcff\udcfe\udcc3X"
# Header values go out as latin-1: 0x9b and 0xff are a C1 byte and a byte that is not UTF-8 on the wire.
HOSTILE_HEADER_TEXT = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\xff"
# Label values the plugin prints (pool, GPU model) rather than reads for the sharing mode.
HOSTILE_LABELS = ("alibabacloud.com/nodepool-id", "aliyun.accelerator/nvidia_name")
HUGE_BYTES = 100 * 1024 * 1024
# Serialising a 100 MB string takes Python seconds: the stored bytes get it put in place instead.
HUGE_PLACEHOLDER = "@@huge-annotation@@"


def hostile_objects(objects, suffix):
	"""Every printed string field of nodes and pods with suffix appended; DaemonSets and kube-system keep
	their names, so that restart still finds its device plugin."""
	out = []
	for d in objects:
		d = copy.deepcopy(d)
		md = d.setdefault("metadata", {})
		kind = d.get("kind")
		if kind in ("Node", "Pod"):
			md["name"] = md.get("name", "") + suffix
			labels = md.get("labels")
			if labels is not None:
				for k in HOSTILE_LABELS:
					if k in labels:
						labels[k] += suffix
				labels["example.com/hostile"] = "v" + suffix
			md.setdefault("annotations", {})["example.com/note"] = "note" + suffix
		if kind == "Pod":
			if md.get("namespace") not in (None, "kube-system"):
				md["namespace"] += suffix
			spec = d.setdefault("spec", {})
			if spec.get("nodeName"):
				spec["nodeName"] += suffix
			for c in spec.get("containers") or []:
				c["name"] = c.get("name", "c") + suffix
		if kind == "Node":
			for a in (d.get("status") or {}).get("addresses") or []:
				a["address"] = a.get("address", "") + suffix
		out.append(d)
	return out


def jdump(obj):
	"""Compact JSON bytes escaped the way Go's encoding/json does it."""
	s = _encoder.encode(obj)
	if "<" in s or ">" in s or "&" in s or "\u2028" in s or "\u2029" in s:
		s = (s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
			.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
	# surrogateescape: the badutf8 hostile mode puts bytes that are not UTF-8 in strings as lone surrogates
	return s.encode("utf-8", "surrogateescape")


def now_rfc3339(offset=0):
	t = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=offset)
	return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def status_dict(code, reason, message, details=None, metadata=None, status="Failure"):
	d = {"kind": "Status", "apiVersion": "v1", "metadata": metadata or {}, "status": status}
	if message is not None:
		d["message"] = message
	if reason is not None:
		d["reason"] = reason
	if details is not None:
		d["details"] = details
	d["code"] = code
	return d


class ApiError(Exception):
	"""A request that ends in a Status body."""

	def __init__(self, code, reason, message, details=None, metadata=None, headers=()):
		super().__init__(message)
		self.code = code
		self.reason, self.message, self.details, self.metadata = reason, message, details, metadata
		# A real server ends every JSON body, Status or object, with a newline (Go's json.Encoder).
		self.body = jdump(status_dict(code, reason, message, details, metadata)) + b"\n"
		self.headers = list(headers)


def bad_resource_version(rv):
	"""What the real server answers to a resourceVersion that is not a number, on a get, list or watch:
	a 500 without a reason (the storage layer's parse error, not a validation error)."""
	q = go_quote(rv)
	return ApiError(500, None, 'resourceVersion: Invalid value: "%s": strconv.ParseUint: parsing "%s": invalid syntax'
		% (q, q))


def check_resource_version(query):
	rv = query.get("resourceVersion")
	if isinstance(rv, str) and rv and not rv.isdigit():
		raise bad_resource_version(rv)


def go_quote(s):
	"""The inside of Go's %q of s, for the ASCII cases tests use."""
	return s.replace("\\", "\\\\").replace('"', '\\"')


def not_found(resource, name):
	return ApiError(404, "NotFound", '%s "%s" not found' % (resource, name), {"name": name, "kind": resource})


# ---------------------------------------------------------------------------------------------------------
# Selectors


class SelectorError(Exception):
	pass


_SPECIALS = ("!=", "==", "=", "!", "(", ")", ",", ">", "<")


def _lex_selector(s):
	toks = []
	i = 0
	n = len(s)
	while i < n:
		c = s[i]
		if c.isspace():
			i += 1
			continue
		if c in "=!(),><":
			# Kubernetes' lexer reads the longest operator it knows, so "===" is "==" then "=".
			if s.startswith("!=", i) or s.startswith("==", i):
				toks.append(("op", s[i:i + 2]))
				i += 2
			else:
				toks.append(("op", c))
				i += 1
			continue
		j = i
		while j < n and not s[j].isspace() and s[j] not in "=!(),><":
			j += 1
		word = s[i:j]
		if word in ("in", "notin"):
			toks.append(("kw", word))
		else:
			toks.append(("id", word))
		i = j
	toks.append(("end", ""))
	return toks


def _tokname(t):
	if t[0] == "end":
		return "end of string"
	return t[1]


def parse_label_selector(s):
	"""Parses a label selector into a list of (key, op, values); raises SelectorError with Kubernetes' text."""
	reqs = []
	if s is None or s.strip() == "":
		return reqs
	toks = _lex_selector(s)
	pos = 0

	def err(msg):
		raise SelectorError("unable to parse requirement: " + msg)

	while True:
		t = toks[pos]
		if t[0] == "op" and t[1] == "!":
			pos += 1
			k = toks[pos]
			if k[0] != "id":
				err("found '%s', expected: identifier" % _tokname(k))
			reqs.append((k[1], "!", ()))
			pos += 1
		elif t[0] in ("id", "kw"):
			key = t[1]
			pos += 1
			o = toks[pos]
			if o[0] == "end" or (o[0] == "op" and o[1] == ","):
				reqs.append((key, "exists", ()))
			elif o[0] == "kw":
				pos += 1
				if toks[pos] != ("op", "("):
					err("found '%s', expected: '('" % _tokname(toks[pos]))
				pos += 1
				vals = []
				while True:
					v = toks[pos]
					if v[0] in ("id", "kw"):
						vals.append(v[1])
						pos += 1
						v = toks[pos]
					elif v == ("op", ",") or v == ("op", ")"):
						vals.append("")
					else:
						err("found '%s', expected: ',', ')' or identifier" % _tokname(v))
					if v == ("op", ","):
						pos += 1
						continue
					if v == ("op", ")"):
						pos += 1
						break
					err("found '%s', expected: ',' or ')'" % _tokname(v))
				reqs.append((key, o[1], tuple(vals)))
			elif o[0] == "op" and o[1] in ("=", "==", "!=", ">", "<"):
				pos += 1
				v = toks[pos]
				if v[0] in ("id", "kw"):
					val = v[1]
					pos += 1
				elif v[0] == "end" or v == ("op", ","):
					val = ""
				else:
					err("found '%s', expected: identifier" % _tokname(v))
				if o[1] in (">", "<") and not re.fullmatch(r"-?\d+", val):
					err("for 'Gt', 'Lt' operators, the value must be an integer")
				reqs.append((key, {"==": "="}.get(o[1], o[1]), (val,)))
			else:
				err("found '%s', expected: in, notin, =, ==, !=, gt, lt" % _tokname(o))
		else:
			err("found '%s', expected: !, identifier, or 'end of string'" % _tokname(t))
		t = toks[pos]
		if t[0] == "end":
			break
		if t == ("op", ","):
			pos += 1
			continue
		err("found '%s', expected: ',' or 'end of string'" % _tokname(t))
	for key, _op, _vals in reqs:
		if not valid_label_key(key):
			raise SelectorError('unable to parse requirement: invalid label key "%s": %s' % (key, label_key_problem(key)))
	return reqs


def label_match(reqs, labels):
	for key, op, vals in reqs:
		has = key in labels
		v = labels.get(key)
		if op == "exists":
			ok = has
		elif op == "!":
			ok = not has
		elif op == "=":
			ok = has and v == vals[0]
		elif op == "!=":
			ok = not has or v != vals[0]
		elif op == "in":
			ok = has and v in vals
		elif op == "notin":
			ok = not has or v not in vals
		elif op in (">", "<"):
			try:
				n = int(v)
			except (TypeError, ValueError):
				return False
			ok = n > int(vals[0]) if op == ">" else n < int(vals[0])
		else:
			ok = False
		if not ok:
			return False
	return True


def parse_field_selector(s, resource):
	reqs = []
	if s is None or s.strip() == "":
		return reqs
	for term in s.split(","):
		term = term.strip()
		if term == "":
			continue
		for op in ("!=", "==", "="):
			i = term.find(op)
			if i >= 0:
				field, value, op = term[:i].strip(), term[i + len(op):].strip(), "=" if op == "==" else op
				break
		else:
			raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (s, term))
		if field not in FIELD_LABELS[resource]:
			raise SelectorError("field label not supported: %s" % field)
		reqs.append((field, op, value))
	return reqs


def field_value(obj, field):
	cur = obj
	for part in field.split("."):
		if not isinstance(cur, dict):
			return ""
		cur = cur.get(part)
	if cur is None:
		return ""
	if isinstance(cur, bool):
		return "true" if cur else "false"
	return str(cur)


def field_match(reqs, obj):
	for field, op, value in reqs:
		v = field_value(obj, field)
		if op == "=" and v != value:
			return False
		if op == "!=" and v == value:
			return False
	return True


# ---------------------------------------------------------------------------------------------------------
# Label validation (used by PATCH)


def label_key_problem(key):
	if "/" in key:
		prefix, name = key.split("/", 1)
		if prefix == "":
			return "prefix part must be non-empty"
		if len(prefix) > 253:
			return "prefix part must be no more than 253 characters"
		if not DNS1123_RE.match(prefix):
			return PREFIX_MSG
	else:
		name = key
	if name == "":
		return "name part must be non-empty"
	if len(name) > 63:
		return "name part must be no more than 63 characters"
	if not NAME_RE.match(name):
		return NAME_PART_MSG
	return None


def valid_label_key(key):
	return label_key_problem(key) is None


def label_problems(labels):
	"""Returns a list of (field, message) for invalid labels, in Kubernetes' wording."""
	out = []
	if not isinstance(labels, dict):
		return out
	for key in sorted(labels):
		value = labels[key]
		p = label_key_problem(key)
		if p is not None:
			out.append(('Invalid value: "%s": %s' % (key, p)))
		if not isinstance(value, str):
			continue
		if len(value) > 63:
			out.append('Invalid value: "%s": must be no more than 63 characters' % value)
		elif not VALUE_RE.match(value):
			out.append('Invalid value: "%s": %s' % (value, LABEL_VALUE_MSG))
	return out


# ---------------------------------------------------------------------------------------------------------
# Patches


class PatchError(Exception):
	def __init__(self, code, reason, message, details=None):
		super().__init__(message)
		self.code = code
		self.reason = reason
		self.details = details


def merge_patch(target, patch):
	"""RFC 7386 JSON merge patch; returns a new value."""
	if not isinstance(patch, dict):
		return copy.deepcopy(patch)
	out = dict(target) if isinstance(target, dict) else {}
	for k, v in patch.items():
		if v is None:
			out.pop(k, None)
		else:
			out[k] = merge_patch(out.get(k), v)
	return out


def _pointer(path):
	if path == "":
		return []
	if not path.startswith("/"):
		raise PatchError(422, "Invalid", "invalid JSON pointer: %s" % path)
	return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _walk(doc, parts):
	cur = doc
	for p in parts:
		if isinstance(cur, dict):
			if p not in cur:
				raise PatchError(422, "Invalid", "jsonpatch: path does not exist: %s" % p)
			cur = cur[p]
		elif isinstance(cur, list):
			try:
				cur = cur[int(p)]
			except (ValueError, IndexError):
				raise PatchError(422, "Invalid", "jsonpatch: invalid index: %s" % p) from None
		else:
			raise PatchError(422, "Invalid", "jsonpatch: path does not exist: %s" % p)
	return cur


def _get(doc, path):
	return _walk(doc, _pointer(path))


def _add(doc, path, value):
	parts = _pointer(path)
	if not parts:
		return value
	parent = _walk(doc, parts[:-1])
	last = parts[-1]
	if isinstance(parent, dict):
		parent[last] = value
	elif isinstance(parent, list):
		if last == "-":
			parent.append(value)
		else:
			try:
				i = int(last)
			except ValueError:
				raise PatchError(422, "Invalid", "jsonpatch: invalid index: %s" % last) from None
			if i < 0 or i > len(parent):
				raise PatchError(422, "Invalid", "jsonpatch: index out of range: %d" % i)
			parent.insert(i, value)
	else:
		raise PatchError(422, "Invalid", "jsonpatch: add operation does not apply: doc is missing path: %s" % path)
	return doc


def _remove(doc, path):
	parts = _pointer(path)
	if not parts:
		raise PatchError(422, "Invalid", "jsonpatch: cannot remove the whole document")
	parent = _walk(doc, parts[:-1])
	last = parts[-1]
	if isinstance(parent, dict):
		if last not in parent:
			raise PatchError(422, "Invalid",
				"the server rejected our request due to an error in our request: remove operation does not "
				"apply: doc is missing key: %s" % path)
		return parent.pop(last)
	if isinstance(parent, list):
		try:
			return parent.pop(int(last))
		except (ValueError, IndexError):
			raise PatchError(422, "Invalid", "jsonpatch: invalid index: %s" % last) from None
	raise PatchError(422, "Invalid", "jsonpatch: remove operation does not apply: doc is missing path: %s" % path)


def json_patch(doc, ops):
	"""RFC 6902 (add, remove, replace, test, move, copy) on a deep copy of doc."""
	if not isinstance(ops, list):
		raise PatchError(400, "BadRequest", "json: cannot unmarshal object into Go value of type jsonpatch.Patch")
	doc = copy.deepcopy(doc)
	for op in ops:
		if not isinstance(op, dict) or "op" not in op or "path" not in op:
			raise PatchError(422, "Invalid", "jsonpatch: operation missing op or path")
		kind, path = op["op"], op["path"]
		if kind == "add":
			doc = _add(doc, path, copy.deepcopy(op.get("value")))
		elif kind == "remove":
			_remove(doc, path)
		elif kind == "replace":
			_remove(doc, path)
			doc = _add(doc, path, copy.deepcopy(op.get("value")))
		elif kind == "test":
			try:
				cur = _get(doc, path)
			except PatchError:
				cur = None
			if cur != op.get("value"):
				# kube-apiserver v1.26 says no more than this, with empty details, for a failed test.
				raise PatchError(422, "Invalid", "the server rejected our request due to an error in our request", {})
		elif kind == "move":
			v = _remove(doc, op.get("from", ""))
			doc = _add(doc, path, v)
		elif kind == "copy":
			doc = _add(doc, path, copy.deepcopy(_get(doc, op.get("from", ""))))
		else:
			raise PatchError(422, "Invalid", "jsonpatch: unexpected operation %s" % kind)
	return doc


# ---------------------------------------------------------------------------------------------------------
# The object store


class Obj:
	"""A stored object (never changed in place) with its serialised forms cached."""

	__slots__ = ("d", "_item", "_full", "_pb")

	def __init__(self, d):
		self.d = d
		self._item = None
		self._full = None
		self._pb = None

	def pb(self):
		"""The object's own protobuf message (a list item)."""
		if self._pb is None:
			self._pb = kpb.item(self.d.get("kind"), self.d)
		return self._pb

	def item(self):
		if self._item is None:
			self._item = jdump({k: v for k, v in self.d.items() if k not in ("kind", "apiVersion")})
		return self._item

	def full(self):
		if self._full is None:
			d = self.d
			head = jdump({"kind": d.get("kind"), "apiVersion": d.get("apiVersion")})
			item = self.item()
			self._full = head[:-1] + (b"," + item[1:] if len(item) > 2 else b"}")
		return self._full


def obj_key(resource, d):
	m = d.get("metadata", {})
	if KINDS[resource]["namespaced"]:
		return "%s/%s" % (m.get("namespace", "default"), m.get("name"))
	return m.get("name")


def new_uid():
	return str(uuid.uuid4())


def random_suffix(n=5):
	return "".join(random.choice(SUFFIX_ALPHABET) for _ in range(n))


class Store:
	def __init__(self, window=10000):
		self.lock = threading.RLock()
		self.cond = threading.Condition(self.lock)
		self.window = window
		self.generation = 0
		self.clear(1)

	def clear(self, rv):
		with self.lock:
			self.objs = {k: {} for k in KINDS}
			self.sorted = {k: None for k in KINDS}
			self.rv = rv
			self.compacted = rv
			self.history = []   # (rv, type, resource, Obj, prev Obj or None)
			self.hist_base = 0  # absolute index of history[0]
			self.pages = {}
			self.generation += 1
			self.cond.notify_all()

	def load(self, objects):
		"""Loads objects keeping their resourceVersions; the watch window starts after them."""
		with self.lock:
			top = 0
			for d in objects:
				res = KIND_TO_RESOURCE.get(d.get("kind"))
				if res is None:
					continue
				m = d.setdefault("metadata", {})
				if KINDS[res]["namespaced"]:
					m.setdefault("namespace", "default")
				m.setdefault("uid", new_uid())
				if "resourceVersion" not in m:
					top += 1
					m["resourceVersion"] = None
				self.objs[res][obj_key(res, d)] = Obj(d)
			for res in KINDS:
				for o in self.objs[res].values():
					rv = o.d["metadata"]["resourceVersion"]
					if rv is not None:
						top = max(top, int(rv))
			self.rv = max(self.rv, top + 1)
			for res in KINDS:
				for o in self.objs[res].values():
					if o.d["metadata"]["resourceVersion"] is None:
						o.d["metadata"]["resourceVersion"] = str(self.next_rv())
			self.compacted = self.rv
			self.sorted = {k: None for k in KINDS}
			self.pages = {}

	def next_rv(self):
		self.rv += 1
		return self.rv

	def keys(self, res):
		if self.sorted[res] is None:
			self.sorted[res] = sorted(self.objs[res])
		return self.sorted[res]

	def get(self, res, key):
		with self.lock:
			return self.objs[res].get(key)

	def put(self, res, d, dry_run=False):
		"""Stores d (a new dict) with a new resourceVersion; emits ADDED or MODIFIED."""
		with self.lock:
			key = obj_key(res, d)
			prev = self.objs[res].get(key)
			if dry_run:
				return Obj(d)
			d["metadata"]["resourceVersion"] = str(self.next_rv())
			o = Obj(d)
			self.objs[res][key] = o
			if prev is None:
				self.sorted[res] = None
			self._event("ADDED" if prev is None else "MODIFIED", res, o, prev)
			return o

	def remove(self, res, key):
		with self.lock:
			prev = self.objs[res].pop(key, None)
			if prev is None:
				return None
			self.sorted[res] = None
			d = copy.deepcopy(prev.d)
			d["metadata"]["resourceVersion"] = str(self.next_rv())
			o = Obj(d)
			self._event("DELETED", res, o, prev)
			return o

	def _event(self, etype, res, o, prev):
		self.pages = {}
		self.history.append((self.rv, etype, res, o, prev))
		if len(self.history) > self.window:
			drop = len(self.history) - self.window
			self.compacted = self.history[drop - 1][0]
			del self.history[:drop]
			self.hist_base += drop
		self.cond.notify_all()


# ---------------------------------------------------------------------------------------------------------
# Scenario loading (a directory, or a generator spec "gen:key=value,...")


def load_scenario(spec):
	"""Returns (objects, config) for a scenario directory or a generator spec."""
	if spec.startswith("gen:"):
		import mkfixtures
		return mkfixtures.generate(spec[4:])
	objects = []
	config = {}
	if not os.path.isdir(spec):
		raise SystemExit("fakeapi: scenario %s: not a directory" % spec)
	for root, dirs, files in os.walk(spec):
		dirs.sort()
		for f in sorted(files):
			if not f.endswith(".json"):
				continue
			p = os.path.join(root, f)
			with open(p, encoding="utf-8") as fh:
				d = json.load(fh)
			if f == "scenario.json" and root == spec:
				config = d
				continue
			kind = d.get("kind", "")
			if kind.endswith("List"):
				item_kind = kind[:-4]
				api = d.get("apiVersion", "v1")
				for it in d.get("items", []):
					objects.append(dict({"kind": item_kind, "apiVersion": api}, **it))
			else:
				objects.append(d)
	return objects, config


# ---------------------------------------------------------------------------------------------------------
# Users and permissions


DEFAULT_USERS = {
	"admin": {"groups": ["system:masters", "system:authenticated"], "rules": [{"verbs": ["*"], "resources": ["*"]}]},
	"viewer": {"groups": ["system:authenticated"],
		"rules": [{"verbs": ["get", "list", "watch"], "resources": ["nodes", "pods"]}]},
	"nobody": {"groups": ["system:authenticated"], "rules": []},
}


def rule_allows(rule, verb, resource, ns):
	verbs = rule.get("verbs", [])
	res = rule.get("resources", [])
	if "*" not in verbs and verb not in verbs:
		return False
	if "*" not in res and resource not in res:
		return False
	namespaces = rule.get("namespaces")
	if namespaces is not None and (ns is None or ns not in namespaces):
		return False
	return True


# ---------------------------------------------------------------------------------------------------------
# The server


class Settings:
	def __init__(self, args):
		self.ds_ready_delay = args.ds_ready_delay
		self.never_ready_nodes = set()
		self.eviction_blocked = set()
		self.continue_ttl = args.continue_ttl
		self.delete_grace = args.delete_grace
		self.bookmark_interval = args.bookmark_interval

	def update(self, d):
		for k, v in d.items():
			if k in ("never_ready_nodes", "eviction_blocked"):
				setattr(self, k, set(v or ()))
			elif k in ("ds_ready_delay", "continue_ttl", "delete_grace", "bookmark_interval"):
				setattr(self, k, None if v is None else float(v))
			else:
				raise ValueError("unknown setting %s" % k)

	def as_dict(self):
		return {"ds_ready_delay": self.ds_ready_delay, "never_ready_nodes": sorted(self.never_ready_nodes),
			"eviction_blocked": sorted(self.eviction_blocked), "continue_ttl": self.continue_ttl,
			"delete_grace": self.delete_grace, "bookmark_interval": self.bookmark_interval}


class FakeAPI:
	def __init__(self, args):
		self.args = args
		self.store = Store(args.watch_window)
		self.log = []
		self.log_lock = threading.Lock()
		self.faults = []
		self.fault_lock = threading.RLock()
		self.fault_seq = 0
		self.tokens_issued = {}
		self.stopping = False
		self.open_watches = 0
		self.objects, self.config = load_scenario(args.scenario)
		self.hostile = set(m for m in (args.hostile or "").split(",") if m)
		for m in self.hostile:
			if m not in HOSTILE_MODES:
				raise SystemExit("fakeapi: unknown hostile mode %s (one of %s)" % (m, ", ".join(HOSTILE_MODES)))
		if "text" in self.hostile:
			self.objects = hostile_objects(self.objects, HOSTILE_TEXT)
		if "badutf8" in self.hostile:
			self.objects = hostile_objects(self.objects, HOSTILE_BAD_UTF8)
		if "huge" in self.hostile:
			nodes = [d for d in self.objects if d.get("kind") == "Node"]
			if nodes:
				big = copy.deepcopy(nodes[0])
				big["metadata"].setdefault("annotations", {})["example.com/huge"] = HUGE_PLACEHOLDER
				self.objects = [big if d is nodes[0] else d for d in self.objects]
		self.users = copy.deepcopy(DEFAULT_USERS)
		self.services = {}  # "NS/NAME:PORT" -> upstream base URL, for the service proxy
		for name, u in self.config.get("users", {}).items():
			self.users[name] = dict({"groups": ["system:authenticated"], "rules": []}, **u)
		self.tokens = {}
		self.reset()

	def reset(self):
		self.settings = Settings(self.args)
		self.settings.update(self.config.get("settings", {}))
		self.store.clear(1)
		# Stored objects are never changed in place (every change stores a new dict), so the loaded
		# dicts can be shared between resets.
		self.store.load(self.objects)
		if "huge" in self.hostile:
			for o in self.store.objs["nodes"].values():
				if HUGE_PLACEHOLDER in ((o.d.get("metadata") or {}).get("annotations") or {}).values():
					o._item = o.item().replace(HUGE_PLACEHOLDER.encode(), b"h" * HUGE_BYTES)
		with self.log_lock:
			self.log = []
		with self.fault_lock:
			self.faults = []
			for f in self.config.get("faults", []):
				self.add_fault(f)
		self.tokens_issued = {}

	def add_fault(self, f):
		if not isinstance(f, dict) or not isinstance(f.get("fault"), dict) or "type" not in f["fault"]:
			raise ValueError("a fault needs {\"fault\":{\"type\":...}}")
		if f["fault"]["type"] not in ("status", "reset", "truncate", "malformed", "html", "delay", "drip",
				"expire_continue", "warning"):
			raise ValueError("unknown fault type %s" % f["fault"]["type"])
		with self.fault_lock:
			self.fault_seq += 1
			times = f.get("times", 1)
			self.faults.append({"id": self.fault_seq, "match": f.get("match") or {}, "fault": f["fault"],
				"remaining": None if times is None or times <= 0 else int(times)})
			return self.fault_seq

	def take_fault(self, method, path, raw_query, has_continue):
		with self.fault_lock:
			for f in self.faults:
				m = f["match"]
				if m.get("method") and m["method"].upper() != method:
					continue
				if m.get("path_prefix") and not path.startswith(m["path_prefix"]):
					continue
				qc = m.get("query_contains")
				if qc and qc not in raw_query and qc not in urllib.parse.unquote_plus(raw_query):
					continue
				if f["fault"]["type"] == "expire_continue" and not has_continue:
					continue
				if f["remaining"] is not None:
					f["remaining"] -= 1
					if f["remaining"] <= 0:
						self.faults.remove(f)
				return f["fault"]
		return None

	def record(self, entry):
		with self.log_lock:
			self.log.append(entry)

	# -- deferred work (graceful deletion, the DaemonSet controller) -------------------------------------

	def later(self, delay, fn, *a):
		gen = self.store.generation

		def run():
			if self.stopping or self.store.generation != gen:
				return
			fn(*a)
		t = threading.Timer(max(0.0, delay), run)
		t.daemon = True
		t.start()

	def finish_delete(self, key, uid):
		st = self.store
		with st.lock:
			cur = st.objs["pods"].get(key)
			if cur is None or cur.d["metadata"].get("uid") != uid:
				return
			gone = st.remove("pods", key)
			self.ds_replace(gone.d)

	def ds_replace(self, old):
		"""The DaemonSet controller: a deleted pod owned by a DaemonSet comes back on the same node."""
		st = self.store
		m = old.get("metadata", {})
		ctl = next((r for r in m.get("ownerReferences", []) if r.get("controller") and r.get("kind") == "DaemonSet"),
			None)
		node = old.get("spec", {}).get("nodeName")
		if ctl is None or not node:
			return
		ns = m.get("namespace", "default")
		ds = st.objs["daemonsets"].get("%s/%s" % (ns, ctl.get("name")))
		if ds is None or ds.d["metadata"].get("uid") != ctl.get("uid"):
			return
		ts = now_rfc3339()
		d = copy.deepcopy(old)
		nm = d["metadata"]
		while True:
			name = "%s-%s" % (ctl["name"], random_suffix())
			if "%s/%s" % (ns, name) not in st.objs["pods"]:
				break
		nm["name"] = name
		nm["generateName"] = ctl["name"] + "-"
		nm["uid"] = new_uid()
		nm["creationTimestamp"] = ts
		nm.pop("deletionTimestamp", None)
		nm.pop("deletionGracePeriodSeconds", None)
		for mf in nm.get("managedFields", []):
			mf["time"] = ts
		if d.get("spec", {}).get("hostname") == m.get("name"):
			d["spec"].pop("hostname", None)
		containers = [c.get("name") for c in d.get("spec", {}).get("containers", [])]
		old_status = old.get("status", {})
		d["status"] = {
			"phase": "Pending",
			"conditions": [
				{"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": ts},
				{"type": "Ready", "status": "False", "lastProbeTime": None, "lastTransitionTime": ts,
					"reason": "ContainersNotReady", "message": "containers with unready status: [%s]" % " ".join(containers)},
				{"type": "ContainersReady", "status": "False", "lastProbeTime": None, "lastTransitionTime": ts,
					"reason": "ContainersNotReady", "message": "containers with unready status: [%s]" % " ".join(containers)},
				{"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": ts},
			],
			"hostIP": old_status.get("hostIP", ""),
			"startTime": ts,
			"containerStatuses": [{"name": c.get("name"), "state": {"waiting": {"reason": "ContainerCreating"}},
				"lastState": {}, "ready": False, "restartCount": 0, "image": c.get("image", ""), "imageID": "",
				"started": False} for c in d.get("spec", {}).get("containers", [])],
			"qosClass": old_status.get("qosClass", "BestEffort"),
		}
		if not d["status"]["hostIP"]:
			del d["status"]["hostIP"]
		st.put("pods", d)
		if node not in self.settings.never_ready_nodes:
			self.later(self.settings.ds_ready_delay, self.make_ready, "%s/%s" % (ns, name), nm["uid"],
				old_status.get("podIP") or old_status.get("hostIP"))

	def make_ready(self, key, uid, ip):
		st = self.store
		with st.lock:
			cur = st.objs["pods"].get(key)
			if cur is None or cur.d["metadata"].get("uid") != uid:
				return
			if cur.d.get("spec", {}).get("nodeName") in self.settings.never_ready_nodes:
				return
			d = copy.deepcopy(cur.d)
			ts = now_rfc3339()
			s = d["status"]
			s["phase"] = "Running"
			for c in s.get("conditions", []):
				c["status"] = "True"
				c["lastTransitionTime"] = ts
				c.pop("reason", None)
				c.pop("message", None)
			if ip:
				s["podIP"] = ip
				s["podIPs"] = [{"ip": ip}]
			for cs in s.get("containerStatuses", []):
				cs["state"] = {"running": {"startedAt": ts}}
				cs["ready"] = True
				cs["started"] = True
				cs["containerID"] = "containerd://" + secrets.token_hex(32)
			st.put("pods", d)


# ---------------------------------------------------------------------------------------------------------
# HTTP


class Abort(Exception):
	"""The connection was deliberately broken (reset or truncate fault)."""


PROXY_RE = re.compile(r"^/api/v1/namespaces/([^/]+)/services/([^/]+)/proxy(/.*)?$")
ROUTE_RE = re.compile(r"^/(?:api/v1|apis/apps/v1)(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?(?:/([^/]+))?/?$")


class Handler(http.server.BaseHTTPRequestHandler):
	protocol_version = "HTTP/1.1"
	server_version = "fakeapi"
	sys_version = ""

	def log_message(self, fmt, *args):
		pass

	def setup(self):
		super().setup()
		self.plain = not isinstance(self.request, ssl.SSLSocket)

	def finish(self):
		try:
			super().finish()
		except (OSError, ValueError):
			pass

	@property
	def api(self):
		return self.server.api

	# -- low level output --------------------------------------------------------------------------------

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
			e = ApiError(e.code, e.reason + bad, e.message + bad, e.details, e.metadata, e.headers)
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

	# -- request handling --------------------------------------------------------------------------------

	def read_body(self):
		te = self.headers.get("Transfer-Encoding", "")
		if "chunked" in te.lower():
			parts = []
			while True:
				line = self.rfile.readline(65537)
				size = int(line.split(b";")[0].strip() or b"0", 16)
				if size == 0:
					while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
						pass
					break
				parts.append(self.rfile.read(size))
				self.rfile.readline(65537)
			return b"".join(parts)
		n = int(self.headers.get("Content-Length") or 0)
		return self.rfile.read(n) if n > 0 else b""

	def do_GET(self):
		self.dispatch()

	def do_POST(self):
		self.dispatch()

	def do_PATCH(self):
		self.dispatch()

	def do_DELETE(self):
		self.dispatch()

	def do_PUT(self):
		self.dispatch()

	def dispatch(self):
		self.user = None
		self.fault = None
		self.resp_code = None
		self.accept_gzip = False
		body = self.read_body()
		parsed = urllib.parse.urlsplit(self.path)
		path = parsed.path
		raw_query = parsed.query
		self.raw_query = raw_query
		query = {}
		for k, v in urllib.parse.parse_qsl(raw_query, keep_blank_values=True):
			if k in query:
				query[k] = query[k] + [v] if isinstance(query[k], list) else [query[k], v]
			else:
				query[k] = v
		try:
			if path.startswith("/_fake/"):
				return self.control(path, query, body)
			if self.plain:
				self.respond(400, b"Client sent an HTTP request to an HTTPS server.\n",
					[("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")])
				self.close_connection = True
				return
			entry = {"method": self.command, "path": path, "query": query, "headers": self.header_dict(),
				"body": body.decode("utf-8", "replace") if body else None, "user": None, "groups": None,
				"time": time.time()}
			self.entry = entry
			try:
				self.serve_api(path, query, raw_query, body, entry)
			finally:
				entry["status"] = self.resp_code
				self.api.record(entry)
		except Abort:
			pass
		except (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError):
			self.close_connection = True
		except Exception:  # a bug here must show, not look like a network fault to the client under test
			traceback.print_exc(file=sys.stderr)
			self.close_connection = True
			if self.resp_code is None:
				try:
					self.respond(500, jdump(status_dict(500, "InternalError", "fakeapi: internal error")) + b"\n",
						[("Content-Type", "application/json")])
				except OSError:
					pass

	def header_dict(self):
		out = {}
		for k, v in self.headers.items():
			k = k.lower()
			if k in out:
				out[k] = out[k] + [v] if isinstance(out[k], list) else [out[k], v]
			else:
				out[k] = v
		return out

	def authenticate(self, entry):
		"""Returns (user, groups); raises ApiError 401 for unknown credentials."""
		api = self.api
		if not self.plain:
			try:
				cert = self.connection.getpeercert()
			except (ValueError, AttributeError):
				cert = None
			if cert:
				cn, groups = None, []
				for rdn in cert.get("subject", ()):
					for k, v in rdn:
						if k == "commonName":
							cn = v
						elif k == "organizationName":
							groups.append(v)
				if cn:
					entry["auth"] = "certificate"
					return cn, groups + ["system:authenticated"]
		authz = self.headers.get("Authorization")
		if authz:
			entry["auth"] = "token"
			parts = authz.split(None, 1)
			if len(parts) == 2 and parts[0].lower() == "bearer" and parts[1].strip() in api.tokens:
				name = api.tokens[parts[1].strip()]
				return name, list(api.users.get(name, {}).get("groups", ["system:authenticated"]))
			raise ApiError(401, "Unauthorized", "Unauthorized")
		entry["auth"] = "none"
		return "system:anonymous", ["system:unauthenticated"]

	def allowed(self, user, groups, verb, resource, ns):
		if "system:masters" in groups:
			return True
		u = self.api.users.get(user)
		if u is None:
			return False
		return any(rule_allows(r, verb, resource, ns) for r in u.get("rules", []))

	def authorize(self, user, groups, verb, resource, group, ns, name):
		if self.allowed(user, groups, verb, resource, ns):
			return
		base = resource.split("/")[0]
		subject = '%s "%s"' % (base, name) if name else base
		scope = 'in the namespace "%s"' % ns if ns else "at the cluster scope"
		msg = '%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s' % (
			subject, user, verb, resource, group, scope)
		details = {"name": name, "kind": base} if name else {"kind": base}
		if group:
			details["group"] = group
		raise ApiError(403, "Forbidden", msg, details)

	def serve_api(self, path, query, raw_query, body, entry):
		api = self.api
		# Like the API server: protobuf for the core kinds (and their errors) when the client
		# lists it in Accept.  The hostile modes are built on the JSON documents, so a hostile
		# server answers in JSON, which a client asking for protobuf must take too.
		self.want_pb = PB_TYPE in (self.headers.get("Accept") or "") and not api.hostile
		try:
			user, groups = self.authenticate(entry)
			entry["user"], entry["groups"] = user, groups
			self.user = user
			imp_user = self.headers.get("Impersonate-User")
			imp_groups = self.headers.get_all("Impersonate-Group") or []
			if imp_user or imp_groups:
				if not self.allowed(user, groups, "impersonate", "users", None):
					raise ApiError(403, "Forbidden", 'users "%s" is forbidden: User "%s" cannot impersonate resource '
						'"users" in API group "" at the cluster scope' % (imp_user or "", user),
						{"name": imp_user or "", "kind": "users"})
				entry["impersonated_user"] = imp_user
				entry["impersonated_groups"] = imp_groups
				user = imp_user or user
				groups = list(imp_groups) + ["system:authenticated"]
				if user in api.users and not imp_groups:
					groups = list(api.users[user].get("groups", [])) + groups
				entry["effective_user"] = user
			self.accept_gzip = "gzip" in (self.headers.get("Accept-Encoding") or "").lower()
			fault = api.take_fault(self.command, path, raw_query, "continue" in query)
			if fault:
				entry["fault"] = fault["type"]
				ftype = fault["type"]
				if ftype == "delay":
					time.sleep(float(fault.get("seconds", 1)))
				elif ftype == "status":
					self.fault_status(fault)
					return
				elif ftype == "html":
					code = int(fault.get("code", 502))
					page = HTML_PAGE.format(code=code).encode()
					self.respond(code, page, [("Content-Type", "text/html"), ("Connection", "close")])
					self.close_connection = True
					return
				else:
					self.fault = fault
			self.route(path, query, body, user, groups, entry)
		except ApiError as e:
			self.respond_error(e)

	def fault_status(self, fault):
		code = int(fault.get("code", 500))
		ra = fault.get("retry_after")
		extra = [("Retry-After", str(ra))] if ra is not None else []
		if code == 429:
			details = {"retryAfterSeconds": int(ra)} if ra is not None else {}
			e = ApiError(429, "TooManyRequests", "Too many requests, please try again later.", details, headers=extra)
		elif code == 503:
			e = ApiError(503, "ServiceUnavailable", "the server is currently unable to handle the request",
				{"retryAfterSeconds": int(ra)} if ra is not None else {}, headers=extra)
		elif code == 504:
			e = ApiError(504, "Timeout", "the server was unable to return a response in the time allotted, but may "
				"still be processing the request", {}, headers=extra)
		else:
			e = ApiError(code, "InternalError", "Internal error occurred: injected fault",
				{"causes": [{"message": "injected fault"}]}, headers=extra)
		self.respond_error(e)

	def namespaces(self, method, name, sub, user, groups):
		"""Namespaces, read only: those the scenario's objects are in and the four every cluster has."""
		if sub is not None:
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		if method != "GET":
			raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})
		self.authorize(user, groups, "get" if name else "list", "namespaces", "", None, name)
		st = self.api.store
		with st.lock:
			names = set(SYSTEM_NAMESPACES)
			for res in KINDS:
				if KINDS[res]["namespaced"]:
					names.update(o.d["metadata"]["namespace"] for o in st.objs[res].values())
			rv = str(st.rv)

		def ns_item(n):
			return {"metadata": {"name": n, "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, "namespace/" + n)),
				"resourceVersion": rv, "creationTimestamp": "2026-11-21T16:12:40Z",
				"labels": {"kubernetes.io/metadata.name": n}},
				"spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
		if name:
			if name not in names:
				raise not_found("namespaces", name)
			d = dict({"kind": "Namespace", "apiVersion": "v1"}, **ns_item(name))
			self.respond(200, jdump(d) + b"\n", chunked=True)
			return
		d = {"kind": "NamespaceList", "apiVersion": "v1", "metadata": {"resourceVersion": rv},
			"items": [ns_item(n) for n in sorted(names)]}
		self.respond(200, jdump(d) + b"\n", chunked=True)

	def route(self, path, query, body, user, groups, entry):
		method = self.command
		if path == "/version" or path == "/version/":
			if method != "GET":
				raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
					{})
			self.respond(200, VERSION_BODY)
			return
		if path in ("/api", "/api/", "/apis", "/apis/", "/api/v1", "/apis/apps/v1", "/healthz", "/readyz", "/livez"):
			self.discovery(path)
			return
		m = PROXY_RE.match(path)
		if m:
			self.service_proxy(m.group(1), m.group(2), m.group(3) or "/", body, user, groups)
			return
		m = ROUTE_RE.match(path)
		if not m:
			if user == "system:anonymous":
				raise ApiError(403, "Forbidden", 'forbidden: User "system:anonymous" cannot %s path "%s"' % (
					method.lower(), path), {})
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		ns, resource, name, sub = m.groups()
		# path segments arrive percent-encoded, as the API server reads them
		ns = urllib.parse.unquote(ns) if ns is not None else None
		name = urllib.parse.unquote(name) if name is not None else None
		apps = path.startswith("/apis/apps/")
		if resource == "namespaces" and ns is None:
			self.namespaces(method, name, sub, user, groups)
			return
		if resource not in KINDS or (KINDS[resource]["group"] == "apps") != apps or \
				(ns is not None and not KINDS[resource]["namespaced"]):
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		info = KINDS[resource]
		group = info["group"]
		if sub is not None and not (resource == "pods" and sub == "eviction"):
			raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
		if name is None:
			if method != "GET":
				raise ApiError(405, "MethodNotAllowed",
					"the server does not allow this method on the requested resource", {})
			watch = str(query.get("watch", "")).lower() in ("1", "true")
			verb = "watch" if watch else "list"
			self.authorize(user, groups, verb, resource, group, ns, None)
			check_resource_version(query)
			if watch:
				with self.api.store.lock:
					self.api.open_watches += 1
				try:
					self.watch(resource, ns, query)
				finally:
					with self.api.store.lock:
						self.api.open_watches -= 1
			else:
				self.list(resource, ns, query)
			return
		if sub == "eviction":
			if method != "POST":
				raise ApiError(405, "MethodNotAllowed",
					"the server does not allow this method on the requested resource", {})
			self.authorize(user, groups, "create", "pods/eviction", group, ns, name)
			self.evict(ns, name, body)
			return
		if method == "GET":
			self.authorize(user, groups, "get", resource, group, ns, name)
			check_resource_version(query)
			o = self.api.store.get(resource, "%s/%s" % (ns, name) if ns else name)
			if o is None:
				raise not_found(resource, name)
			self.respond(200, o.full() + b"\n", chunked=True)
		elif method == "PATCH":
			self.authorize(user, groups, "patch", resource, group, ns, name)
			self.patch(resource, ns, name, query, body)
		elif method == "DELETE":
			self.authorize(user, groups, "delete", resource, group, ns, name)
			self.delete(resource, ns, name, query, body)
		else:
			raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
				{})

	def service_proxy(self, ns, svc, sub, body, user, groups):
		"""The API server's service proxy: /api/v1/namespaces/NS/services/[SCHEME:]NAME[:PORT]/proxy/PATH,
		forwarded to the upstream registered for that service (POST /_fake/services), without the caller's
		credentials, as kube-apiserver does."""
		parts = svc.split(":")
		if len(parts) == 3:
			parts = parts[1:]
		name = parts[0]
		verb = {"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(
			self.command, "get")
		self.authorize(user, groups, verb, "services/proxy", "", ns, name)
		upstream = self.api.services.get("%s/%s" % (ns, ":".join(parts)))
		if upstream is None and len(parts) == 1:
			upstream = next((u for k, u in self.api.services.items() if k.startswith("%s/%s:" % (ns, name))), None)
		if upstream is None:
			raise not_found("services", name)
		url = upstream.rstrip("/") + sub + ("?" + self.raw_query if self.raw_query else "")
		req = urllib.request.Request(url, data=body if self.command != "GET" else None, method=self.command,
			headers={"Accept": self.headers.get("Accept") or "*/*"})
		try:
			# loopback upstreams only: never through an environment proxy
			with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=60) as r:
				code, ctype, payload = r.status, r.headers.get("Content-Type"), r.read()
		except urllib.error.HTTPError as e:
			code, ctype, payload = e.code, e.headers.get("Content-Type"), e.read()
		except (OSError, urllib.error.URLError) as e:
			reason = getattr(e, "reason", e)
			raise ApiError(503, "ServiceUnavailable", "error trying to reach service: %s" % reason, {}) from None
		self.respond(code, payload, [("Content-Type", ctype or "application/octet-stream")])

	def discovery(self, path):
		port = self.server.server_address[1]
		p = path.rstrip("/")
		if p in ("/healthz", "/readyz", "/livez"):
			self.respond(200, b"ok", [("Content-Type", "text/plain; charset=utf-8"),
				("X-Content-Type-Options", "nosniff")])
			return
		if p == "/api":
			d = {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
				{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:%d" % port}]}
		elif p == "/apis":
			d = {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{"name": "apps", "versions": [
				{"groupVersion": "apps/v1", "version": "v1"}], "preferredVersion": {"groupVersion": "apps/v1",
				"version": "v1"}}]}
		elif p == "/api/v1":
			d = {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
				{"name": "nodes", "singularName": "", "namespaced": False, "kind": "Node",
					"verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
					"shortNames": ["no"]},
				{"name": "pods", "singularName": "", "namespaced": True, "kind": "Pod",
					"verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
					"shortNames": ["po"], "categories": ["all"]},
				{"name": "pods/eviction", "singularName": "", "namespaced": True, "group": "policy", "version": "v1",
					"kind": "Eviction", "verbs": ["create"]}]}
		else:
			d = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apps/v1", "resources": [
				{"name": "daemonsets", "singularName": "", "namespaced": True, "kind": "DaemonSet",
					"verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
					"shortNames": ["ds"], "categories": ["all"]}]}
		self.respond(200, jdump(d) + b"\n")

	# -- list ----------------------------------------------------------------------------------------------

	def selectors(self, resource, query):
		ls = query.get("labelSelector")
		fs = query.get("fieldSelector")
		if isinstance(ls, list):
			ls = ",".join(ls)
		if isinstance(fs, list):
			fs = ",".join(fs)
		try:
			lreq = parse_label_selector(ls)
			freq = parse_field_selector(fs, resource)
		except SelectorError as e:
			raise ApiError(400, "BadRequest", str(e)) from None
		return ls or "", fs or "", lreq, freq

	def list(self, resource, ns, query):
		api = self.api
		st = api.store
		ls, fs, lreq, freq = self.selectors(resource, query)
		limit = query.get("limit")
		try:
			limit = int(limit) if limit not in (None, "") else 0
		except ValueError:
			raise ApiError(400, "BadRequest", 'strconv.ParseInt: parsing "%s": invalid syntax' % limit) from None
		cont = query.get("continue") or ""
		if ("repeat-continue" in api.hostile or "endless" in api.hostile):
			return self.hostile_page(resource, ns, lreq, freq, limit or 500, cont)
		if query.get("resourceVersion") == "0" and not cont:
			# served from the watch cache: the whole list, whatever the limit
			limit = 0
		fmt = "pb" if self.want_pb and kpb.encodable(KINDS[resource]["kind"]) else "json"
		start = ""
		token_rv = None
		if cont:
			# The real server's wording: "invalid continue token: " around storage.DecodeContinue's error.
			bad = "invalid continue token: continue key is not valid: "
			try:
				tok = json.loads(base64.urlsafe_b64decode(cont + "=" * (-len(cont) % 4)))
				if not isinstance(tok, dict):
					raise ValueError
			except (ValueError, TypeError):
				raise ApiError(400, "BadRequest", bad + "invalid character looking for beginning of value") from None
			if tok.get("v") != "meta.k8s.io/v1":
				raise ApiError(400, "BadRequest", bad + "server does not recognize this encoded version %s" %
					tok.get("v", ""))
			try:
				start = tok["start"]
				token_rv = int(tok["rv"])
				if token_rv <= 0 or not isinstance(start, str):
					raise ValueError
			except (ValueError, KeyError, TypeError):
				raise ApiError(400, "BadRequest", bad + "incorrect encoded start resourceVersion "
					"(version meta.k8s.io/v1)") from None
			expired = self.fault is not None and self.fault["type"] == "expire_continue"
			ttl = api.settings.continue_ttl
			issued = api.tokens_issued.get(cont)
			if ttl is not None and issued is not None and time.monotonic() - issued > ttl:
				expired = True
			if 0 <= token_rv < st.compacted:
				# A token from before the last reset or compaction cannot be served consistently.
				expired = True
			if expired:
				self.fault = None
				newtok = self.make_token(-1, start)
				raise ApiError(410, "Expired", CONTINUE_EXPIRED_MSG, metadata={"continue": newtok})
		key = (resource, ns, ls, fs, limit, cont, fmt)
		with st.lock:
			page = st.pages.get(key)
			if page is None:
				page = self.render_page(resource, ns, lreq, freq, bool(ls or fs), limit, start, token_rv, fmt)
				st.pages[key] = page
		body, next_tok, gz_cell = page
		if next_tok:
			api.tokens_issued.setdefault(next_tok, time.monotonic())
		gz = None
		if self.accept_gzip and len(body) > GZIP_MIN and not self.fault:
			with st.lock:
				if gz_cell[0] is None:
					gz_cell[0] = gzip.compress(body, 1)
				gz = gz_cell[0]
		self.respond(200, body, self.base_headers(PB_TYPE) if fmt == "pb" else None, chunked=True, gz=gz)

	def hostile_page(self, resource, ns, lreq, freq, limit, cont):
		"""A page of a list that never ends: the same token again (repeat-continue), or new objects under a
		new token each time (endless)."""
		st = self.api.store
		info = KINDS[resource]
		with st.lock:
			objs = [st.objs[resource][k] for k in st.keys(resource)]
			rv = st.rv
		objs = [o for o in objs if (not ns or o.d.get("metadata", {}).get("namespace") == ns) and
			(not lreq or label_match(lreq, o.d.get("metadata", {}).get("labels") or {})) and
			(not freq or field_match(freq, o.d))]
		if "repeat-continue" in self.api.hostile:
			items = [o.item() for o in objs[:limit]]
			token = "aG9zdGlsZS1yZXBlYXQ"
		else:
			n = int(cont[len("endless-"):]) if cont.startswith("endless-") and cont[8:].isdigit() else 0
			items = []
			for i in range(limit if objs else 0):
				o = objs[i % len(objs)]
				name = o.d.get("metadata", {}).get("name", "x")
				# the stored bytes with a new name: fast enough that the client's budget, not this server,
				# is what ends the list
				old = b'"name":' + jdump(name)
				items.append(o.item().replace(old, b'"name":' + jdump("%s-endless-%d" % (name, n + i)), 1))
			token = "endless-%d" % (n + limit)
		head = jdump({"kind": info["list"], "apiVersion": info["apiVersion"],
			"metadata": {"resourceVersion": str(rv), "continue": token}})
		body = head[:-1] + b',"items":[' + b",".join(items) + b"]}"
		self.respond(200, body, chunked=True)

	def make_token(self, rv, start):
		raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"))
		return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

	def render_page(self, resource, ns, lreq, freq, selected, limit, start, token_rv, fmt="json"):
		"""Renders one list page; called with the store lock held."""
		st = self.api.store
		info = KINDS[resource]
		keys = st.keys(resource)
		objs = st.objs[resource]
		if token_rv is not None and token_rv > 0 and st.history and st.history[-1][0] > token_rv:
			# A continued list shows the state at the token's resourceVersion, like etcd's MVCC read:
			# undo the later events (the token would have expired had they left the history).
			objs = dict(objs)
			for erv, etype, eres, o, prev in reversed(st.history):
				if erv <= token_rv:
					break
				if eres != resource:
					continue
				k = obj_key(resource, o.d)
				if etype == "ADDED":
					objs.pop(k, None)
				else:
					objs[k] = prev
			keys = sorted(objs)
		prefix = ns + "/" if ns else ""
		lo = bisect.bisect_left(keys, prefix + start) if (prefix or start) else 0
		hi = bisect.bisect_left(keys, ns + "0") if ns else len(keys)  # "0" sorts right after "/"
		items = []
		last = None
		more = False
		i = lo
		while i < hi:
			k = keys[i]
			o = objs[k]
			if (not lreq or label_match(lreq, o.d.get("metadata", {}).get("labels") or {})) and \
					(not freq or field_match(freq, o.d)):
				if limit and len(items) >= limit:
					more = True
					break
				items.append(o.pb() if fmt == "pb" else o.item())
				last = k
			i += 1
		list_rv = token_rv if token_rv is not None and token_rv > 0 else st.rv
		meta = {"resourceVersion": str(list_rv)}
		next_tok = None
		if more:
			rel = last[len(prefix):] if prefix else last
			next_tok = self.make_token(list_rv, rel + "\x00")
			meta["continue"] = next_tok
			if not selected:
				meta["remainingItemCount"] = hi - i
		if fmt == "pb":
			return kpb.list_body(info["apiVersion"], info["list"], meta, items), next_tok, [None]
		head = jdump({"kind": info["list"], "apiVersion": info["apiVersion"], "metadata": meta})
		body = head[:-1] + b',"items":[' + b",".join(items) + b"]}\n"
		return body, next_tok, [None]

	# -- watch ---------------------------------------------------------------------------------------------

	def watch(self, resource, ns, query):
		api = self.api
		st = api.store
		_ls, _fs, lreq, freq = self.selectors(resource, query)
		bookmarks = str(query.get("allowWatchBookmarks", "")).lower() in ("1", "true")
		try:
			timeout = float(query["timeoutSeconds"]) if query.get("timeoutSeconds") not in (None, "") else None
		except ValueError:
			raise ApiError(400, "BadRequest", "invalid timeoutSeconds") from None
		rv_param = query.get("resourceVersion") or ""
		info = KINDS[resource]

		def matches(o):
			if o is None:
				return False
			m = o.d.get("metadata", {})
			if ns and m.get("namespace") != ns:
				return False
			return (not lreq or label_match(lreq, m.get("labels") or {})) and (not freq or field_match(freq, o.d))

		pb = self.want_pb and kpb.encodable(info["kind"])

		def ev(t, o):
			if pb:
				return kpb.watch_frame(t, info["kind"], o.d)
			return b'{"type":"' + t.encode() + b'","object":' + o.full() + b"}\n"

		initial = []
		too_old = None
		with st.lock:
			gen = st.generation
			if rv_param in ("", "0"):
				for k in st.keys(resource):
					o = st.objs[resource][k]
					if matches(o):
						initial.append(ev("ADDED", o))
				pos = st.hist_base + len(st.history)
			else:
				try:
					rv = int(rv_param)
				except ValueError:
					raise bad_resource_version(rv_param) from None
				if rv < st.compacted:
					too_old = rv
				pos = st.hist_base
				while pos - st.hist_base < len(st.history) and st.history[pos - st.hist_base][0] <= rv:
					pos += 1
			h = self.base_headers(PB_TYPE + ";stream=watch" if pb else "application/json")
			h.append(("Transfer-Encoding", "chunked"))
			last_rv = st.rv
			compacted = st.compacted
		self._head(200, h)

		def send(data):
			if self.fault and self.fault["type"] in ("truncate", "reset"):
				self.wfile.write(b"%x\r\n" % len(data) + data[:len(data) // 2])
				self._break(self.fault["type"])
			if self.fault and self.fault["type"] == "malformed":
				data = data[:len(data) // 2] + b"\n"
			self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")

		if too_old is not None:
			st410 = status_dict(410, "Expired", "too old resource version: %d (%d)" % (too_old, compacted))
			send(kpb.watch_frame("ERROR", None, st410) if pb else b'{"type":"ERROR","object":' + jdump(st410) + b"}\n")
			self.wfile.write(b"0\r\n\r\n")
			return
		for data in initial:
			send(data)
		if "watch-backwards" in api.hostile:
			stale = self.backwards_events(resource, matches)
			if stale:
				send(stale)
		deadline = time.monotonic() + timeout if timeout is not None else None
		interval = api.settings.bookmark_interval or 1.0
		next_bm = time.monotonic() + interval
		while True:
			out = []
			with st.lock:
				while True:
					if api.stopping or st.generation != gen:
						break
					if pos - st.hist_base < 0:
						pos = st.hist_base
					if pos - st.hist_base < len(st.history):
						break
					now = time.monotonic()
					wait = min(next_bm - now, 1.0) if bookmarks else 1.0
					if deadline is not None:
						wait = min(wait, deadline - now)
					if wait <= 0:
						break
					if self.client_gone():
						self.close_connection = True
						return
					st.cond.wait(wait)
				if api.stopping or st.generation != gen:
					break
				while pos - st.hist_base < len(st.history):
					erv, etype, eres, o, prev = st.history[pos - st.hist_base]
					pos += 1
					if eres != resource:
						continue
					last_rv = erv
					now_m, prev_m = matches(o), matches(prev)
					if etype == "ADDED" and now_m:
						out.append(ev("ADDED", o))
					elif etype == "DELETED" and prev_m:
						out.append(ev("DELETED", o))
					elif etype == "MODIFIED":
						if now_m and prev_m:
							out.append(ev("MODIFIED", o))
						elif now_m:
							out.append(ev("ADDED", o))
						elif prev_m:
							out.append(ev("DELETED", o))
				cur_rv = st.rv
			for data in out:
				send(data)
			now = time.monotonic()
			final = deadline is not None and now >= deadline
			if bookmarks and (now >= next_bm or final):
				bm = self.bookmark(info, max(cur_rv, last_rv))
				send(kpb.watch_frame("BOOKMARK", info["kind"], bm) if pb else
					b'{"type":"BOOKMARK","object":' + jdump(bm) + b"}\n")
				next_bm = now + interval
			if final:
				break
		self.wfile.write(b"0\r\n\r\n")

	def backwards_events(self, resource, matches):
		"""Events older than any list the client can have seen: every object again at resourceVersion 1 with
		its GPU figures and labels changed, and a node that never existed since."""
		st = self.api.store
		out = []
		with st.lock:
			objs = [st.objs[resource][k] for k in st.keys(resource)]
		for o in objs:
			if not matches(o):
				continue
			d = copy.deepcopy(o.d)
			d["metadata"]["resourceVersion"] = "1"
			d["metadata"].setdefault("labels", {})["example.com/stale"] = "true"
			if resource == "nodes":
				for part in ("capacity", "allocatable"):
					res = (d.get("status") or {}).get(part) or {}
					if "aliyun.com/gpu-mem" in res:
						res["aliyun.com/gpu-mem"] = "999"
			out.append(b'{"type":"MODIFIED","object":' + jdump(d) + b"}\n")
		if resource == "nodes" and objs:
			d = copy.deepcopy(objs[0].d)
			d["metadata"]["name"] = "stale-ghost"
			d["metadata"]["uid"] = str(uuid.uuid4())
			d["metadata"]["resourceVersion"] = "1"
			if matches(Obj(d)):
				out.append(b'{"type":"ADDED","object":' + jdump(d) + b"}\n")
		return b"".join(out)

	def client_gone(self):
		"""True when the peer closed a watch (or sent anything, which a watching HTTP/1.1 client never does)."""
		try:
			data = socket.socket.recv(self.connection, 1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
		except (BlockingIOError, InterruptedError):
			return False
		except OSError:
			return True
		return True  # b"" is EOF; any bytes mean the client is done with this stream

	@staticmethod
	def bookmark(info, rv):
		meta = {"resourceVersion": str(rv), "creationTimestamp": None}
		d = {"kind": info["kind"], "apiVersion": info["apiVersion"], "metadata": meta}
		if info["kind"] == "Pod":
			d["spec"] = {"containers": None}
			d["status"] = {}
		elif info["kind"] == "Node":
			d["spec"] = {}
			d["status"] = {"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}, "nodeInfo": {"machineID": "",
				"systemUUID": "", "bootID": "", "kernelVersion": "", "osImage": "", "containerRuntimeVersion": "",
				"kubeletVersion": "", "kubeProxyVersion": "", "operatingSystem": "", "architecture": ""}}
		else:
			d["spec"] = {"selector": None, "template": {"metadata": {"creationTimestamp": None},
				"spec": {"containers": None}}, "updateStrategy": {}}
			d["status"] = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
				"numberReady": 0}
		return d

	# -- patch ---------------------------------------------------------------------------------------------

	def patch(self, resource, ns, name, query, body):
		api = self.api
		st = api.store
		info = KINDS[resource]
		ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
		if ctype not in ("application/merge-patch+json", "application/strategic-merge-patch+json",
				"application/json-patch+json"):
			raise ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {})
		dry = query.get("dryRun")
		if dry not in (None, "All"):
			raise ApiError(400, "BadRequest", 'Invalid dry run value: "%s"' % dry)
		manager = query.get("fieldManager") or (self.headers.get("User-Agent") or "unknown").split("/")[0]
		try:
			patch = json.loads(body.decode("utf-8")) if body else None
		except (ValueError, UnicodeDecodeError) as e:
			raise ApiError(400, "BadRequest", "error decoding patch: %s" % e) from None
		key = "%s/%s" % (ns, name) if ns else name
		with st.lock:
			cur = st.objs[resource].get(key)
			if cur is None:
				raise not_found(resource, name)
			try:
				if ctype == "application/json-patch+json":
					new = json_patch(cur.d, patch)
				else:
					if not isinstance(patch, dict):
						raise PatchError(400, "BadRequest", "json: cannot unmarshal %s into Go value of type "
							"map[string]interface {}" % type(patch).__name__)
					new = merge_patch(cur.d, patch)
			except PatchError as e:
				raise ApiError(e.code, e.reason, str(e), e.details) from None
			if not isinstance(new, dict) or not isinstance(new.get("metadata"), dict):
				raise ApiError(422, "Invalid", '%s "%s" is invalid: metadata: Required value' % (info["kind"], name))
			new = copy.deepcopy(new)
			meta = new["metadata"]
			want_rv = meta.get("resourceVersion")
			if want_rv is not None and str(want_rv) != cur.d["metadata"]["resourceVersion"]:
				raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the object has been '
					'modified; please apply your changes to the latest version and try again' % (resource, name),
					{"name": name, "kind": resource})
			for fld in ("labels", "annotations"):
				v = meta.get(fld)
				if v is not None and (not isinstance(v, dict) or any(not isinstance(x, str) for x in v.values())):
					raise ApiError(400, "BadRequest", "json: cannot unmarshal into Go struct field ObjectMeta.metadata."
						"%s of type string" % fld)
				if v == {}:
					del meta[fld]
			problems = label_problems(meta.get("labels"))
			if problems:
				msgs = ["metadata.labels: " + p for p in problems]
				text = msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"
				causes = []
				for p in problems:
					# A real API server reports each label problem four times (object and update validation).
					causes.extend([{"reason": "FieldValueInvalid", "message": p, "field": "metadata.labels"}] * 4)
				raise ApiError(422, "Invalid", '%s "%s" is invalid: %s' % (info["kind"], name, text),
					{"name": name, "kind": info["kind"], "causes": causes})
			for fixed in ("name", "namespace", "uid", "creationTimestamp"):
				if fixed in cur.d["metadata"]:
					meta[fixed] = cur.d["metadata"][fixed]
			meta["resourceVersion"] = cur.d["metadata"]["resourceVersion"]
			new["kind"], new["apiVersion"] = info["kind"], info["apiVersion"]
			if self.strip_mf(new) == self.strip_mf(cur.d):
				self.respond(200, cur.full() + b"\n", chunked=True)
				return
			self.update_managed_fields(cur.d, new, manager, info["apiVersion"])
			o = st.put(resource, new, dry_run=(dry == "All"))
			self.respond(200, o.full() + b"\n", chunked=True)

	@staticmethod
	def strip_mf(d):
		m = dict(d.get("metadata", {}))
		m.pop("managedFields", None)
		m.pop("resourceVersion", None)
		return dict(d, metadata=m)

	@staticmethod
	def update_managed_fields(old, new, manager, api_version):
		"""Moves ownership of changed labels and annotations to manager, as server-side tracking does."""
		om, nm = old.get("metadata", {}), new["metadata"]
		mine = {}
		lost = {}
		for fld in ("labels", "annotations"):
			a = om.get(fld) or {}
			b = nm.get(fld) or {}
			mine[fld] = [k for k in b if a.get(k) != b[k]]
			lost[fld] = [k for k in a if k not in b] + mine[fld]
		entries = copy.deepcopy(nm.get("managedFields") or [])
		for e in entries:
			fm = e.get("fieldsV1", {}).get("f:metadata", {})
			for fld in ("labels", "annotations"):
				sub = fm.get("f:" + fld)
				if not isinstance(sub, dict):
					continue
				for k in lost[fld]:
					sub.pop("f:" + k, None)
				if not [x for x in sub if x != "."]:
					fm.pop("f:" + fld, None)
			if "f:metadata" in e.get("fieldsV1", {}) and not e["fieldsV1"]["f:metadata"]:
				del e["fieldsV1"]["f:metadata"]
		entries = [e for e in entries if e.get("fieldsV1")]
		if mine["labels"] or mine["annotations"]:
			ent = next((e for e in entries if e.get("manager") == manager and e.get("operation") == "Update" and
				"subresource" not in e), None)
			if ent is None:
				ent = {"manager": manager, "operation": "Update", "apiVersion": api_version, "time": "",
					"fieldsType": "FieldsV1", "fieldsV1": {}}
				entries.append(ent)
			ent["time"] = now_rfc3339()
			fm = ent["fieldsV1"].setdefault("f:metadata", {})
			for fld in ("labels", "annotations"):
				for k in mine[fld]:
					fm.setdefault("f:" + fld, {})["f:" + k] = {}
		if entries:
			nm["managedFields"] = entries
		else:
			nm.pop("managedFields", None)

	# -- delete and eviction -----------------------------------------------------------------------------

	def parse_delete_options(self, body, query):
		opts = {}
		if body:
			try:
				opts = json.loads(body.decode("utf-8"))
			except (ValueError, UnicodeDecodeError) as e:
				raise ApiError(400, "BadRequest", "error decoding DeleteOptions: %s" % e) from None
			if not isinstance(opts, dict):
				raise ApiError(400, "BadRequest", "error decoding DeleteOptions")
			# As the real server does: options come from the body when there is one, and the query's
			# (dryRun, gracePeriodSeconds) are then ignored.
			return opts
		if "gracePeriodSeconds" in query:
			try:
				opts["gracePeriodSeconds"] = int(query["gracePeriodSeconds"])
			except ValueError:
				raise ApiError(400, "BadRequest", "invalid gracePeriodSeconds") from None
		if query.get("dryRun") == "All":
			opts["dryRun"] = ["All"]
		return opts

	def delete(self, resource, ns, name, query, body):
		opts = self.parse_delete_options(body, query)
		o = self.do_delete(resource, ns, name, opts)
		self.respond(200, o.full() + b"\n", chunked=True)

	def do_delete(self, resource, ns, name, opts):
		api = self.api
		st = api.store
		info = KINDS[resource]
		key = "%s/%s" % (ns, name) if ns else name
		with st.lock:
			cur = st.objs[resource].get(key)
			if cur is None:
				raise not_found(resource, name)
			pre = opts.get("preconditions") or {}
			cm = cur.d["metadata"]
			if pre.get("uid") is not None and pre["uid"] != cm.get("uid"):
				raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the UID in the precondition '
					'(%s) does not match the UID in record (%s). The object might have been deleted and then recreated'
					% (info["kind"], name, pre["uid"], cm.get("uid")), {"name": name, "kind": info["kind"]})
			if pre.get("resourceVersion") is not None and str(pre["resourceVersion"]) != cm.get("resourceVersion"):
				raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the ResourceVersion in the '
					'precondition (%s) does not match the ResourceVersion in record (%s). The object might have been '
					'modified' % (info["kind"], name, pre["resourceVersion"], cm.get("resourceVersion")),
					{"name": name, "kind": info["kind"]})
			dry = "All" in (opts.get("dryRun") or [])
			if resource != "pods":
				if dry:
					return cur
				return st.remove(resource, key)
			if "deletionTimestamp" in cm:
				return cur
			grace = opts.get("gracePeriodSeconds")
			if grace is None:
				grace = cur.d.get("spec", {}).get("terminationGracePeriodSeconds", 30)
			d = copy.deepcopy(cur.d)
			m = d["metadata"]
			newmeta = {}
			for k, v in m.items():
				newmeta[k] = v
				if k == "creationTimestamp":
					newmeta["deletionTimestamp"] = now_rfc3339(int(grace))
					newmeta["deletionGracePeriodSeconds"] = int(grace)
			d["metadata"] = newmeta
			o = st.put("pods", d, dry_run=dry)
			if not dry:
				api.later(api.settings.delete_grace if grace else 0, api.finish_delete, key, m.get("uid"))
			return o

	def evict(self, ns, name, body):
		api = self.api
		opts = {}
		if body:
			try:
				ev = json.loads(body.decode("utf-8"))
			except (ValueError, UnicodeDecodeError) as e:
				raise ApiError(400, "BadRequest", "error decoding Eviction: %s" % e) from None
			if isinstance(ev, dict):
				opts = ev.get("deleteOptions") or {}
		with api.store.lock:
			if api.store.get("pods", "%s/%s" % (ns, name)) is None:
				raise not_found("pods", name)
			if "%s/%s" % (ns, name) in api.settings.eviction_blocked or name in api.settings.eviction_blocked:
				raise ApiError(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.",
					{"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget %s-pdb needs 1 healthy "
						"pods and has 1 currently" % name.rsplit("-", 1)[0]}]})
			self.do_delete("pods", ns, name, opts)
		self.respond(201, jdump(status_dict(201, None, None, status="Success")) + b"\n")

	# -- control endpoints ----------------------------------------------------------------------------------

	def control(self, path, query, body):
		api = self.api
		method = self.command
		try:
			data = json.loads(body.decode("utf-8")) if body else None
		except (ValueError, UnicodeDecodeError) as e:
			self.respond_control(400, {"error": "invalid JSON: %s" % e})
			return
		try:
			if path == "/_fake/requests" and method == "GET":
				with api.log_lock:
					out = list(api.log)
				self.respond_control(200, out)
			elif path == "/_fake/requests" and method == "DELETE":
				with api.log_lock:
					api.log = []
				self.respond_control(200, {})
			elif path == "/_fake/services" and method == "POST":
				key = "%s/%s:%s" % (data["namespace"], data["name"], data["port"])
				if data.get("url"):
					api.services[key] = data["url"]
				else:
					api.services.pop(key, None)
				self.respond_control(200, api.services)
			elif path == "/_fake/stats" and method == "GET":
				with api.store.lock:
					stats = {"open_watches": api.open_watches, "resourceVersion": str(api.store.rv),
						"objects": {res: len(api.store.objs[res]) for res in KINDS}}
				self.respond_control(200, stats)
			elif path == "/_fake/reset" and method == "POST":
				api.reset()
				self.respond_control(200, {"resourceVersion": str(api.store.rv)})
			elif path == "/_fake/faults" and method == "POST":
				fid = api.add_fault(data)
				self.respond_control(201, {"id": fid})
			elif path == "/_fake/faults" and method == "GET":
				with api.fault_lock:
					self.respond_control(200, list(api.faults))
			elif path == "/_fake/faults" and method == "DELETE":
				with api.fault_lock:
					api.faults = []
				self.respond_control(200, {})
			elif path == "/_fake/settings" and method in ("GET", "POST"):
				if method == "POST":
					api.settings.update(data or {})
				self.respond_control(200, api.settings.as_dict())
			elif path == "/_fake/objects" and method == "POST":
				self.control_put(data)
			elif path == "/_fake/objects" and method == "GET":
				with api.store.lock:
					out = [o.d for res in KINDS for o in api.store.objs[res].values()]
				self.respond_control(200, out)
			elif path.startswith("/_fake/objects/") and method == "DELETE":
				parts = path[len("/_fake/objects/"):].strip("/").split("/")
				res = parts[0]
				if res not in KINDS or len(parts) != (3 if KINDS[res]["namespaced"] else 2):
					self.respond_control(400, {"error": "use /_fake/objects/{nodes|pods|daemonsets}/[NAMESPACE/]NAME"})
					return
				o = api.store.remove(res, "/".join(parts[1:]))
				if o is None:
					self.respond_control(404, {"error": "not found"})
				else:
					self.respond_control(200, o.d)
			else:
				self.respond_control(404, {"error": "unknown control endpoint %s %s" % (method, path)})
		except ValueError as e:
			self.respond_control(400, {"error": str(e)})

	def control_put(self, d):
		api = self.api
		if not isinstance(d, dict) or d.get("kind") not in KIND_TO_RESOURCE:
			raise ValueError("the object needs kind Node, Pod or DaemonSet")
		res = KIND_TO_RESOURCE[d["kind"]]
		d = copy.deepcopy(d)
		d["apiVersion"] = KINDS[res]["apiVersion"]
		m = d.setdefault("metadata", {})
		if not m.get("name"):
			raise ValueError("the object needs metadata.name")
		if KINDS[res]["namespaced"]:
			m.setdefault("namespace", "default")
		with api.store.lock:
			prev = api.store.objs[res].get(obj_key(res, d))
			if "uid" not in m:
				m["uid"] = prev.d["metadata"]["uid"] if prev else new_uid()
			if "creationTimestamp" not in m:
				m["creationTimestamp"] = prev.d["metadata"].get("creationTimestamp") if prev else now_rfc3339()
			ordered = {"kind": d.pop("kind"), "apiVersion": d.pop("apiVersion")}
			ordered.update(d)
			o = api.store.put(res, ordered)
		self.respond_control(201 if prev is None else 200, o.d)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
	daemon_threads = True
	allow_reuse_address = True
	request_queue_size = 128

	def __init__(self, addr, api, ctx):
		self.api = api
		self.ctx = ctx
		super().__init__(addr, Handler)

	def server_bind(self):
		# HTTPServer.server_bind looks up the host's FQDN, which can take seconds without DNS.
		socketserver.TCPServer.server_bind(self)
		self.server_name, self.server_port = self.server_address[:2]

	def finish_request(self, request, client_address):
		# TLS and plain HTTP share the port: plain requests may only reach the control endpoints.
		try:
			request.settimeout(10)
			first = request.recv(1, socket.MSG_PEEK)
			request.settimeout(None)
			if not first:
				return
			if first == b"\x16":
				request = self.ctx.wrap_socket(request, server_side=True)
		except (OSError, ssl.SSLError):
			return
		try:
			self.RequestHandlerClass(request, client_address, self)
		finally:
			if request is not None and isinstance(request, ssl.SSLSocket):
				try:
					request.close()
				except OSError:
					pass

	def handle_error(self, request, client_address):
		pass


# ---------------------------------------------------------------------------------------------------------
# Certificates and kubeconfig


def run_openssl(args):
	r = subprocess.run(["openssl"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
	if r.returncode != 0:
		raise SystemExit("fakeapi: openssl %s failed: %s" % (args[0], r.stderr.decode(errors="replace").strip()))


def make_certs(d):
	ca_key, ca_crt = os.path.join(d, "ca.key"), os.path.join(d, "ca.crt")
	ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "7"]
	run_openssl(["req", "-x509"] + ec + ["-keyout", ca_key, "-out", ca_crt, "-subj", "/CN=fakeapi-ca"])
	leaf = ["req", "-x509", "-CA", ca_crt, "-CAkey", ca_key] + ec + ["-addext", "basicConstraints=critical,CA:FALSE"]
	jobs = [
		leaf + ["-keyout", os.path.join(d, "server.key"), "-out", os.path.join(d, "server.crt"), "-subj",
			"/CN=kube-apiserver", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
			"-addext", "extendedKeyUsage=serverAuth"],
		leaf + ["-keyout", os.path.join(d, "admin.key"), "-out", os.path.join(d, "admin.crt"), "-subj",
			"/O=system:masters/CN=admin", "-addext", "extendedKeyUsage=clientAuth"],
	]
	errors = []

	def run(job):
		try:
			run_openssl(job)
		except SystemExit as e:
			errors.append(e)
	threads = [threading.Thread(target=run, args=(j,)) for j in jobs]
	for t in threads:
		t.start()
	for t in threads:
		t.join()
	if errors:
		raise errors[0]


def b64file(p):
	with open(p, "rb") as f:
		return base64.b64encode(f.read()).decode()


def write_kubeconfig(d, port, tokens, extra_users):
	ca = b64file(os.path.join(d, "ca.crt"))
	url = "https://127.0.0.1:%d" % port
	users = [
		("admin", {"client-certificate-data": b64file(os.path.join(d, "admin.crt")),
			"client-key-data": b64file(os.path.join(d, "admin.key"))}),
		("admin-token", {"token": tokens["admin"]}),
		("viewer", {"token": tokens["viewer"]}),
		("nobody", {"token": tokens["nobody"]}),
		("badtoken", {"token": tokens["badtoken"]}),
	]
	for name in extra_users:
		users.append((name, {"token": tokens[name]}))
	lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: fake", "  cluster:",
		"    server: %s" % url, "    certificate-authority-data: %s" % ca, "contexts:"]
	for name, _ in users:
		lines += ["- name: %s" % name, "  context:", "    cluster: fake", "    user: %s" % name,
			"    namespace: default"]
	lines += ["current-context: admin", "preferences: {}", "users:"]
	for name, fields in users:
		lines += ["- name: %s" % name, "  user:"]
		for k, v in fields.items():
			lines.append("    %s: %s" % (k, v))
	p = os.path.join(d, "kubeconfig")
	tmp = p + ".tmp"
	with open(tmp, "w") as f:
		f.write("\n".join(lines) + "\n")
	os.chmod(tmp, 0o600)
	os.replace(tmp, p)


# The list requests a benchmark sends: kubectl's and curl's limit=500 chains, the plugin's pod chain (running
# and pending pods only) and full lists where they are small. Other requests are rendered when they come.
PRERENDER = [("nodes", "", 500, "json"), ("nodes", "", 0, "json"), ("daemonsets", "", 500, "json"),
	("daemonsets", "", 0, "json"), ("pods", "", 500, "json"),
	("pods", "status.phase!=Succeeded,status.phase!=Failed", 500, "json"),
	# whole lists from the watch cache (resourceVersion=0), as the plugin's views read them
	("nodes", "", 0, "pb"), ("pods", "status.phase!=Succeeded,status.phase!=Failed", 0, "json"),
	("pods", "status.phase!=Succeeded,status.phase!=Failed", 0, "pb")]


def prerender(api):
	"""Renders and gzips, before the server answers, every page of the PRERENDER list chains."""
	st = api.store

	class Shim(Handler):
		def __init__(self):  # pylint: disable=super-init-not-called
			self.api_ref = api

		@property
		def api(self):
			return self.api_ref

	h = Shim()
	with st.lock:
		for res, fs, limit, fmt in PRERENDER:
			freq = parse_field_selector(fs, res) if fs else []
			start, cont, token_rv = "", "", None
			while True:
				key = (res, None, "", fs, limit, cont, fmt)
				page = st.pages.get(key)
				if page is None:
					page = h.render_page(res, None, [], freq, bool(fs), limit, start, token_rv, fmt)
					st.pages[key] = page
				if page[2][0] is None and len(page[0]) > GZIP_MIN:
					page[2][0] = gzip.compress(page[0], 1)
				if not page[1]:
					break
				cont = page[1]
				tok = json.loads(base64.urlsafe_b64decode(cont + "=" * (-len(cont) % 4)))
				start, token_rv = tok["start"], tok["rv"]
	# A cluster of 100,000 pods is millions of Python objects: left to the cyclic collector, every full
	# collection would walk them all in the middle of some request.
	gc.collect()
	gc.freeze()


def main(argv=None):
	p = argparse.ArgumentParser(description="fake Kubernetes API server for tests")
	p.add_argument("--scenario", required=True, help="scenario directory or generator spec gen:k=v,...")
	p.add_argument("--state-dir", required=True, help="directory for certificates and the kubeconfig")
	p.add_argument("--port", type=int, default=0)
	p.add_argument("--continue-ttl", type=float, default=None, help="continue tokens expire after SECONDS")
	p.add_argument("--ds-ready-delay", type=float, default=1.0, help="DaemonSet replacement pods become Ready after")
	p.add_argument("--delete-grace", type=float, default=0.3, help="seconds a deleted pod stays Terminating")
	p.add_argument("--bookmark-interval", type=float, default=1.0, help="seconds between watch bookmarks")
	p.add_argument("--watch-window", type=int, default=10000, help="watch events kept for replay")
	p.add_argument("--prerender", action="store_true", help="render list pages and their gzip at start")
	p.add_argument("--hostile", default="", help="comma-separated hostile modes: " + ", ".join(HOSTILE_MODES))
	args = p.parse_args(argv)

	t0 = time.monotonic()
	os.makedirs(args.state_dir, exist_ok=True)
	cert_err = []

	def certs_run():
		try:
			make_certs(args.state_dir)
		except SystemExit as e:
			cert_err.append(str(e))
	certs = threading.Thread(target=certs_run)
	certs.start()
	api = FakeAPI(args)
	if args.prerender:
		prerender(api)
	certs.join()
	if cert_err:
		print(cert_err[0], file=sys.stderr)
		return 1
	tokens = {"admin": secrets.token_hex(16), "viewer": secrets.token_hex(16), "nobody": secrets.token_hex(16),
		"badtoken": secrets.token_hex(16)}
	extra = [n for n in api.config.get("users", {}) if n not in tokens]
	for n in extra:
		tokens[n] = api.config["users"][n].get("token") or secrets.token_hex(16)
	api.tokens = {v: k for k, v in tokens.items() if k != "badtoken"}

	ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
	ctx.minimum_version = ssl.TLSVersion.TLSv1_2
	ctx.load_cert_chain(os.path.join(args.state_dir, "server.crt"), os.path.join(args.state_dir, "server.key"))
	ctx.load_verify_locations(os.path.join(args.state_dir, "ca.crt"))
	ctx.verify_mode = ssl.CERT_OPTIONAL
	ctx.set_alpn_protocols(["http/1.1"])

	server = Server(("127.0.0.1", args.port), api, ctx)
	port = server.server_address[1]
	write_kubeconfig(args.state_dir, port, tokens, extra)
	with open(os.path.join(args.state_dir, "startup.json"), "w") as f:
		json.dump({"port": port, "seconds": round(time.monotonic() - t0, 4), "pid": os.getpid()}, f)

	def stop(_sig, _frm):
		if api.stopping:
			return
		api.stopping = True
		with api.store.lock:
			api.store.cond.notify_all()
		threading.Thread(target=server.shutdown, daemon=True).start()

	signal.signal(signal.SIGTERM, stop)
	signal.signal(signal.SIGINT, stop)
	sys.stdout.write("port %d\n" % port)
	sys.stdout.flush()
	try:
		server.serve_forever(poll_interval=0.1)
	finally:
		server.server_close()
	return 0


if __name__ == "__main__":
	sys.exit(main())
