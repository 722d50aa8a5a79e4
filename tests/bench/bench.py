#!/usr/bin/env python3
"""Scale benchmark: the plugin against a generated cluster, next to the download floor and kubectl.

    python3 tests/bench/bench.py [--scales 1k,10k,100k] [--repeat 3] [--build DIR] [--backend fake|real]
    python3 tests/bench/bench.py --scenario top --backend real --scales 20k --repeat 3

From a clean clone this is the only command needed: it builds the plugin (release build in DIR, default
build-bench, unless --plugin names a binary), and for each scale starts the fake API server once
(tests/fakeapi/fakeapi.py with a `gen:` cluster, --prerender: every list page the clients ask for is rendered
and gzipped before the first request, so the server is not what gets measured) and measures, --repeat times
each, reporting the medians of wall time, CPU time (user + system) and peak RSS (wait4 ru_maxrss, read by the
small helper tests/bench/maxrss.c, compiled into the build directory; see there why):

  floor     the download floor in JSON: the plugin's own requests (nodes and pods with
            ?fieldSelector=status.phase!=Succeeded,status.phase!=Failed, both with resourceVersion=0: whole
            lists from the API server's watch cache) fetched by two curl processes at once (--compressed,
            bytes discarded); wall time until both finish, peak RSS of the larger one
  floor_pb  the same requests in protobuf (Accept: application/vnd.kubernetes.protobuf), what the plugin
            asks for
  summary   kubectl-inspect-cgpu
  details   kubectl-inspect-cgpu -d                 (stdout to /dev/null)
  json      kubectl-inspect-cgpu -o json            (stdout to /dev/null)
  yaml      kubectl-inspect-cgpu -o yaml            (stdout to /dev/null)
  defrag    kubectl-inspect-cgpu defrag --memory 15Gi  (a plan for a whole GPU; stdout to /dev/null)
  frag      kubectl-inspect-cgpu defrag                (the fragmentation report; stdout to /dev/null)
  kubectl   kubectl get nodes,pods -A -o json       (stdout to /dev/null; run once per scale, stopped and
            reported as skipped when it would exceed --kubectl-mem GiB or --kubectl-timeout seconds)

--scenario top measures the live view instead (tests/bench/bench_top.py, where each figure is described):
`top` in a tmux pane under --churn-rate changes a second (default 100) for --churn-seconds (default 30) of
creates, deletes, status and label patches of GPU pods, beside `kubectl get pods -A -w -o name` under the same
changes; per scale a table of the time to the first screen, CPU per 1,000 watch events and peak RSS (with the
plugin's summary on the same cluster), how soon a new pod, a deleted pod and a key press show on screen, and
whether the live view's goals are met; before the runs, --starts starts of top (default 10), each right after
a summary run and within --start-budget seconds, give the time to the first screen over many starts and count
those stuck before it.  Its default scale is 20k.

Scales: tiny = 5 nodes/50 pods, 1k = 50/1,000, 5k = 250/5,000, 10k = 500/10,000, 20k = 1,000/20,000,
100k = 5,000/100,000; 4 GPUs of 15 GiB per node.

--scenario fleet measures several clusters at once (tests/bench/bench_fleet.py): --clusters fake API servers
(default 10) of one scale (default 10k), the summary on each alone and on all with --all-contexts, and whether
the fleet stays within 1.5x of one cluster's time and its peak RSS within the sum of the clusters';
--fleet-latency S holds each list S seconds in its server, as a remote API server takes its time.

--backend real runs the same on a real kube-apiserver with etcd (tests/envtest/envtest.py: the binaries
from $KUBE_ASSETS or ../shared/envtest), loaded through the API with the same generated cluster, node and
pod status written through the status subresource as a kubelet writes it, over 16 concurrent keep-alive
connections (tests/envtest/envtest_load.py): about a minute and a half and 2 GiB for the API server at 20k
on 2 cores.  Its floors are the real server's own: JSON and protobuf from the watch cache.

Output: a Markdown table per scale (also written to --out FILE when given, with the load average when its
runs started: on a shared machine compare CPU times first) and, for the lists, a scaling table of the
summary.  The servers are stopped and their state directories removed on exit, also on Ctrl-C or SIGTERM.
"""

