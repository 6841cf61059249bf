"""A small board bring-up design with the device's port signature.

``SelfTest`` is what to flash on a new board before the Trax device: it shows that the clock
(PLL), the serial port in both directions at the chosen baud rate, and the three status LEDs
are wired the way the board table says.

* Serial: every byte received is sent back unchanged (a real UART receiver and transmitter
  at ``baud`` from ``clk_freq``, with a one-byte holding register, so a wrong clock shows up
  as garbled echo rather than passing through unnoticed).
* LEDs, after a lamp test (all three on for the first half second):
  bit 0 "ready" blinks (a period of 0.7 to 1.4 s, from a power-of-two counter); bit 1 "thinking" lights for 50 ms after each byte received;
  bit 2 "error" lights for half a second after a framing error (a break, or a wrong baud rate).

It has the contract of ``traxfpga.firmware.top.Device``: ``SelfTest(clk_freq=, baud=,
capacity=)`` (capacity is accepted and ignored), ports ``rx: In(1)`` (raw pin level,
synchronised here), ``tx: Out(1)``, ``leds: Out(3)``, everything in the ``sync`` domain.
"""

import math

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out

__all__ = ["SelfTest"]

LED_READY, LED_THINKING, LED_ERROR = 0, 1, 2


class SelfTest(wiring.Component):
    rx: In(1, init=1)
    tx: Out(1, init=1)
    leds: Out(3)

    def __init__(self, *, clk_freq, baud=115200, capacity=None):
        self.clk_freq = float(clk_freq)
        self.baud = int(baud)
        self.capacity = capacity
        self.divisor = round(self.clk_freq / self.baud)
        if self.divisor < 4:
            self._MustUse__silence = True          # no "created but never used" warning
            raise ValueError(f"clock {clk_freq:g} Hz is too slow for {baud} baud "
                             f"(need at least 4 clocks per bit)")
        super().__init__()

    def _cycles(self, seconds):
        return max(1, round(seconds * self.clk_freq))

    def elaborate(self, platform):
        m = Module()
        div = self.divisor

        # --- receiver: start bit checked at its middle, bits sampled at their middles ---------
        rx = Signal(init=1)
        m.submodules.rx_sync = FFSynchronizer(self.rx, rx, init=1)
        rx_timer = Signal(range(div + 1))
        rx_bits = Signal(range(10))
        rx_shift = Signal(8)
        rx_valid = Signal()          # one-cycle strobe: rx_shift holds a byte
        rx_error = Signal()          # one-cycle strobe: framing error
        m.d.sync += [rx_valid.eq(0), rx_error.eq(0)]
        with m.FSM(name="rx_fsm"):
            with m.State("IDLE"):
                with m.If(~rx):
                    m.d.sync += rx_timer.eq(div // 2)
                    m.next = "START"
            with m.State("START"):
                with m.If(rx_timer != 0):
                    m.d.sync += rx_timer.eq(rx_timer - 1)
                with m.Elif(rx):        # glitch, not a start bit
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += [rx_timer.eq(div - 1), rx_bits.eq(0)]
                    m.next = "DATA"
            with m.State("DATA"):
                with m.If(rx_timer != 0):
                    m.d.sync += rx_timer.eq(rx_timer - 1)
                with m.Else():
                    m.d.sync += [rx_timer.eq(div - 1), rx_shift.eq(Cat(rx_shift[1:], rx)),
                                 rx_bits.eq(rx_bits + 1)]
                    with m.If(rx_bits == 7):
                        m.next = "STOP"
            with m.State("STOP"):
                with m.If(rx_timer != 0):
                    m.d.sync += rx_timer.eq(rx_timer - 1)
                with m.Elif(rx):
                    m.d.sync += rx_valid.eq(1)
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += rx_error.eq(1)
                    m.next = "BREAK"
            with m.State("BREAK"):          # wait for the line to return high
                with m.If(rx):
                    m.next = "IDLE"

        # --- one-byte holding register between receiver and transmitter ---------------------
        hold = Signal(8)
        hold_full = Signal()
        with m.If(rx_valid):
            m.d.sync += [hold.eq(rx_shift), hold_full.eq(1)]

        # --- transmitter ------------------------------------------------------------------
        tx_shift = Signal(10, init=0x3FF)   # stop bit, data LSB first, start bit (LSB out first)
        tx_bits = Signal(range(11))
        tx_timer = Signal(range(div))
        m.d.comb += self.tx.eq(tx_shift[0])
        with m.If(tx_bits == 0):
            with m.If(hold_full & ~rx_valid):
                m.d.sync += [tx_shift.eq((1 << 9) | (hold << 1)), tx_bits.eq(10),
                             tx_timer.eq(div - 1), hold_full.eq(0)]
        with m.Elif(tx_timer != 0):
            m.d.sync += tx_timer.eq(tx_timer - 1)
        with m.Else():
            m.d.sync += [tx_shift.eq((tx_shift >> 1) | (1 << 9)), tx_bits.eq(tx_bits - 1),
                         tx_timer.eq(div - 1)]

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
        with m.If(rx_valid):
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
