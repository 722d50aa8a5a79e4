/* The in-cluster configuration: the service account's token (re-read as it
 * rotates), CA and namespace, and the API server from the environment.
 */
#include "kubeconfig.h"
#include "kubeconfig_internal.h"

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

#define SA_DIR_DEFAULT "/var/run/secrets/kubernetes.io/serviceaccount"

static const char *sa_dir(void)
{
	const char *d = getenv("KUBE_SERVICEACCOUNT_DIR");

	return d && *d ? d : SA_DIR_DEFAULT;
}

static char *sa_path(const char *name)
{
	char *s = NULL;

	if (asprintf(&s, "%s/%s", sa_dir(), name) < 0)
		return NULL;
	return s;
}

bool in_cluster_possible(void)
{
	const char *h = getenv("KUBERNETES_SERVICE_HOST"), *p = getenv("KUBERNETES_SERVICE_PORT");
	char *tok;
	struct stat st;
	bool ok;

	if (!h || !*h || !p || !*p)
		return false;
	tok = sa_path("token");
	ok = tok && stat(tok, &st) == 0 && !S_ISDIR(st.st_mode);
	free(tok);
	return ok;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

int in_cluster_load(const struct kube_overrides *ov, struct kube_config *c, struct kerr *err)
{
	const char *h = getenv("KUBERNETES_SERVICE_HOST"), *p = getenv("KUBERNETES_SERVICE_PORT");
	const char *pod_ns = getenv("POD_NAMESPACE");
	char *path;
	int r;

	memset(c, 0, sizeof(*c));
	c->in_cluster = true;
	r = strchr(h, ':') ? asprintf(&c->server, "https://[%s]:%s", h, p) : asprintf(&c->server, "https://%s:%s", h, p);
	if (r < 0) {
		c->server = NULL;
		goto oom;
	}
	if (!(c->token_file = sa_path("token")) || !(path = sa_path("ca.crt")))
		goto oom;
	/* client-go goes on with the system roots when ca.crt cannot be read */
	read_all(path, &c->ca);
	free(path);
	if (ov && ov->namespace && *ov->namespace) {
		c->namespace = strdup(ov->namespace);
		c->namespace_explicit = true;
	} else if (pod_ns && *pod_ns) {
		c->namespace = strdup(pod_ns);
	} else {
		struct kblob b = {0};

		if (!(path = sa_path("namespace")))
			goto oom;
		if (read_all(path, &b) == 0) {
			trim((char *)b.data);
			if (*b.data)
				c->namespace = strdup((char *)b.data);
			free(b.data);
		}
		free(path);
		if (!c->namespace)
			c->namespace = strdup("default");
	}
	if (!c->namespace)
		goto oom;
	c->disable_compression = ov && ov->disable_compression;
	return 0;
oom:
	kube_config_release(c);
	return kerr_set(err, KERR_OTHER, "out of memory");
}
