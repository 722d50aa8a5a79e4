"""kubectl's manners where the API server's answers decide them, on the fake server and (suite 'real') on a
real kube-apiserver: names that do not exist beside names that do, namespaces that hold nothing."""

import unittest

from harness import ClusterCase, plugin_path


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class NamesTest(ClusterCase):
	scenario = "multi-gpu"

	def test_existing_node_shown_and_each_missing_name_said(self):
		r = self.run_command("gpu-2x", "absent-1")
		self.assertEqual(r.returncode, 1, r.stderr)
		# kubectl get's order: what exists on stdout, an error per missing name on stderr
		self.assertTrue(r.stdout.startswith("NAME    IPADDRESS"), r.stdout)
		self.assertIn("\ngpu-2x  ", r.stdout)
		self.assertEqual(r.stderr, 'Error from server (NotFound): nodes "absent-1" not found\n')
		r = self.run_command("gpu-2x", "absent-1", "-o", "json")
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertIn('"name": "gpu-2x"', r.stdout)
		self.assertEqual(r.stderr, 'Error from server (NotFound): nodes "absent-1" not found\n')

	def test_every_missing_name_said(self):
		r = self.run_command("absent-1", "absent-2")
		self.assertEqual(r.returncode, 1, r.stderr)
		self.assertEqual(r.stdout, "")
		self.assertEqual(r.stderr, 'Error from server (NotFound): nodes "absent-1" not found\n'
				'Error from server (NotFound): nodes "absent-2" not found\n')


@unittest.skipIf(plugin_path() is None, "the plugin is not built (CGPU_PLUGIN)")
class NothingFoundTest(ClusterCase):
	scenario = "multi-gpu"

	def test_namespace_that_holds_nothing(self):
		r = self.run_command("-d", "-n", "nonexist")
		self.assertEqual(r.returncode, 0, r.stderr)
		self.assertEqual(r.stdout, "")
		self.assertIn("No resources found in nonexist namespace.\n", r.stderr)

	def test_filter_matching_nothing_prints_nothing_on_stdout(self):
		for args in (["-l", "no-such-label=1"], ["-d", "-l", "no-such-label=1"], ["--pool", "no-such-pool"]):
			with self.subTest(args=args):
				r = self.run_command(*args)
				self.assertEqual(r.returncode, 0, r.stderr)
				self.assertEqual(r.stdout, "")
				self.assertTrue(r.stderr.startswith("No resources found\n"), r.stderr)


if __name__ == "__main__":
	unittest.main()
