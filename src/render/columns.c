/* The node columns: each one's header, cells, report value, order and
 * place in the live view, in one table. */
#include "columns.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usage.h"

#define NONE "<none>"

long long column_percent(int64_t part, int64_t total)
{
	if (total <= 0 || part <= 0)
		return 0;
	return (long long)(part * 100 / total);
}

const char *column_use_text(char buf[32], int64_t part, int64_t total, bool brief)
{
	/* nothing offered yet something allocated: not 0% but over-allocated */
	if (total <= 0 && part > 0)
		return strcpy(buf, brief ? "over" : "over-allocated");
	snprintf(buf, 32, "%lld%%", column_percent(part, total));
	return buf;
}

enum column_tone column_level(int64_t allocated, int64_t total)
{
	if (total <= 0)
		return allocated > 0 ? TONE_HIGH : TONE_DIM;
	/* compare allocated/total with 1/2 and 9/10 without dividing */
	if (allocated * 2 < total)
		return TONE_LOW;
	if (allocated * 10 < total * 9)
		return TONE_MID;
	return TONE_HIGH;
}

const char *column_mode_name(const struct model_node *n)
{
	return n->info.mode_word ? n->info.mode_word : n->info.mode;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* --- table cells ------------------------------------------------------------ */

static char *text_or_none(const char *s)
{
	return strdup(s && *s ? s : NONE);
}

static char *cell_name(const struct model *m, const struct model_node *n, int gpu)
{
	return strdup(n->name);
}

static char *cell_ip(const struct model *m, const struct model_node *n, int gpu)
{
	return strdup(n->ip);
}

static char *cell_gpu(const struct model *m, const struct model_node *n, int gpu)
{
	/* no per-GPU figures where the scheme does not publish the placement */
	if (!n->info.per_gpu)
		return strdup("-");
	if (gpu < 0 || gpu >= n->ngpus)
		return strdup("0/0");
	return fmt("%lld/%lld", (long long)n->gpus[gpu].mem_allocated, (long long)n->gpus[gpu].mem_total);
}

static char *cell_pending(const struct model *m, const struct model_node *n, int gpu)
{
	/* empty, not 0, where nothing is pending: as the original table */
	if (!n->mem_pending)
		return strdup("");
	return fmt("%lld", (long long)n->mem_pending);
}

static char *cell_memory(const struct model *m, const struct model_node *n, int gpu)
{
	/* nodes that count whole GPUs or replicas say so rather than pass as
	 * memory, unless the whole table counts slots */
	if (n->unit == UNIT_SLOTS && m->totals.unit != UNIT_SLOTS)
		return fmt("%lld/%lld slots", (long long)n->mem_allocated, (long long)n->mem_total);
	return fmt("%lld/%lld", (long long)n->mem_allocated, (long long)n->mem_total);
}

/* Memory in use on the node's GPUs, in the node's unit; ">=" when some of
 * its GPUs are not reported. */
static char *cell_used(const struct model *m, const struct model_node *n, int gpu)
{
	char b[32];

	if (!n->gpus_used_known)
		return strdup("unknown");
	usage_format(b, sizeof(b), n->used_bytes, n->unit == UNIT_SLOTS ? UNIT_GIB : n->unit);
	return fmt("%s%s", n->gpus_used_known < n->ngpus ? ">=" : "", b);
}

/* How the node's GPUs are shared: one word for all where they agree, else
 * per GPU; "-" for a GPU that says nothing. */
static char *cell_sharing(const struct model *m, const struct model_node *n, int gpu)
{
	const struct scheme_gpu *g = n->info.gpus;
	char *s = NULL, *t;
	bool same = true;

	for (int i = 1; g && i < n->info.ngpus; i++)
		same &= strcmp(g[i].sharing ? g[i].sharing : "-", g[0].sharing ? g[0].sharing : "-") == 0;
	if (!g || n->info.ngpus < 1 || same)
		return strdup(g && n->info.ngpus > 0 && g[0].sharing ? g[0].sharing : "-");
	for (int i = 0; i < n->info.ngpus; i++, s = t) {
		t = fmt("%s%sGPU%d %s", s ? s : "", s ? "; " : "", i, g[i].sharing ? g[i].sharing : "-");
		free(s);
		if (!t)
			return NULL;
	}
	return s;
}

static char *cell_core(const struct model *m, const struct model_node *n, int gpu)
{
	return fmt("%lld/%lld", (long long)n->core_allocated, (long long)n->core_total);
}

static char *cell_model(const struct model *m, const struct model_node *n, int gpu)
{
	return text_or_none(n->gpu_model);
}

static char *cell_card_mem(const struct model *m, const struct model_node *n, int gpu)
{
	if (n->card_mem_mib <= 0)
		return strdup(NONE);
	return fmt("%lld", (long long)n->card_mem_mib);
}

static char *cell_mode(const struct model *m, const struct model_node *n, int gpu)
{
	return text_or_none(column_mode_name(n));
}

static char *cell_isolation(const struct model *m, const struct model_node *n, int gpu)
{
	return strdup(n->info.isolation ? "on" : "off");
}

static char *cell_placement(const struct model *m, const struct model_node *n, int gpu)
{
	return text_or_none(n->info.placement);
}

static char *cell_pool(const struct model *m, const struct model_node *n, int gpu)
{
	return text_or_none(n->pool);
}

static char *cell_unhealthy(const struct model *m, const struct model_node *n, int gpu)
{
	return fmt("%lld", (long long)n->mem_unhealthy);
}

static char *cell_status(const struct model *m, const struct model_node *n, int gpu)
{
	return strdup(n->status);
}

static char *cell_largest(const struct model *m, const struct model_node *n, int gpu)
{
	return n->largest_free < 0 ? strdup("-") : fmt("%lld", (long long)n->largest_free);
}

/* "-" where no pod of its pool asks for memory: nothing to measure by */
static char *cell_stranded(const struct model *m, const struct model_node *n, int gpu)
{
	return n->common_request > 0 ? fmt("%lld", (long long)n->stranded) : strdup("-");
}

/* --- report values ---------------------------------------------------------- */

static json_t *value_name(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_string(n->name);
}

static json_t *value_ip(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_string(n->ip);
}

static json_t *value_scheme(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_string(n->scheme->name);
}

static json_t *value_mode(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_str_or_null(n->info.mode);
}

static json_t *value_isolation(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_boolean(n->info.isolation);
}

static json_t *value_placement(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_str_or_null(n->info.placement);
}

static json_t *value_pool(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_str_or_null(n->pool);
}

static json_t *value_model(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_str_or_null(n->gpu_model);
}

static json_t *value_card_mem(struct doc *d, const struct model *m, const struct model_node *n)
{
	return n->card_mem_mib > 0 ? doc_num(n->card_mem_mib) : json_null();
}

static json_t *value_unit(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_string(mem_unit_name(n->unit));
}

static json_t *value_unit_source(struct doc *d, const struct model *m, const struct model_node *n)
{
	if ((m->opts.force_unit == UNIT_GIB || m->opts.force_unit == UNIT_MIB) && n->unit != UNIT_SLOTS)
		return json_string("forced");
	if (n->unit != n->info.unit)
		return json_string("converted");
	return json_string(n->info.unit_from_label ? "label" : "guess");
}

static json_t *value_labels(struct doc *d, const struct model *m, const struct model_node *n)
{
	json_t *o = json_object();

	for (size_t i = 0; i < n->labels.len; i++)
		doc_set(d, o, n->labels.items[i].key, json_string(n->labels.items[i].value));
	return o;
}

/* The memory object: the free, pending and unhealthy columns go in it. */
static json_t *value_memory(struct doc *d, const struct model *m, const struct model_node *n)
{
	json_t *o = json_object();

	doc_set(d, o, "unit", json_string(mem_unit_name(n->unit)));
	doc_set(d, o, "total", doc_num(n->mem_total));
	doc_set(d, o, "allocated", doc_num(n->mem_allocated));
	return o;
}

static json_t *value_free(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_num(model_node_free(n));
}

static json_t *value_pending(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_num(n->mem_pending);
}

static json_t *value_unhealthy(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_num(n->mem_unhealthy);
}

static json_t *value_core(struct doc *d, const struct model *m, const struct model_node *n)
{
	return doc_core(d, n->core_total, n->core_allocated);
}

static json_t *value_gpu_count(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_integer(n->ngpus);
}

static json_t *value_pods(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_integer((json_int_t)n->npods);
}

static json_t *value_per_gpu(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_boolean(n->info.per_gpu);
}

static json_t *value_status(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_string(n->status);
}

static json_t *value_schedulable(struct doc *d, const struct model *m, const struct model_node *n)
{
	return json_boolean(n->schedulable);
}

static json_t *value_largest(struct doc *d, const struct model *m, const struct model_node *n)
{
	return n->largest_free >= 0 ? doc_num(n->largest_free) : json_null();
}

static json_t *value_stranded(struct doc *d, const struct model *m, const struct model_node *n)
{
	return n->common_request > 0 ? doc_num(n->stranded) : json_null();
}

static json_t *value_used(struct doc *d, const struct model *m, const struct model_node *n)
{
	json_t *u = json_object();

	doc_set(d, u, "usedBytes", n->gpus_used_known ? doc_num(n->used_bytes) : json_null());
	doc_set(d, u, "gpusKnown", json_integer(n->gpus_used_known));
	return u;
}

/* --- the live view ------------------------------------------------------------ */

static char *live_memory(const struct model *m, const struct model_node *n, bool unit_in_cell)
{
	if (unit_in_cell)
		return fmt("%lld/%lld %s", (long long)n->mem_allocated, (long long)n->mem_total, mem_unit_name(n->unit));
	return fmt("%lld/%lld", (long long)n->mem_allocated, (long long)n->mem_total);
}

static char *live_use(const struct model *m, const struct model_node *n, bool unit_in_cell)
{
	char use[32];

	return strdup(column_use_text(use, n->mem_allocated, n->mem_total, true));
}

static char *live_pods(const struct model *m, const struct model_node *n, bool unit_in_cell)
{
	return fmt("%zu", n->npods);
}

static char *live_pending(const struct model *m, const struct model_node *n, bool unit_in_cell)
{
	return fmt("%lld", (long long)n->mem_pending);
}

static char *live_largest(const struct model *m, const struct model_node *n, bool unit_in_cell)
{
	if (n->largest_free < 0)
		return strdup("-");
	if (unit_in_cell)
		return fmt("%lld %s", (long long)n->largest_free, mem_unit_name(n->unit));
	return fmt("%lld", (long long)n->largest_free);
}

static enum column_tone tone_used(const struct model_node *n)
{
	return n->gpus_used_known ? TONE_NORMAL : TONE_DIM;
}

static enum column_tone tone_use(const struct model_node *n)
{
	return column_level(n->mem_allocated, n->mem_total);
}

static enum column_tone tone_pending(const struct model_node *n)
{
	return n->mem_pending ? TONE_MID : TONE_DIM;
}

static enum column_tone tone_status(const struct model_node *n)
{
	return n->schedulable ? TONE_NORMAL : TONE_HIGH;
}

/* --- orders ------------------------------------------------------------------- */

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_name(const struct model_node *a, const struct model_node *b)
{
	return strcmp(a->name, b->name);
}

static int cmp_ip(const struct model_node *a, const struct model_node *b)
{
	return cmp_str(a->ip, b->ip);
}

static int cmp_pending(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->mem_pending, b->mem_pending);
}

