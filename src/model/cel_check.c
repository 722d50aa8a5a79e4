/* Compiling a selector: after the parse, names are resolved (`device`,
 * cel.bind variables, functions), types checked where the checker of CEL
 * would reject the expression, literal quantities and versions read once,
 * and what lies outside the evaluated subset marked as such, whole, so
 * that evaluation only has to say unknown when it reaches it. */
#include "cel_internal.h"

#include <stdlib.h>
#include <string.h>

const struct cel_limits cel_default_limits = {
	.max_bytes = 10240,
	.max_depth = 64,
	.max_nodes = 4096,
	.max_steps = 100000,
};

/* Functions and macros of CEL and of the libraries the API server offers
 * selectors that this evaluator does not evaluate: valid, but outside the
 * subset.  Any other name is not CEL. */
static const char *const other_functions[] = {
	"all", "exists", "exists_one", "map", "filter", "transformList", "transformMap",
	"transformMapEntry", "size", "contains", "startsWith", "endsWith", "matches", "int", "uint",
	"double", "string", "bytes", "bool", "type", "dyn", "duration", "timestamp", "getDate",
	"getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getFullYear", "getHours",
	"getMilliseconds", "getMinutes", "getMonth", "getSeconds", "charAt", "indexOf",
	"lastIndexOf", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim", "join",
	"format", "reverse", "quote", "isSorted", "sum", "min", "max", "find", "findAll", "url",
	"isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
	"ip", "isIP", "cidr", "isCIDR", "family", "isUnspecified", "isLoopback",
	"isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast", "containsIP",
	"containsCIDR", "prefixLength", "masked", "isCanonical", "sign", "isInteger", "asInteger",
	"asApproximateFloat", "add", "sub", "mul", "div", "divInt", "orValue", "or", "hasValue",
	"value", "optMap", "optFlatMap", "includes", "slice", "flatten", "distinct", "sort", "sortBy",
	"first", "last", "greatest", "least", "ceil", "floor", "round", "trunc", "abs", "isNaN",
	"isInf", "isFinite", "bitAnd", "bitOr", "bitXor", "bitNot", "bitShiftLeft", "bitShiftRight",
	"equivalent", "intersects", "encode", "decode", "of", "none", "ofNonZeroValue", "range",
};

/* Namespaces of library functions (math.greatest(), sets.contains()...). */
static const char *const namespaces[] = {
	"math", "strings", "sets", "optional", "base64", "lists", "cel", "regex",
};

static const char *const device_fields[] = {
	[FIELD_DRIVER] = "driver",
	[FIELD_ATTRIBUTES] = "attributes",
	[FIELD_CAPACITY] = "capacity",
	[FIELD_ALLOW_MULTIPLE] = "allowMultipleAllocations",
};

struct scope {
	const char *name;
	uint32_t len, slot, init;
};

struct checker {
	struct cel_program *p;
	struct scope scope[CEL_MAX_BINDS];
	unsigned nscope;
};

static bool name_is(const struct cel_node *n, const char *name)
{
	return n->slen == strlen(name) && !memcmp(n->s, name, n->slen);
}

static bool in_list(const struct cel_node *n, const char *const *list, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (name_is(n, list[i]))
			return true;
	return false;
}

static bool failed(const struct checker *c)
{
	return c->p->why != CEL_WHY_NONE || c->p->oom;
}

/* Mark the node outside the subset; its children are not looked at again. */
static void unsupported(struct checker *c, uint32_t id, const char *what, bool named)
{
	struct cel_node *n = &c->p->nodes[id];

	n->kind = CK_UNSUPPORTED;
	n->what = what;
	if (!named)
		n->s = NULL, n->slen = 0;
	n->type = TY_OTHER;
}

static void invalid_name(struct checker *c, const char *what, const struct cel_node *n)
{
	char name[72];

	cel_quote(name, sizeof(name), n->s, n->slen, 64);
	cel_program_fail(c->p, CEL_WHY_INVALID, "%s '%s'", what, name);
}

static void no_overload(struct checker *c, const char *op, enum cel_type a, enum cel_type b)
{
	if (b == TY_OTHER && a != TY_OTHER)
		cel_program_fail(c->p, CEL_WHY_INVALID, "no matching overload for '%s' applied to (%s)", op,
				 cel_type_name(a));
	else
		cel_program_fail(c->p, CEL_WHY_INVALID, "no matching overload for '%s' applied to (%s, %s)", op,
				 cel_type_name(a), cel_type_name(b));
}

