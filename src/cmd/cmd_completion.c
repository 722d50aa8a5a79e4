/* `kubectl inspect cgpu completion bash|zsh|fish`: the completion script the
 * package installs, for those who have only the binary (krew), as kubectl
 * completion prints its own. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "completion_scripts.h"

int completion_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[1 + 1] = { 0 };
	int npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);

	if (npos < 0)
		return -1;
	if (npos == 0)
		return kerr_set(err, KERR_USAGE, "Shell not specified.");
	if (npos > 1)
		return kerr_set(err, KERR_USAGE, "Too many arguments. Expected only the shell type.");
	for (const struct completion_script *s = completion_scripts; s->shell; s++) {
		if (strcasecmp(s->shell, argv[0]) != 0)
			continue;
		/* the script as it is, on stdout itself: it is ours, not outside text */
		fflush(ctx->out);
		if (fwrite(s->text, 1, s->len, stdout) != s->len || fflush(stdout) == EOF)
			return kerr_set(err, KERR_OTHER, "cannot write the completion script");
		return 0;
	}
	return kerr_set(err, KERR_USAGE, "Unsupported shell type \"%s\".", argv[0]);
}
