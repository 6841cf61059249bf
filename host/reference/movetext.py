"""Reading games written as move lists.

A game file holds moves in notation separated by any whitespace; ``#`` starts
a comment that runs to the end of the line.  ``-`` means standard input.
"""

from __future__ import annotations

import sys

__all__ = ["split_moves", "read_moves", "UnusableInput"]


class UnusableInput(Exception):
    """The input could not be read at all (missing file, not text ...)."""


def split_moves(text: str) -> list:
    """The moves in ``text``: whitespace-separated, ``#`` comments removed."""
    moves = []
    for line in text.splitlines():
        moves.extend(line.split("#", 1)[0].split())
    return moves


def read_moves(source: str = "-") -> list:
    """Read and split the moves of a file (or standard input for ``"-"``).

    Raises
    ------
    UnusableInput
        With a one-line explanation when the file cannot be read as text.
    """
    try:
        if source == "-":
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
        else:
            with open(source, "rb") as f:
                data = f.read()
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except FileNotFoundError:
        raise UnusableInput(f"no such file: {source}") from None
    except IsADirectoryError:
        raise UnusableInput(f"{source} is a directory, not a game file") from None
    except PermissionError:
        raise UnusableInput(f"cannot read {source}: permission denied") from None
    except UnicodeDecodeError:
        raise UnusableInput(f"{'standard input' if source == '-' else source} is not UTF-8 text")\
            from None
    except OSError as e:
        raise UnusableInput(f"cannot read {source}: {e.strerror or e}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return split_moves(text)
