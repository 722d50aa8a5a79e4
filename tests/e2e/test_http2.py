"""Lists asked for at once end when their last bytes arrive, from a server that offers HTTP/2.

Before 8.1.0 libcurl stops reading an HTTP/2 connection for a stream whose frame does not fit its receive
buffer; when that transfer then ends by its Content-Length, what else the connection brought stays in curl's
buffer, unseen, until the server writes again.  The server here (h2lists.py) sends so where the client
multiplexes the two lists: the end of the pods list behind the whole nodes list, then silence.  Built
against such a libcurl the client speaks HTTP/1.1, a connection per transfer under way.
"""

import re
import unittest

import h2lists
from harness import plugin_path, run_plugin

LATENCY = re.compile(r"GET https://127\.0\.0\.1:\d+/api/v1/(nodes|pods)\S* 200 OK in (\d+) milliseconds")


@unittest.skipIf(plugin_path() is None, "CGPU_PLUGIN not set")
@unittest.skipUnless(h2lists.available(), "python3-h2 or openssl is not installed")
class TestHTTP2(unittest.TestCase):
	def test_list_ends_arriving_together_end_together(self):
		with h2lists.H2Lists(frame=8000, hold=4.0) as srv:
			for run in range(3):
				r = run_plugin(["--kubeconfig", srv.kubeconfig, "-v=6"], timeout=30)
				self.assertEqual(r.returncode, 0, r.stderr)
				took = dict(LATENCY.findall(r.stderr))
				self.assertEqual(set(took), {"nodes", "pods"}, r.stderr)
				late = int(took["pods"]) - int(took["nodes"])
				self.assertLess(late, 1000, "run %d: the pods list ended %d ms after the nodes list, its last "
					"frame sent with it (%d connections carried both)" % (run + 1, late, srv.multiplexed))
				self.assertIn("NAME", r.stdout)
			if (0,) < h2lists.curl_version() < (8, 1, 0):
				self.assertEqual(srv.multiplexed, 0, "no HTTP/2 with this libcurl")
				self.assertGreaterEqual(srv.http1, 2, "the lists on connections of their own")


if __name__ == "__main__":
	unittest.main()
