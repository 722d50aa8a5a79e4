/* The warnings collected while building the model. */
#include <criterion/criterion.h>

#include "warnings.h"

Test(warnings, add_and_release)
{
	struct warnings w = {0};

	for (int i = 0; i < 20; i++)
		warnings_add(&w, "OverAllocated", i % 2 ? "node/a" : NULL, "gpu %d has %s", i, "too much");
	cr_assert_eq(w.len, 20);
	cr_assert_str_eq(w.items[3].code, "OverAllocated");
	cr_assert_str_eq(w.items[3].object, "node/a");
	cr_assert_null(w.items[4].object);
	cr_assert_str_eq(w.items[4].message, "gpu 4 has too much");
	warnings_release(&w);
	cr_assert_eq(w.len, 0);
	warnings_release(&w);
	warnings_release(NULL);
	warnings_add(NULL, "x", NULL, "y");
}
