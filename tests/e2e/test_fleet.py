"""Several clusters at once (--context a,b,c, --all-contexts): inspect's sections, CLUSTER column and
FleetReport over several fake API servers, with a dead, a forbidden and an exec-plugin context, each
failing or answering on its own."""

import json
import os
import shutil
import sys
import tempfile
import time
import unittest

from harness import (ROOT, SCENARIOS, APIServer, FakeAPI, Prometheus, backend, plugin_path, prometheus_available,
		     run_plugin)
from test_inspect import load_schema, schema_errors

HERE = os.path.dirname(os.path.abspath(__file__))
FLEET_SCHEMA = os.path.join(HERE, "fleet.schema.json")
FAKE_PLUGIN = os.path.join(ROOT, "fixtures", "kubeconfig", "exec", "fake-credential-plugin.py")
ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}
REFUSED = "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"


def dead_port():
	"""A loopback port nobody listens on (bound, then closed)."""
	import socket
	s = socket.socket()
	s.bind(("127.0.0.1", 0))
	port = s.getsockname()[1]
	s.close()
	return port


def errors(r):
	return [l for l in r.stderr.splitlines() if l.startswith("error: ")]


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class Fleet(unittest.TestCase):
	"""train and infer are two servers; staging is refused; locked has a user who may not list nodes;
	sso gets its token from an exec plugin; hung is a server that accepts but never answers."""
	maxDiff = None

	@classmethod
	def setUpClass(cls):
		cls.train = FakeAPI("multi-gpu").start()
		cls.infer = FakeAPI("published-two-nodes").start()
		cls.dir = tempfile.mkdtemp(prefix="cgpu-fleet-")
		import socket
		cls.hung = socket.socket()
		cls.hung.bind(("127.0.0.1", 0))
		cls.hung.listen(8)
		hung_port = cls.hung.getsockname()[1]
		clusters = [
			{"name": "train", "cluster": {"server": cls.train.url, "certificate-authority": cls.train.ca}},
			{"name": "infer", "cluster": {"server": cls.infer.url, "certificate-authority": cls.infer.ca}},
			{"name": "staging", "cluster": {"server": "https://127.0.0.1:1", "certificate-authority": cls.train.ca}},
			{"name": "hung", "cluster": {"server": "https://127.0.0.1:%d" % hung_port,
						     "certificate-authority": cls.train.ca}},
		]
		users = [
			{"name": "train", "user": {"token": cls.train.tokens["admin-token"]}},
			{"name": "infer", "user": {"token": cls.infer.tokens["admin-token"]}},
			{"name": "nobody", "user": {"token": cls.train.tokens["nobody"]}},
			{"name": "sso", "user": {"exec": {
				"apiVersion": "client.authentication.k8s.io/v1", "command": FAKE_PLUGIN,
				"interactiveMode": "Never",
				"env": [{"name": "FAKE_MODE", "value": "env-token"},
					{"name": "FAKE_TOKEN", "value": cls.infer.tokens["admin-token"]}]}}},
		]
		contexts = [
			{"name": "train", "context": {"cluster": "train", "user": "train"}},
			{"name": "infer", "context": {"cluster": "infer", "user": "infer"}},
			{"name": "staging", "context": {"cluster": "staging", "user": "train"}},
			{"name": "locked", "context": {"cluster": "train", "user": "nobody"}},
			{"name": "sso", "context": {"cluster": "infer", "user": "sso"}},
			{"name": "hung", "context": {"cluster": "hung", "user": "train"}},
		]
		cls.kubeconfig = os.path.join(cls.dir, "kubeconfig")
		with open(cls.kubeconfig, "w") as f:
			json.dump({"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users,
				   "contexts": contexts, "current-context": "train"}, f)

	@classmethod
	def tearDownClass(cls):
		cls.hung.close()
		cls.train.stop()
		cls.infer.stop()
		shutil.rmtree(cls.dir, ignore_errors=True)

	def plugin(self, *args, **kw):
		env = dict(ENV, HOME=self.dir)
		return run_plugin(["--kubeconfig", self.kubeconfig] + list(args), env=env, **kw)

	def single(self, context, *args):
		r = self.plugin("--context", context, *args)
		self.assertEqual(r.returncode, 0, r.stderr)
		return r.stdout

	def test_summary_sections_are_each_cluster_as_alone(self):
		r = self.plugin("--context", "train,infer")
		self.assertEqual(r.returncode, 0, r.stderr)
		want = "Cluster: train\n" + self.single("train") + "\nCluster: infer\n" + self.single("infer")
		self.assertEqual(r.stdout, want)

	def test_one_context_is_todays_output(self):
		self.assertEqual(self.plugin("--context", "infer").stdout, self.plugin("--context", "infer", "--context",
											  "infer").stdout)
		r = self.plugin("--context", "infer", "-o", "json")
		self.assertEqual(json.loads(r.stdout)["kind"], "GPUShareReport")

	def test_details_sections(self):
		r = self.plugin("--context", "infer,train", "-d")
		self.assertEqual(r.returncode, 0, r.stderr)
		want = "Cluster: infer\n" + self.single("infer", "-d") + "\nCluster: train\n" + self.single("train", "-d")
		self.assertEqual(r.stdout, want)

	def test_wide_has_a_cluster_column(self):
		r = self.plugin("--context", "train,infer", "-o", "wide")
		self.assertEqual(r.returncode, 0, r.stderr)
		lines = r.stdout.splitlines()
		heads = [l for l in lines if l.startswith("CLUSTER  NAME ")]
		self.assertEqual(len(heads), 2, r.stdout)
		rows = [l for l in lines if l.startswith("train    ") or l.startswith("infer    ")]
		train_alone = [l for l in self.single("train", "-o", "wide").splitlines() if l.startswith("gpu-")]
		self.assertEqual(len([l for l in rows if l.startswith("train")]), len(train_alone))
		for l in rows:
			self.assertRegex(l, r"^(train|infer)    \S")

	def test_by_namespace_one_table_with_cluster_column(self):
		r = self.plugin("--context", "train,infer", "--by", "namespace")
		self.assertEqual(r.returncode, 0, r.stderr)
		table = r.stdout[r.stdout.index("CLUSTER"):].splitlines()
		self.assertRegex(table[0], r"^CLUSTER  NAMESPACE\s+UNIT\s+NODES")
		clusters = {l.split()[0] for l in table[1:]}
		self.assertEqual(clusters, {"train", "infer"})
		alone = self.single("train", "--by", "namespace")
		alone_rows = alone[alone.index("NAMESPACE"):].splitlines()[1:]
		self.assertEqual([l.split() for l in table[1:] if l.startswith("train")],
				 [["train"] + l.split() for l in alone_rows])

	def fleet_json(self, *args, rc=0):
		r = self.plugin(*args, "-o", "json")
		self.assertEqual(r.returncode, rc, r.stderr)
		doc = json.loads(r.stdout)
		with open(FLEET_SCHEMA) as f:
			self.assertEqual(schema_errors(json.load(f), doc), [])
		report_schema = load_schema()
		for c in doc["clusters"]:
			if c["report"] is not None:
				self.assertEqual(schema_errors(report_schema, c["report"]), [], c["context"])
		return doc, r

	def test_json_fleet_report(self):
		doc, _ = self.fleet_json("--context", "train,infer")
		self.assertEqual(doc["kind"], "FleetReport")
		self.assertEqual([c["context"] for c in doc["clusters"]], ["train", "infer"])
		alone = json.loads(self.single("train", "-o", "json"))
		self.assertEqual(doc["clusters"][0]["report"], alone)
		self.assertIsNone(doc["clusters"][0]["error"])

	def test_yaml_fleet_report(self):
		r = self.plugin("--context", "train,infer", "-o", "yaml")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertTrue(r.stdout.startswith("apiVersion: inspect-cgpu.kubectl.io/v1\nkind: FleetReport\nclusters:\n"),
				r.stdout[:200])
		self.assertIn("- context: infer\n", r.stdout)

	def test_dead_context_fails_alone(self):
		r = self.plugin("--context", "train,staging,infer")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(errors(r), ['error: context "staging": ' + REFUSED])
		self.assertIn('Warning: context "train": node gpu-8x: ', r.stderr)
		self.assertEqual(r.stdout, "Cluster: train\n" + self.single("train") + "\nCluster: infer\n" +
				 self.single("infer"))

	def test_failed_first_context_leaves_no_blank_line(self):
		r = self.plugin("--context", "staging,train")
		self.assertEqual(r.stdout, "Cluster: train\n" + self.single("train"))
		r = self.plugin("--context", "staging,train", "-o", "wide")
		self.assertTrue(r.stdout.startswith("CLUSTER "), r.stdout[:100])

	def test_ignore_unreachable(self):
		r = self.plugin("--context", "train,staging", "--ignore-unreachable")
		self.assertEqual(r.returncode, 0)
		self.assertIn('error: context "staging": ' + REFUSED, r.stderr)
		r = self.plugin("--context", "staging,locked", "--ignore-unreachable")
		self.assertEqual(r.returncode, 1, "no cluster answered")

	def test_forbidden_context_in_kubectl_words(self):
		doc, r = self.fleet_json("--context", "locked,train", rc=1)
		err = doc["clusters"][0]["error"]
		self.assertIsNone(doc["clusters"][0]["report"])
		self.assertEqual((err["reason"], err["code"]), ("Forbidden", 403))
		self.assertTrue(err["message"].startswith("Error from server (Forbidden): "), err)
		self.assertIn('error: context "locked": Error from server (Forbidden): ', r.stderr)
		self.assertIsNotNone(doc["clusters"][1]["report"])

	def test_exec_plugin_context(self):
		r = self.plugin("--context", "sso,train")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout, "Cluster: sso\n" + self.single("infer") + "\nCluster: train\n" +
				 self.single("train"))

	def test_all_contexts_sorted_and_request_timeout_bounds_a_hung_cluster(self):
		t0 = time.monotonic()
		doc, r = self.fleet_json("--all-contexts", "--request-timeout", "2s", rc=1)
		took = time.monotonic() - t0
		self.assertEqual([c["context"] for c in doc["clusters"]],
				 ["hung", "infer", "locked", "sso", "staging", "train"])
		failed = sorted(c["context"] for c in doc["clusters"] if c["error"])
		self.assertEqual(failed, ["hung", "locked", "staging"])
		self.assertLess(took, 10, "a hung cluster held the fleet back")
		self.assertEqual(len(errors(r)), 3, r.stderr)

	def test_fit_best_cluster_first_with_a_cluster_column(self):
		r = self.plugin("fit", "--memory", "4", "--context", "infer,train")
		self.assertEqual(r.returncode, 0, r.stderr)
		lines = r.stdout.splitlines()
		self.assertRegex(lines[1], r"^CLUSTER\s+NODE\s+GPUS\s+FREE AFTER\s+SCHEME\s+POOL$")
		rows = lines[2:lines.index(next(l for l in lines if l.startswith("Fits on")))]
		# train's best place leaves 3 GiB, infer's 5 GiB: train first, each cluster's places as alone
		self.assertEqual([l.split()[0] for l in rows], ["train"] * 3 + ["infer"] * 2)
		alone = self.plugin("--context", "train", "fit", "--memory", "4").stdout.splitlines()
		self.assertEqual([l.split()[1:] for l in rows[:3]], [l.split() for l in alone[2:5]])
		self.assertIn("Fits on 5 of 6 nodes, in 2 of 2 clusters.", lines)
		self.assertIn("  train: 1 node: no GPU with 4 GiB free (largest free on one GPU: 0 GiB)", lines)

	def test_fit_exit_status_across_the_fleet(self):
		self.assertEqual(self.plugin("fit", "--memory", "400Gi", "--context", "train,infer").returncode, 3)
		r = self.plugin("fit", "--memory", "4", "--context", "train,staging")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(errors(r), ['error: context "staging": ' + REFUSED])
		r = self.plugin("fit", "--memory", "4", "--context", "train,staging", "--ignore-unreachable")
		self.assertEqual(r.returncode, 0, r.stderr)
		r = self.plugin("fit", "ml/some-pod", "--context", "train,infer")
		self.assertEqual(r.returncode, 1)

	def test_fit_json_fleet_answer(self):
		r = self.plugin("fit", "--memory", "4", "--context", "infer,staging,train", "-o", "json")
		self.assertEqual(r.returncode, 1, r.stderr)
		doc = json.loads(r.stdout)
		with open(FLEET_SCHEMA) as f:
			self.assertEqual(schema_errors(json.load(f), doc), [])
		self.assertEqual(doc["kind"], "FleetFitAnswer")
		self.assertEqual([c["context"] for c in doc["clusters"]], ["train", "infer", "staging"])
		alone = json.loads(self.plugin("--context", "train", "fit", "--memory", "4", "-o", "json").stdout)
		self.assertEqual(doc["clusters"][0]["report"], alone)
		self.assertIsNone(doc["clusters"][2]["report"])

	def node_rows(self, frame, prefix=""):
		"""The node rows of a top frame: name and the figures right of the bars."""
		lines = frame.split("\n\n")[0].splitlines()
		head = next(i for i, l in enumerate(lines) if l.startswith(prefix + "NODE "))
		return [l.split()[:1 + bool(prefix)] + l.split()[-6:] for l in lines[head + 1:] if l.strip()]

	def test_top_once_one_frame_of_the_fleet(self):
		r = self.plugin("top", "--once", "-v=8", "--context", "train,staging,sso,locked")
		self.assertEqual(r.returncode, 1)
		# as for one context, the client's log stays off the screen: only the errors
		self.assertEqual(r.stderr.splitlines(), errors(r))
		self.assertEqual(errors(r)[0], 'error: context "staging": ' + REFUSED)
		self.assertTrue(errors(r)[1].startswith('error: context "locked": Error from server (Forbidden): '), r.stderr)
		lines = r.stdout.splitlines()
		self.assertEqual(lines[0], "cgpu top  4 clusters  sort name  by cluster")
		self.assertTrue(lines[1].endswith(" 73/248 GiB (29%)  nodes 6  GPUs 17  pods 13  pending 2"), lines[1])
		self.assertEqual([l[:10] for l in lines[2:6]], ["  train   ", "  staging ", "  sso     ", "  locked  "])
		self.assertEqual(lines[3], "  staging error: " + REFUSED)
		self.assertIn("] 9/30 GiB (30%)  nodes 2  GPUs 2  pods 3  pending 0", lines[4])
		# each cluster's rows are what that context alone shows
		rows = self.node_rows(r.stdout, "CLUSTER ")
		want = [["train"] + x for x in self.node_rows(self.single("train", "top", "--once"))]
		want += [["sso"] + x for x in self.node_rows(self.single("sso", "top", "--once"))]
		self.assertEqual(rows, want)

	def test_hung_clusters_are_waited_for_together(self):
		# four contexts on the server that never answers: each is asked
		# everything at once, so the fleet waits one --request-timeout, not four
		with open(self.kubeconfig) as f:
			cfg = json.load(f)
		cfg["contexts"] += [{"name": n, "context": {"cluster": "hung", "user": "train"}} for n in ("hung-b", "hung-c", "hung-d")]
		path = os.path.join(self.dir, "kubeconfig-hung")
		with open(path, "w") as f:
			json.dump(cfg, f)
		for args in ([], ["top", "--once"]):
			with self.subTest(args=args):
				t0 = time.monotonic()
				r = run_plugin(["--kubeconfig", path] + args + ["--context", "train,hung,hung-b,hung-c,hung-d",
						"--request-timeout", "2s"], env=dict(ENV, HOME=self.dir))
				took = time.monotonic() - t0
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertEqual(len(errors(r)), 4, r.stderr)
				self.assertLess(took, 5.5, "the hung clusters were waited for one after another")

	def test_top_once_bounds_a_hung_cluster(self):
		t0 = time.monotonic()
		r = self.plugin("top", "--once", "--all-contexts", "--request-timeout", "2s", "--ignore-unreachable")
		self.assertLess(time.monotonic() - t0, 10, "a hung cluster held the fleet back")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(sorted({l.split()[0] for l in r.stdout.splitlines()[7:] if l.startswith(("infer ", "sso ", "train "))}),
				 ["infer", "sso", "train"])
		self.assertEqual(sorted(l.split('"')[1] for l in errors(r)), ["hung", "locked", "staging"])

	def test_top_prometheus_url_names_one_prometheus(self):
		r = self.plugin("top", "--once", "--prometheus-url", "http://127.0.0.1:1", "--context", "train,infer")
		self.assertEqual(r.returncode, 1)
		self.assertIn("--prometheus-url names one Prometheus", r.stderr)

	def complete(self, *words):
		r = run_plugin(["__complete", "--kubeconfig", self.kubeconfig] + list(words), env=dict(ENV, HOME=self.dir))
		self.assertEqual(r.returncode, 0, r.stderr)
		return r.stdout.splitlines()[:-1]

	def test_completion_of_the_list_form(self):
		self.assertEqual(self.complete("--context", "train,infer,s"), ["train,infer,sso", "train,infer,staging"])
		self.assertEqual(self.complete("--context=infer,t"), ["--context=infer,train"])
		self.assertIn("train,hung", self.complete("--context", "train,"))
		self.assertNotIn("train,train", self.complete("--context", "train,"))
		# one cluster's node names mean nothing to a fleet
		self.assertIn("gpu-2x", self.complete("--context", "train", ""))
		self.assertNotIn("gpu-2x", self.complete("--all-contexts", ""))
		self.assertNotIn("gpu-2x", self.complete("--context", "train,infer", ""))

	def slow_plugin_kubeconfig(self, seconds, names):
		"""A kubeconfig whose contexts names[i] reach infer with a token from a plugin that takes seconds[i]."""
		plugin = os.path.join(self.dir, "slow-plugin")
		with open(plugin, "w") as f:
			f.write("#!%s\nimport json, os, time\ntime.sleep(float(os.environ['SLOW_SECONDS']))\n"
				"print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', 'kind': 'ExecCredential',"
				" 'status': {'token': os.environ['SLOW_TOKEN']}}))\n" % sys.executable)
		os.chmod(plugin, 0o755)
		users = [{"name": n, "user": {"exec": {
			"apiVersion": "client.authentication.k8s.io/v1", "command": plugin, "interactiveMode": "Never",
			"env": [{"name": "SLOW_SECONDS", "value": str(sec)},
				{"name": "SLOW_TOKEN", "value": self.infer.tokens["admin-token"]}]}}} for n, sec in zip(names, seconds)]
		contexts = [{"name": n, "context": {"cluster": "infer", "user": n}} for n in names]
		path = os.path.join(self.dir, "kubeconfig-slow")
		with open(path, "w") as f:
			json.dump({"apiVersion": "v1", "kind": "Config", "users": users, "contexts": contexts,
				   "clusters": [{"name": "infer", "cluster": {"server": self.infer.url,
									      "certificate-authority": self.infer.ca}}]}, f)
		return path

	def test_exec_plugins_run_at_once_each_under_its_own_limit(self):
		names = ["p1", "p2", "p3", "stuck"]
		path = self.slow_plugin_kubeconfig([1.5, 1.5, 1.5, 30], names)
		t0 = time.monotonic()
		r = run_plugin(["--kubeconfig", path, "--all-contexts"], env=dict(ENV, HOME=self.dir, KUBE_EXEC_TIMEOUT="3"))
		took = time.monotonic() - t0
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stdout.count("Allocated/Total GPU Memory In Cluster"), 3, r.stdout)
		self.assertEqual(errors(r), ['error: context "stuck": Unable to connect to the server: getting credentials: '
					     'exec: executable %s timed out '
					     'after 3 seconds' % os.path.join(self.dir, "slow-plugin")])
		# one after the other: 4.5 s of plugins and the 3 s limit
		self.assertLess(took, 6, "the plugins ran one after the other")

	def test_list_pieces_empty_and_repeated(self):
		r = self.plugin("--context", "train,,train,")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout, "Cluster: train\n" + self.single("train"))
		r = self.plugin("--context", ",")
		self.assertEqual(r.returncode, 1)
		self.assertIn('error: --context "," names no context', r.stderr)
		r = self.plugin("--context", "train,nope")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(errors(r), ['error: context "nope": Error in configuration: context was not found for '
					     'specified context: nope'])

	def test_usage_errors(self):
		r = self.plugin("--context", "train", "--all-contexts")
		self.assertEqual(r.returncode, 1)
		self.assertIn("--context and --all-contexts cannot be combined", r.stderr)
		r = self.plugin("mode", "share", "gpu-2x", "--context", "train,infer")
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertIn("acts on one cluster", r.stderr)

	def test_escaped_context_name(self):
		bad = "evil\x1b[2Jname"
		with open(self.kubeconfig) as f:
			cfg = json.load(f)
		cfg["contexts"].append({"name": bad, "context": {"cluster": "train", "user": "train"}})
		path = os.path.join(self.dir, "kubeconfig-escape")
		with open(path, "w") as f:
			json.dump(cfg, f)
		r = run_plugin(["--kubeconfig", path, "--context", bad + ",staging"], env=dict(ENV, HOME=self.dir))
		self.assertIn("Cluster: evil\\x1b[2Jname\n", r.stdout)
		self.assertNotIn("\x1b", r.stdout + r.stderr)


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")
class FleetTop(unittest.TestCase):
	"""top's live view of train and infer (two servers), staging (refused) and locked (forbidden), in a tmux
	pane."""
	maxDiff = None

	@classmethod
	def setUpClass(cls):
		cls.train = FakeAPI("multi-gpu").start()
		cls.infer = FakeAPI("published-two-nodes").start()
		cls.dir = tempfile.mkdtemp(prefix="cgpu-fleet-top-")
		clusters = [{"name": n, "cluster": {"server": a.url, "certificate-authority": a.ca}}
			    for n, a in (("train", cls.train), ("infer", cls.infer))]
		clusters.append({"name": "staging", "cluster": {"server": "https://127.0.0.1:1",
								"certificate-authority": cls.train.ca}})
		users = [{"name": n, "user": {"token": a.tokens["admin-token"]}} for n, a in (("train", cls.train),
											("infer", cls.infer))]
		users.append({"name": "nobody", "user": {"token": cls.train.tokens["nobody"]}})
		contexts = [{"name": n, "context": {"cluster": n, "user": n}} for n in ("train", "infer")]
		contexts += [{"name": "staging", "context": {"cluster": "staging", "user": "train"}},
			     {"name": "locked", "context": {"cluster": "train", "user": "nobody"}}]
		cls.kubeconfig = os.path.join(cls.dir, "kubeconfig")
		with open(cls.kubeconfig, "w") as f:
			json.dump({"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users,
				   "contexts": contexts, "current-context": "train"}, f)

	@classmethod
	def tearDownClass(cls):
		cls.train.stop()
		cls.infer.stop()
		shutil.rmtree(cls.dir, ignore_errors=True)

	def pane(self, *args, lines=30):
		from test_top import Pane  # pylint: disable=import-outside-toplevel
		p = Pane(self, args=args, cols=160, lines=lines, env={"HOME": self.dir})
		self.addCleanup(p.close)
		return p

	def test_a_cluster_column_each_clusters_line_and_events_on_one(self):
		from test_top import pod  # pylint: disable=import-outside-toplevel
		p = self.pane("--context", "train,infer,staging,locked")
		s = p.wait_for(lambda s: "  infer   [" in s and "  locked  error" in s, what="every cluster's line")
		self.assertIn("cgpu top  4 clusters  sort name  by cluster", s)
		self.assertIn("73/248 GiB (29%)  nodes 6  GPUs 17  pods 13", s)
		self.assertRegex(s, r"\n  train   \[\|+ *\] 64/218 GiB \(29%\)  nodes 4")
		self.assertIn("\n  staging error: " + REFUSED, s)
		# the node and pod lists run on connections of their own: the first refused is named
		self.assertRegex(s, r"\n  locked  error: Error from server \(Forbidden\): (nodes|pods) is forbidden: "
				 r"User \"nobody\" cannot list")
		self.assertRegex(s, r"\nCLUSTER NODE +GPUS")
		rows = [l for l in s.splitlines() if l.startswith(("train ", "infer "))]
		self.assertEqual([l.split()[:2] for l in rows], [["train", "gpu-2x"], ["train", "gpu-4x"], ["train", "gpu-8x"],
								  ["train", "gpu-zero"],
								  ["infer", "cn-shanghai.i-uf61h64dz1tmlob9hmtb"],
								  ["infer", "cn-shanghai.i-uf61h64dz1tmlob9hmtc"]])
		# an event on infer changes infer's row and figures only
		self.infer.put_object(pod("fresh-pod-0", "cn-shanghai.i-uf61h64dz1tmlob9hmtc", 3, 0))
		s = p.wait_text("76/248 GiB")
		self.assertIn("12/30 GiB (40%)", s)
		self.assertRegex(s, r"\ninfer +cn-shanghai.i-uf61h64dz1tmlob9hmtc .* 6/15 +40% +2 ")
		self.assertEqual([l for l in s.splitlines() if l.startswith("train ")], rows[:4])
		# the filter picks a cluster; c lists the fleet as one
		p.keys("/", "cluster=infer", "Enter")
		s = p.wait_text("filter cluster=infer (2 of 6 nodes)")
		self.assertFalse([l for l in s.splitlines() if l.startswith("train ")], s)
		p.keys("Escape", "c")
		s = p.wait_for(lambda s: "by cluster" not in s and "filter" not in s, what="one list")
		names = [l.split()[1] for l in s.splitlines() if l.startswith(("train ", "infer "))]
		self.assertEqual(names, sorted(names))
		p.keys("q")
		self.assertEqual(p.wait_exit(), 1)
		s = p.wait_text("MARK-AFTER-TOP")
		self.assertIn('error: context "staging": ' + REFUSED, s)


