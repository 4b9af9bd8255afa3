#!/usr/bin/env python3
"""Checks that every report the grader writes is accepted by its real consumer.

usage: check-reports.py [--expect passed|not-passed] [--results-json F]... [--tap F]...
                        [--junit F]... [--csv F [--csv-columns N]]... [--summary F]...

One line per check, "%-56s pass|fail[: why]"; exit 0 only when every check passes, 1 when one
fails, 2 on a bad command line. (--csv-columns N applies to the --csv before it; without it, every
row must have as many columns as the header.)

--expect passed|not-passed (for the reports after it): each consumer must read the grading so.
A grading of which a test did not run here (no GPU) must read "not passed" to every one of them:
  TAP      prove's summary line: "Result: PASS" is passed (an "ok ... # SKIP" or a "not ok ... #
           TODO" counts as passing there), "Result: FAIL" not.
  JUnit    passed when the root counts no failure and no error (a <skipped> is neither).
  results  Gradescope's rule: a test passed when its status says so, or, without a status, when
           its score equals its max_score; the submission passed when every test did.
  summary  passed when the verdict is "passed" and the exit code 0.

  TAP      prove (Perl's TAP::Harness): the stream parses with no parse error ("Badly formed ...",
           "Bad plan", "Tests out of sequence", "No plan found", ...) and no "Bail out!";
           failing tests are fine. tap.py (module tap): every line is TAP (a version line first,
           one plan, test lines, "#" diagnostics), the plan is at the start or the end and equals
           the number of test lines, test numbers count 1, 2, 3... Lines are parsed one at a time,
           so a TAP 13 YAML block is reported as lines that are not TAP, whether or not PyYAML is
           installed: write diagnostics as "#" lines.
  JUnit    xmllint --schema grader/tests/schemas/junit-10.xsd (Jenkins xUnit plugin's schema);
           the root is <testsuites> or <testsuite>; the tests, failures, errors and skipped
           attributes of each one equal the testcases under it (with a <failure>, an <error>,
           a <skipped>); an absent skipped attribute counts as 0.
  results  JSON (UTF-8, no NaN, no repeated key) valid against
           grader/tests/schemas/gradescope-results.schema.json; score equals the sum of the tests'
           scores within 0.01; each test 0 <= score <= max_score.
  CSV      UTF-8; Python's csv module (strict) reads it; a header row; every row as many columns.
  summary  the summary.json schema of the design note: every field, its type, nothing else (but
           an optional "student", string or null; "seed" may be null; verdict "no test ran" with
           exit 2, as grader/results/ writes them); score <= max_score; the exit code fits the
           verdict.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from json_files import read_json_strictly as read_json, read_text_strictly as read_text

HERE = os.path.dirname(os.path.abspath(__file__))
JUNIT_XSD = os.path.join(HERE, "schemas", "junit-10.xsd")
RESULTS_SCHEMA = os.path.join(HERE, "schemas", "gradescope-results.schema.json")
USAGE = ("usage: check-reports.py [--expect passed|not-passed] [--results-json F]... [--tap F]... "
         "[--junit F]... [--csv F [--csv-columns N]]... [--summary F]...")
WIDTH = 56

# The design note's verdicts and exit codes, and "no test ran" (exit 2: --filter matched no test),
# which the results model (grader/results/model.c) adds.
VERDICT_EXIT = {"passed": 0, "failed": 1, "does not compile": 1, "no file": 1,
                "not graded on a GPU": 3, "grading machine broken": 4, "no test ran": 2}
SUMMARY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "description": "summary.json, the class line of one grading (the design note's schema; besides "
                   "it, an optional student id, and a null seed when the grading chose none)",
    "type": "object",
    "properties": {
        "lab": {"type": "string", "minLength": 1},
        "student": {"type": ["string", "null"]},
        "verdict": {"enum": list(VERDICT_EXIT)},
        "exit_code": {"enum": sorted(set(VERDICT_EXIT.values()))},
        "tests_passed": {"type": "integer", "minimum": 0},
        "tests_failed": {"type": "integer", "minimum": 0},
        "tests_not_run": {"type": "integer", "minimum": 0},
        "time_ratio": {"type": ["number", "null"], "exclusiveMinimum": 0},
        "score": {"type": "number", "minimum": 0},
        "max_score": {"type": "number", "minimum": 0},
        "problems": {"type": "array", "items": {"type": "string", "pattern": "^[^\\n\\r]*$"}},
        "performance": {"type": ["string", "null"], "pattern": "^[^\\n\\r]*$"},
        "seed": {"type": ["integer", "null"]},
        "speed": {"type": "array", "items": {
            "type": "object",
            "properties": {"test": {"type": "string", "minLength": 1}, "input": {"type": "string"},
                           "yours_ms": {"type": "number", "exclusiveMinimum": 0},
                           "reference_ms": {"type": "number", "exclusiveMinimum": 0}},
            "required": ["test", "input", "yours_ms", "reference_ms"], "additionalProperties": False}},
    },
    "required": ["lab", "verdict", "exit_code", "tests_passed", "tests_failed", "tests_not_run",
                 "time_ratio", "score", "max_score", "problems", "seed", "speed"],
    "additionalProperties": False,
}

# TAP::Parser is the parser prove runs; this reports its parse errors and bail-outs.
PERL_TAP = r"""
use strict; use warnings; use TAP::Parser;
open my $fh, '<:raw', $ARGV[0] or die "cannot open $ARGV[0]: $!\n";
my $tap = do { local $/; <$fh> };
my $parser = TAP::Parser->new({ tap => $tap });
while (my $result = $parser->next) {
    print 'Bail out: ', $result->as_string, "\n" if $result->is_bailout;
}
print "$_\n" for $parser->parse_errors;
"""

failed_checks = 0


def one_line(text, limit=300):
    text = str(text).replace("\n", " ").replace("\r", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def report(kind, path, what, problems):
    """Prints one check's line; problems is a list of reasons (empty: pass)."""
    global failed_checks
    name = os.path.basename(path)
    room = WIDTH - len(kind) - len(what) - 3
    if len(name) > room:
        name = "..." + name[-max(room - 3, 8):]
    description = f"{kind} {name}: {what}"
    if problems:
        failed_checks += 1
        print(f"{description:<{WIDTH}} fail: {one_line('; '.join(problems))}", flush=True)
    else:
        print(f"{description:<{WIDTH}} pass", flush=True)


