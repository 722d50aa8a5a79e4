/* The live view over several clusters: see tui_fleet.h. */
#include "tui_fleet.h"

#include "columns.h"
#include "tui_pane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Between the cluster's index and the node's name: no node name holds it. */
#define KEY_SEP '\x1f'

char *tui_fleet_key(size_t cluster, const char *node)
{
	return tui_strf("%zu%c%s", cluster, KEY_SEP, node);
}

const struct model_node *tui_fleet_find(const struct tui_fleet *fl, const char *key, size_t *cluster)
{
	char *end = NULL;
	unsigned long long i;

	if (!fl || !key)
		return NULL;
	i = strtoull(key, &end, 10);
	if (end == key || *end != KEY_SEP || i >= fl->n || !fl->c[i].m)
		return NULL;
	if (cluster)
		*cluster = (size_t)i;
	return tui_find_node(fl->c[i].m, end + 1);
}

/* What a header line counts: memory in one unit, and the counts. */
struct tally {
	enum mem_unit unit;
	bool memory; /* some cluster counts memory */
	int64_t allocated, total;
	size_t nodes, gpus, pods, pending;
};

/* A cluster's figures added; memory in GiB while every cluster counts in
 * GiB, else in MiB (a cluster of slots counts none). */
static void tally_add(struct tally *t, const struct model *m)
{
	const struct model_totals *mt = &m->totals;

	t->nodes += mt->nodes;
	t->gpus += mt->gpus;
	t->pods += mt->pods;
	t->pending += tui_pending_pods(m);
	if (mt->unit == UNIT_SLOTS)
		return;
	if (t->memory && t->unit != mt->unit && t->unit == UNIT_GIB) {
		t->allocated *= 1024;
		t->total *= 1024;
		t->unit = UNIT_MIB;
	} else if (!t->memory) {
		t->unit = mt->unit;
	}
	t->memory = true;
	t->allocated += t->unit == mt->unit ? mt->mem_allocated : mt->mem_allocated * 1024;
	t->total += t->unit == mt->unit ? mt->mem_total : mt->mem_total * 1024;
}

/* "[bar] 64/218 GiB (29%)  nodes 4  GPUs 15  pods 10  pending 2" from x;
 * returns the column after it. */
static int put_tally(struct tui_frame *f, struct tui_line *l, int x, const struct tally *t)
{
	int cols = f->scr->cols;
	bool *oom = &f->scr->oom;
	char figures[64], use[32];

	if (t->memory) {
		x = tui_put_bar(l, cols, oom, x, tui_bar_width(cols), t->allocated, t->total);
		tui_mem_readable(figures, sizeof(figures), t->allocated, t->total, t->unit);
		x = tui_putf(l, cols, oom, x, TUI_ROLE_NORMAL, -1, " %s (%s) ", figures,
			     column_use_text(use, t->allocated, t->total, true));
	}
	return tui_putf(l, cols, oom, x, TUI_ROLE_NORMAL, -1, " nodes %zu  GPUs %zu  pods %zu  pending %zu", t->nodes,
			t->gpus, t->pods, t->pending);
}

static void fleet_title(struct tui_frame *f, const struct tally *all)
{
	struct tui_line *l = tui_frame_row(f, 0);
	int cols = f->scr->cols, x;
	bool *oom = &f->scr->oom;

	if (!l)
		return;
	l->fill = TUI_ROLE_TITLE;
	x = tui_putf(l, cols, oom, 0, TUI_ROLE_TITLE, -1, "cgpu top  %zu clusters  sort %s", f->fleet->n,
		     tui_sort_name(f->s->sort));
	if (f->s->group_clusters)
		x = tui_put(l, cols, oom, x, TUI_ROLE_TITLE, "  by cluster", -1);
	if (f->s->group_pools)
		x = tui_put(l, cols, oom, x, TUI_ROLE_TITLE, "  by pool", -1);
	if (f->s->filter)
		tui_putf(l, cols, oom, x, TUI_ROLE_TITLE, -1, "  filter %s (%zu of %zu nodes)", f->s->filter, f->s->nrows,
			 all->nodes);
}

/* Lines for the clusters: as many as leave the list most of the screen. */
static size_t cluster_lines(const struct tui_frame *f)
{
	size_t room = f->scr->lines > 9 ? (size_t)(f->scr->lines - 6) / 3 : 1;

	return f->fleet->n <= room ? f->fleet->n : room;
}

int tui_fleet_header(struct tui_frame *f)
{
	const struct tui_fleet *fl = f->fleet;
	struct tally all = { 0 };
	size_t shown = cluster_lines(f);
	int name_w = 0, y = 2, cols = f->scr->cols;
	struct tui_line *l;

	for (size_t i = 0; i < fl->n; i++) {
		int w = tui_screen_width(fl->c[i].name, f->st->utf8);

		name_w = w > name_w ? w : name_w;
		if (fl->c[i].m)
			tally_add(&all, fl->c[i].m);
	}
	name_w = name_w > cols / 4 ? cols / 4 : name_w;
	fleet_title(f, &all);
	if ((l = tui_frame_row(f, 1))) {
		int x = tui_put(l, cols, &f->scr->oom, 0, TUI_ROLE_NORMAL, "GPU memory ", -1);

		put_tally(f, l, x, &all);
	}
	for (size_t i = 0; i < shown && (l = tui_frame_row(f, y)); i++, y++) {
		const struct tui_cluster *c = &fl->c[i];
		struct tally one = { 0 };
		int x = tui_put(l, cols, &f->scr->oom, 2, TUI_ROLE_POOL, c->name, name_w) + 1;

		x = x < name_w + 3 ? name_w + 3 : x;
		if (c->m) {
			tally_add(&one, c->m);
			x = put_tally(f, l, x, &one) + 2;
		} else if (!c->error) {
			tui_put(l, cols, &f->scr->oom, x, TUI_ROLE_DIM, "loading...", -1);
		}
		/* cut at the edge: the whole line is under the status line's error too */
		if (c->error)
			tui_putf(l, cols, &f->scr->oom, x, TUI_ROLE_ERROR, -1, "error: %s", c->error);
	}
	if (shown < fl->n && (l = tui_frame_row(f, y++)))
		tui_putf(l, cols, &f->scr->oom, 2, TUI_ROLE_DIM, -1, "%zu more cluster%s (/ cluster=NAME shows one)",
			 fl->n - shown, fl->n - shown == 1 ? "" : "s");
	return y;
}
