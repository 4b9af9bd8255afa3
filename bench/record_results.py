#!/usr/bin/env python3
"""make results: regenerates, on a GPU, every recorded log and table that the handouts and docs
quote, from the current code: each lab's `./grade LAB --solution` (docs/results/LAB-solution.log),
make bench (docs/bench/bench.{md,csv,svg}), make lessons (docs/results/lessons.md), the machine
code of every kernel that does an atomic (docs/results/sass-atomics.txt), make bench-grade
(docs/bench/grade-times.md), and the report of every variant the student tarball ships
(docs/results/variants/LAB-NAME.log), which ./grade shows where there is no GPU. Each log starts with a line naming the device, the CUDA version,
the date and the commit it was made from. `make test` then checks that every figure the docs
quote is in one of these files (grader/tests/check_figures.py).

usage: record_results.py [--only PART ...] [--labs LAB ...] [--gpu-folder NAME] [--out DIR]
  PART: gradings bench lessons sass grade-times variant-reports (default: all)
  --labs LAB ...: grade only these labs (default: every lab)
  --gpu-folder NAME: write into results/NAME/ and bench/NAME/, for a second GPU's logs beside
                     the first's (docs/results/h100/, say)
  --out DIR: the folder that holds results/ and bench/ (default docs/)
Exit status: 0 all recorded, 1 a step failed (its log says why), 2 bad usage, 3 no GPU.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

from grade_times import labs  # noqa: E402 (the labs, listed from labs/ in one place)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = ["gradings", "bench", "lessons", "sass", "grade-times", "variant-reports"]
# A variant's script says it ships in the student tarball with this line (grader/make-dist.sh).
TARBALL_MARKER = re.compile(r"^\s*#\s*in the student tarball:", re.M)
SEED = "12345"
# The instructions that show how a kernel's atomics reach memory: the atomics themselves and
# what the compiler emits to merge a warp's atomics into one (vote, population count, match).
ATOMIC_SASS = re.compile(r"\b(ATOM\w*|RED\w*|U?POPC|VOTEU?|MATCH|U?FLO)\b")


def run(command, **kwargs):
    return subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def provenance():
    """The line that opens every log: what made it, on what, when."""
    gpu = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
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
        gpu.stdout.decode().strip().replace(", ", ", driver "),
        release.group(1) if release else "unknown", datetime.date.today().isoformat(), commit,
        " with uncommitted changes" if dirty else "",
        f", KIT_SHARED_MEMORY_PER_BLOCK={limit}" if limit else "")


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


def record_gradings(destination, header, chosen_labs):
    ok = True
    for lab in chosen_labs:
        result = run(["./grade", lab, "--solution", "--seed", SEED])
        write(destination("results", f"{lab}-solution.log"), header, result.stdout.decode())
        if result.returncode != 0:
            print(f"make results: ./grade {lab} --solution exited {result.returncode}", file=sys.stderr)
            ok = False
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
    return True


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
    if run(["nvidia-smi", "-L"]).returncode != 0:
        print("make results: no GPU here (nvidia-smi -L failed): the logs are recorded on a GPU", file=sys.stderr)
        sys.exit(3)
    build = run(["make", "-s", "-j8", "build/bench/bench", "build/bench/lessons"]
                + [f"solution-{lab.split('-')[0]}" for lab in labs()])
    if build.returncode != 0:
        print(build.stdout.decode()[-3000:], file=sys.stderr)
        print("make results: the build failed", file=sys.stderr)
        sys.exit(1)
    header = provenance()
    steps = {"gradings": lambda destination, header: record_gradings(destination, header, args.labs),
             "bench": record_bench, "lessons": record_lessons,
             "sass": record_sass, "grade-times": record_grade_times,
             "variant-reports": record_variant_reports}
    destination = destinations(os.path.abspath(args.out), args.gpu_folder)
    failed = [part for part in PARTS if part in args.only and not steps[part](destination, header)]
    if failed:
        print(f"make results: failed: {' '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
