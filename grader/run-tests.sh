#!/usr/bin/env bash
# make test: the host-side unit tests, the command-line checks of ./grade, and every lab's
# grader run on its reference solution (must pass) and on its untouched skeleton (must be
# rejected). Without a GPU the GPU tests skip, and the closing line counts them.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
reports=build/reports
mkdir -p "$reports"
passed=0 failed=0 skipped=0

tap_count() { grep -c -- "$1" "$2" 2>/dev/null || true; }

# TEST_PARTS picks parts of the run (all by default), so that a GPU run can be split in pieces:
# unit cli labs variants dist class sanitize
part() { [[ " ${TEST_PARTS:-unit cli labs variants dist class sanitize} " == *" $1 "* ]]; }

# Adds a TAP report's counts to the totals and prints them on one line.
count_tap() { # label tap-file
    local ok not_ok skips
    ok=$(tap_count '^ok ' "$2") not_ok=$(tap_count '^not ok ' "$2") skips=$(tap_count '# SKIP' "$2")
    passed=$((passed + ok - skips)) failed=$((failed + not_ok)) skipped=$((skipped + skips))
    printf '%-56s %d passed, %d failed, %d skipped\n' "$1" $((ok - skips)) "$not_ok" "$skips"
}

check() { # description status(pass|fail|skip) [detail]
    case "$2" in
    pass) passed=$((passed + 1)) ;;
    fail) failed=$((failed + 1)) ;;
    skip) skipped=$((skipped + 1)) ;;
    esac
    printf '%-56s %s%s\n' "$1" "$2" "${3:+: $3}"
}

if part unit; then
echo "== unit tests (host code: generators, references, diagnosis, reports)"
build/unit/unit-tests -j1 --tap="$reports/unit.tap" >"$reports/unit.log" 2>&1
count_tap "unit tests" "$reports/unit.tap"
grep -q '^not ok' "$reports/unit.tap" && cat "$reports/unit.log"

fi
if part cli; then
echo "== ./grade command line"
empty_file=$(mktemp)
trap 'rm -f "$empty_file"' EXIT
expect_usage_error() { # description expected-message args...
    local description=$1 message=$2 output status
    shift 2
    output=$(./grade "$@" 2>&1)
    status=$?
    if [ "$status" -eq 2 ] && grep -q -- "$message" <<<"$output" && grep -q '^usage: ./grade' <<<"$output"; then
        check "grade $* ($description)" pass
    else
        check "grade $* ($description)" fail "expected exit 2 and '$message', got exit $status: $(head -n 1 <<<"$output")"
    fi
}
expect_usage_error "no lab" "which lab?"
expect_usage_error "unknown lab" "unknown lab 'lab9'" lab9
expect_usage_error "unknown option" "unknown option '--fast'" lab1 --fast
expect_usage_error "two labs" "one lab at a time" lab1 lab2
expect_usage_error "missing file" "no such file" lab4 --input /nonexistent/text.txt
expect_usage_error "empty file" "is empty" lab4 --input "$empty_file"
expect_usage_error "directory" "is a directory" lab4 --input /tmp
expect_usage_error "bad seed" "whole number" lab1 --seed twelve
expect_usage_error "too few runs" "at least 10" lab1 --runs 3
expect_usage_error "missing value" "needs a value" lab1 --seed
expect_usage_error "unknown variant" "no variant 'nonsense'" lab5 --variant nonsense
expect_usage_error "unknown sanitizer" "unknown tool 'leakcheck'" lab5 --sanitize=leakcheck
xml_report=$(mktemp)
./grade lab4 --no-timing --filter 'sequential/*' --xml "$xml_report" >/dev/null 2>&1
if grep -q '<testsuites name="Criterion Tests"' "$xml_report" && grep -q 'testcase name="bytes_257"' "$xml_report"; then
    check "grade lab4 --xml FILE (Criterion's JUnit XML passed through)" pass
else
    check "grade lab4 --xml FILE (Criterion's JUnit XML passed through)" fail
fi
rm -f "$xml_report"
if ./grade lab5 --variant list | grep -q 'no-barrier-before-commit'; then
    check "grade lab5 --variant list" pass
else
    check "grade lab5 --variant list" fail
fi
if ./grade --help | grep -q '^usage: ./grade' && ./grade --help >/dev/null; then
    check "grade --help" pass
