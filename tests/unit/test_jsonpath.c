/* kubectl's JSONPath templates and custom columns on a document: each
 * form of path, ranges, filters, what kubectl prints for each kind of
 * value, its parse errors word for word, and the bounds. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath.h"
#include "render_kubectl.h"

static const char DOC[] =
	"{\"kind\":\"GPUShareReport\",\"nodes\":["
	"{\"name\":\"a\",\"labels\":{\"kubernetes.io/hostname\":\"a\",\"zone\":\"z1\"},\"memory\":{\"free\":12,\"total\":15},"
	"\"gpus\":[{\"index\":0,\"memory\":{\"free\":4}},{\"index\":1,\"memory\":{\"free\":8}}],\"ready\":true,\"x\":null},"
	"{\"name\":\"b\",\"labels\":{\"zone\":\"z2\"},\"memory\":{\"free\":0,\"total\":16},\"gpus\":[],\"ready\":false},"
	"{\"name\":\"c\\u001b[31m\",\"labels\":{},\"memory\":{\"free\":20,\"total\":30},\"ratio\":0.5,\"big\":1e6}"
	"]}";

static json_t *doc(void)
{
	json_t *d = json_loads(DOC, 0, NULL);

	cr_assert_not_null(d);
	return d;
}

/* What the template prints on DOC; NULL when it does not parse (the error
 * in *msg). */
static char *run(const char *t, char **msg)
{
	struct kerr err = KERR_INIT;
	struct jsonpath *jp = jsonpath_parse(t, &err);
	json_t *d = doc();
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!jp) {
		if (msg)
			*msg = strdup(err.message);
		kerr_release(&err);
		json_decref(d);
		return NULL;
	}
	f = open_memstream(&out, &len);
	cr_assert_eq(jsonpath_execute(jp, d, f, &err), 0, "%s: %s", t, err.message);
	fclose(f);
	jsonpath_free(jp);
	json_decref(d);
	return out;
}

static void expect(const char *t, const char *want)
{
	char *msg = NULL, *got = run(t, &msg);

	cr_assert_not_null(got, "%s: %s", t, msg ? msg : "");
	cr_assert_str_eq(got, want, "%s", t);
	free(got);
}

static void expect_error(const char *t, const char *want)
{
	char *msg = NULL, *got = run(t, &msg);

	cr_assert_null(got, "%s parsed", t);
	cr_assert_str_eq(msg, want);
	free(msg);
}

Test(jsonpath, fields_wildcards_indexes_and_slices)
{
	expect("{.kind}", "GPUShareReport");
	expect("{$.kind}", "GPUShareReport");
	expect("{.nodes[*].name}", "a b c\\x1b[31m");
	expect("{.nodes[0].name} {.nodes[-1].memory.free}", "a 20");
	expect("{.nodes[0,2].memory.total}", "15 30");
	expect("{.nodes[1:].memory.total}", "16 30");
	expect("{.nodes[0:3:2].memory.total}", "15 30");
	expect("{.nodes[:-1].name}", "a b");
	expect("{.nodes[0]['name','ready']}", "a true");
	expect("{.nodes[0].labels.kubernetes\\.io/hostname}", "a");
	expect("{.nodes[0].labels.*}", "a z1");
	expect("{..free}", "12 4 8 0 20");
	expect("{.nodes[0].gpus[*].memory.free}", "4 8");
}

Test(jsonpath, missing_is_nothing)
{
	expect("{.nope}", "");
	expect("x{.nodes[7].name}y", "xy");
	expect("{.kind.deeper}", "");
	expect("{.nodes[5:9].name}", "");
}

Test(jsonpath, values_as_kubectl_prints_them)
{
	expect("{.nodes[0].memory}", "{\"free\":12,\"total\":15}");
	expect("{.nodes[0].gpus[0]}", "{\"index\":0,\"memory\":{\"free\":4}}");
	expect("{.nodes[1].gpus}", "[]");
	expect("{.nodes[0].x} {.nodes[1].ready} {.nodes[2].ratio}", "null false 0.5");
}

