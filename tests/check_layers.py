#!/usr/bin/env python3
"""The source tree's layers, checked: each folder of src/ includes only its
own headers and those of the layers below it, the client library (src/kube)
is reached only through kube.h, nothing in the client names a GPU, a
sharing scheme or one of their resources or labels, and no folder but
src/schemes spells a scheme's name, label, annotation or resource.

The spellings are read from the scheme sources themselves: the names of
the rows of the scheme table (`const struct scheme scheme_X = { .name =
"..."`) and every LABEL_, ANN_ and RES_ define.  A scheme file spells a key
only in such a define, each key once across the schemes.  Elsewhere,
comments may say them; string literals may not: a literal that is a
scheme's name (a comparison), names two schemes (a list), or holds one of
their keys (a key with a '.', '/' or '_' anywhere in it; a plain one as
the whole literal or before '=').  scheme.h's POOL_LABEL and REGION_LABEL
are labels of Kubernetes and node pools, which every folder may read."""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
# Each layer and what it may include, lowest first.
LAYERS = {
    "kube": [],
    "schemes": ["kube"],
    "model": ["kube", "schemes"],
    "usage": ["kube", "schemes", "model"],
    "render": ["kube", "schemes", "model", "usage"],
    "tui": ["kube", "schemes", "model", "usage", "render"],
    "cmd": ["kube", "schemes", "model", "usage", "render", "tui"],
}
GENERATED = {"version.h"}
GPU_WORDS = re.compile(r"gpu|aliyun|\bhami|volcano|nvidia|accelerator|sharing.scheme|\bcce\b", re.I)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SCHEME_ROW = re.compile(r'const\s+struct\s+scheme\s+\w+\s*=\s*\{\s*\.name\s*=\s*"([^"]+)"')
KEY_DEFINE = re.compile(r'^\s*#\s*define\s+(?:LABEL|ANN|RES)_\w+\s+"([^"]+)"', re.M)
KEY_SHAPE = re.compile(r'^[A-Za-z0-9.-]+\.[A-Za-z]{2,}/[A-Za-z0-9._*-]+$')
TOKEN = re.compile(r'[A-Za-z0-9_-]+')


def code_and_literals(text):
    """The text without its comments, and its string literals with their lines."""
    out, lits, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                lits.append((text.count("\n", 0, i) + 1, text[i + 1:j]))
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), lits


def scheme_spellings(problems):
    """The schemes' names and keys, from src/schemes; problems for a key spelled twice or outside a define."""
    names, keys, where = set(), set(), {}
    d = os.path.join(SRC, "schemes")
    for f in sorted(os.listdir(d)):
        if not f.endswith((".c", ".h")):
            continue
        text = open(os.path.join(d, f), encoding="utf-8").read()
        names.update(SCHEME_ROW.findall(text))
        for key in KEY_DEFINE.findall(text):
            if key in where:
                problems.append(f"schemes/{f}: {key!r} is spelled in schemes/{where[key]} too: define it once")
            where[key] = f
            keys.add(key)
        if not f.startswith("scheme_"):
            continue  # scheme.h and warnings.*: the table and the words every folder shares
        code, lits = code_and_literals(text)
        defines = set(KEY_DEFINE.findall(code))
        for line, lit in lits:
            if KEY_SHAPE.match(lit) and lit not in defines:
                problems.append(f"schemes/{f}:{line}: {lit!r}: spell a key once, in a LABEL_, ANN_ or RES_ define")
    return names, keys


def distinctive(key):
    return any(ch in key for ch in "./_") or key.endswith("*")


def spelled(lit, names, keys):
    """What of a scheme the literal spells, or None."""
    tokens = set(TOKEN.findall(lit))
    if lit in names:
        return f"the scheme name {lit!r}"
    if len(tokens & names) > 1:
        return "a list of scheme names"
    for key in keys:
        k = key.rstrip("*")
        if distinctive(key) and k in lit:
            return f"the key {key!r}"
        if not distinctive(key) and (lit == key or re.search(r"(?<![A-Za-z0-9_.-])" + re.escape(key) + "=", lit)):
            return f"the key {key!r}"
    return None


def main():
    owner = {}
    for layer in LAYERS:
        for f in os.listdir(os.path.join(SRC, layer)):
            if f.endswith(".h"):
                owner[f] = layer
    problems = []
    names, keys = scheme_spellings(problems)
    if not names or not keys:
        problems.append("schemes: no scheme names or keys found to check the other folders against")
    for layer, below in LAYERS.items():
        d = os.path.join(SRC, layer)
        for f in sorted(os.listdir(d)):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(layer, f)
            text = open(os.path.join(d, f), encoding="utf-8").read()
            for inc in INCLUDE.findall(text):
                if inc in GENERATED:
                    continue
                where = owner.get(inc)
                if where is None:
                    problems.append(f"{path}: includes {inc}, which no layer has")
                elif where != layer and where not in below:
                    problems.append(f"{path}: includes {where}/{inc}, above its layer")
                elif where == "kube" and layer != "kube" and inc != "kube.h":
                    problems.append(f"{path}: includes kube/{inc}; only kube.h is public")
            if layer != "schemes":
                for line, lit in code_and_literals(text)[1]:
                    what = spelled(lit, names, keys)
                    if what:
                        problems.append(f"{path}:{line}: spells {what}: only src/schemes knows it")
            if layer == "kube":
                for n, line in enumerate(text.split("\n"), 1):
                    m = GPU_WORDS.search(line)
                    if m:
                        problems.append(f"{path}:{n}: names {m.group(0)!r}: the client knows nothing of GPUs")
    for p in problems:
        print(p)
    print(f"{len(problems)} layering problems" if problems else "layers ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
