"""The API server's protobuf encoding of the objects the fake server holds.

A body is b"k8s\\0" and a runtime.Unknown (1 typeMeta {1 apiVersion, 2 kind},
2 raw, 3 contentEncoding, 4 contentType); a watch stream is frames of a
4-byte big-endian length and a WatchEvent (1 type, 2 object: RawExtension
{1 raw}).  Field numbers are those of the published generated.proto files
of k8s.io/api core/v1 and k8s.io/apimachinery meta/v1.

Strings, bools and numbers are written as Go's generated code writes them
(a non-pointer string even when empty); a value of the wrong JSON type is
left out, which is what the plugin's JSON decoder makes of it too.
"""

import calendar
import json
import struct
import time

MAGIC = b"k8s\x00"


def varint(n):
	if n < 0:
		n += 1 << 64
	out = bytearray()
	while n >= 0x80:
		out.append((n & 0x7F) | 0x80)
		n >>= 7
	out.append(n)
	return bytes(out)


def _key(num, wire):
	return varint(num << 3 | wire)


def f_bytes(num, b):
	return _key(num, 2) + varint(len(b)) + b


def f_str(num, s):
	"""A string field; nothing when s is not a string (absent or of another type)."""
	if not isinstance(s, str):
		return b""
	return f_bytes(num, s.encode("utf-8", "surrogatepass"))


def f_int(num, n):
	if isinstance(n, bool) or not isinstance(n, int):
		return b""
	return _key(num, 0) + varint(n)


def f_bool(num, v, always=False):
	if not isinstance(v, bool):
		return _key(num, 0) + b"\x00" if always else b""
	return _key(num, 0) + (b"\x01" if v else b"\x00")


def f_msgs(num, items, enc):
	if not isinstance(items, list):
		return b""
	return b"".join(f_bytes(num, enc(it)) for it in items if isinstance(it, dict))


def _scalar_text(v):
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
	for k, v in d.items():
		t = _scalar_text(v)
		if t is None and every_key:
			t = ""
		if t is None:
			# the key with no value; JSON's decoder keeps nothing of it either
			continue
		val = f_bytes(2, f_str(1, t)) if quantity else f_str(2, t)
		out += f_bytes(num, f_str(1, k) + val)
	return bytes(out)


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
	return f_bytes(num, _key(1, 0) + varint(secs) + _key(2, 0) + b"\x00")


# --- meta/v1 -------------------------------------------------------------------------------------------


def owner_ref(o):
	return (f_str(1, o.get("kind")) + f_str(3, o.get("name")) + f_str(4, o.get("uid")) +
		f_str(5, o.get("apiVersion")) + f_bool(6, o.get("controller")) +
		f_bool(7, o.get("blockOwnerDeletion")))


def object_meta(m):
	if not isinstance(m, dict):
		return b""
	out = (f_str(1, m.get("name", "")) + f_str(2, m.get("generateName", "")) +
		f_str(3, m.get("namespace", "")) + f_str(4, m.get("selfLink", "")) + f_str(5, m.get("uid", "")) +
		f_str(6, m.get("resourceVersion", "")) + (f_int(7, m.get("generation")) or _key(7, 0) + b"\x00") +
		f_time(8, m.get("creationTimestamp"), always=True))
	if isinstance(m.get("deletionTimestamp"), str):
		out += f_time(9, m["deletionTimestamp"], always=True)
	out += f_int(10, m.get("deletionGracePeriodSeconds"))
	out += f_map(11, m.get("labels")) + f_map(12, m.get("annotations"))
	out += f_msgs(13, m.get("ownerReferences"), owner_ref)
	for fin in m.get("finalizers") or []:
		out += f_str(14, fin)
	return out


def list_meta(m):
	m = m if isinstance(m, dict) else {}
	out = f_str(1, "") + f_str(2, m.get("resourceVersion", "")) + f_str(3, m.get("continue", ""))
	if isinstance(m.get("remainingItemCount"), int):
		out += f_int(4, m["remainingItemCount"])
	return out


def status(d):
	details = d.get("details") if isinstance(d.get("details"), dict) else None
	out = f_bytes(1, list_meta(d.get("metadata"))) + f_str(2, d.get("status", "")) + f_str(3, d.get("message", ""))
	out += f_str(4, d.get("reason", ""))
	if details is not None:
		out += f_bytes(5, f_str(1, details.get("name", "")) + f_str(2, details.get("group", "")) +
			f_str(3, details.get("kind", "")) + f_int(5, details.get("retryAfterSeconds") or 0))
	return out + f_int(6, d.get("code", 0))


# --- core/v1 -------------------------------------------------------------------------------------------


def _cond(c, node):
	out = f_str(1, c.get("type")) + f_str(2, c.get("status"))
	if node:
		out += f_time(3, c.get("lastHeartbeatTime"), True) + f_time(4, c.get("lastTransitionTime"), True)
	else:
		out += f_time(3, c.get("lastProbeTime"), True) + f_time(4, c.get("lastTransitionTime"), True)
	return out + f_str(5, c.get("reason", "")) + f_str(6, c.get("message", ""))


def _taint(t):
	return f_str(1, t.get("key")) + f_str(2, t.get("value", "")) + f_str(3, t.get("effect"))


