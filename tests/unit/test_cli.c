#include <criterion/criterion.h>
#include <string.h>

#include "cli.h"
#include "fakeapi_test_util.h"
#include "load.h"
#include "nodesel.h"
#include "output.h"
#include "scheme.h"

TestSuite(load, .fini = fake_stop_all);

static const struct flag demo_flags[] = {
	{ "details", 'd', NULL, "show pods", NULL },
	{ "output", 'o', "FORMAT", "output format", "json yaml wide" },
	{ "selector", 'l', "SELECTOR", "label selector", NULL },
	{ 0 },
};

static int demo_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	return 0;
}

static const struct command demo = {
	.name = "demo", .usage = "[NODE...]", .summary = "a demo", .flags = { demo_flags }, .run = demo_run,
};

Test(cli, global_flags_anywhere_in_every_spelling)
{
	char *argv[] = { "kubectl-inspect-cgpu", "--context=prod", "node-a", "-n", "team", "--kubeconfig", "/k",
			 "-d", "--v=8", "--as-group", "g1", "--as-group=g2", "--insecure-skip-tls-verify",
			 "--request-timeout=2m", "-sHTTPS://x", NULL };
	struct global_opts g = { 0 };
	struct kerr err = KERR_INIT;
	int argc = cli_take_global_flags(15, argv, &g, &err);

	cr_assert_eq(argc, 3, "argc %d: %s", argc, err.message);
	cr_assert_str_eq(argv[1], "node-a");
	cr_assert_str_eq(argv[2], "-d");
	cr_assert_null(argv[3]);
	cr_assert_str_eq(g.ov.context, "prod");
	cr_assert_str_eq(g.ov.namespace, "team");
	cr_assert_str_eq(g.ov.kubeconfig, "/k");
	cr_assert_str_eq(g.ov.server, "HTTPS://x");
	cr_assert_eq(g.verbosity, 8);
	cr_assert_eq(g.n_as_groups, 2);
	cr_assert_str_eq(g.ov.as_groups[1], "g2");
	cr_assert_null(g.ov.as_groups[2]);
	cr_assert(g.ov.insecure_skip_tls_verify);
	cr_assert_eq(g.request_timeout_ms, 120000);
}

