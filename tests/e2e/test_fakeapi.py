"""The fake API server's own behaviour, checked against what a real kube-apiserver sends."""

import base64
import gzip
import http.client
import json
import os
import ssl
import tempfile
import threading
import time
import unittest
import urllib.parse

from harness import SCENARIOS, APIServer, ClusterCase, FakeAPI, backend, real_cluster, real_only
import fakeapi_dra

# Bodies as captured from a real kube-apiserver v1.26 (names adapted where the request differs), each ending
# with the newline Go's JSON encoder writes.
FORBIDDEN = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes is forbidden: '
	b'User \\"nobody\\" cannot list resource \\"nodes\\" in API group \\"\\" at the cluster scope","reason":"Forbidden",'
	b'"details":{"kind":"nodes"},"code":403}\n')
UNAUTHORIZED = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized",'
	b'"reason":"Unauthorized","code":401}\n')
NOTFOUND = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes \\"no-such-node\\" '
	b'not found","reason":"NotFound","details":{"name":"no-such-node","kind":"nodes"},"code":404}\n')
BADFIELD = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"field label not '
	b'supported: spec.foo","reason":"BadRequest","code":400}\n')
BADLABEL = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse '
	b'requirement: found \'=\', expected: identifier","reason":"BadRequest","code":400}\n')
BADTYPE = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"415: Unsupported Media '
	b'Type","reason":"UnsupportedMediaType","details":{},"code":415}\n')
