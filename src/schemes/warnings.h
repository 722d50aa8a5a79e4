/* Warnings found while reading the cluster: printed to stderr after the
 * tables, and carried in JSON output.
 *
 * Uses nothing but libc and the client's array growth (kube.h).
 */
#ifndef WARNINGS_H
#define WARNINGS_H

#include <stddef.h>

struct warning {
	char *code;   /* stable identifier for scripts, e.g. "OverAllocated" */
	char *object; /* "node/NAME" or "pod/NS/NAME", or NULL */
	char *message;
};

struct warnings {
	struct warning *items;
	size_t len, cap;
};

void warnings_add(struct warnings *w, const char *code, const char *object, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void warnings_release(struct warnings *w);

#endif
