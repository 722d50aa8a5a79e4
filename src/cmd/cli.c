#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scheme.h"
#include "termsafe.h"

/* kubectl's global flags, in the order `kubectl options` lists the ones a
 * plugin is expected to accept. */
const struct flag global_flags[] = {
	{ "as", 0, "USER", "username to impersonate for the operation", NULL },
	{ "as-group", 0, "GROUP", "group to impersonate for the operation (repeatable)", NULL },
	{ "as-uid", 0, "UID", "UID to impersonate for the operation", NULL },
	{ "certificate-authority", 0, "FILE", "path to a cert file for the certificate authority", NULL },
	{ "client-certificate", 0, "FILE", "path to a client certificate file for TLS", NULL },
	{ "client-key", 0, "FILE", "path to a client key file for TLS", NULL },
	{ "cluster", 0, "NAME", "the name of the kubeconfig cluster to use", "clusters" },
	{ "consistent-read", 0, NULL, "read nodes and pods from etcd (a quorum read), not from the API server's cache", NULL },
	{ "context", 0, "NAME", "the name of the kubeconfig context to use; a comma list (a,b,c) asks several clusters at once", "contexts" },
	{ "all-contexts", 0, NULL, "ask every context of the kubeconfig at once (the fleet)", NULL },
	{ "ignore-unreachable", 0, NULL, "with several contexts: succeed when at least one cluster answered", NULL },
	{ "disable-compression", 0, NULL, "opt out of response compression for all requests to the server", NULL },
	{ "insecure-skip-tls-verify", 0, NULL, "do not check the server's certificate (insecure)", NULL },
	{ "kubeconfig", 0, "FILE", "path to the kubeconfig file to use", NULL },
	{ "namespace", 'n', "NAMESPACE", "namespace whose pods are shown", "namespaces" },
	{ "all-namespaces", 'A', NULL, "pods of all namespaces (the default)", NULL },
	{ "request-timeout", 0, "DURATION", "how long to wait for a request (0 = no limit, 5 = 5s, 1m, 2h)", NULL },
	{ "server", 's', "URL", "the address and port of the Kubernetes API server", NULL },
	{ "tls-server-name", 0, "NAME", "server name to use for certificate validation and SNI", NULL },
	{ "token", 0, "TOKEN", "bearer token for authentication to the API server", NULL },
	{ "user", 0, "NAME", "the name of the kubeconfig user to use", "users" },
	{ "v", 'v', "LEVEL", "log level: 6 requests, 8 headers (secrets redacted), 9 bodies", NULL },
	{ "help", 'h', NULL, "help for this command", NULL },
	{ 0 },
};

size_t cli_flag_count(const struct flag *flags)
{
	size_t n = 0;

	while (flags && flags[n].name)
		n++;
	return n;
}

/* The flag of tables (searched in turn) with this long name (len bytes),
 * or, when name is NULL, this shorthand; *pos is its number across them. */
static const struct flag *find_flag(const struct flag *const *tables, const char *name, size_t len, char c,
				    size_t *pos)
{
	size_t n = 0;

	for (; *tables; tables++) {
		for (const struct flag *f = *tables; f->name; f++, n++) {
			if (name ? strlen(f->name) == len && memcmp(f->name, name, len) == 0
				 : f->shorthand && f->shorthand == c) {
				*pos = n;
				return f;
			}
		}
	}
	return NULL;
}

static int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "1", "t", "T", "true", "TRUE", "True", NULL };
	static const char *const no[] = { "0", "f", "F", "false", "FALSE", "False", NULL };

	for (size_t i = 0; yes[i]; i++)
		if (strcmp(s, yes[i]) == 0)
			return *ret = true, 0;
	for (size_t i = 0; no[i]; i++)
		if (strcmp(s, no[i]) == 0)
			return *ret = false, 0;
	return -1;
}

