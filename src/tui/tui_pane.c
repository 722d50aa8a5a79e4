/* The live view's panes of pods: see tui_pane.h. */
#include "tui_pane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "usage.h"

bool tui_pod_pending(const struct model_pod *p)
{
	for (size_t k = 0; k < p->ngpus; k++)
		if (p->gpus[k].gpu < 0)
			return true;
	return false;
}

static void tui_pod_line(struct tui_lines *ls, const struct model_pod *p, int64_t mem, int64_t core,
			 enum mem_unit unit, bool show_core)
{
	struct tui_line *l = tui_lines_add(ls);
	int cols = ls->cols, x, w;

	if (!l)
		return;
	/* names up to the usual pod name length line up; longer ones are cut */
	w = cols - 4 - 12 - (show_core ? 6 : 0) - 11;
	if (w > 48)
		w = 48;
	if (w < 12)
		w = 12;
	x = tui_putf(l, cols, ls->oom, 4, TUI_ROLE_NORMAL, w, "%s/%s", p->namespace ? p->namespace : "",
		 p->name ? p->name : "");
	x = 4 + w + 1;
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "%7lld %-5s", (long long)mem, mem_unit_name(unit));
	if (show_core)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, " %4lld%%", (long long)core);
	tui_put(l, cols, ls->oom, x + 1, TUI_ROLE_DIM, p->phase ? p->phase : "", -1);
}

/* Why the pod waits, under its line: the words of -d's "Why pending",
 * broken between its reasons ("; ") where a line would run off the screen. */
static void tui_pod_reason(struct tui_lines *ls, const struct model *m, const struct model_pod *p)
{
	const char *part = p->pending_reason, *next;
	struct tui_line *l = NULL;
	int x = 0;

	for (; part && *part; part = next) {
		const char *semi = strstr(part, "; ");
		int len = semi ? (int)(semi - part) : (int)strlen(part);

		next = semi ? semi + 2 : part + len;
		if (!l || x + 2 + len > ls->cols) {
			bool first = !l;

			if (!(l = tui_lines_add(ls)))
				break;
			/* later lines line up under the first reason */
			x = first ? tui_put(l, ls->cols, ls->oom, 6, TUI_ROLE_MID, "why:", -1) + 1 : 11;
		} else {
			x = tui_put(l, ls->cols, ls->oom, x, TUI_ROLE_MID, ";", -1) + 1;
		}
		x = tui_putf(l, ls->cols, ls->oom, x, TUI_ROLE_MID, -1, "%.*s", len, part);
	}
}

size_t tui_pending_pods(const struct model *m)
{
	return m->nwaiting;
}

void tui_pending_pane(struct tui_lines *ls, const struct model *m)
{
	size_t n = tui_pending_pods(m);
	struct tui_line *l;

	if (!(l = tui_lines_add(ls)))
		return;
	tui_putf(l, ls->cols, ls->oom, 0, TUI_ROLE_HEADER, -1, "%zu pending pod%s: not scheduled, or no GPU chosen yet (u or Esc: back)",
		 n, n == 1 ? "" : "s");
	for (size_t i = 0; i < m->nwaiting; i++) {
		const struct model_pod *p = &m->pods[m->waiting[i]];

		tui_pod_line(ls, p, p->mem, p->core, p->unit, p->core > 0);
		tui_pod_reason(ls, m, p);
	}
	if (!n && (l = tui_lines_add(ls)))
		tui_put(l, ls->cols, ls->oom, 1, TUI_ROLE_DIM, "none", -1);
}

/* "node NAME  ip ...  pool ...  scheme ...  mode ...  model ..." */
static bool node_title(struct tui_lines *ls, const struct model_node *n)
{
	struct tui_line *l = tui_lines_add(ls);
	int cols = ls->cols, x;

	if (!l)
		return false;
	x = tui_putf(l, cols, ls->oom, 0, TUI_ROLE_TITLE, -1, "node %s", n->name);
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  ip %s", n->ip ? n->ip : "unknown");
	if (n->pool)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  pool %s", n->pool);
	if (n->scheme)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  scheme %s", n->scheme->name);
	if (n->info.mode && strcmp(column_mode_name(n), n->info.mode) != 0)
		/* the label's own value too, for whoever reads the node's labels */
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  mode %s (%s)", column_mode_name(n), n->info.mode);
	else if (n->info.mode)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  mode %s", n->info.mode);
	if (n->gpu_model)
		tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  model %s", n->gpu_model);
	return true;
}

/* The node's memory bar and figures. */
static bool node_memory(struct tui_lines *ls, const struct model_node *n)
{
	struct tui_line *l = tui_lines_add(ls);
	int cols = ls->cols, x;
	char use[32];

	if (!l)
		return false;
	x = tui_put(l, cols, ls->oom, 0, TUI_ROLE_NORMAL, "memory ", -1);
	x = tui_put_bar(l, cols, ls->oom, x, tui_bar_width(cols), n->mem_allocated, n->mem_total);
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, " %lld/%lld %s (%s)", (long long)n->mem_allocated,
		     (long long)n->mem_total, mem_unit_name(n->unit),
		     column_use_text(use, n->mem_allocated, n->mem_total, true));
	if (n->mem_pending)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  pending %lld", (long long)n->mem_pending);
	if (n->mem_unhealthy)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_HIGH, -1, "  unhealthy %lld", (long long)n->mem_unhealthy);
	if (n->core_total > 0)
		tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  core %lld/%lld%%", (long long)n->core_allocated,
			 (long long)n->core_total);
	return true;
}

