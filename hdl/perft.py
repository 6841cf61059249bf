"""perft in hardware: the number of legal move sequences of a given length from the current
position, counted on the move engine with its own ``SEEK`` and ``UNDO`` commands, so that
the hardware's move generation is checked against the reference's ``Game.perft`` and timed.

The unit borrows the engine (:func:`~traxfpga.hdl.share.share_engine`) for one count and
leaves the position as it found it.  Depth first: a probe (a ``PLACE`` far out of range)
reads the area and whether the game is over; then every level scans its placements in the
player's order (column ``-1`` to ``width``, row ``-1`` to ``height``, tile ``+ / \\``; a
refusal for the square skips its other tiles) with ``SEEK``, which passes over the
placements the square's word refuses and names the one it tried.  At the last level each legal placement is a
leaf, counted and taken back; above it a legal placement that does not end the game goes
down a level (its scan position waits on a small stack memory) and one that ends it is
taken back, as the reference counts (a finished game has no moves; the last ply is counted
whatever it does).  A placement is taken back with ``UNDO_SEEK``, which goes on with the
level's scan in the same command.  A level's scan over, the move above is taken back with ``UNDO`` and
that level's scan goes on.  ``docs/engine.md`` has the figures.
"""


from amaranth.hdl import Const, Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .engine import Command, Op, Result
from .share import check_core, offer_state, result_state
from .tiles import Reason, Shape, Status, Winner

__all__ = ["Perft", "PerftRequest", "MAX_PERFT_DEPTH", "COUNT_BITS", "SPLIT_LEVEL"]

#: The deepest count the unit takes (``:perft`` 0 .. this; a stack entry a level).  perft(9)
#: from the start is about 10^11 leaves, days of the engine's time.
MAX_PERFT_DEPTH = 9

#: Width of the count: 2^40 is about 1.1 x 10^12, above perft(9) from the start.
COUNT_BITS = 40

#: With many cores the moves of this level (or of the last, when the count is shallower)
#: are dealt round the cores: from the start there are 2 first moves, 24 second ones and
#: 432 third ones, enough for an even share.
SPLIT_LEVEL = 3

#: The bundle between the perft unit and whoever asks it for a count, seen from the asker
#: (the protocol sequencer): raise ``req`` with ``depth``; ``done`` rises with ``count``;
#: drop ``req`` and ``done`` falls.
PerftRequest = wiring.Signature({
    "req":   Out(1),
    "depth": Out(range(MAX_PERFT_DEPTH + 1)),
    "done":  In(1),
    "count": In(COUNT_BITS),
})