/* One flag occurrence in argv, in any of pflag's spellings: --name=value,
 * --name value, -x value, -xvalue, -x=value; booleans take no separate value.
 * The index is advanced past what was consumed.  Returns 1 and fills flag,
 * its number across tables and value when argv[index] is one of them, 0
 * when it is not, -1 on an error. */
static int match_flag(const struct flag *const *tables, int argc, char **argv, int *i, const struct flag **flag,
		      size_t *pos, const char **value, struct kerr *err)
{
	const char *a = argv[*i];
	const char *eq = NULL;
	const struct flag *f;

	if (a[0] != '-' || a[1] == '\0')
		return 0;
	if (a[1] == '-') {
		const char *name = a + 2;

		eq = strchr(name, '=');
		f = find_flag(tables, name, eq ? (size_t)(eq - name) : strlen(name), 0, pos);
		if (!f)
			return 0;
		if (eq) {
			*value = eq + 1;
		} else if (cli_flag_optional(f)) {
			*value = "true";
		} else if (f->arg) {
			if (*i + 1 >= argc)
				return kerr_set(err, KERR_USAGE, "flag needs an argument: --%s", f->name);
			*value = argv[++*i];
		} else {
			*value = "true";
		}
	} else {
		f = find_flag(tables, NULL, 0, a[1], pos);
		if (!f)
			return 0;
		if (a[2] == '=') {
			*value = a + 3;
		} else if (a[2] != '\0') {
			if (!f->arg)
				return 0; /* a cluster of short booleans: not ours to take apart */
			*value = a + 2;
		} else if (cli_flag_optional(f)) {
			*value = "true";
		} else if (f->arg) {
			if (*i + 1 >= argc)
				return kerr_set(err, KERR_USAGE, "flag needs an argument: '%c' in -%c", f->shorthand,
						f->shorthand);
			*value = argv[++*i];
		} else {
			*value = "true";
		}
	}
	if (!f->arg) {
		bool b;

		if (parse_bool(*value, &b) < 0)
			return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--%s\" flag: strconv.ParseBool: parsing \"%s\": invalid syntax",
					*value, f->name, *value);
		*value = b ? "true" : "false";
	}
	*flag = f;
	return 1;
}

void cli_namespace_unused(struct cli_ctx *ctx, const char *why)
{
	fprintf(ctx->errout, "Warning: -n %s has no effect here: %s\n", ctx->g.ov.namespace, why);
}

int cli_flag_error(struct kerr *err, const char *flag, const char *v, const char *what)
{
	return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"--%s\" flag: %s", v, flag, what);
}

int cli_parse_whole(const char *v, const char *flag, long lo, long hi, long *ret, struct kerr *err)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi) {
		char what[64];

		snprintf(what, sizeof(what), "must be a whole number from %ld to %ld", lo, hi);
		return cli_flag_error(err, flag, v, what);
	}
	*ret = n;
	return 0;
}

int cli_confirm(struct cli_ctx *ctx, size_t n, const char *what, const char *question, const char *verb,
		struct kerr *err)
{
	char *line = NULL;
	size_t cap = 0;
	bool ok;

	/* the question goes to stderr and the answer comes from stdin: both
	 * must be the terminal, stdout may be a pipe (`| tee plan.txt`) */
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
		return kerr_set(err, KERR_OTHER,
				"refusing to %s %zu %s without confirmation: add --yes, or run on a terminal to be asked",
				verb, n, what);
	fprintf(ctx->errout, "%s %zu %s? [y/N] ", question, n, what);
	fflush(ctx->errout);
	ok = getline(&line, &cap, stdin) > 0 && (line[0] == 'y' || line[0] == 'Y');
	free(line);
	if (ok)
		return 0;
	fputs("nothing changed\n", ctx->errout);
	return 1;
}

