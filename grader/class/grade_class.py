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
import concurrent.futures
import csv
import errno
import hashlib
import io
import json
import os
import queue
import re
import resource
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EXIT_COMPLETE, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_MACHINE = 0, 1, 2, 4
FILE_CAP = 1 << 20            # a submission's labN.cu, at most
REPORT_CAP = 1 << 20          # what report.txt keeps of a grading's output
REPORT_MARK = b"[report cut at 1 MiB]\n"
# The user ids of the sandboxes when grade-class runs as root: one a grading running at once, so
# that concurrent gradings neither count against each other's process limit nor reach each
# other's files. A range no distribution hands out to accounts.
SANDBOX_UID_BASE = 0x7ff00000
# Limits of a sandbox (clamped to this process's hard limits, which only root could raise).
LIMIT_NPROC = 1024            # processes and threads, per sandbox (inside it, see below)
LIMIT_FSIZE = 256 << 20       # the largest file a grading may write (objects, the grader)
LIMIT_NOFILE = 4096
LIMIT_DATA = 32 << 30         # heap and private writable mappings (the 4 GiB text and copies)
# The reports a grading writes under /out, and the most of each that comes back.
REPORT_FILES = {"summary.json": 1 << 20, "results.json": 16 << 20, "tests.tap": 16 << 20,
                "tests.xml": 16 << 20}
# Everything grade-class writes in a student's folder of --out (and may delete there).
STUDENT_FILES = ("line.json", "report.txt", "build.txt") + tuple(REPORT_FILES)
VERDICTS = ("passed", "failed", "does not compile", "no file", "not graded on a GPU",
            "grading machine broken", "no test ran")
# A Criterion filter no test matches: the build step of a two-step grading (see grade_folder).
BUILD_ONLY_FILTER = "grade-class-build-only/no-test"
NVIDIA_NODES = re.compile(r"^nvidia([0-9]+|ctl|-uvm|-uvm-tools|-modeset|-caps)$")

USAGE = """usage: ./grade-class LAB --submissions DIR --out DIR [options]          one machine
       ./grade-class LAB --submissions DIR --out DIR --slurm TASKS [options]  a Slurm cluster
       ./grade-class --task K --out DIR         one task of the job array (what Slurm runs)
       ./grade-class --merge --out DIR          the class table, from the tasks' results
       ./grade-class --slurm-rerun K --out DIR  task K of the run again, then the merge
       ./grade-class --gradebook CSV --match COLUMN --assignment NAME --out DIR
                                                the run's points into a gradebook exported from
                                                Gradescope or a learning system, to import back

Grades every student's folder in --submissions (DIR/<student>/labN.cu), each by the kit's own
./grade in a sandbox, into --out: a folder per student (students/<id>/: report.txt, results.json,
tests.tap, tests.xml, summary.json, line.json) and the class table (class.csv, class.md).

  --submissions DIR   one folder a student, holding labN.cu
  --out DIR           where the results go: a new or empty folder, or one of an earlier run
                      (a new run replaces it: only this run's lines count)
Grading options (the run's, for every task):
  --points FILE       score by this course configuration (default grader/points.conf)
  --seed N            seed of the generated inputs (default: a new one each run)
  --runs N            timed runs per kernel, 10 to 1000 (default 10)
  --no-timing         correctness only
  --student-timeout S stop a submission's grading after S seconds (default 900)
  --cuda-arch "A B"   GPU architectures to build for, as compute capabilities without the
                      dot (say "90" or "80 90"): those of the GPUs that grade; default this
                      machine's GPU, else the kit's default list
One machine:
  --jobs N            grade N submissions at once (default 1); with GPUs, one grading a GPU
                      at a time runs its tests, the others build meanwhile
  --gpus LIST         the GPUs to grade on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES, else
                      every GPU nvidia-smi lists, else none)
Slurm (sbatch on PATH; the kit, --submissions and --out on a file system every node sees):
  --slurm TASKS       prepare the run here (the kit built once, in OUT/kit/), then submit a
                      job array of TASKS tasks and a merge job that runs when they have ended;
                      logs in OUT/logs/
  --gpus-per-task N   GPUs a task asks Slurm for (--gres=gpu:N; default 1; 0 for none)
  --sbatch OPTION     passed to sbatch for every job, e.g. --sbatch=--partition=gpu (repeat it)
Gradebook (after a complete run):
  --gradebook CSV     a gradebook exported from Gradescope or a learning system (Canvas:
                      Grades > Export); writes OUT/gradebook-<NAME>.csv, the same file with the
                      points of this run in column NAME (added if it has none), to import back
  --match COLUMN      the gradebook's column that holds the names of the submission folders
                      (say "SIS Login ID", or "Email")
  --assignment NAME   the column to fill; a student without points of this run is left blank
  -h, --help          show this help

Exit status: 0 every roster entry has a line of this run (a task: every entry of its slice;
--slurm: the jobs are submitted); 1 some do not; 2 a bad command line, points file or
folder; 4 this machine cannot grade (no sandbox: install Debian's bubblewrap; the kit does
not build; Criterion is missing).
"""


class Fail(Exception):
    """Ends the command with one line on stderr and an exit status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class TaskRecorded(Fail):
    """A Fail whose cause the task's state file already holds."""


class Interrupted(Exception):
    pass


class MachineBroken(Exception):
    """This machine cannot grade (checked with the kit's own skeleton): the task stops."""


def say(*parts):
    with PRINT_LOCK:
        print("grade-class:", *parts, flush=True)


PRINT_LOCK = threading.Lock()


# ---------------------------------------------------------------------------------------------
# Names and ids

_INVISIBLE = {0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
              0x2066, 0x2067, 0x2068, 0x2069, 0xfeff}


def escape_name(raw, one_line=False):
    """A name as text for the reports: its bytes decoded as UTF-8 (surrogateescape), with every
    byte that is not UTF-8 written \\xNN, control characters and bidirectional or invisible
    formatting marks written \\xNN or \\uNNNN. Newlines and tabs stay (the CSV quotes them)
    unless one_line."""
    text = raw.decode("utf-8", "surrogateescape")
    out = []
    for ch in text:
        code = ord(ch)
        if 0xdc80 <= code <= 0xdcff:
            out.append("\\x%02x" % (code - 0xdc00))
        elif ch in "\n\t" and not one_line:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7f:
            out.append("\\x%02x" % code)
        elif 0x80 <= code <= 0x9f or code in _INVISIBLE or 0xd800 <= code <= 0xdfff:
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    return "".join(out)


def slug(raw):
    """A readable ASCII part of an id: letters and digits of the name, accents dropped."""
    text = unicodedata.normalize("NFKD", raw.decode("utf-8", "replace"))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")
    return text[:32].strip("-") or "student"


def make_ids(raw_names):
    """Ids for names: slug-hash, the hash of the name's bytes long enough that no two ids of the
    roster are the same (6 hex digits, more only where 6 collide)."""
    digests = [hashlib.sha256(raw).hexdigest() for raw in raw_names]
    slugs = [slug(raw) for raw in raw_names]
    lengths = [6] * len(raw_names)
    while True:
        ids = [f"{s}-{d[:n]}" for s, d, n in zip(slugs, digests, lengths)]
        seen = {}
        for index, identifier in enumerate(ids):
            seen.setdefault(identifier.lower(), []).append(index)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            return ids
        for group in clashes:
            for index in group:
                if lengths[index] >= 64:
                    raise Fail(EXIT_MACHINE, "two submission names have the same SHA-256")
                lengths[index] = min(64, lengths[index] + 10)


# ---------------------------------------------------------------------------------------------
# The command line

def decimal(option, text, low, high):
    """A plain decimal number (leading zeros are read as decimal, never octal)."""
    if not re.fullmatch(r"[0-9]{1,20}", text or ""):
        raise Fail(EXIT_USAGE, f"{option} takes a whole number, not '{text}'")
    value = int(text, 10)
    if not low <= value <= high:
        raise Fail(EXIT_USAGE, f"{option} must be {low} to {high}, not {text}")
    return value


class Options:
    pass


