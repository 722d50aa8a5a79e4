"""End-to-end tests of `top`, the live view: the plugin runs in a tmux pane against the fake API server.

Each test starts its own tmux server on a private socket.  The pane runs a small shell script that records
`stty -g` before and after the plugin and its exit status, then waits, so the screen left behind can be
inspected.  UPDATE_GOLDEN=1 rewrites tests/e2e/golden/top/screen-80x24.txt (review it by eye).
"""

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from harness import APIServer, fake_only, plugin_path, real_only, run_plugin, HERE

GOLDEN = os.path.join(HERE, "golden", "top", "screen-80x24.txt")

SCRIPT = """\
trap true INT
stty -g > "$D/before"
echo MARK-BEFORE-TOP
sh -c 'echo $$ > "$D/pid"; exec "$PLUGIN" top "$@"' top "$@"
echo $? > "$D/exit.tmp"
stty -g > "$D/after"
echo MARK-AFTER-TOP
mv "$D/exit.tmp" "$D/exit"
exec sleep 600
"""


def pod(name, node, mem, idx, ns="default"):
	return {
		"apiVersion": "v1", "kind": "Pod",
		"metadata": {"name": name, "namespace": ns, "uid": "uid-" + name,
			"annotations": {"ALIYUN_COM_GPU_MEM_IDX": str(idx), "ALIYUN_COM_GPU_MEM_POD": str(mem),
				"ALIYUN_COM_GPU_MEM_ASSIGNED": "true"}},
		"spec": {"nodeName": node, "schedulerName": "default-scheduler",
			"containers": [{"name": "main", "image": "busybox",
				"resources": {"limits": {"aliyun.com/gpu-mem": str(mem)}}}]},
		"status": {"phase": "Running"},
	}


class Pane:
	"""The plugin's `top` in a detached tmux session of the given size."""

	def __init__(self, api, args=(), cols=120, lines=40, env=None, unset=()):
		self.dir = tempfile.mkdtemp(prefix="top-e2e-")
		self.sock = os.path.join(self.dir, "tmux.sock")
		script = os.path.join(self.dir, "run.sh")
		with open(script, "w") as f:
			f.write(SCRIPT)
		e = {"D": self.dir, "PLUGIN": plugin_path(), "NO_COLOR": "1", "LC_ALL": "C", "TZ": "UTC"}
		e.update(env or {})
		argv = ["--kubeconfig", api.kubeconfig] + list(args)
		# ncurses takes COLUMNS and LINES over the real size: a value the
		# test runner exported must not reach the pane.
		unsets = " ".join("-u " + shlex.quote(u) for u in list(unset) + ["COLUMNS", "LINES"])
		for u in unset:
			e.pop(u, None)
		exports = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in e.items())
		cmd = "env %s %s sh %s %s" % (unsets, exports, shlex.quote(script), " ".join(shlex.quote(a) for a in argv))
		self.tmux("new-session", "-d", "-s", "top", "-x", str(cols), "-y", str(lines), cmd)

	def tmux(self, *args):
		return subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null"] + list(args), capture_output=True,
			text=True, timeout=10, check=True).stdout

	def screen(self, escapes=False):
		return self.tmux("capture-pane", "-p", "-t", "top", *(["-e"] if escapes else []))

	def alternate_on(self):
		return self.tmux("display-message", "-p", "-t", "top", "#{alternate_on}").strip() == "1"

	def keys(self, *keys):
		self.tmux("send-keys", "-t", "top", *keys)

	def wait_for(self, pred, timeout=8.0, what=""):
		"""Polls the screen until pred(screen) is true on a screen that has stopped changing (tmux may
		show a frame half drawn, more so under the sanitizers); returns that screen or fails."""
		end = time.monotonic() + timeout
		s = ""
		while time.monotonic() < end:
			s = self.screen()
			if pred(s):
				time.sleep(0.1)
				again = self.screen()
				if again == s:
					return s
				continue
			time.sleep(0.1)
		raise AssertionError("timed out waiting for %s; screen:\n%s" % (what or pred, s))

	def wait_text(self, text, timeout=8.0):
		return self.wait_for(lambda s: text in s, timeout, repr(text))

	def file(self, name):
		p = os.path.join(self.dir, name)
		if not os.path.exists(p):
			return None
		with open(p) as f:
			return f.read().strip()

	def wait_exit(self, timeout=5.0):
		end = time.monotonic() + timeout
		while time.monotonic() < end:
			rc = self.file("exit")
			if rc is not None:
				return int(rc)
			time.sleep(0.05)
		raise AssertionError("top did not exit; screen:\n" + self.screen())

	def pid(self):
		return int(self.file("pid"))

	def close(self):
		subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True, timeout=10)
		shutil.rmtree(self.dir, ignore_errors=True)


