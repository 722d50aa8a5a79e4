/* `kubectl inspect cgpu fit`: would a pod fit now, where, and if not why.
 *
 * The pod comes from flags, from a manifest (-f FILE or -), or from the
 * cluster (NAMESPACE/NAME, with its latest FailedScheduling events).  The
 * nodes and pods are listed as for the summary, the model is built without
 * pods, and the pure fit check (src/model/fit.c) answers.  Exit 0 when it
 * fits, 3 when it does not. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleet.h"
#include "fit.h"
#include "fit_claims.h"
#include "fit_files.h"
#include "fit_fleet.h"
#include "kube.h"
#include "load.h"
#include "model.h"
#include "nodesel.h"
#include "output.h"
#include "render.h"
#include "render_fit.h"

#define MAX_EVENTS 3

enum { F_MEMORY, F_GPUS, F_CORE, F_CLASS, F_DEVICES, F_CAPACITY, F_SELECTOR, F_FILENAME, F_RECURSIVE, F_OUTPUT,
       F_COUNT };

const struct flag fit_flags[] = {
	[F_MEMORY] = {"memory", 0, "QUANTITY",
		      "GPU memory on each GPU: a count in the nodes' own unit (12), or with a unit (12Gi, 12GiB, 512Mi)",
		      NULL},
	[F_GPUS] = {"gpus", 0, "N", "number of GPUs (default 1); alone, whole GPUs", NULL},
	[F_CORE] = {"core", 0, "PCT", "compute share of each GPU, in percent", NULL},
	[F_CLASS] = {"device-class", 0, "NAME", "a claim of devices of this DeviceClass (Dynamic Resource Allocation)",
		     NULL},
	[F_DEVICES] = {"count", 0, "N", "devices the claim asks for (default 1)", NULL},
	[F_CAPACITY] = {"capacity", 0, CLI_LIST_ARG("NAME=QUANTITY"),
			"capacity the claim asks of each device (memory=10Gi)", NULL},
	[F_SELECTOR] = {"device-selector", 0, "CEL", "a CEL expression each device must satisfy, beside the class's", NULL},
	[F_FILENAME] = {"filename", 'f', CLI_LIST_ARG("FILE"),
			"manifests of Pods or workloads (YAML or JSON, files or directories; - for stdin)", NULL},
	[F_RECURSIVE] = {"recursive", 'R', NULL, "process the directories given with -f recursively", NULL},
	[F_OUTPUT] = {"output", 'o', "FORMAT", "output format: json or yaml", "json yaml"},
	[F_COUNT] = {0},
};

struct fit_run {
	/* the command line */
	struct nodesel sel;
	enum output out;
	const char *memory;   /* --memory as given */
	const char *pod_name; /* NAMESPACE/NAME or NAME, or NULL */
	const char *filename; /* -f, or NULL */
	bool recursive;	      /* -R */
	struct manifest_set set; /* what -f holds */
	json_t *docs;		 /* -o json|yaml: the answers, one per workload */
	/* the nodes, and the connection */
	struct cluster_load load;
	struct k8s_pod *pod; /* from -f or the cluster */
	struct fit_request req;
	const struct scheme *sc;
	char *subject;
	char **events;
	size_t nevents;
	char *scheduled_on; /* the pod is already on a node */
	/* a claim of devices from the flags */
	struct k8s_dra_request claim;
	struct k8s_dra_selector selector;
	struct fit_claims claims; /* of the manifest being answered */
};

/* --memory as kubectl reads a quantity (fit_parse_memory), or refused in
 * kubectl's flag-error form with how to write it. */
