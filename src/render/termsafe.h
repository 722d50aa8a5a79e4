/* Text from the cluster made safe for a terminal or a plain-text stream.
 *
 * Names, labels, annotations, Status messages and Warning headers are
 * written by whoever can create objects in a cluster (or by whoever answers
 * in the API server's place).  Every human-readable output shows them
 * through this module, so that no control sequence reaches a terminal and
 * no line or cell breaks where the text says so.  The visible form:
 *
 *   C0 controls (0x00-0x1f) and DEL (0x7f)   \xHH    e.g. ESC is \x1b, a tab \x09
 *   C1 controls (U+0080-U+009F)              \u00HH  e.g. CSI is \u009b
 *   a byte that is not valid UTF-8           \xHH    e.g. \xff (also overlong forms,
 *                                                    surrogates, beyond U+10FFFF)
 *
 * Valid UTF-8 that is not a control passes unchanged, and so does a
 * backslash.  JSON and YAML do not go through here: they carry the exact
 * values, escaped as their formats require.
 */
#ifndef TERMSAFE_H
#define TERMSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kube.h"

enum termsafe_flags {
	/* Keep '\n' as a line break (text of several lines written to a
	 * stream); without it a newline is escaped like any control. */
	TERMSAFE_KEEP_NEWLINE = 1u << 0,
};

/* The visible form of len bytes of s, NUL-terminated and malloc'd
 * (*ret_len gets its length when not NULL).  NULL on allocation failure. */
char *termsafe_escape(const char *s, size_t len, unsigned flags, size_t *ret_len);
/* The same for a NUL-terminated string; NULL in gives "" out. */
char *termsafe_str(const char *s);
/* Write the visible form of s to f (every control escaped, newline too):
 * 0, or -1 on a write or allocation failure. */
int termsafe_fputs(const char *s, FILE *f);
/* printf with only %s (and %%) conversions, every argument written in its
 * visible form: for messages whose every argument may come from outside.
 * 0, or -1 on failure. */
int termsafe_printf(FILE *f, const char *fmt, ...);
/* Would termsafe_escape() change these bytes? */
bool termsafe_needed(const char *s, size_t len);

/* Terminal columns of one code point, with the rules of wcwidth(3) in a
 * UTF-8 locale but without depending on the locale: 0 for combining marks
 * and zero-width characters, 2 for East Asian wide and fullwidth
 * characters (CJK, Hangul, fullwidth forms, most emoji), 1 otherwise.
 * Controls count 1 here: callers measure text that is already safe. */
int termsafe_codepoint_width(uint32_t cp);
/* Terminal columns of safe (valid UTF-8) text. */
size_t termsafe_width(const char *s, size_t len);
/* The number of bytes of safe text s that fill at most cols columns,
 * never cutting a character. */
size_t termsafe_fit(const char *s, size_t len, size_t cols);

/* kerr_print() in the visible form: one line, whatever the server put in
 * its message, reason or address.  0, or -1 on failure. */
int termsafe_kerr_print(FILE *f, const struct kerr *err);
/* kerr_print()'s line without its newline, in the visible form; malloc'd,
 * NULL on allocation failure. */
char *termsafe_kerr_line(const struct kerr *err);

/* A write-only stream that passes everything written to it on to under,
 * in the visible form, line breaks kept.  For streams where outside text
 * is printed among the program's own (stderr messages, -v logs, Warning:
 * headers).  A character cut between two writes is put back together.
 * Closing it flushes under but does not close it.  NULL on failure. */
FILE *termsafe_stream(FILE *under);

#endif
