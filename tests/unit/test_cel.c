/* Device selectors: every operator and function of the subset, what CEL
 * makes of errors, what lies outside the subset, and every bound. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel.h"

/* A GPU as NVIDIA's driver publishes it, with a few more attributes. */
static const struct cel_attr gpu_attrs[] = {
	{.name = "type", .type = CEL_ATTR_STRING, .s = "gpu"},
	{.name = "gpu.nvidia.com/productName", .type = CEL_ATTR_STRING, .s = "NVIDIA A100-SXM4-80GB"},
	{.name = "architecture", .type = CEL_ATTR_STRING, .s = "Ampere"},
	{.name = "index", .type = CEL_ATTR_INT, .i = 3},
	{.name = "driverVersion", .type = CEL_ATTR_VERSION, .s = "580.82.7"},
	{.name = "cudaComputeCapability", .type = CEL_ATTR_VERSION, .s = "8.0.0"},
	{.name = "pre", .type = CEL_ATTR_VERSION, .s = "1.0.0-rc.1"},
	{.name = "healthy", .type = CEL_ATTR_BOOL, .b = true},
	{.name = "resource.kubernetes.io/pcieRoot", .type = CEL_ATTR_STRING, .s = "pci0000:00"},
	{.name = "example.com/family", .type = CEL_ATTR_STRING, .s = "ampere"},
};
static const struct cel_capacity gpu_caps[] = {
	{"memory", "80Gi"},
	{"example.com/slots", "4"},
};
static const struct cel_device gpu = {
	.driver = "gpu.nvidia.com",
	.attrs = gpu_attrs,
	.nattrs = sizeof(gpu_attrs) / sizeof(gpu_attrs[0]),
	.caps = gpu_caps,
	.ncaps = sizeof(gpu_caps) / sizeof(gpu_caps[0]),
	.allow_multiple = true,
};

static struct cel_verdict eval_on(const char *expr, const struct cel_device *d, const struct cel_limits *lim)
{
	struct cel_program *p = NULL;
	struct kerr err = KERR_INIT;
	struct cel_verdict v;

	cr_assert_eq(cel_compile(expr, strlen(expr), lim, &p, &err), 0, "%s: out of memory", expr);
	cel_eval(p, d, &v);
	cel_program_free(p);
	return v;
}

struct ccase {
	const char *expr;
	enum cel_result want;
	enum cel_why why;
	const char *reason; /* a part of it */
};

#define T(e) {e, CEL_TRUE, CEL_WHY_NONE, NULL}
#define F(e) {e, CEL_FALSE, CEL_WHY_NONE, NULL}
#define U(e, why, reason) {e, CEL_UNKNOWN, why, reason}

static const char *result_name(enum cel_result r)
{
	return r == CEL_TRUE ? "true" : r == CEL_FALSE ? "false" : "unknown";
}

static void check_cases_on(const struct ccase *t, size_t n, const struct cel_device *d)
{
	for (size_t i = 0; i < n; i++) {
		struct cel_verdict v = eval_on(t[i].expr, d, NULL);

		cr_expect_eq(v.result, t[i].want, "%s: %s (%s), want %s", t[i].expr, result_name(v.result), v.reason,
			     result_name(t[i].want));
		cr_expect_eq(v.why, t[i].why, "%s: why %d (%s), want %d", t[i].expr, v.why, v.reason, t[i].why);
		if (t[i].reason)
			cr_expect(strstr(v.reason, t[i].reason), "%s: reason \"%s\", want \"%s\" in it", t[i].expr,
				  v.reason, t[i].reason);
		if (v.result != CEL_UNKNOWN)
			cr_expect_str_empty(v.reason, "%s: a reason for a known result", t[i].expr);
	}
}

#define CHECK(table) check_cases_on(table, sizeof(table) / sizeof(table[0]), &gpu)

#define NV "device.attributes['gpu.nvidia.com']"
#define MEM "device.capacity['gpu.nvidia.com'].memory"

Test(cel, literals_and_driver)
{
	static const struct ccase t[] = {
		T("true"), F("false"), T("!false"), F("!true"), T("(true)"), T("((((true))))"),
		T("device.driver == 'gpu.nvidia.com'"), F("device.driver == 'gpu.intel.com'"),
		T("device.driver != 'gpu.intel.com'"), T("\"gpu.nvidia.com\" == device.driver"),
		T("device.driver == r'gpu.nvidia.com'"), T("device.driver == '''gpu.nvidia.com'''"),
		T("'\\x41\\101\\u0041\\U00000041' == 'AAAA'"), T("'\\u00e9' == '\xc3\xa9'"),
		T("'a\\'b' == \"a'b\""), T("r'a\\n' != 'a\\n'"), T("'\\t\\n\\\\' == \"\\t\\n\\\\\""),
		T("0x10 == 16"), T("0XfF == 255"), T("9223372036854775807 > 0"),
		T("device.allowMultipleAllocations"), T("device.allowMultipleAllocations == true"),
		T("// a comment\n device.driver == 'gpu.nvidia.com' // another\n"),
		T(".device.driver == 'gpu.nvidia.com'"),
	};

	CHECK(t);
}

