"""Writes under faults: mode's label patches and restart's pod deletions through the fault-injecting proxy
(tests/faultproxy), on the fake API server and, in the real tier, a real one.  For each fault (the connection
dropped before the server sees a write or after it has done it, 503 with Retry-After, a request held until the
request timeout) the report (the document, stdout and stderr) is compared object by object with what the server
holds, and the command is run again to see it converge."""

import json
import subprocess
import time
import unittest
import urllib.parse

from harness import ProxiedCase, plugin_path, reaped, run_plugin, wait_for

# pools-pro, in the order mode writes them: two nodes in mode cgpu, two in mode share
NODES = ["cn-shanghai.192.168.7.157", "cn-shanghai.192.168.7.158", "cn-shanghai.192.168.7.159",
	"cn-shanghai.192.168.7.160"]
THIRD = NODES[2]
MODE_KEY = "ack.node.gpu.schedule"
DS = "gpushare-device-plugin-ds"  # opensource, on gpu-node-1 and gpu-node-2


class WriteCase(ProxiedCase):
	"""The plugin run through the class's proxy, a held request ending at request_timeout."""

	request_timeout = "2s"  # where a held request ends

	def run_proxied(self, *args, timeout=60):
		t0 = time.monotonic()
		r = run_plugin(list(args) + ["--request-timeout=" + self.request_timeout, "--kubeconfig",
			self.proxy.kubeconfig], timeout=timeout)
		r.seconds = time.monotonic() - t0
		return r

	def proxied(self, method, path):
		"""The proxy's log entries of method on exactly path."""
		return [e for e in self.proxy.log() if e["method"] == method and e["path"] == path]

	def served(self, method):
		"""The requests of method the server itself received (none of the proxy's answers)."""
		return [r for r in self.api.requests() if r["method"] == method]

	def again(self, *args):
		"""Runs args once more, against a clean request log.  The faults fired on their nth request and meet
		none now; they are not disarmed, which would send a request still held on to the server, late."""
		self.api.clear_requests()
		return self.run_proxied(*args)


