"""Preparing a run: its roster, id and options in run.json and its kit (make kit, the lab built
in it) in OUT/kit/<run>/; and, on each machine a task runs on, the task's copy of that kit, split
in two: the kit the sandboxes see (read-only, no reference in it) and the references' worker
(a program the grading's user may run but not read)."""
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import time

from names import inert
from out_folder import RUN_FORMAT, read_line, read_run, write_atomically
from roster import read_roster
from shared import EXIT_INCOMPLETE, EXIT_MACHINE, EXIT_USAGE, Fail, ROOT, remove, say


def make(folder, targets, log, jobs=None, cuda_arch=None, variables=()):
    command = ["make", "-s", "--no-print-directory", "-C", folder, *variables]
    if jobs:
        command.append(f"-j{jobs}")
    if cuda_arch:
        command.append(f"CUDA_ARCH={cuda_arch}")
    with open(log, "ab") as file:
        # In a process group of its own, which ends whole when this command is interrupted.
        process = subprocess.Popen(command + targets, stdin=subprocess.DEVNULL, stdout=file,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return process.wait() == 0
        except BaseException:
            for number in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(process.pid, number)
                    process.wait(timeout=10)
                    break
                except (OSError, subprocess.TimeoutExpired):
                    pass
            raise


def log_said(log):
    """Where a build's log is and its last line, to end a one-line message with."""
    try:
        with open(log, "rb") as file:
            lines = [line for line in inert(file.read()[-65536:]).splitlines()
                     if line.strip() and not line.startswith(("make: ***", "make["))]
    except OSError:
        lines = []
    return f"its log {log} ends: {lines[-1][:300]}" if lines else f"its log: {log}"


def kit_commit():
    result = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", "HEAD^{commit}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if result.returncode != 0:
        raise Fail(EXIT_MACHINE, "grade-class runs from the kit's git repository (it grades in the kit make kit lays out from the committed tree), and this copy is not one")
    return result.stdout.decode().strip()


def points_digest(path):
    try:
        with open(path, "rb") as file:
            return hashlib.sha256(file.read()).hexdigest()
    except OSError as error:
        raise Fail(EXIT_USAGE, f"--points: cannot read '{path}': {error.strerror}")


def build_kit(o, folder, log):
    """The run's kit in folder/kit (make kit: the committed tree less the solutions, the lab's
    references compiled), the lab built in it for --cuda-arch, and the points file beside it.
    Returns the architectures it was built for."""
    kit = os.path.join(folder, "kit")
    variables = [f"DEST={kit}", f"KIT_LABS={o.lab}"] + ([f"CUDA_ARCH={o.cuda_arch}"] if o.cuda_arch else [])
    if not make(ROOT, ["kit"], log, variables=variables):
        raise Fail(EXIT_MACHINE, f"make kit did not lay out the kit a class is graded in ({log_said(log)})")
    # The results model first: it checks the points file.
    if not make(kit, ["build/results/results"], log, cuda_arch=o.cuda_arch):
        raise Fail(EXIT_MACHINE, f"the kit's results model does not build here ({log_said(log)})")
    check = subprocess.run([os.path.join(kit, "build", "results", "results"), "check-points", o.points, o.lab],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if check.returncode != 0:
        why = check.stdout.decode("utf-8", "replace").strip().splitlines()
        raise Fail(EXIT_USAGE, f"--points '{o.points}': {why[0] if why else 'rejected by the results model'}")
    if not make(kit, [o.short], log, os.cpu_count() or 2, o.cuda_arch):
        raise Fail(EXIT_MACHINE, f"the kit does not build {o.lab} here (the kit's own code, no submission yet) ({log_said(log)})")
    try:
        with open(os.path.join(kit, "build", "cuda-arch"), encoding="utf-8") as file:
            cuda_arch = file.read().strip()
    except OSError:
        cuda_arch = None
    # Each task checks again that its machine has Criterion (a node may lack what the
    # preparing machine had): the check is not carried over.
    os.unlink(os.path.join(kit, "build", "criterion.ok"))
    points = os.path.join(folder, "points.conf")
    shutil.copyfile(o.points, points)
    subprocess.run(["chmod", "-R", "a+rX,go-w", folder], check=True)
    return cuda_arch


def options_of(o, tasks):
    return {"points": os.path.realpath(o.points), "points_sha256": points_digest(o.points), "runs": o.runs,
            "no_timing": o.no_timing, "student_timeout": o.student_timeout, "tasks": tasks,
            "cuda_arch_asked": o.cuda_arch}


def resumable(o, earlier, tasks, roster, commit):
    """Whether the run in --out is this command's, left unfinished: the same lab, submissions,
    options (the seed, when given), kit commit and roster, and an entry without its line."""
    if not earlier or earlier.get("lab") != o.lab or earlier.get("submissions") != o.submissions:
        return False
    options = dict(earlier.get("options") or {})
    if o.seed is not None and options.pop("seed", None) != o.seed:
        return False
    options.pop("seed", None)
    if options != options_of(o, tasks) or (earlier.get("kit") or {}).get("commit") != commit:
        return False
    if [(e["bytes"], e["kind"]) for e in earlier.get("roster", [])] != [(e.raw.hex(), e.kind) for e in roster]:
        return False
    lines = [read_line(o.out, e["id"]) for e in earlier["roster"]]
    return any(line is None or line.get("run") != earlier["run"] for line in lines)


# Where a new run keeps the run it replaces in --out.
EARLIER_RUNS = "earlier"


def keep_earlier_run(o, earlier):
    """Moves the run in --out, which a new run replaces, to OUT/earlier/<its id>/: its table,
    gradebooks, students' reports and lines, task states and logs, as they were. Its kit, which
    make kit lays out again from its commit, goes. A command typed again loses no grading."""
    kept = os.path.join(o.out, EARLIER_RUNS, str(earlier.get("run")))
    os.makedirs(kept, exist_ok=True)
    for name in sorted(os.listdir(o.out)):
        if name in (EARLIER_RUNS, "kit") or name.startswith(".grade-class"):
            continue
        os.rename(os.path.join(o.out, name), os.path.join(kept, name))
    say(f"{o.out} held the run {earlier.get('run')}, which this run replaces: its results are kept in {kept}")


def prepare_run(o, tasks):
    """The run this command grades: the run in --out when it is this command's, unfinished
    (resumed: its graded entries are kept, the others graded); otherwise a new run, its
    roster, id, seed and options in run.json and its kit built in OUT/kit/<run>/. A new run
    moves the run it replaces to OUT/earlier/<id>/ (keep_earlier_run) and removes its kit."""
    if not os.path.isfile(o.points):
        raise Fail(EXIT_USAGE, f"--points: no file '{o.points}'")
    roster = read_roster(o)
    commit = kit_commit()
    earlier = read_run(o.out)
    if resumable(o, earlier, tasks, roster, commit):
        graded = sum(1 for e in earlier["roster"] if (read_line(o.out, e["id"]) or {}).get("run") == earlier["run"])
        say(f"{o.lab}: resuming run {earlier['run']} (the same command, left unfinished): {graded} of {len(roster)} entries have their line; grading the others")
        if not os.path.isfile(os.path.join(o.out, earlier["kit"]["folder"], "points.conf")):
            rebuild_kit(o, earlier)
        return earlier
    if earlier:
        keep_earlier_run(o, earlier)
    run_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(4)
    seed = o.seed if o.seed is not None else int.from_bytes(secrets.token_bytes(8), "big")
    folder = os.path.join(o.out, "kit", run_id)
    os.makedirs(os.path.join(o.out, "logs"), exist_ok=True)
    os.makedirs(folder)
    log = os.path.join(o.out, "logs", f"prepare-{run_id}.log")
    say(f"{o.lab}: run {run_id}, {len(roster)} roster entries; laying out the kit they are graded in (make kit of commit {commit[:12]}, for CUDA_ARCH {o.cuda_arch or 'of this machine'}) in {folder}; log: {log}")
    try:
        cuda_arch = build_kit(o, folder, log)
    except KeyboardInterrupt:
        remove(folder)
        raise Fail(EXIT_INCOMPLETE, "interrupted while the kit was laid out: nothing graded yet; the same command starts the run again")
    except BaseException:
        remove(folder)
        raise
    run = {
        "tool": "grade-class", "format": RUN_FORMAT, "run": run_id, "lab": o.lab,
        "submissions": o.submissions,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "options": dict(options_of(o, tasks), seed=seed),
        "kit": {"folder": os.path.join("kit", run_id), "commit": commit, "cuda_arch": cuda_arch},
        "roster": [{"index": e.index, "name": e.name, "id": e.id, "kind": e.kind,
                    "bytes": e.raw.hex()} for e in roster],
    }
    write_atomically(os.path.join(o.out, "run.json"),
                     (json.dumps(run, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    for name in os.listdir(os.path.join(o.out, "kit")):
        if name != run_id:
            remove(os.path.join(o.out, "kit", name))
    return run


def rebuild_kit(o, run):
    folder = os.path.join(o.out, run["kit"]["folder"])
    remove(folder)
    os.makedirs(folder)
    log = os.path.join(o.out, "logs", f"prepare-{run['run']}.log")
    say(f"run {run['run']}: its kit is gone from {folder}; laying it out again (log: {log})")
    try:
        build_kit(o, folder, log)
    except BaseException:
        remove(folder)
        raise


def take_run(o):
    """The run in --out, for --task, --merge and --slurm-rerun: its lab and options become o's."""
    run = read_run(o.out)
    if o.lab and o.lab != run["lab"]:
        raise Fail(EXIT_USAGE, f"--out holds a run of {run['lab']}, not of {o.lab}")
    if o.run is not None and o.run != run["run"]:
        raise Fail(EXIT_USAGE, f"--out holds the run {run['run']} now, not the run {o.run} this task belongs to (a new run replaced it): nothing graded")
    o.lab, o.short = run["lab"], run["lab"].split("-")[0]
    o.submissions = run["submissions"]
    options = run["options"]
    o.seed, o.runs, o.no_timing = options["seed"], options["runs"], options["no_timing"]
    o.student_timeout = options["student_timeout"]
    if o.task is not None and o.task >= options["tasks"]:
        raise Fail(EXIT_USAGE, f"the run has {options['tasks']} tasks (0 to {options['tasks'] - 1}), not task {o.task}")
    return run


class TaskKit:
    """A task's copy of the run's kit on its machine (its scratch folder), built there for the
    run's architectures with this machine's tools, then split: `kit`, which the sandboxes see
    read-only and which holds no reference (no prebuilt/reference/, no build/reference/), and
    `reference_worker`, the references' worker, mode 0111: the grading's user may run it but
    not read it (it is neither its owner's when grade-class runs as root, nor readable through a
    read-only bind without a capability otherwise), so that no reference can be copied out. The
    results model and the lab's listing are run from here, outside any sandbox."""

    def __init__(self, o, run, scratch):
        source = os.path.join(o.out, run["kit"]["folder"])
        self.points = os.path.join(source, "points.conf")
        if not os.path.isfile(self.points) or not os.path.isdir(os.path.join(source, "kit")):
            raise Fail(EXIT_MACHINE, f"the run's kit is not here ({source}): is --out on a file system this machine sees? Start a new run to lay it out again")
        self.lab, self.short = run["lab"], run["lab"].split("-")[0]
        self.cuda_arch = run["kit"]["cuda_arch"]
        self.kit = os.path.join(scratch, "kit")
        self.built_in = [os.path.join(source, "kit"), self.kit]
        log = os.path.join(scratch, "kit.log")
        subprocess.run(["cp", "-a", "--", os.path.join(source, "kit"), self.kit], check=True)
        # The kit's own parts, for this machine (a no-op where it is the preparing one's twin;
        # the build of a machine without Criterion, say, stops here).
        if not make(self.kit, [self.short], log, os.cpu_count() or 2, self.cuda_arch):
            raise Fail(EXIT_MACHINE, f"this machine cannot build the kit's own code for {self.lab} (no submission yet) ({log_said(log)})")
        self.results = os.path.join(self.kit, "build", "results", "results")
        self.listing = os.path.join(self.kit, "build", "listing", self.lab, "tests.records")
        self.grader = os.path.join(self.kit, "build", "listing", self.lab, "grader")
        references = os.path.join(scratch, "references")
        os.mkdir(references, 0o755)
        self.reference_worker = os.path.join(references, "worker")
        os.rename(os.path.join(self.kit, "build", "reference", self.lab, "worker"), self.reference_worker)
        os.chmod(self.reference_worker, 0o111)
        for compiled in ("prebuilt/reference", "build/reference", "build/solution"):
            remove(os.path.join(self.kit, compiled))
        for lab in os.listdir(os.path.join(self.kit, "build", "listing")):
            remove(os.path.join(self.kit, "build", "listing", lab, "stand-in.o"))
        # Where a grading's build of the submission goes (a folder of its own, bound there).
        os.makedirs(os.path.join(self.kit, "build", "class"))
        subprocess.run(["chmod", "-R", "a+rX,go-w", self.kit], check=True)
        for path in (self.results, self.listing, self.grader):
            if not os.path.isfile(path):
                raise Fail(EXIT_MACHINE, f"the kit built for {self.lab} has no {os.path.relpath(path, self.kit)}")
