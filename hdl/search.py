"""The board's player: a search on the move engine, made of the engine's own ``PLACE``,
``UNDO`` and ``EVAL`` commands.  docs/player.md describes the algorithm (steps 1 to 10, the
levels and the stack, ``EVAL``); this is a summary for the code's readers.

The searcher borrows the engine (:func:`~traxfpga.hdl.share.share_engine`) for one decision
and leaves the position as it found it.  It scans the side to move's placements in the
notation's order (column ``-1`` to ``width``, row ``-1`` to ``height``, tile ``+ / \\``); the **main search**
answers every candidate with every reply, tests safe candidates with threats for a win by
force one ply deeper, and scores the others by the least ``EVAL`` after a quiet reply
(stopping those evaluations once the candidate cannot beat the best so far).  While the cycle budget lasts,
**deepening** passes (up to ``max_depth`` of the mover's moves) look for a win by force
along forcing moves, and the **defence** tests the answer against the opponent's wins by
force (up to ``max_defence`` of its moves), giving way to the next best candidate, which a
scan of the table of safe candidates (in block RAM, written by the main search) finds.

The score is ``class, evaluation, mine, 15 - theirs, noise`` (2, 16, 4, 4 and 8 bits,
:data:`~traxfpga.hdl.search_params.Score`; counts saturate at :data:`THREAT_CAP`), the
evaluation offset by :data:`EV_ZERO` and clamped, the noise the low byte of a 16-bit LFSR started from the
``seed`` input (:data:`LFSR_SEED` unless driven) and stepped once per scored candidate; the
best score wins, a tie keeps the earlier candidate.  Below the candidates' own scan the
levels share one scan register; the levels above it wait on a small stack, which shares a
block RAM with the killers and the table of safe candidates.
Once ``budget`` cycles have gone by (and at least one candidate is scored), whatever is on
the board is taken back and the best answer so far is given.

:mod:`traxfpga.host.reference.searcher` is the same algorithm in software and must choose the same
move (``tests/test_search.py``).
"""


from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .engine import Command, Op, Result
from .share import check_core, offer_state, result_state
from .tiles import Reason, Shape, Status, Winner

__all__ = ["Searcher", "SearchRequest", "COORD_BITS", "check_max_depth", "check_max_defence", "MAX_DEPTH",
           "MAX_DEFENCE", "lfsr_step", "LFSR_SEED",
           "LFSR_TAPS", "THREAT_CAP", "EV_ZERO", "EV_DOUBLE_ATTACK", "EV_DOUBLE_BONUS"]

# The constants and the score's layout: one source with the software twin.
from .search_params import (EV_BITS, EV_DOUBLE_ATTACK, EV_DOUBLE_BONUS, EV_MAX,  # noqa: E402
                            EV_NOISE_BITS, EV_NOISE_MAX, EV_ZERO, LFSR_SEED, LFSR_TAPS,
                            MAX_DEFENCE, MAX_DEPTH, OPENING,
                            SPLITS, THREAT_CAP, Score, Share, Verdict, table_depth)


#: Width of the answer's coordinates on :data:`SearchRequest` (signed; the searcher's own
#: scan registers are ``coord_bits`` wide, at most this).
COORD_BITS = 16

#: The bundle between the searcher and whoever asks it for a move, seen from the asker (the
#: protocol sequencer): raise ``req`` to start a search; ``done`` rises with the answer
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


def lfsr_step(v):
    """One step of the 16-bit Galois LFSR (:data:`LFSR_TAPS`) on the value ``v``."""
    return Mux(v[0], (v >> 1) ^ LFSR_TAPS, v >> 1)


def lfsr_back(v):
    """The value the LFSR held one step before ``v`` (the taps include bit 15, which a
    step sets exactly when it shifts a 1 out)."""
    return Cat(v[15], (v ^ Mux(v[15], LFSR_TAPS, 0))[:15])


def check_max_depth(max_depth):
    """Raise ``ValueError`` unless ``max_depth`` is one the searcher takes: 2 .. 7 moves
    (each pass costs many times the one before, so deeper ones would not finish within a
    contest budget)."""
    if not 2 <= max_depth <= 7:
        raise ValueError(f"max_depth must be 2 .. 7, not {max_depth}")


def check_max_defence(max_defence):
    """Raise ``ValueError`` unless ``max_defence`` is one the searcher takes: 1 (no defence
    tests) .. 15 of the opponent's moves (its ``defence`` output has 4 bits)."""
    if not 1 <= max_defence <= 15:
        raise ValueError(f"max_defence must be 1 .. 15, not {max_defence}")


