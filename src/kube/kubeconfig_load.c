/* Loading a kubeconfig as kubectl does: the merged files resolved into one
 * struct kube_config for the chosen context, with the command line's
 * overrides, every problem collected into one error.
 */
#include "kubeconfig.h"
#include "kubeconfig_internal.h"
#include "yaml_json.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <yaml.h>

#define EXEC_EXTENSION "client.authentication.k8s.io/exec"

/* --- from the merged files to struct kube_config ------------------------- */

static char *default_server(void)
{
	const char *m = getenv("KUBERNETES_MASTER");

	return strdup(m && *m ? m : "http://localhost:8080");
}

static char *resolve_path(struct yfile *f, const char *p)
{
	if (!p)
		return NULL;
	if (p[0] == '/' || !f)
		return strdup(p);
	return path_join(f->dir, p);
}

static int ydata(struct yfile *f, yaml_node_t *map, const char *key, struct kblob *out)
{
	yaml_node_t *n = ymap_get(f, map, key);
	size_t bad;

	if (!n || ynull(n) || !is_scalar(n) || n->data.scalar.length == 0)
		return 0;
	return b64_decode(n->data.scalar.value, n->data.scalar.length, out, &bad);
}

static bool has_data(struct yfile *f, yaml_node_t *map, const char *key)
{
	return ystr(f, map, key) != NULL;
}

static char **ystrv(struct yfile *f, yaml_node_t *seq)
{
	char **v;
	size_t n = 0;

	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return NULL;
	v = calloc((size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start) + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *e = ynode(f, *i);

		if (!(v[n++] = strdup(e && is_scalar(e) && !ynull(e) ? (const char *)e->data.scalar.value : ""))) {
			strv_free(v);
			return NULL;
		}
	}
	return v;
}

static char **strv_from(const char *const *src)
{
	size_t n = 0;
	char **v;

	while (src[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strdup(src[i]))) {
			strv_free(v);
			return NULL;
		}
	return v;
}

/* The exec plugin's cluster config keeps the YAML types of plain scalars. */
static json_t *typed_scalar(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;
	bool b;
	char *end;

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_stringn(v, n->data.scalar.length);
	if (ynull(n))
		return json_null();
	if (ybool_parse(n, &b) == 0 && strlen(v) > 1)
		return json_boolean(b);
	errno = 0;
	{
		long long ll = strtoll(v, &end, 10);

		if (*v && !*end && errno == 0)
			return json_integer(ll);
	}
	{
		double d = strtod(v, &end);

		if (*v && !*end && !isalpha((unsigned char)v[strlen(v) - 1]) && errno == 0)
			return json_real(d);
	}
	return json_stringn(v, n->data.scalar.length);
}

