/* The DRA part of a load (load_internal.h): discovery of resource.k8s.io,
 * and the lists of its slices, claims and classes, read into the cluster's
 * inventory while its node and pod lists, asked for already, wait. */
#include "load_internal.h"

#include <stdlib.h>
#include <string.h>

const char *const dra_versions[] = {"v1", "v1beta2", "v1beta1", NULL};
static const char *const dra_group_versions[] = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
						 "resource.k8s.io/v1beta1"};

const char *dra_group_version(const char *version)
{
	for (size_t i = 0; version && dra_versions[i]; i++)
		if (strcmp(version, dra_versions[i]) == 0)
			return dra_group_versions[i];
	return NULL;
}

static int on_resource_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	struct attempt *a = ((struct list_ud *)ud)->a;

	return dra_inventory_add_slice(&a->l->dra, s) < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
}

static int on_resource_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	struct attempt *a = ((struct list_ud *)ud)->a;

	return dra_inventory_add_claim(&a->l->dra, c) < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
}

static int on_device_class(void *ud, struct k8s_device_class *c, struct kerr *err)
{
	struct attempt *a = ((struct list_ud *)ud)->a;

	return dra_inventory_add_class(&a->l->dra, c) < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
}

/* The resource.k8s.io lists, in the version the server serves: the whole
 * cluster's, as a node's devices may be published for many nodes at once. */
static int plan_dra_lists(struct plan *p, struct attempt *a, struct kerr *err)
{
	static const char *const resources[] = {"resourceslices", "resourceclaims", "deviceclasses"};
	bool beta1 = strcmp(a->l->dra_version, "v1beta1") == 0;
	const enum obj_kind kinds[] = {beta1 ? OBJ_RESOURCE_SLICE_V1BETA1 : OBJ_RESOURCE_SLICE,
				       beta1 ? OBJ_RESOURCE_CLAIM_V1BETA1 : OBJ_RESOURCE_CLAIM, OBJ_DEVICE_CLASS};

	p->lists = calloc(3, sizeof(*p->lists));
	p->uds = calloc(3, sizeof(*p->uds));
	p->selectors = calloc(3, sizeof(*p->selectors));
	if (!p->lists || !p->uds || !p->selectors)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < 3; i++) {
		struct kube_list *l = &p->lists[p->n];
		struct list_ud *ud = &p->uds[p->n];
		char *path = NULL;

		if (asprintf(&path, "/apis/resource.k8s.io/%s/%s", a->l->dra_version, resources[i]) < 0 ||
		    !plan_keep(p, path))
			return kerr_set(err, KERR_OTHER, "out of memory");
		ud->a = a;
		ud->kind = kinds[i];
		memset(l, 0, sizeof(*l));
		l->path = path;
		l->kind = kinds[i];
		l->from_cache = a->l->from_cache;
		/* fit asks what claims ask, and of every attribute */
		l->filter = i == 0   ? (a->l->mo.scheduling ? &dra_slice_fields_full : &dra_slice_fields)
			    : i == 1 ? (a->l->mo.scheduling ? &dra_claim_fields_full : &dra_claim_fields)
				     : &dra_claim_fields;
		l->sink = (struct decode_sink){.resource_slice = on_resource_slice,
					       .resource_claim = on_resource_claim,
					       .device_class = on_device_class,
					       .list_meta = on_meta,
					       .ud = ud};
		p->n++;
	}
	return 0;
}

bool dra_asked(const struct cluster_load *l)
{
	return !l->mo.scheme || strcmp(l->mo.scheme, scheme_dra.name) == 0;
}

/* Whether each cluster serves Dynamic Resource Allocation, and in which
 * version (newest first), unless its load is for another scheme: asked of
 * every cluster at once, so a slow one holds back none of the others.  A
 * cluster whose answer failed is not loaded further. */
