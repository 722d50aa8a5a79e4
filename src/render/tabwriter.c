/* Go text/tabwriter semantics, formatted once at flush time. */
#include "tabwriter.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kube.h"
#include "termsafe.h"

struct tw_cell {
	size_t off, len, width;
};

struct tw_line {
	size_t first, ncells; /* range in cells[] */
};

struct tabwriter {
	int minwidth, padding;
	unsigned flags;
	char *text;
	size_t len, cap;
	bool failed;

	/* formatting state, rebuilt on each flush */
	struct tw_cell *cells;
	size_t ncells, cells_cap;
	struct tw_line *lines;
	size_t nlines, lines_cap;
	size_t *widths;
	size_t nwidths, widths_cap;
	char *out;
	size_t out_len, out_cap;
};

struct tabwriter *tabwriter_new(int minwidth, int padding, unsigned flags)
{
	struct tabwriter *tw = calloc(1, sizeof(*tw));

	if (!tw)
		return NULL;
	tw->minwidth = minwidth < 0 ? 0 : minwidth;
	tw->padding = padding < 0 ? 0 : padding;
	tw->flags = flags;
	return tw;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *np = kube_array_grow(*p, cap, need, elem, 16);

	if (!np)
		return false;
	*p = np;
	return true;
}

int tabwriter_write(struct tabwriter *tw, const char *s, size_t len)
{
	if (tw->failed)
		return -1;
	if (len > ((size_t)-1) - tw->len - 1 || !grow((void **)&tw->text, &tw->cap, tw->len + len + 1, 1)) {
		tw->failed = true;
		return -1;
	}
	memcpy(tw->text + tw->len, s, len);
	tw->len += len;
	tw->text[tw->len] = '\0';
	return 0;
}

int tabwriter_puts(struct tabwriter *tw, const char *s)
{
	return tabwriter_write(tw, s, strlen(s));
}

int tabwriter_printf(struct tabwriter *tw, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		tw->failed = true;
		return -1;
	}
	rc = tabwriter_write(tw, s, (size_t)n);
	free(s);
	return rc;
}

size_t tabwriter_text_width(const char *s, size_t len)
{
	return termsafe_width(s, len);
}

static bool add_cell(struct tabwriter *tw, size_t off, size_t len)
{
	if (!grow((void **)&tw->cells, &tw->cells_cap, tw->ncells + 1, sizeof(*tw->cells)))
		return false;
	tw->cells[tw->ncells++] = (struct tw_cell){off, len, tabwriter_text_width(tw->text + off, len)};
	return true;
}

static bool add_line(struct tabwriter *tw, size_t first)
{
	if (!grow((void **)&tw->lines, &tw->lines_cap, tw->nlines + 1, sizeof(*tw->lines)))
		return false;
	tw->lines[tw->nlines++] = (struct tw_line){first, tw->ncells - first};
	return true;
}

/* Split the text into lines of cells.  The last line has no newline when
 * the text does not end with one. */
static bool split(struct tabwriter *tw, bool *last_unterminated)
{
	size_t start = 0, first = 0;

	tw->ncells = tw->nlines = 0;
	*last_unterminated = false;
	for (size_t i = 0; i < tw->len; i++) {
		if (tw->text[i] == '\t') {
			if (!add_cell(tw, start, i - start))
				return false;
			start = i + 1;
		} else if (tw->text[i] == '\n') {
			if (!add_cell(tw, start, i - start) || !add_line(tw, first))
				return false;
			start = i + 1;
			first = tw->ncells;
		}
	}
	if (start < tw->len || tw->ncells > first) {
		if (!add_cell(tw, start, tw->len - start) || !add_line(tw, first))
			return false;
		*last_unterminated = true;
	}
	return true;
}

static bool out_put(struct tabwriter *tw, const char *s, size_t len)
{
	if (!grow((void **)&tw->out, &tw->out_cap, tw->out_len + len + 1, 1))
		return false;
	memcpy(tw->out + tw->out_len, s, len);
	tw->out_len += len;
	return true;
}

