/* The credential of a request: a token (from the kubeconfig or a file read
 * anew each time, as it may rotate), a client certificate, basic auth, or
 * what an exec plugin (exec_plugin.c) returns.
 */
#include "kubeconfig.h"
#include "kubeconfig_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A token file is small; the limit only stops a path like /dev/zero. */
#define TOKEN_FILE_MAX (16u << 20)

/* The token file is read on every call: it is small and rotates (projected
 * service account tokens are replaced well before they expire). */
static int token_from_file(const char *path, struct kube_credential *ret, struct kerr *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct kblob blob = { 0 };
	char *buf = NULL, *s, *e;
	size_t len = 0;
	int rc;

	if (fd < 0) {
		char *t = errno_text(errno);

		kerr_set(err, KERR_CREDENTIALS, "getting credentials: failed to read token file \"%s\": open %s: %s",
			 path, path, t ? t : "error");
		free(t);
		return -1;
	}
	rc = kblob_read_fd(fd, TOKEN_FILE_MAX, &blob);
	close(fd);
	buf = (char *)blob.data;
	len = blob.len;
	if (rc) {
		char *t = errno_text(rc);

		kerr_set(err, KERR_CREDENTIALS, "getting credentials: failed to read token file \"%s\": read %s: %s",
			 path, path, t ? t : "error");
		free(t);
		return -1;
	}
	s = buf;
	e = buf + len;
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (s == e || memchr(s, '\0', (size_t)(e - s))) {
		wipe_free(buf);
		if (s == e)
			return kerr_set(err, KERR_CREDENTIALS, "getting credentials: read empty token from file \"%s\"",
					path);
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: token file \"%s\" holds characters not allowed in an HTTP header",
				path);
	}
	memset(ret, 0, sizeof(*ret));
	ret->token = strndup(s, (size_t)(e - s));
	explicit_bzero(buf, len);
	free(buf);
	if (!ret->token)
		return oom(err);
	if (!token_ok(ret->token)) {
		kube_credential_release(ret);
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: token file \"%s\" holds characters not allowed in an HTTP header",
				path);
	}
	return 0;
}

int kube_credential_get(const struct kube_config *cfg, struct cred_cache *cache, bool force,
			struct kube_credential *ret, struct kerr *err)
{
	struct kube_credential c = {0};

	if (!cfg || !ret)
		return kerr_set(err, KERR_OTHER, "no configuration");
	if (cfg->auth_provider && !cfg->exec) {
		const char *p = cfg->auth_provider;

		if (strcmp(p, "gcp") == 0)
			return kerr_set(err, KERR_CONFIG,
					"The gcp auth plugin has been removed. Please use the \"gke-gcloud-auth-plugin\" "
					"kubectl/client-go credential plugin instead. See "
					"https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke "
					"for further details");
		if (strcmp(p, "azure") == 0)
			return kerr_set(err, KERR_CONFIG,
					"The azure auth plugin has been removed. Please use the "
					"https://github.com/Azure/kubelogin kubectl/client-go credential plugin instead. "
					"See " PLUGIN_DOCS " for further details");
		if (strcmp(p, "oidc") != 0)
			return kerr_set(err, KERR_CONFIG, "no Auth Provider found for name \"%s\"", p);
		if (!cfg->token)
			return kerr_set(err, KERR_CREDENTIALS,
					"getting credentials: the oidc auth provider has no id-token (refreshing it is not supported)");
	}
	if (cfg->token) {
		if (!token_ok(cfg->token))
			return kerr_set(err, KERR_CONFIG,
					"the token for user \"%s\" holds characters not allowed in an HTTP header",
					cfg->user_name ? cfg->user_name : "");
		if (!(c.token = strdup(cfg->token)))
			return oom(err);
		*ret = c;
		return 0;
	}
	if (cfg->token_file) {
		if (token_from_file(cfg->token_file, &c, err) < 0)
			return -1;
		*ret = c;
		return 0;
	}
	/* a client certificate or basic auth from the config wins over an exec
	 * plugin, as in client-go */
	if (cfg->exec && !cfg->client_cert.len && !cfg->username && !cfg->password)
		return exec_get(cfg, cache, force, ret, err);
	*ret = c;
	return 0;
}
