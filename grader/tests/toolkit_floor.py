"""make test's part toolkit: the oldest toolkit and GPU the kit supports (grader/toolkit.py), proved
where a machine without them can prove it. Each check is (description, status, detail), status
"pass", "fail" or "skip", for run_tests.py to count:

- make refuses an older toolkit, an older GPU and an older CUDA_ARCH, each in one line naming it
  (a stand-in nvcc and nvidia-smi on the PATH);
- the host code (every .c that includes CUDA's headers) compiles against the floor's runtime
  headers, NVIDIA's nvidia-cuda-runtime-cu12 wheel of that version, downloaded into
  build/toolkit-floor/ once; and every CUDA runtime name the .cu files use is declared there;
- every .cu of the kit compiles for sm_75, the oldest GPU;
- a copy of the kit built as a CUDA 12 toolkit builds it (KIT_LEGACY_LAUNCH: <<<...>>> calls
  cudaLaunchKernel) grades lab 5's reference: its CPU tests without a GPU, every test with one;
- without a GPU (none here, or hidden by CUDA_VISIBLE_DEVICES), the technique check's static part
  reads the object with cuobjdump (the toolkit's, or NVIDIA's wheels of it on the PATH): lab 5's
  reference passes it, its skeleton fails it.

What a machine without CUDA 12's nvcc cannot prove, it does not claim: the .cu files are compiled
by this machine's nvcc, with its own headers (README.md, "What you need", says so).
"""
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "grader"))
import toolkit  # noqa: E402 (the floor, in one place)
import labs as lab_manifest  # noqa: E402 (the lab manifest, grader/labs.mk)

CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")
# cuobjdump and the nvdisasm it runs, as NVIDIA ships them on PyPI, for a toolkit without them
# (CUDA 13's wheels read what CUDA 13.0's nvcc writes).
CUOBJDUMP_WHEELS = (("nvidia-cuda-cuobjdump", "13.2.51"), ("nvidia-cuda-nvdisasm", "13.2.51"))
NVCC = os.environ.get("NVCC", os.path.join(CUDA_HOME, "bin", "nvcc"))


def run(command, cwd=ROOT, env=None, timeout=1800, unset=()):
    environment = {name: value for name, value in dict(os.environ, **(env or {})).items() if name not in unset}
    result = subprocess.run(command, cwd=cwd, env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=timeout)
    return result.returncode, result.stdout.decode("utf-8", "replace")


def labs():
    return lab_manifest.labs()


def refusals(work):
    """make refuses an older toolkit, GPU or CUDA_ARCH in one line that names what it found."""
    fake = os.path.join(work, "toolkit-stand-ins")
    shutil.rmtree(fake, ignore_errors=True)
    os.makedirs(os.path.join(fake, "old-gpu"))
    old_nvcc = os.path.join(fake, "nvcc")
    with open(old_nvcc, "w") as script:
        script.write("#!/bin/sh\necho 'Cuda compilation tools, release 11.8, V11.8.89'\n")
    with open(os.path.join(fake, "old-gpu", "nvidia-smi"), "w") as script:
        script.write("#!/bin/sh\necho 'Tesla P100-PCIE-16GB, 6.0'\n")
    for path in (old_nvcc, os.path.join(fake, "old-gpu", "nvidia-smi")):
        os.chmod(path, 0o755)
    cases = [
        ("an older toolkit", ["NVCC=" + old_nvcc], {}, "CUDA 11.8"),
        ("no toolkit", ["NVCC=" + os.path.join(fake, "none", "nvcc")], {}, "no CUDA compiler at"),
        ("an older GPU", [], {"PATH": os.path.join(fake, "old-gpu") + os.pathsep + os.environ.get("PATH", "")},
         "Tesla P100-PCIE-16GB, has compute capability 6.0"),
        ("an older CUDA_ARCH", ["CUDA_ARCH=60 90"], {}, "compute capability 60"),
    ]
    checks = []
    for description, arguments, env, named in cases:
        # build/results/results: the first thing ./grade builds; refused before anything is made.
        # Without CUDA_ARCH in the environment (make test sets it): the architectures are then
        # the GPU's that nvidia-smi names, as on a student's machine.
        status, output = run(["make", "-s", "--no-print-directory", *arguments, "build/results/results"], env=env,
                             unset=("CUDA_ARCH",))
        lines = [line for line in output.splitlines() if line.strip()]
        ok = status == 2 and len(lines) == 1 and named in lines[0]
        checks.append((f"make refuses {description} in one line naming it", "pass" if ok else "fail",
                       lines[0][:160] if ok else f"exit {status}: {output.strip()[-300:]}"))
    shutil.rmtree(fake, ignore_errors=True)
    return checks


