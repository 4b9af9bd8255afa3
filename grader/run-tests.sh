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

echo "== unit tests (host code: generators, references, diagnosis, reports)"
build/unit/unit-tests -j1 --tap="$reports/unit.tap" >"$reports/unit.log" 2>&1
count_tap "unit tests" "$reports/unit.tap"
grep -q '^not ok' "$reports/unit.tap" && cat "$reports/unit.log"

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
if ./grade --help | grep -q '^usage: ./grade' && ./grade --help >/dev/null; then
    check "grade --help" pass
else
    check "grade --help" fail
fi

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

echo "== graders on known-wrong solutions (each must be rejected, naming its mistake)"
for mutation in grader/wrong/*/*.sed; do
    lab=$(basename "$(dirname "$mutation")")
    name=$(basename "$mutation" .sed)
    expect=$(sed -n 's/^# expect: //p' "$mutation")
    read -r -a options <<<"$(sed -n 's/^# options: //p' "$mutation")"
    log="$reports/$lab-wrong-$name.log"
    ./grade "${lab%%-*}" --wrong "$name" --no-timing --seed 12345 \
        --tap "$reports/$lab-wrong-$name.tap" "${options[@]}" >"$log" 2>&1
    status=$?
    if [ "$status" -eq 3 ]; then
        check "$lab $name rejected" skip "needs a GPU to show"
    elif [ "$status" -eq 1 ] && grep -qF -- "$expect" "$log"; then
        check "$lab $name rejected" pass "\"$expect\""
    else
        check "$lab $name rejected" fail "exit $status, expected exit 1 and \"$expect\" in $log"
    fi
done

echo
echo "make test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
