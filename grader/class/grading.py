"""Grading one roster entry: its file fetched, graded in three sandboxes, its reports written by
the kit's results model outside them, its line written.

The steps of a submission's grading, each in a new sandbox (sandbox.py) that ends, with every
process it started, before the next begins:

1. build: the kit's Makefile compiles the submission (the submission check, the compiler) into
   a folder of its own; no GPU.
2. link: the object that came out of it alone, checked again by the submission check and linked
   into the student's worker by the kit's Makefile, in another new folder; no GPU. Nothing the
   build step left (a dependency file, a process, another file) reaches it.
3. tests: the kit's grader, built when the task's kit was (the same program for every
   submission), runs the tests with the student's worker and the references' worker (a program
   the grading's user may run but not read); the grading record is the only thing it writes
   (a folder of its own); its GPU alone, when there is one.

Then the kit's results model, outside any sandbox, reads a copy of that record and writes the
student's reports (summary.json, results.json, tests.tap, tests.xml) into --out, where nothing
of the grading can write: the row's verdict comes from there. The kit the sandboxes see is
read-only (a fresh copy for each grading), so nothing a submission does can change the
results model, the grader or the references' worker."""
import errno
import hashlib
import json
import os
import queue
import signal
import stat
import subprocess
import tempfile
import threading
import time

from names import escape_name, inert
from out_folder import read_line, write_atomically
from roster import kind_of
from sandbox import SANDBOX_UID_BASE, gpu_devices, sandbox_environment
from shared import EXIT_MACHINE, Fail, Interrupted, MachineBroken, remove, say


FILE_CAP = 1 << 20            # a submission's labN.cu, at most
REPORT_CAP = 1 << 20          # what report.txt keeps of a grading's output
REPORT_MARK = b"[report cut at 1 MiB]\n"
RECORDS_CAP = 64 << 20        # the grading record a grading's tests may write
# The reports the results model writes in a student's folder of --out.
REPORT_FILES = ("summary.json", "results.json", "tests.tap", "tests.xml")
# Everything grade-class writes in a student's folder of --out (and may delete there).
STUDENT_FILES = ("line.json", "report.txt", "build.txt") + REPORT_FILES
VERDICTS = ("passed", "failed", "does not compile", "no file", "not graded on a GPU",
            "grading machine broken", "no test ran")
# The tests, run as ./grade runs them (its run_tests): the correctness tests side by side, each
# test process with one hardware queue, then the timed ones alone; Criterion's [RUN ] lines out.
TESTS_SCRIPT = """
: >/records/records || exit 4
grader=$1 jobs=$2 timed=$3
if [ -n "$timed" ]; then
    CUDA_DEVICE_MAX_CONNECTIONS=1 "$grader" --verbose -j"$jobs" '--filter=!(speed/*)' 2>&1 |
        grep --line-buffered -v -E '\\[RUN \\]'
    "$grader" --verbose -j1 '--filter=speed/*' 2>&1 | grep --line-buffered -v -E '\\[RUN \\]'
else
    CUDA_DEVICE_MAX_CONNECTIONS=1 "$grader" --verbose -j"$jobs" 2>&1 | grep --line-buffered -v -E '\\[RUN \\]'
fi
exit 0
"""


class Printed(bytes):
    """What a sandbox printed, the first REPORT_CAP bytes of it, and how many bytes in all."""

    def __new__(cls, data, size):
        printed = super().__new__(cls, data)
        printed.size = size
        return printed


class Report:
    """report.txt: what the student would have seen, made inert (no terminal escape, valid
    UTF-8), cut at REPORT_CAP."""

    def __init__(self, path):
        self.file = open(path, "wb")
        self.kept = self.total = 0

    def write(self, data, total=None):
        """data: what a step printed (at most REPORT_CAP of its total bytes)."""
        self.total += len(data) if total is None else total
        if self.kept >= REPORT_CAP:
            return
        text = inert(data[:REPORT_CAP - self.kept]).encode("utf-8")
        self.file.write(text)
        self.kept += len(text)
        if self.kept >= REPORT_CAP:
            self.file.write(b"\n" + REPORT_MARK)

    def close(self):
        self.file.close()

    def cut(self):
        return f"report.txt cut at 1 MiB (the grading printed {self.total / (1 << 20):.1f} MiB)" \
            if self.total > REPORT_CAP else None


