"""The search cores: ``n`` move engines, each with its searcher (and perft unit), that hold
the same position and share the work of one answer (docs/player.md, "Many cores").

To their host (the protocol sequencer) they look like one engine and one searcher:

* every engine command is **broadcast** to all the engines, which therefore stay equal (a
  search or a count leaves each engine's position exactly as it found it); the host reads
  core 0's results and squares;
* a search starts every searcher at once; each takes only its share of the candidates
  (dealt round the cores in scan order) and answers with its best, ranked by its
  ``verdict``; a core that has finished is started again, while the budget lasts, on half
  of the share of a core still searching; the **combiner** merges the answers as they come
  and, when every core has finished, passes on the answer of highest verdict, the lower
  share on a tie, so the answer depends only on the position, the seed and the budget.
  When a core answers with a win (at once or by force) the others are stopped: their
  answers cannot rank above it unless they have a win too;
* with the search sequencer (``player="pvs"``) every sequencer searches the root's moves
  dealt to it until the budget is spent, and when all have answered the combiner passes on
  the answer of highest value, the lower core's on a tie;
* a ``:perft`` count starts every perft unit at once, each counting below the first moves
  on its own squares, and the host reads the sum.

With one core this is the engine, the searcher and the perft unit wired as before.
"""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .engine import CellOut, Command, Engine, Result
from .players import DEFAULT_PLAYER, PLAYERS
from .pvs import PVSCore
from .pvs_isa import MAX_CAPACITY, WORD_BITS
from .perft import COUNT_BITS, Perft, PerftRequest
from .search import MAX_DEFENCE, MAX_DEPTH, SearchRequest, Searcher
from .search_params import SPLITS, Share, Verdict
from .share import share_engine

__all__ = ["Cores", "DEFAULT_PLAYER", "PLAYERS", "check_player"]


def check_player(player, cores, capacity):
    """Raise ``ValueError`` unless ``player`` is one of :data:`PLAYERS` that these many
    ``cores`` and this ``capacity`` take (the sequencer: a capacity of at most 128)."""
    if player not in PLAYERS:
        raise ValueError(f"player must be one of {', '.join(PLAYERS)}, not {player!r}")
    if player == "pvs" and capacity > MAX_CAPACITY:
        raise ValueError(f"the search sequencer (player pvs) takes a capacity of at most "
                         f"{MAX_CAPACITY}, not {capacity}")


