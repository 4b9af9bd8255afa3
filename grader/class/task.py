"""A task: the roster entries whose index % TASKS is its number, graded on this machine."""
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import tempfile

from grading import Grader
from out_folder import write_task_state
from prepare import TaskKit
from roster import roster_of
from sandbox import LIMIT_DATA_LEAST, SANDBOX_UID_BASE, Sandbox, gradings_memory_holds, host_memory
from shared import EXIT_COMPLETE, EXIT_INCOMPLETE, EXIT_MACHINE, Fail, Interrupted, MachineBroken, TaskRecorded, remove, say


def detect_gpus(o):
    if o.gpus is not None:
        return o.gpus
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        gpus = [g.strip() for g in visible.split(",") if g.strip()]
        return [] if not gpus or gpus[0] in ("-1", "NoDevFiles") else gpus
    try:
        result = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if result.returncode != 0:
        return []
    return [g.strip() for g in result.stdout.decode().splitlines() if re.fullmatch(r"[0-9]+", g.strip())]


def grade_task(o, run, task):
    """Grades the roster entries of one task of the run, on this machine."""
    gpus = detect_gpus(o)
    tasks = run["options"]["tasks"]
    mine = [e for e in roster_of(run) if e.index % tasks == task]
    concurrency = min(o.jobs, len(mine)) or 1
    host = host_memory()
    held = gradings_memory_holds(host, concurrency)
    if held < concurrency:
        concurrency = held
        say(f"--jobs {o.jobs} lowered to {concurrency}: this machine gives {host >> 30} GiB of memory, and each grading may take {LIMIT_DATA_LEAST >> 30} GiB")
    sandbox = Sandbox(concurrency)
    scratch = tempfile.mkdtemp(prefix="grade-class-")
    os.chmod(scratch, 0o711)
    grader = None
    interrupted = []

    def on_signal(number, _frame):
        interrupted.append(number)
        raise Interrupted()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        write_task_state(o.out, run, task, "running", entries=len(mine))
        kit = TaskKit(o, run, scratch)
        sandbox.probe(kit.kit, kit.reference_worker, scratch, SANDBOX_UID_BASE)
        say(f"run {run['run']}, task {task} of {tasks}: {len(mine)} roster entries, {concurrency} at a time"
            + (f", tests on GPU {','.join(gpus)} one at a time each" if gpus else ", no GPU"))
        grader = Grader(o, run, kit, sandbox, scratch, gpus, task, concurrency)
        done = graded = 0
        broken = None
        with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
            futures = {pool.submit(grader.grade, entry): entry for entry in mine}
            try:
                pending = set(futures)
                while pending:
                    finished, pending = concurrent.futures.wait(pending, timeout=1.0,
                                                                return_when=concurrent.futures.FIRST_COMPLETED)
                    for future in finished:
                        entry = futures[future]
                        done += 1
                        try:
                            line = future.result()
                        except (Interrupted, concurrent.futures.CancelledError):
                            continue
                        except MachineBroken as error:
                            if broken is None:
                                broken = str(error)
                                grader.stop()
                                for waiting in futures:
                                    waiting.cancel()
                            continue
                        except Exception as error:  # a bug or a full disk: this entry has no line
                            say(f"[{done}/{len(mine)}] {entry.id}: no line ({type(error).__name__}: {error})")
                            continue
                        if line is None:
                            continue
                        graded += 1
                        first = line["problems"][0] if line["problems"] else ""
                        # A long problem is cut at a word, and says so: the row and report.txt hold it whole.
                        if len(first) > 100:
                            first = first[:100].rsplit(" ", 1)[0] + " ..."
                        say(f"[{done}/{len(mine)}] {entry.id}: {line['verdict']}"
                            + (f" ({first})" if first and line["verdict"] not in ("passed",) else "")
                            + (" [kept: graded earlier in this run]" if line.get("kept") else f" [{line['seconds']:.0f} s]"))
            except Interrupted:
                grader.stop()
                for future in futures:
                    future.cancel()
                raise
        if broken is not None:
            write_task_state(o.out, run, task, "machine", why=broken, graded=graded)
            raise TaskRecorded(EXIT_MACHINE, f"this machine cannot grade (the lab's skeleton cannot be graded either): {broken}")
        write_task_state(o.out, run, task, "finished", graded=graded)
        say(f"task {task}: {graded} of {len(mine)} entries graded")
        return EXIT_COMPLETE if graded == len(mine) else EXIT_INCOMPLETE
    except Fail as failure:
        if failure.status == EXIT_MACHINE and not isinstance(failure, TaskRecorded):
            write_task_state(o.out, run, task, "machine", why=str(failure)[:500])
        raise
    except Interrupted:
        if grader:
            grader.stop()
        number = interrupted[0] if interrupted else 0
        write_task_state(o.out, run, task, "stopped", signal=number)
        o.interrupted = True
        again = "the same command resumes the run" if o.mode == "grade" else f"grade-class --task {task} --out OUT grades the rest"
        print(f"grade-class: interrupted (signal {number or '?'}): the gradings in progress were stopped, those done kept; {again}", file=sys.stderr)
        return EXIT_INCOMPLETE
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        remove(scratch)
