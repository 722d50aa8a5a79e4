/* The pieces the live view's screens are built from: printable spans on a
 * line, bars, growable lists of lines, and the pane that shows one node's
 * GPUs and pods.  Internal to the tui layer. */
#ifndef TUI_PANE_H
#define TUI_PANE_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "tui_layout.h"

/* Bars wider than this are harder to compare by eye, not easier. */
#define BAR_MAX 32

void tui_line_release(struct tui_line *l);
/* Put text at x, at most maxw columns (-1 = to the edge), made printable.
 * Returns the column after it. */
/* Columns the screen gives a text (its visible form; '?' for other
 * non-ASCII characters when not utf8). */
int tui_screen_width(const char *text, bool utf8);
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
char *tui_mem_text(int64_t allocated, int64_t total, enum mem_unit unit);
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

/* Does the pod hold anything without a GPU index? */
bool tui_pod_pending(const struct model_pod *p);
/* Is the pod on no node, or without a GPU index on its node? */
bool tui_pod_waits(const struct model_pod *p);
/* Pods that wait so, in the model. */
size_t tui_pending_pods(const struct model *m);
/* Those pods, each with the reason it waits. */
void tui_pending_pane(struct tui_lines *ls, const struct model *m);
/* The selected node's GPUs and the pods on each; a pod without a GPU
 * chosen carries the reason it waits. */
void tui_node_pane(struct tui_lines *ls, const struct model *m, const struct model_node *n);

#endif
