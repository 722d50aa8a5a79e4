/* The live view's layout: what goes where on a screen of a given size.
 *
 * Pure: from the state, the model and a few status facts it computes a
 * struct tui_screen (tui_screen.h), a list of text spans with a colour role
 * at given positions: the header, the node list (tui_list.h), a node's pane
 * or the pending pods (tui_pane.h), help, warnings and the status line.
 * Drawing that with ncurses (tui_draw.c) is then a loop with no decisions
 * in it, and everything a user sees can be tested without a terminal.
 *
 * Uses the state, the model, the columns and the tui's own parts; never the terminal.
 */
#ifndef TUI_LAYOUT_H
#define TUI_LAYOUT_H

#include "model.h"
#include "tui_list.h"
#include "tui_screen.h"
#include "tui_state.h"

/* Lay out one screen.  m may be NULL (nothing loaded yet).  Returns 0, or -1
 * when out of memory (scr is then released). */
int tui_layout_screen(struct tui_screen *scr, const struct tui_state *s, const struct model *m,
		      const struct tui_status *st);
/* The same for several clusters: a CLUSTER column first, rows keyed by
 * cluster and node (tui_fleet_rows), the fleet's totals and a line per
 * cluster above; the warnings and pending pods of the selected row's
 * cluster. */
int tui_layout_fleet_screen(struct tui_screen *scr, const struct tui_state *s, const struct tui_fleet *fleet,
			    const struct tui_status *st);

#endif
