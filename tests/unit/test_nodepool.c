#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nodepool.h"

/* labels from "k=v" strings; a bare "k" gets an empty value */
static struct kvlist labels_of(const char *const *kv)
{
	struct kvlist l = { 0 };

	for (size_t i = 0; kv && kv[i]; i++) {
		const char *eq = strchr(kv[i], '=');
		size_t klen = eq ? (size_t)(eq - kv[i]) : strlen(kv[i]);
		const char *v = eq ? eq + 1 : "";

		cr_assert_eq(kvlist_add(&l, kv[i], klen, v, strlen(v)), 0);
	}
	return l;
}

#define LABELS(...) labels_of((const char *const[]){ __VA_ARGS__, NULL })

/* --- editions and modes ---------------------------------------------------- */

Test(nodepool, mode_names_and_aliases)
{
	struct kerr err = KERR_INIT;
	enum np_mode m;

	cr_assert_eq(np_mode_parse("exclusive", &m, &err), 0);
	cr_assert_eq(m, NP_MODE_EXCLUSIVE);
	cr_assert_eq(np_mode_parse("default", &m, &err), 0);
	cr_assert_eq(m, NP_MODE_EXCLUSIVE);
	cr_assert_eq(np_mode_parse("share", &m, &err), 0);
	cr_assert_eq(m, NP_MODE_SHARE);
	cr_assert_eq(np_mode_parse("cgpu", &m, &err), 0);
	cr_assert_eq(m, NP_MODE_ISOLATE);
	cr_assert_eq(np_mode_parse("isolate", &m, &err), 0);
	cr_assert_eq(m, NP_MODE_ISOLATE);
	cr_assert_eq(np_mode_parse("core_mem", &m, &err), 0);
	cr_assert_eq(m, NP_MODE_CORE);
	cr_assert_eq(np_mode_parse("core", &m, &err), 0);
	cr_assert_eq(m, NP_MODE_CORE);
	cr_assert_eq(np_mode_parse("mps", &m, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	cr_assert(strstr(err.message, "\"mps\""));
	kerr_release(&err);
	cr_assert_str_eq(np_mode_name(NP_MODE_ISOLATE), "isolate");
}

Test(nodepool, edition_names)
{
	struct kerr err = KERR_INIT;
	enum np_edition e;

	cr_assert_eq(np_edition_parse("pro", &e, &err), 0);
	cr_assert_eq(e, NP_EDITION_PRO);
	cr_assert_eq(np_edition_parse("basic", &e, &err), 0);
	cr_assert_eq(e, NP_EDITION_BASIC);
	cr_assert_eq(np_edition_parse("opensource", &e, &err), 0);
	cr_assert_eq(e, NP_EDITION_OPENSOURCE);
	cr_assert_eq(np_edition_parse("enterprise", &e, &err), -1);
	kerr_release(&err);
}

Test(nodepool, supported_modes_per_edition)
{
	cr_assert(np_mode_supported(NP_EDITION_PRO, NP_MODE_CORE));
	cr_assert(np_mode_supported(NP_EDITION_BASIC, NP_MODE_ISOLATE));
	cr_assert_not(np_mode_supported(NP_EDITION_BASIC, NP_MODE_CORE));
	cr_assert(np_mode_supported(NP_EDITION_OPENSOURCE, NP_MODE_SHARE));
	cr_assert_not(np_mode_supported(NP_EDITION_OPENSOURCE, NP_MODE_ISOLATE));
	cr_assert_not(np_mode_supported(NP_EDITION_OPENSOURCE, NP_MODE_CORE));
}

Test(nodepool, mode_of_labels)
{
	struct kvlist a = LABELS("ack.node.gpu.schedule=cgpu");
	struct kvlist b = LABELS("cgpu=true", "cgpu.disable.isolation=true");
	struct kvlist c = LABELS("cgpu=true");
	struct kvlist d = LABELS("cgpu=false");
	struct kvlist e = LABELS("gpushare=true");
	struct kvlist f = LABELS("ack.node.gpu.schedule=mps");

	cr_assert_eq(np_mode_of(NP_EDITION_PRO, &a), NP_MODE_ISOLATE);
	cr_assert_eq(np_mode_of(NP_EDITION_PRO, &f), NP_MODE_UNKNOWN);
	cr_assert_eq(np_mode_of(NP_EDITION_PRO, &b), NP_MODE_UNKNOWN);
	cr_assert_eq(np_mode_of(NP_EDITION_BASIC, &b), NP_MODE_SHARE);
	cr_assert_eq(np_mode_of(NP_EDITION_BASIC, &c), NP_MODE_ISOLATE);
	cr_assert_eq(np_mode_of(NP_EDITION_BASIC, &d), NP_MODE_EXCLUSIVE);
	cr_assert_eq(np_mode_of(NP_EDITION_OPENSOURCE, &e), NP_MODE_SHARE);
	cr_assert_eq(np_mode_of(NP_EDITION_OPENSOURCE, &d), NP_MODE_EXCLUSIVE);
	kvlist_release(&a);
	kvlist_release(&b);
	kvlist_release(&c);
	kvlist_release(&d);
	kvlist_release(&e);
	kvlist_release(&f);
}

/* --- edition detection --------------------------------------------------------- */

Test(nodepool, detect_from_labels)
{
	struct np_detect d;
	struct kvlist pro = LABELS("ack.node.gpu.schedule=share");
	struct kvlist plain = LABELS("kubernetes.io/os=linux");
	struct kerr err = KERR_INIT;
	enum np_edition e = NP_EDITION_UNKNOWN;

	np_detect_init(&d);
	np_detect_add_node(&d, "plain", &plain);
	np_detect_add_node(&d, "gpu-a", &pro);
	np_detect_add_daemonset(&d, "gpushare-device-plugin-ds");
	np_detect_add_daemonset(&d, "cgpu-installer");
	cr_assert_eq(np_detect_finish(&d, NP_EDITION_UNKNOWN, &e, &err), 0);
	cr_assert_eq(e, NP_EDITION_PRO);
	np_detect_release(&d);
	kvlist_release(&pro);
	kvlist_release(&plain);
}

Test(nodepool, detect_from_daemonsets)
{
	struct np_detect d;
	struct kerr err = KERR_INIT;
	enum np_edition e = NP_EDITION_UNKNOWN;

	np_detect_init(&d);
	np_detect_add_daemonset(&d, "gpushare-device-plugin-ds");
	np_detect_add_daemonset(&d, "device-plugin-recover-ds");
	cr_assert_eq(np_detect_finish(&d, NP_EDITION_UNKNOWN, &e, &err), 0);
	cr_assert_eq(e, NP_EDITION_BASIC);
	np_detect_release(&d);

	/* the plugin alone, no labels: the open-source install */
	np_detect_init(&d);
	np_detect_add_daemonset(&d, "gpushare-device-plugin-ds");
	cr_assert_eq(np_detect_finish(&d, NP_EDITION_UNKNOWN, &e, &err), 0);
	cr_assert_eq(e, NP_EDITION_OPENSOURCE);
	np_detect_release(&d);
}

Test(nodepool, detect_conflict_and_override)
{
	struct np_detect d;
	struct kvlist basic = LABELS("cgpu=true");
	struct kerr err = KERR_INIT;
	enum np_edition e = NP_EDITION_UNKNOWN;

	np_detect_init(&d);
	np_detect_add_node(&d, "gpu-b", &basic);
	np_detect_add_daemonset(&d, "gpushare-core-device-plugin-ds");
	cr_assert_eq(np_detect_finish(&d, NP_EDITION_UNKNOWN, &e, &err), -1);
	cr_assert(strstr(err.message, "more than one"), "%s", err.message);
	cr_assert(strstr(err.message, "gpu-b"), "%s", err.message);
	cr_assert(strstr(err.message, "gpushare-core-device-plugin-ds"), "%s", err.message);
	cr_assert(strstr(err.message, "--edition"), "%s", err.message);
	kerr_release(&err);
	cr_assert_eq(np_detect_finish(&d, NP_EDITION_PRO, &e, &err), 0);
	cr_assert_eq(e, NP_EDITION_PRO);
	np_detect_release(&d);
	kvlist_release(&basic);
}

Test(nodepool, detect_nothing)
{
	struct np_detect d;
	struct kerr err = KERR_INIT;
	enum np_edition e = NP_EDITION_UNKNOWN;

	np_detect_init(&d);
	cr_assert_eq(np_detect_finish(&d, NP_EDITION_UNKNOWN, &e, &err), -1);
	cr_assert(strstr(err.message, "--edition"));
	kerr_release(&err);
	np_detect_release(&d);
}

/* --- targets and plans ---------------------------------------------------------- */

Test(nodepool, target_validation)
{
	struct kerr err = KERR_INIT;
	struct np_target t = { NP_EDITION_BASIC, NP_MODE_CORE, NULL };

	cr_assert_eq(np_target_check(&t, &err), -1);
	cr_assert(strstr(err.message, "core"));
	cr_assert(strstr(err.message, "basic"));
	kerr_release(&err);

	t = (struct np_target){ NP_EDITION_OPENSOURCE, NP_MODE_ISOLATE, NULL };
	cr_assert_eq(np_target_check(&t, &err), -1);
	kerr_release(&err);

	t = (struct np_target){ NP_EDITION_BASIC, NP_MODE_SHARE, "spread" };
	cr_assert_eq(np_target_check(&t, &err), -1);
	kerr_release(&err);

	t = (struct np_target){ NP_EDITION_PRO, NP_MODE_EXCLUSIVE, "spread" };
	cr_assert_eq(np_target_check(&t, &err), -1);
	kerr_release(&err);

	t = (struct np_target){ NP_EDITION_PRO, NP_MODE_SHARE, "scatter" };
	cr_assert_eq(np_target_check(&t, &err), -1);
	kerr_release(&err);

	t = (struct np_target){ NP_EDITION_PRO, NP_MODE_SHARE, "spread" };
	cr_assert_eq(np_target_check(&t, &err), 0);
}

static const struct np_change *find_change(const struct np_plan *p, const char *key)
{
	for (size_t i = 0; i < p->nchanges; i++)
		if (strcmp(p->changes[i].key, key) == 0)
			return &p->changes[i];
	return NULL;
}

Test(nodepool, plan_pro_share_to_isolate)
{
	struct kvlist l = LABELS("ack.node.gpu.schedule=share", "ack.node.gpu.placement=binpack",
				 "topology.kubernetes.io/region=cn-beijing");
	struct np_target t = { NP_EDITION_PRO, NP_MODE_ISOLATE, "spread" };
	struct np_plan p;
	struct kerr err = KERR_INIT;
	const struct np_change *c;

	cr_assert_eq(np_plan_node(&t, "gpu-a", &l, &p, &err), 0);
	cr_assert_str_eq(p.node, "gpu-a");
	cr_assert_eq(p.nchanges, 2);
	c = find_change(&p, "ack.node.gpu.schedule");
	cr_assert_not_null(c);
	cr_assert_str_eq(c->before, "share");
	cr_assert_str_eq(c->after, "cgpu");
	c = find_change(&p, "ack.node.gpu.placement");
	cr_assert_str_eq(c->before, "binpack");
	cr_assert_str_eq(c->after, "spread");
	cr_assert_eq(p.before, NP_MODE_SHARE);
	cr_assert_eq(p.after, NP_MODE_ISOLATE);
	cr_assert(p.isolation_changes);
	cr_assert_not(p.isolation_stays);
	cr_assert_not(p.region_unsupported);
	np_plan_release(&p);
	kvlist_release(&l);
}

Test(nodepool, plan_pro_isolate_to_share_keeps_module)
{
	struct kvlist l = LABELS("ack.node.gpu.schedule=cgpu", "topology.kubernetes.io/region=eu-central-1");
	struct np_target t = { NP_EDITION_PRO, NP_MODE_SHARE, NULL };
	struct np_plan p;
	struct kerr err = KERR_INIT;

	cr_assert_eq(np_plan_node(&t, "gpu-a", &l, &p, &err), 0);
	cr_assert_eq(p.nchanges, 1);
	cr_assert(p.isolation_changes);
	cr_assert(p.isolation_stays);
	/* region only matters when isolation is asked for */
	cr_assert_not(p.region_unsupported);
	np_plan_release(&p);

	t.mode = NP_MODE_CORE;
	cr_assert_eq(np_plan_node(&t, "gpu-a", &l, &p, &err), 0);
	cr_assert(p.region_unsupported);
	cr_assert_str_eq(p.region, "eu-central-1");
	cr_assert_not(p.isolation_changes);
	np_plan_release(&p);
	kvlist_release(&l);
}

Test(nodepool, plan_pro_exclusive_is_explicit)
{
	struct kvlist l = LABELS("ack.node.gpu.schedule=share");
	struct np_target t = { NP_EDITION_PRO, NP_MODE_EXCLUSIVE, NULL };
	struct np_plan p;
	struct kerr err = KERR_INIT;

	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), 0);
	cr_assert_eq(p.nchanges, 1);
	cr_assert_str_eq(p.changes[0].key, "ack.node.gpu.schedule");
	cr_assert_str_eq(p.changes[0].after, "default");
	np_plan_release(&p);
	kvlist_release(&l);
}

