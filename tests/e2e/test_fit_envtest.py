"""`kubectl inspect cgpu fit` against a real kube-apiserver (tests/envtest), on the fit scenario: the same
answers as against the fake server, with the API server's own node, pod and event objects (and its node
lifecycle controller tainting the NotReady node).  Skipped when no API server binaries can be found."""

import json
import os
import sys
import unittest

from harness import ROOT, plugin_path, run_plugin

sys.path.insert(0, os.path.join(ROOT, "tests", "envtest"))
import envtest  # noqa: E402

ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}
ASSETS, WHY = envtest.find_assets()


@unittest.skipUnless(plugin_path(), "CGPU_PLUGIN not built")
@unittest.skipUnless(ASSETS, "no API server: %s" % WHY)
class FitRealServer(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		cls.cluster = envtest.Cluster(ASSETS).start()
		objects, config = envtest.read_scenario(os.path.join(ROOT, "fixtures", "scenarios", "fit"))
		envtest.load_scenario(cls.cluster, ([o for o in objects if o.get("kind") != "Event"], config))
		# the scheduler's events, written as it writes them (the harness has no scheduler)
		for o in objects:
			if o.get("kind") == "Event":
				e = {k: v for k, v in o.items() if v is not None}
				e["metadata"] = {"name": o["metadata"]["name"], "namespace": o["metadata"]["namespace"]}
				e["involvedObject"] = {k: v for k, v in o["involvedObject"].items() if k != "uid"}
				cls.cluster.must("POST", "/api/v1/namespaces/%s/events" % e["metadata"]["namespace"], e)

	@classmethod
	def tearDownClass(cls):
		cls.cluster.stop()

	def fit(self, *args, input=None):
		return run_plugin(["--kubeconfig", self.cluster.kubeconfig, "--context", "admin", "fit"] + list(args),
			env=ENV, input=input)

	def test_fragmented_pool(self):
		r = self.fit("--memory", "12", "--scheme", "cgpu", "--pool", "np-share")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("2 nodes: no GPU with 12 GiB free (largest free on one GPU: 11 GiB)", r.stdout)
		self.assertIn("1 node: cordoned (SchedulingDisabled)", r.stdout)
		self.assertIn("1 node: NotReady", r.stdout)

	def test_pending_pod_with_events(self):
		r = self.fit("ml/bigmodel-7c9d8f6b5-x7k2p", "-o", "json")
		self.assertEqual(r.returncode, 3, r.stderr)
		d = json.loads(r.stdout)
		reasons = {g["reason"]: g for g in d["reasons"]}
		self.assertEqual(reasons["NodeSelector"]["detail"], "alibabacloud.com/nodepool-id=np-share")
		self.assertEqual(reasons["InsufficientMemory"]["nodes"], 2)
		self.assertEqual(len(d["failedSchedulingEvents"]), 2)
		self.assertIn("untolerated taint", d["failedSchedulingEvents"][0])

	def test_required_affinity_read_from_the_server_s_protobuf(self):
		# the list decoders keep the pending pod's required node affinity as the API server encodes it
		for extra in ([], ["-v", "9"]):
			r = run_plugin(["--kubeconfig", self.cluster.kubeconfig, "--context", "admin", "-d"] + extra, env=ENV)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertRegex(r.stdout, r"\n  ml/zonal-0: 3 nodes: outside the required node affinity; ")

	def test_manifest_with_toleration(self):
		doc = ("kind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  tolerations:\n"
			"  - {key: dedicated, operator: Exists}\n  nodeSelector: {alibabacloud.com/nodepool-id: np-train}\n"
			"  containers:\n  - name: c\n    resources:\n      limits: {aliyun.com/gpu-mem: 12}\n")
		r = self.fit("-f", "-", "-o", "json", input=doc)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual([p["node"] for p in json.loads(r.stdout)["places"]], ["share-tainted"])


if __name__ == "__main__":
	unittest.main()
