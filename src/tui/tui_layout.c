#include "tui_layout.h"

#include "columns.h"
#include "usage.h"
#include "tui_pane.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this height the selected node's pane does not fit beside the list. */
#define SPLIT_MIN_LINES 30

enum tui_role tui_level(int64_t allocated, int64_t total)
{
	if (total <= 0)
		return allocated > 0 ? TUI_ROLE_HIGH : TUI_ROLE_DIM;
	/* compare allocated/total with 1/2 and 9/10 without dividing */
	if (allocated * 2 < total)
		return TUI_ROLE_LOW;
	if (allocated * 10 < total * 9)
		return TUI_ROLE_MID;
	return TUI_ROLE_HIGH;
}

int tui_percent(int64_t allocated, int64_t total)
{
	if (total <= 0 || allocated <= 0)
		return 0;
	return (int)(allocated * 100 / total);
}

const char *tui_use_text(char buf[16], int64_t allocated, int64_t total)
{
	/* nothing offered yet something allocated: not 0% but over-allocated */
	if (total <= 0 && allocated > 0)
		return strcpy(buf, "over");
	snprintf(buf, 16, "%d%%", tui_percent(allocated, total));
	return buf;
}

int tui_bar_fill(int64_t allocated, int64_t total, int width)
{
	int64_t fill;

	if (width <= 0 || allocated <= 0)
		return 0;
	if (total <= 0 || allocated >= total)
		return width;
	fill = allocated * width / total;
	return fill < 1 ? 1 : (int)fill;
}

const char *tui_unit_name(enum mem_unit unit)
{
	switch (unit) {
	case UNIT_GIB: return "GiB";
	case UNIT_MIB: return "MiB";
	case UNIT_SLOTS: return "slots";
	}
	return "?";
}

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

/* --- building lines ---------------------------------------------------------- */

static int cmp_name_node(const void *key, const void *elem)
{
	return strcmp(key, ((const struct model_node *)elem)->name);
}

/* The model keeps its nodes sorted by name (model_finish). */
static const struct model_node *find_node(const struct model *m, const char *name)
{
	if (!m || !m->nnodes || !name)
		return NULL;
	return bsearch(name, m->nodes, m->nnodes, sizeof(m->nodes[0]), cmp_name_node);
}

static const char *const help_text[] = {
	"kubectl inspect cgpu top: GPU sharing, live",
	"",
	"  Up/Down, j/k     move (scroll in a node)",
	"  PgUp/PgDn        move a page",
	"  Home/End, g/G    first/last node",
	"  Enter, Right     open the selected node: its GPUs and the pods on each",
	"  Esc, Backspace   back (Esc in the list clears the filter)",
	"  s                sort: name, allocated %, free memory, pending",
	"  /                filter nodes: key=value (a label, or pool=NAME) or a substring",
	"  p                group nodes by pool",
	"  w                the warnings counted in the header",
	"  ?                this help",
	"  q, Ctrl-C        quit",
	"",
	"Bars show allocated/total GPU memory: green below 50%, yellow below 90%, red above.",
	"Pending = memory held by pods that have no GPU chosen yet.",
	NULL,
};

/* --- the screen ---------------------------------------------------------------- */

struct frame {
	struct tui_screen *scr;
	const struct tui_state *s;
	const struct model *m;
	const struct tui_status *st;
};

static struct tui_line *row(struct frame *f, int y)
{
	return y >= 0 && y < f->scr->lines ? &f->scr->line[y] : NULL;
}

static size_t pending_pods(const struct model *m)
{
	size_t n = m->nunscheduled;

	for (size_t i = 0; i < m->npods; i++)
		if (m->pods[i].node && tui_pod_pending(&m->pods[i]))
			n++;
	return n;
}

