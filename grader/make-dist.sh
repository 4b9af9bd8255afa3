#!/usr/bin/env bash
# make dist: the tarball handed to students, build/dist/cuda-histogram-labs.tar.gz. It holds the
# labs, common/, the grader, docs/, the Makefile and the grade script, but no solution source:
# the references the grader times against come compiled, for sm_75 to sm_90 and as PTX for
# newer GPUs, in prebuilt/reference/ (./grade LAB --solution grades them there), and so do the
# variants whose .sed has a line "# in the student tarball: <why>", in prebuilt/variant/<lab>/
# (./grade LAB --variant NAME), their reports on a GPU in docs/results/variants/. The kit's own
# tests, the variants' sources, the other variants and the instructors' scripts stay out.
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
    grep -z -v -E '^(solutions/|grader/variants/|grader/exploits/|grader/tests/|grader/cluster/|grader/class/|grader/gradescope/|\.ci/|grade-class$|grader/timing_spread\.py$|grader/make-dist\.sh$|grader/class-fixture\.sh$)' |
    while IFS= read -r -d '' file; do
        [ -f "$file" ] && cp --parents -- "$file" "$stage/"
    done

# The variants the tarball ships: the marker line of its .sed is the only list.
marker='^[[:space:]]*#[[:space:]]*in the student tarball:'
variants=()
while IFS= read -r -d '' script; do
    grep -q -E "$marker" "$script" || continue
    grep -q -E "$marker[[:space:]]*[^[:space:]]" "$script" || {
        echo "make dist: $script: its line '# in the student tarball:' must say why it ships" >&2
        exit 1
    }
    variants+=("$script")
    # Its report on a GPU ships in docs/, for ./grade to show where there is none (make results).
    lab=$(basename "$(dirname "$script")")
    report=docs/results/variants/$lab-$(basename "$script" .sed).log
    git ls-files --error-unmatch -- "$report" >/dev/null 2>&1 ||
        echo "make dist: $script: no recorded GPU report ($report is not in git): ./grade will show none without a GPU; record it on a GPU with bench/record_results.py --only variant-reports" >&2
done < <(git ls-files --cached -z -- 'grader/variants/*/*.sed')
variant_objects=()
for script in ${variants[@]+"${variants[@]}"}; do
    lab=$(basename "$(dirname "$script")")
    variant_objects+=("build/variant/$(basename "$script" .sed)/$lab/${lab%%-*}.o")
done

# The references and those variants, compiled in a scratch copy of the kit for every
# architecture a class is likely to have, whatever GPU (or none) this machine has.
scratch=$dist/reference-build
mkdir -p "$scratch"
cp -r Makefile common grader labs solutions "$scratch/"
make -s -C "$scratch" CUDA_ARCH="75 80 86 89 90" VARIANTS_FOR_EVERY_ARCH=1 -j"$(nproc)" references \
    ${variant_objects[@]+"${variant_objects[@]}"}
cp "$scratch"/build/reference/*.o "$stage/prebuilt/reference/"
for script in ${variants[@]+"${variants[@]}"}; do
    lab=$(basename "$(dirname "$script")")
    mkdir -p "$stage/prebuilt/variant/$lab"
    cp "$scratch/build/variant/$(basename "$script" .sed)/$lab/${lab%%-*}.o" \
        "$stage/prebuilt/variant/$lab/$(basename "$script" .sed).o"
done
rm -rf "$scratch"

tar -czf "$dist/$name.tar.gz" -C "$dist" "$name"
echo "make dist: $dist/$name.tar.gz ($(du -h "$dist/$name.tar.gz" | cut -f1)): $(tar -tzf "$dist/$name.tar.gz" | grep -c -v '/$') files, no solution source, ${#variants[@]} variants compiled"
