"""The board store's RAMs: single-port (one address for reading and writing), or
two banks of simple dual-port block RAM (two reads and a write a cycle) where block RAM
allows.

In simulation, and on devices without single-port RAM, this is an
``amaranth.lib.memory.Memory`` with a synchronous read port (so it maps to block
RAM).  With ``spram=True`` it is an iCE40UP5K ``SB_SPRAM256KA`` (16384 words of
16 bits), which Yosys does not infer from a memory on its own.

Both behave the same for every access the engine makes: a read returns the
word at ``addr`` one cycle later; a write stores ``wdata`` at ``addr`` at the
clock edge, in the lanes ``we`` enables (``lanes`` equal parts of the word: 1, or 4,
the SPRAM's nibbles).  (What ``rdata`` shows in the cycle after a write differs between
the two, and nothing relies on it.)
"""

from amaranth.hdl import (Array, Cat, ClockSignal, Const, Instance, Module, Mux, Shape, Signal,
                          Value, unsigned)
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.vendor import LatticeECP5Platform

__all__ = ["SinglePortRAM", "BankedRAM", "SPRAM_DEPTH", "SPRAM_WIDTH"]

SPRAM_DEPTH = 16384
SPRAM_WIDTH = 16


class SinglePortRAM(wiring.Component):
    """A single-port RAM.

    Parameters
    ----------
    shape : shape-castable
        Shape of a word (at most 16 bits wide with ``spram``).
    depth : int
        Number of words (at most 16384 with ``spram``).
    spram : bool
        Use an iCE40UP5K SPRAM block instead of a ``Memory``.
    lanes : int
        Parts of a word written on their own: 1 or 4 (nibbles of a 16-bit word).

    Attributes
    ----------
    addr : In(range(depth))
    wdata : In(shape)
    we : In(lanes)
        Write the enabled lanes of ``wdata`` at ``addr`` at the next edge.
    rdata : Out(shape)
        The word at the address presented one cycle earlier.
    """

    def __init__(self, *, shape, depth, spram=False, lanes=1):
        self._shape = shape
        self.depth = depth
        self.spram = spram
        self.lanes = _lanes(shape, lanes)
        width = Shape.cast(shape).width
        if spram and (width > SPRAM_WIDTH or depth > SPRAM_DEPTH):
            raise ValueError(f"an SPRAM holds {SPRAM_DEPTH}x{SPRAM_WIDTH} bits, "
                             f"not {depth}x{width}")
        if spram and lanes != 1 and (lanes != 4 or width != SPRAM_WIDTH):
            raise ValueError("an SPRAM writes whole words or the nibbles of 16-bit words")
        super().__init__({
            "addr":  In(range(depth)),
            "wdata": In(shape),
            "we":    In(lanes),
            "rdata": Out(shape),
        })

    def elaborate(self, platform):
        m = Module()
        if self.spram:
            address = Signal(14)
            datain = Signal(SPRAM_WIDTH)
            dataout = Signal(SPRAM_WIDTH)
            m.d.comb += [address.eq(self.addr), datain.eq(self.wdata)]
            m.submodules.spram = Instance(
                "SB_SPRAM256KA",
                i_ADDRESS=address,
                i_DATAIN=datain,
                i_MASKWREN=self.we if self.lanes == 4 else Const(0b1111, 4),
                i_WREN=self.we.any(),
                i_CHIPSELECT=Const(1, 1),
                i_CLOCK=ClockSignal(),
                i_STANDBY=Const(0, 1),
                i_SLEEP=Const(0, 1),
                i_POWEROFF=Const(1, 1),
                o_DATAOUT=dataout,
            )
            m.d.comb += self.rdata.eq(dataout)
        else:
            _block_ram(m, self)
        return m


def _lanes(shape, lanes):
    width = Shape.cast(shape).width
    if lanes < 1 or width % lanes:
        raise ValueError(f"a word of {width} bits is not {lanes} equal lanes")
    return lanes


