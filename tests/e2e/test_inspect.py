"""kubectl inspect cgpu: the summary and details tables, -o wide/json/yaml, selections and errors,
against the fake API server.

Golden files live in golden/inspect/.  The published examples (REFERENCE below) were copied from the
reference text and are never rewritten; the others are regenerated with UPDATE_GOLDEN=1 and then read
by eye before they are kept.  stdout is NAME.txt, stderr (when not empty) NAME.err.
"""

import json
import os
import shutil
import subprocess
import unittest
import urllib.parse

from harness import APIServer, plugin_path, run_plugin

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden", "inspect")
SCHEMA = os.path.join(HERE, "inspect.schema.json")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}

# Byte for byte from the published output: never regenerated.
REFERENCE = {"published-two-nodes", "published-mib", "seed002-empty", "seed002-details"}

# name: (scenario, arguments)
CASES = {
	"published-two-nodes": ("published-two-nodes", []),
	"published-mib": ("published-mib", []),
	"seed002-empty": ("seed002-empty", []),
	"seed002-details": ("seed002", ["-d"]),
	"seed002": ("seed002", []),
	"two-gpu": ("two-gpu", []),
	"two-gpu-details": ("two-gpu", ["--details"]),
	"multi-gpu": ("multi-gpu", []),
	"multi-gpu-details": ("multi-gpu", ["-d"]),
	"multi-gpu-wide": ("multi-gpu", ["-o", "wide"]),
	"multi-gpu-mib": ("multi-gpu", ["--unit", "MiB"]),
	"empty": ("empty", []),
	"empty-details": ("empty", ["-d"]),
	"opensource": ("opensource", []),
	"pools-pro-wide": ("pools-pro", ["-o", "wide"]),
	"pools-basic-wide": ("pools-basic", ["-o", "wide"]),
	"selectors-names": ("selectors", ["node-01", "node-00", "node-01"]),
	"selectors-names-details": ("selectors", ["-d", "node-00", "node-05"]),
	"selectors-label": ("selectors", ["-l", "tier=gold"]),
	"selectors-pool": ("selectors", ["--pool", "np-cgpu", "-o", "wide"]),
	"selectors-pool-label": ("selectors", ["--pool=tier=silver"]),
	"published-two-nodes-mib": ("published-two-nodes", ["--unit", "MiB"]),
}


def golden_path(name, ext):
	return os.path.join(GOLDEN, name + ext)


def read_golden(name, ext):
	p = golden_path(name, ext)
	if not os.path.exists(p):
		return None if ext == ".err" else ""
	with open(p, encoding="utf-8") as f:
		return f.read()


def write_golden(name, ext, text):
	p = golden_path(name, ext)
	if ext == ".err" and not text:
		if os.path.exists(p):
			os.unlink(p)
		return
	with open(p, "w", encoding="utf-8") as f:
		f.write(text)


# ---- a small JSON Schema checker (the subset inspect.schema.json uses) --------------------------------

TYPES = {
	"object": lambda v: isinstance(v, dict),
	"array": lambda v: isinstance(v, list),
	"string": lambda v: isinstance(v, str),
	"integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
	"number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
	"boolean": lambda v: isinstance(v, bool),
	"null": lambda v: v is None,
}


def schema_errors(schema, value, root=None, path="$"):
	"""Every violation of schema by value, as 'path: problem' strings."""
	root = root or schema
	errs = []
	if "$ref" in schema:
		ref = schema["$ref"]
		assert ref.startswith("#/"), ref
		target = root
		for part in ref[2:].split("/"):
			target = target[part]
		return schema_errors(target, value, root, path)
	t = schema.get("type")
	if t is not None:
		types = t if isinstance(t, list) else [t]
		if not any(TYPES[x](value) for x in types):
			return ["%s: %r is not %s" % (path, value, "/".join(types))]
	if "enum" in schema and value not in schema["enum"]:
		errs.append("%s: %r not in %r" % (path, value, schema["enum"]))
	if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
		errs.append("%s: %r below %r" % (path, value, schema["minimum"]))
	if isinstance(value, dict):
		props = schema.get("properties", {})
		for k in schema.get("required", []):
			if k not in value:
				errs.append("%s: missing %s" % (path, k))
		for k, v in value.items():
			if k in props:
				errs += schema_errors(props[k], v, root, path + "." + k)
			else:
				extra = schema.get("additionalProperties", True)
				if extra is False:
					errs.append("%s: unexpected key %s" % (path, k))
				elif isinstance(extra, dict):
					errs += schema_errors(extra, v, root, path + "." + k)
	if isinstance(value, list) and "items" in schema:
		for i, v in enumerate(value):
			errs += schema_errors(schema["items"], v, root, "%s[%d]" % (path, i))
	return errs


def load_schema():
	with open(SCHEMA) as f:
		return json.load(f)


