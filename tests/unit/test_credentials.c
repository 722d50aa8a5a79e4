#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "kubeconfig.h"

#define FX FIXTURES_DIR "/kubeconfig/"
#define PLUGIN FIXTURES_DIR "/kubeconfig/exec/fake-credential-plugin.py"

static char tmpdir[] = "/tmp/cgpu-credentials-XXXXXX";
static char *record;

/* The fake plugin appends one JSON line per run to $FAKE_RECORD; stdin is
 * /dev/null so that "is it a terminal" has one answer. */
static void setup(void)
{
	int fd;

	cr_assert_not_null(mkdtemp(tmpdir));
	cr_assert(asprintf(&record, "%s/record.jsonl", tmpdir) > 0);
	setenv("FAKE_RECORD", record, 1);
	setenv("HOME", tmpdir, 1);
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("FAKE_MODE");
	unsetenv("KUBE_EXEC_TIMEOUT");
	fd = open("/dev/null", O_RDONLY);
	cr_assert(fd >= 0);
	dup2(fd, STDIN_FILENO);
	close(fd);
}

static void teardown(void)
{
	char *cmd = NULL;

	cr_assert(asprintf(&cmd, "rm -rf '%s'", tmpdir) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	free(record);
}

TestSuite(credentials, .init = setup, .fini = teardown);

static void load(const char *file, const char *context, struct kube_config *c)
{
	struct kube_overrides ov = {.kubeconfig = file, .context = context};
	struct kerr err = KERR_INIT;

	cr_assert_eq(kubeconfig_load(&ov, c, &err), 0, "load: %s", err.message);
}

static void get_ok(const struct kube_config *c, struct cred_cache *cache, bool force, struct kube_credential *ret)
{
	struct kerr err = KERR_INIT;

	cr_assert_eq(kube_credential_get(c, cache, force, ret, &err), 0, "get: %s", err.message);
	cr_assert_eq(err.kind, KERR_NONE);
}

static char *get_err(const struct kube_config *c, struct cred_cache *cache, enum kerr_kind kind)
{
	struct kerr err = KERR_INIT;
	struct kube_credential cred;
	char *m;

	cr_assert_eq(kube_credential_get(c, cache, false, &cred, &err), -1, "get succeeded");
	cr_assert_eq(err.kind, kind, "kind %d: %s", err.kind, err.message);
	cr_assert_not_null(err.message);
	cr_assert_null(strchr(err.message, '\n'));
	m = strdup(err.message);
	kerr_release(&err);
	return m;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* The plugin runs recorded so far, as JSON objects (decref the array). */
static json_t *runs(void)
{
	json_t *a = json_array();
	FILE *f = fopen(record, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return a;
	while (getline(&line, &cap, f) > 0) {
		json_error_t e;
		json_t *o = json_loads(line, 0, &e);

		cr_assert_not_null(o, "bad record line: %s", e.text);
		json_array_append_new(a, o);
	}
	free(line);
	fclose(f);
	return a;
}

static size_t nruns(void)
{
	json_t *a = runs();
	size_t n = json_array_size(a);

	json_decref(a);
	return n;
}

Test(credentials, static_token)
{
	struct kube_config c;
	struct kube_credential cred;

	load(FX "basic.yaml", "prod-token", &c);
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "static-token"); /* wins over tokenFile */
	cr_assert_eq(cred.expires, 0);
	cr_assert_eq(cred.client_cert.len, 0);
	kube_credential_release(&cred);
	kube_credential_release(&cred);
	kube_config_release(&c);
}

Test(credentials, token_file_rotates)
{
	struct kube_config c;
	struct kube_credential cred;
	char *tok = NULL;

	memset(&c, 0, sizeof(c));
	cr_assert(asprintf(&tok, "%s/token", tmpdir) > 0);
	c.server = strdup("https://x.example");
	c.token_file = tok;
	write_file(tok, "first-token\n");
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "first-token");
	kube_credential_release(&cred);
	write_file(tok, "  second-token \n");
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "second-token");
	kube_credential_release(&cred);

	write_file(tok, "\n");
	{
		char *m = get_err(&c, NULL, KERR_CREDENTIALS), *want = NULL;

		cr_assert(asprintf(&want, "getting credentials: read empty token from file \"%s\"", tok) > 0);
		cr_assert_str_eq(m, want);
		free(want);
		free(m);
	}
	unlink(tok);
	{
		char *m = get_err(&c, NULL, KERR_CREDENTIALS);

		cr_assert(strstr(m, "no such file or directory"), "%s", m);
		free(m);
	}
	write_file(tok, "line1\nline2\n");
	{
		char *m = get_err(&c, NULL, KERR_CREDENTIALS);

		cr_assert_null(strstr(m, "line1"), "the token leaked: %s", m);
		free(m);
	}
	kube_config_release(&c);
}