@unittest.skipIf(plugin_path() is None, "the plugin is not built")
class ModeFaults(WriteCase):
	"""mode core on the four nodes of pools-pro: four patches, the third one faulted."""

	scenario = "pools-pro"
	ARGS = ("mode", "core", "-l", MODE_KEY, "--yes", "-o", "json")

	def mode_of(self, node):
		status, _, body = self.api.call("GET", "/api/v1/nodes/" + node)
		self.assertEqual(status, 200)
		return body["metadata"].get("labels", {}).get(MODE_KEY)

	def run_mode(self):
		r = self.run_proxied(*self.ARGS)
		doc = json.loads(r.stdout)
		self.assertEqual([n["name"] for n in doc["nodes"]], NODES)
		return r, doc

	def assert_matches_cluster(self, doc, results):
		"""Each node's result is the one expected, and the server holds what it says: labelled as planned
		where done (or done in fact, for an unknown outcome), as before where not."""
		self.assertEqual({n["name"]: n["result"] for n in doc["nodes"]}, results)
		for n in doc["nodes"]:
			have = self.mode_of(n["name"])
			if n["result"] == "changed":
				self.assertNotIn(have, (n["labelsBefore"][MODE_KEY], n["labelsAfter"][MODE_KEY]), n)
				continue
			want = n["labelsAfter"] if n["result"] in ("labeled", "unknown") else n["labelsBefore"]
			self.assertEqual(have, want[MODE_KEY], n)
		counts = {"done": 0, "failed": 0, "unknown": 0, "notAttempted": 0}
		for res in results.values():
			counts[{"labeled": "done", "notDone": "failed", "changed": "failed"}.get(res, res)] += 1
		self.assertEqual(doc["summary"], counts)

	def assert_converges(self, already_done):
		"""A rerun without faults changes the rest, and sends nothing for the nodes already in the mode."""
		r = self.again(*self.ARGS)
		self.assertEqual(r.returncode, 0, r.stderr)
		doc = json.loads(r.stdout)
		self.assertEqual({n["result"] for n in doc["nodes"]} - {"labeled", "unchanged"}, set())
		for node in NODES:
			self.assertEqual(self.mode_of(node), "core_mem")
		patched = sorted(p["path"].rsplit("/", 1)[1] for p in self.served("PATCH"))
		self.assertEqual(patched, [n for n in NODES if n not in already_done])

	def test_dropped_before_the_server_sees_it(self):
		self.proxy.arm("drop_before", methods="writes", path="^/api/v1/nodes/", nth=3)
		r, doc = self.run_mode()
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assert_matches_cluster(doc, {NODES[0]: "labeled", NODES[1]: "labeled", THIRD: "notDone",
			NODES[3]: "notAttempted"})
		self.assertTrue(doc["nodes"][2]["answerLost"])
		self.assertIn("node/%s: not done: the request was sent and its answer lost" % THIRD, r.stderr)
		self.assertIn("read again, the labels are as before", r.stderr)
		self.assertIn("Of 4 nodes: 2 done, 1 failed, 0 unknown, 1 not attempted\n", r.stderr)
		# no write after the one that failed, and that one sent once
		self.assertEqual(len(self.proxied("PATCH", "/api/v1/nodes/" + THIRD)), 1)
		self.assertEqual(self.proxied("PATCH", "/api/v1/nodes/" + NODES[3]), [])
		self.assertEqual(len(self.served("PATCH")), 2)
		self.assert_converges(NODES[:2])

	def test_dropped_after_the_server_did_it(self):
		self.proxy.arm("drop_after", methods="writes", path="^/api/v1/nodes/", nth=3)
		r = self.run_proxied(*self.ARGS[:-2])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("node/%s labeled (confirmed after a lost answer)\n" % THIRD, r.stdout)
		for node in NODES:
			self.assertEqual(self.mode_of(node), "core_mem")
		self.assertEqual(len(self.proxied("PATCH", "/api/v1/nodes/" + THIRD)), 1)  # not sent again
		self.assertEqual(len(self.served("PATCH")), 4)
		self.assert_converges(NODES)

	def test_dropped_after_and_the_node_cannot_be_read(self):
		self.proxy.arm("drop_after", methods="writes", path="^/api/v1/nodes/", nth=3)
		self.proxy.arm("status", methods=["GET"], path="^/api/v1/nodes/%s$" % THIRD.replace(".", r"\."), code=500,
			retry_after=None)
		r, doc = self.run_mode()
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assert_matches_cluster(doc, {NODES[0]: "labeled", NODES[1]: "labeled", THIRD: "unknown",
			NODES[3]: "notAttempted"})
		self.assertEqual([ln for ln in r.stderr.splitlines() if THIRD in ln],
			["node/%s: %s" % (THIRD, doc["nodes"][2]["error"])])
		self.assertIn("outcome unknown: the request was sent and its answer lost", r.stderr)
		self.assertIn("; check with: kubectl get node %s --show-labels\n" % THIRD, r.stderr)
		self.assertIn("Of 4 nodes: 2 done, 0 failed, 1 unknown, 1 not attempted\n", r.stderr)
		self.assert_converges(NODES[:3])

	def test_changed_by_someone_else_while_the_answer_was_held(self):
		self.proxy.arm("hang", methods="writes", path="^/api/v1/nodes/", nth=3, forward=True)
		self.request_timeout = "5s"  # room for the change to land before the plugin gives up waiting
		cmd = [plugin_path()] + list(self.ARGS) + ["--request-timeout=" + self.request_timeout, "--kubeconfig",
			self.proxy.kubeconfig]
		with reaped(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
				env={"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "PATH": "/usr/bin:/bin"})) as proc:
			# the patch is done and its answer held: someone else changes the node meanwhile
			self.assertTrue(wait_for(lambda: any(e["fault"] == "hang" and e["status"] == 200
				for e in self.proxy.log()), 20))
			status, _, _ = self.api.call("PATCH", "/api/v1/nodes/" + THIRD, {"metadata": {"labels": {
				MODE_KEY: "default"}}}, headers={"Content-Type": "application/merge-patch+json"})
			self.assertEqual(status, 200)
			out, err = proc.communicate(timeout=30)
		self.assertEqual(proc.returncode, 1, err)
		doc = json.loads(out)
		self.assert_matches_cluster(doc, {NODES[0]: "labeled", NODES[1]: "labeled", THIRD: "changed",
			NODES[3]: "notAttempted"})
		self.assertEqual(self.mode_of(THIRD), "default")
		self.assertIn("node/%s: changed by someone else: the request was sent and its answer lost" % THIRD, err)
		self.assertIn("the labels are neither as before nor as planned", err)
		self.assert_converges(NODES[:2])

	def test_503_with_retry_after_is_retried(self):
		self.proxy.arm("status", methods="writes", path="^/api/v1/nodes/", nth=3, times=2, retry_after=1)
		self.request_timeout = "10s"  # room for two waits of a second
		r, doc = self.run_mode()
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertGreaterEqual(r.seconds, 2.0)
		self.assert_matches_cluster(doc, {n: "labeled" for n in NODES})
		self.assertEqual([e["status"] for e in self.proxied("PATCH", "/api/v1/nodes/" + THIRD)], [503, 503, 200])
		self.assertEqual(len(self.served("PATCH")), 4)
		self.assert_converges(NODES)

	def test_held_until_the_request_timeout(self):
		for forward, result in ((False, "notDone"), (True, "labeled")):
			with self.subTest(forward=forward):
				self.api.reset()
				self.proxy.reset()
				self.proxy.arm("hang", methods="writes", path="^/api/v1/nodes/", nth=3, forward=forward)
				r, doc = self.run_mode()
				self.assertLess(r.seconds, 20)
				self.assertEqual(r.returncode, 0 if forward else 1, r.stderr)
				if not forward:
					self.assertIn("Client.Timeout", doc["nodes"][2]["error"])
				self.assert_matches_cluster(doc, {NODES[0]: "labeled", NODES[1]: "labeled", THIRD: result,
					NODES[3]: "labeled" if forward else "notAttempted"})
				self.assertTrue(doc["nodes"][2]["answerLost"])
				self.assert_converges(NODES if forward else NODES[:2])


@unittest.skipIf(plugin_path() is None, "the plugin is not built")
class RestartFaults(WriteCase):
	"""restart on gpu-node-1 and gpu-node-2 of opensource: the first delete faulted."""

	scenario = "opensource"
	options = {"ds_ready_delay": 0.5}
	ARGS = ("restart", "gpu-node-1", "gpu-node-2", "--timeout=30s", "--yes")

	def live_plugin_pods(self, node):
		"""The node's plugin pods that are not being deleted."""
		q = urllib.parse.urlencode({"labelSelector": "name=" + DS, "fieldSelector": "spec.nodeName=" + node})
		status, _, body = self.api.call("GET", "/api/v1/namespaces/kube-system/pods?" + q)
		self.assertEqual(status, 200)
		return [p for p in body["items"] if not p["metadata"].get("deletionTimestamp")]

	def plugin_pod(self, node):
		"""The node's plugin pod (the one not being deleted): name, uid."""
		live = self.live_plugin_pods(node)
		self.assertEqual(len(live), 1, live)
		return live[0]["metadata"]["name"], live[0]["metadata"]["uid"]

	def pod_state(self, name, uid):
		"""What became of pod name of uid: "gone" (absent, replaced or being deleted) or "there"."""
		status, _, body = self.api.call("GET", "/api/v1/namespaces/kube-system/pods/" + name)
		if status == 404 or body["metadata"]["uid"] != uid or body["metadata"].get("deletionTimestamp"):
			return "gone"
		return "there"

	def run_restart(self, *extra):
		self.before = {n: self.plugin_pod(n) for n in ("gpu-node-1", "gpu-node-2")}
		return self.run_proxied(*(self.ARGS + extra))

	def delete_path(self, node):
		return "/api/v1/namespaces/kube-system/pods/" + self.before[node][0]

	def assert_report(self, doc, results):
		"""The RestartResult says results node by node, and the server agrees: a node restarted has lost the
		pod it had and runs the new one named; a node failed or not attempted still has its pod."""
		self.assertEqual((doc["apiVersion"], doc["kind"]), ("inspect-cgpu.kubectl.io/v1", "RestartResult"))
		self.assertEqual({n["name"]: n["result"] for n in doc["nodes"]}, results)
		for n in doc["nodes"]:
			state = self.pod_state(*self.before[n["name"]])
			if n["result"] == "restarted":
				self.assertEqual(state, "gone", n)
				self.assertEqual([p["metadata"]["name"] for p in self.live_plugin_pods(n["name"])], [n["newPod"]])
			elif n["result"] in ("failed", "notAttempted"):
				self.assertEqual(state, "there", n)
			if n["result"] != "notAttempted":
				self.assertEqual(n["oldPod"], self.before[n["name"]][0])
		counts = {"done": 0, "failed": 0, "unknown": 0, "notAttempted": 0}
		for res in results.values():
			counts[{"restarted": "done"}.get(res, res)] += 1
		self.assertEqual(doc["summary"], counts)

	def assert_pods(self, states):
		for node, want in states.items():
			self.assertEqual(self.pod_state(*self.before[node]), want, node)

	def assert_converges(self):
		"""Once the DaemonSet has a pod on each node again (a pod deleted without anyone waiting for its
		replacement comes back on its own), a rerun restarts the plugin on both."""
		for node in ("gpu-node-1", "gpu-node-2"):
			self.assertTrue(wait_for(lambda: len(self.live_plugin_pods(node)) == 1, 30), node)
		r = self.again(*self.ARGS)
		self.assertEqual(r.returncode, 0, r.stderr)
		for node in ("gpu-node-1", "gpu-node-2"):
			self.assertRegex(r.stdout, "node/%s: restarted " % node)

	def test_dropped_before_the_server_sees_it(self):
		self.proxy.arm("drop_before", methods="writes", nth=1)
		r = self.run_restart("-o", "json")
		self.assertEqual(r.returncode, 1, r.stderr)
		doc = json.loads(r.stdout)
		self.assert_report(doc, {"gpu-node-1": "failed", "gpu-node-2": "notAttempted"})
		self.assertTrue(doc["nodes"][0]["answerLost"])
		self.assert_pods({"gpu-node-1": "there", "gpu-node-2": "there"})
		self.assertIn("node/gpu-node-1: delete of pod kube-system/%s: not done: " % self.before["gpu-node-1"][0],
			r.stderr)
		self.assertIn("read again, the pod is as before", r.stderr)
		self.assertIn("Failed (1): node/gpu-node-1\n", r.stderr)
		self.assertIn("Not tried (1): node/gpu-node-2\n", r.stderr)
		self.assertIn("Of 2 nodes: 0 done, 1 failed, 0 unknown, 1 not attempted\n", r.stderr)
		self.assertEqual(len(self.proxied("DELETE", self.delete_path("gpu-node-1"))), 1)
		self.assertEqual(self.served("DELETE"), [])
		self.assert_converges()

	def test_dropped_after_the_server_did_it(self):
		self.proxy.arm("drop_after", methods="writes", nth=1)
		r = self.run_restart()
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("node/gpu-node-1: deleted pod kube-system/%s (confirmed after a lost answer), waiting"
			% self.before["gpu-node-1"][0], r.stdout)
		self.assertRegex(r.stdout, "node/gpu-node-1: restarted .* in [0-9.]+s")
		self.assertRegex(r.stdout, "node/gpu-node-2: restarted ")
		self.assert_pods({"gpu-node-1": "gone", "gpu-node-2": "gone"})
		self.assertEqual(len(self.proxied("DELETE", self.delete_path("gpu-node-1"))), 1)  # not sent again
		self.assert_converges()

	def test_dropped_after_and_the_pod_cannot_be_read_stops_even_past_errors(self):
		self.proxy.arm("drop_after", methods="writes", nth=1)
		r = self.run_restart_unreadable("--continue-on-error", "-o", "yaml")
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertTrue(r.stdout.startswith("apiVersion: inspect-cgpu.kubectl.io/v1\nkind: RestartResult\n"), r.stdout)
		self.assertIn("  result: unknown\n", r.stdout)
		self.assertIn("  result: notAttempted\n", r.stdout)
		self.assert_pods({"gpu-node-1": "gone", "gpu-node-2": "there"})
		name, uid = self.before["gpu-node-1"]
		[line] = [ln for ln in r.stderr.splitlines() if ln.startswith("node/gpu-node-1:")]
		self.assertTrue(line.startswith("node/gpu-node-1: delete of pod kube-system/%s: outcome unknown: the request "
			"was sent and its answer lost" % name), line)
		self.assertIn("check with: kubectl get pod %s -n kube-system" % name, line)
		self.assertIn(uid, line)
		self.assertIn("Unknown (1): node/gpu-node-1\n", r.stderr)
		self.assertIn("Not tried (1): node/gpu-node-2\n", r.stderr)
		self.assertIn("Of 2 nodes: 0 done, 0 failed, 1 unknown, 1 not attempted\n", r.stderr)
		self.assertEqual(self.proxied("DELETE", self.delete_path("gpu-node-2")), [])
		self.assert_converges()

	def run_restart_unreadable(self, *extra):
		"""run_restart with the first node's plugin pod unreadable (500) once, on its own path."""
		name = self.plugin_pod("gpu-node-1")[0]
		self.proxy.arm("status", methods=["GET"], path="^/api/v1/namespaces/kube-system/pods/%s$" % name, code=500,
			retry_after=None)
		return self.run_restart(*extra)

	def test_503_with_retry_after_is_retried(self):
		self.proxy.arm("status", methods="writes", nth=1, times=2, retry_after=1)
		self.request_timeout = "10s"  # room for two waits of a second
		r = self.run_restart("-o", "json")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertGreaterEqual(r.seconds, 2.0)
		self.assert_report(json.loads(r.stdout), {"gpu-node-1": "restarted", "gpu-node-2": "restarted"})
		self.assertEqual([e["status"] for e in self.proxied("DELETE", self.delete_path("gpu-node-1"))],
			[503, 503, 200])
		self.assertEqual(len(self.served("DELETE")), 2)
		self.assert_pods({"gpu-node-1": "gone", "gpu-node-2": "gone"})
		self.assert_converges()

	def test_held_until_the_request_timeout(self):
		self.proxy.arm("hang", methods="writes", nth=1)
		r = self.run_restart("-o", "json")
		self.assertLess(r.seconds, 20)
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assert_report(json.loads(r.stdout), {"gpu-node-1": "failed", "gpu-node-2": "notAttempted"})
		self.assertIn("Client.Timeout", r.stderr)
		self.assertIn("read again, the pod is as before", r.stderr)
		self.assert_pods({"gpu-node-1": "there", "gpu-node-2": "there"})
		self.assertIn("Of 2 nodes: 0 done, 1 failed, 0 unknown, 1 not attempted\n", r.stderr)
		self.assert_converges()


if __name__ == "__main__":
	unittest.main()
