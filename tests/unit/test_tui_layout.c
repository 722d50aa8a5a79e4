#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "tui_layout.h"
#include "tui_pane.h"

/* A model built by hand, as model_finish would leave it: nodes sorted by name. */
struct fixture {
	struct model m;
	struct model_node nodes[64];
	struct model_gpu gpus[64][8];
	struct model_pod pods[8];
	struct model_pod_gpu pod_gpus[8];
	size_t node_pods[64][8];
	struct kv labels[64][2];
	char names[64][32];
};

static struct fixture *fx;

static struct model_node *add_node(const char *name, const char *pool, int ngpus, int64_t per_gpu,
				   const int64_t *alloc)
{
	size_t i = fx->m.nnodes++;
	struct model_node *n = &fx->nodes[i];

	snprintf(fx->names[i], sizeof(fx->names[i]), "%s", name);
	n->name = fx->names[i];
	n->ip = "10.0.0.1";
	n->unit = UNIT_GIB;
	n->ready = true;
	n->info.per_gpu = true;
	/* a scheme, whose rule tells whether a waiting pod has room */
	n->scheme = schemes[0];
	n->pool = (char *)pool;
	n->gpus = fx->gpus[i];
	n->ngpus = ngpus;
	n->pods = fx->node_pods[i];
	fx->labels[i][0] = (struct kv){ .key = "gpu", .value = "on" };
	fx->labels[i][1] = (struct kv){ .key = "alibabacloud.com/nodepool-id", .value = (char *)(pool ? pool : "") };
	n->labels.items = fx->labels[i];
	n->labels.len = 2;
	for (int g = 0; g < ngpus; g++) {
		n->gpus[g] = (struct model_gpu){ .index = g, .mem_total = per_gpu, .mem_allocated = alloc ? alloc[g] : 0 };
		n->mem_total += per_gpu;
		n->mem_allocated += alloc ? alloc[g] : 0;
	}
	fx->m.totals.nodes++;
	fx->m.totals.gpus += (size_t)ngpus;
	fx->m.totals.mem_total += n->mem_total;
	fx->m.totals.mem_allocated += n->mem_allocated;
	if (ngpus > fx->m.max_gpus)
		fx->m.max_gpus = ngpus;
	return n;
}

/* A pod on GPU gpu (-1 = pending) of node n. */
static void add_pod(struct model_node *n, const char *ns, const char *name, int gpu, int64_t mem)
{
	size_t i = fx->m.npods++;
	struct model_pod *p = &fx->pods[i];

	p->namespace = (char *)ns;
	p->name = (char *)name;
	p->phase = "Running";
	p->node = n->name;
	p->scheme = n->scheme;
	p->mem = mem;
	p->gpus = &fx->pod_gpus[i];
	p->ngpus = 1;
	fx->pod_gpus[i] = (struct model_pod_gpu){ .gpu = gpu, .mem = mem };
	n->pods[n->npods++] = i;
	if (gpu < 0) {
		n->mem_pending += mem;
		fx->m.totals.mem_unassigned += mem;
	} else {
		n->gpus[gpu].npods++;
	}
	fx->m.totals.pods++;
}

static void setup(void)
{
	fx = calloc(1, sizeof(*fx));
	fx->m.nodes = fx->nodes;
	fx->m.pods = fx->pods;
}

static void teardown(void)
{
	model_derived_release(&fx->m);
	free(fx);
}

TestSuite(tui_layout, .init = setup, .fini = teardown);

/* seed002: one 15 GiB node, two pods of 4 GiB on GPU0 */
static void seed002(void)
{
	static const int64_t alloc[] = { 8 };
	struct model_node *n = add_node("cn-hangzhou.192.168.2.167", NULL, 1, 15, alloc);

	n->ip = "192.168.2.167";
	add_pod(n, "default", "app-3g-v1-0", 0, 4);
	add_pod(n, "default", "app-3g-v1-1", 0, 4);
}

static void sync_rows(struct tui_state *s)
{
	const char **names;
	long n = tui_layout_rows(&fx->m, s, &names);
	struct tui_event ev = { .type = TUI_EV_ROWS, .rows = names, .nrows = (size_t)n };

	cr_assert_geq(n, 0);
	tui_reduce(s, &ev);
	free(names);
}

static void key(struct tui_state *s, int k)
{
	struct tui_event ev = { .type = TUI_EV_KEY, .key = k };

	tui_reduce(s, &ev);
	if (s->relayout)
		sync_rows(s);
}

/* A terminal of cols x lines showing the fixture's nodes. */
static void open_state(struct tui_state *s, int cols, int lines)
{
	tui_state_init(s, cols, lines);
	sync_rows(s);
}

