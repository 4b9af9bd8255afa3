/* The technique checks' matching, on SASS lines as cuobjdump prints them for sm_90. */
#include "technique.h"

#include <criterion/criterion.h>

static const char *const shared_histogram_sass =
    "        /*0140*/                   ATOMS.POPC.INC.32 RZ, [R3+UR4] ;\n"
    "        /*0150*/                   LDS R5, [R2] ;\n"
    "        /*0160*/                   REDG.E.ADD.64.STRONG.GPU desc[UR6][R4.64], R6 ;\n"
    "        /*0170*/                   LDG.E.EF.128 R8, desc[UR6][R10.64] ;\n";

Test(technique, finds_the_instructions_of_each_technique)
{
    cr_expect(sass_matches(shared_histogram_sass, "ATOMS\\."));
    cr_expect(sass_matches(shared_histogram_sass, "(RED|ATOM)G?\\.[A-Z0-9.]*ADD\\.64"));
    cr_expect(sass_matches(shared_histogram_sass, "LDG\\.[A-Z0-9.]*128"));
}

Test(technique, tells_an_increment_from_an_aggregated_add)
{
    cr_expect_not(sass_matches(shared_histogram_sass, "ATOMS\\.ADD"),
                  "ATOMS.POPC.INC is an increment by 1, not the add of a run");
    cr_expect(sass_matches("        /*0200*/  ATOMS.ADD RZ, [R3], R7 ;\n", "ATOMS\\.ADD"));
}

Test(technique, sees_no_atomic_where_there_is_none)
{
    const char *racy = "        /*0070*/  LDG.E.64 R2, desc[UR4][R4.64] ;\n"
                       "        /*0080*/  STG.E.64 desc[UR4][R4.64], R2 ;\n";
    cr_expect_not(sass_matches(racy, "(RED|ATOM)[GS]?\\."));
    cr_expect_not(sass_matches(racy, "ATOMG?\\.[A-Z0-9.]*CAS"));
    cr_expect(sass_matches("  ATOMG.E.CAS.STRONG.GPU PT, R5, [R2], R4, R7 ;\n",
                           "ATOMG?\\.[A-Z0-9.]*CAS"));
}

Test(technique, a_bad_pattern_matches_nothing)
{
    cr_expect_not(sass_matches(shared_histogram_sass, "(unclosed"));
}
