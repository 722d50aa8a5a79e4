"""The live view under churn, for bench.py --scenario top: `kubectl-inspect-cgpu top` in a pseudo-terminal
(a tmux pane) on a loaded cluster while its GPU pods change at a steady rate, beside
`kubectl get pods -A -w -o name` under the same changes.

Before the runs, on the same cluster:

  starts    --starts times in turn: the plugin's summary (wall time), then top in a pane until its first full
            screen, then q; a start with no full screen within --start-budget seconds is counted as stuck
            and its screen logged (the medians leave it out)

Each run, on the same cluster:

  summary   the plugin's summary (no churn): wall time, CPU time, peak RSS
  top       started in a tmux pane under the maxrss helper: the time from the start to the first full screen
            (the header counts every node and the first node's pane is drawn); its CPU time while the
            changes arrive, per 1,000 watch events; its peak RSS over the whole run
  kubectl   `kubectl get pods -A -w -o name` (stdout to a file), started once top is on screen; the churn
            begins when it has printed its first list; the same CPU and RSS figures
  churn     --churn-rate changes a second for --churn-seconds, each sent at its time (start + i / rate) by
            the first free connection of a pool: creates, deletes, status patches (through the status
            subresource, as a kubelet writes them) and label patches of GPU pods, in turn
  events    counted by a watch of our own on the plugin's pods (its field selector) from the churn's start
            until two seconds after its end; the CPU window is the same
  probes    while the churn runs, in turn: a pod with a distinctive name created on the first GPU of the
            node the pane shows, timed from the server's answer until the name is on screen; `j` and `k`,
            timed from the key until the pane shows the next node and the first again; the probe pod
            deleted, timed until its name is gone

The fake API server has no create and no status subresource: there the churn creates and deletes through
its control endpoints and writes status with a patch of the pod.
"""

import http.client
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "envtest"))
sys.path.insert(0, os.path.join(ROOT, "tests", "fakeapi"))

import mkfixtures  # noqa: E402
from envtest_load import LoadError, Pool, Writer  # noqa: E402
from envtest_scenario import _pod_for_create, strip_for_create  # noqa: E402

POD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
GPU_MEM = 15
TICK = os.sysconf("SC_CLK_TCK")
SETTLE = 2.0  # seconds for the clients to take in what came last, before and after the churn
PROBE_TIMEOUT = 10.0
# How often the screen is read while waiting for it to change: each read is a tmux client process, and on
# 2 cores reading faster would take CPU from what is measured.
POLL = 0.05
COLS, LINES = 160, 50


def log(msg):
	print("bench: " + msg, file=sys.stderr, flush=True)


def tree_cpu(pid):
	"""CPU seconds (user + system) of a process and its living descendants."""
	total, todo = 0.0, [pid]
	while todo:
		p = todo.pop()
		try:
			with open("/proc/%d/stat" % p) as f:
				fields = f.read().rsplit(")", 1)[1].split()
			total += (int(fields[11]) + int(fields[12])) / TICK
			for t in os.listdir("/proc/%d/task" % p):
				with open("/proc/%d/task/%s/children" % (p, t)) as f:
					todo += [int(c) for c in f.read().split()]
		except (OSError, ValueError, IndexError):
			pass
	return total


def gpu_pod(tpl, ns, name, node, idx, with_status):
	"""A pod asking for 1 GiB of GPU memory on GPU idx of node, shaped as tpl (a generated pod)."""
	p = _pod_for_create(tpl)
	p["metadata"] = {"name": name, "namespace": ns, "labels": {"app": "churn", "job-name": name},
		"annotations": mkfixtures.gpu_annotations(idx, GPU_MEM, 1)}
	gpu = {"aliyun.com/gpu-mem": "1"}
	p["spec"] = dict(p["spec"], nodeName=node, containers=[dict(c, resources={"limits": gpu, "requests": gpu})
		for c in p["spec"]["containers"]])
	return p if with_status else strip_for_create(p)


