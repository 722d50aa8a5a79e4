/* The published tables of kubectl-inspect-gpushare, rebuilt from the model. */
#include "render.h"

#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "tabwriter.h"

#define PADDING 2

static int fail(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "cannot write the table");
}

static int flush(struct tabwriter *tw, FILE *out, struct kerr *err)
{
	int rc = tabwriter_flush_to(tw, out);

	tabwriter_free(tw);
	return rc < 0 ? fail(err) : 0;
}

static int put_dashes(struct tabwriter *tw, size_t n)
{
	char *s = malloc(n + 2);
	int rc;

	if (!s)
		return -1;
	memset(s, '-', n);
	s[n] = '\n';
	s[n + 1] = '\0';
	rc = tabwriter_puts(tw, s);
	free(s);
	return rc;
}

/* One row: cells joined by tabs, the last one unterminated (not padded). */
static char *row_text(const struct model *m, const struct model_node *n, const struct column_ref *cols,
		      size_t ncols)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	bool ok = f != NULL;

	for (size_t i = 0; ok && i < ncols; i++) {
		char *cell = n ? columns[cols[i].id].cell(m, n, cols[i].gpu) : column_header(m, &cols[i]);

		ok = cell && fputs(cell, f) >= 0 && fputc(i + 1 < ncols ? '\t' : '\n', f) != EOF;
		free(cell);
	}
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok) {
		free(line);
		return NULL;
	}
	return line;
}

int render_summary(FILE *out, const struct model *m, bool wide, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	struct column_ref *cols;
	size_t ncols, rule = 0;
	char *line;

	if (!tw)
		return fail(err);
	cols = columns_select(m, wide, &ncols);
	if (!cols)
		goto oom;
	line = row_text(m, NULL, cols, ncols);
	if (!line || tabwriter_puts(tw, line) < 0) {
		free(line);
		goto oom;
	}
	free(line);
	for (size_t i = 0; i < m->nnodes; i++) {
		line = row_text(m, &m->nodes[i], cols, ncols);
		if (!line || tabwriter_puts(tw, line) < 0) {
			free(line);
			goto oom;
		}
		/* the rule is as long as the first node's row, tabs and newline
		 * included, plus 20: what the published output shows */
		if (i == 0)
			rule = strlen(line) + 20;
		free(line);
	}
	if (put_dashes(tw, rule) < 0)
		goto oom;
	if (tabwriter_printf(tw, "Allocated/Total GPU Memory In Cluster:\n%lld/%lld (%lld%%)\n",
			     (long long)m->totals.mem_allocated, (long long)m->totals.mem_total,
			     column_percent(m->totals.mem_allocated, m->totals.mem_total)) < 0)
		goto oom;
	if (m->any_core &&
	    tabwriter_printf(tw, "Allocated/Total GPU Core(%%) In Cluster:\n%lld/%lld (%lld%%)\n",
			     (long long)m->totals.core_allocated, (long long)m->totals.core_total,
			     column_percent(m->totals.core_allocated, m->totals.core_total)) < 0)
		goto oom;
	free(cols);
	return flush(tw, out, err);
oom:
	free(cols);
	tabwriter_free(tw);
	return fail(err);
}

/* Memory a pod holds on one GPU of its node (-1 = pending). */
static int64_t pod_on_gpu(const struct model_pod *p, int gpu)
{
	int64_t sum = 0;

	for (size_t i = 0; i < p->ngpus; i++)
		if (p->gpus[i].gpu == gpu)
			sum += p->gpus[i].mem;
	return sum;
}

static bool node_has_pending(const struct model *m, const struct model_node *n)
{
	if (n->mem_pending)
		return true;
	for (size_t i = 0; i < n->npods; i++)
		for (size_t g = 0; g < m->pods[n->pods[i]].ngpus; g++)
			if (m->pods[n->pods[i]].gpus[g].gpu < 0)
				return true;
	return false;
}

