#!/usr/bin/env bash
# Writes a folder of lab 5 submissions as a class hands them in, for testing
# ./grade-class lab5: right ones, wrong ones, some that crash, hang, print megabytes or do not
# compile, folders without the file, odd names (a newline, '..', the same name in NFC and NFD,
# 255 bytes), links where folders or files should be, and a submission whose C++ constructor
# tries to read the solutions and rewrite another student's results. Beside each entry's name,
# expected.tsv says the verdict the class table must give it, and a word its row must mention
# ("-": none). A name with bytes outside printable ASCII is written with \n and \xNN escapes.
#   grader/class-fixture.sh DIR          the lab 5 class
#   grader/class-fixture.sh DIR lab4     a lab 4 class of three: the reference solution, the
#                                        same with code that reads every reference it can find,
#                                        and one whose CPU function is wrong (failed wherever it
#                                        is graded: "failed-on-the-cpu")
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$1
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
kit=$PWD
rm -rf "$out"
mkdir -p "$out/submissions"
solution=solutions/lab5-privatized/lab5.cu
handed_in=lab5.cu
expected=$out/expected.tsv
: >"$expected"

student() { # name verdict problem-word [file-content-from-stdin]
    mkdir -p "$out/submissions/$1"
    cat >"$out/submissions/$1/$handed_in"
    expect "$1" "$2" "$3"
}

expect() { # name verdict problem-word: the name escaped where it is not printable ASCII
    printf '%s\t%s\t%s\n' "$(printf '%s' "$1" | od -An -v -tu1 |
        awk '{ for (i = 1; i <= NF; i++) { c = $i + 0
                   if (c == 10) printf "\\n"; else if (c < 32 || c > 126 || c == 92) printf "\\x%02x", c
                   else printf "%c", c } }')" "$2" "$3" >>"$expected"
}

if [ "${2:-}" = lab4 ]; then
    handed_in=lab4.cu
    student right passed - <solutions/lab4-text-histogram/lab4.cu
    sed -f grader/variants/lab4-text-histogram/sequential-no-lower-bound.sed \
        solutions/lab4-text-histogram/lab4.cu | student sequential-wrong failed-on-the-cpu -
    # The sequential histogram runs on the CPU, in the worker, at every grading: before computing,
    # it finds open and read in libc's memory (no forbidden name in its object) and tries to read
    # every compiled reference and solution a grading could reach, printing what it got. The
    # sandbox holds none; the references' worker may be run, not read.
    { sed -n '1,/^#include "cuda_check.h"/p' solutions/lab4-text-histogram/lab4.cu
      sed "s|@KIT@|$kit|g" <<'READER'
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int (*open_fn)(const char *, int, ...);
typedef long (*read_fn)(int, void *, unsigned long);

// The start of the shared object that holds address: its first page begins with the ELF magic.
static const unsigned char *image_holding(const void *address)
{
    uintptr_t page = (uintptr_t)address & ~(uintptr_t)4095;
    for (int pages = 0; pages < 4096; pages++, page -= 4096)
        if (memcmp((const void *)page, ELFMAG, SELFMAG) == 0)
            return (const unsigned char *)page;
    return NULL;
}

// A symbol of a loaded shared object, looked up in its dynamic symbol table.
static void *symbol_in(const unsigned char *base, const char *name)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)base;
    const Elf64_Phdr *segments = (const Elf64_Phdr *)(base + header->e_phoff);
    const Elf64_Dyn *dynamic = NULL;
    for (int s = 0; s < header->e_phnum; s++)
        if (segments[s].p_type == PT_DYNAMIC)
            dynamic = (const Elf64_Dyn *)(base + segments[s].p_vaddr);
    if (!dynamic)
        return NULL;
    const Elf64_Sym *symbols = NULL;
    const char *strings = NULL;
    for (; dynamic->d_tag != DT_NULL; dynamic++) {
        uintptr_t value = dynamic->d_un.d_ptr;
        if (value < (uintptr_t)base)
            value += (uintptr_t)base;
        if (dynamic->d_tag == DT_SYMTAB)
            symbols = (const Elf64_Sym *)value;
        else if (dynamic->d_tag == DT_STRTAB)
            strings = (const char *)value;
    }
    if (!symbols || !strings)
        return NULL;
    for (const Elf64_Sym *symbol = symbols; (const char *)symbol < strings; symbol++)
        if (symbol->st_name && symbol->st_value && strcmp(strings + symbol->st_name, name) == 0)
            return (void *)(base + symbol->st_value);
    return NULL;
}

