#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tui_state.h"

static void key(struct tui_state *s, int k)
{
	struct tui_event ev = { .type = TUI_EV_KEY, .key = k };

	tui_reduce(s, &ev);
}

/* The same key, times times. */
static void press(struct tui_state *s, int k, int times)
{
	while (times-- > 0)
		key(s, k);
}

static void keys(struct tui_state *s, const char *text)
{
	for (; *text; text++)
		key(s, *text);
}

static void rows(struct tui_state *s, const char *const *names, size_t n)
{
	struct tui_event ev = { .type = TUI_EV_ROWS, .rows = names, .nrows = n };

	tui_reduce(s, &ev);
}

static const char *const abc[] = { "a", "b", "c", "d", "e" };

static struct tui_state st;

static void setup(void)
{
	tui_state_init(&st, 80, 24);
}

static void teardown(void)
{
	tui_state_release(&st);
}

TestSuite(tui_state, .init = setup, .fini = teardown);

Test(tui_state, starts_in_node_list_asking_for_rows)
{
	cr_assert_eq(st.view, TUI_VIEW_NODES);
	cr_assert(st.relayout);
	cr_assert(st.dirty);
	cr_assert_null(tui_state_selected(&st));
	rows(&st, abc, 5);
	cr_assert_not(st.relayout);
	cr_assert_str_eq(tui_state_selected(&st), "a");
}

Test(tui_state, q_and_interrupt_quit)
{
	key(&st, 'j');
	cr_assert_not(st.quit);
	key(&st, 'q');
	cr_assert(st.quit);
	tui_state_release(&st);
	tui_state_init(&st, 80, 24);
	key(&st, TUI_KEY_INTERRUPT);
	cr_assert(st.quit);
}

Test(tui_state, moves_and_clamps)
{
	rows(&st, abc, 5);
	key(&st, 'j');
	key(&st, TUI_KEY_DOWN);
	cr_assert_str_eq(tui_state_selected(&st), "c");
	key(&st, 'k');
	cr_assert_str_eq(tui_state_selected(&st), "b");
	press(&st, TUI_KEY_UP, 10);
	cr_assert_eq(st.sel, 0);
	press(&st, 'j', 10);
	cr_assert_eq(st.sel, 4);
	key(&st, TUI_KEY_HOME);
	cr_assert_eq(st.sel, 0);
	key(&st, TUI_KEY_END);
	cr_assert_str_eq(tui_state_selected(&st), "e");
}

Test(tui_state, page_keys_move_by_the_page)
{
	const char *many[40];
	char names[40][8];

	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "n%02d", i);
		many[i] = names[i];
	}
	rows(&st, many, 40);
	tui_state_set_page(&st, 15);
	key(&st, TUI_KEY_PGDN);
	cr_assert_eq(st.sel, 15);
	press(&st, TUI_KEY_PGDN, 2);
	cr_assert_eq(st.sel, 39);
	key(&st, TUI_KEY_PGUP);
	cr_assert_eq(st.sel, 24);
}

Test(tui_state, selection_follows_the_name_when_rows_reorder)
{
	static const char *const reordered[] = { "e", "d", "c", "b", "a" };

	rows(&st, abc, 5);
	key(&st, 'j'); /* b */
	rows(&st, reordered, 5);
	cr_assert_eq(st.sel, 3);
	cr_assert_str_eq(tui_state_selected(&st), "b");
}

Test(tui_state, selection_stays_in_place_when_its_node_goes)
{
	static const char *const without_c[] = { "a", "b", "d", "e" };
	static const char *const only_a[] = { "a" };

	rows(&st, abc, 5);
	key(&st, 'j');
	key(&st, 'j'); /* c */
	rows(&st, without_c, 4);
	cr_assert_eq(st.sel, 2);
	cr_assert_str_eq(tui_state_selected(&st), "d");
	rows(&st, only_a, 1);
	cr_assert_str_eq(tui_state_selected(&st), "a");
	rows(&st, NULL, 0);
	cr_assert_null(tui_state_selected(&st));
	key(&st, 'j');
	key(&st, TUI_KEY_ENTER);
	cr_assert_eq(st.view, TUI_VIEW_NODES, "nothing to open in an empty list");
}

