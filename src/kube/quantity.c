/* Kubernetes resource quantities and card-memory labels, read exactly.
 *
 * A quantity is a decimal number (possibly with a fraction) times a power of
 * ten and a power of two.  Floating point would turn "0.3Gi" or "2.1k" into
 * the wrong whole number, so the value is computed from the digits: the
 * integer part with overflow checks, and the fraction's contribution by long
 * multiplication over its digits, which stays linear in the input length.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "quantity.h"

/* The digits of a number with its decimal point removed: the first int_len
 * digits are at a, the next frac_len at b. */
struct digits {
	const char *a, *b;
	size_t int_len, frac_len;
};

static int digit_at(const struct digits *d, size_t i)
{
	return i < d->int_len ? d->a[i] - '0' : d->b[i - d->int_len] - '0';
}

/* Reads "[+]digits[.digits]"; returns the position after it, or NULL when
 * there is no digit at all. */
static const char *read_number(const char *s, struct digits *d)
{
	if (*s == '+')
		s++;
	d->a = s;
	while (*s >= '0' && *s <= '9')
		s++;
	d->int_len = (size_t)(s - d->a);
	d->b = s;
	d->frac_len = 0;
	if (*s == '.') {
		d->b = ++s;
		while (*s >= '0' && *s <= '9')
			s++;
		d->frac_len = (size_t)(s - d->b);
	}
	if (d->int_len + d->frac_len == 0)
		return NULL;
	return s;
}

/* *v = *v * m + a, false when that passes INT64_MAX */
static bool mul_add(uint64_t *v, uint64_t m, uint64_t a)
{
	if (*v > ((uint64_t)INT64_MAX - a) / m)
		return false;
	*v = *v * m + a;
	return true;
}

/* floor(digits * 10^exp10 * 2^pow2) into *ret, pow2 in [0, 60]; -1 on overflow. */
static int scale_floor(const struct digits *d, int64_t exp10, int pow2, int64_t *ret)
{
	size_t n = d->int_len + d->frac_len, z = 0;
	int64_t e = exp10 - (int64_t)d->frac_len;
	uint64_t mul = (uint64_t)1 << pow2;
	uint64_t v = 0;
	uint64_t carry = 0;
	size_t nint, nfrac;

	while (z < n && digit_at(d, z) == 0)
		z++;
	if (z == n) {
		*ret = 0;
		return 0;
	}
	if (e >= 0) {
		/* At least 10^(significant digits - 1 + e): beyond int64 once
		 * that exponent reaches 19. */
		if ((int64_t)(n - z) + e > 19)
			return -1;
		for (size_t i = z; i < n; i++)
			if (!mul_add(&v, 10, (uint64_t)digit_at(d, i)))
				return -1;
		for (int64_t i = 0; i < e; i++)
			if (!mul_add(&v, 10, 0))
				return -1;
		if (!mul_add(&v, mul, 0))
			return -1;
		*ret = (int64_t)v;
		return 0;
	}

	/* e < 0: the last -e digits (and leading zeros beyond them) are the
	 * fraction. */
	if ((uint64_t)-e < n) {
		nint = n - (size_t)-e;
		nfrac = (size_t)-e;
	} else {
		nint = 0;
		nfrac = n;
	}
	if (nint > z && nint - z > 19)
		return -1;
	for (size_t i = z; i < nint; i++)
		if (!mul_add(&v, 10, (uint64_t)digit_at(d, i)))
			return -1;
	if (!mul_add(&v, mul, 0))
		return -1;
	if (pow2 > 0) {
		/* floor(0.f1f2...fk * mul): multiply the fraction digit by digit
		 * from the right; what carries out of the first digit is the
		 * whole part.  carry < mul <= 2^60, so 10 * mul fits. */
		for (size_t i = n; i-- > n - nfrac;)
			carry = ((uint64_t)digit_at(d, i) * mul + carry) / 10;
		/* Implied zeros between the point and the digits: each divides
		 * by ten, and after 19 of them nothing is left. */
		if ((uint64_t)-e > n) {
			uint64_t zeros = (uint64_t)-e - n;

			for (uint64_t i = 0; i < zeros && carry; i++)
				carry /= 10;
		}
	}
	if (!mul_add(&v, 1, carry))
		return -1;
	*ret = (int64_t)v;
	return 0;
}

/* "e3", "E-2": the exponent, saturated far beyond any meaningful value. */
static bool read_exponent(const char *s, int64_t *ret)
{
	bool neg = false;
	int64_t e = 0;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (e < 1000000000)
			e = e * 10 + (*s - '0');
	}
	*ret = neg ? -e : e;
	return true;
}

int quantity_parse_int(const char *s, int64_t *ret)
{
	static const char decimal[] = "num kMGTPE";
	struct digits d;
	const char *p;
	int64_t exp10 = 0, value;
	int pow2 = 0;

	if (!s || !ret)
		return -1;
	/* Resource amounts are never negative; a minus sign is rejected
	 * rather than rounded. */
	p = read_number(s, &d);
	if (!p)
		return -1;
	if (*p == '\0') {
		exp10 = 0;
	} else if (p[1] == 'i' && p[2] == '\0') {
		const char *bin = strchr("KMGTPE", *p);

		if (!bin)
			return -1;
		pow2 = 10 * (int)(bin - "KMGTPE" + 1);
	} else if ((*p == 'e' || *p == 'E') && p[1] != '\0') {
		if (!read_exponent(p + 1, &exp10))
			return -1;
	} else if (p[1] == '\0' && *p != ' ' && strchr(decimal, *p)) {
		/* n u m (space) k M G T P E: 10^-9 ... 10^18 in steps of 3 */
		exp10 = 3 * (int64_t)(strchr(decimal, *p) - decimal) - 9;
	} else {
		return -1;
	}
	if (scale_floor(&d, exp10, pow2, &value) < 0)
		return -1;
	*ret = value;
	return 0;
}

int memory_label_mib(const char *s, int64_t *ret)
{
	/* Each unit in MiB as a power of two; KiB is the one unit below a
	 * MiB, counted whole and then divided, which floors "1536KiB"
	 * correctly.  Labels are written by hand as often as by tools, so the
	 * spelling is loose: "G" and "GB" mean GiB, as on every card's
	 * datasheet. */
	static const struct {
		const char *name;
		int pow2;
	} units[] = {
		{"", 0}, {"m", 0}, {"mi", 0}, {"mb", 0}, {"mib", 0},
		{"k", -10}, {"ki", -10}, {"kb", -10}, {"kib", -10},
		{"g", 10}, {"gi", 10}, {"gb", 10}, {"gib", 10},
		{"t", 20}, {"ti", 20}, {"tb", 20}, {"tib", 20},
	};
	struct digits d;
	const char *p;
	int64_t v;

	if (!s || !ret)
		return -1;
	p = read_number(s, &d);
	if (!p || *s == '+')
		return -1;
	if (*p == ' ')
		p++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		int pow2 = units[i].pow2;

		if (strcasecmp(p, units[i].name) != 0)
			continue;
		if (scale_floor(&d, 0, pow2 < 0 ? 0 : pow2, &v) < 0)
			return -1;
		*ret = pow2 < 0 ? v / 1024 : v;
		return 0;
	}
	return -1;
}