Test(cel, attributes)
{
	static const struct ccase t[] = {
		T(NV ".type == 'gpu'"), T(NV "['type'] == 'gpu'"), T(NV "[\"type\"] == 'gpu'"),
		/* a name with its domain and one without mean the same */
		T(NV ".productName == 'NVIDIA A100-SXM4-80GB'"), T(NV ".architecture == 'Ampere'"),
		T(NV ".index == 3"), T(NV ".healthy"), T(NV ".healthy == true"),
		T("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'"),
		T("device.attributes['example.com'].family == 'ampere'"),
		T("device.attributes[device.driver].type == 'gpu'"),
		/* an attribute of one domain is not in another */
		U("device.attributes['example.com'].type == 'gpu'", CEL_WHY_ERROR,
		  "no such key 'type' in device.attributes['example.com']"),
		/* an unknown domain is an empty map, not an error */
		U("device.attributes['nowhere.example'].type == 'gpu'", CEL_WHY_ERROR,
		  "no such key 'type' in device.attributes['nowhere.example']"),
		U(NV ".model == 'A100'", CEL_WHY_ERROR, "no such key 'model' in device.attributes['gpu.nvidia.com']"),
		U(NV "['model'] == 'A100'", CEL_WHY_ERROR, "no such key 'model'"),
		/* a domain of the device's attributes is not one of its capacities */
		U("device.capacity['gpu.nvidia.com'].type == quantity('1')", CEL_WHY_ERROR,
		  "no such key 'type' in device.capacity['gpu.nvidia.com']"),
	};

	CHECK(t);
}

Test(cel, equality_across_types)
{
	static const struct ccase t[] = {
		/* an attribute is of any type: other types are simply unequal */
		F(NV ".index == 'x'"), T(NV ".index != 'x'"), F(NV ".type == 1"), F(NV ".healthy == 'true'"),
		F("'580.82.7' == " NV ".driverVersion"),
		/* but a version compared with anything else has no overload */
		U(NV ".driverVersion == '580.82.7'", CEL_WHY_ERROR,
		  "no such overload: '_==_' applied to (kubernetes.Semver, string)"),
		T(NV ".driverVersion == semver('580.82.7')"), T(NV ".driverVersion != semver('580.82.8')"),
		T(NV ".index == " NV ".index"), T(NV ".type == " NV "['type']"),
		T("true == true"), F("true == false"), T("'' == \"\""),
	};

	CHECK(t);
}

Test(cel, orderings)
{
	static const struct ccase t[] = {
		T("1 < 2"), F("2 < 1"), T("2 <= 2"), T("3 > 2"), T("3 >= 3"), F("3 >= 4"),
		T(NV ".index >= 2"), T(NV ".index < 4"), F(NV ".index > 3"), T(NV ".index <= 3"),
		T("-5 < -4"), T("'a' < 'b'"), T("'B' < 'a'"), T("'ab' > 'a'"), T("'' < 'a'"),
		T("'\xc3\xa9' > 'z'"), T("false < true"), F("true < false"), T(NV ".type > 'g'"),
		/* an attribute of another type than the other side: an error */
		U(NV ".type < 1", CEL_WHY_ERROR, "no such overload: '_<_' applied to (string, int)"),
		U(NV ".driverVersion < " NV ".cudaComputeCapability", CEL_WHY_ERROR,
		  "'_<_' applied to (kubernetes.Semver, kubernetes.Semver)"),
	};

	CHECK(t);
}

Test(cel, in_lists_and_maps)
{
	static const struct ccase t[] = {
		T(NV ".index in [1, 2, 3]"), F(NV ".index in [4, 5]"), F(NV ".index in []"),
		T(NV ".type in ['gpu', 'mig']"), F(NV ".type in ['mig']"), T("'gpu' in [" NV ".type]"),
		/* elements of other types are unequal, not errors */
		T(NV ".index in ['3', 3]"), F(NV ".driverVersion in ['580.82.7']"),
		T(NV ".driverVersion in [semver('1.0.0'), semver('580.82.7')]"),
		/* presence in a domain's map, and of a domain */
		T("'type' in " NV), F("'model' in " NV), T("'productName' in " NV),
		F("'type' in device.attributes['nowhere.example']"), T("'memory' in device.capacity['gpu.nvidia.com']"),
		F("'cores' in device.capacity['gpu.nvidia.com']"), T("'example.com' in device.attributes"),
		T("'gpu.nvidia.com' in device.attributes"), F("'nowhere.example' in device.attributes"),
		T("'example.com' in device.capacity"), F("'resource.kubernetes.io' in device.capacity"),
		/* an element that raises an error makes the whole list one */
		U(NV ".index in [3, " NV ".model]", CEL_WHY_ERROR, "no such key 'model'"),
		U(NV ".index in " NV ".type", CEL_WHY_ERROR, "no such overload: '@in' applied to (int, string)"),
	};

	CHECK(t);
}

