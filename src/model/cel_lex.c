/* CEL's tokens: identifiers and keywords, numbers, quoted literals in
 * every form (escapes undone into the program's arena), operators, and
 * comments skipped.  Knows nothing of the grammar. */
#include "cel_internal.h"

#include <string.h>

static const char *const reserved_words[] = {
	"as", "break", "const", "continue", "else", "for", "function", "if", "import",
	"let", "loop", "package", "namespace", "return", "var", "void", "while",
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool ident_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_utf8(struct cel_program *p, uint32_t cp)
{
	char *o = p->arena + p->arena_used;

	if (cp < 0x80) {
		o[0] = (char)cp;
		p->arena_used += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		p->arena_used += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		p->arena_used += 3;
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		p->arena_used += 4;
	}
}

/* One escape after the backslash at ps->pos, its code point in *cp: the
 * simple ones, \xHH, \uHHHH, \UHHHHHHHH and octal \OOO. */
static const char *lex_escape(struct cel_lexer *ps, uint32_t *cp)
{
	static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\''\"\"``??";
	const char *s = ps->src;
	size_t i = ps->pos;
	int digits = 0, base = 16;
	uint32_t v = 0;

	if (i >= ps->len)
		return "a backslash ends the text";
	for (const char *e = simple; *e; e += 2) {
		if (s[i] == e[0]) {
			*cp = (uint8_t)e[1];
			ps->pos = i + 1;
			return NULL;
		}
	}
	if (s[i] == 'x' || s[i] == 'X')
		digits = 2;
	else if (s[i] == 'u')
		digits = 4;
	else if (s[i] == 'U')
		digits = 8;
	else if (s[i] >= '0' && s[i] <= '3')
		digits = 3, base = 8, i--;
	else
		return "an unknown escape";
	i++;
	for (int k = 0; k < digits; k++, i++) {
		int h = i < ps->len ? hex_value(s[i]) : -1;

		if (h < 0 || h >= base)
			return "an escape with too few digits";
		v = v * (uint32_t)base + (uint32_t)h;
	}
	if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))
		return "an escape that is not a character";
	*cp = v;
	ps->pos = i;
	return NULL;
}

/* A quoted literal from its opening quote; raw: no escapes. */
static const char *lex_quoted(struct cel_lexer *ps, bool raw, struct cel_tok *t)
{
	const char *s = ps->src;
	char q = s[ps->pos];
	bool triple = ps->pos + 2 < ps->len && s[ps->pos + 1] == q && s[ps->pos + 2] == q;
	size_t start;

	ps->pos += triple ? 3 : 1;
	start = ps->p->arena_used;
	for (;;) {
		uint32_t cp;
		const char *err;

		if (ps->pos >= ps->len)
			return "a string that does not end";
		if (s[ps->pos] == q && (!triple || (ps->pos + 2 < ps->len && s[ps->pos + 1] == q && s[ps->pos + 2] == q)))
			break;
		if (!triple && (s[ps->pos] == '\n' || s[ps->pos] == '\r'))
			return "a line break in a string";
		if (s[ps->pos] != '\\' || raw) {
			ps->p->arena[ps->p->arena_used++] = s[ps->pos++];
			continue;
		}
		ps->pos++;
		if ((err = lex_escape(ps, &cp)))
			return err;
		put_utf8(ps->p, cp);
	}
	ps->pos += triple ? 3 : 1;
	t->str = ps->p->arena + start;
	t->slen = ps->p->arena_used - start;
	ps->p->arena[ps->p->arena_used++] = '\0';
	return NULL;
}

static const char *lex_number(struct cel_lexer *ps, struct cel_tok *t)
{
	const char *s = ps->src;
	size_t i = ps->pos;
	bool hex = s[i] == '0' && i + 2 < ps->len && (s[i + 1] == 'x' || s[i + 1] == 'X') && hex_value(s[i + 2]) >= 0;
	uint64_t v = 0;
	unsigned base = hex ? 16 : 10;

	t->kind = T_INT;
	i += hex ? 2 : 0;
	for (; i < ps->len && hex_value(s[i]) >= 0 && hex_value(s[i]) < (int)base; i++) {
		unsigned d = (unsigned)hex_value(s[i]);

		if (v > (UINT64_MAX - d) / base)
			t->big = true;
		v = v * base + d;
	}
	if (!hex && i + 1 < ps->len && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
		t->kind = T_DOUBLE;
		for (i++; i < ps->len && s[i] >= '0' && s[i] <= '9'; i++)
			;
	}
	if (!hex && i < ps->len && (s[i] == 'e' || s[i] == 'E')) {
		size_t k = i + 1 + (i + 1 < ps->len && (s[i + 1] == '+' || s[i + 1] == '-'));

		if (k < ps->len && s[k] >= '0' && s[k] <= '9') {
			t->kind = T_DOUBLE;
			for (i = k; i < ps->len && s[i] >= '0' && s[i] <= '9'; i++)
				;
		}
	}
	if (t->kind == T_INT && i < ps->len && (s[i] == 'u' || s[i] == 'U')) {
		t->kind = T_UINT;
		i++;
	}
	t->big = t->big || v > (uint64_t)INT64_MAX + 1;
	t->u = v;
	ps->pos = i;
	return NULL;
}

