/* What the live model's files share: the records of pods and nodes, the
 * index of pods by uid, and the requests of pending pods with their
 * verdicts per node.
 *
 * Files, lowest first: model_live_index.c (records, the index, the lists of
 * m in namespace/name order), model_live_reasons.c (pending pods' reasons),
 * model_live.c (objects in), model_live_settle.c (the figures of what
 * changed).
 */
#ifndef MODEL_LIVE_INTERNAL_H
#define MODEL_LIVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fit.h"
#include "model_internal.h"
#include "model_live.h"

#define LIVE_NONE ((size_t)-1)

/* A pod the model counts: what its scheme read (what is taken out of its
 * node's sums when it changes) and where it shows. */
struct live_pod {
	char *key;	 /* uid, or namespace/name; NULL: a free slot */
	char *rv;	 /* resourceVersion as last read, or NULL */
	unsigned gen;	 /* the pod list that last delivered it */
	size_t acc;	 /* its node's accumulator, LIVE_NONE: on no node */
	size_t shown;	 /* index in m.pods, LIVE_NONE: not kept (another namespace) */
	size_t ask;	 /* its request among the reasons (on no node), or LIVE_NONE */
	struct model_pod_gpu *gpus; /* per GPU, in the scheme's count, as folded */
	size_t ngpus;
	int64_t mem, core;	    /* whole pod, in the scheme's count */
	struct warnings *warnings;  /* what its scheme said of it, or NULL */
	bool waiting;		    /* in m.waiting */
	bool dirty;		    /* on no node: to be settled and counted again */
	bool counted;		    /* on no node: in the totals, as m.pods[shown] says */
	bool rounded;		    /* on no node: settling it rounded a part of a GiB away */
};

/* A node name the model knows (one per accumulator, numbered alike). */
struct live_node {
	size_t *recs; /* the pods folded into its accumulator */
	size_t nrecs, recs_cap;
	char *uid, *rv; /* of the node object, or NULL */
	unsigned gen;
	bool touched;  /* to be joined again */
	bool counted;  /* its model_node's figures are in the totals */
	bool rounded;  /* joining it rounded a part of a GiB away */
	bool pods_core; /* a pod it lists holds a compute share */
	struct warnings read_w; /* what its scheme said of the node object */
	struct warnings join_w; /* what joining its pods said */
};

/* One distinct request of pods on no node, and its verdict on each node. */
struct live_ask {
	struct model_pod req; /* scheme, ask, nodeSelector, tolerations, node terms */
	size_t refs;	      /* pods asking it; 0: a free entry */
	struct fit_verdict *v; /* per node of m, in m's order */
	size_t nv;
	bool judge_all;	  /* judge every node again (nodes came, went or moved) */
	bool text_changed; /* since the pods' reasons were written */
	char *text;
};

struct live_state {
	struct model_names strings; /* namespaces, phases, node names of kept pods */
	struct live_pod *pods;
	size_t npods, pods_cap;
	size_t *free_pods; /* free slots of pods */
	size_t nfree, free_cap;
	size_t *table; /* open addressing by key: pod index + 1, 0 empty */
	size_t table_size, table_used;
	size_t *shown_rec; /* for each m.pods entry, its record */
	size_t shown_cap;
	struct live_node *nodes; /* per accumulator */
	size_t nnodes, nodes_cap;
	size_t *touched; /* accumulators to join again */
	size_t ntouched, touched_cap;
	size_t *node_acc; /* for each m.nodes entry, its accumulator */
	size_t node_acc_cap;
	size_t waiting_cap; /* room in m.waiting */
	enum mem_unit *scheme_units; /* the unit of a pod on no node, per scheme of schemes[] */
	struct model_names ask_keys; /* asks numbered as their keys */
	struct live_ask *asks;
	size_t nasks, asks_cap;
	unsigned gen[2];     /* list generations: OBJ_NODE, OBJ_POD */
	bool pending;	     /* something changed since the last settle */
	bool nodes_moved;    /* m.nodes appended to or reordered: sort, and judge every node again */
	bool nodes_changed;  /* a node came, went or changed: units and unscheduled pods again */
	bool warnings_dirty; /* m.warnings to be put together again */
	bool pods_dirty;     /* a pod on no node to be settled */
	size_t settled_warnings; /* m.warnings entries the last settle wrote; usage's follow */
	struct warnings objects_w; /* what reading the objects beside nodes and pods said */
};

/* model_live_index.c */
struct live_pod *live_pod_find(struct live_state *s, const char *key, size_t *ret_index);
/* A new record of that key (copied), indexed; NULL when out of memory. */
struct live_pod *live_pod_add(struct live_state *s, const char *key, size_t *ret_index);
/* Unindexed and freed (what it holds included); its slot is reused. */
void live_pod_remove(struct live_state *s, size_t index);
/* uid, or namespace/name for a pod without one; malloc'd. */
char *live_pod_key(const char *ns, const char *name, const char *uid);
/* The live node of an accumulator index (made as accumulators are); NULL
 * when out of memory. */
struct live_node *live_node_get(struct live_state *s, size_t acc);
/* The accumulator to be joined again at the next settle. */
int live_touch(struct live_state *s, size_t acc);
/* Index lists of m (unscheduled, waiting, a node's pods) in namespace/name
 * order: insert (-1 when out of memory) and remove a pod's index. */
int live_list_insert(const struct model *m, size_t **list, size_t *n, size_t *cap, size_t pod);
void live_list_remove(const struct model *m, size_t *list, size_t *n, size_t pod);
/* m.pods entry `shown` taken out (released), the last moved into its place. */
void live_shown_remove(struct model_live *l, size_t shown);
int cmp_pod_order(const struct model_pod *x, const struct model_pod *y);

/* model_live_reasons.c: the request of a pod on no node taken on (its
 * reason follows at the next settle) and given up. */
int live_ask_take(struct model_live *l, struct live_pod *r);
void live_ask_drop(struct model_live *l, struct live_pod *r);
/* Every request judged on the touched nodes (every node, where nodes came,
 * went or moved), and the reasons of the pods on no node written. */
int live_asks_settle(struct model_live *l);
void live_asks_release(struct live_state *s);

#endif
