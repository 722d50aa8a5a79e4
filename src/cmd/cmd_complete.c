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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "load.h"
#include "scheme.h"
#include "scheme_dra.h"
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
	} else if (cli_drop_status(&err, 403, 404)) {
		kube_list_run(cl.client, &pods, 1, &err);
		kube_list_release(&pods);
	}
	json_decref(list);
out:
	cluster_release(&cl);
	kerr_release(&err);
}

static int collect_driver(void *ud, struct k8s_resource_slice *s, struct kerr *err)
{
	/* NVIDIA's GPU driver counts without being named */
	if (s->driver && strcmp(s->driver, DRA_GPU_DRIVER) != 0)
		strset_add(ud, s->driver);
	k8s_resource_slice_free(s);
	return 0;
}

/* The drivers of the cluster's ResourceSlices, in the newest version of
 * resource.k8s.io the server serves, for --dra-driver. */
static void complete_dra_drivers(struct cli_ctx *ctx, struct strset *out)
{
	struct cluster cl = { 0 };
	struct kerr err = KERR_INIT;
	struct decode_filter filter = { 0 };
	const char *version = NULL;
	char path[64];
	struct kube_list list = {
		.path = path,
		.from_cache = true,
		.filter = &filter,
		.sink = { .resource_slice = collect_driver, .ud = out },
	};

	ctx->g.request_timeout_ms = COMPLETION_TIMEOUT_MS;
	ctx->g.verbosity = 0;
	if (cluster_connect(ctx, &cl, &err) == 0 &&
	    kube_group_version(cl.client, "resource.k8s.io", dra_versions, &version, &err) == 0 && version) {
		snprintf(path, sizeof(path), "/apis/resource.k8s.io/%s/resourceslices", version);
		list.kind = strcmp(version, "v1beta1") == 0 ? OBJ_RESOURCE_SLICE_V1BETA1 : OBJ_RESOURCE_SLICE;
		kube_list_run(cl.client, &list, 1, &err);
	}
	kube_list_release(&list);
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
	} else if (cli_drop_status(&err, 403, 403)) {
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

/* Whether name is one of the comma-separated pieces of list. */
static bool listed(const char *list, size_t len, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list, *end = list + len; p < end;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t piece = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (piece == n && memcmp(p, name, n) == 0)
			return true;
		p += piece + 1;
	}
	return false;
}

/* --context a,b,<TAB>: each context not in the list yet, after the list
 * typed so far; one name (no comma yet): every context. */
static void complete_contexts(struct cli_ctx *ctx, const char *typed, struct strset *out)
{
	struct kerr err = KERR_INIT;
	char **names = kubeconfig_context_names(&ctx->g.ov, &err);
	const char *comma = typed ? strrchr(typed, ',') : NULL;
	size_t head = comma ? (size_t)(comma - typed) + 1 : 0;

	for (size_t i = 0; names && names[i]; i++) {
		char *s;

		if (!head) {
			strset_add(out, names[i]);
		} else if (!listed(typed, head - 1, names[i]) && asprintf(&s, "%.*s%s", (int)head, typed, names[i]) >= 0) {
			strset_add(out, s);
			free(s);
		}
	}
	strv_free(names);
	kerr_release(&err);
}

/* The values a flag's hint names; typed is the value typed so far (NULL
 * where it does not matter). */
static void complete_values(struct cli_ctx *ctx, const char *values, const char *typed, struct strset *out)
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
		complete_contexts(ctx, typed, out);
	} else if (strcmp(values, "labels") == 0) {
		complete_label_keys(out);
	} else if (strcmp(values, "schemes") == 0) {
		for (size_t i = 0; schemes[i]; i++)
			strset_add(out, schemes[i]->name);
	} else if (strcmp(values, "daemonsets") == 0) {
		complete_daemonsets(ctx, out);
	} else if (strcmp(values, "dra-drivers") == 0) {
		complete_dra_drivers(ctx, out);
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
	const struct flag *f = NULL;

	for (size_t t = 0; !f && t < CLI_FLAG_TABLES && cmd->flags[t]; t++)
		f = flag_named(cmd->flags[t], word);
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
	for (size_t t = 0; t < CLI_FLAG_TABLES && cmd->flags[t]; t++)
		add_flags(cmd->flags[t], out);
}

/* What the words typed before the current one say: the command, how many
 * positionals it has, and the flag that waits for its value. */
struct typed {
	const struct command *cmd;
	const struct flag *pending;
	size_t npos;
};

/* A global flag typed with its value (--context=x, or --context x) is
 * applied: it chooses the cluster that values are fetched from. */
static void take_global(struct cli_ctx *ctx, const char *flag, const char *value)
{
	char *argv[] = { "x", (char *)flag, (char *)value, NULL };
	struct kerr err = KERR_INIT;

	cli_take_global_flags(value ? 3 : 2, argv, &ctx->g, &err);
	kerr_release(&err);
}

