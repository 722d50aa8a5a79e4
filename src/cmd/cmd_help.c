/* `help [COMMAND]` and `version`: what kubectl users type first.  help
 * prints what --help prints (of the command named, else the overview);
 * version prints what --version prints. */
#include <string.h>

#include "cli.h"
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
	{ 0 },
};

int version_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[2] = { 0 };
	int npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);

	if (npos < 0)
		return -1;
	if (npos > 0)
		return kerr_set(err, KERR_USAGE, "unexpected argument \"%s\": version takes none", argv[0]);
	fprintf(ctx->out, "kubectl-inspect-cgpu %s (commit %s)\n", PLUGIN_VERSION, PLUGIN_COMMIT);
	return 0;
}
