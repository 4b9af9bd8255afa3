"""The class table (class.csv, class.md), merged from the lines of a run."""
import csv
import io
import os
import re
import sys

from names import csv_cell, escape_name, inert
from out_folder import read_line, read_task_state, write_atomically
from shared import EXIT_COMPLETE, EXIT_INCOMPLETE, say
from slurm import slurm_job_of_task, slurm_state


def number(value, digits=None):
    if value is None:
        return ""
    if digits is not None:
        return f"{value:.{digits}f}"
    # Points are in cents: never rounded further, never in exponent notation.
    return f"{value:.2f}".rstrip("0").rstrip(".")


# The verdicts of a line that holds no grade: this machine could not grade the code.
NO_GRADE_VERDICTS = ("not graded", "not graded on a GPU", "grading machine broken")


def grade_to_hand_on(line):
    """Whether a line holds a grade to hand on: points, and every test run. A failed test with the
    GPU tests not run (no GPU here, or no GPU memory to spare) is a verdict on the code, not yet
    its grade; a build that failed is one, whatever it left unrun."""
    if line is None or line.get("score") is None or line.get("verdict") in NO_GRADE_VERDICTS:
        return False
    return not (line.get("verdict") == "failed" and line.get("tests_not_run"))


def markdown(text):
    text = re.sub(r"([\\`*_\[\]<>|#!~{}])", r"\\\1", text)
    return text.replace("\n", "\\n").replace("\t", " ").replace("\r", "\\r")


def why_not_graded(o, run, task, slurm_states):
    """Why task `task` left an entry without a line: from the task's own state file and, on
    Slurm, the job's state."""
    state = read_task_state(o.out, run, task)
    job = (state or {}).get("slurm_job") or slurm_job_of_task(o.out, run, task)
    slurm = slurm_states.setdefault(job, slurm_state(job)) if job else None
    on_slurm = ""
    if job:
        on_slurm = f" (Slurm job {job}: {slurm})" if slurm else f" (Slurm job {job}, which Slurm no longer lists: cancelled before it started, or ended long ago)"
    if state is None:
        return f"task {task} never started{on_slurm}"
    what = state.get("state")
    if what == "running":
        return f"task {task} ended while grading, on {state.get('host')}{on_slurm}: killed, out of time or its machine failed"
    if what == "stopped":
        again = "" if job else "; the same command resumes the run"
        return f"task {task} was stopped by signal {state.get('signal')} on {state.get('host')}{on_slurm}: cancelled or out of time{again}"
    if what == "machine":
        return f"task {task}: its machine ({state.get('host')}) cannot grade: {state.get('why')}"
    return f"task {task} {what} without a line for this entry, on {state.get('host')}{on_slurm}: see logs/"


