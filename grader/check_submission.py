#!/usr/bin/env python3
"""The submission check: a lab's source and object may reach nothing but the lab's own code, CUDA,
the terminal and memory; not the grader's record, the reference solutions, nor the machine.
The Makefile runs it on every lab it builds (student, solution, variant, ./grade --file):

  check_submission.py includes SOURCE -- NVCC_COMMAND...
      Before compiling: every file any pass reads (nvcc -M, every pass, host and device, kept:
      its line markers name each file, and each name a #line gave) must be SOURCE itself, a CUDA
      or system header, or a .h file of labs/<its lab>/ or common/: an existing regular file, of
      a portable name (letters, digits, . _ + - /: nothing make, a shell or a terminal reads).
      Nothing is compiled, and no included file's text is ever printed.
  check_submission.py compile SOURCE -- NVCC_COMMAND...
      The compile, under the limits below, with this check as gcc's wrapper: gcc runs it as
      `WRAPPER PROGRAM ARGS...` for each of its programs, and it reads the host assembly before
      the assembler does, and stops inline assembly in host code (device code may have its asm),
      and the assembler directives that read files (.include, .incbin) or could spell them
      (.macro, .irp, ...), which can come in without asm too, through a section's name or an asm
      label. Any other program, and the assembler once the assembly is clean, runs as gcc asked:
      same arguments, standard streams and exit status. The compiler's messages follow, inert.
  check_submission.py object OBJECT SOURCE
      After compiling: OBJECT's undefined symbols must be in grader/allowed-symbols.txt, its
      sections in grader/allowed-sections.txt, its .init_array only nvcc's registration, its
      host code free of system calls, and what it defines must not stand in for the C library's
      or the grader's functions.

Every stage's programs run in a process group of their own, limited in memory (a share of the
host's), file size and time (see "limits"), and end with the check (a SIGTERM or SIGINT to it
kills the group). A problem prints one line, "SOURCE: ...", made inert (a name's escape codes
and control characters shown as \\xHH), and exits 1, a limit hit included: it is the
submission's; a clean file exits 0 silently; exit 4 is a grading machine without the tools this
needs (binutils), exit 2 a wrong command line.
Standard library only: it ships in the student tarball and runs on every student's build.
"""
import os
import sys

# nvcc 12 and 13 name the function that registers an object's kernels (from .init_array) so.
REGISTRATION = "_ZL24__sti____cudaRegisterAllv"
HERE = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.dirname(HERE)


def text(data):
    """Bytes as text, every byte kept: what tools print goes back out unchanged."""
    return data.decode("utf-8", "surrogateescape")


def inert(said, keep_lines=False):
    """SAID as a terminal or a report may show it: what a student wrote (a file name, a symbol, a
    compiler quoting the source) can neither move the cursor, clear the screen, reorder a line nor
    break the UTF-8 of a log. Control characters (but tab and newline when keep_lines, for a
    compiler's messages) and bytes that are not UTF-8 become \\xHH; C1 controls, line separators
    and bidirectional controls \\uHHHH (as grader/results/reports.c writes them)."""
    out = []
    for character in said:
        code = ord(character)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (text() keeps it so)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif (code < 0x20 or code == 0x7F) and not (keep_lines and character in "\t\n"):
            out.append(f"\\x{code:02x}")
        elif 0x80 <= code <= 0x9F or code in (0x061C, 0x200E, 0x200F) or 0x2028 <= code <= 0x202E \
                or 0x2066 <= code <= 0x2069:
            out.append(f"\\u{code:04x}")
        else:
            out.append(character)
    return "".join(out)


def say(line):
    """One line to the standard error, made inert: a message names what a student wrote."""
    sys.stderr.flush()
    sys.stderr.buffer.write((inert(line) + "\n").encode("utf-8", "surrogateescape"))
    sys.stderr.buffer.flush()


def usage():
    say(f"usage: {sys.argv[0]} includes SOURCE -- NVCC_COMMAND... | compile SOURCE -- NVCC_COMMAND... | "
        "object OBJECT SOURCE")
    sys.exit(2)


def broken(why):
    """The grading machine cannot check a submission: not the student's fault."""
    say(f"check-submission: the grading machine is broken: {why}")
    sys.exit(4)


def tool(name):
    """The path of a binutils tool ($NM, $READELF, $OBJDUMP override it), else exit 4."""
    import shutil
    path = os.environ.get(name.upper()) or name
    found = shutil.which(path)
    if found:
        return found
    if os.access("/usr/bin/" + path, os.X_OK):
        return "/usr/bin/" + path
    broken(f"{path} is missing (binutils), and checking a submission needs it")


def as_written(symbol):
    """The call as the source wrote it, where glibc's headers renamed it (_FORTIFY_SOURCE, on by
    default in Ubuntu's gcc, turns open into __open_2 and longjmp into __longjmp_chk; setjmp is a
    macro for _setjmp)."""
    if symbol in ("_setjmp", "__sigsetjmp"):
        return "setjmp"
    if symbol.startswith("__") and symbol.endswith("_chk") and len(symbol) >= 6:
        return symbol[2:-4]
    if symbol.startswith("__") and symbol.endswith("_2") and len(symbol) >= 5:
        return symbol[2:-2]
    return symbol


def matches(name, pattern):
    """Whether NAME matches the shell glob PATTERN (*, ?, [...], [!...]; * matches a / too)."""
    import fnmatch
    return fnmatch.fnmatchcase(name, pattern)


def literal(path):
    """PATH as a glob that matches only itself."""
    import glob
    return glob.escape(path)


def words(line):
    """LINE split as the shell's read and awk split it: at runs of spaces and tabs."""
    return [word for word in line.replace("\t", " ").split(" ") if word]


