"""The fake API server's Dynamic Resource Allocation (resource.k8s.io), part of test_fakeapi: discovery per
set of served versions; list, get and watch of every kind in every version, in JSON and in protobuf; the
conversions and the protobuf encoder checked against the upstream round-trip fixtures; every DRA scenario
and the generated DRA cluster loaded and checked for what fixtures/README.md says they hold; and the real
tier's DRA helpers (tests/envtest/envtest_dra.py).

The upstream fixtures are read from ../shared/reference/dra/testdata beside the repository, never copied
into it; the tests that need them are skipped, saying so, where it is absent."""

import concurrent.futures
import json
import os
import struct
import sys
import unittest
import urllib.parse

from harness import ROOT, SCENARIOS, ClusterCase, FakeAPI

sys.path.insert(0, os.path.join(ROOT, "tests", "fakeapi"))

import envtest_dra  # noqa: E402  (tests/envtest, on the path harness set)
import kpb  # noqa: E402
import resource_versions  # noqa: E402
from store import load_scenario  # noqa: E402

UPSTREAM = os.path.normpath(os.path.join(ROOT, "..", "shared", "reference", "dra", "testdata"))
PB = "application/vnd.kubernetes.protobuf"
GROUP = "/apis/resource.k8s.io"
VERSIONS = ("v1", "v1beta2", "v1beta1")
KINDS = ("ResourceSlice", "ResourceClaim", "DeviceClass")
RESOURCES = {"resourceslices": ("ResourceSlice", False), "resourceclaims": ("ResourceClaim", True),
	"deviceclasses": ("DeviceClass", False), "resourceclaimtemplates": ("ResourceClaimTemplate", True)}
DRA_SCENARIOS = sorted(n for n in os.listdir(SCENARIOS) if n.startswith("dra-"))


def upstream(name):
	"""The bytes of an upstream fixture; skips the test when ../shared is not there."""
	p = os.path.join(UPSTREAM, name)
	if not os.path.exists(p):
		raise unittest.SkipTest("the upstream DRA fixtures are not there (%s): ../shared beside the repository is "
			"absent" % UPSTREAM)
	with open(p, "rb") as f:
		return f.read()


def upstream_json(name):
	return json.loads(upstream(name))


# ---- protobuf, read back ------------------------------------------------------------------------------


def pb_fields(b):
	"""The fields of a protobuf message, in order: [(number, value)], value an int or bytes."""
	out, i = [], 0
	while i < len(b):
		key, i = _varint(b, i)
		num, wire = key >> 3, key & 7
		if wire == 0:
			v, i = _varint(b, i)
		elif wire == 2:
			n, i = _varint(b, i)
			v, i = bytes(b[i:i + n]), i + n
		else:
			raise ValueError("wire type %d" % wire)
		out.append((num, v))
	return out


def _varint(b, i):
	n = shift = 0
	while True:
		c = b[i]
		i += 1
		n |= (c & 0x7F) << shift
		shift += 7
		if c < 0x80:
			return n, i


def pb_get(b, *path):
	"""The values at a path of field numbers (the first value of each message on the way)."""
	for num in path[:-1]:
		b = next(v for n, v in pb_fields(b) if n == num)
	return [v for n, v in pb_fields(b) if n == path[-1]]


def pb_envelope(body):
	"""(apiVersion, kind, raw) of a k8s\\0 body."""
	assert body[:4] == b"k8s\x00", body[:8]
	tm = pb_get(body[4:], 1)[0]
	return pb_get(tm, 1)[0].decode(), pb_get(tm, 2)[0].decode(), pb_get(body[4:], 2)[0]


def pb_watch_events(body):
	"""[(type, apiVersion, kind, raw)] of a protobuf watch stream."""
	out, i = [], 0
	while i < len(body):
		n = struct.unpack(">I", body[i:i + 4])[0]
		ev = body[i + 4:i + 4 + n]
		i += 4 + n
		out.append((pb_get(ev, 1)[0].decode(),) + pb_envelope(pb_get(ev, 2, 1)[0]))
	return out


def pb_project(have, want, path=()):
	"""Where have (what the encoder wrote) differs from want (the real serializer's) in the fields have writes:
	[(path, have, want)].  A field of want that have leaves out is not compared (the encoder writes what the
	plugin reads); a field have writes must be there with the same values, submessages compared the same way."""
	diffs = []
	nums = []
	for n, _ in pb_fields(have):
		if n not in nums:
			nums.append(n)
	for n in nums:
		hv = [v for m, v in pb_fields(have) if m == n]
		wv = [v for m, v in pb_fields(want) if m == n]
		if hv == wv:
			continue
		if len(hv) != len(wv):
			diffs.append((path + (n,), len(hv), len(wv)))
			continue
		for i, (h, w) in enumerate(zip(hv, wv)):
			if h == w:
				continue
			try:
				diffs += pb_project(h, w, path + (n, i))
			except (ValueError, IndexError, TypeError):
				diffs.append((path + (n, i), h, w))
	return diffs


def shape(v):
	"""v with every scalar replaced by its type: what a conversion must keep of a document's form."""
	if isinstance(v, dict):
		return [(k, shape(x)) for k, x in v.items()]
	if isinstance(v, list):
		return [shape(x) for x in v]
	return type(v).__name__


# ---- the encoder and the conversions against the upstream fixtures --------------------------------------


