"""The board's player: a two-ply search on the move engine, within a cycle budget.

The searcher borrows the engine (its ``cmd``/``res`` streams) for one decision and leaves
the position as it found it.  It enumerates the side to move's placements in the order of
the notation's scan (column ``-1`` to ``width``, row ``-1`` to ``height``, tile ``+ / \\``),
plays each legal one (a *candidate*) with the engine's ``PLACE`` and takes it back with
``UNDO``:

* a candidate that wins for the mover is chosen at once;
* a candidate that completes only the opponent's loop or line loses: class 0;
* an 8x8 candidate that draws: class 1;
* any other candidate is answered by every placement of the opponent (the same scan on
  the position after it, each legal reply taken back at once), counting the replies that
  win for the opponent (``theirs``: a candidate with any is *unsafe*, class 1, else safe,
  class 2) and those that complete only the mover's loop or line (``mine``: the mover's
  threats, which the opponent must stop).

The score is ``class, mine, 15 - theirs, noise`` (2, 4, 4 and 8 bits; counts saturate at
15), the noise being the low byte of a 16-bit LFSR started at :data:`LFSR_SEED` by every
search and stepped once per scored candidate, so that equal moves are not always chosen
from the same corner, while the board's move stays a function of the position (a game is
reproducible from its moves).  The best score wins; on a tie the
earlier candidate stays.  :mod:`traxfpga.host.searcher` is the same algorithm in software
and must choose the same move.

A cycle counter stops the search once ``budget`` cycles have gone by since the start (and
at least one candidate has been scored): a candidate whose replies are still being tried
is then taken back unscored, and the best so far is the answer.  The budget is the time
limit's worth of cycles less a margin, so the answer is always in time.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .engine import Command, Op, Result
from .tiles import Reason, Shape, Status, Winner

__all__ = ["Searcher", "share_engine", "LFSR_SEED", "LFSR_TAPS", "THREAT_CAP", "EV_ZERO",
           "EV_DOUBLE_ATTACK", "EV_DOUBLE_BONUS"]

LFSR_SEED = 0xACE1
LFSR_TAPS = 0xB400          # Galois form: x^16 + x^14 + x^13 + x^11 + 1
THREAT_CAP = 15
EV_BITS = 16                # the evaluation field of the score
EV_ZERO = 1 << 15           # ... holds mine - theirs + bonus + EV_ZERO, clamped
EV_MAX = (1 << EV_BITS) - 1
EV_DOUBLE_ATTACK = 4        # loop-attack ends (two paths) that the opponent cannot both stop
EV_DOUBLE_BONUS = 100       # ... worth this much; fewer are worth 6 an end
SCORE_BITS = 2 + EV_BITS + 4 + 4 + 8


class Searcher(wiring.Component):
    """Chooses the board's move.

    Parameters
    ----------
    coord_bits : int
        Width of the signed scan coordinates (enough for ``-1 .. N``).
    budget : int
        Cycles after which the search answers with the best candidate so far.

    Attributes
    ----------
    req : In(1)
        Four-phase handshake with the caller: raise ``req`` to start a search; ``done``
        rises with the answer; drop ``req`` and ``done`` falls.
    done : Out(1)
    found : Out(1)
        The answer holds a legal move (there was one, and the game is not over).
    win : Out(1)
        The move wins at once.
    col, row : Out(signed(coord_bits))
        The move, relative to the area as in the notation.
    tile : Out(Shape)
    candidates : Out(16)
        Candidates scored by the last search.
    cycles : Out(32)
        Cycles the last search took, from its start to ``done``.
    active : Out(1)
        The searcher owns the engine (from the start of a search to ``done``).
    cmd : Out(stream.Signature(Command))
    res : In(stream.Signature(Result))
        To the engine, while ``active``.
    """

    def __init__(self, *, coord_bits=10, budget=1 << 24):
        self.coord_bits = coord_bits
        self.budget = budget
        super().__init__({
            "req":        In(1),
            "done":       Out(1),
            "found":      Out(1),
            "win":        Out(1),
            "col":        Out(signed(coord_bits)),
            "row":        Out(signed(coord_bits)),
            "tile":       Out(Shape),
            "candidates": Out(16),
            "cycles":     Out(32),
            "active":     Out(1),
            "cmd":        Out(stream.Signature(Command)),
            "res":        In(stream.Signature(Result)),
        })

    def elaborate(self, platform):
        m = Module()
        B = self.coord_bits
        res = self.res.payload

        # -- the two scans: candidates (1) and replies (2) -------------------------------------
        c1, r1 = Signal(signed(B)), Signal(signed(B))
        c2, r2 = Signal(signed(B)), Signal(signed(B))
        t1, t2 = Signal(Shape), Signal(Shape)
        w1, h1 = Signal(B), Signal(B)             # the area before the search
        w2, h2 = Signal(B), Signal(B)             # ... after the candidate
        me = Signal(Winner)                       # the side to move, as a winner value

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

        status = res.status
        ok = status == Status.OK
        square = ~ok & (status != Status.MISMATCH) & (status != Status.THREE_TRACKS)

        # -- scores ---------------------------------------------------------------------------
        mine = Signal(4)
        theirs = Signal(4)
        ev = Signal(EV_BITS)                      # the candidate's EVAL, as scored
        ev_diff = Signal(signed(EV_BITS + 2))     # ... before clamping
        score = Signal(SCORE_BITS)
        best = Signal(SCORE_BITS)
        best_ok = Signal()
        lfsr = Signal(16)
        lfsr_next = Signal(16)
        m.d.comb += lfsr_next.eq(Mux(lfsr[0], (lfsr >> 1) ^ LFSR_TAPS, lfsr >> 1))
        noise = lfsr_next[:8]

        def scored(cls, with_counts):
            """Set the candidate's score (``cls`` 0..3; the evaluation and counts, or zeros)
            and count it."""
            counts = (Cat((THREAT_CAP - theirs)[:4], mine, ev) if with_counts
                      else Const(0, 8 + EV_BITS))
            fields = Cat(noise, counts, Const(cls, 2) if isinstance(cls, int) else cls)
            return [score.eq(fields), lfsr.eq(lfsr_next), self.candidates.eq(self.candidates + 1)]

        # -- the budget -----------------------------------------------------------------------
        spent = Signal()
        m.d.sync += spent.eq(self.active & (self.cycles >= self.budget))
        stop = spent & best_ok

        # -- engine commands ------------------------------------------------------------------
        op = Signal(Op)
        use2 = Signal()
        m.d.comb += [
            self.cmd.payload.op.eq(op),
            self.cmd.payload.col.eq(Mux(use2, c2, c1)),
            self.cmd.payload.row.eq(Mux(use2, r2, r1)),
            self.cmd.payload.tile.eq(Mux(use2, t2, t1)),
        ]
        after_undo = Signal()                     # where UNDO_RES goes: 0 compare, 1 finish

        def send(state, then):
            """A state that offers the command set up in ``op``/``use2`` until it is taken."""
            with m.State(state):
                m.d.comb += self.cmd.valid.eq(1)
                with m.If(self.cmd.ready):
                    m.next = then

        with m.If(self.active):
            m.d.sync += self.cycles.eq(self.cycles + 1)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.req):
                    m.d.sync += [
                        self.active.eq(1), self.cycles.eq(0), self.candidates.eq(0),
                        self.found.eq(0), self.win.eq(0), best_ok.eq(0), lfsr.eq(LFSR_SEED),
                        # a probe: far out of range, it changes nothing and tells the state
                        op.eq(Op.PLACE), use2.eq(0),
                        c1.eq(-(1 << (B - 1))), r1.eq(-(1 << (B - 1))), t1.eq(Shape.PLUS),
                    ]
                    m.next = "PROBE"

            send("PROBE", then="PROBE_RES")

            with m.State("PROBE_RES"):
                m.d.comb += self.res.ready.eq(1)
                with m.If(self.res.valid):
                    m.d.sync += [
                        w1.eq(res.width), h1.eq(res.height),
                        me.eq(Mux(res.ply[0], Winner.BLACK, Winner.WHITE)),
                        c1.eq(-1), r1.eq(-1), t1.eq(Shape.PLUS),
                    ]
                    with m.If(res.reason != Reason.NONE):
                        m.next = "FINISH"
                    with m.Else():
                        m.next = "CAND"

            # -- a candidate --------------------------------------------------------------------
            with m.State("CAND"):
                m.d.sync += [op.eq(Op.PLACE), use2.eq(0)]
                with m.If(stop):
                    m.next = "FINISH"
                with m.Else():
                    m.next = "CAND_CMD"

            send("CAND_CMD", then="CAND_RES")

            with m.State("CAND_RES"):
                m.d.comb += self.res.ready.eq(1)
                with m.If(self.res.valid):
                    with m.If(ok):
                        m.d.sync += [w2.eq(res.width), h2.eq(res.height),
                                     c2.eq(-1), r2.eq(-1), t2.eq(Shape.PLUS),
                                     mine.eq(0), theirs.eq(0), op.eq(Op.UNDO)]
                        with m.If(res.winner == me):
                            m.d.sync += [*scored(3, False), after_undo.eq(1),
                                         self.win.eq(1), best_ok.eq(1)]
                            m.next = "UNDO_CMD"
                        with m.Elif(res.winner != Winner.NONE):
                            m.d.sync += [*scored(0, False), after_undo.eq(0)]
                            m.next = "UNDO_CMD"
                        with m.Elif(res.reason != Reason.NONE):      # an 8x8 draw
                            m.d.sync += [*scored(1, False), after_undo.eq(0)]
                            m.next = "UNDO_CMD"
                        with m.Else():
                            m.next = "REPLY"
                    with m.Else():
                        m.next = "CAND"
                        advance(c1, r1, t1, w1, h1, square, "FINISH")

            # -- the opponent's replies ---------------------------------------------------------
            with m.State("REPLY"):
                m.d.sync += [op.eq(Op.PLACE), use2.eq(1)]
                with m.If(stop):
                    m.d.sync += [op.eq(Op.UNDO), use2.eq(0), after_undo.eq(1)]
                    m.next = "UNDO_CMD"                 # out of time: drop this candidate
                with m.Else():
                    m.next = "REPLY_CMD"

            send("REPLY_CMD", then="REPLY_RES")

            with m.State("REPLY_RES"):
                m.d.comb += self.res.ready.eq(1)
                with m.If(self.res.valid):
                    with m.If(ok):
                        with m.If(res.winner == me):
                            m.d.sync += mine.eq(mine + (mine != THREAT_CAP))
                        with m.Elif(res.winner != Winner.NONE):
                            m.d.sync += theirs.eq(theirs + (theirs != THREAT_CAP))
                        m.d.sync += op.eq(Op.UNDO)
                        m.next = "REPLY_UNDO"
                    with m.Else():
                        m.next = "REPLY"
                        advance(c2, r2, t2, w2, h2, square, "EVAL")

            send("REPLY_UNDO", then="REPLY_UNDO_RES")

            with m.State("REPLY_UNDO_RES"):
                m.d.comb += self.res.ready.eq(1)
                with m.If(self.res.valid):
                    m.next = "REPLY"
                    advance(c2, r2, t2, w2, h2, Const(0), "EVAL")

            # -- the position after the candidate, judged by the engine's EVAL ------------------
            with m.State("EVAL"):
                m.d.sync += op.eq(Op.EVAL)
                m.next = "EVAL_CMD"

            send("EVAL_CMD", then="EVAL_RES")

            with m.State("EVAL_RES"):
                m.d.comb += self.res.ready.eq(1)
                with m.If(self.res.valid):
                    black = me == Winner.BLACK
                    pot_me = Mux(black, res.pot[1], res.pot[0])
                    pot_opp = Mux(black, res.pot[0], res.pot[1])
                    att_me = Mux(black, res.att[1], res.att[0])
                    bonus = Mux(att_me >= EV_DOUBLE_ATTACK, EV_DOUBLE_BONUS,
                                (att_me[:3] << 2) + (att_me[:3] << 1))      # 6 per end
                    m.d.sync += ev_diff.eq(pot_me - pot_opp + bonus + EV_ZERO)
                    m.next = "EV_CLAMP"

            with m.State("EV_CLAMP"):
                with m.If(ev_diff < 0):
                    m.d.sync += ev.eq(0)
                with m.Elif(ev_diff > EV_MAX):
                    m.d.sync += ev.eq(EV_MAX)
                with m.Else():
                    m.d.sync += ev.eq(ev_diff)
                m.next = "SCORE"

            with m.State("SCORE"):
                m.d.sync += [*scored(Mux(theirs == 0, 2, 1), True),
                             op.eq(Op.UNDO), use2.eq(0), after_undo.eq(0)]
                m.next = "UNDO_CMD"

            # -- take the candidate back ----------------------------------------------------------
            send("UNDO_CMD", then="UNDO_RES")

            with m.State("UNDO_RES"):
                m.d.comb += self.res.ready.eq(1)
                with m.If(self.res.valid):
                    with m.If(after_undo):
                        with m.If(self.win):
                            m.d.sync += [self.col.eq(c1), self.row.eq(r1), self.tile.eq(t1)]
                        m.next = "FINISH"
                    with m.Else():
                        m.next = "COMPARE"

            with m.State("COMPARE"):
                with m.If(~best_ok | (score > best)):
                    m.d.sync += [best.eq(score), best_ok.eq(1),
                                 self.col.eq(c1), self.row.eq(r1), self.tile.eq(t1)]
                m.next = "CAND"
                advance(c1, r1, t1, w1, h1, Const(0), "FINISH")

            with m.State("FINISH"):
                m.d.sync += [self.active.eq(0), self.done.eq(1), self.found.eq(best_ok)]
                m.next = "DONE"

            with m.State("DONE"):
                with m.If(~self.req):
                    m.d.sync += self.done.eq(0)
                    m.next = "IDLE"
        return m


def share_engine(m, engine, host_cmd, host_res, searcher):
    """Connect the engine's ``cmd``/``res`` to ``searcher`` while it is active, else to the
    host's ``host_cmd`` (a stream the host drives) and ``host_res`` (one it reads)."""
    active = searcher.active
    m.d.comb += [
        engine.cmd.valid.eq(Mux(active, searcher.cmd.valid, host_cmd.valid)),
        engine.cmd.payload.eq(Mux(active, searcher.cmd.payload, host_cmd.payload)),
        host_cmd.ready.eq(engine.cmd.ready & ~active),
        searcher.cmd.ready.eq(engine.cmd.ready & active),
        searcher.res.payload.eq(engine.res.payload),
        host_res.payload.eq(engine.res.payload),
        searcher.res.valid.eq(engine.res.valid & active),
        host_res.valid.eq(engine.res.valid & ~active),
        engine.res.ready.eq(Mux(active, searcher.res.ready, host_res.ready)),
    ]
