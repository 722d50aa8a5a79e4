/* The live model: after any sequence of events, it equals the model built
 * from scratch (model_add_node, model_add_pod, model_finish) from the same
 * objects.  Random sequences with a fixed seed over small clusters made of
 * the fixture scenarios' nodes and pods (every scheme, pods by index and by
 * device, pending pods with selectors and affinity, MiB nodes) and pods
 * made here, changed, deleted, listed again after a 410. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgpu_testobj.h"
#include "model_live.h"
#include "scheme_dra.h"
#include "scheme_dra_changes.h"
#include "scheme_test_util.h"

#define MAXOBJ 256

/* The fixture objects every sequence draws from. */
static struct t_objs pool_nodes[8], pool_pods[8];
static size_t npool;
static struct model_options cur_opts;
/* What reading the objects beside nodes and pods said: a load puts it
 * after the finished model's warnings. */
static const struct warnings *cur_object_warnings;

/* The cluster as it is now: what the live model was told. */
struct world {
	const struct k8s_node *nodes[MAXOBJ];
	size_t nnodes;
	const struct k8s_pod *pods[MAXOBJ];
	size_t npods;
	/* objects made here, freed at the end of a sequence */
	struct k8s_node *made_nodes[4096];
	size_t nmade_nodes;
	struct k8s_pod *made_pods[4096];
	size_t nmade_pods;
	unsigned rv;
};

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
	/* xorshift64*: the same sequences on every machine */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned)((rng_state * 2685821657736338717ULL) >> 33) % n;
}

static const char *const scenarios[] = {"fit", "hami", "multi-gpu", "published-mib", "volcano-vgpu",
					"nvidia-timeslicing", "cce", NULL};

static void load_pool(void)
{
	struct model fm;
	struct model_options o = {.force_unit = -1, .scheduling = true, .owners = true};

	if (npool)
		return;
	cr_assert_eq(model_init(&fm, &o), 0);
	for (size_t i = 0; scenarios[i]; i++, npool++) {
		t_load_list(&pool_nodes[i], scenarios[i], "nodes.json", OBJ_NODE, model_node_filter(&fm));
		t_load_list(&pool_pods[i], scenarios[i], "pods.json", OBJ_POD, model_pod_filter(&fm));
	}
	model_release(&fm);
}

/* --- objects made here ------------------------------------------------------------- */

static char *rv_text(struct world *w)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", ++w->rv);
	return strdup(buf);
}

static void kv_copy(struct kvlist *dst, const struct kvlist *src, const char *skip)
{
	for (size_t i = 0; i < src->len; i++)
		if (!skip || strcmp(src->items[i].key, skip) != 0)
			tkv(dst, src->items[i].key, src->items[i].value);
}

/* A node changed: not ready, cordoned, twice the memory, or no longer
 * offering it (its scheme no longer reads it). */
static struct k8s_node *changed_node(struct world *w, const struct k8s_node *n)
{
	struct k8s_node *c = calloc(1, sizeof(*c));
	unsigned how = rnd(4);
	const char *mem = "aliyun.com/gpu-mem";

	c->name = strdup(n->name);
	c->uid = n->uid ? strdup(n->uid) : NULL;
	c->resource_version = rv_text(w);
	c->internal_ip = n->internal_ip ? strdup(n->internal_ip) : NULL;
	kv_copy(&c->labels, &n->labels, NULL);
	kv_copy(&c->annotations, &n->annotations, NULL);
	kv_copy(&c->capacity, &n->capacity, how >= 2 ? mem : NULL);
	kv_copy(&c->allocatable, &n->allocatable, how >= 2 ? mem : NULL);
	if (how == 2 && kvlist_get(&n->allocatable, mem)) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%lld", 2 * atoll(kvlist_get(&n->allocatable, mem)));
		tkv(&c->capacity, mem, buf);
		tkv(&c->allocatable, mem, buf);
	}
	c->ready = how == 0 ? !n->ready : n->ready;
	c->unschedulable = how == 1 ? !n->unschedulable : n->unschedulable;
	cr_assert_eq(k8s_taints_copy(&c->taints, &c->ntaints, n->taints, n->ntaints), 0);
	cr_assert_lt(w->nmade_nodes, 4096);
	w->made_nodes[w->nmade_nodes++] = c;
	return c;
}

