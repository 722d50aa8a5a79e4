/* `kubectl inspect cgpu fit`: would a pod fit now, where, and if not why.
 *
 * The pod comes from flags, from a manifest (-f FILE or -), or from the
 * cluster (NAMESPACE/NAME, with its latest FailedScheduling events).  The
 * nodes and pods are listed as for the summary, the model is built without
 * pods, and the pure fit check (src/model/fit.c) answers.  Exit 0 when it
 * fits, 3 when it does not. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fit.h"
#include "kube.h"
#include "model.h"
#include "nodesel.h"
#include "output.h"
#include "render.h"
#include "render_fit.h"

#define ACTIVE_PODS "status.phase!=Succeeded,status.phase!=Failed"
#define MAX_MANIFEST (4 << 20)
#define MAX_EVENTS 3
#define EXIT_DOES_NOT_FIT 3

enum { F_MEMORY, F_GPUS, F_CORE, F_FILENAME, F_OUTPUT, F_COUNT };

const struct flag fit_flags[] = {
	[F_MEMORY] = {"memory", 0, "QUANTITY",
		      "GPU memory on each GPU: a count in the nodes' own unit (12), or with a unit (12Gi, 12GiB, 512Mi)",
		      NULL},
	[F_GPUS] = {"gpus", 0, "N", "number of GPUs (default 1); alone, whole GPUs", NULL},
	[F_CORE] = {"core", 0, "PCT", "compute share of each GPU, in percent", NULL},
	[F_FILENAME] = {"filename", 'f', "FILE", "a Pod, Deployment, StatefulSet, Job or DaemonSet manifest (YAML or JSON; - for stdin)",
			NULL},
	[F_OUTPUT] = {"output", 'o', "FORMAT", "output format: json or yaml", "json yaml"},
	[F_COUNT] = {0},
};

struct fit_run {
	struct model m;
	bool have_model;
	struct k8s_pod *pod; /* from -f or the cluster */
	struct fit_request req;
	const struct scheme *sc;
	char *subject;
	char **events;
	size_t nevents;
	char *scheduled_on; /* the pod is already on a node */
};

static int on_node(void *ud, struct k8s_node *node, struct kerr *err)
{
	int rc = model_add_node(ud, node, err);

	k8s_node_free(node);
	return rc;
}

static int on_pod(void *ud, struct k8s_pod *pod, struct kerr *err)
{
	int rc = model_add_pod(ud, pod, err);

	k8s_pod_free(pod);
	return rc;
}

static void on_node_meta(void *ud, const char *rv, const char *cont)
{
	if (!rv && !cont)
		model_reset_nodes(ud);
}

static void on_pod_meta(void *ud, const char *rv, const char *cont)
{
	if (!rv && !cont)
		model_reset_pods(ud);
}

static int usage(struct kerr *err, const char *flag, const char *v, const char *what)
{
	return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--%s\" flag: %s", v, flag, what);
}

static int parse_count(const char *v, const char *flag, long lo, long hi, int64_t *ret, struct kerr *err)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi) {
		char what[64];

		snprintf(what, sizeof(what), "must be a whole number from %ld to %ld", lo, hi);
		return usage(err, flag, v, what);
	}
	*ret = n;
	return 0;
}

/* "12" counts in each node's unit; "12Gi", "12GiB", "512Mi", "16G" are sizes. */
static int parse_memory(const char *v, struct fit_request *r, struct kerr *err)
{
	size_t len = strlen(v), digits = strspn(v, "0123456789");
	int64_t bytes;

	if (digits && digits == len)
		return parse_count(v, "memory", 0, 1 << 30, &r->mem, err) < 0 ? -1 : (r->mem_unit = FIT_MEM_NODE, 0);
	r->mem_unit = FIT_MEM_MIB;
	if (len > 3 && strcmp(v + len - 2, "iB") == 0) {
		if (memory_label_mib(v, &r->mem) < 0 || r->mem < 0)
			return usage(err, "memory", v, "must be a quantity such as 12, 12Gi or 512Mi");
		return 0;
	}
	if (quantity_parse_int(v, &bytes) < 0 || bytes < 0)
		return usage(err, "memory", v, "must be a quantity such as 12, 12Gi or 512Mi");
	r->mem = bytes / (1024 * 1024) + (bytes % (1024 * 1024) != 0);
	return 0;
}

