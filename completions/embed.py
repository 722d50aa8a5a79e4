#!/usr/bin/env python3
"""Writes a C file holding the completion scripts of this folder, byte for byte, so that `completion SHELL`
prints exactly what the package installs:  embed.py OUT.c SHELL=FILE..."""

import sys


def main():
	out, pairs = sys.argv[1], sys.argv[2:]
	lines = ["/* Generated at build time from completions/ by completions/embed.py: do not edit. */",
		"#include \"completion_scripts.h\"", ""]
	names = []
	for pair in pairs:
		shell, path = pair.split("=", 1)
		with open(path, "rb") as f:
			data = f.read()
		names.append(shell)
		body = ",".join(str(b) for b in data)
		lines.append("static const char script_%s[] = {%s%s0};" % (shell, body, "," if body else ""))
	lines.append("")
	lines.append("const struct completion_script completion_scripts[] = {")
	for shell in names:
		lines.append("\t{ \"%s\", script_%s, sizeof(script_%s) - 1 }," % (shell, shell, shell))
	lines.append("\t{ 0 },")
	lines.append("};")
	with open(out, "w") as f:
		f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
	main()
