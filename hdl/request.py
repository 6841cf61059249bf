"""The bundles between the board's player and whoever asks it for a move: one named
:class:`~amaranth.lib.wiring.Signature` each, so that the protocol sequencer, the search
cores, the sequencer and the simulation harnesses connect them with
:func:`~amaranth.lib.wiring.connect` instead of retyping their ports.  Each is seen from the
asker."""

from amaranth.hdl import signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .lfsr import LFSR_SEED
from .pvs_isa import MAX_CORES, NODE_BITS
from .tiles import Shape

__all__ = ["COORD_BITS", "MAX_CORES", "SearchRequest", "SearchLimits", "SearchReport"]

#: Width of the answer's coordinates (signed, notation coordinates).
COORD_BITS = 16

#: The four-phase handshake: raise ``req`` to start a search; ``done`` rises with the answer
#: (``found``: there is a move, ``col``/``row``/``tile`` in notation coordinates); drop
#: ``req`` and ``done`` falls.
SearchRequest = wiring.Signature({
    "req":   Out(1),
    "done":  In(1),
    "found": In(1),
    "col":   In(signed(COORD_BITS)),
    "row":   In(signed(COORD_BITS)),
    "tile":  In(Shape),
})

#: What bounds a search, read when it starts: the noise generator's start (never 0), and
#: the cycles and legal placements after which the search answers, once its first
#: iteration is complete (0: no limit; the node limit is how tests stop the hardware
#: where its twin stops).
SearchLimits = wiring.Signature({
    "seed":          Out(16, init=LFSR_SEED),
    "budget_cycles": Out(32),
    "node_limit":    Out(NODE_BITS),
})

#: How the last search went, valid from ``done``: the deepest iteration completed (plies; 0:
#: the opening, not searched), the answer's value for the side to move, the seed it
#: started from (the twin's ``seed``), the search's cycles from start to answer, and,
#: summed over the cores, legal placements (``nodes``), instructions, the cycles spent
#: waiting for the engine, the cores' own search cycles (``busy``), and the transposition
#: table's probes and the probes it answered (``tt_probes``, ``tt_hits``: 0 without a
#: table); ``core`` is the core whose answer it is.
SearchReport = wiring.Signature({
    "depth":         In(4),
    "value":         In(signed(16)),
    "seed_used":     In(16),
    "cycles":        In(32),
    "nodes":         In(NODE_BITS),
    "insns":         In(32),
    "engine_cycles": In(32),
    "busy":          In(40),
    "tt_probes":     In(32),
    "tt_hits":       In(32),
    "core":          In(range(MAX_CORES)),
})
