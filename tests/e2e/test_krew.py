"""The krew manifest template (.krew.yaml), rendered as a release renders it and installed as krew would.

A release replaces {{ .TagName }} with the tag and each {{addURIAndSha "URL" .TagName }} with `uri: URL` and
`sha256: <digest of the archive at URL>`.  Here the archives are built from what `meson install` puts in
place (the plugin, its completion helper, the man page, and LICENSE), the manifest is parsed with a small
YAML reader for the subset it uses (and with PyYAML as well when it is installed), its fields are checked
against krew's rules, and each platform's `files` and `bin` are applied to its archive as krew applies
them.  Only the platform of this machine is run; the others get the same archive, so their structure is
checked but not their binary.
"""

import gzip
import hashlib
import io
import json
import os
import platform
import re
import shutil
import subprocess
import tarfile
import tempfile
import unittest
import glob

from harness import ROOT, meson_build_dir, plugin_path

TEMPLATE = os.path.join(ROOT, ".krew.yaml")
LICENSE = os.path.join(ROOT, "LICENSE")


# -- a reader for the YAML that krew manifests use ---------------------------------------------------------

class YAMLError(ValueError):
	pass


class _Line:
	def __init__(self, no, indent, text):
		self.no, self.indent, self.text = no, indent, text


def _strip_comment(s):
	"""Drops a trailing ` # comment` outside quotes."""
	q = None
	for i, c in enumerate(s):
		if q:
			if c == q:
				q = None
		elif c in "\"'":
			q = c
		elif c == "#" and (i == 0 or s[i - 1] in " \t"):
			return s[:i].rstrip()
	return s.rstrip()


def _scalar(s, no):
	if s.startswith('"'):
		if len(s) < 2 or not s.endswith('"'):
			raise YAMLError("line %d: unterminated string" % no)
		try:
			return json.loads(s)
		except ValueError:
			raise YAMLError("line %d: bad double-quoted string %s" % (no, s)) from None
	if s.startswith("'"):
		if len(s) < 2 or not s.endswith("'"):
			raise YAMLError("line %d: unterminated string" % no)
		return s[1:-1].replace("''", "'")
	if s in ("[]", "{}"):
		return [] if s == "[]" else {}
	if s[:1] in ("[", "{", "&", "*", "!", "%", "@", "`", "|", ">"):
		raise YAMLError("line %d: unsupported YAML: %s" % (no, s))
	if s in ("null", "~", ""):
		return None
	if s in ("true", "false"):
		return s == "true"
	if re.fullmatch(r"-?[0-9]+", s):
		return int(s)
	if ": " in s or s.endswith(":"):
		raise YAMLError("line %d: a mapping where a value was expected: %s" % (no, s))
	return s


def _key_value(text, no):
	m = re.match(r"^([A-Za-z0-9_./-]+):(?: (.*))?$", text)
	if not m:
		raise YAMLError("line %d: expected KEY: VALUE, got %r" % (no, text))
	return m.group(1), (m.group(2) or "").strip()


