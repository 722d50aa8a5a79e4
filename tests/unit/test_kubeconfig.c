#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kubeconfig.h"

#define FX FIXTURES_DIR "/kubeconfig/"

static char tmpdir[] = "/tmp/cgpu-kubeconfig-XXXXXX";

/* Every test starts with no kubeconfig around it and an empty HOME. */
static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	setenv("HOME", tmpdir, 1);
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("KUBERNETES_MASTER");
	unsetenv("POD_NAMESPACE");
	setenv("KUBE_SERVICEACCOUNT_DIR", "/nonexistent/serviceaccount", 1);
}

static void teardown(void)
{
	char *cmd = NULL;

	cr_assert(asprintf(&cmd, "rm -rf '%s'", tmpdir) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
}

TestSuite(kubeconfig, .init = setup, .fini = teardown);

static char *tmp_path(const char *name)
{
	char *p = NULL;

	cr_assert(asprintf(&p, "%s/%s", tmpdir, name) > 0);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	cr_assert_not_null(f, "cannot read %s", path);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

static void assert_blob_is_file(const struct kblob *b, const char *path)
{
	char *want = slurp(path);

	cr_assert_eq(b->len, strlen(want), "blob of %zu bytes, %s has %zu", b->len, path, strlen(want));
	cr_assert(memcmp(b->data, want, b->len) == 0, "blob differs from %s", path);
	free(want);
}

static void load_ok(const struct kube_overrides *ov, struct kube_config *c)
{
	struct kerr err = KERR_INIT;
	int rc = kubeconfig_load(ov, c, &err);

	cr_assert_eq(rc, 0, "load failed: %s", err.message ? err.message : "?");
	cr_assert_eq(err.kind, KERR_NONE);
	kerr_release(&err);
}

/* Load expecting failure; returns the message (free it). */
static char *load_err(const struct kube_overrides *ov, enum kerr_kind kind)
{
	struct kerr err = KERR_INIT;
	struct kube_config c;
	char *msg;

	memset(&c, 0x5a, sizeof(c));
	cr_assert_eq(kubeconfig_load(ov, &c, &err), -1, "load succeeded");
	cr_assert_eq(err.kind, kind, "kind %d, message %s", err.kind, err.message);
	cr_assert_not_null(err.message);
	cr_assert_null(strchr(err.message, '\n'));
	msg = strdup(err.message);
	kerr_release(&err);
	/* on failure the result is untouched */
	cr_assert_eq(((unsigned char *)&c)[0], 0x5a);
	return msg;
}

Test(kubeconfig, basic_current_context)
{
	struct kube_overrides ov = {.kubeconfig = FX "basic.yaml"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.context_name, "prod");
	cr_assert_str_eq(c.cluster_name, "prod");
	cr_assert_str_eq(c.user_name, "alice");
	cr_assert_str_eq(c.namespace, "gpu-team");
	cr_assert(c.namespace_explicit);
	cr_assert_str_eq(c.server, "https://10.0.0.1:6443");
	cr_assert_str_eq(c.tls_server_name, "api.prod.example");
	cr_assert_not(c.insecure_skip_tls_verify);
	cr_assert_not(c.in_cluster);
	assert_blob_is_file(&c.ca, FX "certs/ca.pem");
	assert_blob_is_file(&c.client_cert, FX "certs/client.pem");
	assert_blob_is_file(&c.client_key, FX "certs/client-key.pem");
	cr_assert_null(c.token);
	cr_assert_null(c.token_file);
	cr_assert_null(c.exec);
	cr_assert_str_eq(c.impersonate_user, "bob");
	cr_assert_str_eq(c.impersonate_uid, "1234");
	cr_assert_not_null(c.impersonate_groups);
	cr_assert_str_eq(c.impersonate_groups[0], "devs");
	cr_assert_str_eq(c.impersonate_groups[1], "ops");
	cr_assert_null(c.impersonate_groups[2]);
	cr_assert_eq(c.impersonate_extra.len, 3);
	cr_assert_str_eq(c.impersonate_extra.items[0].key, "scopes");
	cr_assert_str_eq(c.impersonate_extra.items[0].value, "view");
	cr_assert_str_eq(c.impersonate_extra.items[1].value, "edit");
	cr_assert_str_eq(c.impersonate_extra.items[2].key, "team");
	kube_config_release(&c);
	kube_config_release(&c); /* released twice: still fine */
}

Test(kubeconfig, token_and_token_file_and_basic)
{
	struct kube_overrides ov = {.kubeconfig = FX "basic.yaml", .context = "prod-token"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.token, "static-token");
	cr_assert_str_eq(c.token_file, FIXTURES_DIR "/kubeconfig/certs/token");
	cr_assert_str_eq(c.namespace, "default");
	cr_assert_not(c.namespace_explicit);
	kube_config_release(&c);

	ov.context = "prod-basic";
	load_ok(&ov, &c);
	cr_assert_str_eq(c.username, "admin");
	cr_assert_str_eq(c.password, "secret");
	cr_assert_null(c.token);
	kube_config_release(&c);
}

Test(kubeconfig, explicit_file_missing)
{
	struct kube_overrides ov = {.kubeconfig = "/no/such/kubeconfig"};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert_str_eq(m, "stat /no/such/kubeconfig: no such file or directory");
	free(m);
}

Test(kubeconfig, explicit_file_is_a_directory)
{
	struct kube_overrides ov = {.kubeconfig = tmpdir};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert(strstr(m, "error loading config file") && strstr(m, "is a directory"), "%s", m);
	free(m);
}

Test(kubeconfig, kubeconfig_env_first_file_wins)
{
	struct kube_overrides ov = {0};
	struct kube_config c;

	/* empty entries, a missing file and a duplicate are all dropped */
	setenv("KUBECONFIG",
	       FX "merge-a.yaml:/nonexistent/config::" FX "sub/merge-b.yaml:" FX "merge-a.yaml:", 1);
	load_ok(&ov, &c);
	cr_assert_str_eq(c.context_name, "shared-ctx"); /* current-context of the first file */
	cr_assert_str_eq(c.cluster_name, "shared");     /* the context entry of the first file */
	cr_assert_str_eq(c.namespace, "ns-a");
	cr_assert_str_eq(c.server, "https://a.example:6443"); /* the cluster entry of the first file, whole */
	cr_assert_not(c.insecure_skip_tls_verify);
	assert_blob_is_file(&c.ca, FX "certs/ca.pem");
	cr_assert_str_eq(c.token, "token-a"); /* the user entry of the first file */
	kube_config_release(&c);

	/* names only the second file defines are still there */
	ov.context = "ctx-b";
	load_ok(&ov, &c);
	cr_assert_str_eq(c.cluster_name, "only-b");
	cr_assert_str_eq(c.server, "https://only-b.example");
	cr_assert_str_eq(c.user_name, "only-b-user");
	kube_config_release(&c);
}

Test(kubeconfig, current_context_from_first_file_setting_it)
{
	struct kube_overrides ov = {0};
	struct kube_config c;

	setenv("KUBECONFIG", FX "merge-c.yaml:" FX "sub/merge-b.yaml", 1);
	load_ok(&ov, &c);
	cr_assert_str_eq(c.context_name, "ctx-b");
	kube_config_release(&c);
}

Test(kubeconfig, relative_paths_against_defining_file)
{
	struct kube_overrides ov = {.context = "ctx-b"};
	struct kube_config c;

	setenv("KUBECONFIG", FX "merge-a.yaml:" FX "sub/merge-b.yaml", 1);
	/* a different working directory must not matter */
	cr_assert_eq(chdir(tmpdir), 0);
	load_ok(&ov, &c);
	assert_blob_is_file(&c.ca, FX "sub/ca-b.pem");
	cr_assert_str_eq(c.token_file, FIXTURES_DIR "/kubeconfig/certs/token");
	kube_config_release(&c);
}

Test(kubeconfig, relative_kubeconfig_path)
{
	struct kube_overrides ov = {.kubeconfig = "sub/../basic.yaml"};
	struct kube_config c;

	cr_assert_eq(chdir(FX), 0);
	load_ok(&ov, &c);
	assert_blob_is_file(&c.ca, FX "certs/ca.pem");
	kube_config_release(&c);
}

Test(kubeconfig, all_kubeconfig_files_missing)
{
	struct kube_overrides ov = {0};
	struct kube_config c;

	setenv("KUBECONFIG", "/nonexistent/a:/nonexistent/b", 1);
	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://localhost:8080");
	cr_assert_null(c.context_name);
	cr_assert_null(c.cluster_name);
	cr_assert_null(c.user_name);
	cr_assert_str_eq(c.namespace, "default");
	cr_assert_not(c.in_cluster);
	kube_config_release(&c);
}

Test(kubeconfig, no_config_at_all)
{
	struct kube_overrides ov = {0};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://localhost:8080");
	kube_config_release(&c);
	setenv("KUBERNETES_MASTER", "http://127.0.0.1:9999", 1);
	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://127.0.0.1:9999");
	kube_config_release(&c);
}

Test(kubeconfig, home_kube_config)
{
	struct kube_overrides ov = {0};
	struct kube_config c;
	char *dir = tmp_path(".kube"), *file = tmp_path(".kube/config");

	cr_assert_eq(mkdir(dir, 0700), 0);
	write_file(file, "apiVersion: v1\nclusters:\n- name: home\n  cluster: {server: 'https://home.example'}\n"
			 "contexts:\n- name: home\n  context: {cluster: home, namespace: from-home}\n"
			 "current-context: home\n");
	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "https://home.example");
	cr_assert_str_eq(c.namespace, "from-home");
	kube_config_release(&c);
	/* KUBECONFIG replaces ~/.kube/config */
	setenv("KUBECONFIG", FX "nocurrent.yaml", 1);
	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://localhost:8080");
	kube_config_release(&c);
	free(dir);
	free(file);
}

Test(kubeconfig, empty_file_is_empty_config)
{
	struct kube_overrides ov = {.kubeconfig = FX "empty.yaml"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://localhost:8080");
	kube_config_release(&c);
}

Test(kubeconfig, selection_overrides)
{
	struct kube_overrides ov = {.kubeconfig = FX "basic.yaml", .context = "prod-token", .user = "alice",
				    .namespace = "other"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.context_name, "prod-token");
	cr_assert_str_eq(c.user_name, "alice");
	cr_assert_null(c.token);
	cr_assert_eq(c.client_cert.len > 0, true);
	cr_assert_str_eq(c.namespace, "other");
	cr_assert(c.namespace_explicit);
	kube_config_release(&c);

	ov = (struct kube_overrides){.kubeconfig = FX "merge-a.yaml", .cluster = "only-a"};
	load_ok(&ov, &c);
	cr_assert_str_eq(c.context_name, "shared-ctx");
	cr_assert_str_eq(c.cluster_name, "only-a");
	cr_assert_str_eq(c.server, "https://only-a.example");
	cr_assert_eq(c.ca.len, 0);
	cr_assert_str_eq(c.namespace, "ns-a");
	kube_config_release(&c);
}

Test(kubeconfig, unknown_names)
{
	struct kube_overrides ov = {.kubeconfig = FX "basic.yaml", .context = "nope"};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert_str_eq(m, "context was not found for specified context: nope");
	free(m);
	ov = (struct kube_overrides){.kubeconfig = FX "basic.yaml", .user = "nope"};
	m = load_err(&ov, KERR_CONFIG);
	cr_assert_str_eq(m, "auth info \"nope\" does not exist");
	free(m);
	ov = (struct kube_overrides){.kubeconfig = FX "basic.yaml", .context = "prod-token", .cluster = "nope"};
	m = load_err(&ov, KERR_CONFIG);
	cr_assert_str_eq(m, "no server found for cluster \"nope\"");
	free(m);
	/* a current-context naming nothing is reported the same way */
	ov = (struct kube_overrides){.kubeconfig = tmp_path("cc.yaml")};
	write_file(ov.kubeconfig, "current-context: zz\n");
	m = load_err(&ov, KERR_CONFIG);
	cr_assert_str_eq(m, "context was not found for specified context: zz");
	free(m);
	free((char *)ov.kubeconfig);
}

Test(kubeconfig, context_naming_missing_entries_uses_defaults)
{
	/* kubectl: a context whose cluster is not defined talks to localhost:8080 */
	struct kube_overrides ov = {.kubeconfig = FX "basic.yaml", .context = "dangling"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://localhost:8080");
	cr_assert_str_eq(c.cluster_name, "nowhere");
	cr_assert_str_eq(c.user_name, "nobody");
	cr_assert_null(c.token);
	kube_config_release(&c);
}

Test(kubeconfig, flag_overrides)
{
	const char *groups[] = {"g1", "g2", NULL};
	struct kube_overrides ov = {
		.kubeconfig = FX "basic.yaml",
		.context = "prod-token",
		.server = "https://override.example:443",
		.token = "flag-token",
		.client_certificate = FX "certs/client.pem",
		.client_key = FX "certs/client-key.pem",
		.certificate_authority = FX "sub/ca-b.pem",
		.as = "carol",
		.as_uid = "42",
		.as_groups = groups,
		.disable_compression = true,
	};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "https://override.example:443");
	cr_assert_null(c.tls_server_name, "--server drops the config's tls-server-name");
	cr_assert_str_eq(c.token, "flag-token");
	cr_assert_null(c.token_file);
	assert_blob_is_file(&c.client_cert, FX "certs/client.pem");
	assert_blob_is_file(&c.client_key, FX "certs/client-key.pem");
	assert_blob_is_file(&c.ca, FX "sub/ca-b.pem");
	cr_assert_str_eq(c.impersonate_user, "carol");
	cr_assert_str_eq(c.impersonate_uid, "42");
	cr_assert_str_eq(c.impersonate_groups[0], "g1");
	cr_assert_str_eq(c.impersonate_groups[1], "g2");
	cr_assert_null(c.impersonate_groups[2]);
	cr_assert(c.disable_compression);
	kube_config_release(&c);

	/* --insecure-skip-tls-verify alone drops the config's CA */
	ov = (struct kube_overrides){.kubeconfig = FX "basic.yaml", .insecure_skip_tls_verify = true,
				     .tls_server_name = "sni.example"};
	load_ok(&ov, &c);
	cr_assert(c.insecure_skip_tls_verify);
	cr_assert_eq(c.ca.len, 0);
	cr_assert_str_eq(c.tls_server_name, "sni.example");
	kube_config_release(&c);

	/* ... but not one given with it */
	ov.certificate_authority = FX "certs/ca.pem";
	free(load_err(&ov, KERR_CONFIG));
}

Test(kubeconfig, server_without_scheme)
{
	struct kube_overrides ov = {.kubeconfig = FX "basic.yaml", .server = "10.1.1.1:6443"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "https://10.1.1.1:6443"); /* a CA is configured */
	kube_config_release(&c);
	ov = (struct kube_overrides){.kubeconfig = FX "empty.yaml", .server = "127.0.0.1:8001/prefix/"};
	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://127.0.0.1:8001/prefix");
	kube_config_release(&c);
}

struct invalid_case {
	const char *context;
	const char *message;
};

Test(kubeconfig, validation_errors_like_kubectl)
{
	static const struct invalid_case cases[] = {
		{"insecure-ca", "specifying a root certificates file with the insecure flag is not allowed"},
		{"both-ca",
		 "certificate-authority-data and certificate-authority are both specified for both-ca. "
		 "certificate-authority-data will override."},
		{"missing-ca", "unable to read certificate-authority " FIXTURES_DIR "/kubeconfig/certs/nope.pem for "
			       "missing-ca due to open " FIXTURES_DIR "/kubeconfig/certs/nope.pem: no such file or directory"},
		{"token-basic",
		 "more than one authentication method found for token-basic; found [token basicAuth], only one is allowed"},
		{"cert-nokey", "client-key-data or client-key must be specified for cert-nokey to use the clientCert "
			       "authentication method."},
		{"key-nocert", "client-certificate-data or client-certificate must be specified for key-nocert to use the "
			       "clientCert authentication method"},
		{"cert-missing", "unable to read client-cert " FIXTURES_DIR "/kubeconfig/certs/missing.pem for "
				 "cert-missing due to open " FIXTURES_DIR
				 "/kubeconfig/certs/missing.pem: no such file or directory"},
		{"cert-both", "invalid configuration: [client-cert-data and client-cert are both specified for cert-both. "
			      "client-cert-data will override., client-key-data and client-key are both specified for "
			      "cert-both; client-key-data will override]"},
		{"exec-empty", "invalid configuration: [command must be specified for exec-empty to use exec "
			       "authentication plugin, apiVersion must be specified for exec-empty to use exec "
			       "authentication plugin]"},
		{"exec-v1-nomode", "interactiveMode must be specified for exec-v1-nomode to use exec authentication plugin"},
		{"exec-badmode", "invalid interactiveMode for exec-badmode: \"Sometimes\""},
		{"exec-v1alpha1", "exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\""},
		{"exec-and-provider",
		 "authProvider cannot be provided in combination with an exec plugin for exec-and-provider"},
		{"bad-proxy", "invalid 'proxy-url' \"ftp://proxy.example:21\" for cluster \"bad-proxy\": unsupported "
			      "scheme \"ftp\", must be http, https, or socks5"},
		{"groups-no-as", "requesting uid, groups or user-extra for groups-no-as without impersonating a user"},
		{"tokenfile-missing", "open " FIXTURES_DIR "/kubeconfig/certs/no-token: no such file or directory"},
		{"many", "invalid configuration: [more than one authentication method found for token-basic; found [token "
			 "basicAuth], only one is allowed, unable to read certificate-authority " FIXTURES_DIR
			 "/kubeconfig/certs/nope.pem for missing-ca due to open " FIXTURES_DIR
			 "/kubeconfig/certs/nope.pem: no such file or directory]"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kube_overrides ov = {.kubeconfig = FX "invalid.yaml", .context = cases[i].context};
		char *m = load_err(&ov, KERR_CONFIG);

		cr_expect_str_eq(m, cases[i].message, "context %s", cases[i].context);
		free(m);
	}
}

Test(kubeconfig, cluster_without_server_is_localhost_like_kubectl)
{
	struct kube_overrides ov = {.kubeconfig = FX "invalid.yaml", .context = "noserver"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "http://localhost:8080");
	kube_config_release(&c);
}

Test(kubeconfig, malformed_yaml)
{
	struct kube_overrides ov = {.kubeconfig = FX "malformed.yaml"};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert_str_eq(m, "error loading config file \"" FX "malformed.yaml\": yaml: line 4: did not find expected ',' or '}'");
	free(m);
	ov.kubeconfig = FX "malformed-indent.yaml";
	m = load_err(&ov, KERR_CONFIG);
	cr_assert_str_eq(m, "error loading config file \"" FX
			    "malformed-indent.yaml\": yaml: line 2: mapping values are not allowed in this context");
	free(m);
	ov.kubeconfig = FX "wrong-type.yaml";
	m = load_err(&ov, KERR_CONFIG);
	cr_assert_str_eq(m, "error loading config file \"" FX "wrong-type.yaml\": line 2: clusters: expected a list");
	free(m);
}

Test(kubeconfig, undefined_alias)
{
	struct kube_overrides ov = {.kubeconfig = tmp_path("alias.yaml")};
	char *m, *want = NULL;

	write_file(ov.kubeconfig, "apiVersion: v1\nclusters:\n- name: c\n  cluster: *nothing\n");
	m = load_err(&ov, KERR_CONFIG);
	cr_assert(asprintf(&want, "error loading config file \"%s\": yaml: unknown anchor 'nothing' referenced",
			   ov.kubeconfig) > 0);
	cr_assert_str_eq(m, want);
	free(want);
	free(m);
	free((char *)ov.kubeconfig);
}

Test(kubeconfig, malformed_file_in_kubeconfig_list)
{
	struct kube_overrides ov = {0};
	char *m;

	setenv("KUBECONFIG", FX "basic.yaml:" FX "malformed.yaml", 1);
	m = load_err(&ov, KERR_CONFIG);
	cr_assert(strstr(m, "malformed.yaml"), "%s", m);
	free(m);
}

Test(kubeconfig, bad_base64)
{
	struct kube_overrides ov = {.kubeconfig = FX "bad-base64.yaml"};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert_str_eq(m, "error loading config file \"" FX "bad-base64.yaml\": illegal base64 data at input byte 4");
	free(m);
}

Test(kubeconfig, wrong_types)
{
	static const char *const bad[] = {
		"users:\n- name: u\n  user: {token: [a]}\n",
		"clusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: maybe}\n",
		"clusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: \"true\"}\n",
		"users:\n- name: u\n  user: {exec: {args: {a: b}}}\n",
		"users:\n- name: u\n  user: {exec: {env: [x]}}\n",
		"users:\n- name: u\n  user: {as-user-extra: {k: v}}\n",
		"contexts: {a: b}\n",
		"- a\n- b\n",
		"current-context: [a]\n",
	};
	char *path = tmp_path("bad.yaml");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kube_overrides ov = {.kubeconfig = path};
		char *m;

		write_file(path, bad[i]);
		m = load_err(&ov, KERR_CONFIG);
		cr_expect(strncmp(m, "error loading config file", 25) == 0, "case %zu: %s", i, m);
		free(m);
	}
	free(path);
}

Test(kubeconfig, data_fields_flow_style_and_alias)
{
	struct kube_overrides ov = {.kubeconfig = FX "data.yaml"};
	struct kube_config c;
	static const char ca[] = "-----BEGIN CERTIFICATE-----\nCADATA\n-----END CERTIFICATE-----\n";

	load_ok(&ov, &c);
	cr_assert_eq(c.ca.len, strlen(ca));
	cr_assert(memcmp(c.ca.data, ca, c.ca.len) == 0);
	cr_assert_eq(c.client_cert.len, 4);
	cr_assert(memcmp(c.client_cert.data, "CERT", 4) == 0);
	cr_assert_eq(c.client_key.len, 3);
	cr_assert(memcmp(c.client_key.data, "KEY", 3) == 0);
	cr_assert(c.disable_compression);
	cr_assert_str_eq(c.proxy_url, "socks5://127.0.0.1:1080");
	kube_config_release(&c);

	ov.context = "alias";
	load_ok(&ov, &c);
	cr_assert_str_eq(c.cluster_name, "alias");
	cr_assert_str_eq(c.server, "https://data.example");
	cr_assert_eq(c.ca.len, strlen(ca));
	kube_config_release(&c);
}

Test(kubeconfig, exec_section)
{
	struct kube_overrides ov = {.kubeconfig = FX "exec.yaml"};
	struct kube_config c;
	struct kube_exec *x;

	load_ok(&ov, &c);
	x = c.exec;
	cr_assert_not_null(x);
	cr_assert_str_eq(x->api_version, "client.authentication.k8s.io/v1");
	cr_assert_str_eq(x->command, FIXTURES_DIR "/kubeconfig/exec/fake-credential-plugin.py");
	cr_assert_str_eq(x->args[0], "--first");
	cr_assert_str_eq(x->args[1], "two words");
	cr_assert_str_eq(x->args[2], "$HOME;rm -rf /");
	cr_assert_null(x->args[3]);
	cr_assert_str_eq(kvlist_get(&x->env, "FAKE_MODE"), "token");
	cr_assert_str_eq(kvlist_get(&x->env, "FAKE_EXTRA"), "x=y");
	cr_assert_eq(x->interactive, EXEC_INTERACTIVE_NEVER);
	cr_assert(x->provide_cluster_info);
	cr_assert_not_null(x->cluster_config_json);
	cr_assert_str_eq(x->cluster_config_json,
			 "{\"audience\":\"gpu\",\"retries\":3,\"nested\":{\"enabled\":true,\"list\":[\"a\",\"1\"]}}");
	kube_config_release(&c);

	/* a bare name is looked up in PATH when run, not resolved here */
	ov.context = "path-lookup";
	load_ok(&ov, &c);
	cr_assert_str_eq(c.exec->command, "fake-credential-plugin.py");
	cr_assert_eq(c.exec->interactive, EXEC_INTERACTIVE_IFAVAILABLE);
	cr_assert_null(c.exec->cluster_config_json);
	kube_config_release(&c);

	/* v1beta1 defaults to IfAvailable */
	ov.context = "v1beta1";
	load_ok(&ov, &c);
	cr_assert_eq(c.exec->interactive, EXEC_INTERACTIVE_IFAVAILABLE);
	cr_assert_null(c.exec->args);
	kube_config_release(&c);

	ov.context = "missing";
	load_ok(&ov, &c);
	cr_assert(strstr(c.exec->install_hint, "apt install"));
	kube_config_release(&c);
}

Test(kubeconfig, auth_providers)
{
	struct kube_overrides ov = {.kubeconfig = FX "providers.yaml"};
	struct kube_config c;

	load_ok(&ov, &c);
	cr_assert_str_eq(c.auth_provider, "oidc");
	cr_assert_str_eq(c.token, "eyJhbGciOiJSUzI1NiJ9.oidc.token");
	kube_config_release(&c);
	ov.context = "gcp";
	load_ok(&ov, &c);
	cr_assert_str_eq(c.auth_provider, "gcp");
	cr_assert_null(c.token);
	kube_config_release(&c);
}

static char *make_sa_dir(const char *token, const char *ns)
{
	char *dir = tmp_path("sa"), *p;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert(asprintf(&p, "%s/token", dir) > 0);
	write_file(p, token);
	free(p);
	cr_assert(asprintf(&p, "%s/ca.crt", dir) > 0);
	write_file(p, "-----BEGIN CERTIFICATE-----\nSA-CA\n-----END CERTIFICATE-----\n");
	free(p);
	if (ns) {
		cr_assert(asprintf(&p, "%s/namespace", dir) > 0);
		write_file(p, ns);
		free(p);
	}
	setenv("KUBE_SERVICEACCOUNT_DIR", dir, 1);
	return dir;
}

Test(kubeconfig, in_cluster)
{
	struct kube_overrides ov = {0};
	struct kube_config c;
	char *dir = make_sa_dir("sa-token\n", "gpu-system\n"), *tok;

	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	load_ok(&ov, &c);
	cr_assert(c.in_cluster);
	cr_assert_str_eq(c.server, "https://10.96.0.1:443");
	cr_assert_eq(c.ca.len, strlen("-----BEGIN CERTIFICATE-----\nSA-CA\n-----END CERTIFICATE-----\n"));
	cr_assert(asprintf(&tok, "%s/token", dir) > 0);
	cr_assert_str_eq(c.token_file, tok);
	cr_assert_null(c.token);
	cr_assert_str_eq(c.namespace, "gpu-system");
	cr_assert_not(c.namespace_explicit);
	cr_assert_null(c.context_name);
	kube_config_release(&c);

	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	ov.namespace = "explicit";
	load_ok(&ov, &c);
	cr_assert_str_eq(c.server, "https://[fd00::1]:443");
	cr_assert_str_eq(c.namespace, "explicit");
	cr_assert(c.namespace_explicit);
	kube_config_release(&c);

	ov.namespace = NULL;
	setenv("POD_NAMESPACE", "from-downward-api", 1);
	load_ok(&ov, &c);
	cr_assert_str_eq(c.namespace, "from-downward-api");
	kube_config_release(&c);

	/* an empty kubeconfig still counts as no config */
	ov.kubeconfig = FX "empty.yaml";
	load_ok(&ov, &c);
	cr_assert(c.in_cluster);
	kube_config_release(&c);

	/* a real one wins, and so does a flag that changes where to connect */
	ov.kubeconfig = FX "basic.yaml";
	load_ok(&ov, &c);
	cr_assert_not(c.in_cluster);
	kube_config_release(&c);
	ov = (struct kube_overrides){.server = "https://elsewhere.example"};
	load_ok(&ov, &c);
	cr_assert_not(c.in_cluster);
	cr_assert_str_eq(c.server, "https://elsewhere.example");
	kube_config_release(&c);
	free(tok);
	free(dir);
}

Test(kubeconfig, in_cluster_needs_token_and_env)
{
	struct kube_overrides ov = {0};
	struct kube_config c;
	char *dir = make_sa_dir("t", NULL), *tok;

	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	load_ok(&ov, &c); /* no port */
	cr_assert_not(c.in_cluster);
	kube_config_release(&c);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	load_ok(&ov, &c);
	cr_assert(c.in_cluster);
	cr_assert_str_eq(c.namespace, "default"); /* no namespace file */
	kube_config_release(&c);
	cr_assert(asprintf(&tok, "%s/token", dir) > 0);
	cr_assert_eq(unlink(tok), 0);
	load_ok(&ov, &c);
	cr_assert_not(c.in_cluster);
	cr_assert_str_eq(c.server, "http://localhost:8080");
	kube_config_release(&c);
	free(tok);
	free(dir);
}

Test(kubeconfig, context_names)
{
	struct kube_overrides ov = {0};
	struct kerr err = KERR_INIT;
	char **v;

	setenv("KUBECONFIG", FX "merge-a.yaml:" FX "sub/merge-b.yaml:" FX "merge-c.yaml", 1);
	v = kubeconfig_context_names(&ov, &err);
	cr_assert_not_null(v, "%s", err.message);
	cr_assert_str_eq(v[0], "shared-ctx");
	cr_assert_str_eq(v[1], "ctx-b");
	cr_assert_str_eq(v[2], "ctx-c");
	cr_assert_null(v[3]);
	strv_free(v);
	strv_free(NULL);

	ov.kubeconfig = "/nonexistent";
	cr_assert_null(kubeconfig_context_names(&ov, &err));
	cr_assert_eq(err.kind, KERR_CONFIG);
	kerr_release(&err);
}

Test(kubeconfig, big_token_in_file)
{
	size_t n = 1 << 20;
	char *tok = malloc(n + 1), *path = tmp_path("big.yaml");
	FILE *f = fopen(path, "w");
	struct kube_overrides ov = {.kubeconfig = path};
	struct kube_config c;

	memset(tok, 'k', n);
	tok[n] = '\0';
	fprintf(f, "clusters:\n- name: c\n  cluster: {server: https://c.example}\nusers:\n- name: u\n  user:\n    token: %s\n"
		   "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n",
		tok);
	fclose(f);
	load_ok(&ov, &c);
	cr_assert_eq(strlen(c.token), n);
	cr_assert_str_eq(c.token, tok);
	kube_config_release(&c);
	free(tok);
	free(path);
}