static void read_every_reference(void)
{
    const unsigned char *image = image_holding((const void *)stderr);
    open_fn open_file = image ? (open_fn)symbol_in(image, "open") : NULL;
    read_fn read_file = image ? (read_fn)symbol_in(image, "read") : NULL;
    if (!open_file || !read_file) {
        fprintf(stderr, "reference-reader: %s %s\n", "libc", "not found");
        return;
    }
    const char *places[] = {"prebuilt/reference/lab4-text-histogram.o",
                            "/kit/prebuilt/reference/lab4-text-histogram.o",
                            "build/reference/lab4-text-histogram.o",
                            "build/reference/lab4-text-histogram/worker",
                            "build/listing/lab4-text-histogram/stand-in.o",
                            "/grading/reference-worker",
                            "solutions/lab4-text-histogram/lab4.cu",
                            "@KIT@/solutions/lab4-text-histogram/lab4.cu",
                            "@KIT@/build/reference/lab4-text-histogram.o"};
    for (const char *place : places) {
        int fd = open_file(place, O_RDONLY);
        char bytes[4];
        if (fd < 0)
            fprintf(stderr, "reference-reader: %s %s\n", "cannot open", place);
        else if (read_file(fd, bytes, sizeof bytes) > 0)
            fprintf(stderr, "reference-reader: %s %s\n", "READ", place);
        else
            fprintf(stderr, "reference-reader: %s %s\n", "opened, read nothing of", place);
    }
}
READER
      sed -n '/^#include "cuda_check.h"/,$p' solutions/lab4-text-histogram/lab4.cu | sed 1d |
          sed '/^void lab4_histogram_sequential(/,/^{/s|^{|{\n    static bool read_once = false;\n    if (!read_once) {\n        read_once = true;\n        read_every_reference();\n    }|'
    } | student reference-reader passed -
    echo "class fixture: $(wc -l <"$expected") roster entries in $out/submissions"
    exit 0
