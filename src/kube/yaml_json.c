/* A libyaml document as a jansson tree: the walk over sequences and
 * mappings, with the scalars typed by the caller. */
#include "yaml_json.h"

json_t *yaml_json_build(struct yaml_json *c, yaml_node_t *n, int depth)
{
	json_t *out;

	if (!n || depth > YAML_JSON_MAX_DEPTH || c->budget == 0) {
		c->too_big = true;
		return NULL;
	}
	c->budget--;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return c->scalar(n);
	case YAML_SEQUENCE_NODE:
		out = json_array();
		for (yaml_node_item_t *i = n->data.sequence.items.start; out && i < n->data.sequence.items.top; i++) {
			json_t *v = yaml_json_build(c, yaml_document_get_node(c->doc, *i), depth + 1);

			if (!v || json_array_append_new(out, v) < 0) {
				json_decref(out);
				return NULL;
			}
		}
		return out;
	case YAML_MAPPING_NODE:
		out = json_object();
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; out && p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
			json_t *v;

			if (!k || k->type != YAML_SCALAR_NODE) {
				if (c->skip_bad_keys)
					continue;
				json_decref(out);
				return NULL;
			}
			v = yaml_json_build(c, yaml_document_get_node(c->doc, p->value), depth + 1);
			if (!v || json_object_setn_new(out, (const char *)k->data.scalar.value, k->data.scalar.length,
						       v) < 0) {
				json_decref(out);
				return NULL;
			}
		}
		return out;
	default:
		/* a loaded document holds no other kind of node */
		return json_null();
	}
}
