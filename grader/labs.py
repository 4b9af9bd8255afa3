#!/usr/bin/env python3
"""The lab manifest, grader/labs.mk, for the kit's Python tools: the labs in order and what each
entry says of them. The Makefile includes the same file; ./grade reads it with sed. Python 3's
standard library only (the student tarball ships this).

  python3 grader/labs.py                 the labs, one a line, in order
  python3 grader/labs.py --check         exit 1, naming each, when the manifest and the folders
                                         disagree (a lab without its folders, a folder of labs/
                                         not in the manifest, an entry of no lab)
  python3 grader/labs.py --bench-header  the contenders of make bench, as C (the Makefile writes
                                         build/generated/bench/contenders.h from it)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join("grader", "labs.mk")
NAME = re.compile(r"lab[0-9]+-[A-Za-z0-9-]+")
KEYS = ("references", "sanitize", "bench", "main_loops", "limits")
BENCH_KINDS = ("letters", "pixels")


class ManifestError(Exception):
    pass


def read(root=ROOT):
    """(labs in order, {lab: {key: value}}) of ROOT's manifest."""
    with open(os.path.join(root, MANIFEST), encoding="utf-8") as file:
        return parse(file.read())


def parse(text):
    """(labs in order, {lab: {key: value}}) of a manifest's text."""
    text = text.replace("\\\n", " ")
    labs, entries = [], {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(\+=|:=)\s*(.*)", line)
        if not match or "$" in line:
            raise ManifestError(f"{MANIFEST}: line {number}: not 'NAME := value' or 'LABS += lab': {line}")
        name, operator, value = match.group(1), match.group(2), " ".join(match.group(3).split())
        if name == "LABS" and operator == "+=":
            for lab in value.split():
                if not NAME.fullmatch(lab) or lab in labs:
                    raise ManifestError(f"{MANIFEST}: line {number}: '{lab}' is not a new lab name labN-words")
                labs.append(lab)
                entries.setdefault(lab, {})
            continue
        lab, _, key = name.rpartition(".")
        if operator != ":=" or lab not in labs or key not in KEYS:
            raise ManifestError(f"{MANIFEST}: line {number}: '{name} {operator}' is not a key "
                                f"({', '.join(KEYS)}) of a lab listed above it")
        entries[lab][key] = value
    for lab in labs:
        for key in ("references", "sanitize"):
            if not entries[lab].get(key):
                raise ManifestError(f"{MANIFEST}: {lab} has no {key}")
    return labs, entries


def labs(root=ROOT):
    """The labs, in the manifest's order."""
    return read(root)[0]


def short(lab):
    """lab5-privatized -> lab5"""
    return lab.split("-")[0]


def named(name, root=ROOT):
    """The lab NAME names (its full or its short name), or None."""
    return next((lab for lab in labs(root) if name in (lab, short(lab))), None)


def value(lab, key, root=ROOT):
    """What LAB's entry says of KEY ('' when nothing)."""
    return read(root)[1].get(lab, {}).get(key, "")


def bench_contenders(root=ROOT):
    """[(lab, kind, function, label)] of make bench, in the labs' order."""
    found = []
    all_labs, entries = read(root)
    for lab in all_labs:
        for item in filter(None, (part.strip() for part in entries[lab].get("bench", "").split(";"))):
            words = item.split(None, 2)
            if len(words) < 3 or words[0] not in BENCH_KINDS or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", words[1]):
                raise ManifestError(f"{MANIFEST}: {lab}.bench: '{item}' is not KIND FUNCTION LABEL "
                                    f"(KIND {' or '.join(BENCH_KINDS)})")
            found.append((lab, words[0], words[1], words[2]))
    return found


def bench_header(root=ROOT):
    lines = [f"/* Made from {MANIFEST} by grader/labs.py: what make bench times of each lab. */"]
    for lab, kind, function, label in bench_contenders(root):
        escaped = label.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'BENCH_{kind.upper()}("{escaped}", {function}) /* {lab} */')
    return "\n".join(lines) + "\n"


def problems(root=ROOT):
    """What disagrees between the manifest and the folders, one line each."""
    found = []
    try:
        listed, entries = read(root)
        bench_contenders(root)
    except (OSError, ManifestError) as error:
        return [str(error)]
    repository = os.path.isdir(os.path.join(root, "solutions"))
    for lab in listed:
        number = short(lab)
        needed = [f"labs/{lab}/{number}.cu", f"labs/{lab}/{number}.h", f"labs/{lab}/demo.c",
                  f"grader/{lab}/grade_{number}.c", f"grader/{lab}/crossings.h"]
        if repository:
            needed.append(f"solutions/{lab}/{number}.cu")
        found += [f"{lab}: no {path}" for path in needed if not os.path.isfile(os.path.join(root, path))]
        found += [f"{lab}.references: no lab {other}" for other in entries[lab]["references"].split()
                  if other not in listed]
        if short(lab) in (short(other) for other in listed[:listed.index(lab)]):
            found.append(f"{lab}: a second lab named {number}")
    for folder in ("labs", "solutions", "grader", "grader/variants", "grader/exploits"):
        path = os.path.join(root, folder)
        for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
            if NAME.fullmatch(name) and os.path.isdir(os.path.join(path, name)) and name not in listed:
                found.append(f"{folder}/{name}: a lab's folder, but {MANIFEST} does not list {name}")
    return found


def main(argv):
    try:
        if argv[:1] == ["--check"] and (len(argv) == 1 or (len(argv) == 3 and argv[1] == "--root")):
            found = problems(argv[2] if len(argv) == 3 else ROOT)
            for line in found:
                print(f"labs: {line}", file=sys.stderr)
            return 1 if found else 0
        if argv == ["--bench-header"]:
            sys.stdout.write(bench_header())
            return 0
        if not argv:
            print("\n".join(labs()))
            return 0
    except (OSError, ManifestError) as error:
        print(f"labs: {error}", file=sys.stderr)
        return 2
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
