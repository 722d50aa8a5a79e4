/* kubectl's JSONPath templates read into the pieces jsonpath.c evaluates.
 * Every error is kubectl's "error parsing jsonpath TEMPLATE, REASON". */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath_internal.h"

/* A cursor over the text of one action (or of a filter inside it). */
struct cursor {
	const char *s;
	size_t i, n;
	bool in_filter; /* a path ends at an operator or ')' too */
	char reason[160];
	size_t pieces; /* nodes, steps and items made: bounded */
};

static int fail(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	if (c->reason[0])
		return -1; /* the first reason stands */
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	return -1;
}

static int count_piece(struct cursor *c)
{
	if (++c->pieces > JSONPATH_MAX_NODES)
		return fail(c, "more than %d pieces", JSONPATH_MAX_NODES);
	return 0;
}

static void path_free(struct jp_path *p);

static void step_release(struct jp_step *s)
{
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->index);
	path_free(s->left.path);
	path_free(s->right.path);
	json_decref(s->left.literal);
	json_decref(s->right.literal);
}

static void path_free(struct jp_path *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		step_release(&p->steps[i]);
	free(p->steps);
	free(p);
}

void jsonpath_free(struct jsonpath *jp)
{
	if (!jp)
		return;
	for (size_t i = 0; i < jp->n; i++) {
		struct jp_node *nd = &jp->nodes[i];

		free(nd->text);
		for (size_t k = 0; k < nd->nitems; k++) {
			path_free(nd->items[k].path);
			free(nd->items[k].literal);
		}
		free(nd->items);
	}
	free(jp->nodes);
	free(jp);
}

static struct jp_step *path_add(struct cursor *c, struct jp_path *p, enum jp_step_kind kind)
{
	struct jp_step *s;