static int node_details(struct tabwriter *tw, const struct model *m, const struct model_node *n,
			size_t *rule)
{
	bool pending = node_has_pending(m, n);
	char *rows = NULL;
	size_t rows_len = 0;
	FILE *f;
	int rc;

	if (tabwriter_printf(tw, "NAME:\t%s\nIPADDRESS:\t%s\n\nNAME\tNAMESPACE\t", n->name, n->ip) < 0)
		return -1;
	for (int g = 0; g < n->ngpus; g++)
		if (tabwriter_printf(tw, "GPU%d(Allocated)\t", g) < 0)
			return -1;
	if (pending && tabwriter_puts(tw, "Pending(Allocated)\t") < 0)
		return -1;
	if (tabwriter_puts(tw, "\n") < 0)
		return -1;

	f = open_memstream(&rows, &rows_len);
	if (!f)
		return -1;
	for (size_t i = 0; i < n->npods; i++) {
		const struct model_pod *p = &m->pods[n->pods[i]];

		fprintf(f, "%s\t%s\t", p->name, p->namespace);
		for (int g = 0; g < n->ngpus; g++)
			fprintf(f, "%lld\t", (long long)pod_on_gpu(p, g));
		if (pending)
			fprintf(f, "%lld\t", (long long)pod_on_gpu(p, -1));
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(rows);
		return -1;
	}
	/* the rule under the first node: its pod rows' length plus 10 */
	if (*rule == 0)
		*rule = rows_len + 10;
	rc = tabwriter_write(tw, rows, rows_len);
	free(rows);
	if (rc < 0)
		return -1;
	if (tabwriter_printf(tw, "Allocated :\t%lld (%lld%%)\t\nTotal :\t%lld \t\n", (long long)n->mem_allocated,
			     column_percent(n->mem_allocated, n->mem_total), (long long)n->mem_total) < 0)
		return -1;
	return put_dashes(tw, *rule);
}

int render_details(FILE *out, const struct model *m, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	size_t rule = 0;

	if (!tw)
		return fail(err);
	for (size_t i = 0; i < m->nnodes; i++) {
		if (i > 0 && tabwriter_puts(tw, "\n") < 0)
			goto oom;
		if (node_details(tw, m, &m->nodes[i], &rule) < 0)
			goto oom;
	}
	if (m->nnodes && tabwriter_puts(tw, "\n") < 0)
		goto oom;
	if (tabwriter_printf(tw, "Allocated/Total GPU Memory In Cluster:\t%lld/%lld (%lld%%)\t\n",
			     (long long)m->totals.mem_allocated, (long long)m->totals.mem_total,
			     column_percent(m->totals.mem_allocated, m->totals.mem_total)) < 0)
		goto oom;
	return flush(tw, out, err);
oom:
	tabwriter_free(tw);
	return fail(err);
}

int render_unscheduled(FILE *out, const struct model *m, struct kerr *err)
{
	int64_t sum = 0;

	if (!m->nunscheduled)
		return 0;
	for (size_t i = 0; i < m->nunscheduled; i++)
		sum += m->pods[m->unscheduled[i]].mem;
	if (fprintf(out, "Pending (not scheduled): %zu pod%s asking for %lld %s: ", m->nunscheduled,
		    m->nunscheduled == 1 ? "" : "s", (long long)sum, column_unit_name(m->totals.unit)) < 0)
		return fail(err);
	for (size_t i = 0; i < m->nunscheduled; i++) {
		const struct model_pod *p = &m->pods[m->unscheduled[i]];

		if (fprintf(out, "%s%s/%s", i ? ", " : "", p->namespace, p->name) < 0)
			return fail(err);
	}
	if (fputc('\n', out) == EOF)
		return fail(err);
	return 0;
}

int render_warnings(FILE *out, const struct model *m, struct kerr *err)
{
	for (size_t i = 0; i < m->warnings.len; i++)
		if (fprintf(out, "Warning: %s\n", m->warnings.items[i].message) < 0)
			return fail(err);
	return 0;
}
