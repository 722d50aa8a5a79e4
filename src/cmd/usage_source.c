#include "usage_source.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "kube.h"

/* A Prometheus answer holds one series per GPU or per pod: more than this
 * is not a GPU cluster's answer, and is refused rather than held. */
#define SERIES_MAX 2000000
/* Without --request-timeout the usage source still gets a bound: the
 * allocation is never held back longer than this by a slow Prometheus. */
#define DEFAULT_TIMEOUT_MS 10000

static const char *flag_or_env(const char *flag, const char *env)
{
	const char *v = flag ? flag : getenv(env);

	return v && *v ? v : NULL;
}

static bool path_segment_ok(const char *s, size_t n)
{
	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '-' || s[i] == '.' || s[i] == ':' || s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

int usage_source_init(struct usage_source *s, const char *const *vals, struct kerr *err)
{
	const char *svc = flag_or_env(vals[0], "CGPU_PROMETHEUS");
	const char *url = flag_or_env(vals[1], "CGPU_PROMETHEUS_URL");
	const char *token = flag_or_env(vals[2], "CGPU_PROMETHEUS_TOKEN_FILE");
	const char *ca = flag_or_env(vals[3], "CGPU_PROMETHEUS_CA");
	const char *labels = flag_or_env(vals[4], "CGPU_PROMETHEUS_LABELS");
	const char *window = flag_or_env(vals[5], "CGPU_USAGE_WINDOW");

	memset(s, 0, sizeof(*s));
	usage_labels_default(&s->labels);
	/* a flag of one kind wins over the environment's other kind */
	if (vals[0] && !vals[1])
		url = NULL;
	if (vals[1] && !vals[0])
		svc = NULL;
	if (svc && url)
		return kerr_set(err, KERR_USAGE, "--prometheus and --prometheus-url cannot be used together");
	if ((token || ca) && !url && (vals[2] || vals[3]))
		return kerr_set(err, KERR_USAGE, "--prometheus-token-file and --prometheus-ca go with --prometheus-url");
	if (window && !usage_window_valid(window))
		return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--window\" flag: want a duration such as 5m or 1h",
				window);
	if (labels && usage_labels_override(&s->labels, labels, err) < 0)
		return -1;
	s->window = window ? window : "5m";
	if (svc) {
		const char *slash = strchr(svc, '/');

		if (!slash || !path_segment_ok(svc, (size_t)(slash - svc)) ||
		    !path_segment_ok(slash + 1, strlen(slash + 1)) || strchr(slash + 1, '/'))
			return kerr_set(err, KERR_USAGE,
					"invalid argument \"%s\" for \"--prometheus\" flag: want NAMESPACE/SERVICE[:PORT]", svc);
		if (asprintf(&s->service_path, "/api/v1/namespaces/%.*s/services/%s/proxy", (int)(slash - svc), svc,
			     slash + 1) < 0)
			return kerr_set(err, KERR_OTHER, "out of memory");
		s->configured = true;
	} else if (url) {
		if (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)
			return kerr_set(err, KERR_USAGE,
					"invalid argument \"%s\" for \"--prometheus-url\" flag: want an http:// or https:// URL",
					url);
		s->url = url;
		s->token_file = token;
		s->ca_file = ca;
		s->configured = true;
	}
	return 0;
}

void usage_source_release(struct usage_source *s)
{
	if (!s)
		return;
	free(s->service_path);
	usage_labels_release(&s->labels);
	memset(s, 0, sizeof(*s));
}

/* One query's answer, read as it arrives. */
struct answer {
	struct usage_fetch *f;
	enum usage_query q;
	struct usage_stream *stream;
	bool wanted, finished;
};

struct usage_fetch {
	pthread_t thread;
	atomic_bool done;
	/* the answers that can name pods are in and indexed: the command's pod
	 * filter may read f->data's index from then on */
	atomic_bool names_ready;
	const char *where;
	struct answer answers[UQ_COUNT];
	const struct usage_source *src;
	const struct kube_config *api_cfg;
	struct kube_config direct; /* for --prometheus-url */
	struct kube_client_options opt;
	bool all;
	struct usage_data data;
	char *source_error;
};

