"""Wins by force, by plain recursion on the reference engine: the yardstick of the player's
threat search (``threat_search`` in ``hdl/pvs_program.py``, which the tests check against
it) and of the held-back games' losing moves (:mod:`traxfpga.host.positions`).

It follows only safe threatening moves, as the threat search does, so it sees the same wins
within a number of the attacker's moves; it is written independently of the program, so
that the two check each other.  A move that completes loops or lines of both colours is won
by its mover; one that completes only the opponent's is lost.
"""

from .trax import Game, Move

__all__ = ["wins_by_force", "forced_after", "refuted"]


def _safe_threat(game, me):
    """Whether ``me``'s move just played is safe (no reply wins for the opponent) and
    threatens (some reply would complete only ``me``'s loop or line)."""
    threat = False
    for _, _, _, wins in game._outcomes():
        if wins[1 - me]:
            return False
        threat = threat or wins[me]
    return threat


def wins_by_force(game: Game, me: int, depth: int) -> bool:
    """Whether ``me`` (0 White, 1 Black), to move, wins within ``depth`` of its moves: a
    move that wins at once, or (``depth`` >= 2) a safe threatening move after which every
    reply leaves ``me`` a win within ``depth - 1`` (:func:`forced_after`).  Moves that end
    the game otherwise are skipped."""
    if game.has_winning_move(("white", "black")[me]):
        return True
    if depth == 1:
        return False
    for q, _, mask, wins in list(game._outcomes()):
        if wins[0] or wins[1]:
            continue
        game._apply(q, mask, "")
        try:
            if game.reason is None and _safe_threat(game, me) and \
                    forced_after(game, me, depth):
                return True
        finally:
            game.undo()
    return False


def forced_after(game: Game, me: int, depth: int) -> bool:
    """Whether ``me``, having just moved, wins by force within ``depth`` of its moves
    counting that one: every reply that neither wins for the opponent nor completes only
    ``me``'s loop or line (those lose at once) leaves ``me`` a win within ``depth - 1``.
    A reply that draws (8x8) or wins for the opponent refutes it."""
    for q, _, mask, wins in list(game._outcomes()):
        if wins[1 - me]:
            return False
        if wins[me]:
            continue
        game._apply(q, mask, "")
        try:
            if game.reason is not None or not wins_by_force(game, me, depth - 1):
                return False
        finally:
            game.undo()
    return True


def refuted(game: Game, move: Move | str, depth: int) -> bool:
    """Whether ``move``, for the side to move in ``game``, loses: it completes only the
    opponent's loop or line, or leaves the opponent a win by force within ``depth`` of its
    moves.  ``game`` is left as it was."""
    mover = game.ply & 1
    after = game.copy()
    after.play(move)
    if after.over:
        return after.winner == ("white", "black")[1 - mover]
    return wins_by_force(after, 1 - mover, depth)
