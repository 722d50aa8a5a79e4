/* A pod's required node affinity as both list decoders keep it: see
 * decode_internal.h. */
#include "decode_internal.h"

#include <stdlib.h>
#include <string.h>

#include "objects.h"

/* One more element, zeroed, in an array of *n kept under max; NULL when
 * the cap is reached (with *full set) or memory is out. */
static void *add_zeroed(void **items, size_t *n, size_t max, size_t size, bool *full)
{
	char *p;

	*full = *n >= max;
	if (*full)
		return NULL;
	/* a handful at most: one element more each time */
	p = realloc(*items, (*n + 1) * size);
	if (!p)
		return NULL;
	*items = p;
	memset(p + *n * size, 0, size);
	return p + (*n)++ * size;
}

int decode_affinity_open(struct decode_affinity *a, const struct decode_filter *f, struct k8s_pod *p, bool term)
{
	bool full;
	void *added;

	a->req = NULL;
	if (!p || !f->scheduling)
		return 0;
	if (term)
		added = a->term = add_zeroed((void **)&p->node_terms, &p->nnode_terms, DECODE_MAX_TERMS,
					     sizeof(*a->term), &full);
	else if (a->term)
		added = a->req = add_zeroed((void **)&a->term->reqs, &a->term->nreqs, DECODE_MAX_EXPRS,
					    sizeof(*a->req), &full);
	else
		return 0;
	/* past a cap, the rest of the term or expression is read past */
	return added || full ? 0 : -1;
}

static int set_string(char **dst, const void *s, size_t len)
{
	char *c = malloc(len + 1);

	if (!c)
		return -1;
	if (len)
		memcpy(c, s, len);
	c[len] = '\0';
	free(*dst);
	*dst = c;
	return 0;
}

int decode_affinity_string(struct decode_affinity *a, enum affinity_field f, const void *s, size_t len)
{
	struct k8s_node_requirement *r = a->req;
	char **v;
	bool full;

	if (!r)
		return 0;
	switch (f) {
	case AFF_KEY:
		return set_string(&r->key, s, len);
	case AFF_OPERATOR:
		return set_string(&r->op, s, len);
	case AFF_VALUE:
		v = add_zeroed((void **)&r->values, &r->nvalues, DECODE_MAX_VALUES, sizeof(*v), &full);
		if (!v)
			return full ? 0 : -1;
		if (set_string(v, s, len) < 0) {
			r->nvalues--;
			return -1;
		}
		return 0;
	}
	return 0;
}