/* One line for the grouped warning. */
static char *describe(const struct kerr *e, const char *where)
{
	const char *msg = e->message ? e->message : "unknown error";
	char *s = NULL;
	int r;

	switch (e->kind) {
	case KERR_REFUSED:
		r = asprintf(&s, "the connection to %s was refused", e->host ? e->host : where);
		break;
	case KERR_STATUS:
		r = asprintf(&s, "%s answered %ld%s%s: %s", where, e->code, e->reason ? " " : "",
			     e->reason ? e->reason : "", msg);
		break;
	default:
		r = asprintf(&s, "%s: %s", where, msg);
		break;
	}
	return r < 0 ? NULL : s;
}

static int read_file(const char *path, struct kblob *out, struct kerr *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int e;

	if (fd < 0)
		return kerr_set(err, KERR_CONFIG, "cannot read %s: %s", path, strerror(errno));
	e = kblob_read_fd(fd, 4 << 20, out);
	close(fd);
	if (e)
		return kerr_set(err, KERR_CONFIG, "cannot read %s: %s", path, strerror(e));
	return 0;
}

/* The host of an http(s) URL is this machine. */
static bool url_loopback(const char *url)
{
	const char *h = strstr(url, "://");
	size_t len;

	if (!h)
		return false;
	h += 3;
	len = strcspn(h, "/?#");
	if (memchr(h, '@', len)) /* user info */
		return false;
	if (len >= 5 && strncmp(h, "[::1]", 5) == 0)
		return len == 5 || h[5] == ':';
	len = strcspn(h, ":/?#");
	if (len == 9 && strncasecmp(h, "localhost", 9) == 0)
		return true;
	/* 127.0.0.0/8 as an address, not a name that begins "127." */
	return len > 4 && strncmp(h, "127.", 4) == 0 && strspn(h, "0123456789.") == len;
}

/* Once every answer that can name pods is in, index them for the pod
 * filter; the other answers only write their own slots of f->data. */
static void publish_names(struct usage_fetch *f)
{
	if (atomic_load(&f->names_ready))
		return;
	for (int q = 0; q < UQ_COUNT; q++)
		if (f->answers[q].wanted && !f->answers[q].finished && usage_query_names_pods(q))
			return;
	if (usage_data_index(&f->data) == 0)
		atomic_store(&f->names_ready, true);
}

static void answer_finish(struct answer *a)
{
	struct kerr err = KERR_INIT;

	a->finished = true;
	if (usage_stream_finish(a->stream, &a->f->data, &err) < 0) {
		a->f->data.problem[a->q] = describe(&err, a->f->where);
		kerr_release(&err);
	}
	publish_names(a->f);
}

/* An answer is taken as soon as its document ends, not when the slowest of
 * the others does: the pod filter can decide that much sooner. */
static int stream_sink(void *ud, const char *p, size_t n, struct kerr *err)
{
	struct answer *a = ud;

	if (usage_stream_feed(a->stream, p, n, err) < 0)
		return -1;
	if (!a->finished && usage_stream_ended(a->stream))
		answer_finish(a);
	return 0;
}

/* For --prometheus-url, the source's own connection; else the API
 * server's, whose service proxy leads to Prometheus.  NULL on an error. */
