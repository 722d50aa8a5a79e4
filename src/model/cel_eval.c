/* Evaluating a compiled selector against one device.  Values live on the
 * stack; nothing is allocated.  An unknown value carries why it is unknown
 * until the end, where it becomes the reason in words, so that an unknown
 * absorbed by && or || costs nothing. */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>

enum ucode {
	U_SUBSET,   /* node: the construct outside the subset */
	U_FAILED,   /* node: a folded call that raises an error */
	U_NO_KEY,   /* a: key, b: domain, t1: the map */
	U_OVERLOAD, /* what: operator, t1 (t2): operand types */
	U_PARSE,    /* what: function, a: text, b: what is wrong */
	U_ATTR,	    /* a: attribute, b: what is wrong */
	U_CAP,	    /* a: capacity, b: what is wrong */
	U_OVERFLOW,
	U_NOT_BOOL, /* t1 */
	U_STEPS,
};

struct unknown {
	enum cel_why why;
	enum ucode code;
	uint32_t node;
	const char *what, *a, *b;
	size_t alen, blen;
	enum cel_type t1, t2;
};

struct value {
	bool unknown;
	enum cel_type t; /* TY_ATTR_DOMAIN, TY_CAP_DOMAIN: the domain in s */
	union {
		bool b;
		int64_t i;
		struct {
			const char *p;
			size_t n;
		} s;
		struct cel_qty q;
		struct cel_semver v;
		struct unknown u;
	};
};

struct eval {
	const struct cel_program *p;
	const struct cel_device *d;
	size_t steps;
	struct value slots[CEL_MAX_BINDS];
};

static void eval(struct eval *e, uint32_t id, struct value *out);

static void set_unknown(struct value *v, enum cel_why why, enum ucode code)
{
	memset(&v->u, 0, sizeof(v->u));
	v->unknown = true;
	v->u.why = why;
	v->u.code = code;
	v->u.t1 = v->u.t2 = TY_OTHER;
}

static void set_overload(struct value *v, const char *op, enum cel_type t1, enum cel_type t2)
{
	set_unknown(v, CEL_WHY_ERROR, U_OVERLOAD);
	v->u.what = op;
	v->u.t1 = t1;
	v->u.t2 = t2;
}

static void set_bool(struct value *v, bool b)
{
	v->unknown = false;
	v->t = TY_BOOL;
	v->b = b;
}

/* Count n steps; false (out unknown) once the bound is passed. */
static bool step(struct eval *e, size_t n, struct value *out)
{
	e->steps += n;
	if (e->steps <= e->p->lim.max_steps)
		return true;
	set_unknown(out, CEL_WHY_LIMIT, U_STEPS);
	return false;
}

/* "DOMAIN/NAME", or "NAME" in the driver's domain. */
static void split_name(const char *name, const char *driver, const char **dom, size_t *dlen, const char **id,
		       size_t *idlen)
{
	const char *slash = strchr(name, '/');

	if (slash) {
		*dom = name;
		*dlen = (size_t)(slash - name);
		*id = slash + 1;
	} else {
		*dom = driver ? driver : "";
		*dlen = strlen(*dom);
		*id = name;
	}
	*idlen = strlen(*id);
}

