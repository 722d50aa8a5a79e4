"""`kubectl inspect cgpu defrag` against the API server (fake, and real for the tier), on a cluster made for it: four cGPU nodes of two
15 GiB GPUs where a 12 GiB request fits nowhere, with two one-move plans (5 GiB and 6 GiB), a bare pod, a
DaemonSet pod and a pod of higher priority that would each make a lighter plan but must stay, and budgets.

Each case checks the plan (the pod moved, from where, to where), what the planner refuses, the DefragPlan
document, the exit status, and --execute through the Eviction API.

On a real API server the budgets' disruptionsAllowed is the disruption controller's, counted from pods that
are Running and Ready, and the ReplicaSets the pods name exist (no ReplicaSet controller runs: an evicted
pod is not replaced, and nothing schedules).
"""

import json
import os
import tempfile
import unittest

from harness import (ClusterCase, FakeAPI, Proxied, ProxiedCase, backend, fake_only, plugin_path, real_cluster,
	real_only, run_on_terminal, run_plugin, wait_for)
from test_inspect import schema_errors

ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}
HERE = os.path.dirname(os.path.abspath(__file__))


def node(name):
	cap = {"aliyun.com/gpu-mem": "30", "aliyun.com/gpu-count": "2"}
	return {"metadata": {"name": name, "uid": "uid-" + name, "labels": {"kubernetes.io/hostname": name}},
		"spec": {}, "status": {"capacity": cap, "allocatable": dict(cap),
			"conditions": [{"type": "Ready", "status": "True"}],
			"addresses": [{"type": "InternalIP", "address": "10.9.0.%d" % (ord(name[-1]) - 96)}]}}


def pod(name, node_name, gpu, gib, owner=None, priority=None, labels=None):
	p = {"metadata": {"name": name, "namespace": "ml", "uid": "uid-" + name, "labels": labels or {"app": name},
			"creationTimestamp": "2026-11-20T10:00:00Z",
			"annotations": {"ALIYUN_COM_GPU_MEM_IDX": str(gpu), "ALIYUN_COM_GPU_MEM_ASSIGNED": "true",
				"ALIYUN_COM_GPU_MEM_POD": str(gib), "ALIYUN_COM_GPU_MEM_DEV": "15"}},
		"spec": {"nodeName": node_name, "containers": [{"name": "main", "image": "x",
			"resources": {"limits": {"aliyun.com/gpu-mem": str(gib)}}}]},
		"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
	if owner:
		kind, oname = owner.split("/")
		p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": oname,
			"uid": "uid-" + oname, "controller": True}]
	if priority is not None:
		# a real server takes the number from the class only (made before the scenario is loaded)
		p["spec"].update(priority=priority, priorityClassName="defrag-%d" % priority)
	return p


def budget(name, app, allowed):
	"""A budget over one pod of a one-replica ReplicaSet: maxUnavailable is what it allows."""
	return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
		"metadata": {"name": name, "namespace": "ml", "uid": "uid-" + name},
		"spec": {"maxUnavailable": allowed, "selector": {"matchLabels": {"app": app}}},
		"status": {"disruptionsAllowed": allowed, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}


def scenario_pods():
	return [
		pod("web-a", "node-a", 0, 6, "ReplicaSet/web-5d4f"),
		pod("fill-a", "node-a", 1, 14, "ReplicaSet/fill-a-1"),
		pod("small-b", "node-b", 0, 5, "ReplicaSet/small-7c9", labels={"app": "small"}),
		pod("fill-b", "node-b", 1, 14, "ReplicaSet/fill-b-1"),
		pod("bare-c", "node-c", 0, 4),
		pod("agent-c", "node-c", 1, 4, "DaemonSet/agent"),
		pod("urgent-d", "node-d", 0, 4, "ReplicaSet/urgent-1", priority=1000),
		pod("fill-d", "node-d", 1, 14, "ReplicaSet/fill-d-1"),
	]