Test(tui_state, enter_opens_the_node_and_esc_or_backspace_go_back)
{
	rows(&st, abc, 5);
	key(&st, 'j');
	key(&st, TUI_KEY_ENTER);
	cr_assert_eq(st.view, TUI_VIEW_NODE);
	cr_assert_str_eq(st.open_node, "b");
	press(&st, 'j', 2);
	cr_assert_eq(st.detail_top, 2, "arrows scroll inside a node");
	cr_assert_str_eq(tui_state_selected(&st), "b", "and do not move the list");
	press(&st, 'k', 3);
	cr_assert_eq(st.detail_top, 0);
	key(&st, 'G');
	cr_assert_geq(st.detail_top, 1000000, "End goes past the pane, for the layout to clamp");
	key(&st, 'k');
	cr_assert_gt(st.detail_top, 1000000, "and scrolling up from there stays near the end");
	key(&st, TUI_KEY_HOME);
	cr_assert_eq(st.detail_top, 0);
	key(&st, TUI_KEY_END);
	cr_assert_geq(st.detail_top, 1000000);
	key(&st, 'g');
	cr_assert_eq(st.detail_top, 0);
	key(&st, TUI_KEY_ESC);
	cr_assert_eq(st.view, TUI_VIEW_NODES);
	key(&st, TUI_KEY_ENTER);
	cr_assert_eq(st.detail_top, 0);
	key(&st, TUI_KEY_BACKSPACE);
	cr_assert_eq(st.view, TUI_VIEW_NODES);
}

Test(tui_state, s_cycles_the_sort_and_asks_for_new_rows)
{
	enum tui_sort seen[5];

	rows(&st, abc, 5);
	for (int i = 0; i < 5; i++) {
		seen[i] = st.sort;
		key(&st, 's');
		cr_assert(st.relayout);
		rows(&st, abc, 5);
	}
	cr_assert_eq(seen[0], TUI_SORT_NAME);
	cr_assert_eq(seen[1], TUI_SORT_ALLOC);
	cr_assert_eq(seen[2], TUI_SORT_FREE);
	cr_assert_eq(seen[3], TUI_SORT_PENDING);
	cr_assert_eq(seen[4], TUI_SORT_NAME);
	cr_assert_str_eq(tui_sort_name(TUI_SORT_FREE), "free");
}

Test(tui_state, p_toggles_pool_grouping)
{
	rows(&st, abc, 5);
	key(&st, 'p');
	cr_assert(st.group_pools);
	cr_assert(st.relayout);
	key(&st, 'p');
	cr_assert_not(st.group_pools);
}

Test(tui_state, filter_prompt_edits_applies_and_cancels)
{
	rows(&st, abc, 5);
	key(&st, '/');
	cr_assert(st.editing);
	keys(&st, "gpuq=x");
	cr_assert_not(st.quit, "q is text at the prompt");
	press(&st, TUI_KEY_BACKSPACE, 3);
	cr_assert_str_eq(st.edit, "gpu");
	key(&st, TUI_KEY_ENTER);
	cr_assert_not(st.editing);
	cr_assert_str_eq(st.filter, "gpu");
	cr_assert(st.relayout);
	rows(&st, abc, 2);

	key(&st, '/');
	cr_assert_str_eq(st.edit, "gpu", "the prompt starts from the current filter");
	keys(&st, "zzz");
	key(&st, TUI_KEY_ESC);
	cr_assert_not(st.editing);
	cr_assert_str_eq(st.filter, "gpu", "Esc cancels the edit");

	key(&st, '/');
	press(&st, TUI_KEY_BACKSPACE, 5);
	cr_assert_str_eq(st.edit, "");
	key(&st, TUI_KEY_ENTER);
	cr_assert_null(st.filter, "an empty filter shows every node");
}

