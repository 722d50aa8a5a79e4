#include "objects.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void *kube_array_grow(void *items, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap : first ? first : 1;
	void *p;

	if (need <= *cap)
		return items;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return NULL;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return NULL;
	p = realloc(items, ncap * size);
	if (p)
		*cap = ncap;
	return p;
}

static bool time_mid_sep(char c, char mid_sep)
{
	if (mid_sep == 'T')
		return c == 'T' || c == 't' || c == ' ';
	return c == mid_sep;
}

int kube_time_parse(const char *s, char date_sep, char mid_sep, bool zone_optional, long long *ret)
{
	struct tm tm = {0};
	int y, mo, d, h, mi, sec, n = 0;
	char c1, c2;
	long long t;
	const char *p;

	if (sscanf(s, "%4d%c%2d%c%2d%n", &y, &c1, &mo, &c2, &d, &n) != 5 || n != 10 || c1 != date_sep ||
	    c2 != date_sep)
		return -1;
	p = s + 10;
	if (!time_mid_sep(*p, mid_sep))
		return -1;
	p++;
	n = 0;
	if (sscanf(p, "%2d:%2d:%2d%n", &h, &mi, &sec, &n) != 3 || n != 8)
		return -1;
	p += 8;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || h < 0 ||
	    mi < 0 || sec < 0)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = (long long)timegm(&tm);
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;

		n = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n) != 2 || n != 5 || oh > 23 || om > 59 || oh < 0 ||
		    om < 0)
			return -1;
		t -= (*p == '+' ? 1 : -1) * (long long)(oh * 3600 + om * 60);
		p += 6;
	} else if (!zone_optional) {
		return -1;
	}
	if (*p)
		return -1;
	*ret = t;
	return 0;
}

char *kube_strdup_len(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Searched from the end: a JSON map with a key written twice keeps the last
 * value, as the API server's own decoder does, without a quadratic check on
 * every insertion. */
const char *kvlist_get(const struct kvlist *l, const char *key)
{
	if (!l || !key)
		return NULL;
	for (size_t i = l->len; i-- > 0;)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].value;
	return NULL;
}

int kvlist_add(struct kvlist *l, const char *key, size_t keylen, const char *value, size_t valuelen)
{
	struct kv kv, *items;

	if (!l || !key)
		return -1;
	items = kube_array_grow(l->items, &l->cap, l->len + 1, sizeof(*items), 4);
	if (!items)
		return -1;
	l->items = items;
	kv.key = kube_strdup_len(key, keylen);
	kv.value = kube_strdup_len(value ? value : "", value ? valuelen : 0);
	if (!kv.key || !kv.value) {
		free(kv.key);
		free(kv.value);
		return -1;
	}
	l->items[l->len++] = kv;
	return 0;
}

int strset_add(struct strset *set, const char *s)
{
	char **v;

	if (!s)
		return 0;
	for (size_t i = 0; i < set->len; i++)
		if (strcmp(set->v[i], s) == 0)
			return 0;
	v = kube_array_grow(set->v, &set->cap, set->len + 1, sizeof(*v), 8);
	if (!v)
		return -1;
	set->v = v;
	if (!(v[set->len] = strdup(s)))
		return -1;
	set->len++;
	return 1;
}