/* share of a node allocated; something allocated on a total of 0 is
 * over-allocated, beyond any share */
static long double allocated_share(const struct model_node *n)
{
	if (n->mem_total > 0)
		return (long double)n->mem_allocated / n->mem_total;
	return n->mem_allocated > 0 ? 1e30L : 0;
}

/* by allocated share of the node, then by amount */
static int cmp_memory(const struct model_node *a, const struct model_node *b)
{
	long double x = allocated_share(a), y = allocated_share(b);

	if (x != y)
		return x < y ? -1 : 1;
	return cmp_i64(a->mem_allocated, b->mem_allocated);
}

static int cmp_used(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->gpus_used_known ? a->used_bytes : -1, b->gpus_used_known ? b->used_bytes : -1);
}

static int cmp_core(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->core_allocated, b->core_allocated);
}

static int cmp_model(const struct model_node *a, const struct model_node *b)
{
	return cmp_str(a->gpu_model, b->gpu_model);
}

static int cmp_mode(const struct model_node *a, const struct model_node *b)
{
	return cmp_str(a->info.mode, b->info.mode);
}

static int cmp_pool(const struct model_node *a, const struct model_node *b)
{
	return cmp_str(a->pool, b->pool);
}

static int cmp_free(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(model_node_free(a), model_node_free(b));
}

