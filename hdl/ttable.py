"""The threat search's transposition table (:mod:`.tt_spec`, "The table"): entries of two
16-bit words in one single-port RAM, an iCE40UP5K SPRAM on the iCEBreaker.

A query is a key, a node's kind and depth, and either a probe (``put`` 0) or a verdict to
store (``put`` 1, ``win``).  The table works on the query while it is offered (a stream's
payload holds until it is taken) and takes it when done, its answer then on ``answer``:
whether the entry says the attacker wins, or fails, at that depth (for a store: what it
said before).  A store writes the entry unless another position's is worth more
(``tt_spec.merge``).  A probe is taken in its 4th cycle, a store in its 5th: no register holds
a copy of the 39-bit key, which the UP5K has no cells to spare for.  Its depth and verdict
are registered as it arrives: the sequencer's logic in front of them, and the check's
comparisons behind, were too long a path for the UP5K at 24 MHz.  ``clear`` empties the
table (a search's start): it zeroes the depths of every entry's second word (an entry
that knows no depth answers nothing, whatever its check), a cycle an entry during which no
query is taken.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .store import SinglePortRAM
from .tt_spec import ANY_DEPTH, CHECK_BITS, DEPTH_BITS, ENTRY_WORDS, INDEX_BITS, KEY_BITS

__all__ = ["TTable", "TTQuery", "TTAnswer", "High"]

#: A query: the key (the engine's: bit 0 is the side to move), the node's kind
#: (tt_spec.OR, AND) and depth; a store's verdict.
TTQuery = data.StructLayout({
    "key": KEY_BITS, "kind": 1, "depth": DEPTH_BITS, "put": 1, "win": 1,
})
TTAnswer = data.StructLayout({"win": 1, "fail": 1})
#: An entry's second word (its first is the check's low 16 bits): the rest of the check,
#: the least depth won at, the greatest failed at (0: none).
High = data.StructLayout({"check": CHECK_BITS - 16, "win": DEPTH_BITS, "fail": DEPTH_BITS})
assert High.size == 16 and ENTRY_WORDS == 2


class TTable(wiring.Component):
    """The table.

    Parameters
    ----------
    spram : bool
        Keep it in an iCE40UP5K SPRAM (else a ``Memory``: block RAM on an ECP5, or in
        simulation).
    index_bits : int
        ``2**index_bits`` entries (:data:`~.tt_spec.INDEX_BITS`: the iCEBreaker's SPRAM
        full; at most that, as an entry's check holds the key's bits above the index).

    Attributes
    ----------
    q : In(stream.Signature(TTQuery))
        A query, taken when answered.
    answer : Out(TTAnswer)
        The answer to the query taken last (from the cycle it is taken).
    clear : In(1)
        Empty the table (while no query is offered).
    """

    def __init__(self, *, spram=False, index_bits=INDEX_BITS):
        if not 2 <= index_bits <= INDEX_BITS:
            raise ValueError(f"a table of 2**{index_bits} entries: the index must be 2 .. "
                             f"{INDEX_BITS} bits")
        self.spram, self.index_bits = spram, index_bits
        super().__init__({
            "q": In(stream.Signature(TTQuery)),
            "answer": Out(TTAnswer),
            "clear": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        bits = self.index_bits
        m.submodules.ram = ram = SinglePortRAM(shape=16, depth=ENTRY_WORDS << bits,
                                               spram=self.spram)
        query = self.q.payload
        index = query.key[:bits] ^ (query.kind << 1)
        chk = query.key[bits:bits + CHECK_BITS]          # tt_spec.check
        same_low = Signal()                     # the entry's first word is the query's
        keep = Signal()                         # another position's, worth more: no write
        count = Signal(bits)
        win, fail = Signal(DEPTH_BITS), Signal(DEPTH_BITS)      # the entry to write
        # the query's depth and verdict (not its key)
        held = Signal(data.StructLayout({"depth": DEPTH_BITS, "put": 1, "win": 1}))

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += ram.addr.eq(Cat(0, index))
                with m.If(self.clear):
                    m.d.sync += [win.eq(0), fail.eq(0)]
                    m.next = "CLEAR"
                with m.Elif(self.q.valid):
                    m.d.sync += [held.depth.eq(query.depth), held.put.eq(query.put),
                                 held.win.eq(query.win)]
                    m.next = "READ"
            with m.State("READ"):
                m.d.comb += ram.addr.eq(Cat(1, index))
                m.d.sync += same_low.eq(ram.rdata == chk[:16])
                m.next = "CHECK"
            with m.State("CHECK"):
                self._check(m, held, ram.rdata, same_low, win, fail, keep)
            with m.State("WRITE_LOW"):
                m.d.comb += [ram.addr.eq(Cat(0, index)), ram.wdata.eq(chk[:16]), ram.we.eq(~keep)]
                m.next = "WRITE_HIGH"
            with m.State("WRITE_HIGH"):
                m.d.comb += [ram.addr.eq(Cat(1, index)), ram.we.eq(~keep),
                             ram.wdata.eq(Cat(chk[16:], win, fail)),
                             self.q.ready.eq(1)]
                m.next = "IDLE"
            with m.State("ANSWER"):
                m.d.comb += self.q.ready.eq(1)
                m.next = "IDLE"
            with m.State("CLEAR"):
                # (the write of WRITE_HIGH, its depths zero)
                m.d.comb += [ram.addr.eq(Cat(1, count)), ram.we.eq(1),
                             ram.wdata.eq(Cat(chk[16:], win, fail))]
                m.d.sync += count.eq(count + 1)
                with m.If(count == (1 << bits) - 1):
                    m.next = "IDLE"
        return m

    def _check(self, m, held, high, same_low, win, fail, keep):
        """The entry's second word is in: the answer (tt_spec.probe) and, for a store, the
        entry to write (tt_spec.merge), or ``keep`` the one there."""
        read = data.View(High, high)
        high_check = self.q.payload.key[self.index_bits + 16:][:CHECK_BITS - 16]
        same = same_low & (read.check == high_check)
        depth = held.depth
        m.d.sync += [
            self.answer.win.eq(same & (read.win != 0) & (read.win <= depth)),
            self.answer.fail.eq(same & (read.fail >= depth)),
        ]
        with m.If(held.put):
            # tt_spec.worth: the entry's deeper depth, a failure at ANY_DEPTH none; the
            # verdict's its depth, unless a failure at ANY_DEPTH.  Registered, so the
            # comparison stays off the write's paths.
            worth = Mux(read.fail == ANY_DEPTH, 0, read.fail)
            worth = Mux(read.win > worth, read.win, worth)
            new_worth = Mux(~held.win & (depth == ANY_DEPTH), 0, depth)
            m.d.sync += keep.eq(~same & (worth > new_worth))
            had_win = Mux(same, read.win, 0)
            had_fail = Mux(same, read.fail, 0)
            with m.If(held.win):
                m.d.sync += [win.eq(Mux((had_win == 0) | (depth < had_win), depth, had_win)),
                             fail.eq(had_fail)]
            with m.Else():
                m.d.sync += [win.eq(had_win),
                             fail.eq(Mux(depth > had_fail, depth, had_fail))]
            m.next = "WRITE_LOW"
        with m.Else():
            m.next = "ANSWER"
