/* Claim lists and the HAMi family's device lists: see scheme_claims.h. */
#include "scheme_claims.h"

#include <stdlib.h>
#include <string.h>

int claim_list_add(struct claim_list *l, int container, int gpu, struct sspan device, int64_t mem, int64_t core)
{
	struct claim_tmp *v = kube_array_grow(l->v, &l->cap, l->n + 1, sizeof(*v), 8);

	if (!v)
		return -1;
	l->v = v;
	l->v[l->n++] = (struct claim_tmp){container, gpu, device, mem, core};
	return 0;
}

int claim_list_add_containers(struct claim_list *l, const struct scheme_pod *out, size_t ncontainers)
{
	for (size_t i = 0; i < ncontainers; i++)
		if ((out->container_mem[i] || out->container_core[i]) &&
		    claim_list_add(l, (int)i, -1, (struct sspan){NULL, 0}, out->container_mem[i], out->container_core[i]) < 0)
			return -1;
	return 0;
}

int claim_list_pack(struct claim_list *l, struct scheme_pod *out)
{
	struct scheme_claim *c;
	size_t names = 0;
	char *p;

	out->claims = NULL;
	out->nclaims = 0;
	if (l->n == 0)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		names += l->v[i].device.n ? l->v[i].device.n + 1 : 0;
	c = calloc(1, l->n * sizeof(*c) + names);
	if (!c)
		return -1;
	p = (char *)(c + l->n);
	for (size_t i = 0; i < l->n; i++) {
		c[i] = (struct scheme_claim){.container = l->v[i].container, .gpu = l->v[i].gpu,
					     .mem = l->v[i].mem, .core = l->v[i].core};
		if (!l->v[i].device.n)
			continue;
		memcpy(p, l->v[i].device.p, l->v[i].device.n);
		c[i].device_id = p;
		p += l->v[i].device.n + 1;
	}
	out->claims = c;
	out->nclaims = l->n;
	return 0;
}

void claim_list_release(struct claim_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

int claim_list_finish(struct claim_list *l, struct scheme_pod *out)
{
	int rc = claim_list_pack(l, out);

	claim_list_release(l);
	return rc;
}

/* The containers the value lists: a final ';' ends the last one rather than
 * starting another (HAMi ends every container with one, Volcano joins them
 * and is forgiven a final one). */
static size_t listed_containers(struct sspan v)
{
	size_t n = sspan_count(v, ';');

	return v.n && v.p[v.n - 1] == ';' ? n - 1 : n;
}

/* One "UUID,TYPE,mem,cores" entry: 0, or -1 when malformed. */
static int read_device(struct sspan dev, struct sspan *id, int64_t *mem, int64_t *core)
{
	struct sspan f[5], fld, d = sspan_trim(dev);
	int nf = 0;

	while (nf < 5 && sspan_split(&d, ',', &fld))
		f[nf++] = sspan_trim(fld);
	if (nf != 4 || d.p || !sspan_printable(f[0], false) || !sspan_printable(f[1], true) ||
	    sspan_int64(f[2], SCHEME_MAX_MIB, mem) < 0 || sspan_int64(f[3], SCHEME_MAX_COUNT, core) < 0)
		return -1;
	*id = f[0];
	return 0;
}

int scheme_parse_pod_devices(const char *value, size_t ncontainers, int64_t *per_mem,
			     int64_t *per_core, struct claim_list *claims, size_t *ncontainers_seen, int64_t *max_core)
{
	struct sspan rest = sspan_of(value), ctr;
	size_t ci = 0, nctr = listed_containers(rest);
	int bad = 0;

	*max_core = 0;
	*ncontainers_seen = nctr;
	while (ci < nctr && sspan_split(&rest, ';', &ctr)) {
		struct sspan dev, id;
		int64_t mem, core;

		while (sspan_split(&ctr, ':', &dev)) {
			if (sspan_trim(dev).n == 0)
				continue;
			if (read_device(dev, &id, &mem, &core) < 0) {
				bad++;
				continue;
			}
			if (claim_list_add(claims, ci < ncontainers ? (int)ci : -1, -1, id, mem, core) < 0)
				return -1;
			if (ci < ncontainers && per_mem)
				per_mem[ci] += mem;
			if (ci < ncontainers && per_core)
				per_core[ci] += core;
			if (core > *max_core)
				*max_core = core;
		}
		ci++;
	}
	return bad;
}

static int cmp_span(const void *a, const void *b)
{
	const struct sspan *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Sorted, so that an annotation of thousands of entries stays cheap. */
void scheme_check_vgpus_per_device(const struct claim_list *claims, const struct k8s_pod *pod, const char *key,
				   struct warnings *w)
{
	struct sspan *ids;
	size_t n = 0, run = 1;

	if (claims->n <= SCHEME_MAX_VGPUS_PER_GPU)
		return;
	ids = malloc(claims->n * sizeof(*ids));
	if (!ids)
		return;
	for (size_t i = 0; i < claims->n; i++)
		if (claims->v[i].device.n)
			ids[n++] = claims->v[i].device;
	if (n > 1)
		qsort(ids, n, sizeof(*ids), cmp_span);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && cmp_span(&ids[i], &ids[i - 1]) == 0) {
			run++;
			continue;
		}
		if (run > SCHEME_MAX_VGPUS_PER_GPU) {
			scheme_warn_pod(w, "TooManyVGPUs", pod, "annotation %s puts %zu vGPUs on one GPU (at most %d)",
					key, run, SCHEME_MAX_VGPUS_PER_GPU);
			break;
		}
		run = 1;
	}
	free(ids);
}
