"""End-to-end tests of `inspect -w`: the summary printed again as the fake API server's objects change.

The plugin's stdout is a pipe, read line by line on a thread; a table starts at its NAME header.
"""

import signal
import subprocess
import threading
import time
import unittest

from harness import APIServer, plugin_path
from test_top import pod

NODE = "cn-hangzhou.192.168.2.167"


class Watching:
	"""`inspect ARGS` running, its stdout gathered as it comes."""

	def __init__(self, api, args):
		self.proc = subprocess.Popen([plugin_path(), "--kubeconfig", api.kubeconfig] + list(args),
			stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
		self.lines = []
		self.lock = threading.Lock()
		self.reader = threading.Thread(target=self._read, daemon=True)
		self.reader.start()

	def _read(self):
		for line in self.proc.stdout:
			with self.lock:
				self.lines.append(line.rstrip("\n"))

	def tables(self):
		"""The tables printed so far, each as its lines."""
		with self.lock:
			lines = list(self.lines)
		out = []
		for line in lines:
			if line.startswith("NAME "):
				out.append([])
			if out:
				out[-1].append(line)
		return out

	def wait_tables(self, pred, timeout=8.0, what=""):
		end = time.monotonic() + timeout
		while time.monotonic() < end:
			t = self.tables()
			if pred(t):
				return t
			if self.proc.poll() is not None:
				break
			time.sleep(0.05)
		raise AssertionError("no %s in %r" % (what, self.tables()))

	def stop(self, sig=signal.SIGTERM):
		self.proc.send_signal(sig)
		try:
			err = self.proc.stderr.read()
			rc = self.proc.wait(timeout=5)
		finally:
			self.close()
		self.reader.join(timeout=5)
		return rc, err

	def close(self):
		if self.proc.poll() is None:
			self.proc.kill()
			self.proc.wait()
		self.proc.stderr.close()


def shows(table, text):
	return any(text in line for line in table)


@unittest.skipUnless(plugin_path(), "the plugin is not built (CGPU_PLUGIN)")
class WatchTest(unittest.TestCase):
	def start(self, args=("-w",), scenario="seed002", **options):
		self.api = APIServer(scenario, **options).start()
		self.addCleanup(self.api.stop)
		w = Watching(self.api, args)
		self.addCleanup(w.close)
		return w

	def test_a_change_prints_a_new_table(self):
		w = self.start()
		t = w.wait_tables(lambda t: len(t) >= 1, what="first table")
		self.assertTrue(shows(t[0], "8/15 (53%)"), t[0])
		time.sleep(0.3)
		self.api.put_object(pod("fresh-0", NODE, 3, 0))
		t = w.wait_tables(lambda t: len(t) >= 2, timeout=5, what="second table")
		self.assertTrue(shows(t[1], "11/15 (73%)"), t[1])
		self.assertRegex("\n".join(t[1]), NODE.replace(".", r"\.") + r" +192\.168\.2\.167 +11/15 +11/15")
		# a change that the table does not show prints nothing
		other = pod("fresh-0", NODE, 3, 0)
		other["metadata"]["labels"] = {"touched": "yes"}
		self.api.put_object(other)
		time.sleep(2)
		self.assertEqual(len(w.tables()), 2)
		rc, err = w.stop(signal.SIGTERM)
		self.assertEqual(rc, 0, err)
		self.assertEqual(err, "")

	def test_a_burst_of_changes_gives_few_tables(self):
		w = self.start()
		w.wait_tables(lambda t: len(t) >= 1, what="first table")
		time.sleep(0.3)
		t0 = time.monotonic()
		for i in range(40):
			self.api.put_object(pod("burst-%d" % i, NODE, 1, 0))
			time.sleep(0.03)
		t = w.wait_tables(lambda t: shows(t[-1], "48/15 (320%)"), timeout=6, what="the last figures")
		elapsed = time.monotonic() - t0
		# one table at once, then at most one a second
		self.assertLessEqual(len(t) - 1, int(elapsed) + 2, "%d tables in %.2f s for 40 changes" % (len(t) - 1, elapsed))
		rc, _ = w.stop(signal.SIGINT)
		self.assertEqual(rc, 0, "an interrupt ends the watch as kubectl get -w ends")

	def test_details_follow_too(self):
		w = self.start(args=("-w", "-d"))
		w.wait_tables(lambda t: len(t) >= 1, what="first table")
		time.sleep(0.3)
		self.api.put_object(pod("fresh-pod-0", NODE, 3, 0))
		t = w.wait_tables(lambda t: len(t) >= 2 and shows(t[-1], "fresh-pod-0"), timeout=5, what="the new pod")
		self.assertFalse(any(shows(x, "fresh-pod-0") for x in t[:-1]))
		self.assertEqual(w.stop()[0], 0)

	def test_expired_watch_lists_again(self):
		# the pods watch is served late, after the server's one event of history has moved on: 410
		w = self.start(watch_window=1)
		self.api.fault({"path_prefix": "/api/v1/pods", "query_contains": "watch=1"},
			{"type": "delay", "seconds": 2}, times=1)
		w.wait_tables(lambda t: len(t) >= 1, what="first table")
		for i in range(3):
			self.api.put_object(pod("burst-%d" % i, NODE, 1, 0))
		w.wait_tables(lambda t: shows(t[-1], "11/15 (73%)"), timeout=8, what="the figures after a list again")
		self.assertEqual(w.stop()[0], 0)

	def test_a_server_gone_ends_with_its_error(self):
		w = self.start()
		w.wait_tables(lambda t: len(t) >= 1, what="first table")
		self.api.stop()
		rc = w.proc.wait(timeout=10)
		err = w.proc.stderr.read()
		w.close()
		self.assertEqual(rc, 1)
		self.assertRegex(err, r"The connection to the server 127\.0\.0\.1:\d+ was refused")

	def test_documents_are_refused(self):
		for form in ("json", "yaml", "name", "jsonpath={.nodes}"):
			p = subprocess.run([plugin_path(), "-w", "-o", form], capture_output=True, text=True, timeout=10)
			self.assertEqual(p.returncode, 1, p.stderr)
			self.assertIn("--watch prints the tables again as they change: it cannot be combined with -o", p.stderr)
			self.assertIn("See 'kubectl inspect cgpu --help' for usage.", p.stderr)
			self.assertEqual(p.stdout, "")


if __name__ == "__main__":
	unittest.main()