/* The cGPU nodes of the pool, and one that never comes. */
static const char *const cgpu_nodes[] = {"share-a", "share-b", "cgpu-a", "share-cordoned", "share-notready",
					 "share-tainted", "gpu-2x", "gpu-4x", "gpu-8x", "gpu-zero", "master",
					 "node6", "ghost", NULL};

/* A cGPU pod of this name: on a random node or none, with or without a GPU
 * index (one beyond the node's GPUs at times), of some memory, sometimes a
 * compute share, sometimes finished; on no node sometimes pinned to a pool. */
static struct k8s_pod *made_pod(struct world *w, unsigned id)
{
	static const char *const idx[] = {"0", "1", "2", "3", "0", "1", "9", NULL};
	static const char *const mems[] = {"1", "2", "3", "4", "8", "2000", "5000", "12"};
	static const char *const phases[] = {"Running", "Running", "Running", "Pending", "Succeeded"};
	char name[32];
	const char *node = rnd(5) ? cgpu_nodes[rnd(13)] : NULL;
	struct k8s_pod *p;

	snprintf(name, sizeof(name), "made-%u", id);
	p = tpod(id % 3 ? "ns-a" : "ns-b", name, node, phases[rnd(5)], node ? idx[rnd(8)] : NULL, mems[rnd(8)],
		 rnd(4) ? NULL : "1", NULL);
	p->resource_version = rv_text(w);
	if (!rnd(4))
		tkv(&p->containers[0].limits, "aliyun.com/gpu-core.percentage", rnd(2) ? "30" : "50");
	if (!node && rnd(2))
		tkv(&p->node_selector, "alibabacloud.com/nodepool-id", rnd(2) ? "np-share" : "np-cgpu");
	cr_assert_lt(w->nmade_pods, 4096);
	w->made_pods[w->nmade_pods++] = p;
	return p;
}

/* --- the world and the live model, told the same --------------------------------------- */

static const char *pod_key(const struct k8s_pod *p)
{
	return p->uid;
}

static long world_pod(const struct world *w, const char *key)
{
	for (size_t i = 0; i < w->npods; i++)
		if (strcmp(pod_key(w->pods[i]), key) == 0)
			return (long)i;
	return -1;
}

static long world_node(const struct world *w, const char *name)
{
	for (size_t i = 0; i < w->nnodes; i++)
		if (strcmp(w->nodes[i]->name, name) == 0)
			return (long)i;
	return -1;
}

static void put_pod(struct world *w, struct model_live *l, const struct k8s_pod *p)
{
	struct kerr err = KERR_INIT;
	long i = world_pod(w, pod_key(p));

	if (i >= 0) {
		w->pods[i] = p;
	} else {
		cr_assert_lt(w->npods, MAXOBJ);
		w->pods[w->npods++] = p;
	}
	cr_assert_eq(model_live_put_pod(l, p, &err), 0);
}

static void del_pod(struct world *w, struct model_live *l, size_t i)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(model_live_delete_pod(l, w->pods[i], &err), 0);
	w->pods[i] = w->pods[--w->npods];
}

static void put_node(struct world *w, struct model_live *l, const struct k8s_node *n)
{
	struct kerr err = KERR_INIT;
	long i = world_node(w, n->name);

	if (i >= 0) {
		w->nodes[i] = n;
	} else {
		cr_assert_lt(w->nnodes, MAXOBJ);
		w->nodes[w->nnodes++] = n;
	}
	cr_assert_eq(model_live_put_node(l, n, &err), 0);
}

static void del_node(struct world *w, struct model_live *l, size_t i)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(model_live_delete_node(l, w->nodes[i], &err), 0);
	w->nodes[i] = w->nodes[--w->nnodes];
}

static const struct k8s_pod *random_pool_pod(void)
{
	size_t s = rnd((unsigned)npool);

	return pool_pods[s].npods ? pool_pods[s].pods[rnd((unsigned)pool_pods[s].npods)] : NULL;
}

