#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_fleet.h"
#include "tui_layout.h"

/* Two clusters built by hand, each a model as model_finish leaves it. */
struct cluster_fx {
	struct model m;
	struct model_node nodes[4];
	struct model_gpu gpus[4][2];
	char names[4][32];
};

static struct cluster_fx *train, *infer;

static void add_node(struct cluster_fx *c, const char *name, int64_t per_gpu, int64_t alloc)
{
	struct model_node *n = &c->nodes[c->m.nnodes];

	snprintf(c->names[c->m.nnodes], sizeof(c->names[0]), "%s", name);
	n->name = c->names[c->m.nnodes];
	n->ip = "10.0.0.1";
	n->unit = UNIT_GIB;
	n->ready = true;
	n->info.per_gpu = true;
	n->scheme = schemes[0];
	n->gpus = c->gpus[c->m.nnodes];
	n->ngpus = 1;
	n->gpus[0] = (struct model_gpu){ .index = 0, .mem_total = per_gpu, .mem_allocated = alloc };
	n->mem_total = per_gpu;
	n->mem_allocated = alloc;
	c->m.nnodes++;
	c->m.totals.nodes++;
	c->m.totals.gpus++;
	c->m.totals.mem_total += per_gpu;
	c->m.totals.mem_allocated += alloc;
	c->m.max_gpus = 1;
}

static void setup(void)
{
	train = calloc(1, sizeof(*train));
	infer = calloc(1, sizeof(*infer));
	train->m.nodes = train->nodes;
	infer->m.nodes = infer->nodes;
	/* the same node name in both: told apart by the cluster */
	add_node(train, "gpu-a", 16, 12);
	add_node(train, "gpu-b", 16, 2);
	add_node(infer, "gpu-a", 16, 4);
	model_derive(&train->m);
	model_derive(&infer->m);
}

static void teardown(void)
{
	model_derived_release(&train->m);
	model_derived_release(&infer->m);
	free(train);
	free(infer);
}

TestSuite(tui_fleet, .init = setup, .fini = teardown);

static struct tui_cluster clusters[3];
static struct tui_fleet fleet = { .c = clusters, .n = 3 };

/* train and infer answered; staging failed. */
static void fleet_init(void)
{
	clusters[0] = (struct tui_cluster){ .name = "train", .m = &train->m };
	clusters[1] = (struct tui_cluster){ .name = "infer", .m = &infer->m };
	clusters[2] = (struct tui_cluster){ .name = "staging", .error = "connection refused" };
}

