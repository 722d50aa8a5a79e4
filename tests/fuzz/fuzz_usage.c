/* libFuzzer target for the answers of the Prometheus query API, read as a
 * stream: the first byte picks the query (and so the unit), the second where
 * the body is cut in two, the rest is the body.  The body read whole and
 * read in two pieces must give the same outcome and the same series, and
 * whatever parses must join with a model without trouble. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parse_cut(struct usage_data *d, enum usage_query q, const struct usage_labels *l, const char *body,
		     size_t len, size_t cut, struct kerr *err)
{
	struct usage_stream *s;
	int r;

	if (usage_stream_new(&s, q, l, 0, err) < 0)
		abort();
	r = usage_stream_feed(s, body, cut, err);
	if (r == 0)
		r = usage_stream_feed(s, body + cut, len - cut, err);
	if (r == 0)
		r = usage_stream_finish(s, d, err);
	usage_stream_free(s);
	return r;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m;
	struct model_options o = {.force_unit = -1, .keep_pods = true};
	struct usage_labels l;
	struct usage_data d = {0}, c = {0};
	struct kerr err = KERR_INIT, cerr = KERR_INIT;
	enum usage_query q;
	const char *body = (const char *)data + 2;
	size_t len, cut;
	int r;

	if (size < 2)
		return 0;
	q = (enum usage_query)(data[0] % UQ_COUNT);
	len = size - 2;
	cut = len ? data[1] % (len + 1) : 0;
	usage_labels_default(&l);
	r = usage_parse_bytes(&d, q, &l, body, len, &err);
	if ((parse_cut(&c, q, &l, body, len, cut, &cerr) == 0) != (r == 0) || c.n[q] != d.n[q])
		abort();
	for (size_t i = 0; i < d.n[q]; i++) {
		const struct usage_sample *x = &d.samples[q][i], *y = &c.samples[q][i];

		if (x->value < 0 || x->value != y->value || x->gpu != y->gpu || !same(x->pod, y->pod) ||
		    !same(x->namespace, y->namespace) || !same(x->uuid, y->uuid) || !same(x->node[0], y->node[0]))
			abort();
	}
	if (r == 0) {
		if (usage_data_index(&d) < 0)
			abort();
		if (model_init(&m, &o) < 0 || model_finish(&m, &err) < 0 || usage_apply(&m, &d, NULL, NULL, &err) < 0)
			abort();
		model_release(&m);
	} else if (!err.message) {
		abort();
	}
	kerr_release(&err);
	kerr_release(&cerr);
	usage_data_release(&d);
	usage_data_release(&c);
	usage_labels_release(&l);
	return 0;
}
