/* kubeconfig: load, merge, select and validate, as client-go's clientcmd does.
 *
 * The result is a struct kube_config: everything the HTTP client needs to
 * reach one cluster as one user, with every file already read into memory
 * (key material never goes to a temporary file) and every relative path
 * resolved against the file that named it.
 *
 * Uses libyaml, jansson and kerr.h; nothing outside the client.
 */
#ifndef KUBECONFIG_H
#define KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kerr.h"
#include "objects.h"

/* Bytes in memory (PEM), not NUL-terminated in general. */
struct kblob {
	unsigned char *data;
	size_t len;
};

/* Read everything from fd into *ret (NUL-terminated; the NUL is not counted
 * in len), at most max bytes (0 = no limit, EFBIG past it).  Buffers are
 * wiped as they grow, since they may hold keys or tokens.  Returns 0 or an
 * errno value; *ret is untouched on failure. */
int kblob_read_fd(int fd, size_t max, struct kblob *ret);

enum exec_interactive { EXEC_INTERACTIVE_NEVER, EXEC_INTERACTIVE_IFAVAILABLE, EXEC_INTERACTIVE_ALWAYS };

struct kube_exec {
	char *api_version; /* client.authentication.k8s.io/v1 or v1beta1 */
	char *command;	   /* resolved: a path if it contained '/', else looked up in PATH at run time */
	char **args;	   /* argv[1..], NULL-terminated */
	struct kvlist env; /* added to the parent's environment */
	char *install_hint;
	enum exec_interactive interactive;
	bool provide_cluster_info;
	char *cluster_config_json; /* clusters[].extensions client.authentication.k8s.io/exec, or NULL */
};

/* Flags from the command line that override the kubeconfig (kubectl's). */
struct kube_overrides {
	const char *kubeconfig, *context, *cluster, *user, *namespace;
	const char *server, *token, *client_certificate, *client_key, *certificate_authority;
	const char *tls_server_name, *as, *as_uid;
	const char *const *as_groups; /* NULL-terminated or NULL */
	bool insecure_skip_tls_verify;
	bool disable_compression;
};

struct kube_config {
	char *context_name, *cluster_name, *user_name; /* NULL for in-cluster / flags only */
	char *namespace;			       /* -n, else the context's, else "default" */
	bool namespace_explicit;		       /* came from -n or the context */

	/* cluster */
	char *server; /* "https://host:port[/prefix]", never NULL after load */
	struct kblob ca; /* PEM, empty = system trust store */
	bool insecure_skip_tls_verify;
	char *tls_server_name;
	char *proxy_url;
	bool disable_compression;

	/* user */
	struct kblob client_cert, client_key; /* PEM */
	char *token;			      /* static token (wins over token_file) */
	char *token_file;		      /* re-read as it rotates */
	char *username, *password;
	struct kube_exec *exec;
	char *auth_provider; /* name of a legacy auth-provider (oidc is read into token) */
	char *impersonate_user, *impersonate_uid;
	char **impersonate_groups; /* NULL-terminated or NULL */
	struct kvlist impersonate_extra;

	bool in_cluster;
};

/* Load and merge kubeconfig files (--kubeconfig, else KUBECONFIG, else
 * ~/.kube/config; in-cluster when none is usable), apply the overrides,
 * validate (reporting every problem in one message), read every referenced
 * file into memory.  On failure *ret is untouched.
 *
 * As in kubectl, a config that ends up with no server at all (no files, or a
 * context naming an undefined cluster) talks to $KUBERNETES_MASTER, else
 * http://localhost:8080; in-cluster is used instead when the result is that
 * bare default and KUBERNETES_SERVICE_HOST/_PORT are set and the service
 * account token exists.  The service account directory is
 * /var/run/secrets/kubernetes.io/serviceaccount, or $KUBE_SERVICEACCOUNT_DIR
 * (for tests). */
int kubeconfig_load(const struct kube_overrides *ov, struct kube_config *ret, struct kerr *err);
void kube_config_release(struct kube_config *cfg);

/* The names of all contexts, in the merged files, for completion.  Returns a
 * NULL-terminated array to free with strv_free(), or NULL on error. */
char **kubeconfig_context_names(const struct kube_overrides *ov, struct kerr *err);

/* --- credentials (token files, exec plugins) ------------------------------ */

struct kube_credential {
	char *token;			      /* bearer token, or NULL */
	struct kblob client_cert, client_key; /* from an exec plugin, or empty */
	long long expires;		      /* Unix seconds, 0 = never */
};

struct cred_cache; /* remembers exec output until it expires */

struct cred_cache *cred_cache_new(void);
void cred_cache_free(struct cred_cache *c);
/* Where an exec plugin's stderr is relayed (its prompts, why it failed),
 * at most 64 KiB a run; NULL = stderr.  The plugin never writes to the
 * caller's descriptors itself: a caller that shows the text on a terminal
 * passes a stream that makes it safe there. */
void cred_cache_set_log(struct cred_cache *c, FILE *log);

/* The credential to use now: the static token, the token file's current
 * contents, or an exec plugin's output (cached until expirationTimestamp;
 * force = run the plugin again, as after a 401, unless a forced run returned
 * less than two seconds ago: requests failing together cause one run).  May
 * be all empty (client certificate or basic auth from the config only).
 *
 * An exec plugin that does not finish within 300 seconds is killed
 * ($KUBE_EXEC_TIMEOUT seconds overrides it, for tests); an interactive one
 * (stdin handed over to it) is waited for without a limit. */
int kube_credential_get(const struct kube_config *cfg, struct cred_cache *cache, bool force,
			struct kube_credential *ret, struct kerr *err);
void kube_credential_release(struct kube_credential *c);

void strv_free(char **v);

#endif
