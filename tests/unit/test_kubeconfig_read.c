/* What a kubeconfig points at (kubeconfig_read.c): paths relative to the
 * file that names them, base64 data fields, and a large file read whole. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kubeconfig_internal.h"
#include "kubeconfig_test_util.h"

TestSuite(kubeconfig_read, .init = kubeconfig_setup, .fini = kubeconfig_teardown);

Test(kubeconfig_read, relative_paths_against_defining_file)
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

Test(kubeconfig_read, relative_kubeconfig_path)
{
	struct kube_overrides ov = {.kubeconfig = "sub/../basic.yaml"};
	struct kube_config c;

	cr_assert_eq(chdir(FX), 0);
	load_ok(&ov, &c);
	assert_blob_is_file(&c.ca, FX "certs/ca.pem");
	kube_config_release(&c);
}

Test(kubeconfig_read, bad_base64)
{
	struct kube_overrides ov = {.kubeconfig = FX "bad-base64.yaml"};
	char *m = load_err(&ov, KERR_CONFIG);

	cr_assert_str_eq(m, "error loading config file \"" FX "bad-base64.yaml\": illegal base64 data at input byte 4");
	free(m);
}

Test(kubeconfig_read, data_fields_flow_style_and_alias)
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

Test(kubeconfig_read, big_token_in_file)
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

/* Go's StdEncoding: padding only at the end, newlines anywhere skipped, and
 * the offset Go reports for what is not base64. */
Test(kubeconfig_read, base64_as_go_decodes_it)
{
	static const struct {
		const char *in, *out;
		size_t bad;
	} cases[] = {
		{"", "", 0},
		{"aGk=", "hi", 0},
		{"aGVsbG8=", "hello", 0},
		{"aGVsbG8h", "hello!", 0},
		{"aG\nk=\r\n", "hi", 0},
		{"aGk", NULL, 0},
		{"aG=x", NULL, 2},
		{"aG=", NULL, 3},
		{"aG==x", NULL, 4},
		{"a===", NULL, 1},
		{"aGk=aGk=", NULL, 4},
		{"a!bc", NULL, 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *in = cases[i].in;
		struct kblob b = {0};
		size_t bad = 99;
		int r = b64_decode((const unsigned char *)in, strlen(in), &b, &bad);

		if (cases[i].out) {
			cr_assert_eq(r, 0, "%s", in);
			cr_assert_eq(b.len, strlen(cases[i].out), "%s", in);
			cr_assert_str_eq((const char *)b.data, cases[i].out, "%s", in);
			cr_assert_eq(b64_decode((const unsigned char *)in, strlen(in), NULL, &bad), 0, "%s", in);
		} else {
			cr_assert_eq(r, -1, "%s", in);
			cr_assert_eq(bad, cases[i].bad, "%s: at %zu", in, bad);
			cr_assert_null(b.data);
		}
		free(b.data);
	}
}