class SecondRealServer:
	"""A second real control plane (no controllers) with a scenario loaded: url, ca, tokens."""

	def __init__(self, scenario):
		self.scenario = os.path.join(SCENARIOS, scenario)
		self.cluster = None

	def start(self):
		import envtest  # pylint: disable=import-outside-toplevel  (found through harness's path)
		self.cluster = envtest.Cluster(controllers=False, audit=False).start()
		envtest.load_scenario(self.cluster, self.scenario)
		self.url, self.ca, self.tokens = self.cluster.url, self.cluster.ca, dict(self.cluster.tokens)
		return self

	def stop(self):
		if self.cluster:
			self.cluster.stop()
			self.cluster = None


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class FleetBoth(unittest.TestCase):
	"""Two API servers of either tier: with CGPU_BACKEND=real two real control planes, each answering for
	itself, and a dead third context."""
	maxDiff = None

	@classmethod
	def setUpClass(cls):
		cls.one = APIServer("multi-gpu").start()
		cls.two = (SecondRealServer if backend() == "real" else FakeAPI)("published-two-nodes").start()
		cls.dir = tempfile.mkdtemp(prefix="cgpu-fleet-both-")
		clusters = [{"name": n, "cluster": {"server": api.url, "certificate-authority": api.ca}}
			    for n, api in (("east", cls.one), ("west", cls.two))]
		clusters.append({"name": "gone", "cluster": {"server": "https://127.0.0.1:1", "certificate-authority": cls.one.ca}})
		users = [{"name": n, "user": {"token": api.tokens["admin-token"]}} for n, api in (("east", cls.one), ("west", cls.two))]
		contexts = [{"name": n, "context": {"cluster": n, "user": n}} for n in ("east", "west")]
		contexts.append({"name": "gone", "context": {"cluster": "gone", "user": "east"}})
		cls.kubeconfig = os.path.join(cls.dir, "kubeconfig")
		with open(cls.kubeconfig, "w") as f:
			json.dump({"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users,
				   "contexts": contexts, "current-context": "east"}, f)

	@classmethod
	def tearDownClass(cls):
		cls.two.stop()
		cls.one.stop()
		shutil.rmtree(cls.dir, ignore_errors=True)

	def plugin(self, *args):
		return run_plugin(["--kubeconfig", self.kubeconfig] + list(args), env=dict(ENV, HOME=self.dir))

	def alone(self, context, *args):
		r = self.plugin("--context", context, *args)
		self.assertEqual(r.returncode, 0, r.stderr)
		return r.stdout

	def test_sections_and_a_dead_context(self):
		r = self.plugin("--context", "west,gone,east", "-d")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(errors(r), ['error: context "gone": ' + REFUSED])
		self.assertEqual(r.stdout, "Cluster: west\n" + self.alone("west", "-d") + "\nCluster: east\n" +
				 self.alone("east", "-d"))

	def test_fleet_report_and_fit(self):
		r = self.plugin("--all-contexts", "--ignore-unreachable", "-o", "json")
		self.assertEqual(r.returncode, 0, r.stderr)
		doc = json.loads(r.stdout)
		self.assertEqual([c["context"] for c in doc["clusters"]], ["east", "gone", "west"])
		self.assertEqual(doc["clusters"][2]["report"], json.loads(self.alone("west", "-o", "json")))
		r = self.plugin("fit", "--memory", "4", "--context", "west,east")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual([l.split()[0] for l in r.stdout.splitlines()[2:7]], ["east"] * 3 + ["west"] * 2)

	def test_defrag_each_cluster_as_alone(self):
		ask = ("defrag", "--memory", "4", "--scheme", "cgpu")
		r = self.plugin(*ask, "--context", "west,gone,east")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(errors(r), ['error: context "gone": ' + REFUSED])
		# both fit without moves: by name
		self.assertEqual(r.stdout, "Cluster: east\n" + self.alone("east", *ask) + "\nCluster: west\n" +
				 self.alone("west", *ask))
		self.assertIn("The request fits now: nothing to move.", self.alone("west", *ask))

	def test_top_once_each_clusters_rows_as_alone(self):
		r = self.plugin("top", "--once", "--context", "west,gone,east")
		self.assertEqual(r.returncode, 1)
		self.assertEqual(errors(r), ['error: context "gone": ' + REFUSED])
		self.assertIn("\n  gone error: " + REFUSED + "\n", r.stdout)
		rows = Fleet.node_rows(self, r.stdout, "CLUSTER ")
		want = [[c] + x for c in ("west", "east") for x in Fleet.node_rows(self, self.alone(c, "top", "--once"))]
		self.assertEqual(rows, want)


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
@unittest.skipUnless(prometheus_available(), "prometheus is not installed (tests/setup-debian.sh)")
class FleetUsage(unittest.TestCase):
	"""usage over two clusters, each with the same Prometheus service behind its API server's proxy."""
	maxDiff = None
	SVC = "--prometheus=monitoring/prometheus-server:9090"

	@classmethod
	def setUpClass(cls):
		cls.prom = Prometheus(["usage", "hami"]).start()
		cls.a = FakeAPI("usage").start()
		cls.b = FakeAPI("hami").start()
		for api in (cls.a, cls.b):
			api.control("POST", "/_fake/services", {"namespace": "monitoring", "name": "prometheus-server",
				"port": "9090", "url": cls.prom.url})
		cls.dir = tempfile.mkdtemp(prefix="cgpu-fleet-usage-")
		clusters = [{"name": n, "cluster": {"server": api.url, "certificate-authority": api.ca}}
			    for n, api in (("a", cls.a), ("b", cls.b))]
		clusters.append({"name": "dead", "cluster": {"server": "https://127.0.0.1:1", "certificate-authority": cls.a.ca}})
		users = [{"name": n, "user": {"token": api.tokens["admin-token"]}} for n, api in (("a", cls.a), ("b", cls.b))]
		contexts = [{"name": n, "context": {"cluster": n, "user": n}} for n in ("a", "b")]
		contexts.append({"name": "dead", "context": {"cluster": "dead", "user": "a"}})
		cls.kubeconfig = os.path.join(cls.dir, "kubeconfig")
		with open(cls.kubeconfig, "w") as f:
			json.dump({"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users,
				   "contexts": contexts, "current-context": "a"}, f)

	@classmethod
	def tearDownClass(cls):
		cls.a.stop()
		cls.b.stop()
		cls.prom.stop()
		shutil.rmtree(cls.dir, ignore_errors=True)

	def plugin(self, *args):
		return run_plugin(["--kubeconfig", self.kubeconfig, "usage", self.SVC] + list(args), env=dict(ENV, HOME=self.dir))

	def test_cluster_column_and_each_cluster_as_alone(self):
		r = self.plugin("--context", "b,a")
		self.assertEqual(r.returncode, 0, r.stderr)
		lines = r.stdout.splitlines()
		self.assertRegex(lines[0], r"^CLUSTER  NODE\s+GPU\s+ALLOCATED\s+USED\s+TOTAL\s+UTIL\s+PODS$")
		for ctx in ("a", "b"):
			alone = self.plugin("--context", ctx).stdout.splitlines()
			ours = [l.split()[1:] for l in lines if l.startswith(ctx + "        ")]
			want = [l.split() for l in alone if l and not l.startswith("NODE") and not l.startswith(" ") and
				len(l.split()) >= 7 and not l.split()[0].endswith(":") and "(" not in l.split()[0]]
			self.assertEqual(ours, want[:len(ours)], ctx)
			self.assertTrue(ours, ctx)
		self.assertIn("OverUse (1)", r.stdout)

	def test_dead_cluster_and_documents(self):
		r = self.plugin("--context", "a,dead", "-o", "json")
		self.assertEqual(r.returncode, 1)
		self.assertIn('error: context "dead": ' + REFUSED, r.stderr)
		doc = json.loads(r.stdout)
		with open(FLEET_SCHEMA) as f:
			self.assertEqual(schema_errors(json.load(f), doc), [])
		self.assertEqual([c["context"] for c in doc["clusters"]], ["a", "dead"])
		alone = json.loads(self.plugin("--context", "a", "-o", "json").stdout)
		report = doc["clusters"][0]["report"]
		self.assertEqual((report["kind"], [n["name"] for n in report["nodes"]]),
				 (alone["kind"], [n["name"] for n in alone["nodes"]]))
		self.assertEqual(report["usage"].keys(), alone["usage"].keys())
		self.assertEqual(self.plugin("--context", "a,dead", "--ignore-unreachable").returncode, 0)
		r = run_plugin(["--kubeconfig", self.kubeconfig, "usage", "--prometheus-url", self.prom.url, "--context", "a,b"],
			       env=dict(ENV, HOME=self.dir))
		self.assertEqual(r.returncode, 1, r.stderr)


if __name__ == "__main__":
	unittest.main()
