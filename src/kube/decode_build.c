/* Where each kept value goes (decode_build.h): the one place that turns a
 * row of the field table and a value into a member of a plain struct,
 * whichever encoding the value came in.
 */
#include "decode_build.h"

#include <stdlib.h>
#include <string.h>

static int oom(struct kerr *err)
{
	return kerr_set(err, KERR_OTHER, "out of memory");
}

static int decode_error(const struct decode_state *s, const char *what, struct kerr *err)
{
	return kerr_set(err, KERR_DECODE, "invalid %s in response: %s", s->format, what);
}

/* A sink or the watch callback returned r: below 0 stops decoding. */
static int stopped_if(int r, struct kerr *err)
{
	if (r >= 0)
		return 0;
	if (err && err->kind == KERR_NONE)
		kerr_set(err, KERR_OTHER, "decoding stopped");
	return -1;
}

void decode_state_init(struct decode_state *s, const struct decode_spec *spec, const char *format)
{
	static const struct decode_filter none;
	const struct decode_filter *f;

	memset(s, 0, sizeof(*s));
	s->spec = *spec;
	if (!s->spec.filter)
		s->spec.filter = &none;
	f = s->spec.filter;
	s->format = format;
	s->kind = decode_kind_of(spec->kind);
	s->keeps[KEEP_ALL] = true;
	s->keeps[KEEP_LABELS] = f->all_labels || f->label_keys;
	s->keeps[KEEP_ANNOTATIONS] = f->all_annotations || f->annotation_keys;
	s->keeps[KEEP_RESOURCES] = f->all_resources || f->resource_names;
	s->keeps[KEEP_SCHEDULING] = f->scheduling;
	s->keeps[KEEP_ATTRIBUTES] = f->all_attributes || f->attribute_keys;
}

static void object_clear(struct decode_state *s)
{
	if (s->obj)
		s->kind->free(s->obj);
	s->obj = NULL;
}

/* Forget the watch event read: its object, its type and its Status. */
static void event_reset(struct decode_state *s)
{
	struct decode_envelope *e = &s->env;

	object_clear(s);
	free(e->ev_type);
	free(e->st_reason);
	free(e->st_message);
	e->ev_type = e->st_reason = e->st_message = NULL;
	e->st_code = 0;
	e->is_status = false;
}

void decode_state_release(struct decode_state *s)
{
	event_reset(s);
	free(s->env.list_rv);
	free(s->env.list_continue);
	free(s->pick.text);
}

/* --- the rows read ------------------------------------------------------------ */

/* Whether the filter leaves anything of field f to read. */
static bool wanted(const struct decode_state *s, const struct decode_field *f)
{
	if ((f->flags & DECODE_SCHED_ONLY) && !s->spec.filter->scheduling)
		return false;
	/* a map of which nothing is kept is read past, unless its keys count */
	if ((f->type == D_MAP || f->type == D_QUANTITIES || f->type == D_ENTRIES) && !s->keeps[f->keep] &&
	    !(f->flags & DECODE_NODE_SELECTION))
		return false;
	return true;
}

const struct decode_field *decode_find_json(const struct decode_state *s, unsigned msg, const void *key,
					    size_t len)
{
	const struct decode_field *f = msg < M_COUNT ? decode_messages[msg] : NULL;
	const unsigned char *k = key;

	if (!f || !len)
		return NULL;
	for (; f->json; f++)
		if (f->json_len == len && (unsigned char)f->json[0] == k[0] && memcmp(f->json, k, len) == 0)
			return wanted(s, f) ? f : NULL;
	return NULL;
}

const struct decode_field *decode_find_pb(const struct decode_state *s, unsigned msg, uint64_t num)
{
	const struct decode_field *f = msg < M_COUNT ? decode_messages[msg] : NULL;

	if (!f)
		return NULL;
	for (; f->json; f++)
		if (f->pb == num)
			return wanted(s, f) ? f : NULL;
	return NULL;
}

/* --- messages entered ------------------------------------------------------------ */

static int object_start(struct decode_state *s, struct decode_frame *ret, struct kerr *err)
{
	object_clear(s);
	s->obj = calloc(1, s->kind->size);
	ret->msg = s->kind->root;
	ret->target = s->obj;
	return s->obj ? 0 : oom(err);
}

/* How many elements an array of n has room for: it grows to 2, 4, 8...
 * elements as it fills, so its room need not be kept beside it. */
static size_t room_of(size_t n)
{
	size_t room = 2;

	if (!n)
		return 0;
	while (room < n)
		room *= 2;
	return room;
}

