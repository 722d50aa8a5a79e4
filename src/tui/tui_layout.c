/* The live view's screen laid out: see tui_layout.h. */
#include "tui_layout.h"

#include "columns.h"
#include "tui_fleet.h"
#include "tui_pane.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this height the selected node's pane does not fit beside the list. */
#define SPLIT_MIN_LINES 30

static const char *const help_text[] = {
	"kubectl inspect cgpu top: GPU sharing, live",
	"",
	"  Up/Down, j/k     move (scroll in a node)",
	"  PgUp/PgDn        move a page",
	"  Home/End, g/G    first/last node (in a node: its top/end)",
	"  Enter, Right     open the selected node: its GPUs and the pods on each",
	"  Esc, Backspace   back (Esc in the list clears the filter)",
	"  s                sort: name, allocated %, free memory, pending",
	"  /                filter nodes: key=value (a label, pool=NAME, cluster=NAME) or a substring",
	"  p                group nodes by pool",
	"  c                several clusters: each cluster's nodes together, or all as one list",
	"  w                the warnings counted in the header",
	"  u                the pending pods and why each waits",
	"  ?                this help",
	"  q, Ctrl-C        quit",
	"",
	"Bars show allocated/total GPU memory: green below 50%, yellow below 90%, red above.",
	"Pending = memory held by pods that have no GPU chosen yet.",
	"STATUS, MAXFREE/GPU: shown where the bars keep their room.",
	"largest fit: the largest request one GPU takes now (and on how many GPUs).",
	"cannot take pods: free memory on NotReady or cordoned nodes, never offered.",
	NULL,
};

/* --- the screen ---------------------------------------------------------------- */

/* Text at x only when all of it fits: a figure cut at the edge would read
 * as another.  Returns the column after it, or x. */
static int put_whole(struct tui_frame *f, struct tui_line *l, int x, enum tui_role role, const char *text)
{
	if (!text) {
		f->scr->oom = true;
		return x;
	}
	if (x + tui_screen_width(text, f->st->utf8) > f->scr->cols)
		return x;
	return tui_put(l, f->scr->cols, &f->scr->oom, x, role, text, -1);
}

/* Columns of the first n bytes of text. */
static int width_n(const char *text, size_t n, bool utf8)
{
	char *t = strndup(text, n);
	int w = t ? tui_screen_width(t, utf8) : (int)n;

	free(t);
	return w;
}

/* How many bytes of p go on a line with room columns: up to the last space
 * that fits, so that no word is cut; a word longer than the line is cut
 * where the line ends. */
static size_t wrap_cut(const char *p, int room, bool utf8)
{
	size_t n = strlen(p), cut = 0, i;

	if (width_n(p, n, utf8) <= room)
		return n;
	for (i = 1; i <= n && width_n(p, i, utf8) <= room; i++)
		if (p[i] == ' ')
			cut = i;
	return cut ? cut : (i > 1 ? i - 1 : 1);
}

/* text from x0 of line y on, broken at spaces into lines that start at
 * indent, never below y_end; f NULL only counts the lines.  Returns the
 * line after the last one written. */
static int put_wrapped(struct tui_frame *f, int cols, bool utf8, int y, int y_end, int x0, int indent,
		       enum tui_role role, const char *text)
{
	for (int x = x0; text && *text && y < y_end; y++, x = indent) {
		size_t cut = wrap_cut(text, cols - x, utf8);
		struct tui_line *l = f ? tui_frame_row(f, y) : NULL;

		if (l) {
			char *piece = strndup(text, cut);

			if (!piece)
				f->scr->oom = true;
			else
				tui_put(l, cols, &f->scr->oom, x, role, piece, -1);
			free(piece);
		}
		text += cut;
		while (*text == ' ')
			text++;
	}
	return y;
}

/* What -o wide says under its tables (the model's frag), per unit that
 * counts memory: the largest request one GPU takes now, and the free memory
 * of nodes that cannot take pods, which no request can get. */
