"""Trax notation in hardware: character classes and accumulation for reading moves, and a
number printer for writing them.

Notation (as in the reference engine's ``parse_move``)::

    move   = column row tile
    column = "@" | letter+          "@" is -1, "A" 0 ... "Z" 25, "AA" 26 ...
    row    = "0" | [1-9] digit*     "0" is -1, "1" 0 ...
    tile   = "+" | "/" | "\\"

Reading: the grammar is checked by whoever reads the characters (the protocol sequencer);
:func:`accumulate` turns them into the engine's area-relative column and row.  A column or
row too large for the accumulator saturates, far beyond any board, and the engine then
refuses it as out of range.

Writing: :class:`NumberText` prints a number in decimal, or a column as its letters.
"""

from amaranth.hdl import Array, Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .tiles import Shape

__all__ = ["TILE_CHARS", "is_letter", "is_digit", "is_tile", "tile_of", "accumulate",
           "NumberText"]

#: Shape -> its notation character.
TILE_CHARS = {Shape.PLUS: ord("+"), Shape.SLASH: ord("/"), Shape.BACKSLASH: ord("\\")}


# The character classes are written as logic on the bits rather than as comparisons, which
# synthesis would build as carry chains (slow, and on the protocol's critical path).

def is_letter(c):
    """``A``..``Z``: 0x41..0x5A, that is 0b010xxxxx with the low five bits 1..26."""
    low = c[:5]
    over = low[4] & low[3] & (low[2] | (low[1] & low[0]))           # 27..31
    return (c[5:8] == 0b010) & (low != 0) & ~over


def is_digit(c):
    """``0``..``9``: 0x30..0x39, that is 0b0011xxxx with the low four bits 0..9."""
    return (c[4:8] == 0b0011) & ~(c[3] & (c[2] | c[1]))


def is_tile(c):
    return (c == ord("+")) | (c == ord("/")) | (c == ord("\\"))


def tile_of(c):
    """The Shape of a tile character (only meaningful when :func:`is_tile`)."""
    return Mux(c == ord("+"), Shape.PLUS, Mux(c == ord("/"), Shape.SLASH, Shape.BACKSLASH))


def accumulate(m, acc, c, letters, bits):
    """The next value of a column (``letters``) or row accumulator after character ``c``
    (combinational logic added to ``m``).

    The accumulator holds the value the engine wants (``@``/``0`` -1, ``A``/``1`` 0): with
    ``x + 1`` written in bijective base 26 (letters) or in decimal (digits), one more
    character makes ``x' = 26 x + letter + 25`` or ``x' = 10 x + digit + 9``, both
    ``m x + c - 39``.  The first character loads ``c - 'A'`` or ``c - '1'`` instead.  Values
    from ``2**bits - 1`` on saturate there; ``acc`` must be non-negative here.
    """
    sat = (1 << bits) - 1
    a = acc[:bits]
    times = (a << 3) + (a << 1) + Mux(letters, a << 4, 0)           # 10 a or 26 a
    nxt = Signal(bits + 6)
    m.d.comb += nxt.eq(times + (c - 39)[:6])
    return Mux((a == sat) | (nxt >= sat), sat, nxt[:bits])


class NumberText(wiring.Component):
    """Prints a number, one character per transfer on ``out``.

    Decimal: an unsigned number, digits without leading zeros (``0`` for zero).  Column
    (``column`` high): a signed area-relative column printed as its letters: -1 is ``@``, 0
    ``A``, 25 ``Z``, 26 ``AA``, up to 701 ``ZZ`` (two letters at most: ``26 q + r`` is the
    letter ``'@' + q``, left out when ``q`` is 0, then ``'A' + r``).

    One subtraction per cycle: at most 9 per decimal digit (26 per column letter).

    Parameters
    ----------
    width : int
        Bits of ``value`` (16 prints 0 .. 65535; the perft count needs more).

    Attributes
    ----------
    start : In(1)
        Load ``value``/``column`` and begin (when idle).
    value : In(width)
        A column is given sign-extended to ``width`` bits.
    column : In(1)
    out : Out(stream.Signature(8))
    busy : Out(1)
        From ``start`` until the last character has been taken.
    """

    def __init__(self, width=16):
        self.width = width
        super().__init__({
            "start":  In(1),
            "value":  In(width),
            "column": In(1),
            "out":    Out(stream.Signature(8)),
            "busy":   Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        W = self.width
        digits = len(str((1 << W) - 1))
        v = Signal(W)
        col = Signal()
        at = Signal()                   # column -1: just "@"
        p = Signal(range(digits))       # index of the current power
        digit = Signal(5)
        started = Signal()              # a non-zero digit has been printed

        powers = Array([Const(10 ** (digits - 1 - i), W) for i in range(digits)])
        pw = Mux(col, Mux(p == digits - 2, 26, 1), powers[p])
        last = p == digits - 1
        ge = v >= pw

        # Decimal digits from '0'; a column's leading letter from '@' (its digit is 1..26),
        # its last letter from 'A' (0..25).
        base = Mux(col, Mux(last, ord("A"), ord("@")), ord("0"))
        m.d.comb += self.out.payload.eq(Mux(at, ord("@"), base + digit))

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [
                        col.eq(self.column),
                        at.eq(self.column & self.value[W - 1]),
                        v.eq(self.value),
                        p.eq(Mux(self.column, digits - 2, 0)),
                        digit.eq(0),
                        started.eq(0),
                    ]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                with m.If(at):
                    m.d.comb += self.out.valid.eq(1)
                    with m.If(self.out.ready):
                        m.next = "IDLE"
                with m.Elif(ge):
                    m.d.sync += [v.eq(v - pw), digit.eq(digit + 1)]
                with m.Else():
                    show = (digit != 0) | started | last
                    m.d.comb += self.out.valid.eq(show)
                    with m.If(~show | self.out.ready):
                        m.d.sync += [p.eq(p + 1), digit.eq(0), started.eq(started | show)]
                        with m.If(last):
                            m.next = "IDLE"
        return m