Test(jsonpath, range_and_literals)
{
	expect("{range .nodes[*]}{.name}{\"\\t\"}{.memory.free}{\"\\n\"}{end}", "a\t12\nb\t0\nc\\x1b[31m\t20\n");
	expect("{range .nodes[*]}[{range .gpus[*]}{.index}{end}]{end}", "[01][][]");
	/* a range without its end runs to the end of the template, as kubectl's */
	expect("{range .nodes[*]}{.name},", "a,b,c\\x1b[31m,");
	expect("{range .nope[*]}{.name}{end}done", "done");
}

Test(jsonpath, filters)
{
	expect("{.nodes[?(@.memory.free>10)].name}", "a c\\x1b[31m");
	expect("{.nodes[?(@.memory.free<=0)].name}", "b");
	expect("{.nodes[?(@.labels.zone==\"z2\")].name}", "b");
	expect("{.nodes[?(@.labels.zone!='z2')].name}", "a");
	expect("{.nodes[?(@.labels.zone>=\"z1\")].name}", "a b");
	expect("{.nodes[?(@.ready==true)].name}", "a");
	expect("{.nodes[?(@.ratio)].name}", "c\\x1b[31m");
	expect("{.nodes[?(@.memory.free < @.memory.total)].memory.free}", "12 0 20");
	expect("{.nodes[?(@.memory.free == $.nodes[0].memory.free)].name}", "a");
	expect("{.nodes[?(@.name==\"a\")].gpus[?(@.memory.free>5)].index}", "1");
}

Test(jsonpath, errors_in_kubectl_words)
{
	expect_error("{.nodes[}", "error parsing jsonpath {.nodes[}, unterminated array");
	expect_error("{.kind", "error parsing jsonpath {.kind, unclosed action");
	expect_error("{\"abc}", "error parsing jsonpath {\"abc}, unterminated quoted string");
	expect_error("{.nodes[a]}", "error parsing jsonpath {.nodes[a]}, invalid array index a");
	expect_error("{end}", "error parsing jsonpath {end}, not in range, nothing to end");
	expect_error("{kind}", "error parsing jsonpath {kind}, unrecognized identifier kind");
	expect_error("{!}", "error parsing jsonpath {!}, unrecognized character in action: U+0021 '!'");
	expect_error("{.nodes[?(@.a=)]}", "error parsing jsonpath {.nodes[?(@.a=)]}, unrecognized filter operator in @.a=");
	expect_error("{range \"x\"}{end}", "error parsing jsonpath {range \"x\"}{end}, range needs a path");
	expect_error("{.nodes[1:2:3:4]}", "error parsing jsonpath {.nodes[1:2:3:4]}, invalid array index 1:2:3:4");
}

Test(jsonpath, bounded)
{
	char *t = malloc(JSONPATH_MAX_TEMPLATE + 2), *msg = NULL;
	size_t k = 0;

	memset(t, 'x', JSONPATH_MAX_TEMPLATE + 1);
	t[JSONPATH_MAX_TEMPLATE + 1] = '\0';
	cr_assert_null(run(t, &msg));
	cr_assert(strstr(msg, "longer than"), "%s", msg);
	free(msg);
	msg = NULL;
	/* more ranges open than the depth allowed */
	for (int i = 0; i <= JSONPATH_MAX_DEPTH; i++)
		k += (size_t)sprintf(t + k, "{range .nodes[*]}");
	cr_assert_null(run(t, &msg));
	cr_assert(strstr(msg, "nested more than"), "%s", msg);
	free(msg);
	msg = NULL;
	/* more pieces than allowed */
	k = 0;
	for (int i = 0; i <= JSONPATH_MAX_NODES; i++)
		k += (size_t)sprintf(t + k, "{.a}");
	cr_assert_null(run(t, &msg));
	cr_assert(strstr(msg, "more than"), "%s", msg);
	free(msg);
	free(t);
}

