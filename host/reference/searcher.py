"""The board's player, in software: the exact algorithm of the hardware searcher.

:mod:`traxfpga.hdl.search` is the on-board player; this module chooses the same move by the
same rules on the reference engine, so that the hardware can be checked against it move for
move (``tests/test_search.py``) and so that its strength can be studied quickly (the
referee's ``model`` player).  docs/player.md describes the algorithm once, for both.

What differs from the hardware: the search runs on :class:`~traxfpga.host.reference.trax.Game`
(:func:`_or` and :func:`_and` are the win-by-force test, :func:`_deepen` the deepening
passes, :func:`_defend` the defence, which ranks the safe candidates with a heap where the
hardware scans its table of them); :func:`evaluate` is the model of the engine's ``EVAL``; and the
budget is counted in candidates (``None``: no limit) instead of cycles, which the tests use
to check the hardware's early answers.  The score is an integer (:func:`score_of`),
identical in both.
"""

from __future__ import annotations

import heapq

from .ai import _paths
from .trax import _SHIFT, _XMASK, Game, Illegal, Move

__all__ = ["Choice", "choose", "choose_cores", "score_of", "eval_field", "lfsr_next", "evaluate", "LFSR_SEED",
           "LFSR_TAPS", "THREAT_CAP", "EVAL_WEIGHTS", "EVAL_LINE", "EVAL_MAX", "EV_ZERO",
           "EV_DOUBLE_ATTACK", "EV_DOUBLE_BONUS", "MAX_DEPTH", "MAX_DEFENCE"]

TILES = ("+", "/", "\\")
# The weights of the engine's ``EVAL`` and the searcher's constants and score layout: one
# source each, read by the hardware too.
from ...hdl.eval_weights import END_CLASSES, EVAL_LINE, EVAL_MAX, EVAL_WEIGHTS  # noqa: E402
from ...hdl.search_params import (EV_DOUBLE_ATTACK, EV_DOUBLE_BONUS, EV_MAX,  # noqa: E402
                                 EV_NOISE_MAX, OPENING, ev_with_noise,
                                 EV_ZERO, LFSR_SEED, LFSR_TAPS, MAX_DEFENCE, MAX_DEPTH,
                                 THREAT_CAP, Score, owns, pack_score, pack_verdict,
                                 score_class, table_depth)
ATT_MAX = 255


def lfsr_next(v: int) -> int:
    """One step of the 16-bit Galois LFSR (taps 16, 14, 13, 11: polynomial 0xB400)."""
    return (v >> 1) ^ (LFSR_TAPS if v & 1 else 0)


def score_of(cls: int, mine: int, theirs: int, noise: int, ev: int = 0) -> int:
    """The integer score (:data:`~traxfpga.hdl.search_params.Score`): class, evaluation,
    threats, fewer opponent threats, noise."""
    return pack_score(cls, mine, theirs, noise, ev)


def _ev_of(score: int) -> int:
    return score >> Score["ev"].offset & EV_MAX


def _with_ev(score: int, ev: int) -> int:
    return score + ((ev - _ev_of(score)) << Score["ev"].offset)


def _cut_off(best):
    """The hardware's cut-off for a candidate's reply evaluations, given the best
    ``(move, score)`` so far: a candidate cannot beat a win by force, nor a safe candidate
    once it is unsafe itself or its least evaluation, with the most noise it could get, is
    below that candidate's."""
    if best is None:
        return None
    cls, best_ev = score_class(best[1]), _ev_of(best[1])
    if cls == 3:
        return lambda theirs, ev: True
    if cls == 2:
        return lambda theirs, ev: theirs > 0 or ev + EV_NOISE_MAX < best_ev
    return None


def eval_field(game: Game, me: int) -> int:
    """The evaluation of ``game`` for ``me``, from :func:`evaluate`: the mover's potential
    minus the opponent's, plus 100 for two loop attacks (four ends) or 6 an end for fewer,
    offset by :data:`EV_ZERO` and clamped to 16 bits.  A candidate's score holds the least
    of these over the opponent's quiet replies (:func:`_replies`)."""
    pot, att = evaluate(game)
    bonus = EV_DOUBLE_BONUS if att[me] >= EV_DOUBLE_ATTACK else 6 * att[me]
    return max(0, min(EV_MAX, pot[me] - pot[1 - me] + bonus + EV_ZERO))


