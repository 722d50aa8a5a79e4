"""Every command and output format against a hostile API server (fakeapi.py --hostile MODE).

text and badutf8: control characters (an OSC title change, a bell, a screen clear, a colour change, a C1
CSI, DEL, a tab, a newline), CJK text and bytes that are not UTF-8 in every string the plugin prints, in
Status messages and in Warning headers.  No byte below 0x20 but the newline, no DEL, no C1 control and
nothing that is not UTF-8 may reach stdout or stderr of human-readable output; JSON and YAML keep the
exact values.  repeat-continue, endless and huge: lists that would not end or that break a budget end
with one line and exit 1 in under 5 seconds.  watch-backwards: the live view does not go back in time.
`top` runs in tmux (see test_top.py).  The run-all script runs this file with the sanitizer build too.
"""

import json
import os
import re
import shutil
import subprocess
import time
import unittest

from harness import FakeAPI, plugin_path
from test_top import Pane

SCENARIO = "pools-pro"
C1 = re.compile(rb"\xc2[\x80-\x9f]")


def run(args, env=None, timeout=60):
	e = dict(os.environ, LC_ALL="C", TZ="UTC", NO_COLOR="1")
	e.update(env or {})
	t0 = time.monotonic()
	r = subprocess.run([plugin_path()] + list(args), capture_output=True, env=e, timeout=timeout)
	r.seconds = time.monotonic() - t0
	return r


class Base(unittest.TestCase):
	mode = None

	@classmethod
	def setUpClass(cls):
		cls.api = FakeAPI(SCENARIO, hostile=cls.mode).start()

	@classmethod
	def tearDownClass(cls):
		cls.api.stop()

	def plugin(self, *args, env=None, timeout=60):
		return run(list(args) + ["--kubeconfig", self.api.kubeconfig], env=env, timeout=timeout)

	def assert_safe(self, data, what):
		"""Bytes a terminal may be given: printable UTF-8 and newlines."""
		for i, b in enumerate(data):
			if (b < 0x20 and b != 0x0a) or b == 0x7f:
				self.fail("%s: byte 0x%02x at %d: %r" % (what, b, i, data[max(0, i - 40):i + 40]))
		m = C1.search(data)
		self.assertIsNone(m, "%s: C1 control at %s" % (what, m and m.start()))
		try:
			data.decode("utf-8")
		except UnicodeDecodeError as e:
			self.fail("%s: not UTF-8: %s" % (what, e))

	def node_names(self):
		return sorted(o["metadata"]["name"] for o in self.api.objects() if o.get("kind") == "Node")