class Cores(wiring.Component):
    """``n`` search cores behind one engine port and one searcher port.

    Parameters
    ----------
    n : int
        Search cores (each an engine, a searcher and, with ``perft``, a perft unit).
    log2n : int
        Each engine's board store is ``2**log2n`` squares a side.
    budget, max_depth, max_defence :
        The searchers' (:class:`~traxfpga.hdl.search.Searcher`); ``budget=None`` adds the
        ``budget_cycles`` port.
    perft : bool
        Include the perft units and the ``perft`` port.
    clear_on_start, spram, dual :
        The engines' (:class:`~traxfpga.hdl.engine.Engine`).
    player : str
        ``"pvs"`` (the default): the search sequencer running its program
        (:class:`~traxfpga.hdl.pvs.PVSCore`), whose ``win``, ``forced``, ``defence``,
        ``candidates`` and ``splits`` are 0, with the ports ``node_limit``, ``value``,
        ``insns`` and ``engine_cycles``; ``"search"``: the hand-wired searcher.

    Attributes
    ----------
    cmd, res, cells :
        The engine port: commands go to every engine, results and squares come from core 0.
    ctl : In(SearchRequest)
        The search, as the searcher's; ``win``, ``forced``, ``depth``, ``defence`` and
        ``candidates`` are the chosen search's, ``core`` tells whose share it searched, ``nodes``
        is the sum over the cores and ``cycles`` the search's time from start to answer;
        ``busy`` is the sum of the cores' own search times (``busy / (n * cycles)``: how
        much of the cores' time the search used) and ``splits`` how many times a share
        was halved for a core that had finished its own.
    seed : In(16)
        Every searcher's noise seed (they start from the same one).
    perft : In(PerftRequest)
        ``:perft``: the sum of the cores' counts (also while they count).
    """

    def __init__(self, *, n=1, log2n=7, budget=1 << 24, max_depth=MAX_DEPTH,
                 max_defence=MAX_DEFENCE, perft=False, clear_on_start=False, spram=False,
                 dual=False, player=DEFAULT_PLAYER):
        if n < 1:
            raise ValueError(f"there must be at least one core, not {n}")
        check_player(player, n, 1 << log2n)
        self.player = player
        self.n = n
        self.log2n = log2n
        self.budget = budget
        self.max_depth = max_depth
        self.max_defence = max_defence
        self.has_perft = perft
        self.clear_on_start = clear_on_start
        self.spram = spram
        self.dual = dual
        super().__init__({
            "cmd":        In(stream.Signature(Command)),
            "res":        Out(stream.Signature(Result)),
            "cells":      Out(stream.Signature(CellOut)),
            "ctl":        In(SearchRequest),
            "win":        Out(1),
            "forced":     Out(1),
            "depth":      Out(4),
            "defence":    Out(4),
            "core":       Out(range(n)),
            "seed":       In(16),
            "seed_used":  Out(16),
            "candidates": Out(16),
            "cycles":     Out(32),
            "nodes":      Out(32),
            "busy":       Out(40),
            "splits":     Out(16),
            **({"budget_cycles": In(32)} if budget is None else {}),
            **({"perft": In(PerftRequest)} if perft else {}),
            # the sequencers': a node limit for each (0: none; the tests' way to stop them
            # where the twin stops), the chosen answer's value, instructions and engine
            # cycles summed over the cores
            **({"node_limit": In(32), "value": Out(signed(WORD_BITS)), "insns": Out(32),
                "engine_cycles": Out(32)} if player == "pvs" else {}),
        })

    def elaborate(self, platform):
        m = Module()
        n = self.n
        engines, searchers, perfts, hosts = [], [], [], []
        for i in range(n):
            engine = Engine(log2n=self.log2n, clear_on_start=self.clear_on_start,
                            spram=self.spram, dual=self.dual)
            if self.player == "pvs":
                searcher = PVSCore(core=i, cores=n)
            else:
                searcher = Searcher(coord_bits=self.log2n + 3, budget=self.budget,
                                    max_depth=self.max_depth, max_defence=self.max_defence,
                                    core=i, cores=n)
            # one core keeps the names it had before there were many
            suffix = "" if n == 1 else f"_{i}"
            m.submodules[f"engine{suffix}"] = engine
            m.submodules[f"searcher{suffix}"] = searcher
            engines.append(engine)
            searchers.append(searcher)
            m.d.comb += searcher.seed.eq(self.seed)
            if self.player == "pvs":
                m.d.comb += [searcher.budget_cycles.eq(
                                 self.budget_cycles if self.budget is None else self.budget),
                             searcher.node_limit.eq(self.node_limit)]
            elif self.budget is None:
                m.d.comb += searcher.budget_cycles.eq(self.budget_cycles)
            clients = [searcher]
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
        if n == 1:
            self._one(m, engines[0], searchers[0], perfts)
        else:
            self._broadcast(m, engines, hosts)
            if self.player == "pvs":
                self._combine_pvs(m, searchers)
            else:
                self._combine(m, searchers)
            if self.has_perft:
                self._sum(m, perfts)
        return m

    def _one(self, m, engine, s, perfts):
        wiring.connect(m, engine.cells, wiring.flipped(self.cells))
        wiring.connect(m, wiring.flipped(self.ctl), s.ctl)
        if perfts:
            wiring.connect(m, wiring.flipped(self.perft), perfts[0].ctl)
        if self.player == "pvs":
            m.d.comb += [self.depth.eq(s.depth), self.cycles.eq(s.cycles),
                         self.nodes.eq(s.nodes), self.busy.eq(s.cycles),
                         self.seed_used.eq(s.seed_used), self.value.eq(s.value),
                         self.insns.eq(s.insns), self.engine_cycles.eq(s.engine_cycles)]
            return
        m.d.comb += [
            self.win.eq(s.win), self.forced.eq(s.forced), self.depth.eq(s.depth),
            self.defence.eq(s.defence), self.seed_used.eq(s.seed_used),
            self.candidates.eq(s.candidates), self.cycles.eq(s.cycles),
            self.nodes.eq(s.nodes), self.busy.eq(s.cycles),
        ]

    def _broadcast(self, m, engines, hosts):
        """Every host command to every engine at once; a result passes when every engine
        has one, and core 0's goes on.  Both ways go through a register: the engines
        spread over the part, and the host's ROM-driven handshake reaching all of them in
        one cycle was the 12-core 85F's critical path (22 ns, most of it routing).  It
        costs the host two cycles a command; the searchers talk to their own engines."""
        cmds = [c for c, _ in hosts]
        ress = [r for _, r in hosts]
        # A command: taken into `cmd_r`, then offered to the engines once they were all
        # ready the cycle before (an engine leaves IDLE only by taking a command, and its
        # searcher or perft unit is never active while the host is talking to it).
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

    def _combine(self, m, searchers):
        """Start every searcher on its own share of the candidates.  Each cycle one core
        (in turn) is looked at: a finished one has its answer merged (the highest verdict
        so far is kept; the lower share on a tie) and is released.  A released core is
        started again, while the budget lasts, on half of the share of a core still
        searching (the largest share left, the lower core first), which keeps the other
        half.  When every core has finished, the best answer is passed on."""
        n = self.n
        limit = self.budget_cycles if self.budget is None else self.budget
        done = Cat(s.ctl.done for s in searchers)
        run = Signal(n)                              # each searcher's req
        helper = Signal(n)                           # started late, on half a share
        shares = [Signal(Share, name=f"share_{i}") for i in range(n)]
        stop_all = Signal()                          # a core found a win
        late = Signal()                              # the budget is spent
        for i, s in enumerate(searchers):
            m.d.comb += [s.ctl.req.eq(run[i]), s.share.eq(shares[i]),
                         s.abort.eq(stop_all | (helper[i] & late))]
        won = Cat(s.ctl.done & (s.verdict.win | s.verdict.forced) for s in searchers).any()
        m.d.comb += self.seed_used.eq(searchers[0].seed_used)

        # the core to look at this cycle, and what it holds
        p = Signal(range(n))
        verdicts = Array(Value.cast(s.verdict) for s in searchers)
        pick = {name: Array(getattr(s, name) for s in searchers)
                for name in ("win", "forced", "depth", "defence", "candidates")}
        ctl = {name: Array(getattr(s.ctl, name) for s in searchers)
               for name in ("found", "col", "row", "tile")}
        node_counts = Array(s.nodes for s in searchers)
        busy_counts = Array(s.cycles for s in searchers)
        bases = Array(sh.base for sh in shares)
        best_v = Signal(Verdict)
        best = {name: Signal.like(getattr(self, name)) for name in pick}
        best_ctl = {name: Signal.like(getattr(self.ctl, name)) for name in ctl}
        best_core = Signal.like(self.core)
        merged = Signal()                            # an answer was merged
        nodes = Signal(32)
        busy = Signal(40)
        splits = Signal(16)

        # The share to halve: of the cores still searching, one whose share was halved
        # the fewest times, the lowest first; registered, and checked again when used.
        k = Signal(range(n))
        k_ok = Signal()
        k_any, k_sel = Signal(), Signal(range(n))
        for level in reversed(range(SPLITS)):
            for i in reversed(range(n)):
                with m.If(run[i] & ~done[i] & (shares[i].level == level)):
                    m.d.comb += [k_any.eq(1), k_sel.eq(i)]
        m.d.sync += [k.eq(k_sel), k_ok.eq(k_any)]
        # a released core to start on it, the lowest first
        q = Signal(range(n))
        q_any = Signal()
        for i in reversed(range(n)):
            with m.If(~run[i] & ~done[i]):
                m.d.comb += [q_any.eq(1), q.eq(i)]
        kshare = data.View(Share, Array(Value.cast(sh) for sh in shares)[k])

        with m.FSM(name="combine"):
            with m.State("IDLE"):
                with m.If(self.ctl.req):
                    m.d.sync += [run.eq((1 << n) - 1), helper.eq(0), self.cycles.eq(0),
                                 self.ctl.done.eq(0), stop_all.eq(0), late.eq(0),
                                 merged.eq(0), nodes.eq(0), busy.eq(0), splits.eq(0), p.eq(0),
                                 *(sh.eq(Share.const({"base": i})) for i, sh in enumerate(shares))]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.sync += [self.cycles.eq(self.cycles + 1), late.eq(self.cycles >= limit),
                             p.eq(Mux(p == n - 1, 0, p + 1))]
                with m.If(won):
                    m.d.sync += stop_all.eq(1)
                # merge core p's answer
                with m.If(run.bit_select(p, 1) & done.bit_select(p, 1)):
                    v = verdicts[p]
                    with m.If(~merged | (v > best_v.as_value()) |
                              ((v == best_v.as_value()) & (bases[p] < best_core))):
                        m.d.sync += [best_v.eq(v), best_core.eq(bases[p]),
                                     *(best[name].eq(a[p]) for name, a in pick.items()),
                                     *(best_ctl[name].eq(a[p]) for name, a in ctl.items())]
                    m.d.sync += [merged.eq(1), nodes.eq(nodes + node_counts[p]),
                                 busy.eq(busy + busy_counts[p])]
                    for i in range(n):
                        with m.If(p == i):
                            m.d.sync += run[i].eq(0)
                # start a released core on half of core k's share
                # (k was chosen a cycle ago: a split since may have halved it to the end)
                with m.If(q_any & k_ok & run.bit_select(k, 1) & ~done.bit_select(k, 1) &
                          (kshare.level != SPLITS) & ~stop_all & ~late & ~won):
                    level = kshare.level
                    for i in range(n):
                        with m.If(q == i):
                            m.d.sync += [
                                run[i].eq(1), helper[i].eq(1),
                                shares[i].base.eq(kshare.base),
                                shares[i].level.eq(level + 1),
                                shares[i].sub.eq(kshare.sub | (Const(1, SPLITS) << level)),
                            ]
                        with m.If(k == i):
                            m.d.sync += shares[i].level.eq(level + 1)
                            m.d.comb += searchers[i].split.eq(1)
                    m.d.sync += splits.eq(splits + 1)
                with m.If((run == 0) & (done == 0)):
                    m.next = "ANSWER"
            with m.State("ANSWER"):
                m.d.sync += [self.ctl.done.eq(1), self.nodes.eq(nodes), self.busy.eq(busy),
                             self.splits.eq(splits), self.core.eq(best_core),
                             *(getattr(self, name).eq(b) for name, b in best.items()),
                             *(getattr(self.ctl, name).eq(b) for name, b in best_ctl.items())]
                m.next = "DONE"
            with m.State("DONE"):
                with m.If(~self.ctl.req):
                    m.d.sync += self.ctl.done.eq(0)
                    m.next = "IDLE"

    def _combine_pvs(self, m, sequencers):
        """The sequencers all search at once, each the root moves dealt to it (one each in
        turn, in scan order: see the program's DEAL).  When every one has answered, their
        answers are looked at one a cycle and the one of highest value is passed on, the
        lower core's on a tie: as the twin's ``run_cores``."""
        n = self.n
        m.d.comb += self.seed_used.eq(sequencers[0].seed_used)
        for s in sequencers:
            # each holds its answer until the request falls, as the combiner does
            m.d.comb += s.ctl.req.eq(self.ctl.req)
        all_done = Signal()
        m.d.sync += all_done.eq(Cat(s.ctl.done for s in sequencers).all())
        p = Signal(range(n))
        found = Array(s.ctl.found for s in sequencers)
        pick = {name: Array(getattr(s, name) for s in sequencers)
                for name in ("depth", "value")}
        ctl = {name: Array(getattr(s.ctl, name) for s in sequencers)
               for name in ("col", "row", "tile")}
        sums = {name: Array(getattr(s, name) for s in sequencers)
                for name in ("nodes", "insns", "engine_cycles")}
        busy_counts = Array(s.cycles for s in sequencers)
        best_found = Signal()
        best = {name: Signal.like(getattr(self, name)) for name in pick}
        best_ctl = {name: Signal.like(getattr(self.ctl, name)) for name in ctl}
        best_core = Signal.like(self.core)
        total = {name: Signal(32, name=f"total_{name}") for name in sums}
        busy = Signal(40)
        with m.FSM(name="combine"):
            with m.State("IDLE"):
                with m.If(self.ctl.req):
                    m.d.sync += [self.cycles.eq(0), self.ctl.done.eq(0), p.eq(0),
                                 best_found.eq(0), busy.eq(0),
                                 *(t.eq(0) for t in total.values())]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.sync += self.cycles.eq(self.cycles + 1)
                with m.If(all_done):
                    m.next = "MERGE"
            with m.State("MERGE"):
                with m.If(found[p] & (~best_found | (pick["value"][p] > best["value"]))):
                    m.d.sync += [best_found.eq(1), best_core.eq(p),
                                 *(best[name].eq(a[p]) for name, a in pick.items()),
                                 *(best_ctl[name].eq(a[p]) for name, a in ctl.items())]
                m.d.sync += [busy.eq(busy + busy_counts[p]), p.eq(p + 1),
                             *(t.eq(t + sums[name][p]) for name, t in total.items())]
                with m.If(p == n - 1):
                    m.next = "ANSWER"
            with m.State("ANSWER"):
                m.d.sync += [self.ctl.done.eq(1), self.ctl.found.eq(best_found),
                             self.busy.eq(busy), self.core.eq(best_core),
                             *(getattr(self, name).eq(t) for name, t in total.items()),
                             *(getattr(self, name).eq(b) for name, b in best.items()),
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

