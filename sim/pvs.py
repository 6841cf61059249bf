"""The search sequencer on the engine, in compiled simulation.

:class:`PVSSim` plays moves on the engines as the protocol would and asks the
:class:`~traxfpga.hdl.pvs.PVSCore` (or several, :class:`~traxfpga.hdl.cores.Cores`) for the
side to move's move.  It shares
:class:`~traxfpga.sim.search.SearchSim`'s engine calls; only the player differs.
"""

from typing import NamedTuple

from amaranth.hdl import Module, signed
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..hdl.cores import Cores
from ..hdl.engine import Command, Result
from ..hdl.search import LFSR_SEED, SearchRequest
from ..hdl.tiles import SHAPE_CHARS, Shape
from .search import SearchSim, _signed16

__all__ = ["PVSHarness", "PVSSim", "PVSResult"]


class PVSHarness(wiring.Component):
    """The search cores with the sequencer as their player, as in the device (one engine
    and sequencer, or ``cores`` of them), the host's commands going to the engines while
    the sequencers are idle."""

    def __init__(self, *, log2n=7, dual=False, cores=1):
        self.log2n, self.dual, self.cores = log2n, dual, cores
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
            "core":          Out(range(cores)),
            "busy":          Out(40),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.cores = s = Cores(n=self.cores, log2n=self.log2n, budget=None,
                                       dual=self.dual, player="pvs")
        m.d.comb += s.cells.ready.eq(1)
        wiring.connect(m, wiring.flipped(self.cmd), s.cmd)
        wiring.connect(m, s.res, wiring.flipped(self.res))
        wiring.connect(m, wiring.flipped(self.ctl), s.ctl)
        m.d.comb += [
            s.seed.eq(self.seed),
            s.budget_cycles.eq(self.budget_cycles), s.node_limit.eq(self.node_limit),
            self.depth.eq(s.depth), self.value.eq(s.value), self.nodes.eq(s.nodes),
            self.insns.eq(s.insns), self.cycles.eq(s.cycles),
            self.engine_cycles.eq(s.engine_cycles), self.core.eq(s.core),
            self.busy.eq(s.busy),
        ]
        return m


class PVSResult(NamedTuple):
    move: str | None        # in notation; None when the game is over
    depth: int
    value: int
    nodes: int
    insns: int
    cycles: int
    engine_cycles: int      # of the cycles, those waiting for the engine (summed over cores)
    core: int = 0           # the core whose answer it is
    busy: int = 0           # the cores' own search cycles, summed (one core: ``cycles``)


class PVSSim(SearchSim):
    """Engines plus search sequencers in compiled simulation (needs a C++ compiler): one,
    or ``cores`` sharing each search."""

    def __init__(self, *, log2n=7, dual=False, cores=1):
        self._compile(PVSHarness(log2n=log2n, dual=dual, cores=cores), "pvs")
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
                        cx.get("cycles"), cx.get("engine_cycles"),
                        cx.get("core") if self.harness.cores > 1 else 0, cx.get("busy"))
        cx.set("ctl__req", 0)
        cx.tick(2)
        return out
