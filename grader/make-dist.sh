#!/usr/bin/env bash
# make dist: the tarball handed to students, build/dist/cuda-histogram-labs.tar.gz. It holds the
# labs, common/, the grader, docs/, the Makefile and the grade script, but no solution source:
# the references the grader times against come compiled, for sm_75 to sm_90 and as PTX for
# newer GPUs, in prebuilt/reference/. The kit's own tests, the solutions' variants and the
# instructors' scripts stay out.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
name=cuda-histogram-labs
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
    echo "make dist: the tarball is made from the kit's git repository, and this copy is not one" >&2
    exit 2
}
dist=build/dist
stage=$dist/$name
rm -rf "$dist"
mkdir -p "$stage/prebuilt/reference"

# The kit's files: what git tracks (never a file it does not: a class's submissions or a course's
# points file left in the tree stay out), less what students must not get.
git ls-files --cached -z |
    grep -z -v -E '^(solutions/|grader/variants/|grader/exploits/|grader/tests/|grader/cluster/|grader/class/|grader/gradescope/|\.ci/|grade-class$|grader/timing-spread\.sh$|grader/make-dist\.sh$|grader/class-fixture\.sh$)' |
    while IFS= read -r -d '' file; do
        [ -f "$file" ] && cp --parents -- "$file" "$stage/"
    done

# The references, compiled in a scratch copy of the kit for every architecture a class is
# likely to have, whatever GPU (or none) this machine has.
scratch=$dist/reference-build
mkdir -p "$scratch"
cp -r Makefile common grader labs solutions "$scratch/"
make -s -C "$scratch" CUDA_ARCH="75 80 86 89 90" -j"$(nproc)" references
cp "$scratch"/build/reference/*.o "$stage/prebuilt/reference/"
rm -rf "$scratch"

tar -czf "$dist/$name.tar.gz" -C "$dist" "$name"
echo "make dist: $dist/$name.tar.gz ($(du -h "$dist/$name.tar.gz" | cut -f1)): $(tar -tzf "$dist/$name.tar.gz" | grep -c -v '/$') files, no solution source"
