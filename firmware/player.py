"""The board's own move: the first legal move, as a microcode routine of the protocol sequencer.

The routine tries placements in a fixed order, column ``-1`` to ``width``, row ``-1`` to
``height``, tiles ``+ / \\``, each with an engine ``PLACE``: the engine rolls an illegal
trial back by itself, so the first trial it accepts is the move.  A trial refused for its
square (occupied, not adjacent, out of range, capacity, bounds) skips the square's other
tiles.  The candidate lives in the sequencer's ``col``/``acc``/``tile`` registers, which are
also what an engine command places and what the protocol prints, so the move found is
printed from them, relative to the area before the move as the notation wants.

Contract with the rest of the program: enter at ``entry``; leave at ``found`` with the move
applied and its engine result still offered (the caller prints from it, then takes it); at
``nomove`` when no placement is legal; or at the error printer with ``game-over`` when the
game was already over.  The instructions are marked as thinking (the LED).

A stronger player (issue 6) can replace this routine, or hand the engine to a hardware
searcher between ``entry`` and ``found``, with the same contract.
"""

from ..hdl.engine import Op as EngineOp
from .isa import Cond, Op

__all__ = ["first_legal"]


def first_legal(a, *, entry, found, nomove):
    """Assemble the first-legal-move routine into ``a``."""
    a.think = True
    a.label(entry)
    a.i(Op.SCAN_START)
    a.label(f"{entry}_try")
    a.i(Op.ENGINE, imm=EngineOp.PLACE.value)
    a.wait(Cond.RES)
    a.goto(found, cond=Cond.RES_OK)
    a.i(Op.ERR_STATUS, cond=Cond.RES_OVER, to="error")
    a.i(Op.NEXT_TILE, cond=Cond.RES_SQUARE, neg=True, to=f"{entry}_try")
    a.i(Op.NEXT_ROW, cond=Cond.ROW_LAST, neg=True, to=f"{entry}_try")
    a.i(Op.NEXT_COL, cond=Cond.COL_LAST, neg=True, to=f"{entry}_try")
    a.i(Op.ACK, to=nomove)
    a.think = False
