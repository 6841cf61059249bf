"""The sequencer's scoped scans in software, for its twin (:mod:`.pvs`): the lists of
placements a recorded scan leaves (``ScanMode.RECORD``), the move latched by ``UP``'s
``LATCH``, and the order of a scoped scan (``ScanMode.SCOPED``).  docs/player.md ("Scoped
scans") describes them; :mod:`.scope` argues why a scoped scan misses no reply that ends
the game.

The twin keeps positions as the reference does (absolute squares); the hardware keeps them
in the frame of the position the list was recorded in.  What both must agree on is which
placements a scan tries, in which order, and what each does.
"""

from __future__ import annotations

from ...hdl.pvs_isa import LIST_ENTRIES, WINDOW, ScanMode
from ...hdl.tile_chars import TILE_CHARS
from .scope import extent, kept_by_boxes, move_boxes
from .trax import _SHIFT, _XMASK, Game

__all__ = ["Scans"]


class Scans:
    """The scoped scans' state in one search: each level's list, the latched move, and the
    scoped scan under way (its places, ``(col, row, tile, tried)`` in notation, and where
    it is: a place not ``tried`` is passed over, as a square's word refuses a placement)."""

    def __init__(self):
        self.lists = {}             # level -> [(square, tile, extent or None, ended)]
        self.recorded_at = {}       # level -> the moves of the position it was recorded in
        self.recording = None       # the level whose list a recorded scan adds to
        self.latched = None         # move_boxes() of the move latched
        self.sequence = None        # a scoped scan's placements, or None (not scoped)
        self.at = 0

    def latch(self, game: Game):
        """UP's LATCH: the scope of the last move."""
        self.latched = move_boxes(game)

    def start(self, mode: int, lv: int, game: Game) -> bool:
        """SCAN0 at level ``lv`` in ``mode``: whether the scan is scoped (its first
        placement is then :meth:`current`)."""
        self.stop()
        if mode == ScanMode.RECORD:
            self.recording, self.lists[lv] = lv, []
            self.recorded_at[lv] = list(game.moves)
        elif mode == ScanMode.SCOPED:
            listed = self.lists.get(lv - 1)
            if listed is not None and self.latched is not None and game.variant != "8x8":
                # The list is of the position before the latched move: else the program
                # scoped a scan it did not record the parent's scan for.
                assert self.recorded_at[lv - 1] == game.moves[:-1], "a list of another position"
                self.sequence = _sequence(game, listed, self.latched)
                self.at = 0
        return self.sequence is not None

    def stop(self):
        """REST: the scan register is a placement again, and the scan goes on as PLAIN (a
        parent's scan resumed after its child's)."""
        self.recording = self.sequence = None

    def record(self, game: Game, col: int, row: int, tile: int, placed):
        """A recorded scan's placement: ``placed``, the tiles it placed (it is on the board
        now), or None if its forced tiles refused it."""
        listed = self.lists.get(self.recording)
        if listed is None:
            return
        if len(listed) == LIST_ENTRIES:             # too many: the level has no list
            self.lists[self.recording] = None
            return
        square = game._abs(col, row) if placed is None else placed[0]
        listed.append((square, tile, None if placed is None else extent(placed),
                       placed is not None and game.over))

    def current(self):
        """The scoped scan's place now, or None when it ran out."""
        return self.sequence[self.at] if self.at < len(self.sequence) else None


def _sequence(game: Game, listed, boxes):
    """A scoped scan's places in the position after the latched move: the window's
    placements, square by square in scan order, then the list's, in its order, those
    outside the window that the scope keeps to be tried.  (The hardware's NEXT steps
    through the list's places, and its scan passes over those it does not try.)"""
    tiles_box = boxes[0]
    minx, miny = game._minx, game._miny
    # The window, clipped to the scan's squares (the area and one square around it).
    x0, x1 = max(tiles_box[0] - WINDOW, minx - 1), min(tiles_box[1] + WINDOW, game._maxx + 1)
    y0, y1 = max(tiles_box[2] - WINDOW, miny - 1), min(tiles_box[3] + WINDOW, game._maxy + 1)
    out = [(x - minx, y - miny, t, True) for x in range(x0, x1 + 1)
           for y in range(y0, y1 + 1) for t in range(len(TILE_CHARS))]
    for square, tile, box, ended in listed:
        x, y = square & _XMASK, square >> _SHIFT
        outside = not (x0 <= x <= x1 and y0 <= y <= y1)     # (else the window's)
        tried = outside and (box is None or ended or kept_by_boxes(box, boxes))
        out.append((x - minx, y - miny, tile, tried))
    return out
