/* The live view over several clusters: a row is keyed by its cluster and
 * node (the state keeps keys as it keeps names), and the header gives the
 * fleet's totals and a line per cluster, with its error when it has one.
 * Internal to the tui layer.
 *
 * Uses the model and the screen's pieces (tui_screen.h).
 */
#ifndef TUI_FLEET_H
#define TUI_FLEET_H

#include <stddef.h>

#include "model.h"
#include "tui_screen.h"

/* A row's key: the cluster's index in the fleet and the node's name.
 * malloc'd; NULL when out of memory. */
char *tui_fleet_key(size_t cluster, const char *node);
/* The node a key names, and its cluster's index; NULL when it is gone. */
const struct model_node *tui_fleet_find(const struct tui_fleet *fl, const char *key, size_t *cluster);

/* The header's lines from y 0: the title, the fleet's GPU memory and
 * counts, then one line per cluster; returns the first line after it. */
int tui_fleet_header(struct tui_frame *f);

#endif