/* Done with a screen and its text (screen_text). */
static void screen_done(char *text, struct tui_screen *scr)
{
	free(text);
	tui_screen_release(scr);
}

/* Lay out the hand-built model, its derived figures first, as model_finish
 * would leave them. */
static int layout(struct tui_screen *scr, const struct tui_state *s, const struct tui_status *st)
{
	model_derive(&fx->m);
	return tui_layout_screen(scr, s, &fx->m, st);
}

/* Lay out and return the whole screen as text, one '\n' per line. */
static char *screen_text(struct tui_state *s, const struct tui_status *st, struct tui_screen *scr)
{
	char *all = calloc(1, 1);
	size_t len = 0;

	cr_assert_eq(layout(scr, s, st), 0);
	for (int y = 0; y < scr->lines; y++) {
		char *l = tui_screen_line_text(scr, y);

		cr_assert_not_null(l);
		cr_assert_leq(strlen(l), (size_t)s->cols, "line %d wider than the screen: %s", y, l);
		all = realloc(all, len + strlen(l) + 2);
		memcpy(all + len, l, strlen(l));
		len += strlen(l);
		all[len++] = '\n';
		all[len] = '\0';
		free(l);
	}
	return all;
}

static const struct tui_status status_ok = { .context = "admin", .age_s = 3, .mode = "watching" };

/* Lay out s and find want on the screen, and not absent (unless NULL). */
static void expect_screen(struct tui_state *s, const char *want, const char *absent)
{
	struct tui_screen scr;
	char *text = screen_text(s, &status_ok, &scr);

	cr_assert_not_null(strstr(text, want), "%s", text);
	if (absent)
		cr_assert_null(strstr(text, absent), "%s", text);
	screen_done(text, &scr);
}

Test(tui_layout, levels_follow_the_thresholds)
{
	cr_assert_eq(tui_level(0, 10), TUI_ROLE_LOW);
	cr_assert_eq(tui_level(4, 10), TUI_ROLE_LOW);
	cr_assert_eq(tui_level(49, 100), TUI_ROLE_LOW);
	cr_assert_eq(tui_level(50, 100), TUI_ROLE_MID);
	cr_assert_eq(tui_level(89, 100), TUI_ROLE_MID);
	cr_assert_eq(tui_level(90, 100), TUI_ROLE_HIGH);
	cr_assert_eq(tui_level(12, 10), TUI_ROLE_HIGH);
	cr_assert_eq(tui_level(0, 0), TUI_ROLE_DIM);
	cr_assert_eq(tui_level(3, 0), TUI_ROLE_HIGH);
}

Test(tui_layout, percent_truncates_and_bars_round_down)
{
	cr_assert_eq(column_percent(2, 7), 28);
	cr_assert_eq(column_percent(8, 15), 53);
	cr_assert_eq(column_percent(5, 0), 0);
	{
		char buf[32];

		cr_assert_str_eq(column_use_text(buf, 8, 15, true), "53%");
		cr_assert_str_eq(column_use_text(buf, 20, 16, true), "125%");
		cr_assert_str_eq(column_use_text(buf, 0, 0, true), "0%");
		cr_assert_str_eq(column_use_text(buf, 2, 0, true), "over", "allocations on a total of 0: over-allocated");
	}
	cr_assert_eq(tui_bar_fill(0, 15, 10), 0);
	cr_assert_eq(tui_bar_fill(1, 1000, 10), 1, "any allocation shows");
	cr_assert_eq(tui_bar_fill(8, 15, 10), 5);
	cr_assert_eq(tui_bar_fill(15, 15, 10), 10);
	cr_assert_eq(tui_bar_fill(20, 15, 10), 10);
	cr_assert_eq(tui_bar_fill(3, 15, 0), 0);
	cr_assert_str_eq(mem_unit_name(UNIT_MIB), "MiB");
}

Test(tui_layout, filter_by_substring_label_or_pool)
{
	struct model_node *n = add_node("gpu-a-1", "np-1", 1, 15, NULL);

	cr_assert(tui_node_matches(n, NULL));
	cr_assert(tui_node_matches(n, ""));
	cr_assert(tui_node_matches(n, "a-1"));
	cr_assert(tui_node_matches(n, "np-"), "pool substring");
	cr_assert(tui_node_matches(n, "gpu=on"));
	cr_assert(tui_node_matches(n, "pool=np-1"));
	cr_assert(tui_node_matches(n, "alibabacloud.com/nodepool-id=np-1"));
	cr_assert_not(tui_node_matches(n, "gpu=off"));
	cr_assert_not(tui_node_matches(n, "pool=np"));
	cr_assert_not(tui_node_matches(n, "zzz"));
}

