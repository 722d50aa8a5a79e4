/* The live view's node list: which nodes, in which order, and its rows
 * (or pool headings) with the figures of the columns table's live columns.
 *
 * Uses the state, the model, the columns and the screen's pieces (tui_screen.h).
 */
#ifndef TUI_LIST_H
#define TUI_LIST_H

#include <stdbool.h>

#include "model.h"
#include "tui_screen.h"
#include "tui_state.h"

/* Does the node pass the filter?  "key=value" matches a label (or the pool);
 * anything else is a substring of the name, the pool or a "key=value" label. */
bool tui_node_matches(const struct model_node *n, const char *filter);

/* The node names the list shows, filtered and in the state's order
 * (grouped by pool first when group_pools).  *ret points into the model and
 * is freed with free().  Returns the count, or -1 when out of memory. */
long tui_layout_rows(const struct model *m, const struct tui_state *s, const char ***ret);

/* The same over several clusters: each row's key (tui_fleet_key), grouped
 * by cluster first when group_clusters; a filter cluster=NAME keeps one
 * cluster, and another filter also matches a cluster's name.  *ret and
 * each key are malloc'd.  Returns the count, or -1 when out of memory. */
long tui_fleet_rows(const struct tui_fleet *fl, const struct tui_state *s, char ***ret);

/* The column headers at y0 and the rows below, height lines in all; keeps
 * the selection in view and reports the scroll position in f->scr. */
void tui_list_draw(struct tui_frame *f, int y0, int height);

#endif
