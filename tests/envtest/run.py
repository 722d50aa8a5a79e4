#!/usr/bin/env python3
"""Runs e2e test modules against a real API server: python3 run.py test_inspect [test_mode ...]

Sets CGPU_BACKEND=real so that the suites' backend fixture (harness.APIServer) loads each scenario into
one real control plane for the process.  Where no binaries can be found the run is a skip (exit 77, the
reason on stdout), which meson counts as skipped."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

import envtest  # noqa: E402


def main(argv):
	why = envtest.unavailable()
	if why:
		print("SKIP: real API server tier: %s" % why)
		return 77
	os.environ["CGPU_BACKEND"] = "real"
	suite = unittest.defaultTestLoader.loadTestsFromNames(argv)
	result = unittest.TextTestRunner(verbosity=2).run(suite)
	return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
