/* -o name and -o custom-columns on the report document, as kubectl prints
 * them for the objects it lists. */
#include "render_kubectl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath.h"
#include "tabwriter.h"
#include "termsafe.h"

struct custom_columns {
	char *headers[CUSTOM_COLUMNS_MAX];
	struct jsonpath *exprs[CUSTOM_COLUMNS_MAX];
	size_t n;
};

/* The objects a row is printed for. */
static const json_t *rows_of(const json_t *doc, size_t *n)
{
	const json_t *nodes = json_object_get(doc, "nodes");

	if (json_is_array(nodes)) {
		*n = json_array_size(nodes);
		return nodes;
	}
	*n = 1;
	return NULL;
}

int render_names(FILE *out, const json_t *doc, struct kerr *err)
{
	size_t n;
	const json_t *rows = rows_of(doc, &n);

	for (size_t i = 0; rows && i < n; i++) {
		const char *name = json_string_value(json_object_get(json_array_get(rows, i), "name"));

		if (!name)
			continue;
		if (fputs("node/", out) == EOF || termsafe_fputs(name, out) < 0 || fputc('\n', out) == EOF)
			return kerr_set(err, KERR_OTHER, "cannot write the names");
	}
	return 0;
}

void custom_columns_free(struct custom_columns *cc)
{
	if (!cc)
		return;
	for (size_t i = 0; i < cc->n; i++) {
		free(cc->headers[i]);
		jsonpath_free(cc->exprs[i]);
	}
	free(cc);
}

static int add_column(struct custom_columns *cc, const char *header, size_t hlen, const char *expr, size_t elen,
		      struct kerr *err)
{
	char *e;

	if (cc->n == CUSTOM_COLUMNS_MAX)
		return kerr_set(err, KERR_USAGE, "more than %d custom columns", CUSTOM_COLUMNS_MAX);
	cc->headers[cc->n] = strndup(header, hlen);
	e = strndup(expr, elen);
	if (!cc->headers[cc->n] || !e) {
		free(cc->headers[cc->n]);
		free(e);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	cc->exprs[cc->n] = jsonpath_parse_relaxed(e, err);
	free(e);
	if (!cc->exprs[cc->n]) {
		free(cc->headers[cc->n]);
		return -1;
	}
	cc->n++;
	return 0;
}

struct custom_columns *custom_columns_parse(const char *spec, struct kerr *err)
{
	struct custom_columns *cc = calloc(1, sizeof(*cc));
	const char *p = spec;

	if (!cc) {
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	if (!*spec) {
		kerr_set(err, KERR_USAGE, "custom-columns format specified but no custom columns given");
		goto fail;
	}
	/* as kubectl splits it: at each ',', then at the first ':' */
	while (p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *colon = memchr(p, ':', len);

		if (!colon) {
			kerr_set(err, KERR_USAGE, "unexpected custom-columns spec: %.*s, expected <header>:<json-path-expr>",
				 (int)len, p);
			goto fail;
		}
		if (add_column(cc, p, (size_t)(colon - p), colon + 1, len - (size_t)(colon - p) - 1, err) < 0)
			goto fail;
		p = comma ? comma + 1 : NULL;
	}
	return cc;
fail:
	custom_columns_free(cc);
	return NULL;
}

/* The next white-space separated word of a line, or NULL at its end. */
static const char *next_word(const char **p, const char *end, size_t *len)
{
	const char *s = *p;

	while (s < end && isspace((unsigned char)*s))
		s++;
	if (s == end)
		return NULL;
	*p = s;
	while (*p < end && !isspace((unsigned char)**p))
		(*p)++;
	*len = (size_t)(*p - s);
	return s;
}

struct custom_columns *custom_columns_parse_file(const char *text, struct kerr *err)
{
	const char *nl = strchr(text, '\n'), *h, *e, *hend, *eend;
	struct custom_columns *cc = calloc(1, sizeof(*cc));
	size_t hl, el;

	if (!cc) {
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	if (!nl) {
		kerr_set(err, KERR_USAGE, "custom-columns file needs a line of headers and a line of expressions");
		goto fail;
	}
	h = text;
	hend = nl;
	e = nl + 1;
	eend = strchr(e, '\n') ? strchr(e, '\n') : e + strlen(e);
	for (;;) {
		const char *hw = next_word(&h, hend, &hl), *ew = next_word(&e, eend, &el);

		if (!hw && !ew)
			break;
		if (!hw || !ew) {
			kerr_set(err, KERR_USAGE, "number of headers and expressions differ in the custom-columns file");
			goto fail;
		}
		if (add_column(cc, hw, hl, ew, el, err) < 0)
			goto fail;
	}
	if (cc->n)
		return cc;
	kerr_set(err, KERR_USAGE, "custom-columns format specified but no custom columns given");
fail:
	custom_columns_free(cc);
	return NULL;
}

/* One cell: the values joined by ',', each as Go's %v; <none> for none. */
static char *cell_text(const struct jsonpath *jp, const json_t *obj, struct kerr *err)
{
	json_t *vals;
	char *s = NULL;
	size_t len = 0;
	FILE *f;
	bool ok = true;

	if (jsonpath_select(jp, obj, &vals, err) < 0)
		return NULL;
	/* a null is no value, as kubectl finds none in what it decoded */
	for (size_t i = json_array_size(vals); i-- > 0;)
		if (json_is_null(json_array_get(vals, i)))
			json_array_remove(vals, i);
	f = open_memstream(&s, &len);
	if (!f) {
		json_decref(vals);
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	if (json_array_size(vals) == 0)
		fputs("<none>", f);
	for (size_t i = 0; ok && i < json_array_size(vals); i++) {
		char *t = jsonpath_go_text(json_array_get(vals, i));

		/* outside text: no tab or newline of its own in a cell */
		ok = t && (i == 0 || fputc(',', f) != EOF) && termsafe_fputs(t, f) >= 0;
		free(t);
	}
	json_decref(vals);
	if (fclose(f) != 0 || !ok) {
		free(s);
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	return s;
}

int render_custom_columns(FILE *out, const json_t *doc, const struct custom_columns *cc, bool no_headers,
			  struct kerr *err)
{
	/* kubectl's table: three spaces between columns */
	struct tabwriter *tw = tabwriter_new(0, 3, TABWRITER_TRIM_TRAILING);
	size_t n;
	const json_t *rows = rows_of(doc, &n);
	int rc = 0;

	if (!tw)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t c = 0; !no_headers && c < cc->n && rc == 0; c++)
		rc = tabwriter_printf(tw, "%s%s", cc->headers[c], c + 1 < cc->n ? "\t" : "\n");
	for (size_t i = 0; i < n && rc == 0; i++) {
		const json_t *obj = rows ? json_array_get(rows, i) : doc;

		for (size_t c = 0; c < cc->n && rc == 0; c++) {
			char *t = cell_text(cc->exprs[c], obj, err);

			if (!t)
				rc = -1;
			else if (tabwriter_printf(tw, "%s%s", t, c + 1 < cc->n ? "\t" : "\n") < 0)
				rc = kerr_set(err, KERR_OTHER, "cannot write the table");
			free(t);
		}
	}
	if (rc == 0 && tabwriter_flush_to(tw, out) < 0)
		rc = kerr_set(err, KERR_OTHER, "cannot write the table");
	tabwriter_free(tw);
	return rc < 0 ? -1 : 0;
}