static const struct k8s_node *random_pool_node(void)
{
	size_t s = rnd((unsigned)npool);

	return pool_nodes[s].nodes[rnd((unsigned)pool_nodes[s].nnodes)];
}

/* A list after 410 Expired: most objects as they are, some changed, some
 * gone (not delivered), a few new. */
static void relist(struct world *w, struct model_live *l, enum obj_kind kind)
{
	struct kerr err = KERR_INIT;

	model_live_list_begin(l, kind);
	if (kind == OBJ_POD) {
		for (size_t i = 0; i < w->npods;) {
			unsigned what = rnd(10);

			if (what == 0) {
				w->pods[i] = w->pods[--w->npods]; /* deleted while no watch ran */
				continue;
			}
			if (what == 1 && strncmp(w->pods[i]->name, "made-", 5) == 0)
				w->pods[i] = made_pod(w, (unsigned)atoi(w->pods[i]->name + 5));
			cr_assert_eq(model_live_put_pod(l, w->pods[i], &err), 0);
			i++;
		}
		for (unsigned k = rnd(3); k; k--)
			put_pod(w, l, made_pod(w, 1000 + rnd(60)));
	} else {
		for (size_t i = 0; i < w->nnodes;) {
			unsigned what = rnd(8);

			if (what == 0) {
				w->nodes[i] = w->nodes[--w->nnodes];
				continue;
			}
			if (what == 1)
				w->nodes[i] = changed_node(w, w->nodes[i]);
			cr_assert_eq(model_live_put_node(l, w->nodes[i], &err), 0);
			i++;
		}
	}
	cr_assert_eq(model_live_list_end(l, kind, &err), 0);
}

static void random_event(struct world *w, struct model_live *l)
{
	unsigned what = rnd(100);
	const struct k8s_pod *pp;

	if (what < 35) {
		put_pod(w, l, made_pod(w, rnd(40)));
	} else if (what < 50) {
		if ((pp = random_pool_pod()))
			put_pod(w, l, pp);
	} else if (what < 65) {
		if (w->npods)
			del_pod(w, l, rnd((unsigned)w->npods));
	} else if (what < 77) {
		put_node(w, l, random_pool_node());
	} else if (what < 85) {
		if (w->nnodes)
			put_node(w, l, changed_node(w, w->nodes[rnd((unsigned)w->nnodes)]));
	} else if (what < 91) {
		if (w->nnodes)
			del_node(w, l, rnd((unsigned)w->nnodes));
	} else if (what < 97) {
		relist(w, l, OBJ_POD);
	} else {
		relist(w, l, OBJ_NODE);
	}
}

/* --- the comparison ------------------------------------------------------------------- */

static void dump_pod(FILE *f, const struct model_pod *p)
{
	fprintf(f, "  pod %s/%s uid=%s phase=%s node=%s scheme=%s mem=%lld core=%lld unit=%d assigned=%d\n",
		p->namespace, p->name, p->uid ? p->uid : "-", p->phase ? p->phase : "-", p->node ? p->node : "-",
		p->scheme ? p->scheme->name : "-", (long long)p->mem, (long long)p->core, p->unit, p->assigned);
	for (size_t g = 0; g < p->ngpus; g++)
		fprintf(f, "    gpu %d dev=%s mem=%lld core=%lld\n", p->gpus[g].gpu,
			p->gpus[g].device_id ? p->gpus[g].device_id : "-", (long long)p->gpus[g].mem,
			(long long)p->gpus[g].core);
	fprintf(f, "    ask %lld/%lld/%d sel=%zu tol=%zu terms=%zu why=%s\n", (long long)p->ask.mem,
		(long long)p->ask.core, p->ask.gpus, p->node_selector.len, p->ntolerations, p->nnode_terms,
		p->pending_reason ? p->pending_reason : "-");
}

static void dump_totals(FILE *f, const char *what, const struct model_totals *t)
{
	fprintf(f, "%s unit=%d mixed=%d mem=%lld/%lld pending=%lld unassigned=%lld core=%lld/%lld nodes=%zu gpus=%zu "
		   "pods=%zu unscheduled=%zu unhealthy=%lld\n",
		what, t->unit, t->mixed_units, (long long)t->mem_allocated, (long long)t->mem_total,
		(long long)t->mem_pending, (long long)t->mem_unassigned, (long long)t->core_allocated,
		(long long)t->core_total, t->nodes, t->gpus, t->pods, t->unscheduled, (long long)t->mem_unhealthy);
}

