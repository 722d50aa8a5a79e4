/* What the kubeconfig loader's tests share: a temporary HOME with no
 * kubeconfig and no in-cluster environment around each test, files written
 * into it, and loads expected to succeed or to fail.  Each test file
 * declares its suite with .init = kubeconfig_setup, .fini = kubeconfig_teardown. */
#ifndef KUBECONFIG_TEST_UTIL_H
#define KUBECONFIG_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kubeconfig.h"

#define FX FIXTURES_DIR "/kubeconfig/"

static char tmpdir[] = "/tmp/cgpu-kubeconfig-XXXXXX";

/* Every test starts with no kubeconfig around it and an empty HOME. */
static inline void kubeconfig_setup(void)
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

static inline void kubeconfig_teardown(void)
{
	char *cmd = NULL;

	cr_assert(asprintf(&cmd, "rm -rf '%s'", tmpdir) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
}

static inline char *tmp_path(const char *name)
{
	char *p = NULL;

	cr_assert(asprintf(&p, "%s/%s", tmpdir, name) > 0);
	return p;
}

static inline void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static inline char *slurp(const char *path)
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

static inline void assert_blob_is_file(const struct kblob *b, const char *path)
{
	char *want = slurp(path);

	cr_assert_eq(b->len, strlen(want), "blob of %zu bytes, %s has %zu", b->len, path, strlen(want));
	cr_assert(memcmp(b->data, want, b->len) == 0, "blob differs from %s", path);
	free(want);
}

static inline void load_ok(const struct kube_overrides *ov, struct kube_config *c)
{
	struct kerr err = KERR_INIT;
	int rc = kubeconfig_load(ov, c, &err);

	cr_assert_eq(rc, 0, "load failed: %s", err.message ? err.message : "?");
	cr_assert_eq(err.kind, KERR_NONE);
	kerr_release(&err);
}

/* Loads ov, which must succeed, and checks the server it resolves to. */
static inline void assert_server(const struct kube_overrides *ov, const char *server)
{
	struct kube_config c;

	load_ok(ov, &c);
	cr_assert_str_eq(c.server, server);
	kube_config_release(&c);
}

/* Load expecting failure; returns the message (free it). */
static inline char *load_err(const struct kube_overrides *ov, enum kerr_kind kind)
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

#endif
