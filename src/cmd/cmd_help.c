/* `help [COMMAND]` and `version`: what kubectl users type first.  help
 * prints what --help prints (of the command named, else the overview);
 * version prints what --version prints. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "output.h"
#include "version.h"

int help_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	int npos = cli_parse_flags(ctx->cmd, argc, argv, (const char *[1]){ 0 }, err);
	const struct command *cmd;

	if (npos < 0)
		return -1;
	if (npos > 1)
		return kerr_set(err, KERR_USAGE, "help takes at most one command name");
	if (npos == 0) {
		cli_print_help(ctx->out, ctx->prog, commands, NULL);
		return 0;
	}
	cmd = cli_find_command(argv[0]);
	if (cmd && strncmp(cmd->name, "__", 2) != 0) {
		cli_print_help(ctx->out, ctx->prog, commands, cmd);
		return 0;
	}
	return kerr_set(err, KERR_USAGE, "unknown help topic \"%s\"", argv[0]);
}

const struct flag version_flags[] = {
	{ "client", 0, NULL, "accepted as kubectl's: the plugin has no server version to show", NULL },
	{ "output", 'o', "FORMAT", "json or yaml: kubectl's document of the client version", "json yaml" },
	{ 0 },
};

/* "linux/amd64", as the User-Agent says it. */
static json_t *platform(void)
{
	char *ua = kube_user_agent("p", PLUGIN_VERSION, PLUGIN_COMMIT);
	const char *open = ua ? strchr(ua, '(') : NULL, *close = open ? strchr(open, ')') : NULL;
	json_t *v = close ? json_stringn(open + 1, (size_t)(close - open - 1)) : json_string("unknown");

	free(ua);
	return v;
}

/* kubectl version -o json's shape: clientVersion with what this build
 * knows (no build date or tree state: the build does not record them).
 * sorted: the keys in order, as kubectl's YAML has them. */
static json_t *version_document(bool sorted)
{
	const char *v = PLUGIN_VERSION + (PLUGIN_VERSION[0] == 'v');
	const char *dot = strchr(v, '.'), *dot2 = dot ? strchr(dot + 1, '.') : NULL;
	json_t *cv = json_object(), *doc = json_object();
	const char *keys[] = { "major", "minor", "gitVersion", "gitCommit", "compiler", "platform" };
	json_t *vals[] = {
		json_stringn(v, dot ? (size_t)(dot - v) : strlen(v)),
		dot ? json_stringn(dot + 1, dot2 ? (size_t)(dot2 - dot - 1) : strlen(dot + 1)) : json_string(""),
		json_string(PLUGIN_VERSION),
		json_string(PLUGIN_COMMIT),
#ifdef __clang__
		json_string("clang"),
#else
		json_string("gcc"),
#endif
		platform(),
	};
	size_t order[] = { 0, 1, 2, 3, 4, 5 }, sorted_order[] = { 4, 3, 2, 0, 1, 5 };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = sorted ? sorted_order[i] : order[i];

		json_object_set_new(cv, keys[k], vals[k]);
	}
	json_object_set_new(doc, "clientVersion", cv);
	return doc;
}

int version_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[3] = { 0 };
	int npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);
	enum output o = OUTPUT_TEXT;
	json_t *doc;
	int rc;

	if (npos < 0)
		return -1;
	if (npos > 0)
		return kerr_set(err, KERR_USAGE, "unexpected argument \"%s\": version takes none", argv[0]);
	if (vals[1] && output_parse(vals[1], false, &o, err) < 0) {
		/* kubectl's own sentence, without the usage hint */
		kerr_release(err);
		kerr_set(err, KERR_USAGE, "--output must be 'yaml' or 'json'");
		err->reason = strdup(CLI_REASON_NO_HINT);
		return -1;
	}
	if (o == OUTPUT_TEXT) {
		fprintf(ctx->out, "kubectl-inspect-cgpu %s (commit %s)\n", PLUGIN_VERSION, PLUGIN_COMMIT);
		return 0;
	}
	doc = version_document(o == OUTPUT_YAML);
	rc = output_document(ctx, doc, o, err);
	json_decref(doc);
	return rc;
}
