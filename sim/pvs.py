"""The board's player on its engines, in compiled simulation: the search cores without the
serial front end.

:class:`PVSSim` plays moves on the engines as the protocol would and asks the
:class:`~traxfpga.hdl.pvs.PVSCore` (or several, :class:`~traxfpga.hdl.cores.Cores`) for the
side to move's move, on the compiled simulation (:mod:`traxfpga.sim.verilator` where it is
installed, else :mod:`traxfpga.sim.cxxrtl`), so it needs a C++ compiler.  (Without one, the
player still runs on Amaranth's simulator inside the whole device: ``DeviceSim``.)
"""

from typing import NamedTuple

from amaranth.hdl import Fragment, Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..hdl.cores import Cores, table_of
from ..hdl.engine import STATE_BITS, Command, Engine, Op, Result
from ..hdl.lfsr import LFSR_SEED
from ..hdl.pvs_program import MAX_ITER, TEST_CAP
from ..hdl.request import SearchLimits, SearchReport, SearchRequest
from ..hdl.tiles import SHAPE_CHARS, Shape, Status
from ..hdl.tt_spec import INDEX_BITS
from . import cxxrtl
from .compiled import COMPILED, default_backend
from .core import SHAPES, VARIANTS, command, send_command
from .backends import signed16

__all__ = ["PVSHarness", "PVSSim", "PVSResult", "engine_state_names"]

#: Bits of each of the profiling harness's per-state cycle counters.
STATE_COUNT_BITS = 32


def engine_state_names(*, log2n, dual, quad=False):
    """The names of the engine's states by their codes, as a harness's ``state_cycles``
    counts them (elaborating an engine: the compiled simulation may come from its cache)."""
    engine = Engine(log2n=log2n, dual=dual, quad=quad, keyed=not dual, clear_on_start=False,
                    profile=True)
    Fragment.get(engine, None)
    return engine.state_names


