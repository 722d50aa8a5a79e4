/* Pods placed one after another: each takes what its node's scheme gives
 * it before the next is checked, so that a workload of N replicas is
 * answered as the scheduler would place it, one pod at a time. */
#include <stdlib.h>
#include <string.h>

#include "fit.h"

static struct model_gpu *gpu_by_index(struct model_node *n, int index)
{
	for (int i = 0; i < n->ngpus; i++)
		if (n->gpus[i].index == index)
			return &n->gpus[i];
	return NULL;
}

void fit_take(struct model *m, const struct fit_request *r, const struct fit_place *p)
{
	struct model_node *n = &m->nodes[p->node];
	int64_t need = fit_need_in(r, n->info.unit, n->unit);
	int gpus = r->gpus > 1 ? r->gpus : 1;

	if (!p->gpus) {
		/* per-node figures: slots are counted as GPUs, memory per GPU asked */
		n->mem_allocated += n->unit == UNIT_SLOTS ? gpus : need * gpus;
		n->core_allocated += r->core * gpus;
		model_node_derive(n);
		return;
	}
	for (int i = 0; i < p->ngpus; i++) {
		struct model_gpu *g = gpu_by_index(n, p->gpus[i]);
		/* no memory named on a scheme whose default is a whole card: all of it */
		int64_t take = need ? need : (n->scheme && n->scheme->whole_card_by_default ? g->mem_total - g->mem_allocated : 0);

		if (!g)
			continue;
		g->mem_allocated += take;
		g->core_allocated += r->core;
		g->slots_used++;
		g->npods++;
		n->mem_allocated += take;
		n->core_allocated += r->core;
	}
	model_node_derive(n);
}

static int push_place(struct fit_sequence *s, size_t *cap, const struct fit_place *p)
{
	struct fit_place *np = kube_array_grow(s->places, cap, s->placed + 1, sizeof(*np), 8);
	int *gpus = NULL;

	if (!np)
		return -1;
	s->places = np;
	if (p->ngpus && !(gpus = malloc((size_t)p->ngpus * sizeof(int))))
		return -1;
	if (gpus)
		memcpy(gpus, p->gpus, (size_t)p->ngpus * sizeof(int));
	s->places[s->placed] = *p;
	s->places[s->placed].gpus = gpus;
	s->places[s->placed].devices = NULL; /* the check's own */
	s->placed++;
	return 0;
}

/* A DaemonSet's: one pod on every node that passes the node checks. */
static int per_node(struct model *m, const struct fit_request *r, struct fit_sequence *s, size_t *cap)
{
	struct fit_result res;

	if (fit_check(m, r, &res) < 0)
		return -1;
	s->asked = res.nfits;
	for (size_t i = 0; i < res.ngroups; i++)
		if (fit_reason_is_room(res.groups[i].reason))
			s->asked += res.groups[i].count;
	for (size_t i = 0; i < res.nsure; i++) {
		fit_take(m, r, &res.fits[i]);
		if (push_place(s, cap, &res.fits[i]) < 0) {
			fit_result_release(&res);
			return -1;
		}
	}
	if (s->placed < s->asked)
		s->rest = res;
	else
		fit_result_release(&res);
	return 0;
}

int fit_sequence(struct model *m, const struct fit_request *r, long n, struct fit_sequence *s)
{
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	if (n < 0)
		return per_node(m, r, s, &cap) < 0 ? (fit_sequence_release(s), -1) : 0;
	s->asked = (size_t)n;
	while (s->placed < s->asked) {
		struct fit_result res;

		if (fit_check(m, r, &res) < 0)
			goto fail;
		if (!res.nsure) {
			s->rest = res;
			break;
		}
		fit_take(m, r, &res.fits[0]);
		if (push_place(s, &cap, &res.fits[0]) < 0) {
			fit_result_release(&res);
			goto fail;
		}
		fit_result_release(&res);
	}
	return 0;
fail:
	fit_sequence_release(s);
	return -1;
}

void fit_sequence_release(struct fit_sequence *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->placed; i++)
		free(s->places[i].gpus);
	free(s->places);
	fit_result_release(&s->rest);
	memset(s, 0, sizeof(*s));
}
