/* Building the plain structs from the rows of the field table: what both
 * decoders keep while reading, beside the state of their own encoding, and
 * the one code that puts each value where its row says.
 *
 * A decoder reads its encoding and, per kept field, calls in here with the
 * row (decode_find_*) and the frame the field is in: the message being
 * read and the struct its fields fill.  Entering a message may start an
 * object, add an element to an array or start the element of a list of
 * which one counts; leaving it may hand an object to the sink.
 *
 * Inside the decoders only (src/kube/decode*.c).
 */
#ifndef DECODE_BUILD_H
#define DECODE_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode_fields.h"
#include "decode_sink.h"
#include "kerr.h"
#include "objects.h"

enum dec_mode { DEC_LIST, DEC_SINGLE, DEC_WATCH };

/* What a decoder is asked for, the same for both encodings: decode.c fills
 * one per response and hands it to whichever decoder the first bytes pick. */
struct decode_spec {
	enum dec_mode mode;
	enum obj_kind kind;
	const struct decode_filter *filter; /* NULL: nothing optional kept */
	struct decode_sink sink;	    /* DEC_LIST: where items and list metadata go */
	watch_cb cb;			    /* DEC_WATCH: where events go, and its data */
	void *ud;
};

/* A decoder of one encoding (decode_json.c, decode_pb.c), as decode.c
 * drives it: created for what spec asks, fed the body, finished after its
 * last byte (failing on a truncated body); its state holds a single object
 * decoded. */
struct decode_reader {
	void *(*create)(const struct decode_spec *spec);
	int (*feed)(void *dec, const void *buf, size_t len, struct kerr *err);
	int (*finish)(void *dec, struct kerr *err);
	struct decode_state *(*state)(void *dec);
	void (*destroy)(void *dec);
};

struct decode_state {
	struct decode_spec spec; /* filter never NULL */
	const char *format;	 /* "JSON" or "protobuf", as errors name it */
	const struct decode_kind *kind;
	void *obj;		 /* the object being built, of spec.kind, or NULL */
	struct decode_envelope env;
	struct decode_pick pick;
	bool keeps[KEEP_COUNT];	 /* whether the filter keeps anything of each part */
	bool started;		 /* the body has begun */
	bool root_done;		 /* the list or the single object is complete */
	bool meta_sent;		 /* the list's metadata went to the sink */
};

/* A message being read: which, the row of the field it is (NULL at the
 * top), and the struct its fields fill (NULL: read past, nothing kept). */
struct decode_frame {
	const struct decode_field *row;
	void *target;
	unsigned char msg;
};

/* s asked for what spec says, with nothing read yet. */
void decode_state_init(struct decode_state *s, const struct decode_spec *spec, const char *format);
/* Free the object being built and the strings kept. */
void decode_state_release(struct decode_state *s);

/* The row of a field of message msg that is read, by JSON key or protobuf
 * number; NULL for a field not kept, or of which the filter keeps nothing. */
const struct decode_field *decode_find_json(const struct decode_state *s, unsigned msg, const void *key,
					    size_t len);
const struct decode_field *decode_find_pb(const struct decode_state *s, unsigned msg, uint64_t num);

/* The message at the top of a response: M_LIST, M_EVENT, M_UNKNOWN or the
 * object asked for (its kind's root message). */
int decode_enter_root(struct decode_state *s, unsigned msg, struct decode_frame *ret, struct kerr *err);
/* The message of field row (D_MSG, D_LIST, D_PICK_*, D_ITEMS, D_OBJECT, D_BODY)
 * opens in parent: *ret is what it fills. */
int decode_enter(struct decode_state *s, const struct decode_frame *parent, const struct decode_field *row,
		 struct decode_frame *ret, struct kerr *err);
/* Frame f ends: an object goes to the sink, a list's metadata, a Status or
 * a watch event to where they go.  -1 (with err set) when decoding stops. */
int decode_leave(struct decode_state *s, const struct decode_frame *f, struct kerr *err);

/* The value of field row, in frame f.  A string of len bytes (which may
 * hold NULs): with empty_is_absent (protobuf, which writes every string) an
 * empty one the row marks DECODE_OMIT_EMPTY is absent. */
int decode_put_str(struct decode_state *s, const struct decode_frame *f, const struct decode_field *row,
		   const void *str, size_t len, bool empty_is_absent, struct kerr *err);
void decode_put_bool(const struct decode_frame *f, const struct decode_field *row, bool v);
void decode_put_int(const struct decode_frame *f, const struct decode_field *row, int64_t v);
void decode_put_present(const struct decode_frame *f, const struct decode_field *row);
/* Field row, of a pod's node selection, is not empty. */
void decode_put_nonempty(struct decode_state *s, const struct decode_field *row);

/* An entry of map row, whose frame is f (its target the struct holding the
 * map): whether the filter keeps key; its key read (a node selection's keys
 * are recorded): 1 kept, 0 not, -1 out of memory; the entry added. */
bool decode_entry_kept(const struct decode_state *s, const struct decode_field *row, const void *key, size_t len);
int decode_entry_key(struct decode_state *s, const struct decode_frame *f, const void *key, size_t len,
		     struct kerr *err);
int decode_entry_add(const struct decode_frame *f, const void *key, size_t klen, const void *value, size_t vlen,
		     struct kerr *err);

/* An entry of the D_ENTRIES map whose frame is f opens with its key: *ret
 * is the frame of its value's message, which fills a new element of the
 * array (its target NULL, read past, beyond the row's cap). */
int decode_entry_open(const struct decode_frame *f, const void *key, size_t len, struct decode_frame *ret,
		      struct kerr *err);

/* The code of the Status read: an HTTP status, else 0. */
long decode_status_code(const struct decode_state *s);

#endif