def host_sources():
    """(source, extra flags) of every host .c that includes CUDA's headers, with the include
    folders the Makefile gives it."""
    sources = []
    base = ["-Icommon", "-Igrader/harness", "-Igrader/results", "-Igrader/crossing"]
    for path in sorted(glob.glob(os.path.join(ROOT, "common", "*.c"))):
        sources.append((os.path.relpath(path, ROOT), base))
    for folder in ("grader/harness", "grader/crossing"):
        for path in sorted(glob.glob(os.path.join(ROOT, folder, "*.c"))):
            if not path.endswith("crossings.c"):
                sources.append((os.path.relpath(path, ROOT), base))
    sources.append(("grader/gpu-probe.c", base))
    for path in sorted(glob.glob(os.path.join(ROOT, "grader", "unit", "*.c"))):
        sources.append((os.path.relpath(path, ROOT), base + ["-Ilabs/lab1-race", "-Ibench"]))
    for path in sorted(glob.glob(os.path.join(ROOT, "bench", "*.c"))):
        sources.append((os.path.relpath(path, ROOT), ["-Ibuild/generated/bench"] + base + ["-Ibench"]))
    for lab in labs():
        short = lab.split("-")[0]
        sources.append((f"labs/{lab}/demo.c", base + [f"-Ilabs/{lab}"]))
        sources.append((f"grader/{lab}/grade_{short}.c", [f"-Ibuild/generated/{lab}"] + base + [f"-Ilabs/{lab}"]))
    # The crossing's proxies and thunks, each side, as lab 5's and the baselines' lists make them.
    sides = {"student-proxies": "-DCROSSING_PROXIES -DCROSSING_TARGET=CROSSING_STUDENT -DCROSSING_PREFIX=",
             "reference-thunks": "-DCROSSING_TARGET=CROSSING_REFERENCE -DCROSSING_PREFIX=reference_"}
    for side, defines in sides.items():
        sources.append(("grader/crossing/crossings.c", base + ["-Ilabs/lab5-privatized", *defines.split(),
                        '-DCROSSING_LIST="../lab5-privatized/crossings.h"',
                        '-DCROSSING_DECLARATIONS="../../build/generated/reference/lab5-privatized.h"']))
    return sources


def compile_host_code(include):
    """The host code compiled (gcc -fsyntax-only) against the runtime headers in include."""
    release = toolkit.runtime_release(include)
    if release != toolkit.TOOLKIT_FLOOR:
        return [("the floor's headers are CUDA 12.0's", "fail", f"{include} holds CUDA {release}")]
    # A declaration the floor lacks is an error, not a warning: C would take it for an int function.
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror=implicit-function-declaration",
             "-Werror=incompatible-pointer-types", "-Werror=int-conversion", "-fsyntax-only",
             "-DKIT_CUDA_HOME=\"/usr/local/cuda\"", "-isystem", include]

    def one(source):
        path, extra = source
        return source, run(["gcc", *flags, *extra, path])

    sources = host_sources()
    # The headers the Makefile makes for them (references.h, the bench's contenders.h), as make all would.
    generated = [f"build/generated/{lab}/references.h" for lab in labs()] + \
        ["build/generated/bench/references.h", "build/generated/bench/contenders.h"]
    status, output = run(["make", "-s", "--no-print-directory", *generated])
    if status != 0:
        return [("the host code compiles against CUDA 12.0's runtime headers", "fail",
                 f"make of its generated headers failed: {output.strip()[-200:]}")]
    missing = [path for path, _ in sources if not os.path.isfile(os.path.join(ROOT, path))]
    if missing:
        return [("the host code compiles against CUDA 12.0's runtime headers", "fail", f"no file {missing[0]}")]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(one, sources))
    failed = [(path, output) for (path, _), (status, output) in results if status != 0]
    detail = f"{len(sources)} compiles"
    if failed:
        first = next((line for line in failed[0][1].splitlines() if "error" in line), failed[0][1][:200])
        detail = f"{len(failed)} of {len(sources)} do not; first: {first.strip()[:240]}"
    return [(f"the host code compiles against CUDA {release[0]}.{release[1]}'s runtime headers",
             "fail" if failed else "pass", detail)]


