/* CEL's grammar, whole, into a tree: the checker decides later what of it
 * is in the subset, so that an expression outside the subset is still told
 * apart from one that is not CEL at all.  Recursive descent, its depth
 * bounded; chains of && and || are built balanced, as CEL's own parser
 * builds them, so that long chains stay shallow. */
#include "cel_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	struct cel_program *p;
	struct cel_lexer lx;
	struct cel_tok t;
	unsigned depth;
};

int cel_program_fail(struct cel_program *p, enum cel_why why, const char *fmt, ...)
{
	va_list ap;

	if (p->why != CEL_WHY_NONE)
		return 1; /* the first reason stands */
	p->why = why;
	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof(p->reason), fmt, ap);
	va_end(ap);
	return 1;
}

uint32_t cel_node_new(struct cel_program *p, enum cel_kind kind, uint32_t pos)
{
	struct cel_node *n;

	if (p->why != CEL_WHY_NONE || p->oom)
		return CEL_NONE;
	if (p->nnodes >= p->lim.max_nodes) {
		cel_program_fail(p, CEL_WHY_LIMIT, "more than %zu terms", p->lim.max_nodes);
		return CEL_NONE;
	}
	if (p->nnodes == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct cel_node *grown = realloc(p->nodes, cap * sizeof(*grown));

		if (!grown) {
			p->oom = true;
			return CEL_NONE;
		}
		p->nodes = grown;
		p->cap = cap;
	}
	n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = (uint8_t)kind;
	n->a = n->b = n->c = n->next = CEL_NONE;
	n->pos = pos;
	n->depth = 1;
	return (uint32_t)p->nnodes++;
}

static uint32_t syntax_error(struct parser *ps, size_t pos, const char *what)
{
	cel_program_fail(ps->p, CEL_WHY_INVALID, "syntax error at character %zu: %s", pos + 1, what);
	return CEL_NONE;
}

static bool next(struct parser *ps)
{
	const char *err = cel_lex(&ps->lx, &ps->t);

	if (err)
		syntax_error(ps, ps->t.pos, err);
	return !err;
}

static bool is_op(const struct parser *ps, int op)
{
	return ps->t.kind == T_OP && ps->t.op == op;
}

/* Consume the operator op, or fail with "expected WHAT". */
static bool expect(struct parser *ps, int op, const char *what)
{
	char msg[48];

	if (!is_op(ps, op)) {
		snprintf(msg, sizeof(msg), "expected %s", what);
		syntax_error(ps, ps->t.pos, msg);
		return false;
	}
	return next(ps);
}

/* The node's depth from its children; CEL_NONE past the bound. */
static uint32_t finish(struct parser *ps, uint32_t id)
{
	struct cel_node *nodes = ps->p->nodes;
	unsigned d = 0;
	uint32_t kids[3] = {nodes[id].a, nodes[id].b, nodes[id].c};

	for (int k = 0; k < 3; k++) {
		/* b heads a chain for calls, lists and maps */
		for (uint32_t c = kids[k]; c != CEL_NONE; c = k == 1 ? nodes[c].next : CEL_NONE)
			if (nodes[c].depth > d)
				d = nodes[c].depth;
	}
	if (d + 1 > ps->p->lim.max_depth) {
		cel_program_fail(ps->p, CEL_WHY_LIMIT, "nested deeper than %u levels", ps->p->lim.max_depth);
		return CEL_NONE;
	}
	nodes[id].depth = (uint16_t)(d + 1);
	return id;
}

static uint32_t node2(struct parser *ps, enum cel_kind kind, int op, uint32_t pos, uint32_t a, uint32_t b)
{
	uint32_t id = cel_node_new(ps->p, kind, pos);

	if (id == CEL_NONE)
		return CEL_NONE;
	ps->p->nodes[id].op = (uint8_t)op;
	ps->p->nodes[id].a = a;
	ps->p->nodes[id].b = b;
	return finish(ps, id);
}

static uint32_t parse_expr(struct parser *ps);

/* expr (',' expr)* up to the closing operator, chained by next; trailing
 * comma allowed where CEL allows it (lists, maps).  Map entries are key
 * and value in turn; an optional entry ('?') is flagged. */
