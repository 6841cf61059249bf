"""The threat search's transposition table (:mod:`.tt_spec`, "The table"): entries of two
16-bit words in one single-port RAM, an iCE40UP5K SPRAM on the iCEBreaker.

A query is a key, a node's kind and depth, and either a probe (``put`` 0) or a verdict to
store (``put`` 1, ``win``).  Every query gets one answer: whether the entry says the
attacker wins, or fails, at that depth (for a store: what it said before).  A probe takes
4 cycles from its acceptance to its answer, a store 6.  ``clear`` empties the table (a
search's start): 2 * ENTRIES cycles, during which no query is taken.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .store import SinglePortRAM
from .tt_spec import CHECK_BITS, DEPTH_BITS, ENTRIES, ENTRY_WORDS, INDEX_BITS, KEY_BITS

__all__ = ["TTable", "TTQuery", "TTAnswer", "Entry"]

#: A query: the key (the engine's: bit 0 is the side to move), the node's kind
#: (tt_spec.OR, AND) and depth; a store's verdict.
TTQuery = data.StructLayout({
    "key": KEY_BITS, "kind": 1, "depth": DEPTH_BITS, "put": 1, "win": 1,
})
TTAnswer = data.StructLayout({"win": 1, "fail": 1})
#: An entry, its two words low first: the check, the least depth won at, the greatest
#: failed at (0: none).
Entry = data.StructLayout({"check": CHECK_BITS, "win": DEPTH_BITS, "fail": DEPTH_BITS})
assert Entry.size == 16 * ENTRY_WORDS == 32


class TTable(wiring.Component):
    """The table.

    Parameters
    ----------
    spram : bool
        Keep it in an iCE40UP5K SPRAM (else a ``Memory``, in simulation).

    Attributes
    ----------
    q : In(stream.Signature(TTQuery))
    a : Out(stream.Signature(TTAnswer))
    clear : In(1)
        Empty the table (taken while idle: between a query's answer and the next query).
    """

    def __init__(self, *, spram=False):
        self.spram = spram
        super().__init__({
            "q": In(stream.Signature(TTQuery)),
            "a": Out(stream.Signature(TTAnswer)),
            "clear": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.ram = ram = SinglePortRAM(shape=16, depth=ENTRIES * ENTRY_WORDS,
                                               spram=self.spram)
        query = Signal(TTQuery)
        at = Signal(INDEX_BITS)                 # the entry's index
        low = Signal(16)                        # its first word, read
        entry = Signal(Entry)                   # as read, then as to be written
        chk = query.key[INDEX_BITS:]
        count = Signal(range(ENTRIES * ENTRY_WORDS + 1))

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.clear):
                    m.d.sync += count.eq(0)
                    m.next = "CLEAR"
                with m.Else():
                    m.d.comb += self.q.ready.eq(1)
                    index = self.q.payload.key[:INDEX_BITS] ^ (self.q.payload.kind << 1)
                    m.d.comb += ram.addr.eq(Cat(0, index))
                    with m.If(self.q.valid):
                        m.d.sync += [query.eq(self.q.payload), at.eq(index)]
                        m.next = "READ"
            with m.State("READ"):
                m.d.comb += ram.addr.eq(Cat(1, at))
                m.d.sync += low.eq(ram.rdata)
                m.next = "CHECK"
            with m.State("CHECK"):
                self._check(m, ram.rdata, low, chk, query, entry)
            with m.State("WRITE_LOW"):
                m.d.comb += [ram.addr.eq(Cat(0, at)), ram.wdata.eq(entry.as_value()[:16]),
                             ram.we.eq(1)]
                m.next = "WRITE_HIGH"
            with m.State("WRITE_HIGH"):
                m.d.comb += [ram.addr.eq(Cat(1, at)), ram.wdata.eq(entry.as_value()[16:]),
                             ram.we.eq(1)]
                m.next = "ANSWER"
            with m.State("ANSWER"):
                m.d.comb += self.a.valid.eq(1)
                with m.If(self.a.ready):
                    m.next = "IDLE"
            with m.State("CLEAR"):
                m.d.comb += [ram.addr.eq(count), ram.wdata.eq(0), ram.we.eq(1)]
                m.d.sync += count.eq(count + 1)
                with m.If(count == ENTRIES * ENTRY_WORDS - 1):
                    m.next = "IDLE"
        return m

    def _check(self, m, high, low, chk, query, entry):
        """The entry's two words are in: the answer (tt_spec.probe) and, for a store, the
        entry to write (tt_spec.merge)."""
        read = data.View(Entry, Cat(low, high))
        same = read.check == chk
        depth = query.depth
        m.d.sync += [
            self.a.payload.win.eq(same & (read.win != 0) & (read.win <= depth)),
            self.a.payload.fail.eq(same & (read.fail >= depth)),
        ]
        with m.If(query.put):
            win = Mux(same, read.win, 0)
            fail = Mux(same, read.fail, 0)
            m.d.sync += entry.check.eq(chk)
            with m.If(query.win):
                m.d.sync += [entry.win.eq(Mux((win == 0) | (depth < win), depth, win)),
                             entry.fail.eq(fail)]
            with m.Else():
                m.d.sync += [entry.win.eq(win),
                             entry.fail.eq(Mux(depth > fail, depth, fail))]
            m.next = "WRITE_LOW"
        with m.Else():
            m.next = "ANSWER"
