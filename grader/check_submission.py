#!/usr/bin/env python3
"""The submission check: a lab's source and object may reach nothing but the lab's own code, CUDA,
the terminal and memory; not the grader's record, the reference solutions, nor the machine.
The Makefile runs it on every lab it builds (student, solution, variant, ./grade --file):

  check_submission.py includes SOURCE -- NVCC_COMMAND...
      Before compiling: every file SOURCE includes (nvcc -M, on every pass, host and device)
      must be SOURCE itself, a CUDA or system header, or a .h file of labs/<its lab>/ or common/.
      Nothing is compiled, and no included file's text is ever printed.
  CHECK_SUBMISSION_SOURCE=SOURCE nvcc ... -Xcompiler -wrapper,grader/check_submission.py
      While compiling: as gcc's wrapper (gcc runs it as `WRAPPER PROGRAM ARGS...` for each of
      its programs), it reads the host assembly before the assembler does, and stops inline
      assembly in host code (device code may have its asm), and the assembler directives that
      read files (.include, .incbin) or could spell them (.macro, .irp, ...), which can come in
      without asm too, through a section's name or an asm label. Any other program, and the
      assembler once the assembly is clean, runs as gcc asked: same arguments, standard streams
      and exit status.
  check_submission.py object OBJECT SOURCE
      After compiling: OBJECT's undefined symbols must be in grader/allowed-symbols.txt, its
      sections in grader/allowed-sections.txt, its .init_array only nvcc's registration, its
      host code free of system calls, and what it defines must not stand in for the C library's
      or the grader's functions.

A problem prints one line, "SOURCE: ...", and exits 1; a clean file exits 0 silently; exit 4 is
a grading machine without the tools this needs (binutils), exit 2 a wrong command line.
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


def say(line):
    sys.stderr.flush()
    sys.stderr.buffer.write((line + "\n").encode("utf-8", "surrogateescape"))
    sys.stderr.buffer.flush()


def usage():
    say(f"usage: {sys.argv[0]} includes SOURCE -- NVCC_COMMAND... | object OBJECT SOURCE")
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


# ---- includes -------------------------------------------------------------------------------
def run_limited(command, err, seconds):
    """COMMAND's exit status, 124 when it ran past SECONDS (as timeout(1) says it): it runs in a
    process group of its own, so that the compiler's programs stop with it."""
    import signal
    import subprocess
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                   start_new_session=True)
    except OSError:
        return 127
    try:
        return process.wait(timeout=seconds)
    except BaseException as stop:  # the time limit, or ^C: the whole group stops
        for signal_number in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, signal_number)
                process.wait(timeout=10)
                break
            except (OSError, subprocess.TimeoutExpired):
                pass
        if not isinstance(stop, subprocess.TimeoutExpired):
            raise
        return 124


def includes(source, arguments):
    import glob
    import shutil
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
    with Scratch() as tmp:
        deps = os.path.join(tmp, "deps")
        # -M lists every file the passes read, #line names included; gcc's -H names the headers
        # opened before an error, for when -M stops. Neither output is ever shown: a warning
        # about a file quotes its lines. A device file (/dev/zero) never ends: the time limit
        # stops it (and all the compiler's programs, in a process group of their own).
        with open(os.path.join(tmp, "err"), "w+b") as err:
            status = run_limited(command + ["-M", "-MF", deps, "-Xcompiler", "-H"], err, 300)
            err.seek(0)
            errors = lines_of(text(err.read()))
        listed = []
        if os.path.isfile(deps):
            # make's rule: its target, then its prerequisites ("\ " a space in a name).
            with open(deps, "rb") as file:
                joined = "".join(" " + (line[:-1] if line.endswith("\\") else line)
                                 for line in lines_of(text(file.read())))
            colon = joined.find(":")
            if colon >= 0:
                joined = joined[colon + 1:]
            listed += [part.replace("\x01", " ") for part in joined.replace("\\ ", "\x01").replace("\t", " ").split(" ")
                       if part]
        for line in errors:  # -H: ". /usr/include/stdio.h"
            dots = len(line) - len(line.lstrip("."))
            if dots and line[dots:dots + 1] == " ":
                listed.append(line[dots + 1:])
        allowed = [literal(source_real), "/usr/include/*", "/usr/lib/gcc/*", literal(cuda) + "/include/*",
                   literal(cuda) + "/targets/*/include/*", "/usr/local/cuda*/include/*",
                   "/usr/local/cuda*/targets/*/include/*"]
        bad = False
        for real in unique(os.path.realpath(path) for path in listed if path):
            directory = real.rpartition("/")[0]
            if any(matches(real, pattern) for pattern in allowed):
                continue
            if matches(real, literal(KIT) + "/common/*.h") and directory == KIT + "/common":
                continue
            if lab_dir and directory == lab_dir and real.endswith(".h"):
                continue
            say(f"{source}: includes {real}, which a lab may not include (only its own lab header, "
                "common/*.h, CUDA's and the system's headers)")
            bad = True
    if bad:
        sys.exit(1)
    if status == 124:
        say(f"{source}: listing its includes took more than 300 s (does it include a device?)")
        sys.exit(1)
    if status != 0:
        # The preprocessor stopped (a missing header, #error): its errors, without the source
        # lines it quotes (a #line could make it quote any file), and without compiling.
        import re
        for line in unique(line for line in errors if re.search(r": (fatal error|error): |^nvcc (fatal|error)", line)):
            say(line)
        say(f"{source}: does not preprocess (the errors above)")
        sys.exit(1)
    sys.exit(0)


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


