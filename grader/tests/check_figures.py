#!/usr/bin/env python3
"""Every figure the docs quote must come from a recorded log (make results writes them).

A figure is a number with a unit of measure: a time (ns, us, ms, s), a rate (GB/s, TB/s, "per
ns"), a percentage or a ratio ("14.8x"), a clock (GHz, MHz), a size of the hardware (KB), a
count of registers or of instructions ("173 instructions"), or a count of one instruction in
machine code ("4 `LDG.E.EF.128`", backed by a log's "4 LDG.E.EF.128", or by the count of an
opcode it begins: "32 `ATOMS.POPC.INC`" by "32 ATOMS.POPC.INC.32"). The docs are README.md,
docs/*.md and every Markdown file of a lab (its handout, hints, answers, find-the-bug); the
recorded logs are the files under docs/results/ and docs/bench/. A figure is backed when
  - its number appears in a log: with its unit, or, for a number with a decimal point or of
    three digits or more, as a cell of a table whose column names the unit; or
  - its line says how it is computed from logged figures, in a comment the reader does not
    see:  <!-- computed: 14x = 0.772 ms / 0.056 ms -->  (each operand must be logged, and the
    expression, rounded as the figure is written, must give it); or
  - its line says why it is not a measurement:  <!-- not measured: the points rule -->.
A sentence whose figure only a GPU can record says so, and fails the check until make results
has recorded it and the figure is written in:  <!-- awaits make results: lab 8's main loop -->.
A doc that names its sources, <!-- figures from: docs/results/lab2-count-atomic-solution.log
docs/results/lessons.md -->, must take every figure from those logs, so that a stale figure is
not backed by a chance match in another log.
Such a comment must follow its figure on the line, never begin one (Markdown would end the
paragraph there). Fenced code blocks are skipped (they show commands and program output formats, not results).

usage: check_figures.py [ROOT]     prints each unbacked figure as FILE:LINE: FIGURE; exit 1 if any
"""
import glob
import os
import re
import sys

UNIT = (r"(?:ms|us|µs|ns|s|GB/s|TB/s|MB/s|per ns|adds per ns|atomics per ns|letters per ns|MiB|GiB|KB|MB|"
        r"GHz|MHz|registers|instructions)")
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# "0.772 ms", "14.8x", "96.7%"; the x and % stick to the number, a word unit follows a space.
FIGURE = re.compile(r"(?<![\w.,/-])(" + NUMBER + r")(?:(x|%)|\s(" + UNIT + r"))(?![\w/])")
# A count of one instruction: "4 `LDG.E.EF.128`" in a doc, "4 LDG.E.EF.128" in a log.
OPCODE = r"[A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*"
DOC_INSTRUCTIONS = re.compile(r"(?<![\w.,/-])(\d+) `(" + OPCODE + r")`")
LOG_INSTRUCTIONS = re.compile(r"(?<![\w.,/-])(\d+) (" + OPCODE + r")\b")
AWAITS = re.compile(r"<!--\s*awaits make results:\s*(.*?)\s*-->")
COMPUTED = re.compile(r"<!--\s*computed:\s*(.*?)\s*-->")
NOT_MEASURED = re.compile(r"<!--\s*not measured:\s*\S.*?-->")
# Units that are sizes, not measurements: "256 MiB of text" is an input, not a result.
SIZE_UNITS = {"MiB", "GiB", "MB"}


def plain(number):
    return number.replace(",", "")


def figures_in(line):
    """(number, unit) of each figure on a line; units normalised (us for µs)."""
    found = []
    for match in FIGURE.finditer(line):
        unit = match.group(2) or match.group(3)
        found.append((plain(match.group(1)), "us" if unit == "µs" else unit))
    return found


def without_fences(lines):
    inside = False
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        if not inside:
            yield number, line


SOURCES = re.compile(r"<!--\s*figures from:\s*(.*?)\s*-->")