/* One more zeroed element at the end of the array of row in struct base;
 * NULL when out of memory, the array then unchanged. */
static void *array_add(char *base, const struct decode_field *row, size_t size)
{
	size_t *n = (size_t *)(void *)(base + row->count_at);
	size_t room = room_of(*n);
	char *items;

	/* the member is a pointer to the element type: copied, not cast */
	memcpy(&items, base + row->at, sizeof(items));
	items = kube_array_grow(items, &room, *n + 1, size, 2);
	if (!items)
		return NULL;
	memcpy(base + row->at, &items, sizeof(items));
	memset(items + *n * size, 0, size);
	return items + (*n)++ * size;
}

/* An element of list row opens in struct holder: the element, or NULL
 * (read past) where the filter keeps none or the cap is reached. */
static int list_add(struct decode_state *s, const struct decode_field *row, void *holder, struct decode_frame *ret,
		    struct kerr *err)
{
	ret->target = NULL;
	if (!holder || !s->keeps[row->keep])
		return 0;
	if (row->max && *(size_t *)(void *)((char *)holder + row->count_at) >= row->max)
		return 0;
	ret->target = array_add(holder, row, row->size);
	return ret->target ? 0 : oom(err);
}

static void pick_start(struct decode_state *s, const struct decode_field *row, void *holder)
{
	free(s->pick.text);
	memset(&s->pick, 0, sizeof(s->pick));
	s->pick.into = holder ? (char *)holder + row->at : NULL;
}

int decode_enter_root(struct decode_state *s, unsigned msg, struct decode_frame *ret, struct kerr *err)
{
	ret->row = NULL;
	ret->msg = (unsigned char)msg;
	ret->target = &s->env;
	if (msg == M_EVENT)
		event_reset(s);
	else if (msg == s->kind->root)
		return object_start(s, ret, err);
	return 0;
}

int decode_enter(struct decode_state *s, const struct decode_frame *parent, const struct decode_field *row,
		 struct decode_frame *ret, struct kerr *err)
{
	ret->row = row;
	ret->msg = row->child;
	ret->target = parent->target;
	switch (row->type) {
	case D_LIST:
		return list_add(s, row, parent->target, ret, err);
	case D_PICK_FLAG:
	case D_PICK_STR:
		pick_start(s, row, parent->target);
		ret->target = &s->pick;
		return 0;
	case D_ITEMS:
	case D_OBJECT:
		return object_start(s, ret, err);
	case D_BODY:
		if (!s->env.is_status && s->spec.mode != DEC_LIST)
			return object_start(s, ret, err);
		ret->msg = s->env.is_status ? M_STATUS : M_LIST;
		return 0;
	default:
		return 0;
	}
}

/* --- messages left ------------------------------------------------------------------ */

/* The element of a D_PICK_* list ends: the value of the one that counts. */
static void pick_end(struct decode_state *s, const struct decode_field *row)
{
	struct decode_pick *p = &s->pick;

	if (p->selected && p->into) {
		if (row->type == D_PICK_FLAG) {
			*(bool *)p->into = p->flag;
		} else if (p->text && !*(char **)p->into) {
			*(char **)p->into = p->text;
			p->text = NULL;
		}
	}
	free(p->text);
	p->text = NULL;
}

/* Give the list's resourceVersion and continue token (NULL when empty) to
 * the sink, once. */
static void list_meta_send(struct decode_state *s)
{
	const struct decode_envelope *e = &s->env;

	if (s->meta_sent)
		return;
	s->meta_sent = true;
	if (s->spec.sink.list_meta)
		s->spec.sink.list_meta(s->spec.sink.ud, e->list_rv,
				       e->list_continue && *e->list_continue ? e->list_continue : NULL);
}

long decode_status_code(const struct decode_state *s)
{
	return s->env.st_code >= 0 && s->env.st_code < 100000 ? (long)s->env.st_code : 0;
}

/* A Status where a list or an object was asked for: a failure the server
 * (or something in between) sent with a success code. */
static int status_error(const struct decode_state *s, struct kerr *err)
{
	const struct decode_envelope *e = &s->env;

	return kerr_set_status(err, decode_status_code(s), e->st_reason,
			       e->st_message && *e->st_message ? e->st_message
							       : "the server sent a Status instead of a list");
}

