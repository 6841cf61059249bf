"""The board's player: a search of two plies, three for threats, on the move engine, within a
cycle budget.

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
  threats, which the opponent must stop);
* a safe candidate with threats is tested for a win by force (until one is found): the
  replies are scanned again, and after each one that neither wins for the opponent nor
  completes only the mover's loop or line, the mover's placements are tried (a third
  scan, starting with the winning move found after the previous reply) until one wins.
  If every such reply leaves a win, the candidate is class 3;
* the others are judged by the engine's ``EVAL`` of the position after them.

The score is ``class, evaluation, mine, 15 - theirs, noise`` (2, 16, 4, 4 and 8 bits;
counts saturate at 15), the evaluation being the mover's potential less the opponent's
(with a bonus for two loop attacks), offset by :data:`EV_ZERO` and clamped, and the noise
the low byte of a 16-bit LFSR started at :data:`LFSR_SEED` by every search and stepped once
per scored candidate, so that equal moves are not always chosen from the same corner,
while the board's move stays a function of the position (a game is reproducible from its
moves).  The best score wins; on a tie the earlier candidate stays.
:mod:`traxfpga.host.searcher` is the same algorithm in software and must choose the same
move.

A cycle counter stops the search once ``budget`` cycles have gone by since the start (and
at least one candidate has been scored): a candidate whose replies are still being tried
is then taken back unscored, and the best so far is the answer.  The budget is the time
limit's worth of cycles less a margin, so the answer is always in time.
"""

