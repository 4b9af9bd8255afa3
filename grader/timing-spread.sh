#!/usr/bin/env bash
# How repeatable the grader's speedups are: runs `./grade LAB --solution` twice for each lab
# given (default: all), pairs the speedups the two runs printed, and writes a Markdown table
# of the largest and the median difference per lab to stdout. Needs a GPU.
#   grader/timing-spread.sh [lab1 lab5 ...] > spread.md
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
labs=("$@")
if [ ${#labs[@]} -eq 0 ]; then
    for dir in labs/lab*-*/; do labs+=("$(basename "$dir")"); done
fi
logs=build/reports/spread
mkdir -p "$logs"

# The speedup cells of a grade log, one per line, in the order printed ("14.8x", "0.87x (slower)").
speedups() {
    grep '^|' "$1" | tr '|' '\n' | sed 's/^ *//; s/ *$//' | grep -E '^[0-9.]+x( \(slower\))?$' |
        sed 's/x.*//'
}

echo "| lab | speedups compared | largest difference | median difference | within 5% |"
echo "| --- | ---: | ---: | ---: | --- |"
for lab in "${labs[@]}"; do
    short=${lab%%-*}
    for run in 1 2; do
        ./grade "$short" --solution >"$logs/$short-run$run.log" 2>&1
        status=$?
        if [ "$status" -ne 0 ]; then
            echo "timing-spread: ./grade $short --solution failed (exit $status): $logs/$short-run$run.log" >&2
            exit 1
        fi
    done
    paste <(speedups "$logs/$short-run1.log") <(speedups "$logs/$short-run2.log") |
        awk 'NF == 2 && $1 > 0 && $2 > 0 { print (($1 > $2 ? $1 / $2 : $2 / $1) - 1) * 100 }' |
        sort -g |
        awk -v lab="$short" '
            { diffs[++n] = $1 }
            END {
                if (n == 0) { printf "| %s | 0 | - | - | no speedups printed |\n", lab; exit }
                median = n % 2 ? diffs[(n + 1) / 2] : (diffs[n / 2] + diffs[n / 2 + 1]) / 2
                printf "| %s | %d | %.1f%% | %.1f%% | %s |\n", lab, n, diffs[n], median,
                       diffs[n] <= 5 ? "yes" : "no"
            }'
done
