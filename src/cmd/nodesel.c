/* Choosing nodes for the commands that work on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodepool.h"
#include "nodesel.h"
#include "scheme.h"

#define SELECTOR_FLAG \
	{ "selector", 'l', "SELECTOR", "only nodes matching this label selector (e.g. key=value)", "labels" }
#define POOL_FLAG \
	{ "pool", 0, "NAME", "only the nodes of this node pool (" POOL_LABEL "=NAME), or with this KEY=VALUE label", \
	  "pools" }

#define NODE_FLAG \
	{ "node", 0, CLI_LIST_ARG("NAME"), "only these nodes, by name (repeatable, or comma-separated)", "nodes" }

enum { NS_SELECTOR, NS_POOL, NS_NODE, NS_SCHEME, NS_DRA_DRIVER };

const struct flag nodesel_flags[] = {
	[NS_SELECTOR] = SELECTOR_FLAG,
	[NS_POOL] = POOL_FLAG,
	[NS_NODE] = NODE_FLAG,
	{ 0 },
};

const struct flag nodesel_scheme_flags[] = {
	[NS_SELECTOR] = SELECTOR_FLAG,
	[NS_POOL] = POOL_FLAG,
	[NS_NODE] = NODE_FLAG,
	[NS_SCHEME] = { "scheme", 0, "NAME", "only nodes and pods of this sharing scheme (default: each node's own)",
			"schemes" },
	[NS_DRA_DRIVER] = { "dra-driver", 0, CLI_LIST_ARG("NAME"),
			    "DRA driver whose devices are GPUs too, beside gpu.nvidia.com"
			    " and those with a memory capacity (repeatable, or comma-separated)",
			    "dra-drivers" },
	{ 0 },
};

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* --scheme names a row of the scheme table; the error lists them all. */
static int check_scheme(const char *name, struct kerr *err)
{
	char *names;

	if (scheme_find(name))
		return 0;
	names = scheme_names_text();
	kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--scheme\" flag: must be %s", name,
		 names ? names : "a scheme's name");
	free(names);
	return -1;
}

/* -l and --pool as one selector: a node must match both.  An empty -l
 * selects nothing out. */
static int join_selectors(struct nodesel *s, struct kerr *err)
{
	const char *sel = s->selector && *s->selector ? s->selector : NULL;
	char *p = NULL;
	int rc;

	if (s->pool && np_pool_selector(s->pool, &p, err) < 0)
		return -1;
	if (sel && p)
		rc = asprintf(&s->label_selector, "%s,%s", sel, p);
	else if (sel || p)
		rc = (s->label_selector = strdup(sel ? sel : p)) ? 0 : -1;
	else
		rc = 0;
	free(p);
	if (rc < 0) {
		s->label_selector = NULL;
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	return 0;
}

/* Node names as given, without repeats, in the order first given. */
static int take_names(struct nodesel *s, char **names, size_t n, struct kerr *err)
{
	if (n == 0)
		return 0;
	s->names = calloc(n + 1, sizeof(*s->names));
	if (!s->names)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		if (!*names[i])
			return kerr_set(err, KERR_USAGE, "a node name must not be empty");
		for (size_t j = 0; j < s->nnames; j++)
			dup |= strcmp(s->names[j], names[i]) == 0;
		if (!dup)
			s->names[s->nnames++] = names[i];
	}
	return 0;
}