Test(credentials, token_file_from_kubeconfig)
{
	struct kube_config c;
	struct kube_credential cred;

	load(FX "basic.yaml", "prod-file", &c);
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "token-from-file");
	kube_credential_release(&cred);
	kube_config_release(&c);
}

Test(credentials, big_token_file)
{
	struct kube_config c = {0};
	struct kube_credential cred;
	size_t n = 1 << 20;
	char *big = malloc(n + 2);

	memset(big, 'z', n);
	big[n] = '\n';
	big[n + 1] = '\0';
	cr_assert(asprintf(&c.token_file, "%s/token", tmpdir) > 0);
	write_file(c.token_file, big);
	get_ok(&c, NULL, false, &cred);
	cr_assert_eq(strlen(cred.token), n);
	kube_credential_release(&cred);
	kube_config_release(&c);
	free(big);
}

Test(credentials, cert_and_basic_auth_need_nothing)
{
	struct kube_config c;
	struct kube_credential cred;

	load(FX "basic.yaml", "prod-basic", &c);
	get_ok(&c, NULL, false, &cred);
	cr_assert_null(cred.token);
	cr_assert_eq(cred.client_cert.len, 0);
	kube_config_release(&c);

	/* a client certificate in the config wins over the exec plugin */
	load(FX "exec.yaml", "exec-and-cert", &c);
	get_ok(&c, NULL, false, &cred);
	cr_assert_null(cred.token);
	cr_assert_eq(nruns(), 0);
	kube_config_release(&c);
}

Test(credentials, auth_providers)
{
	/* the providers client-go no longer has, and an OIDC one without a token */
	static const struct {
		const char *context;
		enum kerr_kind kind;
		const char *start; /* the message starts with it */
		const char *part;  /* ...and holds it; NULL: it is all of the message */
	} refused[] = {
		{"oidc-noid", KERR_CREDENTIALS, "", "id-token"},
		{"gcp", KERR_CONFIG, "The gcp auth plugin has been removed.", "\"gke-gcloud-auth-plugin\""},
		{"azure", KERR_CONFIG, "The azure auth plugin has been removed.", "kubelogin"},
		{"other", KERR_CONFIG, "no Auth Provider found for name \"mystery\"", NULL},
	};
	struct kube_config c;
	struct kube_credential cred;

	load(FX "providers.yaml", "oidc", &c);
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "eyJhbGciOiJSUzI1NiJ9.oidc.token");
	kube_credential_release(&cred);
	kube_config_release(&c);

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char *m;

		load(FX "providers.yaml", refused[i].context, &c);
		m = get_err(&c, NULL, refused[i].kind);
		cr_assert(strncmp(m, refused[i].start, strlen(refused[i].start)) == 0, "%s: %s", refused[i].context, m);
		if (refused[i].part)
			cr_assert(strstr(m, refused[i].part), "%s: %s", refused[i].context, m);
		else
			cr_assert_str_eq(m, refused[i].start);
		free(m);
		kube_config_release(&c);
	}
}