def lines_of(data):
    """A tool's output as awk and read see it: one record a line, no record after the last newline."""
    newline = b"\n" if isinstance(data, bytes) else "\n"
    parts = data.split(newline)
    if parts and not parts[-1]:
        parts.pop()
    return parts


def unique(items):
    return list(dict.fromkeys(items))


class Scratch:
    """A temporary folder, removed however the check ends."""

    def __enter__(self):
        import tempfile
        try:
            self.path = tempfile.mkdtemp(prefix="check-submission.", dir=os.environ.get("TMPDIR") or "/tmp")
        except OSError:
            broken("no temporary folder")
        return self.path

    def __exit__(self, *_):
        import shutil
        shutil.rmtree(self.path, ignore_errors=True)


# ---- limits ---------------------------------------------------------------------------------
# What a submission's preprocessor and compiler may take: a macro or a template that explodes
# ends as the submission's fault, in one line naming the limit, never in the host's out-of-memory
# killer (which picks any process) or a full disk. A lab needs far less: lab 9's reference
# compiles for five architectures under an address-space limit of 512 MiB (188 MB resident) in 7 s
# on two shared cores, and its largest file, a pass's preprocessed source, is 1.3 MB.
LAB_COMPILE_BYTES = 512 << 20
MEMORY_SHARE = 4          # a compile's process may take a quarter of the host's memory at most,
MEMORY_HEADROOM = 16      # and 16 times what a lab's compile needs (8 GiB) on a larger host
SECONDS = {"includes": 300, "compile": 600, "object": 300}  # wall clock, each stage
FILE_BYTES = 64 << 20     # any one file a stage writes (preprocessed source, object, messages)
# Instructors (and the check's own tests) may set the limits: CHECK_SUBMISSION_MEMORY_MIB,
# CHECK_SUBMISSION_SECONDS (each stage).


def host_memory():
    """The memory this machine gives its processes: its physical memory, or less where a cgroup
    (a container, a Slurm job's allocation) limits this process."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limits = []
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as file:
            for line in file:
                hierarchy, controllers, path = (line.rstrip("\n").split(":", 2) + ["", ""])[:3]
                if hierarchy == "0" and not controllers:  # cgroup v2: this cgroup and its parents
                    while True:
                        limits.append(f"/sys/fs/cgroup{path.rstrip('/')}/memory.max")
                        if path in ("", "/"):
                            break
                        path = os.path.dirname(path)
                elif "memory" in controllers.split(","):  # cgroup v1
                    limits.append(f"/sys/fs/cgroup/memory{path.rstrip('/')}/memory.limit_in_bytes")
    except OSError:
        pass
    for limit in limits:
        try:
            with open(limit, encoding="utf-8") as file:
                value = file.read().strip()
        except OSError:
            continue
        if value.isdigit():
            total = min(total, int(value))
    return total


def setting(name, default, unit):
    """A limit: DEFAULT, or the environment's NAME (a whole number of UNIT, 1 or more)."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if not value.isdigit() or int(value) < 1:
        say(f"check-submission: {name} must be a whole number of {unit}, 1 or more, not '{value}'")
        sys.exit(2)
    return int(value)