class TestUpstreamFixtures(unittest.TestCase):
	"""kpb.py and resource_versions.py against the round-trip fixtures the Kubernetes serializers wrote."""

	def test_dra_kinds_encode_byte_for_byte(self):
		# Byte equality is possible: the encoder writes fields in number order and map entries sorted by key,
		# as Go's generated code does.
		for v in VERSIONS:
			for kind in KINDS:
				with self.subTest(version=v, kind=kind):
					name = "resource.k8s.io.%s.%s" % (v, kind)
					self.assertEqual(kpb.object_body(kind, upstream_json(name + ".json")), upstream(name + ".pb"))

	def test_pod_fields_of_dra_encode_byte_for_byte(self):
		"""The pod's DRA fields byte for byte; every other field the encoder writes (a subset of a pod) the
		same as the real serializer wrote it."""
		pod = upstream_json("core.v1.Pod.json")
		have = pb_envelope(kpb.object_body("Pod", pod))[2]
		want = pb_envelope(upstream("core.v1.Pod.pb"))[2]
		for path in ((2, 39), (3, 15), (3, 18)):
			with self.subTest(field=path):
				self.assertTrue(pb_get(want, *path))
				self.assertEqual(pb_get(have, *path), pb_get(want, *path))
		# a container's resources.claims (Container 8, ResourceRequirements 3)
		self.assertEqual(pb_get(pb_get(have, 2, 2)[0], 8, 3), pb_get(pb_get(want, 2, 2)[0], 8, 3))
		self.assertEqual(pb_project(have, want), [])

	def test_conversion_keeps_the_upstream_shape(self):
		for kind in KINDS:
			v1 = upstream_json("resource.k8s.io.v1.%s.json" % kind)
			for v in ("v1beta2", "v1beta1"):
				with self.subTest(kind=kind, version=v):
					want = upstream_json("resource.k8s.io.%s.%s.json" % (v, kind))
					got = resource_versions.convert(v1, v)
					self.assertEqual(shape(got), shape(want))
					if not (kind == "ResourceClaim" and v == "v1beta1"):
						# (the fixtures' placeholder count differs between a v1 "exactly" and a v1beta1 request)
						self.assertEqual(json.dumps(got), json.dumps(want))
						self.assertEqual(kpb.object_body(kind, got), upstream("resource.k8s.io.%s.%s.pb" % (v, kind)))

	def test_conversion_from_v1beta1(self):
		for kind in ("ResourceSlice", "DeviceClass"):
			with self.subTest(kind=kind):
				got = resource_versions.to_storage(upstream_json("resource.k8s.io.v1beta1.%s.json" % kind))
				self.assertEqual(json.dumps(got), json.dumps(upstream_json("resource.k8s.io.v1.%s.json" % kind)))
		# a request names devices exactly or lists alternatives: without its alternatives, the same request
		claim = upstream_json("resource.k8s.io.v1beta1.ResourceClaim.json")
		del claim["spec"]["devices"]["requests"][0]["firstAvailable"]
		want = upstream_json("resource.k8s.io.v1.ResourceClaim.json")
		del want["spec"]["devices"]["requests"][0]["firstAvailable"]
		self.assertEqual(shape(resource_versions.to_storage(claim)), shape(want))