class Writes:
	"""The changes, as requests on a Writer (envtest_load): through the API of a real server, through the
	fake server's control endpoints where it has no API for them."""

	def __init__(self, real):
		self.real = real

	@staticmethod
	def path(ns, name=""):
		return "/api/v1/namespaces/%s/pods%s" % (urllib.parse.quote(ns), "/" + urllib.parse.quote(name) if name else "")

	def create(self, w, pod):
		body = json.dumps(pod).encode()
		if self.real:
			w.request("POST", self.path(pod["metadata"]["namespace"]), body, ok=(201,), created=True)
		else:
			w.request("POST", "/_fake/objects", body, ok=(201,))

	def delete(self, w, ns, name):
		if self.real:
			w.request("DELETE", self.path(ns, name) + "?gracePeriodSeconds=0", ok=(200, 202))
		else:
			w.request("DELETE", "/_fake/objects/pods/%s/%s" % (ns, name), ok=(200,))

	def status(self, w, ns, name, n):
		cond = {"type": "Ready", "status": "True" if n % 2 else "False", "message": "churn %d" % n,
			"lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
		body = json.dumps({"status": {"conditions": [cond]}}).encode()
		if self.real:
			w.request("PATCH", self.path(ns, name) + "/status", body, "application/strategic-merge-patch+json")
		else:
			w.request("PATCH", self.path(ns, name), body, "application/merge-patch+json")

	def label(self, w, ns, name, n):
		body = json.dumps({"metadata": {"labels": {"bench-churn": str(n)}}}).encode()
		w.request("PATCH", self.path(ns, name), body, "application/merge-patch+json")


class Pods:
	"""The GPU pods the churn may change: those of the generated cluster, less the deleted, plus the created
	(once their create has been answered).  Kept across the runs on one cluster."""

	def __init__(self, objects):
		self.nodes = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "Node")
		pods = [o for o in objects if o["kind"] == "Pod" and
			"ALIYUN_COM_GPU_MEM_IDX" in o["metadata"].get("annotations", {})]
		self.template = pods[0]
		self.live = [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in pods]
		self.count = sum(1 for o in objects if o["kind"] == "Pod")
		self.lock = threading.Lock()
		self.rnd = random.Random(1)

	def take(self):
		with self.lock:
			i = self.rnd.randrange(len(self.live))
			self.live[i], self.live[-1] = self.live[-1], self.live[i]
			self.count -= 1
			return self.live.pop()

	def pick(self):
		with self.lock:
			return self.live[self.rnd.randrange(len(self.live))]

	def add(self, key):
		with self.lock:
			self.live.append(key)
			self.count += 1

	def place(self):
		with self.lock:
			return self.rnd.choice(self.nodes), self.rnd.randrange(4)


class Churn:
	"""rate changes a second for seconds: create, delete, status patch, label patch in turn, change i sent
	at start + i / rate by the first free of `workers` connections."""

	def __init__(self, pool, writes, pods, rate, seconds, tag, workers=64):
		self.pool, self.writes, self.pods = pool, writes, pods
		self.rate, self.n, self.tag, self.workers = rate, int(rate * seconds), tag, workers
		self.done = self.failed = 0
		self.late = self.last_sent = 0.0
		self.error = None
		self.lock = threading.Lock()
		self.finished = threading.Event()

	def run(self):
		"""Runs on a thread of its own: what ends it early is kept in self.crash for the caller."""
		self.start = time.monotonic() + 0.05
		self.crash = None
		try:
			self.pool.run([self._job(i) for i in range(self.n)], self.workers)
		except Exception as e:  # noqa: BLE001  (raised again by the caller)
			self.crash = e
		finally:
			self.finished.set()

	def sent_rate(self):
		"""Changes sent a second, from the first to the last sent (each counted for 1 / rate)."""
		span = self.last_sent - self.start + 1 / self.rate
		return self.n / span if span > 0 else 0.0

	def _change(self, w, i):
		kind = i % 4
		if kind == 0:
			node, idx = self.pods.place()
			ns, name = "team-%d" % (i % 20), "churn-%s-%d" % (self.tag, i)
			self.writes.create(w, gpu_pod(self.pods.template, ns, name, node, idx, not self.writes.real))
			self.pods.add((ns, name))
		elif kind == 1:
			self.writes.delete(w, *self.pods.take())
		elif kind == 2:
			self.writes.status(w, *self.pods.pick(), i)
		else:
			self.writes.label(w, *self.pods.pick(), i)

	def _job(self, i):
		def job(w):
			delay = self.start + i / self.rate - time.monotonic()
			if delay > 0:
				time.sleep(delay)
			sent = time.monotonic()
			try:
				self._change(w, i)
				ok = True
			except LoadError as e:
				# a patch of a pod that a delete took meanwhile: counted, not fatal
				ok, self.error = False, str(e)
			with self.lock:
				self.late = max(self.late, -delay)
				self.last_sent = max(self.last_sent, sent)
				if ok:
					self.done += 1
				else:
					self.failed += 1
		return job


