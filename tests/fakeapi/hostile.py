"""The --hostile modes: the text, bytes and sizes each one puts into the objects and answers."""

import copy

# --hostile: a server (or whoever can create objects) that means harm.  Each mode is one class of input:
#   text             control characters in every string the plugin prints (names, namespaces, addresses, label
#                    values, annotations, Status messages, Warning headers): an OSC title change ended by a bell,
#                    a screen clear, a colour change, a C1 CSI, DEL, a tab and a newline, and CJK text two columns
#                    wide; every error answer carries them in its message and reason
#   badutf8          the same places get bytes that are not UTF-8 (in JSON strings and in Warning headers)
#   repeat-continue  every page of a paged list answers with the same continue token (and the same objects)
#   endless          every page of a paged list brings new objects and a new continue token, without end
#   huge             one node carries a 100 MB annotation
#   watch-backwards  watches first replay every object with resourceVersion 1 and changed content, and add a
#                    node "stale-ghost" at resourceVersion 1: events older than what the list already showed
HOSTILE_MODES = ("text", "badutf8", "repeat-continue", "endless", "huge", "watch-backwards")
HOSTILE_TEXT = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\u009b1m\x7f\t\nX\u4e2d\u6587"
HOSTILE_BAD_UTF8 = "\udcff\udcfe\udcc3X"
# Header values go out as latin-1: 0x9b and 0xff are a C1 byte and a byte that is not UTF-8 on the wire.
HOSTILE_HEADER_TEXT = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\xff"
# Label values the plugin prints (pool, GPU model) rather than reads for the sharing mode.
HOSTILE_LABELS = ("alibabacloud.com/nodepool-id", "aliyun.accelerator/nvidia_name")
HUGE_BYTES = 100 * 1024 * 1024
# Serialising a 100 MB string takes Python seconds: the stored bytes get it put in place instead.
HUGE_PLACEHOLDER = "@@huge-annotation@@"


def hostile_objects(objects, suffix):
	"""Every printed string field of nodes and pods with suffix appended; DaemonSets and kube-system keep
	their names, so that restart still finds its device plugin."""
	out = []
	for d in objects:
		d = copy.deepcopy(d)
		md = d.setdefault("metadata", {})
		kind = d.get("kind")
		if kind in ("Node", "Pod"):
			md["name"] = md.get("name", "") + suffix
			labels = md.get("labels")
			if labels is not None:
				for k in HOSTILE_LABELS:
					if k in labels:
						labels[k] += suffix
				labels["example.com/hostile"] = "v" + suffix
			md.setdefault("annotations", {})["example.com/note"] = "note" + suffix
		if kind == "Pod":
			if md.get("namespace") not in (None, "kube-system"):
				md["namespace"] += suffix
			spec = d.setdefault("spec", {})
			if spec.get("nodeName"):
				spec["nodeName"] += suffix
			for c in spec.get("containers") or []:
				c["name"] = c.get("name", "c") + suffix
		if kind == "Node":
			for a in (d.get("status") or {}).get("addresses") or []:
				a["address"] = a.get("address", "") + suffix
		out.append(d)
	return out
