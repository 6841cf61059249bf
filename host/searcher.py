"""The board's player, in software: the exact algorithm of the hardware searcher.

:mod:`traxfpga.hdl.search` is the on-board player; this module chooses the same move by the
same rules on the reference engine, so that the hardware can be checked against it move for
move (``tests/test_search.py``) and so that its strength can be studied quickly.

The search, for the side to move:

1. **Candidates** in the hardware's scan order: column ``-1`` to ``width``, row ``-1`` to
   ``height``, tile ``+ / \\``; every legal placement is one candidate ``m``.
2. **Win now.**  The first candidate that wins for the mover is played at once.
3. **Depth two.**  Every other candidate is played, and every reply of the opponent is
   tried on the position after it (the same scan).  A reply that wins for the opponent
   makes ``m`` *unsafe*; a reply that would complete only the mover's loop or line is one
   of the mover's *threats* (a placement that completes it, whoever plays it).  A
   candidate that loses at once (it completes only the opponent's loop or line) is worst.
4. **Depth three: wins by force.**  A safe candidate with threats is tested further: every
   reply that neither wins for the opponent nor completes only the mover's loop or line
   is played, and the mover's placements after it are tried until one wins.  If every
   such reply leaves the mover a win (two threats the opponent cannot both stop, or a
   threat that survives every answer), ``m`` wins by force: it scores above every other
   candidate, and later candidates are no longer tested this way (the first stays; an
   immediate win found later is still played at once).
5. **Score.**  Otherwise ``class`` (2 safe, 1 unsafe, 0 losing at once), then the
   engine's evaluation of the position after ``m`` (:func:`eval_field`: the mover's
   attacking and line potential less the opponent's), then the threats created, then
   fewer opponent threats, then a small pseudo-random number from a 16-bit LFSR (started
   at :data:`LFSR_SEED` by every search, stepped once per scored candidate) so that
   equal moves are not always taken from the same corner.  The best score is played; equal
   scores keep the earlier candidate.
6. **Budget.**  The hardware counts cycles and stops deepening when its budget (the time
   limit minus a margin) runs out, answering the best candidate scored so far; the model
   takes a budget in candidates instead (``None``: no limit), which the tests use to check
   the hardware's early answer.

The score is an integer (:func:`score_of`), identical in both.
"""

from __future__ import annotations

from .ai import _paths
from .trax import _SHIFT, _XMASK, Game, Illegal, Move

__all__ = ["Choice", "choose", "score_of", "eval_field", "lfsr_next", "evaluate", "LFSR_SEED",
           "LFSR_TAPS", "THREAT_CAP", "EVAL_WEIGHTS", "EVAL_LINE", "EVAL_MAX", "EV_ZERO",
           "EV_DOUBLE_ATTACK", "EV_DOUBLE_BONUS"]

#: Threat counts saturate here (a 4-bit field of the score).
THREAT_CAP = 15
LFSR_SEED = 0xACE1
LFSR_TAPS = 0xB400          # Galois form: x^16 + x^14 + x^13 + x^11 + 1
TILES = ("+", "/", "\\")
#: Weight of an open path end by how far apart the spaces its two ends run into are
#: (the engine's ``EVAL``; the FAQ's loop attacks, corners and connectable pairs).
EVAL_WEIGHTS = {"adjacent": 12, "corner": 6, "two": 3, "three": 3, "four": 1}
#: Line potential of a path end by how far its span falls short of the area (``EVAL``).
EVAL_LINE = (16, 12, 9, 6, 4, 2)
EVAL_MAX = (1 << 16) - 1
ATT_MAX = 255
EV_ZERO = 1 << 15
EV_MAX = (1 << 16) - 1
EV_DOUBLE_ATTACK = 4
EV_DOUBLE_BONUS = 100