void strset_release(struct strset *set)
{
	for (size_t i = 0; i < set->len; i++)
		free(set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

void kvlist_release(struct kvlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->len; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

bool decode_filter_match(const char *const *patterns, const char *key, size_t keylen)
{
	if (!patterns || !key)
		return false;
	for (; *patterns; patterns++) {
		const char *p = *patterns;
		size_t plen;

		/* most patterns differ from the key at once; "*" alone matches all */
		if (keylen && *p && *p != *key && *p != '*')
			continue;
		plen = strlen(p);
		if (plen && p[plen - 1] == '*') {
			plen--;
			if (keylen >= plen && memcmp(key, p, plen) == 0)
				return true;
		} else if (keylen == plen && memcmp(key, p, plen) == 0) {
			return true;
		}
	}
	return false;
}

static size_t count_patterns(const char *const *p)
{
	size_t n = 0;

	while (p && p[n])
		n++;
	return n;
}

/* NULL stays NULL (keep nothing) unless one side has patterns; the result is
 * always a fresh array so that decode_filter_release() can free it. */
static int union_patterns(const char *const **ret, const char *const *a, const char *const *b)
{
	size_t na = count_patterns(a), nb = count_patterns(b);
	const char **out;

	*ret = NULL;
	if (!a && !b)
		return 0;
	out = calloc(na + nb + 1, sizeof(*out));
	if (!out)
		return -1;
	for (size_t i = 0; i < na; i++)
		out[i] = a[i];
	for (size_t i = 0; i < nb; i++)
		out[na + i] = b[i];
	*ret = out;
	return 0;
}

int decode_filter_union(struct decode_filter *ret, const struct decode_filter *a,
			const struct decode_filter *b)
{
	static const struct decode_filter none;
	struct decode_filter f = {0};

	if (!ret)
		return -1;
	if (!a)
		a = &none;
	if (!b)
		b = &none;
	if (union_patterns(&f.label_keys, a->label_keys, b->label_keys) < 0 ||
	    union_patterns(&f.annotation_keys, a->annotation_keys, b->annotation_keys) < 0 ||
	    union_patterns(&f.resource_names, a->resource_names, b->resource_names) < 0 ||
	    union_patterns(&f.node_keys, a->node_keys, b->node_keys) < 0 ||
	    union_patterns(&f.attribute_keys, a->attribute_keys, b->attribute_keys) < 0) {
		decode_filter_release(&f);
		return -1;
	}
	f.all_labels = a->all_labels || b->all_labels;
	f.all_annotations = a->all_annotations || b->all_annotations;
	f.all_resources = a->all_resources || b->all_resources;
	f.all_attributes = a->all_attributes || b->all_attributes;
	f.scheduling = a->scheduling || b->scheduling;
	*ret = f;
	return 0;
}

void decode_filter_release(struct decode_filter *f)
{
	if (!f)
		return;
	/* The arrays were allocated by decode_filter_union(); the strings in
	 * them belong to the filters it was given. */
	free((void *)f->label_keys);
	free((void *)f->annotation_keys);
	free((void *)f->resource_names);
	free((void *)f->node_keys);
	free((void *)f->attribute_keys);
	memset(f, 0, sizeof(*f));
}

void k8s_node_free(struct k8s_node *n)
{
	if (!n)
		return;
	free(n->name);
	free(n->uid);
	free(n->resource_version);
	free(n->internal_ip);
	kvlist_release(&n->labels);
	kvlist_release(&n->annotations);
	kvlist_release(&n->capacity);
	kvlist_release(&n->allocatable);
	k8s_taints_free(n->taints, n->ntaints);
	free(n);
}

static void pod_claims_free(struct k8s_pod_claim *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].claim_name);
		free(c[i].template_name);
	}
	free(c);
}

static void pod_dra_release(struct k8s_pod *p)
{
	pod_claims_free(p->claims, p->nclaims);
	pod_claims_free(p->claim_statuses, p->nclaim_statuses);
	free(p->extended_claim);
	for (size_t i = 0; i < p->nextended_requests; i++) {
		free(p->extended_requests[i].container);
		free(p->extended_requests[i].resource);
		free(p->extended_requests[i].request);
	}
	free(p->extended_requests);
}

void k8s_pdb_free(struct k8s_pdb *b)
{
	if (!b)
		return;
	free(b->namespace);
	free(b->name);
	free(b->uid);
	free(b->resource_version);
	kvlist_release(&b->labels);
	kvlist_release(&b->annotations);
	kvlist_release(&b->match_labels);
	for (size_t i = 0; i < b->nmatch_exprs; i++) {
		free(b->match_exprs[i].key);
		free(b->match_exprs[i].op);
		for (size_t j = 0; j < b->match_exprs[i].nvalues; j++)
			free(b->match_exprs[i].values[j]);
		free(b->match_exprs[i].values);
	}
	free(b->match_exprs);
	free(b);
}

bool k8s_pdb_selects(const struct k8s_pdb *b, const char *namespace, const struct kvlist *labels)
{
	struct k8s_node_term t = {.reqs = b->match_exprs, .nreqs = b->nmatch_exprs};

	if (!namespace || !b->namespace || strcmp(namespace, b->namespace) != 0)
		return false;
	return k8s_node_selector_match(labels, &b->match_labels) && (!b->nmatch_exprs || k8s_node_term_match(labels, &t));
}

