"""Shell completion, end to end: the plugin's __complete entry point, the bash completion function, the
kubectl completion helper (kubectl_complete-inspect-cgpu, in both spellings) and real kubectl
(`kubectl __complete inspect cgpu ...`, kubectl 1.26 and later), against the fake API server.

Values from the cluster (node names, pools, namespaces) are compared with the scenario's fixtures and
with objects added to the server while it runs.  A cluster that cannot be reached must cost the shell
less than 3 seconds and print nothing but the directive line.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import unittest

from harness import ROOT, SCENARIOS, APIServer, built_plugin

SCENARIO = "pools-pro"
BASH_SCRIPT = os.path.join(ROOT, "completions", "kubectl-inspect-cgpu.bash")
HELPER = os.path.join(ROOT, "completions", "kubectl_complete-inspect-cgpu")
CONTEXTS = ["admin", "admin-token", "badtoken", "nobody", "viewer"]
MODES = ["core", "exclusive", "isolate", "share"]
POOL_LABEL = "alibabacloud.com/nodepool-id"
DEADLINE = 3.0


def fixture_items(name):
	with open(os.path.join(SCENARIOS, SCENARIO, name)) as f:
		return json.load(f)["items"]


def kubectl_minor():
	"""kubectl's client minor version, or None without a usable kubectl."""
	k = shutil.which("kubectl")
	if k is None:
		return None
	r = subprocess.run([k, "version", "--client", "-o", "json"], capture_output=True, text=True, timeout=30)
	try:
		v = json.loads(r.stdout)["clientVersion"]
		return int(re.match(r"\d+", v["minor"]).group(0))
	except (ValueError, KeyError, AttributeError, TypeError):
		return None


class CompletionTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		plugin = built_plugin()
		cls.tmp = tempfile.mkdtemp(prefix="cgpu-complete-")
		# an install as `meson install` lays it out: plugin and helper side by side
		cls.bin = os.path.join(cls.tmp, "bin")
		os.mkdir(cls.bin)
		os.symlink(os.path.abspath(plugin), os.path.join(cls.bin, "kubectl-inspect-cgpu"))
		shutil.copy2(HELPER, os.path.join(cls.bin, "kubectl_complete-inspect-cgpu"))
		os.symlink("kubectl_complete-inspect-cgpu", os.path.join(cls.bin, "kubectl_complete-inspect_cgpu"))
		# krew's layout: only the underscore spellings
		cls.krew = os.path.join(cls.tmp, "krew")
		os.mkdir(cls.krew)
		os.symlink(os.path.abspath(plugin), os.path.join(cls.krew, "kubectl-inspect_cgpu"))
		os.symlink(os.path.abspath(HELPER), os.path.join(cls.krew, "kubectl_complete-inspect_cgpu"))
		cls.home = os.path.join(cls.tmp, "home")
		os.mkdir(cls.home)
		cls.api = APIServer(SCENARIO).start()
		cls.nodes = sorted(n["metadata"]["name"] for n in fixture_items("nodes.json"))
		cls.pools = sorted({n["metadata"].get("labels", {}).get(POOL_LABEL) for n in fixture_items("nodes.json")} - {None})
		cls.pod_namespaces = sorted({p["metadata"]["namespace"] for p in fixture_items("pods.json")})
		cls.kubectl_minor = kubectl_minor()

	@classmethod
	def tearDownClass(cls):
		cls.api.stop()
		shutil.rmtree(cls.tmp, ignore_errors=True)

	def env(self, kubeconfig=None, path_dirs=None):
		e = dict(os.environ, LC_ALL="C", TZ="UTC", NO_COLOR="1", HOME=self.home)
		e["KUBECONFIG"] = kubeconfig or self.api.kubeconfig
		dirs = list(path_dirs if path_dirs is not None else [self.bin])
		if shutil.which("kubectl"):
			dirs.append(os.path.dirname(shutil.which("kubectl")))
		e["PATH"] = os.pathsep.join(dirs + ["/usr/bin", "/bin"])
		for k in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "HTTPS_PROXY", "https_proxy"):
			e.pop(k, None)
		return e

	def run_timed(self, argv, env):
		t = time.monotonic()
		r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=30)
		return r, time.monotonic() - t

	def parse(self, r, what):
		"""Candidates and directive from cobra-style output; the last line must be the directive."""
		self.assertEqual(r.returncode, 0, "%s: %s" % (what, r.stderr))
		lines = r.stdout.splitlines()
		self.assertTrue(lines, what + ": no directive line")
		self.assertRegex(lines[-1], r"^:\d+$", what)
		return lines[:-1], int(lines[-1][1:])

	# -- the four ways in ------------------------------------------------------------------------------

	def plugin(self, words, kubeconfig=None):
		"""kubectl-inspect-cgpu __complete WORDS... CURRENT"""
		r, secs = self.run_timed([os.path.join(self.bin, "kubectl-inspect-cgpu"), "__complete"] + words,
			self.env(kubeconfig))
		self.assertEqual(r.stderr, "", "no error text while completing %r" % words)
		return self.parse(r, "__complete %r" % words) + (secs,)

	def helper(self, words, kubeconfig=None, name="kubectl_complete-inspect-cgpu", where=None):
		where = where or self.bin
		# the helper is run by absolute path, as kubectl does; PATH does not hold the plugin
		r, secs = self.run_timed([os.path.join(where, name)] + words, self.env(kubeconfig, path_dirs=[]))
		self.assertEqual(r.stderr, "", "no error text while completing %r" % words)
		return self.parse(r, "%s %r" % (name, words)) + (secs,)

	def bash(self, comp_words, kubeconfig=None):
		"""The bash completion function, given COMP_WORDS as bash splits the line."""
		script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kubectl_inspect_cgpu; '
			'printf "%s\\n" "${COMPREPLY[@]}"')
		r, secs = self.run_timed(["bash", "-c", script, "bash", BASH_SCRIPT] + comp_words, self.env(kubeconfig))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stderr, "")
		return [l for l in r.stdout.split("\n") if l], secs

	def kubectl(self, words, kubeconfig=None, plugin_words=("inspect", "cgpu"), path_dirs=None):
		if self.kubectl_minor is None:
			self.skipTest("kubectl is not installed")
		if self.kubectl_minor < 26:
			self.skipTest("kubectl 1.%d does not complete plugins" % self.kubectl_minor)
		r, secs = self.run_timed(["kubectl", "__complete"] + list(plugin_words) + words,
			self.env(kubeconfig, path_dirs))
		return self.parse(r, "kubectl __complete %r" % words) + (secs,)

	# -- candidates ------------------------------------------------------------------------------------

	def test_completion_command_prints_the_installed_scripts(self):
		plugin = os.path.join(self.bin, "kubectl-inspect-cgpu")
		for shell, name in (("bash", "kubectl-inspect-cgpu.bash"), ("zsh", "_kubectl-inspect-cgpu"),
				("fish", "kubectl-inspect-cgpu.fish"), ("BASH", "kubectl-inspect-cgpu.bash")):
			with self.subTest(shell=shell):
				r = subprocess.run([plugin, "completion", shell], capture_output=True, timeout=30)
				self.assertEqual(r.returncode, 0, r.stderr)
				with open(os.path.join(ROOT, "completions", name), "rb") as f:
					self.assertEqual(r.stdout, f.read())
		for args, line in (([], "error: Shell not specified."), (["tcsh"], 'error: Unsupported shell type "tcsh".'),
				(["bash", "zsh"], "error: Too many arguments. Expected only the shell type.")):
			with self.subTest(args=args):
				r = subprocess.run([plugin, "completion"] + args, capture_output=True, text=True, timeout=30)
				self.assertEqual(r.returncode, 1)
				self.assertEqual(r.stdout, "")
				self.assertEqual(r.stderr.splitlines()[0], line)
		# what it prints, sourced, completes the plugin's commands
		script = ('source <("$1" completion bash); shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); '
			'_kubectl_inspect_cgpu; printf "%s\\n" "${COMPREPLY[@]}"')
		r = subprocess.run(["bash", "-c", script, "bash", plugin, plugin, "comp"], capture_output=True, text=True,
			timeout=30, env=self.env(None))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout.split(), ["completion"])
		self.assertIn("completion", self.plugin([""])[0])
		self.assertEqual(self.plugin(["completion", ""])[0], ["bash", "fish", "zsh"])

	def test_subcommands_and_nodes(self):
		cands, directive, _ = self.plugin([""])
		self.assertEqual(cands, sorted(["completion", "defrag", "fit", "help", "mode", "restart", "top", "usage", "version"] + self.nodes))
		self.assertNotIn("__complete", cands)
		self.assertEqual(directive, 4)
		cands, _, _ = self.plugin(["mo"])
		self.assertEqual(cands, ["mode"])
		cands, _, _ = self.plugin(["restart", ""])
		self.assertEqual(cands, self.nodes)

	def test_modes_then_nodes(self):
		self.assertEqual(self.plugin(["mode", ""])[0], MODES)
		self.assertEqual(self.plugin(["mode", "is"])[0], ["isolate"])
		self.assertEqual(self.plugin(["mode", "share", ""])[0], self.nodes)
		self.assertEqual(self.plugin(["mode", "share", self.nodes[0], ""])[0], self.nodes)

	def test_nodes_follow_the_server(self):
		node = {"apiVersion": "v1", "kind": "Node",
			"metadata": {"name": "zz-added-node", "labels": {POOL_LABEL: "np-added"}},
			"status": {"capacity": {"aliyun.com/gpu-mem": "15", "aliyun.com/gpu-count": "1"},
				"allocatable": {"aliyun.com/gpu-mem": "15", "aliyun.com/gpu-count": "1"}}}
		self.api.put_object(node)
		try:
			self.assertIn("zz-added-node", self.plugin(["restart", "zz"])[0])
			self.assertEqual(self.plugin(["--pool", "np-a"])[0], ["np-added"])
		finally:
			self.api.delete_object("nodes", None, "zz-added-node")
		self.assertEqual(self.plugin(["restart", "zz"])[0], [])

	def test_flags(self):
		cands, directive, _ = self.plugin(["--"])
		for f in ("--details", "--output", "--selector", "--pool", "--unit", "--context", "--kubeconfig",
				"--namespace", "--request-timeout", "--all-namespaces"):
			self.assertIn(f, cands)
		self.assertNotIn("--placement", cands)
		self.assertEqual(directive, 4)
		cands = self.plugin(["mode", "--"])[0]
		for f in ("--placement", "--edition", "--dry-run", "--yes", "--restart", "--timeout", "--context"):
			self.assertIn(f, cands)
		self.assertNotIn("--details", cands)
		self.assertEqual(self.plugin(["restart", "--max"])[0], ["--max-parallel"])
		self.assertEqual(self.plugin(["top", "--sch"])[0], ["--scheme"])
		# every command that chooses nodes takes the same block of flags
		for cmd in ("usage", "fit", "top"):
			cands = self.plugin([cmd, "--"])[0]
			for f in ("--selector", "--pool", "--scheme", "--dra-driver"):
				self.assertIn(f, cands, cmd)
		for cmd in ("mode", "restart"):
			cands = self.plugin([cmd, "--"])[0]
			self.assertIn("--pool", cands, cmd)
			self.assertNotIn("--scheme", cands, cmd)
			self.assertNotIn("--dra-driver", cands, cmd)

	def test_flag_values(self):
		self.assertEqual(self.plugin(["-o", ""])[0], ["json", "name", "wide", "yaml"])
		self.assertEqual(self.plugin(["--output", "j"])[0], ["json"])
		self.assertEqual(self.plugin(["mode", "-o", ""])[0], ["json", "yaml"])
		self.assertEqual(self.plugin(["--unit", ""])[0], ["GiB", "MiB"])
		self.assertEqual(self.plugin(["mode", "--placement", ""])[0], ["binpack", "spread"])
		self.assertEqual(self.plugin(["mode", "--edition", ""])[0], ["basic", "opensource", "pro"])
		self.assertEqual(self.plugin(["restart", "--dry-run", ""])[0], ["client", "none", "server"])
		self.assertEqual(self.plugin(["top", "--scheme", ""])[0], ["cce", "cgpu", "dra", "hami", "nvidia", "volcano-vgpu"])
		for cmd in ([], ["fit"]):
			self.assertEqual(self.plugin(cmd + ["--scheme", ""])[0], ["cce", "cgpu", "dra", "hami", "nvidia", "volcano-vgpu"])
		self.assertEqual(self.plugin(["usage", "--scheme", ""])[0], ["cce", "cgpu", "dra", "hami", "nvidia", "volcano-vgpu"])
		self.assertEqual(self.plugin(["usage", "--pool", ""])[0], self.pools)

	def test_pools(self):
		self.assertEqual(self.pools, ["np-cgpu", "np-cgpu-no-isolation"])
		self.assertEqual(self.plugin(["--pool", ""])[0], self.pools)
		self.assertEqual(self.plugin(["mode", "isolate", "--pool", ""])[0], self.pools)
		self.assertEqual(self.plugin(["--pool=np-cgpu-"])[0], ["--pool=np-cgpu-no-isolation"])

	def test_label_keys_take_no_space(self):
		cands, directive, _ = self.plugin(["-l", "cg"])
		self.assertEqual(cands, ["cgpu.disable.isolation=", "cgpu="])
		self.assertEqual(directive, 4 | 2)
		self.assertEqual(self.plugin(["-l", ""])[0], [
			"ack.node.gpu.placement=", "ack.node.gpu.schedule=", "alibabacloud.com/nodepool-id=",
			"aliyun.accelerator/nvidia_name=", "cgpu.disable.isolation=", "cgpu=", "gpushare=",
			"nvidia.com/gpu.product=", "topology.kubernetes.io/zone="])

	def test_contexts(self):
		self.assertEqual(self.plugin(["--context", ""])[0], CONTEXTS)
		self.assertEqual(self.plugin(["mode", "--context", "v"])[0], ["viewer"])
		# KUBECONFIG is a list of files, merged: a second file adds its contexts
		extra = os.path.join(self.tmp, "extra-kubeconfig")
		with open(extra, "w") as f:
			f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster:\n"
				"    server: https://127.0.0.1:1\ncontexts:\n- name: staging\n  context:\n"
				"    cluster: other\n    user: nobody\nusers: []\n")
		cands = self.plugin(["--context", ""], kubeconfig=self.api.kubeconfig + os.pathsep + extra)[0]
		self.assertEqual(cands, sorted(CONTEXTS + ["staging"]))

	def node_list_users(self, words):
		self.api.clear_requests()
		cands = self.plugin(words)[0]
		reqs = [q for q in self.api.requests() if q.get("path") == "/api/v1/nodes"]
		self.assertEqual(len(reqs), 1, "one node list per completion")
		# a short server-side timeout too, so that a slow server cannot hold the shell
		self.assertIn("timeout", reqs[0].get("query") or {})
		return cands, reqs[0].get("user")

	def test_context_flag_chooses_the_cluster(self):
		self.assertEqual(self.node_list_users(["--context", "viewer", "mode", "share", ""]), (self.nodes, "viewer"))
		self.assertEqual(self.node_list_users(["--context=viewer", "restart", ""]), (self.nodes, "viewer"))
		self.assertEqual(self.node_list_users(["restart", ""]), (self.nodes, "admin"))
		self.assertEqual(self.node_list_users(["restart", "--context", "viewer", ""]), (self.nodes, "viewer"))
		# no rights, or a token the server does not know: nothing, and no error text
		for ctx in ("nobody", "badtoken"):
			cands, directive, _ = self.plugin(["--context", ctx, "mode", "share", ""])
			self.assertEqual((cands, directive), ([], 4), ctx)

	def test_namespaces(self):
		# the viewer may list pods but not namespaces: the pods' namespaces are offered
		cands = self.plugin(["--context", "viewer", "-n", ""])[0]
		self.assertEqual(cands, self.pod_namespaces)
		cands = self.plugin(["--namespace", ""])[0]
		for ns in self.pod_namespaces:
			self.assertIn(ns, cands)
		# a cluster's own namespaces are there besides those of pods
		self.assertEqual(self.plugin(["-n", "kube-"])[0], ["kube-node-lease", "kube-public", "kube-system"])

	# -- through the shells and kubectl ----------------------------------------------------------------

	def test_bash_function(self):
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "mode", ""])[0], MODES)
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", ""])[0], sorted(["completion", "defrag", "fit", "help", "mode", "restart", "top", "usage", "version"] + self.nodes))
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "mode", "share", ""])[0], self.nodes)
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "--context", ""])[0], CONTEXTS)
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "-o", ""])[0], ["json", "name", "wide", "yaml"])
		# bash splits "--pool=np" at "=": the candidates replace only the last piece
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "--pool", "=", ""])[0], self.pools)
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "--pool", "=", "np-cgpu-"])[0], ["np-cgpu-no-isolation"])
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "--context", "=", "viewer", "-n", ""])[0], self.pod_namespaces)
		self.assertEqual(self.bash(["kubectl-inspect-cgpu", "--det"])[0], ["--details"])

	def test_bash_function_krew_name(self):
		comp = ["kubectl-inspect_cgpu", "mode", ""]
		script = ('source "$1"; shift; complete -p kubectl-inspect_cgpu >/dev/null || exit 9; COMP_WORDS=("$@"); '
			'COMP_CWORD=$(($# - 1)); _kubectl_inspect_cgpu; printf "%s\\n" "${COMPREPLY[@]}"')
		r = subprocess.run(["bash", "-c", script, "bash", BASH_SCRIPT] + comp, capture_output=True, text=True,
			env=self.env(path_dirs=[self.krew]), timeout=30)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout.split(), MODES)

	def test_helper(self):
		for name in ("kubectl_complete-inspect-cgpu", "kubectl_complete-inspect_cgpu"):
			self.assertEqual(self.helper(["mode", ""], name=name)[0], MODES)
			self.assertEqual(self.helper(["--pool", ""], name=name)[0], self.pools)
			self.assertEqual(self.helper(["restart", ""], name=name)[0], self.nodes)
		self.assertEqual(self.helper(["mode", "share", ""], name="kubectl_complete-inspect_cgpu",
			where=self.krew)[0], self.nodes)

	def test_kubectl(self):
		cands, directive, _ = self.kubectl(["mode", ""])
		self.assertEqual((cands, directive), (MODES, 4))
		self.assertEqual(self.kubectl([""])[0], sorted(["completion", "defrag", "fit", "help", "mode", "restart", "top", "usage", "version"] + self.nodes))
		self.assertEqual(self.kubectl(["--pool", ""])[0], self.pools)
		self.assertEqual(self.kubectl(["mode", "share", ""])[0], self.nodes)
		self.assertEqual(self.kubectl(["-o", ""])[0], ["json", "name", "wide", "yaml"])
		self.assertEqual(self.kubectl(["-l", "cg"])[:2], (["cgpu.disable.isolation=", "cgpu="], 6))
		# kubectl's own word: `inspect` is offered as a plugin command
		r = subprocess.run(["kubectl", "__complete", "ins"], capture_output=True, text=True, env=self.env(), timeout=30)
		self.assertIn("inspect", [l.split("\t")[0] for l in r.stdout.splitlines()])

	def test_kubectl_krew_spelling(self):
		cands, directive, _ = self.kubectl(["mode", ""], plugin_words=("inspect-cgpu",), path_dirs=[self.krew])
		self.assertEqual((cands, directive), (MODES, 4))
		self.assertEqual(self.kubectl(["restart", ""], plugin_words=("inspect-cgpu",), path_dirs=[self.krew])[0],
			self.nodes)

	# -- a cluster that cannot be reached --------------------------------------------------------------

	def unreachable_kubeconfig(self, name, port):
		path = os.path.join(self.tmp, name + "-kubeconfig")
		with open(self.api.kubeconfig) as f:
			text = f.read()
		text = re.sub(r"server: https://127\.0\.0\.1:\d+", "server: https://127.0.0.1:%d" % port, text)
		self.assertIn(":%d" % port, text)
		with open(path, "w") as f:
			f.write(text)
		return path

	def check_unreachable(self, kubeconfig):
		for words, static in ((["mode", "share", ""], []), (["--pool", ""], []), (["-n", ""], []),
				(["--context", "viewer", "restart", ""], []), ([""], ["completion", "defrag", "fit", "help", "mode", "restart", "top", "usage", "version"])):
			cands, directive, secs = self.plugin(words, kubeconfig)
			self.assertEqual((cands, directive), (static, 4), words)
			self.assertLess(secs, DEADLINE, words)
			cands, directive, secs = self.helper(words, kubeconfig)
			self.assertEqual((cands, directive), (static, 4), words)
			self.assertLess(secs, DEADLINE, words)
		out, secs = self.bash(["kubectl-inspect-cgpu", "mode", "share", ""], kubeconfig)
		self.assertEqual(out, [])
		self.assertLess(secs, DEADLINE)
		if self.kubectl_minor is not None and self.kubectl_minor >= 26:
			# kubectl itself may wait on the server before it runs the helper (5 s for kubectl 1.32 and
			# a server that never answers): the plugin's share is the difference to a static word.
			cands, directive, base = self.kubectl(["mode", ""], kubeconfig)
			self.assertEqual((cands, directive), (MODES, 4))
			cands, directive, secs = self.kubectl(["mode", "share", ""], kubeconfig)
			self.assertEqual((cands, directive), ([], 4))
			self.assertLess(secs - base, DEADLINE)

	def test_closed_port(self):
		s = socket.socket()
		s.bind(("127.0.0.1", 0))
		port = s.getsockname()[1]
		s.close()
		self.check_unreachable(self.unreachable_kubeconfig("closed", port))

	def test_server_that_never_answers(self):
		# connections are queued by the kernel but never accepted: TLS never starts
		s = socket.socket()
		s.bind(("127.0.0.1", 0))
		s.listen(64)
		try:
			self.check_unreachable(self.unreachable_kubeconfig("blackhole", s.getsockname()[1]))
		finally:
			s.close()


if __name__ == "__main__":
	unittest.main()
