# amaranth: UnusedElaboratable=no
"""The board store's RAMs: the single-port wrapper (simulated as a Memory; the SPRAM variant
elaborates) and the banked dual-port one."""

import random

import pytest
from amaranth.back import rtlil
from amaranth.sim import Simulator

from amaranth.vendor import LatticeECP5Platform

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


def test_quad_reads_four_addresses_or_writes():
    """With ``quad`` each bank's write port reads too, at ``addr3``/``addr4``, in a cycle it
    does not write: four reads a cycle (as the engine reads a square's four neighbours),
    two in each bank; beside a write in a bank, that bank's second read shows the word
    written (the port writes through), and the other bank's is its word."""
    dut = BankedRAM(shape=16, depth=64, quad=True)
    rng = random.Random(4)
    model = {}

    def pair():
        a = rng.randrange(64)
        b = rng.randrange(32) * 2 + (1 - a % 2)             # the other bank
        return (a, b) if rng.random() < 0.5 else (b, a)

    async def tb(ctx):
        for _ in range(800):
            reads = pair() + pair()
            for port, a in zip(("", "2", "3", "4"), reads):
                ctx.set(getattr(dut, "addr" + port), a)
            want = [model.get(a, 0) for a in reads]
            wbank = None
            if rng.random() < 0.4:
                w = rng.choice([a for a in range(64) if a not in reads])
                value = rng.randrange(1 << 16)
                ctx.set(dut.waddr, w)
                ctx.set(dut.wdata, value)
                wbank = w % 2
            ctx.set(dut.we, wbank is not None)
            await ctx.tick()
            if wbank is not None:
                model[w] = value
            got = [ctx.get(getattr(dut, "rdata" + port)) for port in ("", "2", "3", "4")]
            assert got[:2] == want[:2]
            for a, g, wt in zip(reads[2:], got[2:], want[2:]):
                assert g == (value if a % 2 == wbank else wt)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


class _ECP5(LatticeECP5Platform):
    """Enough of an ECP5 platform for the store to choose its DP16KD blocks."""
    device, package, speed = "LFE5U-25F", "BG381", "6"
    resources = connectors = []


@pytest.mark.parametrize("depth, blocks", [(2048, 1), (4096, 2), (8192, 4)])
def test_quad_on_ecp5_is_true_dual_port_dp16kd(depth, blocks):
    """On ECP5 the quad banks are DP16KD blocks in true dual-port mode, 18 bits a port (Yosys
    would copy a memory for its second read): one block per 1024 words of a bank."""
    text = rtlil.convert(BankedRAM(shape=Cell, depth=depth, quad=True), platform=_ECP5())
    cells = [line for line in text.splitlines() if line.strip().startswith("cell \\DP16KD")]
    assert len(cells) == 2 * blocks
    assert text.count("parameter \\DATA_WIDTH_A 18") == 2 * blocks
    assert text.count("parameter \\DATA_WIDTH_B 18") == 2 * blocks
    # Port A never writes; port B writes where the bank's write goes, and writes through.
    assert text.count("connect \\WEA 1'0") == 2 * blocks
    assert text.count('parameter \\WRITEMODE_B "WRITETHROUGH"') == 2 * blocks