int cli_parse_dry_run(const char *v, enum cli_dry_run *ret, struct kerr *err)
{
	if (!v || strcmp(v, "none") == 0)
		*ret = CLI_DRY_NONE;
	else if (strcmp(v, "client") == 0)
		*ret = CLI_DRY_CLIENT;
	else if (strcmp(v, "server") == 0)
		*ret = CLI_DRY_SERVER;
	else {
		/* kubectl's own sentence, which it prints without the usage hint */
		kerr_set(err, KERR_USAGE, "Invalid dry-run value (%s). Must be \"none\", \"server\", or \"client\".", v);
		err->reason = strdup(CLI_REASON_NO_HINT);
		return -1;
	}
	return 0;
}

int cli_parse_timeout(const char *v, long *ms, struct kerr *err)
{
	long t;

	if (!v)
		return 0;
	if (cli_parse_duration_ms(v, &t) < 0 || t <= 0)
		return kerr_set(err, KERR_USAGE,
				"invalid argument \"%s\" for \"--timeout\" flag: want a duration above zero, such as 30s or 5m", v);
	*ms = t;
	return 0;
}

int cli_parse_duration_ms(const char *s, long *ret)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {
		{ "ns", 1e-6 }, { "us", 1e-3 }, { "ms", 1 }, { "s", 1e3 }, { "m", 60e3 }, { "h", 3600e3 },
	};
	double total = 0;
	const char *p = s;
	char *end;

	if (!s || !*s)
		return -1;
	/* a bare integer is seconds, as kubectl reads --request-timeout */
	errno = 0;
	long secs = strtol(s, &end, 10);
	if (*end == '\0' && errno == 0) {
		if (secs < 0 || secs > LONG_MAX / 1000)
			return -1;
		*ret = secs * 1000;
		return 0;
	}
	while (*p) {
		double v;
		size_t best = 0, best_len = 0;

		if (!isdigit((unsigned char)*p) && *p != '.')
			return -1;
		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno)
			return -1;
		p = end;
		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
			size_t n = strlen(units[u].unit);

			if (strncmp(p, units[u].unit, n) == 0 && n > best_len)
				best = u, best_len = n;
		}
		if (!best_len)
			return -1;
		total += v * units[best].ms;
		p += best_len;
	}
	if (total < 0 || total > (double)LONG_MAX)
		return -1;
	*ret = (long)total;
	return 0;
}

static int set_global(struct global_opts *g, const struct flag *f, const char *v, struct kerr *err)
{
	const char *n = f->name;
	struct kube_overrides *ov = &g->ov;

	if (!strcmp(n, "as")) ov->as = v;
	else if (!strcmp(n, "as-uid")) ov->as_uid = v;
	else if (!strcmp(n, "as-group")) {
		if (g->n_as_groups + 1 >= sizeof(g->as_groups) / sizeof(g->as_groups[0]))
			return kerr_set(err, KERR_USAGE, "too many --as-group flags");
		g->as_groups[g->n_as_groups++] = v;
		g->as_groups[g->n_as_groups] = NULL;
		ov->as_groups = g->as_groups;
	}
	else if (!strcmp(n, "certificate-authority")) ov->certificate_authority = v;
	else if (!strcmp(n, "client-certificate")) ov->client_certificate = v;
	else if (!strcmp(n, "client-key")) ov->client_key = v;
	else if (!strcmp(n, "cluster")) ov->cluster = v;
	else if (!strcmp(n, "context")) ov->context = v;
	else if (!strcmp(n, "all-contexts")) g->all_contexts = !strcmp(v, "true");
	else if (!strcmp(n, "ignore-unreachable")) g->ignore_unreachable = !strcmp(v, "true");
	else if (!strcmp(n, "consistent-read")) g->consistent_reads = !strcmp(v, "true");
	else if (!strcmp(n, "disable-compression")) ov->disable_compression = !strcmp(v, "true");
	else if (!strcmp(n, "insecure-skip-tls-verify")) ov->insecure_skip_tls_verify = !strcmp(v, "true");
	else if (!strcmp(n, "kubeconfig")) ov->kubeconfig = v;
	else if (!strcmp(n, "namespace")) ov->namespace = v;
	else if (!strcmp(n, "all-namespaces")) g->all_namespaces = !strcmp(v, "true");
	else if (!strcmp(n, "server")) ov->server = v;
	else if (!strcmp(n, "tls-server-name")) ov->tls_server_name = v;
	else if (!strcmp(n, "token")) ov->token = v;
	else if (!strcmp(n, "user")) ov->user = v;
	else if (!strcmp(n, "help")) g->help = !strcmp(v, "true");
	else if (!strcmp(n, "request-timeout")) {
		if (cli_parse_duration_ms(v, &g->request_timeout_ms) < 0)
			return kerr_set(err, KERR_USAGE,
					"Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)");
	} else if (!strcmp(n, "v")) {
		char *end;
		long lvl = strtol(v, &end, 10);

		if (*v == '\0' || *end != '\0' || lvl < 0 || lvl > 10)
			return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"-v, --v\" flag: must be 0-10", v);
		g->verbosity = (int)lvl;
	}
	return 0;
}