def _block_ram(m, ram):
    """``ram``'s words in a Memory with a synchronous read port at ``ram.addr`` (so it maps
    to block RAM) and a write port there too, written by lanes."""
    width = Shape.cast(ram._shape).width
    # Lanes need a plain word (a memory of a struct shape is written whole).
    shape = ram._shape if ram.lanes == 1 else unsigned(width)
    m.submodules.mem = mem = Memory(shape=shape, depth=ram.depth, init=[])
    rd = mem.read_port(domain="sync")
    wr = mem.write_port(granularity=width // ram.lanes if ram.lanes > 1 else None)
    m.d.comb += [
        rd.addr.eq(ram.addr), wr.addr.eq(ram.addr),
        wr.data.eq(ram.wdata), wr.en.eq(ram.we),
        ram.rdata.eq(rd.data),
    ]


class BankedRAM(wiring.Component):
    """Two banks of block RAM (iCE40 ``SB_RAM40_4K``, ECP5 ``DP16KD``), each with a read port
    and a write port, holding the even and the odd addresses: two reads a cycle, at
    ``addr`` and ``addr2``, when they fall in different banks, and beside them a write at
    ``waddr`` and another at ``waddr2`` in the other bank.  The board's squares are
    addressed column first, so the banks are the even and the odd columns: a square's
    neighbours to the north and east (or south and west) lie in different banks, and the
    engine reads them in one cycle (docs/engine.md, "The dual-port schedule"), and clears
    two neighbours' lanes in one cycle as it takes a tile back.  The banks together take
    the block RAM one memory of the same words would.

    With ``quad`` (a true dual-port block RAM: ECP5's ``DP16KD``) a bank's write port reads
    too in a cycle it does not write: ``addr3`` and ``addr4``, in different banks, read
    there, so that all four of a square's neighbours are read in one cycle.  In a cycle the
    bank writes, the one of them in that bank shows the word written instead, whatever its
    address (the port writes through): the engine reads a square so as it writes it.

    Never asked for: reads at ``addr`` and ``addr2`` (or ``addr3`` and ``addr4``) in one
    bank (``addr``, ``addr3`` is then read); a write at ``waddr2`` in the bank ``waddr``
    names (that bank then writes at ``waddr``, if ``we`` enables it, and nothing else); a
    read and a write of one address in one cycle at ``addr`` or ``addr2`` (what they show
    is undefined).

    Attributes
    ----------
    addr, addr2 : In(range(depth))
        The read addresses; ``rdata``, ``rdata2`` are the words there one cycle later.
    waddr, waddr2 : In(range(depth))
    wdata, wdata2 : In(shape)
    we, we2 : In(1)
        Write ``wdata`` at ``waddr`` (``wdata2`` at ``waddr2``) at the next edge: whole
        words (nibble lanes would take a DP16KD for each lane of each bank).
    rdata, rdata2 : Out(shape)
    addr3, addr4 : In(range(depth))
    rdata3, rdata4 : Out(shape)
        Only with ``quad``: the write ports' reads.
    """

    def __init__(self, *, shape, depth, quad=False):
        assert depth % 2 == 0, "two banks of equal depth"
        self._shape = shape
        self.depth = depth
        self.quad = quad
        reads = ("", "2", "3", "4") if quad else ("", "2")
        super().__init__({
            **{f"addr{r}": In(range(depth)) for r in reads},
            "waddr":  In(range(depth)),
            "wdata":  In(shape),
            "we":     In(1),
            "waddr2": In(range(depth)),
            "wdata2": In(shape),
            "we2":    In(1),
            **{f"rdata{r}": Out(shape) for r in reads},
        })

    def elaborate(self, platform):
        m = Module()
        width = Shape.cast(self._shape).width
        words = [[], []]                        # each port's word of each bank
        for b in range(2):
            first = self.waddr[0] == b
            waddr = Mux(first, self.waddr, self.waddr2)
            wdata = Mux(first, Value.cast(self.wdata), Value.cast(self.wdata2))
            we = Mux(first, self.we, Mux(self.waddr2[0] == b, self.we2, 0))
            # A bank reads at addr when addr is its, else at addr2 (and at addr3, else addr4).
            raddr = Mux(self.addr[0] == b, self.addr, self.addr2)
            if self.quad:
                raddr2 = Mux(self.addr3[0] == b, self.addr3, self.addr4)
                if isinstance(platform, LatticeECP5Platform):
                    rd, rd2 = _dp16kd_bank(m, b, width, self.depth // 2, raddr[1:], raddr2[1:],
                                           waddr[1:], wdata, we)
                else:
                    rd, rd2 = _memory_bank(m, b, width, self.depth // 2, raddr[1:], raddr2[1:],
                                           waddr[1:], wdata, we)
                words[1].append(rd2)
            else:
                rd, = _memory_bank(m, b, width, self.depth // 2, raddr[1:], None,
                                   waddr[1:], wdata, we)
            words[0].append(rd)
        pairs = [(self.addr, self.addr2, self.rdata, self.rdata2)]
        if self.quad:
            pairs.append((self.addr3, self.addr4, self.rdata3, self.rdata4))
        for (a, a2, rdata, rdata2), w in zip(pairs, words):
            bank_r = Signal()                   # the banks read last cycle, at a and a2
            bank2_r = Signal()
            m.d.sync += [bank_r.eq(a[0]), bank2_r.eq(a2[0])]
            m.d.comb += [rdata.eq(Mux(bank_r, w[1], w[0])), rdata2.eq(Mux(bank2_r, w[1], w[0]))]
        return m


def _memory_bank(m, b, width, depth, raddr, raddr2, waddr, wdata, we):
    """Bank ``b`` as a Memory: a read port at ``raddr`` (and with ``raddr2`` another, which
    shows the word written the cycle after the bank writes), a write port.  Returns the
    words read."""
    mem = Memory(shape=unsigned(width), depth=depth, init=[])
    m.submodules[f"bank{b}"] = mem
    rd = mem.read_port(domain="sync")
    wr = mem.write_port()
    m.d.comb += [rd.addr.eq(raddr), wr.addr.eq(waddr), wr.data.eq(wdata), wr.en.eq(we)]
    if raddr2 is None:
        return (rd.data,)
    rd2 = mem.read_port(domain="sync")
    wrote = Signal(name=f"wrote{b}")            # the second port wrote instead of reading
    written = Signal(width, name=f"written{b}")
    m.d.comb += rd2.addr.eq(raddr2)
    m.d.sync += wrote.eq(we)
    with m.If(we):
        m.d.sync += written.eq(wdata)
    return rd.data, Mux(wrote, written, rd2.data)


DP16KD_DEPTH = 1024                             # words of up to 18 bits: one port's widest


def _dp16kd_bank(m, b, width, depth, raddr, raddr2, waddr, wdata, we):
    """Bank ``b`` on ECP5, in true dual-port ``DP16KD`` blocks of 1024 words (Yosys maps a
    memory's write port to a port of its own, never sharing it with a read, so it would
    copy the memory for a second read): port A reads at ``raddr``; port B writes, or reads
    at ``raddr2`` in a cycle it does not write, and shows the word it writes in a cycle it
    does (``WRITETHROUGH``).  The blocks hold consecutive ranges of the
    bank; the one read is chosen by the address a cycle old.  Returns the words read."""
    assert width <= 18, "a DP16KD port is at most 18 bits wide"
    blocks = -(-depth // DP16KD_DEPTH)
    low = (DP16KD_DEPTH - 1).bit_length()
    baddr = Mux(we, waddr, raddr2)
    sel = [Signal(range(blocks), name=f"sel{b}_{p}") for p in "ab"]
    m.d.sync += [sel[0].eq(raddr[low:]), sel[1].eq(baddr[low:])]
    outs = [[], []]
    for k in range(blocks):
        doa, dob = Signal(18, name=f"doa{b}_{k}"), Signal(18, name=f"dob{b}_{k}")
        ports = {}
        for p, addr, do in (("A", raddr, doa), ("B", baddr, dob)):
            # 18-bit words: address bits 13..4; bits 1..0 the byte enables of a write.
            ad = Cat(Const(0b11 if p == "B" else 0, 2), Const(0, 2), addr[:low])
            ports.update({f"i_AD{p}{i}": ad[i] for i in range(14)})
            ports.update({f"o_DO{p}{i}": do[i] for i in range(18)})
            ports.update({f"i_CLK{p}": ClockSignal(), f"i_CE{p}": Const(1), f"i_OCE{p}": Const(1),
                          f"i_RST{p}": Const(0), **{f"i_CS{p}{i}": Const(0) for i in range(3)}})
        data = Cat(wdata, Const(0, 18 - width))
        ports.update({f"i_DI{p}{i}": (Const(0) if p == "A" else data[i])
                      for p in "AB" for i in range(18)})
        hit = (waddr[low:] == k) if blocks > 1 else Const(1)
        m.submodules[f"bank{b}_{k}"] = Instance(
            "DP16KD",
            p_DATA_WIDTH_A=18, p_DATA_WIDTH_B=18, p_REGMODE_A="NOREG", p_REGMODE_B="NOREG",
            p_RESETMODE="SYNC", p_ASYNC_RESET_RELEASE="SYNC", p_CSDECODE_A="0b000",
            p_CSDECODE_B="0b000", p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="WRITETHROUGH",
            p_GSR="AUTO", i_WEA=Const(0), i_WEB=we & hit, **ports)
        outs[0].append(doa[:width])
        outs[1].append(dob[:width])
    return tuple(Array(o)[s] if blocks > 1 else o[0] for o, s in zip(outs, sel))
