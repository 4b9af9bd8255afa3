#!/usr/bin/env python3
"""make gradescope: one autograder bundle a lab, build/gradescope/<lab>.zip, to upload as a
Gradescope programming assignment's autograder: setup.sh and run_autograder at the top (as
Gradescope wants them), autograde.py, the lab's name, and the student tarball of make dist
(build/dist/cuda-histogram-labs.tar.gz, which must be made first: make gradescope does), and
the points file Gradescope scores by: POINTS (a course's, as ./grade-class --points takes it),
else grader/points.conf."""
import os
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "grader"))
import labs as lab_manifest  # noqa: E402 (the lab manifest, grader/labs.mk)
HERE = os.path.join(ROOT, "grader", "gradescope")
TARBALL = os.path.join(ROOT, "build", "dist", "cuda-histogram-labs.tar.gz")
OUT = os.path.join(ROOT, "build", "gradescope")


def add(bundle, name, data, executable):
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, data)


def main():
    if not os.path.isfile(TARBALL):
        print(f"make gradescope: no {os.path.relpath(TARBALL, ROOT)}: run make dist first", file=sys.stderr)
        return 2
    points = os.environ.get("POINTS") or os.path.join(ROOT, "grader", "points.conf")
    try:
        with open(points, "rb") as file:
            points_text = file.read()
    except OSError as error:
        print(f"make gradescope: POINTS: cannot read '{points}': {error.strerror}", file=sys.stderr)
        return 2
    labs = lab_manifest.labs()
    os.makedirs(OUT, exist_ok=True)
    with open(TARBALL, "rb") as file:
        kit = file.read()
    for lab in labs:
        path = os.path.join(OUT, f"{lab}.zip")
        with zipfile.ZipFile(path + ".partial", "w") as bundle:
            for name, executable in (("setup.sh", True), ("run_autograder", True), ("autograde.py", True)):
                with open(os.path.join(HERE, name), "rb") as file:
                    add(bundle, name, file.read(), executable)
            add(bundle, "lab", lab + "\n", False)
            add(bundle, "points.conf", points_text, False)
            add(bundle, "kit.tar.gz", kit, False)
        os.replace(path + ".partial", path)
    print(f"make gradescope: {len(labs)} bundles in {os.path.relpath(OUT, ROOT)}/, scored by {points} (one a lab: upload <lab>.zip as the assignment's autograder)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
