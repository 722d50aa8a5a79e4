/* Quantities as the API and people write them.  Pure; fuzzed. */
#ifndef QUANTITY_H
#define QUANTITY_H

#include <stdint.h>

/* Parse a Kubernetes quantity ("4", "100m", "1Gi", "2k") into an integer
 * count of whole units (rounded down); -1 on a malformed value. */
int quantity_parse_int(const char *s, int64_t *ret);
/* A memory size as written by hand in a label: "16160MiB", "15GiB", "15G",
 * "2048" (MiB) -> MiB; -1 if malformed. */
int memory_label_mib(const char *s, int64_t *ret);

#endif