static int cmp_status(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->schedulable, b->schedulable);
}

static int cmp_largest(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->largest_free, b->largest_free);
}

static int cmp_stranded(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->stranded, b->stranded);
}

/* --- the table ----------------------------------------------------------------- */

const struct column columns[COL_COUNT] = {
	[COL_NAME] = {COL_NAME, "NAME", COLW_ALWAYS, false, cell_name, "name", COL_NONE, value_name, "name", cmp_name,
		      LIVE_NO, "NODE", NULL, NULL},
	[COL_IP] = {COL_IP, "IPADDRESS", COLW_ALWAYS, false, cell_ip, "ip", COL_NONE, value_ip, "ip", cmp_ip},
	[COL_GPU] = {COL_GPU, "GPU%d(Allocated/Total)", COLW_PER_GPU, false, cell_gpu, "gpus", COL_NONE,
		     doc_node_gpus},
	[COL_PENDING] = {COL_PENDING, "PENDING(Allocated)", COLW_IF_PENDING, false, cell_pending, "pending",
			 COL_MEMORY, value_pending, "pending", cmp_pending, LIVE_FIGURE, "PENDING(%s)", live_pending,
			 tone_pending},
	[COL_MEMORY] = {COL_MEMORY, "GPU Memory(%s)", COLW_ALWAYS, false, cell_memory, "memory", COL_NONE, value_memory,
			"memory", cmp_memory, LIVE_FIGURE, "MEMORY(%s)", live_memory, NULL},
	[COL_USED] = {COL_USED, "USED(%s)", COLW_WIDE, true, cell_used, "usage", COL_NONE, value_used, "used", cmp_used,
		      LIVE_FIGURE, "USED", NULL, tone_used},
	[COL_CORE] = {COL_CORE, "GPU Core(%%)", COLW_IF_CORE, false, cell_core, "core", COL_NONE, value_core, "core",
		      cmp_core},
	[COL_MODEL] = {COL_MODEL, "MODEL", COLW_WIDE, false, cell_model, "gpuModel", COL_NONE, value_model, "model",
		       cmp_model},
	[COL_CARD_MEM] = {COL_CARD_MEM, "CARD MEMORY(MiB)", COLW_WIDE, false, cell_card_mem, "cardMemoryMiB", COL_NONE,
			  value_card_mem},
	[COL_MODE] = {COL_MODE, "MODE", COLW_WIDE, false, cell_mode, "mode", COL_NONE, value_mode, "mode", cmp_mode},
	[COL_SHARING] = {COL_SHARING, "SHARING", COLW_WIDE_IF_SHARING, false, cell_sharing},
	[COL_ISOLATION] = {COL_ISOLATION, "ISOLATION", COLW_WIDE, false, cell_isolation, "isolation", COL_NONE,
			   value_isolation},
	[COL_PLACEMENT] = {COL_PLACEMENT, "PLACEMENT", COLW_WIDE, false, cell_placement, "placement", COL_NONE,
			   value_placement},
	[COL_POOL] = {COL_POOL, "POOL", COLW_WIDE, false, cell_pool, "pool", COL_NONE, value_pool, "pool", cmp_pool},
	[COL_UNHEALTHY] = {COL_UNHEALTHY, "UNHEALTHY(%s)", COLW_WIDE, false, cell_unhealthy, "unhealthy", COL_MEMORY,
			   value_unhealthy},
	[COL_FREE] = {COL_FREE, NULL, COLW_NEVER, false, NULL, "free", COL_MEMORY, value_free, "free",
		      cmp_free},
	[COL_STATUS] = {COL_STATUS, "STATUS", COLW_WIDE, false, cell_status, "status", COL_NONE, value_status, "status",
			cmp_status, LIVE_SPARE_WORDS, "STATUS", NULL, tone_status},
	[COL_LARGEST] = {COL_LARGEST, "MAX FREE/GPU(%s)", COLW_WIDE, false, cell_largest, "largestFreeOnOneGPU",
			 COL_NONE, value_largest, "largest", cmp_largest, LIVE_SPARE, "MAXFREE/GPU(%s)", live_largest},
	[COL_STRANDED] = {COL_STRANDED, "STRANDED(%s)", COLW_WIDE, false, cell_stranded, "strandedFree", COL_NONE,
			  value_stranded, "stranded", cmp_stranded},
	[COL_SCHEME] = {COL_SCHEME, NULL, COLW_NEVER, false, NULL, "scheme", COL_NONE, value_scheme},
	[COL_UNIT] = {COL_UNIT, NULL, COLW_NEVER, false, NULL, "unit", COL_NONE, value_unit},
	[COL_UNIT_SOURCE] = {COL_UNIT_SOURCE, NULL, COLW_NEVER, false, NULL, "unitSource", COL_NONE, value_unit_source},
	[COL_LABELS] = {COL_LABELS, NULL, COLW_NEVER, false, NULL, "labels", COL_NONE, value_labels},
	[COL_GPU_COUNT] = {COL_GPU_COUNT, NULL, COLW_NEVER, false, NULL, "gpuCount", COL_NONE, value_gpu_count},
	[COL_PENDING_PODS] = {COL_PENDING_PODS, NULL, COLW_NEVER, false, NULL, "pendingPods", COL_NONE,
			      doc_pending_pods},
	[COL_PODS] = {COL_PODS, NULL, COLW_NEVER, false, NULL, "podCount", COL_NONE, value_pods, NULL, NULL,
		      LIVE_FIGURE, "PODS", live_pods},
	[COL_PER_GPU] = {COL_PER_GPU, NULL, COLW_NEVER, false, NULL, "perGpu", COL_NONE, value_per_gpu},
	[COL_SCHEDULABLE] = {COL_SCHEDULABLE, NULL, COLW_NEVER, false, NULL, "schedulable", COL_NONE,
			     value_schedulable},
	[COL_USE] = {COL_USE, NULL, COLW_NEVER, false, NULL, NULL, COL_NONE, NULL, NULL, NULL, LIVE_FIGURE, "USE%",
		     live_use, tone_use},
};

