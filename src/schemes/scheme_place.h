/* The placement rules the schemes share, for their row's `place`.
 *
 * Both read a node per GPU where it publishes the split and the figures
 * are memory, and by its totals otherwise: free slots for nodes counted in
 * slots, and for memory the node's free memory but never more than one
 * card (the split nobody publishes, as for Huawei CCE).  Per GPU, the
 * memory (and compute share) must be free on each of the GPUs asked for;
 * binpack nodes take the GPUs with the least room, spread nodes those with
 * the most.
 *
 * Uses scheme.h; no I/O.
 */
#ifndef SCHEME_PLACE_H
#define SCHEME_PLACE_H

#include "scheme.h"

/* GPUs shared by memory and compute share (cGPU, CCE, whole GPUs). */
int scheme_place_shares(const struct scheme_place_node *n, const struct scheme_ask *a, struct scheme_placement *ret);
/* vGPUs (HAMi, Volcano vGPU): besides memory and compute, a free vGPU slot
 * on the device; an ask of the whole compute, or a device held whole, is
 * exclusive; an ask of no memory takes a whole, unused card. */
int scheme_place_vgpus(const struct scheme_place_node *n, const struct scheme_ask *a, struct scheme_placement *ret);

#endif
