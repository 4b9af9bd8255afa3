"""A submission folder's name as the reports show it, and the id each entry of the roster gets."""
import hashlib
import re
import unicodedata

from shared import EXIT_MACHINE, Fail


_INVISIBLE = {0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
              0x2066, 0x2067, 0x2068, 0x2069, 0xfeff}


def escape_name(raw, one_line=False):
    """A name as text for the reports: its bytes decoded as UTF-8 (surrogateescape), with every
    byte that is not UTF-8 written \\xNN, control characters and bidirectional or invisible
    formatting marks written \\xNN or \\uNNNN. Newlines and tabs stay (the CSV quotes them)
    unless one_line."""
    text = raw.decode("utf-8", "surrogateescape")
    out = []
    for ch in text:
        code = ord(ch)
        if 0xdc80 <= code <= 0xdcff:
            out.append("\\x%02x" % (code - 0xdc00))
        elif ch in "\n\t" and not one_line:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7f:
            out.append("\\x%02x" % code)
        elif 0x80 <= code <= 0x9f or code in _INVISIBLE or 0xd800 <= code <= 0xdfff:
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    return "".join(out)


def slug(raw):
    """A readable ASCII part of an id: letters and digits of the name, accents dropped."""
    text = unicodedata.normalize("NFKD", raw.decode("utf-8", "replace"))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")
    return text[:32].strip("-") or "student"


def make_ids(raw_names):
    """Ids for names: slug-hash, the hash of the name's bytes long enough that no two ids of the
    roster are the same (6 hex digits, more only where 6 collide)."""
    digests = [hashlib.sha256(raw).hexdigest() for raw in raw_names]
    slugs = [slug(raw) for raw in raw_names]
    lengths = [6] * len(raw_names)
    while True:
        ids = [f"{s}-{d[:n]}" for s, d, n in zip(slugs, digests, lengths)]
        seen = {}
        for index, identifier in enumerate(ids):
            seen.setdefault(identifier.lower(), []).append(index)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            return ids
        for group in clashes:
            for index in group:
                if lengths[index] >= 64:
                    raise Fail(EXIT_MACHINE, "two submission names have the same SHA-256")
                lengths[index] = min(64, lengths[index] + 10)
