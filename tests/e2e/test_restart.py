"""kubectl inspect cgpu restart: delete the device-plugin pod on nodes and wait for a Ready replacement."""

import json
import subprocess
import unittest
import urllib.parse

from harness import ClusterCase, body_of, fake_only, plugin_path, query_of, reaped, run_on_terminal, wait_for

DS = "gpushare-device-plugin-ds"


@unittest.skipIf(plugin_path() is None, "the plugin is not built")
class RestartBase(ClusterCase):
	scenario = "opensource"
	options = {"ds_ready_delay": 0.5}

	def restart(self, *args, context=None, timeout=60):
		"""restart with args, answering yes ahead (--yes) where it would ask before several nodes."""
		return self.run_command("restart", "--yes", *args, context=context, timeout=timeout)

	def plugin_pods(self, node):
		q = urllib.parse.urlencode({"labelSelector": "name=" + DS, "fieldSelector": "spec.nodeName=" + node})
		status, _, body = self.api.call("GET", "/api/v1/namespaces/kube-system/pods?" + q)
		self.assertEqual(status, 200)
		return body["items"]

	def deletes(self):
		return [r for r in self.api.requests() if r["method"] == "DELETE"]

	def assert_ok(self, r):
		self.assertEqual(r.returncode, 0, "stdout:\n%s\nstderr:\n%s" % (r.stdout, r.stderr))


