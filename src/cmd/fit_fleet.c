/* `fit` asked of several clusters (--context a,b or --all-contexts): the
 * same check in each cluster's model, the clusters best first (fit_fleet.h). */
#include "fit_fleet.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "render_fit.h"

/* What fit found in each cluster of a fleet, and the best-first order. */
struct fit_fleet {
	const struct fit_request *req;
	const char *subject;
	struct fleet f;
	struct fit_result *res;
	size_t *order;
};

/* Where the best place of a cluster leaves the least free, in MiB (slots
 * after memory); a cluster where it does not fit comes last. */
static long long fit_key(const struct fit_fleet *ff, size_t i)
{
	const struct fit_result *res = &ff->res[i];
	const struct model_node *n;

	if (!ff->f.loads[i].have_model || res->nsure == 0)
		return LLONG_MAX;
	n = &ff->f.loads[i].model.nodes[res->fits[0].node];
	if (n->unit == UNIT_GIB)
		return res->fits[0].free_after * 1024;
	return n->unit == UNIT_MIB ? res->fits[0].free_after : LLONG_MAX / 2 + res->fits[0].free_after;
}

static int cmp_clusters(const void *a, const void *b, void *ud)
{
	const struct fit_fleet *ff = ud;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	long long ki = fit_key(ff, i), kj = fit_key(ff, j);

	if (ki != kj)
		return ki < kj ? -1 : 1;
	return strcmp(ff->f.names[i], ff->f.names[j]);
}

static json_t *fit_cluster_json(const struct fleet *f, size_t i, void *ud)
{
	const struct fit_fleet *ff = ud;
	struct fit_report rep = {.subject = ff->subject};

	return render_fit_document(&f->loads[i].model, ff->req, &ff->res[i], &rep);
}

/* The table (or the FleetFitAnswer), the errors; 0 when it fits in a
 * cluster, FIT_EXIT_DOES_NOT_FIT when in none, 1 when a cluster failed. */
static int fleet_answer(struct cli_ctx *ctx, struct fit_fleet *ff, enum output out, struct kerr *err)
{
	struct fit_fleet_part *parts = calloc(ff->f.n, sizeof(*parts));
	size_t k = 0, fits = 0;
	int rc;

	if (!parts)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t j = 0; j < ff->f.n; j++) {
		size_t i = ff->order[j];

		if (!ff->f.loads[i].have_model)
			continue;
		parts[k++] = (struct fit_fleet_part){ .name = ff->f.names[i], .m = &ff->f.loads[i].model,
						      .res = &ff->res[i] };
		fits += ff->res[i].nsure;
	}
	if (output_is_document(out)) {
		json_t *doc = fleet_document(&ff->f, FLEET_KIND_FIT, ff->order, fit_cluster_json, ff);

		rc = doc ? output_document(ctx, doc, out, err) : kerr_set(err, KERR_OTHER, "cannot build the answer");
		json_decref(doc);
	} else {
		rc = render_fit_fleet_table(ctx->out, parts, k, ff->req, ff->subject, err);
	}
	free(parts);
	fleet_print_errors(ctx, &ff->f);
	if (rc < 0)
		return -1;
	rc = fleet_exit_code(ctx, &ff->f);
	return rc ? rc : fits ? 0 : FIT_EXIT_DOES_NOT_FIT;
}

int fit_fleet_run(struct cli_ctx *ctx, struct cluster_load *load, const struct fit_request *req, const char *subject,
		  enum output out, struct kerr *err)
{
	struct fit_fleet ff = {.req = req, .subject = subject};
	int rc = -1;

	if (fleet_load(ctx, &ff.f, load, err) < 0)
		goto out;
	ff.res = calloc(ff.f.n, sizeof(*ff.res));
	ff.order = calloc(ff.f.n, sizeof(*ff.order));
	if (!ff.res || !ff.order) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ff.f.n; i++) {
		ff.order[i] = i;
		if (ff.f.loads[i].have_model && fit_check(&ff.f.loads[i].model, req, &ff.res[i]) < 0) {
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
	}
	qsort_r(ff.order, ff.f.n, sizeof(*ff.order), cmp_clusters, &ff);
	rc = fleet_answer(ctx, &ff, out, err);
out:
	for (size_t i = 0; ff.res && i < ff.f.n; i++)
		fit_result_release(&ff.res[i]);
	free(ff.res);
	free(ff.order);
	fleet_release(&ff.f);
	return rc;
}