/* A type the checker cannot hold against anything. */
static bool loose(enum cel_type t)
{
	return t == TY_DYN || t == TY_OTHER;
}

static bool is_domains(enum cel_type t)
{
	return t == TY_ATTRS || t == TY_CAPS;
}

static bool is_domain(enum cel_type t)
{
	return t == TY_ATTR_DOMAIN || t == TY_CAP_DOMAIN;
}

static enum cel_type check(struct checker *c, uint32_t id);

static enum cel_type check_ident(struct checker *c, uint32_t id)
{
	struct cel_node *n = &c->p->nodes[id];

	for (unsigned k = c->nscope; k-- > 0;) {
		if (c->scope[k].len == n->slen && !memcmp(c->scope[k].name, n->s, n->slen)) {
			n->kind = CK_VAR;
			n->n = c->scope[k].slot;
			return n->type = c->p->nodes[c->scope[k].init].type;
		}
	}
	if (name_is(n, "device")) {
		n->kind = CK_DEVICE;
		return n->type = TY_DEVICE;
	}
	invalid_name(c, "undeclared reference to", n);
	return TY_OTHER;
}

/* The type of a map's value after a key of type key; op names the access. */
static enum cel_type map_value(struct checker *c, enum cel_type map, enum cel_type key, const char *op)
{
	static const enum cel_type value[] = {
		[TY_ATTRS] = TY_ATTR_DOMAIN, [TY_CAPS] = TY_CAP_DOMAIN,
		[TY_ATTR_DOMAIN] = TY_DYN,   [TY_CAP_DOMAIN] = TY_QTY,
	};

	if (loose(map))
		return TY_DYN;
	if (!is_domains(map) && !is_domain(map)) {
		no_overload(c, op, map, key);
		return TY_OTHER;
	}
	if (key != TY_STRING && !loose(key)) {
		no_overload(c, op, map, key);
		return TY_OTHER;
	}
	return value[map];
}

static enum cel_type check_select(struct checker *c, uint32_t id)
{
	struct cel_node *n = &c->p->nodes[id];
	enum cel_type recv;

	if (n->flags & CF_OPTIONAL) {
		unsupported(c, id, "optional field selection", false);
		return TY_OTHER;
	}
	recv = check(c, n->a);
	n = &c->p->nodes[id];
	if (!loose(recv) && !is_domains(recv) && !is_domain(recv) && recv != TY_DEVICE) {
		cel_program_fail(c->p, CEL_WHY_INVALID, "type '%s' does not support field selection",
				 cel_type_name(recv));
		return TY_OTHER;
	}
	if (recv != TY_DEVICE)
		return n->type = (uint8_t)map_value(c, recv, TY_STRING, "field selection");
	for (unsigned f = 0; f < sizeof(device_fields) / sizeof(device_fields[0]); f++) {
		if (name_is(n, device_fields[f])) {
			static const enum cel_type types[] = {TY_STRING, TY_ATTRS, TY_CAPS, TY_BOOL};

			n->kind = CK_FIELD;
			n->n = f;
			return n->type = types[f];
		}
	}
	invalid_name(c, "undefined field", n);
	return TY_OTHER;
}

static enum cel_type check_index(struct checker *c, uint32_t id)
{
	struct cel_node *n = &c->p->nodes[id];
	enum cel_type recv, key;

	if (n->flags & CF_OPTIONAL) {
		unsupported(c, id, "optional indexing", false);
		return TY_OTHER;
	}
	recv = check(c, n->a);
	key = check(c, c->p->nodes[id].c);
	if (recv == TY_LIST || recv == TY_DEVICE) {
		unsupported(c, id, recv == TY_LIST ? "indexing a list" : "indexing the device", false);
		return TY_OTHER;
	}
	return c->p->nodes[id].type = (uint8_t)map_value(c, recv, key, "_[_]");
}

static enum cel_type check_list(struct checker *c, uint32_t id)
{
	enum cel_type elem = TY_OTHER;
	bool first = true;

