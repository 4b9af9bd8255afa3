"""The --out folder: what may be used as one, run.json, the tasks' state files, the students' lines."""
import errno
import fcntl
import json
import os
import socket
import tempfile
import time

from shared import EXIT_USAGE, Fail, ROOT


LOCK_FILE = ".grade-class.lock"   # also what marks a folder as grade-class's --out


def check_folders(o):
    """A new run: --submissions a folder, --out writable, outside the kit (make clean, a new
    checkout or git clean would take it with them), neither inside the other, --out new, empty,
    or grade-class's (a run, or one interrupted while it was prepared). Otherwise --out must
    hold a run. Sets o.out (and o.submissions) to real paths."""
    out = os.path.realpath(o.out)
    o.out = out
    if o.mode not in ("grade", "slurm"):
        if read_run(out) is None:
            raise Fail(EXIT_USAGE, f"--out: '{out}' holds no run of grade-class (no run.json of this version)")
        return
    kit = os.path.realpath(ROOT)
    if out == kit or out.startswith(kit + "/"):
        raise Fail(EXIT_USAGE, f"--out: '{out}' is inside the kit ({kit}), where make clean, a new checkout or git clean would delete a class's results: give a folder outside it")
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
    names = os.listdir(out)
    if any(not n.startswith(".grade-class") for n in names) and "run.json" not in names and LOCK_FILE not in names:
        raise Fail(EXIT_USAGE, f"--out: '{out}' holds files that grade-class did not write (it has no run.json): give a new or empty folder")
    if "run.json" in names and read_run(out) is None:
        raise Fail(EXIT_USAGE, f"--out: '{out}/run.json' is not a run of this grade-class: give a new or empty folder")


class OutLock:
    """A lock on --out for as long as this command runs (a POSIX lock, which NFS keeps too):
    exclusive while a run is prepared or graded on this machine, shared by the tasks, merges
    and other commands that read a run. A command that cannot have it refuses at once."""

    def __init__(self, out, exclusive, what):
        path = os.path.join(out, LOCK_FILE)
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise Fail(EXIT_USAGE, f"--out: cannot lock '{out}' ({path}: {error.strerror})")
        try:
            fcntl.lockf(self.fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in (errno.EACCES, errno.EAGAIN):
                raise Fail(EXIT_USAGE, f"--out: cannot lock '{out}' ({error.strerror})")
            raise Fail(EXIT_USAGE, f"--out: '{out}' is in use by another grade-class ({self.holder(exclusive)}): wait for it to end, or give another --out")
        if exclusive:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{what}, process {os.getpid()} on {socket.gethostname()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode(), 0)

    def holder(self, wanted_exclusive):
        """Who holds the lock: the exclusive holder says so in the file; shared holders do not."""
        if wanted_exclusive:
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                fcntl.lockf(self.fd, fcntl.LOCK_UN)
                return "a task or merge of its run, or a command reading it"
            except OSError:
                pass
        said = os.pread(self.fd, 300, 0).decode("utf-8", "replace").strip()
        return said or "a run being prepared or graded"


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
