/* The GPU device plugin's DaemonSets and their pods, as `restart` reads and
 * deletes them.  Implemented in restart_plugin.c. */
#ifndef RESTART_PLUGIN_H
#define RESTART_PLUGIN_H

#include <stdbool.h>

#include <jansson.h>

#include "kube.h"
#include "write_check.h"

/* A DaemonSet as read: the strings but selector point into obj. */
struct plugin_ds {
	json_t *obj;
	const char *ns, *name, *uid;
	char *selector;			/* its pod selector, as a label selector */
	json_t *node_selector;		/* the pod template's, NULL when none: every node */
};

void plugin_ds_release(struct plugin_ds *d);

/* The DaemonSet's nodeSelector picks a node with these labels (a JSON
 * object), so its controller keeps a pod there. */
bool plugin_ds_selects(const struct plugin_ds *d, const json_t *labels);

/* The DaemonSet "NS/NAME" (which), or, with which NULL, the device-plugin
 * DaemonSets of kube-system: *ret (*nret of them), or -1 with *err. */
int plugin_ds_find(struct kube_client *c, const char *which, struct plugin_ds **ret, size_t *nret, struct kerr *err);

/* Pods as listed, owned by the list. */
struct plugin_pods {
	struct k8s_pod **items;
	size_t len, cap;
};

void plugin_pods_release(struct plugin_pods *p);

/* The pods of each DaemonSet on one node: pods[i] for ds[i]. */
int plugin_pods_list(struct kube_client *c, const struct plugin_ds *ds, size_t nds, const char *node,
		     struct plugin_pods *pods, struct kerr *err);

/* Delete one pod with a uid precondition: its result, and *err where it
 * is not done.  A lost answer is never answered by a second delete: the
 * pod is read again, and *said (NULL otherwise) tells what was found. */
enum write_result plugin_pod_delete(struct kube_client *c, const struct k8s_pod *p, bool server_dry_run,
				    struct kerr *err, char **said);

#endif
