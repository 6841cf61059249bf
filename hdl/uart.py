"""UART: an 8N1 receiver and transmitter with stream interfaces, and a buffered pair.

* :class:`UARTRx` turns the (asynchronous) ``rx`` pin into a stream of
  :data:`RxByte` items, one per frame, each flagged with its framing error.
* :class:`UARTTx` turns a stream of bytes into frames on the ``tx`` pin.
* :class:`UART` puts a FIFO behind the receiver and one in front of the
  transmitter and adds status outputs for LEDs.
* :func:`divisor_for` computes the clock cycles per bit for a clock and a baud rate.

All components run in the ``sync`` domain; one bit lasts ``divisor`` clock cycles.

Receiver behaviour on a bad line
--------------------------------
* *Glitch*: a low pulse that no longer holds at the middle of the start bit is
  ignored; the receiver goes back to idle without output.
* *Framing error* (stop bit sampled low): the frame is delivered with
  ``framing_error=1`` and the receiver then waits for the line to return high
  before looking for a new start bit.  A line stuck low (a break, an unplugged
  cable) therefore gives exactly one framing error, and reception resumes as
  soon as the line is released.  The price: a frame whose start bit follows
  a low stop bit with no high level in between is not received as such.
* *Overrun*: the receiver never waits for its consumer.  It holds one received
  frame; if the next frame completes while that one has still not been taken,
  the **new** frame is dropped (the older one is kept, as a full FIFO would)
  and ``overrun`` pulses for one cycle.
"""

from fractions import Fraction

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

__all__ = ["RxByte", "MIN_DIVISOR", "divisor_for", "UARTRx", "UARTTx", "UART"]


#: Payload of the receive streams: the byte and whether its stop bit was low.
RxByte = data.StructLayout({
    "data":          8,
    "framing_error": 1,
})

#: Smallest supported number of clock cycles per bit.
MIN_DIVISOR = 4


def _check_divisor(divisor):
    if not isinstance(divisor, int) or isinstance(divisor, bool):
        raise TypeError(f"Divisor must be an integer, not {divisor!r}")
    if divisor < MIN_DIVISOR:
        raise ValueError(f"Divisor must be at least {MIN_DIVISOR}, not {divisor}")


def divisor_for(clk_freq, baud, *, max_error=0.02):
    """Clock cycles per bit for a clock frequency and a baud rate.

    The divisor is ``clk_freq / baud`` rounded to the nearest integer (a tie
    rounds up).  The baud rate actually produced is ``clk_freq / divisor``.

    Parameters
    ----------
    clk_freq : int or float
        Clock frequency in Hz.
    baud : int or float
        Wanted baud rate in bit/s.
    max_error : float
        Largest accepted relative difference between the produced and the
        wanted baud rate.  The default 2 % leaves the other end of the line
        about as much again: 8N1 sampling fails near 5 % of total mismatch.

    Returns
    -------
    int
        The divisor, at least :data:`MIN_DIVISOR`.

    Raises
    ------
    ValueError
        If a frequency is not positive, if the divisor would be below
        :data:`MIN_DIVISOR`, or if the baud rate error exceeds ``max_error``.

    Examples
    --------
    >>> divisor_for(12_000_000, 115200)
    104
    >>> divisor_for(48_000_000, 19200)
    2500
    """
    clk_freq, baud = Fraction(clk_freq), Fraction(baud)
    if clk_freq <= 0 or baud <= 0:
        raise ValueError(f"Clock frequency and baud rate must be positive, "
                         f"not {float(clk_freq)} Hz and {float(baud)} baud")
    divisor = int(clk_freq / baud + Fraction(1, 2))     # floor(x + 1/2): nearest, ties up
    if divisor < MIN_DIVISOR:
        raise ValueError(f"A {float(clk_freq)} Hz clock is too slow for {float(baud)} baud: "
                         f"divisor {divisor} is below {MIN_DIVISOR}")
    error = abs(clk_freq / divisor - baud) / baud
    if error > Fraction(max_error):
        raise ValueError(f"{float(baud)} baud cannot be made from a {float(clk_freq)} Hz clock: "
                         f"divisor {divisor} gives {float(clk_freq / divisor):.1f} baud, "
                         f"{float(error):.2%} off (limit {max_error:.2%})")
    return divisor


