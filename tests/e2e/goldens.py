"""Golden files of a table of cases run per scenario: CASES maps a case's name to (scenario, arguments);
each case's stdout is compared with DIR/NAME.txt and its stderr with DIR/NAME.err (absent when empty).
UPDATE_GOLDEN=1 writes them instead, to be read by eye before they are kept."""

import os

from harness import APIServer

UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def read(path, default):
	if not os.path.exists(path):
		return default
	with open(path, encoding="utf-8") as f:
		return f.read()


def write(directory, name, r):
	out, err = (os.path.join(directory, name + ext) for ext in (".txt", ".err"))
	with open(out, "w", encoding="utf-8") as f:
		f.write(r.stdout)
	if r.stderr:
		with open(err, "w", encoding="utf-8") as f:
			f.write(r.stderr)
	elif os.path.exists(err):
		os.unlink(err)


def check_cases(test, directory, cases, run):
	"""run(api, args) runs one case against its scenario's server, started once per scenario."""
	if UPDATE:
		os.makedirs(directory, exist_ok=True)
	scenarios = {}
	for name, (scenario, args) in sorted(cases.items()):
		scenarios.setdefault(scenario, []).append((name, args))
	for scenario, named in sorted(scenarios.items()):
		with APIServer(scenario) as api:
			for name, args in named:
				with test.subTest(case=name):
					r = run(api, args)
					test.assertEqual(r.returncode, 0, r.stderr)
					if UPDATE:
						write(directory, name, r)
						continue
					test.assertEqual(r.stdout, read(os.path.join(directory, name + ".txt"), ""), name)
					test.assertEqual(r.stderr, read(os.path.join(directory, name + ".err"), ""), name)
