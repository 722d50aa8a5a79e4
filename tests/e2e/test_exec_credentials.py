"""Credentials end to end: the plugin, a fake API server and the fake exec
credential plugin, a token file, and in-cluster service account files."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import ROOT, ClusterCase, FakeAPI, plugin_path, run_plugin

FAKE_PLUGIN = os.path.join(ROOT, "fixtures", "kubeconfig", "exec", "fake-credential-plugin.py")


def auth_of(req):
	h = {k.lower(): v for k, v in req.get("headers", {}).items()}
	return h.get("authorization")


@unittest.skipUnless(plugin_path(), "plugin not built")
class ExecCredentials(ClusterCase):
	scenario = "empty"
	server = FakeAPI

	def setUp(self):
		self.dir = tempfile.mkdtemp(prefix="cgpu-cred-")
		self.record = os.path.join(self.dir, "record.jsonl")
		self.api.clear_requests()

	def tearDown(self):
		shutil.rmtree(self.dir, ignore_errors=True)

	def env(self, **extra):
		e = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_") and k != "KUBECONFIG"}
		e.update(HOME=self.dir, FAKE_RECORD=self.record)
		e.update(extra)
		return e

	def kubeconfig(self, user):
		# JSON is YAML too
		cfg = {
			"apiVersion": "v1", "kind": "Config",
			"clusters": [{"name": "fake", "cluster": {"server": self.api.url, "certificate-authority": self.api.ca}}],
			"users": [{"name": "u", "user": user}],
			"contexts": [{"name": "c", "context": {"cluster": "fake", "user": "u"}}],
			"current-context": "c",
		}
		path = os.path.join(self.dir, "kubeconfig")
		with open(path, "w") as f:
			json.dump(cfg, f)
		return path

	def exec_user(self, command=FAKE_PLUGIN, **env):
		return {"exec": {
			"apiVersion": "client.authentication.k8s.io/v1", "command": command, "interactiveMode": "Never",
			"provideClusterInfo": True,
			"env": [{"name": k, "value": v} for k, v in env.items()],
			"installHint": "install the fake plugin",
		}}

	def runs(self):
		if not os.path.exists(self.record):
			return []
		with open(self.record) as f:
			return [json.loads(l) for l in f]

	def test_exec_token_used_and_cached(self):
		token = self.api.tokens["admin-token"]
		kc = self.kubeconfig(self.exec_user(FAKE_MODE="env-token", FAKE_TOKEN=token))
		r = run_plugin(["--kubeconfig", kc], env=self.env())
		self.assertEqual(r.returncode, 0, r.stderr)
		reqs = [q for q in self.api.requests() if not q["path"].startswith("/_fake")]
		self.assertTrue(reqs)
		for q in reqs:
			self.assertEqual(auth_of(q), "Bearer " + token)
		runs = self.runs()
		self.assertEqual(len(runs), 1, "one run for all requests")
		info = json.loads(runs[0]["exec_info"])
		self.assertEqual(info["spec"]["cluster"]["server"], self.api.url)
		self.assertIn("certificate-authority-data", info["spec"]["cluster"])
		self.assertEqual(runs[0]["stdin"], "/dev/null")

	def test_exec_rerun_once_after_401(self):
		kc = self.kubeconfig(self.exec_user(FAKE_MODE="first-bad", FAKE_TOKEN=self.api.tokens["admin-token"],
						    FAKE_BAD_TOKEN="not-a-known-token"))
		r = run_plugin(["--kubeconfig", kc], env=self.env())
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(len(self.runs()), 2)

	def test_exec_missing_binary(self):
		kc = self.kubeconfig(self.exec_user(command="no-such-credential-plugin"))
		r = run_plugin(["--kubeconfig", kc], env=self.env())
		self.assertEqual(r.returncode, 1)
		self.assertTrue(r.stderr.startswith(
			"Unable to connect to the server: getting credentials: exec: executable no-such-credential-plugin not found"),
			r.stderr)
		self.assertIn("install the fake plugin", r.stderr)

	def test_exec_failure_passes_stderr_through(self):
		kc = self.kubeconfig(self.exec_user(FAKE_MODE="fail"))
		r = run_plugin(["--kubeconfig", kc], env=self.env())
		self.assertEqual(r.returncode, 1)
		self.assertIn("fake plugin: refusing", r.stderr)
		self.assertIn("getting credentials: exec: executable %s failed with exit code 3" % FAKE_PLUGIN, r.stderr)

	def test_exec_gets_only_stdio(self):
		# a descriptor the plugin's own caller left open without close-on-exec
		r_fd, w_fd = os.pipe()
		os.set_inheritable(w_fd, True)
		try:
			kc = self.kubeconfig(self.exec_user(FAKE_MODE="env-token", FAKE_TOKEN=self.api.tokens["admin-token"]))
			p = plugin_path()
			e = dict(self.env(), LC_ALL="C", TZ="UTC", NO_COLOR="1")
			r = subprocess.run([p, "--kubeconfig", kc], capture_output=True, text=True, env=e, timeout=60,
					   pass_fds=(w_fd,))
		finally:
			os.close(r_fd)
			os.close(w_fd)
		self.assertEqual(r.returncode, 0, r.stderr)
		runs = self.runs()
		self.assertEqual(len(runs), 1)
		# python's listdir holds one descriptor of its own while it lists
		self.assertLessEqual(len([fd for fd in runs[0]["fds"] if fd > 2]), 1, runs[0]["fds"])
		self.assertNotIn(w_fd, runs[0]["fds"])

	def test_exec_stderr_shown_visibly(self):
		kc = self.kubeconfig(self.exec_user(FAKE_MODE="fail-hostile"))
		p = plugin_path()
		e = dict(self.env(), LC_ALL="C", TZ="UTC", NO_COLOR="1")
		r = subprocess.run([p, "--kubeconfig", kc], capture_output=True, env=e, timeout=60)
		self.assertEqual(r.returncode, 1)
		self.assertIn(b"plugin says \\x1b]0;owned\\x07\\x1b[2J \\u009b31m \\xff\\xfe done", r.stderr)
		for b in r.stderr:
			self.assertTrue(b >= 0x20 or b == 0x0a, r.stderr)
		self.assertNotIn(b"\x7f", r.stderr)
		self.assertNotIn(b"\xc2\x9b", r.stderr)

	def test_token_file(self):
		tok = os.path.join(self.dir, "token")
		with open(tok, "w") as f:
			f.write(self.api.tokens["viewer"] + "\n")
		kc = self.kubeconfig({"tokenFile": tok})
		r = run_plugin(["--kubeconfig", kc], env=self.env())
		self.assertEqual(r.returncode, 0, r.stderr)
		reqs = [q for q in self.api.requests() if not q["path"].startswith("/_fake")]
		self.assertEqual(auth_of(reqs[0]), "Bearer " + self.api.tokens["viewer"])

	def test_in_cluster(self):
		sa = os.path.join(self.dir, "sa")
		os.mkdir(sa)
		with open(os.path.join(sa, "token"), "w") as f:
			f.write(self.api.tokens["admin-token"])
		shutil.copy(self.api.ca, os.path.join(sa, "ca.crt"))
		with open(os.path.join(sa, "namespace"), "w") as f:
			f.write("kube-system\n")
		env = self.env(KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(self.api.port),
			       KUBE_SERVICEACCOUNT_DIR=sa)
		r = run_plugin([], env=env)
		self.assertEqual(r.returncode, 0, r.stderr)
		reqs = [q for q in self.api.requests() if not q["path"].startswith("/_fake")]
		self.assertEqual(auth_of(reqs[0]), "Bearer " + self.api.tokens["admin-token"])


if __name__ == "__main__":
	unittest.main()
