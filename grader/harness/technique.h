/* Technique checks: a lab is about a technique (an atomic, shared memory, wide loads), and a
 * right answer reached without it has not done the lab. The checks run the lab's functions once,
 * note the kernels they launch, and read the machine code (SASS) that nvcc produced for those
 * kernels of the student's file, with cuobjdump, looking for the instructions the technique
 * compiles to: ATOMS for an atomic on shared memory, RED or ATOMG for one on global memory,
 * ATOMG.CAS for atomicCAS, LDG.128 for a 16-byte load. A kernel that is never launched counts for
 * nothing, whatever it holds. (A driver or toolkit older than CUDA 12.3's cannot name a launched
 * kernel; there the check reads the whole object's machine code, as it did before.)
 *
 * The launches are seen at nvcc's launch call (CUDA 13's __cudaLaunchKernel, CUDA 12's
 * cudaLaunchKernel) in the worker that runs the student's code: it is linked with --wrap on them
 * (WORKER_LDFLAGS in the Makefile), and names the kernels each call launched in its answer
 * (grader/crossing/worker.c). */
#ifndef GRADER_TECHNIQUE_H
#define GRADER_TECHNIQUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Atomics and reductions on memory, as SASS names them on every architecture the kit builds
 * for, by the opcode's ending: RED and ATOM through a generic or global address (REDG, ATOMG on
 * sm_90), REDAS onto a cluster's shared memory, and sm_90's copy engines' reductions from shared
 * to global memory (UBLKRED for cp.reduce.async.bulk, UTMAREDG for its tensor form): each a way
 * to merge into global memory without the tree. ATOMS is the block's own shared memory. Neither
 * counts a warp's reduction in registers (REDUX, CREDUX), nor a kernel's name. */
#define SASS_ATOMIC_BEYOND_THE_BLOCK "(^|[^A-Za-z0-9_])[A-Z0-9]*(RED|REDG|REDAS|ATOM|ATOMG)\\."
#define SASS_ANY_ATOMIC "(^|[^A-Za-z0-9_])[A-Z0-9]*(RED|REDG|REDAS|ATOM|ATOMG|ATOMS)\\."
/* An atomic add on global memory (RED, REDG, ATOM, ATOMG, with ADD among its modifiers): what
 * labs 2, 4, 5 and 7 count or merge with. */
#define SASS_GLOBAL_ATOMIC_ADD "(RED|ATOM)G?\\.[A-Z0-9.]*ADD"
/* An atomic of the code's own on shared memory: every ATOMS but ATOMS.CAST.SPIN, the
 * compare-and-swap loop that a generic atomic (cuda::atomic_ref on a global address) carries
 * beside its ATOM for an address that might be shared, never taken there (an honest-code trial:
 * a part with global atomics alone was refused as using shared ones). */
#define SASS_SHARED_ATOMIC_OF_ITS_OWN "ATOMS\\.([^C]|CAS[^T])"

struct sass_rule {
    const char *pattern; /* a POSIX extended regular expression over the SASS text */
    bool required;       /* true: some kernel must contain it; false: none may */
    const char *meaning; /* what its presence or absence says, for the failure message */
};

/* What a technique check hands the lab's functions: english-like text (also usable as 8-bit or
 * 32-bit pixels) and zeroed room for 256 64-bit bins (or a counter, or a float sum), on the GPU. */
struct technique_inputs {
    char *d_text;
    uint64_t length;
    unsigned long long *d_bins;
};

/* A grader's call of each of its lab's GPU functions, once each. */
typedef void technique_runner(const struct technique_inputs *inputs);

/* Runs run_every_function, then checks the rules against the machine code of the kernels it
 * launched. Fails the test with "right answer, technique missing" naming the first rule broken,
 * or when no kernel was launched. Without a GPU it fails where no kernel of the object has a
 * required instruction (rule_missing_from_object, where cuobjdump is here) and is otherwise not
 * run (the test stays in the maximum); with a GPU, a missing cuobjdump or an unknown object is the
 * grading machine's problem. */
void check_technique(const struct sass_rule *rules, int count,
                     technique_runner *run_every_function);

/* An order the machine code must keep: no path through a kernel's control flow may lead from an
 * instruction whose opcode matches `from` to one whose opcode matches `to` without passing one
 * whose opcode matches `through` (POSIX extended regular expressions over the opcode, such as
 * "STS(\\..*)?"). A shared-memory store then a shared atomic with no barrier between, say. */
struct sass_order_rule {
    const char *from, *to, *through;
    const char *through_name; /* what `through` is, in words ("barrier (BAR.SYNC)") */
    const char *name;    /* a short name of the mistake, shown as "(name)" */
    const char *meaning; /* what a path without `through` means, for the failure message */
};

/* Shared memory written (the bins zeroed) and then added to with an atomic (counted into) with no
 * barrier between, on some path: a race that no run shows reliably, since the warp that zeroes
 * does so long before the others' first input arrives from memory, and that compute-sanitizer's
 * racecheck does not report (it does not weigh a plain store against an atomic). Only a BAR
 * counts: a WARPSYNC waits for one warp's lanes, not for the block's other warps. (__syncwarp()
 * after lab 9's zeroing left no instruction between the store and the atomic, for sm_75 and
 * sm_90 alike; sm_75's __syncthreads() is a WARPSYNC, then a BAR:
 * docs/results/cpu-syncwarp-sass-66819f0-2026-11-28.log.) The handout asks for __syncthreads(),
 * per-warp bins too. */
extern const struct sass_order_rule BARRIER_AFTER_ZEROING;

/* Runs run_every_function, then fails the test with the rule's meaning, the kernel and the two
 * instructions, when a kernel it launched has a path that breaks a rule. A kernel with a call or
 * an indirect branch is not judged (its paths are not all in the listing). Skips as
 * check_technique does. */
void check_machine_code_order(const struct sass_order_rule *rules, int count,
                              technique_runner *run_every_function);

/* Whether the SASS text (cuobjdump -sass, any number of kernels) has a path that breaks the
 * rule; if so, where says which kernel and instructions (always terminated). */
bool sass_order_broken(const char *sass, const struct sass_order_rule *rule, char *where,
                       size_t where_size);

/* True when the SASS text matches the pattern. */
bool sass_matches(const char *sass, const char *pattern);

/* The static part, on the machine code of a whole object (what cuobjdump reads without a GPU):
 * the first rule that requires an instruction that no kernel of it has, for one of the object's
 * architectures (named in architecture; a GPU runs its own architecture's code, which the
 * object built without one holds beside others'), or NULL. A forbidden instruction that some
 * kernel has proves nothing before the launched kernels are known. */
const struct sass_rule *rule_missing_from_object(const char *sass, const struct sass_rule *rules,
                                                 int count, char *architecture,
                                                 size_t architecture_size);

/* The part of cuobjdump -sass output that belongs to the kernels named (each a name as the CUDA
 * driver gives it, mangled or not): malloc'ed, empty when none of them is there. */
char *sass_of_kernels(const char *sass, const char *const *names, int count);

/* How many different kernels of cuobjdump -sass output the launched name can be: 0, 1, or 2
 * for more than one (a name cut at the launch note's length that starts two kernels' names). */
int kernels_named(const char *sass, const char *launched);

#endif
