/* The GPU device plugin's DaemonSets, their pods on a node, and the delete
 * of one of them, for `restart` (cmd_restart.c) and `mode` through it. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodepool.h"
#include "restart_plugin.h"
#include "write_check.h"

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

void plugin_ds_release(struct plugin_ds *d)
{
	free(d->selector);
	json_decref(d->obj);
}

/* The DaemonSet's nodeSelector picks a node with these labels (a JSON
 * object), so its controller keeps a pod there. */
bool plugin_ds_selects(const struct plugin_ds *d, const json_t *labels)
{
	const char *key;
	json_t *want;

	json_object_foreach(d->node_selector, key, want) {
		const char *have = json_string_value(json_object_get(labels, key));

		if (!have || !json_is_string(want) || strcmp(have, json_string_value(want)) != 0)
			return false;
	}
	return true;
}

static int ds_from_json(json_t *j, struct plugin_ds *ret, struct kerr *err)
{
	const json_t *meta = json_object_get(j, "metadata");
	struct plugin_ds d = { 0 };

	if (np_selector_from_json(json_object_get(json_object_get(j, "spec"), "selector"), &d.selector, err) < 0) {
		kerr_prefix(err, "daemonset %s", str_or(json_string_value(json_object_get(meta, "name")), "?"));
		return -1;
	}
	d.obj = json_incref(j);
	d.ns = str_or(json_string_value(json_object_get(meta, "namespace")), "kube-system");
	d.name = str_or(json_string_value(json_object_get(meta, "name")), "");
	d.uid = str_or(json_string_value(json_object_get(meta, "uid")), "");
	d.node_selector = json_object_get(
		json_object_get(json_object_get(json_object_get(j, "spec"), "template"), "spec"), "nodeSelector");
	*ret = d;
	return 0;
}

int plugin_ds_find(struct kube_client *c, const char *which, struct plugin_ds **ret, size_t *nret, struct kerr *err)
{
	json_t *j = NULL, *item;
	struct plugin_ds *v = NULL;
	size_t n = 0, i;
	int rc = -1;

	if (which) {
		const char *slash = strchr(which, '/');
		char *ns, *name, *path = NULL;

		if (!slash || slash == which || !slash[1] || strchr(slash + 1, '/'))
			return kerr_set(err, KERR_USAGE, "--daemonset must be NAMESPACE/NAME, not \"%s\"", which);
		ns = strndup(which, (size_t)(slash - which));
		name = strdup(slash + 1);
		if (ns && name)
			path = kube_path("apps/v1", ns, "daemonsets", name);
		free(ns);
		free(name);
		if (!path)
			return kerr_set(err, KERR_OTHER, "out of memory");
		rc = kube_get_json(c, path, NULL, &j, err);
		free(path);
		if (rc < 0)
			return -1;
		v = calloc(1, sizeof(*v));
		if (!v) {
			json_decref(j);
			return kerr_set(err, KERR_OTHER, "out of memory");
		}
		rc = ds_from_json(j, v, err);
		json_decref(j);
		if (rc < 0) {
			free(v);
			return -1;
		}
		*ret = v;
		*nret = 1;
		return 0;
	}
	if (kube_get_json(c, "/apis/apps/v1/namespaces/kube-system/daemonsets", NULL, &j, err) < 0)
		return -1;
	v = calloc(json_array_size(json_object_get(j, "items")) + 1, sizeof(*v));
	if (!v) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	json_array_foreach(json_object_get(j, "items"), i, item) {
		const char *name = json_string_value(json_object_get(json_object_get(item, "metadata"), "name"));

		if (!np_is_device_plugin_ds(name))
			continue;
		if (ds_from_json(item, &v[n], err) < 0)
			goto out;
		n++;
	}
	if (n == 0) {
		kerr_set(err, KERR_OTHER,
			 "no GPU device-plugin DaemonSet in kube-system (looked for %s and other gpushare-*device-plugin-ds); "
			 "name one with --daemonset NAMESPACE/NAME",
			 np_device_plugin_ds_names[0]);
		goto out;
	}
	*ret = v;
	*nret = n;
	v = NULL;
	n = 0;
	rc = 0;
out:
	for (i = 0; v && i < n; i++)
		plugin_ds_release(&v[i]);
	free(v);
	json_decref(j);
	return rc;
}

/* --- pods ------------------------------------------------------------------------------ */

void plugin_pods_release(struct plugin_pods *p)
{
	for (size_t i = 0; i < p->len; i++)
		k8s_pod_free(p->items[i]);
	free(p->items);
	memset(p, 0, sizeof(*p));
}

