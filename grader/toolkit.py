#!/usr/bin/env python3
"""The oldest CUDA toolkit, driver and GPU the kit supports, in one place, and the check that the
Makefile runs before every build (README.md, "What you need").

    python3 grader/toolkit.py check --nvcc PATH --cuda-arch "75 90" --arch-from detected|given

prints nothing where both will do, and otherwise one line naming what it found (exit 2). make test's part toolkit (run_tests.py) reads the
floor's runtime headers from NVIDIA's wheel of that version (floor_headers) and compiles the host
code against them. Python 3.6's standard library only: make runs it on a student's machine.
"""
import os
import re
import subprocess
import sys

# The oldest toolkit: CUDA 12.0, the first of the CUDA 12 toolkits that notebook services run.
TOOLKIT_FLOOR = (12, 0)
# The oldest driver: CUDA 12.0's (any CUDA 12 toolkit runs on it, minor version compatibility);
# a newer toolkit needs its own newer driver, which the runtime names when it is missing.
DRIVER_FLOOR = "525.60.13"
# The oldest GPU: compute capability 7.5 (Turing: a T4), the oldest that CUDA 13 still builds for.
ARCH_FLOOR = 75
# The floor's runtime headers, as NVIDIA ships them on PyPI (nothing to install: make test
# downloads the wheel into build/ and reads its include folder).
FLOOR_RUNTIME_WHEEL = ("nvidia-cuda-runtime-cu12", "12.0.107")


def toolkit_release(nvcc):
    """(major, minor) of the nvcc at that path, or None where there is none that answers."""
    try:
        output = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, universal_newlines=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"release (\d+)\.(\d+)", output)
    return (int(found.group(1)), int(found.group(2))) if found else None


def gpus_here():
    """[(name, compute capability as "7.5")] of the GPUs nvidia-smi lists (none without it)."""
    try:
        output = subprocess.run(["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                universal_newlines=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    gpus = []
    for line in output.splitlines():
        name, _, capability = line.rpartition(",")
        if re.fullmatch(r"\s*\d+\.\d+\s*", capability):
            gpus.append((name.strip(), capability.strip()))
    return gpus


def floor_text():
    return f"CUDA {TOOLKIT_FLOOR[0]}.{TOOLKIT_FLOOR[1]} or later"


def refusal(nvcc, cuda_arch, arch_from):
    """The one line that refuses this machine's toolkit or GPU, or None where both will do."""
    release = toolkit_release(nvcc)
    if release is None:
        return (f"no CUDA compiler at {nvcc}: install the CUDA toolkit ({floor_text()}), or set "
                f"CUDA_HOME to where it is")
    if release < TOOLKIT_FLOOR:
        return (f"the CUDA toolkit at {nvcc} is CUDA {release[0]}.{release[1]}; the kit needs "
                f"{floor_text()} (README.md, What you need)")
    if arch_from == "detected":
        for name, capability in gpus_here()[:1]:  # the Makefile builds for the first
            if int(capability.replace(".", "")) < ARCH_FLOOR:
                return (f"the GPU here, {name}, has compute capability {capability}; the kit needs "
                        f"{ARCH_FLOOR // 10}.{ARCH_FLOOR % 10} or later (README.md, What you need)")
    else:
        for arch in cuda_arch.split():
            if not re.fullmatch(r"\d+a?", arch):
                return f"CUDA_ARCH={cuda_arch}: give compute capabilities without the dot, e.g. 75 90"
            if int(arch.rstrip("a")) < ARCH_FLOOR:
                return (f"CUDA_ARCH={cuda_arch} names compute capability {arch}; the kit builds for "
                        f"{ARCH_FLOOR} and later (README.md, What you need)")
    return None


# ---- the floor's runtime headers, for make test ----------------------------------------------

def floor_headers(cache):
    """The include folder of the floor's runtime wheel, downloaded into cache once (pip). Returns
    (folder, None), or (None, why it could not be had)."""
    name, version = FLOOR_RUNTIME_WHEEL
    unpacked = os.path.join(cache, f"{name}-{version}")
    include = os.path.join(unpacked, "nvidia", "cuda_runtime", "include")
    if os.path.isfile(os.path.join(include, "cuda_runtime_api.h")):
        return include, None
    os.makedirs(cache, exist_ok=True)
    wheels = [f for f in os.listdir(cache) if f.startswith(name.replace("-", "_") + f"-{version}-")
              and f.endswith(".whl")]
    if not wheels:
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                                 "--disable-pip-version-check", "--dest", cache, f"{name}=={version}"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True)
        wheels = [f for f in os.listdir(cache) if f.startswith(name.replace("-", "_") + f"-{version}-")
                  and f.endswith(".whl")]
        if result.returncode != 0 or not wheels:
            said = (result.stdout.strip().splitlines() or ["no output"])[-1]
            return None, f"pip download {name}=={version} failed: {said[:200]}"
    import zipfile
    with zipfile.ZipFile(os.path.join(cache, wheels[0])) as wheel:
        wheel.extractall(unpacked)
    if not os.path.isfile(os.path.join(include, "cuda_runtime_api.h")):
        return None, f"{wheels[0]} has no nvidia/cuda_runtime/include/cuda_runtime_api.h"
    return include, None


def runtime_release(include):
    """(major, minor) of the runtime headers in include (CUDART_VERSION), or None."""
    try:
        with open(os.path.join(include, "cuda_runtime_api.h")) as header:
            found = re.search(r"#define CUDART_VERSION\s+(\d+)", header.read())
    except OSError:
        return None
    return (int(found.group(1)) // 1000, int(found.group(1)) % 1000 // 10) if found else None


def main():
    import argparse
    parser = argparse.ArgumentParser(prog="toolkit.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    check = commands.add_parser("check", help="refuse a toolkit or GPU older than the kit's floor")
    check.add_argument("--nvcc", required=True)
    check.add_argument("--cuda-arch", default="")
    check.add_argument("--arch-from", choices=("detected", "given"), required=True)
    commands.add_parser("floor", help="print the floor: toolkit, driver, compute capability")
    arguments = parser.parse_args()
    if arguments.command == "check":
        said = refusal(arguments.nvcc, arguments.cuda_arch, arguments.arch_from)
        if said:
            print(said)
            return 2
        return 0
    if arguments.command == "floor":
        print(f"{floor_text()}, driver {DRIVER_FLOOR} or later, compute capability "
              f"{ARCH_FLOOR // 10}.{ARCH_FLOOR % 10} or later")
        return 0
    parser.print_usage(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
