/* kubectl-inspect-cgpu: the entry point.  It finds the command, hands it the
 * arguments, and is the only place that prints an error and picks the exit
 * code (0 success, 1 failure, a usage error too, as kubectl). */
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

/* The line a command gets: the global flags taken out (before and after
 * the command's grouped shorthands are taken apart, which needs the
 * command), the command found.  *split and *buf hold the new argv. */
static int parse_line(struct cli_ctx *ctx, int *argc, char ***argv, char ***split, char **buf, struct kerr *err)
{
	int n = cli_take_global_flags(*argc, *argv, &ctx->g, err);
	char **v = *argv;

	if (n < 0)
		return -1;
	ctx->cmd = commands;
	if (n > 1 && v[1][0] != '-') {
		const struct command *named = cli_find_command(v[1]);

		if (named) {
			ctx->cmd = named;
			n--;
			v++;
		}
	}
	n = cli_split_short_groups(ctx->cmd, n, v, split, buf, err);
	if (n < 0)
		return -1;
	n = cli_take_global_flags(n, *split, &ctx->g, err);
	if (n < 0)
		return -1;
	*argc = n;
	*argv = *split;
	return 0;
}

/* Run what the line asks for: the exit code, or -1 with *err set. */
static int run(struct cli_ctx *ctx, int argc, char **argv, char ***split, char **buf, struct kerr *err)
{
	int rc;

	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		char *one[] = { argv[0], NULL };

		ctx->cmd = cli_find_command("version");
		return ctx->cmd->run(ctx, 1, one, err);
	}
	/* The completion helper sees the user's half-typed line: it parses it itself. */
	if (argc > 1 && strcmp(argv[1], "__complete") == 0) {
		ctx->cmd = cli_find_command(argv[1]);
		return ctx->cmd->run(ctx, argc - 1, argv + 1, err);
	}
	if (parse_line(ctx, &argc, &argv, split, buf, err) < 0)
		return -1;
	if (ctx->g.help) {
		cli_print_help(stdout, ctx->prog, commands, ctx->cmd == commands ? NULL : ctx->cmd);
		return 0;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = ctx->cmd->run(ctx, argc, argv, err);
	curl_global_cleanup();
	return rc;
}

/* The one line an error gets, kubectl's hint after a usage error, and the
 * exit code. */
static int report(struct cli_ctx *ctx, int rc, struct kerr *err)
{
	const struct command *cmd = ctx->cmd ? ctx->cmd : commands;

	if (rc >= 0 && err->kind == KERR_NONE)
		return rc;
	fflush(ctx->out);
	fflush(stdout);
	/* one line: a line break inside a server's message is escaped too */
	cli_word_error(err);
	termsafe_kerr_print(ctx->errout, err);
	if (err->kind == KERR_USAGE && !(err->reason && strcmp(err->reason, CLI_REASON_NO_HINT) == 0))
		fprintf(ctx->errout, "See '%s%s%s --help' for usage.\n", ctx->prog, cmd->name ? " " : "",
			cmd->name ? cmd->name : "");
	return err->kind == KERR_NONE ? 1 : kerr_exit_code(err);
}

int main(int argc, char **argv)
{
	struct kerr err = KERR_INIT;
	struct cli_ctx ctx = { .out = stdout, .errout = stderr, .data_out = stdout };
	FILE *safe_out, *safe_err;
	char *prog, **split = NULL, *buf = NULL;
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

	rc = report(&ctx, run(&ctx, argc, argv, &split, &buf, &err), &err);
	kerr_release(&err);
	cli_flags_release();
	free(split);
	free(buf);
	free(prog);
	if (safe_out)
		fclose(safe_out);
	if (safe_err)
		fclose(safe_err);
	return rc;
}
