/* `kubectl inspect cgpu usage [NODE...]`: GPU memory allocated beside GPU
 * memory in use, per GPU (and with -d per pod), with the findings: pods
 * using more than they were allocated, pods holding memory they hardly use,
 * memory used on GPUs nothing was allocated on.  The Prometheus queries run
 * while the nodes and pods are listed. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kube.h"
#include "model.h"
#include "nodesel.h"
#include "output.h"
#include "render.h"
#include "usage_source.h"

enum { F_DETAILS, F_OUTPUT, F_IDLE, F_USAGE, F_COUNT = F_USAGE + USAGE_SOURCE_NFLAGS };

const struct flag usage_flags[] = {
	[F_DETAILS] = {"details", 'd', NULL, "also show each pod's allocated and used GPU memory", NULL},
	[F_OUTPUT] = {"output", 'o', "FORMAT", "output format: json or yaml", "json yaml"},
	[F_IDLE] = {"idle-below", 0, "PERCENT",
		    "report as Idle what uses less than this share of its allocation (default 25)", NULL},
	USAGE_SOURCE_FLAGS,
	[F_COUNT] = {0},
};

static int parse_percent(const char *v, double *ret, struct kerr *err)
{
	char *end;
	double d;

	if (!v) {
		*ret = USAGE_IDLE_PERCENT;
		return 0;
	}
	d = strtod(v, &end);
	if (end == v || (*end && strcmp(end, "%") != 0) || !(d >= 0 && d <= 100))
		return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--idle-below\" flag: want a percentage from 0 to 100",
				v);
	*ret = d;
	return 0;
}

int usage_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = {0};
	struct nodesel sel = {0};
	struct usage_source src = {0};
	struct usage_fetch *fetch = NULL;
	struct usage_options uo = {.unaccounted_bytes = USAGE_UNACCOUNTED_BYTES};
	struct model_options mo = {.force_unit = -1, .keep_pods = true};
	struct kube_config cfg = {0};
	struct kube_client *client = NULL;
	struct model m;
	bool have_model = false, connected = false;
	enum output out;
	int npos, rc = -1;

	npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);
	if (npos < 0)
		return -1;
	if (output_parse(vals[F_OUTPUT], false, &out, err) < 0)
		return -1;
	if (parse_percent(vals[F_IDLE], &uo.idle_percent, err) < 0)
		return -1;
	if (nodesel_parse(&sel, ctx->cmd, vals, argv, (size_t)npos, false, err) < 0)
		goto out;
	if (usage_source_init(&src, vals + F_USAGE, err) < 0)
		goto out;
	if (!src.configured) {
		kerr_set(err, KERR_USAGE,
			 "no usage source: give --prometheus NAMESPACE/SERVICE[:PORT] or --prometheus-url URL "
			 "(or set CGPU_PROMETHEUS or CGPU_PROMETHEUS_URL)");
		goto out;
	}
	/* -n narrows the pods listed; the GPU figures always count every pod */
	if (!ctx->g.all_namespaces)
		mo.pod_namespace = ctx->g.ov.namespace;
	mo.nodes = (const char *const *)sel.names;
	mo.scheme = sel.scheme;

	if (cli_connect(ctx, &cfg, &client, err) < 0)
		goto out;
	connected = true;
	if (usage_fetch_start(&src, &cfg, ctx, true, &fetch, err) < 0)
		goto out;
	/* The table without -d names pods only in findings, and only a pod
	 * with a figure of its own can have one: the others are not kept once
	 * the answers say which pods they name.  -d and documents show all. */
	if (!vals[F_DETAILS] && !output_is_document(out)) {
		mo.keep_pod_if = usage_fetch_names_pod;
		mo.keep_pod_ud = fetch;
	}
	if (inspect_load_model(client, &mo, sel.names, sel.nnames, sel.label_selector, &m, NULL, err) < 0)
		goto out;
	have_model = true;
	rc = usage_fetch_apply(fetch, &m, &uo, err);
	fetch = NULL;
	if (rc < 0)
		goto out;
	if (output_is_document(out))
		rc = output_report(ctx, &m, out, err);
	else
		rc = render_usage(ctx->out, &m, vals[F_DETAILS] != NULL, err);
	if (rc < 0)
		goto out;
	fflush(ctx->out);
	if (render_warnings(ctx->errout, &m, err) < 0) {
		rc = -1;
		goto out;
	}
	/* the allocation is shown whatever the source said; no figure at all
	 * (where there are GPUs to measure) is still a failure */
	if (m.usage.gpus_known == 0 && m.usage.gpus_unknown > 0)
		rc = 1;
out:
	usage_fetch_free(fetch);
	if (have_model)
		model_release(&m);
	if (connected) {
		kube_client_free(client);
		kube_config_release(&cfg);
	}
	usage_source_release(&src);
	nodesel_release(&sel);
	return rc;
}