static bool parse_items(struct parser *ps, int close, bool entries, bool trailing, uint32_t *head, uint32_t *count)
{
	uint32_t last = CEL_NONE;

	*head = CEL_NONE;
	*count = 0;
	while (!is_op(ps, close)) {
		bool optional = false;

		if (*count && (!expect(ps, ',', "','") || (trailing && is_op(ps, close))))
			break;
		if (is_op(ps, '?')) {
			optional = true;
			if (!next(ps))
				return false;
		}
		for (int part = 0; part < (entries ? 2 : 1); part++) {
			uint32_t e = parse_expr(ps);

			if (e == CEL_NONE || (entries && part == 0 && !expect(ps, ':', "':'")))
				return false;
			ps->p->nodes[e].flags |= optional ? CF_OPTIONAL : 0;
			if (last == CEL_NONE)
				*head = e;
			else
				ps->p->nodes[last].next = e;
			last = e;
		}
		(*count)++;
	}
	return !(ps->p->why != CEL_WHY_NONE || ps->p->oom) && next(ps);
}

/* (args) after a function or method name. */
static uint32_t parse_call(struct parser *ps, uint32_t recv, const struct cel_tok *name)
{
	uint32_t id = cel_node_new(ps->p, CK_CALL, (uint32_t)name->pos), head, count;

	if (id == CEL_NONE || !next(ps) || !parse_items(ps, ')', false, false, &head, &count))
		return CEL_NONE;
	ps->p->nodes[id].a = recv;
	ps->p->nodes[id].b = head;
	ps->p->nodes[id].n = count;
	ps->p->nodes[id].s = ps->lx.src + name->pos;
	ps->p->nodes[id].slen = (uint32_t)name->len;
	return finish(ps, id);
}

static uint32_t parse_literal(struct parser *ps, bool negative)
{
	static const char *const other[] = {[T_UINT] = "uint", [T_DOUBLE] = "double", [T_BYTES] = "bytes"};
	struct cel_tok t = ps->t;
	uint32_t id;
	struct cel_node *n;

	if (t.kind == T_INT && (t.big || (!negative && t.u > (uint64_t)INT64_MAX)))
		return syntax_error(ps, t.pos, "an int literal out of range");
	id = cel_node_new(ps->p, t.kind == T_INT ? CK_INT : t.kind == T_STRING ? CK_STRING : CK_OTHER_LIT,
			  (uint32_t)t.pos);
	if (id == CEL_NONE || !next(ps))
		return CEL_NONE;
	n = &ps->p->nodes[id];
	if (t.kind == T_INT)
		n->i = negative ? (int64_t)(0 - t.u) : (int64_t)t.u;
	else if (t.kind == T_STRING)
		n->s = t.str, n->slen = (uint32_t)t.slen;
	else
		n->s = other[t.kind], n->slen = (uint32_t)strlen(other[t.kind]);
	n->type = t.kind == T_INT ? TY_INT : t.kind == T_STRING ? TY_STRING : TY_OTHER;
	return id;
}

/* An identifier, true/false/null, or a global call. */
static uint32_t parse_ident(struct parser *ps)
{
	struct cel_tok t = ps->t;
	const char *s = ps->lx.src + t.pos;
	uint32_t id;

	if (!next(ps))
		return CEL_NONE;
	if (is_op(ps, '('))
		return parse_call(ps, CEL_NONE, &t);
	if ((t.len == 4 && !memcmp(s, "true", 4)) || (t.len == 5 && !memcmp(s, "false", 5))) {
		id = cel_node_new(ps->p, CK_BOOL, (uint32_t)t.pos);
		if (id != CEL_NONE) {
			ps->p->nodes[id].i = t.len == 4;
			ps->p->nodes[id].type = TY_BOOL;
		}
		return id;
	}
	id = cel_node_new(ps->p, t.len == 4 && !memcmp(s, "null", 4) ? CK_OTHER_LIT : CK_IDENT, (uint32_t)t.pos);
	if (id != CEL_NONE) {
		ps->p->nodes[id].s = s;
		ps->p->nodes[id].slen = (uint32_t)t.len;
		ps->p->nodes[id].type = TY_DYN;
	}
	return id;
}

/* A list literal, or a map literal. */
static uint32_t parse_aggregate(struct parser *ps, bool map)
{
	uint32_t id = cel_node_new(ps->p, map ? CK_MAP : CK_LIST, (uint32_t)ps->t.pos), head, count;

	if (id == CEL_NONE || !next(ps) || !parse_items(ps, map ? '}' : ']', map, true, &head, &count))
		return CEL_NONE;
	ps->p->nodes[id].b = head;
	ps->p->nodes[id].n = count;
	ps->p->nodes[id].s = map ? "a map literal" : NULL;
	return finish(ps, id);
}

