#!/usr/bin/env python3
"""grade-class: the instructors' command. Grades every submission of a class for one lab, each
by the kit's own ./grade inside a bubblewrap sandbox, and writes the class table.

  ./grade-class LAB --submissions DIR --out DIR [--slice K/N] [--points FILE] [--seed N]
                [--runs N] [--no-timing] [--student-timeout S] [--jobs N] [--gpus LIST]
  ./grade-class LAB --merge --out DIR --submissions DIR

docs/instructors.md says how to use it. How it works:

- The roster is every entry of --submissions, sorted by the bytes of its name. A folder is a
  student; anything else is listed as "not a folder". Each entry gets an id that is safe as a
  file name whatever its name holds: an ASCII slug of the name and a hash of its bytes.
- The kit a submission is graded in is a copy made the way `make dist` makes the student
  tarball (grader/make-dist.sh: what git tracks, less the solutions, variants, exploits, tests
  and these scripts; the references compiled into prebuilt/reference/), prepared once per run
  in a scratch folder of this process (never the repository's build/), the lab built in it.
  Each submission is graded in its own copy of it, deleted afterwards.
- The sandbox (bwrap) runs as nobody (setpriv, when run as root), with no network, its own
  process tree, /tmp a tmpfs; it sees the system read-only (/usr, /etc, /lib*, /bin, /sbin,
  /opt, /sys), the NVIDIA device nodes, the kit copy at /kit, the submission read-only at
  /submission/labN.cu, the points file at /grading/points.conf, and an empty folder at /out for
  the reports. Never the instructor's files, the repository, or another student's anything.
- The verdict comes from the summary.json that the kit's results model writes in the sandbox,
  never from what a grading prints; report.txt keeps what it printed (cut at 1 MiB).
- OUT/run.json names the run: its id is a hash of the roster (names, and the size and time of
  each labN.cu), the options and the kit, so N slices started at once write the same file, and
  a slice run again with the same options joins the same run. The merge lists every roster
  entry of run.json; one without a line.json of that run is "not graded".

Exit status: 0 the class table is complete (every roster entry has a line of this run), or a
slice graded every entry of its slice; 1 incomplete; 2 a bad command line, points file or
folder; 4 this machine cannot grade (no sandbox, the kit does not build).
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
import shutil
import signal
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
NOBODY = 65534
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

USAGE = """usage: ./grade-class LAB --submissions DIR --out DIR [options]
       ./grade-class LAB --merge --submissions DIR --out DIR

Grades every student's folder in --submissions (DIR/<student>/labN.cu), each by the kit's own
./grade in a sandbox, into --out: a folder per student (students/<id>/: report.txt, results.json,
tests.tap, tests.xml, summary.json, line.json) and the class table (class.csv, class.md).

  --submissions DIR   one folder a student, holding labN.cu
  --out DIR           where the results go: a new or empty folder, or one of an earlier run
  --slice K/N         grade only the roster entries whose index % N is K (0 <= K < N): one task
                      of a job array; then ./grade-class LAB --merge writes the class table
  --merge             write the class table from the slices' results in --out
  --points FILE       score by this course configuration (default grader/points.conf)
  --seed N            seed of the generated inputs (default: one made from the run's roster,
                      options and kit, the same for every slice of the run)
  --runs N            timed runs per kernel, 10 to 1000 (default 10)
  --no-timing         correctness only
  --student-timeout S stop a submission's grading after S seconds (default 900)
  --jobs N            grade N submissions at once (default 1); with GPUs, one grading a GPU
                      at a time runs its tests, the others build meanwhile
  --gpus LIST         the GPUs to grade on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES, else
                      every GPU nvidia-smi lists, else none)
  -h, --help          show this help

