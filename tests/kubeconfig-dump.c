/* Print what kubeconfig_load() resolves, as JSON, for tests that compare it
 * with `kubectl config view --minify`.
 *
 * usage: kubeconfig-dump [--kubeconfig F] [--context C] [--cluster C] [--user U] [-n NS] [-s SERVER]
 *
 * Secrets are not printed: only whether a token, key or password is set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kerr.h"
#include "kubeconfig.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int main(int argc, char **argv)
{
	struct kube_overrides ov = {0};
	struct kube_config cfg;
	struct kerr err = KERR_INIT;
	json_t *o;

	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			fprintf(stderr, "kubeconfig-dump: %s needs a value\n", a);
			return 2;
		}
		if (strcmp(a, "--kubeconfig") == 0)
			ov.kubeconfig = v;
		else if (strcmp(a, "--context") == 0)
			ov.context = v;
		else if (strcmp(a, "--cluster") == 0)
			ov.cluster = v;
		else if (strcmp(a, "--user") == 0)
			ov.user = v;
		else if (strcmp(a, "-n") == 0)
			ov.namespace = v;
		else if (strcmp(a, "-s") == 0)
			ov.server = v;
		else {
			fprintf(stderr, "kubeconfig-dump: unknown argument %s\n", a);
			return 2;
		}
	}
	if (kubeconfig_load(&ov, &cfg, &err) < 0) {
		kerr_print(stderr, &err);
		kerr_release(&err);
		return 1;
	}
	o = json_object();
	json_object_set_new(o, "context", str_or_null(cfg.context_name));
	json_object_set_new(o, "cluster", str_or_null(cfg.cluster_name));
	json_object_set_new(o, "user", str_or_null(cfg.user_name));
	json_object_set_new(o, "namespace", str_or_null(cfg.namespace));
	json_object_set_new(o, "server", str_or_null(cfg.server));
	json_object_set_new(o, "tls_server_name", str_or_null(cfg.tls_server_name));
	json_object_set_new(o, "insecure", json_boolean(cfg.insecure_skip_tls_verify));
	json_object_set_new(o, "ca_bytes", json_integer((json_int_t)cfg.ca.len));
	json_object_set_new(o, "client_cert_bytes", json_integer((json_int_t)cfg.client_cert.len));
	json_object_set_new(o, "has_client_key", json_boolean(cfg.client_key.len > 0));
	json_object_set_new(o, "has_token", json_boolean(cfg.token != NULL));
	json_object_set_new(o, "token_file", str_or_null(cfg.token_file));
	json_object_set_new(o, "exec_command", str_or_null(cfg.exec ? cfg.exec->command : NULL));
	json_object_set_new(o, "exec_config", cfg.exec && cfg.exec->cluster_config_json
					      ? json_loads(cfg.exec->cluster_config_json, JSON_DECODE_ANY, NULL)
					      : json_null());
	json_object_set_new(o, "in_cluster", json_boolean(cfg.in_cluster));
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	putchar('\n');
	json_decref(o);
	kube_config_release(&cfg);
	return 0;
}
