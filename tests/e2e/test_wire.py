"""Protobuf and JSON give the same answers.

The plugin asks for protobuf for its lists and watches of nodes and pods and
reads JSON where the server sends it.  On every fixture scenario, `-o json`
must be the same document whether the server answered in protobuf or, with
KUBECTL_INSPECT_CGPU_PROTOBUF=false, in JSON; the requests say which was
asked for, and a protobuf body that cannot be read makes the plugin ask again
for JSON.
"""

import json
import os
import unittest

from harness import SCENARIOS, FakeAPI, plugin_path, run_plugin

JSON_ONLY = {"KUBECTL_INSPECT_CGPU_PROTOBUF": "false"}
PB = "application/vnd.kubernetes.protobuf"


def scenarios():
	return sorted(d for d in os.listdir(SCENARIOS) if os.path.isdir(os.path.join(SCENARIOS, d)))


@unittest.skipIf(plugin_path() is None, "CGPU_PLUGIN not set")
class TestWire(unittest.TestCase):
	def lists(self, api):
		return [r for r in api.requests() if r["method"] == "GET" and r["path"] in ("/api/v1/nodes", "/api/v1/pods")]

	def test_same_model_every_scenario(self):
		for sc in scenarios():
			with self.subTest(scenario=sc), FakeAPI(sc) as api:
				args = ["--kubeconfig", api.kubeconfig, "-o", "json"]
				pb = run_plugin(args)
				reqs = self.lists(api)
				self.assertTrue(reqs)
				for r in reqs:
					self.assertIn(PB, r["headers"].get("accept", ""), r)
					# read-only views come from the API server's cache, whole
					self.assertEqual(r["query"].get("resourceVersion"), "0", r)
					self.assertNotIn("limit", r["query"], r)
				api.clear_requests()
				js = run_plugin(args, env=JSON_ONLY)
				for r in self.lists(api):
					self.assertEqual(r["headers"].get("accept"), "application/json", r)
				self.assertEqual(pb.returncode, js.returncode, pb.stderr + js.stderr)
				self.assertEqual(pb.stdout, js.stdout)
				self.assertEqual(pb.stderr, js.stderr)
				if pb.returncode == 0:
					json.loads(pb.stdout)

	def test_summary_same_both_ways(self):
		with FakeAPI("pools-pro") as api:
			args = ["--kubeconfig", api.kubeconfig, "-d"]
			pb = run_plugin(args)
			js = run_plugin(args, env=JSON_ONLY)
			self.assertEqual(pb.returncode, 0, pb.stderr)
			self.assertEqual(pb.stdout, js.stdout)

	def test_consistent_read_pages_from_etcd(self):
		with FakeAPI("seed002") as api:
			p = run_plugin(["--kubeconfig", api.kubeconfig, "--consistent-read", "-o", "json"])
			self.assertEqual(p.returncode, 0, p.stderr)
			reqs = self.lists(api)
			self.assertTrue(reqs)
			for r in reqs:
				self.assertNotIn("resourceVersion", r["query"], r)
				self.assertEqual(r["query"].get("limit"), "500", r)
			api.clear_requests()
			q = run_plugin(["--kubeconfig", api.kubeconfig, "-o", "json"])
			self.assertEqual(p.stdout, q.stdout)

	def test_v9_bodies_are_json(self):
		with FakeAPI("seed002") as api:
			p = run_plugin(["--kubeconfig", api.kubeconfig, "-v=9"])
			self.assertEqual(p.returncode, 0, p.stderr)
			self.assertIn('Response Body: {"kind":"PodList"', p.stderr)
			for r in self.lists(api):
				self.assertEqual(r["headers"].get("accept"), "application/json", r)

	def test_errors_in_protobuf(self):
		with FakeAPI("seed002") as api:
			pb = run_plugin(["--kubeconfig", api.kubeconfig, "--context", "nobody"])
			js = run_plugin(["--kubeconfig", api.kubeconfig, "--context", "nobody"], env=JSON_ONLY)
			self.assertEqual(pb.returncode, 1)
			self.assertIn("Error from server (Forbidden)", pb.stderr)
			self.assertEqual(pb.stderr, js.stderr)

	def test_bad_protobuf_falls_back_to_json(self):
		with FakeAPI("seed002") as api:
			good = run_plugin(["--kubeconfig", api.kubeconfig, "-o", "json"], env=JSON_ONLY)
			api.clear_requests()
			api.fault({"method": "GET", "path_prefix": "/api/v1/pods"}, {"type": "malformed"})
			p = run_plugin(["--kubeconfig", api.kubeconfig, "-o", "json", "-v=6"])
			self.assertEqual(p.returncode, 0, p.stderr)
			self.assertEqual(p.stdout, good.stdout)
			self.assertIn("asking for JSON instead", p.stderr)
			accepts = [r["headers"].get("accept") for r in self.lists(api) if r["path"] == "/api/v1/pods"]
			self.assertEqual(len(accepts), 2, accepts)
			self.assertIn(PB, accepts[0])
			self.assertEqual(accepts[1], "application/json")


if __name__ == "__main__":
	unittest.main()
