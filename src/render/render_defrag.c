/* The answer of `defrag` (render_defrag.h). */
#include "render_defrag.h"

#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "tabwriter.h"
#include "termsafe.h"

#define PADDING 3

static const char *const stay_names[] = {
	[DEFRAG_MOVABLE] = "Movable",	   [DEFRAG_NO_CONTROLLER] = "NoController",
	[DEFRAG_DAEMONSET] = "DaemonSet",  [DEFRAG_STATIC] = "StaticPod",
	[DEFRAG_PRIORITY] = "HigherPriority", [DEFRAG_BUDGETS] = "SeveralBudgets",
};

static const char *const stay_words[] = {
	[DEFRAG_NO_CONTROLLER] = "without a controller",
	[DEFRAG_DAEMONSET] = "of a DaemonSet",
	[DEFRAG_STATIC] = "static",
	[DEFRAG_PRIORITY] = "of higher priority than the request",
	[DEFRAG_BUDGETS] = "selected by more than one disruption budget",
};

const char *defrag_stay_name(enum defrag_stay s)
{
	return s <= DEFRAG_BUDGETS ? stay_names[s] : "Unknown";
}

/* Text from the cluster in its visible form, for a table cell. */
static char *safe(const char *s)
{
	return termsafe_str(s ? s : "");
}

