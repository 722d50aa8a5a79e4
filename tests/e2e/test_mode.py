"""kubectl inspect cgpu mode: node-pool sharing labels in each edition, against the fake API server."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from harness import (ROOT, SCENARIOS, APIServer, ClusterCase, body_of, fake_only, plugin_path, query_of, reaped,
	run_on_terminal, run_plugin, wait_for)

try:
	import yaml
except ImportError:  # the RBAC manifests are then not checked
	yaml = None

PRO_CGPU = "cn-shanghai.192.168.7.157"  # ack.node.gpu.schedule=cgpu, pool np-cgpu
PRO_CGPU2 = "cn-shanghai.192.168.7.158"
PRO_SHARE = "cn-shanghai.192.168.7.159"  # ack.node.gpu.schedule=share, pool np-cgpu-no-isolation
PRO_SHARE2 = "cn-shanghai.192.168.7.160"
BASIC_ISO = "cn-shanghai.192.168.7.157"  # cgpu=true, cgpu.disable.isolation=false
BASIC_SHARE = "cn-shanghai.192.168.7.159"  # cgpu=true, cgpu.disable.isolation=true


def writes(reqs):
	return [r for r in reqs if r["method"] != "GET"]


def patches(reqs):
	return [r for r in reqs if r["method"] == "PATCH"]


@unittest.skipIf(plugin_path() is None, "the plugin is not built")
class ModeBase(ClusterCase):
	scenario = "pools-pro"

	def run_mode(self, *args, context=None, timeout=60):
		return self.run_command("mode", *args, context=context, timeout=timeout)

	def labels(self, node):
		status, _, body = self.api.call("GET", "/api/v1/nodes/" + node)
		self.assertEqual(status, 200)
		return body["metadata"].get("labels", {})

	def assert_ok(self, r):
		self.assertEqual(r.returncode, 0, "stdout:\n%s\nstderr:\n%s" % (r.stdout, r.stderr))


class ProEdition(ModeBase):
	scenario = "pools-pro"

	def test_each_mode(self):
		for mode, value in (("isolate", "cgpu"), ("core", "core_mem"), ("exclusive", "default"), ("share", "share")):
			with self.subTest(mode=mode):
				self.api.reset()
				node = PRO_CGPU if mode != "isolate" else PRO_SHARE
				r = self.run_mode(mode, node)
				self.assert_ok(r)
				self.assertIn("node/%s labeled" % node, r.stdout)
				self.assertIn("Edition: pro", r.stdout)
				self.assertEqual(self.labels(node)["ack.node.gpu.schedule"], value)
				p = patches(self.api.requests())
				self.assertEqual(len(p), 1)
				self.assertEqual(p[0]["path"], "/api/v1/nodes/" + node)
				self.assertEqual(query_of(p[0]).get("fieldManager"), "kubectl-inspect-cgpu")
				self.assertNotIn("dryRun", query_of(p[0]))
				body = body_of(p[0])
				self.assertEqual(body["metadata"]["labels"], {"ack.node.gpu.schedule": value})
				self.assertTrue(body["metadata"]["resourceVersion"])
				if self.api.backend == "fake":  # a real server's audit log keeps no request headers
					self.assertIn("merge-patch+json", json.dumps(p[0].get("headers", {})).lower())

	def test_man_page_names_the_field_manager_sent(self):
		r = self.run_mode("isolate", PRO_SHARE)
		self.assert_ok(r)
		sent = query_of(patches(self.api.requests())[0]).get("fieldManager")
		with open(os.path.join(ROOT, "man", "kubectl-inspect-cgpu.1")) as f:
			man = f.read()
		m = re.search(r"field manager\s*\n\.BR? (\S+)", man)
		self.assertIsNotNone(m, "the man page does not name the field manager")
		self.assertEqual(m.group(1).replace("\\-", "-"), sent)

	def test_label_values_are_aliases(self):
		r = self.run_mode("cgpu", PRO_SHARE)
		self.assert_ok(r)
		self.assertEqual(self.labels(PRO_SHARE)["ack.node.gpu.schedule"], "cgpu")
		r = self.run_mode("core_mem", PRO_SHARE)
		self.assert_ok(r)
		self.assertEqual(self.labels(PRO_SHARE)["ack.node.gpu.schedule"], "core_mem")

	def test_placement(self):
		r = self.run_mode("share", PRO_SHARE, "--placement", "spread")
		self.assert_ok(r)
		self.assertEqual(self.labels(PRO_SHARE)["ack.node.gpu.placement"], "spread")
		self.assertEqual(len(patches(self.api.requests())), 1)
		r = self.run_mode("exclusive", PRO_SHARE, "--placement", "spread")
		self.assertEqual(r.returncode, 1)
		self.assertIn("placement", r.stderr)

	def test_already_right_sends_nothing(self):
		r = self.run_mode("isolate", PRO_CGPU)
		self.assert_ok(r)
		self.assertIn("node/%s unchanged" % PRO_CGPU, r.stdout)
		self.assertIn("already isolate", r.stdout)
		self.assertEqual(writes(self.api.requests()), [])

	def test_client_dry_run_only_reads(self):
		for flag in (["--dry-run"], ["--dry-run=client"], ["--dry-run", "client"]):
			with self.subTest(flag=flag):
				self.api.reset()
				r = self.run_mode("exclusive", "--pool", "np-cgpu", *flag)
				self.assert_ok(r)
				self.assertIn("node/%s labeled (dry run)" % PRO_CGPU, r.stdout)
				self.assertIn("ack.node.gpu.schedule: cgpu -> default", r.stdout)
				self.assertEqual(writes(self.api.requests()), [])
				self.assertEqual(self.labels(PRO_CGPU)["ack.node.gpu.schedule"], "cgpu")

	def test_server_dry_run(self):
		r = self.run_mode("share", PRO_CGPU, "--dry-run=server")
		self.assert_ok(r)
		self.assertIn("labeled (server dry run)", r.stdout)
		w = writes(self.api.requests())
		self.assertEqual(len(w), 1)
		self.assertEqual(query_of(w[0]).get("dryRun"), "All")
		self.assertEqual(self.labels(PRO_CGPU)["ack.node.gpu.schedule"], "cgpu")

	def test_pool_with_yes(self):
		r = self.run_mode("share", "--pool", "np-cgpu", "--yes")
		self.assert_ok(r)
		for n in (PRO_CGPU, PRO_CGPU2):
			self.assertIn("node/%s labeled" % n, r.stdout)
			self.assertEqual(self.labels(n)["ack.node.gpu.schedule"], "share")
		self.assertEqual(len(patches(self.api.requests())), 2)
		# the other pool is untouched
		self.assertEqual(self.labels(PRO_SHARE)["ack.node.gpu.schedule"], "share")

	def test_pool_key_value_and_selector(self):
		r = self.run_mode("core", "--pool", "alibabacloud.com/nodepool-id=np-cgpu-no-isolation", "-y")
		self.assert_ok(r)
		self.assertEqual(self.labels(PRO_SHARE2)["ack.node.gpu.schedule"], "core_mem")
		self.api.reset()
		r = self.run_mode("core", "-l", "ack.node.gpu.schedule=share", "-y")
		self.assert_ok(r)
		self.assertEqual(self.labels(PRO_SHARE)["ack.node.gpu.schedule"], "core_mem")
		self.assertEqual(self.labels(PRO_CGPU)["ack.node.gpu.schedule"], "cgpu")

	def test_refuses_many_nodes_without_terminal(self):
		r = self.run_mode("share", "--pool", "np-cgpu")
		self.assertEqual(r.returncode, 1)
		self.assertIn("--yes", r.stderr)
		# the plan is shown before refusing
		self.assertIn("node/%s: isolate -> share" % PRO_CGPU, r.stdout)
		self.assertEqual(writes(self.api.requests()), [])

	def run_on_terminal(self, args, answer, before_answer=None):
		rc, out, _ = run_on_terminal(args + ["--kubeconfig", self.api.kubeconfig], answer, before_answer)
		return rc, out

	def test_terminal_asks(self):
		rc, out = self.run_on_terminal(["mode", "share", "--pool", "np-cgpu"], b"n\n")
		self.assertIn("Apply to 2 nodes? [y/N]", out)
		# a no is an answer, not an error
		self.assertIn("nothing changed", out)
		self.assertEqual(rc, 0)
		self.assertEqual(writes(self.api.requests()), [])
		rc, out = self.run_on_terminal(["mode", "share", "--pool", "np-cgpu"], b"y\n")
		self.assertEqual(rc, 0, out)
		self.assertIn("node/%s labeled" % PRO_CGPU2, out)
		self.assertEqual(len(patches(self.api.requests())), 2)

	def test_plan_into_a_pipe_still_asks_on_the_terminal(self):
		"""mode ... | tee plan.txt: the plan goes down the pipe, the question to the terminal it was run on."""
		rc, term, piped = run_on_terminal(["mode", "share", "--pool", "np-cgpu", "--kubeconfig", self.api.kubeconfig],
			b"y\n", stdout_pipe=True)
		self.assertEqual(rc, 0, term)
		self.assertIn("Apply to 2 nodes? [y/N]", term)
		self.assertIn("node/%s: isolate -> share" % PRO_CGPU, piped)
		self.assertIn("node/%s labeled" % PRO_CGPU2, piped)
		self.assertEqual(len(patches(self.api.requests())), 2)

	def test_conflict_while_asking(self):
		"""The node changes while the plugin waits for its question to be answered: its patch, made with
		the resourceVersion it read, meets a 409 from the server; it reads the node again, keeps the other
		change and patches again."""
		def change():
			status, _, _ = self.api.call("PATCH", "/api/v1/nodes/" + PRO_CGPU2, {"metadata": {"labels": {"team": "vision"}}},
				headers={"Content-Type": "application/merge-patch+json"})
			self.assertEqual(status, 200)
		rc, out = self.run_on_terminal(["mode", "share", "--pool", "np-cgpu"], b"y\n", before_answer=change)
		self.assertEqual(rc, 0, out)
		self.assertIn("node/%s labeled" % PRO_CGPU2, out)
		# the plugin's patches, which carry a resourceVersion (the test's own change does not)
		p = [x for x in patches(self.api.requests()) if x["path"] == "/api/v1/nodes/" + PRO_CGPU2
			and "resourceVersion" in body_of(x)["metadata"]]
		self.assertEqual([x["status"] for x in p], [409, 200])
		labels = self.labels(PRO_CGPU2)
		self.assertEqual(labels["ack.node.gpu.schedule"], "share")
		self.assertEqual(labels["team"], "vision")

	def test_forbidden_patch(self):
		r = self.run_mode("isolate", PRO_SHARE, context="viewer")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/%s: Error from server (Forbidden)" % PRO_SHARE, r.stderr)
		self.assertIn("cannot patch resource \"nodes\"", r.stderr)
		self.assertEqual(self.labels(PRO_SHARE)["ack.node.gpu.schedule"], "share")

	@fake_only("holds a request back to make room for a concurrent change")
	def test_conflict_is_resolved(self):
		"""The node changes between the read and the patch: the patch fails with 409, the node is read
		again, the change is kept and the patch goes through."""
		self.api.fault({"method": "PATCH", "path_prefix": "/api/v1/nodes/" + PRO_SHARE}, {"type": "delay", "seconds": 2},
			times=1)
		a = ["mode", "isolate", PRO_SHARE, "--kubeconfig", self.api.kubeconfig]
		with reaped(subprocess.Popen([plugin_path()] + a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
				env={"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "PATH": "/usr/bin:/bin"})) as proc:
			# wait until the plugin has read the pods (its last read before patching)
			wait_for(lambda: any(r["path"] == "/api/v1/pods" for r in self.api.requests()))
			time.sleep(0.3)
			_, _, node = self.api.call("GET", "/api/v1/nodes/" + PRO_SHARE)
			node["metadata"]["labels"]["team"] = "vision"
			self.api.put_object(node)
			out, err = proc.communicate(timeout=30)
		self.assertEqual(proc.returncode, 0, out + err)
		self.assertIn("node/%s labeled" % PRO_SHARE, out)
		reqs = self.api.requests()
		p = patches(reqs)
		self.assertEqual(len(p), 2)
		self.assertEqual([x["status"] for x in p], [409, 200])
		self.assertNotEqual(body_of(p[0])["metadata"]["resourceVersion"], body_of(p[1])["metadata"]["resourceVersion"])
		self.assertTrue(any(r["method"] == "GET" and r["path"] == "/api/v1/nodes/" + PRO_SHARE for r in reqs))
		labels = self.labels(PRO_SHARE)
		self.assertEqual(labels["ack.node.gpu.schedule"], "cgpu")
		self.assertEqual(labels["team"], "vision")

	@fake_only("fault injection")
	def test_conflict_gives_up(self):
		self.api.fault({"method": "PATCH"}, {"type": "status", "code": 409}, times=10)
		r = self.run_mode("isolate", PRO_SHARE)
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/%s:" % PRO_SHARE, r.stderr)
		self.assertEqual(len(patches(self.api.requests())), 4)

	def test_warnings(self):
		r = self.run_mode("share", PRO_CGPU)
		self.assert_ok(r)
		self.assertIn("kernel module", r.stderr)
		self.assertIn("reboot", r.stderr)
		# holds gpu-mem on the node, which share offers too: nothing to say of it
		self.assertNotIn("pod/default/cgpu-test-0", r.stderr)
		self.assertIn("--restart", r.stdout)
		self.assertNotIn("no-selector-job-0", r.stderr)  # on another node
		r = self.run_mode("isolate", PRO_SHARE2, "--dry-run")
		self.assertIn("pod/default/no-selector-job-0: asks", r.stderr)  # no nodeSelector
		# to exclusive, whose nodes offer no GPU memory: the pod holding it is said
		r = self.run_mode("exclusive", PRO_CGPU, "--dry-run")
		self.assertIn("pod/default/cgpu-test-0: runs on node", r.stderr)

	def test_pod_memory_counts_every_container(self):
		_, _, pod = self.api.call("GET", "/api/v1/namespaces/default/pods/cgpu-test-0")
		pod["metadata"]["name"] = "two-containers-0"
		pod["metadata"]["uid"] = "6b1f3c9e-0000-4000-8000-000000000002"
		first = pod["spec"]["containers"][0]
		second = json.loads(json.dumps(first))
		second["name"] = "sidecar"
		for c, mem in ((first, "1"), (second, "7")):
			# an API server takes extended resources only with requests equal to limits
			for kind in ("limits", "requests"):
				if kind == "limits" or "aliyun.com/gpu-mem" in c["resources"].get(kind, {}):
					c["resources"][kind]["aliyun.com/gpu-mem"] = mem
		pod["spec"]["containers"] = [first, second]
		self.api.put_object(pod)
		r = self.run_mode("exclusive", PRO_CGPU, "--dry-run")
		self.assert_ok(r)
		line = [l for l in r.stderr.splitlines() if "two-containers-0" in l]
		self.assertTrue(line, r.stderr)
		self.assertIn("aliyun.com/gpu-mem=8", line[0])

	def test_only_pool_or_mode_selectors_pin_a_pod(self):
		_, _, base = self.api.call("GET", "/api/v1/namespaces/default/pods/no-selector-job-0")
		variants = {
			"os-only-0": {"nodeSelector": {"kubernetes.io/os": "linux"}},
			"pool-affinity-0": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
				"nodeSelectorTerms": [{"matchExpressions": [
					{"key": "alibabacloud.com/nodepool-id", "operator": "In", "values": ["np-cgpu"]}]}]}}}},
			"preferred-only-0": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
				{"weight": 1, "preference": {"matchExpressions": [
					{"key": "ack.node.gpu.schedule", "operator": "In", "values": ["cgpu"]}]}}]}}},
		}
		for i, (name, spec) in enumerate(variants.items()):
			pod = json.loads(json.dumps(base))
			pod["metadata"]["name"] = name
			pod["metadata"]["uid"] = "6b1f3c9e-0000-4000-8000-00000000001%d" % i
			pod["spec"].update(spec)
			pod["spec"].pop("nodeName", None)  # not yet on a node: it may land on the changed one
			self.api.put_object(pod)
		r = self.run_mode("share", PRO_CGPU, "--dry-run")
		self.assert_ok(r)
		self.assertIn("pod/default/os-only-0: asks", r.stderr)
		self.assertIn("pod/default/preferred-only-0: asks", r.stderr)
		self.assertNotIn("pool-affinity-0", r.stderr)
		self.assertNotIn("cgpu-test-0: asks", r.stderr)

	def test_region_warning(self):
		_, _, node = self.api.call("GET", "/api/v1/nodes/" + PRO_SHARE)
		node["metadata"]["labels"]["topology.kubernetes.io/region"] = "eu-central-1"
		self.api.put_object(node)
		r = self.run_mode("isolate", PRO_SHARE)
		self.assert_ok(r)
		self.assertIn("eu-central-1", r.stderr)
		r = self.run_mode("share", PRO_CGPU)
		self.assertNotIn("eu-central-1", r.stderr)

	def test_json(self):
		r = self.run_mode("isolate", PRO_SHARE, "-o", "json")
		self.assert_ok(r)
		doc = json.loads(r.stdout)
		self.assertEqual(doc["apiVersion"], "inspect-cgpu.kubectl.io/v1")
		self.assertEqual(doc["kind"], "ModeChange")
		self.assertEqual(doc["edition"], "pro")
		self.assertEqual(doc["mode"], "isolate")
		self.assertEqual(doc["dryRun"], "none")
		self.assertEqual(len(doc["nodes"]), 1)
		n = doc["nodes"][0]
		self.assertEqual(n["name"], PRO_SHARE)
		self.assertEqual(n["modeBefore"], "share")
		self.assertEqual(n["labelsBefore"], {"ack.node.gpu.schedule": "share"})
		self.assertEqual(n["labelsAfter"], {"ack.node.gpu.schedule": "cgpu"})
		self.assertEqual(n["result"], "labeled")
		# share to isolate: the pods keep the GPU memory they hold, which isolate offers too
		self.assertFalse(any(w["code"] == "PodHoldsGPU" for w in doc["warnings"]), doc["warnings"])
		# to exclusive: GPU memory is no longer offered, the pods holding it are said
		doc = json.loads(self.run_mode("exclusive", PRO_SHARE, "--dry-run", "-o", "json").stdout)
		self.assertTrue(any(w["code"] == "PodHoldsGPU" for w in doc["warnings"]), doc["warnings"])

	def test_yaml(self):
		r = self.run_mode("isolate", PRO_SHARE, "-o", "yaml", "--dry-run")
		self.assert_ok(r)
		self.assertTrue(r.stdout.startswith("apiVersion: inspect-cgpu.kubectl.io/v1\nkind: ModeChange\n"), r.stdout)
		if yaml:
			doc = yaml.safe_load(r.stdout)
			j = json.loads(self.run_mode("isolate", PRO_SHARE, "-o", "json", "--dry-run").stdout)
			self.assertEqual(doc, j)
		r = self.run_mode("isolate", PRO_SHARE, "-o", "xml")
		self.assertEqual(r.returncode, 1)
		self.assertIn("allowed formats are: json,yaml", r.stderr)

	def test_conflicting_evidence(self):
		# another node of another edition does not matter...
		_, _, node = self.api.call("GET", "/api/v1/nodes/" + PRO_SHARE2)
		node["metadata"]["labels"]["cgpu"] = "true"
		self.api.put_object(node)
		r = self.run_mode("share", PRO_CGPU, "--dry-run")
		self.assert_ok(r)
		self.assertIn("Edition: pro", r.stdout)
		# ...a chosen node with labels of two editions does, and is named
		r = self.run_mode("share", PRO_CGPU, PRO_SHARE2)
		self.assertEqual(r.returncode, 1)
		self.assertIn("the chosen nodes show signs of more than one GPU sharing edition", r.stderr)
		self.assertIn(PRO_SHARE2, r.stderr)
		self.assertIn("--edition", r.stderr)
		self.assertEqual(writes(self.api.requests()), [])
		r = self.run_mode("share", PRO_CGPU, "--edition", "pro")
		self.assert_ok(r)
		self.assertEqual(self.labels(PRO_CGPU)["ack.node.gpu.schedule"], "share")

	def test_with_restart(self):
		r = self.run_mode("share", PRO_CGPU, "--restart", timeout=60)
		self.assert_ok(r)
		self.assertIn("node/%s labeled" % PRO_CGPU, r.stdout)
		self.assertIn("node/%s: restarted" % PRO_CGPU, r.stdout)
		reqs = self.api.requests()
		kinds = [(x["method"], x["path"].split("/")[-2]) for x in writes(reqs)]
		self.assertEqual(kinds[0], ("PATCH", "nodes"))
		self.assertEqual(kinds[1], ("DELETE", "pods"))

	def test_usage_errors(self):
		r = self.run_mode()
		self.assertEqual(r.returncode, 1)
		r = self.run_mode("turbo", PRO_CGPU)
		self.assertEqual(r.returncode, 1)
		self.assertIn("turbo", r.stderr)
		r = self.run_mode("share", PRO_CGPU, "-l", "a=b")
		self.assertEqual(r.returncode, 1)
		r = self.run_mode("share")
		self.assertEqual(r.returncode, 1)
		r = self.run_mode("share", "--pool", "bad pool")
		self.assertEqual(r.returncode, 1)
		r = self.run_mode("share", "no-such-node")
		self.assertEqual(r.returncode, 1)
		self.assertIn("NotFound", r.stderr)
		self.assertEqual(writes(self.api.requests()), [])


class DemoCluster(ModeBase):
	"""The demo has pro pools beside nodes labelled for the basic edition."""
	scenario = "demo"

	def test_pool_of_one_edition_in_a_mixed_cluster(self):
		r = self.run_mode("share", "--pool", "np-cgpu", "--dry-run=server")
		self.assert_ok(r)
		self.assertIn("Edition: pro", r.stdout)
		p = patches(self.api.requests())
		self.assertEqual(len(p), 2)
		self.assertEqual(query_of(p[0]).get("dryRun"), "All")


class LargeCluster(ModeBase):
	"""Many pods: mode on one node says its plan and a screenful of warnings."""
	scenario = "gen:nodes=20,pods=3000,seed=3"

	def test_plan_then_grouped_warnings(self):
		_, _, body = self.api.call("GET", "/api/v1/nodes")
		node = body["items"][0]["metadata"]["name"]
		r = self.run_mode("exclusive", node, "--dry-run")
		self.assert_ok(r)
		self.assertTrue(r.stdout.startswith("Edition: basic"), r.stdout)
		# one level of parentheses in the edition line
		self.assertRegex(r.stdout.splitlines()[0], r"^Edition: basic \([^()]*\), (detected|as given)$")
		lines = r.stderr.splitlines()
		self.assertTrue(all(l.startswith("Warning: ") for l in lines), r.stderr)
		self.assertLessEqual(len(lines), 20, r.stderr)
		self.assertRegex(r.stderr, r"Warning: \d+ more PodHoldsGPU: pod/")
		# pods on other nodes are not this change's business
		doc = json.loads(self.run_mode("exclusive", node, "--dry-run", "-o", "json").stdout)
		others = [w for w in doc["warnings"] if w["code"] == "PodHoldsGPU" and node not in w["message"]]
		self.assertEqual(others, [])
		self.assertEqual(len([w for w in doc["warnings"] if w["code"] == "NoNodeSelector" and w.get("object")]),
			min(10, len([w for w in doc["warnings"] if w["code"] == "PodHoldsGPU"])))
		# that a restart is needed is said once
		said = [l for l in (r.stdout + r.stderr).splitlines() if "restart" in l]
		self.assertEqual(len(said), 1, said)


class BasicEdition(ModeBase):
	scenario = "pools-basic"

	def test_each_mode(self):
		cases = (
			("share", BASIC_ISO, {"cgpu": "true", "cgpu.disable.isolation": "true"}, {"cgpu.disable.isolation": "true"}),
			("isolate", BASIC_SHARE, {"cgpu": "true", "cgpu.disable.isolation": "false"}, {"cgpu.disable.isolation": "false"}),
			("exclusive", BASIC_ISO, {"cgpu": "false"}, {"cgpu": "false"}),
		)
		for mode, node, want, patch in cases:
			with self.subTest(mode=mode):
				self.api.reset()
				r = self.run_mode(mode, node)
				self.assert_ok(r)
				self.assertIn("Edition: basic", r.stdout)
				labels = self.labels(node)
				for k, v in want.items():
					self.assertEqual(labels.get(k), v)
				p = patches(self.api.requests())
				self.assertEqual(len(p), 1)
				self.assertEqual(body_of(p[0])["metadata"]["labels"], patch)

	def test_already_in_mode_by_default_is_unchanged(self):
		# cgpu=true alone already isolates: isolate is no change at all
		_, _, node = self.api.call("GET", "/api/v1/nodes/" + BASIC_ISO)
		del node["metadata"]["labels"]["cgpu.disable.isolation"]
		self.api.put_object(node)
		self.api.clear_requests()
		r = self.run_mode("isolate", BASIC_ISO, "--restart")
		self.assert_ok(r)
		self.assertIn("node/%s unchanged" % BASIC_ISO, r.stdout)
		self.assertNotIn("->", r.stdout)
		self.assertNotIn("restart", r.stdout + r.stderr)
		self.assertEqual(writes(self.api.requests()), [])
		r = self.run_mode("isolate", BASIC_ISO, "-o", "json")
		n = json.loads(r.stdout)["nodes"][0]
		self.assertEqual((n["modeBefore"], n["result"], n["restartNeeded"]), ("isolate", "unchanged", False))

	def test_isolation_change_suggests_restart(self):
		r = self.run_mode("share", BASIC_ISO)
		self.assert_ok(r)
		self.assertIn("--restart", r.stdout)
		self.assertNotIn("kernel module", r.stderr)

	def test_core_does_not_exist(self):
		r = self.run_mode("core", BASIC_ISO)
		self.assertNotEqual(r.returncode, 0)
		self.assertIn("does not exist in the basic edition", r.stderr)
		self.assertEqual(writes(self.api.requests()), [])

	def test_placement_refused(self):
		r = self.run_mode("share", BASIC_ISO, "--placement", "binpack")
		self.assertNotEqual(r.returncode, 0)
		self.assertIn("pro", r.stderr)
		self.assertEqual(writes(self.api.requests()), [])

	def test_pool(self):
		r = self.run_mode("isolate", "--pool", "np-cgpu-no-isolation", "--yes")
		self.assert_ok(r)
		for n in (BASIC_SHARE, "cn-shanghai.192.168.7.160"):
			self.assertEqual(self.labels(n)["cgpu.disable.isolation"], "false")

	def test_with_restart(self):
		r = self.run_mode("share", BASIC_ISO, "--restart")
		self.assert_ok(r)
		self.assertIn("node/%s: restarted gpushare-device-plugin-ds-" % BASIC_ISO, r.stdout)


class OpenSourceEdition(ModeBase):
	scenario = "opensource"

	def test_share(self):
		r = self.run_mode("share", "cpu-node-1")
		self.assert_ok(r)
		self.assertIn("Edition: opensource", r.stdout)
		self.assertEqual(self.labels("cpu-node-1").get("gpushare"), "true")

	@fake_only("a real DaemonSet controller starts a device-plugin pod on the node as soon as it is labelled")
	def test_restart_without_plugin_pod_fails(self):
		r = self.run_mode("share", "cpu-node-1", "--restart")
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertIn("node/cpu-node-1 labeled", r.stdout)
		self.assertIn("No device-plugin pod (1): node/cpu-node-1", r.stderr)

	def test_exclusive_removes_the_label(self):
		r = self.run_mode("exclusive", "gpu-node-1")
		self.assert_ok(r)
		self.assertNotIn("gpushare", self.labels("gpu-node-1"))
		p = patches(self.api.requests())
		self.assertEqual(body_of(p[0])["metadata"]["labels"], {"gpushare": None})

	def test_isolation_modes_do_not_exist(self):
		for mode in ("isolate", "core"):
			r = self.run_mode(mode, "gpu-node-1")
			self.assertNotEqual(r.returncode, 0)
			self.assertIn("does not exist in the opensource edition", r.stderr)
		self.assertEqual(writes(self.api.requests()), [])

	def test_already_shared(self):
		r = self.run_mode("share", "-l", "gpushare=true")
		self.assert_ok(r)
		self.assertEqual(r.stdout.count("unchanged"), 2)
		self.assertEqual(writes(self.api.requests()), [])


def rbac_user(path):
	"""The fake server's rules for a user bound to everything in an RBAC manifest: ClusterRole rules
	apply everywhere, a Role's only in its namespace."""
	rules = []
	with open(path) as f:
		for doc in yaml.safe_load_all(f):
			if doc["kind"] not in ("ClusterRole", "Role"):
				continue
			for r in doc["rules"]:
				rule = {"verbs": r["verbs"], "resources": r["resources"]}
				if doc["kind"] == "Role":
					rule["namespaces"] = [doc["metadata"]["namespace"]]
				rules.append(rule)
	return {"groups": ["system:authenticated"], "rules": rules}


