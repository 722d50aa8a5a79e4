"""meson install: every installed file is where a user and kubectl look for it, and works there.

The build directory is the one the plugin under test was built in (CGPU_PLUGIN is BUILD/src/...); it is
installed with --no-rebuild into a temporary DESTDIR, and what meson says it installs is checked there.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import ROOT, meson_build_dir

ENV = {"LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1"}

SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "GLOBAL OPTIONS", "OUTPUT", "EXIT STATUS",
	"ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"]


def meson_json(build, *what):
	r = subprocess.run(["meson", "introspect", build] + list(what), capture_output=True, text=True, check=True)
	return json.loads(r.stdout)


def strip_overstrike(text):
	"""Plain text from mandoc -T ascii (bold and underline are written with backspaces)."""
	return re.sub(r".\x08", "", text)


class InstallTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		cls.build = meson_build_dir()
		cls.tmp = tempfile.mkdtemp(prefix="cgpu-install-")
		cls.dest = os.path.join(cls.tmp, "dest")
		# --no-rebuild: install what was built, without compiling the rest of the tree
		r = subprocess.run(["meson", "install", "-C", cls.build, "--no-rebuild", "--destdir", cls.dest],
			capture_output=True, text=True)
		if r.returncode != 0:
			shutil.rmtree(cls.tmp, ignore_errors=True)
			raise AssertionError("meson install failed:\n" + r.stdout + r.stderr)
		opts = {o["name"]: o["value"] for o in meson_json(cls.build, "--buildoptions")}
		cls.prefix = opts["prefix"]
		cls.bindir = cls.staged(os.path.join(cls.prefix, opts["bindir"]))
		cls.mandir = cls.staged(os.path.join(cls.prefix, opts["mandir"]))
		cls.installed = {k: cls.staged(v) for k, v in meson_json(cls.build, "--installed").items()}
		cls.version = meson_json(cls.build, "--projectinfo")["version"]
		cls.plugin = os.path.join(cls.bindir, "kubectl-inspect-cgpu")
		cls.home = os.path.join(cls.tmp, "home")
		os.mkdir(cls.home)

	@classmethod
	def tearDownClass(cls):
		shutil.rmtree(cls.tmp, ignore_errors=True)

	@classmethod
	def staged(cls, path):
		return cls.dest + path if os.path.isabs(path) else os.path.join(cls.dest, path)

	def env(self, path_dirs=(), **extra):
		"""A clean environment: no cluster reachable, PATH = path_dirs + the system."""
		e = dict(os.environ, **ENV)
		e["PATH"] = os.pathsep.join(list(path_dirs) + ["/usr/local/bin", "/usr/bin", "/bin"])
		e["HOME"] = self.home
		e["KUBECONFIG"] = os.path.join(self.tmp, "no-such-kubeconfig")
		for k in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
			e.pop(k, None)
		e.update(extra)
		return e

	def run_cmd(self, argv, **kw):
		env = kw.pop("env", None) or self.env()
		return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=30, **kw)

	def installed_named(self, source_name):
		hits = [v for k, v in self.installed.items() if os.path.basename(k) == source_name]
		self.assertEqual(len(hits), 1, "%s installed once: %r" % (source_name, hits))
		return hits[0]

	# -- the list of files -----------------------------------------------------------------------------

	def test_every_installed_file_exists(self):
		self.assertTrue(self.installed)
		for src, dst in self.installed.items():
			self.assertTrue(os.path.lexists(dst), "%s was not installed at %s" % (src, dst))

	def test_expected_files(self):
		expected = [
			os.path.join(self.bindir, "kubectl-inspect-cgpu"),
			os.path.join(self.bindir, "kubectl_complete-inspect-cgpu"),
			os.path.join(self.bindir, "kubectl_complete-inspect_cgpu"),
			os.path.join(self.mandir, "man1", "kubectl-inspect-cgpu.1"),
		]
		for p in expected:
			self.assertTrue(os.path.lexists(p), p + " is missing")
		for p in expected[:3]:
			self.assertTrue(os.access(p, os.X_OK), p + " is not executable")
		link = os.path.join(self.bindir, "kubectl_complete-inspect_cgpu")
		self.assertTrue(os.path.islink(link))
		self.assertEqual(os.readlink(link), "kubectl_complete-inspect-cgpu", "a relative link, valid wherever installed")

	# -- the binary ------------------------------------------------------------------------------------

	def test_version(self):
		r = self.run_cmd([self.plugin, "--version"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stderr, "")
		m = re.fullmatch(r"kubectl-inspect-cgpu v?(\S+) \(commit ([0-9a-f]{7,40}|unknown)\)\n", r.stdout)
		self.assertIsNotNone(m, r.stdout)
		self.assertEqual(m.group(1), self.version)
		if m.group(2) != "unknown" and shutil.which("git") and os.path.isdir(os.path.join(ROOT, ".git")):
			g = subprocess.run(["git", "-C", ROOT, "cat-file", "-e", m.group(2) + "^{commit}"], capture_output=True)
			self.assertEqual(g.returncode, 0, "commit %s is not in the repository" % m.group(2))

	def test_usage_names_the_command_as_run(self):
		r = self.run_cmd([self.plugin, "--help"])
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("kubectl inspect cgpu [NODE...]", r.stdout)
		# krew's spelling: a link named kubectl-inspect_cgpu, run by kubectl as `kubectl inspect-cgpu`
		krew = os.path.join(self.tmp, "krew-bin")
		os.makedirs(krew, exist_ok=True)
		link = os.path.join(krew, "kubectl-inspect_cgpu")
		if not os.path.lexists(link):
			os.symlink(self.plugin, link)
		for args in (["--help"], ["mode", "--help"]):
			r = self.run_cmd([link] + args)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertIn("kubectl inspect-cgpu ", r.stdout)
			self.assertNotIn("kubectl inspect cgpu", r.stdout)
		r = self.run_cmd([link, "--no-such-flag"])
		self.assertEqual(r.returncode, 1)
		self.assertIn("'kubectl inspect-cgpu --help'", r.stderr)
		# and a copy under that name, not only a link
		copy = os.path.join(self.tmp, "kubectl-inspect_cgpu")
		shutil.copy2(self.plugin, copy)
		r = self.run_cmd([copy, "top", "--help"])
		self.assertIn("kubectl inspect-cgpu top", r.stdout)

	# -- completion helpers and scripts ----------------------------------------------------------------

	def helper_candidates(self, helper, words, path_dirs=()):
		r = self.run_cmd([helper] + words, env=self.env(path_dirs))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stderr, "")
		lines = r.stdout.splitlines()
		self.assertTrue(lines and re.fullmatch(r":\d+", lines[-1]), r.stdout)
		return lines[:-1], int(lines[-1][1:])

	def test_completion_helpers(self):
		# PATH does not hold the install: the helper finds the plugin beside itself
		for name in ("kubectl_complete-inspect-cgpu", "kubectl_complete-inspect_cgpu"):
			helper = os.path.join(self.bindir, name)
			cands, directive = self.helper_candidates(helper, ["mode", ""])
			self.assertEqual(cands, ["core", "exclusive", "isolate", "share"])
			self.assertEqual(directive & 4, 4, "no file names")
			cands, _ = self.helper_candidates(helper, ["-o", ""])
			self.assertEqual(cands, ["json", "name", "wide", "yaml"])
			cands, _ = self.helper_candidates(helper, ["--de"])
			self.assertEqual(cands, ["--details"])

	def test_completion_helper_in_krew_layout(self):
		# krew links only kubectl-inspect_cgpu; the helper link sits beside it
		krew = os.path.join(self.tmp, "krew-layout")
		os.makedirs(krew)
		os.symlink(self.plugin, os.path.join(krew, "kubectl-inspect_cgpu"))
		helper = os.path.join(krew, "kubectl_complete-inspect_cgpu")
		os.symlink(os.path.join(self.bindir, "kubectl_complete-inspect-cgpu"), helper)
		cands, _ = self.helper_candidates(helper, [""])
		self.assertEqual(cands, ["completion", "defrag", "fit", "help", "mode", "restart", "top", "usage", "version"])

	def test_shell_completions_installed(self):
		bash = self.installed_named("kubectl-inspect-cgpu.bash")
		zsh = self.installed_named("_kubectl-inspect-cgpu")
		fish = self.installed_named("kubectl-inspect-cgpu.fish")
		self.assertIn("bash-completion", bash)
		self.assertEqual(os.path.basename(bash), "kubectl-inspect-cgpu", "bash-completion loads it by command name")
		krew_bash = os.path.join(os.path.dirname(bash), "kubectl-inspect_cgpu")
		self.assertTrue(os.path.exists(krew_bash), "the krew spelling loads the same script")
		self.assertIn(os.sep + "zsh" + os.sep, zsh)
		self.assertEqual(os.path.basename(zsh), "_kubectl-inspect-cgpu")
		with open(zsh) as f:
			self.assertTrue(f.readline().startswith("#compdef kubectl-inspect-cgpu"))
		self.assertIn(os.sep + "fish" + os.sep, fish)
		self.assertEqual(os.path.basename(fish), "kubectl-inspect-cgpu.fish")
		with open(fish) as f:
			self.assertIn("complete -c kubectl-inspect-cgpu", f.read())
		r = self.run_cmd(["bash", "-n", bash])
		self.assertEqual(r.returncode, 0, r.stderr)
		# the installed bash script, driven as bash drives it, with the installed plugin on PATH
		script = ('source "$1"; complete -p kubectl-inspect-cgpu kubectl-inspect_cgpu >/dev/null || exit 9; '
			'COMP_WORDS=(kubectl-inspect-cgpu mode ""); COMP_CWORD=2; _kubectl_inspect_cgpu; '
			'printf "%s\\n" "${COMPREPLY[@]}"')
		r = self.run_cmd(["bash", "-c", script, "bash", bash], env=self.env([self.bindir]))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout.split(), ["core", "exclusive", "isolate", "share"])

	# -- the manual page -------------------------------------------------------------------------------

	def man_page(self):
		return os.path.join(self.mandir, "man1", "kubectl-inspect-cgpu.1")

	def test_man_page_lint(self):
		if shutil.which("mandoc") is None:
			self.skipTest("mandoc is not installed")
		r = self.run_cmd(["mandoc", "-T", "lint", "-W", "warning", self.man_page()])
		self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
		self.assertEqual(r.stdout + r.stderr, "")

	def test_man_page_groff(self):
		if shutil.which("groff") is None:
			self.skipTest("groff is not installed")
		# the terminal's device too, where man shows it: no line it cannot adjust
		for device in ([], ["-Tutf8"], ["-Tascii"]):
			r = self.run_cmd(["groff", "-ww", "-man", "-z"] + device + [self.man_page()])
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertEqual(r.stderr, "", device)

	def test_man_page_synopsis_and_paging(self):
		text = self.rendered_man()
		synopsis = text.split("\nSYNOPSIS\n")[1].split("\nDESCRIPTION\n")[0]
		default = synopsis.split("kubectl inspect cgpu top")[0]
		for flag in ("--no-headers", "--sort-by", "--by", "--unit", "--pool", "--scheme"):
			self.assertIn(flag, default)
		# lists are paged only where they are read from etcd
		paged = re.sub(r"\s+", " ", text)
		self.assertNotIn("Lists are read in pages of 500", paged)
		self.assertRegex(paged, r"--consistent-read.{0,120}pages of 500")

	def rendered_man(self):
		if shutil.which("mandoc") is None:
			self.skipTest("mandoc is not installed")
		r = self.run_cmd(["mandoc", "-T", "ascii", "-O", "width=300", self.man_page()])
		self.assertEqual(r.returncode, 0, r.stderr)
		return strip_overstrike(r.stdout)

	def test_man_page_content(self):
		with open(self.man_page()) as f:
			source = f.read()
		self.assertNotRegex(source, r"@[A-Z_]+@", "a placeholder was left in the installed page")
		self.assertIn('"kubectl-inspect-cgpu %s"' % self.version, source)
		text = self.rendered_man()
		headings = [l.strip() for l in text.splitlines() if l and not l[0].isspace()]
		for s in SECTIONS:
			self.assertIn(s, headings)
		self.assertLess(headings.index("NAME"), headings.index("SEE ALSO"))
		self.assertIn("kubectl(1)", text)
		for env in ("KUBECONFIG", "HOME", "KUBERNETES_SERVICE_HOST", "NO_COLOR", "HTTPS_PROXY", "NO_PROXY"):
			self.assertIn(env, text)
		self.assertIn("~/.kube/config", text)
		self.assertIn("/var/run/secrets/kubernetes.io/serviceaccount", text)
		# the documentation the page points to was installed there
		docdir = re.search(r"(\S+)/rbac-readonly\.yaml", text).group(1)
		self.assertTrue(os.path.isfile(self.staged(docdir) + "/rbac-admin.yaml"))

	def test_man_page_documents_every_flag(self):
		"""Each command's flags, as --help prints them from the flag tables, appear in the page."""
		text = self.rendered_man()
		self.assertIn("GPUShareReport", text)
		r = self.run_cmd([self.plugin, "--help"])
		commands = re.findall(r"^  (\w+)\s{2,}", r.stdout.split("Commands:")[1].split("Flags:")[0], re.M)
		commands = [c for c in commands if not c.startswith("__")]
		self.assertEqual(sorted(commands), ["completion", "defrag", "fit", "help", "mode", "restart", "top", "usage", "version"])
		for cmd in [[]] + [[c] for c in commands]:
			r = self.run_cmd([self.plugin] + cmd + ["--help"])
			self.assertEqual(r.returncode, 0, r.stderr)
			flags = re.findall(r"^\s+(?:-(\w), )?--([\w-]+)", r.stdout, re.M)
			self.assertGreater(len(flags), 10)
			for short, name in flags:
				self.assertRegex(text, r"(?<![\w-])--%s\b" % re.escape(name), "--%s of %s" % (name, cmd))
				if short:
					self.assertRegex(text, r"(?<![\w-])-%s, --%s\b" % (short, re.escape(name)))
			if cmd:
				self.assertIn("kubectl inspect cgpu %s" % cmd[0], text)

	# -- kubectl finds it ------------------------------------------------------------------------------

	def kubectl(self):
		k = shutil.which("kubectl")
		if k is None:
			self.skipTest("kubectl is not installed")
		return k

	def test_kubectl_plugin_list(self):
		kubectl = self.kubectl()
		env = self.env([self.bindir, os.path.dirname(kubectl)])
		r = self.run_cmd([kubectl, "plugin", "list"], env=env)
		self.assertIn(os.path.join(self.bindir, "kubectl-inspect-cgpu") + "\n", r.stdout, r.stderr)
		self.assertNotIn("kubectl-inspect-cgpu is not executable", r.stderr)
		r = self.run_cmd([kubectl, "inspect", "cgpu", "--version"], env=env)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertTrue(r.stdout.startswith("kubectl-inspect-cgpu "), r.stdout)
		r = self.run_cmd([kubectl, "inspect", "cgpu", "mode", "--help"], env=env)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("kubectl inspect cgpu mode MODE", r.stdout)

	def test_kubectl_runs_krew_spelling(self):
		kubectl = self.kubectl()
		krew = os.path.join(self.tmp, "krew-kubectl")
		os.makedirs(krew)
		os.symlink(self.plugin, os.path.join(krew, "kubectl-inspect_cgpu"))
		env = self.env([krew, os.path.dirname(kubectl)])
		r = self.run_cmd([kubectl, "plugin", "list"], env=env)
		self.assertIn(os.path.join(krew, "kubectl-inspect_cgpu"), r.stdout, r.stderr)
		r = self.run_cmd([kubectl, "inspect-cgpu", "--help"], env=env)
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("kubectl inspect-cgpu [NODE...]", r.stdout)


if __name__ == "__main__":
	unittest.main()
