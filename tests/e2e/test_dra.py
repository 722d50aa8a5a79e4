"""Dynamic Resource Allocation (resource.k8s.io) through `kubectl inspect cgpu`, against the fake API
server's DRA scenarios (fixtures/README.md): each node's GPUs from its ResourceSlices, the claims that hold
them joined to their pods, side by side with the other schemes; the version discovery picks; and a cluster
without the group, or a user who may not read it.

On the real tier the scenarios load only on a server that serves resource.k8s.io (KUBE_ASSETS at 1.34 or
later): on the shipped 1.26 server those tests are skipped, saying so (tests/envtest/envtest_dra.py).

Golden files live in golden/dra/ (stdout NAME.txt, stderr NAME.err when not empty); regenerate them with
UPDATE_GOLDEN=1 and read them by eye before keeping them.
"""

import json
import os
import shutil
import tempfile
import unittest

from goldens import check_cases
from harness import ROOT, SCENARIOS, APIServer, fake_only, plugin_path, run_plugin
from test_inspect import load_schema, schema_errors

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden", "dra")
ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}

# name: (scenario, arguments)
CASES = {
	"whole": ("dra-whole", []),
	"whole-details": ("dra-whole", ["-d"]),
	"timeslicing-details": ("dra-timeslicing", ["-d"]),
	"mps-details": ("dra-mps", ["-d"]),
	"consumable-details": ("dra-consumable", ["-d"]),
	"mig-details": ("dra-mig", ["-d"]),
	"taint": ("dra-taint", []),
	"incomplete": ("dra-incomplete", []),
	"bridged-details": ("dra-bridged", ["-d"]),
	"pending": ("dra-pending", []),
	"mixed": ("dra-mixed", []),
	"leaked": ("dra-leaked", []),
	"whole-wide": ("dra-whole", ["-o", "wide"]),
	"timeslicing-wide": ("dra-timeslicing", ["-o", "wide"]),
	"mps-wide": ("dra-mps", ["-o", "wide"]),
	"consumable-wide": ("dra-consumable", ["-o", "wide"]),
	"mig-wide": ("dra-mig", ["-o", "wide"]),
	"mixed-wide": ("dra-mixed", ["-o", "wide"]),
	"pools-details": ("dra-pools", ["-d"]),
	"pools-drivers-details": ("dra-pools", ["-d", "--dra-driver", "gpu.amd.com,gaudi.intel.com"]),
}


def inspect(api, args, env=None):
	return run_plugin(["--kubeconfig", api.kubeconfig] + list(args), env=dict(ENV, **(env or {})))


def inspect_json(api, args=(), env=None):
	r = inspect(api, list(args) + ["-o", "json"], env)
	if r.returncode != 0:
		raise AssertionError("exit %d: %s" % (r.returncode, r.stderr))
	return json.loads(r.stdout)


def validate(test, doc):
	"""doc holds to the published schema (tests/e2e/inspect.schema.json)."""
	test.assertEqual(schema_errors(load_schema(), doc), [])


