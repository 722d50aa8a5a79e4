"""kubectl's manners for the default command: flag spellings, namespaces in every format, command names
mistyped as nodes, help and version, empty results, sorting and headers, JSON totals, rounding."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import FakeAPI, plugin_path, run_plugin

ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "200"}


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class MannersTest(unittest.TestCase):
	maxDiff = None

	@classmethod
	def setUpClass(cls):
		cls.apis = {}

	@classmethod
	def tearDownClass(cls):
		for api in cls.apis.values():
			api.stop()

	def api(self, scenario):
		if scenario not in self.apis:
			self.apis[scenario] = FakeAPI(scenario).start()
		return self.apis[scenario]

	def run_on(self, scenario, args):
		api = self.api(scenario)
		return run_plugin(["--kubeconfig", api.kubeconfig] + list(args), env=ENV)

	def api_requests(self, scenario):
		return [q for q in self.api(scenario).requests() if q["path"].startswith("/api")]

	# ---- booleans ------------------------------------------------------------------------------------

	def test_boolean_flags_take_true_and_false(self):
		summary = self.run_on("seed002", [])
		details = self.run_on("seed002", ["-d"])
		self.assertEqual(summary.returncode, 0, summary.stderr)
		self.assertNotEqual(summary.stdout, details.stdout)
		for args, want in ((["--details=false"], summary), (["-d=false"], summary), (["--details=true"], details),
				(["-d=true"], details), (["--details"], details), (["-d", "--details=false"], summary),
				(["--details=false", "-d"], details)):
			with self.subTest(args=args):
				r = self.run_on("seed002", args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertEqual(r.stdout, want.stdout)
		r = self.run_on("seed002", ["--details=maybe"])
		self.assertEqual(r.returncode, 1)
		self.assertIn('invalid argument "maybe" for "--details" flag', r.stderr)

	# ---- grouped shorthands -------------------------------------------------------------------------

	def test_grouped_short_flags(self):
		want = self.run_on("seed002", ["-d", "-n", "other"])
		self.assertEqual(want.returncode, 0, want.stderr)
		self.assertNotIn("app-3g-v1-0", want.stdout)
		for args in (["-dn", "other"], ["-dnother"], ["-dn=other"], ["-n", "other", "-d"]):
			with self.subTest(args=args):
				r = self.run_on("seed002", args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertEqual(r.stdout, want.stdout)
		every = self.run_on("seed002", ["-d"])
		r = self.run_on("seed002", ["-n", "other", "-Ad"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout, every.stdout)
		r = self.run_on("seed002", ["-dx"])
		self.assertEqual(r.returncode, 1)
		self.assertTrue(r.stderr.startswith("error: unknown shorthand flag: 'x' in -dx\n"), r.stderr)

	# ---- namespaces -----------------------------------------------------------------------------------

	def test_namespace_applies_to_json_and_yaml(self):
		r = self.run_on("seed002", ["-o", "json"])
		doc = json.loads(r.stdout)
		self.assertEqual(len(doc["pods"]), 2)
		for args in (["-o", "json", "-n", "other"], ["-n", "other", "-o", "yaml"]):
			with self.subTest(args=args):
				r = self.run_on("seed002", args)
				self.assertEqual(r.returncode, 0, r.stderr)
				if "yaml" in args:
					self.assertIn("\npods: []\n", r.stdout)
					self.assertNotIn("app-3g-v1-0", r.stdout)
					continue
				doc = json.loads(r.stdout)
				self.assertEqual(doc["pods"], [])
				self.assertEqual(doc["nodes"][0]["gpus"][0]["pods"], [])
				# the sums still count every pod, as -d does
				self.assertEqual(doc["totals"]["memory"]["allocated"], 8)
				self.assertEqual(doc["nodes"][0]["memory"]["allocated"], 8)
		r = self.run_on("seed002", ["-o", "json", "-n", "default"])
		self.assertEqual(sorted(p["name"] for p in json.loads(r.stdout)["pods"]), ["app-3g-v1-0", "app-3g-v1-1"])
		r = self.run_on("seed002", ["-o", "json", "-n", "other", "-A"])
		self.assertEqual(len(json.loads(r.stdout)["pods"]), 2)

	# ---- commands mistyped, help, version -----------------------------------------------------------

	def test_mistyped_command_suggests_the_command(self):
		for word, cmd in (("mdoe", "mode"), ("tpo", "top"), ("restrat", "restart"), ("hlep", "help")):
			with self.subTest(word=word):
				r = self.run_on("seed002", [word, "share"] if word == "mdoe" else [word])
				self.assertEqual(r.returncode, 1)
				self.assertEqual(r.stdout, "")
				lines = r.stderr.splitlines()
				self.assertEqual(lines[0], 'Error from server (NotFound): nodes "%s" not found' % word)
				self.assertIn('did you mean "%s"?' % cmd, lines[1])
		# a node name far from every command is only not found
		r = self.run_on("seed002", ["node-x"])
		self.assertEqual(r.stderr, 'Error from server (NotFound): nodes "node-x" not found\n')

	def test_help_command(self):
		overview = run_plugin(["--help"], env=ENV)
		r = run_plugin(["help"], env=ENV)
		self.assertEqual((r.returncode, r.stdout, r.stderr), (0, overview.stdout, ""))
		for name in ("mode", "top", "restart", "version", "help"):
			with self.subTest(name=name):
				want = run_plugin([name, "--help"], env=ENV)
				self.assertEqual(want.returncode, 0, want.stderr)
				r = run_plugin(["help", name], env=ENV)
				self.assertEqual((r.returncode, r.stdout), (0, want.stdout))
		self.assertIn("  help ", overview.stdout)
		self.assertIn("  version ", overview.stdout)
		r = run_plugin(["help", "nosuch"], env=ENV)
		self.assertEqual(r.returncode, 1)
		self.assertTrue(r.stderr.startswith('error: unknown help topic "nosuch"'), r.stderr)

	def test_version_command(self):
		want = run_plugin(["--version"], env=ENV)
		self.assertEqual(want.returncode, 0)
		self.assertTrue(want.stdout.startswith("kubectl-inspect-cgpu "), want.stdout)
		r = run_plugin(["version"], env=ENV)
		self.assertEqual((r.returncode, r.stdout, r.stderr), (0, want.stdout, ""))
		r = run_plugin(["version", "extra"], env=ENV)
		self.assertEqual(r.returncode, 1)
		# kubectl version -o json's shape
		version, commit = want.stdout.split()[1], want.stdout.split()[3].rstrip(")")
		r = run_plugin(["version", "-o", "json"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		cv = json.loads(r.stdout)["clientVersion"]
		self.assertEqual(cv["gitVersion"], version)
		self.assertEqual(cv["gitCommit"], commit)
		self.assertEqual("v%s.%s" % (cv["major"], cv["minor"]), ".".join(version.split(".")[:2]))
		self.assertRegex(cv["platform"], r"^linux/\w+$")
		if shutil.which("kubectl"):
			k = subprocess.run(["kubectl", "version", "--client", "-o", "json"], capture_output=True, text=True,
				timeout=30)
			theirs = json.loads(k.stdout)["clientVersion"]
			self.assertEqual(set(cv) - set(theirs), set(), "every key is one of kubectl's")
			self.assertEqual([k for k in theirs if k in cv], list(cv), "in kubectl's order")
		r = run_plugin(["version", "--client", "-o", "yaml"], env=ENV)
		self.assertEqual(r.returncode, 0, r.stderr)
		lines = r.stdout.splitlines()
		self.assertEqual(lines[0], "clientVersion:")
		self.assertEqual(lines[1:], sorted(lines[1:]), "keys sorted, as kubectl's YAML")
		self.assertIn("  gitVersion: %s" % version, lines)
		r = run_plugin(["version", "-o", "wide"], env=ENV)
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stderr, "error: --output must be 'yaml' or 'json'\n")

	# ---- filters that match nothing ----------------------------------------------------------------

	def test_filter_matching_nothing(self):
		for args, says in ((["--pool", "nosuch"], "no node matches --pool nosuch"),
				(["-l", "env=prod"], "no node matches -l env=prod"),
				(["-l", "env=prod", "-d"], "no node matches -l env=prod"),
				(["--scheme", "hami"], "no node is shared with scheme hami (1 node looked at)"),
				(["--scheme=hami", "--pool=tier=x"], "no node matches --pool tier=x")):
			with self.subTest(args=args):
				r = self.run_on("seed002", args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertEqual(r.stdout, "")
				lines = r.stderr.splitlines()
				self.assertEqual(lines[0], "No resources found")
				self.assertIn(says, lines[1])
				self.assertNotIn("label it for sharing", r.stderr)
		# scripts still get their document
		r = self.run_on("seed002", ["--pool", "nosuch", "-o", "json"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(json.loads(r.stdout)["nodes"], [])
		self.assertEqual(r.stderr, "")
		# nodes matched, but none offers sharing: the hint about labels helps there
		r = self.run_on("pools-pro", ["-l", "kubernetes.io/os=linux", "--scheme", "cce"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertTrue(r.stderr.startswith("No resources found\n"), r.stderr)

	# ---- JSON totals ------------------------------------------------------------------------------------

	def test_json_totals_pending_and_unassigned(self):
		r = self.run_on("multi-gpu", ["-o", "json"])
		self.assertEqual(r.returncode, 0, r.stderr)
		doc = json.loads(r.stdout)
		mem = doc["totals"]["memory"]
		on_nodes = sum(n["memory"]["pending"] for n in doc["nodes"] if n["unit"] != "slots")
		unscheduled = sum(p["memory"] for p in doc["unscheduledPods"] if p["unit"] != "slots")
		self.assertGreater(on_nodes, 0)
		self.assertGreater(unscheduled, 0)
		# pending: what pods on no node ask for; unassigned: held on nodes without a GPU index (in allocated)
		self.assertEqual(mem["pending"], unscheduled)
		self.assertEqual(mem["unassigned"], on_nodes)
		# allocated + pending is every byte the pods ask for
		asked = sum(p["memory"] for p in doc["pods"] + doc["unscheduledPods"] if p["unit"] != "slots")
		self.assertEqual(mem["allocated"] + mem["pending"], asked)
		for t in doc["totals"]["byUnit"]:
			self.assertEqual(t["memory"]["pending"], sum(p["memory"] for p in doc["unscheduledPods"] if p["unit"] == t["unit"]))
			self.assertEqual(t["memory"]["unassigned"], sum(n["memory"]["pending"] for n in doc["nodes"] if n["unit"] == t["unit"]))

	def test_free_memory_one_clamping_rule(self):
		r = self.run_on("demo", ["-o", "json"])
		self.assertEqual(r.returncode, 0, r.stderr)
		doc = json.loads(r.stdout)
		for n in doc["nodes"]:
			with self.subTest(node=n["name"]):
				if n.get("gpus"):
					# a GPU allocated beyond its total takes nothing from the others
					self.assertEqual(n["memory"]["free"], sum(g["memory"]["free"] for g in n["gpus"]))
				self.assertGreaterEqual(n["memory"]["free"], 0)
		eight = next(n for n in doc["nodes"] if n["name"] == "gpu-8x")
		self.assertEqual(eight["memory"]["free"], 99)
		self.assertEqual(doc["totals"]["memory"]["free"], sum(n["memory"]["free"] for n in doc["nodes"]))
		for t in doc["totals"]["byUnit"]:
			self.assertEqual(t["memory"]["free"], sum(n["memory"]["free"] for n in doc["nodes"] if n["unit"] == t["unit"]))

	# ---- nothing to offer, yet allocated ------------------------------------------------------------

	def test_allocations_on_a_node_of_total_zero_are_over_allocation(self):
		r = self.run_on("multi-gpu", ["gpu-zero"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("gpu-zero  10.0.3.9   2/0 ", r.stdout)
		self.assertIn("\n2/0 (over-allocated)\n", r.stdout)
		self.assertNotIn("(0%)", r.stdout)
		r = self.run_on("multi-gpu", ["--by", "node", "gpu-zero"])
		self.assertRegex(r.stdout, r"\ngpu-zero +GiB +1 +1 +2 +0 +over-allocated +0\n")
		r = self.run_on("multi-gpu", ["-d", "gpu-zero"])
		self.assertIn("Allocated :  2 (over-allocated)\n", r.stdout)
		self.assertIn("In Cluster:  2/0 (over-allocated)\n", r.stdout)
		self.assertNotIn("(0%)", r.stdout)
		# a node with nothing allocated and nothing offered is still 0%
		r = self.run_on("seed002-empty", [])
		self.assertIn("0/15 (0%)", r.stdout)

	# ---- rounding to GiB ----------------------------------------------------------------------------

	def test_unit_gib_parts_add_up_and_rounding_is_said(self):
		with FakeAPI("published-mib") as api:
			for i in range(2):
				api.put_object({
					"apiVersion": "v1", "kind": "Pod",
					"metadata": {"name": "small-%d" % i, "namespace": "default",
						"annotations": {"ALIYUN_COM_GPU_MEM_IDX": "0"}},
					"spec": {"nodeName": "node6", "containers": [
						{"name": "c", "image": "x", "resources": {"limits": {"aliyun.com/gpu-mem": "600"}}}]},
					"status": {"phase": "Running"},
				})
			run = lambda args: run_plugin(["--kubeconfig", api.kubeconfig] + args, env=ENV)
			doc = json.loads(run(["--unit", "GiB", "-o", "json"]).stdout)
			table = run(["--unit", "GiB"])
			details = run(["--unit", "GiB", "-d"])
			exact = run(["--unit", "MiB"])
		self.assertEqual(table.returncode, 0, table.stderr)
		for n in doc["nodes"]:
			with self.subTest(node=n["name"]):
				# each 11178 MiB GPU is 10 GiB, as the device plugin counts GiB; the node is its GPUs
				self.assertEqual([g["memory"]["total"] for g in n["gpus"]], [10, 10, 10, 10])
				self.assertEqual(n["memory"]["total"], sum(g["memory"]["total"] for g in n["gpus"]))
				self.assertEqual(n["memory"]["allocated"],
					sum(g["memory"]["allocated"] for g in n["gpus"]) + n["memory"]["pending"])
				# the pods on a GPU add up to what the GPU shows
				for g in n["gpus"]:
					self.assertEqual(sum(p["memory"] for p in g["pods"]), g["memory"]["allocated"])
				self.assertEqual(sum(p["memory"] for p in n["pendingPods"]), n["memory"]["pending"])
		self.assertEqual(doc["totals"]["memory"]["total"], sum(n["memory"]["total"] for n in doc["nodes"]))
		by = {n["name"]: n for n in doc["nodes"]}
		self.assertEqual(by["node6"]["gpus"][0]["memory"]["allocated"], 1)
		self.assertIn("node6   192.168.4.16  1/10 ", table.stdout)
		self.assertIn("  1/40\n", table.stdout)
		# said under the tables (other notes about pods may follow it)
		for out in (table.stdout, details.stdout):
			notes = out.split("In Cluster:", 1)[1]
			self.assertIn("rounded down per GPU", notes)
		self.assertRegex(details.stdout, r"\nsmall-0\*? +default +1 ")
		self.assertRegex(details.stdout, r"\nsmall-1\*? +default +0 ")
		# nothing is rounded where nothing is converted
		self.assertNotIn("rounded", exact.stdout)
		self.assertNotIn("rounded", self.run_on("seed002", ["--unit", "GiB"]).stdout)

	# ---- help ---------------------------------------------------------------------------------------

	def test_every_command_help_has_examples(self):
		for cmd in ([], ["top"], ["usage"], ["mode"], ["restart"], ["fit"], ["help"], ["version"], ["completion"]):
			with self.subTest(cmd=cmd):
				r = run_plugin(cmd + ["--help"], env=ENV)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertIn("\nExamples:\n  # ", r.stdout)
				examples = r.stdout.split("\nExamples:\n")[1].split("\n\n" + ("Commands:" if not cmd else "Flags:"))[0]
				runs = [l for l in examples.splitlines() if l and not l.startswith("  #")]
				self.assertTrue(runs, r.stdout)
				for l in runs:
					self.assertTrue(l.startswith("  " + " ".join(["kubectl inspect cgpu"] + cmd)), l)
					self.assertEqual(l, l.rstrip())

	# ---- sorting and headers ----------------------------------------------------------------------

	def node_order(self, out):
		return [l.split()[0] for l in out.splitlines() if l.startswith("gpu-")] or \
			[l.split()[1] for l in out.splitlines() if l.startswith("NAME:")]

	def test_sort_by_and_no_headers(self):
		for key, order in ((None, ["gpu-2x", "gpu-4x", "gpu-8x", "gpu-zero"]),
				("name", ["gpu-2x", "gpu-4x", "gpu-8x", "gpu-zero"]),
				("allocated", ["gpu-zero", "gpu-2x", "gpu-4x", "gpu-8x"]),
				("free", ["gpu-8x", "gpu-4x", "gpu-2x", "gpu-zero"]),
				("pending", ["gpu-4x", "gpu-2x", "gpu-8x", "gpu-zero"])):
			for details in ([], ["-d"]):
				with self.subTest(key=key, details=details):
					r = self.run_on("multi-gpu", details + (["--sort-by", key] if key else []))
					self.assertEqual(r.returncode, 0, r.stderr)
					self.assertEqual(self.node_order(r.stdout), order)
		plain = self.run_on("multi-gpu", [])
		r = self.run_on("multi-gpu", ["--no-headers"])
		self.assertEqual(r.returncode, 0, r.stderr)
		# as kubectl's: the columns are as wide as the rows need
		self.assertEqual(len(r.stdout.splitlines()), len(self.node_order(plain.stdout)))
		self.assertNotIn("IPADDRESS", r.stdout)
		self.assertTrue(r.stdout.startswith("gpu-2x    10.0.3.2  2/15  8/15 "), r.stdout)
		# every row has the same fields, for awk: an empty cell reads 0, no footer
		rows = [line.split() for line in r.stdout.splitlines()]
		self.assertEqual(len(set(len(f) for f in rows)), 1, r.stdout)
		self.assertNotIn("---", r.stdout)
		self.assertNotIn("In Cluster", r.stdout)
		self.assertNotIn("Not scheduled yet", r.stdout)
		r = self.run_on("multi-gpu", ["--by", "namespace", "--no-headers"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertNotIn("NAMESPACE", r.stdout)
		self.assertNotIn("\n\n", r.stdout)
		self.assertNotIn("ALLOCATED", r.stdout)
		r = self.run_on("multi-gpu", ["-d", "--no-headers"])
		self.assertNotIn("NAMESPACE", r.stdout)
		self.assertNotIn("(Allocated)", r.stdout)
		self.assertIn("NAME:       gpu-4x\n", r.stdout)
		self.assertIn("\nno-index-0*    ml  0  0  0  0  5\n", r.stdout)
		self.assertNotIn("Allocated :", r.stdout)
		self.assertNotIn("In Cluster", r.stdout)
		self.assertNotIn("---", r.stdout)
		r = self.run_on("multi-gpu", ["--sort-by", "size"])
		self.assertEqual(r.returncode, 1)
		self.assertTrue(r.stderr.startswith('error: invalid argument "size" for "--sort-by" flag'), r.stderr)

	def test_enum_values_are_case_insensitive(self):
		for args, same in ((["--by", "Namespace"], ["--by", "namespace"]), (["--by=NODE"], ["--by=node"]),
				(["--sort-by", "Allocated"], ["--sort-by", "allocated"]), (["--scheme", "CGPU"], ["--scheme", "cgpu"]),
				(["-o", "JSON"], ["-o", "json"]), (["-o", "Wide"], ["-o", "wide"]), (["--unit", "mib"], ["--unit", "MiB"])):
			with self.subTest(args=args):
				r, want = self.run_on("multi-gpu", args), self.run_on("multi-gpu", same)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertEqual(r.stdout, want.stdout)

	def test_flag_errors_in_kubectl_form(self):
		hint = "See 'kubectl inspect cgpu%s --help' for usage.\n"
		for args, line, cmd in (
				(["restart", "gpu-2x", "--timeout", "-1s"], 'invalid argument "-1s" for "--timeout" flag', " restart"),
				(["restart", "gpu-2x", "--timeout=-1s"], 'invalid argument "-1s" for "--timeout" flag', " restart"),
				(["restart", "gpu-2x", "--max-parallel", "0"], 'invalid argument "0" for "--max-parallel" flag',
					" restart"),
				(["top", "-r", "-1s"], 'invalid argument "-1s" for "-r, --refresh" flag', " top"),
				(["top", "--unit", "TiB"], 'invalid argument "TiB" for "--unit" flag', " top"),
				(["mode", "share", "gpu-2x", "--placement", "tight"], 'invalid argument "tight" for "--placement" flag',
					" mode"),
				(["--sort-by", "size"], 'invalid argument "size" for "--sort-by" flag', "")):
			with self.subTest(args=args):
				r = self.run_on("multi-gpu", args)
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertTrue(r.stderr.startswith("error: " + line + ": "), r.stderr)
				self.assertTrue(r.stderr.endswith(hint % cmd), r.stderr)
		# kubectl's own sentence for --dry-run, after which it prints no usage hint
		for args in (["mode", "share", "gpu-2x", "--dry-run=bogus"], ["restart", "gpu-2x", "--dry-run=bogus"]):
			with self.subTest(args=args):
				r = self.run_on("multi-gpu", args)
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertEqual(r.stderr, 'error: Invalid dry-run value (bogus). Must be "none", "server", or "client".\n')

	def test_namespace_without_effect_is_said_once(self):
		for args in (["-n", "ml"], ["--namespace=ml", "--by", "node"], ["mode", "share", "gpu-2x", "-n", "ml",
				"--dry-run=client"]):
			with self.subTest(args=args):
				r = self.run_on("multi-gpu", args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertEqual(r.stderr.count("-n ml has no effect here: "), 1, r.stderr)
		for args in (["-d", "-n", "ml"], ["-n", "ml", "-o", "json"], ["-A", "-d"]):
			with self.subTest(args=args):
				r = self.run_on("multi-gpu", args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertNotIn("no effect", r.stderr)

	# ---- top without a terminal ---------------------------------------------------------------------

	def test_top_once_prints_one_frame_as_text(self):
		for args in (["top", "--once"], ["top"]):
			with self.subTest(args=args):
				# stdout is a pipe here: no terminal, one frame either way
				r = self.run_on("multi-gpu", args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertNotIn("\x1b", r.stdout)
				lines = r.stdout.splitlines()
				self.assertTrue(lines[0].startswith("cgpu top"), r.stdout)
				for node in ("gpu-2x", "gpu-4x", "gpu-8x", "gpu-zero"):
					self.assertTrue(any(l.startswith(node + " ") for l in lines), node)
				self.assertTrue(lines[-1].startswith("data 0s old, one frame"), lines[-1])
				self.assertNotIn("\n\n\n", r.stdout)
				self.assertTrue(all(len(l) <= 200 for l in lines))
		r = self.run_on("multi-gpu", ["top", "--once", "gpu-2x"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertFalse(any(l.startswith("gpu-4x ") for l in r.stdout.splitlines()))

	# ---- kubectl's output forms ---------------------------------------------------------------------

	def test_output_name_jsonpath_and_custom_columns(self):
		doc = json.loads(self.run_on("multi-gpu", ["-o", "json"]).stdout)
		names = [n["name"] for n in doc["nodes"]]
		r = self.run_on("multi-gpu", ["-o", "name"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout, "".join("node/%s\n" % n for n in names))
		r = self.run_on("multi-gpu", ["-o", "jsonpath={.nodes[*].name}"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout, " ".join(names))
		r = self.run_on("multi-gpu", ["-o=jsonpath={range .nodes[?(@.memory.free>0)]}{.name}{\"\\t\"}{.memory.free}{\"\\n\"}{end}"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout, "".join("%s\t%d\n" % (n["name"], n["memory"]["free"]) for n in doc["nodes"]
			if n["memory"]["free"] > 0))
		r = self.run_on("multi-gpu", ["-o", "jsonpath={.totals.memory.free}"])
		self.assertEqual(r.stdout, str(doc["totals"]["memory"]["free"]))
		spec = "NODE:.name,FREE:.memory.free,GPU0:.gpus[0].memory.free,POOL:.pool"
		r = self.run_on("multi-gpu", ["-o", "custom-columns=" + spec])
		self.assertEqual(r.returncode, 0, r.stderr)
		lines = r.stdout.splitlines()
		self.assertEqual(lines[0].split(), ["NODE", "FREE", "GPU0", "POOL"])
		self.assertEqual([l.split()[0] for l in lines[1:]], names)
		self.assertEqual([l.split()[1] for l in lines[1:]], [str(n["memory"]["free"]) for n in doc["nodes"]])
		r2 = self.run_on("multi-gpu", ["-o", "custom-columns=" + spec, "--no-headers"])
		self.assertEqual([l.split() for l in r2.stdout.splitlines()], [l.split() for l in lines[1:]])
		# the file forms read the same
		d = tempfile.mkdtemp(prefix="cgpu-forms-")
		try:
			with open(os.path.join(d, "t.jsonpath"), "w") as f:
				f.write("{.nodes[*].name}")
			with open(os.path.join(d, "cols"), "w") as f:
				f.write("NODE FREE GPU0 POOL\n.name .memory.free .gpus[0].memory.free .pool\n")
			r = self.run_on("multi-gpu", ["-o", "jsonpath-file=" + os.path.join(d, "t.jsonpath")])
			self.assertEqual(r.stdout, " ".join(names))
			r = self.run_on("multi-gpu", ["-o", "custom-columns-file=" + os.path.join(d, "cols")])
			self.assertEqual(r.stdout.splitlines(), lines)
		finally:
			shutil.rmtree(d)

	def test_bad_templates_in_kubectl_words(self):
		for args, line in ((["-o", "jsonpath={.nodes["], "error: error parsing jsonpath {.nodes[, unclosed action"),
				(["-o", "jsonpath={.nodes[}"], "error: error parsing jsonpath {.nodes[}, unterminated array"),
				(["-o", "custom-columns=NAME"],
					"error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"),
				(["-o", "jsonpath"], "error: jsonpath format specified but no template given"),
				(["-o", "go-template={{.}}"], 'error: unable to match a printer suitable for the output format '
					'"go-template={{.}}", allowed formats are: '
					'custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,wide,yaml')):
			with self.subTest(args=args):
				r = self.run_on("multi-gpu", args)
				self.assertEqual(r.returncode, 1, r.stderr)
				self.assertEqual(r.stderr.splitlines()[0], line)
		# before any request is sent
		before = len(self.api_requests("multi-gpu"))
		self.run_on("multi-gpu", ["-o", "jsonpath={.nodes["])
		self.assertEqual(len(self.api_requests("multi-gpu")), before)

	@unittest.skipIf(shutil.which("kubectl") is None, "kubectl is not installed")
	def test_template_syntax_reads_as_kubectls(self):
		# the same templates on kubectl's own node list and on the report: the same node names
		api = self.api("multi-gpu")
		for ours, theirs in (("{.nodes[*].name}", "{.items[*].metadata.name}"),
				("{range .nodes[1:3]}{.name}{\"\\n\"}{end}", "{range .items[1:3]}{.metadata.name}{\"\\n\"}{end}"),
				("{.nodes[-1:].name}", "{.items[-1:].metadata.name}"),
				("{.nodes[?(@.name==\"gpu-4x\")].name}", "{.items[?(@.metadata.name==\"gpu-4x\")].metadata.name}")):
			with self.subTest(template=ours):
				mine = self.run_on("multi-gpu", ["-o", "jsonpath=" + ours])
				k = subprocess.run(["kubectl", "--kubeconfig", api.kubeconfig, "get", "nodes", "-o", "jsonpath=" + theirs],
					capture_output=True, text=True, timeout=60)
				self.assertEqual(k.returncode, 0, k.stderr)
				self.assertEqual(mine.stdout, k.stdout)

	# ---- one spelling per output ----------------------------------------------------------------------

	def test_pending_spelled_one_way_per_output(self):
		summary = self.run_on("multi-gpu", [])
		details = self.run_on("multi-gpu", ["-d"])
		# the published tables decide: PENDING(Allocated) in the summary, Pending(Allocated) in details
		self.assertIn("PENDING(Allocated)", summary.stdout)
		self.assertNotIn("Pending", summary.stdout)
		self.assertIn("Pending(Allocated)", details.stdout)
		self.assertNotIn("PENDING", details.stdout)
		for r in (summary, details):
			self.assertIn("Not scheduled yet: 1 pod asking for 4 GiB: ml/unscheduled-0\n", r.stdout)
			self.assertNotIn("(s)", r.stdout + r.stderr)

	# ---- details: compute shares and GPUs not yet assigned ------------------------------------------

	def test_details_show_compute_share_and_unassigned_pods(self):
		r = self.run_on("multi-gpu", ["-d"])
		self.assertEqual(r.returncode, 0, r.stderr)
		blocks = {b.split("\n")[0].split()[-1]: b for b in r.stdout.split("NAME:")[1:]}
		# a compute share where a pod has one, in the node's table
		self.assertRegex(blocks["gpu-8x"], r"GPU7\(Allocated\)  GPU Core\(%\)\n")
		self.assertRegex(blocks["gpu-8x"], r"\ncore-share-0 +default +8 +0 .* 30\n")
		self.assertNotIn("Core", blocks["gpu-2x"])
		# pods whose GPU the device plugin has not assigned yet are marked, and the mark is explained
		self.assertRegex(blocks["gpu-4x"], r"\nassumed-0\* +ml ")
		self.assertRegex(blocks["gpu-4x"], r"\nno-index-0\* +ml ")
		self.assertRegex(blocks["gpu-4x"], r"\nspread-2gpu-0 +ml ")
		self.assertIn("\n* GPU not yet assigned to the pod by the device plugin\n", r.stdout)
		# nothing is marked where every pod has its GPU
		r = self.run_on("seed002", ["-d"])
		self.assertNotIn("*", r.stdout)

	# ---- completion from the build folder -------------------------------------------------------------

	def helper_words(self, helper, words, scenario="demo"):
		env = dict(os.environ, **ENV)
		env["KUBECONFIG"] = self.api(scenario).kubeconfig
		r = subprocess.run([helper] + words, capture_output=True, text=True, env=env, timeout=60)
		self.assertEqual(r.returncode, 0, r.stderr)
		return r.stdout.splitlines()[:-1]

	def test_completion_helper_is_built_beside_the_plugin(self):
		helper = os.path.join(os.path.dirname(plugin_path()), "kubectl_complete-inspect-cgpu")
		self.assertTrue(os.access(helper, os.X_OK), helper)
		self.assertIn("mode", self.helper_words(helper, [""]))
		kubectl = shutil.which("kubectl")
		if kubectl:
			# what the README's export PATH=$PWD/build/src:$PATH gives
			env = dict(os.environ, **ENV)
			env["PATH"] = os.path.dirname(plugin_path()) + os.pathsep + os.path.dirname(kubectl)
			env["KUBECONFIG"] = self.api("demo").kubeconfig
			r = subprocess.run([kubectl, "__complete", "inspect", "cgpu", "mo"], capture_output=True, text=True,
				env=env, timeout=60)
			self.assertIn("mode", r.stdout.splitlines(), r.stdout + r.stderr)

	def test_restart_daemonset_completes_from_the_api(self):
		helper = os.path.join(os.path.dirname(plugin_path()), "kubectl_complete-inspect-cgpu")
		with open(os.path.join(os.environ.get("FIXTURES_DIR", "fixtures"), "scenarios", "demo", "daemonsets.json")) as f:
			data = json.load(f)
		items = data["items"] if isinstance(data, dict) else data
		want = sorted("%s/%s" % (d["metadata"]["namespace"], d["metadata"]["name"]) for d in items)
		self.assertTrue(want)
		self.assertEqual(self.helper_words(helper, ["restart", "--daemonset", ""]), want)
		self.assertEqual(self.helper_words(helper, ["restart", "--daemonset=kube-system/"]),
			["--daemonset=" + w for w in want if w.startswith("kube-system/")])

	# ---- usage errors before any request ----------------------------------------------------------

	def test_usage_errors_before_any_request(self):
		for args in (["mode", "share", "--pool", "np-cgpu", "--placement", "random"],
				["mode", "exclusive", "node-a", "--placement", "binpack"],
				["mode", "share", "--pool", "np-cgpu", "--dry-run=maybe"],
				["restart", "node-a", "--daemonset", "gpushare-device-plugin-ds"],
				["restart", "node-a", "--daemonset", "kube-system/"],
				["restart", "--max-parallel", "0", "node-a"],
				["top", "--unit", "TB"],
				["--sort-by", "size"], ["-o", "xml"], ["-d", "-o", "wide"],
				["help", "nosuch"], ["version", "x"]):
			with self.subTest(args=args):
				api = self.api("demo")
				api.clear_requests()
				r = self.run_on("demo", args)
				self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
				self.assertTrue(r.stderr.startswith("error: "), r.stderr)
				self.assertEqual([q["path"] for q in api.requests() if not q["path"].startswith("/_fake")], [])


if __name__ == "__main__":
	unittest.main()