EVICT_OK = b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}\n'
LABEL_MSG = ("Invalid value: \"not valid!\": a valid label must be an empty string or consist of alphanumeric "
	"characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
	"'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
SEED_NODE = "cn-hangzhou.192.168.2.167"


def load_tests(loader, tests, _pattern):
	"""This module's tests and those of Dynamic Resource Allocation (resource.k8s.io), in a module of their own."""
	tests.addTests(loader.loadTestsFromModule(fakeapi_dra))
	return tests


def jbytes(obj):
	return json.dumps(obj, separators=(",", ":")).encode()


def status_bytes(obj):
	"""A Status body as the server writes it: compact JSON and a newline."""
	return jbytes(obj) + b"\n"


class Base(ClusterCase):
	scenario = "seed002"
	server = FakeAPI

	def raw(self, method, path, body=None, headers=None, token=None, cert=True):
		"""One request on a fresh connection with http.client: (status, headers, body bytes)."""
		ctx = self.api.ssl if cert and token is None else self.api.ssl_anon
		c = http.client.HTTPSConnection("127.0.0.1", self.api.port, context=ctx, timeout=20)
		h = {"Accept": "application/json"}
		if token:
			h["Authorization"] = "Bearer " + token
		h.update(headers or {})
		try:
			c.request(method, path, body=body, headers=h)
			r = c.getresponse()
			data = r.read()
			return r.status, r.headers, data
		finally:
			c.close()


class TestStartup(unittest.TestCase):
	def test_starts_fast_and_stops_cleanly(self):
		times = []
		ready = []
		for _ in range(3):
			api = FakeAPI("seed002").start()
			times.append(api.startup_seconds)
			ready.append(api.ready_seconds)
			st, _, body = api.call("GET", "/version")
			self.assertEqual(st, 200)
			self.assertEqual(body["gitVersion"], "v1.26.1-rc.0+cf384344a742")
			api.stop()
			self.assertEqual(api.returncode, 0)
			self.assertNotIn("Traceback", api.stderr)
		# ready = from the server's main() to listening (certificates included); times = wall clock from
		# spawning the interpreter, which a loaded machine stretches.
		self.assertLess(min(ready), 1.0, "ready times %r" % ready)
		self.assertLess(min(times), 3.0, "start-up times %r" % times)

	def test_sigint_and_open_watch(self):
		api = FakeAPI("seed002").start()
		try:
			c = http.client.HTTPSConnection("127.0.0.1", api.port, context=api.ssl, timeout=10)
			c.request("GET", "/api/v1/pods?watch=1")
			r = c.getresponse()
			self.assertEqual(r.status, 200)
			api.proc.send_signal(2)
			api.proc.wait(5)
			self.assertEqual(api.proc.returncode, 0)
			c.close()
		finally:
			api.stop()
		self.assertNotIn("Traceback", api.stderr)

	def test_kubeconfig_contexts(self):
		with FakeAPI("seed002") as api:
			with open(api.kubeconfig) as f:
				text = f.read()
			for ctx in ("admin", "admin-token", "viewer", "nobody", "badtoken"):
				self.assertIn("- name: %s\n  context:" % ctx, text)
			self.assertIn("current-context: admin", text)
			self.assertIn("server: https://127.0.0.1:%d" % api.port, text)

	def test_generator_scenario(self):
		with FakeAPI("gen:nodes=5,pods=40,gpus=2", prerender=True) as api:
			st, _, body = api.call("GET", "/api/v1/pods")
			self.assertEqual(len(body["items"]), 40)
			st, _, body = api.call("GET", "/api/v1/nodes")
			self.assertEqual(len(body["items"]), 5)
			self.assertEqual(body["items"][0]["status"]["allocatable"]["aliyun.com/gpu-count"], "2")


class TestStatusBodies(Base):
	def test_headers_and_get(self):
		st, h, body = self.raw("GET", "/api/v1/nodes/" + SEED_NODE)
		self.assertEqual(st, 200)
		self.assertEqual(h["Content-Type"], "application/json")
		self.assertEqual(h["Cache-Control"], "no-cache, private")
		self.assertRegex(h["Audit-Id"], r"^[0-9a-f-]{36}$")
		self.assertTrue(body.endswith(b"}\n"))
		self.assertNotIn(b"\n", body[:-1])
		self.assertNotIn(b": ", body[:200])
		d = json.loads(body)
		self.assertEqual((d["kind"], d["apiVersion"]), ("Node", "v1"))
		self.assertEqual(d["status"]["allocatable"]["aliyun.com/gpu-mem"], "15")
		self.assertEqual(d["status"]["addresses"][0], {"type": "InternalIP", "address": "192.168.2.167"})

	def test_list_items_have_no_kind(self):
		st, _, d = self.api.call("GET", "/api/v1/namespaces/default/pods")
		self.assertEqual((d["kind"], d["apiVersion"]), ("PodList", "v1"))
		self.assertEqual([p["metadata"]["name"] for p in d["items"]], ["app-3g-v1-0", "app-3g-v1-1"])
		self.assertNotIn("kind", d["items"][0])
		self.assertEqual(d["items"][0]["metadata"]["annotations"]["ALIYUN_COM_GPU_MEM_IDX"], "0")
		self.assertRegex(d["metadata"]["resourceVersion"], r"^\d+$")

	def test_403(self):
		st, h, body = self.raw("GET", "/api/v1/nodes", token=self.api.tokens["nobody"])
		self.assertEqual(st, 403)
		self.assertEqual(body, FORBIDDEN)
		self.assertEqual(h["X-Content-Type-Options"], "nosniff")
		st, _, body = self.raw("GET", "/api/v1/namespaces/kube-system/pods", token=self.api.tokens["nobody"])
		self.assertIn(b'User \\"nobody\\" cannot list resource \\"pods\\" in API group \\"\\" in the namespace '
			b'\\"kube-system\\"', body)
		st, _, body = self.raw("PATCH", "/api/v1/nodes/" + SEED_NODE, b"{}",
			{"Content-Type": "application/merge-patch+json"}, token=self.api.tokens["viewer"])
		self.assertEqual(st, 403)
		self.assertIn(b'nodes \\"' + SEED_NODE.encode() + b'\\" is forbidden: User \\"viewer\\" cannot patch resource '
			b'\\"nodes\\" in API group \\"\\" at the cluster scope', body)
		st, _, body = self.raw("DELETE", "/api/v1/namespaces/default/pods/app-3g-v1-0", token=self.api.tokens["viewer"])
		self.assertIn(b'cannot delete resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\"', body)
		st, _, body = self.raw("GET", "/apis/apps/v1/namespaces/kube-system/daemonsets/x",
			token=self.api.tokens["viewer"])
		self.assertIn(b'cannot get resource \\"daemonsets\\" in API group \\"apps\\" in the namespace '
			b'\\"kube-system\\"', body)
		# viewer may read nodes and pods
		st, _, _ = self.raw("GET", "/api/v1/pods", token=self.api.tokens["viewer"])
		self.assertEqual(st, 200)
		st, _, body = self.raw("GET", "/api/v1/nodes", cert=False)
		self.assertEqual(st, 403)
		self.assertIn(b'User \\"system:anonymous\\" cannot list', body)

	def test_401(self):
		st, h, body = self.raw("GET", "/api/v1/nodes", token=self.api.tokens["badtoken"])
		self.assertEqual((st, body), (401, UNAUTHORIZED))
		self.assertNotIn("X-Kubernetes-Pf-Flowschema-Uid", h)
		st, _, _ = self.raw("GET", "/api/v1/nodes", token=self.api.tokens["admin-token"])
		self.assertEqual(st, 200)

	def test_404(self):
		self.assertEqual(self.raw("GET", "/api/v1/nodes/no-such-node")[::2], (404, NOTFOUND))
		st, _, body = self.raw("GET", "/api/v1/widgets")
		self.assertEqual(st, 404)
		self.assertEqual(json.loads(body)["message"], "the server could not find the requested resource")

	def test_400_selectors(self):
		q = urllib.parse.quote
		self.assertEqual(self.raw("GET", "/api/v1/pods?fieldSelector=" + q("spec.foo=bar"))[::2], (400, BADFIELD))
		self.assertEqual(self.raw("GET", "/api/v1/nodes?labelSelector=" + q("a===b"))[::2], (400, BADLABEL))

	def test_version_and_discovery(self):
		st, _, body = self.raw("GET", "/version")
		self.assertEqual(st, 200)
		self.assertEqual(json.loads(body)["minor"], "26")
		st, _, d = self.api.call("GET", "/api/v1")
		self.assertIn("pods/eviction", [r["name"] for r in d["resources"]])

	def test_impersonation(self):
		st, _, body = self.raw("PATCH", "/api/v1/nodes/" + SEED_NODE, b'{"metadata":{"labels":{"a":"b"}}}',
			{"Content-Type": "application/merge-patch+json", "Impersonate-User": "viewer"})
		self.assertEqual(st, 403)
		self.assertIn(b'User \\"viewer\\" cannot patch', body)
		st, _, _ = self.raw("GET", "/api/v1/nodes", headers={"Impersonate-User": "viewer"})
		self.assertEqual(st, 200)
		st, _, body = self.raw("GET", "/api/v1/nodes", headers={"Impersonate-User": "admin"},
			token=self.api.tokens["viewer"])
		self.assertEqual(st, 403)
		log = [e for e in self.api.requests() if e.get("impersonated_user")]
		self.assertEqual(log[0]["impersonated_user"], "viewer")
		self.assertEqual(log[0]["headers"]["impersonate-user"], "viewer")


class TestHostileErrors(Base):
	options = {"hostile": "text"}
	MARK = "\x1b]0;pwned\x07"  # the start of what --hostile text appends

	def test_every_error_carries_the_text_and_one_without_a_reason_keeps_none(self):
		st, _, body = self.raw("GET", "/api/v1/nodes/no-such-node")
		d = json.loads(body)
		self.assertEqual(st, 404, d)
		self.assertTrue(d["reason"].startswith("NotFound" + self.MARK), d)
		self.assertIn(self.MARK, d["message"])
		# a resourceVersion that is not a number is a 500 without a reason
		st, _, body = self.raw("GET", "/api/v1/pods?resourceVersion=abc")
		d = json.loads(body)
		self.assertEqual(st, 500, d)
		self.assertNotIn("reason", d)
		self.assertIn(self.MARK, d["message"])


class TestPaging(Base):
	scenario = "selectors"

	def names(self, path):
		st, _, d = self.api.call("GET", path)
		self.assertEqual(st, 200, d)
		return [i["metadata"]["name"] for i in d["items"]], d["metadata"]

	def test_pages_with_selectors(self):
		sel = urllib.parse.quote("ack.node.gpu.schedule")
		full, _ = self.names("/api/v1/nodes?labelSelector=" + sel)
		self.assertEqual(len(full), 9)
		got = []
		cont = None
		pages = 0
		while True:
			path = "/api/v1/nodes?limit=2&labelSelector=" + sel + ("&continue=" + cont if cont else "")
			names, meta = self.names(path)
			pages += 1
			got += names
			self.assertNotIn("remainingItemCount", meta)
			cont = meta.get("continue")
			if not cont:
				break
			tok = json.loads(base64.urlsafe_b64decode(cont + "=" * (-len(cont) % 4)))
			self.assertEqual(tok["v"], "meta.k8s.io/v1")
			self.assertEqual(str(tok["rv"]), meta["resourceVersion"])
			self.assertTrue(tok["start"].endswith("\x00"))
		self.assertEqual(got, full)
		self.assertEqual(pages, 5)

	def test_remaining_item_count(self):
		names, meta = self.names("/api/v1/pods?limit=4")
		self.assertEqual(len(names), 4)
		self.assertEqual(meta["remainingItemCount"], 11)
		_, meta2 = self.names("/api/v1/namespaces/ml/pods?limit=2")
		self.assertEqual(meta2["remainingItemCount"], 3)
		tok = json.loads(base64.urlsafe_b64decode(meta2["continue"] + "=="))
		self.assertNotIn("/", tok["start"])
		_, meta3 = self.names("/api/v1/pods?limit=4&continue=" + meta["continue"])
		self.assertEqual(meta3["resourceVersion"], meta["resourceVersion"])

	def test_continue_is_a_snapshot(self):
		names, meta = self.names("/api/v1/nodes?limit=4")
		self.assertEqual(names, ["node-00", "node-01", "node-02", "node-03"])
		self.api.put_object({"kind": "Node", "metadata": {"name": "node-05a"}})
		self.api.delete_object("nodes", None, "node-06")
		self.raw("PATCH", "/api/v1/nodes/node-07", b'{"metadata":{"labels":{"tier":"changed"}}}',
			{"Content-Type": "application/merge-patch+json"})
		st, _, d = self.api.call("GET", "/api/v1/nodes?limit=4&continue=" + meta["continue"])
		self.assertEqual([i["metadata"]["name"] for i in d["items"]], ["node-04", "node-05", "node-06", "node-07"])
		self.assertNotEqual(d["items"][3]["metadata"]["labels"]["tier"], "changed")
		self.assertEqual(d["metadata"]["resourceVersion"], meta["resourceVersion"])
		names, _ = self.names("/api/v1/nodes")
		self.assertIn("node-05a", names)
		self.assertNotIn("node-06", names)

	def test_continue_fault_expiry(self):
		_, meta = self.names("/api/v1/pods?limit=4")
		self.api.fault({"path_prefix": "/api/v1/pods"}, {"type": "expire_continue"})
		st, _, d = self.api.call("GET", "/api/v1/pods?limit=4&continue=" + meta["continue"])
		self.assertEqual(st, 410)
		self.assertEqual(d["reason"], "Expired")
		self.assertTrue(d["message"].startswith("The provided continue parameter is too old"))
		tok = json.loads(base64.urlsafe_b64decode(d["metadata"]["continue"] + "=="))
		self.assertEqual(tok["rv"], -1)
		st, _, d = self.api.call("GET", "/api/v1/pods?limit=4&continue=" + meta["continue"])
		self.assertEqual(st, 200)

	def test_label_selectors(self):
		def n(sel):
			return self.names("/api/v1/nodes?labelSelector=" + urllib.parse.quote(sel))[0]
		self.assertEqual(n("tier=gold"), n("tier==gold"))
		self.assertEqual(len(n("tier=gold")), 4)
		self.assertEqual(len(n("tier!=gold")), 8)
		self.assertEqual(len(n("tier in (gold,silver)")), 8)
		self.assertEqual(len(n("tier notin (gold,silver)")), 4)
		self.assertEqual(len(n("maintenance")), 3)
		self.assertEqual(len(n("!maintenance")), 9)
		self.assertEqual(n("tier=gold,maintenance"), ["node-00"])
		self.assertEqual(len(n("alibabacloud.com/nodepool-id=np-cpu")), 3)
		for bad in ("tier in gold", "a b", "tier=", "=x", "tier in (a,b"):
			st, _, d = self.api.call("GET", "/api/v1/nodes?labelSelector=" + urllib.parse.quote(bad))
			if bad == "tier=":
				self.assertEqual(st, 200)
			else:
				self.assertEqual(st, 400, bad)
				self.assertTrue(d["message"].startswith("unable to parse requirement"), d["message"])

	def test_field_selectors(self):
		q = urllib.parse.quote
		names, _ = self.names("/api/v1/pods?fieldSelector=" + q("spec.nodeName=node-00,status.phase!=Succeeded,"
			"status.phase!=Failed"))
		self.assertEqual(names, ["train-0", "train-12"])
		names, _ = self.names("/api/v1/pods?fieldSelector=" + q("status.phase==Pending"))
		self.assertEqual(sorted(names), ["train-12", "train-2", "web-7"])
		names, _ = self.names("/api/v1/pods?fieldSelector=" + q("metadata.namespace=ml"))
		self.assertEqual(len(names), 5)
		names, _ = self.names("/api/v1/nodes?fieldSelector=" + q("metadata.name=node-03"))
		self.assertEqual(names, ["node-03"])
		st, _, d = self.api.call("GET", "/api/v1/nodes?fieldSelector=" + q("spec.nodeName=x"))
		self.assertEqual((st, d["message"]), (400, "field label not supported: spec.nodeName"))


class TestContinueTTL(Base):
	scenario = "selectors"
	options = {"continue_ttl": 0.5}

	def test_ttl(self):
		st, _, d = self.api.call("GET", "/api/v1/pods?limit=5")
		tok = d["metadata"]["continue"]
		st, _, _ = self.api.call("GET", "/api/v1/pods?limit=5&continue=" + tok)
		self.assertEqual(st, 200)
		time.sleep(0.7)
		st, _, d = self.api.call("GET", "/api/v1/pods?limit=5&continue=" + tok)
		self.assertEqual(st, 410)


class TestPatch(Base):
	path = "/api/v1/nodes/" + SEED_NODE

	def patch(self, body, ctype="application/merge-patch+json", query=""):
		return self.raw("PATCH", self.path + query, body if isinstance(body, bytes) else jbytes(body),
			{"Content-Type": ctype})

	def node(self):
		return self.api.call("GET", self.path)[2]

	def test_merge_patch_and_field_manager(self):
		before = self.node()
		st, _, body = self.patch({"metadata": {"labels": {"cgpu": "false", "new": "x"}}},
			query="?fieldManager=kubectl-label")
		self.assertEqual(st, 200)
		d = json.loads(body)
		self.assertEqual(d["metadata"]["labels"]["cgpu"], "false")
		self.assertGreater(int(d["metadata"]["resourceVersion"]), int(before["metadata"]["resourceVersion"]))
		mf = [m for m in d["metadata"]["managedFields"] if m["manager"] == "kubectl-label"]
		self.assertEqual(mf[0]["fieldsV1"], {"f:metadata": {"f:labels": {"f:cgpu": {}, "f:new": {}}}})
		self.assertEqual(self.node()["metadata"]["labels"]["new"], "x")
		# removing with null, and a no-op patch does not bump the resourceVersion
		st, _, body = self.patch({"metadata": {"labels": {"new": None}}})
		d = json.loads(body)
		self.assertNotIn("new", d["metadata"]["labels"])
		st, _, body2 = self.patch({"metadata": {"labels": {"cgpu": "false"}}})
		self.assertEqual(json.loads(body2)["metadata"]["resourceVersion"], d["metadata"]["resourceVersion"])

	def test_strategic_and_json_patch(self):
		st, _, body = self.patch({"metadata": {"labels": {"s": "1"}}}, "application/strategic-merge-patch+json")
		self.assertEqual(json.loads(body)["metadata"]["labels"]["s"], "1")
		ops = [{"op": "add", "path": "/metadata/labels/j~1k", "value": "v"},
			{"op": "replace", "path": "/metadata/labels/s", "value": "2"},
			{"op": "remove", "path": "/metadata/labels/cgpu"}]
		st, _, body = self.patch(ops, "application/json-patch+json")
		self.assertEqual(st, 200, body)
		labels = json.loads(body)["metadata"]["labels"]
		self.assertEqual((labels["j/k"], labels["s"]), ("v", "2"))
		self.assertNotIn("cgpu", labels)
		st, _, body = self.patch([{"op": "test", "path": "/metadata/labels/s", "value": "3"}],
			"application/json-patch+json")
		self.assertEqual(st, 422)
		self.assertEqual(self.node()["metadata"]["labels"]["s"], "2")

	def test_415(self):
		self.assertEqual(self.patch({"metadata": {}}, "application/json")[::2], (415, BADTYPE))

	def test_409(self):
		st, _, body = self.patch({"metadata": {"resourceVersion": "1", "labels": {"a": "b"}}})
		self.assertEqual(st, 409)
		self.assertEqual(body, status_bytes({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
			"message": 'Operation cannot be fulfilled on nodes "%s": the object has been modified; please apply your '
			'changes to the latest version and try again' % SEED_NODE, "reason": "Conflict",
			"details": {"name": SEED_NODE, "kind": "nodes"}, "code": 409}))
		rv = self.node()["metadata"]["resourceVersion"]
		st, _, _ = self.patch({"metadata": {"resourceVersion": rv, "labels": {"a": "b"}}})
		self.assertEqual(st, 200)

	def test_422(self):
		st, _, body = self.patch({"metadata": {"labels": {"cgpu": "not valid!"}}})
		self.assertEqual(st, 422)
		cause = {"reason": "FieldValueInvalid", "message": LABEL_MSG, "field": "metadata.labels"}
		expect = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
			"message": 'Node "%s" is invalid: metadata.labels: %s' % (SEED_NODE, LABEL_MSG), "reason": "Invalid",
			"details": {"name": SEED_NODE, "kind": "Node", "causes": [cause] * 4}, "code": 422}
		self.assertEqual(body, status_bytes(expect))
		st, _, body = self.patch({"metadata": {"labels": {"bad key!": "x"}}})
		self.assertEqual(st, 422)
		st, _, body = self.patch({"metadata": {"labels": {"x": "a" * 64}}})
		self.assertIn(b"must be no more than 63 characters", body)
		self.assertEqual(self.patch({"metadata": {"labels": {"example.com/ok_key": ""}}})[0], 200)

	def test_dry_run(self):
		before = self.node()
		st, _, body = self.patch({"metadata": {"labels": {"cgpu": "false"}}},
			query="?dryRun=All&fieldManager=kubectl-inspect-cgpu")
		d = json.loads(body)
		self.assertEqual(d["metadata"]["labels"]["cgpu"], "false")
		self.assertEqual(d["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"])
		self.assertIn("kubectl-inspect-cgpu", [m["manager"] for m in d["metadata"]["managedFields"]])
		self.assertEqual(self.node(), before)
		log = [e for e in self.api.requests() if e["method"] == "PATCH"]
		self.assertEqual(log[-1]["query"], {"dryRun": "All", "fieldManager": "kubectl-inspect-cgpu"})


