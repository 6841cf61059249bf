"""A small board bring-up design with the device's port signature.

``SelfTest`` is what to flash on a new board before the Trax device: it shows that the clock
(PLL), the serial port in both directions at the chosen baud rate, and the three status LEDs
are wired the way the board table says.

* Serial: every byte received is sent back unchanged, through the device's own UART
  (:class:`traxfpga.hdl.uart.UART`: the receiver the device reads its lines with, and the
  transmitter behind a 16-byte FIFO, so a host a little faster than the board loses nothing
  in a burst).  The divisor comes from :func:`~traxfpga.hdl.uart.divisor_for`, so a clock that
  cannot make the baud rate closely enough is refused, and a wrong clock on the board shows up
  as garbled echo rather than passing through unnoticed.  A byte with a framing error is not
  echoed.
* LEDs, after a lamp test (all three on for the first half second):
  bit 0 "ready" blinks (a period of 0.7 to 1.4 s, from a power-of-two counter); bit 1 "thinking" lights for 50 ms after each byte received;
  bit 2 "error" lights for half a second after a framing error (a break, or a wrong baud rate).

It has the contract of ``traxfpga.firmware.top.Device``: ``SelfTest(clk_freq=, baud=,
capacity=)`` (capacity is accepted and ignored), ports ``rx: In(1)`` (raw pin level,
synchronised here), ``tx: Out(1)``, ``leds: Out(3)``, everything in the ``sync`` domain.
"""

import math

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..firmware.leds import LED_ERROR, LED_READY, LED_THINKING
from ..hdl.uart import UART, divisor_for

__all__ = ["SelfTest"]

#: Depth of the transmit FIFO that holds the echo while the line is busy.
TX_DEPTH = 16


class SelfTest(wiring.Component):
    rx: In(1, init=1)
    tx: Out(1, init=1)
    leds: Out(3)

    def __init__(self, *, clk_freq, baud=115200, capacity=None):
        self.clk_freq = float(clk_freq)
        self.baud = int(baud)
        self.capacity = capacity
        try:
            self.divisor = divisor_for(clk_freq, baud)
        except ValueError:
            self._MustUse__silence = True          # no "created but never used" warning
            raise
        super().__init__()

    def _cycles(self, seconds):
        return max(1, round(seconds * self.clk_freq))

    def elaborate(self, platform):
        m = Module()

        # --- serial echo: the device's receiver, straight (as the device has it), and its
        # transmitter behind a FIFO --------------------------------------------------------
        m.submodules.uart = uart = UART(self.divisor, rx_depth=0, tx_depth=TX_DEPTH)
        m.d.comb += [uart.rx.eq(self.rx), self.tx.eq(uart.tx)]
        received, echo = uart.rx_stream, uart.tx_stream
        good = Signal()             # a byte received whole: to be echoed
        echoed = Signal()           # ... and taken by the transmit FIFO this cycle
        m.d.comb += [
            good.eq(received.valid & ~received.payload.framing_error),
            echo.payload.eq(received.payload.data),
            echo.valid.eq(good),
            received.ready.eq(echo.ready | received.payload.framing_error),   # bad: dropped
            echoed.eq(good & echo.ready),
        ]
        rx_error = uart.rx_error    # one pulse per frame with a low stop bit (one per break)

        # --- LEDs -------------------------------------------------------------------------
        # One free-running counter paces everything: its top bit is the heartbeat (a period of
        # about a second) and the carry out of its low bits is a ~1 kHz tick for the LED timers,
        # so no wide counter needs a load or a compare (which keeps the carry chains whole).
        beat_bits = max(2, round(math.log2(self.clk_freq)))          # 2**bits cycles ~ 1 s
        tick_bits = max(1, min(beat_bits - 1, round(math.log2(self.clk_freq / 1000))))
        tick_s = 2 ** tick_bits / self.clk_freq
        beat = Signal(beat_bits)
        m.d.sync += beat.eq(beat + 1)
        tick = Signal()
        m.d.comb += tick.eq(beat[:tick_bits].all())

        def ticks(seconds):
            return max(1, round(seconds / tick_s))

        lamp = Signal(range(ticks(0.5) + 1), init=ticks(0.5))
        with m.If(tick & (lamp != 0)):
            m.d.sync += lamp.eq(lamp - 1)

        activity = Signal(range(ticks(0.05) + 1))
        with m.If(echoed):
            m.d.sync += activity.eq(ticks(0.05))
        with m.Elif(tick & (activity != 0)):
            m.d.sync += activity.eq(activity - 1)

        error = Signal(range(ticks(0.5) + 1))
        with m.If(rx_error):
            m.d.sync += error.eq(ticks(0.5))
        with m.Elif(tick & (error != 0)):
            m.d.sync += error.eq(error - 1)

        blink = beat[-1]
        lamp_on = lamp != 0
        m.d.comb += [
            self.leds[LED_READY].eq(lamp_on | blink),
            self.leds[LED_THINKING].eq(lamp_on | (activity != 0)),
            self.leds[LED_ERROR].eq(lamp_on | (error != 0)),
        ]
        return m
