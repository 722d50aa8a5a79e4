/* HAMi (Project-HAMi): vGPUs carved out of NVIDIA GPUs by memory (MiB) and
 * compute (% of one GPU).
 *
 * Nodes: the device plugin registers its GPUs in the annotation
 * hami.io/node-nvidia-register, either as a JSON array (v2.8 and later,
 * every field omitempty, so a missing health means false and a missing
 * index means 0) or as the older "UUID,count,devmem,devcore,type,numa,
 * health[,index,mode]:" list.  hami.io/node-handshake tells whether the
 * plugin still answers; hami.io/device-cordon lists UUIDs excluded from new
 * allocations.  The resources gpumem and gpucores never appear in node
 * capacity, so the register is the only source of totals.
 *
 * Pods: hami.io/vgpu-devices-allocated (falling back to the pending copy
 * hami.io/vgpu-devices-to-allocate) names, per container, the devices and
 * the memory and compute taken on each.  HAMi names devices by UUID only,
 * so every claim is filled with gpu = -1 and device_id = the UUID; the model
 * looks the UUID up in the node's GPUs (scheme_gpu.id) to find the index.
 * A pod bound to a node without a device list gets one claim per container
 * with gpu = -1 and no device_id: held on the node, GPU not yet known.
 *
 * Time: a handshake stuck in "Requesting" for more than five minutes means
 * the node is unavailable.  "Now" comes from scheme_now(), which the
 * environment variable CGPU_NOW can pin for tests.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "scheme_hami.h"
#include "scheme_devices.h"
#include "scheme_keys.h"
#include "scheme_place.h"
#include "scheme_util.h"

#define ANN_HAMI_HANDSHAKE "hami.io/node-handshake"
#define ANN_HAMI_CORDON "hami.io/device-cordon"

/* Five minutes, as HAMi's scheduler counts a node lost. */
#define HANDSHAKE_TIMEOUT 300

static const char *const node_annotations[] = {ANN_HAMI_REGISTER, ANN_HAMI_HANDSHAKE, ANN_HAMI_CORDON, NULL};
static const char *const pod_annotations[] = {ANN_HAMI_ALLOCATED, ANN_HAMI_TO_ALLOCATE, ANN_HAMI_NODE,
					      ANN_HAMI_BIND_PHASE, NULL};
static const char *const pod_resources[] = {RES_NVIDIA_GPU, RES_HAMI_MEM, RES_HAMI_MEM_PCT, RES_HAMI_CORES, NULL};

struct hami_dev {
	char *id, *type, *mode;
	int64_t index, count, devmem, devcore;
	bool has_index, healthy;
};

struct hami_devs {
	struct hami_dev *v;
	size_t n, cap;
	int bad; /* entries skipped as malformed */
};

static void hami_devs_release(struct hami_devs *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].id);
		free(d->v[i].type);
		free(d->v[i].mode);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

/* Takes ownership of dev's strings, also on failure. */
static int hami_devs_add(struct hami_devs *d, struct hami_dev *dev)
{
	struct hami_dev *v = kube_array_grow(d->v, &d->cap, d->n + 1, sizeof(*v), 8);

	if (!v) {
		free(dev->id);
		free(dev->type);
		free(dev->mode);
		return -1;
	}
	d->v = v;
	d->v[d->n++] = *dev;
	return 0;
}

/* An integer field of the JSON form: absent = 0 (omitempty). */
static int json_field_int(json_t *o, const char *key, int64_t max, int64_t *ret)
{
	json_t *v = json_object_get(o, key);

	*ret = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return -1;
	*ret = (int64_t)json_integer_value(v);
	return 0;
}