class Perft(wiring.Component):
    """Counts the leaves of the move tree to ``ctl.depth`` from the engine's position.

    Parameters
    ----------
    log2n : int
        The engine's board store is ``N = 2**log2n`` squares a side (its area at most
        ``N - 2``); the scan's coordinates are ``log2n + 3`` bits, as the sequencer's.
    core, cores : int
        This unit is core ``core`` of ``cores`` (:mod:`.cores`): every unit walks the levels
        above :data:`SPLIT_LEVEL` in full, the legal moves at that level are dealt round
        the cores in the order they are met, and each unit counts only below its own, so
        the counts of all the cores add up to the whole.

    Attributes
    ----------
    ctl : In(PerftRequest)
        The four-phase handshake with the caller; ``count`` also counts up while it runs.
    active : Out(1)
        The unit owns the engine (from the start of a count to ``done``).
    cmd : Out(stream.Signature(Command))
    res : In(stream.Signature(Result))
        To the engine, while ``active``.
    """

    def __init__(self, *, log2n=7, core=0, cores=1):
        check_core(core, cores)
        self.log2n = log2n
        self.core, self.cores = core, cores
        super().__init__({
            "ctl":    In(PerftRequest),
            "active": Out(1),
            "cmd":    Out(stream.Signature(Command)),
            "res":    In(stream.Signature(Result)),
        })

    def elaborate(self, platform):
        m = Module()
        L = self.log2n
        B = L + 3
        res = self.res.payload

        # The scan of the current level, and the area of the position it scans.
        c, r, t = Signal(signed(B)), Signal(signed(B)), Signal(Shape)
        w, h = Signal(B), Signal(B)
        depth = Signal.like(self.ctl.depth)
        lv = Signal(range(MAX_PERFT_DEPTH + 1))       # 1: the root's moves
        # The levels above wait on a stack, one entry a level, read a level up from lv (the
        # address settles long before the UNDO's result that needs it).  A scan stays within
        # -1 .. N - 2, so it is kept plus one in log2n bits: 16 bits at N = 128, one iCE40
        # block RAM.
        Level = data.StructLayout({"c1": L, "r1": L, "t": Shape})
        m.submodules.stack = stack = Memory(shape=Level, depth=1 << len(lv), init=[])
        push = stack.write_port()
        top = stack.read_port(domain="sync")
        minus1 = Const(-1, signed(2))
        # (A level is pushed as a SEEK's result names the move it goes down by.)
        m.d.comb += [push.addr.eq(lv), push.data.c1.eq(res.col + 1),
                     push.data.r1.eq(res.row + 1), push.data.t.eq(res.tile),
                     top.addr.eq(lv - 1)]

        op = Signal(Op)
        m.d.comb += [self.cmd.payload.op.eq(op), self.cmd.payload.col.eq(c),
                     self.cmd.payload.row.eq(r), self.cmd.payload.tile.eq(t)]

        status = res.status
        ok = status == Status.OK
        # the refusals that hold for every tile of the square (as the sequencer's NEXT)
        square = ~ok & (status != Status.MISMATCH) & (status != Status.THREE_TRACKS)
        ends = (res.winner != Winner.NONE) | (res.reason != Reason.NONE)

        def first():
            return [c.eq(-1), r.eq(-1), t.eq(Shape.PLUS)]

        # Many cores: ``deal`` counts the legal moves met at the split level, modulo
        # ``cores``; a move there is this unit's when the count is its core number.
        many = self.cores > 1
        split = Signal.like(lv)
        deal = Signal(range(self.cores))
        at_split = Signal()
        mine = Signal()
        m.d.comb += [at_split.eq(lv == split), mine.eq(~at_split | (deal == self.core))]

        def advance(skip_square, at_c=c, at_r=r, at_t=t):
            """The placement after (at_c, at_r, at_t) in the level's scan, or its end (also
            when SEEK's scan ran out, past the last column)."""
            m.next = "NODE"
            with m.If(at_c > w):
                m.next = "END"
            with m.Elif(~skip_square & (at_t != Shape.BACKSLASH)):
                m.d.sync += t.eq(at_t.as_value() + 1)
            with m.Elif(at_r < h):
                m.d.sync += [r.eq(at_r + 1), t.eq(Shape.PLUS)]
            with m.Elif(at_c < w):
                m.d.sync += [c.eq(at_c + 1), r.eq(-1), t.eq(Shape.PLUS)]
            with m.Else():
                m.next = "END"

        def send(state, then):
            offer_state(m, self.cmd, state, then)

        def result(state):
            return result_state(m, self.res, state)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.ctl.req):
                    m.d.sync += [
                        self.active.eq(1), self.ctl.count.eq(0), depth.eq(self.ctl.depth),
                        # a probe: far out of range, it changes nothing and tells the state
                        op.eq(Op.PLACE), c.eq(-(1 << (B - 1))), r.eq(-(1 << (B - 1))),
                        t.eq(Shape.PLUS),
                    ]
                    m.next = "PROBE"

            send("PROBE", then="PROBE_RES")

            with result("PROBE_RES"):
                m.d.sync += [lv.eq(1), w.eq(res.width), h.eq(res.height), *first(),
                             op.eq(Op.SEEK)]
                if many:
                    m.d.sync += [deal.eq(0),
                                 split.eq(Mux(depth < SPLIT_LEVEL, depth, SPLIT_LEVEL))]
                with m.If(depth == 0):
                    m.d.sync += self.ctl.count.eq(int(self.core == 0))  # the position, once
                    m.next = "FINISH"
                with m.Elif(res.reason != Reason.NONE):     # a finished game: no moves
                    m.next = "FINISH"
                with m.Else():
                    m.next = "NODE"

            send("NODE", then="NODE_RES")

            with result("NODE_RES"):
                # SEEK passed over the placements refused from their square's word: the
                # scan goes on from the one it names.
                m.d.sync += [c.eq(res.col), r.eq(res.row), t.eq(res.tile)]
                with m.If(~ok):
                    advance(square, res.col, res.row, res.tile)
                with m.Else():
                    # taken back, and the scan on from the next placement, in one command
                    # (a level down instead, below: SEEK)
                    m.d.sync += op.eq(Op.UNDO_SEEK)
                    m.next = "NODE"
                    if many:
                        with m.If(at_split):
                            m.d.sync += deal.eq(Mux(deal == self.cores - 1, 0, deal + 1))
                        with m.If(~mine):                   # another core's: taken back
                            pass
                    with (m.Elif if many else m.If)(lv == depth):   # a leaf, whatever it does
                        m.d.sync += self.ctl.count.eq(self.ctl.count + 1)
                    with m.Elif(~ends):                     # go down a level
                        m.d.comb += push.en.eq(1)
                        m.d.sync += [lv.eq(lv + 1), w.eq(res.width), h.eq(res.height),
                                     *first(), op.eq(Op.SEEK)]
                        m.next = "NODE"

            with m.State("END"):                            # the level's scan is over
                with m.If(lv == 1):
                    m.next = "FINISH"
                with m.Else():
                    m.d.sync += op.eq(Op.UNDO)
                    m.next = "UP_UNDO"

            send("UP_UNDO", then="UP_UNDO_RES")

            with result("UP_UNDO_RES"):                     # back to the level above
                m.d.sync += [lv.eq(lv - 1), c.eq(top.data.c1 + minus1),
                             r.eq(top.data.r1 + minus1),
                             t.eq(top.data.t), w.eq(res.width), h.eq(res.height),
                             op.eq(Op.SEEK)]
                m.next = "UP"

            with m.State("UP"):
                advance(Const(0))

            with m.State("FINISH"):
                m.d.sync += [self.active.eq(0), self.ctl.done.eq(1)]
                m.next = "DONE"

            with m.State("DONE"):
                with m.If(~self.ctl.req):
                    m.d.sync += self.ctl.done.eq(0)
                    m.next = "IDLE"
        return m
