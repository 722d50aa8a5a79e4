/* `top` in a build without ncursesw: the command still exists, so help and
 * completion stay the same, but says why it cannot run. */
#include "cli.h"

static int top_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "this build has no live view (built without ncursesw)");
}

const struct command cmd_top = {
	.name = "top",
	.usage = "[NODE...] [flags]",
	.summary = "Show GPU sharing live (not in this build)",
	.flags = (const struct flag[]){ { 0 } },
	.run = top_run,
	.examples = "# Every GPU node, live (in builds with ncursesw)\n\n",
};