	if (count_piece(c) < 0)
		return NULL;
	s = realloc(p->steps, (p->n + 1) * sizeof(*s));
	if (!s) {
		fail(c, "out of memory");
		return NULL;
	}
	p->steps = s;
	s = &p->steps[p->n++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	return s;
}

static int add_name(struct cursor *c, struct jp_step *s, const char *name, size_t len)
{
	char **names = realloc(s->names, (s->nnames + 1) * sizeof(*names));

	if (!names)
		return fail(c, "out of memory");
	s->names = names;
	if (!(s->names[s->nnames] = strndup(name, len)))
		return fail(c, "out of memory");
	s->nnames++;
	return 0;
}

/* A quoted string at the cursor ('...' or "..."), its escapes read;
 * malloc'd, NULL after fail(). */
static char *quoted(struct cursor *c)
{
	char q = c->s[c->i++], *out = malloc(c->n - c->i + 1);
	size_t k = 0;

	if (!out) {
		fail(c, "out of memory");
		return NULL;
	}
	while (c->i < c->n && c->s[c->i] != q) {
		char ch = c->s[c->i++];

		if (ch == '\\' && c->i < c->n) {
			ch = c->s[c->i++];
			ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch;
		}
		out[k++] = ch;
	}
	if (c->i >= c->n) {
		free(out);
		fail(c, "unterminated quoted string");
		return NULL;
	}
	c->i++;
	out[k] = '\0';
	return out;
}

static bool ends_name(const struct cursor *c, char ch)
{
	return ch == '.' || ch == '[' || isspace((unsigned char)ch) ||
	       (c->in_filter && (ch == '=' || ch == '!' || ch == '<' || ch == '>' || ch == ')'));
}

/* .name (backslash escapes a character: kubernetes\.io/hostname) or .* */
static int parse_field(struct cursor *c, struct jp_path *p)
{
	char *name = malloc(c->n - c->i + 1);
	size_t k = 0;
	struct jp_step *s;
	int rc;

	if (!name)
		return fail(c, "out of memory");
	if (c->i < c->n && c->s[c->i] == '*') {
		free(name);
		c->i++;
		return path_add(c, p, STEP_WILDCARD) ? 0 : -1;
	}
	while (c->i < c->n && !ends_name(c, c->s[c->i])) {
		if (c->s[c->i] == '\\' && c->i + 1 < c->n)
			c->i++;
		name[k++] = c->s[c->i++];
	}
	/* "." alone, or before '[': no step */
	if (k == 0) {
		free(name);
		return 0;
	}
	s = path_add(c, p, STEP_FIELD);
	rc = s ? add_name(c, s, name, k) : -1;
	free(name);
	return rc;
}

static int parse_long(const char *s, size_t len, long *ret)
{
	char buf[32], *end;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*ret = strtol(buf, &end, 10);
	return *end || errno ? -1 : 0;
}

static struct jp_path *parse_path(struct cursor *c);

/* One side of a filter: @..., $..., a quoted string, a number, true, false
 * or null. */
static int parse_operand(struct cursor *c, struct jp_operand *o)
{
	const char *s;
	size_t start, len;
	long n;

	while (c->i < c->n && isspace((unsigned char)c->s[c->i]))
		c->i++;
	if (c->i >= c->n)
		return fail(c, "invalid filter");
	if (c->s[c->i] == '@' || c->s[c->i] == '$')
		return (o->path = parse_path(c)) ? 0 : -1;
	if (c->s[c->i] == '"' || c->s[c->i] == '\'') {
		char *q = quoted(c);

		if (!q)
			return -1;
		o->literal = json_string(q);
		free(q);
		return o->literal ? 0 : fail(c, "invalid filter");
	}
	start = c->i;
	while (c->i < c->n && !ends_name(c, c->s[c->i]))
		c->i++;
	s = c->s + start;
	len = c->i - start;
	if (len == 4 && !strncmp(s, "true", 4))
		o->literal = json_true();
	else if (len == 5 && !strncmp(s, "false", 5))
		o->literal = json_false();
	else if (len == 4 && !strncmp(s, "null", 4))
		o->literal = json_null();
	else if (parse_long(s, len, &n) == 0)
		o->literal = json_integer(n);
	else if (len && len < 64 && (isdigit((unsigned char)*s) || *s == '-')) {
		char buf[64], *end;

		memcpy(buf, s, len);
		buf[len] = '\0';
		o->literal = json_real(strtod(buf, &end));
		if (*end)
			return fail(c, "invalid filter value %.*s", (int)len, s);
	} else
		return fail(c, "unrecognized filter operand %.*s", (int)(len ? len : 1), s);
	return o->literal ? 0 : fail(c, "out of memory");
}

/* ?(LEFT OP RIGHT) or ?(PATH), given the text between the brackets. */
static int parse_filter(struct cursor *outer, struct jp_step *s, const char *text, size_t len)
{
	static const struct {
		const char *word;
		enum jp_op op;
	} ops[] = { { "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE }, { "<", OP_LT }, { ">", OP_GT } };
	struct cursor c = { .s = text, .n = len, .in_filter = true, .pieces = outer->pieces };
	int rc = -1;

	if (parse_operand(&c, &s->left) < 0)
		goto out;
	while (c.i < c.n && isspace((unsigned char)c.s[c.i]))
		c.i++;
	if (c.i >= c.n) {
		s->op = OP_EXISTS;
		rc = 0;
		goto out;
	}
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]) && !s->op; k++)
		if (!strncmp(c.s + c.i, ops[k].word, strlen(ops[k].word)) && c.n - c.i >= strlen(ops[k].word)) {
			s->op = ops[k].op;
			c.i += strlen(ops[k].word);
		}
	if (!s->op) {
		fail(&c, "unrecognized filter operator in %.*s", (int)len, text);
		goto out;
	}
	if (parse_operand(&c, &s->right) < 0)
		goto out;
	while (c.i < c.n && isspace((unsigned char)c.s[c.i]))
		c.i++;
	rc = c.i < c.n ? fail(&c, "invalid filter %.*s", (int)len, text) : 0;
out:
	outer->pieces = c.pieces;
	if (rc < 0)
		fail(outer, "%s", c.reason);
	return rc;
}

