#!/usr/bin/env python3
"""make test: the kit's own checks, each printed on one line, then "make test: N passed, N failed,
N skipped". Without a GPU the checks that need one skip, each with its reason.

Parts (TEST_PARTS picks some, e.g. TEST_PARTS="unit cli"): unit, cli, checks, toolkit, docs, labs,
limits, variants, exploits, reports, dist, notebook, gradescope, class, slurm, sanitize. EXPLOITS, a regular expression over "lab/name", picks
some of the exploits.

Every verdict is read from what the results model writes (summary.json, results.json), never
from what a program prints. Everything this writes is under build/test/, which make test may
remove and rebuild; no test touches a class's results anywhere else.
"""
import concurrent.futures
import functools
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "grader"))
import grade_times  # noqa: E402 (make bench-grade's table, tested here; its GPU probe, used here)
import labs as lab_manifest  # noqa: E402 (the lab manifest, grader/labs.mk)
from json_files import read_json, read_text  # noqa: E402 (grader/tests: the tests' one way to read files)
WORK = os.path.join(ROOT, "build", "test")
PARTS = ("unit cli checks toolkit docs labs limits variants exploits reports dist notebook gradescope class "
         "slurm sanitize").split()


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def check(self, description, status, detail=""):
        if status == "pass":
            self.passed += 1
        elif status == "fail":
            self.failed += 1
        else:
            self.skipped += 1
        print(f"{description:<64} {status}{': ' + detail if detail else ''}", flush=True)


tally = Tally()
grading_seconds = []  # (seconds, name) of every ./grade that grade() ran: the slowest are printed


def run(command, cwd=ROOT, env=None, timeout=1800, log=None):
    """Runs a command; returns (exit status, its output)."""
    full_env = dict(os.environ, **(env or {}))
    result = subprocess.run(command, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=timeout)
    output = result.stdout.decode("utf-8", "replace")
    if log:
        with open(log, "w") as out:
            out.write(output)
    return result.returncode, output


def grade(lab, *options, name, timeout=1800, cwd=ROOT):
    """./grade LAB OPTIONS (the ./grade of the kit in cwd: this one, or the unpacked tarball's),
    with its summary and results.json under build/test/NAME.*; returns (exit status, summary or
    None, results or None, log path)."""
    base = os.path.join(WORK, name)
    for suffix in (".summary.json", ".results.json"):
        if os.path.exists(base + suffix):
            os.remove(base + suffix)
    started = time.monotonic()
    status, _ = run([os.path.join(cwd, "grade"), lab, *options, "--summary", base + ".summary.json",
                     "--json", base + ".results.json"], cwd=cwd, timeout=timeout, log=base + ".log")
    grading_seconds.append((time.monotonic() - started, name))
    return status, read_json(base + ".summary.json"), read_json(base + ".results.json"), base + ".log"


def mentions(results, summary, text):
    """Whether a test's output in results.json, or a problem in summary.json, holds text."""
    outputs = [test.get("output", "") for test in (results or {}).get("tests", [])]
    outputs += (summary or {}).get("problems", [])
    return any(text in output for output in outputs)


# GPU memory one grading may take at once: up to 8 tests side by side (./grade --jobs), each with
# a CUDA context in its own process and one in its worker, and the past-4-GiB test's text. Eight
# gradings at once on an H100's 80 GB ran out of memory (2026-11-25).
GPU_GIB_A_GRADING = 15


@functools.lru_cache(maxsize=None)
def gpu_memory_gib():
    """The first GPU's memory in GiB, or None where nvidia-smi names none."""
    mib = grade_times.gpu_query("memory.total")
    return int(mib) / 1024 if mib and mib.isdigit() else None