# ---- the tests -------------------------------------------------------------------------------------------

@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class InspectTest(unittest.TestCase):
	maxDiff = None

	def run_case(self, scenario, args, **kw):
		with APIServer(scenario, **kw) as api:
			r = run_plugin(["--kubeconfig", api.kubeconfig] + list(args), env=ENV)
			return r, api.requests()

	def check_golden(self, name):
		scenario, args = CASES[name]
		r, _ = self.run_case(scenario, args)
		self.assertEqual(r.returncode, 0, r.stderr)
		if UPDATE and name not in REFERENCE:
			write_golden(name, ".txt", r.stdout)
			write_golden(name, ".err", r.stderr)
			return
		self.assertEqual(r.stdout, read_golden(name, ".txt"), "stdout of %s" % name)
		want_err = read_golden(name, ".err")
		if name not in REFERENCE or want_err is not None:
			self.assertEqual(r.stderr, want_err or "", "stderr of %s" % name)

	def test_goldens(self):
		for name in CASES:
			with self.subTest(name=name):
				self.check_golden(name)

	def test_reference_goldens_are_the_published_text(self):
		with open(golden_path("published-mib", ".txt")) as f:
			text = f.read()
		self.assertIn("master  192.168.4.15  0/11178", text)
		self.assertIn("18960/89424 (21%)", text)
		self.assertTrue(text.endswith("\n"))

	def test_real_kubectl_finds_the_plugin(self):
		kubectl = shutil.which("kubectl")
		if not kubectl:
			self.skipTest("kubectl not installed")
		plugin_dir = os.environ.get("CGPU_PLUGIN_DIR") or os.path.dirname(plugin_path())
		env = dict(os.environ, **ENV)
		env["PATH"] = plugin_dir + os.pathsep + env.get("PATH", "")
		with APIServer("published-two-nodes") as api:
			env["KUBECONFIG"] = api.kubeconfig
			r = subprocess.run([kubectl, "inspect", "cgpu"], capture_output=True, text=True, env=env, timeout=60)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertEqual(r.stdout, read_golden("published-two-nodes", ".txt"))
			r = subprocess.run([kubectl, "inspect", "cgpu", "-d", "--kubeconfig", api.kubeconfig], capture_output=True,
				text=True, env=env, timeout=60)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertIn("Allocated/Total GPU Memory In Cluster:  9/30 (30%)\n", r.stdout)

	def test_missing_node(self):
		r, _ = self.run_case("selectors", ["node-01", "nosuch"])
		self.assertEqual(r.returncode, 1)
		self.assertIn("\nnode-01 ", r.stdout)
		self.assertEqual(r.stderr, 'Error from server (NotFound): nodes "nosuch" not found\n')

	def test_forbidden_user(self):
		r, _ = self.run_case("seed002", ["--context", "nobody"])
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stdout, "")
		# the node list's error, as kubectl would report it, whichever list the server refused first
		self.assertEqual(r.stderr, 'Error from server (Forbidden): nodes is forbidden: User "nobody" cannot list '
			'resource "nodes" in API group "" at the cluster scope\n')

	def test_unknown_token(self):
		r, _ = self.run_case("seed002", ["--context", "badtoken"])
		self.assertEqual(r.returncode, 1)
		self.assertTrue(r.stderr.startswith("error: You must be logged in to the server"), r.stderr)

	def test_viewer_is_enough(self):
		r, _ = self.run_case("seed002", ["--context", "viewer", "-o", "json"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(json.loads(r.stdout)["totals"]["memory"]["allocated"], 8)

	def test_usage_errors(self):
		for args in (["-o", "xml"], ["--unit", "TB"], ["-l", "a=b", "node-1"], ["--no-such-flag"]):
			with self.subTest(args=args):
				r, reqs = self.run_case("seed002", args)
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertEqual(r.stdout, "")
				self.assertTrue(r.stderr.startswith("error: "), r.stderr)
				self.assertEqual([q for q in reqs if q["path"].startswith("/api")], [])

	def test_json_validates_against_schema(self):
		schema = load_schema()
		for scenario in ("seed002", "published-mib", "multi-gpu", "empty", "selectors", "cce", "lightweight",
				"opensource", "pools-pro"):
			with self.subTest(scenario=scenario):
				r, _ = self.run_case(scenario, ["-o", "json"])
				self.assertEqual(r.returncode, 0, r.stderr)
				doc = json.loads(r.stdout)
				self.assertEqual(schema_errors(schema, doc), [])
				# figures agree with themselves
				nodes = [n for n in doc["nodes"] if n["unit"] != "slots"]
				self.assertEqual(doc["totals"]["memory"]["total"], sum(n["memory"]["total"] for n in nodes))
				self.assertEqual(doc["totals"]["memory"]["allocated"], sum(n["memory"]["allocated"] for n in nodes))
				self.assertEqual([n["name"] for n in doc["nodes"]], sorted(n["name"] for n in doc["nodes"]))
				keys = [(p["namespace"], p["name"]) for p in doc["pods"]]
				self.assertEqual(keys, sorted(keys))

	def test_schema_checker_can_fail(self):
		schema = load_schema()
		r, _ = self.run_case("seed002", ["-o", "json"])
		doc = json.loads(r.stdout)
		doc["totals"]["memory"]["total"] = "15"
		del doc["nodes"][0]["gpus"]
		doc["extra"] = 1
		errs = schema_errors(schema, doc)
		self.assertEqual(len(errs), 3, errs)

	def test_json_ci_expression(self):
		# what `jq -e '.totals.memory.allocated / .totals.memory.total > 0.9'` computes
		r, _ = self.run_case("seed002", ["-o", "json"])
		t = json.loads(r.stdout)["totals"]["memory"]
		self.assertEqual((t["allocated"], t["total"], t["unit"]), (8, 15, "GiB"))
		self.assertFalse(t["allocated"] / t["total"] > 0.9)

	def test_json_multi_gpu_pending_core_unscheduled(self):
		r, _ = self.run_case("multi-gpu", ["-o", "json"])
		self.assertEqual(r.returncode, 0, r.stderr)
		doc = json.loads(r.stdout)
		by = {n["name"]: n for n in doc["nodes"]}
		self.assertEqual(by["gpu-4x"]["memory"]["pending"], 5)
		self.assertEqual(len(by["gpu-4x"]["pendingPods"]), 1)
		self.assertEqual(by["gpu-8x"]["core"]["total"], 800)
		self.assertGreater(by["gpu-8x"]["core"]["allocated"], 0)
		self.assertEqual(by["gpu-8x"]["mode"], "core_mem")
		self.assertEqual(by["gpu-zero"]["memory"]["unhealthy"], 16)
		self.assertEqual(doc["totals"]["unscheduledPods"], len(doc["unscheduledPods"]))
		self.assertGreater(len(doc["unscheduledPods"]), 0)
		self.assertIsNone(doc["unscheduledPods"][0]["node"])
		codes = {w["code"] for w in doc["warnings"]}
		self.assertIn("OverAllocated", codes)
		# warnings also go to stderr
		self.assertIn("Warning: node gpu-8x: GPU3 has 20/16 GiB allocated", r.stderr)
		# a pod spread over two GPUs shows on both
		spread = [p for p in doc["pods"] if len([g for g in p["gpus"] if not g["pending"]]) > 1]
		self.assertTrue(spread)

	def test_yaml_is_the_same_document(self):
		rj, _ = self.run_case("seed002", ["-o", "json"])
		ry, _ = self.run_case("seed002", ["-o", "yaml"])
		self.assertEqual(ry.returncode, 0, ry.stderr)
		self.assertTrue(ry.stdout.startswith("apiVersion: inspect-cgpu.kubectl.io/v1\nkind: GPUShareReport\n"))
		doc = json.loads(rj.stdout)
		# every top-level key appears in the same order
		keys = [l.split(":")[0] for l in ry.stdout.splitlines() if l and not l[0].isspace() and not l.startswith("-")]
		self.assertEqual(keys, list(doc.keys()))
		self.assertIn("  memory:\n    unit: GiB\n    total: 15\n    allocated: 8\n", ry.stdout)

	def test_server_side_selection(self):
		def lists(reqs, kind):
			out = []
			for q in reqs:
				if q["method"] == "GET" and q["path"] == "/api/v1/" + kind:
					qs = q.get("query")
					if isinstance(qs, str):
						qs = {k: v[0] for k, v in urllib.parse.parse_qs(qs).items()}
					out.append(qs or {})
			return out

		_, reqs = self.run_case("selectors", [])
		pods = lists(reqs, "pods")
		self.assertEqual(len(pods), 1)
		self.assertIn("status.phase!=Succeeded", pods[0].get("fieldSelector", ""))
		self.assertIn("status.phase!=Failed", pods[0].get("fieldSelector", ""))

		_, reqs = self.run_case("selectors", ["node-01", "node-00", "node-01"])
		pods = sorted(q.get("fieldSelector", "") for q in lists(reqs, "pods"))
		self.assertEqual(len(pods), 2)
		self.assertTrue(pods[0].startswith("spec.nodeName=node-00,"), pods)
		self.assertTrue(pods[1].startswith("spec.nodeName=node-01,"), pods)
		nodes = sorted(q.get("fieldSelector", "") for q in lists(reqs, "nodes"))
		self.assertEqual(nodes, ["metadata.name=node-00", "metadata.name=node-01"])

		_, reqs = self.run_case("selectors", ["--pool", "np-cgpu", "-l", "tier=gold"])
		nodes = lists(reqs, "nodes")
		self.assertEqual(len(nodes), 1)
		self.assertEqual(nodes[0].get("labelSelector"), "tier=gold,alibabacloud.com/nodepool-id=np-cgpu")

	def test_namespace_limits_details_only(self):
		r_all, _ = self.run_case("seed002", ["-d"])
		r_ns, _ = self.run_case("seed002", ["-d", "-n", "other"])
		self.assertEqual(r_ns.returncode, 0, r_ns.stderr)
		# a namespace that holds no GPU pod: kubectl get pods' words, and nothing on stdout
		self.assertEqual(r_ns.stdout, "")
		self.assertIn("No resources found in other namespace.\n", r_ns.stderr)
		self.assertIn("app-3g-v1-0", r_all.stdout)
		r_ns, _ = self.run_case("seed002", ["-d", "-n", "default"])
		self.assertIn("app-3g-v1-0", r_ns.stdout)
		self.assertIn("Allocated :  8 (53%)", r_ns.stdout)
		r_sum, _ = self.run_case("seed002", ["-n", "other"])
		self.assertIn("8/15 (53%)", r_sum.stdout)
		self.assertIn("-n other has no effect here", r_sum.stderr)

	def test_pods_added_later_show_up(self):
		with APIServer("seed002-empty") as api:
			node = "cn-hangzhou.192.168.2.167"
			for i, idx in enumerate(("0", None)):
				ann = {"ALIYUN_COM_GPU_MEM_IDX": idx} if idx else {}
				api.put_object({
					"apiVersion": "v1", "kind": "Pod",
					"metadata": {"name": "late-%d" % i, "namespace": "default", "annotations": ann},
					"spec": {"nodeName": node, "containers": [
						{"name": "c", "image": "x", "resources": {"limits": {"aliyun.com/gpu-mem": "3"}}}]},
					"status": {"phase": "Running" if idx else "Pending"},
				})
			r = run_plugin(["--kubeconfig", api.kubeconfig], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("PENDING(Allocated)", r.stdout)
		self.assertIn("3/15                   3                   6/15\n", r.stdout)

	def test_mixed_units_and_contradicting_labels(self):
		def node(name, mem, labels):
			return {
				"apiVersion": "v1", "kind": "Node",
				"metadata": {"name": name, "labels": labels},
				"status": {
					"capacity": {"aliyun.com/gpu-mem": mem, "aliyun.com/gpu-count": "1"},
					"allocatable": {"aliyun.com/gpu-mem": mem, "aliyun.com/gpu-count": "1"},
					"addresses": [{"type": "InternalIP", "address": "10.9.9.9"}],
				},
			}

		with APIServer("seed002") as api:
			api.put_object(node("mib-node", "11178", {"gpushare": "true"}))
			api.put_object(node("odd-node", "15", {"cgpu": "false", "ack.node.gpu.schedule": "cgpu"}))
			r = run_plugin(["--kubeconfig", api.kubeconfig], env=ENV)
			rj = run_plugin(["--kubeconfig", api.kubeconfig, "-o", "json"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		# one table per unit, GiB first: never converted, never mixed in a column
		gib, mib = r.stdout.split("\n\n")
		self.assertIn("GPU Memory(GiB)", gib)
		self.assertIn("cn-hangzhou.192.168.2.167  192.168.2.167  8/15", gib)
		self.assertIn("8/30 (26%)", gib)
		self.assertIn("GPU Memory(MiB)", mib)
		self.assertIn("mib-node  10.9.9.9   0/11178", mib)
		self.assertIn("0/11178 (0%)", mib)
		self.assertNotIn("different units", r.stderr)
		self.assertIn("cgpu=false", r.stderr)
		doc = json.loads(rj.stdout)
		self.assertTrue(doc["mixedUnits"])
		# the cluster totals, where GiB and MiB meet, in MiB
		self.assertEqual(doc["unit"], "MiB")
		self.assertEqual(doc["totals"]["memory"]["total"], 30 * 1024 + 11178)
		self.assertEqual(doc["totals"]["memory"]["allocated"], 8192)
		self.assertEqual([(g["unit"], g["memory"]["total"]) for g in doc["totals"]["byUnit"]], [("GiB", 30), ("MiB", 11178)])
		codes = sorted(w["code"] for w in doc["warnings"])
		self.assertEqual(codes, ["ContradictoryLabels"])
		self.assertEqual(schema_errors(load_schema(), doc), [])

	def test_empty_cluster_hint(self):
		r, _ = self.run_case("empty", [])
		self.assertEqual(r.returncode, 0)
		self.assertIn("aliyun.com/gpu-mem", r.stderr)
		self.assertIn("ack.node.gpu.schedule=share", r.stderr)
		self.assertIn("cgpu=true", r.stderr)


if __name__ == "__main__":
	unittest.main()