class Searcher(wiring.Component):
    """Chooses the board's move.

    Parameters
    ----------
    coord_bits : int
        Width of the signed scan coordinates (enough for ``-1 .. N``).
    budget : int or None
        Cycles after which the search answers with the best candidate so far; None: read
        from the ``budget_cycles`` port instead (for simulations that vary it).
    max_depth : int
        The deepest pass of the search for a win by force, in the mover's moves (2: the
        main search only; each level costs a stack entry).
    core, cores : int
        This searcher is core ``core`` of ``cores`` (:mod:`.cores`): it takes only the
        candidates of the share its ``share`` input names at the start of a search (``owns``
        in :mod:`.search_params`: the legal placements of the candidates' scan, dealt round
        the cores in scan order; its own share, or half of another core's), and the cores'
        combiner ranks the answers by ``verdict``.

    Attributes
    ----------
    ctl : In(SearchRequest)
        The four-phase handshake with the caller and the answer (``found``: the answer
        holds a legal move, there was one and the game is not over; ``col``/``row``
        relative to the area as in the notation; ``tile``).
    win : Out(1)
        The move wins at once.
    forced : Out(1)
        The move wins by force: whatever the opponent answers, the mover wins next turn
        (or, found by a deepening pass, within ``depth`` of its moves).
    depth : Out(4)
        How far the last search got: 1 a win at once, 2 the main search, 3 .. ``max_depth``
        the last deepening pass completed or the one that found the answer, 0 out of time
        in the main search (or the game's first move, the opening, which is not searched).
    defence : Out(4)
        The depth the answer was proven safe to: the opponent has no win by force within
        that many of its moves after it (1: only its wins at once were looked for).
    seed : In(16)
        The noise generator's start value, read when a search starts (never 0); the device
        feeds it from a generator that runs on every cycle, so its games vary with the
        host's timing while a simulation stays reproducible.
    seed_used : Out(16)
        The ``seed`` the last search started from: the twin's ``seed`` for the same choice.
    candidates : Out(16)
        Candidates scored by the last search.
    cycles : Out(32)
        Cycles the last search took, from its start to ``done``.
    verdict : Out(Verdict)
        The answer's rank among the cores' answers (while ``done``).
    abort : In(1)
        (Many cores only.)  Stop now, as when the budget is spent but even before a
        candidate is scored: another core has found a win, or this core was started late
        to help another (below) and the cores' budget is spent.
    share : In(Share)
        (Many cores only.)  The candidates this search takes, read at its start: core
        ``core``'s share, or (a core that has finished its own) half of another core's.
    split : In(1)
        (Many cores only.)  Halve the share now: another core takes the other half.
    nodes : Out(32)
        Positions the last search visited: the engine's placements that were legal.
    active : Out(1)
        The searcher owns the engine (from the start of a search to ``done``).
    cmd : Out(stream.Signature(Command))
    res : In(stream.Signature(Result))
        To the engine, while ``active``.
    """

    def __init__(self, *, coord_bits=10, budget=1 << 24, max_depth=MAX_DEPTH,
                 max_defence=MAX_DEFENCE, core=0, cores=1):
        check_max_depth(max_depth)
        check_core(core, cores)
        self.core, self.cores = core, cores
        check_max_defence(max_defence)
        self.coord_bits = coord_bits
        self.budget = budget
        self.max_depth = max_depth
        self.max_defence = max_defence
        if coord_bits > COORD_BITS:
            raise ValueError(f"coord_bits must be at most {COORD_BITS}, not {coord_bits}")
        super().__init__({
            "ctl":        In(SearchRequest),
            "win":        Out(1),
            "forced":     Out(1),
            "depth":      Out(4),
            "defence":    Out(4),
            "seed":       In(16, init=LFSR_SEED),
            "seed_used":  Out(16),
            "candidates": Out(16),
            "cycles":     Out(32),
            "nodes":      Out(32),
            "verdict":    Out(Verdict),
            **({"abort": In(1), "share": In(Share), "split": In(1)} if cores > 1 else {}),
            "active":     Out(1),
            "cmd":        Out(stream.Signature(Command)),
            "res":        In(stream.Signature(Result)),
            **({"budget_cycles": In(32)} if budget is None else {}),
        })

    def elaborate(self, platform):
        m = Module()
        B = self.coord_bits
        res = self.res.payload

        # -- the candidates' scan (level 1) ---------------------------------------------------
        c1, r1, t1 = Signal(signed(B)), Signal(signed(B)), Signal(Shape)
        w1, h1 = Signal(B), Signal(B)             # the area before the search
        me = Signal(Winner)                       # the side to move, as a winner value

        # -- the scan below it (levels 2, 3, ...: replies at even levels, the mover's moves
        # at odd ones), with the levels above it on a stack ---------------------------------
        c, r, t = Signal(signed(B)), Signal(signed(B)), Signal(Shape)
        w, h = Signal(B), Signal(B)               # the area of the position it scans
        ph = Signal()                             # even: 0 count, 1 every reply must leave
                                                  # a win; odd: 0 wins at once, 1 threats
        lv = Signal(range(2 * max(self.max_depth, self.max_defence) + 1))  # the level it scans
        deep_lv = Signal.like(lv)                 # the pass's deepest level, 2 depth - 1
        # Defence: a test of the answer against the opponent's win by force, the same AND/OR
        # search with the sides swapped: the opponent moves at even levels.
        dfn = Signal()
        odd = lv[0] ^ dfn
        # The stack, the killers and the table of safe candidates (below) share one memory.
        Level = data.StructLayout({"c": signed(B), "r": signed(B), "t": Shape, "ph": 1})
        push = Signal()                           # push the level (c, r, t, ph) at lv
        succ = Signal()                           # the level's result, on the way up
        i_mine, i_theirs = Signal(), Signal()     # below level 2: the reply scan's verdict
        # Every level where the side seeking the win moves remembers the last win at once
        # it found (in the area of the level above) and tries it first after the next
        # reply: most replies do not stop the threat, so they leave it winning.  One entry
        # a level in the searcher's memory (below); its valid bit is cleared when the level
        # above starts on a new position.
        Killer = data.StructLayout({"c": signed(B), "r": signed(B), "t": Shape})
        k_put = Signal()                          # write k_new as level lv's killer
        k_new = Signal(Killer)
        k_ok = Signal(1 << len(lv))
        trying_k = Signal()
        gx, gy = Signal(), Signal()               # the reply above grew the area left / up

        pass_d = Signal(4)                        # the pass: 2 main, 3.. deepening
        deep = Signal()                           # a deepening pass
        # With many cores the candidates are dealt round them in scan order: ``deal``
        # counts the legal placements of the candidates' scan modulo ``cores`` and ``rnd``
        # the rounds of the deal, which a halved share picks from (``owns``).
        many = self.cores > 1
        deal = Signal(range(self.cores))
        rnd = Signal(SPLITS)
        own = Signal(Share)
        if many:
            with m.If(self.split):              # never past SPLITS: the cores' unit checks
                m.d.sync += own.level.eq(own.level + 1)
            mask = ((Const(1, SPLITS + 1) << own.level) - 1)[:SPLITS]

            def in_share(r):
                return ((r ^ own.sub) & mask) == 0
            owned = (deal == own.base) & in_share(rnd)

        # Defence, after the passes: the answer is tested at depth defence + 1; when the
        # opponent wins by force after it, a scan of the table of safe candidates (written
        # by the main search, in scan order) finds the best ranked below it (score, then
        # table order: the threshold); a cut one is evaluated in full and put back, an
        # exact one is tested in turn, until one holds (the new answer) or none is left.
        dphase = Signal()                         # the defence phase has begun
        sel = Signal()                            # a cut candidate evaluated in full
        Entry = data.StructLayout({"c": signed(B), "r": signed(B), "t": Shape, "ev": EV_BITS,
                                   "mine": 4, "lfsr": 16, "exact": 1,
                                   **({"rnd": SPLITS} if many else {})})
        tdepth = table_depth(self.cores)
        t_put = Signal()                          # write t_new at t_addr
        t_new = Signal(Entry)
        t_addr = Signal(range(tdepth))
        n_safe = Signal(range(tdepth + 1))        # entries written
        full = Signal()                           # a safe candidate found no room
        skipped = Signal()                        # the candidate's evaluation was cut
        e_rnd = Signal(SPLITS)                    # the candidate's round of the deal
        ci = Signal(range(tdepth + 1))            # the table entry read
        best_i = Signal.like(ci)                  # the best's entry
        thr = Signal(Score)                       # the threshold: the answer's rank
        thr_i = Signal.like(ci)

        # One memory, one write and one read port, for the three: the table's entries,
        # then a level stack and a killer an entry a level.  On the iCE40 that is 256 words,
        # four block RAMs: the stack and the killers apart took as many, so the table costs
        # none.  Their writes never fall in the same cycle, and
        # the read address is the level above's stack entry while a level goes up (``up``),
        # a table entry while the table is scanned (``scan``), else the level below's
        # killer: each is settled at least a cycle before its data is read.
        levels = 1 << len(lv)
        STACK, KILLERS = tdepth, tdepth + levels
        Word = data.UnionLayout({"level": Level, "killer": Killer, "entry": Entry})
        depth = tdepth + 2 * levels
        m.submodules.mem = mem = Memory(
            shape=Word, depth=depth, init=[],
            # small enough for distributed RAM where the part has it (many cores, ECP5)
            attrs={"ram_style": "distributed"} if depth <= 64 else None)
        wr = mem.write_port()
        rd = mem.read_port(domain="sync")
        up, scan = Signal(), Signal()
        m.d.comb += rd.addr.eq(Mux(scan, ci, Mux(up, STACK + lv - 1, KILLERS + lv + 1)))
        top, k_get, t_get = rd.data.level, rd.data.killer, rd.data.entry
        m.d.comb += wr.en.eq(push | k_put | t_put)
        with m.If(push):
            m.d.comb += [wr.addr.eq(STACK + lv), wr.data.level.eq(Cat(c, r, t, ph))]
        with m.Elif(k_put):
            m.d.comb += [wr.addr.eq(KILLERS + lv), wr.data.killer.eq(k_new)]
        with m.Else():
            m.d.comb += [wr.addr.eq(t_addr), wr.data.entry.eq(t_new)]

        def advance(col, row, t, w, h, skip_square, at_end):
            """Step a scan to its next placement; go to state ``at_end`` when there is none
            (columns -1 .. w, rows -1 .. h, tiles + / \\; ``skip_square`` skips the rest of
            the square's tiles)."""
            with m.If(~skip_square & (t != Shape.BACKSLASH)):
                m.d.sync += t.eq(t.as_value() + 1)
            with m.Elif(row < h):
                m.d.sync += [row.eq(row + 1), t.eq(Shape.PLUS)]
            with m.Elif(col < w):
                m.d.sync += [col.eq(col + 1), row.eq(-1), t.eq(Shape.PLUS)]
            with m.Else():
                m.next = at_end

        def first(col, row, t):
            """Set a scan to its first placement: column -1, row -1, tile +."""
            return [col.eq(-1), row.eq(-1), t.eq(Shape.PLUS)]

        def first1():
            """Start the candidates' scan."""
            return [*first(c1, r1, t1), *([deal.eq(0), rnd.eq(0)] if many else [])]

        def advance1(skip_square):
            """Step the candidates' scan; ``PASS_END`` after its last placement."""
            advance(c1, r1, t1, w1, h1, skip_square, "PASS_END")

        status = res.status
        ok = status == Status.OK
        square = ~ok & (status != Status.MISMATCH) & (status != Status.THREE_TRACKS)
        att = Signal(Winner)                      # the side whose win by force is sought
        mover_wins = res.winner == att
        ends = (res.winner != Winner.NONE) | (res.reason != Reason.NONE)

        # -- scores ---------------------------------------------------------------------------
        mine = Signal(4)
        theirs = Signal(4)
        ev = Signal(EV_BITS)                      # the least EVAL after a reply, as scored
        ev_diff = Signal(signed(EV_BITS + 2))     # a reply's EVAL before clamping
        score = Signal(Score)
        best = Signal(Score)
        best_ok = Signal()
        ans = Signal(Score)                       # the answer's score
        best_forced = best_ok & (best.cls == 3)
        lfsr = Signal(16)
        lfsr_next = Signal(16)
        m.d.comb += lfsr_next.eq(lfsr_step(lfsr))
        noise = lfsr_next[:8]
        # the evaluation as scored: capped so that its noise (bits 8 .. 10) cannot overflow
        ev_noisy = (Mux(ev > EV_MAX - EV_NOISE_MAX, EV_MAX - EV_NOISE_MAX, ev) +
                    lfsr_next[8:8 + EV_NOISE_BITS])[:EV_BITS]

        def scored(cls, with_counts):
            """Set the candidate's score (``cls`` 0..3; the evaluation and counts, or zeros)
            and count it."""
            return [score.cls.eq(cls), score.noise.eq(noise),
                    score.ev.eq(ev_noisy if with_counts else 0),
                    score.mine.eq(mine if with_counts else 0),
                    score.not_theirs.eq((THREAT_CAP - theirs)[:4] if with_counts else 0),
                    lfsr.eq(lfsr_next), self.candidates.eq(self.candidates + 1)]

        # The comparisons of the candidate's score, registered: the score is set at least
        # an UNDO (tens of cycles) before COMPARE reads them, and the long carry chains
        # then end at a flip-flop instead of the enables of the best move's registers.
        # The defence's scans rank only safe candidates below the threshold.
        below, better = Signal(), Signal()
        # The reply evaluations stop once the candidate cannot beat the best so far (a win
        # by force, or a safe candidate when this one is unsafe or already evaluates
        # lower): its score is then only an upper bound, and it is never chosen.
        cut = Signal()
        m.d.sync += [
            below.eq((score.cls == 2) & ((score.as_value() < thr.as_value()) |
                                         ((score.as_value() == thr.as_value()) & (ci > thr_i)))),
            better.eq(~best_ok | (score.as_value() > best.as_value())),
            cut.eq(best_ok & ((best.cls == 3) |
                              ((best.cls == 2) & ((theirs != 0) |
                                                  (ev + EV_NOISE_MAX < best.ev))))),
        ]

        # -- the budget -----------------------------------------------------------------------
        spent = Signal()
        limit = self.budget_cycles if self.budget is None else self.budget
        m.d.sync += spent.eq(self.active & (self.cycles >= limit))
        stop = spent & (best_ok | dphase)
        if self.cores > 1:
            stop = stop | self.abort

        # -- engine commands ------------------------------------------------------------------
        op = Signal(Op)
        use_c = Signal()                          # the command's placement: the lower scan,
        m.d.comb += [                             # else the candidates'
            self.cmd.payload.op.eq(op),
            self.cmd.payload.col.eq(Mux(use_c, c, c1)),
            self.cmd.payload.row.eq(Mux(use_c, r, r1)),
            self.cmd.payload.tile.eq(Mux(use_c, t, t1)),
        ]
        after_undo = Signal(2)                    # where UNDO_RES goes:
        COMPARE, FINISH, VERDICT, SKIP = range(4)
        then = Signal(2)                          # where STEP_UNDO_RES goes:
        NEXT, RESTART, FAIL, SUCCEED = range(4)   # the next placement, the first, a result

        def send(state, then):
            """A state that offers the command set up in ``op``/``use_c`` until it is
            taken."""
            offer_state(m, self.cmd, state, then)

        def result(state):
            """A state that takes the engine's result; the body runs when it arrives."""
            return result_state(m, self.res, state)

        def undo_then(what):
            m.d.sync += [op.eq(Op.UNDO), then.eq(what)]
            m.next = "STEP_UNDO"

        def conclude(success):
            m.d.sync += succ.eq(success)
            m.next = "RESULT"

        with m.If(self.active):
            m.d.sync += self.cycles.eq(self.cycles + 1)
        # The answer's rank for the cores' combiner: a win ranks by depth alone.
        decided = self.win | self.forced
        m.d.comb += [
            self.verdict.found.eq(self.ctl.found),
            self.verdict.win.eq(self.win),
            self.verdict.forced.eq(self.forced & ~self.win),
            self.verdict.quick.eq(Mux(self.forced & ~self.win, 7 - self.depth, 0)),
            self.verdict.defence.eq(self.defence),
            self.verdict.score.eq(Mux(decided, 0, ans.as_value())),
        ]
        with m.If(self.res.valid & self.res.ready & (op == Op.PLACE) & ok):
            m.d.sync += self.nodes.eq(self.nodes + 1)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.ctl.req):
                    m.d.sync += [
                        self.active.eq(1), self.cycles.eq(0), self.candidates.eq(0),
                        self.nodes.eq(0),
                        self.ctl.found.eq(0), self.win.eq(0), self.forced.eq(0), self.depth.eq(0),
                        best_ok.eq(0), lfsr.eq(self.seed), self.seed_used.eq(self.seed),
                        n_safe.eq(0), full.eq(0), up.eq(0), scan.eq(0),
                        *([own.eq(self.share)] if many else []),
                        pass_d.eq(2), deep.eq(0), deep_lv.eq(3),
                        dphase.eq(0), sel.eq(0), dfn.eq(0), self.defence.eq(1),
                        # a probe: far out of range, it changes nothing and tells the state
                        op.eq(Op.PLACE), use_c.eq(0),
                        c1.eq(-(1 << (B - 1))), r1.eq(-(1 << (B - 1))), t1.eq(Shape.PLUS),
                    ]
                    m.next = "PROBE"

            send("PROBE", then="PROBE_RES")

            with result("PROBE_RES"):
                m.d.sync += [
                    w1.eq(res.width), h1.eq(res.height),
                    me.eq(Mux(res.ply[0], Winner.BLACK, Winner.WHITE)),
                    att.eq(Mux(res.ply[0], Winner.BLACK, Winner.WHITE)),
                    *first1(),
                ]
                with m.If(res.reason != Reason.NONE):
                    m.next = "FINISH"
                with m.Elif(res.ply == 0):              # the first move: the opening
                    col, row, tile = OPENING
                    m.d.sync += [self.ctl.col.eq(col), self.ctl.row.eq(row),
                                 self.ctl.tile.eq(Shape.SLASH if tile == "/" else Shape.PLUS),
                                 best_ok.eq(1), best.eq(0), ans.eq(0)]
                    m.next = "FINISH"
                with m.Else():
                    m.next = "CAND"

            # -- a candidate --------------------------------------------------------------------
            with m.State("CAND"):
                m.d.sync += [op.eq(Op.PLACE), use_c.eq(0)]
                with m.If(stop):
                    m.next = "FINISH"
                with m.Else():
                    m.next = "CAND_CMD"

            send("CAND_CMD", then="CAND_RES")

            with result("CAND_RES"):
                with m.If(ok):
                    m.d.sync += [w.eq(res.width), h.eq(res.height), *first(c, r, t), ph.eq(0),
                                 lv.eq(2), mine.eq(0), theirs.eq(0), ev.eq(EV_MAX),
                                 skipped.eq(0), op.eq(Op.UNDO),
                                 after_undo.eq(COMPARE)]
                    if many:
                        with m.If(~dfn & ~sel):
                            m.d.sync += [deal.eq(Mux(deal == self.cores - 1, 0, deal + 1)),
                                         e_rnd.eq(rnd)]
                            with m.If(deal == self.cores - 1):
                                m.d.sync += rnd.eq(rnd + 1)
                    with m.If(dfn | sel):                   # the answer on test, or a cut
                        m.next = "NODE"                     # candidate: level 2
                    if many:
                        with m.Elif(~owned):                # another share's candidate:
                            # it steps the noise as if scored, so that a candidate
                            # scores the same in every share it falls in
                            m.d.sync += [after_undo.eq(SKIP), lfsr.eq(lfsr_next)]
                            m.next = "UNDO_CMD"
                    with m.Elif(deep & ends):               # not a candidate for a deep win
                        m.next = "UNDO_CMD"
                    with m.Elif(mover_wins):
                        m.d.sync += [*scored(3, False), after_undo.eq(FINISH), self.win.eq(1),
                                     self.depth.eq(1), best_ok.eq(1)]
                        m.next = "UNDO_CMD"
                    with m.Elif(res.winner != Winner.NONE):
                        m.d.sync += scored(0, False)
                        m.next = "UNDO_CMD"
                    with m.Elif(res.reason != Reason.NONE):      # an 8x8 draw
                        m.d.sync += scored(1, False)
                        m.next = "UNDO_CMD"
                    with m.Else():
                        m.next = "NODE"
                with m.Else():
                    m.next = "CAND"
                    advance1(square)

            # -- the levels below the candidate ---------------------------------------------------
            # Level 2 scans the opponent's replies to the candidate, level 3 the mover's
            # moves after a reply, and so on down to the pass's deepest level, 2 depth - 1.
            # An even level first counts (phase 0) the replies that win for the opponent
            # and those that complete only the mover's loop or line; a safe move with
            # threats then has its replies scanned again (phase 1), each that does not end
            # the game going down a level: the level succeeds when every one of them comes
            # back with a win.  An odd level looks for a win at once (phase 0, starting
            # with the last one found at that level); above the deepest it then
            # tries every move that does not end the game (phase 1), each going down, and
            # succeeds with the first that comes back with a win by force.
            with m.State("NODE"):
                m.d.sync += [op.eq(Op.PLACE), use_c.eq(1)]
                with m.If(stop):
                    m.d.sync += op.eq(Op.UNDO)
                    m.next = "ABORT"                    # out of time: take everything back
                with m.Else():
                    m.next = "NODE_CMD"

            send("NODE_CMD", then="NODE_RES")

            def next_node():
                """On to the level's next placement: straight to its command (the scan
                registers are set this cycle), unless the budget is spent (``NODE``)."""
                m.d.sync += [op.eq(Op.PLACE), use_c.eq(1)]
                with m.If(stop):
                    m.next = "NODE"
                with m.Else():
                    m.next = "NODE_CMD"

            with result("NODE_RES"):
                down = Signal()
                with m.If(~ok):
                    with m.If(trying_k):
                        m.d.sync += [*first(c, r, t), trying_k.eq(0)]
                        next_node()
                    with m.Else():
                        next_node()
                        advance(c, r, t, w, h, square, "END")
                with m.Elif(~odd & ~ph):                    # counting the replies
                    with m.If(mover_wins):
                        m.d.sync += [mine.eq(mine + (mine != THREAT_CAP)), i_mine.eq(1)]
                        undo_then(NEXT)
                    with m.Elif(res.winner != Winner.NONE):
                        m.d.sync += [theirs.eq(theirs + (theirs != THREAT_CAP)),
                                     i_theirs.eq(1)]
                        undo_then(Mux(lv == 2, NEXT, FAIL))     # below 2 only the verdict
                    with m.Elif((lv == 2) & ~deep & ~ends & ~cut & ~stop):
                        m.d.sync += op.eq(Op.EVAL)          # the candidate's evaluation:
                        m.next = "EVAL_CMD"                 # the least after a quiet reply
                    with m.Else():
                        m.d.sync += skipped.eq(skipped | ((lv == 2) & ~ends & cut))
                        undo_then(NEXT)
                with m.Elif(~odd):                          # every reply must leave a win
                    with m.If(mover_wins):
                        undo_then(NEXT)                     # it loses at once
                    with m.Elif(ends):
                        undo_then(FAIL)                     # it wins or draws (8x8)
                    with m.Else():
                        m.d.comb += down.eq(1)
                with m.Elif(~ph):                           # a win at once?
                    with m.If(mover_wins):
                        m.d.comb += [k_put.eq(1), k_new.c.eq(c - gx), k_new.r.eq(r - gy),
                                     k_new.t.eq(t)]
                        m.d.sync += k_ok.bit_select(lv, 1).eq(1)
                        undo_then(SUCCEED)
                    with m.Else():
                        undo_then(Mux(trying_k, RESTART, NEXT))
                with m.Else():                              # a threat that wins by force?
                    with m.If(ends):
                        undo_then(NEXT)
                    with m.Else():
                        m.d.comb += down.eq(1)
                with m.If(down):                            # go down a level
                    m.d.comb += push.eq(1)
                    m.d.sync += [lv.eq(lv + 1), w.eq(res.width), h.eq(res.height), ph.eq(0),
                                 *first(c, r, t), trying_k.eq(0), i_mine.eq(0), i_theirs.eq(0)]
                    with m.If(~odd):
                        m.d.sync += [gx.eq(c == -1), gy.eq(r == -1)]
                        with m.If(k_ok.bit_select(lv + 1, 1)):
                            m.d.sync += [c.eq(k_get.c + (c == -1)),
                                         r.eq(k_get.r + (r == -1)),
                                         t.eq(k_get.t), trying_k.eq(1)]
                    m.next = "NODE"

            send("STEP_UNDO", then="STEP_UNDO_RES")

            with result("STEP_UNDO_RES"):
                with m.Switch(then):
                    with m.Case(NEXT):
                        next_node()
                        advance(c, r, t, w, h, Const(0), "END")
                    with m.Case(RESTART):
                        m.d.sync += [*first(c, r, t), trying_k.eq(0)]
                        next_node()
                    with m.Case(FAIL):
                        conclude(0)
                    with m.Case(SUCCEED):
                        conclude(1)

            with m.State("END"):                        # the level's scan is over
                with m.If(~odd & ~ph):
                    safe_threat = Mux(lv == 2, (theirs == 0) & (mine != 0) & ~sel &
                                      (deep | ~best_forced), ~i_theirs & i_mine)
                    with m.If(safe_threat):
                        m.d.sync += [ph.eq(1), *first(c, r, t),
                                     k_ok.bit_select(lv + 1, 1).eq(0)]
                        m.next = "NODE"
                    with m.Else():
                        conclude(0)
                with m.Elif(~odd):
                    conclude(1)                         # every reply came back with a win
                with m.Elif(~ph & (lv != deep_lv)):
                    m.d.sync += [ph.eq(1), *first(c, r, t)]
                    m.next = "NODE"
                with m.Else():
                    conclude(0)

            with m.State("RESULT"):                     # take the level above's move back
                with m.If(lv == 2):
                    m.next = "ROOT"
                with m.Else():
                    m.d.sync += [op.eq(Op.UNDO), up.eq(1)]
                    m.next = "UP_UNDO"

            send("UP_UNDO", then="UP_UNDO_RES")

            with result("UP_UNDO_RES"):
                m.d.sync += [lv.eq(lv - 1), c.eq(top.c), r.eq(top.r),
                             t.eq(top.t), ph.eq(top.ph), up.eq(0),
                             w.eq(res.width), h.eq(res.height), trying_k.eq(0)]
                m.next = "UP"

            with m.State("UP"):
                # An even level goes on after a win and fails with a failure; an odd one
                # succeeds with a success and goes on after a failure.
                with m.If(succ == ~odd):
                    m.next = "NODE"
                    advance(c, r, t, w, h, Const(0), "END")
                with m.Else():
                    m.next = "RESULT"

            with m.State("ROOT"):                       # the candidate's verdict
                with m.If(dfn):
                    m.d.sync += [op.eq(Op.UNDO), after_undo.eq(VERDICT)]
                    m.next = "UNDO_CMD"
                with m.Elif(~deep):
                    with m.If(succ):
                        m.next = "FORCED"
                    with m.Else():
                        m.next = "SCORE"
                with m.Else():
                    m.d.sync += [op.eq(Op.UNDO), after_undo.eq(Mux(succ, FINISH, COMPARE))]
                    with m.If(succ):                    # the deepening found a win by force
                        m.d.sync += [self.ctl.col.eq(c1), self.ctl.row.eq(r1), self.ctl.tile.eq(t1),
                                     self.forced.eq(1), self.depth.eq(pass_d)]
                    m.next = "UNDO_CMD"

            send("ABORT", then="ABORT_RES")

            with result("ABORT_RES"):
                m.d.sync += lv.eq(lv - 1)
                with m.If(lv == 2):                     # that was the candidate
                    m.next = "FINISH"
                with m.Else():
                    m.next = "ABORT"

            with m.State("FORCED"):
                m.d.sync += [*scored(3, False), op.eq(Op.UNDO), after_undo.eq(COMPARE)]
                m.next = "UNDO_CMD"

            # -- the position after a quiet reply, judged by the engine's EVAL -----------------
            send("EVAL_CMD", then="EVAL_RES")

            with result("EVAL_RES"):
                black = me == Winner.BLACK
                pot_me = Mux(black, res.pot[1], res.pot[0])
                pot_opp = Mux(black, res.pot[0], res.pot[1])
                att_me = Mux(black, res.att[1], res.att[0])
                bonus = Mux(att_me >= EV_DOUBLE_ATTACK, EV_DOUBLE_BONUS,
                            (att_me[:3] << 2) + (att_me[:3] << 1))      # 6 per end
                m.d.sync += ev_diff.eq(pot_me - pot_opp + bonus + EV_ZERO)
                m.next = "EV_CLAMP"

            with m.State("EV_CLAMP"):
                clamped = Signal(EV_BITS)
                with m.If(ev_diff < 0):
                    m.d.comb += clamped.eq(0)
                with m.Elif(ev_diff > EV_MAX):
                    m.d.comb += clamped.eq(EV_MAX)
                with m.Else():
                    m.d.comb += clamped.eq(ev_diff)
                with m.If(clamped < ev):
                    m.d.sync += ev.eq(clamped)
                undo_then(NEXT)

            with m.State("SCORE"):
                m.d.sync += [*scored(Mux(theirs == 0, 2, 1), True),
                             op.eq(Op.UNDO), after_undo.eq(COMPARE)]
                m.next = "UNDO_CMD"

            # -- take the candidate back ----------------------------------------------------------
            send("UNDO_CMD", then="UNDO_RES")

            with result("UNDO_RES"):
                with m.Switch(after_undo):
                    with m.Case(FINISH):
                        with m.If(self.win):
                            m.d.sync += [self.ctl.col.eq(c1), self.ctl.row.eq(r1), self.ctl.tile.eq(t1)]
                        m.next = "FINISH"
                    with m.Case(COMPARE):
                        m.next = "COMPARE"
                    with m.Case(VERDICT):
                        m.d.sync += dfn.eq(0)
                        m.next = "VERDICT"
                    with m.Case(SKIP):
                        m.next = "CAND"
                        advance1(Const(0))

            # The main search writes each safe candidate into the table (its score
            # without the constant fields: the LFSR value holds the noise); a cut one
            # evaluated in full is written back, exact.
            m.d.comb += [
                t_addr.eq(Mux(sel, best_i, n_safe)),
                t_new.c.eq(c1), t_new.r.eq(r1), t_new.t.eq(t1),
                t_new.ev.eq(score.ev), t_new.mine.eq(score.mine),
                t_new.lfsr.eq(lfsr), t_new.exact.eq(~skipped),
                *([t_new.rnd.eq(e_rnd)] if many else []),
            ]
            with m.State("COMPARE"):
                with m.If(sel):
                    m.d.comb += t_put.eq(1)
                    m.d.sync += scan.eq(1)
                    m.next = "SEL"
                with m.Else():
                    with m.If(~deep & (score.cls == 2)):
                        with m.If(n_safe == tdepth):
                            m.d.sync += full.eq(1)
                        with m.Else():
                            m.d.comb += t_put.eq(1)
                            m.d.sync += n_safe.eq(n_safe + 1)
                    with m.If(~deep & better):
                        m.d.sync += [best.eq(score), best_i.eq(n_safe), best_ok.eq(1),
                                     ans.eq(score), self.ctl.col.eq(c1),
                                     self.ctl.row.eq(r1), self.ctl.tile.eq(t1)]
                    m.next = "CAND"
                    advance1(Const(0))

            # -- deepen while the budget lasts ---------------------------------------------------
            with m.State("PASS_END"):
                m.d.sync += [*first1(), self.depth.eq(pass_d)]
                with m.If(best_forced | ~best_ok):
                    m.next = "FINISH"
                with m.Elif(pass_d != self.max_depth):
                    m.d.sync += [pass_d.eq(pass_d + 1), deep.eq(1),
                                 deep_lv.eq(deep_lv + 2)]
                    m.next = "CAND"
                with m.Elif((self.max_defence > 1) & (best.cls == 2) & ~full):
                    # the main search's answer goes on test first
                    m.d.sync += [dphase.eq(1), deep.eq(0), thr.eq(best), thr_i.eq(best_i),
                                 c1.eq(self.ctl.col), r1.eq(self.ctl.row), t1.eq(self.ctl.tile)]
                    m.next = "TEST"
                with m.Else():
                    m.next = "FINISH"

            # -- defence: is the candidate c1 safe against a win by force within ------------------
            # defence + 1 of the opponent's moves?
            with m.State("TEST"):
                m.d.sync += [dfn.eq(1), sel.eq(0),
                             att.eq(Mux(me == Winner.WHITE, Winner.BLACK, Winner.WHITE)),
                             deep_lv.eq((self.defence + 1) << 1)]
                m.next = "CAND"

            with m.State("VERDICT"):
                m.d.sync += att.eq(me)
                with m.If(~succ):                       # it holds: the answer, one deeper
                    m.d.sync += [self.ctl.col.eq(c1), self.ctl.row.eq(r1), self.ctl.tile.eq(t1),
                                 self.defence.eq(self.defence + 1), ans.eq(thr)]
                    with m.If(self.defence + 1 == self.max_defence):
                        m.next = "FINISH"
                    with m.Else():
                        m.next = "TEST"             # thr already holds its rank
                with m.Else():                          # select the next below it
                    m.d.sync += scan.eq(1)
                    m.next = "SEL"

            # -- the table's scan for the best safe candidate below the threshold: an entry
            # a few cycles (its read, its score, the registered comparisons) -------------
            with m.State("SEL"):
                m.d.sync += [best_ok.eq(0), ci.eq(0)]
                m.next = "SCAN"

            with m.State("SCAN"):                       # the entry's address is set
                with m.If(ci == n_safe):
                    m.d.sync += ci.eq(best_i)
                    m.next = "PICK"
                with m.Else():
                    m.next = "SCAN_LOAD"

            with m.State("SCAN_LOAD"):
                e = t_get
                m.d.sync += [score.cls.eq(2), score.ev.eq(e.ev), score.mine.eq(e.mine),
                             score.not_theirs.eq(THREAT_CAP), score.noise.eq(e.lfsr[:8])]
                m.next = "SCAN_WAIT"

            with m.State("SCAN_WAIT"):                  # below and better are registered
                m.next = "SCAN_CMP"

            with m.State("SCAN_CMP"):
                take = below & better
                if many:                                # a halved share keeps its half
                    take = take & in_share(t_get.rnd)
                with m.If(take):
                    m.d.sync += [best.eq(score), best_i.eq(ci), best_ok.eq(1)]
                m.d.sync += ci.eq(ci + 1)
                m.next = "SCAN"

            with m.State("PICK"):                       # best_i's entry is being read
                with m.If(~best_ok):
                    m.next = "FINISH"                   # every safe candidate loses
                with m.Else():
                    m.next = "PICKED"

            with m.State("PICKED"):
                e = t_get
                m.d.sync += [c1.eq(e.c), r1.eq(e.r), t1.eq(e.t), scan.eq(0),
                             *([e_rnd.eq(e.rnd)] if many else [])]
                with m.If(e.exact):                     # the next candidate to test
                    m.d.sync += [thr.eq(best), thr_i.eq(best_i)]
                    m.next = "TEST"
                with m.Else():                          # evaluated in full (no cut-off:
                    m.d.sync += [sel.eq(1), best_ok.eq(0),  # best_ok is clear), then
                                 lfsr.eq(lfsr_back(e.lfsr))]  # written back and scanned
                    m.next = "CAND"                             # again

            with m.State("FINISH"):
                m.d.sync += [self.active.eq(0), self.ctl.done.eq(1),
                             self.ctl.found.eq(best_ok | dphase)]
                with m.If(~deep & ~dphase):
                    m.d.sync += self.forced.eq(best_forced & ~self.win)
                m.next = "DONE"

            with m.State("DONE"):
                with m.If(~self.ctl.req):
                    m.d.sync += self.ctl.done.eq(0)
                    m.next = "IDLE"
        return m

