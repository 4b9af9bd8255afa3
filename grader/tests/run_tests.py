#!/usr/bin/env python3
"""make test: the kit's own checks, each printed on one line, then "make test: N passed, N failed,
N skipped". Without a GPU the checks that need one skip, each with its reason.

Parts (TEST_PARTS picks some, e.g. TEST_PARTS="unit cli"): unit, cli, checks, labs, variants,
exploits, reports, dist, class, sanitize. EXPLOITS, a regular expression over "lab/name", picks
some of the exploits.

Every verdict is read from what the results model writes (summary.json, results.json), never
from what a program prints. Everything this writes is under build/test/, which make test may
remove and rebuild; no test touches a class's results anywhere else.
"""
import concurrent.futures
import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.path.join(ROOT, "build", "test")
PARTS = "unit cli checks labs variants exploits reports dist class sanitize".split()


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


def read_json(path):
    try:
        with open(path) as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


def grade(lab, *options, name, timeout=1800, cwd=ROOT):
    """./grade LAB OPTIONS, with its summary and results.json under build/test/NAME.*; returns
    (exit status, summary or None, results or None, log path)."""
    base = os.path.join(WORK, name)
    for suffix in (".summary.json", ".results.json"):
        if os.path.exists(base + suffix):
            os.remove(base + suffix)
    status, _ = run([os.path.join(ROOT, "grade"), lab, *options, "--summary", base + ".summary.json",
                     "--json", base + ".results.json"], cwd=cwd, timeout=timeout, log=base + ".log")
    return status, read_json(base + ".summary.json"), read_json(base + ".results.json"), base + ".log"


def mentions(results, summary, text):
    """Whether a test's output in results.json, or a problem in summary.json, holds text."""
    outputs = [test.get("output", "") for test in (results or {}).get("tests", [])]
    outputs += (summary or {}).get("problems", [])
    return any(text in output for output in outputs)


def labs():
    return sorted(os.path.basename(path.rstrip("/")) for path in glob.glob(os.path.join(ROOT, "labs", "lab*-*/")))


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


def part_cli():
    print("== ./grade command line: every bad input refused with one line and exit 2")
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
        ("--file missing", "no file", "lab4", "--file", "/nonexistent/lab4.cu"),
        ("points: inf", "line 1", "lab1", "--points", bad_points),
        ("points: a NUL byte", "NUL byte", "lab1", "--points", nul_points),
        ("points: a device", "not a regular file", "lab1", "--points", "/dev/zero"),
        ("points: a FIFO", "not a regular file", "lab1", "--points", fifo),
        ("points: a folder", "a folder", "lab1", "--points", "/tmp"),
        ("--filter matching no test", "no test ran", "lab4", "--solution" if os.path.isdir(os.path.join(ROOT, "solutions")) else "--no-timing", "--filter", "nothing/*"),
    ]
    for description, message, *arguments in cases:
        expect_usage_error(description, message, *arguments)
    status, output = run([os.path.join(ROOT, "grade"), "lab4", "--no-timing", "--filter", "sequential/bytes_257"],
                         env={"TMPDIR": "/nonexistent/tmp"})
    tally.check("grade with an unusable TMPDIR (exit 4, says so)", "pass" if status == 4 and "temporary folder" in output else "fail",
                f"exit {status}")
    # Paths are the caller's: run from another folder with a relative --summary.
    status, output = run([os.path.join(ROOT, "grade"), "lab4", "--no-timing", "--filter", "sequential/bytes_257",
                          "--summary", "relative.json"], cwd=scratch)
    tally.check("grade from another folder writes relative paths there",
                "pass" if os.path.exists(os.path.join(scratch, "relative.json")) else "fail", f"exit {status}")
    status, output = run(["./grade", "--help"])
    tally.check("grade --help", "pass" if status == 0 and "usage: ./grade" in output else "fail")
    if os.path.isdir(os.path.join(ROOT, "grader", "variants")):
        status, output = run(["./grade", "lab5", "--variant", "list"])
        tally.check("grade lab5 --variant list", "pass" if "no-barrier-before-commit" in output else "fail")
    print("== make bench command line")
    for description, *arguments in [("input too small", "--bytes", "12"), ("too few runs", "--runs", "3"),
                                    ("unknown option", "--fast"), ("missing value", "--seed")]:
        status, output = run(["build/bench/bench", *arguments])
        tally.check(f"bench {' '.join(arguments)} ({description})",
                    "pass" if status == 2 and "usage: bench" in output else "fail", f"exit {status}")
    shutil.rmtree(scratch, ignore_errors=True)


