#!/usr/bin/env python3
"""./grade LAB --hint: the next hint of the first TODO your gradings have not shown solved.

A lab's hints are in labs/LAB/hints.md: a section a TODO, "## TODO N: what it is about" (or a
section for TODOs done together, "## TODO N-M: ..."), whose line "tests: PATTERN ..." names the
grader's tests that pass once it is done (shell patterns over "suite/test"), then its hints,
"### the idea", "### the API", "### the shape of the code", from the least to the most given
away. A TODO is solved when every test its patterns match passed in
the latest grading of your own code that ran it: ./grade keeps each grading's TAP report in
build/hints/LAB/last-grading.tap, and this remembers, in build/hints/LAB/state.json, the outcome
of each test and how many hints of each TODO you have seen. A hint is shown only when asked for,
one at a time.

usage: hints.py LAB [--todo N]      the next hint (of TODO N)
       hints.py --check             every lab's hints.md against its skeleton's TODOs and, where
                                    the lab's test list is built, its grader's tests
Exit status: 0 done, 1 a hints file is wrong (--check), 2 bad usage or no hints for the lab.
"""
import argparse
import fnmatch
import json
import os
import re
import sys

import labs  # the lab manifest, grader/labs.mk (beside this file)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TODO_HEADING = re.compile(r"^## TODO (\d+)(?:-(\d+))?: (.+?)\s*$")
HINT_HEADING = re.compile(r"^### (.+?)\s*$")
TESTS_LINE = re.compile(r"^tests:\s*(.*?)\s*$")
TAP_LINE = re.compile(r"^(ok|not ok) \d+ - (\S+)( # SKIP.*)?$")
NOT_RUN_LINE = re.compile(r"^\s*# not run\b")
SKELETON_TODO = re.compile(r"//\s*TODO (\d+)\b")


class HintsError(Exception):
    pass


def parse_hints(text, name):
    """{first TODO: {"title", "todos": [numbers], "tests": [patterns], "hints": [(title, text)]}}
    from a hints.md: a section a TODO, or a range of TODOs."""
    todos, todo, hint, covered = {}, None, None, set()
    for number, line in enumerate(text.splitlines(), 1):
        heading = TODO_HEADING.match(line)
        if heading:
            first = int(heading.group(1))
            last = int(heading.group(2) or first)
            numbers = list(range(first, last + 1))
            if not numbers or covered & set(numbers):
                raise HintsError(f"{name}:{number}: TODO {first} is in no range, or in two sections")
            covered |= set(numbers)
            todo = todos[first] = {"title": heading.group(3), "todos": numbers, "tests": [],
                                   "hints": []}
            hint = None
            continue
        if todo is None:
            continue
        tests = TESTS_LINE.match(line)
        if tests and hint is None:
            todo["tests"] = tests.group(1).split()
            continue
        heading = HINT_HEADING.match(line)
        if heading:
            hint = [heading.group(1), []]
            todo["hints"].append(hint)
            continue
        if hint is not None:
            hint[1].append(line)
    for todo_number, todo in todos.items():
        todo["hints"] = [(title, "\n".join(lines).strip("\n")) for title, lines in todo["hints"]]
        if not todo["tests"]:
            raise HintsError(f"{name}: TODO {todo_number} has no 'tests:' line")
        if not todo["hints"] or any(not text for _, text in todo["hints"]):
            raise HintsError(f"{name}: TODO {todo_number} has no hint, or an empty one")
    return todos


def lab_named(root, name):
    return labs.named(name, root)


def tap_outcomes(path):
    """{test: "passed" | "failed" | "not run"} of a TAP report that ./grade wrote: a test that
    could not run is "not ok", its next line "# not run: why" (grader/results/reports.c: no
    report calls it a pass)."""
    outcomes, last = {}, None
    with open(path, encoding="utf-8", errors="replace") as report:
        for line in report:
            line = line.rstrip("\n")
            match = TAP_LINE.match(line)
            if match:
                last = match.group(2)
                outcomes[last] = ("not run" if match.group(3) else
                                  "passed" if match.group(1) == "ok" else "failed")
            elif last and outcomes[last] == "failed" and NOT_RUN_LINE.match(line):
                outcomes[last] = "not run"
            else:
                last = None
    return outcomes