static int parse_memory(const char *v, struct fit_request *r, struct kerr *err)
{
	char *why = NULL;

	if (fit_parse_memory(v, &r->mem, &r->mem_unit, &why) == 0)
		return 0;
	cli_flag_error(err, "memory", v, why ? why : "out of memory");
	free(why);
	return -1;
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

/* The query of a pod's FailedScheduling events; NULL when out of memory. */
static char *events_query(const char *name)
{
	char *sel, *esc, *q;

	if (asprintf(&sel, "involvedObject.kind=Pod,involvedObject.name=%s,reason=FailedScheduling", name) < 0)
		return NULL;
	esc = kube_escape(sel);
	free(sel);
	if (!esc || asprintf(&q, "fieldSelector=%s", esc) < 0)
		q = NULL;
	free(esc);
	return q;
}

/* The messages of a list of events, newest first, each once. */
static int keep_messages(struct fit_run *r, json_t *list, struct kerr *err)
{
	size_t n = json_array_size(json_object_get(list, "items"));
	json_t **items = calloc(n + 1, sizeof(*items));
	int rc = 0;

	r->events = calloc(MAX_EVENTS, sizeof(char *));
	if (!items || !r->events) {
		free(items);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		items[i] = json_array_get(json_object_get(list, "items"), i);
	qsort(items, n, sizeof(*items), cmp_events);
	for (size_t i = 0; rc == 0 && i < n && r->nevents < MAX_EVENTS; i++) {
		const char *msg = json_string_value(json_object_get(items[i], "message"));
		bool dup = false;

		if (!msg)
			continue;
		for (size_t j = 0; j < r->nevents; j++)
			dup |= strcmp(r->events[j], msg) == 0;
		if (!dup && !(r->events[r->nevents++] = strdup(msg)))
			rc = kerr_set(err, KERR_OTHER, "out of memory");
	}
	free(items);
	return rc;
}

/* The pod's latest FailedScheduling messages (newest first, each once). */
static int read_events(struct kube_client *c, struct fit_run *r, const char *ns, const char *name, struct kerr *err)
{
	char *path = kube_path("v1", ns, "events", NULL), *q = events_query(name);
	json_t *list = NULL;
	int rc;

	if (!path || !q)
		rc = kerr_set(err, KERR_OTHER, "out of memory");
	else if ((rc = kube_get_json(c, path, q, &list, err)) == 0)
		rc = keep_messages(r, list, err);
	free(path);
	free(q);
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
	if (rc < 0 && cli_drop_status(err, 403, 404))
		rc = 0;
out:
	free(path);
	json_decref(j);
	return rc;
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

/* "claim: 2 devices of class gpu.nvidia.com, memory=10Gi each, where EXPR" */
static char *describe_claim(const struct fit_request *q, const char *what)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s: ", what);
	for (size_t i = 0; i < q->nclaim; i++) {
		const struct k8s_dra_request *c = &q->claim[i];
		long long n = c->count > 0 ? c->count : 1;
		bool all = c->allocation_mode && strcmp(c->allocation_mode, "All") == 0;

		if (i)
			fputs("; ", f);
		if (!c->class_name) {
			fprintf(f, "request %s (the first of its sub-requests that can be allocated)", c->name ? c->name : "");
			continue;
		}
		if (all)
			fprintf(f, "every device of class %s", c->class_name);
		else
			fprintf(f, "%lld device%s of class %s", n, n == 1 ? "" : "s", c->class_name);
		for (size_t k = 0; k < c->capacity.len; k++)
			fprintf(f, "%s%s=%s", k ? ", " : " with ", c->capacity.items[k].key, c->capacity.items[k].value);
		for (size_t k = 0; k < c->nselectors; k++)
			fprintf(f, "%s%s", k ? " and " : " where ", c->selectors[k].expression ? c->selectors[k].expression : "");
		if (c->admin_access)
			fputs(", with admin access", f);
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static void run_release(struct fit_run *r)
{
	fit_claims_release(&r->claims);
	kvlist_release(&r->claim.capacity);
	cluster_load_release(&r->load);
	nodesel_release(&r->sel);
	if (!r->filename)
		k8s_pod_free(r->pod);
	manifest_set_release(&r->set);
	json_decref(r->docs);
	free(r->subject);
	for (size_t i = 0; i < r->nevents; i++)
		free(r->events[i]);
	free(r->events);
	free(r->scheduled_on);
}

/* Of the pods on nodes, the model keeps the one asked about. */
static enum model_keep keep_named_pod(void *ud, const char *namespace, const char *name)
{
	const struct k8s_pod *p = ud;

	return p->namespace && p->name && namespace && name && strcmp(namespace, p->namespace) == 0 &&
			       strcmp(name, p->name) == 0
		       ? MODEL_KEEP_YES
		       : MODEL_KEEP_NO;
}

/* The pod asked about, as the model holds it: a pod bound to its node and
 * waiting there for a GPU has a pending reason; NULL when none. */
static const struct model_pod *waiting_pod(const struct fit_run *r)
{
	const struct model *m = &r->load.model;

	for (size_t i = 0; r->scheduled_on && i < m->npods; i++)
		if (m->pods[i].pending_reason && m->pods[i].node && strcmp(m->pods[i].node, r->scheduled_on) == 0)
			return &m->pods[i];
	return NULL;
}

/* The answer as a table, or as a document kept for the end. */
static int print_answer(struct cli_ctx *ctx, struct fit_run *r, const struct fit_result *res,
			const struct fit_sequence *seq, struct kerr *err)
{
	struct fit_report rep = {.subject = r->subject, .events = (const char *const *)r->events, .nevents = r->nevents,
				 .seq = seq};
	json_t *doc;

	if (!output_is_document(r->out))
		return render_fit_table(ctx->out, &r->load.model, &r->req, res, &rep, err);
	doc = render_fit_document(&r->load.model, &r->req, res, &rep);
	if (!doc)
		return kerr_set(err, KERR_OTHER, "cannot build the answer");
	if (r->scheduled_on)
		json_object_set_new(doc, "scheduledOn", json_string(r->scheduled_on));
	if (waiting_pod(r))
		json_object_set_new(doc, "pendingReason", json_string(waiting_pod(r)->pending_reason));
	if ((!r->docs && !(r->docs = json_array())) || json_array_append_new(r->docs, doc) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	return 0;
}

/* One answer as its document, several as a List of them, as kubectl prints
 * several objects. */
static int print_documents(struct cli_ctx *ctx, struct fit_run *r, struct kerr *err)
{
	json_t *list;
	int rc;

	if (json_array_size(r->docs) == 1)
		return output_document(ctx, json_array_get(r->docs, 0), r->out, err);
	list = json_pack("{s:s, s:s, s:O}", "apiVersion", "v1", "kind", "List", "items", r->docs);
	if (!list)
		return kerr_set(err, KERR_OTHER, "out of memory");
	rc = output_document(ctx, list, r->out, err);
	json_decref(list);
	return rc;
}

/* --capacity NAME=QUANTITY[,...]: each a quantity as kubectl reads one. */
static int parse_capacity(const char *v, struct kvlist *out, struct kerr *err)
{
	char *copy = strdup(v), *save = NULL;
	int rc = 0;

	if (!copy)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (char *item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		int64_t q;

		if (!eq || eq == item || quantity_parse_int(eq + 1, &q) < 0 || q <= 0) {
			rc = cli_flag_error(err, "capacity", v, "must be NAME=QUANTITY, such as memory=10Gi");
			break;
		}
		*eq = 0;
		if (kvlist_add(out, item, strlen(item), eq + 1, strlen(eq + 1)) < 0)
			rc = kerr_set(err, KERR_OTHER, "out of memory");
	}
	free(copy);
	return rc;
}

/* --device-class and the flags of a claim, which go with it alone. */
static int parse_claim_flags(const char **vals, struct fit_run *r, struct kerr *err)
{
	long v = 1;

	if (!vals[F_CLASS])
		return 0;
	if (vals[F_MEMORY] || vals[F_GPUS] || vals[F_CORE])
		return kerr_set(err, KERR_USAGE,
				"--device-class asks for devices: give --count, --capacity and --device-selector, not --memory, --gpus or --core");
	if (!*vals[F_CLASS])
		return cli_flag_error(err, "device-class", vals[F_CLASS], "must name a DeviceClass");
	if (vals[F_DEVICES] && cli_parse_whole(vals[F_DEVICES], "count", 1, SCHEME_MAX_ASK_GPUS, &v, err) < 0)
		return -1;
	if (vals[F_CAPACITY] && parse_capacity(vals[F_CAPACITY], &r->claim.capacity, err) < 0)
		return -1;
	r->claim.name = (char *)"request";
	r->claim.class_name = (char *)vals[F_CLASS];
	r->claim.count = v;
	if (vals[F_SELECTOR]) {
		r->selector.expression = (char *)vals[F_SELECTOR];
		r->claim.selectors = &r->selector;
		r->claim.nselectors = 1;
	}
	r->req.claim = &r->claim;
	r->req.nclaim = 1;
	return 0;
}

/* The flags: what is asked for, and of which nodes. */
static int parse_args(struct cli_ctx *ctx, int argc, char **argv, struct fit_run *r, struct kerr *err)
{
	const char *vals[F_COUNT + NODESEL_MAX_FLAGS + 1] = {0};
	int npos = cli_parse_flags(ctx->cmd, argc, argv, vals, err);
	bool flags_given = vals[F_MEMORY] || vals[F_GPUS] || vals[F_CORE] || vals[F_CLASS];
	long v;

	if (npos < 0 || output_parse(vals[F_OUTPUT], false, &r->out, err) < 0)
		return -1;
	if (npos > 1)
		return kerr_set(err, KERR_USAGE, "fit takes at most one pod (NAMESPACE/NAME or NAME)");
	for (int f = F_DEVICES; f <= F_SELECTOR && !vals[F_CLASS]; f++)
		if (vals[f])
			return kerr_set(err, KERR_USAGE, "--%s is a flag of a claim: give it with --device-class",
					fit_flags[f].name);
	if ((npos > 0) + (vals[F_FILENAME] != NULL) + flags_given != 1)
		return kerr_set(err, KERR_USAGE,
				"give exactly one of: a pod (NAMESPACE/NAME), -f FILE, --memory/--gpus/--core, or --device-class");
	if (parse_claim_flags(vals, r, err) < 0)
		return -1;
	r->req.gpus = 1;
	if (vals[F_MEMORY] && parse_memory(vals[F_MEMORY], &r->req, err) < 0)
		return -1;
	if (vals[F_GPUS]) {
		if (cli_parse_whole(vals[F_GPUS], "gpus", 1, 64, &v, err) < 0)
			return -1;
		r->req.gpus = (int)v;
	}
	if (vals[F_CORE]) {
		if (cli_parse_whole(vals[F_CORE], "core", 1, 100, &v, err) < 0)
			return -1;
		r->req.core = v;
	}
	/* the positional names a pod, not nodes */
	if (nodesel_parse(&r->sel, ctx->cmd, vals, NULL, 0, false, err) < 0)
		return -1;
	r->req.scheme = r->sel.scheme;
	r->memory = vals[F_MEMORY];
	r->filename = vals[F_FILENAME];
	r->recursive = vals[F_RECURSIVE] != NULL;
	r->pod_name = npos > 0 ? argv[0] : NULL;
	return 0;
}

/* Every -f, and one line on stderr per kind skipped. */
static int read_manifests(struct cli_ctx *ctx, struct fit_run *r, struct kerr *err)
{
	if (fit_files_read(r->filename, r->recursive, &r->set, err) < 0)
		return -1;
	for (size_t i = 0; i < r->set.nskipped; i++)
		fprintf(ctx->errout, "skipped %zu %s object%s: no pod template\n", r->set.skipped[i].count,
			r->set.skipped[i].kind, r->set.skipped[i].count == 1 ? "" : "s");
	if (!r->set.len && !r->set.nclaims)
		return kerr_set(err, KERR_OTHER, "no object in the manifests carries a pod template (a Pod, Deployment, "
						 "ReplicaSet, StatefulSet, Job, CronJob or DaemonSet)");
	return 0;
}

/* NAMESPACE/NAME, or NAME in the kubeconfig's namespace. */
static int read_named_pod(struct fit_run *r, struct kerr *err)
{
	const char *slash = strchr(r->pod_name, '/');
	const char *dflt = r->load.cluster.cfg.namespace ? r->load.cluster.cfg.namespace : "default";
	char *ns = slash ? strndup(r->pod_name, (size_t)(slash - r->pod_name)) : strdup(dflt);
	char *name = strdup(slash ? slash + 1 : r->pod_name);
	int rc = -1;

	if (!ns || !name)
		kerr_set(err, KERR_OTHER, "out of memory");
	else if (!*ns || !*name || strchr(name, '/'))
		kerr_set(err, KERR_USAGE, "a pod is named NAMESPACE/NAME or NAME, not \"%s\"", r->pod_name);
	else
		rc = read_cluster_pod(r->load.cluster.client, r, ns, name, err);
	free(ns);
	free(name);
	return rc;
}

/* A pod of the manifests whose spec.resourceClaims name claims or
 * templates: what they request, where the pod may go. */
static int pod_claims_subject(struct fit_run *r, const char *what, struct kerr *err)
{
	const char *dflt = r->load.cluster.cfg.namespace ? r->load.cluster.cfg.namespace : "default";
	const char *ns = r->pod->namespace ? r->pod->namespace : dflt;
	char *label = NULL;

	fit_claims_release(&r->claims);
	if (fit_claims_for_pod(&r->claims, &r->set, r->load.cluster.client, r->load.dra_version, r->pod, ns, err) < 0)
		return -1;
	r->req.claim = r->claims.reqs;
	r->req.nclaim = r->claims.nreqs;
	r->req.node_selector = &r->pod->node_selector;
	r->req.terms = r->pod->node_terms;
	r->req.nterms = r->pod->nnode_terms;
	r->req.tols = r->pod->tolerations;
	r->req.ntols = r->pod->ntolerations;
	if (asprintf(&label, "%s %s/%s, claim %s", what, ns, r->pod->name ? r->pod->name : "",
		     r->claims.names ? r->claims.names : "") < 0)
		label = NULL;
	r->subject = label ? describe_claim(&r->req, label) : NULL;
	free(label);
	return r->subject ? 0 : kerr_set(err, KERR_OTHER, "out of memory");
}

/* The request said in words: from the pod (its GPU resources, what it
 * is: "pod", "manifest" or a workload's kind, and how many pods), or from
 * the flags. */
static int set_subject(struct fit_run *r, const char *what, long pods, struct warnings *w, struct kerr *err)
{
	char *label = NULL;
	int found;

	free(r->subject);
	r->subject = NULL;
	r->req = (struct fit_request){.scheme = r->sel.scheme, .mem = r->req.mem, .mem_unit = r->req.mem_unit,
				      .core = r->req.core, .gpus = r->req.gpus,
				      /* the flags' claim; a manifest's is its own */
				      .claim = r->filename ? NULL : r->req.claim, .nclaim = r->filename ? 0 : r->req.nclaim};
	if (!r->pod && r->req.nclaim) {
		r->subject = describe_claim(&r->req, "claim");
		return r->subject ? 0 : kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (!r->pod) {
		r->subject = describe(&r->req, "request");
		return r->subject ? 0 : kerr_set(err, KERR_OTHER, "out of memory");
	}
	if ((r->filename || r->pod_name) && r->pod->nclaims)
		return pod_claims_subject(r, what, err);
	found = fit_request_from_pod(r->pod, r->sel.scheme, &r->req, &r->sc, w);
	if (found < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!found)
		return kerr_set(err, KERR_OTHER, "%s %s%s%s asks for no GPU resource %s", what,
				r->pod->namespace ? r->pod->namespace : "", r->pod->namespace ? "/" : "",
				r->pod->name ? r->pod->name : "", r->sel.scheme ? "of that scheme" : "any scheme reads");
	if (asprintf(&label, "%s %s%s%s", what, r->pod->namespace ? r->pod->namespace : "", r->pod->namespace ? "/" : "",
		     r->pod->name ? r->pod->name : "") < 0)
		label = NULL;
	r->subject = label ? describe(&r->req, label) : NULL;
	free(label);
	if (r->subject && pods != 1) {
		char *s = NULL;

		if (pods < 0 ? asprintf(&s, "%s, one pod on each node it may run on", r->subject) < 0
			     : asprintf(&s, "%s, %ld pod%s", r->subject, pods, pods == 1 ? "" : "s") < 0)
			s = NULL;
		free(r->subject);
		r->subject = s;
	}
	return r->subject ? 0 : kerr_set(err, KERR_OTHER, "out of memory");
}

/* A plain --memory counts in each node's unit: the nodes must agree on one. */
static int check_memory_unit(const struct fit_run *r, struct kerr *err)
{
	const struct model *m = &r->load.model;
	bool gib = false, mib = false;

	if (r->pod || !r->req.mem || r->req.mem_unit != FIT_MEM_NODE || r->req.scheme)
		return 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		gib |= m->nodes[i].info.unit == UNIT_GIB;
		mib |= m->nodes[i].info.unit == UNIT_MIB;
	}
	if (gib && mib)
		return kerr_set(err, KERR_USAGE,
				"--memory %s has no unit and the nodes count GPU memory in GiB and in MiB: write %sGi or %sMi, or choose a --scheme",
				r->memory, r->memory, r->memory);
	return 0;
}

/* A claim names DeviceClasses: each must exist, as the API server says of one that does not. */
static int check_classes(const struct fit_run *r, struct kerr *err)
{
	for (size_t i = 0; i < r->req.nclaim; i++) {
		char *msg = NULL;

		/* a request without a class chooses among sub-requests, which are not judged */
		if (!r->req.claim[i].class_name || fit_claim_class_known(&r->load.model, r->req.claim[i].class_name))
			continue;
		if (asprintf(&msg, "deviceclasses.resource.k8s.io \"%s\" not found", r->req.claim[i].class_name) < 0)
			msg = NULL;
		kerr_set_status(err, 404, "NotFound", msg ? msg : "deviceclass not found");
		free(msg);
		return -1;
	}
	return 0;
}

static void print_scheduled_on(struct cli_ctx *ctx, const char *node_name)
{
	char *node = strdup(node_name);

	for (char *p = node; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(ctx->out, "The pod is already scheduled on node %s: the answer below counts it there too.\n",
		node ? node : "?");
	free(node);
}

/* A filter that left no node to check: which one, on stderr, as the
 * default command says it. */
static int print_nothing_selected(struct cli_ctx *ctx, const struct fit_run *r, struct kerr *err)
{
	char *sel = nodesel_text(&r->sel);

	if (!sel)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (!*sel)
		fprintf(ctx->errout, "no node shares its GPUs (%zu node%s looked at): does not fit anywhere\n",
			r->load.nodes_seen, r->load.nodes_seen == 1 ? "" : "s");
	else if (r->load.nodes_seen == 0)
		fprintf(ctx->errout, "no node matches %s: does not fit anywhere selected\n", sel);
	else
		fprintf(ctx->errout, "no node matching %s shares its GPUs (%zu node%s looked at): does not fit anywhere selected\n",
			sel, r->load.nodes_seen, r->load.nodes_seen == 1 ? "" : "s");
	free(sel);
	return 0;
}

/* Check the request against the nodes and print the answer; pods != 1
 * places that many one after another (each taking its place in the model
 * before the next).  *fits is false when some pod found no place. */
static int answer(struct cli_ctx *ctx, struct fit_run *r, long pods, bool *fits, struct kerr *err)
{
	struct fit_result res = {0};
	struct fit_sequence seq = {0};
	/* each pod of a workload makes its own claim: one is checked */
	bool many = pods != 1 && !r->req.nclaim;
	const struct model_pod *waits = waiting_pod(r);
	int rc;

	/* a pod waiting on its node for a GPU: the verdict on that node, the
	 * same check that gives its pending reason */
	if (waits)
		r->req.node = r->scheduled_on;
	if (fit_check(&r->load.model, &r->req, &res) < 0 ||
	    (many && fit_sequence(&r->load.model, &r->req, pods, &seq) < 0)) {
		fit_result_release(&res);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (waits && !output_is_document(r->out))
		fprintf(ctx->out, "The pod is bound to node %s and has no GPU yet: %s.\n", waits->node, waits->pending_reason);
	else if (r->scheduled_on && !output_is_document(r->out))
		print_scheduled_on(ctx, r->scheduled_on);
	rc = print_answer(ctx, r, &res, many ? &seq : NULL, err);
	if (many)
		*fits &= seq.placed == seq.asked;
	else
		*fits &= res.nsure > 0 || (r->scheduled_on && !waits);
	if (!many && rc == 0 && res.nsure && r->pod && r->filename && !r->req.nclaim)
		fit_take(&r->load.model, &r->req, &res.fits[0]);
	fit_result_release(&res);
	fit_sequence_release(&seq);
	return rc;
}

/* Whether a pod of the manifests names the claim or template obj. */
static bool claim_named(const struct manifest_set *set, const json_t *obj)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	bool tmpl = kind && strcmp(kind, "ResourceClaimTemplate") == 0;

	for (size_t i = 0; name && i < set->len; i++)
		for (size_t j = 0; j < set->items[i].pod->nclaims; j++) {
			const struct k8s_pod_claim *c = &set->items[i].pod->claims[j];
			const char *n = tmpl ? c->template_name : c->claim_name;

			if (n && strcmp(n, name) == 0)
				return true;
		}
	return false;
}

/* The claims and templates of the manifests no pod names, each on its own. */
static int answer_claims(struct cli_ctx *ctx, struct fit_run *r, bool *fits, struct kerr *err)
{
	bool first = r->set.len == 0;

	for (size_t i = 0; i < r->set.nclaims; i++) {
		const json_t *obj = r->set.claims[i];
		const json_t *meta = json_object_get(obj, "metadata");
		const char *kind = json_string_value(json_object_get(obj, "kind"));
		const char *ns = json_string_value(json_object_get(meta, "namespace"));
		char *label = NULL;

		if (claim_named(&r->set, obj))
			continue;
		fit_claims_release(&r->claims);
		if (fit_claims_of(&r->claims, obj, err) < 0)
			return -1;
		r->pod = NULL;
		r->req = (struct fit_request){.scheme = r->sel.scheme, .gpus = 1, .claim = r->claims.reqs,
					      .nclaim = r->claims.nreqs};
		free(r->subject);
		if (asprintf(&label, "%s %s%s%s", strcmp(kind, "ResourceClaim") == 0 ? "resourceclaim" : "resourceclaimtemplate",
			     ns ? ns : "", ns ? "/" : "", r->claims.names ? r->claims.names : "") < 0)
			label = NULL;
		r->subject = label ? describe_claim(&r->req, label) : NULL;
		free(label);
		if (!r->subject)
			return kerr_set(err, KERR_OTHER, "out of memory");
		if (check_classes(r, err) < 0)
			return -1;
		if (!first && !output_is_document(r->out))
			fputc('\n', ctx->out);
		first = false;
		if (answer(ctx, r, 1, fits, err) < 0)
			return -1;
	}
	return 0;
}

/* Each workload of the manifests in turn, each taking its places before
 * the next is checked. */
static int answer_manifests(struct cli_ctx *ctx, struct fit_run *r, struct warnings *w, bool *fits, struct kerr *err)
{
	for (size_t i = 0; i < r->set.len; i++) {
		const struct manifest_workload *wl = &r->set.items[i];
		char what[32];

		snprintf(what, sizeof(what), "%s", strcmp(wl->kind, "Pod") == 0 ? "manifest" : wl->kind);
		for (char *p = what; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		r->pod = wl->pod;
		if (set_subject(r, what, wl->pods, w, err) < 0 || check_classes(r, err) < 0)
			return -1;
		if (i && !output_is_document(r->out))
			fputc('\n', ctx->out);
		if (answer(ctx, r, wl->pods, fits, err) < 0)
			return -1;
	}
	return answer_claims(ctx, r, fits, err);
}

int fit_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err)
{
	struct fit_run r = {0};
	struct warnings w = {0};
	bool fits = true;
	int rc = -1;

	/* the nodes as they are now, with what pending pods need (-l, --pool) */
	r.load = (struct cluster_load){.sel = &r.sel, .mo = {.force_unit = -1, .pool_label = POOL_LABEL, .scheduling = true}};
	if (parse_args(ctx, argc, argv, &r, err) < 0 || (r.filename && read_manifests(ctx, &r, err) < 0))
		goto out;
	if (cluster_fleet_asked(ctx)) {
		/* a fleet is asked about one pod: the first of the manifests */
		if (r.filename)
			r.pod = r.set.items[0].pod;
		if (set_subject(&r, r.filename ? "manifest" : "pod", 1, &w, err) < 0)
			goto out;
		if (r.pod_name)
			kerr_set(err, KERR_USAGE, "a pod is read from one cluster: with several contexts, give -f FILE or --memory");
		else
			rc = fit_fleet_run(ctx, &r.load, &r.req, r.subject, r.out, err);
		goto out;
	}
	if (cluster_connect(ctx, &r.load.cluster, err) < 0 || (r.pod_name && read_named_pod(&r, err) < 0))
		goto out;
	if (r.scheduled_on) {
		/* the pod itself, to tell whether it waits there for a GPU */
		r.load.mo.keep_pods = true;
		r.load.mo.keep_pod_if = keep_named_pod;
		r.load.mo.keep_pod_ud = r.pod;
	}
	/* a pod's claims are read in the version the load finds */
	if (!r.filename && !(r.pod && r.pod->nclaims) && set_subject(&r, "pod", 1, &w, err) < 0)
		goto out;
	if (cluster_load_model(&r.load, err) < 0 || check_memory_unit(&r, err) < 0)
		goto out;
	if ((!r.filename && r.pod && r.pod->nclaims && set_subject(&r, "pod", 1, &w, err) < 0) ||
	    check_classes(&r, err) < 0)
		goto out;
	if (r.filename ? answer_manifests(ctx, &r, &w, &fits, err) < 0 : answer(ctx, &r, 1, &fits, err) < 0)
		goto out;
	if (r.docs && print_documents(ctx, &r, err) < 0)
		goto out;
	fflush(ctx->out);
	if (!r.load.model.nnodes && print_nothing_selected(ctx, &r, err) < 0)
		goto out;
	rc = fits ? 0 : FIT_EXIT_DOES_NOT_FIT;
out:
	run_release(&r);
	warnings_release(&w);
	return rc;
}