static void put_fragmentation(struct tui_frame *f, struct tui_line *l, int x)
{
	static const enum mem_unit units[] = { UNIT_GIB, UNIT_MIB };

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		const char *name = mem_unit_name(units[u]);
		const struct model_frag *fr = &f->m->frag[units[u]];
		char *t;
		bool any = false, common = false;

		for (size_t i = 0; i < f->m->nnodes; i++)
			if (f->m->nodes[i].unit == units[u]) {
				any = true;
				common = common || f->m->nodes[i].common_request > 0;
			}
		if (!any)
			continue;
		t = tui_strf("  largest fit %lld %s (%zu GPU%s)", (long long)fr->largest, name, fr->gpus,
			     fr->gpus == 1 ? "" : "s");
		x = put_whole(f, l, x, TUI_ROLE_NORMAL, t);
		free(t);
		if (fr->unschedulable_nodes) {
			t = tui_strf("  cannot take pods %lld %s (%zu node%s)", (long long)fr->free_unschedulable, name,
				     fr->unschedulable_nodes, fr->unschedulable_nodes == 1 ? "" : "s");
			x = put_whole(f, l, x, TUI_ROLE_MID, t);
			free(t);
		}
		/* the free memory each pool's common request cannot use (model_strand.c) */
		if (common) {
			t = tui_strf("  stranded %lld %s", (long long)fr->stranded, name);
			x = put_whole(f, l, x, TUI_ROLE_NORMAL, t);
			free(t);
		}
	}
}

/* The counts line, abbreviated in a fixed order where it does not fit:
 * first the memory without a GPU goes, then the words shorten; the keys
 * (u) and (w) stay to the last. */
static void put_counts(struct tui_frame *f, struct tui_line *l)
{
	const struct model *m = f->m;
	size_t pend = tui_pending_pods(m), nw = m->warnings.len;
	char *detail = m->totals.mem_unassigned ? tui_strf(" (%lld %s without a GPU)", (long long)m->totals.mem_unassigned,
							    mem_unit_name(m->totals.unit))
						: strdup("");
	char *u = strdup(pend ? " (u)" : ""), *w = nw ? tui_strf("  warnings %zu (w)", nw) : strdup("");
	char *ws = nw ? tui_strf(" warn %zu (w)", nw) : strdup("");
	char *v[3];
	int x = 0;

	v[0] = tui_strf("nodes %zu  GPUs %zu  pods %zu  pending %zu%s%s", m->totals.nodes, m->totals.gpus, m->totals.pods,
			pend, detail ? detail : "", u ? u : "");
	v[1] = tui_strf("nodes %zu  GPUs %zu  pods %zu  pending %zu%s", m->totals.nodes, m->totals.gpus, m->totals.pods,
			pend, u ? u : "");
	v[2] = tui_strf("nodes %zu GPUs %zu pods %zu pend %zu%s", m->totals.nodes, m->totals.gpus, m->totals.pods, pend,
			u ? u : "");
	for (int i = 0; i < 3 && x == 0; i++) {
		const char *tail = i < 2 ? w : ws;

		if (v[i] && tail && tui_screen_width(v[i], f->st->utf8) + tui_screen_width(tail, f->st->utf8) <= f->scr->cols) {
			x = tui_put(l, f->scr->cols, &f->scr->oom, 0, TUI_ROLE_NORMAL, v[i], -1);
			x = tui_put(l, f->scr->cols, &f->scr->oom, x, TUI_ROLE_MID, tail, -1);
		}
	}
	if (x == 0)
		x = put_whole(f, l, 0, TUI_ROLE_NORMAL, v[2]);
	if (!detail || !u || !w || !ws)
		f->scr->oom = true;
	for (int i = 0; i < 3; i++)
		free(v[i]);
	free(detail);
	free(u);
	free(w);
	free(ws);
	put_fragmentation(f, l, x);
}