static uint32_t parse_primary(struct parser *ps)
{
	uint32_t e;

	switch (ps->t.kind) {
	case T_IDENT:
		return parse_ident(ps);
	case T_INT:
	case T_UINT:
	case T_DOUBLE:
	case T_STRING:
	case T_BYTES:
		return parse_literal(ps, false);
	case T_EOF:
		return syntax_error(ps, ps->t.pos, "the expression ends too early");
	case T_OP:
		break;
	}
	if (is_op(ps, '.')) { /* a leading dot: the root namespace */
		if (!next(ps))
			return CEL_NONE;
		if (ps->t.kind != T_IDENT)
			return syntax_error(ps, ps->t.pos, "expected a name after '.'");
		return parse_ident(ps);
	}
	if (is_op(ps, '(')) {
		if (!next(ps) || (e = parse_expr(ps)) == CEL_NONE || !expect(ps, ')', "')'"))
			return CEL_NONE;
		return e;
	}
	if (is_op(ps, '[') || is_op(ps, '{'))
		return parse_aggregate(ps, is_op(ps, '{'));
	return syntax_error(ps, ps->t.pos, "unexpected operator");
}

/* A message construction Name{field: value, ...} after a name. */
static uint32_t parse_message(struct parser *ps, uint32_t type)
{
	uint32_t id = parse_aggregate(ps, true);

	if (id != CEL_NONE) {
		ps->p->nodes[id].a = type;
		ps->p->nodes[id].s = "message construction";
	}
	return id == CEL_NONE ? CEL_NONE : finish(ps, id);
}

/* [index] or [?index] after e. */
static uint32_t parse_index(struct parser *ps, uint32_t e)
{
	uint32_t pos = (uint32_t)ps->t.pos, key, id;
	uint8_t flags = 0;

	if (!next(ps) || (is_op(ps, '?') && (flags = CF_OPTIONAL, !next(ps))) || (key = parse_expr(ps)) == CEL_NONE ||
	    !expect(ps, ']', "']'") || (id = cel_node_new(ps->p, CK_INDEX, pos)) == CEL_NONE)
		return CEL_NONE;
	ps->p->nodes[id].a = e;
	ps->p->nodes[id].c = key;
	ps->p->nodes[id].flags = flags;
	return finish(ps, id);
}

/* .name, .?name or .name(args) after e. */
static uint32_t parse_member(struct parser *ps, uint32_t e)
{
	uint32_t pos = (uint32_t)ps->t.pos, id;
	uint8_t flags = 0;
	struct cel_tok name;

	if (!next(ps) || (is_op(ps, '?') && (flags = CF_OPTIONAL, !next(ps))))
		return CEL_NONE;
	if (ps->t.kind != T_IDENT)
		return syntax_error(ps, ps->t.pos, "expected a field name after '.'");
	name = ps->t;
	if (!next(ps))
		return CEL_NONE;
	if (is_op(ps, '(') && !flags)
		return parse_call(ps, e, &name);
	id = node2(ps, CK_SELECT, OP_NONE, pos, e, CEL_NONE);
	if (id != CEL_NONE) {
		ps->p->nodes[id].s = ps->lx.src + name.pos;
		ps->p->nodes[id].slen = (uint32_t)name.len;
		ps->p->nodes[id].flags = flags;
	}
	return id;
}

/* Member access, indexing and message construction after a primary. */
static uint32_t parse_postfix(struct parser *ps, uint32_t e)
{
	while (e != CEL_NONE) {
		uint8_t kind = ps->p->nodes[e].kind;

		if (is_op(ps, '{') && (kind == CK_IDENT || kind == CK_SELECT))
			e = parse_message(ps, e);
		else if (is_op(ps, '['))
			e = parse_index(ps, e);
		else if (is_op(ps, '.'))
			e = parse_member(ps, e);
		else
			break;
	}
	return e;
}

/* '!'* member, '-'* member; a '-' right before an int is its sign. */
static uint32_t parse_unary(struct parser *ps)
{
	int op = is_op(ps, '!') ? '!' : is_op(ps, '-') ? '-' : 0;
	uint32_t pos = (uint32_t)ps->t.pos, count = 0, e;

	if (!op)
		return parse_postfix(ps, parse_primary(ps));
	if (!next(ps))
		return CEL_NONE;
	if (op == '-' && ps->t.kind == T_INT)
		return parse_postfix(ps, parse_literal(ps, true));
	for (count = 1; is_op(ps, op); count++)
		if (!next(ps))
			return CEL_NONE;
	e = parse_postfix(ps, parse_primary(ps));
	while (e != CEL_NONE && count--)
		e = node2(ps, CK_UNARY, op == '!' ? OP_NOT : OP_NEG, pos, e, CEL_NONE);
	return e;
}

struct binop {
	int tok;
	enum cel_op op;
};