Test(credentials, exec_v1_token_argv_env_and_cluster_info)
{
	struct kube_config c;
	struct kube_credential cred;
	struct cred_cache *cache = cred_cache_new();
	json_t *a, *r, *info, *cl, *args;

	setenv("FAKE_MODE", "cert", 1); /* the kubeconfig's env entries win */
	load(FX "exec.yaml", "v1", &c);
	get_ok(&c, cache, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-1");
	cr_assert_eq(cred.expires, 0);
	kube_credential_release(&cred);

	a = runs();
	cr_assert_eq(json_array_size(a), 1);
	r = json_array_get(a, 0);
	args = json_object_get(r, "argv");
	cr_assert_eq(json_array_size(args), 3);
	cr_assert_str_eq(json_string_value(json_array_get(args, 0)), "--first");
	cr_assert_str_eq(json_string_value(json_array_get(args, 1)), "two words");
	cr_assert_str_eq(json_string_value(json_array_get(args, 2)), "$HOME;rm -rf /");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "env"), "FAKE_MODE")), "token");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "env"), "FAKE_EXTRA")), "x=y");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "env"), "FAKE_RECORD")), record);
	cr_assert_str_eq(json_string_value(json_object_get(r, "stdin")), "/dev/null");

	info = json_loads(json_string_value(json_object_get(r, "exec_info")), 0, NULL);
	cr_assert_not_null(info);
	cr_assert_str_eq(json_string_value(json_object_get(info, "apiVersion")), "client.authentication.k8s.io/v1");
	cr_assert_str_eq(json_string_value(json_object_get(info, "kind")), "ExecCredential");
	cr_assert(json_is_false(json_object_get(json_object_get(info, "spec"), "interactive")));
	cl = json_object_get(json_object_get(info, "spec"), "cluster");
	cr_assert_not_null(cl);
	cr_assert_str_eq(json_string_value(json_object_get(cl, "server")), "https://exec.example:6443");
	cr_assert_str_eq(json_string_value(json_object_get(cl, "tls-server-name")), "exec.internal");
	cr_assert_str_eq(json_string_value(json_object_get(cl, "certificate-authority-data")),
			 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBREFUQQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==");
	cr_assert_null(json_object_get(cl, "insecure-skip-tls-verify"));
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(cl, "config"), "audience")), "gpu");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(cl, "config"), "retries")), 3);
	json_decref(info);
	json_decref(a);

	/* no expiry: cached until forced (as after a 401) */
	get_ok(&c, cache, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-1");
	kube_credential_release(&cred);
	cr_assert_eq(nruns(), 1);
	get_ok(&c, cache, true, &cred);
	cr_assert_str_eq(cred.token, "token-run-2");
	kube_credential_release(&cred);
	cr_assert_eq(nruns(), 2);
	/* requests failing together right after a forced run share its result */
	get_ok(&c, cache, true, &cred);
	cr_assert_str_eq(cred.token, "token-run-2");
	cr_assert_eq(nruns(), 2);
	kube_credential_release(&cred);
	sleep(3);
	get_ok(&c, cache, true, &cred);
	cr_assert_eq(nruns(), 3);
	cr_assert_str_eq(cred.token, "token-run-3");
	kube_credential_release(&cred);
	get_ok(&c, cache, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-3");
	kube_credential_release(&cred);
	cr_assert_eq(nruns(), 3);

	/* without a cache it runs every time */
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-4");
	kube_credential_release(&cred);
	cred_cache_free(cache);
	cred_cache_free(NULL);
	kube_config_release(&c);
}

Test(credentials, exec_v1beta1_without_cluster_info)
{
	struct kube_config c;
	struct kube_credential cred;
	json_t *a, *info;

	setenv("FAKE_MODE", "cert", 1);
	load(FX "exec.yaml", "v1beta1", &c);
	get_ok(&c, NULL, false, &cred);
	cr_assert_null(cred.token);
	cr_assert(cred.client_cert.len > 0 && strstr((char *)cred.client_cert.data, "BEGIN CERTIFICATE"));
	cr_assert(cred.client_key.len > 0 && strstr((char *)cred.client_key.data, "BEGIN PRIVATE KEY"));
	kube_credential_release(&cred);
	a = runs();
	info = json_loads(json_string_value(json_object_get(json_array_get(a, 0), "exec_info")), 0, NULL);
	cr_assert_str_eq(json_string_value(json_object_get(info, "apiVersion")),
			 "client.authentication.k8s.io/v1beta1");
	cr_assert_null(json_object_get(json_object_get(info, "spec"), "cluster"));
	/* IfAvailable with stdin not a terminal: not interactive */
	cr_assert(json_is_false(json_object_get(json_object_get(info, "spec"), "interactive")));
	json_decref(info);
	json_decref(a);
	kube_config_release(&c);
}

Test(credentials, exec_expiry)
{
	struct kube_config c;
	struct kube_credential cred;
	struct cred_cache *cache = cred_cache_new();
	long long now;

	setenv("FAKE_MODE", "expiring", 1);
	load(FX "exec.yaml", "v1beta1", &c);
	now = time(NULL);
	get_ok(&c, cache, false, &cred);
	cr_assert(cred.expires >= now + 3590 && cred.expires <= time(NULL) + 3610, "expires %lld", cred.expires);
	kube_credential_release(&cred);
	get_ok(&c, cache, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-1");
	kube_credential_release(&cred);
	cr_assert_eq(nruns(), 1);
	cred_cache_free(cache);

	/* an expired credential is fetched again on every use */
	cache = cred_cache_new();
	setenv("FAKE_MODE", "expired", 1);
	get_ok(&c, cache, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-2");
	kube_credential_release(&cred);
	get_ok(&c, cache, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-3");
	kube_credential_release(&cred);
	cred_cache_free(cache);

	/* a UTC offset */
	setenv("FAKE_MODE", "expiring-offset", 1);
	now = time(NULL);
	get_ok(&c, NULL, false, &cred);
	cr_assert(cred.expires >= now + 3590 && cred.expires <= time(NULL) + 3610, "expires %lld", cred.expires);
	kube_credential_release(&cred);
	kube_config_release(&c);
}

Test(credentials, exec_missing_binary_with_install_hint)
{
	struct kube_config c;
	char *m;

	load(FX "exec.yaml", "missing", &c);
	m = get_err(&c, NULL, KERR_CREDENTIALS);
	cr_assert(strncmp(m, "getting credentials: exec: executable no-such-credential-plugin not found", 73) == 0,
		  "%s", m);
	cr_assert(strstr(m, "no-such-credential-plugin is needed to log in. Install it with: apt install "
			    "no-such-credential-plugin"),
		  "%s", m);
	free(m);
	kube_config_release(&c);
}

Test(credentials, exec_failures)
{
	static const struct {
		const char *mode, *want;
	} cases[] = {
		{"fail", "getting credentials: exec: executable " PLUGIN " failed with exit code 3"},
		{"wrong-api", "getting credentials: exec plugin is configured to use API version "
			      "client.authentication.k8s.io/v1beta1, plugin returned version client.authentication.k8s.io/v1"},
		{"nostatus", "getting credentials: exec plugin didn't return a status field"},
		{"certonly", "getting credentials: exec plugin returned only certificateData or keyData"},
		{"bad-time", "getting credentials: decoding stdout: status.expirationTimestamp is not an RFC 3339 time"},
		{"not-object", "getting credentials: decoding stdout: expected an ExecCredential object"},
		{"no-kind", "getting credentials: decoding stdout: couldn't get version/kind: apiVersion and kind must be set"},
		{"wrong-kind", "getting credentials: decoding stdout: no kind \"Pod\" is registered for version "
			       "\"client.authentication.k8s.io/v1beta1\""},
		{"status-list", "getting credentials: decoding stdout: status is not an object"},
		{"token-number", "getting credentials: decoding stdout: status.token is not a string"},
		{"empty-status", "getting credentials: exec plugin didn't return a token or cert/key pair"},
		{"ctrl", "getting credentials: the token from exec plugin " PLUGIN
			 " holds characters not allowed in an HTTP header"},
		{"signal", "getting credentials: exec: executable " PLUGIN " failed: signal 15"},
		{"garbage", "getting credentials: decoding stdout: '[' or '{' expected at line 1 column 4"},
	};
	struct kube_config c;

	load(FX "exec.yaml", "v1beta1", &c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *m;

		setenv("FAKE_MODE", cases[i].mode, 1);
		m = get_err(&c, NULL, KERR_CREDENTIALS);
		cr_expect_str_eq(m, cases[i].want, "mode %s", cases[i].mode);
		free(m);
	}
	kube_config_release(&c);
}

Test(credentials, exec_garbage_output)
{
	struct kube_config c;
	struct cred_cache *cache = cred_cache_new();
	char *m;

	setenv("FAKE_MODE", "garbage", 1);
	load(FX "exec.yaml", "v1beta1", &c);
	m = get_err(&c, cache, KERR_CREDENTIALS);
	cr_assert(strncmp(m, "getting credentials: decoding stdout: ", 38) == 0, "%s", m);
	cr_assert_null(strstr(m, "secret-value"), "output leaked into the error: %s", m);
	free(m);
	/* nothing was cached: the next call runs it again */
	setenv("FAKE_MODE", "token", 1);
	{
		struct kube_credential cred;

		get_ok(&c, cache, false, &cred);
		cr_assert_str_eq(cred.token, "token-run-2");
		kube_credential_release(&cred);
	}
	cred_cache_free(cache);
	kube_config_release(&c);
}

Test(credentials, exec_interactive_always_without_terminal)
{
	struct kube_config c;
	char *m;

	load(FX "exec.yaml", "always", &c);
	m = get_err(&c, NULL, KERR_CREDENTIALS);
	cr_assert_str_eq(m, "getting credentials: exec plugin cannot support interactive mode: standard input is not a "
			    "terminal");
	free(m);
	cr_assert_eq(nruns(), 0);
	kube_config_release(&c);
}

Test(credentials, exec_found_in_path)
{
	struct kube_config c;
	struct kube_credential cred;
	char *path = NULL;

	cr_assert(asprintf(&path, "/nonexistent::%s/kubeconfig/exec:%s", FIXTURES_DIR, getenv("PATH")) > 0);
	setenv("PATH", path, 1);
	load(FX "exec.yaml", "path-lookup", &c);
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "token-run-1");
	kube_credential_release(&cred);
	kube_config_release(&c);
	free(path);
}

Test(credentials, exec_big_and_odd_tokens)
{
	struct kube_config c;
	struct kube_credential cred;
	char *m;

	load(FX "exec.yaml", "v1beta1", &c);
	setenv("FAKE_MODE", "big", 1);
	get_ok(&c, NULL, false, &cred);
	cr_assert_eq(strlen(cred.token), (size_t)1 << 20);
	cr_assert_eq(strspn(cred.token, "b"), (size_t)1 << 20);
	kube_credential_release(&cred);

	setenv("FAKE_MODE", "odd", 1);
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "t\xc3\xa9st~!#$%&'*+-.^_`|");
	kube_credential_release(&cred);

	setenv("FAKE_MODE", "ctrl", 1);
	m = get_err(&c, NULL, KERR_CREDENTIALS);
	cr_assert_null(strstr(m, "bad"), "the token leaked: %s", m);
	free(m);
	kube_config_release(&c);
}

Test(credentials, static_token_with_control_characters)
{
	struct kube_config c = {0};
	char *m;

	c.token = strdup("abc\ndef");
	c.user_name = strdup("u");
	m = get_err(&c, NULL, KERR_CONFIG);
	cr_assert_null(strstr(m, "abc"), "%s", m);
	free(m);
	kube_config_release(&c);
}

Test(credentials, exec_timeout)
{
	struct kube_config c;
	time_t t0 = time(NULL);
	char *m;

	setenv("KUBE_EXEC_TIMEOUT", "1", 1);
	setenv("FAKE_MODE", "sleep", 1);
	load(FX "exec.yaml", "v1beta1", &c);
	m = get_err(&c, NULL, KERR_CREDENTIALS);
	cr_assert_str_eq(m, "getting credentials: exec: executable " PLUGIN " timed out after 1 seconds");
	cr_assert(time(NULL) - t0 < 10);
	free(m);
	kube_config_release(&c);
}

Test(credentials, exec_not_executable)
{
	struct kube_config c;
	char *m, *plain = NULL;

	load(FX "exec.yaml", "v1beta1", &c);
	cr_assert(asprintf(&plain, "%s/plain-file", tmpdir) > 0);
	write_file(plain, "#!/bin/sh\n");
	chmod(plain, 0644);
	free(c.exec->command);
	c.exec->command = plain;
	m = get_err(&c, NULL, KERR_CREDENTIALS);
	cr_assert(strstr(m, "permission denied"), "%s", m);
	free(m);
	kube_config_release(&c);
}

Test(credentials, exec_interactive_with_terminal)
{
	struct kube_config c;
	struct kube_credential cred;
	json_t *a, *info;
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave;
	char *name;

	cr_assert(master >= 0);
	cr_assert_eq(grantpt(master), 0);
	cr_assert_eq(unlockpt(master), 0);
	name = ptsname(master);
	cr_assert_not_null(name);
	slave = open(name, O_RDWR | O_NOCTTY);
	cr_assert(slave >= 0);
	dup2(slave, STDIN_FILENO);
	close(slave);

	/* Always with a terminal: runs, with the terminal as its stdin */
	load(FX "exec.yaml", "always", &c);
	get_ok(&c, NULL, false, &cred);
	kube_credential_release(&cred);
	kube_config_release(&c);
	a = runs();
	cr_assert_eq(json_array_size(a), 1);
	cr_assert(strncmp(json_string_value(json_object_get(json_array_get(a, 0), "stdin")), "/dev/pts/", 9) == 0);
	info = json_loads(json_string_value(json_object_get(json_array_get(a, 0), "exec_info")), 0, NULL);
	cr_assert(json_is_true(json_object_get(json_object_get(info, "spec"), "interactive")));
	json_decref(info);
	json_decref(a);

	/* Never: /dev/null even with a terminal */
	load(FX "exec.yaml", "v1", &c);
	get_ok(&c, NULL, false, &cred);
	kube_credential_release(&cred);
	kube_config_release(&c);
	a = runs();
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 1), "stdin")), "/dev/null");
	json_decref(a);
	close(master);
}

Test(credentials, in_cluster_token_rotates)
{
	struct kube_overrides ov = {0};
	struct kube_config c;
	struct kube_credential cred;
	struct kerr err = KERR_INIT;
	char *tok = NULL;

	cr_assert(asprintf(&tok, "%s/token", tmpdir) > 0);
	write_file(tok, "sa-token-1");
	setenv("KUBE_SERVICEACCOUNT_DIR", tmpdir, 1);
	setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
	cr_assert_eq(kubeconfig_load(&ov, &c, &err), 0, "%s", err.message);
	cr_assert(c.in_cluster);
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "sa-token-1");
	kube_credential_release(&cred);
	write_file(tok, "sa-token-2\n");
	get_ok(&c, NULL, false, &cred);
	cr_assert_str_eq(cred.token, "sa-token-2");
	kube_credential_release(&cred);
	kube_config_release(&c);
	free(tok);
}
