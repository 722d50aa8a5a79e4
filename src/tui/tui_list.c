/* The live view's node list: see tui_list.h.  The bars take the room the
 * figures right of them leave. */
#include "tui_list.h"

#include "columns.h"
#include "tui_fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Node list geometry, shared by the header line and the rows.  The
 * figures right of the bars are the columns table's live columns, in
 * column_live_order; x and w are by that order. */
struct list_geom {
	bool unit_in_cell; /* nodes disagree on the unit: say it in every row */
	int cluster_w;	   /* the CLUSTER column, first, with several clusters; else 0 */
	int name_x, name_w, bars_x, bar_w, per, nbars; /* nbars 0 = one bar per node */
	int x[COL_COUNT], w[COL_COUNT];	       /* w 0: the column is not shown */
};

/* --- filter and order ------------------------------------------------------ */

bool tui_node_matches(const struct model_node *n, const char *filter)
{
	const char *eq;

	if (!filter || !*filter)
		return true;
	eq = strchr(filter, '=');
	if (eq) {
		size_t klen = (size_t)(eq - filter);
		const char *value = eq + 1;

		if (klen == 4 && strncmp(filter, "pool", 4) == 0 && n->pool && strcmp(n->pool, value) == 0)
			return true;
		for (size_t i = 0; i < n->labels.len; i++) {
			const struct kv *kv = &n->labels.items[i];

			if (strlen(kv->key) == klen && strncmp(kv->key, filter, klen) == 0 &&
			    strcmp(kv->value ? kv->value : "", value) == 0)
				return true;
		}
		return false;
	}
	if (strstr(n->name, filter) || (n->pool && strstr(n->pool, filter)))
		return true;
	for (size_t i = 0; i < n->labels.len; i++) {
		const struct kv *kv = &n->labels.items[i];

		if (strstr(kv->key, filter) || (kv->value && strstr(kv->value, filter)))
			return true;
	}
	return false;
}

static int cmp_str_last_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a == NULL) - (b == NULL);
	return strcmp(a, b);
}

/* The sort orders are the columns table's (columns.h); the live view shows
 * the fullest, freest or most pending node first. */
static const char *const sort_keys[TUI_SORT_COUNT] = {
	[TUI_SORT_NAME] = "name",
	[TUI_SORT_ALLOC] = "memory",
	[TUI_SORT_FREE] = "free",
	[TUI_SORT_PENDING] = "pending",
};

static int cmp_nodes(const void *pa, const void *pb, void *ctx)
{
	const struct model_node *a = *(const struct model_node *const *)pa;
	const struct model_node *b = *(const struct model_node *const *)pb;
	const struct tui_state *s = ctx;
	const struct column *col;
	int c = 0;

	if (s->group_pools && (c = cmp_str_last_null(a->pool, b->pool)) != 0)
		return c;
	if (s->sort > TUI_SORT_NAME && s->sort < TUI_SORT_COUNT && (col = column_by_sort_key(sort_keys[s->sort])) &&
	    col->compare)
		c = col->compare(b, a);
	return c ? c : strcmp(a->name, b->name);
}

long tui_layout_rows(const struct model *m, const struct tui_state *s, const char ***ret)
{
	const struct model_node **nodes;
	const char **names;
	size_t n = 0;

	*ret = NULL;
	if (!m || !m->nnodes)
		return 0;
	nodes = calloc(m->nnodes, sizeof(*nodes));
	if (!nodes)
		return -1;
	for (size_t i = 0; i < m->nnodes; i++)
		if (tui_node_matches(&m->nodes[i], s->filter))
			nodes[n++] = &m->nodes[i];
	/* the model keeps its nodes in name order already */
	if (s->group_pools || s->sort != TUI_SORT_NAME)
		qsort_r(nodes, n, sizeof(*nodes), cmp_nodes, (void *)s);
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names) {
		free(nodes);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = nodes[i]->name;
	free(nodes);
	*ret = names;
	return (long)n;
}

/* A row of several clusters. */
struct fleet_row {
	const struct model_node *n;
	size_t c;
};

/* cluster=NAME picks a cluster; anything else matches a node as for one
 * cluster, or is a substring of the cluster's name. */
static bool fleet_matches(const struct tui_cluster *c, const struct model_node *n, const char *filter)
{
	if (filter && strncmp(filter, "cluster=", 8) == 0)
		return strcmp(c->name, filter + 8) == 0;
	return tui_node_matches(n, filter) || (filter && strstr(c->name, filter));
}