void dra_discover(struct loading *gs, size_t n)
{
	struct kube_client **cs = calloc(n ? n : 1, sizeof(*cs));
	const char **vs = calloc(n ? n : 1, sizeof(*vs));
	struct kerr *errs = calloc(n ? n : 1, sizeof(*errs));

	for (size_t i = 0; i < n; i++) {
		struct cluster_load *l = gs[i].a.l;

		l->dra_version = NULL;
		if (!gs[i].active || !dra_asked(l))
			continue;
		if (!cs || !vs || !errs) {
			kerr_set(&l->err, KERR_OTHER, "out of memory");
			gs[i].active = false;
			continue;
		}
		cs[i] = l->cluster.client;
	}
	if (cs && vs && errs)
		kube_group_versions(cs, n, "resource.k8s.io", dra_versions, vs, errs);
	for (size_t i = 0; cs && vs && errs && i < n; i++) {
		struct cluster_load *l = gs[i].a.l;

		if (!cs[i])
			continue;
		if (errs[i].kind != KERR_NONE) {
			err_take(&l->err, &errs[i]);
			gs[i].active = false;
			continue;
		}
		l->dra_version = vs[i];
		l->objects.dra = &l->dra;
		l->mo.objects = vs[i] ? &l->objects : NULL;
		gs[i].m.opts.objects = l->mo.objects;
		/* without the group, nothing is read before the nodes and pods */
		gs[i].held = vs[i] != NULL;
	}
	free(cs);
	free(vs);
	free(errs);
}

/* A DRA list the user may not read does not stop the rest: said in a
 * warning, the cluster is read without it.  Whether that was the case. */
static bool dra_forbidden(struct cluster_load *l, struct kerr *err)
{
	if (err->kind != KERR_STATUS || err->code != 403 || !err->message || !strstr(err->message, "resource.k8s.io"))
		return false;
	warnings_add(&l->dra_warnings, "DRAForbidden", NULL, "%s; Dynamic Resource Allocation devices are not shown",
		     err->message);
	kerr_release(err);
	l->dra_version = NULL;
	l->mo.objects = NULL;
	dra_inventory_release(&l->dra);
	return true;
}

/* The end of a DRA round for one cluster: its inventory complete, to run
 * again (a list started over), or failed. */
static bool dra_settle(struct loading *g, struct kerr *set_err)
{
	struct cluster_load *l = g->a.l;

	plan_release(&g->dp);
	if (set_err->kind != KERR_NONE && !dra_forbidden(l, set_err)) {
		err_take(&l->err, set_err);
		g->active = false;
		return false;
	}
	if (!l->dra_version)
		return false;
	if (g->da.restarted)
		return true;
	if (dra_inventory_finish(&l->dra, &l->dra_warnings) < 0) {
		kerr_set(&l->err, KERR_OTHER, "out of memory");
		g->active = false;
	}
	return false;
}

/* The DRA lists of every cluster that serves it, all at once, while the
 * nodes and pods, asked for already, wait unread: a node's devices and a
 * pod's share are then read from them as each node and pod arrives, as the
 * other schemes read theirs, and nothing waits in memory for the other
 * lists. */
int dra_rounds(struct loading *gs, size_t n, struct kerr *err)
{
	struct kube_list_set *sets = calloc(n, sizeof(*sets));
	size_t *of = calloc(n, sizeof(*of));
	bool *again = calloc(n, sizeof(*again));
	int rc = 0;

	if (!sets || !of || !again)
		rc = kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < n; i++)
		again[i] = gs[i].active && gs[i].a.l->dra_version;
	for (int round = 0; rc == 0 && round < 3; round++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			struct kerr e = KERR_INIT;

			if (!again[i])
				continue;
			dra_inventory_release(&gs[i].a.l->dra);
			gs[i].a.l->dra.gpu_drivers = gs[i].a.l->mo.dra_drivers;
			gs[i].da = (struct attempt){.l = gs[i].a.l, .multi = true};
			if (plan_dra_lists(&gs[i].dp, &gs[i].da, &e) < 0) {
				again[i] = dra_settle(&gs[i], &e);
				continue;
			}
			sets[k] = (struct kube_list_set){.client = gs[i].a.l->cluster.client, .lists = gs[i].dp.lists,
							 .n = gs[i].dp.n};
			of[k++] = i;
		}
		if (k && kube_list_run_sets(sets, k, err) < 0)
			rc = -1;
		for (size_t j = 0; j < k; j++) {
			again[of[j]] = dra_settle(&gs[of[j]], &sets[j].err);
			kerr_release(&sets[j].err);
		}
	}
	free(sets);
	free(of);
	free(again);
	return rc;
}
