/* The selector evaluator's scalars: quantities read and compared exactly
 * as the API server reads them, semantic versions as CEL's semver library
 * reads them, and the words for types. */
#include "cel_internal.h"

#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Strip leading and trailing zero digits into n and exp. */
static void qty_normalize(struct cel_qty *q)
{
	unsigned lead = 0;

	while (lead < q->n && q->d[lead] == 0)
		lead++;
	if (lead) {
		memmove(q->d, q->d + lead, q->n - lead);
		q->n -= lead;
	}
	while (q->n && q->d[q->n - 1] == 0) {
		q->n--;
		q->exp++;
	}
	if (!q->n) {
		q->sign = 0;
		q->exp = 0;
	}
}

/* Multiply the digits by m (at most 1024); false when they would not fit. */
static bool qty_mul_small(struct cel_qty *q, unsigned m)
{
	unsigned carry = 0;
	uint8_t out[CEL_QTY_DIGITS + 8];
	unsigned k = 0;

	for (unsigned i = q->n; i-- > 0;) {
		unsigned v = q->d[i] * m + carry;

		out[k++] = (uint8_t)(v % 10);
		carry = v / 10;
	}
	while (carry) {
		out[k++] = (uint8_t)(carry % 10);
		carry /= 10;
	}
	if (k > CEL_QTY_DIGITS)
		return false;
	for (unsigned i = 0; i < k; i++)
		q->d[i] = out[k - 1 - i];
	q->n = k;
	return true;
}

/* Add one unit in the last place (a magnitude rounded up). */
static void qty_add_ulp(struct cel_qty *q)
{
	unsigned i = q->n;

	while (i > 0 && q->d[i - 1] == 9)
		q->d[--i] = 0;
	if (i == 0) {
		memmove(q->d + 1, q->d, q->n);
		q->d[0] = 1;
		q->n++;
	} else {
		q->d[i - 1]++;
	}
}

/* The API rounds a magnitude up to a whole nano (10^-9). */
static void qty_round_nano(struct cel_qty *q)
{
	int64_t drop;

	if (!q->n || q->exp >= -9)
		return;
	drop = -9 - q->exp;
	if (drop >= (int64_t)q->n) {
		q->d[0] = 1;
		q->n = 1;
	} else {
		q->n -= (unsigned)drop;
		qty_add_ulp(q);
	}
	q->exp = -9;
	qty_normalize(q);
}

/* Magnitudes: the place of the leading digit first, then the digits. */
static int qty_cmp_abs(const struct cel_qty *a, const struct cel_qty *b)
{
	int64_t ta = (int64_t)a->n + a->exp, tb = (int64_t)b->n + b->exp;
	unsigned n = a->n > b->n ? a->n : b->n;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	for (unsigned i = 0; i < n; i++) {
		int da = i < a->n ? a->d[i] : 0, db = i < b->n ? b->d[i] : 0;

		if (da != db)
			return da < db ? -1 : 1;
	}
	return 0;
}

/* 2^63 - 1: the API caps the magnitude of a binary quantity there. */
static void qty_cap_binary(struct cel_qty *q)
{
	static const char max[] = "9223372036854775807";
	struct cel_qty cap = {.sign = 1, .n = sizeof(max) - 1, .exp = 0};

	for (unsigned i = 0; i < cap.n; i++)
		cap.d[i] = (uint8_t)(max[i] - '0');
	if (q->sign && qty_cmp_abs(q, &cap) > 0) {
		cap.sign = q->sign;
		*q = cap;
	}
}

struct qty_suffix {
	const char *text;
	int base, exp;
};

