"""`kubectl inspect cgpu fit` of claims of Dynamic Resource Allocation devices against the fake API server's DRA
scenarios (fixtures/README.md): the claim flags (--device-class, --count, --capacity, --device-selector), manifests
holding a ResourceClaim, a ResourceClaimTemplate or a pod naming one (in the manifests or on the server), and the
reason a pod waiting for its claim gets in -d and JSON, from the same check.

The real tier's server (1.26) does not serve resource.k8s.io/v1: these run on the fake server only.
"""

import json
import os
import tempfile
import unittest

from harness import ClusterCase, FakeAPI, plugin_path, run_plugin
from test_inspect import load_schema, schema_errors

ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}
GPU = "gpu.nvidia.com"
INDEX = "device.attributes['gpu.nvidia.com'].index"

TEMPLATE_AND_POD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: two-late-gpus
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          count: 2
          selectors:
          - cel:
              expression: "device.attributes['gpu.nvidia.com'].index >= 2"
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
spec:
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: two-late-gpus
  containers:
  - name: main
    image: trainer:1
    resources:
      claims:
      - name: gpus
"""

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: three-gpus
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.nvidia.com
        count: 3
"""

# one request exact, one choosing among sub-requests, one with admin access
CLAIM_UNJUDGED = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: either
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.nvidia.com
        count: %d
    - name: big-or-small
      firstAvailable:
      - name: big
        deviceClassName: gpu.nvidia.com
        count: 2
      - name: small
        deviceClassName: gpu.nvidia.com
    - name: watch
      exactly:
        deviceClassName: gpu.nvidia.com
        adminAccess: true
"""

# dual-gpu is a template of the dra-whole scenario, on the server only
POD_OF_SERVER_TEMPLATE = """apiVersion: v1
kind: Pod
metadata:
  name: infer-1
  namespace: serving
spec:
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: %s
  containers:
  - name: main
    image: infer:1