fi
student ada passed - <"$solution"
for variant in grader/variants/lab5-privatized/*.sed; do
    name=$(basename "$variant" .sed)
    # Races that only a sanitizer shows reliably are left to the variants' own tests.
    grep -q '^# options: --sanitize' "$variant" && continue
    if grep -q '^# expect: accepted' "$variant"; then
        sed -f "$variant" "$solution" | student "right-$name" passed -
    else
        sed -f "$variant" "$solution" | student "wrong-$name" failed "wrong histogram"
    fi
done
sed 's|static const unsigned int threads_per_block = 256;|static const unsigned int threads_per_block = 512;|' \
    "$solution" | student right-512-threads passed -
sed 's|return (unsigned int)((length + threads_per_block - 1) / threads_per_block);|return (unsigned int)(length / threads_per_block + 1);|' \
    "$solution" | student right-one-block-spare passed -
sed 's|return (unsigned int)((length + threads_per_block - 1) / threads_per_block);|return (unsigned int)(length / threads_per_block);|' \
    "$solution" | student blocks-rounded-down failed "wrong histogram"
# The mistakes of lab 4's variants, made in lab 5.
sed '/histogram_private_shared_kernel(const char/,/^}/s|int position = text\[i\] - .a.;|int position = (text[i] \& 0x7F) - '"'"'a'"'"';|' \
    "$solution" | student high-bytes-counted failed "wrong histogram"
sed '/lab5_histogram_private_shared(const char/,/^}/{/cudaMemset(d_histogram, 0/d}' "$solution" |
    student bins-not-zeroed failed "wrong histogram"
sed 's|atomicAdd(&block_bins\[position / LETTERS_PER_BIN\], 1u);|block_bins[position / LETTERS_PER_BIN]++;|' \
    "$solution" | student no-atomic-in-shared failed "wrong histogram"
# A kernel that writes far outside its buffers: the tests it crashes are counted as such.
sed 's|atomicAdd(&histogram\[bin\], (unsigned long long)count);|atomicAdd(\&histogram[bin * 100000000ull], (unsigned long long)count);|' \
    "$solution" | student wild-write failed "cudaDeviceSynchronize() failed"
# A kernel that never ends: the class run's --student-timeout stops the grading before its
# tests reach their own time limits.
sed '/histogram_private_shared_kernel(const char/,/^}/s|    if (i < length) {|    for (;;) if (i < length) {|' \
    "$solution" | student endless-loop "timed out" "grading stopped"
# Right, but it prints a line for every call: megabytes by the end. Graded all the same; its
# report.txt is cut at 1 MiB and its row says so.
sed 's|^void lab5_histogram_private_shared(const char \*d_text, uint64_t length,$|#include <stdio.h>\n&|; /lab5_histogram_private_shared(const char/,/^}/s|^    if (length == 0)$|    for (int line = 0; line < 20000; line++)\n        printf("debugging line %d of many, to see the output cut\\n", line);\n&|' \
    "$solution" | student chatty passed "cut at 1 MiB"
echo 'this is not C' | student syntax-error "does not compile" error
sed 's|^void lab5_histogram_private_shared(|void lab5_histogram_private_shared_misspelled(|' "$solution" |
    student missing-function "does not compile" -
: | student empty-file "no file" empty
# Folders without a lab5.cu: empty, the file under another name, other files only.
mkdir -p "$out/submissions/no-file" "$out/submissions/wrong-file-name" "$out/submissions/other-files"
expect no-file "no file" empty
cp "$solution" "$out/submissions/wrong-file-name/Lab5 final.cu"
expect wrong-file-name "no file" "found Lab5 final.cu; rename it to lab5.cu"
for name in a.txt b.txt c.cu d.cu notes README.md; do echo "$name" >"$out/submissions/other-files/$name"; done
expect other-files "no file" "(and 1 more)"
# Odd names: spaces; a newline and '..'; Zoë in NFC and in NFD (two students, two ids, and the
# NFD one hands in a wrong file), Zoé; a name of 255 bytes (the most a file system takes).
student "name with spaces" passed - <"$solution"
student $'new\nline ..' passed - <"$solution"
student $'Zo\xc3\xab' passed - <"$solution"
sed 's|return (unsigned int)((length + threads_per_block - 1) / threads_per_block);|return (unsigned int)(length / threads_per_block);|' \
    "$solution" | student $'Zoe\xcc\x88' failed "wrong histogram"
student $'Zo\xc3\xa9' passed - <"$solution"
student "long-$(for i in $(seq 125); do printf '\xc3\xa9'; done)" passed - <"$solution"
# Links: a student's folder that is a link to another's, a lab5.cu that is a link to the
# reference solution (it would pass if followed), and a file where a folder should be.
ln -s ada "$out/submissions/linked-to-ada"
expect linked-to-ada "not a folder" "symbolic link"
mkdir -p "$out/submissions/link-to-solution"
ln -s "$kit/$solution" "$out/submissions/link-to-solution/lab5.cu"
expect link-to-solution "no file" "symbolic link"
echo "a file, not a folder" >"$out/submissions/notes.txt"
expect notes.txt "not a folder" "a file"
# Names a spreadsheet would read as formulas, and two that would look alike if the reports did
# not escape them: a backslash, x, f, f, and the byte 0xff.
student '=1+2' passed - <"$solution"
mkdir -p "$out/submissions/@SUM(1+1)"
expect '@SUM(1+1)' "no file" empty
echo "a file, not a folder" >"$out/submissions/-2+3"
expect '-2+3' "not a folder" "a file"
echo "a file, not a folder" >"$out/submissions/\\xff"
expect '\xff' "not a folder" "a file"
echo "a file, not a folder" >"$out/submissions/"$'\xff'
expect $'\xff' "not a folder" "a file"
# A compiler's error that would write on the instructor's terminal: a #error whose text moves the
# cursor up, clears the line and prints a fake verdict, with bytes that are not UTF-8.
{ printf '#error "\033[1A\033[2K\rgrade-class: [1/34] ada: passed \302\233\377\376"\n'; cat "$solution"; } |
    student escape-codes "does not compile" error
# A shell command run at build time: a #line file name that make would expand, $(shell ...),
# in the dependency file nvcc writes. Where a later make reads that file, the command replaces
# the kit's results model with one that writes a passing summary for the untouched skeleton.
# Each step of a grading runs in a sandbox of its own, the build's dependency file never reaches
# a later make, and the results model is the task's, outside every sandbox: the skeleton gets its
# own verdict (or the submission check refuses the name).
forger=$(base64 -w0 <<'FORGER'
cat >build/results/results <<'RESULTS'
#!/bin/sh
[ "$1" = grade ] || exit 0
while [ $# -gt 1 ]; do
    case "$1" in --summary) summary=$2 ;; --seed) seed=$2 ;; --lab) lab=$2 ;; esac
    shift
done
[ -z "${summary:-}" ] || printf '{"lab": "%s", "seed": %s, "verdict": "passed", "exit_code": 0, "tests_passed": 40, "tests_failed": 0, "tests_not_run": 0, "time_ratio": 1.0, "score": 65, "max_score": 65, "problems": []}\n' "$lab" "$seed" >"$summary"
echo "FORGED: every test passed"
RESULTS
chmod +x build/results/results
FORGER
)
{ printf '#line 1 "/usr/local/cuda/include/a\v$(shell\vecho$${IFS}%s|base64$${IFS}-d|sh)"\n' "$forger"
  printf '#line 2 "lab5.cu"\n'; cat "$kit/labs/lab5-privatized/lab5.cu"; } |
    student build-time-shell "failed|does not compile" -
# Host code that runs before main: a C++ constructor that tries to read the solutions (from the
# kit it is built in, and from this repository) and to rewrite another student's results and
# submission wherever it can find them. The submission check refuses it at build time; were it
# to run, the sandbox shows it none of these (grade-class's tests check that nothing changed).
{ cat "$solution"; sed "s|@KIT@|$kit|g; s|@FIXTURE@|$out|g" <<'CONSTRUCTOR'

#include <dirent.h>
#include <stdio.h>
#include <string.h>
namespace {
struct Thief {
    Thief()
    {
        printf("constructor-thief: running before main\n");
        const char *solutions[] = {"../../solutions/lab5-privatized/lab5.cu",
                                   "../solutions/lab5-privatized/lab5.cu",
                                   "solutions/lab5-privatized/lab5.cu",
                                   "/kit/solutions/lab5-privatized/lab5.cu",
                                   "@KIT@/solutions/lab5-privatized/lab5.cu",
                                   "@KIT@/grader/variants/lab5-privatized/block-size-1000.sed"};
        for (const char *path : solutions) {
            FILE *in = fopen(path, "r");
            char line[256];
            if (in && fgets(line, sizeof line, in))
                printf("STOLEN from %s: %s", path, line);
            if (in)
                fclose(in);
        }
        const char *folders[] = {"..", "../..", "/out", "/out/..", "@FIXTURE@/submissions",
                                 "@FIXTURE@/class-out/students", "@KIT@/build/test/class-out/students",
                                 "/tmp/class-out/students"};
        for (const char *folder : folders) {
            DIR *dir = opendir(folder);
            struct dirent *entry;
            while (dir && (entry = readdir(dir)))
                if (strncmp(entry->d_name, "ada", 3) == 0)
                    for (const char *name : {"line.json", "summary.json", "lab5.cu"}) {
                        char path[4096];
                        snprintf(path, sizeof path, "%s/%s/%s", folder, entry->d_name, name);
                        FILE *out = fopen(path, "w");
                        if (out) {
                            fputs("{\"verdict\": \"passed\", \"forged\": true}\n", out);
                            fclose(out);
                            printf("FORGED %s\n", path);
                        }
                    }
            if (dir)
                closedir(dir);
        }
        FILE *mark = fopen("@FIXTURE@/written-by-a-constructor", "w");
        if (mark) {
            fputs("a submission's constructor wrote this outside its sandbox\n", mark);
            fclose(mark);
        }
    }
} thief;
}
CONSTRUCTOR
} | student constructor-thief "does not compile" -
echo "class fixture: $(wc -l <"$expected") roster entries in $out/submissions"