class TestDelete(Base):
	scenario = "pools-basic"
	options = {"ds_ready_delay": 0.3, "delete_grace": 0.2}

	def pods_on(self, node):
		q = urllib.parse.quote("spec.nodeName=" + node)
		st, _, d = self.api.call("GET", "/api/v1/namespaces/kube-system/pods?labelSelector=name%3Dgpushare-device-"
			"plugin-ds&fieldSelector=" + q)
		return d["items"]

	def wait_for(self, fn, timeout=5):
		end = time.monotonic() + timeout
		while time.monotonic() < end:
			v = fn()
			if v:
				return v
			time.sleep(0.05)
		self.fail("timed out")

	def test_preconditions_and_notfound(self):
		p = self.pods_on("cn-shanghai.192.168.7.157")[0]
		name = p["metadata"]["name"]
		path = "/api/v1/namespaces/kube-system/pods/" + name
		st, _, body = self.raw("DELETE", path, jbytes({"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}))
		self.assertEqual(st, 409)
		self.assertEqual(body, status_bytes({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
			"message": 'Operation cannot be fulfilled on Pod "%s": the UID in the precondition '
			'(00000000-0000-0000-0000-000000000000) does not match the UID in record (%s). The object might have been '
			'deleted and then recreated' % (name, p["metadata"]["uid"]), "reason": "Conflict",
			"details": {"name": name, "kind": "Pod"}, "code": 409}))
		st, _, body = self.raw("DELETE", "/api/v1/namespaces/default/pods/never-existed")
		self.assertEqual(body, b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods '
			b'\\"never-existed\\" not found","reason":"NotFound","details":{"name":"never-existed","kind":"pods"},'
			b'"code":404}\n')

	def test_daemonset_controller(self):
		node = "cn-shanghai.192.168.7.157"
		old = self.pods_on(node)[0]
		path = "/api/v1/namespaces/kube-system/pods/" + old["metadata"]["name"]
		st, _, d = self.api.call("DELETE", path, {"kind": "DeleteOptions", "apiVersion": "v1",
			"preconditions": {"uid": old["metadata"]["uid"]}, "propagationPolicy": "Background"})
		self.assertEqual(st, 200)
		self.assertIn("deletionTimestamp", d["metadata"])
		self.assertEqual(d["metadata"]["deletionGracePeriodSeconds"], 30)
		keys = list(d["metadata"])
		self.assertEqual(keys.index("deletionTimestamp"), keys.index("creationTimestamp") + 1)
		new = self.wait_for(lambda: [p for p in self.pods_on(node) if p["metadata"]["uid"] != old["metadata"]["uid"]])
		self.assertEqual(len(self.pods_on(node)), 1)
		n = new[0]
		self.assertNotEqual(n["metadata"]["name"], old["metadata"]["name"])
		self.assertTrue(n["metadata"]["name"].startswith("gpushare-device-plugin-ds-"))
		self.assertEqual(n["spec"]["nodeName"], node)
		self.assertEqual(n["metadata"]["ownerReferences"], old["metadata"]["ownerReferences"])

		def ready():
			p = self.pods_on(node)[0]
			conds = {c["type"]: c["status"] for c in p["status"]["conditions"]}
			return p["status"]["phase"] == "Running" and conds["Ready"] == "True"
		self.assertFalse(ready())
		self.wait_for(ready)

	def test_daemonset_controller_honours_the_node_selector(self):
		# The device plugin's template selects nodes labelled cgpu=true: a node that no longer has the label
		# gets no new pod of it once the old one is gone, the others still do.
		off, on = "cn-shanghai.192.168.7.157", "cn-shanghai.192.168.7.158"
		st, _, _ = self.api.call("PATCH", "/api/v1/nodes/" + off, {"metadata": {"labels": {"cgpu": "false"}}},
			headers={"Content-Type": "application/merge-patch+json"})
		self.assertEqual(st, 200)
		olds = [self.pods_on(off)[0], self.pods_on(on)[0]]
		for old in olds:
			st, _, _ = self.api.call("DELETE", "/api/v1/namespaces/kube-system/pods/" + old["metadata"]["name"])
			self.assertEqual(st, 200)
		self.wait_for(lambda: [p for p in self.pods_on(on) if p["metadata"]["uid"] != olds[1]["metadata"]["uid"]])
		self.wait_for(lambda: not self.pods_on(off))
		time.sleep(0.5)
		self.assertEqual(self.pods_on(off), [])
		# the DaemonSet that selects cgpu=false places its pod there instead, made from its template
		q = urllib.parse.quote("spec.nodeName=" + off)
		st, _, d = self.api.call("GET", "/api/v1/namespaces/kube-system/pods?fieldSelector=" + q)
		owners = [r["name"] for p in d["items"] for r in p["metadata"]["ownerReferences"]]
		self.assertEqual(owners, ["device-plugin-recover-ds"])
		self.assertEqual(d["items"][0]["spec"]["nodeName"], off)

	def test_never_ready_and_eviction(self):
		node = "cn-shanghai.192.168.7.158"
		self.api.settings(never_ready_nodes=[node])
		old = self.pods_on(node)[0]
		st, h, body = self.raw("POST", "/api/v1/namespaces/kube-system/pods/%s/eviction" % old["metadata"]["name"],
			jbytes({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": old["metadata"]["name"],
				"namespace": "kube-system"}}), {"Content-Type": "application/json"})
		self.assertEqual((st, body), (201, EVICT_OK))
		new = self.wait_for(lambda: [p for p in self.pods_on(node) if p["metadata"]["uid"] != old["metadata"]["uid"]])
		time.sleep(0.6)
		p = self.pods_on(node)[0]
		self.assertEqual(p["metadata"]["uid"], new[0]["metadata"]["uid"])
		self.assertEqual(p["status"]["phase"], "Pending")
		self.api.settings(eviction_blocked=["kube-system/" + p["metadata"]["name"]])
		st, _, d = self.api.call("POST", "/api/v1/namespaces/kube-system/pods/%s/eviction" % p["metadata"]["name"],
			{"apiVersion": "policy/v1", "kind": "Eviction"})
		self.assertEqual((st, d["reason"]), (429, "TooManyRequests"))

	def test_control_objects(self):
		st, _, d = self.api.call("GET", "/api/v1/nodes")
		rv = int(d["metadata"]["resourceVersion"])
		self.api.put_object({"kind": "Pod", "metadata": {"name": "extra", "namespace": "default"},
			"spec": {"nodeName": "cn-shanghai.192.168.7.157", "containers": [{"name": "c", "image": "x"}]}})
		st, _, p = self.api.call("GET", "/api/v1/namespaces/default/pods/extra")
		self.assertEqual(st, 200)
		self.assertGreater(int(p["metadata"]["resourceVersion"]), rv)
		self.api.delete_object("pods", "default", "extra")
		self.assertEqual(self.api.call("GET", "/api/v1/namespaces/default/pods/extra")[0], 404)
		self.api.delete_object("nodes", None, "cn-shanghai.192.168.7.160")
		st, _, d = self.api.call("GET", "/api/v1/nodes")
		self.assertEqual(len(d["items"]), 3)
		self.api.reset()
		st, _, d = self.api.call("GET", "/api/v1/nodes")
		self.assertEqual(len(d["items"]), 4)


class WatchReader:
	"""Reads a watch stream in a thread, one event per line."""

	def __init__(self, api, path):
		self.conn = http.client.HTTPSConnection("127.0.0.1", api.port, context=api.ssl, timeout=20)
		self.conn.request("GET", path, headers={"Accept": "application/json"})
		self.resp = self.conn.getresponse()
		self.events = []
		self.done = threading.Event()
		self.times = []
		threading.Thread(target=self.run, daemon=True).start()

	def run(self):
		try:
			for line in self.resp:
				self.events.append(json.loads(line))
				self.times.append(time.monotonic())
		except (OSError, ValueError, http.client.HTTPException):
			pass
		self.done.set()

	def wait(self, n, timeout=5):
		end = time.monotonic() + timeout
		while len(self.events) < n and time.monotonic() < end:
			time.sleep(0.01)
		return self.events

	def close(self):
		self.conn.close()


class TestWatch(Base):
	options = {"bookmark_interval": 0.5}

	def test_events_and_bookmarks(self):
		st, _, d = self.api.call("GET", "/api/v1/pods")
		rv = d["metadata"]["resourceVersion"]
		w = WatchReader(self.api, "/api/v1/pods?watch=1&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=3"
			% rv)
		self.assertEqual(w.resp.status, 200)
		self.assertEqual(w.resp.getheader("Transfer-Encoding"), "chunked")
		time.sleep(0.2)
		t0 = time.monotonic()
		self.api.put_object({"kind": "Pod", "metadata": {"name": "w1", "namespace": "default"},
			"spec": {"nodeName": SEED_NODE, "containers": [{"name": "c", "image": "busybox"}]}})
		w.wait(1)
		# Delivered promptly (well under 100 ms on an idle machine; the bound allows for a loaded one).
		self.assertLess(w.times[0] - t0, 0.5)
		st, _, _ = self.raw("PATCH", "/api/v1/namespaces/default/pods/w1", b'{"metadata":{"labels":{"a":"b"}}}',
			{"Content-Type": "application/merge-patch+json"})
		self.api.delete_object("pods", "default", "w1")
		w.done.wait(6)
		types = [e["type"] for e in w.events]
		real = [t for t in types if t != "BOOKMARK"]
		self.assertEqual(real, ["ADDED", "MODIFIED", "DELETED"])
		self.assertEqual(w.events[0]["object"]["kind"], "Pod")
		self.assertEqual(types[-1], "BOOKMARK")
		bm = w.events[-1]["object"]
		self.assertEqual(bm, {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion":
			bm["metadata"]["resourceVersion"], "creationTimestamp": None}, "spec": {"containers": None}, "status": {}})
		rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in w.events]
		self.assertEqual(rvs, sorted(rvs))
		w.close()

	def test_replay_and_selectors(self):
		st, _, d = self.api.call("GET", "/api/v1/pods")
		rv = d["metadata"]["resourceVersion"]
		self.raw("PATCH", "/api/v1/namespaces/default/pods/app-3g-v1-0", b'{"metadata":{"labels":{"app":"other"}}}',
			{"Content-Type": "application/merge-patch+json"})
		w = WatchReader(self.api, "/api/v1/pods?watch=true&resourceVersion=%s&labelSelector=app%%3Dapp-3g-v1"
			"&timeoutSeconds=1" % rv)
		w.done.wait(4)
		w.close()
		self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in w.events], [("DELETED", "app-3g-v1-0")])
		w = WatchReader(self.api, "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1")
		w.done.wait(4)
		w.close()
		self.assertEqual([e["type"] for e in w.events], ["ADDED", "ADDED"])

	def test_disconnect_ends_watch(self):
		w = WatchReader(self.api, "/api/v1/nodes?watch=1")
		time.sleep(0.2)
		self.assertEqual(self.api.stats()["open_watches"], 1)
		w.resp.close()
		w.close()
		# The server notices within about a second.
		end = time.monotonic() + 5
		while self.api.stats()["open_watches"] and time.monotonic() < end:
			time.sleep(0.1)
		self.assertEqual(self.api.stats()["open_watches"], 0)
		self.assertEqual(self.api.call("GET", "/api/v1/nodes")[0], 200)

	def test_too_old(self):
		w = WatchReader(self.api, "/api/v1/pods?watch=1&resourceVersion=1")
		w.done.wait(4)
		w.close()
		self.assertEqual(len(w.events), 1)
		e = w.events[0]
		self.assertEqual(e["type"], "ERROR")
		self.assertEqual(e["object"]["code"], 410)
		self.assertEqual(e["object"]["reason"], "Expired")
		self.assertRegex(e["object"]["message"], r"^too old resource version: 1 \(\d+\)$")