static int pod_sink(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	struct plugin_pods *p = ud;
	struct k8s_pod **items;

	items = kube_array_grow(p->items, &p->cap, p->len + 1, sizeof(*items), 8);
	if (!items) {
		k8s_pod_free(pod);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	p->items = items;
	p->items[p->len++] = pod;
	return 0;
}

static void pod_list_meta(void *ud, const char *rv, const char *cont)
{
	if (!rv && !cont)
		plugin_pods_release(ud);
}

static bool controlled_by(const struct k8s_pod *p, const struct plugin_ds *d)
{
	for (size_t i = 0; i < p->nowners; i++)
		if (p->owners[i].controller && p->owners[i].uid && strcmp(p->owners[i].uid, d->uid) == 0)
			return true;
	return false;
}

static const struct decode_filter pod_filter = { 0 };

/* The pods of each DaemonSet on one node: pods[i] for ds[i]. */
int plugin_pods_list(struct kube_client *c, const struct plugin_ds *ds, size_t nds, const char *node,
		     struct plugin_pods *pods, struct kerr *err)
{
	struct kube_list *lists = calloc(nds, sizeof(*lists));
	char **paths = calloc(nds, sizeof(*paths));
	char *esc_node = NULL, *field = NULL;
	int rc = -1;

	if (!lists || !paths || asprintf(&field, "spec.nodeName=%s", node) < 0) {
		field = NULL;
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nds; i++) {
		if (!(paths[i] = kube_path("v1", ds[i].ns, "pods", NULL))) {
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
		plugin_pods_release(&pods[i]);
		lists[i] = (struct kube_list){
			.path = paths[i], .label_selector = ds[i].selector, .field_selector = field,
			.kind = OBJ_POD, .filter = &pod_filter,
			.sink = { .pod = pod_sink, .list_meta = pod_list_meta, .ud = &pods[i] },
		};
	}
	rc = kube_list_run(c, lists, nds, err);
	/* keep only what the DaemonSet itself controls */
	for (size_t i = 0; rc == 0 && i < nds; i++) {
		size_t keep = 0;

		for (size_t k = 0; k < pods[i].len; k++) {
			if (controlled_by(pods[i].items[k], &ds[i]))
				pods[i].items[keep++] = pods[i].items[k];
			else
				k8s_pod_free(pods[i].items[k]);
		}
		pods[i].len = keep;
	}
out:
	for (size_t i = 0; lists && i < nds; i++)
		kube_list_release(&lists[i]);
	for (size_t i = 0; paths && i < nds; i++)
		free(paths[i]);
	free(lists);
	free(paths);
	free(field);
	free(esc_node);
	return rc;
}

/* The delete of p was sent and its answer lost: read p again.  *said gets
 * what was found, in words (malloc'd). */
static enum write_result settle_lost_delete(struct kube_client *c, const struct k8s_pod *p, struct kerr *err,
					    char **said)
{
	enum write_result found = WRITE_UNKNOWN;
	struct kerr rerr = KERR_INIT;
	char *check = NULL, *msg;

	if (write_check_pod_gone(c, p->namespace, p->name, p->uid, &found, &rerr) < 0)
		found = WRITE_UNKNOWN;
	if (found == WRITE_UNKNOWN &&
	    asprintf(&check, "kubectl get pod %s -n %s -o jsonpath='{.metadata.uid} {.metadata.deletionTimestamp}' "
			     "(deleted when not found, when being deleted, or when its uid is no longer %s)",
		     p->name, p->namespace, p->uid ? p->uid : "") < 0)
		check = NULL;
	msg = write_lost_message(found, err, &rerr, "pod", check);
	if (!msg)
		kerr_set(err, KERR_OTHER, "out of memory");
	else
		kerr_release(err);
	*said = msg;
	free(check);
	kerr_release(&rerr);
	return found;
}

/* Delete one pod with a uid precondition: its result, and *err where it
 * is not done.  A lost answer is never answered by a second delete: the
 * pod is read again (write_check_pod_gone), and *said (NULL otherwise)
 * tells what was found. */
enum write_result plugin_pod_delete(struct kube_client *c, const struct k8s_pod *p, bool server_dry_run,
				    struct kerr *err, char **said)
{
	struct kube_write_opts w = { .dry_run = server_dry_run };
	char *path = kube_path("v1", p->namespace, "pods", p->name);
	json_t *opts = json_pack("{s:s, s:s, s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
				 "preconditions", "uid", p->uid ? p->uid : "");
	enum write_result res = WRITE_FAILED;
	int rc;

	if (!path || !opts) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	rc = kube_delete(c, path, opts, &w, NULL, err);
	/* 404: already gone; 409: the uid precondition failed, so this pod was
	 * already replaced.  Either way the old pod is no more. */
	if (rc < 0 && cli_drop_status(err, 404, 409))
		rc = 0;
	res = write_result_of(rc, err);
	/* a server dry run changes nothing, answered or not */
	if (res == WRITE_UNKNOWN && server_dry_run)
		res = WRITE_FAILED;
	if (res == WRITE_UNKNOWN)
		res = settle_lost_delete(c, p, err, said);
out:
	json_decref(opts);
	free(path);
	return res;
}
