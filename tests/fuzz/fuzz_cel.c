/* libFuzzer target for device selectors.  The input up to its first NUL
 * is the expression; after it, up to two NUL-separated texts become the
 * value of a capacity and of a version attribute, so that the quantity and
 * version readers see arbitrary text from the device side too.  A verdict
 * must be well formed (unknown exactly when it has a reason, the reason
 * printable), the same twice, and tighter bounds may turn a verdict
 * unknown but never into the other answer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_verdict(const struct cel_verdict *v)
{
	if (v->result != CEL_TRUE && v->result != CEL_FALSE && v->result != CEL_UNKNOWN)
		abort();
	if ((v->result == CEL_UNKNOWN) != (v->why != CEL_WHY_NONE))
		abort();
	if ((v->result == CEL_UNKNOWN) != (v->reason[0] != '\0'))
		abort();
	if (!memchr(v->reason, '\0', sizeof(v->reason)))
		abort();
	for (const char *c = v->reason; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			abort();
}

static void run(const char *expr, size_t len, const struct cel_limits *lim, const struct cel_device *d,
		struct cel_verdict *ret)
{
	struct cel_program *p = NULL;
	struct kerr err = KERR_INIT;
	struct cel_verdict again;

	if (cel_compile(expr, len, lim, &p, &err) != 0)
		abort();
	cel_eval(p, d, ret);
	check_verdict(ret);
	cel_eval(p, d, &again);
	if (memcmp(ret, &again, sizeof(again)) != 0)
		abort();
	cel_program_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 2);
	const char *cap, *version;
	size_t len;
	struct cel_verdict full, tight;
	static const struct cel_limits tight_limits = {.max_depth = 6, .max_nodes = 24, .max_steps = 30};

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	len = strnlen(text, size);
	cap = text + len + (len < size);
	version = cap + strlen(cap) + (cap < text + size);
	{
		struct cel_attr attrs[] = {
			{.name = "type", .type = CEL_ATTR_STRING, .s = "gpu"},
			{.name = "index", .type = CEL_ATTR_INT, .i = 3},
			{.name = "healthy", .type = CEL_ATTR_BOOL, .b = true},
			{.name = "example.com/version", .type = CEL_ATTR_VERSION, .s = len < size ? version : "1.2.3"},
			{.name = "driverVersion", .type = CEL_ATTR_VERSION, .s = "580.82.7"},
		};
		struct cel_capacity caps[] = {
			{"memory", len < size ? cap : "80Gi"},
			{"example.com/slots", "4"},
		};
		struct cel_device d = {"gpu.nvidia.com", attrs, 5, caps, 2, true};

		run(text, len, NULL, &d, &full);
		run(text, len, &tight_limits, &d, &tight);
		if (full.result != CEL_UNKNOWN && tight.result != CEL_UNKNOWN && full.result != tight.result)
			abort();
		if (tight.result != CEL_UNKNOWN && full.result != tight.result)
			abort();
	}
	free(text);
	return 0;
}
