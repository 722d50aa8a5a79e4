/* libFuzzer target for the answers of the Prometheus query API: the first
 * byte picks the query (and so the unit), the rest is the body.  Whatever
 * parses must join with a model without trouble. */
#include <stdint.h>
#include <stdlib.h>

#include "usage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m;
	struct model_options o = {.force_unit = -1, .keep_pods = true};
	struct usage_labels l;
	struct usage_data d = {0};
	struct kerr err = KERR_INIT;
	enum usage_query q;

	if (size == 0)
		return 0;
	q = (enum usage_query)(data[0] % UQ_COUNT);
	usage_labels_default(&l);
	if (usage_parse_bytes(&d, q, &l, (const char *)data + 1, size - 1, &err) == 0) {
		for (size_t i = 0; i < d.n[q]; i++)
			if (d.samples[q][i].value < 0)
				abort();
		if (model_init(&m, &o) < 0 || model_finish(&m, &err) < 0 || usage_apply(&m, &d, NULL, NULL, &err) < 0)
			abort();
		model_release(&m);
	} else if (!err.message) {
		abort();
	}
	kerr_release(&err);
	usage_data_release(&d);
	usage_labels_release(&l);
	return 0;
}