Test(cel, has_macro)
{
	static const struct ccase t[] = {
		T("has(" NV ".type)"), F("has(" NV ".uuid)"), T("has(device.capacity['gpu.nvidia.com'].memory)"),
		F("has(device.attributes['nowhere.example'].type)"), T("!has(" NV ".uuid) || " NV ".uuid == 'x'"),
		U("has(device.driver)", CEL_WHY_SUBSET, "has() on a field of the device"),
		U("has(device.attributes.example)", CEL_WHY_SUBSET, "has() on a domain"),
		U("has(" NV ")", CEL_WHY_INVALID, "invalid argument to has() macro"),
		U("has(" NV ".type.length)", CEL_WHY_ERROR, "no such overload: 'has()' applied to (string)"),
	};

	CHECK(t);
}

Test(cel, logic_absorbs_as_cel_does)
{
	static const struct ccase t[] = {
		T("true && true"), F("true && false"), F("false && true"), T("false || true"), F("false || false"),
		T("true || false"), T("false || false || false || true"), F("true && true && true && false"),
		/* an error or a construct outside the subset on one side: the other decides if it can */
		F("false && " NV ".model == 'x'"), F(NV ".model == 'x' && false"),
		T("true || " NV ".model == 'x'"), T(NV ".model == 'x' || true"),
		F(NV ".type.matches('g.u') && false"), T(NV ".type.matches('g.u') || true"),
		F(NV ".index + 1 == 4 && " NV ".type == 'mig'"),
		U(NV ".model == 'x' && true", CEL_WHY_ERROR, "no such key 'model'"),
		U("true && " NV ".model == 'x'", CEL_WHY_ERROR, "no such key 'model'"),
		U(NV ".model == 'x' || false", CEL_WHY_ERROR, "no such key 'model'"),
		U(NV ".type.matches('g') || " NV ".model == 'x'", CEL_WHY_SUBSET, "function 'matches'"),
		U(NV ".model == 'x' || " NV ".type.matches('g')", CEL_WHY_ERROR, "no such key 'model'"),
		/* a side that is not a boolean at run time */
		U(NV ".index && true", CEL_WHY_ERROR, "no such overload: '_&&_' applied to (int, bool)"),
		F(NV ".index && false"), T(NV ".type || true"),
		U(NV ".type || false", CEL_WHY_ERROR, "'_||_' applied to (string, bool)"),
		T("!(" NV ".type == 'mig')"), T("!!" NV ".healthy"), U("!" NV ".type", CEL_WHY_ERROR, "'!_' applied to (string)"),
	};

	CHECK(t);
}

Test(cel, conditional_and_negation)
{
	static const struct ccase t[] = {
		T(NV ".index > 2 ? " NV ".type == 'gpu' : false"), F(NV ".index > 5 ? true : " NV ".healthy == false"),
		T("false ? " NV ".model == 'x' : true"), T("(" NV ".index > 2 ? 1 : 2) == 1"),
		U(NV ".model ? true : false", CEL_WHY_ERROR, "no such key 'model'"),
		U(NV ".type ? true : false", CEL_WHY_ERROR, "'_?_:_' applied to (string)"),
		T("-1 < 0"), T("--1 == 1"), T("-" NV ".index == -3"), T("-9223372036854775808 < 0"),
		T("- 5 == -5"), U("-(-9223372036854775808) > 0", CEL_WHY_ERROR, "int overflow"),
		U("-" NV ".type == 'x'", CEL_WHY_ERROR, "'-_' applied to (string)"),
	};

	CHECK(t);
}