class EventCounter:
	"""Counts the events of a watch of pods with the plugin's field selector, from the current
	resourceVersion on: what the API server sends each such watcher."""

	def __init__(self, host, port, ctx):
		self.conn = http.client.HTTPSConnection(host, port, context=ctx, timeout=3600)
		self.counts = {}
		self.thread = None

	def start(self):
		c = self.conn
		c.request("GET", "/api/v1/pods?" + urllib.parse.urlencode({"fieldSelector": POD_SELECTOR, "limit": "1"}),
			headers={"Accept": "application/json"})
		r = c.getresponse()
		body = r.read()
		if r.status != 200:
			raise RuntimeError("list pods: %d %s" % (r.status, body[:300]))
		rv = json.loads(body)["metadata"]["resourceVersion"]
		c.request("GET", "/api/v1/pods?" + urllib.parse.urlencode({"watch": "1", "resourceVersion": rv,
			"fieldSelector": POD_SELECTOR, "timeoutSeconds": "3600"}), headers={"Accept": "application/json"})
		self.resp = c.getresponse()
		if self.resp.status != 200:
			raise RuntimeError("watch pods: %d %s" % (self.resp.status, self.resp.read()[:300]))
		self.thread = threading.Thread(target=self._read, name="bench-events", daemon=True)
		self.thread.start()
		return self

	def _read(self):
		kind = re.compile(rb'"type":\s*"([A-Z]+)"')
		try:
			for line in iter(self.resp.readline, b""):
				m = kind.search(line, 0, 64)
				if m:
					t = m.group(1).decode()
					self.counts[t] = self.counts.get(t, 0) + 1
		except (OSError, ValueError, AttributeError, http.client.HTTPException):
			pass  # stop() closed the connection under it

	def events(self):
		return sum(v for k, v in self.counts.items() if k in ("ADDED", "MODIFIED", "DELETED"))

	def stop(self):
		try:
			self.conn.sock.shutdown(socket.SHUT_RDWR)
		except (OSError, AttributeError):
			pass
		self.conn.close()
		if self.thread:
			self.thread.join(10)
		return self.events()


class TopPane:
	"""A command in a detached tmux session of COLS x LINES; it starts when go() presses Enter, so that the
	time to its first screen leaves tmux's own start out."""

	SCRIPT = 'echo READY\nread go\nexec "$@"\n'

	def __init__(self, argv, env):
		self.dir = tempfile.mkdtemp(prefix="cgpu-bench-top-")
		self.sock = os.path.join(self.dir, "tmux.sock")
		script = os.path.join(self.dir, "run.sh")
		with open(script, "w") as f:
			f.write(self.SCRIPT)
		exports = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
		# ncurses takes COLUMNS and LINES over the real size: none may reach the pane
		cmd = "env -u COLUMNS -u LINES %s sh %s %s" % (exports, shlex.quote(script),
			" ".join(shlex.quote(a) for a in argv))
		self.tmux("new-session", "-d", "-s", "top", "-x", str(COLS), "-y", str(LINES), cmd)

	def tmux(self, *args):
		return subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null"] + list(args), capture_output=True,
			text=True, timeout=20, check=True).stdout

	def screen(self):
		try:
			return self.tmux("capture-pane", "-p", "-t", "top")
		except subprocess.CalledProcessError:
			return ""  # the session has ended

	def keys(self, *keys):
		self.tmux("send-keys", "-t", "top", *keys)

	def wait(self, pred, timeout, poll=POLL):
		"""The time (monotonic) of the first screen for which pred holds, or None after timeout."""
		end = time.monotonic() + timeout
		while True:
			s = self.screen()
			t = time.monotonic()
			if pred(s):
				return t
			if t > end:
				return None
			time.sleep(poll)

	def go(self):
		if self.wait(lambda s: "READY" in s, 20) is None:
			raise RuntimeError("the tmux pane did not start")
		t = time.monotonic()
		self.keys("Enter")
		return t

	def pane_pid(self):
		return int(self.tmux("display-message", "-p", "-t", "top", "#{pane_pid}").strip())

	def close(self):
		subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True, timeout=20)
		shutil.rmtree(self.dir, ignore_errors=True)