static const struct qty_suffix qty_suffixes[] = {
	{"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},	 {"M", 10, 6},
	{"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
	{"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
};

/* The suffix's base and exponent: the tables, else e/E and a decimal
 * exponent (an int64, kept as its low 32 bits, as the API keeps it). */
static bool qty_suffix_read(const char *s, size_t len, int *base, int64_t *exp)
{
	int64_t v = 0;
	size_t i = 1;
	bool neg = false;

	for (size_t k = 0; k < sizeof(qty_suffixes) / sizeof(qty_suffixes[0]); k++) {
		if (strlen(qty_suffixes[k].text) == len && !memcmp(qty_suffixes[k].text, s, len)) {
			*base = qty_suffixes[k].base;
			*exp = qty_suffixes[k].exp;
			return true;
		}
	}
	if (len < 2 || (s[0] != 'e' && s[0] != 'E'))
		return false;
	if (s[1] == '+' || s[1] == '-')
		neg = s[i++] == '-';
	if (i == len)
		return false;
	for (; i < len; i++) {
		if (!is_digit(s[i]) || v > (INT64_MAX - (s[i] - '0')) / 10)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*base = 10;
	*exp = (int32_t)(uint32_t)(uint64_t)(neg ? -v : v);
	return true;
}

/* Split "[+-]digits[.digits]suffix" as the API's scanner does; false
 * when the text after the number is not a suffix's shape. */
static bool qty_scan(const char *s, size_t len, size_t *num, size_t *numlen, size_t *den, size_t *denlen,
		     size_t *suf)
{
	size_t i = (len && (s[0] == '+' || s[0] == '-')) ? 1 : 0;

	while (i < len && s[i] == '0')
		i++;
	*num = i;
	while (i < len && is_digit(s[i]))
		i++;
	*numlen = i - *num;
	*den = i;
	*denlen = 0;
	if (i < len && s[i] == '.') {
		*den = ++i;
		while (i < len && is_digit(s[i]))
			i++;
		*denlen = i - *den;
	}
	*suf = i;
	while (i < len && strchr("eEinumkKMGTP", s[i]))
		i++;
	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < len && is_digit(s[i]))
		i++;
	return i == len;
}

const char *cel_qty_parse(const char *s, size_t len, struct cel_qty *ret)
{
	size_t num, numlen, den, denlen, suf;
	int base;
	int64_t exp;
	struct cel_qty q = {0};

	if (len == 0)
		return "an empty string is not a quantity";
	if (len > CEL_QTY_MAX_TEXT)
		return "a quantity longer than 64 characters is not evaluated";
	if (!qty_scan(s, len, &num, &numlen, &den, &denlen, &suf))
		return "not a quantity";
	if (!qty_suffix_read(s + suf, len - suf, &base, &exp))
		return "not a quantity: unknown suffix";
	for (size_t i = 0; i < numlen; i++)
		q.d[q.n++] = (uint8_t)(s[num + i] - '0');
	for (size_t i = 0; i < denlen; i++)
		q.d[q.n++] = (uint8_t)(s[den + i] - '0');
	q.sign = s[0] == '-' ? -1 : 1;
	q.exp = (base == 10 ? exp : 0) - (int64_t)denlen;
	for (int64_t k = 0; base == 2 && k < exp / 10; k++)
		qty_mul_small(&q, 1024); /* 64 + 19 digits fit */
	qty_normalize(&q);
	qty_round_nano(&q);
	if (base == 2)
		qty_cap_binary(&q);
	*ret = q;
	return NULL;
}

int cel_qty_cmp(const struct cel_qty *a, const struct cel_qty *b)
{
	if (a->sign != b->sign)
		return a->sign < b->sign ? -1 : 1;
	if (a->sign == 0)
		return 0;
	return a->sign * qty_cmp_abs(a, b);
}

/* A number of a version: digits only, no leading zero, fits 64 bits. */
static const char *semver_number(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return "a version number is empty";
	if (len > 1 && s[0] == '0')
		return "a version number has a leading zero";
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return "a version number is not a number";
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return "a version number is too large";
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return NULL;
}

static bool semver_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

/* Dot-separated identifiers: none empty, of [0-9A-Za-z-]; numeric ones
 * (prerelease only) without a leading zero and within 64 bits. */
static const char *semver_idents(const char *s, size_t len, bool pre)
{
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		bool numeric = true;
		uint64_t v;

		if (i < len && s[i] != '.')
			continue;
		if (i == start)
			return pre ? "a prerelease identifier is empty" : "build metadata is empty";
		for (size_t k = start; k < i; k++) {
			if (!semver_alnum(s[k]))
				return pre ? "a prerelease identifier has a character outside [0-9A-Za-z-]"
					   : "build metadata has a character outside [0-9A-Za-z-]";
			numeric = numeric && is_digit(s[k]);
		}
		if (pre && numeric && semver_number(s + start, i - start, &v))
			return "a numeric prerelease identifier has a leading zero or is too large";
		start = i + 1;
	}
	return NULL;
}

/* A part of a version's text; zero: read with a "0" before it. */
struct semver_part {
	const char *s;
	size_t len;
	bool zero;
};

/* Normalizing, as CEL's semver(s, true): a part longer than one character
 * loses its leading zeros, and one left empty or not starting with a
 * digit gets a "0" before it. */
static void semver_trim_zeros(struct semver_part *p)
{
	if (p->len < 2)
		return;
	while (p->len && p->s[0] == '0') {
		p->s++;
		p->len--;
	}
	p->zero = !p->len || !is_digit(p->s[0]);
}

/* Split into major, minor and the rest; normalize: a leading "v" dropped,
 * leading zeros dropped, a missing minor and patch read as 0. */
static const char *semver_split(const char *s, size_t len, bool normalize, struct semver_part part[3],
				unsigned *nparts)
{
	size_t start = 0;

	if (normalize && len && s[0] == 'v') {
		s++;
		len--;
	}
	*nparts = 0;
	for (size_t i = 0; i <= len && *nparts < 3; i++) {
		if (i < len && (s[i] != '.' || *nparts == 2))
			continue;
		part[*nparts] = (struct semver_part){s + start, i - start, false};
		(*nparts)++;
		start = i + 1;
	}
	if (!normalize)
		return *nparts == 3 ? NULL : "no major.minor.patch";
	for (unsigned k = 0; k < *nparts; k++)
		semver_trim_zeros(&part[k]);
	if (*nparts < 3 && (memchr(part[*nparts - 1].s, '+', part[*nparts - 1].len) ||
			    memchr(part[*nparts - 1].s, '-', part[*nparts - 1].len)))
		return "a short version cannot have a prerelease or build metadata";
	return NULL;
}

/* The number of a part's first len characters. */
static const char *semver_part_number(const struct semver_part *p, size_t len, uint64_t *ret)
{
	if (!p->zero)
		return semver_number(p->s, len, ret);
	*ret = 0;
	return len ? "a version number is not a number" : NULL;
}

const char *cel_semver_parse(const char *s, size_t len, bool normalize, struct cel_semver *ret)
{
	struct semver_part part[3];
	const char *err, *plus, *minus;
	size_t patchlen;
	unsigned nparts;
	struct cel_semver v = {0};

	if (len == 0)
		return "an empty string is not a version";
	err = semver_split(s, len, normalize, part, &nparts);
	if (err)
		return err;
	if ((err = semver_part_number(&part[0], part[0].len, &v.major)) ||
	    (nparts > 1 && (err = semver_part_number(&part[1], part[1].len, &v.minor))))
		return err;
	if (nparts < 3) {
		*ret = v;
		return NULL;
	}
	patchlen = part[2].len;
	plus = memchr(part[2].s, '+', patchlen);
	if (plus) {
		if ((err = semver_idents(plus + 1, (size_t)(part[2].s + part[2].len - plus - 1), false)))
			return err;
		patchlen = (size_t)(plus - part[2].s);
	}
	minus = memchr(part[2].s, '-', patchlen);
	if (minus) {
		v.pre = minus + 1;
		v.prelen = (size_t)(part[2].s + patchlen - v.pre);
		if ((err = semver_idents(v.pre, v.prelen, true)))
			return err;
		patchlen = (size_t)(minus - part[2].s);
	}
	if ((err = semver_part_number(&part[2], patchlen, &v.patch)))
		return err;
	*ret = v;
	return NULL;
}

/* One prerelease identifier against another: numbers by value and below
 * words, words byte by byte. */
static int semver_ident_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	bool an = true, bn = true;
	int c;

	for (size_t i = 0; i < alen; i++)
		an = an && is_digit(a[i]);
	for (size_t i = 0; i < blen; i++)
		bn = bn && is_digit(b[i]);
	if (an != bn)
		return an ? -1 : 1;
	if (an && alen != blen) /* no leading zeros: the longer is larger */
		return alen < blen ? -1 : 1;
	c = memcmp(a, b, alen < blen ? alen : blen);
	if (c)
		return c < 0 ? -1 : 1;
	return alen == blen ? 0 : (alen < blen ? -1 : 1);
}

static int semver_pre_cmp(const struct cel_semver *a, const struct cel_semver *b)
{
	size_t i = 0, k = 0;

	if (!a->prelen || !b->prelen) /* a release is above its prereleases */
		return a->prelen == b->prelen ? 0 : (a->prelen ? -1 : 1);
	while (i < a->prelen && k < b->prelen) {
		size_t ie = i, ke = k;
		int c;

		while (ie < a->prelen && a->pre[ie] != '.')
			ie++;
		while (ke < b->prelen && b->pre[ke] != '.')
			ke++;
		c = semver_ident_cmp(a->pre + i, ie - i, b->pre + k, ke - k);
		if (c)
			return c;
		i = ie + 1;
		k = ke + 1;
	}
	/* the one with identifiers left is larger */
	if (i < a->prelen)
		return 1;
	return k < b->prelen ? -1 : 0;
}

int cel_semver_cmp(const struct cel_semver *a, const struct cel_semver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return semver_pre_cmp(a, b);
}

const char *cel_type_name(enum cel_type t)
{
	switch (t) {
	case TY_BOOL:
		return "bool";
	case TY_INT:
		return "int";
	case TY_STRING:
		return "string";
	case TY_QTY:
		return "kubernetes.Quantity";
	case TY_SEMVER:
		return "kubernetes.Semver";
	case TY_LIST:
		return "list";
	case TY_DEVICE:
		return "kubernetes.DRADevice";
	case TY_ATTRS:
	case TY_CAPS:
	case TY_ATTR_DOMAIN:
	case TY_CAP_DOMAIN:
		return "map";
	case TY_DYN:
		return "dyn";
	case TY_OTHER:
		break;
	}
	return "a type outside the subset";
}

const char *cel_op_name(enum cel_op op)
{
	static const char *const names[] = {
		[OP_NOT] = "!_",   [OP_NEG] = "-_",  [OP_AND] = "_&&_", [OP_OR] = "_||_", [OP_EQ] = "_==_",
		[OP_NE] = "_!=_",  [OP_LT] = "_<_",  [OP_LE] = "_<=_",  [OP_GT] = "_>_",  [OP_GE] = "_>=_",
		[OP_IN] = "@in",   [OP_ADD] = "+",   [OP_SUB] = "-",    [OP_MUL] = "*",	  [OP_DIV] = "/",
		[OP_MOD] = "%",
	};

	return (unsigned)op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] : "?";
}

const char *cel_fn_name(enum cel_fn fn)
{
	static const char *const names[] = {
		[FN_QUANTITY] = "quantity",	  [FN_IS_QUANTITY] = "isQuantity", [FN_SEMVER] = "semver",
		[FN_IS_SEMVER] = "isSemver",	  [FN_COMPARE_TO] = "compareTo",   [FN_IS_GREATER] = "isGreaterThan",
		[FN_IS_LESS] = "isLessThan",	  [FN_MAJOR] = "major",		   [FN_MINOR] = "minor",
		[FN_PATCH] = "patch",
	};

	return (unsigned)fn < sizeof(names) / sizeof(names[0]) ? names[fn] : "?";
}

void cel_quote(char *dst, size_t n, const char *s, size_t len, size_t max)
{
	size_t k = 0;

	if (!n)
		return;
	for (size_t i = 0; i < len && i < max && k + 1 < n; i++)
		dst[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	for (int dots = 0; len > max && dots < 3 && k + 1 < n; dots++)
		dst[k++] = '.';
	dst[k] = '\0';
}