class TestGzip(Base):
	scenario = "gen:nodes=20,pods=300"

	def test_gzip(self):
		st, h, body = self.raw("GET", "/api/v1/pods", headers={"Accept-Encoding": "gzip"})
		self.assertEqual(h["Content-Encoding"], "gzip")
		self.assertEqual(h["Vary"], "Accept-Encoding")
		d = json.loads(gzip.decompress(body))
		self.assertEqual(len(d["items"]), 300)
		st, h, body = self.raw("GET", "/api/v1/pods")
		self.assertIsNone(h["Content-Encoding"])
		self.assertGreater(len(body), 128 * 1024)
		st, h, body = self.raw("GET", "/api/v1/nodes", headers={"Accept-Encoding": "gzip"})
		self.assertLess(len(body), 128 * 1024)
		self.assertIsNone(h["Content-Encoding"])


class TestFaults(Base):
	def test_status_retry_after(self):
		self.api.fault({"method": "GET", "path_prefix": "/api/v1/nodes"}, {"type": "status", "code": 429,
			"retry_after": 1}, times=2)
		for _ in range(2):
			st, h, d = self.api.call("GET", "/api/v1/nodes")
			self.assertEqual((st, h["Retry-After"], d["reason"]), (429, "1", "TooManyRequests"))
		self.assertEqual(self.api.call("GET", "/api/v1/nodes")[0], 200)
		for code, reason in ((500, "InternalError"), (503, "ServiceUnavailable")):
			self.api.fault({}, {"type": "status", "code": code})
			st, _, d = self.api.call("GET", "/api/v1/pods")
			self.assertEqual((st, d["reason"]), (code, reason))

	def test_query_contains(self):
		self.api.fault({"query_contains": "limit=500"}, {"type": "status", "code": 503, "retry_after": 2})
		self.assertEqual(self.api.call("GET", "/api/v1/pods")[0], 200)
		self.assertEqual(self.api.call("GET", "/api/v1/pods?limit=500")[0], 503)

	def test_reset(self):
		self.api.fault({"path_prefix": "/api/v1/pods"}, {"type": "reset"})
		with self.assertRaises((ConnectionResetError, http.client.IncompleteRead, ssl.SSLError)):
			self.raw("GET", "/api/v1/pods")
		self.assertEqual(self.raw("GET", "/api/v1/pods")[0], 200)

	def test_truncate(self):
		self.api.fault({"path_prefix": "/api/v1/nodes/"}, {"type": "truncate"})
		with self.assertRaises((http.client.IncompleteRead, ssl.SSLError, ConnectionError)):
			self.raw("GET", "/api/v1/nodes/" + SEED_NODE)

	def test_malformed(self):
		self.api.fault({}, {"type": "malformed"})
		st, _, body = self.raw("GET", "/api/v1/nodes")
		self.assertEqual(st, 200)
		with self.assertRaises(ValueError):
			json.loads(body)

	def test_html(self):
		self.api.fault({}, {"type": "html", "code": 502})
		st, h, body = self.raw("GET", "/api/v1/nodes")
		self.assertEqual(st, 502)
		self.assertEqual(h["Content-Type"], "text/html")
		self.assertIn(b"<h1>502 Bad Gateway</h1>", body)

	def test_delay_and_drip(self):
		self.api.fault({}, {"type": "delay", "seconds": 0.5})
		t = time.monotonic()
		self.assertEqual(self.raw("GET", "/api/v1/nodes")[0], 200)
		self.assertGreaterEqual(time.monotonic() - t, 0.5)
		st, _, full = self.raw("GET", "/api/v1/namespaces/default/pods/app-3g-v1-0")
		self.api.fault({}, {"type": "drip", "bytes_per_second": 8000})
		t = time.monotonic()
		st, _, body = self.raw("GET", "/api/v1/namespaces/default/pods/app-3g-v1-0")
		self.assertEqual(body, full)
		self.assertGreaterEqual(time.monotonic() - t, len(full) / 8000 * 0.8)

	def test_warning(self):
		self.api.fault({"path_prefix": "/api/v1/nodes"}, {"type": "warning", "messages": ["first", 'say "x"']})
		st, h, d = self.api.call("GET", "/api/v1/nodes")
		self.assertEqual(st, 200)
		self.assertEqual(h.get_all("Warning"), ['299 - "first"', '299 - "say \\"x\\""'])
		self.assertIsNone(self.api.call("GET", "/api/v1/nodes")[1]["Warning"])

	def test_scenario_faults(self):
		d = tempfile.mkdtemp()
		src = os.path.join(SCENARIOS, "seed002")
		for f in os.listdir(src):
			with open(os.path.join(src, f)) as a, open(os.path.join(d, f), "w") as b:
				b.write(a.read())
		with open(os.path.join(d, "scenario.json"), "w") as f:
			json.dump({"faults": [{"match": {"path_prefix": "/api/v1/nodes"}, "fault": {"type": "status", "code": 503,
				"retry_after": 1}, "times": 1}], "users": {"labeler": {"rules": [{"verbs": ["get", "list", "patch"],
				"resources": ["nodes"]}]}}}, f)
		with FakeAPI(d) as api:
			self.assertEqual(api.call("GET", "/api/v1/nodes")[0], 503)
			self.assertEqual(api.call("GET", "/api/v1/nodes")[0], 200)
			tok = api.tokens["labeler"]
			self.assertEqual(api.call("GET", "/api/v1/nodes", token=tok)[0], 200)
			self.assertEqual(api.call("GET", "/api/v1/pods", token=tok)[0], 403)
			api.reset()
			self.assertEqual(api.call("GET", "/api/v1/nodes")[0], 503)


