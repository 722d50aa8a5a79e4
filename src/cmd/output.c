/* -o read once, and every document printed the same way. */
#include "output.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonpath.h"
#include "render.h"
#include "render_kubectl.h"

/* The forms with an argument, as kubectl names them. */
static const struct {
	const char *prefix;
	enum output o;
	bool file;
} forms[] = {
	{ "jsonpath=", OUTPUT_JSONPATH, false },
	{ "jsonpath-file=", OUTPUT_JSONPATH, true },
	{ "custom-columns=", OUTPUT_CUSTOM_COLUMNS, false },
	{ "custom-columns-file=", OUTPUT_CUSTOM_COLUMNS, true },
};

/* A template file, whole, within the template's bound; malloc'd. */
static char *read_spec_file(const char *path, struct kerr *err)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(JSONPATH_MAX_TEMPLATE + 2);
	size_t n = 0;

	if (!f || !buf) {
		free(buf);
		if (f)
			fclose(f);
		kerr_set(err, KERR_USAGE, "error reading template %s, open %s: no such file or directory", path, path);
		return NULL;
	}
	n = fread(buf, 1, JSONPATH_MAX_TEMPLATE + 1, f);
	fclose(f);
	if (n > JSONPATH_MAX_TEMPLATE) {
		free(buf);
		kerr_set(err, KERR_USAGE, "error reading template %s: longer than %d bytes", path, JSONPATH_MAX_TEMPLATE);
		return NULL;
	}
	buf[n] = '\0';
	/* kubectl reads a template file's text with its last line break */
	return buf;
}

/* Parse (and check) the form's template or spec; *jp or *cc gets it. */
static int form_load(const char *v, size_t k, struct jsonpath **jp, struct custom_columns **cc, struct kerr *err)
{
	const char *arg = v + strlen(forms[k].prefix);
	char *text = forms[k].file ? read_spec_file(arg, err) : strdup(arg);

	if (!text)
		return forms[k].file ? -1 : kerr_set(err, KERR_OTHER, "out of memory");
	if (forms[k].o == OUTPUT_JSONPATH)
		*jp = jsonpath_parse(text, err);
	else
		*cc = forms[k].file ? custom_columns_parse_file(text, err) : custom_columns_parse(text, err);
	free(text);
	return *jp || *cc ? 0 : -1;
}

int output_parse(const char *v, bool report, enum output *ret, struct kerr *err)
{
	if (!v || !*v)
		*ret = OUTPUT_TEXT;
	else if (strcasecmp(v, "json") == 0) /* kubectl's -o JSON too */
		*ret = OUTPUT_JSON;
	else if (strcasecmp(v, "yaml") == 0)
		*ret = OUTPUT_YAML;
	else if (report && strcasecmp(v, "wide") == 0)
		*ret = OUTPUT_WIDE;
	else if (report && strcasecmp(v, "name") == 0)
		*ret = OUTPUT_NAME;
	else {
		for (size_t k = 0; report && k < sizeof(forms) / sizeof(forms[0]); k++) {
			struct jsonpath *jp = NULL;
			struct custom_columns *cc = NULL;
			int rc;

			if (strncasecmp(v, forms[k].prefix, strlen(forms[k].prefix)) != 0)
				continue;
			rc = form_load(v, k, &jp, &cc, err);
			jsonpath_free(jp);
			custom_columns_free(cc);
			/* kubectl prints no usage hint after a template's error */
			if (rc < 0 && err->kind == KERR_USAGE && !err->reason)
				err->reason = strdup(CLI_REASON_NO_HINT);
			*ret = forms[k].o;
			return rc;
		}
		if (report && (!strcasecmp(v, "jsonpath") || !strcasecmp(v, "jsonpath-file") ||
			       !strcasecmp(v, "custom-columns") || !strcasecmp(v, "custom-columns-file")))
			return kerr_set(err, KERR_USAGE, "%s format specified but no %s given", v,
					strncasecmp(v, "custom", 6) ? "template" : "custom columns");
		return kerr_set(err, KERR_USAGE,
				"unable to match a printer suitable for the output format \"%s\", allowed formats are: %s",
				v, report ? "custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,wide,yaml"
					  : "json,yaml");
	}
	return 0;
}

int output_kubectl_form(struct cli_ctx *ctx, const json_t *doc, enum output o, const char *spec, bool no_headers,
			struct kerr *err)
{
	FILE *f = ctx->data_out ? ctx->data_out : ctx->out;
	struct jsonpath *jp = NULL;
	struct custom_columns *cc = NULL;
	int rc = -1;

	fflush(ctx->out);
	if (o == OUTPUT_NAME)
		return render_names(f, doc, err);
	for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++)
		if (strncasecmp(spec, forms[k].prefix, strlen(forms[k].prefix)) == 0) {
			if (form_load(spec, k, &jp, &cc, err) < 0)
				return -1;
			break;
		}
	if (jp)
		rc = jsonpath_execute(jp, doc, f, err);
	else if (cc)
		rc = render_custom_columns(f, doc, cc, no_headers, err);
	else
		rc = kerr_set(err, KERR_OTHER, "no template");
	jsonpath_free(jp);
	custom_columns_free(cc);
	return rc;
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
