/* The panes of the live view that list pods: one node's GPUs and the pods
 * on each, and every pod that waits, each with its reason.  Internal to
 * the tui layer.
 *
 * Uses the model and the screen's pieces (tui_screen.h).
 */
#ifndef TUI_PANE_H
#define TUI_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "tui_screen.h"

/* Does the pod hold anything without a GPU index? */
bool tui_pod_pending(const struct model_pod *p);
/* Pods that wait, on no node or without a GPU index on their node (the
 * model's derived list). */
size_t tui_pending_pods(const struct model *m);
/* Those pods, each with the reason it waits. */
void tui_pending_pane(struct tui_lines *ls, const struct model *m);
/* The selected node's GPUs and the pods on each; a pod without a GPU
 * chosen carries the reason it waits. */
void tui_node_pane(struct tui_lines *ls, const struct model *m, const struct model_node *n);

#endif