class TestRequestLog(Base):
	def test_log(self):
		self.api.call("GET", "/api/v1/pods?limit=500&fieldSelector=spec.nodeName%3Dx", token=self.api.tokens["viewer"])
		self.api.call("GET", "/api/v1/nodes")
		self.api.fault({}, {"type": "delay", "seconds": 0})
		log = self.api.requests()
		self.assertEqual(len(log), 2)
		e = log[0]
		self.assertEqual((e["method"], e["path"], e["user"], e["status"]), ("GET", "/api/v1/pods", "viewer", 200))
		self.assertEqual(e["query"], {"limit": "500", "fieldSelector": "spec.nodeName=x"})
		self.assertEqual(e["headers"]["user-agent"], "fakeapi-test/1.0")
		self.assertEqual(log[1]["user"], "admin")
		self.assertIn("system:masters", log[1]["groups"])
		self.api.reset()
		self.assertEqual(self.api.requests(), [])

	def test_plain_http_control(self):
		c = http.client.HTTPConnection("127.0.0.1", self.api.port, timeout=5)
		c.request("GET", "/_fake/requests")
		r = c.getresponse()
		self.assertEqual((r.status, json.loads(r.read())), (200, []))
		c.request("GET", "/api/v1/nodes")
		r = c.getresponse()
		self.assertEqual(r.status, 400)
		c.close()

	def test_keep_alive(self):
		c = http.client.HTTPSConnection("127.0.0.1", self.api.port, context=self.api.ssl, timeout=5)
		for _ in range(5):
			c.request("GET", "/api/v1/nodes")
			r = c.getresponse()
			self.assertEqual(r.status, 200)
			r.read()
		c.request("GET", "/api/v1/nodes/nope")
		r = c.getresponse()
		self.assertEqual(r.status, 404)
		r.read()
		c.request("GET", "/api/v1/nodes")
		self.assertEqual(c.getresponse().status, 200)
		c.close()



