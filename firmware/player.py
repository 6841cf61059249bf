"""The board's own move, as a microcode routine of the protocol sequencer.

:func:`board_move` asks the player (the search cores, :mod:`traxfpga.hdl.cores`) for the
move and plays it.  The player has a move whenever one is legal: its first iteration tries
every placement of the position.  So when it has none, one ``PLACE`` at ``@0`` tells the two
cases apart: the game is over (``! game-over``), or nothing is legal (``! nomove``).  A
move of the player's that the engine refused would be answered with the engine's status
as an error, never with an illegal move (the tests say it never happens).

Contract with the rest of the program: enter at ``entry``; leave at ``found`` with the move
applied and its engine result still offered (the caller prints from it, then takes it); at
``nomove`` when no placement is legal; or at the error printer.  The instructions are
marked as thinking (the LED).
"""

from ..hdl.engine import Op as EngineOp
from .isa import Cond, Op

__all__ = ["board_move"]


def board_move(a, *, entry, found, nomove):
    """Assemble the board's move into ``a``."""
    a.think = True
    a.label(entry)
    a.i(Op.SEARCH)
    a.goto(f"{entry}_none", cond=Cond.FOUND, neg=True)
    a.i(Op.ENGINE, imm=EngineOp.PLACE.value)
    a.wait(Cond.RES)
    a.goto(found, cond=Cond.RES_OK)
    a.i(Op.ERR_STATUS, to="error")
    a.label(f"{entry}_none")
    # No move: the engine's answer to a placement at @0 says why (a legal one is played).
    a.i(Op.ACC_M1)
    a.i(Op.COL_M1)
    a.i(Op.ENGINE, imm=EngineOp.PLACE.value)
    a.wait(Cond.RES)
    a.goto(found, cond=Cond.RES_OK)
    a.i(Op.ERR_STATUS, cond=Cond.RES_OVER, to="error")
    a.i(Op.ACK, to=nomove)
    a.think = False