# ---- one run -------------------------------------------------------------------------------------------

def probe(pane, w, writes, pods, tag, until):
	"""The probes, in turn, until the churn ends: seconds from each change to the screen that shows it
	(inf for one never seen within PROBE_TIMEOUT)."""
	first, second = pods.nodes[0], pods.nodes[1]
	out = {"create": [], "delete": [], "key": []}

	# Each change waits a random part of a second first: seen as soon as it shows, a change would otherwise
	# fall at the same point of the view's redraw cycle every time, and always measure the same delay.
	rnd = random.Random(tag)

	def seen(t_ref, pred, poll=POLL):
		t = pane.wait(pred, PROBE_TIMEOUT, poll)
		return t - t_ref if t is not None else float("inf")
	k = 0
	while not until.is_set():
		# team-0 and a name starting with "a" sort first on the node's first GPU, shown at the pane's top
		ns, name = "team-0", "a-probe-%s-%03d" % (tag, k)
		time.sleep(rnd.random())
		writes.create(w, gpu_pod(pods.template, ns, name, first, 0, not writes.real))
		out["create"].append(seen(time.monotonic(), lambda s, n=name: n in s))
		for key, node in (("j", second), ("k", first)):
			time.sleep(rnd.random() * 0.2)
			t = time.monotonic()
			pane.keys(key)
			out["key"].append(seen(t, lambda s, n=node: "node %s  ip" % n in s, POLL / 2))
		time.sleep(rnd.random())
		writes.delete(w, ns, name)
		out["delete"].append(seen(time.monotonic(), lambda s, n=name: n not in s))
		k += 1
	return out


def count_lines(path):
	with open(path, "rb") as f:
		return f.read().count(b"\n")


def wait_listed(m, path, want, timeout, cap_mib):
	"""Waits until kubectl has printed `want` lines (a pod deleted or created by a change that failed may
	leave it a few short) and then nothing for a while.  Returns (None, when its last line came), or
	(why not, None)."""
	t0 = time.monotonic()
	last, changed = -1, t0
	while True:
		if m.proc.poll() is not None:
			return "exited early", None
		n, now = count_lines(path), time.monotonic()
		if n != last:
			last, changed = n, now
		elif (n >= want and now - changed >= 1.0) or (n >= 0.9 * want and now - changed >= 5.0):
			return None, changed
		pid = m.child_pid()
		if pid and vm_rss_mib(pid) > cap_mib:
			return "over %.1f GiB" % (cap_mib / 1024), None
		if now - t0 > timeout:
			return "over %ds" % timeout, None
		time.sleep(0.1)


def vm_rss_mib(pid):
	try:
		with open("/proc/%d/status" % pid) as f:
			for line in f:
				if line.startswith("VmRSS:"):
					return int(line.split()[1]) / 1024
	except OSError:
		pass
	return 0.0


def read_maxrss(path, timeout):
	"""(peak RSS MiB, exit status, CPU seconds) from the maxrss helper's file, once written."""
	end = time.monotonic() + timeout
	while time.monotonic() < end:
		try:
			with open(path) as f:
				kib, rc, _wall, cpu = f.read().split()
			return int(kib) / 1024, int(rc), float(cpu)
		except (OSError, ValueError):
			time.sleep(0.05)
	raise RuntimeError("top did not exit within %ds of q" % timeout)