Test(tui_layout, rows_sort_filter_and_group)
{
	static const int64_t a_alloc[] = { 14 }, b_alloc[] = { 2 }, c_alloc[] = { 8 };
	struct tui_state s;
	const char **r;
	long n;
	struct model_node *c;

	add_node("a", "p2", 1, 15, a_alloc);
	add_node("b", "p1", 1, 30, b_alloc);
	c = add_node("c", "p1", 1, 15, c_alloc);
	add_pod(c, "default", "waiting", -1, 3);
	tui_state_init(&s, 80, 24);

	n = tui_layout_rows(&fx->m, &s, &r);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(r[0], "a");
	cr_assert_str_eq(r[2], "c");
	free(r);

	s.sort = TUI_SORT_ALLOC;
	n = tui_layout_rows(&fx->m, &s, &r);
	cr_assert_str_eq(r[0], "a"); /* 93% */
	cr_assert_str_eq(r[1], "c"); /* 53% */
	cr_assert_str_eq(r[2], "b"); /* 6% */
	free(r);

	s.sort = TUI_SORT_FREE;
	n = tui_layout_rows(&fx->m, &s, &r);
	cr_assert_str_eq(r[0], "b"); /* 28 free */
	cr_assert_str_eq(r[1], "c"); /* 7 */
	cr_assert_str_eq(r[2], "a"); /* 1 */
	free(r);

	s.sort = TUI_SORT_PENDING;
	n = tui_layout_rows(&fx->m, &s, &r);
	cr_assert_str_eq(r[0], "c");
	cr_assert_str_eq(r[1], "a", "ties by name");
	free(r);

	s.sort = TUI_SORT_NAME;
	s.group_pools = true;
	n = tui_layout_rows(&fx->m, &s, &r);
	cr_assert_str_eq(r[0], "b");
	cr_assert_str_eq(r[1], "c");
	cr_assert_str_eq(r[2], "a");
	free(r);

	s.filter = strdup("p1");
	n = tui_layout_rows(&fx->m, &s, &r);
	cr_assert_eq(n, 2);
	free(r);
	free(s.filter);
	s.filter = strdup("nomatch");
	n = tui_layout_rows(&fx->m, &s, &r);
	cr_assert_eq(n, 0);
	free(r);
	tui_state_release(&s);
}

Test(tui_layout, screen_80x24_shows_the_cluster)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	seed002();
	open_state(&s, 80, 24);
	text = screen_text(&s, &status_ok, &scr);
	cr_assert_not_null(strstr(text, "cgpu top  context admin  sort name"), "%s", text);
	cr_assert_not_null(strstr(text, "8/15 GiB (53%)"), "%s", text);
	cr_assert_not_null(strstr(text, "nodes 1  GPUs 1  pods 2  pending 0"), "%s", text);
	cr_assert_not_null(strstr(text, "NODE"), "%s", text);
	cr_assert_not_null(strstr(text, "MEMORY(GiB)"), "%s", text);
	cr_assert_not_null(strstr(text, "cn-hangzhou.192.168.2.167 ["), "%s", text);
	cr_assert_not_null(strstr(text, "       8/15  53%"), "%s", text);
	cr_assert_not_null(strstr(text, "data 3s old, watching"), "%s", text);
	cr_assert_not_null(strstr(text, "?:help q:quit"), "%s", text);
	cr_assert_null(strstr(text, "app-3g-v1-0"), "no pane at 24 lines");
	cr_assert(scr.line[4].selected, "the first node is highlighted");
	cr_assert_eq(scr.line[3].fill, TUI_ROLE_HEADER);
	cr_assert_eq(scr.page, 19);
	screen_done(text, &scr);
	tui_state_release(&s);
}

Test(tui_layout, allocations_on_a_total_of_zero_show_as_over_allocated)
{
	static const int64_t alloc[] = { 2 };
	struct tui_state s;

	add_node("zero", NULL, 1, 0, alloc);
	open_state(&s, 80, 24);
	expect_screen(&s, "2/0 over", "  0%");
	/* an over-allocated bar is drawn apart */
	expect_screen(&s, "[!", "[|");
	tui_state_release(&s);
}

