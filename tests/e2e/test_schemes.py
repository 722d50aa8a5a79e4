"""The other sharing schemes (Huawei CCE xGPU, Volcano vGPU, HAMi, NVIDIA whole GPUs and time-slicing, and a
cluster mixing them with cGPU) through `kubectl inspect cgpu`, against the fake API server.

Golden files live in golden/schemes/ (stdout NAME.txt, stderr NAME.err when not empty); regenerate them with
UPDATE_GOLDEN=1 and read them by eye before keeping them.  "Now" is pinned with CGPU_NOW so the HAMi handshake
age does not depend on the clock.  The scenarios are built by mkschemes.py.

The JSON checks assert what the scheme decoders establish: which scheme owns each node and pod, each node's
natural unit (MiB for CCE/Volcano/HAMi, slots for whole GPUs), totals, device UUIDs and warnings; the
model's join (pods to GPUs by device UUID, per-node counts where no per-GPU placement is published); and the
tables' rule that a column never mixes units (one table per unit).
"""

import json
import os
import unittest

from goldens import check_cases
from harness import APIServer, plugin_path, run_plugin

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden", "schemes")
NOW = "2026-11-21T17:00:00Z"
ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200", "CGPU_NOW": NOW}

# name: (scenario, arguments)
CASES = {
	"mixed": ("mixed", []),
	"mixed-details": ("mixed", ["-d"]),
	"mixed-wide": ("mixed", ["-o", "wide"]),
	"cce": ("cce", []),
	"cce-multi": ("cce-multi", []),
	"cce-multi-details": ("cce-multi", ["-d"]),
	"volcano-vgpu": ("volcano-vgpu", []),
	"volcano-vgpu-details": ("volcano-vgpu", ["-d"]),
	"hami": ("hami", []),
	"hami-details": ("hami", ["-d"]),
	"hami-legacy": ("hami-legacy", []),
	"nvidia-timeslicing": ("nvidia-timeslicing", []),
	"nvidia-timeslicing-details": ("nvidia-timeslicing", ["-d"]),
	"lightweight": ("lightweight", []),
}


def inspect(api, args):
	return run_plugin(["--kubeconfig", api.kubeconfig] + list(args), env=ENV)


def inspect_json(api, args=()):
	r = inspect(api, list(args) + ["-o", "json"])
	if r.returncode != 0:
		raise AssertionError("exit %d: %s" % (r.returncode, r.stderr))
	return json.loads(r.stdout)


def by_name(items):
	return {i["name"]: i for i in items}


def all_pods(doc):
	return by_name(doc.get("pods", []) + doc.get("unscheduledPods", []))


