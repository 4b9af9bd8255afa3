#!/usr/bin/env python3
"""./grade LAB [options] --slurm [sbatch options]: a grading for a student on a cluster's login
node, which has no GPU. The lab is built here (./grade with GRADE_BUILD_ONLY=1: a build that fails,
a file that is missing or a bad option ends here, with ./grade's own report and exit code, and no
job); then ./grade runs as a Slurm job on a GPU node, with the same options, from the same folder;
its output is shown here as it comes, and this exits with its exit code. The kit's folder, the
caller's folder and the report files must be on a file system the nodes see, and the CUDA toolkit
at the same place there (the job gets this environment, sbatch's default).

Exit codes are ./grade's; where the job ended before the grading did (cancelled, out of time, its
node failed), 4: the grading machine's fault, not the code's. Python 3.6's standard library only.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXIT_USAGE, EXIT_NO_GPU, EXIT_MACHINE = 2, 3, 4
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                "BOOT_FAIL", "DEADLINE"}
# sbatch options that ask for a GPU (without one the job grades nothing on a GPU).
GPU_OPTIONS = re.compile(r"^(--gres(=|$).*gpu|--gpus|-G|--gpus-per-|--tres-per-)")


def say(text):
    print(f"grade: {text}", flush=True)


def job_state(job):
    """(JobState, NodeList) while Slurm remembers the job, else (None, None)."""
    try:
        result = subprocess.run(["scontrol", "show", "job", "--oneliner", job], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, universal_newlines=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None, None
    state = re.search(r"\bJobState=(\S+)", result.stdout)
    nodes = re.search(r"\bNodeList=(\S+)", result.stdout)
    return (state.group(1) if state else None), (nodes.group(1) if nodes and nodes.group(1) != "(null)" else None)


def job_script(folder, caller, grade_arguments):
    """The job: ./grade with the caller's options, in the caller's folder; its exit code kept."""
    status = os.path.join(folder, "status")
    command = " ".join(shlex.quote(word) for word in [os.path.join(ROOT, "grade"), *grade_arguments])
    return (f"#!/bin/bash\n"
            f"# ./grade {' '.join(shlex.quote(word) for word in grade_arguments)} --slurm, by grader/slurm_grade.py\n"
            f"cd {shlex.quote(caller)} || exit {EXIT_MACHINE}\n"
            f"{command}\n"
            f"status=$?\n"
            f"echo \"$status\" > {shlex.quote(status)}\n"
            f"exit \"$status\"\n")


class Follower:
    """Prints what the job writes to its output file, as it comes."""

    def __init__(self, path):
        self.path, self.offset = path, 0

    def show_new(self):
        try:
            with open(self.path, "rb") as file:
                file.seek(self.offset)
                data = file.read()
        except OSError:
            return
        self.offset += len(data)
        if data:
            sys.stdout.write(data.decode("utf-8", "replace"))
            sys.stdout.flush()


def main(arguments):
    if "--slurm" not in arguments or "--caller" not in arguments[:1]:
        print("usage: grade LAB [options] --slurm [sbatch options] (./grade runs this)", file=sys.stderr)
        return EXIT_USAGE
    caller = arguments[1]
    split = arguments.index("--slurm")
    grade_arguments, sbatch_options = arguments[2:split], arguments[split + 1:]
    if "--help" in grade_arguments or "-h" in grade_arguments:
        return subprocess.call([os.path.join(ROOT, "grade"), "--help"])
    for option in sbatch_options:
        if not option.startswith("-"):
            say(f"--slurm: '{option}' is not an sbatch option: the grade options go before --slurm, "
                "sbatch's after it (e.g. ./grade lab5 --no-timing --slurm --partition=gpu --gres=gpu:1)")
            return EXIT_USAGE
    if not shutil.which("sbatch") or not shutil.which("scontrol"):
        say("--slurm: sbatch and scontrol (Slurm's commands) are not on the PATH here: run it on the "
            "cluster's login node")
        return EXIT_USAGE

    # Built here: what does not build, or is no file, or is a bad option, ends here.
    built = subprocess.call([os.path.join(ROOT, "grade"), *grade_arguments], cwd=caller,
                            env=dict(os.environ, GRADE_BUILD_ONLY="1"))
    if built != 0:
        return built

    folder = os.path.join(ROOT, "build", "slurm", time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}")
    os.makedirs(folder)
    script, output = os.path.join(folder, "job.sh"), os.path.join(folder, "job.out")
    with open(script, "w") as file:
        file.write(job_script(folder, caller, grade_arguments))
    os.chmod(script, 0o755)
    lab = next((word for word in grade_arguments if not word.startswith("-")), "lab")
    try:
        result = subprocess.run(["sbatch", "--parsable", f"--job-name=grade-{lab.split('-')[0]}",
                                 f"--output={output}", f"--chdir={caller}", *sbatch_options, script],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        say(f"--slurm: sbatch did not answer: {error}")
        return EXIT_MACHINE
    job = result.stdout.strip().split(";")[0] if result.returncode == 0 else ""
    if not re.fullmatch(r"[0-9]+", job):
        said = [line for line in result.stdout.strip().splitlines() if line.strip()]
        say(f"--slurm: sbatch refused the job: {said[-1] if said else 'exit %d' % result.returncode}")
        return EXIT_USAGE
    say(f"built here; submitted as Slurm job {job} (its output follows as it runs; Ctrl-C cancels it)")

    def cancel(*_):
        subprocess.call(["scancel", job], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        say(f"--slurm: cancelled Slurm job {job}")
        sys.exit(130)

    signal.signal(signal.SIGINT, cancel)
    signal.signal(signal.SIGTERM, cancel)
    follower = Follower(output)
    state, nodes, unknown_since = None, None, None
    while True:
        follower.show_new()
        state, seen_nodes = job_state(job)
        nodes = seen_nodes or nodes
        if state in FINAL_STATES or os.path.exists(os.path.join(folder, "status")) and state is None:
            break
        if state is None:  # Slurm no longer lists it: gone (ended long ago, or never ran)
            unknown_since = unknown_since or time.monotonic()
            if time.monotonic() - unknown_since > 30:
                break
        time.sleep(2)
    time.sleep(1)  # the last of its output, where the file system lags
    follower.show_new()
    try:
        with open(os.path.join(folder, "status")) as file:
            status = int(file.read().strip())
    except (OSError, ValueError):
        say(f"--slurm: Slurm job {job} ended {state or 'as Slurm no longer lists it'} before the grading "
            f"finished (its output is above, in {output}): not your code's fault; submit again, or ask "
            "the cluster's staff")
        return EXIT_MACHINE
    where = f" on {nodes}" if nodes else ""
    say(f"graded{where} by Slurm job {job}, exit {status} (its output: {output})")
    if status == EXIT_NO_GPU and not any(GPU_OPTIONS.match(option) for option in sbatch_options):
        say("--slurm: the job asked for no GPU: give sbatch one after --slurm, as the cluster names it "
            "(--gres=gpu:1 or --gpus=1, with its GPU partition: --partition=NAME)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
