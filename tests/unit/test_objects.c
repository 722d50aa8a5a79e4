/* Filtered maps, filters and their union; the array growth rule; timestamps;
 * deep copies of taints and tolerations; string sets; a kept slice cut to size
 * and its strings shared. */
#include <criterion/criterion.h>

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects.h"

Test(objects, kvlist_add_get_release)
{
	struct kvlist l = {0};
	char key[] = {'a', 'b', 'c'};

	cr_assert_eq(kvlist_add(&l, key, 2, "v1xyz", 2), 0);
	cr_assert_eq(kvlist_add(&l, "k", 1, NULL, 0), 0);
	for (int i = 0; i < 100; i++) {
		char k[16];

		snprintf(k, sizeof(k), "key%d", i);
		cr_assert_eq(kvlist_add(&l, k, strlen(k), k, strlen(k)), 0);
	}
	cr_assert_eq(l.len, 102);
	cr_assert_str_eq(kvlist_get(&l, "ab"), "v1");
	cr_assert_str_eq(kvlist_get(&l, "k"), "");
	cr_assert_str_eq(kvlist_get(&l, "key99"), "key99");
	cr_assert_null(kvlist_get(&l, "abc"));
	cr_assert_null(kvlist_get(&l, "a"));
	cr_assert_null(kvlist_get(NULL, "a"));
	/* the last of a key written twice wins, as in the API server */
	cr_assert_eq(kvlist_add(&l, "ab", 2, "v2", 2), 0);
	cr_assert_str_eq(kvlist_get(&l, "ab"), "v2");
	kvlist_release(&l);
	cr_assert_eq(l.len, 0);
	cr_assert_null(l.items);
	kvlist_release(&l);
	kvlist_release(NULL);
}

Test(objects, array_grow)
{
	size_t cap = 0;
	int *v = kube_array_grow(NULL, &cap, 1, sizeof(*v), 4), *w;

	/* the first room asked for, then doubling until need fits */
	cr_assert_not_null(v);
	cr_assert_eq(cap, 4);
	cr_assert_eq(kube_array_grow(v, &cap, 4, sizeof(*v), 4), v, "room enough: the array as it is");
	cr_assert_eq(cap, 4);
	v[3] = 7;
	v = kube_array_grow(v, &cap, 5, sizeof(*v), 4);
	cr_assert_not_null(v);
	cr_assert_eq(cap, 8);
	cr_assert_eq(v[3], 7);
	v = kube_array_grow(v, &cap, 33, sizeof(*v), 4);
	cr_assert_not_null(v);
	cr_assert_eq(cap, 64);
	/* a size past SIZE_MAX fails and leaves the array and its room alone */
	w = kube_array_grow(v, &cap, SIZE_MAX / 2, sizeof(*v), 4);
	cr_assert_null(w);
	cr_assert_eq(cap, 64);
	cr_assert_eq(v[3], 7);
	free(v);
	cap = 0;
	cr_assert_null(kube_array_grow(NULL, &cap, SIZE_MAX, 1, 0));
	cr_assert_eq(cap, 0);
}

