/* The kinds of object the decoders hand over (decode_fields.h): per kind,
 * the message it starts with, its struct, where that keeps its
 * resourceVersion, and how an object is freed, given to a list's sink or
 * put in a watch event. */
#include "decode_fields.h"

#include <stddef.h>

/* The three functions of a kind, k8s_FN_free its free and member its
 * callback in a sink and its place in a watch event. */
#define KIND_FNS(fn, member)                                                                     \
	static void fn##_free(void *obj)                                                            \
	{                                                                                           \
		k8s_##fn##_free(obj);                                                               \
	}                                                                                           \
	static int fn##_to_sink(const struct decode_sink *sink, void *obj, struct kerr *err)         \
	{                                                                                           \
		if (sink->member)                                                                   \
			return sink->member(sink->ud, obj, err);                                    \
		k8s_##fn##_free(obj);                                                               \
		return 0;                                                                           \
	}                                                                                           \
	static void fn##_to_event(struct watch_event *ev, void *obj)                                \
	{                                                                                           \
		ev->member = obj;                                                                   \
	}

KIND_FNS(node, node)
KIND_FNS(pod, pod)
KIND_FNS(resource_slice, resource_slice)
KIND_FNS(resource_claim, resource_claim)
KIND_FNS(device_class, device_class)

#define KIND_OF(msg, T, fn) {msg, sizeof(T), offsetof(T, resource_version), fn##_free, fn##_to_sink, fn##_to_event}

static void pdb_free(void *obj)
{
	k8s_pdb_free(obj);
}

static int pdb_to_sink(const struct decode_sink *sink, void *obj, struct kerr *err)
{
	if (sink->pdb)
		return sink->pdb(sink->ud, obj, err);
	k8s_pdb_free(obj);
	return 0;
}

/* budgets are listed, never watched */
static void pdb_to_event(struct watch_event *ev, void *obj)
{
	(void)ev;
	k8s_pdb_free(obj);
}

static const struct decode_kind kinds[] = {
	[OBJ_NODE] = KIND_OF(M_NODE, struct k8s_node, node),
	[OBJ_POD] = KIND_OF(M_POD, struct k8s_pod, pod),
	[OBJ_RESOURCE_SLICE] = KIND_OF(M_SLICE, struct k8s_resource_slice, resource_slice),
	[OBJ_RESOURCE_SLICE_V1BETA1] = KIND_OF(M_SLICE_B1, struct k8s_resource_slice, resource_slice),
	[OBJ_RESOURCE_CLAIM] = KIND_OF(M_CLAIM, struct k8s_resource_claim, resource_claim),
	[OBJ_RESOURCE_CLAIM_V1BETA1] = KIND_OF(M_CLAIM_B1, struct k8s_resource_claim, resource_claim),
	[OBJ_DEVICE_CLASS] = KIND_OF(M_CLASS, struct k8s_device_class, device_class),
	[OBJ_PDB] = KIND_OF(M_PDB, struct k8s_pdb, pdb),
};

const struct decode_kind *decode_kind_of(enum obj_kind kind)
{
	return &kinds[kind];
}
