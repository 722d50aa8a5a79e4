/* The warnings under the tables: one a line, or one line for a kind of
 * warning on many objects, within a number of lines (render.h). */
#include "render.h"

#include <stdlib.h>
#include <string.h>

#include "termsafe.h"

/* "pod ns/name" for "pod/ns/name": how the messages name objects.  malloc'd. */
static char *object_words(const char *object)
{
	const char *slash = strchr(object, '/');
	char *s = NULL;

	if (!slash)
		return strdup(object);
	if (asprintf(&s, "%.*s %s", (int)(slash - object), object, slash + 1) < 0)
		return NULL;
	return s;
}

/* One warning on its own line. */
static int warning_line(FILE *out, const struct warning *w)
{
	const char *name = w->object ? strrchr(w->object, '/') : NULL;

	if (fputs("Warning: ", out) == EOF)
		return -1;
	/* say which object, unless the message already names it */
	if (name && !strstr(w->message, name + 1)) {
		char *words = object_words(w->object);

		if (!words || termsafe_fputs(words, out) < 0 || fputs(": ", out) == EOF) {
			free(words);
			return -1;
		}
		free(words);
	}
	if (termsafe_fputs(w->message, out) < 0 || fputc('\n', out) == EOF)
		return -1;
	return 0;
}

/* Warnings sorted by code, then by where they were found. */
static const struct warnings *sort_ctx;

static int by_code(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(sort_ctx->items[i].code, sort_ctx->items[j].code);

	if (c)
		return c;
	return i < j ? -1 : i > j;
}

struct wgroup {
	size_t first; /* index of its first warning: groups print in this order */
	size_t start, count; /* run in the sorted order */
};

static int by_first(const void *a, const void *b)
{
	const struct wgroup *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* One line for a kind of warning on many objects: the count, the first
 * one's message, and the next few objects by name. */
static int group_line(FILE *out, const struct warnings *w, const size_t *order, const struct wgroup *g)
{
	const struct warning *first = &w->items[order[g->start]];
	size_t shown = g->count - 1 > RENDER_OBJECTS_SHOWN ? RENDER_OBJECTS_SHOWN : g->count - 1;
	char **names = calloc(shown ? shown : 1, sizeof(*names));
	char *words = object_words(first->object);
	int rc = -1;

	if (!names || !words)
		goto out;
	for (size_t i = 0; i < shown; i++)
		if (!(names[i] = object_words(w->items[order[g->start + 1 + i]].object)))
			goto out;
	if (fputs("Warning: ", out) == EOF || termsafe_fputs(first->code, out) < 0 ||
	    fprintf(out, " on %zu objects: ", g->count) < 0 || termsafe_fputs(words, out) < 0 ||
	    fputs(": ", out) == EOF || termsafe_fputs(first->message, out) < 0 || fputs("; also ", out) == EOF ||
	    render_list_cut(out, (const char *const *)names, g->count - 1, shown) < 0 || fputc('\n', out) == EOF)
		goto out;
	rc = 0;
out:
	for (size_t i = 0; names && i < shown; i++)
		free(names[i]);
	free(names);
	free(words);
	return rc;
}

int render_warning_list(FILE *out, const struct warnings *w, size_t max_lines, struct kerr *err)
{
	size_t *order = NULL, ngroups = 0, lines = 0, left = 0;
	struct wgroup *groups = NULL;
	int rc = -1;

	if (!w || !w->len)
		return 0;
	order = malloc(w->len * sizeof(*order));
	groups = malloc(w->len * sizeof(*groups));
	if (!order || !groups)
		goto out;
	for (size_t i = 0; i < w->len; i++)
		order[i] = i;
	sort_ctx = w;
	qsort(order, w->len, sizeof(*order), by_code);
	for (size_t i = 0; i < w->len;) {
		size_t j = i + 1;
		const struct warning *a = &w->items[order[i]];

		/* warnings that name no object stay on their own line */
		while (a->object && j < w->len && w->items[order[j]].object &&
		       strcmp(w->items[order[j]].code, a->code) == 0)
			j++;
		if (j - i > RENDER_WARNINGS_EACH) {
			groups[ngroups++] = (struct wgroup){order[i], i, j - i};
		} else {
			for (size_t k = i; k < j; k++)
				groups[ngroups++] = (struct wgroup){order[k], k, 1};
		}
		i = j;
	}
	qsort(groups, ngroups, sizeof(*groups), by_first);
	for (size_t g = 0; g < ngroups; g++) {
		if (max_lines && lines + 1 == max_lines && g + 1 < ngroups) {
			for (size_t k = g; k < ngroups; k++)
				left += groups[k].count;
			if (fprintf(out, "Warning: %zu more warnings not shown\n", left) < 0)
				goto out;
			break;
		}
		if ((groups[g].count == 1 ? warning_line(out, &w->items[order[groups[g].start]])
					  : group_line(out, w, order, &groups[g])) < 0)
			goto out;
		lines++;
	}
	rc = 0;
out:
	free(order);
	free(groups);
	return rc < 0 ? kerr_set(err, KERR_OTHER, "cannot write the table") : 0;
}

int render_warnings(FILE *out, const struct model *m, struct kerr *err)
{
	return render_warning_list(out, &m->warnings, 0, err);
}