/* Grouped by cluster (in the fleet's order) when asked, then as for one
 * cluster; a name in several clusters in the fleet's order. */
static int cmp_fleet_rows(const void *pa, const void *pb, void *ctx)
{
	const struct fleet_row *a = pa, *b = pb;
	const struct tui_state *s = ctx;
	int c;

	if (s->group_clusters && a->c != b->c)
		return a->c < b->c ? -1 : 1;
	if ((c = cmp_nodes(&a->n, &b->n, ctx)) != 0)
		return c;
	return a->c < b->c ? -1 : a->c > b->c;
}

long tui_fleet_rows(const struct tui_fleet *fl, const struct tui_state *s, char ***ret)
{
	struct fleet_row *rows;
	size_t n = 0, all = 0;
	char **keys;
	bool oom = false;

	*ret = NULL;
	for (size_t c = 0; c < fl->n; c++)
		all += fl->c[c].m ? fl->c[c].m->nnodes : 0;
	if (!(rows = calloc(all ? all : 1, sizeof(*rows))))
		return -1;
	for (size_t c = 0; c < fl->n; c++)
		for (size_t i = 0; fl->c[c].m && i < fl->c[c].m->nnodes; i++)
			if (fleet_matches(&fl->c[c], &fl->c[c].m->nodes[i], s->filter))
				rows[n++] = (struct fleet_row){ .n = &fl->c[c].m->nodes[i], .c = c };
	qsort_r(rows, n, sizeof(*rows), cmp_fleet_rows, (void *)s);
	keys = calloc(n ? n : 1, sizeof(*keys));
	for (size_t i = 0; keys && i < n; i++)
		oom = oom || !(keys[i] = tui_fleet_key(rows[i].c, rows[i].n->name));
	free(rows);
	if (!keys || oom) {
		for (size_t i = 0; keys && i < n; i++)
			free(keys[i]);
		free(keys);
		return -1;
	}
	*ret = keys;
	return (long)n;
}

/* --- the columns right of the bars -------------------------------------------- */

static const struct column *live_column(size_t c)
{
	return &columns[column_live_order[c]];
}

static bool spare(const struct column *c)
{
	return c->live == LIVE_SPARE || c->live == LIVE_SPARE_WORDS;
}

static bool words(const struct column *c)
{
	return c->live == LIVE_WORDS || c->live == LIVE_SPARE_WORDS;
}

static char *live_header(const struct tui_frame *f, const struct list_geom *g, size_t c)
{
	return column_live_header(live_column(c), f->m->totals.unit, g->unit_in_cell);
}

static char *live_cell(const struct tui_frame *f, const struct list_geom *g, size_t c, const struct model_node *n)
{
	return column_live_cell(live_column(c), f->m, n, g->unit_in_cell);
}

static enum tui_role live_role(size_t c, const struct model_node *n)
{
	return live_column(c)->tone ? tui_tone_role(live_column(c)->tone(n)) : TUI_ROLE_NORMAL;
}

/* Bar room a spare column must leave: a bar per GPU of at least 4 cells. */
static int spare_room(int maxg)
{
	return maxg * 5 > 16 ? maxg * 5 : 16;
}

/* Is the column shown: for one cluster as its model says, for several
 * where any cluster's does. */
static bool column_shown(const struct tui_frame *f, size_t c)
{
	if (!f->fleet)
		return column_in_live(live_column(c), f->m);
	for (size_t i = 0; i < f->fleet->n; i++)
		if (f->fleet->c[i].m && column_in_live(live_column(c), f->fleet->c[i].m))
			return true;
	return false;
}

/* With several clusters, row i's cell is read from its cluster's model. */
static void row_model(struct tui_frame *f, const size_t *cl, size_t i)
{
	if (f->fleet && cl)
		f->m = f->fleet->c[cl[i]].m;
}

/* Each column as wide as its widest cell or its header, over every node
 * of the list (so that scrolling does not move the columns). */
static void column_widths(struct tui_frame *f, struct list_geom *g, const struct model_node *const *nodes,
			  const size_t *cl)
{
	const struct model *selected = f->m;

	for (size_t c = 0; c < column_live_count; c++) {
		char *t;

		if (!column_shown(f, c))
			continue;
		g->w[c] = (t = live_header(f, g, c)) ? (int)strlen(t) : 6;
		free(t);
		for (size_t i = 0; i < f->s->nrows; i++) {
			row_model(f, cl, i);
			if (nodes[i] && (t = live_cell(f, g, c, nodes[i]))) {
				if (tui_screen_width(t, f->st->utf8) > g->w[c])
					g->w[c] = tui_screen_width(t, f->st->utf8);
				free(t);
			}
			f->m = selected;
		}
	}
}

