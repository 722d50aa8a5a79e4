/* The manifests of `fit -f` and `defrag -f`, read as kubectl apply -f reads
 * them: a comma-separated list of paths (the flag is a list), "-" for
 * stdin, a directory's files ending .yaml, .yml or .json in name order
 * (its subdirectories too with -R), every document of each.
 *
 * Uses the client's manifest reader (kube.h). */
#ifndef FIT_FILES_H
#define FIT_FILES_H

#include <stdbool.h>

#include "kube.h"

/* Every object of every path in list into set; errors name the path. */
int fit_files_read(const char *list, bool recursive, struct manifest_set *set, struct kerr *err);

#endif