static char *exec_cluster_config(const struct named *cluster)
{
	yaml_node_t *ext;

	if (!cluster || !cluster->node)
		return NULL;
	ext = ymap_get(cluster->f, cluster->node, "extensions");
	if (!ext || ext->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (yaml_node_item_t *i = ext->data.sequence.items.start; i < ext->data.sequence.items.top; i++) {
		yaml_node_t *e = ynode(cluster->f, *i);
		struct yaml_json conv = {.doc = &cluster->f->doc, .budget = 100000, .scalar = typed_scalar};
		json_t *j;
		char *s;

		if (!e || !yscalar_is(ymap_get(cluster->f, e, "name"), EXEC_EXTENSION))
			continue;
		j = yaml_json_build(&conv, ymap_get(cluster->f, e, "extension"), 0);
		if (!j)
			return NULL;
		s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(j);
		return s;
	}
	return NULL;
}

/* Read a referenced file for validation; a problem becomes one message. */
static void load_file_field(struct msglist *probs, const char *what, const char *path, const char *owner,
			    struct kblob *out)
{
	int e = read_all(path, out);

	if (e) {
		char *t = errno_text(e);

		msglist_add(probs, "unable to read %s %s for %s due to %s %s: %s", what, path, owner,
			    e == EISDIR ? "read" : "open", path, t ? t : "error");
		free(t);
	}
}

static bool is_default_config(const struct kube_config *c)
{
	char *def = default_server();
	bool same = def && strcmp(c->server, def) == 0;

	free(def);
	return same && !c->ca.len && !c->insecure_skip_tls_verify && !c->tls_server_name && !c->proxy_url &&
	       !c->disable_compression && !c->client_cert.len && !c->client_key.len && !c->token && !c->token_file &&
	       !c->username && !c->password && !c->exec && !c->auth_provider && !c->impersonate_user &&
	       !c->impersonate_uid && !c->impersonate_groups && !c->impersonate_extra.len;
}

static int parse_interactive(const char *s, enum exec_interactive *ret)
{
	if (strcmp(s, "Never") == 0)
		*ret = EXEC_INTERACTIVE_NEVER;
	else if (strcmp(s, "IfAvailable") == 0)
		*ret = EXEC_INTERACTIVE_IFAVAILABLE;
	else if (strcmp(s, "Always") == 0)
		*ret = EXEC_INTERACTIVE_ALWAYS;
	else
		return -1;
	return 0;
}

/* The user's exec section; problems go to probs. */
static int load_exec(const struct named *user, const char *uname, yaml_node_t *x, struct msglist *probs,
		     struct kube_exec **ret)
{
	struct yfile *f = user->f;
	struct kube_exec *e = calloc(1, sizeof(*e));
	const char *cmd = ystr(f, x, "command"), *api = ystr(f, x, "apiVersion");
	const char *mode = ystr(f, x, "interactiveMode");
	yaml_node_t *env = ymap_get(f, x, "env");

	if (!e)
		return -1;
	*ret = e;
	if (cmd && !(e->command = strchr(cmd, '/') ? resolve_path(f, cmd) : strdup(cmd)))
		return -1;
	if (api && !(e->api_version = strdup(api)))
		return -1;
	if (!cmd)
		msglist_add(probs, "command must be specified for %s to use exec authentication plugin", uname);
	if (!api)
		msglist_add(probs, "apiVersion must be specified for %s to use exec authentication plugin", uname);
	if (ymap_get(f, x, "args") && !ynull(ymap_get(f, x, "args")) && !(e->args = ystrv(f, ymap_get(f, x, "args"))))
		return -1;
	if (env && env->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *i = env->data.sequence.items.start; i < env->data.sequence.items.top; i++) {
			yaml_node_t *item = ynode(f, *i);
			const char *n = ystr(f, item, "name"), *v = ystr(f, item, "value");

			if (!n) {
				msglist_add(probs,
					    "env variable name must be specified for %s to use exec authentication plugin",
					    uname);
				continue;
			}
			if (kvlist_add(&e->env, n, strlen(n), v ? v : "", v ? strlen(v) : 0) < 0)
				return -1;
		}
	if (ystr(f, x, "installHint") && !(e->install_hint = strdup(ystr(f, x, "installHint"))))
		return -1;
	e->provide_cluster_info = ybool(f, x, "provideClusterInfo");
	if (!mode) {
		/* v1 made the mode mandatory; v1beta1 defaults to IfAvailable */
		if (api && strcmp(api, "client.authentication.k8s.io/v1") == 0)
			msglist_add(probs, "interactiveMode must be specified for %s to use exec authentication plugin",
				    uname);
		e->interactive = EXEC_INTERACTIVE_IFAVAILABLE;
	} else if (parse_interactive(mode, &e->interactive) < 0) {
		msglist_add(probs, "invalid interactiveMode for %s: \"%s\"", uname, mode);
	}
	return 0;
}

static const char *ov_str(const char *s)
{
	return s && *s ? s : NULL;
}

/* A flag's value when given, else the config's. */
static const char *pick(const char *flag, const char *conf)
{
	return ov_str(flag) ? flag : conf;
}

/* The file a flag names, else the one the config names under key (relative
 * to the config) and whether the config also holds the content under
 * data_key.  -1 when out of memory. */
static int file_or_data(const char *flag, struct yfile *f, yaml_node_t *map, const char *key, const char *data_key,
			char **file, bool *data)
{
	const char *s;

	if (ov_str(flag))
		return (*file = strdup(flag)) ? 0 : -1;
	*data = has_data(f, map, data_key);
	if ((s = ystr(f, map, key)) && !(*file = resolve_path(f, s)))
		return -1;
	return 0;
}

/* What resolve() works from: the overrides, the context, cluster and user
 * chosen (each its file and mapping, NULL when none), their names ("" when
 * none) and the problems found so far, all reported together. */
struct resolving {
	const struct kube_overrides *ov;
	const char *ctx_name, *ns;
	const struct named *ctx, *cluster, *user;
	const char *cname, *uname;
	bool cluster_missing;
	struct yfile *cf, *uf;
	yaml_node_t *cn, *un;
	struct msglist probs;
};

/* The context, the cluster and the user, from the flags and the current
 * context.  -1 for a user flag naming no user, which kubectl reports alone. */
static int choose(struct resolving *r, const struct merged *m, struct kerr *err)
{
	const struct kube_overrides *ov = r->ov;
	const char *cluster_name = NULL, *user_name = NULL;

	r->ctx_name = ov_str(ov->context) ? ov->context : m->current_context;
	if (r->ctx_name && !(r->ctx = namedlist_find(&m->contexts, r->ctx_name)))
		msglist_add(&r->probs, "context was not found for specified context: %s", r->ctx_name);
	if (r->ctx && r->ctx->node) {
		cluster_name = ystr(r->ctx->f, r->ctx->node, "cluster");
		user_name = ystr(r->ctx->f, r->ctx->node, "user");
		r->ns = ystr(r->ctx->f, r->ctx->node, "namespace");
	}
	if (ov_str(ov->cluster)) {
		cluster_name = ov->cluster;
		r->cluster_missing = !namedlist_find(&m->clusters, cluster_name);
	}
	if (ov_str(ov->user)) {
		user_name = ov->user;
		if (!namedlist_find(&m->users, user_name))
			return kerr_set(err, KERR_CONFIG, "auth info \"%s\" does not exist", user_name);
	}
	if (ov_str(ov->namespace))
		r->ns = ov->namespace;
	if (cluster_name && (r->cluster = namedlist_find(&m->clusters, cluster_name))) {
		r->cf = r->cluster->f;
		r->cn = r->cluster->node;
	}
	if (user_name && (r->user = namedlist_find(&m->users, user_name))) {
		r->uf = r->user->f;
		r->un = r->user->node;
	}
	r->cname = cluster_name;
	r->uname = user_name;
	return 0;
}

/* The names chosen, and the namespace.  -1 when out of memory. */
static int copy_names(const struct resolving *r, struct kube_config *c)
{
	if ((r->ctx && !(c->context_name = strdup(r->ctx->name))) ||
	    (r->cname && !(c->cluster_name = strdup(r->cname))) ||
	    (r->uname && !(c->user_name = strdup(r->uname))) || !(c->namespace = strdup(r->ns ? r->ns : "default")))
		return -1;
	c->namespace_explicit = r->ns != NULL;
	return 0;
}

/* The client certificate and key: from the flags, else the user's data or
 * files; file was named, data was given inline. */
static void load_client_cert(struct resolving *r, struct kube_config *c, const char *cert_file, bool cert_data,
			     const char *key_file, bool key_data)
{
	const char *uname = r->uname;

	if (!cert_file && !cert_data) {
		if (key_file || key_data)
			msglist_add(&r->probs,
				    "client-certificate-data or client-certificate must be specified for %s to use the clientCert authentication method",
				    uname);
		return;
	}
	if (cert_file && cert_data)
		msglist_add(&r->probs,
			    "client-cert-data and client-cert are both specified for %s. client-cert-data will override.",
			    uname);
	if (key_file && key_data)
		msglist_add(&r->probs,
			    "client-key-data and client-key are both specified for %s; client-key-data will override",
			    uname);
	if (!key_file && !key_data)
		msglist_add(&r->probs,
			    "client-key-data or client-key must be specified for %s to use the clientCert authentication method.",
			    uname);
	if (cert_data)
		ydata(r->uf, r->un, "client-certificate-data", &c->client_cert);
	else
		load_file_field(&r->probs, "client-cert", cert_file, uname, &c->client_cert);
	if (key_data)
		ydata(r->uf, r->un, "client-key-data", &c->client_key);
	else if (key_file)
		load_file_field(&r->probs, "client-key", key_file, uname, &c->client_key);
}

/* The user's token, token file, basic auth and client certificate.  -1
 * when out of memory. */
static int resolve_user_auth(struct resolving *r, struct kube_config *c)
{
	const struct kube_overrides *ov = r->ov;
	struct yfile *uf = r->uf;
	yaml_node_t *un = r->un;
	char *cert_file = NULL, *key_file = NULL;
	bool cert_data = false, key_data = false;
	const char *s;
	int rc = -1;

	if ((s = ov_str(ov->token))) {
		if (!(c->token = strdup(s)))
			return -1;
	} else if (((s = ystr(uf, un, "token")) && !(c->token = strdup(s))) ||
		   ((s = ystr(uf, un, "tokenFile")) && !(c->token_file = resolve_path(uf, s)))) {
		return -1;
	}
	if (((s = ystr(uf, un, "username")) && !(c->username = strdup(s))) ||
	    ((s = ystr(uf, un, "password")) && !(c->password = strdup(s))))
		return -1;
	if (file_or_data(ov->client_certificate, uf, un, "client-certificate", "client-certificate-data",
			 &cert_file, &cert_data) < 0 ||
	    file_or_data(ov->client_key, uf, un, "client-key", "client-key-data", &key_file, &key_data) < 0)
		goto out;
	if (c->token && (c->username || c->password))
		msglist_add(&r->probs,
			    "more than one authentication method found for %s; found [token basicAuth], only one is allowed",
			    r->uname);
	load_client_cert(r, c, cert_file, cert_data, key_file, key_data);
	rc = 0;
out:
	free(cert_file);
	free(key_file);
	return rc;
}

/* The user's exec plugin and legacy auth provider (an oidc provider's
 * id-token is the token).  -1 when out of memory. */
static int resolve_user_plugin(struct resolving *r, struct kube_config *c)
{
	struct yfile *uf = r->uf;
	yaml_node_t *x = ymap_get(uf, r->un, "exec"), *auth = ymap_get(uf, r->un, "auth-provider");
	const char *name, *idt;

	if (x && !ynull(x)) {
		if (load_exec(r->user, r->uname, x, &r->probs, &c->exec) < 0)
			return -1;
		if (auth && !ynull(auth))
			msglist_add(&r->probs,
				    "authProvider cannot be provided in combination with an exec plugin for %s",
				    r->uname);
		if (c->exec->provide_cluster_info)
			c->exec->cluster_config_json = exec_cluster_config(r->cluster);
	}
	if (!auth || ynull(auth))
		return 0;
	name = ystr(uf, auth, "name");
	if (!(c->auth_provider = strdup(name ? name : "")))
		return -1;
	if (name && strcmp(name, "oidc") == 0 && !c->token) {
		idt = ystr(uf, ymap_get(uf, auth, "config"), "id-token");
		if (idt && !(c->token = strdup(idt)))
			return -1;
	}
	return 0;
}

/* The user's as-user-extra: every value of every key.  -1 when out of memory. */
static int load_user_extra(struct yfile *uf, yaml_node_t *x, struct kvlist *extra)
{
	if (!x || x->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = x->data.mapping.pairs.start; p < x->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ynode(uf, p->key), *vs = ynode(uf, p->value);

		if (!vs || vs->type != YAML_SEQUENCE_NODE)
			continue;
		for (yaml_node_item_t *i = vs->data.sequence.items.start; i < vs->data.sequence.items.top; i++) {
			yaml_node_t *v = ynode(uf, *i);
			const char *vv = ynull(v) ? "" : (const char *)v->data.scalar.value;

			if (kvlist_add(extra, (const char *)k->data.scalar.value, k->data.scalar.length, vv,
				       strlen(vv)) < 0)
				return -1;
		}
	}
	return 0;
}

/* Whom to impersonate: the flags, else the user's.  -1 when out of memory. */
static int resolve_impersonation(struct resolving *r, struct kube_config *c)
{
	const struct kube_overrides *ov = r->ov;
	struct yfile *uf = r->uf;
	yaml_node_t *un = r->un, *x;
	const char *s;

	if (((s = pick(ov->as, ystr(uf, un, "as"))) && !(c->impersonate_user = strdup(s))) ||
	    ((s = pick(ov->as_uid, ystr(uf, un, "as-uid"))) && !(c->impersonate_uid = strdup(s))))
		return -1;
	if (ov->as_groups && ov->as_groups[0]) {
		if (!(c->impersonate_groups = strv_from(ov->as_groups)))
			return -1;
	} else if ((x = ymap_get(uf, un, "as-groups")) && x->type == YAML_SEQUENCE_NODE &&
		   x->data.sequence.items.top > x->data.sequence.items.start) {
		if (!(c->impersonate_groups = ystrv(uf, x)))
			return -1;
	}
	if (load_user_extra(uf, ymap_get(uf, un, "as-user-extra"), &c->impersonate_extra) < 0)
		return -1;
	if ((c->impersonate_uid || c->impersonate_groups || c->impersonate_extra.len) && !c->impersonate_user)
		msglist_add(&r->probs, "requesting uid, groups or user-extra for %s without impersonating a user",
			    r->uname);
	return 0;
}

/* The cluster's server, TLS server name, proxy and compression.  -1 when
 * out of memory. */
static int resolve_cluster(struct resolving *r, struct kube_config *c)
{
	const struct kube_overrides *ov = r->ov;
	const char *s, *colon;
	size_t n;

	if ((s = pick(ov->server, ystr(r->cf, r->cn, "server")))) {
		if (!(c->server = strdup(s)))
			return -1;
	} else if (r->cluster_missing) {
		msglist_add(&r->probs, "no server found for cluster \"%s\"", r->cname);
	} else if (!(c->server = default_server())) {
		return -1;
	}
	/* a --server of its own makes the config's tls-server-name meaningless */
	if ((s = pick(ov->tls_server_name, ov_str(ov->server) ? NULL : ystr(r->cf, r->cn, "tls-server-name"))) &&
	    !(c->tls_server_name = strdup(s)))
		return -1;
	c->disable_compression = ov->disable_compression || ybool(r->cf, r->cn, "disable-compression");
	if (!(s = ystr(r->cf, r->cn, "proxy-url")))
		return 0;
	colon = strstr(s, "://");
	n = colon ? (size_t)(colon - s) : 0;
	if (!(n == 4 && strncmp(s, "http", 4) == 0) && !(n == 5 && strncmp(s, "https", 5) == 0) &&
	    !(n == 6 && strncmp(s, "socks5", 6) == 0))
		msglist_add(&r->probs,
			    "invalid 'proxy-url' \"%s\" for cluster \"%s\": unsupported scheme \"%.*s\", must be http, https, or socks5",
			    s, r->cname, (int)n, s);
	return (c->proxy_url = strdup(s)) ? 0 : -1;
}

/* The certificate authority: the flag's file, else the cluster's data or
 * file (the insecure flag alone drops it, as kubectl does).  -1 when out
 * of memory. */
static int resolve_ca(struct resolving *r, struct kube_config *c)
{
	const struct kube_overrides *ov = r->ov;
	char *ca_file = NULL;
	bool ca_data = false;
	const char *s;

	if (ov_str(ov->certificate_authority)) {
		if (!(ca_file = strdup(ov->certificate_authority)))
			return -1;
		c->insecure_skip_tls_verify = ov->insecure_skip_tls_verify;
	} else if (ov->insecure_skip_tls_verify) {
		c->insecure_skip_tls_verify = true;
	} else {
		c->insecure_skip_tls_verify = ybool(r->cf, r->cn, "insecure-skip-tls-verify");
		ca_data = has_data(r->cf, r->cn, "certificate-authority-data");
		if ((s = ystr(r->cf, r->cn, "certificate-authority")) && !(ca_file = resolve_path(r->cf, s)))
			return -1;
	}
	if (ca_file && ca_data)
		msglist_add(&r->probs,
			    "certificate-authority-data and certificate-authority are both specified for %s. certificate-authority-data will override.",
			    r->cname);
	if (ca_file) {
		struct kblob tmp = {0};

		load_file_field(&r->probs, "certificate-authority", ca_file, r->cname, ca_data ? &tmp : &c->ca);
		kblob_wipe(&tmp);
	}
	if (ca_data)
		ydata(r->cf, r->cn, "certificate-authority-data", &c->ca);
	if (c->insecure_skip_tls_verify && (ca_file || ca_data))
		msglist_add(&r->probs, "specifying a root certificates file with the insecure flag is not allowed");
	free(ca_file);
	return 0;
}

/* What can be checked only once everything is read: the exec plugin's
 * API version, and a token file that cannot be read. */
static void check_resolved(struct resolving *r, const struct kube_config *c)
{
	struct kblob t = {0};
	char *et;
	int e;

	if (c->exec && c->exec->api_version && strcmp(c->exec->api_version, "client.authentication.k8s.io/v1") != 0 &&
	    strcmp(c->exec->api_version, "client.authentication.k8s.io/v1beta1") != 0)
		msglist_add(&r->probs, "exec plugin: invalid apiVersion \"%s\"", c->exec->api_version);
	if (!c->token_file || c->token || r->probs.n)
		return;
	e = read_all(c->token_file, &t);
	kblob_wipe(&t);
	if (!e)
		return;
	et = errno_text(e);
	msglist_add(&r->probs, "%s %s: %s", e == EISDIR ? "read" : "open", c->token_file, et ? et : "error");
	free(et);
}

/* A server without a scheme gets https when anything TLS was configured,
 * else http; trailing slashes go.  -1 when out of memory. */
static int server_normalize(struct kube_config *c)
{
	size_t n;

	if (!strstr(c->server, "://")) {
		char *u = NULL;
		bool tls = c->ca.len || c->client_cert.len || c->insecure_skip_tls_verify;

		if (asprintf(&u, "%s://%s", tls ? "https" : "http", c->server) < 0)
			return -1;
		free(c->server);
		c->server = u;
	}
	n = strlen(c->server);
	while (n > 1 && c->server[n - 1] == '/' && c->server[n - 2] != '/')
		c->server[--n] = '\0';
	return 0;
}

/* The merged files and the overrides resolved into *c, every problem
 * found reported in one error. */
static int resolve(const struct kube_overrides *ov, struct merged *m, struct kube_config *c, struct kerr *err)
{
	struct resolving r = {.ov = ov};

	memset(c, 0, sizeof(*c));
	if (choose(&r, m, err) < 0) {
		msglist_release(&r.probs);
		return -1;
	}
	if (copy_names(&r, c) < 0)
		goto oom;
	r.cname = r.cname ? r.cname : "";
	r.uname = r.uname ? r.uname : "";
	if (resolve_user_auth(&r, c) < 0 || resolve_user_plugin(&r, c) < 0 || resolve_impersonation(&r, c) < 0 ||
	    resolve_cluster(&r, c) < 0 || resolve_ca(&r, c) < 0)
		goto oom;
	check_resolved(&r, c);
	if (r.probs.n || r.probs.oom) {
		msglist_to_error(&r.probs, err);
		/* kubectl sets an unknown context apart from the other problems */
		if (r.ctx_name && !r.ctx && err && err->kind == KERR_CONFIG)
			err->reason = strdup(KERR_REASON_INVALID_CONFIGURATION);
		goto fail;
	}
	if (server_normalize(c) < 0)
		goto oom;
	msglist_release(&r.probs);
	return 0;
oom:
	kerr_set(err, KERR_OTHER, "out of memory");
fail:
	msglist_release(&r.probs);
	kube_config_release(c);
	return -1;
}

int kubeconfig_load(const struct kube_overrides *ov, struct kube_config *ret, struct kerr *err)
{
	static const struct kube_overrides none;
	struct merged m;
	struct kube_config c;

	if (!ov)
		ov = &none;
	if (merged_load(ov, &m, err) < 0)
		return -1;
	if (resolve(ov, &m, &c, err) < 0) {
		merged_release(&m);
		return -1;
	}
	merged_release(&m);
	if (is_default_config(&c) && in_cluster_possible()) {
		struct kube_config ic;

		if (in_cluster_load(ov, &ic, err) < 0) {
			kube_config_release(&c);
			return -1;
		}
		kube_config_release(&c);
		c = ic;
	}
	*ret = c;
	return 0;
}

char **kubeconfig_context_names(const struct kube_overrides *ov, struct kerr *err)
{
	static const struct kube_overrides none;
	struct merged m;
	char **v;

	if (merged_load(ov ? ov : &none, &m, err) < 0)
		return NULL;
	v = calloc(m.contexts.n + 1, sizeof(*v));
	if (!v) {
		merged_release(&m);
		kerr_set(err, KERR_OTHER, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < m.contexts.n; i++)
		if (!(v[i] = strdup(m.contexts.v[i].name))) {
			strv_free(v);
			merged_release(&m);
			kerr_set(err, KERR_OTHER, "out of memory");
			return NULL;
		}
	merged_release(&m);
	return v;
}
