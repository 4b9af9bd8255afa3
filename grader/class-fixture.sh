#!/usr/bin/env bash
# Writes a folder of lab 5 submissions as a class hands them in, for testing
# ./grade lab5 --submissions: right ones, wrong ones, some that crash, hang, print megabytes or do
# not compile, and folders without the file. Beside each folder's name, expected.tsv says the
# verdict the class table must give it, and a word its problems must mention ("-": none).
#   grader/class-fixture.sh DIR
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$1
rm -rf "$out"
mkdir -p "$out/submissions"
solution=solutions/lab5-privatized/lab5.cu
expected=$out/expected.tsv
: >"$expected"

student() { # name verdict problem-word [file-content-from-stdin]
    mkdir -p "$out/submissions/$1"
    cat >"$out/submissions/$1/lab5.cu"
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$expected"
}

student ada passed - <"$solution"
for variant in grader/variants/lab5-privatized/*.sed; do
    name=$(basename "$variant" .sed)
    # Races that only a sanitizer shows reliably are left to the variants' own tests.
    grep -q '^# options: --sanitize' "$variant" && continue
    if grep -q '^# expect: accepted' "$variant"; then
        sed -f "$variant" "$solution" | student "right-$name" passed -
    else
        sed -f "$variant" "$solution" | student "wrong-$name" failed failed:
    fi
done
sed 's|static const unsigned int threads_per_block = 256;|static const unsigned int threads_per_block = 512;|' \
    "$solution" | student right-512-threads passed -
sed 's|return (unsigned int)((length + threads_per_block - 1) / threads_per_block);|return (unsigned int)(length / threads_per_block + 1);|' \
    "$solution" | student right-one-block-spare passed -
sed 's|return (unsigned int)((length + threads_per_block - 1) / threads_per_block);|return (unsigned int)(length / threads_per_block);|' \
    "$solution" | student blocks-rounded-down failed failed:
# The mistakes of lab 4's variants, made in lab 5.
sed '/histogram_private_shared_kernel(const char/,/^}/s|int position = text\[i\] - .a.;|int position = (text[i] \& 0x7F) - '"'"'a'"'"';|' \
    "$solution" | student high-bytes-counted failed failed:
sed '/lab5_histogram_private_shared(const char/,/^}/{/cudaMemset(d_histogram, 0/d}' "$solution" |
    student bins-not-zeroed failed failed:
sed 's|atomicAdd(&block_bins\[position / LETTERS_PER_BIN\], 1u);|block_bins[position / LETTERS_PER_BIN]++;|' \
    "$solution" | student no-atomic-in-shared failed failed:
# A kernel that writes far outside its buffers: the tests it crashes are counted as such.
sed 's|atomicAdd(&histogram\[bin\], (unsigned long long)count);|atomicAdd(\&histogram[bin * 100000000ull], (unsigned long long)count);|' \
    "$solution" | student wild-write failed "stopped by a CUDA error"
# A kernel that never ends: every test times out, and the class run stops it.
sed '/histogram_private_shared_kernel(const char/,/^}/s|    if (i < length) {|    for (;;) if (i < length) {|' \
    "$solution" | student endless-loop hung "grading stopped"
# Right, but it prints a line for every call: megabytes by the end.
sed 's|^void lab5_histogram_private_shared(const char \*d_text, uint64_t length,$|#include <stdio.h>\n&|; /lab5_histogram_private_shared(const char/,/^}/s|^    if (length == 0)$|    for (int line = 0; line < 20000; line++)\n        printf("debugging line %d of many, to see the output cut\\n", line);\n&|' \
    "$solution" | student chatty failed "more than 1 MB"
echo 'this is not C' | student syntax-error "does not compile" error
sed 's|^void lab5_histogram_private_shared(|void lab5_histogram_private_shared_misspelled(|' "$solution" |
    student missing-function "does not compile" -
: | student empty-file "does not compile" -
mkdir -p "$out/submissions/no-file" "$out/submissions/wrong-file-name"
cp "$solution" "$out/submissions/wrong-file-name/lab5-final.cu"
printf 'no-file\tno lab5.cu\t-\nwrong-file-name\tno lab5.cu\t-\n' >>"$expected"
mkdir -p "$out/submissions/name with spaces"
cp "$solution" "$out/submissions/name with spaces/lab5.cu"
printf 'name_with_spaces\tpassed\t-\n' >>"$expected"
echo "class fixture: $(wc -l <"$expected") submissions in $out/submissions"