else
    check "grade --help" fail
fi

fi
if part cli; then
echo "== make bench command line"
expect_bench_usage_error() { # description args...
    local description=$1 output status
    shift
    output=$(build/bench/bench "$@" 2>&1)
    status=$?
    if [ "$status" -eq 2 ] && grep -q '^usage: bench' <<<"$output"; then
        check "bench $* ($description)" pass
    else
        check "bench $* ($description)" fail "expected exit 2 and the usage, got exit $status"
    fi
}
expect_bench_usage_error "input too small" --bytes 12
expect_bench_usage_error "too few runs" --runs 3
expect_bench_usage_error "unknown option" --fast
expect_bench_usage_error "missing value" --seed

fi
if part labs; then
echo "== graders on the reference solutions (must pass) and on the skeletons (must be rejected)"
for dir in labs/lab*-*/; do
    lab=$(basename "$dir")
    short=${lab%%-*}
    ./grade "$short" --solution --seed 12345 --tap "$reports/$lab-solution.tap" \
        >"$reports/$lab-solution.log" 2>&1
    status=$?
    count_tap "$lab solution" "$reports/$lab-solution.tap"
    if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
        check "$lab solution accepted" fail "exit $status; log: $reports/$lab-solution.log"
        tail -n 40 "$reports/$lab-solution.log"
    fi

    ./grade "$short" --no-timing --seed 12345 --tap "$reports/$lab-skeleton.tap" \
        >"$reports/$lab-skeleton.log" 2>&1
    status=$?
    rejected=$(tap_count '^not ok ' "$reports/$lab-skeleton.tap")
    if [ "$status" -eq 1 ] && [ "$rejected" -gt 0 ]; then
        check "$lab skeleton rejected" pass "$rejected tests failed, as they must"
    elif [ "$status" -eq 3 ]; then
        check "$lab skeleton rejected" skip "needs a GPU to show"
    else
        check "$lab skeleton rejected" fail "exit $status with $rejected failing tests; log: $reports/$lab-skeleton.log"
    fi
done

fi
if part variants; then
echo "== graders on the variants of grader/variants/ (a planted mistake must be rejected, naming"
echo "   it; an unusual but right rewrite must be accepted)"
# Each variant's grade is independent of the others: up to VARIANT_JOBS of them run at once
# (correctness only, so sharing the GPU changes no result).
grade_variant() { # script
    local script=$1 lab name options
    lab=$(basename "$(dirname "$script")")
    name=$(basename "$script" .sed)
    read -r -a options <<<"$(sed -n 's/^# options: //p' "$script")"
    ./grade "${lab%%-*}" --variant "$name" --no-timing --seed 12345 \
        --tap "$reports/$lab-variant-$name.tap" "${options[@]}" >"$reports/$lab-variant-$name.log" 2>&1
    echo $? >"$reports/$lab-variant-$name.status"
}
running=0
for script in grader/variants/*/*.sed; do
    grade_variant "$script" &
    running=$((running + 1))
    if [ "$running" -ge "${VARIANT_JOBS:-4}" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
for script in grader/variants/*/*.sed; do
    lab=$(basename "$(dirname "$script")")
    name=$(basename "$script" .sed)
    expect=$(sed -n 's/^# expect: //p' "$script")
    log="$reports/$lab-variant-$name.log"
    status=$(cat "$reports/$lab-variant-$name.status")
    if [ "$expect" = accepted ]; then
        if [ "$status" -eq 3 ]; then
            check "$lab $name accepted" skip "needs a GPU to show"
        elif [ "$status" -eq 0 ]; then
            check "$lab $name accepted" pass
        else
            check "$lab $name accepted" fail "exit $status, expected 0; log: $log"
        fi
    elif [ "$status" -eq 3 ]; then
        check "$lab $name rejected" skip "needs a GPU to show"
    elif [ "$status" -eq 1 ] && grep -qF -- "$expect" "$log"; then
        check "$lab $name rejected" pass "\"$expect\""
    else
        check "$lab $name rejected" fail "exit $status, expected exit 1 and \"$expect\" in $log"
    fi
done

