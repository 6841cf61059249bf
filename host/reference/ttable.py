"""The twin's transposition table (:mod:`traxfpga.hdl.tt_spec`): the engine's position key
of a game, and the table the hardware keeps in its SPRAM, entry for entry, so that the twin
finds what the hardware finds."""

from ...hdl.tt_spec import (ENTRIES, check, merge, position_key, probe, slot,
                            store_coord)
from .trax import Game

__all__ = ["game_key", "Table"]


def game_key(game: Game, log2n: int = 7) -> int:
    """The key of ``game``'s position and side to move, as an engine with ``2**log2n``
    squares a side keeps it after a reset and the game's moves (its ``key`` output)."""
    key = position_key((store_coord(dx, log2n), store_coord(dy, log2n), mask)
                       for dx, dy, mask in game.placed_tiles())
    return key ^ (game.ply & 1)


class Table:
    """The table, empty (as the hardware clears it when a search starts)."""

    def __init__(self, log2n: int = 7):
        self.log2n = log2n
        self.entries = [(0, 0, 0)] * ENTRIES
        self.probes = self.hits = 0

    def _where(self, game, kind):
        key = game_key(game, self.log2n)
        return slot(key, 0, kind), check(key)

    def get(self, game: Game, kind: int, depth: int):
        """``(win, fail)``: whether the table answers a node of ``kind`` and ``depth`` on
        ``game``'s position."""
        at, chk = self._where(game, kind)
        win, fail = probe(self.entries[at], chk, depth)
        self.probes += 1
        self.hits += win or fail
        return win, fail

    def put(self, game: Game, kind: int, depth: int, win: bool):
        """Store a node's verdict."""
        at, chk = self._where(game, kind)
        self.entries[at] = merge(self.entries[at], chk, win, depth)
