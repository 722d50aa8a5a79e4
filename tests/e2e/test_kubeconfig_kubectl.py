"""The kubeconfig loader against kubectl itself, on the fixture kubeconfigs.

tests/kubeconfig-dump prints what the loader resolves; kubectl's
`config view --minify --flatten` shows what kubectl resolves for the same
files and flags, and `kubectl get` shows how kubectl rejects a broken one.
"""

import base64
import json
import os
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.environ.get("FIXTURES_DIR") or os.path.join(HERE, "..", "..", "fixtures")
KC = os.path.join(FIXTURES, "kubeconfig")
DUMP = os.environ.get("KUBECONFIG_DUMP")
KUBECTL = shutil.which("kubectl")


def clean_env(**extra):
	env = {k: v for k, v in os.environ.items()
	       if not k.startswith("KUBERNETES_") and k not in ("KUBECONFIG", "POD_NAMESPACE")}
	env["HOME"] = "/nonexistent"
	env.update(extra)
	return env


@unittest.skipUnless(DUMP and os.path.exists(DUMP), "KUBECONFIG_DUMP not set (run through meson test kubeconfig-kubectl)")
@unittest.skipUnless(KUBECTL, "kubectl not installed")
class KubeconfigLikeKubectl(unittest.TestCase):
	def ours(self, args, env):
		r = subprocess.run([DUMP] + args, capture_output=True, text=True, env=env, cwd="/", timeout=30)
		self.assertEqual(r.returncode, 0, r.stderr)
		return json.loads(r.stdout)

	def theirs(self, args, env):
		r = subprocess.run([KUBECTL, "config", "view", "--minify", "--flatten", "-o", "json"] + args,
				   capture_output=True, text=True, env=env, cwd="/", timeout=30)
		self.assertEqual(r.returncode, 0, r.stderr)
		return json.loads(r.stdout)

	def compare(self, args, env):
		ours = self.ours(args, env)
		view = self.theirs(args, env)
		ctx = view["contexts"][0]
		cluster = view["clusters"][0]["cluster"]
		user = view["users"][0]["user"] if view.get("users") else {}
		self.assertEqual(ours["context"], view["current-context"])
		self.assertEqual(ours["cluster"] or "", ctx["context"].get("cluster", ""))
		self.assertEqual(ours["user"] or "", ctx["context"].get("user", ""))
		self.assertEqual(ours["namespace"], ctx["context"].get("namespace", "default"))
		self.assertEqual(ours["server"], cluster["server"].rstrip("/"))
		self.assertEqual(ours["tls_server_name"], cluster.get("tls-server-name"))
		self.assertEqual(ours["insecure"], cluster.get("insecure-skip-tls-verify", False))
		# --flatten reads each file relative to the kubeconfig that named it
		ca = base64.b64decode(cluster.get("certificate-authority-data", ""))
		self.assertEqual(ours["ca_bytes"], len(ca))
		cert = base64.b64decode(user.get("client-certificate-data", ""))
		self.assertEqual(ours["client_cert_bytes"], len(cert))
		self.assertEqual(ours["has_client_key"], bool(user.get("client-key-data")))
		self.assertEqual(ours["has_token"], bool(user.get("token")))
		ext = [e["extension"] for e in cluster.get("extensions", [])
		       if e["name"] == "client.authentication.k8s.io/exec"]
		if user.get("exec", {}).get("provideClusterInfo"):
			self.assertEqual(ours["exec_config"], ext[0] if ext else None)
		return ours

	def test_basic(self):
		for ctx in ("prod", "prod-token", "prod-file", "prod-basic"):
			with self.subTest(context=ctx):
				self.compare(["--kubeconfig", os.path.join(KC, "basic.yaml"), "--context", ctx], clean_env())

	def test_namespace_flag(self):
		args = ["--kubeconfig", os.path.join(KC, "basic.yaml"), "-n", "elsewhere"]
		self.assertEqual(self.ours(args, clean_env())["namespace"], "elsewhere")

	def test_data_and_alias(self):
		for ctx in ("c", "alias"):
			with self.subTest(context=ctx):
				self.compare(["--kubeconfig", os.path.join(KC, "data.yaml"), "--context", ctx], clean_env())

	def test_exec(self):
		ours = self.compare(["--kubeconfig", os.path.join(KC, "exec.yaml")], clean_env())
		self.assertIsNotNone(ours["exec_config"])

	def test_merged_kubeconfig_list(self):
		files = [os.path.join(KC, "merge-a.yaml"), "/nonexistent/config", "",
			 os.path.join(KC, "sub", "merge-b.yaml"), os.path.join(KC, "merge-c.yaml")]
		env = clean_env(KUBECONFIG=":".join(files))
		for args in ([], ["--context", "ctx-b"], ["--context", "ctx-c"], ["--context", "shared-ctx"]):
			with self.subTest(args=args):
				self.compare(args, env)
		env = clean_env(KUBECONFIG=":".join(files[3:] + files[:3]))
		self.compare([], env)

	def test_rejections_worded_like_kubectl(self):
		path = os.path.join(KC, "invalid.yaml")
		contexts = ["insecure-ca", "both-ca", "missing-ca", "token-basic", "cert-nokey", "cert-missing",
			    "cert-both", "exec-empty", "exec-v1-nomode", "exec-badmode", "exec-v1alpha1",
			    "exec-and-provider", "groups-no-as", "bad-proxy", "tokenfile-missing", "many", "nope"]
		for ctx in contexts:
			with self.subTest(context=ctx):
				args = ["--kubeconfig", path, "--context", ctx]
				ours = subprocess.run([DUMP] + args, capture_output=True, text=True, env=clean_env(), timeout=30)
				theirs = subprocess.run([KUBECTL, "get", "nodes", "--request-timeout", "2s"] + args,
							capture_output=True, text=True, env=clean_env(), timeout=60)
				self.assertNotEqual(ours.returncode, 0)
				self.assertNotEqual(theirs.returncode, 0)
				lines = [l for l in theirs.stderr.splitlines() if l.strip()]
				if lines[0].startswith("Error in configuration:"):
					# kubectl lists several problems one per line; we say them on one line
					items = [l[2:] for l in lines[1:] if l.startswith("* ")]
					rest = lines[0][len("Error in configuration:"):].strip()
					if rest:
						items.append(rest)
					for item in items:
						self.assertIn(item, ours.stderr)
				else:
					self.assertEqual(ours.stderr.strip(), lines[0])

	def test_broken_files_worded_like_kubectl(self):
		for name in ("malformed.yaml", "malformed-indent.yaml", "bad-base64.yaml", "no-such-file.yaml"):
			with self.subTest(file=name):
				args = ["--kubeconfig", os.path.join(KC, name)]
				ours = subprocess.run([DUMP] + args, capture_output=True, text=True, env=clean_env(), timeout=30)
				theirs = subprocess.run([KUBECTL, "get", "nodes"] + args, capture_output=True, text=True,
							env=clean_env(), timeout=60)
				self.assertEqual(ours.stderr.strip(), theirs.stderr.strip().splitlines()[0])


if __name__ == "__main__":
	unittest.main()
