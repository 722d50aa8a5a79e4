/* The watch decoder on arbitrary bytes; the first byte picks the kind and
 * the read size. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const annotations[] = {"ALIYUN_COM_GPU_MEM_*", NULL};
static const char *const resources[] = {"aliyun.com/gpu-mem", NULL};
static const struct decode_filter filter = {
	.annotation_keys = annotations, .resource_names = resources, .all_labels = true,
};

static size_t touch_str(const char *s)
{
	return s ? strlen(s) : 0;
}

static int on_event(void *ud, struct watch_event *ev, struct kerr *err)
{
	size_t *sum = ud;

	if (ev->type > WATCH_ERROR)
		abort();
	/* an object only where the event type carries one */
	if ((ev->type == WATCH_BOOKMARK || ev->type == WATCH_ERROR) && (ev->node || ev->pod))
		abort();
	*sum += touch_str(ev->resource_version) + touch_str(ev->error_reason) + touch_str(ev->error_message);
	if (ev->node) {
		*sum += touch_str(ev->node->name);
		for (size_t i = 0; i < ev->node->labels.len; i++)
			*sum += strlen(ev->node->labels.items[i].value);
	}
	if (ev->pod) {
		*sum += touch_str(ev->pod->name) + ev->pod->ncontainers;
		for (size_t i = 0; i < ev->pod->annotations.len; i++)
			*sum += strlen(ev->pod->annotations.items[i].value);
	}
	k8s_node_free(ev->node);
	k8s_pod_free(ev->pod);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sum = 0, chunk, off = 0;
	struct watch_decoder *d;
	struct kerr err = KERR_INIT;
	int r = 0;

	if (size < 1)
		return 0;
	chunk = data[0] >> 1 ? data[0] >> 1 : size;
	d = watch_decoder_new(data[0] & 1 ? OBJ_POD : OBJ_NODE, &filter, on_event, &sum);
	data++;
	size--;
	if (!d)
		return 0;
	while (off < size && r == 0) {
		size_t n = size - off < chunk ? size - off : chunk;

		r = watch_decoder_feed(d, data + off, n, &err);
		off += n;
	}
	if (r < 0 && !err.message)
		abort();
	kerr_release(&err);
	watch_decoder_free(d);
	return sum == (size_t)-1;
}
