"""Harness for :mod:`traxfpga.hdl.linebuf`: one answer per line, the right one."""

from amaranth.lib import wiring
from amaranth.hdl import Assert, Assume, Module, Mux, ResetSignal, Signal

from traxfpga.hdl.linebuf import CR, LF, LineBuffer, LineError

from .inside import Inside

__all__ = ["LineBufHarness"]


class LineBufHarness(wiring.Component):
    """LineBuffer: at most one answer per line, and the answer a quiet line deserves.

    Everything is free: the received bytes (any value, any framing flag, any cycle),
    ``line.ready`` and ``rd_addr``.  The harness counts the lines ended (an LF or CR without a
    framing error, not the LF of a CR LF) and not yet answered.  Proved:

    * ``rx`` is always ready; an answer (a new item on ``line``) only for a line owed one:
      at most one answer per line, so an overlong line is reported once;
    * a *quiet* line (each of its bytes arrived while nothing was offered or owed) is
      answered in the next cycle with ``FRAMING`` if a byte had a framing error, else
      ``OVERLONG`` if it has more than ``depth - 1`` characters (a CR before the LF not
      counted), else ``NONE`` and its length; and then the character at a position
      chosen by the solver reads back through ``rd_addr``/``rd_data``;
    * an answer offered right after the previous one was taken is a ``BUSY`` one (only
      lines that arrived while the buffer was busy can be waiting then);
    * ``line`` keeps ``valid`` and its payload until ``ready``.

    The count of owed lines saturates at :data:`OWED_MAX`: a count that only ever misses
    lines is never above the true one, so "an answer only when the count is not 0" and
    "quiet: the count is 0" are at least as strong as with the true count.

    With ``inductive=True`` invariants tie the buffer's registers (read through
    :mod:`.inside`) to the harness's, so that k-induction closes (see docs/formal.md).
    """

    #: Where the count of owed lines saturates (above BUSY_MAX + 1, which the invariant needs).
    OWED_MAX = 31

    def __init__(self, depth=4, mutant=None, *, inductive=False):
        super().__init__({})      # no ports of its own: the harness's inputs are free
        self.depth = depth
        self.mutant = mutant
        self.inductive = inductive
        self.dut = LineBuffer(depth)
        self.dut._MustUse__silence = True   # elaborated by hand below
        self.pick = Signal(range(depth))        # the position whose character is followed
        self.ports = [self.dut.rx.valid, self.dut.rx.payload.as_value(), self.dut.line.ready,
                      self.dut.rd_addr, self.pick]

    def elaborate(self, platform):
        m = Module()
        dut = self.dut
        # Elaborated here, so that the harness can see the buffer's registers (induction).
        m.submodules.dut = body = dut.elaborate(platform)
        if self.inductive:
            # A read port for the invariants only: the line memory at the followed position.
            peek = body.submodules.mem.read_port(domain="comb")
        depth = self.depth
        m.d.comb += Assume(~ResetSignal())

        rx, line = dut.rx, dut.line
        byte = rx.payload.data
        fe = rx.payload.framing_error
        # A line ends at LF, CR or CR LF: an LF right after a CR that ended a line is
        # dropped (the buffer's rule; the harness keeps its own flag).
        after_cr = Signal()
        with m.If(rx.valid):
            m.d.sync += after_cr.eq(~fe & (byte == CR))
        skipped = rx.valid & ~fe & (byte == LF) & after_cr
        ends = rx.valid & ~fe & ((byte == CR) | (byte == LF)) & ~skipped

        # -- lines owed an answer --
        owed = Signal(range(self.OWED_MAX + 1))
        p_valid = Signal()
        p_ready = Signal()
        p_payload = Signal.like(line.payload)
        p_rd_addr = Signal.like(dut.rd_addr)
        m.d.sync += [p_valid.eq(line.valid), p_ready.eq(line.ready),
                     p_payload.eq(line.payload), p_rd_addr.eq(dut.rd_addr)]
        answer = line.valid & (~p_valid | p_ready)
        with m.If((owed == self.OWED_MAX) & ends):
            m.d.sync += owed.eq(owed - answer)          # saturated: this line is not counted
        with m.Else():
            m.d.sync += owed.eq(owed + ends - answer)

        # -- the line being received: is it quiet, and what does it deserve? --
        first = Signal(init=1)
        idx = Signal(range(depth))              # chosen once, in the first cycle
        m.d.sync += first.eq(0)
        with m.If(first):
            m.d.sync += idx.eq(self.pick)
        pos = Mux(first, self.pick, idx)
        noisy = Signal()
        fe_seen = Signal()
        count = Signal(range(depth + 2))        # characters, saturating at depth + 1
        char = Signal(8)                        # the character at position idx
        quiet_now = ~line.valid & (owed == 0)
        with m.If(skipped):
            pass
        with m.Elif(rx.valid):
            with m.If(ends):
                m.d.sync += [noisy.eq(0), fe_seen.eq(0), count.eq(0)]
            with m.Else():
                m.d.sync += noisy.eq(noisy | ~quiet_now)
                with m.If(fe):
                    m.d.sync += fe_seen.eq(1)
                with m.Else():
                    with m.If(count != depth + 1):
                        m.d.sync += count.eq(count + 1)
                    with m.If(count == pos):
                        m.d.sync += char.eq(byte)

        length = count                          # a CR ends a line: it is never in one
        if self.mutant == "overlong_first":
            # A mutated property: OVERLONG before FRAMING (the buffer does the opposite).
            exp_err = Mux(length > depth - 1, LineError.OVERLONG,
                          Mux(fe_seen, LineError.FRAMING, LineError.NONE))
        else:
            exp_err = Mux(fe_seen, LineError.FRAMING,
                          Mux(length > depth - 1, LineError.OVERLONG, LineError.NONE))
        # The quiet line just ended: what it must get, next cycle.
        due = Signal()
        d_err = Signal(LineError)
        d_len = Signal(range(depth + 2))
        d_char = Signal(8)
        m.d.sync += due.eq(ends & ~noisy & quiet_now)
        with m.If(ends & ~noisy & quiet_now):
            m.d.sync += [d_err.eq(exp_err), d_len.eq(length), d_char.eq(char)]
        # While it is offered (and in the cycle after), its characters read back.
        shown = Signal()
        m.d.sync += shown.eq(due | (shown & line.valid & ~line.ready))

        m.d.comb += [
            Assert(rx.ready, "every byte is taken"),
            Assert(~answer | (owed != 0), "an answer only for a line owed one"),
            Assert(~(answer & p_valid) | (line.payload.error == LineError.BUSY),
                   "an answer right after another is for a line that came while busy"),
        ]
        with m.If(due):
            m.d.comb += [
                Assert(answer, "a quiet line is answered at once"),
                Assert(line.payload.error == d_err, "with the error it deserves"),
                Assert((d_err != LineError.NONE) | (line.payload.length == d_len),
                       "and a good line with its length"),
            ]
        with m.If(shown & (p_rd_addr == idx) & (idx < d_len) &
                  (d_err == LineError.NONE)):
            m.d.comb += Assert(dut.rd_data == d_char, "a good line's characters read back")
        with m.If(p_valid & ~p_ready):
            m.d.comb += [
                Assert(line.valid, "valid held until ready"),
                Assert(line.payload.as_value() == p_payload.as_value(),
                       "payload stable while waiting"),
            ]
        if self.inductive:
            self._invariants(m, body, peek, pos, after_cr, owed, answer, noisy, fe_seen,
                             count, char, exp_err, shown, d_err, d_len, d_char)
        return m

    def _invariants(self, m, body, peek, pos, after_cr, owed, answer, noisy, fe_seen,
                    count, char, exp_err, shown, d_err, d_len, d_char):
        """The buffer's registers as functions of the harness's (for k-induction).

        The lines the buffer will still answer are its counted busy lines and, in the
        cycle a line is first offered, that one: the harness's count covers them.  The
        buffer is *free* when it offers nothing and counts no busy line; a line whose
        bytes all came while it was free starts at position 0 (the last offered line was
        released) and is stored as the harness follows it.
        """
        depth = self.depth
        line = self.dut.line
        inside = Inside(body, fsm=None)
        b_wptr, b_after_cr, b_err, b_nbusy = (
            inside.signal(n) for n in ("wptr", "after_cr", "err", "nbusy"))
        free = ~line.valid & (b_nbusy == 0)
        started = (count != 0) | fe_seen         # the line being received has a byte
        m.d.comb += peek.addr.eq(pos)
        # (The "wptr_all" mutant states a false invariant: the write pointer follows every
        # character, also past an error.  The base case must fail.)
        stored = (b_err == LineError.NONE) if self.mutant != "wptr_all" else 1
        if self.mutant != "no_owed_invariant":
            # (The mutant drops this invariant: the induction must then fail.)
            m.d.comb += Assert(owed >= b_nbusy + answer, "every answer the buffer owes is counted")
        m.d.comb += [
            Assert(b_after_cr == after_cr, "the buffer's CR flag is the harness's"),
            Assert(count <= depth + 1, "the harness's count saturates"),
            Assert(~(~noisy & started) | free, "a quiet line keeps the buffer free"),
        ]
        with m.If(~noisy):
            m.d.comb += Assert(b_err == exp_err, "a quiet line's error as it deserves")
        with m.If(~noisy & free):
            with m.If(stored):
                m.d.comb += Assert(b_wptr == count, "a quiet good line's length")
            with m.If(stored & (pos < count)):
                m.d.comb += Assert(peek.data == char, "a quiet good line's stored character")
        with m.If(shown & line.valid):
            m.d.comb += Assert(line.payload.error == d_err, "the offered quiet line's error")
            with m.If(d_err == LineError.NONE):
                m.d.comb += Assert(line.payload.length == d_len, "its length")
                with m.If(pos < d_len):
                    m.d.comb += Assert(peek.data == d_char, "its stored character")
