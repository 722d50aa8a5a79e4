/* kubectl's JSONPath templates evaluated on a document, within the bounds
 * of jsonpath.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath_internal.h"
#include "termsafe.h"

#define MAX_JSON_DEPTH 128

/* The values a step selects: borrowed from the document. */
struct values {
	const json_t **v;
	size_t n, cap;
};

struct eval {
	const json_t *root;
	size_t selected; /* values selected so far, against JSONPATH_MAX_VALUES */
	size_t written;	 /* values written, against JSONPATH_MAX_OUTPUT */
	FILE *out;
	struct kerr *err;
};

static int push(struct eval *e, struct values *vs, const json_t *v)
{
	if (!v)
		return 0;
	if (++e->selected > JSONPATH_MAX_VALUES)
		return kerr_set(e->err, KERR_OTHER, "the template selects more than %u values", JSONPATH_MAX_VALUES);
	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? vs->cap * 2 : 8;
		const json_t **nv = realloc(vs->v, cap * sizeof(*nv));

		if (!nv)
			return kerr_set(e->err, KERR_OTHER, "out of memory");
		vs->v = nv;
		vs->cap = cap;
	}
	vs->v[vs->n++] = v;
	return 0;
}

/* Every value of an array or object, in order. */
static int push_children(struct eval *e, struct values *out, const json_t *v)
{
	const char *key;
	json_t *m;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, m)
			if (push(e, out, m) < 0)
				return -1;
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, m)
			if (push(e, out, m) < 0)
				return -1;
	}
	return 0;
}

/* The value and everything under it, depth first, as kubectl's ".." */
static int push_all(struct eval *e, struct values *out, const json_t *v, int depth)
{
	const char *key;
	json_t *m;
	size_t i;

	if (depth > MAX_JSON_DEPTH)
		return kerr_set(e->err, KERR_OTHER, "the document is nested too deep for the template");
	if (push(e, out, v) < 0)
		return -1;
	if (json_is_array(v)) {
		json_array_foreach(v, i, m)
			if (push_all(e, out, m, depth + 1) < 0)
				return -1;
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, m)
			if (push_all(e, out, m, depth + 1) < 0)
				return -1;
	}
	return 0;
}

static int push_slice(struct eval *e, struct values *out, const json_t *v, const struct jp_step *s)
{
	long n = (long)json_array_size(v);
	long step = s->has[2] ? s->slice[2] : 1;
	long from = s->has[0] ? s->slice[0] : 0, to = s->has[1] ? s->slice[1] : n;

	if (!json_is_array(v) || step <= 0)
		return 0;
	if (from < 0)
		from += n;
	if (to < 0)
		to += n;
	from = from < 0 ? 0 : from > n ? n : from;
	to = to < 0 ? 0 : to > n ? n : to;
	for (long i = from; i < to; i += step)
		if (push(e, out, json_array_get(v, (size_t)i)) < 0)
			return -1;
	return 0;
}

static int path_eval(struct eval *e, const struct jp_path *p, const json_t *cur, struct values *out);

/* The first value an operand gives for one element, or NULL. */
static const json_t *operand_value(struct eval *e, const struct jp_operand *o, const json_t *cur, int *failed)
{
	struct values vs = { 0 };
	const json_t *v;

	if (o->literal)
		return o->literal;
	if (path_eval(e, o->path, cur, &vs) < 0)
		*failed = 1;
	v = vs.n ? vs.v[0] : NULL;
	free(vs.v);
	return v;
}

static bool compare(enum jp_op op, const json_t *a, const json_t *b)
{
	int c;

	if (json_is_number(a) && json_is_number(b)) {
		double x = json_number_value(a), y = json_number_value(b);

		c = x < y ? -1 : x > y;
	} else if (json_is_string(a) && json_is_string(b)) {
		c = strcmp(json_string_value(a), json_string_value(b));
	} else {
		/* values of different kinds are only unequal */
		bool same = json_equal((json_t *)a, (json_t *)b);

		return op == OP_EQ ? same : op == OP_NE ? !same : false;
	}
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_GT: return c > 0;
	case OP_LE: return c <= 0;
	case OP_GE: return c >= 0;
	default: return false;
	}
}

