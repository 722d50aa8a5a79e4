/* Pod manifests (YAML and JSON) on arbitrary bytes: read, turned into a fit
 * request, and its node rules matched against labels made of the same input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every object of the input, as fit -f reads a file: a failure says why,
 * and each workload read has its pod and a count of pods. */
static void read_all(const uint8_t *data, size_t size)
{
	struct kerr err = KERR_INIT;
	struct manifest_set set = {0};

	if (manifest_read_all((const char *)data, size, &set, &err) < 0) {
		if (!err.message)
			abort();
		kerr_release(&err);
		manifest_set_release(&set);
		return;
	}
	for (size_t i = 0; i < set.len; i++)
		if (!set.items[i].pod || !set.items[i].kind || set.items[i].pods < MANIFEST_PER_NODE)
			abort();
	for (size_t i = 0; i < set.nskipped; i++)
		if (!set.skipped[i].kind || !set.skipped[i].count)
			abort();
	manifest_set_release(&set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kerr err = KERR_INIT;
	struct k8s_pod *pod = NULL;
	struct fit_request r = {0};
	const struct scheme *sc;
	struct warnings w = {0};
	struct kvlist labels = {0};

	read_all(data, size);
	if (manifest_read_pod((const char *)data, size, &pod, &err) < 0) {
		/* a failure always says why and returns nothing */
		if (pod || !err.message)
			abort();
		kerr_release(&err);
		return 0;
	}
	if (!pod)
		abort();
	if (fit_request_from_pod(pod, NULL, &r, &sc, &w) > 0 && (r.gpus < 1 || r.gpus > 64 || !sc))
		abort();
	/* the pod's own labels stand in for a node's */
	for (size_t i = 0; i < pod->labels.len; i++)
		kvlist_add(&labels, pod->labels.items[i].key, strlen(pod->labels.items[i].key),
			   pod->labels.items[i].value, strlen(pod->labels.items[i].value));
	for (size_t i = 0; i < pod->nnode_terms; i++)
		(void)k8s_node_term_match(&labels, &pod->node_terms[i]);
	(void)k8s_node_selector_match(&labels, &pod->node_selector);
	for (size_t i = 0; i < pod->ntolerations; i++) {
		struct k8s_taint t = {pod->tolerations[i].key, pod->tolerations[i].value, pod->tolerations[i].effect};

		(void)k8s_tolerates(pod->tolerations, pod->ntolerations, &t);
	}
	kvlist_release(&labels);
	warnings_release(&w);
	k8s_pod_free(pod);
	return 0;
}