fi
if part dist; then
echo "== make dist: the students' tarball (no solution source; builds and grades on its own)"
dist_log="$reports/dist.log"
if make -s dist >"$dist_log" 2>&1; then
    check "make dist builds the tarball" pass
    listing=$(tar -tzf build/dist/cuda-histogram-labs.tar.gz)
    if grep -qE '/(solutions|grader/variants)/' <<<"$listing"; then
        check "the tarball holds no solution source" fail "$(grep -E '/(solutions|grader/variants)/' <<<"$listing" | head -n 3)"
    else
        unpacked=build/dist-check
        rm -rf "$unpacked" && mkdir -p "$unpacked"
        tar -xzf build/dist/cuda-histogram-labs.tar.gz -C "$unpacked"
        unpacked=$unpacked/cuda-histogram-labs
        leaks=""
        for solution in solutions/*/*.cu; do
            first_line=$(head -n 1 "$solution")
            # Each solution starts "// Lab N reference solution: ..."; no file may hold that line,
            # nor be a copy of a solution.
            grep -rqF -- "$first_line" "$unpacked" && leaks+=" $solution"
            while IFS= read -r file; do
                cmp -s "$file" "$solution" && leaks+=" $solution"
            done < <(find "$unpacked" -name '*.cu')
        done
        references=$(ls "$unpacked"/prebuilt/reference/*.o 2>/dev/null | wc -l)
        if [ -z "$leaks" ] && [ "$references" -eq "$(ls -d labs/lab*-*/ | wc -l)" ]; then
            check "the tarball holds no solution source" pass "$references compiled references instead"
        else
            check "the tarball holds no solution source" fail "leaked:${leaks:- none}; $references references"
        fi
        ( cd "$unpacked" && make -s lab5 >"$OLDPWD/$reports/dist-make.log" 2>&1 &&
          ./grade lab5 --no-timing --seed 12345 >"$OLDPWD/$reports/dist-grade.log" 2>&1 )
        status=$?
        if [ "$status" -eq 3 ] || { [ "$status" -eq 1 ] && grep -q 'NOT PASSED' "$reports/dist-grade.log"; }; then
            check "the unpacked tarball builds and grades lab 5" pass "the skeleton: exit $status"
        else
            check "the unpacked tarball builds and grades lab 5" fail "exit $status; logs: $reports/dist-make.log, $reports/dist-grade.log"
        fi
        if [ "$status" -ne 3 ]; then
            # A right lab 5 dropped in, graded and timed against the compiled references.
            cp solutions/lab5-privatized/lab5.cu "$unpacked/labs/lab5-privatized/lab5.cu"
            ( cd "$unpacked" && ./grade lab5 --seed 12345 >"$OLDPWD/$reports/dist-grade-right.log" 2>&1 )
            status=$?
            if [ "$status" -eq 0 ] && grep -q 'lab 5 reference' "$reports/dist-grade-right.log"; then
                check "the unpacked tarball passes and times a right lab 5" pass
            else
                check "the unpacked tarball passes and times a right lab 5" fail "exit $status; log: $reports/dist-grade-right.log"
            fi
        fi
    fi
else
    check "make dist builds the tarball" fail "log: $dist_log"
fi

fi
if part class; then
echo "== ./grade lab5 --submissions: a class of 21 (right, wrong, crashing, hanging, chatty, not"
echo "   compiling, missing), graded in 4 slices at once, then merged"
fixture=build/class-fixture
bash grader/class-fixture.sh "$fixture" >/dev/null
rm -rf "$fixture/out"
for k in 0 1 2 3; do
    ./grade lab5 --submissions "$fixture/submissions" --out "$fixture/out" --slice "$k/4" \
        --no-timing --seed 12345 --student-timeout 150 >"$reports/class-slice-$k.log" 2>&1 &
done
wait
./grade lab5 --class-table "$fixture/out" >"$reports/class-table.log" 2>&1
gpu=yes
grep -q 'not graded (no GPU)' "$fixture/out/class.md" && gpu=no
while IFS=$'\t' read -r name verdict word; do
    line=$(grep -m 1 "^| $name |" "$fixture/out/class.md")
    got=$(awk -F ' [|] ' '{ print $2 }' <<<"$line")
    want=$verdict
    # Without a GPU, only the build and the folder's contents can be judged.
    [ "$gpu" = no ] && case "$verdict" in passed | failed | hung) want="not graded (no GPU)" word=- ;; esac
    if [ "$got" = "$want" ] && { [ "$word" = - ] || grep -qF -- "$word" <<<"$line"; }; then
        check "class: $name is '$want'" pass
    else
        check "class: $name is '$want'" fail "class.md says: ${line:-nothing}"
    fi
