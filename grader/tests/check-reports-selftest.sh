#!/usr/bin/env bash
# check-reports.py on its own samples (grader/tests/report-samples/): every good sample must pass
# every check, every bad one must fail, and fail the check it was made for (the patterns below
# must each match one of its "fail" lines). One line a case, "%-56s pass|fail"; exit 1 on any
# mismatch. Criterion's own TAP (YAML block with a "|+" scalar) is also made afresh when gcc and
# Criterion are here. PYTHON picks the interpreter (default python3).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
python=${PYTHON:-python3}
good=report-samples/good
bad=report-samples/bad
mismatches=0

# case accept|reject|usage LABEL [PATTERN...] -- CHECKER-ARGUMENTS...
case_() {
    local want=$1 label=$2 patterns=() output status why=""
    shift 2
    while [ "$1" != -- ]; do patterns+=("$1"); shift; done
    shift
    output=$("$python" check-reports.py "$@" 2>&1)
    status=$?
    case $want in
    accept) [ "$status" -eq 0 ] || why="exit $status: $(grep -m1 -E ' fail(:|$)' <<<"$output")" ;;
    usage) [ "$status" -eq 2 ] || why="exit $status, expected 2 (usage)" ;;
    reject)
        if [ "$status" -ne 1 ]; then
            why="exit $status, expected 1"
        else
            for pattern in "${patterns[@]}"; do
                grep -E ' fail(:|$)' <<<"$output" | grep -Eq -- "$pattern" || why="no fail line matches /$pattern/"
            done
        fi ;;
    esac
    if [ -z "$why" ]; then
        printf '%-56s pass\n' "$label"
    else
        printf '%-56s fail: %s\n' "$label" "${why:0:300}"
        mismatches=$((mismatches + 1))
    fi
}

# TAP
case_ accept "accepted: good/failing-and-skip.tap" -- --tap $good/failing-and-skip.tap
case_ accept "accepted: good/plan-at-end.tap" -- --tap $good/plan-at-end.tap
case_ accept "accepted: good/no-tests.tap" -- --tap $good/no-tests.tap
case_ reject "rejected: bad/criterion-yaml-block.tap" 'prove.* fail: Badly formed' 'tap\.py.* fail: .*not TAP' \
    -- --tap $bad/criterion-yaml-block.tap
case_ reject "rejected: bad/bad-plan.tap" 'prove.* fail: Bad plan' 'tap\.py.* fail: plan 1\.\.5 but 3' -- --tap $bad/bad-plan.tap
case_ reject "rejected: bad/output-not-commented.tap" 'prove.* fail: Tests out of sequence' \
    'tap\.py.* fail: .*test number 7' -- --tap $bad/output-not-commented.tap
case_ reject "rejected: bad/stray-line.tap" 'tap\.py.* fail: 1 line is not TAP' -- --tap $bad/stray-line.tap
case_ reject "rejected: bad/version-14.tap" 'prove.* fail: TAP specified version 14' -- --tap $bad/version-14.tap
case_ reject "rejected: bad/carriage-return.tap" 'tap\.py.* fail: plan 1\.\.1 but 2' -- --tap $bad/carriage-return.tap
case_ reject "rejected: bad/bail-out.tap" 'prove.* fail: Bail out' 'tap\.py.* fail: .*Bail out' -- --tap $bad/bail-out.tap
if command -v gcc >/dev/null && scratch=$(mktemp -d) &&
   gcc -o "$scratch/criterion-tap" $bad/criterion-yaml-block.c -lcriterion 2>/dev/null; then
    "$scratch/criterion-tap" --tap="$scratch/criterion.tap" >/dev/null 2>&1
    case_ reject "rejected: Criterion's own --tap output, made now" 'prove.* fail: Badly formed' -- --tap "$scratch/criterion.tap"
    rm -rf "$scratch"
else
    echo "# Criterion's own --tap output not made now (no gcc or Criterion); its copy was checked"
fi

