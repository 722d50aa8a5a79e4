/* The published tables of kubectl-inspect-gpushare, rebuilt from the model. */
#include "render.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columns.h"
#include "tabwriter.h"
#include "termsafe.h"

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

/* What an empty cell reads as where every row must have the same number
 * of fields (--no-headers, for awk): 0 for a figure, - for anything else. */
static const char *blank_cell(const struct column_ref *ref)
{
	return ref->id == COL_PENDING ? "0" : "-";
}

/* One row: cells joined by tabs, the last one unterminated (not padded);
 * filled: no cell left empty. */
static char *row_text(const struct model *m, const struct model_node *n, const struct column_ref *cols,
		      size_t ncols, bool filled)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	bool ok = f != NULL;

	for (size_t i = 0; ok && i < ncols; i++) {
		char *cell = n ? columns[cols[i].id].cell(m, n, cols[i].gpu) : column_header(m, &cols[i]);

		/* a cell may hold outside text: no tab or newline of its own */
		ok = cell && termsafe_fputs(filled && !*cell ? blank_cell(&cols[i]) : cell, f) >= 0 && fputc(i + 1 < ncols ? '\t' : '\n', f) != EOF;
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

/* The units the nodes are shown in, in the fixed order GiB, MiB, slots. */
static size_t unit_groups(const struct model *m, enum mem_unit ret[UNIT_SLOTS + 1])
{
	size_t n = 0;

	for (int u = 0; u <= UNIT_SLOTS; u++)
		if (m->units[u].totals.nodes)
			ret[n++] = (enum mem_unit)u;
	return n;
}

/* The model as seen by one unit's table: its nodes (shallow copies), totals
 * and columns.  Only the array is owned. */
static int unit_view(const struct model *m, enum mem_unit u, struct model *v)
{
	const struct model_unit_group *g = &m->units[u];
	size_t k = 0;

	*v = *m;
	v->nodes = calloc(g->totals.nodes ? g->totals.nodes : 1, sizeof(*v->nodes));
	if (!v->nodes)
		return -1;
	for (size_t i = 0; i < m->nnodes; i++)
		if (m->nodes[i].unit == u)
			v->nodes[k++] = m->nodes[i];
	v->nnodes = k;
	v->totals = g->totals;
	v->max_gpus = g->max_gpus;
	v->any_pending = g->any_pending;
	v->any_core = g->any_core;
	return 0;
}

/* "cce and nvidia": the schemes of the nodes whose per-GPU placement is not
 * published, NULL when every node publishes it.  malloc'd. */
static char *hidden_split_schemes(const struct model *m, bool *failed)
{
	char *list = NULL;
	size_t len = 0, count = 0;
	FILE *f = open_memstream(&list, &len);
	const struct scheme *seen[16];
	size_t nseen = 0;

	if (!f) {
		*failed = true;
		return NULL;
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct scheme *sc = m->nodes[i].scheme;
		bool dup = false;

		if (m->nodes[i].info.per_gpu || !sc)
			continue;
		for (size_t j = 0; j < nseen; j++)
			dup |= seen[j] == sc;
		if (dup || nseen == sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[nseen++] = sc;
	}
	for (size_t j = 0; j < nseen; j++, count++)
		fprintf(f, "%s%s", j == 0 ? "" : j + 1 == nseen ? " and " : ", ", seen[j]->name);
	if (fclose(f) != 0) {
		free(list);
		*failed = true;
		return NULL;
	}
	if (!count) {
		free(list);
		return NULL;
	}
	return list;
}

/* -o wide: what a pod can still get on one GPU, and the memory nodes that
 * cannot take pods hold apart (never offered by fit). */
static int fragmentation_lines(struct tabwriter *tw, const struct model *m)
{
	const struct model_frag *f;
	const char *u = mem_unit_name(m->totals.unit);

	if (m->totals.unit == UNIT_SLOTS || !m->nnodes)
		return 0;
	f = &m->frag[m->totals.unit];
	if (tabwriter_printf(tw, "Largest request that fits on one GPU now: %lld %s (%zu GPU%s)\n",
			     (long long)f->largest, u, f->gpus, f->gpus == 1 ? "" : "s") < 0)
		return -1;
	if (f->unschedulable_nodes &&
	    tabwriter_printf(tw, "Free on nodes that cannot take pods: %lld %s (%zu node%s)\n",
			     (long long)f->free_unschedulable, u, f->unschedulable_nodes,
			     f->unschedulable_nodes == 1 ? "" : "s") < 0)
		return -1;
	return 0;
}

static int summary_tables(FILE *out, const struct model *m, const struct render_table_opts *o,
			  const enum mem_unit *units, size_t n, struct kerr *err);

static const struct column *sort_column(const char *key)
{
	static const char *const keys[][2] = {
		{ "name", "name" }, { "allocated", "memory" }, { "free", "free" }, { "pending", "pending" },
	};

	for (size_t i = 0; key && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcasecmp(key, keys[i][0]) == 0)
			return column_by_sort_key(keys[i][1]);
	return NULL;
}

bool render_sort_key_valid(const char *key)
{
	return sort_column(key) != NULL;
}

static int cmp_shown(const void *pa, const void *pb, void *ctx);

struct model_node *render_nodes_in_order(const struct model *m, const char *sort_by)
{
	struct model_node *order = malloc((m->nnodes ? m->nnodes : 1) * sizeof(*order));

	if (!order)
		return NULL;
	if (m->nnodes)
		memcpy(order, m->nodes, m->nnodes * sizeof(*order));
	if (sort_by && m->nnodes > 1)
		qsort_r(order, m->nnodes, sizeof(*order), cmp_shown, (void *)sort_column(sort_by));
	return order;
}

/* name ascending; the figures largest first, as the live view sorts them */
static int cmp_shown(const void *pa, const void *pb, void *ctx)
{
	const struct model_node *a = pa, *b = pb;
	const struct column *c = ctx;
	int r = c && c->id != COL_NAME && c->compare ? c->compare(b, a) : 0;

	return r ? r : strcmp(a->name, b->name);
}

static int summary_table(FILE *out, const struct model *m, const struct render_table_opts *o, struct kerr *err)
{
	bool wide = o->wide;
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	struct column_ref *cols;
	size_t ncols, rule = 0;
	char *line, *hidden, use[32];
	bool failed = false;

	if (!tw)
		return fail(err);
	cols = columns_select(m, wide, &ncols);
	if (!cols)
		goto oom;
	line = o->no_headers ? strdup("") : row_text(m, NULL, cols, ncols, false);
	if (!line || (o->cluster && !o->no_headers && tabwriter_printf(tw, "%-*s\t", (int)strlen(o->cluster),
									 "CLUSTER") < 0) ||
	    tabwriter_puts(tw, line) < 0) {
		free(line);
		goto oom;
	}
	free(line);
	for (size_t i = 0; i < m->nnodes; i++) {
		line = row_text(m, &m->nodes[i], cols, ncols, o->no_headers);
		if (!line || (o->cluster && tabwriter_printf(tw, "%s\t", o->cluster) < 0) ||
		    tabwriter_puts(tw, line) < 0) {
			free(line);
			goto oom;
		}
		/* the rule is as long as the first node's row, tabs and newline
		 * included, plus 20: what the published output shows */
		if (i == 0)
			rule = strlen(line) + 20;
		free(line);
	}
	/* --no-headers: the rows alone, no footer under them */
	if (o->no_headers) {
		free(cols);
		return flush(tw, out, err);
	}
	if (put_dashes(tw, rule) < 0)
		goto oom;
	if (tabwriter_printf(tw, "Allocated/Total GPU %s In Cluster:\n%lld/%lld (%s)\n",
			     m->totals.unit == UNIT_SLOTS ? "Slots" : "Memory", (long long)m->totals.mem_allocated,
			     (long long)m->totals.mem_total,
			     column_use_text(use, m->totals.mem_allocated, m->totals.mem_total, false)) < 0)
		goto oom;
	if (m->any_core &&
	    tabwriter_printf(tw, "Allocated/Total GPU Core(%%) In Cluster:\n%lld/%lld (%s)\n",
			     (long long)m->totals.core_allocated, (long long)m->totals.core_total,
			     column_use_text(use, m->totals.core_allocated, m->totals.core_total, false)) < 0)
		goto oom;
	if (wide && fragmentation_lines(tw, m) < 0)
		goto oom;
	hidden = hidden_split_schemes(m, &failed);
	if (failed)
		goto oom;
	if (hidden && tabwriter_printf(tw, "Per-GPU split not published by %s nodes: figures are per node.\n",
				       hidden) < 0) {
		free(hidden);
		goto oom;
	}
	free(hidden);
	free(cols);
	return flush(tw, out, err);
oom:
	free(cols);
	tabwriter_free(tw);
	return fail(err);
}

#define ROUNDED_NOTE                                                                                 \
	"Figures counted in MiB are shown in whole GiB, rounded down per GPU (as the device plugin "    \
	"counts GiB); sums add up the rounded figures. --unit MiB shows them exactly.\n"

/* Say so under the tables when converting to GiB dropped parts of a GiB. */
static int rounded_note(FILE *out, const struct model *m, struct kerr *err)
{
	if (m->rounded && fputs(ROUNDED_NOTE, out) == EOF)
		return fail(err);
	return 0;
}

int render_summary(FILE *out, const struct model *m, bool wide, struct kerr *err)
{
	return render_summary_opts(out, m, &(struct render_table_opts){ .wide = wide }, err);
}

int render_summary_opts(FILE *out, const struct model *m, const struct render_table_opts *o, struct kerr *err)
{
	enum mem_unit units[UNIT_SLOTS + 1];
	size_t n = unit_groups(m, units);

	if (n == 0)
		return summary_table(out, m, o, err);
	if (summary_tables(out, m, o, units, n, err) < 0)
		return -1;
	return o->no_headers ? 0 : rounded_note(out, m, err);
}

static int summary_tables(FILE *out, const struct model *m, const struct render_table_opts *o,
			  const enum mem_unit *units, size_t n, struct kerr *err)
{
	/* one table per unit, so that no column mixes units */
	for (size_t i = 0; i < n; i++) {
		struct model v;
		int rc;

		if (i > 0 && !o->no_headers && fputc('\n', out) == EOF)
			return fail(err);
		if (unit_view(m, units[i], &v) < 0)
			return fail(err);
		/* the view's nodes are copies: ordering them leaves the model as it is */
		if (o->sort_by && v.nnodes > 1)
			qsort_r(v.nodes, v.nnodes, sizeof(*v.nodes), cmp_shown, (void *)sort_column(o->sort_by));
		rc = summary_table(out, &v, o, err);
		free(v.nodes);
		if (rc < 0)
			return -1;
	}
	return 0;
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

/* " MiB" after a details heading where the unit is not the one of a
 * published single-unit table: clusters that mix units, and slots. */
static const char *details_unit(const struct model *m, const struct model_node *n, size_t ngroups)
{
	if (ngroups <= 1 && n->unit != UNIT_SLOTS)
		return "";
	return n->unit == UNIT_GIB ? " GiB" : n->unit == UNIT_MIB ? " MiB" : " slots";
}

/* Pods that hold a compute share on this node: the table gets a column. */
static bool node_has_core(const struct model *m, const struct model_node *n)
{
	for (size_t i = 0; i < n->npods; i++)
		if (m->pods[n->pods[i]].core > 0)
			return true;
	return false;
}

/* Whether a pod on the node names what it holds its devices through. */
static bool node_has_via(const struct model *m, const struct model_node *n)
{
	for (size_t i = 0; i < n->npods; i++)
		if (m->pods[n->pods[i]].via)
			return true;
	return false;
}

static int node_details(struct tabwriter *tw, const struct model *m, const struct model_node *n,
			size_t ngroups, bool headers, size_t *rule, bool *marked)
{
	bool via = node_has_via(m, n);
	bool per_gpu = n->info.per_gpu;
	bool pending = per_gpu && node_has_pending(m, n);
	bool core = node_has_core(m, n);
	const char *unit = details_unit(m, n, ngroups);
	char *rows = NULL, use[32];
	size_t rows_len = 0;
	char *name = termsafe_str(n->name), *ip = termsafe_str(n->ip);
	FILE *f;
	int rc;

	rc = name && ip ? tabwriter_printf(tw, "NAME:\t%s\nIPADDRESS:\t%s\n\n", name, ip) : -1;
	free(name);
	free(ip);
	if (rc < 0)
		return -1;
	if (headers) {
		if (tabwriter_puts(tw, via ? "NAME\tNAMESPACE\tHELD THROUGH\t" : "NAME\tNAMESPACE\t") < 0)
			return -1;
		/* where the scheme does not publish which GPU a pod holds, one
		 * column for the node rather than GPU columns it cannot fill */
		if (!per_gpu && tabwriter_printf(tw, "NODE(Allocated%s)\t", unit) < 0)
			return -1;
		for (int g = 0; per_gpu && g < n->ngpus; g++)
			if (tabwriter_printf(tw, "GPU%d(Allocated%s)\t", g, unit) < 0)
				return -1;
		if (pending && tabwriter_printf(tw, "Pending(Allocated%s)\t", unit) < 0)
			return -1;
		if (core && tabwriter_puts(tw, "GPU Core(%)\t") < 0)
			return -1;
		if (tabwriter_puts(tw, "\n") < 0)
			return -1;
	}

	f = open_memstream(&rows, &rows_len);
	if (!f)
		return -1;
	for (size_t i = 0; i < n->npods; i++) {
		const struct model_pod *p = &m->pods[n->pods[i]];

		/* '*': no GPU chosen yet, or the device plugin has not
		 * confirmed the one chosen */
		bool unassigned = !p->assigned;

		for (size_t g = 0; g < p->ngpus; g++)
			unassigned |= p->gpus[g].gpu < 0;
		termsafe_fputs(p->name, f);
		fprintf(f, "%s\t", unassigned ? "*" : "");
		termsafe_fputs(p->namespace, f);
		fputc('\t', f);
		if (via) {
			termsafe_fputs(p->via ? p->via : "-", f);
			fputc('\t', f);
		}
		*marked |= unassigned;
		if (!per_gpu)
			fprintf(f, "%lld\t", (long long)p->mem);
		for (int g = 0; per_gpu && g < n->ngpus; g++)
			fprintf(f, "%lld\t", (long long)pod_on_gpu(p, g));
		if (pending)
			fprintf(f, "%lld\t", (long long)pod_on_gpu(p, -1));
		if (core)
			fprintf(f, "%lld\t", (long long)p->core);
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
	/* --no-headers: the pod rows alone, no figures under them */
	if (!headers)
		return 0;
	/* "over-allocated" is left out of the column, which it would widen */
	if (tabwriter_printf(tw, "Allocated :\t%lld (%s)%s\nTotal :\t%lld \t\n", (long long)n->mem_allocated,
			     column_use_text(use, n->mem_allocated, n->mem_total, false),
			     n->mem_total <= 0 && n->mem_allocated > 0 ? "" : "\t", (long long)n->mem_total) < 0)
		return -1;
	return put_dashes(tw, *rule);
}

static int details_footer(struct tabwriter *tw, const struct model_totals *t, size_t ngroups)
{
	const char *what = t->unit == UNIT_SLOTS ? "Slots"
			   : ngroups <= 1	 ? "Memory"
			   : t->unit == UNIT_GIB ? "Memory(GiB)"
						 : "Memory(MiB)";

	char use[32];

	return tabwriter_printf(tw, "Allocated/Total GPU %s In Cluster:\t%lld/%lld (%s)\t\n", what,
				(long long)t->mem_allocated, (long long)t->mem_total,
				column_use_text(use, t->mem_allocated, t->mem_total, false));
}

int render_details(FILE *out, const struct model *m, struct kerr *err)
{
	return render_details_opts(out, m, &(struct render_table_opts){ 0 }, err);
}

int render_details_opts(FILE *out, const struct model *m, const struct render_table_opts *o, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	enum mem_unit units[UNIT_SLOTS + 1];
	size_t ngroups = unit_groups(m, units), rule = 0, shown = 0;
	struct model_node *order = NULL;
	bool marked = false;

	if (!tw)
		return fail(err);
	/* copies, so that ordering them leaves the model as it is */
	if (m->nnodes && !(order = malloc(m->nnodes * sizeof(*order))))
		goto oom;
	if (m->nnodes)
		memcpy(order, m->nodes, m->nnodes * sizeof(*order));
	if (o->sort_by && m->nnodes > 1)
		qsort_r(order, m->nnodes, sizeof(*order), cmp_shown, (void *)sort_column(o->sort_by));
	/* nodes by unit (GiB, MiB, slots), in the order asked within a unit */
	for (size_t u = 0; u < ngroups; u++)
		for (size_t i = 0; i < m->nnodes; i++) {
			if (order[i].unit != units[u])
				continue;
			if (shown++ > 0 && tabwriter_puts(tw, "\n") < 0)
				goto oom;
			if (node_details(tw, m, &order[i], ngroups, !o->no_headers, &rule, &marked) < 0)
				goto oom;
		}
	free(order);
	order = NULL;
	if (o->no_headers)
		return flush(tw, out, err);
	if (m->nnodes && tabwriter_puts(tw, "\n") < 0)
		goto oom;
	if (ngroups == 0 && details_footer(tw, &m->totals, 1) < 0)
		goto oom;
	for (size_t u = 0; u < ngroups; u++)
		if (details_footer(tw, &m->units[units[u]].totals, ngroups) < 0)
			goto oom;
	if (marked && tabwriter_puts(tw, "* GPU not yet assigned to the pod by the device plugin\n") < 0)
		goto oom;
	if (flush(tw, out, err) < 0)
		return -1;
	return rounded_note(out, m, err);
oom:
	free(order);
	tabwriter_free(tw);
	return fail(err);
}

int render_list_cut(FILE *out, const char *const *items, size_t n, size_t shown)
{
	size_t k = n > shown ? shown : n;

	for (size_t i = 0; i < k; i++) {
		if (i && fputs(", ", out) == EOF)
			return -1;
		if (termsafe_fputs(items[i], out) < 0)
			return -1;
	}
	if (n > k && fprintf(out, " and %zu more", n - k) < 0)
		return -1;
	return 0;
}

int render_unscheduled(FILE *out, const struct model *m, struct kerr *err)
{
	int64_t sum[UNIT_SLOTS + 1] = {0};
	bool asked[UNIT_SLOTS + 1] = {false};
	size_t nasked = 0, done = 0, shown, claims = 0;
	char **names;
	int rc = 0;

	if (!m->nunscheduled)
		return 0;
	for (size_t i = 0; i < m->nunscheduled; i++) {
		const struct model_pod *p = &m->pods[m->unscheduled[i]];

		/* a claim of devices asks no memory figure: said apart */
		if (p->claim) {
			claims++;
			continue;
		}
		sum[p->unit] += p->mem;
		nasked += !asked[p->unit];
		asked[p->unit] = true;
	}
	if (fprintf(out, "Not scheduled yet: %zu pod%s%s", m->nunscheduled, m->nunscheduled == 1 ? "" : "s",
		    nasked ? " asking for " : "") < 0)
		return fail(err);
	/* each unit on its own: GiB, MiB and slots are never added up */
	for (int u = 0; u <= UNIT_SLOTS; u++) {
		if (!asked[u])
			continue;
		if (fprintf(out, "%s%lld %s", done == 0 ? "" : done + 1 == nasked ? " and " : ", ", (long long)sum[u],
			    u == UNIT_SLOTS && sum[u] == 1 ? "slot" : mem_unit_name((enum mem_unit)u)) < 0)
			return fail(err);
		done++;
	}
	if (claims && (nasked ? fprintf(out, ", %zu waiting for a claim of devices", claims)
			      : fprintf(out, " waiting for a claim of devices")) < 0)
		return fail(err);
	if (fputs(": ", out) == EOF)
		return fail(err);
	/* the first few by name, as grouped warnings name theirs: the JSON
	 * document lists every one */
	shown = m->nunscheduled > RENDER_OBJECTS_SHOWN ? RENDER_OBJECTS_SHOWN : m->nunscheduled;
	names = calloc(shown ? shown : 1, sizeof(*names));
	if (!names)
		return fail(err);
	for (size_t i = 0; i < shown; i++) {
		const struct model_pod *p = &m->pods[m->unscheduled[i]];

		if (asprintf(&names[i], "%s/%s", p->namespace ? p->namespace : "", p->name ? p->name : "") < 0) {
			names[i] = NULL;
			rc = -1;
			break;
		}
	}
	if (rc == 0)
		rc = render_list_cut(out, (const char *const *)names, m->nunscheduled, shown);
	for (size_t i = 0; i < shown; i++)
		free(names[i]);
	free(names);
	if (rc < 0 || fputc('\n', out) == EOF)
		return fail(err);
	return 0;
}

/* The rows of one roll-up, each after prefix (a cell and its tab, or ""). */
static bool group_rows(struct tabwriter *tw, const char *prefix, const struct model_groups *g)
{
	bool ok = true;

	for (size_t i = 0; ok && i < g->n; i++) {
		const struct model_group_row *r = &g->rows[i];
		char use[32];

		/* a group with allocations and no total is over-allocated, not 0% */
		if (g->per_node)
			ok = tabwriter_printf(tw, "%s%s\t%s\t%zu\t%zu\t%lld\t%lld\t%s\t%lld\n", prefix, r->key,
					      mem_unit_name(r->unit), r->nodes, r->pods, (long long)r->mem_allocated,
					      (long long)r->mem_total,
					      column_use_text(use, r->mem_allocated, r->mem_total, false),
					      (long long)r->core_allocated) >= 0;
		else
			ok = tabwriter_printf(tw, "%s%s\t%s\t-\t%zu\t%lld\t-\t-\t%lld\n", prefix, r->key,
					      mem_unit_name(r->unit), r->pods, (long long)r->mem_allocated,
					      (long long)r->core_allocated) >= 0;
	}
	return ok;
}

/* n roll-ups of one kind in one table, each row after names[i] when names
 * is not NULL (a CLUSTER column); no_headers: the rows alone. */
static int groups_table(FILE *out, const char *const *names, const struct model_groups *g, size_t n,
			bool no_headers, struct kerr *err)
{
	struct tabwriter *tw = tabwriter_new(0, PADDING, TABWRITER_TRIM_TRAILING);
	char head[32];
	bool ok;

	if (!tw)
		return fail(err);
	snprintf(head, sizeof(head), "%s", n ? model_by_name(g[0].by) : "");
	for (char *c = head; *c; c++)
		*c = (char)(*c - 'a' + 'A');
	ok = no_headers || tabwriter_printf(tw, "%s%s\tUNIT\tNODES\tPODS\tALLOCATED\tTOTAL\tUSE%%\tCORE(%%)\n",
			      names ? "CLUSTER\t" : "", head) >= 0;
	for (size_t i = 0; ok && i < n; i++) {
		char *cell = NULL, *prefix = NULL;

		if (names && (!(cell = termsafe_str(names[i])) || asprintf(&prefix, "%s\t", cell) < 0))
			prefix = NULL;
		ok = (!names || prefix) && group_rows(tw, prefix ? prefix : "", &g[i]);
		free(cell);
		free(prefix);
	}
	if (!ok) {
		tabwriter_free(tw);
		return fail(err);
	}
	return flush(tw, out, err);
}

int render_groups(FILE *out, const struct model_groups *g, bool no_headers, struct kerr *err)
{
	return groups_table(out, NULL, g, 1, no_headers, err);
}

int render_groups_fleet(FILE *out, const char *const *names, const struct model_groups *g, size_t n,
			struct kerr *err)
{
	return groups_table(out, names, g, n, false, err);
}

int render_pending_reasons(FILE *out, const struct model *m, struct kerr *err)
{
	bool header = false;

	for (size_t i = 0; i < m->npods; i++) {
		const struct model_pod *p = &m->pods[i];

		if (!p->pending_reason)
			continue;
		if (!header && fputs("Why pending:\n", out) == EOF)
			return fail(err);
		header = true;
		if (fprintf(out, "  %s/%s: %s\n", p->namespace, p->name, p->pending_reason) < 0)
			return fail(err);
	}
	return 0;
}
