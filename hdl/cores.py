"""The search cores: ``n`` move engines, each with its search sequencer (and perft unit),
that hold the same position and share the work of one answer (docs/player.md, "Many
cores").

To their host (the protocol sequencer) they look like one engine and one player:

* every engine command is **broadcast** to all the engines, which therefore stay equal (a
  search or a count leaves each engine's position exactly as it found it); the host reads
  core 0's results and squares;
* a search starts every sequencer at once; each searches the root's moves dealt to it
  until the budget is spent, and when all have answered the **combiner** passes on the
  greatest answer by ``pvs_program.answer_rank`` (a win, then the deepest iteration, then
  the highest value), the lower core's on a tie, as the twin's ``run_cores``;
* a ``:perft`` count starts every perft unit at once, each counting below the first moves
  on its own squares, and the host reads the sum.

With one core this is the engine, the sequencer and the perft unit wired together.
"""

from amaranth.hdl import Array, Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .engine import STATE_BITS, CellOut, Command, Engine, Result
from .perft import COUNT_BITS, Perft, PerftRequest
from .pvs import PVSCore
from .pvs_program import DECIDED, MAX_ITER, TEST_CAP
from .pvs_isa import MAX_CAPACITY
from .request import MAX_CORES, SearchLimits, SearchReport, SearchRequest
from .share import share_engine
from .tt_spec import INDEX_BITS

__all__ = ["Cores", "check_capacity", "check_cores", "table_of"]


def table_of(tt, dual):
    """Whether search cores have the threat search's transposition table: ``tt``, or where
    it is None, with a one-port store (the iCEBreaker's: its fourth SPRAM holds the
    table)."""
    return not dual if tt is None else tt


def check_capacity(capacity):
    """Raise ``ValueError`` unless the sequencer takes a board of this ``capacity`` (at
    most :data:`~traxfpga.hdl.pvs_isa.MAX_CAPACITY`: its placements are 7-bit
    coordinates)."""
    if capacity > MAX_CAPACITY:
        raise ValueError(f"the search sequencer takes a capacity of at most {MAX_CAPACITY}, "
                         f"not {capacity}")


def check_cores(n):
    """Raise ``ValueError`` unless a device may have ``n`` search cores (1 ..
    :data:`~traxfpga.hdl.pvs_isa.MAX_CORES`: the sequencers' ``DEAL`` and the report's
    ``core``)."""
    if not 1 <= n <= MAX_CORES:
        raise ValueError(f"there must be 1 .. {MAX_CORES} search cores, not {n}")


def _rank(depth, value):
    """:func:`~.pvs_program.answer_rank` as an unsigned number: a won game, not a lost one,
    the depth of an undecided one, the value (its sign bit flipped)."""
    won, lost = value > DECIDED, value < -DECIDED
    return Cat(value[:-1], ~value[-1], Mux(won | lost, 0, depth), ~lost, won)