class BothServers(Base):
	"""Answers where the fake server once differed from a real kube-apiserver v1.26, and the protocol the
	plugin depends on: run against the fake server here, and against a real one in the real tier
	(CGPU_BACKEND=real), so that the two cannot drift apart again."""
	scenario = "opensource"

	@classmethod
	def setUpClass(cls):
		if backend() == "real":
			# node watches from etcd, so that a compaction expires them
			real_cluster(watch_cache_off=("nodes",))
		cls.api = APIServer(cls.scenario, **cls.options).start()

	def status(self, code, message, reason=None, details=None):
		d = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message}
		if reason is not None:
			d["reason"] = reason
		if details is not None:
			d["details"] = details
		d["code"] = code
		return status_bytes(d)

	def test_bodies_end_with_a_newline_and_small_ones_have_a_length(self):
		st, h, body = self.raw("GET", "/api/v1/nodes/no-such-node")
		self.assertEqual(st, 404)
		self.assertEqual(h["Content-Length"], str(len(body)))
		self.assertTrue(body.endswith(b"}\n"))
		st, h, body = self.raw("GET", "/api/v1/namespaces/no-such-namespace/pods")
		self.assertEqual(st, 200)
		self.assertEqual(h["Content-Length"], str(len(body)))
		self.assertIsNone(h["Transfer-Encoding"])
		self.assertTrue(body.endswith(b'"items":[]}\n'), body)
		st, h, body = self.raw("GET", "/api/v1/nodes/gpu-node-1")
		self.assertEqual(st, 200)
		self.assertGreater(len(body), 2048)
		self.assertEqual(h["Transfer-Encoding"], "chunked")
		self.assertIsNone(h["Content-Length"])
		self.assertTrue(body.endswith(b"}\n"))
		st, h, body = self.raw("GET", "/api/v1/nodes")
		self.assertEqual(h["Transfer-Encoding"], "chunked")
		self.assertTrue(body.endswith(b"]}\n"))

	def test_bad_continue_tokens(self):
		def token(d):
			return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")
		bad = "invalid continue token: continue key is not valid: "
		st, _, body = self.raw("GET", "/api/v1/nodes?limit=1&continue=" + token(
			{"v": "meta.k8s.io/v1", "rv": 0, "start": "x"}))
		self.assertEqual((st, body), (400, self.status(400, bad + "incorrect encoded start resourceVersion "
			"(version meta.k8s.io/v1)", "BadRequest")))
		st, _, body = self.raw("GET", "/api/v1/nodes?limit=1&continue=" + token({"v": "v2", "rv": 5, "start": "x"}))
		self.assertEqual((st, body), (400, self.status(400, bad + "server does not recognize this encoded version v2",
			"BadRequest")))
		st, _, body = self.raw("GET", "/api/v1/nodes?limit=1&continue=garbage")
		self.assertEqual(st, 400)
		self.assertTrue(json.loads(body)["message"].startswith(bad), body)

	def test_resource_version_that_is_not_a_number(self):
		want = self.status(500, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax')
		# (pods: served from the API server's watch cache, as by default; from etcd it is a 400)
		for path in ("/api/v1/pods?resourceVersion=abc", "/api/v1/namespaces/default/pods/binpack-1-0?resourceVersion=abc",
				"/api/v1/pods?watch=1&resourceVersion=abc"):
			with self.subTest(path=path):
				self.assertEqual(self.raw("GET", path)[::2], (500, want))

	def test_failed_json_patch_test_operation(self):
		st, _, body = self.raw("PATCH", "/api/v1/nodes/gpu-node-1",
			jbytes([{"op": "test", "path": "/metadata/labels/nope", "value": "x"}]),
			{"Content-Type": "application/json-patch+json"})
		self.assertEqual((st, body), (422, self.status(422, "the server rejected our request due to an error in our "
			"request", "Invalid", {})))

	def test_authentication_and_rbac_wording(self):
		self.assertEqual(self.raw("GET", "/api/v1/nodes", token=self.api.tokens["badtoken"])[::2], (401, UNAUTHORIZED))
		self.assertEqual(self.raw("GET", "/api/v1/nodes", token=self.api.tokens["nobody"])[::2], (403, FORBIDDEN))
		st, _, body = self.raw("PATCH", "/api/v1/nodes/gpu-node-1", b"{}", {"Content-Type": "application/merge-patch+json"},
			token=self.api.tokens["viewer"])
		self.assertEqual((st, body), (403, self.status(403, 'nodes "gpu-node-1" is forbidden: User "viewer" cannot '
			'patch resource "nodes" in API group "" at the cluster scope', "Forbidden",
			{"name": "gpu-node-1", "kind": "nodes"})))
		st, _, body = self.raw("GET", "/api/v1/namespaces/default/pods", token=self.api.tokens["nobody"])
		self.assertEqual((st, body), (403, self.status(403, 'pods is forbidden: User "nobody" cannot list resource '
			'"pods" in API group "" in the namespace "default"', "Forbidden", {"kind": "pods"})))
		st, _, body = self.raw("GET", "/api/v1/nodes", cert=False)
		self.assertEqual((st, body), (403, self.status(403, 'nodes is forbidden: User "system:anonymous" cannot list '
			'resource "nodes" in API group "" at the cluster scope', "Forbidden", {"kind": "nodes"})))
		self.assertEqual(self.raw("GET", "/api/v1/nodes", token=self.api.tokens["viewer"])[0], 200)
		self.assertEqual(self.raw("GET", "/api/v1/nodes", token=self.api.tokens["admin-token"])[0], 200)

	def test_conflict_and_dry_run(self):
		_, _, node = self.api.call("GET", "/api/v1/nodes/gpu-node-1")
		rv = node["metadata"]["resourceVersion"]
		patch = {"metadata": {"resourceVersion": rv, "labels": {"team": "a"}}}
		st, _, out = self.raw("PATCH", "/api/v1/nodes/gpu-node-1?dryRun=All&fieldManager=t", jbytes(patch),
			{"Content-Type": "application/merge-patch+json"})
		self.assertEqual(st, 200)
		self.assertEqual(json.loads(out)["metadata"]["labels"]["team"], "a")
		_, _, again = self.api.call("GET", "/api/v1/nodes/gpu-node-1")
		self.assertNotIn("team", again["metadata"]["labels"])
		self.assertEqual(again["metadata"]["resourceVersion"], rv)
		st, _, out = self.raw("PATCH", "/api/v1/nodes/gpu-node-1", jbytes(patch), {"Content-Type": "application/merge-patch+json"})
		self.assertEqual(st, 200)
		st, _, body = self.raw("PATCH", "/api/v1/nodes/gpu-node-1", jbytes(patch), {"Content-Type": "application/merge-patch+json"})
		self.assertEqual((st, body), (409, self.status(409, 'Operation cannot be fulfilled on nodes "gpu-node-1": the '
			'object has been modified; please apply your changes to the latest version and try again', "Conflict",
			{"name": "gpu-node-1", "kind": "nodes"})))

	@real_only("compacts etcd")
	def test_watch_from_a_compacted_resource_version(self):
		if "nodes" not in self.api.cluster.watch_cache_off:
			self.skipTest("the control plane was started by another suite, with the nodes' watch cache")
		_, _, node = self.api.call("GET", "/api/v1/nodes/gpu-node-1")
		rv = node["metadata"]["resourceVersion"]
		for i in range(2):
			self.api.call("PATCH", "/api/v1/nodes/gpu-node-1", {"metadata": {"labels": {"step": str(i)}}},
				headers={"Content-Type": "application/merge-patch+json"})
		self.api.cluster.compact()
		st, h, body = self.raw("GET", "/api/v1/nodes?watch=1&timeoutSeconds=5&resourceVersion=" + rv)
		self.assertEqual((st, h["Transfer-Encoding"]), (200, "chunked"))
		self.assertEqual(body, b'{"type":"ERROR","object":' + self.status(410, "The resourceVersion for the provided "
			"watch is too old.", "Expired")[:-1] + b"}\n")

	def test_delete_options_in_the_body_win_over_the_query(self):
		"""A DELETE with a body takes its options from the body alone: dryRun=All in the query of such a
		request deletes for real (kube-apiserver v1.26)."""
		path = "/api/v1/namespaces/default/pods/binpack-1-0"
		st, _, body = self.raw("DELETE", path + "?dryRun=All", jbytes({"kind": "DeleteOptions", "apiVersion": "v1",
			"dryRun": ["All"]}), {"Content-Type": "application/json"})
		self.assertEqual(st, 200)
		self.assertIn("deletionTimestamp", json.loads(body)["metadata"])
		st, _, pod = self.api.call("GET", path)
		self.assertEqual(st, 200)
		self.assertNotIn("deletionTimestamp", pod["metadata"])
		st, _, body = self.raw("DELETE", path + "?dryRun=All", jbytes({"kind": "DeleteOptions", "apiVersion": "v1"}),
			{"Content-Type": "application/json"})
		self.assertEqual(st, 200)
		st, _, pod = self.api.call("GET", path)
		# gone, or going: a kubelet (the agent, or the fake's own) finishes the graceful deletion
		self.assertTrue(st == 404 or "deletionTimestamp" in pod["metadata"], (st, pod))

	def test_namespaces(self):
		st, _, d = self.api.call("GET", "/api/v1/namespaces")
		self.assertEqual(st, 200)
		self.assertEqual(d["kind"], "NamespaceList")
		names = [n["metadata"]["name"] for n in d["items"]]
		for n in ("default", "kube-node-lease", "kube-public", "kube-system", "ml"):
			self.assertIn(n, names)
		self.assertEqual(names, sorted(names))
		self.assertEqual(d["items"][0]["status"]["phase"], "Active")
		st, _, body = self.raw("GET", "/api/v1/namespaces", token=self.api.tokens["viewer"])
		self.assertEqual((st, body), (403, self.status(403, 'namespaces is forbidden: User "viewer" cannot list '
			'resource "namespaces" in API group "" at the cluster scope', "Forbidden", {"kind": "namespaces"})))
		st, _, ns = self.api.call("GET", "/api/v1/namespaces/ml")
		self.assertEqual((st, ns["kind"], ns["metadata"]["name"]), (200, "Namespace", "ml"))
		st, _, body = self.raw("GET", "/api/v1/namespaces/no-such-namespace")
		self.assertEqual((st, body), (404, self.status(404, 'namespaces "no-such-namespace" not found', "NotFound",
			{"name": "no-such-namespace", "kind": "namespaces"})))

	def test_dra_scenario(self):
		"""A DRA scenario: served by the fake server, and by a real one where it serves resource.k8s.io
		(Kubernetes 1.34 or later through KUBE_ASSETS); on the shipped 1.26 server loading it is a skip that says
		why."""
		with APIServer("dra-whole") as api:
			st, _, g = api.call("GET", "/apis/resource.k8s.io")
			self.assertEqual((st, g["preferredVersion"]["version"]), (200, "v1"))
			st, _, d = api.call("GET", "/apis/resource.k8s.io/v1/resourceslices")
			self.assertEqual(sorted(s["spec"]["nodeName"] for s in d["items"]), ["dra-a100-1", "dra-a100-2"])
			_, _, pods = api.call("GET", "/api/v1/namespaces/ml/pods")
			uids = {p["metadata"]["name"]: p["metadata"]["uid"] for p in pods["items"]}
			st, _, d = api.call("GET", "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims")
			held = sorted((c["status"]["reservedFor"][0]["name"], c["status"]["allocation"]["devices"]["results"][0]["device"])
				for c in d["items"])
			self.assertEqual(held, [("train-0", "gpu-0"), ("train-1", "gpu-1")])
			for c in d["items"]:
				ref = c["status"]["reservedFor"][0]
				self.assertEqual(ref["uid"], uids[ref["name"]])

	def test_watch_sees_a_pod_come_and_go(self):
		_, _, lst = self.api.call("GET", "/api/v1/namespaces/default/pods?limit=1")
		rv = lst["metadata"]["resourceVersion"]
		c = http.client.HTTPSConnection("127.0.0.1", self.api.port, context=self.api.ssl, timeout=30)
		try:
			c.request("GET", "/api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=20"
				"&resourceVersion=" + rv, headers={"Accept": "application/json"})
			r = c.getresponse()
			self.assertEqual(r.status, 200)
			self.assertEqual(r.headers["Transfer-Encoding"], "chunked")
			self.assertEqual(r.headers["Content-Type"], "application/json")
			self.api.put_object({"apiVersion": "v1", "kind": "Pod",
				"metadata": {"name": "watched-0", "namespace": "default"},
				"spec": {"nodeName": "gpu-node-1", "containers": [{"name": "c", "image": "busybox"}]},
				"status": {"phase": "Running"}})
			self.api.delete_object("pods", "default", "watched-0")
			seen = []
			while ("DELETED", "watched-0") not in seen:
				line = r.readline()
				self.assertTrue(line, "the watch ended before the pod was deleted: %r" % seen)
				self.assertTrue(line.endswith(b"}\n"))
				ev = json.loads(line)
				if ev["type"] != "BOOKMARK":
					seen.append((ev["type"], ev["object"]["metadata"]["name"]))
					self.assertEqual((ev["object"]["kind"], ev["object"]["apiVersion"]), ("Pod", "v1"))
			self.assertEqual(seen[0], ("ADDED", "watched-0"))
			self.assertEqual(seen[-1], ("DELETED", "watched-0"))
		finally:
			c.close()

if __name__ == "__main__":
	unittest.main()