Exit status: 0 every roster entry has a line of this run (a slice: every entry of the slice);
1 some do not; 2 a bad command line, points file or folder; 4 this machine cannot grade (no
sandbox: install Debian's bubblewrap; or the kit does not build).
"""


class Fail(Exception):
    """Ends the command with one line on stderr and an exit status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Interrupted(Exception):
    pass


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
    o.slice = None
    o.points = os.path.join(ROOT, "grader", "points.conf")
    o.seed = None
    o.runs = 10
    o.no_timing = False
    o.student_timeout = 900
    o.jobs = 1
    o.gpus = None
    o.merge = False
    o.given = set()
    labs = labs_of_kit()
    valued = {"--submissions", "--out", "--slice", "--points", "--seed", "--runs",
              "--student-timeout", "--jobs", "--gpus"}
    caller = os.getcwd()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            raise SystemExit(0)
        if arg.startswith("--"):
            o.given.add(arg)
        if arg == "--no-timing":
            o.no_timing = True
        elif arg == "--merge":
            o.merge = True
        elif arg in valued:
            if i + 1 >= len(argv) or argv[i + 1] == "":
                raise Fail(EXIT_USAGE, f"{arg} needs a value")
            value = argv[i + 1]
            if value.startswith("--"):
                raise Fail(EXIT_USAGE, f"{arg} needs a value (got the option '{value}')")
            i += 1
            if arg == "--submissions":
                o.submissions = os.path.join(caller, value)
            elif arg == "--out":
                o.out = os.path.join(caller, value)
            elif arg == "--points":
                o.points = os.path.join(caller, value)
            elif arg == "--slice":
                match = re.fullmatch(r"([0-9]{1,6})/([0-9]{1,6})", value)
                if not match:
                    raise Fail(EXIT_USAGE, f"--slice takes K/N (say 0/8), not '{value}'")
                k, n = int(match.group(1), 10), int(match.group(2), 10)
                if not 0 <= k < n:
                    raise Fail(EXIT_USAGE, f"--slice K/N needs 0 <= K < N, not '{value}'")
                o.slice = (k, n)
            elif arg == "--seed":
                o.seed = decimal("--seed", value, 0, (1 << 64) - 1)
            elif arg == "--runs":
                o.runs = decimal("--runs", value, 10, 1000)
            elif arg == "--student-timeout":
                o.student_timeout = decimal("--student-timeout", value, 10, 86400)
            elif arg == "--jobs":
                o.jobs = decimal("--jobs", value, 1, 256)
            elif arg == "--gpus":
                gpus = value.split(",")
                if not all(re.fullmatch(r"[0-9]{1,4}|(GPU|MIG)-[A-Za-z0-9/-]{1,100}", g) for g in gpus):
                    raise Fail(EXIT_USAGE, f"--gpus takes GPU indices or UUIDs separated by commas, not '{value}'")
                if len(set(gpus)) != len(gpus):
                    raise Fail(EXIT_USAGE, f"--gpus names a GPU twice: '{value}'")
                o.gpus = gpus
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
    if not o.lab:
        raise Fail(EXIT_USAGE, f"which lab? (the labs are: {' '.join(labs)})")
    if not o.submissions:
        raise Fail(EXIT_USAGE, "--submissions DIR is needed: the folder of the students' folders")
    if not o.out:
        raise Fail(EXIT_USAGE, "--out DIR is needed: where the results go")
    if o.merge and "--slice" in o.given:
        raise Fail(EXIT_USAGE, "--merge writes the table of every slice: not with --slice")
    o.short = o.lab.split("-")[0]
    return o


# ---------------------------------------------------------------------------------------------
# Folders

def check_folders(o):
    """--submissions a folder, --out writable, neither inside the other, --out new, empty or
    holding a run of this command. Sets o.submissions/o.out to real paths."""
    if not os.path.isdir(o.submissions):
        what = "does not exist" if not os.path.lexists(o.submissions) else "is not a folder"
        raise Fail(EXIT_USAGE, f"--submissions: '{o.submissions}' {what}")
    o.submissions = os.path.realpath(o.submissions)
    out = os.path.realpath(o.out)
    for inner, outer, what in ((out, o.submissions, "--out is inside --submissions"),
                               (o.submissions, out, "--submissions is inside --out")):
        if inner == outer or inner.startswith(outer.rstrip("/") + "/"):
            raise Fail(EXIT_USAGE, f"{what} ('{o.out}', '{o.submissions}'): the results must not mix with the submissions")
    o.out = out
    if o.merge:
        if not os.path.isfile(os.path.join(out, "run.json")):
            raise Fail(EXIT_USAGE, f"--out: '{out}' holds no run of grade-class (no run.json)")
    else:
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
    if "run.json" in names:
        run = read_run(out)
        if run is None:
            raise Fail(EXIT_USAGE, f"--out: '{out}/run.json' is not a run of grade-class: give a new or empty folder")


def read_run(out):
    try:
        with open(os.path.join(out, "run.json"), encoding="utf-8") as file:
            run = json.load(file)
    except (OSError, ValueError):
        return None
    if not isinstance(run, dict) or run.get("tool") != "grade-class" or run.get("format") != 1:
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
        # What the run's id depends on: the file's size and time, not its bytes (cheap to read
        # on a shared file system by every slice).
        entry.fingerprint = entry.kind
        if entry.kind == "folder":
            try:
                st = os.lstat(os.path.join(base, raw, f"{o.short}.cu".encode()))
                entry.fingerprint += f" {kind_of(st.st_mode)} {st.st_size} {st.st_mtime_ns}"
            except OSError as error:
                entry.fingerprint += f" {errno.errorcode.get(error.errno, error.errno)}"
        roster.append(entry)
    return roster


# ---------------------------------------------------------------------------------------------
# The sandbox

class Sandbox:
    """The bubblewrap command line, and the machine's tools it needs."""

    def __init__(self):
        self.as_root = os.geteuid() == 0
        tools = {"bwrap": "bubblewrap", "timeout": "coreutils", "prlimit": "util-linux"}
        if self.as_root:
            tools["setpriv"] = "util-linux"
        self.tool = {}
        for tool, package in tools.items():
            path = shutil.which(tool)
            if not path:
                raise Fail(EXIT_MACHINE, f"'{tool}' is not installed: install Debian's {package} package (apt-get install {package}); grade-class grades no submission outside its sandbox")
            self.tool[tool] = path
        # prlimit again inside the sandbox: the process limit counted in the sandbox's own user
        # namespace (Linux 5.14 and later count RLIMIT_NPROC per namespace and uid).
        self.inner_prlimit = "/usr/bin/prlimit" if os.path.exists("/usr/bin/prlimit") else "/bin/prlimit"
        self.bwrap_setuid = bool(os.stat(self.tool["bwrap"]).st_mode & stat.S_ISUID)
        self.system = self.system_binds()

    @staticmethod
    def system_binds():
        args = ["--unshare-all", "--die-with-parent", "--new-session",
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
                    args += ["--ro-bind", real, real]
                    if os.path.abspath(path) != real:
                        args += ["--ro-bind", real, os.path.abspath(path)]
        # /sys read-only: the CUDA driver and nvidia-smi read the PCI and NUMA topology there.
        args += ["--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev"]
        try:
            nodes = sorted(n for n in os.listdir("/dev") if NVIDIA_NODES.match(n))
        except OSError:
            nodes = []
        for node in nodes:
            args += ["--dev-bind-try", "/dev/" + node, "/dev/" + node]
        args += ["--tmpfs", "/tmp"]
        return args

    def command(self, kit, submission, out, points, seconds, argv):
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
                   self.tool["prlimit"], *limits, "--"]
        if self.as_root:
            command += [self.tool["setpriv"], f"--reuid={NOBODY}", f"--regid={NOBODY}",
                        "--clear-groups"]
            if not self.bwrap_setuid:
                command.append("--no-new-privs")
        command += [self.tool["bwrap"], *self.system,
                    "--bind", kit, "/kit",
                    "--ro-bind", submission, "/submission",
                    "--bind", out, "/out",
                    "--ro-bind", points, "/grading/points.conf",
                    "--chdir", "/kit", "--",
                    self.inner_prlimit, f"--nproc={LIMIT_NPROC}", "--", *argv]
        return command

    def probe(self, scratch):
        """Starts one sandbox that must write its /kit and /out and read /submission, as a
        grading's would. Raises Fail(4) when it cannot."""
        folders = {}
        for name in ("kit", "submission", "out"):
            folders[name] = os.path.join(scratch, "probe", name)
            os.makedirs(folders[name])
        points = os.path.join(scratch, "probe", "points.conf")
        with open(points, "w") as file:
            file.write("# probe\n")
        with open(os.path.join(folders["submission"], "probe.cu"), "w") as file:
            file.write("probe\n")
        self.hand_over(folders["kit"])
        self.hand_over(folders["out"])
        for path in (points, os.path.join(folders["submission"], "probe.cu")):
            os.chmod(path, 0o444)
        script = ("id -u >/out/uid && : >/kit/probe && test -r /submission/probe.cu && "
                  "test -r /grading/points.conf && test ! -e /root/. && test ! -e /home/. && "
                  "test ! -e " + sh_quote(ROOT) + "/.")
        command = self.command(folders["kit"], folders["submission"], folders["out"], points, 60,
                               ["/bin/sh", "-c", script])
        result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=sandbox_environment(None, None))
        output = result.stdout.decode("utf-8", "replace").strip().replace("\n", "; ")
        if result.returncode != 0:
            if "bwrap" in output or "setpriv" in output or "prlimit" in output or not output:
                raise Fail(EXIT_MACHINE, f"the sandbox does not start here ({output[:300] or 'exit %d' % result.returncode}): install Debian's bubblewrap package (apt-get install bubblewrap) and allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0); grade-class grades no submission outside its sandbox")
            raise Fail(EXIT_MACHINE, f"the sandbox started but could not use its folders under {scratch} (TMPDIR must be a folder that the user nobody can reach): {output[:300]}")
        shutil.rmtree(os.path.join(scratch, "probe"), ignore_errors=True)

    def hand_over(self, path, recursive=False):
        """Makes a folder the sandbox's to write: nobody's when run as root."""
        if not self.as_root:
            return
        if recursive:
            subprocess.run(["chown", "-R", "-h", f"{NOBODY}:{NOBODY}", "--", path], check=True)
        else:
            os.chown(path, NOBODY, NOBODY)


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