class UARTRx(wiring.Component):
    """8N1 UART receiver.

    The ``rx`` pin goes through a two-flop synchroniser.  In idle, a low level
    starts a frame; the start bit is checked again at its middle (a line high
    again by then was a glitch: back to idle, no output), then each data bit
    (LSB first) and the stop bit are sampled once, at their middle.

    Each frame becomes one item on ``stream``, held until taken.  A frame whose
    stop bit is low is delivered with ``framing_error`` set; the receiver then
    waits for the line to go high before looking for another start bit (one
    framing error per break, however long).  The
    receiver never waits for the consumer: a frame completing while the
    previous item is still waiting is dropped and ``overrun`` pulses.

    Parameters
    ----------
    divisor : int
        Clock cycles per bit, at least :data:`MIN_DIVISOR`; see :func:`divisor_for`.

    Attributes
    ----------
    rx : In(1), init 1
        Serial input pin, asynchronous to the clock; idles high.
    stream : Out(stream.Signature(RxByte))
        Received frames: ``payload.data`` (the byte) and
        ``payload.framing_error`` (the stop bit was low).
    framing_error : Out(1)
        Pulses for one cycle when a frame ends with a low stop bit (whether or
        not that frame is dropped by an overrun).
    overrun : Out(1)
        Pulses for one cycle when a completed frame is dropped because the
        previous one had not been taken from ``stream``.
    busy : Out(1)
        A frame is being received (from the start edge to the middle of the
        stop bit, or while waiting for the line to return high after a
        framing error).
    """

    rx:            In(1, init=1)
    stream:        Out(stream.Signature(RxByte))
    framing_error: Out(1)
    overrun:       Out(1)
    busy:          Out(1)

    def __init__(self, divisor):
        _check_divisor(divisor)
        self._divisor = divisor
        super().__init__()

    @property
    def divisor(self):
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        divisor = self._divisor

        line = Signal(init=1)
        m.submodules.rx_sync = FFSynchronizer(self.rx, line, init=1, stages=2)

        timer = Signal(range(divisor))
        shreg = Signal(8)
        bits  = Signal(range(8))

        with m.If(self.stream.valid & self.stream.ready):
            m.d.sync += self.stream.valid.eq(0)

        def deliver(framing_error):
            m.d.sync += self.framing_error.eq(framing_error)
            with m.If(self.stream.valid & ~self.stream.ready):
                m.d.sync += self.overrun.eq(1)          # keep the older frame
            with m.Else():
                m.d.sync += [
                    self.stream.payload.data.eq(shreg),
                    self.stream.payload.framing_error.eq(framing_error),
                    self.stream.valid.eq(1),
                ]

        m.d.sync += [
            self.framing_error.eq(0),
            self.overrun.eq(0),
        ]

        with m.If(timer != 0):
            m.d.sync += timer.eq(timer - 1)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(~line):
                    m.d.sync += timer.eq(divisor // 2 - 1)
                    m.next = "START"

            with m.State("START"):
                m.d.comb += self.busy.eq(1)
                with m.If(timer == 0):
                    with m.If(~line):
                        m.d.sync += [
                            timer.eq(divisor - 1),
                            bits.eq(0),
                        ]
                        m.next = "DATA"
                    with m.Else():
                        m.next = "IDLE"                 # a glitch, not a start bit

            with m.State("DATA"):
                m.d.comb += self.busy.eq(1)
                with m.If(timer == 0):
                    m.d.sync += [
                        shreg.eq(Cat(shreg[1:], line)),
                        bits.eq(bits + 1),
                        timer.eq(divisor - 1),
                    ]
                    with m.If(bits == 7):
                        m.next = "STOP"

            with m.State("STOP"):
                m.d.comb += self.busy.eq(1)
                with m.If(timer == 0):
                    deliver(~line)
                    with m.If(line):
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "BREAK"

            with m.State("BREAK"):
                # After a framing error: wait for the line to be released.
                m.d.comb += self.busy.eq(1)
                with m.If(line):
                    m.next = "IDLE"

        return m


class UARTTx(wiring.Component):
    """8N1 UART transmitter.

    A byte is accepted from ``stream`` only when the transmitter is idle (or
    in the last cycle of a stop bit, so that back-to-back bytes follow each
    other without a gap); it is then sent as a start bit, eight data bits LSB
    first and one stop bit, each lasting exactly ``divisor`` cycles.

    Parameters
    ----------
    divisor : int
        Clock cycles per bit, at least :data:`MIN_DIVISOR`; see :func:`divisor_for`.

    Attributes
    ----------
    stream : In(stream.Signature(8))
        Bytes to send.  ``ready`` does not depend on ``valid``.
    tx : Out(1), init 1
        Serial output pin, registered; idles high.
    busy : Out(1)
        A frame is being sent.
    """

    stream: In(stream.Signature(8))
    tx:     Out(1, init=1)
    busy:   Out(1)

    def __init__(self, divisor):
        _check_divisor(divisor)
        self._divisor = divisor
        super().__init__()

    @property
    def divisor(self):
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        divisor = self._divisor

        timer = Signal(range(divisor))
        shreg = Signal(9)                   # data bits, then the stop bit
        bits  = Signal(range(10))           # bits still to put on the line after this one

        last_cycle = self.busy & (bits == 0) & (timer == 0)
        m.d.comb += self.stream.ready.eq(~self.busy | last_cycle)

        with m.If(self.busy & (timer != 0)):
            m.d.sync += timer.eq(timer - 1)
        with m.Elif(self.busy & (bits != 0)):
            m.d.sync += [
                self.tx.eq(shreg[0]),
                shreg.eq(shreg[1:]),
                bits.eq(bits - 1),
                timer.eq(divisor - 1),
            ]
        with m.Elif(last_cycle):
            m.d.sync += self.busy.eq(0)

        with m.If(self.stream.valid & self.stream.ready):
            m.d.sync += [
                self.tx.eq(0),                              # start bit
                shreg.eq(Cat(self.stream.payload, 1)),
                bits.eq(9),
                timer.eq(divisor - 1),
                self.busy.eq(1),
            ]

        return m


class UART(wiring.Component):
    """8N1 UART with receive and transmit FIFOs.

    :class:`UARTRx` feeds a :class:`~amaranth.lib.fifo.SyncFIFOBuffered` of
    ``rx_depth`` entries read through ``rx_stream``; ``tx_stream`` writes a FIFO
    of ``tx_depth`` entries that feeds :class:`UARTTx`.  A depth of 0 connects
    the stream straight to the receiver or transmitter.  Besides the FIFO, the
    receiver holds one more frame, so up to ``rx_depth + 1`` frames wait
    before an overrun drops the newest one.

    Parameters
    ----------
    divisor : int
        Clock cycles per bit, at least :data:`MIN_DIVISOR`; see :func:`divisor_for`.
    rx_depth : int
        Receive FIFO depth.
    tx_depth : int
        Transmit FIFO depth.

    Attributes
    ----------
    rx : In(1), init 1
        Serial input pin, asynchronous (synchronised inside); idles high.
    tx : Out(1), init 1
        Serial output pin, registered; idles high.
    rx_stream : Out(stream.Signature(RxByte))
        Received frames, in order, each with its ``framing_error`` flag.
    tx_stream : In(stream.Signature(8))
        Bytes to send.
    rx_error : Out(1)
        Pulses for one cycle for each frame received with a framing error.
    overrun : Out(1)
        Pulses for one cycle for each received frame dropped because the
        receive FIFO was full.
    rx_busy : Out(1)
        A frame is being received.
    tx_busy : Out(1)
        A frame is being sent or bytes wait in the transmit FIFO.
    """

    rx:        In(1, init=1)
    tx:        Out(1, init=1)
    rx_stream: Out(stream.Signature(RxByte))
    tx_stream: In(stream.Signature(8))
    rx_error:  Out(1)
    overrun:   Out(1)
    rx_busy:   Out(1)
    tx_busy:   Out(1)

    def __init__(self, divisor, *, rx_depth=16, tx_depth=16):
        _check_divisor(divisor)
        for name, depth in (("rx_depth", rx_depth), ("tx_depth", tx_depth)):
            if not isinstance(depth, int) or depth < 0:
                raise ValueError(f"{name} must be a non-negative integer, not {depth!r}")
        self._divisor  = divisor
        self._rx_depth = rx_depth
        self._tx_depth = tx_depth
        super().__init__()

    @property
    def divisor(self):
        return self._divisor

    def elaborate(self, platform):
        m = Module()

        m.submodules.rx = rx = UARTRx(self._divisor)
        m.submodules.tx = tx = UARTTx(self._divisor)

        m.d.comb += [
            rx.rx.eq(self.rx),
            self.tx.eq(tx.tx),
            self.rx_error.eq(rx.framing_error),
            self.overrun.eq(rx.overrun),
            self.rx_busy.eq(rx.busy),
        ]

        if self._rx_depth:
            m.submodules.rx_fifo = rx_fifo = SyncFIFOBuffered(width=RxByte.size,
                                                              depth=self._rx_depth)
            # (connect matches the FIFO's plain 9-bit payload to RxByte by width)
            wiring.connect(m, rx.stream, rx_fifo.w_stream)
            wiring.connect(m, rx_fifo.r_stream, wiring.flipped(self.rx_stream))
        else:
            wiring.connect(m, rx.stream, wiring.flipped(self.rx_stream))

        if self._tx_depth:
            m.submodules.tx_fifo = tx_fifo = SyncFIFOBuffered(width=8, depth=self._tx_depth)
            wiring.connect(m, wiring.flipped(self.tx_stream), tx_fifo.w_stream)
            wiring.connect(m, tx_fifo.r_stream, tx.stream)
            m.d.comb += self.tx_busy.eq(tx.busy | tx_fifo.r_rdy)
        else:
            wiring.connect(m, wiring.flipped(self.tx_stream), tx.stream)
            m.d.comb += self.tx_busy.eq(tx.busy)

        return m