def merge(o, run, quiet=False):
    """The class table of the run; exit 1 (saying why, unless quiet: the caller has said it) when
    an entry has no line of it or no grade to hand on (ungraded_entries)."""
    tasks = run["options"]["tasks"]
    rows, missing, not_graded, verdicts = [], [], 0, []
    slurm_states = {}
    for entry in run["roster"]:
        line = read_line(o.out, entry["id"])
        if line is None or line.get("run") != run["run"] or line.get("id") != entry["id"]:
            missing.append(entry)
            line = {"verdict": "not graded",
                    "problems": [why_not_graded(o, run, entry["index"] % tasks, slurm_states)]}
        hands_on = grade_to_hand_on(line)
        not_graded += not hands_on
        problems = [inert(str(p), one_line=True) for p in line.get("problems") or []]
        verdicts.append((str(line.get("verdict")), problems[0] if problems else "", hands_on))
        rows.append([entry["name"], entry["id"], str(line.get("verdict")),
                     number(line.get("tests_passed")), number(line.get("tests_failed")),
                     number(line.get("time_ratio"), 3), number(line.get("score")),
                     number(line.get("max_score")), "; ".join(str(p) for p in problems)])
    header = ["name", "id", "verdict", "tests passed", "tests failed", "time / reference",
              "points", "max points", "problems"]
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\r\n")
    writer.writerow(header)
    # A name or a problem (a compiler's line) that starts like a formula stays text in a
    # spreadsheet.
    writer.writerows([csv_cell(row[0])] + row[1:8] + [csv_cell(row[8])] for row in rows)
    write_atomically(os.path.join(o.out, "class.csv"), text.getvalue().encode("utf-8"))

    md = [f"# {run['lab']}: the class table", "",
          f"Run `{run['run']}` (prepared {run['created']}), seed {run['options']['seed']}, "
          f"{'correctness only' if run['options']['no_timing'] else 'timed'}, "
          f"{len(rows)} roster entries. Names as handed in (escaped); the id is the student's folder under `students/`.", "",
          "| name | id | verdict | passed | failed | time / reference | points | problems |",
          "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        problems = row[8] if len(row[8]) <= 300 else row[8][:296].rsplit(" ", 1)[0] + " ..."
        points = f"{row[6]} / {row[7]}" if row[6] else (f"- / {row[7]}" if row[7] else "")
        md.append(f"| {markdown(row[0])} | `{row[1]}` | {markdown(row[2])} | {row[3]} | {row[4]} | "
                  f"{row[5]} | {points} | {markdown(problems)} |")
    write_atomically(os.path.join(o.out, "class.md"), ("\n".join(md) + "\n").encode("utf-8"))

    graded = len(rows) - not_graded
    say(f"class table: {os.path.join(o.out, 'class.csv')} ({len(rows)} students, {graded} graded, {not_graded} without a grade to hand on)")
    if missing and quiet:
        return EXIT_INCOMPLETE
    if missing:
        shown = ", ".join(e["id"] for e in missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        print(f"grade-class: incomplete: no line of run {run['run']} for {len(missing)} of {len(rows)}: {shown}", file=sys.stderr)
        return EXIT_INCOMPLETE
    return ungraded_entries(o, verdicts)


def ungraded_entries(o, verdicts):
    """A table with an entry that has no grade to hand on is not a finished grading of the class:
    exit 1, naming why (no GPU, a broken machine), never a quiet 0 or a partial score taken for a
    grade. One whose rows are mostly "no file" names the lab, which may be the wrong one."""
    no_file = [why for verdict, why, _ in verdicts if verdict == "no file"]
    ungraded = [(verdict if verdict in NO_GRADE_VERDICTS else f"{verdict} with the GPU tests not run", why)
                for verdict, why, graded in verdicts if not graded]
    if 2 * len(no_file) > len(verdicts):
        shown = "; ".join(sorted(set(no_file), key=no_file.index)[:3])
        print(f"grade-class: {len(no_file)} of {len(verdicts)} entries have no {o.short}.cu: is {o.short} the lab they handed in? ({shown})", file=sys.stderr)
        return EXIT_INCOMPLETE
    if ungraded:
        kinds = {}
        for verdict, why in ungraded:
            kinds.setdefault(verdict, why)
        shown = "; ".join(f"{sum(1 for v, _ in ungraded if v == verdict)} {verdict}: {why[:200]}" for verdict, why in kinds.items())
        print(f"grade-class: {len(ungraded)} of {len(verdicts)} entries have no grade to hand on; grade them where every test can run ({shown})", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_COMPLETE


def check_merge_roster(o, run):
    """The merge lists the run's roster; it says so when --submissions has changed since."""
    try:
        now = [escape_name(n) for n in sorted(os.listdir(os.fsencode(run["submissions"])))]
    except OSError as error:
        print(f"grade-class: cannot list the run's --submissions '{run['submissions']}' ({error.strerror}): the table lists the run's roster", file=sys.stderr)
        return True
    then = [e["name"] for e in run["roster"]]
    if now != then:
        added = len(set(now) - set(then))
        gone = len(set(then) - set(now))
        print(f"grade-class: --submissions has changed since the run ({added} entries new, {gone} gone): the table lists the run's roster; start a new run for the new ones", file=sys.stderr)
        return False
    return True