def within_hard_limit(kind, value):
    """VALUE, or the hard limit of KIND this process already has (a sandbox's), when lower."""
    import resource
    hard = resource.getrlimit(kind)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def memory_limit():
    """The address space a compile's process may take, in bytes."""
    import resource
    sized = min(host_memory() // MEMORY_SHARE, MEMORY_HEADROOM * LAB_COMPILE_BYTES)
    return within_hard_limit(resource.RLIMIT_AS, setting("CHECK_SUBMISSION_MEMORY_MIB", sized >> 20, "MiB") << 20)


def stage_seconds(stage):
    return setting("CHECK_SUBMISSION_SECONDS", SECONDS[stage], "seconds")


class Stopped(Exception):
    """A signal that ends the check (SIGTERM, SIGHUP): its children end with it."""

    def __init__(self, number):
        super().__init__(number)
        self.number = number


def run_limited(command, stage, out, err=None, env=None):
    """Runs COMMAND, a stage of checking or compiling a submission, under the submission's limits
    (memory, file size, time), in a process group of its own that ends with the check however
    the check ends (a SIGTERM, SIGHUP or SIGINT to it kills the whole group; a SIGKILL, the
    command itself). Its output goes to OUT, its errors to ERR (files; OUT when ERR is None).
    Returns (exit status, the limit it hit: None, "time", "memory" or "file size")."""
    import ctypes
    import re
    import resource
    import signal
    import subprocess
    import time
    memory, seconds = memory_limit(), stage_seconds(stage)
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        prctl = None

    def limit_the_child():  # in the child, before it runs COMMAND
        if prctl:
            prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: dies with the check, even a SIGKILLed one
        for kind, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, FILE_BYTES),
                            (resource.RLIMIT_CPU, seconds + 5), (resource.RLIMIT_CORE, 0)):  # (CPU: once orphaned)
            resource.setrlimit(kind, (within_hard_limit(kind, value),) * 2)
        for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores these; the compiler must not inherit that
            signal.signal(getattr(signal, name), signal.SIG_DFL)

    def stop(number, _):
        raise Stopped(number)

    def exited(within):
        """Whether the command's first process has ended, waiting WITHIN seconds at most; it is
        left unreaped (a zombie), so that its process group's id stays its own until killed."""
        deadline = time.monotonic() + within
        while os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGHUP)}
    process, timed_out = None, False
    try:
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err or out, env=env,
                                       start_new_session=True, preexec_fn=limit_the_child)
        except (OSError, subprocess.SubprocessError) as error:
            broken(f"cannot run {command[0]}: {error}")
        timed_out = not exited(seconds)
    finally:  # the time limit, ^C, a signal, or its end: the whole group stops, stragglers too
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        if process:
            try:
                if not exited(0):
                    os.killpg(process.pid, signal.SIGTERM)  # (nvcc removes its temporary files)
                    exited(2)
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass
            status = process.wait()
        for number, handler in previous.items():
            signal.signal(number, handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    if timed_out or status == -signal.SIGXCPU:
        return 124, "time"
    if status == 0:
        return 0, None
    messages = err or out
    messages.seek(0)
    said = text(messages.read(FILE_BYTES))
    if status == -signal.SIGXFSZ or "File size limit exceeded" in said:
        return status, "file size"
    # A process past RLIMIT_AS gets no signal: its allocations fail, and it says so (cc1plus: "out
    # of memory allocating", "virtual memory exhausted"; cicc and cudafe++: std::bad_alloc), or it
    # dies having used most of the limit.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss << 10
    if re.search(r"out of memory|memory exhausted|Cannot allocate memory|bad_alloc", said) or \
            (peak > before << 10 and peak >= memory * 3 // 4):
        return status, "memory"
    return status, None


def limit_message(source, what, stage, hit):
    """The one line that says which limit a stage hit: the submission's fault (exit 1)."""
    if hit == "time":
        why = "does it include a device, or a macro that never ends?" if stage == "includes" else \
            "a template or a constant expression that never ends?"
        return f"{source}: {what} took more than {stage_seconds(stage)} s, the most it may take here ({why})"
    if hit == "memory":
        return f"{source}: {what} needed more than {memory_limit() >> 20} MiB of memory, the most it may take " \
               "on this machine (a macro or template that explodes?)"
    return f"{source}: {what} wrote a file of more than {FILE_BYTES >> 20} MiB, the most it may write (a macro " \
           "that explodes?)"


# ---- includes -------------------------------------------------------------------------------
# A name every tool can carry as it is: a portable file name (POSIX's characters, and '+' for
# the system's c++/ folder) and '/'. Anything else is something make, a shell or a terminal reads:
# a space or any other whitespace (a vertical tab splits make's words), '$' (make's and the
# shell's expansion: $(shell ...)), '#' (a comment), ':' (a rule), quotes, control characters.
PORTABLE_NAME = r"[A-Za-z0-9._+/-]+"
# What the preprocessor names that is no file.
PSEUDO_NAMES = ("<built-in>", "<command-line>")


def marker_names(folder):
    """The file names of the line markers (# LINE "NAME" FLAGS) of every preprocessed source in
    FOLDER: every file each pass read, and every name a #line or a GNU line marker gave, as gcc
    quotes them (a backslash, a quote and a newline escaped)."""
    import re
    names = []
    marker = re.compile(rb'^# [0-9]+ "((?:[^"\\\n]|\\.)*)"', re.M)
    for entry in sorted(os.listdir(folder)):
        if not entry.endswith(".ii"):
            continue
        with open(os.path.join(folder, entry), "rb") as file:
            data = file.read()
        for found in unique(marker.findall(data)):
            names.append(text(re.sub(rb"\\(.)", lambda escape: b"\n" if escape.group(1) == b"n" else escape.group(1),
                                      found)))
    return names


def includes(source, arguments):
    import glob
    import re
    import shutil
    import stat
    if not (len(arguments) >= 2 and arguments[0] == "--"):
        usage()
    # The compile command, less what would compile or write files (the caller's -c, -o, -MMD).
    command, skip = [], False
    for argument in arguments[1:]:
        if skip:
            skip = False
        elif argument in ("-c", "-MD", "-MMD", "-MP", "-M", "-MM", "--compile"):
            pass
        elif argument in ("-o", "-MF", "-MT", "-MQ", "--output-file", "--dependency-output"):
            skip = True
        else:
            command.append(argument)
    if not command:
        usage()
    nvcc = shutil.which(command[0])
    if not nvcc:
        broken(f"no compiler {command[0]}")
    cuda = os.path.realpath(os.path.join(os.path.dirname(nvcc), ".."))
    source_real = os.path.realpath(source)
    # Its lab: labs/lab5-*/ for lab5.cu, wherever the file is (./grade --file copies it).
    lab_dir = ""
    base = os.path.basename(source)
    if matches(base, "lab[0-9]*.cu"):
        labs = sorted(glob.glob(os.path.join(glob.escape(KIT), "labs", glob.escape(base[:-3]) + "-*/")))
        if labs and os.path.isdir(labs[0]):
            lab_dir = os.path.realpath(labs[0])
    allowed = [literal(source_real), "/usr/include/*", "/usr/lib/gcc/*", literal(cuda) + "/include/*",
               literal(cuda) + "/targets/*/include/*", "/usr/local/cuda*/include/*",
               "/usr/local/cuda*/targets/*/include/*"]
    with Scratch() as tmp:
        # nvcc -M preprocesses every pass (host and each architecture) and, with --keep, leaves
        # each pass's output: its line markers name every file the pass read, and every name a
        # #line gave, exactly (nvcc's own -M list does not: it writes $ and control characters
        # as they are and cuts a name at a quote). gcc's -H names the headers opened before an
        # error, for when a pass stops. Neither output is ever shown: a warning about a file
        # quotes its lines.
        keep = os.path.join(tmp, "passes")
        os.mkdir(keep)
        with open(os.path.join(tmp, "err"), "w+b") as err:
            status, hit = run_limited(command + ["-M", "-MF", os.path.join(tmp, "deps"), "--keep", "--keep-dir",
                                                 keep, "-Xcompiler", "-H"], "includes", err)
            err.seek(0)
            errors = lines_of(text(err.read(FILE_BYTES)))
        listed = marker_names(keep)
    for line in errors:  # -H: ". /usr/include/stdio.h"
        dots = len(line) - len(line.lstrip("."))
        if dots and line[dots:dots + 1] == " ":
            listed.append(line[dots + 1:])
    bad = False
    for name in unique(listed):
        # gcc -g names the folder it ran in, "FOLDER//" (for the debug information), no file
        if name in PSEUDO_NAMES or (name.endswith("//") and os.path.realpath(name[:-2]) == os.path.realpath(".")):
            continue
        if not re.fullmatch(PORTABLE_NAME, name):
            say(f"{source}: names a file '{name}' (an #include or a #line), which a lab may not: a name may hold "
                "only letters, digits and . _ + - / (make and a shell read the others)")
            bad = True
            continue
        real = os.path.realpath(name)
        try:
            regular = stat.S_ISREG(os.stat(real).st_mode)
        except OSError:
            regular = False
        directory = real.rpartition("/")[0]
        if not regular:
            say(f"{source}: names {name} (an #include or a #line), which is no file here: a lab may not name "
                "anything but the headers it may include")
        elif any(matches(real, pattern) for pattern in allowed) or \
                (matches(real, literal(KIT) + "/common/*.h") and directory == KIT + "/common") or \
                (lab_dir and directory == lab_dir and real.endswith(".h")):
            continue
        else:
            say(f"{source}: includes {real}, which a lab may not include (only its own lab header, "
                "common/*.h, CUDA's and the system's headers)")
        bad = True
    if bad:
        sys.exit(1)
    if hit:
        say(limit_message(source, "listing its includes", "includes", hit))
        sys.exit(1)
    if status != 0:
        # The preprocessor stopped (a missing header, #error): its errors, without the source
        # lines it quotes (a #line could make it quote any file), and without compiling.
        for line in unique(line for line in errors if re.search(r": (fatal error|error): |^nvcc (fatal|error)", line)):
            say(line)
        say(f"{source}: does not preprocess (the errors above)")
        sys.exit(1)
    sys.exit(0)


# ---- the compile ----------------------------------------------------------------------------
def compile_submission(source, arguments):
    """Compiles SOURCE with the compile command after "--", under the submission's limits, with
    this check as gcc's -wrapper (below); the compiler's messages come after it ends, made inert.
    Exits with the compiler's status, or 1 with one line when the compile hit a limit."""
    if not (len(arguments) >= 2 and arguments[0] == "--"):
        usage()
    # gcc's -wrapper takes a comma-separated list: the path to this file must hold no comma.
    me = os.path.relpath(os.path.abspath(__file__))
    if "," in me:
        me = os.path.abspath(__file__)
    if "," in me:
        broken(f"the kit's path {me} holds a comma, which gcc's -wrapper cannot take")
    command = arguments[1:] + ["-Xcompiler", "-wrapper," + me]
    with Scratch() as tmp:
        with open(os.path.join(tmp, "output"), "w+b") as out:
            status, hit = run_limited(command, "compile", out, env=dict(os.environ, CHECK_SUBMISSION_SOURCE=source))
            if hit:
                say(limit_message(source, "compiling it", "compile", hit))
                sys.exit(1)
            out.seek(0)
            said = text(out.read(FILE_BYTES))
    if said:
        sys.stderr.flush()
        sys.stderr.buffer.write(inert(said, keep_lines=True).encode("utf-8", "surrogateescape"))
        sys.stderr.buffer.flush()
    sys.exit(0 if status == 0 else status if 0 < status < 128 else 1)


# ---- the assembler, as gcc's -wrapper ---------------------------------------------------------
def execute(program):
    """Become PROGRAM (gcc's own command): same arguments, streams and exit status."""
    import signal
    for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores these; the program must not inherit that
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execvp(program[0], program)
    except OSError as error:
        say(f"{sys.argv[0]}: {program[0]}: {error.strerror}")
        sys.exit(126 if os.path.exists(program[0]) and "/" in program[0] else 127)


DIRECTIVES = (b"include", b"incbin", b"macro", b"irp", b"irpc", b"rept", b"altmacro", b"purgem")
NAME_BEFORE = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.$@")
NAME_AFTER = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.$")


def unquoted(line):
    """LINE less its strings and character constants ('c)."""
    if b'"' not in line and b"'" not in line:
        return line
    out, i, quoted = bytearray(), 0, False
    while i < len(line):
        c = line[i]
        if quoted:
            if c == ord("\\"):
                i += 1
            elif c == ord('"'):
                quoted = False
        elif c == ord('"'):
            quoted = True
        elif c == ord("'"):
            i += 1
            if line[i:i + 1] == b"\\":
                i += 1
        else:
            out.append(c)
        i += 1
    return bytes(out)


def is_quad_line(line):
    """Whether a line is one of the fatbinary's .quad lines: words of hexadecimal alone."""
    if not line.startswith(b".quad 0x"):
        return False
    words = [word.strip(b" ") for word in line[len(b".quad "):].split(b",")]
    return all(len(word) > 2 and word[:2] == b"0x" and
               all(c in b"0123456789abcdef" for c in word[2:]) for word in words)


# nvcc's fatbinary, as its first #APP region begins: the section, then these lines in this order
# (the .quad lines one or more), then .text; what follows .text in the region is gcc's.
FATBINARY_HEAD = (b'.section .nv_fatbin, "a"', b".align 8", b"fatbinData:")


def scan_assembly(assembly):
    """Whether the host assembly has inline assembly, and the directives it must not have."""
    regions, inline, found = 0, False, []
    step = None  # in the first region: how much of nvcc's fatbinary has been read; None: done
    for line in lines_of(assembly):
        if line.startswith(b"#APP"):
            regions += 1
            if regions > 1:
                inline = True  # any asm but nvcc's, top-level or in a function, is the lab's
            step = 0 if regions == 1 else None
            continue
        if line.startswith(b"#NO_APP"):
            if step is not None:
                inline = True  # the region ended before nvcc's fatbinary did
            step = None
            continue
        stripped = line.strip(b" \t")
        if step is not None and stripped:
            # The lab's top-level asm comes before nvcc's, in the same region: whatever it
            # begins with, the region is nvcc's only if it is nvcc's fatbinary line by line (a
            # second fatbinData label would not assemble).
            if step < len(FATBINARY_HEAD):
                if stripped != FATBINARY_HEAD[step]:
                    inline = True
                    step = None
                else:
                    step += 1
            elif is_quad_line(stripped):
                step += 1
            elif stripped == b".text" and step > len(FATBINARY_HEAD):
                step = None
            else:
                inline = True
                step = None
        lower = unquoted(line).lower()
        for word in DIRECTIVES:
            if word in found:
                continue
            at = lower.find(b"." + word)
            while at >= 0:
                before = lower[at - 1] if at > 0 else None
                after = lower[at + 1 + len(word)] if at + 1 + len(word) < len(lower) else None
                if before not in NAME_BEFORE and after not in NAME_AFTER:
                    found.append(word)
                    break
                at = lower.find(b"." + word, at + 1)
    return inline, [text(b"." + word) for word in found]


def wrapper(program):
    # Inline assembly in host code: nvcc's own is the fatbinary, the last top-level asm of the
    # file, so that the first #APP region must begin with it and be the only one; any other asm
    # (top-level: before it; in a function: a region of its own) is the lab's. (gcc ends a
    # top-level region only at the next function, so what follows the fatbinary is gcc's.)
    # And the directives that read files, or could spell them (macros), anywhere outside a quoted
    # string or a character constant ('c): a section's name or an asm label can carry lines of
    # assembly too, without any asm. gcc's own output never has them.
    name = os.path.basename(program[0])
    if name != "as" and not name.endswith("-as"):
        execute(program)
    source = os.environ["CHECK_SUBMISSION_SOURCE"]
    if os.path.isfile(program[-1]):
        try:
            with open(program[-1], "rb") as file:
                assembly = file.read()
        except OSError:  # the assembler will say why
            assembly = b""
        stdin_copy = None
    else:  # the assembly comes on standard input (gcc -pipe): the assembler reads a copy
        assembly = sys.stdin.buffer.read()
        stdin_copy = Scratch()
    inline, directives = scan_assembly(assembly)
    if inline:
        say(f"{source}: has inline assembly in its host code, which a lab may not have (asm is for "
            "__device__ code)")
    if directives:
        say(f"{source}: its host code has the assembler directive(s) {' '.join(directives)}, which a lab "
            "may not have")
    if inline or directives:
        sys.exit(1)
    if stdin_copy is None:
        execute(program)
    import subprocess
    with stdin_copy as tmp:
        path = os.path.join(tmp, "input.s")
        with open(path, "wb") as file:
            file.write(assembly)
        try:
            status = subprocess.call(program + [path], close_fds=False)
        except OSError as error:
            say(f"{sys.argv[0]}: {program[0]}: {error.strerror}")
            status = 127
    sys.exit(status if status >= 0 else 128 - status)


# ---- object ---------------------------------------------------------------------------------
def read_lists():
    """The lists: one shell glob a line; a symbol's may say where it may be used (registration,
    device-stub), and "!" refuses the symbols it matches even where another glob allows them."""
    allow, deny, sections = [], [], []
    for path, table in (("allowed-symbols.txt", "symbols"), ("allowed-sections.txt", "sections")):
        with open(os.path.join(HERE, path), "rb") as file:
            for line in lines_of(text(file.read())):
                fields = line.split("#", 1)[0].split()
                if not fields:
                    continue
                if table == "sections":
                    sections.append((fields[0], fields[1] if len(fields) > 1 else ""))
                elif fields[0].startswith("!"):
                    deny.append(fields[0][1:])
                else:
                    allow.append((fields[0], fields[1] if len(fields) > 1 else "anywhere"))
    return allow, deny, sections


def section_rows(listing):
    """readelf -S's sections: (index, name, type, flags) (readelf pads the names)."""
    import re
    rows = []
    for line in lines_of(listing):
        prefix = re.match(r" *\[ *([0-9]+)\] ", line)
        if not prefix:
            continue
        index, line = int(prefix.group(1)), line[prefix.end():]
        found = re.search(r" +[A-Z][A-Z0-9_+]* +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ ", line)
        if not found:
            rows.append((index, line, "?", ""))
            continue
        fields = words(line[found.start():])
        rows.append((index, line[:found.start()], fields[0], fields[5] if len(fields) == 9 else ""))
    return rows


def section_table(listing):
    """readelf -S's sections: (name, type, flags)."""
    return [(name, kind, flags) for _, name, kind, flags in section_rows(listing)]


# nvcc's device-code sections, and the one symbol nvcc puts in each (the fatbinary's label, its
# descriptor: a source's own static of that name would clash with nvcc's).
NVCC_SECTIONS = {".nv_fatbin": "fatbinData", ".nvFatBinSegment": "_ZL15__fatDeviceText"}


def host_functions(disassembly):
    """The host code of objdump -d -r -w, function by function: [(FUNCTION, [instruction])], each
    instruction a dict: text (mnemonic and operands, objdump's comment dropped, spaces single),
    mnemonic, operands (up to a tab or a comment), relocations (the symbols its relocations name,
    on its line or on the lines after it, offsets dropped) and shown (the <symbol+offset> objdump
    writes after a jump's address, or ''). Code under a section's header and no function's is
    under FUNCTION ''. The one reading of the disassembly that code_references and
    control_transfers share."""
    import re
    functions = [("", [])]

    def relocated(line):
        return [re.sub(r"[-+]0x[0-9a-f]+$", "", found.group().split("\t", 1)[1])
                for found in re.finditer(r"R_X86_64_[A-Z0-9_]+\t[^\t ]+", line)]

    for line in lines_of(disassembly):
        if re.fullmatch(r"[0-9a-f]+ <.*>:", line):
            fields = words(line)
            name = re.sub(r">:$", "", re.sub(r"^<", "", fields[1] if len(fields) > 1 else ""))
            functions.append((name, []))
        elif line.startswith("Disassembly of section "):
            functions.append(("", []))
        elif re.match(r"\t+[0-9a-f]+: R_X86_64_", line):
            if functions[-1][1]:
                functions[-1][1][-1]["relocations"] += relocated(line)
        else:
            prefix = re.match(r" *[0-9a-f]+:\t", line)
            if not prefix:
                continue
            rest = line[prefix.end():]
            text = re.sub(r" +", " ", re.sub(r" *#.*", "", rest.split("\t", 1)[0], count=1)).rstrip(" ")
            parts = re.match(r"(\S+)\s*([^\t#]*)", rest)
            shown = re.search(r"<([^>]*)>", parts.group(2)) if parts else None
            functions[-1][1].append({"text": text, "mnemonic": parts.group(1) if parts else "",
                                     "operands": parts.group(2).strip() if parts else "",
                                     "relocations": relocated(rest), "shown": shown.group(1) if shown else ""})
    return functions


def code_references(disassembly):
    """What the host code refers to, function by function: "ref SYMBOL FUNCTION SHAPE", SHAPE
    "stub" for nvcc's host copy of a __device__ function, never called: [endbr64] sub $N,%rsp;
    movl $0x1,X(%rsp); mov X(%rsp),%edi; call exit; padding. And "syscall FUNCTION INSN"."""
    import re
    out = []
    for fn, instructions in host_functions(disassembly):
        insn = [i["text"] for i in instructions]
        target = [" ".join(i["relocations"]) for i in instructions]
        out += [f"syscall {fn} {line}" for line in insn
                if re.match(r"(syscall|sysenter|int \$0x80)($| )", line)]
        if fn == "":
            continue

        def at(items, k):
            return items[k - 1] if 1 <= k <= len(items) else ""

        k, shape = 1, "code"
        if at(insn, k) == "endbr64":
            k += 1
        if (re.fullmatch(r"sub \$0x[0-9a-f]+,%rsp", at(insn, k))
                and re.fullmatch(r"movl \$0x1,(0x[0-9a-f]+)?\(%rsp\)", at(insn, k + 1))):
            x = at(insn, k + 1)[len("movl $0x1,"):]
            if at(insn, k + 2) == "mov " + x + ",%edi" and at(insn, k + 3).startswith("call ") \
                    and at(target, k + 3) == "exit":
                shape = "stub"
                if any(not re.search(r"nop|^xchg %ax,%ax$|^int3$", insn[i - 1]) for i in range(k + 4, len(insn) + 1)):
                    shape = "code"
                if any(i != k + 3 and target[i - 1] != "" for i in range(1, len(insn) + 1)):
                    shape = "code"
        for refs in target:
            for name in refs.split():
                out.append(f"ref {name} {fn} {shape}")
    return out


# What nvcc's registration, which runs before main in every process that holds the object, may
# call: the runtime's registration, and atexit with the function that unregisters the object
# (which calls __cudaUnregisterFatBinary at exit). Its own helpers (local functions named
# __nv_*, ____nv_* or __cuda*) are followed and held to the same rule.
REGISTRATION_CALLEES = ("__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaRegisterFunction",
                        "__cudaRegisterVar", "__cudaRegisterManagedVar", "__cudaInitModule",
                        "__cudaUnregisterFatBinary", "atexit")
NVCC_HELPER = r"(_ZL[0-9]+)?__+(nv_|cuda)[A-Za-z0-9_]*"


def control_transfers(disassembly):
    """{function: [(instruction, target)]} of every call and jump of the host code: target the
    symbol its relocation names, else the <symbol+offset> objdump shows, else ''; an indirect
    one's instruction has its '*'."""
    import re
    functions = {}
    for fn, instructions in host_functions(disassembly):
        if fn == "":
            continue
        transfers = functions.setdefault(fn, [])
        for i in instructions:
            if re.fullmatch(r"(call|jmp|j[a-z]+)q?", i["mnemonic"]):
                transfers.append((i["mnemonic"] + " " + i["operands"],
                                  i["relocations"][0] if i["relocations"] else i["shown"]))
    return functions


def defined_names(symbols):
    """Every name readelf -s -W gives a definition in the object (any binding, any type)."""
    import re
    names = set()
    for line in lines_of(symbols):
        f = words(line) + [""] * 8
        if re.fullmatch(r"[0-9]+:", f[0]) and f[6] != "UND" and f[7]:
            names.add(f[7])
    return names


def before_main_problems(disassembly, defined, source):
    """What nvcc's registration function, and the helpers of nvcc's it calls, call beyond
    REGISTRATION_CALLEES: a source can reroute one of its calls (#pragma redefine_extname, an asm
    label on a declaration, a macro over the runtime's names) to code of its own, which would
    then run before main, ahead of everything the grader's worker sets up. A callee of that list
    must be the runtime's, undefined in the object: a definition of the same name (a static one
    takes the runtime's name for the object alone) would be the source's code."""
    import re
    functions = control_transfers(disassembly)
    problems, seen, queue = [], set(), [REGISTRATION]
    while queue:
        function = queue.pop()
        if function in seen or function not in functions:
            continue
        seen.add(function)
        for instruction, target in functions[function]:
            base = re.sub(r"[-+]0x[0-9a-f]+$", "", target)
            if "*" in instruction:
                problems.append(f"{source}: makes an indirect call or jump ({instruction}) in the code nvcc runs "
                                "before main to register its kernels, which a lab may not do")
            elif base == function or (base in REGISTRATION_CALLEES and base not in defined):
                continue
            elif re.fullmatch(NVCC_HELPER, base) and base in functions and base == target:
                queue.append(base)
            else:
                problems.append(f"{source}: has the code nvcc runs before main to register its kernels call "
                                f"{as_written(base) or 'an address'} (in place of the runtime's registration, or of "
                                "atexit), which a lab may not do")
    return problems


def hex_value(digits):
    value = 0
    for c in digits.lower():
        value = value * 16 + "0123456789abcdef".find(c)
    return value


def init_array_entries(symbols, relocations):
    """.init_array's entries: the symbol of each relocation, by index (a section's symbol and an
    offset in it, or a function's)."""
    import re
    kind, ndx, name, function_at = {}, {}, {}, {}
    for line in lines_of(symbols):
        f = words(line)
        if not f or not re.fullmatch(r"[0-9]+:", f[0]):
            continue
        i = int(f[0][:-1])
        kind[i] = f[3] if len(f) > 3 else ""
        ndx[i] = f[6] if len(f) > 6 else ""
        name[i] = f[7] if len(f) >= 8 else ""
        if kind[i] == "FUNC":
            function_at[f"{ndx[i]} {hex_value(f[1])}"] = name[i]
    entries, init = [], False
    for line in lines_of(relocations):
        f = words(line) + [""] * 7
        if line.startswith("Relocation section "):
            init = f[2] == "'.rela.init_array'"
            continue
        if init and re.fullmatch(r"[0-9a-f]+", f[1]) and len(f[1]) == 16:
            i = hex_value(f[1][:8])
            addend = -hex_value(f[6]) if f[5] == "-" else hex_value(f[6])
            if kind.get(i, "") == "SECTION":
                entries.append(function_at.get(f"{ndx.get(i, '')} {addend}", "?"))
            else:
                entries.append(name[i] if addend == 0 and name.get(i, "") != "" else "?")
    return entries


def misplaced(name, rule, refs, relocations, code_sections):
    """Whether NAME, which nvcc's code may use (RULE: registration, device-stub), is used anywhere
    else: from code, only where nvcc puts it; from data (a pointer to it), never."""
    for ref in refs:
        f = words(ref) + [""] * 4
        if f[0] == "ref" and f[1] == name and not (f[2] == REGISTRATION if rule == "registration" else f[3] == "stub"):
            return True
    relocated = ""
    for line in lines_of(relocations):
        f = words(line) + [""] * 5
        if line.startswith("Relocation section "):
            relocated = f[2].replace("'", "")
            relocated = relocated[len(".rela"):] if relocated.startswith(".rela") else relocated
        elif f[4] == name and relocated not in code_sections:
            return True
    return False


# What a lab may define for the whole program, by C++ name: (globs, when it may) where the first
# list that matches decides. See (d) below.
DEFINED = (
    (("lab[0-9]*_*", "DW.ref.__gxx_personality_v0"), "always"),
    (("_Znw*", "_Zna*", "_Zdl*", "_Zda*", "_ZN10__cxxabiv1*", "_ZT[VIS]N10__cxxabiv1*"), "never"),
    # (their constants, C++17 inline variables that the headers define alike, may be shared)
    (("_ZN3cub*", "_ZNK3cub*", "_ZZN3cub*", "_ZGVZN3cub*", "_ZT[VIS]N3cub*", "_Z*__device_stub__ZN3cub*",
      "_ZN4cuda*", "_ZNK4cuda*", "_ZZN4cuda*", "_ZGVZN4cuda*", "_ZT[VIS]N4cuda*", "_Z*__device_stub__ZN4cuda*",
      "_ZN6thrust*", "_ZNK6thrust*", "_Z*__device_stub__ZN6thrust*", "_ZN5nvtx*", "_ZNK5nvtx*"), "shared-constant"),
    (("_ZSt*", "_ZNSt*", "_ZNKSt*", "_ZN9__gnu_cxx*", "_ZNK9__gnu_cxx*"), "not-global"),
    (("_Z*",), "always"),
)


def object_check(object_path, source):
    import re
    nm, readelf, objdump = tool("nm"), tool("readelf"), tool("objdump")
    if not os.path.isfile(object_path):
        say(f"{source}: its object {object_path} is missing")
        sys.exit(2)
    outputs = []
    with Scratch() as tmp:
        for number, command in enumerate(([nm, "-u", "-P"], [readelf, "-S", "-W"], [readelf, "-s", "-W"],
                                          [readelf, "-r", "-W"], [objdump, "-d", "-r", "-w", "--no-show-raw-insn"])):
            # Under the submission's limits: the object is the submission's, and so is its size.
            with open(os.path.join(tmp, f"{number}.out"), "w+b") as out, \
                    open(os.path.join(tmp, f"{number}.err"), "w+b") as err:
                status, hit = run_limited(command + [object_path], "object", out, err)
                out.seek(0)
                err.seek(0)
                outputs.append(text(out.read()))
                first = text(err.read(4096)).split("\n", 1)[0]
            if hit:
                say(limit_message(source, f"reading its object ({os.path.basename(command[0])})", "object", hit))
                sys.exit(1)
            if status != 0:
                say(f"{source}: its object {object_path} cannot be read: {first or f'{command[0]} exited {status}'}")
                sys.exit(1)
    undefined, sections, symbols, relocations, code = outputs
    allow, deny, section_globs = read_lists()
    table = section_table(sections)
    refs = code_references(code)
    problems = []

    # (a) Undefined symbols, weak ones too: each in the list, and used only where it says.
    executable = {name for name, _, flags in table if "X" in flags}  # the code's sections
    for line in lines_of(undefined):
        fields = words(line)
        name = fields[0] if fields else ""
        rule = "refused"
        if any(matches(name, pattern) for pattern in deny):
            rule = "denied"
        else:
            rule = next((where for pattern, where in allow if matches(name, pattern)), rule)
        if rule == "anywhere":
            continue
        if rule in ("registration", "device-stub") and not misplaced(name, rule, refs, relocations, executable):
            continue
        written = as_written(name)
        if written == name:
            problems.append(f"{source}: calls {name}, which a lab may not call")
        else:
            problems.append(f"{source}: calls {written}, which a lab may not call (the object names it {name})")

    # (b) Sections: each in the list (a relocation section where the one it relocates is), none
    # both writable and executable, the stack not executable, and .init_array holding only nvcc's
    # registration of the kernels: anything else there runs before main, in Criterion's runner.
    names = {name for name, _, _ in table}
    for name, kind, flags in table:
        if not name:
            continue
        if kind == "RELA" and name.startswith(".rela") and name[len(".rela"):] in names:
            continue  # a relocation section stands or falls with the section it relocates
        matched = "no"
        for pattern, wanted in section_globs:
            if matches(name, pattern):
                matched = "type"
                if not wanted or kind == wanted:
                    matched = "yes"
                    break
        if matched == "no":
            problems.append(f"{source}: has a section {name}, which a lab may not have")
        elif matched == "type":
            problems.append(f"{source}: has a section {name} of type {kind}, which a lab may not have")
        if "W" in flags and "X" in flags:
            problems.append(f"{source}: has a section {name} both writable and executable, which a lab may not have")
        # Code is never mergeable: a section name that spells its own flags (a '#' ending the
        # compiler's) makes one, whose relocations keep the names they would otherwise lose.
        if "M" in flags and "X" in flags:
            problems.append(f"{source}: has a section {name} both mergeable and executable, which a lab may not have")
        if name == ".note.GNU-stack" and "X" in flags:
            problems.append(f"{source}: asks for an executable stack, which a lab may not have")
    if ".note.GNU-stack" not in names:
        problems.append(f"{source}: has no .note.GNU-stack section, so its stack would be executable")
    seen_registration = False
    for name in init_array_entries(symbols, relocations):
        if name == REGISTRATION and not seen_registration:
            seen_registration = True
            continue
        if name == "?":
            name = "some code"
        elif name.startswith("_GLOBAL__sub_I_"):
            name = "a static object's constructor"
        problems.append(f"{source}: runs {name} before main (a constructor), which a lab may not do")

    # (b') Before main: nvcc's registration calls the runtime and atexit, nothing of the source's.
    problems += before_main_problems(code, defined_names(symbols), source)

    # (c) No system call in host code.
    for ref in refs:
        if ref.startswith("syscall "):
            _, function, instruction = (ref.split(None, 2) + ["", ""])[:3]
            problems.append(f"{source}: has a system call ({instruction.strip()}) in its host code, in {function}, "
                            "which a lab may not have")

    # (d) What it defines for the whole program: its lab's functions, its kernels and helpers (C++
    # names), nvcc's. A C name (memcmp, open, main, cudaEventElapsedTime...) or operator new would
    # replace the one that the grader and the libraries call; so would a definition of the CUB,
    # libcu++ or NVTX code that the grader's own C++ (common/cub_histogram.cu) instantiates.
    # An ifunc's resolver runs while the program loads, before main.
    for line in lines_of(symbols):
        f = words(line) + [""] * 8
        if not re.fullmatch(r"[0-9]+:", f[0]) or f[6] == "UND" or not f[7] \
                or (f[4] == "LOCAL" and f[3] != "IFUNC"):
            continue
        name, bind, kind = f[7], f[4], f[3]
        if kind == "IFUNC":
            problems.append(f"{source}: defines {name} as an ifunc, whose resolver runs before main, which a lab may not do")
            continue
        when = next((when for patterns, when in DEFINED if any(matches(name, p) for p in patterns)), "never")
        if when == "always" or (when == "shared-constant" and kind == "OBJECT" and bind != "GLOBAL") \
                or (when == "not-global" and bind != "GLOBAL"):
            continue
        problems.append(f"{source}: defines {name} for the whole program, which a lab may not (make it static)")

    # (e) Nothing of the source's in nvcc's device-code sections (a second fatbinary there, a
    # decoy for the technique check's reading of the machine code), and no data in a code
    # section: bytes under a data symbol in .text.<name> run when called, and objdump does not
    # disassemble them for (c).
    section_names = {index: name for index, name, _, _ in section_rows(sections)}
    for line in lines_of(symbols):
        f = words(line) + [""] * 8
        if not re.fullmatch(r"[0-9]+:", f[0]) or not f[6].isdigit() or f[3] in ("SECTION", "FILE"):
            continue
        section, name, kind = section_names.get(int(f[6]), ""), f[7] or "an unnamed symbol", f[3]
        if section in NVCC_SECTIONS and NVCC_SECTIONS[section] != f[7]:
            problems.append(f"{source}: puts {name} in nvcc's section {section}, which a lab may not do")
        elif section in executable and kind not in ("FUNC", "NOTYPE"):
            problems.append(f"{source}: puts data ({name}) in its code section {section}, which a lab may not do")

    if not problems:
        sys.exit(0)
    for line in unique("\n".join(problems).split("\n")):
        say(line)
    sys.exit(1)


def main(arguments):
    mode = arguments[0] if arguments else ""
    if mode == "includes":
        if len(arguments) < 4:
            usage()
        includes(arguments[1], arguments[2:])
    elif mode == "compile":
        if len(arguments) < 4:
            usage()
        compile_submission(arguments[1], arguments[2:])
    elif mode == "object":
        if len(arguments) != 3:
            usage()
        object_check(arguments[1], arguments[2])
    elif os.environ.get("CHECK_SUBMISSION_SOURCE") and arguments:
        wrapper(arguments)
    else:
        usage()


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:
        sys.exit(130)
    except Stopped as stopped:
        sys.exit(128 + stopped.number)
