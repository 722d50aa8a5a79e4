#include "nodepool.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The scheme's table of editions and their labels. */
static const struct scheme_modes *modes(void)
{
	return scheme_modes_find();
}

static const struct scheme_edition *edition_of(enum np_edition e)
{
	const struct scheme_modes *m = modes();

	return e > NP_EDITION_UNKNOWN && (size_t)e <= m->neditions ? &m->editions[e - 1] : NULL;
}

const char *const *np_node_label_keys(void)
{
	return modes()->node_labels;
}

const char *const *np_pin_label_keys(void)
{
	return modes()->pin_labels;
}

const char *const np_device_plugin_ds_names[] = {
	"gpushare-device-plugin-ds",
	"gpushare-cgpu-device-plugin-ds",
	"gpushare-core-device-plugin-ds",
	"gpushare-mps-device-plugin-ds",
	NULL,
};

/* DaemonSets that only one edition installs; gpushare-device-plugin-ds and
 * cgpu-installer exist in more than one and prove nothing on their own. */
static const struct {
	const char *name;
	enum np_edition edition;
} edition_daemonsets[] = {
	{ "gpushare-cgpu-device-plugin-ds", NP_EDITION_PRO },
	{ "gpushare-core-device-plugin-ds", NP_EDITION_PRO },
	{ "gpushare-mps-device-plugin-ds", NP_EDITION_PRO },
	{ "cgpu-core-installer", NP_EDITION_PRO },
	{ "gputopo-device-plugin-ds", NP_EDITION_PRO },
	{ "device-plugin-evict-ds", NP_EDITION_BASIC },
	{ "device-plugin-recover-ds", NP_EDITION_BASIC },
};

/* Seed 000: the regions where cGPU memory isolation is offered. */
static const char *const isolation_regions[] = {
	"cn-beijing", "cn-shanghai", "cn-hangzhou", "cn-zhangjiakou", "cn-shenzhen", "cn-chengdu",
	"cn-heyuan", "cn-hongkong", "ap-southeast-5", "ap-southeast-1", "us-east-1", "us-west-1", NULL,
};

/* --- a small growable string ---------------------------------------------- */

struct sbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sbuf_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbuf_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	s = kube_array_grow(b->s, &b->cap, b->len + (size_t)n + 1, 1, 64);
	if (!s) {
		b->failed = true;
		return;
	}
	b->s = s;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Hands the string over; NULL if anything failed. */
static char *sbuf_take(struct sbuf *b)
{
	char *s = b->s;

	if (b->failed || !s) {
		free(s);
		s = NULL;
	}
	memset(b, 0, sizeof(*b));
	return s;
}

static bool streq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcasecmp(a, b) == 0;
}

/* --- editions and modes ------------------------------------------------------ */

int np_edition_parse(const char *s, enum np_edition *ret, struct kerr *err)
{
	struct sbuf names = {0};
	char *list;

	for (int e = NP_EDITION_PRO; e < NP_NEDITIONS; e++) {
		const struct scheme_edition *ed = edition_of((enum np_edition)e);
		bool alias = false;

		for (size_t i = 0; ed->aliases && ed->aliases[i]; i++)
			alias |= streq(s, ed->aliases[i]);
		if (streq(s, ed->name) || alias) {
			*ret = (enum np_edition)e;
			return 0;
		}
		sbuf_add(&names, "%s%s", e == NP_EDITION_PRO ? "" : e + 1 == NP_NEDITIONS ? " or " : ", ", ed->name);
	}
	list = sbuf_take(&names);
	kerr_set(err, KERR_USAGE, "unknown edition \"%s\": use %s", s ? s : "", list ? list : "?");
	free(list);
	return -1;
}

const char *np_edition_name(enum np_edition e)
{
	return edition_of(e) ? edition_of(e)->name : "unknown";
}

const char *np_edition_title(enum np_edition e)
{
	return edition_of(e) ? edition_of(e)->title : "unknown";
}

/* The edition whose label values name modes too, or NULL. */
static const struct scheme_edition *naming_edition(void)
{
	for (size_t i = 0; i < modes()->neditions; i++)
		if (modes()->editions[i].values_name_modes)
			return &modes()->editions[i];
	return NULL;
}

/* Those values, where they differ from the modes' own names. */
static const char *mode_alias(enum np_mode m)
{
	const struct scheme_edition *ed = naming_edition();
	const char *v = ed ? ed->sets[m][0].value : NULL;

	return v && !streq(v, np_mode_name(m)) ? v : NULL;
}