def daemonset():
	"""The owner of agent-c, on node-c only (a real server's DaemonSet controller adopts the pod)."""
	labels = {"app": "agent-c"}
	return {"metadata": {"name": "agent", "namespace": "ml", "uid": "uid-agent"},
		"spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels},
			"spec": {"nodeSelector": {"kubernetes.io/hostname": "node-c"},
				"containers": [{"name": "main", "image": "x"}]}}}}


def scenario(path):
	"""Free per GPU: node-a 9 and 1, node-b 10 and 1, node-c 11 and 11, node-d 11 and 1."""
	nodes = [node(n) for n in ("node-a", "node-b", "node-c", "node-d")]
	pods = scenario_pods()
	os.makedirs(path, exist_ok=True)
	with open(os.path.join(path, "nodes.json"), "w") as f:
		json.dump({"kind": "NodeList", "apiVersion": "v1", "items": nodes}, f)
	with open(os.path.join(path, "pods.json"), "w") as f:
		json.dump({"kind": "PodList", "apiVersion": "v1", "items": pods}, f)
	with open(os.path.join(path, "daemonsets.json"), "w") as f:
		json.dump({"kind": "DaemonSetList", "apiVersion": "apps/v1", "items": [daemonset()]}, f)


@unittest.skipUnless(plugin_path(), "CGPU_PLUGIN not built")
class Defrag(ClusterCase):

	@classmethod
	def setUpClass(cls):
		cls.dir = tempfile.mkdtemp(prefix="defrag-")
		cls.scenario = os.path.join(cls.dir, "defrag")
		scenario(cls.scenario)
		if backend() == "real":
			real_cluster().must("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {"apiVersion":
				"scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "defrag-1000"}, "value": 1000},
				ok=(201, 409))
		super().setUpClass()

	def setUp(self):
		super().setUp()
		if backend() == "real":
			self.give_owners()

	def give_owners(self, pods=None):
		"""The loader makes pods without owners: give each its ReplicaSet, as that controller would."""
		c = self.api.cluster
		for p in pods or scenario_pods():
			refs = [r for r in p["metadata"].get("ownerReferences", []) if r["kind"] == "ReplicaSet"]
			if not refs:
				continue
			name, labels = refs[0]["name"], p["metadata"]["labels"]
			rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "ml"},
				"spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels},
					"spec": {"containers": [{"name": "main", "image": "x"}]}}}}
			status, _, cur = c.call("GET", "/apis/apps/v1/namespaces/ml/replicasets/" + name)
			if status == 404:
				cur = c.create_many([rs])[0]
			c.must("PATCH", "/api/v1/namespaces/ml/pods/" + p["metadata"]["name"], {"metadata": {"ownerReferences": [
				{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name, "uid": cur["metadata"]["uid"],
					"controller": True}]}}, content_type="application/merge-patch+json")

	def put_budget(self, name, app, allowed):
		"""A budget, and on a real server the disruption controller's count of it."""
		self.api.put_object(budget(name, app, allowed))
		if backend() != "real":
			return

		def counted():
			_, _, b = self.api.call("GET", "/apis/policy/v1/namespaces/ml/poddisruptionbudgets/" + name)
			st = b.get("status", {})
			return (st.get("observedGeneration") == b["metadata"].get("generation")
				and st.get("currentHealthy") == 1 and st.get("disruptionsAllowed") == allowed)
		self.assertTrue(wait_for(counted, 15), "budget %s not counted" % name)

	def pod_now(self, name):
		"""The pod as the server holds it, or None."""
		status, _, body = self.api.call("GET", "/api/v1/namespaces/ml/pods/" + name)
		return None if status == 404 else body

	def defrag(self, *args):
		return run_plugin(["--kubeconfig", self.api.kubeconfig, "defrag"] + list(args), env=ENV)

	def plan(self, *args, code=0):
		r = self.defrag(*args, "-o", "json")
		self.assertEqual(r.returncode, code, r.stderr)
		d = json.loads(r.stdout)
		with open(os.path.join(HERE, "defrag.schema.json")) as f:
			self.assertEqual(schema_errors(json.load(f), d), [])
		return d

	def test_the_lighter_of_two_one_move_plans(self):
		r = self.defrag("--memory", "12", "--scheme", "cgpu")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("Move 1 pod (5120 MiB of GPU memory); then the request fits on node-b/GPU0.", r.stdout)
		self.assertRegex(r.stdout, r"ml/small-b\s+node-b/GPU0\s+node-a/GPU0\s+5 GiB")
		d = self.plan("--memory", "12Gi", "--scheme", "cgpu")
		self.assertEqual(d["kind"], "DefragPlan")
		self.assertEqual((d["needed"], d["found"], d["memoryMovedMiB"]), (True, True, 5120))
		self.assertEqual([(m["name"], m["from"]["node"], m["to"]["node"]) for m in d["moves"]],
			[("small-b", "node-b", "node-a")])
		# the bare pod (4), the DaemonSet's (4) and the urgent one (4) would be lighter, but stay
		self.assertEqual(d["podsThatMayNotMove"]["NoController"], 1)
		self.assertEqual(d["podsThatMayNotMove"]["DaemonSet"], 1)
		self.assertEqual(d["podsThatMayNotMove"]["HigherPriority"], 1)

	def test_stranded_memory_in_wide_and_json(self):
		# requests of 4 and of 14 GiB, three each: 4 is the size, the smaller on a tie;
		# free per GPU a 9+1, b 10+1, c 11+11, d 11+1 leaves 1+1, 2+1, 3+3, 3+1 beyond whole requests of 4
		want = {"node-a": 2, "node-b": 3, "node-c": 6, "node-d": 4}
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-o", "wide"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		lines = r.stdout.splitlines()
		self.assertTrue(lines[0].endswith("MAX FREE/GPU(GiB)  STRANDED(GiB)"), lines[0])
		for line in lines[1:5]:
			self.assertEqual(int(line.split()[-1]), want[line.split()[0]], line)
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-o", "json", "-n", "kube-system"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		d = json.loads(r.stdout)
		with open(os.path.join(HERE, "inspect.schema.json")) as f:
			self.assertEqual(schema_errors(json.load(f), d), [])
		# the pods of another namespace are left out of the document, not out of the figure
		self.assertEqual({n["name"]: n["strandedFree"] for n in d["nodes"]}, want)

	def report(self, *args):
		"""The fragmentation report as a document, checked against its schema, and its one row."""
		r = self.defrag(*args, "-o", "json")
		self.assertEqual(r.returncode, 0, r.stderr)
		d = json.loads(r.stdout)
		with open(os.path.join(HERE, "frag.schema.json")) as f:
			self.assertEqual(schema_errors(json.load(f), d), [])
		self.assertEqual((d["kind"], len(d["pools"])), ("FragmentationReport", 1))
		return d["pools"][0]

	def test_fragmentation_report_without_a_request(self):
		# GPUs holding pods: a/0 web-a 6 and b/0 small-b 5 each go elsewhere; the 14 GiB pods fit nowhere
		# else; the bare pod, the DaemonSet's and the urgent one stay
		r = self.defrag("--scheme", "cgpu")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertRegex(r.stdout, r"(?m)^POOL\s+SCHEME\s+NODES\s+GPUS\s+FREE\s+COMMON REQUEST\s+STRANDED\s+FREEABLE GPUS$")
		self.assertRegex(r.stdout, r"(?m)^<none>\s+cgpu\s+4\s+8\s+55 GiB\s+4 GiB\s+15 GiB\s+2$")
		self.assertRegex(r.stdout, r"(?m)^<none> \(cgpu\)\s+node-b/GPU0\s+5 GiB\s+ml/small-b\s+node-a/GPU0\s+5 GiB$")
		self.assertRegex(r.stdout, r"(?m)^<none> \(cgpu\)\s+node-a/GPU0\s+6 GiB\s+ml/web-a\s+node-\w/GPU\d\s+6 GiB$")
		self.assertIn("<none> (cgpu): 8 GPUs holding pods, 2 freeable; kept: 3 by a pod that may not move, "
			"3 by a pod that fits on no other node\n", r.stdout)
		g = self.report("--scheme", "cgpu")
		self.assertEqual((g["pool"], g["scheme"], g["unit"], g["nodes"], g["gpus"]), (None, "cgpu", "GiB", 4, 8))
		self.assertEqual((g["free"], g["commonRequest"], g["strandedFree"]), (55, 4, 15))
		self.assertEqual((g["heldGPUs"], g["freeableGPUs"], g["uncheckedGPUs"]), (8, 2, 0))
		self.assertEqual(g["kept"], {"PodThatMayNotMove": 3, "NoDisruptionAllowed": 0, "MoreThanMaxMoves": 0,
			"NowhereToGo": 3})
		self.assertEqual([(f["node"], f["gpu"], f["held"], [m["name"] for m in f["moves"]]) for f in g["freed"]],
			[("node-b", 0, 5, ["small-b"]), ("node-a", 0, 6, ["web-a"])])
		self.assertEqual(g["freed"][0]["moves"][0]["to"], {"node": "node-a", "gpus": [0]})

	@fake_only("the rules are the same on both servers; one check of the report runs on the real one")
	def test_fragmentation_report_rules_and_bounds(self):
		# the urgent pod may move for a request of higher priority: three freed, the bound reached
		r = self.defrag("--priority", "2000")
		self.assertRegex(r.stdout, r"(?m)^<none>\s+cgpu\s+4\s+8\s+55 GiB\s+4 GiB\s+15 GiB\s+3\+$")
		self.assertIn("; 3 more not tried (the search stops at 3 freed or 64 tried per row, 512 in all)\n", r.stdout)
		g = self.report("--priority", "2000")
		self.assertEqual((g["freeableGPUs"], g["uncheckedGPUs"], g["freed"][0]["node"]), (3, 3, "node-d"))
		# a budget that allows no disruption keeps small-b's GPU
		self.put_budget("small-pdb", "small", 0)
		g = self.report()
		self.assertEqual([f["node"] for f in g["freed"]], ["node-a"])
		self.assertEqual(g["kept"]["NoDisruptionAllowed"], 1)
		# the node selection applies: node-a alone has nowhere to move its pods
		g = self.report("-l", "kubernetes.io/hostname=node-a")
		self.assertEqual((g["nodes"], g["heldGPUs"], g["freeableGPUs"], g["kept"]["NowhereToGo"]), (1, 2, 0, 2))
		g = self.report("--max-moves", "1", "--node", "node-c")
		self.assertEqual((g["nodes"], g["kept"]["PodThatMayNotMove"]), (1, 2))
		r = self.defrag("--scheme", "hami")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("No GPU nodes of a sharing scheme among the nodes selected.", r.stdout)

	def test_a_budget_that_forbids_the_move(self):
		self.put_budget("small-pdb", "small", 0)
		d = self.plan("--memory", "12", "--scheme", "cgpu")
		self.assertEqual([m["name"] for m in d["moves"]], ["web-a"])
		self.put_budget("small-pdb", "small", 1)
		d = self.plan("--memory", "12", "--scheme", "cgpu")
		self.assertEqual([m["name"] for m in d["moves"]], ["small-b"])

	def test_priority_and_limits(self):
		d = self.plan("--memory", "12", "--scheme", "cgpu", "--priority", "2000")
		self.assertEqual([m["name"] for m in d["moves"]], ["urgent-d"])
		# no plan: 15 needs a whole GPU; the two pods alone on one that could go elsewhere have no budget left
		self.put_budget("small-pdb", "small", 0)
		self.put_budget("web-pdb", "web-a", 0)
		d = self.plan("--memory", "15", "--scheme", "cgpu", code=3)
		self.assertEqual((d["needed"], d["found"]), (True, False))
		r = self.defrag("--memory", "15", "--scheme", "cgpu")
		self.assertEqual(r.returncode, 3)
		self.assertIn("No plan within 3 moves", r.stdout)
		self.assertIn("1 pod without a controller", r.stdout)
		self.assertIn("2 pods whose disruption budget allows no disruption now", r.stdout)
		self.assertEqual(d["podsThatMayNotMove"]["NoDisruptionAllowed"], 2)
		d = self.plan("--memory", "8", "--scheme", "cgpu")
		self.assertEqual((d["needed"], d["moves"]), (False, []))
		r = self.defrag("--memory", "8", "--scheme", "cgpu")
		self.assertIn("The request fits now: nothing to move.", r.stdout)
		for args, msg in [(["--memory", "4", "ml/x"], "give at most one of"), (["--memory", "7.9"], "write 8"),
				  (["--execute"], "--execute needs a request"),
				  (["--memory", "4", "--max-moves", "9"], '"--max-moves" flag'),
				  (["--memory", "4", "--dry-run=server"], "--dry-run goes with --execute")]:
			with self.subTest(args=args):
				r = self.defrag(*args)
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertIn(msg, r.stderr)

	def test_execute_through_evictions(self):
		self.api.clear_requests()
		r = self.defrag("--memory", "12", "--scheme", "cgpu", "--execute", "--dry-run=server")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("pod/small-b evicted (server dry run)", r.stdout)
		posts = [q for q in self.api.requests() if q["method"] == "POST"]
		self.assertEqual([q["path"] for q in posts], ["/api/v1/namespaces/ml/pods/small-b/eviction"])
		self.assertEqual(posts[0]["query"].get("dryRun"), "All")
		self.assertEqual(json.loads(posts[0]["body"])["kind"], "Eviction")
		# the pod planned, not one of its name made since
		uid = self.pod_now("small-b")["metadata"]["uid"]
		self.assertEqual(json.loads(posts[0]["body"])["deleteOptions"]["preconditions"], {"uid": uid})
		self.assertFalse(self.pod_now("small-b")["metadata"].get("deletionTimestamp"))
		r = self.defrag("--memory", "12", "--scheme", "cgpu", "--execute")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("pod/small-b evicted\n", r.stdout)
		posts = [q for q in self.api.requests() if q["method"] == "POST"]
		self.assertEqual(len(posts), 2)
		self.assertNotIn("dryRun", posts[1]["query"])
		gone = self.pod_now("small-b")
		self.assertTrue(gone is None or gone["metadata"].get("deletionTimestamp"))

	@fake_only("replacements are scheduled by the fake server")
	def test_wait_until_the_request_fits(self):
		r = self.defrag("--memory", "12", "--scheme", "cgpu", "--execute", "--yes", "--wait", "--timeout", "20s")
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertIn("pod/small-b evicted\n", r.stdout)
		self.assertIn("The evicted pods are gone, their replacements scheduled, and the request fits now.", r.stdout)

	@fake_only("replacements are scheduled by the fake server")
	def test_wait_takes_its_length_after_equals(self):
		r = self.defrag("--help")
		self.assertRegex(r.stdout, r"--wait\[=DURATION\]\s+with --execute: wait")
		# "--wait 20s": the word after it is not its value but a pod's name
		r = self.defrag("--memory", "12", "--execute", "--wait", "20s")
		self.assertEqual(r.returncode, 1, r.stderr)
		r = self.defrag("--memory", "12", "--scheme", "cgpu", "--execute", "--yes", "--wait=20s")
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertIn("the request fits now.", r.stdout)

	@fake_only("a replacement its controller made, held pending")
	def test_wait_for_a_replacement_that_is_not_scheduled(self):
		# the evicted pod's replacement, created by its controller, waits for a node the whole time
		pending = pod("small-b-x2", None, 0, 5, "ReplicaSet/small-7c9", labels={"app": "small"})
		del pending["spec"]["nodeName"], pending["metadata"]["annotations"]
		pending["status"]["phase"] = "Pending"
		pending.update(kind="Pod", apiVersion="v1")
		self.api.put_object(pending)
		r = self.defrag("--memory", "12", "--scheme", "cgpu", "--execute", "--yes", "--wait=2s")
		self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
		self.assertIn("pod/small-b evicted\n", r.stdout)
		self.assertIn("timed out after 2s waiting for the evicted pods' replacements to be scheduled", r.stderr)
		for args, msg in [(["--wait"], "--wait goes with --execute"),
				  (["--execute", "--timeout", "1s"], "--timeout goes with --wait"),
				  (["--execute", "--dry-run=server", "--wait"], "without --dry-run"),
				  (["--execute", "--wait=1s", "--timeout", "1s"], "give the wait's length once"),
				  (["--execute", "--wait=soon"], 'invalid argument "soon" for "--wait" flag'),
				  (["--execute", "--wait=false", "--timeout", "1s"], "--timeout goes with --wait")]:
			with self.subTest(args=args):
				r = self.defrag("--memory", "12", *args)
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertIn(msg, r.stderr)

	def test_an_eviction_whose_answer_is_lost_is_read_again(self):
		proxy = Proxied(self.api).start()
		try:
			proxy.arm("drop_after", methods="writes", path="/eviction$")
			r = run_plugin(["--kubeconfig", proxy.kubeconfig, "defrag", "--memory", "12", "--scheme", "cgpu",
				"--execute", "--yes"], env=ENV)
			self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
			self.assertIn("pod/small-b evicted\n", r.stdout)
			# sent once, never again: the pod was read to tell
			posts = [e for e in proxy.log() if e["method"] == "POST"]
			self.assertEqual([(e["fault"], e["answered"]) for e in posts], [("drop_after", False)])
			self.assertTrue(any(e["method"] == "GET" and e["path"].endswith("/pods/small-b") for e in proxy.log()))
			# what it reported is what the server holds: the pod gone or on its way out
			status, _, body = self.api.call("GET", "/api/v1/namespaces/ml/pods/small-b")
			self.assertTrue(status == 404 or body["metadata"].get("deletionTimestamp"), body)
		finally:
			proxy.stop()

	@real_only("the budget changed between the plan and its evictions, counted by the disruption controller")
	def test_a_budget_spent_since_the_plan_refuses_with_429(self):
		# 15 needs a whole GPU: node-a's is web-a's (its budget allows none), node-b's holds small-b and tiny-b
		tiny = pod("tiny-b", "node-b", 0, 1, "ReplicaSet/tiny-1", labels={"app": "tiny"})
		bare = json.loads(json.dumps(tiny))
		del bare["metadata"]["ownerReferences"]  # to an owner the garbage collector would find missing
		self.api.put_object(dict(bare, kind="Pod", apiVersion="v1"))
		self.give_owners([tiny])
		self.put_budget("web-pdb", "web-a", 0)
		self.put_budget("tiny-pdb", "tiny", 1)
		plan = self.plan("--memory", "15", "--scheme", "cgpu")
		self.assertEqual(sorted(m["name"] for m in plan["moves"]), ["small-b", "tiny-b"])
		self.api.clear_requests()
		code, out, _ = run_on_terminal(["--kubeconfig", self.api.kubeconfig, "defrag", "--memory", "15", "--scheme",
			"cgpu", "--execute"], b"y\n", before_answer=lambda: self.put_budget("tiny-pdb", "tiny", 0))
		self.assertEqual(code, 1, out)
		self.assertIn("pod ml/tiny-b: a disruption budget refused the eviction", out)
		self.assertIn("Cannot evict pod as it would violate the pod's disruption budget", out)
		refused = [q for q in self.api.requests() if q["path"] == "/api/v1/namespaces/ml/pods/tiny-b/eviction"]
		self.assertEqual([q["status"] for q in refused], [429])
		self.assertFalse(self.pod_now("tiny-b")["metadata"].get("deletionTimestamp"))

	@fake_only("eviction refusal set by control")
	def test_a_refused_eviction_stops_and_is_named(self):
		self.api.settings(eviction_blocked=["ml/small-b"])
		r = self.defrag("--memory", "12", "--scheme", "cgpu", "--execute", "--yes")
		self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
		self.assertIn("pod ml/small-b: a disruption budget refused the eviction (0 of 1 done)", r.stderr)
		self.assertIn("Cannot evict pod as it would violate the pod's disruption budget", r.stderr)