Test(tui_layout, bars_are_coloured_by_level)
{
	static const int64_t alloc[] = { 1, 8, 14 };
	struct tui_state s;
	struct tui_screen scr;
	const struct tui_line *l;
	int low = 0, mid = 0, high = 0;

	add_node("n", NULL, 3, 15, alloc);
	open_state(&s, 120, 24);
	cr_assert_eq(layout(&scr, &s, &status_ok), 0);
	l = &scr.line[4];
	for (size_t i = 0; i < l->nspans; i++) {
		if (l->spans[i].text[0] != '|')
			continue;
		low += l->spans[i].role == TUI_ROLE_LOW;
		mid += l->spans[i].role == TUI_ROLE_MID;
		high += l->spans[i].role == TUI_ROLE_HIGH;
	}
	cr_assert_eq(low, 1);
	cr_assert_eq(mid, 1);
	cr_assert_eq(high, 1);
	tui_screen_release(&scr);
	tui_state_release(&s);
}

Test(tui_layout, large_terminal_shows_the_selected_node_pane)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	seed002();
	add_node("other", NULL, 2, 15, NULL);
	open_state(&s, 200, 50);
	text = screen_text(&s, &status_ok, &scr);
	cr_assert_not_null(strstr(text, "node cn-hangzhou.192.168.2.167  ip 192.168.2.167"), "%s", text);
	cr_assert_not_null(strstr(text, "GPU0  ["), "%s", text);
	cr_assert_not_null(strstr(text, "default/app-3g-v1-0"), "%s", text);
	cr_assert_not_null(strstr(text, "default/app-3g-v1-1"), "%s", text);
	screen_done(text, &scr);
	key(&s, 'j');
	text = screen_text(&s, &status_ok, &scr);
	cr_assert_not_null(strstr(text, "node other"), "%s", text);
	cr_assert_not_null(strstr(text, "no pods hold GPU resources"), "%s", text);
	screen_done(text, &scr);
	tui_state_release(&s);
}

Test(tui_layout, node_view_lists_pods_under_their_gpu_and_pending)
{
	static const int64_t alloc[] = { 0, 6 };
	struct tui_state s;
	struct tui_screen scr;
	struct model_node *n;
	char *text, *g1, *pod, *pend, *waiting;

	n = add_node("two", NULL, 2, 11178, alloc);
	n->unit = UNIT_MIB;
	add_pod(n, "ml", "trainer", 1, 6);
	add_pod(n, "ml", "waiting", -1, 3);
	open_state(&s, 80, 24);
	key(&s, TUI_KEY_ENTER);
	text = screen_text(&s, &status_ok, &scr);
	g1 = strstr(text, "GPU1");
	pod = strstr(text, "ml/trainer");
	pend = strstr(text, "pending (no GPU chosen yet)");
	waiting = strstr(text, "ml/waiting");
	cr_assert(g1 && pod && pend && waiting, "%s", text);
	cr_assert(g1 < pod && pod < pend && pend < waiting, "%s", text);
	cr_assert_not_null(strstr(text, "6/11178 MiB"), "%s", text);
	cr_assert_not_null(strstr(text, "pending 1"), "pods without a GPU counted: %s", text);
	cr_assert_not_null(strstr(text, "\n      why: on node two, waiting for its GPU to be chosen\n"),
			   "the reason fit gives, under the pod: %s", text);
	cr_assert(waiting < strstr(text, "why:"), "%s", text);
	screen_done(text, &scr);
	tui_state_release(&s);
}

Test(tui_layout, node_view_scroll_is_clamped)
{
	struct tui_state s;
	struct tui_screen scr;
	struct tui_event ev;

	seed002();
	open_state(&s, 80, 24);
	key(&s, TUI_KEY_ENTER);
	for (int i = 0; i < 30; i++)
		key(&s, 'j');
	cr_assert_eq(layout(&scr, &s, &status_ok), 0);
	cr_assert_eq(scr.detail_top, 0, "a short pane does not scroll");
	ev = (struct tui_event){ .type = TUI_EV_SCROLL, .top = scr.top, .detail_top = scr.detail_top };
	tui_reduce(&s, &ev);
	cr_assert_eq(s.detail_top, 0);
	tui_screen_release(&scr);
	tui_state_release(&s);
}

Test(tui_layout, scroll_stops_at_the_last_screenful)
{
	cr_assert_eq(tui_scroll_clamp(5, 10, 20), 0, "all of it fits");
	cr_assert_eq(tui_scroll_clamp(5, 20, 20), 0);
	cr_assert_eq(tui_scroll_clamp(30, 50, 20), 30);
	cr_assert_eq(tui_scroll_clamp(45, 50, 20), 30, "never past the last screenful");
}

