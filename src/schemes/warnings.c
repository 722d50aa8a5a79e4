#include "kube.h"
#include "warnings.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* warnings_add() has no way to report failure: a warning that cannot be
 * stored for lack of memory is dropped rather than stopping the report. */
void warnings_add(struct warnings *w, const char *code, const char *object, const char *fmt, ...)
{
	struct warning item = {0}, *items;
	va_list ap;

	if (!w || !fmt)
		return;
	items = kube_array_grow(w->items, &w->cap, w->len + 1, sizeof(*items), 8);
	if (!items)
		return;
	w->items = items;
	va_start(ap, fmt);
	if (vasprintf(&item.message, fmt, ap) < 0)
		item.message = NULL;
	va_end(ap);
	item.code = strdup(code ? code : "");
	item.object = object ? strdup(object) : NULL;
	if (!item.message || !item.code || (object && !item.object)) {
		free(item.message);
		free(item.code);
		free(item.object);
		return;
	}
	w->items[w->len++] = item;
}

void warnings_release(struct warnings *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->len; i++) {
		free(w->items[i].code);
		free(w->items[i].object);
		free(w->items[i].message);
	}
	free(w->items);
	memset(w, 0, sizeof(*w));
}