static int push_filtered(struct eval *e, struct values *out, const json_t *v, const struct jp_step *s)
{
	struct values elems = { 0 };
	int failed = 0;

	if (push_children(e, &elems, v) < 0) {
		free(elems.v);
		return -1;
	}
	for (size_t i = 0; i < elems.n && !failed; i++) {
		const json_t *a = operand_value(e, &s->left, elems.v[i], &failed), *b = NULL;
		bool keep;

		if (s->op == OP_EXISTS) {
			keep = a != NULL && !json_is_false(a) && !json_is_null(a);
		} else {
			b = operand_value(e, &s->right, elems.v[i], &failed);
			keep = a && b && compare(s->op, a, b);
		}
		if (keep && push(e, out, elems.v[i]) < 0)
			failed = 1;
	}
	free(elems.v);
	return failed ? -1 : 0;
}

static int step_apply(struct eval *e, const struct jp_step *s, const json_t *v, struct values *out)
{
	switch (s->kind) {
	case STEP_ROOT:
		return push(e, out, e->root);
	case STEP_FIELD:
		for (size_t i = 0; i < s->nnames; i++)
			if (json_is_object(v) && push(e, out, json_object_get(v, s->names[i])) < 0)
				return -1;
		return 0;
	case STEP_WILDCARD:
		return push_children(e, out, v);
	case STEP_RECURSIVE:
		return push_all(e, out, v, 0);
	case STEP_INDEX:
		for (size_t i = 0; i < s->nindex && json_is_array(v); i++) {
			long n = (long)json_array_size(v), k = s->index[i] < 0 ? s->index[i] + n : s->index[i];

			if (k >= 0 && k < n && push(e, out, json_array_get(v, (size_t)k)) < 0)
				return -1;
		}
		return 0;
	case STEP_SLICE:
		return push_slice(e, out, v, s);
	case STEP_FILTER:
		return push_filtered(e, out, v, s);
	}
	return 0;
}

static int path_eval(struct eval *e, const struct jp_path *p, const json_t *cur, struct values *out)
{
	struct values in = { 0 }, next = { 0 };
	int rc = 0;

	if (push(e, &in, cur) < 0)
		return -1;
	for (size_t k = 0; k < p->n && rc == 0; k++) {
		next.n = 0;
		/* $ starts again at the document, whatever came before */
		if (p->steps[k].kind == STEP_ROOT) {
			rc = push(e, &next, e->root);
		} else {
			for (size_t i = 0; i < in.n && rc == 0; i++)
				rc = step_apply(e, &p->steps[k], in.v[i], &next);
		}
		struct values t = in;

		in = next;
		next = t;
	}
	free(next.v);
	for (size_t i = 0; i < in.n && rc == 0; i++)
		rc = push(e, out, in.v[i]);
	free(in.v);
	return rc;
}

/* One value as kubectl's jsonpath prints it: strings as they are, objects
 * and arrays as compact JSON with sorted keys, the rest as JSON.  Outside
 * text in its visible form. */
static int print_value(struct eval *e, const json_t *v)
{
	char *s;
	int rc;

	if (++e->written > JSONPATH_MAX_OUTPUT)
		return kerr_set(e->err, KERR_OTHER, "the template writes more than %u values", JSONPATH_MAX_OUTPUT);
	if (json_is_string(v))
		return termsafe_fputs(json_string_value(v), e->out) < 0 ? kerr_set(e->err, KERR_OTHER, "cannot write") : 0;
	s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (!s)
		return kerr_set(e->err, KERR_OTHER, "out of memory");
	rc = termsafe_fputs(s, e->out);
	free(s);
	return rc < 0 ? kerr_set(e->err, KERR_OTHER, "cannot write") : 0;
}