class Cores(wiring.Component):
    """``n`` search cores behind one engine port and one player port.

    Parameters
    ----------
    n : int
        Search cores (each an engine, a sequencer and, with ``perft``, a perft unit).
    log2n : int
        Each engine's board store is ``2**log2n`` squares a side.
    perft : bool
        Include the perft units and the ``perft`` port.
    clear_on_start, spram, dual :
        The engines' (:class:`~traxfpga.hdl.engine.Engine`).
    tt : bool
        Each sequencer has a transposition table for its threat search (in an SPRAM with
        ``spram``), and its engine keeps the position's key.
    tt_bits : int
        Each table's entries: ``2**tt_bits`` (:class:`~traxfpga.hdl.ttable.TTable`).
    profile : bool
        One core only: its engine's state on ``state`` (:class:`~traxfpga.hdl.engine.Engine`).
    scoped : bool
        Each sequencer's threat search scans in scope (:mod:`~traxfpga.hdl.pvs_scope`), its
        engine keeping each placement's scope.
    max_iter : int
        The sequencers' last iteration (:class:`~traxfpga.hdl.pvs.PVSCore`'s).

    Attributes
    ----------
    cmd, res, cells :
        The engine port: commands go to every engine, results and squares come from core 0.
    ctl : In(SearchRequest)
    limits : In(SearchLimits)
        Every sequencer's (they start from the same seed).
    report : In(SearchReport)
        The chosen answer's ``depth``, ``value`` and ``core``; ``nodes``, ``insns``,
        ``engine_cycles``, ``busy`` and the table's counts summed over the cores; ``cycles``
        the search's time from start to answer (``busy / (n * cycles)``: how much of the
        cores' time the search used).
    perft : In(PerftRequest)
        ``:perft``: the sum of the cores' counts (also while they count).
    """

    def __init__(self, *, n=1, log2n=7, perft=False, clear_on_start=False, spram=False,
                 dual=False, quad=False, tt=False, cap=TEST_CAP, book=None, profile=False,
                 scoped=False, max_iter=MAX_ITER, tt_bits=INDEX_BITS):
        check_cores(n)
        if profile and n != 1:
            raise ValueError("the engine's state is shown for one core only")
        check_capacity(1 << log2n)
        self.n = n
        self.log2n = log2n
        self.has_perft = perft
        self.clear_on_start = clear_on_start
        self.spram = spram
        self.dual = dual
        self.quad = quad
        self.tt, self.tt_bits = tt, tt_bits
        self.cap = cap
        self.book = book
        self.profile = profile
        self.scoped = scoped
        self.max_iter = max_iter
        super().__init__({
            "cmd":    In(stream.Signature(Command)),
            "res":    Out(stream.Signature(Result)),
            "cells":  Out(stream.Signature(CellOut)),
            "ctl":    In(SearchRequest),
            "limits": In(SearchLimits),
            "report": In(SearchReport),
            **({"perft": In(PerftRequest)} if perft else {}),
            **({"state": Out(STATE_BITS)} if profile else {}),
        })

    def elaborate(self, platform):
        m = Module()
        n = self.n
        engines, sequencers, perfts, hosts = [], [], [], []
        for i in range(n):
            engine = Engine(log2n=self.log2n, clear_on_start=self.clear_on_start,
                            spram=self.spram, dual=self.dual, quad=self.quad, keyed=self.tt,
                            profile=self.profile, scope=self.scoped)
            # (The command stage is the one-port device's: its clock needs it.)
            sequencer = PVSCore(core=i, cores=n, tt=self.tt, spram=self.spram,
                                staged=not self.quad, cap=self.cap, book=self.book,
                                scoped=self.scoped, max_iter=self.max_iter,
                                tt_bits=self.tt_bits)
            if self.tt:
                m.d.comb += sequencer.key.eq(engine.key)
            if self.scoped:
                m.d.comb += sequencer.tried.eq(engine.tried)
            # one core keeps the names it had before there were many
            suffix = "" if n == 1 else f"_{i}"
            m.submodules[f"engine{suffix}"] = engine
            m.submodules[f"sequencer{suffix}"] = sequencer
            engines.append(engine)
            sequencers.append(sequencer)
            clients = [sequencer]
            if self.has_perft:
                unit = Perft(log2n=self.log2n, core=i, cores=n)
                m.submodules[f"perft{suffix}"] = unit
                perfts.append(unit)
                clients.append(unit)
            if n == 1:
                share_engine(m, engine, self.cmd, self.res, *clients)
            else:
                host_cmd = stream.Signature(Command).create(path=(f"host_cmd{suffix}",))
                host_res = stream.Signature(Result).flip().create(path=(f"host_res{suffix}",))
                share_engine(m, engine, host_cmd, host_res, *clients)
                hosts.append((host_cmd, host_res))
        wiring.connect(m, wiring.flipped(self.limits), *(s.limits for s in sequencers))
        if n == 1:
            wiring.connect(m, engines[0].cells, wiring.flipped(self.cells))
            if self.profile:
                m.d.comb += self.state.eq(engines[0].state)
            wiring.connect(m, wiring.flipped(self.ctl), sequencers[0].ctl)
            wiring.connect(m, wiring.flipped(self.report), sequencers[0].report)
            if perfts:
                wiring.connect(m, wiring.flipped(self.perft), perfts[0].ctl)
        else:
            self._broadcast(m, engines, hosts)
            self._combine(m, sequencers)
            if self.has_perft:
                self._sum(m, perfts)
        return m

    def _broadcast(self, m, engines, hosts):
        """Every host command to every engine at once; a result passes when every engine
        has one, and core 0's goes on.  Both ways go through a register: the engines
        spread over the part, and the host's ROM-driven handshake reaching all of them in
        one cycle was the 12-core 85F's critical path (22 ns, most of it routing).  It
        costs the host two cycles a command; the sequencers talk to their own engines."""
        cmds = [c for c, _ in hosts]
        ress = [r for _, r in hosts]
        # A command: taken into `cmd_r`, then offered to the engines once they were all
        # ready the cycle before (an engine leaves IDLE only by taking a command, and its
        # sequencer or perft unit is never active while the host is talking to it).
        cmd_r = Signal.like(self.cmd.payload)
        cmd_full = Signal()
        ready_r = Signal()
        m.d.sync += ready_r.eq(Cat(c.ready for c in cmds).all())
        go = Signal()
        m.d.comb += [self.cmd.ready.eq(~cmd_full), go.eq(cmd_full & ready_r)]
        with m.If(self.cmd.valid & ~cmd_full):
            m.d.sync += [cmd_full.eq(1), cmd_r.eq(self.cmd.payload)]
        with m.If(go):
            m.d.sync += cmd_full.eq(0)
        # A result: once every engine has one, core 0's is kept and all are released.
        res_r = Signal.like(self.res.payload)
        res_full = Signal()
        valid_r = Signal()
        m.d.sync += valid_r.eq(Cat(r.valid for r in ress).all() & ~res_full & ~valid_r)
        with m.If(valid_r):
            m.d.sync += [res_full.eq(1), res_r.eq(ress[0].payload)]
        with m.If(self.res.valid & self.res.ready):
            m.d.sync += res_full.eq(0)
        m.d.comb += [self.res.valid.eq(res_full), self.res.payload.eq(res_r)]
        for c, r in zip(cmds, ress):
            m.d.comb += [c.valid.eq(go), c.payload.eq(cmd_r), r.ready.eq(valid_r)]
        # the engines are equal, so they stream a DUMP's squares in step: core 0's go on
        m.d.comb += [self.cells.valid.eq(engines[0].cells.valid),
                     self.cells.payload.eq(engines[0].cells.payload)]
        for e in engines:
            m.d.comb += e.cells.ready.eq(self.cells.ready)

    def _combine(self, m, sequencers):
        """The sequencers all search at once, each the root moves dealt to it (one each in
        turn, in scan order: see the program's DEAL).  When every one has answered, their
        answers are looked at one a cycle and the greatest by
        :func:`~.pvs_program.answer_rank` is passed on, the lower core's on a tie: as the
        twin's ``run_cores``."""
        n = self.n
        report = self.report
        m.d.comb += report.seed_used.eq(sequencers[0].report.seed_used)
        for s in sequencers:
            # each holds its answer until the request falls, as the combiner does
            m.d.comb += s.ctl.req.eq(self.ctl.req)
        all_done = Signal()
        m.d.sync += all_done.eq(Cat(s.ctl.done for s in sequencers).all())
        p = Signal(range(n))
        found = Array(s.ctl.found for s in sequencers)
        pick = {name: Array(getattr(s.report, name) for s in sequencers)
                for name in ("depth", "value")}
        ctl = {name: Array(getattr(s.ctl, name) for s in sequencers)
               for name in ("col", "row", "tile")}
        sums = {name: Array(getattr(s.report, name) for s in sequencers)
                for name in ("nodes", "insns", "engine_cycles", "busy", "tt_probes",
                             "tt_hits")}
        best_found = Signal()
        best = {name: Signal.like(getattr(report, name)) for name in pick}
        best_ctl = {name: Signal.like(getattr(self.ctl, name)) for name in ctl}
        best_core = Signal.like(report.core)
        total = {name: Signal.like(getattr(report, name), name=f"total_{name}")
                 for name in sums}
        with m.FSM(name="combine"):
            with m.State("IDLE"):
                with m.If(self.ctl.req):
                    m.d.sync += [report.cycles.eq(0), self.ctl.done.eq(0), p.eq(0),
                                 best_found.eq(0), *(t.eq(0) for t in total.values())]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.sync += report.cycles.eq(report.cycles + 1)
                with m.If(all_done):
                    m.next = "MERGE"
            with m.State("MERGE"):
                depth, value = Signal.like(best["depth"]), Signal.like(best["value"])
                m.d.comb += [depth.eq(pick["depth"][p]), value.eq(pick["value"][p])]
                better = _rank(depth, value) > _rank(best["depth"], best["value"])
                with m.If(found[p] & (~best_found | better)):
                    m.d.sync += [best_found.eq(1), best_core.eq(p),
                                 *(best[name].eq(a[p]) for name, a in pick.items()),
                                 *(best_ctl[name].eq(a[p]) for name, a in ctl.items())]
                m.d.sync += [p.eq(p + 1),
                             *(t.eq(t + sums[name][p]) for name, t in total.items())]
                with m.If(p == n - 1):
                    m.next = "ANSWER"
            with m.State("ANSWER"):
                m.d.sync += [self.ctl.done.eq(1), self.ctl.found.eq(best_found),
                             report.core.eq(best_core),
                             *(getattr(report, name).eq(t) for name, t in total.items()),
                             *(getattr(report, name).eq(b) for name, b in best.items()),
                             *(getattr(self.ctl, name).eq(b) for name, b in best_ctl.items())]
                m.next = "DONE"
            with m.State("DONE"):
                with m.If(~self.ctl.req):
                    m.d.sync += self.ctl.done.eq(0)
                    m.next = "IDLE"

    def _sum(self, m, perfts):
        """Every perft unit counts at once; the count is their sum."""
        total = perfts[0].ctl.count
        for p in perfts[1:]:
            total = (total + p.ctl.count)[:COUNT_BITS]
        m.d.comb += [self.perft.done.eq(Cat(p.ctl.done for p in perfts).all()),
                     self.perft.count.eq(total)]
        for p in perfts:
            m.d.comb += [p.ctl.req.eq(self.perft.req), p.ctl.depth.eq(self.perft.depth)]