static bool out_pad(struct tabwriter *tw, size_t n)
{
	if (!grow((void **)&tw->out, &tw->out_cap, tw->out_len + n + 1, 1))
		return false;
	memset(tw->out + tw->out_len, ' ', n);
	tw->out_len += n;
	return true;
}

static bool write_lines(struct tabwriter *tw, size_t line0, size_t line1, size_t nlines_total,
			bool last_unterminated)
{
	for (size_t l = line0; l < line1; l++) {
		const struct tw_line *line = &tw->lines[l];
		size_t line_start = tw->out_len;

		for (size_t j = 0; j < line->ncells; j++) {
			const struct tw_cell *c = &tw->cells[line->first + j];

			if (!out_put(tw, tw->text + c->off, c->len))
				return false;
			if (j < tw->nwidths && j + 1 < line->ncells && c->width < tw->widths[j] &&
			    !out_pad(tw, tw->widths[j] - c->width))
				return false;
		}
		if (tw->flags & TABWRITER_TRIM_TRAILING)
			while (tw->out_len > line_start && tw->out[tw->out_len - 1] == ' ')
				tw->out_len--;
		if (!(l + 1 == nlines_total && last_unterminated) && !out_put(tw, "\n", 1))
			return false;
	}
	return true;
}

/* Go's algorithm: find the column blocks of column len(widths) inside
 * [line0, line1), recursing into each block for the next column. */
static bool format(struct tabwriter *tw, size_t line0, size_t line1, size_t nlines_total, bool last_unterminated)
{
	size_t column = tw->nwidths;

	for (size_t this = line0; this < line1; this++) {
		size_t width;

		if (column + 1 >= tw->lines[this].ncells)
			continue;
		if (!write_lines(tw, line0, this, nlines_total, last_unterminated))
			return false;
		line0 = this;
		width = (size_t)tw->minwidth;
		for (; this < line1; this++) {
			const struct tw_line *line = &tw->lines[this];
			size_t w;

			if (column + 1 >= line->ncells)
				break;
			w = tw->cells[line->first + column].width + (size_t)tw->padding;
			if (w > width)
				width = w;
		}
		if (!grow((void **)&tw->widths, &tw->widths_cap, tw->nwidths + 1, sizeof(*tw->widths)))
			return false;
		tw->widths[tw->nwidths++] = width;
		if (!format(tw, line0, this, nlines_total, last_unterminated))
			return false;
		tw->nwidths--;
		line0 = this;
		/* the outer loop's increment must not skip the line that ended the block */
		this--;
	}
	return write_lines(tw, line0, line1, nlines_total, last_unterminated);
}

char *tabwriter_flush(struct tabwriter *tw, size_t *len)
{
	bool last_unterminated;
	char *ret;

	if (tw->failed)
		return NULL;
	tw->out_len = 0;
	tw->nwidths = 0;
	if (!split(tw, &last_unterminated) || !format(tw, 0, tw->nlines, tw->nlines, last_unterminated) ||
	    !out_put(tw, "", 0)) {
		tw->failed = true;
		return NULL;
	}
	tw->out[tw->out_len] = '\0';
	ret = tw->out;
	if (len)
		*len = tw->out_len;
	tw->out = NULL;
	tw->out_len = tw->out_cap = 0;
	tw->len = 0;
	return ret;
}

int tabwriter_flush_to(struct tabwriter *tw, FILE *f)
{
	size_t len;
	char *s = tabwriter_flush(tw, &len);
	int rc = 0;

	if (!s)
		return -1;
	if (len && fwrite(s, 1, len, f) != len)
		rc = -1;
	free(s);
	return rc;
}

void tabwriter_free(struct tabwriter *tw)
{
	if (!tw)
		return;
	free(tw->text);
	free(tw->cells);
	free(tw->lines);
	free(tw->widths);
	free(tw->out);
	free(tw);
}
