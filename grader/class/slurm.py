"""Grading a class through Slurm: the job array, its merge job, a task run again, the jobs' states."""
import json
import os
import re
import shutil
import subprocess

from out_folder import write_atomically
from shared import EXIT_COMPLETE, EXIT_MACHINE, EXIT_USAGE, Fail, ROOT, say


def slurm_job_of_task(out, run, task):
    try:
        with open(os.path.join(out, "slurm.json"), encoding="utf-8") as file:
            slurm = json.load(file)
    except (OSError, ValueError):
        return None
    if not isinstance(slurm, dict) or slurm.get("run") != run["run"]:
        return None
    return (slurm.get("tasks") or {}).get(str(task))


def slurm_state(job):
    """A Slurm job's state (TIMEOUT, CANCELLED, FAILED, ...), while Slurm remembers it."""
    scontrol = shutil.which("scontrol")
    if not scontrol or not re.fullmatch(r"[0-9]+(_[0-9]+)?", job):
        return None
    try:
        result = subprocess.run([scontrol, "show", "job", "--oneliner", job], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    state = re.search(rb"\bJobState=(\S+)", result.stdout)
    reason = re.search(rb"\bReason=(\S+)", result.stdout)
    if not state:
        return None
    text = state.group(1).decode()
    if reason and reason.group(1) not in (b"None",):
        text += f", {reason.group(1).decode()}"
    return text


def sbatch(arguments):
    """Submits one job; returns its id."""
    try:
        result = subprocess.run(["sbatch", "--parsable", *arguments], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    except FileNotFoundError:
        raise Fail(EXIT_MACHINE, "sbatch is not on PATH: --slurm submits through Slurm")
    except subprocess.TimeoutExpired:
        raise Fail(EXIT_MACHINE, "sbatch did not answer within 300 s")
    if result.returncode != 0:
        why = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Fail(EXIT_MACHINE, f"sbatch refused the job: {why[-1] if why else 'exit %d' % result.returncode}")
    job = result.stdout.decode().strip().split(";")[0]
    if not re.fullmatch(r"[0-9]+", job):
        raise Fail(EXIT_MACHINE, f"sbatch answered '{job[:100]}', not a job id")
    return job


def task_minutes(run):
    """A task's time limit: the worst case of its slice (every entry graded to its own time
    limit, plus its build step and copies), so that hanging submissions never cut a slice."""
    entries = len(run["roster"])
    per_task = -(-entries // run["options"]["tasks"])
    seconds = per_task * (run["options"]["student_timeout"] + 120) + 600
    return -(-seconds // 60)


def submit(o, run, tasks, slurm):
    """Submits tasks (task numbers) of the run as one job array, then a merge job that runs
    after it has ended; records the jobs in OUT/slurm.json."""
    logs = os.path.join(o.out, "logs")
    os.makedirs(logs, exist_ok=True)
    common = [f"--chdir={ROOT}", *slurm["sbatch"]]
    gres = [f"--gres=gpu:{slurm['gpus_per_task']}"] if slurm["gpus_per_task"] else []
    array = sbatch([f"--array={','.join(str(t) for t in tasks)}", f"--job-name=grade-{run['lab'].split('-')[0]}",
                    f"--time={task_minutes(run)}", *gres,
                    f"--output={logs}/{run['run']}-task-%a-job-%A.out", *common,
                    os.path.join(ROOT, "grader", "cluster", "grade-class.sbatch"), ROOT, o.out, run["run"]])
    merge_job = sbatch([f"--dependency=afterany:{array}", "--job-name=merge-class", "--time=30",
                        f"--output={logs}/{run['run']}-merge-job-%j.out", *common,
                        os.path.join(ROOT, "grader", "cluster", "merge-class.sbatch"), ROOT, o.out, run["run"]])
    for task in tasks:
        slurm["tasks"][str(task)] = f"{array}_{task}"
    slurm["merges"].append(merge_job)
    write_atomically(os.path.join(o.out, "slurm.json"),
                     (json.dumps(slurm, indent=1) + "\n").encode("utf-8"))
    which = f"tasks {tasks[0]}-{tasks[-1]}" if len(tasks) > 1 else f"task {tasks[0]}"
    say(f"run {run['run']}: job array {array} ({which}, {task_minutes(run)} min each), then job {merge_job} merges the class table into {o.out}/class.csv; logs in {logs}")
    return EXIT_COMPLETE


def rerun(o, run):
    try:
        with open(os.path.join(o.out, "slurm.json"), encoding="utf-8") as file:
            slurm = json.load(file)
    except (OSError, ValueError):
        raise Fail(EXIT_USAGE, f"--out: '{o.out}' holds no run submitted with --slurm (no slurm.json)")
    if slurm.get("run") != run["run"]:
        raise Fail(EXIT_USAGE, f"--out: slurm.json is of the run {slurm.get('run')}, not of {run['run']}")
    if "--sbatch" in o.given:
        slurm["sbatch"] = o.sbatch
    if "--gpus-per-task" in o.given:
        slurm["gpus_per_task"] = o.gpus_per_task
    return submit(o, run, [o.task], slurm)
