/* The live view's building blocks and its node pane: see tui_pane.h. */
#include "tui_pane.h"

#include "columns.h"
#include "termsafe.h"
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tui_line_release(struct tui_line *l)
{
	for (size_t i = 0; i < l->nspans; i++)
		free(l->spans[i].text);
	free(l->spans);
	memset(l, 0, sizeof(*l));
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
	char *e = screen_text(text, utf8);
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

char *tui_mem_text(int64_t allocated, int64_t total, enum mem_unit unit)
{
	char *s = NULL;

	if (asprintf(&s, "%lld/%lld %s", (long long)allocated, (long long)total, mem_unit_name(unit)) < 0)
		return NULL;
	return s;
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

/* --- the selected node's GPUs and pods ---------------------------------------- */

bool tui_pod_pending(const struct model_pod *p)
{
	for (size_t k = 0; k < p->ngpus; k++)
		if (p->gpus[k].gpu < 0)
			return true;
	return false;
}

static void tui_pod_line(struct tui_lines *ls, const struct model_pod *p, int64_t mem, int64_t core,
			 enum mem_unit unit, bool show_core)
{
	struct tui_line *l = tui_lines_add(ls);
	int cols = ls->cols, x, w;

	if (!l)
		return;
	/* names up to the usual pod name length line up; longer ones are cut */
	w = cols - 4 - 12 - (show_core ? 6 : 0) - 11;
	if (w > 48)
		w = 48;
	if (w < 12)
		w = 12;
	x = tui_putf(l, cols, ls->oom, 4, TUI_ROLE_NORMAL, w, "%s/%s", p->namespace ? p->namespace : "",
		 p->name ? p->name : "");
	x = 4 + w + 1;
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "%7lld %-5s", (long long)mem, mem_unit_name(unit));
	if (show_core)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, " %4lld%%", (long long)core);
	tui_put(l, cols, ls->oom, x + 1, TUI_ROLE_DIM, p->phase ? p->phase : "", -1);
}

/* Why the pod waits, under its line: the words of -d's "Why pending",
 * broken between its reasons ("; ") where a line would run off the screen. */
static void tui_pod_reason(struct tui_lines *ls, const struct model *m, const struct model_pod *p)
{
	const char *part = p->pending_reason, *next;
	struct tui_line *l = NULL;
	int x = 0;

	for (; part && *part; part = next) {
		const char *semi = strstr(part, "; ");
		int len = semi ? (int)(semi - part) : (int)strlen(part);

		next = semi ? semi + 2 : part + len;
		if (!l || x + 2 + len > ls->cols) {
			bool first = !l;

			if (!(l = tui_lines_add(ls)))
				break;
			/* later lines line up under the first reason */
			x = first ? tui_put(l, ls->cols, ls->oom, 6, TUI_ROLE_MID, "why:", -1) + 1 : 11;
		} else {
			x = tui_put(l, ls->cols, ls->oom, x, TUI_ROLE_MID, ";", -1) + 1;
		}
		x = tui_putf(l, ls->cols, ls->oom, x, TUI_ROLE_MID, -1, "%.*s", len, part);
	}
}

bool tui_pod_waits(const struct model_pod *p)
{
	return !p->node || tui_pod_pending(p);
}

size_t tui_pending_pods(const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->npods; i++)
		n += tui_pod_waits(&m->pods[i]);
	return n;
}

void tui_pending_pane(struct tui_lines *ls, const struct model *m)
{
	size_t n = tui_pending_pods(m);
	struct tui_line *l;

	if (!(l = tui_lines_add(ls)))
		return;
	tui_putf(l, ls->cols, ls->oom, 0, TUI_ROLE_HEADER, -1, "%zu pending pod%s: not scheduled, or no GPU chosen yet (u or Esc: back)",
		 n, n == 1 ? "" : "s");
	for (size_t i = 0; i < m->npods; i++) {
		const struct model_pod *p = &m->pods[i];

		if (!tui_pod_waits(p))
			continue;
		tui_pod_line(ls, p, p->mem, p->core, p->unit, p->core > 0);
		tui_pod_reason(ls, m, p);
	}
	if (!n && (l = tui_lines_add(ls)))
		tui_put(l, ls->cols, ls->oom, 1, TUI_ROLE_DIM, "none", -1);
}