class OpenSource(RestartBase):
	def test_refuses_several_nodes_without_terminal(self):
		r = self.run_command("restart", "gpu-node-1", "gpu-node-2")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stderr, "error: refusing to restart the device plugin on 2 nodes without confirmation: "
			"add --yes, or run on a terminal to be asked\n")
		self.assertEqual(self.deletes(), [])

	def test_one_node_is_not_asked_about(self):
		self.assert_ok(self.run_command("restart", "gpu-node-1", "--timeout", "20s"))
		self.assertEqual(len(self.deletes()), 1)

	def test_terminal_asks_naming_the_nodes(self):
		args = ["restart", "gpu-node-1", "gpu-node-2", "--timeout", "20s", "--kubeconfig", self.api.kubeconfig]
		rc, out, _ = run_on_terminal(args, b"n\n")
		self.assertIn("  node/gpu-node-1\r\n  node/gpu-node-2\r\n", out)
		self.assertIn("Restart the device plugin on 2 nodes? [y/N]", out)
		# a no is an answer, not an error
		self.assertIn("nothing changed", out)
		self.assertEqual(rc, 0)
		self.assertEqual(self.deletes(), [])
		rc, out, _ = run_on_terminal(args, b"y\n")
		self.assertEqual(rc, 0, out)
		self.assertIn("node/gpu-node-2: restarted", out)
		self.assertEqual(len(self.deletes()), 2)

	def test_restart_one_node(self):
		before = self.plugin_pods("gpu-node-1")
		self.assertEqual(len(before), 1)
		old = before[0]
		r = self.restart("gpu-node-1")
		self.assert_ok(r)
		self.assertRegex(r.stdout, r"node/gpu-node-1: restarted %s in [0-9.]+s" % old["metadata"]["name"])
		d = self.deletes()
		self.assertEqual(len(d), 1)
		self.assertEqual(d[0]["path"], "/api/v1/namespaces/kube-system/pods/" + old["metadata"]["name"])
		body = body_of(d[0])
		self.assertEqual(body["kind"], "DeleteOptions")
		self.assertEqual(body["preconditions"], {"uid": old["metadata"]["uid"]})
		# the pods were found through the DaemonSet's selector on that node only
		lists = [x for x in self.api.requests() if x["method"] == "GET" and x["path"].endswith("/pods")]
		self.assertTrue(lists)
		for x in lists:
			self.assertEqual(query_of(x).get("labelSelector"), "name=" + DS)
			self.assertEqual(query_of(x).get("fieldSelector"), "spec.nodeName=gpu-node-1")
		after = [p for p in self.plugin_pods("gpu-node-1") if "deletionTimestamp" not in p["metadata"]]
		self.assertEqual(len(after), 1)
		self.assertNotEqual(after[0]["metadata"]["uid"], old["metadata"]["uid"])
		self.assertEqual(after[0]["status"]["phase"], "Running")
		# the other node's plugin is untouched
		self.assertEqual(len(self.plugin_pods("gpu-node-2")), 1)

	def test_never_ready_times_out(self):
		self.api.settings(never_ready_nodes=["gpu-node-1"])
		r = self.restart("gpu-node-1", "--timeout", "2s")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/gpu-node-1: timed out after 2s waiting for a Ready device-plugin pod", r.stderr)
		self.assertEqual(len(self.deletes()), 1)

	def test_stops_at_the_first_failure(self):
		self.api.settings(never_ready_nodes=["gpu-node-1"])
		r = self.restart("-l", "gpushare=true", "--timeout", "2s")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/gpu-node-1: timed out", r.stderr)
		self.assertNotIn("gpu-node-2: restarted", r.stdout)
		self.assertIn("restarted on 0 of 2 nodes", r.stderr)
		self.assertIn("Failed (1): node/gpu-node-1", r.stderr)
		self.assertIn("Not tried (1): node/gpu-node-2", r.stderr)
		self.assertIn("--continue-on-error", r.stderr)
		self.assertEqual(len(self.deletes()), 1)

	def test_continue_on_error_goes_on(self):
		self.api.settings(never_ready_nodes=["gpu-node-1"])
		r = self.restart("-l", "gpushare=true", "--timeout", "2s", "--continue-on-error")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/gpu-node-1: timed out", r.stderr)
		self.assertIn("node/gpu-node-2: restarted", r.stdout)
		self.assertIn("Failed (1): node/gpu-node-1", r.stderr)
		self.assertNotIn("Not tried", r.stderr)

	def test_results_as_a_document(self):
		old = self.plugin_pods("gpu-node-1")[0]["metadata"]["name"]
		r = self.restart("gpu-node-1", "cpu-node-1", "-o", "json")
		self.assertEqual(r.returncode, 1, r.stderr)
		doc = json.loads(r.stdout)
		self.assertEqual((doc["apiVersion"], doc["kind"], doc["dryRun"]), ("inspect-cgpu.kubectl.io/v1",
			"RestartResult", "none"))
		[new] = [p["metadata"]["name"] for p in self.plugin_pods("gpu-node-1")
			if "deletionTimestamp" not in p["metadata"]]
		self.assertEqual(doc["nodes"], [
			{"name": "gpu-node-1", "result": "restarted", "oldPod": old, "newPod": new},
			{"name": "cpu-node-1", "result": "noPlugin", "oldPod": None, "newPod": None}])
		self.assertEqual(doc["summary"], {"done": 1, "failed": 1, "unknown": 0, "notAttempted": 0})
		# the lines go with the errors
		self.assertIn("node/gpu-node-1: restarted", r.stderr)
		r = self.restart("gpu-node-2", "-o", "yaml", "--dry-run")
		self.assert_ok(r)
		self.assertTrue(r.stdout.startswith("apiVersion: inspect-cgpu.kubectl.io/v1\nkind: RestartResult\n"
			"dryRun: client\n"), r.stdout)
		self.assertIn("  result: planned\n", r.stdout)

	def test_node_without_plugin(self):
		# not restarted is not success: exit 1, and say which node was left
		r = self.restart("cpu-node-1")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/cpu-node-1: no device-plugin pod on this node", r.stderr)
		self.assertIn("restarted on 0 of 1 node", r.stderr)
		self.assertIn("No device-plugin pod (1): node/cpu-node-1", r.stderr)
		self.assertEqual(self.deletes(), [])
		r = self.restart("gpu-node-1", "cpu-node-1")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/gpu-node-1: restarted", r.stdout)
		self.assertIn("restarted on 1 of 2 nodes", r.stderr)

	def test_missing_daemonset(self):
		self.api.delete_object("daemonsets", "kube-system", DS)
		r = self.restart("gpu-node-1")
		self.assertEqual(r.returncode, 1)
		self.assertIn(DS, r.stderr)
		self.assertIn("--daemonset", r.stderr)
		self.assertEqual(self.deletes(), [])

	def test_named_daemonset_missing(self):
		r = self.restart("gpu-node-1", "--daemonset", "kube-system/nvidia-device-plugin")
		self.assertEqual(r.returncode, 1)
		self.assertIn("NotFound", r.stderr)
		self.assertIn("nvidia-device-plugin", r.stderr)

	def test_named_daemonset(self):
		r = self.restart("gpu-node-2", "--daemonset", "kube-system/" + DS)
		self.assert_ok(r)
		self.assertIn("node/gpu-node-2: restarted", r.stdout)

	def test_dry_run_deletes_nothing(self):
		for flag in (["--dry-run"], ["--dry-run=client"]):
			with self.subTest(flag=flag):
				self.api.reset()
				r = self.restart("gpu-node-1", *flag)
				self.assert_ok(r)
				self.assertIn("would delete pod kube-system/gpushare-device-plugin-ds-", r.stdout)
				self.assertEqual([x for x in self.api.requests() if x["method"] != "GET"], [])

	def test_server_dry_run(self):
		r = self.restart("gpu-node-1", "--dry-run=server")
		self.assert_ok(r)
		d = self.deletes()
		self.assertEqual(len(d), 1)
		self.assertEqual(query_of(d[0]).get("dryRun"), "All")
		self.assertEqual(len(self.plugin_pods("gpu-node-1")), 1)

	def test_forbidden(self):
		r = self.restart("gpu-node-1", context="viewer")
		self.assertEqual(r.returncode, 1)
		self.assertIn("Error from server (Forbidden)", r.stderr)
		self.assertEqual(self.deletes(), [])

	@fake_only("fault injection")
	def test_failed_delete_is_reported_per_node(self):
		self.api.fault({"method": "DELETE", "path_prefix": "/api/v1/namespaces/kube-system/pods/gpushare-device-plugin-ds-frd2k"},
			{"type": "status", "code": 500}, times=5)
		r = self.restart("-l", "gpushare=true", "--continue-on-error")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/gpu-node-1: Error from server (InternalError)", r.stderr)
		self.assertIn("node/gpu-node-2: restarted", r.stdout)

	@fake_only("fault injection")
	def test_pod_already_gone(self):
		self.api.fault({"method": "DELETE"}, {"type": "status", "code": 404}, times=1)
		r = self.restart("gpu-node-1", "--timeout", "3s")
		# the 404 answer did not delete anything, so no new pod comes either
		self.assertEqual(r.returncode, 1)
		self.assertIn("timed out", r.stderr)
		self.assertNotIn("NotFound", r.stderr)

	@fake_only("a real DaemonSet controller adopts a matching pod that has no owner")
	def test_only_pods_the_daemonset_controls(self):
		"""A pod with the plugin's labels that the DaemonSet does not own is left alone."""
		pod = self.plugin_pods("gpu-node-2")[0]
		pod["metadata"]["name"] = "handmade-plugin"
		pod["metadata"].pop("uid", None)
		pod["metadata"].pop("ownerReferences", None)
		pod["metadata"].pop("resourceVersion", None)
		pod.setdefault("kind", "Pod")
		pod.setdefault("apiVersion", "v1")
		self.api.put_object(pod)
		r = self.restart("gpu-node-2")
		self.assert_ok(r)
		names = [x["path"].rsplit("/", 1)[1] for x in self.deletes()]
		self.assertEqual(len(names), 1)
		self.assertNotIn("handmade-plugin", names)

	def test_pool_in_parallel(self):
		r = self.restart("-l", "gpushare=true", "--max-parallel", "2")
		self.assert_ok(r)
		self.assertIn("node/gpu-node-1: restarted", r.stdout)
		self.assertIn("node/gpu-node-2: restarted", r.stdout)
		self.assertEqual(len(self.deletes()), 2)

	def test_usage(self):
		self.assertEqual(self.restart().returncode, 1)
		self.assertEqual(self.restart("gpu-node-1", "-l", "a=b").returncode, 1)
		self.assertEqual(self.restart("gpu-node-1", "--timeout", "soon").returncode, 1)
		self.assertEqual(self.restart("gpu-node-1", "--max-parallel", "0").returncode, 1)
		self.assertEqual(self.restart("gpu-node-1", "--daemonset", "nonamespace").returncode, 1)
		r = self.restart("no-such-node")
		self.assertEqual(r.returncode, 1)
		self.assertIn("NotFound", r.stderr)