/* One GPU's bar, figures and state. */
static bool gpu_line(struct tui_lines *ls, const struct model_node *n, const struct model_gpu *gpu)
{
	struct tui_line *l = tui_lines_add(ls);
	int cols = ls->cols, x;
	char use[32];

	if (!l)
		return false;
	x = tui_putf(l, cols, ls->oom, 0, TUI_ROLE_HEADER, -1, "GPU%-2d ", gpu->index);
	x = tui_put_bar(l, cols, ls->oom, x, tui_bar_width(cols), gpu->mem_allocated, gpu->mem_total);
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, " %lld/%lld %s %s", (long long)gpu->mem_allocated,
		     (long long)gpu->mem_total, mem_unit_name(n->unit),
		     column_use_text(use, gpu->mem_allocated, gpu->mem_total, true));
	if (gpu->core_total)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  core %lld/%lld%%", (long long)gpu->core_allocated,
			     (long long)gpu->core_total);
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_DIM, -1, "  %zu pod%s", gpu->npods, gpu->npods == 1 ? "" : "s");
	if (gpu->unhealthy)
		x = tui_put(l, cols, ls->oom, x, TUI_ROLE_HIGH, "  unhealthy", -1);
	if (gpu->cordoned)
		x = tui_put(l, cols, ls->oom, x, TUI_ROLE_MID, "  cordoned", -1);
	if (gpu->type)
		tui_putf(l, cols, ls->oom, x, TUI_ROLE_DIM, -1, "  %s", gpu->type);
	return true;
}

/* Memory in use on the GPU beside the allocation, against the card. */
static bool gpu_used_line(struct tui_lines *ls, const struct model_node *n, const struct model_gpu *gpu)
{
	enum mem_unit u = n->unit == UNIT_SLOTS ? UNIT_GIB : n->unit;
	int64_t total = gpu->total_known ? gpu->total_bytes : usage_unit_bytes(gpu->mem_total, n->unit);
	struct tui_line *l = tui_lines_add(ls);
	int cols = ls->cols, x;
	char a[32], b[32];

	if (!l)
		return false;
	x = tui_put(l, cols, ls->oom, 0, TUI_ROLE_DIM, " used ", -1);
	if (!gpu->used_known) {
		tui_put(l, cols, ls->oom, x, TUI_ROLE_DIM, "unknown", -1);
		return true;
	}
	x = tui_put_bar(l, cols, ls->oom, x, tui_bar_width(cols), gpu->used_bytes, total);
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, " %s/%s %s", usage_format(a, sizeof(a), gpu->used_bytes, u),
		     usage_format(b, sizeof(b), total, u), mem_unit_name(u));
	if (gpu->util_known)
		tui_putf(l, cols, ls->oom, x, TUI_ROLE_DIM, -1, "  util %.0f%%", gpu->util);
	return true;
}

/* The pods of the node that hold something without a GPU, each with why;
 * where the scheme does not publish the split, every pod. */
static void pending_pods(struct tui_lines *ls, const struct model *m, const struct model_node *n, bool show_core)
{
	struct tui_line *l = tui_lines_add(ls);

	if (!l)
		return;
	tui_put(l, ls->cols, ls->oom, 0, TUI_ROLE_HEADER,
		n->gpus ? "pending (no GPU chosen yet)" : "pods (per-GPU placement not visible for this scheme)", -1);
	for (size_t i = 0; i < n->npods; i++) {
		const struct model_pod *p = &m->pods[n->pods[i]];
		int64_t mem = 0, core = 0;

		if (!n->gpus) {
			tui_pod_line(ls, p, p->mem, p->core, n->unit, show_core);
			continue;
		}
		for (size_t k = 0; k < p->ngpus; k++) {
			if (p->gpus[k].gpu < 0) {
				mem += p->gpus[k].mem;
				core += p->gpus[k].core;
			}
		}
		if (!tui_pod_pending(p))
			continue;
		tui_pod_line(ls, p, mem, core, n->unit, show_core);
		tui_pod_reason(ls, m, p);
	}
}

void tui_node_pane(struct tui_lines *ls, const struct model *m, const struct model_node *n)
{
	struct tui_line *l;
	bool show_core = n->core_total > 0, pending = false;

	if (!node_title(ls, n) || !node_memory(ls, n))
		return;
	for (int g = 0; n->gpus && g < n->ngpus; g++) {
		const struct model_gpu *gpu = &n->gpus[g];

		if (!gpu_line(ls, n, gpu) || (m->usage.configured && !gpu_used_line(ls, n, gpu)))
			return;
		for (size_t i = 0; i < n->npods; i++) {
			const struct model_pod *p = &m->pods[n->pods[i]];

			for (size_t k = 0; k < p->ngpus; k++)
				if (p->gpus[k].gpu == gpu->index)
					tui_pod_line(ls, p, p->gpus[k].mem, p->gpus[k].core, n->unit, show_core);
		}
	}
	for (size_t i = 0; i < n->npods; i++)
		pending = pending || tui_pod_pending(&m->pods[n->pods[i]]) || !n->gpus;
	if (pending)
		pending_pods(ls, m, n, show_core);
	if (n->npods == 0 && (l = tui_lines_add(ls)))
		tui_put(l, ls->cols, ls->oom, 4, TUI_ROLE_DIM, "no pods hold GPU resources on this node", -1);
}