static const struct binop mul_ops[] = {{'*', OP_MUL}, {'/', OP_DIV}, {'%', OP_MOD}, {0, OP_NONE}};
static const struct binop add_ops[] = {{'+', OP_ADD}, {'-', OP_SUB}, {0, OP_NONE}};
static const struct binop rel_ops[] = {
	{'<', OP_LT},	 {OPC_LE, OP_LE}, {'>', OP_GT}, {OPC_GE, OP_GE},
	{OPC_EQ, OP_EQ}, {OPC_NE, OP_NE}, {OPC_IN, OP_IN}, {0, OP_NONE},
};

/* Left-associative levels: 0 relations, 1 additions, 2 multiplications. */
static uint32_t parse_level(struct parser *ps, int level)
{
	static const struct binop *const ops[] = {rel_ops, add_ops, mul_ops};
	uint32_t e = level == 2 ? parse_unary(ps) : parse_level(ps, level + 1);

	for (;;) {
		const struct binop *o = ops[level];
		uint32_t pos = (uint32_t)ps->t.pos, r;

		while (o->tok && !is_op(ps, o->tok))
			o++;
		if (e == CEL_NONE || !o->tok)
			return e;
		if (!next(ps))
			return CEL_NONE;
		r = level == 2 ? parse_unary(ps) : parse_level(ps, level + 1);
		e = r == CEL_NONE ? CEL_NONE : node2(ps, CK_BINARY, o->op, pos, e, r);
	}
}

static uint32_t balance(struct parser *ps, int op, const uint32_t *terms, const uint32_t *pos, size_t n)
{
	uint32_t l, r;

	if (n == 1)
		return terms[0];
	l = balance(ps, op, terms, pos, n / 2);
	r = balance(ps, op, terms + n / 2, pos + n / 2, n - n / 2);
	if (l == CEL_NONE || r == CEL_NONE)
		return CEL_NONE;
	return node2(ps, CK_BINARY, op, pos[n / 2 - 1], l, r);
}

/* term (tok term)*, balanced; level 0: || of && chains, 1: && of relations. */
static uint32_t parse_chain(struct parser *ps, int level)
{
	int tok = level == 0 ? OPC_OR : OPC_AND;
	uint32_t *terms = NULL, *pos = NULL, e = CEL_NONE;
	size_t n = 0, cap = 0;

	for (;;) {
		uint32_t t = level == 0 ? parse_chain(ps, 1) : parse_level(ps, 0);

		if (t == CEL_NONE)
			goto out;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 8;
			uint32_t *nt = realloc(terms, c * sizeof(*nt)), *np;

			if (nt)
				terms = nt;
			np = nt ? realloc(pos, c * sizeof(*np)) : NULL;
			if (!np) {
				ps->p->oom = true;
				goto out;
			}
			pos = np;
			cap = c;
		}
		terms[n] = t;
		pos[n++] = (uint32_t)ps->t.pos;
		if (!is_op(ps, tok))
			break;
		if (!next(ps))
			goto out;
	}
	e = balance(ps, level == 0 ? OP_OR : OP_AND, terms, pos, n);
out:
	free(terms);
	free(pos);
	return e;
}

static uint32_t parse_expr(struct parser *ps)
{
	uint32_t cond, yes, no, id;
	uint32_t pos;

	if (++ps->depth > ps->p->lim.max_depth) {
		cel_program_fail(ps->p, CEL_WHY_LIMIT, "nested deeper than %u levels", ps->p->lim.max_depth);
		return CEL_NONE;
	}
	cond = parse_chain(ps, 0);
	pos = (uint32_t)ps->t.pos;
	if (cond != CEL_NONE && is_op(ps, '?')) {
		if (!next(ps) || (yes = parse_chain(ps, 0)) == CEL_NONE || !expect(ps, ':', "':'") ||
		    (no = parse_expr(ps)) == CEL_NONE || (id = cel_node_new(ps->p, CK_COND, pos)) == CEL_NONE) {
			cond = CEL_NONE;
		} else {
			ps->p->nodes[id].a = cond;
			ps->p->nodes[id].b = yes;
			ps->p->nodes[id].c = no;
			cond = finish(ps, id);
		}
	}
	ps->depth--;
	return cond;
}

int cel_parse(struct cel_program *p, const char *src, size_t len)
{
	struct parser ps = {.p = p, .lx = {.src = src, .len = len, .p = p}};

	p->arena = malloc(len + 1);
	if (!p->arena)
		return -1;
	p->arena_cap = len + 1;
	if (next(&ps)) {
		p->root = parse_expr(&ps);
		if (p->root != CEL_NONE && ps.t.kind != T_EOF)
			syntax_error(&ps, ps.t.pos, "unexpected text after the expression");
	}
	if (p->oom)
		return -1;
	return p->why != CEL_WHY_NONE ? 1 : 0;
}