# JUnit XML
case_ accept "accepted: good/failure-error-skipped.xml" -- --junit $good/failure-error-skipped.xml
case_ accept "accepted: good/single-testsuite.xml" -- --junit $good/single-testsuite.xml
case_ reject "rejected: bad/wrong-counts.xml" "counts.* fail: .*failures='2', but 1" -- --junit $bad/wrong-counts.xml
case_ reject "rejected: bad/skipped-on-testsuites.xml" "xmllint.* fail: .*'skipped' is not allowed" \
    -- --junit $bad/skipped-on-testsuites.xml
case_ reject "rejected: bad/time-six-decimals.xml" "xmllint.* fail: .*'0\.123456' is not accepted" \
    -- --junit $bad/time-six-decimals.xml
case_ reject "rejected: bad/no-testsuite-name.xml" "xmllint.* fail: .*'name' is required" -- --junit $bad/no-testsuite-name.xml
case_ reject "rejected: bad/control-character.xml" "xmllint.* fail: .*invalid Char" -- --junit $bad/control-character.xml
case_ reject "rejected: bad/failure-message-element.xml" "xmllint.* fail: .*'message': This element is not expected" \
    -- --junit $bad/failure-message-element.xml
case_ reject "rejected: bad/root-not-a-suite.xml" "counts.* fail: root element <testcase>" -- --junit $bad/root-not-a-suite.xml

# results.json (Gradescope)
case_ accept "accepted: good/results.json" -- --results-json $good/results.json
case_ accept "accepted: good/results-no-top-score.json" -- --results-json $good/results-no-top-score.json
for sample in status-skipped:"'skipped' is not one of" format-markdown:"'markdown' is not one of" \
              visibility-typo:"'after_due' is not one of" number-not-string:"1 is not of type 'string'" \
              unknown-field:"'verdict' was unexpected" no-score:"'score' is a required property" \
              leaderboard-order:"'ascending' is not one of" nan:"NaN is not JSON" not-utf8:"not UTF-8"; do
    case_ reject "rejected: bad/results-${sample%%:*}.json" "schema fail: .*${sample#*:}" \
        -- --results-json "$bad/results-${sample%%:*}.json"
done
case_ reject "rejected: bad/results-score-not-sum.json" "sum.* fail: score 10 but the tests' scores add up to 7\.5" \
    -- --results-json $bad/results-score-not-sum.json
case_ reject "rejected: bad/results-score-over-max.json" "sum.* fail: .*score 6 > max_score 5" \
    -- --results-json $bad/results-score-over-max.json
case_ reject "rejected: bad/results-negative-score.json" "sum.* fail: .*score -1 < 0" \
    -- --results-json $bad/results-negative-score.json

# CSV
case_ accept "accepted: good/class.csv (quoted comma, quote, newline)" -- --csv $good/class.csv
case_ accept "accepted: good/class.csv --csv-columns 6" -- --csv $good/class.csv --csv-columns 6
case_ reject "rejected: good/class.csv --csv-columns 5" "every row has 5 columns +fail: 4 rows of 4 differ" \
    -- --csv $good/class.csv --csv-columns 5
case_ reject "rejected: bad/class-unquoted-comma.csv" "columns +fail: 1 rows of 3 differ: row 3 has 6" \
    -- --csv $bad/class-unquoted-comma.csv
case_ reject "rejected: bad/class-blank-line.csv" "columns +fail: .*row 3 has 0" -- --csv $bad/class-blank-line.csv
case_ reject "rejected: bad/class-empty.csv" "csv module +fail: no header row" -- --csv $bad/class-empty.csv
case_ reject "rejected: bad/class-unterminated-quote.csv" "csv module +fail: unexpected end of data" \
    -- --csv $bad/class-unterminated-quote.csv
case_ reject "rejected: bad/class-text-after-quote.csv" "csv module +fail: ',' expected after" \
    -- --csv $bad/class-text-after-quote.csv
case_ reject "rejected: bad/class-not-utf8.csv" "csv module +fail: not UTF-8" -- --csv $bad/class-not-utf8.csv