int np_mode_parse(const char *s, enum np_mode *ret, struct kerr *err)
{
	struct sbuf aliases = {0};
	char *list;

	for (int m = NP_MODE_EXCLUSIVE; s && m < SCHEME_NMODES; m++) {
		if (streq(s, np_mode_name((enum np_mode)m)) || streq(s, mode_alias((enum np_mode)m))) {
			*ret = (enum np_mode)m;
			return 0;
		}
	}
	for (int m = NP_MODE_EXCLUSIVE; m < SCHEME_NMODES; m++)
		if (mode_alias((enum np_mode)m))
			sbuf_add(&aliases, "%s%s", aliases.len ? ", " : " (or ", mode_alias((enum np_mode)m));
	if (aliases.len)
		sbuf_add(&aliases, ")");
	list = sbuf_take(&aliases);
	kerr_set(err, KERR_USAGE, "unknown mode \"%s\": use exclusive, share, isolate or core%s", s ? s : "",
		 list ? list : "");
	free(list);
	return -1;
}

const char *np_mode_name(enum np_mode m)
{
	return scheme_mode_name((enum scheme_mode)m);
}

const char *np_plan_before_name(const struct np_plan *p)
{
	return p->unlabelled ? scheme_modes_find()->unlabelled : np_mode_name(p->before);
}

bool np_mode_isolates(enum np_mode m)
{
	return m == NP_MODE_ISOLATE || m == NP_MODE_CORE;
}

bool np_mode_supported(enum np_edition e, enum np_mode m)
{
	const struct scheme_edition *ed = edition_of(e);

	return ed && m > NP_MODE_UNKNOWN && (int)m < SCHEME_NMODES && ed->sets[m][0].key;
}

enum np_mode np_mode_of(enum np_edition e, const struct kvlist *labels)
{
	const struct scheme_edition *ed = edition_of(e);

	return ed ? (enum np_mode)ed->mode_of(labels) : NP_MODE_UNKNOWN;
}

/* --- edition detection -------------------------------------------------------- */

void np_detect_init(struct np_detect *d)
{
	memset(d, 0, sizeof(*d));
}

static void detect_node_vote(struct np_detect *d, enum np_edition e, const char *name)
{
	if (d->nodes[e]++ == 0 && name)
		d->node_example[e] = strdup(name);
}

void np_detect_add_node(struct np_detect *d, const char *name, const struct kvlist *labels)
{
	for (int e = NP_EDITION_PRO; e < NP_NEDITIONS; e++) {
		const char *const *mark = edition_of((enum np_edition)e)->marks;

		while (*mark && !kvlist_get(labels, *mark))
			mark++;
		if (*mark)
			detect_node_vote(d, (enum np_edition)e, name);
	}
}

void np_detect_add_daemonset(struct np_detect *d, const char *name)
{
	if (!name)
		return;
	if (strcmp(name, "gpushare-device-plugin-ds") == 0)
		d->plugin_ds = true;
	for (size_t i = 0; i < sizeof(edition_daemonsets) / sizeof(edition_daemonsets[0]); i++) {
		enum np_edition e = edition_daemonsets[i].edition;

		if (strcmp(name, edition_daemonsets[i].name) == 0 && !d->ds_example[e])
			d->ds_example[e] = strdup(name);
	}
}

/* The label that names an edition in messages. */
static const char *edition_label_hint(enum np_edition e)
{
	return edition_of(e)->marks[0];
}

int np_detect_finish(const struct np_detect *d, enum np_edition override, enum np_edition *ret,
		     struct kerr *err)
{
	enum np_edition found = NP_EDITION_UNKNOWN;
	size_t nfound = 0;
	struct sbuf b = { 0 };

