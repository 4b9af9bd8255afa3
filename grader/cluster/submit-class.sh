#!/usr/bin/env bash
# Grades a class on a Slurm cluster: a job array of TASKS GPU jobs, each grading a slice of the
# submissions, then one job that merges the class table once they have all ended. Nothing here
# schedules anything: Slurm does.
#   grader/cluster/submit-class.sh LAB SUBMISSIONS [TASKS] [grade options...]
# The results go to build/class/LAB (class.csv, class.md, a folder per student). The kit, the
# submissions and the output must be on a file system every node sees.
set -euo pipefail
kit=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ $# -lt 2 ]; then
    echo "usage: grader/cluster/submit-class.sh LAB SUBMISSIONS [TASKS] [grade options...]" >&2
    exit 2
fi
lab=$1 submissions=$(cd "$2" && pwd) tasks=${3:-8}
shift 2
[ $# -gt 0 ] && shift
case "$tasks" in "" | *[!0-9]* | 0) echo "submit-class: TASKS must be a whole number >= 1" >&2; exit 2 ;; esac
out=$kit/build/class/$lab
mkdir -p "$out"
array=$(sbatch --parsable --array="0-$((tasks - 1))" --chdir="$kit" \
    "$kit/grader/cluster/grade-class.sbatch" "$kit" "$lab" "$submissions" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" --chdir="$kit" \
    "$kit/grader/cluster/merge-class.sbatch" "$kit" "$lab" "$out")
echo "submit-class: job array $array ($tasks tasks) grades $submissions; job ${merge%%;*} then writes $out/class.md"
