#include "tui_state.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const sort_names[TUI_SORT_COUNT] = {
	[TUI_SORT_NAME] = "name",
	[TUI_SORT_ALLOC] = "alloc%",
	[TUI_SORT_FREE] = "free",
	[TUI_SORT_PENDING] = "pending",
};

const char *tui_sort_name(enum tui_sort sort)
{
	return sort >= 0 && sort < TUI_SORT_COUNT ? sort_names[sort] : "?";
}

void tui_state_init(struct tui_state *s, int cols, int lines)
{
	memset(s, 0, sizeof(*s));
	s->cols = cols;
	s->lines = lines;
	s->page = 1;
	s->relayout = true;
	s->dirty = true;
}

static void free_rows(struct tui_state *s)
{
	for (size_t i = 0; i < s->nrows; i++)
		free(s->rows[i]);
	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
}

void tui_state_release(struct tui_state *s)
{
	if (!s)
		return;
	free_rows(s);
	free(s->filter);
	free(s->edit);
	free(s->sel_name);
	free(s->open_node);
	memset(s, 0, sizeof(*s));
}

void tui_state_set_page(struct tui_state *s, size_t page)
{
	s->page = page ? page : 1;
}

const char *tui_state_selected(const struct tui_state *s)
{
	return s->nrows ? s->rows[s->sel] : NULL;
}

/* Replace *dst with a copy of src (NULL allowed); on failure keep *dst. */
static void set_str(struct tui_state *s, char **dst, const char *src)
{
	char *copy = NULL;

	if (src && !(copy = strdup(src))) {
		s->oom = true;
		return;
	}
	free(*dst);
	*dst = copy;
}

/* The rows' order or filter changed: ask for new rows (TUI_EV_ROWS), then
 * draw again. */
static void ask_rows(struct tui_state *s)
{
	s->relayout = true;
	s->dirty = true;
}

static void select_row(struct tui_state *s, size_t i)
{
	if (!s->nrows) {
		s->sel = 0;
		set_str(s, &s->sel_name, NULL);
		return;
	}
	if (i >= s->nrows)
		i = s->nrows - 1;
	s->sel = i;
	set_str(s, &s->sel_name, s->rows[i]);
	s->dirty = true;
}

static bool same_rows(const struct tui_state *s, const char *const *rows, size_t n)
{
	if (n != s->nrows)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i], s->rows[i]) != 0)
			return false;
	return true;
}

static void take_rows(struct tui_state *s, const char *const *rows, size_t n)
{
	char **copy;
	size_t sel = s->sel;

	if (same_rows(s, rows, n)) {
		/* the figures changed, not the list: only drawn again */
		s->relayout = false;
		s->dirty = true;
		return;
	}
	copy = n ? calloc(n, sizeof(*copy)) : NULL;

	if (n && !copy) {
		s->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(copy[i] = strdup(rows[i]))) {
			while (i--)
				free(copy[i]);
			free(copy);
			s->oom = true;
			return;
		}
	}
	free_rows(s);
	s->rows = copy;
	s->nrows = n;
	s->relayout = false;
	s->dirty = true;
	/* Follow the selected node by name; when it is gone (deleted, filtered
	 * out) stay at the same position, which is what a user scanning the
	 * list expects. */
	if (s->sel_name) {
		for (size_t i = 0; i < n; i++) {
			if (strcmp(copy[i], s->sel_name) == 0) {
				sel = i;
				break;
			}
		}
	}
	select_row(s, sel);
}

static void move_sel(struct tui_state *s, long delta)
{
	long i = (long)s->sel + delta;

	if (!s->nrows)
		return;
	if (i < 0)
		i = 0;
	if ((size_t)i >= s->nrows)
		i = (long)s->nrows - 1;
	select_row(s, (size_t)i);
}

static void move_detail(struct tui_state *s, long delta)
{
	long i = (long)s->detail_top + delta;

	/* The layout clamps the far end: it knows how long the pane is. */
	s->detail_top = i < 0 ? 0 : (size_t)i;
	s->dirty = true;
}

static void open_selected(struct tui_state *s)
{
	if (!s->nrows)
		return;
	set_str(s, &s->open_node, s->rows[s->sel]);
	if (!s->open_node)
		return;
	s->view = TUI_VIEW_NODE;
	s->detail_top = 0;
	s->dirty = true;
}

static void start_edit(struct tui_state *s)
{
	const char *init = s->filter ? s->filter : "";
	char *e = strdup(init);

	if (!e) {
		s->oom = true;
		return;
	}
	free(s->edit);
	s->edit = e;
	s->edit_len = strlen(e);
	s->editing = true;
	s->dirty = true;
}

static void edit_key(struct tui_state *s, int key)
{
	switch (key) {
	case TUI_KEY_ENTER:
		set_str(s, &s->filter, s->edit_len ? s->edit : NULL);
		s->editing = false;
		s->relayout = true;
		break;
	case TUI_KEY_ESC:
		s->editing = false;
		break;
	case TUI_KEY_BACKSPACE:
		if (s->edit_len)
			s->edit[--s->edit_len] = '\0';
		break;
	case TUI_KEY_INTERRUPT:
		s->quit = true;
		break;
	default:
		if (key >= ' ' && key <= '~') {
			char *e = realloc(s->edit, s->edit_len + 2);

			if (!e) {
				s->oom = true;
				return;
			}
			e[s->edit_len++] = (char)key;
			e[s->edit_len] = '\0';
			s->edit = e;
		}
		break;
	}
	s->dirty = true;
}

