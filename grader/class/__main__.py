#!/usr/bin/env python3
"""grade-class: the instructors' command. Grades every submission of a class for one lab, each
in sandboxes (bubblewrap) by the kit's own build, grader and results model, and writes the class
table: on one machine, or on a Slurm cluster as a job array.

  ./grade-class LAB --submissions DIR --out DIR [grading options] [--jobs N] [--gpus LIST]
  ./grade-class LAB --submissions DIR --out DIR --slurm TASKS [grading options] [Slurm options]
  ./grade-class --task K --out DIR [--run ID]   (one task of the job array)
  ./grade-class --merge --out DIR [--run ID]    (the class table)
  ./grade-class --slurm-rerun K --out DIR       (task K again, then the merge)
  ./grade-class --gradebook CSV --match COLUMN --assignment NAME --out DIR

docs/instructors.md says how to use it. How it works, a module a job:

- cli: the command line. out_folder: what --out may be (never inside the kit), its lock (one
  command preparing or grading a run at a time), run.json, the tasks' state files.
- prepare: a run is prepared once, on the machine the command starts on: the roster (roster:
  every entry of --submissions, each with an id safe as a file name: names), a fresh run id,
  the options, and the kit it is graded in, laid out by make kit from the committed tree
  (OUT/kit/<run>/), the lab built in it. The same command on a run it left unfinished resumes
  that run instead. And each task's copy of the kit on its machine (TaskKit): built there, then
  split into the kit the sandboxes see (read-only, no reference) and the references' worker
  (mode 0111: run, not read).
- task: the roster entries whose index % TASKS is its number, graded on this machine (one
  machine: one task of one); it writes OUT/tasks/<K>.json when it starts and when it ends, so
  that the merge can say why an entry has no line. grading: one entry, in three sandboxes
  (sandbox: build; check and link of the object alone; tests), then the results model outside
  them, on a copy of the grading record, into the student's reports and line.json.
- table: the class table from the lines of the run; gradebook: its points into an exported
  gradebook; slurm: the job array, its merge job, a task run again.

Exit status: 0 complete (every roster entry has a line of this run; a task: every entry of its
slice; --slurm: the jobs are submitted); 1 incomplete, interrupted, or most of the class with no
file or no grade; 2 a bad command line, points file or folder, or --out in use; 4 this machine
cannot grade (no sandbox, the kit does not build, Criterion missing, a full disk).
"""
import os
import shutil
import signal
import sys

from cli import parse_args
from gradebook import fill_gradebook
from out_folder import OutLock, check_folders
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
        lock = OutLock(o.out, True, f"grade-class {o.lab} {'--slurm ' + str(o.tasks) if o.mode == 'slurm' else ''}".strip())
        run = prepare_run(o, o.tasks if o.mode == "slurm" else 1)
        if o.mode == "slurm":
            return submit(o, run, list(range(o.tasks)), {"run": run["run"], "tasks": {}, "merges": [],
                                                      "sbatch": o.sbatch, "gpus_per_task": o.gpus_per_task})
        status = grade_task(o, run, 0)
        merged = merge(o, run, quiet=getattr(o, "interrupted", False))
        del lock
        return max(status, merged)
    lock = OutLock(o.out, False, o.mode)
    run = take_run(o)
    if o.mode == "task":
        return grade_task(o, run, o.task)
    if o.mode == "rerun":
        return rerun(o, run)
    if o.mode == "gradebook":
        return fill_gradebook(o, run)
    same = check_merge_roster(o, run)
    status = merge(o, run)
    del lock
    return status if same else EXIT_INCOMPLETE


def stop(number, _frame):
    raise KeyboardInterrupt(number)


def main(argv):
    # SIGTERM and SIGHUP end the command as Ctrl-C does (a task's grading takes them over).
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, stop)
    try:
        options = parse_args(argv)
        return grade_class(options)
    except Fail as failure:
        print(f"grade-class: {failure}", file=sys.stderr)
        return failure.status
    except KeyboardInterrupt:
        print("grade-class: interrupted: what was graded is kept; the same command resumes the run", file=sys.stderr)
        return EXIT_INCOMPLETE
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"grade-class: {where}{error.strerror or error} (this machine or its disk cannot go on; what was graded is kept, the same command resumes)", file=sys.stderr)
        return EXIT_MACHINE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