Test(objects, time_parse)
{
	long long t = 42;

	cr_assert_eq(kube_time_parse("2024-05-01T10:00:00Z", '-', 'T', false, &t), 0);
	cr_assert_eq(t, 1714557600LL);
	cr_assert_eq(kube_time_parse("2024-05-01t10:00:00.123456789z", '-', 'T', false, &t), 0);
	cr_assert_eq(t, 1714557600LL, "the fraction is dropped");
	cr_assert_eq(kube_time_parse("2024-05-01 12:30:00+02:30", '-', 'T', false, &t), 0);
	cr_assert_eq(t, 1714557600LL);
	cr_assert_eq(kube_time_parse("2024-05-01T07:00:00-03:00", '-', 'T', false, &t), 0);
	cr_assert_eq(t, 1714557600LL);
	cr_assert_eq(kube_time_parse("1970-01-01T00:00:00Z", '-', 'T', false, &t), 0);
	cr_assert_eq(t, 0);
	/* other separators, and no zone where that is allowed */
	cr_assert_eq(kube_time_parse("2024.05.01 10:00:00", '.', ' ', true, &t), 0);
	cr_assert_eq(t, 1714557600LL);
	t = 42;
	cr_assert_eq(kube_time_parse("2024-05-01T10:00:00", '-', 'T', false, &t), -1, "a zone is needed");
	cr_assert_eq(kube_time_parse("2024-05-01T10:00:00Z", '.', ' ', true, &t), -1);
	cr_assert_eq(kube_time_parse("2024.05.01T10:00:00", '.', ' ', true, &t), -1);
	cr_assert_eq(kube_time_parse("2024-5-01T10:00:00Z", '-', 'T', false, &t), -1);
	cr_assert_eq(kube_time_parse("2024-13-01T10:00:00Z", '-', 'T', false, &t), -1);
	cr_assert_eq(kube_time_parse("2024-05-01T24:00:00Z", '-', 'T', false, &t), -1);
	cr_assert_eq(kube_time_parse("2024-05-01T10:00:00.Z", '-', 'T', false, &t), -1);
	cr_assert_eq(kube_time_parse("2024-05-01T10:00:00+2:00", '-', 'T', false, &t), -1);
	cr_assert_eq(kube_time_parse("2024-05-01T10:00:00Zjunk", '-', 'T', false, &t), -1);
	cr_assert_eq(kube_time_parse("", '-', 'T', true, &t), -1);
	cr_assert_eq(t, 42, "a failure leaves the result alone");
}

Test(objects, filter_match)
{
	static const char *const pats[] = {"ALIYUN_COM_GPU_MEM_*", "exact", "pre/*", "*x", NULL};
	static const char *const star[] = {"*", NULL};

	cr_assert(decode_filter_match(pats, "ALIYUN_COM_GPU_MEM_IDX", 22));
	cr_assert(decode_filter_match(pats, "ALIYUN_COM_GPU_MEM_", 19));
	cr_assert_not(decode_filter_match(pats, "ALIYUN_COM_GPU_MEM", 18));
	cr_assert(decode_filter_match(pats, "exact", 5));
	cr_assert_not(decode_filter_match(pats, "exactly", 7));
	cr_assert_not(decode_filter_match(pats, "exac", 4));
	/* keylen, not the terminator, bounds the key */
	cr_assert(decode_filter_match(pats, "exactly", 5));
	cr_assert(decode_filter_match(pats, "pre/a", 5));
	cr_assert_not(decode_filter_match(pats, "pre", 3));
	/* only a trailing star is special */
	cr_assert(decode_filter_match(pats, "*x", 2));
	cr_assert_not(decode_filter_match(pats, "ax", 2));
	cr_assert(decode_filter_match(star, "anything", 8));
	cr_assert(decode_filter_match(star, "", 0));
	cr_assert_not(decode_filter_match(NULL, "a", 1));
}

Test(objects, filter_union)
{
	static const char *const a_labels[] = {"a", "b*", NULL};
	static const char *const b_labels[] = {"c", NULL};
	static const char *const b_res[] = {"nvidia.com/gpu", NULL};
	const struct decode_filter a = {.label_keys = a_labels, .all_annotations = true};
	const struct decode_filter b = {.label_keys = b_labels, .resource_names = b_res};
	struct decode_filter u;

	cr_assert_eq(decode_filter_union(&u, &a, &b), 0);
	cr_assert(decode_filter_match(u.label_keys, "a", 1));
	cr_assert(decode_filter_match(u.label_keys, "bee", 3));
	cr_assert(decode_filter_match(u.label_keys, "c", 1));
	cr_assert_not(decode_filter_match(u.label_keys, "d", 1));
	cr_assert_null(u.annotation_keys);
	cr_assert(u.all_annotations);
	cr_assert_not(u.all_labels);
	cr_assert_not(u.all_resources);
	cr_assert(decode_filter_match(u.resource_names, "nvidia.com/gpu", 14));
	cr_assert_neq(u.resource_names, b_res); /* a copy of the array */
	decode_filter_release(&u);
	cr_assert_null(u.label_keys);
	decode_filter_release(&u);
	decode_filter_release(NULL);

	cr_assert_eq(decode_filter_union(&u, NULL, &b), 0);
	cr_assert(decode_filter_match(u.label_keys, "c", 1));
	decode_filter_release(&u);
}