	if (override != NP_EDITION_UNKNOWN) {
		*ret = override;
		return 0;
	}
	for (int e = NP_EDITION_PRO; e < NP_NEDITIONS; e++) {
		if (!d->nodes[e] && !d->ds_example[e])
			continue;
		found = (enum np_edition)e;
		nfound++;
	}
	if (nfound == 1) {
		*ret = found;
		return 0;
	}
	if (nfound == 0) {
		if (d->plugin_ds) {
			/* only the plugin every edition has, and no ACK label on any node */
			*ret = NP_EDITION_OPENSOURCE;
			return 0;
		}
		return kerr_set(err, KERR_OTHER,
				"cannot tell which GPU sharing edition this cluster runs: no node has a %s, %s or %s "
				"label and kube-system has no device-plugin DaemonSet; choose one with --edition %s|%s|%s",
				edition_label_hint(NP_EDITION_PRO), edition_label_hint(NP_EDITION_BASIC),
				edition_label_hint(NP_EDITION_OPENSOURCE), np_edition_name(NP_EDITION_PRO),
				np_edition_name(NP_EDITION_BASIC), np_edition_name(NP_EDITION_OPENSOURCE));
	}
	for (int e = NP_EDITION_PRO; e < NP_NEDITIONS; e++) {
		bool both = d->nodes[e] && d->ds_example[e];

		if (!d->nodes[e] && !d->ds_example[e])
			continue;
		sbuf_add(&b, "%s%s (", b.len ? "; " : "", np_edition_name((enum np_edition)e));
		if (d->nodes[e])
			sbuf_add(&b, "%zu node%s with %s, e.g. %s", d->nodes[e], d->nodes[e] == 1 ? "" : "s",
				 edition_label_hint((enum np_edition)e),
				 d->node_example[e] ? d->node_example[e] : "?");
		if (d->ds_example[e])
			sbuf_add(&b, "%sDaemonSet kube-system/%s", both ? ", " : "", d->ds_example[e]);
		sbuf_add(&b, ")");
	}
	{
		char *what = sbuf_take(&b);

		kerr_set(err, KERR_OTHER, "%s more than one GPU sharing edition: %s; choose one with --edition",
			 d->selected ? "the chosen nodes show signs of" : "the cluster shows signs of",
			 what ? what : "?");
		free(what);
	}
	return -1;
}

void np_detect_release(struct np_detect *d)
{
	if (!d)
		return;
	for (int e = 0; e < NP_NEDITIONS; e++) {
		free(d->node_example[e]);
		free(d->ds_example[e]);
	}
	memset(d, 0, sizeof(*d));
}

/* --- targets and plans ---------------------------------------------------------- */

/* "exclusive, share, isolate": the modes the edition offers.  malloc'd. */
static char *supported_list(enum np_edition e)
{
	struct sbuf b = {0};

	for (int m = NP_MODE_EXCLUSIVE; m < SCHEME_NMODES; m++)
		if (np_mode_supported(e, (enum np_mode)m))
			sbuf_add(&b, "%s%s", b.len ? ", " : "", np_mode_name((enum np_mode)m));
	return sbuf_take(&b);
}

/* The edition that takes a placement, or NULL. */
static const struct scheme_edition *placement_edition(void)
{
	for (size_t i = 0; i < modes()->neditions; i++)
		if (modes()->editions[i].placement_label)
			return &modes()->editions[i];
	return NULL;
}

int np_target_check(const struct np_target *t, struct kerr *err)
{
	const struct scheme_edition *ed = edition_of(t->edition), *placed = placement_edition();

	if (!ed)
		return kerr_set(err, KERR_OTHER, "no GPU sharing edition chosen");
	if (!np_mode_supported(t->edition, t->mode)) {
		char *list = supported_list(t->edition);

		kerr_set(err, KERR_USAGE, "mode %s does not exist in the %s edition (%s): it has %s",
			 np_mode_name(t->mode), ed->name, ed->title, list && *list ? list : "none");
		free(list);
		return -1;
	}
	if (t->placement) {
		if (strcmp(t->placement, "binpack") != 0 && strcmp(t->placement, "spread") != 0)
			return kerr_set(err, KERR_USAGE, "unknown placement \"%s\": use binpack or spread",
					t->placement);
		if (!ed->placement_label)
			return kerr_set(err, KERR_USAGE, "--placement exists only in the %s edition (%s label)",
					placed ? placed->name : "?", placed ? placed->placement_label : "?");
		if (t->mode == NP_MODE_EXCLUSIVE)
			return kerr_set(err, KERR_USAGE, "--placement applies only to the sharing modes, not to exclusive");
	}
	return 0;
}

/* The labels a target sets, in a fixed order: the mode's, then the
 * placement where the edition takes one. */
static size_t target_labels(const struct np_target *t, struct scheme_label w[3])
{
	const struct scheme_edition *ed = edition_of(t->edition);
	size_t n = 0;

	for (size_t i = 0; i < 2 && ed->sets[t->mode][i].key; i++)
		w[n++] = ed->sets[t->mode][i];
	if (t->placement && ed->placement_label && t->mode != NP_MODE_EXCLUSIVE)
		w[n++] = (struct scheme_label){ed->placement_label, t->placement, NULL};
	return n;
}

static char *strdup_or_null(const char *s, bool *failed)
{
	char *r;

	if (!s)
		return NULL;
	r = strdup(s);
	if (!r)
		*failed = true;
	return r;
}