/* Several clusters: the most GPUs of a node, whether units differ, and
 * the CLUSTER column's width (its widest name among the rows). */
static void fleet_geometry(struct tui_frame *f, struct list_geom *g, const size_t *cl, int *maxg)
{
	const struct model *first = NULL;

	g->cluster_w = (int)strlen("CLUSTER");
	for (size_t i = 0; i < f->fleet->n; i++) {
		const struct model *m = f->fleet->c[i].m;

		if (!m)
			continue;
		*maxg = m->max_gpus > *maxg ? m->max_gpus : *maxg;
		g->unit_in_cell = g->unit_in_cell || m->totals.mixed_units || (first && first->totals.unit != m->totals.unit);
		first = first ? first : m;
	}
	for (size_t i = 0; cl && i < f->s->nrows; i++) {
		int w = tui_screen_width(f->fleet->c[cl[i]].name, f->st->utf8);

		g->cluster_w = w > g->cluster_w ? w : g->cluster_w;
	}
	if (g->cluster_w > f->scr->cols / 5)
		g->cluster_w = f->scr->cols / 5 > 7 ? f->scr->cols / 5 : 7;
	g->name_x = g->cluster_w + 1;
}

static void list_geometry(struct tui_frame *f, struct list_geom *g, const struct model_node *const *nodes,
			  const size_t *cl)
{
	int cols = f->scr->cols, right = -1, avail, maxg = f->m->max_gpus, x;

	memset(g, 0, sizeof(*g));
	g->unit_in_cell = f->m->totals.mixed_units;
	if (f->fleet)
		fleet_geometry(f, g, cl, &maxg);
	g->name_w = (int)strlen(columns[COL_NAME].live_header);
	for (size_t i = 0; i < f->s->nrows; i++) {
		int w = nodes[i] ? tui_screen_width(nodes[i]->name, f->st->utf8) : 0;

		if (w > g->name_w)
			g->name_w = w;
	}
	column_widths(f, g, nodes, cl);
	if (g->name_w > cols * 2 / 5)
		g->name_w = cols * 2 / 5 > 8 ? cols * 2 / 5 : 8;
	if (maxg < 1)
		maxg = 1;
	for (size_t c = 0; c < column_live_count; c++)
		if (!spare(live_column(c)) && g->w[c])
			right += g->w[c] + 1;
	g->bars_x = g->name_x + g->name_w + 1;
	avail = cols - g->bars_x - right - 1;
	for (size_t c = 0; c < column_live_count; c++) {
		if (!spare(live_column(c)) || !g->w[c])
			continue;
		if (avail - g->w[c] - 1 >= spare_room(maxg))
			avail -= g->w[c] + 1;
		else
			g->w[c] = 0;
	}
	g->per = avail / maxg;
	g->bar_w = g->per - 1;
	if (maxg == 1)
		g->bar_w = avail;
	if (g->bar_w > BAR_MAX)
		g->bar_w = BAR_MAX;
	g->nbars = maxg;
	if (g->bar_w < 4) {
		/* too many GPUs for one bar each: one bar for the whole node */
		g->nbars = 0;
		g->bar_w = avail > BAR_MAX ? BAR_MAX : avail;
	}
	if (g->bar_w < 3)
		g->bar_w = 0;
	if (g->nbars)
		g->per = g->bar_w + 1;
	x = g->bars_x + (g->nbars ? g->per * g->nbars : g->bar_w + 1);
	for (size_t c = 0; c < column_live_count; c++) {
		g->x[c] = x;
		if (g->w[c])
			x += g->w[c] + 1;
	}
}

/* A column is shown whole or not at all: a figure cut at the screen's
 * edge would read as another figure. */
static bool fits(const struct tui_frame *f, int x, int w)
{
	return x + w <= f->scr->cols;
}

/* The longest of the headers that fits in w columns, or NULL. */
static const char *header_fit(const char *const *choices, int w)
{
	for (; *choices; choices++)
		if ((int)strlen(*choices) <= w)
			return *choices;
	return NULL;
}

/* Text in a column of width w: words on the left, figures on the right. */
static void put_cell(struct tui_frame *f, struct tui_line *l, const struct list_geom *g, size_t c,
		     enum tui_role role, const char *text)
{
	tui_putf(l, f->scr->cols, &f->scr->oom, g->x[c], role, -1, words(live_column(c)) ? "%-*s" : "%*s", g->w[c],
		 text);
}

