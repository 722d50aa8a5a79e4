#!/usr/bin/env python3
"""A fake Kubernetes API server for the plugin's tests (Python 3 standard library only).

It speaks the subset of the Kubernetes REST protocol the plugin uses, over HTTPS with a CA made per run,
and answers the way a real kube-apiserver v1.26 does: compact JSON, the same Status bodies and messages,
list items without kind/apiVersion, chunked object and list bodies, gzip above 128 KiB.

    python3 fakeapi.py --scenario fixtures/scenarios/seed002 --state-dir DIR [--port 0] [options]

prints `port N` once it is ready and writes DIR/kubeconfig. SIGTERM or SIGINT stop it.
See fixtures/README.md for the scenario format, the control endpoints and the fault types.

This file holds the listening server, the certificates and kubeconfig, and main. The rest is in the modules
next to it: kinds, apierrors, selector, patch, store, hostile and state (the cluster and its controllers),
and the request handler, handler.py, with its parts handle_output, handle_read, handle_write and
handle_control; resource_versions.py serves the resource.k8s.io group (Dynamic Resource Allocation) in its
versions. kpb.py writes protobuf (with kpb_wire.py and kpb_resource.py); mkfixtures.py generates large clusters.
"""

import argparse
import base64
import gc
import gzip
import http.server
import json
import os
import secrets
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# The server's modules live next to this file; importing it from elsewhere must find them too.
from handle_output import GZIP_MIN  # pylint: disable=wrong-import-position
from handle_read import decode_token  # pylint: disable=wrong-import-position
from handler import Handler  # pylint: disable=wrong-import-position
from hostile import HOSTILE_MODES  # pylint: disable=wrong-import-position
from kinds import KINDS  # pylint: disable=wrong-import-position
from resource_versions import served  # pylint: disable=wrong-import-position
from selector import parse_field_selector  # pylint: disable=wrong-import-position
from state import FakeAPI  # pylint: disable=wrong-import-position


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
	daemon_threads = True
	allow_reuse_address = True
	request_queue_size = 128

	def __init__(self, addr, api, ctx):
		self.api = api
		self.ctx = ctx
		super().__init__(addr, Handler)

	def server_bind(self):
		# HTTPServer.server_bind looks up the host's FQDN, which can take seconds without DNS.
		socketserver.TCPServer.server_bind(self)
		self.server_name, self.server_port = self.server_address[:2]

	def finish_request(self, request, client_address):
		# TLS and plain HTTP share the port: plain requests may only reach the control endpoints.
		try:
			request.settimeout(10)
			first = request.recv(1, socket.MSG_PEEK)
			request.settimeout(None)
			if not first:
				return
			if first == b"\x16":
				request = self.ctx.wrap_socket(request, server_side=True)
		except (OSError, ssl.SSLError):
			return
		try:
			self.RequestHandlerClass(request, client_address, self)
		finally:
			if request is not None and isinstance(request, ssl.SSLSocket):
				try:
					request.close()
				except OSError:
					pass

	def handle_error(self, request, client_address):
		pass


# ---------------------------------------------------------------------------------------------------------
# Certificates and kubeconfig