def lfsr_next(v: int) -> int:
    """One step of the 16-bit Galois LFSR (taps 16, 14, 13, 11: polynomial 0xB400)."""
    return (v >> 1) ^ (LFSR_TAPS if v & 1 else 0)


def score_of(cls: int, mine: int, theirs: int, noise: int, ev: int = 0) -> int:
    """The integer score: class (2 bits), evaluation (16), threats (4), 15 - opponent
    threats (4), noise (8)."""
    mine = min(mine, THREAT_CAP)
    theirs = min(theirs, THREAT_CAP)
    return ((cls << 32) | (ev << 16) | (mine << 12) | ((THREAT_CAP - theirs) << 8)
            | (noise & 0xFF))


def eval_field(game: Game, me: int) -> int:
    """The evaluation field of a candidate's score, from :func:`evaluate` after it: the
    mover's potential minus the opponent's, plus 100 for two loop attacks (four ends) or
    6 an end for fewer, offset by :data:`EV_ZERO` and clamped to 16 bits."""
    pot, att = evaluate(game)
    bonus = EV_DOUBLE_BONUS if att[me] >= EV_DOUBLE_ATTACK else 6 * att[me]
    return max(0, min(EV_MAX, pot[me] - pot[1 - me] + bonus + EV_ZERO))


class Choice:
    """The searcher's decision: ``move`` (a :class:`Move`), its ``score``, whether it wins
    at once (``win``) or by force at the mover's next turn (``forced``), and the work
    done: ``candidates`` scored and ``trials`` (engine placements tried at the first
    level, legal or not)."""

    __slots__ = ("move", "score", "win", "forced", "candidates", "trials")

    def __init__(self, move, score, win, candidates, trials, forced=False):
        self.move, self.score, self.win, self.forced = move, score, win, forced
        self.candidates, self.trials = candidates, trials

    def __repr__(self):
        return (f"Choice({self.move}, score={self.score:#x}, win={self.win}, "
                f"forced={self.forced}, candidates={self.candidates}, trials={self.trials})")


def _scan(game: Game):
    """Every placement in scan order, as ``Move`` (legal or not)."""
    w, h = game.width, game.height
    for col in range(-1, w + 1):
        for row in range(-1, h + 1):
            for t in TILES:
                yield Move(col, row, t)


def _end_weight(dx: int, dy: int) -> int:
    dx, dy = abs(dx), abs(dy)
    d = dx + dy
    if d == 1:
        return EVAL_WEIGHTS["adjacent"]
    if dx == 1 and dy == 1:
        return EVAL_WEIGHTS["corner"]
    return {2: EVAL_WEIGHTS["two"], 3: EVAL_WEIGHTS["three"], 4: EVAL_WEIGHTS["four"]}.get(d, 0)


def _line_weight(dx: int, dy: int, width: int, height: int) -> int:
    dx, dy = abs(dx), abs(dy)
    span = max(dx, dy) - 1
    full = max(8, width if dx > dy else height)
    short = full - span
    return EVAL_LINE[short] if span >= 3 and 0 <= short < len(EVAL_LINE) else 0


def evaluate(game: Game):
    """The engine's ``EVAL``: ``((pot_white, pot_black), (att_white, att_black))``.

    For every open path of a colour, each of its two ends (the empty space its track runs
    into) adds the weight of the distance to the space the other end runs into
    (:data:`EVAL_WEIGHTS`): 12 when adjacent (a loop attack, also counted in ``att``), 6
    diagonal (a corner), 3 two or three squares apart, 1 four apart; and, except in Loop
    Trax, its line potential (:data:`EVAL_LINE`): 16 when the span between the two squares
    (the larger of ``|dx| - 1`` and ``|dy| - 1``, at least 3) reaches the area's width or
    height along it (taken as at least 8), 12 one short, ... 2 five short.  Every path
    therefore counts twice.  Sums saturate at :data:`EVAL_MAX` and 255.
    """
    pot, att = [0, 0], [0, 0]
    lines = not game._loops_only
    for c in (0, 1):
        for a, b, _ in _paths(game, c):
            dx = (a & _XMASK) - (b & _XMASK)
            dy = (a >> _SHIFT) - (b >> _SHIFT)
            w = _end_weight(dx, dy)
            if lines:
                w += _line_weight(dx, dy, game.width, game.height)
            pot[c] += 2 * w
            att[c] += 2 * (abs(dx) + abs(dy) == 1)
    return (min(pot[0], EVAL_MAX), min(pot[1], EVAL_MAX)), (min(att[0], ATT_MAX), min(att[1], ATT_MAX))


