/* The kubeconfig resolved for a context (kubeconfig_load.c): the chosen context,
 * cluster and user, the command line's overrides, credentials and exec
 * sections, and the validation errors kubectl reports. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "kubeconfig_test_util.h"

TestSuite(kubeconfig, .init = kubeconfig_setup, .fini = kubeconfig_teardown);

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
	assert_server(&ov, "http://127.0.0.1:8001/prefix");
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

	assert_server(&ov, "http://localhost:8080");
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
