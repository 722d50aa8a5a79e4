/* libFuzzer target for what the client reads from a failed response: the
 * error body (a Status, or whatever a proxy sent) and Warning header values.
 *
 * The first byte picks the HTTP code and content type, the rest is the body;
 * the same bytes are also read as a Warning header value.  Every result must
 * be a one-line message of bounded length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"
#include "kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long codes[] = {400, 401, 403, 404, 409, 410, 415, 422, 429, 500, 502, 503, 504, 418, 300, 599};
	static const char *const types[] = {"application/json", "text/html", "text/plain; charset=utf-8", NULL};
	static const char *const verbs[] = {"GET", "POST", "PATCH", "DELETE"};
	static const char *const paths[] = {"/api/v1/nodes", "/api/v1/namespaces/default/pods/p",
					    "/apis/apps/v1/namespaces/kube-system/daemonsets", "/version"};
	struct kerr err = KERR_INIT;
	char **w;
	uint8_t sel;

	if (size == 0)
		return 0;
	sel = data[0];
	data++;
	size--;
	kube_status_error(codes[sel & 15], types[(sel >> 4) & 3], verbs[(sel >> 6) & 3], paths[(sel >> 4) & 3],
			  data, size, &err);
	if (err.kind != KERR_STATUS || !err.message || strchr(err.message, '\n') || strchr(err.message, '\r'))
		abort();
	/* a text body is shown as an excerpt, never whole */
	if (err.reason && strcmp(err.reason, "InternalError") == 0 && strstr(err.message, "an error on the server") &&
	    strlen(err.message) > 1024)
		abort();
	kerr_release(&err);

	w = kube_warning_parse((const char *)data, size);
	for (size_t i = 0; w && w[i]; i++)
		if (!*w[i])
			abort();
	strv_free(w);
	return 0;
}
