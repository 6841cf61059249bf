# amaranth: UnusedElaboratable=no
"""The board store's RAMs: the single-port wrapper (simulated as a Memory; the SPRAM variant
elaborates) and the banked dual-port one."""

import random

import pytest
from amaranth.back import rtlil
from amaranth.sim import Simulator

from traxfpga.hdl.store import BankedRAM, SinglePortRAM
from traxfpga.hdl.tiles import Cell


def test_read_write_one_cycle_latency():
    dut = SinglePortRAM(shape=16, depth=64)
    rng = random.Random(1)
    model = {}

    async def tb(ctx):
        for _ in range(300):
            addr = rng.randrange(64)
            if rng.random() < 0.5:
                value = rng.randrange(1 << 16)
                ctx.set(dut.addr, addr)
                ctx.set(dut.wdata, value)
                ctx.set(dut.we, 1)
                await ctx.tick()
                ctx.set(dut.we, 0)
                model[addr] = value
            else:
                ctx.set(dut.addr, addr)
                await ctx.tick()
                assert ctx.get(dut.rdata) == model.get(addr, 0)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


def test_banked_reads_two_addresses_while_writing_two_others():
    """Two reads in different banks (an even and an odd address, as the engine's dual-port
    TILE reads a square's neighbours) and a write elsewhere in each bank in one cycle (as its
    take-back writes them): both reads return the words as they were, the writes land.  A
    read in one bank alone, at either port, returns its word too."""
    dut = BankedRAM(shape=16, depth=64)
    rng = random.Random(2)
    model = {}

    async def tb(ctx):
        for _ in range(600):
            a = rng.randrange(64)
            b = rng.randrange(32) * 2 + (1 - a % 2)         # the other bank
            if rng.random() < 0.2:
                b = a                                       # one read, at both ports
            if rng.random() < 0.5:
                a, b = b, a
            ctx.set(dut.addr, a)
            ctx.set(dut.addr2, b)
            want = model.get(a, 0), model.get(b, 0)
            writes = []
            waddr = rng.randrange(64)
            waddr2 = rng.randrange(32) * 2 + (1 - waddr % 2)
            for port, w in (("", waddr), ("2", waddr2)):
                write = w not in (a, b) and rng.random() < 0.7
                ctx.set(getattr(dut, "waddr" + port), w)
                if write:
                    value = rng.randrange(1 << 16)
                    ctx.set(getattr(dut, "wdata" + port), value)
                    writes.append((w, value))
                ctx.set(getattr(dut, "we" + port), write)
            await ctx.tick()
            model.update(writes)
            assert ctx.get(dut.rdata) == want[0]
            if a % 2 != b % 2:
                assert ctx.get(dut.rdata2) == want[1]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


def test_lanes_are_written_on_their_own():
    """With four lanes (the board store's nibbles), a write stores the enabled nibbles of
    its word and keeps the others: what the engine's take-back relies on."""
    dut = SinglePortRAM(shape=Cell, depth=64, lanes=4)
    rng = random.Random(3)
    model = [0] * 64

    async def tb(ctx):
        for _ in range(300):
            addr, value, we = rng.randrange(64), rng.randrange(1 << 16), rng.randrange(16)
            ctx.set(dut.addr, addr)
            ctx.set(dut.wdata.as_value(), value)
            ctx.set(dut.we, we)
            await ctx.tick()
            bits = sum(0xF << (4 * i) for i in range(4) if (we >> i) & 1)
            model[addr] = model[addr] & ~bits | value & bits
            ctx.set(dut.we, 0)
            await ctx.tick()
            assert ctx.get(dut.rdata.as_value()) == model[addr]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


def test_spram_variant_converts():
    text = rtlil.convert(SinglePortRAM(shape=Cell, depth=16384, spram=True, lanes=4))
    assert "SB_SPRAM256KA" in text
    # the nibble enables are the lanes' write enables, not tied high
    assert "connect \\MASKWREN \\we" in text
    assert "4'1111" in rtlil.convert(SinglePortRAM(shape=Cell, depth=16384, spram=True))


def test_spram_limits():
    with pytest.raises(ValueError):
        SinglePortRAM(shape=17, depth=1024, spram=True)
    with pytest.raises(ValueError):
        SinglePortRAM(shape=16, depth=32768, spram=True)
    with pytest.raises(ValueError):
        SinglePortRAM(shape=12, depth=1024, spram=True, lanes=4)     # nibbles of a 16-bit word
    with pytest.raises(ValueError):
        SinglePortRAM(shape=16, depth=64, lanes=3)