class Bench:
	"""What the runs share: the server, the plugin, the helpers of bench.py and the pods the churn changes.
	b.measure is bench.run_measured and b.Measured bench.Measured (a command under the maxrss helper)."""

	def __init__(self, srv, plugin, maxrss, args, measure, measured):
		self.srv, self.plugin, self.maxrss, self.args = srv, plugin, maxrss, args
		self.measure, self.Measured = measure, measured
		self.pods = Pods(srv.objects)
		self.env = dict(os.environ, KUBECONFIG=srv.kubeconfig, LC_ALL="C", NO_COLOR="1", TZ="UTC", HOME=srv.dir)
		self.env.pop("KUBECTL_INSPECT_CGPU_PROTOBUF", None)
		self.pool = Pool("127.0.0.1", srv.port, srv.ssl_context(), headers={"User-Agent": "cgpu-bench/1.0"})
		self.writes = Writes(srv.real)

	def pod_size(self):
		"""The mean size of a pod as the server sends it, in protobuf and in JSON (a page of 100)."""
		w, sizes = Writer(self.pool), []
		for accept in ("application/vnd.kubernetes.protobuf", "application/json"):
			_, body = w.request("GET", "/api/v1/pods?limit=100", headers={"Accept": accept})
			sizes.append(len(body) / min(100, self.pods.count) / 1024)
		w._drop()
		return "Pods of %.1f KiB in protobuf, %.1f KiB in JSON." % tuple(sizes)

	def summary(self):
		out = os.path.join(self.srv.dir, "summary.out")
		with open(out, "w") as f:
			wall, rss, rc, err, _, cpu = self.measure([self.plugin], env=self.env, stdout=f)
		if rc != 0:
			raise RuntimeError("plugin summary exited with %d: %s" % (rc, err.strip()[-1000:]))
		return wall, rss, cpu

	def top_pane(self, argv):
		env = {k: self.env[k] for k in ("LC_ALL", "NO_COLOR", "TZ", "HOME", "PATH") if k in self.env}
		return TopPane(argv + [self.plugin, "--kubeconfig", self.srv.kubeconfig, "top"], env)

	def full_screen(self, s):
		"""Whether the screen is top's first full one: the header counts every node and the first node's
		pane is drawn."""
		nodes = self.pods.nodes
		return re.search(r"^nodes %d  GPUs" % len(nodes), s, re.M) and "node %s  ip" % nodes[0] in s

	def start_top(self, res):
		"""top in a pane; returns (pane, seconds to its first full screen)."""
		pane = self.top_pane([self.maxrss, res])
		try:
			t0 = pane.go()
			t = pane.wait(self.full_screen, self.args.server_timeout)
			if t is None:
				raise RuntimeError("top showed no full screen within %ds:\n%s" % (self.args.server_timeout,
					pane.screen()))
		except BaseException:
			pane.close()
			raise
		return pane, t - t0

	def start_kubectl(self, out):
		"""kubectl's watch of every pod, once it has printed its first list: (Measured, None) or (None, why not)."""
		argv = ["kubectl", "get", "pods", "-A", "-w", "-o", "name", "--cache-dir", os.path.join(self.srv.dir, "kcache")]
		m = self.Measured(argv, self.env, out)
		t0 = time.monotonic()
		cap = min(self.args.kubectl_mem * 1024, max(1024, meminfo_mib("MemAvailable") - 1024))
		why, listed = wait_listed(m, out.name, self.pods.count, self.args.kubectl_timeout, cap)
		if why:
			stop_measured(m)
			return None, "kubectl get pods -A -w: %s (after %.0f s), not counted" % (why, time.monotonic() - t0)
		return m, listed - t0


def meminfo_mib(field):
	with open("/proc/meminfo") as f:
		for line in f:
			if line.startswith(field + ":"):
				return int(line.split()[1]) / 1024
	return 0.0


def stop_measured(m):
	"""SIGTERM to the command under the maxrss helper; returns (wall, peak RSS MiB, status, stderr, CPU)."""
	pid = m.child_pid()
	if pid:
		try:
			os.kill(pid, signal.SIGTERM)
		except ProcessLookupError:
			pass
	return m.wait()


