#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tabwriter.h"

static char *run(const char *in, unsigned flags)
{
	struct tabwriter *tw = tabwriter_new(0, 2, flags);
	char *out;

	cr_assert_not_null(tw);
	cr_assert_eq(tabwriter_puts(tw, in), 0);
	out = tabwriter_flush(tw, NULL);
	cr_assert_not_null(out);
	tabwriter_free(tw);
	return out;
}

static void check(const char *in, unsigned flags, const char *want)
{
	char *out = run(in, flags);

	cr_assert_str_eq(out, want);
	free(out);
}

Test(tabwriter, aligns_columns_with_padding_two)
{
	check("a\tbb\tc\nccc\td\te\n", 0, "a    bb  c\nccc  d   e\n");
}

Test(tabwriter, last_cell_not_padded)
{
	check("NAME\tX\nlonger-name\ty\n", 0, "NAME         X\nlonger-name  y\n");
}

Test(tabwriter, terminated_last_cell_is_padded_unless_trimmed)
{
	check("a\tb\t\nccc\td\t\n", 0, "a    b  \nccc  d  \n");
	check("a\tb\t\nccc\td\t\n", TABWRITER_TRIM_TRAILING, "a    b\nccc  d\n");
}

Test(tabwriter, blocks_end_at_lines_without_the_column)
{
	/* the line without a tab ends the block: the two tables align apart */
	check("a\tb\n--\nlonger\tc\n", 0, "a  b\n--\nlonger  c\n");
}

Test(tabwriter, inner_column_blocks)
{
	/* column 1 exists only in lines 1-2; line 3 ends its block but not column 0's */
	check("x\ty\tz\nxx\tyyyy\tz\nxxx\tw\n", 0, "x    y     z\nxx   yyyy  z\nxxx  w\n");
}

Test(tabwriter, empty_cells_are_padded)
{
	check("a\t\tc\nbb\tdd\te\n", 0, "a       c\nbb  dd  e\n");
}

Test(tabwriter, counts_terminal_columns)
{
	check("\xc3\xa9\tx\nab\ty\n", 0, "\xc3\xa9   x\nab  y\n");
	/* CJK characters take two columns each: the next column stays aligned */
	cr_assert_eq(tabwriter_text_width("\xe4\xb8\xad\xe6\x96\x87", 6), 4);
	check("\xe4\xb8\xad\xe6\x96\x87\tx\nabcde\ty\n", 0, "\xe4\xb8\xad\xe6\x96\x87   x\nabcde  y\n");
	/* a combining accent takes none */
	cr_assert_eq(tabwriter_text_width("e\xcc\x81", 3), 1);
}

Test(tabwriter, unterminated_last_line_kept)
{
	check("a\tb\ncc\td", 0, "a   b\ncc  d");
}

Test(tabwriter, reusable_after_flush)
{
	struct tabwriter *tw = tabwriter_new(0, 2, 0);
	char *out;

	tabwriter_printf(tw, "%s\t%d\n", "long-cell", 1);
	out = tabwriter_flush(tw, NULL);
	cr_assert_str_eq(out, "long-cell  1\n");
	free(out);
	tabwriter_puts(tw, "a\tb\n");
	out = tabwriter_flush(tw, NULL);
	cr_assert_str_eq(out, "a  b\n");
	free(out);
	tabwriter_free(tw);
	tabwriter_free(NULL);
}

Test(tabwriter, minwidth)
{
	struct tabwriter *tw = tabwriter_new(6, 1, 0);
	char *out;

	tabwriter_puts(tw, "a\tb\n");
	out = tabwriter_flush(tw, NULL);
	cr_assert_str_eq(out, "a     b\n");
	free(out);
	tabwriter_free(tw);
}

Test(tabwriter, empty_input)
{
	check("", 0, "");
	check("\n\n", 0, "\n\n");
}