def _winner_index(game: Game):
    return {"white": 1, "black": 2}.get(game.winner, 0)


def _replies(game: Game, me: int):
    """(the opponent's winning replies, the mover's threats) after ``me`` moved in ``game``."""
    opp = 1 - me
    theirs = mine = 0
    for _, _, _, wins in game._outcomes():
        if wins[opp]:
            theirs += 1
        elif wins[me]:
            mine += 1
    return theirs, mine


def _forced(game: Game, me: int) -> bool:
    """Whether ``me``, having just moved in ``game``, wins by force: every reply of the
    opponent that neither wins for it nor completes only ``me``'s loop or line (those lose
    at once) leaves ``me`` a winning move.  A reply that draws (8x8) or wins for the
    opponent refutes it."""
    opp = 1 - me
    for q, _, mask, wins in list(game._outcomes()):
        if wins[opp]:
            return False
        if wins[me]:
            continue
        game._apply(q, mask, "")
        try:
            if game.reason is not None:     # an 8x8 draw
                return False
            if not game.has_winning_move(("white", "black")[me]):
                return False
        finally:
            game.undo()
    return True


def choose(game: Game, *, budget: int | None = None, seed: int = LFSR_SEED) -> Choice:
    """The searcher's move for the side to move in ``game`` (which is not changed).

    Parameters
    ----------
    game : Game
        A game that is not over.
    budget : int, optional
        Score at most this many candidates (the hardware's cycle budget, in candidates).
    seed : int
        The LFSR's value at the start of the search.

    Raises
    ------
    ValueError
        When the game is over or there is no legal move.
    """
    if game.over:
        raise ValueError("the game is over: there is no move to choose")
    g = game.copy()
    me = 0 if g.to_move == "white" else 1
    lfsr = seed
    best = None
    candidates = trials = 0
    skip_square = None
    for mv in _scan(g):
        if skip_square == (mv.col, mv.row):
            continue
        trials += 1
        try:
            g.play(mv)
        except Illegal as exc:
            if exc.code not in ("mismatch", "three-tracks"):
                skip_square = (mv.col, mv.row)      # the square's other tiles fail alike
            continue
        if budget is not None and candidates >= budget and best is not None:
            g.undo()
            break
        candidates += 1
        lfsr = lfsr_next(lfsr)
        w = _winner_index(g)
        if w == me + 1:
            g.undo()
            return Choice(mv, score_of(3, 0, 0, 0), True, candidates, trials)
        if w:                                       # completes only the opponent's
            score = score_of(0, 0, 0, lfsr)
        elif g.reason is not None:                  # an 8x8 draw
            score = score_of(1, 0, 0, lfsr)
        else:
            theirs, mine = _replies(g, me)
            if (theirs == 0 and mine and (best is None or best[1] >> 32 < 3)
                    and _forced(g, me)):
                score = score_of(3, 0, 0, lfsr)     # wins by force; the first one stays
            else:
                score = score_of(2 if theirs == 0 else 1, mine, theirs, lfsr,
                                 eval_field(g, me))
        g.undo()
        if best is None or score > best[1]:
            best = (mv, score)
    if best is None:
        raise ValueError("no legal move")
    return Choice(best[0], best[1], False, candidates, trials, forced=best[1] >> 32 == 3)