def device_sources():
    """Every .cu of the kit, with the include folders its compile needs."""
    sources = []
    for lab in labs():
        short = lab.split("-")[0]
        for folder in ("labs", "solutions"):
            path = f"{folder}/{lab}/{short}.cu"
            if os.path.isfile(os.path.join(ROOT, path)):
                sources.append((path, ["-Icommon", f"-Ilabs/{lab}"]))
        if os.path.isfile(os.path.join(ROOT, "labs", lab, "primer.cu")):
            sources.append((f"labs/{lab}/primer.cu", ["-Icommon"]))
    for path in sorted(glob.glob(os.path.join(ROOT, "common", "*.cu"))):
        sources.append((os.path.relpath(path, ROOT), ["-Icommon"]))
    sources.append(("grader/crossing/baselines.cu", ["-Icommon", "-Igrader/crossing"]))
    sources.append(("bench/lessons.cu", ["-Icommon", "-Ibench"]))
    return sources


def runtime_names(include):
    """Every CUDA runtime name (cudaX) the .cu files use that the floor's headers do not declare."""
    declared = set()
    for header in glob.glob(os.path.join(include, "*.h")) + glob.glob(os.path.join(include, "*.hpp")):
        with open(header, errors="replace") as file:
            declared.update(re.findall(r"\bcuda[A-Z]\w*", file.read()))
    used = {}
    for path, _ in device_sources():
        with open(os.path.join(ROOT, path), errors="replace") as file:
            text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", file.read(), flags=re.S)
        for name in re.findall(r"\bcuda[A-Z]\w*", text):
            used.setdefault(name, path)
    missing = sorted((name, path) for name, path in used.items() if name not in declared)
    return [("every CUDA runtime name of the .cu files is in CUDA 12.0's headers",
             "fail" if missing else "pass",
             f"not there: {', '.join(f'{n} ({p})' for n, p in missing[:5])}" if missing else f"{len(used)} names")]


def kernels_for_oldest_gpu(work):
    """Every .cu compiled for the oldest GPU the kit supports (device code only: -cubin)."""
    arch = toolkit.ARCH_FLOOR
    out = os.path.join(work, "sm_%d" % arch)
    os.makedirs(out, exist_ok=True)

    def one(source):
        path, extra = source
        cubin = os.path.join(out, path.replace("/", "_") + ".cubin")
        return path, run([NVCC, "-std=c++17", "-cubin", "-gencode", f"arch=compute_{arch},code=sm_{arch}",
                          *extra, path, "-o", cubin])

    sources = device_sources()
    with concurrent.futures.ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        results = list(pool.map(one, sources))
    failed = [(path, output) for path, (status, output) in results if status != 0]
    first = ""
    if failed:
        first = next((line for line in failed[0][1].splitlines() if "error" in line), failed[0][1][:200])
    return [(f"every .cu compiles for sm_{arch}", "fail" if failed else "pass",
             f"{len(failed)} of {len(sources)} do not: {failed[0][0]}: {first.strip()[:200]}" if failed
             else f"{len(sources)} files")]


def cuda12_launch(work, gpu):
    """A copy of the kit built with KIT_LEGACY_LAUNCH=1 grades lab 5's reference."""
    copy = os.path.join(work, "cuda12-launch")
    shutil.rmtree(copy, ignore_errors=True)
    os.makedirs(copy)
    for part in ("Makefile", "grade", "common", "grader", "labs", "solutions"):
        source = os.path.join(ROOT, part)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(copy, part), ignore=shutil.ignore_patterns("tests", "__pycache__"))
        else:
            shutil.copy2(source, os.path.join(copy, part))
    arch = os.environ.get("CUDA_ARCH", "")
    build = ["make", "-s", "--no-print-directory", f"-j{min(8, os.cpu_count() or 1)}", "KIT_LEGACY_LAUNCH=1",
             *([f"CUDA_ARCH={arch}"] if arch else []), "solution-lab5"]
    status, output = run(build, cwd=copy)
    if status != 0:
        return [("a kit built as CUDA 12 builds it grades lab 5's reference", "fail",
                 f"the build failed (exit {status}): {output.strip()[-300:]}")]
    summary = os.path.join(work, "cuda12-launch.summary.json")
    if os.path.exists(summary):
        os.remove(summary)
    status, output = run(["./grade", "lab5", "--solution", "--no-timing", "--seed", "12345", "--summary", summary],
                         cwd=copy, env={"KIT_LEGACY_LAUNCH": "1"})
    try:
        with open(summary) as file:
            verdict = json.load(file)
    except (OSError, ValueError):
        verdict = {}
    if gpu:
        ok = status == 0 and verdict.get("verdict") == "passed"
    else:
        ok = status == 3 and verdict.get("tests_failed") == 0 and verdict.get("tests_passed", 0) >= 1
    detail = f"exit {status}, verdict {verdict.get('verdict')}, {verdict.get('tests_passed')} passed"
    if not gpu and ok:
        detail += " (the CPU's tests; with a GPU, the technique test reads the kernels cuFuncGetName names)"
    shutil.rmtree(copy, ignore_errors=True)
    return [("a kit built as CUDA 12 builds it grades lab 5's reference", "pass" if ok else "fail", detail)]