static const struct kube_config *source_config(struct usage_fetch *f, struct kerr *err)
{
	const struct usage_source *s = f->src;

	if (!s->url)
		return f->api_cfg;
	f->direct.server = strdup(s->url);
	f->direct.token_file = s->token_file ? strdup(s->token_file) : NULL;
	if (!f->direct.server || (s->token_file && !f->direct.token_file)) {
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	if (s->ca_file && read_file(s->ca_file, &f->direct.ca, err) < 0)
		return NULL;
	if (s->token_file && access(s->token_file, R_OK) < 0) {
		kerr_set(err, KERR_CONFIG, "cannot read %s: %s", s->token_file, strerror(errno));
		return NULL;
	}
	/* On this machine (a port-forward) the bytes cost nothing and gzip
	 * only costs CPU: Prometheus takes about twice as long to answer
	 * 20,000 series compressed as plain. */
	f->direct.disable_compression = url_loopback(s->url);
	return &f->direct;
}

/* The queries of one fetch, sent together. */
struct batch {
	char *path;
	char *text[UQ_COUNT];		/* "query=...", by query */
	struct kube_get reqs[UQ_COUNT]; /* by query */
	int idx[UQ_COUNT];		/* the queries asked, in order */
	size_t n;
};

/* Every query the fetch asks (all, or those that give memory in use), each
 * answer read as it arrives, never held whole. */
static int batch_prepare(struct usage_fetch *f, struct batch *b, struct kerr *err)
{
	const struct usage_source *s = f->src;

	if (asprintf(&b->path, "%s/api/v1/query", s->service_path ? s->service_path : "") < 0) {
		b->path = NULL;
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (int q = 0; q < UQ_COUNT; q++) {
		char *text, *esc;

		if (!f->all && q != UQ_GPU_USED && q != UQ_HOST_USED && q != UQ_VGPU_USED)
			continue;
		text = usage_query_text(q, &s->labels, s->window);
		esc = text ? kube_escape(text) : NULL;
		free(text);
		b->reqs[q].path = b->path;
		if (!esc || asprintf(&b->text[q], "query=%s", esc) < 0)
			b->text[q] = NULL;
		free(esc);
		if (!b->text[q])
			return kerr_set(err, KERR_OTHER, "out of memory");
		b->reqs[q].query = b->text[q];
		if (usage_stream_new(&f->answers[q].stream, q, &s->labels, SERIES_MAX, err) < 0)
			return -1;
		f->answers[q].wanted = true;
		b->reqs[q].data = stream_sink;
		b->reqs[q].ud = &f->answers[q];
		b->idx[b->n++] = q;
	}
	return 0;
}

/* Every query at once, on the client's connections. */
static int batch_send(struct kube_client *c, struct batch *b, struct kerr *err)
{
	struct kube_get sent[UQ_COUNT];

	for (size_t i = 0; i < b->n; i++)
		sent[i] = b->reqs[b->idx[i]];
	if (kube_get_json_all(c, sent, b->n, err) < 0)
		return -1;
	for (size_t i = 0; i < b->n; i++)
		b->reqs[b->idx[i]] = sent[i];
	return 0;
}

/* An error that makes the source itself unusable, not one query's problem. */
static bool source_fatal(const struct kerr *e)
{
	if (e->kind != KERR_DECODE && e->kind != KERR_STATUS)
		return true;
	return e->kind == KERR_STATUS && (e->code == 401 || e->code == 403 || e->code == 404 || e->code >= 500);
}

/* What the answers came to: the source's error when every query failed for
 * it, else each answer finished (or its problem said). */
static void batch_collect(struct usage_fetch *f, struct batch *b)
{
	const struct kerr *first_fatal = NULL;
	size_t fatal = 0;

	for (size_t i = 0; i < b->n; i++) {
		const struct kerr *e = &b->reqs[b->idx[i]].err;

		if (e->kind != KERR_NONE && source_fatal(e)) {
			fatal++;
			if (!first_fatal)
				first_fatal = e;
		}
	}
	if (fatal == b->n) {
		f->source_error = describe(first_fatal, f->where);
		return;
	}
	for (size_t i = 0; i < b->n; i++) {
		struct answer *a = &f->answers[b->idx[i]];

		if (a->finished)
			continue;
		if (b->reqs[a->q].err.kind == KERR_NONE) {
			answer_finish(a); /* says why the document is not whole */
			continue;
		}
		a->finished = true;
		f->data.problem[a->q] = describe(&b->reqs[a->q].err, f->where);
	}
	publish_names(f);
}

static void batch_release(struct usage_fetch *f, struct batch *b)
{
	for (int q = 0; q < UQ_COUNT; q++) {
		json_decref(b->reqs[q].result);
		kerr_release(&b->reqs[q].err);
		free(b->text[q]);
		usage_stream_free(f->answers[q].stream);
		f->answers[q].stream = NULL;
	}
	free(b->path);
}

static void *fetch_main(void *ud)
{
	struct usage_fetch *f = ud;
	const struct kube_config *cfg;
	struct kube_client *c = NULL;
	struct kerr err = KERR_INIT;
	struct batch b = { 0 };

	cfg = source_config(f, &err);
	if (cfg && kube_client_new(cfg, &f->opt, &c, &err) == 0 && batch_prepare(f, &b, &err) == 0 &&
	    batch_send(c, &b, &err) == 0) {
		batch_collect(f, &b);
	} else {
		f->source_error = describe(&err, f->where);
		if (!f->source_error)
			f->source_error = strdup("out of memory");
		kerr_release(&err);
	}
	batch_release(f, &b);
	kube_client_free(c);
	atomic_store(&f->done, true);
	return NULL;
}

int usage_fetch_start(const struct usage_source *s, const struct kube_config *cfg, const struct cli_ctx *ctx,
		      bool all, struct usage_fetch **ret, struct kerr *err)
{
	struct usage_fetch *f = calloc(1, sizeof(*f));

	if (!f)
		return kerr_set(err, KERR_OTHER, "out of memory");
	f->src = s;
	f->api_cfg = cfg;
	f->where = s->url ? s->url : "the Prometheus service";
	for (int q = 0; q < UQ_COUNT; q++)
		f->answers[q] = (struct answer){.f = f, .q = q};
	atomic_init(&f->names_ready, false);
	f->all = all;
	f->opt.request_timeout_ms = ctx->g.request_timeout_ms > 0 ? ctx->g.request_timeout_ms : DEFAULT_TIMEOUT_MS;
	f->opt.verbosity = ctx->g.verbosity;
	f->opt.log = ctx->errout;
	atomic_init(&f->done, false);
	if (pthread_create(&f->thread, NULL, fetch_main, f) != 0) {
		free(f);
		return kerr_set(err, KERR_OTHER, "cannot start a thread");
	}
	*ret = f;
	return 0;
}

bool usage_fetch_done(struct usage_fetch *f)
{
	return f && atomic_load(&f->done);
}

enum model_keep usage_fetch_names_pod(void *ud, const char *ns, const char *name)
{
	struct usage_fetch *f = ud;

	if (atomic_load(&f->names_ready)) /* the index is written once, before this */
		return usage_names_pod(&f->data, ns, name) ? MODEL_KEEP_YES : MODEL_KEEP_NO;
	/* no figure at all: no pod has one of its own */
	if (atomic_load(&f->done) && f->source_error)
		return MODEL_KEEP_NO;
	return MODEL_KEEP_MAYBE;
}

void usage_fetch_finish(struct usage_fetch *f, struct usage_data *d, char **source_error)
{
	pthread_join(f->thread, NULL);
	*d = f->data;
	*source_error = f->source_error;
	kube_config_release(&f->direct);
	free(f);
}

int usage_fetch_apply(struct usage_fetch *f, struct model *m, const struct usage_options *o, struct kerr *err)
{
	struct usage_data d;
	char *source_error = NULL;
	int rc;

	usage_fetch_finish(f, &d, &source_error);
	rc = usage_apply(m, &d, o, source_error, err);
	usage_data_release(&d);
	free(source_error);
	return rc;
}

void usage_fetch_free(struct usage_fetch *f)
{
	struct usage_data d;
	char *source_error = NULL;

	if (!f)
		return;
	usage_fetch_finish(f, &d, &source_error);
	usage_data_release(&d);
	free(source_error);
}

int usage_load(struct cli_ctx *ctx, const struct usage_source *s, struct cluster_load *l, bool all, bool prune,
	       const struct usage_options *uo, struct kerr *err)
{
	struct usage_fetch *f;
	int rc;

	if (usage_fetch_start(s, &l->cluster.cfg, ctx, all, &f, err) < 0)
		return -1;
	/* a pod without a figure of its own is dropped once the answers that
	 * can name pods are in */
	if (prune) {
		l->mo.keep_pod_if = usage_fetch_names_pod;
		l->mo.keep_pod_ud = f;
	}
	rc = cluster_load_model(l, err);
	l->mo.keep_pod_if = NULL;
	l->mo.keep_pod_ud = NULL;
	if (rc < 0) {
		usage_fetch_free(f);
		return -1;
	}
	return usage_fetch_apply(f, &l->model, uo, err);
}