Test(jsonpath, output_is_bounded)
{
	/* ranges inside ranges multiply what is written: stopped, not run on */
	struct kerr err = KERR_INIT;
	json_t *big = json_array();
	struct jsonpath *jp;
	FILE *f = fopen("/dev/null", "w");

	for (int i = 0; i < 2048; i++)
		json_array_append_new(big, json_integer(i));
	jp = jsonpath_parse("{range $[*]}{range $[*]}{@}{end}{end}", &err);
	cr_assert_not_null(jp, "%s", err.message);
	cr_assert_eq(jsonpath_execute(jp, big, f, &err), -1);
	cr_assert(strstr(err.message, "more than"), "%s", err.message);
	kerr_release(&err);
	jsonpath_free(jp);
	json_decref(big);
	fclose(f);
}

Test(jsonpath, go_text_as_kubectl_custom_columns_show_it)
{
	json_t *d = doc();
	const char *cases[][2] = {
		{ "{.nodes[0].labels}", "map[kubernetes.io/hostname:a zone:z1]" },
		{ "{.nodes[0].gpus[0]}", "map[index:0 memory:map[free:4]]" },
		{ "{.nodes[1].gpus}", "[]" },
		{ "{.nodes[0].x}", "<nil>" },
		{ "{.nodes[2].ratio}", "0.5" },
		{ "{.nodes[2].big}", "1000000" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kerr err = KERR_INIT;
		struct jsonpath *jp = jsonpath_parse(cases[i][0], &err);
		json_t *vals;
		char *s;

		cr_assert_eq(jsonpath_select(jp, d, &vals, &err), 0);
		cr_assert_eq(json_array_size(vals), 1, "%s", cases[i][0]);
		s = jsonpath_go_text(json_array_get(vals, 0));
		cr_assert_str_eq(s, cases[i][1]);
		free(s);
		json_decref(vals);
		jsonpath_free(jp);
	}
	json_decref(d);
}

static char *columns(const char *spec, bool file, bool no_headers, char **msg)
{
	struct kerr err = KERR_INIT;
	struct custom_columns *cc = file ? custom_columns_parse_file(spec, &err) : custom_columns_parse(spec, &err);
	json_t *d = doc();
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!cc) {
		*msg = strdup(err.message);
		kerr_release(&err);
		json_decref(d);
		return NULL;
	}
	f = open_memstream(&out, &len);
	cr_assert_eq(render_custom_columns(f, d, cc, no_headers, &err), 0, "%s", err.message);
	fclose(f);
	custom_columns_free(cc);
	json_decref(d);
	return out;
}

Test(jsonpath, custom_columns)
{
	char *msg = NULL, *out = columns("NAME:.name,FREE:memory.free,GPUS:{.gpus[*].memory.free},ZONE:.labels.nope",
					  false, false, &msg);

	cr_assert_not_null(out, "%s", msg);
	cr_assert_str_eq(out, "NAME        FREE   GPUS     ZONE\n"
			      "a           12     4,8      <none>\n"
			      "b           0      <none>   <none>\n"
			      "c\\x1b[31m   20     <none>   <none>\n");
	free(out);
	out = columns("NAME FREE\n.name .memory.free\n", true, true, &msg);
	cr_assert_not_null(out, "%s", msg);
	cr_assert_str_eq(out, "a           12\nb           0\nc\\x1b[31m   20\n");
	free(out);
	/* a null is no value: <none>, as for a field that is not there */
	out = columns("X:.x", false, false, &msg);
	cr_assert_str_eq(out, "X\n<none>\n<none>\n<none>\n");
	free(out);
	cr_assert_null(columns("NAME", false, false, &msg));
	cr_assert_str_eq(msg, "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>");
	free(msg);
	cr_assert_null(columns("N:.a[", false, false, &msg));
	cr_assert_str_eq(msg, "error parsing jsonpath {.a[}, unterminated array");
	free(msg);
}

Test(jsonpath, names)
{
	json_t *d = doc();
	struct kerr err = KERR_INIT;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_eq(render_names(f, d, &err), 0);
	fclose(f);
	cr_assert_str_eq(out, "node/a\nnode/b\nnode/c\\x1b[31m\n");
	free(out);
	json_decref(d);
}