Test(tui_state, esc_in_the_list_clears_the_filter)
{
	rows(&st, abc, 5);
	key(&st, '/');
	keys(&st, "a");
	key(&st, TUI_KEY_ENTER);
	rows(&st, abc, 1);
	st.relayout = false;
	key(&st, TUI_KEY_ESC);
	cr_assert_null(st.filter);
	cr_assert(st.relayout);
}

Test(tui_state, help_opens_and_returns_where_it_came_from)
{
	rows(&st, abc, 5);
	key(&st, TUI_KEY_ENTER);
	key(&st, '?');
	cr_assert_eq(st.view, TUI_VIEW_HELP);
	key(&st, 'j');
	cr_assert_eq(st.view, TUI_VIEW_HELP);
	key(&st, TUI_KEY_ESC);
	cr_assert_eq(st.view, TUI_VIEW_NODE);
	press(&st, '?', 2);
	cr_assert_eq(st.view, TUI_VIEW_NODE);
}

Test(tui_state, pending_pods_help_and_warnings_return_where_the_first_opened)
{
	static const struct {
		int key;
		enum tui_view view;
	} over[] = { { 'u', TUI_VIEW_PENDING }, { 'w', TUI_VIEW_WARNINGS }, { '?', TUI_VIEW_HELP } };

	rows(&st, abc, 5);
	key(&st, TUI_KEY_ENTER);
	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		key(&st, over[i].key);
		cr_assert_eq(st.view, over[i].view, "key %c", over[i].key);
	}
	key(&st, TUI_KEY_ESC);
	cr_assert_eq(st.view, TUI_VIEW_NODE);
	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		press(&st, over[i].key, 2);
		cr_assert_eq(st.view, TUI_VIEW_NODE, "key %c twice", over[i].key);
	}
	key(&st, 'u');
	key(&st, '/');
	cr_assert(st.editing);
	cr_assert_eq(st.view, TUI_VIEW_NODE, "the filter prompt closes the pending pods");
}

Test(tui_state, resize_scroll_and_ticks)
{
	struct tui_event ev = { .type = TUI_EV_RESIZE, .cols = 200, .lines = 60 };

	st.dirty = false;
	tui_reduce(&st, &ev);
	cr_assert_eq(st.cols, 200);
	cr_assert_eq(st.lines, 60);
	cr_assert(st.dirty);
	ev = (struct tui_event){ .type = TUI_EV_SCROLL, .top = 7, .detail_top = 3 };
	tui_reduce(&st, &ev);
	cr_assert_eq(st.top, 7);
	cr_assert_eq(st.detail_top, 3);
	st.dirty = false;
	ev = (struct tui_event){ .type = TUI_EV_TICK };
	tui_reduce(&st, &ev);
	cr_assert(st.dirty);
	cr_assert(st.relayout, "still waiting for the first rows");
	rows(&st, abc, 5);
	cr_assert_not(st.relayout);
	ev = (struct tui_event){ .type = TUI_EV_DATA };
	tui_reduce(&st, &ev);
	cr_assert(st.relayout, "new data: new rows");
}

Test(tui_state, rows_are_copied)
{
	char name[] = "node-1";
	const char *one[] = { name };

	rows(&st, one, 1);
	name[0] = 'X';
	cr_assert_str_eq(tui_state_selected(&st), "node-1");
}

Test(tui_state, the_same_rows_again_are_not_copied_again)
{
	char **before;

	rows(&st, abc, 5);
	key(&st, 'j');
	key(&st, 'j'); /* c */
	before = st.rows;
	st.dirty = false;
	st.relayout = true;
	rows(&st, abc, 5);
	cr_assert_eq(st.rows, before, "figures changed, not the list");
	cr_assert_str_eq(tui_state_selected(&st), "c");
	cr_assert(st.dirty, "drawn again");
	cr_assert_not(st.relayout);
	rows(&st, abc, 4);
	cr_assert_neq(st.rows, before, "a row went");
	cr_assert_str_eq(tui_state_selected(&st), "c");
}