/* [?(...)], [*], ['a','b'], [a:b:c] or [N,M], given what is between the brackets. */
static int parse_bracket_text(struct cursor *c, struct jp_path *p, const char *t, size_t len)
{
	struct jp_step *s;
	const char *colon = memchr(t, ':', len);

	if (len == 1 && *t == '*')
		return path_add(c, p, STEP_WILDCARD) ? 0 : -1;
	if (len >= 3 && t[0] == '?' && t[1] == '(' && t[len - 1] == ')')
		return (s = path_add(c, p, STEP_FILTER)) ? parse_filter(c, s, t + 2, len - 3) : -1;
	if (len && (*t == '\'' || *t == '"')) {
		struct cursor q = { .s = t, .n = len };

		if (!(s = path_add(c, p, STEP_FIELD)))
			return -1;
		while (q.i < q.n) {
			char *name;

			if (q.s[q.i] != '\'' && q.s[q.i] != '"')
				return fail(c, "invalid array index %.*s", (int)len, t);
			if (!(name = quoted(&q)))
				return fail(c, "%s", q.reason);
			if (add_name(c, s, name, strlen(name)) < 0) {
				free(name);
				return -1;
			}
			free(name);
			while (q.i < q.n && (q.s[q.i] == ',' || isspace((unsigned char)q.s[q.i])))
				q.i++;
		}
		return 0;
	}
	if (colon) {
		size_t part = 0, start = 0;

		if (!(s = path_add(c, p, STEP_SLICE)))
			return -1;
		for (size_t k = 0; k <= len && part < 3; k++) {
			if (k < len && t[k] != ':')
				continue;
			if (k > start && parse_long(t + start, k - start, &s->slice[part]) < 0)
				return fail(c, "invalid array index %.*s", (int)len, t);
			s->has[part++] = k > start;
			start = k + 1;
		}
		return start <= len ? fail(c, "invalid array index %.*s", (int)len, t) : 0;
	}
	if (!(s = path_add(c, p, STEP_INDEX)))
		return -1;
	for (size_t start = 0, k = 0; k <= len; k++) {
		long *idx;

		if (k < len && t[k] != ',')
			continue;
		idx = realloc(s->index, (s->nindex + 1) * sizeof(*idx));
		if (!idx)
			return fail(c, "out of memory");
		s->index = idx;
		if (parse_long(t + start, k - start, &s->index[s->nindex++]) < 0)
			return fail(c, "invalid array index %.*s", (int)len, t);
		start = k + 1;
	}
	return 0;
}

/* [...] at the cursor: to its ']' (quotes and parentheses skipped). */
static int parse_bracket(struct cursor *c, struct jp_path *p)
{
	size_t start = ++c->i, depth = 0;
	char q = 0;

	for (; c->i < c->n; c->i++) {
		char ch = c->s[c->i];

		if (q) {
			if (ch == '\\')
				c->i++;
			else if (ch == q)
				q = 0;
		} else if (ch == '\'' || ch == '"') {
			q = ch;
		} else if (ch == '(') {
			depth++;
		} else if (ch == ')' && depth) {
			depth--;
		} else if (ch == ']' && !depth) {
			break;
		}
	}
	if (c->i >= c->n)
		return fail(c, "unterminated array");
	c->i++;
	return parse_bracket_text(c, p, c->s + start, c->i - 1 - start);
}

/* A path at the cursor, to a space (or, in a filter, an operator or ')'). */
static struct jp_path *parse_path(struct cursor *c)
{
	struct jp_path *p = calloc(1, sizeof(*p));

