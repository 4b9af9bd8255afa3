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
static int launched_kernels(technique_runner *run_every_function, char **names, int max_names,
                            bool *named)
{
    struct technique_inputs inputs = {NULL, TECHNIQUE_TEXT_BYTES, NULL};
    char *text = malloc(inputs.length);
    cr_assert(text, "out of host memory");
    generate_text(TEXT_ENGLISH_LIKE, grading_options().seed, text, inputs.length);
    CUDA_CHECK(cudaMalloc((void **)&inputs.d_text, inputs.length));
    CUDA_CHECK(cudaMemcpy(inputs.d_text, text, inputs.length, cudaMemcpyHostToDevice));
    free(text);
    CUDA_CHECK(cudaMalloc((void **)&inputs.d_bins, TECHNIQUE_BINS * sizeof *inputs.d_bins));
    CUDA_CHECK(cudaMemset(inputs.d_bins, 0, TECHNIQUE_BINS * sizeof *inputs.d_bins));

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

const struct sass_rule *rule_missing_from_object(const char *sass, const struct sass_rule *rules,
                                                 int count)
{
    for (int r = 0; r < count; r++)
        if (rules[r].required && !sass_matches(sass, rules[r].pattern))
            return &rules[r];
    return NULL;
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
    const struct sass_rule *missing = rule_missing_from_object(sass, rules, count);
    free(sass);
    const char *object = getenv("GRADE_OBJECT");
    if (missing)
        cr_assert_fail("right answer or not, technique missing: %s\n  (no kernel in the machine "
                       "code of %s has an instruction matching /%s/, whichever your functions "
                       "launch; see it with: cuobjdump -sass %s)",
                       missing->meaning, object, missing->pattern, object);
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
    char *sass = student_sass(reason, sizeof reason);
    if (!sass) {
        /* Not the code's fault, and never a free pass: the results model calls the grading
         * machine broken, and the test keeps its points in the maximum. */
        record_current_test(TEST_MACHINE_PROBLEM, reason);
        cr_skip_test("technique check not run: %s", reason);
    }
    char *names[MAX_LAUNCHED_KERNELS];
    bool named = true;
    int launched = launched_kernels(run_every_function, names, MAX_LAUNCHED_KERNELS, &named);
    const char *object = getenv("GRADE_OBJECT");
    /* Where the driver cannot name a kernel, the check falls back to the whole object's machine
     * code: an honest kernel must not fail for the driver's age. */
    char *ran = named ? sass_of_kernels(sass, (const char *const *)names, launched) : strdup(sass);
    free(sass);
    cr_assert(ran, "out of host memory for the SASS");
    char list[1024] = "";
    for (int n = 0; n < launched; n++) {
        char identifier[256];
        kernel_identifier(names[n], identifier, sizeof identifier);
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n ? ", " : "",
                 identifier);
    }
    for (int n = 0; n < launched; n++)
        free(names[n]);
    if (!*ran) {
        free(ran);
        cr_assert_fail("right answer or not, technique missing: your functions launched no kernel "
                       "of %s%s%s: the lab's technique must be in a kernel they launch",
                       object, launched ? " (they launched: " : "", launched ? list : "");
    }
    for (int r = 0; r < count; r++) {
        bool found = sass_matches(ran, rules[r].pattern);
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
}