static void sync_rows(struct tui_state *s)
{
	char **keys;
	long n = tui_fleet_rows(&fleet, s, &keys);
	struct tui_event ev = { .type = TUI_EV_ROWS, .rows = (const char *const *)keys, .nrows = (size_t)n };

	cr_assert_geq(n, 0);
	tui_reduce(s, &ev);
	for (long i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

/* The rows as "cluster/node". */
static char *row_names(const struct tui_state *s)
{
	char *out = calloc(1, 256);

	for (size_t i = 0; i < s->nrows; i++) {
		size_t c = 99;
		const struct model_node *n = tui_fleet_find(&fleet, s->rows[i], &c);

		cr_assert_not_null(n, "row %zu", i);
		snprintf(out + strlen(out), 256 - strlen(out), "%s%s/%s", i ? " " : "", clusters[c].name, n->name);
	}
	return out;
}

static void key(struct tui_state *s, int k)
{
	struct tui_event ev = { .type = TUI_EV_KEY, .key = k };

	tui_reduce(s, &ev);
	if (s->relayout)
		sync_rows(s);
}

static void type_filter(struct tui_state *s, const char *text)
{
	key(s, '/');
	for (const char *p = text; *p; p++)
		key(s, *p);
	key(s, TUI_KEY_ENTER);
}

static void expect_rows(struct tui_state *s, const char *want)
{
	char *got = row_names(s);

	cr_assert_str_eq(got, want);
	free(got);
}

Test(tui_fleet, keys_name_the_cluster_and_the_node)
{
	char *k = tui_fleet_key(1, "gpu-a");
	size_t c = 9;

	fleet_init();
	cr_assert_eq(tui_fleet_find(&fleet, k, &c), &infer->nodes[0]);
	cr_assert_eq(c, 1);
	free(k);
	k = tui_fleet_key(2, "gpu-a"); /* a cluster with no model */
	cr_assert_null(tui_fleet_find(&fleet, k, NULL));
	free(k);
	cr_assert_null(tui_fleet_find(&fleet, "gpu-a", NULL));
	cr_assert_null(tui_fleet_find(&fleet, "7\x1fgpu-a", NULL));
}

Test(tui_fleet, rows_grouped_by_cluster_or_as_one_list_and_filtered)
{
	struct tui_state s;

	fleet_init();
	tui_state_init(&s, 120, 30);
	s.group_clusters = true;
	sync_rows(&s);
	expect_rows(&s, "train/gpu-a train/gpu-b infer/gpu-a");
	key(&s, 'c');
	expect_rows(&s, "train/gpu-a infer/gpu-a train/gpu-b");
	/* the fullest first, across the fleet */
	key(&s, 's');
	expect_rows(&s, "train/gpu-a infer/gpu-a train/gpu-b");
	key(&s, 's');
	expect_rows(&s, "train/gpu-b infer/gpu-a train/gpu-a");
	type_filter(&s, "cluster=infer");
	expect_rows(&s, "infer/gpu-a");
	key(&s, TUI_KEY_ESC);
	type_filter(&s, "rai"); /* a part of a cluster's name */
	expect_rows(&s, "train/gpu-b train/gpu-a");
	key(&s, TUI_KEY_ESC);
	type_filter(&s, "gpu-b");
	expect_rows(&s, "train/gpu-b");
	tui_state_release(&s);
}

static char *screen_text(struct tui_state *s, struct tui_screen *scr)
{
	static const struct tui_status st = { .age_s = 1, .mode = "watching" };
	char *all = calloc(1, 1);
	size_t len = 0;

	cr_assert_eq(tui_layout_fleet_screen(scr, s, &fleet, &st), 0);
	for (int y = 0; y < scr->lines; y++) {
		char *l = tui_screen_line_text(scr, y);

		cr_assert_leq(strlen(l), (size_t)s->cols, "%s", l);
		all = realloc(all, len + strlen(l) + 2);
		len += (size_t)sprintf(all + len, "%s\n", l);
		free(l);
	}
	return all;
}

Test(tui_fleet, header_per_cluster_and_a_cluster_column)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	fleet_init();
	tui_state_init(&s, 120, 24);
	s.group_clusters = true;
	sync_rows(&s);
	text = screen_text(&s, &scr);
	cr_assert_not_null(strstr(text, "cgpu top  3 clusters  sort name  by cluster\n"), "%s", text);
	/* the fleet's memory, then each cluster's, a failed one with its error */
	cr_assert_not_null(strstr(text, "18/48 GiB (37%)  nodes 3  GPUs 3  pods 0  pending 0"), "%s", text);
	cr_assert_not_null(strstr(text, "  train   ["), "%s", text);
	cr_assert_not_null(strstr(text, "14/32 GiB (43%)  nodes 2"), "%s", text);
	cr_assert_not_null(strstr(text, "4/16 GiB (25%)  nodes 1"), "%s", text);
	cr_assert_not_null(strstr(text, "  staging error: connection refused\n"), "%s", text);
	cr_assert_not_null(strstr(text, "\nCLUSTER NODE "), "%s", text);
	cr_assert_not_null(strstr(text, "\ntrain   gpu-a "), "%s", text);
	cr_assert_not_null(strstr(text, "\ninfer   gpu-a "), "%s", text);
	/* each row's figures are its own cluster's */
	cr_assert(strstr(text, "12/16") && strstr(text, "4/16"), "%s", text);
	free(text);
	tui_screen_release(&scr);
	/* one cluster's screen has no CLUSTER column */
	{
		const char **names;
		long n = tui_layout_rows(&train->m, &s, &names);
		struct tui_event ev = { .type = TUI_EV_ROWS, .rows = names, .nrows = (size_t)n };
		struct tui_status st = { .context = "train" };

		tui_reduce(&s, &ev);
		free(names);
		cr_assert_eq(tui_layout_screen(&scr, &s, &train->m, &st), 0);
		text = tui_screen_line_text(&scr, 3);
		cr_assert_eq(strncmp(text, "NODE ", 5), 0, "%s", text);
		free(text);
		tui_screen_release(&scr);
	}
	tui_state_release(&s);
}

Test(tui_fleet, a_short_screen_counts_the_clusters_it_leaves_out)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	fleet_init();
	tui_state_init(&s, 100, 12);
	sync_rows(&s);
	text = screen_text(&s, &scr);
	/* two cluster lines on 12 lines, the list keeps the rest */
	cr_assert_not_null(strstr(text, "\n  train   ["), "%s", text);
	cr_assert_not_null(strstr(text, "\n  infer   ["), "%s", text);
	cr_assert_null(strstr(text, "staging"), "%s", text);
	cr_assert_not_null(strstr(text, "\n  1 more cluster (/ cluster=NAME shows one)\n"), "%s", text);
	cr_assert_not_null(strstr(text, "\nCLUSTER NODE"), "%s", text);
	free(text);
	tui_screen_release(&scr);
	tui_state_release(&s);
}

Test(tui_fleet, the_pane_reads_the_selected_rows_cluster)
{
	struct tui_state s;
	struct tui_screen scr;
	char *text;

	fleet_init();
	tui_state_init(&s, 120, 40);
	s.group_clusters = true;
	sync_rows(&s);
	key(&s, TUI_KEY_END); /* infer/gpu-a */
	key(&s, TUI_KEY_ENTER);
	text = screen_text(&s, &scr);
	cr_assert_not_null(strstr(text, "node gpu-a"), "%s", text);
	cr_assert_not_null(strstr(text, "4/16 GiB"), "%s", text);
	cr_assert_null(strstr(text, "12/16 GiB"), "%s", text);
	free(text);
	tui_screen_release(&scr);
	tui_state_release(&s);
}
