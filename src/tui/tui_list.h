/* The live view's node list: its order, its header and one row per node
 * (or pool heading).  Internal to the tui layer: tui_layout.c lays out the
 * screen around it, tui_layout.h declares its public part
 * (tui_node_matches, tui_layout_rows). */
#ifndef TUI_LIST_H
#define TUI_LIST_H

#include "model.h"
#include "tui_layout.h"
#include "tui_pane.h"
#include "tui_state.h"

/* One screen being laid out. */
struct tui_frame {
	struct tui_screen *scr;
	const struct tui_state *s;
	const struct model *m;
	const struct tui_status *st;
};

/* Line y of the screen, NULL outside it. */
struct tui_line *tui_frame_row(struct tui_frame *f, int y);
/* The model's node of that name (the model keeps them sorted), or NULL. */
const struct model_node *tui_find_node(const struct model *m, const char *name);

/* The column headers at y0 and the rows below, height lines in all; keeps
 * the selection in view and reports the scroll position in f->scr. */
void tui_list_draw(struct tui_frame *f, int y0, int height);

#endif
