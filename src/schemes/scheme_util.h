/* What the scheme decoders share: bounded views of annotation text,
 * warnings that name their object, quantities of nodes and containers, and
 * the clock.
 *
 * Annotation values come from the API server and may hold anything
 * (truncated lists, huge numbers, bytes that are not UTF-8), so every
 * reader works on bounded spans, never on fixed-size buffers, and never
 * trusts a number before range-checking it.
 *
 * Uses the client's object structs (kube.h) and warnings.h.
 */
#ifndef SCHEME_UTIL_H
#define SCHEME_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "kube.h"
#include "scheme.h"
#include "warnings.h"

/* Upper bounds for figures read from annotations: far above any real GPU,
 * low enough that sums over thousands of pods cannot overflow int64_t. */
#define SCHEME_MAX_MIB ((int64_t)1 << 32)   /* 4 PiB of GPU memory */
#define SCHEME_MAX_COUNT ((int64_t)1 << 20) /* slots, percent, devices */
#define SCHEME_MAX_DEVICES 4096		    /* devices in one register annotation */

/* A read-only view of part of a string. */
struct sspan {
	const char *p;
	size_t n;
};

static inline struct sspan sspan_of(const char *s)
{
	return (struct sspan){s, s ? strlen(s) : 0};
}

/* Cut the next field, up to sep, off *rest.  Returns false once *rest is
 * used up.  "a:b:" yields "a", "b" and a final empty field, so callers can
 * tell a trailing separator from a missing one. */
bool sspan_split(struct sspan *rest, char sep, struct sspan *field);
/* Without the white space at either end. */
struct sspan sspan_trim(struct sspan s);
bool sspan_eq(struct sspan s, const char *lit);
/* The fields sep would cut s into. */
size_t sspan_count(struct sspan s, char sep);
/* A non-negative decimal integer no larger than max: 0 and *ret, else -1. */
int sspan_int64(struct sspan s, int64_t max, int64_t *ret);
/* Device names and card models are plain ASCII; anything else (control
 * bytes, bytes that are not UTF-8) would end up in tables and JSON, so such
 * a field makes the annotation malformed rather than being copied. */
bool sspan_printable(struct sspan s, bool allow_space);
/* A malloc'd copy; NULL on allocation failure. */
char *sspan_dup(struct sspan s);
bool str_is_printable(const char *s, bool allow_space);

/* A warning about the node or pod, its object named "node/NAME" or
 * "pod/NS/NAME". */
void scheme_warn_node(struct warnings *w, const char *code, const struct k8s_node *node, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void scheme_warn_pod(struct warnings *w, const char *code, const struct k8s_pod *pod, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A resource quantity from a node's or container's list: 1 and *ret set
 * when present and readable, 0 when absent, -1 when malformed or negative. */
int scheme_quantity(const struct kvlist *l, const char *name, int64_t *ret);
/* Whether the node lists the resource (allocatable or capacity). */
bool scheme_node_has(const struct k8s_node *node, const char *res);
/* Allocatable and capacity of one resource of a node, each at most max: a
 * side that is missing, malformed or larger takes the other's value (0 when
 * neither is usable), and a bad side raises one MalformedQuantity warning.
 * Returns whether the node lists the resource at all. */
bool scheme_node_amounts(const struct k8s_node *node, const char *res, int64_t max, int64_t *alloc, int64_t *cap,
			 struct warnings *w);
/* Whether a quantity names a whole number.  quantity_parse_int rounds
 * down, so "40.5" and "500m" would otherwise pass silently as 40 and 0. */
bool scheme_quantity_whole(const char *s);
/* Sum of one resource over a pod's containers, and each container's value
 * in per[] (when per is not NULL).  Returns how many containers name the
 * resource; malformed values count as present, read as 0, and are warned
 * about once per container. */
size_t scheme_pod_sum(const struct k8s_pod *pod, const char *name, int64_t *per, int64_t *sum, struct warnings *w);
/* Per-container arrays for a scheme_pod, zeroed: 0, or -1 when out of
 * memory.  NULL (and success) when the pod has no containers. */
int scheme_pod_alloc_containers(const struct k8s_pod *pod, struct scheme_pod *out);
/* The annotation's value when the pod has it and it is not empty, else NULL. */
const char *scheme_pod_annotation(const struct k8s_pod *pod, const char *key);

/* The GPUs a container asks for under a count resource: 1 when it names
 * none or no usable count, at most SCHEME_MAX_ASK_GPUS. */
int64_t scheme_container_count(const struct k8s_container *c, const char *res);

/* A UTC time in the client's timestamp layouts: 0 and *ret, else -1.
 * Times before 1970 are taken for garbage, as no cluster wrote them. */
int scheme_parse_utc(const char *s, char date_sep, char mid_sep, time_t *ret);
/* The current time, for ages such as HAMi's handshake.  The environment
 * variable CGPU_NOW (seconds since the epoch, or "YYYY-MM-DDTHH:MM:SSZ")
 * pins it, so that tests and golden files do not depend on the clock. */
time_t scheme_now(void);

#endif