import argparse
import os
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FAKEAPI = os.path.join(ROOT, "tests", "fakeapi", "fakeapi.py")

SCALES = {
	"tiny": (5, 50),
	"1k": (50, 1000),
	"5k": (250, 5000),
	"10k": (500, 10000),
	"20k": (1000, 20000),
	"100k": (5000, 100000),
}
GPUS, GPU_MEM = 4, 15
POD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
# Concurrent connections that load the real API server: on 2 cores it is the server's CPU that bounds the
# rate, reached from about 8 on.
LOAD_WORKERS = 16
ROWS = ("floor", "floor_pb", "summary", "details", "json", "yaml", "defrag", "frag", "kubectl")
PB = "application/vnd.kubernetes.protobuf"


def log(msg):
	print("bench: " + msg, file=sys.stderr, flush=True)


def build_plugin(build_dir):
	"""Configures (release) and builds the plugin in build_dir; returns the binary's path."""
	if not os.path.exists(os.path.join(build_dir, "build.ninja")):
		log("configuring %s" % build_dir)
		subprocess.run(["meson", "setup", build_dir, ROOT, "--buildtype=release"], check=True,
			stdout=subprocess.DEVNULL)
	log("building the plugin in %s" % build_dir)
	subprocess.run(["ninja", "-C", build_dir, "src/kubectl-inspect-cgpu"], check=True, stdout=subprocess.DEVNULL)
	return os.path.join(build_dir, "src", "kubectl-inspect-cgpu")


def vm_kib(pid, field):
	try:
		with open("/proc/%d/status" % pid) as f:
			for line in f:
				if line.startswith(field + ":"):
					return int(line.split()[1])
	except OSError:
		pass
	return 0


def die_with_parent():
	"""In the server's child process: SIGTERM it when bench.py goes away, however it ends (Linux)."""
	try:
		import ctypes
		ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
	except (OSError, AttributeError):
		pass


class Server:
	"""The fake API server with a generated cluster, started once per scale."""

	real = False

	def __init__(self, nodes, pods, timeout, prerender=True):
		self.spec = "gen:nodes=%d,pods=%d,gpus=%d,mem=%d" % (nodes, pods, GPUS, GPU_MEM)
		self.dir = tempfile.mkdtemp(prefix="cgpu-bench-")
		self.proc = None
		self.timeout = timeout
		self.prerender = prerender
		self._objects = None
		self.loaded = ""

	def start(self):
		t0 = time.monotonic()
		with open(os.path.join(self.dir, "server.log"), "w") as log_f:
			self.proc = subprocess.Popen([sys.executable, FAKEAPI, "--scenario", self.spec, "--state-dir", self.dir]
				+ (["--prerender"] if self.prerender else []), stdout=subprocess.PIPE, stderr=log_f, text=True,
				preexec_fn=die_with_parent)
		line = []
		reader = threading.Thread(target=lambda: line.append(self.proc.stdout.readline()), daemon=True)
		reader.start()
		reader.join(self.timeout)
		if not line or not line[0].startswith("port "):
			with open(os.path.join(self.dir, "server.log")) as f:
				err = f.read().strip()[-2000:]
			raise RuntimeError("fake API server did not start within %ds: %s" % (self.timeout, err))
		self.startup = time.monotonic() - t0
		self.port = int(line[0].split()[1])
		self.rss_mib = vm_kib(self.proc.pid, "VmHWM") / 1024
		self.kubeconfig = os.path.join(self.dir, "kubeconfig")
		return self

	def stop(self):
		if self.proc and self.proc.poll() is None:
			self.proc.send_signal(signal.SIGTERM)
			try:
				self.proc.wait(20)
			except subprocess.TimeoutExpired:
				self.proc.kill()
				self.proc.wait()
		if self.proc and self.proc.stdout:
			self.proc.stdout.close()
		shutil.rmtree(self.dir, ignore_errors=True)

	kind = "Fake API server"

	def creds(self):
		"""(CA, client certificate, client key) files for curl."""
		return (os.path.join(self.dir, "ca.crt"), os.path.join(self.dir, "admin.crt"),
			os.path.join(self.dir, "admin.key"))

	def ssl_context(self):
		"""TLS for our own requests, as the admin (client certificate)."""
		ca, crt, key = self.creds()
		ctx = ssl.create_default_context(cafile=ca)
		ctx.load_cert_chain(crt, key)
		return ctx

	@property
	def objects(self):
		"""The server's objects as generated: the generator is deterministic, so they are made again here."""
		if self._objects is None:
			sys.path.insert(0, os.path.join(ROOT, "tests", "fakeapi"))
			import mkfixtures  # pylint: disable=import-outside-toplevel
			self._objects = mkfixtures.generate(self.spec[len("gen:"):])[0]
		return self._objects


