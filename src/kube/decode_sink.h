/* What the streaming decoders hand over and to whom: the kinds of object
 * they build, the sink that takes a list's items and its metadata, and the
 * events of a watch stream.  Shared by the decoders (decode_*.c) and their
 * callers through decode.h.
 */
#ifndef DECODE_SINK_H
#define DECODE_SINK_H

#include "kerr.h"
#include "objects.h"

/* resource.k8s.io kinds come in two shapes: v1 (and v1beta2, the same
 * messages) and v1beta1's; both fill the same struct. */
enum obj_kind {
	OBJ_NODE,
	OBJ_POD,
	OBJ_RESOURCE_SLICE,
	OBJ_RESOURCE_SLICE_V1BETA1,
	OBJ_RESOURCE_CLAIM,
	OBJ_RESOURCE_CLAIM_V1BETA1,
	OBJ_DEVICE_CLASS,
	OBJ_PDB, /* policy/v1 PodDisruptionBudget */
	OBJ_KIND_COUNT
};

/* Callbacks receive ownership of the object; return 0 to go on, -1 to stop
 * (the feed call then fails with the error the callback put in *err). */
struct decode_sink {
	int (*node)(void *ud, struct k8s_node *node, struct kerr *err);
	int (*pod)(void *ud, struct k8s_pod *pod, struct kerr *err);
	int (*resource_slice)(void *ud, struct k8s_resource_slice *slice, struct kerr *err);
	int (*resource_claim)(void *ud, struct k8s_resource_claim *claim, struct kerr *err);
	int (*device_class)(void *ud, struct k8s_device_class *dc, struct kerr *err);
	/* List metadata as soon as it has been read (it comes before "items" in
	 * what the API server writes, so the next page can be requested before
	 * this one is decoded).  continue_token is NULL on the last page. */
	void (*list_meta)(void *ud, const char *resource_version, const char *continue_token);
	void *ud;
	int (*pdb)(void *ud, struct k8s_pdb *pdb, struct kerr *err);
};

enum watch_type { WATCH_ADDED, WATCH_MODIFIED, WATCH_DELETED, WATCH_BOOKMARK, WATCH_ERROR };

struct watch_event {
	enum watch_type type;
	enum obj_kind kind;
	struct k8s_node *node;	  /* set for node events other than BOOKMARK/ERROR; owned by receiver */
	struct k8s_pod *pod;	  /* same, for pods */
	struct k8s_resource_slice *resource_slice; /* same, for the resource.k8s.io kinds */
	struct k8s_resource_claim *resource_claim;
	struct k8s_device_class *device_class;
	char *resource_version;	  /* object's metadata.resourceVersion (also for BOOKMARK) */
	long error_code;	  /* WATCH_ERROR: Status.code (410 = list again) */
	char *error_reason, *error_message;
};

/* Called once per complete event; the receiver owns ev->node/ev->pod and
 * must not keep the other pointers after returning. */
typedef int (*watch_cb)(void *ud, struct watch_event *ev, struct kerr *err);

#endif