/* Identifiers, keywords, and the prefixes of raw and bytes literals. */
static const char *lex_word(struct cel_lexer *ps, struct cel_tok *t)
{
	const char *s = ps->src + ps->pos;
	size_t n = 0;
	bool raw = false, bytes = false;

	while (ps->pos + n < ps->len && ident_char(s[n]))
		n++;
	if (n <= 2 && ps->pos + n < ps->len && (s[n] == '\'' || s[n] == '"')) {
		size_t k;

		for (k = 0; k < n; k++) {
			raw = raw || s[k] == 'r' || s[k] == 'R';
			bytes = bytes || s[k] == 'b' || s[k] == 'B';
		}
		if ((size_t)raw + (size_t)bytes == n && (n < 2 || (raw && bytes))) {
			ps->pos += n;
			t->kind = bytes ? T_BYTES : T_STRING;
			return lex_quoted(ps, raw, t);
		}
	}
	ps->pos += n;
	t->kind = T_IDENT;
	t->len = n;
	if (n == 2 && !memcmp(s, "in", 2)) {
		t->kind = T_OP;
		t->op = OPC_IN;
	}
	for (size_t k = 0; k < sizeof(reserved_words) / sizeof(reserved_words[0]); k++)
		if (strlen(reserved_words[k]) == n && !memcmp(reserved_words[k], s, n))
			return "a reserved word";
	return NULL;
}

static const char *lex_op(struct cel_lexer *ps, struct cel_tok *t)
{
	static const struct {
		char text[3];
		int op;
	} two[] = {{"<=", OPC_LE}, {">=", OPC_GE}, {"==", OPC_EQ}, {"!=", OPC_NE}, {"&&", OPC_AND}, {"||", OPC_OR}};
	const char *s = ps->src + ps->pos;

	t->kind = T_OP;
	for (size_t k = 0; k < sizeof(two) / sizeof(two[0]); k++) {
		if (ps->pos + 1 < ps->len && s[0] == two[k].text[0] && s[1] == two[k].text[1]) {
			t->op = two[k].op;
			ps->pos += 2;
			return NULL;
		}
	}
	if (!s[0] || !strchr("()[]{}.,:?!<>+-*/%", s[0]))
		return "a character CEL does not use";
	t->op = (unsigned char)s[0];
	ps->pos++;
	return NULL;
}

const char *cel_lex(struct cel_lexer *ps, struct cel_tok *ret)
{
	const char *s = ps->src, *err;
	struct cel_tok t = {0};

	for (;;) {
		while (ps->pos < ps->len && s[ps->pos] && strchr(" \t\n\r\f", s[ps->pos]))
			ps->pos++;
		if (ps->pos + 1 < ps->len && s[ps->pos] == '/' && s[ps->pos + 1] == '/') {
			while (ps->pos < ps->len && s[ps->pos] != '\n')
				ps->pos++;
			continue;
		}
		break;
	}
	t.pos = ps->pos;
	if (ps->pos >= ps->len) {
		t.kind = T_EOF;
		err = NULL;
	} else if (is_digit(s[ps->pos]) || (s[ps->pos] == '.' && ps->pos + 1 < ps->len && is_digit(s[ps->pos + 1]))) {
		err = lex_number(ps, &t);
	} else if (ident_start(s[ps->pos])) {
		err = lex_word(ps, &t);
	} else if (s[ps->pos] == '\'' || s[ps->pos] == '"') {
		t.kind = T_STRING;
		err = lex_quoted(ps, false, &t);
	} else {
		err = lex_op(ps, &t);
	}
	t.len = ps->pos - t.pos;
	*ret = t;
	return err;
}