"""


class DRACase(ClusterCase):
	server = FakeAPI

	def fit(self, *args, input=None):
		return run_plugin(["--kubeconfig", self.api.kubeconfig, "fit"] + list(args), env=ENV, input=input)

	def fit_json(self, *args, code=0):
		r = self.fit(*args, "-o", "json")
		self.assertEqual(r.returncode, code, r.stderr)
		return json.loads(r.stdout)

	def manifest(self, text):
		d = tempfile.mkdtemp(prefix="fit-dra-")
		self.addCleanup(lambda: __import__("shutil").rmtree(d, ignore_errors=True))
		path = os.path.join(d, "m.yaml")
		with open(path, "w") as f:
			f.write(text)
		return path


@unittest.skipUnless(plugin_path(), "CGPU_PLUGIN not built")
class FitClaimFlags(DRACase):
	"""dra-whole: two nodes of four A100s, gpu-0 and gpu-1 of each held."""
	scenario = "dra-whole"

	def test_devices_that_fit_and_where(self):
		r = self.fit("--device-class", GPU, "--count", "2")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("claim: 2 devices of class gpu.nvidia.com\n", r.stdout)
		self.assertIn("NODE         GPUS        DEVICES       FREE AFTER   SCHEME   POOL\n", r.stdout)
		self.assertRegex(r.stdout, r"dra-a100-1 +GPU2,GPU3 +gpu-2,gpu-3 +0 MiB +dra")
		self.assertRegex(r.stdout, r"dra-a100-2 +GPU2,GPU3 +gpu-2,gpu-3 +0 MiB +dra")
		self.assertIn("Fits on 2 of 2 nodes.", r.stdout)

	def test_too_few_devices_exits_3_with_the_reason(self):
		r = self.fit("--device-class", GPU, "--count", "3")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("Does not fit on 2 nodes:\n  2 nodes: 3 devices of class gpu.nvidia.com asked, 2 free that match",
			r.stdout)

	def test_selector_true_and_false(self):
		r = self.fit("--device-class", GPU, "--device-selector", INDEX + " == 3")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertRegex(r.stdout, r"dra-a100-1 +GPU3 +gpu-3 ")
		r = self.fit("--device-class", GPU, "--device-selector", INDEX + " > 3 || " + INDEX + " < 0")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("2 nodes: no device of class gpu.nvidia.com matches the selector", r.stdout)

	def test_a_selector_outside_the_subset_is_unknown_never_a_fit(self):
		r = self.fit("--device-class", GPU, "--device-selector", "device.attributes['gpu.nvidia.com'].productName.matches('A100')")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("Fits on 0 of 2 nodes.", r.stdout)
		self.assertNotIn("Does not fit", r.stdout)
		self.assertIn("Unknown on 2 nodes, never counted as fits:\n  2 nodes: selector not evaluated (outside the "
			"evaluated subset", r.stdout)
		doc = self.fit_json("--device-class", GPU, "--device-selector", "device.attributes['gpu.nvidia.com'].productName"
			".matches('A100')", code=3)
		self.assertFalse(doc["fits"])
		self.assertEqual(doc["nodesUnknown"], 2)
		self.assertEqual(doc["places"], [])
		self.assertEqual(doc["reasons"][0]["reason"], "Unknown")

	def test_json_says_the_requests(self):
		doc = self.fit_json("--device-class", GPU, "--count", "2", "--capacity", "memory=40Gi", "--device-selector",
			INDEX + " >= 1")
		self.assertEqual(doc["kind"], "FitAnswer")
		self.assertTrue(doc["fits"])
		self.assertEqual(doc["request"]["deviceRequests"], [{"name": "request", "deviceClassName": GPU,
			"allocationMode": "ExactCount", "count": 2, "firstAvailable": False, "adminAccess": False,
			"selectors": [INDEX + " >= 1"], "capacity": {"memory": "40Gi"}}])
		self.assertEqual(doc["nodesUnknown"], 0)
		self.assertEqual([(p["node"], p["gpus"], p["devices"]) for p in doc["places"]],
			[("dra-a100-1", [2, 3], ["gpu-2", "gpu-3"]), ("dra-a100-2", [2, 3], ["gpu-2", "gpu-3"])])

	def test_capacity_more_than_a_device_has(self):
		r = self.fit("--device-class", GPU, "--capacity", "memory=100Gi")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("2 nodes: not enough memory left on a device of class gpu.nvidia.com that matches (100Gi asked)",
			r.stdout)

	def test_a_class_the_server_does_not_have(self):
		r = self.fit("--device-class", "nosuch.example.com")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stderr, 'Error from server (NotFound): deviceclasses.resource.k8s.io "nosuch.example.com" '
			"not found\n")

	def test_selector_stays_the_node_label_selector(self):
		# -l/--selector chooses nodes, as everywhere; a device's CEL goes in --device-selector
		r = self.fit("--device-class", GPU, "--selector", "kubernetes.io/hostname=dra-a100-2")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("Fits on 1 of 1 node.", r.stdout)
		got = [q["query"].get("labelSelector") for q in self.api.requests() if q["path"] == "/api/v1/nodes"]
		self.assertIn("kubernetes.io/hostname=dra-a100-2", got)

	def test_flag_errors(self):
		for args, words in ((["--count", "2"], "--count is a flag of a claim: give it with --device-class"),
				(["--device-class", GPU, "--memory", "4Gi"], "--device-class asks for devices"),
				(["--device-class", GPU, "--count", "0"], 'invalid argument "0" for "--count" flag'),
				(["--device-class", GPU, "--capacity", "memory"], 'invalid argument "memory" for "--capacity" flag')):
			r = self.fit(*args)
			self.assertEqual(r.returncode, 1, r.stderr)
			self.assertIn(words, r.stderr)

	def test_manifest_template_and_pod(self):
		r = self.fit("-f", self.manifest(TEMPLATE_AND_POD))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("manifest ml/trainer, claim two-late-gpus: 2 devices of class gpu.nvidia.com where "
			"device.attributes['gpu.nvidia.com'].index >= 2\n", r.stdout)
		self.assertRegex(r.stdout, r"dra-a100-2 +GPU2,GPU3 ")

	def test_manifest_claim_alone(self):
		r = self.fit("-f", self.manifest(CLAIM))
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("resourceclaim ml/three-gpus: 3 devices of class gpu.nvidia.com\n", r.stdout)
		self.assertIn("2 nodes: 3 devices of class gpu.nvidia.com asked, 2 free that match", r.stdout)

	def test_sub_requests_and_admin_access_are_unknown_never_a_fit(self):
		r = self.fit("-f", self.manifest(CLAIM_UNJUDGED % 1))
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("resourceclaim ml/either: 1 device of class gpu.nvidia.com; request big-or-small (the first "
			"of its sub-requests that can be allocated); 1 device of class gpu.nvidia.com, with admin access\n",
			r.stdout)
		self.assertIn("Fits on 0 of 2 nodes.", r.stdout)
		self.assertIn("2 nodes: request big-or-small not evaluated (it takes the first of its sub-requests that can "
			"be allocated)", r.stdout)
		# where the exact request cannot be served, the claim cannot either
		out = self.fit_json("-f", self.manifest(CLAIM_UNJUDGED % 3), code=3)
		self.assertFalse(out["fits"])
		self.assertEqual(out["nodesUnknown"], 0)
		self.assertEqual([x["reason"] for x in out["reasons"]], ["TooFewDevices"])
		self.assertEqual([(q["name"], q["firstAvailable"], q["adminAccess"]) for q in out["request"]["deviceRequests"]],
			[("gpu", False, False), ("big-or-small", True, False), ("watch", False, True)])

	def test_pod_naming_a_template_on_the_server(self):
		r = self.fit("-f", self.manifest(POD_OF_SERVER_TEMPLATE % "dual-gpu"))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("manifest serving/infer-1, claim dual-gpu: 2 devices of class gpu.nvidia.com\n", r.stdout)
		got = [q["path"] for q in self.api.requests()]
		self.assertIn("/apis/resource.k8s.io/v1/namespaces/serving/resourceclaimtemplates/dual-gpu", got)
		r = self.fit("-f", self.manifest(POD_OF_SERVER_TEMPLATE % "nosuch"))
		self.assertEqual(r.returncode, 1)
		self.assertIn("NotFound", r.stderr)


@unittest.skipUnless(plugin_path(), "CGPU_PLUGIN not built")
class FitClaimShares(DRACase):
	"""dra-consumable: gpu-0 of dra-share-1 (80Gi) shared by claims consuming 60Gi of it."""
	scenario = "dra-consumable"

	def test_consumable_capacity_left(self):
		r = self.fit("--device-class", GPU, "--capacity", "memory=20Gi")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertRegex(r.stdout, r"dra-share-1 +GPU0 +gpu-0 +0 MiB")
		r = self.fit("--device-class", GPU, "--capacity", "memory=24Gi")
		self.assertEqual(r.returncode, 3)
		self.assertIn("1 node: not enough memory left on a device of class gpu.nvidia.com that matches (24Gi asked)",
			r.stdout)


@unittest.skipUnless(plugin_path(), "CGPU_PLUGIN not built")
class PendingClaim(DRACase):
	"""dra-pending: ml/waiting-0 waits for its claim; dra-full-1's one GPU is held by ml/busy-0."""
	scenario = "dra-pending"

	def claim_of(self, prefix):
		with open(os.path.join(os.environ.get("FIXTURES_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
				"fixtures")), "scenarios", "dra-pending", "resourceclaims.json")) as f:
			return [c for c in json.load(f)["items"] if c["metadata"]["name"].startswith(prefix)][0]

	def test_the_reason_in_details_and_json(self):
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-d"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		waiting = self.claim_of("waiting-0-")["metadata"]["name"]
		self.assertIn("Not scheduled yet: 1 pod waiting for a claim of devices: ml/waiting-0\n", r.stdout)
		self.assertIn("  ml/waiting-0: claim %s not allocated: 1 node: every device of class gpu.nvidia.com that "
			"matches is taken (not shareable)\n" % waiting, r.stdout)
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-o", "json"], env=ENV)
		doc = json.loads(r.stdout)
		self.assertEqual(schema_errors(load_schema(), doc), [])
		pod = [p for p in doc["unscheduledPods"] if p["name"] == "waiting-0"][0]
		self.assertEqual(pod["waitsForClaim"], waiting)
		self.assertTrue(pod["pendingReason"].startswith("claim %s not allocated: 1 node: every device" % waiting))

	def test_fit_of_the_pending_pod(self):
		# the pod read from the server: its claim's template, and the scheduler's events
		r = self.fit("ml/waiting-0")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("pod ml/waiting-0, claim single-gpu: 1 device of class gpu.nvidia.com\n", r.stdout)
		self.assertIn("1 node: every device of class gpu.nvidia.com that matches is taken (not shareable)", r.stdout)
		self.assertIn("Latest FailedScheduling events:\n  0/1 nodes are available: 1 cannot allocate all claims.",
			r.stdout)

	def test_the_reason_follows_the_claims(self):
		# busy-0's claim released: the device is free and the waiting claim could be allocated there
		busy = self.claim_of("busy-0-")
		busy["kind"], busy["apiVersion"] = "ResourceClaim", "resource.k8s.io/v1"
		del busy["status"]
		self.api.put_object(busy)
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-d"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertRegex(r.stdout, r"ml/waiting-0: claim waiting-0-gpu-\w+ not allocated: 1 node could hold it "
			r"\(first dra-full-1\)\n")
		# and fit of the same request says so too, with the same check
		r = self.fit("--device-class", GPU)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertRegex(r.stdout, r"dra-full-1 +GPU0 ")


if __name__ == "__main__":
	unittest.main()