static void draw_header(struct tui_frame *f)
{
	struct tui_line *l = tui_frame_row(f, 0);
	const struct model *m = f->m;
	int cols = f->scr->cols, x;
	char use[32];
	bool *oom = &f->scr->oom;

	if (!l)
		return;
	l->fill = TUI_ROLE_TITLE;
	x = tui_put(l, cols, oom, 0, TUI_ROLE_TITLE, "cgpu top", -1);
	if (f->st->context)
		x = tui_putf(l, cols, oom, x, TUI_ROLE_TITLE, -1, "  context %s", f->st->context);
	x = tui_putf(l, cols, oom, x, TUI_ROLE_TITLE, -1, "  sort %s", tui_sort_name(f->s->sort));
	if (f->s->group_pools)
		x = tui_put(l, cols, oom, x, TUI_ROLE_TITLE, "  by pool", -1);
	if (f->s->filter)
		tui_putf(l, cols, oom, x, TUI_ROLE_TITLE, -1, "  filter %s (%zu of %zu nodes)", f->s->filter, f->s->nrows,
		     m ? m->nnodes : 0);

	if (!m || !(l = tui_frame_row(f, 1)))
		return;
	{
		const struct model_totals *t = &m->totals;
		int barw = tui_bar_width(cols);

		x = tui_put(l, cols, oom, 0, TUI_ROLE_NORMAL, "GPU memory ", -1);
		x = tui_put_bar(l, cols, oom, x, barw, t->mem_allocated, t->mem_total);
		char figures[64];

		tui_mem_readable(figures, sizeof(figures), t->mem_allocated, t->mem_total, t->unit);
		x = tui_putf(l, cols, oom, x, TUI_ROLE_NORMAL, -1, " %s (%s)", figures,
			     column_use_text(use, t->mem_allocated, t->mem_total, true));
		/* the compute figure whole, or shorter, never cut */
		if (m->any_core || t->core_total) {
			char *full = tui_strf("  compute %lld/%lld%% (%lld%%)", (long long)t->core_allocated,
					      (long long)t->core_total, column_percent(t->core_allocated, t->core_total));
			char *brief = tui_strf("  compute %lld%%", column_percent(t->core_allocated, t->core_total));
			int after = put_whole(f, l, x, TUI_ROLE_NORMAL, full);

			if (after == x)
				put_whole(f, l, x, TUI_ROLE_NORMAL, brief);
			free(full);
			free(brief);
		}
	}
	if (!(l = tui_frame_row(f, 2)))
		return;
	put_counts(f, l);
}

static void draw_status(struct tui_frame *f)
{
	struct tui_line *l = tui_frame_row(f, f->scr->lines - 1);
	const struct tui_status *st = f->st;
	int cols = f->scr->cols, x;
	bool *oom = &f->scr->oom;
	static const char keys[] = "?:help q:quit";

	if (!l)
		return;
	l->fill = TUI_ROLE_STATUS;
	if (f->s->editing) {
		x = tui_put(l, cols, oom, 0, TUI_ROLE_STATUS, "filter: ", -1);
		x = tui_put(l, cols, oom, x, TUI_ROLE_STATUS, f->s->edit ? f->s->edit : "", -1);
		f->scr->cursor_x = x < cols ? x : cols - 1;
		f->scr->cursor_y = f->scr->lines - 1;
		return;
	}
	if (st->loading)
		x = tui_put(l, cols, oom, 0, TUI_ROLE_STATUS, "loading...", -1);
	else if (st->age_s >= 0)
	{
		char age[32];

		tui_format_age(age, sizeof(age), st->age_s);
		x = tui_putf(l, cols, oom, 0, TUI_ROLE_STATUS, -1, "data %s old", age);
	}
	else
		x = tui_put(l, cols, oom, 0, TUI_ROLE_STATUS, "no data", -1);
	if (st->mode)
		x = tui_putf(l, cols, oom, x, TUI_ROLE_STATUS, -1, ", %s", st->mode);
	if (st->error) {
		char *e = tui_strf("error: %s", st->error);

		/* on the status line when it fits whole; else on lines of its
		 * own above it, wrapped, so that no word of it is lost */
		if (e && x + 2 + tui_screen_width(e, st->utf8) + (int)sizeof(keys) <= cols) {
			x = tui_put(l, cols, oom, x + 2, TUI_ROLE_ERROR, e, -1);
		} else if (e) {
			int n = put_wrapped(NULL, cols, st->utf8, 0, 4, 0, 2, TUI_ROLE_ERROR, e);
			int y0 = f->scr->lines - 1 - n;

			for (int y = y0; y < f->scr->lines - 1; y++)
				if (tui_frame_row(f, y))
					tui_frame_row(f, y)->fill = TUI_ROLE_STATUS;
			put_wrapped(f, cols, st->utf8, y0, f->scr->lines - 1, 0, 2, TUI_ROLE_ERROR, e);
		}
		if (!e)
			*oom = true;
		free(e);
	}
	if (x + (int)sizeof(keys) <= cols)
		tui_put(l, cols, oom, cols - (int)sizeof(keys) + 1, TUI_ROLE_STATUS, keys, -1);
}


