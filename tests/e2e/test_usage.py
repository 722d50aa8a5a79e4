"""GPU memory in use beside the allocation, from a real Prometheus scraping exporter fixtures.

One Prometheus (Debian's package) runs on loopback for the whole file, scraping fixtures/metrics/usage (shaped
like the DCGM exporter and Alibaba Cloud's GPU exporter) and fixtures/metrics/hami (HAMi's vGPU monitor); the
fake API server proxies /api/v1/namespaces/monitoring/services/prometheus-server:9090/proxy/ to it.
"""

import json
import os
import re
import shutil
import tempfile
import time
import unittest

from harness import FakeAPI, Prometheus, plugin_path, prometheus_available, run_plugin

MIB = 1 << 20
SVC = "--prometheus=monitoring/prometheus-server:9090"
PROXY = "/api/v1/namespaces/monitoring/services/prometheus-server:9090/proxy/api/v1/query"


def warnings(stderr):
	return [l for l in stderr.splitlines() if l.startswith("Warning:")]


def rows(stdout):
	return [l.split() for l in stdout.splitlines()]


@unittest.skipUnless(plugin_path(), "the plugin is not built")
@unittest.skipUnless(prometheus_available(), "prometheus is not installed (tests/setup-debian.sh)")
class UsageTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		cls.prom = Prometheus(["usage", "hami"]).start()
		cls.api = FakeAPI("usage").start()
		cls.hami = FakeAPI("hami").start()
		for api in (cls.api, cls.hami):
			api.control("POST", "/_fake/services", {"namespace": "monitoring", "name": "prometheus-server",
				"port": "9090", "url": cls.prom.url})

	@classmethod
	def tearDownClass(cls):
		cls.hami.stop()
		cls.api.stop()
		cls.prom.stop()

	def setUp(self):
		self.api.control("DELETE", "/_fake/faults")
		self.api.clear_requests()
		self.t0 = time.time()

	def proxied(self):
		"""The queries this test sent through the service proxy (a delayed one of an earlier test is logged
		when it ends)."""
		return [q for q in self.api.requests() if q["path"] == PROXY and q["time"] >= self.t0]

	def run_usage(self, *args, api=None, env=None):
		api = api or self.api
		return run_plugin(["--kubeconfig", api.kubeconfig] + list(args), env=env)

	def usage_ok(self, *args, **kw):
		r = self.run_usage(*args, **kw)
		self.assertEqual(r.returncode, 0, r.stderr)
		return r

	def one_warning(self, r, want):
		"""The one warning r printed, which says want."""
		w = warnings(r.stderr)
		self.assertEqual(len(w), 1, r.stderr)
		self.assertIn(want, w[0])
		return w[0]

	def gpu_row(self, out, node, gpu):
		for r in rows(out):
			if len(r) > 2 and r[0] == node and r[1] == str(gpu):
				return r
		self.fail("no row for %s GPU %s in:\n%s" % (node, gpu, out))

	# -- the figures -------------------------------------------------------------------------------------

	def test_usage_through_the_service_proxy(self):
		r = self.usage_ok("usage", SVC)
		self.assertEqual(warnings(r.stderr), [])
		self.assertEqual(rows(r.stdout)[0], ["NODE", "GPU", "ALLOCATED", "USED", "TOTAL", "UTIL", "PODS"])
		# the guide's two 3-GiB pods: 6386 MiB on a 16160-MiB card
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.167", 0),
			["cn-hangzhou.192.168.2.167", "0", "8", "GiB", "6.2", "GiB", "15.8", "GiB", "35%", "2"])
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.168", 0)[2:7], ["4", "GiB", "6.0", "GiB", "15.8"])
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.169", 0)[2:6], ["1/1", "slots", "3.4", "GiB"])
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.170", 1)[2:9],
			["0", "GiB", "2.0", "GiB", "15.8", "GiB", "97%"])
		self.assertIn("OverUse (1)", r.stdout)
		self.assertIn("pod default/app-6g-v1-0 on node cn-hangzhou.192.168.2.168 uses 6.0 GiB of GPU memory, 4.0 GiB "
			"allocated; memory isolation is off", r.stdout)
		self.assertIn("Idle (2)", r.stdout)
		self.assertIn("pod whole/app-3g-v1-0 on node cn-hangzhou.192.168.2.169 uses at most 3.4 of its 15.8 GiB",
			r.stdout)
		self.assertIn("pod ml/notebook-0 on node cn-hangzhou.192.168.2.170 uses at most 0.5 of its 8.0 GiB", r.stdout)
		self.assertIn("Unaccounted (1)", r.stdout)
		self.assertIn("node cn-hangzhou.192.168.2.170 GPU 1: 2.0 GiB of GPU memory in use with nothing allocated",
			r.stdout)
		# a fixed number of queries, through the proxy, with the kubeconfig's credentials
		reqs = self.proxied()
		self.assertEqual(len(reqs), 7)
		self.assertTrue(all(q["status"] == 200 and q["user"] == "admin" for q in reqs), reqs)
		self.assertTrue(any("max_over_time(DCGM_FI_DEV_FB_USED[5m])" in q["query"]["query"] for q in reqs))

	def test_memory_without_gpu_index_has_its_own_row(self):
		with open(os.path.join(os.environ.get("FIXTURES_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
				"fixtures")), "scenarios", "usage", "pods.json")) as f:
			pod = json.load(f)["items"][0]
		pod = json.loads(json.dumps(pod))
		pod["metadata"]["name"] = "no-index-0"
		pod["metadata"].pop("uid", None)
		pod["metadata"].pop("resourceVersion", None)
		pod["metadata"].pop("managedFields", None)
		for k in ("ALIYUN_COM_GPU_MEM_IDX", "ALIYUN_COM_GPU_MEM_ASSIGNED", "ALIYUN_COM_GPU_MEM_ASSUME_TIME"):
			pod["metadata"]["annotations"].pop(k, None)
		pod.setdefault("kind", "Pod")
		pod.setdefault("apiVersion", "v1")
		self.api.put_object(pod)
		try:
			node = "cn-hangzhou.192.168.2.167"
			r = self.usage_ok("usage", SVC, node)
			mine = [x for x in rows(r.stdout) if x and x[0] == node]
			# the GPUs' rows and the row of memory held without an index add up to the node's allocation
			self.assertEqual(mine[-1][:7], [node, "-", "4", "GiB", "-", "-", "-"])
			self.assertIn(mine[-1][7], ("1", "-"), "its pod counted, or - where not every pod was kept")
			d = [x for x in rows(self.usage_ok("usage", SVC, node, "-d").stdout) if x and x[0] == node and x[1] == "-"]
			self.assertEqual(d, [[node, "-", "4", "GiB", "-", "-", "-", "1"]])
			j = json.loads(self.usage_ok("usage", SVC, node, "-o", "json").stdout)
			total = j["nodes"][0]["memory"]["allocated"]
			self.assertEqual(sum(int(x[2]) for x in mine), total)
		finally:
			self.api.delete_object("pods", "default", "no-index-0")

	def test_details_per_pod(self):
		r = self.usage_ok("usage", "-d", SVC, "--window=10m")
		pods = {(x[0], x[1]): x for x in rows(r.stdout) if len(x) >= 7 and x[0] in ("default", "whole", "ml")}
		self.assertEqual(pods[("default", "app-3g-v1-0")][3:], ["0", "4", "GiB", "3.1", "GiB"])
		self.assertEqual(pods[("default", "app-6g-v1-0")][3:], ["0", "4", "GiB", "6.0", "GiB"])
		self.assertEqual(pods[("whole", "app-3g-v1-0")][3:], ["-", "1", "GPU", "3.4", "GiB"])
		self.assertEqual(pods[("ml", "notebook-0")][3:], ["0", "8", "GiB", "0.5", "GiB"])
		self.assertTrue(any("[10m]" in q["query"]["query"] for q in self.proxied()))

	def test_json_and_yaml(self):
		r = self.usage_ok("usage", SVC, "-o", "json")
		d = json.loads(r.stdout)
		nodes = {n["name"]: n for n in d["nodes"]}
		g = nodes["cn-hangzhou.192.168.2.167"]["gpus"][0]["usage"]
		self.assertEqual(g, {"usedBytes": 6386 * MIB, "totalBytes": 16160 * MIB, "utilizationPercent": 35.0})
		self.assertEqual(nodes["cn-hangzhou.192.168.2.170"]["usage"], {"usedBytes": 2560 * MIB, "gpusKnown": 2})
		pods = {(p["namespace"], p["name"]): p for p in d["pods"]}
		self.assertEqual(pods[("default", "app-6g-v1-0")]["usage"], {"usedBytes": 6144 * MIB})
		self.assertEqual(pods[("whole", "app-3g-v1-0")]["usage"], {"usedBytes": 3482 * MIB})
		self.assertEqual(d["usage"]["gpusKnown"], 5)
		self.assertEqual(d["usage"]["gpusUnknown"], 0)
		self.assertEqual(sorted((f["code"], f["object"]) for f in d["usage"]["findings"]), [
			("Idle", "pod/ml/notebook-0"), ("Idle", "pod/whole/app-3g-v1-0"), ("OverUse", "pod/default/app-6g-v1-0"),
			("Unaccounted", "node/cn-hangzhou.192.168.2.170")])
		y = self.run_usage("usage", SVC, "-o", "yaml")
		self.assertEqual(y.returncode, 0, y.stderr)
		self.assertIn("usedBytes: %d" % (6386 * MIB), y.stdout)
		self.assertIn("code: OverUse", y.stdout)

	def test_direct_url_and_environment(self):
		r = self.usage_ok("usage", "--prometheus-url=" + self.prom.url)
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.168", 0)[4], "6.0")
		self.assertEqual(self.proxied(), [])
		r = self.usage_ok("usage", env={"CGPU_PROMETHEUS_URL": self.prom.url})
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.167", 0)[4], "6.2")
		r = self.usage_ok("usage", env={"CGPU_PROMETHEUS": "monitoring/prometheus-server:9090"})
		self.assertEqual(len(self.proxied()), 7)
		# a bearer token is never sent over plain http to another host than the API server
		with tempfile.NamedTemporaryFile("w", suffix=".token") as tok:
			tok.write("not-a-real-token\n")
			tok.flush()
			r = self.run_usage("usage", "--prometheus-url=" + self.prom.url, "--prometheus-token-file=" + tok.name)
		self.assertEqual(r.returncode, 1)
		self.assertIn("refusing to send credentials over plain http", r.stderr)
		self.assertIn("NODE", r.stdout)

	def test_usage_flags_refused(self):
		for args, msg in [
			(["usage"], "no usage source"),
			(["usage", SVC, "--prometheus-url=http://127.0.0.1:1"], "cannot be used together"),
			(["usage", "--prometheus=prometheus"], "want NAMESPACE/SERVICE[:PORT]"),
			(["usage", SVC, "--window=5"], "--window"),
			(["usage", SVC, "--prometheus-labels=rack=x"], "invalid label mapping"),
			(["usage", SVC, "--idle-below=200"], "--idle-below"),
			(["usage", SVC, "-o", "wide"], "allowed formats are: json,yaml"),
		]:
			r = self.run_usage(*args)
			self.assertEqual(r.returncode, 1, (args, r.stderr))
			self.assertIn(msg, r.stderr)

	# -- choosing nodes ------------------------------------------------------------------------------

	def node_rows(self, r):
		"""The nodes of usage's table, each once, in order."""
		names = []
		for x in rows(r.stdout):
			if x and x[0].startswith("cn-hangzhou.") and x[0] not in names:
				names.append(x[0])
		return names

	def node_list_selector(self):
		lists = [q for q in self.api.requests() if q["path"] == "/api/v1/nodes" and q["time"] >= self.t0]
		self.assertEqual(len(lists), 1, lists)
		return (lists[0].get("query") or {}).get("labelSelector")

	def test_nodes_chosen_as_by_every_command(self):
		"""usage takes -l, --pool and --scheme as the other commands do."""
		r = self.usage_ok("usage", SVC, "-l", "cgpu=true")
		self.assertEqual(self.node_rows(r), ["cn-hangzhou.192.168.2.167", "cn-hangzhou.192.168.2.170"])
		self.assertEqual(self.node_list_selector(), "cgpu=true")
		# a pool given as KEY=VALUE, and the usage of the pods there only
		self.t0 = time.time()
		r = self.usage_ok("usage", "-d", SVC, "--pool", "gpushare=true")
		self.assertEqual(self.node_rows(r), ["cn-hangzhou.192.168.2.168"])
		self.assertIn("default    app-6g-v1-0", r.stdout)
		self.assertNotIn("app-3g-v1-0", r.stdout)
		self.assertEqual(self.node_list_selector(), "gpushare=true")
		# a pool by name is the node-pool label, and a node must match -l too
		self.t0 = time.time()
		r = self.usage_ok("usage", SVC, "-l", "cgpu=true", "--pool", "np-gpu")
		self.assertEqual(self.node_rows(r), [])
		self.assertEqual(self.node_list_selector(), "cgpu=true,alibabacloud.com/nodepool-id=np-gpu")
		# one scheme's nodes: the whole GPU, in slots, with its memory in use
		r = self.usage_ok("usage", SVC, "--scheme", "nvidia", "-o", "json")
		d = json.loads(r.stdout)
		self.assertEqual([n["name"] for n in d["nodes"]], ["cn-hangzhou.192.168.2.169"])
		self.assertEqual(d["nodes"][0]["gpus"][0]["usage"]["usedBytes"], 3482 * MIB)
		r = self.usage_ok("usage", SVC, "--scheme", "cgpu")
		self.assertEqual(self.node_rows(r), ["cn-hangzhou.192.168.2.167", "cn-hangzhou.192.168.2.168",
			"cn-hangzhou.192.168.2.170"])

	def test_unit_sort_and_no_headers_as_inspect(self):
		"""usage takes --unit, --sort-by and --no-headers as the default command does."""
		plain = self.usage_ok("usage", SVC)
		r = self.usage_ok("usage", SVC, "--unit", "mib")
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.167", 0)[2:4], ["8192", "MiB"])
		want = self.usage_ok("usage", SVC, "-o", "json", "--unit", "MiB")
		by_free = sorted(json.loads(want.stdout)["nodes"], key=lambda n: (-n["memory"]["free"], n["name"]))
		r = self.usage_ok("usage", SVC, "--sort-by", "Free")
		self.assertEqual(self.node_rows(r), [n["name"] for n in by_free])
		self.assertNotEqual(self.node_rows(r), self.node_rows(plain))
		r = self.usage_ok("usage", SVC, "--no-headers", "-d")
		self.assertNotIn("NODE", r.stdout)
		self.assertNotIn("NAMESPACE", r.stdout)
		self.assertNotIn("OverUse", r.stdout)
		self.assertNotIn("\n\n", r.stdout)
		gpu_lines = [x for x in rows(r.stdout) if x[0].startswith("cn-hangzhou.")]
		self.assertEqual(gpu_lines, [x for x in rows(plain.stdout) if x and x[0].startswith("cn-hangzhou.")])
		r = self.run_usage("usage", SVC, "--sort-by", "size")
		self.assertEqual(r.returncode, 1)
		self.assertIn('invalid argument "size" for "--sort-by" flag', r.stderr)

	def test_node_selection_refused(self):
		for args, msg in [
			(["usage", SVC, "--scheme", "mig"], 'invalid argument "mig" for "--scheme" flag: must be cgpu, cce, '
				"volcano-vgpu, hami, dra or nvidia"),
			(["usage", SVC, "cn-hangzhou.192.168.2.167", "--pool", "np-gpu"],
				"name cannot be provided when a selector is specified"),
			(["usage", SVC, "--pool", "a=b=c"], 'invalid --pool "a=b=c"'),
		]:
			r = self.run_usage(*args)
			self.assertEqual(r.returncode, 1, (args, r.stderr))
			self.assertIn(msg, r.stderr)

	def test_wide_has_used_column(self):
		r = self.usage_ok("-o", "wide", SVC)
		lines = [re.split(r"\s{2,}", l) for l in r.stdout.splitlines()]
		head = lines[0]
		self.assertIn("USED(GiB)", head)
		col = head.index("USED(GiB)")
		self.assertEqual(head[col - 1], "GPU Memory(GiB)")
		row = next(l for l in lines if l[0] == "cn-hangzhou.192.168.2.167")
		self.assertEqual(row[col], "6.2")
		row = next(l for l in lines if l[0] == "cn-hangzhou.192.168.2.170")
		self.assertEqual(row[col], "2.5")
		# the whole-GPU node's table counts slots, and memory in use in GiB
		self.assertIn("USED(GiB)", r.stdout.split("\n\n")[1])
		# without a source, -o wide is as before
		r = self.run_usage("-o", "wide")
		self.assertNotIn("USED", r.stdout)
		# and JSON carries the figures
		r = self.run_usage("-o", "json", SVC)
		self.assertEqual(json.loads(r.stdout)["usage"]["gpusKnown"], 5)

	def test_hami_vgpu_metrics(self):
		r = self.usage_ok("usage", "-d", SVC, api=self.hami)
		pods = {(x[0], x[1]): x for x in rows(r.stdout) if len(x) >= 7 and x[0] in ("ml", "dev")}
		self.assertEqual(pods[("ml", "llm-infer-0")][4:], ["10000", "MiB", "7000", "MiB"])
		self.assertEqual(pods[("ml", "trainer-0")][4:], ["40000", "MiB", "2000", "MiB"])
		self.assertEqual(pods[("dev", "batch-0")][4:], ["6000", "MiB", "7000", "MiB"])
		self.assertEqual(self.gpu_row(r.stdout, "hami-gpu-1", 0)[4:], ["8000", "MiB", "40960", "MiB", "41%", "2"])
		self.assertIn("pod dev/batch-0 on node hami-gpu-2 uses 7000 MiB of GPU memory, 6000 MiB allocated", r.stdout)
		self.assertIn("pod ml/trainer-0 on node hami-gpu-1 uses at most 2000 of its 40000 MiB", r.stdout)
		# the device plugin's limits: batch-0's add up to 7000 MiB, the others' to their allocation
		mismatch = "pod dev/batch-0 on node hami-gpu-2: the device plugin limits it to 7000 MiB of GPU memory, 6000 MiB allocated"
		self.assertIn("LimitMismatch (1): a device limit other than the allocation\n  " + mismatch, r.stdout)
		# without -d the pods the answers name are still there for their findings
		r = self.usage_ok("usage", SVC, api=self.hami)
		self.assertIn(mismatch, r.stdout)
		self.assertIn("pod dev/batch-0 on node hami-gpu-2 uses 7000 MiB of GPU memory, 6000 MiB allocated", r.stdout)
		self.assertNotIn("NAMESPACE", r.stdout)

	def test_label_override(self):
		r = self.usage_ok("usage", SVC, "--prometheus-labels=node=kubernetes_node")
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.169", 0)[4], "3.4")
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.167", 0)[4], "unknown")
		self.one_warning(r, "GPU memory in use is unknown for 4 of 5 GPUs")

	@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")
	def test_top_shows_used(self):
		from test_top import Pane
		pane = Pane(self.api, [SVC, "cn-hangzhou.192.168.2.167", "cn-hangzhou.192.168.2.168"], cols=120, lines=30)
		try:
			screen = pane.wait_for(lambda s: "6.2" in s and "6.0" in s, 15, "memory in use in the list")
			head = next(l for l in screen.splitlines() if "USED" in l)
			self.assertLess(head.index("MEMORY"), head.index("USED"))
			row = next(l for l in screen.splitlines() if l.startswith("cn-hangzhou.192.168.2.167"))
			# USED follows MEMORY (STATUS and MAXFREE/GPU come after the allocation figures)
			self.assertRegex(row, r" 8/15 +6\.2 +53% ", screen)
			pane.keys("Enter")
			screen = pane.wait_text("used [", 10)
			self.assertIn("6.2/15.8 GiB", screen)
			self.assertIn("util 35%", screen)
		finally:
			pane.keys("q")
			pane.close()

	# -- bad sources: the allocation is always shown, with one warning ------------------------------------

	def check_bad(self, source_args, want, usage_rc=1, **kw):
		r = self.run_usage("usage", *source_args, **kw)
		self.assertEqual(r.returncode, usage_rc, r.stderr)
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.167", 0)[2:5], ["8", "GiB", "unknown"])
		w = self.one_warning(r, want)
		r = self.usage_ok("-o", "wide", *source_args, **kw)
		self.assertIn("8/15", r.stdout)
		self.assertIn("unknown", r.stdout)
		self.assertEqual(len(warnings(r.stderr)), 1, r.stderr)
		return w

	def test_unreachable(self):
		import socket
		s = socket.socket()
		s.bind(("127.0.0.1", 0))
		port = s.getsockname()[1]
		s.close()
		self.check_bad(["--prometheus-url=http://127.0.0.1:%d" % port], "refused")

	def test_service_missing(self):
		self.check_bad(["--prometheus=monitoring/absent:9090"], "404")

	def test_server_error(self):
		self.api.fault({"path_prefix": "/api/v1/namespaces/monitoring/services/"}, {"type": "status", "code": 500},
			times=0)
		self.check_bad([SVC], "500")

	def test_slow(self):
		self.api.fault({"path_prefix": "/api/v1/namespaces/monitoring/services/"}, {"type": "delay", "seconds": 4},
			times=0)
		t = time.monotonic()
		self.check_bad([SVC, "--request-timeout=1s"], "GPU memory in use is unknown")
		self.assertLess(time.monotonic() - t, 7)

	def test_malformed(self):
		self.api.fault({"path_prefix": "/api/v1/namespaces/monitoring/services/"}, {"type": "malformed"}, times=0)
		self.check_bad([SVC], "not JSON")

	def test_partial_answers(self):
		# one query refused: the memory figures stand, utilisation is unknown, one warning
		self.api.fault({"path_prefix": "/api/v1/namespaces/monitoring/services/", "query_contains": "GPU_UTIL"},
			{"type": "status", "code": 400}, times=0)
		r = self.usage_ok("usage", SVC)
		self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.167", 0)[4:9], ["6.2", "GiB", "15.8", "GiB", "-"])
		self.one_warning(r, "some usage figures are unknown")

	def test_gpus_without_metrics(self):
		with open(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "scenarios", "usage",
				"nodes.json"), encoding="utf-8") as f:
			node = json.load(f)["items"][0]
		node = json.loads(json.dumps(node).replace("192.168.2.167", "192.168.2.199"))
		node.update(kind="Node", apiVersion="v1")
		del node["metadata"]["uid"], node["metadata"]["resourceVersion"]
		self.api.put_object(node)
		try:
			r = self.usage_ok("usage", SVC)
			self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.199", 0)[4], "unknown")
			self.assertEqual(self.gpu_row(r.stdout, "cn-hangzhou.192.168.2.167", 0)[4], "6.2")
			self.one_warning(r, "unknown for 1 of 6 GPUs (node cn-hangzhou.192.168.2.199)")
		finally:
			self.api.delete_object("nodes", None, "cn-hangzhou.192.168.2.199")


