/* The live model: a struct model kept up to date object by object, as lists
 * and watches deliver nodes and pods, for the live view.
 *
 * A pod's event takes the pod's old share out of its node's sums and puts
 * the new one in (model_fold_pod, the same folding a finished model is
 * built with); model_live_settle() then joins again only the nodes that
 * events touched (their GPUs, figures, warnings, pods, status and largest
 * free), moves the totals by the difference, and judges again, for each
 * pending pod's request, only those nodes.  The model it keeps equals the
 * one model_add_node, model_add_pod and model_finish build from the same
 * objects (but for the order of m.pods, which it does not sort: the
 * nodes' pod lists, the unscheduled and the waiting pods are in order).
 *
 * What it keeps per pod is what the model shows and subtracts: the
 * scheme's reading (per GPU, in the scheme's count) and, for a pod it
 * shows, its model_pod without containers; namespaces, phases and node
 * names are stored once.  No object of the client is kept: each is read
 * and handed back.  A list after 410 Expired replaces in place: an object
 * of the same uid and resourceVersion is left as it is, another replaces
 * it, and at the list's end whatever it did not deliver is taken out.
 *
 * Pure: no I/O.  Uses the client's object structs (kube.h), the schemes,
 * the model and fit.
 */
#ifndef MODEL_LIVE_H
#define MODEL_LIVE_H

#include <stdbool.h>

#include "kube.h"
#include "model.h"

struct live_state;

struct model_live {
	struct model m; /* what the live view reads, complete after model_live_settle */
	struct live_state *s;
};

/* opt as for model_init; kept pods have no containers (opt->no_containers
 * is implied).  -1 when out of memory. */
int model_live_init(struct model_live *l, const struct model_options *opt);
void model_live_release(struct model_live *l);

/* A node or pod added, or put in place of the copy of the same uid (or
 * namespace/name where it has none); the object stays the caller's.  An
 * object of the resourceVersion already held changes nothing.  -1 when out
 * of memory: the live model is then to be released and built again. */
int model_live_put_node(struct model_live *l, const struct k8s_node *node, struct kerr *err);
int model_live_put_pod(struct model_live *l, const struct k8s_pod *pod, struct kerr *err);
/* The object of that uid (or name) taken out, if it is held. */
int model_live_delete_node(struct model_live *l, const struct k8s_node *node, struct kerr *err);
int model_live_delete_pod(struct model_live *l, const struct k8s_pod *pod, struct kerr *err);

/* A list of every object of a kind starts, and ends having delivered them
 * all: what it did not deliver is taken out.  A list that fails is not
 * ended; what it delivered stays. */
void model_live_list_begin(struct model_live *l, enum obj_kind kind);
int model_live_list_end(struct model_live *l, enum obj_kind kind, struct kerr *err);

/* The objects beside nodes and pods (opt->objects, which the caller keeps
 * and updates in place) now read otherwise for the node of that name
 * (NULL: for every node): that node and the pods on it, and every pod on
 * no node, are read again when a list next delivers them, whatever their
 * resourceVersion.  Nothing changes until then. */
void model_live_forget_node(struct model_live *l, const char *name);
/* What reading those objects said (copied), kept after the settled
 * warnings as a load puts it after a finished model's. */
void model_live_set_object_warnings(struct model_live *l, const struct warnings *w);

/* Something was put or taken out since the last settle. */
bool model_live_pending(const struct model_live *l);
/* The figures of what changed, derived: l->m is complete again.  -1 when
 * out of memory (then as for the puts). */
int model_live_settle(struct model_live *l, struct kerr *err);

/* Before memory in use is applied again (usage_apply on l->m): what the
 * last answer added (figures per GPU stay until the next) is taken away.
 * The warnings usage_apply adds after the settled ones are kept, in
 * place, by later settles. */
void model_live_forget_usage(struct model_live *l);

#endif
