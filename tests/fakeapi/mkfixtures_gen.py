"""Synthetic clusters for benchmarks (`--scenario gen:...` of the fake API server, tests/bench/bench.py):
thousands of nodes and pods shaped like real ones, built from copies of one prototype of each.
Part of mkfixtures (mkfixtures.py is the module to import)."""

import gc
import json
import random

from mkfixtures_gen_dra import generate_dra
from mkfixtures_objects import V100, Ctx, daemonset, gpu_annotations, gpushare_node, pod, trainer_container


def generate(spec):
	"""A synthetic cluster: gen:nodes=N,pods=M,gpus=G,mem=GIB,seed=S,ds=0|1,ns=K,done=PCT,cpu=PCT.

	Objects are shaped like real ones (managedFields, env, volumes, conditions, container statuses: about 4.5 KB
	of JSON per pod, 5 KB per node). Pods are spread at random over the nodes and K namespaces; a pod asks for
	GPU memory only if it fits on one of its node's GPUs (so the cluster is full, never over-allocated), else
	it becomes a CPU pod; cpu=PCT makes that share CPU pods from the start, done=PCT that share Succeeded or
	Failed (which the plugin's field selector leaves out).  dra=1 makes the same cluster share its GPUs
	through Dynamic Resource Allocation (mkfixtures_gen_dra.py), served as a 1.34 server serves it.
	"""
	opts = {"nodes": 100, "pods": 1000, "gpus": 4, "mem": 15, "seed": 1, "ds": 1, "ns": 20, "done": 0, "cpu": 0,
		"dra": 0}
	for part in filter(None, spec.split(",")):
		k, _, v = part.partition("=")
		if k not in opts:
			raise SystemExit("fakeapi: generator: unknown option %s (known: %s)" % (k, ", ".join(sorted(opts))))
		opts[k] = int(v)
	# Millions of new objects would set off the cyclic collector again and again, each time walking all of
	# them (half of the time spent here); they live as long as the server, so they are frozen out of it.
	enabled = gc.isenabled()
	gc.disable()
	try:
		if opts["dra"]:
			objs = generate_dra(Ctx("gen-%d" % opts["seed"], rv=1000), random.Random(opts["seed"]), opts)
		else:
			objs = _generate(opts)
	finally:
		if enabled:
			gc.enable()
	gc.freeze()
	return objs, ({"settings": {"resource_versions": ["v1"]}} if opts["dra"] else {})


