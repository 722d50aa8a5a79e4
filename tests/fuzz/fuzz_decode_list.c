/* The list decoder and the single-object decoders on arbitrary bytes.
 *
 * The first byte picks the item kind, the filter and how the rest is cut
 * into reads, so that the fuzzer explores splits as well as content. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const labels[] = {"ack.node.gpu.*", "nvidia.com/gpu.memory", NULL};
static const char *const annotations[] = {"ALIYUN_COM_GPU_MEM_*", "hami.io/*", NULL};
static const char *const resources[] = {"aliyun.com/gpu-mem", "nvidia.com/*", NULL};
static const struct decode_filter some = {
	.label_keys = labels, .annotation_keys = annotations, .resource_names = resources,
};
static const struct decode_filter all = {
	.all_labels = true, .all_annotations = true, .all_resources = true, .scheduling = true,
};

/* Reads every field, so that a dangling or unterminated string is caught by
 * the sanitizers here and not in a renderer. */
static size_t touch_kv(const struct kvlist *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->len; i++)
		n += strlen(l->items[i].key) + strlen(l->items[i].value);
	return n;
}

static size_t touch_str(const char *s)
{
	return s ? strlen(s) : 0;
}

static int on_node(void *ud, struct k8s_node *n, struct kerr *err)
{
	size_t *sum = ud;

	*sum += touch_str(n->name) + touch_str(n->uid) + touch_str(n->resource_version) +
		touch_str(n->internal_ip) + touch_kv(&n->labels) +
		touch_kv(&n->annotations) + touch_kv(&n->capacity) + touch_kv(&n->allocatable);
	k8s_node_free(n);
	return 0;
}

static int on_pod(void *ud, struct k8s_pod *p, struct kerr *err)
{
	size_t *sum = ud;

	*sum += touch_str(p->namespace) + touch_str(p->name) + touch_str(p->uid) +
		touch_str(p->resource_version) + touch_str(p->node_name) +
		touch_str(p->phase) + touch_str(p->scheduler_name) + touch_kv(&p->labels) +
		touch_kv(&p->annotations);
	for (size_t i = 0; i < p->ncontainers; i++)
		*sum += touch_str(p->containers[i].name) + touch_kv(&p->containers[i].limits);
	for (size_t i = 0; i < p->nowners; i++)
		*sum += touch_str(p->owners[i].kind) + touch_str(p->owners[i].name) + touch_str(p->owners[i].uid);
	for (size_t i = 0; i < p->nnode_terms; i++) {
		const struct k8s_node_term *t = &p->node_terms[i];

		for (size_t k = 0; k < t->nreqs; k++)
			*sum += touch_str(t->reqs[k].key) + touch_str(t->reqs[k].op) +
				(t->reqs[k].nvalues ? touch_str(t->reqs[k].values[t->reqs[k].nvalues - 1]) : 0);
	}
	k8s_pod_free(p);
	return 0;
}

static void on_meta(void *ud, const char *rv, const char *cont)
{
	size_t *sum = ud;

	*sum += touch_str(rv) + touch_str(cont);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sum = 0, chunk, off = 0;
	struct decode_sink sink = {.node = on_node, .pod = on_pod, .list_meta = on_meta, .ud = &sum};
	const struct decode_filter *f;
	enum obj_kind kind;
	struct list_decoder *d;
	struct kerr err = KERR_INIT;
	struct k8s_node *node = NULL;
	struct k8s_pod *pod = NULL;
	int r = 0;

	if (size < 1)
		return 0;
	kind = data[0] & 1 ? OBJ_POD : OBJ_NODE;
	f = data[0] & 2 ? &all : &some;
	chunk = data[0] >> 2 ? data[0] >> 2 : size; /* 1..63 bytes, or all at once */
	data++;
	size--;

	d = list_decoder_new(kind, f, &sink);
	if (!d)
		return 0;
	while (off < size && r == 0) {
		size_t n = size - off < chunk ? size - off : chunk;

		r = list_decoder_feed(d, data + off, n, &err);
		off += n;
	}
	if (r == 0)
		r = list_decoder_finish(d, &err);
	if (r < 0 && (err.kind == KERR_NONE || !err.message))
		abort(); /* a failure must say why */
	kerr_release(&err);
	list_decoder_free(d);

	if (kind == OBJ_NODE) {
		if (decode_node(data, size, f, &node, &err) == 0) {
			on_node(&sum, node, &err);
		} else if (!err.message) {
			abort();
		}
	} else {
		if (decode_pod(data, size, f, &pod, &err) == 0)
			on_pod(&sum, pod, &err);
		else if (!err.message)
			abort();
	}
	kerr_release(&err);
	return sum == (size_t)-1;
}
