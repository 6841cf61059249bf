"""User input (and device output) quoted back in a message, made safe to print.

A token can be anything a file or a line holds: 50 MB without a space, or escape sequences
that would drive the terminal.  :func:`shown` keeps a message one short line.
"""

__all__ = ["shown", "SHOWN_MAX"]

#: Characters of a long token kept in a message.
SHOWN_MAX = 20


def shown(text, limit=SHOWN_MAX):
    """``text`` as it may appear in a message.

    A short token of plain printable ASCII (no quotes or spaces) comes back unchanged; any
    other is quoted repr-style, so control characters and unprintable code points are
    escaped.  Past ``limit`` characters only the first ``limit`` are kept, followed by
    ``...`` and the length.
    """
    text = str(text)
    head = text[:limit]
    plain = all(0x21 <= ord(ch) < 0x7F and ch not in "'\"" for ch in head)
    out = head if plain and len(text) <= limit else repr(head)
    if len(text) > limit:
        out += f"... ({len(text):,} characters)"
    return out