def labs_of_kit():
    return sorted(name for name in os.listdir(os.path.join(ROOT, "labs"))
                  if re.fullmatch(r"lab[0-9]+-[A-Za-z0-9-]+", name)
                  and os.path.isdir(os.path.join(ROOT, "labs", name)))


def parse_args(argv):
    o = Options()
    o.lab = None
    o.submissions = o.out = None
    o.points = os.path.join(ROOT, "grader", "points.conf")
    o.seed = None
    o.runs = 10
    o.no_timing = False
    o.student_timeout = 900
    o.cuda_arch = None
    o.jobs = 1
    o.gpus = None
    o.mode = "grade"          # grade (one machine), slurm, task, merge, rerun
    o.task = None
    o.tasks = None
    o.gpus_per_task = 1
    o.sbatch = []
    o.gradebook = o.match = o.assignment = None
    o.given = set()
    labs = labs_of_kit()
    valued = {"--submissions", "--out", "--points", "--seed", "--runs", "--student-timeout",
              "--cuda-arch", "--jobs", "--gpus", "--slurm", "--task", "--slurm-rerun",
              "--gpus-per-task", "--sbatch", "--gradebook", "--match", "--assignment"}
    caller = os.getcwd()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            raise SystemExit(0)
        inline = None
        if arg.startswith("--") and "=" in arg and arg.split("=", 1)[0] in valued:
            arg, inline = arg.split("=", 1)
        if arg.startswith("--"):
            if arg in o.given and arg != "--sbatch":
                raise Fail(EXIT_USAGE, f"{arg} given twice")
            o.given.add(arg)
        if arg == "--no-timing":
            o.no_timing = True
        elif arg == "--merge":
            o.mode = "merge"
        elif arg in valued:
            if inline is not None:
                value = inline
            elif i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            else:
                value = ""
            if value == "":
                raise Fail(EXIT_USAGE, f"{arg} needs a value")
            if value.startswith("--") and arg != "--sbatch":
                raise Fail(EXIT_USAGE, f"{arg} needs a value (got the option '{value}')")
            if arg == "--submissions":
                o.submissions = os.path.join(caller, value)
            elif arg == "--out":
                o.out = os.path.join(caller, value)
            elif arg == "--points":
                o.points = os.path.join(caller, value)
            elif arg == "--seed":
                o.seed = decimal("--seed", value, 0, (1 << 64) - 1)
            elif arg == "--runs":
                o.runs = decimal("--runs", value, 10, 1000)
            elif arg == "--student-timeout":
                o.student_timeout = decimal("--student-timeout", value, 10, 86400)
            elif arg == "--cuda-arch":
                if not re.fullmatch(r"[0-9]{2,3}[af]?( +[0-9]{2,3}[af]?)*", value.strip()):
                    raise Fail(EXIT_USAGE, f"--cuda-arch takes compute capabilities without the dot, separated by spaces (say \"80 90\"), not '{value}'")
                o.cuda_arch = " ".join(value.split())
            elif arg == "--jobs":
                o.jobs = decimal("--jobs", value, 1, 256)
            elif arg == "--gpus":
                gpus = value.split(",")
                if not all(re.fullmatch(r"[0-9]{1,4}|(GPU|MIG)-[A-Za-z0-9/-]{1,100}", g) for g in gpus):
                    raise Fail(EXIT_USAGE, f"--gpus takes GPU indices or UUIDs separated by commas, not '{value}'")
                if len(set(gpus)) != len(gpus):
                    raise Fail(EXIT_USAGE, f"--gpus names a GPU twice: '{value}'")
                o.gpus = gpus
            elif arg == "--slurm":
                o.mode = "slurm"
                o.tasks = decimal("--slurm", value, 1, 10000)
            elif arg == "--task":
                o.mode = "task"
                o.task = decimal("--task", value, 0, 9999)
            elif arg == "--slurm-rerun":
                o.mode = "rerun"
                o.task = decimal("--slurm-rerun", value, 0, 9999)
            elif arg == "--gradebook":
                o.mode = "gradebook"
                o.gradebook = os.path.join(caller, value)
            elif arg == "--match":
                o.match = value
            elif arg == "--assignment":
                o.assignment = value
            elif arg == "--gpus-per-task":
                o.gpus_per_task = decimal("--gpus-per-task", value, 0, 64)
            elif arg == "--sbatch":
                if not value.startswith("-") or "\n" in value:
                    raise Fail(EXIT_USAGE, f"--sbatch takes one sbatch option, e.g. --sbatch=--partition=gpu, not '{value}'")
                o.sbatch.append(value)
        elif arg.startswith("-"):
            raise Fail(EXIT_USAGE, f"unknown option '{arg}'")
        else:
            if o.lab:
                raise Fail(EXIT_USAGE, f"one lab at a time (got '{o.lab}' and '{arg}')")
            found = [lab for lab in labs if arg in (lab, lab.split("-")[0])]
            if not found:
                raise Fail(EXIT_USAGE, f"unknown lab '{arg}' (the labs are: {' '.join(labs)})")
            o.lab = found[0]
        i += 1
    modes = [m for m in ("--slurm", "--task", "--merge", "--slurm-rerun", "--gradebook") if m in o.given]
    if len(modes) > 1:
        raise Fail(EXIT_USAGE, f"{modes[0]} and {modes[1]} do not go together")
    if not o.out:
        raise Fail(EXIT_USAGE, "--out DIR is needed: where the results go")
    if o.mode in ("grade", "slurm"):
        if not o.lab:
            raise Fail(EXIT_USAGE, f"which lab? (the labs are: {' '.join(labs)})")
        if not o.submissions:
            raise Fail(EXIT_USAGE, "--submissions DIR is needed: the folder of the students' folders")
        o.short = o.lab.split("-")[0]
    else:
        # The run in --out says everything else: grading options would be ignored, so refuse them.
        extra = sorted(o.given & {"--points", "--seed", "--runs", "--no-timing", "--student-timeout",
                                  "--cuda-arch", "--submissions"})
        if extra:
            raise Fail(EXIT_USAGE, f"{modes[0]} takes the run's options from --out/run.json, not {' '.join(extra)}")
    if o.mode != "slurm" and o.mode != "rerun":
        for option in ("--gpus-per-task", "--sbatch"):
            if option in o.given:
                raise Fail(EXIT_USAGE, f"{option} goes with --slurm or --slurm-rerun")
    if (o.mode == "gradebook") != ("--match" in o.given and "--assignment" in o.given) or \
            (o.mode != "gradebook" and ("--match" in o.given or "--assignment" in o.given)):
        raise Fail(EXIT_USAGE, "--gradebook, --match and --assignment go together")
    if o.mode not in ("grade", "task"):
        for option in ("--jobs", "--gpus"):
            if option in o.given:
                raise Fail(EXIT_USAGE, f"{option} is for grading on this machine (not with {modes[0]})")
    return o


# ---------------------------------------------------------------------------------------------
# Folders

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


# ---------------------------------------------------------------------------------------------
# The roster

class Entry:
    pass


def kind_of(mode):
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISREG(mode):
        return "file"
    return "special file"


def read_roster(o):
    base = os.fsencode(o.submissions)
    try:
        names = sorted(os.listdir(base))
    except OSError as error:
        raise Fail(EXIT_USAGE, f"--submissions: cannot list '{o.submissions}': {error.strerror}")
    ids = make_ids(names)
    roster = []
    for index, (raw, identifier) in enumerate(zip(names, ids)):
        entry = Entry()
        entry.index, entry.raw, entry.id = index, raw, identifier
        entry.name = escape_name(raw)
        try:
            entry.kind = kind_of(os.lstat(os.path.join(base, raw)).st_mode)
        except OSError:
            entry.kind = "gone"
        roster.append(entry)
    return roster


# ---------------------------------------------------------------------------------------------
# The sandbox