int cli_take_global_flags(int argc, char **argv, struct global_opts *g, struct kerr *err)
{
	const struct flag *tables[] = { global_flags, NULL };
	int out = 1;

	for (int i = 1; i < argc; i++) {
		const struct flag *f;
		const char *v;
		size_t pos;
		int r;

		if (strcmp(argv[i], "--") == 0) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		r = match_flag(tables, argc, argv, &i, &f, &pos, &v, err);
		if (r < 0)
			return -1;
		if (r == 0) {
			argv[out++] = argv[i];
			continue;
		}
		if (set_global(g, f, v, err) < 0)
			return -1;
	}
	argv[out] = NULL;
	return out;
}

/* "--name" or "-x" of a flag that takes a value: the next word is it. */
static bool takes_next_word(const struct flag *const *tables, const char *a, size_t *pos)
{
	const struct flag *f = NULL;

	if (a[0] != '-' || !a[1])
		return false;
	if (a[1] == '-' && a[2] && !strchr(a, '='))
		f = find_flag(tables, a + 2, strlen(a + 2), 0, pos);
	else if (a[1] != '-' && !a[2])
		f = find_flag(tables, NULL, 0, a[1], pos);
	return f && f->arg && !cli_flag_optional(f);
}

int cli_split_short_groups(const struct command *cmd, int argc, char **argv, char ***ret_argv, char **ret_buf,
			   struct kerr *err)
{
	const struct flag *tables[CLI_FLAG_TABLES + 1];
	size_t chars = 0, used = 0, pos;
	char **out, *buf;
	int n = 0;