def make(folder, targets, log, jobs=None):
    command = ["make", "-s", "--no-print-directory", "-C", folder]
    if jobs:
        command.append(f"-j{jobs}")
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


def prepare_kit(o, scratch):
    """The kit a submission is graded in, as make dist makes it, with the lab built. Returns a
    namespace with the paths and facts the gradings need."""
    kit = os.path.join(scratch, "kit")
    log = os.path.join(scratch, "prepare.log")
    os.makedirs(kit)
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "-z"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if listed.returncode != 0:
        raise Fail(EXIT_MACHINE, "grade-class runs from the kit's git repository (it makes the graded kit as make dist does, from what git tracks), and this copy is not one")
    excluded = dist_exclusions()
    solutions = {}
    for folder, _, files in os.walk(os.path.join(ROOT, "solutions")):
        for name in files:
            with open(os.path.join(folder, name), "rb") as file:
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
    if not make(kit, ["build/results/results"], log):
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
        if not make(build, [f"build/reference/{r}.o" for r in references], log, jobs):
            raise Fail(EXIT_MACHINE, f"the references of {o.lab} do not build here:\n{log_tail(log)}")
        prebuilt = os.path.join(kit, "prebuilt", "reference")
        os.makedirs(prebuilt, exist_ok=True)
        for reference in references:
            shutil.copy2(os.path.join(build, "build", "reference", f"{reference}.o"), prebuilt)
        shutil.rmtree(build)
    if not make(kit, [o.short, f"build/listing/{o.lab}/tests.records", "build/results/results"],
                log, jobs):
        raise Fail(EXIT_MACHINE, f"the kit does not build {o.lab} here (the kit's own code, no submission yet):\n{log_tail(log)}")
    prepared = Options()
    prepared.kit = kit
    prepared.results = results
    prepared.listing = os.path.join(kit, "build", "listing", o.lab, "tests.records")
    prepared.kit_hash = kit_hash.hexdigest()
    try:
        with open(os.path.join(kit, "build", "cuda-arch"), encoding="utf-8") as file:
            prepared.cuda_arch = file.read().strip()
    except OSError:
        prepared.cuda_arch = None
    prepared.points = os.path.join(scratch, "points.conf")
    shutil.copyfile(o.points, prepared.points)
    os.chmod(prepared.points, 0o444)
    # Readable by the sandbox's user; each grading gets its own writable copy.
    subprocess.run(["chmod", "-R", "a+rX,go-w", kit], check=True)
    return prepared


