/* Inside the kubeconfig loader: what its files (kubeconfig.c,
 * kubeconfig_read.c, kubeconfig_merge.c, kubeconfig_incluster.c,
 * kubeconfig_load.c) and the credential code (credentials.c,
 * exec_credential.c, exec_plugin.c) share, each file's part below the
 * parts it uses.
 * Nothing outside src/kube includes this.
 */
#ifndef KUBECONFIG_INTERNAL_H
#define KUBECONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#include "kubeconfig.h"

struct msglist {
	char **v;
	size_t n, cap;
	bool oom;
};

struct yfile {
	char *path; /* as named by the user */
	char *dir;  /* absolute directory, for relative paths inside */
	yaml_document_t doc;
	bool has_doc;
};

struct named {
	const char *name;
	struct yfile *f;
	yaml_node_t *node; /* the inner mapping (cluster/user/context), or NULL */
};

struct namedlist {
	struct named *v;
	size_t n, cap;
};

struct merged {
	struct yfile **files;
	size_t nfiles;
	struct namedlist clusters, users, contexts;
	const char *current_context;
};

/* kubeconfig.c */
void wipe_free(char *s);
void kblob_wipe(struct kblob *b);
/* A buffer that may hold a key or a token, moved into a new one of cap
 * (+1) bytes: the old one's len bytes are wiped before it is freed, which
 * realloc would not do.  NULL when out of memory, buf then untouched. */
void *kblob_grow_wiped(void *buf, size_t len, size_t cap);
int blob_copy(struct kblob *dst, const unsigned char *src, size_t len);
int cred_copy(struct kube_credential *dst, const struct kube_credential *src);
/* A token goes into an Authorization header: whether nothing in it would
 * break one. */
bool token_ok(const char *t);
int oom(struct kerr *err);

/* kubeconfig_read.c */
char *errno_text(int e);
char *path_join(const char *dir, const char *rel);
char *file_dir(const char *path);
int read_all(const char *path, struct kblob *ret);
int read_all_max(const char *path, size_t max, struct kblob *ret);
int b64_decode(const unsigned char *s, size_t n, struct kblob *out, size_t *bad);
void msglist_add(struct msglist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void msglist_release(struct msglist *l);
int msglist_to_error(struct msglist *l, struct kerr *err);

/* kubeconfig_merge.c */
yaml_node_t *ynode(struct yfile *f, int id);
yaml_node_t *ymap_get(struct yfile *f, yaml_node_t *map, const char *key);
const char *ystr(struct yfile *f, yaml_node_t *map, const char *key);
bool ybool(struct yfile *f, yaml_node_t *map, const char *key);
int ybool_parse(const yaml_node_t *n, bool *ret);
bool yscalar_is(const yaml_node_t *n, const char *s);
bool ynull(const yaml_node_t *n);
bool is_scalar(const yaml_node_t *n);
const struct named *namedlist_find(const struct namedlist *l, const char *name);
int merged_load(const struct kube_overrides *ov, struct merged *m, struct kerr *err);
void merged_release(struct merged *m);

/* kubeconfig_incluster.c */
bool in_cluster_possible(void);
int in_cluster_load(const struct kube_overrides *ov, struct kube_config *c, struct kerr *err);

#define PLUGIN_DOCS "https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins"

/* exec_credential.c: the credential in an exec plugin's stdout (out, len
 * bytes) for plugin x; the error never quotes out, which may hold secrets. */
int exec_credential_decode(const struct kube_exec *x, const char *out, size_t len, struct kube_credential *ret,
			   struct kerr *err);

/* exec_plugin.c: the credential an exec plugin returns, from the cache while
 * it is valid (and, when force, only if a forced run just fetched it). */
int exec_get(const struct kube_config *cfg, struct cred_cache *cache, bool force, struct kube_credential *ret,
	     struct kerr *err);

#endif