	if (!p) {
		fail(c, "out of memory");
		return NULL;
	}
	if (c->s[c->i] == '$' && !path_add(c, p, STEP_ROOT))
		goto fail;
	if (c->s[c->i] == '$' || c->s[c->i] == '@')
		c->i++;
	while (c->i < c->n && !isspace((unsigned char)c->s[c->i])) {
		char ch = c->s[c->i];
		int rc;

		if (c->in_filter && ends_name(c, ch) && ch != '.' && ch != '[')
			break;
		if (ch == '.' && c->i + 1 < c->n && c->s[c->i + 1] == '.') {
			c->i += 2;
			rc = path_add(c, p, STEP_RECURSIVE) ? 0 : -1;
			if (rc == 0 && c->i < c->n && c->s[c->i] != '[')
				rc = parse_field(c, p);
		} else if (ch == '.') {
			c->i++;
			rc = parse_field(c, p);
		} else if (ch == '[') {
			rc = parse_bracket(c, p);
		} else {
			rc = fail(c, "unrecognized character in action: U+%04X '%c'", (unsigned char)ch, ch);
		}
		if (rc < 0)
			goto fail;
	}
	return p;
fail:
	path_free(p);
	return NULL;
}

static struct jp_node *add_node(struct cursor *c, struct jsonpath *jp, enum jp_node_kind kind)
{
	struct jp_node *nd;

	if (count_piece(c) < 0)
		return NULL;
	nd = realloc(jp->nodes, (jp->n + 1) * sizeof(*nd));
	if (!nd) {
		fail(c, "out of memory");
		return NULL;
	}
	jp->nodes = nd;
	nd = &jp->nodes[jp->n++];
	memset(nd, 0, sizeof(*nd));
	nd->kind = kind;
	return nd;
}

static struct jp_item *add_item(struct cursor *c, struct jp_node *nd)
{
	struct jp_item *it;

	if (count_piece(c) < 0)
		return NULL;
	it = realloc(nd->items, (nd->nitems + 1) * sizeof(*it));
	if (!it) {
		fail(c, "out of memory");
		return NULL;
	}
	nd->items = it;
	it = &nd->items[nd->nitems++];
	memset(it, 0, sizeof(*it));
	return it;
}

static bool word_at(const struct cursor *c, const char *w)
{
	size_t len = strlen(w);

	return c->n - c->i >= len && !strncmp(c->s + c->i, w, len) &&
	       (c->i + len == c->n || isspace((unsigned char)c->s[c->i + len]));
}

/* The inside of one {action}: end, range PATH, or paths and literals. */
static int parse_action(struct cursor *c, struct jsonpath *jp)
{
	struct jp_node *nd;

	while (c->i < c->n && isspace((unsigned char)c->s[c->i]))
		c->i++;
	if (word_at(c, "end"))
		return add_node(c, jp, NODE_END) ? 0 : -1;
	if (word_at(c, "range")) {
		c->i += 5;
		while (c->i < c->n && isspace((unsigned char)c->s[c->i]))
			c->i++;
		if (c->i >= c->n)
			return fail(c, "range needs a path");
		nd = add_node(c, jp, NODE_RANGE);
	} else {
		nd = add_node(c, jp, NODE_ACTION);
	}
	if (!nd)
		return -1;
	while (c->i < c->n) {
		char ch = c->s[c->i];
		struct jp_item *it;

		if (isspace((unsigned char)ch)) {
			c->i++;
			continue;
		}
		if (nd->kind == NODE_RANGE && nd->nitems)
			return fail(c, "range takes one path");
		if (!(it = add_item(c, nd)))
			return -1;
		if ((ch == '"' || ch == '\'') && nd->kind == NODE_RANGE) {
			return fail(c, "range needs a path");
		} else if (ch == '"' || ch == '\'') {
			if (!(it->literal = quoted(c)))
				return -1;
		} else if (ch == '.' || ch == '$' || ch == '@' || ch == '[') {
			if (!(it->path = parse_path(c)))
				return -1;
		} else if (isalpha((unsigned char)ch)) {
			size_t start = c->i;

			while (c->i < c->n && !isspace((unsigned char)c->s[c->i]))
				c->i++;
			return fail(c, "unrecognized identifier %.*s", (int)(c->i - start), c->s + start);
		} else {
			return fail(c, "unrecognized character in action: U+%04X '%c'", (unsigned char)ch, ch);
		}
	}
	return 0;
}

