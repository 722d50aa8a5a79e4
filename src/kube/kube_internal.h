/* The pure parts of the API client (src/kube.c), exposed for the unit tests
 * and the fuzz target.  Nothing here touches the network.
 */
#ifndef KUBE_INTERNAL_H
#define KUBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "kerr.h"

/* Turn a failed response into the error kubectl would report: a metav1.Status
 * body gives KERR_STATUS with its reason and message; anything else (an HTML
 * page from a proxy, an empty body) gives client-go's generic wording for the
 * HTTP code, with a short, printable excerpt of a text body.  verb ("GET")
 * and path (without query) name the resource as kubectl does ("(get nodes)").
 * content_type may be NULL.  Always returns -1. */
int kube_status_error(long code, const char *content_type, const char *verb, const char *path,
		      const void *body, size_t len, struct kerr *err);

/* The texts of the code-299 warnings in one Warning header value
 * (`299 - "text"`, several separated by commas), in order.  Returns a
 * NULL-terminated array to free with strv_free() (kubeconfig.h), or NULL when
 * there are none or the value cannot be parsed. */
char **kube_warning_parse(const char *value, size_t len);

/* client-go's retry rule for a response: 429 or >= 500 with a Retry-After
 * header in whole seconds.  retry_after is the header value or NULL.
 * Returns the seconds to wait (>= 0), or -1 when the response is final. */
long kube_retry_after(long code, const char *retry_after);

/* "kubectl-inspect-cgpu/vX.Y.Z (linux/amd64) kubernetes/<commit>"; malloc'd. */
char *kube_user_agent_default(void);

/* A query string without the leading '?': key=value pairs sorted by key as
 * Go's url.Values.Encode() writes them, values percent-encoded, pairs whose
 * value is NULL left out (never an empty parameter the caller did not set).
 * kv holds n pairs (key, value, key, value, ...).  malloc'd; "" when none. */
char *kube_query_build(const char *const *kv, size_t n);

/* The resource a request path names, as client-go prints it in errors:
 * "nodes", "daemonsets.apps", with *name set to the object name when the
 * path names one (both malloc'd, *name may be NULL).  Returns -1 when the
 * path is not an API path. */
int kube_path_resource(const char *path, char **resource, char **name);

#endif