def churn_window(b, pane, top_pid, kube, tag):
	"""The churn with the probes beside it, and the CPU and events of the window around it."""
	args = b.args
	counter = EventCounter("127.0.0.1", b.srv.port, b.srv.ssl_context()).start()
	kpid = kube[0].proc.pid if kube[0] else None
	cpu0 = (tree_cpu(top_pid), tree_cpu(kpid) if kpid else None)
	lines0 = count_lines(kube[1]) if kpid else 0
	churn = Churn(b.pool, b.writes, b.pods, args.churn_rate, args.churn_seconds, tag)
	t = threading.Thread(target=churn.run, name="bench-churn", daemon=True)
	t.start()
	try:
		probes = probe(pane, Writer(b.pool), b.writes, b.pods, tag, churn.finished)
	finally:
		t.join()
	if churn.crash:
		raise churn.crash
	time.sleep(SETTLE)
	cpu1 = (tree_cpu(top_pid), tree_cpu(kpid) if kpid else None)
	events = counter.stop()
	return {"events": events, "types": dict(counter.counts), "changes": churn.done, "failed": churn.failed,
		"error": churn.error, "late": churn.late, "rate": churn.sent_rate(),
		"top_cpu": cpu1[0] - cpu0[0], "kubectl_cpu": cpu1[1] - cpu0[1] if kpid else None,
		"kubectl_lines": count_lines(kube[1]) - lines0 if kpid else None, "probes": probes}


def run_once(b, i):
	"""One run: the summary, then top and kubectl under the churn.  Returns its figures."""
	r = {"load": os.getloadavg()[0]}
	r["summary"] = b.summary()
	res = os.path.join(b.srv.dir, "top-%d.rss" % i)
	pane, r["first_screen"] = b.start_top(res)
	m = None
	try:
		top_pid = pane.pane_pid()  # the maxrss helper, the plugin its child
		log("run %d: top on screen after %.2f s; starting kubectl's watch" % (i + 1, r["first_screen"]))
		with open(os.path.join(b.srv.dir, "kubectl-%d.out" % i), "wb") as kout:
			if shutil.which("kubectl") and not b.args.skip_kubectl:
				m, r["kubectl_listed"] = b.start_kubectl(kout)
			else:
				m, r["kubectl_listed"] = None, "kubectl: not run"
			if m is None:
				r["note"] = r.pop("kubectl_listed")
			time.sleep(SETTLE)
			log("run %d: %g changes a second for %g s" % (i + 1, b.args.churn_rate, b.args.churn_seconds))
			r.update(churn_window(b, pane, top_pid, (m, kout.name), "r%d" % (i + 1)))
		pane.keys("q")
		r["top_rss"], rc, r["top_cpu_total"] = read_maxrss(res, 30)
		if rc != 0:
			raise RuntimeError("top exited with %d" % rc)
		if m is not None:
			_, r["kubectl_rss"], _, _, r["kubectl_cpu_total"] = stop_measured(m)
			m = None
	finally:
		if m is not None:
			stop_measured(m)
		pane.close()
	return r


def start_loop(b, n, budget):
	"""n starts of top, each right after a summary run: the summary's wall time and the time to top's first
	full screen, then q.  A start with no full screen within budget seconds is counted as stuck and its
	screen logged; the figures of the stuck starts are left out."""
	out = {"summary": [], "top": [], "stuck": 0, "n": n}
	for i in range(n):
		out["summary"].append(b.summary()[0])
		pane = b.top_pane([])
		try:
			t0 = pane.go()
			t = pane.wait(b.full_screen, budget)
			screen = pane.screen()
			if t is None and not screen:
				raise RuntimeError("start %d: top ended before its first full screen" % (i + 1))
			if t is None:
				out["stuck"] += 1
				log("start %d: no full screen within %g s:\n%s" % (i + 1, budget, screen))
			else:
				out["top"].append(t - t0)
			pane.keys("q")
			time.sleep(0.2)
		finally:
			pane.close()
	log("%d starts: summary %s s, top's first screen %s s (medians), %d stuck" % (n,
		fmt(med(out["summary"]), "%.2f"), fmt(med(out["top"]), "%.2f"), out["stuck"]))
	return out