@unittest.skipUnless(plugin_path(), "plugin not built")
class HostileText(Base):
	mode = "text"
	marker = b"\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\u009b1m\\x7f\\x09\\x0aX\xe4\xb8\xad\xe6\x96\x87"

	def test_inspect_human_outputs(self):
		for args in ([], ["-d"], ["-o", "wide"], ["-d", "-n", "kube-system"]):
			with self.subTest(args=args):
				r = self.plugin(*args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assert_safe(r.stdout, "stdout of %r" % args)
				self.assert_safe(r.stderr, "stderr of %r" % args)
				if args != ["-d", "-n", "kube-system"]:
					self.assertIn(self.marker, r.stdout)

	def test_tables_stay_aligned(self):
		r = self.plugin("-o", "wide")
		lines = r.stdout.decode().splitlines()
		header = lines[0]
		col = header.index("IPADDRESS")
		# every row has its address where the header has it, CJK names being two columns a character
		for line in lines[1:]:
			if not line.startswith("cn-"):
				continue
			width = 0
			for i, ch in enumerate(line):
				if width == col:
					self.assertTrue(line[i:].startswith("192.168."), line)
					break
				width += 2 if "\u4e00" <= ch <= "\u9fff" else 1

	def test_json_and_yaml_keep_exact_values(self):
		r = self.plugin("-o", "json")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assert_safe(r.stderr, "stderr")
		doc = json.loads(r.stdout)
		names = sorted(n["name"] for n in doc["nodes"])
		self.assertEqual(names, self.node_names())
		self.assertTrue(all("\x1b]0;pwned\x07" in n for n in names))
		r = self.plugin("-o", "yaml")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assert_safe(r.stderr, "stderr")
		self.assertIn(b"kind: GPUShareReport", r.stdout)

	def test_status_messages_and_warning_headers(self):
		self.api.fault({"path_prefix": "/api/v1/nodes"}, {"type": "status", "code": 403})
		r = self.plugin()
		self.assertEqual(r.returncode, 1)
		self.assert_safe(r.stderr, "stderr")
		self.assertIn(b"hostile warning", r.stderr)
		err = [l for l in r.stderr.splitlines() if not l.startswith(b"Warning:")]
		self.assertEqual(len(err), 1, r.stderr)
		self.assertIn(b"\\x1b]0;pwned", err[0])

	def test_mode_plan_and_results(self):
		name = self.node_names()[0]
		for args in (["--dry-run=client"], ["--dry-run=server"], ["--yes"], ["-o", "json", "--dry-run=client"]):
			with self.subTest(args=args):
				self.api.reset()
				r = self.plugin("mode", "exclusive", name, *args)
				self.assert_safe(r.stderr, "stderr")
				# the server refuses the patch: the node's other labels are not valid label values (a real
				# API server would never have stored them); the refusal is one line of its own
				if args[0] in ("--dry-run=server", "--yes"):
					self.assertEqual(r.returncode, 1, r.stderr)
					self.assertEqual(len([l for l in r.stderr.splitlines() if l.startswith(b"node/")]), 1)
				else:
					self.assertEqual(r.returncode, 0, r.stderr)
				if "json" in args:
					self.assertEqual(json.loads(r.stdout)["nodes"][0]["name"], name)
				else:
					self.assert_safe(r.stdout, "stdout")
					self.assertIn(self.marker, r.stdout)
					# the plan's lines are the plugin's own: none starts inside a name
					for line in r.stdout.splitlines():
						self.assertRegex(line, rb"^(Edition|Mode|Then|node/|    )", r.stdout)

	def test_restart(self):
		name = self.node_names()[0]
		for args in (["--dry-run"], ["--timeout", "20s"]):
			with self.subTest(args=args):
				self.api.reset()
				r = self.plugin("restart", name, *args)
				self.assert_safe(r.stdout, "stdout")
				self.assert_safe(r.stderr, "stderr")
				self.assertIn(self.marker, r.stdout + r.stderr)
				for line in (r.stdout + r.stderr).splitlines():
					self.assertRegex(line, rb"^(node/|Warning: )", r.stdout + r.stderr)

	def test_completion_protocol(self):
		for words in ([""], ["mode", "share", ""], ["--pool", ""], ["-l", ""]):
			with self.subTest(words=words):
				r = run(["__complete"] + words, env={"KUBECONFIG": self.api.kubeconfig})
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assert_safe(r.stdout, "candidates")
				self.assert_safe(r.stderr, "stderr")
				lines = r.stdout.decode().split("\n")
				self.assertEqual(lines[-1], "")
				self.assertRegex(lines[-2], r"^:\d+$")
				for line in lines[:-2]:
					self.assertNotIn("\t", line)

	@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")
	def test_top_screen_and_title(self):
		pane = Pane(self.api, cols=160, lines=30)
		try:
			screen = pane.wait_text("pwned")
			self.assertIn("\\x1b]0;pwned", screen)
			title = pane.tmux("display-message", "-p", "-t", "top", "#{pane_title}")
			self.assertNotIn("pwned", title)
			for ch in screen:
				self.assertTrue(ch == "\n" or ord(ch) >= 0x20, repr(screen))
			pane.keys("Enter")
			pane.wait_text("GPU")
			pane.keys("q")
			self.assertEqual(pane.wait_exit(), 0)
		finally:
			pane.close()


@unittest.skipUnless(plugin_path(), "plugin not built")
class HostileBadUTF8(Base):
	mode = "badutf8"

	def test_human_outputs_are_utf8(self):
		for args in ([], ["-d"], ["-o", "wide"], ["no-such-node"]):
			with self.subTest(args=args):
				r = self.plugin(*args)
				self.assert_safe(r.stdout, "stdout of %r" % args)
				self.assert_safe(r.stderr, "stderr of %r" % args)
				if r.returncode != 0:
					self.assertEqual(len([l for l in r.stderr.splitlines() if not l.startswith(b"Warning:")]), 1,
						r.stderr)

	def test_other_commands(self):
		# the name as the server sends it: argv carries the bytes that are not UTF-8 (surrogateescape)
		name = "cn-shanghai.192.168.7.157\udcff\udcfe\udcc3X"
		for args in (["mode", "exclusive", name, "--dry-run=client"], ["restart", name, "--dry-run"]):
			with self.subTest(args=args):
				r = self.plugin(*args)
				self.assert_safe(r.stdout, "stdout of %r" % args)
				self.assert_safe(r.stderr, "stderr of %r" % args)
		r = run(["__complete", ""], env={"KUBECONFIG": self.api.kubeconfig})
		self.assert_safe(r.stdout, "candidates")


class EndsBase(Base):
	env = {}
	words = b""
	max_seconds = 5.0

	@classmethod
	def setUpClass(cls):
		if cls.mode is None:
			raise unittest.SkipTest("the shared checks of the classes below")
		super().setUpClass()

	def assert_one_line_exit_1(self, r, what):
		self.assertEqual(r.returncode, 1, "%s: %r" % (what, r.stderr))
		self.assertLess(r.seconds, self.max_seconds, what)
		lines = [l for l in r.stderr.splitlines() if not l.startswith(b"Warning:")]
		self.assertEqual(len(lines), 1, r.stderr)
		self.assertIn(self.words, lines[0])

	def test_every_command_ends(self):
		for args in ([], ["-d"], ["-o", "json"], ["-o", "yaml"], ["mode", "share", "--pool", "np-cgpu", "--dry-run=client"]):
			with self.subTest(args=args):
				r = self.plugin(*args, env=self.env, timeout=30)
				self.assert_one_line_exit_1(r, repr(args))

	def test_restart_ends(self):
		r = self.plugin("restart", "cn-shanghai.192.168.7.157", "--dry-run", env=self.env, timeout=30)
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertLess(r.seconds, 5.0)
		self.assertIn(self.words, r.stderr)

	def test_completion_ends(self):
		r = run(["__complete", ""], env=dict(self.env, KUBECONFIG=self.api.kubeconfig), timeout=30)
		self.assertLess(r.seconds, 5.0)
		self.assertRegex(r.stdout.decode().splitlines()[-1], r"^:\d+$")

	@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")
	def test_top_says_so(self):
		pane = Pane(self.api, cols=200, lines=30, env=self.env)
		try:
			# the fake server pages slowly when the machine is busy: the commands above are timed, this
			# checks what the status line says
			pane.wait_text(self.words.decode(), timeout=15)
			# the first list broke a budget: top ends with the error, as the other commands end
			self.assertEqual(pane.wait_exit(), 1)
		finally:
			pane.close()


@unittest.skipUnless(plugin_path(), "plugin not built")
class RepeatedContinue(EndsBase):
	mode = "repeat-continue"
	words = b"continue token it had already sent"


@unittest.skipUnless(plugin_path(), "plugin not built")
class EndlessPages(EndsBase):
	mode = "endless"
	env = {"CGPU_LIST_MAX_OBJECTS": "3000"}
	words = b"more than 3000 objects"


@unittest.skipUnless(plugin_path(), "plugin not built")
class HugeObject(EndsBase):
	mode = "huge"
	words = b"larger than 16 MiB"
	# the fake server needs a few seconds of its own to serve 100 MB to each new query
	max_seconds = 15.0

	def test_restart_ends(self):
		pass  # restart reads nodes by name, one at a time: the huge one is a single GET, not a list

	def test_completion_ends(self):
		super().test_completion_ends()


@unittest.skipUnless(plugin_path(), "plugin not built")
@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")
class WatchBackwards(Base):
	mode = "watch-backwards"

	def test_top_ignores_older_events(self):
		pane = Pane(self.api, cols=160, lines=30)
		try:
			screen = pane.wait_text("cn-shanghai.192.168.7.160")
			time.sleep(2.5)  # bookmarks every second: the stale events have long arrived
			screen = pane.screen()
			self.assertNotIn("stale-ghost", screen)
			self.assertNotIn("999", screen)
			self.assertIn("nodes 4", screen)
			pane.keys("q")
			self.assertEqual(pane.wait_exit(), 0)
		finally:
			pane.close()


if __name__ == "__main__":
	unittest.main()