static void draw_header(struct frame *f)
{
	struct tui_line *l = row(f, 0);
	const struct model *m = f->m;
	int cols = f->scr->cols, x;
	char use[16];
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

	if (!m || !(l = row(f, 1)))
		return;
	{
		const struct model_totals *t = &m->totals;
		int barw = cols / 3 > BAR_MAX ? BAR_MAX : cols / 3;

		x = tui_put(l, cols, oom, 0, TUI_ROLE_NORMAL, "GPU memory ", -1);
		x = tui_put_bar(l, cols, oom, x, barw, t->mem_allocated, t->mem_total);
		char figures[64];

		tui_mem_readable(figures, sizeof(figures), t->mem_allocated, t->mem_total, t->unit);
		x = tui_putf(l, cols, oom, x, TUI_ROLE_NORMAL, -1, " %s (%s)", figures,
			     tui_use_text(use, t->mem_allocated, t->mem_total));
		if (m->any_core || t->core_total)
			tui_putf(l, cols, oom, x, TUI_ROLE_NORMAL, -1, "  compute %lld/%lld%% (%d%%)",
			     (long long)t->core_allocated, (long long)t->core_total,
			     tui_percent(t->core_allocated, t->core_total));
	}
	if (!(l = row(f, 2)))
		return;
	x = tui_putf(l, cols, oom, 0, TUI_ROLE_NORMAL, -1, "nodes %zu  GPUs %zu  pods %zu  pending %zu",
		 m->totals.nodes, m->totals.gpus, m->totals.pods, pending_pods(m));
	if (m->totals.mem_unassigned)
		x = tui_putf(l, cols, oom, x, TUI_ROLE_NORMAL, -1, " (%lld %s without a GPU)",
			 (long long)m->totals.mem_unassigned, tui_unit_name(m->totals.unit));
	if (m->warnings.len)
		tui_putf(l, cols, oom, x, TUI_ROLE_MID, -1, "  warnings %zu (w)", m->warnings.len);
}

static void draw_status(struct frame *f)
{
	struct tui_line *l = row(f, f->scr->lines - 1);
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
		int room = cols - x - 2 - (int)sizeof(keys);

		x = tui_putf(l, cols, oom, x, TUI_ROLE_ERROR, room > 10 ? room : -1, "  error: %s", st->error);
	}
	if (x + (int)sizeof(keys) <= cols)
		tui_put(l, cols, oom, cols - (int)sizeof(keys) + 1, TUI_ROLE_STATUS, keys, -1);
}

/* Node list geometry, shared by the header line and the rows. */
struct list_geom {
	bool unit_in_cell; /* nodes disagree on the unit: say it in every row */
	int name_w, bars_x, bar_w, per, nbars; /* nbars 0 = one bar per node */
	int mem_x, mem_w, pct_x, pods_x, pend_x, pend_w;
	int used_x, used_w; /* used_w 0: no usage source */
};

static int pending_width(const struct model_node *n)
{
	return snprintf(NULL, 0, "%lld", (long long)n->mem_pending);
}

static char *node_mem_text(const struct list_geom *g, const struct model_node *n)
{
	char *s = NULL;

	if (g->unit_in_cell)
		return tui_mem_text(n->mem_allocated, n->mem_total, n->unit);
	if (asprintf(&s, "%lld/%lld", (long long)n->mem_allocated, (long long)n->mem_total) < 0)
		return NULL;
	return s;
}

static char *memory_header(const struct frame *f, const struct list_geom *g)
{
	const char *h = columns[COL_MEMORY].live_header, *p = strstr(h, "(%s)");
	char *s = NULL;

	/* "MEMORY(%s)" from the columns table; without a single unit, just "MEMORY" */
	if (!p)
		return strdup(h);
	if (g->unit_in_cell) {
		if (asprintf(&s, "%.*s", (int)(p - h), h) < 0)
			return NULL;
		return s;
	}
	if (asprintf(&s, "%.*s(%s)%s", (int)(p - h), h, tui_unit_name(f->m->totals.unit), p + 4) < 0)
		return NULL;
	return s;
}

