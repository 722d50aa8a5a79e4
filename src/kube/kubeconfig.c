#include "kubeconfig.h"

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
#define EXEC_EXTENSION "client.authentication.k8s.io/exec"

/* --- small helpers ------------------------------------------------------- */

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static void wipe_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

static void kblob_wipe(struct kblob *b)
{
	if (b->data) {
		explicit_bzero(b->data, b->len);
		free(b->data);
	}
	b->data = NULL;
	b->len = 0;
}

/* Go spells errno texts in lower case ("no such file or directory"); the
 * messages below copy kubectl's, so follow it. */
static char *errno_text(int e)
{
	char *s = strdup(strerror(e));

	if (s && s[0])
		s[0] = (char)tolower((unsigned char)s[0]);
	return s;
}

struct msglist {
	char **v;
	size_t n, cap;
	bool oom;
};

static void msglist_add(struct msglist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void msglist_add(struct msglist *l, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		l->oom = true;
		return;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			free(s);
			l->oom = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = s;
}

static void msglist_release(struct msglist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* client-go's aggregate: one problem is shown as it is, several as
 * "invalid configuration: [a, b]". */
static int msglist_to_error(struct msglist *l, struct kerr *err)
{
	size_t len = 0;
	char *s, *p;

	if (l->oom)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (l->n == 1)
		return kerr_set(err, KERR_CONFIG, "%s", l->v[0]);
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 2;
	s = p = malloc(len + 1);
	if (!s)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < l->n; i++) {
		size_t k = strlen(l->v[i]);

		if (i) {
			memcpy(p, ", ", 2);
			p += 2;
		}
		memcpy(p, l->v[i], k);
		p += k;
	}
	*p = '\0';
	kerr_set(err, KERR_CONFIG, "invalid configuration: [%s]", s);
	free(s);
	return -1;
}

/* Lexically clean an absolute path: drop "." and empty segments, fold "..". */
static void path_clean(char *p)
{
	char *out = p, *in = p;

	if (*in != '/')
		return;
	while (*in) {
		char *seg;
		size_t n;

		while (*in == '/')
			in++;
		seg = in;
		while (*in && *in != '/')
			in++;
		n = (size_t)(in - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, seg, n);
		out += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

static char *path_join(const char *dir, const char *rel)
{
	char *s = NULL;

	if (asprintf(&s, "%s/%s", dir, rel) < 0)
		return NULL;
	path_clean(s);
	return s;
}

/* The absolute directory holding a file, as Go's filepath.Dir(filepath.Abs()). */
static char *file_dir(const char *path)
{
	char *abs, *slash;

	if (path[0] == '/') {
		abs = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);

		abs = cwd ? path_join(cwd, path) : NULL;
		free(cwd);
	}
	if (!abs)
		return NULL;
	path_clean(abs);
	slash = strrchr(abs, '/');
	if (slash == abs)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return abs;
}

/* Files a kubeconfig refers to (certificates, keys, tokens) are small; the
 * limit only stops a path like /dev/zero from eating all memory. */
#define REFERENCED_FILE_MAX (16u << 20)

int kblob_read_fd(int fd, size_t max, struct kblob *ret)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			size_t ncap = cap ? cap * 2 : 8192;
			unsigned char *nbuf = malloc(ncap + 1);

			if (!nbuf) {
				if (buf)
					explicit_bzero(buf, len);
				free(buf);
				return ENOMEM;
			}
			/* the old buffer may hold a key or a token: wipe it before freeing */
			if (buf) {
				memcpy(nbuf, buf, len);
				explicit_bzero(buf, len);
				free(buf);
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

/* Read a whole file, up to max bytes (0 = no limit; EFBIG past it).
 * Returns 0, or an errno value. */
static int read_all_max(const char *path, size_t max, struct kblob *ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int e;

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		e = EISDIR;
	else
		e = kblob_read_fd(fd, max, ret);
	close(fd);
	return e;
}

static int read_all(const char *path, struct kblob *ret)
{
	return read_all_max(path, REFERENCED_FILE_MAX, ret);
}

/* --- base64, as Go's encoding/base64.StdEncoding decodes it --------------- */

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decode; out may be NULL to only check.  On bad input returns -1 with *bad
 * = the input offset Go would report. */
static int b64_decode(const unsigned char *s, size_t n, struct kblob *out, size_t *bad)
{
	unsigned char *buf = NULL;
	size_t si = 0, dl = 0;

	if (out) {
		buf = malloc(n / 4 * 3 + 4);
		if (!buf) {
			*bad = SIZE_MAX;
			return -1;
		}
	}
	while (si < n) {
		int q[4];
		int j;
		size_t end = 0;

		for (j = 0; j < 4; j++) {
			unsigned char c;
			int v;

			if (si == n) {
				if (j == 0)
					goto done;
				*bad = si - (size_t)j;
				goto fail;
			}
			c = s[si++];
			v = b64_value(c);
			if (v >= 0) {
				q[j] = v;
				continue;
			}
			if (c == '\n' || c == '\r') {
				j--;
				continue;
			}
			if (c != '=' || j < 2) {
				*bad = si - 1;
				goto fail;
			}
			if (j == 2) {
				while (si < n && (s[si] == '\n' || s[si] == '\r'))
					si++;
				if (si == n) {
					*bad = n;
					goto fail;
				}
				if (s[si] != '=') {
					*bad = si - 1;
					goto fail;
				}
				si++;
			}
			while (si < n && (s[si] == '\n' || s[si] == '\r'))
				si++;
			if (si < n) {
				*bad = si;
				goto fail;
			}
			end = (size_t)j;
			break;
		}
		if (j == 4)
			end = 4;
		if (buf) {
			unsigned v = (unsigned)q[0] << 18 | (unsigned)q[1] << 12;

			if (end > 2)
				v |= (unsigned)q[2] << 6;
			if (end > 3)
				v |= (unsigned)q[3];
			buf[dl++] = (unsigned char)(v >> 16);
			if (end > 2)
				buf[dl++] = (unsigned char)(v >> 8);
			if (end > 3)
				buf[dl++] = (unsigned char)v;
		}
		if (end < 4)
			break;
	}
done:
	if (out) {
		buf[dl] = '\0';
		out->data = buf;
		out->len = dl;
	}
	return 0;
fail:
	if (buf) {
		explicit_bzero(buf, dl);
		free(buf);
	}
	return -1;
}

/* --- YAML documents ------------------------------------------------------ */

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

static void yfile_free(struct yfile *f)
{
	if (!f)
		return;
	if (f->has_doc)
		yaml_document_delete(&f->doc);
	free(f->path);
	free(f->dir);
	free(f);
}

static void merged_release(struct merged *m)
{
	for (size_t i = 0; i < m->nfiles; i++)
		yfile_free(m->files[i]);
	free(m->files);
	free(m->clusters.v);
	free(m->users.v);
	free(m->contexts.v);
	memset(m, 0, sizeof(*m));
}

static yaml_node_t *ynode(struct yfile *f, int id)
{
	return yaml_document_get_node(&f->doc, id);
}

static size_t yline(const yaml_node_t *n)
{
	return n ? n->start_mark.line + 1 : 0;
}

static bool yscalar_is(const yaml_node_t *n, const char *s)
{
	size_t k = strlen(s);

	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == k &&
	       memcmp(n->data.scalar.value, s, k) == 0;
}

static bool ynull(const yaml_node_t *n)
{
	const char *v;
	size_t l;

	if (!n)
		return true;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	l = n->data.scalar.length;
	return l == 0 || (l == 1 && v[0] == '~') || (l == 4 && (!memcmp(v, "null", 4) || !memcmp(v, "Null", 4) ||
							       !memcmp(v, "NULL", 4)));
}

static yaml_node_t *ymap_get(struct yfile *f, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	/* the last duplicate key wins, as in Go's yaml-to-JSON conversion */
	for (p = map->data.mapping.pairs.top; p-- > map->data.mapping.pairs.start;)
		if (yscalar_is(ynode(f, p->key), key))
			return ynode(f, p->value);
	return NULL;
}

/* A string field: NULL when absent, null or empty (Go's zero value). */
static const char *ystr(struct yfile *f, yaml_node_t *map, const char *key)
{
	yaml_node_t *n = ymap_get(f, map, key);

	if (!n || ynull(n) || n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0)
		return NULL;
	return (const char *)n->data.scalar.value;
}

static int ybool_parse(const yaml_node_t *n, bool *ret)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y", NULL};
	static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N", NULL};

	*ret = false;
	if (ynull(n))
		return 0;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	for (size_t i = 0; yes[i]; i++)
		if (yscalar_is(n, yes[i])) {
			*ret = true;
			return 0;
		}
	for (size_t i = 0; no[i]; i++)
		if (yscalar_is(n, no[i]))
			return 0;
	return -1;
}

static bool ybool(struct yfile *f, yaml_node_t *map, const char *key)
{
	bool b = false;

	ybool_parse(ymap_get(f, map, key), &b);
	return b;
}

/* --- checking a file's shape, as decoding it into client-go's types would -- */

enum ftype { F_STR, F_BOOL, F_B64, F_STRSEQ, F_STRMAP, F_EXTRA, F_ENV, F_SEQ, F_MAP };

struct field {
	const char *key;
	enum ftype type;
	const struct field *sub; /* for F_MAP */
};

static const struct field exec_fields[] = {
	{"command", F_STR, NULL},	 {"args", F_STRSEQ, NULL},	    {"env", F_ENV, NULL},
	{"apiVersion", F_STR, NULL},	 {"installHint", F_STR, NULL},	    {"provideClusterInfo", F_BOOL, NULL},
	{"interactiveMode", F_STR, NULL}, {NULL, F_STR, NULL},
};
static const struct field auth_provider_fields[] = {
	{"name", F_STR, NULL},
	{"config", F_STRMAP, NULL},
	{NULL, F_STR, NULL},
};
static const struct field cluster_fields[] = {
	{"server", F_STR, NULL},
	{"certificate-authority", F_STR, NULL},
	{"certificate-authority-data", F_B64, NULL},
	{"insecure-skip-tls-verify", F_BOOL, NULL},
	{"tls-server-name", F_STR, NULL},
	{"proxy-url", F_STR, NULL},
	{"disable-compression", F_BOOL, NULL},
	{"extensions", F_SEQ, NULL},
	{NULL, F_STR, NULL},
};
static const struct field user_fields[] = {
	{"client-certificate", F_STR, NULL},
	{"client-certificate-data", F_B64, NULL},
	{"client-key", F_STR, NULL},
	{"client-key-data", F_B64, NULL},
	{"token", F_STR, NULL},
	{"tokenFile", F_STR, NULL},
	{"as", F_STR, NULL},
	{"as-uid", F_STR, NULL},
	{"as-groups", F_STRSEQ, NULL},
	{"as-user-extra", F_EXTRA, NULL},
	{"username", F_STR, NULL},
	{"password", F_STR, NULL},
	{"auth-provider", F_MAP, auth_provider_fields},
	{"exec", F_MAP, exec_fields},
	{"extensions", F_SEQ, NULL},
	{NULL, F_STR, NULL},
};
static const struct field context_fields[] = {
	{"cluster", F_STR, NULL},
	{"user", F_STR, NULL},
	{"namespace", F_STR, NULL},
	{"extensions", F_SEQ, NULL},
	{NULL, F_STR, NULL},
};

static int shape_error(struct yfile *f, const yaml_node_t *n, const char *key, const char *what, struct kerr *err)
{
	return kerr_set(err, KERR_CONFIG, "error loading config file \"%s\": line %zu: %s: %s", f->path, yline(n), key,
			what);
}

static bool is_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE;
}

static int check_strseq(struct yfile *f, yaml_node_t *n, const char *key, struct kerr *err)
{
	if (ynull(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return shape_error(f, n, key, "expected a list of strings", err);
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
		if (!is_scalar(ynode(f, *i)))
			return shape_error(f, ynode(f, *i), key, "expected a string", err);
	return 0;
}

static int check_fields(struct yfile *f, yaml_node_t *map, const struct field *fields, struct kerr *err)
{
	if (ynull(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return shape_error(f, map, "value", "expected a mapping", err);
	for (const struct field *fd = fields; fd->key; fd++) {
		yaml_node_t *n = ymap_get(f, map, fd->key);
		bool b;

		if (!n || ynull(n))
			continue;
		switch (fd->type) {
		case F_STR:
			if (!is_scalar(n))
				return shape_error(f, n, fd->key, "expected a string", err);
			break;
		case F_BOOL:
			if (ybool_parse(n, &b) < 0)
				return shape_error(f, n, fd->key, "expected true or false", err);
			break;
		case F_B64: {
			size_t bad = 0;

			if (!is_scalar(n))
				return shape_error(f, n, fd->key, "expected a string", err);
			if (b64_decode(n->data.scalar.value, n->data.scalar.length, NULL, &bad) < 0)
				return kerr_set(err, KERR_CONFIG,
						"error loading config file \"%s\": illegal base64 data at input byte %zu",
						f->path, bad);
			break;
		}
		case F_STRSEQ:
			if (check_strseq(f, n, fd->key, err) < 0)
				return -1;
			break;
		case F_SEQ:
			if (n->type != YAML_SEQUENCE_NODE)
				return shape_error(f, n, fd->key, "expected a list", err);
			break;
		case F_STRMAP:
			if (n->type != YAML_MAPPING_NODE)
				return shape_error(f, n, fd->key, "expected a mapping", err);
			for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
				if (!is_scalar(ynode(f, p->key)) || !is_scalar(ynode(f, p->value)))
					return shape_error(f, ynode(f, p->key), fd->key,
							   "expected a mapping of strings", err);
			break;
		case F_EXTRA:
			if (n->type != YAML_MAPPING_NODE)
				return shape_error(f, n, fd->key, "expected a mapping", err);
			for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
				if (!is_scalar(ynode(f, p->key)))
					return shape_error(f, ynode(f, p->key), fd->key, "expected a string key", err);
				if (check_strseq(f, ynode(f, p->value), fd->key, err) < 0)
					return -1;
			}
			break;
		case F_ENV:
			if (n->type != YAML_SEQUENCE_NODE)
				return shape_error(f, n, fd->key, "expected a list", err);
			for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
				yaml_node_t *e = ynode(f, *i);
				yaml_node_t *nm, *val;

				if (!e || e->type != YAML_MAPPING_NODE)
					return shape_error(f, e, fd->key, "expected a list of name/value mappings", err);
				nm = ymap_get(f, e, "name");
				val = ymap_get(f, e, "value");
				if ((nm && !is_scalar(nm)) || (val && !is_scalar(val)))
					return shape_error(f, e, fd->key, "expected a string", err);
			}
			break;
		case F_MAP:
			if (check_fields(f, n, fd->sub, err) < 0)
				return -1;
			break;
		}
	}
	return 0;
}

static int namedlist_add(struct namedlist *l, const char *name, struct yfile *f, yaml_node_t *node)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return 0; /* the first file that defines a name wins */
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct named *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct named){name, f, ynull(node) ? NULL : node};
	return 0;
}

static const struct named *namedlist_find(const struct namedlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

/* Check one file and add its entries (those whose names are new). */
static int merged_add_file(struct merged *m, struct yfile *f, struct kerr *err)
{
	static const struct {
		const char *list, *inner;
		const struct field *fields;
	} sections[] = {
		{"clusters", "cluster", cluster_fields},
		{"users", "user", user_fields},
		{"contexts", "context", context_fields},
	};
	yaml_node_t *root = f->has_doc ? yaml_document_get_root_node(&f->doc) : NULL;
	const char *cc;

	if (ynull(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return shape_error(f, root, "config", "expected a mapping", err);
	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		struct namedlist *dst = s == 0 ? &m->clusters : s == 1 ? &m->users : &m->contexts;
		yaml_node_t *seq = ymap_get(f, root, sections[s].list);

		if (ynull(seq))
			continue;
		if (seq->type != YAML_SEQUENCE_NODE)
			return shape_error(f, seq, sections[s].list, "expected a list", err);
		for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
			yaml_node_t *item = ynode(f, *i), *inner, *nm;
			const char *name = "";

			if (!item || item->type != YAML_MAPPING_NODE)
				return shape_error(f, item, sections[s].list, "expected a list of mappings", err);
			nm = ymap_get(f, item, "name");
			if (nm && !ynull(nm)) {
				if (!is_scalar(nm))
					return shape_error(f, nm, "name", "expected a string", err);
				name = (const char *)nm->data.scalar.value;
			}
			inner = ymap_get(f, item, sections[s].inner);
			if (check_fields(f, inner, sections[s].fields, err) < 0)
				return -1;
			if (namedlist_add(dst, name, f, inner) < 0)
				return kerr_set(err, KERR_OTHER, "out of memory");
		}
	}
	cc = ystr(f, root, "current-context");
	if (ymap_get(f, root, "current-context") && !ynull(ymap_get(f, root, "current-context")) &&
	    !is_scalar(ymap_get(f, root, "current-context")))
		return shape_error(f, ymap_get(f, root, "current-context"), "current-context", "expected a string", err);
	if (!m->current_context && cc)
		m->current_context = cc;
	return 0;
}

/* Go's yaml (v2, a port of libyaml, which kubectl uses) reports the 0-based
 * problem line (1-based for scanner errors), else the context line. */
static size_t yaml_error_line(const yaml_parser_t *p)
{
	if (p->problem_mark.line != 0)
		return p->problem_mark.line + (p->error == YAML_SCANNER_ERROR ? 1 : 0);
	return p->context_mark.line;
}

/* Load one file.  *ret = NULL (and 0) when it is missing and may be. */
static int yfile_load(const char *path, bool must_exist, struct yfile **ret, struct kerr *err)
{
	struct kblob buf = {0};
	struct yfile *f;
	yaml_parser_t parser;
	int e;

	*ret = NULL;
	if (must_exist) {
		struct stat st;

		if (stat(path, &st) < 0) {
			char *t = errno_text(errno);

			kerr_set(err, KERR_CONFIG, "stat %s: %s", path, t ? t : "error");
			free(t);
			return -1;
		}
	}
	e = read_all_max(path, 0, &buf);
	if (e == ENOENT && !must_exist)
		return 0;
	if (e) {
		char *t = errno_text(e);

		kerr_set(err, KERR_CONFIG, "error loading config file \"%s\": %s %s: %s", path,
			 e == EISDIR ? "read" : "open", path, t ? t : "error");
		free(t);
		return -1;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path)) || !(f->dir = file_dir(path))) {
		yfile_free(f);
		kblob_wipe(&buf);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	if (!yaml_parser_initialize(&parser)) {
		yfile_free(f);
		kblob_wipe(&buf);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	yaml_parser_set_input_string(&parser, buf.data, buf.len);
	if (!yaml_parser_load(&parser, &f->doc)) {
		size_t line = yaml_error_line(&parser), at = parser.problem_mark.index;

		if (parser.error == YAML_COMPOSER_ERROR && parser.problem &&
		    strcmp(parser.problem, "found undefined alias") == 0 && at < buf.len && buf.data[at] == '*') {
			/* Go's yaml names the anchor instead */
			size_t n = strcspn((const char *)buf.data + at + 1, " \t\r\n,[]{}");

			kerr_set(err, KERR_CONFIG, "error loading config file \"%s\": yaml: unknown anchor '%.*s' referenced",
				 path, (int)n, (const char *)buf.data + at + 1);
		} else if (line)
			kerr_set(err, KERR_CONFIG, "error loading config file \"%s\": yaml: line %zu: %s", path, line,
				 parser.problem ? parser.problem : "unknown problem parsing YAML content");
		else
			kerr_set(err, KERR_CONFIG, "error loading config file \"%s\": yaml: %s", path,
				 parser.problem ? parser.problem : "unknown problem parsing YAML content");
		yaml_parser_delete(&parser);
		yfile_free(f);
		kblob_wipe(&buf);
		return -1;
	}
	f->has_doc = true;
	yaml_parser_delete(&parser);
	kblob_wipe(&buf);
	*ret = f;
	return 0;
}

static int merged_push(struct merged *m, struct yfile *f)
{
	struct yfile **v = realloc(m->files, (m->nfiles + 1) * sizeof(*v));

	if (!v)
		return -1;
	m->files = v;
	m->files[m->nfiles++] = f;
	return 0;
}

/* The files to read, in precedence order. */
static int merged_load(const struct kube_overrides *ov, struct merged *m, struct kerr *err)
{
	const char *env = getenv("KUBECONFIG");
	char **paths = NULL;
	size_t npaths = 0;
	bool must_exist = false;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (ov && ov->kubeconfig && *ov->kubeconfig) {
		paths = calloc(2, sizeof(*paths));
		if (!paths || !(paths[0] = strdup(ov->kubeconfig)))
			goto oom;
		npaths = 1;
		must_exist = true;
	} else if (env && *env) {
		const char *p = env;

		paths = calloc(strlen(env) / 2 + 2, sizeof(*paths));
		if (!paths)
			goto oom;
		while (*p) {
			const char *c = strchr(p, ':');
			size_t n = c ? (size_t)(c - p) : strlen(p);
			bool dup = false;

			if (n) {
				for (size_t i = 0; i < npaths && !dup; i++)
					dup = strlen(paths[i]) == n && memcmp(paths[i], p, n) == 0;
				if (!dup && !(paths[npaths++] = strndup(p, n)))
					goto oom;
			}
			p += n;
			if (*p == ':')
				p++;
		}
	} else {
		const char *home = getenv("HOME");

		if (home && *home) {
			paths = calloc(2, sizeof(*paths));
			if (!paths || asprintf(&paths[0], "%s/.kube/config", home) < 0)
				goto oom;
			npaths = 1;
		}
	}
	for (size_t i = 0; i < npaths; i++) {
		struct yfile *f;

		if (yfile_load(paths[i], must_exist, &f, err) < 0)
			goto out;
		if (!f)
			continue;
		if (merged_push(m, f) < 0) {
			yfile_free(f);
			goto oom;
		}
		if (merged_add_file(m, f, err) < 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	kerr_set(err, KERR_OTHER, "out of memory");
out:
	if (paths)
		for (size_t i = 0; i < npaths; i++)
			free(paths[i]);
	free(paths);
	if (rc < 0)
		merged_release(m);
	return rc;
}

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

/* YAML to JSON for the exec plugin's cluster config; plain scalars keep
 * their YAML types.  The budget stops alias bombs. */
static json_t *yaml_to_json(struct yfile *f, yaml_node_t *n, int depth, size_t *budget)
{
	json_t *j;

	if (!n || depth > 64 || *budget == 0)
		return NULL;
	(*budget)--;
	switch (n->type) {
	case YAML_SCALAR_NODE: {
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
	case YAML_SEQUENCE_NODE:
		j = json_array();
		for (yaml_node_item_t *i = n->data.sequence.items.start; j && i < n->data.sequence.items.top; i++) {
			json_t *e = yaml_to_json(f, ynode(f, *i), depth + 1, budget);

			if (!e || json_array_append_new(j, e) < 0) {
				json_decref(j);
				return NULL;
			}
		}
		return j;
	case YAML_MAPPING_NODE:
		j = json_object();
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; j && p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = ynode(f, p->key);
			json_t *e;

			if (!is_scalar(k)) {
				json_decref(j);
				return NULL;
			}
			e = yaml_to_json(f, ynode(f, p->value), depth + 1, budget);
			if (!e || json_object_setn_new(j, (const char *)k->data.scalar.value, k->data.scalar.length, e) < 0) {
				json_decref(j);
				return NULL;
			}
		}
		return j;
	default:
		return NULL;
	}
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
		size_t budget = 100000;
		json_t *j;
		char *s;

		if (!e || !yscalar_is(ymap_get(cluster->f, e, "name"), EXEC_EXTENSION))
			continue;
		j = yaml_to_json(cluster->f, ymap_get(cluster->f, e, "extension"), 0, &budget);
		if (!j)
			return NULL;
		s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(j);
		return s;
	}
	return NULL;
}

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

static bool in_cluster_possible(void)
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

static int in_cluster_load(const struct kube_overrides *ov, struct kube_config *c, struct kerr *err)
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

static int resolve(const struct kube_overrides *ov, struct merged *m, struct kube_config *c, struct kerr *err)
{
	struct msglist probs = {0};
	const struct named *ctx = NULL, *cluster = NULL, *user = NULL;
	const char *ctx_name, *cluster_name = NULL, *user_name = NULL, *ns = NULL;
	bool cluster_missing = false;
	const char *cname, *uname;
	struct yfile *cf = NULL, *uf = NULL;
	yaml_node_t *cn = NULL, *un = NULL, *x;
	char *ca_file = NULL, *cert_file = NULL, *key_file = NULL;
	bool ca_data = false, cert_data = false, key_data = false;
	const char *s;

	memset(c, 0, sizeof(*c));
	ctx_name = ov_str(ov->context) ? ov->context : m->current_context;
	if (ctx_name) {
		ctx = namedlist_find(&m->contexts, ctx_name);
		if (!ctx)
			msglist_add(&probs, "context was not found for specified context: %s", ctx_name);
	}
	if (ctx && ctx->node) {
		cluster_name = ystr(ctx->f, ctx->node, "cluster");
		user_name = ystr(ctx->f, ctx->node, "user");
		ns = ystr(ctx->f, ctx->node, "namespace");
	}
	if (ov_str(ov->cluster)) {
		cluster_name = ov->cluster;
		cluster_missing = !namedlist_find(&m->clusters, cluster_name);
	}
	if (ov_str(ov->user)) {
		user_name = ov->user;
		if (!namedlist_find(&m->users, user_name)) {
			msglist_release(&probs);
			return kerr_set(err, KERR_CONFIG, "auth info \"%s\" does not exist", user_name);
		}
	}
	if (ov_str(ov->namespace))
		ns = ov->namespace;
	if (cluster_name)
		cluster = namedlist_find(&m->clusters, cluster_name);
	if (user_name)
		user = namedlist_find(&m->users, user_name);
	if (cluster) {
		cf = cluster->f;
		cn = cluster->node;
	}
	if (user) {
		uf = user->f;
		un = user->node;
	}
	cname = cluster_name ? cluster_name : "";
	uname = user_name ? user_name : "";

	if ((ctx && !(c->context_name = strdup(ctx->name))) ||
	    (cluster_name && !(c->cluster_name = strdup(cluster_name))) ||
	    (user_name && !(c->user_name = strdup(user_name))) || !(c->namespace = strdup(ns ? ns : "default")))
		goto oom;
	c->namespace_explicit = ns != NULL;

	/* user */
	if ((s = ov_str(ov->token))) {
		if (!(c->token = strdup(s)))
			goto oom;
	} else {
		if ((s = ystr(uf, un, "token")) && !(c->token = strdup(s)))
			goto oom;
		if ((s = ystr(uf, un, "tokenFile")) && !(c->token_file = resolve_path(uf, s)))
			goto oom;
	}
	if ((s = ystr(uf, un, "username")) && !(c->username = strdup(s)))
		goto oom;
	if ((s = ystr(uf, un, "password")) && !(c->password = strdup(s)))
		goto oom;
	if (ov_str(ov->client_certificate)) {
		if (!(cert_file = strdup(ov->client_certificate)))
			goto oom;
	} else {
		cert_data = has_data(uf, un, "client-certificate-data");
		if ((s = ystr(uf, un, "client-certificate")) && !(cert_file = resolve_path(uf, s)))
			goto oom;
	}
	if (ov_str(ov->client_key)) {
		if (!(key_file = strdup(ov->client_key)))
			goto oom;
	} else {
		key_data = has_data(uf, un, "client-key-data");
		if ((s = ystr(uf, un, "client-key")) && !(key_file = resolve_path(uf, s)))
			goto oom;
	}
	if (c->token && (c->username || c->password))
		msglist_add(&probs,
			    "more than one authentication method found for %s; found [token basicAuth], only one is allowed",
			    uname);
	if (cert_file || cert_data) {
		if (cert_file && cert_data)
			msglist_add(&probs,
				    "client-cert-data and client-cert are both specified for %s. client-cert-data will override.",
				    uname);
		if (key_file && key_data)
			msglist_add(&probs,
				    "client-key-data and client-key are both specified for %s; client-key-data will override",
				    uname);
		if (!key_file && !key_data)
			msglist_add(&probs,
				    "client-key-data or client-key must be specified for %s to use the clientCert authentication method.",
				    uname);
		if (cert_data)
			ydata(uf, un, "client-certificate-data", &c->client_cert);
		else
			load_file_field(&probs, "client-cert", cert_file, uname, &c->client_cert);
		if (key_data)
			ydata(uf, un, "client-key-data", &c->client_key);
		else if (key_file)
			load_file_field(&probs, "client-key", key_file, uname, &c->client_key);
	} else if (key_file || key_data) {
		msglist_add(&probs,
			    "client-certificate-data or client-certificate must be specified for %s to use the clientCert authentication method",
			    uname);
	}
	x = ymap_get(uf, un, "exec");
	if (x && !ynull(x)) {
		if (load_exec(user, uname, x, &probs, &c->exec) < 0)
			goto oom;
		if (ymap_get(uf, un, "auth-provider") && !ynull(ymap_get(uf, un, "auth-provider")))
			msglist_add(&probs,
				    "authProvider cannot be provided in combination with an exec plugin for %s",
				    uname);
		if (c->exec->provide_cluster_info)
			c->exec->cluster_config_json = exec_cluster_config(cluster);
	}
	x = ymap_get(uf, un, "auth-provider");
	if (x && !ynull(x)) {
		const char *name = ystr(uf, x, "name");

		if (!(c->auth_provider = strdup(name ? name : "")))
			goto oom;
		if (name && strcmp(name, "oidc") == 0 && !c->token) {
			const char *idt = ystr(uf, ymap_get(uf, x, "config"), "id-token");

			if (idt && !(c->token = strdup(idt)))
				goto oom;
		}
	}
	if ((s = pick(ov->as, ystr(uf, un, "as"))) && !(c->impersonate_user = strdup(s)))
		goto oom;
	if ((s = pick(ov->as_uid, ystr(uf, un, "as-uid"))) && !(c->impersonate_uid = strdup(s)))
		goto oom;
	if (ov->as_groups && ov->as_groups[0]) {
		if (!(c->impersonate_groups = strv_from(ov->as_groups)))
			goto oom;
	} else if ((x = ymap_get(uf, un, "as-groups")) && x->type == YAML_SEQUENCE_NODE &&
		   x->data.sequence.items.top > x->data.sequence.items.start) {
		if (!(c->impersonate_groups = ystrv(uf, x)))
			goto oom;
	}
	x = ymap_get(uf, un, "as-user-extra");
	if (x && x->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *p = x->data.mapping.pairs.start; p < x->data.mapping.pairs.top; p++) {
			yaml_node_t *k = ynode(uf, p->key), *vs = ynode(uf, p->value);

			if (!vs || vs->type != YAML_SEQUENCE_NODE)
				continue;
			for (yaml_node_item_t *i = vs->data.sequence.items.start; i < vs->data.sequence.items.top; i++) {
				yaml_node_t *v = ynode(uf, *i);
				const char *vv = ynull(v) ? "" : (const char *)v->data.scalar.value;

				if (kvlist_add(&c->impersonate_extra, (const char *)k->data.scalar.value,
					       k->data.scalar.length, vv, strlen(vv)) < 0)
					goto oom;
			}
		}
	if ((c->impersonate_uid || c->impersonate_groups || c->impersonate_extra.len) && !c->impersonate_user)
		msglist_add(&probs, "requesting uid, groups or user-extra for %s without impersonating a user", uname);

	/* cluster */
	if ((s = pick(ov->server, ystr(cf, cn, "server")))) {
		if (!(c->server = strdup(s)))
			goto oom;
	} else if (cluster_missing) {
		msglist_add(&probs, "no server found for cluster \"%s\"", cname);
	} else if (!(c->server = default_server())) {
		goto oom;
	}
	/* a --server of its own makes the config's tls-server-name meaningless */
	if ((s = pick(ov->tls_server_name, ov_str(ov->server) ? NULL : ystr(cf, cn, "tls-server-name"))) &&
	    !(c->tls_server_name = strdup(s)))
		goto oom;
	if ((s = ystr(cf, cn, "proxy-url"))) {
		const char *colon = strstr(s, "://");
		size_t n = colon ? (size_t)(colon - s) : 0;

		if (!(n == 4 && strncmp(s, "http", 4) == 0) && !(n == 5 && strncmp(s, "https", 5) == 0) &&
		    !(n == 6 && strncmp(s, "socks5", 6) == 0))
			msglist_add(&probs,
				    "invalid 'proxy-url' \"%s\" for cluster \"%s\": unsupported scheme \"%.*s\", must be http, https, or socks5",
				    s, cname, (int)n, s);
		if (!(c->proxy_url = strdup(s)))
			goto oom;
	}
	c->disable_compression = ov->disable_compression || ybool(cf, cn, "disable-compression");
	if (ov_str(ov->certificate_authority)) {
		if (!(ca_file = strdup(ov->certificate_authority)))
			goto oom;
		c->insecure_skip_tls_verify = ov->insecure_skip_tls_verify;
	} else if (ov->insecure_skip_tls_verify) {
		/* the flag without a CA flag drops the config's CA, as kubectl does */
		c->insecure_skip_tls_verify = true;
	} else {
		c->insecure_skip_tls_verify = ybool(cf, cn, "insecure-skip-tls-verify");
		ca_data = has_data(cf, cn, "certificate-authority-data");
		if ((s = ystr(cf, cn, "certificate-authority")) && !(ca_file = resolve_path(cf, s)))
			goto oom;
	}
	if (ca_file && ca_data)
		msglist_add(&probs,
			    "certificate-authority-data and certificate-authority are both specified for %s. certificate-authority-data will override.",
			    cname);
	if (ca_file) {
		struct kblob tmp = {0};

		load_file_field(&probs, "certificate-authority", ca_file, cname, ca_data ? &tmp : &c->ca);
		kblob_wipe(&tmp);
	}
	if (ca_data)
		ydata(cf, cn, "certificate-authority-data", &c->ca);
	if (c->insecure_skip_tls_verify && (ca_file || ca_data))
		msglist_add(&probs, "specifying a root certificates file with the insecure flag is not allowed");
	if (c->exec && c->exec->api_version && strcmp(c->exec->api_version, "client.authentication.k8s.io/v1") != 0 &&
	    strcmp(c->exec->api_version, "client.authentication.k8s.io/v1beta1") != 0)
		msglist_add(&probs, "exec plugin: invalid apiVersion \"%s\"", c->exec->api_version);
	if (c->token_file && !c->token && !probs.n) {
		struct kblob t = {0};
		int e = read_all(c->token_file, &t);

		kblob_wipe(&t);
		if (e) {
			char *et = errno_text(e);

			msglist_add(&probs, "%s %s: %s", e == EISDIR ? "read" : "open", c->token_file, et ? et : "error");
			free(et);
		}
	}
	if (probs.n || probs.oom) {
		msglist_to_error(&probs, err);
		/* kubectl sets an unknown context apart from the other problems */
		if (ctx_name && !ctx && err && err->kind == KERR_CONFIG)
			err->reason = strdup(KERR_REASON_INVALID_CONFIGURATION);
		goto fail;
	}
	/* a server without a scheme: https when anything TLS was configured */
	if (!strstr(c->server, "://")) {
		char *u = NULL;
		bool tls = c->ca.len || c->client_cert.len || c->insecure_skip_tls_verify;

		if (asprintf(&u, "%s://%s", tls ? "https" : "http", c->server) < 0)
			goto oom;
		free(c->server);
		c->server = u;
	}
	{
		size_t n = strlen(c->server);

		while (n > 1 && c->server[n - 1] == '/' && c->server[n - 2] != '/')
			c->server[--n] = '\0';
	}
	free(ca_file);
	free(cert_file);
	free(key_file);
	msglist_release(&probs);
	return 0;
oom:
	kerr_set(err, KERR_OTHER, "out of memory");
fail:
	free(ca_file);
	free(cert_file);
	free(key_file);
	msglist_release(&probs);
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