def run_openssl(args):
	r = subprocess.run(["openssl"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
	if r.returncode != 0:
		raise SystemExit("fakeapi: openssl %s failed: %s" % (args[0], r.stderr.decode(errors="replace").strip()))


def make_certs(d):
	ca_key, ca_crt = os.path.join(d, "ca.key"), os.path.join(d, "ca.crt")
	ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "7"]
	run_openssl(["req", "-x509"] + ec + ["-keyout", ca_key, "-out", ca_crt, "-subj", "/CN=fakeapi-ca"])
	leaf = ["req", "-x509", "-CA", ca_crt, "-CAkey", ca_key] + ec + ["-addext", "basicConstraints=critical,CA:FALSE"]
	jobs = [
		leaf + ["-keyout", os.path.join(d, "server.key"), "-out", os.path.join(d, "server.crt"), "-subj",
			"/CN=kube-apiserver", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
			"-addext", "extendedKeyUsage=serverAuth"],
		leaf + ["-keyout", os.path.join(d, "admin.key"), "-out", os.path.join(d, "admin.crt"), "-subj",
			"/O=system:masters/CN=admin", "-addext", "extendedKeyUsage=clientAuth"],
	]
	errors = []

	def run(job):
		try:
			run_openssl(job)
		except SystemExit as e:
			errors.append(e)
	threads = [threading.Thread(target=run, args=(j,)) for j in jobs]
	for t in threads:
		t.start()
	for t in threads:
		t.join()
	if errors:
		raise errors[0]


def b64file(p):
	with open(p, "rb") as f:
		return base64.b64encode(f.read()).decode()


def write_kubeconfig(d, port, tokens, extra_users):
	ca = b64file(os.path.join(d, "ca.crt"))
	url = "https://127.0.0.1:%d" % port
	users = [
		("admin", {"client-certificate-data": b64file(os.path.join(d, "admin.crt")),
			"client-key-data": b64file(os.path.join(d, "admin.key"))}),
		("admin-token", {"token": tokens["admin"]}),
		("viewer", {"token": tokens["viewer"]}),
		("nobody", {"token": tokens["nobody"]}),
		("badtoken", {"token": tokens["badtoken"]}),
	]
	for name in extra_users:
		users.append((name, {"token": tokens[name]}))
	lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: fake", "  cluster:",
		"    server: %s" % url, "    certificate-authority-data: %s" % ca, "contexts:"]
	for name, _ in users:
		lines += ["- name: %s" % name, "  context:", "    cluster: fake", "    user: %s" % name,
			"    namespace: default"]
	lines += ["current-context: admin", "preferences: {}", "users:"]
	for name, fields in users:
		lines += ["- name: %s" % name, "  user:"]
		for k, v in fields.items():
			lines.append("    %s: %s" % (k, v))
	p = os.path.join(d, "kubeconfig")
	tmp = p + ".tmp"
	with open(tmp, "w") as f:
		f.write("\n".join(lines) + "\n")
	os.chmod(tmp, 0o600)
	os.replace(tmp, p)


# The list requests a benchmark sends: kubectl's and curl's limit=500 chains, the plugin's pod chain (running
# and pending pods only) and full lists where they are small. Other requests are rendered when they come.
PRERENDER = [("nodes", "", 500, "json"), ("nodes", "", 0, "json"), ("daemonsets", "", 500, "json"),
	("daemonsets", "", 0, "json"), ("pods", "", 500, "json"),
	("pods", "status.phase!=Succeeded,status.phase!=Failed", 500, "json"),
	# whole lists from the watch cache (resourceVersion=0), as the plugin's views read them
	("nodes", "", 0, "pb"), ("pods", "status.phase!=Succeeded,status.phase!=Failed", 0, "json"),
	("pods", "status.phase!=Succeeded,status.phase!=Failed", 0, "pb"),
	# Dynamic Resource Allocation, whole from the watch cache, in the stored version (v1)
	("resourceslices", "", 0, "json"), ("resourceslices", "", 0, "pb"), ("resourceclaims", "", 0, "json"),
	("resourceclaims", "", 0, "pb")]


def prerender(api):
	"""Renders and gzips, before the server answers, every page of the PRERENDER list chains."""
	st = api.store

	class Shim(Handler):
		def __init__(self):  # pylint: disable=super-init-not-called
			self.api_ref = api

		@property
		def api(self):
			return self.api_ref

	h = Shim()
	with st.lock:
		for res, fs, limit, fmt in PRERENDER:
			freq = parse_field_selector(fs, res) if fs else []
			start, cont, token_rv = "", "", None
			while True:
				key = (res, None, "", fs, limit, cont, fmt, KINDS[res]["apiVersion"])
				page = st.pages.get(key)
				if page is None:
					page = h.render_page(res, None, [], freq, bool(fs), limit, start, token_rv, fmt, key[-1])
					st.pages[key] = page
				if page[2][0] is None and len(page[0]) > GZIP_MIN:
					page[2][0] = gzip.compress(page[0], 1)
				if not page[1]:
					break
				cont = page[1]
				tok = decode_token(cont)
				start, token_rv = tok["start"], tok["rv"]
	# A cluster of 100,000 pods is millions of Python objects: left to the cyclic collector, every full
	# collection would walk them all in the middle of some request.
	gc.collect()
	gc.freeze()


