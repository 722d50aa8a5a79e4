/* The selector evaluator's insides, shared by its files: the syntax tree
 * (cel_parse.c builds it, cel_check.c resolves and types it, cel_eval.c
 * walks it) and the scalar values (cel_value.c). */
#ifndef CEL_INTERNAL_H
#define CEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cel.h"

#define CEL_NONE UINT32_MAX
#define CEL_MAX_BINDS 16
/* A quantity string longer than this is not evaluated: the API writes a
 * few characters, and the digits must fit in struct cel_qty. */
#define CEL_QTY_MAX_TEXT 64
#define CEL_QTY_DIGITS 96

/* An exact decimal: sign * d[0..n-1] * 10^exp, no leading or trailing
 * zero digit; zero is sign 0, n 0. */
struct cel_qty {
	int sign;
	unsigned n;
	int64_t exp;
	uint8_t d[CEL_QTY_DIGITS];
};

/* A semantic version; pre points at the prerelease identifiers in the
 * text it was read from (prelen 0: none). */
struct cel_semver {
	uint64_t major, minor, patch;
	const char *pre;
	size_t prelen;
};

enum cel_kind {
	/* from the parser */
	CK_BOOL,
	CK_INT,
	CK_STRING,
	CK_OTHER_LIT, /* double, uint, bytes, null: s says which */
	CK_IDENT,
	CK_SELECT, /* a.s; flag CF_OPTIONAL for .? */
	CK_INDEX,  /* a[b]; flag CF_OPTIONAL for [?] */
	CK_CALL,   /* s(args) or a.s(args): args from b, chained by next, n of them */
	CK_LIST,   /* elements from b, chained by next */
	CK_MAP,	   /* map literal or message construction: entries from b */
	CK_UNARY,  /* op a */
	CK_BINARY, /* a op b */
	CK_COND,   /* a ? b : c */
	/* from the checker */
	CK_DEVICE,
	CK_VAR,	     /* cel.bind variable n */
	CK_BIND,     /* variable n = a in b */
	CK_HAS,	     /* has(a.s): presence of key s in a */
	CK_QTY,	     /* folded quantity('...'): program qtys[n] */
	CK_SEMVER,   /* folded semver('...'): program semvers[n] */
	CK_FUNC,     /* builtin n (enum cel_fn): receiver a (or none), args from b */
	CK_FIELD,    /* device field n (enum cel_field) of a */
	CK_FAILED,   /* a folded call that raises an error: what says why, s is the argument */
	CK_UNSUPPORTED, /* outside the subset: what names the construct, s its name if any */
};

enum cel_op {
	OP_NONE,
	OP_NOT,
	OP_NEG,
	OP_AND,
	OP_OR,
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_IN,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_MOD,
};

enum cel_fn {
	FN_QUANTITY,
	FN_IS_QUANTITY,
	FN_SEMVER,
	FN_IS_SEMVER,
	FN_COMPARE_TO,
	FN_IS_GREATER,
	FN_IS_LESS,
	FN_MAJOR,
	FN_MINOR,
	FN_PATCH,
};

enum cel_field { FIELD_DRIVER, FIELD_ATTRIBUTES, FIELD_CAPACITY, FIELD_ALLOW_MULTIPLE };

/* Static types, as far as the checker knows them. */
enum cel_type {
	TY_DYN,
	TY_BOOL,
	TY_INT,
	TY_STRING,
	TY_QTY,
	TY_SEMVER,
	TY_LIST,
	TY_DEVICE,
	TY_ATTRS,	/* device.attributes */
	TY_CAPS,	/* device.capacity */
	TY_ATTR_DOMAIN, /* device.attributes[D] */
	TY_CAP_DOMAIN,	/* device.capacity[D] */
	TY_OTHER,	/* a type outside the subset (double, map...) */
};

#define CF_OPTIONAL 1u
#define CF_NORMALIZE 2u /* semver(s, true) folded */

struct cel_node {
	uint8_t kind, op, type, etype; /* etype: element type of a list */
	uint8_t flags;
	uint16_t depth; /* of the tree below, this node included */
	uint32_t a, b, c, next;
	uint32_t n;
	uint32_t pos; /* byte offset in the expression, for messages */
	const char *s; /* name, field, function, or string literal (unescaped) */
	uint32_t slen;
	const char *what; /* CK_UNSUPPORTED, CK_FAILED: a phrase for the reason */
	int64_t i;
};

struct cel_program {
	struct cel_node *nodes;
	size_t nnodes, cap;
	uint32_t root;
	char *arena; /* unescaped string literals */
	size_t arena_used, arena_cap;
	struct cel_qty *qtys;
	size_t nqtys;
	struct cel_semver *semvers;
	size_t nsemvers;
	unsigned nbinds;
	struct cel_limits lim;
	bool oom;
	enum cel_why why; /* compile failure, or CEL_WHY_NONE */
	char reason[200];
};

enum cel_tok_kind { T_EOF, T_IDENT, T_INT, T_UINT, T_DOUBLE, T_STRING, T_BYTES, T_OP };

/* Operator tokens: one character stands for itself; these for the rest. */
enum { OPC_LE = 256, OPC_GE, OPC_EQ, OPC_NE, OPC_AND, OPC_OR, OPC_IN };

struct cel_tok {
	enum cel_tok_kind kind;
	int op;		 /* T_OP */
	size_t pos, len; /* in the expression */
	const char *str; /* T_STRING: unescaped, NUL-terminated, in the arena */
	size_t slen;
	uint64_t u; /* T_INT: the magnitude */
	bool big;   /* T_INT: beyond 2^63 */
};

/* The arena must hold the expression's length plus one byte per literal:
 * no literal is longer unescaped than written. */
struct cel_lexer {
	const char *src;
	size_t len, pos;
	struct cel_program *p;
};

/* The next token; NULL, or what is wrong with the text at ret->pos. */
const char *cel_lex(struct cel_lexer *lx, struct cel_tok *ret);

/* Parse into p's nodes (p->root); 0, 1 on a syntax error or a bound (p->why
 * and p->reason set), -1 when out of memory. */
int cel_parse(struct cel_program *p, const char *src, size_t len);
/* A new node, or CEL_NONE when out of memory (p->oom) or over the node
 * bound (p->why). */
uint32_t cel_node_new(struct cel_program *p, enum cel_kind kind, uint32_t pos);
/* printf into p->reason with why; returns 1. */
int cel_program_fail(struct cel_program *p, enum cel_why why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Copy text into dst (size n) as printable ASCII, at most max characters
 * with "..." after, for quoting names from outside in a reason. */
void cel_quote(char *dst, size_t n, const char *s, size_t len, size_t max);

/* Values, in cel_value.c.  Parse functions return NULL or what is wrong. */
const char *cel_qty_parse(const char *s, size_t len, struct cel_qty *ret);
int cel_qty_cmp(const struct cel_qty *a, const struct cel_qty *b);
const char *cel_semver_parse(const char *s, size_t len, bool normalize, struct cel_semver *ret);
int cel_semver_cmp(const struct cel_semver *a, const struct cel_semver *b);
const char *cel_type_name(enum cel_type t);
/* "_<_", "@in", "quantity", ... as CEL names them in messages. */
const char *cel_op_name(enum cel_op op);
const char *cel_fn_name(enum cel_fn fn);

#endif