int np_plan_node(const struct np_target *t, const char *node, const struct kvlist *labels,
		 struct np_plan *ret, struct kerr *err)
{
	struct np_plan p = { 0 };
	struct scheme_label w[3];
	size_t nw;
	bool failed = false, same_mode;

	if (np_target_check(t, err) < 0)
		return -1;
	nw = target_labels(t, w);
	same_mode = np_mode_of(t->edition, labels) == t->mode;
	p.node = strdup(node ? node : "");
	p.changes = calloc(nw ? nw : 1, sizeof(*p.changes));
	if (!p.node || !p.changes) {
		np_plan_release(&p);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (size_t i = 0; i < nw; i++) {
		const char *have = kvlist_get(labels, w[i].key);
		struct np_change *c;

		/* a node already in the mode needs nothing: an absent label
		 * that already means the value is not written out */
		if (streq(have, w[i].value) ||
		    (same_mode && !have && w[i].value && streq(w[i].absent, w[i].value)))
			continue;
		c = &p.changes[p.nchanges++];
		c->key = w[i].key;
		c->before = strdup_or_null(have, &failed);
		c->after = strdup_or_null(w[i].value, &failed);
	}
	p.before = np_mode_of(t->edition, labels);
	p.unlabelled = p.before == NP_MODE_UNKNOWN && scheme_modes_find() && scheme_modes_find()->labelled &&
		       !scheme_modes_find()->labelled(labels);
	p.after = t->mode;
	p.region = strdup_or_null(kvlist_get(labels, REGION_LABEL), &failed);
	if (failed) {
		np_plan_release(&p);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (p.nchanges) {
		p.isolation_changes = np_mode_isolates(p.before) != np_mode_isolates(p.after);
		p.isolation_stays = t->edition == NP_EDITION_PRO && np_mode_isolates(p.before) &&
				    !np_mode_isolates(p.after);
	}
	p.region_unsupported = np_mode_isolates(p.after) && p.region && !np_region_isolates(p.region);
	*ret = p;
	return 0;
}

void np_plan_release(struct np_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nchanges; i++) {
		free(p->changes[i].before);
		free(p->changes[i].after);
	}
	free(p->changes);
	free(p->node);
	free(p->region);
	memset(p, 0, sizeof(*p));
}

json_t *np_plan_patch(const struct np_plan *p, const char *resource_version)
{
	json_t *labels = json_object(), *meta = json_object(), *root = json_object();

	if (!labels || !meta || !root)
		goto fail;
	for (size_t i = 0; i < p->nchanges; i++) {
		const struct np_change *c = &p->changes[i];

		if (json_object_set_new(labels, c->key, c->after ? json_string(c->after) : json_null()) < 0)
			goto fail;
	}
	if (json_object_set_new(meta, "labels", labels) < 0) {
		labels = NULL;
		goto fail;
	}
	labels = NULL;
	if (resource_version && json_object_set_new(meta, "resourceVersion", json_string(resource_version)) < 0)
		goto fail;
	if (json_object_set_new(root, "metadata", meta) < 0) {
		meta = NULL;
		goto fail;
	}
	return root;
fail:
	json_decref(labels);
	json_decref(meta);
	json_decref(root);
	return NULL;
}

bool np_region_isolates(const char *region)
{
	if (!region)
		return false;
	for (size_t i = 0; isolation_regions[i]; i++)
		if (strcmp(region, isolation_regions[i]) == 0)
			return true;
	return false;
}

/* --- label and selector syntax ------------------------------------------------------ */

/* name part of a key, or a value: alphanumeric at both ends, -_. inside */
static bool label_name_ok(const char *s, size_t len, bool empty_ok)
{
	if (len == 0)
		return empty_ok;
	if (len > 63)
		return false;
	if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '-' && c != '_' && c != '.')
			return false;
	}
	return true;
}

/* DNS subdomain: lowercase alphanumeric labels joined by dots, '-' inside */
static bool dns_subdomain_ok(const char *s, size_t len)
{
	size_t start = 0;

	if (len == 0 || len > 253)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || s[i] == '.') {
			if (i == start || s[start] == '-' || s[i - 1] == '-')
				return false;
			start = i + 1;
			continue;
		}
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	}
	return true;
}

bool np_label_key_valid(const char *key)
{
	const char *slash;

	if (!key)
		return false;
	slash = strchr(key, '/');
	if (!slash)
		return label_name_ok(key, strlen(key), false);
	return dns_subdomain_ok(key, (size_t)(slash - key)) && label_name_ok(slash + 1, strlen(slash + 1), false);
}

bool np_label_value_valid(const char *value)
{
	return value && label_name_ok(value, strlen(value), true);
}