def load_state(folder):
    try:
        with open(os.path.join(folder, "state.json"), encoding="utf-8") as file:
            state = json.load(file)
        if isinstance(state, dict):
            return {"tap_time": state.get("tap_time", 0), "tests": dict(state.get("tests", {})),
                    "seen": dict(state.get("seen", {}))}
    except (OSError, ValueError):
        pass
    return {"tap_time": 0, "tests": {}, "seen": {}}


def save_state(folder, state):
    os.makedirs(folder, exist_ok=True)
    partial = os.path.join(folder, "state.json.new")
    with open(partial, "w", encoding="utf-8") as file:
        json.dump(state, file, indent=1, sort_keys=True)
    os.replace(partial, os.path.join(folder, "state.json"))


def matching(patterns, tests):
    return sorted(test for test in tests if any(fnmatch.fnmatchcase(test, p) for p in patterns))


def section_of(todos, number):
    """The first TODO of the section that holds TODO number, or None."""
    return next((first for first, todo in todos.items() if number in todo["todos"]), None)


def todo_name(todo):
    numbers = todo["todos"]
    return f"TODO {numbers[0]}" if len(numbers) == 1 else f"TODOs {numbers[0]} to {numbers[-1]}"


def unsolved(todos, outcomes):
    """(section, why, failed) of every TODO whose tests have not all passed, in order: failed
    when the last grading failed one of them, not when they were not run (no GPU here) or never
    graded."""
    for number in sorted(todos):
        tests = matching(todos[number]["tests"], outcomes)
        if not tests:
            yield number, "the first TODO not yet done: your gradings have not run its tests", False
            continue
        failed = [test for test in tests if outcomes[test] == "failed"]
        not_run = [test for test in tests if outcomes[test] == "not run"]
        if failed:
            more = f" and {len(failed) - 1} more of its tests" if len(failed) > 1 else ""
            yield (number, f"the first TODO not yet done: your last grading failed {failed[0]}{more}",
                   True)
        elif not_run:
            yield number, (f"the first TODO not yet shown done: {not_run[0]} was not run (a GPU "
                           "test, on a machine without one?)"), False


ALL_SEEN = "all seen"  # next_to_hint: every TODO not shown done has shown all its hints


def failed_in_last_grading(todo, outcomes):
    return any(outcomes[test] == "failed" for test in matching(todo["tests"], outcomes))


def next_to_hint(todos, outcomes, seen):
    """(section, why) of the TODO whose hint comes next, or (None, None) when every TODO is
    shown done. It is the first TODO not shown done, unless every hint of it has been seen and
    no grading failed it (its tests not run, on a machine without a GPU): then the next such
    TODO with hints left, so that a student without a GPU is not held at one TODO; (ALL_SEEN,
    None) when there is none."""
    passed_over = []
    for number, why, failed in unsolved(todos, outcomes):
        if failed or seen.get(str(number), 0) < len(todos[number]["hints"]):
            if passed_over:
                names = " and ".join(todo_name(todos[n]) for n in passed_over)
                why = (f"every hint of {names} is seen and no grading here has run their tests: "
                       "the next TODO not yet shown done")
            return number, why
        passed_over.append(number)
    return (ALL_SEEN, None) if passed_over else (None, None)


