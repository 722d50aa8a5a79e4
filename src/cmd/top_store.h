/* The live view's objects, kept by uid (or namespace/name) in a small hash,
 * so that watch events can replace and delete them one by one. */
#ifndef TOP_STORE_H
#define TOP_STORE_H

#include <stddef.h>

#include "kube.h"

struct entry {
	char *key;
	void *obj;
	struct entry *next;
};

struct store {
	enum obj_kind kind;
	struct entry **b; /* nb buckets of chained entries */
	size_t nb, n;
};

void store_init(struct store *s, enum obj_kind kind);
void store_release(struct store *s);
/* Takes ownership of obj (also on failure); replaces an object of the same key. */
int store_put(struct store *s, void *obj);
/* Frees obj, and the stored object of the same key. */
void store_del(struct store *s, void *obj);
/* k8s_node_free or k8s_pod_free, by kind. */
void top_obj_free(enum obj_kind kind, void *obj);

#endif