# summary.json
case_ accept "accepted: good/summary.json" -- --summary $good/summary.json
case_ accept "accepted: good/summary-no-gpu.json" -- --summary $good/summary-no-gpu.json
case_ accept "accepted: good/summary-no-file.json" -- --summary $good/summary-no-file.json
case_ reject "rejected: bad/summary-missing-fields.json" "types.* fail: .*'lab' is a required property" \
    -- --summary $bad/summary-missing-fields.json
case_ reject "rejected: bad/summary-verdict-misspelt.json" "types.* fail: .*'fail' is not one of" \
    -- --summary $bad/summary-verdict-misspelt.json
case_ reject "rejected: bad/summary-wrong-types.json" "types.* fail: .*True is not of type 'integer'.*'1\.03' is not of type" \
    -- --summary $bad/summary-wrong-types.json
case_ reject "rejected: bad/summary-problem-two-lines.json" "types.* fail: at problems/0" \
    -- --summary $bad/summary-problem-two-lines.json
case_ reject "rejected: bad/summary-speed-zero-time.json" "types.* fail: at speed/0/yours_ms" \
    -- --summary $bad/summary-speed-zero-time.json
case_ reject "rejected: bad/summary-unknown-field.json" "types.* fail: .*'grade' was unexpected" \
    -- --summary $bad/summary-unknown-field.json
case_ reject "rejected: bad/summary-score-over-max.json" "verdict +fail: score 70\.0 > max_score 65\.0" \
    -- --summary $bad/summary-score-over-max.json
case_ reject "rejected: bad/summary-exit-code-not-verdict.json" "verdict +fail: verdict 'failed' with exit_code 0" \
    -- --summary $bad/summary-exit-code-not-verdict.json

# How each consumer reads a grading without a GPU (--expect): as the results model writes it,
# not passed; as it wrote it before (ok ... # SKIP, <skipped>, a 0-point test without a status),
# passed, which no consumer may read it as.
case_ accept "read as not passed: good/no-gpu.tap" -- --expect not-passed --tap $good/no-gpu.tap
case_ accept "read as not passed: good/no-gpu.xml" -- --expect not-passed --junit $good/no-gpu.xml
case_ accept "read as not passed: good/results-no-gpu.json" -- --expect not-passed --results-json $good/results-no-gpu.json
case_ accept "read as not passed: good/summary-no-gpu.json" -- --expect not-passed --summary $good/summary-no-gpu.json
case_ accept "read as passed: good/all-passed.tap" -- --expect passed --tap $good/all-passed.tap
case_ reject "read as passed: bad/no-gpu-as-skip.tap" "read as not passed +fail: prove reads it as passed" \
    -- --expect not-passed --tap $bad/no-gpu-as-skip.tap
case_ reject "read as passed: bad/no-gpu-as-skipped.xml" "read as not passed +fail: the root's counts reads it as passed" \
    -- --expect not-passed --junit $bad/no-gpu-as-skipped.xml
case_ reject "read as passed: bad/results-no-gpu-no-status.json" "read as not passed +fail: Gradescope's rule reads it as passed" \
    -- --expect not-passed --results-json $bad/results-no-gpu-no-status.json
case_ reject "read as passed: bad/summary-no-gpu-as-passed.json" "read as not passed +fail: its verdict .* reads it as passed" \
    -- --expect not-passed --summary $bad/summary-no-gpu-as-passed.json

# command line
case_ usage "usage: no file to check" -- 
case_ usage "usage: --csv-columns without --csv" -- --csv-columns 3
case_ usage "usage: unknown option" -- --xml $good/failure-error-skipped.xml
case_ usage "usage: --expect of no reading" -- --expect skipped --tap $good/no-gpu.tap
case_ reject "rejected: a file that is not there" "read +fail: cannot read" -- --tap $bad/no-such-file.tap

[ "$mismatches" -eq 0 ] || { echo "check-reports-selftest: $mismatches cases gave the wrong answer"; exit 1; }