# ---------------------------------------------------------------------------------------------
# The run

def run_identity(o, roster, prepared):
    with open(o.points, "rb") as file:
        points_hash = hashlib.sha256(file.read()).hexdigest()
    identity = {
        "lab": o.lab, "submissions": o.submissions,
        "roster": [[entry.raw.hex(), entry.fingerprint] for entry in roster],
        "points_sha256": points_hash, "runs": o.runs, "timing": not o.no_timing,
        "student_timeout": o.student_timeout, "slices": o.slice[1] if o.slice else 1,
        "seed": o.seed, "kit_sha256": prepared.kit_hash,
    }
    text = json.dumps(identity, sort_keys=True).encode()
    seed = o.seed
    if seed is None:
        seed = int.from_bytes(hashlib.sha256(b"seed\0" + text).digest()[:8], "big")
    run_id = hashlib.sha256(b"run\0" + text).hexdigest()[:16]
    return run_id, seed


def write_run(o, roster, run_id, seed):
    run = {
        "tool": "grade-class", "format": 1, "run": run_id, "lab": o.lab,
        "submissions": o.submissions,
        "options": {"points": os.path.realpath(o.points), "seed": seed, "runs": o.runs,
                    "no_timing": o.no_timing, "student_timeout": o.student_timeout,
                    "slices": o.slice[1] if o.slice else 1},
        "roster": [{"index": e.index, "name": e.name, "id": e.id, "kind": e.kind,
                    "bytes": e.raw.hex()} for e in roster],
    }
    data = (json.dumps(run, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    path = os.path.join(o.out, "run.json")
    try:
        with open(path, "rb") as file:
            if file.read() == data:
                return run
        earlier = read_run(o.out)
        if earlier and earlier.get("run") != run_id:
            say(f"{o.out} held the run {earlier.get('run')}; this run ({run_id}) replaces it (its students' lines no longer count)")
    except OSError:
        pass
    write_atomically(path, data)
    return run


# ---------------------------------------------------------------------------------------------
# Grading one roster entry

class Grader:
    def __init__(self, o, run, prepared, sandbox, scratch, gpus):
        self.o, self.run, self.prepared, self.sandbox = o, run, prepared, sandbox
        self.scratch = scratch
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
                            self.o.points, "--records", self.prepared.listing, "--no-file",
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
                "slice": self.o.slice[0] if self.o.slice else 0, "run": self.run["run"]}

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
                                 self.o.points, "--records", self.prepared.listing, "--no-file",
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
            self.sandbox.hand_over(kit, recursive=True)
            self.sandbox.hand_over(out)
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
                    kit, submission, out, max(1, int(budget)), None,
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
                                "--runs", str(o.runs)] + (["--no-timing"] if o.no_timing else [])
                status, timed_out, tail = self.run_sandbox(
                    kit, submission, out, max(1, int(budget)), gpu, argv,
                    os.path.join(folder, "report.txt"), problems, "report.txt")
            finally:
                if gpu is not None:
                    self.gpus.put(gpu)
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

    def run_sandbox(self, kit, submission, out, seconds, gpu, argv, report, problems, what):
        """Runs ./grade in a sandbox, its output into report (cut at REPORT_CAP). Returns (exit
        status, whether the time limit stopped it, its last line of output)."""
        command = self.sandbox.command(kit, submission, out, self.prepared.points, seconds, argv)
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
    return f"{value:g}"