def wheel_tools(cache):
    """A folder holding cuobjdump and nvdisasm from NVIDIA's wheels (downloaded into cache once),
    or (None, why not)."""
    import zipfile
    tools = os.path.join(cache, "cuobjdump-bin")
    if all(os.access(os.path.join(tools, tool), os.X_OK) for tool in ("cuobjdump", "nvdisasm")):
        return tools, None
    os.makedirs(tools, exist_ok=True)
    for name, version in CUOBJDUMP_WHEELS:
        prefix = name.replace("-", "_") + f"-{version}-"
        wheels = [f for f in os.listdir(cache) if f.startswith(prefix) and f.endswith(".whl")]
        if not wheels:
            status, output = run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                                  "--disable-pip-version-check", "--dest", cache, f"{name}=={version}"])
            wheels = [f for f in os.listdir(cache) if f.startswith(prefix) and f.endswith(".whl")]
            if status != 0 or not wheels:
                return None, f"pip download {name}=={version} failed: {output.strip()[-200:]}"
        with zipfile.ZipFile(os.path.join(cache, wheels[0])) as wheel:
            for member in wheel.namelist():
                if member.endswith(("/bin/cuobjdump", "/bin/nvdisasm")):
                    target = os.path.join(tools, os.path.basename(member))
                    with wheel.open(member) as source, open(target, "wb") as out:
                        shutil.copyfileobj(source, out)
                    os.chmod(target, 0o755)
    if not all(os.access(os.path.join(tools, tool), os.X_OK) for tool in ("cuobjdump", "nvdisasm")):
        return None, "the wheels hold no bin/cuobjdump and bin/nvdisasm"
    return tools, None


def technique_without_gpu(work):
    """The technique check's static part, with no GPU to run the functions (CUDA_VISIBLE_DEVICES
    hides one that is here)."""
    have = os.access(os.path.join(CUDA_HOME, "bin", "cuobjdump"), os.X_OK)
    env = {"CUDA_VISIBLE_DEVICES": ""}
    if not have:
        tools, why_not = wheel_tools(os.path.join(ROOT, "build", "toolkit-floor"))
        if not tools:
            return [("without a GPU, the technique check's static part runs", "fail" if os.environ.get("CI") else "skip",
                     why_not)]
        env["PATH"] = tools + os.pathsep + os.environ.get("PATH", "")
    results = []
    for role, want in ((["--solution"], "passes"), ([], "fails")):
        summary = os.path.join(work, f"technique-static-{want}.json")
        if os.path.exists(summary):
            os.remove(summary)
        # The technique test of part B: part C's (merge_by_reduction) needs a GPU before it starts.
        test_name = "technique/private_bins_in_shared_memory"
        status, output = run(["./grade", "lab5", *role, "--no-timing", "--seed", "12345", "--filter", test_name,
                              "--json", summary], env=env)
        try:
            with open(summary) as file:
                test = next(t for t in json.load(file).get("tests", []) if t["name"] == test_name)
        except (OSError, ValueError, StopIteration):
            test = {}
        said = test.get("output", "")
        if want == "passes":
            ok = status == 3 and "static part passed" in said
        else:
            ok = status == 1 and test.get("status") == "failed" and "technique missing" in said and "ATOMS" in said
        who = "lab 5's reference" if role else "lab 5's skeleton"
        results.append((f"without a GPU, {who} {want} the technique's static part", "pass" if ok else "fail",
                        f"exit {status}: {said[:160]}"))
    return results


def checks(work, gpu):
    """Every check of the part, in order."""
    results = refusals(work)
    include, why_not = toolkit.floor_headers(os.path.join(ROOT, "build", "toolkit-floor"))
    if include:
        results += compile_host_code(include)
        results += runtime_names(include)
    else:
        name, version = toolkit.FLOOR_RUNTIME_WHEEL
        results.append((f"the host code against the floor's runtime headers ({name} {version})",
                        "fail" if os.environ.get("CI") else "skip", why_not))
    results += kernels_for_oldest_gpu(work)
    results += cuda12_launch(work, gpu)
    results += technique_without_gpu(work)
    return results
