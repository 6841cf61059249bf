"""The twin's transposition table (:mod:`traxfpga.hdl.tt_spec`): the engine's position key
of a game, and the table the hardware keeps in its SPRAM, entry for entry, so that the twin
finds what the hardware finds."""

from ...hdl.tt_spec import (INDEX_BITS, check, key_coord, merge, position_key, probe, slot,
                            store_coord)
from .trax import Game

__all__ = ["game_key", "Table"]


def game_key(game: Game, log2n: int = 7) -> int:
    """The key of ``game``'s position and side to move, as an engine with ``2**log2n``
    squares a side keeps it after a reset and the game's moves (its ``key`` output)."""
    key = position_key((key_coord(store_coord(dx, log2n), log2n),
                        key_coord(store_coord(dy, log2n), log2n), mask)
                       for dx, dy, mask in game.placed_tiles())
    return key ^ (game.ply & 1)


class Table:
    """The table, empty (as the hardware clears it when a search starts), of
    ``2**index_bits`` entries (the hardware's by default; another size shows what a larger
    or smaller table would do, its check the key's other bits).

    It counts its ``probes`` and ``hits`` (probes it answered).  With ``verify`` it also
    keeps each entry's whole position, and counts ``false_hits``: probes and stores whose
    key matched an entry of another position (its answers are still the key's, as the
    hardware's)."""

    def __init__(self, log2n: int = 7, verify: bool = False, index_bits: int = INDEX_BITS):
        self.log2n = log2n
        self.index_bits = index_bits    # the hardware's, or a table of another size
        size = 1 << index_bits
        self.entries = [(0, 0, 0)] * size
        self.owners = [None] * size if verify else None
        self.probes = self.hits = self.false_hits = 0

    def _where(self, game, kind):
        key = game_key(game, self.log2n)
        at, chk = slot(key, 0, kind, self.index_bits), check(key, self.index_bits)
        if self.owners is not None:
            owner = (frozenset(game.placed_tiles()), game.ply & 1, kind)
            if self.entries[at][0] == chk and self.owners[at] not in (None, owner):
                self.false_hits += 1
            return at, chk, owner
        return at, chk, None

    def get(self, game: Game, kind: int, depth: int):
        """``(win, fail)``: whether the table answers a node of ``kind`` and ``depth`` on
        ``game``'s position."""
        at, chk, _ = self._where(game, kind)
        win, fail = probe(self.entries[at], chk, depth)
        self.probes += 1
        self.hits += win or fail
        return win, fail

    def put(self, game: Game, kind: int, depth: int, win: bool):
        """Store a node's verdict (where the entry's own is worth no more:
        :func:`~traxfpga.hdl.tt_spec.merge`)."""
        at, chk, owner = self._where(game, kind)
        was = self.entries[at]
        self.entries[at] = merge(was, chk, win, depth)
        if self.owners is not None and was[0] != chk and self.entries[at] != was:
            self.owners[at] = owner
