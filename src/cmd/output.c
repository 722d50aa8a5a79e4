/* -o read once, and every document printed the same way. */
#include "output.h"

#include <string.h>

#include "render.h"

int output_parse(const char *v, bool wide, enum output *ret, struct kerr *err)
{
	if (!v || !*v)
		*ret = OUTPUT_TEXT;
	else if (strcmp(v, "json") == 0)
		*ret = OUTPUT_JSON;
	else if (strcmp(v, "yaml") == 0)
		*ret = OUTPUT_YAML;
	else if (wide && strcmp(v, "wide") == 0)
		*ret = OUTPUT_WIDE;
	else
		return kerr_set(err, KERR_USAGE,
				"unable to match a printer suitable for the output format \"%s\", allowed formats are: %s",
				v, wide ? "json,wide,yaml" : "json,yaml");
	return 0;
}

static FILE *data_stream(struct cli_ctx *ctx)
{
	fflush(ctx->out);
	return ctx->data_out ? ctx->data_out : ctx->out;
}

int output_document(struct cli_ctx *ctx, const json_t *doc, enum output o, struct kerr *err)
{
	FILE *f = data_stream(ctx);

	if (o == OUTPUT_YAML)
		return render_yaml_value(f, doc, err);
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF)
		return kerr_set(err, KERR_OTHER, "cannot write the document");
	return 0;
}

int output_report(struct cli_ctx *ctx, const struct model *m, enum output o, struct kerr *err)
{
	FILE *f = data_stream(ctx);

	return o == OUTPUT_YAML ? render_yaml(f, m, err) : render_json(f, m, err);
}