def part_checks():
    print("== the submission check and the report validators on their own cases")
    for script in ("grader/tests/check-submission-tests.sh", "grader/tests/check-reports-selftest.sh"):
        if not os.path.exists(os.path.join(ROOT, script)):
            tally.check(script, "fail", "missing")
            continue
        status, output = run(["bash", script], log=os.path.join(WORK, os.path.basename(script) + ".log"))
        passed = len(re.findall(r" pass(:|$)", output, re.M))
        failed = len(re.findall(r" fail(:|$)", output, re.M))
        tally.check(f"{script} ({passed} cases)", "pass" if status == 0 and failed == 0 and passed else "fail",
                    "" if status == 0 else f"exit {status}; log: build/test/{os.path.basename(script)}.log")


def part_labs():
    print("== graders on the reference solutions (must pass) and the skeletons (must be rejected)")
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
        status, summary, _, log = grade(short(lab), "--no-timing", "--seed", "12345", name=f"{lab}-skeleton")
        verdict = (summary or {}).get("verdict")
        if status == 1 and verdict == "failed" and summary["tests_failed"] > 0:
            tally.check(f"{lab} skeleton rejected", "pass", f"{summary['tests_failed']} tests failed, as they must")
        elif status == 3:
            tally.check(f"{lab} skeleton rejected", "skip", "needs a GPU to show")
        else:
            tally.check(f"{lab} skeleton rejected", "fail", f"exit {status}, verdict {verdict}; log: {log}")


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
    scripts = sorted(glob.glob(os.path.join(ROOT, "grader/variants/*/*.sed")))

    def grade_variant(script):
        lab = os.path.basename(os.path.dirname(script))
        name = os.path.basename(script)[:-4]
        options = (header(script, "options") or "").split()
        return script, grade(short(lab), "--variant", name, "--no-timing", "--seed", "12345", *options,
                             name=f"{lab}-variant-{name}")

    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("VARIANT_JOBS", "4"))) as pool:
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


def part_exploits():
    print("== the exploit suite of grader/exploits/ (each trick gets the verdict it must)")
    # EXPLOITS, a regular expression over "lab/name", picks some (a GPU run in parts).
    chosen = re.compile(os.environ.get("EXPLOITS", ""))
    for path in sorted(glob.glob(os.path.join(ROOT, "grader/exploits/*/*.cu"))):
        lab = os.path.basename(os.path.dirname(path))
        name = os.path.basename(path)[:-3]
        if not chosen.search(f"{lab}/{name}"):
            continue
        expect = header(path, "expect")
        problem = header(path, "expect-problem")
        at_least = header(path, "expect-ratio-at-least")
        if expect == "known-limit":
            # A trick the kit does not stop, said so in the file and in docs/instructors.md: a
            # reminder in every run, not a pass.
            tally.check(f"{lab} exploit {name}"[:64], "skip", "known limit: " + header(path, "known-limit"))
            continue
        timed = expect == "passed-without-gain" or header(path, "timing") == "needed"
        timing = [] if timed else ["--no-timing"]
        status, summary, results, log = grade(short(lab), "--file", path, "--seed", "12345", *timing,
                                              name=f"{lab}-exploit-{name}")
        verdict = (summary or {}).get("verdict")
        label = f"{lab} exploit {name}: {expect}"[:64]
        if status == 3 and expect != "does not compile":
            tally.check(label, "skip", "needs a GPU to show")
        elif expect == "passed-without-gain":
            ratio = (summary or {}).get("time_ratio")
            ok = status == 0 and ratio is not None and ratio >= float(at_least or 0.9)
            tally.check(label, "pass" if ok else "fail", f"exit {status}, verdict {verdict}, ratio {ratio}; log: {log}")
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


