"""The roster: every entry of --submissions, as a run records it."""
import os
import stat

from names import escape_name, make_ids
from shared import EXIT_USAGE, Fail


class Entry:
    pass


def kind_of(mode):
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISREG(mode):
        return "file"
    return "special file"


def read_roster(o):
    base = os.fsencode(o.submissions)
    try:
        names = sorted(os.listdir(base))
    except OSError as error:
        raise Fail(EXIT_USAGE, f"--submissions: cannot list '{o.submissions}': {error.strerror}")
    ids = make_ids(names)
    roster = []
    for index, (raw, identifier) in enumerate(zip(names, ids)):
        entry = Entry()
        entry.index, entry.raw, entry.id = index, raw, identifier
        entry.name = escape_name(raw)
        try:
            entry.kind = kind_of(os.lstat(os.path.join(base, raw)).st_mode)
        except OSError:
            entry.kind = "gone"
        roster.append(entry)
    return roster


def roster_of(run):
    roster = []
    for item in run["roster"]:
        entry = Entry()
        entry.index, entry.id, entry.name, entry.kind = item["index"], item["id"], item["name"], item["kind"]
        entry.raw = bytes.fromhex(item["bytes"])
        roster.append(entry)
    return roster