void k8s_pod_free(struct k8s_pod *p)
{
	if (!p)
		return;
	free(p->namespace);
	free(p->name);
	free(p->uid);
	free(p->resource_version);
	free(p->node_name);
	free(p->phase);
	free(p->scheduler_name);
	kvlist_release(&p->labels);
	kvlist_release(&p->node_keys);
	kvlist_release(&p->annotations);
	for (size_t i = 0; i < p->ncontainers; i++) {
		free(p->containers[i].name);
		kvlist_release(&p->containers[i].limits);
		for (size_t j = 0; j < p->containers[i].nclaims; j++) {
			free(p->containers[i].claims[j].name);
			free(p->containers[i].claims[j].request);
		}
		free(p->containers[i].claims);
	}
	free(p->containers);
	pod_dra_release(p);
	for (size_t i = 0; i < p->ninit_containers; i++) {
		free(p->init_containers[i].name);
		kvlist_release(&p->init_containers[i].limits);
		for (size_t j = 0; j < p->init_containers[i].nclaims; j++) {
			free(p->init_containers[i].claims[j].name);
			free(p->init_containers[i].claims[j].request);
		}
		free(p->init_containers[i].claims);
	}
	free(p->init_containers);
	for (size_t i = 0; i < p->nowners; i++) {
		free(p->owners[i].kind);
		free(p->owners[i].name);
		free(p->owners[i].uid);
	}
	free(p->owners);
	kvlist_release(&p->node_selector);
	k8s_tolerations_free(p->tolerations, p->ntolerations);
	k8s_node_terms_free(p->node_terms, p->nnode_terms);
	free(p);
}

static void requirements_free(struct k8s_node_requirement *r, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		free(r[j].key);
		free(r[j].op);
		for (size_t k = 0; k < r[j].nvalues; k++)
			free(r[j].values[k]);
		free(r[j].values);
	}
	free(r);
}

void k8s_node_terms_free(struct k8s_node_term *terms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		requirements_free(terms[i].reqs, terms[i].nreqs);
		requirements_free(terms[i].fields, terms[i].nfields);
	}
	free(terms);
}

static int copy_str(char **dst, const char *s)
{
	return s && !(*dst = strdup(s)) ? -1 : 0;
}

void k8s_taints_free(struct k8s_taint *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++) {
		free(t[i].key);
		free(t[i].value);
		free(t[i].effect);
	}
	free(t);
}

int k8s_taints_copy(struct k8s_taint **ret, size_t *ret_n, const struct k8s_taint *t, size_t n)
{
	struct k8s_taint *c = n ? calloc(n, sizeof(*c)) : NULL;

	*ret = NULL;
	*ret_n = 0;
	if (n && !c)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (copy_str(&c[i].key, t[i].key) < 0 || copy_str(&c[i].value, t[i].value) < 0 ||
		    copy_str(&c[i].effect, t[i].effect) < 0) {
			k8s_taints_free(c, n);
			return -1;
		}
	*ret = c;
	*ret_n = n;
	return 0;
}

void k8s_tolerations_free(struct k8s_toleration *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++) {
		free(t[i].key);
		free(t[i].op);
		free(t[i].value);
		free(t[i].effect);
	}
	free(t);
}

int k8s_tolerations_copy(struct k8s_toleration **ret, size_t *ret_n, const struct k8s_toleration *t, size_t n)
{
	struct k8s_toleration *c = n ? calloc(n, sizeof(*c)) : NULL;

	*ret = NULL;
	*ret_n = 0;
	if (n && !c)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (copy_str(&c[i].key, t[i].key) < 0 || copy_str(&c[i].op, t[i].op) < 0 ||
		    copy_str(&c[i].value, t[i].value) < 0 || copy_str(&c[i].effect, t[i].effect) < 0) {
			k8s_tolerations_free(c, n);
			return -1;
		}
	*ret = c;
	*ret_n = n;
	return 0;
}

static int copy_requirement(struct k8s_node_requirement *c, const struct k8s_node_requirement *r)
{
	if (copy_str(&c->key, r->key) < 0 || copy_str(&c->op, r->op) < 0)
		return -1;
	if (!r->nvalues)
		return 0;
	if (!(c->values = calloc(r->nvalues, sizeof(*c->values))))
		return -1;
	for (; c->nvalues < r->nvalues; c->nvalues++)
		if (copy_str(&c->values[c->nvalues], r->values[c->nvalues]) < 0)
			return -1;
	return 0;
}

/* n requirements into *c (calloc'd), counted in *cn as each is begun. */
static int copy_requirements(struct k8s_node_requirement **c, size_t *cn, const struct k8s_node_requirement *r,
			     size_t n)
{
	if (n && !(*c = calloc(n, sizeof(**c))))
		return -1;
	for (; *cn < n; (*cn)++)
		if (copy_requirement(&(*c)[*cn], &r[*cn]) < 0) {
			(*cn)++;
			return -1;
		}
	return 0;
}

