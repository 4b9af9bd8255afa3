"""Grading one roster entry: its file fetched, graded in the sandbox, its line written."""
import errno
import json
import os
import queue
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

from names import escape_name
from out_folder import write_atomically
from roster import kind_of
from sandbox import SANDBOX_UID_BASE, sandbox_environment
from shared import EXIT_MACHINE, Fail, Interrupted, MachineBroken, say


FILE_CAP = 1 << 20            # a submission's labN.cu, at most
REPORT_CAP = 1 << 20          # what report.txt keeps of a grading's output
REPORT_MARK = b"[report cut at 1 MiB]\n"


# The reports a grading writes under /out, and the most of each that comes back.
REPORT_FILES = {"summary.json": 1 << 20, "results.json": 16 << 20, "tests.tap": 16 << 20,
                "tests.xml": 16 << 20}
# Everything grade-class writes in a student's folder of --out (and may delete there).
STUDENT_FILES = ("line.json", "report.txt", "build.txt") + tuple(REPORT_FILES)
VERDICTS = ("passed", "failed", "does not compile", "no file", "not graded on a GPU",
            "grading machine broken", "no test ran")
# A Criterion filter no test matches: the build step of a two-step grading (see grade_folder).
BUILD_ONLY_FILTER = "grade-class-build-only/no-test"