class MiniYAML:
	"""Block mappings, block sequences, plain and quoted scalars, `|` literal blocks; nothing else."""

	def __init__(self, text):
		self.raw = text.split("\n")
		self.lines = []
		for no, raw in enumerate(self.raw, 1):
			if "\t" in raw[: len(raw) - len(raw.lstrip())]:
				raise YAMLError("line %d: a tab in the indentation" % no)
			text = _strip_comment(raw.strip())
			if text and text != "---":
				self.lines.append(_Line(no, len(raw) - len(raw.lstrip(" ")), text))
		self.i = 0

	def parse(self):
		if not self.lines:
			return None
		value = self._block(self.lines[0].indent)
		if self.i != len(self.lines):
			raise YAMLError("line %d: unexpected indentation" % self.lines[self.i].no)
		return value

	def _block(self, indent):
		line = self.lines[self.i]
		if line.indent != indent:
			raise YAMLError("line %d: bad indentation" % line.no)
		if line.text == "-" or line.text.startswith("- "):
			return self._sequence(indent)
		return self._mapping(indent)

	def _sequence(self, indent):
		out = []
		while self.i < len(self.lines):
			line = self.lines[self.i]
			if line.indent < indent:
				break
			if line.indent > indent:
				raise YAMLError("line %d: bad sequence item" % line.no)
			if not (line.text == "-" or line.text.startswith("- ")):
				break  # the next key of a mapping whose sequence was not indented
			rest = line.text[1:].strip()
			if not rest:
				self.i += 1
				if self.i >= len(self.lines) or self.lines[self.i].indent <= indent:
					out.append(None)
				else:
					out.append(self._block(self.lines[self.i].indent))
			elif re.match(r"^[A-Za-z0-9_./-]+:( |$)", rest):
				# "- key: value" opens a mapping whose keys line up with "key"
				col = indent + (len(line.text) - len(rest))
				self.lines[self.i] = _Line(line.no, col, rest)
				out.append(self._mapping(col))
			else:
				out.append(_scalar(rest, line.no))
				self.i += 1
		return out

	def _mapping(self, indent):
		out = {}
		while self.i < len(self.lines):
			line = self.lines[self.i]
			if line.indent < indent:
				break
			if line.indent > indent:
				raise YAMLError("line %d: bad indentation" % line.no)
			if line.text.startswith("- ") or line.text == "-":
				break
			key, rest = _key_value(line.text, line.no)
			if key in out:
				raise YAMLError("line %d: duplicate key %r" % (line.no, key))
			self.i += 1
			if rest in ("|", "|-"):
				out[key] = self._literal(line, indent, keep_newline=rest == "|")
			elif rest:
				out[key] = _scalar(rest, line.no)
			elif self.i < len(self.lines) and (self.lines[self.i].indent > indent or (
					self.lines[self.i].indent == indent and self.lines[self.i].text.startswith("- "))):
				out[key] = self._block(self.lines[self.i].indent)
			else:
				out[key] = None
		return out

	def _literal(self, line, indent, keep_newline):
		body = []
		no = line.no  # 1-based: self.raw[no] is the next raw line
		while no < len(self.raw):
			raw = self.raw[no]
			if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= indent:
				break
			body.append(raw)
			no += 1
		while body and not body[-1].strip():
			body.pop()
		if not body:
			raise YAMLError("line %d: empty literal block" % line.no)
		cut = min(len(b) - len(b.lstrip(" ")) for b in body if b.strip())
		while self.i < len(self.lines) and self.lines[self.i].no <= line.no + len(body):
			self.i += 1
		text = "\n".join(b[cut:] for b in body)
		return text + "\n" if keep_newline else text


# -- rendering and archives --------------------------------------------------------------------------------

ADD_URI_AND_SHA = re.compile(r'^([ \t]*)\{\{\s*addURIAndSha\s+"([^"]+)"\s+\.TagName\s*\}\}[ \t]*$', re.M)


def render(template, tag, sha_of_uri):
	"""What the release does: the tag everywhere, then uri and sha256 for each platform."""
	text = re.sub(r"\{\{\s*\.TagName\s*\}\}", tag, template)

	def repl(m):
		ind, uri = m.group(1), m.group(2)
		return "%suri: %s\n%ssha256: %s" % (ind, uri, ind, sha_of_uri(uri))
	text = ADD_URI_AND_SHA.sub(repl, text)
	if "{{" in text or "}}" in text:
		raise AssertionError("a template action was left: " + text[text.find("{{") - 40:text.find("{{") + 40])
	return text


def build_archive(path, files):
	"""A tar.gz of (name in archive, file on disk), byte for byte the same on every run."""
	buf = io.BytesIO()
	with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
		for name, src in sorted(files):
			info = tar.gettarinfo(src, arcname=name)
			info.mtime = 0
			info.uid = info.gid = 0
			info.uname = info.gname = "root"
			info.mode = 0o755 if os.access(src, os.X_OK) else 0o644
			with open(src, "rb") as f:
				tar.addfile(info, f)
	with open(path, "wb") as out, gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
		gz.write(buf.getvalue())


def sha256_file(path):
	with open(path, "rb") as f:
		return hashlib.file_digest(f, "sha256").hexdigest()


def host_platform():
	os_name = platform.system().lower()
	arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
	return os_name, arch


class MiniYAMLTest(unittest.TestCase):
	"""The reader itself: what it accepts, and what it must refuse."""

	def test_subset(self):
		doc = MiniYAML('a: 1\nb: "v1.0"\nc:\n- x: y  # c\n  z:\n    - 1\n    - two\nd: |\n  one\n    two\ne: \'it\'\'s\'\n').parse()
		self.assertEqual(doc, {"a": 1, "b": "v1.0", "c": [{"x": "y", "z": [1, "two"]}], "d": "one\n  two\n", "e": "it's"})
		self.assertEqual(MiniYAML("k:\n  - a\n  - b\nm: n\n").parse(), {"k": ["a", "b"], "m": "n"})

	def test_refused(self):
		for bad in ("a: 1\na: 2\n", "a:\n  b: 1\n c: 2\n", "a: {x: 1}\n", "a: b: c\n", "a:\n\t- b\n", "- a\nb: c\n",
				'a: "open\n', "{{addURIAndSha \"u\" .TagName }}\n"):
			with self.assertRaises(YAMLError, msg=repr(bad)):
				MiniYAML(bad).parse()


class KrewManifestTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		cls.build = meson_build_dir()
		cls.tmp = tempfile.mkdtemp(prefix="cgpu-krew-")
		dest = os.path.join(cls.tmp, "dest")
		r = subprocess.run(["meson", "install", "-C", cls.build, "--no-rebuild", "--destdir", dest],
			capture_output=True, text=True)
		if r.returncode != 0:
			shutil.rmtree(cls.tmp, ignore_errors=True)
			raise AssertionError("meson install failed:\n" + r.stdout + r.stderr)
		info = subprocess.run(["meson", "introspect", cls.build, "--projectinfo"], capture_output=True, text=True,
			check=True)
		cls.version = json.loads(info.stdout)["version"]
		installed = json.loads(subprocess.run(["meson", "introspect", cls.build, "--installed"],
			capture_output=True, text=True, check=True).stdout)
		# by the file meson installs (the bash completion is also installed as "kubectl-inspect-cgpu")
		staged = {os.path.basename(k): dest + v for k, v in installed.items()}
		cls.payload = [
			("kubectl-inspect-cgpu", dest + installed[os.path.abspath(plugin_path())]),
			("kubectl_complete-inspect-cgpu", staged["kubectl_complete-inspect-cgpu"]),
			("kubectl-inspect-cgpu.1", staged["kubectl-inspect-cgpu.1"]),
			("LICENSE", LICENSE),
		]
		cls.tag = "v" + cls.version
		cls.archives = {}  # uri -> local archive

		def sha_of_uri(uri):
			if uri not in cls.archives:
				path = os.path.join(cls.tmp, "release", os.path.basename(uri))
				os.makedirs(os.path.dirname(path), exist_ok=True)
				build_archive(path, cls.payload)
				cls.archives[uri] = path
			return sha256_file(cls.archives[uri])

		with open(TEMPLATE) as f:
			cls.template = f.read()
		cls.rendered = render(cls.template, cls.tag, sha_of_uri)
		cls.manifest = MiniYAML(cls.rendered).parse()

	@classmethod
	def tearDownClass(cls):
		shutil.rmtree(cls.tmp, ignore_errors=True)

	def test_template_has_the_release_placeholders(self):
		self.assertIn("{{ .TagName }}", self.template)
		self.assertEqual(len(ADD_URI_AND_SHA.findall(self.template)), len(self.manifest["spec"]["platforms"]))

	def test_same_as_pyyaml(self):
		try:
			import yaml  # not in the standard library: a second opinion when it is there
		except ImportError:
			self.skipTest("PyYAML is not installed")
		self.assertEqual(yaml.safe_load(self.rendered), self.manifest)

	def test_archives_are_reproducible(self):
		uri, path = next(iter(self.archives.items()))
		again = os.path.join(self.tmp, "again.tar.gz")
		build_archive(again, self.payload)
		self.assertEqual(sha256_file(again), sha256_file(path))

	def test_header(self):
		m = self.manifest
		self.assertEqual(set(m), {"apiVersion", "kind", "metadata", "spec"})
		self.assertEqual(m["apiVersion"], "krew.googlecontainertools.github.com/v1alpha2")
		self.assertEqual(m["kind"], "Plugin")
		name = m["metadata"]["name"]
		self.assertRegex(name, r"^[a-z0-9][a-z0-9-]*[a-z0-9]$", "krew plugin names: lowercase, digits, dashes")
		self.assertEqual(name, "inspect-cgpu")

	def test_spec(self):
		spec = self.manifest["spec"]
		self.assertRegex(spec["version"], r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
		self.assertEqual(spec["version"], self.tag)
		self.assertRegex(spec["homepage"], r"^https://[^\s/]+/\S+$")
		short = spec["shortDescription"]
		self.assertIsInstance(short, str)
		self.assertTrue(0 < len(short) <= 50, "shortDescription is %d characters" % len(short))
		self.assertNotIn("\n", short)
		desc = spec["description"]
		self.assertIsInstance(desc, str)
		self.assertGreater(len(desc.split()), 20)
		for line in desc.splitlines():
			self.assertLessEqual(len(line), 80, "description lines wrap at 80 columns: %r" % line)
		self.assertTrue(set(spec) <= {"version", "homepage", "shortDescription", "description", "caveats", "platforms"},
			set(spec))

	def test_platforms(self):
		platforms = self.manifest["spec"]["platforms"]
		self.assertGreater(len(platforms), 0)
		seen = set()
		for p in platforms:
			labels = p["selector"]["matchLabels"]
			self.assertEqual(set(labels), {"os", "arch"})
			key = (labels["os"], labels["arch"])
			self.assertIn(key[0], ("linux", "darwin", "windows"))
			self.assertIn(key[1], ("amd64", "arm64", "386", "arm", "ppc64le", "s390x"))
			self.assertNotIn(key, seen, "one entry per platform")
			seen.add(key)
			self.assertEqual(set(p), {"selector", "uri", "sha256", "bin", "files"})
			self.assertTrue(p["uri"].startswith("https://"), p["uri"])
			self.assertIn("/download/%s/" % self.tag, p["uri"])
			self.assertTrue(p["uri"].endswith("_%s_%s.tar.gz" % key), "%s for %s" % (p["uri"], key))
			self.assertRegex(p["sha256"], r"^[0-9a-f]{64}$")
			self.assertEqual(p["sha256"], sha256_file(self.archives[p["uri"]]))
			self.assertEqual(p["bin"], "kubectl-inspect-cgpu" + (".exe" if key[0] == "windows" else ""))
			self.assertIsInstance(p["files"], list)
			froms = [f["from"] for f in p["files"]]
			for f in p["files"]:
				self.assertEqual(set(f), {"from", "to"})
				self.assertFalse(os.path.isabs(f["from"]) or ".." in f["from"].split("/"))
				self.assertFalse(os.path.isabs(f["to"]) or ".." in f["to"].split("/"))
			self.assertIn("LICENSE", froms)
			self.assertIn("kubectl_complete-inspect-cgpu", froms)
		self.assertIn(("linux", "amd64"), seen)

	def krew_install(self, p, where):
		"""Unpack the archive and copy `files` into the plugin's directory, as krew does."""
		work = os.path.join(where, "unpacked")
		root = os.path.join(where, "installed")
		os.makedirs(work)
		os.makedirs(root)
		with tarfile.open(self.archives[p["uri"]]) as tar:
			for m in tar.getmembers():
				self.assertFalse(m.name.startswith("/") or ".." in m.name.split("/"), m.name)
			# the "data" filter (Python 3.11.4+) refuses links and devices, as krew's unpacking does
			tar.extractall(work, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
		for f in p["files"]:
			matches = glob.glob(os.path.join(work, f["from"]))
			self.assertTrue(matches, "files[].from %r is not in the archive" % f["from"])
			target = os.path.join(root, f["to"])
			for src in matches:
				dst = os.path.join(target, os.path.basename(src)) if f["to"] in (".", "") or f["to"].endswith("/") else target
				os.makedirs(os.path.dirname(dst), exist_ok=True)
				shutil.copy2(src, dst)
		binary = os.path.join(root, p["bin"])
		self.assertTrue(os.path.isfile(binary), "bin %r is not among the installed files" % p["bin"])
		self.assertTrue(os.access(binary, os.X_OK))
		return root, binary

	def test_install_every_platform(self):
		host = host_platform()
		ran = False
		for n, p in enumerate(self.manifest["spec"]["platforms"]):
			key = (p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"])
			where = os.path.join(self.tmp, "krew-%d" % n)
			root, binary = self.krew_install(p, where)
			if key != host:
				continue
			ran = True
			# krew links bin as kubectl-<name with _ for ->, which kubectl runs as `kubectl inspect-cgpu`
			links = os.path.join(where, "bin")
			os.makedirs(links)
			name = "kubectl-" + self.manifest["metadata"]["name"].replace("-", "_")
			os.symlink(binary, os.path.join(links, name))
			env = dict(os.environ, LC_ALL="C", PATH=links + os.pathsep + "/usr/bin:/bin",
				KUBECONFIG=os.path.join(where, "none"), HOME=where)
			r = subprocess.run([os.path.join(links, name), "--version"], capture_output=True, text=True, env=env, timeout=30)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertRegex(r.stdout, r"^kubectl-inspect-cgpu v?%s " % re.escape(self.version))
			r = subprocess.run([os.path.join(links, name), "--help"], capture_output=True, text=True, env=env, timeout=30)
			self.assertIn("kubectl inspect-cgpu [NODE...]", r.stdout)
			# the completion helper, linked beside the plugin's link under krew's spelling
			helper = os.path.join(links, "kubectl_complete-inspect_cgpu")
			os.symlink(os.path.join(root, "kubectl_complete-inspect-cgpu"), helper)
			r = subprocess.run([helper, "mode", ""], capture_output=True, text=True, env=env, timeout=30)
			self.assertEqual(r.stdout.splitlines(), ["core", "exclusive", "isolate", "share", ":4"], r.stderr)
		if not ran:
			self.skipTest("no platform of the manifest is %s/%s" % host)


if __name__ == "__main__":
	unittest.main()
