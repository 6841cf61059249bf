"""Harnesses for :mod:`traxfpga.hdl.uart`: the transmitter's frames, the receiver's bytes.

Each harness is a component (no ports of its own) whose ``ports`` are free inputs.  ``mutant`` names a
deliberate mistake (a mutated property or a dropped assumption) used to show that the
proof can fail.
"""

from amaranth.lib import wiring
from amaranth.hdl import Assert, Assume, Module, Mux, ResetSignal, Signal

from traxfpga.hdl.uart import UARTRx, UARTTx

from .inside import Inside

__all__ = ["TxHarness", "RxHarness"]


class TxHarness(wiring.Component):
    """UARTTx: every accepted byte, and nothing else, appears as a correct 8N1 frame.

    A monitor restarts at each transfer on ``stream`` and follows the frame bit by bit:
    ``tx`` must be low for the start bit, then the byte LSB first, then high for the stop
    bit, each bit exactly ``divisor`` cycles; between frames ``tx`` is high.  The next
    byte is taken only in the last cycle of a stop bit or when idle (no frame is cut
    short, none is lost), ``ready`` is high exactly then, and ``busy`` marks a frame.
    The producer is unconstrained: ``valid`` and the payload change freely.
    """

    def __init__(self, divisor=4, mutant=None):
        super().__init__({})      # no ports of its own: the harness's inputs are free
        self.divisor = divisor
        self.mutant = mutant
        self.dut = UARTTx(divisor)
        self.ports = [self.dut.stream.valid, self.dut.stream.payload]

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = dut = self.dut
        d = self.divisor
        m.d.comb += Assume(~ResetSignal())     # the reset port is free: keep it low

        active = Signal()               # a frame is on the line
        bitn = Signal(range(10))        # 0 start, 1..8 data, 9 stop
        sub = Signal(range(d))          # cycle within the bit
        byte = Signal(8)
        take = dut.stream.valid & dut.stream.ready
        last = active & (bitn == 9) & (sub == d - 1)

        with m.If(take):
            m.d.sync += [active.eq(1), bitn.eq(0), sub.eq(0), byte.eq(dut.stream.payload)]
        with m.Elif(last):
            m.d.sync += active.eq(0)
        with m.Elif(active & (sub == d - 1)):
            m.d.sync += [sub.eq(0), bitn.eq(bitn + 1)]
        with m.Elif(active):
            m.d.sync += sub.eq(sub + 1)

        expected = Signal()
        with m.Switch(bitn):
            with m.Case(0):
                m.d.comb += expected.eq(0)
            for i in range(8):
                with m.Case(i + 1):
                    m.d.comb += expected.eq(byte[7 - i] if self.mutant == "msb_first" else byte[i])
            with m.Case(9):
                m.d.comb += expected.eq(1)

        with m.If(active):
            m.d.comb += Assert(dut.tx == expected, "tx follows the frame of the accepted byte")
        with m.Else():
            m.d.comb += Assert(dut.tx == 1, "the line idles high between frames")
        m.d.comb += [
            Assert(bitn <= 9, "the monitor's own invariant (for induction)"),
            Assert(dut.stream.ready == (~active | last), "ready when idle or in a frame's last cycle"),
            Assert(dut.busy == active, "busy during a frame"),
        ]
        return m