def schema_problems(document, schema):
    try:
        import jsonschema
    except ImportError:
        return ["Python module jsonschema is not installed (pip install jsonschema)"]
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    errors = sorted(validator_class(schema).iter_errors(document), key=lambda error: list(map(str, error.absolute_path)))
    problems = []
    for error in errors[:4]:
        where = "/".join(map(str, error.absolute_path)) or "(top)"
        if error.context:  # anyOf, oneOf: say which alternatives failed, not the whole document
            reasons = sorted({f"{'/'.join(map(str, alternative.absolute_path)) or '(top)'}: {alternative.message}"
                              for alternative in error.context})
            problems.append(f"at {where}: fits no allowed form ({' or '.join(reasons)})")
        else:
            problems.append(f"at {where}: {error.message}")
    return problems


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---------------------------------------------------------------- TAP
def expectation(kind, path, reading, expect):
    """The check that the consumer's reading of the grading is the one expected."""
    if expect:
        report(kind, path, f"read as {expect}",
               [] if reading == expect else [f"{reading_source[kind]} reads it as {reading}"])


reading_source = {"TAP": "prove", "JUnit": "the root's counts", "results": "Gradescope's rule",
                  "summary": "its verdict and exit code"}


def check_tap(path, expect=None):
    try:
        text = read_text(path)
    except ValueError as error:
        report("TAP", path, "read", [str(error)])
        return
    problems, reading = prove_problems(path)
    report("TAP", path, "prove (TAP::Parser) parses it", problems)
    report("TAP", path, "tap.py parses it, plan matches", tappy_problems(text))
    expectation("TAP", path, reading, expect)