/* The object of a list ends and goes to the sink; a single object is the answer. */
static int object_end(struct decode_state *s, struct kerr *err)
{
	void *obj = s->obj;

	if (s->spec.mode == DEC_SINGLE)
		s->root_done = true;
	if (s->spec.mode != DEC_LIST)
		return 0;
	s->obj = NULL;
	return stopped_if(s->kind->to_sink(&s->spec.sink, obj, err), err);
}

/* "ADDED" ... "ERROR"; -1 for anything else. */
static int watch_type_of(const char *s, enum watch_type *ret)
{
	static const char *const names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum watch_type)i;
			return 0;
		}
	return -1;
}

/* The object of a watch event other than an ERROR: its resourceVersion
 * copied (the receiver may free the object before it is done with the
 * event), the object itself moved into ev unless the event is a bookmark;
 * *obj is then the object, for freeing when no callback takes it. */
static int event_object(struct decode_state *s, struct watch_event *ev, void **obj, struct kerr *err)
{
	const char *rv;

	if (!s->obj)
		return decode_error(s, "watch event without an object", err);
	rv = *(char **)(void *)((char *)s->obj + s->kind->rv_at);
	if (rv && !(ev->resource_version = strdup(rv)))
		return oom(err);
	if (ev->type == WATCH_BOOKMARK)
		return 0;
	*obj = s->obj;
	s->obj = NULL;
	s->kind->to_event(ev, *obj);
	return 0;
}

/* A watch event ends: to the callback, or its object freed when there is none. */
static int event_send(struct decode_state *s, struct kerr *err)
{
	struct watch_event ev = {.kind = s->spec.kind};
	watch_cb cb = s->spec.cb;
	void *obj = NULL;
	int r;

	if (!s->env.ev_type)
		return decode_error(s, "watch event without a type", err);
	if (watch_type_of(s->env.ev_type, &ev.type) < 0)
		return decode_error(s, "unknown watch event type", err);
	if (ev.type == WATCH_ERROR) {
		ev.error_code = decode_status_code(s);
		ev.error_reason = s->env.st_reason;
		ev.error_message = s->env.st_message;
	} else if (event_object(s, &ev, &obj, err) < 0) {
		return -1;
	}
	r = cb ? cb(s->spec.ud, &ev, err) : 0;
	if (!cb && obj)
		s->kind->free(obj);
	free(ev.resource_version);
	object_clear(s);
	return stopped_if(r, err);
}

int decode_leave(struct decode_state *s, const struct decode_frame *f, struct kerr *err)
{
	if (f->row && (f->row->type == D_PICK_FLAG || f->row->type == D_PICK_STR)) {
		pick_end(s, f->row);
		return 0;
	}
	switch (f->msg) {
	case M_LIST_META:
		list_meta_send(s);
		return 0;
	case M_LIST:
		if (s->env.is_status)
			return status_error(s, err);
		list_meta_send(s);
		s->root_done = true;
		return 0;
	case M_STATUS:
		return s->spec.mode == DEC_WATCH ? 0 : status_error(s, err);
	case M_EVENT:
		return event_send(s, err);
	default:
		return f->msg == s->kind->root ? object_end(s, err) : 0;
	}
}

/* --- values -------------------------------------------------------------------------- */

/* A node label key a pod's scheduling needs, kept once (value "") when the
 * filter's node_keys take it. */
static int node_key_add(struct decode_state *s, const void *key, size_t len, struct kerr *err)
{
	struct k8s_pod *p = s->spec.kind == OBJ_POD ? s->obj : NULL;
	struct kvlist *l;

	if (!p || !decode_filter_match(s->spec.filter->node_keys, key, len))
		return 0;
	l = &p->node_keys;
	for (size_t i = 0; i < l->len; i++)
		if (strlen(l->items[i].key) == len && memcmp(l->items[i].key, key, len) == 0)
			return 0;
	return kvlist_add(l, key, len, "", 0) < 0 ? oom(err) : 0;
}

static int strs_add(char *base, const struct decode_field *row, const void *str, size_t len, struct kerr *err)
{
	char **slot, *c;

	if (row->max && *(size_t *)(void *)(base + row->count_at) >= row->max)
		return 0;
	if (!(c = kube_strdup_len(str, len)))
		return oom(err);
	if (!(slot = array_add(base, row, sizeof(*slot)))) {
		free(c);
		return oom(err);
	}
	*slot = c;
	return 0;
}

