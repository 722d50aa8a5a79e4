/* The only code that talks to the terminal (ncursesw): start and stop it,
 * read keys, and paint a struct tui_screen that the layout computed.
 *
 * Uses ncursesw and the layout's struct tui_screen; nothing else draws.
 */
#ifndef TUI_DRAW_H
#define TUI_DRAW_H

#include <stdbool.h>

#include "kube.h"
#include "tui_screen.h"
#include "tui_state.h"

/* Take over the terminal (alternate screen, no echo, keypad).  Colours are
 * used only when the terminal has them and NO_COLOR is unset.  Fails when
 * stdin or stdout is not a terminal. */
int tui_draw_start(struct kerr *err);
/* Give the terminal back exactly as it was; safe to call more than once. */
void tui_draw_stop(void);
bool tui_draw_active(void);
void tui_draw_size(int *cols, int *lines);

/* Read one pending key without waiting.  Fills *ev with a TUI_EV_KEY or
 * TUI_EV_RESIZE event and returns true, or returns false when there is none. */
bool tui_draw_read(struct tui_event *ev);

void tui_draw_screen(const struct tui_screen *scr);

#endif
