# amaranth: UnusedElaboratable=no
"""UART receiver, transmitter and FIFO pair, against the bit-level serial helpers."""

import random
from fractions import Fraction

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Module
from amaranth.sim import Simulator

from traxfpga.hdl.uart import MIN_DIVISOR, UART, UARTRx, UARTTx, divisor_for
from traxfpga.sim.serial_bits import (FramingError, TimingError, check_timing, idle, pull_low,
                                      recv_byte, recv_bytes, recv_frame, recv_line, send_byte,
                                      send_bytes)


# --- simulation plumbing -------------------------------------------------------------------------

def simulate(dut, *testbenches, background=()):
    """Run ``testbenches`` to completion, with ``background`` ones alongside."""
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    for tb in testbenches:
        sim.add_testbench(tb)
    for tb in background:
        sim.add_testbench(tb, background=True)
    sim.run()


def collect(stream, items):
    """Background testbench: always ready, append ``(data, framing_error)`` per transfer."""
    async def tb(ctx):
        ctx.set(stream.ready, 1)
        async for _, _, valid, payload in ctx.tick().sample(stream.valid, stream.payload):
            if valid:
                items.append((payload.data, payload.framing_error))
    return tb


def count_pulses(signal, counter, key):
    """Background testbench: ``counter[key]`` += number of cycles ``signal`` is high."""
    counter[key] = 0

    async def tb(ctx):
        async for _, _, value in ctx.tick().sample(signal):
            counter[key] += value
    return tb


async def stream_get(ctx, stream, timeout):
    ctx.set(stream.ready, 1)
    for _ in range(timeout):
        _, _, valid, payload = await ctx.tick().sample(stream.valid, stream.payload)
        if valid:
            ctx.set(stream.ready, 0)
            return payload
    raise TimeoutError("stream stayed empty")


async def stream_put(ctx, stream, payload):
    ctx.set(stream.payload, payload)
    ctx.set(stream.valid, 1)
    await ctx.tick().until(stream.ready)
    ctx.set(stream.valid, 0)


def random_bytes(seed, count):
    rng = random.Random(seed)
    # Both extremes and alternating patterns, then random values.
    return bytes([0x00, 0xff, 0x55, 0xaa, 0x01, 0x80]) + rng.randbytes(count)


def frame_edges(byte, divisor):
    """Exact transitions of a frame after its start edge, up to the middle of the stop bit."""
    bits = [0, *((byte >> i) & 1 for i in range(8)), 1]
    return tuple(k * divisor for k in range(1, 10) if bits[k] != bits[k - 1])


# --- divisor_for and parameters ------------------------------------------------------------------

@pytest.mark.parametrize("clk_freq, baud, divisor", [
    (12_000_000, 115200, 104),      # 104.17
    (48_000_000, 115200, 417),      # 416.67
    (25_000_000, 115200, 217),      # 217.01
    (12_000_000, 19200, 625),
    (48e6, 19200, 2500),
    (1_000_000, 250_000, 4),        # the smallest divisor
    (5_100_000, 200_000, 26),       # 25.5: a tie rounds up (1.9 % off)
])
def test_divisor_for(clk_freq, baud, divisor):
    assert divisor_for(clk_freq, baud) == divisor


@pytest.mark.parametrize("clk_freq, baud, match", [
    (1_000_000, 300_000, "below"),          # 3.33 -> 3
    (1_000_000, 115200, "off"),             # 8.68 -> 9: 3.5 % slow
    (0, 115200, "positive"),
    (12_000_000, -1, "positive"),
])
def test_divisor_for_errors(clk_freq, baud, match):
    with pytest.raises(ValueError, match=match):
        divisor_for(clk_freq, baud)


def test_divisor_for_max_error():
    assert divisor_for(1_000_000, 115200, max_error=0.04) == 9
    with pytest.raises(ValueError):
        divisor_for(12_000_000, 115200, max_error=0.001)    # 104 is 0.16 % off


@pytest.mark.parametrize("cls", [UARTRx, UARTTx, UART])
def test_bad_divisor(cls):
    with pytest.raises(ValueError):
        cls(MIN_DIVISOR - 1)
    with pytest.raises(TypeError):
        cls(8.5)


def test_bad_depth():
    with pytest.raises(ValueError):
        UART(8, rx_depth=-1)


@pytest.mark.parametrize("kwargs", [
    dict(divisor=104),
    dict(divisor=2500, rx_depth=64, tx_depth=256),
    dict(divisor=4, rx_depth=0, tx_depth=0),
    dict(divisor=5, rx_depth=1, tx_depth=1),
])
def test_rtlil_convert(kwargs):
    text = rtlil.convert(UART(**kwargs))
    for port in ("rx", "tx", "rx_stream__payload", "tx_stream__ready", "rx_error", "overrun"):
        assert f" {port}\n" in text or f" \\{port}\n" in text
    assert "rx_sync" in text        # the two-flop synchroniser on the pin (invisible in simulation)