	for (uint32_t e = c->p->nodes[id].b; e != CEL_NONE && !failed(c); e = c->p->nodes[e].next) {
		enum cel_type t;

		if (c->p->nodes[e].flags & CF_OPTIONAL) {
			unsupported(c, id, "an optional list element", false);
			return TY_OTHER;
		}
		t = check(c, e);
		elem = first ? t : (t == elem ? elem : TY_DYN);
		first = false;
	}
	c->p->nodes[id].etype = (uint8_t)(first ? TY_DYN : elem);
	return c->p->nodes[id].type = TY_LIST;
}

static enum cel_type check_unary(struct checker *c, uint32_t id)
{
	enum cel_type t = check(c, c->p->nodes[id].a);
	bool not = c->p->nodes[id].op == OP_NOT;

	if (loose(t) || t == (not ? TY_BOOL : TY_INT))
		return c->p->nodes[id].type = (uint8_t)(not ? TY_BOOL : loose(t) ? TY_DYN : TY_INT);
	no_overload(c, not ? "!_" : "-_", t, TY_OTHER);
	return TY_OTHER;
}

/* Whether CEL's checker accepts op on (l, r); list element type le. */
static bool binary_ok(enum cel_op op, enum cel_type l, enum cel_type r, enum cel_type le)
{
	switch (op) {
	case OP_AND:
	case OP_OR:
		return (loose(l) || l == TY_BOOL) && (loose(r) || r == TY_BOOL);
	case OP_EQ:
	case OP_NE:
		return loose(l) || loose(r) || l == r;
	case OP_IN:
		if (r == TY_LIST)
			return loose(l) || loose(le) || l == le;
		return loose(r) || ((is_domains(r) || is_domain(r)) && (loose(l) || l == TY_STRING));
	default: /* orderings: ints, strings, booleans */
		if (loose(l) && loose(r))
			return true;
		if (loose(l) || loose(r))
			return (loose(l) ? r : l) == TY_INT || (loose(l) ? r : l) == TY_STRING ||
			       (loose(l) ? r : l) == TY_BOOL;
		return l == r && (l == TY_INT || l == TY_STRING || l == TY_BOOL);
	}
}

static enum cel_type check_binary(struct checker *c, uint32_t id)
{
	enum cel_op op = c->p->nodes[id].op;
	enum cel_type l = check(c, c->p->nodes[id].a), r = check(c, c->p->nodes[id].b);
	uint32_t rn = c->p->nodes[id].b;

	if (failed(c))
		return TY_OTHER;
	if (op >= OP_ADD) {
		c->p->nodes[id].s = cel_op_name(op);
		c->p->nodes[id].slen = (uint32_t)strlen(cel_op_name(op));
		unsupported(c, id, "arithmetic", true);
		return TY_OTHER;
	}
	if (!binary_ok(op, l, r, c->p->nodes[rn].etype)) {
		no_overload(c, cel_op_name(op), l, r);
		return TY_OTHER;
	}
	if ((op == OP_EQ || op == OP_NE) && (l == TY_LIST || r == TY_LIST)) {
		unsupported(c, id, "comparing lists", false);
		return TY_OTHER;
	}
	return c->p->nodes[id].type = TY_BOOL;
}

static enum cel_type check_cond(struct checker *c, uint32_t id)
{
	enum cel_type t = check(c, c->p->nodes[id].a);
	enum cel_type y = check(c, c->p->nodes[id].b), n = check(c, c->p->nodes[id].c);

	if (failed(c))
		return TY_OTHER;
	if (!loose(t) && t != TY_BOOL) {
		no_overload(c, "_?_:_", t, y);
		return TY_OTHER;
	}
	if (!loose(y) && !loose(n) && y != n) {
		no_overload(c, "_?_:_", y, n);
		return TY_OTHER;
	}
	return c->p->nodes[id].type = (uint8_t)(y == n ? y : TY_DYN);
}

static bool scalar_of(enum cel_type t, enum cel_type want)
{
	return loose(t) || t == want;
}

/* Arguments and their types for a builtin; false (and the program
 * failed) when CEL's checker finds no overload. */