/* quantity(a).compareTo(quantity(b)) for pairs, as the API server parses. */
Test(cel, quantity_comparisons)
{
	static const struct {
		const char *a, *b;
		int cmp;
	} t[] = {
		{"1Gi", "1024Mi", 0}, {"50M", "50Mi", -1}, {"50Mi", "50M", 1}, {"200M", "0.2G", 0},
		{"1.5Gi", "1536Mi", 0}, {"100m", "0.1", 0}, {"1e3", "1k", 0}, {"1E3", "1k", 0}, {"1e+3", "1k", 0},
		{"1500e-3", "1.5", 0}, {"1", "1000m", 0}, {"0.5Ki", "512", 0}, {"1k", "1Ki", -1},
		{"007", "7", 0}, {"1.", "1", 0}, {".5k", "500", 0}, {"+15", "15", 0}, {"-1", "1", -1},
		{"-2Gi", "-1Gi", -1}, {"0", "-0", 0}, {"0Gi", "0", 0}, {"1n", "0.000000001", 0},
		/* below a nano the API rounds the magnitude up */
		{"0.0000000001", "1n", 0}, {"0.0000000015", "2n", 0}, {"-0.0000000015", "-2n", 0},
		{"1e-99999", "1n", 0}, {"1.0000000001", "1.000000001", 0},
		/* binary quantities are capped at 2^63-1, decimal ones are not */
		{"8Ei", "9223372036854775807", 0}, {"9Ei", "8Ei", 0}, {"1e19", "9223372036854775807", 1},
		{"10E", "9E", 1}, {"123456789012345678901234567890", "123456789012345678901234567891", -1},
		{"80Gi", "81559Mi", 1}, {"40Gi", "40192Mi", 1}, {"1Ti", "1024Gi", 0}, {"1Pi", "1024Ti", 0},
		{"0.000000000001Ki", "2n", 0}, {"3.001n", "4n", 0}, {"0.00000012345", "124n", 0},
		{"9223372036854775807Ki", "8Ei", 0}, {"100.035Ki", "102435.84", 0}, {"1.G", "1G", 0},
		{"1.3E+6", "1300k", 0}, {"0.5e-9", "1n", 0},
		/* the API's scanner reads a sign, a dot or a suffix alone as zero */
		{".", "0", 0}, {"+", "0", 0}, {"-.", "0", 0}, {"Mi", "0", 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char expr[200];
		struct cel_verdict v;

		snprintf(expr, sizeof(expr), "quantity('%s').compareTo(quantity('%s')) == %d", t[i].a, t[i].b, t[i].cmp);
		v = eval_on(expr, &gpu, NULL);
		cr_expect_eq(v.result, CEL_TRUE, "%s: %s %s", expr, result_name(v.result), v.reason);
		snprintf(expr, sizeof(expr), "(quantity('%s') == quantity('%s')) == %s", t[i].a, t[i].b,
			 t[i].cmp ? "false" : "true");
		v = eval_on(expr, &gpu, NULL);
		cr_expect_eq(v.result, CEL_TRUE, "%s: %s %s", expr, result_name(v.result), v.reason);
	}
}

Test(cel, quantity_functions)
{
	static const struct ccase t[] = {
		T(MEM ".compareTo(quantity('40Gi')) >= 0"), F(MEM ".compareTo(quantity('81Gi')) >= 0"),
		T(MEM ".isGreaterThan(quantity('79Gi'))"), F(MEM ".isGreaterThan(quantity('80Gi'))"),
		T(MEM ".isLessThan(quantity('81920.5Mi'))"), F(MEM ".isLessThan(quantity('80Gi'))"),
		T(MEM " == quantity('81920Mi')"), T(MEM ".compareTo(quantity('80Gi')) == 0"),
		T("device.capacity['example.com'].slots == quantity('4')"),
		T("quantity('1Gi').isLessThan(" MEM ")"),
		T("isQuantity('1.3G')"), T("isQuantity('10000k')"), F("isQuantity('200K')"), F("isQuantity('1,3G')"),
		F("isQuantity('Three')"), F("isQuantity('1.1.M')"), F("isQuantity('1+1.0M')"),
		F("isQuantity('0.1mi')"), F("isQuantity('0.1am')"), F("isQuantity('.5i')"), F("isQuantity('1i')"),
		F("isQuantity('-3.01i')"), F("isQuantity('-3.01e-')"), F("isQuantity(' 1')"), F("isQuantity('1 ')"), F("isQuantity('')"), F("isQuantity('1 Gi')"),
		F("isQuantity('1Gii')"), F("isQuantity('1e')"), T("isQuantity(" NV ".index == 3 ? '1' : 'x')"),
		T("quantity(" NV ".index == 3 ? '3' : 'x') == quantity('3')"),
		U("quantity('200K') == " MEM, CEL_WHY_ERROR, "quantity('200K'): not a quantity"),
		U("quantity(" NV ".type) == " MEM, CEL_WHY_ERROR, "quantity('gpu'): not a quantity"),
		/* quantities compare through their functions: <, >, ... are not CEL on them */
		U(MEM " >= quantity('40Gi')", CEL_WHY_INVALID,
		  "no matching overload for '_>=_' applied to (kubernetes.Quantity, kubernetes.Quantity)"),
		U(MEM ".compareTo(semver('1.0.0')) == 0", CEL_WHY_INVALID, "no matching overload for 'compareTo'"),
		U("quantity(1) == " MEM, CEL_WHY_INVALID, "no matching overload for 'quantity' applied to (int)"),
		U(NV ".index.isGreaterThan(quantity('1'))", CEL_WHY_ERROR,
		  "no such overload: 'isGreaterThan' applied to (int, kubernetes.Quantity)"),
		U(MEM ".isInteger()", CEL_WHY_SUBSET, "function 'isInteger'"),
		U(MEM ".add(quantity('1')).isGreaterThan(quantity('1'))", CEL_WHY_SUBSET, "function 'add'"),
	};

	CHECK(t);
}

Test(cel, semver_functions)
{
	static const struct {
		const char *a, *b;
		int cmp;
	} order[] = {
		{"1.2.3", "1.2.3", 0}, {"1.2.3", "2.0.0", -1}, {"1.2.3", "0.1.2", 1}, {"1.10.0", "1.9.0", 1},
		{"1.0.0-alpha", "1.0.0", -1}, {"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", -1}, {"1.0.0-alpha.beta", "1.0.0-beta", -1},
		{"1.0.0-beta.2", "1.0.0-beta.11", -1}, {"1.0.0-beta.11", "1.0.0-rc.1", -1}, {"1.0.0-rc.1", "1.0.0", -1},
		{"1.0.0+build.1", "1.0.0+build.2", 0}, {"1.0.0-x-y", "1.0.0-x", 1},
		{"18446744073709551615.0.0", "18446744073709551614.9.9", 1},
	};
	static const struct ccase t[] = {
		T(NV ".driverVersion.isGreaterThan(semver('550.0.0'))"), F(NV ".driverVersion.isLessThan(semver('550.0.0'))"),
		T(NV ".cudaComputeCapability.compareTo(semver('8.0.0')) == 0"), T(NV ".driverVersion.major() == 580"),
		T(NV ".driverVersion.minor() == 82"), T(NV ".driverVersion.patch() == 7"),
		T(NV ".pre.isLessThan(semver('1.0.0'))"), T("semver('1.2.3').major() == 1"),
		T("semver('v1.0', true) == semver('1.0.0')"), T("semver('01.01.01', true) == semver('1.1.1')"),
		T("semver('1', true).compareTo(semver('1.0.0')) == 0"), T("semver('1.2.0003-rc', true).patch() == 3"),
		T("semver('1.2.-rc', true) == semver('1.2.0-rc')"), T("semver('v00.0.00', true) == semver('0.0.0')"),
		F("isSemver('type', true)"), F("isSemver('1.2.-', true)"), F("isSemver('1.0x.0', true)"),
		T("isSemver('1.0.0')"), T("isSemver('0.1.0-alpha.1')"), F("isSemver('v1.0')"), T("isSemver('v1.0', true)"),
		F("isSemver('hello')"), F("isSemver('1.0')"), F("isSemver('01.0.0')"), F("isSemver('1.0.0-01')"),
		T("isSemver('1.0.0-0')"), F("isSemver('1.0.0-')"), F("isSemver('1.0.0+')"), F("isSemver('1.0.0-a..b')"),
		F("isSemver('1.0.0+a_b')"), F("isSemver('1.0-rc', true)"), F("isSemver('18446744073709551616.0.0')"),
		T("isSemver('1.0.0-rc.1+build.5')"),
		U("semver('1.0') == " NV ".driverVersion", CEL_WHY_ERROR, "semver('1.0'): no major.minor.patch"),
		U("semver('1.0.0') < semver('2.0.0')", CEL_WHY_INVALID, "no matching overload for '_<_'"),
		U(NV ".type.major() == 1", CEL_WHY_ERROR, "no such overload: 'major' applied to (string)"),
		U("semver('1.0.0', 1) == semver('1.0.0')", CEL_WHY_INVALID, "no matching overload for 'semver'"),
		U("semver('1.0.0', true, 1) == semver('1.0.0')", CEL_WHY_INVALID,
		  "no matching overload for 'semver' with 3 arguments"),
		U("semver('1.0.0').major(1) == 1", CEL_WHY_INVALID, "no matching overload for 'major' with 1 arguments"),
		U("quantity('1', '2') == quantity('1')", CEL_WHY_INVALID, "'quantity' with 2 arguments"),
		U("quantity('1').compareTo() == 0", CEL_WHY_INVALID, "'compareTo' with 0 arguments"),
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		char expr[200];
		struct cel_verdict v;

		snprintf(expr, sizeof(expr), "semver('%s').compareTo(semver('%s')) == %d && semver('%s').compareTo(semver('%s')) == %d",
			 order[i].a, order[i].b, order[i].cmp, order[i].b, order[i].a, -order[i].cmp);
		v = eval_on(expr, &gpu, NULL);
		cr_expect_eq(v.result, CEL_TRUE, "%s: %s %s", expr, result_name(v.result), v.reason);
	}
	CHECK(t);
}

Test(cel, bind)
{
	static const struct ccase t[] = {
		T("cel.bind(g, " NV ", g.type == 'gpu' && g.index > 2)"),
		T("cel.bind(g, " NV ", cel.bind(m, device.capacity['gpu.nvidia.com'], g.healthy && m.memory == quantity('80Gi')))"),
		/* an inner variable of the same name hides the outer one */
		T("cel.bind(x, 1, cel.bind(x, 2, x == 2) && x == 1)"),
		/* a value that raises an error only matters where it is used */
		T("cel.bind(x, " NV ".model, true)"),
		U("cel.bind(x, " NV ".model, x == 'A100')", CEL_WHY_ERROR, "no such key 'model'"),
		T("cel.bind(names, ['gpu', 'mig'], true)"),
		U("cel.bind(1, 2, true)", CEL_WHY_INVALID, "cel.bind() takes a variable name"),
		U("cel.bind(x, 2)", CEL_WHY_INVALID, "cel.bind() takes a variable name"),
		U("x == 1", CEL_WHY_INVALID, "undeclared reference to 'x'"),
	};
	char deep[2048] = "";
	struct cel_verdict v;

	CHECK(t);
	/* seventeen variables are more than the bound */
	for (int i = 0; i < 17; i++)
		snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep), "cel.bind(v%d, %d, ", i, i);
	strcat(deep, "true");
	for (int i = 0; i < 17; i++)
		strcat(deep, ")");
	v = eval_on(deep, &gpu, NULL);
	cr_expect_eq(v.result, CEL_UNKNOWN);
	cr_expect_eq(v.why, CEL_WHY_LIMIT, "%s", v.reason);
	cr_expect(strstr(v.reason, "more than 16 cel.bind() variables"), "%s", v.reason);
}

