#!/usr/bin/env bash
# Grades a class on a Slurm cluster: a job array of TASKS GPU jobs, each grading a slice of the
# submissions with ./grade-class, then one job that merges the class table once they have all
# ended. Nothing here schedules anything: Slurm does.
#   grader/cluster/submit-class.sh LAB SUBMISSIONS OUT [TASKS] [grade-class options...]
# The results go to OUT (class.csv, class.md, run.json, students/<id>/). The kit, the
# submissions and OUT must be on a file system every node sees.
set -euo pipefail
kit=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ $# -lt 3 ]; then
    echo "usage: grader/cluster/submit-class.sh LAB SUBMISSIONS OUT [TASKS] [grade-class options...]" >&2
    exit 2
fi
lab=$1 tasks=${4:-8}
submissions=$(cd "$2" && pwd) || { echo "submit-class: no folder '$2'" >&2; exit 2; }
mkdir -p "$3" && out=$(cd "$3" && pwd) || { echo "submit-class: cannot make the folder '$3'" >&2; exit 2; }
shift 3
[ $# -gt 0 ] && shift
case "$tasks" in "" | *[!0-9]* | 0*) echo "submit-class: TASKS must be a whole number >= 1" >&2; exit 2 ;; esac
array=$(sbatch --parsable --array="0-$((tasks - 1))" --chdir="$kit" \
    "$kit/grader/cluster/grade-class.sbatch" "$kit" "$lab" "$submissions" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" --chdir="$kit" \
    "$kit/grader/cluster/merge-class.sbatch" "$kit" "$lab" "$out" "$submissions")
echo "submit-class: job array $array ($tasks tasks) grades $submissions; job ${merge%%;*} then writes $out/class.md"