class RealServer:
	"""A real kube-apiserver and etcd (tests/envtest), loaded with the generated cluster once per scale."""

	kind = "Real kube-apiserver"
	real = True

	def __init__(self, nodes, pods, timeout, prerender=True):
		sys.path.insert(0, os.path.join(ROOT, "tests", "envtest"))
		sys.path.insert(0, os.path.join(ROOT, "tests", "fakeapi"))
		import envtest  # pylint: disable=import-outside-toplevel
		self.envtest = envtest
		self.spec = "nodes=%d,pods=%d,gpus=%d,mem=%d" % (nodes, pods, GPUS, GPU_MEM)
		self.timeout = timeout
		self.cluster = None

	def start(self):
		import mkfixtures  # pylint: disable=import-outside-toplevel
		t0 = time.monotonic()
		# no controllers: nothing but the loaded objects, and no CPU spent on them meanwhile; no audit log,
		# which nothing here reads
		self.cluster = self.envtest.Cluster(controllers=False, audit=False).start(self.timeout)
		self.dir = self.cluster.dir
		self.port = self.cluster.port
		self.kubeconfig = self.cluster.kubeconfig
		objects, config = mkfixtures.generate(self.spec)
		self.objects = objects
		log("loading %d objects into the API server (%d connections)" % (len(objects), LOAD_WORKERS))
		t1 = time.monotonic()
		self.envtest.load_scenario(self.cluster, (objects, config), workers=LOAD_WORKERS, clean=False)
		took = time.monotonic() - t1
		stats = self.cluster.pool.stats
		self.loaded = " (loaded in %.0f s: %.0f objects a second, %d requests, %d retried)" % (took,
			len(objects) / took, stats["requests"], stats["retries"])
		log("loaded%s" % self.loaded)
		self.startup = time.monotonic() - t0
		self.rss_mib = vm_kib(self.cluster.procs["kube-apiserver"][0].pid, "VmRSS") / 1024
		return self

	def stop(self):
		if self.cluster:
			self.cluster.stop()

	def creds(self):
		return (self.cluster.ca, os.path.join(self.dir, "admin.crt"), os.path.join(self.dir, "admin.key"))

	def ssl_context(self):
		return self.cluster.ssl


MAXRSS = None  # the helper binary (maxrss.c), built by main()


def build_helper(build_dir):
	"""Compiles tests/bench/maxrss.c, which measures a command's peak RSS (see there why it is needed)."""
	os.makedirs(build_dir, exist_ok=True)
	out = os.path.join(build_dir, "bench-maxrss")
	src = os.path.join(HERE, "maxrss.c")
	if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
		cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
		if not cc:
			raise SystemExit("bench: a C compiler is needed for tests/bench/maxrss.c")
		subprocess.run([cc, "-O2", "-std=c17", "-D_GNU_SOURCE", "-o", out, src], check=True)
	return out


