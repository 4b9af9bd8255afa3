"""A run's points into a gradebook exported from Gradescope or a learning system."""
import csv
import io
import os
import re
import sys

from names import escape_name
from out_folder import read_line, write_atomically
from shared import EXIT_COMPLETE, EXIT_INCOMPLETE, EXIT_USAGE, Fail, say
from table import grade_to_hand_on, number


def fill_gradebook(o, run):
    """The gradebook CSV with this run's points in column --assignment, matched to the roster
    by the folder names in column --match (the bytes of the name, exactly). A cell it has no
    points of this run for, or no grade to hand on (table.grade_to_hand_on), stays as the export
    had it: never a 0 or a partial score, never a grade blanked."""
    try:
        with open(o.gradebook, "rb") as file:
            byte_order_mark = file.read(3) == b"\xef\xbb\xbf"  # kept, as the export had it
        with open(o.gradebook, encoding="utf-8-sig", newline="") as file:
            rows = list(csv.reader(file, strict=True))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise Fail(EXIT_USAGE, f"--gradebook: cannot read '{o.gradebook}' as a UTF-8 CSV file: {error}")
    if not rows or o.match not in rows[0]:
        raise Fail(EXIT_USAGE, f"--gradebook: no column '{o.match}' in its first row ({', '.join(rows[0][:8]) if rows else 'the file is empty'})")
    header = rows[0]
    key = header.index(o.match)
    if o.assignment not in header:
        header.append(o.assignment)
        for row in rows[1:]:
            row.append("")
    column = header.index(o.assignment)
    points = {}
    for entry in run["roster"]:
        line = read_line(o.out, entry["id"])
        graded = line is not None and line.get("run") == run["run"] and grade_to_hand_on(line)
        points[bytes.fromhex(entry["bytes"])] = number(line["score"]) if graded else None
    filled, kept, unknown = 0, [], []
    for row in rows[1:]:
        if len(row) <= max(key, column):
            row.extend([""] * (max(key, column) + 1 - len(row)))
        name = row[key].encode("utf-8")
        if name not in points:
            if row[key].strip():
                unknown.append(name)
            continue
        if points[name] is None:
            kept.append(name)
        else:
            row[column] = points[name]
            filled += 1
    matched = {row[key].encode("utf-8") for row in rows[1:]}
    absent = [name for name in points if name not in matched]
    text = io.StringIO(newline="")
    csv.writer(text, lineterminator="\r\n").writerows(rows)
    target = os.path.join(o.out, "gradebook-" + re.sub(r"[^A-Za-z0-9._-]+", "-", o.assignment).strip("-") + ".csv")
    write_atomically(target, (b"\xef\xbb\xbf" if byte_order_mark else b"") + text.getvalue().encode("utf-8"))
    say(f"{target}: points of run {run['run']} for {filled} students in column '{o.assignment}'")
    for what, names in (("without points of this run (their cells left as the export had them)", kept),
                        ("in the gradebook but not in the roster (left as they were)", unknown),
                        ("in the roster but not in the gradebook", absent)):
        if names:
            shown = ", ".join(escape_name(n, one_line=True) for n in names[:10])
            print(f"grade-class: {len(names)} {what}: {shown}{' ...' if len(names) > 10 else ''}", file=sys.stderr)
    return EXIT_COMPLETE if not kept and not absent else EXIT_INCOMPLETE