def warnings_of(doc):
	return {(w["code"], w.get("object")) for w in doc.get("warnings", [])}


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class Golden(unittest.TestCase):
	maxDiff = None

	def test_golden(self):
		check_cases(self, GOLDEN, CASES, inspect)


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class Schemes(unittest.TestCase):
	maxDiff = None

	@classmethod
	def setUpClass(cls):
		cls.docs = {}
		for scenario in ("mixed", "cce-multi", "volcano-vgpu", "hami", "hami-legacy", "nvidia-timeslicing"):
			with APIServer(scenario) as api:
				cls.docs[scenario] = inspect_json(api)

	def test_mixed_each_node_its_scheme_and_unit(self):
		doc = self.docs["mixed"]
		nodes = by_name(doc["nodes"])
		self.assertEqual({n: v["scheme"] for n, v in nodes.items()},
			{"cgpu-v100-1": "cgpu", "cce-v100-1": "cce", "hami-a100-1": "hami", "ts-t4-1": "nvidia"},
			"the CPU node is not shown; each GPU node is claimed by exactly one scheme")
		self.assertEqual(nodes["cce-v100-1"]["unit"], "MiB")
		self.assertEqual(nodes["hami-a100-1"]["unit"], "MiB")
		self.assertEqual(nodes["ts-t4-1"]["unit"], "slots")
		self.assertEqual(nodes["cce-v100-1"]["memory"]["total"], 126 * 128)
		self.assertEqual(nodes["cce-v100-1"]["core"]["total"], 100)
		self.assertEqual(nodes["hami-a100-1"]["memory"]["total"], 2 * 40960)
		self.assertEqual(nodes["ts-t4-1"]["memory"]["total"], 4, "1 GPU x 4 replicas")
		pods = all_pods(doc)
		self.assertEqual({p: v["scheme"] for p, v in pods.items()},
			{"cgpu-app-0": "cgpu", "gpu-app-6d8f9b7c5d-x2k4q": "cce", "llm-infer-0": "hami", "jupyter-0": "nvidia"})
		self.assertEqual(pods["gpu-app-6d8f9b7c5d-x2k4q"]["memory"], 5120)
		self.assertEqual(pods["gpu-app-6d8f9b7c5d-x2k4q"]["core"], 25)
		self.assertEqual(pods["jupyter-0"]["unit"], "slots")
		self.assertEqual(pods["jupyter-0"]["memory"], 1)

	def test_hami_devices_and_warnings(self):
		for scenario, prefix in (("hami", "hami-gpu"), ("hami-legacy", "hami-old")):
			with self.subTest(scenario=scenario):
				doc = self.docs[scenario]
				nodes = by_name(doc["nodes"])
				n1, n2 = nodes[prefix + "-1"], nodes[prefix + "-2"]
				self.assertEqual(n1["gpuCount"], 2)
				self.assertEqual(n2["gpuCount"], 4)
				self.assertTrue(all(g["id"].startswith("GPU-") for g in n1["gpus"] + n2["gpus"]))
				self.assertEqual(n2["memory"]["total"], 3 * 15360, "the device without health is not counted")
				self.assertEqual(n2["memory"]["unhealthy"], 15360)
				# the old seven-field register has no mode; the newer forms say hami-core
				self.assertEqual(n1["mode"], None if scenario == "hami-legacy" else "hami-core")
				self.assertEqual(n2["mode"], "hami-core")
				pods = all_pods(doc)
				self.assertEqual(pods["trainer-0"]["memory"], 40000)
				self.assertTrue(pods["trainer-0"]["gpus"][0]["deviceId"] in {g["id"] for g in n1["gpus"]})
				self.assertIsNone(pods["waiting-0"]["node"])
				self.assertIsNone(pods["retry-0"]["node"], "a failed bind holds nothing")
				w = warnings_of(doc)
				self.assertIn(("HandshakeStuck", "node/%s-2" % prefix), w)
				self.assertIn(("MalformedAnnotation", "pod/dev/garbled-0"), w)
				self.assertIn(("BindFailed", "pod/dev/retry-0"), w)
				self.assertNotIn(("HandshakeStuck", "node/%s-1" % prefix), w)

	def test_hami_handshake_follows_the_clock(self):
		with APIServer("hami") as api:
			r = run_plugin(["--kubeconfig", api.kubeconfig, "-o", "json"], env=dict(ENV, CGPU_NOW="2026-11-21T16:42:00Z"))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertNotIn("HandshakeStuck", {w["code"] for w in json.loads(r.stdout)["warnings"]})

	def test_cce_warnings_and_pods(self):
		doc = self.docs["cce-multi"]
		nodes = by_name(doc["nodes"])
		self.assertEqual(nodes["192.168.0.91"]["memory"]["total"], 2 * 126 * 128)
		self.assertEqual(nodes["192.168.0.91"]["core"]["total"], 200)
		self.assertEqual(nodes["192.168.0.92"]["memory"]["total"], 120 * 128)
		self.assertEqual(nodes["192.168.0.92"]["memory"]["unhealthy"], 120 * 128)
		pods = all_pods(doc)
		self.assertNotIn("done-4c3b2a1f0-t5s4r", pods, "finished pods hold nothing")
		self.assertEqual(pods["infer-5c7d9f8b6-k2m4n"]["memory"], 40 * 128)
		self.assertEqual([c["memory"] for c in pods["infer-5c7d9f8b6-k2m4n"]["containers"]], [2048, 0, 3072])
		self.assertIsNone(pods["big-5d4c3b2a1-w1v2u"]["node"])
		w = warnings_of(doc)
		self.assertIn(("CoreShareNotMultipleOf5", "pod/default/odd-core-7f6d5c4b3-p9q8r"), w)
		self.assertIn(("SchedulerNotVolcano", "pod/default/render-6b5c4d3e2-z7y6x"), w)

	def test_volcano(self):
		doc = self.docs["volcano-vgpu"]
		nodes = by_name(doc["nodes"])
		self.assertEqual({n: v["scheme"] for n, v in nodes.items()},
			{"volc-gpu-1": "volcano-vgpu", "volc-gpu-2": "volcano-vgpu", "share-gpu-1": "volcano-vgpu"})
		self.assertEqual(nodes["volc-gpu-1"]["memory"]["total"], 81920)
		self.assertEqual(nodes["volc-gpu-2"]["memory"]["unhealthy"], 15360)
		self.assertEqual(nodes["share-gpu-1"]["mode"], "gpu-share")
		self.assertEqual(nodes["share-gpu-1"]["gpus"][1]["memory"]["allocated"], 4096,
			"gpu-share pods name their GPU index")
		pods = all_pods(doc)
		self.assertEqual(pods["train-1"]["memory"], 4096 + 2 * 10240)
		self.assertFalse(pods["infer-0"]["assigned"])
		self.assertTrue(pods["train-0"]["assigned"])

	def test_nvidia_slots(self):
		doc = self.docs["nvidia-timeslicing"]
		nodes = by_name(doc["nodes"])
		self.assertEqual({n: (v["unit"], v["memory"]["total"], v["gpuCount"], v["mode"]) for n, v in nodes.items()}, {
			"ts-a100-1": ("slots", 80, 8, "time-slicing"),
			"mps-a100-1": ("slots", 8, 2, "mps"),
			"whole-t4-1": ("slots", 3, 4, "none"),
		})
		self.assertEqual(nodes["whole-t4-1"]["memory"]["unhealthy"], 1)
		pods = all_pods(doc)
		self.assertEqual(pods["sweep-0"]["memory"], 4)
		self.assertIsNone(pods["resnet-1"]["node"])

	# --- allocation figures the model computes from the decoders' claims ---------------------------------

	def test_hami_allocation_per_gpu(self):
		"""Needs the model to map device UUIDs to GPU indexes (claims carry gpu -1 and the UUID)."""
		n1 = by_name(self.docs["hami"]["nodes"])["hami-gpu-1"]
		trainer = all_pods(self.docs["hami"])["trainer-0"]
		self.assertEqual({g["deviceId"] for g in trainer["gpus"]}, {g["id"] for g in n1["gpus"]})
		self.assertEqual([g["memory"]["allocated"] for g in n1["gpus"]], [30000, 20000])
		self.assertEqual([g["core"]["allocated"] for g in n1["gpus"]], [80, 50])
		self.assertEqual(n1["memory"]["pending"], 0)

	def test_node_allocation_without_per_gpu_placement(self):
		"""Needs the model to count pods of nodes without per-GPU placement (CCE, whole GPUs) per node."""
		cce = by_name(self.docs["cce-multi"]["nodes"])
		self.assertEqual(cce["192.168.0.91"]["memory"]["allocated"], (40 + 40 + 8) * 128)
		self.assertEqual(cce["192.168.0.92"]["memory"]["allocated"], 60 * 128)
		nv = by_name(self.docs["nvidia-timeslicing"]["nodes"])
		self.assertEqual(nv["ts-a100-1"]["memory"]["allocated"], 7)
		self.assertEqual(nv["whole-t4-1"]["memory"]["allocated"], 2)

	def test_units_never_mixed_in_a_column(self):
		"""One summary table per unit: every node of a table counts in the unit its headings name."""
		for scenario in ("mixed", "nvidia-timeslicing", "cce-multi", "hami"):
			with self.subTest(scenario=scenario):
				with APIServer(scenario) as api:
					r = inspect(api, [])
					doc = inspect_json(api)
				self.assertEqual(r.returncode, 0, r.stderr)
				units = {n["name"]: n["unit"] for n in doc["nodes"]}
				seen = {}
				for block in r.stdout.split("\n\n"):
					lines = block.splitlines()
					if not lines or not lines[0].startswith("NAME "):
						continue
					header = lines[0]
					if "GPUs(slots)" in header:
						unit = "slots"
					else:
						start = header.index("GPU Memory(") + len("GPU Memory(")
						unit = header[start:header.index(")", start)]
					for row in lines[1:]:
						if row.startswith("-"):
							break
						self.assertNotIn("slots", row, "the heading says so, not the cell")
						seen[row.split()[0]] = unit
				self.assertEqual(seen, units, "each node once, in the table of its unit")

	def test_mixed_tables_in_fixed_order(self):
		with APIServer("mixed") as api:
			r = inspect(api, [])
			rd = inspect(api, ["-d"])
		self.assertEqual(r.returncode, 0, r.stderr)
		heads = [l for l in r.stdout.splitlines() if l.startswith("NAME ")]
		self.assertEqual(len(heads), 3)
		self.assertIn("GPU Memory(GiB)", heads[0])
		self.assertIn("GPU Memory(MiB)", heads[1])
		self.assertIn("GPUs(slots)", heads[2])
		foot = [l for l in r.stdout.splitlines() if "In Cluster:" in l]
		self.assertEqual(foot, ["Allocated/Total GPU Memory In Cluster:", "Allocated/Total GPU Memory In Cluster:",
			"Allocated/Total GPU Core(%) In Cluster:", "Allocated/Total GPU Slots In Cluster:"])
		self.assertIn("4/15 (26%)\n", r.stdout, "cgpu: 4 of 15 GiB")
		self.assertIn("15120/98048 (15%)\n", r.stdout, "cce 5120 + hami 10000 MiB of 16128 + 81920")
		self.assertIn("1/4 (25%)\n", r.stdout, "one of four time-slicing replicas")
		self.assertIn("Per-GPU split not published by cce nodes", r.stdout)
		self.assertIn("Per-GPU split not published by nvidia nodes", r.stdout)
		self.assertNotIn("different units", r.stderr, "nothing is converted")
		self.assertEqual(rd.returncode, 0, rd.stderr)
		self.assertIn("NODE(Allocated MiB)", rd.stdout)
		self.assertIn("NODE(Allocated slots)", rd.stdout)
		self.assertNotIn("GPU0(Allocated slots)", rd.stdout)

	def test_pending_line_in_each_unit(self):
		with APIServer("nvidia-timeslicing") as api:
			r = inspect(api, [])
		self.assertIn("Not scheduled yet: 1 pod asking for 2 slots: vision/resnet-1", r.stdout)

	def test_warnings_once_and_naming_the_object(self):
		for scenario in ("hami", "hami-legacy", "cce-multi", "mixed", "volcano-vgpu"):
			with self.subTest(scenario=scenario):
				with APIServer(scenario) as api:
					r = inspect(api, ["-d"])
					doc = inspect_json(api)
				lines = r.stderr.splitlines()
				self.assertEqual(len(lines), len(set(lines)), r.stderr)
				self.assertEqual(len(lines), len(doc["warnings"]))
				for w in doc["warnings"]:
					if w.get("object"):
						name = w["object"].split("/")[-1]
						self.assertTrue(any(name in l and w["message"] in l for l in lines), (w, r.stderr))

	def test_json_matches_the_schema(self):
		from test_inspect import load_schema, schema_errors
		schema = load_schema()
		for scenario, doc in sorted(self.docs.items()):
			with self.subTest(scenario=scenario):
				self.assertEqual(schema_errors(schema, doc), [])
				# each unit's totals add up its own nodes, and nothing else
				for group in doc["totals"]["byUnit"]:
					nodes = [n for n in doc["nodes"] if n["unit"] == group["unit"]]
					self.assertEqual(group["nodes"], len(nodes))
					self.assertEqual(group["memory"]["total"], sum(n["memory"]["total"] for n in nodes))
					self.assertEqual(group["memory"]["allocated"], sum(n["memory"]["allocated"] for n in nodes))
		self.assertTrue(self.docs["mixed"]["mixedUnits"])
		self.assertEqual([g["unit"] for g in self.docs["mixed"]["totals"]["byUnit"]], ["GiB", "MiB", "slots"])

	def test_malformed_annotations_warn_naming_pod_and_annotation(self):
		def pod(name, node, ann, limits):
			return {
				"apiVersion": "v1", "kind": "Pod",
				"metadata": {"name": name, "namespace": "bad", "annotations": ann},
				"spec": {"nodeName": node, "schedulerName": "volcano", "containers": [
					{"name": "c", "image": "x", "resources": {"limits": limits}}]},
				"status": {"phase": "Running"},
			}

		cases = {
			"bad-cgpu": ("cgpu-v100-1", {"ALIYUN_COM_GPU_MEM_IDX": "zero"}, {"aliyun.com/gpu-mem": "2"},
				"ALIYUN_COM_GPU_MEM_IDX"),
			"bad-hami": ("hami-a100-1", {"hami.io/vgpu-devices-allocated": "GPU-x,NVIDIA,lots,;", "hami.io/vgpu-node": "hami-a100-1",
				"hami.io/bind-phase": "success"}, {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "1000"},
				"hami.io/vgpu-devices-allocated"),
			"bad-cce": ("cce-v100-1", {}, {"volcano.sh/gpu-mem.128Mi": "lots"}, "volcano.sh/gpu-mem.128Mi"),
			"bad-nvidia": ("ts-t4-1", {}, {"nvidia.com/gpu": "one"}, "nvidia.com/gpu"),
		}
		with APIServer("mixed") as api:
			if api.backend != "fake":
				# A real API server refuses limits that are not quantities: such pods cannot exist there.
				cases = {k: v for k, v in cases.items() if k not in ("bad-cce", "bad-nvidia")}
			for name, (node, ann, limits, _) in cases.items():
				api.put_object(pod(name, node, ann, limits))
			for args in ([], ["-d"], ["-o", "wide"], ["-o", "json"]):
				r = inspect(api, args)
				self.assertEqual(r.returncode, 0, r.stderr)
				if args == ["-o", "json"]:
					json.loads(r.stdout)
					continue
				for name, (_, _, _, key) in cases.items():
					with self.subTest(args=args, pod=name):
						self.assertTrue(any("bad/" + name in l and key in l for l in r.stderr.splitlines()), r.stderr)

	def test_scheme_flag_restricts(self):
		with APIServer("mixed") as api:
			doc = inspect_json(api, ["--scheme", "hami"])
			r = inspect(api, ["--scheme", "nvidia"])
			bad = inspect(api, ["--scheme", "nope"])
		self.assertEqual([n["name"] for n in doc["nodes"]], ["hami-a100-1"])
		self.assertEqual([p["name"] for p in doc["pods"]], ["llm-infer-0"])
		self.assertFalse(doc["mixedUnits"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("ts-t4-1", r.stdout)
		self.assertNotIn("cgpu-v100-1", r.stdout)
		self.assertNotIn("GPU Memory", r.stdout)
		self.assertEqual(bad.returncode, 1)
		self.assertIn("--scheme", bad.stderr)

	def test_gpu_flags_in_json(self):
		n1 = by_name(self.docs["hami"]["nodes"])["hami-gpu-1"]
		n2 = by_name(self.docs["hami"]["nodes"])["hami-gpu-2"]
		self.assertEqual([g["cordoned"] for g in n1["gpus"]], [False, True])
		self.assertTrue(any(g["unhealthy"] for g in n2["gpus"]))
		self.assertTrue(n1["perGpu"])
		self.assertFalse(by_name(self.docs["cce-multi"]["nodes"])["192.168.0.91"]["perGpu"])
		w = warnings_of(self.docs["hami"])
		self.assertIn(("AllocatedOnCordoned", "node/hami-gpu-1"), w)
		self.assertIn(("AllocatedOnUnhealthy", "node/hami-gpu-2"), w)


if __name__ == "__main__":
	unittest.main()