static bool builtin_types(struct checker *c, uint32_t id, enum cel_fn fn, enum cel_type recv)
{
	const struct cel_node *n = &c->p->nodes[id];
	static const unsigned arity[] = {
		[FN_QUANTITY] = 1, [FN_IS_QUANTITY] = 1, [FN_SEMVER] = 1, [FN_IS_SEMVER] = 1, [FN_COMPARE_TO] = 1,
		[FN_IS_GREATER] = 1, [FN_IS_LESS] = 1, [FN_MAJOR] = 0, [FN_MINOR] = 0, [FN_PATCH] = 0,
	};
	bool semver = fn == FN_SEMVER || fn == FN_IS_SEMVER;
	enum cel_type args[2] = {TY_OTHER, TY_OTHER};
	unsigned k = 0;
	bool ok;

	if (n->n != arity[fn] && !(semver && n->n == 2)) {
		cel_program_fail(c->p, CEL_WHY_INVALID, "no matching overload for '%s' with %u arguments",
				 cel_fn_name(fn), (unsigned)n->n);
		return false;
	}
	for (uint32_t a = n->b; a != CEL_NONE && !failed(c); a = c->p->nodes[a].next)
		args[k++] = check(c, a);
	if (failed(c))
		return false;
	if (fn <= FN_IS_SEMVER)
		ok = scalar_of(args[0], TY_STRING) && (k < 2 || scalar_of(args[1], TY_BOOL));
	else if (fn >= FN_MAJOR)
		ok = scalar_of(recv, TY_SEMVER);
	else
		ok = (scalar_of(recv, TY_QTY) || scalar_of(recv, TY_SEMVER)) &&
		     (scalar_of(args[0], TY_QTY) || scalar_of(args[0], TY_SEMVER)) &&
		     (loose(recv) || loose(args[0]) || recv == args[0]);
	if (!ok)
		no_overload(c, cel_fn_name(fn), fn <= FN_IS_SEMVER ? args[0] : recv, fn <= FN_IS_SEMVER ? args[1] : args[0]);
	return ok;
}

/* quantity('...') and semver('...') of literals, read once. */
static void builtin_fold(struct checker *c, uint32_t id, enum cel_fn fn)
{
	struct cel_program *p = c->p;
	struct cel_node *n = &p->nodes[id], *arg = &p->nodes[n->b];
	struct cel_node *norm = arg->next == CEL_NONE ? NULL : &p->nodes[arg->next];
	struct cel_qty q;
	struct cel_semver v;
	const char *err;
	bool qty = fn == FN_QUANTITY || fn == FN_IS_QUANTITY, is = fn == FN_IS_QUANTITY || fn == FN_IS_SEMVER;

	if (arg->kind != CK_STRING || (norm && norm->kind != CK_BOOL) || (qty && arg->slen > CEL_QTY_MAX_TEXT))
		return;
	err = qty ? cel_qty_parse(arg->s, arg->slen, &q) : cel_semver_parse(arg->s, arg->slen, norm && norm->i, &v);
	if (is) {
		n->kind = CK_BOOL;
		n->i = !err;
		return;
	}
	if (err) {
		n->kind = CK_FAILED;
		n->what = err;
		n->s = arg->s;
		n->slen = arg->slen;
		return;
	}
	if (qty) {
		struct cel_qty *grown = realloc(p->qtys, (p->nqtys + 1) * sizeof(*grown));

		if (!grown) {
			p->oom = true;
			return;
		}
		p->qtys = grown;
		p->qtys[p->nqtys] = q;
		n->i = (int64_t)p->nqtys++;
		n->kind = CK_QTY;
	} else {
		struct cel_semver *grown = realloc(p->semvers, (p->nsemvers + 1) * sizeof(*grown));

		if (!grown) {
			p->oom = true;
			return;
		}
		p->semvers = grown;
		p->semvers[p->nsemvers] = v;
		n->i = (int64_t)p->nsemvers++;
		n->kind = CK_SEMVER;
	}
}

static enum cel_type check_builtin(struct checker *c, uint32_t id, enum cel_fn fn)
{
	static const enum cel_type result[] = {
		[FN_QUANTITY] = TY_QTY,	    [FN_IS_QUANTITY] = TY_BOOL, [FN_SEMVER] = TY_SEMVER,
		[FN_IS_SEMVER] = TY_BOOL,   [FN_COMPARE_TO] = TY_INT,	[FN_IS_GREATER] = TY_BOOL,
		[FN_IS_LESS] = TY_BOOL,	    [FN_MAJOR] = TY_INT,	[FN_MINOR] = TY_INT,
		[FN_PATCH] = TY_INT,
	};
	uint32_t recv = c->p->nodes[id].a;
	enum cel_type rt = recv == CEL_NONE ? TY_OTHER : check(c, recv);

