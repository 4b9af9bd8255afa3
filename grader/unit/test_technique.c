/* The technique checks' matching, on SASS lines as cuobjdump prints them for sm_90, and their
 * reading of cuobjdump's output: only the kernels that ran count. */
#include "technique.h"

#include <criterion/criterion.h>
#include <stdio.h>
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

/* Of the kernels in sass, those named launched ran: the machine code kept has `kept` and not
 * `dropped` (why: the message of a failed expectation). */
static void expect_kept(const char *sass, const char *launched, const char *kept,
                        const char *dropped, const char *why)
{
    const char *names[] = {launched};
    char *ran = sass_of_kernels(sass, names, 1);
    cr_assert(ran);
    cr_expect(sass_matches(ran, kept), "%s: /%s/ is not kept", why, kept);
    cr_expect(!sass_matches(ran, dropped), "%s: /%s/ is kept", why, dropped);
    free(ran);
}

Test(technique, keeps_only_the_kernels_that_ran)
{
    expect_kept(SASS, "_Z15global_atomicksPKcmPy", "(RED|ATOM)G?\\.[A-Z0-9.]*ADD", "ATOMS\\.",
                "the launched kernel's add is kept, the kernel never launched counts for nothing");
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

/* A kernel never launched, in a namespace of its own (or with other parameters), with the name
 * of the kernel that ran: mangled names are compared whole. */
static const char SAME_IDENTIFIER_SASS[] =
    "\t\tFunction : _ZN4dead5countEPy\n"
    "        /*0000*/                   ATOMS.POPC.INC.32 RZ, [R3+URZ] ;\n"
    "\t\t..........\n"
    "\t\tFunction : _Z5countPKcmPy\n"
    "        /*0000*/                   ATOMS.ADD RZ, [R3+URZ], R4 ;\n"
    "\t\t..........\n"
    "\t\tFunction : _Z5countPy\n"
    "        /*0000*/                   REDG.E.ADD.64.STRONG.GPU desc[UR4][R2.64], R4 ;\n";

Test(technique, a_kernel_of_the_same_identifier_never_launched_counts_for_nothing)
{
    expect_kept(SAME_IDENTIFIER_SASS, "_Z5countPy", "REDG", "ATOMS",
                "neither dead::count nor count(const char *, ...) ran");
}

/* An extern "C" kernel, launched, beside a kernel of the same identifier in a namespace, never
 * launched (as cuobjdump printed such a pair): the driver names the first bare, and that name
 * is compared whole. */
static const char C_LINKAGE_SASS[] =
    "\t\tFunction : _ZN4dead10lab5_countEPKcmPy\n"
    "        /*0000*/                   ATOMS.POPC.INC.32 RZ, [R3+URZ] ;\n"
    "\t\t..........\n"
    "\t\tFunction : lab5_count\n"
    "        /*0000*/                   REDG.E.ADD.64.STRONG.GPU desc[UR4][R2.64], R4 ;\n";

Test(technique, a_kernel_of_c_linkage_is_not_its_namespaced_twin)
{
    expect_kept(C_LINKAGE_SASS, "lab5_count", "REDG", "ATOMS", "dead::lab5_count never ran");
    cr_expect_eq(kernels_named(C_LINKAGE_SASS, "lab5_count"), 1);
}

/* Two kernels whose mangled names share their first CROSSING_KERNEL_NAME_MAX characters, each
 * listed for two architectures: a launched name cut there could be either. */
Test(technique, a_cut_name_that_starts_two_kernels_is_ambiguous)
{
    char stem[300], sass[2048], cut[256];
    memset(stem, 'x', sizeof stem);
    memcpy(stem, "_Z300", 5);
    snprintf(sass, sizeof sass,
             "\tcode for sm_80\n\t\tFunction : %.290sAv\n\t\tFunction : %.290sBv\n"
             "\tcode for sm_90\n\t\tFunction : %.290sAv\n\t\tFunction : %.290sBv\n",
             stem, stem, stem, stem);
    snprintf(cut, sizeof cut, "%.255s", stem);
    cr_expect_eq(kernels_named(sass, cut), 2, "a cut name that starts two kernels' names");
    char whole[300];
    snprintf(whole, sizeof whole, "%.290sAv", stem);
    cr_expect_eq(kernels_named(sass, whole), 1, "one kernel, listed once an architecture");
    cr_expect_eq(kernels_named(sass, "_Z5otherv"), 0);
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

/* Part A of lab 9's reference as cuobjdump printed it for sm_90 (the lines that neither branch
 * nor touch memory left out, their encodings too), and the same kernel without the barrier after
 * zeroing its shared bins. */
static const char ZEROED_THEN_BARRIER[] =
    "\t\tFunction : _Z25histogram16_shared_kernelPKjmPy\n"
    "        /*0020*/                   BSSY B0, 0x110 ;\n"
    "        /*0050*/               @P0 BRA 0x100 ;\n"
    "        /*00b0*/                   IMAD R4, R3, 0x4, R2 ;\n"
    "        /*00d0*/                   STS [R4], RZ ;                                    /* 0x000000ff04007388 */\n"
    "        /*00f0*/              @!P0 BRA 0xb0 ;\n"
    "        /*0100*/                   BSYNC B0 ;\n"
    "        /*0190*/                   BSSY B0, 0x360 ;\n"
    "        /*01a0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
    "        /*01d0*/               @P0 BRA 0x350 ;\n"
    "        /*0270*/                   LEA R2, P0, R7, UR10, 0x2 ;\n"
    "        /*0290*/                   LDG.E R2, desc[UR8][R2.64] ;\n"
    "        /*02b0*/                   BSSY B1, 0x340 ;\n"
    "        /*0300*/               @P1 BRA 0x330 ;\n"
    "        /*0320*/                   ATOMS.POPC.INC.32 RZ, [R2+URZ] ;\n"
    "        /*0330*/                   BSYNC B1 ;\n"
    "        /*0340*/              @!P0 BRA 0x270 ;\n"
    "        /*0350*/                   BSYNC B0 ;\n"
    "        /*0360*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
    "        /*0380*/               @P0 EXIT ;\n"
    "        /*03d0*/                   LEA R2, R0, UR4, 0x2 ;\n"
    "        /*03e0*/                   BSSY B0, 0x460 ;\n"
    "        /*03f0*/                   LDS R4, [R2] ;\n"
    "        /*0410*/              @!P0 BRA 0x450 ;\n"
    "        /*0440*/                   REDG.E.ADD.64.STRONG.GPU desc[UR8][R2.64], R4 ;\n"
    "        /*0450*/                   BSYNC B0 ;\n"
    "        /*0480*/              @!P0 BRA 0x3d0 ;\n"
    "        /*0490*/                   EXIT ;\n"
    "        /*04a0*/                   BRA 0x4a0;\n";

static const char ZEROED_NO_BARRIER[] =
    "\t\tFunction : _Z25histogram16_shared_kernelPKjmPy\n"
    "        /*0020*/                   BSSY B0, 0x110 ;\n"
    "        /*0050*/               @P0 BRA 0x100 ;\n"
    "        /*00b0*/                   IMAD R4, R3, 0x4, R2 ;\n"
    "        /*00d0*/                   STS [R4], RZ ;\n"
    "        /*00f0*/              @!P0 BRA 0xb0 ;\n"
    "        /*0100*/                   BSYNC B0 ;\n"
    "        /*0190*/                   BSSY B0, 0x350 ;\n"
    "        /*01c0*/               @P0 BRA 0x340 ;\n"
    "        /*0260*/                   LEA R2, P0, R7, UR10, 0x2 ;\n"
    "        /*0280*/                   LDG.E R2, desc[UR8][R2.64] ;\n"
    "        /*02a0*/                   BSSY B1, 0x330 ;\n"
    "        /*02f0*/               @P1 BRA 0x320 ;\n"
    "        /*0310*/                   ATOMS.POPC.INC.32 RZ, [R2+URZ] ;\n"
    "        /*0320*/                   BSYNC B1 ;\n"
    "        /*0330*/              @!P0 BRA 0x260 ;\n"
    "        /*0340*/                   BSYNC B0 ;\n"
    "        /*0350*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
    "        /*0370*/               @P0 EXIT ;\n"
    "        /*03c0*/                   LEA R2, R0, UR4, 0x2 ;\n"
    "        /*03d0*/                   BSSY B0, 0x450 ;\n"
    "        /*03e0*/                   LDS R4, [R2] ;\n"
    "        /*0400*/              @!P0 BRA 0x440 ;\n"
    "        /*0430*/                   REDG.E.ADD.64.STRONG.GPU desc[UR8][R2.64], R4 ;\n"
    "        /*0440*/                   BSYNC B0 ;\n"
    "        /*0470*/              @!P0 BRA 0x3c0 ;\n"
    "        /*0480*/                   EXIT ;\n"
    "        /*0490*/                   BRA 0x490;\n";

Test(machine_code_order, a_barrier_between_zeroing_and_counting_keeps_the_order)
{
    char where[1024];
    cr_expect_not(sass_order_broken(ZEROED_THEN_BARRIER, &BARRIER_AFTER_ZEROING, where,
                                    sizeof where),
                  "%s", where);
}

Test(machine_code_order, counting_after_zeroing_without_a_barrier_is_found)
{
    char where[1024];
    cr_assert(sass_order_broken(ZEROED_NO_BARRIER, &BARRIER_AFTER_ZEROING, where, sizeof where));
    cr_expect(strstr(where, "histogram16_shared_kernel"), "%s", where);
    cr_expect(strstr(where, "STS at /*00d0*/"), "%s", where);
    cr_expect(strstr(where, "ATOMS.POPC.INC.32 at /*0310*/"), "%s", where);
    /* Each kernel is judged on its own: the right one first does not hide the wrong one. */
    char both[sizeof ZEROED_THEN_BARRIER + sizeof ZEROED_NO_BARRIER + 32];
    snprintf(both, sizeof both, "%s\t\t..........\n%s", ZEROED_THEN_BARRIER, ZEROED_NO_BARRIER);
    cr_expect(sass_order_broken(both, &BARRIER_AFTER_ZEROING, where, sizeof where));
}

Test(machine_code_order, a_barrier_on_one_path_only_is_not_enough)
{
    const char *around = "\t\tFunction : k\n"
                         "        /*0000*/  STS [R4], RZ ;\n"
                         "        /*0010*/  @P0 BRA 0x30 ;\n"
                         "        /*0020*/  BAR.SYNC 0x0 ;\n"
                         "        /*0030*/  ATOMS.ADD RZ, [R2], R3 ;\n"
                         "        /*0040*/  EXIT ;\n";
    char where[1024];
    cr_expect(sass_order_broken(around, &BARRIER_AFTER_ZEROING, where, sizeof where));
}

Test(machine_code_order, an_unconditional_branch_does_not_fall_through)
{
    const char *jumped = "\t\tFunction : k\n"
                         "        /*0000*/  STS [R4], RZ ;\n"
                         "        /*0010*/  BRA 0x30 ;\n"
                         "        /*0020*/  ATOMS.ADD RZ, [R2], R3 ;\n"
                         "        /*0030*/  BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
                         "        /*0040*/  ATOMS.ADD RZ, [R2], R3 ;\n"
                         "        /*0050*/  EXIT ;\n";
    char where[1024];
    cr_expect_not(sass_order_broken(jumped, &BARRIER_AFTER_ZEROING, where, sizeof where), "%s",
                  where);
}

/* A WARPSYNC waits for one warp's lanes: it is not the barrier the handout asks for, whatever
 * the GPU. */
Test(machine_code_order, a_warp_sync_is_not_the_barrier)
{
    const char *warp_synced = "\t\tFunction : k\n"
                              "        /*0000*/  STS [R4], RZ ;\n"
                              "        /*0010*/  WARPSYNC 0xffffffff ;\n"
                              "        /*0020*/  ATOMS.ADD RZ, [R2], R3 ;\n"
                              "        /*0030*/  EXIT ;\n";
    char where[1024];
    cr_expect(sass_order_broken(warp_synced, &BARRIER_AFTER_ZEROING, where, sizeof where));
}

Test(machine_code_order, a_kernel_with_a_call_is_not_judged)
{
    const char *called = "\t\tFunction : k\n"
                         "        /*0000*/  STS [R4], RZ ;\n"
                         "        /*0010*/  CALL.REL.NOINC 0x40 ;\n"
                         "        /*0020*/  ATOMS.ADD RZ, [R2], R3 ;\n"
                         "        /*0030*/  EXIT ;\n"
                         "        /*0040*/  BAR.SYNC 0x0 ;\n"
                         "        /*0050*/  RET.REL.NODEC R20 0x0 ;\n";
    char where[1024];
    cr_expect_not(sass_order_broken(called, &BARRIER_AFTER_ZEROING, where, sizeof where),
                  "its barrier may be in the function it calls");
}

Test(technique, without_a_gpu_fails_only_what_no_kernel_of_the_object_has)
{
    char architecture[32];
    const struct sass_rule shared_and_wide[] = {
        {"ATOMS\\.", true, "shared atomics"},
        {"LDG\\.[A-Z0-9.]*128", true, "16-byte loads"},
    };
    cr_expect_null(rule_missing_from_object(SASS, shared_and_wide, 2, architecture, sizeof architecture),
                   "both are in some kernel of the object: only a GPU can tell which ran");
    const struct sass_rule cas[] = {{"ATOMS\\.", true, "shared atomics"},
                                    {"ATOMG?\\.[A-Z0-9.]*CAS", true, "compare-and-swap"}};
    const struct sass_rule *missing = rule_missing_from_object(SASS, cas, 2, architecture, sizeof architecture);
    cr_assert_not_null(missing, "no kernel of the object has a compare-and-swap");
    cr_expect_str_eq(missing->meaning, "compare-and-swap");
    const struct sass_rule no_atomic[] = {{"(RED|ATOM)[GS]?\\.", false, "no atomic"}};
    cr_expect_null(rule_missing_from_object(SASS, no_atomic, 1, architecture, sizeof architecture),
                   "a forbidden instruction may be in a kernel that never runs: not a failure");
}

/* An object built without a GPU holds each architecture's code: a GPU runs its own's. An
 * instruction that one architecture's kernels lack (sm_75 adding 1 with ATOMS.ADD, sm_90 with
 * ATOMS.POPC.INC) is missing there. */
Test(technique, without_a_gpu_every_architecture_must_have_what_is_required)
{
    static const char two_architectures[] =
        "\tcode for sm_75\n\t\tFunction : _Z4stepPy\n"
        "        /*0000*/                   ATOMS.ADD RZ, [R3+URZ], R4 ;\n"
        "\tcode for sm_90\n\t\tFunction : _Z4stepPy\n"
        "        /*0000*/                   ATOMS.POPC.INC.32 RZ, [R3+URZ] ;\n";
    char architecture[32];
    const struct sass_rule add[] = {{"ATOMS\\.ADD", true, "a run added whole"}};
    cr_expect_not_null(rule_missing_from_object(two_architectures, add, 1, architecture, sizeof architecture));
    cr_expect_str_eq(architecture, "sm_90");
    const struct sass_rule shared[] = {{"ATOMS\\.", true, "shared atomics"}};
    cr_expect_null(rule_missing_from_object(two_architectures, shared, 1, architecture, sizeof architecture));
}

/* The atomics a merge or a race may not use, whatever unit makes them: sm_90's bulk reduction
 * from shared to global memory (cp.reduce.async.bulk, a red team's lab 5 part C: UBLKRED, which
 * "(REDG?|ATOMG?)\." did not see) as much as RED and ATOM; not a warp's reduction in registers,
 * nor a kernel whose name holds the letters. The lines are cuobjdump's, sm_90. */
Test(technique, the_atomic_patterns_see_every_unit_and_nothing_else)
{
    static const char *const beyond_the_block[] = {
        "        /*07a0*/                   UBLKRED.G.S.ADD.U64 [UR4], [UR8], UR6 ;",
        "        /*0080*/                   REDG.E.ADD.64.STRONG.GPU desc[UR4][R2.64], R4 ;",
        "        /*0080*/                   RED.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;",
        "        /*0090*/                   ATOMG.E.ADD.64.STRONG.GPU PT, R4, desc[UR4][R2.64], R4 ;",
        "        /*0090*/                   ATOM.E.ADD.STRONG.GPU PT, R4, [R2.64], R5 ;",
        "        /*0100*/                   UTMAREDG.2D.ADD [UR8], [UR4] ;",
        "        /*0100*/                   REDAS.ADD [R2], R3 ;",
    };
    static const char *const neither[] = {
        "        /*0490*/                   REDUX.SUM UR4, R2 ;",
        "        /*0490*/                   CREDUX.MAX UR4, R2 ;",
        "\t\tFunction : _Z12REDUCE_ATOM_kPy",
        "        /*0030*/                   LDG.E.64 R4, desc[UR4][R2.64] ;",
    };
    const char *shared = "        /*0490*/                   ATOMS.POPC.INC.32 RZ, [R7+URZ] ;";
    for (size_t i = 0; i < sizeof beyond_the_block / sizeof *beyond_the_block; i++) {
        cr_expect(sass_matches(beyond_the_block[i], SASS_ATOMIC_BEYOND_THE_BLOCK), "%s",
                  beyond_the_block[i]);
        cr_expect(sass_matches(beyond_the_block[i], SASS_ANY_ATOMIC), "%s", beyond_the_block[i]);
    }
    for (size_t i = 0; i < sizeof neither / sizeof *neither; i++) {
        cr_expect_not(sass_matches(neither[i], SASS_ATOMIC_BEYOND_THE_BLOCK), "%s", neither[i]);
        cr_expect_not(sass_matches(neither[i], SASS_ANY_ATOMIC), "%s", neither[i]);
    }
    cr_expect_not(sass_matches(shared, SASS_ATOMIC_BEYOND_THE_BLOCK), "the block's own memory");
    cr_expect(sass_matches(shared, SASS_ANY_ATOMIC), "an atomic all the same");
}

/* A part that may not use shared memory's atomics: a generic atomic on a global address
 * (cuda::atomic_ref) compiles to an ATOM with a compare-and-swap loop on shared memory beside it
 * (ATOMS.CAST.SPIN), for an address that might be shared and never is: not the code's own. An
 * honest-code trial: lab 5's part A and lab 7's part B written with cuda::atomic_ref. */
Test(technique, a_generic_atomics_shared_fallback_is_not_a_shared_atomic)
{
    cr_expect_not(sass_matches("        /*0150*/  @!P0 ATOMS.CAST.SPIN.64 P0, [R2], R4, R6 ;",
                               SASS_SHARED_ATOMIC_OF_ITS_OWN));
    cr_expect(sass_matches("        /*0150*/  ATOMS.POPC.INC.32 RZ, [R3+UR4] ;",
                           SASS_SHARED_ATOMIC_OF_ITS_OWN));
    cr_expect(sass_matches("        /*0150*/  ATOMS.ADD RZ, [R2], R3 ;", SASS_SHARED_ATOMIC_OF_ITS_OWN));
    cr_expect(sass_matches("        /*0150*/  ATOMS.CAS R0, [R2], R4, R5 ;", SASS_SHARED_ATOMIC_OF_ITS_OWN),
              "atomicCAS on shared memory is the code's own");
}