class Choice:
    """The searcher's decision: ``move`` (a :class:`Move`), its ``score`` (of the main
    search), whether it wins at once (``win``) or by force (``forced``), how far the search
    got (``depth``: 1 a win at once, 2 the main search, 3.. the deepening passes, 0 cut
    short by the budget in the main search), ``defence`` (the opponent has no win by force
    within that many of its moves after the answer; 1: only its wins at once were looked
    for), and the work done: ``candidates`` scored (in the main search, and again each time
    the defence evaluated a cut candidate in full), ``refuted`` (answers the defence gave
    up) and ``trials`` (engine placements tried at the first level of the main search,
    legal or not)."""

    __slots__ = ("move", "score", "win", "forced", "candidates", "trials", "depth", "defence",
                 "answer_score", "core", "refuted")

    def __init__(self, move, score, win, candidates, trials, forced=False, depth=2, defence=1,
                 answer_score=None, refuted=0):
        self.move, self.score, self.win, self.forced = move, score, win, forced
        self.candidates, self.trials, self.depth = candidates, trials, depth
        self.defence, self.refuted = defence, refuted
        #: the answer's own score (the main search's best unless the defence replaced it)
        self.answer_score = score if answer_score is None else answer_score
        #: the core that chose it (:func:`choose_cores`)
        self.core = 0

    @property
    def verdict(self) -> int:
        """The answer's rank among the cores' answers (``Verdict``)."""
        return pack_verdict(True, self.win, self.forced, self.depth, self.defence,
                            self.answer_score)

    def __repr__(self):
        return (f"Choice({self.move}, score={self.score:#x}, win={self.win}, "
                f"forced={self.forced}, depth={self.depth}, defence={self.defence}, "
                f"candidates={self.candidates}, trials={self.trials})")


def _scan(game: Game):
    """Every placement in scan order, as ``Move`` (legal or not)."""
    w, h = game.width, game.height
    for col in range(-1, w + 1):
        for row in range(-1, h + 1):
            for t in TILES:
                yield Move(col, row, t)


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