static int read_all(const char *path, char **ret, size_t *ret_len, struct kerr *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return kerr_set(err, KERR_OTHER, "the path \"%s\" does not exist", path);
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > MAX_MANIFEST + 1)
				cap = MAX_MANIFEST + 1;
			nb = len < cap ? realloc(buf, cap + 1) : NULL;
			if (!nb) {
				free(buf);
				if (f != stdin)
					fclose(f);
				return len >= MAX_MANIFEST ? kerr_set(err, KERR_OTHER, "%s: the manifest is larger than 4 MiB", path)
							   : kerr_set(err, KERR_OTHER, "out of memory");
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		if (f != stdin)
			fclose(f);
		return kerr_set(err, KERR_OTHER, "cannot read \"%s\"", path);
	}
	if (f != stdin)
		fclose(f);
	if (!buf && !(buf = malloc(1)))
		return kerr_set(err, KERR_OTHER, "out of memory");
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

static const char *event_time(const json_t *e)
{
	const char *keys[] = {"lastTimestamp", "eventTime"};

	for (size_t i = 0; i < 2; i++) {
		const char *s = json_string_value(json_object_get(e, keys[i]));

		if (s && *s)
			return s;
	}
	const char *s = json_string_value(json_object_get(json_object_get(e, "metadata"), "creationTimestamp"));

	return s ? s : "";
}

static int cmp_events(const void *a, const void *b)
{
	/* RFC 3339 times in UTC order as text; newest first */
	return strcmp(event_time(*(json_t *const *)b), event_time(*(json_t *const *)a));
}