class Logs:
    def __init__(self, root, only=None):
        self.with_unit = set()
        self.numbers = set()
        self.instructions = set()
        paths = only if only is not None else \
            glob.glob(os.path.join(root, "docs/results/**/*"), recursive=True) + \
            glob.glob(os.path.join(root, "docs/bench/**/*"), recursive=True)
        for path in paths:
            if not os.path.isfile(path) or path.endswith(".svg"):
                continue
            with open(path, encoding="utf-8", errors="replace") as log:
                text = log.read()
            for line in text.splitlines():
                self.with_unit.update(figures_in(line))
                self.numbers.update(plain(n) for n in re.findall(NUMBER, line))
                self.instructions.update(LOG_INSTRUCTIONS.findall(line))

    def backs_instructions(self, count, opcode):
        return any(count == logged and (name == opcode or name.startswith(opcode + "."))
                   for logged, name in self.instructions)

    def backs(self, number, unit):
        if (number, unit) in self.with_unit:
            return True
        # A table cell under a "GB/s" or "median time" header carries no unit of its own.
        distinctive = "." in number or len(number.split(".")[0]) >= 3
        return distinctive and number in self.numbers


def evaluate(expression, logs):
    """The value of 'a / b' where a and b are logged figures; None, with why, if not."""
    operands = []

    def operand(match):
        number, unit = plain(match.group(1)), match.group(2) or match.group(3)
        operands.append((number, "us" if unit == "µs" else unit))
        return number

    arithmetic = FIGURE.sub(operand, expression)
    if not re.fullmatch(r"[\d.\s()+\-*/]+", arithmetic):
        return None, f"not arithmetic on figures: {expression}"
    unlogged = [f"{n} {u}" for n, u in operands if not logs.backs(n, u)]
    if unlogged:
        return None, f"operand not in a log: {', '.join(unlogged)}"
    try:
        return eval(arithmetic, {"__builtins__": {}}), None  # digits and operators only
    except (SyntaxError, ZeroDivisionError) as error:
        return None, f"{expression}: {error}"


def rounds_to(value, number):
    decimals = len(number.split(".")[1]) if "." in number else 0
    return abs(value - float(number)) <= 0.5 * 10 ** -decimals + 1e-9


def check(root):
    all_logs = Logs(root)
    docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs/*.md"))) + \
        sorted(glob.glob(os.path.join(root, "labs/*/*.md")))
    problems = []
    for doc in docs:
        with open(doc, encoding="utf-8") as text:
            lines = text.read().splitlines()
        logs = all_logs
        named = [path for line in lines for match in SOURCES.findall(line) for path in match.split()]
        if named:
            missing = [path for path in named if not os.path.isfile(os.path.join(root, path))]
            for path in missing:
                problems.append(f"{os.path.relpath(doc, root)}: figures from {path}: no such log")
            logs = Logs(root, [os.path.join(root, path) for path in named])
        for line_number, line in without_fences(lines):
            if re.match(r"\s*<!--\s*(computed|not measured):", line):
                # Markdown starts an HTML block there, cutting the paragraph in two.
                problems.append(f"{os.path.relpath(doc, root)}:{line_number}: a figure's comment "
                                "begins the line: put it after the figure, on the figure's line")
                continue
            awaited = AWAITS.findall(line)
            for what in awaited:
                problems.append(f"{os.path.relpath(doc, root)}:{line_number}: awaits make results "
                                f"(on a GPU): {what}")
            if awaited or NOT_MEASURED.search(line):
                continue
            computed = {}
            for comment in COMPUTED.findall(line):
                result, _, expression = comment.partition("=")
                result_figures = figures_in(result)
                value, why = evaluate(expression, logs)
                if len(result_figures) != 1 or value is None or not rounds_to(value, result_figures[0][0]):
                    problems.append(f"{os.path.relpath(doc, root)}:{line_number}: computed: {comment}: "
                                    f"{why or 'the expression gives %.4g' % value if value is not None else why}")
                    continue
                computed[result_figures[0]] = True
            visible = re.sub(r"<!--.*?-->", "", line)
            for number, unit in figures_in(visible):
                if unit in SIZE_UNITS or (number, unit) in computed or logs.backs(number, unit):
                    continue
                problems.append(f"{os.path.relpath(doc, root)}:{line_number}: {number}{'' if unit in ('x', '%') else ' '}{unit}")
            for count, opcode in DOC_INSTRUCTIONS.findall(visible):
                if not logs.backs_instructions(count, opcode):
                    problems.append(f"{os.path.relpath(doc, root)}:{line_number}: {count} {opcode}")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = check(root)
    for problem in problems:
        print(problem)
    awaiting = sum(": awaits make results" in problem for problem in problems)
    if problems:
        print(f"check_figures: {len(problems) - awaiting} figures in the docs are in no recorded log "
              f"(docs/results/, docs/bench/), and {awaiting} sentences await a figure that only a GPU "
              "can record: run make results, then write in or fix the figures")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