Test(tui_layout, long_list_scrolls_to_keep_the_selection_visible)
{
	struct tui_state s;
	struct tui_screen scr;
	char name[16], *text;

	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "node-%02d", i);
		add_node(name, NULL, 1, 15, NULL);
	}
	open_state(&s, 80, 24);
	for (int i = 0; i < 30; i++)
		key(&s, 'j');
	cr_assert_eq(layout(&scr, &s, &status_ok), 0);
	cr_assert_eq(scr.top, 30 - 19 + 1, "the selection sits on the last visible row");
	cr_assert(scr.line[23 - 1].selected);
	text = tui_screen_line_text(&scr, 22);
	cr_assert(strncmp(text, "node-30 ", 8) == 0, "%s", text);
	free(text);
	s.top = scr.top;
	tui_screen_release(&scr);
	key(&s, TUI_KEY_END);
	cr_assert_eq(layout(&scr, &s, &status_ok), 0);
	cr_assert_eq(scr.top, 60 - 19);
	s.top = scr.top;
	tui_screen_release(&scr);
	key(&s, TUI_KEY_HOME);
	cr_assert_eq(layout(&scr, &s, &status_ok), 0);
	cr_assert_eq(scr.top, 0);
	tui_screen_release(&scr);
	tui_state_release(&s);
}

Test(tui_layout, pool_headings_when_grouped)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text, *p1, *p2;

	add_node("a", "p2", 1, 15, NULL);
	add_node("b", "p1", 1, 15, NULL);
	add_node("c", "p1", 1, 15, NULL);
	add_node("d", NULL, 1, 15, NULL);
	open_state(&s, 80, 24);
	key(&s, 'p');
	text = screen_text(&s, &status_ok, &scr);
	p1 = strstr(text, "pool p1: 2 nodes");
	p2 = strstr(text, "pool p2: 1 node, 1 GPU, 0 pods, memory 0/15 GiB (0%)\n");
	cr_assert(p1 && p2 && p1 < p2, "%s", text);
	cr_assert_not_null(strstr(text, "pool (no pool): 1 node"), "%s", text);
	cr_assert_not_null(strstr(text, "pool p1: 2 nodes, 2 GPUs, 0 pods, memory 0/30 GiB (0%)"), "%s", text);
	cr_assert_not_null(strstr(text, "by pool"), "%s", text);
	cr_assert(scr.line[8].selected, "the selection follows node a into its group: %s", text);
	cr_assert_not(scr.line[7].selected);
	screen_done(text, &scr);
	tui_state_release(&s);
}

Test(tui_layout, many_gpus_fit_in_80_columns)
{
	static const int64_t alloc[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct tui_state s;

	add_node("cn-shanghai.i-uf61h64dz1tmlob9hmtb-long-name", NULL, 8, 11178, alloc);
	open_state(&s, 80, 24);
	expect_screen(&s, " 36/89424 ", NULL); /* asserts every line fits */
	/* the unit in each row when nodes disagree */
	fx->m.totals.mixed_units = true;
	expect_screen(&s, " 36/89424 GiB ", NULL);
	tui_state_release(&s);
}

Test(tui_layout, outside_text_is_made_printable)
{
	struct tui_state s;

	add_node("evil\x1b[2Jname", NULL, 1, 15, NULL);
	open_state(&s, 80, 24);
	expect_screen(&s, "evil\\x1b[2Jname", "\x1b");
	tui_state_release(&s);
}

Test(tui_layout, status_line_shows_errors_loading_and_the_prompt)
{
	struct tui_state s;
	struct tui_screen scr;
	struct tui_status st = { .age_s = 12, .error = "connection refused", .mode = "polling every 1s" };
	char *text;

	seed002();
	open_state(&s, 80, 24);
	text = screen_text(&s, &st, &scr);
	cr_assert_not_null(strstr(text, "data 12s old, polling every 1s  error: connection refused"), "%s", text);
	cr_assert_eq(scr.cursor_y, -1);
	screen_done(text, &scr);

	key(&s, '/');
	key(&s, 'x');
	text = screen_text(&s, &st, &scr);
	cr_assert_not_null(strstr(text, "\nfilter: x\n"), "%s", text);
	cr_assert_eq(scr.cursor_y, 23);
	cr_assert_eq(scr.cursor_x, 9);
	screen_done(text, &scr);

	st = (struct tui_status){ .loading = true, .age_s = -1 };
	key(&s, TUI_KEY_ESC);
	cr_assert_eq(tui_layout_screen(&scr, &s, NULL, &st), 0);
	text = tui_screen_line_text(&scr, 3);
	cr_assert_str_eq(text, " reading nodes and pods...");
	free(text);
	text = tui_screen_line_text(&scr, 23);
	cr_assert(strncmp(text, "loading...", 10) == 0, "%s", text);
	screen_done(text, &scr);
	tui_state_release(&s);
}

Test(tui_layout, help_and_tiny_terminals)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	seed002();
	open_state(&s, 80, 24);
	key(&s, '?');
	text = screen_text(&s, &status_ok, &scr);
	cr_assert_not_null(strstr(text, "group nodes by pool"), "%s", text);
	cr_assert_not_null(strstr(text, "sort: name, allocated %, free memory, pending"), "%s", text);
	screen_done(text, &scr);
	tui_state_release(&s);

	tui_state_init(&s, 10, 3);
	cr_assert_eq(layout(&scr, &s, &status_ok), 0);
	text = tui_screen_line_text(&scr, 0);
	cr_assert_str_eq(text, "terminal t");
	screen_done(text, &scr);
	tui_state_release(&s);
}