from contextlib import contextmanager

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
    budget : int or None
        Cycles after which the search answers with the best candidate so far; None: read
        from the ``budget_cycles`` port instead (for simulations that vary it).

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
    forced : Out(1)
        The move wins by force: whatever the opponent answers, the mover wins next turn.
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
            "forced":     Out(1),
            "col":        Out(signed(coord_bits)),
            "row":        Out(signed(coord_bits)),
            "tile":       Out(Shape),
            "candidates": Out(16),
            "cycles":     Out(32),
            "active":     Out(1),
            "cmd":        Out(stream.Signature(Command)),
            "res":        In(stream.Signature(Result)),
            **({"budget_cycles": In(32)} if budget is None else {}),
        })

    def elaborate(self, platform):
        m = Module()
        B = self.coord_bits
        res = self.res.payload

        # -- the three scans: candidates (1), replies (2), the mover's wins after a reply (3) --
        c1, r1 = Signal(signed(B)), Signal(signed(B))
        c2, r2 = Signal(signed(B)), Signal(signed(B))
        c3, r3 = Signal(signed(B)), Signal(signed(B))
        t1, t2, t3 = Signal(Shape), Signal(Shape), Signal(Shape)
        w1, h1 = Signal(B), Signal(B)             # the area before the search
        w2, h2 = Signal(B), Signal(B)             # ... after the candidate
        w3, h3 = Signal(B), Signal(B)             # ... after a reply
        # The forced-win test remembers the last winning move it found (in the candidate's
        # area) and tries it first after the next reply: most replies leave it winning.
        kc, kr = Signal(signed(B)), Signal(signed(B))
        kt = Signal(Shape)
        k_ok = Signal()
        trying_k = Signal()
        grew_x = c2 == -1                         # the reply grew the area left / up (scan 2
        grew_y = r2 == -1                         # holds still while scan 3 runs)
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

        def first(col, row, t):
            """Set a scan to its first placement: column -1, row -1, tile +."""
            return [col.eq(-1), row.eq(-1), t.eq(Shape.PLUS)]

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
        limit = self.budget_cycles if self.budget is None else self.budget
        m.d.sync += spent.eq(self.active & (self.cycles >= limit))
        stop = spent & best_ok

        # -- engine commands ------------------------------------------------------------------
        op = Signal(Op)
        use2 = Signal()                           # the command's placement: scan 2 ...
        use3 = Signal()                           # ... or 3, else 1
        m.d.comb += [
            self.cmd.payload.op.eq(op),
            self.cmd.payload.col.eq(Mux(use3, c3, Mux(use2, c2, c1))),
            self.cmd.payload.row.eq(Mux(use3, r3, Mux(use2, r2, r1))),
            self.cmd.payload.tile.eq(Mux(use3, t3, Mux(use2, t2, t1))),
        ]
        after_undo = Signal()                     # where UNDO_RES goes: 0 compare, 1 finish

        def send(state, then):
            """A state that offers the command set up in ``op``/``use2``/``use3`` until it is
            taken."""
            with m.State(state):
                m.d.comb += self.cmd.valid.eq(1)
                with m.If(self.cmd.ready):
                    m.next = then

        @contextmanager
        def result(state):
            """A state that takes the engine's result; the body runs when it arrives."""
            with m.State(state):
                m.d.comb += self.res.ready.eq(1)
                with m.If(self.res.valid):
                    yield

        with m.If(self.active):
            m.d.sync += self.cycles.eq(self.cycles + 1)

        def reply(state, then):
            """A state that sets up the next reply (scan 2) for `then`, or, out of time,
            takes the candidate back and finishes (the candidate is dropped)."""
            with m.State(state):
                m.d.sync += [op.eq(Op.PLACE), use2.eq(1), use3.eq(0)]
                with m.If(stop):
                    m.d.sync += [op.eq(Op.UNDO), use2.eq(0), after_undo.eq(1)]
                    m.next = "UNDO_CMD"
                with m.Else():
                    m.next = then

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.req):
                    m.d.sync += [
                        self.active.eq(1), self.cycles.eq(0), self.candidates.eq(0),
                        self.found.eq(0), self.win.eq(0), best_ok.eq(0), lfsr.eq(LFSR_SEED),
                        # a probe: far out of range, it changes nothing and tells the state
                        op.eq(Op.PLACE), use2.eq(0), use3.eq(0),
                        c1.eq(-(1 << (B - 1))), r1.eq(-(1 << (B - 1))), t1.eq(Shape.PLUS),
                    ]
                    m.next = "PROBE"

            send("PROBE", then="PROBE_RES")

            with result("PROBE_RES"):
                m.d.sync += [
                    w1.eq(res.width), h1.eq(res.height),
                    me.eq(Mux(res.ply[0], Winner.BLACK, Winner.WHITE)),
                    *first(c1, r1, t1),
                ]
                with m.If(res.reason != Reason.NONE):
                    m.next = "FINISH"
                with m.Else():
                    m.next = "CAND"

            # -- a candidate --------------------------------------------------------------------
            with m.State("CAND"):
                m.d.sync += [op.eq(Op.PLACE), use2.eq(0), use3.eq(0)]
                with m.If(stop):
                    m.next = "FINISH"
                with m.Else():
                    m.next = "CAND_CMD"

            send("CAND_CMD", then="CAND_RES")

            with result("CAND_RES"):
                with m.If(ok):
                    m.d.sync += [w2.eq(res.width), h2.eq(res.height), *first(c2, r2, t2),
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
            reply("REPLY", then="REPLY_CMD")

            send("REPLY_CMD", then="REPLY_RES")

            with result("REPLY_RES"):
                with m.If(ok):
                    with m.If(res.winner == me):
                        m.d.sync += mine.eq(mine + (mine != THREAT_CAP))
                    with m.Elif(res.winner != Winner.NONE):
                        m.d.sync += theirs.eq(theirs + (theirs != THREAT_CAP))
                    m.d.sync += op.eq(Op.UNDO)
                    m.next = "REPLY_UNDO"
                with m.Else():
                    m.next = "REPLY"
                    advance(c2, r2, t2, w2, h2, square, "REPLIES_DONE")

            send("REPLY_UNDO", then="REPLY_UNDO_RES")

            with result("REPLY_UNDO_RES"):
                m.next = "REPLY"
                advance(c2, r2, t2, w2, h2, Const(0), "REPLIES_DONE")

            # -- a candidate that threatens and is safe: does it win by force? -----------------
            # Every reply (scan 2 again) that neither wins for the opponent nor completes
            # only the mover's loop or line must leave the mover a winning move (scan 3,
            # stopping at the first).  Once one candidate wins by force, later ones are
            # not tested (the first stays; an immediate win still ends the search).
            with m.State("REPLIES_DONE"):
                best_forced = best_ok & (best[-2:] == 3)
                with m.If((theirs == 0) & (mine != 0) & ~best_forced):
                    m.d.sync += [*first(c2, r2, t2), k_ok.eq(0)]
                    m.next = "FW_REPLY"
                with m.Else():
                    m.next = "EVAL"

            reply("FW_REPLY", then="FW_REPLY_CMD")

            send("FW_REPLY_CMD", then="FW_REPLY_RES")

            with result("FW_REPLY_RES"):
                with m.If(ok):
                    m.d.sync += op.eq(Op.UNDO)
                    with m.If(res.winner == me):            # the opponent loses by it
                        m.next = "FW_NEXT_UNDO"
                    with m.Elif((res.winner != Winner.NONE) | (res.reason != Reason.NONE)):
                        m.next = "FW_FAIL_UNDO"             # it wins or draws (8x8)
                    with m.Else():
                        m.d.sync += [op.eq(Op.PLACE), use2.eq(0), use3.eq(1),
                                     w3.eq(res.width), h3.eq(res.height)]
                        with m.If(k_ok):
                            m.d.sync += [c3.eq(kc + grew_x), r3.eq(kr + grew_y),
                                         t3.eq(kt), trying_k.eq(1)]
                        with m.Else():
                            m.d.sync += [*first(c3, r3, t3), trying_k.eq(0)]
                        m.next = "FW_MINE"
                with m.Else():
                    m.next = "FW_REPLY"
                    advance(c2, r2, t2, w2, h2, square, "FORCED")

            with m.State("FW_MINE"):
                m.d.sync += [op.eq(Op.PLACE), use2.eq(0), use3.eq(1)]
                with m.If(stop):
                    m.d.sync += op.eq(Op.UNDO)
                    m.next = "FW_ABORT_UNDO"            # out of time: take both back
                with m.Else():
                    m.next = "FW_MINE_CMD"

            send("FW_MINE_CMD", then="FW_MINE_RES")

            with result("FW_MINE_RES"):
                with m.If(ok):
                    m.d.sync += op.eq(Op.UNDO)
                    with m.If(res.winner == me):
                        m.d.sync += [kc.eq(c3 - grew_x), kr.eq(r3 - grew_y), kt.eq(t3),
                                     k_ok.eq(1)]
                        m.next = "FW_WIN_UNDO"
                    with m.Else():
                        m.next = "FW_MINE_UNDO"
                with m.Elif(trying_k):
                    m.d.sync += [*first(c3, r3, t3), trying_k.eq(0)]
                    m.next = "FW_MINE"
                with m.Else():
                    m.next = "FW_MINE"
                    advance(c3, r3, t3, w3, h3, square, "FW_NONE")

            send("FW_MINE_UNDO", then="FW_MINE_UNDO_RES")

            with result("FW_MINE_UNDO_RES"):
                m.next = "FW_MINE"
                with m.If(trying_k):
                    m.d.sync += [*first(c3, r3, t3), trying_k.eq(0)]
                with m.Else():
                    advance(c3, r3, t3, w3, h3, Const(0), "FW_NONE")

            with m.State("FW_NONE"):                    # no win after this reply
                m.d.sync += op.eq(Op.UNDO)
                m.next = "FW_FAIL_UNDO"

            send("FW_FAIL_UNDO", then="FW_FAIL_UNDO_RES")

            with result("FW_FAIL_UNDO_RES"):
                m.next = "EVAL"

            send("FW_WIN_UNDO", then="FW_WIN_UNDO_RES")

            with result("FW_WIN_UNDO_RES"):         # the mover's win taken back ...
                m.next = "FW_NEXT_UNDO"             # ... now the reply

            send("FW_NEXT_UNDO", then="FW_NEXT_UNDO_RES")

            with result("FW_NEXT_UNDO_RES"):
                m.next = "FW_REPLY"
                advance(c2, r2, t2, w2, h2, Const(0), "FORCED")

            send("FW_ABORT_UNDO", then="FW_ABORT_UNDO_RES")

            with result("FW_ABORT_UNDO_RES"):       # the reply taken back; the candidate
                m.d.sync += after_undo.eq(1)
                m.next = "UNDO_CMD"

            with m.State("FORCED"):
                m.d.sync += [*scored(3, False), op.eq(Op.UNDO), after_undo.eq(0)]
                m.next = "UNDO_CMD"

            # -- the position after the candidate, judged by the engine's EVAL ------------------
            with m.State("EVAL"):
                m.d.sync += op.eq(Op.EVAL)
                m.next = "EVAL_CMD"

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

            with result("UNDO_RES"):
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
                m.d.sync += [self.active.eq(0), self.done.eq(1), self.found.eq(best_ok),
                             self.forced.eq(best_ok & ~self.win & (best[-2:] == 3))]
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
