/* What the types of kubeconfig.h hold, below everything that fills them:
 * key material read into memory, copied, and wiped as it is dropped, and
 * the release of a configuration and of a credential.
 */
#include "kubeconfig.h"
#include "kubeconfig_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- key material in memory ---------------------------------------------- */

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void wipe_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

void kblob_wipe(struct kblob *b)
{
	if (b->data) {
		explicit_bzero(b->data, b->len);
		free(b->data);
	}
	b->data = NULL;
	b->len = 0;
}

void *kblob_grow_wiped(void *buf, size_t len, size_t cap)
{
	unsigned char *nbuf = malloc(cap + 1);

	if (nbuf && buf) {
		memcpy(nbuf, buf, len);
		explicit_bzero(buf, len);
		free(buf);
	}
	return nbuf;
}

int kblob_read_fd(int fd, size_t max, struct kblob *ret)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			size_t ncap = cap ? cap * 2 : 8192;
			unsigned char *nbuf = kblob_grow_wiped(buf, len, ncap);

			if (!nbuf) {
				if (buf)
					explicit_bzero(buf, len);
				free(buf);
				return ENOMEM;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			explicit_bzero(buf, len);
			free(buf);
			return e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (max && len > max) {
			explicit_bzero(buf, len);
			free(buf);
			return EFBIG;
		}
	}
	buf[len] = '\0';
	ret->data = buf;
	ret->len = len;
	return 0;
}

/* --- configurations and credentials ---------------------------------------- */

static void kube_exec_free(struct kube_exec *x)
{
	if (!x)
		return;
	free(x->api_version);
	free(x->command);
	strv_free(x->args);
	for (size_t i = 0; i < x->env.len; i++)
		if (x->env.items[i].value)
			explicit_bzero(x->env.items[i].value, strlen(x->env.items[i].value));
	kvlist_release(&x->env);
	free(x->install_hint);
	free(x->cluster_config_json);
	free(x);
}

void kube_config_release(struct kube_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->context_name);
	free(cfg->cluster_name);
	free(cfg->user_name);
	free(cfg->namespace);
	free(cfg->server);
	kblob_wipe(&cfg->ca);
	free(cfg->tls_server_name);
	free(cfg->proxy_url);
	kblob_wipe(&cfg->client_cert);
	kblob_wipe(&cfg->client_key);
	wipe_free(cfg->token);
	free(cfg->token_file);
	free(cfg->username);
	wipe_free(cfg->password);
	kube_exec_free(cfg->exec);
	free(cfg->auth_provider);
	free(cfg->impersonate_user);
	free(cfg->impersonate_uid);
	strv_free(cfg->impersonate_groups);
	kvlist_release(&cfg->impersonate_extra);
	memset(cfg, 0, sizeof(*cfg));
}

void kube_credential_release(struct kube_credential *c)
{
	if (!c)
		return;
	wipe_free(c->token);
	kblob_wipe(&c->client_cert);
	kblob_wipe(&c->client_key);
	memset(c, 0, sizeof(*c));
}

int blob_copy(struct kblob *dst, const unsigned char *src, size_t len)
{
	dst->data = NULL;
	dst->len = 0;
	if (!len)
		return 0;
	dst->data = malloc(len + 1);
	if (!dst->data)
		return -1;
	memcpy(dst->data, src, len);
	dst->data[len] = '\0';
	dst->len = len;
	return 0;
}

int cred_copy(struct kube_credential *dst, const struct kube_credential *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->expires = src->expires;
	if ((src->token && !(dst->token = strdup(src->token))) ||
	    blob_copy(&dst->client_cert, src->client_cert.data, src->client_cert.len) < 0 ||
	    blob_copy(&dst->client_key, src->client_key.data, src->client_key.len) < 0) {
		kube_credential_release(dst);
		return -1;
	}
	return 0;
}

/* A token goes into an Authorization header: refuse what would break it
 * (the rule Go's net/http applies to header values). */
bool token_ok(const char *t)
{
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return false;
	return true;
}

int oom(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "out of memory");
}