/* Up, Down, PgUp and PgDn move the selection in the list and the scroll
 * position in a node's pane by the same steps, with move.  True when key
 * was one of them. */
static bool move_key(struct tui_state *s, int key, void (*move)(struct tui_state *s, long delta))
{
	long page = s->page > 1 ? (long)s->page : 1;

	switch (key) {
	case TUI_KEY_UP: case 'k': move(s, -1); return true;
	case TUI_KEY_DOWN: case 'j': move(s, 1); return true;
	case TUI_KEY_PGUP: move(s, -page); return true;
	case TUI_KEY_PGDN: case ' ': move(s, page); return true;
	default: return false;
	}
}

static void key_nodes(struct tui_state *s, int key)
{
	if (move_key(s, key, move_sel))
		return;
	switch (key) {
	case TUI_KEY_HOME: case 'g': move_sel(s, -(long)s->nrows); break;
	case TUI_KEY_END: case 'G': move_sel(s, (long)s->nrows); break;
	case TUI_KEY_ENTER: case TUI_KEY_RIGHT: open_selected(s); break;
	case TUI_KEY_ESC:
		/* Esc in the list undoes a filter, the one thing there is to go back from. */
		if (s->filter) {
			set_str(s, &s->filter, NULL);
			ask_rows(s);
		}
		break;
	default: break;
	}
}

static void key_node(struct tui_state *s, int key)
{
	if (move_key(s, key, move_detail))
		return;
	switch (key) {
	case TUI_KEY_HOME: case 'g': s->detail_top = 0; s->dirty = true; break;
	/* past any pane: the layout clamps it to the last page and says so */
	case TUI_KEY_END: case 'G': s->detail_top = LONG_MAX; s->dirty = true; break;
	case TUI_KEY_ESC: case TUI_KEY_BACKSPACE: case TUI_KEY_LEFT: case 'h':
		s->view = TUI_VIEW_NODES;
		s->dirty = true;
		break;
	default: break;
	}
}

/* Help, warnings and pending pods are shown over the list or a node, and
 * go back to where they were opened from. */
static bool is_overlay(enum tui_view v)
{
	return v == TUI_VIEW_HELP || v == TUI_VIEW_WARNINGS || v == TUI_VIEW_PENDING;
}

static void toggle_overlay(struct tui_state *s, enum tui_view view)
{
	if (s->view == view) {
		s->view = s->help_from;
	} else {
		if (!is_overlay(s->view))
			s->help_from = s->view;
		s->view = view;
	}
	s->dirty = true;
}

static void on_key(struct tui_state *s, int key)
{
	if (s->editing) {
		edit_key(s, key);
		return;
	}
	switch (key) {
	case 'q': case 'Q': case TUI_KEY_INTERRUPT:
		s->quit = true;
		return;
	case '?':
		toggle_overlay(s, TUI_VIEW_HELP);
		return;
	case 'w':
		toggle_overlay(s, TUI_VIEW_WARNINGS);
		return;
	case 'u':
		toggle_overlay(s, TUI_VIEW_PENDING);
		return;
	case 's':
		s->sort = (enum tui_sort)((s->sort + 1) % TUI_SORT_COUNT);
		ask_rows(s);
		return;
	case 'p':
		s->group_pools = !s->group_pools;
		ask_rows(s);
		return;
	case 'c':
		s->group_clusters = !s->group_clusters;
		ask_rows(s);
		return;
	case '/':
		start_edit(s);
		if (is_overlay(s->view))
			s->view = s->help_from;
		return;
	default: break;
	}
	switch (s->view) {
	case TUI_VIEW_NODES: key_nodes(s, key); break;
	case TUI_VIEW_NODE: key_node(s, key); break;
	case TUI_VIEW_HELP:
	case TUI_VIEW_WARNINGS:
	case TUI_VIEW_PENDING:
		if (key == TUI_KEY_ESC || key == TUI_KEY_BACKSPACE || key == TUI_KEY_ENTER) {
			s->view = s->help_from;
			s->dirty = true;
		}
		break;
	}
}

void tui_reduce(struct tui_state *s, const struct tui_event *ev)
{
	switch (ev->type) {
	case TUI_EV_KEY:
		on_key(s, ev->key);
		break;
	case TUI_EV_RESIZE:
		s->cols = ev->cols > 0 ? ev->cols : 0;
		s->lines = ev->lines > 0 ? ev->lines : 0;
		s->dirty = true;
		break;
	case TUI_EV_ROWS:
		take_rows(s, ev->rows, ev->nrows);
		break;
	case TUI_EV_DATA:
		/* a node may have come, gone or moved in the order */
		ask_rows(s);
		break;
	case TUI_EV_TICK:
		s->dirty = true;
		break;
	case TUI_EV_SCROLL:
		s->top = ev->top;
		s->detail_top = ev->detail_top;
		break;
	}
}