def node(d):
	spec = d.get("spec") if isinstance(d.get("spec"), dict) else {}
	st = d.get("status") if isinstance(d.get("status"), dict) else {}
	sp = (f_str(1, spec.get("podCIDR", "")) + f_str(2, spec.get("externalID", "")) +
		f_str(3, spec.get("providerID", "")) + f_bool(4, spec.get("unschedulable"), always=True) +
		f_msgs(5, spec.get("taints"), _taint))
	info = st.get("nodeInfo") if isinstance(st.get("nodeInfo"), dict) else {}
	ni = b"".join(f_str(i, info.get(k, "")) for i, k in enumerate(
		["machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
			"kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"], 1))
	ss = (f_map(1, st.get("capacity"), True) + f_map(2, st.get("allocatable"), True) + f_str(3, st.get("phase", "")) +
		f_msgs(4, st.get("conditions"), lambda c: _cond(c, True)) +
		f_msgs(5, st.get("addresses"), lambda a: f_str(1, a.get("type")) + f_str(2, a.get("address"))) +
		f_bytes(7, ni))
	return f_bytes(1, object_meta(d.get("metadata"))) + f_bytes(2, sp) + f_bytes(3, ss)


def _requirements(r):
	r = r if isinstance(r, dict) else {}
	return f_map(1, r.get("limits"), True) + f_map(2, r.get("requests"), True)


def _container(c):
	out = f_str(1, c.get("name")) + f_str(2, c.get("image", ""))
	for i, k in ((3, "command"), (4, "args")):
		for s in c.get(k) or []:
			out += f_str(i, s)
	out += f_bytes(8, _requirements(c.get("resources")))
	return out + f_str(13, c.get("terminationMessagePath", "")) + f_str(14, c.get("imagePullPolicy", ""))


def _selector_term(t):
	def expr(e):
		out = f_str(1, e.get("key")) + f_str(2, e.get("operator"))
		for v in e.get("values") or []:
			out += f_str(3, v)
		return out
	return f_msgs(1, t.get("matchExpressions"), expr) + f_msgs(2, t.get("matchFields"), expr)


def _node_affinity(a):
	out = b""
	req = a.get("requiredDuringSchedulingIgnoredDuringExecution")
	if isinstance(req, dict):
		out += f_bytes(1, f_msgs(1, req.get("nodeSelectorTerms"), _selector_term))
	out += f_msgs(2, a.get("preferredDuringSchedulingIgnoredDuringExecution"),
		lambda p: f_int(1, p.get("weight")) + f_bytes(2, _selector_term(p.get("preference") or {})))
	if not out and a:
		# a key the encoder does not know: still a node affinity that is set
		out = f_msgs(2, [{}], lambda p: b"")
	return out


def _toleration(t):
	return (f_str(1, t.get("key", "")) + f_str(2, t.get("operator", "")) + f_str(3, t.get("value", "")) +
		f_str(4, t.get("effect", "")) + f_int(5, t.get("tolerationSeconds")))


def pod(d):
	spec = d.get("spec") if isinstance(d.get("spec"), dict) else {}
	st = d.get("status") if isinstance(d.get("status"), dict) else {}
	sp = (f_msgs(2, spec.get("containers"), _container) + f_str(3, spec.get("restartPolicy", "")) +
		f_str(6, spec.get("dnsPolicy", "")) + f_map(7, spec.get("nodeSelector"), every_key=True) +
		f_str(8, spec.get("serviceAccountName", "")) + f_str(10, spec.get("nodeName", "")))
	aff = spec.get("affinity")
	if isinstance(aff, dict):
		na = aff.get("nodeAffinity")
		sp += f_bytes(18, f_bytes(1, _node_affinity(na)) if isinstance(na, dict) else b"")
	sp += f_str(19, spec.get("schedulerName", "")) + f_msgs(20, spec.get("initContainers"), _container)
	sp += f_msgs(22, spec.get("tolerations"), _toleration)
	ss = (f_str(1, st.get("phase", "")) + f_msgs(2, st.get("conditions"), lambda c: _cond(c, False)) +
		f_str(3, st.get("message", "")) + f_str(4, st.get("reason", "")) + f_str(5, st.get("hostIP", "")) +
		f_str(6, st.get("podIP", "")) + f_time(7, st.get("startTime")) + f_str(9, st.get("qosClass", "")))
	return f_bytes(1, object_meta(d.get("metadata"))) + f_bytes(2, sp) + f_bytes(3, ss)


ENCODERS = {"Node": node, "Pod": pod}


def encodable(kind):
	return kind in ENCODERS


def item(kind, d):
	"""One object's own message (what a list holds as an item)."""
	return ENCODERS[kind](d)


def envelope(api_version, kind, raw):
	return MAGIC + f_bytes(1, f_str(1, api_version) + f_str(2, kind)) + f_bytes(2, raw) + f_str(3, "") + f_str(4, "")


def list_body(api_version, list_kind, meta, items):
	"""A NodeList or PodList from the items' own messages."""
	raw = f_bytes(1, list_meta(meta)) + b"".join(f_bytes(2, it) for it in items)
	return envelope(api_version, list_kind, raw)


def object_body(kind, d):
	return envelope(d.get("apiVersion", "v1"), kind, item(kind, d))


def status_body(d):
	return envelope("v1", "Status", status(d))


def watch_frame(etype, kind, d):
	"""One watch event; d is the object, or a Status for ERROR."""
	obj = status_body(d) if etype == "ERROR" else object_body(kind, d)
	ev = f_str(1, etype) + f_bytes(2, f_bytes(1, obj))
	return struct.pack(">I", len(ev)) + ev