const enum column_id column_json_order[] = {
	COL_NAME,     COL_IP,	 COL_SCHEME,	   COL_MODE,	     COL_ISOLATION, COL_PLACEMENT,   COL_POOL,
	COL_MODEL,    COL_CARD_MEM, COL_UNIT,	   COL_UNIT_SOURCE,  COL_LABELS,    COL_MEMORY,	     COL_FREE,
	COL_PENDING,  COL_UNHEALTHY, COL_CORE,	   COL_GPU_COUNT,    COL_GPU,	    COL_PENDING_PODS, COL_PODS,
	COL_PER_GPU,  COL_STATUS,   COL_SCHEDULABLE, COL_LARGEST,     COL_STRANDED, COL_USED,
};
const size_t column_json_count = sizeof(column_json_order) / sizeof(column_json_order[0]);

const enum column_id column_live_order[] = {
	COL_MEMORY, COL_USED, COL_USE, COL_PODS, COL_PENDING, COL_STATUS, COL_LARGEST,
};
const size_t column_live_count = sizeof(column_live_order) / sizeof(column_live_order[0]);

/* --- what is shown --------------------------------------------------------------- */

bool column_in_json(const struct column *c, const struct model *m)
{
	return c->json_key && c->value && (!c->usage || m->usage.configured);
}

