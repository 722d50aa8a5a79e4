#!/usr/bin/env python3
"""Add up the results of every test run into the suite's one closing line, after
one line per skipped test with the reason it gave.

Arguments are meson's testlog.json files and the fuzz runner's output (one
line per target, "fuzz_NAME  15s ... ok (N runs)" or "... FAILED"); a missing
file counts as one failure, so a run that never happened cannot pass."""
import json
import re
import sys

FUZZ_LINE = re.compile(r"^fuzz_\S+\s+\d+s \.\.\. (ok|FAILED)")

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as f:
            if path.endswith(".json"):
                for line in f:
                    line = line.strip()
                    if not line:
                        continue
                    entry = json.loads(line)
                    result = entry.get("result")
                    if result in ("OK", "EXPECTEDFAIL"):
                        passed += 1
                    elif result == "SKIP":
                        skipped += 1
                        # a skipped test says why on its first line of output
                        why = (entry.get("stdout") or "").strip().splitlines()
                        print(f"skipped {entry.get('name')}: {why[0] if why else 'no reason given'}")
                    else:
                        failed += 1
            else:
                for line in f:
                    m = FUZZ_LINE.match(line)
                    if m and m.group(1) == "ok":
                        passed += 1
                    elif m:
                        failed += 1
    except OSError as e:
        print(f"missing results: {path}: {e.strerror}", file=sys.stderr)
        failed += 1

print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