def line_class(dx: int, dy: int, width: int, height: int) -> int | None:
    """How many squares the span of a path end falls short of the area (an index in
    :data:`EVAL_LINE`), or None (too short a span, or too far short)."""
    dx, dy = abs(dx), abs(dy)
    span = max(dx, dy) - 1
    full = max(8, width if dx > dy else height)
    short = full - span
    return short if span >= 3 and 0 <= short < len(EVAL_LINE) else None


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
    therefore counts twice.  Sums saturate at :data:`EVAL_MAX` and 255.
    """
    pot, att = [0, 0], [0, 0]
    weights = [EVAL_WEIGHTS[k] for k in END_CLASSES]
    for c in (0, 1):
        ends, lines = end_classes(game, c)
        pot[c] = (sum(n * w for n, w in zip(ends, weights))
                  + sum(n * w for n, w in zip(lines, EVAL_LINE)))
        att[c] = ends[0]
    return (min(pot[0], EVAL_MAX), min(pot[1], EVAL_MAX)), (min(att[0], ATT_MAX), min(att[1], ATT_MAX))


def _winner_index(game: Game):
    return {"white": 1, "black": 2}.get(game.winner, 0)


def _replies(game: Game, me: int, cut=None):
    """``(theirs, mine, ev, exact)`` after ``me`` moved in ``game``: the opponent's winning
    replies, the mover's threats (replies that complete only ``me``'s loop or line), and
    the least :func:`eval_field` over the replies that do not end the game (the
    opponent's best quiet answer; :data:`EV_MAX` when there is none).  ``cut`` is the
    hardware's cut-off: once it says the candidate cannot beat the best one so far
    (``cut(theirs, ev)`` with the counts and least evaluation seen so far), the remaining
    replies are not evaluated and ``exact`` is False (``ev`` is then an upper bound)."""
    opp = 1 - me
    theirs = mine = 0
    quiet = []
    for q, t, mask, wins in list(game._outcomes()):
        if wins[opp]:
            theirs += 1
        elif wins[me]:
            mine += 1
        else:
            quiet.append((q, t, mask))
    if cut is not None:
        # in the hardware's scan order (column, row, tile), which decides where a cut-off
        # falls and so the upper bound a cut candidate is ranked by
        quiet.sort(key=lambda e: (e[0] & _XMASK, e[0] >> _SHIFT, TILES.index(e[1])))
    ev = EV_MAX
    for q, _, mask in quiet:
        game._apply(q, mask, "")
        try:
            if game.reason is None:             # (a drawing reply is not evaluated)
                if cut is not None and cut(theirs, ev):
                    return theirs, mine, ev, False
                ev = min(ev, eval_field(game, me))
        finally:
            game.undo()
    return theirs, mine, ev, True


def _safe_threat(game: Game, me: int) -> bool:
    """Whether ``me``'s move just played in ``game`` is *safe* (no reply wins for the
    opponent) and *threatens* (some reply would complete only ``me``'s loop or line)."""
    opp = 1 - me
    threat = False
    for _, _, _, wins in game._outcomes():
        if wins[opp]:
            return False
        threat = threat or wins[me]
    return threat


def _or(game: Game, me: int, depth: int) -> bool:
    """Whether ``me``, to move in ``game``, wins within ``depth`` of its moves: a move that
    wins at once, or (``depth`` >= 2) a safe threatening move that wins by force with
    ``depth - 1`` more (:func:`_and`).  Moves that end the game otherwise are skipped."""
    colour = ("white", "black")[me]
    if game.has_winning_move(colour):
        return True
    if depth == 1:
        return False
    for q, _, mask, wins in list(game._outcomes()):
        if wins[0] or wins[1]:
            continue
        game._apply(q, mask, "")
        try:
            if (game.reason is None and _safe_threat(game, me)
                    and _and(game, me, depth)):
                return True
        finally:
            game.undo()
    return False


def _and(game: Game, me: int, depth: int) -> bool:
    """Whether ``me``, having just moved in ``game``, wins by force within ``depth`` of its
    moves counting that one: every reply of the opponent that neither wins for it nor
    completes only ``me``'s loop or line (those lose at once) leaves ``me`` a win within
    ``depth - 1`` (:func:`_or`).  A reply that draws (8x8) or wins for the opponent
    refutes it."""
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
            if not _or(game, me, depth - 1):
                return False
        finally:
            game.undo()
    return True


def _placed(g: Game, tried: list | None = None, own=None):
    """Play every legal placement on ``g`` in scan order and yield it, as the hardware's
    candidate scan does; the caller takes it back before asking for the next.  A refusal
    for the square (anything but a tile mismatch or three tracks) skips the square's other
    tiles, which fail alike.  ``tried[0]`` counts the placements tried, legal or not.
    ``own`` = (core, cores): only the core's share of the legal placements (``owns``); the
    others are played and taken back, as the core's scan does."""
    skip_square = None
    index = -1
    for mv in _scan(g):
        if skip_square == (mv.col, mv.row):
            continue
        if tried is not None:
            tried[0] += 1
        try:
            g.play(mv)
        except Illegal as exc:
            if exc.code not in ("mismatch", "three-tracks"):
                skip_square = (mv.col, mv.row)
            continue
        index += 1
        if own is not None and not owns(index, *own):
            g.undo()
            continue
        yield mv


def _deepen(g: Game, me: int, depth: int, own=None):
    """One deepening pass: the first candidate in scan order that neither ends the game
    nor is unsafe, threatens, and wins by force within ``depth`` of the mover's moves."""
    for mv in _placed(g, own=own):
        try:
            if (g.winner is None and g.reason is None and _safe_threat(g, me)
                    and _and(g, me, depth)):
                return mv
        finally:
            g.undo()
    return None


def _ranked(g: Game, me: int, safe: list, evals: list):
    """The safe candidates ``(score, index, move, exact, lfsr)`` as ``(score, move)``, best
    first (score, then scan order), as the hardware's scans of its table find them: a
    candidate whose evaluation was cut off (``exact`` False: its score is an upper bound)
    is evaluated in full when it comes to the top (counted in ``evals[0]``), and put
    back."""
    heap = [(-score, index, exact, mv, lfsr) for score, index, mv, exact, lfsr in safe]
    heapq.heapify(heap)
    while heap:
        neg, index, exact, mv, lfsr = heapq.heappop(heap)
        if exact:
            yield -neg, mv
            continue
        evals[0] += 1
        g.play(mv)
        try:
            _, _, ev, _ = _replies(g, me)
        finally:
            g.undo()
        heapq.heappush(heap, (-_with_ev(-neg, ev_with_noise(ev, lfsr)), index, True, mv, lfsr))


def _defend(g: Game, me: int, ranked, max_defence: int):
    """The defence phase: ``ranked`` yields the safe candidates, best first (score, then
    scan order); the first is the main search's answer.  The answer is tested against the
    opponent's win by force at depth 2, 3, ... ``max_defence``; when the opponent wins by
    force after it, the next candidate in rank is tested at the same depth.  Returns
    ``(answer, its score, defence, answers refuted)``."""
    ranked = iter(ranked)
    answer = next(ranked)
    defence, refuted, current = 1, 0, answer
    while defence < max_defence:
        while current is not None:
            g.play(current[1])
            try:
                lost = _or(g, 1 - me, defence + 1)
            finally:
                g.undo()
            if not lost:
                break
            current = next(ranked, None)
            refuted += 1
        if current is None:
            break
        answer, defence = current, defence + 1
    return answer[1], answer[0], defence, refuted


def choose(game: Game, *, budget: int | None = None, seed: int = LFSR_SEED,
           max_depth: int = MAX_DEPTH, max_defence: int = MAX_DEFENCE, own=None) -> Choice:
    """The searcher's move for the side to move in ``game`` (which is not changed).

    Parameters
    ----------
    game : Game
        A game that is not over.
    budget : int, optional
        Score at most this many candidates (the hardware's cycle budget, in candidates).
    seed : int
        The LFSR's value at the start of the search.
    max_depth : int
        Deepen the search for a win by force up to this many of the mover's moves (2: the
        main search's third ply only; the hardware's deepening passes stop here or when
        the budget runs out, and report the depth they completed).
    max_defence : int
        Test the answer against the opponent's win by force up to this many of its moves
        (1: no tests; see :func:`_defend`).
    own : tuple, optional
        ``(core, cores)`` or ``(core, cores, level, sub)``: choose among the candidates of
        one search core's share (:func:`~traxfpga.hdl.search_params.owns`), as that core
        does (:func:`choose_cores`).

    Raises
    ------
    ValueError
        When the game is over or there is no legal move.
    """
    if game.over:
        raise ValueError("the game is over: there is no move to choose")
    if game.ply == 0:                               # the opening is not searched
        return Choice(Move(*OPENING), 0, False, 0, 0, depth=0)
    g = game.copy()
    me = 0 if g.to_move == "white" else 1
    lfsr = seed
    best = None
    candidates = 0
    tried = [0]
    cut = False
    safe = []                                       # (score, index, move) of class 2
    for index, mv in enumerate(_placed(g, tried)):
        if own is not None and not owns(index, *own):
            # another share's candidate steps the noise as if scored: a candidate scores
            # the same in every share it falls in
            lfsr = lfsr_next(lfsr)
            g.undo()
            continue
        if budget is not None and candidates >= budget and best is not None:
            g.undo()
            cut = True
            break
        candidates += 1
        lfsr = lfsr_next(lfsr)
        w = _winner_index(g)
        if w == me + 1:
            g.undo()
            return Choice(mv, score_of(3, 0, 0, 0), True, candidates, tried[0], depth=1)
        if w:                                       # completes only the opponent's
            score = score_of(0, 0, 0, lfsr)
        elif g.reason is not None:                  # an 8x8 draw
            score = score_of(1, 0, 0, lfsr)
        else:
            theirs, mine, ev, exact = _replies(g, me, _cut_off(best))
            if (theirs == 0 and mine and (best is None or score_class(best[1]) < 3)
                    and _and(g, me, 2)):
                score = score_of(3, 0, 0, lfsr)     # wins by force; the first one stays
            else:
                score = score_of(2 if theirs == 0 else 1, mine, theirs, lfsr,
                                 ev_with_noise(ev, lfsr))
                if theirs == 0:
                    safe.append((score, candidates, mv, exact, lfsr))
        g.undo()
        if best is None or score > best[1]:
            best = (mv, score)
    if best is None:
        raise ValueError("no legal move")
    trials = tried[0]
    forced = score_class(best[1]) == 3
    if cut:
        return Choice(best[0], best[1], False, candidates, trials, forced=forced, depth=0)
    depth = 2
    if not forced:
        for d in range(3, max_depth + 1):
            mv = _deepen(g, me, d, own)
            if mv is not None:
                return Choice(mv, best[1], False, candidates, trials, forced=True, depth=d)
            depth = d
    defence = 1
    table = table_depth(1 if own is None else own[1])
    if not forced and max_defence > 1 and score_class(best[1]) == 2 and len(safe) <= table:
        evals = [0]
        answer, score, defence, refuted = _defend(g, me, _ranked(g, me, safe, evals),
                                                  max_defence)
        return Choice(answer, best[1], False, candidates + evals[0], trials, depth=depth,
                      defence=defence, answer_score=score, refuted=refuted)
    return Choice(best[0], best[1], False, candidates, trials, forced=forced, depth=depth,
                  defence=defence)


def choose_cores(game: Game, cores: int, **limits) -> Choice:
    """The move of ``cores`` search cores (:mod:`traxfpga.hdl.cores`): each chooses among
    the candidates of its own share (:func:`choose` with ``own``, the same ``limits``),
    and the answer of highest ``verdict`` is played, the lower core on a tie.  Its
    ``core`` tells whose share that was.  The hardware's cores that finish early take
    halves of the others' shares; when every search runs to its end that changes nothing
    (docs/player.md, "Many cores"), so this is its answer then.

    Raises
    ------
    ValueError
        When the game is over or there is no legal move.
    """
    if cores == 1:
        return choose(game, **limits)
    best = None
    for core in range(cores):
        try:
            c = choose(game, own=(core, cores), **limits)
        except ValueError:
            if game.over:
                raise
            continue                                # no candidate on this core's squares
        c.core = core
        if best is None or c.verdict > best.verdict:
            best = c
    if best is None:
        raise ValueError("no legal move")
    return best
