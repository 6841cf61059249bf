"""Recorded games for the page's replay: ``referee --record`` files and plain move lists.

A file holds moves in notation (whitespace-separated, ``#`` comments:
:func:`~traxfpga.host.reference.movetext.split_moves`).  The header comments that
``trax-fpga referee --record`` writes (``# white: ...``, ``# black: ...``, ``# result:
...``) name the players and the result; other files have none, which is fine.
"""

from __future__ import annotations

import re

from ..reference.movetext import split_moves
from ..reference.trax import Illegal, parse_move
from .position import replayed

__all__ = ["Recorded", "read_recorded", "MAX_MOVES_READ"]

#: A file with more moves than this is no game (the referee's cap is 400).
MAX_MOVES_READ = 10_000


#: A move line of a record (``Match.notation``): the move, then ``# N. colour SECONDS s``.
_TIMED = re.compile(r"^\S+\s+#\s*\d+\.\s+(?:white|black)\s+([0-9.]+) s$")


class Recorded:
    """A game to replay: ``moves`` (the legal ones), ``white``/``black``/``result`` from
    the header (empty when absent), ``note``: why the replay stops before the file's end,
    or ``""``; ``times``: the seconds each of ``moves`` took, from the referee's comments,
    or None when the file does not give them for every move."""

    def __init__(self, moves, white="", black="", result="", note="", times=None):
        self.moves = moves
        self.white = white
        self.black = black
        self.result = result
        self.note = note
        self.times = times


def _times(text, count):
    times = [float(m.group(1)) for line in text.splitlines()
             if (m := _TIMED.match(line.strip()))]
    return times[:count] if len(times) >= count else None


def _header(text):
    found = {}
    for line in text.splitlines():
        line = line.strip()
        for key in ("white", "black", "result"):
            if line.startswith(f"# {key}:") and key not in found:
                found[key] = line.split(":", 1)[1].strip()
    return found


def read_recorded(text):
    """The :class:`Recorded` game of a file's text.  Raises ValueError with one sentence
    when the file holds no move at all or is too long to be a game."""
    moves = split_moves(text)
    if not moves:
        raise ValueError("the file holds no moves (expected moves in Trax notation, "
                         "like a referee --record file)")
    if len(moves) > MAX_MOVES_READ:
        raise ValueError(f"the file holds {len(moves)} moves: too many for a game")
    note = ""
    for i, mv in enumerate(moves):
        try:
            parse_move(mv)
        except Illegal as e:
            note = f"move {i + 1}, {mv[:20]!r}, is not a move: {e.sentence}"
            moves = moves[:i]
            break
    game, illegal = replayed(moves)
    if illegal is not None:
        note = f"move {game.ply + 1}, {moves[game.ply]}, is illegal: {illegal.sentence}"
        moves = moves[:game.ply]
    elif game.over and game.ply < len(moves):
        note = f"the game ended after move {game.ply}; the moves after it are left out"
        moves = moves[:game.ply]
    head = _header(text)
    return Recorded(moves, head.get("white", ""), head.get("black", ""),
                    head.get("result", ""), note, _times(text, len(moves)))
