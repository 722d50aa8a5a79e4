/* Shell completion.
 *
 * kubectl (1.26+) completes a plugin's arguments by running
 * kubectl_complete-<plugin> with the words typed so far and the word being
 * completed; that helper runs `kubectl-inspect-cgpu __complete WORDS... CUR`.
 * The bash, zsh and fish scripts call the same entry point.  Candidates are
 * printed one per line, then cobra's directive line (":4" = no file names,
 * ":6" = no file names and no space after the word, for "KEY=").
 * Values from the cluster (node names, pools, namespaces) are fetched with a
 * short deadline and any failure prints nothing: a shell must never hang.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "load.h"
#include "scheme.h"
#include "termsafe.h"

#define DIRECTIVE_NO_SPACE 2
#define DIRECTIVE_NO_FILE_COMP 4
#define COMPLETION_TIMEOUT_MS 2000

/* The commands people type (not the hidden ones shells call). */
static void add_commands(struct strset *w)
{
	for (const struct command *c = commands + 1; c->run; c++)
		if (strncmp(c->name, "__", 2) != 0)
			strset_add(w, c->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct node_names {
	struct strset *out;
	const char *pool_key; /* collect this label's values instead of names */
};

static int collect_node(void *ud, struct k8s_node *node, struct kerr *err)
{
	struct node_names *nn = ud;

	if (nn->pool_key)
		strset_add(nn->out, kvlist_get(&node->labels, nn->pool_key));
	else
		strset_add(nn->out, node->name);
	k8s_node_free(node);
	return 0;
}

static const char *const pool_label_keys[] = { POOL_LABEL, NULL };

/* Node names, or node-pool ids, from the cluster the global flags point at. */
static void complete_from_nodes(struct cli_ctx *ctx, bool pools, struct strset *out)
{
	struct cluster cl = { 0 };
	struct kerr err = KERR_INIT;
	struct decode_filter filter = { .label_keys = pools ? pool_label_keys : NULL };
	struct node_names nn = { out, pools ? pool_label_keys[0] : NULL };
	struct kube_list list = {
		.path = "/api/v1/nodes",
		.kind = OBJ_NODE,
		.from_cache = true,
		.filter = &filter,
		.sink = { .node = collect_node, .ud = &nn },
	};

	ctx->g.request_timeout_ms = COMPLETION_TIMEOUT_MS;
	ctx->g.verbosity = 0;
	if (cluster_connect(ctx, &cl, &err) == 0)
		kube_list_run(cl.client, &list, 1, &err);
	kube_list_release(&list);
	cluster_release(&cl);
	kerr_release(&err);
}

static int collect_pod_namespace(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	strset_add(ud, pod->namespace);
	k8s_pod_free(pod);
	return 0;
}

/* Namespaces from the namespace list; when that is refused or absent (the
 * read-only role grants nodes and pods only), from the pods instead.  A
 * server that cannot be reached is not asked a second time. */
static void complete_namespaces(struct cli_ctx *ctx, struct strset *out)
{
	struct cluster cl = { 0 };
	struct kerr err = KERR_INIT;
	json_t *list = NULL;
	struct decode_filter filter = { 0 };
	struct kube_list pods = {
		.path = "/api/v1/pods",
		.kind = OBJ_POD,
		.from_cache = true,
		.filter = &filter,
		.sink = { .pod = collect_pod_namespace, .ud = out },
	};

	ctx->g.request_timeout_ms = COMPLETION_TIMEOUT_MS;
	ctx->g.verbosity = 0;
	if (cluster_connect(ctx, &cl, &err) < 0)
		goto out;
	if (kube_get_json(cl.client, "/api/v1/namespaces", NULL, &list, &err) == 0) {
		size_t i;
		json_t *item;

		json_array_foreach(json_object_get(list, "items"), i, item)
			strset_add(out, json_string_value(json_object_get(json_object_get(item, "metadata"), "name")));
	} else if (err.kind == KERR_STATUS && (err.code == 403 || err.code == 404)) {
		kerr_release(&err);
		kube_list_run(cl.client, &pods, 1, &err);
		kube_list_release(&pods);
	}
	json_decref(list);
out:
	cluster_release(&cl);
	kerr_release(&err);
}

static void add_daemonsets(json_t *list, struct strset *out)
{
	size_t i;
	json_t *item;

	json_array_foreach(json_object_get(list, "items"), i, item) {
		json_t *meta = json_object_get(item, "metadata");
		const char *ns = json_string_value(json_object_get(meta, "namespace"));
		const char *name = json_string_value(json_object_get(meta, "name"));
		char *s;

		if (ns && name && asprintf(&s, "%s/%s", ns, name) >= 0) {
			strset_add(out, s);
			free(s);
		}
	}
}

/* DaemonSets as NAMESPACE/NAME, for restart --daemonset: of every namespace,
 * or, where that is refused (the admin role grants kube-system), of
 * kube-system, where the device plugins live. */
static void complete_daemonsets(struct cli_ctx *ctx, struct strset *out)
{
	struct cluster cl = { 0 };
	struct kerr err = KERR_INIT;
	json_t *list = NULL;

	ctx->g.request_timeout_ms = COMPLETION_TIMEOUT_MS;
	ctx->g.verbosity = 0;
	if (cluster_connect(ctx, &cl, &err) < 0)
		goto out;
	if (kube_get_json(cl.client, "/apis/apps/v1/daemonsets", NULL, &list, &err) == 0) {
		add_daemonsets(list, out);
	} else if (err.kind == KERR_STATUS && err.code == 403) {
		kerr_release(&err);
		if (kube_get_json(cl.client, "/apis/apps/v1/namespaces/kube-system/daemonsets", NULL, &list, &err) == 0)
			add_daemonsets(list, out);
	}
	json_decref(list);
out:
	cluster_release(&cl);
	kerr_release(&err);
}

static void add_key(struct strset *out, const char *key)
{
	char *s;

	if (asprintf(&s, "%s=", key) >= 0) {
		strset_add(out, s);
		free(s);
	}
}

/* The label keys the plugin reads and manages, ready for a value: the
 * sharing modes' and the pool's (not the region), the card model's, and
 * the zone. */
static void complete_label_keys(struct strset *out)
{
	const struct scheme_modes *sm = scheme_modes_find();

	for (size_t i = 0; sm && sm->node_labels[i]; i++)
		if (strcmp(sm->node_labels[i], REGION_LABEL) != 0)
			add_key(out, sm->node_labels[i]);
	for (size_t i = 0; scheme_card_model_labels[i]; i++)
		add_key(out, scheme_card_model_labels[i]);
	strset_add(out, "topology.kubernetes.io/zone=");
}

static void complete_values(struct cli_ctx *ctx, const char *values, struct strset *out)
{
	if (!values)
		return;
	if (strcmp(values, "nodes") == 0) {
		complete_from_nodes(ctx, false, out);
	} else if (strcmp(values, "pools") == 0) {
		complete_from_nodes(ctx, true, out);
	} else if (strcmp(values, "namespaces") == 0) {
		complete_namespaces(ctx, out);
	} else if (strcmp(values, "contexts") == 0) {
		struct kerr err = KERR_INIT;
		char **names = kubeconfig_context_names(&ctx->g.ov, &err);

		for (size_t i = 0; names && names[i]; i++)
			strset_add(out, names[i]);
		strv_free(names);
		kerr_release(&err);
	} else if (strcmp(values, "labels") == 0) {
		complete_label_keys(out);
	} else if (strcmp(values, "schemes") == 0) {
		for (size_t i = 0; schemes[i]; i++)
			strset_add(out, schemes[i]->name);
	} else if (strcmp(values, "daemonsets") == 0) {
		complete_daemonsets(ctx, out);
	} else if (strcmp(values, "commands") == 0) {
		add_commands(out);
	} else if (strcmp(values, "clusters") == 0 || strcmp(values, "users") == 0) {
		/* not offered: contexts are what people switch between */
	} else {
		/* a space-separated list of literal values */
		char *copy = strdup(values), *save = NULL;

		for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
			strset_add(out, w);
		free(copy);
	}
}

static const struct flag *flag_named(const struct flag *flags, const char *word)
{
	for (const struct flag *f = flags; f && f->name; f++) {
		if (word[0] == '-' && word[1] == '-' && strcmp(word + 2, f->name) == 0)
			return f;
		if (word[0] == '-' && word[1] == f->shorthand && word[2] == '\0' && f->shorthand)
			return f;
	}
	return NULL;
}

/* The flag of cmd (its own, or of its node-selection block) a word names. */
static const struct flag *command_flag_named(const struct command *cmd, const char *word)
{
	const struct flag *tables[CLI_FLAG_TABLES], *f = NULL;

	cli_flag_tables(cmd, tables);
	for (size_t t = 0; !f && tables[t]; t++)
		f = flag_named(tables[t], word);
	return f;
}

static void add_flags(const struct flag *flags, struct strset *out)
{
	for (const struct flag *f = flags; f && f->name; f++) {
		char *s;

		if (asprintf(&s, "--%s", f->name) >= 0) {
			strset_add(out, s);
			free(s);
		}
	}
}

static void add_command_flags(const struct command *cmd, struct strset *out)
{
	const struct flag *tables[CLI_FLAG_TABLES];

	cli_flag_tables(cmd, tables);
	for (size_t t = 0; tables[t]; t++)
		add_flags(tables[t], out);
}

int complete_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *cur = argc > 1 ? argv[argc - 1] : "";
	const struct command *cmd = commands;
	const struct flag *pending = NULL;
	struct strset cand = { 0 };
	size_t npos = 0;
	int directive = DIRECTIVE_NO_FILE_COMP;

	/* Global flags already typed (--context, --kubeconfig, ...) choose the
	 * cluster that values are fetched from. */
	for (int i = 1; i < argc - 1; i++) {
		const char *w = argv[i];
		const struct flag *f;

		if (pending) {
			pending = NULL;
			continue;
		}
		if (w[0] == '-') {
			char *eq = strchr(w, '=');

			if (eq) {
				char *flagname = strndup(w, (size_t)(eq - w));

				f = flagname ? flag_named(global_flags, flagname) : NULL;
				free(flagname);
				if (f) {
					char *one[] = { "x", (char *)w, NULL };

					cli_take_global_flags(2, one, &ctx->g, err);
				}
				continue;
			}
			f = flag_named(global_flags, w);
			if (!f)
				f = command_flag_named(cmd, w);
			if (f && f->arg) {
				if (i + 1 < argc - 1 && flag_named(global_flags, w)) {
					char *two[] = { "x", (char *)w, argv[i + 1], NULL };

					cli_take_global_flags(3, two, &ctx->g, err);
				}
				pending = f;
			}
			continue;
		}
		if (npos == 0 && cmd == commands) {
			const struct command *named = cli_find_command(w);

			if (named && strncmp(named->name, "__", 2) != 0) {
				cmd = named;
				continue;
			}
		}
		npos++;
	}
	kerr_release(err);

	if (argc >= 3 && !pending) {
		const char *prev = argv[argc - 2];
		const struct flag *f = command_flag_named(cmd, prev);

		if (!f)
			f = flag_named(global_flags, prev);
		if (f && f->arg && prev[0] == '-' && !strchr(prev, '='))
			pending = f;
	}

	if (pending) {
		complete_values(ctx, pending->values, &cand);
	} else if (cur[0] == '-') {
		const char *eq = strchr(cur, '=');

		if (eq) {
			char *name = strndup(cur, (size_t)(eq - cur));
			const struct flag *f = name ? command_flag_named(cmd, name) : NULL;

			if (name && !f)
				f = flag_named(global_flags, name);
			if (f && f->arg) {
				struct strset vals = { 0 };

				complete_values(ctx, f->values, &vals);
				for (size_t i = 0; i < vals.len; i++) {
					char *s;

					if (asprintf(&s, "%s=%s", name, vals.v[i]) >= 0) {
						strset_add(&cand, s);
						free(s);
					}
				}
				strset_release(&vals);
			}
			free(name);
		} else {
			add_command_flags(cmd, &cand);
			add_flags(global_flags, &cand);
		}
	} else {
		if (cmd == commands && npos == 0)
			add_commands(&cand);
		/* The first positional of a command may be a fixed word list
		 * (the mode command's modes); the rest are node names. */
		if (npos == 0 && cmd->first_arg_values)
			complete_values(ctx, cmd->first_arg_values, &cand);
		else
			complete_from_nodes(ctx, false, &cand);
	}

	if (cand.len) /* qsort wants a non-NULL array even for no elements */
		qsort(cand.v, cand.len, sizeof(*cand.v), cmp_str);
	for (size_t i = 0; i < cand.len; i++) {
		size_t n = strlen(cand.v[i]);

		if (strncmp(cand.v[i], cur, strlen(cur)) != 0)
			continue;
		/* one candidate per line: a newline or tab of a node name or label
		 * must not break the shell's protocol */
		termsafe_fputs(cand.v[i], ctx->out);
		fputc('\n', ctx->out);
		/* a label key waits for its value: the shell must not add a space */
		if (n && cand.v[i][n - 1] == '=')
			directive |= DIRECTIVE_NO_SPACE;
	}
	fprintf(ctx->out, ":%d\n", directive);
	strset_release(&cand);
	return 0;
}
