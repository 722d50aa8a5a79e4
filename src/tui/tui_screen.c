/* The live view's screen and its building blocks: see tui_screen.h. */
#include "tui_screen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "termsafe.h"

enum tui_role tui_tone_role(enum column_tone tone)
{
	static const enum tui_role roles[] = {
		[TONE_NORMAL] = TUI_ROLE_NORMAL, [TONE_DIM] = TUI_ROLE_DIM, [TONE_LOW] = TUI_ROLE_LOW,
		[TONE_MID] = TUI_ROLE_MID,	 [TONE_HIGH] = TUI_ROLE_HIGH,
	};

	return roles[tone];
}

enum tui_role tui_level(int64_t allocated, int64_t total)
{
	return tui_tone_role(column_level(allocated, total));
}

int tui_bar_fill(int64_t allocated, int64_t total, int width)
{
	int64_t fill;

	if (width <= 0 || allocated <= 0)
		return 0;
	if (total <= 0 || allocated >= total)
		return width;
	fill = allocated * width / total;
	return fill < 1 ? 1 : (int)fill;
}

void tui_line_release(struct tui_line *l)
{
	for (size_t i = 0; i < l->nspans; i++)
		free(l->spans[i].text);
	free(l->spans);
	memset(l, 0, sizeof(*l));
}

static bool same_line(const struct tui_line *a, const struct tui_line *b)
{
	if (a->nspans != b->nspans || a->fill != b->fill || a->selected != b->selected || a->utf8 != b->utf8)
		return false;
	for (size_t i = 0; i < a->nspans; i++)
		if (a->spans[i].x != b->spans[i].x || a->spans[i].role != b->spans[i].role ||
		    strcmp(a->spans[i].text, b->spans[i].text) != 0)
			return false;
	return true;
}

bool tui_screen_same(const struct tui_screen *a, const struct tui_screen *b)
{
	if (a->cols != b->cols || a->lines != b->lines || a->cursor_x != b->cursor_x || a->cursor_y != b->cursor_y ||
	    !a->line != !b->line)
		return false;
	for (int y = 0; a->line && y < a->lines; y++)
		if (!same_line(&a->line[y], &b->line[y]))
			return false;
	return true;
}

/* The text as the screen shows it: its visible form (termsafe.h), and on a
 * terminal that is not UTF-8 each other non-ASCII character as '?', so that
 * one character is one column.  malloc'd. */
static char *screen_text(const char *text, bool utf8)
{
	char *e = termsafe_escape(text, strlen(text), 0, NULL);
	size_t j = 0;

	if (!e || utf8)
		return e;
	for (size_t i = 0; e[i];) {
		unsigned char c = (unsigned char)e[i];

		if (c < 0x80) {
			e[j++] = e[i++];
			continue;
		}
		/* escaped text is valid UTF-8: skip the continuation bytes */
		i++;
		while ((e[i] & 0xc0) == 0x80)
			i++;
		e[j++] = '?';
	}
	e[j] = '\0';
	return e;
}

/* Columns the screen gives a text. */
int tui_screen_width(const char *text, bool utf8)
{
	size_t n = 0;
	char *e;

	/* printable ASCII shows as it is, a column a byte: most cells */
	while (text[n] >= 0x20 && text[n] < 0x7f)
		n++;
	if (!text[n])
		return n > 100000 ? 100000 : (int)n;
	e = screen_text(text, utf8);
	size_t w = e ? termsafe_width(e, strlen(e)) : strlen(text);

	free(e);
	return w > 100000 ? 100000 : (int)w;
}

/* Put text at x, at most maxw columns (-1 = to the edge), in its visible
 * form.  Returns the column after it. */
int tui_put(struct tui_line *l, int cols, bool *oom, int x, enum tui_role role, const char *text, int maxw)
{
	char *copy;
	struct tui_span *sp;
	size_t len, w;

	if (x < 0 || x >= cols)
		return x;
	if (maxw < 0 || maxw > cols - x)
		maxw = cols - x;
	copy = screen_text(text, l->utf8);
	if (!copy) {
		*oom = true;
		return x;
	}
	len = termsafe_fit(copy, strlen(copy), (size_t)maxw);
	copy[len] = '\0';
	w = termsafe_width(copy, len);
	if (!len) {
		free(copy);
		return x;
	}
	sp = kube_array_grow(l->spans, &l->cap, l->nspans + 1, sizeof(*sp), 8);
	if (!sp) {
		free(copy);
		*oom = true;
		return x + (int)w;
	}
	l->spans = sp;
	l->spans[l->nspans++] = (struct tui_span){ .x = x, .role = role, .text = copy, .width = (int)w };
	return x + (int)w;
}

static char *vstrf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *vstrf(const char *fmt, va_list ap)
{
	char *s = NULL;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *tui_strf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrf(fmt, ap);
	va_end(ap);
	return s;
}

int tui_putf(struct tui_line *l, int cols, bool *oom, int x, enum tui_role role, int maxw, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrf(fmt, ap);
	va_end(ap);
	if (!s) {
		*oom = true;
		return x;
	}
	x = tui_put(l, cols, oom, x, role, s, maxw);
	free(s);
	return x;
}

int tui_bar_width(int cols)
{
	return cols / 3 > BAR_MAX ? BAR_MAX : cols / 3;
}