Test(tui_layout, narrow_screen_keeps_headers_whole_and_names_distinct)
{
	static const int64_t alloc[] = { 8, 3, 4, 7 };
	static const char *const names[] = { "cn-shanghai.192.168.7.157", "cn-shanghai.192.168.7.158",
					     "cn-shanghai.192.168.7.159", "cn-shanghai.192.168.7.160" };
	struct tui_state s;
	struct tui_screen scr;

	for (int i = 0; i < 4; i++)
		add_node(names[i], NULL, 4, 11, alloc);
	for (int cols = 40; cols < 80; cols += 3) {
		char *text, *header, *hit;
		char shown[4][64];

		open_state(&s, cols, 24);
		text = screen_text(&s, &status_ok, &scr);
		header = tui_screen_line_text(&scr, 3);
		/* every header there is whole, and they stand apart */
		cr_assert_not_null(strstr(header, "NODE"), "%d: %s", cols, header);
		for (const char *const *h = (const char *const[]){ "GPU", "MEMORY(GiB)", "USE%", "PODS", NULL }; *h; h++) {
			hit = strstr(header, *h);
			if (hit && hit > header)
				cr_assert_eq(hit[-1], ' ', "%d: header %s run into another: %s", cols, *h, header);
		}
		cr_assert_null(strstr(header, "MEMEMORY"), "%d: %s", cols, header);
		/* the four names stay four different names */
		for (int i = 0; i < 4; i++) {
			char *l = tui_screen_line_text(&scr, 4 + i);

			sscanf(l, "%63s", shown[i]);
			free(l);
		}
		for (int i = 0; i < 4; i++)
			for (int k = i + 1; k < 4; k++)
				cr_assert_str_neq(shown[i], shown[k], "%d columns:\n%s", cols, text);
		free(header);
		screen_done(text, &scr);
		tui_state_release(&s);
	}
}

Test(tui_layout, units_next_to_figures_ages_and_readable_totals)
{
	struct tui_state s;
	struct tui_screen scr;
	struct tui_status st = status_ok;
	char *text, buf[64];

	tui_mem_readable(buf, sizeof(buf), 25657640, 51315280, UNIT_MIB);
	cr_assert_str_eq(buf, "24.5/48.9 TiB");
	tui_mem_readable(buf, sizeof(buf), 36, 89, UNIT_GIB);
	cr_assert_str_eq(buf, "36/89 GiB");
	tui_format_age(buf, sizeof(buf), 45);
	cr_assert_str_eq(buf, "45s");
	tui_format_age(buf, sizeof(buf), 2781 * 60);
	cr_assert_str_eq(buf, "46h");
	tui_format_age(buf, sizeof(buf), 3 * 86400 + 5);
	cr_assert_str_eq(buf, "3d");

	seed002();
	open_state(&s, 80, 24);
	st.age_s = 2781 * 60;
	text = screen_text(&s, &st, &scr);
	cr_assert_not_null(strstr(text, "data 46h old"), "%s", text);
	cr_assert_not_null(strstr(text, "PENDING(GiB)"), "the pending column is memory: %s", text);
	screen_done(text, &scr);
	tui_state_release(&s);
}

