/* The live view's layout: what goes where on a screen of a given size.
 *
 * Pure: from the state, the model and a few status facts it computes a
 * struct tui_screen, a list of text spans with a colour role at given
 * positions.  Drawing that with ncurses (tui_draw.c) is then a loop with no
 * decisions in it, and everything a user sees can be tested without a
 * terminal.  Text from the cluster is shown here in its visible form
 * (termsafe.h), measured in terminal columns; on a terminal that is not
 * UTF-8 any other non-ASCII character becomes '?'.
 *
 * Uses the state, the model, the columns and termsafe; never the terminal.
 */
#ifndef TUI_LAYOUT_H
#define TUI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "model.h"
#include "tui_state.h"

/* Semantic roles; the drawing code picks colours (or none) for them. */
enum tui_role {
	TUI_ROLE_NORMAL,
	TUI_ROLE_TITLE,	  /* first line */
	TUI_ROLE_HEADER,  /* column headers */
	TUI_ROLE_LOW,	  /* bar fill below 50% */
	TUI_ROLE_MID,	  /* below 90% */
	TUI_ROLE_HIGH,	  /* 90% and more */
	TUI_ROLE_DIM,	  /* secondary text, empty bars */
	TUI_ROLE_POOL,	  /* pool group headings */
	TUI_ROLE_ERROR,	  /* the last error on the status line */
	TUI_ROLE_STATUS,  /* the status line */
	TUI_ROLE_COUNT,
};

struct tui_span {
	int x;
	enum tui_role role;
	char *text; /* visible form, already clipped to the screen */
	int width;  /* its terminal columns */
};

struct tui_line {
	struct tui_span *spans;
	size_t nspans, cap;
	enum tui_role fill; /* role of the blank rest of the line (headers, status) */
	bool selected;	    /* drawn in reverse video */
	bool utf8;	    /* the terminal shows UTF-8 */
};

struct tui_screen {
	int cols, lines;
	struct tui_line *line; /* lines entries */
	int cursor_x, cursor_y; /* -1 = hide the cursor */
	/* scroll positions after clamping, to feed back as TUI_EV_SCROLL */
	size_t top, detail_top;
	size_t page; /* list rows visible, for tui_state_set_page */
	bool oom;
};

/* What the event loop knows that the model does not. */
struct tui_status {
	const char *context;  /* kubeconfig context, or NULL */
	bool loading;	      /* no data yet */
	long long age_s;      /* seconds since the data was last known good, -1 = never */
	const char *error;    /* last error, or NULL */
	const char *mode;     /* "watching", "polling every 2s", ... or NULL */
	bool utf8;	      /* the terminal's character set is UTF-8 */
};

/* The role of a column's tone, and of allocated in total (column_level). */
enum tui_role tui_tone_role(enum column_tone tone);
enum tui_role tui_level(int64_t allocated, int64_t total);
/* Filled cells of a bar of width cells: rounded down, within [0, width];
 * any allocation at all shows at least one cell. */
int tui_bar_fill(int64_t allocated, int64_t total, int width);

/* Does the node pass the filter?  "key=value" matches a label (or the pool);
 * anything else is a substring of the name, the pool or a "key=value" label. */
bool tui_node_matches(const struct model_node *n, const char *filter);

/* The node names the list shows, filtered and in the state's order
 * (grouped by pool first when group_pools).  *ret points into the model and
 * is freed with free().  Returns the count, or -1 when out of memory. */
long tui_layout_rows(const struct model *m, const struct tui_state *s, const char ***ret);

/* Lay out one screen.  m may be NULL (nothing loaded yet).  Returns 0, or -1
 * when out of memory (scr is then released). */
int tui_layout_screen(struct tui_screen *scr, const struct tui_state *s, const struct model *m,
		      const struct tui_status *st);
void tui_screen_release(struct tui_screen *scr);

/* The text of line y as it would appear (spaces between spans), for tests
 * and for the golden screen.  malloc'd. */
char *tui_screen_line_text(const struct tui_screen *scr, int y);

#endif
