#!/usr/bin/env python3
"""`usage` against the summary on a generated cluster with metrics for every GPU.

    python3 tests/bench/bench_usage.py [--nodes 5000] [--pods 100000] [--repeat 3] [--plugin PATH]

Starts the fake API server with a generated cluster (gen:nodes=N,pods=M,gpus=4,mem=15, --prerender, as
tests/bench/bench.py does) and a real Prometheus (tests/e2e/harness.py) scraping DCGM-exporter-shaped text for
every GPU of every node (memory used and free and utilisation; one exporter per 100 nodes), waits until every
series is queryable, then measures, --repeat times each, the medians of wall and CPU time and peak RSS of:

  summary       kubectl-inspect-cgpu
  wide+usage    kubectl-inspect-cgpu -o wide --prometheus-url URL
  usage         kubectl-inspect-cgpu usage --prometheus-url URL
  usage proxy   kubectl-inspect-cgpu usage --prometheus NS/SVC:PORT   (through the fake API server's proxy)
"""

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

import harness  # noqa: E402

GPUS = 4
PER_FILE = 100


def node_name(i):
	return "cn-shanghai.10.%d.%d.%d" % (i // 65536 % 256, i // 256 % 256, i % 256)


def exposition(first, last, rnd):
	out = []
	for metric, kind in (("DCGM_FI_DEV_FB_USED", "used"), ("DCGM_FI_DEV_FB_FREE", "free"),
			("DCGM_FI_DEV_GPU_UTIL", "util")):
		out.append("# TYPE %s gauge" % metric)
		for i in range(first, last):
			name = node_name(i)
			for g in range(GPUS):
				used = 1000 + (i * 7 + g * 13) % 14000
				v = used if kind == "used" else 16160 - used if kind == "free" else rnd.randrange(100)
				out.append('%s{gpu="%d",UUID="GPU-%08x-%04x",device="nvidia%d",modelName="Tesla V100-SXM2-16GB",'
					'Hostname="%s"} %d' % (metric, g, i, g, g, name, v))
	return "\n".join(out) + "\n"


def measure(argv, env):
	t0 = time.monotonic()
	before = resource.getrusage(resource.RUSAGE_CHILDREN)
	p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
	_, status, ru = os.wait4(p.pid, 0)
	wall = time.monotonic() - t0
	err = p.stderr.read().decode()
	p.stderr.close()
	rc = os.waitstatus_to_exitcode(status)
	if rc != 0 or "Warning" in err:
		raise SystemExit("%s: exit %d: %s" % (" ".join(argv[1:]), rc, err[-500:]))
	del before
	return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument("--nodes", type=int, default=5000)
	ap.add_argument("--pods", type=int, default=100000)
	ap.add_argument("--repeat", type=int, default=3)
	ap.add_argument("--plugin", default=os.path.join(ROOT, "build", "src", "kubectl-inspect-cgpu"))
	a = ap.parse_args()

	tmp = tempfile.mkdtemp(prefix="bench-usage-")
	rnd = random.Random(1)
	for first in range(0, a.nodes, PER_FILE):
		with open(os.path.join(tmp, "dcgm-%05d.prom" % first), "w", encoding="utf-8") as f:
			f.write(exposition(first, min(a.nodes, first + PER_FILE), rnd))
	t = time.monotonic()
	prom = harness.Prometheus([tmp], scrape_interval="10s").start(timeout=300)
	print("prometheus ready in %.1fs" % (time.monotonic() - t), file=sys.stderr)
	want = a.nodes * GPUS
	while int(float(prom.query("count(DCGM_FI_DEV_FB_USED)")[0]["value"][1])) < want:
		time.sleep(1)
	t = time.monotonic()
	api = harness.FakeAPI("gen:nodes=%d,pods=%d,gpus=%d,mem=15" % (a.nodes, a.pods, GPUS), prerender=True)
	api.start(timeout=600)
	print("fakeapi ready in %.1fs" % (time.monotonic() - t), file=sys.stderr)
	api.control("POST", "/_fake/services", {"namespace": "monitoring", "name": "prometheus", "port": "9090",
		"url": prom.url})
	env = dict(os.environ, LC_ALL="C", TZ="UTC", NO_COLOR="1")
	base = [a.plugin, "--kubeconfig", api.kubeconfig, "--request-timeout=60s"]
	runs = [
		("summary", base),
		("wide+usage", base + ["-o", "wide", "--prometheus-url=" + prom.url]),
		("usage", base + ["usage", "--prometheus-url=" + prom.url]),
		("usage proxy", base + ["usage", "--prometheus=monitoring/prometheus:9090"]),
	]
	results = {name: [] for name, _ in runs}
	try:
		for _ in range(a.repeat):
			for name, argv in runs:
				results[name].append(measure(argv, env))
	finally:
		api.stop()
		prom.stop()
		shutil.rmtree(tmp, ignore_errors=True)
	print("%d nodes, %d pods, %d GPUs with metrics; medians of %d runs (load %.2f)" % (a.nodes, a.pods, want,
		a.repeat, os.getloadavg()[0]))
	# the machine may be shared: CPU time and peak memory do not depend on its load, wall time does
	print("| run | wall s | CPU s | peak RSS MiB | wall / summary | CPU / summary |")
	print("|---|---|---|---|---|---|")
	ref = statistics.median(r[0] for r in results["summary"])
	ref_cpu = statistics.median(r[1] for r in results["summary"])
	for name, _ in runs:
		w = statistics.median(r[0] for r in results[name])
		c = statistics.median(r[1] for r in results[name])
		m = statistics.median(r[2] for r in results[name])
		print("| %s | %.2f | %.2f | %.0f | %.2fx | %.2fx |" % (name, w, c, m, w / ref, c / ref_cpu))


if __name__ == "__main__":
	main()