Test(tui_layout, w_shows_the_warnings_the_header_counts)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	seed002();
	warnings_add(&fx->m.warnings, "OverAllocated", "node/cn-hangzhou.192.168.2.167", "more memory allocated than the GPUs have");
	warnings_add(&fx->m.warnings, "PodOnUnknownGPU", "pod/default/x\x1b[2J", "names GPU 7");
	open_state(&s, 80, 24);
	text = screen_text(&s, &status_ok, &scr);
	cr_assert_not_null(strstr(text, "warnings 2 (w)"), "%s", text);
	screen_done(text, &scr);
	key(&s, 'w');
	text = screen_text(&s, &status_ok, &scr);
	cr_assert_not_null(strstr(text, "2 warnings"), "%s", text);
	cr_assert_not_null(strstr(text, "OverAllocated node/cn-hangzhou.192.168.2.167: more memory"), "%s", text);
	cr_assert_not_null(strstr(text, "PodOnUnknownGPU pod/default/x\\x1b[2J: names GPU 7"), "%s", text);
	screen_done(text, &scr);
	key(&s, TUI_KEY_ESC);
	cr_assert_eq(s.view, TUI_VIEW_NODES);
	warnings_release(&fx->m.warnings);
	tui_state_release(&s);
}

Test(tui_layout, status_and_largest_free_when_the_bars_keep_their_room)
{
	static const int64_t alloc[] = { 10, 4 };
	struct tui_state s;
	struct tui_screen scr;
	struct model_node *n;
	char *text, *header, *line;

	/* in name order, as the model keeps them */
	n = add_node("cordoned", NULL, 2, 16, NULL);
	n->unschedulable = true;
	n = add_node("down", NULL, 2, 16, alloc);
	n->ready = false;
	n->gpus[1].unhealthy = true;
	add_node("ok", NULL, 2, 16, alloc);
	open_state(&s, 120, 24);
	text = screen_text(&s, &status_ok, &scr);
	header = tui_screen_line_text(&scr, 3);
	cr_assert_not_null(strstr(header, "PENDING(GiB) STATUS"), "%s", header);
	cr_assert_not_null(strstr(header, " MAXFREE/GPU(GiB)"), "%s", header);
	/* -o wide's words, and the largest free on one usable GPU */
	line = tui_screen_line_text(&scr, 4);
	cr_assert_not_null(strstr(line, " Ready,SchedulingDisabled "), "%s", line);
	cr_assert(line[strlen(line) - 3] == ' ' && strcmp(line + strlen(line) - 2, "16") == 0, "%s", line);
	free(line);
	line = tui_screen_line_text(&scr, 5);
	cr_assert_not_null(strstr(line, " NotReady,1 GPU unhealthy "), "%s", line);
	cr_assert(strcmp(line + strlen(line) - 2, " 6") == 0, "the unhealthy GPU is not offered: %s", line);
	free(line);
	line = tui_screen_line_text(&scr, 6);
	cr_assert(strcmp(line + strlen(line) - 3, " 12") == 0, "%s", line);
	free(line);
	cr_assert_eq(scr.line[5].spans[scr.line[5].nspans - 2].role, TUI_ROLE_HIGH, "a node that takes no pods");
	/* the header's figures: what one GPU of a node that takes pods can get */
	cr_assert_not_null(strstr(text, "pending 0  largest fit 12 GiB (1 GPU)  cannot take pods 50 GiB (2 nodes)"),
			   "%s", text);
	free(header);
	screen_done(text, &scr);
	tui_state_release(&s);

	/* 80 columns: the bars keep their room; STATUS is left out, the
	 * narrower MAXFREE/GPU still fits, and so does a bar per GPU */
	open_state(&s, 80, 24);
	expect_screen(&s, "PENDING(GiB) MAXFREE/GPU(GiB)", "STATUS");
	expect_screen(&s, "ok       [|||   ] [|     ]", "SchedulingDisabled");
	/* a figure that does not fit whole is left out */
	expect_screen(&s, "largest fit 12 GiB (1 GPU)\n", "cannot take pods");
	tui_state_release(&s);
}

Test(tui_layout, u_lists_the_pending_pods_with_their_reasons)
{
	static const int64_t alloc[] = { 6, 0 };
	struct tui_state s;
	struct model_node *n;

	n = add_node("two", NULL, 2, 16, alloc);
	add_pod(n, "ml", "trainer", 0, 6);
	add_pod(n, "ml", "waiting", -1, 3);
	open_state(&s, 80, 24);
	expect_screen(&s, "pending 1 (3 GiB without a GPU) (u)", NULL);
	key(&s, 'u');
	expect_screen(&s, "1 pending pod: not scheduled, or no GPU chosen yet (u or Esc: back)", NULL);
	/* a pod with its GPU does not wait */
	expect_screen(&s, "ml/waiting", "ml/trainer");
	expect_screen(&s, "why: on node two, waiting for its GPU to be chosen", NULL);
	key(&s, TUI_KEY_ESC);
	cr_assert_eq(s.view, TUI_VIEW_NODES);
	tui_state_release(&s);
}

