"""JSON merge patches (RFC 7386) and JSON patches (RFC 6902), with the API server's error texts."""

import copy


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
