"""The scale benchmark (tests/bench/bench.py) at a tiny scale, so that the command keeps working."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from harness import ROOT, plugin_path

BENCH = os.path.join(ROOT, "tests", "bench", "bench.py")
ROWS = ("download floor, JSON", "download floor, protobuf", "plugin summary", "plugin `-d`", "plugin `-o json`",
	"plugin `-o yaml`", "`kubectl get nodes,pods -A -o json`")
NUM = r"\d+\.\d+"


@unittest.skipIf(plugin_path() is None, "the plugin is not built")
class BenchTest(unittest.TestCase):
	def test_tiny(self):
		with tempfile.TemporaryDirectory() as tmp:
			out = os.path.join(tmp, "tables.md")
			r = subprocess.run([sys.executable, BENCH, "--scales", "tiny", "--repeat", "1", "--plugin", plugin_path(),
				"--build", os.path.join(tmp, "build"), "--out", out], capture_output=True, text=True, timeout=240)
			self.assertEqual(r.returncode, 0, r.stderr)
			with open(out) as f:
				written = f.read()
		text = r.stdout
		self.assertIn("### tiny: 5 nodes x 4 GPUs, 50 pods", text)
		for row in ROWS:
			line = next((l for l in text.splitlines() if l.startswith("| " + row)), None)
			self.assertIsNotNone(line, "no row for %s in:\n%s" % (row, text))
			cells = [c.strip() for c in line.strip("|").split("|")]
			self.assertEqual(len(cells), 7, line)
			if row.startswith("`kubectl") and shutil.which("kubectl") is None:
				continue
			# wall, CPU and peak RSS are measured, the ratio to the floor computed
			for c in cells[1:4]:
				self.assertRegex(c, "^" + NUM + "$", line)
			self.assertRegex(cells[4], "^" + NUM + "x$", line)
			self.assertGreater(float(cells[3]), 0.5, "peak RSS of %s" % row)
		self.assertRegex(text, r"\| tiny \| 5 \| 50 \| %s \| %s \| %sx \| %s \| %s \|" % (NUM, NUM, NUM, NUM, NUM))
		self.assertIn("### Scaling of the summary", written)
		# the servers are gone
		leftover = subprocess.run(["pgrep", "-f", "fakeapi.py --scenario gen:nodes=5,pods=50,"], capture_output=True,
			text=True)
		self.assertEqual(leftover.stdout.strip(), "", "a fake API server is still running")


if __name__ == "__main__":
	unittest.main()