Test(tui_layout, a_screen_laid_out_again_reads_the_same_until_something_shown_changes)
{
	struct tui_state s;
	struct tui_screen a, b;
	struct tui_status older = status_ok;

	seed002();
	open_state(&s, 80, 24);
	cr_assert_eq(layout(&a, &s, &status_ok), 0);
	cr_assert_eq(layout(&b, &s, &status_ok), 0);
	cr_assert(tui_screen_same(&a, &b), "nothing changed: nothing to draw");
	tui_screen_release(&b);

	/* one more GiB allocated on the GPU */
	fx->nodes[0].gpus[0].mem_allocated = 9;
	fx->nodes[0].mem_allocated = 9;
	fx->m.totals.mem_allocated = 9;
	cr_assert_eq(layout(&b, &s, &status_ok), 0);
	cr_assert_not(tui_screen_same(&a, &b), "the totals and the bar moved");
	tui_screen_release(&b);
	fx->nodes[0].gpus[0].mem_allocated = 8;
	fx->nodes[0].mem_allocated = 8;
	fx->m.totals.mem_allocated = 8;

	older.age_s = 4;
	cr_assert_eq(layout(&b, &s, &older), 0);
	cr_assert_not(tui_screen_same(&a, &b), "the age on the status line");
	tui_screen_release(&b);

	key(&s, 'j');
	key(&s, TUI_KEY_ENTER);
	cr_assert_eq(layout(&b, &s, &status_ok), 0);
	cr_assert_not(tui_screen_same(&a, &b), "the node's pane opened");
	tui_screen_release(&b);
	tui_screen_release(&a);
	tui_state_release(&s);
}

/* Every word of want appears on the screen, in order, whatever the lines
 * it was wrapped onto: nothing the user needs was cut. */
static void expect_words(const char *screen, const char *want)
{
	char *flat = strdup(screen), *w = strdup(want), *save = NULL;
	const char *at = flat;

	for (char *c = flat; *c; c++)
		if (*c == '\n')
			*c = ' ';
	for (char *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		const char *hit = strstr(at, t);

		cr_assert_not_null(hit, "\"%s\" of \"%s\" is missing:\n%s", t, want, screen);
		at = hit + strlen(t);
	}
	free(flat);
	free(w);
}

Test(tui_layout, nothing_cut_at_80_or_60_columns)
{
	static const int64_t alloc[] = { 8 };
	static const char *const help_words[] = {
		"filter nodes: key=value (a label, pool=NAME, cluster=NAME) or a substring",
		"Bars show allocated/total GPU memory: green below 50%, yellow below 90%, red above.",
		"cannot take pods: free memory on NotReady or cordoned nodes, never offered.",
	};
	struct model_node *n = add_node("cn-hangzhou.192.168.2.167", NULL, 1, 15, alloc);
	struct tui_status st = status_ok;
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	add_pod(n, "default", "app-3g-v1-0", 0, 4);
	add_pod(n, "default", "waiting-0", -1, 5);
	fx->m.totals.core_total = 500;
	fx->m.totals.core_allocated = 135;
	fx->m.any_core = true;
	warnings_add(&fx->m.warnings, "OverAllocated", "node/cn-hangzhou.192.168.2.167",
		     "GPU0 has 20/16 GiB allocated, more than it offers, which a long message must not lose at the edge");
	st.error = "Unable to connect to the server: net/http: TLS handshake timeout while listing the nodes again";
	for (int cols = 80; cols >= 60; cols -= 20) {
		/* tall enough for the whole help: only the width is at stake */
		open_state(&s, cols, 40);
		text = screen_text(&s, &st, &scr);
		/* the header: the compute figure whole or shorter, the keys kept */
		cr_assert(strstr(text, "compute 135/500% (27%)") || strstr(text, "compute 27%"), "%s", text);
		cr_assert_not_null(strstr(text, "(u)"), "%d columns:\n%s", cols, text);
		cr_assert_not_null(strstr(text, "(w)"), "%d columns:\n%s", cols, text);
		expect_words(text, st.error);
		screen_done(text, &scr);
		key(&s, '?');
		text = screen_text(&s, &st, &scr);
		for (size_t i = 0; i < sizeof(help_words) / sizeof(help_words[0]); i++)
			expect_words(text, help_words[i]);
		screen_done(text, &scr);
		key(&s, '?');
		key(&s, 'w');
		text = screen_text(&s, &st, &scr);
		expect_words(text, fx->m.warnings.items[0].message);
		screen_done(text, &scr);
		tui_state_release(&s);
	}
	warnings_release(&fx->m.warnings);
}