@unittest.skipUnless(plugin_path(), "CGPU_PLUGIN not built")
class DefragFaults(ProxiedCase):
	"""defrag --execute through the fault proxy, its one eviction (small-b) faulted: what it reports against
	what the server holds, and a rerun that converges."""

	server = FakeAPI
	ARGS = ("defrag", "--memory", "12", "--scheme", "cgpu", "--execute", "--yes", "--request-timeout=2s")
	EVICTION = "/api/v1/namespaces/ml/pods/small-b/eviction"

	@classmethod
	def setUpClass(cls):
		cls.dir = tempfile.mkdtemp(prefix="defrag-faults-")
		cls.scenario = os.path.join(cls.dir, "defrag")
		scenario(cls.scenario)
		super().setUpClass()

	def run_defrag(self):
		return run_plugin(list(self.ARGS) + ["--kubeconfig", self.proxy.kubeconfig], env=ENV)

	def small_b(self):
		""""there", or "evicted" (gone or being deleted)."""
		status, _, body = self.api.call("GET", "/api/v1/namespaces/ml/pods/small-b")
		return "evicted" if status == 404 or body["metadata"].get("deletionTimestamp") else "there"

	def evictions(self):
		return [e for e in self.proxy.log() if e["method"] == "POST" and e["path"] == self.EVICTION]

	def assert_converges(self):
		r = self.run_defrag()
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertEqual(self.small_b(), "evicted")

	def test_dropped_before_the_server_sees_it(self):
		self.proxy.arm("drop_before", methods="writes", path="/eviction$", nth=1)
		r = self.run_defrag()
		self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
		self.assertNotIn("evicted", r.stdout)
		self.assertIn("pod ml/small-b: eviction failed (0 of 1 done)", r.stderr)
		self.assertEqual(self.small_b(), "there")
		self.assertEqual([q for q in self.api.requests() if q["method"] == "POST"], [])
		self.assertEqual(len(self.evictions()), 1)  # not sent again
		self.assert_converges()

	def test_503_with_retry_after_is_retried(self):
		self.proxy.arm("status", methods="writes", path="/eviction$", nth=1, times=1, retry_after=1)
		r = self.run_defrag()
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertIn("pod/small-b evicted\n", r.stdout)
		self.assertEqual([e["status"] for e in self.evictions()], [503, 201])
		self.assertEqual(self.small_b(), "evicted")

	def test_held_until_the_request_timeout(self):
		self.proxy.arm("hang", methods="writes", path="/eviction$", nth=1)
		r = self.run_defrag()
		self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
		self.assertNotIn("evicted", r.stdout)
		self.assertIn("pod ml/small-b: eviction failed (0 of 1 done)", r.stderr)
		self.assertIn("read again, the pod is as before", r.stderr)
		self.assertEqual(self.small_b(), "there")
		self.assertEqual(len(self.evictions()), 1)
		self.assert_converges()


if __name__ == "__main__":
	unittest.main()
