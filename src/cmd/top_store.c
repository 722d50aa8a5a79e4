/* The live view's object store: see top_store.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_store.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

void top_obj_free(enum obj_kind kind, void *obj)
{
	if (kind == OBJ_NODE)
		k8s_node_free(obj);
	else
		k8s_pod_free(obj);
}

/* uid, or namespace/name for an object without one */
static char *obj_key(enum obj_kind kind, const void *obj)
{
	const char *uid, *ns = "", *name;
	char *key = NULL;

	if (kind == OBJ_NODE) {
		const struct k8s_node *n = obj;

		uid = n->uid;
		name = n->name;
	} else {
		const struct k8s_pod *p = obj;

		uid = p->uid;
		ns = p->namespace ? p->namespace : "";
		name = p->name;
	}
	if (uid && *uid)
		return strdup(uid);
	if (asprintf(&key, "%s/%s", ns, name ? name : "") < 0)
		return NULL;
	return key;
}

static void entry_free(const struct store *s, struct entry *e)
{
	top_obj_free(s->kind, e->obj);
	free(e->key);
	free(e);
}

void store_init(struct store *s, enum obj_kind kind)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
}

void store_release(struct store *s)
{
	for (size_t i = 0; i < s->nb; i++) {
		for (struct entry *e = s->b[i], *next; e; e = next) {
			next = e->next;
			entry_free(s, e);
		}
	}
	free(s->b);
	store_init(s, s->kind);
}

static int store_grow(struct store *s)
{
	size_t nb = s->nb ? s->nb * 2 : 64;
	struct entry **b = calloc(nb, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < s->nb; i++) {
		for (struct entry *e = s->b[i], *next; e; e = next) {
			size_t h = hash_str(e->key) % nb;

			next = e->next;
			e->next = b[h];
			b[h] = e;
		}
	}
	free(s->b);
	s->b = b;
	s->nb = nb;
	return 0;
}

int store_put(struct store *s, void *obj)
{
	char *key = obj_key(s->kind, obj);
	struct entry *e;
	size_t h;

	if (!key || (s->n >= s->nb && store_grow(s) < 0))
		goto fail;
	h = hash_str(key) % s->nb;
	for (e = s->b[h]; e; e = e->next) {
		if (strcmp(e->key, key) == 0) {
			top_obj_free(s->kind, e->obj);
			e->obj = obj;
			free(key);
			return 0;
		}
	}
	if (!(e = calloc(1, sizeof(*e))))
		goto fail;
	e->key = key;
	e->obj = obj;
	e->next = s->b[h];
	s->b[h] = e;
	s->n++;
	return 0;
fail:
	/* the store owns obj from the call on, put or not */
	free(key);
	top_obj_free(s->kind, obj);
	return -1;
}

void store_del(struct store *s, void *obj)
{
	char *key = obj_key(s->kind, obj);

	top_obj_free(s->kind, obj);
	if (!key || !s->nb) {
		free(key);
		return;
	}
	for (struct entry **pp = &s->b[hash_str(key) % s->nb]; *pp; pp = &(*pp)->next) {
		struct entry *e = *pp;

		if (strcmp(e->key, key) == 0) {
			*pp = e->next;
			entry_free(s, e);
			s->n--;
			break;
		}
	}
	free(key);
}