def main(argv=None):
	p = argparse.ArgumentParser(description="fake Kubernetes API server for tests")
	p.add_argument("--scenario", required=True, help="scenario directory or generator spec gen:k=v,...")
	p.add_argument("--state-dir", required=True, help="directory for certificates and the kubeconfig")
	p.add_argument("--port", type=int, default=0)
	p.add_argument("--continue-ttl", type=float, default=None, help="continue tokens expire after SECONDS")
	p.add_argument("--ds-ready-delay", type=float, default=1.0, help="DaemonSet replacement pods become Ready after")
	p.add_argument("--delete-grace", type=float, default=0.3, help="seconds a deleted pod stays Terminating")
	p.add_argument("--bookmark-interval", type=float, default=1.0, help="seconds between watch bookmarks")
	p.add_argument("--watch-window", type=int, default=10000, help="watch events kept for replay")
	p.add_argument("--prerender", action="store_true", help="render list pages and their gzip at start")
	p.add_argument("--resource-versions", default=None, help="resource.k8s.io versions to serve, comma-separated "
		"(v1, v1beta2, v1beta1; empty: none), whatever the scenario says")
	p.add_argument("--hostile", default="", help="comma-separated hostile modes: " + ", ".join(HOSTILE_MODES))
	args = p.parse_args(argv)
	if args.resource_versions is not None:
		try:
			served(args.resource_versions)
		except ValueError as e:
			p.error(str(e))

	t0 = time.monotonic()
	os.makedirs(args.state_dir, exist_ok=True)
	cert_err = []

	def certs_run():
		try:
			make_certs(args.state_dir)
		except SystemExit as e:
			cert_err.append(str(e))
	certs = threading.Thread(target=certs_run)
	certs.start()
	api = FakeAPI(args)
	if args.prerender:
		prerender(api)
	certs.join()
	if cert_err:
		print(cert_err[0], file=sys.stderr)
		return 1
	tokens = {"admin": secrets.token_hex(16), "viewer": secrets.token_hex(16), "nobody": secrets.token_hex(16),
		"badtoken": secrets.token_hex(16)}
	extra = [n for n in api.config.get("users", {}) if n not in tokens]
	for n in extra:
		tokens[n] = api.config["users"][n].get("token") or secrets.token_hex(16)
	api.tokens = {v: k for k, v in tokens.items() if k != "badtoken"}

	ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
	ctx.minimum_version = ssl.TLSVersion.TLSv1_2
	ctx.load_cert_chain(os.path.join(args.state_dir, "server.crt"), os.path.join(args.state_dir, "server.key"))
	ctx.load_verify_locations(os.path.join(args.state_dir, "ca.crt"))
	ctx.verify_mode = ssl.CERT_OPTIONAL
	ctx.set_alpn_protocols(["http/1.1"])

	server = Server(("127.0.0.1", args.port), api, ctx)
	port = server.server_address[1]
	write_kubeconfig(args.state_dir, port, tokens, extra)
	with open(os.path.join(args.state_dir, "startup.json"), "w") as f:
		json.dump({"port": port, "seconds": round(time.monotonic() - t0, 4), "pid": os.getpid()}, f)

	def stop(_sig, _frm):
		if api.stopping:
			return
		api.stopping = True
		with api.store.lock:
			api.store.cond.notify_all()
		threading.Thread(target=server.shutdown, daemon=True).start()

	signal.signal(signal.SIGTERM, stop)
	signal.signal(signal.SIGINT, stop)
	sys.stdout.write("port %d\n" % port)
	sys.stdout.flush()
	try:
		server.serve_forever(poll_interval=0.1)
	finally:
		server.server_close()
	return 0


if __name__ == "__main__":
	sys.exit(main())