Test(cli, global_flag_missing_value_is_usage_error)
{
	char *argv[] = { "p", "--context", NULL };
	struct global_opts g = { 0 };
	struct kerr err = KERR_INIT;

	cr_assert_eq(cli_take_global_flags(2, argv, &g, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	cr_assert_str_eq(err.message, "flag needs an argument: --context");
	kerr_release(&err);
}

Test(cli, double_dash_stops_global_parsing)
{
	char *argv[] = { "p", "--", "-n", "x", NULL };
	struct global_opts g = { 0 };
	struct kerr err = KERR_INIT;

	cr_assert_eq(cli_take_global_flags(4, argv, &g, &err), 4);
	cr_assert_null(g.ov.namespace);
}

Test(cli, command_flags_and_positionals)
{
	char *argv[] = { "demo", "a", "-d", "-o", "json", "--selector=gpu=on", "b", "--", "-c", NULL };
	const char *vals[4] = { 0 };
	struct kerr err = KERR_INIT;
	int n = cli_parse_flags(&demo, 9, argv, vals, &err);

	cr_assert_eq(n, 3, "%d %s", n, err.message);
	cr_assert_str_eq(argv[0], "a");
	cr_assert_str_eq(argv[1], "b");
	cr_assert_str_eq(argv[2], "-c");
	cr_assert_str_eq(vals[0], "true");
	cr_assert_str_eq(vals[1], "json");
	cr_assert_str_eq(vals[2], "gpu=on");
}

Test(cli, unknown_flags_like_pflag)
{
	char *argv1[] = { "demo", "--frob", NULL };
	char *argv2[] = { "demo", "-x", NULL };
	char *argv3[] = { "demo", "-d=maybe", NULL };
	const char *vals[4] = { 0 };
	struct kerr err = KERR_INIT;

	cr_assert_eq(cli_parse_flags(&demo, 2, argv1, vals, &err), -1);
	cr_assert_str_eq(err.message, "unknown flag: --frob");
	cr_assert_eq(cli_parse_flags(&demo, 2, argv2, vals, &err), -1);
	cr_assert_str_eq(err.message, "unknown shorthand flag: 'x' in -x");
	cr_assert_eq(cli_parse_flags(&demo, 2, argv3, vals, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	kerr_release(&err);
}

static const struct flag waiter_flags[] = {
	{ "wait", 'w', CLI_OPTIONAL_ARG("DURATION"), "wait", NULL },
	{ "output", 'o', "FORMAT", "output format", NULL },
	{ 0 },
};

static const struct command waiter = {
	.name = "waiter", .usage = "[NAME]", .summary = "waits", .flags = { waiter_flags }, .run = demo_run,
};

Test(cli, optional_value_only_after_equals)
{
	char *alone[] = { "waiter", "--wait", "2m", NULL };
	char *given[] = { "waiter", "--wait=2m", "-o", "json", NULL };
	char *shorts[] = { "waiter", "-w", "x", "-w=5s", NULL };
	const char *vals[3] = { 0 };
	struct kerr err = KERR_INIT;

	/* alone it is "true", and the next word is not its value */
	cr_assert_eq(cli_parse_flags(&waiter, 3, alone, vals, &err), 1, "%s", err.message);
	cr_assert_str_eq(vals[0], "true");
	cr_assert_str_eq(alone[0], "2m");
	memset(vals, 0, sizeof(vals));
	cr_assert_eq(cli_parse_flags(&waiter, 4, given, vals, &err), 0, "%s", err.message);
	cr_assert_str_eq(vals[0], "2m");
	cr_assert_str_eq(vals[1], "json");
	memset(vals, 0, sizeof(vals));
	cr_assert_eq(cli_parse_flags(&waiter, 4, shorts, vals, &err), 1, "%s", err.message);
	cr_assert_str_eq(shorts[0], "x");
	cr_assert_str_eq(vals[0], "5s");
}

/* A command that selects nodes: its own flags, then the block. */
static const struct flag picker_flags[] = {
	{ "details", 'd', NULL, "show pods", NULL },
	{ "output", 'o', "FORMAT", "output format", "json yaml" },
	{ 0 },
};

static const struct command picker = {
	.name = "picker", .usage = "[NODE...]", .summary = "picks nodes",
	.flags = { picker_flags, nodesel_scheme_flags }, .run = demo_run,
};

static const struct command changer = {
	.name = "changer", .usage = "[NODE...]", .summary = "changes nodes",
	.flags = { picker_flags, nodesel_flags }, .run = demo_run,
};

/* Parse argv (NULL-terminated) as cmd's flags and its node selection. */
static int pick(const struct command *cmd, char **argv, bool required, struct nodesel *sel, struct kerr *err)
{
	const char *vals[2 + NODESEL_MAX_FLAGS + 1] = { 0 };
	int argc = 0, n;

	while (argv[argc])
		argc++;
	n = cli_parse_flags(cmd, argc, argv, vals, err);
	cr_assert_geq(n, 0, "%s", err->message);
	cr_assert_str_eq(vals[0] ? vals[0] : "", "true");
	return nodesel_parse(sel, cmd, vals, argv, (size_t)n, required, err);
}

Test(cli, node_selection_names)
{
	char *argv[] = { "picker", "n1", "-d", "n2", "n1", NULL };
	struct nodesel sel;
	struct kerr err = KERR_INIT;

	cr_assert_eq(pick(&picker, argv, false, &sel, &err), 0, "%s", err.message);
	cr_assert_eq(sel.nnames, 2);
	cr_assert_str_eq(sel.names[0], "n1");
	cr_assert_str_eq(sel.names[1], "n2");
	cr_assert_null(sel.names[2]);
	cr_assert_null(sel.label_selector);
	cr_assert_null(sel.scheme);
	nodesel_release(&sel);
}

/* --node repeats and takes commas; its names join the arguments' */
Test(cli, node_selection_node_flag)
{
	char *argv[] = { "changer", "-d", "n1", "--node", "n2,n3", "--node=n1", "--node", "n4", NULL };
	char *empty[] = { "changer", "-d", "--node", ",", NULL };
	char *both[] = { "changer", "-d", "--node", "n1", "-l", "a=b", NULL };
	struct nodesel sel;
	struct kerr err = KERR_INIT;

	cr_assert_eq(pick(&changer, argv, true, &sel, &err), 0, "%s", err.message);
	cr_assert_eq(sel.nnames, 4);
	cr_assert_str_eq(sel.names[0], "n1");
	cr_assert_str_eq(sel.names[1], "n2");
	cr_assert_str_eq(sel.names[2], "n3");
	cr_assert_str_eq(sel.names[3], "n4");
	cr_assert_null(sel.names[4]);
	nodesel_release(&sel);
	cr_assert_eq(pick(&changer, empty, false, &sel, &err), -1);
	nodesel_release(&sel);
	kerr_release(&err);
	cr_assert_eq(pick(&changer, both, false, &sel, &err), -1);
	cr_assert_str_eq(err.message, "name cannot be provided when a selector is specified");
	nodesel_release(&sel);
	kerr_release(&err);
	cli_flags_release();
}

/* --dra-driver repeats and takes commas, as --node; empty items are dropped */
Test(cli, dra_drivers_repeat_and_take_commas)
{
	char *argv[] = { "picker", "-d", "--dra-driver", "gaudi.intel.com,,gpu.amd.com", "--dra-driver=tpu.example.com",
			 NULL };
	char *none[] = { "picker", "-d", "--dra-driver", ",", NULL };
	char *not_here[] = { "changer", "-d", "--dra-driver", "gaudi.intel.com", NULL };
	const char *vals[2 + NODESEL_MAX_FLAGS + 1] = { 0 };
	struct nodesel sel;
	struct kerr err = KERR_INIT;

	cr_assert_eq(pick(&picker, argv, false, &sel, &err), 0, "%s", err.message);
	cr_assert_eq(sel.ndra_drivers, 3);
	cr_assert_str_eq(sel.dra_drivers[0], "gaudi.intel.com");
	cr_assert_str_eq(sel.dra_drivers[1], "gpu.amd.com");
	cr_assert_str_eq(sel.dra_drivers[2], "tpu.example.com");
	cr_assert_null(sel.dra_drivers[3]);
	nodesel_release(&sel);
	cr_assert_eq(pick(&picker, none, false, &sel, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	cr_assert_str_eq(err.message, "invalid argument \",\" for \"--dra-driver\" flag: no value");
	nodesel_release(&sel);
	kerr_release(&err);
	/* only the block with --scheme has it */
	cr_assert_eq(cli_parse_flags(&changer, 4, not_here, vals, &err), -1);
	cr_assert_str_eq(err.message, "unknown flag: --dra-driver");
	kerr_release(&err);
	cli_flags_release();
}

Test(cli, node_selection_selector_pool_and_scheme)
{
	char *argv[] = { "picker", "-d", "--pool", "np-a", "-l", "gpu=v100", "--scheme", "hami", NULL };
	char *by_key[] = { "picker", "-dlgpu=t4", "--pool=team=ml", NULL };
	char **split, *buf;
	struct nodesel sel;
	struct kerr err = KERR_INIT;
	int n;

	cr_assert_eq(pick(&picker, argv, true, &sel, &err), 0, "%s", err.message);
	cr_assert_str_eq(sel.label_selector, "gpu=v100," POOL_LABEL "=np-a");
	cr_assert_str_eq(sel.selector, "gpu=v100");
	cr_assert_str_eq(sel.pool, "np-a");
	cr_assert_str_eq(sel.scheme, "hami");
	cr_assert_eq(sel.nnames, 0);
	nodesel_release(&sel);
	/* the block's shorthands are taken apart in groups like the command's own */
	n = cli_split_short_groups(&picker, 3, by_key, &split, &buf, &err);
	cr_assert_eq(n, 4, "%d %s", n, err.message);
	cr_assert_eq(pick(&picker, split, false, &sel, &err), 0, "%s", err.message);
	cr_assert_str_eq(sel.label_selector, "gpu=t4,team=ml");
	nodesel_release(&sel);
	free(split);
	free(buf);
}

Test(cli, a_value_after_its_flag_is_never_taken_apart)
{
	/* "-1s" after a flag that takes a value is that value, as pflag reads
	 * it, not a group of shorthands '1' and 's' */
	char *argv[] = { "picker", "-o", "-1s", "--pool", "-dx", "-do", "-2m", "-d", NULL };
	char **split, *buf;
	struct kerr err = KERR_INIT;
	int n = cli_split_short_groups(&picker, 8, argv, &split, &buf, &err);

	cr_assert_eq(n, 9, "%d %s", n, err.message);
	cr_assert_str_eq(split[2], "-1s");
	cr_assert_str_eq(split[4], "-dx");
	cr_assert_str_eq(split[5], "-d");
	cr_assert_str_eq(split[6], "-o");
	cr_assert_str_eq(split[7], "-2m");
	cr_assert_str_eq(split[8], "-d");
	free(split);
	free(buf);
}

Test(cli, node_selection_refused)
{
	char *both[] = { "picker", "-d", "n1", "--pool", "np-a", NULL };
	char *none[] = { "changer", "-d", "-l", "", NULL };
	char *empty[] = { "picker", "-d", "", NULL };
	char *scheme[] = { "picker", "-d", "--scheme", "mig", NULL };
	char *no_scheme[] = { "changer", "-d", "--scheme", "hami", NULL };
	const char *vals[2 + NODESEL_MAX_FLAGS + 1] = { 0 };
	char want[256] = "invalid argument \"mig\" for \"--scheme\" flag: must be ";
	struct nodesel sel;
	struct kerr err = KERR_INIT;

	cr_assert_eq(pick(&picker, both, false, &sel, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	cr_assert_str_eq(err.message, "name cannot be provided when a selector is specified");
	nodesel_release(&sel);
	kerr_release(&err);
	/* an empty selector chooses nothing: the commands that change nodes ask for some */
	cr_assert_eq(pick(&changer, none, true, &sel, &err), -1);
	cr_assert_str_eq(err.message, "choose nodes: name them, or select them with -l SELECTOR or --pool NAME");
	nodesel_release(&sel);
	kerr_release(&err);
	cr_assert_eq(pick(&picker, empty, false, &sel, &err), -1);
	cr_assert_str_eq(err.message, "a node name must not be empty");
	nodesel_release(&sel);
	kerr_release(&err);
	/* the schemes the error offers are the table's, in its order */
	for (size_t i = 0; schemes[i]; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i == 0 ? "" : schemes[i + 1] ? ", " : " or ",
			 schemes[i]->name);
	cr_assert_eq(pick(&picker, scheme, false, &sel, &err), -1);
	cr_assert_str_eq(err.message, want);
	nodesel_release(&sel);
	kerr_release(&err);
	/* a command whose block has no --scheme does not take one */
	cr_assert_eq(cli_parse_flags(&changer, 4, no_scheme, vals, &err), -1);
	cr_assert_str_eq(err.message, "unknown flag: --scheme");
	kerr_release(&err);
}

Test(cli, help_lists_the_block_and_the_schemes)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cli_print_help(f, "kubectl inspect cgpu", &picker, &picker);
	fclose(f);
	cr_assert_not_null(strstr(text, "\n    -o, --output=FORMAT"));
	cr_assert_not_null(strstr(text, "\n    -l, --selector=SELECTOR"));
	cr_assert_not_null(strstr(text, "\n        --pool=NAME"));
	cr_assert_not_null(strstr(text, "\nSharing schemes (--scheme):\n"));
	for (size_t i = 0; schemes[i]; i++) {
		char line[256];

		/* its name and title, then what it reads */
		snprintf(line, sizeof(line), "\n  %-14s %s\n  %-14s %s\n", schemes[i]->name, schemes[i]->title, "",
			 schemes[i]->help);
		cr_assert_not_null(strstr(text, line), "%s", line);
	}
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	cli_print_help(f, "kubectl inspect cgpu", &changer, &changer);
	fclose(f);
	cr_assert_not_null(strstr(text, "\n        --pool=NAME"));
	cr_assert_null(strstr(text, "--scheme"));
	free(text);
}

Test(cli, output_formats)
{
	struct kerr err = {0};
	enum output o = OUTPUT_WIDE;

	cr_assert_eq(output_parse(NULL, false, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_TEXT);
	cr_assert_eq(output_parse("", true, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_TEXT);
	cr_assert_eq(output_parse("yaml", false, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_YAML);
	cr_assert(output_is_document(o));
	cr_assert_eq(output_parse("json", true, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_JSON);
	cr_assert_eq(output_parse("wide", true, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_WIDE);
	cr_assert(!output_is_document(o));
	cr_assert_eq(output_parse("wide", false, &o, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	cr_assert_str_eq(err.message,
			 "unable to match a printer suitable for the output format \"wide\", allowed formats are: json,yaml");
	kerr_release(&err);
	cr_assert_eq(output_parse("go-template={{.}}", true, &o, &err), -1);
	cr_assert_str_eq(err.message, "unable to match a printer suitable for the output format \"go-template={{.}}\", "
				      "allowed formats are: custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,"
				      "name,wide,yaml");
	kerr_release(&err);
	/* kubectl's forms, where the command prints the report; any case, as kubectl */
	cr_assert_eq(output_parse("JSON", false, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_JSON);
	cr_assert_eq(output_parse("name", true, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_NAME);
	cr_assert_eq(output_parse("jsonpath={.nodes[*].name}", true, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_JSONPATH);
	cr_assert_eq(output_parse("custom-columns=A:.a,B:.b", true, &o, &err), 0);
	cr_assert_eq(o, OUTPUT_CUSTOM_COLUMNS);
	cr_assert(output_is_document(o));
	cr_assert_eq(output_parse("name", false, &o, &err), -1);
	kerr_release(&err);
	/* a bad template is found here, before any request, without the usage hint */
	cr_assert_eq(output_parse("jsonpath={.a[}", true, &o, &err), -1);
	cr_assert_str_eq(err.message, "error parsing jsonpath {.a[}, unterminated array");
	cr_assert_str_eq(err.reason, CLI_REASON_NO_HINT);
	kerr_release(&err);
	cr_assert_eq(output_parse("jsonpath-file=/nonexistent/t", true, &o, &err), -1);
	cr_assert_str_eq(err.message,
			 "error reading template /nonexistent/t, open /nonexistent/t: no such file or directory");
	kerr_release(&err);
}

/* What a command wrote to its text stream, then the document on the data
 * stream, in the document's own key order. */
static void check_document(enum output o, const char *want)
{
	char *text = NULL, *data = NULL;
	size_t ntext = 0, ndata = 0;
	struct cli_ctx ctx = {.out = open_memstream(&text, &ntext), .data_out = open_memstream(&data, &ndata)};
	json_t *doc = json_pack("{s:s, s:i, s:[i, i]}", "zeta", "first", "alpha", 2, "mid", 3, 4);
	struct kerr err = KERR_INIT;

	fputs("tables\n", ctx.out);
	cr_assert_eq(output_document(&ctx, doc, o, &err), 0, "%s", err.message);
	/* the text was flushed before the document was written */
	cr_assert_str_eq(text, "tables\n");
	fclose(ctx.data_out);
	fclose(ctx.out);
	cr_assert_str_eq(data, want);
	json_decref(doc);
	free(text);
	free(data);
}

Test(cli, one_printer_for_documents)
{
	check_document(OUTPUT_JSON, "{\n  \"zeta\": \"first\",\n  \"alpha\": 2,\n  \"mid\": [\n    3,\n    4\n  ]\n}\n");
	check_document(OUTPUT_YAML, "zeta: first\nalpha: 2\nmid:\n- 3\n- 4\n");
}

Test(cli, status_errors_a_command_goes_on_without)
{
	struct kerr err = KERR_INIT;

	kerr_set_status(&err, 403, "Forbidden", "events is forbidden");
	cr_assert(cli_drop_status(&err, 403, 404));
	cr_assert_eq(err.kind, KERR_NONE);
	cr_assert_null(err.message);
	kerr_set_status(&err, 409, "Conflict", "precondition failed");
	cr_assert(cli_drop_status(&err, 404, 409));
	kerr_set_status(&err, 500, "InternalError", "etcd is down");
	cr_assert(!cli_drop_status(&err, 403, 404));
	cr_assert_eq(err.code, 500);
	kerr_release(&err);
	/* a transport error is never a Status, whatever its number */
	kerr_set(&err, KERR_REFUSED, "connection refused");
	err.code = 403;
	cr_assert(!cli_drop_status(&err, 403, 404));
	cr_assert_eq(err.kind, KERR_REFUSED);
	kerr_release(&err);
}

Test(cli, dry_run_and_timeout)
{
	static const struct {
		const char *text;
		enum cli_dry_run dry;
	} dry_runs[] = {{NULL, CLI_DRY_NONE}, {"client", CLI_DRY_CLIENT}, {"server", CLI_DRY_SERVER}, {"none", CLI_DRY_NONE}};
	struct kerr err = {0};
	enum cli_dry_run dry = CLI_DRY_SERVER;
	long ms = 7;

	for (size_t i = 0; i < sizeof(dry_runs) / sizeof(dry_runs[0]); i++) {
		cr_assert_eq(cli_parse_dry_run(dry_runs[i].text, &dry, &err), 0);
		cr_assert_eq(dry, dry_runs[i].dry, "%s", dry_runs[i].text ? dry_runs[i].text : "(none)");
	}
	cr_assert_eq(cli_parse_dry_run("true", &dry, &err), -1);
	cr_assert_str_eq(err.message, "Invalid dry-run value (true). Must be \"none\", \"server\", or \"client\".");
	cr_assert_str_eq(err.reason, CLI_REASON_NO_HINT, "kubectl prints no usage hint after it");
	kerr_release(&err);

	cr_assert_eq(cli_parse_timeout(NULL, &ms, &err), 0);
	cr_assert_eq(ms, 7, "no --timeout leaves the default");
	cr_assert_eq(cli_parse_timeout("2m", &ms, &err), 0);
	cr_assert_eq(ms, 120000);
	cr_assert_eq(cli_parse_timeout("0", &ms, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	cr_assert_str_eq(err.message,
			 "invalid argument \"0\" for \"--timeout\" flag: want a duration above zero, such as 30s or 5m");
	kerr_release(&err);
	cr_assert_eq(ms, 120000);
}

Test(cli, durations)
{
	static const struct {
		const char *text;
		long ms;
	} good[] = {{"0", 0}, {"5", 5000}, {"1h30m", 5400000}, {"250ms", 250}, {"1.5s", 1500}};
	static const char *const bad[] = {"-1", "abc", "5x", ""};
	long ms;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_assert_eq(cli_parse_duration_ms(good[i].text, &ms), 0, "%s", good[i].text);
		cr_assert_eq(ms, good[i].ms, "%s", good[i].text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(cli_parse_duration_ms(bad[i], &ms), -1, "\"%s\"", bad[i]);
}

/* --- loading a cluster ------------------------------------------------------------ */

/* A connection to f as the global flags would make it. */
static void load_connect(struct fake *f, struct cluster_load *l, struct cli_ctx *ctx)
{
	struct kerr err = KERR_INIT;

	ctx->g.ov.kubeconfig = f->kubeconfig;
	cr_assert_eq(cluster_connect(ctx, &l->cluster, &err), 0, "%s", err.message);
	cr_assert_not_null(l->cluster.client);
}

/* The requests that listed path, with their field and label selectors. */
static size_t lists_of(struct fake *f, const char *path, const char *field, const char *label)
{
	json_t *log = requests(f), *r;
	size_t i, n = 0;

	json_array_foreach (log, i, r) {
		json_t *q = json_object_get(r, "query");
		const char *fs = json_string_value(json_object_get(q, "fieldSelector"));
		const char *ls = json_string_value(json_object_get(q, "labelSelector"));

		if (strcmp(json_string_value(json_object_get(r, "path")), path) == 0 &&
		    strcmp(fs ? fs : "", field ? field : "") == 0 && strcmp(ls ? ls : "", label ? label : "") == 0)
			n++;
	}
	json_decref(log);
	return n;
}

Test(load, named_nodes_and_their_pods_only)
{
	struct fake f;
	char *names[] = { "node-0002", "node-0000", NULL };
	struct nodesel sel = { .names = names, .nnames = 2 };
	struct cli_ctx ctx = { .errout = stderr };
	struct cluster_load l = { .sel = &sel, .from_cache = true, .mo = { .force_unit = -1, .keep_pods = true } };
	struct kerr err = KERR_INIT;

	fake_start(&f, 4, 40);
	load_connect(&f, &l, &ctx);
	cr_assert_eq(cluster_load_model(&l, &err), 0, "%s", err.message);
	cr_assert(l.have_model);
	cr_assert_eq(l.model.nnodes, 2);
	cr_assert_eq(l.model.npods, 20);
	cr_assert_eq(l.nodes_seen, 2);
	cr_assert_null(l.missing);
	/* each name is one node list and one list of its pods, from the cache */
	cr_assert_eq(lists_of(&f, "/api/v1/nodes", "metadata.name=node-0002", NULL), 1);
	cr_assert_eq(lists_of(&f, "/api/v1/pods", "spec.nodeName=node-0000,status.phase!=Succeeded,status.phase!=Failed",
			      NULL), 1);
	cr_assert_eq(lists_of(&f, "/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed", NULL), 0);
	cluster_load_release(&l);
	cr_assert_null(l.cluster.client);
	fake_stop(&f);
}

Test(load, a_named_node_that_is_not_there)
{
	struct fake f;
	char *names[] = { "node-0001", "node-9999", NULL };
	struct nodesel sel = { .names = names, .nnames = 2 };
	struct cli_ctx ctx = { .errout = stderr };
	struct cluster_load l = { .sel = &sel, .mo = { .force_unit = -1 } };
	struct kerr err = KERR_INIT;

	fake_start(&f, 3, 6);
	load_connect(&f, &l, &ctx);
	cr_assert_eq(cluster_load_model(&l, &err), -1);
	cr_assert_eq(err.kind, KERR_STATUS);
	cr_assert_eq(err.code, 404);
	cr_assert_str_eq(err.reason, "NotFound");
	cr_assert_str_eq(err.message, "nodes \"node-9999\" not found");
	cr_assert_str_eq(l.missing, "node-9999");
	cr_assert(!l.have_model);
	kerr_release(&err);
	/* one by one, as a command that lists nothing yet asks */
	cr_assert_eq(cluster_find_nodes(&l.cluster, &sel, &err), -1);
	cr_assert_eq(err.code, 404);
	kerr_release(&err);
	sel.nnames = 1;
	cr_assert_eq(cluster_find_nodes(&l.cluster, &sel, &err), 0, "%s", err.message);
	cluster_load_release(&l);
	fake_stop(&f);
}

Test(load, every_node_or_a_selector)
{
	struct fake f;
	struct nodesel sel = { .label_selector = "gpushare=true" };
	struct cli_ctx ctx = { .errout = stderr };
	struct cluster_load all = { .mo = { .force_unit = -1 } };
	struct cluster_load chosen = { .sel = &sel, .mo = { .force_unit = -1 } };
	struct kerr err = KERR_INIT;

	fake_start(&f, 3, 9);
	load_connect(&f, &all, &ctx);
	cr_assert_eq(cluster_load_model(&all, &err), 0, "%s", err.message);
	cr_assert_eq(all.model.nnodes, 3);
	cr_assert_eq(all.nodes_seen, 3);
	cr_assert_eq(lists_of(&f, "/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed", NULL), 1);
	load_connect(&f, &chosen, &ctx);
	cr_assert_eq(cluster_load_model(&chosen, &err), 0, "%s", err.message);
	cr_assert_eq(chosen.model.nnodes, 3);
	cr_assert_eq(lists_of(&f, "/api/v1/nodes", NULL, "gpushare=true"), 1);
	cluster_load_release(&chosen);
	/* a selector no node matches: an empty model, and nothing seen */
	sel.label_selector = "gpushare=false";
	chosen = (struct cluster_load){ .sel = &sel, .mo = { .force_unit = -1 } };
	load_connect(&f, &chosen, &ctx);
	cr_assert_eq(cluster_load_model(&chosen, &err), 0, "%s", err.message);
	cr_assert_eq(chosen.model.nnodes, 0);
	cr_assert_eq(chosen.nodes_seen, 0);
	cluster_load_release(&chosen);
	cluster_load_release(&all);
	fake_stop(&f);
}
