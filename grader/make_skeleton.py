#!/usr/bin/env python3
"""The skeletons are made from the solutions: labs/LAB/labN.cu from solutions/LAB/labN.cu.

The solution is the one source of a lab's code. It compiles as the reference as it stands; two
kinds of comment lines in it say what the student's skeleton holds instead:

    // BEGIN SOLUTION        the lines between these two are the solution's only: the skeleton
    ...                      drops them (the markers too)
    // END SOLUTION
    // SKELETON: text        the skeleton has `text` here, at the comment's indentation; the
                             solution has only the comment. "// SKELETON:" alone is an empty line.

Every other line is in both, the TODOs among them: a TODO states its task's goal and what the
grader checks, right above the solution's answer. A marker is a line of its own; a SKELETON
line inside a solution block, a block left open, or an END without its BEGIN is an error.

usage: make_skeleton.py [--check] [LAB ...]
  writes labs/LAB/labN.cu for each LAB (default: every lab with a solution); with --check,
  writes nothing and lists each skeleton that differs from what its solution makes (exit 1).
Exit status: 0 done (or all up to date), 1 a skeleton differs (--check), 2 bad usage or markers.
"""
import argparse
import os
import re
import sys

import labs  # the lab manifest, grader/labs.mk (beside this file)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = re.compile(r"^\s*// BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
SKELETON = re.compile(r"^(\s*)// SKELETON:(?: (.*))?$")
# A marker's words anywhere else (a typo, a trailing comment): refused rather than kept.
LOOSE = re.compile(r"\b(BEGIN SOLUTION|END SOLUTION|SKELETON:)")


class MarkerError(Exception):
    pass


def skeleton_of(text, name):
    """The skeleton's text, made from a solution's text; name is the solution's path, for errors."""
    lines, inside, opened = [], False, 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        bare = line.rstrip("\n")
        if BEGIN.match(bare):
            if inside:
                raise MarkerError(f"{name}:{number}: BEGIN SOLUTION inside the block opened at line {opened}")
            inside, opened = True, number
            continue
        if END.match(bare):
            if not inside:
                raise MarkerError(f"{name}:{number}: END SOLUTION without a BEGIN SOLUTION before it")
            inside = False
            continue
        skeleton = SKELETON.match(bare)
        if skeleton:
            if inside:
                raise MarkerError(f"{name}:{number}: a SKELETON line inside the solution block opened at line {opened}")
            text_of_line = skeleton.group(2) or ""
            lines.append(skeleton.group(1) + text_of_line + "\n" if text_of_line else "\n")
            continue
        if LOOSE.search(bare):
            raise MarkerError(f"{name}:{number}: a marker must be a line of its own: {bare.strip()}")
        if not inside:
            lines.append(line)
    if inside:
        raise MarkerError(f"{name}:{opened}: BEGIN SOLUTION never ended (END SOLUTION)")
    return "".join(lines)


def labs_with_solutions(root):
    """The labs of the manifest (grader/labs.mk) whose solution is here, in its order."""
    if not os.path.isdir(os.path.join(root, "solutions")):
        return []
    return [lab for lab in labs.labs(root) if os.path.isfile(paths(root, lab)[0])]


def paths(root, lab):
    short = lab.split("-")[0]
    return (os.path.join(root, "solutions", lab, short + ".cu"),
            os.path.join(root, "labs", lab, short + ".cu"))


def main(argv=None):
    parser = argparse.ArgumentParser(description="make the labs' skeletons from their solutions")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a skeleton differs")
    parser.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("labs", nargs="*", metavar="LAB")
    args = parser.parse_args(argv)
    known = labs_with_solutions(args.root)
    if not known:
        print("make_skeleton: no solutions/ here: the skeletons are made in the kit's repository, "
              "from its solutions", file=sys.stderr)
        return 2
    chosen = []
    for lab in args.labs or known:
        matches = [name for name in known if lab in (name, name.split("-")[0])]
        if not matches:
            print(f"make_skeleton: no solution of '{lab}' (there are: {' '.join(known)})", file=sys.stderr)
            return 2
        chosen += matches
    differing = []
    for lab in chosen:
        solution, skeleton = paths(args.root, lab)
        with open(solution, encoding="utf-8") as source:
            try:
                made = skeleton_of(source.read(), os.path.relpath(solution, args.root))
            except MarkerError as error:
                print(f"make_skeleton: {error}", file=sys.stderr)
                return 2
        current = open(skeleton, encoding="utf-8").read() if os.path.exists(skeleton) else None
        if current == made:
            continue
        if args.check:
            differing.append(os.path.relpath(skeleton, args.root))
        else:
            with open(skeleton, "w", encoding="utf-8") as out:
                out.write(made)
            print(f"make_skeleton: wrote {os.path.relpath(skeleton, args.root)}")
    if differing:
        print(f"make_skeleton: not what the solution makes: {', '.join(differing)}; edit the "
              "solution (solutions/LAB/labN.cu), then run python3 grader/make_skeleton.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