/* The names of --node (commas between them) after the positional ones. */
static int take_node_flag(struct nodesel *s, const char *list, char **names, size_t n, struct kerr *err)
{
	char **items, **all;
	size_t k;
	int rc;

	if (strspn(list, ",") == strlen(list))
		return kerr_set(err, KERR_USAGE, "a node name must not be empty");
	if (cli_list_split(list, "--node", &s->node_buf, &items, &k, err) < 0)
		return -1;
	if (!(all = calloc(n + k + 1, sizeof(*all)))) {
		free(items);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	memcpy(all, names, n * sizeof(*all));
	memcpy(all + n, items, k * sizeof(*all));
	rc = take_names(s, all, n + k, err);
	free(items);
	free(all);
	return rc;
}

void nodesel_release(struct nodesel *s)
{
	if (!s)
		return;
	free(s->names);
	free(s->node_buf);
	free(s->dra_drivers);
	free(s->dra_driver_buf);
	free(s->label_selector);
	memset(s, 0, sizeof(*s));
}

int nodesel_parse(struct nodesel *s, const struct command *cmd, const char *const *vals, char **names, size_t n,
		  bool required, struct kerr *err)
{
	const char *const *v = vals + cli_flag_count(cmd->flags[0]);
	size_t nflags = cmd->flags[0] ? cli_flag_count(cmd->flags[1]) : 0;

	memset(s, 0, sizeof(*s));
	if (nflags > NS_SELECTOR)
		s->selector = v[NS_SELECTOR];
	if (nflags > NS_POOL)
		s->pool = v[NS_POOL];
	if (nflags > NS_SCHEME && v[NS_SCHEME]) {
		if (check_scheme(v[NS_SCHEME], err) < 0)
			return -1;
		s->scheme = scheme_find(v[NS_SCHEME])->name; /* as the table spells it */
	}
	if (nflags > NS_DRA_DRIVER && v[NS_DRA_DRIVER] &&
	    cli_list_split(v[NS_DRA_DRIVER], "--dra-driver", &s->dra_driver_buf, &s->dra_drivers, &s->ndra_drivers,
			   err) < 0)
		return -1;
	if (join_selectors(s, err) < 0)
		return -1;
	if (nflags > NS_NODE && v[NS_NODE])
		s->node_flag = v[NS_NODE];
	if ((n || s->node_flag) && s->label_selector)
		return kerr_set(err, KERR_USAGE, "name cannot be provided when a selector is specified");
	if (required && !n && !s->node_flag && !s->label_selector)
		return kerr_set(err, KERR_USAGE, "choose nodes: name them, or select them with -l SELECTOR or --pool NAME");
	if (s->node_flag)
		return take_node_flag(s, s->node_flag, names, n, err);
	return take_names(s, names, n, err);
}

char *nodesel_text(const struct nodesel *s)
{
	char *t = NULL;
	int rc;

	if (s->node_flag && !s->label_selector)
		rc = asprintf(&t, "--node %s", s->node_flag);
	else if (s->selector && s->pool)
		rc = asprintf(&t, "-l %s --pool %s", s->selector, s->pool);
	else if (s->selector || s->pool)
		rc = asprintf(&t, "%s %s", s->selector ? "-l" : "--pool", s->selector ? s->selector : s->pool);
	else
		rc = (t = strdup("")) ? 0 : -1;
	return rc < 0 ? NULL : t;
}

void np_node_release(struct np_node *n)
{
	if (!n)
		return;
	free(n->name);
	free(n->resource_version);
	kvlist_release(&n->labels);
	memset(n, 0, sizeof(*n));
}

void np_nodes_release(struct np_nodes *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->len; i++)
		np_node_release(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int nodes_push(struct np_nodes *l, struct np_node *n)
{
	struct np_node *items;

	items = kube_array_grow(l->items, &l->cap, l->len + 1, sizeof(*items), 16);
	if (!items)
		return -1;
	l->items = items;
	l->items[l->len++] = *n;
	memset(n, 0, sizeof(*n));
	return 0;
}

static int node_sink(void *ud, struct k8s_node *k, struct kerr *err)
{
	struct np_nodes *l = ud;
	struct np_node n = { .name = k->name, .resource_version = k->resource_version, .labels = k->labels };

	k->name = NULL;
	k->resource_version = NULL;
	memset(&k->labels, 0, sizeof(k->labels));
	k8s_node_free(k);
	if (nodes_push(l, &n) < 0) {
		np_node_release(&n);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	return 0;
}

/* A list restarted after 410 Expired: forget what the first attempt gave. */
static void node_list_meta(void *ud, const char *rv, const char *cont)
{
	if (!rv && !cont)
		np_nodes_release(ud);
}


static const struct np_node *nodes_find(const struct np_nodes *l, const char *name)
{
	for (size_t i = 0; i < l->len; i++)
		if (strcmp(l->items[i].name, name) == 0)
			return &l->items[i];
	return NULL;
}

static int node_copy(const struct np_node *src, struct np_node *dst)
{
	memset(dst, 0, sizeof(*dst));
	dst->name = strdup(src->name);
	dst->resource_version = src->resource_version ? strdup(src->resource_version) : NULL;
	if (!dst->name || (src->resource_version && !dst->resource_version))
		goto fail;
	for (size_t i = 0; i < src->labels.len; i++) {
		const struct kv *kv = &src->labels.items[i];

		if (kvlist_add(&dst->labels, kv->key, strlen(kv->key), kv->value, strlen(kv->value)) < 0)
			goto fail;
	}
	return 0;
fail:
	np_node_release(dst);
	return -1;
}

int np_nodes_select(struct kube_client *c, const struct nodesel *sel, struct np_nodes *all, struct np_nodes *chosen,
		    struct kerr *err)
{
	const char *selector = sel->label_selector;
	struct np_nodes a = { 0 }, s = { 0 };
	const struct decode_filter node_filter = { .label_keys = np_node_label_keys() };
	struct kube_list lists[2] = {
		{ .path = "/api/v1/nodes", .kind = OBJ_NODE, .filter = &node_filter,
		  .sink = { .node = node_sink, .list_meta = node_list_meta, .ud = &a } },
		{ .path = "/api/v1/nodes", .label_selector = selector, .kind = OBJ_NODE, .filter = &node_filter,
		  .sink = { .node = node_sink, .list_meta = node_list_meta, .ud = &s } },
	};
	int rc = -1;

	if (kube_list_run(c, lists, selector ? 2 : 1, err) < 0)
		goto out;
	if (selector) {
		if (s.len == 0) {
			kerr_set(err, KERR_OTHER, "no nodes match the selector \"%s\"", selector);
			goto out;
		}
	} else {
		for (size_t i = 0; i < sel->nnames; i++) {
			const struct np_node *found = nodes_find(&a, sel->names[i]);
			struct np_node copy;
			char *msg = NULL;

			if (!found) {
				if (asprintf(&msg, "nodes \"%s\" not found", sel->names[i]) < 0)
					msg = NULL;
				kerr_set_status(err, 404, "NotFound", msg ? msg : "node not found");
				free(msg);
				goto out;
			}
			if (node_copy(found, &copy) < 0 || nodes_push(&s, &copy) < 0) {
				np_node_release(&copy);
				kerr_set(err, KERR_OTHER, "out of memory");
				goto out;
			}
		}
	}
	*all = a;
	*chosen = s;
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	rc = 0;
out:
	for (size_t i = 0; i < 2; i++)
		kube_list_release(&lists[i]);
	np_nodes_release(&a);
	np_nodes_release(&s);
	return rc;
}

int np_node_get(struct kube_client *c, const char *name, struct np_node *ret, struct kerr *err)
{
	char *path = kube_path("v1", NULL, "nodes", name);
	json_t *j = NULL, *labels;
	struct np_node n = { 0 };
	const char *k;
	json_t *v;
	int rc = -1;

	if (!path) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	if (kube_get_json(c, path, NULL, &j, err) < 0)
		goto out;
	n.name = strdup(name);
	n.resource_version = strdup(str_or(json_string_value(json_object_get(json_object_get(j, "metadata"),
								       "resourceVersion")), ""));
	labels = json_object_get(json_object_get(j, "metadata"), "labels");
	json_object_foreach(labels, k, v) {
		const char *s = json_string_value(v);

		if (!s || !decode_filter_match(np_node_label_keys(), k, strlen(k)))
			continue;
		if (kvlist_add(&n.labels, k, strlen(k), s, strlen(s)) < 0)
			break;
	}
	if (!n.name || !n.resource_version) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	*ret = n;
	memset(&n, 0, sizeof(n));
	rc = 0;
out:
	np_node_release(&n);
	json_decref(j);
	free(path);
	return rc;
}