int np_pool_selector(const char *pool, char **ret, struct kerr *err)
{
	const char *eq = pool ? strchr(pool, '=') : NULL;
	char *key, *sel = NULL;
	int rc;

	if (!pool || !*pool)
		return kerr_set(err, KERR_USAGE, "--pool needs a node pool name or KEY=VALUE");
	if (!eq) {
		if (!label_name_ok(pool, strlen(pool), false))
			return kerr_set(err, KERR_USAGE, "invalid node pool name \"%s\": it must be a label value", pool);
		rc = asprintf(&sel, "%s=%s", POOL_LABEL, pool);
	} else {
		key = strndup(pool, (size_t)(eq - pool));
		if (!key)
			return kerr_set(err, KERR_OTHER, "out of memory");
		if (!np_label_key_valid(key) || !np_label_value_valid(eq + 1)) {
			kerr_set(err, KERR_USAGE, "invalid --pool \"%s\": expected NAME or KEY=VALUE with a valid label key and value",
				 pool);
			free(key);
			return -1;
		}
		rc = asprintf(&sel, "%s=%s", key, eq + 1);
		free(key);
	}
	if (rc < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	*ret = sel;
	return 0;
}

int np_selector_from_json(const json_t *selector, char **ret, struct kerr *err)
{
	const json_t *ml, *me, *v, *e;
	const char *k;
	size_t i, terms = 0;
	struct sbuf b = { 0 };
	char *s;

	if (!json_is_object(selector))
		return kerr_set(err, KERR_DECODE, "the DaemonSet has no spec.selector");
	ml = json_object_get(selector, "matchLabels");
	me = json_object_get(selector, "matchExpressions");
	if (ml && !json_is_object(ml))
		return kerr_set(err, KERR_DECODE, "spec.selector.matchLabels is not an object");
	if (me && !json_is_array(me))
		return kerr_set(err, KERR_DECODE, "spec.selector.matchExpressions is not a list");
	json_object_foreach((json_t *)ml, k, v) {
		if (!np_label_key_valid(k) || !json_is_string(v) || !np_label_value_valid(json_string_value(v)))
			goto bad;
		sbuf_add(&b, "%s%s=%s", terms++ ? "," : "", k, json_string_value(v));
	}
	json_array_foreach(me, i, e) {
		const char *key = json_string_value(json_object_get(e, "key"));
		const char *op = json_string_value(json_object_get(e, "operator"));
		const json_t *values = json_object_get(e, "values");
		bool in = streq(op, "In"), notin = streq(op, "NotIn");

		if (!np_label_key_valid(key) || !op)
			goto bad;
		if (in || notin) {
			const json_t *x;
			size_t j;

			if (!json_is_array(values) || json_array_size(values) == 0)
				goto bad;
			sbuf_add(&b, "%s%s %s (", terms++ ? "," : "", key, in ? "in" : "notin");
			json_array_foreach(values, j, x) {
				if (!json_is_string(x) || !np_label_value_valid(json_string_value(x)))
					goto bad;
				sbuf_add(&b, "%s%s", j ? "," : "", json_string_value(x));
			}
			sbuf_add(&b, ")");
		} else if (streq(op, "Exists")) {
			sbuf_add(&b, "%s%s", terms++ ? "," : "", key);
		} else if (streq(op, "DoesNotExist")) {
			sbuf_add(&b, "%s!%s", terms++ ? "," : "", key);
		} else {
			goto bad;
		}
	}
	if (!terms) {
		free(sbuf_take(&b));
		return kerr_set(err, KERR_DECODE, "the DaemonSet's selector is empty: it would match every pod");
	}
	s = sbuf_take(&b);
	if (!s)
		return kerr_set(err, KERR_OTHER, "out of memory");
	*ret = s;
	return 0;
bad:
	free(sbuf_take(&b));
	return kerr_set(err, KERR_DECODE, "cannot read the DaemonSet's selector");
}

bool np_is_device_plugin_ds(const char *name)
{
	static const char prefix[] = "gpushare-", suffix[] = "device-plugin-ds";
	size_t len = name ? strlen(name) : 0;

	for (size_t i = 0; name && np_device_plugin_ds_names[i]; i++)
		if (strcmp(name, np_device_plugin_ds_names[i]) == 0)
			return true;
	/* ack-ai-installer adds one plugin per mode; they share this shape */
	return len >= sizeof(prefix) - 1 + sizeof(suffix) - 1 && strncmp(name, prefix, sizeof(prefix) - 1) == 0 &&
	       strcmp(name + len - (sizeof(suffix) - 1), suffix) == 0;
}