bool column_in_live(const struct column *c, const struct model *m)
{
	return c->live != LIVE_NO && (!c->usage || m->usage.configured);
}

char *column_live_header(const struct column *c, enum mem_unit unit, bool unit_in_cell)
{
	const char *h = c->live_header, *p = strstr(h, "(%s)");

	if (!p)
		return strdup(h);
	if (unit_in_cell)
		return fmt("%.*s", (int)(p - h), h);
	return fmt("%.*s(%s)%s", (int)(p - h), h, mem_unit_name(unit), p + 4);
}

char *column_live_cell(const struct column *c, const struct model *m, const struct model_node *n, bool unit_in_cell)
{
	return c->live_cell ? c->live_cell(m, n, unit_in_cell) : c->cell(m, n, -1);
}

/* Whether some node's scheme says how one of its GPUs is shared. */
static bool columns_any_sharing(const struct model *m)
{
	for (size_t i = 0; i < m->nnodes; i++)
		for (int g = 0; m->nodes[i].info.gpus && g < m->nodes[i].info.ngpus; g++)
			if (m->nodes[i].info.gpus[g].sharing)
				return true;
	return false;
}

struct column_ref *columns_select(const struct model *m, bool wide, size_t *ret_n)
{
	size_t cap = COL_COUNT + (size_t)(m->max_gpus > 0 ? m->max_gpus : 0), n = 0;
	struct column_ref *r = calloc(cap, sizeof(*r));