def parallel_gradings():
    """How many gradings (or builds) make test runs side by side: GRADINGS_AT_ONCE, or one a core
    up to 8 (each runs its tests side by side too, ./grade --jobs), and on a GPU no more than its
    memory holds."""
    if os.environ.get("GRADINGS_AT_ONCE"):
        return int(os.environ["GRADINGS_AT_ONCE"])
    at_once = min(8, os.cpu_count() or 1)
    memory = gpu_memory_gib()
    return max(1, min(at_once, int(memory // GPU_GIB_A_GRADING))) if memory else at_once


def gpu_here():
    """Whether nvidia-smi names a GPU on this machine (as make bench-grade asks it)."""
    return grade_times.gpu_name() is not None


def labs():
    return lab_manifest.labs()


def write_manifest(tree, *lab_names):
    """A small tree's lab manifest, grader/labs.mk, listing these labs."""
    os.makedirs(os.path.join(tree, "grader"), exist_ok=True)
    with open(os.path.join(tree, lab_manifest.MANIFEST), "w") as out:
        out.write("".join(f"LABS += {lab}\n{lab}.references := {lab}\n{lab}.sanitize := text\n"
                          for lab in lab_names))


def short(lab):
    return lab.split("-")[0]


def part_unit():
    print("== unit tests (host code: generators, references, diagnosis, results model, reports)")
    tap = os.path.join(WORK, "unit.tap")
    status, output = run(["build/unit/unit-tests", "-j1", f"--tap={tap}"], log=os.path.join(WORK, "unit.log"))
    lines = open(tap).read().splitlines() if os.path.exists(tap) else []
    skipped = sum("# SKIP" in line for line in lines)
    passed = sum(line.startswith("ok ") for line in lines) - skipped
    failed = sum(line.startswith("not ok ") for line in lines)
    tally.passed += passed
    tally.failed += failed + (1 if status != 0 and failed == 0 else 0)
    tally.skipped += skipped
    print(f"{'unit tests':<64} {passed} passed, {failed} failed, {skipped} skipped")
    if status != 0:
        print(output[-4000:])


def expect_usage_error(description, message, *arguments, cwd=ROOT, code=2):
    status, output = run([os.path.join(ROOT, "grade"), *arguments], cwd=cwd)
    words = " ".join(arguments)
    if status == code and message in output:
        tally.check(f"grade {words} ({description})"[:64], "pass")
    else:
        first = next((line for line in output.splitlines() if line.startswith("grade")), output[:120])
        tally.check(f"grade {words} ({description})"[:64], "fail",
                    f"expected exit {code} and '{message}', got exit {status}: {first}")


def check_class_memory_limits():
    """A grading's data limit follows the host's memory and the gradings run at once (issue 26:
    it was 32 GiB a process whatever the host had), and --jobs is lowered to what memory holds."""
    sys.path.insert(0, os.path.join(ROOT, "grader", "class"))
    try:
        import sandbox
    finally:
        sys.path.pop(0)
    gib = 1 << 30
    cases = [((16 * gib, 1), 16 * gib), ((64 * gib, 4), 16 * gib), ((256 * gib, 2), 32 * gib),
             ((24 * gib, 8), sandbox.LIMIT_DATA_LEAST)]
    wrong = [(args, sandbox.data_limit(*args), want) for args, want in cases if sandbox.data_limit(*args) != want]
    held = [(args, sandbox.gradings_memory_holds(*args), want) for args, want in
            (((24 * gib, 8), 3), ((4 * gib, 2), 1), ((512 * gib, 8), 8)) if sandbox.gradings_memory_holds(*args) != want]
    tally.check("grade-class: a grading's memory limit is the host's share", "pass" if not wrong and not held else "fail",
                f"data limits {[w[1] >> 30 for w in wrong]} GiB, gradings at once {held}" if wrong or held
                else f"this host: {sandbox.host_memory() >> 30} GiB, one grading may take {sandbox.data_limit(sandbox.host_memory(), 1) >> 30} GiB a process")


def check_class_keeps_earlier_runs():
    """A new run in --out keeps the run it replaces (an instructor's trial: the same command typed
    again after a complete run wiped its reports), and a failure with the GPU tests not run is
    no grade to hand on (its partial points went into the gradebook)."""
    sys.path.insert(0, os.path.join(ROOT, "grader", "class"))
    try:
        import prepare
        import table
    finally:
        sys.path.pop(0)
    out = os.path.join(WORK, "class-earlier-run")
    shutil.rmtree(out, ignore_errors=True)
    files = {"run.json": "{}", "class.csv": "name,verdict\n", "gradebook-Lab-4.csv": "x\n",
             "students/a-1/line.json": "{}", "logs/grade.log": "log\n", "tasks/0.json": "{}",
             "kit/r1/points.conf": "", ".grade-class.lock": ""}
    for name, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
        with open(os.path.join(out, name), "w") as file:
            file.write(text)
    options = type("Options", (), {"out": out})()
    prepare.keep_earlier_run(options, {"run": "r1"})
    kept = os.path.join(out, "earlier", "r1")
    moved = all(os.path.isfile(os.path.join(kept, name)) and not os.path.exists(os.path.join(out, name))
                for name in files if not name.startswith(("kit/", ".grade-class")))
    stayed = os.path.isfile(os.path.join(out, "kit", "r1", "points.conf")) and os.path.isfile(os.path.join(out, ".grade-class.lock"))
    tally.check("grade-class: a new run keeps the run it replaces in OUT/earlier/<id>/",
                "pass" if moved and stayed else "fail", f"{sorted(os.listdir(out))}; kept: {sorted(os.listdir(kept)) if os.path.isdir(kept) else None}")
    shutil.rmtree(out, ignore_errors=True)
    lines = [({"verdict": "passed", "score": 10, "tests_not_run": 0}, True),
             ({"verdict": "failed", "score": 3, "tests_not_run": 0}, True),
             ({"verdict": "failed", "score": 1, "tests_not_run": 7}, False),
             ({"verdict": "does not compile", "score": 0, "tests_not_run": 9}, True),
             ({"verdict": "no file", "score": 0, "tests_not_run": 9}, True),
             ({"verdict": "not graded on a GPU", "score": 2, "tests_not_run": 7}, False),
             ({"verdict": "grading machine broken", "score": 2, "tests_not_run": 1}, False),
             ({"verdict": "not graded"}, False), (None, False)]
    wrong = [line for line, want in lines if table.grade_to_hand_on(line) != want]
    tally.check("grade-class: a failure with the GPU tests not run is no grade to hand on",
                "pass" if not wrong else "fail", f"wrong for: {wrong}")


def part_cli():
    print("== ./grade command line: every bad input refused with one line and exit 2")
    check_class_memory_limits()
    check_class_keeps_earlier_runs()
    # An empty file is nothing handed in, said so (an instructor's trial: it read "does not
    # compile", naming an undefined reference in a file of the kit's).
    blank = os.path.join(WORK, "blank-lab4.cu")
    with open(blank, "w") as file:
        file.write("\n   \n")
    status, summary, results, log = grade("lab4", "--file", blank, "--no-timing", "--seed", "12345", name="cli-empty-file")
    tally.check("grade: an empty file is 'no file', said to be empty",
                "pass" if status == 1 and (summary or {}).get("verdict") == "no file" and mentions(results, summary, "is empty") else "fail",
                f"exit {status}, verdict {(summary or {}).get('verdict')}; log: {log}")
    scratch = tempfile.mkdtemp(dir=WORK)
    empty = os.path.join(scratch, "empty.txt")
    open(empty, "w").close()
    fifo = os.path.join(scratch, "fifo")
    os.mkfifo(fifo)
    link = os.path.join(scratch, "lab4.cu")
    os.symlink(os.path.join(ROOT, "labs/lab4-text-histogram/lab4.cu"), link)
    bad_points = os.path.join(scratch, "points.conf")
    with open(bad_points, "w") as out:
        out.write("* test * inf\n")
    nul_points = os.path.join(scratch, "nul.conf")
    with open(nul_points, "wb") as out:
        out.write(b"* test * 1\n\0\n")
    cases = [
        ("no lab", "which lab?"),
        ("unknown lab", "unknown lab 'lab99'", "lab99"),
        ("unknown option", "unknown option '--fast'", "lab1", "--fast"),
        ("two labs", "one lab at a time", "lab1", "lab2"),
        ("missing input", "no such file", "lab4", "--input", "/nonexistent/text.txt"),
        ("empty input", "is empty", "lab4", "--input", empty),
        ("folder as input", "is a folder", "lab4", "--input", "/tmp"),
        ("FIFO as input", "not a regular file", "lab4", "--input", fifo),
        ("device as input", "not a regular file", "lab4", "--input", "/dev/zero"),
        ("/proc file as input", "is empty (or a /proc file", "lab4", "--input", "/proc/self/status"),
        ("bad seed", "whole number", "lab1", "--seed", "twelve"),
        ("seed of 2^64", "below 2^64", "lab1", "--seed", "18446744073709551616"),
        ("too few runs", "10 to 1000", "lab1", "--runs", "3"),
        ("runs overflow", "10 to 1000", "lab1", "--runs", "99999999999999999999"),
        ("no jobs", "1 to 64", "lab1", "--jobs", "0"),
        ("jobs overflow", "1 to 64", "lab1", "--jobs", "99999999999999999999"),
        ("jobs not a number", "whole number", "lab1", "--jobs", "all"),
        ("missing value", "needs a value", "lab1", "--seed"),
        ("empty value", "needs a value", "lab1", "--seed", ""),
        ("option as a value", "got the option '--no-timing'", "lab1", "--filter", "--no-timing"),
        ("empty --sanitize=", "needs tools", "lab1", "--sanitize="),
        ("unknown variant", "no variant 'nonsense'", "lab5", "--variant", "nonsense"),
        ("unknown sanitizer", "unknown tool 'leakcheck'", "lab5", "--sanitize=leakcheck"),
        ("--json is a folder", "is not a regular file", "lab1", "--json", "/tmp"),
        ("--json in no folder", "no folder", "lab1", "--json", "/nonexistent/results.json"),
        ("--json a device", "is not a regular file", "lab1", "--json", "/dev/full"),
        ("--tap a device", "is not a regular file", "lab1", "--tap", "/dev/full"),
        ("class options", "./grade-class", "lab5", "--submissions", "/tmp"),
        ("--file a link", "symbolic link", "lab4", "--file", link),
        ("--file a folder", "not a regular file", "lab4", "--file", "/tmp"),
        ("points: inf", "line 1", "lab1", "--points", bad_points),
        ("points: a NUL byte", "NUL byte", "lab1", "--points", nul_points),
        ("points: a device", "not a regular file", "lab1", "--points", "/dev/zero"),
        ("points: a FIFO", "not a regular file", "lab1", "--points", fifo),
        ("points: a folder", "a folder", "lab1", "--points", "/tmp"),
        ("--filter matching no test", "no test ran", "lab4", "--solution" if os.path.isdir(os.path.join(ROOT, "solutions")) else "--no-timing", "--filter", "nothing/*"),
    ]
    cases.append(("--hint N with more", "--hint grades nothing", "lab2", "--hint", "2", "--no-timing"))
    for description, message, *arguments in cases:
        expect_usage_error(description, message, *arguments)
    # --hint N is --hint=N: the number is a TODO's, not a second lab. The hints seen are the
    # student's: the state the check changes is put back.
    state = os.path.join(ROOT, "build/hints/lab2-count-atomic/state.json")
    kept = open(state, "rb").read() if os.path.exists(state) else None
    status, output = run([os.path.join(ROOT, "grade"), "lab2", "--hint", "2"])
    if kept is None:
        if os.path.exists(state):
            os.remove(state)
    else:
        with open(state, "wb") as out:
            out.write(kept)
    first = output.strip().splitlines()[0] if output.strip() else f"exit {status}"
    tally.check("./grade lab2 --hint 2 gives TODO 2's hint", "pass" if status == 0 and first.startswith("lab2, TODO 2") else "fail", first)
    # timing_spread.py compares two gradings' recorded times, input by input.
    spread = os.path.join(ROOT, "grader/timing_spread.py")
    fixtures = tempfile.mkdtemp(dir=WORK)
    def summary_with(name, speed):
        path = os.path.join(fixtures, name)
        with open(path, "w") as out:
            json.dump({"lab": "lab5-privatized", "speed": [
                {"test": "speed/s", "input": i, "yours_ms": y, "reference_ms": r} for i, y, r in speed]}, out)
        return path
    first = summary_with("a.json", [("english", 2.00, 1.00), ("one-letter", 0.50, 0.50)])
    second = summary_with("b.json", [("english", 2.20, 1.00), ("one-letter", 0.50, 0.51)])
    elsewhere = summary_with("c.json", [("no-letters", 0.3, 0.3)])
    status, output = run([sys.executable, spread, "--compare", first, second])
    # english: ratio 2.0 -> 2.2 (10.0%), one-letter 1.0 -> 0.980 (2.0%); median 6.0%; yours 10.0%
    tally.check("timing_spread --compare: the differences of two gradings' ratios",
                "pass" if status == 0 and "| lab5-privatized | 2 | 10.0% | 6.0% | 10.0% | no |" in output else "fail",
                output.strip().splitlines()[-1] if output.strip() else f"exit {status}")
    status, output = run([sys.executable, spread, "--compare", first, elsewhere])
    tally.check("timing_spread --compare: no input in common is an error", "pass" if status == 1 and "in common" in output else "fail",
                f"exit {status}")
    status, output = run([sys.executable, spread, "lab99"])
    tally.check("timing_spread: an unknown lab is refused (exit 2)", "pass" if status == 2 and "unknown lab" in output else "fail",
                f"exit {status}")
    if not gpu_here():
        status, output = run([sys.executable, spread, "lab1"])
        tally.check("timing_spread without a GPU: exit 3, says so", "pass" if status == 3 and "no GPU" in output else "fail",
                    f"exit {status}")

    # Nothing handed in is a result: exit 1, verdict "no file", every report written.
    reports = tempfile.mkdtemp(dir=WORK)
    paths = {kind: os.path.join(reports, name) for kind, name in
             (("--json", "results.json"), ("--tap", "r.tap"), ("--xml", "r.xml"), ("--summary", "s.json"))}
    status, output = run([os.path.join(ROOT, "grade"), "lab4", "--file", "/nonexistent/lab4.cu"] +
                         [item for pair in paths.items() for item in pair])
    summary, results = read_json(paths["--summary"]) or {}, read_json(paths["--json"]) or {}
    tap = open(paths["--tap"]).read() if os.path.exists(paths["--tap"]) else ""
    maximum = sum(test.get("max_score", 0) for test in results.get("tests", []))
    ok = (status == 1 and summary.get("verdict") == "no file" and results.get("score") == 0 and
          maximum > 0 and "not ok 1 - build/compiles" in tap and os.path.exists(paths["--xml"]))
    tally.check("grade --file missing: a 'no file' result in every report (exit 1)", "pass" if ok else "fail",
                f"exit {status}, verdict {summary.get('verdict')}")
    status, output = run([os.path.join(ROOT, "grade"), "lab4", "--no-timing", "--filter", "sequential/small_texts"],
                         env={"TMPDIR": "/nonexistent/tmp"})
    tally.check("grade with an unusable TMPDIR (exit 4, says so)", "pass" if status == 4 and "temporary folder" in output else "fail",
                f"exit {status}")
    # The crossing tells the harness of a machine problem through its hook
    # (crossing_machine_problem_observed): a worker that ends as it starts is the machine's
    # fault, recorded so (the results model's exit 4), never the code's.
    records = os.path.join(WORK, "cli-worker-ends-records")
    with open(records, "w"):
        pass
    run(["make", "-s", "lab4"])
    run([os.path.join(ROOT, "build", "student", "lab4-text-histogram", "grader"),
         "--filter=sequential/small_texts"],
        env={"GRADE_RECORDS": records, "GRADE_SEED": "1", "GRADE_NO_TIMING": "1",
             "GRADE_DATA_DIR": os.path.join(ROOT, "grader", "data"), "GRADE_WORKER": "/bin/false",
             "GRADE_REFERENCE_WORKER": "/bin/false"})
    with open(records) as file:
        recorded = [line.rstrip("\n").split("\t") for line in file]
    machine = [fields for fields in recorded if fields[0] == "machine"]
    tally.check("a worker that ends as it starts is recorded as the machine's problem",
                "pass" if machine and machine[0][1] == "sequential/small_texts" and
                "ended as it started" in machine[0][2] else "fail",
                "\t".join(machine[0]) if machine else f"records: {[fields[0] for fields in recorded][:8]}")
    # Tests side by side or one at a time: the same results.
    one, many = (grade("lab4", "--no-timing", "--seed", "12345", "--jobs", jobs, name=f"cli-jobs-{jobs}")
                 for jobs in ("1", "4"))
    counts = [tuple((summary or {}).get(key) for key in ("verdict", "tests_passed", "tests_failed", "score"))
              for _, summary, _, _ in (one, many)]
    tally.check("grade --jobs 1 and --jobs 4 give the same results", "pass" if counts[0] == counts[1] and counts[0][0] else "fail",
                f"{counts}")
    # --no-timing: the speed's points leave the maximum, and every report says so.
    _, summary, results, log = one
    listed = sum(test.get("max_score", 0) for test in (results or {}).get("tests", []))
    performance = (summary or {}).get("performance") or ""
    said = "--no-timing" in performance and "--no-timing" in (results or {}).get("output", "")
    tally.check("grade --no-timing: the speed's points are out of the maximum, said so",
                "pass" if summary and abs(summary["max_score"] - listed) < 0.01 and said else "fail",
                f"max_score {(summary or {}).get('max_score')}, the tests' {listed:g}; performance "
                f"{performance!r}; log: {log}")
    # and the maximum does not depend on whether the code built: the class's is the same for all
    _, broken, _, log = grade("lab4", "--file", os.path.join(ROOT, "grader/tests/report-fixtures/does-not-build-lab4.cu"),
                              "--no-timing", name="cli-no-timing-not-built")
    maxima = [(summary or {}).get("max_score"), (broken or {}).get("max_score")]
    tally.check("grade --no-timing: the same maximum whether the code builds or not",
                "pass" if maxima[0] is not None and maxima[0] == maxima[1] else "fail", f"{maxima}; log: {log}")
    # Paths are the caller's: run from another folder with a relative --summary.
    status, output = run([os.path.join(ROOT, "grade"), "lab4", "--no-timing", "--filter", "sequential/small_texts",
                          "--summary", "relative.json"], cwd=scratch)
    tally.check("grade from another folder writes relative paths there",
                "pass" if os.path.exists(os.path.join(scratch, "relative.json")) else "fail", f"exit {status}")
    points_checks(scratch)
    submission_build_checks(scratch)
    inert_text_checks(scratch)
    status, output = run(["./grade", "--help"])
    tally.check("grade --help", "pass" if status == 0 and "usage: ./grade" in output else "fail")
    # The handouts and Criterion write a test as suite::test; --filter takes that form too.
    slash, colons = (grade("lab4", "--no-timing", "--seed", "12345", "--filter", pattern, name=f"cli-filter-{n}")
                     for n, pattern in enumerate(("sequential/*", "sequential::*")))
    counts = [tuple((summary or {}).get(key) for key in ("verdict", "tests_passed", "tests_failed"))
              for _, summary, _, _ in (slash, colons)]
    tally.check("grade --filter 'suite::*' runs what 'suite/*' runs",
                "pass" if counts[0] == counts[1] and (counts[0][1] or 0) + (counts[0][2] or 0) > 1 else "fail",
                f"{counts}")
    if os.path.isdir(os.path.join(ROOT, "grader", "variants")):
        status, output = run(["./grade", "lab5", "--variant", "list"])
        tally.check("grade lab5 --variant list", "pass" if "no-barrier-before-commit" in output else "fail")
    print("== ./grade-class command line: every bad input refused with one line and exit 2")
    folder = outside_the_kit("cli")
    for description, message, *arguments in [
        ("no --out", "--out DIR is needed", "lab5", "--submissions", folder),
        ("no lab", "which lab?", "--submissions", folder, "--out", folder + "/out"),
        ("no run in --out", "holds no run", "--task", "0", "--out", folder),
        ("zero tasks", "--slurm must be 1 to", "lab5", "--slurm", "0", "--submissions", folder, "--out", folder + "/o"),
        ("two modes", "do not go together", "--merge", "--task", "1", "--out", folder),
        ("grading options on a merge", "takes the run's options", "--merge", "--seed", "1", "--out", folder),
        ("--sbatch without --slurm", "goes with --slurm", "lab5", "--sbatch=--hold", "--submissions", folder, "--out", folder + "/o"),
        ("a bad --cuda-arch", "--cuda-arch takes", "lab5", "--cuda-arch", "sm_90", "--submissions", folder, "--out", folder + "/o"),
        ("--out inside --submissions", "inside --submissions", "lab5", "--submissions", folder, "--out", folder + "/inner"),
        ("--out inside the kit", "inside the kit", "lab5", "--submissions", folder, "--out", os.path.join(WORK, "cli-out")),
        ("--run without --task", "--run goes with --task", "lab5", "--run", "20261124-235407-1ff2562f",
         "--submissions", folder, "--out", folder + "/o"),
    ]:
        status, output = run(["./grade-class", *arguments])
        tally.check(f"grade-class {description}"[:64], "pass" if status == 2 and message in output and len(output.strip().splitlines()) == 1 else "fail",
                    f"exit {status}: {output.strip()[:200]}")
    # A points file that gives the lab nothing is refused before anything is graded (the
    # results model checks it once the run's kit is laid out), not a class of zeros (issue 26).
    points = os.path.join(folder, "points.conf")
    with open(points, "w") as file:
        file.write("lab1 test racy/* 1\n")
    status, output = run(["./grade-class", "lab5", "--submissions", folder, "--out", folder + "-points-out",
                          "--points", points, "--no-timing"], log=os.path.join(WORK, "cli-class-points.log"))
    last = output.strip().splitlines()[-1] if output.strip() else ""
    tally.check("grade-class a points file that gives the lab nothing: refused",
                "skip" if status == 4 else
                "pass" if status == 2 and "--points" in last and "gives lab5 no points" in last else "fail",
                f"this machine cannot grade a class: {last[:200]}" if status == 4 else f"exit {status}: {last[:200]}")
    shutil.rmtree(folder + "-points-out", ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    print("== make bench and make lessons command lines")
    for program, *arguments, description in [
            ("bench", "--bytes", "12", "input too small"), ("bench", "--runs", "3", "too few runs"),
            ("bench", "--fast", "unknown option"), ("bench", "--seed", "missing value"),
            ("lessons", "--bytes", str(32 << 20), "input inside the L2 cache"),
            ("lessons", "--bytes", str(8 << 30), "input past 4 GiB"), ("lessons", "--runs", "3", "too few runs"),
            ("lessons", "--out", "", "empty --out")]:
        status, output = run([f"build/bench/{program}", *arguments])
        tally.check(f"{program} {' '.join(arguments)} ({description})"[:64],
                    "pass" if status == 2 and f"usage: {program}" in output else "fail", f"exit {status}")
    if not gpu_here():
        status, output = run(["build/bench/lessons"])
        tally.check("lessons without a GPU: exit 3, says so", "pass" if status == 3 and "GPU" in output else "fail",
                    f"exit {status}")
    print("== make bench-grade (bench/grade_times.py): its command line and its table")
    for description, arguments, code, message in [
            ("no runs", ["--repeat", "0"], 2, "--repeat must be 1 or more"),
            ("unknown option", ["--fast"], 2, "unrecognized arguments: --fast")]:
        status, output = run([sys.executable, "bench/grade_times.py", *arguments])
        tally.check(f"grade_times.py {' '.join(arguments)} ({description})",
                    "pass" if status == code and message in output else "fail",
                    f"exit {status}: {(output.strip().splitlines() or [''])[-1][:200]}")
    if gpu_here():
        tally.check("grade_times.py without a GPU: exit 3, one line", "skip", "this machine has a GPU")
    else:
        status, output = run([sys.executable, "bench/grade_times.py", "--out", os.path.join(scratch, "bench")])
        tally.check("grade_times.py without a GPU: exit 3, one line",
                    "pass" if status == 3 and len(output.strip().splitlines()) == 1 else "fail", f"exit {status}: {output.strip()[:200]}")
    print("== make results (bench/record_results.py): its command line and where a second GPU's logs go")
    for description, arguments in [("a folder name with a slash", ["--gpu-folder", "../h100"]),
                                   ("a lab that does not exist", ["--labs", "lab99-none"]),
                                   ("an unknown part", ["--only", "everything"])]:
        status, output = run([sys.executable, "bench/record_results.py", *arguments])
        tally.check(f"record_results.py: {description}: exit 2", "pass" if status == 2 else "fail",
                    f"exit {status}: {(output.strip().splitlines() or [''])[-1][:200]}")
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import record_results
    beside = record_results.destinations("/kit/docs", "h100")("bench", "bench.md")
    first = record_results.destinations("/kit/docs", "")("results", "lessons.md")
    tally.check("record_results.py --gpu-folder h100: docs/bench/h100/bench.md",
                "pass" if (beside, first) == ("/kit/docs/bench/h100/bench.md", "/kit/docs/results/lessons.md")
                else "fail", f"{beside} and {first}")
    rows = [{"lab": "within", "timed": (14.0, True, True, 1.019), "no-timing": (4.0, True, True, None)},
            {"lab": "slow", "timed": (20.0, True, False, 0.97), "no-timing": (6.0, False, False, None)}]
    lines = grade_times.table("a GPU", "2026-11-23", 1, 3, rows)
    want = ["| within | 14.0 s | 4.0 s | 1.019 |", "| slow | 20.0 s (over) | 6.0 s (not passed) (over) | 0.970 (off) |"]
    tally.check("grade_times.py marks what misses a target", "pass" if all(line in lines for line in want) else "fail",
                f"{lines[-2:]}")
    shutil.rmtree(scratch, ignore_errors=True)


def points_checks(scratch):
    """A points file that gives the lab nothing, or too many points, is refused before any
    grading: one line, exit 2."""
    for description, text, message in [
            ("points: no rule for the lab", "lab5 test * 1\nlab5 performance 20 1.2\n", "gives lab4 no points"),
            ("points: only 0 for the lab", "lab4 test * 0\nlab5 test * 1\n", "gives lab4 no points"),
            ("points: past the bound", "* test * 1e10\n", "more than 1000")]:
        path = os.path.join(scratch, "points-" + re.sub(r"[^a-z0-9]+", "-", description) + ".conf")
        with open(path, "w") as out:
            out.write(text)
        status, output = run([os.path.join(ROOT, "grade"), "lab4", "--no-timing", "--points", path])
        lines = output.strip().splitlines()
        ok = status == 2 and message in output and not any(line.startswith("grade: building") for line in lines)
        tally.check(f"grade --points ({description}): refused before grading"[:64], "pass" if ok else "fail",
                    f"exit {status}: {lines[-1] if lines else ''}")


def submission_build_checks(scratch):
    """A submission's build: make never reads a dependency file of a submission (nvcc writes
    #line names into it unescaped, and make would run a $(shell ...) there), and grading the same
    file twice compiles it once."""
    source = os.path.join(scratch, "twice", "lab4.cu")
    os.makedirs(os.path.dirname(source))
    shutil.copyfile(os.path.join(ROOT, "labs/lab4-text-histogram/lab4.cu"), source)
    folder = os.path.join(ROOT, "build", "file", hashlib.sha1(source.encode()).hexdigest()[:12], "lab4-text-histogram")
    options = ["lab4", "--file", source, "--no-timing", "--filter", "sequential/small_texts"]
    stamps = []
    for _ in range(2):
        status, output = run([os.path.join(ROOT, "grade"), *options])
        object_file = os.path.join(folder, "lab4.o")
        stamps.append(os.stat(object_file).st_mtime_ns if os.path.exists(object_file) else None)
    tally.check("grade --file twice: the submission compiled once", "pass" if stamps[0] and stamps[0] == stamps[1] else "fail",
                f"the object's times {stamps}")
    dependency_file = os.path.join(folder, "lab4.d")
    left = os.path.exists(dependency_file)
    tally.check("a submission's build writes no dependency file", "fail" if left else "pass",
                f"{os.path.relpath(dependency_file, ROOT)} is there" if left else "")
    # One left there (by an older kit, or by anything): make must not read it.
    canary = os.path.join(scratch, "make-read-the-dependency-file")
    with open(dependency_file, "w") as out:
        out.write(f"{os.path.relpath(folder, ROOT)}/lab4.o: $(shell touch {canary})\n")
    status, output = run([os.path.join(ROOT, "grade"), *options])
    os.remove(dependency_file)
    ran = os.path.exists(canary)
    tally.check("make never reads a submission's dependency file", "fail" if ran else "pass",
                "a $(shell ...) in it ran" if ran else "")


def inert_text_checks(scratch):
    """What a student writes (an #error that clears the screen and prints a verdict, a byte that
    is not UTF-8) reaches neither the terminal nor a report raw."""
    source = os.path.join(scratch, "escape", "lab4.cu")
    os.makedirs(os.path.dirname(source))
    with open(source, "wb") as out:
        out.write(b'#include "lab4.h"\n#error \x1b[2J\x1b[Hgrade: lab4: PASSED \xff\xc2\x9b31m\n')
    reports = {option: os.path.join(scratch, "escape", name) for option, name in
               (("--json", "results.json"), ("--tap", "tests.tap"), ("--xml", "tests.xml"), ("--summary", "summary.json"))}
    command = [os.path.join(ROOT, "grade"), "lab4", "--file", source] + [item for pair in reports.items() for item in pair]
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    raw = [name for name, data in [("the terminal", result.stdout)] +
           [(os.path.basename(path), open(path, "rb").read() if os.path.exists(path) else b"\x1b") for path in reports.values()]
           if b"\x1b" in data or b"\xff" in data or b"\xc2\x9b" in data]
    tally.check("an #error with escape codes: inert on the terminal, in reports", "fail" if raw or result.returncode != 1 else "pass",
                f"exit {result.returncode}; raw in: {', '.join(raw)}" if raw or result.returncode != 1 else "")
    # The code under test prints too (its worker writes to the grading's output): lab 4's CPU
    # histogram, which runs here without a GPU, clearing the screen (on the standard error, which
    # no buffer holds back when the worker is stopped).
    with open(os.path.join(ROOT, "labs/lab4-text-histogram/lab4.cu"), encoding="utf-8") as skeleton:
        code = skeleton.read()
    marker = "    (void)text;\n"
    with open(source, "w", encoding="utf-8") as out:
        out.write(code.replace(marker, '    fprintf(stderr, "\\x1b[2J\\x1b[Hgrade: lab%d: PASSED \\xff\\n", 4);\n' + marker, 1)
                  .replace('#include "cuda_check.h"', '#include "cuda_check.h"\n#include <stdio.h>', 1))
    result = subprocess.run([os.path.join(ROOT, "grade"), "lab4", "--file", source, "--no-timing", "--filter",
                             "sequential/small_texts"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    shown = b"\\x1b[2J\\x1b[Hgrade: lab4: PASSED \\xff" in result.stdout
    raw = b"\x1b" in result.stdout or b"\xff" in result.stdout
    tally.check("what the code under test prints: inert on the terminal", "pass" if shown and not raw else "fail",
                "" if shown and not raw else f"exit {result.returncode}; {'raw' if raw else 'not shown'}")


def part_checks():
    print("== the submission check and the report validators on their own cases")
    check_group_points()
    for script in ("grader/tests/check-submission-tests.sh", "grader/tests/check-reports-selftest.sh"):
        if not os.path.exists(os.path.join(ROOT, script)):
            tally.check(script, "fail", "missing")
            continue
        log = os.path.join(WORK, os.path.basename(script) + ".log")
        # The submission check's cases each run nvcc: shards of them at once, one log.
        shards = parallel_gradings() if script.endswith("check-submission-tests.sh") else 1
        with concurrent.futures.ThreadPoolExecutor(shards) as pool:
            results = list(pool.map(lambda shard: run(["bash", script], env={"TEST_SHARD": f"{shard}/{shards}"}),
                                    range(shards)))
        status = max(result[0] for result in results)
        output = "".join(result[1] for result in results)
        with open(log, "w") as file:
            file.write(output)
        passed = len(re.findall(r" pass(:|$)", output, re.M))
        failed = len(re.findall(r" fail(:|$)", output, re.M))
        tally.check(f"{script} ({passed} cases)", "pass" if status == 0 and failed == 0 and passed else "fail",
                    "" if status == 0 else f"exit {status}; log: build/test/{os.path.basename(script)}.log")


# The correctness tests that check a group of inputs, a test a group (the case tables of the
# harness), and the default points.conf's rule "a point an input" for them.
GROUP_TESTS = {
    "grader/harness/histogram_grading.c": {"SMALL_TEXTS": "small_texts", "DISTRIBUTIONS": "distributions",
                                           "LONG_TEXTS": "long_texts", "START_OFFSETS": "start_offsets"},
    "grader/harness/image_grading.c": {"IMAGE_SIZES": "sizes", "IMAGE_BLOCK_SIZES": "block_sizes",
                                       "IMAGE_VALUES": "values", "SMALL_IMAGES": "small_images",
                                       "IMAGE_KINDS": "image_kinds", "LONG_IMAGES": "long_images"},
}


def group_points_mismatches(points_text, sources):
    """Where the points a group test earns in the default points.conf differ from its number of
    inputs in the case tables (sources: {path: text}): a list of sentences."""
    rules = {}
    for line in points_text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) == 4 and fields[1] == "test" and fields[2].startswith("*/"):
            rules.setdefault(fields[2][2:], int(fields[3]))
    problems = []
    for path, groups in GROUP_TESTS.items():
        counts = {}
        for group in re.findall(r'^\s*\{"\w+",\s*(\w+),', sources[path], re.M):
            counts[group] = counts.get(group, 0) + 1
        for group, test in groups.items():
            if rules.get(test) != counts.get(group, 0):
                problems.append(f"*/{test}: {rules.get(test)} points, {counts.get(group, 0)} inputs in {path}")
    return problems


def check_group_points():
    """The default points.conf gives a group test a point an input, as its comment says."""
    sources = {path: open(os.path.join(ROOT, path), encoding="utf-8").read() for path in GROUP_TESTS}
    points = open(os.path.join(ROOT, "grader/points.conf"), encoding="utf-8").read()
    problems = group_points_mismatches(points, sources)
    tally.check("points.conf: a group test's points are its number of inputs", "fail" if problems else "pass",
                "; ".join(problems) or f"{sum(len(g) for g in GROUP_TESTS.values())} groups")
    # ... and the check can fail: one input more in a table.
    text = "grader/harness/histogram_grading.c"
    grown = dict(sources)
    grown[text] = sources[text].replace('{"bytes_31", SMALL_TEXTS,', '{"bytes_30", SMALL_TEXTS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 30, 0},\n    {"bytes_31", SMALL_TEXTS,')
    caught = group_points_mismatches(points, grown)
    tally.check("points.conf check: a text added to a group is caught", "pass" if caught else "fail",
                caught[0] if caught else "not caught")


def part_toolkit():
    print("== the oldest toolkit and GPU the kit supports (grader/toolkit.py): make refuses older ones;")
    print("   the host code against the floor's runtime headers; every .cu for sm_75; a CUDA 12 launch")
    import toolkit_floor
    for description, status, detail in toolkit_floor.checks(WORK, gpu_here()):
        tally.check(description[:64], status, detail)


def part_docs():
    print("== the docs: every figure they quote is in a recorded log (grader/tests/check_figures.py)")
    status, output = run([sys.executable, "grader/tests/check_figures.py"], log=os.path.join(WORK, "figures.log"))
    unbacked = [line for line in output.splitlines() if re.match(r"\S+:\d+: ", line)]
    awaiting = [line for line in unbacked if ": awaits make results" in line]
    missing = [line for line in unbacked if line not in awaiting]
    # A figure no log has fails; a sentence that says its figure awaits a GPU's make results is
    # not a pass either, and is counted as not run (with its reason), as a GPU test without one.
    tally.check("every figure in the docs is in a recorded log",
                "fail" if missing or (status != 0 and not awaiting) else "skip" if awaiting else "pass",
                f"{len(missing)} not, {len(awaiting)} awaiting make results on a GPU, first "
                f"{(missing or awaiting or ['?'])[0]}; log: build/test/figures.log")
    # The check itself, on a small tree: a logged figure, a computed one and a rule pass; an
    # unlogged one, a wrong computation and an unlogged operand fail.
    tree = os.path.join(WORK, "figures-tree")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(os.path.join(tree, "docs/results"))
    os.makedirs(os.path.join(tree, "labs/lab1-x"))
    with open(os.path.join(tree, "docs/results/a.log"), "w") as log:
        log.write("| kernel | median time | GB/s |\n| a | 0.772 ms | 4136 |\n| b | 0.056 ms | 170 |\n")
    with open(os.path.join(tree, "docs/results/b.log"), "w") as log:
        log.write("| kernel | median time |\n| c | 0.5 ms |\n")
    with open(os.path.join(tree, "docs/results/device.md"), "w") as log:
        log.write("| top clock of a multiprocessor | 1.98 GHz |\n| shared memory | 228 KB |\n"
                  "sm_90 kernel: 32 registers\nmain loop: 173 instructions\n"
                  "by opcode: 4 LDG.E.EF.128, 32 ATOMS.POPC.INC.32\n")
    cases = [
        ("a logged time and a table cell's rate", "It took 0.772 ms, 4136 GB/s.", True),
        ("a ratio computed from logged times", "About 14x slower. <!-- computed: 14x = 0.772 ms / 0.056 ms -->", True),
        ("a figure that is a rule", "Full points at 1.2x. <!-- not measured: the points rule -->", True),
        ("sizes of inputs", "On 256 MiB of text.", True),
        ("a figure in no log", "It took 0.771 ms.", False),
        ("a computed figure that the expression does not give", "15x <!-- computed: 15x = 0.772 ms / 0.056 ms -->", False),
        ("a computation on an unlogged figure", "3x <!-- computed: 3x = 0.9 ms / 0.3 ms -->", False),
        ("a percentage in no log", "at 97.1% of the copy", False),
        ("a figure of another log than the doc names", "<!-- figures from: docs/results/b.log --> It took 0.772 ms.", False),
        ("a figure of the log the doc names", "<!-- figures from: docs/results/a.log --> It took 0.772 ms.", True),
        ("a named log that does not exist", "<!-- figures from: docs/results/gone.log --> It took 0.772 ms.", False),
        ("a comment that begins a line", "About\n<!-- computed: 14x = 0.772 ms / 0.056 ms --> 14x slower.", False),
        ("a logged clock", "at up to 1.98 GHz", True),
        ("a clock in no log", "at about 2 GHz", False),
        ("a logged size of the hardware", "228 KB of shared memory", True),
        ("a size of the hardware in no log", "256 KB of L1", False),
        ("a logged register count", "32 registers a thread", True),
        ("a register count in no log", "40 registers a thread", False),
        ("a logged instruction count", "173 instructions", True),
        ("an instruction count in no log", "about 3 instructions a byte", False),
        ("a logged count of an opcode", "4 `LDG.E.EF.128` a pass", True),
        ("the count of an opcode's prefix", "32 `ATOMS.POPC.INC` a loop", True),
        ("a count of an opcode in no log", "64 `PRMT`", False),
        ("a sentence that awaits make results", "It reads as fast. <!-- awaits make results: the main loop -->", False),
    ]
    for description, text, backed in cases:
        for name in ("README.md", "labs/lab1-x/README.md"):
            with open(os.path.join(tree, name), "w") as doc:
                doc.write(text + "\n" if name == "README.md" else "# nothing\n")
        status, output = run([sys.executable, os.path.join(ROOT, "grader/tests/check_figures.py"), tree])
        tally.check(f"check_figures: {description}: {'backed' if backed else 'refused'}",
                    "pass" if (status == 0) == backed else "fail", output.strip().splitlines()[0] if status else "")


    # make results finds a kernel's main loop in its machine code: the innermost loop with the
    # most instructions (bench/record_results.py), here of a made-up kernel.
    import record_results  # noqa: E402 (bench/, on the path above)
    sass = "\n".join(f"        /*{address:04x}*/                   {text} ;" for address, text in [
        (0x00, "MOV R1, c[0x0][0x28]"), (0x10, "LDG.E R2, desc[UR4][R4.64]"), (0x20, "@P0 BRA 0x10"),
        (0x30, "LDG.E.128 R4, desc[UR4][R2.64]"), (0x40, "PRMT R5, R4, 0x5504, R6"), (0x50, "LDS R7, [R5]"),
        (0x60, "@!P1 BRA 0x30"), (0x70, "@P2 BRA 0x0"), (0x80, "EXIT")])
    kernels = record_results.kernels_of("        Function : _Z6kernelv\n" + sass)
    text = "\n".join(record_results.main_loops_text(kernels, ["kernel"]))
    wanted = ["main loop: 0x0030 to 0x0060, 4 instructions", "1 LDG.E.128", "1 PRMT", "1 LDS"]
    tally.check("make results: a kernel's main loop, counted", "pass" if all(w in text for w in wanted) else "fail",
                "" if all(w in text for w in wanted) else text.replace("\n", " | ")[:200])
    part_docs_manifest()
    part_docs_skeletons()
    part_docs_hints()
    part_docs_answers()
    part_docs_exploits()


def exploits_not_in_the_table(root):
    """The exploits of root/grader/exploits/ whose name no row of its README's table gives (`name`
    in a line that starts with |), as lab/name."""
    with open(os.path.join(root, "grader/exploits/README.md"), encoding="utf-8") as readme:
        named = set(re.findall(r"`([^`]+)`", "".join(line for line in readme if line.startswith("|"))))
    paths = glob.glob(os.path.join(root, "grader/exploits/*/*.cu")) + \
        glob.glob(os.path.join(root, "grader/exploits/*/*.patch"))
    return sorted(f"{os.path.basename(os.path.dirname(path))}/{os.path.splitext(os.path.basename(path))[0]}"
                  for path in paths if os.path.splitext(os.path.basename(path))[0] not in named)


def part_docs_exploits():
    """grader/exploits/README.md's table lists every exploit: an instructor reads there what the
    grader is defended against; a file added without its row fails here."""
    missing = exploits_not_in_the_table(ROOT)
    tally.check("every exploit has its row in grader/exploits/README.md", "fail" if missing else "pass",
                f"not there: {', '.join(missing[:5])}" if missing else "")
    # The check itself: a tree with one exploit named in the table and one not.
    tree = os.path.join(WORK, "exploits-table-tree")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(os.path.join(tree, "grader/exploits/lab1-x"))
    with open(os.path.join(tree, "grader/exploits/README.md"), "w") as readme:
        readme.write("The `unlisted` one is named in prose only.\n| 1 | `listed` | a trick | failed |\n")
    for name in ("listed.cu", "unlisted.patch"):
        open(os.path.join(tree, "grader/exploits/lab1-x", name), "w").close()
    found = exploits_not_in_the_table(tree)
    tally.check("exploits' table check: a file without its row is caught", "pass" if found == ["lab1-x/unlisted"] else "fail",
                f"found {found}")


def part_docs_manifest():
    """The lab manifest (grader/labs.mk) and the labs' folders agree (grader/labs.py --check); the
    check fails on a lab's folder the manifest does not list, and on a listed lab without its
    files."""
    status, output = run([sys.executable, "grader/labs.py", "--check"])
    tally.check("the lab manifest lists every lab, each with its folders", "pass" if status == 0 else "fail",
                output.strip().splitlines()[0] if status else f"{len(labs())} labs")
    tree = os.path.join(WORK, "manifest-tree")
    files = ("labs/lab1-x/lab1.cu", "labs/lab1-x/lab1.h", "labs/lab1-x/demo.c", "grader/lab1-x/grade_lab1.c",
             "grader/lab1-x/crossings.h", "solutions/lab1-x/lab1.cu")
    cases = [
        ("a lab as it must be", ("lab1-x",), files, 0),
        ("a listed lab without its grader", ("lab1-x",), files[:3] + files[5:], 1),
        ("a lab's folder the manifest does not list", (), files, 1),
        ("a listed lab without any folder", ("lab1-x", "lab2-y"), files, 1),
    ]
    for description, listed, present, expected in cases:
        shutil.rmtree(tree, ignore_errors=True)
        write_manifest(tree, *listed)
        for path in present:
            os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
            open(os.path.join(tree, path), "w").close()
        status, output = run([sys.executable, "grader/labs.py", "--check", "--root", tree])
        tally.check(f"labs --check: {description}: exit {expected}", "pass" if status == expected else "fail",
                    output.strip().splitlines()[0] if output.strip() else f"exit {status}")


def part_docs_answers():
    """Every question of every handout has an answer in its lab's answers.md."""
    status, output = run([sys.executable, "grader/tests/check_answers.py"], log=os.path.join(WORK, "answers.log"))
    tally.check("every handout question has its answer", "pass" if status == 0 else "fail",
                f"{output.strip().splitlines()[0]}; log: build/test/answers.log" if status else "")
    tree = os.path.join(WORK, "answers-tree")
    handout = "# Lab 1\n\n## Questions\n\n1. Why?\n2. How many?\n\n## Build\n\n3. not a question\n"
    cases = [
        ("every question answered", "## Question 1\n\nBecause.\n\n## Question 2\n\nTwo.\n", 0),
        ("a question without an answer", "## Question 1\n\nBecause.\n", 1),
        ("an empty answer", "## Question 1\n\nBecause.\n\n## Question 2\n\n<!-- later -->\n", 1),
        ("an answer to no question", "## Question 1\n\nA.\n\n## Question 2\n\nB.\n\n## Question 3\n\nC.\n", 1),
        ("no answers file", None, 1),
    ]
    for description, answers, expected in cases:
        shutil.rmtree(tree, ignore_errors=True)
        os.makedirs(os.path.join(tree, "labs/lab1-x"))
        with open(os.path.join(tree, "labs/lab1-x/README.md"), "w") as out:
            out.write(handout)
        if answers is not None:
            with open(os.path.join(tree, "labs/lab1-x/answers.md"), "w") as out:
                out.write(answers)
        status, output = run([sys.executable, os.path.join(ROOT, "grader/tests/check_answers.py"), tree])
        tally.check(f"check_answers: {description}: exit {expected}", "pass" if status == expected else "fail",
                    output.strip().splitlines()[0] if output.strip() else f"exit {status}")


def part_docs_hints():
    """Every TODO of every skeleton has hints naming tests its grader has (grader/hints.py), and
    the hint shown is the next of the first TODO not yet passed, one at a time."""
    # The lab's test list, which the hints' patterns are checked against, comes from its grader.
    listings = [f"build/listing/{lab}/tests.records" for lab in labs()]
    status, output = run(["make", "-s", f"-j{parallel_gradings()}", *listings], log=os.path.join(WORK, "listings.log"))
    if status != 0:
        tally.check("every lab's test list builds", "fail", "log: build/test/listings.log")
    status, output = run([sys.executable, "grader/hints.py", "--check"])
    built = sum(os.path.exists(os.path.join(ROOT, path)) for path in listings)
    tally.check("every TODO has its hints, naming its lab's tests", "pass" if status == 0 and built == len(labs()) else "fail",
                output.strip().splitlines()[0] if status else f"{built} of {len(labs())} labs' test lists")
    tree = os.path.join(WORK, "hints-tree")
    hints = ("# Lab 1: hints\n\n## TODO 1: first\ntests: part_a/*\n\n### the idea\n\nidea one\n\n"
             "### the API\n\nAPI one\n\n## TODO 2-3: second\ntests: part_b/*\n\n### the idea\n\nidea two\n")
    skeleton = "// TODO 1: a\n// TODO 2: b\n// TODO 3: c\n"
    listing = "listed\tpart_a/x\nlisted\tpart_b/y\n"

    def make_tree(hints_text, skeleton_text, tap):
        shutil.rmtree(tree, ignore_errors=True)
        for folder in ("labs/lab1-x", "build/listing/lab1-x", "build/hints/lab1-x"):
            os.makedirs(os.path.join(tree, folder))
        write_manifest(tree, "lab1-x")
        for path, text in (("labs/lab1-x/hints.md", hints_text), ("labs/lab1-x/lab1.cu", skeleton_text),
                           ("build/listing/lab1-x/tests.records", listing),
                           ("build/hints/lab1-x/last-grading.tap", tap)):
            with open(os.path.join(tree, path), "w") as out:
                out.write(text)

    def hint(*arguments):
        return run([sys.executable, os.path.join(ROOT, "grader/hints.py"), "--root", tree, *arguments])

    cases = [
        ("a TODO of the skeleton without hints", hints.replace("## TODO 2-3", "## TODO 2"), 1),
        ("a pattern that matches none of the lab's tests", hints.replace("part_b/*", "part_c/*"), 1),
        ("a TODO with no 'tests:' line", hints.replace("tests: part_a/*\n", ""), 1),
        ("hints as they must be", hints, 0),
    ]
    for description, text, expected in cases:
        make_tree(text, skeleton, "")
        status, output = hint("--check")
        tally.check(f"hints --check: {description}: exit {expected}", "pass" if status == expected else "fail",
                    output.strip().splitlines()[0] if output.strip() else f"exit {status}")
    passed_a = "TAP version 13\n1..2\nok 1 - part_a/x\nnot ok 2 - part_b/y\n"
    make_tree(hints, skeleton, passed_a)
    shown = [hint("lab1")[1].splitlines()[0] for _ in range(3)] + [hint("lab1", "--todo", "1")[1].splitlines()[0]]
    expected = ["lab1, TODOs 2 to 3 (second), hint 1 of 1: the idea"] * 3 + ["lab1, TODO 1 (first), hint 1 of 2: the idea"]
    tally.check("hints: the next hint of the first TODO not passed, one at a time",
                "pass" if shown == expected else "fail", "" if shown == expected else f"shown: {shown}")
    # A test that could not run (no GPU) is "not ok" with "# not run: why" on its next line
    # (grader/results/reports.c): the hint says it was not run, not that it failed.
    make_tree(hints, skeleton, passed_a + "# not run: needs a GPU, and this machine has none\n")
    output = hint("lab1")[1]
    said = "was not run" in output and "failed" not in output
    tally.check("hints: a test that could not run is said not run, not failed", "pass" if said else "fail",
                "" if said else output.strip()[:200])
    # Not run, the kit cannot see where the student is: the hint says how to ask for another
    # TODO's; after a failed test it does not (the student is at that TODO).
    pointed = "--hint=N" in output
    make_tree(hints, skeleton, passed_a)
    pointed_after_failure = "--hint=N" in hint("lab1")[1]
    tally.check("hints: tests not run, the hint says how to ask for another TODO's; failed, it does not",
                "pass" if pointed and not pointed_after_failure else "fail",
                f"pointed when not run: {pointed}, when failed: {pointed_after_failure}")
    # Without a GPU no test runs: once every hint of TODO 1 is seen, the next ones are TODO 2's
    # (a failed TODO 1 keeps its last hint: the student has work to do there).
    not_run = ("TAP version 13\n1..2\nnot ok 1 - part_a/x\n# not run: needs a GPU\n"
               "not ok 2 - part_b/y\n# not run: needs a GPU\n")
    for description, tap, expected_last in (
            ("tests not run: on to the next TODO", not_run,
             "lab1, TODOs 2 to 3 (second), hint 1 of 1: the idea"),
            ("a failed TODO keeps its last hint", passed_a.replace("ok 1", "not ok 1", 1),
             "lab1, TODO 1 (first), hint 2 of 2: the API")):
        make_tree(hints, skeleton, tap)
        shown = [hint("lab1")[1].splitlines()[0] for _ in range(3)]
        expected = ["lab1, TODO 1 (first), hint 1 of 2: the idea",
                    "lab1, TODO 1 (first), hint 2 of 2: the API", expected_last]
        tally.check(f"hints: every hint of a TODO seen, {description}",
                    "pass" if shown == expected else "fail", "" if shown == expected else f"shown: {shown}")
    # Every hint seen and no test run: the hint says so, and one asked for by number starts
    # again from the first.
    make_tree(hints, skeleton, not_run)
    shown = [hint("lab1")[1].splitlines()[0] for _ in range(4)] + [hint("lab1", "--todo", "1")[1].splitlines()[0]]
    ended = "seen every hint of every TODO" in shown[3] and shown[4].startswith("lab1, TODO 1 (first), hint 1 of 2")
    tally.check("hints: every hint seen, tests not run: said so; --hint=N starts again at its first",
                "pass" if ended else "fail", "" if ended else f"shown: {shown[3:]}")
    make_tree(hints, skeleton, passed_a.replace("not ok 2", "ok 2"))
    output = hint("lab1")[1]
    tally.check("hints: none when every TODO's tests passed", "pass" if "no hint needed" in output else "fail",
                output.strip().splitlines()[0] if output.strip() else "no output")


def part_docs_skeletons():
    """The committed skeletons are what their solutions make (grader/make_skeleton.py); the
    generator refuses bad markers and its check fails on a skeleton edited by hand."""
    status, output = run([sys.executable, "grader/make_skeleton.py", "--check"])
    tally.check("every skeleton is made from its solution", "pass" if status == 0 else "fail",
                output.strip().splitlines()[-1] if status else "")
    tree = os.path.join(WORK, "skeleton-tree")
    cases = [
        ("a skeleton edited by hand", "// SKELETON: (void)x;\nint a;\n", "(void)x;\nint a;\n// edited\n", 1),
        ("a solution block never ended", "// BEGIN SOLUTION\nint a;\n", None, 2),
        ("an END SOLUTION without its BEGIN", "int a;\n    // END SOLUTION\n", None, 2),
        ("a SKELETON line inside a solution block", "// BEGIN SOLUTION\n// SKELETON: x\n// END SOLUTION\n", None, 2),
        ("a marker that is not a line of its own", "int a; // BEGIN SOLUTION\n", None, 2),
        ("a skeleton made as it must be", "// SKELETON: (void)x;\n    // BEGIN SOLUTION\nint a;\n    // END SOLUTION\nint b;\n",
         "(void)x;\nint b;\n", 0),
    ]
    for description, solution, skeleton, expected in cases:
        shutil.rmtree(tree, ignore_errors=True)
        os.makedirs(os.path.join(tree, "solutions/lab1-x"))
        os.makedirs(os.path.join(tree, "labs/lab1-x"))
        write_manifest(tree, "lab1-x")
        with open(os.path.join(tree, "solutions/lab1-x/lab1.cu"), "w") as out:
            out.write(solution)
        if skeleton is not None:
            with open(os.path.join(tree, "labs/lab1-x/lab1.cu"), "w") as out:
                out.write(skeleton)
        status, output = run([sys.executable, os.path.join(ROOT, "grader/make_skeleton.py"), "--check",
                              "--root", tree])
        tally.check(f"make_skeleton: {description}: exit {expected}", "pass" if status == expected else "fail",
                    output.strip().splitlines()[0] if output.strip() else f"exit {status}")


def part_labs():
    print("== graders on the reference solutions (must pass) and the skeletons (must be rejected)")
    # The skeletons, untimed, side by side; the solutions, timed, one after the other.
    with concurrent.futures.ThreadPoolExecutor(parallel_gradings()) as pool:
        skeletons = dict(zip(labs(), pool.map(
            lambda lab: grade(short(lab), "--no-timing", "--seed", "12345", name=f"{lab}-skeleton"), labs())))
    for lab in labs():
        status, summary, _, log = grade(short(lab), "--solution", "--seed", "12345", name=f"{lab}-solution")
        verdict = (summary or {}).get("verdict")
        if status == 0 and verdict == "passed":
            tally.check(f"{lab} solution accepted", "pass",
                        f"{summary['tests_passed']} tests, {summary['score']:.1f}/{summary['max_score']:.1f} points, "
                        f"ratio {summary['time_ratio']}")
        elif status == 3 and verdict == "not graded on a GPU":
            tally.check(f"{lab} solution accepted", "skip", f"needs a GPU to show ({summary['tests_passed']} CPU tests passed)")
        else:
            tally.check(f"{lab} solution accepted", "fail", f"exit {status}, verdict {verdict}; log: {log}")
        status, summary, _, log = skeletons[lab]
        verdict = (summary or {}).get("verdict")
        if status == 1 and verdict == "failed" and summary["tests_failed"] > 0:
            tally.check(f"{lab} skeleton rejected", "pass", f"{summary['tests_failed']} tests failed, as they must")
        elif status == 3:
            tally.check(f"{lab} skeleton rejected", "skip", "needs a GPU to show")
        else:
            tally.check(f"{lab} skeleton rejected", "fail", f"exit {status}, verdict {verdict}; log: {log}")
    check_grading_not_as_root()


# A user no grading machine gives a login: ./grade run by it, as a student runs it.
NOT_ROOT_UID = 65534


def check_grading_not_as_root():
    """A student grades as a user of their own, not root: lab 1's reference, speed included,
    graded by another user in a copy of the kit (the driver's process lock, which holds the
    workers between timed runs, refuses a non-root grader a worker it may not trace)."""
    check = "lab1 solution accepted, graded by a user other than root"
    if os.geteuid() != 0:
        tally.check(check, "skip", "make test runs as this user already (only root can become another)")
        return
    if not gpu_here():
        tally.check(check, "skip", "needs a GPU to show")
        return
    setpriv = shutil.which("setpriv")
    if not setpriv:
        tally.check(check, "skip", "no setpriv (Debian's util-linux) to become another user")
        return
    scratch = tempfile.mkdtemp(prefix="make-test-not-root-")
    try:
        os.chmod(scratch, 0o755)
        kit = os.path.join(scratch, "kit")
        shutil.copytree(ROOT, kit, symlinks=True, ignore=shutil.ignore_patterns("build", ".git", ".device"))
        env = dict(os.environ, HOME=scratch)
        criterion = os.environ.get("CRITERION_PREFIX")
        if criterion:  # where it is may not be open to that user (a copy under /root)
            env["CRITERION_PREFIX"] = os.path.join(scratch, "criterion")
            shutil.copytree(criterion, env["CRITERION_PREFIX"], symlinks=True)
            env["LD_LIBRARY_PATH"] = os.path.join(env["CRITERION_PREFIX"], "lib", "x86_64-linux-gnu")
        run(["chown", "-R", f"{NOT_ROOT_UID}:{NOT_ROOT_UID}", scratch])
        summary_path = os.path.join(scratch, "summary.json")
        log = os.path.join(WORK, "lab1-solution-not-root.log")
        status, _ = run([setpriv, f"--reuid={NOT_ROOT_UID}", f"--regid={NOT_ROOT_UID}", "--clear-groups",
                         "./grade", "lab1", "--solution", "--seed", "12345", "--summary", summary_path],
                        cwd=kit, env=env, timeout=900, log=log)
        summary = read_json(summary_path) or {}
        passed = status == 0 and summary.get("verdict") == "passed" and summary.get("time_ratio") is not None
        tally.check(check, "pass" if passed else "fail",
                    f"exit {status}, verdict {summary.get('verdict')}, ratio {summary.get('time_ratio')}; log: {log}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def part_limits():
    print("== the references under a smaller GPU's shared memory a block (KIT_SHARED_MEMORY_PER_BLOCK=48K,")
    print("   64K, 99K: grader/tests/shared_memory_limits.py); lab 9's old fixed layout refused there")
    import shared_memory_limits
    for description, status, detail in shared_memory_limits.checks(WORK, gpu_here()):
        tally.check(description[:64], status, detail)


def header(path, key):
    """The value of a '# key: value' or '// key: value' line at the top of a variant or exploit."""
    with open(path, errors="replace") as file:
        for line in file:
            match = re.match(r"\s*(#|//)\s*" + re.escape(key) + r":\s*(.*)", line)
            if match:
                return match.group(2).strip()
    return None


def part_variants():
    print("== the variants of grader/variants/ (a planted mistake rejected, naming it; a right rewrite accepted)")
    chosen = re.compile(os.environ.get("VARIANTS", ""))  # as EXPLOITS: a regex of LAB/NAME
    scripts = [script for script in sorted(glob.glob(os.path.join(ROOT, "grader/variants/*/*.sed")))
               if chosen.search(os.path.relpath(script, os.path.join(ROOT, "grader/variants"))[:-4])]

    def grade_variant(script):
        lab = os.path.basename(os.path.dirname(script))
        name = os.path.basename(script)[:-4]
        options = (header(script, "options") or "").split()
        return script, grade(short(lab), "--variant", name, "--no-timing", "--seed", "12345", *options,
                             name=f"{lab}-variant-{name}")

    with concurrent.futures.ThreadPoolExecutor(parallel_gradings()) as pool:
        for script, (status, summary, results, log) in pool.map(grade_variant, scripts):
            lab = os.path.basename(os.path.dirname(script))
            name = os.path.basename(script)[:-4]
            expect = header(script, "expect")
            if status == 3:
                tally.check(f"{lab} {name} {'accepted' if expect == 'accepted' else 'rejected'}", "skip", "needs a GPU to show")
            elif expect == "accepted":
                tally.check(f"{lab} {name} accepted", "pass" if status == 0 else "fail", f"exit {status}; log: {log}" if status else "")
            elif status == 1 and mentions(results, summary, expect):
                tally.check(f"{lab} {name} rejected", "pass", f'"{expect}"')
            else:
                tally.check(f"{lab} {name} rejected", "fail", f'exit {status}, expected exit 1 and "{expect}"; log: {log}')


def built_exploit(path):
    """The file ./grade grades for an exploit of grader/exploits/LAB/: NAME.cu as it is, or
    NAME.patch applied to the lab's reference, written to build/test/LAB-exploit-NAME.cu. Returns
    (that file, None), or (None, why it could not be built)."""
    lab = os.path.basename(os.path.dirname(path))
    if path.endswith(".cu"):
        return path, None
    reference = os.path.join("solutions", lab, short(lab) + ".cu")
    built = os.path.join(WORK, f"{lab}-exploit-{os.path.basename(path)[:-len('.patch')]}.cu")
    if os.path.exists(built):
        os.remove(built)
    if not shutil.which("patch"):
        return None, "the patch command is not installed (apt-get install patch)"
    # No fuzz: a hunk whose context the reference no longer has fails, rather than landing on
    # lines that only look alike. --force: never take a hunk for a reversed one, never ask.
    status, output = run(["patch", "--force", "--fuzz=0", "--quiet", "--no-backup-if-mismatch",
                          "--reject-file=-", "--output", built, reference, path])
    if status != 0:
        if os.path.exists(built):
            os.remove(built)
        failed = " ".join(line.strip() for line in output.splitlines() if "FAILED" in line)
        return None, (f"{os.path.relpath(path, ROOT)} does not apply to {reference}"
                      f" ({failed or output.strip() or f'patch exit {status}'}): update the patch")
    return built, None


HANG_PROBLEM = "ran past its time limit"  # what the results model says of a test that timed out


def part_exploits():
    print("== the exploit suite of grader/exploits/ (each trick gets the verdict it must)")
    # EXPLOITS, a regular expression over "lab/name", picks some (a GPU run in parts).
    chosen = re.compile(os.environ.get("EXPLOITS", ""))
    untimed, timed = [], []
    sources = glob.glob(os.path.join(ROOT, "grader/exploits/*/*.cu"))
    sources += glob.glob(os.path.join(ROOT, "grader/exploits/*/*.patch"))
    for path in sorted(sources):
        lab = os.path.basename(os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        if not chosen.search(f"{lab}/{name}"):
            continue
        # A patch is applied first, known limits too: one that no longer applies fails here.
        built, why_not = built_exploit(path)
        if not built:
            tally.check(f"{lab} exploit {name}"[:64], "fail", why_not)
            continue
        expect = header(built, "expect")
        if expect == "no-gain" and not (header(built, "expect-problem") and
                                        header(built, "expect-ratio-at-least")):
            tally.check(f"{lab} exploit {name}"[:64], "fail", "a no-gain exploit needs "
                        "expect-problem (how it is caught) and expect-ratio-at-least (what its "
                        "code is worth)")
            continue
        if expect == "known-limit":
            # A trick the kit does not stop, said so in the file and in docs/instructors.md: a
            # reminder in every run, not a pass.
            tally.check(f"{lab} exploit {name}"[:64], "skip", "known limit: " + header(built, "known-limit"))
            continue
        if expect in ("passed-without-gain", "no-gain") or header(built, "timing") == "needed":
            timed.append((path, built))
        else:
            untimed.append((path, built))

    def grade_exploit(exploit, timing):
        path, built = exploit
        lab = os.path.basename(os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        options = (header(built, "options") or "").split()
        return grade(short(lab), "--file", built, "--seed", "12345", *([] if timing else ["--no-timing"]),
                     *options, name=f"{lab}-exploit-{name}")

    # The untimed ones side by side; the timed ones alone, one after the other, as timing needs.
    with concurrent.futures.ThreadPoolExecutor(parallel_gradings()) as pool:
        graded = list(zip(untimed, pool.map(lambda exploit: grade_exploit(exploit, False), untimed)))
    graded += [(exploit, grade_exploit(exploit, True)) for exploit in timed]
    for (path, built), (status, summary, results, log) in sorted(graded):
        lab = os.path.basename(os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        expect = header(built, "expect")
        problem = header(built, "expect-problem")
        at_least = header(built, "expect-ratio-at-least")
        score_at_most = header(built, "expect-score-at-most")
        verdict = (summary or {}).get("verdict")
        label = f"{lab} exploit {name}: {expect}"[:64]
        if problem == HANG_PROBLEM and verdict == expect and not mentions(results, summary, problem):
            # Criterion 2.4's runner now and then crashes itself when it kills a test past its
            # time limit (a race of its own, Snaipe/Criterion#468): the hang then shows as a
            # crash. Graded once more, the hang must show as a hang.
            status, summary, results, log = grade_exploit((path, built), False)
            verdict = (summary or {}).get("verdict")
            label = f"{lab} exploit {name}: {expect} (again)"[:64]
        if status == 3 and expect != "does not compile":
            tally.check(label, "skip", "needs a GPU to show")
        elif expect in ("passed-without-gain", "no-gain"):
            # no-gain: a trick whose outcome hangs on timing, caught (failed, naming its problem)
            # or passed at no gain; either way it buys nothing. Passed, the grading's log must
            # show that the trick ran (expect-said-if-passed), or a trick that silently did
            # nothing would pass as one that was stopped.
            ratio = (summary or {}).get("time_ratio")
            said = header(built, "expect-said-if-passed")
            ran = not said or said in read_text(log)
            ok = status == 0 and ratio is not None and ratio >= float(at_least or 0.9) and ran
            caught = (expect == "no-gain" and status == 1 and verdict == "failed"
                      and mentions(results, summary, problem))
            tally.check(label, "pass" if ok or caught else "fail",
                        f"exit {status}, verdict {verdict}, ratio {ratio}"
                        f"{' (' + repr(problem) + ')' if caught else ''}"
                        f"{'' if ran else ', its log without ' + repr(said)}; log: {log}")
        elif score_at_most is not None and (summary or {}).get("score", 0) > float(score_at_most):
            tally.check(label, "fail", f"score {summary.get('score')}, more than {score_at_most}; log: {log}")
        elif verdict == expect and status == 1 and (not problem or mentions(results, summary, problem)):
            tally.check(label, "pass", f'"{problem}"' if problem else "")
        else:
            tally.check(label, "fail", f"exit {status}, verdict {verdict}, expected {expect}"
                        f"{' and ' + repr(problem) if problem else ''}; log: {log}")


def consumers_missing():
    """The consumers check-reports.py runs that this machine lacks, as one string ("" if none)."""
    missing = [tool for tool in ("prove", "xmllint") if not shutil.which(tool)]
    for module in ("tap", "jsonschema"):
        if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode:
            missing.append(f"python module {module}")
    return ", ".join(missing)


def check_reports(label, files, expect=None):
    """Runs the consumers of grader/tests/check-reports.py on a grading's reports; expect
    ("passed" or "not-passed"): how each consumer must read the grading."""
    arguments = ["--expect", expect] if expect else []
    for option, path in files:
        arguments += [option, path]
    status, output = run([sys.executable, "grader/tests/check-reports.py", *arguments])
    failed = [line for line in output.splitlines() if re.search(r" fail(:|$)", line)]
    tally.check(f"reports of {label} accepted by their consumers", "pass" if status == 0 else "fail",
                "; ".join(failed)[:300] if status else f"{len(output.splitlines())} checks")


def part_reports():
    print("== every report, for every outcome, read by its real consumer (prove, tap.py, xmllint with")
    print("   the JUnit schema, JSON Schema of Gradescope's results.json)")
    missing = consumers_missing()
    if missing:
        tally.check("the reports' consumers are installed", "fail" if os.environ.get("CI") else "skip",
                    f"missing here: {missing} (.ci/run installs them)")
        return
    fixtures = os.path.join(ROOT, "grader/tests/report-fixtures")
    # Each consumer must read each grading as its verdict says: the untouched skeleton of lab 5,
    # which no machine may pass (without a GPU: not graded), as not passed.
    gradings = [
        ("a passing grading", "passed", ["lab4", "--solution", "--no-timing", "--filter", "sequential/*"]),
        ("a failing grading", "not-passed", ["lab4", "--no-timing", "--filter", "sequential/*"]),
        ("a crashing grading", "not-passed", ["lab4", "--file", os.path.join(fixtures, "crashes-lab4.cu"), "--no-timing", "--filter", "sequential/*"]),
        ("a grading that does not build", "not-passed", ["lab4", "--file", os.path.join(fixtures, "does-not-build-lab4.cu"), "--no-timing"]),
        ("a grading without a GPU", "not-passed", ["lab5", "--no-timing"]),
    ]
    if not os.path.isdir(os.path.join(ROOT, "solutions")):
        gradings = gradings[1:]
    for label, expect, arguments in gradings:
        base = os.path.join(WORK, "report-" + re.sub(r"[^a-z]+", "-", label))
        outputs = {option: base + suffix for option, suffix in
                   (("--json", ".results.json"), ("--tap", ".tap"), ("--xml", ".xml"), ("--summary", ".summary.json"))}
        for path in outputs.values():
            if os.path.exists(path):
                os.remove(path)
        extra = [item for option, path in outputs.items() for item in (option, path)]
        status, output = run(["./grade", *arguments, *extra], log=base + ".log")
        if not all(os.path.exists(path) for path in outputs.values()):
            tally.check(f"reports of {label} written", "fail", f"exit {status}; log: {base}.log")
            continue
        summary = read_json(outputs["--summary"])
        tally.check(f"{label}: verdict '{summary['verdict']}', exit {status}", "pass")
        check_reports(label, [("--results-json", outputs["--json"]), ("--tap", outputs["--tap"]),
                              ("--junit", outputs["--xml"]), ("--summary", outputs["--summary"])], expect)


TARBALL_MARKER = "in the student tarball"  # a variant's header line "# in the student tarball: <why>"


def tarball_variants():
    """{lab: sorted names} of the variants whose .sed says it ships in the student tarball."""
    marked = {lab: [] for lab in labs()}
    for script in sorted(glob.glob(os.path.join(ROOT, "grader/variants/*/*.sed"))):
        if header(script, TARBALL_MARKER) is not None:
            marked.setdefault(os.path.basename(os.path.dirname(script)), []).append(os.path.basename(script)[:-4])
    return marked


def grade_commands(text):
    """(lab, option, value) of every ./grade command in a doc naming --solution or --variant."""
    commands = []
    for match in re.finditer(r"\./grade((?:[ \t]+\n?[ \t]*|\n[ \t]*)[\w.=*'/-]+)+", text):
        words = match.group(0).split()[1:]
        lab = next((word for word in words if not word.startswith("-")), "")
        for i, word in enumerate(words):
            if word == "--solution":
                commands.append((lab, "--solution", ""))
            elif word == "--variant" or word.startswith("--variant="):
                value = word.partition("=")[2] if "=" in word else (words[i + 1] if i + 1 < len(words) else "")
                commands.append((lab, "--variant", value))
    return commands


def secret_lines(kit):
    """The lines (stripped, 25 characters or more) of the solutions and of the variants (their
    scripts and the code they plant) that no file of the repository the tarball ships holds: what
    must not be in the tarball. The next lab's skeleton, for one, starts from this lab's solution."""
    shipped = set()
    for path in glob.glob(os.path.join(kit, "**/*"), recursive=True):
        relative = os.path.relpath(path, kit)
        twin = os.path.join(ROOT, relative)
        if os.path.isfile(path) and os.path.isfile(twin) and open(path, "rb").read() == open(twin, "rb").read():
            shipped.update(line.strip() for line in open(path, "rb").read().splitlines())
    secrets = {}
    for solution in glob.glob(os.path.join(ROOT, "solutions/*/*.cu")):
        for line in open(solution, "rb").read().splitlines():
            secrets[line.strip()] = os.path.relpath(solution, ROOT)
    for script in glob.glob(os.path.join(ROOT, "grader/variants/*/*.sed")):
        lab = os.path.basename(os.path.dirname(script))
        solution = os.path.join(ROOT, "solutions", lab, short(lab) + ".cu")
        planted = run(["sed", "-f", script, solution])[1].encode().splitlines()
        for line in open(script, "rb").read().splitlines() + planted:
            secrets.setdefault(line.strip(), os.path.relpath(script, ROOT))
    return {line: origin for line, origin in secrets.items() if len(line) >= 25 and line not in shipped}


def check_kit_is_the_commit():
    """make kit (and so make dist) ships the committed tree: in a clone of this commit, a
    solution copied over a lab's skeleton and left uncommitted does not ship, and a committed
    file that holds a solution is refused before anything is built."""
    clone = os.path.join(WORK, "kit-clone")
    shutil.rmtree(clone, ignore_errors=True)
    commit = run(["git", "rev-parse", "HEAD"])[1].strip()
    status, output = run(["bash", "-c", 'git clone -q --no-checkout "$1" "$2" && git -C "$2" checkout -q "$3"',
                          "clone", ROOT, clone, commit])
    if status != 0:
        tally.check("make kit: a clone of this commit to try it in", "fail", output.strip()[-200:])
        return
    solution = os.path.join(ROOT, "solutions", "lab1-race", "lab1.cu")
    skeleton = os.path.join(clone, "labs", "lab1-race", "lab1.cu")
    committed = open(skeleton, "rb").read()
    shutil.copyfile(solution, skeleton)
    kit = os.path.join(WORK, "kit-of-clone")
    shutil.rmtree(kit, ignore_errors=True)
    arch = os.environ.get("CUDA_ARCH", "").split()
    status, output = run(["make", "-s", "-C", clone, "kit", f"DEST={kit}", "KIT_LABS=lab1-race",
                          *([f"CUDA_ARCH={arch[-1]}"] if arch else [])], log=os.path.join(WORK, "kit-clone.log"))
    shipped = os.path.join(kit, "labs", "lab1-race", "lab1.cu")
    ok = status == 0 and os.path.isfile(shipped) and open(shipped, "rb").read() == committed
    tally.check("make kit ships the commit, not a solution left on a skeleton", "pass" if ok else "fail",
                f"exit {status}; log: build/test/kit-clone.log")
    with open(os.path.join(clone, "labs", "lab1-race", "answer.cu"), "wb") as file:
        file.write(b"// my answer\n" + open(solution, "rb").read())
    run(["git", "-C", clone, "checkout", "-q", "--", "labs/lab1-race/lab1.cu"])
    run(["git", "-C", clone, "add", "labs/lab1-race/answer.cu"])
    run(["git", "-C", clone, "-c", "user.name=make test", "-c", "user.email=make-test@localhost",
         "commit", "-q", "-m", "a solution committed into a lab folder"])
    refused = os.path.join(WORK, "kit-of-clone-refused")
    shutil.rmtree(refused, ignore_errors=True)
    status, output = run(["make", "-s", "-C", clone, "kit", f"DEST={refused}", "KIT_LABS=lab1-race"])
    said = [line for line in output.splitlines() if line.startswith("make kit:")]
    tally.check("make kit refuses a committed file that holds a solution",
                "pass" if status != 0 and not os.path.exists(refused) and len(said) == 1
                and "labs/lab1-race/answer.cu holds solutions/lab1-race/lab1.cu" in said[0] else "fail",
                f"exit {status}: {output.strip()[-300:]}")
    shutil.rmtree(clone, ignore_errors=True)
    shutil.rmtree(kit, ignore_errors=True)


def part_dist():
    print("== make dist: the students' tarball (the committed tree, no solution source; builds and grades)")
    check_kit_is_the_commit()
    planted = os.path.join(ROOT, "submissions-not-tracked")
    os.makedirs(planted, exist_ok=True)
    with open(os.path.join(planted, "lab5.cu"), "w") as out:
        out.write("// an untracked file: make dist must not ship it\n")
    status, output = run(["make", "-s", "dist"], log=os.path.join(WORK, "dist.log"))
    dist_output = output
    shutil.rmtree(planted)
    tarball = os.path.join(ROOT, "build/dist/cuda-histogram-labs.tar.gz")
    if status != 0 or not os.path.exists(tarball):
        tally.check("make dist builds the tarball", "fail", "log: build/test/dist.log")
        return
    tally.check("make dist builds the tarball", "pass")
    listing = run(["tar", "-tzf", tarball])[1].splitlines()
    leaked = [name for name in listing if re.search(r"/(solutions|grader/variants|grader/exploits|submissions-not-tracked)/", name)
              or name.endswith(".sed")]
    tally.check("the tarball holds only tracked files, no solution source", "fail" if leaked else "pass", " ".join(leaked[:3]))
    unpacked = os.path.join(WORK, "dist")
    shutil.rmtree(unpacked, ignore_errors=True)
    os.makedirs(unpacked)
    run(["tar", "-xzf", tarball, "-C", unpacked])
    kit = os.path.join(unpacked, "cuda-histogram-labs")
    files = {os.path.relpath(path, kit): open(path, "rb").read()
             for path in glob.glob(os.path.join(kit, "**/*"), recursive=True) if os.path.isfile(path)}
    leaks = []
    for solution in glob.glob(os.path.join(ROOT, "solutions/*/*.cu")):
        text = open(solution, "rb").read()
        first_line = text.splitlines()[0]
        leaks += [path for path, data in files.items() if first_line in data or data == text]
    secrets = secret_lines(kit)
    for path, data in files.items():
        # A text holds a line whole; an object, as a string anywhere.
        lines = set(line.strip() for line in data.splitlines())
        leaks += [f"{path} holds a line of {origin}" for line, origin in secrets.items()
                  if line in lines or (b"\0" in data and line in data)]
    references = glob.glob(os.path.join(kit, "prebuilt/reference/*.o"))
    tally.check("no solution or variant line in the tarball, compiled references",
                "pass" if not leaks and len(references) == len(labs()) else "fail",
                f"{len(secrets)} lines looked for; leaked: {leaks[:3]}, {len(references)} references")
    status, output = run(["bash", "-c", "make -s lab5 && ./grade lab5 --no-timing --seed 12345 --summary s.json"],
                         cwd=kit, log=os.path.join(WORK, "dist-grade.log"))
    summary = read_json(os.path.join(kit, "s.json"))
    verdict = (summary or {}).get("verdict")
    ok = (status == 1 and verdict == "failed") or (status == 3 and verdict == "not graded on a GPU")
    tally.check("the unpacked tarball builds and grades lab 5's skeleton", "pass" if ok else "fail",
                f"exit {status}, verdict {verdict}; log: build/test/dist-grade.log")
    # --solution grades the compiled reference, as the student's object (no source to check).
    gpu = gpu_here()
    status, summary, _, log = grade("lab4", "--solution", "--no-timing", "--seed", "12345", name="dist-solution", cwd=kit)
    graded = os.path.join(kit, "build/solution/lab4-text-histogram/lab4.o")
    stand_in = os.path.join(kit, "build/listing/lab4-text-histogram/stand-in.o")
    same = os.path.isfile(graded) and os.path.isfile(stand_in) and open(graded, "rb").read() == open(stand_in, "rb").read()
    verdict = (summary or {}).get("verdict")
    if gpu:
        ok = status == 0 and verdict == "passed"
    else:
        ok = status == 3 and verdict == "not graded on a GPU" and summary["tests_failed"] == 0 and summary["tests_passed"] > 1
    tally.check("the tarball's --solution grades the compiled reference", "pass" if ok and same else "fail",
                f"exit {status}, verdict {verdict}, "
                f"{'the compiled reference' if same else 'NOT the compiled reference'} graded; log: {log}")
    # --variant: exactly the marked variants, each graded as in the repository; no other.
    marked = tarball_variants()
    listed = {}
    for lab in labs():
        status, output = run([os.path.join(kit, "grade"), short(lab), "--variant", "list"], cwd=kit)
        names = output.partition(":")[2].split("(")[0].split()
        listed[lab] = sorted(name for name in names if name != "none")
    wrong = {lab: listed[lab] for lab in labs() if listed[lab] != sorted(marked.get(lab, []))}
    tally.check("the tarball's --variant list names the marked variants", "fail" if wrong else "pass",
                f"listed otherwise: {wrong}" if wrong else f"{sum(len(names) for names in marked.values())} variants")
    for lab, names in sorted(marked.items()):
        for name in names:
            script = os.path.join(ROOT, "grader/variants", lab, name + ".sed")
            options = (header(script, "options") or "").split()
            status, summary, results, log = grade(short(lab), "--variant", name, "--no-timing", "--seed", "12345",
                                                  *options, name=f"dist-{lab}-variant-{name}", cwd=kit)
            expect = header(script, "expect")
            verdict = (summary or {}).get("verdict")
            label = f"the tarball grades {short(lab)} --variant {name}"[:64]
            if not gpu:
                # Not "passed": what was not checked, said so, and the recorded GPU report.
                said = open(log, errors="replace").read()
                report = os.path.join(kit, "docs", "results", "variants", f"{lab}-{name}.log")
                shown = (os.path.isfile(report) and "recorded by make results" in said) or \
                    (not os.path.isfile(report) and "no GPU report of it is recorded" in said)
                ok = status == 3 and verdict == "not graded on a GPU" and "was NOT checked" in said and shown
            elif expect == "accepted":
                ok = status == 0
            else:
                ok = status == 1 and mentions(results, summary, expect)
            tally.check(label, "pass" if ok else "fail", f"exit {status}, verdict {verdict}; log: {log}")
    unrecorded = [f"{lab}-{name}" for lab, names in sorted(marked.items()) for name in names
                  if not os.path.isfile(os.path.join(kit, "docs", "results", "variants", f"{lab}-{name}.log"))]
    # A report only a GPU can record (make results) that is not recorded yet is not run, as a GPU
    # test without one: counted, with its reason, never passed.
    tally.check("the tarball ships each variant's recorded GPU report", "skip" if unrecorded else "pass",
                f"not recorded: {', '.join(unrecorded[:3])}{' ...' if len(unrecorded) > 3 else ''} (on a GPU: "
                "python3 bench/record_results.py --only variant-reports)" if unrecorded else "")
    # make kit names each of them, so that whoever makes the tarball learns it before a student does.
    warned = sorted(set(re.findall(r"no recorded GPU report \(docs/results/variants/(\S+)\.log is not in the commit\)",
                                   dist_output)))
    tally.check("make dist warns of each shipped variant with no recorded GPU report",
                "pass" if warned == sorted(unrecorded) else "fail",
                f"warned of {', '.join(warned) or 'none'}; not recorded: {', '.join(unrecorded) or 'none'}; "
                "log: build/test/dist.log")
    unmarked = sorted((lab, os.path.basename(script)[:-4]) for lab in labs()
                      for script in glob.glob(os.path.join(ROOT, "grader/variants", lab, "*.sed"))
                      if header(script, TARBALL_MARKER) is None)
    if unmarked:
        lab, name = unmarked[0]
        status, output = run([os.path.join(kit, "grade"), short(lab), "--variant", name], cwd=kit)
        lines = output.strip().splitlines()
        tally.check("the tarball refuses an unshipped variant in one line",
                    "pass" if status == 2 and len(lines) == 1 and f"no variant '{name}'" in lines[0] else "fail",
                    f"{lab} {name}: exit {status}: {output.strip()[:200]}")
    # Every --solution or --variant command in the students' docs names what the tarball runs.
    docs = ["README.md", "docs/student-guide.md"] + sorted(
        os.path.relpath(path, kit) for path in glob.glob(os.path.join(kit, "labs/*/*.md")))
    full_names = {short(lab): lab for lab in labs()} | {lab: lab for lab in labs()}
    unrunnable, named = [], 0
    for doc in docs:
        for lab, option, value in grade_commands(open(os.path.join(kit, doc), encoding="utf-8").read()):
            named += 1
            lab = full_names.get(lab)
            if lab is None or value == "list" or (option == "--variant" and (not value or value.isupper())):
                continue  # a placeholder (./grade labN --variant NAME) or the list
            if option == "--solution" and not os.path.isfile(os.path.join(kit, "prebuilt/reference", lab + ".o")):
                unrunnable.append(f"{doc}: ./grade {short(lab)} --solution")
            if option == "--variant" and value not in listed.get(lab, []):
                unrunnable.append(f"{doc}: ./grade {short(lab)} --variant {value}")
    tally.check("the tarball's docs name only what it runs", "fail" if unrunnable else "pass",
                f"not in the tarball: {'; '.join(unrunnable)}" if unrunnable else f"{named} commands")
    status, output = run(["make", "test"], cwd=kit)
    tally.check("the tarball's make test says where it belongs", "pass" if status != 0 and "repository" in output else "fail")
    if gpu:
        shutil.copy(os.path.join(ROOT, "solutions/lab5-privatized/lab5.cu"), os.path.join(kit, "labs/lab5-privatized/lab5.cu"))
        status, output = run(["./grade", "lab5", "--seed", "12345", "--summary", "right.json"], cwd=kit,
                             log=os.path.join(WORK, "dist-grade-right.log"))
        summary = read_json(os.path.join(kit, "right.json")) or {}
        tally.check("the unpacked tarball passes and times a right lab 5",
                    "pass" if status == 0 and summary.get("time_ratio") else "fail", f"exit {status}")
    else:
        tally.check("the unpacked tarball passes and times a right lab 5", "skip", "needs a GPU to show")


def class_fixture(name, *which):
    fixture = os.path.join(WORK, name)
    shutil.rmtree(fixture, ignore_errors=True)
    run(["bash", "grader/class-fixture.sh", fixture, *which])
    return fixture


def outside_the_kit(name):
    """A new folder for a class's results outside the kit (./grade-class refuses --out inside
    it): under TMPDIR, removed by the part that made it."""
    return tempfile.mkdtemp(prefix=f"make-test-{name}-")


def expected_rows(fixture, picked=None):
    """(name, verdicts, word) of the fixture's expected.tsv, names unescaped, verdicts the set
    a row may have ("failed|does not compile": either)."""
    for line in open(os.path.join(fixture, "expected.tsv"), encoding="utf-8", errors="surrogateescape"):
        name, verdict, word = line.rstrip("\n").split("\t")
        if "\\" in name:
            name = name.encode("utf-8", "surrogateescape").decode("unicode_escape").encode("latin-1").decode("utf-8", "surrogateescape")
        if picked is None or name in picked:
            yield name, set(verdict.split("|")), word


def row_of(rows, name):
    """The class.csv row of a roster name, found by its id: the slug and the first hex digits of
    the SHA-256 of its bytes (what grade-class shows as the name is checked apart)."""
    import hashlib
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()
    found = [row for row in rows[1:] if len(row) > 1 and digest.startswith(row[1].rsplit("-", 1)[-1])]
    return found[0] if len(found) == 1 else None


def check_class_table(label, fixture, out, picked=None, not_graded=()):
    """Every expected entry has its verdict in class.csv (on a machine without a GPU, the
    GPU verdicts are "not graded on a GPU"; "failed-on-the-cpu", a test a CPU runs failing, is
    "failed" with a GPU or without); entries of not_graded are "not graded"."""
    import csv
    rows = list(csv.reader(open(os.path.join(out, "class.csv"), newline="", encoding="utf-8")))
    gpu = gpu_here()
    for name, verdicts, word in expected_rows(fixture, picked):
        want = verdicts
        if name in not_graded:
            want, word = {"not graded"}, not_graded[name]
        elif "failed-on-the-cpu" in verdicts:
            want = {"failed"}
        elif not gpu:
            want = {"not graded on a GPU" if v in ("passed", "failed", "timed out") else v for v in verdicts}
            word = "-" if want != verdicts else word
        row = row_of(rows, name)
        got = row[2] if row else None
        ok = got in want and (word == "-" or word in ",".join(row))
        tally.check(f"{label}: {name!r} is '{'|'.join(sorted(want))}'"[:72], "pass" if ok else "fail", f"class.csv says: {row}")
    return rows


def is_inert(data):
    """Whether bytes are UTF-8 with no control character but newline, tab and the CSV's
    carriage return: nothing a terminal would act on."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)


def check_student_text(out, rows, log):
    """Names that spreadsheets read as formulas stay text; two names that would look alike do
    not; a compiler's escape codes and bytes that are not UTF-8 reach no table, report or
    console line raw."""
    formulas = [row_of(rows, name) for name in ("=1+2", "@SUM(1+1)", "-2+3")]
    tally.check("class: names that read as formulas are text in class.csv",
                "pass" if all(row and row[0].startswith("'") and row[0][1:2] in "=@-" for row in formulas) else "fail",
                f"{[row[0] if row else None for row in formulas]}")
    alike = [row_of(rows, name) for name in ("\\xff", "\udcff")]
    tally.check("class: two names that would look alike are shown apart",
                "pass" if all(alike) and alike[0][0] != alike[1][0] else "fail",
                f"{[row[0] if row else None for row in alike]}")
    escaped = row_of(rows, "escape-codes")
    files = [os.path.join(out, name) for name in ("class.csv", "class.md")] + [log]
    if escaped:
        folder = os.path.join(out, "students", escaped[1])
        files += [os.path.join(folder, name) for name in ("report.txt", "tests.tap", "line.json", "summary.json")]
    raw = [os.path.relpath(path, out) if path != log else "the console" for path in files
           if not os.path.isfile(path) or not is_inert(open(path, "rb").read())]
    tally.check("class: a compiler's escape codes and non-UTF-8 bytes reach nothing raw",
                "pass" if escaped and not raw else "fail", f"raw in: {raw}; row: {escaped}")
    if escaped:
        check_reports("the escape codes' TAP", [("--tap", os.path.join(out, "students", escaped[1], "tests.tap"))])


def part_class():
    print("== ./grade-class lab5 on this machine: a class (right, wrong, crashing, hanging, chatty, not")
    print("   compiling, missing, odd names, links, a hostile constructor, a build-time command), each")
    print("   graded in sandboxes; --out outside the kit and locked; a run interrupted and resumed")
    fixture = class_fixture("class-fixture")
    outside = outside_the_kit("class")
    try:
        class_run(fixture, outside)
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def class_run(fixture, outside):
    import csv
    submissions = os.path.join(fixture, "submissions")
    inside = os.path.join(WORK, "class-out-inside-the-kit")
    shutil.rmtree(inside, ignore_errors=True)
    status, output = run(["./grade-class", "lab5", "--submissions", submissions, "--out", inside])
    tally.check("class: --out inside the kit is refused in one line",
                "pass" if status == 2 and "inside the kit" in output and len(output.strip().splitlines()) == 1
                and not os.path.exists(inside) else "fail", f"exit {status}: {output.strip()[-200:]}")
    out = os.path.join(outside, "class-out")
    # The fixture's endless loop must outlast --student-timeout: on a GPU machine, where every
    # other entry is graded in seconds, its tests would each run to their 60 s limit first.
    student_timeout = "45" if gpu_here() else "150"
    command = ["./grade-class", "lab5", "--submissions", submissions, "--out", out, "--no-timing", "--seed", "12345",
               "--student-timeout", student_timeout, "--jobs", str(min(4, os.cpu_count() or 1))]
    log = os.path.join(WORK, "class.log")
    with open(log, "wb") as console:
        grading = subprocess.Popen(command, cwd=ROOT, stdout=console, stderr=subprocess.STDOUT)
        # While it grades, a second run on the same --out is refused at once: it would remove
        # the first one's kit.
        deadline = time.monotonic() + 900
        while grading.poll() is None and not os.path.isfile(os.path.join(out, "run.json")) and time.monotonic() < deadline:
            time.sleep(1)
        second, said = run(command, log=os.path.join(WORK, "class-second.log"))
        status = grading.wait()
    tally.check("class: a second run on an --out in use is refused in one line",
                "pass" if second == 2 and "in use" in said and len(said.strip().splitlines()) == 1 else "fail",
                f"exit {second}: {said.strip()[-200:]}")
    output = open(log, encoding="utf-8", errors="replace").read()
    if status == 4:
        tally.check("class: graded in a sandbox", "skip", "this machine cannot grade a class: " + output.strip()[-200:])
        return
    # Without a GPU most of the class is not graded on a GPU: the command says so, exit 1.
    complete = status == 0 if gpu_here() else status == 1 and "not graded on a GPU" in output.strip().splitlines()[-1]
    tally.check("class: every roster entry graded (exit 0; 1 naming why without a GPU)", "pass" if complete else "fail",
                f"exit {status}: {output.strip()[-300:]}")
    rows = check_class_table("class", fixture, out)
    forged = row_of(rows, "build-time-shell")
    tally.check("class: a build-time command forges no verdict", "pass" if forged and forged[6] == "0" and "FORGED" not in
                open(os.path.join(out, "students", forged[1], "report.txt"), errors="replace").read() else "fail", f"{forged}")
    # --no-timing takes the speed's points out of every row's maximum, as ./grade --no-timing
    # does (the class once kept them: issue 26).
    _, summary, _, log = grade("lab5", "--no-timing", "--seed", "12345", name="lab5-skeleton-no-timing-max")
    maxima = sorted({row[7] for row in rows[1:] if row[7]})
    expected = (summary or {}).get("max_score")
    shown = None if expected is None else f"{expected:.2f}".rstrip("0").rstrip(".")  # as class.csv writes points
    tally.check("class --no-timing: every row's maximum is ./grade --no-timing's",
                "pass" if shown is not None and maxima == [shown] else "fail",
                f"class.csv: {maxima}, ./grade lab5 --no-timing: {expected}; log: {log}")
    check_student_text(out, rows, log)
    check_reports("the class table", [("--csv", os.path.join(out, "class.csv"))])
    check_gradebook(out)
    # The run's task again on a machine without Criterion: the task stops (exit 4) and says
    # so; the merge names why the entries it did not grade have no line.
    for entry in os.listdir(os.path.join(out, "students")):
        os.unlink(os.path.join(out, "students", entry, "line.json"))
    status, output = run(["./grade-class", "--task", "0", "--out", out], env={"CRITERION_PREFIX": "/nonexistent"},
                         log=os.path.join(WORK, "class-no-criterion.log"))
    state = read_json(os.path.join(out, "tasks", "0.json")) or {}
    tally.check("class: a task on a machine without Criterion stops (exit 4)",
                "pass" if status == 4 and state.get("state") == "machine" and "Criterion" in state.get("why", "") else "fail",
                f"exit {status}, tasks/0.json: {state}; {output.strip()[-200:]}")
    status, output = run(["./grade-class", "--merge", "--out", out], log=os.path.join(WORK, "class-merge.log"))
    rows = list(csv.reader(open(os.path.join(out, "class.csv"), newline="")))
    lost = [row for row in rows[1:] if row[2] == "not graded"]
    tally.check("class: the merge names the machine that could not grade",
                "pass" if status == 1 and lost and all("cannot grade" in row[8] and "Criterion" in row[8] for row in lost) else "fail",
                f"exit {status}: {lost[:2]}")
    if gpu_here():
        class_timed(fixture, outside)
    else:
        class_on_the_gpu_path(fixture, outside)
    class_of_lab4(outside)
    interrupted_and_resumed(fixture, outside)


def class_on_the_gpu_path(fixture, outside):
    """Without a GPU, --gpus 0 still takes the path of a grading on a GPU (its tests wait for
    the GPU, and see that GPU's device nodes only): a build-time command gains nothing there."""
    picked = ("ada", "build-time-shell")
    submissions = os.path.join(outside, "gpu-path-submissions")
    os.makedirs(submissions)
    for name in picked:
        shutil.copytree(os.path.join(fixture, "submissions", name), os.path.join(submissions, name))
    out = os.path.join(outside, "gpu-path-out")
    status, output = run(["./grade-class", "lab5", "--submissions", submissions, "--out", out, "--no-timing",
                          "--seed", "12345", "--gpus", "0"], log=os.path.join(WORK, "class-gpu-path.log"))
    rows = check_class_table("class --gpus 0 without a GPU", fixture, out, picked)
    forged = row_of(rows, "build-time-shell")
    tally.check("class --gpus 0: a build-time command forges no verdict",
                "pass" if forged and forged[6] == "0" and "FORGED" not in
                open(os.path.join(out, "students", forged[1], "report.txt"), errors="replace").read() else "fail",
                f"exit {status}: {forged}")


def class_timed(fixture, outside):
    """On a GPU: a right and a wrong submission graded with timing, so that the references'
    worker (which the sandbox may run, not read) times the reference beside the student's."""
    picked = ("ada", "wrong-find-the-bug")
    submissions = os.path.join(outside, "timed-submissions")
    os.makedirs(submissions)
    for name in picked:
        shutil.copytree(os.path.join(fixture, "submissions", name), os.path.join(submissions, name))
    out = os.path.join(outside, "timed-out")
    status, output = run(["./grade-class", "lab5", "--submissions", submissions, "--out", out, "--seed", "12345"],
                         log=os.path.join(WORK, "class-timed.log"))
    rows = check_class_table("class, timed", fixture, out, picked)
    ada = row_of(rows, "ada")
    tally.check("class, timed: the right one is timed against the reference", "pass" if status == 0 and ada
                and ada[5] and ada[6] == ada[7] else "fail", f"exit {status}: {ada}; log: build/test/class-timed.log")


def class_of_lab4(outside):
    """A lab 4 class whose CPU function runs in every grading and reads every reference it can
    name: the sandbox holds none, and the references' worker can be run but not read. The
    wrong lab named (lab 5 for it) gives a class of "no file": exit 1, naming why."""
    fixture = class_fixture("class-lab4-fixture", "lab4")
    out = os.path.join(outside, "lab4-out")
    status, output = run(["./grade-class", "lab4", "--submissions", os.path.join(fixture, "submissions"), "--out", out,
                          "--no-timing", "--seed", "12345"], log=os.path.join(WORK, "class-lab4.log"))
    rows = check_class_table("class lab4", fixture, out)
    reader = row_of(rows, "reference-reader")
    report = open(os.path.join(out, "students", reader[1], "report.txt"), errors="replace").read() if reader else ""
    tally.check("class: a submission's code reads no reference in the sandbox",
                "pass" if "reference-reader: cannot open" in report and "reference-reader: READ" not in report else "fail",
                "; ".join(line for line in report.splitlines() if "reference-reader" in line)[:400] or f"exit {status}")
    if not gpu_here():
        # A test a CPU runs failed and the GPU tests did not run: a verdict on the code, not yet
        # its grade. Its row says so first, the run is no finished grading (exit 1, naming it),
        # and the gradebook keeps the export's cell (check_gradebook).
        wrong_cpu = row_of(rows, "sequential-wrong")
        last = output.strip().splitlines()[-1] if output.strip() else ""
        tally.check("class: a failure with the GPU tests not run is no grade: said first, exit 1",
                    "pass" if wrong_cpu and wrong_cpu[8].startswith("GPU tests not run") and status == 1
                    and "failed with the GPU tests not run" in last else "fail",
                    f"exit {status}: {last[:300]}; row: {wrong_cpu}")
    check_gradebook(out, "lab 4", byte_order_mark=True)
    wrong = os.path.join(outside, "wrong-lab-out")
    status, output = run(["./grade-class", "lab5", "--submissions", os.path.join(fixture, "submissions"), "--out", wrong,
                          "--no-timing", "--seed", "12345"], log=os.path.join(WORK, "class-wrong-lab.log"))
    last = output.strip().splitlines()[-1] if output.strip() else ""
    tally.check("class: a class of 'no file' (the wrong lab named) exits 1, naming why",
                "pass" if status == 1 and "have no lab5.cu" in last and "lab4.cu" in last else "fail",
                f"exit {status}: {last[:300]}")


def interrupted_and_resumed(fixture, outside):
    """Ctrl-C while the run is prepared, then while it grades: each ends in one line (exit 1),
    and the same command then resumes the run, the entries graded kept; a full disk ends the
    command in one line too (exit 4)."""
    import signal
    picked = ("ada", "syntax-error", "no-file", "wrong-file-name")
    submissions = os.path.join(outside, "resume-submissions")
    os.makedirs(submissions)
    for name in picked:
        shutil.copytree(os.path.join(fixture, "submissions", name), os.path.join(submissions, name))
    disk = os.path.join(outside, "small-disk")
    os.makedirs(disk)
    mounted = run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", disk])[0] == 0
    try:
        out = os.path.join(disk, "out")
        command = ["./grade-class", "lab5", "--submissions", submissions, "--out", out, "--no-timing",
                   "--seed", "12345", "--jobs", "1"]

        def interrupted_when(text):
            process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            seen = b""
            for line in process.stdout:
                seen += line
                if text.encode() in line:
                    process.send_signal(signal.SIGINT)
                    break
            rest, errors = process.communicate(timeout=600)
            return process.returncode, (seen + rest).decode(errors="replace"), errors.decode(errors="replace")

        status, said, errors = interrupted_when("roster entries;")
        tally.check("class: Ctrl-C while preparing ends in one line (exit 1)",
                    "pass" if status == 1 and len(errors.strip().splitlines()) == 1 and "Traceback" not in errors else "fail",
                    f"exit {status}: {errors.strip()[-300:]}")
        status, said, errors = interrupted_when("[1/4]")
        graded = {}
        for entry in (read_json(os.path.join(out, "run.json")) or {}).get("roster", []):
            path = os.path.join(out, "students", entry["id"], "line.json")
            if os.path.isfile(path):
                graded[path] = open(path, "rb").read()
        tally.check("class: Ctrl-C while grading ends in one line (exit 1), a class table written",
                    "pass" if status == 1 and len(errors.strip().splitlines()) == 1 and "Traceback" not in errors
                    and graded and os.path.isfile(os.path.join(out, "class.csv")) else "fail",
                    f"exit {status}, {len(graded)} graded: {errors.strip()[-300:]}")
        status, said = run(command, log=os.path.join(WORK, "class-resumed.log"))
        kept = all(open(path, "rb").read() == data for path, data in graded.items())
        check_class_table("class, resumed", fixture, out, picked)
        tally.check("class: the same command resumes the run, the graded entries kept",
                    "pass" if "resuming run" in said and kept and len(graded) < len(picked) else "fail",
                    f"exit {status}, {len(graded)} kept ({kept}): {said.strip()[-300:]}")
        if mounted:
            run(["dd", "if=/dev/zero", f"of={os.path.join(disk, 'filler')}", "bs=1M", "count=100"])
        else:
            os.unlink(os.path.join(out, "class.csv"))
            os.mkdir(os.path.join(out, "class.csv"))
        status, said = run(["./grade-class", "--merge", "--out", out])
        tally.check(f"class: {'a full disk' if mounted else 'class.csv a folder'} ends the merge in one line (exit 4)",
                    "pass" if status == 4 and len(said.strip().splitlines()) == 1 and "Traceback" not in said else "fail",
                    f"exit {status}: {said.strip()[-300:]}")
    finally:
        if mounted:
            run(["umount", disk])


def check_gradebook(out, label="lab 5", byte_order_mark=False):
    """./grade-class --gradebook: a Canvas-like export (a row per roster name, a "Points
    Possible" row, a student not in the roster, the assignment's column already holding a grade
    for everyone) gets each student's points of the run; a cell without points of the run stays
    as the export had it (never 0, never blanked), other cells untouched."""
    import csv
    run_json = read_json(os.path.join(out, "run.json")) or {}
    roster = [entry for entry in run_json.get("roster", []) if is_inert(bytes.fromhex(entry["bytes"]))]
    absent = len(run_json.get("roster", [])) - len(roster)  # names a UTF-8 gradebook cannot hold
    exported = os.path.join(WORK, "gradebook-export.csv")
    with open(exported, "w", newline="", encoding="utf-8-sig" if byte_order_mark else "utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 4 (12)", "Lab 5 (13)"])
        writer.writerow(["    Points Possible", "", "", "", "", "52", "65"])
        for number, entry in enumerate(roster):
            writer.writerow([f"Student {number}", str(1000 + number), "", bytes.fromhex(entry["bytes"]).decode("utf-8"), "A", "7", "12"])
        writer.writerow(["Zed", "999", "", "zed-not-in-the-class", "A", "7", "3"])
    status, output = run(["./grade-class", "--gradebook", exported, "--match", "SIS Login ID",
                          "--assignment", "Lab 5 (13)", "--out", out])
    filled = os.path.join(out, "gradebook-Lab-5-13.csv")
    if not os.path.isfile(filled):
        tally.check("class: --gradebook fills an exported gradebook", "fail", f"exit {status}: {output.strip()[-200:]}")
        return
    # The export as it was but for the column, its byte-order mark (Excel's, Canvas's) too.
    kept_mark = open(filled, "rb").read(3) == b"\xef\xbb\xbf"
    rows = list(csv.reader(open(filled, newline="", encoding="utf-8-sig")))
    wrong, kept = [], 0
    for entry, row in zip(roster, rows[2:]):
        line = read_json(os.path.join(out, "students", entry["id"], "line.json")) or {}
        # A grade only where every test ran: a failure with the GPU tests not run is no grade yet.
        counted = line.get("score") is not None and line.get("verdict") not in ("not graded", "not graded on a GPU", "grading machine broken") \
            and not (line.get("verdict") == "failed" and line.get("tests_not_run"))
        want = f"{line['score']:.2f}".rstrip("0").rstrip(".") if counted else "12"
        kept += not counted
        if row[6:] != [want] or row[5] != "7":
            wrong.append((entry["name"], row[5:], want))
    untouched = rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 4 (12)", "Lab 5 (13)"] \
        and rows[1][6] == "65" and rows[-1] == ["Zed", "999", "", "zed-not-in-the-class", "A", "7", "3"]
    tally.check(f"class: {label} --gradebook puts each student's points, blanks no grade it did not make",
                "pass" if not wrong and untouched and kept_mark == byte_order_mark
                and status == (1 if kept or absent else 0) else "fail",
                f"exit {status}, {len(wrong)} wrong: {wrong[:3]}, byte-order mark {kept_mark} (the export's: {byte_order_mark}); {output.strip()[-200:]}")


# A few of the class fixture's entries, one of each kind (the verdicts themselves are checked
# by part class).
SLURM_PICKED = ("ada", "blocks-rounded-down", "syntax-error", "wrong-file-name", "linked-to-ada",
                "new\nline ..")


def part_slurm():
    print("== ./grade-class lab5 --slurm through a real Slurm (munge, slurmctld, slurmd on this")
    print("   machine): a job array, a task cancelled and named by the merge, that task run again,")
    print("   and a new run whose tasks never ran shows none of the old run's results; then a")
    print("   student's ./grade --slurm (grader/tests/slurm_grade_flow.py)")
    from local_slurm import LocalSlurm
    cluster = LocalSlurm(os.path.join(WORK, "slurm"), gpus=gpu_count())
    why = cluster.start()
    if why:
        cluster.stop()
        tally.check("slurm: grading a class through Slurm", "skip", why)
        return
    outside = outside_the_kit("slurm")
    try:
        slurm_flow(cluster, os.path.join(outside, "slurm-out"))
        import slurm_grade_flow
        for description, status, detail in slurm_grade_flow.checks(cluster, WORK):
            tally.check(description[:64], status, detail)
    finally:
        cluster.stop()
        shutil.rmtree(outside, ignore_errors=True)


def gpu_count():
    result = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) \
        if shutil.which("nvidia-smi") else None
    return len([line for line in result.stdout.decode().splitlines() if line.startswith("GPU ")]) \
        if result and result.returncode == 0 else 0


def slurm_flow(cluster, out):
    import csv
    fixture = class_fixture("slurm-fixture")
    submissions = os.path.join(fixture, "submissions")
    names = {n for n, _, _ in expected_rows(fixture)}
    missing = [n for n in SLURM_PICKED if n not in names]
    if missing:
        tally.check("slurm: the fixture has the picked entries", "fail", f"not in expected.tsv: {missing}")
        return
    for entry in os.listdir(os.fsencode(submissions)):
        if os.fsdecode(entry) not in SLURM_PICKED:
            path = os.path.join(os.fsencode(submissions), entry)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
    # Held, so that task 1 can be cancelled before it starts; then released. A task asks for a
    # GPU where the node has one.
    gpus = "1" if cluster.gpus else "0"
    arch = ["--cuda-arch", os.environ["CUDA_ARCH"]] if os.environ.get("CUDA_ARCH") else []
    submit = ["./grade-class", "lab5", "--slurm", "3", "--submissions", submissions, "--out", out,
              "--no-timing", "--seed", "12345", "--student-timeout", "150", *arch,
              "--gpus-per-task", gpus, "--sbatch=--hold"]
    status, output = cluster.run(submit, timeout=900)
    slurm = read_json(os.path.join(out, "slurm.json")) or {}
    tally.check("slurm: the run is prepared and submitted (exit 0)", "pass" if status == 0 and slurm.get("tasks") else "fail",
                f"exit {status}: {output.strip()[-300:]}")
    if status != 0 or not slurm.get("tasks"):
        return
    array = slurm["tasks"]["0"].split("_")[0]
    merge = slurm["merges"][-1]
    cluster.run(["scancel", slurm["tasks"]["1"]])
    cluster.run(["scontrol", "release", array])
    cluster.run(["scontrol", "release", merge])
    final = cluster.wait(merge)
    tally.check("slurm: the merge fails when a task was cancelled", "pass" if final == "FAILED" else "fail", f"merge job {merge}: {final}")
    run_json = read_json(os.path.join(out, "run.json")) or {}
    task_one = {bytes.fromhex(e["bytes"]).decode("utf-8", "surrogateescape"): "task 1 never started"
                for e in run_json.get("roster", []) if e["index"] % 3 == 1}
    check_class_table("slurm, task 1 cancelled", fixture, out, SLURM_PICKED, task_one)
    rows = list(csv.reader(open(os.path.join(out, "class.csv"), newline="")))
    cancelled = [row for row in rows[1:] if row[2] == "not graded"]
    tally.check("slurm: the merge names the cancelled task's job",
                "pass" if cancelled and all(slurm["tasks"]["1"] in row[8] and "cancelled" in row[8] for row in cancelled) else "fail", f"{cancelled}")
    logs = os.listdir(os.path.join(out, "logs")) if os.path.isdir(os.path.join(out, "logs")) else []
    tally.check("slurm: the jobs' logs are under --out/logs", "pass" if any("-task-0-" in l for l in logs) and any("-merge-" in l for l in logs) else "fail", f"{logs}")

    status, output = cluster.run(["./grade-class", "--slurm-rerun", "1", "--out", out, "--gpus-per-task", gpus])
    slurm = read_json(os.path.join(out, "slurm.json")) or {}
    merge = (slurm.get("merges") or [None])[-1]
    # The run's sbatch options hold for its reruns: --hold too.
    cluster.run(["scontrol", "release", slurm.get("tasks", {}).get("1", "none").split("_")[0]])
    cluster.run(["scontrol", "release", str(merge)])
    final = cluster.wait(merge) if status == 0 and merge else f"exit {status}: {output.strip()[-200:]}"
    # Every entry has its line now. Without a GPU the merge still fails (exit 1): the entries not
    # graded on a GPU have no grade to hand on, which its log says, and no line is missing.
    merge_log = "".join(open(path, errors="replace").read()
                        for path in glob.glob(os.path.join(out, "logs", f"*-merge-job-{merge}.out")))
    complete = final == "COMPLETED" if gpu_here() else \
        final == "FAILED" and "no grade to hand on" in merge_log and "incomplete: no line" not in merge_log
    tally.check("slurm: task 1 run again alone, then every entry has its line in the merge",
                "pass" if complete else "fail", f"merge job {merge}: {final}; {merge_log.strip()[-200:]}")
    check_class_table("slurm, complete", fixture, out, SLURM_PICKED)
    check_reports("the Slurm class table", [("--csv", os.path.join(out, "class.csv"))])

    # A new run whose tasks are all cancelled: the table must not show the old run's verdicts,
    # and a task of the old run (one Slurm started late) grades nothing.
    old_run = run_json.get("run", "none")
    status, output = cluster.run(submit, timeout=900)
    slurm = read_json(os.path.join(out, "slurm.json")) or {}
    state = read_json(os.path.join(out, "tasks", "0.json"))
    late, said = cluster.run(["./grade-class", "--task", "0", "--out", out, "--run", old_run])
    tally.check("slurm: a task of a run replaced since grades nothing", "pass" if late == 2 and "replaced" in said
                and read_json(os.path.join(out, "tasks", "0.json")) == state else "fail", f"exit {late}: {said.strip()[-200:]}")
    if status == 0 and slurm.get("tasks"):
        array = slurm["tasks"]["0"].split("_")[0]
        merge = slurm["merges"][-1]
        cluster.run(["scancel", array])
        cluster.run(["scontrol", "release", merge])
        final = cluster.wait(merge)
    rows = list(csv.reader(open(os.path.join(out, "class.csv"), newline="")))
    tally.check("slurm: a new run whose tasks never ran shows no older result",
                "pass" if status == 0 and final == "FAILED" and len(rows) == len(SLURM_PICKED) + 1
                and all(row[2] == "not graded" for row in rows[1:]) else "fail",
                f"exit {status}, merge {final}: {[row[2] for row in rows[1:]]}")


def part_notebook():
    print("== docs/notebook.ipynb, for a notebook service's free GPU, run headless on the student tarball")
    print("   (up to its first GPU cell without a GPU here; grader/tests/notebook_flow.py)")
    import notebook_flow
    tarball = os.path.join(ROOT, "build", "dist", "cuda-histogram-labs.tar.gz")
    # make dist is slow (every reference for five architectures): part dist has made it already.
    if not os.path.isfile(tarball):
        status, output = run(["make", "-s", "dist"], log=os.path.join(WORK, "notebook-dist.log"))
        if status != 0 or not os.path.isfile(tarball):
            tally.check("docs/notebook.ipynb runs headless", "fail", "make dist failed; log: build/test/notebook-dist.log")
            return
    for description, status, detail in notebook_flow.checks(WORK, gpu_here(), tarball):
        tally.check(description[:64], status, detail)


def part_gradescope():
    print("== make gradescope: lab 4's autograder bundle in an emulated /autograder (setup.sh once,")
    print("   then run_autograder for a right, a wrong, a non-compiling, a misnamed and a missing file)")
    import zipfile
    tarball = os.path.join(ROOT, "build", "dist", "cuda-histogram-labs.tar.gz")
    # make dist is slow (every reference for five architectures): part dist has made it already.
    if os.path.isfile(tarball):
        status, output = run([sys.executable, "grader/gradescope/make_bundles.py"])
    else:
        status, output = run(["make", "gradescope"], log=os.path.join(WORK, "make-gradescope.log"))
    bundle = os.path.join(ROOT, "build", "gradescope", "lab4-text-histogram.zip")
    tally.check("make gradescope writes a bundle a lab", "pass" if status == 0 and os.path.isfile(bundle) else "fail",
                f"exit {status}: {output.strip()[-200:]}")
    if status != 0 or not os.path.isfile(bundle):
        return
    # A course's points file goes into every bundle (POINTS=), so that Gradescope and
    # ./grade-class --points give the same totals; without POINTS, grader/points.conf.
    course = os.path.join(WORK, "course-points.conf")
    course_text = "lab4 test sequential/* 9\n" + open(os.path.join(ROOT, "grader", "points.conf")).read()
    with open(course, "w") as file:
        file.write(course_text)
    run([sys.executable, "grader/gradescope/make_bundles.py"], env={"POINTS": course})
    with zipfile.ZipFile(bundle) as archive:
        carried = archive.read("points.conf").decode() if "points.conf" in archive.namelist() else None
    unreadable, said = run([sys.executable, "grader/gradescope/make_bundles.py"], env={"POINTS": course + ".missing"})
    status, output = run([sys.executable, "grader/gradescope/make_bundles.py"])
    with zipfile.ZipFile(bundle) as archive:
        default = archive.read("points.conf").decode() if "points.conf" in archive.namelist() else None
    tally.check("make gradescope POINTS=FILE puts the course's points file in the bundle",
                "pass" if carried == course_text and default == open(os.path.join(ROOT, "grader", "points.conf")).read()
                and unreadable == 2 and "POINTS" in said and status == 0 else "fail",
                f"course carried: {carried == course_text}, default: {default is not None}, a missing file: exit {unreadable}")
    with zipfile.ZipFile(bundle) as archive:
        modes = {info.filename: (info.external_attr >> 16) & 0o777 for info in archive.infolist()}
    tally.check("the bundle has setup.sh and run_autograder at its top, executable",
                "pass" if modes.get("setup.sh") == 0o755 and modes.get("run_autograder") == 0o755 else "fail", f"{modes}")
    base = os.path.join(WORK, "gradescope")
    shutil.rmtree(base, ignore_errors=True)
    image = os.path.join(base, "image")
    os.makedirs(os.path.join(image, "source"))
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(os.path.join(image, "source"))
    for name, mode in modes.items():
        os.chmod(os.path.join(image, "source", name), mode)
    with open(os.path.join(image, "source", "points.conf"), "w") as file:
        file.write(course_text)  # the autograder scores by the bundle's points file
    status, output = run(["bash", os.path.join(image, "source", "setup.sh")], log=os.path.join(WORK, "gradescope-setup.log"))
    tally.check("setup.sh prepares the kit", "pass" if status == 0 else "fail", f"exit {status}: {output.strip()[-300:]}")
    if status != 0:
        return
    solution = os.path.join(ROOT, "solutions", "lab4-text-histogram", "lab4.cu")
    if not os.path.isfile(solution):
        return
    right = open(solution).read()
    wrong = right.replace("histogram[position / LETTERS_PER_BIN]++;", "histogram[0]++;", 1)
    cases = [  # name, {path in the upload: content}, the verdict results.json must give, a word
        ("right", {"lab4.cu": right}, None, "-"),
        ("wrong", {"lab4.cu": wrong}, "failed", "sequential"),
        ("does-not-compile", {"lab4.cu": right.replace("histogram[bin] = 0;", "histogram[bin] = ;", 1)},
         "does not compile", "error"),
        ("misnamed", {"work/Lab4 final.cu": right, "notes.txt": "my notes\n"}, None, "-"),
        # The one lab4.cu is graded, whatever a draft beside it holds, and a comment after a
        # signature hides no definition (a red team's upload: the draft was graded).
        ("named-beside-a-draft", {"lab4.cu": right.replace(")\n{", ") // mine\n{"),
                                  "old/lab4_draft.cu": open(os.path.join(ROOT, "labs", "lab4-text-histogram", "lab4.cu")).read()},
         None, "-"),
        ("commented-and-misnamed", {"Lab4 final.cu": right.replace(")\n{", ") /* mine; done */\n{")}, None, "-"),
        ("missing", {"notes.txt": "my notes\n", "lab3.cu": "int main(void) { return 0; }\n"}, "no file", "notes.txt"),
    ]
    for name, files, verdict, word in cases:
        root = os.path.join(base, name)
        shutil.copytree(image, root, symlinks=True)
        for path, content in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, "submission", path)), exist_ok=True)
            with open(os.path.join(root, "submission", path), "w") as file:
                file.write(content)
        os.makedirs(os.path.join(root, "results"))
        status, output = run([os.path.join(root, "source", "run_autograder")], env={"AUTOGRADER_ROOT": root},
                             log=os.path.join(WORK, f"gradescope-{name}.log"))
        results = read_json(os.path.join(root, "results", "results.json"))
        if results is None:
            tally.check(f"gradescope: {name}: a results.json", "fail", f"exit {status}: {output.strip()[-300:]}")
            continue
        check_reports(f"the Gradescope {name} submission", [("--results-json", os.path.join(root, "results", "results.json"))])
        said = results.get("output", "")
        gpu = "graded on the course's GPU machines" not in said
        want = verdict or ("passed" if gpu else "not graded on a GPU")
        tests = " ".join(f"{t.get('name')} {t.get('status')} {t.get('output', '')}" for t in results.get("tests", []))
        ok = said.startswith(f"lab4-text-histogram: {want}.") and (word == "-" or word in said + tests)
        if name == "right":
            sequential = [t.get("max_score") for t in results.get("tests", []) if t.get("name", "").startswith("sequential/")]
            ok = ok and bool(sequential) and all(points == 9 for points in sequential)
        if want == "not graded on a GPU":
            ok = ok and "sequential" in tests and "failed" not in [t.get("status") for t in results.get("tests", []) if "sequential" in t.get("name", "")]
        tally.check(f"gradescope: {name}: '{want}'", "pass" if ok else "fail", f"exit {status}: {said[:300]}")
    shutil.rmtree(base, ignore_errors=True)


def part_sanitize():
    print("== compute-sanitizer on a reference solution (must find nothing; without a GPU, not run, said so)")
    if not os.path.isdir(os.path.join(ROOT, "solutions")):
        return
    if not gpu_here():
        # Not run, and said so in one line: whether a GPU test said there is no GPU (lab 5) or
        # only CPU tests ran (lab 4's sequential/*, where ./grade asks the GPU itself).
        for lab, test in (("lab5", "private_shared/small_texts"), ("lab4", "sequential/small_texts")):
            status, summary, results, log = grade(lab, "--solution", "--no-timing", "--seed", "12345", "--filter", test,
                                                  "--sanitize", name=f"{lab}-sanitize-no-gpu")
            said = [line for line in open(log, errors="replace") if "sanitizers were NOT run" in line]
            sanitized = [t for t in (results or {}).get("tests", []) if t["name"].startswith("sanitize/")]
            ok = (status == 3 and (summary or {}).get("verdict") == "not graded on a GPU" and len(said) == 1
                  and len(sanitized) == 4
                  and all(t.get("status") == "failed" and "not run" in t.get("output", "") for t in sanitized))
            tally.check(f"{lab} --sanitize without a GPU: not run, said in one line", "pass" if ok else "fail",
                        f"exit {status}, {len(said)} lines say so, {len(sanitized)} sanitize tests; log: {log}")
    status, summary, results, log = grade("lab5", "--solution", "--no-timing", "--seed", "12345",
                                          "--filter", "private_shared/small_texts", "--sanitize", name="lab5-sanitize")
    tests = {test["name"]: test for test in (results or {}).get("tests", []) if test["name"].startswith("sanitize/")}
    if status == 3:
        tally.check("lab5 solution clean under the four sanitizers", "skip", "needs a GPU to show")
    elif status == 0 and len(tests) == 4 and all(test.get("status") == "passed" for test in tests.values()):
        tally.check("lab5 solution clean under the four sanitizers", "pass")
    else:
        tally.check("lab5 solution clean under the four sanitizers", "fail", f"exit {status}; log: {log}")


def main():
    os.makedirs(WORK, exist_ok=True)
    chosen = os.environ.get("TEST_PARTS", " ".join(PARTS)).split()
    unknown = [part for part in chosen if part not in PARTS]
    if unknown:
        print(f"make test: unknown TEST_PARTS {' '.join(unknown)} (the parts: {' '.join(PARTS)})")
        return 2
    seconds = {}
    for part in PARTS:
        if part in chosen:
            started = time.monotonic()
            globals()["part_" + part]()
            seconds[part] = time.monotonic() - started
    print(f"\nmake test: {tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    print("make test: seconds a part: " + ", ".join(f"{part} {s:.0f}" for part, s in seconds.items()))
    slowest = sorted(grading_seconds, reverse=True)[:8]
    if slowest:
        print("make test: the slowest gradings: " + ", ".join(f"{name} {s:.0f} s" for s, name in slowest))
    return 0 if tally.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
