"""`kubectl inspect cgpu fit` against the fake API server, on the fit scenario (mkfixtures.py s_fit): fragmented
GPUs, cordoned, NotReady and tainted nodes, node pools with selectors, and a node of every other scheme.

Each case checks the places offered (best first), the reasons given for the other nodes, and the exit status
(0 fits, 3 does not, 1 failure or usage error).
"""

import json
import os
import tempfile
import unittest

from harness import ClusterCase, FakeAPI, plugin_path, run_plugin

ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}
PENDING = "ml/bigmodel-7c9d8f6b5-x7k2p"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
spec:
  replicas: 1
  template:
    metadata:
      labels: {app: trainer}
    spec:
      tolerations:
      - key: dedicated
        operator: Equal
        value: training
        effect: NoSchedule
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: alibabacloud.com/nodepool-id
                operator: In
                values: [np-train, np-share]
      containers:
      - name: main
        image: trainer:1
        resources:
          limits:
            aliyun.com/gpu-mem: 12
"""


@unittest.skipUnless(plugin_path(), "CGPU_PLUGIN not built")
class Fit(ClusterCase):
	scenario = "fit"
	server = FakeAPI

	def fit(self, *args, input=None):
		return run_plugin(["--kubeconfig", self.api.kubeconfig, "fit"] + list(args), env=ENV, input=input)

	def fit_json(self, *args, code=None, input=None):
		r = self.fit(*args, "-o", "json", input=input)
		if code is not None:
			self.assertEqual(r.returncode, code, r.stderr)
		return json.loads(r.stdout)

	def test_fragmented_pool_does_not_fit(self):
		r = self.fit("--memory", "12", "--scheme", "cgpu", "--pool", "np-share")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("Fits on 0 of 4 nodes.", r.stdout)
		self.assertIn("2 nodes: no GPU with 12 GiB free (largest free on one GPU: 11 GiB)", r.stdout)
		self.assertIn("1 node: cordoned (SchedulingDisabled)", r.stdout)
		self.assertIn("1 node: NotReady", r.stdout)
		self.assertEqual(r.stderr, "")

	def test_fits_where_and_best_first(self):
		d = self.fit_json("--memory", "4", "--scheme", "cgpu", code=0)
		self.assertTrue(d["fits"])
		self.assertEqual([(p["node"], p["gpus"], p["freeAfter"]) for p in d["places"]],
			[("share-b", [0], 0), ("share-a", [0], 2), ("cgpu-a", [1], 11)])
		reasons = {g["reason"]: g for g in d["reasons"]}
		self.assertEqual(reasons["Taint"]["detail"], "dedicated=training:NoSchedule")
		self.assertEqual(reasons["OtherScheme"]["nodes"], 4)

	def test_existing_pending_pod_explained(self):
		r = self.fit(PENDING)
		self.assertEqual(r.returncode, 3, r.stderr)
		out = r.stdout
		self.assertTrue(out.startswith("pod ml/bigmodel-7c9d8f6b5-x7k2p (cgpu): 12 of GPU memory"), out)
		self.assertIn("1 node: outside nodeSelector alibabacloud.com/nodepool-id=np-share", out)
		self.assertIn("2 nodes: no GPU with 12 GiB free (largest free on one GPU: 11 GiB)", out)
		self.assertIn("Latest FailedScheduling events:", out)
		# newest first
		self.assertLess(out.index("had untolerated taint"), out.index("10 Insufficient"))
		d = self.fit_json(PENDING, code=3)
		self.assertEqual(len(d["failedSchedulingEvents"]), 2)
		# the same pod by name and -n
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-n", "ml", "fit", "bigmodel-7c9d8f6b5-x7k2p"], env=ENV)
		self.assertEqual(r.returncode, 3, r.stderr)

	def test_manifest_from_stdin_and_file(self):
		d = self.fit_json("-f", "-", input=DEPLOYMENT, code=0)
		self.assertEqual([p["node"] for p in d["places"]], ["share-tainted"])
		self.assertEqual(d["request"]["scheme"], "cgpu")
		self.assertEqual(d["request"]["memoryPerGPU"], 12)
		reasons = {g["reason"]: g["nodes"] for g in d["reasons"]}
		self.assertEqual(reasons["NodeAffinity"], 1)
		with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
			json.dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [
				{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1, "nvidia.com/gpumem": 8000}}}]}}, f)
		try:
			d = self.fit_json("-f", f.name, code=0)
		finally:
			os.unlink(f.name)
		self.assertEqual([(p["node"], p["gpus"]) for p in d["places"]], [("hami-1", [0])])

	def test_every_scheme(self):
		cases = [
			(["--memory", "8000Mi", "--scheme", "hami"], 0, "hami-1"),
			(["--memory", "12000Mi", "--scheme", "hami"], 3, None),
			(["--memory", "4000Mi", "--scheme", "volcano-vgpu"], 0, "volc-1"),
			(["--memory", "4000Mi", "--gpus", "2", "--scheme", "volcano-vgpu"], 3, None),
			# CCE xGPU does not publish its per-GPU rule: it may fit, never counted as fits
			(["--memory", "10000Mi", "--scheme", "cce"], 3, "cce-1"),
			(["--memory", "20000Mi", "--scheme", "cce"], 3, None),
			(["--gpus", "1"], 0, "whole-1"),
			(["--gpus", "2"], 3, None),
		]
		for args, code, node in cases:
			with self.subTest(args=args):
				d = self.fit_json(*args, code=code)
				self.assertEqual([p["node"] for p in d["places"]], [node] if node else [])
		r = self.fit("--memory", "10000Mi", "--scheme", "cce")
		self.assertIn("Note: CCE xGPU does not publish", r.stdout)
		self.assertIn("Fits on 0 of 10 nodes.\nMay fit on 1 node (marked ?), not counted", r.stdout)
		self.assertIn("cce-1 ?", r.stdout)
		d = self.fit_json("--memory", "10000Mi", "--scheme", "cce", code=3)
		self.assertEqual((d["fits"], d["places"][0]["unsure"]), (False, True))

	def test_yaml_output(self):
		r = self.fit("--memory", "4", "--scheme", "cgpu", "-o", "yaml")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("kind: FitAnswer", r.stdout)
		self.assertIn("- node: share-b", r.stdout)

	def test_usage_and_failures(self):
		for args, code, msg in [
			([], 1, "give exactly one of"),
			(["--memory", "4", "-f", "-"], 1, "give exactly one of"),
			(["--memory", "lots"], 1, 'invalid argument "lots" for "--memory" flag'),
			(["--gpus", "0"], 1, 'invalid argument "0" for "--gpus" flag'),
			(["--core", "101", "--memory", "1Gi"], 1, '"--core" flag'),
			(["--memory", "4", "-o", "wide"], 1, "unable to match a printer"),
			(["--memory", "4"], 1, "has no unit and the nodes count GPU memory in GiB and in MiB"),
			(["ml/nope"], 1, 'pods "nope" not found'),
			(["-f", "/nonexistent.yaml"], 1, "does not exist"),
		]:
			with self.subTest(args=args):
				r = self.fit(*args)
				self.assertEqual(r.returncode, code, r.stderr)
				self.assertIn(msg, r.stderr)
				self.assertTrue(r.stderr.startswith("error: ") or r.stderr.startswith("Error from server"), r.stderr)
		r = self.fit("-f", "-", input="kind: Service\nspec: {}\n")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stderr.splitlines()[0], "skipped 1 Service object: no pod template")
		self.assertIn("no object in the manifests carries a pod template", r.stderr)
		r = self.fit("-f", "-", input="kind: Pod\nspec: [\n")
		self.assertEqual(r.returncode, 1)
		self.assertIn("stdin: error parsing manifest", r.stderr)
		r = self.fit("-f", "-", input="kind: Pod\nspec:\n  containers: [{name: c}]\n")
		self.assertEqual(r.returncode, 1)
		self.assertIn("asks for no GPU resource", r.stderr)

	def test_memory_read_as_kubectl_reads_a_quantity(self):
		for v, msg in [
			("7.9", "write 8, or a size such as 7.9Gi"), ("1.5", "write 2, or a size such as 1.5Gi"),
			("2.5", "write 3"), ("0", "must be above 0"), ("-1", "must be above 0"), ("0Gi", "must be above 0"),
		]:
			with self.subTest(memory=v):
				r = self.fit("--memory", v, "--scheme", "cgpu")
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertTrue(r.stderr.startswith('error: invalid argument "%s" for "--memory" flag: ' % v), r.stderr)
				self.assertIn(msg, r.stderr)
				self.assertEqual(len(r.stderr.splitlines()), 2, r.stderr)
		d = self.fit_json("--memory", "1e3", "--scheme", "cgpu", code=3)
		self.assertEqual(d["places"], [])
		d = self.fit_json("--memory", "7.9Gi", "--scheme", "cgpu", code=0)
		self.assertTrue(d["places"])

	def test_init_containers_count(self):
		pod = ("kind: Pod\nmetadata: {name: warm, namespace: ml}\nspec:\n  initContainers:\n"
			"  - name: load\n    resources: {limits: {aliyun.com/gpu-mem: 20}}\n  containers:\n"
			"  - name: main\n    resources: {limits: {aliyun.com/gpu-mem: 2}}\n")
		r = self.fit("-f", "-", input=pod)
		self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
		self.assertIn("no GPU with 20 GiB free", r.stdout)

	@staticmethod
	def workload(kind, name, mem, count_field=None, count=None, extra=""):
		spec = "  %s: %s\n" % (count_field, count) if count_field else ""
		return ("apiVersion: apps/v1\nkind: %s\nmetadata: {name: %s, namespace: ml}\nspec:\n%s%s  template:\n"
			"    spec:\n      containers:\n      - name: main\n"
			"        resources: {limits: {aliyun.com/gpu-mem: %d}}\n" % (kind, name, spec, extra, mem))

	def test_workload_pods_placed_one_after_another(self):
		# 8 GiB fits on three GPUs of the untainted nodes (9, 15 and 11 free): 3 of 10
		doc = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {}\n---\n" + \
			self.workload("Deployment", "web", 8, "replicas", 10)
		r = self.fit("-f", "-", input=doc)
		self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
		self.assertEqual(r.stderr, "skipped 1 Service object: no pod template\n")
		self.assertIn("deployment ml/web (cgpu): ", r.stdout)
		self.assertIn(", 10 pods", r.stdout)
		self.assertIn("Placed one after another: 3 of 10 pods fit (", r.stdout)
		self.assertIn("Pod 4 of 10 fits nowhere once those are placed:", r.stdout)
		d = self.fit_json("-f", "-", input=doc, code=3)
		self.assertEqual((d["pods"], d["podsFit"], d["fits"]), (10, 3, False))
		self.assertEqual(sorted(p["node"] for p in d["placedInOrder"]), ["cgpu-a", "cgpu-a", "share-b"])
		# a Job runs parallelism pods, or completions when fewer
		job = self.workload("Job", "j", 8, "parallelism", 4, "  completions: 2\n")
		d = self.fit_json("-f", "-", input=job, code=0)
		self.assertEqual((d["pods"], d["podsFit"], d["fits"]), (2, 2, True))
		d = self.fit_json("-f", "-", input=self.workload("Job", "j", 8, "parallelism", 5), code=3)
		self.assertEqual((d["pods"], d["podsFit"]), (5, 3))
		cron = ("kind: CronJob\nmetadata: {name: c}\nspec:\n  jobTemplate:\n    spec:\n      parallelism: 4\n"
			"      template:\n        spec:\n          containers:\n          - name: m\n"
			"            resources: {limits: {aliyun.com/gpu-mem: 8}}\n")
		d = self.fit_json("-f", "-", input=cron, code=3)
		self.assertEqual((d["pods"], d["podsFit"]), (4, 3))
		# a DaemonSet: one pod on each node it may run on (three here; share-a has 6 and 7 free)
		d = self.fit_json("-f", "-", input=self.workload("DaemonSet", "ds", 8), code=3)
		self.assertEqual((d["pods"], d["podsFit"]), (3, 2))
		r = self.fit("-f", "-", input=self.workload("StatefulSet", "none", 8, "replicas", 0))
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertIn("No pod to place: the workload asks for 0 pods.", r.stdout)

	def test_manifests_as_kubectl_apply_reads_them(self):
		pod = "kind: Pod\nmetadata: {name: %s, namespace: ml}\nspec:\n  containers:\n  - name: m\n" \
			"    resources: {limits: {aliyun.com/gpu-mem: 8}}\n"
		# a List of two pods: the second is placed after the first took its GPU
		lst = {"apiVersion": "v1", "kind": "List", "items": [
			{"kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [
				{"name": "m", "resources": {"limits": {"aliyun.com/gpu-mem": "14"}}}]}},
			{"kind": "Pod", "metadata": {"name": "b"}, "spec": {"containers": [
				{"name": "m", "resources": {"limits": {"aliyun.com/gpu-mem": "14"}}}]}},
			{"kind": "ConfigMap", "metadata": {"name": "x"}}]}
		d = self.fit_json("-f", "-", input=json.dumps(lst), code=3)
		self.assertEqual(d["kind"], "List")
		self.assertEqual([a["fits"] for a in d["items"]], [True, False])
		with tempfile.TemporaryDirectory() as tmp:
			os.makedirs(os.path.join(tmp, "sub"))
			for name, text in [("a.yaml", pod % "a"), ("b.json", json.dumps(lst["items"][0])), ("c.txt", "junk"),
					   ("sub/d.yml", pod % "d")]:
				with open(os.path.join(tmp, name), "w") as f:
					f.write(text)
			d = self.fit_json("-f", tmp, code=0)
			self.assertEqual([a["request"]["subject"].split(" (")[0] for a in d["items"]],
				["manifest ml/a", "manifest a"])
			d = self.fit_json("-f", tmp, "-R", code=0)
			self.assertEqual(len(d["items"]), 3)
			a, sub = os.path.join(tmp, "a.yaml"), os.path.join(tmp, "sub", "d.yml")
			for args in (["-f", a, "-f", sub], ["-f", a + "," + sub]):
				d = self.fit_json(*args, code=0)
				self.assertEqual([x["request"]["subject"].split(" (")[0] for x in d["items"]],
					["manifest ml/a", "manifest ml/d"])
			r = self.fit("-f", os.path.join(tmp, "sub"), "-f", os.path.join(tmp, "c.txt"))
			self.assertEqual(r.returncode, 1)
			self.assertIn("c.txt: error parsing manifest", r.stderr)

	def test_nodes_by_name_and_filters_that_match_nothing(self):
		d = self.fit_json("--memory", "4", "--scheme", "cgpu", "--node", "share-a", "--node", "share-b,cgpu-a", code=0)
		self.assertEqual(d["nodesConsidered"], 3)
		self.assertEqual(sorted(p["node"] for p in d["places"]), ["cgpu-a", "share-a", "share-b"])
		r = self.fit("--memory", "12", "--scheme", "cgpu", "--node=share-a")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("Fits on 0 of 1 node.", r.stdout)
		r = self.fit("--memory", "4", "--node", "nope")
		self.assertEqual(r.returncode, 1)
		self.assertIn('nodes "nope" not found', r.stderr)
		r = self.fit("--memory", "4", "--node", "share-a", "-l", "a=b")
		self.assertEqual(r.returncode, 1)
		for args, line in [(["-l", "no=such"], "no node matches -l no=such: does not fit anywhere selected"),
				   (["--pool", "np-none"], "no node matches --pool np-none: does not fit anywhere selected")]:
			with self.subTest(args=args):
				r = self.fit("--memory", "4", "--scheme", "cgpu", *args)
				self.assertEqual(r.returncode, 3, r.stderr)
				self.assertEqual(r.stderr, line + "\n")

	def test_a_pod_waiting_on_its_node_and_fit_agree(self):
		def bound(name, mem):
			return {"apiVersion": "v1", "kind": "Pod",
				"metadata": {"name": name, "namespace": "ml", "uid": "uid-" + name},
				"spec": {"nodeName": "share-a", "containers": [
					{"name": "m", "resources": {"limits": {"aliyun.com/gpu-mem": str(mem)}}}]},
				"status": {"phase": "Pending"}}
		self.api.put_object(bound("wait-big", 12))
		self.api.put_object(bound("wait-small", 5))
		try:
			reason = "on node share-a, where no GPU can hold it now: no GPU with 12 GiB free (largest free on one GPU: 7 GiB)"
			r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-d", "-A"], env=ENV)
			self.assertIn("ml/wait-big: " + reason, r.stdout)
			self.assertIn("ml/wait-small: on node share-a, waiting for its GPU to be chosen", r.stdout)
			r = self.fit("ml/wait-big")
			self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
			self.assertIn("The pod is bound to node share-a and has no GPU yet: %s." % reason, r.stdout)
			self.assertIn("Fits on 0 of 1 node.", r.stdout)
			d = self.fit_json("ml/wait-big", code=3)
			self.assertEqual(d["pendingReason"], reason)
			r = self.fit("ml/wait-small")
			self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
			self.assertIn("waiting for its GPU to be chosen", r.stdout)
			self.assertIn("Fits on 1 of 1 node.", r.stdout)
		finally:
			self.api.delete_object("pods", "ml", "wait-big")
			self.api.delete_object("pods", "ml", "wait-small")

	def test_pending_explained_in_details_and_json(self):
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-d"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("Why pending:\n  ml/bigmodel-7c9d8f6b5-x7k2p: 2 nodes: no GPU with 12 GiB free (largest free on one "
			"GPU: 11 GiB);", r.stdout)
		self.assertIn("1 node: outside nodeSelector alibabacloud.com/nodepool-id=np-share", r.stdout)
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-o", "json"], env=ENV)
		d = json.loads(r.stdout)
		self.assertIn("1 node: NotReady", d["unscheduledPods"][0]["pendingReason"])
		nodes = {n["name"]: n for n in d["nodes"]}
		self.assertEqual(nodes["share-cordoned"]["status"], "Ready,SchedulingDisabled")
		self.assertFalse(nodes["share-notready"]["schedulable"])
		self.assertEqual(nodes["hami-1"]["status"], "Ready,1 GPU cordoned")
		self.assertEqual(nodes["share-a"]["largestFreeOnOneGPU"], 7)
		self.assertEqual(nodes["cce-1"]["largestFreeOnOneGPU"], 16384)  # never more than one card
		frag = {f["unit"]: f for f in d["fragmentation"]}
		# strandedFree: the nodes' strandedFree summed per unit
		self.assertEqual(frag["GiB"], {"unit": "GiB", "largestFreeOnOneGPU": 15, "gpusWithLargestFree": 3,
			"freeOnUnschedulableNodes": 60, "unschedulableNodes": 2, "strandedFree": 6 + 5 + 3 + 30 + 30})
		self.assertEqual(frag["MiB"]["strandedFree"], sum(n["strandedFree"] or 0 for n in d["nodes"] if n["unit"] == "MiB"))
		self.assertGreater(frag["MiB"]["strandedFree"], 0)
		# the default summary keeps its published lines
		r = run_plugin(["--kubeconfig", self.api.kubeconfig], env=ENV)
		self.assertNotIn("Largest request", r.stdout)
		self.assertNotIn("STATUS", r.stdout)
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-o", "wide"], env=ENV)
		self.assertIn("Largest request that fits on one GPU now: 15 GiB (3 GPUs)\n"
			"Free on nodes that cannot take pods: 60 GiB (2 nodes)\n", r.stdout)
		self.assertRegex(r.stdout, r"share-notready .* NotReady +15 +30\n")

	def test_required_affinity_in_pending_reasons(self):
		# ml/zonal-0 asks 4 GiB, which three GPUs have free, but no node satisfies its required node affinity:
		# the list decoders keep the terms, so -d and JSON say what fit says of the pod itself.
		want = ("3 nodes: outside the required node affinity; 1 node: NotReady; 1 node: cordoned "
			"(SchedulingDisabled); 1 node: taint dedicated=training:NoSchedule not tolerated")
		r = self.fit("ml/zonal-0")
		self.assertEqual(r.returncode, 3, r.stderr)
		self.assertIn("  3 nodes: outside the required node affinity\n", r.stdout)
		# protobuf, then JSON (-v 9 asks the server for JSON only)
		for extra, protobuf in (([], True), (["-v", "9"], False)):
			self.api.clear_requests()
			r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-d"] + extra, env=ENV)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertIn("\n  ml/zonal-0: %s\n" % want, r.stdout)
			accepts = [q["headers"].get("accept", "") for q in self.api.requests() if q["path"] == "/api/v1/pods"]
			self.assertTrue(accepts and all(("protobuf" in a) == protobuf for a in accepts), accepts)
			r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-o", "json"] + extra, env=ENV)
			pods = {p["name"]: p for p in json.loads(r.stdout)["unscheduledPods"]}
			self.assertEqual(pods["zonal-0"]["pendingReason"], want)

	def test_by_owner_pool_and_namespace(self):
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "--by", "owner", "--scheme", "cgpu"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		# the ReplicaSet train-5d8c7b9f4 is folded into its Deployment by the pods' pod-template-hash
		self.assertRegex(r.stdout, r"\nDeployment/train +GiB +- +2 +17 +- +- +0\n")
		self.assertRegex(r.stdout, r"\nStatefulSet/infer +GiB +- +2 +15 +- +- +0\n")
		self.assertRegex(r.stdout, r"\n<none> +GiB +- +1 +6 +- +- +0\n")
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "--by", "pool", "-o", "json"], env=ENV)
		d = json.loads(r.stdout)
		self.assertEqual(d["groups"]["by"], "pool")
		rows = {(g["name"], g["unit"]): g for g in d["groups"]["rows"]}
		self.assertEqual(rows[("np-share", "GiB")], {"name": "np-share", "unit": "GiB", "nodes": 4, "pods": 4,
			"allocated": 32, "total": 120, "coreAllocated": 0})
		d = json.loads(run_plugin(["--kubeconfig", self.api.kubeconfig, "--by", "namespace", "-o", "json"],
			env=ENV).stdout)
		self.assertEqual(sum(g["pods"] for g in d["groups"]["rows"] if g["name"] == "ml"), 8)
		for args in (["--by", "team"], ["--by", "pool", "-d"]):
			r = run_plugin(["--kubeconfig", self.api.kubeconfig] + args, env=ENV)
			self.assertEqual(r.returncode, 1, r.stderr)

	def test_hostile_text_is_escaped(self):
		doc = DEPLOYMENT.replace("name: trainer", 'name: "tr\\e[31mainer"', 1)
		r = self.fit("-f", "-", input=doc)
		self.assertNotIn("\x1b", r.stdout + r.stderr)


if __name__ == "__main__":
	unittest.main()