/* PENDING is memory: "PENDING(GiB)" when every row is in one unit. */
static char *pending_header(const struct frame *f, const struct list_geom *g)
{
	char *s = NULL;

	if (g->unit_in_cell)
		return strdup(columns[COL_PENDING].live_header);
	if (asprintf(&s, "%s(%s)", columns[COL_PENDING].live_header, tui_unit_name(f->m->totals.unit)) < 0)
		return NULL;
	return s;
}

static void list_geometry(struct frame *f, struct list_geom *g)
{
	int cols = f->scr->cols, right, avail, maxg = f->m->max_gpus;

	char *h;

	memset(g, 0, sizeof(*g));
	g->unit_in_cell = f->m->totals.mixed_units;
	g->name_w = (int)strlen(columns[COL_NAME].live_header);
	g->mem_w = (h = memory_header(f, g)) ? (int)strlen(h) : 6;
	free(h);
	g->pend_w = (h = pending_header(f, g)) ? (int)strlen(h) : 7;
	free(h);
	for (size_t i = 0; i < f->s->nrows; i++) {
		const struct model_node *n = find_node(f->m, f->s->rows[i]);
		char *t;
		int w;

		if (!n)
			continue;
		w = tui_screen_width(n->name, f->st->utf8);
		if (w > g->name_w)
			g->name_w = w;
		if ((t = node_mem_text(g, n))) {
			if ((int)strlen(t) > g->mem_w)
				g->mem_w = (int)strlen(t);
			free(t);
		}
		if (pending_width(n) > g->pend_w)
			g->pend_w = pending_width(n);
	}
	if (f->m->usage.configured) {
		g->used_w = (int)strlen(columns[COL_USED].live_header);
		for (size_t i = 0; i < f->s->nrows; i++) {
			const struct model_node *n = find_node(f->m, f->s->rows[i]);
			char *t = n ? columns[COL_USED].cell(f->m, n, -1) : NULL;

			if (t && (int)strlen(t) > g->used_w)
				g->used_w = (int)strlen(t);
			free(t);
		}
	}
	if (g->name_w > cols * 2 / 5)
		g->name_w = cols * 2 / 5 > 8 ? cols * 2 / 5 : 8;
	right = g->mem_w + 1 + (g->used_w ? g->used_w + 1 : 0) + 4 + 1 + 4 + 1 + g->pend_w;
	g->bars_x = g->name_w + 1;
	avail = cols - g->bars_x - right - 1;
	if (maxg < 1)
		maxg = 1;
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
	g->mem_x = g->bars_x + (g->nbars ? g->per * g->nbars : g->bar_w + 1);
	g->used_x = g->mem_x + g->mem_w + 1;
	g->pct_x = g->used_x + (g->used_w ? g->used_w + 1 : 0);
	g->pods_x = g->pct_x + 5;
	g->pend_x = g->pods_x + 5;
}

/* A column is shown whole or not at all: a figure cut at the screen's
 * edge would read as another figure. */
static bool fits(const struct frame *f, int x, int w)
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

static void list_header(struct frame *f, const struct list_geom *g, int y)
{
	static const char *const per_gpu[] = { "GPUS (allocated/total)", "GPUS", NULL };
	static const char *const one_bar[] = { "GPU MEMORY", "GPU", NULL };
	struct tui_line *l = row(f, y);
	int cols = f->scr->cols;
	bool *oom = &f->scr->oom;
	const char *bars;
	char *mem, *pend;

	if (!l)
		return;
	l->fill = TUI_ROLE_HEADER;
	mem = memory_header(f, g);
	tui_put(l, cols, oom, 0, TUI_ROLE_HEADER, columns[COL_NAME].live_header, g->name_w);
	/* the bars' header stops before the memory column's */
	bars = g->bar_w ? header_fit(g->nbars ? per_gpu : one_bar, g->mem_x - g->bars_x - 1) : NULL;
	if (bars)
		tui_put(l, cols, oom, g->bars_x, TUI_ROLE_HEADER, bars, -1);
	if (fits(f, g->mem_x, g->mem_w))
		tui_putf(l, cols, oom, g->mem_x, TUI_ROLE_HEADER, -1, "%*s", g->mem_w, mem ? mem : "MEMORY");
	if (g->used_w && fits(f, g->used_x, g->used_w))
		tui_putf(l, cols, oom, g->used_x, TUI_ROLE_HEADER, -1, "%*s", g->used_w, columns[COL_USED].live_header);
	if (fits(f, g->pct_x, 4))
		tui_put(l, cols, oom, g->pct_x, TUI_ROLE_HEADER, "USE%", -1);
	if (fits(f, g->pods_x, 4))
		tui_put(l, cols, oom, g->pods_x, TUI_ROLE_HEADER, "PODS", -1);
	pend = pending_header(f, g);
	if (fits(f, g->pend_x, g->pend_w))
		tui_putf(l, cols, oom, g->pend_x, TUI_ROLE_HEADER, -1, "%*s", g->pend_w,
			 pend ? pend : columns[COL_PENDING].live_header);
	free(pend);
	free(mem);
}

