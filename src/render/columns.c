/* The node columns: headers, cells, JSON keys and orders in one table. */
#include "columns.h"
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define NONE "<none>"

long long column_percent(int64_t part, int64_t total)
{
	if (total <= 0 || part <= 0)
		return 0;
	return (long long)(part * 100 / total);
}

const char *column_use_text(char buf[32], int64_t part, int64_t total)
{
	if (total <= 0 && part > 0)
		return strcpy(buf, "over-allocated");
	snprintf(buf, 32, "%lld%%", column_percent(part, total));
	return buf;
}

const char *column_unit_name(enum mem_unit u)
{
	switch (u) {
	case UNIT_GIB:
		return "GiB";
	case UNIT_MIB:
		return "MiB";
	default:
		return "slots";
	}
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

const char *column_mode_name(const struct model_node *n)
{
	return n->info.mode_word ? n->info.mode_word : n->info.mode;
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

static char *cell_free(const struct model *m, const struct model_node *n, int gpu)
{
	int64_t f = n->mem_total - n->mem_allocated;

	return fmt("%lld", (long long)(f > 0 ? f : 0));
}

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
	return cmp_i64(a->mem_total - a->mem_allocated, b->mem_total - b->mem_allocated);
}

static char *cell_status(const struct model *m, const struct model_node *n, int gpu)
{
	return strdup(n->status);
}

static char *cell_largest(const struct model *m, const struct model_node *n, int gpu)
{
	return n->largest_free < 0 ? strdup("-") : fmt("%lld", (long long)n->largest_free);
}

static int cmp_status(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->schedulable, b->schedulable);
}

static int cmp_largest(const struct model_node *a, const struct model_node *b)
{
	return cmp_i64(a->largest_free, b->largest_free);
}

const struct column columns[COL_COUNT] = {
	[COL_NAME] = {COL_NAME, "NAME", "NODE", "name", "name", COLW_ALWAYS, cell_name, cmp_name},
	[COL_IP] = {COL_IP, "IPADDRESS", "IP", "ip", "ip", COLW_ALWAYS, cell_ip, cmp_ip},
	[COL_GPU] = {COL_GPU, "GPU%d(Allocated/Total)", "GPU%d", "gpus", NULL, COLW_PER_GPU, cell_gpu, NULL},
	[COL_PENDING] = {COL_PENDING, "PENDING(Allocated)", "PENDING", "pending", "pending", COLW_IF_PENDING,
			 cell_pending, cmp_pending},
	[COL_MEMORY] = {COL_MEMORY, "GPU Memory(%s)", "MEMORY(%s)", "memory", "memory", COLW_ALWAYS, cell_memory,
			cmp_memory},
	[COL_USED] = {COL_USED, "USED(%s)", "USED", "used", "used", COLW_WIDE_USAGE, cell_used, cmp_used},
	[COL_CORE] = {COL_CORE, "GPU Core(%%)", "CORE(%%)", "core", "core", COLW_IF_CORE, cell_core, cmp_core},
	[COL_MODEL] = {COL_MODEL, "MODEL", "MODEL", "gpuModel", "model", COLW_WIDE, cell_model, cmp_model},
	[COL_CARD_MEM] = {COL_CARD_MEM, "CARD MEMORY(MiB)", "CARD(MiB)", "cardMemoryMiB", NULL, COLW_WIDE,
			  cell_card_mem, NULL},
	[COL_MODE] = {COL_MODE, "MODE", "MODE", "mode", "mode", COLW_WIDE, cell_mode, cmp_mode},
	[COL_ISOLATION] = {COL_ISOLATION, "ISOLATION", "ISOL", "isolation", NULL, COLW_WIDE, cell_isolation, NULL},
	[COL_PLACEMENT] = {COL_PLACEMENT, "PLACEMENT", "PLACE", "placement", NULL, COLW_WIDE, cell_placement,
			   NULL},
	[COL_POOL] = {COL_POOL, "POOL", "POOL", "pool", "pool", COLW_WIDE, cell_pool, cmp_pool},
	[COL_UNHEALTHY] = {COL_UNHEALTHY, "UNHEALTHY(%s)", "UNHEALTHY", "unhealthy", NULL, COLW_WIDE,
			   cell_unhealthy, NULL},
	[COL_FREE] = {COL_FREE, "FREE(%s)", "FREE", "free", "free", COLW_NEVER, cell_free, cmp_free},
	[COL_STATUS] = {COL_STATUS, "STATUS", "STATUS", "status", "status", COLW_WIDE, cell_status, cmp_status},
	[COL_LARGEST] = {COL_LARGEST, "MAX FREE/GPU(%s)", "MAXFREE/GPU(%s)", "largestFreeOnOneGPU", "largest",
			 COLW_WIDE, cell_largest, cmp_largest},
};

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
		case COLW_WIDE:
			if (!wide)
				continue;
			break;
		case COLW_WIDE_USAGE:
			if (!wide || !m->usage.configured)
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
		return fmt(c->header, column_unit_name(m->totals.unit));
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
