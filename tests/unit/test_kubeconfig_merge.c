/* Which kubeconfig files are read and how they merge (kubeconfig_merge.c):
 * --kubeconfig, KUBECONFIG, ~/.kube/config, the first definition and the
 * first current-context winning, and files that are not kubeconfigs. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kubeconfig_test_util.h"

TestSuite(kubeconfig_merge, .init = kubeconfig_setup, .fini = kubeconfig_teardown);

Test(kubeconfig_merge, explicit_file_missing)
{
	struct kube_overrides ov = {.kubeconfig = "/no/such/kubeconfig"};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert_str_eq(m, "stat /no/such/kubeconfig: no such file or directory");
	free(m);
}

Test(kubeconfig_merge, explicit_file_is_a_directory)
{
	struct kube_overrides ov = {.kubeconfig = tmpdir};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert(strstr(m, "error loading config file") && strstr(m, "is a directory"), "%s", m);
	free(m);
}

Test(kubeconfig_merge, kubeconfig_env_first_file_wins)
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

Test(kubeconfig_merge, current_context_from_first_file_setting_it)
{
	struct kube_overrides ov = {0};
	struct kube_config c;

	setenv("KUBECONFIG", FX "merge-c.yaml:" FX "sub/merge-b.yaml", 1);
	load_ok(&ov, &c);
	cr_assert_str_eq(c.context_name, "ctx-b");
	kube_config_release(&c);
}

Test(kubeconfig_merge, all_kubeconfig_files_missing)
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

Test(kubeconfig_merge, no_config_at_all)
{
	struct kube_overrides ov = {0};

	assert_server(&ov, "http://localhost:8080");
	setenv("KUBERNETES_MASTER", "http://127.0.0.1:9999", 1);
	assert_server(&ov, "http://127.0.0.1:9999");
}

Test(kubeconfig_merge, home_kube_config)
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
	assert_server(&ov, "http://localhost:8080");
	free(dir);
	free(file);
}

Test(kubeconfig_merge, empty_file_is_empty_config)
{
	struct kube_overrides ov = {.kubeconfig = FX "empty.yaml"};

	assert_server(&ov, "http://localhost:8080");
}

Test(kubeconfig_merge, malformed_yaml)
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

Test(kubeconfig_merge, undefined_alias)
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

Test(kubeconfig_merge, malformed_file_in_kubeconfig_list)
{
	struct kube_overrides ov = {0};
	char *m;

	setenv("KUBECONFIG", FX "basic.yaml:" FX "malformed.yaml", 1);
	m = load_err(&ov, KERR_CONFIG);
	cr_assert(strstr(m, "malformed.yaml"), "%s", m);
	free(m);
}

Test(kubeconfig_merge, wrong_types)
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

Test(kubeconfig_merge, context_names)
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
