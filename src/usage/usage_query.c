/* The queries: the label names each role is read from, the window, and
 * the PromQL text of each query (usage.h). */
#include "usage.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In order of preference.  Where a Prometheus scrape adds the exporter pod's
 * own namespace and pod labels, the exporter's labels become exported_*:
 * those name the workload, so they come first. */
static const char *const default_labels[UR_COUNT][USAGE_LABEL_VARIANTS + 1] = {
	[UR_NODE] = {"node", "kubernetes_node", "NodeName", "node_name", "nodename", "Hostname", "instance", NULL},
	[UR_GPU] = {"gpu", "minor_number", "deviceidx", NULL},
	[UR_UUID] = {"UUID", "uuid", "deviceuuid", NULL},
	[UR_NAMESPACE] = {"exported_namespace", "NamespaceName", "pod_namespace", "podnamespace", "namespace", NULL},
	[UR_POD] = {"exported_pod", "PodName", "pod_name", "podname", "pod", NULL},
	[UR_DRA_NAMESPACE] = {"dra_claim_namespace", NULL},
	[UR_DRA_CLAIM] = {"dra_claim_name", NULL},
	[UR_DRA_POOL] = {"dra_pool_name", NULL},
	[UR_DRA_DEVICE] = {"dra_device_name", NULL},
	[UR_DRA_MIG_PROFILE] = {"dra_mig_profile", NULL},
	[UR_MIG_INSTANCE] = {"GPU_I_ID", NULL},
	[UR_MIG_PROFILE] = {"GPU_I_PROFILE", NULL},
};

/* The roles a mapping may name (the DRA ones keep the exporter's names). */
static const char *const role_names[UR_DRA_NAMESPACE] = {"node", "gpu", "uuid", "namespace", "pod"};

void usage_labels_default(struct usage_labels *l)
{
	memset(l, 0, sizeof(*l));
	memcpy(l->names, default_labels, sizeof(l->names));
}

void usage_labels_release(struct usage_labels *l)
{
	if (!l)
		return;
	for (int r = 0; r < UR_COUNT; r++)
		free(l->owned[r]);
	usage_labels_default(l);
}

static bool label_name_valid(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

int usage_labels_override(struct usage_labels *l, const char *spec, struct kerr *err)
{
	const char *p = spec;

	while (p && *p) {
		const char *end = strchr(p, ','), *eq;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int role = -1;

		eq = memchr(p, '=', len);
		if (eq)
			for (int r = 0; r < UR_DRA_NAMESPACE; r++)
				if (strlen(role_names[r]) == (size_t)(eq - p) && memcmp(role_names[r], p, (size_t)(eq - p)) == 0)
					role = r;
		if (!eq || role < 0)
			return kerr_set(err, KERR_USAGE,
					"invalid label mapping \"%.*s\": want ROLE=LABEL with ROLE one of node, gpu, uuid, namespace, pod",
					(int)len, p);
		if (!label_name_valid(eq + 1, len - (size_t)(eq + 1 - p)))
			return kerr_set(err, KERR_USAGE, "invalid label name \"%.*s\" in \"%.*s\"",
					(int)(len - (size_t)(eq + 1 - p)), eq + 1, (int)len, p);
		free(l->owned[role]);
		l->owned[role] = strndup(eq + 1, len - (size_t)(eq + 1 - p));
		if (!l->owned[role])
			return kerr_set(err, KERR_OTHER, "out of memory");
		memset(l->names[role], 0, sizeof(l->names[role]));
		l->names[role][0] = l->owned[role];
		p = end ? end + 1 : NULL;
	}
	return 0;
}

bool usage_window_valid(const char *w)
{
	static const char *const units[] = {"ms", "s", "m", "h", "d", "w", "y", NULL};
	const char *p = w;

	if (!w || !*w || strlen(w) > 32)
		return false;
	while (*p) {
		bool found = false;

		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
		for (size_t i = 0; units[i] && !found; i++)
			if (strncmp(p, units[i], strlen(units[i])) == 0) {
				p += strlen(units[i]);
				found = true;
			}
		if (!found)
			return false;
	}
	return true;
}

/* "a, b, c" of every label name of the given roles. */
static char *by_clause(const struct usage_labels *l, bool with_pod)
{
	size_t cap = 1;
	char *s;

	for (int r = 0; r < UR_COUNT; r++)
		for (size_t i = 0; l->names[r][i]; i++)
			cap += strlen(l->names[r][i]) + 2;
	s = calloc(1, cap);
	if (!s)
		return NULL;
	for (int r = 0; r < UR_COUNT; r++) {
		if (!with_pod && (r == UR_NAMESPACE || r == UR_POD))
			continue;
		for (size_t i = 0; l->names[r][i]; i++) {
			if (*s)
				strcat(s, ", ");
			strcat(s, l->names[r][i]);
		}
	}
	return s;
}

static const struct {
	const char *fmt; /* by clause, window (or %1$s and %2$s) */
	bool with_pod;
} queries[UQ_COUNT] = {
	[UQ_GPU_USED] = {"max by (%s) (max_over_time(DCGM_FI_DEV_FB_USED[%s]))", true},
	/* Used and free add up to the card at every scrape, so the least free
	 * memory in the window plus the most used is the card: one series
	 * selection, where adding the two last figures asks Prometheus to
	 * match every used series with its free one. */
	[UQ_GPU_FREE] = {"min by (%s) (min_over_time(DCGM_FI_DEV_FB_FREE[%s]))", false},
	[UQ_GPU_UTIL] = {"max by (%s) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[%s]))", false},
	[UQ_VGPU_USED] = {"sum by (%s) (max_over_time(vGPU_device_memory_usage_in_bytes[%s]))", true},
	[UQ_VGPU_LIMIT] = {"sum by (%s) (max_over_time(vGPU_device_memory_limit_in_bytes[%s]))", true},
	[UQ_HOST_USED] = {"max by (%s) (max_over_time(HostGPUMemoryUsage[%s]))", false},
	[UQ_HOST_UTIL] = {"max by (%s) (avg_over_time(HostCoreUtilization[%s]))", false},
};

bool usage_query_names_pods(enum usage_query q)
{
	return (unsigned)q < UQ_COUNT && queries[q].with_pod;
}

char *usage_query_text(enum usage_query q, const struct usage_labels *l, const char *window)
{
	char *by, *s = NULL;

	if ((unsigned)q >= UQ_COUNT || !l || !window)
		return NULL;
	by = by_clause(l, queries[q].with_pod);
	if (!by)
		return NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
	if (asprintf(&s, queries[q].fmt, by, window) < 0)
		s = NULL;
#pragma GCC diagnostic pop
	free(by);
	return s;
}