static bool same(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

/* The index of the entry named key in domain dom, of the attributes or
 * the capacities; -1 if none; -2 when out of steps (out set). */
static long find_entry(struct eval *e, bool caps, const char *dom, size_t dlen, const char *key, size_t klen,
		       struct value *out)
{
	size_t n = caps ? e->d->ncaps : e->d->nattrs;

	for (size_t k = 0; k < n; k++) {
		const char *name = caps ? e->d->caps[k].name : e->d->attrs[k].name;
		const char *d, *id;
		size_t dl, idl;

		if (!step(e, 1, out))
			return -2;
		if (!name)
			continue;
		split_name(name, e->d->driver, &d, &dl, &id, &idl);
		if (same(d, dl, dom, dlen) && (!key || same(id, idl, key, klen)))
			return (long)k;
	}
	return -1;
}

static void cap_value(struct eval *e, size_t k, struct value *out)
{
	const struct cel_capacity *c = &e->d->caps[k];
	size_t len = c->value ? strlen(c->value) : 0;
	const char *err = !c->value ? "no value" : cel_qty_parse(c->value, len, &out->q);

	if (err) {
		set_unknown(out, len > CEL_QTY_MAX_TEXT ? CEL_WHY_LIMIT : CEL_WHY_ERROR, U_CAP);
		out->u.a = c->name;
		out->u.alen = strlen(c->name);
		out->u.b = err;
		return;
	}
	out->unknown = false;
	out->t = TY_QTY;
}

/* Attributes were checked before evaluation (attrs_check). */
static void attr_value(struct eval *e, size_t k, struct value *out)
{
	const struct cel_attr *a = &e->d->attrs[k];

	out->unknown = false;
	switch (a->type) {
	case CEL_ATTR_INT:
		out->t = TY_INT;
		out->i = a->i;
		return;
	case CEL_ATTR_BOOL:
		set_bool(out, a->b);
		return;
	case CEL_ATTR_STRING:
		out->t = TY_STRING;
		out->s.p = a->s;
		out->s.n = strlen(a->s);
		return;
	case CEL_ATTR_VERSION:
		out->t = TY_SEMVER;
		cel_semver_parse(a->s, strlen(a->s), false, &out->v);
		return;
	case CEL_ATTR_NONE:
		break;
	}
	set_unknown(out, CEL_WHY_ERROR, U_ATTR);
	out->u.a = a->name;
	out->u.alen = strlen(a->name);
	out->u.b = "no value";
}

/* The value of key in the domain map m (TY_ATTR_DOMAIN or TY_CAP_DOMAIN). */
static void domain_get(struct eval *e, const struct value *m, const char *key, size_t klen, struct value *out)
{
	bool caps = m->t == TY_CAP_DOMAIN;
	long k = find_entry(e, caps, m->s.p, m->s.n, key, klen, out);

	if (k >= 0) {
		if (caps)
			cap_value(e, (size_t)k, out);
		else
			attr_value(e, (size_t)k, out);
		return;
	}
	if (k == -1) {
		set_unknown(out, CEL_WHY_ERROR, U_NO_KEY);
		out->u.a = key;
		out->u.alen = klen;
		out->u.b = m->s.p;
		out->u.blen = m->s.n;
		out->u.t1 = m->t;
	}
}

static bool is_map(enum cel_type t)
{
	return t == TY_ATTRS || t == TY_CAPS || t == TY_ATTR_DOMAIN || t == TY_CAP_DOMAIN;
}

/* m[key] or m.key on the device's maps. */
static void map_get(struct eval *e, const struct value *m, const struct value *key, const char *op,
		    struct value *out)
{
	if (!is_map(m->t) || key->t != TY_STRING) {
		set_overload(out, op, m->t, key->t);
		return;
	}
	if (m->t == TY_ATTRS || m->t == TY_CAPS) {
		/* an unknown domain is an empty map, as the API server gives it */
		out->unknown = false;
		out->t = m->t == TY_ATTRS ? TY_ATTR_DOMAIN : TY_CAP_DOMAIN;
		out->s = key->s;
		return;
	}
	domain_get(e, m, key->s.p, key->s.n, out);
}

/* 'key' in m: presence, never an error for a missing key. */
static void map_has(struct eval *e, const struct value *m, const struct value *key, struct value *out)
{
	long k;

	if (key->t != TY_STRING) {
		set_bool(out, false);
		return;
	}
	if (m->t == TY_ATTRS || m->t == TY_CAPS)
		k = find_entry(e, m->t == TY_CAPS, key->s.p, key->s.n, NULL, 0, out);
	else
		k = find_entry(e, m->t == TY_CAP_DOMAIN, m->s.p, m->s.n, key->s.p, key->s.n, out);
	if (k != -2)
		set_bool(out, k >= 0);
}

/* CEL's ==: 1, 0, or -1 for no overload.  Across types false, but a
 * version against anything else has no overload, as in the API server's
 * library; -2 for values outside the subset (maps, the device). */
static int values_equal(const struct value *l, const struct value *r)
{
	if (l->t != r->t)
		return l->t == TY_SEMVER ? -1 : 0;
	switch (l->t) {
	case TY_BOOL:
		return l->b == r->b;
	case TY_INT:
		return l->i == r->i;
	case TY_STRING:
		return same(l->s.p, l->s.n, r->s.p, r->s.n);
	case TY_QTY:
		return cel_qty_cmp(&l->q, &r->q) == 0;
	case TY_SEMVER:
		return cel_semver_cmp(&l->v, &r->v) == 0;
	default:
		return -2;
	}
}

/* CEL's orderings: ints, strings (bytewise, as UTF-8 code points),
 * booleans; -2 for no overload. */
static int values_order(const struct value *l, const struct value *r)
{
	int c;

	if (l->t != r->t)
		return -2;
	switch (l->t) {
	case TY_BOOL:
		return (l->b > r->b) - (l->b < r->b);
	case TY_INT:
		return (l->i > r->i) - (l->i < r->i);
	case TY_STRING:
		c = memcmp(l->s.p, r->s.p, l->s.n < r->s.n ? l->s.n : r->s.n);
		if (c)
			return c < 0 ? -1 : 1;
		return (l->s.n > r->s.n) - (l->s.n < r->s.n);
	default:
		return -2;
	}
}

/* && and ||: a false (true) side decides whatever the other is, as CEL
 * absorbs errors; otherwise the first unknown. */
static void eval_logic(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];
	bool and = n->op == OP_AND;
	struct value r;

	eval(e, n->a, out);
	if (!out->unknown && out->t == TY_BOOL && out->b != and)
		return;
	eval(e, n->b, &r);
	if (!r.unknown && r.t == TY_BOOL && r.b != and) {
		*out = r;
		return;
	}
	if (out->unknown)
		return;
	if (r.unknown) {
		*out = r;
		return;
	}
	if (out->t != TY_BOOL || r.t != TY_BOOL)
		set_overload(out, cel_op_name(n->op), out->t, r.t);
	/* else both are the identity: it stands */
}