class Measured:
	"""A command started under the maxrss helper."""

	def __init__(self, argv, env=None, stdout=subprocess.DEVNULL):
		fd, self.res = tempfile.mkstemp(prefix="cgpu-bench-rss-")
		os.close(fd)
		self.err = tempfile.TemporaryFile()
		self.proc = subprocess.Popen([MAXRSS, self.res] + list(argv), env=env, stdout=stdout, stderr=self.err)

	def child_pid(self):
		try:
			with open("/proc/%d/task/%d/children" % (self.proc.pid, self.proc.pid)) as f:
				kids = f.read().split()
			return int(kids[0]) if kids else None
		except (OSError, ValueError):
			return None

	def wait(self):
		"""Returns (wall seconds, peak RSS MiB, exit status, stderr text, CPU seconds)."""
		self.proc.wait()
		try:
			with open(self.res) as f:
				kib, rc, wall, cpu = f.read().split()
		except (OSError, ValueError):
			kib, rc, wall, cpu = 0, self.proc.returncode or 127, 0, 0
		finally:
			os.unlink(self.res)
		self.err.seek(0)
		err = self.err.read().decode("utf-8", "replace")
		self.err.close()
		return float(wall), int(kib) / 1024, int(rc), err, float(cpu)


def run_measured(argv, env=None, stdout=subprocess.DEVNULL, limit_s=None, limit_mib=None):
	"""Runs argv; returns (wall seconds, peak RSS MiB, exit status, stderr text, stopped reason, CPU seconds)."""
	t0 = time.monotonic()
	m = Measured(argv, env, stdout)
	stopped = []
	done = threading.Event()

	def watchdog():
		while not done.wait(0.2):
			pid = m.child_pid()
			if limit_s is not None and time.monotonic() - t0 > limit_s:
				stopped.append("over %ds" % limit_s)
			elif pid and limit_mib is not None and vm_kib(pid, "VmRSS") / 1024 > limit_mib:
				stopped.append("over %.1f GiB" % (limit_mib / 1024))
			if stopped:
				if pid:
					try:
						os.kill(pid, signal.SIGKILL)
					except ProcessLookupError:
						pass
				return
	w = None
	if limit_s is not None or limit_mib is not None:
		w = threading.Thread(target=watchdog, daemon=True)
		w.start()
	wall, rss, rc, err, cpu = m.wait()
	done.set()
	if w:
		w.join()
	return wall, rss, rc, err, (stopped[0] if stopped else None), cpu


def curl_config(srv, urls, path, accept="application/json"):
	with open(path, "w") as f:
		f.write('cacert = "%s"\ncert = "%s"\nkey = "%s"\n' % srv.creds())
		f.write('silent\nshow-error\nfail\ncompressed\nheader = "Accept: %s"\n' % accept)
		for u in urls:
			f.write('url = "%s"\noutput = "/dev/null"\n' % u)


def measure_floor(srv, cfgs):
	t0 = time.monotonic()
	runs = [Measured(["curl", "-K", c]) for c in cfgs]
	res = [m.wait() for m in runs]
	wall = time.monotonic() - t0
	for _w, _rss, rc, err, _cpu in res:
		if rc != 0:
			raise RuntimeError("curl failed (%d): %s" % (rc, err.strip()))
	return wall, max(r[1] for r in res), sum(r[4] for r in res)


def check_output(name, rc, err, path):
	if rc != 0:
		raise RuntimeError("%s exited with %d: %s" % (name, rc, err.strip()[-1000:]))
	if path is not None and os.path.getsize(path) == 0:
		raise RuntimeError("%s printed nothing" % name)


