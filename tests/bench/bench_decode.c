/* Decode throughput on a large PodList (not a test).
 *
 *   bench_decode [PODS [FIXTURE]]
 *
 * Builds a PodList of PODS pods (default 20000) from the items of a captured
 * page (fixtures/api/pods-page1.json: managedFields, volumes, conditions, as
 * the API server writes them), then times, best of several runs:
 *   - the streaming list decoder with the cgpu filter, fed in 16 KiB reads
 *     and in one piece;
 *   - the same pods in protobuf, built from the items of a captured protobuf
 *     page (fixtures/api/protobuf-pods-page1.pb), through the same decoder;
 *   - yajl alone with no callbacks (the ceiling for any decoder built on it);
 *   - jansson's json_loadb building the whole tree.
 * Times are CPU time of this process, so that other work on the machine
 * does not count against the figures.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yajl/yajl_parse.h>

#include "decode.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "fixtures"
#endif

struct text {
	char *buf;
	size_t len, cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		while (t->len + n + 1 > t->cap)
			t->cap = t->cap ? t->cap * 2 : 1 << 20;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf) {
			fprintf(stderr, "bench_decode: out of memory\n");
			exit(1);
		}
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct text make_list(const char *fixture, long pods)
{
	json_error_t jerr;
	json_t *page = json_load_file(fixture, 0, &jerr), *items;
	struct text t = {0};
	const char *head = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"4242\","
			   "\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ\"},\"items\":[";

	if (!page) {
		fprintf(stderr, "bench_decode: %s: %s\n", fixture, jerr.text);
		exit(1);
	}
	items = json_object_get(page, "items");
	if (!json_array_size(items)) {
		fprintf(stderr, "bench_decode: %s: no items\n", fixture);
		exit(1);
	}
	text_add(&t, head, strlen(head));
	for (long i = 0; i < pods; i++) {
		json_t *pod = json_array_get(items, (size_t)i % json_array_size(items));
		json_t *meta = json_object_get(pod, "metadata");
		char name[64], uid[64], *s;

		snprintf(name, sizeof(name), "gpu-job-%06ld", i);
		snprintf(uid, sizeof(uid), "6f1c2a3e-0000-4000-8000-%012ld", i);
		json_object_set_new(meta, "name", json_string(name));
		json_object_set_new(meta, "uid", json_string(uid));
		s = json_dumps(pod, JSON_COMPACT);
		if (i)
			text_add(&t, ",", 1);
		text_add(&t, s, strlen(s));
		free(s);
	}
	text_add(&t, "]}\n", 3);
	json_decref(page);
	return t;
}

static uint64_t get_varint(const unsigned char *p, size_t len, size_t *i)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *i < len && shift < 64; shift += 7) {
		unsigned char c = p[(*i)++];

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	fprintf(stderr, "bench_decode: bad protobuf fixture\n");
	exit(1);
}

static void put_field(struct text *t, unsigned num, const void *b, size_t n)
{
	unsigned char hdr[16];
	size_t k = 0;
	uint64_t v = (uint64_t)num << 3 | 2;

	for (int pass = 0; pass < 2; pass++, v = n) {
		for (; v >= 0x80; v >>= 7)
			hdr[k++] = (unsigned char)(v | 0x80);
		hdr[k++] = (unsigned char)v;
	}
	text_add(t, (const char *)hdr, k);
	text_add(t, b, n);
}

/* The length-delimited field num of the message p[0..len), the first one. */
static const unsigned char *find_field(const unsigned char *p, size_t len, unsigned num, size_t *n)
{
	size_t i = 0;

	while (i < len) {
		uint64_t tag = get_varint(p, len, &i), l;

		if ((tag & 7) != 2) {
			fprintf(stderr, "bench_decode: unexpected wire type in fixture\n");
			exit(1);
		}
		l = get_varint(p, len, &i);
		if (tag >> 3 == num) {
			*n = (size_t)l;
			return p + i;
		}
		i += (size_t)l;
	}
	fprintf(stderr, "bench_decode: field %u not in fixture\n", num);
	exit(1);
}

/* A PodList of pods items in protobuf, cycling through the fixture's items. */
static struct text make_pb_list(const char *fixture, long pods)
{
	FILE *f = fopen(fixture, "rb");
	struct text in = {0}, list = {0}, out = {0};
	const unsigned char *raw, *tm, *meta, *item[64];
	size_t rawlen, tmlen, metalen, itemlen[64], nitems = 0, i;
	char buf[65536];
	size_t n;

