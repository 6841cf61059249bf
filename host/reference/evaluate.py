"""The model of the engine's ``EVAL``: the features of a position (its open paths' ends by
class) and their weighted sums, as the hardware computes them, for the sequencer's twin
(:mod:`.pvs`) and the weights' fit (:mod:`.fit_eval`).  The weights are
:mod:`traxfpga.hdl.eval_weights`, one source for the engine and this model."""

from __future__ import annotations

from ...hdl.eval_weights import ATT_MAX, END_CLASSES, EVAL_LINE, EVAL_MAX, EVAL_WEIGHTS
from .ai import _paths
from .trax import _SHIFT, _XMASK, Game

__all__ = ["END_CLASSES", "ATT_MAX", "end_class", "shortfall", "line_class", "end_classes",
           "evaluate"]


def end_class(dx: int, dy: int) -> int | None:
    """The index in :data:`END_CLASSES` of a path end whose two squares are ``dx``, ``dy``
    apart, or None (too far apart to count)."""
    dx, dy = abs(dx), abs(dy)
    d = dx + dy
    if d == 1:
        return 0
    if dx == 1 and dy == 1:
        return 1
    return {2: 2, 3: 3, 4: 4}.get(d)


def shortfall(dx: int, dy: int, width: int, height: int) -> int:
    """How many squares the span between a path's two end squares (``dx``, ``dy`` apart:
    the larger distance less one) falls short of the area's width or height along it,
    taken as at least 8."""
    dx, dy = abs(dx), abs(dy)
    return max(8, width if dx > dy else height) - (max(dx, dy) - 1)


def line_class(dx: int, dy: int, width: int, height: int) -> int | None:
    """How many squares the span of a path end falls short of the area (an index in
    :data:`EVAL_LINE`), or None (too short a span, or too far short)."""
    short = shortfall(dx, dy, width, height)
    return short if max(abs(dx), abs(dy)) - 1 >= 3 and 0 <= short < len(EVAL_LINE) else None


def end_classes(game: Game, c: int):
    """``(ends, lines)``: how many path ends of colour ``c`` fall in each class of
    :data:`END_CLASSES` and of :data:`EVAL_LINE` (every path counts twice, once for each
    end; no line classes in Loop Trax): the features :func:`evaluate` weighs."""
    ends, lines = [0] * len(END_CLASSES), [0] * len(EVAL_LINE)
    for a, b, _ in _paths(game, c):
        dx = (a & _XMASK) - (b & _XMASK)
        dy = (a >> _SHIFT) - (b >> _SHIFT)
        k = end_class(dx, dy)
        if k is not None:
            ends[k] += 2
        if not game._loops_only:
            k = line_class(dx, dy, game.width, game.height)
            if k is not None:
                lines[k] += 2
    return ends, lines


def evaluate(game: Game):
    """The engine's ``EVAL``: ``((pot_white, pot_black), (att_white, att_black))``.

    For every open path of a colour, each of its two ends (the empty space its track runs
    into) adds the weight of the distance to the space the other end runs into
    (:data:`EVAL_WEIGHTS`, by class: adjacent, a loop attack, also counted in ``att``;
    diagonal, a corner; two, three and four squares apart); and, except in Loop Trax, its
    line potential (:data:`EVAL_LINE`, by how many squares the span between the two
    squares, the larger of ``|dx| - 1`` and ``|dy| - 1`` and at least 3, falls short of
    the area's width or height along it, taken as at least 8).  Every path
    therefore counts twice.  Sums saturate at :data:`EVAL_MAX` and :data:`ATT_MAX`.
    """
    pot, att = [0, 0], [0, 0]
    weights = [EVAL_WEIGHTS[k] for k in END_CLASSES]
    for c in (0, 1):
        ends, lines = end_classes(game, c)
        pot[c] = (sum(n * w for n, w in zip(ends, weights))
                  + sum(n * w for n, w in zip(lines, EVAL_LINE)))
        att[c] = ends[0]
    return (min(pot[0], EVAL_MAX), min(pot[1], EVAL_MAX)), (min(att[0], ATT_MAX), min(att[1], ATT_MAX))
