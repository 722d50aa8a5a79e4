/* `usage`: allocated beside used, per GPU and per pod, then the findings. */
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "render.h"
#include "tabwriter.h"
#include "usage.h"

#define PADDING 2

static int fail(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "cannot write the table");
}

/* Memory in the node's unit, with the unit; whole-GPU nodes show GiB.
 * "unknown" where nothing measured it. */
static const char *mem_text(char *buf, size_t size, bool known, int64_t bytes, enum mem_unit unit)
{
	char b[32];

	if (!known)
		return strcpy(buf, "unknown");
	if (unit == UNIT_SLOTS)
		unit = UNIT_GIB;
	snprintf(buf, size, "%s %s", usage_format(b, sizeof(b), bytes, unit), usage_unit_word(unit));
	return buf;
}

/* An amount as the node counts it: "4 GiB", or on a whole-GPU node
 * "1/2 slots" of total. */
static const char *amount_text(char *buf, size_t size, const struct model_node *n, int64_t v, int64_t total)
{
	if (n->unit == UNIT_SLOTS)
		snprintf(buf, size, "%lld/%lld slots", (long long)v, (long long)total);
	else
		snprintf(buf, size, "%lld %s", (long long)v, usage_unit_word(n->unit));
	return buf;
}

/* One node's rows of a table. */
typedef int node_rows_fn(struct tabwriter *tw, const char *prefix, const struct model *m, const struct model_node *n);

/* The header, then the rows of every node in the model's order; each line
 * starts with prefix (a CLUSTER column: the header's cell and the rows'). */
static int table(struct tabwriter *tw, const struct model *m, const char *head_prefix, const char *prefix,
		 const char *header, node_rows_fn *rows)
{
	if (tabwriter_puts(tw, head_prefix) < 0 || tabwriter_puts(tw, header) < 0)
		return -1;
	for (size_t i = 0; i < m->nnodes; i++)
		if (rows(tw, prefix, m, &m->nodes[i]) < 0)
			return -1;
	return 0;
}

/* Memory held without a GPU index (no GPU chosen yet) on its own row, GPU
 * "-", so that a node's rows add up to its allocation. */
static int pending_row(struct tabwriter *tw, const char *prefix, const struct model *m, const struct model_node *n)
{
	size_t pods = 0;
	char a[48];

	if (!n->info.per_gpu || n->mem_pending <= 0)
		return 0;
	for (size_t k = 0; k < n->npods; k++) {
		const struct model_pod *p = &m->pods[n->pods[k]];
		bool waiting = false;

		for (size_t g = 0; g < p->ngpus; g++)
			waiting |= p->gpus[g].gpu < 0;
		pods += waiting;
	}
	amount_text(a, sizeof(a), n, n->mem_pending, 0);
	/* the pods are counted where every one of the node's was kept (-d) */
	if (n->npods < n->pods_held)
		return tabwriter_printf(tw, "%s%s\t-\t%s\t-\t-\t-\t-\n", prefix, n->name, a) < 0 ? -1 : 0;
	return tabwriter_printf(tw, "%s%s\t-\t%s\t-\t-\t-\t%zu\n", prefix, n->name, a, pods) < 0 ? -1 : 0;
}

static int gpu_rows(struct tabwriter *tw, const char *prefix, const struct model *m, const struct model_node *n)
{
	for (int g = 0; g < n->ngpus; g++) {
		const struct model_gpu *gp = &n->gpus[g];
		char a[48], u[48], t[48], ut[16];

		/* where the scheme does not say which GPU a pod holds, a
		 * one-GPU node's figure is still that GPU's */
		if (!n->info.per_gpu && n->ngpus == 1)
			amount_text(a, sizeof(a), n, n->mem_allocated, n->mem_total);
		else if (!n->info.per_gpu)
			strcpy(a, "-");
		else
			amount_text(a, sizeof(a), n, n->unit == UNIT_SLOTS ? gp->slots_used : gp->mem_allocated,
				    n->unit == UNIT_SLOTS ? gp->slots : gp->mem_total);
		mem_text(u, sizeof(u), gp->used_known, gp->used_bytes, n->unit);
		if (gp->total_known)
			mem_text(t, sizeof(t), true, gp->total_bytes, n->unit);
		else if (n->unit != UNIT_SLOTS)
			amount_text(t, sizeof(t), n, gp->mem_total, 0);
		else
			strcpy(t, "-");
		if (gp->util_known)
			snprintf(ut, sizeof(ut), "%.0f%%", gp->util);
		else
			strcpy(ut, "-");
		if (tabwriter_printf(tw, "%s%s\t%d\t%s\t%s\t%s\t%s\t%zu\n", prefix, n->name, gp->index, a, u, t, ut,
				     gp->npods) < 0)
			return -1;
	}
	return pending_row(tw, prefix, m, n);
}

