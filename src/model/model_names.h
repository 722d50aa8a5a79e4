/* A set of strings, each stored once and numbered in the order added: the
 * model finds its per-node accumulators by node name through one, and keeps
 * the device names pods hold in another, so that they outlive the pods.
 * Grows with the distinct strings, not with the lookups.
 *
 * Uses nothing but libc and the client's array growth (kube.h).
 */
#ifndef MODEL_NAMES_H
#define MODEL_NAMES_H

#include <stddef.h>

struct model_names {
	char **v; /* the strings, in the order added */
	size_t len, cap;
	size_t *table; /* open addressing: index + 1, 0 = empty */
	size_t size;
};

/* The number of p[0..n): found, or added as the next one; -1 when out of memory. */
long model_names_add(struct model_names *t, const char *p, size_t n);
/* The number of s, or -1 when it is not in the set. */
long model_names_find(const struct model_names *t, const char *s);
void model_names_release(struct model_names *t);

#endif