class Grader:
    def __init__(self, o, run, kit, sandbox, scratch, gpus, task, concurrency):
        self.o, self.run, self.kit, self.sandbox = o, run, kit, sandbox
        self.scratch = scratch
        self.task = task
        # One sandbox user a grading running at once (see SANDBOX_UID_BASE).
        self.uids = queue.Queue()
        for slot in range(concurrency):
            self.uids.put(SANDBOX_UID_BASE + slot)
        self.machine_checked = None
        self.machine_lock = threading.Lock()
        self.gpus = None
        self.devices = {}
        if gpus:
            self.devices = gpu_devices(gpus)
            self.gpus = queue.Queue()
            for gpu in gpus:
                self.gpus.put(gpu)
        self.processes = set()
        self.lock = threading.Lock()
        self.stopping = False
        # Paths of the kit's build that compilers and linkers write into messages: where it
        # was built (--out) and where this task built it; the sandbox's own are stripped by the
        # results model.
        self.host_paths = sorted({os.path.realpath(p) + "/" for p in kit.built_in}, key=len, reverse=True)
        self.max_score = self.no_file_max()

    def no_file_max(self):
        with tempfile.TemporaryDirectory(dir=self.scratch) as folder:
            summary = os.path.join(folder, "summary.json")
            subprocess.run([self.kit.results, "grade", "--lab", self.o.lab, "--points",
                            self.kit.points, "--records", self.kit.listing, "--no-file",
                            "none", *(["--no-timing"] if self.o.no_timing else []),
                            "--summary", summary], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            try:
                with open(summary, encoding="utf-8") as file:
                    return json.load(file)["max_score"]
            except (OSError, ValueError, KeyError):
                raise Fail(EXIT_MACHINE, "the results model wrote no summary for a missing file")

    def stop(self):
        with self.lock:
            self.stopping = True
            processes = list(self.processes)
        for process in processes:
            try:
                process.send_signal(signal.SIGTERM)  # timeout passes it on, then kills
            except OSError:
                pass

    # -- one entry

    def grade(self, entry):
        if self.stopping:  # before anything of an earlier grading of it is removed
            raise Interrupted()
        started = time.monotonic()
        folder = os.path.join(self.o.out, "students", entry.id)
        os.makedirs(os.path.join(self.o.out, "students"), exist_ok=True)
        try:
            os.mkdir(folder)
        except FileExistsError:
            pass
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            say(f"{entry.id}: cannot grade: {folder} is not a folder")
            return None
        state, value = self.fetch(entry)
        handed_in = fingerprint(state, value)
        earlier = read_line(self.o.out, entry.id)
        if earlier and earlier.get("run") == self.run["run"] and earlier.get("handed_in") == handed_in \
                and earlier.get("verdict") not in ("not graded", "grading machine broken"):
            return dict(earlier, kept=True)  # a resumed run: graded already, the same file
        for name in STUDENT_FILES:
            try:
                os.unlink(os.path.join(folder, name))
            except FileNotFoundError:
                pass
        line = self.line(entry)
        line["handed_in"] = handed_in
        if state == "not a folder":
            line.update(verdict="not a folder", score=0, problems=[value])
            self.write_text(folder, "report.txt", f"grade-class: {escape_name(entry.raw, one_line=True)}: {value}\n")
        elif state == "file":
            self.grade_in_sandbox(value, folder, line)
        elif state == "no file":
            self.no_file(entry, value, folder, line)
        else:
            line.update(verdict="not graded", problems=[value])
        line["seconds"] = round(time.monotonic() - started, 1)
        data = (json.dumps(line, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
        write_atomically(os.path.join(folder, "line.json"), data)
        return line

    def line(self, entry):
        return {"name": entry.name, "id": entry.id, "verdict": None, "tests_passed": None,
                "tests_failed": None, "tests_not_run": None, "time_ratio": None, "score": None,
                "max_score": self.max_score, "problems": [],
                "task": self.task, "run": self.run["run"]}

    @staticmethod
    def write_text(folder, name, text):
        with open(os.path.join(folder, name), "w", encoding="utf-8", errors="replace") as file:
            file.write(text)

    def fetch(self, entry):
        """What the entry hands in, read without following any link: ("file", bytes of labN.cu),
        ("no file", why), ("not a folder", why) or ("not graded", why)."""
        short = self.o.short
        wanted = f"{short}.cu".encode()
        path = os.path.join(os.fsencode(self.o.submissions), entry.raw)
        try:
            kind = kind_of(os.lstat(path).st_mode)
        except OSError:
            kind = "gone"
        if kind != "folder":
            why = {"link": "a symbolic link, not a folder", "file": "a file, not a folder",
                   "gone": "gone from --submissions during the run"}.get(kind, f"a {kind}, not a folder")
            return "not a folder", f"{why}: each student hands in a folder holding {short}.cu"
        try:
            folder = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as error:
            return "not graded", f"cannot open the folder: {error.strerror}"
        try:
            try:
                st = os.stat(wanted, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                return "no file", self.missing(folder)
            if stat.S_ISLNK(st.st_mode):
                return "no file", f"{short}.cu is a symbolic link: hand in the file itself"
            if not stat.S_ISREG(st.st_mode):
                return "no file", f"{short}.cu is not a regular file (a {kind_of(st.st_mode)})"
            try:
                fd = os.open(wanted, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                             dir_fd=folder)
            except OSError as error:
                if error.errno == errno.ELOOP:
                    return "no file", f"{short}.cu is a symbolic link: hand in the file itself"
                return "not graded", f"cannot read {short}.cu: {error.strerror}"
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return "no file", f"{short}.cu is not a regular file"
                data = read_capped(fd, FILE_CAP)
            finally:
                os.close(fd)
            if data is None:
                return "no file", f"{short}.cu is larger than 1 MiB"
            if not data.strip():  # as ./grade says of an empty file
                return "no file", f"{short}.cu is empty: write the lab's functions in it"
            return "file", data
        finally:
            os.close(folder)

    def missing(self, folder):
        short = self.o.short
        try:
            names = sorted(os.fsencode(n) for n in os.listdir(folder))
        except OSError as error:
            return f"no {short}.cu in the folder (cannot list it: {error.strerror})"
        sources = [n for n in names if n.lower().endswith(b".cu")]
        if len(sources) == 1:
            return f"found {escape_name(sources[0], one_line=True)}; rename it to {short}.cu"
        if not names:
            return f"no {short}.cu: the folder is empty"
        shown = ", ".join(escape_name(n, one_line=True) for n in names[:5])
        more = f" (and {len(names) - 5} more)" if len(names) > 5 else ""
        return f"no {short}.cu in the folder; it holds: {shown}{more}"

    def results(self, folder, records, *how):
        """The kit's results model, outside any sandbox: the student's reports in folder from a
        grading record. Returns (its exit status, what it printed)."""
        reports = ["--summary", os.path.join(folder, "summary.json"),
                   "--json", os.path.join(folder, "results.json"),
                   "--tap", os.path.join(folder, "tests.tap"),
                   "--xml", os.path.join(folder, "tests.xml")]
        # The points file by its name alone: the student's reports show no folder of the
        # instructor's.
        result = subprocess.run([self.kit.results, "grade", "--lab", self.o.lab, "--points",
                                 os.path.basename(self.kit.points), "--records", records,
                                 "--seed", str(self.run["options"]["seed"]), "--student",
                                 os.path.basename(folder), "--strip", "/submission/", "--strip", "/kit/",
                                 *(["--no-timing"] if self.o.no_timing else []), *how, *reports],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, cwd=os.path.dirname(self.kit.points))
        return result.returncode, result.stdout

    def no_file(self, entry, why, folder, line):
        """A folder without a gradable file: the results model still writes every report."""
        _, printed = self.results(folder, self.kit.listing, "--no-file", why)
        report = Report(os.path.join(folder, "report.txt"))
        report.write(f"grade-class: {why}\n".encode("utf-8", "replace") + printed)
        report.close()
        self.take_summary(line, folder)

    # -- the sandboxes

    def grade_in_sandbox(self, source, folder, line, no_timing=False):
        uid = self.uids.get()
        try:
            self.grade_as(uid, source, folder, line, no_timing)
        finally:
            self.uids.put(uid)
        if not no_timing and line["verdict"] == "grading machine broken":
            self.check_machine(line)

    def check_machine(self, line):
        """A grading said this machine cannot grade: grade the lab's untouched skeleton to see
        whether the machine or the submission is at fault (a submission could fake the
        former). Raises MachineBroken when the skeleton cannot be graded either."""
        with self.machine_lock:  # not self.lock: run_sandbox takes that one
            if self.machine_checked is None:
                with open(os.path.join(self.kit.kit, "labs", self.o.lab, f"{self.o.short}.cu"), "rb") as file:
                    source = file.read()
                probe = {"verdict": None, "problems": []}
                folder = tempfile.mkdtemp(prefix="machine-check-", dir=self.scratch)
                try:
                    say(f"a grading says this machine cannot grade ({inert('; '.join(line['problems']), one_line=True)[:200]}): grading the lab's skeleton to check")
                    self.grade_in_sandbox(source, folder, probe, no_timing=True)
                finally:
                    remove(folder)
                broken = probe["verdict"] in ("grading machine broken", "not graded")
                self.machine_checked = "; ".join(probe["problems"])[:500] if broken else ""
            why = self.machine_checked
        if why:
            raise MachineBroken(why)
        line["problems"].append("this machine graded the lab's skeleton: the fault is the submission's")

    def grade_as(self, uid, source, folder, line, no_timing):
        o, lab, short = self.o, self.o.lab, self.o.short
        work = tempfile.mkdtemp(prefix="student-", dir=self.scratch)
        os.chmod(work, 0o711)
        report = Report(os.path.join(folder, "report.txt"))
        problems = []
        deadline = time.monotonic() + o.student_timeout
        try:
            # A fresh copy of the task's kit: read-only to the grading (its user's never, and
            # bound read-only besides).
            kit = os.path.join(work, "kit")
            subprocess.run(["cp", "-a", "--", self.kit.kit, kit], check=True)
            submission = os.path.join(work, "submission")
            os.mkdir(submission, 0o755)
            os.chmod(submission, 0o755)
            with open(os.path.join(submission, f"{short}.cu"), "wb") as file:
                file.write(source)
            os.chmod(os.path.join(submission, f"{short}.cu"), 0o444)
            built = os.path.join("build", "class", lab)
            make = ["make", "-s", "--no-print-directory", f"CUDA_ARCH={self.kit.cuda_arch}",
                    f"SUBMISSION_LAB={lab}", "SUBMISSION_ROLE=class", f"SUBMISSION_FILE=/submission/{short}.cu"]
            common = [("ro", kit, "/kit"), ("ro", submission, "/submission")]

            # 1. The build of the submission's object.
            build = self.writable(work, "build", uid)
            status, timed_out, log = self.run_sandbox(
                common + [("rw", build, "/kit/build/class")], deadline, None, uid,
                make + [f"{built}/{short}.o"])
            report.write(log, log.size)
            if timed_out:
                return self.timed_out(line, report, "while building", problems)
            object_file = os.path.join(build, lab, f"{short}.o")
            build_log = log
            linked = None
            if status == 0:
                # 2. That object alone, checked again and linked into the student's worker.
                linked = self.writable(work, "link", uid)
                if not self.carry(object_file, os.path.join(linked, lab, f"{short}.o"), uid):
                    status = 1
                    build_log += b"the build made no object\n"
                else:
                    status, timed_out, log = self.run_sandbox(
                        common + [("rw", linked, "/kit/build/class")], deadline, None, uid,
                        ["/bin/sh", "-c", 'python3 grader/check_submission.py object "$1" "$2" && shift 2 && exec "$@"',
                         "sh", f"{built}/{short}.o", f"/submission/{short}.cu", *make, f"{built}/worker"])
                    report.write(log, log.size)
                    build_log += log
                    if timed_out:
                        return self.timed_out(line, report, "while building", problems)
            if status != 0:
                log_file = os.path.join(work, "build.log")
                with open(log_file, "wb") as file:
                    file.write(self.without_host_paths(build_log))
                _, printed = self.results(folder, self.kit.listing, "--build-log", log_file)
                report.write(printed)
                self.finish(line, folder, report, problems)
                return

            # 3. The tests, on a GPU of the grading's own when there is one.
            records = self.writable(work, "records", uid)
            gpu = None
            if self.gpus is not None:
                waited = time.monotonic()
                gpu = self.gpus.get()
                deadline += time.monotonic() - waited
            try:
                devices, visible = self.devices.get(gpu, ((), "")) if gpu is not None else ((), None)
                timed = not (no_timing or o.no_timing)
                env = {"GRADE_RECORDS": "/records/records", "GRADE_SEED": str(self.run["options"]["seed"]),
                       "GRADE_RUNS": str(o.runs), "GRADE_INPUT": "", "GRADE_DATA_DIR": "/kit/grader/data",
                       "GRADE_OBJECT": f"/kit/{built}/{short}.o", "GRADE_WORKER": f"/kit/{built}/worker",
                       "GRADE_REFERENCE_WORKER": "/grading/reference-worker"}
                if not timed:
                    env["GRADE_NO_TIMING"] = "1"
                status, timed_out, log = self.run_sandbox(
                    common + [("ro", linked, "/kit/build/class"), ("rw", records, "/records"),
                              ("ro", self.kit.reference_worker, "/grading/reference-worker")],
                    deadline, gpu, uid,
                    ["/bin/sh", "-c", TESTS_SCRIPT, "sh", f"/kit/build/listing/{lab}/grader",
                     str(self.test_jobs(gpu)), "1" if timed else ""],
                    devices=devices, visible=visible, extra_env=env)
            finally:
                if gpu is not None:
                    self.gpus.put(gpu)
            report.write(log, log.size)
            if timed_out:
                return self.timed_out(line, report, "", problems)
            copy = os.path.join(work, "records.copy")
            if not self.carry(os.path.join(records, "records"), copy, None, RECORDS_CAP):
                problems.append("the tests wrote no grading record of at most 64 MiB")
                with open(copy, "wb"):
                    pass
            _, printed = self.results(folder, copy)
            report.write(printed)
            self.finish(line, folder, report, problems)
        finally:
            report.close()
            remove(work)

    def finish(self, line, folder, report, problems):
        cut = report.cut()
        self.take_summary(line, folder)
        line["problems"] += problems + ([cut] if cut else [])

    def timed_out(self, line, report, when, problems):
        o = self.o
        report.write(f"grade-class: grading stopped after {o.student_timeout} s (--student-timeout){' ' + when if when else ''}\n".encode())
        line.update(verdict="timed out", score=0,
                    problems=[f"grading stopped after {o.student_timeout} s{' (' + when + ')' if when else ''}"] + problems)

    def writable(self, work, name, uid):
        path = os.path.join(work, name)
        os.mkdir(path, 0o755)
        self.sandbox.hand_over(path, uid)
        return path

    def carry(self, source, target, uid, cap=FILE_CAP * 256):
        """Copies a file a sandbox made, if it is a regular file (never through a link), into a
        folder of its own for the next step (made for uid, when given). False if there is none."""
        try:
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            data = read_capped(fd, cap) if stat.S_ISREG(os.fstat(fd).st_mode) else None
        finally:
            os.close(fd)
        if data is None:
            return False
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if uid is not None:
            self.sandbox.hand_over(os.path.dirname(target), uid)
        with open(target, "wb") as file:
            file.write(data)
        os.chmod(target, 0o644)
        return True

    def without_host_paths(self, text):
        for path in self.host_paths:
            text = text.replace(path.encode(), b"")
        return text

    def test_jobs(self, gpu):
        """As ./grade: the tests side by side, one a core up to 8; one at a time where the GPU is
        in a compute mode other than Default."""
        jobs = min(8, os.cpu_count() or 1)
        if gpu is not None:
            try:
                result = subprocess.run(["nvidia-smi", "-i", self.devices[gpu][1], "--query-gpu=compute_mode",
                                         "--format=csv,noheader"], stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, timeout=60)
                if any(mode.strip() not in ("", "Default") for mode in result.stdout.decode().splitlines()):
                    jobs = 1
            except (OSError, subprocess.TimeoutExpired):
                pass
        return jobs

    def run_sandbox(self, binds, deadline, gpu, uid, argv, devices=(), visible="", extra_env=None):
        """Runs argv in a new sandbox until the deadline. Returns (exit status, whether the time
        limit stopped it, what it printed: a Printed)."""
        seconds = max(1, int(deadline - time.monotonic()))
        command = self.sandbox.command(binds, seconds, argv, uid, devices)
        env = sandbox_environment(visible if gpu is not None else ("" if self.gpus is not None else None))
        env.update(extra_env or {})
        started = time.monotonic()
        with self.lock:
            if self.stopping:
                raise Interrupted()
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, env=env, close_fds=True)
            self.processes.add(process)
        kept = []
        size = 0
        try:
            while True:
                chunk = os.read(process.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                if size < REPORT_CAP + 1:
                    kept.append(chunk[:REPORT_CAP + 1 - size])
                size += len(chunk)
            status = process.wait()
        finally:
            process.stdout.close()
            with self.lock:
                self.processes.discard(process)
        elapsed = time.monotonic() - started
        if self.stopping:  # stopped by grade-class itself: no verdict, no line
            raise Interrupted()
        timed_out = status in (124, 137) and elapsed >= seconds - 1
        return status, timed_out, Printed(b"".join(kept), size)

    def read_summary(self, path):
        """The summary.json the results model wrote, checked against this run. (summary, None)
        or (None, why)."""
        try:
            with open(path, "rb") as file:
                summary = json.loads(file.read(1 << 20).decode("utf-8"))
        except OSError as error:
            return None, error.strerror
        except ValueError as error:
            return None, f"summary.json is not JSON: {error}"
        ints = ("tests_passed", "tests_failed", "tests_not_run", "exit_code")
        numbers = ("score", "max_score")
        if not (isinstance(summary, dict) and summary.get("verdict") in VERDICTS
                and summary.get("lab") == self.o.lab
                and summary.get("seed") == self.run["options"]["seed"]
                and all(type(summary.get(k)) is int and 0 <= summary[k] < 1 << 20 for k in ints)
                and all(type(summary.get(k)) in (int, float) and 0 <= summary[k] < 1e9 for k in numbers)
                and (summary.get("time_ratio") is None or (type(summary["time_ratio"]) in (int, float) and summary["time_ratio"] > 0))
                and isinstance(summary.get("problems"), list)
                and all(isinstance(p, str) for p in summary["problems"])):
            return None, "summary.json does not match this grading (lab, seed or fields)"
        return summary, None

    def take_summary(self, line, folder):
        summary, problem = self.read_summary(os.path.join(folder, "summary.json"))
        if summary is None:
            line.update(verdict="not graded", problems=[f"the results model wrote no summary: {problem}"])
            return
        line.update(verdict=summary["verdict"], tests_passed=summary["tests_passed"],
                    tests_failed=summary["tests_failed"], tests_not_run=summary["tests_not_run"],
                    time_ratio=summary["time_ratio"], score=summary["score"],
                    max_score=summary["max_score"], exit=summary["exit_code"],
                    problems=[inert(p, one_line=True)[:1000] for p in summary["problems"][:100]])


def read_capped(fd, cap):
    """A file's bytes, or None when it holds more than cap."""
    chunks, size = [], 0
    while size <= cap:
        chunk = os.read(fd, cap + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks) if size <= cap else None


def fingerprint(state, value):
    """What an entry handed in, to tell on a resumed run whether it changed since its line."""
    if state == "file":
        return "file " + hashlib.sha256(value).hexdigest()
    return f"{state}: {value}"