class Grader:
    def __init__(self, o, run, prepared, sandbox, scratch, gpus, task, concurrency):
        self.o, self.run, self.prepared, self.sandbox = o, run, prepared, sandbox
        self.scratch = scratch
        self.task = task
        # One sandbox user a grading running at once (see SANDBOX_UID_BASE).
        self.uids = queue.Queue()
        for slot in range(concurrency):
            self.uids.put(SANDBOX_UID_BASE + slot)
        self.machine_checked = None
        self.machine_lock = threading.Lock()
        self.gpus = None
        if gpus:
            self.gpus = queue.Queue()
            for gpu in gpus:
                self.gpus.put(gpu)
        self.processes = set()
        self.lock = threading.Lock()
        self.stopping = False
        self.max_score = self.no_file_max()

    def no_file_max(self):
        with tempfile.TemporaryDirectory(dir=self.scratch) as folder:
            summary = os.path.join(folder, "summary.json")
            subprocess.run([self.prepared.results, "grade", "--lab", self.o.lab, "--points",
                            self.prepared.points, "--records", self.prepared.listing, "--no-file",
                            "none", "--summary", summary], stdout=subprocess.DEVNULL,
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
        for name in STUDENT_FILES:
            try:
                os.unlink(os.path.join(folder, name))
            except FileNotFoundError:
                pass
        line = self.line(entry)
        if entry.kind != "folder":
            why = {"link": "a symbolic link, not a folder", "file": "a file, not a folder",
                   "gone": "gone from --submissions during the run"}.get(entry.kind, f"a {entry.kind}, not a folder")
            line.update(verdict="not a folder", score=0,
                        problems=[f"{why}: each student hands in a folder holding {self.o.short}.cu"])
            self.write_text(folder, "report.txt", f"grade-class: {entry.name!s}: {line['problems'][0]}\n")
        else:
            state, value = self.fetch(entry)
            if state == "file":
                self.grade_in_sandbox(entry, value, folder, line)
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
        """The submission's labN.cu, read without following any link: ("file", bytes),
        ("no file", why) or ("not graded", why)."""
        short = self.o.short
        wanted = f"{short}.cu".encode()
        path = os.path.join(os.fsencode(self.o.submissions), entry.raw)
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
                chunks, size = [], 0
                while size <= FILE_CAP:
                    chunk = os.read(fd, FILE_CAP + 1 - size)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
            finally:
                os.close(fd)
            if size > FILE_CAP:
                return "no file", f"{short}.cu is larger than 1 MiB"
            return "file", b"".join(chunks)
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

    def no_file(self, entry, why, folder, line):
        """A folder without a gradable file: the results model still writes every report."""
        reports = ["--summary", os.path.join(folder, "summary.json"),
                   "--json", os.path.join(folder, "results.json"),
                   "--tap", os.path.join(folder, "tests.tap"),
                   "--xml", os.path.join(folder, "tests.xml")]
        result = subprocess.run([self.prepared.results, "grade", "--lab", self.o.lab, "--points",
                                 self.prepared.points, "--records", self.prepared.listing, "--no-file",
                                 why, "--student", entry.id, "--seed", str(self.run["options"]["seed"]),
                                 *reports], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        with open(os.path.join(folder, "report.txt"), "wb") as file:
            file.write(f"grade-class: {why}\n".encode("utf-8", "replace") + result.stdout[:REPORT_CAP])
        summary, problem = self.read_summary(os.path.join(folder, "summary.json"))
        if summary is None:
            line.update(verdict="not graded", problems=[f"the results model wrote no summary: {problem}"])
        else:
            self.take_summary(line, summary)

    # -- the sandbox

    def grade_in_sandbox(self, entry, source, folder, line):
        uid = self.uids.get()
        try:
            self.grade_as(uid, source, folder, line)
        finally:
            self.uids.put(uid)
        if line["verdict"] == "grading machine broken" or line.get("exit") == 4:
            self.check_machine(line)

    def check_machine(self, line):
        """A grading said this machine cannot grade: grade the lab's untouched skeleton to see
        whether the machine or the submission is at fault (a submission could fake the
        former). Raises MachineBroken when the skeleton cannot be graded either."""
        with self.machine_lock:  # not self.lock: run_sandbox takes that one
            if self.machine_checked is None:
                skeleton = os.path.join(self.prepared.kit, "labs", self.o.lab, f"{self.o.short}.cu")
                with open(skeleton, "rb") as file:
                    source = file.read()
                probe = {"verdict": None, "problems": []}
                folder = tempfile.mkdtemp(prefix="machine-check-", dir=self.scratch)
                uid = self.uids.get()
                try:
                    say(f"a grading says this machine cannot grade ({'; '.join(line['problems'])[:200]}): grading the lab's skeleton to check")
                    self.grade_as(uid, source, folder, probe, no_timing=True)
                finally:
                    self.uids.put(uid)
                    self.remove(folder)
                broken = probe["verdict"] in ("grading machine broken", "not graded") or probe.get("exit") == 4
                self.machine_checked = "; ".join(probe["problems"])[:500] if broken else ""
            why = self.machine_checked
        if why:
            raise MachineBroken(why or "the kit's skeleton cannot be graded here")
        line["problems"].append("this machine graded the lab's skeleton: the fault is the submission's")

    def grade_as(self, uid, source, folder, line, no_timing=False):
        o = self.o
        work = tempfile.mkdtemp(prefix="student-", dir=self.scratch)
        os.chmod(work, 0o711)
        try:
            kit = os.path.join(work, "kit")
            submission = os.path.join(work, "submission")
            out = os.path.join(work, "out")
            subprocess.run(["cp", "-a", "--", self.prepared.kit, kit], check=True)
            os.mkdir(submission, 0o755)
            os.chmod(submission, 0o755)
            with open(os.path.join(submission, f"{o.short}.cu"), "wb") as file:
                file.write(source)
            # Read-only by its bind; its mode stays writable for the copy ./grade makes of it,
            # which a second ./grade (the grading after the build step) overwrites.
            os.chmod(os.path.join(submission, f"{o.short}.cu"), 0o644)
            os.mkdir(out)
            os.chmod(out, 0o755)
            self.sandbox.hand_over(kit, uid, recursive=True)
            self.sandbox.hand_over(out, uid)
            seed = str(self.run["options"]["seed"])
            grade = ["/kit/grade", o.short, "--file", f"/submission/{o.short}.cu", "--seed", seed,
                     "--points", "/grading/points.conf"]
            budget = float(o.student_timeout)
            gpu = None
            problems = []
            if self.gpus is not None:
                # Two steps: the build (CPU only, no GPU visible) while other gradings hold the
                # GPUs, then the grading itself on a GPU of its own; make finds the build done.
                started = time.monotonic()
                status, timed_out, _ = self.run_sandbox(
                    kit, submission, out, max(1, int(budget)), None, uid,
                    grade + ["--no-timing", "--filter", BUILD_ONLY_FILTER],
                    os.path.join(folder, "build.txt"), problems, "build.txt")
                budget -= time.monotonic() - started
                for name in os.listdir(out):  # the build step's reports are not the grading's
                    self.remove(os.path.join(out, name))
                if timed_out or budget < 1:
                    self.write_text(folder, "report.txt", f"grade-class: grading stopped after {o.student_timeout} s (--student-timeout) while building: build.txt has what the build printed\n")
                    line.update(verdict="timed out", score=0,
                                problems=[f"grading stopped after {o.student_timeout} s (while building)"] + problems)
                    return
                gpu = self.gpus.get()
            try:
                argv = grade + ["--summary", "/out/summary.json", "--json", "/out/results.json",
                                "--tap", "/out/tests.tap", "--xml", "/out/tests.xml",
                                "--runs", str(o.runs)]
                if no_timing or o.no_timing:
                    argv.append("--no-timing")
                status, timed_out, tail = self.run_sandbox(
                    kit, submission, out, max(1, int(budget)), gpu, uid, argv,
                    os.path.join(folder, "report.txt"), problems, "report.txt")
            finally:
                if gpu is not None:
                    self.gpus.put(gpu)
            line["exit"] = status
            if timed_out:
                with open(os.path.join(folder, "report.txt"), "ab") as file:
                    file.write(f"grade-class: grading stopped after {o.student_timeout} s (--student-timeout)\n".encode())
                line.update(verdict="timed out", score=0,
                            problems=[f"grading stopped after {o.student_timeout} s"] + problems)
                return
            for name, cap in REPORT_FILES.items():
                problem = self.bring_back(os.path.join(out, name), os.path.join(folder, name), cap)
                if problem:
                    problems.append(problem)
            summary, problem = self.read_summary(os.path.join(folder, "summary.json"))
            if summary is None:
                why = f"the grading ended (exit {status}) without a summary.json"
                if problem and "No such file" not in problem:
                    why += f" ({problem})"
                if tail:
                    why += f"; its last line: {tail}"
                line.update(verdict="not graded", problems=[why] + problems)
                return
            self.take_summary(line, summary)
            if summary.get("exit_code") != status:
                problems.append(f"./grade exited {status}, its summary says {summary.get('exit_code')}")
            line["problems"] += problems
        finally:
            self.remove(work)

    def run_sandbox(self, kit, submission, out, seconds, gpu, uid, argv, report, problems, what):
        """Runs ./grade in a sandbox, its output into report (cut at REPORT_CAP). Returns (exit
        status, whether the time limit stopped it, its last line of output)."""
        command = self.sandbox.command(kit, submission, out, self.prepared.points, seconds, argv, uid)
        env = sandbox_environment("" if gpu is None and self.gpus is not None else gpu,
                                  self.prepared.cuda_arch)
        started = time.monotonic()
        with self.lock:
            if self.stopping:
                raise Interrupted()
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, env=env, close_fds=True)
            self.processes.add(process)
        kept = total = 0
        last = b""
        try:
            with open(report, "wb") as file:
                while True:
                    chunk = os.read(process.stdout.fileno(), 1 << 16)
                    if not chunk:
                        break
                    total += len(chunk)
                    last = (last + chunk)[-4096:]
                    if kept < REPORT_CAP:
                        part = chunk[:REPORT_CAP - kept]
                        file.write(part)
                        kept += len(part)
                        if kept == REPORT_CAP:
                            file.write((b"" if part.endswith(b"\n") else b"\n") + REPORT_MARK)
                status = process.wait()
        finally:
            process.stdout.close()
            with self.lock:
                self.processes.discard(process)
        elapsed = time.monotonic() - started
        if self.stopping:  # stopped by grade-class itself: no verdict, no line
            raise Interrupted()
        if total > REPORT_CAP:
            problems.append(f"{what} cut at 1 MiB (the grading printed {total / (1 << 20):.1f} MiB)")
        timed_out = status in (124, 137) and elapsed >= seconds - 1
        lines = [l for l in last.decode("utf-8", "replace").splitlines() if l.strip()]
        tail = escape_name(lines[-1][:200].encode("utf-8", "surrogateescape"), one_line=True) if lines else ""
        return status, timed_out, tail

    @staticmethod
    def bring_back(source, target, cap):
        """Copies a report the grading wrote, if it is a regular file (never through a link)."""
        try:
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as error:
            return f"{os.path.basename(source)}: {error.strerror} (not kept)"
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return f"{os.path.basename(source)} is not a regular file (not kept)"
            data = b""
            while len(data) <= cap:
                chunk = os.read(fd, cap + 1 - len(data))
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(fd)
        if len(data) > cap:
            return f"{os.path.basename(source)} is larger than {cap >> 20} MiB (not kept)"
        with open(target, "wb") as file:
            file.write(data)
        return None

    def read_summary(self, path):
        """The summary.json of a grading, checked against this run. (summary, None) or (None,
        why)."""
        try:
            with open(path, "rb") as file:
                summary = json.loads(file.read(REPORT_FILES["summary.json"] + 1).decode("utf-8"))
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

    @staticmethod
    def take_summary(line, summary):
        line.update(verdict=summary["verdict"], tests_passed=summary["tests_passed"],
                    tests_failed=summary["tests_failed"], tests_not_run=summary["tests_not_run"],
                    time_ratio=summary["time_ratio"], score=summary["score"],
                    max_score=summary["max_score"],
                    problems=[p[:1000] for p in summary["problems"][:100]])

    @staticmethod
    def remove(path):
        def retry(function, name, _):
            try:
                os.chmod(os.path.dirname(name), 0o700)
                if os.path.isdir(name) and not os.path.islink(name):
                    os.chmod(name, 0o700)
                function(name)
            except OSError:
                pass
        if os.path.isdir(path) and not os.path.islink(path):
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=retry)
            else:
                shutil.rmtree(path, onerror=retry)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