def markdown(text):
    text = re.sub(r"([\\`*_\[\]<>|#!~{}])", r"\\\1", text)
    return text.replace("\n", "\\n").replace("\t", " ").replace("\r", "\\r")


def merge(o, run):
    slices = run["options"]["slices"]
    rows, missing, not_graded = [], [], 0
    for entry in run["roster"]:
        line = read_line(o.out, entry["id"])
        if line is None or line.get("run") != run["run"] or line.get("id") != entry["id"]:
            missing.append(entry)
            line = {"verdict": f"not graded (slice {entry['index'] % slices} did not finish)"
                    if slices > 1 else "not graded (the run did not finish)", "problems": []}
        if str(line.get("verdict", "")).startswith("not graded") and line.get("verdict") != "not graded on a GPU":
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
          f"Run `{run['run']}`, seed {run['options']['seed']}, "
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
    """The merge lists the run's roster; it says so when --submissions has changed since. The
    grading options it is given (it needs none) must be the run's."""
    if run.get("submissions") != o.submissions:
        raise Fail(EXIT_USAGE, f"--out holds the run of '{run.get('submissions')}', not of '{o.submissions}'")
    options = run["options"]
    for option, mine, theirs in (("--points", os.path.realpath(o.points), options.get("points")),
                                 ("--seed", o.seed, options.get("seed")),
                                 ("--runs", o.runs, options.get("runs")),
                                 ("--no-timing", o.no_timing, options.get("no_timing")),
                                 ("--student-timeout", o.student_timeout, options.get("student_timeout"))):
        if option in o.given and mine != theirs:
            raise Fail(EXIT_USAGE, f"--merge {option}: the run in --out was graded with {option} {theirs}, not {mine} (the merge needs no options but --out and --submissions)")
    now = [escape_name(n) for n in sorted(os.listdir(os.fsencode(o.submissions)))]
    then = [e["name"] for e in run["roster"]]
    if now != then:
        added = len(set(now) - set(then))
        gone = len(set(then) - set(now))
        print(f"grade-class: --submissions has changed since the run ({added} entries new, {gone} gone): the table lists the run's roster; grade again for the new ones", file=sys.stderr)
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