def bench_scale(name, plugin, args):
	nodes, pods = SCALES[name]
	real = args.backend == "real"
	log("%s: starting the %s API server (%d nodes, %d pods%s)" % (name, args.backend, nodes, pods,
		"" if real else ", prerendered"))
	srv = (RealServer if real else Server)(nodes, pods, args.server_timeout)
	try:
		srv.start()
		log("%s: server ready in %.1f s, %.0f MiB" % (name, srv.startup, srv.rss_mib))
		env = dict(os.environ, KUBECONFIG=srv.kubeconfig, LC_ALL="C", NO_COLOR="1", HOME=srv.dir)
		env.pop("KUBECTL_INSPECT_CGPU_PROTOBUF", None)
		base = "https://127.0.0.1:%d" % srv.port
		urls = [base + "/api/v1/nodes?resourceVersion=0",
			base + "/api/v1/pods?" + urllib.parse.urlencode({"fieldSelector": POD_SELECTOR, "resourceVersion": "0"})]
		cfgs = [os.path.join(srv.dir, "curl-nodes.cfg"), os.path.join(srv.dir, "curl-pods.cfg")]
		cfgs_pb = [os.path.join(srv.dir, "curl-nodes-pb.cfg"), os.path.join(srv.dir, "curl-pods-pb.cfg")]
		for u, c, cp in zip(urls, cfgs, cfgs_pb):
			curl_config(srv, [u], c)
			curl_config(srv, [u], cp, PB + ", application/json")
		outp = os.path.join(srv.dir, "out")
		plugin_runs = {"summary": [], "details": ["-d"], "json": ["-o", "json"], "yaml": ["-o", "yaml"],
			"defrag": ["defrag", "--memory", "15Gi"], "frag": ["defrag"]}
		res = {k: [] for k in ROWS}
		# Warm-up: page caches, TLS session setup in the server, the binary in the page cache.
		measure_floor(srv, cfgs)
		measure_floor(srv, cfgs_pb)
		load = os.getloadavg()[0]
		for i in range(args.repeat):
			res["floor"].append(measure_floor(srv, cfgs))
			res["floor_pb"].append(measure_floor(srv, cfgs_pb))
			for row, extra in plugin_runs.items():
				with open(outp, "w") as out:
					wall, rss, rc, err, _, cpu = run_measured([plugin] + extra, env=env, stdout=out)
				# defrag exits 3 when no plan exists within its limits: an answer all the same
				check_output("plugin %s" % row, 0 if row == "defrag" and rc == 3 else rc, err, outp)
				if row == "summary" and i == 0:
					with open(outp) as f:
						summary_text = f.read()
					if "Allocated/Total GPU Memory In Cluster" not in summary_text:
						raise RuntimeError("the summary lacks its total line:\n" + summary_text[-500:])
				res[row].append((wall, rss, cpu))
			log("%s: round %d/%d: floor %.2fs, protobuf floor %.2fs, summary %.2fs" % (name, i + 1, args.repeat,
				res["floor"][-1][0], res["floor_pb"][-1][0], res["summary"][-1][0]))
		note = None
		if args.skip_kubectl or not shutil.which("kubectl"):
			note = "kubectl: not run" + ("" if args.skip_kubectl else " (not installed)")
		else:
			avail = meminfo("MemAvailable") / 1024
			cap = min(args.kubectl_mem * 1024, max(1024, avail - 1024))
			log("%s: kubectl get nodes,pods -A -o json (once; limit %ds, %.1f GiB)" % (name, args.kubectl_timeout,
				cap / 1024))
			wall, rss, rc, err, stopped, cpu = run_measured(["kubectl", "get", "nodes,pods", "-A", "-o", "json",
				"--cache-dir", os.path.join(srv.dir, "kcache")], env=env, limit_s=args.kubectl_timeout, limit_mib=cap)
			if stopped:
				note = "kubectl: stopped %s (after %.0f s, %.0f MiB), not counted" % (stopped, wall, rss)
			elif rc != 0:
				note = "kubectl: failed (%d): %s" % (rc, err.strip()[-300:])
			else:
				res["kubectl"].append((wall, rss, cpu))
		return {"name": name, "nodes": nodes, "pods": pods, "startup": srv.startup, "server_mib": srv.rss_mib,
			"res": res, "note": note, "load": load, "server": srv.kind, "loaded": srv.loaded}
	finally:
		srv.stop()