Test(objects, free_is_null_safe_and_complete)
{
	struct k8s_node *n = calloc(1, sizeof(*n));
	struct k8s_pod *p = calloc(1, sizeof(*p));

	k8s_node_free(NULL);
	k8s_pod_free(NULL);
	n->name = strdup("n");
	n->internal_ip = strdup("10.0.0.1");
	kvlist_add(&n->capacity, "x", 1, "1", 1);
	k8s_node_free(n);
	p->name = strdup("p");
	p->containers = calloc(2, sizeof(*p->containers));
	p->ncontainers = 2;
	p->containers[1].name = strdup("c");
	kvlist_add(&p->containers[1].limits, "x", 1, "1", 1);
	p->owners = calloc(1, sizeof(*p->owners));
	p->nowners = 1;
	p->owners[0].kind = strdup("DaemonSet");
	k8s_pod_free(p);
}

Test(objects, taints_and_tolerations_copy)
{
	struct k8s_taint taints[] = { { "gpu", NULL, "NoSchedule" }, { "spot", "true", NULL } };
	struct k8s_toleration tols[] = { { NULL, "Exists", NULL, NULL }, { "gpu", "Equal", "a", "NoSchedule" } };
	struct k8s_taint *tc = (void *)1;
	struct k8s_toleration *oc = (void *)1;
	size_t ntc = 9, noc = 9;

	cr_assert_eq(k8s_taints_copy(&tc, &ntc, taints, 2), 0);
	cr_assert_eq(ntc, 2);
	cr_assert_neq(tc[0].key, taints[0].key);
	cr_assert_str_eq(tc[0].key, "gpu");
	cr_assert_null(tc[0].value);
	cr_assert_str_eq(tc[0].effect, "NoSchedule");
	cr_assert_str_eq(tc[1].value, "true");
	cr_assert_null(tc[1].effect);
	k8s_taints_free(tc, ntc);

	cr_assert_eq(k8s_tolerations_copy(&oc, &noc, tols, 2), 0);
	cr_assert_eq(noc, 2);
	cr_assert_null(oc[0].key);
	cr_assert_str_eq(oc[0].op, "Exists");
	cr_assert_str_eq(oc[1].value, "a");
	cr_assert_str_eq(oc[1].effect, "NoSchedule");
	k8s_tolerations_free(oc, noc);

	/* nothing to copy: NULL and 0, and the release takes them */
	cr_assert_eq(k8s_taints_copy(&tc, &ntc, NULL, 0), 0);
	cr_assert_null(tc);
	cr_assert_eq(ntc, 0);
	k8s_taints_free(tc, ntc);
	cr_assert_eq(k8s_tolerations_copy(&oc, &noc, NULL, 0), 0);
	cr_assert_null(oc);
	k8s_tolerations_free(NULL, 3);
}

Test(objects, strset_keeps_first_order_once)
{
	struct strset s = { 0 };

	cr_assert_eq(strset_add(&s, "b"), 1);
	cr_assert_eq(strset_add(&s, "a"), 1);
	cr_assert_eq(strset_add(&s, "b"), 0);
	cr_assert_eq(strset_add(&s, NULL), 0);
	for (int i = 0; i < 20; i++) {
		char w[8];

		snprintf(w, sizeof(w), "w%d", i % 10);
		cr_assert_eq(strset_add(&s, w), i < 10 ? 1 : 0);
	}
	cr_assert_eq(s.len, 12);
	cr_assert_str_eq(s.v[0], "b");
	cr_assert_str_eq(s.v[1], "a");
	cr_assert_str_eq(s.v[11], "w9");
	strset_release(&s);
	cr_assert_null(s.v);
	cr_assert_eq(s.len, 0);
}

