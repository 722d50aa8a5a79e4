"""Credentials of a test run's control plane: a per-run CA with serving and client certificates (openssl),
the users' bearer tokens, their RBAC roles, and kubeconfig files.
Part of envtest (envtest.py is the module to import)."""

import base64
import concurrent.futures
import os
import subprocess

# Users every cluster has, as in the fake API server's kubeconfig: a client certificate for cluster admin,
# and bearer tokens.  "badtoken" is a token the server does not know.
DEFAULT_USERS = {
	"admin-token": {"user": "admin", "groups": ["system:masters"]},
	"viewer": {"user": "viewer", "groups": [],
		"rules": [{"apiGroups": [""], "verbs": ["get", "list", "watch"], "resources": ["nodes", "pods"]}]},
	"nobody": {"user": "nobody", "groups": []},
}


def _openssl(args):
	r = subprocess.run(["openssl"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
	if r.returncode != 0:
		raise RuntimeError("openssl %s: %s" % (args[0], r.stderr.decode(errors="replace").strip()))


def make_pki(d):
	"""CA, serving certificate for 127.0.0.1 and localhost, client certificates, service-account key."""
	ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2"]
	ca_key, ca_crt = os.path.join(d, "ca.key"), os.path.join(d, "ca.crt")
	_openssl(["req", "-x509"] + ec + ["-keyout", ca_key, "-out", ca_crt, "-subj", "/CN=envtest-ca",
		"-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
	leaf = ["req", "-x509", "-CA", ca_crt, "-CAkey", ca_key] + ec + ["-addext", "basicConstraints=critical,CA:FALSE"]

	def client(name, subj):
		return leaf + ["-keyout", os.path.join(d, name + ".key"), "-out", os.path.join(d, name + ".crt"),
			"-subj", subj, "-addext", "extendedKeyUsage=clientAuth"]
	jobs = [
		leaf + ["-keyout", os.path.join(d, "server.key"), "-out", os.path.join(d, "server.crt"), "-subj",
			"/CN=kube-apiserver", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
			"-addext", "extendedKeyUsage=serverAuth"],
		client("admin", "/O=system:masters/CN=admin"),
		client("controller-manager", "/O=system:masters/CN=system:kube-controller-manager"),
		client("agent", "/O=system:masters/CN=envtest:agent"),
		["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", os.path.join(d, "sa.key")],
	]
	with concurrent.futures.ThreadPoolExecutor(len(jobs)) as ex:
		for f in [ex.submit(_openssl, j) for j in jobs]:
			f.result()


def _b64file(p):
	with open(p, "rb") as f:
		return base64.b64encode(f.read()).decode()


def admin_user(d):
	"""The kubeconfig user of the admin client certificate in d, its data inline."""
	return ("admin", {"client-certificate-data": _b64file(os.path.join(d, "admin.crt")),
		"client-key-data": _b64file(os.path.join(d, "admin.key"))})


def write_tokens(d, users):
	"""Writes d/tokens.csv for the users {context: {"user", "groups", "token"}} (a random token where none
	is given); returns {context: token}, with "badtoken", one the server does not know."""
	tokens = {}
	lines = []
	for ctx, u in users.items():
		tok = u.get("token") or base64.b32encode(os.urandom(20)).decode().lower()
		tokens[ctx] = tok
		groups = ",".join(u.get("groups", []))
		lines.append('%s,%s,%s,"%s"' % (tok, u.get("user", ctx), "uid-" + u.get("user", ctx), groups))
	tokens["badtoken"] = base64.b32encode(os.urandom(20)).decode().lower()
	with open(os.path.join(d, "tokens.csv"), "w") as f:
		f.write("\n".join(lines) + "\n")
	return tokens


def write_kubeconfig(path, server, ca, users, namespace="default"):
	"""A kubeconfig (mode 0600) for the server with the CA file ca: a context per user [(name, {user
	fields})], the first one current."""
	lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: envtest", "  cluster:",
		"    server: %s" % server, "    certificate-authority-data: %s" % _b64file(ca), "contexts:"]
	for name, _ in users:
		lines += ["- name: %s" % name, "  context:", "    cluster: envtest", "    user: %s" % name,
			"    namespace: %s" % namespace]
	lines += ["current-context: %s" % users[0][0], "preferences: {}", "users:"]
	for name, fields in users:
		lines += ["- name: %s" % name, "  user:"]
		lines += ["    %s: %s" % kv for kv in fields.items()]
	tmp = path + ".tmp"
	with open(tmp, "w") as f:
		f.write("\n".join(lines) + "\n")
	os.chmod(tmp, 0o600)
	os.replace(tmp, path)


def rbac_objects(users):
	"""A ClusterRole and binding per user with rules (apiGroups default to all)."""
	objs = []
	for ctx, u in users.items():
		if not u.get("rules"):
			continue
		name = "envtest:" + u.get("user", ctx)
		rules = [dict({"apiGroups": ["*"]}, **r) for r in u["rules"]]
		objs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
			"metadata": {"name": name}, "rules": rules})
		objs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
			"metadata": {"name": name},
			"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
			"subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": u.get("user", ctx)}]})
	return objs