/* The end of the action that starts at i (after its '{'): its '}', quotes
 * skipped.  n when there is none. */
static size_t action_end(const char *s, size_t i, size_t n, bool *unterminated)
{
	char q = 0;

	for (; i < n; i++) {
		if (q) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == q)
				q = 0;
		} else if (s[i] == '"') {
			q = s[i];
		} else if (s[i] == '}') {
			return i;
		}
	}
	*unterminated = q != 0;
	return n;
}

/* Ranges matched with their ends; an end without a range is kubectl's
 * execution error, said here before anything is printed. */
static int match_ranges(struct cursor *c, struct jsonpath *jp)
{
	size_t open[JSONPATH_MAX_DEPTH], depth = 0;

	for (size_t i = 0; i < jp->n; i++) {
		if (jp->nodes[i].kind == NODE_RANGE) {
			if (depth == JSONPATH_MAX_DEPTH)
				return fail(c, "ranges nested more than %d deep", JSONPATH_MAX_DEPTH);
			jp->nodes[i].end = jp->n;
			open[depth++] = i;
		} else if (jp->nodes[i].kind == NODE_END) {
			if (!depth)
				return fail(c, "not in range, nothing to end");
			jp->nodes[open[--depth]].end = i;
		}
	}
	return 0;
}

static struct jsonpath *parse_template(const char *text, struct cursor *c)
{
	struct jsonpath *jp = calloc(1, sizeof(*jp));
	size_t n = strlen(text), i = 0;

	if (!jp) {
		fail(c, "out of memory");
		return NULL;
	}
	if (n > JSONPATH_MAX_TEMPLATE) {
		fail(c, "longer than %d bytes", JSONPATH_MAX_TEMPLATE);
		goto fail;
	}
	while (i < n) {
		const char *open = strchr(text + i, '{');
		size_t at = open ? (size_t)(open - text) : n, end;
		bool unterminated = false;
		struct jp_node *nd;

		if (at > i) {
			if (!(nd = add_node(c, jp, NODE_TEXT)) || !(nd->text = strndup(text + i, at - i)))
				goto fail;
		}
		if (at == n)
			break;
		end = action_end(text, at + 1, n, &unterminated);
		if (end == n) {
			fail(c, unterminated ? "unterminated quoted string" : "unclosed action");
			goto fail;
		}
		*c = (struct cursor){ .s = text + at + 1, .n = end - at - 1, .pieces = c->pieces };
		if (parse_action(c, jp) < 0)
			goto fail;
		i = end + 1;
	}
	if (match_ranges(c, jp) < 0)
		goto fail;
	return jp;
fail:
	if (!c->reason[0])
		fail(c, "out of memory");
	jsonpath_free(jp);
	return NULL;
}

struct jsonpath *jsonpath_parse(const char *text, struct kerr *err)
{
	struct cursor c = { 0 };
	struct jsonpath *jp = parse_template(text, &c);

	if (!jp)
		kerr_set(err, KERR_USAGE, "error parsing jsonpath %s, %s", text, c.reason);
	return jp;
}

struct jsonpath *jsonpath_parse_relaxed(const char *expr, struct kerr *err)
{
	size_t len = strlen(expr);
	char *t;
	struct jsonpath *jp;

	/* kubectl's relaxed form: {.a}, .a and a are one expression */
	if (len >= 2 && expr[0] == '{' && expr[len - 1] == '}') {
		expr++;
		len -= 2;
	}
	if (len > JSONPATH_MAX_TEMPLATE)
		len = JSONPATH_MAX_TEMPLATE + 1;
	if (asprintf(&t, "{%s%.*s}", len && expr[0] != '.' && expr[0] != '$' && expr[0] != '@' && expr[0] != '[' ? "."
									       : "",
		     (int)len, expr) < 0) {
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	jp = jsonpath_parse(t, err);
	free(t);
	return jp;
}