/* A node term's matchFields name the node by metadata.name (In, NotIn);
 * with matchExpressions both must hold, and a term of fields alone
 * selects by name.  The copy keeps them. */
Test(objects, node_term_match_fields)
{
	char *names[] = { "n1", "n2" }, *gpu[] = { "true" };
	struct k8s_node_requirement in = { "metadata.name", "In", names, 2 };
	struct k8s_node_requirement not_in = { "metadata.name", "NotIn", names, 1 };
	struct k8s_node_requirement other = { "metadata.namespace", "In", names, 2 };
	struct k8s_node_requirement label = { "gpu", "In", gpu, 1 };
	struct k8s_node_term by_name = { .fields = &in, .nfields = 1 };
	struct k8s_node_term both = { .reqs = &label, .nreqs = 1, .fields = &not_in, .nfields = 1 };
	struct k8s_node_term unknown = { .fields = &other, .nfields = 1 };
	struct k8s_node_term empty = { 0 };
	struct k8s_node_term *c = NULL;
	struct kvlist labels = { 0 };
	size_t nc = 0;

	kvlist_add(&labels, "gpu", 3, "true", 4);
	cr_assert(k8s_node_term_match_node("n2", NULL, &by_name));
	cr_assert_not(k8s_node_term_match_node("n3", &labels, &by_name));
	cr_assert_not(k8s_node_term_match_node(NULL, &labels, &by_name));
	cr_assert(k8s_node_term_match_node("n2", &labels, &both));
	cr_assert_not(k8s_node_term_match_node("n1", &labels, &both));
	cr_assert_not(k8s_node_term_match_node("n2", NULL, &both));
	cr_assert_not(k8s_node_term_match_node("n1", &labels, &unknown));
	cr_assert_not(k8s_node_term_match_node("n1", &labels, &empty));
	/* the labels alone: fields are not read there */
	cr_assert_not(k8s_node_term_match(&labels, &by_name));

	cr_assert_eq(k8s_node_terms_copy(&c, &nc, &both, 1), 0);
	cr_assert_eq(nc, 1);
	cr_assert_eq(c[0].nfields, 1);
	cr_assert_neq(c[0].fields[0].key, not_in.key);
	cr_assert_str_eq(c[0].fields[0].op, "NotIn");
	cr_assert_eq(c[0].fields[0].nvalues, 1);
	cr_assert_str_eq(c[0].fields[0].values[0], "n1");
	cr_assert(k8s_node_term_match_node("n2", &labels, &c[0]));
	k8s_node_terms_free(c, nc);
	kvlist_release(&labels);
}

/* A kept slice's device arrays are cut to their lengths, their elements
 * and strings as they were. */
Test(objects, slice_shrink_cuts_device_arrays)
{
	struct k8s_resource_slice *s = calloc(1, sizeof(*s));
	struct k8s_dra_device *d;

	cr_assert_not_null(s);
	s->devices = calloc(16, sizeof(*s->devices));
	s->ndevices = 1;
	d = &s->devices[0];
	d->name = strdup("gpu-0");
	d->attrs = calloc(64, sizeof(*d->attrs));
	d->nattrs = 1;
	d->attrs[0].name = strdup("uuid");
	d->attrs[0].str = strdup("GPU-1");
	d->attrs[0].has_str = true;
	d->capacity = calloc(64, sizeof(*d->capacity));
	d->ncapacity = 1;
	d->capacity[0].name = strdup("memory");
	d->capacity[0].quantity = strdup("80Gi");
	k8s_resource_slice_shrink(s);
	d = &s->devices[0];
	cr_assert_lt(malloc_usable_size(s->devices), 2 * sizeof(*s->devices));
	cr_assert_lt(malloc_usable_size(d->attrs), 2 * sizeof(*d->attrs));
	cr_assert_lt(malloc_usable_size(d->capacity), 2 * sizeof(*d->capacity));
	cr_assert_str_eq(d->name, "gpu-0");
	cr_assert_str_eq(d->attrs[0].name, "uuid");
	cr_assert_str_eq(d->attrs[0].str, "GPU-1");
	cr_assert_str_eq(d->capacity[0].quantity, "80Gi");
	k8s_resource_slice_free(s);
}