static void list_header(struct tui_frame *f, const struct list_geom *g, int y)
{
	static const char *const per_gpu[] = { "GPUS (allocated/total)", "GPUS", NULL };
	static const char *const one_bar[] = { "GPU MEMORY", "GPU", NULL };
	struct tui_line *l = tui_frame_row(f, y);
	const char *bars;

	if (!l)
		return;
	l->fill = TUI_ROLE_HEADER;
	if (g->cluster_w)
		tui_put(l, f->scr->cols, &f->scr->oom, 0, TUI_ROLE_HEADER, "CLUSTER", g->cluster_w);
	tui_put(l, f->scr->cols, &f->scr->oom, g->name_x, TUI_ROLE_HEADER, columns[COL_NAME].live_header, g->name_w);
	/* the bars' header stops before the first column's */
	bars = g->bar_w ? header_fit(g->nbars ? per_gpu : one_bar, g->x[0] - g->bars_x - 1) : NULL;
	if (bars)
		tui_put(l, f->scr->cols, &f->scr->oom, g->bars_x, TUI_ROLE_HEADER, bars, -1);
	for (size_t c = 0; c < column_live_count; c++) {
		char *h;

		if (!g->w[c] || !fits(f, g->x[c], g->w[c]))
			continue;
		if (!(h = live_header(f, g, c))) {
			f->scr->oom = true;
			continue;
		}
		put_cell(f, l, g, c, TUI_ROLE_HEADER, h);
		free(h);
	}
}

/* A name longer than w keeps its start and its end, cut in the middle:
 * node names of one cluster often share a long prefix and differ at the
 * end (cn-shanghai.192.168.7.157, .158, ...). */
static void put_name(struct tui_line *l, int cols, bool *oom, int x, const char *name, int w)
{
	size_t len = strlen(name), head, tail;

	if (w <= 0)
		return;
	if (len <= (size_t)w || w < 4) {
		tui_put(l, cols, oom, x, TUI_ROLE_NORMAL, name, w);
		return;
	}
	head = (size_t)w / 3;
	tail = (size_t)w - 1 - head;
	tui_putf(l, cols, oom, x, TUI_ROLE_NORMAL, w, "%.*s~%s", (int)head, name, name + len - tail);
}

/* A node's row; cluster is its CLUSTER cell, or NULL with one cluster. */
static void list_row(struct tui_frame *f, const struct list_geom *g, struct tui_line *l, const struct model_node *n,
		     const char *cluster, bool selected)
{
	int cols = f->scr->cols;
	bool *oom = &f->scr->oom;

	l->selected = selected;
	if (cluster && g->cluster_w)
		put_name(l, cols, oom, 0, cluster, g->cluster_w);
	put_name(l, cols, oom, g->name_x, n->name, g->name_w);
	if (g->bar_w && g->nbars && n->gpus) {
		for (int i = 0; i < n->ngpus && i < g->nbars; i++)
			tui_put_bar(l, cols, oom, g->bars_x + i * g->per, g->bar_w, n->gpus[i].mem_allocated,
				n->gpus[i].mem_total);
	} else if (g->bar_w) {
		tui_put_bar(l, cols, oom, g->bars_x, g->bar_w, n->mem_allocated, n->mem_total);
	}
	for (size_t c = 0; c < column_live_count; c++) {
		char *t;

		if (!g->w[c])
			continue;
		if (!(t = live_cell(f, g, c, n))) {
			*oom = true;
			continue;
		}
		put_cell(f, l, g, c, live_role(c, n), t);
		free(t);
	}
}

/* The list as display lines: pool headings (when grouped) and nodes. */
struct dline {
	const struct model_node *node; /* NULL = pool heading */
	const char *pool;
	size_t row;
};

static struct dline *display_lines(struct tui_frame *f, const struct model_node *const *nodes, const size_t *cl,
				   size_t *ret_n, size_t *ret_sel)
{
	struct dline *d = calloc(f->s->nrows * 2 + 1, sizeof(*d));
	size_t n = 0;
	const char *prev = NULL;

	*ret_sel = 0;
	if (!d)
		return NULL;
	for (size_t i = 0; i < f->s->nrows; i++) {
		const struct model_node *node = nodes[i];

		if (!node)
			continue;
		if (f->s->group_pools && (i == 0 || cmp_str_last_null(prev, node->pool) != 0 ||
					  (cl && f->s->group_clusters && cl[i] != cl[i - 1])))
			d[n++] = (struct dline){ .pool = node->pool ? node->pool : "(no pool)", .row = i };
		prev = node->pool;
		if (i == f->s->sel)
			*ret_sel = n;
		d[n++] = (struct dline){ .node = node, .row = i };
	}
	*ret_n = n;
	return d;
}

