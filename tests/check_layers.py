#!/usr/bin/env python3
"""The source tree's layers, checked: each folder of src/ includes only its
own headers and those of the layers below it, the client library (src/kube)
is reached only through kube.h, and nothing in the client names a GPU,
a sharing scheme or one of their resources or labels."""
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


def main():
    owner = {}
    for layer in LAYERS:
        for f in os.listdir(os.path.join(SRC, layer)):
            if f.endswith(".h"):
                owner[f] = layer
    problems = []
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