	/* the command's flags, then the global ones */
	for (pos = 0; pos < CLI_FLAG_TABLES && cmd->flags[pos]; pos++)
		tables[pos] = cmd->flags[pos];
	tables[pos] = global_flags;
	tables[pos + 1] = NULL;
	for (int i = 0; i < argc; i++)
		chars += strlen(argv[i]) + 1;
	/* at most one argument per character, each "-x" or "-x=value" piece
	 * no longer than three bytes per character */
	out = calloc(chars + (size_t)argc + 1, sizeof(*out));
	buf = malloc(3 * chars + 1);
	if (!out || !buf) {
		free(out);
		free(buf);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (int i = 0, value_next = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct flag *f;

		/* the value of the flag before it, as pflag takes it: "-1s" too */
		if (value_next) {
			out[n++] = argv[i];
			value_next = 0;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			while (i < argc)
				out[n++] = argv[i++];
			break;
		}
		/* -x, -x=v, --long and words stay; so does -xVALUE, where x
		 * takes a value: the flag parsers read those themselves */
		f = i > 0 && a[0] == '-' && a[1] && a[1] != '-' && a[2] && a[2] != '='
			    ? find_flag(tables, NULL, 0, a[1], &pos)
			    : NULL;
		if (i == 0 || a[0] != '-' || !a[1] || a[1] == '-' || !a[2] || a[2] == '=' || (f && f->arg)) {
			out[n++] = argv[i];
			value_next = i > 0 && takes_next_word(tables, a, &pos);
			continue;
		}
		/* as pflag reads a group: booleans one by one; the first flag
		 * that takes a value takes the rest of the group (after an
		 * optional '='), or the next argument when nothing is left */
		for (const char *p = a + 1; *p; p++) {
			char *piece = buf + used;

			f = find_flag(tables, NULL, 0, *p, &pos);
			if (!f) {
				free(out);
				free(buf);
				return kerr_set(err, KERR_USAGE, "unknown shorthand flag: '%c' in %s", *p, a);
			}
			if (f->arg || p[1] == '=') {
				const char *rest = p[1] == '=' ? p + 2 : p + 1;

				if (*rest || p[1] == '=') {
					used += (size_t)sprintf(piece, "-%c=%s", *p, rest) + 1;
				} else {
					used += (size_t)sprintf(piece, "-%c", *p) + 1;
					value_next = 1;
				}
				out[n++] = piece;
				break;
			}
			used += (size_t)sprintf(piece, "-%c", *p) + 1;
			out[n++] = piece;
		}
	}
	out[n] = NULL;
	*ret_argv = out;
	*ret_buf = buf;
	return n;
}

/* The joined values of list flags given more than once. */
static char **joined;
static size_t njoined, joined_cap;

void cli_flags_release(void)
{
	for (size_t i = 0; i < njoined; i++)
		free(joined[i]);
	free(joined);
	joined = NULL;
	njoined = joined_cap = 0;
}

/* *val, then ",v": kept in joined. */
static int join_value(const char **val, const char *v, struct kerr *err)
{
	char **nj = kube_array_grow(joined, &joined_cap, njoined + 1, sizeof(*nj), 4);
	char *s = NULL;

	if (!nj || asprintf(&s, "%s,%s", *val, v) < 0)
		return kerr_set(err, KERR_OTHER, "out of memory");
	joined = nj;
	joined[njoined++] = s;
	*val = s;
	return 0;
}

int cli_list_split(const char *list, const char *flag, char **ret_buf, char ***ret_items, size_t *ret_n,
		   struct kerr *err)
{
	size_t cap = 2, n = 0;
	char *buf, **items, *save = NULL;

	*ret_buf = NULL;
	*ret_items = NULL;
	*ret_n = 0;
	for (const char *p = list; *p; p++)
		cap += *p == ',';
	buf = strdup(list);
	items = calloc(cap, sizeof(*items));
	if (!buf || !items) {
		free(buf);
		free(items);
		return kerr_set(err, KERR_OTHER, "out of memory");
	}
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save))
		items[n++] = p;
	if (n == 0) {
		free(buf);
		free(items);
		return kerr_set(err, KERR_USAGE, "invalid argument \"%s\" for \"%s\" flag: no value", list, flag);
	}
	*ret_buf = buf;
	*ret_items = items;
	*ret_n = n;
	return 0;
}

int cli_parse_flags(const struct command *cmd, int argc, char **argv, const char **vals, struct kerr *err)
{
	int npos = 0;
	bool only_positional = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct flag *f;
		const char *v;
		size_t pos;
		int r;

		if (only_positional || a[0] != '-' || a[1] == '\0') {
			argv[npos++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_positional = true;
			continue;
		}
		r = match_flag(cmd->flags, argc, argv, &i, &f, &pos, &v, err);
		if (r < 0)
			return -1;
		if (r == 0) {
			if (a[1] == '-')
				return kerr_set(err, KERR_USAGE, "unknown flag: %s", a);
			return kerr_set(err, KERR_USAGE, "unknown shorthand flag: '%c' in %s", a[1], a);
		}
		/* a boolean set to false is as if never given: commands test
		 * their booleans for presence, and the last spelling wins */
		if (f->arg && vals[pos] && strlen(f->arg) > 4 && strcmp(f->arg + strlen(f->arg) - 4, ",...") == 0) {
			if (join_value(&vals[pos], v, err) < 0)
				return -1;
			continue;
		}
		vals[pos] = f->arg || strcmp(v, "false") != 0 ? v : NULL;
	}
	argv[npos] = NULL;
	return npos;
}

