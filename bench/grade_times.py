#!/usr/bin/env python3
"""make bench-grade: how long a student waits for feedback. Times the wall clock of
`./grade LAB --solution` and `./grade LAB --solution --no-timing` for every lab, with the build
already done, and writes the table to OUT/grade-times.md (default build/bench/) and each
grading's output to OUT/grade-logs/. Each figure is the median of --repeat runs (default 1).
The targets are the kit's: 15 s for a grading, 5 s without timing, and the reference graded as
a student told it takes 1.00 of the reference's time, within 2% (docs/results.md).

usage: grade_times.py [--out DIR] [--repeat N] [--seed N]
Exit status: 0 every grading passed within its targets, 1 one did not, 2 bad usage, 3 no GPU
here (nothing is timed).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "grader"))
import labs as lab_manifest  # noqa: E402 (the lab manifest, grader/labs.mk)
TARGET_SECONDS = {"timed": 15.0, "no-timing": 5.0}
# The reference graded as a student must be told it is as fast as the reference, within this.
RATIO_TOLERANCE = 0.02


def labs():
    return lab_manifest.labs()


def gpu_query(field):
    """nvidia-smi's value of a --query-gpu field for the first GPU (no header, no units), or
    None where nvidia-smi names no GPU."""
    try:
        output = subprocess.run(["nvidia-smi", f"--query-gpu={field}", "--format=csv,noheader,nounits"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    values = output.stdout.decode().strip().splitlines()
    return values[0].strip() if output.returncode == 0 and values else None


def gpu_name():
    return gpu_query("name")


def time_grading(lab, mode, seed, scratch, logs):
    """Runs one grading, its output into logs/LAB-MODE.log; returns (seconds, its summary.json
    or None)."""
    summary = os.path.join(scratch, f"{lab}-{mode}.json")
    command = [os.path.join(ROOT, "grade"), lab, "--solution", "--seed", str(seed), "--summary", summary]
    if mode == "no-timing":
        command.append("--no-timing")
    with open(os.path.join(logs, f"{lab}-{mode}.log"), "w") as log:
        started = time.monotonic()
        subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        seconds = time.monotonic() - started
    try:
        with open(summary) as file:
            return seconds, json.load(file)
    except (OSError, ValueError):
        return seconds, None


def ratio_within(ratio):
    return ratio is not None and abs(ratio - 1.0) <= RATIO_TOLERANCE


def table(device, date, seed, repeat, rows):
    """The Markdown table of grade-times.md, as lines. rows: {"lab", "timed", "no-timing"}, each
    mode (seconds, passed, within its target, the time ratio or None)."""
    lines = ["# Wall time of ./grade LAB --solution",
             "",
             f"{device}, {date}, seed {seed}, median of {repeat} run(s) each, build already done "
             f"(`make bench-grade`). Targets: {TARGET_SECONDS['timed']:.0f} s, "
             f"{TARGET_SECONDS['no-timing']:.0f} s with --no-timing, the ratio within "
             f"{RATIO_TOLERANCE:.0%} of 1.00.",
             "",
             "| lab | ./grade | --no-timing | yours / reference (the reference graded as a student) |",
             "| --- | ---: | ---: | ---: |"]

    def cell(figures):
        seconds, passed, within, _ = figures
        return f"{seconds:.1f} s" + ("" if passed else " (not passed)") + ("" if within else " (over)")

    for row in rows:
        ratio = row["timed"][3]
        shown = "-" if ratio is None else f"{ratio:.3f}" + ("" if ratio_within(ratio) else " (off)")
        lines.append(f"| {row['lab']} | {cell(row['timed'])} | {cell(row['no-timing'])} | {shown} |")
    return lines


def main():
    parser = argparse.ArgumentParser(prog="make bench-grade", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=12345)
    arguments = parser.parse_args()
    if arguments.repeat < 1:
        parser.error("--repeat must be 1 or more")
    device = gpu_name()
    if device is None:
        print("make bench-grade: no GPU here; the grader's wall time is measured on a GPU machine")
        return 3
    rows, all_within = [], True
    logs = os.path.join(arguments.out, "grade-logs")
    os.makedirs(logs, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for lab in labs():
            row = {"lab": lab}
            for mode in TARGET_SECONDS:
                runs = [time_grading(lab, mode, arguments.seed, scratch, logs) for _ in range(arguments.repeat)]
                seconds = statistics.median(run[0] for run in runs)
                summary = runs[-1][1] or {}
                passed = all(run[1] and run[1].get("verdict") == "passed" for run in runs)
                within = seconds <= TARGET_SECONDS[mode]
                all_within &= passed and within
                row[mode] = (seconds, passed, within, summary.get("time_ratio"))
                print(f"{lab:<22} {mode:<10} {seconds:6.1f} s  {'passed' if passed else 'NOT PASSED'}"
                      f"{'' if within else '  over the target'}", flush=True)
            rows.append(row)
    lines = table(device, datetime.date.today().isoformat(), arguments.seed, arguments.repeat, rows)
    all_within &= all(ratio_within(row["timed"][3]) for row in rows)
    os.makedirs(arguments.out, exist_ok=True)
    path = os.path.join(arguments.out, "grade-times.md")
    with open(path, "w") as file:
        file.write("\n".join(lines) + "\n")
    print(f"make bench-grade: wrote {path}")
    return 0 if all_within else 1


if __name__ == "__main__":
    sys.exit(main())