/* A keeper of strings for the sharing tests: a fixed pool, or none. */
struct keeper {
	char pool[8][16];
	size_t n;
	bool fail_at_uuid;
};

static const char *keeper_keep(void *ud, const char *str)
{
	struct keeper *k = ud;

	if (k->fail_at_uuid && strcmp(str, "GPU-1") == 0)
		return NULL;
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(k->pool[i], str) == 0)
			return k->pool[i];
	if (k->n == 8)
		return NULL;
	snprintf(k->pool[k->n], sizeof(k->pool[k->n]), "%s", str);
	return k->pool[k->n++];
}

static struct k8s_resource_slice *two_devices(void)
{
	struct k8s_resource_slice *s = calloc(1, sizeof(*s));

	cr_assert_not_null(s);
	s->devices = calloc(2, sizeof(*s->devices));
	s->ndevices = 2;
	for (size_t i = 0; i < 2; i++) {
		struct k8s_dra_device *d = &s->devices[i];

		d->name = strdup(i ? "gpu-1" : "gpu-0");
		d->attrs = calloc(1, sizeof(*d->attrs));
		d->nattrs = 1;
		d->attrs[0].name = strdup("uuid");
		d->attrs[0].str = strdup(i ? "GPU-1" : "GPU-0");
		d->capacity = calloc(1, sizeof(*d->capacity));
		d->ncapacity = 1;
		d->capacity[0].name = strdup("memory");
		d->capacity[0].quantity = strdup("80Gi");
		d->node_name = strdup("node-1");
	}
	return s;
}

/* Sharing a slice's strings: the same string is the same pointer on every
 * device, the keeper's; freeing the slice leaves them (a pool on the
 * stack here, which free() would not survive). */
Test(objects, slice_share_keeps_strings_once)
{
	struct keeper k = {0};
	struct k8s_resource_slice *s = two_devices();

	cr_assert_eq(k8s_resource_slice_share(s, keeper_keep, &k), 0);
	cr_assert(s->shared_strings);
	cr_assert_eq(s->devices[0].capacity[0].quantity, s->devices[1].capacity[0].quantity);
	cr_assert_eq(s->devices[0].attrs[0].name, s->devices[1].attrs[0].name);
	cr_assert_eq((const char *)s->devices[0].attrs[0].name, (const char *)k.pool[1]);
	cr_assert_str_eq(s->devices[1].attrs[0].str, "GPU-1");
	cr_assert_str_eq(s->devices[1].name, "gpu-1");
	/* node_name is not among the strings shared: still the slice's own */
	cr_assert_str_eq(s->devices[1].node_name, "node-1");
	k8s_resource_slice_free(s);
}

/* A keeper that fails leaves every string the slice's own. */
Test(objects, slice_share_failing_leaves_slice)
{
	struct keeper k = {.fail_at_uuid = true};
	struct k8s_resource_slice *s = two_devices();
	char *name0 = s->devices[0].name;

	cr_assert_eq(k8s_resource_slice_share(s, keeper_keep, &k), -1);
	cr_assert(!s->shared_strings);
	cr_assert_eq(s->devices[0].name, name0);
	k8s_resource_slice_free(s);
}