def starts_lines(st):
	"""The start loop's figures for the table."""
	summ, top = med(st["summary"]), med(st["top"])
	ratio = top / summ if summ and top is not None else None
	return ["", "Starts: %d, each right after a summary run: top's first full screen after %s s (median; %s-%s), "
		"the summary's wall time %s s (median; %s-%s), %sx; %d of %d stuck (no full screen within the budget)." % (
		st["n"], fmt(top, "%.2f"), fmt(min(st["top"], default=None), "%.2f"), fmt(max(st["top"], default=None), "%.2f"),
		fmt(summ, "%.2f"), fmt(min(st["summary"], default=None), "%.2f"), fmt(max(st["summary"], default=None), "%.2f"),
		fmt(ratio, "%.2f"), st["stuck"], st["n"])]


def run_scenario(b, repeat):
	"""repeat runs on b's cluster; returns them with what the table needs."""
	runs = []
	for i in range(repeat):
		runs.append(run_once(b, i))
		r = runs[-1]
		log("run %d/%d: first screen %.2f s; churn sent at %.1f a second (at worst %.1f s late); top %.2f s CPU "
			"for %d events, kubectl %s s CPU; slowest probes %s" % (i + 1, repeat, r["first_screen"], r["rate"],
			r["late"], r["top_cpu"], r["events"], fmt(r.get("kubectl_cpu"), "%.2f"),
			" ".join("%s %s" % (k, fmt(max(v) if v else None, "%.2f")) for k, v in r["probes"].items())))
	return runs


# ---- the tables ---------------------------------------------------------------------------------------

def fmt(v, spec):
	return "n/a" if v is None else ("never" if v == float("inf") else spec % v)


def med(vals):
	vals = [v for v in vals if v is not None]
	return statistics.median(vals) if vals else None


def per_k(cpu, events):
	return cpu * 1000 / events if cpu is not None and events else None


def run_rows(runs):
	"""Median figures per row: (label, time to output, CPU whole run, CPU under churn, per 1,000, RSS)."""
	ev = [r["events"] for r in runs]
	rows = [("plugin summary (no churn)", med(r["summary"][0] for r in runs), med(r["summary"][2] for r in runs),
			None, None, med(r["summary"][1] for r in runs)),
		("plugin `top`", med(r["first_screen"] for r in runs), med(r["top_cpu_total"] for r in runs),
			med(r["top_cpu"] for r in runs), med(per_k(r["top_cpu"], e) for r, e in zip(runs, ev)),
			med(r["top_rss"] for r in runs))]
	if any(r.get("kubectl_cpu") is not None for r in runs):
		rows.append(("`kubectl get pods -A -w -o name`", med(r.get("kubectl_listed") for r in runs),
			med(r.get("kubectl_cpu_total") for r in runs), med(r.get("kubectl_cpu") for r in runs),
			med(per_k(r.get("kubectl_cpu"), e) for r, e in zip(runs, ev)), med(r.get("kubectl_rss") for r in runs)))
	return rows


def probe_rows(runs):
	labels = {"create": "a new pod on screen", "delete": "a deleted pod off screen", "key": "a key press answered"}
	out = []
	for k, label in labels.items():
		vals = sorted(v for r in runs for v in r["probes"][k])
		if not vals:
			out.append((label, 0, None, None, None, 0))
			continue
		p90 = vals[min(len(vals) - 1, int(len(vals) * 0.9))]
		out.append((label, len(vals), statistics.median(vals), p90, vals[-1], sum(1 for v in vals if v <= 1.0)))
	return out