Test(nodepool, plan_noop)
{
	struct kvlist l = LABELS("cgpu=true", "cgpu.disable.isolation=false");
	struct np_target t = { NP_EDITION_BASIC, NP_MODE_ISOLATE, NULL };
	struct np_plan p;
	struct kerr err = KERR_INIT;

	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), 0);
	cr_assert_eq(p.nchanges, 0);
	cr_assert_not(p.isolation_changes);
	np_plan_release(&p);
	kvlist_release(&l);
}

Test(nodepool, plan_basic_modes)
{
	struct kvlist l = LABELS("cgpu=true", "cgpu.disable.isolation=false");
	struct np_target t = { NP_EDITION_BASIC, NP_MODE_SHARE, NULL };
	struct np_plan p;
	struct kerr err = KERR_INIT;

	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), 0);
	cr_assert_eq(p.nchanges, 1);
	cr_assert_str_eq(p.changes[0].key, "cgpu.disable.isolation");
	cr_assert_str_eq(p.changes[0].before, "false");
	cr_assert_str_eq(p.changes[0].after, "true");
	cr_assert(p.isolation_changes);
	cr_assert_not(p.isolation_stays); /* a plugin restart is enough in basic */
	np_plan_release(&p);

	t.mode = NP_MODE_EXCLUSIVE;
	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), 0);
	cr_assert_eq(p.nchanges, 1);
	cr_assert_str_eq(p.changes[0].key, "cgpu");
	cr_assert_str_eq(p.changes[0].after, "false");
	np_plan_release(&p);
	kvlist_release(&l);

	/* an unlabelled node gets both labels */
	l = (struct kvlist){ 0 };
	t.mode = NP_MODE_ISOLATE;
	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), 0);
	cr_assert_eq(p.nchanges, 2);
	cr_assert_null(p.changes[0].before);
	cr_assert_str_eq(p.changes[0].after, "true");
	cr_assert_str_eq(p.changes[1].after, "false");
	cr_assert_eq(p.before, NP_MODE_UNKNOWN);
	np_plan_release(&p);
}