def show_hint(lab, todo_choice, root):
    short = lab.split("-")[0]
    path = os.path.join(root, "labs", lab, "hints.md")
    if not os.path.exists(path):
        print(f"grade: {short} has no hints (no {os.path.relpath(path, root)})", file=sys.stderr)
        return 2
    with open(path, encoding="utf-8") as file:
        todos = parse_hints(file.read(), os.path.relpath(path, root))
    folder = os.path.join(root, "build", "hints", lab)
    state = load_state(folder)
    tap = os.path.join(folder, "last-grading.tap")
    if os.path.exists(tap) and os.path.getmtime(tap) != state["tap_time"]:
        state["tests"].update(tap_outcomes(tap))
        state["tap_time"] = os.path.getmtime(tap)
    if todo_choice is not None:
        number = section_of(todos, todo_choice)
        if number is None:
            every = sorted(n for todo in todos.values() for n in todo["todos"])
            print(f"grade: {short} has no TODO {todo_choice} (its TODOs: "
                  f"{', '.join(str(n) for n in every)})", file=sys.stderr)
            return 2
        why = "as asked"
    else:
        number, why = next_to_hint(todos, state["tests"], state["seen"])
        if number == ALL_SEEN:
            print(f"{short}: you have seen every hint of every TODO that your gradings have not "
                  f"shown done (no grading here has run their tests: no GPU?). ./grade {short} "
                  f"--hint=N shows TODO N's again, from the first; rm -r build/hints/{lab} "
                  "forgets which you have seen.")
            save_state(folder, state)
            return 0
        if number is None:
            print(f"{short}: your last gradings passed the tests of every TODO: no hint needed. "
                  f"./grade {short} --hint=N shows the hints of TODO N.")
            save_state(folder, state)
            return 0
    todo = todos[number]
    seen = state["seen"].get(str(number), 0)
    # Asked for by number once all are seen, the hints start again from the first.
    if todo_choice is not None and seen >= len(todo["hints"]):
        seen = 0
    index = min(seen, len(todo["hints"]) - 1)
    title, text = todo["hints"][index]
    state["seen"][str(number)] = index + 1
    save_state(folder, state)
    print(f"{short}, {todo_name(todo)} ({todo['title']}), hint {index + 1} of {len(todo['hints'])}: "
          f"{title}\n({why})")
    if todo_choice is None and not failed_in_last_grading(todo, state["tests"]):
        # No grading has shown where the student is (no GPU, say): they may be past this TODO.
        print(f"(No grading of yours has shown this TODO wrong: if you are past it, ./grade {short} --hint=N "
              "gives the hints of TODO N.)")
    print()
    print(text)
    if index + 1 < len(todo["hints"]):
        print(f"\nThe next one, {todo['hints'][index + 1][0]}: ./grade {short} --hint"
              + (f"={number}" if todo_choice is not None else "") + " again, when you need it.")
    else:
        later = [n for n in sorted(todos) if n > number]
        print(f"\nThat was the last hint of {todo_name(todo)}."
              + (f" The hints of the next one: ./grade {short} --hint={later[0]}" if later else ""))
    return 0


def listed_tests(root, lab):
    """The tests of a lab's grader, from its test list (build/listing/LAB/tests.records), or
    None when that is not built."""
    path = os.path.join(root, "build", "listing", lab, "tests.records")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as records:
        return [line.rstrip("\n").split("\t")[1] for line in records if line.startswith("listed\t")]


def check(root):
    problems = []
    for lab in labs.labs(root):
        short = lab.split("-")[0]
        path = os.path.join(root, "labs", lab, "hints.md")
        name = os.path.relpath(path, root)
        if not os.path.exists(path):
            problems.append(f"{name}: missing")
            continue
        try:
            with open(path, encoding="utf-8") as file:
                todos = parse_hints(file.read(), name)
        except HintsError as error:
            problems.append(str(error))
            continue
        with open(os.path.join(root, "labs", lab, short + ".cu"), encoding="utf-8") as file:
            skeleton_todos = {int(n) for n in SKELETON_TODO.findall(file.read())}
        hinted = {n for todo in todos.values() for n in todo["todos"]}
        for number in sorted(skeleton_todos - hinted):
            problems.append(f"{name}: no hints for TODO {number} of {short}.cu")
        for number in sorted(hinted - skeleton_todos):
            problems.append(f"{name}: TODO {number} is not a TODO of {short}.cu")
        tests = listed_tests(root, lab)
        for number, todo in sorted(todos.items()):
            for pattern in todo["tests"] if tests is not None else []:
                if not matching([pattern], tests):
                    problems.append(f"{name}: {todo_name(todo)}: no test of the lab matches '{pattern}'")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description="the next hint of a lab's first TODO not yet solved")
    parser.add_argument("lab", nargs="?")
    parser.add_argument("--todo", type=int)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.root)
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    lab = lab_named(args.root, args.lab or "")
    if lab is None:
        print(f"grade: unknown lab '{args.lab}'", file=sys.stderr)
        return 2
    try:
        return show_hint(lab, args.todo, args.root)
    except HintsError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