def targets(rows, probes, starts=None):
	"""The live view's goals, each with its figure and whether it is met."""
	summ, top = rows[0], rows[1]
	kube = rows[2] if len(rows) > 2 else None
	out = []
	if kube and kube[4] and top[4] is not None:
		out.append(("CPU per 1,000 events at most a third of kubectl's", "%.2f s vs %.2f s (%.2fx)" % (
			top[4], kube[4], top[4] / kube[4]), top[4] <= kube[4] / 3))
	out.append(("peak RSS under 64 MiB", "%.1f MiB" % top[5], top[5] < 64))
	if summ[1]:
		out.append(("first screen within 1.5x of the summary", "%.2f s vs %.2f s (%.2fx)" % (top[1], summ[1],
			top[1] / summ[1]), top[1] <= 1.5 * summ[1]))
	if starts and starts["top"] and starts["summary"]:
		summ_s, top_s = med(starts["summary"]), med(starts["top"])
		out.append(("first screen within 1.5x of the summary, over %d starts" % starts["n"], "%.2f s vs %.2f s "
			"(%.2fx)" % (top_s, summ_s, top_s / summ_s), top_s <= 1.5 * summ_s))
	if starts:
		out.append(("no start stuck before its first screen", "%d of %d" % (starts["stuck"], starts["n"]),
			starts["stuck"] == 0))
	changes = [p for p in probes if p[0] != "a key press answered"]
	keys = [p for p in probes if p[0] == "a key press answered"]
	for what, ps in (("every change on screen within a second", changes), ("a key press answered within a second", keys)):
		n, ok = sum(p[1] for p in ps), sum(p[5] for p in ps)
		slowest = max((p[4] for p in ps if p[4] is not None), default=None)
		out.append((what, "%d of %d within 1 s, slowest %s s" % (ok, n, fmt(slowest, "%.2f")), n > 0 and ok == n))
	return out


def table(r, repeat):
	runs = r["runs"]
	rows, probes = run_rows(runs), probe_rows(runs)
	load = ", ".join("%.1f" % x["load"] for x in runs)
	lines = ["### %s: %d nodes x %d GPUs, %d pods: the live view under churn" % (r["name"], r["nodes"], 4, r["pods"]),
		"", "Median of %d runs. %s ready in %.1f s%s, %.0f MiB. Churn: %g changes a second for %g s (creates, "
		"deletes, status and label patches of GPU pods), sent at %s a second; %s watch events per run "
		"(median; %s; kubectl printed %s lines meanwhile); load average %s when the runs started. %s" % (
			repeat, r["server"], r["startup"], r["loaded"], r["server_mib"], r["rate"], r["seconds"],
			fmt(med(x["rate"] for x in runs), "%.1f"), fmt(med(x["events"] for x in runs), "%d"),
			", ".join("%s %d" % (t, med(x["types"].get(t, 0) for x in runs)) for t in ("ADDED", "MODIFIED", "DELETED")),
			fmt(med(x.get("kubectl_lines") for x in runs), "%d"), load, r["pod_size"]), "",
		"| run | first output (s) | CPU, whole run (s) | CPU under churn (s) | CPU per 1,000 events (s) | "
		"peak RSS (MiB) |", "|---|---:|---:|---:|---:|---:|"]
	for label, first, cpu, churn, pk, rss in rows:
		lines.append("| %s | %s | %s | %s | %s | %s |" % (label, fmt(first, "%.2f"), fmt(cpu, "%.2f"),
			fmt(churn, "%.2f"), fmt(pk, "%.2f"), fmt(rss, "%.1f")))
	lines += ["", "First output: the summary's wall time, top's first full screen, kubectl's first list printed.",
		"", "| probe (every run) | samples | median (s) | 90th percentile (s) | slowest (s) | within 1 s |",
		"|---|---:|---:|---:|---:|---:|"]
	for label, n, m, p90, mx, ok in probes:
		lines.append("| %s | %d | %s | %s | %s | %d |" % (label, n, fmt(m, "%.3f"), fmt(p90, "%.3f"),
			fmt(mx, "%.3f"), ok))
	if r.get("starts"):
		lines += starts_lines(r["starts"])
	lines += ["", "| goal | measured | met |", "|---|---|---|"]
	for goal, measured, ok in targets(rows, probes, r.get("starts")):
		lines.append("| %s | %s | %s |" % (goal, measured, "yes" if ok else "no"))
	notes = sorted({x["note"] for x in runs if x.get("note")} | {"churn: %d changes failed, e.g. %s" % (
		x["failed"], x["error"][:200]) for x in runs if x["failed"]} | {"churn: sent at %.1f a second in a run, "
		"short of %g: the API server could not take them faster on this machine then, and a view that redraws "
		"on a clock spends more per event when they come slower" % (x["rate"], r["rate"]) for x in runs
		if x["rate"] < 0.9 * r["rate"]})
	if notes:
		lines += [""] + notes
	return "\n".join(lines)
