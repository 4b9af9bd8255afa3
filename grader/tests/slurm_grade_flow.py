"""make test's part slurm, for a student: ./grade LAB [options] --slurm [sbatch options] through a
real Slurm of one node (local_slurm.py), which has no GPU here, as a login node would have none:

- a grading of CPU tests (lab 4's sequential/*, the reference and the skeleton) runs as a job, its
  output shown here, its exit code (0 and 1) and its summary.json the job's;
- a file that does not build ends before any job, with ./grade's report (exit 1);
- sbatch's refusal (a partition that does not exist) is one line, exit 2;
- a job cancelled before it grades: exit 4, naming the job and its state.
Each check is (description, status, detail) for run_tests.py to count.
"""
import os
import re
import subprocess
import time

from json_files import read_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "grader", "tests", "report-fixtures")


def grade(cluster, work, name, arguments, sbatch):
    summary = os.path.join(work, f"slurm-grade-{name}.summary.json")
    if os.path.exists(summary):
        os.remove(summary)
    status, output = cluster.run(["./grade", *arguments, "--summary", summary, "--slurm", *sbatch], timeout=900)
    with open(os.path.join(work, f"slurm-grade-{name}.log"), "w") as log:
        log.write(output)
    return status, output, read_json(summary)


def checks(cluster, work):
    results = []
    cpu_tests = ["--no-timing", "--seed", "12345", "--filter", "sequential/*"]
    for name, role, want_status, want_verdict in (("reference", ["--solution"], 0, "passed"),
                                                  ("skeleton", [], 1, "failed")):
        status, output, summary = grade(cluster, work, name, ["lab4", *role, *cpu_tests], [])
        job = re.search(r"submitted as Slurm job (\d+)", output)
        ok = (status == want_status and (summary or {}).get("verdict") == want_verdict and job is not None
              and "grade: lab4-text-histogram, seed 12345" in output and f"by Slurm job {job.group(1)}, exit "
              f"{want_status}" in output)
        results.append((f"grade lab4 --slurm: the {name} graded by a job, exit {want_status}", "pass" if ok else "fail",
                        f"exit {status}, verdict {(summary or {}).get('verdict')}; log: build/test/slurm-grade-{name}.log"))
    status, output, summary = grade(cluster, work, "does-not-build",
                                    ["lab4", "--file", os.path.join(FIXTURES, "does-not-build-lab4.cu"), "--no-timing"],
                                    [])
    ok = status == 1 and (summary or {}).get("verdict") == "does not compile" and "Slurm job" not in output
    results.append(("grade --slurm: a file that does not build, no job (exit 1)", "pass" if ok else "fail",
                    f"exit {status}, verdict {(summary or {}).get('verdict')}"))
    status, output, _ = grade(cluster, work, "bad-partition", ["lab4", *cpu_tests], ["--partition=no-such-partition"])
    lines = [line for line in output.splitlines() if line.startswith("grade: --slurm")]
    ok = status == 2 and len(lines) == 1 and "sbatch refused the job" in lines[0]
    results.append(("grade --slurm: sbatch's refusal in one line (exit 2)", "pass" if ok else "fail",
                    lines[0][:160] if lines else f"exit {status}: {output.strip()[-200:]}"))
    # Held, then cancelled from here before it starts: the grading never ran.
    command = ["./grade", "lab4", *cpu_tests, "--slurm", "--hold"]
    waiting = subprocess.Popen(command, cwd=ROOT, env=cluster.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True)
    said, job, deadline = [], None, time.monotonic() + 300
    while job is None and time.monotonic() < deadline:
        line = waiting.stdout.readline()
        if not line:
            break
        said.append(line)
        found = re.search(r"submitted as Slurm job (\d+)", line)
        job = found.group(1) if found else None
    if job:
        cluster.run(["scancel", job])
    try:
        rest, _ = waiting.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        waiting.kill()
        rest, _ = waiting.communicate()
    output = "".join(said) + rest
    ok = job is not None and waiting.returncode == 4 and re.search(rf"Slurm job {job} ended CANCELLED", output)
    results.append(("grade --slurm: a job cancelled before grading, exit 4", "pass" if ok else "fail",
                    f"exit {waiting.returncode}: {output.strip().splitlines()[-1][:200] if output.strip() else ''}"))
    return results