class Sandbox:
    """The bubblewrap command line, and the machine's tools it needs.

    As root, bwrap itself runs as root (it needs no user namespace then, which some GPU
    machines forbid to unprivileged users) and drops every capability but setuid and setgid;
    setpriv then becomes the grading's own user before anything of the kit or the student's
    runs, with no_new_privs. As another user, bwrap runs unprivileged in a user namespace."""

    def __init__(self):
        self.as_root = os.geteuid() == 0
        tools = {"bwrap": "bubblewrap", "timeout": "coreutils", "prlimit": "util-linux"}
        self.tool = {}
        for tool, package in tools.items():
            path = shutil.which(tool)
            if not path:
                raise Fail(EXIT_MACHINE, f"'{tool}' is not installed: install Debian's {package} package (apt-get install {package}); grade-class grades no submission outside its sandbox")
            self.tool[tool] = path
        # Run inside the sandbox, where /usr is the system's.
        self.inner = {}
        for tool in ("prlimit", "setpriv"):
            found = [p for p in (f"/usr/bin/{tool}", f"/bin/{tool}") if os.path.exists(p)]
            if not found:
                raise Fail(EXIT_MACHINE, f"'{tool}' is not installed in /usr/bin: install Debian's util-linux package; grade-class grades no submission outside its sandbox")
            self.inner[tool] = found[0]
        self.system = self.system_binds(self.as_root)

    @staticmethod
    def system_binds(as_root):
        if as_root:
            # Every namespace but the user's: root makes them without one.
            args = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                    "--unshare-cgroup-try"]
        else:
            args = ["--unshare-all"]
        args += ["--die-with-parent", "--new-session",
                 "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
        # /bin, /sbin, /lib, /lib64 ...: as links where the host has links (merged /usr).
        tops = sorted(n for n in os.listdir("/") if n in ("bin", "sbin") or n.startswith("lib"))
        for name in tops:
            path = "/" + name
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        # /usr/local (CUDA) and /usr/local/nvidia (the driver, in containers) come with /usr;
        # a CUDA_HOME or CRITERION_PREFIX elsewhere is bound on its own.
        for path in ("/opt", os.environ.get("CUDA_HOME"), os.environ.get("CRITERION_PREFIX")):
            if path and os.path.isdir(path):
                real = os.path.realpath(path)
                if not any(real == p or real.startswith(p + "/") for p in ("/usr", "/etc")):
                    for target in dict.fromkeys((real, os.path.abspath(path))):
                        args += reachable_parents(target) + ["--ro-bind", real, target]
        # /sys read-only: the CUDA driver and nvidia-smi read the PCI and NUMA topology there.
        args += ["--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev"]
        try:
            nodes = sorted(n for n in os.listdir("/dev") if NVIDIA_NODES.match(n))
        except OSError:
            nodes = []
        for node in nodes:
            args += ["--dev-bind-try", "/dev/" + node, "/dev/" + node]
        # Criterion's runner shares memory with its tests through /dev/shm.
        args += ["--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/dev/shm"]
        return args

    def command(self, kit, submission, out, points, seconds, argv, uid):
        limits = []
        for option, which, value in (("--nofile", resource.RLIMIT_NOFILE, LIMIT_NOFILE),
                                     ("--fsize", resource.RLIMIT_FSIZE, LIMIT_FSIZE),
                                     ("--data", resource.RLIMIT_DATA, LIMIT_DATA),
                                     ("--core", resource.RLIMIT_CORE, 0)):
            hard = resource.getrlimit(which)[1]
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            limits.append(f"{option}={value}")
        command = [self.tool["timeout"], "--kill-after=10", str(seconds),
                   self.tool["prlimit"], *limits, "--", self.tool["bwrap"], *self.system,
                   "--bind", kit, "/kit",
                   "--ro-bind", submission, "/submission",
                   "--bind", out, "/out",
                   # (bwrap as root makes a file's parent folder 0700 unless told)
                   "--perms", "0755", "--dir", "/grading",
                   "--ro-bind", points, "/grading/points.conf",
                   "--chdir", "/kit"]
        if self.as_root:
            command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
                        self.inner["setpriv"], f"--reuid={uid}", f"--regid={uid}",
                        "--clear-groups", "--inh-caps=-all", "--no-new-privs", "--"]
        else:
            command += ["--"]
        # The process limit counts the processes of the grading's user (in its own user
        # namespace when not root): set where that user is the one counted.
        command += [self.inner["prlimit"], f"--nproc={LIMIT_NPROC}", "--", *argv]
        return command

    def probe(self, scratch, uid):
        """Starts one sandbox that must write its /kit and /out and read /submission, as a
        grading's would, and must not be root. Raises Fail(4) when it cannot."""
        folders = {}
        for name in ("kit", "submission", "out"):
            folders[name] = os.path.join(scratch, "probe", name)
            os.makedirs(folders[name])
        points = os.path.join(scratch, "probe", "points.conf")
        with open(points, "w") as file:
            file.write("# probe\n")
        with open(os.path.join(folders["submission"], "probe.cu"), "w") as file:
            file.write("probe\n")
        self.hand_over(folders["kit"], uid)
        self.hand_over(folders["out"], uid)
        for path in (points, os.path.join(folders["submission"], "probe.cu")):
            os.chmod(path, 0o444)
        script = ("test \"$(id -u)\" != 0 && id -u >/out/uid && : >/kit/probe && "
                  "test -r /submission/probe.cu && test -r /grading/points.conf && "
                  "test ! -e /root/. && test ! -e /home/. && "
                  "test ! -e " + sh_quote(ROOT + "/solutions") + " && test ! -e " + sh_quote(ROOT + "/grade-class"))
        command = self.command(folders["kit"], folders["submission"], folders["out"], points, 60,
                               ["/bin/sh", "-c", script], uid)
        result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=sandbox_environment(None, None))
        output = result.stdout.decode("utf-8", "replace").strip().replace("\n", "; ")
        if result.returncode != 0:
            if "bwrap" in output or "setpriv" in output or "prlimit" in output or not output:
                need = ("" if self.as_root else " and allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0), or run as root")
                raise Fail(EXIT_MACHINE, f"the sandbox does not start here ({output[:300] or 'exit %d' % result.returncode}): install Debian's bubblewrap package (apt-get install bubblewrap){need}; grade-class grades no submission outside its sandbox")
            raise Fail(EXIT_MACHINE, f"the sandbox started but could not use its folders under {scratch} (TMPDIR must be a folder that the grading's user can reach): {output[:300]}")
        shutil.rmtree(os.path.join(scratch, "probe"), ignore_errors=True)

    def hand_over(self, path, uid, recursive=False):
        """Makes a folder the sandbox's to write: its user's when run as root."""
        if not self.as_root:
            return
        if recursive:
            subprocess.run(["chown", "-R", "-h", f"{uid}:{uid}", "--", path], check=True)
        else:
            os.chown(path, uid, uid)


def reachable_parents(path):
    """bwrap options that make the folders above a bind's target reachable by the sandbox's
    user (bwrap as root makes them 0700)."""
    args, parent = [], os.path.dirname(path)
    ancestors = []
    while parent not in ("/", ""):
        ancestors.append(parent)
        parent = os.path.dirname(parent)
    for folder in reversed(ancestors):
        args += ["--perms", "0755", "--dir", folder]
    return args