/* The pod's latest FailedScheduling messages (newest first, each once). */
static int read_events(struct kube_client *c, struct fit_run *r, const char *ns, const char *name, struct kerr *err)
{
	char *path = kube_path("v1", ns, "events", NULL), *q = NULL, *sel = NULL, *esc_sel = NULL;
	json_t *list = NULL, **items = NULL;
	size_t n;
	int rc = -1;

	if (!path || asprintf(&sel, "involvedObject.kind=Pod,involvedObject.name=%s,reason=FailedScheduling", name) < 0 ||
	    !(esc_sel = kube_escape(sel)) || asprintf(&q, "fieldSelector=%s", esc_sel) < 0) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	if (kube_get_json(c, path, q, &list, err) < 0)
		goto out;
	n = json_array_size(json_object_get(list, "items"));
	items = calloc(n + 1, sizeof(*items));
	r->events = calloc(MAX_EVENTS, sizeof(char *));
	if (!items || !r->events) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		items[i] = json_array_get(json_object_get(list, "items"), i);
	qsort(items, n, sizeof(*items), cmp_events);
	for (size_t i = 0; i < n && r->nevents < MAX_EVENTS; i++) {
		const char *msg = json_string_value(json_object_get(items[i], "message"));
		bool dup = false;

		if (!msg)
			continue;
		for (size_t j = 0; j < r->nevents; j++)
			dup |= strcmp(r->events[j], msg) == 0;
		if (!dup && !(r->events[r->nevents++] = strdup(msg))) {
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	free(path);
	free(q);
	free(sel);
	free(esc_sel);
	free(items);
	json_decref(list);
	return rc;
}

static int read_cluster_pod(struct kube_client *c, struct fit_run *r, const char *ns, const char *name,
			    struct kerr *err)
{
	char *path = kube_path("v1", ns, "pods", name);
	json_t *j = NULL;
	int rc = -1;

	if (!path) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	if (kube_get_json(c, path, NULL, &j, err) < 0 || manifest_pod_from_json(j, &r->pod, err) < 0)
		goto out;
	if (r->pod->node_name && !(r->scheduled_on = strdup(r->pod->node_name))) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	rc = read_events(c, r, ns, name, err);
	/* events are an explanation, not the answer: a server that will not
	 * show them (forbidden, not served) still gets the answer */
	if (rc < 0 && err->kind == KERR_STATUS && (err->code == 403 || err->code == 404)) {
		kerr_release(err);
		*err = (struct kerr)KERR_INIT;
		rc = 0;
	}
out:
	free(path);
	json_decref(j);
	return rc;
}

static int list_cluster(struct kube_client *c, struct fit_run *r, const char *label_selector, struct kerr *err)
{
	struct model_options mo = {.force_unit = -1, .pool_label = POOL_LABEL, .scheduling = true};
	struct kube_list lists[2];
	int rc;

	if (model_init(&r->m, &mo) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	r->have_model = true;
	if (!model_node_filter(&r->m) || !model_pod_filter(&r->m))
		return kerr_set(err, KERR_OTHER, "out of memory");
	memset(lists, 0, sizeof(lists));
	lists[0] = (struct kube_list){.path = "/api/v1/nodes", .label_selector = label_selector, .kind = OBJ_NODE,
				      .filter = model_node_filter(&r->m),
				      .sink = {.node = on_node, .list_meta = on_node_meta, .ud = &r->m}};
	lists[1] = (struct kube_list){.path = "/api/v1/pods", .field_selector = ACTIVE_PODS, .kind = OBJ_POD,
				      .filter = model_pod_filter(&r->m),
				      .sink = {.pod = on_pod, .list_meta = on_pod_meta, .ud = &r->m}};
	rc = kube_list_run(c, lists, 2, err);
	kube_list_release(&lists[0]);
	kube_list_release(&lists[1]);
	if (rc < 0)
		return -1;
	return model_finish(&r->m, err);
}

/* "pod ml/train-0 (cgpu): 12 GPU memory units (each node's own) on each of 1 GPU" */
static char *describe(const struct fit_request *q, const char *what)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int gpus = q->gpus > 1 ? q->gpus : 1;
	const struct scheme *sc = scheme_find(q->scheme);
	bool vgpu = sc && sc->whole_card_by_default;

	if (!f)
		return NULL;
	fputs(what, f);
	if (q->scheme)
		fprintf(f, " (%s)", q->scheme);
	fputs(": ", f);
	if (!q->mem && !q->core && !vgpu) {
		fprintf(f, "%d whole GPU%s", gpus, gpus > 1 ? "s" : "");
	} else {
		if (q->mem && q->mem_unit == FIT_MEM_MIB)
			fprintf(f, "%lld MiB of GPU memory", (long long)q->mem);
		else if (q->mem)
			fprintf(f, "%lld of GPU memory in each node's unit", (long long)q->mem);
		else if (vgpu)
			fputs("a whole GPU's memory", f);
		if (q->core)
			fprintf(f, "%s%lld%% compute", q->mem || vgpu ? " and " : "", (long long)q->core);
		fprintf(f, " on each of %d GPU%s", gpus, gpus > 1 ? "s" : "");
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static void run_release(struct fit_run *r)
{
	if (r->have_model)
		model_release(&r->m);
	k8s_pod_free(r->pod);
	free(r->subject);
	for (size_t i = 0; i < r->nevents; i++)
		free(r->events[i]);
	free(r->events);
	free(r->scheduled_on);
}

static int print_answer(struct cli_ctx *ctx, struct fit_run *r, const struct fit_result *res, enum output out,
			struct kerr *err)
{
	struct fit_report rep = {.subject = r->subject, .events = (const char *const *)r->events, .nevents = r->nevents};
	json_t *doc;
	int rc;

	if (!output_is_document(out))
		return render_fit_table(ctx->out, &r->m, &r->req, res, &rep, err);
	doc = render_fit_document(&r->m, &r->req, res, &rep);
	if (!doc)
		return kerr_set(err, KERR_OTHER, "cannot build the answer");
	if (r->scheduled_on)
		json_object_set_new(doc, "scheduledOn", json_string(r->scheduled_on));
	rc = output_document(ctx, doc, out, err);
	json_decref(doc);
	return rc;
}

int fit_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = {0};
	struct nodesel sel = {0};
	struct fit_run r = {0};
	struct fit_result res = {0};
	struct kube_config cfg = {0};
	struct kube_client *client = NULL;
	struct warnings w = {0};
	char *ns = NULL, *name = NULL;
	bool flags_given, connected = false, have_res = false;
	enum output out;
	int npos, rc = -1;
	int64_t v;

	npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);
	if (npos < 0)
		return -1;
	if (output_parse(vals[F_OUTPUT], false, &out, err) < 0)
		return -1;
	flags_given = vals[F_MEMORY] || vals[F_GPUS] || vals[F_CORE];
	if (npos > 1)
		return kerr_set(err, KERR_USAGE, "fit takes at most one pod (NAMESPACE/NAME or NAME)");
	if ((npos > 0) + (vals[F_FILENAME] != NULL) + flags_given != 1)
		return kerr_set(err, KERR_USAGE,
				"give exactly one of: a pod (NAMESPACE/NAME), -f FILE, or --memory/--gpus/--core");
	r.req.gpus = 1;
	if (vals[F_MEMORY] && parse_memory(vals[F_MEMORY], &r.req, err) < 0)
		return -1;
	if (vals[F_GPUS]) {
		if (parse_count(vals[F_GPUS], "gpus", 1, 64, &v, err) < 0)
			return -1;
		r.req.gpus = (int)v;
	}
	if (vals[F_CORE] && parse_count(vals[F_CORE], "core", 1, 100, &r.req.core, err) < 0)
		return -1;
	/* the positional names a pod, not nodes */
	if (nodesel_parse(&sel, ctx->cmd, vals, NULL, 0, false, err) < 0)
		goto out;
	r.req.scheme = sel.scheme;

	if (vals[F_FILENAME]) {
		char *buf = NULL;
		size_t len = 0;

		if (read_all(vals[F_FILENAME], &buf, &len, err) < 0)
			goto out;
		rc = manifest_read_pod(buf, len, &r.pod, err);
		free(buf);
		if (rc < 0) {
			kerr_prefix(err, "%s", strcmp(vals[F_FILENAME], "-") == 0 ? "stdin" : vals[F_FILENAME]);
			goto out;
		}
		rc = -1;
	}
	if (cli_connect(ctx, &cfg, &client, err) < 0)
		goto out;
	connected = true;
	if (npos > 0) {
		const char *slash = strchr(argv[0], '/');

		ns = slash ? strndup(argv[0], (size_t)(slash - argv[0])) : strdup(cfg.namespace ? cfg.namespace : "default");
		name = strdup(slash ? slash + 1 : argv[0]);
		if (!ns || !name) {
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
		if (!*ns || !*name || strchr(name, '/')) {
			kerr_set(err, KERR_USAGE, "a pod is named NAMESPACE/NAME or NAME, not \"%s\"", argv[0]);
			goto out;
		}
		if (read_cluster_pod(client, &r, ns, name, err) < 0)
			goto out;
	}
	if (r.pod) {
		const char *what = npos > 0 ? "pod" : "manifest";
		char *label = NULL;
		int found = fit_request_from_pod(r.pod, sel.scheme, &r.req, &r.sc, &w);

		if (found < 0) {
			kerr_set(err, KERR_OTHER, "out of memory");
			goto out;
		}
		if (!found) {
			kerr_set(err, KERR_OTHER, "%s %s%s%s asks for no GPU resource %s", what,
				 r.pod->namespace ? r.pod->namespace : "", r.pod->namespace ? "/" : "",
				 r.pod->name ? r.pod->name : "", sel.scheme ? "of that scheme" : "any scheme reads");
			goto out;
		}
		if (asprintf(&label, "%s %s%s%s", what, r.pod->namespace ? r.pod->namespace : "",
			     r.pod->namespace ? "/" : "", r.pod->name ? r.pod->name : "") < 0)
			label = NULL;
		r.subject = label ? describe(&r.req, label) : NULL;
		free(label);
	} else {
		r.subject = describe(&r.req, "request");
	}
	if (!r.subject) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	if (list_cluster(client, &r, sel.label_selector, err) < 0)
		goto out;
	if (!r.pod && r.req.mem && r.req.mem_unit == FIT_MEM_NODE && !r.req.scheme) {
		bool gib = false, mib = false;

		for (size_t i = 0; i < r.m.nnodes; i++) {
			gib |= r.m.nodes[i].info.unit == UNIT_GIB;
			mib |= r.m.nodes[i].info.unit == UNIT_MIB;
		}
		if (gib && mib) {
			kerr_set(err, KERR_USAGE,
				 "--memory %s has no unit and the nodes count GPU memory in GiB and in MiB: write %sGi or %sMi, or choose a --scheme",
				 vals[F_MEMORY], vals[F_MEMORY], vals[F_MEMORY]);
			goto out;
		}
	}
	if (fit_check(&r.m, &r.req, &res) < 0) {
		kerr_set(err, KERR_OTHER, "out of memory");
		goto out;
	}
	have_res = true;
	if (r.scheduled_on && !output_is_document(out)) {
		char *node = strdup(r.scheduled_on);

		for (char *p = node; p && *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		fprintf(ctx->out, "The pod is already scheduled on node %s: the answer below counts it there too.\n",
			node ? node : "?");
		free(node);
	}
	if (print_answer(ctx, &r, &res, out, err) < 0)
		goto out;
	fflush(ctx->out);
	rc = res.nfits > 0 || r.scheduled_on ? 0 : EXIT_DOES_NOT_FIT;
out:
	if (have_res)
		fit_result_release(&res);
	run_release(&r);
	warnings_release(&w);
	if (connected) {
		kube_client_free(client);
		kube_config_release(&cfg);
	}
	nodesel_release(&sel);
	free(ns);
	free(name);
	return rc;
}
