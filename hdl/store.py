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

from amaranth.hdl import ClockSignal, Const, Instance, Module, Mux, Shape, Signal, Value, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

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

    Never asked for: reads at ``addr`` and ``addr2`` in one bank (``addr`` is then read); a
    write at ``waddr2`` in the bank ``waddr`` names (that bank then writes at ``waddr``, if
    ``we`` enables it, and nothing else); a read and a write of one address in one cycle
    (what ``rdata`` shows is undefined).

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
    """

    def __init__(self, *, shape, depth):
        assert depth % 2 == 0, "two banks of equal depth"
        self._shape = shape
        self.depth = depth
        super().__init__({
            "addr":   In(range(depth)),
            "addr2":  In(range(depth)),
            "waddr":  In(range(depth)),
            "wdata":  In(shape),
            "we":     In(1),
            "waddr2": In(range(depth)),
            "wdata2": In(shape),
            "we2":    In(1),
            "rdata":  Out(shape),
            "rdata2": Out(shape),
        })

    def elaborate(self, platform):
        m = Module()
        width = Shape.cast(self._shape).width
        bank_r = Signal()                       # the banks read last cycle, by addr
        bank2_r = Signal()                      # ... and by addr2
        m.d.sync += [bank_r.eq(self.addr[0]), bank2_r.eq(self.addr2[0])]
        words = []
        for b in range(2):
            mem = Memory(shape=unsigned(width), depth=self.depth // 2, init=[])
            m.submodules[f"bank{b}"] = mem
            rd = mem.read_port(domain="sync")
            wr = mem.write_port()
            # A bank reads at addr when addr is its, else at addr2, and writes at waddr when
            # that is its, else at waddr2.
            raddr = Mux(self.addr[0] == b, self.addr, self.addr2)
            first = self.waddr[0] == b
            m.d.comb += [rd.addr.eq(raddr[1:]),
                         wr.addr.eq(Mux(first, self.waddr, self.waddr2)[1:]),
                         wr.data.eq(Mux(first, Value.cast(self.wdata), Value.cast(self.wdata2))),
                         wr.en.eq(Mux(first, self.we,
                                      Mux(self.waddr2[0] == b, self.we2, 0)))]
            words.append(rd.data)
        m.d.comb += [self.rdata.eq(Mux(bank_r, words[1], words[0])),
                     self.rdata2.eq(Mux(bank2_r, words[1], words[0]))]
        return m
