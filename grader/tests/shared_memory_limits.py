"""make test's part limits: every lab's reference graded under each smaller GPU's shared memory a
block (KIT_SHARED_MEMORY_PER_BLOCK: 48K, what any GPU gives without opting in; 64K, compute
capability 7.5; 99K, 8.6 and 8.9), on the GPU at hand (common/device.h). The labs whose layout
depends on it (8 and 9: 'limits := timed' in the lab manifest, grader/labs.mk) are timed too. Under each limit lab 9's reference as it was before (four
copies of its counters whatever the GPU: limit-fixtures/lab9-four-copies-whatever-the-gpu.sed
applied to it, graded with --file) must fail, which shows that the limit is enforced, not only
read. Each check is (description, status, detail) for run_tests.py to count; without a GPU the
gradings are skipped, and only the refusal of a bad value is checked.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "grader"))
import labs as lab_manifest  # noqa: E402 (the lab manifest, grader/labs.mk: its limits lines)
LIMITS = ("48K", "64K", "99K")
FOUR_COPIES = "four-copies-whatever-the-gpu"
FIXTURE = os.path.join(ROOT, "grader", "tests", "limit-fixtures", f"lab9-{FOUR_COPIES}.sed")


def run(command, env=None, log=None):
    result = subprocess.run(command, cwd=ROOT, env=dict(os.environ, **(env or {})), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=1800)
    output = result.stdout.decode("utf-8", "replace")
    if log:
        with open(log, "w") as out:
            out.write(output)
    return result.returncode, output


def grade(work, name, limit, *arguments):
    """./grade ARGUMENTS under the limit; (exit status, summary.json, results.json, log)."""
    base = os.path.join(work, f"limit-{limit}-{name}")
    for suffix in (".summary.json", ".results.json"):
        if os.path.exists(base + suffix):
            os.remove(base + suffix)
    status, _ = run(["./grade", *arguments, "--seed", "12345", "--summary", base + ".summary.json",
                     "--json", base + ".results.json"], env={"KIT_SHARED_MEMORY_PER_BLOCK": limit},
                    log=base + ".log")
    readings = []
    for suffix in (".summary.json", ".results.json"):
        try:
            with open(base + suffix) as file:
                readings.append(json.load(file))
        except (OSError, ValueError):
            readings.append({})
    return status, readings[0], readings[1], base + ".log"


def checks(work, gpu):
    results = []
    status, output = run(["build/bench/bench", "--out", os.path.join(work, "limit-bench")],
                         env={"KIT_SHARED_MEMORY_PER_BLOCK": "32K"})
    lines = [line for line in output.splitlines() if line.strip()]
    results.append(("bench refuses KIT_SHARED_MEMORY_PER_BLOCK=32K in one line",
                    "pass" if status == 2 and len(lines) == 1 and "less than 48K" in lines[0] else "fail",
                    f"exit {status}: {output.strip()[:200]}"))
    if not gpu:
        results.append(("every reference passes under 48K, 64K and 99K a block", "skip",
                        "needs a GPU to show (the limits change what the kernels do)"))
        return results
    labs = lab_manifest.labs()
    reference = os.path.join(ROOT, "solutions", "lab9-image-histogram", "lab9.cu")
    four_copies = os.path.join(work, f"lab9-{FOUR_COPIES}.cu")
    status, planted = run(["sed", "-f", FIXTURE, reference])
    with open(reference) as file:
        unchanged = planted == file.read()
    if status != 0 or unchanged:
        results.append((f"lab9 {FOUR_COPIES} made from the reference", "fail",
                        f"{os.path.relpath(FIXTURE, ROOT)} no longer changes {os.path.relpath(reference, ROOT)}: update it"))
        four_copies = None
    else:
        with open(four_copies, "w") as file:
            file.write(planted)
    for limit in LIMITS:
        for lab in labs:
            short = lab.split("-")[0]
            timing = [] if lab_manifest.value(lab, "limits") == "timed" else ["--no-timing"]
            status, summary, _, log = grade(work, f"{lab}-solution", limit, short, "--solution", *timing)
            ok = status == 0 and summary.get("verdict") == "passed"
            results.append((f"{limit}: {lab} solution accepted"[:64], "pass" if ok else "fail",
                            f"ratio {summary.get('time_ratio')}" if ok and not timing else
                            "" if ok else f"exit {status}, verdict {summary.get('verdict')}; log: {log}"))
        if not four_copies:
            continue
        status, summary, results_json, log = grade(work, FOUR_COPIES, limit, "lab9", "--file", four_copies,
                                                   "--no-timing")
        said = " ".join(test.get("output", "") for test in results_json.get("tests", []))
        ok = status == 1 and "cudaFuncSetAttribute" in said
        results.append((f"{limit}: lab9 {FOUR_COPIES} refused"[:64], "pass" if ok else "fail",
                        "cudaFuncSetAttribute failed, as on a smaller GPU" if ok else
                        f"exit {status}, verdict {summary.get('verdict')}; log: {log}"))
    return results
