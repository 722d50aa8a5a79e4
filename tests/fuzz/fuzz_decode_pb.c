/* The protobuf decoders on arbitrary bytes.  The first byte picks what is
 * decoded (a list, a single object or a watch stream, of nodes or pods) and
 * the read size; the magic is put in front for lists and objects, so that
 * the input reaches the protobuf reader and not the JSON one. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const annotations[] = {"ALIYUN_COM_GPU_MEM_*", NULL};
static const char *const resources[] = {"aliyun.com/gpu-mem", NULL};
static const struct decode_filter filter = {
	.annotation_keys = annotations, .resource_names = resources, .all_labels = true, .scheduling = true,
};

static size_t touch_node(const struct k8s_node *n)
{
	size_t sum = n->name ? strlen(n->name) : 0;

	for (size_t i = 0; i < n->labels.len; i++)
		sum += strlen(n->labels.items[i].value);
	for (size_t i = 0; i < n->capacity.len; i++)
		sum += strlen(n->capacity.items[i].value);
	return sum + (n->internal_ip ? strlen(n->internal_ip) : 0);
}

static size_t touch_pod(const struct k8s_pod *p)
{
	size_t sum = p->name ? strlen(p->name) : 0;

	for (size_t i = 0; i < p->annotations.len; i++)
		sum += strlen(p->annotations.items[i].value);
	for (size_t i = 0; i < p->ncontainers; i++)
		sum += p->containers[i].limits.len + (p->containers[i].name ? strlen(p->containers[i].name) : 0);
	for (size_t i = 0; i < p->nowners; i++)
		sum += p->owners[i].uid ? strlen(p->owners[i].uid) : 0;
	/* the affinity kept: every value of every expression */
	for (size_t t = 0; t < p->nnode_terms; t++)
		for (size_t k = 0; k < p->node_terms[t].nreqs; k++)
			for (size_t v = 0; v < p->node_terms[t].reqs[k].nvalues; v++)
				sum += strlen(p->node_terms[t].reqs[k].values[v]);
	return sum;
}

static int on_node(void *ud, struct k8s_node *n, struct kerr *err)
{
	*(size_t *)ud += touch_node(n);
	k8s_node_free(n);
	return 0;
}

static int on_pod(void *ud, struct k8s_pod *p, struct kerr *err)
{
	*(size_t *)ud += touch_pod(p);
	k8s_pod_free(p);
	return 0;
}

static int on_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	if (ev->type > WATCH_ERROR)
		abort();
	if ((ev->type == WATCH_BOOKMARK || ev->type == WATCH_ERROR) && (ev->node || ev->pod))
		abort();
	if (ev->node)
		*(size_t *)ud += touch_node(ev->node);
	if (ev->pod)
		*(size_t *)ud += touch_pod(ev->pod);
	k8s_node_free(ev->node);
	k8s_pod_free(ev->pod);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decode_sink sink = {.node = on_node, .pod = on_pod};
	enum obj_kind kind;
	size_t sum = 0, chunk, off = 0;
	struct kerr err = KERR_INIT;
	unsigned what;
	uint8_t *body;
	int r = 0;

	if (size < 1)
		return 0;
	kind = data[0] & 1 ? OBJ_POD : OBJ_NODE;
	what = (data[0] >> 1) & 3;
	chunk = data[0] >> 3 ? data[0] >> 3 : size + 4;
	data++;
	size--;
	sink.ud = &sum;
	if (what == 0) {
		struct watch_decoder *d = watch_decoder_new(kind, &filter, on_event, &sum);

		if (!d)
			return 0;
		/* a frame length under 16 MiB starts with 0: what makes it protobuf */
		r = watch_decoder_feed(d, "", 1, &err);
		while (off < size && r == 0) {
			size_t n = size - off < chunk ? size - off : chunk;

			r = watch_decoder_feed(d, data + off, n, &err);
			off += n;
		}
		watch_decoder_free(d);
	} else if (!(body = malloc(size + 4))) {
		return 0;
	} else {
		memcpy(body, "k8s", 4);
		memcpy(body + 4, data, size);
		if (what == 1) {
			struct k8s_node *n = NULL;
			struct k8s_pod *p = NULL;

			r = kind == OBJ_NODE ? decode_node(body, size + 4, &filter, &n, &err)
					     : decode_pod(body, size + 4, &filter, &p, &err);
			sum += n ? touch_node(n) : p ? touch_pod(p) : 0;
			k8s_node_free(n);
			k8s_pod_free(p);
		} else {
			struct list_decoder *d = list_decoder_new(kind, &filter, &sink);
			char *reason = NULL, *message = NULL;
			long code;

			if (d) {
				while (off < size + 4 && r == 0) {
					size_t n = size + 4 - off < chunk ? size + 4 - off : chunk;

					r = list_decoder_feed(d, body + off, n, &err);
					off += n;
				}
				if (r == 0)
					r = list_decoder_finish(d, &err);
				list_decoder_free(d);
			}
			if (decode_status_pb(body, size + 4, &code, &reason, &message) == 0 && code < 0)
				abort();
			free(reason);
			free(message);
		}
		free(body);
	}
	if (r < 0 && !err.message)
		abort();
	kerr_release(&err);
	return sum == (size_t)-1;
}