Test(cel, outside_the_subset)
{
	static const struct ccase t[] = {
		U(NV ".index + 1 == 4", CEL_WHY_SUBSET, "arithmetic '+' is outside the evaluated subset"),
		U(NV ".index * 2 == 6", CEL_WHY_SUBSET, "arithmetic '*'"),
		U("1.5 < 2.0", CEL_WHY_SUBSET, "a literal of type 'double'"),
		U(NV ".index == 3u", CEL_WHY_SUBSET, "a literal of type 'uint'"),
		U(NV ".type == b'gpu'", CEL_WHY_SUBSET, "a literal of type 'bytes'"),
		U(NV ".type == null", CEL_WHY_SUBSET, "a literal of type 'null'"),
		U(NV ".type.matches('^g')", CEL_WHY_SUBSET, "function 'matches' is outside the evaluated subset"),
		U(NV ".productName.startsWith('NVIDIA')", CEL_WHY_SUBSET, "function 'startsWith'"),
		U("size(" NV ".type) == 3", CEL_WHY_SUBSET, "function 'size'"),
		U("[1, 2].exists(x, x == " NV ".index)", CEL_WHY_SUBSET, "function 'exists'"),
		U("math.greatest(1, 2) == 2", CEL_WHY_SUBSET, "function 'greatest'"),
		U("{'a': 1}['a'] == 1", CEL_WHY_SUBSET, "a map literal"),
		U(NV ".?model.orValue('') == ''", CEL_WHY_SUBSET, "function 'orValue'"),
		U("has(" NV ".model) || " NV ".?model == optional.none()", CEL_WHY_SUBSET, "optional field selection"),
		U("[1, 2][0] == 1", CEL_WHY_SUBSET, "indexing a list"),
		U("[1] == [1]", CEL_WHY_SUBSET, "comparing lists"),
		U("google.protobuf.Value{} == 1", CEL_WHY_SUBSET, "message construction"),
		U(NV " == " NV, CEL_WHY_SUBSET, "comparing maps"),
		U("cel.bind(l, [1, 2], 1 in l)", CEL_WHY_SUBSET, "a list other than the right side of 'in'"),
		U("device.attributes['gpu.nvidia.com'].models.includes('x')", CEL_WHY_SUBSET, "function 'includes'"),
	};

	CHECK(t);
}

