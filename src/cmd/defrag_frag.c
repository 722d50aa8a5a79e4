/* `defrag` without a request (defrag_frag.h). */
#include "defrag_frag.h"

#include "frag_report.h"
#include "render_frag.h"

int defrag_frag_answer(struct cli_ctx *ctx, struct model *m, const struct defrag_rules *rules, const char *scheme,
		       enum output out, struct kerr *err)
{
	struct frag_report rep;
	int rc;

	if (frag_report_build(m, rules, scheme, &rep) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (output_is_document(out)) {
		json_t *doc = render_frag_document(m, &rep);

		rc = doc ? output_document(ctx, doc, out, err) : kerr_set(err, KERR_OTHER, "cannot build the answer");
		json_decref(doc);
	} else {
		rc = render_frag_table(ctx->out, m, &rep, err);
	}
	fflush(ctx->out);
	frag_report_release(&rep);
	return rc;
}
