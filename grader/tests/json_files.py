"""Reading the JSON files the kit writes (summary.json, results.json, Gradescope's results) and
its logs' text, in the two ways the tests need: leniently, where a missing or unreadable file is
an answer of its own (None, or ""), and strictly, as a strict consumer of a report would read
it."""
import json


def read_json(path):
    """The file's JSON, or None where it is missing or is not JSON."""
    try:
        with open(path) as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


def read_text(path):
    """A file's text, "" where it is missing; bytes that are not UTF-8 replaced (a grading's log
    holds whatever the code under test printed)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


def read_text_strictly(path):
    """The file as text; raises ValueError with the reason when it is not UTF-8 or is missing."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as error:
        raise ValueError(f"cannot read: {error.strerror}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 at byte {error.start}")


def read_json_strictly(path):
    """Loads JSON as a strict consumer would: UTF-8, no NaN or Infinity, no key given twice;
    raises ValueError with the reason otherwise."""
    def no_constant(name):
        raise ValueError(f"{name} is not JSON")

    def no_repeats(pairs):
        keys = [key for key, _ in pairs]
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        if repeated:
            raise ValueError(f"key {repeated[0]!r} given twice")
        return dict(pairs)
    text = read_text_strictly(path)
    try:
        return json.loads(text, parse_constant=no_constant, object_pairs_hook=no_repeats)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}")
