#!/usr/bin/env python3
"""The summary of a cluster sharing its GPUs through Dynamic Resource Allocation, beside the same cluster
sharing them through gpushare annotations.

    python3 tests/bench/bench_dra.py [--repeat 11] [--latency S] [--build DIR] [--plugin BIN] [--nodes 1000] [--pods 20000]

Both clusters come from the fake API server's generator (fixtures/README.md): `gen:...,gpus=8,mem=80,dra=1`
(each node's 8 GPUs in a ResourceSlice, every GPU pod holding a claim made from a template, resource.k8s.io/v1
only) and the same spec without dra=1 (the same pods holding the same memory through aliyun.com/gpu-mem).  Both
servers are started once with --prerender and run side by side; the plugin's summary (`kubectl-inspect-cgpu`,
protobuf as it asks) runs --repeat times on each, the two in turn, so that whatever else the machine does
weighs on both alike, and the medians of wall time, CPU time (user + system) and peak RSS are compared.
--latency S holds every list S seconds in its server before it is answered, as a remote API server takes
its time over a large list (discovery is answered at once).  The goal: DRA within 1.5x of the time (wall)
and memory of the cluster without it; the CPU ratio is printed beside them.
"""

import argparse
import json
import os
import statistics
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench  # noqa: E402


class Cluster(bench.Server):
	def __init__(self, nodes, pods, dra, timeout):
		super().__init__(nodes, pods, timeout)
		self.spec = "gen:nodes=%d,pods=%d,gpus=8,mem=80%s" % (nodes, pods, ",dra=1" if dra else "")


def hold_lists(srv, seconds):
	"""Every list the server answers (core and resource.k8s.io) waits this long first."""
	for prefix in ("/api/v1/", "/apis/resource.k8s.io/v"):
		body = json.dumps({"match": {"path_prefix": prefix}, "fault": {"type": "delay", "seconds": seconds},
				   "times": 0}).encode()
		req = urllib.request.Request("https://127.0.0.1:%d/_fake/faults" % srv.port, data=body, method="POST",
					     headers={"Content-Type": "application/json"})
		with urllib.request.urlopen(req, context=srv.ssl_context(), timeout=30) as r:
			r.read()


def measure(plugin, servers, repeat):
	"""{name: [(wall, cpu, rss)...]}, the servers' runs in turn."""
	runs = {name: [] for name in servers}
	for _ in range(repeat):
		for name, srv in servers.items():
			env = dict(os.environ, KUBECONFIG=srv.kubeconfig, LC_ALL="C")
			wall, rss, rc, err, _stopped, cpu = bench.run_measured([plugin], env=env)
			bench.check_output("summary", rc, err, None)
			runs[name].append((wall, cpu, rss))
	return {name: tuple(statistics.median(r[i] for r in rs) for i in range(3)) for name, rs in runs.items()}


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument("--repeat", type=int, default=11)
	ap.add_argument("--latency", type=float, default=0, help="seconds each list is held in its server (default 0)")
	ap.add_argument("--nodes", type=int, default=1000)
	ap.add_argument("--pods", type=int, default=20000)
	ap.add_argument("--build", default=os.path.join(bench.ROOT, "build-bench"), help="build directory (release)")
	ap.add_argument("--plugin", help="use this plugin binary instead of building one")
	ap.add_argument("--server-timeout", type=int, default=900)
	args = ap.parse_args()
	plugin = os.path.abspath(args.plugin) if args.plugin else bench.build_plugin(os.path.abspath(args.build))
	bench.MAXRSS = bench.build_helper(os.path.abspath(args.build))
	servers = {}
	try:
		for dra in (False, True):
			srv = Cluster(args.nodes, args.pods, dra, args.server_timeout)
			bench.log("starting %s" % srv.spec)
			servers[dra] = srv.start()
			if args.latency > 0:
				hold_lists(srv, args.latency)
		res = measure(plugin, servers, args.repeat)
	finally:
		for srv in servers.values():
			srv.stop()
	base, dra = res[False], res[True]
	ratio = tuple(d / b if b else 0 for d, b in zip(dra, base))
	held = ", each list held %g s" % args.latency if args.latency else ""
	print("| %d nodes, %d pods, 8 GPUs a node%s | wall s | CPU s | peak RSS MiB |" % (args.nodes, args.pods, held))
	print("|---|---|---|---|")
	print("| gpushare annotations | %.3f | %.3f | %.1f |" % base)
	print("| Dynamic Resource Allocation | %.3f | %.3f | %.1f |" % dra)
	print("| ratio | %.2fx | %.2fx | %.2fx |" % ratio)
	ok = ratio[0] <= 1.5 and ratio[2] <= 1.5
	print("within 1.5x of the time (wall) and memory: %s; CPU %.2fx" % ("yes" if ok else "no", ratio[1]))
	return 0 if ok else 1


if __name__ == "__main__":
	sys.exit(main())
