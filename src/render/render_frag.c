/* The fragmentation report (render_frag.h). */
#include "render_frag.h"

#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "render_defrag.h"
#include "tabwriter.h"
#include "termsafe.h"

#define PADDING 3

static const char *const blocked_names[] = {
	[FRAG_BLOCKED_STAY] = "PodThatMayNotMove",
	[FRAG_BLOCKED_BUDGET] = "NoDisruptionAllowed",
	[FRAG_BLOCKED_MOVES] = "MoreThanMaxMoves",
	[FRAG_BLOCKED_NOWHERE] = "NowhereToGo",
};

/* "np-a (cgpu)", made safe for a terminal; malloc'd. */
static char *group_name(const struct frag_group *g)
{
	char *pool = termsafe_str(g->pool ? g->pool : "<none>"), *s = NULL;

	if (pool && asprintf(&s, "%s (%s)", pool, g->scheme) < 0)
		s = NULL;
	free(pool);
	return s;
}

static bool put_row(struct tabwriter *tw, const struct frag_group *g)
{
	const char *u = mem_unit_name(g->unit);
	char *pool = termsafe_str(g->pool ? g->pool : "<none>");
	bool ok;

	if (!pool)
		return false;
	if (g->unit == UNIT_SLOTS)
		ok = tabwriter_printf(tw, "%s\t%s\t%zu\t%zu\t%lld %s\t-\t-\t-\n", pool, g->scheme, g->nodes, g->gpus,
				      (long long)g->mem_free, u) >= 0;
	else if (g->common_request > 0)
		ok = tabwriter_printf(tw, "%s\t%s\t%zu\t%zu\t%lld %s\t%lld %s\t%lld %s\t%zu%s\n", pool, g->scheme, g->nodes,
				      g->gpus, (long long)g->mem_free, u, (long long)g->common_request, u,
				      (long long)g->stranded, u, g->nfreed, g->unchecked ? "+" : "") >= 0;
	else
		ok = tabwriter_printf(tw, "%s\t%s\t%zu\t%zu\t%lld %s\t-\t-\t%zu%s\n", pool, g->scheme, g->nodes, g->gpus,
				      (long long)g->mem_free, u, g->nfreed, g->unchecked ? "+" : "") >= 0;
	free(pool);
	return ok;
}

/* One freed GPU: a line per move, the GPU named on the first. */
static bool put_freed(struct tabwriter *tw, const struct model *m, const struct frag_group *g, const struct frag_freed *f)
{
	char *name = group_name(g), *gpu = render_defrag_where(m, f->node, &f->gpu, 1);
	bool ok = name && gpu;

	for (size_t i = 0; ok && i < f->plan.nmoves; i++) {
		const struct defrag_move *mv = &f->plan.moves[i];
		const struct model_pod *p = &m->pods[mv->pod];
		char *ns = termsafe_str(p->namespace ? p->namespace : ""), *pn = termsafe_str(p->name ? p->name : "");
		char *to = render_defrag_where(m, mv->to.node, mv->to.gpus, mv->to.ngpus);

		ok = ns && pn && to &&
		     (i ? tabwriter_printf(tw, "\t\t\t%s/%s\t%s\t%lld %s\n", ns, pn, to, (long long)mv->mem,
					   mem_unit_name(mv->unit))
			: tabwriter_printf(tw, "%s\t%s\t%lld %s\t%s/%s\t%s\t%lld %s\n", name, gpu, (long long)f->held,
					   mem_unit_name(g->unit), ns, pn, to, (long long)mv->mem,
					   mem_unit_name(mv->unit))) >= 0;
		free(ns);
		free(pn);
		free(to);
	}
	free(name);
	free(gpu);
	return ok;
}

/* Why the other GPUs of a group were not found freeable, in one line. */
static void put_kept(FILE *f, const struct frag_group *g, int max_moves)
{
	static const char *const words[] = {
		[FRAG_BLOCKED_STAY] = "a pod that may not move",
		[FRAG_BLOCKED_BUDGET] = "a disruption budget",
		[FRAG_BLOCKED_MOVES] = "more pods than --max-moves",
		[FRAG_BLOCKED_NOWHERE] = "a pod that fits on no other node",
	};
	bool first = true;

	for (int b = 0; b < FRAG_BLOCKED_COUNT; b++) {
		if (!g->blocked[b])
			continue;
		fprintf(f, "%s%zu by %s", first ? "; kept: " : ", ", g->blocked[b], words[b]);
		if (b == FRAG_BLOCKED_MOVES)
			fprintf(f, " (%d)", max_moves);
		first = false;
	}
}

