#!/usr/bin/env python3
"""How repeatable the grader's timings are: grades each lab's reference twice, as a student would
(`./grade LAB --solution`, a fresh seed each time), and compares, input by input, the two
gradings' times as the results model recorded them (summary.json's "speed": your time and the
reference's, timed side by side). Prints a Markdown table: per lab, the largest and the median
difference between the two runs of the graded ratio (your time / the reference's), and of your
time alone. Needs a GPU.

usage: timing_spread.py [LAB ...]                 every lab by default
       timing_spread.py --compare A.json B.json   compare two summary.json files
Exit status: 0 done, 1 a grading failed or timed nothing, 2 bad usage, 3 no GPU here.
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from grade_times import labs  # noqa: E402 (the labs, from the lab manifest)
WITHIN = 5.0  # percent: what the kit calls repeatable
HEADER = ("| lab | inputs compared | ratio: largest difference | ratio: median difference "
          "| your time: largest difference | within 5% |\n| --- | ---: | ---: | ---: | ---: | --- |")


def difference(a, b):
    """How far apart two positive figures are, in percent of the smaller."""
    return (max(a, b) / min(a, b) - 1) * 100


def compare(lab, first, second):
    """One table row from two summaries; raises ValueError when they hold no common input."""
    def timings(summary):
        return {(t["test"], t["input"]): (t["yours_ms"], t["reference_ms"]) for t in summary.get("speed", [])}
    one, two = timings(first), timings(second)
    common = sorted(set(one) & set(two))
    if not common:
        raise ValueError(f"{lab}: the two gradings timed no input in common")
    ratios = [difference(one[k][0] / one[k][1], two[k][0] / two[k][1]) for k in common]
    yours = [difference(one[k][0], two[k][0]) for k in common]
    within = "yes" if max(ratios) <= WITHIN else "no"
    return (f"| {lab} | {len(common)} | {max(ratios):.1f}% | {statistics.median(ratios):.1f}% "
            f"| {max(yours):.1f}% | {within} |")


def read_summary(path):
    with open(path) as file:
        return json.load(file)


def grade_twice(lab, folder):
    """The two summaries of `./grade LAB --solution`; exits like the kit when it cannot."""
    summaries = []
    for run in (1, 2):
        path = os.path.join(folder, f"{lab}-run{run}.summary.json")
        log = os.path.join(folder, f"{lab}-run{run}.log")
        with open(log, "w") as out:
            status = subprocess.run([os.path.join(ROOT, "grade"), lab, "--solution", "--summary", path],
                                    cwd=ROOT, stdout=out, stderr=subprocess.STDOUT).returncode
        if status == 3:
            print(f"timing_spread: no GPU here: ./grade {lab} --solution timed nothing ({log})", file=sys.stderr)
            sys.exit(3)
        if status != 0:
            print(f"timing_spread: ./grade {lab} --solution exited {status}: {log}", file=sys.stderr)
            sys.exit(1)
        summaries.append(read_summary(path))
    return summaries


def main(arguments):
    if arguments[:1] == ["--compare"]:
        if len(arguments) != 3:
            print("usage: timing_spread.py --compare A.json B.json", file=sys.stderr)
            return 2
        try:
            first, second = read_summary(arguments[1]), read_summary(arguments[2])
            print(HEADER)
            print(compare(first.get("lab", "?"), first, second))
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"timing_spread: {error}", file=sys.stderr)
            return 1
        return 0
    known = labs()
    chosen = arguments or known
    unknown = [lab for lab in chosen if lab not in known and not any(k.startswith(lab + "-") for k in known)]
    if unknown or any(lab.startswith("-") for lab in chosen):
        print(f"timing_spread: unknown lab {' '.join(unknown or chosen)} (the labs: {' '.join(known)})", file=sys.stderr)
        return 2
    folder = os.path.join(ROOT, "build", "reports", "spread")
    os.makedirs(folder, exist_ok=True)
    print(HEADER)
    for lab in chosen:
        first, second = grade_twice(lab, folder)
        try:
            print(compare(lab, first, second), flush=True)
        except ValueError as error:
            print(f"timing_spread: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
