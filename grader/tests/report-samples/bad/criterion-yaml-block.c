#include <criterion/criterion.h>
Test(sample, passes) { cr_assert(1); }
Test(sample, fails_multiline) { cr_assert_fail("first line of the message\nsecond line: expected 3, got 4\n  indented third line"); }
Test(sample, skipped) { cr_skip_test("no GPU here"); }