class RxHarness(wiring.Component):
    """UARTRx: each frame on the line gives exactly one item or one overrun pulse.

    A generator drives ``rx`` with ideal 8N1 frames at the receiver's own bit rate: free
    bytes, back to back or with free gaps, each with a free stop bit.  After a low stop bit
    the line may stay low for as long as the solver likes (a break); it is then high for at
    least one cycle before the next start bit.  ``stream.ready`` is free (back-pressure).

    For every frame, at the start of its stop bit the generator records what the receiver
    owes: the byte and whether its stop bit is low.  Proved:

    * the receiver settles each frame before the next frame's stop bit and within
      ``divisor + 4`` cycles: as one new item on ``stream`` with that byte and that
      ``framing_error``, or as an ``overrun`` pulse while the previous item still waits
      (no byte lost; and with no frame owed, no item and no pulse: none invented, and a
      break, however long, gives one framing error);
    * ``framing_error`` pulses exactly when a frame with a low stop bit is settled;
    * ``busy`` is high while the data bits come in and during a break, and low once the
      line has been idle high for three cycles;
    * ``stream`` keeps ``valid`` and its payload until ``ready``.
    """

    def __init__(self, divisor=4, mutant=None, *, inductive=False):
        super().__init__({})      # no ports of its own: the harness's inputs are free
        self.divisor = divisor
        self.mutant = mutant
        self.inductive = inductive
        self.dut = UARTRx(divisor)
        self.dut._MustUse__silence = True   # elaborated by hand below
        self.go = Signal()          # start a frame (when the generator may)
        self.byte = Signal(8)       # its byte
        self.stop = Signal()        # its stop bit
        self.release = Signal()     # end a break
        self.ports = [self.go, self.byte, self.stop, self.release, self.dut.stream.ready]

    def elaborate(self, platform):
        m = Module()
        dut = self.dut
        # Elaborated here, so that the harness can see the receiver's state (induction).
        m.submodules.dut = body = dut.elaborate(platform)
        d = self.divisor
        m.d.comb += Assume(~ResetSignal())

        # -- the line driver --
        frame = Signal()
        hold = Signal()             # a break: the line stays low
        bitn = Signal(range(10))
        sub = Signal(range(d))
        g_byte = Signal(8)
        g_stop = Signal()
        last = frame & (bitn == 9) & (sub == d - 1)
        line = Signal()
        with m.Switch(bitn):
            with m.Case(0):
                m.d.comb += line.eq(0)
            for i in range(8):
                with m.Case(i + 1):
                    m.d.comb += line.eq(g_byte[i])
            with m.Case(9):
                m.d.comb += line.eq(g_stop)
        m.d.comb += dut.rx.eq(Mux(frame, line, ~hold))

        start = self.go & ((~frame & ~hold) | (last & g_stop))
        with m.If(start):
            m.d.sync += [frame.eq(1), bitn.eq(0), sub.eq(0),
                         g_byte.eq(self.byte), g_stop.eq(self.stop)]
        with m.Elif(last):
            m.d.sync += [frame.eq(0), hold.eq(~g_stop & ~self.release)]
        with m.Elif(frame & (sub == d - 1)):
            m.d.sync += [sub.eq(0), bitn.eq(bitn + 1)]
        with m.Elif(frame):
            m.d.sync += sub.eq(sub + 1)
        with m.If(hold & self.release):
            m.d.sync += hold.eq(0)

        # -- what the receiver owes --
        owed = Signal()
        o_byte = Signal(8)
        o_err = Signal()
        age = Signal(range(4 * d))
        p_valid = Signal()
        p_ready = Signal()
        p_payload = Signal.like(dut.stream.payload)
        m.d.sync += [p_valid.eq(dut.stream.valid), p_ready.eq(dut.stream.ready),
                     p_payload.eq(dut.stream.payload)]
        new_item = dut.stream.valid & (~p_valid | p_ready)
        settled = new_item | dut.overrun
        stop_start = frame & (bitn == 9) & (sub == 0)

        with m.If(stop_start):
            # (The "flag_ignored" mutant expects no framing error ever: a mutated property.)
            bad = 0 if self.mutant == "flag_ignored" else ~g_stop
            m.d.sync += [owed.eq(1), age.eq(0), o_byte.eq(g_byte), o_err.eq(bad)]
        with m.Elif(settled):
            m.d.sync += owed.eq(0)
        with m.Elif(owed & (age != 4 * d - 1)):
            m.d.sync += age.eq(age + 1)

        m.d.comb += [
            Assert(~(stop_start & owed), "each frame is settled before the next stop bit"),
            Assert(~owed | (age <= d + 4), "each frame is settled within divisor + 4 cycles"),
            Assert(~settled | owed, "no item or overrun without a frame"),
            Assert(~(new_item & dut.overrun), "an item or an overrun, not both"),
            Assert(~dut.overrun | (p_valid & ~p_ready), "overrun only while an item waits"),
            Assert(dut.framing_error == (settled & o_err), "framing_error pulses with a bad frame"),
            Assert(bitn <= 9, "the generator's own invariant (for induction)"),
        ]
        # Mutated properties that show what the bound reaches: an overrun, and a good
        # frame received after a break.
        broke = Signal()
        with m.If(hold):
            m.d.sync += broke.eq(1)
        if self.mutant == "no_overrun":
            m.d.comb += Assert(~dut.overrun, "mutant: no overrun ever")
        if self.mutant == "no_recovery":
            m.d.comb += Assert(~(broke & new_item & ~o_err), "mutant: nothing after a break")

        # The receiver's phase, as far as ``busy`` shows it (for induction).
        quiet = Signal(range(4))            # cycles the line has been idle high, up to 3
        with m.If(frame | hold):
            m.d.sync += quiet.eq(0)
        with m.Elif(quiet != 3):
            m.d.sync += quiet.eq(quiet + 1)
        with m.If(frame & (bitn >= 1) & (bitn <= 8)):
            m.d.comb += Assert(dut.busy, "busy while the data bits come")
        with m.If(hold):
            m.d.comb += Assert(dut.busy, "busy during a break")
        with m.If(quiet == 3):
            m.d.comb += Assert(~dut.busy, "idle once the line has been high a while")
        with m.If(new_item):
            m.d.comb += [
                Assert(dut.stream.payload.data == o_byte, "the item holds the frame's byte"),
                Assert(dut.stream.payload.framing_error == o_err,
                       "the item is flagged as its stop bit was"),
            ]
        with m.If(p_valid & ~p_ready):
            m.d.comb += [
                Assert(dut.stream.valid, "valid held until ready"),
                Assert(dut.stream.payload.as_value() == p_payload.as_value(),
                       "payload stable while waiting"),
            ]
        if self.inductive:
            self._phase_invariants(m, body, frame, hold, bitn, sub, g_byte)
        return m

    def _phase_invariants(self, m, body, frame, hold, bitn, sub, g_byte):
        """The receiver's state as a function of the generator's (for k-induction).

        ``f`` is the cycle within the frame on ``rx`` (``divisor`` per bit).  The start
        bit reaches the receiver through its two-flop synchroniser at ``f = 2``, where it
        must be idle; it checks the start bit ``divisor // 2`` cycles later, then samples
        each bit ``divisor`` cycles apart, the stop bit at the cycle after the frame.
        Before ``f = 2`` it may still be finishing the previous frame or a break.
        """
        d = self.divisor
        inside = Inside(body)
        st = inside.in_state
        timer, bits, shreg = (inside.signal(n) for n in ("timer", "bits", "shreg"))
        half = d // 2
        late = 1 if self.mutant == "late_sample" else 0     # a wrong invariant: caught
        was_frame = Signal()
        m.d.sync += was_frame.eq(frame)
        f = Signal(range(10 * d))
        m.d.comb += f.eq(bitn * d + sub)
        m.d.comb += [
            Assert(inside.defined(), "the receiver's state is a defined one"),
            Assert(~(frame & hold), "the generator's own invariant: a frame or a break"),
        ]
        for fv in range(10 * d):
            here = frame & (f == fv)
            if fv == 0:
                ok = st("IDLE", "BREAK") | (st("STOP") & (timer == 0))
            elif fv == 1:
                ok = st("IDLE", "BREAK")
            elif fv == 2:
                ok = st("IDLE")
            elif fv <= half + 2:
                ok = st("START") & (timer == half + 2 - fv)
            else:
                g = fv - (half + 3) - late
                if g < 0:
                    ok = st("START") & (timer == 0)
                elif g < 8 * d:
                    j = g // d                       # bits sampled so far
                    ok = st("DATA") & (bits == j) & (timer == d - 1 - g % d)
                    if j:
                        ok &= shreg[8 - j:] == g_byte[:j]
                else:
                    ok = st("STOP") & (timer == d - 1 - (g - 8 * d)) & (shreg == g_byte)
            with m.If(here):
                m.d.comb += Assert(ok, f"the receiver's phase at frame cycle {fv}")
        with m.If(~frame & was_frame):
            m.d.comb += Assert(st("STOP") & (timer == 0) & (shreg == g_byte),
                               "the stop bit is sampled right after the frame")
        with m.If(~frame & ~was_frame):
            m.d.comb += Assert(st("IDLE", "BREAK"), "idle or in a break between frames")
        with m.If(hold & ~was_frame):
            m.d.comb += Assert(st("BREAK"), "in a break while the line is held low")