Test(cel, not_cel)
{
	static const struct ccase t[] = {
		U("", CEL_WHY_INVALID, "syntax error at character 1: the expression ends too early"),
		U("device.driver == 'x", CEL_WHY_INVALID, "a string that does not end"),
		U("device.driver == 'a\nb'", CEL_WHY_INVALID, "a line break in a string"),
		U("'\\q' == 'q'", CEL_WHY_INVALID, "an unknown escape"),
		U("'\\ud800' == 'q'", CEL_WHY_INVALID, "an escape that is not a character"),
		U("'\\x4' == 'q'", CEL_WHY_INVALID, "too few digits"),
		U("device.driver = 'x'", CEL_WHY_INVALID, "a character CEL does not use"),
		U("device.driver == 'x' 1", CEL_WHY_INVALID, "unexpected text after the expression"),
		U("if == 1", CEL_WHY_INVALID, "a reserved word"),
		U("(true", CEL_WHY_INVALID, "expected ')'"),
		U("[1, 2", CEL_WHY_INVALID, "expected ','"),
		U("9223372036854775808 > 0", CEL_WHY_INVALID, "an int literal out of range"),
		U("true ? 1", CEL_WHY_INVALID, "expected ':'"),
		U("device.", CEL_WHY_INVALID, "expected a field name after '.'"),
		U("device.driver == 'x' && ", CEL_WHY_INVALID, "ends too early"),
		U("gpu.type == 'x'", CEL_WHY_INVALID, "undeclared reference to 'gpu'"),
		U("nosuch(1)", CEL_WHY_INVALID, "undeclared reference to 'nosuch'"),
		U(NV ".type.nosuch()", CEL_WHY_INVALID, "undeclared reference to 'nosuch'"),
		U("device.model == 'x'", CEL_WHY_INVALID, "undefined field 'model'"),
		U("device.driver == 1", CEL_WHY_INVALID, "no matching overload for '_==_' applied to (string, int)"),
		U("device.driver > 1", CEL_WHY_INVALID, "no matching overload for '_>_' applied to (string, int)"),
		U("!device.driver", CEL_WHY_INVALID, "no matching overload for '!_' applied to (string)"),
		U("device.driver && true", CEL_WHY_INVALID, "'_&&_' applied to (string, bool)"),
		U("device.driver.x == 1", CEL_WHY_INVALID, "type 'string' does not support field selection"),
		U("device.attributes[1].x == 1", CEL_WHY_INVALID, "no matching overload for '_[_]' applied to (map, int)"),
		U("'a' in device.driver", CEL_WHY_INVALID, "no matching overload for '@in' applied to (string, string)"),
		U("1 in ['a']", CEL_WHY_INVALID, "no matching overload for '@in' applied to (int, list)"),
		U("true ? 1 : 'a'", CEL_WHY_INVALID, "'_?_:_' applied to (int, string)"),
		U("device.driver", CEL_WHY_INVALID, "must evaluate to bool, not string"),
		U("quantity('1')", CEL_WHY_INVALID, "must evaluate to bool, not kubernetes.Quantity"),
		U("1", CEL_WHY_INVALID, "must evaluate to bool, not int"),
		/* an attribute may be a boolean: checked when it is read */
		U(NV ".type", CEL_WHY_ERROR, "evaluated to string, not bool"),
	};

	CHECK(t);
}