@unittest.skipUnless(plugin_path(), "the plugin is not built")
@unittest.skipUnless(prometheus_available(), "prometheus is not installed (tests/setup-debian.sh)")
class DRAUsageTest(unittest.TestCase):
	"""DCGM series labelled with a DRA claim and device (fixtures/metrics/dra) matched to the devices and claims
	of the dra-whole, dra-timeslicing and dra-mig scenarios."""

	@classmethod
	def setUpClass(cls):
		cls.prom = Prometheus(["dra"]).start()
		cls.apis = {sc: FakeAPI(sc).start() for sc in ("dra-whole", "dra-timeslicing", "dra-mig")}
		for api in cls.apis.values():
			api.control("POST", "/_fake/services", {"namespace": "monitoring", "name": "prometheus-server",
				"port": "9090", "url": cls.prom.url})

	@classmethod
	def tearDownClass(cls):
		for api in cls.apis.values():
			api.stop()
		cls.prom.stop()

	def usage(self, scenario, *args):
		r = run_plugin(["--kubeconfig", self.apis[scenario].kubeconfig, "usage", SVC] + list(args))
		self.assertEqual(r.returncode, 0, r.stderr)
		return r

	def test_devices_and_one_pod_claims(self):
		r = self.usage("dra-whole")
		g = {(x[0], x[1]): x for x in rows(r.stdout) if len(x) >= 10 and x[0].startswith("dra-a100-")}
		# matched by device name, not by the exporter's GPU index or UUID
		self.assertEqual(g[("dra-a100-1", "0")][2:6], ["81920", "MiB", "60000", "MiB"])
		self.assertEqual(g[("dra-a100-2", "1")][2:6], ["81920", "MiB", "20000", "MiB"])
		self.assertEqual(g[("dra-a100-2", "2")][2:6], ["0", "MiB", "1024", "MiB"])
		self.assertIn("pod ml/train-1 on node dra-a100-1 uses at most 10000 of its 81920 MiB", r.stdout)
		self.assertIn("node dra-a100-2 GPU 2: 1024 MiB of GPU memory in use with nothing allocated", r.stdout)
		# infer-0's claim is its own: judged as a pod (50000 of 163840 MiB), not per GPU
		self.assertNotIn("node dra-a100-2 GPU 1", r.stdout)
		pods = {(p["namespace"], p["name"]): p for p in json.loads(self.usage("dra-whole", "-o", "json").stdout)["pods"]}
		# through the claim alone (no pod label): the sum over the claim's two GPUs
		self.assertEqual(pods[("serving", "infer-0")]["usage"], {"usedBytes": 50000 * MIB})
		self.assertEqual(pods[("ml", "train-0")]["usage"], {"usedBytes": 60000 * MIB})
		d = {(x[0], x[1]): x for x in rows(self.usage("dra-whole", "-d").stdout) if x and x[0] in ("ml", "serving")}
		self.assertEqual(d[("serving", "infer-0")][3:], ["0,1", "163840", "MiB", "50000", "MiB"])

	def test_claim_shared_by_pods_is_the_gpus(self):
		r = self.usage("dra-timeslicing", "-d")
		self.assertEqual(self.row(r.stdout, "dra-ts-1", "0")[2:7], ["81559", "MiB", "12000", "MiB", "81559"])
		# three pods share the claim: no pod has a figure of its own, the GPU is judged as one
		for name in ("notebook-0", "notebook-1", "notebook-2"):
			self.assertEqual(self.row(r.stdout, "research", name)[-1], "unknown")
		self.assertIn("node dra-ts-1 GPU 0: the pods use at most 12000 of the 81559 MiB allocated", r.stdout)
		self.assertNotIn("pod research/", r.stdout)
		d = json.loads(self.usage("dra-timeslicing", "-o", "json").stdout)
		self.assertEqual([p["usage"] for p in d["pods"]], [{"usedBytes": None}] * 3)
		self.assertEqual([(f["code"], f["object"]) for f in d["usage"]["findings"]], [("Idle", "node/dra-ts-1")])

	def test_mig_devices_by_their_instances(self):
		r = self.usage("dra-mig", "-d")
		# the GPU's own series (copied for each claim), not its instances'
		self.assertEqual(self.row(r.stdout, "dra-mig-1", "0")[2:6], ["29696", "MiB", "20000", "MiB"])
		pods = {p["name"]: p for p in json.loads(self.usage("dra-mig", "-o", "json").stdout)["pods"]}
		# the only 3g.20gb instance is the only 3g.20gb device's, judged against its 19968 MiB
		self.assertEqual(pods["mig-large-0"]["usage"], {"usedBytes": 15000 * MIB})
		# two 1g.5gb instances and two such devices: which is which, the exporter does not say
		self.assertEqual(pods["mig-small-0"]["usage"], {"usedBytes": None})
		self.assertEqual(pods["mig-small-1"]["usage"], {"usedBytes": None})

	def row(self, out, first, second):
		for x in rows(out):
			if len(x) > 2 and x[0] == first and x[1] == second:
				return x
		self.fail("no row %s %s in:\n%s" % (first, second, out))


if __name__ == "__main__":
	unittest.main()