class PVSHarness(wiring.Component):
    """The search cores as in the device (one engine and sequencer, or ``cores`` of them),
    the host's commands going to the engines while the sequencers are idle.  With
    ``profile`` (one core), ``state_cycles[code]`` counts the cycles its engine has spent in the
    state of that code since reset.  ``cap``, ``book``: the program's cap on a root move's
    test and its opening book (:func:`~traxfpga.hdl.pvs_program.program`); ``scoped``: the
    threat search's scoped scans; ``max_iter``: the program's last iteration; ``tt``: the
    threat search's transposition table and the engines' key (None: with a one-port store,
    as the iCEBreaker's device), of ``2**tt_bits`` entries."""

    def __init__(self, *, log2n=7, dual=False, quad=False, cores=1, profile=False,
                 cap=TEST_CAP, book=None, scoped=False, max_iter=MAX_ITER, tt=None,
                 tt_bits=INDEX_BITS):
        self.log2n, self.dual, self.cores, self.profile = log2n, dual, cores, profile
        self.quad, self.cap, self.book, self.scoped = quad, cap, book, scoped
        self.max_iter = max_iter
        self.tt, self.tt_bits = table_of(tt, dual), tt_bits
        super().__init__({
            "cmd":    In(stream.Signature(Command)),
            "res":    Out(stream.Signature(Result)),
            "ctl":    In(SearchRequest),
            "limits": In(SearchLimits),
            "report": In(SearchReport),
            **({"state_cycles": Out(data.ArrayLayout(STATE_COUNT_BITS, 1 << STATE_BITS))} if profile else {}),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.cores = s = Cores(n=self.cores, log2n=self.log2n, dual=self.dual, quad=self.quad,
                                       tt=self.tt, tt_bits=self.tt_bits, cap=self.cap,
                                       book=self.book,
                                       profile=self.profile, scoped=self.scoped,
                                       max_iter=self.max_iter)
        if self.profile:
            for code in range(1 << STATE_BITS):
                with m.If(s.state == code):
                    m.d.sync += self.state_cycles[code].eq(self.state_cycles[code] + 1)
        m.d.comb += s.cells.ready.eq(1)
        wiring.connect(m, wiring.flipped(self.cmd), s.cmd)
        wiring.connect(m, s.res, wiring.flipped(self.res))
        wiring.connect(m, wiring.flipped(self.ctl), s.ctl)
        wiring.connect(m, wiring.flipped(self.limits), s.limits)
        wiring.connect(m, wiring.flipped(self.report), s.report)
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
    tt_probes: int = 0      # the transposition table's probes (0: no table)
    tt_hits: int = 0        # of them, those it answered


class PVSSim:
    """Engines plus search sequencers in compiled simulation (needs a C++ compiler): one,
    or ``cores`` sharing each search, their engines on a dual-port store with ``dual``;
    with ``profile`` (one core), :meth:`state_cycles`; ``cap``, ``book``, ``scoped``,
    ``max_iter``, ``tt`` and ``tt_bits`` as :class:`PVSHarness`'s."""

    def __init__(self, *, log2n=7, dual=False, quad=False, cores=1, profile=False,
                 cap=TEST_CAP, book=None, scoped=False, max_iter=MAX_ITER, tt=None,
                 tt_bits=INDEX_BITS):
        if not cxxrtl.available():
            raise RuntimeError("PVSSim needs a C++ compiler for the compiled simulation")
        args = dict(log2n=log2n, dual=dual, cores=cores, profile=profile)
        if quad:
            args["quad"] = True
        if cap != TEST_CAP:             # (the default's cache entry unchanged)
            args["cap"] = cap
        if book is not None:
            args["book"] = tuple(map(tuple, book))
        if scoped:
            args["scoped"] = True
        if max_iter != MAX_ITER:
            args["max_iter"] = max_iter
        if table_of(tt, dual) != table_of(None, dual):  # (the default's cache entry unchanged)
            args["tt"] = tt
        if tt_bits != INDEX_BITS:
            args["tt_bits"] = tt_bits
        self._names = engine_state_names(log2n=log2n, dual=dual, quad=quad) if profile else None
        self.harness = PVSHarness(**args)
        # The fastest compiled backend, as the device picks it (a C++ compiler is there).
        self._cx = COMPILED[default_backend()](self.harness, name="pvs",
                                               made_as=(PVSHarness, args))
        self._cx.set("res__ready", 1)
        self.limits(0, 0)
        self.set_seed(LFSR_SEED)

    def set_seed(self, seed):
        """The noise generator's start value for the next searches (not 0)."""
        if not 0 < seed < 1 << 16:
            raise ValueError(f"the seed must be 1 .. 65535, not {seed}")
        self._cx.set("limits__seed", seed)
        self.seed = seed

    def limits(self, cycles=0, nodes=0):
        """The next searches' cycle budget and node limit (0: none)."""
        self._cx.set("limits__budget_cycles", cycles)
        self._cx.set("limits__node_limit", nodes)

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

    def search(self, limit=1 << 34):
        """Ask the player for the side to move's move."""
        from ..host.reference.trax import Move, format_move
        cx = self._cx
        cx.set("ctl__req", 1)
        cx.until("ctl__done", limit=limit)
        col, row = signed16(cx.get("ctl__col")), signed16(cx.get("ctl__row"))
        tile = SHAPE_CHARS[Shape(cx.get("ctl__tile"))]
        found = bool(cx.get("ctl__found"))
        report = {name: cx.get(f"report__{name}") for name in
                  ("depth", "value", "nodes", "insns", "cycles", "engine_cycles", "core",
                   "busy", "tt_probes", "tt_hits")}
        out = PVSResult(format_move(Move(col, row, tile)) if found else None,
                        report["depth"], signed16(report["value"]), report["nodes"],
                        report["insns"], report["cycles"], report["engine_cycles"],
                        report["core"], report["busy"], report["tt_probes"],
                        report["tt_hits"])
        cx.set("ctl__req", 0)
        cx.tick(2)
        return out

    def state_cycles(self):
        """The cycles the engine has spent in each state since the simulation began, by the
        state's name (needs ``profile``)."""
        if self._names is None:
            raise RuntimeError("the engine's states are counted only with profile=True")
        counts = self._cx.get("state_cycles")
        mask = (1 << STATE_COUNT_BITS) - 1
        return {name: (counts >> (STATE_COUNT_BITS * code)) & mask
                for code, name in self._names.items()}

    def close(self):
        self._cx.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
