"""The --out folder: what may be used as one, run.json, the tasks' state files, the students' lines."""
import json
import os
import socket
import tempfile
import time

from shared import EXIT_USAGE, Fail


def check_folders(o):
    """A new run: --submissions a folder, --out writable, neither inside the other, --out new,
    empty or holding a run of this command. Otherwise --out must hold a run. Sets o.out (and
    o.submissions) to real paths."""
    out = os.path.realpath(o.out)
    o.out = out
    if o.mode not in ("grade", "slurm"):
        if read_run(out) is None:
            raise Fail(EXIT_USAGE, f"--out: '{out}' holds no run of grade-class (no run.json of this version)")
        return
    if not os.path.isdir(o.submissions):
        what = "does not exist" if not os.path.lexists(o.submissions) else "is not a folder"
        raise Fail(EXIT_USAGE, f"--submissions: '{o.submissions}' {what}")
    o.submissions = os.path.realpath(o.submissions)
    for inner, outer, what in ((out, o.submissions, "--out is inside --submissions"),
                               (o.submissions, out, "--submissions is inside --out")):
        if inner == outer or inner.startswith(outer.rstrip("/") + "/"):
            raise Fail(EXIT_USAGE, f"{what} ('{o.out}', '{o.submissions}'): the results must not mix with the submissions")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as error:
        raise Fail(EXIT_USAGE, f"--out: cannot create '{out}': {error.strerror}")
    if not os.path.isdir(out):
        raise Fail(EXIT_USAGE, f"--out: '{out}' is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".grade-class-probe-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise Fail(EXIT_USAGE, f"--out: cannot write in '{out}': {error.strerror}")
    names = [n for n in os.listdir(out) if not n.startswith(".grade-class-")]
    if names and "run.json" not in names:
        raise Fail(EXIT_USAGE, f"--out: '{out}' holds files that grade-class did not write (it has no run.json): give a new or empty folder")
    if "run.json" in names and read_run(out) is None:
        raise Fail(EXIT_USAGE, f"--out: '{out}/run.json' is not a run of this grade-class: give a new or empty folder")


RUN_FORMAT = 2


def read_run(out):
    try:
        with open(os.path.join(out, "run.json"), encoding="utf-8") as file:
            run = json.load(file)
    except (OSError, ValueError):
        return None
    if not isinstance(run, dict) or run.get("tool") != "grade-class" or run.get("format") != RUN_FORMAT:
        return None
    return run


def write_atomically(path, data):
    """Writes a file of --out by rename, so that a reader (or a slice writing the same file at
    the same moment) never sees half of it."""
    folder = os.path.dirname(path)
    fd, temporary = tempfile.mkstemp(prefix=".grade-class-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def task_state_path(out, task):
    return os.path.join(out, "tasks", f"{task}.json")


def write_task_state(out, run, task, state, **facts):
    os.makedirs(os.path.join(out, "tasks"), exist_ok=True)
    record = {"run": run["run"], "task": task, "state": state, "host": socket.gethostname(),
              "slurm_job": slurm_job_of_this_process(),
              "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **facts}
    write_atomically(task_state_path(out, task),
                     (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


def read_task_state(out, run, task):
    try:
        with open(task_state_path(out, task), encoding="utf-8") as file:
            state = json.load(file)
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and state.get("run") == run["run"] else None


def slurm_job_of_this_process():
    array, index = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    if array and index:
        return f"{array}_{index}"
    return os.environ.get("SLURM_JOB_ID")


def read_line(out, identifier):
    try:
        with open(os.path.join(out, "students", identifier, "line.json"), "rb") as file:
            line = json.loads(file.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return line if isinstance(line, dict) else None