static void draw_pane(struct tui_frame *f, const char *name, int y0, int height, bool scroll)
{
	struct tui_lines ls = { .cols = f->scr->cols, .oom = &f->scr->oom };
	size_t top = scroll ? f->s->detail_top : 0, c = 0;
	const struct model_node *n = name && !f->fleet ? tui_find_node(f->m, name) : NULL;

	/* several clusters: the row's key names the cluster, whose model the
	 * pane reads; a node gone is named by the key's part after the cluster */
	if (name && f->fleet && (n = tui_fleet_find(f->fleet, name, &c)))
		f->m = f->fleet->c[c].m;
	else if (name && f->fleet && strchr(name, '\x1f'))
		name = strchr(name, '\x1f') + 1;
	if (height < 1)
		return;
	if (!n) {
		struct tui_line *l = tui_frame_row(f, y0);

		if (l && name)
			tui_putf(l, f->scr->cols, &f->scr->oom, 0, TUI_ROLE_DIM, -1, "node %s is gone", name);
		return;
	}
	tui_node_pane(&ls, f->m, n);
	top = tui_scroll_clamp(top, ls.n, height);
	if (scroll) {
		f->scr->detail_top = top;
		f->scr->page = (size_t)height;
	}
	tui_lines_blit(f->scr, &ls, top, y0, height);
	tui_lines_release(&ls);
}

/* The help, wrapped: a key's description goes on under itself. */
static void draw_help(struct tui_frame *f, int y0, int height)
{
	int y = y0;

	for (int i = 0; help_text[i] && y < y0 + height; i++) {
		int indent = strncmp(help_text[i], "  ", 2) == 0 ? 20 : 3;

		if (!*help_text[i]) {
			y++;
			continue;
		}
		y = put_wrapped(f, f->scr->cols, f->st->utf8, y, y0 + height, 1, indent < f->scr->cols / 2 ? indent : 3,
				i == 0 ? TUI_ROLE_TITLE : TUI_ROLE_NORMAL, help_text[i]);
	}
}

/* The model's warnings, each wrapped onto the lines it needs, as many as
 * fit; the last line says how many more there are. */
static void draw_warnings(struct tui_frame *f, int y0, int height)
{
	const struct warnings *w = &f->m->warnings;
	int cols = f->scr->cols, y = y0 + 1, end = y0 + height;
	bool *oom = &f->scr->oom, utf8 = f->st->utf8;
	struct tui_line *l;
	size_t shown = 0;

	if (height < 1 || !(l = tui_frame_row(f, y0)))
		return;
	tui_putf(l, cols, oom, 0, TUI_ROLE_HEADER, -1, "%zu warning%s (w or Esc: back)", w->len, w->len == 1 ? "" : "s");
	for (; shown < w->len && y < end; shown++) {
		const struct warning *x = &w->items[shown];
		char *text = tui_strf("%s%s%s%s %s", x->code, x->object ? " " : "", x->object ? x->object : "",
				      x->object ? ":" : "", x->message);
		int need = put_wrapped(NULL, cols, utf8, 0, end, 1, 3, TUI_ROLE_NORMAL, text);

		/* room for it and, when more follow, for the line that says so */
		if (!text || y + need > end - (shown + 1 < w->len)) {
			free(text);
			break;
		}
		y = put_wrapped(f, cols, utf8, y, end, 1, 3, TUI_ROLE_NORMAL, text);
		free(text);
	}
	if (shown < w->len && (l = tui_frame_row(f, y < end ? y : end - 1)))
		tui_putf(l, cols, oom, 1, TUI_ROLE_DIM, -1, "%zu more: kubectl inspect cgpu prints them all", w->len - shown);
	if (!w->len && (l = tui_frame_row(f, y0 + 1)))
		tui_put(l, cols, oom, 1, TUI_ROLE_DIM, "none", -1);
}

