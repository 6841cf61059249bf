"""A real but simple Trax player on top of the reference engine.

:func:`choose_move` decides in three steps:

1. **Win now.**  A move that completes a loop or line of the mover's colour
   wins (even if it also completes the opponent's), so take it.
2. **Do not lose now, and stop the opponent's threats.**  Moves that complete
   only the opponent's loop or line lose at once and are dropped.  Every other
   move is tried, and a move after which the opponent has a winning reply is
   *unsafe*.  When the opponent threatens to win next turn, the safe moves are
   exactly the ones that prevent it.
3. **Otherwise, a heuristic** from the FAQ's strategy section (E2: count
   corners and connectable pairs): for every open path of a colour, the closer
   its two ends are, the more attacking potential it has (ends pointing into
   adjacent spaces are a loop attack, into diagonal spaces a corner, a single
   curve included, a little further apart a connectable pair or the like);
   long paths stretching across the area count as line
   potential (not in Loop Trax).  The score of a move is the mover's potential
   minus the opponent's after it, with a bonus for making two attacks at once
   (the opponent can only stop one).

Ties are broken by the given random generator, so play is deterministic for
a given seed.  Typical positions take a few tens of milliseconds.
"""

from __future__ import annotations

import random

from .trax import _DELTA, _SHIFT, _XMASK, Game, Move, trace

__all__ = ["choose_move", "evaluate", "AIOpponent"]

# weight of an open path by the distance between the spaces its two ends point into
_END_WEIGHT = {1: 6.0, 2: 3.0, 3: 1.5, 4: 0.5}


def _paths(game: Game, c: int):
    """Every open path of colour ``c`` as ``(end_a, end_b, tiles)``; an end is
    the empty space its track runs into.  Loops are skipped (the game is over
    when one exists)."""
    b = game._b
    seen = set()
    out = []
    for p0, t0 in b.items():
        if p0 in seen:
            continue
        ends, tiles = trace(b, p0, c)
        seen.update(tiles)
        if ends is not None:
            (pa, da), (pb, db) = ends
            out.append((pa + _DELTA[da], pb + _DELTA[db], len(tiles)))
    return out


def evaluate(game: Game, colour: str) -> float:
    """Attacking potential of ``colour`` in ``game`` (higher is better for it).

    Sums, over the colour's open paths, a weight that grows as the two ends of
    the path come closer (loop attacks, corners, connectable pairs), plus line
    potential for paths whose ends are far apart across a wide area.
    """
    return _potential(game, 0 if colour == "white" else 1)[0]


def _potential(game: Game, c: int):
    """(score, number of loop attacks) of colour ``c``."""
    score = 0.0
    attacks = 0
    lines = not game._loops_only
    width, height = game.width, game.height
    for a, b, n in _paths(game, c):
        ax, ay = a & _XMASK, a >> _SHIFT
        bx, by = b & _XMASK, b >> _SHIFT
        dx, dy = abs(ax - bx), abs(ay - by)
        dist = dx + dy
        if dist == 1:              # ends in adjacent spaces: a loop attack
            score += _END_WEIGHT[1]
            attacks += 1
        elif dx == 1 and dy == 1:  # ends in diagonal spaces: a corner (a single curve at least)
            score += _END_WEIGHT[2]
        elif n > 1 and dist in _END_WEIGHT:  # a little further: connectable pairs and the like
            score += _END_WEIGHT[dist] * (0.5 if dist == 2 else 1.0)
        if lines:
            span = max(dx - 1, dy - 1)
            if span >= 3:
                # ends far apart in one direction: line potential, growing as the
                # span approaches the width or height of the area and 8
                full = max(8, width if dx > dy else height)
                score += 4.0 * (span / full) ** 2
    return score, attacks


def choose_move(game: Game, rng: random.Random | None = None) -> Move:
    """Choose a move for the side to move in ``game`` (which is not changed).

    Parameters
    ----------
    game : Game
    rng : random.Random, optional
        Breaks ties; ``random.Random(0)`` when omitted, so the choice is
        deterministic either way.

    Returns
    -------
    Move
        Always a legal move.

    Raises
    ------
    ValueError
        When the game is over (there is no legal move).
    """
    if rng is None:
        rng = random.Random(0)
    g = game.copy()
    if g.over:
        raise ValueError("the game is over: there is no move to choose")
    me = 0 if g.to_move == "white" else 1
    outcomes = sorted(g._outcomes(), key=lambda o: (o[0] >> _SHIFT, o[0] & _XMASK, o[1]))
    if not outcomes:
        raise ValueError("no legal move")
    rel = g._rel

    def as_move(o):
        col, row = rel(o[0])
        return Move(col, row, o[1])

    # 1. win now
    wins = [o for o in outcomes if o[3][me]]
    if wins:
        return as_move(wins[rng.randrange(len(wins))])
    # 2. moves that complete only the opponent's loop or line lose at once
    pool = [o for o in outcomes if not o[3][1 - me]] or outcomes
    opp_colour = ("white", "black")[1 - me]
    scored = []
    for o in pool:
        q, _, m, _ = o
        g._apply(q, m, "", draws=False)
        safe = g.reason is not None or not g.has_winning_move(opp_colour)
        if g.reason is None:
            mine, my_attacks = _potential(g, me)
            theirs, _ = _potential(g, 1 - me)
            score = mine - theirs + (25.0 if my_attacks >= 2 else 3.0 * my_attacks)
        else:  # an 8x8 move that can only end the game one way or the other
            score = 0.0
        g.undo()
        scored.append((safe, score, rng.random(), o))
    best = max(scored, key=lambda s: (s[0], s[1], s[2]))
    return as_move(best[3])


class AIOpponent:
    """The reference AI as an opponent for ``trax-fpga play``.

    An opponent is any object with ``name`` and ``reply(game) -> move text``
    (and optionally ``close()``); a serial device can take this one's place.
    """

    def __init__(self, seed: int | None = 0):
        self.name = "reference AI"
        self._rng = random.Random(seed)

    def reply(self, game: Game) -> str:
        """The AI's move for the side to move in ``game``, as notation."""
        from .trax import format_move
        return format_move(choose_move(game, self._rng))

    def close(self):
        pass
