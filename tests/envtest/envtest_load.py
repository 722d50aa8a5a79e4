"""Writing many objects at once: a bounded pool of threads, each with its own HTTP/1.1 keep-alive connection,
taking jobs from one queue.  A job is a short sequence of requests for one object (create, then its status
through the status subresource, as a kubelet writes it); jobs run concurrently, the requests of one job in order.

Requests answered 429 or 5xx are sent again after the Retry-After the server gives (else after a growing
pause), as client-go does; so are requests whose connection broke.  A create sent again after a broken
connection or a 5xx that finds its object there (409 AlreadyExists) counts as created: the try before got
through.
Part of envtest (envtest.py is the module to import)."""

import http.client
import json
import queue
import random
import threading
import time

from envtest_scenario import object_path, strip_for_create


class LoadError(RuntimeError):
	pass


# Answers worth another try: the server was busy or failed in passing.  500 is there because an etcd
# "request timed out" comes back as one under load.
RETRY_STATUS = frozenset((429, 500, 502, 503, 504))
# A connection that broke (reset, closed while kept alive, timed out): OSError covers the socket's and TLS's.
BROKEN = (http.client.HTTPException, OSError)


def retry_after(value, default):
	"""Seconds to wait from a Retry-After header: whole seconds, as the API server sends them."""
	try:
		return max(0.0, min(float(int(value)), 30.0))
	except (TypeError, ValueError):
		return default


class Writer:
	"""One worker's connection and the requests it sends on it."""

	def __init__(self, pool):
		self.pool = pool
		self.conn = None

	def _connect(self):
		p = self.pool
		self.conn = http.client.HTTPSConnection(p.host, p.port, context=p.ctx, timeout=p.timeout)

	def _drop(self):
		if self.conn is not None:
			self.conn.close()
			self.conn = None

	def request(self, method, path, body=None, content_type="application/json", ok=(200, 201), created=False,
			headers=None):
		"""Sends one request until it is answered with a status in ok, or fails for good (LoadError).
		created: a create, whose 409 on a second try means that the first one got through: then the answer
		is (201, None).  headers: more headers, or other values of the pool's.  Returns (status, body bytes)."""
		p = self.pool
		headers = dict(p.headers, **(headers or {}))
		if body is not None:
			headers["Content-Type"] = content_type
		pause = 0.05
		unsure = False  # whether a try before may have been carried out all the same
		for attempt in range(p.attempts):
			if attempt:
				p.count("retries")
			try:
				if self.conn is None:
					self._connect()
				self.conn.request(method, path, body=body, headers=headers)
				r = self.conn.getresponse()
				payload = r.read()
			except BROKEN as e:
				self._drop()
				last, unsure = "%s %s: %s" % (method, path, e), True
				time.sleep(pause * (1 + random.random()))
				pause = min(pause * 2, 2.0)
				continue
			if r.getheader("Connection", "").lower() == "close":
				self._drop()
			p.count("requests")
			if created and unsure and r.status == 409:
				return 201, None
			if r.status in ok:
				return r.status, payload
			last = "%s %s: %d %s" % (method, path, r.status, payload[:500].decode("utf-8", "replace"))
			if r.status not in RETRY_STATUS:
				raise LoadError(last)
			# a 429 was turned away before anything was done; a 5xx may come after the write
			unsure = unsure or r.status != 429
			time.sleep(retry_after(r.getheader("Retry-After"), pause * (1 + random.random())))
			pause = min(pause * 2, 2.0)
		raise LoadError("%s (gave up after %d tries)" % (last, p.attempts))


class Pool:
	"""Up to `workers` threads at a time, each a Writer on a keep-alive connection, running jobs: callables
	that take the Writer.  run() returns the jobs' results in order and raises the first job's failure.
	Connections are kept between runs (close() ends them), so many small runs cost no new handshakes."""

	def __init__(self, host, port, ctx, attempts=10, timeout=60, headers=None):
		self.host, self.port, self.ctx = host, port, ctx
		self.attempts = attempts
		self.timeout = timeout
		self.headers = dict({"Accept": "application/json", "User-Agent": "envtest/1.0"}, **(headers or {}))
		self.stats = {"requests": 0, "retries": 0}
		self._lock = threading.Lock()
		self._idle = []

	def count(self, what):
		with self._lock:
			self.stats[what] += 1

	def _take(self):
		with self._lock:
			return self._idle.pop() if self._idle else Writer(self)

	def _give(self, w):
		with self._lock:
			self._idle.append(w)

	def close(self):
		with self._lock:
			idle, self._idle = self._idle, []
		for w in idle:
			w._drop()

	def run(self, jobs, workers=16):
		jobs = list(jobs)
		results = [None] * len(jobs)
		todo = queue.SimpleQueue()
		for i, job in enumerate(jobs):
			todo.put((i, job))
		failed = []

		def work():
			w = self._take()
			try:
				while not failed:
					try:
						i, job = todo.get_nowait()
					except queue.Empty:
						return
					try:
						results[i] = job(w)
					except Exception as e:  # noqa: BLE001  (handed to the caller below)
						failed.append(e)
						return
			finally:
				self._give(w)

		n = min(max(1, workers), len(jobs))
		if n <= 1:
			work()
		else:
			threads = [threading.Thread(target=work, name="envtest-load-%d" % i, daemon=True) for i in range(n)]
			for t in threads:
				t.start()
			for t in threads:
				t.join()
		if failed:
			raise failed[0]
		return results


def create_job(obj, ignore_exists=False, keep=True):
	"""The job that creates obj and then, for a pod or a node with a status, writes that status through the
	status subresource (a create leaves a pod's status to the kubelet).  Its result is the object as the
	server answered last when keep, else None; None too for an object that was there already (ignore_exists)."""
	path = object_path(obj, collection=True)
	body = json.dumps(strip_for_create(obj)).encode()
	status = obj.get("status") if obj.get("kind") in ("Pod", "Node") else None
	patch = json.dumps({"status": status}).encode() if status else None

	def job(w):
		code, out = w.request("POST", path, body, ok=(201, 409) if ignore_exists else (201,), created=True)
		if code == 409:
			return None
		if patch:
			_, out = w.request("PATCH", object_path(obj) + "/status", patch, "application/merge-patch+json")
		if not keep:
			return None
		if out is None:
			# created by a try whose answer was lost: read what the server holds
			_, out = w.request("GET", object_path(obj))
		return json.loads(out)
	return job
