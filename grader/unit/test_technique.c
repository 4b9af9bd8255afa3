/* The technique checks' matching, on SASS lines as cuobjdump prints them for sm_90, and their
 * reading of cuobjdump's output: only the kernels that ran count. */
#include "technique.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

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

/* Two kernels as cuobjdump -sass prints them: a privatized one never launched, and a global
 * atomic one. */
static const char SASS[] =
    "\tcode for sm_90\n"
    "\t\tFunction : _Z19dead_private_kernelPKcmPy\n"
    "\t.headerflags\t@\"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    "        /*0000*/                   ATOMS.POPC.INC.32 RZ, [R3+URZ] ;\n"
    "\t\t..........\n"
    "\t\tFunction : _Z15global_atomicksPKcmPy\n"
    "        /*0000*/                   REDG.E.ADD.64.STRONG.GPU desc[UR4][R2.64], R4 ;\n"
    "\t\t..........\n"
    "\t\tFunction : _ZN4labs6nestedEv\n"
    "        /*0000*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\n";

Test(technique, keeps_only_the_kernels_that_ran)
{
    const char *launched[] = {"_Z15global_atomicksPKcmPy"};
    char *ran = sass_of_kernels(SASS, launched, 1);
    cr_assert(ran);
    cr_expect(sass_matches(ran, "(RED|ATOM)G?\\.[A-Z0-9.]*ADD"), "the launched kernel's add is kept");
    cr_expect(!sass_matches(ran, "ATOMS\\."), "the kernel never launched counts for nothing");
    free(ran);
}

Test(technique, names_match_mangled_or_not)
{
    const char *demangled[] = {"dead_private_kernel(const char *, unsigned long, unsigned long long *)"};
    char *ran = sass_of_kernels(SASS, demangled, 1);
    cr_expect(sass_matches(ran, "ATOMS\\."), "a driver name without mangling matches cuobjdump's");
    cr_expect(!sass_matches(ran, "REDG"));
    free(ran);
    const char *nested[] = {"_ZN4labs6nestedEv"};
    ran = sass_of_kernels(SASS, nested, 1);
    cr_expect(sass_matches(ran, "LDG\\.[A-Z0-9.]*128"), "a kernel in a namespace matches");
    cr_expect(!sass_matches(ran, "ATOMS|REDG"));
    free(ran);
}

Test(technique, nothing_launched_keeps_nothing)
{
    char *ran = sass_of_kernels(SASS, NULL, 0);
    cr_assert(ran);
    cr_expect_str_empty(ran);
    free(ran);
    const char *elsewhere[] = {"_Z12other_kernelv"};
    ran = sass_of_kernels(SASS, elsewhere, 1);
    cr_expect_str_empty(ran, "a kernel of another file (a reference's, say) is not the student's");
    free(ran);
}

Test(technique, without_a_gpu_fails_only_what_no_kernel_of_the_object_has)
{
    const struct sass_rule shared_and_wide[] = {
        {"ATOMS\\.", true, "shared atomics"},
        {"LDG\\.[A-Z0-9.]*128", true, "16-byte loads"},
    };
    cr_expect_null(rule_missing_from_object(SASS, shared_and_wide, 2),
                   "both are in some kernel of the object: only a GPU can tell which ran");
    const struct sass_rule cas[] = {{"ATOMS\\.", true, "shared atomics"},
                                    {"ATOMG?\\.[A-Z0-9.]*CAS", true, "compare-and-swap"}};
    const struct sass_rule *missing = rule_missing_from_object(SASS, cas, 2);
    cr_assert_not_null(missing, "no kernel of the object has a compare-and-swap");
    cr_expect_str_eq(missing->meaning, "compare-and-swap");
    const struct sass_rule no_atomic[] = {{"(RED|ATOM)[GS]?\\.", false, "no atomic"}};
    cr_expect_null(rule_missing_from_object(SASS, no_atomic, 1),
                   "a forbidden instruction may be in a kernel that never runs: not a failure");
}
