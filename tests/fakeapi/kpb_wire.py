"""The protobuf wire format as Kubernetes' generated code writes it, and the meta/v1 messages every kind
holds (ObjectMeta, ListMeta, Time), for kpb.py and kpb_resource.py.

Strings, bools and numbers are written as Go's generated code writes them (a non-pointer string even when
empty); a value of the wrong JSON type is left out, which is what the plugin's JSON decoder makes of it too.
Map entries go out sorted by key, as the generated code sorts them.
"""

import calendar
import functools
import json
import time

_SMALL = [bytes((i,)) for i in range(0x80)]


def varint(n):
	if 0 <= n < 0x80:
		return _SMALL[n]
	if n < 0:
		n += 1 << 64
	out = bytearray()
	while n >= 0x80:
		out.append((n & 0x7F) | 0x80)
		n >>= 7
	out.append(n)
	return bytes(out)


@functools.lru_cache(maxsize=None)
def key(num, wire):
	return varint(num << 3 | wire)


def f_bytes(num, b):
	return key(num, 2) + varint(len(b)) + b


def f_str(num, s):
	"""A string field; nothing when s is not a string (absent or of another type)."""
	if not isinstance(s, str):
		return b""
	return f_bytes(num, s.encode("utf-8", "surrogatepass"))


def f_int(num, n):
	if isinstance(n, bool) or not isinstance(n, int):
		return b""
	return key(num, 0) + varint(n)


def f_bool(num, v, always=False):
	if not isinstance(v, bool):
		return key(num, 0) + b"\x00" if always else b""
	return key(num, 0) + (b"\x01" if v else b"\x00")


def f_msgs(num, items, enc):
	if not isinstance(items, list):
		return b""
	return b"".join(f_bytes(num, enc(it)) for it in items if isinstance(it, dict))


def scalar_text(v):
	"""A map value as the JSON decoder reads it: strings, and numbers as written."""
	if isinstance(v, str):
		return v
	if isinstance(v, (int, float)) and not isinstance(v, bool):
		return json.dumps(v)
	return None


def f_map(num, d, quantity=False, every_key=False):
	"""A map field; every_key writes the keys whose values have no text too (with an empty value), for
	maps whose keys count whatever their values (a nodeSelector)."""
	if not isinstance(d, dict):
		return b""
	out = bytearray()
	for k, v in sorted(d.items()):
		t = scalar_text(v)
		if t is None and every_key:
			t = ""
		if t is None:
			# the key with no value; JSON's decoder keeps nothing of it either
			continue
		val = f_bytes(2, f_str(1, t)) if quantity else f_str(2, t)
		out += f_bytes(num, f_str(1, k) + val)
	return bytes(out)


_raw_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def raw_json(v):
	"""The bytes of an embedded JSON document (a RawExtension, FieldsV1) as the server keeps them: compact,
	escaped as Go's encoding/json escapes."""
	s = _raw_encoder.encode(v)
	for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
			("\u2029", "\\u2029")):
		s = s.replace(ch, esc)
	return s.encode("utf-8", "surrogatepass")


def f_quantity(num, q, always=False):
	"""A resource.Quantity: a message holding its string; always: written (empty) when q is absent."""
	t = scalar_text(q)
	if t is None:
		return f_bytes(num, f_str(1, "")) if always else b""
	return f_bytes(num, f_str(1, t))


@functools.lru_cache(maxsize=4096)
def rfc3339_seconds(s):
	try:
		return calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S"))
	except (TypeError, ValueError):
		return None


def f_time(num, s, always=False):
	secs = rfc3339_seconds(s) if isinstance(s, str) else None
	if secs is None:
		# Go writes a zero Time as an empty message
		return f_bytes(num, b"") if always else b""
	return f_bytes(num, key(1, 0) + varint(secs) + key(2, 0) + b"\x00")


# --- meta/v1 -------------------------------------------------------------------------------------------


def owner_ref(o):
	return (f_str(1, o.get("kind")) + f_str(3, o.get("name")) + f_str(4, o.get("uid")) +
		f_str(5, o.get("apiVersion")) + f_bool(6, o.get("controller")) +
		f_bool(7, o.get("blockOwnerDeletion")))


def managed_fields_entry(e):
	out = (f_str(1, e.get("manager", "")) + f_str(2, e.get("operation", "")) + f_str(3, e.get("apiVersion", "")) +
		f_time(4, e.get("time")) + f_str(6, e.get("fieldsType", "")))
	if isinstance(e.get("fieldsV1"), dict):
		out += f_bytes(7, f_bytes(1, raw_json(e["fieldsV1"])))
	return out + f_str(8, e.get("subresource", ""))


def object_meta(m, managed=False):
	"""ObjectMeta; managed: with its managedFields, as a real server sends them (the core kinds leave them
	out: the benchmark's protobuf floor was measured without them)."""
	if not isinstance(m, dict):
		return b""
	out = (f_str(1, m.get("name", "")) + f_str(2, m.get("generateName", "")) +
		f_str(3, m.get("namespace", "")) + f_str(4, m.get("selfLink", "")) + f_str(5, m.get("uid", "")) +
		f_str(6, m.get("resourceVersion", "")) + (f_int(7, m.get("generation")) or key(7, 0) + b"\x00") +
		f_time(8, m.get("creationTimestamp"), always=True))
	if isinstance(m.get("deletionTimestamp"), str):
		out += f_time(9, m["deletionTimestamp"], always=True)
	out += f_int(10, m.get("deletionGracePeriodSeconds"))
	out += f_map(11, m.get("labels")) + f_map(12, m.get("annotations"))
	out += f_msgs(13, m.get("ownerReferences"), owner_ref)
	for fin in m.get("finalizers") or []:
		out += f_str(14, fin)
	if managed:
		out += f_msgs(17, m.get("managedFields"), managed_fields_entry)
	return out


def list_meta(m):
	m = m if isinstance(m, dict) else {}
	out = f_str(1, "") + f_str(2, m.get("resourceVersion", "")) + f_str(3, m.get("continue", ""))
	if isinstance(m.get("remainingItemCount"), int):
		out += f_int(4, m["remainingItemCount"])
	return out
