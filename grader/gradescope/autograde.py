#!/usr/bin/env python3
"""Gradescope's run_autograder for one lab of the kit: finds the student's file among what
they uploaded by its content (the file that defines the lab's functions, whatever its name),
grades it with the kit's own ./grade, and writes /autograder/results/results.json through the
kit's results model, for every outcome: graded, not compiling, or no file that could be the
lab. Gradescope has no GPU: the GPU tests are listed as not run, and what students see says that
they are graded on the course's GPU machines.

The layout is Gradescope's (/autograder/source holds this bundle, /autograder/submission the
upload, /autograder/results the results); AUTOGRADER_ROOT moves all three, for testing.
"""
import os
import re
import shutil
import stat
import subprocess
import sys

ROOT = os.environ.get("AUTOGRADER_ROOT", "/autograder")
SOURCE = os.path.join(ROOT, "source")
KIT = os.path.join(SOURCE, "kit")
SUBMISSION = os.path.join(ROOT, "submission")
RESULTS = os.path.join(ROOT, "results", "results.json")
# The points file the bundle was made with (make gradescope POINTS=...): the course's.
POINTS = os.path.join(SOURCE, "points.conf")
FILE_CAP = 1 << 20


def lab_of_bundle():
    with open(os.path.join(SOURCE, "lab"), encoding="utf-8") as file:
        return file.read().strip()


def contract_functions(lab, short):
    """The functions a submission of the lab defines: those its contract header declares."""
    with open(os.path.join(KIT, "labs", lab, f"{short}.h"), encoding="utf-8") as file:
        header = file.read()
    return sorted(set(re.findall(rf"\b({short}_[A-Za-z0-9_]+)\s*\(", header)))


def candidates():
    """Every regular file of the upload (links are never followed), with its path shown
    relative to the upload."""
    found = []
    for folder, folders, files in os.walk(SUBMISSION, followlinks=False):
        folders.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                found.append((os.path.relpath(path, SUBMISSION), path, st.st_size))
    return found


def without_comments(text):
    """The text with its // and /* */ comments blanked: a comment after a signature, or a
    semicolon in one, must not hide a definition (a red team's upload: the draft was graded)."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def defines(text, function):
    """Whether the text defines the function: a declaration, then its body (with anything but
    a ';' between, noexcept say)."""
    return re.search(rf"\b{re.escape(function)}\s*\([^;{{}}]*\)[^;{{}}]*\{{", without_comments(text)) is not None


def find_submission(short, functions):
    """(path, None) of the one file named labN.cu, wherever it is in the upload; otherwise of the
    one file that defines the most of the lab's functions; or (None, why no file could be
    graded)."""
    files = candidates()
    named = [(shown, path) for shown, path, size in files
             if os.path.basename(shown) == f"{short}.cu" and size <= FILE_CAP]
    if len(named) == 1:
        return named[0][1], None
    scored = []
    for shown, path, size in files:
        if size > FILE_CAP:
            continue
        with open(path, "rb") as file:
            text = file.read().decode("utf-8", "replace")
        count = sum(defines(text, f) for f in functions)
        if count:
            scored.append((count, shown, path))
    if not scored:
        names = ", ".join(shown for shown, _, _ in files[:5]) or "nothing"
        return None, (f"no file of the upload defines {short}'s functions ({', '.join(functions)}); "
                      f"it holds: {names}. Upload your {short}.cu")
    best = max(count for count, _, _ in scored)
    chosen = [(shown, path) for count, shown, path in scored if count == best]
    if len(chosen) > 1:
        named = [c for c in chosen if os.path.basename(c[0]) == f"{short}.cu"]
        if len(named) != 1:
            return None, (f"several files define {short}'s functions ({', '.join(s for s, _ in chosen[:5])}): "
                          f"upload only your {short}.cu")
        chosen = named
    return chosen[0][1], None


def main():
    lab = lab_of_bundle()
    short = lab.split("-")[0]
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    path, why = find_submission(short, contract_functions(lab, short))
    if path is None:
        print(f"autograder: {why}")
        results = os.path.join(KIT, "build", "results", "results")
        listing = os.path.join(KIT, "build", "listing", lab, "tests.records")
        subprocess.run(["make", "-s", "--no-print-directory", "-C", KIT, "build/results/results",
                        f"build/listing/{lab}/tests.records"], check=True)
        status = subprocess.run([results, "grade", "--lab", lab, "--points", POINTS, "--records", listing,
                                 "--no-file", why, "--json", RESULTS]).returncode
        return 0 if os.path.isfile(RESULTS) else status or 1
    # Graded from a copy under a plain name: the upload's own names may hold anything.
    copy = os.path.join(SOURCE, "graded", f"{short}.cu")
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    shutil.copyfile(path, copy)
    print(f"autograder: grading {os.path.relpath(path, SUBMISSION)} as {short}.cu")
    status = subprocess.run(["./grade", short, "--file", copy, "--points", POINTS, "--json", RESULTS],
                            cwd=KIT).returncode
    # Gradescope takes results.json whatever the exit status; one is written for every
    # verdict. Without it (the machine itself is broken), exit non-zero so Gradescope says so.
    return 0 if os.path.isfile(RESULTS) else status or 1


if __name__ == "__main__":
    sys.exit(main())
