/* Quantities and card-memory labels: tables of inputs and what they mean. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantity.h"

struct qcase {
	const char *in;
	int64_t want; /* -1: rejected */
};

static void check_table(int (*fn)(const char *, int64_t *), const struct qcase *t, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		int64_t v = -12345;
		int r = fn(t[i].in, &v);

		if (t[i].want < 0) {
			cr_expect_eq(r, -1, "%s(\"%s\") accepted as %lld", what, t[i].in, (long long)v);
			cr_expect_eq(v, -12345, "%s(\"%s\") wrote its result on failure", what, t[i].in);
		} else {
			cr_expect_eq(r, 0, "%s(\"%s\") rejected", what, t[i].in);
			cr_expect_eq(v, t[i].want, "%s(\"%s\") = %lld, want %lld", what, t[i].in, (long long)v,
				     (long long)t[i].want);
		}
	}
}

static const struct qcase quantities[] = {
	{"0", 0}, {"15", 15}, {"+15", 15}, {"007", 7}, {"1.", 1}, {".5k", 500},
	{"100m", 0}, {"999m", 0}, {"1000m", 1}, {"1500m", 1}, {"2000m", 2},
	{"1n", 0}, {"1000000000n", 1}, {"2500000u", 2},
	{"1k", 1000}, {"2.1k", 2100}, {"1M", 1000000}, {"1G", 1000000000}, {"1T", 1000000000000},
	{"1P", 1000000000000000}, {"1E", 1000000000000000000}, {"9E", 9000000000000000000},
	{"1Ki", 1024}, {"0.5Ki", 512}, {"1Mi", 1048576}, {"1Gi", 1073741824}, {"1.5Gi", 1610612736},
	{"0.3Gi", 322122547}, {"1Ti", 1099511627776}, {"1Pi", 1125899906842624},
	{"1Ei", 1152921504606846976}, {"7Ei", 8070450532247928832},
	{"0.0009765625Ki", 1}, {"0.00097656249Ki", 0}, {"0.000000000000000000000001Ei", 0},
	{"1e3", 1000}, {"1E3", 1000}, {"1e+3", 1000}, {"1e-3", 0}, {"1500e-3", 1}, {"12e0", 12},
	{"123456789012345678901234567890e-20", 1234567890},
	{"1.00000000000000000000000009", 1}, {"00000000000000000000000001", 1},
	{"9223372036854775807", INT64_MAX}, {"9223372036854775.807k", INT64_MAX},
	{"0e999999999999", 0}, {"1e-99999999999", 0}, {"0.0Ei", 0},
	/* overflow */
	{"9223372036854775808", -1}, {"10E", -1}, {"8Ei", -1}, {"1e19", -1}, {"1e999999999999", -1},
	{"99999999999999999999999", -1}, {"9223372036854775807.9Ki", -1},
	/* garbage */
	{"", -1}, {"m", -1}, {"Gi", -1}, {"1 Gi", -1}, {"1Gi ", -1}, {" 1", -1}, {"1GB", -1},
	{"1g", -1}, {"-1", -1}, {"-0.5", -1}, {"1.2.3", -1}, {"1e", -1}, {"1e+", -1}, {"1ee3", -1},
	{"abc", -1}, {"1ki", -1}, {"1Zi", -1}, {"0x10", -1}, {"1e3Gi", -1}, {".", -1}, {"..", -1},
	{"+", -1}, {"1i", -1}, {"1Gii", -1}, {"1mm", -1}, {"++1", -1}, {"1e3.5", -1},
};

Test(quantity, table)
{
	check_table(quantity_parse_int, quantities, sizeof(quantities) / sizeof(quantities[0]), "quantity");
}

static const struct qcase labels[] = {
	{"16160MiB", 16160}, {"15GiB", 15360}, {"2048", 2048}, {"16G", 16384}, {"16GB", 16384},
	{"16gb", 16384}, {"16Gi", 16384}, {"16160Mi", 16160}, {"16160M", 16160}, {"16160MB", 16160},
	{"16160 MiB", 16160}, {"1.5GiB", 1536}, {"1TiB", 1048576}, {"2048KiB", 2}, {"512KiB", 0}, {"1536.9KiB", 1}, {"9223372036854775807", INT64_MAX},
	{"0", 0}, {"0.5", 0}, {"1536.9", 1536},
	{"", -1}, {"MiB", -1}, {"-5MiB", -1}, {"+5", -1}, {"16160MiBx", -1}, {"16 160", -1},
	{"99999999999999999999", -1}, {"16160  MiB", -1}, {"16PiB", -1}, {"1e3", -1}, {"x16G", -1},
};

Test(quantity, memory_labels)
{
	check_table(memory_label_mib, labels, sizeof(labels) / sizeof(labels[0]), "memory_label_mib");
}

Test(quantity, null_and_long_inputs)
{
	int64_t v = 0;
	size_t n = 1000000;
	char *s = malloc(n + 3);

	cr_assert_eq(quantity_parse_int(NULL, &v), -1);
	cr_assert_eq(memory_label_mib(NULL, &v), -1);
	/* a million digits after the point: read in one pass */
	s[0] = '3';
	s[1] = '.';
	memset(s + 2, '9', n);
	s[n + 2] = '\0';
	cr_assert_eq(quantity_parse_int(s, &v), 0);
	cr_assert_eq(v, 3);
	memcpy(s + n - 1, "Ki", 3);
	cr_assert_eq(quantity_parse_int(s, &v), 0);
	cr_assert_eq(v, 4095);
	memset(s, '0', n);
	s[n] = '7';
	s[n + 1] = '\0';
	cr_assert_eq(quantity_parse_int(s, &v), 0);
	cr_assert_eq(v, 7);
	free(s);
}

/* Against a slow reference for whole-number inputs with every suffix. */
Test(quantity, suffixes_match_multiplication)
{
	static const struct {
		const char *suffix;
		int64_t mul;
	} sfx[] = {{"", 1}, {"k", 1000}, {"M", 1000000}, {"Ki", 1024}, {"Mi", 1048576}, {"Gi", 1073741824}};
	char buf[64];

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		for (int64_t n = 0; n < 5000; n += 7) {
			int64_t v;

			snprintf(buf, sizeof(buf), "%lld%s", (long long)n, sfx[i].suffix);
			cr_assert_eq(quantity_parse_int(buf, &v), 0, "%s", buf);
			cr_assert_eq(v, n * sfx[i].mul, "%s", buf);
			snprintf(buf, sizeof(buf), "%lld.%03lld%s", (long long)n / 1000, (long long)n % 1000,
				 sfx[i].suffix);
			cr_assert_eq(quantity_parse_int(buf, &v), 0, "%s", buf);
			cr_assert_eq(v, n * sfx[i].mul / 1000, "%s", buf);
			snprintf(buf, sizeof(buf), "%lldm", (long long)n);
			cr_assert_eq(quantity_parse_int(buf, &v), 0, "%s", buf);
			cr_assert_eq(v, n / 1000, "%s", buf);
		}
}