	if (failed(c) || !builtin_types(c, id, fn, rt))
		return TY_OTHER;
	c->p->nodes[id].kind = CK_FUNC;
	c->p->nodes[id].n = fn;
	if (fn <= FN_IS_SEMVER)
		builtin_fold(c, id, fn);
	return result[fn];
}

/* has(x.name): presence of a key in one domain's map. */
static enum cel_type check_has(struct checker *c, uint32_t id)
{
	struct cel_node *n = &c->p->nodes[id];
	uint32_t sel = n->b;
	enum cel_type t;

	if (n->n != 1 || c->p->nodes[sel].kind != CK_SELECT || (c->p->nodes[sel].flags & CF_OPTIONAL)) {
		cel_program_fail(c->p, CEL_WHY_INVALID, "invalid argument to has() macro");
		return TY_OTHER;
	}
	t = check(c, c->p->nodes[sel].a);
	if (failed(c))
		return TY_OTHER;
	if (t == TY_DEVICE || is_domains(t)) {
		unsupported(c, id, t == TY_DEVICE ? "has() on a field of the device" : "has() on a domain", false);
		return TY_OTHER;
	}
	if (!is_domain(t) && !loose(t)) {
		cel_program_fail(c->p, CEL_WHY_INVALID, "type '%s' does not support field selection", cel_type_name(t));
		return TY_OTHER;
	}
	n = &c->p->nodes[id];
	n->kind = CK_HAS;
	n->a = c->p->nodes[sel].a;
	n->s = c->p->nodes[sel].s;
	n->slen = c->p->nodes[sel].slen;
	return TY_BOOL;
}

/* cel.bind(name, init, body): name holds init's value inside body. */
static enum cel_type check_bind(struct checker *c, uint32_t id)
{
	struct cel_program *p = c->p;
	uint32_t name = p->nodes[id].b, init, body;
	enum cel_type t;

	if (p->nodes[id].n != 3 || p->nodes[name].kind != CK_IDENT) {
		cel_program_fail(p, CEL_WHY_INVALID, "cel.bind() takes a variable name, a value and an expression");
		return TY_OTHER;
	}
	init = p->nodes[name].next;
	body = p->nodes[init].next;
	check(c, init);
	if (failed(c))
		return TY_OTHER;
	if (p->nbinds == CEL_MAX_BINDS) {
		cel_program_fail(p, CEL_WHY_LIMIT, "more than %d cel.bind() variables", CEL_MAX_BINDS);
		return TY_OTHER;
	}
	c->scope[c->nscope++] = (struct scope){p->nodes[name].s, p->nodes[name].slen, p->nbinds, init};
	p->nodes[id].n = p->nbinds++;
	t = check(c, body);
	c->nscope--;
	p->nodes[id].kind = CK_BIND;
	p->nodes[id].a = init;
	p->nodes[id].b = body;
	return t;
}

static bool is_unbound_ident(const struct checker *c, uint32_t id)
{
	const struct cel_node *n = &c->p->nodes[id];

	if (id == CEL_NONE || n->kind != CK_IDENT || name_is(n, "device"))
		return false;
	for (unsigned k = 0; k < c->nscope; k++)
		if (c->scope[k].len == n->slen && !memcmp(c->scope[k].name, n->s, n->slen))
			return false;
	return true;
}

static enum cel_type check_call(struct checker *c, uint32_t id)
{
	const struct cel_node *n = &c->p->nodes[id];
	bool member = n->a != CEL_NONE;

	if (member && is_unbound_ident(c, n->a)) {
		const struct cel_node *ns = &c->p->nodes[n->a];

		if (name_is(ns, "cel") && name_is(n, "bind"))
			return check_bind(c, id);
		if (in_list(ns, namespaces, sizeof(namespaces) / sizeof(namespaces[0]))) {
			unsupported(c, id, "function", true);
			return TY_OTHER;
		}
	}
	for (int fn = 0; fn <= FN_PATCH; fn++)
		if ((fn >= FN_COMPARE_TO) == member && name_is(n, cel_fn_name((enum cel_fn)fn)))
			return check_builtin(c, id, (enum cel_fn)fn);
	if (!member && name_is(n, "has"))
		return check_has(c, id);
	if (in_list(n, other_functions, sizeof(other_functions) / sizeof(other_functions[0]))) {
		unsupported(c, id, "function", true);
		return TY_OTHER;
	}
	invalid_name(c, "undeclared reference to", n);
	return TY_OTHER;
}

