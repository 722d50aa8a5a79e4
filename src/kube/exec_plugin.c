/* exec credential plugins, as client-go runs them: the command found on
 * PATH or beside the kubeconfig, ExecCredential on stdin and in
 * KUBERNETES_EXEC_INFO, a time limit, the answer decoded and cached until it
 * expires, one forced run for the requests that fail together with 401.
 */
#include "kubeconfig.h"
#include "kubeconfig_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

extern char **environ;

#define EXEC_TIMEOUT_DEFAULT 300
/* Requests that run together and fail together with 401 each ask for a
 * fresh credential; client-go runs the plugin once for them because it can
 * tell that the cached credential is newer than the failed one.  Here a
 * credential that a forced run fetched within this window counts as that
 * newer one. */
#define FORCE_REUSE_MS 2000

struct cred_cache {
	char *key; /* which exec configuration produced cred */
	struct kube_credential cred;
	bool valid;
	long long fetched_ms; /* monotonic time the plugin returned cred */
	bool fetched_forced;  /* ... on a forced run */
	FILE *log;	      /* where an exec plugin's stderr goes; NULL = stderr */
};

/* An exec plugin's stderr is relayed up to this many bytes per run. */
#define EXEC_STDERR_MAX (64u << 10)

static FILE *cache_log(const struct cred_cache *c)
{
	return c && c->log ? c->log : stderr;
}

void cred_cache_set_log(struct cred_cache *c, FILE *log)
{
	if (c)
		c->log = log;
}

struct cred_cache *cred_cache_new(void)
{
	return calloc(1, sizeof(struct cred_cache));
}

void cred_cache_free(struct cred_cache *c)
{
	if (!c)
		return;
	free(c->key);
	kube_credential_release(&c->cred);
	free(c);
}

/* --- exec plugins ---------------------------------------------------------- */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const unsigned char *p, size_t n)
{
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);

		*o++ = b64chars[v >> 18 & 63];
		*o++ = b64chars[v >> 12 & 63];
		*o++ = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64chars[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

/* KUBERNETES_EXEC_INFO: an ExecCredential with the spec the plugin may use. */
static char *exec_info(const struct kube_config *cfg, bool interactive)
{
	const struct kube_exec *x = cfg->exec;
	json_t *root = json_object(), *spec = json_object();
	char *s = NULL;

	if (!root || !spec)
		goto out;
	json_object_set_new(root, "kind", json_string("ExecCredential"));
	json_object_set_new(root, "apiVersion", json_string(x->api_version));
	json_object_set_new(spec, "interactive", json_boolean(interactive));
	if (x->provide_cluster_info) {
		json_t *cl = json_object();

		if (!cl)
			goto out;
		json_object_set_new(cl, "server", json_string(cfg->server));
		if (cfg->tls_server_name)
			json_object_set_new(cl, "tls-server-name", json_string(cfg->tls_server_name));
		if (cfg->insecure_skip_tls_verify)
			json_object_set_new(cl, "insecure-skip-tls-verify", json_true());
		if (cfg->ca.len) {
			char *b = b64_encode(cfg->ca.data, cfg->ca.len);

			if (!b) {
				json_decref(cl);
				goto out;
			}
			json_object_set_new(cl, "certificate-authority-data", json_string(b));
			free(b);
		}
		if (cfg->proxy_url)
			json_object_set_new(cl, "proxy-url", json_string(cfg->proxy_url));
		if (cfg->disable_compression)
			json_object_set_new(cl, "disable-compression", json_true());
		if (x->cluster_config_json) {
			json_t *c = json_loads(x->cluster_config_json, JSON_DECODE_ANY, NULL);

			if (c)
				json_object_set_new(cl, "config", c);
		}
		json_object_set_new(spec, "cluster", cl);
	}
	json_object_set(root, "spec", spec);
	s = json_dumps(root, JSON_COMPACT);
out:
	json_decref(spec);
	json_decref(root);
	return s;
}

/* execvp's search, done before fork so "not found" can be told apart from
 * a plugin that exits 127.  Returns a malloc'd path or NULL. */
static char *find_executable(const char *cmd)
{
	const char *path = getenv("PATH");
	const char *p;

	if (strchr(cmd, '/'))
		return access(cmd, F_OK) == 0 ? strdup(cmd) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;;) {
		const char *c = strchr(p, ':');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		char *cand = NULL;
		struct stat st;

		/* an empty PATH entry means the current directory */
		if (asprintf(&cand, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", cmd) < 0)
			return NULL;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!c)
			return NULL;
		p = c + 1;
	}
}

static long exec_timeout_seconds(void)
{
	const char *s = getenv("KUBE_EXEC_TIMEOUT");
	char *end;
	long v;

	if (!s || !*s)
		return EXEC_TIMEOUT_DEFAULT;
	v = strtol(s, &end, 10);
	return *end || v <= 0 ? EXEC_TIMEOUT_DEFAULT : v;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool env_overridden(const char *entry, const struct kvlist *env)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry);

	if (n == strlen("KUBERNETES_EXEC_INFO") && memcmp(entry, "KUBERNETES_EXEC_INFO", n) == 0)
		return true;
	for (size_t i = 0; i < env->len; i++)
		if (strlen(env->items[i].key) == n && memcmp(env->items[i].key, entry, n) == 0)
			return true;
	return false;
}