def check_reports(label, files):
    """Runs the consumers of grader/tests/check-reports.py on a grading's reports."""
    arguments = []
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
    gradings = [
        ("a passing grading", ["lab4", "--solution", "--no-timing", "--filter", "sequential/*"]),
        ("a failing grading", ["lab4", "--no-timing", "--filter", "sequential/*"]),
        ("a crashing grading", ["lab4", "--file", os.path.join(fixtures, "crashes-lab4.cu"), "--no-timing", "--filter", "sequential/*"]),
        ("a grading that does not build", ["lab4", "--file", os.path.join(fixtures, "does-not-build-lab4.cu"), "--no-timing"]),
        ("a grading without a GPU", ["lab5", "--no-timing"]),
    ]
    if not os.path.isdir(os.path.join(ROOT, "solutions")):
        gradings = gradings[1:]
    for label, arguments in gradings:
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
                              ("--junit", outputs["--xml"]), ("--summary", outputs["--summary"])])


def part_dist():
    print("== make dist: the students' tarball (tracked files only, no solution source; builds and grades)")
    planted = os.path.join(ROOT, "submissions-not-tracked")
    os.makedirs(planted, exist_ok=True)
    with open(os.path.join(planted, "lab5.cu"), "w") as out:
        out.write("// an untracked file: make dist must not ship it\n")
    status, output = run(["make", "-s", "dist"], log=os.path.join(WORK, "dist.log"))
    shutil.rmtree(planted)
    tarball = os.path.join(ROOT, "build/dist/cuda-histogram-labs.tar.gz")
    if status != 0 or not os.path.exists(tarball):
        tally.check("make dist builds the tarball", "fail", "log: build/test/dist.log")
        return
    tally.check("make dist builds the tarball", "pass")
    listing = run(["tar", "-tzf", tarball])[1].splitlines()
    leaked = [name for name in listing if re.search(r"/(solutions|grader/variants|grader/exploits|submissions-not-tracked)/", name)]
    tally.check("the tarball holds only tracked files, no solution source", "fail" if leaked else "pass", " ".join(leaked[:3]))
    unpacked = os.path.join(WORK, "dist")
    shutil.rmtree(unpacked, ignore_errors=True)
    os.makedirs(unpacked)
    run(["tar", "-xzf", tarball, "-C", unpacked])
    kit = os.path.join(unpacked, "cuda-histogram-labs")
    leaks = []
    for solution in glob.glob(os.path.join(ROOT, "solutions/*/*.cu")):
        text = open(solution, "rb").read()
        first_line = text.splitlines()[0]
        for path in glob.glob(os.path.join(kit, "**/*"), recursive=True):
            if os.path.isfile(path) and (first_line in open(path, "rb").read() or open(path, "rb").read() == text):
                leaks.append(os.path.relpath(path, kit))
    references = glob.glob(os.path.join(kit, "prebuilt/reference/*.o"))
    tally.check("no solution line in the tarball, compiled references instead",
                "pass" if not leaks and len(references) == len(labs()) else "fail",
                f"leaked: {leaks[:3]}, {len(references)} references")
    status, output = run(["bash", "-c", "make -s lab5 && ./grade lab5 --no-timing --seed 12345 --summary s.json"],
                         cwd=kit, log=os.path.join(WORK, "dist-grade.log"))
    summary = read_json(os.path.join(kit, "s.json"))
    verdict = (summary or {}).get("verdict")
    ok = (status == 1 and verdict == "failed") or (status == 3 and verdict == "not graded on a GPU")
    tally.check("the unpacked tarball builds and grades lab 5's skeleton", "pass" if ok else "fail",
                f"exit {status}, verdict {verdict}; log: build/test/dist-grade.log")
    status, output = run(["./grade", "lab5", "--solution"], cwd=kit)
    tally.check("the tarball's --solution says it is the instructors'", "pass" if status == 2 and "student distribution" in output else "fail")
    status, output = run(["make", "test"], cwd=kit)
    tally.check("the tarball's make test says where it belongs", "pass" if status != 0 and "repository" in output else "fail")
    if status != 3:
        shutil.copy(os.path.join(ROOT, "solutions/lab5-privatized/lab5.cu"), os.path.join(kit, "labs/lab5-privatized/lab5.cu"))
        status, output = run(["./grade", "lab5", "--seed", "12345", "--summary", "right.json"], cwd=kit,
                             log=os.path.join(WORK, "dist-grade-right.log"))
        summary = read_json(os.path.join(kit, "right.json")) or {}
        if status == 3:
            tally.check("the unpacked tarball passes and times a right lab 5", "skip", "needs a GPU to show")
        else:
            tally.check("the unpacked tarball passes and times a right lab 5",
                        "pass" if status == 0 and summary.get("time_ratio") else "fail", f"exit {status}")


