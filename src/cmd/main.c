/* kubectl-inspect-cgpu: the entry point.  It finds the command, hands it the
 * arguments, and is the only place that prints an error and picks the exit
 * code (0 success, 1 failure reaching or reading the cluster, 2 usage). */
#include <curl/curl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "termsafe.h"

/* kubectl runs a plugin file kubectl-a-b as `kubectl a b` and a file
 * kubectl-a_b (krew's spelling) as `kubectl a-b`: show the user what they typed. */
static char *display_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	char *name;

	base = base ? base + 1 : argv0;
	if (strncmp(base, "kubectl-", 8) != 0)
		return strdup("kubectl inspect cgpu");
	if (asprintf(&name, "kubectl %s", base + 8) < 0)
		return NULL;
	for (char *p = name + 8; *p; p++) {
		if (*p == '-')
			*p = ' ';
		else if (*p == '_')
			*p = '-';
	}
	return name;
}

int main(int argc, char **argv)
{
	struct kerr err = KERR_INIT;
	struct cli_ctx ctx = { .out = stdout, .errout = stderr, .data_out = stdout };
	const struct command *cmd = commands;
	FILE *safe_out, *safe_err;
	char *prog, **split_argv = NULL, *split_buf = NULL;
	int rc;

	setlocale(LC_ALL, "");
	/* Everything human-readable goes through the visible form, whatever
	 * path outside text took to get there; the renderers escape it
	 * themselves too, where widths are measured. */
	safe_out = termsafe_stream(stdout);
	safe_err = termsafe_stream(stderr);
	if (safe_out)
		ctx.out = safe_out;
	if (safe_err)
		ctx.errout = safe_err;
	prog = display_name(argc > 0 ? argv[0] : "kubectl-inspect-cgpu");
	ctx.prog = prog ? prog : "kubectl inspect cgpu";

	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		char *one[] = { argv[0], NULL };

		ctx.cmd = cli_find_command("version");
		rc = ctx.cmd->run(&ctx, 1, one, &err);
		goto out;
	}
	/* The completion helper sees the user's half-typed line: it parses it itself. */
	if (argc > 1 && strcmp(argv[1], "__complete") == 0) {
		ctx.cmd = cmd = cli_find_command(argv[1]);
		rc = cmd->run(&ctx, argc - 1, argv + 1, &err);
		goto out;
	}
	argc = cli_take_global_flags(argc, argv, &ctx.g, &err);
	if (argc < 0) {
		rc = -1;
		goto out;
	}
	if (argc > 1 && argv[1][0] != '-') {
		const struct command *named = cli_find_command(argv[1]);

		if (named) {
			cmd = named;
			argc--;
			argv++;
		}
	}
	/* now that the command is known, its grouped shorthands can be taken
	 * apart, and the global flags among them taken out */
	argc = cli_split_short_groups(cmd, argc, argv, &split_argv, &split_buf, &err);
	if (argc < 0) {
		rc = -1;
		goto out;
	}
	argv = split_argv;
	argc = cli_take_global_flags(argc, argv, &ctx.g, &err);
	if (argc < 0) {
		rc = -1;
		goto out;
	}
	if (ctx.g.help) {
		cli_print_help(stdout, ctx.prog, commands, cmd == commands ? NULL : cmd);
		rc = 0;
		goto out;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ctx.cmd = cmd;
	rc = cmd->run(&ctx, argc, argv, &err);
	curl_global_cleanup();
out:
	if (rc < 0 || err.kind != KERR_NONE) {
		fflush(ctx.out);
		fflush(stdout);
		/* one line: a line break inside a server's message is escaped too */
		cli_word_error(&err);
		termsafe_kerr_print(ctx.errout, &err);
		if (err.kind == KERR_USAGE)
			fprintf(ctx.errout, "See '%s%s%s --help' for usage.\n", ctx.prog, cmd->name ? " " : "",
				cmd->name ? cmd->name : "");
		rc = err.kind == KERR_NONE ? 1 : kerr_exit_code(&err);
	}
	kerr_release(&err);
	free(split_argv);
	free(split_buf);
	free(prog);
	if (safe_out)
		fclose(safe_out);
	if (safe_err)
		fclose(safe_err);
	return rc;
}