/* The collapsed install hint: one line, single spaces. */
static char *one_line(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	bool space = false;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = o != out;
			continue;
		}
		if (space)
			*o++ = ' ';
		space = false;
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

static int not_found(const struct kube_exec *x, struct kerr *err)
{
	char *hint = x->install_hint ? one_line(x->install_hint) : NULL;

	if (hint && *hint)
		kerr_set(err, KERR_CREDENTIALS,
			 "getting credentials: exec: executable %s not found (it looks like you are trying to use a "
			 "client-go credential plugin that is not installed: %s)",
			 x->command, hint);
	else
		kerr_set(err, KERR_CREDENTIALS,
			 "getting credentials: exec: executable %s not found (it looks like you are trying to use a "
			 "client-go credential plugin that is not installed, see " PLUGIN_DOCS ")",
			 x->command);
	free(hint);
	return -1;
}

/* Mark every descriptor above stderr close-on-exec.  Called in the child
 * between fork and exec: async-signal-safe calls only. */
static void close_others_on_exec(void)
{
	long max;

#ifdef CLOSE_RANGE_CLOEXEC
	if (close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
		return;
#endif
	/* kernels before 5.11: one descriptor at a time, up to the limit */
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (int fd = 3; fd < max; fd++) {
		int fl = fcntl(fd, F_GETFD);

		if (fl >= 0 && !(fl & FD_CLOEXEC))
			fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	}
}

/* One run of a plugin: its pipes (stdout, the report of a failed exec,
 * stderr), its stdin, what it wrote and how it ended. */
struct exec_run {
	const struct kube_exec *x;
	const struct cred_cache *cache;
	int outp[2], errp[2], stderrp[2], devnull;
	pid_t pid;
	char *buf; /* stdout, wiped when dropped */
	size_t len, cap;
	size_t relayed; /* bytes of stderr relayed */
	int status, child_errno;
	bool timed_out;
};

static void exec_run_init(struct exec_run *r, const struct kube_exec *x, const struct cred_cache *cache)
{
	memset(r, 0, sizeof(*r));
	r->x = x;
	r->cache = cache;
	r->outp[0] = r->outp[1] = r->errp[0] = r->errp[1] = r->stderrp[0] = r->stderrp[1] = r->devnull = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void exec_run_release(struct exec_run *r)
{
	if (r->buf) {
		explicit_bzero(r->buf, r->len);
		free(r->buf);
	}
	for (int i = 0; i < 2; i++) {
		close_fd(&r->outp[i]);
		close_fd(&r->errp[i]);
		close_fd(&r->stderrp[i]);
	}
	close_fd(&r->devnull);
}

/* Whether the plugin gets our stdin: as its interactiveMode asks and a
 * terminal allows.  -1 when it must have one and there is none. */
static int exec_interactive(const struct kube_exec *x, bool *ret, struct kerr *err)
{
	bool tty = isatty(STDIN_FILENO);

	*ret = false;
	if (x->interactive == EXEC_INTERACTIVE_NEVER)
		return 0;
	if (!tty && x->interactive == EXEC_INTERACTIVE_ALWAYS)
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal");
	*ret = tty;
	return 0;
}

/* The entries of envp from own on, built for the plugin, wiped and freed. */
static void exec_env_wipe(char **envp, size_t own)
{
	for (size_t i = own; envp && envp[i]; i++)
		wipe_free(envp[i]);
}

/* argv and envp for execve: the parent's environment less what the
 * plugin's env and KUBERNETES_EXEC_INFO set, then those.  The parent's
 * entries are borrowed; the ones from envp[*own] on are built here.  -1
 * when out of memory, what was built then in *ret_envp all the same. */
static int exec_args(const struct kube_exec *x, const char *info, char ***ret_argv, char ***ret_envp, size_t *own)
{
	size_t nargs = 0, nparent = 0, n = 0;
	char **argv, **envp;

	while (x->args && x->args[nargs])
		nargs++;
	while (environ && environ[nparent])
		nparent++;
	argv = *ret_argv = calloc(nargs + 2, sizeof(*argv));
	envp = *ret_envp = calloc(nparent + x->env.len + 2, sizeof(*envp));
	*own = 0;
	if (!argv || !envp)
		return -1;
	argv[0] = x->command;
	for (size_t i = 0; i < nargs; i++)
		argv[i + 1] = x->args[i];
	for (size_t i = 0; i < nparent; i++)
		if (!env_overridden(environ[i], &x->env))
			envp[n++] = environ[i];
	*own = n;
	for (size_t i = 0; i < x->env.len; i++)
		if (asprintf(&envp[n++], "%s=%s", x->env.items[i].key, x->env.items[i].value) < 0) {
			envp[--n] = NULL;
			return -1;
		}
	if (asprintf(&envp[n++], "KUBERNETES_EXEC_INFO=%s", info) < 0) {
		envp[--n] = NULL;
		return -1;
	}
	return 0;
}

/* In the child, between fork and exec: async-signal-safe calls only.  The
 * plugin gets stdin, stdout and stderr and nothing else of ours
 * (connections, files the caller opened without O_CLOEXEC): every other
 * descriptor closes on exec, the one that reports a failed exec included. */
static void exec_child(const struct exec_run *r, const char *path, char **argv, char **envp)
	__attribute__((noreturn));

static void exec_child(const struct exec_run *r, const char *path, char **argv, char **envp)
{
	int e;

	if (r->devnull >= 0 && dup2(r->devnull, STDIN_FILENO) < 0)
		_exit(127);
	if (dup2(r->outp[1], STDOUT_FILENO) < 0 || dup2(r->stderrp[1], STDERR_FILENO) < 0)
		_exit(127);
	close_others_on_exec();
	execve(path, argv, envp);
	e = errno;
	if (write(r->errp[1], &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* The plugin started, its stdin /dev/null unless interactive; once this
 * returns 0 it has either exec'd or reported why not (child_errno). */
static int exec_start(struct exec_run *r, const char *path, char **argv, char **envp, bool interactive,
		      struct kerr *err)
{
	if (!interactive && (r->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec: open /dev/null: %s", strerror(errno));
	if (pipe2(r->outp, O_CLOEXEC) < 0 || pipe2(r->errp, O_CLOEXEC) < 0 || pipe2(r->stderrp, O_CLOEXEC) < 0)
		return kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec: pipe: %s", strerror(errno));
	r->pid = fork();
	if (r->pid < 0)
		return kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec: fork: %s", strerror(errno));
	if (r->pid == 0)
		exec_child(r, path, argv, envp);
	close_fd(&r->outp[1]);
	close_fd(&r->errp[1]);
	close_fd(&r->stderrp[1]);
	while (read(r->errp[0], &r->child_errno, sizeof(r->child_errno)) < 0 && errno == EINTR)
		;
	return 0;
}

/* What the plugin says on stderr (a prompt, why it failed) goes to the log
 * stream as it comes, up to EXEC_STDERR_MAX bytes a run: the caller shows
 * it there in a form safe for a terminal. */
static void relay_stderr(struct exec_run *r, const char *chunk, size_t n)
{
	FILE *log;

	if (r->relayed >= EXEC_STDERR_MAX)
		return;
	if (n > EXEC_STDERR_MAX - r->relayed)
		n = EXEC_STDERR_MAX - r->relayed;
	log = cache_log(r->cache);
	fwrite(chunk, 1, n, log);
	fflush(log);
	r->relayed += n;
}

/* Room for more of stdout.  -1 when out of memory: the plugin is then
 * killed and reaped. */
static int stdout_room(struct exec_run *r)
{
	size_t ncap;
	char *nb;

	if (r->cap - r->len >= 65536)
		return 0;
	ncap = r->cap ? r->cap * 2 : 65536 * 2;
	nb = kblob_grow_wiped(r->buf, r->len, ncap);
	if (!nb) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &r->status, 0);
		return -1;
	}
	r->buf = nb;
	r->cap = ncap;
	return 0;
}

/* stdout read to its end, stderr relayed meanwhile, the plugin killed at
 * the deadline (0: none).  -1 when out of memory. */
static int exec_read(struct exec_run *r, long long deadline)
{
	for (;;) {
		struct pollfd pfd[2] = {{r->outp[0], POLLIN, 0}, {r->stderrp[0], POLLIN, 0}};
		int wait_ms = -1, pr;
		char chunk[4096];
		ssize_t n;

		if (deadline) {
			long long left = deadline - now_ms();

			if (left <= 0) {
				r->timed_out = true;
				kill(r->pid, SIGKILL);
				return 0;
			}
			wait_ms = left > 60000 ? 60000 : (int)left;
		}
		pr = poll(pfd, r->stderrp[0] >= 0 ? 2 : 1, wait_ms);
		if ((pr < 0 && errno == EINTR) || pr == 0)
			continue;
		if (r->stderrp[0] >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			n = read(r->stderrp[0], chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				close_fd(&r->stderrp[0]);
			else
				relay_stderr(r, chunk, (size_t)n);
			if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
		}
		if (stdout_room(r) < 0)
			return -1;
		n = read(r->outp[0], r->buf + r->len, r->cap - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		r->len += (size_t)n;
	}
}

/* The rest of stderr, once stdout has ended, without waiting on a plugin
 * that keeps it open; then the plugin reaped. */
static void exec_finish(struct exec_run *r)
{
	while (r->stderrp[0] >= 0 && !r->timed_out) {
		struct pollfd pfd = {r->stderrp[0], POLLIN, 0};
		char chunk[4096];
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			break;
		n = read(r->stderrp[0], chunk, sizeof(chunk));
		if (n <= 0)
			break;
		relay_stderr(r, chunk, (size_t)n);
	}
	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
}

/* How the run ended, in kubectl's words; 0 with *out (NUL-terminated) what
 * the plugin wrote to stdout when it succeeded. */
static int exec_result(struct exec_run *r, const char *path, char **out, size_t *outlen, struct kerr *err)
{
	const struct kube_exec *x = r->x;
	char *t;

	if (r->child_errno == ENOENT)
		return not_found(x, err);
	if (r->child_errno) {
		t = errno_text(r->child_errno);
		kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec: fork/exec %s: %s", path, t ? t : "error");
		free(t);
		return -1;
	}
	if (r->timed_out)
		return kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec: executable %s timed out after %ld seconds",
				x->command, exec_timeout_seconds());
	if (WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0)
		return kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec: executable %s failed with exit code %d",
				x->command, WEXITSTATUS(r->status));
	if (WIFSIGNALED(r->status))
		return kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec: executable %s failed: signal %d",
				x->command, WTERMSIG(r->status));
	if (!r->buf && !(r->buf = calloc(1, 1)))
		return oom(err);
	r->buf[r->len] = '\0';
	*out = r->buf;
	*outlen = r->len;
	r->buf = NULL;
	return 0;
}

/* Run the plugin; *out gets everything it wrote to stdout. */
static int exec_spawn(const struct kube_config *cfg, const struct cred_cache *cache, char **out, size_t *outlen,
		      struct kerr *err)
{
	const struct kube_exec *x = cfg->exec;
	struct exec_run run;
	bool interactive;
	char *path, *info = NULL, **argv = NULL, **envp = NULL;
	size_t own = 0;
	int rc = -1;

	if (exec_interactive(x, &interactive, err) < 0)
		return -1;
	if (!(path = find_executable(x->command)))
		return not_found(x, err);
	exec_run_init(&run, x, cache);
	if (!(info = exec_info(cfg, interactive)) || exec_args(x, info, &argv, &envp, &own) < 0)
		oom(err);
	else if (exec_start(&run, path, argv, envp, interactive, err) == 0) {
		if (exec_read(&run, interactive ? 0 : now_ms() + exec_timeout_seconds() * 1000) < 0) {
			oom(err);
		} else {
			exec_finish(&run);
			rc = exec_result(&run, path, out, outlen, err);
		}
	}
	exec_run_release(&run);
	exec_env_wipe(envp, own);
	free(envp);
	free(argv);
	free(path);
	free(info);
	return rc;
}

static char *exec_key(const struct kube_exec *x)
{
	size_t n = strlen(x->command) + strlen(x->api_version) + 2;
	char *k, *p;

	for (size_t i = 0; x->args && x->args[i]; i++)
		n += strlen(x->args[i]) + 1;
	for (size_t i = 0; i < x->env.len; i++)
		n += strlen(x->env.items[i].key) + strlen(x->env.items[i].value) + 2;
	k = p = malloc(n + 1);
	if (!k)
		return NULL;
	p = stpcpy(p, x->command) + 1;
	p = stpcpy(p, x->api_version) + 1;
	for (size_t i = 0; x->args && x->args[i]; i++)
		p = stpcpy(p, x->args[i]) + 1;
	for (size_t i = 0; i < x->env.len; i++) {
		p = stpcpy(p, x->env.items[i].key) + 1;
		p = stpcpy(p, x->env.items[i].value) + 1;
	}
	*p = '\0';
	return k;
}

static bool key_equal(const char *a, const char *b)
{
	/* keys are runs of NUL-terminated strings ending in an empty one */
	for (;;) {
		size_t la = strlen(a), lb = strlen(b);

		if (la != lb || memcmp(a, b, la) != 0)
			return false;
		if (la == 0)
			return true;
		a += la + 1;
		b += lb + 1;
	}
}

int exec_get(const struct kube_config *cfg, struct cred_cache *cache, bool force,
		    struct kube_credential *ret, struct kerr *err)
{
	const struct kube_exec *x = cfg->exec;
	char *key, *out = NULL;
	size_t len = 0;
	struct kube_credential fresh;

	if (!x->command || !x->api_version)
		return kerr_set(err, KERR_CONFIG, "exec plugin: command and apiVersion must be set");
	key = exec_key(x);
	if (!key)
		return oom(err);
	if (cache && cache->valid && cache->key && key_equal(cache->key, key) &&
	    (cache->cred.expires == 0 || (long long)time(NULL) < cache->cred.expires) &&
	    (!force || (cache->fetched_forced && now_ms() - cache->fetched_ms < FORCE_REUSE_MS))) {
		free(key);
		return cred_copy(ret, &cache->cred) < 0 ? oom(err) : 0;
	}
	if (exec_spawn(cfg, cache, &out, &len, err) < 0) {
		free(key);
		return -1;
	}
	if (exec_credential_decode(x, out, len, &fresh, err) < 0) {
		explicit_bzero(out, len);
		free(out);
		free(key);
		return -1;
	}
	explicit_bzero(out, len);
	free(out);
	if (cred_copy(ret, &fresh) < 0) {
		kube_credential_release(&fresh);
		free(key);
		return oom(err);
	}
	if (cache) {
		kube_credential_release(&cache->cred);
		free(cache->key);
		cache->cred = fresh;
		cache->key = key;
		cache->valid = true;
		cache->fetched_ms = now_ms();
		cache->fetched_forced = force;
	} else {
		kube_credential_release(&fresh);
		free(key);
	}
	return 0;
}