static int run_action(struct eval *e, const struct jp_node *nd, const json_t *cur)
{
	for (size_t k = 0; k < nd->nitems; k++) {
		const struct jp_item *it = &nd->items[k];
		struct values vs = { 0 };
		int rc = 0;

		/* the template's own text is the user's: written as it is */
		if (it->literal) {
			if (fputs(it->literal, e->out) == EOF)
				return kerr_set(e->err, KERR_OTHER, "cannot write");
			continue;
		}
		if (path_eval(e, it->path, cur, &vs) < 0) {
			free(vs.v);
			return -1;
		}
		for (size_t i = 0; i < vs.n && rc == 0; i++) {
			if (i && fputc(' ', e->out) == EOF)
				rc = kerr_set(e->err, KERR_OTHER, "cannot write");
			else
				rc = print_value(e, vs.v[i]);
		}
		free(vs.v);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Nodes [from, to) of the template with cur as @. */
static int run_nodes(struct eval *e, const struct jsonpath *jp, size_t from, size_t to, const json_t *cur)
{
	for (size_t i = from; i < to; i++) {
		const struct jp_node *nd = &jp->nodes[i];
		struct values vs = { 0 };
		int rc = 0;

		switch (nd->kind) {
		case NODE_TEXT:
			if (fputs(nd->text, e->out) == EOF)
				return kerr_set(e->err, KERR_OTHER, "cannot write");
			break;
		case NODE_ACTION:
			if (run_action(e, nd, cur) < 0)
				return -1;
			break;
		case NODE_RANGE:
			rc = path_eval(e, nd->items[0].path, cur, &vs);
			for (size_t k = 0; k < vs.n && rc == 0; k++)
				rc = run_nodes(e, jp, i + 1, nd->end, vs.v[k]);
			free(vs.v);
			if (rc < 0)
				return -1;
			i = nd->end;
			break;
		case NODE_END:
			break;
		}
	}
	return 0;
}

int jsonpath_execute(const struct jsonpath *jp, const json_t *doc, FILE *out, struct kerr *err)
{
	struct eval e = { .root = doc, .out = out, .err = err };

	return run_nodes(&e, jp, 0, jp->n, doc);
}

int jsonpath_select(const struct jsonpath *jp, const json_t *obj, json_t **ret, struct kerr *err)
{
	struct eval e = { .root = obj, .err = err };
	struct values vs = { 0 };
	int rc = 0;

	*ret = json_array();
	if (!*ret)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < jp->n && rc == 0; i++) {
		if (jp->nodes[i].kind != NODE_ACTION || !jp->nodes[i].nitems || !jp->nodes[i].items[0].path)
			continue;
		rc = path_eval(&e, jp->nodes[i].items[0].path, obj, &vs);
		break;
	}
	for (size_t i = 0; i < vs.n && rc == 0; i++)
		if (json_array_append(*ret, (json_t *)vs.v[i]) < 0)
			rc = kerr_set(err, KERR_OTHER, "out of memory");
	free(vs.v);
	if (rc < 0) {
		json_decref(*ret);
		*ret = NULL;
	}
	return rc;
}

/* Go's %v of a float64: the shortest 'g' form that reads back the same,
 * with Go's exponent of at least two digits. */
static void go_float(FILE *f, double d)
{
	char buf[40];

	if (isinf(d) || isnan(d)) {
		fputs(isnan(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf", f);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* Go spells a large float64 in %v with 'e' only past 21 digits */
	if (strchr(buf, 'e') && fabs(d) < 1e21 && fabs(d) >= 1e-4 && d == floor(d))
		snprintf(buf, sizeof(buf), "%.0f", d);
	fputs(buf, f);
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void go_write(FILE *f, const json_t *v, int depth)
{
	const char *key;
	json_t *m;
	size_t i;

	if (depth > MAX_JSON_DEPTH) {
		fputs("...", f);
		return;
	}
	switch (json_typeof(v)) {
	case JSON_STRING:
		fputs(json_string_value(v), f);
		break;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		go_float(f, json_real_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		fputs(json_is_true(v) ? "true" : "false", f);
		break;
	case JSON_NULL:
		fputs("<nil>", f);
		break;
	case JSON_ARRAY:
		fputc('[', f);
		json_array_foreach(v, i, m) {
			if (i)
				fputc(' ', f);
			go_write(f, m, depth + 1);
		}
		fputc(']', f);
		break;
	case JSON_OBJECT: {
		size_t n = json_object_size(v), k = 0;
		const char **keys = calloc(n ? n : 1, sizeof(*keys));

		if (!keys)
			break;
		json_object_foreach((json_t *)v, key, m)
			keys[k++] = key;
		qsort(keys, n, sizeof(*keys), cmp_keys);
		fputs("map[", f);
		for (k = 0; k < n; k++) {
			fprintf(f, "%s%s:", k ? " " : "", keys[k]);
			go_write(f, json_object_get(v, keys[k]), depth + 1);
		}
		fputc(']', f);
		free(keys);
		break;
	}
	}
}

char *jsonpath_go_text(const json_t *v)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	go_write(f, v, 0);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}