Test(cel, device_values_that_are_errors)
{
	static const struct cel_attr bad_version[] = {
		{.name = "type", .type = CEL_ATTR_STRING, .s = "gpu"},
		{.name = "driverVersion", .type = CEL_ATTR_VERSION, .s = "580.82"},
	};
	static const struct cel_attr no_value[] = {{.name = "example.com/x", .type = CEL_ATTR_NONE}};
	static const struct cel_capacity bad_cap[] = {{"memory", "lots"}, {"long", "1234567890123456789012345678901234567890123456789012345678901234567890"}};
	struct cel_device d = {.driver = "gpu.nvidia.com", .attrs = bad_version, .nattrs = 2};
	struct cel_verdict v;

	/* as the API server: one bad version fails every selector on the device */
	v = eval_on("true", &d, NULL);
	cr_expect_eq(v.result, CEL_UNKNOWN);
	cr_expect_eq(v.why, CEL_WHY_ERROR);
	cr_expect_str_eq(v.reason, "attribute 'driverVersion' of the device: not a semantic version");
	d.attrs = no_value;
	d.nattrs = 1;
	v = eval_on("device.driver == 'gpu.nvidia.com'", &d, NULL);
	cr_expect_str_eq(v.reason, "attribute 'example.com/x' of the device: no value");
	d.nattrs = 0;
	d.caps = bad_cap;
	d.ncaps = 2;
	v = eval_on("device.capacity['gpu.nvidia.com'].memory == quantity('1')", &d, NULL);
	cr_expect_eq(v.why, CEL_WHY_ERROR);
	cr_expect_str_eq(v.reason, "capacity 'memory' of the device: not a quantity");
	v = eval_on("'memory' in device.capacity['gpu.nvidia.com']", &d, NULL);
	cr_expect_eq(v.result, CEL_TRUE, "presence does not read the value");
	v = eval_on("device.capacity['gpu.nvidia.com'].long == quantity('1')", &d, NULL);
	cr_expect_eq(v.why, CEL_WHY_LIMIT, "%s", v.reason);
	v = eval_on("quantity('12345678901234567890123456789012345678901234567890123456789012345') == quantity('1')", &d, NULL);
	cr_expect_eq(v.why, CEL_WHY_LIMIT, "%s", v.reason);
	cr_expect(strstr(v.reason, "longer than 64 characters"), "%s", v.reason);
	/* no driver: names without a domain are in the empty domain */
	d.driver = NULL;
	d.attrs = bad_version;
	d.nattrs = 1;
	v = eval_on("device.driver == '' && device.attributes[''].type == 'gpu'", &d, NULL);
	cr_expect_eq(v.result, CEL_TRUE, "%s", v.reason);
}

Test(cel, bounds)
{
	char *s = malloc(20000);
	struct cel_limits lim = {0};
	struct cel_verdict v;
	size_t n = 0;

	cr_assert(s);
	/* longer than the API server's 10 KiB */
	memset(s, ' ', 10240);
	strcpy(s + 10240, "true");
	v = eval_on(s, &gpu, NULL);
	cr_expect_eq(v.why, CEL_WHY_LIMIT);
	cr_expect_str_eq(v.reason, "longer than 10240 bytes");
	lim.max_bytes = 20000;
	v = eval_on(s, &gpu, &lim);
	cr_expect_eq(v.result, CEL_TRUE, "%s", v.reason);
	/* parentheses deeper than 64 */
	for (int i = 0; i < 65; i++)
		s[n++] = '(';
	strcpy(s + n, "true");
	n += 4;
	for (int i = 0; i < 65; i++)
		s[n++] = ')';
	s[n] = '\0';
	v = eval_on(s, &gpu, NULL);
	cr_expect_eq(v.why, CEL_WHY_LIMIT);
	cr_expect_str_eq(v.reason, "nested deeper than 64 levels");
	/* a long chain of negations is as deep */
	memset(s, '!', 70);
	strcpy(s + 70, "true");
	v = eval_on(s, &gpu, NULL);
	cr_expect_eq(v.why, CEL_WHY_LIMIT, "%s", v.reason);
	/* so is a long chain of selections */
	strcpy(s, "has(device");
	for (int i = 0; i < 70; i++)
		strcat(s, ".a");
	strcat(s, ")");
	v = eval_on(s, &gpu, NULL);
	cr_expect_eq(v.why, CEL_WHY_LIMIT, "%s", v.reason);
	/* but a long || chain is balanced, and shallow */
	strcpy(s, "false");
	for (int i = 0; i < 150; i++)
		strcat(s, " || " NV ".index == 9");
	strcat(s, " || " NV ".index == 3");
	v = eval_on(s, &gpu, NULL);
	cr_expect_eq(v.result, CEL_TRUE, "%s", v.reason);
	/* terms */
	lim = (struct cel_limits){.max_nodes = 10};
	v = eval_on("1 in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", &gpu, &lim);
	cr_expect_eq(v.why, CEL_WHY_LIMIT);
	cr_expect_str_eq(v.reason, "more than 10 terms");
	/* steps: the same expression, within and beyond */
	lim = (struct cel_limits){.max_steps = 40};
	v = eval_on(NV ".index == 3", &gpu, &lim);
	cr_expect_eq(v.result, CEL_TRUE, "%s", v.reason);
	lim.max_steps = 12;
	v = eval_on(NV ".index == 3", &gpu, &lim);
	cr_expect_eq(v.why, CEL_WHY_LIMIT);
	cr_expect_str_eq(v.reason, "more than 12 evaluation steps");
	/* a false side that comes first decides without the rest (ten
	 * steps go to the attributes' check) */
	v = eval_on("false && " NV ".index == 3", &gpu, &lim);
	cr_expect_eq(v.result, CEL_FALSE, "%s", v.reason);
	v = eval_on(NV ".index == 3 && false", &gpu, &lim);
	cr_expect_eq(v.why, CEL_WHY_LIMIT, "%s", v.reason);
	free(s);
}