/* A string field: absent = NULL; present but not a plain ASCII string = -1. */
static int json_field_str(json_t *o, const char *key, bool allow_space, char **ret)
{
	json_t *v = json_object_get(o, key);

	*ret = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return -1;
	if (json_string_length(v) == 0)
		return 0;
	if (!str_is_printable(json_string_value(v), allow_space) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -1;
	*ret = strdup(json_string_value(v));
	return *ret ? 0 : -2;
}

static int parse_register_json(const char *value, struct hami_devs *out)
{
	json_error_t jerr;
	json_t *root = json_loads(value, 0, &jerr);
	size_t i;
	json_t *o;

	if (!root || !json_is_array(root)) {
		json_decref(root);
		out->bad++;
		return 0;
	}
	if (json_array_size(root) > SCHEME_MAX_DEVICES) {
		json_decref(root);
		out->bad++;
		return 0;
	}
	json_array_foreach(root, i, o)
	{
		struct hami_dev d = {0};
		json_t *h;
		int r = 0;

		if (!json_is_object(o)) {
			out->bad++;
			continue;
		}
		if (json_field_int(o, "index", SCHEME_MAX_DEVICES - 1, &d.index) < 0 ||
		    json_field_int(o, "count", SCHEME_MAX_COUNT, &d.count) < 0 ||
		    json_field_int(o, "devmem", SCHEME_MAX_MIB, &d.devmem) < 0 ||
		    json_field_int(o, "devcore", SCHEME_MAX_COUNT, &d.devcore) < 0)
			r = -1;
		/* An absent index is index 0 (omitempty), not "unknown". */
		d.has_index = true;
		h = json_object_get(o, "health");
		if (h && !json_is_boolean(h))
			r = -1;
		d.healthy = h && json_is_true(h);
		if (r == 0)
			r = json_field_str(o, "id", false, &d.id);
		if (r == 0)
			r = json_field_str(o, "type", true, &d.type);
		if (r == 0)
			r = json_field_str(o, "mode", false, &d.mode);
		if (r == 0 && !d.id)
			r = -1; /* a device without a UUID cannot be matched with pods */
		if (r == -2) {
			free(d.id);
			free(d.type);
			free(d.mode);
			json_decref(root);
			return -1;
		}
		if (r < 0) {
			free(d.id);
			free(d.type);
			free(d.mode);
			out->bad++;
			continue;
		}
		if (hami_devs_add(out, &d) < 0) {
			json_decref(root);
			return -1;
		}
	}
	json_decref(root);
	return 0;
}

/* "UUID,count,devmem,devcore,type,numa,health[,index[,mode]]:" repeated. */
static int parse_register_legacy(const char *value, struct hami_devs *out)
{
	struct sspan rest = sspan_of(value), ent;

	while (sspan_split(&rest, ':', &ent)) {
		struct sspan f[10], fld, e = sspan_trim(ent);
		struct hami_dev d = {0};
		int64_t numa;
		int nf = 0;

		if (e.n == 0)
			continue;
		if (out->n + (size_t)out->bad >= SCHEME_MAX_DEVICES) {
			out->bad++;
			break;
		}
		while (nf < 10 && sspan_split(&e, ',', &fld))
			f[nf++] = sspan_trim(fld);
		if (nf < 7 || nf > 9 || !sspan_printable(f[0], false) ||
		    sspan_int64(f[1], SCHEME_MAX_COUNT, &d.count) < 0 ||
		    sspan_int64(f[2], SCHEME_MAX_MIB, &d.devmem) < 0 ||
		    sspan_int64(f[3], SCHEME_MAX_COUNT, &d.devcore) < 0 ||
		    (f[4].n && !sspan_printable(f[4], true)) ||
		    sspan_int64(f[5], SCHEME_MAX_DEVICES, &numa) < 0 ||
		    !(sspan_eq(f[6], "true") || sspan_eq(f[6], "false")) ||
		    (nf >= 8 && sspan_int64(f[7], SCHEME_MAX_DEVICES - 1, &d.index) < 0) ||
		    (nf >= 9 && f[8].n && !sspan_printable(f[8], false))) {
			out->bad++;
			continue;
		}
		d.healthy = sspan_eq(f[6], "true");
		/* Before the index field existed, list order was the index. */
		if (nf < 8)
			d.index = (int64_t)(out->n + (size_t)out->bad);
		d.has_index = true;
		d.id = sspan_dup(f[0]);
		d.type = f[4].n ? sspan_dup(f[4]) : NULL;
		d.mode = nf >= 9 && f[8].n ? sspan_dup(f[8]) : NULL;
		if (!d.id || (f[4].n && !d.type) || (nf >= 9 && f[8].n && !d.mode)) {
			free(d.id);
			free(d.type);
			free(d.mode);
			return -1;
		}
		if (hami_devs_add(out, &d) < 0)
			return -1;
	}
	return 0;
}

static int cmp_dev_index(const void *a, const void *b)
{
	const struct hami_dev *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

/* Whether the devices carry the indexes 0..n-1, each once. */
static bool indexes_dense(const struct hami_devs *d)
{
	for (size_t i = 0; i < d->n; i++) {
		if (!d->v[i].has_index || d->v[i].index != (int64_t)i)
			return false;
	}
	return true;
}

static void check_handshake(const struct k8s_node *node, struct warnings *w)
{
	const char *hs = kvlist_get(&node->annotations, ANN_HAMI_HANDSHAKE);
	const char *ts;
	time_t t, now;

	if (!hs || !*hs)
		return;
	if (strncmp(hs, "Requesting_", 11) == 0)
		ts = hs + 11;
	else if (strncmp(hs, "Deleted_", 8) == 0) {
		scheme_warn_node(w, "HandshakeDeleted", node,
				 "the hami device plugin on this node is gone (%s is Deleted): its GPUs take no new pods",
				 ANN_HAMI_HANDSHAKE);
		return;
	} else if (strncmp(hs, "Reported_", 9) == 0)
		return;
	else {
		scheme_warn_node(w, "MalformedAnnotation", node, "annotation %s: unknown state",
				 ANN_HAMI_HANDSHAKE);
		return;
	}
	/* HAMi has written both "2006-01-02 15:04:05" and "2006.01.02 15:04:05". */
	if (scheme_parse_utc(ts, '-', ' ', &t) < 0 && scheme_parse_utc(ts, '.', ' ', &t) < 0) {
		scheme_warn_node(w, "MalformedAnnotation", node, "annotation %s: unreadable time",
				 ANN_HAMI_HANDSHAKE);
		return;
	}
	now = scheme_now();
	if (now - t > HANDSHAKE_TIMEOUT)
		scheme_warn_node(w, "HandshakeStuck", node,
				 "the hami device plugin has not answered for %lld minutes (%s stuck in Requesting): the node takes no new pods",
				 (long long)((now - t) / 60), ANN_HAMI_HANDSHAKE);
}

static void apply_cordon(const struct k8s_node *node, struct scheme_node *out)
{
	struct sspan rest = sspan_of(kvlist_get(&node->annotations, ANN_HAMI_CORDON)), f;
	size_t seen = 0;

	if (!rest.p)
		return;
	/* more names than devices can exist are not worth comparing */
	while (seen++ < SCHEME_MAX_DEVICES && sspan_split(&rest, ',', &f)) {
		f = sspan_trim(f);
		if (f.n == 0)
			continue;
		for (int i = 0; i < out->ngpus; i++) {
			if (out->gpus[i].id && sspan_eq(f, out->gpus[i].id))
				out->gpus[i].cordoned = true;
		}
	}
}

static int hami_node_decode(const struct k8s_node *node, struct scheme_node *out, struct warnings *w)
{
	const char *reg = kvlist_get(&node->annotations, ANN_HAMI_REGISTER);
	struct hami_devs devs = {0};
	const char *p;
	bool same_mode = true;
	int r;

	if (!reg)
		return 0;
	memset(out, 0, sizeof(*out));
	out->unit = UNIT_MIB;
	out->unit_from_label = true;
	out->per_gpu = true;
	out->isolation = true;

	for (p = reg; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
		;
	r = *p == '[' || *p == '{' ? parse_register_json(reg, &devs) : parse_register_legacy(reg, &devs);
	if (r < 0)
		goto oom;
	scheme_devices_warn_register(node, ANN_HAMI_REGISTER, devs.bad, w);

	if (devs.n > 1)
		qsort(devs.v, devs.n, sizeof(*devs.v), cmp_dev_index);
	if (devs.n && !indexes_dense(&devs)) {
		scheme_warn_node(w, "MalformedAnnotation", node,
				 "annotation %s: device indexes are not 0..%zu; GPUs are renumbered in index order",
				 ANN_HAMI_REGISTER, devs.n - 1);
	}
	if (devs.n) {
		out->gpus = calloc(devs.n, sizeof(*out->gpus));
		if (!out->gpus)
			goto oom;
	}
	out->ngpus = (int)devs.n;
	for (size_t i = 0; i < devs.n; i++) {
		struct hami_dev *d = &devs.v[i];
		struct scheme_gpu *g = &out->gpus[i];

		g->index = (int)i;
		g->id = d->id;
		g->type = d->type;
		d->id = d->type = NULL;
		g->mem_total = d->devmem;
		g->core_total = d->devcore;
		g->slots = d->count;
		g->unhealthy = !d->healthy;
		out->mem_capacity += d->devmem;
		if (d->healthy) {
			out->mem_total += d->devmem;
			out->core_total += d->devcore;
		}
		if (i > 0 && !((d->mode && devs.v[0].mode && strcmp(d->mode, devs.v[0].mode) == 0) ||
			       (!d->mode && !devs.v[0].mode)))
			same_mode = false;
	}
	if (devs.n && devs.v[0].mode && same_mode) {
		out->mode = strdup(devs.v[0].mode);
		if (!out->mode)
			goto oom;
	}
	hami_devs_release(&devs);
	apply_cordon(node, out);
	check_handshake(node, w);
	return 1;
oom:
	hami_devs_release(&devs);
	scheme_node_release(out);
	return -1;
}

/* Whether this pod is HAMi's.  nvidia.com/gpu alone is also what whole-GPU
 * pods ask for; it marks a HAMi pod only with HAMi's scheduler or once the
 * HAMi scheduler has named a node for it. */
static bool pod_is_hami(const struct k8s_pod *pod)
{
	if (kvlist_get(&pod->annotations, ANN_HAMI_ALLOCATED) ||
	    kvlist_get(&pod->annotations, ANN_HAMI_TO_ALLOCATE) ||
	    kvlist_get(&pod->annotations, ANN_HAMI_NODE) ||
	    kvlist_get(&pod->annotations, ANN_HAMI_BIND_PHASE))
		return true;
	for (size_t i = 0; i < pod->ncontainers; i++) {
		const struct kvlist *l = &pod->containers[i].limits;
		if (kvlist_get(l, RES_HAMI_MEM) || kvlist_get(l, RES_HAMI_CORES) || kvlist_get(l, RES_HAMI_MEM_PCT))
			return true;
		if (kvlist_get(l, RES_NVIDIA_GPU) && pod->scheduler_name &&
		    strcmp(pod->scheduler_name, HAMI_SCHEDULER) == 0)
			return true;
	}
	return false;
}

/* The pod side is the same as Volcano vGPU's (scheme_devices.c). */
static const struct scheme_devices_desc hami_devices = {
	.node_key = ANN_HAMI_NODE, .allocated_key = ANN_HAMI_ALLOCATED, .to_allocate_key = ANN_HAMI_TO_ALLOCATE,
	.bind_phase_key = ANN_HAMI_BIND_PHASE, .display_name = "hami", .limit_name = "hami",
	.res_count = RES_NVIDIA_GPU, .res_mem = RES_HAMI_MEM, .res_cores = RES_HAMI_CORES,
	.assigned_needs_bind_success = true,
};

static int hami_pod_decode(const struct k8s_pod *pod, struct scheme_pod *out, struct warnings *w)
{
	return pod_is_hami(pod) ? scheme_devices_pod_decode(&hami_devices, pod, out, w) : 0;
}

const struct scheme scheme_hami = {
	.name = "hami", .title = "HAMi vGPU", .pod_unit = UNIT_MIB, .whole_card_by_default = true,
	.help = "vGPUs of memory and compute on devices named by UUID, from HAMi's register and pod annotations",
	.node_fields = {.annotation_keys = node_annotations},
	.pod_fields = {.annotation_keys = pod_annotations, .resource_names = pod_resources},
	.node_decode = hami_node_decode, .pod_decode = hami_pod_decode, .place = scheme_place_vgpus,
};
