/* Credentials of several clients fetched at once: an exec plugin can take
 * seconds (a browser login, a cloud CLI), and a fleet's answer should take
 * as long as the slowest of them, not their sum.  Each plugin runs in a
 * thread of its own, under its own time limit (exec_plugin.c); the child
 * side of fork only makes async-signal-safe calls, so threads are safe.
 */
#include "kube.h"
#include "kube_internal.h"

#include <pthread.h>

struct prefetch {
	struct kube_client *c;
	struct kerr *err;
	pthread_t thread;
	bool started;
};

static void prefetch_one(struct prefetch *p)
{
	struct kube_credential cred = { 0 };

	if (kube_credential_get(p->c->cfg, p->c->creds, false, &cred, p->err) == 0)
		kube_credential_release(&cred);
}

static void *prefetch_thread(void *ud)
{
	prefetch_one(ud);
	return NULL;
}

void kube_clients_prefetch_credentials(struct kube_client **cs, size_t n, struct kerr *errs)
{
	struct prefetch *ps = calloc(n ? n : 1, sizeof(*ps));

	for (size_t i = 0; i < n; i++) {
		if (!cs[i] || !cs[i]->cfg->exec)
			continue;
		if (!ps) {
			kerr_set(&errs[i], KERR_OTHER, "out of memory");
			continue;
		}
		ps[i] = (struct prefetch){ .c = cs[i], .err = &errs[i] };
		/* one plugin needs no thread; nor does one that could not get one */
		ps[i].started = n > 1 && pthread_create(&ps[i].thread, NULL, prefetch_thread, &ps[i]) == 0;
		if (!ps[i].started)
			prefetch_one(&ps[i]);
	}
	for (size_t i = 0; ps && i < n; i++)
		if (ps[i].started)
			pthread_join(ps[i].thread, NULL);
	free(ps);
}
