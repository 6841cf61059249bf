"""Bit-level serial line helpers for Amaranth testbenches (8 data bits, no parity, LSB first).

Every helper is a coroutine taking the testbench context ``ctx`` of an
``add_testbench(async def tb(ctx): ...)`` testbench and a one-bit ``pin``
signal, and counts time in active edges of a clock domain (``sync`` unless
``domain`` says otherwise).  One bit lasts ``divisor`` cycles; senders and
receivers accept a fractional divisor, which models a baud rate mismatch
between the two ends of a line.

Timing convention: "cycle *n*" is the state of the design right after the
*n*-th active edge counted from the moment the helper was called.  A sender
changes ``pin`` right after an edge, so the design under test first sees a bit
at the following edge; a receiver reads ``pin`` right after each edge, so it
sees a registered output such as a UART's ``tx`` exactly from the edge that
set it.

Senders::

    await send_byte(ctx, dut.rx, 0x41, divisor=16)
    await send_bytes(ctx, dut.rx, b"-T\\n", divisor=16)
    await send_byte(ctx, dut.rx, 0x41, divisor=16, framing_error=True)  # stop bit low
    await pull_low(ctx, dut.rx, 500)                    # a glitch if short, a break if long

Receivers (wait for a start bit, sample each bit at its middle)::

    byte = await recv_byte(ctx, dut.tx, divisor=16, timeout=10_000)
    line = await recv_line(ctx, dut.tx, divisor=16, timeout=100_000)   # b"...\\n"
    frame = await recv_frame(ctx, dut.tx, divisor=16)   # never raises on a bad stop bit

The senders and the receivers may run in separate testbenches at the same
time; nothing here keeps state between calls.
"""

from fractions import Fraction
from typing import NamedTuple

__all__ = [
    "Frame", "FramingError", "TimingError",
    "idle", "pull_low", "send_byte", "send_bytes",
    "recv_frame", "check_timing", "recv_byte", "recv_bytes", "recv_line",
]


class FramingError(Exception):
    """A frame was received with a low stop bit.

    Attributes
    ----------
    frame : Frame
        The frame as received.
    """

    def __init__(self, frame):
        super().__init__(f"framing error: stop bit low (data bits {frame.data:#04x}, "
                         f"start bit at cycle {frame.start})")
        self.frame = frame


class TimingError(Exception):
    """A line transition lies too far from any bit boundary."""


class Frame(NamedTuple):
    """One frame seen by :func:`recv_frame`.

    Attributes
    ----------
    data : int
        The eight data bits, sampled at their middle.
    framing_error : bool
        The stop bit was sampled low.
    start : int
        Cycle, counted from the call, at which the line went low for the start bit.
    edges : tuple of int
        Cycles, counted from ``start``, of every change of the line from the
        start edge (excluded) to the middle of the stop bit.
    """
    data: int
    framing_error: bool
    start: int
    edges: tuple


def _cycles(divisor):
    divisor = Fraction(divisor)
    if divisor < 2:
        raise ValueError(f"Divisor must be at least 2 cycles per bit, not {float(divisor)}")
    return divisor


def _round(x):
    return int(x + Fraction(1, 2))          # nearest integer, ties up (x >= 0)


async def _hold(ctx, pin, value, cycles, domain):
    ctx.set(pin, value)
    if cycles > 0:
        await ctx.tick(domain).repeat(cycles)


async def idle(ctx, pin, cycles, *, domain="sync"):
    """Drive the line high (idle) for ``cycles`` cycles."""
    await _hold(ctx, pin, 1, cycles, domain)


async def pull_low(ctx, pin, cycles, *, domain="sync"):
    """Drive the line low for ``cycles`` cycles, then release it high.

    Shorter than half a bit this is a glitch a receiver must ignore; longer
    than a frame it is a break (a line stuck low).
    """
    await _hold(ctx, pin, 0, cycles, domain)
    ctx.set(pin, 1)


async def send_byte(ctx, pin, byte, divisor, *, stop_bits=1, framing_error=False,
                    domain="sync"):
    """Send one 8N1 frame on ``pin``.

    Parameters
    ----------
    ctx :
        Testbench context.
    pin : Signal(1)
        Line to drive; left high (idle) on return.
    byte : int
        Value 0..255, sent LSB first.
    divisor : int or float or Fraction
        Cycles per bit; bit *k* starts at cycle ``round(k * divisor)`` of the frame.
    stop_bits : int
        Number of stop bits (high bits ending the frame); more than one adds idle time.
    framing_error : bool
        Send the first stop bit low (the line goes high only after it).
    domain : str
        Clock domain counting the cycles.
    """
    if not 0 <= byte <= 0xff:
        raise ValueError(f"Byte must be in 0..255, not {byte!r}")
    if stop_bits < 1:
        raise ValueError(f"Stop bits must be at least 1, not {stop_bits!r}")
    divisor = _cycles(divisor)
    bits = [0, *((byte >> i) & 1 for i in range(8)), 0 if framing_error else 1]
    bits += [1] * (stop_bits - 1)
    for k, bit in enumerate(bits):
        await _hold(ctx, pin, bit, _round((k + 1) * divisor) - _round(k * divisor), domain)
    ctx.set(pin, 1)


async def send_bytes(ctx, pin, data, divisor, *, gap=0, stop_bits=1, domain="sync"):
    """Send ``data`` (bytes or iterable of ints) as back-to-back frames.

    ``gap`` cycles of idle line are added after each frame.
    """
    for byte in data:
        await send_byte(ctx, pin, byte, divisor, stop_bits=stop_bits, domain=domain)
        if gap:
            await idle(ctx, pin, gap, domain=domain)