Test(cel, reasons_are_printable_and_short)
{
	char expr[400];
	struct cel_verdict v;

	v = eval_on(NV "['a\\x01\\x1b[31mb'] == 1", &gpu, NULL);
	cr_expect_eq(v.why, CEL_WHY_ERROR);
	cr_expect_str_eq(v.reason, "no such key 'a??[31mb' in device.attributes['gpu.nvidia.com']");
	snprintf(expr, sizeof(expr), NV ".%0100d == 1", 0);
	memset(expr + strlen(NV) + 1, 'x', 100);
	v = eval_on(expr, &gpu, NULL);
	cr_expect(strlen(v.reason) < sizeof(v.reason) - 1, "%s", v.reason);
	cr_expect(strstr(v.reason, "..."), "a long name is shortened: %s", v.reason);
	for (const char *c = v.reason; *c; c++)
		cr_expect(*c >= 0x20 && *c < 0x7f);
}

Test(cel, one_program_many_devices)
{
	static const struct cel_attr mig_attrs[] = {
		{.name = "type", .type = CEL_ATTR_STRING, .s = "mig"},
		{.name = "profile", .type = CEL_ATTR_STRING, .s = "1g.5gb"},
	};
	static const struct cel_capacity mig_caps[] = {{"memory", "4864Mi"}};
	const struct cel_device mig = {"gpu.nvidia.com", mig_attrs, 2, mig_caps, 1, false};
	const char *expr = "device.driver == 'gpu.nvidia.com' && " NV ".type == 'gpu' && " MEM ".compareTo(quantity('40Gi')) >= 0";
	struct cel_program *p = NULL;
	struct kerr err = KERR_INIT;
	struct cel_verdict v;

	cr_assert_eq(cel_compile(expr, strlen(expr), NULL, &p, &err), 0);
	cel_program_verdict(p, &v);
	cr_expect_eq(v.result, CEL_TRUE, "compiled: %s", v.reason);
	cel_eval(p, &gpu, &v);
	cr_expect_eq(v.result, CEL_TRUE, "%s", v.reason);
	cel_eval(p, &mig, &v);
	cr_expect_eq(v.result, CEL_FALSE, "%s", v.reason);
	cel_program_free(p);
	cr_expect_null(cel_program_free(NULL));
	cr_assert_eq(cel_compile("device.driver ==", 16, NULL, &p, &err), 0);
	cel_program_verdict(p, &v);
	cr_expect_eq(v.result, CEL_UNKNOWN);
	cr_expect_eq(v.why, CEL_WHY_INVALID);
	cel_program_free(p);
	cr_expect_str_eq(cel_why_text(CEL_WHY_SUBSET), "outside the evaluated subset");
	cr_expect_str_eq(cel_why_text(CEL_WHY_NONE), "");
}

Test(cel, expression_of_given_length_with_nul)
{
	static const char expr[] = "true\0 && false";
	struct cel_program *p = NULL;
	struct kerr err = KERR_INIT;
	struct cel_verdict v;

	/* the length says where the expression ends, not a NUL */
	cr_assert_eq(cel_compile(expr, 4, NULL, &p, &err), 0);
	cel_eval(p, &gpu, &v);
	cr_expect_eq(v.result, CEL_TRUE);
	cel_program_free(p);
	cr_assert_eq(cel_compile(expr, sizeof(expr) - 1, NULL, &p, &err), 0);
	cel_eval(p, &gpu, &v);
	cr_expect_eq(v.why, CEL_WHY_INVALID, "%s", v.reason);
	cel_program_free(p);
}