def bench_top_scale(name, plugin, args):
	"""The live-view scenario (bench_top.py) on one scale."""
	import bench_top  # pylint: disable=import-outside-toplevel
	nodes, pods = SCALES[name]
	log("%s: starting the %s API server (%d nodes, %d pods)" % (name, args.backend, nodes, pods))
	srv = (RealServer if args.backend == "real" else Server)(nodes, pods, args.server_timeout, prerender=False)
	try:
		srv.start()
		log("%s: server ready in %.1f s, %.0f MiB" % (name, srv.startup, srv.rss_mib))
		b = bench_top.Bench(srv, plugin, MAXRSS, args, run_measured, Measured)
		size = b.pod_size()
		starts = bench_top.start_loop(b, args.starts, args.start_budget) if args.starts else None
		runs = bench_top.run_scenario(b, args.repeat)
		return {"name": name, "nodes": nodes, "pods": pods, "startup": srv.startup, "server_mib": srv.rss_mib,
			"server": srv.kind, "loaded": srv.loaded, "rate": args.churn_rate, "seconds": args.churn_seconds,
			"pod_size": size, "runs": runs, "starts": starts}
	finally:
		srv.stop()


def meminfo(field):
	with open("/proc/meminfo") as f:
		for line in f:
			if line.startswith(field + ":"):
				return int(line.split()[1])
	return 0


def med(vals, i):
	return statistics.median(v[i] for v in vals) if vals else None


def fmt(v, spec):
	return "n/a" if v is None else spec % v


def table(r, repeat):
	res = r["res"]
	floor_w, floor_c = med(res["floor_pb"], 0), med(res["floor_pb"], 2)
	kube_w = med(res["kubectl"], 0)
	lines = ["### %s: %d nodes x %d GPUs, %d pods" % (r["name"], r["nodes"], GPUS, r["pods"]), "",
		"Median of %d runs (kubectl: one run). %s ready in %.1f s%s, %.0f MiB; load average %.1f "
		"when the runs started. Ratios are to the protobuf floor." % (repeat, r["server"], r["startup"],
			r["loaded"], r["server_mib"], r["load"]), "",
		"| run | wall (s) | CPU (s) | peak RSS (MiB) | wall / floor | CPU / floor | wall / kubectl |",
		"|---|---:|---:|---:|---:|---:|---:|"]
	labels = {"floor": "download floor, JSON (2 x curl, watch cache, gzip)",
		"floor_pb": "download floor, protobuf (2 x curl, watch cache, gzip)", "summary": "plugin summary",
		"details": "plugin `-d`", "json": "plugin `-o json`", "yaml": "plugin `-o yaml`",
		"defrag": "plugin `defrag --memory 15Gi`",
		"frag": "plugin `defrag` (fragmentation report)",
		"kubectl": "`kubectl get nodes,pods -A -o json`"}
	for row in ROWS:
		w, m, c = med(res[row], 0), med(res[row], 1), med(res[row], 2)
		rf = w / floor_w if w is not None and floor_w else None
		cf = c / floor_c if c is not None and floor_c else None
		rk = w / kube_w if w is not None and kube_w else None
		lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (labels[row], fmt(w, "%.2f"), fmt(c, "%.2f"),
			fmt(m, "%.1f"), fmt(rf, "%.2fx"), fmt(cf, "%.2fx"), fmt(rk, "%.3f")))
	if r["note"]:
		lines += ["", r["note"]]
	return "\n".join(lines)


def scaling(results):
	lines = ["### Scaling of the summary", "",
		"| scale | nodes | pods | protobuf floor (s) | summary (s) | summary / floor | summary CPU (s) | "
		"summary peak RSS (MiB) |",
		"|---|---:|---:|---:|---:|---:|---:|---:|"]
	for r in results:
		fw, sw = med(r["res"]["floor_pb"], 0), med(r["res"]["summary"], 0)
		sc, sm = med(r["res"]["summary"], 2), med(r["res"]["summary"], 1)
		lines.append("| %s | %d | %d | %.2f | %.2f | %.2fx | %.2f | %.1f |" % (r["name"], r["nodes"], r["pods"], fw, sw,
			sw / fw if fw else 0, sc, sm))
	return "\n".join(lines)


def interrupted(_sig, _frame):
	raise KeyboardInterrupt


