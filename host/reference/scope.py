"""The scope of a move: the replies whose outcome at once the move can have changed.

The threat search's AND node (docs/player.md, "The threat search") places every reply to
the attacker's move ``t`` to find those that end the game: the attacker's wins at once
(``t`` threatens) and the defender's (``t`` is refuted).  Most of its placements are that
scan.  Yet a reply ``r`` ends the game after ``t`` only if it already did before ``t``
(the position ``P``), or ``t`` changed what ``r`` does:

* ``r``'s tiles in ``P`` (its placed tile and the tiles it forces) come within two
  squares (Manhattan) of a tile ``t`` placed.  Else every square ``r``'s cascade fills or
  inspects has the same neighbours after ``t`` as before, so ``r`` places the same tiles,
  and is legal or not alike;
* or one of ``r``'s tiles fills the square just past an end of a path through ``t``'s
  tiles.  Else a loop that ``r`` closes, or a line it completes, does not run through
  ``t``'s tiles: its tiles are ``r``'s and ``P``'s, and it was a loop, or a line (``t``
  only widens the area, which ends lines, not makes them), in ``P`` as well;
* or ``r`` was not a legal placement in ``P`` at all (``t``'s tiles border its square, or
  changed its cascade).

So the replies in scope, plus those that ended the game in ``P``, hold every reply that
ends it after ``t``; an AND node that knew each placement's tiles in ``P`` (its parent's
scan places every one of them) would need to place only those.  Hardware would keep less
than the tiles: their extent (the least rectangle holding them).  A reply whose extent,
widened by two squares, meets the extent of ``t``'s tiles, or holds an end square, is kept
then: more replies, the same guarantee.

The sequencer keeps less still: two boxes of the move (:func:`move_boxes`), its tiles'
extent, and the hull of that extent widened by one with the end tiles of the paths
through the move's tiles.  The engine meets those ends as it joins paths (the far ends it
logs for each tile): every final end is logged, by the last of the move's tiles on its
path, and an end logged that a later tile of the move joined on lies next to that tile,
inside the widened extent; so the hull is the same whatever the order the engine placed
the tiles in.  A reply is kept then if its extent, widened by one (an end square lies
next to its end tile), meets the hull (:func:`kept_by_boxes`), which holds whenever its
extent widened by two meets the move's; a reply that was refused by its forced tiles, or
that ended the game, is always kept.  The sequencer's scoped scans (:mod:`.scoped_scan`)
use this form, and the first box for their window.

This module is the rule on the reference engine, to measure what it would save (``trax-fpga
bench work --scope``); ``tests/test_scope.py`` checks it against every reply's outcome.
"""

from __future__ import annotations

from .trax import _DELTA, _SHIFT, _XMASK, Game, trace

__all__ = ["Scope", "placements", "scope", "extent", "move_boxes", "kept_by_boxes"]


def placements(game: Game) -> tuple[dict, set]:
    """Every legal placement of the side to move in ``game``: ``{(square, mask): its
    tiles}`` (the placed square first), and the set of those that end the game."""
    tiles, ending = {}, set()
    for q, _, m in list(game._candidates()):
        tiles[q, m] = game._apply(q, m, "")     # legal: the tiles it placed
        if game.winner is not None:
            ending.add((q, m))
        game.undo()
    return tiles, ending


def _path_end_squares(game: Game, tiles) -> set:
    """The empty squares just past the two ends of every path (of either colour) that runs
    through ``tiles``; a closed loop has none."""
    out = set()
    for p0 in tiles:
        for c in (0, 1):
            ends, _ = trace(game._b, p0, c)
            for p, d in ends or ():
                out.add(p + _DELTA[d])
    return out


def extent(tiles):
    """The least rectangle holding the squares ``tiles``: (x0, x1, y0, y1)."""
    xs = [p & _XMASK for p in tiles]
    ys = [p >> _SHIFT for p in tiles]
    return min(xs), max(xs), min(ys), max(ys)


def move_boxes(game: Game):
    """The sequencer's scope of ``game``'s last move: its tiles' extent, and the hull of
    that extent widened by one with the end tiles of the paths (of either colour) through
    its tiles."""
    moved = game._hist[-1].placed
    x0, x1, y0, y1 = box = extent(moved)
    ends = [p for p0 in moved for c in (0, 1) for p, _ in trace(game._b, p0, c)[0] or ()]
    if not ends:
        return box, (x0 - 1, x1 + 1, y0 - 1, y1 + 1)
    e = extent(ends)
    return box, (min(x0 - 1, e[0]), max(x1 + 1, e[1]), min(y0 - 1, e[2]), max(y1 + 1, e[3]))


def kept_by_boxes(reply_extent, boxes) -> bool:
    """Whether a reply whose tiles before the move had ``reply_extent`` is in the scope
    of a move of :func:`move_boxes` ``boxes``."""
    return _near_extents(reply_extent, boxes[1], 1)


def _near_extents(a, b, by=2) -> bool:
    """Whether extent ``a`` widened by ``by`` squares meets extent ``b``."""
    return a[0] - by <= b[1] and b[0] <= a[1] + by and a[2] - by <= b[3] and b[2] <= a[3] + by


def _holds(extent, p) -> bool:
    x, y = p & _XMASK, p >> _SHIFT
    return extent[0] <= x <= extent[1] and extent[2] <= y <= extent[3]


def _near(tiles, others) -> bool:
    """Whether a square of ``tiles`` lies within two squares (Manhattan) of one of
    ``others``."""
    return any(abs((a & _XMASK) - (o & _XMASK)) + abs((a >> _SHIFT) - (o >> _SHIFT)) <= 2
               for a in tiles for o in others)


class Scope:
    """The replies to the last move of a game, sorted by what the rule knows of them:
    ``replies`` (every legal reply, ``(square, mask)``), ``ending`` (those that end the
    game), ``kept`` (those the rule keeps: in scope, or ending the game before the move),
    ``kept_by_extents`` (those it keeps from the extents of the tiles), ``kept_by_boxes``
    (those the sequencer keeps: :func:`kept_by_boxes`)."""

    __slots__ = ("replies", "ending", "kept", "kept_by_extents", "kept_by_boxes")

    def __init__(self, replies, ending, kept, kept_by_extents, kept_by_boxes):
        self.replies, self.ending, self.kept = replies, ending, kept
        self.kept_by_extents, self.kept_by_boxes = kept_by_extents, kept_by_boxes


def scope(game: Game) -> Scope:
    """The scope of ``game``'s last move (not one that ended the game); ``game`` is left
    as it was.  Trax and Loop Trax only: in 8x8 a reply also draws when it leaves no legal
    move anywhere."""
    if game.variant == "8x8":
        raise ValueError("the scope of a move holds for Trax and Loop Trax, not 8x8")
    last = game._hist[-1]
    moved = last.placed
    text = last.text
    game.undo()
    try:
        before, ended_before = placements(game)
    finally:
        game.play(text)
    ends = _path_end_squares(game, moved)
    boxes = move_boxes(game)
    after, ending = placements(game)
    kept, by_extents, by_boxes = set(), set(), set()
    for r in after:
        tiles = before.get(r)
        if tiles is None or r in ended_before:
            kept.add(r)
            by_extents.add(r)
            by_boxes.add(r)
            continue
        if _near(tiles, moved) or any(p in ends for p in tiles):
            kept.add(r)
        box = extent(tiles)
        if _near_extents(box, boxes[0]) or any(_holds(box, p) for p in ends):
            by_extents.add(r)
        if kept_by_boxes(box, boxes):
            by_boxes.add(r)
    return Scope(set(after), ending, kept, by_extents, by_boxes)