static enum cel_type check(struct checker *c, uint32_t id)
{
	struct cel_node *n = &c->p->nodes[id];
	enum cel_type t;

	switch (n->kind) {
	case CK_BOOL:
	case CK_INT:
	case CK_STRING:
		return n->type;
	case CK_OTHER_LIT:
		unsupported(c, id, "a literal of type", true);
		return TY_OTHER;
	case CK_MAP:
		unsupported(c, id, n->s, false);
		return TY_OTHER;
	case CK_IDENT:
		t = check_ident(c, id);
		break;
	case CK_SELECT:
		t = check_select(c, id);
		break;
	case CK_INDEX:
		t = check_index(c, id);
		break;
	case CK_CALL:
		t = check_call(c, id);
		break;
	case CK_LIST:
		t = check_list(c, id);
		break;
	case CK_UNARY:
		t = check_unary(c, id);
		break;
	case CK_BINARY:
		t = check_binary(c, id);
		break;
	case CK_COND:
		t = check_cond(c, id);
		break;
	default:
		return c->p->nodes[id].type;
	}
	if (!failed(c))
		c->p->nodes[id].type = (uint8_t)t;
	return t;
}

/* Zero fields take the defaults. */
static struct cel_limits limits_or_defaults(const struct cel_limits *lim)
{
	struct cel_limits l = cel_default_limits;

	if (lim) {
		l.max_bytes = lim->max_bytes ? lim->max_bytes : l.max_bytes;
		l.max_depth = lim->max_depth ? lim->max_depth : l.max_depth;
		l.max_nodes = lim->max_nodes ? lim->max_nodes : l.max_nodes;
		l.max_steps = lim->max_steps ? lim->max_steps : l.max_steps;
	}
	if (l.max_depth > UINT16_MAX - 1)
		l.max_depth = UINT16_MAX - 1;
	if (l.max_nodes > UINT32_MAX - 1)
		l.max_nodes = UINT32_MAX - 1;
	return l;
}

int cel_compile(const char *expr, size_t len, const struct cel_limits *lim, struct cel_program **ret,
		struct kerr *err)
{
	struct cel_program *p = calloc(1, sizeof(*p));
	struct checker c = {.p = p};
	enum cel_type t;

	if (!p)
		return kerr_set(err, KERR_OTHER, "out of memory");
	p->lim = limits_or_defaults(lim);
	p->root = CEL_NONE;
	if (len > p->lim.max_bytes) {
		cel_program_fail(p, CEL_WHY_LIMIT, "longer than %zu bytes", p->lim.max_bytes);
	} else if (cel_parse(p, expr, len) == 0) {
		t = check(&c, p->root);
		if (!failed(&c) && t != TY_BOOL && !loose(t))
			cel_program_fail(p, CEL_WHY_INVALID, "must evaluate to bool, not %s", cel_type_name(t));
	}
	if (p->oom) {
		cel_program_free(p);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	*ret = p;
	return 0;
}

struct cel_program *cel_program_free(struct cel_program *p)
{
	if (p) {
		free(p->nodes);
		free(p->arena);
		free(p->qtys);
		free(p->semvers);
		free(p);
	}
	return NULL;
}

void cel_program_verdict(const struct cel_program *p, struct cel_verdict *ret)
{
	ret->result = p->why == CEL_WHY_NONE ? CEL_TRUE : CEL_UNKNOWN;
	ret->why = p->why;
	memcpy(ret->reason, p->reason, sizeof(ret->reason));
}

const char *cel_why_text(enum cel_why why)
{
	static const char *const text[] = {
		[CEL_WHY_NONE] = "",
		[CEL_WHY_SUBSET] = "outside the evaluated subset",
		[CEL_WHY_INVALID] = "not valid CEL",
		[CEL_WHY_ERROR] = "evaluation error",
		[CEL_WHY_LIMIT] = "over the evaluation bounds",
	};

	return (unsigned)why < sizeof(text) / sizeof(text[0]) ? text[why] : "";
}
