"""The searcher on the engine, in simulation: the hardware player without the serial front end.

:class:`SearchSim` plays moves on the engine (as the protocol would) and asks the
:class:`~traxfpga.hdl.search.Searcher` for the side to move's choice, on the compiled
simulation (:mod:`traxfpga.sim.verilator` where it is installed, else
:mod:`traxfpga.sim.cxxrtl`), so it needs a C++ compiler.  (Without one, the
searcher still runs on Amaranth's simulator inside the whole device: ``DeviceSim``.)
"""

from typing import NamedTuple

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..hdl.cores import Cores
from ..hdl.engine import Command, Op, Result
from ..hdl.search import LFSR_SEED, MAX_DEFENCE, MAX_DEPTH, SearchRequest
from ..hdl.tiles import SHAPE_CHARS, Shape, Status
from . import cxxrtl, verilator
from .core import SHAPES, VARIANTS, command, send_command
from .device import default_backend

__all__ = ["SearchHarness", "SearchSim", "SearchResult"]


class SearchHarness(wiring.Component):
    """The search cores (engine and searcher, or ``cores`` of them), as in the device."""

    def __init__(self, *, log2n=7, budget=1 << 24, max_depth=MAX_DEPTH,
                 max_defence=MAX_DEFENCE, cores=1, dual=False):
        self.log2n = log2n
        self.cores = cores
        self.dual = dual
        self.budget = budget
        self.max_depth = max_depth
        self.max_defence = max_defence
        super().__init__({
            "cmd":        In(stream.Signature(Command)),
            "res":        Out(stream.Signature(Result)),
            "ctl":        In(SearchRequest),
            "win":        Out(1),
            "forced":     Out(1),
            "depth":      Out(4),
            "defence":    Out(4),
            "seed":       In(16),
            "seed_used":  Out(16),
            "candidates": Out(16),
            "cycles":     Out(32),
            "nodes":      Out(32),
            "core":       Out(range(cores)),
            "busy":       Out(40),
            "splits":     Out(16),
            **({"budget_cycles": In(32)} if budget is None else {}),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.cores = s = Cores(n=self.cores, log2n=self.log2n, budget=self.budget,
                                       max_depth=self.max_depth, max_defence=self.max_defence,
                                       dual=self.dual, player="search")
        m.d.comb += s.cells.ready.eq(1)
        wiring.connect(m, wiring.flipped(self.cmd), s.cmd)
        wiring.connect(m, s.res, wiring.flipped(self.res))
        wiring.connect(m, wiring.flipped(self.ctl), s.ctl)
        if self.budget is None:
            m.d.comb += s.budget_cycles.eq(self.budget_cycles)
        m.d.comb += [
            self.win.eq(s.win), self.forced.eq(s.forced), self.depth.eq(s.depth),
            self.defence.eq(s.defence), s.seed.eq(self.seed), self.seed_used.eq(s.seed_used),
            self.candidates.eq(s.candidates), self.cycles.eq(s.cycles),
            self.nodes.eq(s.nodes), self.core.eq(s.core), self.busy.eq(s.busy),
            self.splits.eq(s.splits),
        ]
        return m


class SearchResult(NamedTuple):
    move: str | None        # in notation, None when no move was found
    col: int
    row: int
    tile: str
    win: bool
    forced: bool            # wins by force (at the mover's next turn, or deeper)
    candidates: int
    cycles: int             # the searcher's own count, start to done
    depth: int              # the deepest pass completed (1: a win at once; 0: cut short)
    defence: int            # the opponent has no win by force within this many moves
    seed: int               # the noise generator's value at the start (the twin's seed)
    nodes: int              # legal engine placements made
    core: int = 0           # the search core whose answer it is
    busy: int = 0           # the cores' own search cycles, summed
    splits: int = 0         # shares halved for cores that had finished their own


def _signed16(v):
    return v - (1 << 16) if v & 0x8000 else v


class SearchSim:
    """Engine plus searcher in compiled simulation (this needs a C++ compiler).

    ``budget`` is the searcher's cycle budget; with ``budget=None`` it is a port, set with
    :meth:`set_budget` (initially ``1 << 24``), so one compiled simulation can try many.
    ``max_depth`` and ``max_defence`` are the searcher's deepest pass and defence test
    (:class:`~traxfpga.hdl.search.Searcher`); ``cores`` search cores share each search
    (:class:`~traxfpga.hdl.cores.Cores`), their engines on a dual-port store with ``dual``.
    """

    def __init__(self, *, log2n=7, budget=1 << 24, max_depth=MAX_DEPTH,
                 max_defence=MAX_DEFENCE, cores=1, dual=False):
        self._compile(SearchHarness(log2n=log2n, budget=budget, max_depth=max_depth,
                                    max_defence=max_defence, cores=cores, dual=dual), "search")
        self.budget = budget
        self.max_depth = max_depth
        self.max_defence = max_defence
        self.set_seed(LFSR_SEED)
        if budget is None:
            self.set_budget(1 << 24)

    def _compile(self, harness, name):
        """Start ``harness`` (engine and player) in compiled simulation, its results taken
        as they come."""
        if not cxxrtl.available():
            raise RuntimeError(f"{type(self).__name__} needs a C++ compiler for the compiled "
                               "simulation")
        self.harness = harness
        # The fastest compiled backend, as the device picks it (a C++ compiler is there).
        compiled = {"verilator": verilator.VerilatorSim, "cxxrtl": cxxrtl.CxxrtlSim}
        self._cx = compiled[default_backend()](harness, name=name)
        self._cx.set("res__ready", 1)

    def set_seed(self, seed):
        """The noise generator's start value for the next searches (not 0)."""
        if not 0 < seed < 1 << 16:
            raise ValueError(f"the seed must be 1 .. 65535, not {seed}")
        self._cx.set("seed", seed)
        self.seed = seed

    def set_budget(self, cycles):
        """The cycle budget of the next searches (only with ``budget=None``)."""
        if self.harness.budget is not None:
            raise ValueError("this simulation's budget is fixed: build it with budget=None")
        self._cx.set("budget_cycles", cycles)
        self.budget = cycles

    def _call(self, **fields):
        cx = self._cx
        send_command(cx, command(**fields))
        cx.until("res__valid")
        res = Result.from_bits(cx.get("res__payload"))
        cx.tick()
        return res

    def reset(self, variant="trax"):
        return self._call(op=Op.RESET, variant=VARIANTS[variant])

    def play(self, move):
        """Play a move given as a :class:`~traxfpga.host.reference.trax.Move` or notation text."""
        from ..host.reference.trax import parse_move
        mv = parse_move(move) if isinstance(move, str) else move
        res = self._call(op=Op.PLACE, col=mv.col, row=mv.row, tile=SHAPES[mv.tile])
        if Status(res.status) != Status.OK:
            raise ValueError(f"the engine refused {move}: {Status(res.status).name}")
        return res

    def undo(self):
        return self._call(op=Op.UNDO)

    def search(self, limit=1 << 31):
        """Ask the searcher for the side to move's move."""
        from ..host.reference.trax import Move, format_move
        cx = self._cx
        cx.set("ctl__req", 1)
        cx.until("ctl__done", limit=limit)
        col, row = _signed16(cx.get("ctl__col")), _signed16(cx.get("ctl__row"))
        tile = SHAPE_CHARS[Shape(cx.get("ctl__tile"))]
        found, win = bool(cx.get("ctl__found")), bool(cx.get("win"))
        out = SearchResult(format_move(Move(col, row, tile)) if found else None, col, row, tile,
                           win, bool(cx.get("forced")), cx.get("candidates"), cx.get("cycles"),
                           cx.get("depth"), cx.get("defence"), cx.get("seed_used"), cx.get("nodes"),
                           cx.get("core") if self.harness.cores > 1 else 0, cx.get("busy"),
                           cx.get("splits"))
        cx.set("ctl__req", 0)
        cx.tick(2)
        return out

    def close(self):
        self._cx.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