static int pod_rows(struct tabwriter *tw, const char *prefix, const struct model *m, const struct model_node *n)
{
	for (size_t k = 0; k < n->npods; k++) {
		const struct model_pod *p = &m->pods[n->pods[k]];
		char gpus[64] = "", a[48], u[48];
		size_t len = 0;

		for (size_t g = 0; g < p->ngpus && len < sizeof(gpus) - 8; g++) {
			if (p->gpus[g].gpu < 0)
				len += (size_t)snprintf(gpus + len, sizeof(gpus) - len, "%spending", len ? "," : "");
			else
				len += (size_t)snprintf(gpus + len, sizeof(gpus) - len, "%s%d", len ? "," : "",
							p->gpus[g].gpu);
		}
		if (n->unit == UNIT_SLOTS)
			snprintf(a, sizeof(a), "%lld GPU%s", (long long)p->mem, p->mem == 1 ? "" : "s");
		else
			amount_text(a, sizeof(a), n, p->mem, 0);
		mem_text(u, sizeof(u), p->used_known, p->used_bytes, n->unit);
		if (tabwriter_printf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\n", prefix, p->namespace, p->name, n->name,
				     *gpus ? gpus : "-", a, u) < 0)
			return -1;
	}
	return 0;
}

static const char *finding_title(const char *code)
{
	if (strcmp(code, "OverUse") == 0)
		return "using more GPU memory than allocated";
	if (strcmp(code, "Idle") == 0)
		return "holding GPU memory they hardly use";
	if (strcmp(code, "Unaccounted") == 0)
		return "GPU memory in use that no pod was allocated";
	if (strcmp(code, "LimitMismatch") == 0)
		return "a device limit other than the allocation";
	return "";
}

int render_findings(FILE *out, const struct model *m, struct kerr *err)
{
	static const char *const order[] = {"OverUse", "Idle", "Unaccounted", "LimitMismatch", NULL};

	for (size_t o = 0; order[o]; o++) {
		size_t count = 0;

		for (size_t i = 0; i < m->usage.findings.len; i++)
			count += strcmp(m->usage.findings.items[i].code, order[o]) == 0;
		if (!count)
			continue;
		if (fprintf(out, "\n%s (%zu): %s\n", order[o], count, finding_title(order[o])) < 0)
			return fail(err);
		for (size_t i = 0; i < m->usage.findings.len; i++)
			if (strcmp(m->usage.findings.items[i].code, order[o]) == 0 &&
			    fprintf(out, "  %s\n", m->usage.findings.items[i].message) < 0)
				return fail(err);
	}
	return 0;
}

int render_usage_cluster(FILE *out, const struct model *m, bool details, const char *cluster, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	char *head = NULL, *prefix = NULL;
	int rc = -1;

	if (!tw)
		return fail(err);
	if (!cluster)
		rc = 0;
	else if (asprintf(&head, "%-*s\t", (int)strlen(cluster), "CLUSTER") >= 0 &&
		 asprintf(&prefix, "%s\t", cluster) >= 0)
		rc = 0;
	if (rc == 0)
		rc = table(tw, m, head ? head : "", prefix ? prefix : "", "NODE\tGPU\tALLOCATED\tUSED\tTOTAL\tUTIL\tPODS\n",
			   gpu_rows);
	if (rc == 0 && details)
		rc = tabwriter_puts(tw, "\n") < 0 ? -1
						  : table(tw, m, head ? head : "", prefix ? prefix : "",
							  "NAMESPACE\tPOD\tNODE\tGPU\tALLOCATED\tUSED\n", pod_rows);
	if (rc == 0)
		rc = tabwriter_flush_to(tw, out);
	tabwriter_free(tw);
	free(head);
	free(prefix);
	if (rc < 0)
		return fail(err);
	return render_findings(out, m, err);
}

int render_usage(FILE *out, const struct model *m, bool details, struct kerr *err)
{
	return render_usage_cluster(out, m, details, NULL, err);
}

int render_usage_opts(FILE *out, const struct model *m, bool details, const struct render_table_opts *o,
		      struct kerr *err)
{
	struct model v = *m;
	struct tabwriter *tw;
	int rc;

	if (!o->no_headers && !o->sort_by)
		return render_usage(out, m, details, err);
	/* a view in the order asked: the nodes are copies, the pods shared */
	if (!(v.nodes = render_nodes_in_order(m, o->sort_by)))
		return fail(err);
	if (!o->no_headers) {
		rc = render_usage(out, &v, details, err);
		free(v.nodes);
		return rc;
	}
	/* the GPUs' rows, then with -d the pods', each table aligned on its own */
	rc = 0;
	for (int k = 0; k < (details ? 2 : 1) && rc == 0; k++) {
		if (!(tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING))) {
			rc = -1;
			break;
		}
		rc = table(tw, &v, "", "", "", k ? pod_rows : gpu_rows);
		if (rc == 0)
			rc = tabwriter_flush_to(tw, out);
		tabwriter_free(tw);
	}
	free(v.nodes);
	return rc < 0 ? fail(err) : 0;
}
