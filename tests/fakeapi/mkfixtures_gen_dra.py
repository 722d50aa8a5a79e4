"""Synthetic clusters that share their GPUs through Dynamic Resource Allocation, for benchmarks
(`--scenario gen:...,dra=1`): the nodes' GPUs published in ResourceSlices by NVIDIA's driver (one slice per
node), each GPU's memory consumable by several claims (allowMultipleAllocations), and every GPU pod holding
one claim, made from a template, with its share of a GPU's memory: the same cluster as gen:... without dra=1,
where the same pods hold the same memory through aliyun.com/gpu-mem.
Part of mkfixtures (mkfixtures.py is the module to import)."""

import json

from mkfixtures_dra import (claim, claim_template, device_class, dra_node, gpu_device, request, resource_slice,
	result, suffix)
from mkfixtures_objects import pod, trainer_container

SHARE_POLICY = {"default": "1Gi", "validRange": {"min": "1Gi", "step": "1Gi"}}
MEMORY_CHOICES = (1, 1, 2, 2, 3, 4, 6, 8)


def dra_nodes(c, opts):
	"""(nodes, slices, [(name, ip)]): opts["nodes"] nodes of opts["gpus"] GPUs of opts["mem"] GiB each."""
	nodes, slices, names = [], [], []
	proto = json.dumps(dra_node(c, "proto", "10.0.0.1", "A100-80", opts["gpus"]))
	for i in range(opts["nodes"]):
		name = "dra-node-%d-%d-%d" % (i // 65536 % 256, i // 256 % 256, i % 256)
		ip = "10.%d.%d.%d" % (i // 65536 % 256, i // 256 % 256, i % 256)
		n = json.loads(proto)
		m = n["metadata"]
		m["name"], m["uid"], m["resourceVersion"] = name, c.uid("node", name), c.next_rv()
		m["labels"]["kubernetes.io/hostname"] = name
		n["status"]["addresses"] = [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}]
		devs = []
		for g in range(opts["gpus"]):
			d = gpu_device(c, name, g, "A100-80", shared=SHARE_POLICY)
			d["capacity"]["memory"]["value"] = "%dGi" % opts["mem"]
			devs.append(d)
		nodes.append(n)
		slices.append(resource_slice(c, n, devs))
		names.append((name, ip))
	return nodes, slices, names


def _proto_pod(c):
	"""The JSON text of the generated jobs' pod (as the gpushare generator's, with a claim instead of
	aliyun.com/gpu-mem)."""
	owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "proto", "uid": c.uid("job", "proto"),
		"controller": True, "blockOwnerDeletion": True}
	p = pod(c, "proto-0", "default", "proto", [trainer_container(None)], "10.0.0.1", labels={"app": "proto",
		"job-name": "proto", "controller-uid": owner["uid"]}, owner=owner, generate_name="proto-")
	p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-share"}]
	p["spec"]["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
	p["status"]["resourceClaimStatuses"] = []
	return json.dumps(p)


def generate_dra(c, rnd, opts):
	"""The objects of a DRA cluster (see the module's docstring); pods are spread as the gpushare generator
	spreads them, and a pod whose memory fits on no GPU of its node runs without a claim."""
	nodes, slices, names = dra_nodes(c, opts)
	objs = nodes + slices
	objs += [device_class(c, "gpu.nvidia.com", "gpu"), device_class(c, "mig.nvidia.com", "mig")]
	nsn = max(1, opts["ns"])
	for k in range(nsn):
		objs.append(claim_template(c, "gpu-share", "team-%d" % k, [request("gpu", capacity={"memory": "1Gi"})]))
	proto_pod = _proto_pod(c)
	used = {}
	for j in range(opts["pods"]):
		if not names:
			break
		nname, ip = names[rnd.randrange(len(names))]
		ns = "team-%d" % (j % nsn)
		name = "job-%d-%s" % (j, c.hexid(5, "pod", ns, str(j)))
		mem = rnd.choice(MEMORY_CHOICES)
		g = min(range(opts["gpus"]), key=lambda i, nn=nname: used.get((nn, i), 0)) if opts["gpus"] else None
		fits = g is not None and rnd.randrange(100) >= opts["cpu"] and used.get((nname, g), 0) + mem <= opts["mem"]
		done = rnd.randrange(100) < opts["done"]
		uid = c.uid("pod", ns, name)
		juid = c.uid("job", ns, "job-%d" % j)
		p = json.loads(proto_pod)
		pm = p["metadata"]
		pm.update(name=name, namespace=ns, generateName="job-%d-" % j, uid=uid, resourceVersion=c.next_rv(),
			labels={"app": "job-%d" % j, "controller-uid": juid, "job-name": "job-%d" % j})
		pm["ownerReferences"][0].update(name="job-%d" % j, uid=juid)
		p["spec"]["containers"][0]["env"][0]["value"] = "job-%d" % j
		p["spec"]["nodeName"] = nname
		p["status"].update(hostIP=ip, podIP="10.%d.%d.%d" % (128 + j // 65536 % 64, j // 256 % 256, j % 256))
		if not fits or done:
			del p["spec"]["resourceClaims"], p["status"]["resourceClaimStatuses"]
			p["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "2", "memory": "4Gi"},
				"requests": {"cpu": "1", "memory": "2Gi"}}
			if done:
				p["status"]["phase"] = "Succeeded"
			objs.append(p)
			continue
		used[(nname, g)] = used.get((nname, g), 0) + mem
		cname = "%s-gpu-%s" % (name, suffix(c, "claim", ns, name))
		p["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": cname}]
		share = {"memory": "%dGi" % mem}
		objs.append(p)
		objs.append(claim(c, cname, ns, [request("gpu", capacity=share)], node=nname, reserved=[(name, uid)],
			results=[result("gpu", nname, "gpu-%d" % g, c.uid("share", ns, name), share)], owner=(name, uid),
			pod_claim="gpu"))
	return objs
