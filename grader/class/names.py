"""A submission folder's name as the reports show it, and the id each entry of the roster gets."""
import hashlib
import re
import unicodedata

from shared import EXIT_MACHINE, Fail


_INVISIBLE = {0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
              0x2066, 0x2067, 0x2068, 0x2069, 0xfeff}


def _escaped(text, one_line, names):
    out = []
    # A name not in NFC shows its combining marks: "Zoe\u0308" (NFD), never like "Zoë" (NFC).
    marks = names and unicodedata.normalize("NFC", text) != text
    for ch in text:
        code = ord(ch)
        if 0xdc80 <= code <= 0xdcff:
            out.append("\\x%02x" % (code - 0xdc00))
        elif ch == "\\" and names:
            out.append("\\\\")
        elif ch in "\n\t" and not one_line:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7f:
            out.append("\\x%02x" % code)
        elif 0x80 <= code <= 0x9f or code in _INVISIBLE or 0xd800 <= code <= 0xdfff or \
                (marks and unicodedata.combining(ch)):
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    return "".join(out)


def escape_name(raw, one_line=False):
    """A name as text for the reports, one text a name (two folders never show alike): its
    bytes decoded as UTF-8 (surrogateescape), with every byte that is not UTF-8 written \\xNN,
    a backslash \\\\, control characters and bidirectional or invisible formatting marks
    \\xNN or \\uNNNN, and the combining marks of a name not in NFC \\uNNNN. Newlines and tabs
    stay (the CSV quotes them) unless one_line."""
    return _escaped(raw.decode("utf-8", "surrogateescape"), one_line, names=True)


def inert(data, one_line=False):
    """Text a student's code or files could have written (a compiler's errors, what a grading
    printed, a problem line), made safe to print on a terminal and to put in a table: bytes that
    are not UTF-8 written \\xNN, control characters but newline and tab \\xNN (no terminal
    escape sequence is left: ESC is \\x1b), C1 controls and bidirectional or invisible marks
    \\uNNNN."""
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else \
        data.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    return _escaped(text, one_line, names=False)


def csv_cell(text):
    """A text cell of a CSV table a spreadsheet opens: one that starts like a formula (=, +, -,
    @, a tab or a carriage return) gets a ' before it, which spreadsheets show as text."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


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
