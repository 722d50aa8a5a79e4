/* `help [COMMAND]` and `version`: what kubectl users type first.  help
 * prints what --help prints (of the command named, else the overview);
 * version prints what --version prints. */
#include <string.h>

#include "cli.h"
#include "version.h"

static int help_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	int npos = cli_parse_flags(&cmd_help, argc, argv, (const char *[1]){ 0 }, err);

	if (npos < 0)
		return -1;
	if (npos > 1)
		return kerr_set(err, KERR_USAGE, "help takes at most one command name");
	if (npos == 0) {
		cli_print_help(ctx->out, ctx->prog, commands, NULL);
		return 0;
	}
	for (size_t i = 1; commands[i]; i++)
		if (commands[i]->name && strncmp(commands[i]->name, "__", 2) != 0 &&
		    strcmp(commands[i]->name, argv[0]) == 0) {
			cli_print_help(ctx->out, ctx->prog, commands, commands[i]);
			return 0;
		}
	return kerr_set(err, KERR_USAGE, "unknown help topic \"%s\"", argv[0]);
}

const struct command cmd_help = {
	.name = "help",
	.usage = "[COMMAND]",
	.summary = "Help about any command",
	.flags = NULL,
	.run = help_run,
	.first_arg_values = "commands",
	.examples = "# What a command does and the flags it takes\n"
		    "mode",
};

static const struct flag version_flags[] = {
	{ "client", 0, NULL, "accepted as kubectl's: the plugin has no server version to show", NULL },
	{ 0 },
};

static int version_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[2] = { 0 };
	int npos = cli_parse_flags(&cmd_version, argc, argv, vals, err);

	if (npos < 0)
		return -1;
	if (npos > 0)
		return kerr_set(err, KERR_USAGE, "unexpected argument \"%s\": version takes none", argv[0]);
	fprintf(ctx->out, "kubectl-inspect-cgpu %s (commit %s)\n", PLUGIN_VERSION, PLUGIN_COMMIT);
	return 0;
}

const struct command cmd_version = {
	.name = "version",
	.usage = "[flags]",
	.summary = "Print the plugin's version and the commit it was built from",
	.flags = version_flags,
	.run = version_run,
	.first_arg_values = "",
	.examples = "# The version and the commit it was built from\n\n",
};
