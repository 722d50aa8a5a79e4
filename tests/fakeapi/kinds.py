"""The resources the fake API server serves, and JSON and timestamps written the way the real server
writes them."""

import json
from datetime import datetime, timedelta, timezone

KINDS = {
	"nodes": {"kind": "Node", "list": "NodeList", "group": "", "apiVersion": "v1", "namespaced": False},
	"pods": {"kind": "Pod", "list": "PodList", "group": "", "apiVersion": "v1", "namespaced": True},
	"daemonsets": {"kind": "DaemonSet", "list": "DaemonSetList", "group": "apps", "apiVersion": "apps/v1",
		"namespaced": True},
	"events": {"kind": "Event", "list": "EventList", "group": "", "apiVersion": "v1", "namespaced": True},
	"poddisruptionbudgets": {"kind": "PodDisruptionBudget", "list": "PodDisruptionBudgetList", "group": "policy",
		"apiVersion": "policy/v1", "namespaced": True},
}
# Dynamic Resource Allocation: stored as resource.k8s.io/v1, served in the versions the scenario names
# (resource_versions.py).
for _res, _singular, _kind, _namespaced in (("resourceslices", "resourceslice", "ResourceSlice", False),
		("resourceclaims", "resourceclaim", "ResourceClaim", True),
		("resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate", True),
		("deviceclasses", "deviceclass", "DeviceClass", False)):
	KINDS[_res] = {"kind": _kind, "list": _kind + "List", "group": "resource.k8s.io", "apiVersion": "resource.k8s.io/v1",
		"namespaced": _namespaced}
KIND_TO_RESOURCE = {v["kind"]: k for k, v in KINDS.items()}
PB_TYPE = "application/vnd.kubernetes.protobuf"

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


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