# --- receiver against the bit-level sender -------------------------------------------------------

@pytest.mark.parametrize("divisor", [4, 8, 13, 16])
def test_rx_from_helper(divisor):
    dut = UARTRx(divisor)
    data = random_bytes(divisor, 40)
    items, pulses = [], {}

    async def sender(ctx):
        await idle(ctx, dut.rx, 3)
        await send_bytes(ctx, dut.rx, data[:20], divisor)               # back to back
        await send_bytes(ctx, dut.rx, data[20:], divisor, gap=divisor // 3 + 1)
        await idle(ctx, dut.rx, 2 * divisor)

    simulate(dut, sender, background=[collect(dut.stream, items),
                                      count_pulses(dut.framing_error, pulses, "fe"),
                                      count_pulses(dut.overrun, pulses, "ovr")])
    assert items == [(b, 0) for b in data]
    assert pulses == {"fe": 0, "ovr": 0}


@pytest.mark.parametrize("ratio", [Fraction(97, 100), Fraction(103, 100)])
def test_rx_tolerates_baud_mismatch(ratio):
    divisor = 32
    dut = UARTRx(divisor)
    data = random_bytes(7, 20)
    items = []

    async def sender(ctx):
        await idle(ctx, dut.rx, 5)
        await send_bytes(ctx, dut.rx, data, divisor * ratio)
        await idle(ctx, dut.rx, 2 * divisor)

    simulate(dut, sender, background=[collect(dut.stream, items)])
    assert items == [(b, 0) for b in data]


# --- transmitter against the bit-level receiver --------------------------------------------------

@pytest.mark.parametrize("divisor", [4, 8, 11])
def test_tx_timing(divisor):
    dut = UARTTx(divisor)
    data = random_bytes(divisor + 100, 12)
    frames = []

    async def writer(ctx):
        assert ctx.get(dut.tx) == 1 and ctx.get(dut.stream.ready) == 1
        await ctx.tick().repeat(3)
        for byte in data:
            await stream_put(ctx, dut.stream, byte)

    async def reader(ctx):
        for _ in data:
            frame = await recv_frame(ctx, dut.tx, divisor, timeout=20 * divisor)
            check_timing(frame, divisor, tolerance=1)
            frames.append(frame)
        await ctx.tick().repeat(divisor // 2)
        assert ctx.get(dut.tx) == 1 and ctx.get(dut.busy) == 0
        assert ctx.get(dut.stream.ready) == 1

    simulate(dut, writer, reader)
    assert [f.data for f in frames] == list(data)
    assert not any(f.framing_error for f in frames)
    for byte, frame in zip(data, frames):
        assert frame.edges == frame_edges(byte, divisor)        # exact, not just within ±1
    # Back to back: each frame starts exactly 10 bits after the previous one.
    # recv_frame returns at the middle of the stop bit, round(9.5 * divisor) after its start.
    gaps = [f.start + int(Fraction(19, 2) * divisor + Fraction(1, 2)) for f in frames[1:]]
    assert gaps == [10 * divisor] * (len(frames) - 1)


def test_tx_ready_only_when_idle():
    divisor = 6
    dut = UARTTx(divisor)

    async def writer(ctx):
        ctx.set(dut.stream.payload, 0x3c)
        ctx.set(dut.stream.valid, 1)
        await ctx.tick()                            # accepted here
        ctx.set(dut.stream.payload, 0xc3)
        ready = []
        for _ in range(10 * divisor):
            _, _, r = await ctx.tick().sample(dut.stream.ready)
            ready.append(r)
        # Busy for the whole frame; ready again in the last cycle of the stop bit.
        assert ready == [0] * (10 * divisor - 1) + [1]
        ctx.set(dut.stream.valid, 0)

    async def reader(ctx):
        assert await recv_bytes(ctx, dut.tx, 2, divisor, timeout=12 * divisor) == b"\x3c\xc3"

    simulate(dut, writer, reader)


# --- loopback ------------------------------------------------------------------------------------

@pytest.mark.parametrize("divisor, rx_depth, tx_depth", [(4, 16, 16), (8, 2, 4), (16, 0, 0)])
def test_loopback(divisor, rx_depth, tx_depth):
    uart = UART(divisor, rx_depth=rx_depth, tx_depth=tx_depth)
    m = Module()
    m.submodules.uart = uart
    m.d.comb += uart.rx.eq(uart.tx)
    data = random_bytes(divisor * 1000 + rx_depth, 60)
    received, pulses = [], {}

    async def writer(ctx):
        for byte in data:
            await stream_put(ctx, uart.tx_stream, byte)

    async def reader(ctx):
        rng = random.Random(divisor)
        for _ in data:
            payload = await stream_get(ctx, uart.rx_stream, timeout=40 * divisor)
            received.append((payload.data, payload.framing_error))
            await ctx.tick().repeat(rng.randrange(1, 3 * divisor))   # a slow-ish reader

    simulate(m, writer, reader, background=[count_pulses(uart.rx_error, pulses, "fe"),
                                            count_pulses(uart.overrun, pulses, "ovr")])
    assert received == [(b, 0) for b in data]
    assert pulses == {"fe": 0, "ovr": 0}


# --- bad lines -----------------------------------------------------------------------------------

@pytest.mark.parametrize("gap", [1, 5])
def test_framing_error_reported_once(gap):
    # After a low stop bit the receiver waits for the line to go high: `gap` cycles of it.
    divisor = 8
    dut = UARTRx(divisor)
    items, pulses = [], {}

    async def sender(ctx):
        await idle(ctx, dut.rx, 4)
        for byte, bad in [(0x5a, True), (0xc3, False), (0x00, True), (0xff, True), (0x81, False)]:
            await send_byte(ctx, dut.rx, byte, divisor, framing_error=bad)
            await idle(ctx, dut.rx, gap)
        await idle(ctx, dut.rx, 2 * divisor)

    simulate(dut, sender, background=[collect(dut.stream, items),
                                      count_pulses(dut.framing_error, pulses, "fe")])
    assert items == [(0x5a, 1), (0xc3, 0), (0x00, 1), (0xff, 1), (0x81, 0)]
    assert pulses["fe"] == 3


@pytest.mark.parametrize("divisor", [8, 13, 16])
def test_glitch_ignored(divisor):
    dut = UARTRx(divisor)
    items, pulses = [], {}

    async def sender(ctx):
        await idle(ctx, dut.rx, 4)
        for length in range(1, (divisor + 1) // 2):       # shorter than half a bit
            await pull_low(ctx, dut.rx, length)
            await idle(ctx, dut.rx, 2 * divisor)
        await pull_low(ctx, dut.rx, divisor // 2 - 1)
        await idle(ctx, dut.rx, divisor // 2 + 1)       # a byte right after the glitch check
        await send_byte(ctx, dut.rx, 0xa5, divisor)
        await pull_low(ctx, dut.rx, 1)                  # just after a stop bit
        await idle(ctx, dut.rx, divisor)
        await send_byte(ctx, dut.rx, 0x5a, divisor)
        await idle(ctx, dut.rx, 2 * divisor)

    simulate(dut, sender, background=[collect(dut.stream, items),
                                      count_pulses(dut.framing_error, pulses, "fe")])
    assert items == [(0xa5, 0), (0x5a, 0)]
    assert pulses["fe"] == 0


@pytest.mark.parametrize("from_reset", [False, True])
def test_stuck_low_line(from_reset):
    divisor = 8
    uart = UART(divisor, rx_depth=4)
    items, pulses = [], {}

    async def sender(ctx):
        if not from_reset:
            await idle(ctx, uart.rx, 20)
            await send_byte(ctx, uart.rx, 0x11, divisor)
        await pull_low(ctx, uart.rx, 100 * divisor)     # longer than any FIFO
        assert ctx.get(uart.rx_busy)                    # waiting for the line, not hung
        await idle(ctx, uart.rx, divisor)
        await send_bytes(ctx, uart.rx, b"ok", divisor)
        await pull_low(ctx, uart.rx, 30 * divisor)      # a second break
        await idle(ctx, uart.rx, 1)
        await send_byte(ctx, uart.rx, 0x42, divisor)
        await idle(ctx, uart.rx, 3 * divisor)
        assert not ctx.get(uart.rx_busy)

    simulate(uart, sender, background=[collect(uart.rx_stream, items),
                                       count_pulses(uart.rx_error, pulses, "fe"),
                                       count_pulses(uart.overrun, pulses, "ovr")])
    expected = [] if from_reset else [(0x11, 0)]
    expected += [(0x00, 1), (ord("o"), 0), (ord("k"), 0), (0x00, 1), (0x42, 0)]
    assert items == expected
    assert pulses == {"fe": 2, "ovr": 0}


# --- backpressure and overrun --------------------------------------------------------------------

def test_rx_overrun_keeps_oldest():
    divisor = 8
    dut = UARTRx(divisor)
    pulses = {}

    async def tb(ctx):
        await idle(ctx, dut.rx, 4)
        await send_bytes(ctx, dut.rx, b"\x01\x02\x03", divisor)     # nobody reads
        await idle(ctx, dut.rx, divisor)
        assert pulses["ovr"] == 2
        payload = await stream_get(ctx, dut.stream, timeout=1)
        assert (payload.data, payload.framing_error) == (0x01, 0)
        await ctx.tick()
        assert not ctx.get(dut.stream.valid)
        await send_byte(ctx, dut.rx, 0x04, divisor)                 # works again
        payload = await stream_get(ctx, dut.stream, timeout=2 * divisor)
        assert payload.data == 0x04
        assert pulses["ovr"] == 2

    simulate(dut, tb, background=[count_pulses(dut.overrun, pulses, "ovr")])


@pytest.mark.parametrize("rx_depth", [1, 4])
def test_uart_fifo_overrun(rx_depth):
    divisor = 8
    uart = UART(divisor, rx_depth=rx_depth)
    capacity = rx_depth + 1                      # the FIFO and the receiver's own register
    data = bytes(range(0x30, 0x30 + capacity + 3))
    pulses = {}

    async def tb(ctx):
        await idle(ctx, uart.rx, 4)
        await send_bytes(ctx, uart.rx, data, divisor)
        await idle(ctx, uart.rx, divisor)
        assert pulses["ovr"] == len(data) - capacity
        got = []
        for _ in range(capacity):
            payload = await stream_get(ctx, uart.rx_stream, timeout=4)
            got.append(payload.data)
        assert bytes(got) == data[:capacity]     # the oldest are kept, the newest dropped
        await ctx.tick().repeat(4)
        assert not ctx.get(uart.rx_stream.valid)
        await send_byte(ctx, uart.rx, 0x7e, divisor)
        payload = await stream_get(ctx, uart.rx_stream, timeout=4 * divisor)
        assert payload.data == 0x7e

    simulate(uart, tb, background=[count_pulses(uart.overrun, pulses, "ovr")])


def test_uart_tx_fifo():
    divisor = 8
    uart = UART(divisor, tx_depth=8)
    message = b"-W\r\nA1+\n"

    async def writer(ctx):
        for byte in message:                    # the FIFO takes them all at once
            await stream_put(ctx, uart.tx_stream, byte)
        assert ctx.get(uart.tx_busy)

    async def reader(ctx):
        assert await recv_line(ctx, uart.tx, divisor, timeout=20 * divisor, tolerance=0) == \
            b"-W\r\n"
        assert await recv_line(ctx, uart.tx, divisor, timeout=2 * divisor, tolerance=0) == \
            b"A1+\n"
        await ctx.tick().repeat(divisor)
        assert not ctx.get(uart.tx_busy)

    simulate(uart, writer, reader)


# --- the helpers themselves ----------------------------------------------------------------------

def test_helpers_detect_errors():
    divisor = 10
    dut = UARTRx(divisor)          # only as a place for a pin and a clock
    pin = dut.rx

    async def sender(ctx):
        await idle(ctx, pin, 5)
        await send_byte(ctx, pin, 0x55, divisor, framing_error=True)
        await send_byte(ctx, pin, 0x55, Fraction(23, 2))              # 15 % slow
        await pull_low(ctx, pin, 3)                                   # a glitch
        await idle(ctx, pin, 20)
        await send_bytes(ctx, pin, b"hi\n", divisor, stop_bits=2)
        await send_bytes(ctx, pin, b"0123456789", divisor)

    async def receiver(ctx):
        with pytest.raises(FramingError) as info:
            await recv_byte(ctx, pin, divisor, timeout=100)
        assert info.value.frame.data == 0x55
        with pytest.raises(TimingError):
            await recv_byte(ctx, pin, divisor, tolerance=1)
        assert await recv_line(ctx, pin, divisor) == b"hi\n"         # the glitch is skipped
        with pytest.raises(ValueError, match="within 4 bytes"):
            await recv_line(ctx, pin, divisor, max_length=4)
        assert await recv_bytes(ctx, pin, 6, divisor) == b"456789"
        with pytest.raises(TimeoutError):
            await recv_byte(ctx, pin, divisor, timeout=3 * divisor)

    simulate(dut, sender, receiver)


def test_helpers_argument_checks():
    async def tb(ctx):
        with pytest.raises(ValueError):
            await send_byte(ctx, None, 256, 8)
        with pytest.raises(ValueError):
            await send_byte(ctx, None, 1, 1)
        with pytest.raises(ValueError):
            await recv_line(ctx, None, 8, eol=b"\r\n")

    simulate(UARTRx(8), tb)
