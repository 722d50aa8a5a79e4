/* The ExecCredential an exec plugin prints, read as client-go reads it:
 * the API version it was configured with, a token or a certificate and its
 * key, when it expires; the secrets cleared from jansson's copies, and kept
 * out of every error (kubeconfig_internal.h). */
#include "kubeconfig.h"
#include "kubeconfig_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int decode_error(struct kerr *err, const char *what)
{
	return kerr_set(err, KERR_CREDENTIALS, "getting credentials: decoding stdout: %s", what);
}

/* The plugin's stdout as JSON.  jansson quotes the offending input after
 * "near": it is kept out of the error, as it may be part of a secret. */
static json_t *exec_parse(const char *out, size_t len, struct kerr *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(out, len, 0, &jerr);
	char *near, *msg = NULL;

	if (root)
		return root;
	if ((near = strstr(jerr.text, " near ")))
		*near = '\0';
	if (asprintf(&msg, "%s at line %d column %d", jerr.text, jerr.line, jerr.column) < 0) {
		oom(err);
		return NULL;
	}
	decode_error(err, msg);
	free(msg);
	return NULL;
}

/* An ExecCredential of the API version the plugin was configured with:
 * *ret its status, whose fields are all strings or null. */
static int exec_status(const struct kube_exec *x, json_t *root, json_t **ret, struct kerr *err)
{
	static const char *const fields[] = {"token", "clientCertificateData", "clientKeyData", "expirationTimestamp"};
	const char *api, *kind;
	json_t *status, *v;
	char *m = NULL;

	if (!json_is_object(root))
		return decode_error(err, "expected an ExecCredential object");
	api = json_string_value(json_object_get(root, "apiVersion"));
	kind = json_string_value(json_object_get(root, "kind"));
	if (!api || !*api || !kind || !*kind)
		return decode_error(err, "couldn't get version/kind: apiVersion and kind must be set");
	if (strcmp(api, x->api_version) != 0)
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: exec plugin is configured to use API version %s, plugin returned version %s",
				x->api_version, api);
	if (strcmp(kind, "ExecCredential") != 0)
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: decoding stdout: no kind \"%s\" is registered for version \"%s\"",
				kind, api);
	status = json_object_get(root, "status");
	if (!status || json_is_null(status))
		return kerr_set(err, KERR_CREDENTIALS, "getting credentials: exec plugin didn't return a status field");
	if (!json_is_object(status))
		return decode_error(err, "status is not an object");
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		v = json_object_get(status, fields[i]);
		if (v && !json_is_null(v) && !json_is_string(v)) {
			if (asprintf(&m, "status.%s is not a string", fields[i]) < 0)
				m = NULL;
			decode_error(err, m ? m : "bad status");
			free(m);
			return -1;
		}
	}
	*ret = status;
	return 0;
}

/* A string field of the status; NULL when absent or empty. */
static const char *status_str(json_t *status, const char *key)
{
	const char *s = json_string_value(json_object_get(status, key));

	return s && *s ? s : NULL;
}

/* The credential in a status: a token, or a certificate and its key, and
 * when it expires. */
static int exec_credential(const struct kube_exec *x, json_t *status, struct kube_credential *ret, struct kerr *err)
{
	const char *tok = status_str(status, "token"), *cert = status_str(status, "clientCertificateData");
	const char *key = status_str(status, "clientKeyData"), *exp = status_str(status, "expirationTimestamp");

	if (!tok && !cert && !key)
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: exec plugin didn't return a token or cert/key pair");
	if (!cert != !key)
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: exec plugin returned only certificateData or keyData");
	if (tok && !token_ok(tok))
		return kerr_set(err, KERR_CREDENTIALS,
				"getting credentials: the token from exec plugin %s holds characters not allowed in an HTTP header",
				x->command);
	if (exp && kube_time_parse(exp, '-', 'T', false, &ret->expires) < 0)
		return decode_error(err, "status.expirationTimestamp is not an RFC 3339 time");
	if ((tok && !(ret->token = strdup(tok))) ||
	    (cert && blob_copy(&ret->client_cert, (const unsigned char *)cert, strlen(cert)) < 0) ||
	    (key && blob_copy(&ret->client_key, (const unsigned char *)key, strlen(key)) < 0)) {
		kube_credential_release(ret);
		return oom(err);
	}
	return 0;
}

/* jansson keeps its own copies of the strings: the secret ones it holds
 * are cleared before it frees them. */
static void exec_wipe(json_t *status)
{
	static const char *const secret[] = {"token", "clientKeyData"};
	json_t *v;

	if (!json_is_object(status))
		return;
	for (size_t i = 0; i < sizeof(secret) / sizeof(secret[0]); i++) {
		v = json_object_get(status, secret[i]);
		if (json_is_string(v))
			explicit_bzero((char *)json_string_value(v), json_string_length(v));
	}
}

int exec_credential_decode(const struct kube_exec *x, const char *out, size_t len, struct kube_credential *ret,
			   struct kerr *err)
{
	json_t *root, *status = NULL;
	int rc = -1;

	memset(ret, 0, sizeof(*ret));
	if (!(root = exec_parse(out, len, err)))
		return -1;
	if (exec_status(x, root, &status, err) == 0)
		rc = exec_credential(x, status, ret, err);
	exec_wipe(json_is_object(root) ? json_object_get(root, "status") : NULL);
	json_decref(root);
	return rc;
}