/* A name longer than w keeps its start and its end, cut in the middle:
 * node names of one cluster often share a long prefix and differ at the
 * end (cn-shanghai.192.168.7.157, .158, ...). */
static void put_name(struct tui_line *l, int cols, bool *oom, const char *name, int w)
{
	size_t len = strlen(name), head, tail;

	if (w <= 0)
		return;
	if (len <= (size_t)w || w < 4) {
		tui_put(l, cols, oom, 0, TUI_ROLE_NORMAL, name, w);
		return;
	}
	head = (size_t)w / 3;
	tail = (size_t)w - 1 - head;
	tui_putf(l, cols, oom, 0, TUI_ROLE_NORMAL, w, "%.*s~%s", (int)head, name, name + len - tail);
}

static void list_row(struct frame *f, const struct list_geom *g, struct tui_line *l, const struct model_node *n,
		     bool selected)
{
	int cols = f->scr->cols;
	bool *oom = &f->scr->oom;
	char *t;
	char use[16];

	l->selected = selected;
	put_name(l, cols, oom, n->name, g->name_w);
	if (g->bar_w && g->nbars && n->gpus) {
		for (int i = 0; i < n->ngpus && i < g->nbars; i++)
			tui_put_bar(l, cols, oom, g->bars_x + i * g->per, g->bar_w, n->gpus[i].mem_allocated,
				n->gpus[i].mem_total);
	} else if (g->bar_w) {
		tui_put_bar(l, cols, oom, g->bars_x, g->bar_w, n->mem_allocated, n->mem_total);
	}
	if ((t = node_mem_text(g, n))) {
		tui_putf(l, cols, oom, g->mem_x, TUI_ROLE_NORMAL, -1, "%*s", g->mem_w, t);
		free(t);
	} else {
		*oom = true;
	}
	if (g->used_w && (t = columns[COL_USED].cell(f->m, n, -1))) {
		tui_putf(l, cols, oom, g->used_x, n->gpus_used_known ? TUI_ROLE_NORMAL : TUI_ROLE_DIM, -1, "%*s",
			 g->used_w, t);
		free(t);
	}
	tui_putf(l, cols, oom, g->pct_x, tui_level(n->mem_allocated, n->mem_total), -1, "%4s",
	     tui_use_text(use, n->mem_allocated, n->mem_total));
	tui_putf(l, cols, oom, g->pods_x, TUI_ROLE_NORMAL, -1, "%4zu", n->npods);
	tui_putf(l, cols, oom, g->pend_x, n->mem_pending ? TUI_ROLE_MID : TUI_ROLE_DIM, -1, "%*lld", g->pend_w,
	     (long long)n->mem_pending);
}

/* The list as display lines: pool headings (when grouped) and nodes. */
struct dline {
	const struct model_node *node; /* NULL = pool heading */
	const char *pool;
	size_t row;
};

static struct dline *display_lines(struct frame *f, size_t *ret_n, size_t *ret_sel)
{
	struct dline *d = calloc(f->s->nrows * 2 + 1, sizeof(*d));
	size_t n = 0;
	const char *prev = NULL;

