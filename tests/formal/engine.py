"""Harnesses for :mod:`traxfpga.hdl.engine`: the command/result streams, refused moves."""

from amaranth.lib import wiring
from amaranth.hdl import Assert, Assume, Cat, Module, Mux, ResetSignal, Signal

from traxfpga.hdl.engine import Engine, Op
from traxfpga.hdl.tiles import Shape, Status

from .inside import Inside

__all__ = ["StreamHarness", "RefusalHarness"]


def small_engine():
    """The smallest engine: an 8x8 store, a 4-entry log and a 4-entry forced stack."""
    return Engine(log2n=3, log_depth=4, stack_depth=4, clear_on_start=False)


class StreamHarness(wiring.Component):
    """Engine: the ``cmd``, ``res`` and ``cells`` streams.

    Any command at any time (an arbitrary op and payload, ``valid`` held until ``ready``
    and the payload stable meanwhile, as the stream rules ask of a producer); ``res.ready``
    and ``cells.ready`` free.  The harness counts commands taken and results given.
    Proved: ``cmd.ready`` only when no command is outstanding (idle) and ``busy`` exactly
    when not ready; ``res.valid`` only while one command is outstanding, so at most one
    result per command, and no command taken before the previous result; a result offered
    at most ``PATIENCE`` cycles after its command (unless it hunts); ``cells.valid`` only
    during a ``DUMP``; ``res`` and ``cells`` keep ``valid`` and their payload until
    ``ready``.

    With ``inductive=True`` the bounded result time is left out and invariants on the
    engine's state machine are added, so that k-induction closes (see docs/formal.md).
    """

    #: A command taken from reset is answered within this many cycles (the first PLACE,
    #: the longest, takes 15); checked within the bound, like everything else here.
    PATIENCE = 16

    def __init__(self, mutant=None, *, inductive=False):
        super().__init__({})      # no ports of its own: the harness's inputs are free
        self.mutant = mutant
        self.inductive = inductive
        if mutant == "impatient":       # a result within 3 cycles: PLACE takes longer
            self.PATIENCE = 3
        self.dut = small_engine()
        d = self.dut
        d._MustUse__silence = True          # elaborated by hand below
        self.ports = [d.cmd.valid, d.cmd.payload.as_value(), d.res.ready, d.cells.ready]

    def elaborate(self, platform):
        m = Module()
        dut = self.dut
        # Elaborated here, so that the harness can see the engine's state machine.
        m.submodules.dut = body = dut.elaborate(platform)
        m.d.comb += Assume(~ResetSignal())
        cmd, res, cells = dut.cmd, dut.res, dut.cells

        def past(v):
            r = Signal.like(v)
            m.d.sync += r.eq(v)
            return r

        p_cmd_valid, p_cmd_ready = past(cmd.valid), past(cmd.ready)
        p_cmd = past(cmd.payload.as_value())
        with m.If(p_cmd_valid & ~p_cmd_ready):
            m.d.comb += Assume(cmd.valid & (cmd.payload.as_value() == p_cmd))
        # Any op, the undefined one (7) included: it is answered (RANGE) too.

        outstanding = Signal(2)
        op = Signal(Op)
        hunting = Signal()
        taken = cmd.valid & cmd.ready
        given = res.valid & res.ready
        m.d.sync += outstanding.eq(outstanding + taken - given)
        with m.If(taken):
            m.d.sync += [op.eq(cmd.payload.op), hunting.eq(cmd.payload.hunt)]
        # Cycles a command has waited for its result to be offered.
        wait = Signal(range(self.PATIENCE + 1))
        with m.If(taken | res.valid):
            m.d.sync += wait.eq(0)
        with m.Elif((outstanding != 0) & (wait != self.PATIENCE)):
            m.d.sync += wait.eq(wait + 1)

        m.d.comb += [
            Assert(~cmd.ready | (outstanding == 0), "cmd.ready only when idle"),
            Assert(dut.busy == ~cmd.ready, "busy exactly when not ready"),
            Assert(~res.valid | (outstanding == 1), "a result only for the outstanding command"),
            Assert(outstanding <= 1, "one command at a time"),
            Assert(~cells.valid | ((outstanding == 1) & (op == Op.DUMP)),
                   "cells only during a DUMP"),
        ]
        if not self.inductive:
            # A bounded liveness check: true only within the bound, never inductive.  Not
            # for a hunting SEEK, which places and takes back moves for as long as its scan
            # finds ones that end nothing (its progress: tests/test_engine.py).
            m.d.comb += Assert((wait != self.PATIENCE) | hunting,
                               "a result within PATIENCE cycles (from reset)")
        else:
            # The invariants that make the stream properties inductive: the engine's state
            # machine is idle exactly when no command is outstanding, never in CLEAR_ALL
            # (used only with clear_on_start), dumps only for a DUMP, and offers a result
            # with EVAL's pipeline drained (else the sums would change under a held result).
            inside = Inside(body)
            in_state = inside.in_state
            idle = in_state("IDLE")
            if self.mutant != "no_idle_invariant":
                # (The mutant drops this invariant: the induction must then fail, the
                # solver starting from a state the engine cannot reach.)
                m.d.comb += Assert(outstanding == ~idle, "idle exactly when nothing is outstanding")
            # (The "dump_for_eval" mutant states a false invariant: the base case fails.)
            dump_op = Op.EVAL if self.mutant == "dump_for_eval" else Op.DUMP
            drained = ~body.submodules.eval.busy
            m.d.comb += [
                Assert(inside.defined(), "a defined state"),
                Assert(~in_state("CLEAR_ALL"), "never clearing (clear_on_start=False)"),
                Assert(~in_state("DUMP", "DUMP_OUT") | (op == dump_op), "dumping only for DUMP"),
                Assert(~in_state("RESULT") | drained, "a result only with EVAL's sums final"),
            ]
        for name, s in (("res", res), ("cells", cells)):
            p_valid, p_ready = past(s.valid), past(s.ready)
            p_payload = past(s.payload.as_value())
            with m.If(p_valid & ~p_ready):
                m.d.comb += [
                    Assert(s.valid, f"{name}: valid held until ready"),
                    Assert(s.payload.as_value() == p_payload, f"{name}: payload stable"),
                ]
        return m


