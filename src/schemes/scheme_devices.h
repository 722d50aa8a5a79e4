/* The pod side of the HAMi family (HAMi and Volcano vGPU, whose device
 * plugin is derived from HAMi): both write the same kinds of pod
 * annotations under their own names and ask for the same three kinds of
 * limits, so one decoder serves both, told by a scheme_devices_desc what
 * the names and the few real differences are.
 *
 * Uses the client's object structs (kube.h), scheme.h and warnings.h.
 */
#ifndef SCHEME_DEVICES_H
#define SCHEME_DEVICES_H

#include <stdbool.h>

#include "kube.h"
#include "scheme.h"
#include "warnings.h"

struct scheme_devices_desc {
	const char *node_key;	     /* node the scheduler chose ("hami.io/vgpu-node") */
	const char *allocated_key;   /* the allocated device list */
	const char *to_allocate_key; /* the scheduler's pending copy of that list */
	const char *bind_phase_key;  /* "allocating", "success" or "failed" */
	const char *display_name;    /* who binds, in "%s could not bind the pod" */
	const char *limit_name;	     /* in "a %s limit is not a usable quantity" */
	const char *res_count;	     /* limit: number of vGPUs */
	const char *res_mem;	     /* limit: MiB per vGPU */
	const char *res_cores;	     /* limit: percent of one GPU per vGPU */
	/* HAMi takes its allocated list as confirmed only once the bind phase
	 * says success; Volcano's list is written by the device plugin at
	 * allocation, which is confirmation enough. */
	bool assigned_needs_bind_success;
};

/* Fill *out from a pod of scheme d: the node it is on or was chosen for,
 * its claims from the allocated list (falling back to the pending copy,
 * then to its limits), and its ask, with warnings to w.  1, or -1 when out
 * of memory. */
int scheme_devices_pod_decode(const struct scheme_devices_desc *d, const struct k8s_pod *pod,
			      struct scheme_pod *out, struct warnings *w);

/* What the pod asks of one node, from what the decoder read: per container
 * its memory and compute over the devices its count limit names; the pod
 * needs the largest of them on each of the most devices any container
 * asks for. */
void scheme_devices_ask(const struct scheme_devices_desc *d, const struct k8s_pod *pod, struct scheme_pod *out);

/* Warn that bad (when > 0) device entries of the node's register
 * annotation key were left out. */
void scheme_devices_warn_register(const struct k8s_node *node, const char *key, int bad, struct warnings *w);

#endif