/* x in [a, b, ...]: every element is evaluated (an error in one makes
 * the list an error); an element that cannot be compared is not equal. */
static void eval_in_list(struct eval *e, const struct value *x, uint32_t list, struct value *out)
{
	bool found = false;

	for (uint32_t k = e->p->nodes[list].b; k != CEL_NONE; k = e->p->nodes[k].next) {
		eval(e, k, out);
		if (out->unknown)
			return;
		found = found || values_equal(x, out) == 1;
	}
	set_bool(out, found);
}

static void eval_compare(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];
	struct value r;
	int c;

	eval(e, n->a, out);
	if (out->unknown)
		return;
	if (n->op == OP_IN && e->p->nodes[n->b].kind == CK_LIST) {
		r = *out;
		eval_in_list(e, &r, n->b, out);
		return;
	}
	eval(e, n->b, &r);
	if (r.unknown) {
		*out = r;
		return;
	}
	if (n->op == OP_IN) {
		struct value key = *out;

		if (is_map(r.t))
			map_has(e, &r, &key, out);
		else
			set_overload(out, cel_op_name(n->op), out->t, r.t);
		return;
	}
	c = n->op == OP_EQ || n->op == OP_NE ? values_equal(out, &r) : values_order(out, &r);
	if (c == -2 && (n->op == OP_EQ || n->op == OP_NE)) {
		set_unknown(out, CEL_WHY_SUBSET, U_SUBSET);
		out->u.node = id;
		return;
	}
	if (c == -2 || (c == -1 && (n->op == OP_EQ || n->op == OP_NE))) {
		set_overload(out, cel_op_name(n->op), out->t, r.t);
		return;
	}
	set_bool(out, n->op == OP_EQ ? c == 1 : n->op == OP_NE ? c == 0 : n->op == OP_LT ? c < 0
		      : n->op == OP_LE ? c <= 0 : n->op == OP_GT ? c > 0 : c >= 0);
}

