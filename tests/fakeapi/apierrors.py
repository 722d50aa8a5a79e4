"""Errors that end a request in a Status body, in the real API server's wording."""

from kinds import jdump


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
