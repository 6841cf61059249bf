"""The search sequencer on the engine, in compiled simulation: the prototype's harness.

:class:`PVSSim` plays moves on the engine as the protocol would and asks the
:class:`~traxfpga.hdl.pvs.PVSCore` for the side to move's move.  It shares
:class:`~traxfpga.sim.search.SearchSim`'s engine calls; only the player differs.
"""

from typing import NamedTuple

from amaranth.hdl import Module, signed
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..hdl.engine import Command, Engine, Result
from ..hdl.pvs import PVSCore
from ..hdl.search import LFSR_SEED, SearchRequest
from ..hdl.share import share_engine
from ..hdl.tiles import SHAPE_CHARS, Shape
from .search import SearchSim, _signed16

__all__ = ["PVSHarness", "PVSSim", "PVSResult"]


class PVSHarness(wiring.Component):
    """One engine and the search sequencer, the host's commands going to the engine while
    the sequencer is idle."""

    def __init__(self, *, log2n=7, dual=False):
        self.log2n, self.dual = log2n, dual
        super().__init__({
            "cmd":           In(stream.Signature(Command)),
            "res":           Out(stream.Signature(Result)),
            "ctl":           In(SearchRequest),
            "seed":          In(16),
            "budget_cycles": In(32),
            "node_limit":    In(32),
            "depth":         Out(4),
            "value":         Out(signed(16)),
            "nodes":         Out(32),
            "insns":         Out(32),
            "cycles":        Out(32),
            "engine_cycles": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.engine = engine = Engine(log2n=self.log2n, dual=self.dual)
        m.submodules.pvs = pvs = PVSCore()
        m.d.comb += engine.cells.ready.eq(1)
        share_engine(m, engine, wiring.flipped(self.cmd), wiring.flipped(self.res), pvs)
        wiring.connect(m, wiring.flipped(self.ctl), pvs.ctl)
        m.d.comb += [
            pvs.seed.eq(self.seed),
            pvs.budget_cycles.eq(self.budget_cycles), pvs.node_limit.eq(self.node_limit),
            self.depth.eq(pvs.depth), self.value.eq(pvs.value), self.nodes.eq(pvs.nodes),
            self.insns.eq(pvs.insns), self.cycles.eq(pvs.cycles),
            self.engine_cycles.eq(pvs.engine_cycles),
        ]
        return m


class PVSResult(NamedTuple):
    move: str | None        # in notation; None when the game is over
    depth: int
    value: int
    nodes: int
    insns: int
    cycles: int
    engine_cycles: int      # of the cycles, those waiting for the engine


class PVSSim(SearchSim):
    """Engine plus search sequencer in compiled simulation (needs a C++ compiler)."""

    def __init__(self, *, log2n=7, dual=False):
        self._compile(PVSHarness(log2n=log2n, dual=dual), "pvs")
        self.limits(0, 0)
        self.set_seed(LFSR_SEED)

    def limits(self, cycles=0, nodes=0):
        """The next searches' cycle budget and node limit (0: none)."""
        self._cx.set("budget_cycles", cycles)
        self._cx.set("node_limit", nodes)

    def search(self, limit=1 << 34):
        from ..host.reference.trax import Move, format_move
        cx = self._cx
        cx.set("ctl__req", 1)
        cx.until("ctl__done", limit=limit)
        col, row = _signed16(cx.get("ctl__col")), _signed16(cx.get("ctl__row"))
        tile = SHAPE_CHARS[Shape(cx.get("ctl__tile"))]
        found = bool(cx.get("ctl__found"))
        out = PVSResult(format_move(Move(col, row, tile)) if found else None, cx.get("depth"),
                        _signed16(cx.get("value")), cx.get("nodes"), cx.get("insns"),
                        cx.get("cycles"), cx.get("engine_cycles"))
        cx.set("ctl__req", 0)
        cx.tick(2)
        return out