def part_class():
    print("== ./grade-class lab5: a class (right, wrong, crashing, hanging, chatty, not compiling, missing,")
    print("   odd names, links, a hostile constructor), each in a sandbox, in 2 slices, then merged")
    fixture = os.path.join(WORK, "class-fixture")
    shutil.rmtree(fixture, ignore_errors=True)
    run(["bash", "grader/class-fixture.sh", fixture])
    out = os.path.join(WORK, "class-out")
    shutil.rmtree(out, ignore_errors=True)
    common = ["./grade-class", "lab5", "--submissions", os.path.join(fixture, "submissions"), "--out", out,
              "--no-timing", "--seed", "12345", "--student-timeout", "150"]
    slices = [subprocess.Popen(common + ["--slice", f"{k}/2"], cwd=ROOT, stdout=open(os.path.join(WORK, f"class-slice-{k}.log"), "w"),
                               stderr=subprocess.STDOUT) for k in range(2)]
    statuses = [process.wait() for process in slices]
    if any(status == 4 for status in statuses):
        tally.check("class: graded in a sandbox", "skip", "no sandbox here (bubblewrap): " + open(os.path.join(WORK, "class-slice-0.log")).read().strip()[-200:])
        return
    status, output = run(common + ["--merge"], log=os.path.join(WORK, "class-merge.log"))
    tally.check("class: the merge has every roster entry (exit 0)", "pass" if status == 0 else "fail", f"exit {status}: {output.strip()[-200:]}")
    import csv
    rows = list(csv.reader(open(os.path.join(out, "class.csv"), newline="")))
    by_name = {row[0]: row for row in rows[1:]}
    gpu = not any(row[2] == "not graded on a GPU" for row in rows[1:])
    for line in open(os.path.join(fixture, "expected.tsv"), encoding="utf-8", errors="surrogateescape"):
        name, verdict, word = line.rstrip("\n").split("\t")
        name = name.encode("utf-8", "surrogateescape").decode("unicode_escape").encode("latin-1").decode("utf-8", "surrogateescape") if "\\" in name else name
        want = verdict
        if not gpu and verdict in ("passed", "failed", "timed out"):
            want, word = "not graded on a GPU", "-"
        row = by_name.get(name)
        got = row[2] if row else None
        ok = got == want and (word == "-" or word in ",".join(row))
        tally.check(f"class: {name!r} is '{want}'"[:64], "pass" if ok else "fail", f"class.csv says: {row}")
    check_reports("the class table", [("--csv", os.path.join(out, "class.csv"))])


def part_sanitize():
    print("== compute-sanitizer on a reference solution (must find nothing)")
    if not os.path.isdir(os.path.join(ROOT, "solutions")):
        return
    status, summary, results, log = grade("lab5", "--solution", "--no-timing", "--seed", "12345",
                                          "--filter", "private_shared/bytes_257", "--sanitize", name="lab5-sanitize")
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
    for part in PARTS:
        if part in chosen:
            globals()["part_" + part]()
    print(f"\nmake test: {tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 0 if tally.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