def nodes_of(doc):
	return {n["name"]: n for n in doc.get("nodes", [])}


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class Golden(unittest.TestCase):
	maxDiff = None

	def test_golden(self):
		check_cases(self, GOLDEN, CASES, inspect)


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class Discovery(unittest.TestCase):
	maxDiff = None

	@fake_only("the versions a scenario is served in")
	def test_every_version_and_encoding_gives_the_same_answer(self):
		"""v1 (1.34), v1beta2 (1.33) and v1beta1 (1.32, its own shape), in protobuf and in JSON."""
		want = None
		for scenario, version in (("dra-whole", "v1"), ("dra-versions-v1beta2", "v1beta2"),
				("dra-versions-v1beta1", "v1beta1")):
			with APIServer(scenario) as api:
				for proto in ("true", "false"):
					r = inspect(api, ["-v=6"], env={"KUBECTL_INSPECT_CGPU_PROTOBUF": proto})
					self.assertEqual(r.returncode, 0, r.stderr)
					self.assertIn("/apis/resource.k8s.io/%s/resourceslices" % version, r.stderr)
					self.assertIn("/apis/resource.k8s.io/%s/resourceclaims" % version, r.stderr)
					want = want or r.stdout
					self.assertEqual(r.stdout, want, (scenario, proto))
		self.assertIn("163840/327680", want)

	@fake_only("the versions a scenario is served in")
	def test_the_version_read_is_in_the_report(self):
		for scenario, version in (("dra-whole", "v1"), ("dra-versions-v1beta1", "v1beta1")):
			with APIServer(scenario) as api:
				doc = inspect_json(api)
				self.assertEqual(doc["dynamicResourceAllocation"], {"apiVersion": "resource.k8s.io/" + version})
				validate(self, doc)

	def test_no_group_is_no_error(self):
		with APIServer("dra-versions-none") as api:
			r = inspect(api, ["-v=6"])
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertIn("/apis/resource.k8s.io", r.stderr)
			self.assertNotIn("resourceslices", r.stderr)
			self.assertNotIn("dynamicResourceAllocation", inspect_json(api))

	@fake_only("the fake server's viewer user")
	def test_forbidden_lists_are_a_warning(self):
		"""viewer may list nodes and pods, not resource.k8s.io: the rest of the answer stands."""
		with APIServer("dra-mixed") as api:
			r = run_plugin(["--kubeconfig", api.kubeconfig, "--context", "viewer"], env=ENV)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertIn("Dynamic Resource Allocation devices are not shown", r.stderr)
			self.assertIn("cgpu-v100-1", r.stdout)
			self.assertNotIn("dra-a100-1", r.stdout)

	@fake_only("users from an RBAC manifest")
	def test_the_readonly_role_reads_dra(self):
		"""man/rbac-readonly.yaml grants the DRA lists: its user sees the devices, without a warning."""
		try:
			from test_mode import rbac_user  # pylint: disable=import-outside-toplevel
			import yaml  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
		except ImportError:
			self.skipTest("PyYAML is not installed")
		with tempfile.TemporaryDirectory() as d:
			scen = os.path.join(d, "s")
			shutil.copytree(os.path.join(SCENARIOS, "dra-whole"), scen)
			with open(os.path.join(scen, "scenario.json")) as f:
				conf = json.load(f)
			conf.setdefault("users", {})["cgpu-readonly"] = rbac_user(os.path.join(ROOT, "man", "rbac-readonly.yaml"))
			with open(os.path.join(scen, "scenario.json"), "w") as f:
				json.dump(conf, f)
			with APIServer(scen) as api:
				r = run_plugin(["--kubeconfig", api.kubeconfig, "--as", "cgpu-readonly"], env=ENV)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertEqual(r.stderr, "")
				self.assertIn("163840/327680", r.stdout)

	def test_another_scheme_does_not_ask(self):
		with APIServer("dra-mixed") as api:
			r = inspect(api, ["-v=6", "--scheme", "hami"])
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertNotIn("resource.k8s.io", r.stderr)


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class Model(unittest.TestCase):
	maxDiff = None

	def test_consumable_shares_and_timeslicing_claim_counted_once(self):
		with APIServer("dra-consumable") as api:
			n = nodes_of(inspect_json(api))["dra-share-1"]
			self.assertEqual(n["scheme"], "dra")
			self.assertEqual((n["memory"]["allocated"], n["memory"]["total"]), (61440, 81920))
		with APIServer("dra-timeslicing") as api:
			doc = inspect_json(api, ["-d"])
			n = nodes_of(doc)["dra-ts-1"]
			# one claim shared by three pods holds the GPU once
			self.assertEqual((n["memory"]["allocated"], n["memory"]["total"]), (81559, 163118))

	def test_mig_devices_count_under_their_gpu(self):
		with APIServer("dra-mig") as api:
			n = nodes_of(inspect_json(api))["dra-mig-1"]
			self.assertEqual(len(n["gpus"]), 1)
			self.assertEqual(n["gpus"][0]["memory"]["allocated"], 29696)

	def test_bridged_pod_is_shown_as_dra(self):
		"""a pod asking nvidia.com/gpu that a DeviceClass serves is DRA's, held through the scheduler's claim"""
		with APIServer("dra-bridged") as api:
			doc = inspect_json(api, ["-d"])
			validate(self, doc)
			pods = {p["name"]: p for p in doc["pods"]}
			self.assertEqual(pods["legacy-app-0"]["scheme"], "dra")
			self.assertRegex(pods["legacy-app-0"]["heldThrough"], r"^legacy-app-0-extended-resources-\w+ \(nvidia.com/gpu\)$")
			self.assertEqual(pods["legacy-app-0"]["gpus"][0]["deviceId"], "gpu-0")

	def test_tainted_devices_are_cordoned(self):
		with APIServer("dra-taint") as api:
			n = nodes_of(inspect_json(api))["dra-taint-1"]
			self.assertEqual([g.get("cordoned", False) for g in n["gpus"]], [True, True, False])

	def test_wide_sharing_column_only_on_shared_dra_gpus(self):
		"""-o wide says each GPU's strategy; a cluster whose GPUs say none keeps its columns"""
		with APIServer("dra-timeslicing") as api:
			out = inspect(api, ["-o", "wide"]).stdout
			self.assertIn("SHARING", out.splitlines()[0])
			self.assertIn("GPU0 TimeSlicing Long; GPU1 -", out)
		with APIServer("dra-whole") as api:
			self.assertNotIn("SHARING", inspect(api, ["-o", "wide"]).stdout)

	def test_two_pools_on_one_node_are_told_apart(self):
		"""a pool placed by matchFields beside the node's own, each with a gpu-0: each claim holds its own"""
		with APIServer("dra-pools") as api:
			doc = inspect_json(api, ["-d"])
			validate(self, doc)
			n = nodes_of(doc)["dra-a100-3"]
			self.assertEqual([g["id"] for g in n["gpus"]], ["gpu-0", "gpu-1", "dra-rack-1/gpu-0"])
			self.assertEqual([g["memory"]["allocated"] for g in n["gpus"]], [81920, 0, 81920])
			pods = {p["name"]: p for p in doc["pods"]}
			self.assertEqual(pods["train-b"]["gpus"][0]["deviceId"], "dra-rack-1/gpu-0")
			self.assertEqual(doc.get("warnings", []), [])

	def test_dra_driver_adds_the_devices_of_a_driver(self):
		"""--dra-driver repeats and takes commas, in every command that reads the cluster"""
		with APIServer("dra-pools") as api:
			self.assertNotIn("dra-gaudi-1", nodes_of(inspect_json(api)))
			self.assertNotIn("dra-gaudi-1", inspect(api, ["top", "--once"]).stdout)
			for args in (["--dra-driver", "gaudi.intel.com"], ["--dra-driver=gpu.amd.com", "--dra-driver", "gaudi.intel.com"]):
				n = nodes_of(inspect_json(api, args))["dra-gaudi-1"]
				self.assertEqual((n["scheme"], n["unit"], n["memory"]["allocated"], n["memory"]["total"]),
					("dra", "slots", 1, 2))
			r = inspect(api, ["top", "--once", "--dra-driver", "gaudi.intel.com"])
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertIn("dra-gaudi-1", r.stdout)
			# completion offers the drivers the slices name, beside NVIDIA's
			r = inspect(api, ["__complete", "--dra-driver", ""])
			self.assertEqual(r.stdout.splitlines(), ["gaudi.intel.com", ":4"])
			r = inspect(api, ["--dra-driver", ","])
			self.assertEqual(r.returncode, 1)
			self.assertIn('invalid argument "," for "--dra-driver" flag', r.stderr)



if __name__ == "__main__":
	unittest.main()