	if (!f) {
		fprintf(stderr, "bench_decode: cannot open %s\n", fixture);
		exit(1);
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		text_add(&in, buf, n);
	fclose(f);
	if (in.len < 4 || memcmp(in.buf, "k8s", 4) != 0) {
		fprintf(stderr, "bench_decode: %s: not protobuf\n", fixture);
		exit(1);
	}
	tm = find_field((unsigned char *)in.buf + 4, in.len - 4, 1, &tmlen);
	raw = find_field((unsigned char *)in.buf + 4, in.len - 4, 2, &rawlen);
	meta = find_field(raw, rawlen, 1, &metalen);
	for (i = 0; i < rawlen && nitems < 64;) {
		uint64_t tag = get_varint(raw, rawlen, &i), l = get_varint(raw, rawlen, &i);

		if (tag >> 3 == 2) {
			item[nitems] = raw + i;
			itemlen[nitems++] = (size_t)l;
		}
		i += (size_t)l;
	}
	put_field(&list, 1, meta, metalen);
	for (long k = 0; k < pods; k++)
		put_field(&list, 2, item[(size_t)k % nitems], itemlen[(size_t)k % nitems]);
	text_add(&out, "k8s", 4);
	put_field(&out, 1, tm, tmlen);
	put_field(&out, 2, list.buf, list.len);
	free(in.buf);
	free(list.buf);
	return out;
}

struct count {
	long pods, containers;
	int meta;
};

static int on_pod(void *ud, struct k8s_pod *p, struct kerr *err)
{
	struct count *c = ud;

	c->pods++;
	c->containers += (long)p->ncontainers;
	k8s_pod_free(p);
	return 0;
}

static void on_meta(void *ud, const char *rv, const char *cont)
{
	struct count *c = ud;

	c->meta++;
}

static const char *const annotations[] = {"ALIYUN_COM_GPU_MEM_*", NULL};
static const char *const resources[] = {"aliyun.com/gpu-mem", "aliyun.com/gpu-count", NULL};
static const struct decode_filter cgpu_filter = {
	.annotation_keys = annotations,
	.resource_names = resources,
};

static double run_decoder(const struct text *t, size_t chunk, long want)
{
	struct count c = {0};
	struct decode_sink sink = {.pod = on_pod, .list_meta = on_meta, .ud = &c};
	struct list_decoder *d = list_decoder_new(OBJ_POD, &cgpu_filter, &sink);
	struct kerr err = KERR_INIT;
	double t0 = now();

	for (size_t off = 0; off < t->len; off += chunk) {
		size_t n = t->len - off < chunk ? t->len - off : chunk;

		if (list_decoder_feed(d, t->buf + off, n, &err) < 0)
			break;
	}
	if (err.kind == KERR_NONE)
		list_decoder_finish(d, &err);
	t0 = now() - t0;
	list_decoder_free(d);
	if (err.kind != KERR_NONE || c.pods != want || c.meta != 1) {
		fprintf(stderr, "bench_decode: decoder failed: %s (%ld pods)\n",
			err.message ? err.message : "?", c.pods);
		exit(1);
	}
	kerr_release(&err);
	return t0;
}

static double run_yajl(const struct text *t)
{
	yajl_callbacks none = {0};
	yajl_handle h = yajl_alloc(&none, NULL, NULL);
	double t0 = now();

	if (yajl_parse(h, (const unsigned char *)t->buf, t->len) != yajl_status_ok ||
	    yajl_complete_parse(h) != yajl_status_ok) {
		fprintf(stderr, "bench_decode: yajl failed\n");
		exit(1);
	}
	t0 = now() - t0;
	yajl_free(h);
	return t0;
}

static double run_jansson(const struct text *t)
{
	json_error_t jerr;
	double t0 = now();
	json_t *root = json_loadb(t->buf, t->len, 0, &jerr);

	t0 = now() - t0;
	if (!root) {
		fprintf(stderr, "bench_decode: jansson failed: %s\n", jerr.text);
		exit(1);
	}
	json_decref(root);
	return t0;
}

static double best(double a, double b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	long pods = argc > 1 ? atol(argv[1]) : 20000;
	const char *fixture = argc > 2 ? argv[2] : FIXTURES_DIR "/api/pods-page1.json";
	struct text t;
	double mb, dec16 = 1e9, decall = 1e9, raw = 1e9, jan = 1e9, pb16 = 1e9, pball = 1e9;
	struct text pb;
	int runs = 5;

	if (pods <= 0) {
		fprintf(stderr, "usage: bench_decode [PODS [FIXTURE]]\n");
		return 2;
	}
	t = make_list(fixture, pods);
	pb = make_pb_list(FIXTURES_DIR "/api/protobuf-pods-page1.pb", pods);
	mb = (double)t.len / 1e6;
	for (int i = 0; i < runs; i++) {
		dec16 = best(dec16, run_decoder(&t, 16384, pods));
		decall = best(decall, run_decoder(&t, t.len, pods));
		raw = best(raw, run_yajl(&t));
		pb16 = best(pb16, run_decoder(&pb, 16384, pods));
		pball = best(pball, run_decoder(&pb, pb.len, pods));
	}
	for (int i = 0; i < 3; i++)
		jan = best(jan, run_jansson(&t));
	printf("PodList: %ld pods, %.1f MB (%.1f KB per pod)\n", pods, mb, (double)t.len / 1e3 / (double)pods);
	printf("list decoder, cgpu filter, 16 KiB reads  %8.1f MB/s  (%.3f s)\n", mb / dec16, dec16);
	printf("list decoder, cgpu filter, one piece     %8.1f MB/s  (%.3f s)\n", mb / decall, decall);
	printf("yajl alone, no callbacks                 %8.1f MB/s  (%.3f s)\n", mb / raw, raw);
	printf("jansson json_loadb (whole tree)          %8.1f MB/s  (%.3f s)\n", mb / jan, jan);
	printf("PodList in protobuf: %.1f MB (%.1f KB per pod)\n", (double)pb.len / 1e6,
	       (double)pb.len / 1e3 / (double)pods);
	printf("protobuf decoder, cgpu filter, 16 KiB    %8.1f MB/s  (%.3f s)\n", (double)pb.len / 1e6 / pb16, pb16);
	printf("protobuf decoder, cgpu filter, one piece %8.1f MB/s  (%.3f s)\n", (double)pb.len / 1e6 / pball, pball);
	free(t.buf);
	free(pb.buf);
	return 0;
}