def connections_to(pid, port):
	"""The established TCP connections of process pid to a port on loopback (its sockets found in
	/proc/net/tcp by inode)."""
	inodes = set()
	for fd in os.listdir("/proc/%d/fd" % pid):
		try:
			target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
		except OSError:
			continue
		if target.startswith("socket:["):
			inodes.add(target[8:-1])
	n = 0
	for table in ("/proc/net/tcp", "/proc/net/tcp6"):
		with open(table) as f:
			for line in f.readlines()[1:]:
				cols = line.split()
				if cols[3] == "01" and int(cols[2].rsplit(":", 1)[1], 16) == port and cols[9] in inodes:
					n += 1
	return n


def row_order(screen, names):
	"""Line numbers of the node rows that start with each name."""
	lines = screen.splitlines()
	out = []
	for n in names:
		idx = [i for i, l in enumerate(lines) if l.startswith(n + " ")]
		out.append(idx[0] if idx else -1)
	return out


@unittest.skipUnless(plugin_path(), "the plugin is not built (CGPU_PLUGIN)")
@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")
class TopTest(unittest.TestCase):
	def start(self, scenario, args=(), cols=120, lines=40, env=None, faults=(), unset=(), **options):
		self.api = APIServer(scenario, **options).start()
		self.addCleanup(self.api.stop)
		for match, fault in faults:
			self.api.fault(match, fault, times=0)
		self.pane = self.open_pane(args, cols, lines, env, unset)
		return self.pane

	def open_pane(self, *args, **kw):
		"""`top` in a pane against the running server (Pane's arguments), closed with the test."""
		pane = Pane(self.api, *args, **kw)
		self.addCleanup(pane.close)
		return pane

	def quit(self, pane):
		"""q ends the view normally and gives the terminal back."""
		pane.keys("q")
		return self.assert_restored(pane, 0)

	def assert_restored(self, pane, rc):
		self.assertEqual(pane.wait_exit(), rc)
		self.assertEqual(pane.file("before"), pane.file("after"), "stty settings restored")
		s = pane.wait_text("MARK-AFTER-TOP")
		self.assertFalse(pane.alternate_on(), "alternate screen left")
		self.assertIn("MARK-BEFORE-TOP", s, "the screen before top is back")
		self.assertNotIn("q:quit", s)
		return s

	def test_screen_shows_the_scenario(self):
		p = self.start("seed002")
		s = p.wait_text("cn-hangzhou.192.168.2.167 [")
		self.assertTrue(p.alternate_on())
		self.assertIn("cgpu top  context admin  sort name", s)
		self.assertIn("8/15 GiB (53%)", s)
		self.assertIn("nodes 1  GPUs 1  pods 2  pending 0", s)
		self.assertRegex(s, r"cn-hangzhou\.192\.168\.2\.167 \[\|+ +\] +8/15 +53% +2 +0")
		# 40 lines: the selected node's pane is shown below the list
		self.assertIn("node cn-hangzhou.192.168.2.167  ip 192.168.2.167", s)
		self.assertRegex(s, r"GPU0 +\[\|+ +\] 8/15 GiB 53%")
		self.assertIn("default/app-3g-v1-0", s)
		self.assertIn("default/app-3g-v1-1", s)
		self.assertRegex(s, r"data \d+s old, watching")
		self.quit(p)

	def test_navigation_sort_and_filter(self):
		p = self.start("multi-gpu")
		names = ["gpu-2x", "gpu-4x", "gpu-8x", "gpu-zero"]
		s = p.wait_text("gpu-zero ")
		self.assertIn("64/218 GiB (29%)", s)
		self.assertIn("compute 30/800%", s)
		self.assertIn("nodes 4  GPUs 15", s)
		order = row_order(s, names)
		self.assertEqual(order, sorted(order), "by name first")

		p.keys("j", "j", "Enter")
		s = p.wait_for(lambda s: "node gpu-8x" in s and "GPU7" in s, what="the node view of gpu-8x")
		self.assertNotIn("gpu-zero ", s, "the node view replaces the list")
		self.assertRegex(s, r"GPU3 +\[!+\] 20/16 GiB 125%")
		self.assertLess(s.index("GPU3"), s.index("default/overalloc-a-0"))
		self.assertLess(s.index("default/overalloc-b-0"), s.index("GPU4"))
		p.keys("Escape")
		s = p.wait_text("gpu-zero ")

		p.keys("s")
		s = p.wait_text("sort alloc%")
		# something allocated on a total of 0 is fuller than any share
		o = row_order(s, ["gpu-zero", "gpu-2x", "gpu-4x", "gpu-8x"])
		self.assertTrue(o[0] < o[1] < o[2] < o[3], "highest share first: %s\n%s" % (o, s))
		p.keys("s")
		s = p.wait_text("sort free")
		o = row_order(s, ["gpu-8x", "gpu-4x", "gpu-2x", "gpu-zero"])
		self.assertTrue(o[0] < o[1] < o[2] < o[3], "most free first: %s\n%s" % (o, s))
		p.keys("s", "s")
		s = p.wait_text("sort name")

		p.keys("/", "8", "x")
		s = p.wait_text("filter: 8x")
		p.keys("Enter")
		s = p.wait_text("filter 8x (1 of 4 nodes)")
		self.assertEqual(row_order(s, names), [-1, -1, row_order(s, ["gpu-8x"])[0], -1])
		self.assertNotEqual(row_order(s, ["gpu-8x"])[0], -1)
		p.keys("Escape")
		s = p.wait_for(lambda s: "filter" not in s.splitlines()[0] and "gpu-zero " in s, what="filter cleared")

		p.keys("/")
		p.keys("-l", "ack.node.gpu.schedule=core_mem")
		p.keys("Enter")
		s = p.wait_text("(1 of 4 nodes)")
		self.assertNotEqual(row_order(s, ["gpu-8x"])[0], -1, "a label filter")
		p.keys("Escape")
		p.wait_text("gpu-zero ")

		p.keys("?")
		s = p.wait_text("group nodes by pool")
		p.keys("Escape")
		p.wait_text("gpu-zero ")
		p.keys("p")
		p.wait_text("pool (no pool): 4 nodes")
		self.quit(p)

	def stranded(self):
		"""The header's stranded figure for what the summary's JSON says now: its nodes' strandedFree summed."""
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "-o", "json"])
		self.assertEqual(r.returncode, 0, r.stderr)
		return "stranded %d GiB" % sum(n["strandedFree"] or 0 for n in json.loads(r.stdout)["nodes"] if n["unit"] == "GiB")

	def test_a_new_pod_appears_within_seconds(self):
		p = self.start("multi-gpu", cols=170)  # room for the header's last figure
		p.wait_text("64/218 GiB (29%)")
		t0 = time.monotonic()
		self.api.put_object(pod("fresh-pod-0", "gpu-2x", 3, 0))
		s = p.wait_text("67/218 GiB (30%)", timeout=5)
		elapsed = time.monotonic() - t0
		self.assertLess(elapsed, 3.0)
		self.assertRegex(s, r"gpu-2x .* 13/30 +43% +3 ")
		p.keys("Enter")
		s = p.wait_text("default/fresh-pod-0")
		self.api.delete_object("pods", "default", "fresh-pod-0")
		s = p.wait_for(lambda s: "fresh-pod-0" not in s and "64/218" in s, timeout=5, what="pod gone")
		# the watch went on: no list after the first two
		lists = [r for r in self.api.requests() if r["method"] == "GET" and r["path"] in ("/api/v1/pods", "/api/v1/nodes")
			and "watch" not in (r.get("query") or {})]
		self.assertEqual(len(lists), 2, lists)
		# the stranded figure follows the live model
		before = self.stranded()
		p.wait_text(before)
		self.api.put_object(pod("fresh-pod-1", "gpu-8x", 3, 0))
		p.wait_text("67/218 GiB (30%)", timeout=5)
		after = self.stranded()
		self.assertNotEqual(before, after)
		p.wait_text(after, timeout=5)
		self.quit(p)

	@real_only("the fake API server speaks HTTP/1.1 only, where every request has a connection to itself")
	def test_watches_have_connections_of_their_own(self):
		# libcurl before 8.1.0 can leave the end of a list in the buffers of an HTTP/2 connection it shares
		# (test_http2): with such a libcurl, as Debian 12's, the client speaks HTTP/1.1, a connection per
		# transfer under way.
		p = self.start("multi-gpu")
		p.wait_for(lambda s: re.search(r"data \d+s old, watching", s), what="both watches")
		n = connections_to(p.pid(), self.api.port)
		self.assertGreaterEqual(n, 2, "the two watches on connections of their own, not multiplexed")
		self.quit(p)

	def test_end_and_home_in_a_node_taller_than_the_screen(self):
		p = self.start("multi-gpu", lines=14)
		p.wait_text("gpu-zero ")
		p.keys("j", "j", "Enter")
		s = p.wait_text("node gpu-8x")
		self.assertIn("GPU0 ", s)
		self.assertNotIn("GPU7 ", s, "the pane is taller than the screen")
		p.keys("End")
		s = p.wait_for(lambda s: "GPU7 " in s and "GPU0 " not in s, what="the end of the node's pane")
		p.keys("k")
		s = p.wait_for(lambda s: "GPU7 " not in s, what="one line up from the end")
		p.keys("G")
		p.wait_text("GPU7 ")
		p.keys("Home")
		s = p.wait_for(lambda s: "GPU0 " in s and "GPU7 " not in s, what="the top of the node's pane")
		self.quit(p)

	def test_expired_watch_lists_again(self):
		# The pods watch waits two seconds before it is served; meanwhile three pods are added and the
		# server keeps one event of history, so the watch answers with an ERROR 410 event.
		p = self.start("seed002", watch_window=1,
			faults=[({"path_prefix": "/api/v1/pods", "query_contains": "watch=1"}, {"type": "delay", "seconds": 2})])
		p.wait_text("cn-hangzhou.192.168.2.167 [")
		for i in range(3):
			self.api.put_object(pod("burst-%d" % i, "cn-hangzhou.192.168.2.167", 1, 0))
		p.wait_text("11/15 GiB (73%)", timeout=8)
		self.api.put_object(pod("after-0", "cn-hangzhou.192.168.2.167", 2, 0))
		p.wait_text("13/15 GiB (86%)", timeout=5)
		self.quit(p)
		# a watch is logged when its stream ends, which the server notices at its next bookmark
		end = time.monotonic() + 5
		while True:
			reqs = [r for r in self.api.requests() if r["path"] == "/api/v1/pods"]
			lists = [r for r in reqs if "watch" not in r["query"]]
			watches = [r for r in reqs if "watch" in r["query"]]
			if len(watches) >= 2 or time.monotonic() > end:
				break
			time.sleep(0.2)
		self.assertEqual(len(lists), 2, "listed again after 410")
		self.assertEqual(len(watches), 2, "and watched again")
		self.assertNotEqual(watches[0]["query"].get("resourceVersion"), watches[1]["query"].get("resourceVersion"))

	def test_list_after_expired_watch_replaces_in_place(self):
		# While the pods watch waits, a pod is deleted and two are added: the watch answers 410, and the
		# list that follows is taken into the same model, which drops the pod it no longer delivers and
		# counts the pods it delivers again once.
		p = self.start("seed002", watch_window=1,
			faults=[({"path_prefix": "/api/v1/pods", "query_contains": "watch=1"}, {"type": "delay", "seconds": 2})])
		p.wait_text("8/15 GiB (53%)")
		self.api.delete_object("pods", "default", "app-3g-v1-0")
		self.api.put_object(pod("again-0", "cn-hangzhou.192.168.2.167", 1, 0))
		self.api.put_object(pod("again-1", "cn-hangzhou.192.168.2.167", 2, 0))
		p.wait_text("7/15 GiB (46%)", timeout=8)
		p.keys("Enter")
		s = p.wait_text("default/again-1")
		self.assertIn("default/app-3g-v1-1", s)
		self.assertIn("default/again-0", s)
		self.assertNotIn("app-3g-v1-0", s)
		self.api.put_object(pod("after-0", "cn-hangzhou.192.168.2.167", 2, 0))
		p.wait_text("9/15 GiB (60%)", timeout=5)
		self.quit(p)
		lists = [r for r in self.api.requests() if r["path"] == "/api/v1/pods" and "watch" not in r["query"]]
		self.assertEqual(len(lists), 2, "listed again after 410")

	def test_a_burst_of_events_is_drawn_a_few_times(self):
		# 61 pod events, each of which changes the totals shown, come 40 ms apart; the terminal gets a
		# few updates a second (the default refresh of 1 s settles at most every 250 ms, and the clock
		# ticks once a second), not one per event.  Updates are told apart by the pauses between the
		# pane's writes, timed as they reach tmux.
		p = self.start("seed002")
		p.wait_text("8/15 GiB (53%)")
		stamps = os.path.join(p.dir, "stamps")
		stamper = os.path.join(p.dir, "stamp.py")
		with open(stamper, "w") as f:
			f.write("import os, sys, time\nout = open(sys.argv[1], 'w', buffering=1)\n"
				"while True:\n\tb = os.read(0, 65536)\n\tif not b:\n\t\tbreak\n"
				"\tout.write('%.4f %d\\n' % (time.monotonic(), len(b)))\n")
		p.tmux("pipe-pane", "-o", "-t", "top", "python3 -u %s %s" % (shlex.quote(stamper), shlex.quote(stamps)))
		time.sleep(0.5)
		t0 = time.monotonic()
		for i in range(30):
			self.api.put_object(pod("burst-%d" % i, "cn-hangzhou.192.168.2.167", 1, 0))
			time.sleep(0.04)
			self.api.delete_object("pods", "default", "burst-%d" % i)
			time.sleep(0.04)
		self.api.put_object(pod("burst-last", "cn-hangzhou.192.168.2.167", 3, 0))
		p.wait_text("11/15 GiB (73%)", timeout=5)
		t1 = time.monotonic()
		with open(stamps) as f:
			times = [float(l.split()[0]) for l in f if l.strip()]
		times = [t for t in times if t0 <= t <= t1]
		updates = sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] > 0.015)
		self.assertGreater(updates, 0)
		self.assertLessEqual(updates, int(5 * (t1 - t0)) + 3, "%d updates in %.2f s for 61 events" % (updates, t1 - t0))
		self.quit(p)

	def test_refused_watch_falls_back_to_polling(self):
		p = self.start("seed002", args=["-r", "500ms"],
			faults=[({"query_contains": "watch=1"}, {"type": "status", "code": 403})])
		p.wait_text("cn-hangzhou.192.168.2.167 [")
		p.wait_text("polling every 0.5s")
		self.api.put_object(pod("late-0", "cn-hangzhou.192.168.2.167", 2, 0))
		p.wait_text("10/15 GiB (66%)", timeout=5)
		self.quit(p)

	def test_failing_server_keeps_the_last_good_data(self):
		p = self.start("seed002", args=["-r", "500ms"],
			faults=[({"query_contains": "watch=1"}, {"type": "status", "code": 500})])
		p.wait_text("polling every 0.5s")
		s = p.wait_text("cn-hangzhou.192.168.2.167 [")
		self.api.fault({"path_prefix": "/api/v1/nodes"}, {"type": "status", "code": 500}, times=0)
		# the error whole: on the status line where it fits, else on its own line above it
		s = p.wait_for(lambda s: re.search(r"data [2-9]s old, polling every 0\.5s", s) and "error: Error from server" in s,
			timeout=10, what="an old age and the error")
		self.assertIn("Error from server (InternalError)", s)
		self.assertRegex(s, r"cn-hangzhou\.192\.168\.2\.167 \[\|+ +\] +8/15 +53%", "the last good data stays")
		self.quit(p)

	def test_first_list_refused_exits_with_the_error(self):
		p = self.start("seed002", faults=[({"path_prefix": "/api/v1/nodes"}, {"type": "status", "code": 500})])
		s = self.assert_restored(p, 1)
		self.assertIn("Error from server (InternalError)", s)
		self.assertNotIn("loading...", s[s.index("MARK-AFTER-TOP") - 200:] if "MARK-AFTER-TOP" in s else s)

	def test_slow_server_does_not_freeze_the_keyboard(self):
		p = self.start("seed002", faults=[({"path_prefix": "/api/v1/pods"}, {"type": "delay", "seconds": 20})])
		p.wait_text("loading...")
		p.keys("?")
		p.wait_text("group nodes by pool", timeout=2)
		t0 = time.monotonic()
		self.quit(p)
		self.assertLess(time.monotonic() - t0, 3.0)

	def test_ctrl_c_and_sigterm_restore_the_terminal(self):
		p = self.start("seed002")
		p.wait_text("cn-hangzhou.192.168.2.167 [")
		p.keys("C-c")
		self.assert_restored(p, 130)

		p2 = self.open_pane()
		p2.wait_text("cn-hangzhou.192.168.2.167 [")
		os.kill(p2.pid(), signal.SIGTERM)
		self.assert_restored(p2, 143)

	def test_an_error_is_printed_after_the_screen_is_restored(self):
		p = self.start("seed002", args=["--context", "nobody"])
		s = self.assert_restored(p, 1)
		self.assertIn("Error from server (Forbidden)", s)
		after = s[s.index("MARK-BEFORE-TOP"):]
		self.assertLess(after.index("Error from server"), after.index("MARK-AFTER-TOP"))

	def test_missing_node_is_not_found_before_the_screen(self):
		p = self.start("multi-gpu", args=["gpu-2x", "no-such-node"])
		s = self.assert_restored(p, 1)
		self.assertIn('Error from server (NotFound): nodes "no-such-node" not found', s)
		# nothing was listed or watched: the screen never opened
		self.assertFalse([r for r in self.api.requests() if r["path"] in ("/api/v1/nodes", "/api/v1/pods")])

	def test_bad_flags_are_usage_errors(self):
		p = self.start("seed002", args=["--refresh", "soon"])
		s = self.assert_restored(p, 1)
		self.assertIn('invalid argument "soon" for "-r, --refresh" flag', s)

	def test_colour_unless_no_color(self):
		p = self.start("multi-gpu", unset=["NO_COLOR"], env={"TERM": "screen"})
		p.wait_text("gpu-zero ")
		s = p.screen(escapes=True)
		# green, yellow and red bar fills (SGR 32, 33, 31 as tmux reports them)
		self.assertRegex(s, r"\x1b\[[0-9;]*32m(\x1b\[[0-9;]*m)*\|")
		self.assertRegex(s, r"\x1b\[[0-9;]*33m(\x1b\[[0-9;]*m)*\|")
		# (beyond the total the fill is '!' marks)
		self.assertRegex(s, r"\x1b\[[0-9;]*31m(\x1b\[[0-9;]*m)*[|!]")
		self.quit(p)

		p2 = self.open_pane(env={"TERM": "screen", "NO_COLOR": "1"})
		p2.wait_text("gpu-zero ")
		s = p2.screen(escapes=True)
		self.assertNotRegex(s, r"\x1b\[([0-9]+;)*[34][0-7]m", "monochrome with NO_COLOR")
		self.assertRegex(s, r"\x1b\[([0-9]+;)*7m", "reverse video still marks headers and the selection")
		self.quit(p2)

	def test_resize_redraws(self):
		p = self.start("seed002", cols=120, lines=40)
		s = p.wait_text("node cn-hangzhou.192.168.2.167  ip")
		self.assertEqual(len(s.rstrip("\n").split("\n")), 40)
		p.tmux("resize-window", "-t", "top", "-x", "80", "-y", "24")
		s = p.wait_for(lambda s: "node cn-hangzhou.192.168.2.167  ip" not in s, what="the pane to go at 24 lines")
		lines = s.rstrip("\n").split("\n")
		self.assertEqual(len(lines), 24)
		self.assertTrue(lines[23].startswith("data "), lines[23])
		self.assertTrue(lines[23].endswith("?:help q:quit"), lines[23])
		self.assertEqual(len(lines[23]), 80)
		p.tmux("resize-window", "-t", "top", "-x", "200", "-y", "50")
		s = p.wait_text("node cn-hangzhou.192.168.2.167  ip")
		self.assertEqual(len(s.rstrip("\n").split("\n")[49]), 200)
		self.quit(p)

	def test_selection_flags(self):
		p = self.start("multi-gpu", args=["-l", "cgpu=true"])
		s = p.wait_text("nodes 3 ")
		self.assertEqual(row_order(s, ["gpu-8x"]), [-1])
		self.assertNotEqual(row_order(s, ["gpu-zero"]), [-1])
		self.quit(p)
		sent = [r for r in self.api.requests() if r["path"] == "/api/v1/nodes"]
		self.assertTrue(sent and all(r["query"].get("labelSelector") == "cgpu=true" for r in sent), sent)

		p2 = self.open_pane(args=["gpu-2x", "gpu-8x"])
		s = p2.wait_text("nodes 2 ")
		self.assertEqual(row_order(s, ["gpu-4x", "gpu-zero"]), [-1, -1])
		self.assertNotIn(-1, row_order(s, ["gpu-2x", "gpu-8x"]))
		self.quit(p2)

		p3 = self.open_pane(args=["--pool", "np-none"])
		p3.wait_text("no node offers shared GPU resources")
		self.quit(p3)
		sent = [r["query"].get("labelSelector") for r in self.api.requests() if r["path"] == "/api/v1/nodes"]
		self.assertIn("alibabacloud.com/nodepool-id=np-none", sent)

	@fake_only("the real backend's loader has no path for the fit scenario's Events (test_fit_envtest writes them)")
	def test_health_fragmentation_and_pending_reasons(self):
		# The fit scenario: a fragmented pool, a cordoned and a NotReady node, a tainted one, a pod pending
		# because its 12 GiB fit on no single GPU, and one pending for its required node affinity.
		p = self.start("fit", args=["--scheme", "cgpu"], cols=160, lines=24)
		s = p.wait_text("share-notready ")
		self.assertRegex(s, r"MEMORY\(GiB\) USE% PODS PENDING\(GiB\) STATUS +MAXFREE/GPU\(GiB\)")
		# the words and figures of -o wide
		self.assertRegex(s, r"share-a .* 17/30 +56% +2 +0 Ready +7\n")
		self.assertRegex(s, r"share-b .* 15/30 +50% +2 +0 Ready +11\n")
		self.assertRegex(s, r"share-cordoned .* 0/30 +0% +0 +0 Ready,SchedulingDisabled +15\n")
		self.assertRegex(s, r"share-notready .* 0/30 +0% +0 +0 NotReady +15\n")
		# the stranded figure: -o wide's STRANDED summed (6 + 5 + 3 + 30 + 30)
		self.assertIn("pending 2 (u)  largest fit 15 GiB (3 GPUs)  cannot take pods 60 GiB (2 nodes)  stranded 74 GiB", s)

		p.keys("u")
		s = p.wait_text("2 pending pods: not scheduled, or no GPU chosen yet")
		self.assertRegex(s, r"ml/bigmodel-7c9d8f6b5-x7k2p +12 GiB +Pending")
		# -d's reason, broken between its parts
		self.assertIn("why: 2 nodes: no GPU with 12 GiB free (largest free on one GPU: 11 GiB); 1 node: NotReady", s)
		self.assertIn("1 node: outside nodeSelector alibabacloud.com/nodepool-id=np-share", s)
		self.assertRegex(s, r"ml/zonal-0 +4 GiB +Pending\n +why: 3 nodes: outside the required node affinity; 1 node: "
			r"NotReady")
		p.keys("u")
		p.wait_text("share-notready ")

		# a pod on a node with no GPU chosen yet: in the node's view, with its reason
		waiting = pod("waiting-0", "share-b", 4, 0, ns="ml")
		del waiting["metadata"]["annotations"]["ALIYUN_COM_GPU_MEM_IDX"]
		waiting["metadata"]["annotations"]["ALIYUN_COM_GPU_MEM_ASSIGNED"] = "false"
		self.api.put_object(waiting)
		p.wait_text("pending 3 (4 GiB without a GPU) (u)")
		p.keys("/", "share-b", "Enter")
		p.wait_text("filter share-b (1 of 6 nodes)")
		p.keys("Enter")
		s = p.wait_text("pending (no GPU chosen yet)")
		self.assertRegex(s, r"ml/waiting-0 +4 GiB")
		self.assertIn("why: on node share-b, waiting for its GPU to be chosen", s)

		# narrower: a bar per GPU stays; STATUS fits beside it, MAXFREE/GPU no longer does
		p.keys("Escape", "Escape")
		p.tmux("resize-window", "-t", "top", "-x", "100", "-y", "24")
		s = p.wait_for(lambda s: "MAXFREE" not in s and "share-notready " in s, what="the narrower list")
		self.assertRegex(s, r"share-notready +\[ +\] \[ +\] +0/30 +0% +0 +0 NotReady\n")
		self.quit(p)

	def test_dra_devices_and_a_claim_that_changes(self):
		"""DRA GPUs from ResourceSlices, and their claims' changes, show as the summary shows them: a claim that
		moves to another device and a slice that brings a node's GPUs are drawn without a pod or node event."""
		scen = os.path.join(HERE, "..", "..", "fixtures", "scenarios", "dra-whole")

		def items(name):
			with open(os.path.join(scen, name)) as f:
				return json.load(f)["items"]

		p = self.start("dra-whole", ["-r", "500ms"])
		s = p.wait_text("dra-a100-2 [")
		self.assertIn("nodes 2  GPUs 8  pods 3", s)
		self.assertRegex(s, r"dra-a100-1 \[\|+\] \[\|+\] \[ +\] \[ +\] 163840/327680 +50% +2")
		self.assertRegex(s, r"GPU1 +\[\|+\] 81920/81920 MiB 100%  1 pod")
		self.assertRegex(s, r"GPU2 +\[ +\] 0/81920 MiB 0%  0 pods")

		# the claim of ml/train-1 now holds gpu-2: only the claim changes
		claim = [c for c in items("resourceclaims.json") if c["metadata"]["name"].startswith("train-1-")][0]
		claim["kind"], claim["apiVersion"] = "ResourceClaim", "resource.k8s.io/v1"
		claim["status"]["allocation"]["devices"]["results"][0]["device"] = "gpu-2"
		self.api.put_object(claim)
		s = p.wait_for(lambda s: re.search(r"GPU1 +\[ +\] 0/81920 MiB 0%  0 pods", s), what="gpu-1 free")
		self.assertRegex(s, r"GPU2 +\[\|+\] 81920/81920 MiB 100%  1 pod")
		self.assertRegex(s, r"GPU2 .*\n +ml/train-1 +81920 MiB")

		# a node whose slice comes after it: its GPUs show when the slice does
		node = items("nodes.json")[0]
		node["kind"], node["apiVersion"] = "Node", "v1"
		node["metadata"].update(name="dra-a100-3", uid="uid-dra-a100-3")
		self.api.put_object(node)
		time.sleep(1)
		self.assertNotIn("dra-a100-3", p.screen(), "a node without devices shares nothing")
		sl = items("resourceslices.json")[0]
		sl["kind"], sl["apiVersion"] = "ResourceSlice", "resource.k8s.io/v1"
		sl["metadata"].update(name="dra-a100-3-gpu.nvidia.com-x1", uid="uid-slice-3")
		sl["spec"].update(nodeName="dra-a100-3", pool={"name": "dra-a100-3", "generation": 1, "resourceSliceCount": 1})
		sl["spec"]["devices"] = sl["spec"]["devices"][:2]
		self.api.put_object(sl)
		s = p.wait_text("dra-a100-3 [")
		self.assertIn("nodes 3  GPUs 10  pods 3", s)
		self.assertRegex(s, r"dra-a100-3 \[ +\] \[ +\] +0/163840 +0% +0")
		self.quit(p)

	def test_dra_pending_claim_reason_follows_the_claims(self):
		"""A pod waiting for its claim: fit's reason for the claim in the pending list, judged again when the
		claim that holds the only device lets it go (a DRA relist, no pod or node event)."""
		scen = os.path.join(HERE, "..", "..", "fixtures", "scenarios", "dra-pending")
		with open(os.path.join(scen, "resourceclaims.json")) as f:
			busy = [c for c in json.load(f)["items"] if c["metadata"]["name"].startswith("busy-0-")][0]
		p = self.start("dra-pending", ["-r", "500ms"], cols=160)
		p.wait_text("dra-full-1 [")
		p.keys("u")
		s = p.wait_text("why: claim waiting-0-gpu-")
		self.assertRegex(s, r"why: claim waiting-0-gpu-\w+ not allocated: 1 node: every device of class gpu\.nvidia\.com")
		busy["kind"], busy["apiVersion"] = "ResourceClaim", "resource.k8s.io/v1"
		del busy["status"]
		self.api.put_object(busy)
		s = p.wait_text("1 node could hold it (first dra-full-1)")
		self.assertRegex(s, r"why: claim waiting-0-gpu-\w+ not allocated: 1 node could hold it")
		self.quit(p)

	def test_dra_beside_other_schemes_in_one_frame(self):
		"""--once on a cluster mixing DRA with cGPU and HAMi nodes: the DRA node among them, in MiB, as the
		summary counts it."""
		self.api = APIServer("dra-mixed").start()
		self.addCleanup(self.api.stop)
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "top", "--once"], env=dict(os.environ, COLUMNS="120"))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("nodes 3  GPUs 7  pods 3  pending 0", r.stdout)
		self.assertRegex(r.stdout, r"\ndra-a100-1 +\[\|+\] \[ +\] \[ +\] \[ +\] 81920/327680 MiB +25% +1 ")
		self.assertRegex(r.stdout, r"\ncgpu-v100-1 +\[\|+ +\] +4/15 GiB")
		self.assertRegex(r.stdout, r"\nhami-a100-1 ")

	def test_dra_forbidden_shows_the_rest(self):
		"""A DRA list the user may not read: a warning, and the other nodes shown, as the summary does."""
		self.api = APIServer("dra-mixed").start()
		self.addCleanup(self.api.stop)
		self.api.fault({"path_prefix": "/apis/resource.k8s.io/v1/resourceclaims"}, {"type": "status", "code": 403},
			times=0)
		r = run_plugin(["--kubeconfig", self.api.kubeconfig, "top", "--once"], env=dict(os.environ, COLUMNS="120"))
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertIn("nodes 2  GPUs 3", r.stdout)
		self.assertIn("warnings 1 (w)", r.stdout)
		self.assertNotIn("dra-a100-1", r.stdout)
		self.assertRegex(r.stdout, r"\ndata 0s old, one frame +\?:help")
		self.assertRegex(r.stdout, r"\ncgpu-v100-1 +\[\|+ +\] +4/15 GiB")

	def test_golden_screen_80x24(self):
		p = self.start("seed002", cols=80, lines=24)
		p.wait_text("cn-hangzhou.192.168.2.167 [")
		s = p.wait_for(lambda s: re.search(r"data \d+s old, watching", s), what="status line")
		self.quit(p)
		s = re.sub(r"data \d+s old", "data 0s old", s)
		if os.environ.get("UPDATE_GOLDEN"):
			os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
			with open(GOLDEN, "w") as f:
				f.write(s)
		with open(GOLDEN) as f:
			self.assertEqual(s, f.read())


if __name__ == "__main__":
	unittest.main()
