/* Column alignment with the semantics of Go's text/tabwriter.
 *
 * The published cGPU tables were written by Go's tabwriter (minwidth 0,
 * padding 2, padchar ' ').  Reproducing them byte for byte means using the
 * same rules: text is split into cells at '\t'; a cell terminated by a tab
 * belongs to a column; the text after the last tab of a line is not part of
 * any column and is never padded; a column block is a run of consecutive
 * lines that all have a terminated cell in that column, and every cell of
 * a block is padded to the block's widest cell plus the padding.
 *
 * Uses nothing but libc and the client's array growth (kube.h).
 */
#ifndef TABWRITER_H
#define TABWRITER_H

#include <stddef.h>
#include <stdio.h>

enum tabwriter_flags {
	/* Drop trailing spaces from every output line (the published examples
	 * were copied without the padding Go wrote after a line's last tab). */
	TABWRITER_TRIM_TRAILING = 1u << 0,
};

struct tabwriter;

/* NULL on allocation failure. */
struct tabwriter *tabwriter_new(int minwidth, int padding, unsigned flags);
/* Append text; may hold any number of lines and partial cells.  -1 on
 * allocation failure (the writer then only frees). */
int tabwriter_write(struct tabwriter *tw, const char *s, size_t len);
int tabwriter_puts(struct tabwriter *tw, const char *s);
int tabwriter_printf(struct tabwriter *tw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Format everything written so far and return it as a malloc'd,
 * NUL-terminated string (*len gets its length if len is not NULL); the
 * writer is then empty and can be reused.  An unterminated last line is
 * kept as is.  NULL on allocation failure. */
char *tabwriter_flush(struct tabwriter *tw, size_t *len);
/* Flush into a stream: 0, or -1 on failure. */
int tabwriter_flush_to(struct tabwriter *tw, FILE *f);
void tabwriter_free(struct tabwriter *tw);

/* Display width of UTF-8 text: terminal columns, wide (CJK) characters
 * counting two, so that columns stay aligned where Go's tabwriter, which
 * counts runes, would not.  Cells are expected in their visible form
 * (termsafe.h): a tab or newline inside outside text must not split them. */
size_t tabwriter_text_width(const char *s, size_t len);

#endif
