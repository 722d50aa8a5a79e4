/* Node-pool sharing modes: editions, modes, and the plans that change a
 * node from one mode to another.
 *
 * Pure: no I/O.  The commands `mode` and `restart` read nodes, pods and
 * DaemonSets, hand what they read to these functions, and send what comes
 * back.  Keeping the decisions here lets them be tested without a cluster.
 *
 * Which labels each edition of a sharing scheme sets for each mode is the
 * scheme's knowledge (scheme.h: struct scheme_modes, of the first scheme
 * that has them); the planning here works from that table.  The editions
 * are numbered as the scheme lists them: pro (ACK Pro, ack-ai-installer),
 * basic (ACK basic, ack-cgpu) and opensource (gpushare).
 *
 * Uses the client's object structs (kube.h) and the schemes (scheme.h); never I/O.
 */
#ifndef NODEPOOL_H
#define NODEPOOL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "kube.h"
#include "scheme.h"

/* Every node label the commands read (NULL-terminated), for a decode filter. */
const char *const *np_node_label_keys(void);
/* The labels that pin a pod to a pool or a sharing mode when its nodeSelector
 * or required node affinity names them (NULL-terminated). */
const char *const *np_pin_label_keys(void);

/* The scheme's editions, by their place in its table (after UNKNOWN). */
enum np_edition { NP_EDITION_UNKNOWN = 0, NP_EDITION_PRO, NP_EDITION_BASIC, NP_EDITION_OPENSOURCE };
#define NP_NEDITIONS 4

enum np_mode {
	NP_MODE_UNKNOWN = SCHEME_MODE_UNKNOWN,
	NP_MODE_EXCLUSIVE = SCHEME_MODE_EXCLUSIVE,
	NP_MODE_SHARE = SCHEME_MODE_SHARE,
	NP_MODE_ISOLATE = SCHEME_MODE_ISOLATE,
	NP_MODE_CORE = SCHEME_MODE_CORE,
};

/* An edition by the name (or an alias) its scheme's editions table gives it. */
int np_edition_parse(const char *s, enum np_edition *ret, struct kerr *err);
const char *np_edition_name(enum np_edition e);
/* A longer name for messages: "ACK Pro (ack-ai-installer)". */
const char *np_edition_title(enum np_edition e);

/* "exclusive", "share", "isolate", "core", and as aliases the label values
 * of the edition whose values name modes (ACK Pro's). */
int np_mode_parse(const char *s, enum np_mode *ret, struct kerr *err);
const char *np_mode_name(enum np_mode m);
/* Whether containers see only the GPU memory they asked for. */
bool np_mode_isolates(enum np_mode m);
bool np_mode_supported(enum np_edition e, enum np_mode m);

/* The mode a node's labels put it in for an edition; NP_MODE_UNKNOWN when
 * the labels are missing or hold a value this tool does not manage (mps). */
enum np_mode np_mode_of(enum np_edition e, const struct kvlist *labels);

/* --- edition detection ------------------------------------------------------ */

/* Evidence gathered from the cluster: node labels and kube-system DaemonSets. */
struct np_detect {
	size_t nodes[NP_NEDITIONS];	 /* nodes whose labels belong to each edition */
	char *node_example[NP_NEDITIONS]; /* the first such node, for messages */
	char *ds_example[NP_NEDITIONS];	 /* a DaemonSet found only in that edition */
	bool plugin_ds;			 /* gpushare-device-plugin-ds (every edition has one) */
	bool selected;			 /* the evidence is the chosen nodes', not the cluster's */
};

void np_detect_init(struct np_detect *d);
void np_detect_add_node(struct np_detect *d, const char *name, const struct kvlist *labels);
void np_detect_add_daemonset(struct np_detect *d, const char *name);
/* One edition, or an error naming the conflicting evidence (or the lack of
 * any).  A known override wins over the evidence. */
int np_detect_finish(const struct np_detect *d, enum np_edition override, enum np_edition *ret,
		     struct kerr *err);
void np_detect_release(struct np_detect *d);

/* --- targets and plans -------------------------------------------------------- */

struct np_target {
	enum np_edition edition;
	enum np_mode mode;
	const char *placement; /* "binpack", "spread" or NULL = leave as is (pro only) */
};

/* Refuse a mode the edition does not have, or a placement it cannot take. */
int np_target_check(const struct np_target *t, struct kerr *err);

/* One label a plan changes; a NULL value means "absent" / "remove". */
struct np_change {
	const char *key; /* static */
	char *before, *after;
};

struct np_plan {
	char *node;
	enum np_mode before, after;
	struct np_change *changes; /* only labels whose value differs */
	size_t nchanges;
	bool isolation_changes;	 /* memory isolation turns on or off: restart the device plugin */
	bool isolation_stays;	 /* pro: cgpu/core_mem -> share/default leaves the cGPU module loaded */
	bool region_unsupported; /* isolation asked for in a region that lacks it */
	char *region;		 /* topology.kubernetes.io/region, or NULL */
	bool unlabelled;	 /* no label sets a mode: before is said as the scheme says it */
};

/* What a node must change to reach the target.  A node already right gets
 * a plan with nchanges == 0. */
int np_plan_node(const struct np_target *t, const char *node, const struct kvlist *labels,
		 struct np_plan *ret, struct kerr *err);
void np_plan_release(struct np_plan *p);
/* The mode the node is in, in the words of the MODE column too. */
const char *np_plan_before_name(const struct np_plan *p);

/* The JSON merge patch for a plan: {"metadata":{"labels":{...},
 * "resourceVersion":rv}}; a removed label is null.  rv NULL = no precondition. */
json_t *np_plan_patch(const struct np_plan *p, const char *resource_version);

/* Regions that support cGPU memory isolation (seed list); NULL = unknown. */
bool np_region_isolates(const char *region);

/* --- label and selector syntax --------------------------------------------------- */

bool np_label_key_valid(const char *key);
bool np_label_value_valid(const char *value);

/* --pool NAME means POOL_LABEL=NAME; --pool KEY=VALUE is
 * taken as it is.  *ret is a label selector (malloc'd). */
int np_pool_selector(const char *pool, char **ret, struct kerr *err);

/* A metav1.LabelSelector (matchLabels, matchExpressions) as a labelSelector
 * query value.  An empty selector is refused: it would match every pod. */
int np_selector_from_json(const json_t *selector, char **ret, struct kerr *err);

/* --- device plugin DaemonSets ------------------------------------------------------ */

/* The DaemonSets (in kube-system) that run a sharing device plugin, in any
 * edition: the names below, and any other gpushare-*device-plugin-ds. */
extern const char *const np_device_plugin_ds_names[];
bool np_is_device_plugin_ds(const char *name);

#endif
