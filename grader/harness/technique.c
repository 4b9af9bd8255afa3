#define _POSIX_C_SOURCE 200809L
#include "technique.h"

#include "crossing.h"
#include "cuda_check.h"
#include "device.h"
#include "grading.h"
#include "inputs.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_LAUNCHED_KERNELS 64
#define TECHNIQUE_TEXT_BYTES (1u << 20)
#define TECHNIQUE_BINS 256

#ifndef KIT_CUDA_HOME
#define KIT_CUDA_HOME "/usr/local/cuda"
#endif

/* The toolkit's cuobjdump, else one on the PATH (NVIDIA's nvidia-cuda-cuobjdump wheel, say: a
 * toolkit without it still builds the labs). */
static const char *find_cuobjdump(void)
{
    static const char *const candidates[] = {KIT_CUDA_HOME "/bin/cuobjdump", "/usr/bin/cuobjdump",
                                             "/usr/local/cuda/bin/cuobjdump"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
    static char on_path[4096];
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t length = strcspn(path, ":");
        if (length > 0 && length < sizeof on_path - sizeof "/cuobjdump") {
            snprintf(on_path, sizeof on_path, "%.*s/cuobjdump", (int)length, path);
            if (access(on_path, X_OK) == 0)
                return on_path;
        }
        path += length + (path[length] == ':');
    }
    return NULL;
}