static void print_flag_table(FILE *f, const struct flag *flags)
{
	for (const struct flag *fl = flags; fl && fl->name; fl++) {
		char left[96];

		if (cli_flag_optional(fl) && fl->shorthand)
			snprintf(left, sizeof(left), "-%c, --%s[=%s", fl->shorthand, fl->name, fl->arg + 1);
		else if (cli_flag_optional(fl))
			snprintf(left, sizeof(left), "    --%s[=%s", fl->name, fl->arg + 1);
		else if (fl->shorthand)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", fl->shorthand, fl->name, fl->arg ? "=" : "",
				 fl->arg ? fl->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", fl->name, fl->arg ? "=" : "", fl->arg ? fl->arg : "");
		fprintf(f, "    %-36s %s\n", left, fl->help);
	}
}

/* kubectl's Examples: comments as they are, each but the first after a blank
 * line; other lines, and empty ones, after the name the plugin was run as
 * and the command's name. */
static void print_examples(FILE *f, const char *prog, const struct command *cmd)
{
	const char *line = cmd->examples;

	if (!line)
		return;
	fprintf(f, "\nExamples:\n");
	while (*line) {
		const char *nl = strchr(line, '\n');
		int len = (int)(nl ? nl - line : (ptrdiff_t)strlen(line));

		if (line[0] == '#')
			fprintf(f, "%s  %.*s\n", line == cmd->examples ? "" : "\n", len, line);
		else
			fprintf(f, "  %s%s%s%s%.*s\n", prog, cmd->name ? " " : "", cmd->name ? cmd->name : "",
				len ? " " : "", len, line);
		line += len + (nl != NULL);
	}
}

/* A command's flags and the global ones; where a flag names a sharing
 * scheme, the schemes it may name, from the scheme table. */
static void print_flags(FILE *f, const struct command *cmd)
{
	const struct flag *scheme_flag = NULL;

	fprintf(f, "\nFlags:\n");
	for (size_t t = 0; t < CLI_FLAG_TABLES && cmd->flags[t]; t++) {
		print_flag_table(f, cmd->flags[t]);
		for (const struct flag *fl = cmd->flags[t]; fl->name; fl++)
			if (fl->values && strcmp(fl->values, "schemes") == 0)
				scheme_flag = fl;
	}
	if (scheme_flag) {
		fprintf(f, "\nSharing schemes (--%s):\n", scheme_flag->name);
		for (size_t i = 0; schemes[i]; i++) {
			fprintf(f, "  %-14s %s\n", schemes[i]->name, schemes[i]->title);
			if (schemes[i]->help)
				fprintf(f, "  %-14s %s\n", "", schemes[i]->help);
		}
	}
	fprintf(f, "\nGlobal flags (as kubectl's):\n");
	print_flag_table(f, global_flags);
}

void cli_print_help(FILE *f, const char *prog, const struct command *table, const struct command *cmd)
{
	if (!cmd) {
		fprintf(f, "Show how the GPUs of a Kubernetes cluster are shared, and change how they are shared.\n\n");
		fprintf(f, "Usage:\n  %s [NODE...] [flags]\n  %s COMMAND [flags]\n", prog, prog);
		print_examples(f, prog, table);
		int width = 11; /* cobra's padding of command names, at least 11 */

		fprintf(f, "\nCommands:\n");
		for (const struct command *c = table + 1; c->run; c++)
			if ((int)strlen(c->name) > width)
				width = (int)strlen(c->name);
		for (const struct command *c = table + 1; c->run; c++)
			if (strncmp(c->name, "__", 2) != 0)
				fprintf(f, "  %-*s %s\n", width, c->name, c->summary);
		print_flags(f, table);
		fprintf(f, "\nUse \"%s COMMAND --help\" for more about a command.\n", prog);
		fprintf(f, "Exit status: 0 success, 1 failure (a usage error too).\n");
		return;
	}
	fprintf(f, "%s\n\nUsage:\n  %s %s%s%s\n", cmd->summary, prog, cmd->name ? cmd->name : "",
		cmd->name ? " " : "", cmd->usage);
	print_examples(f, prog, cmd);
	print_flags(f, cmd);
}