/* What the table cannot say of a group, one line each. */
static bool put_notes(FILE *f, const struct frag_report *r, const struct frag_group *g)
{
	char *name = group_name(g);

	if (!name)
		return false;
	if (g->unit == UNIT_SLOTS)
		fprintf(f, "%s: counts whole GPUs or replicas in slots, not memory: nothing stranded or freeable is counted\n",
			name);
	if (g->unit != UNIT_SLOTS && (g->held_gpus || g->unchecked)) {
		fprintf(f, "%s: %zu GPU%s holding pods, %zu freeable", name, g->held_gpus, g->held_gpus == 1 ? "" : "s",
			g->nfreed);
		put_kept(f, g, r->max_moves);
		if (g->unchecked)
			fprintf(f, "; %zu more not tried (the search stops at %d freed or %d tried per row, %d in all)",
				g->unchecked, FRAG_FREED_MAX, FRAG_CHECKS_MAX, FRAG_CHECKS_TOTAL);
		fputc('\n', f);
	}
	if (g->unpublished_nodes)
		fprintf(f, "%s: %zu node%s do%s not publish which GPU a pod holds: none of their GPUs counted as freeable\n",
			name, g->unpublished_nodes, g->unpublished_nodes == 1 ? "" : "s", g->unpublished_nodes == 1 ? "es" : "");
	if (g->unknown_gpus)
		fprintf(f, "%s: %zu GPU%s whose memory or holders are not known: not counted as freeable\n", name,
			g->unknown_gpus, g->unknown_gpus == 1 ? "" : "s");
	free(name);
	return true;
}

static bool put_table(struct tabwriter *tw, const struct model *m, const struct frag_report *r)
{
	bool ok = tabwriter_puts(tw, "POOL\tSCHEME\tNODES\tGPUS\tFREE\tCOMMON REQUEST\tSTRANDED\tFREEABLE GPUS\n") >= 0;
	size_t nfreed = 0;

	for (size_t i = 0; ok && i < r->ngroups; i++) {
		ok = put_row(tw, &r->groups[i]);
		nfreed += r->groups[i].nfreed;
	}
	if (ok && nfreed)
		ok = tabwriter_printf(tw, "\nGPUs that could be freed, each on its own (at most %d per row, least memory "
					  "held first):\nPOOL\tGPU\tHELD\tPOD\tTO\tMEMORY\n",
				      FRAG_FREED_MAX) >= 0;
	for (size_t i = 0; ok && i < r->ngroups; i++)
		for (size_t k = 0; ok && k < r->groups[i].nfreed; k++)
			ok = put_freed(tw, m, &r->groups[i], &r->groups[i].freed[k]);
	return ok;
}

int render_frag_table(FILE *out, const struct model *m, const struct frag_report *r, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	char *notes = NULL;
	size_t len = 0;
	FILE *nf = open_memstream(&notes, &len);
	bool ok = tw && nf;

	if (ok && !r->ngroups)
		ok = tabwriter_puts(tw, "No GPU nodes of a sharing scheme among the nodes selected.\n") >= 0;
	else if (ok)
		ok = put_table(tw, m, r);
	for (size_t i = 0; ok && i < r->ngroups; i++)
		ok = put_notes(nf, r, &r->groups[i]);
	if (nf && fclose(nf) != 0)
		ok = false;
	if (ok && len)
		ok = tabwriter_printf(tw, "\n%s", notes) >= 0;
	free(notes);
	if (!ok || tabwriter_flush_to(tw, out) < 0) {
		tabwriter_free(tw);
		return kerr_set(err, KERR_OTHER, "cannot write the answer");
	}
	tabwriter_free(tw);
	return 0;
}

static json_t *freed_json(const struct model *m, const struct frag_group *g, const struct frag_freed *f)
{
	return json_pack("{s:s, s:i, s:I, s:s, s:o*}", "node", m->nodes[f->node].name, "gpu", f->gpu, "held",
			 (json_int_t)f->held, "unit", mem_unit_name(g->unit), "moves",
			 render_defrag_moves_json(m, &f->plan));
}

static json_t *group_json(const struct model *m, const struct frag_group *g)
{
	json_t *freed = json_array(), *kept = json_object();
	bool slots = g->unit == UNIT_SLOTS;

	for (size_t k = 0; freed && k < g->nfreed; k++)
		json_array_append_new(freed, freed_json(m, g, &g->freed[k]));
	for (int b = 0; kept && b < FRAG_BLOCKED_COUNT; b++)
		json_object_set_new(kept, blocked_names[b], json_integer((json_int_t)g->blocked[b]));
	return json_pack("{s:s?, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:o*, s:o*}", "pool", g->pool,
			 "scheme", g->scheme, "unit", mem_unit_name(g->unit), "nodes", (json_int_t)g->nodes, "gpus",
			 (json_int_t)g->gpus, "free", (json_int_t)g->mem_free, "commonRequest",
			 g->common_request > 0 ? json_integer(g->common_request) : json_null(), "strandedFree",
			 g->common_request > 0 && !slots ? json_integer(g->stranded) : json_null(), "heldGPUs",
			 (json_int_t)g->held_gpus, "uncheckedGPUs", (json_int_t)g->unchecked, "unpublishedNodes",
			 (json_int_t)g->unpublished_nodes, "unknownGPUs", (json_int_t)g->unknown_gpus, "freeableGPUs",
			 (json_int_t)g->nfreed, "kept", kept, "freed", freed);
}

json_t *render_frag_document(const struct model *m, const struct frag_report *r)
{
	json_t *groups = json_array();

	for (size_t i = 0; groups && i < r->ngroups; i++) {
		json_t *g = group_json(m, &r->groups[i]);

		if (!g || json_array_append_new(groups, g) < 0) {
			json_decref(groups);
			return NULL;
		}
	}
	return json_pack("{s:s, s:s, s:i, s:i, s:o*}", "apiVersion", RENDER_API_VERSION, "kind", "FragmentationReport",
			 "maxMoves", r->max_moves, "freedPerGroupAtMost", FRAG_FREED_MAX, "pools", groups);
}