/* "node/GPU0,GPU1", or "node" where the scheme has no per-GPU split. */
char *render_defrag_where(const struct model *m, size_t node, const int *gpus, int n)
{
	char *s = NULL, *name = safe(m->nodes[node].name);
	size_t len = 0;
	FILE *f = name ? open_memstream(&s, &len) : NULL;

	if (!f) {
		free(name);
		return NULL;
	}
	fputs(name, f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%sGPU%d", i ? "," : "/", gpus[i]);
	free(name);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static bool put_moves(struct tabwriter *tw, const struct model *m, const struct defrag_plan *p)
{
	bool ok = tabwriter_puts(tw, "POD\tFROM\tTO\tMEMORY\n") >= 0;

	for (size_t i = 0; ok && i < p->nmoves; i++) {
		const struct defrag_move *mv = &p->moves[i];
		const struct model_pod *pod = &m->pods[mv->pod];
		char *ns = safe(pod->namespace), *name = safe(pod->name);
		char *from = render_defrag_where(m, mv->from, mv->from_gpus, mv->nfrom_gpus);
		char *to = render_defrag_where(m, mv->to.node, mv->to.gpus, mv->to.ngpus);

		ok = ns && name && from && to &&
		     tabwriter_printf(tw, "%s/%s\t%s\t%s\t%lld %s\n", ns, name, from, to, (long long)mv->mem,
				      mem_unit_name(mv->unit)) >= 0;
		free(ns);
		free(name);
		free(from);
		free(to);
	}
	return ok;
}

static bool put_no_plan(struct tabwriter *tw, const struct fit_request *r, const struct defrag_report *rep)
{
	bool ok = tabwriter_printf(tw, "No plan within %d move%s: the request fits on no node after moving pods "
				       "that may move.\n",
				   rep->max_moves, rep->max_moves == 1 ? "" : "s") >= 0;
	size_t nstay = 0;

	for (size_t i = 0; ok && rep->now && i < rep->now->ngroups; i++) {
		char *t = fit_group_text(&rep->now->groups[i], r), *st = t ? safe(t) : NULL;

		if (i == 0)
			ok = tabwriter_puts(tw, "\nWhere it does not fit now:\n") >= 0;
		ok = ok && st &&
		     tabwriter_printf(tw, "  %zu node%s: %s\n", rep->now->groups[i].count,
				      rep->now->groups[i].count == 1 ? "" : "s", st) >= 0;
		free(t);
		free(st);
	}
	for (int s = DEFRAG_NO_CONTROLLER; s <= DEFRAG_BUDGETS; s++)
		nstay += rep->stay[s];
	nstay += rep->no_disruption;
	if (ok && nstay)
		ok = tabwriter_printf(tw, "\nPods that may not move:\n") >= 0;
	for (int s = DEFRAG_NO_CONTROLLER; ok && s <= DEFRAG_BUDGETS; s++)
		if (rep->stay[s])
			ok = tabwriter_printf(tw, "  %zu pod%s %s\n", rep->stay[s], rep->stay[s] == 1 ? "" : "s",
					      stay_words[s]) >= 0;
	if (ok && rep->no_disruption)
		ok = tabwriter_printf(tw, "  %zu pod%s whose disruption budget allows no disruption now\n",
				      rep->no_disruption, rep->no_disruption == 1 ? "" : "s") >= 0;
	return ok;
}

int render_defrag_table(FILE *out, const struct model *m, const struct fit_request *r, const struct defrag_plan *p,
			const struct defrag_report *rep, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	char *subject = safe(rep->subject), *target = NULL;
	bool ok = tw && subject && tabwriter_printf(tw, "%s\n", subject) >= 0;

	if (ok && !p->needed) {
		ok = tabwriter_puts(tw, "The request fits now: nothing to move.\n") >= 0;
	} else if (ok && p->found) {
		target = render_defrag_where(m, p->target.node, p->target.gpus, p->target.ngpus);
		ok = target &&
		     tabwriter_printf(tw, "Move %zu pod%s (%lld MiB of GPU memory); then the request fits on %s.\n",
				      p->nmoves, p->nmoves == 1 ? "" : "s", (long long)p->mem_moved_mib, target) >= 0 &&
		     put_moves(tw, m, p);
	} else if (ok) {
		ok = put_no_plan(tw, r, rep);
	}
	free(subject);
	free(target);
	if (!ok || tabwriter_flush_to(tw, out) < 0) {
		tabwriter_free(tw);
		return kerr_set(err, KERR_OTHER, "cannot write the answer");
	}
	tabwriter_free(tw);
	return 0;
}

static json_t *place_json(const struct model *m, size_t node, const int *gpus, int n)
{
	json_t *g = json_array();

	for (int i = 0; g && i < n; i++)
		json_array_append_new(g, json_integer(gpus[i]));
	return g ? json_pack("{s:s, s:o}", "node", m->nodes[node].name, "gpus", g) : NULL;
}

json_t *render_defrag_moves_json(const struct model *m, const struct defrag_plan *p)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < p->nmoves; i++) {
		const struct defrag_move *mv = &p->moves[i];
		json_t *o = json_pack("{s:s, s:s, s:o*, s:o*, s:I, s:s}", "namespace", m->pods[mv->pod].namespace, "name",
				      m->pods[mv->pod].name, "from", place_json(m, mv->from, mv->from_gpus, mv->nfrom_gpus),
				      "to", place_json(m, mv->to.node, mv->to.gpus, mv->to.ngpus), "memory",
				      (json_int_t)mv->mem, "unit", mem_unit_name(mv->unit));

		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *render_defrag_document(const struct model *m, const struct fit_request *r, const struct defrag_plan *p,
			       const struct defrag_report *rep)
{
	json_t *stay = json_object(), *reasons = json_array(), *doc;

	for (int s = DEFRAG_NO_CONTROLLER; stay && s <= DEFRAG_BUDGETS; s++)
		json_object_set_new(stay, stay_names[s], json_integer((json_int_t)rep->stay[s]));
	if (stay)
		json_object_set_new(stay, "NoDisruptionAllowed", json_integer((json_int_t)rep->no_disruption));
	for (size_t i = 0; reasons && rep->now && !p->found && i < rep->now->ngroups; i++) {
		char *t = fit_group_text(&rep->now->groups[i], r);

		json_array_append_new(reasons, json_pack("{s:s, s:I, s:s?}", "reason", fit_reason_name(rep->now->groups[i].reason),
							 "nodes", (json_int_t)rep->now->groups[i].count, "message", t));
		free(t);
	}
	doc = json_pack("{s:s, s:s, s:{s:s, s:s?, s:I, s:s, s:I, s:i}, s:b, s:b, s:i, s:o*, s:I, s:o*, s:o*, s:o*}",
			"apiVersion", RENDER_API_VERSION, "kind", "DefragPlan", "request", "subject", rep->subject,
			"scheme", r->scheme, "memoryPerGPU", (json_int_t)r->mem, "memoryUnit",
			r->mem_unit == FIT_MEM_MIB ? "MiB" : "node", "corePerGPU", (json_int_t)r->core, "gpus",
			r->gpus > 1 ? r->gpus : 1, "needed", p->needed, "found", p->found || !p->needed, "maxMoves",
			rep->max_moves, "moves", p->found ? render_defrag_moves_json(m, p) : json_array(), "memoryMovedMiB",
			(json_int_t)p->mem_moved_mib, "target",
			p->found ? place_json(m, p->target.node, p->target.gpus, p->target.ngpus) : json_null(),
			"reasons", reasons, "podsThatMayNotMove", stay);
	return doc;
}