int decode_put_str(struct decode_state *s, const struct decode_frame *f, const struct decode_field *row,
		   const void *str, size_t len, bool empty_is_absent, struct kerr *err)
{
	char *base = f->target, *c = NULL, **dst;

	if ((row->flags & DECODE_NODE_SELECTION) && node_key_add(s, str, len, err) < 0)
		return -1;
	if (!base)
		return 0;
	if (row->flags & DECODE_MARK)
		*(bool *)(base + row->count_at) = true;
	switch (row->type) {
	case D_MATCH:
		*(bool *)(base + row->at) = len == row->match_len && memcmp(str, row->match, len) == 0;
		return 0;
	case D_PRESENT:
		*(bool *)(base + row->at) = true;
		return 0;
	case D_STRS:
		return strs_add(base, row, str, len, err);
	case D_STR:
	case D_QUANTITY:
		if (!(len == 0 && empty_is_absent && (row->flags & DECODE_OMIT_EMPTY)) &&
		    !(c = kube_strdup_len(str, len)))
			return oom(err);
		dst = (char **)(void *)(base + row->at);
		free(*dst);
		*dst = c;
		return 0;
	default:
		return 0;
	}
}

/* A scalar of row arrived in target: recorded where the row says. */
static void mark(char *target, const struct decode_field *row)
{
	if (row->flags & DECODE_MARK)
		*(bool *)(target + row->count_at) = true;
}

void decode_put_bool(const struct decode_frame *f, const struct decode_field *row, bool v)
{
	if (f->target && row->type == D_BOOL) {
		*(bool *)((char *)f->target + row->at) = v;
		mark(f->target, row);
	}
}

void decode_put_int(const struct decode_frame *f, const struct decode_field *row, int64_t v)
{
	if (f->target && row->type == D_INT) {
		*(int64_t *)(void *)((char *)f->target + row->at) = v;
		mark(f->target, row);
	}
}

void decode_put_present(const struct decode_frame *f, const struct decode_field *row)
{
	if (f->target && row->type == D_PRESENT)
		*(bool *)((char *)f->target + row->at) = true;
}

void decode_put_nonempty(struct decode_state *s, const struct decode_field *row)
{
	struct k8s_pod *p = s->spec.kind == OBJ_POD ? s->obj : NULL;

	if (p && (row->flags & DECODE_NODE_SELECTION))
		p->has_node_selector = true;
}

/* --- map entries ------------------------------------------------------------------------ */

bool decode_entry_kept(const struct decode_state *s, const struct decode_field *row, const void *key, size_t len)
{
	const struct decode_filter *f = s->spec.filter;

	switch (row->keep) {
	case KEEP_LABELS:
		return f->all_labels || decode_filter_match(f->label_keys, key, len);
	case KEEP_ANNOTATIONS:
		return f->all_annotations || decode_filter_match(f->annotation_keys, key, len);
	case KEEP_RESOURCES:
		return f->all_resources || decode_filter_match(f->resource_names, key, len);
	case KEEP_SCHEDULING:
		return f->scheduling;
	case KEEP_ATTRIBUTES:
		return f->all_attributes || decode_filter_match(f->attribute_keys, key, len);
	default:
		return true;
	}
}

int decode_entry_key(struct decode_state *s, const struct decode_frame *f, const void *key, size_t len,
		     struct kerr *err)
{
	if (f->row->flags & DECODE_NODE_SELECTION) {
		decode_put_nonempty(s, f->row);
		if (node_key_add(s, key, len, err) < 0)
			return -1;
	}
	return f->target && decode_entry_kept(s, f->row, key, len) ? 1 : 0;
}

int decode_entry_add(const struct decode_frame *f, const void *key, size_t klen, const void *value, size_t vlen,
		     struct kerr *err)
{
	struct kvlist *l;

	if (!f->target)
		return 0;
	l = (struct kvlist *)(void *)((char *)f->target + f->row->at);
	return kvlist_add(l, key, klen, value, vlen) < 0 ? oom(err) : 0;
}

int decode_entry_open(const struct decode_frame *f, const void *key, size_t len, struct decode_frame *ret,
		      struct kerr *err)
{
	const struct decode_field *row = f->row;
	char *base = f->target, *name;
	void *elem;

	*ret = (struct decode_frame){row, NULL, row->child};
	if (!base || (row->max && *(size_t *)(void *)(base + row->count_at) >= row->max))
		return 0;
	if (!(name = kube_strdup_len(key, len)))
		return oom(err);
	if (!(elem = array_add(base, row, row->size))) {
		free(name);
		return oom(err);
	}
	/* the key is the element's first member */
	memcpy(elem, &name, sizeof(name));
	ret->target = elem;
	return 0;
}