Test(nodepool, plan_opensource)
{
	struct kvlist l = LABELS("gpushare=true");
	struct np_target t = { NP_EDITION_OPENSOURCE, NP_MODE_EXCLUSIVE, NULL };
	struct np_plan p;
	struct kerr err = KERR_INIT;
	json_t *patch;
	char *s;

	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), 0);
	cr_assert_eq(p.nchanges, 1);
	cr_assert_null(p.changes[0].after);
	patch = np_plan_patch(&p, "42");
	s = json_dumps(patch, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(s, "{\"metadata\":{\"labels\":{\"gpushare\":null},\"resourceVersion\":\"42\"}}");
	free(s);
	json_decref(patch);
	np_plan_release(&p);

	t.mode = NP_MODE_CORE;
	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), -1);
	kerr_release(&err);
	kvlist_release(&l);
}

Test(nodepool, patch_body)
{
	struct kvlist l = { 0 };
	struct np_target t = { NP_EDITION_PRO, NP_MODE_SHARE, "binpack" };
	struct np_plan p;
	struct kerr err = KERR_INIT;
	json_t *patch;
	char *s;

	cr_assert_eq(np_plan_node(&t, "n", &l, &p, &err), 0);
	patch = np_plan_patch(&p, NULL);
	s = json_dumps(patch, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(s, "{\"metadata\":{\"labels\":{\"ack.node.gpu.placement\":\"binpack\","
			    "\"ack.node.gpu.schedule\":\"share\"}}}");
	free(s);
	json_decref(patch);
	np_plan_release(&p);
}

Test(nodepool, regions)
{
	cr_assert(np_region_isolates("cn-hangzhou"));
	cr_assert(np_region_isolates("us-west-1"));
	cr_assert_not(np_region_isolates("eu-central-1"));
	cr_assert_not(np_region_isolates(NULL));
}

/* --- syntax ------------------------------------------------------------------------ */

Test(nodepool, label_syntax)
{
	char long_name[70];

	cr_assert(np_label_key_valid("gpushare"));
	cr_assert(np_label_key_valid("alibabacloud.com/nodepool-id"));
	cr_assert(np_label_key_valid("ack.node.gpu.schedule"));
	cr_assert_not(np_label_key_valid(""));
	cr_assert_not(np_label_key_valid("/name"));
	cr_assert_not(np_label_key_valid("Example.COM/name"));
	cr_assert_not(np_label_key_valid("a/b/c"));
	cr_assert_not(np_label_key_valid("-lead"));
	cr_assert_not(np_label_key_valid("sp ace"));
	cr_assert_not(np_label_key_valid("a,b"));
	memset(long_name, 'a', 64);
	long_name[64] = '\0';
	cr_assert_not(np_label_key_valid(long_name));
	long_name[63] = '\0';
	cr_assert(np_label_key_valid(long_name));

	cr_assert(np_label_value_valid(""));
	cr_assert(np_label_value_valid("core_mem"));
	cr_assert(np_label_value_valid("np-0a1b.2"));
	cr_assert_not(np_label_value_valid("trail-"));
	cr_assert_not(np_label_value_valid("a=b"));
	cr_assert_not(np_label_value_valid(NULL));
}

Test(nodepool, pool_selector)
{
	struct kerr err = KERR_INIT;
	char *s = NULL;

	cr_assert_eq(np_pool_selector("np-gpu", &s, &err), 0);
	cr_assert_str_eq(s, "alibabacloud.com/nodepool-id=np-gpu");
	free(s);
	cr_assert_eq(np_pool_selector("pool=cgpu-no-isolation", &s, &err), 0);
	cr_assert_str_eq(s, "pool=cgpu-no-isolation");
	free(s);
	cr_assert_eq(np_pool_selector("a b", &s, &err), -1);
	cr_assert_eq(err.kind, KERR_USAGE);
	kerr_release(&err);
	cr_assert_eq(np_pool_selector("x=y,z=w", &s, &err), -1);
	kerr_release(&err);
	cr_assert_eq(np_pool_selector("", &s, &err), -1);
	kerr_release(&err);
}

static char *selector_of(const char *json, struct kerr *err)
{
	json_error_t jerr;
	json_t *j = json_loads(json, 0, &jerr);
	char *s = NULL;

	cr_assert_not_null(j, "%s", jerr.text);
	if (np_selector_from_json(j, &s, err) < 0)
		s = NULL;
	json_decref(j);
	return s;
}

Test(nodepool, selector_from_daemonset)
{
	struct kerr err = KERR_INIT;
	char *s;

	s = selector_of("{\"matchLabels\":{\"name\":\"gpushare-device-plugin-ds\"}}", &err);
	cr_assert_str_eq(s, "name=gpushare-device-plugin-ds");
	free(s);

	s = selector_of("{\"matchLabels\":{\"app\":\"gpushare\",\"component\":\"gpushare-device-plugin\"},"
			"\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]},"
			"{\"key\":\"x\",\"operator\":\"NotIn\",\"values\":[\"c\"]},"
			"{\"key\":\"y\",\"operator\":\"Exists\"},{\"key\":\"z\",\"operator\":\"DoesNotExist\"}]}",
			&err);
	cr_assert_str_eq(s, "app=gpushare,component=gpushare-device-plugin,tier in (a,b),x notin (c),y,!z");
	free(s);

	s = selector_of("{}", &err);
	cr_assert_null(s);
	cr_assert(strstr(err.message, "every pod"));
	kerr_release(&err);

	s = selector_of("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}", &err);
	cr_assert_null(s);
	kerr_release(&err);

	s = selector_of("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}", &err);
	cr_assert_null(s);
	kerr_release(&err);

	/* a value that would smuggle another term into the query */
	s = selector_of("{\"matchLabels\":{\"a\":\"b,c=d\"}}", &err);
	cr_assert_null(s);
	kerr_release(&err);
}

Test(nodepool, device_plugin_daemonsets)
{
	cr_assert(np_is_device_plugin_ds("gpushare-device-plugin-ds"));
	cr_assert(np_is_device_plugin_ds("gpushare-core-device-plugin-ds"));
	cr_assert(np_is_device_plugin_ds("gpushare-cgpu-device-plugin-ds"));
	cr_assert(np_is_device_plugin_ds("gpushare-topo-device-plugin-ds"));
	cr_assert_not(np_is_device_plugin_ds("cgpu-installer"));
	cr_assert_not(np_is_device_plugin_ds("gpushare-device-plugin-ds-old"));
	cr_assert_not(np_is_device_plugin_ds("device-plugin-recover-ds"));
	cr_assert_not(np_is_device_plugin_ds(NULL));
}

/* --- durations in restart messages (restart.h) ------------------------------------------- */

#include "restart.h"

Test(nodepool, restart_durations)
{
	char buf[32];

	restart_format_duration(buf, sizeof(buf), 500);
	cr_assert_str_eq(buf, "500ms");
	restart_format_duration(buf, sizeof(buf), 30000);
	cr_assert_str_eq(buf, "30s");
	restart_format_duration(buf, sizeof(buf), 2100);
	cr_assert_str_eq(buf, "2.1s");
	restart_format_duration(buf, sizeof(buf), 300000);
	cr_assert_str_eq(buf, "5m");
	restart_format_duration(buf, sizeof(buf), 90000);
	cr_assert_str_eq(buf, "1m30s");
	restart_format_duration(buf, sizeof(buf), 3600000 + 60000);
	cr_assert_str_eq(buf, "1h1m");
	restart_format_duration(buf, 4, 90000);
	cr_assert_eq(strlen(buf), 3);
}

/* --- the words built from the scheme's table of editions ------------------- */

Test(nodepool, messages_list_what_the_editions_offer)
{
	struct kerr err = KERR_INIT;
	struct np_target t = { .edition = NP_EDITION_OPENSOURCE, .mode = NP_MODE_ISOLATE };
	struct np_detect d;
	enum np_edition e;
	enum np_mode m;

	cr_assert_eq(np_mode_parse("mps", &m, &err), -1);
	cr_assert_str_eq(err.message,
			 "unknown mode \"mps\": use exclusive, share, isolate or core (or default, cgpu, core_mem)");
	kerr_release(&err);
	cr_assert_eq(np_mode_parse(NULL, &m, &err), -1);
	kerr_release(&err);
	cr_assert_eq(np_edition_parse("lite", &e, &err), -1);
	cr_assert_str_eq(err.message, "unknown edition \"lite\": use pro, basic or opensource");
	kerr_release(&err);
	cr_assert_eq(np_target_check(&t, &err), -1);
	cr_assert_str_eq(err.message,
			 "mode isolate does not exist in the opensource edition (open-source gpushare): it has exclusive, share");
	kerr_release(&err);
	t = (struct np_target){ .edition = NP_EDITION_BASIC, .mode = NP_MODE_SHARE, .placement = "spread" };
	cr_assert_eq(np_target_check(&t, &err), -1);
	cr_assert_str_eq(err.message, "--placement exists only in the pro edition (ack.node.gpu.placement label)");
	kerr_release(&err);
	np_detect_init(&d);
	cr_assert_eq(np_detect_finish(&d, NP_EDITION_UNKNOWN, &e, &err), -1);
	cr_assert(strstr(err.message, "no node has a ack.node.gpu.schedule, cgpu or gpushare label"), "%s", err.message);
	cr_assert(strstr(err.message, "--edition pro|basic|opensource"), "%s", err.message);
	kerr_release(&err);
	np_detect_release(&d);
	cr_assert_eq(np_node_label_keys(), scheme_modes_find()->node_labels);
	cr_assert_eq(np_pin_label_keys(), scheme_modes_find()->pin_labels);
}

/* A node without any edition's mode label is "unlabelled", the word of the
 * MODE column; one labelled for another edition or mps is "unknown". */
Test(nodepool, plan_names_an_unlabelled_node)
{
	struct kvlist bare = LABELS("kubernetes.io/os=linux"), pro = LABELS("ack.node.gpu.schedule=cgpu");
	struct np_target t = { NP_EDITION_BASIC, NP_MODE_SHARE, NULL };
	struct np_plan p;
	struct kerr err = KERR_INIT;

	cr_assert_eq(np_plan_node(&t, "gpu-a", &bare, &p, &err), 0);
	cr_assert_eq(p.before, NP_MODE_UNKNOWN);
	cr_assert_str_eq(np_plan_before_name(&p), "unlabelled");
	cr_assert_str_eq(np_plan_before_name(&p), scheme_modes_find()->unlabelled);
	np_plan_release(&p);
	cr_assert_eq(np_plan_node(&t, "gpu-a", &pro, &p, &err), 0);
	cr_assert_str_eq(np_plan_before_name(&p), "unknown");
	np_plan_release(&p);
	kvlist_release(&bare);
	kvlist_release(&pro);
}