	*ret_sel = 0;
	if (!d)
		return NULL;
	for (size_t i = 0; i < f->s->nrows; i++) {
		const struct model_node *node = find_node(f->m, f->s->rows[i]);

		if (!node)
			continue;
		if (f->s->group_pools && (i == 0 || cmp_str_last_null(prev, node->pool) != 0))
			d[n++] = (struct dline){ .pool = node->pool ? node->pool : "(no pool)", .row = i };
		prev = node->pool;
		if (i == f->s->sel)
			*ret_sel = n;
		d[n++] = (struct dline){ .node = node, .row = i };
	}
	*ret_n = n;
	return d;
}

static void pool_heading(struct frame *f, struct tui_line *l, const struct dline *d, size_t i, size_t n)
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
		tui_putf(l, f->scr->cols, &f->scr->oom, x, TUI_ROLE_POOL, -1, ", memory %s (%d%%)", figures,
			 tui_percent(alloc, total));
	}
}

static void draw_list(struct frame *f, int y0, int height)
{
	struct list_geom g;
	struct dline *d;
	size_t n, sel, top;

	list_geometry(f, &g);
	list_header(f, &g, y0);
	y0++;
	height--;
	if (height < 1)
		return;
	f->scr->page = (size_t)height;
	if (!f->s->nrows) {
		struct tui_line *l = row(f, y0);

		if (l)
			tui_put(l, f->scr->cols, &f->scr->oom, 1, TUI_ROLE_DIM,
			    f->s->filter ? "no node matches the filter (Esc clears it)"
					 : "no node offers shared GPU resources", -1);
		return;
	}
	d = display_lines(f, &n, &sel);
	if (!d) {
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
	if (n > (size_t)height && top > n - (size_t)height)
		top = n - (size_t)height;
	if (n <= (size_t)height)
		top = 0;
	f->scr->top = top;
	for (size_t i = top; i < n && i < top + (size_t)height; i++) {
		struct tui_line *l = row(f, y0 + (int)(i - top));

		if (!l)
			break;
		if (d[i].node)
			list_row(f, &g, l, d[i].node, d[i].row == f->s->sel);
		else
			pool_heading(f, l, d, i, n);
	}
	free(d);
}

static void draw_pane(struct frame *f, const char *name, int y0, int height, bool scroll)
{
	const struct model_node *n = name ? find_node(f->m, name) : NULL;
	struct tui_lines ls = { .cols = f->scr->cols, .oom = &f->scr->oom };
	size_t top = scroll ? f->s->detail_top : 0;

	if (height < 1)
		return;
	if (!n) {
		struct tui_line *l = row(f, y0);

		if (l && name)
			tui_putf(l, f->scr->cols, &f->scr->oom, 0, TUI_ROLE_DIM, -1, "node %s is gone", name);
		return;
	}
	tui_node_pane(&ls, f->m, n);
	if (ls.n > (size_t)height && top > ls.n - (size_t)height)
		top = ls.n - (size_t)height;
	if (ls.n <= (size_t)height)
		top = 0;
	if (scroll) {
		f->scr->detail_top = top;
		f->scr->page = (size_t)height;
	}
	tui_lines_blit(f->scr, &ls, top, y0, height);
	tui_lines_release(&ls);
}

static void draw_help(struct frame *f, int y0, int height)
{
	for (int i = 0; help_text[i] && i < height; i++) {
		struct tui_line *l = row(f, y0 + i);

		if (l)
			tui_put(l, f->scr->cols, &f->scr->oom, 1, i == 0 ? TUI_ROLE_TITLE : TUI_ROLE_NORMAL, help_text[i], -1);
	}
}

/* The model's warnings, one a line, as many as fit. */
static void draw_warnings(struct frame *f, int y0, int height)
{
	const struct warnings *w = &f->m->warnings;
	int cols = f->scr->cols;
	bool *oom = &f->scr->oom;
	struct tui_line *l;
	size_t shown = 0;

	if (height < 1 || !(l = row(f, y0)))
		return;
	tui_putf(l, cols, oom, 0, TUI_ROLE_HEADER, -1, "%zu warning%s (w or Esc: back)", w->len, w->len == 1 ? "" : "s");
	for (int y = 1; y < height && shown < w->len; y++, shown++) {
		const struct warning *x = &w->items[shown];
		int xx;

		if (!(l = row(f, y0 + y)))
			break;
		if (y == height - 1 && w->len - shown > 1) {
			tui_putf(l, cols, oom, 1, TUI_ROLE_DIM, -1, "%zu more: kubectl inspect cgpu prints them all",
				 w->len - shown);
			return;
		}
		xx = tui_put(l, cols, oom, 1, TUI_ROLE_MID, x->code, -1);
		if (x->object) {
			xx = tui_put(l, cols, oom, xx + 1, TUI_ROLE_NORMAL, x->object, -1);
			xx = tui_put(l, cols, oom, xx, TUI_ROLE_NORMAL, ":", -1);
		}
		tui_put(l, cols, oom, xx + 1, TUI_ROLE_NORMAL, x->message, -1);
	}
	if (!w->len && (l = row(f, y0 + 1)))
		tui_put(l, cols, oom, 1, TUI_ROLE_DIM, "none", -1);
}

int tui_layout_screen(struct tui_screen *scr, const struct tui_state *s, const struct model *m,
		      const struct tui_status *st)
{
	struct frame f = { .scr = scr, .s = s, .m = m, .st = st };
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
	draw_header(&f);
	draw_status(&f);
	body_h = scr->lines - body0 - 1;
	if (s->view == TUI_VIEW_HELP) {
		draw_help(&f, body0, body_h);
	} else if (!m) {
		if (row(&f, body0))
			tui_put(row(&f, body0), scr->cols, &scr->oom, 1, TUI_ROLE_DIM,
			    st->loading ? "reading nodes and pods..." : "no data", -1);
	} else if (s->view == TUI_VIEW_WARNINGS) {
		draw_warnings(&f, body0, body_h);
	} else if (s->view == TUI_VIEW_NODE) {
		draw_pane(&f, s->open_node, body0, body_h, true);
	} else if (scr->lines >= SPLIT_MIN_LINES && tui_state_selected(s)) {
		int pane_h = body_h * 2 / 5, list_h = body_h - pane_h;

		draw_list(&f, body0, list_h);
		draw_pane(&f, tui_state_selected(s), body0 + list_h, pane_h, false);
	} else {
		draw_list(&f, body0, body_h);
	}
out:
	if (scr->oom) {
		tui_screen_release(scr);
		return -1;
	}
	return 0;
}

void tui_screen_release(struct tui_screen *scr)
{
	if (!scr)
		return;
	for (int i = 0; scr->line && i < scr->lines; i++)
		tui_line_release(&scr->line[i]);
	free(scr->line);
	scr->line = NULL;
}

char *tui_screen_line_text(const struct tui_screen *scr, int y)
{
	char *buf = NULL;
	size_t len = 0, end = 0;
	FILE *f;
	int col = 0;

	if (scr->cols <= 0 || !(f = open_memstream(&buf, &len)))
		return NULL;
	/* spans are laid out left to right; a span that would overlap the
	 * one before it is left out, as ncurses would overwrite it */
	if (scr->line && y >= 0 && y < scr->lines) {
		const struct tui_line *l = &scr->line[y];

		for (size_t i = 0; i < l->nspans; i++) {
			const struct tui_span *sp = &l->spans[i];

			if (sp->x < col || sp->x >= scr->cols)
				continue;
			for (; col < sp->x; col++)
				fputc(' ', f);
			fputs(sp->text, f);
			col += sp->width;
			fflush(f);
			end = len;
		}
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	while (end > 0 && buf[end - 1] == ' ')
		end--;
	buf[end] = '\0';
	return buf;
}
