"""Preparing a run: its roster, id and options in run.json, and the kit its submissions are graded in."""
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import time

from cli import Options
from grading import Grader
from out_folder import RUN_FORMAT, read_run, write_atomically
from roster import read_roster
from shared import EXIT_MACHINE, EXIT_USAGE, Fail, ROOT, say


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