def sh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def sandbox_environment(gpu, cuda_arch):
    """The whole environment of a sandbox: nothing of the instructor's but where CUDA and
    Criterion are."""
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    path = [f"{cuda_home}/bin", "/usr/local/nvidia/bin", "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"PATH": ":".join(path), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "TERM": "dumb"}
    for name in ("CUDA_HOME", "CRITERION_PREFIX", "LD_LIBRARY_PATH"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    if cuda_arch:
        env["CUDA_ARCH"] = cuda_arch
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    return env


# ---------------------------------------------------------------------------------------------
# The kit a submission is graded in

def make(folder, targets, log, jobs=None, cuda_arch=None):
    command = ["make", "-s", "--no-print-directory", "-C", folder]
    if jobs:
        command.append(f"-j{jobs}")
    if cuda_arch:
        command.append(f"CUDA_ARCH={cuda_arch}")
    with open(log, "ab") as file:
        return subprocess.run(command + targets, stdin=subprocess.DEVNULL, stdout=file,
                              stderr=subprocess.STDOUT).returncode == 0


def log_tail(log, lines=15):
    try:
        with open(log, "rb") as file:
            text = file.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def dist_exclusions():
    """The paths that make dist leaves out of the student tarball, read from make-dist.sh so
    that the two never disagree."""
    try:
        with open(os.path.join(ROOT, "grader", "make-dist.sh"), encoding="utf-8") as file:
            script = file.read()
    except OSError as error:
        raise Fail(EXIT_MACHINE, f"cannot read grader/make-dist.sh: {error.strerror}")
    match = re.search(r"grep -z -v -E '([^']+)'", script)
    if not match:
        raise Fail(EXIT_MACHINE, "grader/make-dist.sh no longer has its list of excluded paths (grep -z -v -E '...'): grade-class reads it from there")
    return re.compile(match.group(1))


def prepare_kit(o, folder, scratch, log):
    """The kit a submission is graded in, as make dist makes it, with the lab built for
    --cuda-arch, in folder/kit, and the points file beside it. Returns the kit's hash and the
    architectures it was built for."""
    kit = os.path.join(folder, "kit")
    os.makedirs(kit)
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "-z"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if listed.returncode != 0:
        raise Fail(EXIT_MACHINE, "grade-class runs from the kit's git repository (it makes the graded kit as make dist does, from what git tracks), and this copy is not one")
    excluded = dist_exclusions()
    solutions = {}
    for place, _, files in os.walk(os.path.join(ROOT, "solutions")):
        for name in files:
            with open(os.path.join(place, name), "rb") as file:
                solutions[file.read()] = name
    kit_hash = hashlib.sha256()
    for raw in sorted(listed.stdout.split(b"\0")):
        if not raw:
            continue
        name = raw.decode("utf-8", "surrogateescape")
        if excluded.search(name):
            continue
        source, target = os.path.join(ROOT, name), os.path.join(kit, name)
        if os.path.islink(source):
            continue  # make dist copies files only; a link could lead anywhere
        if not os.path.isfile(source):
            continue
        with open(source, "rb") as file:
            data = file.read()
        if data in solutions:
            raise Fail(EXIT_MACHINE, f"'{name}' is a copy of a solution ({solutions[data]}): the graded kit must hold none")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
        kit_hash.update(raw + b"\0" + hashlib.sha256(data).digest())
    for need in ("Makefile", "grade", f"grader/{o.lab}/lab.conf"):
        if not os.path.exists(os.path.join(kit, need)):
            raise Fail(EXIT_MACHINE, f"the graded kit has no {need}: is it tracked by git (git add)? make dist copies what git tracks")

    # The results model first: it checks the points file.
    if not make(kit, ["build/results/results"], log, cuda_arch=o.cuda_arch):
        raise Fail(EXIT_MACHINE, f"the kit's results model does not build here:\n{log_tail(log)}")
    results = os.path.join(kit, "build", "results", "results")
    check = subprocess.run([results, "check-points", o.points], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    if check.returncode != 0:
        why = check.stdout.decode("utf-8", "replace").strip().splitlines()
        raise Fail(EXIT_USAGE, f"--points '{o.points}': {why[0] if why else 'rejected by the results model'}")

    # The references, compiled in a scratch copy of the kit with the solutions, as make dist
    # does; only the ones this lab's grader links.
    with open(os.path.join(kit, "grader", o.lab, "lab.conf"), encoding="utf-8") as file:
        conf = file.read()
    match = re.search(r"^references *= *(.*)$", conf, re.M)
    references = match.group(1).split() if match else []
    jobs = str(os.cpu_count() or 4)
    if references:
        build = os.path.join(scratch, "reference-build")
        os.makedirs(build)
        for part in ("Makefile", "common", "grader", "labs", "solutions"):
            source = os.path.join(ROOT, part)
            if os.path.isdir(source):
                shutil.copytree(source, os.path.join(build, part), symlinks=True)
            else:
                shutil.copy2(source, os.path.join(build, part))
        if not make(build, [f"build/reference/{r}.o" for r in references], log, jobs, o.cuda_arch):
            raise Fail(EXIT_MACHINE, f"the references of {o.lab} do not build here:\n{log_tail(log)}")
        prebuilt = os.path.join(kit, "prebuilt", "reference")
        os.makedirs(prebuilt, exist_ok=True)
        for reference in references:
            shutil.copy2(os.path.join(build, "build", "reference", f"{reference}.o"), prebuilt)
        shutil.rmtree(build)
    if not make(kit, [o.short, f"build/listing/{o.lab}/tests.records", "build/results/results"],
                log, jobs, o.cuda_arch):
        raise Fail(EXIT_MACHINE, f"the kit does not build {o.lab} here (the kit's own code, no submission yet):\n{log_tail(log)}")
    try:
        with open(os.path.join(kit, "build", "cuda-arch"), encoding="utf-8") as file:
            cuda_arch = file.read().strip()
    except OSError:
        cuda_arch = None
    # Each grading checks again that its machine has Criterion (a node may lack what the
    # preparing machine had): the check is not carried over.
    for cached in ("criterion.ok",):
        try:
            os.unlink(os.path.join(kit, "build", cached))
        except FileNotFoundError:
            pass
    points = os.path.join(folder, "points.conf")
    shutil.copyfile(o.points, points)
    os.chmod(points, 0o444)
    # Readable by the sandboxes' users; each grading gets its own writable copy.
    subprocess.run(["chmod", "-R", "a+rX,go-w", folder], check=True)
    return kit_hash.hexdigest(), cuda_arch


# ---------------------------------------------------------------------------------------------
# The run

def prepare_run(o, tasks):
    """A new run in --out: its roster, id, seed and options in run.json, its kit built in
    OUT/kit/<run>/. An older run's kit goes; its students' lines stay until graded again, and
    no longer count."""
    if not os.path.isfile(o.points):
        raise Fail(EXIT_USAGE, f"--points: no file '{o.points}'")
    roster = read_roster(o)
    run_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(4)
    seed = o.seed if o.seed is not None else int.from_bytes(secrets.token_bytes(8), "big")
    logs = os.path.join(o.out, "logs")
    folder = os.path.join(o.out, "kit", run_id)
    os.makedirs(logs, exist_ok=True)
    os.makedirs(folder)
    log = os.path.join(logs, f"prepare-{run_id}.log")
    say(f"{o.lab}: run {run_id}, {len(roster)} roster entries; building the graded kit (as make dist, for CUDA_ARCH {o.cuda_arch or 'of this machine'}) in {folder}; log: {log}")
    scratch = tempfile.mkdtemp(prefix="grade-class-prepare-")
    try:
        kit_hash, cuda_arch = prepare_kit(o, folder, scratch, log)
    except BaseException:
        Grader.remove(folder)
        raise
    finally:
        Grader.remove(scratch)
    run = {
        "tool": "grade-class", "format": RUN_FORMAT, "run": run_id, "lab": o.lab,
        "submissions": o.submissions,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "options": {"points": os.path.realpath(o.points), "seed": seed, "runs": o.runs,
                    "no_timing": o.no_timing, "student_timeout": o.student_timeout,
                    "tasks": tasks},
        "kit": {"folder": os.path.join("kit", run_id), "sha256": kit_hash, "cuda_arch": cuda_arch},
        "roster": [{"index": e.index, "name": e.name, "id": e.id, "kind": e.kind,
                    "bytes": e.raw.hex()} for e in roster],
    }
    earlier = read_run(o.out)
    if earlier:
        say(f"{o.out} held the run {earlier.get('run')}; this run replaces it (its students' lines no longer count)")
    write_atomically(os.path.join(o.out, "run.json"),
                     (json.dumps(run, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    for name in os.listdir(os.path.join(o.out, "kit")):
        if name != run_id:
            Grader.remove(os.path.join(o.out, "kit", name))
    return run


def prepared_of(o, run):
    """The paths a task grades with, from the run's kit in --out."""
    folder = os.path.join(o.out, run["kit"]["folder"])
    prepared = Options()
    prepared.kit = os.path.join(folder, "kit")
    prepared.points = os.path.join(folder, "points.conf")
    prepared.results = os.path.join(prepared.kit, "build", "results", "results")
    prepared.listing = os.path.join(prepared.kit, "build", "listing", run["lab"], "tests.records")
    prepared.cuda_arch = run["kit"]["cuda_arch"]
    for path in (prepared.results, prepared.listing, prepared.points):
        if not os.path.isfile(path):
            raise Fail(EXIT_MACHINE, f"the run's kit is incomplete here ({path} is missing): is --out on a file system this machine sees? Start a new run to rebuild it")
    return prepared


def roster_of(run):
    roster = []
    for item in run["roster"]:
        entry = Entry()
        entry.index, entry.id, entry.name, entry.kind = item["index"], item["id"], item["name"], item["kind"]
        entry.raw = bytes.fromhex(item["bytes"])
        roster.append(entry)
    return roster


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


# ---------------------------------------------------------------------------------------------
# Grading one roster entry

class Grader:
    def __init__(self, o, run, prepared, sandbox, scratch, gpus, task, concurrency):
        self.o, self.run, self.prepared, self.sandbox = o, run, prepared, sandbox
        self.scratch = scratch
        self.task = task
        # One sandbox user a grading running at once (see SANDBOX_UID_BASE).
        self.uids = queue.Queue()
        for slot in range(concurrency):
            self.uids.put(SANDBOX_UID_BASE + slot)
        self.machine_checked = None
        self.machine_lock = threading.Lock()
        self.gpus = None
        if gpus:
            self.gpus = queue.Queue()
            for gpu in gpus:
                self.gpus.put(gpu)
        self.processes = set()
        self.lock = threading.Lock()
        self.stopping = False
        self.max_score = self.no_file_max()

    def no_file_max(self):
        with tempfile.TemporaryDirectory(dir=self.scratch) as folder:
            summary = os.path.join(folder, "summary.json")
            subprocess.run([self.prepared.results, "grade", "--lab", self.o.lab, "--points",
                            self.prepared.points, "--records", self.prepared.listing, "--no-file",
                            "none", "--summary", summary], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            try:
                with open(summary, encoding="utf-8") as file:
                    return json.load(file)["max_score"]
            except (OSError, ValueError, KeyError):
                raise Fail(EXIT_MACHINE, "the results model wrote no summary for a missing file")

    def stop(self):
        with self.lock:
            self.stopping = True
            processes = list(self.processes)
        for process in processes:
            try:
                process.send_signal(signal.SIGTERM)  # timeout passes it on, then kills
            except OSError:
                pass

    # -- one entry

    def grade(self, entry):
        if self.stopping:  # before anything of an earlier grading of it is removed
            raise Interrupted()
        started = time.monotonic()
        folder = os.path.join(self.o.out, "students", entry.id)
        os.makedirs(os.path.join(self.o.out, "students"), exist_ok=True)
        try:
            os.mkdir(folder)
        except FileExistsError:
            pass
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            say(f"{entry.id}: cannot grade: {folder} is not a folder")
            return None
        for name in STUDENT_FILES:
            try:
                os.unlink(os.path.join(folder, name))
            except FileNotFoundError:
                pass
        line = self.line(entry)
        if entry.kind != "folder":
            why = {"link": "a symbolic link, not a folder", "file": "a file, not a folder",
                   "gone": "gone from --submissions during the run"}.get(entry.kind, f"a {entry.kind}, not a folder")
            line.update(verdict="not a folder", score=0,
                        problems=[f"{why}: each student hands in a folder holding {self.o.short}.cu"])
            self.write_text(folder, "report.txt", f"grade-class: {entry.name!s}: {line['problems'][0]}\n")
        else:
            state, value = self.fetch(entry)
            if state == "file":
                self.grade_in_sandbox(entry, value, folder, line)
            elif state == "no file":
                self.no_file(entry, value, folder, line)
            else:
                line.update(verdict="not graded", problems=[value])
        line["seconds"] = round(time.monotonic() - started, 1)
        data = (json.dumps(line, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
        write_atomically(os.path.join(folder, "line.json"), data)
        return line

    def line(self, entry):
        return {"name": entry.name, "id": entry.id, "verdict": None, "tests_passed": None,
                "tests_failed": None, "tests_not_run": None, "time_ratio": None, "score": None,
                "max_score": self.max_score, "problems": [],
                "task": self.task, "run": self.run["run"]}

    @staticmethod
    def write_text(folder, name, text):
        with open(os.path.join(folder, name), "w", encoding="utf-8", errors="replace") as file:
            file.write(text)

    def fetch(self, entry):
        """The submission's labN.cu, read without following any link: ("file", bytes),
        ("no file", why) or ("not graded", why)."""
        short = self.o.short
        wanted = f"{short}.cu".encode()
        path = os.path.join(os.fsencode(self.o.submissions), entry.raw)
        try:
            folder = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as error:
            return "not graded", f"cannot open the folder: {error.strerror}"
        try:
            try:
                st = os.stat(wanted, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                return "no file", self.missing(folder)
            if stat.S_ISLNK(st.st_mode):
                return "no file", f"{short}.cu is a symbolic link: hand in the file itself"
            if not stat.S_ISREG(st.st_mode):
                return "no file", f"{short}.cu is not a regular file (a {kind_of(st.st_mode)})"
            try:
                fd = os.open(wanted, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                             dir_fd=folder)
            except OSError as error:
                if error.errno == errno.ELOOP:
                    return "no file", f"{short}.cu is a symbolic link: hand in the file itself"
                return "not graded", f"cannot read {short}.cu: {error.strerror}"
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return "no file", f"{short}.cu is not a regular file"
                chunks, size = [], 0
                while size <= FILE_CAP:
                    chunk = os.read(fd, FILE_CAP + 1 - size)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
            finally:
                os.close(fd)
            if size > FILE_CAP:
                return "no file", f"{short}.cu is larger than 1 MiB"
            return "file", b"".join(chunks)
        finally:
            os.close(folder)

    def missing(self, folder):
        short = self.o.short
        try:
            names = sorted(os.fsencode(n) for n in os.listdir(folder))
        except OSError as error:
            return f"no {short}.cu in the folder (cannot list it: {error.strerror})"
        sources = [n for n in names if n.lower().endswith(b".cu")]
        if len(sources) == 1:
            return f"found {escape_name(sources[0], one_line=True)}; rename it to {short}.cu"
        if not names:
            return f"no {short}.cu: the folder is empty"
        shown = ", ".join(escape_name(n, one_line=True) for n in names[:5])
        more = f" (and {len(names) - 5} more)" if len(names) > 5 else ""
        return f"no {short}.cu in the folder; it holds: {shown}{more}"

    def no_file(self, entry, why, folder, line):
        """A folder without a gradable file: the results model still writes every report."""
        reports = ["--summary", os.path.join(folder, "summary.json"),
                   "--json", os.path.join(folder, "results.json"),
                   "--tap", os.path.join(folder, "tests.tap"),
                   "--xml", os.path.join(folder, "tests.xml")]
        result = subprocess.run([self.prepared.results, "grade", "--lab", self.o.lab, "--points",
                                 self.prepared.points, "--records", self.prepared.listing, "--no-file",
                                 why, "--student", entry.id, "--seed", str(self.run["options"]["seed"]),
                                 *reports], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        with open(os.path.join(folder, "report.txt"), "wb") as file:
            file.write(f"grade-class: {why}\n".encode("utf-8", "replace") + result.stdout[:REPORT_CAP])
        summary, problem = self.read_summary(os.path.join(folder, "summary.json"))
        if summary is None:
            line.update(verdict="not graded", problems=[f"the results model wrote no summary: {problem}"])
        else:
            self.take_summary(line, summary)

    # -- the sandbox

    def grade_in_sandbox(self, entry, source, folder, line):
        uid = self.uids.get()
        try:
            self.grade_as(uid, source, folder, line)
        finally:
            self.uids.put(uid)
        if line["verdict"] == "grading machine broken" or line.get("exit") == 4:
            self.check_machine(line)

    def check_machine(self, line):
        """A grading said this machine cannot grade: grade the lab's untouched skeleton to see
        whether the machine or the submission is at fault (a submission could fake the
        former). Raises MachineBroken when the skeleton cannot be graded either."""
        with self.machine_lock:  # not self.lock: run_sandbox takes that one
            if self.machine_checked is None:
                skeleton = os.path.join(self.prepared.kit, "labs", self.o.lab, f"{self.o.short}.cu")
                with open(skeleton, "rb") as file:
                    source = file.read()
                probe = {"verdict": None, "problems": []}
                folder = tempfile.mkdtemp(prefix="machine-check-", dir=self.scratch)
                uid = self.uids.get()
                try:
                    say(f"a grading says this machine cannot grade ({'; '.join(line['problems'])[:200]}): grading the lab's skeleton to check")
                    self.grade_as(uid, source, folder, probe, no_timing=True)
                finally:
                    self.uids.put(uid)
                    self.remove(folder)
                broken = probe["verdict"] in ("grading machine broken", "not graded") or probe.get("exit") == 4
                self.machine_checked = "; ".join(probe["problems"])[:500] if broken else ""
            why = self.machine_checked
        if why:
            raise MachineBroken(why or "the kit's skeleton cannot be graded here")
        line["problems"].append("this machine graded the lab's skeleton: the fault is the submission's")

    def grade_as(self, uid, source, folder, line, no_timing=False):
        o = self.o
        work = tempfile.mkdtemp(prefix="student-", dir=self.scratch)
        os.chmod(work, 0o711)
        try:
            kit = os.path.join(work, "kit")
            submission = os.path.join(work, "submission")
            out = os.path.join(work, "out")
            subprocess.run(["cp", "-a", "--", self.prepared.kit, kit], check=True)
            os.mkdir(submission, 0o755)
            os.chmod(submission, 0o755)
            with open(os.path.join(submission, f"{o.short}.cu"), "wb") as file:
                file.write(source)
            # Read-only by its bind; its mode stays writable for the copy ./grade makes of it,
            # which a second ./grade (the grading after the build step) overwrites.
            os.chmod(os.path.join(submission, f"{o.short}.cu"), 0o644)
            os.mkdir(out)
            os.chmod(out, 0o755)
            self.sandbox.hand_over(kit, uid, recursive=True)
            self.sandbox.hand_over(out, uid)
            seed = str(self.run["options"]["seed"])
            grade = ["/kit/grade", o.short, "--file", f"/submission/{o.short}.cu", "--seed", seed,
                     "--points", "/grading/points.conf"]
            budget = float(o.student_timeout)
            gpu = None
            problems = []
            if self.gpus is not None:
                # Two steps: the build (CPU only, no GPU visible) while other gradings hold the
                # GPUs, then the grading itself on a GPU of its own; make finds the build done.
                started = time.monotonic()
                status, timed_out, _ = self.run_sandbox(
                    kit, submission, out, max(1, int(budget)), None, uid,
                    grade + ["--no-timing", "--filter", BUILD_ONLY_FILTER],
                    os.path.join(folder, "build.txt"), problems, "build.txt")
                budget -= time.monotonic() - started
                for name in os.listdir(out):  # the build step's reports are not the grading's
                    self.remove(os.path.join(out, name))
                if timed_out or budget < 1:
                    self.write_text(folder, "report.txt", f"grade-class: grading stopped after {o.student_timeout} s (--student-timeout) while building: build.txt has what the build printed\n")
                    line.update(verdict="timed out", score=0,
                                problems=[f"grading stopped after {o.student_timeout} s (while building)"] + problems)
                    return
                gpu = self.gpus.get()
            try:
                argv = grade + ["--summary", "/out/summary.json", "--json", "/out/results.json",
                                "--tap", "/out/tests.tap", "--xml", "/out/tests.xml",
                                "--runs", str(o.runs)]
                if no_timing or o.no_timing:
                    argv.append("--no-timing")
                status, timed_out, tail = self.run_sandbox(
                    kit, submission, out, max(1, int(budget)), gpu, uid, argv,
                    os.path.join(folder, "report.txt"), problems, "report.txt")
            finally:
                if gpu is not None:
                    self.gpus.put(gpu)
            line["exit"] = status
            if timed_out:
                with open(os.path.join(folder, "report.txt"), "ab") as file:
                    file.write(f"grade-class: grading stopped after {o.student_timeout} s (--student-timeout)\n".encode())
                line.update(verdict="timed out", score=0,
                            problems=[f"grading stopped after {o.student_timeout} s"] + problems)
                return
            for name, cap in REPORT_FILES.items():
                problem = self.bring_back(os.path.join(out, name), os.path.join(folder, name), cap)
                if problem:
                    problems.append(problem)
            summary, problem = self.read_summary(os.path.join(folder, "summary.json"))
            if summary is None:
                why = f"the grading ended (exit {status}) without a summary.json"
                if problem and "No such file" not in problem:
                    why += f" ({problem})"
                if tail:
                    why += f"; its last line: {tail}"
                line.update(verdict="not graded", problems=[why] + problems)
                return
            self.take_summary(line, summary)
            if summary.get("exit_code") != status:
                problems.append(f"./grade exited {status}, its summary says {summary.get('exit_code')}")
            line["problems"] += problems
        finally:
            self.remove(work)

    def run_sandbox(self, kit, submission, out, seconds, gpu, uid, argv, report, problems, what):
        """Runs ./grade in a sandbox, its output into report (cut at REPORT_CAP). Returns (exit
        status, whether the time limit stopped it, its last line of output)."""
        command = self.sandbox.command(kit, submission, out, self.prepared.points, seconds, argv, uid)
        env = sandbox_environment("" if gpu is None and self.gpus is not None else gpu,
                                  self.prepared.cuda_arch)
        started = time.monotonic()
        with self.lock:
            if self.stopping:
                raise Interrupted()
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, env=env, close_fds=True)
            self.processes.add(process)
        kept = total = 0
        last = b""
        try:
            with open(report, "wb") as file:
                while True:
                    chunk = os.read(process.stdout.fileno(), 1 << 16)
                    if not chunk:
                        break
                    total += len(chunk)
                    last = (last + chunk)[-4096:]
                    if kept < REPORT_CAP:
                        part = chunk[:REPORT_CAP - kept]
                        file.write(part)
                        kept += len(part)
                        if kept == REPORT_CAP:
                            file.write((b"" if part.endswith(b"\n") else b"\n") + REPORT_MARK)
                status = process.wait()
        finally:
            process.stdout.close()
            with self.lock:
                self.processes.discard(process)
        elapsed = time.monotonic() - started
        if self.stopping:  # stopped by grade-class itself: no verdict, no line
            raise Interrupted()
        if total > REPORT_CAP:
            problems.append(f"{what} cut at 1 MiB (the grading printed {total / (1 << 20):.1f} MiB)")
        timed_out = status in (124, 137) and elapsed >= seconds - 1
        lines = [l for l in last.decode("utf-8", "replace").splitlines() if l.strip()]
        tail = escape_name(lines[-1][:200].encode("utf-8", "surrogateescape"), one_line=True) if lines else ""
        return status, timed_out, tail

    @staticmethod
    def bring_back(source, target, cap):
        """Copies a report the grading wrote, if it is a regular file (never through a link)."""
        try:
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as error:
            return f"{os.path.basename(source)}: {error.strerror} (not kept)"
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return f"{os.path.basename(source)} is not a regular file (not kept)"
            data = b""
            while len(data) <= cap:
                chunk = os.read(fd, cap + 1 - len(data))
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(fd)
        if len(data) > cap:
            return f"{os.path.basename(source)} is larger than {cap >> 20} MiB (not kept)"
        with open(target, "wb") as file:
            file.write(data)
        return None

    def read_summary(self, path):
        """The summary.json of a grading, checked against this run. (summary, None) or (None,
        why)."""
        try:
            with open(path, "rb") as file:
                summary = json.loads(file.read(REPORT_FILES["summary.json"] + 1).decode("utf-8"))
        except OSError as error:
            return None, error.strerror
        except ValueError as error:
            return None, f"summary.json is not JSON: {error}"
        ints = ("tests_passed", "tests_failed", "tests_not_run", "exit_code")
        numbers = ("score", "max_score")
        if not (isinstance(summary, dict) and summary.get("verdict") in VERDICTS
                and summary.get("lab") == self.o.lab
                and summary.get("seed") == self.run["options"]["seed"]
                and all(type(summary.get(k)) is int and 0 <= summary[k] < 1 << 20 for k in ints)
                and all(type(summary.get(k)) in (int, float) and 0 <= summary[k] < 1e9 for k in numbers)
                and (summary.get("time_ratio") is None or (type(summary["time_ratio"]) in (int, float) and summary["time_ratio"] > 0))
                and isinstance(summary.get("problems"), list)
                and all(isinstance(p, str) for p in summary["problems"])):
            return None, "summary.json does not match this grading (lab, seed or fields)"
        return summary, None

    @staticmethod
    def take_summary(line, summary):
        line.update(verdict=summary["verdict"], tests_passed=summary["tests_passed"],
                    tests_failed=summary["tests_failed"], tests_not_run=summary["tests_not_run"],
                    time_ratio=summary["time_ratio"], score=summary["score"],
                    max_score=summary["max_score"],
                    problems=[p[:1000] for p in summary["problems"][:100]])

    @staticmethod
    def remove(path):
        def retry(function, name, _):
            try:
                os.chmod(os.path.dirname(name), 0o700)
                if os.path.isdir(name) and not os.path.islink(name):
                    os.chmod(name, 0o700)
                function(name)
            except OSError:
                pass
        if os.path.isdir(path) and not os.path.islink(path):
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=retry)
            else:
                shutil.rmtree(path, onerror=retry)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------
# The class table

def read_line(out, identifier):
    try:
        with open(os.path.join(out, "students", identifier, "line.json"), "rb") as file:
            line = json.loads(file.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return line if isinstance(line, dict) else None


def number(value, digits=None):
    if value is None:
        return ""
    if digits is not None:
        return f"{value:.{digits}f}"
    # Points are in cents: never rounded further, never in exponent notation.
    return f"{value:.2f}".rstrip("0").rstrip(".")


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
        return f"task {task} was stopped by signal {state.get('signal')} on {state.get('host')}{on_slurm}: cancelled or out of time"
    if what == "machine":
        return f"task {task}: its machine ({state.get('host')}) cannot grade: {state.get('why')}"
    return f"task {task} {what} without a line for this entry, on {state.get('host')}{on_slurm}: see logs/"


def slurm_job_of_task(out, run, task):
    try:
        with open(os.path.join(out, "slurm.json"), encoding="utf-8") as file:
            slurm = json.load(file)
    except (OSError, ValueError):
        return None
    if not isinstance(slurm, dict) or slurm.get("run") != run["run"]:
        return None
    return (slurm.get("tasks") or {}).get(str(task))


def slurm_state(job):
    """A Slurm job's state (TIMEOUT, CANCELLED, FAILED, ...), while Slurm remembers it."""
    scontrol = shutil.which("scontrol")
    if not scontrol or not re.fullmatch(r"[0-9]+(_[0-9]+)?", job):
        return None
    try:
        result = subprocess.run([scontrol, "show", "job", "--oneliner", job], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    state = re.search(rb"\bJobState=(\S+)", result.stdout)
    reason = re.search(rb"\bReason=(\S+)", result.stdout)
    if not state:
        return None
    text = state.group(1).decode()
    if reason and reason.group(1) not in (b"None",):
        text += f", {reason.group(1).decode()}"
    return text


def merge(o, run):
    tasks = run["options"]["tasks"]
    rows, missing, not_graded = [], [], 0
    slurm_states = {}
    for entry in run["roster"]:
        line = read_line(o.out, entry["id"])
        if line is None or line.get("run") != run["run"] or line.get("id") != entry["id"]:
            missing.append(entry)
            line = {"verdict": "not graded",
                    "problems": [why_not_graded(o, run, entry["index"] % tasks, slurm_states)]}
        if line.get("verdict") == "not graded":
            not_graded += 1
        problems = line.get("problems") or []
        rows.append([entry["name"], entry["id"], str(line.get("verdict")),
                     number(line.get("tests_passed")), number(line.get("tests_failed")),
                     number(line.get("time_ratio"), 3), number(line.get("score")),
                     number(line.get("max_score")), "; ".join(str(p) for p in problems)])
    header = ["name", "id", "verdict", "tests passed", "tests failed", "time / reference",
              "points", "max points", "problems"]
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    write_atomically(os.path.join(o.out, "class.csv"), text.getvalue().encode("utf-8"))

    md = [f"# {run['lab']}: the class table", "",
          f"Run `{run['run']}` (prepared {run['created']}), seed {run['options']['seed']}, "
          f"{'correctness only' if run['options']['no_timing'] else 'timed'}, "
          f"{len(rows)} roster entries. Names as handed in (escaped); the id is the student's folder under `students/`.", "",
          "| name | id | verdict | passed | failed | time / reference | points | problems |",
          "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        problems = row[8] if len(row[8]) <= 300 else row[8][:297] + "..."
        points = f"{row[6]} / {row[7]}" if row[6] else (f"- / {row[7]}" if row[7] else "")
        md.append(f"| {markdown(row[0])} | `{row[1]}` | {markdown(row[2])} | {row[3]} | {row[4]} | "
                  f"{row[5]} | {points} | {markdown(problems)} |")
    write_atomically(os.path.join(o.out, "class.md"), ("\n".join(md) + "\n").encode("utf-8"))

    graded = len(rows) - not_graded
    say(f"class table: {os.path.join(o.out, 'class.csv')} ({len(rows)} students, {graded} graded, {not_graded} not graded)")
    if missing:
        shown = ", ".join(e["id"] for e in missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        print(f"grade-class: incomplete: no line of run {run['run']} for {len(missing)} of {len(rows)}: {shown}", file=sys.stderr)
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


# ---------------------------------------------------------------------------------------------

def detect_gpus(o):
    if o.gpus is not None:
        return o.gpus
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        gpus = [g.strip() for g in visible.split(",") if g.strip()]
        return [] if not gpus or gpus[0] in ("-1", "NoDevFiles") else gpus
    try:
        result = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if result.returncode != 0:
        return []
    return [g.strip() for g in result.stdout.decode().splitlines() if re.fullmatch(r"[0-9]+", g.strip())]


def take_run(o):
    """The run in --out, for --task, --merge and --slurm-rerun: its lab and options become o's."""
    run = read_run(o.out)
    if o.lab and o.lab != run["lab"]:
        raise Fail(EXIT_USAGE, f"--out holds a run of {run['lab']}, not of {o.lab}")
    o.lab, o.short = run["lab"], run["lab"].split("-")[0]
    o.submissions = run["submissions"]
    options = run["options"]
    o.seed, o.runs, o.no_timing = options["seed"], options["runs"], options["no_timing"]
    o.student_timeout = options["student_timeout"]
    if o.task is not None and o.task >= options["tasks"]:
        raise Fail(EXIT_USAGE, f"the run has {options['tasks']} tasks (0 to {options['tasks'] - 1}), not task {o.task}")
    return run


def grade_task(o, run, task):
    """Grades the roster entries of one task of the run, on this machine."""
    prepared = prepared_of(o, run)
    sandbox = Sandbox()
    gpus = detect_gpus(o)
    tasks = run["options"]["tasks"]
    mine = [e for e in roster_of(run) if e.index % tasks == task]
    concurrency = min(o.jobs, len(mine)) or 1
    scratch = tempfile.mkdtemp(prefix="grade-class-")
    os.chmod(scratch, 0o711)
    grader = None
    interrupted = []

    def on_signal(number, _frame):
        interrupted.append(number)
        raise Interrupted()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        write_task_state(o.out, run, task, "running", entries=len(mine))
        sandbox.probe(scratch, SANDBOX_UID_BASE)
        say(f"run {run['run']}, task {task} of {tasks}: {len(mine)} roster entries, {concurrency} at a time"
            + (f", tests on GPU {','.join(gpus)} one at a time each" if gpus else ", no GPU"))
        grader = Grader(o, run, prepared, sandbox, scratch, gpus, task, concurrency)
        done = graded = 0
        broken = None
        with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
            futures = {pool.submit(grader.grade, entry): entry for entry in mine}
            try:
                pending = set(futures)
                while pending:
                    finished, pending = concurrent.futures.wait(pending, timeout=1.0,
                                                                return_when=concurrent.futures.FIRST_COMPLETED)
                    for future in finished:
                        entry = futures[future]
                        done += 1
                        try:
                            line = future.result()
                        except (Interrupted, concurrent.futures.CancelledError):
                            continue
                        except MachineBroken as error:
                            if broken is None:
                                broken = str(error)
                                grader.stop()
                                for waiting in futures:
                                    waiting.cancel()
                            continue
                        except Exception as error:  # a bug or a full disk: this entry has no line
                            say(f"[{done}/{len(mine)}] {entry.id}: no line ({type(error).__name__}: {error})")
                            continue
                        if line is None:
                            continue
                        graded += 1
                        first = line["problems"][0] if line["problems"] else ""
                        say(f"[{done}/{len(mine)}] {entry.id}: {line['verdict']}"
                            + (f" ({first[:100]})" if first and line["verdict"] not in ("passed",) else "")
                            + f" [{line['seconds']:.0f} s]")
            except Interrupted:
                grader.stop()
                for future in futures:
                    future.cancel()
                raise
        if broken is not None:
            write_task_state(o.out, run, task, "machine", why=broken, graded=graded)
            raise TaskRecorded(EXIT_MACHINE, f"this machine cannot grade (the lab's skeleton cannot be graded either): {broken}")
        write_task_state(o.out, run, task, "finished", graded=graded)
        say(f"task {task}: {graded} of {len(mine)} entries graded")
        return EXIT_COMPLETE if graded == len(mine) else EXIT_INCOMPLETE
    except Fail as failure:
        if failure.status == EXIT_MACHINE and not isinstance(failure, TaskRecorded):
            write_task_state(o.out, run, task, "machine", why=str(failure)[:500])
        raise
    except Interrupted:
        if grader:
            grader.stop()
        number = interrupted[0] if interrupted else 0
        write_task_state(o.out, run, task, "stopped", signal=number)
        print(f"grade-class: stopped by signal {number or '?'}: the gradings in progress were stopped; grade the task again to finish", file=sys.stderr)
        return EXIT_INCOMPLETE
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        Grader.remove(scratch)


# ---------------------------------------------------------------------------------------------
# Slurm

def sbatch(arguments):
    """Submits one job; returns its id."""
    try:
        result = subprocess.run(["sbatch", "--parsable", *arguments], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    except FileNotFoundError:
        raise Fail(EXIT_MACHINE, "sbatch is not on PATH: --slurm submits through Slurm")
    except subprocess.TimeoutExpired:
        raise Fail(EXIT_MACHINE, "sbatch did not answer within 300 s")
    if result.returncode != 0:
        why = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Fail(EXIT_MACHINE, f"sbatch refused the job: {why[-1] if why else 'exit %d' % result.returncode}")
    job = result.stdout.decode().strip().split(";")[0]
    if not re.fullmatch(r"[0-9]+", job):
        raise Fail(EXIT_MACHINE, f"sbatch answered '{job[:100]}', not a job id")
    return job


def task_minutes(run):
    """A task's time limit: the worst case of its slice (every entry graded to its own time
    limit, plus its build step and copies), so that hanging submissions never cut a slice."""
    entries = len(run["roster"])
    per_task = -(-entries // run["options"]["tasks"])
    seconds = per_task * (run["options"]["student_timeout"] + 120) + 600
    return -(-seconds // 60)


def submit(o, run, tasks, slurm):
    """Submits tasks (task numbers) of the run as one job array, then a merge job that runs
    after it has ended; records the jobs in OUT/slurm.json."""
    logs = os.path.join(o.out, "logs")
    os.makedirs(logs, exist_ok=True)
    common = [f"--chdir={ROOT}", *slurm["sbatch"]]
    gres = [f"--gres=gpu:{slurm['gpus_per_task']}"] if slurm["gpus_per_task"] else []
    array = sbatch([f"--array={','.join(str(t) for t in tasks)}", f"--job-name=grade-{run['lab'].split('-')[0]}",
                    f"--time={task_minutes(run)}", *gres,
                    f"--output={logs}/{run['run']}-task-%a-job-%A.out", *common,
                    os.path.join(ROOT, "grader", "cluster", "grade-class.sbatch"), ROOT, o.out])
    merge_job = sbatch([f"--dependency=afterany:{array}", "--job-name=merge-class", "--time=30",
                        f"--output={logs}/{run['run']}-merge-job-%j.out", *common,
                        os.path.join(ROOT, "grader", "cluster", "merge-class.sbatch"), ROOT, o.out])
    for task in tasks:
        slurm["tasks"][str(task)] = f"{array}_{task}"
    slurm["merges"].append(merge_job)
    write_atomically(os.path.join(o.out, "slurm.json"),
                     (json.dumps(slurm, indent=1) + "\n").encode("utf-8"))
    which = f"tasks {tasks[0]}-{tasks[-1]}" if len(tasks) > 1 else f"task {tasks[0]}"
    say(f"run {run['run']}: job array {array} ({which}, {task_minutes(run)} min each), then job {merge_job} merges the class table into {o.out}/class.csv; logs in {logs}")
    return EXIT_COMPLETE


def rerun(o, run):
    try:
        with open(os.path.join(o.out, "slurm.json"), encoding="utf-8") as file:
            slurm = json.load(file)
    except (OSError, ValueError):
        raise Fail(EXIT_USAGE, f"--out: '{o.out}' holds no run submitted with --slurm (no slurm.json)")
    if slurm.get("run") != run["run"]:
        raise Fail(EXIT_USAGE, f"--out: slurm.json is of the run {slurm.get('run')}, not of {run['run']}")
    if "--sbatch" in o.given:
        slurm["sbatch"] = o.sbatch
    if "--gpus-per-task" in o.given:
        slurm["gpus_per_task"] = o.gpus_per_task
    return submit(o, run, [o.task], slurm)


# ---------------------------------------------------------------------------------------------

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


def fill_gradebook(o, run):
    """The gradebook CSV with this run's points in column --assignment, matched to the roster
    by the folder names in column --match. Never a 0 for a student without points: blank."""
    try:
        with open(o.gradebook, encoding="utf-8-sig", newline="") as file:
            rows = list(csv.reader(file, strict=True))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise Fail(EXIT_USAGE, f"--gradebook: cannot read '{o.gradebook}' as a UTF-8 CSV file: {error}")
    if not rows or o.match not in rows[0]:
        raise Fail(EXIT_USAGE, f"--gradebook: no column '{o.match}' in its first row ({', '.join(rows[0][:8]) if rows else 'the file is empty'})")
    header = rows[0]
    key = header.index(o.match)
    if o.assignment not in header:
        header.append(o.assignment)
        for row in rows[1:]:
            row.append("")
    column = header.index(o.assignment)
    points = {}
    for entry in run["roster"]:
        line = read_line(o.out, entry["id"])
        graded = line is not None and line.get("run") == run["run"] and line.get("score") is not None \
            and line.get("verdict") not in ("not graded", "not graded on a GPU", "grading machine broken")
        points[entry["name"]] = number(line["score"]) if graded else None
    filled, blank, unknown = 0, [], []
    for row in rows[1:]:
        if len(row) <= max(key, column):
            row.extend([""] * (max(key, column) + 1 - len(row)))
        name = row[key]
        if name not in points:
            if name.strip():
                unknown.append(name)
            continue
        if points[name] is None:
            row[column] = ""
            blank.append(name)
        else:
            row[column] = points[name]
            filled += 1
    matched = {row[key] for row in rows[1:]}
    absent = [name for name in points if name not in matched]
    text = io.StringIO(newline="")
    csv.writer(text, lineterminator="\r\n").writerows(rows)
    target = os.path.join(o.out, "gradebook-" + re.sub(r"[^A-Za-z0-9._-]+", "-", o.assignment).strip("-") + ".csv")
    write_atomically(target, text.getvalue().encode("utf-8"))
    say(f"{target}: points of run {run['run']} for {filled} students in column '{o.assignment}'")
    for what, names in (("without points of this run (left blank)", blank),
                        ("in the gradebook but not in the roster (left as they were)", unknown),
                        ("in the roster but not in the gradebook", absent)):
        if names:
            shown = ", ".join(escape_name(n.encode("utf-8", "surrogateescape"), one_line=True) for n in names[:10])
            print(f"grade-class: {len(names)} {what}: {shown}{' ...' if len(names) > 10 else ''}", file=sys.stderr)
    return EXIT_COMPLETE if not blank and not absent else EXIT_INCOMPLETE


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