async def recv_frame(ctx, pin, divisor, *, timeout=None, domain="sync"):
    """Wait for a frame on ``pin`` and return it.

    The line must be seen high, then low: a line already low when called is
    not taken for a start bit.  If the line is high again in the middle of the
    start bit, the low pulse was a glitch and the wait goes on.  Each bit is
    sampled at cycle ``round((k + 1/2) * divisor)`` after the start edge; the
    coroutine returns right after sampling the stop bit, so a following
    call sees the next start edge even when frames are back to back.

    Parameters
    ----------
    ctx :
        Testbench context.
    pin : Signal(1)
        Line to watch.
    divisor : int or float or Fraction
        Cycles per bit.
    timeout : int or None
        Raise :exc:`TimeoutError` if no start edge comes within this many
        cycles of the call (cycles spent in a glitch count too).
    domain : str
        Clock domain counting the cycles.

    Returns
    -------
    Frame
        Never raises on a low stop bit: see ``Frame.framing_error``.
    """
    divisor = _cycles(divisor)
    middles = [_round((k + Fraction(1, 2)) * divisor) for k in range(10)]
    now = 0
    prev = ctx.get(pin)
    while True:
        while True:
            if timeout is not None and now >= timeout:
                raise TimeoutError(f"no start bit on the line within {timeout} cycles")
            await ctx.tick(domain)
            now += 1
            value = ctx.get(pin)
            if prev and not value:
                break
            prev = value
        start, t, level, edges, samples = now, 0, 0, [], []
        for middle in middles:
            while t < middle:
                await ctx.tick(domain)
                t += 1
                value = ctx.get(pin)
                if value != level:
                    edges.append(t)
                    level = value
            samples.append(level)
            if samples[0]:
                break                       # high again in mid start bit: a glitch
        now += t
        prev = level
        if samples[0]:
            continue
        data = sum(bit << i for i, bit in enumerate(samples[1:9]))
        return Frame(data=data, framing_error=not samples[9], start=start, edges=tuple(edges))


def check_timing(frame, divisor, tolerance=1):
    """Check that every edge of ``frame`` lies near a bit boundary.

    Boundary *k* (between bit *k*-1 and bit *k*, *k* = 1..9) is at cycle
    ``round(k * divisor)`` after the start edge.  A bit too long or too short
    is only caught where the line changes, so use varied data.

    Raises
    ------
    TimingError
        If some edge is more than ``tolerance`` cycles from every boundary.
    """
    divisor = _cycles(divisor)
    boundaries = [_round(k * divisor) for k in range(1, 10)]
    for edge in frame.edges:
        nearest = min(boundaries, key=lambda b: abs(b - edge))
        if abs(nearest - edge) > tolerance:
            raise TimingError(f"edge at cycle {edge} of the frame (data {frame.data:#04x}) is "
                              f"{edge - nearest:+d} cycles from the bit boundary at {nearest}; "
                              f"boundaries: {boundaries}")


async def recv_byte(ctx, pin, divisor, *, timeout=None, tolerance=None, domain="sync"):
    """Receive one byte from ``pin``: :func:`recv_frame`, checked.

    Parameters
    ----------
    tolerance : int or None
        If given, also :func:`check_timing` the frame with this tolerance in cycles.

    Other parameters are those of :func:`recv_frame`.

    Returns
    -------
    int
        The byte.

    Raises
    ------
    FramingError
        If the stop bit is low.
    TimingError
        If ``tolerance`` is given and an edge is off.
    TimeoutError
        If no frame starts within ``timeout`` cycles.
    """
    frame = await recv_frame(ctx, pin, divisor, timeout=timeout, domain=domain)
    if tolerance is not None:
        check_timing(frame, divisor, tolerance)
    if frame.framing_error:
        raise FramingError(frame)
    return frame.data


async def recv_bytes(ctx, pin, count, divisor, *, timeout=None, tolerance=None, domain="sync"):
    """Receive ``count`` bytes; ``timeout`` applies to each start bit.  Returns :class:`bytes`."""
    result = bytearray()
    for _ in range(count):
        result.append(await recv_byte(ctx, pin, divisor, timeout=timeout, tolerance=tolerance,
                                      domain=domain))
    return bytes(result)


async def recv_line(ctx, pin, divisor, *, eol=b"\n", max_length=None, timeout=None,
                    tolerance=None, domain="sync"):
    """Receive bytes up to and including the terminator ``eol`` (like ``readline``).

    Parameters
    ----------
    eol : bytes
        Terminator, one byte.
    max_length : int or None
        Raise :exc:`ValueError` if the line grows past this many bytes
        without a terminator.
    timeout : int or None
        Cycles to wait for each start bit (the first, and between bytes).

    Other parameters are those of :func:`recv_byte`, which also gives the exceptions.
    """
    if len(eol) != 1:
        raise ValueError(f"Terminator must be one byte, not {eol!r}")
    line = bytearray()
    while True:
        line.append(await recv_byte(ctx, pin, divisor, timeout=timeout, tolerance=tolerance,
                                    domain=domain))
        if line[-1] == eol[0]:
            return bytes(line)
        if max_length is not None and len(line) >= max_length:
            raise ValueError(f"no {eol!r} within {max_length} bytes: {bytes(line)!r}")