static void dump_node(FILE *f, const struct model *m, const struct model_node *n)
{
	fprintf(f, "node %s ip=%s scheme=%s unit=%d mem=%lld/%lld pending=%lld unhealthy=%lld core=%lld/%lld pool=%s "
		   "model=%s ready=%d cordoned=%d held=%zu status=%s sched=%d largest=%lld labels=%zu taints=%zu "
		   "common=%lld stranded=%lld\n",
		n->name, n->ip, n->scheme->name, n->unit, (long long)n->mem_allocated, (long long)n->mem_total,
		(long long)n->mem_pending, (long long)n->mem_unhealthy, (long long)n->core_allocated,
		(long long)n->core_total, n->pool ? n->pool : "-", n->gpu_model ? n->gpu_model : "-", n->ready,
		n->unschedulable, n->pods_held, n->status, n->schedulable, (long long)n->largest_free, n->labels.len,
		n->ntaints, (long long)n->common_request, (long long)n->stranded);
	for (int g = 0; g < n->ngpus; g++) {
		const struct model_gpu *x = &n->gpus[g];

		fprintf(f, "  gpu %d id=%s mem=%lld/%lld core=%lld/%lld slots=%lld pods=%zu bad=%d/%d\n", x->index,
			x->id ? x->id : "-", (long long)x->mem_allocated, (long long)x->mem_total,
			(long long)x->core_allocated, (long long)x->core_total, (long long)x->slots, x->npods,
			x->unhealthy, x->cordoned);
	}
	for (size_t i = 0; i < n->npods; i++)
		dump_pod(f, &m->pods[n->pods[i]]);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Warnings as a sorted set of lines: among warnings of one object and code
 * the order is that of arrival, which a model built again cannot know. */
static void dump_warnings(FILE *f, const struct warnings *w)
{
	char **lines = calloc(w->len + 1, sizeof(*lines));

	for (size_t i = 0; i < w->len; i++)
		cr_assert_neq(asprintf(&lines[i], "warning %s %s %s\n", w->items[i].code,
				       w->items[i].object ? w->items[i].object : "-", w->items[i].message), -1);
	qsort(lines, w->len, sizeof(*lines), cmp_strp);
	for (size_t i = 0; i < w->len; i++) {
		fputs(lines[i], f);
		free(lines[i]);
	}
	free(lines);
}

static char *dump(const struct model *m)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	dump_totals(f, "cluster", &m->totals);
	for (int u = 0; u <= UNIT_SLOTS; u++) {
		dump_totals(f, "unit", &m->units[u].totals);
		fprintf(f, "  max_gpus=%d pending=%d core=%d\n", m->units[u].max_gpus, m->units[u].any_pending,
			m->units[u].any_core);
	}
	for (int u = 0; u < UNIT_SLOTS; u++)
		fprintf(f, "frag %d largest=%lld gpus=%zu unsched=%lld/%zu stranded=%lld\n", u, (long long)m->frag[u].largest,
			m->frag[u].gpus, (long long)m->frag[u].free_unschedulable, m->frag[u].unschedulable_nodes,
			(long long)m->frag[u].stranded);
	fprintf(f, "max_gpus=%d pending=%d core=%d rounded=%d nnodes=%zu\n", m->max_gpus, m->any_pending, m->any_core,
		m->rounded, m->nnodes);
	for (size_t i = 0; i < m->nnodes; i++)
		dump_node(f, m, &m->nodes[i]);
	fprintf(f, "unscheduled %zu\n", m->nunscheduled);
	for (size_t i = 0; i < m->nunscheduled; i++)
		dump_pod(f, &m->pods[m->unscheduled[i]]);
	fprintf(f, "waiting %zu\n", m->nwaiting);
	for (size_t i = 0; i < m->nwaiting; i++)
		fprintf(f, "  %s/%s\n", m->pods[m->waiting[i]].namespace, m->pods[m->waiting[i]].name);
	dump_warnings(f, &m->warnings);
	fclose(f);
	return s;
}

