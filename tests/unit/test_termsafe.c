#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "termsafe.h"

static void check(const char *in, size_t len, unsigned flags, const char *want)
{
	size_t n = 0;
	char *out = termsafe_escape(in, len, flags, &n);

	cr_assert_not_null(out);
	cr_assert_str_eq(out, want);
	cr_assert_eq(n, strlen(want));
	cr_assert_eq(termsafe_needed(in, len), strcmp(in, want) != 0 || len != strlen(in));
	free(out);
}

#define CHECK(in, want) check(in, sizeof(in) - 1, 0, want)

Test(termsafe, plain_and_utf8_pass_unchanged)
{
	CHECK("node-a.example", "node-a.example");
	CHECK("caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80");
	CHECK("back\\slash", "back\\slash");
}

Test(termsafe, c0_and_del_as_hex)
{
	CHECK("a\x1b]0;title\x07z", "a\\x1b]0;title\\x07z");
	CHECK("\x1b[2J\x1b[31m", "\\x1b[2J\\x1b[31m");
	CHECK("tab\there\nline\r", "tab\\x09here\\x0aline\\x0d");
	CHECK("del\x7f", "del\\x7f");
	check("nul\0after", 9, 0, "nul\\x00after");
}

Test(termsafe, newline_kept_on_request)
{
	check("one\ntwo\x1b", 8, TERMSAFE_KEEP_NEWLINE, "one\ntwo\\x1b");
}

Test(termsafe, c1_as_unicode_escape)
{
	CHECK("csi\xc2\x9b" "2J", "csi\\u009b2J");
	CHECK("\xc2\x80\xc2\x9f\xc2\xa0", "\\u0080\\u009f\xc2\xa0");
}

Test(termsafe, invalid_utf8_byte_by_byte)
{
	CHECK("bad\xff", "bad\\xff");
	CHECK("lone\x9b", "lone\\x9b");
	CHECK("cut\xe4\xb8", "cut\\xe4\\xb8");
	CHECK("overlong\xc0\xaf", "overlong\\xc0\\xaf");
	CHECK("surrogate\xed\xa0\x80", "surrogate\\xed\\xa0\\x80");
	CHECK("big\xf4\x90\x80\x80", "big\\xf4\\x90\\x80\\x80");
	CHECK("\xe4\xb8" "a", "\\xe4\\xb8a");
}

Test(termsafe, display_width)
{
	cr_assert_eq(termsafe_width("abc", 3), 3);
	cr_assert_eq(termsafe_width("\xe4\xb8\xad\xe6\x96\x87", 6), 4);
	cr_assert_eq(termsafe_width("\xea\xb0\x80", 3), 2);	/* Hangul */
	cr_assert_eq(termsafe_width("\xef\xbc\xa1", 3), 2);	/* fullwidth A */
	cr_assert_eq(termsafe_width("e\xcc\x81", 3), 1);	/* combining acute */
	cr_assert_eq(termsafe_width("\xe2\x80\x8b", 3), 0);	/* zero-width space */
	cr_assert_eq(termsafe_width("\xf0\x9f\x98\x80", 4), 2); /* emoji */
}

Test(termsafe, fit_never_cuts_a_character)
{
	const char *s = "a\xe4\xb8\xad\xe6\x96\x87";

	cr_assert_eq(termsafe_fit(s, 7, 0), 0);
	cr_assert_eq(termsafe_fit(s, 7, 2), 1);
	cr_assert_eq(termsafe_fit(s, 7, 3), 4);
	cr_assert_eq(termsafe_fit(s, 7, 10), 7);
}

Test(termsafe, stream_escapes_and_rejoins_cut_characters)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	FILE *f = termsafe_stream(mem);

	cr_assert_not_null(f);
	fputs("Warning: x\x1b[2J\n", f);
	fflush(f);
	/* one character written in two pieces stays one character */
	fputs("\xe4\xb8", f);
	fflush(f);
	fputs("\xad ok\xc2\x9b\n", f);
	/* a four-byte character cut after its second byte */
	fputs("\xf1\x94", f);
	fflush(f);
	fputs("\xae\xae\n", f);
	fputs("tail\xe4", f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(fclose(mem), 0);
	cr_assert_str_eq(buf, "Warning: x\\x1b[2J\n\xe4\xb8\xad ok\\u009b\n\xf1\x94\xae\xae\ntail\\xe4");
	free(buf);
}

Test(termsafe, kerr_line_is_one_safe_line)
{
	struct kerr err = KERR_INIT;
	char *line;

	kerr_set_status(&err, 403, "Forb\nidden\x1b", "nodes \x1b]0;x\x07 is forbidden\nsecond line");
	line = termsafe_kerr_line(&err);
	cr_assert_not_null(line);
	cr_assert_str_eq(line, "Error from server (Forb\\x0aidden\\x1b): nodes \\x1b]0;x\\x07 is forbidden second line");
	free(line);
	kerr_release(&err);
}
