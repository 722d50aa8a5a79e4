/* Printing what several clusters answered: sections, the CLUSTER cell,
 * errors per cluster, the FleetReport. */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "termsafe.h"

int fleet_heading(struct cli_ctx *ctx, const struct fleet *f, size_t i, bool first, struct kerr *err)
{
	char *name = termsafe_str(f->names[i]);
	int rc = 0;

	if (!name || fprintf(ctx->out, "%sCluster: %s\n", first ? "" : "\n", name) < 0)
		rc = kerr_set(err, KERR_OTHER, "cannot write the table");
	free(name);
	return rc;
}

char *fleet_cluster_cell(const struct fleet *f, size_t i)
{
	size_t width = strlen("CLUSTER");
	char *name = NULL, *cell = NULL;

	for (size_t j = 0; j < f->n; j++) {
		char *s = termsafe_str(f->names[j]);
		size_t w = s ? termsafe_width(s, strlen(s)) : 0;

		if (w > width)
			width = w;
		if (j == i)
			name = s;
		else
			free(s);
	}
	if (name) {
		size_t w = termsafe_width(name, strlen(name));

		if (asprintf(&cell, "%s%*s", name, (int)(width - w), "") < 0)
			cell = NULL;
	}
	free(name);
	return cell;
}

/* The visible name; "" when out of memory. */
static char *shown_name(const char *name)
{
	char *s = termsafe_str(name);

	return s ? s : strdup("");
}

int fleet_warnings(struct cli_ctx *ctx, const struct fleet *f, size_t i, struct kerr *err)
{
	char *text = NULL, *name, *save = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc;

	if (!mem)
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = render_warnings(mem, &f->loads[i].model, err);
	fclose(mem);
	name = shown_name(f->names[i]);
	for (char *l = rc == 0 && text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		const char *rest = strncmp(l, "Warning: ", 9) == 0 ? l + 9 : l;

		fprintf(ctx->errout, "Warning: context \"%s\": %s\n", name ? name : "", rest);
	}
	free(name);
	free(text);
	return rc;
}

/* The one line main would print, without kubectl's leading "error: ". */
static char *error_text(const struct kerr *e)
{
	char *line = cli_error_line(e);

	if (line && strncmp(line, "error: ", 7) == 0)
		memmove(line, line + 7, strlen(line + 7) + 1);
	return line;
}

void fleet_print_errors(struct cli_ctx *ctx, const struct fleet *f)
{
	fflush(ctx->out);
	for (size_t i = 0; i < f->n; i++) {
		char *line, *name;

		if (f->loads[i].err.kind == KERR_NONE)
			continue;
		line = error_text(&f->loads[i].err);
		name = shown_name(f->names[i]);
		fprintf(ctx->errout, "error: context \"%s\": %s\n", name ? name : "", line ? line : "unknown error");
		free(line);
		free(name);
	}
	fflush(ctx->errout);
}

int fleet_exit_code(const struct cli_ctx *ctx, const struct fleet *f)
{
	if (f->failed == 0)
		return 0;
	return ctx->g.ignore_unreachable && f->failed < f->n ? 0 : 1;
}

static json_t *error_json(const struct kerr *e)
{
	char *line = error_text(e);
	json_t *j = json_pack("{s:s, s:o, s:o}", "message", line ? line : "unknown error", "reason",
			      e->reason ? json_string(e->reason) : json_null(), "code",
			      e->code ? json_integer(e->code) : json_null());

	free(line);
	return j;
}

json_t *fleet_document(const struct fleet *f, const char *kind, const size_t *order,
		       json_t *(*doc)(const struct fleet *f, size_t i, void *ud), void *ud)
{
	json_t *clusters = json_array();
	json_t *root = json_pack("{s:s, s:s, s:o}", "apiVersion", RENDER_API_VERSION, "kind", kind, "clusters",
				 clusters);
	bool ok = root && clusters;

	for (size_t k = 0; ok && k < f->n; k++) {
		size_t i = order ? order[k] : k;
		const struct cluster_load *l = &f->loads[i];
		bool failed = l->err.kind != KERR_NONE;
		json_t *report = failed ? json_null() : doc(f, i, ud);
		json_t *error = failed ? error_json(&l->err) : json_null();

		if (!report || !error) {
			json_decref(report);
			json_decref(error);
			ok = false;
			break;
		}
		/* json_pack takes both, even when it fails */
		ok = json_array_append_new(clusters, json_pack("{s:s, s:o, s:o}", "context", f->names[i], "report",
							       report, "error", error)) == 0;
	}
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}
