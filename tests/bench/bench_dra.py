#!/usr/bin/env python3
"""The summary of a cluster sharing its GPUs through Dynamic Resource Allocation, beside the same cluster
sharing them through gpushare annotations.

    python3 tests/bench/bench_dra.py [--repeat 3] [--build DIR] [--plugin BIN] [--nodes 1000] [--pods 20000]

Both clusters come from the fake API server's generator (fixtures/README.md): `gen:...,gpus=8,mem=80,dra=1`
(each node's 8 GPUs in a ResourceSlice, every GPU pod holding a claim made from a template, resource.k8s.io/v1
only) and the same spec without dra=1 (the same pods holding the same memory through aliyun.com/gpu-mem).  Each
server is started once with --prerender; the plugin's summary (`kubectl-inspect-cgpu`, protobuf as it asks)
runs --repeat times on each, and the medians of wall time, CPU time (user + system) and peak RSS are compared.
The goal: DRA within 1.5x of the time and memory of the cluster without it.
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench  # noqa: E402


class Cluster(bench.Server):
	def __init__(self, nodes, pods, dra, timeout):
		super().__init__(nodes, pods, timeout)
		self.spec = "gen:nodes=%d,pods=%d,gpus=8,mem=80%s" % (nodes, pods, ",dra=1" if dra else "")


def measure(plugin, srv, repeat):
	env = dict(os.environ, KUBECONFIG=srv.kubeconfig, LC_ALL="C")
	runs = []
	for _ in range(repeat):
		wall, rss, rc, err, _stopped, cpu = bench.run_measured([plugin], env=env)
		bench.check_output("summary", rc, err, None)
		runs.append((wall, cpu, rss))
	return tuple(statistics.median(r[i] for r in runs) for i in range(3))


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument("--repeat", type=int, default=3)
	ap.add_argument("--nodes", type=int, default=1000)
	ap.add_argument("--pods", type=int, default=20000)
	ap.add_argument("--build", default=os.path.join(bench.ROOT, "build-bench"), help="build directory (release)")
	ap.add_argument("--plugin", help="use this plugin binary instead of building one")
	ap.add_argument("--server-timeout", type=int, default=900)
	args = ap.parse_args()
	plugin = os.path.abspath(args.plugin) if args.plugin else bench.build_plugin(os.path.abspath(args.build))
	bench.MAXRSS = bench.build_helper(os.path.abspath(args.build))
	res = {}
	for dra in (False, True):
		srv = Cluster(args.nodes, args.pods, dra, args.server_timeout)
		try:
			bench.log("starting %s" % srv.spec)
			srv.start()
			res[dra] = measure(plugin, srv, args.repeat)
		finally:
			srv.stop()
	base, dra = res[False], res[True]
	print("| %d nodes, %d pods, 8 GPUs a node | wall s | CPU s | peak RSS MiB |" % (args.nodes, args.pods))
	print("|---|---|---|---|")
	print("| gpushare annotations | %.2f | %.2f | %.1f |" % base)
	print("| Dynamic Resource Allocation | %.2f | %.2f | %.1f |" % dra)
	print("| ratio | %.2fx | %.2fx | %.2fx |" % tuple(d / b if b else 0 for d, b in zip(dra, base)))
	ok = dra[1] <= 1.5 * base[1] and dra[2] <= 1.5 * base[2]
	print("within 1.5x of CPU time and memory: %s" % ("yes" if ok else "no"))
	return 0 if ok else 1


if __name__ == "__main__":
	sys.exit(main())