def prove_problems(path):
    """(problems, "passed" or "not passed" as prove's summary says)."""
    if not shutil.which("perl") or not shutil.which("prove"):
        return ["perl's prove is not installed (Debian package perl)"], None
    parser = subprocess.run(["perl", "-e", PERL_TAP, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            timeout=300)
    problems = [re.sub(r" at \S+\.pm line \d+.*$", "", line)
                for line in parser.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    if parser.returncode != 0:
        problems.append(f"perl exit {parser.returncode}")
    # prove itself on the file (its exit is 1 for failing tests too, so its summary is read instead)
    prove = subprocess.run(["prove", "--norc", "--nocolor", "--exec", "cat", os.path.abspath(path)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    output = prove.stdout.decode("utf-8", "replace")
    said = re.findall(r"^\s*(Parse errors: .*|Bailout called.*)$", output, re.M)
    if said and not problems:
        problems += ["prove: " + line for line in said]
    result = re.search(r"^Result: (PASS|FAIL|NOTESTS)$", output, re.M)
    if not result:
        problems.append(f"prove gave no result (exit {prove.returncode})")
    return problems, "passed" if result and result.group(1) == "PASS" else "not passed"


def tappy_problems(text):
    try:
        from tap.parser import Parser
    except ImportError:
        return ["Python module tap is not installed (pip install tap.py)"]
    parser = Parser()
    problems, plans, tests, unknown = [], [], [], []
    # Lines as tap.py's parse_file reads them (universal newlines: a lone CR ends a line too).
    lines = list(io.StringIO(text, newline=None))
    for number, line in enumerate(lines, 1):
        try:
            parsed = parser.parse_line(line.rstrip())
        except ValueError as error:
            problems.append(f"line {number}: {error}")
            continue
        category = parsed.category
        if category == "unknown":
            unknown.append(f"line {number} {line.rstrip(chr(10))[:50]!r}")
        elif category == "bail":
            problems.append(f"line {number}: Bail out! {parsed.reason}")
        elif category == "version" and number != 1:
            problems.append(f"line {number}: a version line that is not the first line")
        elif category == "plan":
            plans.append((number, parsed))
        elif category == "test":
            tests.append((number, parsed))
            if parsed.number is not None and parsed.number != len(tests):
                problems.append(f"line {number}: test number {parsed.number}, expected {len(tests)}")
    if unknown:
        problems.insert(0, f"{len(unknown)} line{'s are' if len(unknown) > 1 else ' is'} not TAP "
                           "(not a test, plan, version, # comment): "
                           + ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else ""))
    if len(plans) != 1:
        problems.append(f"{len(plans)} plans, expected 1")
    else:
        line, plan = plans[0]
        if plan.expected_tests != len(tests):
            problems.append(f"plan 1..{plan.expected_tests} but {len(tests)} test lines")
        if tests and tests[0][0] < line < tests[-1][0]:
            problems.append(f"the plan (line {line}) is between test lines")
    return problems


# ---------------------------------------------------------------- JUnit XML
def check_junit(path, expect=None):
    if not shutil.which("xmllint"):
        problems = ["xmllint is not installed (Debian package libxml2-utils)"]
    else:
        lint = subprocess.run(["xmllint", "--noout", "--nonet", "--schema", JUNIT_XSD, path],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        output = lint.stdout.decode("utf-8", "replace").replace(path, os.path.basename(path)).splitlines()
        problems = [] if lint.returncode == 0 else \
            list(dict.fromkeys(line for line in output if re.search(r"error|warning", line)))[:2] or \
            [f"xmllint exit {lint.returncode}"]
    report("JUnit", path, "xmllint --schema junit-10.xsd", problems)
    report("JUnit", path, "counts equal the testcases", junit_count_problems(path))
    expectation("JUnit", path, junit_reading(path), expect)


def junit_reading(path):
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return "unreadable"
    counts = [root.get(attribute, "0") for attribute in ("failures", "errors")]
    if not all(re.fullmatch(r"[0-9]+", count) for count in counts):
        return "unreadable"
    return "passed" if sum(map(int, counts)) == 0 else "not passed"


def junit_count_problems(path):
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as error:
        return [f"not read: {error}"]
    if root.tag not in ("testsuites", "testsuite"):
        return [f"root element <{root.tag}>, expected <testsuites> or <testsuite>"]
    problems = []
    suites = [root] + [element for element in root.iter("testsuite") if element is not root]
    for suite in suites:
        cases = list(suite.iter("testcase"))
        counted = {"tests": len(cases),
                   "failures": sum(1 for case in cases if case.find("failure") is not None),
                   "errors": sum(1 for case in cases if case.find("error") is not None),
                   "skipped": sum(1 for case in cases if case.find("skipped") is not None)}
        label = f"<{suite.tag} name={suite.get('name')!r}>" if suite.get("name") is not None else f"<{suite.tag}>"
        for attribute, count in counted.items():
            stated = suite.get(attribute)
            if stated is None:
                if attribute == "skipped" and suite.tag == "testsuite" and count:
                    problems.append(f"{label} has {count} skipped testcases but no skipped attribute")
                continue
            if not re.fullmatch(r"[0-9]+", stated):
                problems.append(f"{label} {attribute}={stated!r} is not a count")
            elif int(stated) != count:
                problems.append(f"{label} {attribute}={stated!r}, but {count} counted")
    return problems


# ---------------------------------------------------------------- results.json (Gradescope)
def check_results_json(path, expect=None):
    try:
        results = read_json(path)
        with open(RESULTS_SCHEMA, encoding="utf-8") as stream:
            schema = json.load(stream)
    except ValueError as error:
        report("results", path, "valid against Gradescope's schema", [str(error)])
        report("results", path, "score is the sum, 0 <= score <= max", ["not read"])
        expectation("results", path, "unreadable", expect)
        return
    report("results", path, "valid against Gradescope's schema", schema_problems(results, schema))
    report("results", path, "score is the sum, 0 <= score <= max", score_problems(results))
    expectation("results", path, results_reading(results), expect)


def results_reading(results):
    """Gradescope's reading: a test without a status passed when its score equals its maximum."""
    tests = results.get("tests") if isinstance(results, dict) else None
    if not isinstance(tests, list) or not all(isinstance(test, dict) for test in tests):
        return "unreadable"
    def passed(test):
        if "status" in test:
            return test["status"] == "passed"
        return test.get("score") == test.get("max_score")
    return "passed" if all(passed(test) for test in tests) else "not passed"


def score_problems(results):
    if not isinstance(results, dict):
        return ["not a JSON object"]
    problems, total = [], 0.0
    tests = results.get("tests") if isinstance(results.get("tests"), list) else []
    for index, test in enumerate(tests):
        if not isinstance(test, dict):
            continue
        name = f"test {index} ({test.get('name', '')!s:.40})"
        score, most = test.get("score"), test.get("max_score")
        if is_number(score):
            total += score
            if score < 0:
                problems.append(f"{name}: score {score} < 0")
            if is_number(most) and score > most + 1e-9:
                problems.append(f"{name}: score {score} > max_score {most}")
        if is_number(most) and most < 0:
            problems.append(f"{name}: max_score {most} < 0")
    if is_number(results.get("score")) and tests and abs(results["score"] - total) > 0.01:
        problems.append(f"score {results['score']} but the tests' scores add up to {total:g}")
    return problems


# ---------------------------------------------------------------- CSV
def check_csv(path, columns):
    rows, problems = [], []
    try:
        rows = list(csv.reader(io.StringIO(read_text(path), newline=""), strict=True))
    except (ValueError, csv.Error) as error:
        problems.append(str(error))
    if not problems and not rows:
        problems.append("no header row")
    report("CSV", path, "read back by Python's csv module", problems)
    if problems:
        report("CSV", path, "every row has the same columns", ["not read"])
        return
    want = columns if columns is not None else len(rows[0])
    bad = [f"row {number} has {len(row)}" for number, row in enumerate(rows, 1) if len(row) != want]
    report("CSV", path, f"every row has {want} columns",
           [f"{len(bad)} rows of {len(rows)} differ: " + ", ".join(bad[:5])] if bad else [])


# ---------------------------------------------------------------- summary.json
def check_summary(path, expect=None):
    try:
        summary = read_json(path)
    except ValueError as error:
        report("summary", path, "fields and types of design.md", [str(error)])
        report("summary", path, "score <= max, exit code fits verdict", ["not read"])
        expectation("summary", path, "unreadable", expect)
        return
    report("summary", path, "fields and types of design.md", schema_problems(summary, SUMMARY_SCHEMA))
    problems = []
    if isinstance(summary, dict):
        score, most, verdict = summary.get("score"), summary.get("max_score"), summary.get("verdict")
        if is_number(score) and is_number(most) and score > most + 1e-9:
            problems.append(f"score {score} > max_score {most}")
        if verdict in VERDICT_EXIT and summary.get("exit_code") != VERDICT_EXIT[verdict]:
            problems.append(f"verdict {verdict!r} with exit_code {summary.get('exit_code')!r}, "
                            f"expected {VERDICT_EXIT[verdict]}")
    else:
        problems.append("not a JSON object")
    report("summary", path, "score <= max, exit code fits verdict", problems)
    reading = "unreadable"
    if isinstance(summary, dict):
        reading = "passed" if summary.get("verdict") == "passed" and summary.get("exit_code") == 0 else "not passed"
    expectation("summary", path, reading, expect)


# ---------------------------------------------------------------- command line
def parse_arguments(arguments):
    """Returns [(kind, path, columns, expect)] in the order given; raises ValueError on a bad
    command line."""
    kinds = {"--results-json": "results", "--tap": "tap", "--junit": "junit", "--csv": "csv", "--summary": "summary"}
    jobs, index, expect = [], 0, None
    while index < len(arguments):
        option, value = arguments[index], None
        if "=" in option and option.startswith("--"):
            option, value = option.split("=", 1)
        elif index + 1 < len(arguments):
            value = arguments[index + 1]
            index += 1
        index += 1
        if option in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if option not in kinds and option not in ("--csv-columns", "--expect"):
            raise ValueError(f"unknown option {option!r}")
        if value is None:
            raise ValueError(f"{option} needs a value")
        if option == "--expect":
            if value not in ("passed", "not-passed"):
                raise ValueError(f"--expect takes passed or not-passed, not {value!r}")
            expect = value.replace("-", " ")
        elif option == "--csv-columns":
            if not jobs or jobs[-1][0] != "csv" or jobs[-1][2] is not None:
                raise ValueError("--csv-columns must follow a --csv FILE")
            if not re.fullmatch(r"[1-9][0-9]*", value):
                raise ValueError(f"--csv-columns {value!r} is not a positive number")
            jobs[-1] = ("csv", jobs[-1][1], int(value), None)
        else:
            jobs.append((kinds[option], value, None, expect))
    if not jobs:
        raise ValueError("no file to check")
    return jobs


def main():
    try:
        jobs = parse_arguments(sys.argv[1:])
    except ValueError as error:
        print(f"check-reports.py: {error}\n{USAGE}", file=sys.stderr)
        return 2
    for kind, path, columns, expect in jobs:
        if kind == "tap":
            check_tap(path, expect)
        elif kind == "junit":
            check_junit(path, expect)
        elif kind == "results":
            check_results_json(path, expect)
        elif kind == "csv":
            check_csv(path, columns)
        else:
            check_summary(path, expect)
    return 1 if failed_checks else 0


if __name__ == "__main__":
    sys.exit(main())