static void eval_unary(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];

	eval(e, n->a, out);
	if (out->unknown)
		return;
	if (n->op == OP_NOT && out->t == TY_BOOL) {
		out->b = !out->b;
	} else if (n->op == OP_NEG && out->t == TY_INT) {
		if (out->i == INT64_MIN)
			set_unknown(out, CEL_WHY_ERROR, U_OVERFLOW);
		else
			out->i = -out->i;
	} else {
		set_overload(out, cel_op_name(n->op), out->t, TY_OTHER);
	}
}

/* quantity(s), semver(s[, normalize]) and their is- forms on a value. */
static void eval_parse(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];
	bool qty = n->n == FN_QUANTITY || n->n == FN_IS_QUANTITY, is = n->n == FN_IS_QUANTITY || n->n == FN_IS_SEMVER;
	struct value norm = {.t = TY_BOOL, .b = false};
	const char *err, *text;
	size_t len;

	eval(e, n->b, out);
	if (!out->unknown && e->p->nodes[n->b].next != CEL_NONE)
		eval(e, e->p->nodes[n->b].next, &norm);
	if (out->unknown || norm.unknown) {
		if (norm.unknown)
			*out = norm;
		return;
	}
	if (out->t != TY_STRING || norm.t != TY_BOOL) {
		set_overload(out, cel_fn_name(n->n), out->t, norm.t == TY_BOOL ? TY_OTHER : norm.t);
		return;
	}
	text = out->s.p;
	len = out->s.n;
	if (qty && len > CEL_QTY_MAX_TEXT)
		err = "longer than 64 characters";
	else
		err = qty ? cel_qty_parse(text, len, &out->q) : cel_semver_parse(text, len, norm.b, &out->v);
	if (is && !(qty && len > CEL_QTY_MAX_TEXT)) {
		set_bool(out, !err);
		return;
	}
	if (err) {
		set_unknown(out, qty && len > CEL_QTY_MAX_TEXT ? CEL_WHY_LIMIT : CEL_WHY_ERROR, U_PARSE);
		out->u.what = cel_fn_name(n->n);
		out->u.a = text;
		out->u.alen = len;
		out->u.b = err;
		return;
	}
	out->unknown = false;
	out->t = qty ? TY_QTY : TY_SEMVER;
}

/* compareTo, isGreaterThan, isLessThan, major, minor, patch. */
static void eval_method(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];
	struct value arg;
	int c;

	eval(e, n->a, out);
	if (out->unknown)
		return;
	if (n->n >= FN_MAJOR) {
		if (out->t != TY_SEMVER) {
			set_overload(out, cel_fn_name(n->n), out->t, TY_OTHER);
			return;
		}
		out->i = (int64_t)(n->n == FN_MAJOR ? out->v.major : n->n == FN_MINOR ? out->v.minor : out->v.patch);
		out->t = TY_INT;
		return;
	}
	eval(e, n->b, &arg);
	if (arg.unknown) {
		*out = arg;
		return;
	}
	if (out->t != arg.t || (out->t != TY_QTY && out->t != TY_SEMVER)) {
		set_overload(out, cel_fn_name(n->n), out->t, arg.t);
		return;
	}
	c = out->t == TY_QTY ? cel_qty_cmp(&out->q, &arg.q) : cel_semver_cmp(&out->v, &arg.v);
	if (n->n == FN_COMPARE_TO) {
		out->t = TY_INT;
		out->i = c;
	} else {
		set_bool(out, n->n == FN_IS_GREATER ? c > 0 : c < 0);
	}
}

static void eval_field(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];

	eval(e, n->a, out);
	if (out->unknown)
		return;
	if (out->t != TY_DEVICE) {
		set_overload(out, "field selection", out->t, TY_OTHER);
		return;
	}
	switch ((enum cel_field)n->n) {
	case FIELD_DRIVER:
		out->t = TY_STRING;
		out->s.p = e->d->driver ? e->d->driver : "";
		out->s.n = strlen(out->s.p);
		return;
	case FIELD_ATTRIBUTES:
	case FIELD_CAPACITY:
		out->t = n->n == FIELD_ATTRIBUTES ? TY_ATTRS : TY_CAPS;
		return;
	case FIELD_ALLOW_MULTIPLE:
		set_bool(out, e->d->allow_multiple);
		return;
	}
}

