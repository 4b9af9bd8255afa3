#!/usr/bin/env python3
"""make results: regenerates, on a GPU, every recorded log and table that the handouts and docs
quote, from the current code: each lab's `./grade LAB --solution` (docs/results/LAB-solution.log),
make bench (docs/bench/bench.{md,csv,svg}), make lessons (docs/results/lessons.md), the machine
code of every kernel that does an atomic (docs/results/sass-atomics.txt) and the main loops of the
kernels whose instructions the handouts count (docs/results/sass-main-loops.txt), the registers
each reference's kernels use (docs/results/registers.txt, from ptxas), the GPU's properties
(docs/results/device.md), make bench-grade (docs/bench/grade-times.md), and the report of every
variant the student tarball ships (docs/results/variants/LAB-NAME.log), which ./grade shows where
there is no GPU, and the reference graded as a student on seeds 1-5 (docs/results/ratio-sweep.md).
Each log starts with a line naming the device, the CUDA version, the date and the commit it was
made from. `make test` then checks that every figure the docs quote is in one
of these files (grader/tests/check_figures.py).

usage: record_results.py [--only PART ...] [--labs LAB ...] [--gpu-folder NAME] [--out DIR]
  PART: gradings bench lessons sass registers device grade-times variant-reports ratio-sweep
        (default: all);
        registers needs no GPU (ptxas), sass needs cuobjdump but no GPU, the others a GPU
  --labs LAB ...: grade only these labs (default: every lab)
  --gpu-folder NAME: write into results/NAME/ and bench/NAME/, for a second GPU's logs beside
                     the first's (docs/results/h100/, say)
  --out DIR: the folder that holds results/ and bench/ (default docs/)
Exit status: 0 all recorded, 1 a step failed (its log says why), 2 bad usage, 3 no GPU.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

from grade_times import labs, lab_manifest  # noqa: E402 (the labs, from the lab manifest)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = ["gradings", "bench", "lessons", "sass", "registers", "device", "grade-times", "variant-reports",
         "ratio-sweep"]
# The parts that run code on the GPU; the others read what the compiler made.
GPU_PARTS = {"gradings", "bench", "lessons", "device", "grade-times", "variant-reports", "ratio-sweep"}
# The seeds of the ratio sweep: the reference graded as a student, speed tests only.
SWEEP_SEEDS = [1, 2, 3, 4, 5]
# The architectures whose register counts the handouts compare (the kit's default build's).
REGISTER_ARCHITECTURES = ["75", "80", "86", "89", "90"]

# A variant's script says it ships in the student tarball with this line (grader/kit.py).
TARBALL_MARKER = re.compile(r"^\s*#\s*in the student tarball:", re.M)
SEED = "12345"
# The instructions that show how a kernel's atomics reach memory: the atomics themselves and
# what the compiler emits to merge a warp's atomics into one (vote, population count, match).
ATOMIC_SASS = re.compile(r"\b(ATOM\w*|RED\w*|U?POPC|VOTEU?|MATCH|U?FLO)\b")


def main_loop_kernels():
    """{lab: kernels} whose main loop a handout counts (a part of each kernel's mangled name): the
    main_loops lines of the lab manifest."""
    return {lab: lab_manifest.value(lab, "main_loops").split() for lab in labs()
            if lab_manifest.value(lab, "main_loops")}


def run(command, **kwargs):
    return subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def provenance():
    """The line that opens every log: what made it, on what, when."""
    try:
        gpu = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        gpu_text = gpu.stdout.decode().strip().replace(", ", ", driver ") if gpu.returncode == 0 else ""
    except OSError:  # no nvidia-smi: no NVIDIA driver here
        gpu_text = ""
    gpu_text = gpu_text or "no GPU (the compiler's output only)"
    nvcc = run([os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"), "--version"])
    release = re.search(r"release ([0-9.]+)", nvcc.stdout.decode())
    # A copy of the tree sent to a GPU machine may carry an older .git: KIT_COMMIT names the
    # commit the copy was made from.
    commit = os.environ.get("KIT_COMMIT") or \
        run(["git", "rev-parse", "--short", "HEAD"]).stdout.decode().strip() or "unknown"
    dirty = "" if os.environ.get("KIT_COMMIT") else \
        run(["git", "status", "--porcelain", "--untracked-files=no"]).stdout.decode().strip()
    # A smaller GPU's shared memory that the kernels were held to (common/device.h).
    limit = os.environ.get("KIT_SHARED_MEMORY_PER_BLOCK")
    return "# recorded by make results: {}, CUDA {}, {}, commit {}{}{}\n".format(
        gpu_text,
        release.group(1) if release else "unknown", datetime.date.today().isoformat(), commit,
        " with uncommitted changes" if dirty else "",
        f", KIT_SHARED_MEMORY_PER_BLOCK={limit}" if limit else "")


def gpu_here():
    try:
        return run(["nvidia-smi", "-L"]).returncode == 0
    except OSError:
        return False


def write(path, header, body):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(header)
        out.write(body.replace(ROOT + "/", ""))
    print(f"make results: wrote {os.path.relpath(path, ROOT)}", flush=True)


def gpu_folder(name):
    if name and not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
        raise argparse.ArgumentTypeError(f"'{name}' is not a folder name of lowercase letters, digits and '-'")
    return name


def destinations(out, folder):
    """Where a log goes: destination("results" or "bench", name) is out/results/[folder/]name."""
    return lambda kind, name: os.path.join(out, kind, folder, name)


def record_ratio_sweep(destination, header, chosen_labs):
    """The reference graded as a student on seeds 1-5, its speed tests alone: the time_ratio of
    each summary.json (identical code must read 1.00, within grade_times.RATIO_TOLERANCE)."""
    from grade_times import RATIO_TOLERANCE, ratio_within
    summary = os.path.join(ROOT, "build", "bench", "ratio-sweep.json")
    os.makedirs(os.path.dirname(summary), exist_ok=True)
    lines = ["| lab | " + " | ".join(f"seed {seed}" for seed in SWEEP_SEEDS) + " |",
             "| --- |" + " ---: |" * len(SWEEP_SEEDS)]
    off = []
    for lab in chosen_labs:
        cells = []
        for seed in SWEEP_SEEDS:
            run(["./grade", lab, "--solution", "--seed", str(seed), "--filter", "speed/*", "--summary", summary])
            try:
                with open(summary) as file:
                    ratio = json.load(file).get("time_ratio")
                os.remove(summary)
            except (OSError, ValueError):
                ratio = None
            within = ratio_within(ratio)
            cells.append("not timed" if ratio is None else f"{ratio:.3f}" + ("" if within else " (off)"))
            if not within:
                off.append(f"{lab} seed {seed}")
            print(f"make results: ratio sweep {lab} seed {seed}: {cells[-1]}", flush=True)
        lines.append(f"| {lab} | " + " | ".join(cells) + " |")
    write(destination("results", "ratio-sweep.md"), header,
          "The reference graded as a student: `./grade LAB --solution --seed N --filter 'speed/*'`, the\n"
          f"time_ratio of its summary.json. Identical code must read 1.00, within {RATIO_TOLERANCE:.0%}"
          " (\"(off)\" where not).\n\n" + "\n".join(lines) + "\n")
    if off:
        print(f"make results: ratio off 1.00 by more than {RATIO_TOLERANCE:.0%}: {', '.join(off)}", file=sys.stderr)
    return not off


# A timed test that a plain ./grade does not run says how to run it (grader/harness/grading.c,
# require_gpu_timing_and_a_filter): "./grade with --filter 'SUITE/NAME' runs it".
ON_REQUEST = re.compile(r"--filter '([^']+)' runs it")


def record_gradings(destination, header, chosen_labs):
    ok = True
    for lab in chosen_labs:
        result = run(["./grade", lab, "--solution", "--seed", SEED])
        log = result.stdout.decode()
        if result.returncode != 0:
            print(f"make results: ./grade {lab} --solution exited {result.returncode}", file=sys.stderr)
            ok = False
        # The tests run on request (lab 6's sweep, which its handout quotes), each after the grading.
        for test in dict.fromkeys(ON_REQUEST.findall(log)):
            asked = run(["./grade", lab, "--solution", "--seed", SEED, "--filter", test])
            log += f"\n# ./grade {lab} --solution --seed {SEED} --filter '{test}' (run on request)\n"
            log += asked.stdout.decode()
            if asked.returncode != 0:
                print(f"make results: ./grade {lab} --solution --filter '{test}' exited "
                      f"{asked.returncode}", file=sys.stderr)
                ok = False
        write(destination("results", f"{lab}-solution.log"), header, log)
    return ok


def record_bench(destination, header):
    folder = os.path.join(ROOT, "build", "bench")
    result = run(["build/bench/bench", "--out", folder])
    if result.returncode != 0:
        print(result.stdout.decode()[-2000:], file=sys.stderr)
        return False
    for name in ("bench.md", "bench.csv"):
        with open(os.path.join(folder, name)) as produced:
            body = produced.read()
        # A CSV's first line must stay its header; its provenance goes beside it.
        if name.endswith(".csv"):
            write(destination("bench", name), "", body)
            write(destination("bench", "bench.csv.provenance"), header, "")
        else:
            write(destination("bench", name), header + "\n", body)
    with open(os.path.join(folder, "bench.svg")) as chart:
        write(destination("bench", "bench.svg"), "", chart.read())
    return True


def record_lessons(destination, header):
    result = run(["build/bench/lessons"])
    write(destination("results", "lessons.md"), header + "\n", result.stdout.decode())
    return result.returncode == 0


def sass_of(obj):
    result = run(["cuobjdump", "-sass", obj])
    if result.returncode != 0:
        raise RuntimeError(f"cuobjdump -sass {obj}: {result.stdout.decode().strip()[:300]}")
    return result.stdout.decode()


def record_sass(destination, header):
    """Per kernel, the instructions of its atomics; the whole of the lessons' counter kernels and
    of lab 9's lane-column kernel, whose instructions a pixel its handout counts."""
    lines = []
    objects = [f"build/solution/{lab}/{lab.split('-')[0]}.o" for lab in labs()] + ["build/bench/lessons.o"]
    try:
        for obj in objects:
            lines.append(f"== {obj}")
            function = None
            whole = False
            for line in sass_of(obj).splitlines():
                name = re.search(r"Function : (\S+)", line)
                if name:
                    function = name.group(1)
                    whole = (obj.endswith("lessons.o") and ("count_" in function or "letters_" in function)
                             or "lane_columns" in function)
                    lines.append(f"-- {function}")
                    continue
                instruction = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
                if function and instruction and (whole or ATOMIC_SASS.search(instruction.group(2))):
                    lines.append(f"   {instruction.group(1)}  {instruction.group(2)}")
    except (OSError, RuntimeError) as error:
        print(f"make results: {error}", file=sys.stderr)
        return False
    write(destination("results", "sass-atomics.txt"), header,
          "Made with cuobjdump -sass; per kernel, its atomics and the instructions that merge a warp's\n"
          "atomics (VOTE, POPC, MATCH, FLO and their uniform forms VOTEU, UPOPC, UFLO); the lessons'\n"
          "counter and letter kernels and lab 9's lane-column kernel whole.\n\n" + "\n".join(lines) + "\n")
    loops = []
    for lab, wanted in main_loop_kernels().items():
        obj = f"build/solution/{lab}/{lab.split('-')[0]}.o"
        loops.append(f"== {obj}")
        loops += main_loops_text(kernels_of(sass_of(obj)), wanted)
    write(destination("results", "sass-main-loops.txt"), header,
          "Made with cuobjdump -sass: the main loop of each kernel whose instructions a handout counts\n"
          "(the innermost loop, from a backward branch's target to that branch, with the most\n"
          "instructions), counted by opcode and by mnemonic, then listed.\n\n" + "\n".join(loops) + "\n")
    return True


INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PREDICATE = re.compile(r"^@!?U?P\w+\s+")
BACKWARD_BRANCH = re.compile(r"\bBRA\s+(?:\S+\s+)?0x([0-9a-f]+)")


def kernels_of(sass):
    """{mangled name: [(address, instruction text)]} of cuobjdump -sass output."""
    kernels, name = {}, None
    for line in sass.splitlines():
        function = re.search(r"Function : (\S+)", line)
        if function:
            name = function.group(1)
            kernels[name] = []
            continue
        instruction = INSTRUCTION.match(line)
        if name and instruction:
            kernels[name].append((int(instruction.group(1), 16), instruction.group(2)))
    return kernels


def opcode_of(instruction):
    """The opcode with its modifiers, without a predicate: "LDG.E.EF.128"."""
    return PREDICATE.sub("", instruction).split()[0]


def main_loop(instructions):
    """(first, last, [(address, instruction)]) of a kernel's main loop: the innermost loop (from
    the target of a backward branch to that branch, with no loop inside) that has the most
    instructions; None when the kernel has no loop."""
    loops = []
    for address, text in instructions:
        branch = BACKWARD_BRANCH.search(PREDICATE.sub("", text))
        if branch and int(branch.group(1), 16) < address:
            loops.append((int(branch.group(1), 16), address))
    innermost = [loop for loop in loops
                 if not any(other != loop and loop[0] <= other[0] and other[1] <= loop[1] for other in loops)]
    if not innermost:
        return None
    body = lambda loop: [(a, t) for a, t in instructions if loop[0] <= a <= loop[1]]
    first, last = max(innermost, key=lambda loop: len(body(loop)))
    return first, last, body((first, last))


def counted(instructions, key):
    counts = {}
    for _, text in instructions:
        counts[key(text)] = counts.get(key(text), 0) + 1
    return ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def main_loops_text(kernels, wanted):
    """The main loop of each wanted kernel: its instructions counted by opcode and by mnemonic,
    then listed."""
    lines = []
    for name, instructions in kernels.items():
        if not any(part in name for part in wanted):
            continue
        loop = main_loop(instructions)
        if loop is None:
            lines.append(f"-- {name}: no loop")
            continue
        first, last, body = loop
        lines.append(f"-- {name}")
        lines.append(f"main loop: 0x{first:04x} to 0x{last:04x}, {len(body)} instructions")
        lines.append("by opcode: " + counted(body, opcode_of))
        lines.append("by mnemonic: " + counted(body, lambda text: opcode_of(text).split(".")[0]))
        lines += [f"   {address:04x}  {text}" for address, text in body]
    return lines


def record_registers(destination, header):
    """The registers (and spills) of every reference kernel, as ptxas reports them, for each
    architecture of the kit's default build: no GPU needed."""
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    lines = []
    for lab in labs():
        source = f"solutions/{lab}/{lab.split('-')[0]}.cu"
        lines.append(f"== {source}")
        for arch in REGISTER_ARCHITECTURES:
            result = run([nvcc, "-O3", "-std=c++17", "-Icommon", f"-Ilabs/{lab}", f"-arch=sm_{arch}",
                          "-Xptxas", "-v", "-c", source, "-o", os.devnull])
            if result.returncode != 0:
                print(f"make results: nvcc -Xptxas -v {source} for sm_{arch}: "
                      f"{result.stdout.decode().strip()[-300:]}", file=sys.stderr)
                return False
            function = None
            for line in result.stdout.decode().splitlines():
                entry = re.search(r"Compiling entry function '(\S+)' for 'sm_\d+'", line)
                if entry:
                    function = entry.group(1)
                    continue
                used = re.search(r"Used (\d+) registers", line)
                if function and used:
                    lines.append(f"sm_{arch}  {function}: {used.group(1)} registers")
                    function = None
                spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
                if spill and lines and lines[-1].startswith(f"sm_{arch}") and spill.group(1) != "0":
                    lines[-1] += f", {spill.group(1)} bytes of spill stores"
    write(destination("results", "registers.txt"), header,
          "Made with nvcc -O3 -Xptxas -v (ptxas's \"Used N registers\") for each reference, per\n"
          "architecture: the registers a thread of each kernel uses, and its spill stores if any.\n\n"
          + "\n".join(lines) + "\n")
    return True


def record_device(destination, header):
    """The GPU's properties that the handouts' arithmetic uses: the runtime's (lessons
    --properties) and nvidia-smi's top clocks."""
    result = run(["build/bench/lessons", "--properties"])
    if result.returncode != 0:
        print(result.stdout.decode()[-1000:], file=sys.stderr)
        return False
    clocks = run(["nvidia-smi", "--query-gpu=clocks.max.sm,clocks.max.memory", "--format=csv"])
    write(destination("results", "device.md"), header + "\n",
          result.stdout.decode() + "\nnvidia-smi --query-gpu=clocks.max.sm,clocks.max.memory "
          "--format=csv:\n\n```\n" + clocks.stdout.decode().strip() + "\n```\n")
    return clocks.returncode == 0


def record_grade_times(destination, header):
    folder = os.path.join(ROOT, "build", "bench")
    result = run([sys.executable, "bench/grade_times.py", "--out", folder, "--repeat", "3"])
    with open(os.path.join(folder, "grade-times.md")) as produced:
        write(destination("bench", "grade-times.md"), header + "\n", produced.read())
    return result.returncode == 0


def shipped_variants():
    """(lab, name) of every variant whose script says it ships in the student tarball."""
    found = []
    for lab in labs():
        folder = os.path.join(ROOT, "grader", "variants", lab)
        for script in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            with open(os.path.join(folder, script)) as file:
                if script.endswith(".sed") and TARBALL_MARKER.search(file.read()):
                    found.append((lab, script[:-len(".sed")]))
    return found


def record_variant_reports(destination, header):
    """The command the handouts give, on the seed of the other logs: what ./grade shows of a
    shipped variant on a machine without a GPU (the grade script)."""
    ok = True
    for lab, name in shipped_variants():
        result = run(["./grade", lab, "--variant", name, "--seed", SEED])
        write(destination("results", os.path.join("variants", f"{lab}-{name}.log")), header,
              result.stdout.decode())
        if result.returncode not in (0, 1):
            print(f"make results: ./grade {lab} --variant {name} exited {result.returncode}", file=sys.stderr)
            ok = False
    return ok


def main():
    parser = argparse.ArgumentParser(description="make results: regenerate the recorded logs on a GPU")
    parser.add_argument("--only", nargs="+", choices=PARTS, default=PARTS)
    parser.add_argument("--labs", nargs="+", choices=labs(), default=labs())
    parser.add_argument("--gpu-folder", default="", type=gpu_folder)
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"))
    try:
        args = parser.parse_args()
    except SystemExit as exit_:
        sys.exit(2 if exit_.code else 0)
    needs_gpu = sorted(GPU_PARTS & set(args.only))
    if needs_gpu and not gpu_here():
        print(f"make results: no GPU here (nvidia-smi -L failed): {' '.join(needs_gpu)} are recorded "
              "on a GPU (--only registers needs none)", file=sys.stderr)
        sys.exit(3)
    if set(args.only) - {"registers"}:
        build = run(["make", "-s", "-j8", "build/bench/bench", "build/bench/lessons"]
                    + [f"solution-{lab.split('-')[0]}" for lab in labs()])
        if build.returncode != 0:
            print(build.stdout.decode()[-3000:], file=sys.stderr)
            print("make results: the build failed", file=sys.stderr)
            sys.exit(1)
    header = provenance()
    steps = {"gradings": lambda destination, header: record_gradings(destination, header, args.labs),
             "bench": record_bench, "lessons": record_lessons, "sass": record_sass,
             "registers": record_registers, "device": record_device,
             "grade-times": record_grade_times, "variant-reports": record_variant_reports,
             "ratio-sweep": lambda destination, header: record_ratio_sweep(destination, header, args.labs)}
    destination = destinations(os.path.abspath(args.out), args.gpu_folder)
    failed = [part for part in PARTS if part in args.only and not steps[part](destination, header)]
    if failed:
        print(f"make results: failed: {' '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
