"""defrag over several clusters (--context a,b,c, --all-contexts): where in the fleet a request can be made
room for, the best cluster first, each cluster's plan as that context alone gives it, the FleetDefragPlan,
and the faults and exit codes of a fleet, on four fake API servers built from defrag's cluster.

For 14 GiB on GPUs of 15 GiB: "roomy" has a free GPU (it fits without moves), "plain" is defrag's own
cluster (one move of 5 GiB), "heavy" has that pod at 7 GiB and a budget that keeps the 6 GiB one (one move
of 7 GiB), and "split" has the 5 GiB pod as two of 2 GiB with the 6 GiB one bare (two moves of 4 GiB in
all)."""

import json
import os
import shutil
import tempfile
import unittest

from harness import FakeAPI, plugin_path, run_plugin
from test_defrag import budget, daemonset, node, pod, scenario_pods
from test_inspect import schema_errors

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}
REFUSED = "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"
ASK = ("defrag", "--memory", "14", "--scheme", "cgpu")


def variant(name):
	"""defrag's cluster, changed as the module's text says."""
	pods = scenario_pods()
	if name == "roomy":
		pods = [p for p in pods if p["metadata"]["name"] != "small-b"]
	elif name == "heavy":
		pods = [pod("small-b", "node-b", 0, 7, "ReplicaSet/small-7c9", labels={"app": "small"}) if
			p["metadata"]["name"] == "small-b" else p for p in pods]
	elif name == "split":
		pods = [p for p in pods if p["metadata"]["name"] not in ("small-b", "web-a")]
		pods += [pod("web-a", "node-a", 0, 6), pod("small-b1", "node-b", 0, 2, "ReplicaSet/small-b1"),
			 pod("small-b2", "node-b", 0, 2, "ReplicaSet/small-b2")]
	return pods


def write_scenario(path, pods, budgets):
	os.makedirs(path)
	for kind, plural, items, version in (("NodeList", "nodes", [node("node-" + c) for c in "abcd"], "v1"),
					     ("PodList", "pods", pods, "v1"),
					     ("DaemonSetList", "daemonsets", [daemonset()], "apps/v1"),
					     ("PodDisruptionBudgetList", "poddisruptionbudgets", budgets, "policy/v1")):
		with open(os.path.join(path, plural + ".json"), "w") as f:
			json.dump({"kind": kind, "apiVersion": version, "items": items}, f)