/* One flag among the words typed: argv[i], its value (if apart) after it. */
static void scan_flag(struct cli_ctx *ctx, struct typed *t, int argc, char **argv, int i)
{
	const char *w = argv[i], *eq = strchr(w, '=');
	const struct flag *f;

	if (eq) {
		char *name = strndup(w, (size_t)(eq - w));

		if (name && flag_named(global_flags, name))
			take_global(ctx, w, NULL);
		free(name);
		return;
	}
	f = flag_named(global_flags, w);
	if (f && !f->arg) {
		/* --all-contexts and the like change what is offered */
		take_global(ctx, w, NULL);
		return;
	}
	if (!f)
		f = command_flag_named(t->cmd, w);
	if (!f || !f->arg || cli_flag_optional(f))
		return;
	if (i + 1 < argc - 1 && flag_named(global_flags, w))
		take_global(ctx, w, argv[i + 1]);
	t->pending = f;
}

static void scan_typed(struct cli_ctx *ctx, int argc, char **argv, struct typed *t)
{
	*t = (struct typed){ .cmd = commands };
	for (int i = 1; i < argc - 1; i++) {
		const char *w = argv[i];

		if (t->pending) {
			t->pending = NULL; /* its value */
			continue;
		}
		if (w[0] == '-') {
			scan_flag(ctx, t, argc, argv, i);
			continue;
		}
		if (t->npos == 0 && t->cmd == commands) {
			const struct command *named = cli_find_command(w);

			if (named && strncmp(named->name, "__", 2) != 0) {
				t->cmd = named;
				continue;
			}
		}
		t->npos++;
	}
	/* the word before the current one may be a flag waiting for it */
	if (argc >= 3 && !t->pending) {
		const char *prev = argv[argc - 2];
		const struct flag *f = command_flag_named(t->cmd, prev);

		if (!f)
			f = flag_named(global_flags, prev);
		if (f && f->arg && !cli_flag_optional(f) && prev[0] == '-' && !strchr(prev, '='))
			t->pending = f;
	}
}

/* "--flag=" typed: the flag's values, each after the "--flag=". */
static void complete_flag_value(struct cli_ctx *ctx, const struct command *cmd, const char *cur, struct strset *out)
{
	char *name = strndup(cur, (size_t)(strchr(cur, '=') - cur));
	const struct flag *f = name ? command_flag_named(cmd, name) : NULL;
	struct strset vals = { 0 };

	if (name && !f)
		f = flag_named(global_flags, name);
	if (f && f->arg) {
		complete_values(ctx, f->values, strchr(cur, '=') + 1, &vals);
		for (size_t i = 0; i < vals.len; i++) {
			char *s;

			if (asprintf(&s, "%s=%s", name, vals.v[i]) >= 0) {
				strset_add(out, s);
				free(s);
			}
		}
		strset_release(&vals);
	}
	free(name);
}

static void candidates(struct cli_ctx *ctx, const struct typed *t, const char *cur, struct strset *out)
{
	if (t->pending) {
		complete_values(ctx, t->pending->values, cur, out);
	} else if (cur[0] == '-' && strchr(cur, '=')) {
		complete_flag_value(ctx, t->cmd, cur, out);
	} else if (cur[0] == '-') {
		add_command_flags(t->cmd, out);
		add_flags(global_flags, out);
	} else {
		if (t->cmd == commands && t->npos == 0)
			add_commands(out);
		/* The first positional of a command may be a fixed word list
		 * (the mode command's modes); the rest are node names. */
		if (t->npos == 0 && t->cmd->first_arg_values)
			complete_values(ctx, t->cmd->first_arg_values, NULL, out);
		else
			complete_from_nodes(ctx, false, out);
	}
}

/* The candidates that go on from cur, in order, one per line, then cobra's
 * directive line. */
static void print_candidates(struct cli_ctx *ctx, struct strset *cand, const char *cur)
{
	int directive = DIRECTIVE_NO_FILE_COMP;

	if (cand->len) /* qsort wants a non-NULL array even for no elements */
		qsort(cand->v, cand->len, sizeof(*cand->v), cmp_str);
	for (size_t i = 0; i < cand->len; i++) {
		size_t n = strlen(cand->v[i]);

		if (strncmp(cand->v[i], cur, strlen(cur)) != 0)
			continue;
		/* one candidate per line: a newline or tab of a node name or label
		 * must not break the shell's protocol */
		termsafe_fputs(cand->v[i], ctx->out);
		fputc('\n', ctx->out);
		/* a label key waits for its value: the shell must not add a space */
		if (n && cand->v[i][n - 1] == '=')
			directive |= DIRECTIVE_NO_SPACE;
	}
	fprintf(ctx->out, ":%d\n", directive);
}

int complete_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *cur = argc > 1 ? argv[argc - 1] : "";
	struct strset cand = { 0 };
	struct typed t;

	scan_typed(ctx, argc, argv, &t);
	candidates(ctx, &t, cur, &cand);
	print_candidates(ctx, &cand, cur);
	strset_release(&cand);
	return 0;
}
