/* The decoders of the resource.k8s.io kinds on arbitrary bytes: lists of
 * ResourceSlices, ResourceClaims and DeviceClasses in the v1 shape and in
 * v1beta1's, in JSON and in protobuf, then the DRA inventory on what they
 * gave.  The first byte picks the kind, the encoding (the protobuf magic is
 * put in front) and the read size. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "scheme_dra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct decode_filter filter = {.all_labels = true, .scheduling = true};

/* The sum touched, and the inventory the objects go to. */
struct state {
	size_t sum;
	struct dra_inventory inv;
};

static size_t touch_values(const struct k8s_dra_value *v, size_t n)
{
	size_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += strlen(v[i].name) + (v[i].str ? strlen(v[i].str) : 0) + (v[i].version ? strlen(v[i].version) : 0) +
		       (v[i].quantity ? strlen(v[i].quantity) : 0) + (size_t)v[i].i;
	return sum;
}

static int on_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	for (size_t i = 0; i < s->ndevices; i++) {
		((struct state *)ud)->sum += touch_values(s->devices[i].attrs, s->devices[i].nattrs);
		for (size_t j = 0; j < s->devices[i].ncapacity; j++)
			((struct state *)ud)->sum += strlen(s->devices[i].capacity[j].name) +
						     (s->devices[i].capacity[j].quantity ? strlen(s->devices[i].capacity[j].quantity) : 0) +
						     s->devices[i].capacity[j].npolicy_values;
		for (size_t j = 0; j < s->devices[i].nconsumes; j++)
			((struct state *)ud)->sum += touch_values(s->devices[i].consumes[j].counters, s->devices[i].consumes[j].ncounters);
	}
	return dra_inventory_add_slice(&((struct state *)ud)->inv, s);
}

static int on_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	for (size_t i = 0; i < c->nalloc_configs; i++)
		((struct state *)ud)->sum += (c->alloc_configs[i].strategy ? strlen(c->alloc_configs[i].strategy) : 0) +
				 (size_t)c->alloc_configs[i].mps_threads;
	for (size_t i = 0; i < c->nresults; i++)
		((struct state *)ud)->sum += c->results[i].consumed.len;
	return dra_inventory_add_claim(&((struct state *)ud)->inv, c);
}

static int on_class(void *ud, struct k8s_device_class *c, struct kerr *err)
{
	((struct state *)ud)->sum += c->nselectors + c->nconfigs;
	k8s_device_class_free(c);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum obj_kind kinds[] = {OBJ_RESOURCE_SLICE, OBJ_RESOURCE_SLICE_V1BETA1, OBJ_RESOURCE_CLAIM,
					      OBJ_RESOURCE_CLAIM_V1BETA1, OBJ_DEVICE_CLASS};
	struct state st = {0};
	struct decode_sink sink = {.resource_slice = on_slice, .resource_claim = on_claim, .device_class = on_class,
				   .ud = &st};
	struct kerr err = KERR_INIT;
	struct warnings w = {0};
	struct list_decoder *d;
	size_t chunk, off = 0, n;
	uint8_t *body;
	bool pb;

	if (size < 1)
		return 0;
	pb = data[0] & 1;
	d = list_decoder_new(kinds[(data[0] >> 1) % 5], &filter, &sink);
	chunk = data[0] >> 4 ? (size_t)(data[0] >> 4) * 7 : size + 4;
	data++;
	size--;
	if (!d || !(body = malloc(size + 4))) {
		list_decoder_free(d);
		return 0;
	}
	n = pb ? 4 : 0;
	memcpy(body, "k8s", 4);
	memcpy(body + n, data, size);
	n += size;
	while (off < n) {
		size_t k = n - off < chunk ? n - off : chunk;

		if (list_decoder_feed(d, body + off, k, &err) < 0)
			break;
		off += k;
	}
	if (off == n)
		list_decoder_finish(d, &err);
	list_decoder_free(d);
	free(body);
	kerr_release(&err);
	if (dra_inventory_finish(&st.inv, &w) == 0) {
		struct dra_device *devs;
		size_t nd;

		for (size_t i = 0; i < st.inv.nslices; i++)
			if (st.inv.slices[i]->node_name &&
			    dra_node_devices(&st.inv, st.inv.slices[i]->node_name, NULL, &devs, &nd) == 0)
				dra_devices_free(devs, nd);
	}
	warnings_release(&w);
	dra_inventory_release(&st.inv);
	return (int)(st.sum & 0);
}
