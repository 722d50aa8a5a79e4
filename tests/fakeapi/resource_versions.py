"""The resource.k8s.io group (Dynamic Resource Allocation) in the versions a server serves: which versions
a scenario's server offers, their discovery documents, and the conversion of the stored objects (kept once,
in the v1 shape) to and from v1beta2 and v1beta1, as the real server converts them.

v1beta2 has the shape of v1.  v1beta1 keeps a device's fields under "basic" and a request's fields beside
its name (v1 puts them under "exactly"); its slice's nodeName and allNodes are plain values, left out of
JSON when empty.
"""

import base64
import hashlib

GROUP = "resource.k8s.io"
# Newest first: the order a server lists them in, the first it serves being the preferred one.
VERSIONS = ("v1", "v1beta2", "v1beta1")
STORAGE = GROUP + "/v1"

# (resource, singular, kind, namespaced), in the order discovery lists them; claims have a status subresource
RESOURCES = (("deviceclasses", "deviceclass", "DeviceClass", False),
	("resourceclaims", "resourceclaim", "ResourceClaim", True),
	("resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate", True),
	("resourceslices", "resourceslice", "ResourceSlice", False))
VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]

# The first release that serves each version (the newest one served names the release a server is).
RELEASES = {"v1": ("34", "v1.34.1"), "v1beta2": ("33", "v1.33.5"), "v1beta1": ("32", "v1.32.9")}


def served(versions):
	"""versions (a list, or a comma-separated string) in the server's order; ValueError for one it cannot
	serve."""
	if isinstance(versions, str):
		versions = [v for v in versions.split(",") if v.strip()]
	if not isinstance(versions, (list, tuple)):
		raise ValueError("resource_versions: a list of %s" % ", ".join(VERSIONS))
	unknown = [v for v in versions if v not in VERSIONS]
	if unknown:
		raise ValueError("resource_versions: unknown version %s (known: %s)" % (unknown[0], ", ".join(VERSIONS)))
	return tuple(v for v in VERSIONS if v in versions)


def version_body(versions):
	"""The /version answer of the release that serves the newest of these versions, or None (no version:
	keep the default one)."""
	if not versions:
		return None
	minor, git = RELEASES[versions[0]]
	commit = hashlib.sha1(git.encode()).hexdigest()
	return ('{\n  "major": "1",\n  "minor": "%s",\n  "gitVersion": "%s",\n  "gitCommit": "%s",\n'
		'  "gitTreeState": "clean",\n  "buildDate": "2026-11-21T15:49:18Z",\n  "goVersion": "go1.24.6",\n'
		'  "compiler": "gc",\n  "platform": "linux/amd64"\n}' % (minor, git, commit)).encode()


def storage_version_hash(kind, versions):
	"""What discovery says of the version objects are stored in (a digest of group/version/kind)."""
	version = "v1" if "v1" in versions else "v1beta1"
	digest = hashlib.sha256(("%s/%s/%s" % (GROUP, version, kind)).encode()).digest()[:8]
	return base64.b64encode(digest).decode()


def group_entry(versions):
	"""The group as /apis and /apis/resource.k8s.io list it."""
	return {"name": GROUP, "versions": [{"groupVersion": "%s/%s" % (GROUP, v), "version": v} for v in versions],
		"preferredVersion": {"groupVersion": "%s/%s" % (GROUP, versions[0]), "version": versions[0]}}


def resource_list(version, versions):
	"""/apis/resource.k8s.io/VERSION: the APIResourceList."""
	out = []
	for res, singular, kind, namespaced in RESOURCES:
		out.append({"name": res, "singularName": singular, "namespaced": namespaced, "kind": kind, "verbs": VERBS,
			"storageVersionHash": storage_version_hash(kind, versions)})
		if res == "resourceclaims":
			out.append({"name": "resourceclaims/status", "singularName": "", "namespaced": True, "kind": kind,
				"verbs": ["get", "patch", "update"]})
	return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "%s/%s" % (GROUP, version),
		"resources": out}


# ---------------------------------------------------------------------------------------------------------
# Conversion: every function returns new dicts for what it changes and shares the rest (stored objects are
# never changed in place).


def _with_version(d, api_version, **parts):
	out = {"kind": d.get("kind"), "apiVersion": api_version}
	for k, v in d.items():
		if k not in ("kind", "apiVersion"):
			out[k] = parts.get(k, v)
	return out


def _device_down(dev):
	if not isinstance(dev, dict):
		return dev
	return {"name": dev.get("name", ""), "basic": {k: v for k, v in dev.items() if k != "name"}}


def _device_up(dev):
	if not isinstance(dev, dict):
		return dev
	out = {"name": dev.get("name", "")}
	out.update(dev.get("basic") or {})
	return out


def _request_down(r):
	if not isinstance(r, dict):
		return r
	ex = r.get("exactly") or {}
	out = {"name": r.get("name", ""), "deviceClassName": ex.get("deviceClassName", "")}
	for k in ("selectors", "allocationMode", "count", "adminAccess"):
		if k in ex:
			out[k] = ex[k]
	if "firstAvailable" in r:
		out["firstAvailable"] = r["firstAvailable"]
	for k in ("tolerations", "capacity"):
		if k in ex:
			out[k] = ex[k]
	return out


def _request_up(r):
	if not isinstance(r, dict):
		return r
	if r.get("firstAvailable"):
		return {"name": r.get("name", ""), "firstAvailable": r["firstAvailable"]}
	ex = {k: v for k, v in r.items() if k not in ("name", "firstAvailable")}
	return {"name": r.get("name", ""), "exactly": ex}


def _claim_spec(spec, conv):
	if not isinstance(spec, dict) or not isinstance(spec.get("devices"), dict):
		return spec
	devices = spec["devices"]
	if not isinstance(devices.get("requests"), list):
		return spec
	return dict(spec, devices=dict(devices, requests=[conv(r) for r in devices["requests"]]))


def _slice_spec(spec, down):
	if not isinstance(spec, dict):
		return spec
	out = dict(spec)
	if isinstance(spec.get("devices"), list):
		out["devices"] = [(_device_down if down else _device_up)(x) for x in spec["devices"]]
	if down:
		# plain values in v1beta1, left out of JSON when empty
		for k, empty in (("nodeName", ""), ("allNodes", False)):
			if out.get(k, empty) in (empty, None):
				out.pop(k, None)
	return out


def convert(d, version):
	"""d (a resource.k8s.io object in any version) in version ("v1", "v1beta2", "v1beta1")."""
	have = (d.get("apiVersion") or STORAGE).rsplit("/", 1)[-1]
	if have == version:
		return d
	if have == "v1beta1":
		d = _shape(d, down=False)
	api_version = "%s/%s" % (GROUP, version)
	if version == "v1beta1":
		return _shape(d, down=True)
	return _with_version(d, api_version)


def _shape(d, down):
	"""d between the v1 shape and the v1beta1 one (down: to v1beta1)."""
	api_version = "%s/%s" % (GROUP, "v1beta1" if down else "v1")
	kind = d.get("kind")
	spec = d.get("spec")
	req = _request_down if down else _request_up
	if kind == "ResourceSlice":
		return _with_version(d, api_version, spec=_slice_spec(spec, down))
	if kind == "ResourceClaim":
		return _with_version(d, api_version, spec=_claim_spec(spec, req))
	if kind == "ResourceClaimTemplate" and isinstance(spec, dict):
		return _with_version(d, api_version, spec=dict(spec, spec=_claim_spec(spec.get("spec"), req)))
	return _with_version(d, api_version)


def to_storage(d):
	"""d in the stored (v1) shape."""
	return convert(d, "v1")
