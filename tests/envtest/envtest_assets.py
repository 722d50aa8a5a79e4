"""Where the control plane's binaries come from: $KUBE_ASSETS, $KUBEBUILDER_ASSETS, or the xz-compressed
ones in ../shared/envtest, unpacked once into a cache directory; etcd from there or from PATH.
Part of envtest (envtest.py is the module to import)."""

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def _shared_dirs():
	"""../shared/envtest beside the clone; for a linked git worktree, also beside the main clone."""
	dirs = [os.path.normpath(os.path.join(ROOT, "..", "shared", "envtest"))]
	try:
		with open(os.path.join(ROOT, ".git")) as f:
			gitdir = f.read().strip()
	except OSError:
		return dirs
	if gitdir.startswith("gitdir: "):
		common = os.path.normpath(os.path.join(gitdir[8:], "..", ".."))  # .../.git/worktrees/NAME -> .../.git
		dirs.append(os.path.normpath(os.path.join(common, "..", "..", "shared", "envtest")))
	return dirs


BINARIES = ("kube-apiserver", "kube-controller-manager")


class AssetsError(RuntimeError):
	pass


def _cache_dir():
	d = os.environ.get("ENVTEST_CACHE")
	if d:
		return d
	return os.path.join(tempfile.gettempdir(), "kubectl-inspect-cgpu-envtest-%d" % os.getuid())


def _sha256(path):
	with open(path, "rb") as f:
		return hashlib.file_digest(f, "sha256").hexdigest()


def _decompress(shared, cache):
	"""Decompresses shared/*.xz into cache once; a stamp with the archives' digests says it is done."""
	os.makedirs(cache, exist_ok=True)
	with open(os.path.join(cache, ".lock"), "w") as lock:
		# Test processes start in parallel: one decompresses, the others wait for it.
		fcntl.flock(lock, fcntl.LOCK_EX)
		stamp = os.path.join(cache, ".stamp")
		want = "\n".join("%s %s" % (b, _sha256(os.path.join(shared, b + ".xz"))) for b in BINARIES)
		try:
			with open(stamp) as f:
				have = f.read()
		except OSError:
			have = None
		if have == want and all(os.access(os.path.join(cache, b), os.X_OK) for b in BINARIES):
			return cache
		for b in BINARIES:
			tmp = os.path.join(cache, b + ".tmp")
			with open(tmp, "wb") as out:
				r = subprocess.run(["xz", "-dc", os.path.join(shared, b + ".xz")], stdout=out, stderr=subprocess.PIPE)
			if r.returncode != 0:
				os.unlink(tmp)
				raise AssetsError("xz -dc %s.xz: %s" % (b, r.stderr.decode(errors="replace").strip()))
			os.chmod(tmp, 0o755)
			os.replace(tmp, os.path.join(cache, b))
		with open(stamp, "w") as f:
			f.write(want)
	return cache


def find_assets():
	"""(directory with kube-apiserver and kube-controller-manager, None) or (None, the reason there is none)."""
	for var in ("KUBE_ASSETS", "KUBEBUILDER_ASSETS"):
		d = os.environ.get(var)
		if d:
			missing = [b for b in BINARIES if not os.access(os.path.join(d, b), os.X_OK)]
			if missing:
				return None, "%s=%s has no %s" % (var, d, " or ".join(missing))
			return os.path.abspath(d), None
	candidates = _shared_dirs()
	shared = next((d for d in candidates if all(os.path.exists(os.path.join(d, b + ".xz")) for b in BINARIES)), None)
	if shared is None:
		return None, "no Kubernetes binaries: set KUBE_ASSETS to a directory with kube-apiserver and " \
			"kube-controller-manager (%s does not exist)" % candidates[0]
	if shutil.which("xz") is None:
		return None, "xz is not installed (needed to unpack %s)" % shared
	try:
		return _decompress(shared, _cache_dir()), None
	except (OSError, AssetsError) as e:
		return None, "cannot unpack %s: %s" % (shared, e)


def find_etcd(assets):
	p = os.path.join(assets, "etcd") if assets else None
	if p and os.access(p, os.X_OK):
		return p
	return shutil.which("etcd") or (os.access("/usr/bin/etcd", os.X_OK) and "/usr/bin/etcd") or None


def unavailable():
	"""None when a real cluster can be started here, else the reason it cannot."""
	assets, reason = find_assets()
	if assets is None:
		return reason
	if find_etcd(assets) is None:
		return "etcd is not installed (Debian: etcd-server) and %s has none" % assets
	if shutil.which("openssl") is None:
		return "openssl is not installed"
	return None