/* The model a finish builds from the world's objects. */
static char *dump_scratch(const struct world *w)
{
	struct model m;
	struct kerr err = KERR_INIT;
	char *s;

	cr_assert_eq(model_init(&m, &cur_opts), 0);
	for (size_t i = 0; i < w->nnodes; i++)
		cr_assert_eq(model_add_node(&m, (struct k8s_node *)w->nodes[i], &err), 0);
	for (size_t i = 0; i < w->npods; i++)
		cr_assert_eq(model_add_pod(&m, (struct k8s_pod *)w->pods[i], &err), 0);
	cr_assert_eq(model_finish(&m, &err), 0);
	for (size_t i = 0; cur_object_warnings && i < cur_object_warnings->len; i++)
		warnings_add(&m.warnings, cur_object_warnings->items[i].code, cur_object_warnings->items[i].object, "%s",
			     cur_object_warnings->items[i].message);
	s = dump(&m);
	model_release(&m);
	return s;
}

/* The first line where the two differ, with the line before it. */
static void assert_same(const char *live, const char *scratch, unsigned seq, unsigned step)
{
	const char *a = live, *b = scratch, *line = live;

	while (*a && *a == *b) {
		if (*a == '\n')
			line = a + 1;
		a++;
		b++;
	}
	if (!*a && !*b)
		return;
	if (getenv("MODEL_LIVE_DUMP")) {
		FILE *f = fopen("/tmp/live.txt", "w");
		fputs(live, f);
		fclose(f);
		f = fopen("/tmp/scratch.txt", "w");
		fputs(scratch, f);
		fclose(f);
	}
	cr_assert_fail("sequence %u, step %u: the live model differs from one built again at\n%.400s\n"
		       "---- built again:\n%.400s",
		       seq, step, line, scratch + (line - live));
}

static void run_sequences(const struct model_options *o, unsigned nseq, unsigned nsteps, uint64_t seed)
{
	load_pool();
	cur_opts = *o;
	cur_opts.no_containers = true;
	cur_object_warnings = NULL;
	rng_state = seed;
	for (unsigned seq = 0; seq < nseq; seq++) {
		struct world *w = calloc(1, sizeof(*w));
		struct model_live l;
		struct kerr err = KERR_INIT;

		cr_assert_eq(model_live_init(&l, o), 0);
		for (unsigned step = 0; step < nsteps; step++) {
			for (unsigned k = 1 + rnd(4); k; k--)
				random_event(w, &l);
			cr_assert_eq(model_live_settle(&l, &err), 0);
			cr_assert_not(model_live_pending(&l));
			char *live = dump(&l.m), *scratch = dump_scratch(w);

			assert_same(live, scratch, seq, step);
			free(live);
			free(scratch);
		}
		model_live_release(&l);
		for (size_t i = 0; i < w->nmade_nodes; i++)
			k8s_node_free(w->made_nodes[i]);
		for (size_t i = 0; i < w->nmade_pods; i++)
			k8s_pod_free(w->made_pods[i]);
		free(w);
	}
}

Test(model_live, equals_a_model_built_again)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true, .scheduling = true};

	run_sequences(&o, 60, 30, 0x5eed1234ULL);
}

Test(model_live, equals_a_model_built_again_in_one_unit_and_namespace)
{
	struct model_options o = {.force_unit = UNIT_GIB, .keep_pods = true, .scheduling = true,
				  .pod_namespace = "ns-a"};

	run_sequences(&o, 30, 30, 0xfeedbeefULL);
}

Test(model_live, equals_a_model_built_again_keeping_no_pods)
{
	struct model_options o = {.force_unit = UNIT_MIB, .scheme = "cgpu"};

	run_sequences(&o, 30, 30, 0xc0ffeeULL);
}

/* --- Dynamic Resource Allocation: objects beside nodes and pods ---------------------- */

/* The DRA cluster as it is now: each claim of the scenario on the device
 * its first result names (or gone), each slice there or not. */
