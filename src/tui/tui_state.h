/* The live view's state and its reducer: an event in, the next state out.
 *
 * Pure: no terminal, no clock, no I/O.  Keys arrive as TUI_KEY_* codes (the
 * drawing code maps ncurses' codes onto them) or as plain characters.  The
 * state does not see the model: the caller tells it which node names the
 * list currently shows (TUI_EV_ROWS, after tui_layout_rows()), and the
 * reducer asks for that again by setting relayout when a key changed the
 * order or the filter.  The selection follows the node's name, so a node keeps
 * its highlight when data or sort order move it.
 *
 * Uses nothing but libc.
 */
#ifndef TUI_STATE_H
#define TUI_STATE_H

#include <stdbool.h>
#include <stddef.h>

enum tui_view {
	TUI_VIEW_NODES, /* the node list (with the selected node's pane on tall terminals) */
	TUI_VIEW_NODE,	/* one node: its GPUs and the pods on each */
	TUI_VIEW_HELP,
	TUI_VIEW_WARNINGS, /* the warnings the header counts */
	TUI_VIEW_PENDING,  /* the pods the header counts pending, and why */
};

enum tui_sort {
	TUI_SORT_NAME,	  /* ascending */
	TUI_SORT_ALLOC,	  /* allocated percent, highest first */
	TUI_SORT_FREE,	  /* free memory, most first */
	TUI_SORT_PENDING, /* memory held without a GPU index, most first */
	TUI_SORT_COUNT,
};

/* Keys that are not characters.  Characters (' '..'~') are their own code. */
enum {
	TUI_KEY_NONE = 0,
	TUI_KEY_ENTER = 0x1000,
	TUI_KEY_ESC,
	TUI_KEY_BACKSPACE,
	TUI_KEY_UP,
	TUI_KEY_DOWN,
	TUI_KEY_LEFT,
	TUI_KEY_RIGHT,
	TUI_KEY_PGUP,
	TUI_KEY_PGDN,
	TUI_KEY_HOME,
	TUI_KEY_END,
	TUI_KEY_INTERRUPT, /* Ctrl-C read as a key (raw terminals) */
};

enum tui_event_type {
	TUI_EV_KEY,
	TUI_EV_RESIZE, /* cols, lines */
	TUI_EV_ROWS,   /* rows, nrows: the node names the list shows, in order */
	TUI_EV_DATA,   /* the model was rebuilt: the rows must be asked for again */
	TUI_EV_TICK,   /* time passed (data age): redraw */
	TUI_EV_SCROLL, /* top, detail_top: scroll positions the layout settled on */
};

struct tui_event {
	enum tui_event_type type;
	int key;
	int cols, lines;
	const char *const *rows; /* borrowed for the call only */
	size_t nrows;
	size_t top, detail_top;
};

struct tui_state {
	enum tui_view view;
	enum tui_view help_from; /* where ?, w or u was pressed, to go back to */
	enum tui_sort sort;
	bool group_pools;
	bool group_clusters; /* several clusters: each cluster's nodes together (c) */

	char *filter;	     /* applied: "key=value" or a substring; NULL = none */
	bool editing;	     /* the filter prompt is open */
	char *edit;	     /* text typed at the prompt (never NULL while editing) */
	size_t edit_len;

	char **rows; /* copies of the names the list shows, in order */
	size_t nrows;
	size_t sel;	  /* index into rows (0 when empty) */
	char *sel_name;	  /* rows[sel] as last seen, to find it again after ROWS */
	char *open_node;  /* the node TUI_VIEW_NODE shows */
	size_t top;	  /* first list line shown (set by the layout via TUI_EV_SCROLL) */
	size_t detail_top; /* first line of the node pane shown */
	size_t page;	  /* list lines that fit, for PgUp/PgDn (from tui_state_set_page) */

	int cols, lines;
	bool quit;
	bool relayout; /* order, filter or grouping changed: send TUI_EV_ROWS again */
	bool dirty;    /* the screen must be drawn again */
	bool oom;      /* an allocation failed; the state is still consistent */
};

void tui_state_init(struct tui_state *s, int cols, int lines);
void tui_state_release(struct tui_state *s);

/* Apply one event.  Never fails; an allocation failure sets s->oom and leaves
 * the previous value in place. */
void tui_reduce(struct tui_state *s, const struct tui_event *ev);

/* Rows the list can show at once, for PgUp/PgDn and the node pane. */
void tui_state_set_page(struct tui_state *s, size_t page);

/* The name of the selected node, or NULL when the list is empty. */
const char *tui_state_selected(const struct tui_state *s);

/* "name", "alloc%", "free", "pending". */
const char *tui_sort_name(enum tui_sort sort);

#endif