class Pro(RestartBase):
	scenario = "pools-pro"

	def test_pool_restarts_the_mode_plugin(self):
		r = self.restart("--pool", "np-cgpu")
		self.assert_ok(r)
		for n in ("cn-shanghai.192.168.7.157", "cn-shanghai.192.168.7.158"):
			self.assertIn("node/%s: restarted gpushare-cgpu-device-plugin-ds-" % n, r.stdout)
		d = self.deletes()
		self.assertEqual(len(d), 2)
		for x in d:
			self.assertIn("gpushare-cgpu-device-plugin-ds-", x["path"])

	def test_daemonset_that_does_not_cover_the_node(self):
		node = "cn-shanghai.192.168.7.159"  # share: the cgpu plugin is not there
		r = self.restart(node, "--daemonset", "kube-system/gpushare-cgpu-device-plugin-ds")
		self.assertEqual(r.returncode, 1)
		self.assertIn("node/%s: no device-plugin pod on this node from that DaemonSet" % node, r.stderr)
		self.assertEqual(self.deletes(), [])

	@fake_only("moves another DaemonSet's pod onto the node by hand, which a real DaemonSet controller removes")
	def test_replacement_from_another_mode_plugin(self):
		"""After share -> cgpu the node's share plugin does not come back: the cgpu plugin's new pod is
		the replacement."""
		node = "cn-shanghai.192.168.7.159"
		self.api.settings(never_ready_nodes=[node])
		# the mode change comes first: the share plugin's DaemonSet no longer picks the node
		_, _, n = self.api.call("GET", "/api/v1/nodes/" + node)
		n["metadata"]["labels"]["ack.node.gpu.schedule"] = "cgpu"
		n.setdefault("kind", "Node")
		n.setdefault("apiVersion", "v1")
		self.api.put_object(n)
		with reaped(subprocess.Popen([plugin_path(), "restart", node, "--timeout", "20s", "--kubeconfig",
				self.api.kubeconfig], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)) as proc:
			self.assertTrue(wait_for(self.deletes))
			q = urllib.parse.urlencode({"labelSelector": "name=gpushare-cgpu-device-plugin-ds"})
			_, _, pods = self.api.call("GET", "/api/v1/namespaces/kube-system/pods?" + q)
			pod = pods["items"][0]
			pod["metadata"]["name"] = "gpushare-cgpu-device-plugin-ds-moved"
			for k in ("uid", "resourceVersion"):
				pod["metadata"].pop(k, None)
			pod["spec"]["nodeName"] = node
			pod.setdefault("kind", "Pod")
			pod.setdefault("apiVersion", "v1")
			self.api.put_object(pod)
			out, err = proc.communicate(timeout=30)
		self.assertEqual(proc.returncode, 0, out + err)
		self.assertIn("node/%s: restarted gpushare-device-plugin-ds-8kvvd" % node, out)
		self.assertIn("gpushare-cgpu-device-plugin-ds-moved", out)


if __name__ == "__main__":
	unittest.main()
