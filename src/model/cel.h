/* Device selectors: the common subset of CEL that DeviceClasses and claim
 * requests select devices with, evaluated against one device at a time.
 *
 * The input is the object the API server gives a selector: `device` with
 * `driver`, `attributes[DOMAIN]` (a map of the attributes of that domain;
 * attributes without a domain belong to the driver's), `capacity[DOMAIN]`
 * (quantities) and `allowMultipleAllocations`.  Evaluated: literals
 * (strings, ints, booleans, lists), `==` `!=` `<` `<=` `>` `>=` `in`, `&&`
 * `||` `!` `?:`, unary `-` on ints, `has()` and `'NAME' in
 * device.attributes['DOMAIN']` presence, `cel.bind()`, `quantity()`,
 * `isQuantity()`, `semver()`, `isSemver()`, and on quantities and
 * versions `compareTo()`, `isGreaterThan()`, `isLessThan()` (versions also
 * `major()`, `minor()`, `patch()`).  Quantities compare exactly, as the API
 * server parses them.
 *
 * Three answers: true, false, or unknown with the reason: the expression
 * leaves the subset (arithmetic, `matches()`, macros over lists...), is not
 * valid CEL (a syntax or type error the API server would reject), raises an
 * error CEL would raise (a missing attribute, an operator applied to the
 * wrong types), or breaks a bound.  `&&` and `||` absorb an unknown side as
 * CEL absorbs errors (`false && X` is false whatever X is), so an answer
 * other than unknown is the one CEL would give.  Unknown never matches.
 *
 * Bounded: expression length, nesting depth, size of the syntax tree and
 * evaluation steps per device (struct cel_limits).  Pure: no I/O, no
 * globals; a compiled program is read-only and may be shared between
 * threads.
 */
#ifndef CEL_H
#define CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube.h"

enum cel_attr_type {
	CEL_ATTR_INT,
	CEL_ATTR_BOOL,
	CEL_ATTR_STRING,
	CEL_ATTR_VERSION, /* a semantic version, as a string */
	CEL_ATTR_NONE,	  /* no value the evaluator knows: an error, as in CEL */
};

struct cel_attr {
	const char *name; /* "DOMAIN/NAME", or "NAME" in the driver's domain */
	enum cel_attr_type type;
	int64_t i;
	bool b;
	const char *s; /* CEL_ATTR_STRING, CEL_ATTR_VERSION */
};

struct cel_capacity {
	const char *name;  /* as for attributes */
	const char *value; /* a quantity, as the API writes it ("80Gi") */
};

/* One device, as a selector sees it.  Nothing is copied: the strings must
 * live as long as the evaluation. */
struct cel_device {
	const char *driver;
	const struct cel_attr *attrs;
	size_t nattrs;
	const struct cel_capacity *caps;
	size_t ncaps;
	bool allow_multiple;
};

enum cel_result {
	CEL_FALSE,
	CEL_TRUE,
	CEL_UNKNOWN,
};

/* Why a result is unknown. */
enum cel_why {
	CEL_WHY_NONE,
	CEL_WHY_SUBSET,	 /* valid CEL outside the evaluated subset */
	CEL_WHY_INVALID, /* not valid CEL: the API server rejects it */
	CEL_WHY_ERROR,	 /* CEL raises an error on this device */
	CEL_WHY_LIMIT,	 /* longer, deeper or costlier than the bounds */
};

struct cel_verdict {
	enum cel_result result;
	enum cel_why why;
	/* For unknown: what, in words ("no such key 'model' in
	 * device.attributes['example.com']"); printable ASCII only, names
	 * from the expression shortened; still outside text to a renderer. */
	char reason[200];
};

struct cel_limits {
	size_t max_bytes;  /* length of the expression */
	unsigned max_depth; /* nesting of the syntax tree */
	size_t max_nodes;  /* terms of the syntax tree */
	size_t max_steps;  /* per evaluation: terms visited and entries scanned */
};

/* The defaults: the API server's 10 KiB bound on an expression, 64 levels,
 * 4096 terms, 100,000 steps. */
extern const struct cel_limits cel_default_limits;

struct cel_program;

/* Compile an expression (NUL-terminated, or the first len bytes) once for
 * any number of devices; lim NULL for the defaults.  An expression that
 * does not compile still gives a program, whose every evaluation is
 * unknown with the reason (cel_program_verdict).  Returns 0, or -1 only
 * when out of memory. */
int cel_compile(const char *expr, size_t len, const struct cel_limits *lim, struct cel_program **ret,
		struct kerr *err);
/* NULL-safe; returns NULL. */
struct cel_program *cel_program_free(struct cel_program *p);
/* Whether the expression compiled: result CEL_TRUE if so, else unknown
 * with the reason. */
void cel_program_verdict(const struct cel_program *p, struct cel_verdict *ret);

/* Evaluate against one device.  Never fails and never allocates. */
void cel_eval(const struct cel_program *p, const struct cel_device *d, struct cel_verdict *ret);

/* "outside the evaluated subset", "not valid CEL", "evaluation error",
 * "over the evaluation bounds" ("" for CEL_WHY_NONE). */
const char *cel_why_text(enum cel_why why);

#endif
