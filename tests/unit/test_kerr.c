#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerr.h"
#include "kerr_test_util.h"

Test(kerr, forbidden_status_like_kubectl)
{
	struct kerr e = KERR_INIT;

	cr_assert_eq(kerr_set_status(&e, 403, "Forbidden",
				     "nodes is forbidden: User \"viewer\" cannot list resource \"nodes\" in API group \"\" at the cluster scope"),
		     -1);
	t_assert_printed(&e, "Error from server (Forbidden): nodes is forbidden: User \"viewer\" cannot list resource "
			     "\"nodes\" in API group \"\" at the cluster scope\n");
	cr_assert_eq(kerr_exit_code(&e), 1);
	kerr_release(&e);
}

Test(kerr, unauthorized_is_logged_in_message)
{
	struct kerr e = KERR_INIT;

	kerr_set_status(&e, 401, "Unauthorized", "Unauthorized");
	t_assert_printed(&e, "error: You must be logged in to the server (Unauthorized)\n");
	kerr_release(&e);
}

Test(kerr, reason_from_code_when_missing)
{
	struct kerr e = KERR_INIT;

	kerr_set_status(&e, 404, NULL, "nodes \"x\" not found");
	t_assert_printed(&e, "Error from server (NotFound): nodes \"x\" not found\n");
	kerr_release(&e);
}

Test(kerr, refused_and_transport)
{
	struct kerr e = KERR_INIT;

	kerr_set(&e, KERR_REFUSED, "connection refused");
	e.host = strdup("127.0.0.1:6443");
	t_assert_printed(&e, "The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n");
	kerr_set(&e, KERR_TRANSPORT, "dial tcp: lookup nowhere.invalid: no such host");
	t_assert_printed(&e, "Unable to connect to the server: dial tcp: lookup nowhere.invalid: no such host\n");
	kerr_release(&e);
}

Test(kerr, usage_exit_code_and_one_line)
{
	struct kerr e = KERR_INIT;

	kerr_set(&e, KERR_USAGE, "unknown flag: --%s\nsecond line", "frob");
	cr_assert_eq(kerr_exit_code(&e), 1);
	t_assert_printed(&e, "error: unknown flag: --frob second line\n");
	kerr_prefix(&e, "node %s", "a");
	cr_assert_str_eq(e.message, "node a: unknown flag: --frob second line");
	kerr_release(&e);
	cr_assert_eq(kerr_exit_code(&e), 0);
}

Test(kerr, credentials_prefix_once)
{
	struct kerr e = KERR_INIT;

	kerr_set(&e, KERR_CREDENTIALS, "getting credentials: exec: executable kubelogin not found");
	t_assert_printed(&e, "Unable to connect to the server: getting credentials: exec: executable kubelogin not found\n");
	kerr_release(&e);
}

Test(kerr, invalid_configuration_printed_as_kubectl_does)
{
	struct kerr e = KERR_INIT;

	kerr_set(&e, KERR_CONFIG, "context was not found for specified context: nope");
	e.reason = strdup(KERR_REASON_INVALID_CONFIGURATION);
	t_assert_printed(&e, "Error in configuration: context was not found for specified context: nope\n");
	kerr_set(&e, KERR_CONFIG, "auth info \"nope\" does not exist");
	t_assert_printed(&e, "error: auth info \"nope\" does not exist\n");
	kerr_release(&e);
}

Test(kerr, copy_owns_its_strings)
{
	struct kerr e = KERR_INIT, c = KERR_INIT;

	kerr_set_status(&e, 404, "NotFound", "pods \"x\" not found");
	e.host = strdup("10.0.0.1:6443");
	kerr_set(&c, KERR_OTHER, "replaced");
	kerr_copy(&c, &e);
	kerr_release(&e);
	cr_assert_eq(c.kind, KERR_STATUS);
	cr_assert_eq(c.code, 404);
	cr_assert_str_eq(c.reason, "NotFound");
	cr_assert_str_eq(c.message, "pods \"x\" not found");
	cr_assert_str_eq(c.host, "10.0.0.1:6443");
	kerr_copy(&c, &(struct kerr)KERR_INIT);
	cr_assert_eq(c.kind, KERR_NONE);
	cr_assert_null(c.message);
	kerr_release(&c);
}