	if (!r)
		return NULL;
	for (size_t i = 0; i < COL_COUNT; i++) {
		const struct column *c = &columns[i];

		switch (c->when) {
		case COLW_ALWAYS:
			break;
		case COLW_PER_GPU:
			for (int g = 0; g < m->max_gpus; g++)
				r[n++] = (struct column_ref){c->id, g};
			continue;
		case COLW_IF_PENDING:
			if (!m->any_pending)
				continue;
			break;
		case COLW_IF_CORE:
			if (!m->any_core)
				continue;
			break;
		case COLW_WIDE_IF_SHARING:
			if (!wide || !columns_any_sharing(m))
				continue;
			break;
		case COLW_WIDE:
			if (!wide || (c->usage && !m->usage.configured))
				continue;
			break;
		case COLW_NEVER:
			continue;
		}
		r[n++] = (struct column_ref){c->id, -1};
	}
	*ret_n = n;
	return r;
}

char *column_header(const struct model *m, const struct column_ref *ref)
{
	const struct column *c = &columns[ref->id];

	/* the headers are constant formats of this table, never outside text */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	/* a table of slot-counted nodes: GPUs and replicas, not memory */
	if (m->totals.unit == UNIT_SLOTS && ref->id == COL_GPU)
		return fmt("GPU%d(Used/Slots)", ref->gpu);
	if (m->totals.unit == UNIT_SLOTS && ref->id == COL_MEMORY)
		return strdup("GPUs(slots)");
	/* memory in use is memory even where the allocation counts GPUs */
	if (m->totals.unit == UNIT_SLOTS && ref->id == COL_USED)
		return strdup("USED(GiB)");
	if (ref->id == COL_GPU)
		return fmt(c->header, ref->gpu);
	if (strstr(c->header, "%s"))
		return fmt(c->header, mem_unit_name(m->totals.unit));
	return fmt(c->header, 0);
#pragma GCC diagnostic pop
}

const struct column *column_by_sort_key(const char *key)
{
	for (size_t i = 0; key && i < COL_COUNT; i++)
		if (columns[i].sort_key && strcmp(columns[i].sort_key, key) == 0)
			return &columns[i];
	return NULL;
}