/* The SASS of the student's object (malloc'ed), or NULL with a reason. */
static char *student_sass(char *reason, unsigned long reason_size)
{
    const char *object = getenv("GRADE_OBJECT");
    if (!object || !*object) {
        snprintf(reason, reason_size, "run the grader through ./grade, which names the object");
        return NULL;
    }
    const char *cuobjdump = find_cuobjdump();
    if (!cuobjdump) {
        snprintf(reason, reason_size, "cuobjdump (CUDA toolkit) is not installed here (a "
                                      "toolkit without it: pip install nvidia-cuda-cuobjdump "
                                      "nvidia-cuda-nvdisasm, then their bin folder on PATH)");
        return NULL;
    }
    if (access(object, R_OK) != 0) {
        snprintf(reason, reason_size, "cannot read %s", object);
        return NULL;
    }
    /* cuobjdump run directly, not through a shell: a path may hold any character. */
    int channel[2];
    if (pipe(channel) != 0) {
        snprintf(reason, reason_size, "cannot make a pipe to run %.300s", cuobjdump);
        return NULL;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, channel[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, channel[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, channel[0]);
    char *const arguments[] = {(char *)cuobjdump, "-sass", (char *)object, NULL};
    pid_t child;
    int spawned = posix_spawn(&child, cuobjdump, &actions, NULL, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(channel[1]);
    if (spawned != 0) {
        close(channel[0]);
        snprintf(reason, reason_size, "cannot run %.300s: %s", cuobjdump, strerror(spawned));
        return NULL;
    }
    FILE *output = fdopen(channel[0], "r");
    size_t size = 0, capacity = 1 << 20;
    char *sass = output ? malloc(capacity) : NULL;
    size_t got;
    while (sass && (got = fread(sass + size, 1, capacity - size - 1, output)) > 0) {
        size += got;
        if (capacity - size < 4096) {
            char *bigger = realloc(sass, capacity *= 2);
            if (!bigger)
                free(sass);
            sass = bigger;
        }
    }
    if (output)
        fclose(output);
    else
        close(channel[0]);
    int wait_status = 0;
    int status = waitpid(child, &wait_status, 0) == child && WIFEXITED(wait_status)
                     ? WEXITSTATUS(wait_status) : -1;
    if (!sass) {
        snprintf(reason, reason_size, "out of host memory for the SASS");
        return NULL;
    }
    sass[size] = '\0';
    if (status != 0) {
        /* Its complaint is its last line, after what it had listed. */
        size_t end = size;
        while (end > 0 && isspace((unsigned char)sass[end - 1]))
            end--;
        size_t start = end;
        while (start > 0 && sass[start - 1] != '\n')
            start--;
        snprintf(reason, reason_size, "cuobjdump failed on %s: %.*s%s", object,
                 (int)(end - start < 300 ? end - start : 300), sass + start,
                 strstr(sass, "nvdisasm") ? " (NVIDIA's nvidia-cuda-nvdisasm wheel has it: pip "
                                            "install nvidia-cuda-nvdisasm, its bin folder on PATH)"
                                          : "");
        free(sass);
        return NULL;
    }
    return sass;
}

bool sass_matches(const char *sass, const char *pattern)
{
    regex_t regex;
    if (regcomp(&regex, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
        return false;
    bool found = regexec(&regex, sass, 0, NULL, 0) == 0;
    regfree(&regex);
    return found;
}

/* A kernel's name without its parameter types, so that the driver's name and cuobjdump's
 * compare whether either is mangled: "_Z6kernelPKcmPy" and "kernel(const char *, ...)" are both
 * "kernel". Writes at most size - 1 characters. */
static void kernel_identifier(const char *name, char *out, size_t size)
{
    const char *start = name;
    size_t length = 0;
    if (strncmp(name, "_Z", 2) == 0) {
        /* _Z<length><name>..., or _ZN<length><part>...<length><name>E... in a namespace */
        const char *at = name + 2;
        bool nested = *at == 'N';
        if (nested)
            at++;
        do {
            char *end;
            unsigned long part = strtoul(at, &end, 10);
            if (end == at)
                break;
            start = end;
            length = strnlen(end, part);
            at = end + length;
        } while (nested && *at >= '0' && *at <= '9');
    } else {
        while (start[length] && start[length] != '(' && start[length] != '<')
            length++;
    }
    if (length >= size)
        length = size - 1;
    memcpy(out, start, length);
    out[length] = '\0';
}

static bool is_mangled(const char *name)
{
    return strncmp(name, "_Z", 2) == 0;
}

/* Whether a name is a C identifier alone: what the driver names a kernel of C linkage. */
static bool is_bare_identifier(const char *name)
{
    if (!(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return false;
    for (const char *c = name; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_'))
            return false;
    return true;
}

/* Whether cuobjdump's kernel `listed` is the kernel launched as `launched`. The driver names a
 * kernel by its symbol, as cuobjdump lists it: mangled, or, for C linkage (extern "C"), the bare
 * identifier. Either way the names are compared whole: their identifiers alone would make a
 * kernel never launched, in a namespace of its own, with other parameters, or of C++ linkage
 * beside an extern "C" one, one with the kernel that ran. A launched name as long as a launch
 * note holds (crossing.h) may have been cut there: it is compared as the start of cuobjdump's
 * (observe_run refuses one that starts two kernels' names). Only a demangled name (a driver
 * that demangles, which the CUDA documentation does not describe) is compared by identifier. */
static bool same_kernel(const char *listed, const char *launched)
{
    if (is_mangled(launched) || is_bare_identifier(launched)) {
        size_t length = strlen(launched);
        return length >= CROSSING_KERNEL_NAME_MAX ? strncmp(listed, launched, length) == 0
                                                   : strcmp(listed, launched) == 0;
    }
    char listed_identifier[512], launched_identifier[512];
    kernel_identifier(listed, listed_identifier, sizeof listed_identifier);
    kernel_identifier(launched, launched_identifier, sizeof launched_identifier);
    return strcmp(listed_identifier, launched_identifier) == 0;
}

/* The name after "Function : " on the line at `line`, or false if the line lists no kernel. */
static bool listed_kernel(const char *line, size_t line_length, char *name, size_t size)
{
    const char *function = strstr(line, "Function : ");
    if (!function || function >= line + line_length)
        return false;
    size_t name_length = strcspn(function + 11, " \t\r\n");
    snprintf(name, size, "%.*s", (int)(name_length < size - 1 ? name_length : size - 1),
             function + 11);
    return true;
}

static size_t line_length_at(const char *line)
{
    const char *end = strchr(line, '\n');
    return end ? (size_t)(end - line) + 1 : strlen(line);
}

int kernels_named(const char *sass, const char *launched)
{
    /* A kernel is listed once an architecture of the object: the names are told apart. */
    char first[512] = "", name[512];
    for (const char *line = sass; *line;) {
        size_t line_length = line_length_at(line);
        bool named = listed_kernel(line, line_length, name, sizeof name);
        line += line_length;
        if (!named || !same_kernel(name, launched))
            continue;
        if (!first[0])
            snprintf(first, sizeof first, "%s", name);
        else if (strcmp(first, name) != 0)
            return 2;
    }
    return first[0] ? 1 : 0;
}

char *sass_of_kernels(const char *sass, const char *const *names, int count)
{
    size_t capacity = strlen(sass) + 1, used = 0;
    char *kept = malloc(capacity);
    if (!kept)
        return NULL;
    bool keeping = false;
    for (const char *line = sass; *line;) {
        size_t line_length = line_length_at(line);
        char name[512];
        if (listed_kernel(line, line_length, name, sizeof name)) {
            keeping = false;
            for (int n = 0; n < count && !keeping; n++)
                keeping = same_kernel(name, names[n]);
        }
        if (keeping) {
            memcpy(kept + used, line, line_length);
            used += line_length;
        }
        line += line_length;
    }
    kept[used] = '\0';
    return kept;
}

/* Runs the lab's functions on a text of kind; returns how many different kernels their worker
 * launched, their names in names[] (malloc'ed), and whether the driver could name them. */
static int launched_kernels(technique_runner *run_every_function, enum text_kind kind,
                            uint64_t seed, char **names, int max_names, bool *named)
{
    struct technique_inputs inputs = {NULL, TECHNIQUE_TEXT_BYTES, NULL};
    char *text = malloc(inputs.length);
    cr_assert(text, "out of host memory");
    generate_text(kind, seed, text, inputs.length);
    CUDA_CHECK(cudaMalloc((void **)&inputs.d_text, inputs.length));
    CUDA_CHECK(cudaMemcpy(inputs.d_text, text, inputs.length, cudaMemcpyHostToDevice));
    free(text);
    CUDA_CHECK(cudaMalloc((void **)&inputs.d_bins, TECHNIQUE_BINS * sizeof *inputs.d_bins));
    CUDA_CHECK(cudaMemset(inputs.d_bins, 0, TECHNIQUE_BINS * sizeof *inputs.d_bins));

    crossing_record_results(true);
    run_every_function(&inputs);
    CUDA_CHECK(cudaFree(inputs.d_text));
    CUDA_CHECK(cudaFree(inputs.d_bins));

    const char *const *launched;
    int count = crossing_launched_kernels(&launched, named);
    int kept = 0;
    for (int k = 0; k < count && kept < max_names; k++)
        if ((names[kept] = strdup(launched[k])) != NULL)
            kept++;
    return kept;
}

/* Runs every function on the text of kind and seed; the kernels' names are not kept. */
static void run_on(technique_runner *run_every_function, enum text_kind kind, uint64_t seed)
{
    char *names[MAX_LAUNCHED_KERNELS];
    bool named = true;
    int launched = launched_kernels(run_every_function, kind, seed, names, MAX_LAUNCHED_KERNELS,
                                    &named);
    for (int n = 0; n < launched; n++)
        free(names[n]);
}

/* The share of the counts a kernel that does the technique's work must change when it is left
 * out: most of them. One that counts a token share (the text's last bytes) while another kernel
 * counts the rest is not the technique. */
#define SHARE_OF_THE_WORK 0.5

/* What a run of every function with every kernel gave: its results' hashes, one a call, and
 * their counters, call h's from starts[h] to starts[h + 1]. */
struct baseline {
    uint64_t hashes[CROSSING_MAX_RESULTS];
    int hash_count;
    double *counters;
    int counter_count;
    int starts[CROSSING_MAX_RESULTS + 1];
};

/* Whether some call's result changes, in at least SHARE_OF_THE_WORK of its counts (the sum of
 * each counter's change against the sum of the call's counters), when kernel is not launched
 * (crossing.h): a kernel that does none of the work (launched on nothing, or named in a forged
 * list of launches) changes nothing. Each call apart: a lab's functions each launch kernels of
 * their own. A run on a text of one letter comes between, so that what a skipped kernel would
 * have written is not still there from the baseline's run (in memory of the code's own, kept
 * between calls), and what is left from that run differs in most of its counts. */
static bool kernel_does_work(technique_runner *run_every_function, uint64_t seed,
                             const char *kernel, const struct baseline *baseline)
{
    run_on(run_every_function, TEXT_ONE_LETTER, seed ^ 0x5A5A5A5Aull);
    crossing_skip_kernels(&kernel, 1);
    run_on(run_every_function, TEXT_ENGLISH_LIKE, seed);
    crossing_skip_kernels(NULL, 0);
    const uint64_t *hashes = NULL;
    int count = crossing_result_hashes(&hashes);
    if (count == baseline->hash_count &&
        memcmp(hashes, baseline->hashes, (size_t)count * sizeof *hashes) == 0)
        return false;
    const double *counters = NULL;
    const int *starts = NULL;
    int counter_count = crossing_result_counters(&counters, &starts);
    if (count != baseline->hash_count || counter_count != baseline->counter_count)
        return true;
    for (int h = 0; h < count; h++) {
        if (starts[h] != baseline->starts[h] || starts[h + 1] != baseline->starts[h + 1])
            return true;
        double total = 0.0, changed = 0.0;
        for (int c = starts[h]; c < starts[h + 1]; c++) {
            total += baseline->counters[c];
            changed += fabs(counters[c] - baseline->counters[c]);
        }
        if (changed > 0.0 && changed >= SHARE_OF_THE_WORK * total)
            return true;
    }
    return false;
}

/* For a rule that asks for an instruction: among the launched kernels that have it, one that
 * does most of the work; its name in *worker, or NULL (and the ones tried in tried). */
static bool rule_does_work(const struct sass_rule *rule, const char *sass, char **names,
                           int launched, technique_runner *run_every_function, uint64_t seed,
                           const struct baseline *baseline, char *tried, size_t tried_size)
{
    for (int n = 0; n < launched; n++) {
        char *own = sass_of_kernels(sass, (const char *const *)&names[n], 1);
        bool has = own && sass_matches(own, rule->pattern);
        free(own);
        if (!has)
            continue;
        if (kernel_does_work(run_every_function, seed, names[n], baseline))
            return true;
        char identifier[256];
        kernel_identifier(names[n], identifier, sizeof identifier);
        snprintf(tried + strlen(tried), tried_size - strlen(tried), "%s%s", *tried ? ", " : "",
                 identifier);
    }
    return false;
}

/* What one run of the lab's functions shows: the object's machine code, the kernels launched
 * (their names, their machine code, a list to print) and the hashes of the results. */
struct observed_run {
    char *sass, *ran;
    char *names[MAX_LAUNCHED_KERNELS];
    int launched;
    bool named;
    char list[1024];
    const char *object;
    struct baseline baseline;
};

static void forget_run_names(struct observed_run *run)
{
    free(run->sass);
    for (int n = 0; n < run->launched; n++)
        free(run->names[n]);
}

static void forget_run(struct observed_run *run)
{
    free(run->baseline.counters);
    free(run->ran);
    forget_run_names(run);
}

/* Runs the lab's functions once on the text of seed and fills run; skips the test where the
 * object's machine code cannot be read (the machine's fault) and fails it where no kernel of the
 * object was launched. */
static void observe_run(technique_runner *run_every_function, uint64_t seed,
                        struct observed_run *run)
{
    char reason[512];
    run->sass = student_sass(reason, sizeof reason);
    if (!run->sass) {
        /* Not the code's fault, and never a free pass: the results model calls the grading
         * machine broken, and the test keeps its points in the maximum. */
        record_current_test(TEST_MACHINE_PROBLEM, reason);
        cr_skip_test("technique check not run: %s", reason);
    }
    run->named = true;
    run->launched = launched_kernels(run_every_function, TEXT_ENGLISH_LIKE, seed, run->names,
                                     MAX_LAUNCHED_KERNELS, &run->named);
    /* A kernel the check cannot name, or cannot tell from another, would be judged by the
     * others' machine code: the test fails rather than judge what it did not see. */
    if (!crossing_every_kernel_noted()) {
        forget_run_names(run);
        cr_assert_fail("right answer or not, technique not checked: your functions launched more "
                       "than %d different kernels in one test, and the check follows that many "
                       "(a lab needs a few)", MAX_LAUNCHED_KERNELS);
    }
    for (int n = 0; n < run->launched && run->named; n++) {
        if (kernels_named(run->sass, run->names[n]) > 1) {
            char identifier[256];
            kernel_identifier(run->names[n], identifier, sizeof identifier);
            forget_run_names(run);
            cr_assert_fail("right answer or not, technique not checked: the name of your kernel "
                           "%s is longer than the %d characters a launch note holds, and another "
                           "kernel's starts the same: give your kernels shorter names",
                           identifier, CROSSING_KERNEL_NAME_MAX);
        }
    }
    const uint64_t *hashes = NULL;
    struct baseline *baseline = &run->baseline;
    baseline->hash_count = crossing_result_hashes(&hashes);
    if (baseline->hash_count > CROSSING_MAX_RESULTS)
        baseline->hash_count = CROSSING_MAX_RESULTS;
    memcpy(baseline->hashes, hashes, (size_t)baseline->hash_count * sizeof *hashes);
    const double *counters = NULL;
    const int *starts = NULL;
    baseline->counter_count = crossing_result_counters(&counters, &starts);
    memcpy(baseline->starts, starts, ((size_t)baseline->hash_count + 1) * sizeof *starts);
    baseline->counters = malloc(((size_t)baseline->counter_count + 1) * sizeof *counters);
    cr_assert(baseline->counters, "out of host memory");
    memcpy(baseline->counters, counters, (size_t)baseline->counter_count * sizeof *counters);
    run->object = getenv("GRADE_OBJECT");
    /* Where the driver cannot name a kernel, the check falls back to the whole object's machine
     * code: an honest kernel must not fail for the driver's age. */
    run->ran = run->named
                   ? sass_of_kernels(run->sass, (const char *const *)run->names, run->launched)
                   : strdup(run->sass);
    cr_assert(run->ran, "out of host memory for the SASS");
    run->list[0] = '\0';
    for (int n = 0; n < run->launched; n++) {
        char identifier[256];
        kernel_identifier(run->names[n], identifier, sizeof identifier);
        snprintf(run->list + strlen(run->list), sizeof run->list - strlen(run->list), "%s%s",
                 n ? ", " : "", identifier);
    }
    if (!*run->ran) {
        char list[sizeof run->list];
        snprintf(list, sizeof list, "%s", run->list);
        int launched = run->launched;
        const char *object = run->object;
        forget_run(run);
        cr_assert_fail("right answer or not, technique missing: your functions launched no kernel "
                       "of %s%s%s: the lab's technique must be in a kernel they launch",
                       object, launched ? " (they launched: " : "", launched ? list : "");
    }
}

/* The machine code of the kernels that run_every_function launched (malloc'ed, never empty),
 * their names in list, and the object's path; skips or fails the test as check_technique says. */
static char *launched_sass(technique_runner *run_every_function, char *list, size_t list_size,
                           const char **object_out)
{
    char reason[512];
    if (!gpu_available(reason, sizeof reason)) {
        record_current_test(TEST_NEEDS_GPU, reason);
        cr_skip_test("technique check not run: it runs your functions to see which kernels they "
                     "launch, and %s", reason);
    }
    struct observed_run run;
    observe_run(run_every_function, grading_options().seed, &run);
    snprintf(list, list_size, "%s", run.list);
    *object_out = run.object;
    char *ran = run.ran;
    run.ran = NULL;
    forget_run(&run);
    return ran;
}

/* Whether some architecture's part of cuobjdump's listing (after its line "code for sm_XX") has
 * kernels but no instruction matching pattern; its name in architecture when so. */
static bool missing_in_an_architecture(const char *sass, const char *pattern, char *architecture,
                                       size_t architecture_size)
{
    static const char marker[] = "code for sm_";
    for (const char *part = strstr(sass, marker); part;) {
        const char *next = strstr(part + 1, marker);
        size_t length = next ? (size_t)(next - part) : strlen(part);
        char *chunk = strndup(part, length);
        cr_assert(chunk, "out of host memory for the SASS");
        bool missing = strstr(chunk, "Function : ") && !sass_matches(chunk, pattern);
        free(chunk);
        if (missing) {
            size_t name = strcspn(part + sizeof marker - 1, " \t\r\n");
            snprintf(architecture, architecture_size, "sm_%.*s", (int)(name < 16 ? name : 16),
                     part + sizeof marker - 1);
            return true;
        }
        part = next;
    }
    return false;
}

const struct sass_rule *rule_missing_from_object(const char *sass, const struct sass_rule *rules,
                                                 int count, char *architecture,
                                                 size_t architecture_size)
{
    snprintf(architecture, architecture_size, "any architecture");
    for (int r = 0; r < count; r++) {
        if (!rules[r].required)
            continue;
        if (!sass_matches(sass, rules[r].pattern) ||
            missing_in_an_architecture(sass, rules[r].pattern, architecture, architecture_size))
            return &rules[r];
    }
    return NULL;
}

/* Where a rule asks for an atomic on shared memory (ATOMS) and the kernels have a block-scope
 * atomic through a generic address instead (cuda::atomic_ref with thread_scope_block compiles so,
 * ATOM.E...STRONG.SM), what to do: the machine code cannot tell such an atomic's memory. */
static const char *generic_shared_atomic_hint(const struct sass_rule *rule, const char *sass)
{
    if (!rule->required || strncmp(rule->pattern, "ATOMS", 5) != 0 ||
        !sass_matches(sass, "ATOM\\.E\\.[A-Z0-9.]*\\.(SM|CTA)[ ,]"))
        return "";
    return "\n  Your kernels make block-scope atomics through a generic address (ATOM.E...SM: "
           "cuda::atomic_ref with thread_scope_block, say), whose memory the machine code does not "
           "say: use atomicAdd on the __shared__ variable or bins, which compiles to ATOMS.";
}

/* Without a GPU: the machine code of the whole object, which cuobjdump reads without one. An
 * instruction the technique needs that no kernel of the object has is missing for certain, and
 * fails the test; the rest (which kernels the functions launch, an instruction no kernel they
 * launch may have) needs a GPU, and the test is not run, saying what the static part found. */
static void check_technique_without_gpu(const struct sass_rule *rules, int count,
                                        const char *no_gpu)
{
    char reason[512];
    char *sass = student_sass(reason, sizeof reason);
    if (!sass) {
        record_current_test(TEST_NEEDS_GPU, no_gpu);
        cr_skip_test("technique check not run: it runs your functions to see which kernels they "
                     "launch, and %s (its static part, which reads your object's machine code "
                     "without a GPU, could not run either: %s)", no_gpu, reason);
    }
    char architecture[32];
    const struct sass_rule *missing =
        rule_missing_from_object(sass, rules, count, architecture, sizeof architecture);
    const char *generic = missing ? generic_shared_atomic_hint(missing, sass) : "";
    free(sass);
    const char *object = getenv("GRADE_OBJECT");
    if (missing)
        cr_assert_fail("right answer or not, technique missing: %s\n  (no kernel in the machine "
                       "code of %s for %s has an instruction matching /%s/, whichever your "
                       "functions launch; see it with: cuobjdump -sass %s)%s",
                       missing->meaning, object, architecture, missing->pattern, object, generic);
    record_current_test(TEST_NEEDS_GPU, no_gpu);
    cr_skip_test("technique check not run in full: its static part passed (the instructions the "
                 "lab needs are in your object's machine code), but which of your kernels your "
                 "functions launch needs a GPU, and %s", no_gpu);
}

void check_technique(const struct sass_rule *rules, int count,
                     technique_runner *run_every_function)
{
    char reason[512];
    if (!gpu_available(reason, sizeof reason))
        check_technique_without_gpu(rules, count, reason);
    const uint64_t seed = grading_options().seed;
    struct observed_run run;
    observe_run(run_every_function, seed, &run);
    for (int r = 0; r < count; r++) {
        bool found = sass_matches(run.ran, rules[r].pattern);
        /* The instruction must be in a kernel that does most of the work: one whose absence
         * changes most of the counts (SHARE_OF_THE_WORK). */
        char tried[512] = "";
        if (found && rules[r].required && run.named &&
            !rule_does_work(&rules[r], run.sass, run.names, run.launched, run_every_function,
                            seed, &run.baseline, tried, sizeof tried)) {
            forget_run(&run);
            cr_assert_fail("right answer or not, technique missing: %s\n  (the kernels with "
                           "/%s/ that your functions launched, %s, do little or none of the "
                           "work: left out, they change less than half of the counts)",
                           rules[r].meaning, rules[r].pattern, tried);
        }
        if (found != rules[r].required) {
            char list[sizeof run.list];
            snprintf(list, sizeof list, "%s", run.list);
            const char *object = run.object;
            const char *generic = generic_shared_atomic_hint(&rules[r], run.ran);
            forget_run(&run);
            cr_assert_fail("right answer or not, technique missing: %s\n  (the machine code of "
                           "the kernels your functions launched, %s, %s /%s/; a kernel they do not "
                           "launch counts for nothing; see it with: cuobjdump -sass %s)%s",
                           rules[r].meaning, list, found ? "has" : "has no instruction matching",
                           rules[r].pattern, object, generic);
        }
    }
    forget_run(&run);
}

/* ---------------------------------------------------------------------------------------- */
/* The order of instructions along a kernel's control flow                                   */
/* ---------------------------------------------------------------------------------------- */

/* One instruction of a kernel's listing, as far as its control flow goes. */
struct flow_instruction {
    unsigned long address;
    char opcode[48];
    bool falls_through;      /* the next instruction can follow it */
    bool branches;           /* it can jump to target_address */
    unsigned long target_address;
    bool unknown_flow;       /* a call, a return or an indirect jump: not followed here */
};

/* Reads an instruction line of cuobjdump -sass: its address in a comment, an optional predicate,
 * the opcode, the operands up to ';' (then the encoding, in a comment). False for any other
 * line. */
static bool read_flow_instruction(const char *line, size_t length, struct flow_instruction *out)
{
    const char *end = line + length;
    const char *at = line;
    while (at < end && (*at == ' ' || *at == '\t'))
        at++;
    if (end - at < 4 || at[0] != '/' || at[1] != '*' || !isxdigit((unsigned char)at[2]))
        return false; /* not an address: an encoding's second line, say */
    char *digits_end;
    out->address = strtoul(at + 2, &digits_end, 16);
    if (digits_end == at + 2 || digits_end + 2 > end || digits_end[0] != '*' || digits_end[1] != '/')
        return false;
    at = digits_end + 2;
    while (at < end && (*at == ' ' || *at == '\t'))
        at++;
    bool predicated = false;
    if (at < end && *at == '@') {
        const char *predicate = at;
        while (at < end && *at != ' ' && *at != '\t')
            at++;
        /* @PT is always true, @!PT never. */
        predicated = !((at - predicate == 3 && strncmp(predicate, "@PT", 3) == 0));
        while (at < end && (*at == ' ' || *at == '\t'))
            at++;
    }
    size_t opcode_length = 0;
    while (at + opcode_length < end && at[opcode_length] != ' ' && at[opcode_length] != '\t' &&
           at[opcode_length] != ';')
        opcode_length++;
    if (opcode_length == 0 || opcode_length >= sizeof out->opcode)
        return false;
    memcpy(out->opcode, at, opcode_length);
    out->opcode[opcode_length] = '\0';
    const char *operands = at + opcode_length;
    const char *operands_end = memchr(operands, ';', (size_t)(end - operands));
    if (!operands_end)
        operands_end = end;

    out->falls_through = true;
    out->branches = false;
    out->unknown_flow = false;
    const char *op = out->opcode;
    if (strncmp(op, "BRA", 3) == 0 && (op[3] == '\0' || op[3] == '.')) {
        /* The target is the last number of the operands; a condition operand (BRA.U !UP0, ...)
         * or a predicate makes it conditional. */
        const char *target = NULL;
        bool condition = false;
        for (const char *o = operands; o + 1 < operands_end; o++) {
            if (o[0] == '0' && o[1] == 'x')
                target = o;
            condition |= *o == ',';
        }
        if (!target) {
            out->unknown_flow = true;
            return true;
        }
        out->branches = true;
        out->target_address = strtoul(target, NULL, 16);
        out->falls_through = predicated || condition;
    } else if (strncmp(op, "EXIT", 4) == 0 || strncmp(op, "KILL", 4) == 0) {
        out->falls_through = predicated;
    } else if (strncmp(op, "CALL", 4) == 0 || strncmp(op, "RET", 3) == 0 ||
               strncmp(op, "BRX", 3) == 0 || strncmp(op, "JMX", 3) == 0 ||
               strncmp(op, "JMP", 3) == 0) {
        out->unknown_flow = true;
    }
    return true;
}

static bool opcode_matches(const regex_t *regex, const char *opcode)
{
    return regexec(regex, opcode, 0, NULL, 0) == 0;
}

/* Within one kernel's instructions: a path from a `from` to a `to` that meets no `through`.
 * Returns the indexes of the two, or false. */
static bool find_path_without(const struct flow_instruction *code, size_t count,
                              const regex_t *from, const regex_t *to, const regex_t *through,
                              size_t *from_index, size_t *to_index)
{
    size_t *successor_of_target = malloc(count * sizeof *successor_of_target);
    size_t *pending = malloc(count * sizeof *pending);
    bool *seen = malloc(count * sizeof *seen);
    bool found = false;
    if (!successor_of_target || !pending || !seen)
        goto done;
    for (size_t i = 0; i < count; i++) {
        successor_of_target[i] = count;
        if (code[i].unknown_flow)
            goto done; /* not judged */
        if (code[i].branches) {
            for (size_t j = 0; j < count; j++)
                if (code[j].address == code[i].target_address)
                    successor_of_target[i] = j;
            if (successor_of_target[i] == count)
                goto done; /* a target outside the listing: not judged */
        }
    }
    for (size_t start = 0; start < count && !found; start++) {
        if (!opcode_matches(from, code[start].opcode))
            continue;
        memset(seen, 0, count * sizeof *seen);
        size_t waiting = 0;
        if (code[start].falls_through && start + 1 < count)
            pending[waiting++] = start + 1, seen[start + 1] = true;
        if (code[start].branches && !seen[successor_of_target[start]])
            pending[waiting++] = successor_of_target[start], seen[successor_of_target[start]] = true;
        while (waiting > 0 && !found) {
            size_t i = pending[--waiting];
            if (opcode_matches(to, code[i].opcode)) {
                *from_index = start;
                *to_index = i;
                found = true;
            } else if (!opcode_matches(through, code[i].opcode)) {
                if (code[i].falls_through && i + 1 < count && !seen[i + 1])
                    pending[waiting++] = i + 1, seen[i + 1] = true;
                if (code[i].branches && !seen[successor_of_target[i]])
                    pending[waiting++] = successor_of_target[i], seen[successor_of_target[i]] = true;
            }
        }
    }
done:
    free(successor_of_target);
    free(pending);
    free(seen);
    return found;
}

static bool compile_opcode_pattern(regex_t *regex, const char *pattern)
{
    char anchored[256];
    snprintf(anchored, sizeof anchored, "^(%s)$", pattern);
    return regcomp(regex, anchored, REG_EXTENDED | REG_NOSUB) == 0;
}

bool sass_order_broken(const char *sass, const struct sass_order_rule *rule, char *where,
                       size_t where_size)
{
    where[0] = '\0';
    regex_t from, to, through;
    bool compiled_from = compile_opcode_pattern(&from, rule->from);
    bool compiled_to = compile_opcode_pattern(&to, rule->to);
    bool compiled_through = compile_opcode_pattern(&through, rule->through);
    bool broken = false;
    size_t capacity = 1024, count = 0;
    struct flow_instruction *code = malloc(capacity * sizeof *code);
    char kernel[512] = "";
    if (!compiled_from || !compiled_to || !compiled_through || !code)
        goto done;
    /* Each "Function :" starts a kernel; the sentinel at the end closes the last one. */
    for (const char *line = sass;; ) {
        const char *end = strchr(line, '\n');
        size_t line_length = end ? (size_t)(end - line) : strlen(line);
        const char *function = strstr(line, "Function : ");
        bool starts_kernel = function && function < line + line_length;
        if (starts_kernel || !*line) {
            size_t from_index, to_index;
            if (count > 0 && find_path_without(code, count, &from, &to, &through, &from_index,
                                               &to_index)) {
                snprintf(where, where_size,
                         "in kernel %s, %s at /*%04lx*/ can be followed by %s at /*%04lx*/ with "
                         "no %s between them",
                         kernel, code[from_index].opcode, code[from_index].address,
                         code[to_index].opcode, code[to_index].address, rule->through_name);
                broken = true;
                break;
            }
            count = 0;
            if (!*line)
                break;
            char name[512];
            size_t name_length = strcspn(function + 11, " \t\r\n");
            snprintf(name, sizeof name, "%.*s", (int)(name_length < 511 ? name_length : 511),
                     function + 11);
            kernel_identifier(name, kernel, sizeof kernel);
        } else if (read_flow_instruction(line, line_length, &code[count])) {
            if (++count == capacity) {
                struct flow_instruction *more = realloc(code, (capacity *= 2) * sizeof *code);
                if (!more)
                    goto done;
                code = more;
            }
        }
        line += line_length + (end ? 1 : 0);
    }
done:
    if (compiled_from)
        regfree(&from);
    if (compiled_to)
        regfree(&to);
    if (compiled_through)
        regfree(&through);
    free(code);
    return broken;
}

const struct sass_order_rule BARRIER_AFTER_ZEROING = {
    .from = "STS(\\..*)?",
    .to = "ATOMS(\\..*)?",
    .through = "BAR(\\..*)?",
    .through_name = "barrier (BAR, __syncthreads())",
    .name = "no-barrier-after-zeroing",
    .meaning = "a kernel can add to shared memory with an atomic after writing it (zeroing the "
               "bins) with no __syncthreads() between: threads may count into a bin before "
               "another thread has zeroed it, a race, and such a count is lost. No run shows "
               "it reliably (the zeroing warp is nearly always first), so the grader reads the "
               "machine code. Put __syncthreads() between zeroing the shared bins and counting "
               "into them.",
};

void check_machine_code_order(const struct sass_order_rule *rules, int count,
                              technique_runner *run_every_function)
{
    char list[1024];
    const char *object = NULL;
    char *ran = launched_sass(run_every_function, list, sizeof list, &object);
    for (int r = 0; r < count; r++) {
        char where[1024];
        if (sass_order_broken(ran, &rules[r], where, sizeof where)) {
            free(ran);
            cr_assert_fail("(%s): %s\n  (the machine code of the kernels your functions "
                           "launched, %s: %s; see it with: cuobjdump -sass %s)",
                           rules[r].name, rules[r].meaning, list, where, object);
        }
    }
    free(ran);
}