/* Edits (insert, delete, substitute, swap two neighbours) from a to b,
 * stopping early above limit. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), d[3][34];

	if (la > 32 || lb > 32)
		return limit + 1;
	/* three rows: the one before the previous, for swaps */
	for (size_t j = 0; j <= lb; j++)
		d[1][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = d[(i + 1) % 3], *prev = d[i % 3], *pp = d[(i + 2) % 3], best;

		cur[0] = i;
		best = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t v = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			cur[j] = v;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return d[(la + 1) % 3][lb];
}

const char *cli_suggest_command(const struct command *table, const char *word)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (const struct command *c = table + 1; word && c->run; c++) {
		const char *name = c->name;
		size_t d;

		if (strncmp(name, "__", 2) == 0)
			continue;
		d = edit_distance(word, name, 2);
		if (d < best_d && d < strlen(name)) {
			best = name;
			best_d = d;
		}
	}
	return best;
}

bool cli_drop_status(struct kerr *err, long a, long b)
{
	if (err->kind != KERR_STATUS || (err->code != a && err->code != b))
		return false;
	kerr_release(err);
	return true;
}

/* "16 MiB", "4 GiB", or bytes. */
static void size_words(char *buf, size_t len, unsigned long long n)
{
	if (n >= (1ull << 30) && n % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", n >> 30);
	else if (n >= (1ull << 20) && n % (1ull << 20) == 0)
		snprintf(buf, len, "%llu MiB", n >> 20);
	else
		snprintf(buf, len, "%llu bytes", n);
}

void cli_word_error(struct kerr *err)
{
	char size[64], *r, *path;

	if (!err || err->kind != KERR_BUDGET || !err->reason)
		return;
	/* kerr_set releases what it replaces */
	r = strdup(err->reason);
	path = strdup(err->message ? err->message : "");
	if (!r || !path) {
		free(r);
		free(path);
		kerr_set(err, KERR_OTHER, "out of memory");
		return;
	}
	size_words(size, sizeof(size), (unsigned long long)err->code);
	if (strcmp(r, KERR_REASON_REPEATED_CONTINUE) == 0)
		kerr_set(err, KERR_OTHER,
			 "the server answered the list %s with a continue token it had already sent: stopped, as the "
			 "list would never end",
			 path);
	else if (strcmp(r, KERR_REASON_NO_NEW_OBJECTS) == 0)
		kerr_set(err, KERR_OTHER,
			 "a page of the list %s asked for another page but brought no new object: stopped, as the "
			 "list would never end",
			 path);
	else if (strcmp(r, KERR_REASON_TOO_MANY_OBJECTS) == 0)
		kerr_set(err, KERR_OTHER, "the list %s brought more than %ld objects, the most one list may bring",
			 path, err->code);
	else if (strcmp(r, KERR_REASON_TOO_MANY_BYTES) == 0)
		kerr_set(err, KERR_OTHER, "the list %s brought more than %s, the most one list may bring", path, size);
	else if (strcmp(r, KERR_REASON_OBJECT_TOO_LARGE) == 0)
		kerr_set(err, KERR_OTHER, "an object of %s is larger than %s, the most one object may be", path, size);
	else
		kerr_set(err, KERR_OTHER, "%s: %s", path, r);
	free(r);
	free(path);
}

char *cli_error_line(const struct kerr *err)
{
	struct kerr copy = KERR_INIT;
	char *line;

	if (!err || err->kind != KERR_BUDGET)
		return termsafe_kerr_line(err);
	kerr_copy(&copy, err);
	cli_word_error(&copy);
	line = termsafe_kerr_line(&copy);
	kerr_release(&copy);
	return line;
}