done <"$fixture/expected.tsv"
if command -v python3 >/dev/null; then
    if python3 - "$fixture/out" <<'PYTHON' >"$reports/class-json.log" 2>&1; then
import glob, json, sys
# Gradescope's documented fields: a numeric score, and tests with name, score, max_score, output.
files = glob.glob(sys.argv[1] + "/*/results.json")
assert files, "no results.json written"
for path in files:
    results = json.load(open(path))
    assert isinstance(results["score"], (int, float)), path
    assert isinstance(results.get("output", ""), str), path
    for test in results["tests"]:
        assert isinstance(test["name"], str) and test["name"], path
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float)), path
        assert 0 <= test["score"] <= test["max_score"], (path, test)
        assert isinstance(test["output"], str), path
    assert abs(sum(t["score"] for t in results["tests"]) - results["score"]) < 0.01, path
print(len(files), "results.json files valid")
PYTHON
        check "class: every results.json has Gradescope's fields" pass "$(tail -n 1 "$reports/class-json.log")"
    else
        check "class: every results.json has Gradescope's fields" fail "$(tail -n 3 "$reports/class-json.log")"
    fi
else
    check "class: every results.json has Gradescope's fields" skip "no python3 to read JSON"
fi

# The Slurm scripts, run by a stand-in sbatch that runs each array task, then the merge, here.
mini=build/class-mini
rm -rf "$mini" build/class/lab5-privatized build/class/lab5 && mkdir -p "$mini/bin" "$mini/submissions"
cp -r "$fixture/submissions/syntax-error" "$fixture/submissions/no-file" "$fixture/submissions/ada" \
    "$mini/submissions/"
cat >"$mini/bin/sbatch" <<'SBATCH'
#!/usr/bin/env bash
# Stand-in for Slurm's sbatch: runs the job at once, every task of an array in turn.
array="" chdir=.
while [[ "$1" == --* ]]; do
    case "$1" in --array=*) array=${1#--array=} ;; --chdir=*) chdir=${1#--chdir=} ;; esac
    shift
done
script=$1
shift
if [ -n "$array" ]; then
    last=${array#0-}
    for task in $(seq 0 "$last"); do
        (cd "$chdir" && SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=$((last + 1)) bash "$script" "$@")
    done >>"$SBATCH_LOG" 2>&1
else
    (cd "$chdir" && bash "$script" "$@") >>"$SBATCH_LOG" 2>&1
fi
echo $RANDOM
SBATCH
chmod +x "$mini/bin/sbatch"
PATH="$PWD/$mini/bin:$PATH" SBATCH_LOG="$PWD/$reports/slurm.log" \
    grader/cluster/submit-class.sh lab5 "$mini/submissions" 2 --no-timing --student-timeout 300 \
    >"$reports/slurm-submit.log" 2>&1
if [ "$(grep -c '^| ' build/class/lab5/class.md 2>/dev/null)" -eq 5 ] &&
    grep -q '^| syntax-error | does not compile' build/class/lab5/class.md; then
    check "class: the Slurm job array and merge write the class table" pass
else
    check "class: the Slurm job array and merge write the class table" fail "logs: $reports/slurm-submit.log, $reports/slurm.log"
fi
fi
if part sanitize; then
echo "== compute-sanitizer on a reference solution (must find nothing)"
log="$reports/lab5-privatized-sanitize.log"
./grade lab5 --solution --no-timing --seed 12345 --filter 'private_shared/bytes_257' --sanitize >"$log" 2>&1
status=$?
if [ "$status" -eq 3 ]; then
    check "lab5 solution clean under the four sanitizers" skip "needs a GPU to show"
elif [ "$status" -eq 0 ] && [ "$(grep -c 'no errors running the demo' "$log")" -eq 4 ]; then
    check "lab5 solution clean under the four sanitizers" pass
else
    check "lab5 solution clean under the four sanitizers" fail "exit $status; log: $log"
fi

fi
echo
echo "make test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
