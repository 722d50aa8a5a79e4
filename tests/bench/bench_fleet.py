"""The fleet scenario of bench.py (--scenario fleet): several clusters of one scale (--clusters, default 10),
each its own fake API server (prerendered), asked one by one and then all at once with --all-contexts.

Per run it reports the medians of wall time, CPU time and peak RSS of the summary on each cluster alone
(the median over the clusters, and the slowest and largest of them), of the summary on the whole fleet,
and the two goals: the fleet within 1.5x of one cluster's time, and its peak RSS within the sum of the
per-cluster figures.  --fleet-latency S holds every list S seconds in the server before it is answered, as a
remote API server takes its time: the fleet then shows what running the clusters at once saves."""

import json
import os
import statistics
import urllib.request

import bench


def fleet_kubeconfig(servers, path):
	"""One kubeconfig with a context c0, c1, ... per server, each as that server's admin."""
	clusters, users, contexts = [], [], []
	for i, s in enumerate(servers):
		ca, crt, key = s.creds()
		name = "c%d" % i
		clusters.append({"name": name, "cluster": {"server": "https://127.0.0.1:%d" % s.port,
							   "certificate-authority": ca}})
		users.append({"name": name, "user": {"client-certificate": crt, "client-key": key}})
		contexts.append({"name": name, "context": {"cluster": name, "user": name}})
	with open(path, "w") as f:
		json.dump({"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users,
			   "contexts": contexts, "current-context": "c0"}, f)
	return [c["name"] for c in contexts]


def hold_lists(server, seconds):
	"""Every list the server answers waits this long first, as a remote API server's answers do."""
	body = json.dumps({"match": {"path_prefix": "/api/v1/"}, "fault": {"type": "delay", "seconds": seconds},
			   "times": 1000000}).encode()
	req = urllib.request.Request("https://127.0.0.1:%d/_fake/faults" % server.port, data=body, method="POST",
				     headers={"Content-Type": "application/json"})
	with urllib.request.urlopen(req, context=server.ssl_context(), timeout=30) as r:
		r.read()


def run_summary(plugin, env, args, outp):
	with open(outp, "w") as out:
		wall, rss, rc, err, _, cpu = bench.run_measured([plugin] + args, env=env, stdout=out)
	bench.check_output("plugin " + " ".join(args), rc, err, outp)
	return wall, rss, cpu


def bench_fleet(name, plugin, args):
	nodes, pods = bench.SCALES[name]
	n = args.clusters
	bench.log("fleet: starting %d fake API servers of %d nodes, %d pods each (prerendered)" % (n, nodes, pods))
	servers = [bench.Server(nodes, pods, args.server_timeout) for _ in range(n)]
	try:
		for s in servers:
			s.start()
			if args.fleet_latency > 0:
				hold_lists(s, args.fleet_latency)
		cfg = os.path.join(servers[0].dir, "fleet-kubeconfig")
		names = fleet_kubeconfig(servers, cfg)
		env = dict(os.environ, KUBECONFIG=cfg, LC_ALL="C", NO_COLOR="1", HOME=servers[0].dir)
		env.pop("KUBECTL_INSPECT_CGPU_PROTOBUF", None)
		outp = os.path.join(servers[0].dir, "out")
		run_summary(plugin, env, ["--all-contexts"], outp)  # warm-up
		load = os.getloadavg()[0]
		single = {c: [] for c in names}
		fleet = []
		for i in range(args.repeat):
			for c in names:
				single[c].append(run_summary(plugin, env, ["--context", c], outp))
			fleet.append(run_summary(plugin, env, ["--all-contexts"], outp))
			with open(outp) as f:
				if f.read().count("Allocated/Total GPU Memory In Cluster") != n:
					raise RuntimeError("the fleet summary lacks a cluster's total line")
			bench.log("fleet: round %d/%d: one cluster %.2fs, the fleet %.2fs" % (i + 1, args.repeat,
				statistics.median(r[-1][0] for r in single.values()), fleet[-1][0]))
		return {"name": name, "nodes": nodes, "pods": pods, "clusters": n, "single": single, "fleet": fleet,
			"load": load, "latency": args.fleet_latency}
	finally:
		for s in servers:
			s.stop()


def table(r):
	med = lambda runs, i: statistics.median(x[i] for x in runs)
	per = {c: (med(runs, 0), med(runs, 1), med(runs, 2)) for c, runs in r["single"].items()}
	one_wall = statistics.median(p[0] for p in per.values())
	one_cpu = statistics.median(p[2] for p in per.values())
	one_rss = statistics.median(p[1] for p in per.values())
	sum_rss = sum(p[1] for p in per.values())
	f_wall, f_rss, f_cpu = med(r["fleet"], 0), med(r["fleet"], 1), med(r["fleet"], 2)
	lines = [
		"Fleet: %d clusters of %d nodes / %d pods each (fake API servers, prerendered%s), load average %.1f" %
		(r["clusters"], r["nodes"], r["pods"],
		 ", each list held %.1f s" % r["latency"] if r["latency"] else "", r["load"]),
		"",
		"| run | wall (s) | CPU (s) | peak RSS (MiB) |",
		"|---|---:|---:|---:|",
		"| one cluster alone (median of the clusters) | %.2f | %.2f | %.1f |" % (one_wall, one_cpu, one_rss),
		"| one cluster alone (slowest, largest) | %.2f | %.2f | %.1f |" % (
			max(p[0] for p in per.values()), max(p[2] for p in per.values()), max(p[1] for p in per.values())),
		"| the fleet (--all-contexts) | %.2f | %.2f | %.1f |" % (f_wall, f_cpu, f_rss),
		"",
		"fleet wall / one cluster: %.2fx (goal 1.5x: %s); fleet RSS / sum of the clusters' %.1f MiB: %.2f "
		"(goal 1: %s)" % (f_wall / one_wall, "met" if f_wall <= 1.5 * one_wall else "NOT met", sum_rss,
				 f_rss / sum_rss, "met" if f_rss <= sum_rss else "NOT met"),
	]
	return "\n".join(lines)
