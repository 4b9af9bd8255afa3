#!/usr/bin/env python3
"""grade-class: the instructors' command. Grades every submission of a class for one lab, each
by the kit's own ./grade inside a bubblewrap sandbox, and writes the class table: on one machine,
or on a Slurm cluster as a job array.

  ./grade-class LAB --submissions DIR --out DIR [grading options] [--jobs N] [--gpus LIST]
  ./grade-class LAB --submissions DIR --out DIR --slurm TASKS [grading options] [Slurm options]
  ./grade-class --task K --out DIR          (one task of the job array)
  ./grade-class --merge --out DIR           (the class table)
  ./grade-class --slurm-rerun K --out DIR   (task K again, then the merge)

docs/instructors.md says how to use it. How it works:

- A run is prepared once, on the machine the command starts on: the roster (every entry of
  --submissions, sorted by the bytes of its name; each gets an id safe as a file name whatever
  its name holds: an ASCII slug and a hash of its bytes), a fresh run id, the options, and the
  kit a submission is graded in, built once (OUT/kit/<run>/): a copy made the way `make dist`
  makes the student tarball (grader/make-dist.sh: what git tracks, less the solutions, variants,
  exploits, tests and these scripts; the references compiled into prebuilt/reference/), for
  the architectures of --cuda-arch. OUT/run.json records it all. Nothing of an older run
  counts after that: the merge takes only lines of this run id.
- A task grades the roster entries whose index % TASKS is its number (one machine: one task of
  one), each in its own copy of the run's kit in this machine's scratch folder, and writes
  OUT/tasks/<K>.json when it starts and when it ends (finished, stopped by a signal, or this
  machine cannot grade), so that the merge can say why an entry has no line.
- The sandbox (bwrap) runs each grading with a user id of its own (never root, never the
  instructor's when run as root), no network, its own process tree, /tmp a tmpfs; it sees the
  system read-only (/usr, /etc, /lib*, /bin, /sbin, /opt, /sys), the NVIDIA device nodes, the
  kit copy at /kit, the submission read-only at /submission/labN.cu, the points file at
  /grading/points.conf, and an empty folder at /out for the reports. Never the instructor's
  files, the repository, or another student's anything. Run as root it needs no user
  namespace (bwrap as root, then setpriv to the grading's user inside).
- The verdict comes from the summary.json that the kit's results model writes in the sandbox,
  never from what a grading prints; report.txt keeps what it printed (cut at 1 MiB).
- The merge lists every roster entry of run.json: its line of this run, or "not graded" with
  why (the task never started, was cancelled, ran out of time, or its machine cannot grade:
  from OUT/tasks/ and, on Slurm, from the job's state).

Exit status: 0 complete (every roster entry has a line of this run; a task: every entry of its
slice; --slurm: the jobs are submitted); 1 incomplete; 2 a bad command line, points file or
folder; 4 this machine cannot grade (no sandbox, the kit does not build, Criterion missing).
"""
import os
import shutil
import sys

from cli import parse_args
from gradebook import fill_gradebook
from out_folder import check_folders
from prepare import prepare_run, take_run
from sandbox import Sandbox
from shared import EXIT_INCOMPLETE, EXIT_MACHINE, EXIT_USAGE, Fail
from slurm import rerun, submit
from table import check_merge_roster, merge
from task import grade_task


def grade_class(o):
    check_folders(o)
    if o.mode in ("grade", "slurm"):
        if not os.path.isfile(o.points):
            raise Fail(EXIT_USAGE, f"--points: no file '{o.points}'")
        if o.mode == "slurm" and not shutil.which("sbatch"):
            raise Fail(EXIT_MACHINE, "sbatch is not on PATH: --slurm submits through Slurm")
        Sandbox()  # refuses now, before the build, on a machine without the sandbox's tools
        run = prepare_run(o, o.tasks if o.mode == "slurm" else 1)
        if o.mode == "slurm":
            return submit(o, run, list(range(o.tasks)), {"run": run["run"], "tasks": {}, "merges": [],
                                                      "sbatch": o.sbatch, "gpus_per_task": o.gpus_per_task})
        status = grade_task(o, run, 0)
        merged = merge(o, run)
        return max(status, merged)
    run = take_run(o)
    if o.mode == "task":
        return grade_task(o, run, o.task)
    if o.mode == "rerun":
        return rerun(o, run)
    if o.mode == "gradebook":
        return fill_gradebook(o, run)
    same = check_merge_roster(o, run)
    status = merge(o, run)
    return status if same else EXIT_INCOMPLETE


def main(argv):
    try:
        options = parse_args(argv)
        return grade_class(options)
    except Fail as failure:
        message = str(failure)
        print(f"grade-class: {message}", file=sys.stderr)
        return failure.status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
