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
};

/* A flush's working state: the text cut into cells and lines, the widths
 * of the column blocks being formatted, and the output. */
struct layout {
	const struct tabwriter *tw;
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

static bool add_cell(struct layout *l, size_t off, size_t len)
{
	if (!grow((void **)&l->cells, &l->cells_cap, l->ncells + 1, sizeof(*l->cells)))
		return false;
	l->cells[l->ncells++] = (struct tw_cell){off, len, tabwriter_text_width(l->tw->text + off, len)};
	return true;
}

static bool add_line(struct layout *l, size_t first)
{
	if (!grow((void **)&l->lines, &l->lines_cap, l->nlines + 1, sizeof(*l->lines)))
		return false;
	l->lines[l->nlines++] = (struct tw_line){first, l->ncells - first};
	return true;
}

/* Split the text into lines of cells.  The last line has no newline when
 * the text does not end with one. */
static bool split(struct layout *l, bool *last_unterminated)
{
	size_t start = 0, first = 0;

	*last_unterminated = false;
	for (size_t i = 0; i < l->tw->len; i++) {
		if (l->tw->text[i] == '\t') {
			if (!add_cell(l, start, i - start))
				return false;
			start = i + 1;
		} else if (l->tw->text[i] == '\n') {
			if (!add_cell(l, start, i - start) || !add_line(l, first))
				return false;
			start = i + 1;
			first = l->ncells;
		}
	}
	if (start < l->tw->len || l->ncells > first) {
		if (!add_cell(l, start, l->tw->len - start) || !add_line(l, first))
			return false;
		*last_unterminated = true;
	}
	return true;
}

static bool out_put(struct layout *l, const char *s, size_t len)
{
	if (!grow((void **)&l->out, &l->out_cap, l->out_len + len + 1, 1))
		return false;
	memcpy(l->out + l->out_len, s, len);
	l->out_len += len;
	return true;
}

static bool out_pad(struct layout *l, size_t n)
{
	if (!grow((void **)&l->out, &l->out_cap, l->out_len + n + 1, 1))
		return false;
	memset(l->out + l->out_len, ' ', n);
	l->out_len += n;
	return true;
}

static bool write_lines(struct layout *l, size_t line0, size_t line1, size_t nlines_total, bool last_unterminated)
{
	for (size_t i = line0; i < line1; i++) {
		const struct tw_line *line = &l->lines[i];
		size_t line_start = l->out_len;

		for (size_t j = 0; j < line->ncells; j++) {
			const struct tw_cell *c = &l->cells[line->first + j];

			if (!out_put(l, l->tw->text + c->off, c->len))
				return false;
			if (j < l->nwidths && j + 1 < line->ncells && c->width < l->widths[j] &&
			    !out_pad(l, l->widths[j] - c->width))
				return false;
		}
		if (l->tw->flags & TABWRITER_TRIM_TRAILING)
			while (l->out_len > line_start && l->out[l->out_len - 1] == ' ')
				l->out_len--;
		if (!(i + 1 == nlines_total && last_unterminated) && !out_put(l, "\n", 1))
			return false;
	}
	return true;
}

/* Go's algorithm: find the column blocks of column len(widths) inside
 * [line0, line1), recursing into each block for the next column. */
static bool format(struct layout *l, size_t line0, size_t line1, size_t nlines_total, bool last_unterminated)
{
	size_t column = l->nwidths;

	for (size_t this = line0; this < line1; this++) {
		size_t width;

		if (column + 1 >= l->lines[this].ncells)
			continue;
		if (!write_lines(l, line0, this, nlines_total, last_unterminated))
			return false;
		line0 = this;
		width = (size_t)l->tw->minwidth;
		for (; this < line1; this++) {
			const struct tw_line *line = &l->lines[this];
			size_t w;

			if (column + 1 >= line->ncells)
				break;
			w = l->cells[line->first + column].width + (size_t)l->tw->padding;
			if (w > width)
				width = w;
		}
		if (!grow((void **)&l->widths, &l->widths_cap, l->nwidths + 1, sizeof(*l->widths)))
			return false;
		l->widths[l->nwidths++] = width;
		if (!format(l, line0, this, nlines_total, last_unterminated))
			return false;
		l->nwidths--;
		line0 = this;
		/* the outer loop's increment must not skip the line that ended the block */
		this--;
	}
	return write_lines(l, line0, line1, nlines_total, last_unterminated);
}

static void layout_release(struct layout *l)
{
	free(l->cells);
	free(l->lines);
	free(l->widths);
	free(l->out);
}

char *tabwriter_flush(struct tabwriter *tw, size_t *len)
{
	struct layout l = { .tw = tw };
	bool last_unterminated;
	char *ret = NULL;

	if (tw->failed)
		return NULL;
	if (!split(&l, &last_unterminated) || !format(&l, 0, l.nlines, l.nlines, last_unterminated) ||
	    !out_put(&l, "", 0)) {
		tw->failed = true;
	} else {
		ret = l.out;
		ret[l.out_len] = '\0';
		if (len)
			*len = l.out_len;
		l.out = NULL;
		tw->len = 0;
	}
	layout_release(&l);
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
	free(tw);
}