/* m.key, m[key] and has(m.key) on the device's maps. */
static void eval_access(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];
	struct value key = {.t = TY_STRING, .s = {n->s, n->slen}}, m;

	eval(e, n->a, out);
	if (out->unknown)
		return;
	if (n->kind == CK_INDEX) {
		eval(e, n->c, &key);
		if (key.unknown) {
			*out = key;
			return;
		}
	}
	m = *out;
	if (n->kind != CK_HAS)
		map_get(e, &m, &key, n->kind == CK_INDEX ? "_[_]" : "field selection", out);
	else if (m.t == TY_ATTR_DOMAIN || m.t == TY_CAP_DOMAIN)
		map_has(e, &m, &key, out);
	else
		set_overload(out, "has()", m.t, TY_OTHER);
}

static void eval_literal(struct eval *e, const struct cel_node *n, struct value *out)
{
	out->unknown = false;
	out->t = (enum cel_type)n->type;
	switch (n->kind) {
	case CK_BOOL:
		out->b = n->i != 0;
		return;
	case CK_INT:
		out->i = n->i;
		return;
	case CK_STRING:
		out->s.p = n->s;
		out->s.n = n->slen;
		return;
	case CK_QTY:
		out->q = e->p->qtys[n->i];
		return;
	default:
		out->v = e->p->semvers[n->i];
		return;
	}
}

static void eval(struct eval *e, uint32_t id, struct value *out)
{
	const struct cel_node *n = &e->p->nodes[id];

	if (!step(e, 1, out))
		return;
	switch (n->kind) {
	case CK_BOOL:
	case CK_INT:
	case CK_STRING:
	case CK_QTY:
	case CK_SEMVER:
		eval_literal(e, n, out);
		return;
	case CK_DEVICE:
		out->unknown = false;
		out->t = TY_DEVICE;
		return;
	case CK_VAR:
		*out = e->slots[n->n];
		return;
	case CK_BIND:
		eval(e, n->a, &e->slots[n->n]);
		eval(e, n->b, out);
		return;
	case CK_FIELD:
		eval_field(e, id, out);
		return;
	case CK_SELECT:
	case CK_INDEX:
	case CK_HAS:
		eval_access(e, id, out);
		return;
	case CK_UNARY:
		eval_unary(e, id, out);
		return;
	case CK_BINARY:
		if (n->op == OP_AND || n->op == OP_OR) {
			eval_logic(e, id, out);
			return;
		}
		eval_compare(e, id, out);
		return;
	case CK_COND:
		eval(e, n->a, out);
		if (out->unknown)
			return;
		if (out->t != TY_BOOL) {
			set_overload(out, "_?_:_", out->t, TY_OTHER);
			return;
		}
		eval(e, out->b ? n->b : n->c, out);
		return;
	case CK_FUNC:
		if (n->n <= FN_IS_SEMVER) {
			eval_parse(e, id, out);
			return;
		}
		eval_method(e, id, out);
		return;
	case CK_FAILED:
		set_unknown(out, CEL_WHY_ERROR, U_FAILED);
		out->u.node = id;
		return;
	default: /* CK_UNSUPPORTED, and a list outside 'in' */
		set_unknown(out, CEL_WHY_SUBSET, U_SUBSET);
		out->u.node = id;
		return;
	}
}

/* The reason for a construct outside the subset. */
static void subset_text(const struct cel_node *n, struct cel_verdict *ret)
{
	char name[72];

	if (n->kind == CK_LIST) {
		snprintf(ret->reason, sizeof(ret->reason),
			 "a list other than the right side of 'in' is outside the evaluated subset");
	} else if (n->kind == CK_BINARY) {
		snprintf(ret->reason, sizeof(ret->reason), "comparing maps is outside the evaluated subset");
	} else if (n->s && n->slen) {
		cel_quote(name, sizeof(name), n->s, n->slen, 64);
		snprintf(ret->reason, sizeof(ret->reason), "%s '%s' is outside the evaluated subset", n->what, name);
	} else {
		snprintf(ret->reason, sizeof(ret->reason), "%s is outside the evaluated subset",
			 n->what ? n->what : "an expression");
	}
}