struct dra_world {
	const char *scenario;
	char *device[16]; /* per claim of the file, NULL: as the file says */
	unsigned version[16];
	bool claim_gone[16], slice_gone[16];
	char *devices[64]; /* every device name of the scenario's slices */
	size_t ndevices;
};

/* What a list of a DRA kind delivered, before an inventory takes it. */
struct dra_objs {
	struct k8s_resource_slice *slices[16];
	struct k8s_resource_claim *claims[16];
	struct k8s_device_class *classes[16];
	size_t nslices, nclaims, nclasses;
};

static int dra_take_slice(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	struct dra_objs *o = ud;

	(void)err;
	cr_assert_lt(o->nslices, 16);
	o->slices[o->nslices++] = s;
	return 0;
}

static int dra_take_claim(void *ud, struct k8s_resource_claim *c, struct kerr *err)
{
	struct dra_objs *o = ud;

	(void)err;
	cr_assert_lt(o->nclaims, 16);
	o->claims[o->nclaims++] = c;
	return 0;
}

static int dra_take_class(void *ud, struct k8s_device_class *c, struct kerr *err)
{
	struct dra_objs *o = ud;

	(void)err;
	cr_assert_lt(o->nclasses, 16);
	o->classes[o->nclasses++] = c;
	return 0;
}

static void dra_load_list(struct dra_objs *o, const char *scenario, const char *file, enum obj_kind kind)
{
	const struct decode_filter *filter = kind == OBJ_RESOURCE_SLICE ? &dra_slice_fields : &dra_claim_fields;
	struct decode_sink sink = {.resource_slice = dra_take_slice, .resource_claim = dra_take_claim,
				   .device_class = dra_take_class, .ud = o};
	struct kerr err = KERR_INIT;
	struct list_decoder *d = list_decoder_new(kind, filter, &sink);
	char path[1024];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/scenarios/%s/%s", FIXTURES_DIR, scenario, file);
	buf = t_read_file(path, &len);
	cr_assert_eq(list_decoder_feed(d, buf, len, &err), 0, "%s", err.message);
	cr_assert_eq(list_decoder_finish(d, &err), 0, "%s", err.message);
	list_decoder_free(d);
	free(buf);
}

static void set_string(char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
}

/* The inventory a relist would bring now: the files, as the world changed them. */
static struct dra_inventory *dra_build(const struct dra_world *dw, struct warnings *w)
{
	struct dra_inventory *inv = calloc(1, sizeof(*inv));
	struct dra_objs all = {0};

	dra_load_list(&all, dw->scenario, "resourceslices.json", OBJ_RESOURCE_SLICE);
	dra_load_list(&all, dw->scenario, "resourceclaims.json", OBJ_RESOURCE_CLAIM);
	dra_load_list(&all, dw->scenario, "deviceclasses.json", OBJ_DEVICE_CLASS);
	for (size_t i = 0; i < all.nclasses; i++)
		cr_assert_eq(dra_inventory_add_class(inv, all.classes[i]), 0);
	for (size_t i = 0; i < all.nslices; i++) {
		if (dw->slice_gone[i])
			k8s_resource_slice_free(all.slices[i]);
		else
			cr_assert_eq(dra_inventory_add_slice(inv, all.slices[i]), 0);
	}
	for (size_t i = 0; i < all.nclaims; i++) {
		struct k8s_resource_claim *c = all.claims[i];
		char rv[32];

		if (dw->claim_gone[i]) {
			k8s_resource_claim_free(c);
			continue;
		}
		if (dw->device[i] && c->nresults)
			set_string(&c->results[0].device, dw->device[i]);
		snprintf(rv, sizeof(rv), "%s.%u", c->resource_version ? c->resource_version : "-", dw->version[i]);
		set_string(&c->resource_version, rv);
		cr_assert_eq(dra_inventory_add_claim(inv, c), 0);
	}
	cr_assert_eq(dra_inventory_finish(inv, w), 0);
	return inv;
}

/* A claim moved to another device (of any pool: one the claim's pool may
 * lack is a device not found), gone or back, or a slice gone or back. */
