"""The board's own move, as microcode routines of the protocol sequencer.

:func:`board_move` asks the player (the search cores, :mod:`traxfpga.hdl.cores`) for the
move and plays it.  When the player has no move (the game is over, or nothing is legal) or the
engine should refuse its move (which the tests say never happens), :func:`first_legal`
takes over: it gives the right error, or still finds a legal move.

**first_legal.**

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
"""

from ..hdl.engine import Op as EngineOp
from .isa import Cond, Op

__all__ = ["board_move", "first_legal"]


def board_move(a, *, entry, found, nomove):
    """Assemble the board's move into ``a``: the player's choice, played on the engine,
    with :func:`first_legal` behind it.  Same contract as :func:`first_legal`."""
    a.think = True
    a.label(entry)
    a.i(Op.SEARCH)
    a.goto(f"{entry}_scan", cond=Cond.FOUND, neg=True)
    a.i(Op.ENGINE, imm=EngineOp.PLACE.value)
    a.wait(Cond.RES)
    a.goto(found, cond=Cond.RES_OK)
    a.i(Op.ACK)
    a.think = False
    first_legal(a, entry=f"{entry}_scan", found=found, nomove=nomove)


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