def errors(r):
	return [l for l in r.stderr.splitlines() if l.startswith("error: ")]


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class FleetDefrag(unittest.TestCase):
	maxDiff = None
	NAMES = ("plain", "roomy", "heavy", "split")

	@classmethod
	def setUpClass(cls):
		cls.dir = tempfile.mkdtemp(prefix="cgpu-fleet-defrag-")
		cls.apis = {}
		try:
			for n in cls.NAMES:
				write_scenario(os.path.join(cls.dir, n), variant(n),
					       [budget("web-pdb", "web-a", 0)] if n == "heavy" else [])
				cls.apis[n] = FakeAPI(os.path.join(cls.dir, n)).start()
		except BaseException:
			cls.tearDownClass()
			raise
		one = cls.apis["plain"]
		clusters = [{"name": n, "cluster": {"server": a.url, "certificate-authority": a.ca}} for n, a in cls.apis.items()]
		clusters.append({"name": "gone", "cluster": {"server": "https://127.0.0.1:1", "certificate-authority": one.ca}})
		users = [{"name": n, "user": {"token": a.tokens["admin-token"]}} for n, a in cls.apis.items()]
		users.append({"name": "nobody", "user": {"token": one.tokens["nobody"]}})
		contexts = [{"name": n, "context": {"cluster": n, "user": n}} for n in cls.apis]
		contexts += [{"name": "gone", "context": {"cluster": "gone", "user": "plain"}},
			     {"name": "locked", "context": {"cluster": "plain", "user": "nobody"}}]
		cls.kubeconfig = os.path.join(cls.dir, "kubeconfig")
		with open(cls.kubeconfig, "w") as f:
			json.dump({"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users,
				   "contexts": contexts, "current-context": "plain"}, f)

	@classmethod
	def tearDownClass(cls):
		for a in cls.apis.values():
			a.stop()
		shutil.rmtree(cls.dir, ignore_errors=True)

	def plugin(self, *args):
		return run_plugin(["--kubeconfig", self.kubeconfig] + list(args), env=dict(ENV, HOME=self.dir))

	def alone(self, context, *args, code=0):
		r = self.plugin("--context", context, *args)
		self.assertEqual(r.returncode, code, r.stderr)
		return r.stdout

	def test_best_cluster_first_each_as_alone(self):
		r = self.plugin(*ASK, "--context", "split,heavy,plain,roomy")
		self.assertEqual(r.returncode, 0, r.stderr)
		# fits without moves, then the fewest moves, then the least memory moved
		order = ["roomy", "plain", "heavy", "split"]
		self.assertEqual(r.stdout, "\n".join("Cluster: %s\n%s" % (n, self.alone(n, *ASK)) for n in order))
		self.assertIn("The request fits now: nothing to move.", self.alone("roomy", *ASK))
		self.assertIn("Move 1 pod (5120 MiB of GPU memory)", self.alone("plain", *ASK))
		self.assertIn("Move 1 pod (7168 MiB of GPU memory)", self.alone("heavy", *ASK))
		self.assertIn("Move 2 pods (4096 MiB of GPU memory)", self.alone("split", *ASK))

	def fleet_json(self, *args, code=0):
		r = self.plugin(*ASK, *args, "-o", "json")
		self.assertEqual(r.returncode, code, r.stderr)
		doc = json.loads(r.stdout)
		with open(os.path.join(HERE, "fleet.schema.json")) as f:
			self.assertEqual(schema_errors(json.load(f), doc), [])
		with open(os.path.join(HERE, "defrag.schema.json")) as f:
			plan_schema = json.load(f)
		for c in doc["clusters"]:
			if c["report"] is not None:
				self.assertEqual(schema_errors(plan_schema, c["report"]), [], c["context"])
		return doc, r

	def test_fleet_defrag_plan_document(self):
		doc, r = self.fleet_json("--context", "gone,split,plain,locked", code=1)
		self.assertEqual(doc["kind"], "FleetDefragPlan")
		self.assertEqual([c["context"] for c in doc["clusters"]], ["plain", "split", "gone", "locked"])
		for c in doc["clusters"][:2]:
			self.assertEqual(c["report"], json.loads(self.alone(c["context"], *ASK, "-o", "json")))
			self.assertIsNone(c["error"])
		self.assertEqual([m["name"] for m in doc["clusters"][1]["report"]["moves"]], ["small-b1", "small-b2"])
		self.assertIsNone(doc["clusters"][2]["report"])
		self.assertEqual(doc["clusters"][2]["error"]["message"], REFUSED)
		self.assertEqual((doc["clusters"][3]["error"]["reason"], doc["clusters"][3]["error"]["code"]), ("Forbidden", 403))
		self.assertEqual(errors(r)[0], 'error: context "gone": ' + REFUSED)
		self.assertTrue(errors(r)[1].startswith('error: context "locked": Error from server (Forbidden): '), r.stderr)

	def test_exit_status_across_the_fleet(self):
		big = ("defrag", "--memory", "16", "--scheme", "cgpu")
		r = self.plugin(*big, "--context", "plain,split")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertEqual(r.stdout.count("No plan within 3 moves"), 2)
		self.assertEqual(self.plugin(*big, "--context", "plain,gone").returncode, 1)
		self.assertEqual(self.plugin(*big, "--context", "plain,gone", "--ignore-unreachable").returncode, 3)
		r = self.plugin(*ASK, "--context", "gone,heavy", "--ignore-unreachable")
		self.assertEqual(r.returncode, 0, r.stderr)
		# the first section shown has no blank line before it, a failed context first or not
		self.assertEqual(r.stdout, "Cluster: heavy\n" + self.alone("heavy", *ASK))
		self.assertEqual(errors(r), ['error: context "gone": ' + REFUSED])
		self.assertEqual(self.plugin(*ASK, "--context", "gone,locked", "--ignore-unreachable").returncode, 1)

	def test_all_contexts(self):
		doc, _ = self.fleet_json("--all-contexts", "--ignore-unreachable")
		self.assertEqual([c["context"] for c in doc["clusters"]], ["roomy", "plain", "heavy", "split", "gone", "locked"])

	def test_fragmentation_report_of_each_cluster(self):
		r = self.plugin("defrag", "--context", "split,gone,plain")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(errors(r), ['error: context "gone": ' + REFUSED])
		self.assertEqual(r.stdout, "Cluster: split\n" + self.alone("split", "defrag") + "\nCluster: plain\n" +
				 self.alone("plain", "defrag"))
		r = self.plugin("defrag", "--context", "split,plain", "-o", "json")
		self.assertEqual(r.returncode, 0, r.stderr)
		doc = json.loads(r.stdout)
		with open(os.path.join(HERE, "fleet.schema.json")) as f:
			self.assertEqual(schema_errors(json.load(f), doc), [])
		with open(os.path.join(HERE, "frag.schema.json")) as f:
			frag_schema = json.load(f)
		self.assertEqual(doc["kind"], "FleetFragmentationReport")
		for c in doc["clusters"]:
			self.assertEqual(schema_errors(frag_schema, c["report"]), [], c["context"])
			self.assertEqual(c["report"], json.loads(self.alone(c["context"], "defrag", "-o", "json")))

	def test_execute_and_a_pod_take_one_cluster(self):
		r = self.plugin(*ASK, "--execute", "--yes", "--context", "plain,heavy")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stdout, "")
		self.assertEqual(r.stderr.splitlines()[0], "error: --execute evicts in one cluster: a plan is made for each, so "
							   "give one --context to carry it out")
		r = self.plugin(*ASK, "--execute", "--dry-run=server", "--all-contexts")
		self.assertEqual(r.returncode, 1)
		r = self.plugin("defrag", "ml/fill-a", "--context", "plain,heavy")
		self.assertEqual(r.returncode, 1)
		self.assertIn("a pod is read from one cluster", r.stderr)
		# nothing was evicted
		self.assertIn("Move 1 pod (5120 MiB of GPU memory)", self.alone("plain", *ASK))


if __name__ == "__main__":
	unittest.main()
