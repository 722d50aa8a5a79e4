/* The in-cluster configuration (kubeconfig_incluster.c): the service
 * account's files and the environment, and when they are used. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kubeconfig_test_util.h"

TestSuite(kubeconfig_incluster, .init = kubeconfig_setup, .fini = kubeconfig_teardown);

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

Test(kubeconfig_incluster, in_cluster)
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

Test(kubeconfig_incluster, in_cluster_needs_token_and_env)
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
