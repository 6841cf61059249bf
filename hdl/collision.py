"""Memories whose read port never reads the word its write port writes in the same cycle.

Amaranth gives a read port the old word when the write port writes the same address in
the same cycle.  The iCE40's block RAM does not promise that, so Yosys emulates it in
logic: a register for every bit of the word written, and a multiplexer in front of the read
data (185 cells for the undo log's 87-bit words).  A memory whose ports never meet is
marked with :data:`NO_COLLISION`, Yosys's `no_rw_check` attribute, and the build tells
Yosys that its ports' collisions do not matter (``boards/top.py``, `NO_COLLISION_SCRIPT`).
Each use says why its ports never meet; the simulation, which gives the old word, is then
exact whatever the block RAM would give.
"""

__all__ = ["NO_COLLISION", "ATTRIBUTE"]

#: The attribute Yosys knows, as Yosys spells it.
ATTRIBUTE = "no_rw_check"

#: ``attrs`` of a ``Memory`` with one read port and one write port that never meet.
NO_COLLISION = {ATTRIBUTE: 1}
