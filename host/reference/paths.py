"""The tracks of a position as paths, to show *which* loop or line won a game.

:class:`~traxfpga.host.reference.trax.Game` decides wins while it plays (it only walks the
paths through the tiles a move placed, and keeps no path), so a finished game knows who won
and how, not where.  :func:`winning_paths` finds the winning loops or lines again from the
position alone (``Game.board_rows()``), by the same definitions as the engine:

* a *loop* is a path of one colour that closes on itself;
* a *line* is an open path with one end on the outer W edge of a tile in the leftmost
  column and the other on the outer E edge of a tile in the rightmost column, the area
  being at least 8 columns wide (or N and S, top and bottom rows, at least 8 rows).

Standard library only, like the rest of the reference.
"""

from __future__ import annotations

from .trax import MASK_NAMES

__all__ = ["paths", "winning_paths"]

N, E, S, W = 0, 1, 2, 3
_STEP = ((0, -1), (1, 0), (0, 1), (-1, 0))
#: A line must span at least this many columns (or rows).
LINE_SPAN = 8


def _grid(rows):
    """{(col, row): white-edge mask} of canonical rows."""
    grid = {}
    for r, row in enumerate(rows):
        for c, cell in enumerate(row.split()):
            if cell != ".":
                grid[(c, r)] = MASK_NAMES[cell]
    return grid


def _sides(mask, colour):
    """The two sides a tile's track of ``colour`` (0 white, 1 black) touches."""
    m = mask if colour == 0 else 15 ^ mask
    return [d for d in range(4) if m >> d & 1]


def _walk(grid, start, side, colour):
    """Follow the track of ``colour`` from tile ``start`` out through ``side``: the cells
    visited after ``start`` and the end, ``(cell, side)`` where the path leaves the tiles,
    or None when it comes back to ``start`` (a loop)."""
    cells = []
    cell, d = start, side
    while True:
        nxt = (cell[0] + _STEP[d][0], cell[1] + _STEP[d][1])
        if nxt not in grid:
            return cells, (cell, d)
        if nxt == start:
            return cells, None
        cells.append(nxt)
        entered = d ^ 2
        a, b = _sides(grid[nxt], colour)
        cell, d = nxt, (b if a == entered else a)


def paths(rows):
    """Every path of the position ``rows`` (canonical rows, ``Game.board_rows()``).

    Returns a list of ``{"colour": "white"|"black", "kind": "loop"|"line"|"open",
    "cells": [(col, row), ...]}``, the cells area-relative (0-based, as ``Game.tile``) in
    the order the path runs through them.
    """
    rows = list(rows)
    grid = _grid(rows)
    width = len(rows[0].split()) if rows else 0
    height = len(rows)
    seen = set()
    out = []
    for start in sorted(grid, key=lambda p: (p[1], p[0])):
        for colour in (0, 1):
            if (start, colour) in seen:
                continue
            first, second = _sides(grid[start], colour)
            ahead, end_a = _walk(grid, start, first, colour)
            if end_a is None:
                cells, kind = [start] + ahead, "loop"
            else:
                behind, end_b = _walk(grid, start, second, colour)
                cells = behind[::-1] + [start] + ahead
                kind = "line" if _is_line(end_a, end_b, width, height) else "open"
            seen.update((c, colour) for c in cells)
            out.append({"colour": ("white", "black")[colour], "kind": kind, "cells": cells})
    return out


def _is_line(end_a, end_b, width, height):
    """True when an open path's two ends join opposite outer edges across the area."""
    for (ca, da), (cb, db) in ((end_a, end_b), (end_b, end_a)):
        if (da == W and db == E and ca[0] == 0 and cb[0] == width - 1
                and width >= LINE_SPAN):
            return True
        if (da == N and db == S and ca[1] == 0 and cb[1] == height - 1
                and height >= LINE_SPAN):
            return True
    return False


def winning_paths(game):
    """The paths that won a finished game: the winner's loops (or lines, as the game's
    ``reason`` says); an empty list while the game goes on, or after a draw."""
    if game.winner is None or game.reason not in ("loop", "line"):
        return []
    return [p for p in paths(game.board_rows())
            if p["colour"] == game.winner and p["kind"] == game.reason]