/* The pods the header counts pending, each with its reason, as many as fit. */
static void draw_pending(struct tui_frame *f, int y0, int height)
{
	struct tui_lines ls = { .cols = f->scr->cols, .oom = &f->scr->oom };

	tui_pending_pane(&ls, f->m);
	tui_lines_blit(f->scr, &ls, 0, y0, height);
	tui_lines_release(&ls);
}

/* Several clusters: the model the views of one cluster read (warnings,
 * pending pods), the selected row's cluster's, else the first loaded. */
static const struct model *fleet_model(const struct tui_state *s, const struct tui_fleet *fl)
{
	size_t c = 0;

	if (tui_fleet_find(fl, tui_state_selected(s), &c))
		return fl->c[c].m;
	for (size_t i = 0; i < fl->n; i++)
		if (fl->c[i].m)
			return fl->c[i].m;
	return NULL;
}

static int layout(struct tui_screen *scr, const struct tui_state *s, const struct model *m, const struct tui_status *st,
		  const struct tui_fleet *fleet)
{
	struct tui_frame f = { .scr = scr, .s = s, .m = fleet ? fleet_model(s, fleet) : m, .st = st, .fleet = fleet };
	int body0 = 3, body_h;

	memset(scr, 0, sizeof(*scr));
	scr->cols = s->cols;
	scr->lines = s->lines;
	scr->cursor_x = scr->cursor_y = -1;
	scr->top = s->top;
	scr->detail_top = s->detail_top;
	scr->page = s->page;
	if (scr->lines <= 0 || scr->cols <= 0)
		return 0;
	scr->line = calloc((size_t)scr->lines, sizeof(*scr->line));
	if (!scr->line)
		return -1;
	for (int i = 0; i < scr->lines; i++)
		scr->line[i].utf8 = st->utf8;
	if (scr->cols < 20 || scr->lines < 6) {
		tui_put(&scr->line[0], scr->cols, &scr->oom, 0, TUI_ROLE_NORMAL, "terminal too small", -1);
		goto out;
	}
	if (fleet)
		body0 = tui_fleet_header(&f);
	else
		draw_header(&f);
	draw_status(&f);
	m = f.m;
	body_h = scr->lines - body0 - 1;
	if (s->view == TUI_VIEW_HELP) {
		draw_help(&f, body0, body_h);
	} else if (!m) {
		if (tui_frame_row(&f, body0))
			tui_put(tui_frame_row(&f, body0), scr->cols, &scr->oom, 1, TUI_ROLE_DIM,
			    st->loading ? "reading nodes and pods..." : "no data", -1);
	} else if (s->view == TUI_VIEW_WARNINGS) {
		draw_warnings(&f, body0, body_h);
	} else if (s->view == TUI_VIEW_PENDING) {
		draw_pending(&f, body0, body_h);
	} else if (s->view == TUI_VIEW_NODE) {
		draw_pane(&f, s->open_node, body0, body_h, true);
	} else if (scr->lines >= SPLIT_MIN_LINES && tui_state_selected(s)) {
		int pane_h = body_h * 2 / 5, list_h = body_h - pane_h;

		tui_list_draw(&f, body0, list_h);
		draw_pane(&f, tui_state_selected(s), body0 + list_h, pane_h, false);
	} else {
		tui_list_draw(&f, body0, body_h);
	}
out:
	if (scr->oom) {
		tui_screen_release(scr);
		return -1;
	}
	return 0;
}

int tui_layout_screen(struct tui_screen *scr, const struct tui_state *s, const struct model *m,
		      const struct tui_status *st)
{
	return layout(scr, s, m, st, NULL);
}

int tui_layout_fleet_screen(struct tui_screen *scr, const struct tui_state *s, const struct tui_fleet *fleet,
			    const struct tui_status *st)
{
	return layout(scr, s, NULL, st, fleet);
}