def main(argv=None):
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n\n", 1)[1],
		formatter_class=argparse.RawDescriptionHelpFormatter)
	ap.add_argument("--scenario", choices=("lists", "top", "fleet"), default="lists",
		help="lists: the one-shot commands and their floors; top: the live view under churn (bench_top.py); "
		"fleet: several clusters at once (bench_fleet.py)")
	ap.add_argument("--clusters", type=int, default=10, help="fleet: how many clusters (default 10)")
	ap.add_argument("--fleet-latency", type=float, default=0,
		help="fleet: seconds each server holds each list before answering (default 0)")
	ap.add_argument("--scales", help="comma-separated: %s (default: 1k,10k,100k; with --scenario top, 20k)" %
		", ".join(SCALES))
	ap.add_argument("--repeat", type=int, default=3)
	ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"), help="build directory (release)")
	ap.add_argument("--plugin", help="use this plugin binary instead of building one")
	ap.add_argument("--skip-kubectl", action="store_true")
	ap.add_argument("--kubectl-timeout", type=int, default=600, help="seconds")
	ap.add_argument("--kubectl-mem", type=float, default=16, help="GiB")
	ap.add_argument("--server-timeout", type=int, default=600, help="seconds for the server to start")
	ap.add_argument("--churn-rate", type=float, default=100, help="top: changes a second (default 100)")
	ap.add_argument("--churn-seconds", type=float, default=30, help="top: seconds of churn per run (default 30)")
	ap.add_argument("--starts", type=int, default=10,
		help="top: starts of top before the runs, each after a summary run (default 10)")
	ap.add_argument("--start-budget", type=float, default=60, help="top: seconds a start may take (default 60)")
	ap.add_argument("--out", help="also write the Markdown tables to this file")
	ap.add_argument("--backend", choices=("fake", "real"), default="fake",
		help="the fake API server, or a real kube-apiserver with etcd (tests/envtest)")
	args = ap.parse_args(argv)
	top = args.scenario == "top"
	fleet = args.scenario == "fleet"
	scales = [s for s in (args.scales or ("20k" if top else "10k" if fleet else "1k,10k,100k")).split(",") if s]
	for s in scales:
		if s not in SCALES:
			ap.error("unknown scale %s (known: %s)" % (s, ", ".join(SCALES)))
	if args.repeat < 1:
		ap.error("--repeat must be at least 1")
	if args.clusters < 1:
		ap.error("--clusters must be at least 1")
	if args.starts < 0 or args.start_budget <= 0:
		ap.error("--starts must be 0 or more and --start-budget positive")
	if args.churn_rate <= 0 or args.churn_seconds <= 0:
		ap.error("--churn-rate and --churn-seconds must be positive")
	for tool in ("tmux",) if top else ("curl",):
		if not shutil.which(tool):
			ap.error("%s is needed" % tool)
	global MAXRSS
	plugin = os.path.abspath(args.plugin) if args.plugin else build_plugin(os.path.abspath(args.build))
	MAXRSS = build_helper(os.path.abspath(args.build))

	# SIGTERM ends the run like Ctrl-C, so that the servers are stopped by the finally clauses.
	signal.signal(signal.SIGTERM, interrupted)
	results, tables = [], []
	try:
		for s in scales:
			if fleet:
				# bench_fleet reads this module's state (the helper built above) under its own name
				sys.modules.setdefault("bench", sys.modules[__name__])
				import bench_fleet  # pylint: disable=import-outside-toplevel
				results.append(bench_fleet.bench_fleet(s, plugin, args))
				tables.append(bench_fleet.table(results[-1]))
			elif top:
				import bench_top  # pylint: disable=import-outside-toplevel
				results.append(bench_top_scale(s, plugin, args))
				tables.append(bench_top.table(results[-1], args.repeat))
			else:
				results.append(bench_scale(s, plugin, args))
				tables.append(table(results[-1], args.repeat))
			print(tables[-1] + "\n", flush=True)
	except KeyboardInterrupt:
		log("interrupted")
		return 130
	if not top and not fleet:
		tables.append(scaling(results))
		print(tables[-1], flush=True)
	if args.out:
		with open(args.out, "w") as f:
			f.write("\n\n".join(tables) + "\n")
	return 0


if __name__ == "__main__":
	sys.exit(main())
