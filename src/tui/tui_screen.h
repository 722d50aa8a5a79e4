/* The live view's screen as data: lines of text spans with a colour role,
 * and the pieces every part of the layout builds them from (printable
 * spans, bars, figures, growable lists of lines).
 *
 * Pure: no terminal.  Text from the cluster is put here in its visible
 * form (termsafe.h), measured in terminal columns; on a terminal that is
 * not UTF-8 any other non-ASCII character becomes '?'.
 *
 * Uses the state, the model, the columns and termsafe; never the terminal.
 */
#ifndef TUI_SCREEN_H
#define TUI_SCREEN_H

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

/* One cluster of several the view shows (--context a,b), each its own
 * model. */
struct tui_cluster {
	const char *name;      /* the context */
	const struct model *m; /* NULL: nothing loaded (yet) */
	const char *error;     /* why it shows nothing or old data, or NULL */
};

struct tui_fleet {
	const struct tui_cluster *c;
	size_t n;
};

/* One screen being laid out. */
struct tui_frame {
	struct tui_screen *scr;
	const struct tui_state *s;
	const struct model *m;	       /* one cluster's; with a fleet, the selected row's */
	const struct tui_status *st;
	const struct tui_fleet *fleet; /* several clusters, or NULL */
};

/* The role of a column's tone, and of allocated in total (column_level). */
enum tui_role tui_tone_role(enum column_tone tone);
enum tui_role tui_level(int64_t allocated, int64_t total);
/* Filled cells of a bar of width cells: rounded down, within [0, width];
 * any allocation at all shows at least one cell. */
int tui_bar_fill(int64_t allocated, int64_t total, int width);

void tui_screen_release(struct tui_screen *scr);
/* Do the two screens read the same (text, roles, selection, cursor)?
 * A screen that does needs no drawing. */
bool tui_screen_same(const struct tui_screen *a, const struct tui_screen *b);
/* The text of line y as it would appear (spaces between spans), for tests
 * and for the golden screen.  malloc'd. */
char *tui_screen_line_text(const struct tui_screen *scr, int y);
/* Line y of the screen, NULL outside it. */
struct tui_line *tui_frame_row(struct tui_frame *f, int y);
/* The model's node of that name (the model keeps them sorted), or NULL. */
const struct model_node *tui_find_node(const struct model *m, const char *name);

/* Bars wider than this are harder to compare by eye, not easier. */
#define BAR_MAX 32

void tui_line_release(struct tui_line *l);
/* Columns the screen gives a text (its visible form; '?' for other
 * non-ASCII characters when not utf8). */
int tui_screen_width(const char *text, bool utf8);
/* Put text at x, at most maxw columns (-1 = to the edge), made printable.
 * Returns the column after it. */
int tui_put(struct tui_line *l, int cols, bool *oom, int x, enum tui_role role, const char *text, int maxw);
int tui_putf(struct tui_line *l, int cols, bool *oom, int x, enum tui_role role, int maxw, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* printf into a malloc'd string; NULL when out of memory. */
char *tui_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A bar's width beside its figures on a screen cols wide: a third of it,
 * at most BAR_MAX. */
int tui_bar_width(int cols);
/* "[|||||     ]", width cells including the brackets.  Returns the column after. */
int tui_put_bar(struct tui_line *l, int cols, bool *oom, int x, int width, int64_t allocated, int64_t total);
/* "36/89 GiB", or past 10240 of a unit the next unit up with one decimal
 * ("48.9/50.1 TiB"), so that cluster totals stay readable. */
void tui_mem_readable(char *buf, size_t len, int64_t allocated, int64_t total, enum mem_unit unit);
/* An age as kubectl says it: 45s, 12m, 46h, 3d. */
void tui_format_age(char *buf, size_t len, long long seconds);

/* A growable list of lines (the node pane, help). */
struct tui_lines {
	struct tui_line *v;
	size_t n, cap;
	int cols;
	bool *oom;
};

struct tui_line *tui_lines_add(struct tui_lines *ls);
void tui_lines_release(struct tui_lines *ls);
/* Move lines [from, from+count) of ls into the screen starting at row y. */
void tui_lines_blit(struct tui_screen *scr, struct tui_lines *ls, size_t from, int y, int count);
/* The first of n lines to show in height rows: top, but never past the
 * last screenful. */
size_t tui_scroll_clamp(size_t top, size_t n, int height);

#endif