static void dra_change(struct dra_world *dw, const struct dra_inventory *inv)
{
	unsigned what = rnd(10), i = rnd(16);

	if (what < 6 && inv->nclaims) {
		i %= 16;
		set_string(&dw->device[i], dw->devices[rnd((unsigned)dw->ndevices)]);
		dw->version[i]++;
	} else if (what < 8) {
		dw->claim_gone[i] = !dw->claim_gone[i];
		dw->version[i]++;
	} else {
		dw->slice_gone[i % 4] = !dw->slice_gone[i % 4];
	}
}

/* Every object of the world delivered again as it is (a relist). */
static void relist_same(struct world *w, struct model_live *l, enum obj_kind kind)
{
	struct kerr err = KERR_INIT;

	model_live_list_begin(l, kind);
	for (size_t i = 0; kind == OBJ_NODE && i < w->nnodes; i++)
		cr_assert_eq(model_live_put_node(l, w->nodes[i], &err), 0);
	for (size_t i = 0; kind == OBJ_POD && i < w->npods; i++)
		cr_assert_eq(model_live_put_pod(l, w->pods[i], &err), 0);
	cr_assert_eq(model_live_list_end(l, kind, &err), 0);
}

/* The DRA objects relisted after a change: the live model told which
 * nodes it touches, nodes and pods listed again as they are. */
static void dra_relist(struct dra_world *dw, struct world *w, struct model_live *l, struct scheme_objects *objs,
		       struct warnings *ow)
{
	struct warnings nw = {0};
	struct dra_inventory *old = (struct dra_inventory *)objs->dra, *inv;
	struct dra_changes ch;

	dra_change(dw, old);
	inv = dra_build(dw, &nw);
	cr_assert_eq(dra_changes_find(old, inv, &ch), 0);
	objs->dra = inv;
	dra_inventory_release(old);
	free(old);
	warnings_release(ow);
	*ow = nw;
	model_live_set_object_warnings(l, ow);
	if (ch.all)
		model_live_forget_node(l, NULL);
	for (size_t i = 0; !ch.all && i < ch.n; i++)
		model_live_forget_node(l, ch.nodes[i]);
	dra_changes_release(&ch);
	relist_same(w, l, OBJ_NODE);
	relist_same(w, l, OBJ_POD);
}

static void dra_world_init(struct dra_world *dw, const char *scenario, const struct dra_inventory *inv)
{
	memset(dw, 0, sizeof(*dw));
	dw->scenario = scenario;
	for (size_t i = 0; i < inv->nslices; i++)
		for (size_t j = 0; j < inv->slices[i]->ndevices && dw->ndevices < 64; j++)
			dw->devices[dw->ndevices++] = strdup(inv->slices[i]->devices[j].name);
	cr_assert_gt(dw->ndevices, 0);
}

static void dra_world_release(struct dra_world *dw)
{
	for (size_t i = 0; i < 16; i++)
		free(dw->device[i]);
	for (size_t i = 0; i < dw->ndevices; i++)
		free(dw->devices[i]);
}

static void run_dra_sequence(const char *scenario, const struct t_objs *nodes, const struct t_objs *pods,
			     unsigned nsteps, unsigned seq)
{
	struct world *w = calloc(1, sizeof(*w));
	struct scheme_objects objs = {0};
	struct warnings ow = {0};
	struct model_options o = cur_opts;
	struct dra_world dw;
	struct model_live l;
	struct kerr err = KERR_INIT;

	dw.scenario = scenario;
	memset(dw.slice_gone, 0, sizeof(dw.slice_gone));
	memset(dw.claim_gone, 0, sizeof(dw.claim_gone));
	objs.dra = dra_build(&(struct dra_world){.scenario = scenario}, &ow);
	dra_world_init(&dw, scenario, objs.dra);
	o.objects = cur_opts.objects = &objs;
	cur_object_warnings = &ow;
	cr_assert_eq(model_live_init(&l, &o), 0);
	model_live_set_object_warnings(&l, &ow);
	for (size_t i = 0; i < nodes->nnodes; i++)
		put_node(w, &l, nodes->nodes[i]);
	for (size_t i = 0; i < pods->npods; i++)
		put_pod(w, &l, pods->pods[i]);
	for (unsigned step = 0; step < nsteps; step++) {
		for (unsigned k = 1 + rnd(3); k; k--) {
			unsigned what = rnd(6);

			if (what == 0 && w->npods)
				del_pod(w, &l, rnd((unsigned)w->npods));
			else if (what == 1)
				put_pod(w, &l, pods->pods[rnd((unsigned)pods->npods)]);
			else
				dra_relist(&dw, w, &l, &objs, &ow);
		}
		cr_assert_eq(model_live_settle(&l, &err), 0);
		char *live = dump(&l.m), *scratch = dump_scratch(w);

		assert_same(live, scratch, seq, step);
		free(live);
		free(scratch);
	}
	model_live_release(&l);
	dra_inventory_release((struct dra_inventory *)objs.dra);
	free((void *)objs.dra);
	warnings_release(&ow);
	dra_world_release(&dw);
	cur_object_warnings = NULL;
	free(w);
}