@unittest.skipIf(plugin_path() is None, "the plugin is not built")
@unittest.skipIf(yaml is None, "PyYAML is not installed")
class UnlabelledNode(ModeBase):
	scenario = "unlabelled"

	def wide_mode(self, node):
		r = self.run_command("-o", "wide", node)
		self.assert_ok(r)
		header, row = r.stdout.splitlines()[:2]
		return row[header.index(" MODE ") + 1:].split()[0]

	def test_the_plan_says_the_mode_of_the_wide_table(self):
		# a node without any mode label: one word for it in -o wide's MODE column and in the plan
		for node, word in (("gpu-unlabelled", "unlabelled"), ("gpu-labelled", "isolate")):
			with self.subTest(node=node):
				self.assertEqual(self.wide_mode(node), word)
				r = self.run_mode("share", node, "--dry-run=client")
				self.assert_ok(r)
				self.assertIn("node/%s: %s -> share\n" % (node, word), r.stdout)
				r = self.run_mode("exclusive", node, "--dry-run=client", "-o", "json")
				self.assert_ok(r)
				self.assertEqual(json.loads(r.stdout)["nodes"][0]["modeBefore"], word)


class RbacManifests(ClusterCase):
	"""man/rbac-admin.yaml and man/rbac-readonly.yaml grant what the commands use, and no less."""

	@classmethod
	def setUpClass(cls):
		cls.dir = tempfile.mkdtemp(prefix="mode-rbac-")
		shutil.copytree(os.path.join(SCENARIOS, "pools-basic"), os.path.join(cls.dir, "s"))
		users = {
			"cgpu-admin": rbac_user(os.path.join(ROOT, "man", "rbac-admin.yaml")),
			"cgpu-readonly": rbac_user(os.path.join(ROOT, "man", "rbac-readonly.yaml")),
		}
		with open(os.path.join(cls.dir, "s", "scenario.json"), "w") as f:
			json.dump({"users": users}, f)
		cls.api = APIServer(os.path.join(cls.dir, "s"), ds_ready_delay=0.3).start()

	def run_as(self, user, *args):
		return run_plugin(list(args) + ["--kubeconfig", self.api.kubeconfig, "--as", user], timeout=60)

	def test_admin_can_label_and_restart(self):
		r = self.run_as("cgpu-admin", "mode", "share", BASIC_ISO, "--restart")
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertIn("node/%s labeled" % BASIC_ISO, r.stdout)
		self.assertIn("node/%s: restarted" % BASIC_ISO, r.stdout)
		self.assertNotIn("forbidden", r.stderr)
		r = self.run_as("cgpu-admin", "restart", "--pool", "np-cgpu-no-isolation", "--dry-run=server")
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertTrue(all(x.get("status", 200) < 400 for x in self.api.requests()))

	def test_readonly_can_plan_but_not_change(self):
		r = self.run_as("cgpu-readonly", "mode", "share", BASIC_ISO, "--dry-run")
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertIn("Edition: basic", r.stdout)
		r = self.run_as("cgpu-readonly", "mode", "share", BASIC_ISO)
		self.assertEqual(r.returncode, 1)
		self.assertIn("Forbidden", r.stderr)
		r = self.run_as("cgpu-readonly", "restart", BASIC_ISO)
		self.assertEqual(r.returncode, 1)
		self.assertIn("Forbidden", r.stderr)


if __name__ == "__main__":
	unittest.main()
