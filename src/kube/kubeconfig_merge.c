/* The kubeconfig files as YAML documents: their shape checked as decoding
 * into client-go's types would, and several files merged by kubectl's rules
 * (the first definition of a name wins, the first current-context wins).
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

/* --- YAML documents ------------------------------------------------------ */





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

void merged_release(struct merged *m)
{
	for (size_t i = 0; i < m->nfiles; i++)
		yfile_free(m->files[i]);
	free(m->files);
	free(m->clusters.v);
	free(m->users.v);
	free(m->contexts.v);
	memset(m, 0, sizeof(*m));
}

yaml_node_t *ynode(struct yfile *f, int id)
{
	return yaml_document_get_node(&f->doc, id);
}

static size_t yline(const yaml_node_t *n)
{
	return n ? n->start_mark.line + 1 : 0;
}

bool yscalar_is(const yaml_node_t *n, const char *s)
{
	size_t k = strlen(s);

	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == k &&
	       memcmp(n->data.scalar.value, s, k) == 0;
}

bool ynull(const yaml_node_t *n)
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

yaml_node_t *ymap_get(struct yfile *f, yaml_node_t *map, const char *key)
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
const char *ystr(struct yfile *f, yaml_node_t *map, const char *key)
{
	yaml_node_t *n = ymap_get(f, map, key);

	if (!n || ynull(n) || n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0)
		return NULL;
	return (const char *)n->data.scalar.value;
}

int ybool_parse(const yaml_node_t *n, bool *ret)
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

bool ybool(struct yfile *f, yaml_node_t *map, const char *key)
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

bool is_scalar(const yaml_node_t *n)
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
	struct named *v;

	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return 0; /* the first file that defines a name wins */
	v = kube_array_grow(l->v, &l->cap, l->n + 1, sizeof(*v), 8);
	if (!v)
		return -1;
	l->v = v;
	l->v[l->n++] = (struct named){name, f, ynull(node) ? NULL : node};
	return 0;
}

const struct named *namedlist_find(const struct namedlist *l, const char *name)
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
int merged_load(const struct kube_overrides *ov, struct merged *m, struct kerr *err)
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
