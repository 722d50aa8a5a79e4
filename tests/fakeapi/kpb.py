"""The API server's protobuf encoding of the objects the fake server holds.

A body is b"k8s\\0" and a runtime.Unknown (1 typeMeta {1 apiVersion, 2 kind},
2 raw, 3 contentEncoding, 4 contentType); a watch stream is frames of a
4-byte big-endian length and a WatchEvent (1 type, 2 object: RawExtension
{1 raw}).  Field numbers are those of the published generated.proto files
of k8s.io/api core/v1 and k8s.io/apimachinery meta/v1; the resource.k8s.io
kinds are encoded by kpb_resource.py, the wire format is kpb_wire.py's.
"""

import struct

import kpb_resource
from kpb_wire import f_bool, f_bytes, f_int, f_map, f_msgs, f_str, f_time, list_meta, object_meta

MAGIC = b"k8s\x00"


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
	return (f_map(1, r.get("limits"), True) + f_map(2, r.get("requests"), True) +
		f_msgs(3, r.get("claims"), lambda c: f_str(1, c.get("name", "")) + f_str(2, c.get("request", ""))))


def _container(c):
	out = f_str(1, c.get("name")) + f_str(2, c.get("image", ""))
	for i, k in ((3, "command"), (4, "args")):
		for s in c.get(k) or []:
			out += f_str(i, s)
	out += f_bytes(8, _requirements(c.get("resources")))
	out += f_str(13, c.get("terminationMessagePath", "")) + f_str(14, c.get("imagePullPolicy", ""))
	return out + f_str(24, c.get("restartPolicy"))


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


def _pod_claim(c):
	return f_str(1, c.get("name", "")) + f_str(3, c.get("resourceClaimName")) + f_str(4, c.get("resourceClaimTemplateName"))


def _extended_claim_status(e):
	def mapping(m):
		return f_str(1, m.get("containerName", "")) + f_str(2, m.get("resourceName", "")) + f_str(3, m.get("requestName", ""))
	return f_msgs(1, e.get("requestMappings"), mapping) + f_str(2, e.get("resourceClaimName", ""))


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
	sp += f_msgs(22, spec.get("tolerations"), _toleration) + f_int(25, spec.get("priority"))
	sp += f_msgs(39, spec.get("resourceClaims"), _pod_claim)
	ss = (f_str(1, st.get("phase", "")) + f_msgs(2, st.get("conditions"), lambda c: _cond(c, False)) +
		f_str(3, st.get("message", "")) + f_str(4, st.get("reason", "")) + f_str(5, st.get("hostIP", "")) +
		f_str(6, st.get("podIP", "")) + f_time(7, st.get("startTime")) + f_str(9, st.get("qosClass", "")))
	ss += f_msgs(15, st.get("resourceClaimStatuses"), lambda c: f_str(1, c.get("name", "")) +
		f_str(2, c.get("resourceClaimName")))
	if isinstance(st.get("extendedResourceClaimStatus"), dict):
		ss += f_bytes(18, _extended_claim_status(st["extendedResourceClaimStatus"]))
	return f_bytes(1, object_meta(d.get("metadata"))) + f_bytes(2, sp) + f_bytes(3, ss)


ENCODERS = {"Node": node, "Pod": pod}


def encodable(kind):
	return kind in ENCODERS or kind in kpb_resource.KINDS


def item(kind, d):
	"""One object's own message (what a list holds as an item); a resource.k8s.io object in the shape of
	its apiVersion."""
	if kind in kpb_resource.KINDS:
		return kpb_resource.item(kind, d)
	return ENCODERS[kind](d)


def envelope(api_version, kind, raw):
	return MAGIC + f_bytes(1, f_str(1, api_version) + f_str(2, kind)) + f_bytes(2, raw) + f_str(3, "") + f_str(4, "")


def list_body(api_version, list_kind, meta, items):
	"""A list (NodeList, PodList, ResourceSliceList...) from the items' own messages."""
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
