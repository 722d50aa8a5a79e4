/* The live view's Dynamic Resource Allocation objects: see top_dra.h. */
#include "top_dra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const resources[3] = {"resourceslices", "resourceclaims", "deviceclasses"};

static struct dra_inventory *inventory_new(void)
{
	return calloc(1, sizeof(struct dra_inventory));
}

static void inventory_free(struct dra_inventory *inv)
{
	if (!inv)
		return;
	dra_inventory_release(inv);
	free(inv);
}

static int on_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	struct top_dra *d = ud;

	return dra_inventory_add_slice(d->next, s) < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
}

static int on_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	struct top_dra *d = ud;

	return dra_inventory_add_claim(d->next, c) < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
}

static int on_class(void *ud, struct k8s_device_class *c, struct kerr *err)
{
	struct top_dra *d = ud;

	return dra_inventory_add_class(d->next, c) < 0 ? kerr_set(err, KERR_OTHER, "out of memory") : 0;
}

/* A list that starts over after 410 Expired: the relist is abandoned (its
 * objects of other kinds are kept in the same inventory) and made again. */
static void on_meta(void *ud, const char *resource_version, const char *continue_token)
{
	struct top_dra *d = ud;

	if (!resource_version && !continue_token)
		d->next_list = -1;
}

static void list_done0(void *ud, const struct kerr *err)
{
	struct top_dra *d = ud;

	d->done[0] = true;
	if (err && err->kind != KERR_NONE)
		kerr_copy(&d->errs[0], err);
}

static void list_done1(void *ud, const struct kerr *err)
{
	struct top_dra *d = ud;

	d->done[1] = true;
	if (err && err->kind != KERR_NONE)
		kerr_copy(&d->errs[1], err);
}

static void list_done2(void *ud, const struct kerr *err)
{
	struct top_dra *d = ud;

	d->done[2] = true;
	if (err && err->kind != KERR_NONE)
		kerr_copy(&d->errs[2], err);
}

static void lists_stop(struct top_dra *d)
{
	for (int i = 0; i < 3; i++) {
		kube_async_list_free(d->alists[i]);
		d->alists[i] = NULL;
		kube_list_release(&d->lists[i]);
		memset(&d->lists[i], 0, sizeof(d->lists[i]));
		kerr_release(&d->errs[i]);
		d->done[i] = false;
	}
	inventory_free(d->next);
	d->next = NULL;
}

static int relist_start(struct top_dra *d, struct kerr *err)
{
	static void (*const done[3])(void *, const struct kerr *) = {list_done0, list_done1, list_done2};
	bool beta1 = strcmp(d->version, "v1beta1") == 0;
	const enum obj_kind kinds[3] = {beta1 ? OBJ_RESOURCE_SLICE_V1BETA1 : OBJ_RESOURCE_SLICE,
					beta1 ? OBJ_RESOURCE_CLAIM_V1BETA1 : OBJ_RESOURCE_CLAIM, OBJ_DEVICE_CLASS};
	const struct decode_filter *filters[3] = {&dra_slice_fields_full, &dra_claim_fields_full, &dra_claim_fields};

	lists_stop(d);
	d->next_list = 0;
	if (!(d->next = inventory_new()))
		return kerr_set(err, KERR_OTHER, "out of memory");
	d->next->gpu_drivers = d->gpu_drivers;
	for (int i = 0; i < 3; i++) {
		struct kube_list *l = &d->lists[i];

		if (!d->paths[i] && asprintf(&d->paths[i], "/apis/resource.k8s.io/%s/%s", d->version, resources[i]) < 0) {
			d->paths[i] = NULL;
			return kerr_set(err, KERR_OTHER, "out of memory");
		}
		l->path = d->paths[i];
		l->kind = kinds[i];
		l->from_cache = true;
		l->filter = filters[i];
		l->sink = (struct decode_sink){
			.resource_slice = on_slice, .resource_claim = on_claim, .device_class = on_class,
			.list_meta = on_meta, .ud = d};
		if (kube_list_start(d->client, l, done[i], d, &d->alists[i], err) < 0)
			return -1;
	}
	return 0;
}

int top_dra_start(struct top_dra *d, struct kerr *err)
{
	return relist_start(d, err);
}

static void set_error(struct top_dra *d, const struct kerr *err)
{
	free(d->error);
	d->error = err ? cli_error_line(err) : NULL;
}

/* A relist that came whole: finished, compared with the inventory held,
 * and held in its place when anything differs. */
static int relist_take(struct top_dra *d, long long now, struct kerr *err)
{
	struct warnings w = {0};
	struct dra_changes ch;
	struct dra_inventory *inv = d->next;

	d->next = NULL;
	if (dra_inventory_finish(inv, &w) < 0 || dra_changes_find(d->objects.dra, inv, &ch) < 0) {
		warnings_release(&w);
		inventory_free(inv);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	d->loaded = true;
	d->ok_since = now;
	set_error(d, NULL);
	if (dra_changes_none(&ch)) {
		warnings_release(&w);
		inventory_free(inv);
		return 0;
	}
	inventory_free((struct dra_inventory *)d->objects.dra);
	d->objects.dra = inv;
	warnings_release(&d->warnings);
	d->warnings = w;
	/* changes not taken yet (the caller takes them at once) count as all */
	if (d->changed)
		ch.all = true;
	dra_changes_release(&d->changes);
	d->changes = ch;
	d->changed = true;
	return 0;
}

/* A DRA list the user may not read does not stop the view, as it does
 * not stop the summary: said in a warning, the cluster is shown without
 * DRA devices, and not listed again.  Whether that was the case. */
static bool forbidden(struct top_dra *d, const struct kerr *err)
{
	if (err->kind != KERR_STATUS || err->code != 403)
		return false;
	warnings_release(&d->warnings);
	warnings_add(&d->warnings, "DRAForbidden", NULL, "%s; Dynamic Resource Allocation devices are not shown",
		     err->message ? err->message : "forbidden");
	inventory_free((struct dra_inventory *)d->objects.dra);
	d->objects.dra = NULL;
	dra_changes_release(&d->changes);
	d->changes.all = d->changed = d->off = true;
	d->next_list = 0;
	return true;
}

int top_dra_step(struct top_dra *d, long long now, struct kerr *err)
{
	const struct kerr *failed = NULL;
	int rc = 0;

	if (d->next_list < 0) /* a list started over: the whole relist again */
		d->next_list = now;
	else if (d->next && d->done[0] && d->done[1] && d->done[2]) {
		for (int i = 0; i < 3 && !failed; i++)
			if (d->errs[i].kind != KERR_NONE)
				failed = &d->errs[i];
		d->tried = true;
		if (failed && forbidden(d, failed)) {
			lists_stop(d);
			return 0;
		}
		if (failed)
			set_error(d, failed);
		else
			rc = relist_take(d, now, err);
		lists_stop(d);
		d->next_list = now + d->refresh_ms;
	}
	if (d->next_list && now >= d->next_list && relist_start(d, err) < 0) {
		set_error(d, err);
		kerr_release(err);
		lists_stop(d);
		d->next_list = now + d->refresh_ms;
	}
	return rc;
}

void top_dra_changes_taken(struct top_dra *d)
{
	d->changed = false;
	dra_changes_release(&d->changes);
}

void top_dra_release(struct top_dra *d)
{
	lists_stop(d);
	inventory_free((struct dra_inventory *)d->objects.dra);
	warnings_release(&d->warnings);
	dra_changes_release(&d->changes);
	for (int i = 0; i < 3; i++)
		free(d->paths[i]);
	free(d->error);
}