static void pool_heading(struct tui_frame *f, struct tui_line *l, const struct dline *d, size_t i, size_t n)
{
	size_t count = 0, gpus = 0, pods = 0;
	int64_t alloc = 0, total = 0;
	bool one_unit = true;
	int x;

	for (size_t j = i + 1; j < n && d[j].node; j++) {
		const struct model_node *node = d[j].node;

		count++;
		gpus += node->gpus ? (size_t)node->ngpus : 0;
		pods += node->npods;
		alloc += node->mem_allocated;
		total += node->mem_total;
		one_unit = one_unit && node->unit == d[i + 1].node->unit;
	}
	l->fill = TUI_ROLE_POOL;
	x = tui_putf(l, f->scr->cols, &f->scr->oom, 0, TUI_ROLE_POOL, -1, "pool %s: %zu node%s, %zu GPU%s, %zu pod%s",
		     d[i].pool, count, count == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s", pods, pods == 1 ? "" : "s");
	/* the group's totals, where its nodes count in one unit */
	if (count && one_unit) {
		char figures[64];

		tui_mem_readable(figures, sizeof(figures), alloc, total, d[i + 1].node->unit);
		tui_putf(l, f->scr->cols, &f->scr->oom, x, TUI_ROLE_POOL, -1, ", memory %s (%lld%%)", figures,
			 column_percent(alloc, total));
	}
}

/* The model's node of each row, looked up once (NULL: gone since); with
 * several clusters, each row's cluster in *cl (else NULL). */
static const struct model_node **row_nodes(const struct tui_frame *f, size_t **cl)
{
	const struct model_node **nodes = calloc(f->s->nrows ? f->s->nrows : 1, sizeof(*nodes));

	*cl = f->fleet ? calloc(f->s->nrows ? f->s->nrows : 1, sizeof(**cl)) : NULL;
	if (f->fleet && !*cl) {
		free(nodes);
		return NULL;
	}
	for (size_t i = 0; nodes && i < f->s->nrows; i++)
		nodes[i] = f->fleet ? tui_fleet_find(f->fleet, f->s->rows[i], &(*cl)[i]) : tui_find_node(f->m, f->s->rows[i]);
	return nodes;
}

void tui_list_draw(struct tui_frame *f, int y0, int height)
{
	size_t *cl = NULL;
	const struct model_node **nodes = row_nodes(f, &cl);
	const struct model *selected = f->m;
	struct list_geom g;
	struct dline *d;
	size_t n, sel, top;

	if (!nodes) {
		free(cl);
		f->scr->oom = true;
		return;
	}
	list_geometry(f, &g, nodes, cl);
	list_header(f, &g, y0);
	y0++;
	height--;
	if (height < 1 || !f->s->nrows) {
		struct tui_line *l = height < 1 ? NULL : tui_frame_row(f, y0);

		if (l)
			tui_put(l, f->scr->cols, &f->scr->oom, 1, TUI_ROLE_DIM,
			    f->s->filter ? "no node matches the filter (Esc clears it)"
					 : "no node offers shared GPU resources", -1);
		if (height >= 1)
			f->scr->page = (size_t)height;
		free(nodes);
		free(cl);
		return;
	}
	f->scr->page = (size_t)height;
	d = display_lines(f, nodes, cl, &n, &sel);
	free(nodes);
	if (!d) {
		free(cl);
		f->scr->oom = true;
		return;
	}
	/* a heading right above the selection comes into view with it */
	if (sel > 0 && !d[sel - 1].node)
		sel--;
	top = f->s->top;
	if (top > sel)
		top = sel;
	if (sel >= top + (size_t)height)
		top = sel - (size_t)height + 1;
	if (!d[sel].node)
		sel++;
	if (sel >= top + (size_t)height)
		top = sel - (size_t)height + 1;
	top = tui_scroll_clamp(top, n, height);
	f->scr->top = top;
	for (size_t i = top; i < n && i < top + (size_t)height; i++) {
		struct tui_line *l = tui_frame_row(f, y0 + (int)(i - top));

		if (!l)
			break;
		row_model(f, cl, d[i].row);
		if (d[i].node)
			list_row(f, &g, l, d[i].node, cl ? f->fleet->c[cl[d[i].row]].name : NULL, d[i].row == f->s->sel);
		else
			pool_heading(f, l, d, i, n);
		f->m = selected;
	}
	free(d);
	free(cl);
}
