/* `top` in a build without ncursesw: the command still exists, so help and
 * completion stay the same (its flags aside), but says why it cannot run. */
#include "cli.h"

const struct flag top_flags[] = { { 0 } };

int top_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "this build has no live view (built without ncursesw)");
}