def _generate(opts):
	c = Ctx("gen-%d" % opts["seed"], rv=1000)
	rnd = random.Random(opts["seed"])
	gpus, per = opts["gpus"], opts["mem"]
	nsn = max(1, opts["ns"])
	objs = []
	# Copies come from JSON text: json.loads is many times faster than copy.deepcopy for 100,000 pods.
	proto_node = json.dumps(gpushare_node(c, "proto", "10.0.0.1", per * gpus, gpus, dict(V100, cgpu="true")))
	names = []
	for i in range(opts["nodes"]):
		n = json.loads(proto_node)
		name = "cn-shanghai.10.%d.%d.%d" % (i // 65536 % 256, i // 256 % 256, i % 256)
		ip = name.split(".", 1)[1]
		m = n["metadata"]
		m["name"] = name
		m["uid"] = c.uid("node", name)
		m["resourceVersion"] = c.next_rv()
		m["labels"]["kubernetes.io/hostname"] = name
		m["labels"]["alibabacloud.com/nodepool-id"] = "np-%d" % (i % 4)
		n["spec"]["providerID"] = "alicloud://cn-shanghai.i-%s" % c.hexid(20, "ecs", name)
		n["status"]["addresses"] = [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}]
		n["status"]["nodeInfo"]["machineID"] = c.hexid(32, "node", name)
		n["status"]["nodeInfo"]["bootID"] = c.uid("boot", name)
		objs.append(n)
		names.append((name, ip))
	ct = trainer_container({"aliyun.com/gpu-mem": 1})
	owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "proto", "uid": c.uid("job", "proto"),
		"controller": True, "blockOwnerDeletion": True}
	proto = pod(c, "proto-0", "default", "proto", [ct], "10.0.0.1", labels={"app": "proto", "job-name": "proto",
		"controller-uid": owner["uid"]}, annotations=gpu_annotations(0, per, 1), owner=owner, generate_name="proto-")
	proto["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:containers"]['k:{"name":"worker"}'].update(
		{"f:command": {}, "f:env": {".": {}, 'k:{"name":"JOB_NAME"}': {".": {}, "f:name": {}, "f:value": {}},
			'k:{"name":"MODEL_PATH"}': {".": {}, "f:name": {}, "f:value": {}}}})
	# Pods share every part they do not change (the server copies an object before it changes it): building
	# 100,000 pods this way takes seconds, and the server holds far fewer Python objects.
	pm, ps, pst = proto["metadata"], proto["spec"], proto["status"]
	mf_gpu = pm["managedFields"]
	mf_cpu = json.loads(json.dumps(mf_gpu))
	del mf_cpu[0]["fieldsV1"]["f:metadata"]["f:annotations"]
	pctr, pcs = ps["containers"][0], pst["containerStatuses"][0]
	done_status = {ph: pod(c, "proto-0", "default", "proto", [ct], "10.0.0.1", phase=ph)["status"]
		for ph in ("Succeeded", "Failed")}
	cpu_res = {"limits": {"cpu": "2", "memory": "4Gi"}, "requests": {"cpu": "1", "memory": "2Gi"}}
	used = {}
	for j in range(opts["pods"]):
		if not names:
			break
		nname, ip = names[rnd.randrange(len(names))]
		ns = "team-%d" % (j % nsn)
		job = "job-%d" % j
		name = "%s-%s" % (job, c.hexid(5, "pod", ns, job))
		juid = c.uid("job", ns, job)
		m = dict(pm, name=name, namespace=ns, generateName=job + "-", uid=c.uid("pod", ns, name),
			resourceVersion=c.next_rv(), labels={"app": job, "controller-uid": juid, "job-name": job},
			ownerReferences=[dict(pm["ownerReferences"][0], name=job, uid=juid)])
		ctr = dict(pctr, env=[dict(pctr["env"][0], value=job)] + pctr["env"][1:])
		spec = dict(ps, nodeName=nname, containers=[ctr])
		pip = "10.%d.%d.%d" % (128 + j // 65536 % 64, j // 256 % 256, j % 256)
		status = dict(pst, hostIP=ip, podIP=pip, podIPs=[{"ip": pip}],
			containerStatuses=[dict(pcs, containerID="containerd://" + c.hexid(64, "ctr", ns, name))])
		mem = rnd.choice((1, 1, 2, 2, 3, 4, 6, 8))
		idx = min(range(gpus), key=lambda g, nn=nname: used.get((nn, g), 0)) if gpus else None
		if idx is None or rnd.randrange(100) < opts["cpu"] or used.get((nname, idx), 0) + mem > per:
			del m["annotations"]
			m["managedFields"] = mf_cpu
			ctr["resources"] = cpu_res
			status["qosClass"] = "Burstable"
		else:
			used[(nname, idx)] = used.get((nname, idx), 0) + mem
			m["annotations"] = gpu_annotations(idx, per, mem)
			ctr["resources"] = {"limits": {"aliyun.com/gpu-mem": str(mem)}, "requests": {"aliyun.com/gpu-mem": str(mem)}}
		if rnd.randrange(100) < opts["done"]:
			status = dict(done_status["Failed" if j % 5 == 0 else "Succeeded"], hostIP=ip)
			spec["restartPolicy"] = "Never"
		objs.append({"kind": "Pod", "apiVersion": "v1", "metadata": m, "spec": spec, "status": status})
	if opts["ds"]:
		ds = daemonset(c, "gpushare-device-plugin-ds", "kube-system", {"name": "gpushare-device-plugin-ds",
			"component": "gpushare-device-plugin", "app": "gpushare"}, {"cgpu": "true"}, nodes=len(names))
		objs.append(ds)
	return objs