class TestEncoder(unittest.TestCase):
	"""What the fixtures, with every field set, cannot show: which fields the encoder leaves out when they are
	not set (Go's pointers), which it writes empty (its values), and the order of map entries."""

	def fields(self, b, *path):
		for num in path:
			b = pb_get(b, num)[0]
		return [n for n, _ in pb_fields(b)]

	def test_pointers_only_when_set_values_always(self):
		s = {"kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "d", "pool": {"name": "p"},
			"devices": [{"name": "gpu-0"}]}}
		v1 = kpb.item("ResourceSlice", dict(s, apiVersion="resource.k8s.io/v1"))
		# driver, pool (generation and count 0 written), devices; no nodeName, allNodes
		self.assertEqual(self.fields(v1, 2), [1, 2, 6])
		self.assertEqual(self.fields(v1, 2, 2), [1, 2, 3])
		self.assertEqual(self.fields(v1, 2, 6), [1])
		b1 = kpb.item("ResourceSlice", resource_versions.convert(dict(s, apiVersion="resource.k8s.io/v1"), "v1beta1"))
		# v1beta1: nodeName and allNodes are values; the device's basic is there, empty
		self.assertEqual(self.fields(b1, 2), [1, 2, 3, 5, 6])
		self.assertEqual(self.fields(b1, 2, 6), [1, 2])
		claim = kpb.item("ResourceClaim", {"apiVersion": "resource.k8s.io/v1", "metadata": {"name": "c"},
			"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "x"}}]}}})
		# an empty status is written (a value); the request's count is, its adminAccess not
		self.assertEqual(self.fields(claim), [1, 2, 3])
		self.assertEqual(pb_get(claim, 3), [b""])
		self.assertEqual(self.fields(claim, 2, 1, 1, 2), [1, 3, 4])
		result = {"request": "gpu", "driver": "d", "pool": "p", "device": "gpu-0"}
		claim = kpb.item("ResourceClaim", {"apiVersion": "resource.k8s.io/v1", "metadata": {"name": "c"},
			"status": {"allocation": {"devices": {"results": [result]}}}})
		self.assertEqual(self.fields(claim, 3, 1, 1, 1), [1, 2, 3, 4])

	def test_map_entries_sorted_by_key(self):
		dev = {"name": "gpu-0", "attributes": {"uuid": {"string": "u"}, "index": {"int": 0}, "brand": {"string": "b"}},
			"capacity": {"memory": {"value": "1Gi"}, "cores": {"value": "2"}}}
		s = kpb.item("ResourceSlice", {"apiVersion": "resource.k8s.io/v1", "metadata": {"name": "s", "labels": {"z": "1",
			"a": "2"}}, "spec": {"driver": "d", "pool": {"name": "p"}, "devices": [dev]}})
		d = pb_get(s, 2, 6)[0]
		self.assertEqual([pb_get(e, 1)[0] for e in pb_get(d, 2)], [b"brand", b"index", b"uuid"])
		self.assertEqual([pb_get(e, 1)[0] for e in pb_get(d, 3)], [b"cores", b"memory"])
		self.assertEqual([pb_get(e, 1)[0] for e in pb_get(s, 1, 11)], [b"a", b"z"])


# ---- serving ----------------------------------------------------------------------------------------------


class DRACase(ClusterCase):
	scenario = "dra-whole"
	server = FakeAPI

	def get(self, path, pb=False, token=None):
		h = {"Accept": PB} if pb else None
		return self.api.call("GET", path, headers=h, token=token, raw=pb)


class TestDRADiscovery(DRACase):
	def test_a_1_34_server_serves_three_versions(self):
		st, _, d = self.get("/version")
		self.assertEqual((d["minor"], d["gitVersion"]), ("34", "v1.34.1"))
		st, _, d = self.get("/apis")
		group = next(g for g in d["groups"] if g["name"] == "resource.k8s.io")
		self.assertEqual([v["version"] for v in group["versions"]], ["v1", "v1beta2", "v1beta1"])
		self.assertEqual(group["preferredVersion"], {"groupVersion": "resource.k8s.io/v1", "version": "v1"})
		st, _, d = self.get(GROUP)
		self.assertEqual((st, d["kind"], d["name"]), (200, "APIGroup", "resource.k8s.io"))
		for v in VERSIONS:
			st, _, d = self.get("%s/%s" % (GROUP, v))
			self.assertEqual((st, d["kind"], d["groupVersion"]), (200, "APIResourceList", "resource.k8s.io/" + v))
			self.assertEqual([r["name"] for r in d["resources"]], ["deviceclasses", "resourceclaims",
				"resourceclaims/status", "resourceclaimtemplates", "resourceslices"])
			slices = d["resources"][-1]
			self.assertEqual((slices["singularName"], slices["namespaced"], slices["kind"]),
				("resourceslice", False, "ResourceSlice"))
			self.assertIn("watch", slices["verbs"])

	def test_older_servers_and_none(self):
		"""The same cluster served as 1.33 (v1beta2, v1beta1), 1.32 (v1beta1) and without the group."""
		cases = (("v1beta2,v1beta1", ["v1beta2", "v1beta1"], "33"), ("v1beta1", ["v1beta1"], "32"), ("", [], "26"))
		for flag, versions, minor in cases:
			with self.subTest(versions=flag), FakeAPI("dra-whole", resource_versions=flag) as api:
				self.assertEqual(api.call("GET", "/version")[2]["minor"], minor)
				groups = [g for g in api.call("GET", "/apis")[2]["groups"] if g["name"] == "resource.k8s.io"]
				self.assertEqual([[v["version"] for v in g["versions"]] for g in groups], [versions] if versions else [])
				for v in VERSIONS:
					st, _, d = api.call("GET", "%s/%s/resourceslices" % (GROUP, v))
					self.assertEqual(st, 200 if v in versions else 404, v)
					self.assertEqual(api.call("GET", "%s/%s" % (GROUP, v))[0], 200 if v in versions else 404)
				self.assertEqual(api.call("GET", GROUP)[0], 200 if versions else 404)

	def test_the_version_scenarios(self):
		_, _, whole = self.get(GROUP + "/v1beta1/resourceslices")
		for name, versions in (("dra-versions-v1beta1", ["v1beta1"]), ("dra-versions-v1beta2", ["v1beta2", "v1beta1"]),
				("dra-versions-none", [])):
			with self.subTest(scenario=name), FakeAPI(name) as api:
				st, _, g = api.call("GET", GROUP)
				self.assertEqual([v["version"] for v in g["versions"]] if st == 200 else [], versions)
				if versions:
					st, _, d = api.call("GET", GROUP + "/v1beta1/resourceslices")
					self.assertEqual(d["items"], whole["items"])


class TestDRAReads(DRACase):
	def test_list_get_in_json_and_protobuf(self):
		for v in VERSIONS:
			for res, (kind, namespaced) in RESOURCES.items():
				with self.subTest(version=v, resource=res):
					self.check_list_and_get(v, res, kind, namespaced)

	def check_list_and_get(self, v, res, kind, namespaced):
		api_version = "resource.k8s.io/" + v
		st, _, d = self.get("%s/%s/%s?resourceVersion=0" % (GROUP, v, res))
		self.assertEqual((st, d["kind"], d["apiVersion"]), (200, kind + "List", api_version))
		self.assertTrue(d["items"])
		st, h, body = self.get("%s/%s/%s?resourceVersion=0" % (GROUP, v, res), pb=True)
		self.assertEqual((st, h["Content-Type"]), (200, PB))
		self.assertEqual(pb_envelope(body)[:2], (api_version, kind + "List"))
		items = pb_get(pb_envelope(body)[2], 2)
		# each item the encoding of the JSON item of the same version
		self.assertEqual(items, [kpb.item(kind, dict(it, apiVersion=api_version)) for it in d["items"]])
		first = d["items"][0]["metadata"]
		path = "%s/%s/%s%s/%s" % (GROUP, v, "namespaces/%s/" % first["namespace"] if namespaced else "", res, first["name"])
		st, _, obj = self.get(path)
		self.assertEqual((st, obj["kind"], obj["apiVersion"]), (200, kind, api_version))
		self.assertEqual(dict(d["items"][0], kind=kind, apiVersion=api_version), obj)
		st, h, body = self.get(path, pb=True)
		self.assertEqual((st, pb_envelope(body)), (200, (api_version, kind, items[0])))

	def test_versions_have_their_shapes(self):
		_, _, b1 = self.get(GROUP + "/v1beta1/resourceslices")
		dev = b1["items"][0]["spec"]["devices"][0]
		self.assertEqual(sorted(dev), ["basic", "name"])
		self.assertEqual(dev["basic"]["attributes"]["type"], {"string": "gpu"})
		for v in ("v1", "v1beta2"):
			_, _, d = self.get(GROUP + "/%s/resourceslices" % v)
			self.assertEqual(d["items"][0]["spec"]["devices"][0]["attributes"]["type"], {"string": "gpu"})
		_, _, claims = self.get(GROUP + "/v1beta1/namespaces/ml/resourceclaims")
		self.assertEqual(claims["items"][0]["spec"]["devices"]["requests"], [{"name": "gpu",
			"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 1}])
		_, _, claims = self.get(GROUP + "/v1/namespaces/ml/resourceclaims")
		self.assertEqual(claims["items"][0]["spec"]["devices"]["requests"][0]["exactly"]["count"], 1)
		# in protobuf: v1beta1's device holds its attributes in basic (2), v1's directly (2 is its attributes)
		_, _, body = self.get(GROUP + "/v1beta1/resourceslices", pb=True)
		dev = pb_get(pb_get(pb_envelope(body)[2], 2)[0], 2, 6)[0]
		self.assertEqual([n for n, _ in pb_fields(dev)], [1, 2])

	def test_selectors_and_paging(self):
		q = urllib.parse.quote
		_, _, d = self.get(GROUP + "/v1/resourceslices?fieldSelector=" + q("spec.nodeName=dra-a100-2"))
		self.assertEqual([s["spec"]["nodeName"] for s in d["items"]], ["dra-a100-2"])
		_, _, d = self.get(GROUP + "/v1beta1/resourceslices?fieldSelector=" + q("spec.driver=gpu.nvidia.com"))
		self.assertEqual(len(d["items"]), 2)
		_, _, d = self.get(GROUP + "/v1/resourceslices?fieldSelector=" + q("spec.driver=other.example.com"))
		self.assertEqual(d["items"], [])
		st, _, d = self.get(GROUP + "/v1/resourceclaims?fieldSelector=" + q("spec.nodeName=x"))
		self.assertEqual((st, d["message"]), (400, "field label not supported: spec.nodeName"))
		_, _, d = self.get(GROUP + "/v1/deviceclasses?labelSelector=" + q("app.kubernetes.io/managed-by=Helm"))
		self.assertEqual([c["metadata"]["name"] for c in d["items"]], ["gpu.nvidia.com", "mig.nvidia.com"])
		names, cont = [], ""
		while True:
			_, _, d = self.get(GROUP + "/v1beta2/resourceclaims?limit=1" + ("&continue=" + cont if cont else ""))
			names += [c["metadata"]["name"] for c in d["items"]]
			cont = d["metadata"].get("continue")
			if not cont:
				break
		self.assertEqual(len(names), 3)
		_, _, d = self.get(GROUP + "/v1beta2/resourceclaims?limit=1&resourceVersion=0")
		self.assertEqual(len(d["items"]), 3)

	def test_permissions(self):
		st, _, d = self.get(GROUP + "/v1/resourceslices", token=self.api.tokens["viewer"])
		self.assertEqual((st, d["message"]), (403, 'resourceslices is forbidden: User "viewer" cannot list resource '
			'"resourceslices" in API group "resource.k8s.io" at the cluster scope'))
		self.assertEqual(d["details"], {"kind": "resourceslices", "group": "resource.k8s.io"})
		self.assertEqual(self.get(GROUP + "/v1/resourceslices", token=self.api.tokens["dra-viewer"])[0], 200)

	def test_claim_status_subresource(self):
		_, _, claims = self.get(GROUP + "/v1/namespaces/ml/resourceclaims")
		name = claims["items"][0]["metadata"]["name"]
		st, _, d = self.get(GROUP + "/v1beta1/namespaces/ml/resourceclaims/%s/status" % name)
		self.assertEqual((st, d["apiVersion"]), (200, "resource.k8s.io/v1beta1"))
		self.assertEqual(d["status"], claims["items"][0]["status"])

	def test_patch_in_one_version_is_seen_in_all(self):
		_, _, d = self.get(GROUP + "/v1beta1/resourceslices")
		name = d["items"][0]["metadata"]["name"]
		st, _, out = self.api.call("PATCH", GROUP + "/v1beta1/resourceslices/" + name,
			{"metadata": {"labels": {"rack": "r7"}}}, headers={"Content-Type": "application/merge-patch+json"})
		self.assertEqual((st, out["apiVersion"], out["metadata"]["labels"]), (200, "resource.k8s.io/v1beta1", {"rack": "r7"}))
		self.assertIn("basic", out["spec"]["devices"][0])
		_, _, v1 = self.get(GROUP + "/v1/resourceslices/" + name)
		self.assertEqual(v1["metadata"]["labels"], {"rack": "r7"})
		self.assertIn("attributes", v1["spec"]["devices"][0])


class TestDRAWatch(DRACase):
	options = {"bookmark_interval": 0.3}

	def watch(self, v, res, pb):
		"""The events of a watch of res in version v from the start, ended by the server after 0.5 s."""
		h = {"Accept": PB + ";stream=watch" if pb else "application/json"}
		st, _, body = self.api.call("GET", "%s/%s/%s?watch=1&allowWatchBookmarks=true&timeoutSeconds=0.5" % (
			GROUP, v, res), headers=h, raw=True)
		if pb:
			return st, pb_watch_events(body)
		return st, [json.loads(line) for line in body.splitlines()]

	def test_initial_events_and_bookmarks_in_every_version(self):
		cases = [(v, res, pb) for v in VERSIONS for res in RESOURCES for pb in (False, True)]
		# the watches run side by side: each lasts until the server ends it
		with concurrent.futures.ThreadPoolExecutor(8) as ex:
			streams = dict(zip(cases, ex.map(lambda c: self.watch(*c), cases)))
		for v in VERSIONS:
			for res, (kind, _ns) in RESOURCES.items():
				with self.subTest(version=v, resource=res):
					_, _, lst = self.get("%s/%s/%s" % (GROUP, v, res))
					st, evs = streams[(v, res, False)]
					self.assertEqual(st, 200)
					added = [e["object"] for e in evs if e["type"] == "ADDED"]
					self.assertEqual([dict(o, kind=None, apiVersion=None) for o in added],
						[dict(o, kind=None, apiVersion=None) for o in lst["items"]])
					self.assertTrue(all(o["apiVersion"] == "resource.k8s.io/" + v for o in added))
					bm = [e["object"] for e in evs if e["type"] == "BOOKMARK"]
					self.assertTrue(bm and bm[0]["kind"] == kind and bm[0]["apiVersion"] == "resource.k8s.io/" + v)
					st, pbs = streams[(v, res, True)]
					self.assertEqual([raw for t, _av, _k, raw in pbs if t == "ADDED"],
						[kpb.item(kind, dict(o, apiVersion="resource.k8s.io/" + v)) for o in lst["items"]])
					self.assertTrue(all((av, k) == ("resource.k8s.io/" + v, kind) for _t, av, k, _raw in pbs))

	def test_changes_arrive_in_the_watched_version(self):
		_, _, lst = self.get(GROUP + "/v1/namespaces/ml/resourceclaims")
		claim = dict(lst["items"][0], kind="ResourceClaim", apiVersion="resource.k8s.io/v1")
		rv = lst["metadata"]["resourceVersion"]
		claim["metadata"] = dict(claim["metadata"], labels={"seen": "yes"})
		self.api.put_object(claim)
		_, _, body = self.api.call("GET", GROUP + "/v1beta1/namespaces/ml/resourceclaims?watch=1&timeoutSeconds=1"
			"&resourceVersion=" + rv, raw=True)
		evs = [json.loads(line) for line in body.splitlines()]
		self.assertEqual([(e["type"], e["object"]["metadata"]["labels"]) for e in evs], [("MODIFIED", {"seen": "yes"})])
		req = evs[0]["object"]["spec"]["devices"]["requests"][0]
		self.assertEqual((evs[0]["object"]["apiVersion"], req["deviceClassName"]), ("resource.k8s.io/v1beta1",
			"gpu.nvidia.com"))
		# an object written in v1beta1 through the control endpoint is kept in v1 and served in each version
		b1 = dict(evs[0]["object"], metadata=dict(evs[0]["object"]["metadata"], labels={"seen": "again"}))
		self.api.put_object(b1)
		_, _, v1 = self.get(GROUP + "/v1/namespaces/ml/resourceclaims/" + claim["metadata"]["name"])
		self.assertEqual((v1["metadata"]["labels"], v1["spec"]["devices"]["requests"][0]["exactly"]["count"]),
			({"seen": "again"}, 1))


# ---- the scenarios ---------------------------------------------------------------------------------------


def by_kind(objects):
	out = {}
	for o in objects:
		out.setdefault(o["kind"], []).append(o)
	return out


def current_devices(slices):
	"""{(pool, device): (slice, device)} of the slices at each pool's highest generation."""
	top = {}
	for s in slices:
		p = s["spec"]["pool"]
		top[p["name"]] = max(top.get(p["name"], 0), p["generation"])
	out = {}
	for s in slices:
		p = s["spec"]["pool"]
		if p["generation"] == top[p["name"]]:
			for d in s["spec"].get("devices", []):
				out[(p["name"], d["name"])] = (s, d)
	return out


def allocations(claims):
	"""[(namespace/claim, pool/device, result)] of every allocated claim."""
	return [("%s/%s" % (c["metadata"]["namespace"], c["metadata"]["name"]), "%s/%s" % (r["pool"], r["device"]), r)
		for c in claims for r in (c.get("status", {}).get("allocation") or {}).get("devices", {}).get("results", [])]


class TestDRAScenarios(unittest.TestCase):
	"""Every DRA scenario loads, is consistent (claims name devices that exist and pods that exist, pods name
	claims that exist), and holds what fixtures/README.md says."""

	def test_every_scenario_is_served(self):
		self.assertEqual(len(DRA_SCENARIOS), 15)
		for name in DRA_SCENARIOS:
			with self.subTest(scenario=name), FakeAPI(name) as api:
				st, _, g = api.call("GET", GROUP)
				v = g["preferredVersion"]["version"] if st == 200 else None
				objects, _ = load_scenario(os.path.join(SCENARIOS, name))
				for res, (kind, _ns) in RESOURCES.items():
					if v is None:
						continue
					st, _, d = api.call("GET", "%s/%s/%s" % (GROUP, v, res))
					self.assertEqual((st, len(d["items"])), (200, sum(o["kind"] == kind for o in objects)), res)

	def test_consistent(self):
		for name in DRA_SCENARIOS:
			with self.subTest(scenario=name):
				check_consistent(self, by_kind(load_scenario(os.path.join(SCENARIOS, name))[0]))

	def test_what_each_holds(self):
		for name, check in SCENARIO_FACTS.items():
			with self.subTest(scenario=name):
				check(self, by_kind(load_scenario(os.path.join(SCENARIOS, name))[0]))

	def test_generated_cluster(self):
		objects, config = load_scenario("gen:nodes=4,pods=60,gpus=8,mem=80,dra=1,done=10")
		k = by_kind(objects)
		self.assertEqual(config["settings"]["resource_versions"], ["v1"])
		self.assertEqual((len(k["Node"]), len(k["ResourceSlice"])), (4, 4))
		self.assertEqual({len(s["spec"]["devices"]) for s in k["ResourceSlice"]}, {8})
		running = [p for p in k["Pod"] if p["status"]["phase"] == "Running"]
		self.assertEqual(len(k["ResourceClaim"]), len(running))
		self.assertGreater(len(running), 40)
		check_consistent(self, k)
		with FakeAPI("gen:nodes=4,pods=60,gpus=8,mem=80,dra=1", prerender=True) as api:
			st, _, d = api.call("GET", GROUP + "/v1/resourceclaims?resourceVersion=0")
			self.assertEqual((st, len(d["items"])), (200, 60))
			self.assertEqual(api.call("GET", GROUP + "/v1beta1/resourceslices")[0], 404)


def check_consistent(t, k):
	slices, claims, pods = k.get("ResourceSlice", []), k.get("ResourceClaim", []), k.get("Pod", [])
	devices = current_devices(slices)
	nodes = {n["metadata"]["name"] for n in k.get("Node", [])}
	pod_uids = {(p["metadata"]["namespace"], p["metadata"]["name"]): p["metadata"]["uid"] for p in pods}
	for s in slices:
		# placed on a node, or by a selector naming nodes (matchFields metadata.name In [...])
		named = [s["spec"]["nodeName"]] if "nodeName" in s["spec"] else [v for term in s["spec"]["nodeSelector"][
			"nodeSelectorTerms"] for f in term.get("matchFields", []) for v in f["values"]]
		t.assertTrue(named)
		for n in named:
			t.assertIn(n, nodes)
	taken = {}
	for cname, dev, r in allocations(claims):
		t.assertIn(tuple(dev.split("/")), devices, cname)
		shared = devices[tuple(dev.split("/"))][1].get("allowMultipleAllocations")
		t.assertEqual(bool(r.get("shareID")), bool(shared), cname)
		taken.setdefault(dev, []).append(cname)
	t.assertEqual([d for d, c in taken.items() if len(c) > 1 and not devices[tuple(d.split("/"))][1].get(
		"allowMultipleAllocations")], [])
	names = {(c["metadata"]["namespace"], c["metadata"]["name"]) for c in claims}
	for c in claims:
		ns = c["metadata"]["namespace"]
		for r in c.get("status", {}).get("reservedFor", []):
			t.assertEqual(pod_uids.get((ns, r["name"])), r["uid"], c["metadata"]["name"])
	for p in pods:
		ns = p["metadata"]["namespace"]
		refs = {rc["name"] for rc in p["spec"].get("resourceClaims", [])}
		for ctr in p["spec"]["containers"]:
			t.assertLessEqual({x["name"] for x in ctr.get("resources", {}).get("claims", [])}, refs)
		made = [s["resourceClaimName"] for s in p["status"].get("resourceClaimStatuses", [])]
		made += [rc["resourceClaimName"] for rc in p["spec"].get("resourceClaims", []) if "resourceClaimName" in rc]
		ext = p["status"].get("extendedResourceClaimStatus")
		made += [ext["resourceClaimName"]] if ext else []
		for m in made:
			t.assertIn((ns, m), names, p["metadata"]["name"])


def facts_whole(t, k):
	t.assertEqual(sorted(d for _c, d, _r in allocations(k["ResourceClaim"])), ["dra-a100-1/gpu-0", "dra-a100-1/gpu-1",
		"dra-a100-2/gpu-0", "dra-a100-2/gpu-1"])
	t.assertEqual(len(current_devices(k["ResourceSlice"])), 8)
	t.assertEqual(sorted(p["metadata"]["name"] for p in k["Pod"]), ["infer-0", "train-0", "train-1"])


def facts_shared(claim_name, pods, sharing):
	def check(t, k):
		c = next(c for c in k["ResourceClaim"] if c["metadata"]["name"] == claim_name)
		t.assertEqual(sorted(r["name"] for r in c["status"]["reservedFor"]), pods)
		t.assertEqual(c["status"]["allocation"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"], sharing)
		t.assertEqual([d for _c, d, _r in allocations(k["ResourceClaim"])], [c["status"]["allocation"]["devices"][
			"results"][0]["pool"] + "/gpu-0"])
	return check


def facts_consumable(t, k):
	results = [r for _c, _d, r in allocations(k["ResourceClaim"])]
	t.assertEqual(sorted(int(r["consumedCapacity"]["memory"][:-2]) for r in results), [10, 20, 30])
	t.assertEqual(len({r["shareID"] for r in results}), 3)
	dev = k["ResourceSlice"][0]["spec"]["devices"][0]
	t.assertEqual((dev["allowMultipleAllocations"], dev["capacity"]["memory"]["value"]), (True, "80Gi"))


def facts_mig(t, k):
	devices = current_devices(k["ResourceSlice"])
	t.assertEqual(len(devices), 11)
	counters = next(s for s in k["ResourceSlice"] if s["spec"].get("sharedCounters"))["spec"]["sharedCounters"][0]
	used = {}
	for _c, dev, _r in allocations(k["ResourceClaim"]):
		for n, v in devices[tuple(dev.split("/"))][1]["consumesCounters"][0]["counters"].items():
			used[n] = used.get(n, 0) + int(v["value"].rstrip("Mi"))
	t.assertEqual((used["multiprocessors"], counters["counters"]["multiprocessors"]["value"]), (70, "98"))
	t.assertEqual((used["memory"], counters["counters"]["memory"]["value"]), (29696, "40192Mi"))
	t.assertEqual(sorted(n for n in used if n.startswith("memory-slice")), ["memory-slice-%d" % i for i in (0, 1, 4, 5, 6, 7)])


def facts_taint(t, k):
	devs = current_devices(k["ResourceSlice"])
	held = {d for _c, d, _r in allocations(k["ResourceClaim"])}
	effects = {"%s/%s" % key: [x["effect"] for x in d.get("taints", [])] for key, (_s, d) in devs.items()}
	t.assertEqual(effects, {"dra-taint-1/gpu-0": ["NoSchedule"], "dra-taint-1/gpu-1": ["NoExecute"],
		"dra-taint-1/gpu-2": []})
	t.assertEqual(held, {"dra-taint-1/gpu-0", "dra-taint-1/gpu-1"})


def facts_incomplete(t, k):
	pools = sorted((s["spec"]["pool"]["name"], s["spec"]["pool"]["generation"], s["spec"]["pool"]["resourceSliceCount"],
		len(s["spec"]["devices"])) for s in k["ResourceSlice"])
	t.assertEqual(pools, [("dra-pool-1", 1, 1, 4), ("dra-pool-1", 2, 2, 2), ("dra-pool-2", 1, 1, 2)])


def facts_bridged(t, k):
	cls = next(c for c in k["DeviceClass"] if c["metadata"]["name"] == "gpu.nvidia.com")
	t.assertEqual(cls["spec"]["extendedResourceName"], "nvidia.com/gpu")
	pod = next(p for p in k["Pod"] if p["metadata"]["name"] == "legacy-app-0")
	t.assertNotIn("resourceClaims", pod["spec"])
	t.assertEqual(pod["spec"]["containers"][0]["resources"]["limits"], {"nvidia.com/gpu": "1"})
	ext = pod["status"]["extendedResourceClaimStatus"]
	c = next(c for c in k["ResourceClaim"] if c["metadata"]["name"] == ext["resourceClaimName"])
	t.assertEqual(c["metadata"]["annotations"], {"resource.kubernetes.io/extended-resource-claim": "true"})
	t.assertEqual(c["status"]["allocation"]["devices"]["results"][0]["device"], "gpu-0")


def facts_leaked(t, k):
	c = next(c for c in k["ResourceClaim"] if c["metadata"]["name"] == "orphan-gpu")
	t.assertEqual((c["status"]["allocation"]["devices"]["results"][0]["device"], c["status"].get("reservedFor")),
		("gpu-1", None))


def facts_pending(t, k):
	pod = next(p for p in k["Pod"] if p["metadata"]["name"] == "waiting-0")
	t.assertNotIn("nodeName", pod["spec"])
	c = next(c for c in k["ResourceClaim"] if c["metadata"]["name"] == pod["status"]["resourceClaimStatuses"][0][
		"resourceClaimName"])
	t.assertEqual(c["status"], {})
	ev = k["Event"][0]
	t.assertEqual((ev["reason"], ev["involvedObject"]["name"]), ("FailedScheduling", "waiting-0"))
	t.assertIn("cannot allocate all claims", ev["message"])


def facts_mixed(t, k):
	t.assertEqual(sorted(n["metadata"]["name"] for n in k["Node"]), ["cgpu-v100-1", "dra-a100-1", "hami-a100-1"])
	t.assertEqual([d for _c, d, _r in allocations(k["ResourceClaim"])], ["dra-a100-1/gpu-0"])


def facts_pools(t, k):
	pools = sorted((s["spec"]["driver"], s["spec"]["pool"]["name"], s["spec"].get("nodeName"),
		[d["name"] for d in s["spec"]["devices"]]) for s in k["ResourceSlice"])
	t.assertEqual(pools, [("gaudi.intel.com", "dra-gaudi-1", "dra-gaudi-1", ["accel-0", "accel-1"]),
		("gpu.nvidia.com", "dra-a100-3", "dra-a100-3", ["gpu-0", "gpu-1"]),
		("gpu.nvidia.com", "dra-rack-1", None, ["gpu-0"])])
	rack = next(s for s in k["ResourceSlice"] if s["spec"]["pool"]["name"] == "dra-rack-1")
	t.assertEqual(rack["spec"]["nodeSelector"], {"nodeSelectorTerms": [{"matchFields": [
		{"key": "metadata.name", "operator": "In", "values": ["dra-a100-3"]}]}]})
	t.assertNotIn("ownerReferences", rack["metadata"])
	t.assertEqual({"capacity" in d for s in k["ResourceSlice"] if s["spec"]["driver"] == "gaudi.intel.com"
		for d in s["spec"]["devices"]}, {False})
	t.assertEqual(sorted(d for _c, d, _r in allocations(k["ResourceClaim"])),
		["dra-a100-3/gpu-0", "dra-gaudi-1/accel-0", "dra-rack-1/gpu-0"])


SCENARIO_FACTS = {
	"dra-whole": facts_whole,
	"dra-timeslicing": facts_shared("shared-gpu", ["notebook-0", "notebook-1", "notebook-2"],
		{"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}}),
	"dra-mps": facts_shared("mps-gpu", ["server-0", "server-1"], {"strategy": "MPS", "mpsConfig": {
		"defaultActiveThreadPercentage": 50, "defaultPinnedDeviceMemoryLimit": "10Gi"}}),
	"dra-consumable": facts_consumable,
	"dra-mig": facts_mig,
	"dra-taint": facts_taint,
	"dra-incomplete": facts_incomplete,
	"dra-bridged": facts_bridged,
	"dra-leaked": facts_leaked,
	"dra-pending": facts_pending,
	"dra-mixed": facts_mixed,
	"dra-pools": facts_pools,
}


# ---- the real tier's helpers ------------------------------------------------------------------------------


class TestRealServerHelpers(unittest.TestCase):
	"""tests/envtest/envtest_dra.py: what it would send to a newer server (the shipped one has no DRA)."""

	def test_flags_per_release(self):
		self.assertEqual(envtest_dra.apiserver_args_for(26), [])
		self.assertEqual(envtest_dra.apiserver_args_for(32), ["--runtime-config=resource.k8s.io/v1beta1=true",
			"--feature-gates=DynamicResourceAllocation=true"])
		args = envtest_dra.apiserver_args_for(34)
		self.assertEqual(args[0], "--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true")
		self.assertIn("DRAConsumableCapacity=true", args[1])
		self.assertNotIn("DynamicResourceAllocation", args[1])

	def test_requests_that_load_a_scenario(self):
		objects, _ = load_scenario(os.path.join(SCENARIOS, "dra-whole"))
		dra, rest = envtest_dra.split(objects)
		self.assertEqual(len(dra) + len(rest), len(objects))
		nodes = {o["metadata"]["name"]: "node-uid-" + o["metadata"]["name"] for o in rest if o["kind"] == "Node"}
		pods = {(o["metadata"]["namespace"], o["metadata"]["name"]): "pod-uid-" + o["metadata"]["name"]
			for o in rest if o["kind"] == "Pod"}
		reqs = envtest_dra.requests_for(dra, "v1beta1", nodes, pods)
		self.assertEqual([r[2]["kind"] for r in reqs], ["DeviceClass"] * 2 + ["ResourceSlice"] * 2 +
			["ResourceClaimTemplate"] * 2 + ["ResourceClaim"] * 3)
		for method, path, body, status in reqs:
			self.assertEqual((method, body["apiVersion"]), ("POST", "resource.k8s.io/v1beta1"))
			self.assertTrue(path.startswith("/apis/resource.k8s.io/v1beta1/"), path)
			self.assertNotIn("status", body)
			for f in ("uid", "resourceVersion", "managedFields", "finalizers"):
				self.assertNotIn(f, body["metadata"])
		slice_req = reqs[2]
		self.assertEqual(slice_req[1], "/apis/resource.k8s.io/v1beta1/resourceslices")
		self.assertIn("basic", slice_req[2]["spec"]["devices"][0])
		self.assertEqual(slice_req[2]["metadata"]["ownerReferences"][0]["uid"], "node-uid-" + slice_req[2]["spec"]["nodeName"])
		claim_req = reqs[-1]
		self.assertEqual(claim_req[1], "/apis/resource.k8s.io/v1beta1/namespaces/serving/resourceclaims")
		self.assertEqual(claim_req[2]["metadata"]["ownerReferences"][0]["uid"], "pod-uid-infer-0")
		self.assertEqual(claim_req[3]["reservedFor"], [{"resource": "pods", "name": "infer-0", "uid": "pod-uid-infer-0"}])