SHAPES = {"+": Shape.PLUS, "/": Shape.SLASH, "\\": Shape.BACKSLASH}


class RefusalHarness(wiring.Component):
    """Engine: a refused ``PLACE`` or ``SEEK`` leaves the board memories exactly as they were.

    The engine is elaborated here so that the harness can watch the write ports of its
    board store (``cells``) and path-end stores (``far_w``, ``far_b``).  For one address
    chosen by the solver, the harness keeps a copy of each store's word (all stores start
    zeroed), and takes a snapshot when a command is accepted.  Proved: when that ``PLACE``
    or ``SEEK`` is refused (any status but OK), the three words equal the snapshot, the
    undo log's pointer is back where it was, and the result reports the area and the
    ply of the previous result.

    ``prefix`` is a list of moves (``(col, row, tile)`` in notation coordinates) sent
    first, each to be accepted (none by default: the solver picks the opening too); after
    them every command is a ``PLACE`` or (``seek``) a ``SEEK``, the solver's choice, of a free
    square and tile, so the refusals are those of every move and every scan from that position (and
    from the positions those moves lead to, within the bound).  With ``log_depth=2`` a move with a
    forced play is refused with ``CAPACITY`` after its tiles were written: the rollback
    path.  ``cmd.valid`` and ``res.ready`` stay high (the streams are proved elsewhere).
    With ``dual`` the engine runs the dual-port schedule: each store is two banks, each
    written at one of two write ports (`BankedRAM`), and the copy follows both; with
    ``quad`` too, its tiles read their four neighbours at once.
    """

    def __init__(self, prefix=(), *, log_depth=2, stack_depth=4, seek=True, mutant=None,
                 dual=False, quad=False):
        super().__init__({})      # no ports of its own: the harness's inputs are free
        self.prefix = list(prefix)
        self.seek = seek
        self.mutant = mutant
        self.dual = dual
        self.engine = Engine(log2n=3, log_depth=log_depth, stack_depth=stack_depth,
                             clear_on_start=False, dual=dual, quad=quad)
        e = self.engine
        e._MustUse__silence = True          # elaborated by hand below
        self.pick = Signal(6)
        self.ports = [e.cmd.payload.as_value(), self.pick]

    def elaborate(self, platform):
        m = Module()
        e = self.engine
        m.submodules.engine = body = e.elaborate(platform)
        m.d.comb += Assume(~ResetSignal())
        cmd, res = e.cmd, e.res
        m.d.comb += [cmd.valid.eq(1), res.ready.eq(1)]

        # The commands: the prefix, then PLACE anywhere near the area.
        n = Signal(range(len(self.prefix) + 2))
        taken = cmd.valid & cmd.ready
        with m.If(taken & (n != len(self.prefix) + 1)):
            m.d.sync += n.eq(n + 1)
        m.d.comb += Assume((cmd.payload.op == Op.PLACE) |
                           ((cmd.payload.op == Op.SEEK) if self.seek else 0))
        for i, (col, row, tile) in enumerate(self.prefix):
            with m.If(n == i):
                m.d.comb += Assume((cmd.payload.op == Op.PLACE) &
                                   (cmd.payload.col == col) & (cmd.payload.row == row) &
                                   (cmd.payload.tile == SHAPES[tile]))
        m.d.comb += Assume((cmd.payload.col >= -2) & (cmd.payload.col <= 9) &
                           (cmd.payload.row >= -2) & (cmd.payload.row <= 9))
        m.d.comb += Assume(cmd.payload.tile.as_value() <= 2)

        # A shadow copy of one word of each board store.
        first = Signal(init=1)
        addr = Signal(6)
        m.d.sync += first.eq(0)
        with m.If(first):
            m.d.sync += addr.eq(self.pick)
        at = Mux(first, self.pick, addr)
        stores = [body.submodules.cells, body.submodules.far_w, body.submodules.far_b]
        shadows = [self._shadow(m, store, at) for store in stores]
        log_ptr = body.submodules.log.head

        snaps = [Signal.like(s) for s in shadows]
        snap_ptr = Signal.like(log_ptr)
        last_size = Signal(48)          # width, height, ply of the last result
        snap_size = Signal(48)
        size = Cat(res.payload.width, res.payload.height, res.payload.ply)
        wrote = Signal()                # the command wrote to the board store
        with m.If(taken):
            m.d.sync += [snap_ptr.eq(log_ptr), snap_size.eq(last_size), wrote.eq(0)]
            m.d.sync += [snap.eq(shadow) for snap, shadow in zip(snaps, shadows)]
        with m.If(stores[0].we.any() | (stores[0].we2 if self.dual else 0)):
            m.d.sync += wrote.eq(1)
        with m.If(res.valid & res.ready):
            m.d.sync += last_size.eq(size)

        refused = res.valid & (res.payload.status != Status.OK)
        in_prefix = n <= len(self.prefix)       # n counts the command being answered
        with m.If(res.valid & in_prefix):
            m.d.comb += Assert(res.payload.status == Status.OK, "the prefix is legal")
        # All three words exactly: the rollback restores every path-end word it wrote
        # and zeroes the rolled-back tile's own, as an empty square's are.
        far_same = Cat(*(shadow == snap for shadow, snap in zip(shadows[1:], snaps[1:]))).all()
        unchanged = ((shadows[0] == snaps[0]) & far_same &
                     (log_ptr == snap_ptr) & (size == snap_size))
        if self.mutant == "any_place":
            # A mutated property: every PLACE leaves the stores unchanged (false: the
            # harness really follows the writes).
            m.d.comb += Assert(~res.valid | unchanged, "mutant: no PLACE changes anything")
        elif self.mutant == "seek_stays":
            # A mutated property: a SEEK's result names the placement it was sent (false:
            # its failure shows that the bound reaches SEEKs that pass placements over).
            sent = Signal.like(cmd.payload.as_value())
            with m.If(taken):
                m.d.sync += sent.eq(cmd.payload.as_value())
            sent_cmd = cmd.payload.shape()(sent)
            m.d.comb += Assert(~res.valid | (sent_cmd.op != Op.SEEK) |
                               ((res.payload.col == sent_cmd.col) &
                                (res.payload.row == sent_cmd.row)),
                               "mutant: SEEK passes nothing over")
        elif self.mutant == "no_rollback":
            # A mutated property: no refused PLACE ever wrote to the store.  Its failure
            # shows that the bound reaches refusals by rollback.
            m.d.comb += Assert(~(refused & wrote), "mutant: refusals never write")
        else:
            m.d.comb += Assert(~refused | unchanged, "a refused PLACE changes nothing")
        return m

    def _shadow(self, m, store, at):
        """A copy of ``store``'s word at address ``at``, following its writes: by lanes on
        one port (the board store writes nibbles); on two, as `BankedRAM` writes, the bank
        of ``at`` at `waddr` if that is its bank, else at `waddr2` if that is."""
        shadow = Signal(len(store.wdata.as_value()))
        if self.dual:
            mine = store.waddr[0] == at[0]
            with m.If(mine & store.we & (store.waddr == at)):
                m.d.sync += shadow.eq(store.wdata.as_value())
            with m.If(~mine & store.we2 & (store.waddr2 == at)):
                m.d.sync += shadow.eq(store.wdata2.as_value())
            return shadow
        lanes = len(store.we)
        lane = len(shadow) // lanes
        for i in range(lanes):
            with m.If(store.we[i] & (store.addr == at)):
                m.d.sync += shadow[i * lane:(i + 1) * lane].eq(
                    store.wdata.as_value()[i * lane:(i + 1) * lane])
        return shadow