static void unknown_text(const struct eval *e, const struct unknown *u, struct cel_verdict *ret)
{
	const struct cel_node *n = &e->p->nodes[u->node];
	char a[72], b[72];
	char *r = ret->reason;
	size_t rn = sizeof(ret->reason);

	cel_quote(a, sizeof(a), u->a, u->alen, 64);
	cel_quote(b, sizeof(b), u->b, u->blen, 64);
	switch (u->code) {
	case U_SUBSET:
		subset_text(n, ret);
		return;
	case U_FAILED:
		cel_quote(a, sizeof(a), n->s, n->slen, 64);
		snprintf(r, rn, "%s('%s'): %s", cel_fn_name(n->n), a, n->what);
		return;
	case U_NO_KEY:
		snprintf(r, rn, "no such key '%s' in device.%s['%s']", a, u->t1 == TY_CAP_DOMAIN ? "capacity" : "attributes",
			 b);
		return;
	case U_OVERLOAD:
		if (u->t2 == TY_OTHER)
			snprintf(r, rn, "no such overload: '%s' applied to (%s)", u->what, cel_type_name(u->t1));
		else
			snprintf(r, rn, "no such overload: '%s' applied to (%s, %s)", u->what, cel_type_name(u->t1),
				 cel_type_name(u->t2));
		return;
	case U_PARSE:
		snprintf(r, rn, "%s('%s'): %s", u->what, a, u->b);
		return;
	case U_ATTR:
	case U_CAP:
		snprintf(r, rn, "%s '%s' of the device: %s", u->code == U_ATTR ? "attribute" : "capacity", a, u->b);
		return;
	case U_OVERFLOW:
		snprintf(r, rn, "int overflow");
		return;
	case U_NOT_BOOL:
		snprintf(r, rn, "evaluated to %s, not bool", cel_type_name(u->t1));
		return;
	case U_STEPS:
		snprintf(r, rn, "more than %zu evaluation steps", e->p->lim.max_steps);
		return;
	}
}

/* As the API server does before evaluating: every attribute must hold a
 * value, and a version a valid one, or no selector matches the device. */
static bool attrs_check(struct eval *e, struct value *out)
{
	for (size_t k = 0; k < e->d->nattrs; k++) {
		const struct cel_attr *a = &e->d->attrs[k];
		struct cel_semver v;
		const char *err = NULL;

		if (!step(e, 1, out))
			return false;
		if (!a->name)
			continue;
		if (a->type == CEL_ATTR_NONE || ((a->type == CEL_ATTR_STRING || a->type == CEL_ATTR_VERSION) && !a->s))
			err = "no value";
		else if (a->type == CEL_ATTR_VERSION && cel_semver_parse(a->s, strlen(a->s), false, &v))
			err = "not a semantic version";
		if (err) {
			set_unknown(out, CEL_WHY_ERROR, U_ATTR);
			out->u.a = a->name;
			out->u.alen = strlen(a->name);
			out->u.b = err;
			return false;
		}
	}
	return true;
}

void cel_eval(const struct cel_program *p, const struct cel_device *d, struct cel_verdict *ret)
{
	struct eval e = {.p = p, .d = d};
	struct value v;

	memset(ret, 0, sizeof(*ret));
	if (p->why != CEL_WHY_NONE) {
		ret->result = CEL_UNKNOWN;
		ret->why = p->why;
		memcpy(ret->reason, p->reason, sizeof(ret->reason));
		return;
	}
	if (attrs_check(&e, &v))
		eval(&e, p->root, &v);
	if (!v.unknown && v.t != TY_BOOL) {
		enum cel_type t = v.t;

		set_unknown(&v, CEL_WHY_ERROR, U_NOT_BOOL);
		v.u.t1 = t;
	}
	if (v.unknown) {
		ret->result = CEL_UNKNOWN;
		ret->why = v.u.why;
		unknown_text(&e, &v.u, ret);
		return;
	}
	ret->result = v.b ? CEL_TRUE : CEL_FALSE;
}