def grade_class(o):
    if not o.merge and not os.path.isfile(o.points):
        raise Fail(EXIT_USAGE, f"--points: no file '{o.points}'")
    check_folders(o)
    if o.merge:
        run = read_run(o.out)
        same = check_merge_roster(o, run)
        status = merge(o, run)
        return status if same else EXIT_INCOMPLETE
    sandbox = Sandbox()
    gpus = detect_gpus(o)
    scratch = tempfile.mkdtemp(prefix="grade-class-")
    os.chmod(scratch, 0o711)
    grader = None
    interrupted = []

    def on_signal(number, _frame):
        interrupted.append(number)
        raise Interrupted()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        sandbox.probe(scratch)
        roster = read_roster(o)
        mine = [e for e in roster if not o.slice or e.index % o.slice[1] == o.slice[0]]
        where = f"slice {o.slice[0]}/{o.slice[1]}: " if o.slice else ""
        say(f"{o.lab}: {where}{len(mine)} of {len(roster)} roster entries; preparing the kit (as make dist, built in {scratch})")
        prepared = prepare_kit(o, scratch)
        run_id, seed = run_identity(o, roster, prepared)
        run = write_run(o, roster, run_id, seed)
        concurrency = min(o.jobs, len(mine)) or 1
        say(f"run {run_id}, seed {seed}; {len(mine)} to grade, {concurrency} at a time"
            + (f", tests on GPU {','.join(gpus)} one at a time each" if gpus else ", no GPU"))
        grader = Grader(o, run, prepared, sandbox, scratch, gpus)
        done = 0
        graded = 0
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
                        except Interrupted:
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
        if o.slice:
            say(f"slice {o.slice[0]}/{o.slice[1]}: {graded} of {len(mine)} entries graded; ./grade-class {o.short} --merge --out ... writes the table")
            return EXIT_COMPLETE if graded == len(mine) else EXIT_INCOMPLETE
        return merge(o, run)
    except Interrupted:
        if grader:
            grader.stop()
        print(f"grade-class: stopped by signal {interrupted[0] if interrupted else '?'}: the gradings in progress were stopped; run the same command again to finish", file=sys.stderr)
        return EXIT_INCOMPLETE
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        Grader.remove(scratch)


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