void tui_node_pane(struct tui_lines *ls, const struct model *m, const struct model_node *n)
{
	int cols = ls->cols, x;
	char use[32];
	struct tui_line *l;
	bool show_core = n->core_total > 0;
	bool pending = false;
	int barw = tui_bar_width(cols);

	if (!(l = tui_lines_add(ls)))
		return;
	x = tui_putf(l, cols, ls->oom, 0, TUI_ROLE_TITLE, -1, "node %s", n->name);
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  ip %s", n->ip ? n->ip : "unknown");
	if (n->pool)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  pool %s", n->pool);
	if (n->scheme)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  scheme %s", n->scheme->name);
	if (n->info.mode && strcmp(column_mode_name(n), n->info.mode) != 0)
		/* the label's own value too, for whoever reads the node's labels */
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  mode %s (%s)", column_mode_name(n), n->info.mode);
	else if (n->info.mode)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  mode %s", n->info.mode);
	if (n->gpu_model)
		tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  model %s", n->gpu_model);

	if (!(l = tui_lines_add(ls)))
		return;
	x = tui_put(l, cols, ls->oom, 0, TUI_ROLE_NORMAL, "memory ", -1);
	x = tui_put_bar(l, cols, ls->oom, x, barw, n->mem_allocated, n->mem_total);
	x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, " %lld/%lld %s (%s)", (long long)n->mem_allocated,
		 (long long)n->mem_total, mem_unit_name(n->unit), column_use_text(use, n->mem_allocated, n->mem_total, true));
	if (n->mem_pending)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  pending %lld", (long long)n->mem_pending);
	if (n->mem_unhealthy)
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_HIGH, -1, "  unhealthy %lld", (long long)n->mem_unhealthy);
	if (show_core)
		tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  core %lld/%lld%%", (long long)n->core_allocated,
		     (long long)n->core_total);

	for (int g = 0; n->gpus && g < n->ngpus; g++) {
		const struct model_gpu *gpu = &n->gpus[g];

		if (!(l = tui_lines_add(ls)))
			return;
		x = tui_putf(l, cols, ls->oom, 0, TUI_ROLE_HEADER, -1, "GPU%-2d ", gpu->index);
		x = tui_put_bar(l, cols, ls->oom, x, barw, gpu->mem_allocated, gpu->mem_total);
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, " %lld/%lld %s %s", (long long)gpu->mem_allocated,
			 (long long)gpu->mem_total, mem_unit_name(n->unit),
			 column_use_text(use, gpu->mem_allocated, gpu->mem_total, true));
		if (gpu->core_total)
			x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_NORMAL, -1, "  core %lld/%lld%%",
				 (long long)gpu->core_allocated, (long long)gpu->core_total);
		x = tui_putf(l, cols, ls->oom, x, TUI_ROLE_DIM, -1, "  %zu pod%s", gpu->npods, gpu->npods == 1 ? "" : "s");
		if (gpu->unhealthy)
			x = tui_put(l, cols, ls->oom, x, TUI_ROLE_HIGH, "  unhealthy", -1);
		if (gpu->cordoned)
			x = tui_put(l, cols, ls->oom, x, TUI_ROLE_MID, "  cordoned", -1);
		if (gpu->type)
			tui_putf(l, cols, ls->oom, x, TUI_ROLE_DIM, -1, "  %s", gpu->type);
		if (m->usage.configured) {
			/* memory in use beside the allocation, against the card */
			enum mem_unit u = n->unit == UNIT_SLOTS ? UNIT_GIB : n->unit;
			int64_t total = gpu->total_known ? gpu->total_bytes : usage_unit_bytes(gpu->mem_total, n->unit);
			char a[32], b[32];
			struct tui_line *ul = tui_lines_add(ls);
			int ux;

			if (!ul)
				return;
			ux = tui_put(ul, cols, ls->oom, 0, TUI_ROLE_DIM, " used ", -1);
			if (gpu->used_known) {
				ux = tui_put_bar(ul, cols, ls->oom, ux, barw, gpu->used_bytes, total);
				ux = tui_putf(ul, cols, ls->oom, ux, TUI_ROLE_NORMAL, -1, " %s/%s %s",
					      usage_format(a, sizeof(a), gpu->used_bytes, u),
					      usage_format(b, sizeof(b), total, u), mem_unit_name(u));
				if (gpu->util_known)
					tui_putf(ul, cols, ls->oom, ux, TUI_ROLE_DIM, -1, "  util %.0f%%", gpu->util);
			} else {
				tui_put(ul, cols, ls->oom, ux, TUI_ROLE_DIM, "unknown", -1);
			}
		}
		for (size_t i = 0; i < n->npods; i++) {
			const struct model_pod *p = &m->pods[n->pods[i]];

			for (size_t k = 0; k < p->ngpus; k++)
				if (p->gpus[k].gpu == gpu->index)
					tui_pod_line(ls, p, p->gpus[k].mem, p->gpus[k].core, n->unit, show_core);
		}
	}
	for (size_t i = 0; i < n->npods; i++)
		pending = pending || tui_pod_pending(&m->pods[n->pods[i]]) || !n->gpus;
	if (pending) {
		if (!(l = tui_lines_add(ls)))
			return;
		tui_put(l, cols, ls->oom, 0, TUI_ROLE_HEADER,
		    n->gpus ? "pending (no GPU chosen yet)" : "pods (per-GPU placement not visible for this scheme)", -1);
		for (size_t i = 0; i < n->npods; i++) {
			const struct model_pod *p = &m->pods[n->pods[i]];
			int64_t mem = 0, core = 0;

			if (!n->gpus) {
				tui_pod_line(ls, p, p->mem, p->core, n->unit, show_core);
				continue;
			}
			for (size_t k = 0; k < p->ngpus; k++) {
				if (p->gpus[k].gpu < 0) {
					mem += p->gpus[k].mem;
					core += p->gpus[k].core;
				}
			}
			if (!tui_pod_pending(p))
				continue;
			tui_pod_line(ls, p, mem, core, n->unit, show_core);
			tui_pod_reason(ls, m, p);
		}
	}
	if (n->npods == 0 && (l = tui_lines_add(ls)))
		tui_put(l, cols, ls->oom, 4, TUI_ROLE_DIM, "no pods hold GPU resources on this node", -1);
}
