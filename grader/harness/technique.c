#define _POSIX_C_SOURCE 200809L
#include "technique.h"

#include "crossing.h"
#include "cuda_check.h"
#include "device.h"
#include "grading.h"
#include "inputs.h"

#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <errno.h>
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

static const char *find_cuobjdump(void)
{
    static const char *const candidates[] = {KIT_CUDA_HOME "/bin/cuobjdump", "/usr/bin/cuobjdump",
                                             "/usr/local/cuda/bin/cuobjdump"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
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
        snprintf(reason, reason_size, "cuobjdump (CUDA toolkit) is not installed here");
        return NULL;
    }
    if (access(object, R_OK) != 0) {
        snprintf(reason, reason_size, "cannot read %s", object);
        return NULL;
    }
    /* cuobjdump run directly, not through a shell: a path may hold any character. */
    int channel[2];
    if (pipe(channel) != 0) {
        snprintf(reason, reason_size, "cannot make a pipe to run %s", cuobjdump);
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
        snprintf(reason, reason_size, "cannot run %s: %s", cuobjdump, strerror(spawned));
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
        snprintf(reason, reason_size, "cuobjdump failed on %s: %.200s", object, sass);
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

char *sass_of_kernels(const char *sass, const char *const *names, int count)
{
    size_t capacity = strlen(sass) + 1, used = 0;
    char *kept = malloc(capacity);
    if (!kept)
        return NULL;
    bool keeping = false;
    for (const char *line = sass; *line;) {
        const char *end = strchr(line, '\n');
        size_t line_length = end ? (size_t)(end - line) + 1 : strlen(line);
        const char *function = strstr(line, "Function : ");
        if (function && function < line + line_length) {
            char name[512], wanted[512], launched[512];
            size_t name_length = strcspn(function + 11, " \t\r\n");
            snprintf(name, sizeof name, "%.*s", (int)(name_length < 511 ? name_length : 511),
                     function + 11);
            kernel_identifier(name, wanted, sizeof wanted);
            keeping = false;
            for (int n = 0; n < count && !keeping; n++) {
                kernel_identifier(names[n], launched, sizeof launched);
                keeping = strcmp(wanted, launched) == 0;
            }
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

/* Runs the lab's functions; returns how many different kernels their worker launched, their
 * names in names[] (malloc'ed), and whether the driver could name them. */
static int launched_kernels(technique_runner *run_every_function, uint64_t seed, char **names,
                            int max_names, bool *named)
{
    struct technique_inputs inputs = {NULL, TECHNIQUE_TEXT_BYTES, NULL};
    char *text = malloc(inputs.length);
    cr_assert(text, "out of host memory");
    generate_text(TEXT_ENGLISH_LIKE, seed, text, inputs.length);
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

/* Runs every function on the text of seed; the kernels' names are not kept. */
static void run_on(technique_runner *run_every_function, uint64_t seed)
{
    char *names[MAX_LAUNCHED_KERNELS];
    bool named = true;
    int launched = launched_kernels(run_every_function, seed, names, MAX_LAUNCHED_KERNELS, &named);
    for (int n = 0; n < launched; n++)
        free(names[n]);
}

/* Whether the student's calls' results change when kernel is not launched (crossing.h): a
 * kernel that does none of the work (launched on nothing, or named in a forged list of launches)
 * changes nothing. baseline: the results' hashes of a run with every kernel on the text of
 * seed. A run on another text comes between, so that what a skipped kernel would have written
 * is not still there from the baseline's run (in memory of the code's own, kept between calls). */
static bool kernel_does_work(technique_runner *run_every_function, uint64_t seed,
                             const char *kernel, const uint64_t *baseline, int baseline_count)
{
    run_on(run_every_function, seed ^ 0x5A5A5A5Aull);
    crossing_skip_kernels(&kernel, 1);
    run_on(run_every_function, seed);
    crossing_skip_kernels(NULL, 0);
    const uint64_t *hashes = NULL;
    int count = crossing_result_hashes(&hashes);
    return count != baseline_count || memcmp(hashes, baseline, (size_t)count * sizeof *hashes) != 0;
}

/* For a rule that asks for an instruction: among the launched kernels that have it, one that
 * does part of the work; its name in *worker, or NULL (and the ones tried in tried). */
static bool rule_does_work(const struct sass_rule *rule, const char *sass, char **names,
                           int launched, technique_runner *run_every_function, uint64_t seed,
                           const uint64_t *baseline, int baseline_count, char *tried,
                           size_t tried_size)
{
    for (int n = 0; n < launched; n++) {
        char *own = sass_of_kernels(sass, (const char *const *)&names[n], 1);
        bool has = own && sass_matches(own, rule->pattern);
        free(own);
        if (!has)
            continue;
        if (kernel_does_work(run_every_function, seed, names[n], baseline, baseline_count))
            return true;
        char identifier[256];
        kernel_identifier(names[n], identifier, sizeof identifier);
        snprintf(tried + strlen(tried), tried_size - strlen(tried), "%s%s", *tried ? ", " : "",
                 identifier);
    }
    return false;
}

void check_technique(const struct sass_rule *rules, int count,
                     technique_runner *run_every_function)
{
    char reason[512];
    if (!gpu_available(reason, sizeof reason)) {
        record_current_test(TEST_NEEDS_GPU, reason);
        cr_skip_test("technique check not run: it runs your functions to see which kernels they "
                     "launch, and %s", reason);
    }
    char *sass = student_sass(reason, sizeof reason);
    if (!sass) {
        /* Not the code's fault, and never a free pass: the results model calls the grading
         * machine broken, and the test keeps its points in the maximum. */
        record_current_test(TEST_MACHINE_PROBLEM, reason);
        cr_skip_test("technique check not run: %s", reason);
    }
    char *names[MAX_LAUNCHED_KERNELS];
    bool named = true;
    const uint64_t seed = grading_options().seed;
    int launched =
        launched_kernels(run_every_function, seed, names, MAX_LAUNCHED_KERNELS, &named);
    const uint64_t *hashes = NULL;
    int baseline_count = crossing_result_hashes(&hashes);
    uint64_t baseline[64];
    if (baseline_count > 64)
        baseline_count = 64;
    memcpy(baseline, hashes, (size_t)baseline_count * sizeof *baseline);
    const char *object = getenv("GRADE_OBJECT");
    /* Where the driver cannot name a kernel, the check falls back to the whole object's machine
     * code: an honest kernel must not fail for the driver's age. */
    char *ran = named ? sass_of_kernels(sass, (const char *const *)names, launched) : strdup(sass);
    cr_assert(ran, "out of host memory for the SASS");
    char list[1024] = "";
    for (int n = 0; n < launched; n++) {
        char identifier[256];
        kernel_identifier(names[n], identifier, sizeof identifier);
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n ? ", " : "",
                 identifier);
    }
    if (!*ran) {
        for (int n = 0; n < launched; n++)
            free(names[n]);
        free(sass);
        free(ran);
        cr_assert_fail("right answer or not, technique missing: your functions launched no kernel "
                       "of %s%s%s: the lab's technique must be in a kernel they launch",
                       object, launched ? " (they launched: " : "", launched ? list : "");
    }
    for (int r = 0; r < count; r++) {
        bool found = sass_matches(ran, rules[r].pattern);
        /* The instruction must be in a kernel that does part of the work: one whose results
         * change when it is not launched. */
        char tried[512] = "";
        if (found && rules[r].required && named &&
            !rule_does_work(&rules[r], sass, names, launched, run_every_function, seed, baseline,
                            baseline_count, tried, sizeof tried)) {
            free(ran);
            cr_assert_fail("right answer or not, technique missing: %s\n  (the kernels with "
                           "/%s/ that your functions launched, %s, do none of the work: the "
                           "results are the same when they are not launched)",
                           rules[r].meaning, rules[r].pattern, tried);
        }
        if (found != rules[r].required) {
            free(ran);
            cr_assert_fail("right answer or not, technique missing: %s\n  (the machine code of "
                           "the kernels your functions launched, %s, %s /%s/; a kernel they do not "
                           "launch counts for nothing; see it with: cuobjdump -sass %s)",
                           rules[r].meaning, list, found ? "has" : "has no instruction matching",
                           rules[r].pattern, object);
        }
    }
    free(ran);
    free(sass);
    for (int n = 0; n < launched; n++)
        free(names[n]);
}