def scan_assembly(assembly):
    """Whether the host assembly has inline assembly, and the directives it must not have."""
    regions, first, inline, found = 0, False, False, []
    for line in lines_of(assembly):
        if line.startswith(b"#APP"):
            regions += 1
            first = True
            continue
        if line.startswith(b"#NO_APP"):
            first = False
            continue
        if first and line.strip(b" \t"):
            if regions > 1 or line.strip(b" \t") != b'.section .nv_fatbin, "a"':
                inline = True
            first = False
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


def section_table(listing):
    """readelf -S's sections: (name, type, flags) (readelf pads the names)."""
    import re
    table = []
    for line in lines_of(listing):
        prefix = re.match(r" *\[ *[0-9]+\] ", line)
        if not prefix:
            continue
        line = line[prefix.end():]
        found = re.search(r" +[A-Z][A-Z0-9_+]* +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ ", line)
        if not found:
            table.append((line, "?", ""))
            continue
        fields = words(line[found.start():])
        table.append((line[:found.start()], fields[0], fields[5] if len(fields) == 9 else ""))
    return table


def code_references(disassembly):
    """What the host code refers to, function by function: "ref SYMBOL FUNCTION SHAPE", SHAPE
    "stub" for nvcc's host copy of a __device__ function, never called: [endbr64] sub $N,%rsp;
    movl $0x1,X(%rsp); mov X(%rsp),%edi; call exit; padding. And "syscall FUNCTION INSN"."""
    import re
    out = []
    state = {"fn": "", "insn": [], "target": []}

    def at(items, k):
        return items[k - 1] if 1 <= k <= len(items) else ""

    def finish():
        fn, insn, target = state["fn"], state["insn"], state["target"]
        if fn != "":
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
        state.update(fn="", insn=[], target=[])

    def references(line):
        refs = []
        for found in re.finditer(r"R_X86_64_[A-Z0-9_]+\t[^\t ]+", line):
            refs.append(re.sub(r"[-+]0x[0-9a-f]+$", "", found.group().split("\t", 1)[1]))
        return " ".join(refs)

    for line in lines_of(disassembly):
        if re.fullmatch(r"[0-9a-f]+ <.*>:", line):
            finish()
            fields = words(line)
            state["fn"] = re.sub(r">:$", "", re.sub(r"^<", "", fields[1] if len(fields) > 1 else ""))
        elif line.startswith("Disassembly of section "):
            finish()
        elif re.match(r"\t+[0-9a-f]+: R_X86_64_", line):
            if state["insn"]:
                state["target"][-1] += " " + references(line)
        else:
            prefix = re.match(r" *[0-9a-f]+:\t", line)
            if prefix:
                line = line[prefix.end():]
                state["target"].append(references(line))
                line = line.split("\t", 1)[0]
                line = re.sub(r" *#.*", "", line, count=1)
                line = re.sub(r" +", " ", line)
                line = line[:-1] if line.endswith(" ") else line
                state["insn"].append(line)
                if re.match(r"(syscall|sysenter|int \$0x80)($| )", line):
                    out.append(f"syscall {state['fn']} {line}")
    finish()
    return out


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
    import subprocess
    nm, readelf, objdump = tool("nm"), tool("readelf"), tool("objdump")
    if not os.path.isfile(object_path):
        say(f"{source}: its object {object_path} is missing")
        sys.exit(2)
    outputs, errors = [], b""
    for command in ([nm, "-u", "-P"], [readelf, "-S", "-W"], [readelf, "-s", "-W"], [readelf, "-r", "-W"],
                    [objdump, "-d", "-r", "-w", "--no-show-raw-insn"]):
        try:
            run = subprocess.run(command + [object_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            status = run.returncode
            errors += run.stderr
            outputs.append(text(run.stdout))
        except OSError as error:
            status = 126
            errors += f"{sys.argv[0]}: {command[0]}: {error.strerror}\n".encode()
        if status != 0:
            first = text(errors).split("\n", 1)[0]
            say(f"{source}: its object {object_path} cannot be read: {first}")
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