int k8s_node_terms_copy(struct k8s_node_term **ret, size_t *ret_n, const struct k8s_node_term *terms, size_t n)
{
	struct k8s_node_term *c = n ? calloc(n, sizeof(*c)) : NULL;
	size_t done = 0;

	*ret = NULL;
	*ret_n = 0;
	if (n && !c)
		return -1;
	for (; done < n; done++) {
		const struct k8s_node_term *t = &terms[done];

		if (copy_requirements(&c[done].reqs, &c[done].nreqs, t->reqs, t->nreqs) < 0 ||
		    copy_requirements(&c[done].fields, &c[done].nfields, t->fields, t->nfields) < 0)
			goto fail;
	}
	*ret = c;
	*ret_n = n;
	return 0;
fail:
	k8s_node_terms_free(c, done + 1);
	return -1;
}

bool k8s_node_selector_match(const struct kvlist *labels, const struct kvlist *selector)
{
	for (size_t i = 0; selector && i < selector->len; i++) {
		const char *v = kvlist_get(labels, selector->items[i].key);

		if (!v || strcmp(v, selector->items[i].value) != 0)
			return false;
	}
	return true;
}

/* A label value as the scheduler reads it for Gt/Lt: a whole decimal number. */
static bool parse_int(const char *s, long long *ret)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*ret = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

static bool requirement_match(const struct kvlist *labels, const struct k8s_node_requirement *r)
{
	const char *v = r->key ? kvlist_get(labels, r->key) : NULL;
	long long have, want;
	bool in = false;

	if (!r->op)
		return false;
	if (strcmp(r->op, "Exists") == 0)
		return v != NULL;
	if (strcmp(r->op, "DoesNotExist") == 0)
		return v == NULL;
	if (strcmp(r->op, "Gt") == 0 || strcmp(r->op, "Lt") == 0) {
		if (!v || r->nvalues != 1 || !parse_int(v, &have) || !parse_int(r->values[0], &want))
			return false;
		return r->op[0] == 'G' ? have > want : have < want;
	}
	for (size_t i = 0; v && i < r->nvalues; i++)
		in |= strcmp(v, r->values[i]) == 0;
	if (strcmp(r->op, "In") == 0)
		return in;
	if (strcmp(r->op, "NotIn") == 0)
		return !in;
	return false;
}

bool k8s_node_term_match(const struct kvlist *labels, const struct k8s_node_term *t)
{
	/* an empty term selects no node, as the scheduler reads it */
	if (!t->nreqs)
		return false;
	for (size_t i = 0; i < t->nreqs; i++)
		if (!requirement_match(labels, &t->reqs[i]))
			return false;
	return true;
}

/* A matchFields entry: the scheduler knows one node field, metadata.name,
 * and the operators In and NotIn for it. */
static bool field_match(const char *name, const struct k8s_node_requirement *r)
{
	bool in = false;

	if (!name || !r->key || strcmp(r->key, "metadata.name") != 0 || !r->op)
		return false;
	for (size_t i = 0; i < r->nvalues; i++)
		in |= r->values[i] && strcmp(name, r->values[i]) == 0;
	if (strcmp(r->op, "In") == 0)
		return in;
	if (strcmp(r->op, "NotIn") == 0)
		return !in;
	return false;
}

bool k8s_node_term_match_node(const char *name, const struct kvlist *labels, const struct k8s_node_term *t)
{
	if (!t->nreqs && !t->nfields)
		return false;
	for (size_t i = 0; i < t->nreqs; i++)
		if (!labels || !requirement_match(labels, &t->reqs[i]))
			return false;
	for (size_t i = 0; i < t->nfields; i++)
		if (!field_match(name, &t->fields[i]))
			return false;
	return true;
}

static bool str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

bool k8s_tolerates(const struct k8s_toleration *tols, size_t ntols, const struct k8s_taint *t)
{
	for (size_t i = 0; i < ntols; i++) {
		const struct k8s_toleration *o = &tols[i];
		bool exists = o->op && strcmp(o->op, "Exists") == 0;

		if (o->effect && *o->effect && !str_eq(o->effect, t->effect))
			continue;
		if (exists && (!o->key || !*o->key))
			return true;
		if (!str_eq(o->key, t->key))
			continue;
		if (exists || str_eq(o->value, t->value))
			return true;
	}
	return false;
}