/* Claims that move between devices, go and come back, slices that go and
 * come back, pods that go and come back: after each, the live model told
 * which nodes the change touches and listed again equals a model built
 * from the same objects. */
static void run_dra_sequences(const char *scenario, unsigned nseq, unsigned nsteps, uint64_t seed)
{
	struct model_options o = {.force_unit = -1, .keep_pods = true, .scheduling = true};
	struct t_objs nodes = {0}, pods = {0};
	struct model fm;

	cr_assert_eq(model_init(&fm, &o), 0);
	t_load_list(&nodes, scenario, "nodes.json", OBJ_NODE, model_node_filter(&fm));
	t_load_list(&pods, scenario, "pods.json", OBJ_POD, model_pod_filter(&fm));
	model_release(&fm);
	cr_assert_gt(pods.npods, 0);
	cur_opts = o;
	cur_opts.no_containers = true;
	rng_state = seed;
	for (unsigned seq = 0; seq < nseq; seq++)
		run_dra_sequence(scenario, &nodes, &pods, nsteps, seq);
	for (size_t i = 0; i < nodes.nnodes; i++)
		k8s_node_free(nodes.nodes[i]);
	for (size_t i = 0; i < pods.npods; i++)
		k8s_pod_free(pods.pods[i]);
}

Test(model_live, dra_changes_equal_a_model_built_again)
{
	static const char *const dra_scenarios[] = {"dra-whole", "dra-timeslicing", "dra-consumable", "dra-mig",
						    "dra-incomplete", "dra-leaked", "dra-pending", "dra-mixed", NULL};

	for (size_t i = 0; dra_scenarios[i]; i++)
		run_dra_sequences(dra_scenarios[i], 8, 20, 0xd7a0000ULL + i);
}

Test(model_live, dra_changes_touch_only_their_nodes)
{
	/* dra-whole: the claim of ml/train-1 moved from gpu-1 to gpu-2 of
	 * dra-a100-1 touches that node alone */
	struct dra_world dw = {.scenario = "dra-whole"};
	struct warnings w = {0};
	struct dra_inventory *a = dra_build(&dw, &w), *b;
	struct dra_changes ch;
	size_t k;

	for (k = 0; k < a->nclaims && strncmp(a->claims[k]->name, "train-1-", 8) != 0; k++)
		;
	cr_assert_lt(k, a->nclaims);
	dw.device[1] = strdup("gpu-2");
	dw.version[1] = 1;
	b = dra_build(&dw, &w);
	cr_assert_eq(dra_changes_find(a, b, &ch), 0);
	cr_assert_not(ch.all);
	cr_assert_eq(ch.n, 1);
	cr_assert_str_eq(ch.nodes[0], "dra-a100-1");
	dra_changes_release(&ch);
	cr_assert_eq(dra_changes_find(b, b, &ch), 0);
	cr_assert(dra_changes_none(&ch));
	cr_assert_eq(dra_changes_find(NULL, b, &ch), 0);
	cr_assert(ch.all);
	dra_changes_release(&ch);
	free(dw.device[1]);
	dra_inventory_release(a);
	dra_inventory_release(b);
	free(a);
	free(b);
	warnings_release(&w);
}