/* "[|||||     ]", width cells including the brackets.  Returns the column after. */
int tui_put_bar(struct tui_line *l, int cols, bool *oom, int x, int width, int64_t allocated, int64_t total)
{
	int inner = width - 2, fill;
	char *buf;

	if (inner < 1)
		return x;
	fill = tui_bar_fill(allocated, total, inner);
	buf = malloc((size_t)inner + 1);
	if (!buf) {
		*oom = true;
		return x + width;
	}
	tui_put(l, cols, oom, x, TUI_ROLE_DIM, "[", 1);
	/* beyond the total the bar is drawn in other marks, colour or not */
	memset(buf, allocated > 0 && allocated > total ? '!' : '|', (size_t)fill);
	buf[fill] = '\0';
	tui_put(l, cols, oom, x + 1, tui_level(allocated, total), buf, -1);
	memset(buf, ' ', (size_t)(inner - fill));
	buf[inner - fill] = '\0';
	tui_put(l, cols, oom, x + 1 + fill, TUI_ROLE_DIM, buf, -1);
	tui_put(l, cols, oom, x + 1 + inner, TUI_ROLE_DIM, "]", 1);
	free(buf);
	return x + width;
}

void tui_mem_readable(char *buf, size_t len, int64_t allocated, int64_t total, enum mem_unit unit)
{
	static const char *const bigger[] = { "MiB", "GiB", "TiB", "PiB", "EiB" };
	double a = (double)allocated, t = (double)total;
	size_t u;

	if (unit == UNIT_SLOTS || total < 10240) {
		snprintf(buf, len, "%lld/%lld %s", (long long)allocated, (long long)total, mem_unit_name(unit));
		return;
	}
	u = unit == UNIT_MIB ? 0 : 1;
	while (t >= 10240 && u + 1 < sizeof(bigger) / sizeof(bigger[0])) {
		a /= 1024;
		t /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f/%.1f %s", a, t, bigger[u]);
}

void tui_format_age(char *buf, size_t len, long long s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, len, "%llds", s);
	else if (s < 120 * 60)
		snprintf(buf, len, "%lldm", s / 60);
	else if (s < 48 * 3600)
		snprintf(buf, len, "%lldh", s / 3600);
	else
		snprintf(buf, len, "%lldd", s / 86400);
}

/* --- growable list of lines (the node pane, help) --------------------------- */


struct tui_line *tui_lines_add(struct tui_lines *ls)
{
	struct tui_line *v = kube_array_grow(ls->v, &ls->cap, ls->n + 1, sizeof(*v), 16);

	if (!v) {
		*ls->oom = true;
		return NULL;
	}
	ls->v = v;
	memset(&ls->v[ls->n], 0, sizeof(ls->v[0]));
	return &ls->v[ls->n++];
}

void tui_lines_release(struct tui_lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		tui_line_release(&ls->v[i]);
	free(ls->v);
	ls->v = NULL;
	ls->n = ls->cap = 0;
}

/* Move lines [from, from+count) of ls into the screen starting at row y. */
void tui_lines_blit(struct tui_screen *scr, struct tui_lines *ls, size_t from, int y, int count)
{
	for (int i = 0; i < count && from + (size_t)i < ls->n && y + i < scr->lines; i++) {
		tui_line_release(&scr->line[y + i]);
		scr->line[y + i] = ls->v[from + (size_t)i];
		memset(&ls->v[from + (size_t)i], 0, sizeof(ls->v[0]));
	}
}

size_t tui_scroll_clamp(size_t top, size_t n, int height)
{
	size_t h = height > 0 ? (size_t)height : 0;

	if (n <= h)
		return 0;
	return top > n - h ? n - h : top;
}

void tui_screen_release(struct tui_screen *scr)
{
	if (!scr)
		return;
	for (int i = 0; scr->line && i < scr->lines; i++)
		tui_line_release(&scr->line[i]);
	free(scr->line);
	scr->line = NULL;
}

char *tui_screen_line_text(const struct tui_screen *scr, int y)
{
	char *buf = NULL;
	size_t len = 0, end = 0;
	FILE *f;
	int col = 0;

	if (scr->cols <= 0 || !(f = open_memstream(&buf, &len)))
		return NULL;
	/* spans are laid out left to right; a span that would overlap the
	 * one before it is left out, as ncurses would overwrite it */
	if (scr->line && y >= 0 && y < scr->lines) {
		const struct tui_line *l = &scr->line[y];

		for (size_t i = 0; i < l->nspans; i++) {
			const struct tui_span *sp = &l->spans[i];

			if (sp->x < col || sp->x >= scr->cols)
				continue;
			for (; col < sp->x; col++)
				fputc(' ', f);
			fputs(sp->text, f);
			col += sp->width;
			fflush(f);
			end = len;
		}
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	while (end > 0 && buf[end - 1] == ' ')
		end--;
	buf[end] = '\0';
	return buf;
}

static int cmp_name_node(const void *key, const void *elem)
{
	return strcmp(key, ((const struct model_node *)elem)->name);
}

/* The model keeps its nodes sorted by name (model_finish). */
struct tui_line *tui_frame_row(struct tui_frame *f, int y)
{
	return y >= 0 && y < f->scr->lines ? &f->scr->line[y] : NULL;
}

const struct model_node *tui_find_node(const struct model *m, const char *name)
{
	if (!m || !m->nnodes || !name)
		return NULL;
	return bsearch(name, m->nodes, m->nnodes, sizeof(m->nodes[0]), cmp_name_node);
}
